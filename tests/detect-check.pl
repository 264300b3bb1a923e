#!/usr/bin/perl
# detect-check.pl: an independent check of `benchline detect` (SPEC §6). It shares no code with
# benchline: it generates a history of its own (random steps, noise, outliers, flat stretches
# where the 3% floor decides, harness and content breaks, imported Baselines, tagged runs,
# reruns of a key, records benched late), writes it as native JSON records (§2), has benchline
# ingest it file by file with an incremental `detect --json` after each, and compares
# benchline's Suspects with the ones its own copy of the rule finds, exactly: the same records,
# sides, and bit-identical shift, center and tolerance.
#
#   perl tests/detect-check.pl --benchline PATH [--dir DIR] [--seed N] [--records N]
#
# Exits 0 when every mark agrees, 1 with the differences otherwise, 2 on errors.
use strict;
use warnings;
use JSON::PP;
use POSIX qw(ceil strftime);

my %opt = (dir => '.', seed => 1, records => 4000, benchline => 'benchline');
while (@ARGV) {
	my $a = shift @ARGV;
	$a =~ /^--(benchline|dir|seed|records)$/ or die "detect-check.pl: unknown option $a\n";
	defined($opt{$1} = shift @ARGV) or die "detect-check.pl: $a needs a value\n";
}
srand($opt{seed});
my $db = "$opt{dir}/check-$opt{seed}.db";
unlink $db, "$db-wal", "$db-shm";

# --- the rule, as §6 words it ----------------------------------------------------------------
sub nr_median {
	my @s = sort { $a <=> $b } @_;
	return $s[ceil(0.5 * @s) - 1];
}

# marks(@medians): for each index, undef or [side (+1 above / -1 below), center, tolerance].
my ($ties, $tie_steps) = (0, 0); # records exactly on a tolerance, on a step's tolerance
sub marks {
	my @m = @_;
	my @out;
	for my $i (0 .. $#m) {
		my $from = $i - 8 < 0 ? 0 : $i - 8;
		my @w = @m[$from .. $i - 1];
		@w = () if $i == 0;
		next if @w < 3;
		my $c = nr_median(@w);
		my $dev = nr_median(map { abs($_ - $c) } @w);
		my $tol = 4 * $dev;
		$tol = 0.03 * abs($c) if 0.03 * abs($c) > $tol;
		$ties++ if abs($m[$i] - $c) == $tol && $tol > 0;
		next unless abs($m[$i] - $c) > $tol;
		my $side = $m[$i] > $c ? 1 : -1;
		my $continues = 0;
		for my $f ($from .. $i - 1) {
			next unless $out[$f];
			$tie_steps++ if $out[$f][0] == $side && abs($m[$i] - $m[$f]) == $out[$f][2];
			$continues = 1 if $out[$f][0] == $side && abs($m[$i] - $m[$f]) <= $out[$f][2];
		}
		$out[$i] = [$side, $c, $tol] unless $continues;
	}
	return @out;
}

# --- the history -----------------------------------------------------------------------------
my @machines = ('mac-' . $opt{seed}, 'linux-' . $opt{seed});
my @benchmarks = qw(town crowd forest);
my @configs = ('1080p', '');
my @groups;
for my $m (@machines) {
	for my $b (@benchmarks) {
		push @groups, [$m, $b, $_] for @configs;
	}
}
my $t0 = 1767225600; # 2026-01-01T00:00:00Z
my $per_group = int($opt{records} / @groups) || 1;
my (@runs, $n);

sub hex40 { sprintf '%040x', $_[0] }
sub iso { strftime('%Y-%m-%dT%H:%M:%SZ', gmtime($_[0])) }

for my $gi (0 .. $#groups) {
	my ($machine, $bench, $config) = @{$groups[$gi]};
	# Two judged metrics (one where higher is better) and a counted one (never judged).
	my %level = (a_frame_us => 1000 + rand(9000), b_fps => 30 + rand(200));
	my $harness = 1;
	my $content = 1;
	# A third of the groups are quantized: round levels, integer medians that move by a
	# unit or not at all, steps of 3 to 6 units in a hundred. Their windows often have a
	# MAD of 0 or 1, so the 3% floor decides, and records land exactly on a tolerance
	# (|m - center| == tolerance: not outside) or exactly on a marked record's tolerance
	# (|m - m_f| == tolerance_f: continues it).
	my $flat = rand() < 0.35;
	my %unit;
	if ($flat) {
		for my $name (sort keys %level) {
			$unit{$name} = (1, 2, 3, 10)[int(rand(4))];
			$level{$name} = 100 * $unit{$name};
		}
	}
	for my $k (0 .. $per_group - 1) {
		my $seq = $gi * 100000 + $k;
		if (rand() < ($flat ? 0.05 : 0.03)) {
			for my $name (sort keys %level) {
				my $sign = rand() < 0.5 ? 1 : -1;
				if ($flat) {
					$sign = 1 if $level{$name} < 50 * $unit{$name};
					$level{$name} += $sign * (3 + int(rand(4))) * $unit{$name};
					next;
				}
				my $size = 0.04 + rand(0.2);
				$level{$name} *= $sign > 0 ? 1 + $size : 1 / (1 + $size);
			}
		}
		$harness++ if rand() < 0.004;
		$content++ if rand() < 0.004;
		my %run = (group => $gi, machine => $machine, benchmark => $bench, config => $config,
			   harness => $harness, content => $content, seq => $seq,
			   commit => hex40(1 + $seq), source => hex40(0x5000000 + $seq),
			   committed_at => $t0 + $k * 3600, started_at => $t0 + $k * 3600 + 600 + $gi,
			   baseline => ($k == 0 || rand() < 0.004) ? 1 : 0, tags => 0, p95 => 1.02);
		my $noise = 0.005 + rand(0.02);
		for my $name (sort keys %level) {
			if ($flat) {
				my $v = $level{$name} + (-1, 0, 0, 0, 1)[int(rand(5))] * $unit{$name};
				$v += (rand() < 0.5 ? 1 : -1) * (3 + int(rand(7))) * $unit{$name}
				    if rand() < 0.02; # an outlier
				$run{metrics}{$name} = $v;
				next;
			}
			my $v = $level{$name} * (1 + $noise * (rand(2) - 1));
			$v *= rand() < 0.5 ? 1.08 : 0.92 if rand() < 0.01; # an outlier
			$run{metrics}{$name} = sprintf('%.1f', $v);
		}
		$run{metrics}{allocations} = 5000 + int(rand(20));
		# Runs that are not on the Series: each is tagged for one reason.
		my $r = rand();
		if ($r < 0.01) { $run{dirty} = 1; $run{tags} = 1 }
		elsif ($r < 0.02) { $run{profile} = 'debug'; $run{tags} = 1 }
		elsif ($r < 0.03) { $run{busy} = 1; $run{tags} = 1 }
		elsif ($r < 0.04) { $run{p95} = 1.2; $run{tags} = 1 } # noisy
		elsif ($r < 0.05) { $run{branch} = 'feature'; $run{tags} = 1 } # not main
		$run{baseline} = 0 if $run{tags};
		push @runs, \%run;
		# A rerun of the key now and then: the quieter of the two stands.
		if (!$run{tags} && rand() < 0.02) {
			my %again = %run;
			$again{metrics} = {%{$run{metrics}}};
			$again{started_at} += 7200;
			$again{p95} = rand() < 0.5 ? 1.01 : 1.03;
			$again{metrics}{a_frame_us} = $flat ? $run{metrics}{a_frame_us}
				: sprintf('%.1f', $run{metrics}{a_frame_us} * (1 + rand(0.01)));
			$again{rerun} = 1;
			push @runs, \%again;
		}
	}
}

# Ingest order: by time, in files of about 500 runs; some runs are held back and ingested at
# the end, out of order (benched late), so detect must rebuild what they land in.
my @late = grep { rand() < 0.01 } @runs;
my %late = map { $_ => 1 } @late;
my @order = ((sort { $a->{started_at} <=> $b->{started_at} || $a->{group} <=> $b->{group} }
	      grep { !$late{$_} } @runs), @late);
my $id = 0;
$_->{id} = ++$id for @order; # benchline's run ids follow ingest order

sub record_json {
	my ($r) = @_;
	my $p = $r->{metrics}{a_frame_us} * $r->{p95};
	my $json = sprintf '{"schema":1,"machine":"%s","benchmark":"%s","config":"%s",'
		. '"harness_version":%d,"content_hash":"%032x","primary":"a_frame_us",'
		. '"source":{"commit":"%s","source_hash":"%s","committed_at":"%s"%s%s},'
		. '"started_at":"%s","baseline":%s,%s%s'
		. '"metrics":{"a_frame_us":{"kind":"timed","unit":"us","median":%s,"p95":%.1f},'
		. '"b_fps":{"kind":"timed","unit":"fps","better":"higher","median":%s},'
		. '"allocations":{"kind":"counted","unit":"allocs","value":%d}}}',
		$r->{machine}, $r->{benchmark}, $r->{config}, $r->{harness}, $r->{content},
		$r->{commit}, $r->{source}, iso($r->{committed_at}),
		$r->{dirty} ? ',"dirty":true' : '',
		$r->{branch} ? qq(,"branch":"$r->{branch}") : '',
		iso($r->{started_at}), $r->{baseline} ? 'true' : 'false',
		$r->{profile} ? qq("profile":"$r->{profile}",) : '',
		$r->{busy} ? '"preflight":{"quiet":false},' : '',
		$r->{metrics}{a_frame_us}, $p, $r->{metrics}{b_fps}, $r->{metrics}{allocations};
	return $json;
}

sub run_bl {
	my ($args, $out) = @_;
	my $cmd = "'$opt{benchline}' --db '$db' $args";
	my $text = `$cmd 2>$opt{dir}/check-err`;
	if ($? != 0) {
		print STDERR "detect-check: $cmd failed:\n";
		system("cat $opt{dir}/check-err >&2");
		exit 2;
	}
	return $text;
}

my $json = JSON::PP->new;
my (%new_seen, $files);
for (my $i = 0; $i < @order; $i += 500) {
	my $file = "$opt{dir}/check-$opt{seed}-" . ++$files . '.json';
	open my $f, '>', $file or die "$file: $!\n";
	print $f record_json($_), "\n" for @order[$i .. ($i + 499 > $#order ? $#order : $i + 499)];
	close $f;
	run_bl("ingest '$file'");
	my $d = $json->decode(run_bl('detect --json'));
	$new_seen{$_->{id}}++ for @{$d->{new_suspects}};
}

# --- what the rule finds ---------------------------------------------------------------------
# The standing run of each key: the quieter of a clean pair (lower p95/median), else the first.
my %standing;
for my $r (@order) {
	next if $r->{tags};
	my $key = join "\t", $r->{group}, $r->{source}, $r->{harness};
	my $s = $standing{$key};
	$standing{$key} = $r if !$s || $r->{p95} < $s->{p95};
}
my %series;
for my $r (values %standing) {
	push @{$series{$r->{group}}}, $r;
}
my @want;
for my $gi (sort { $a <=> $b } keys %series) {
	# Series order without synced commits: by commit time, then start time, then run id.
	my @members = sort { $a->{committed_at} <=> $b->{committed_at}
			     || $a->{started_at} <=> $b->{started_at} || $a->{id} <=> $b->{id} }
		@{$series{$gi}};
	for my $metric (qw(a_frame_us b_fps)) {
		my $higher = $metric eq 'b_fps';
		my (@line, $prev);
		my $flush = sub {
			my @m = marks(map { 0 + $_->{metrics}{$metric} } @line);
			for my $i (0 .. $#line) {
				next unless $m[$i];
				my ($side, $c, $tol) = @{$m[$i]};
				my $v = 0 + $line[$i]{metrics}{$metric};
				push @want, join "\t", @{$groups[$gi]}, $metric, $line[$i]{commit},
					($side > 0) == !$higher ? 'slower' : 'faster',
					sprintf('%.17g', ($v - $c) / $c), sprintf('%.17g', $c),
					sprintf('%.17g', $tol);
			}
			@line = ();
		};
		for my $r (@members) {
			$flush->() if $prev && ($r->{harness} != $prev->{harness}
						|| $r->{content} != $prev->{content} || $r->{baseline});
			push @line, $r;
			$prev = $r;
		}
		$flush->();
	}
}

# --- what benchline found --------------------------------------------------------------------
# The band's Suspects are compared mark for mark; the change-point search's (§6.1, kind
# change-point) only with what a rebuild finds, below: the incremental runs searched each line
# as it grew, from its stored values, and must agree with one search of the whole history.
my $all = $json->decode(run_bl('suspects --json'));
my @band = grep { $_->{kind} eq 'band' } @$all;
my $changes = @$all - @band;
my @got = map { join "\t", @$_{qw(machine benchmark config metric commit side)},
		    map { sprintf '%.17g', $_ } @$_{qw(shift center tolerance)} } @band;
my %want = map { $_ => 1 } @want;
my %got = map { $_ => 1 } @got;
my @missing = grep { !$got{$_} } sort @want;
my @extra = grep { !$want{$_} } sort @got;
my $again = $json->decode(run_bl('detect --all --json'));
my $after = run_bl('suspects --json');
my $ok = !@missing && !@extra;
printf "seed %d: %d runs in %d files, %d Suspects expected, %d found, %d missing, %d extra"
	. " (%d records exactly on a band's edge, %d on a step's); %d change points\n",
	$opt{seed}, scalar @order, $files, scalar @want, scalar @got, scalar @missing,
	scalar @extra, $ties, $tie_steps, $changes;
print "missing: $_\n" for @missing;
print "extra:   $_\n" for @extra;
if (@{$again->{new_suspects}}) {
	print "detect --all found new Suspects the incremental runs had not\n";
	$ok = 0;
}
if ($json->canonical->encode($json->decode($after)) ne $json->canonical->encode($all)) {
	print "detect --all changed the Suspects\n";
	$ok = 0;
}
# Each final Suspect was reported new once, by the detect after the file that completed it.
my @never = grep { !$new_seen{$_->{id}} } @$all;
if (@never) {
	print "never reported new: ", join(' ', map { $_->{id} } @never), "\n";
	$ok = 0;
}
exit($ok ? 0 : 1);

#!/usr/bin/perl
# score.pl: the figures of one converted corpus, from what benchline itself reports about it
# (tests/corpora/measure.sh runs it after init, ingest and detect).
#
#   perl tests/corpora/score.pl --name NAME --converted FILE --records FILE --series FILE
#        --suspects FILE [--ranges FILE] [--alerts FILE] [--time FILE] [--json]
#
# --converted  the converter's output (JSON lines), for the expected order
# --records    `benchline records --json`     --series  `benchline series --json`
# --suspects   `benchline suspects --json`    --ranges  a converter's ranges file (asv-django.pl)
# --alerts     `benchline alerts --json`, for the alert figures
# --time       measure.sh's timings ("FIRST_S SCAN_S", then a line per round), for
#              first_detect_s, scan_s, first_detect_per_scan and first_detect_rounds
#
# The figures (text: one "NAME: figure: value" line each; --json: one object):
# - records_converted: records the converter wrote; records_standing: the standing records
#   benchline lists (an entry that repeats a key is superseded by the key rule);
# - series, series_judged: every Series, and those §6 judges (the timed metrics);
# - records_judged: the records on the judged Series, the denominator of the rate;
# - suspects_slower, suspects_faster, slower_per_100 = suspects_slower / records_judged * 100;
# - order_checked, order_ok: the (machine, benchmark) groups, and how many of them benchline
#   lists in the converter's order (the records of each group, in file order, keeping the first
#   of a repeated commit: the run the key rule keeps on a tie). order_bad names the others;
# - with --ranges: ranges (asv's published regression steps), ranges_on_series (both ends'
#   records are on the Series), ranges_matched: ranges with a slower Suspect within one record
#   of the range. Precisely: on the Series' records in benchline's order, let b be the position
#   of rev_before's record and a that of rev_after's (b = a - 1 when asv gives no rev_before);
#   the range is matched when a slower Suspect sits at a position in [b - 1, a + 1]. A range
#   whose rev_after has no record on the Series (asv could not measure it) is not matched;
# - slower_alerts (live: not transient, pending, cleared or ignored; of which
#   slower_alerts_run_wide run-wide, and slower_alerts_transient and slower_alerts_pending left
#   out), slower_alerts_per_100, ranges_matched_by_alerts, ranges_reference_before: from
#   --alerts, null without it.
use strict;
use warnings;
use JSON::PP;

my %opt = (json => 0);
while (@ARGV) {
	my $a = shift @ARGV;
	if ($a eq '--json') {
		$opt{json} = 1;
	} elsif ($a =~ /^--(name|converted|records|series|suspects|ranges|alerts|time)$/) {
		defined($opt{$1} = shift @ARGV) or die "score.pl: $a needs a value\n";
	} else {
		die "score.pl: unknown argument '$a'\n";
	}
}
for (qw(name converted records series suspects)) {
	defined $opt{$_} or die "score.pl: --$_ is required\n";
}
my $js = JSON::PP->new->allow_nonref;

sub slurp_json {
	my ($path) = @_;
	open my $f, '<', $path or die "score.pl: cannot read $path: $!\n";
	local $/;
	return $js->decode(scalar <$f>);
}

# The (machine, benchmark, commit) of each record of a file of JSON objects, one per line (the
# converter's JSON lines, or benchline's arrays, which print one record a line). JSON::PP takes
# half a minute over Django's 191,434 records, so the three strings are read with a pattern,
# and a line the pattern does not fit is decoded in full.
sub each_record {
	my ($path, $fn) = @_;
	open my $f, '<', $path or die "score.pl: cannot read $path: $!\n";
	while (my $line = <$f>) {
		next unless $line =~ /^\s*\{/;
		my ($m, $b, $c);
		if ($line !~ /\\/
		    && (($m, $b) = $line =~
			/^\s*\{(?:"(?:id|schema)":[0-9]+,)?"machine":"([^"]*)","benchmark":"([^"]*)",/)
		    && (($c) = $line =~ /"commit":"([0-9a-f]{40})"/)) {
			# the fast path: no escapes, benchline's key order
		} else {
			(my $text = $line) =~ s/,\s*$//;
			my $r = $js->decode($text);
			($m, $b, $c) = ($r->{machine}, $r->{benchmark}, $r->{commit} // $r->{source}{commit});
		}
		$fn->($m, $b, $c);
	}
	close $f;
}

# --- order -----------------------------------------------------------------------------------
my (%want, %seen, $converted);
each_record($opt{converted}, sub {
	my ($m, $b, $c) = @_;
	$converted++;
	my $k = "$m\0$b";
	push @{ $want{$k} }, $c unless $seen{$k}{$c}++;
});
my (%got, $standing);
each_record($opt{records}, sub {
	my ($m, $b, $c) = @_;
	$standing++;
	push @{ $got{"$m\0$b"} }, $c;
});
my ($checked, $ok, @bad) = (0, 0);
for my $k (sort keys %want) {
	$checked++;
	my ($w, $g) = ($want{$k}, $got{$k} // []);
	if (join(',', @$w) eq join(',', @$g)) {
		$ok++;
	} else {
		(my $name = $k) =~ s/\0/\//;
		push @bad, $name;
	}
}

# --- Series and Suspects -------------------------------------------------------------------------
my $series = slurp_json($opt{series});
my @judged = grep { $_->{kind} eq 'timed' } @$series;
my $records_judged = 0;
$records_judged += $_->{records} for @judged;
my $suspects = slurp_json($opt{suspects});
my @slower = grep { $_->{side} eq 'slower' } @$suspects;
my $faster = grep { $_->{side} eq 'faster' } @$suspects;

my %f = (
	corpus => $opt{name},
	records_converted => $converted // 0,
	records_standing => $standing // 0,
	series => scalar @$series,
	series_judged => scalar @judged,
	records_judged => $records_judged,
	suspects_slower => scalar @slower,
	suspects_faster => $faster,
	slower_per_100 => $records_judged ? 0 + sprintf('%.2f', @slower / $records_judged * 100) : undef,
	order_checked => $checked,
	order_ok => $ok,
	order_bad => [@bad[0 .. ($#bad < 9 ? $#bad : 9)]],
	ranges => undef,
	ranges_on_series => undef,
	ranges_matched => undef,
	ranges_unmatched => undef,
);

# --- asv's regression ranges ---------------------------------------------------------------------
# match_ranges(\@ranges, \@suspects): how many ranges have both ends on their Series, how many
# have one of the given slower Suspects within 1 record of the range, and which do not.
my %pos;    # "machine\0benchmark" -> commit -> position on the Series
for my $k (keys %got) {
	my $i = 0;
	$pos{$k}{$_} = $i++ for @{ $got{$k} };
}
sub match_ranges {
	my ($ranges, $marked) = @_;
	my %marks;    # "machine\0benchmark\0metric" -> [positions of slower Suspects]
	for my $s (@$marked) {
		my $p = $pos{"$s->{machine}\0$s->{benchmark}"}{ $s->{commit} };
		push @{ $marks{"$s->{machine}\0$s->{benchmark}\0$s->{metric}"} }, $p if defined $p;
	}
	my ($on, $matched, @unmatched) = (0, 0);
	for my $r (@$ranges) {
		my $p = $pos{"$r->{machine}\0$r->{benchmark}"} // {};
		my $a = defined $r->{after} ? $p->{ $r->{after} } : undef;
		my $b = defined $r->{before} ? $p->{ $r->{before} } : undef;
		my $hit = 0;
		if (defined $a) {
			$on++ if defined $b || !defined $r->{before};
			$b //= $a - 1;
			for my $m (@{ $marks{"$r->{machine}\0$r->{benchmark}\0$r->{metric}"} // [] }) {
				$hit = 1 if $m >= $b - 1 && $m <= $a + 1;
			}
		}
		if ($hit) {
			$matched++;
		} else {
			push @unmatched, sprintf('%s/%s %s..%s', $r->{machine}, $r->{benchmark},
			    $r->{before_rev} // 'null', $r->{after_rev} // 'null');
		}
	}
	return ($on, $matched, \@unmatched);
}

my $ranges = defined $opt{ranges} ? slurp_json($opt{ranges}) : undef;
if ($ranges) {
	my ($on, $matched, $unmatched) = match_ranges($ranges, \@slower);
	@f{qw(ranges ranges_on_series ranges_matched)} = (scalar @$ranges, $on, $matched);
	$f{ranges_unmatched} = $unmatched;
}

# --- alerts (§9.1) -----------------------------------------------------------------------------
# With --alerts (`benchline alerts --json`): the live slower alerts (what confirm measures: not
# transient, not pending, not cleared or ignored) per 100 judged records, the ranges matched by
# the Suspects of live alerts only, instead of by any slower Suspect, and of those the ranges
# whose alert re-benches against a reference commit on the old level (before the range's
# first new record: `after`).
$f{slower_alerts} = undef;
$f{slower_alerts_transient} = undef;
$f{slower_alerts_pending} = undef;
$f{slower_alerts_run_wide} = undef;
$f{slower_alerts_per_100} = undef;
$f{ranges_matched_by_alerts} = undef;
$f{ranges_reference_before} = undef;
if (defined $opt{alerts}) {
	my $alerts = slurp_json($opt{alerts});
	my (%kept, %alert_of);
	my ($n, $transient, $pending, $run_wide) = (0, 0, 0, 0);
	for my $a (grep { $_->{side} eq 'slower' } @$alerts) {
		if ($a->{state} eq 'transient') {
			$transient++;
			next;
		}
		if ($a->{state} eq 'pending') {
			$pending++;
			next;
		}
		next if $a->{state} eq 'cleared' || $a->{state} eq 'ignored';
		$n++;
		$run_wide++ if $a->{run_wide};
		for (@{ $a->{suspects} }) {
			$kept{$_} = 1;
			$alert_of{$_} = $a;
		}
	}
	$f{slower_alerts} = $n;
	$f{slower_alerts_transient} = $transient;
	$f{slower_alerts_pending} = $pending;
	$f{slower_alerts_run_wide} = $run_wide;
	$f{slower_alerts_per_100} =
	    $records_judged ? 0 + sprintf('%.3f', $n / $records_judged * 100) : undef;
	if ($ranges) {
		my @live = grep { $kept{ $_->{id} } } @slower;
		my (undef, $matched) = match_ranges($ranges, \@live);
		$f{ranges_matched_by_alerts} = $matched;
		# For each range, the live alerts whose Suspects match it: is the reference commit
		# of one of them before the range's first new record?
		my $before = 0;
		for my $r (@$ranges) {
			my $p = $pos{"$r->{machine}\0$r->{benchmark}"} // {};
			my $a = defined $r->{after} ? $p->{ $r->{after} } : undef;
			next unless defined $a;
			my $b = defined $r->{before} ? $p->{ $r->{before} } : $a - 1;
			my $ok = 0;
			for my $s (@live) {
				next unless $s->{machine} eq $r->{machine}
				    && $s->{benchmark} eq $r->{benchmark} && $s->{metric} eq $r->{metric};
				my $m = $p->{ $s->{commit} };
				next unless defined $m && $m >= $b - 1 && $m <= $a + 1;
				my $ref = $alert_of{ $s->{id} }{reference_commit};
				my $rp = defined $ref ? $p->{$ref} : undef;
				$ok = 1 if defined $rp && $rp < $a;
			}
			$before++ if $ok;
		}
		$f{ranges_reference_before} = $before;
	}
}

# --- the first detect against one sorted SQL scan (§12) ---------------------------------------
$f{first_detect_s} = undef;
$f{scan_s} = undef;
$f{first_detect_per_scan} = undef;
if (defined $opt{time}) {
	open my $t, '<', $opt{time} or die "score.pl: cannot open '$opt{time}': $!\n";
	my ($d, $s) = split ' ', scalar <$t>;
	@f{qw(first_detect_s scan_s)} = (0 + $d, 0 + $s);
	$f{first_detect_per_scan} = $s > 0 ? 0 + sprintf('%.2f', $d / $s) : undef;
	# each round's detect and the scan right after it, for a ratio paired in time
	$f{first_detect_rounds} = [ map { [ map { 0 + $_ } split ' ' ] } grep { /\S/ } <$t> ];
}

# --- output ------------------------------------------------------------------------------------
if ($opt{json}) {
	print JSON::PP->new->canonical->pretty->encode(\%f);
	exit 0;
}
my $n = $opt{name};
print "$n: records converted: $f{records_converted}\n";
print "$n: records standing: $f{records_standing}\n";
print "$n: Series: $f{series} ($f{series_judged} judged, $f{records_judged} records on them)\n";
print "$n: slower Suspects: $f{suspects_slower} (and $f{suspects_faster} faster)\n";
printf "$n: slower Suspects per 100 records: %s\n", $f{slower_per_100} // '-';
print "$n: order: $f{order_ok} of $f{order_checked} (machine, benchmark) groups in the converter's"
    . " order" . (@bad ? " (not: " . join(', ', @{ $f{order_bad} }) . ")" : '') . "\n";
if (defined $f{ranges}) {
	print "$n: regression ranges: $f{ranges} ($f{ranges_on_series} with both ends on the Series)\n";
	print "$n: ranges with a slower Suspect within 1 record: $f{ranges_matched} of $f{ranges}\n";
}
if (defined $f{slower_alerts}) {
	print "$n: live slower alerts: $f{slower_alerts}"
	    . " ($f{slower_alerts_run_wide} run-wide; $f{slower_alerts_transient} transient and"
	    . " $f{slower_alerts_pending} pending left out)\n";
	print "$n: live slower alerts per 100 records: $f{slower_alerts_per_100}\n";
	print "$n: ranges with a live alert within 1 record: $f{ranges_matched_by_alerts} of"
	    . " $f{ranges}\n"
	    if defined $f{ranges_matched_by_alerts};
	print "$n: of those, with the alert's reference commit before the range:"
	    . " $f{ranges_reference_before} of $f{ranges_matched_by_alerts}\n"
	    if defined $f{ranges_reference_before};
} else {
	print "$n: slower alerts per 100 records: - (no --alerts given)\n";
}
printf "$n: first detect --all: %.3f s, one sorted SQL scan of the same values: %.3f s (%.2f x)\n",
    $f{first_detect_s}, $f{scan_s}, $f{first_detect_per_scan} // 0
    if defined $f{first_detect_s};
print "$n: first detect --all rounds (detect/scan s): "
    . join(' ', map { sprintf('%.4f/%.4f', @$_) } @{ $f{first_detect_rounds} }) . "\n"
    if $f{first_detect_rounds} && @{ $f{first_detect_rounds} };
exit 0;

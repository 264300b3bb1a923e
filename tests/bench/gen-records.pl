#!/usr/bin/perl
# Writes native benchline records (SPEC §2), one per line, deterministically for a seed: the
# input of `make bench` (tests/bench/run.sh) and of the crash test (tests/e2e/t0130-crash.t).
#
#   gen-records.pl [--count N] [--metrics M] [--machines K] [--prefix NAME] [--seed S]
#                  [--rows FILE] > records.json
#
# Every record has a key of its own: K machines (NAME-0...; just NAME when K is 1) x 50
# benchmarks x 2 configs per commit, commits numbered from 0. Of the M metrics (M >= 3), the
# last is counted, the one before a quantile, the rest timed with median, p95 and n; the first
# two timed ones also carry 8 samples. p95/median stays under 1.04, so no run is noisy, and
# every record is clean, release and on main: none is tagged.
#
# --rows FILE also writes the same rows as tab-separated text for the plain-insert reference
# (tests/bench/plain_insert.c), which must not parse JSON:
#   R  machine_idx benchmark_idx config source_hash harness commit branch started_at
#      primary quietness digest raw
#   M  name kind unit better median p95 n value samples     (one line per metric; "-" = NULL;
#                                                            samples comma-separated)
# and first the names: "MACHINE idx name", "BENCHMARK idx name".
use strict;
use warnings;
use Digest::SHA qw(sha1_hex);
use POSIX qw(strftime);

my %opt = (count => 100000, metrics => 10, machines => 4, prefix => 'bench', seed => 1);
while (@ARGV) {
	my $a = shift @ARGV;
	$a =~ /^--(count|metrics|machines|prefix|seed|rows)$/ or die "gen-records.pl: unknown option $a\n";
	defined($opt{$1} = shift @ARGV) or die "gen-records.pl: $a needs a value\n";
}
die "gen-records.pl: --metrics must be 3 or more\n" if $opt{metrics} < 3;
srand($opt{seed});

my @timed_names = qw(frame_gpu_us frame_cpu_us present_us upload_us shader_compile_ms
	scene_load_ms physics_us audio_us);
my ($K, $M) = ($opt{machines}, $opt{metrics});
my @machines = $K == 1 ? ($opt{prefix}) : map { "$opt{prefix}-$_" } 0 .. $K - 1;
my @benchmarks = map { sprintf "scene-%02d", $_ } 0 .. 49;
my @configs = ('1920x1080/600f', '2560x1440/1800f');
my @metric_names;
for my $j (0 .. $M - 3) {
	my $base = $timed_names[$j % @timed_names];
	push @metric_names, $j < @timed_names ? $base : "${base}_$j";
}
push @metric_names, 'ledger_p95_ms', 'allocations';

my $rows;
if (defined $opt{rows}) {
	open $rows, '>', $opt{rows} or die "gen-records.pl: $opt{rows}: $!\n";
	print $rows "MACHINE\t$_\t$machines[$_]\n" for 0 .. $#machines;
	print $rows "BENCHMARK\t$_\t$benchmarks[$_]\n" for 0 .. $#benchmarks;
}

my $t0 = 1793592000; # 2026-11-02T04:00:00Z
my $per_commit = $K * @benchmarks * @configs;
for my $i (0 .. $opt{count} - 1) {
	my $mi = $i % $K;
	my $bi = int($i / $K) % @benchmarks;
	my $ci = int($i / ($K * @benchmarks)) % @configs;
	my $commit_no = int($i / $per_commit);
	my $commit = sprintf 'c%039x', $commit_no;
	my $source = sprintf 'a%039x', $commit_no;
	my $started = strftime('%Y-%m-%dT%H:%M:%SZ', gmtime($t0 + $commit_no * 3600 + $i % $per_commit));

	my (@json, @mrows, %quietness);
	for my $j (0 .. $M - 1) {
		my $name = $metric_names[$j];
		if ($j == $M - 1) {
			my $v = 5000 + int(rand(1000));
			push @json, qq("$name":{"kind":"counted","unit":"allocs","better":"lower","value":$v});
			push @mrows, "M\t$name\tcounted\tallocs\tlower\t-\t-\t-\t$v\t-";
			next;
		}
		if ($j == $M - 2) {
			my $v = sprintf '%.4f', 0.5 + rand(2);
			push @json, qq("$name":{"kind":"quantile","unit":"ms","better":"lower","value":$v});
			push @mrows, "M\t$name\tquantile\tms\tlower\t-\t-\t-\t$v\t-";
			next;
		}
		my $median = sprintf '%.1f', 1000 + rand(9000);
		my $p95 = sprintf '%.1f', $median * (1.005 + rand(0.03));
		my $unit = $name =~ /_ms(_\d+)?$/ ? 'ms' : 'us';
		my $m = qq("$name":{"kind":"timed","unit":"$unit","better":"lower","median":$median,"p95":$p95,"n":30);
		my $samples = '-';
		if ($j < 2) {
			$samples = join ',', map { sprintf '%.1f', $median * (0.99 + rand(0.05)) } 1 .. 8;
			$m .= qq(,"samples":[$samples]);
		}
		push @json, "$m}";
		push @mrows, "M\t$name\ttimed\t$unit\tlower\t$median\t$p95\t30\t-\t$samples";
		$quietness{$name} = $p95 / $median;
	}
	my $line = qq({"schema":1,"machine":"$machines[$mi]","benchmark":"$benchmarks[$bi]",)
		. qq("config":"$configs[$ci]","harness_version":3,)
		. qq("source":{"commit":"$commit","source_hash":"$source","branch":"main"},)
		. qq("started_at":"$started","metrics":{) . join(',', @json) . "}}";
	print "$line\n";
	if ($rows) {
		my ($primary) = sort keys %quietness; # the first timed metric by name
		print $rows join("\t", 'R', $mi, $bi, $configs[$ci], $source, 3, $commit, 'main',
			$t0 + $commit_no * 3600 + $i % $per_commit, $primary, $quietness{$primary},
			sha1_hex($line), $line), "\n";
		print $rows "$_\n" for @mrows;
	}
}
close $rows if $rows;

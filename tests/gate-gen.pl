#!/usr/bin/perl
# Generates one sweep of native benchline records (§2) for the gate's tests: every benchmark
# measured once at one commit, with realistic noise at three levels:
#   within a run  each sample is the run's median times exp(N(0, --within)), default 2%;
#   between runs  each record's median moves by exp(N(0, --between)), default 0.3%;
#   the sweep     every record of the sweep moves together by exp(N(0, --sweep)), default
#                 0.5% (a warmer or cooler machine moves every timing of a run together).
# --shift R multiplies the benchmarks matching --shift-only (a regex; default all) by R, and
# --run-shift R multiplies the whole sweep (the "warmer machine" case). --better higher makes
# wall_ns a higher-is-better metric (a throughput, say).
# Same arguments and --seed, same output. Prints a JSON array on stdout.
use strict;
use warnings;
use Getopt::Long;

my %o = (
	machine => 'ci-1', benchmarks => 3, samples => 20, seed => 1, within => 0.02,
	between => 0.003, sweep => 0.005, shift => 1, 'run-shift' => 1, 'shift-only' => '',
	harness => 1, branch => 'main', prefix => 'bench', counted => 0, content => '',
	'summary-only' => 0, quantile => '', better => 'lower',
);
GetOptions(\%o, 'machine=s', 'benchmarks=i', 'samples=i', 'seed=i', 'within=f', 'between=f',
	'sweep=f', 'shift=f', 'run-shift=f', 'shift-only=s', 'harness=i', 'branch=s',
	'prefix=s', 'commit=s', 'source=s', 'counted=i', 'content=s', 'summary-only',
	'quantile=s', 'time=i', 'better=s')
    or die "bad options\n";
die "--commit and --source are needed\n" unless $o{commit} && $o{source};

srand($o{seed});
# A standard normal draw (Box-Muller), from Perl's seeded rand.
sub gauss {
	my $u = 1 - rand();
	my $v = rand();
	return sqrt(-2 * log($u)) * cos(6.283185307179586 * $v);
}

my $sweep = exp($o{sweep} * gauss()) * $o{'run-shift'};
my $t = $o{time} // 1780000000;
my @out;
for my $i (0 .. $o{benchmarks} - 1) {
	my $name = sprintf("%s_%02d", $o{prefix}, $i);
	my $true = 1000 * (1 + $i);
	my $shift = ($o{'shift-only'} eq '' || $name =~ /$o{'shift-only'}/) ? $o{shift} : 1;
	my $median = $true * $sweep * exp($o{between} * gauss()) * $shift;
	my @s = map { $median * exp($o{within} * gauss()) } 1 .. $o{samples};
	my %metric = (kind => 'timed', unit => 'ns', better => $o{better});
	if ($o{'summary-only'}) {
		my @sorted = sort { $a <=> $b } @s;
		$metric{median} = $sorted[int((@sorted + 1) / 2) - 1];
		$metric{p95} = $sorted[int(0.95 * @sorted + 0.999999) - 1];
		$metric{n} = scalar @s;
	} else {
		$metric{samples} = [map { sprintf('%.6f', $_) + 0 } @s];
	}
	my %rec = (
		schema => 1, machine => $o{machine}, benchmark => $name, harness_version =>
		    $o{harness}, started_at => gmt($t + $i), profile => 'release',
		source => {commit => $o{commit}, source_hash => $o{source}, branch => $o{branch},
			dirty => JSON::PP::false()},
		metrics => {wall_ns => \%metric},
	);
	$rec{content_hash} = $o{content} if $o{content} ne '';
	$rec{metrics}{allocs} = {kind => 'counted', unit => 'allocs', better => 'lower',
		value => $o{counted} + 0} if $o{counted};
	if ($o{quantile} ne '') {
		$rec{metrics}{latency_p99} = {kind => 'quantile', unit => 'ms', better => 'lower',
			value => $o{quantile} + 0, ladder => 'ms'};
	}
	push @out, \%rec;
}

sub gmt {
	my @t = gmtime(shift);
	return sprintf('%04d-%02d-%02dT%02d:%02d:%02dZ', $t[5] + 1900, $t[4] + 1, @t[3, 2, 1, 0]);
}

use JSON::PP;
print JSON::PP->new->canonical->encode(\@out), "\n";

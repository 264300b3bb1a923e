#!/usr/bin/perl
# A native record (§2) of one timed metric whose samples are spread on purpose, for the gate's
# tests of wide intervals (t0870, t0880):
#   gate-rec.pl MACHINE BENCHMARK METRIC MEDIAN SPREAD UNIT SOURCE_HASH COMMIT BRANCH
# 20 samples whose nearest-rank median is MEDIAN: 9 spread evenly below it, down to
# (1 - SPREAD) * MEDIAN, then MEDIAN, then 10 within 2% above it. The spread is all below, so
# p95 / median stays under the 1.06 that tags a run noisy (a noisy record is no reference), and
# the Hodges-Lehmann interval between two such records is as wide as SPREAD makes it. Lower is
# better; UNIT may be "" (what bench.run's BMF output gives a plain measure such as "work").
use strict;
use warnings;
use JSON::PP;

my ($machine, $benchmark, $metric, $median, $spread, $unit, $source, $commit, $branch) = @ARGV;
die "usage: gate-rec.pl MACHINE BENCHMARK METRIC MEDIAN SPREAD UNIT SOURCE COMMIT BRANCH\n"
    unless defined $branch;
my @samples = ((map { $median * (1 - $spread * $_ / 9) } 1 .. 9), $median,
	(map { $median * (1 + 0.02 * $_ / 10) } 1 .. 10));
print JSON::PP->new->canonical->encode({
	schema => 1, machine => $machine, benchmark => $benchmark, harness_version => 1,
	started_at => '2026-11-01T04:00:00Z',
	source => {commit => $commit, source_hash => $source, branch => $branch},
	metrics => {$metric => {kind => 'timed', unit => $unit, samples => \@samples}},
}), "\n";

#!/usr/bin/perl
# gab.pl: github-action-benchmark's history of its own example benchmarks (a gh-pages data.js,
# `window.BENCHMARK_DATA = {...}`) as native benchline records (docs/record-format.md). The
# benchmarked code (Fibonacci) does not change, so on this corpus every slower Suspect is a
# false positive (docs/detection.md, "Measured on real histories").
#
#   perl tests/corpora/gab.pl [--data DIR | --data-js FILE] [--out FILE]
#
# --data DIR      the shared data directory (default: $BENCHLINE_DATA, else ROOT/../shared/data);
#                 the history is DIR/gab_histories/github-action-benchmark_self/data.js
# --data-js FILE  the data.js itself
# --out FILE      the records, one JSON object per line (default: stdout)
#
# What the conversion decides:
# - one record per (suite, entry, bench): machine "gab-" + the suite's name in lower case with
#   every run of other characters than [a-z0-9.] made one "-" and "+" read as "p" ("C++
#   Benchmark" is gab-cpp-benchmark, "Rust Benchmark" gab-rust-benchmark), cut to 64
#   characters and made unique with "-2", "-3" should two suites meet; benchmark: the bench's
#   name; harness_version 1;
# - the metric, by the unit's first word: a time (ns, us, µs, ms, s, optionally per iter, op,
#   call or run) is timed metric "time", lower is better; a rate (anything "/sec" or "/s":
#   ops/sec, iter/sec, ops/s) is timed metric "throughput", better higher; any other unit (Go's
#   custom auxMetricUnits) is counted metric "value", which §6 never judges. median = p95 =
#   the value (data.js keeps no samples); the unit is stored as the first word (an old Go
#   parser glued "4.000 auxMetricUnits" onto "ns/op");
# - source.commit and source.source_hash: the entry's commit id (a missing or malformed one is
#   replaced by the SHA-1 of "gab SUITE ENTRY-INDEX ID", counted on stderr). An entry that
#   repeats a commit lands on the same key, and benchline's key rule keeps one run of it;
# - order: the entries' own order (the order the action appended them, its chart's order).
#   Records are placed by time, so source.committed_at is the entry's run date ("date"),
#   pushed one second past the previous entry's when it would not be later; started_at is
#   the run date too. The commit's own timestamp is not used: re-runs and merges make it go
#   back and forth.
#
# Prints a summary on stderr; exits 2 on bad input.
use strict;
use warnings;
use JSON::PP;
use Digest::SHA qw(sha1_hex);
use File::Basename qw(dirname);
use Cwd qw(abs_path);
use POSIX qw(strftime floor);

my $root = abs_path(dirname(__FILE__) . '/../..');
my %opt;
while (@ARGV) {
	my $a = shift @ARGV;
	if ($a =~ /^--(data|data-js|out)$/) {
		defined($opt{$1} = shift @ARGV) or die "gab.pl: $a needs a value\n";
	} elsif ($a =~ /^--(data|data-js|out)=(.*)$/) {
		$opt{$1} = $2;
	} else {
		die "gab.pl: unknown argument '$a'\n"
		    . "usage: gab.pl [--data DIR | --data-js FILE] [--out FILE]\n";
	}
}
my $data = $opt{data} // $ENV{BENCHLINE_DATA} // "$root/../shared/data";
my $file = $opt{'data-js'} // "$data/gab_histories/github-action-benchmark_self/data.js";

sub fail {
	print STDERR "gab.pl: $_[0]\n";
	exit 2;
}

open my $in, '<', $file or fail("cannot read $file: $!");
my $text = do { local $/; <$in> };
close $in;
$text =~ s/^\x{FEFF}?\s*window\.BENCHMARK_DATA\s*=\s*//
    or fail("$file: does not start with 'window.BENCHMARK_DATA ='");
$text =~ s/;?\s*\z//;
my $j = eval { JSON::PP->new->decode($text) };
fail("$file: $@") unless defined $j;
my $entries = $j->{entries};
ref $entries eq 'HASH' or fail("$file: no 'entries' object");

my %taken;
sub machine_name {
	my ($suite) = @_;
	(my $m = lc $suite) =~ s/\+/p/g;
	$m =~ s/[^a-z0-9.]+/-/g;
	$m =~ s/^-+|-+$//g;
	$m = substr("gab-$m", 0, 64);
	my ($base, $n) = ($m, 1);
	while ($taken{$m}) {
		$n++;
		$m = substr($base, 0, 64 - length("-$n")) . "-$n";
	}
	$taken{$m} = 1;
	return $m;
}

# kind, metric name, better, unit for a data.js unit.
sub metric_of {
	my ($unit) = @_;
	my ($word) = split ' ', $unit // '';
	$word //= '';
	return ('timed', 'time', 'lower', $word)
	    if $word =~ m{^(ns|us|µs|μs|ms|s|sec)(/(iter|op|call|run))?$};
	return ('timed', 'throughput', 'higher', $word) if $word =~ m{/(s|sec|second)$};
	return ('counted', 'value', undef, $word eq '' ? 'unit' : $word);
}

sub rfc3339 {
	return strftime('%Y-%m-%dT%H:%M:%SZ', gmtime($_[0]));
}

my $out;
if (defined $opt{out}) {
	open $out, '>', $opt{out} or fail("cannot write $opt{out}: $!");
} else {
	$out = \*STDOUT;
}
my $js = JSON::PP->new->canonical;
my ($records, $synth, $moved, %kinds) = (0, 0, 0);
my @suites = sort keys %$entries;
for my $suite (@suites) {
	my $machine = machine_name($suite);
	my $prev;
	my $i = 0;
	for my $e (@{ $entries->{$suite} }) {
		my $id = $e->{commit}{id};
		if (!defined $id || $id !~ /^[0-9a-fA-F]{40}$/) {
			$id = sha1_hex("gab $suite $i " . ($id // ''));
			$synth++;
		}
		$id = lc $id;
		defined $e->{date} or fail("$file: $suite entry $i has no date");
		my $t = floor($e->{date} / 1000);    # milliseconds since the epoch
		my $started = $t;
		if (defined $prev && $t <= $prev) {
			$t = $prev + 1;
			$moved++;
		}
		$prev = $t;
		for my $b (@{ $e->{benches} // [] }) {
			my ($kind, $name, $better, $unit) = metric_of($b->{unit});
			my $v = $b->{value};
			fail("$file: $suite entry $i: bench '$b->{name}' has no numeric value")
			    unless defined $v && !ref $v && $v =~ /^-?[0-9.]+(e[-+]?[0-9]+)?$/i;
			my $num = sprintf('%.15g', $v);
			$num = sprintf('%.17g', $v) if $num != $v;    # %.15g when it reads back exactly
			my $metric = $kind eq 'timed'
			    ? sprintf('{"unit":%s,"better":"%s","median":%s,"p95":%s}',
				$js->encode($unit), $better, $num, $num)
			    : sprintf('{"kind":"counted","unit":%s,"value":%s}', $js->encode($unit), $num);
			printf $out '{"schema":1,"machine":%s,"benchmark":%s,"harness_version":1,'
			    . '"source":{"commit":"%s","source_hash":"%s","committed_at":"%s"},'
			    . '"started_at":"%s","metrics":{%s:%s}}' . "\n",
			    $js->encode($machine), $js->encode($b->{name}), $id, $id, rfc3339($t),
			    rfc3339($started), $js->encode($name), $metric;
			$records++;
			$kinds{$name}++;
		}
		$i++;
	}
}
close $out or fail("cannot write $opt{out}: $!") if defined $opt{out};
printf STDERR "gab.pl: %d suites, %d records (%s), %d commits synthesized,"
    . " %d dates moved forward to keep the entries' order\n", scalar @suites, $records,
    join(', ', map { "$kinds{$_} $_" } sort keys %kinds), $synth, $moved;
exit 0;

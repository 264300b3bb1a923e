#!/usr/bin/perl
# asv-django.pl: Django's asv history (django/django-asv, gh-pages) as native benchline records
# (docs/record-format.md), for measuring detection on a real history (docs/detection.md,
# "Measured on real histories"). The data is read where it lies; nothing is copied.
#
#   perl tests/corpora/asv-django.pl [--data DIR | --gh-pages DIR] [--out FILE] [--ranges FILE]
#
# --data DIR       the shared data directory (default: $BENCHLINE_DATA, else ROOT/../shared/data);
#                  the history is DIR/asv_django/gh-pages
# --gh-pages DIR   the gh-pages tree itself (graphs/, index.json, regressions.json)
# --out FILE       the records, one JSON object per line (default: stdout)
# --ranges FILE    asv's published regression ranges (regressions.json), one per step, written
#                  as a JSON array of {machine, benchmark, metric, before, after, before_rev,
#                  after_rev}: `before` and `after` are the commits of rev_before and rev_after
#                  (`before` is null when asv gives no rev_before)
#
# What the conversion decides:
# - one record per (graph, revision) with a value; points whose value is null (asv could not
#   measure) are left out and counted;
# - machine: the graph's machine and Python version, "ubuntu-latest-py3.12" for
#   graphs/branch-main/machine-ubuntu-latest/python-3.12/; benchmark: the graph's file name
#   without ".json"; one timed metric "time_s" (unit s, lower is better) with median = p95 =
#   the value (asv publishes no samples in its graphs); harness_version 1;
# - source.commit and source.source_hash: the revision's hash from index.json. A hash that is
#   missing or not 40 hex digits is replaced by the SHA-1 of "asv-django revision N HASH",
#   deterministic, and counted on stderr (the published data needs none);
# - order: benchline places records that no `sync` has seen by source.committed_at. asv's
#   revision dates (each commit's own date) often go backwards in revision order, so
#   committed_at is the revision's date pushed forward, where needed, to one second after the
#   previous revision's (over every revision of index.json, in revision order): strictly
#   increasing with the revision and equal to the real date wherever the dates are in order.
#   started_at is the revision's own date. How many dates moved is printed on stderr.
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
	if ($a =~ /^--(data|gh-pages|out|ranges)$/) {
		defined($opt{$1} = shift @ARGV) or die "asv-django.pl: $a needs a value\n";
	} elsif ($a =~ /^--(data|gh-pages|out|ranges)=(.*)$/) {
		$opt{$1} = $2;
	} else {
		die "asv-django.pl: unknown argument '$a'\n"
		    . "usage: asv-django.pl [--data DIR | --gh-pages DIR] [--out FILE] [--ranges FILE]\n";
	}
}
my $data = $opt{data} // $ENV{BENCHLINE_DATA} // "$root/../shared/data";
my $pages = $opt{'gh-pages'} // "$data/asv_django/gh-pages";
-d "$pages/graphs" or fail("no asv graphs at $pages/graphs");

sub fail {
	print STDERR "asv-django.pl: $_[0]\n";
	exit 2;
}

sub slurp_json {
	my ($path) = @_;
	open my $f, '<', $path or fail("cannot read $path: $!");
	local $/;
	my $j = eval { JSON::PP->new->decode(scalar <$f>) };
	fail("$path: $@") unless defined $j;
	return $j;
}

# The machine name of a graph directory: machine + "-py" + Python version, made valid
# ([A-Za-z0-9._-]{1,64}: anything else becomes "-").
sub machine_name {
	my ($machine, $python) = @_;
	my $m = "$machine-py$python";
	$m =~ s/[^A-Za-z0-9._-]/-/g;
	return substr($m, 0, 64);
}

# --- revisions: hash and date, committed_at strictly increasing with the revision ----------------
my $index = slurp_json("$pages/index.json");
my $r2h = $index->{revision_to_hash} // {};
my $r2d = $index->{revision_to_date} // {};

# Every revision the graphs use, and every one the index knows.
my @graphs;
for my $dir (sort glob("$pages/graphs/branch-main/machine-*/python-*")) {
	my ($machine, $python) = $dir =~ m{/machine-([^/]+)/python-([^/]+)$} or next;
	for my $file (sort glob("$dir/*.json")) {
		(my $bench = $file) =~ s{.*/}{};
		next if $bench eq 'summary.json';    # asv's per-directory overview, not a benchmark
		$bench =~ s/\.json$//;
		push @graphs, { machine => machine_name($machine, $python), benchmark => $bench,
				file => $file, path => substr($file, length($pages) + 1) };
	}
}
@graphs or fail("no benchmark graphs under $pages/graphs/branch-main");

my %points;    # file -> [[rev, value], ...] sorted by revision
my %used;
for my $g (@graphs) {
	my $pts = slurp_json($g->{file});
	ref $pts eq 'ARRAY' or fail("$g->{file}: not an array of [revision, value]");
	my @p = sort { $a->[0] <=> $b->[0] } grep { ref $_ eq 'ARRAY' && defined $_->[0] } @$pts;
	$points{$g->{file}} = \@p;
	$used{$_->[0]} = 1 for @p;
}

my (%hash, %started, %committed);
my ($synth, $moved, $undated) = (0, 0, 0);
my $prev;
for my $rev (sort { $a <=> $b } keys %{ { %$r2h, %$r2d, %used } }) {
	my $h = $r2h->{$rev};
	if (!defined $h || $h !~ /^[0-9a-fA-F]{40}$/) {
		$h = sha1_hex("asv-django revision $rev " . ($h // ''));
		$synth++ if $used{$rev};
	}
	$hash{$rev} = lc $h;
	my $t;
	if (defined $r2d->{$rev}) {
		$t = floor($r2d->{$rev} / 1000);    # asv dates are milliseconds since the epoch
	} else {
		$t = defined $prev ? $prev + 1 : 0;
		$undated++ if $used{$rev};
	}
	$started{$rev} = $t;
	if (defined $prev && $t <= $prev) {
		$moved++ if $used{$rev};
		$t = $prev + 1;
	}
	$committed{$rev} = $t;
	$prev = $t;
}

sub rfc3339 {
	return strftime('%Y-%m-%dT%H:%M:%SZ', gmtime($_[0]));
}

# --- the records -------------------------------------------------------------------------------
my $out;
if (defined $opt{out}) {
	open $out, ">", $opt{out} or fail("cannot write $opt{out}: $!");
} else {
	$out = \*STDOUT;
}
my $js = JSON::PP->new->canonical;
my ($records, $nulls) = (0, 0);
for my $g (@graphs) {
	my $prefix = '{"schema":1,"machine":' . $js->encode($g->{machine})
	    . ',"benchmark":' . $js->encode($g->{benchmark}) . ',"harness_version":1,';
	for my $p (@{ $points{$g->{file}} }) {
		my ($rev, $v) = @$p;
		if (!defined $v || ref $v) {
			$nulls++;
			next;
		}
		my $h = $hash{$rev};
		my $num = sprintf('%.15g', $v);
		$num = sprintf('%.17g', $v) if $num != $v;    # %.15g when it reads back exactly
		printf $out '%s"source":{"commit":"%s","source_hash":"%s","committed_at":"%s"},'
		    . '"started_at":"%s","metrics":{"time_s":{"unit":"s","median":%s,"p95":%s}}}' . "\n",
		    $prefix, $h, $h, rfc3339($committed{$rev}), rfc3339($started{$rev}), $num, $num;
		$records++;
	}
}
close $out or fail("cannot write $opt{out}: $!") if defined $opt{out};

# --- asv's published regression ranges ----------------------------------------------------------
my $nranges = 0;
if (defined $opt{ranges}) {
	my $reg = -f "$pages/regressions.json" ? slurp_json("$pages/regressions.json") : {};
	my $list = ref $reg eq 'HASH' ? $reg->{regressions} // [] : $reg;
	my @ranges;
	for my $e (@$list) {
		my ($bench, $path, $params, undef, undef, undef, $steps) = @$e;
		my ($machine, $python) = ($path // '') =~ m{/machine-([^/]+)/python-([^/]+)/};
		$machine //= $params->{machine};
		$python //= $params->{python};
		fail("regressions.json: no machine or python for $bench")
		    unless defined $machine && defined $python;
		for my $s (@{ $steps // [] }) {
			my ($before, $after) = @$s;
			push @ranges, { machine => machine_name($machine, $python), benchmark => $bench,
					metric => 'time_s', before_rev => $before, after_rev => $after,
					before => defined $before ? $hash{$before} : undef,
					after => $hash{$after} };
		}
	}
	open my $f, '>', $opt{ranges} or fail("cannot write $opt{ranges}: $!");
	print $f JSON::PP->new->canonical->pretty->encode(\@ranges);
	close $f or fail("cannot write $opt{ranges}: $!");
	$nranges = @ranges;
}

printf STDERR "asv-django.pl: %d graphs, %d records, %d null points left out, %d revisions"
    . " with a synthesized hash, %d undated, %d dates moved forward to keep revision order%s\n",
    scalar @graphs, $records, $nulls, $synth, $undated, $moved,
    defined $opt{ranges} ? ", $nranges regression ranges" : '';
exit 0;

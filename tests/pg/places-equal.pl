#!/usr/bin/perl
# The placement rule is defined once per dialect (the view placed_runs, sql/003-places.sql and
# sql/pg/003-places.sql): this checks the two definitions agree. The same commits of main and
# the same runs go into both databases, runs chosen to meet every branch of the rule (a
# commit on main, a source hash on main, placed by time between commits, at a commit's exact
# time, before the history, after it, at times with and without a fraction, committed_at
# missing); then both views' at, seq and place of every run, and the runs in Series order
# (place, at, started_at, id), are compared.
#
#   places-equal.pl [--apply] URL SQLITE_DB
#
# URL is a PostgreSQL database holding the schema and no rows (with --apply, an empty one:
# the script applies sql/pg/0*.sql to it first); SQLITE_DB a file `benchline --db FILE init`
# made, left as it was (the script works on a copy). Numbers are compared as numbers: SQLite
# prints a real 3.0 as "3.0", PostgreSQL as "3". Prints what differs and exits 1, else
# "places equal".
use strict;
use warnings;
use FindBin;
use lib $FindBin::Bin;
use TwinDb qw(pg_rows pg_exec lite_rows lite_exec pg_apply lite_copy);

my $apply = 0;
if (@ARGV && $ARGV[0] eq '--apply') {
	$apply = 1;
	shift @ARGV;
}
@ARGV == 2 or die "usage: places-equal.pl [--apply] URL SQLITE_DB\n";
my ($url, $source) = @ARGV;
my $dbfile = lite_copy($source);
pg_apply($url) if $apply;

# main: seq, sha, source hash, committed at. Two commits at the same second (1 and 2), and a
# later commit with an earlier one's source (a revert: s1's first seq is still 1).
my @commits = ([0, 'c0', 's0', 1000], [1, 'c1', 's1', 2000], [2, 'c2', 's2', 2000],
	       [3, 'c3', 's1', 3000], [4, 'c4', 's4', 4000]);
# runs: id, commit, source hash, committed_at (undef: NULL), started_at.
my @runs = (
	[1, 'c2', 'x1', 1500.5, 1600.5],    # on main: seq 2, whatever its time
	[2, 'pr2', 's1', 2100.25, 2200],    # a pull request's head: its source's first seq, 1
	[3, 'pr3', 'x3', 2500, 2600],       # by time, after c1 and c2: 2.5
	[4, 'pr4', 'x4', undef, 2000],      # no committed_at: at started_at, c2's time exactly
	[5, 'pr5', 'x5', 999.75, 1000],     # before the history: -0.5
	[6, 'pr6', 'x6', 1999.9990234375, 1], # just before c1: 0.5
	[7, 'pr7', 'x7', 4000.5, 4001],     # after the last commit: 4.5
	[8, 'pr8', 'x8', -3.5, 0],          # a negative time: -0.5
	[9, 'pr9', 'x9', 1000, 1000],       # c0's exact time as a real: 0.5
	[10, 'c4', 's0', 1, 2],             # on main by sha before by source: 4
	[11, 'pr11', 's3', undef, 3500],    # a source not on main: by time, 3.5
	[12, 'pr12', 'x12', 2500, 2599],    # the same place and at as run 3, started earlier
);

my $sql = "INSERT INTO machines (id, name) VALUES (1, 'm');"
    . " INSERT INTO benchmarks (id, name) VALUES (1, 'b');"
    . " INSERT INTO commits (sha, seq, parent, source_hash, committed_at, subject, pr) VALUES "
    . join(', ', map { "('$_->[1]', $_->[0], NULL, '$_->[2]', $_->[3], 'subject', NULL)" }
	   @commits)
    . "; INSERT INTO runs (id, digest, machine_id, benchmark_id, config, source_hash,"
    . " harness_version, content_hash, commit_sha, branch, committed_at, started_at, dirty,"
    . " profile, baseline, primary_metric, quietness, raw, ingested_at) VALUES "
    . join(', ', map { "($_->[0], 'd$_->[0]', 1, 1, 'c', '$_->[2]', 1, NULL, '$_->[1]', NULL, "
			   . ($_->[3] // 'NULL') . ", $_->[4], 0, 'p', 0, 'wall', NULL, '{}', 0)" }
	   @runs);
lite_exec($dbfile, $sql);
pg_exec($url, $sql);

# A field as a comparable string: numbers through Perl's numeric formatting.
sub norm {
	my ($v) = @_;
	return $v =~ /^-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?$/ ? 0 + $v : $v;
}

my $failed = 0;
for my $read ('SELECT id, at, seq, place FROM placed_runs ORDER BY id',
	      'SELECT id FROM placed_runs ORDER BY place, at, started_at, id') {
	my @l = map { join(' | ', map { norm($_) } @$_) } lite_rows($dbfile, $read);
	my @p = map { join(' | ', map { norm($_) } @$_) } pg_rows($url, $read);
	next if join("\n", @l) eq join("\n", @p);
	$failed++;
	print "$read\n", map("  sqlite:     $_\n", @l), map("  postgresql: $_\n", @p);
}
print "places equal\n" unless $failed;
exit($failed ? 1 : 0);

#!/usr/bin/perl
# Runs the same changes on a PostgreSQL and a SQLite database, both freshly migrated, and
# checks that their triggers leave the same rows behind: the change log of sql/002 and
# sql/005 (detect_log, detect_log_runs, detect_log_commits) and the meta rows the commits and
# regressions triggers write; and that changes to Suspects leave the alerts and Suspects as
# written (sql/007 dropped the suspects triggers of sql/004 in both dialects: the alert pass
# is C code now), new rows taking the same defaults.
#
#   triggers-equal.pl [--apply] [--verbose] URL SQLITE_DB
#
# URL is a PostgreSQL database holding the schema and no rows (with --apply, an empty one:
# the script applies sql/pg/0*.sql to it first, each file in one transaction); SQLITE_DB a
# file `benchline --db FILE init` made, left as it was (the script works on a copy). Each step is one transaction on
# both sides (written once where both dialects take the same text); after each, the tables
# above are read in key order from both and compared. Prints "ok N step" or "not ok N step"
# with both sides' rows where they differ (--verbose: the rows after every step); exits 1 if a
# step differs.
use strict;
use warnings;
use FindBin;
use lib $FindBin::Bin;
use TwinDb qw(pg_rows pg_exec lite_rows lite_exec pg_apply lite_copy);

my ($apply, $verbose) = (0, 0);
while (@ARGV && $ARGV[0] =~ /^--/) {
	my $opt = shift @ARGV;
	if ($opt eq '--apply') {
		$apply = 1;
	} elsif ($opt eq '--verbose') {
		$verbose = 1;
	} else {
		die "triggers-equal: unknown option '$opt'\n";
	}
}
@ARGV == 2 or die "usage: triggers-equal.pl [--apply] [--verbose] URL SQLITE_DB\n";
my ($url, $source) = @ARGV;
my $dbfile = lite_copy($source);
pg_apply($url) if $apply;

# What is compared after each step. Every real here is exact in binary with few digits, so
# both command-line clients print it alike.
my @reads = (
	'SELECT run_id, what, delta FROM detect_log ORDER BY run_id, what',
	'SELECT run_id, machine_id, benchmark_id, config, harness_version, source_hash,'
	    . ' commit_sha, content_hash, baseline, committed_at, started_at'
	    . ' FROM detect_log_runs ORDER BY run_id',
	'SELECT sha, seq, source_hash, committed_at FROM detect_log_commits ORDER BY sha',
	'SELECT key, value FROM meta ORDER BY key',
	'SELECT id, machine_id, commit_sha, side, state, series, judged_series, run_wide,'
	    . ' outcome, transient_records, created_at FROM alerts ORDER BY id',
	'SELECT id, run_id, metric, side, followers, persisted, alert_id, state'
	    . ' FROM suspects ORDER BY id',
);

# A run of machine M, benchmark 1, config C, committed at commit S (NULL committed_at and
# content hash for odd ids, to see NULLs copied).
sub run_row {
	my ($id, $m, $c, $sha) = @_;
	my $at = $id % 2 ? 'NULL' : 1700000000 + $id * 100 + 0.5;
	my $ch = $id % 2 ? 'NULL' : "'ch$id'";
	return "($id, 'd$id', $m, 1, '$c', 'src$id', 1, $ch, '$sha', 'main', $at,"
	    . " 1700000000.25, 0, 'default', 0, 'wall', NULL, '{}', 1700009999.5)";
}
my $runs_cols = 'id, digest, machine_id, benchmark_id, config, source_hash, harness_version,'
    . ' content_hash, commit_sha, branch, committed_at, started_at, dirty, profile, baseline,'
    . ' primary_metric, quietness, raw, ingested_at';
my $records_cols = 'machine_id, benchmark_id, config, source_hash, harness_version, run_id';
# standing_set of sql/queries.sql, with values: one text for both dialects.
sub standing {
	my ($m, $c, $run) = @_;
	return "INSERT INTO records ($records_cols) VALUES ($m, 1, '$c', 'k', 1, $run)"
	    . " ON CONFLICT (machine_id, benchmark_id, config, source_hash, harness_version)"
	    . " DO UPDATE SET run_id = excluded.run_id";
}
my $suspect_cols = 'id, run_id, metric, machine_id, benchmark_id, config, side, median, center,'
    . ' tolerance, created_at, alert_id';

# [what the step does, its SQLite text, its PostgreSQL text when it differs]
my @steps = (
	['machines, a benchmark, runs, a commit',
	 "INSERT INTO machines (id, name) VALUES (1, 'm1'), (2, 'm2');"
	     . " INSERT INTO benchmarks (id, name) VALUES (1, 'b1');"
	     . " INSERT INTO runs ($runs_cols) VALUES " . join(', ', map { run_row($_, 1 + $_ % 2,
								  $_ <= 4 ? 'c1' : 'c2', "sha$_") } 1 .. 8)
	     . ";"
	     . " INSERT INTO commits (sha, seq, parent, source_hash, committed_at, subject, pr)"
	     . " VALUES ('sha1', 0, NULL, 'src1', 1700000000, 'root', NULL)"],
	['a record and a tag before any detect: nothing logged',
	 standing(1, 'c1', 1) . "; INSERT INTO tags (run_id, tag) VALUES (1, 'dirty')"],
	['a detect ran', "INSERT INTO meta (key, value) VALUES ('detect_state', '1')"],
	['a new key stands', standing(2, 'c1', 2)],
	['another run takes the key (the upsert fires the update trigger)', standing(2, 'c1', 4)],
	['the same run again: no change', standing(2, 'c1', 4)],
	['and back: run 4 nets 0, run 2 stands again', standing(2, 'c1', 2)],
	['a plain UPDATE of run_id', "UPDATE records SET run_id = 3 WHERE run_id = 1"],
	['an UPDATE that leaves run_id as it is', "UPDATE records SET run_id = run_id"],
	['a record removed', "DELETE FROM records WHERE run_id = 2"],
	['two keys in one statement',
	 "INSERT INTO records ($records_cols) VALUES (1, 1, 'c2', 'k', 1, 5), (2, 1, 'c2', 'k', 1, 6)"],
	['tags added', "INSERT INTO tags (run_id, tag) VALUES (5, 'noisy'), (6, 'noisy'),"
	     . " (6, 'profile')"],
	['a tag added twice, ignored the second time',
	 "INSERT OR IGNORE INTO tags (run_id, tag) VALUES (5, 'noisy')",
	 "INSERT INTO tags (run_id, tag) VALUES (5, 'noisy') ON CONFLICT DO NOTHING"],
	['a tag removed', "DELETE FROM tags WHERE run_id = 6 AND tag = 'profile'"],
	['and put back in another transaction: it nets 0',
	 "INSERT INTO tags (run_id, tag) VALUES (6, 'profile')"],
	['a tag removed and put back in one transaction',
	 "DELETE FROM tags WHERE run_id = 5 AND tag = 'noisy';"
	     . " INSERT INTO tags (run_id, tag) VALUES (5, 'noisy')"],
	['not_main_clear, then not_main_set (sql/queries.sql)',
	 "DELETE FROM tags WHERE tag = 'not-main'; INSERT INTO tags (run_id, tag)"
	     . " SELECT id, 'not-main' FROM runs WHERE baseline = 0"
	     . " AND NOT EXISTS (SELECT 1 FROM commits c WHERE c.source_hash = runs.source_hash)"
	     . " AND NOT EXISTS (SELECT 1 FROM commits c WHERE c.sha = runs.commit_sha)"],
	['the same again: every not-main tag removed and put back',
	 "DELETE FROM tags WHERE tag = 'not-main'; INSERT INTO tags (run_id, tag)"
	     . " SELECT id, 'not-main' FROM runs WHERE baseline = 0"
	     . " AND NOT EXISTS (SELECT 1 FROM commits c WHERE c.source_hash = runs.source_hash)"
	     . " AND NOT EXISTS (SELECT 1 FROM commits c WHERE c.sha = runs.commit_sha)"],
	['detect read the log and emptied it',
	 "DELETE FROM detect_log; DELETE FROM detect_log_runs; DELETE FROM detect_log_commits"],
	['commits of main stored',
	 "INSERT INTO commits (sha, seq, parent, source_hash, committed_at, subject, pr) VALUES"
	     . " ('sha2', 1, 'sha1', 'src2', 1700000100, 'two (#12)', 12),"
	     . " ('sha3', 2, 'sha2', 'src3', 1700000200, 'three', NULL)"],
	['main rewritten: commits after seq 1 dropped', "DELETE FROM commits WHERE seq > 1"],
	['a commit stored again with other numbers',
	 "INSERT INTO commits (sha, seq, parent, source_hash, committed_at, subject, pr) VALUES"
	     . " ('sha3', 5, 'sha2', 'src3b', 1700000300, 'three again', NULL)"],
	['rm of a standing, tagged run',
	 "DELETE FROM tags WHERE run_id = 6; DELETE FROM records WHERE run_id = 6;"
	     . " DELETE FROM runs WHERE id = 6"],
	['detect_state gone: nothing logged',
	 "DELETE FROM meta WHERE key IN ('detect_state', 'detect_full');"
	     . " DELETE FROM tags WHERE run_id = 5; DELETE FROM records WHERE run_id = 5;"
	     . " DELETE FROM commits WHERE sha = 'sha3'"],
	['a Regression pinned',
	 "INSERT INTO regressions (machine_id, benchmark_id, config, metric, commit_sha, seq,"
	     . " source_hash, reference_commit, probes, created_at)"
	     . " VALUES (1, 1, 'c1', 'wall', 'sha2', 1, 'src2', 'sha1', '[]', 1700000000.5)"],
	['alerts, and Suspects, one of them on no alert',
	 "INSERT INTO alerts (id, machine_id, commit_sha, side, created_at) VALUES"
	     . " (1, 1, 'sha2', 'slower', 1.5), (2, 1, 'sha2', 'faster', 1.5),"
	     . " (3, 2, 'sha2', 'slower', 1.5);"
	     . " INSERT INTO suspects ($suspect_cols) VALUES"
	     . " (1, 1, 'wall', 1, 1, 'c1', 'slower', 2.5, 2, 0.25, 1.5, 1),"
	     . " (2, 2, 'wall', 2, 1, 'c1', 'faster', 1.5, 2, 0.25, 1.5, 2),"
	     . " (3, 3, 'wall', 1, 1, 'c1', 'slower', 2.5, 2, 0.25, 1.5, NULL)"],
	['followers move on a Suspect of alert 1', "UPDATE suspects SET followers = 3 WHERE id = 1"],
	['persisted moves on a Suspect on no alert', "UPDATE suspects SET persisted = 2 WHERE id = 3"],
	['an UPDATE of another column', "UPDATE suspects SET state = 'cleared'"],
	['a Suspect joins alert 3', "UPDATE suspects SET alert_id = 3 WHERE id = 3"],
	['a Suspect leaves for no alert', "UPDATE suspects SET alert_id = NULL WHERE id = 3"],
	['a Suspect of alert 2 is gone', "DELETE FROM suspects WHERE id = 2"],
	['a Suspect on no alert is gone', "DELETE FROM suspects WHERE id = 3"],
);

my $failed = 0;
my $n = 0;
for my $step (@steps) {
	my ($what, $lite_sql, $pg_sql) = @$step;
	$n++;
	lite_exec($dbfile, $lite_sql);
	pg_exec($url, $pg_sql // $lite_sql);
	my @diff;
	for my $read (@reads) {
		my @l = map { join(' | ', @$_) } lite_rows($dbfile, $read);
		my @p = map { join(' | ', @$_) } pg_rows($url, $read);
		if (join("\n", @l) eq join("\n", @p)) {
			push @diff, "  $read\n", map("    both:       $_\n", @l) if $verbose && @l;
			next;
		}
		push @diff, "  $read\n", map("    sqlite:     $_\n", @l),
		    map("    postgresql: $_\n", @p);
	}
	if (grep { /sqlite:|postgresql:/ } @diff) {
		$failed++;
		print "not ok $n $what\n", @diff;
	} else {
		print "ok $n $what\n", @diff;
	}
}
exit($failed ? 1 : 0);

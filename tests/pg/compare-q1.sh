#!/bin/sh
# Runs the named statements of sql/{queries,admin,web,series,gate,gate-skipped,intake}.sql and their
# PostgreSQL texts (sql/pg/'s overrides and the rest derived, as store/embed-sql.sh gives them
# to the binary) on the same rows, and compares what they give.
#
#   compare-q1.sh [URL]
#
# A demo history (benchline demo, then detect, an rm and a suspects ignore, so the Suspects,
# alerts, audit and removed_runs tables hold rows) is made in a SQLite file; a PostgreSQL
# database gets the migrations of sql/pg/ (PG_SCHEMA: another directory holding them) and a copy
# of every table's rows, values exact (reals to 20 digits, blobs as hex). Then each case runs in
# both, inside a transaction that is rolled back: the reads give their rows, compared after
# normalizing how each prints them (numbers as doubles, booleans as 1/0, blobs as hex); the
# writes are compared by what a plain SELECT reads after them, and by the new row's id
# (SQLite's last_insert_rowid, PostgreSQL's RETURNING). The SQLite statements run through the
# sqlite3 shell, the PostgreSQL ones as PREPAREd statements whose parameters come as untyped
# text, as libpq sends them.
#
# Without a URL it starts a server of its own (tests/pg/server.sh) and stops it afterwards;
# with one, it makes a database in that server and drops it afterwards. BENCHLINE names the
# binary (default build/default/benchline); COMPARE_KEEP=1 keeps the database made in a given
# server, to look at its plans afterwards. Prints "ok CASE" or "not ok CASE: ..." per case, and
# "not compared: NAME..." for the named statements of those files (in either dialect) that no
# case ran; exits 1 if any differed or was not compared.
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
BENCHLINE=${BENCHLINE:-$root/build/default/benchline}
PG_SCHEMA=${PG_SCHEMA:-$root/sql/pg}
[ -x "$BENCHLINE" ] || { echo "compare-q1: no $BENCHLINE (make benchline)" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/compare-q1.XXXXXX")
# Run as root, the server runs as nobody, who must reach $tmp/pg.
chmod 711 "$tmp"
server=
dbname=compare_q1_$$
cleanup() {
	if [ -n "$server" ]; then
		sh "$root/tests/pg/server.sh" stop "$tmp/pg" >/dev/null 2>&1 || true
	elif [ -n "${COMPARE_KEEP:-}" ]; then
		echo "compare-q1: kept $url" >&2
	elif [ -n "${base:-}" ]; then
		psql -X -q "$base" -c "DROP DATABASE IF EXISTS $dbname" >/dev/null 2>&1 || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 2' INT TERM

if [ $# -ge 1 ]; then
	base=$1
else
	base=$(sh "$root/tests/pg/server.sh" start "$tmp/pg")
	server=1
fi
psql -X -q -v ON_ERROR_STOP=1 "$base" -c "CREATE DATABASE $dbname" >/dev/null
url=${base%/*}/$dbname

# The history, in SQLite.
db=$tmp/history.db
"$BENCHLINE" --db "$db" demo >/dev/null
# The native fixtures add runs off main, runs with no commit time and no quietness.
"$BENCHLINE" --db "$db" ingest "$root"/fixtures/native/*.json "$root"/fixtures/native/*.jsonl \
	>/dev/null
"$BENCHLINE" --db "$db" detect >/dev/null
# A tagged run and an untagged one removed; the first alert ignored.
rm_ids=$(sqlite3 "$db" "SELECT (SELECT min(run_id) FROM tags) || ' ' ||
	(SELECT min(id) FROM runs WHERE id NOT IN (SELECT run_id FROM tags))")
"$BENCHLINE" --db "$db" rm --why 'compare-q1' $rm_ids >/dev/null
alert=$(sqlite3 "$db" "SELECT min(id) FROM alerts")
"$BENCHLINE" --db "$db" suspects ignore --why 'compare-q1' "$alert" >/dev/null

# The schema, in PostgreSQL.
found=
for f in "$PG_SCHEMA"/[0-9][0-9][0-9]-*.sql; do
	[ -e "$f" ] || continue
	psql -X -q -v ON_ERROR_STOP=1 "$url" -f "$f" >/dev/null
	found=1
done
[ -n "$found" ] || { echo "compare-q1: no migrations in $PG_SCHEMA" >&2; exit 2; }
# The migration count, kept as the store keeps it (store/pg.c: benchline_schema, made when it
# connects, written by each migration's transaction).
migrations=$(ls "$PG_SCHEMA"/[0-9][0-9][0-9]-*.sql | wc -l)
psql -X -q -v ON_ERROR_STOP=1 "$url" -c "CREATE TABLE IF NOT EXISTS benchline_schema
	(version bigint NOT NULL); INSERT INTO benchline_schema (version) SELECT $migrations
	WHERE NOT EXISTS (SELECT 1 FROM benchline_schema)" >/dev/null

# The PostgreSQL texts, as the binary carries them.
sh "$root/store/embed-sql.sh" --pg-dir "$tmp/pg-sql" "$root"/sql/*.sql -- "$root"/sql/pg/*.sql

rc=0
perl - "$db" "$url" "$root/sql" "$tmp" <<'PERL' || rc=$?
use strict;
use warnings;
use IPC::Open2;

my ($db, $url, $sqldir, $tmp) = @ARGV;
my @files = qw(queries admin web series gate gate-skipped intake);

# Named statements of a file: name => text without its final semicolon.
sub statements {
	my ($file) = @_;
	my (%text, $name);
	open my $fh, '<', $file or die "compare-q1: cannot open '$file': $!\n";
	while (my $line = <$fh>) {
		if ($line =~ /^-- name: (\S+)/) {
			$name = $1;
			$text{$name} = '';
			next;
		}
		next if !defined $name || $line =~ /^--/;
		$text{$name} .= $line;
	}
	s/;\s*\z//s for values %text;
	return %text;
}
my (%sq, %pg);
for my $f (@files) {
	%sq = (%sq, statements("$sqldir/$f.sql"));
	%pg = (%pg, statements("$tmp/pg-sql/$f.sql"));
}

# Runs a script through a program reading it on stdin; dies on failure.
sub run {
	my ($script, @cmd) = @_;
	my $in = "$tmp/script";
	open my $fh, '>', $in or die;
	print $fh $script;
	close $fh;
	my $cmd = join(' ', map { "'$_'" } @cmd) . " <'$in' 2>&1";
	my $out = `$cmd`;
	die "compare-q1: @cmd failed:\n$out\n--- script:\n$script\n" if $?;
	return $out;
}
sub sqlite { run("PRAGMA foreign_keys = ON;\n.mode quote\n$_[0]", 'sqlite3', '-bail', $db) }
sub psql {
	run("\\set ON_ERROR_STOP 1\n\\pset null <<NULL>>\nSET extra_float_digits = 3;\n$_[0]",
	    'psql', '-X', '-q', '--csv', '-t', $url);
}

# --- The copy: every table's rows, as SQLite's quote mode prints them (SQL literals, reals to
# 20 significant digits), turned into PostgreSQL INSERTs (X'..' blobs become '\x..'). Triggers
# and foreign keys are off meanwhile (session_replication_role), so the change log is copied
# as it is, not written again by the triggers.

# Splits quote-mode output into rows of fields (each a literal as printed).
sub quote_rows {
	my ($out) = @_;
	my (@rows, @row);
	pos($out) = 0;
	while (pos($out) < length $out) {
		if ($out =~ /\G('(?:[^']|'')*')/gc || $out =~ /\G(X'[0-9A-Fa-f]*')/gc ||
		    $out =~ /\G(NULL|-?[0-9][0-9.eE+-]*|-?9\.0e\+999)/gc) {
			push @row, $1;
		} else {
			die "compare-q1: cannot read SQLite's output at: " .
			    substr($out, pos($out), 40) . "\n";
		}
		if ($out =~ /\G,/gc) {
			next;
		} elsif ($out =~ /\G\n/gc || pos($out) == length $out) {
			push @rows, [@row];
			@row = ();
		} else {
			die "compare-q1: cannot read SQLite's output at: " .
			    substr($out, pos($out), 40) . "\n";
		}
	}
	return @rows;
}
sub pg_literal {
	my ($v) = @_;
	return "'\\x" . lc($1) . "'" if $v =~ /^X'(.*)'$/;
	return $v;
}

my @tables = split ' ', sqlite("SELECT name FROM sqlite_master WHERE type = 'table' AND " .
			       "name NOT LIKE 'sqlite_%' ORDER BY name;\n") =~ s/'//gr;
my $copy = "SET session_replication_role = replica;\nBEGIN;\n";
# Sequences are not rolled back: each case sets them again to where the copy left them.
my $reset = '';
for my $t (@tables) {
	my @cols = map { $_->[0] =~ s/'//gr }
	    quote_rows(sqlite("SELECT name FROM pragma_table_info('$t') ORDER BY cid;\n"));
	my $cols = join ', ', @cols;
	my @rows = quote_rows(sqlite("SELECT $cols FROM \"$t\";\n"));
	while (my @batch = splice @rows, 0, 500) {
		$copy .= "INSERT INTO $t ($cols) VALUES\n" .
		    join(",\n", map { '(' . join(', ', map { pg_literal($_) } @$_) . ')' } @batch) .
		    ";\n";
	}
	# An identity column carries on from where SQLite's ids are: the AUTOINCREMENT tables
	# from sqlite_sequence, the others from their largest id.
	if (grep { $_ eq 'id' } @cols) {
		my ($n) = map { $_->[0] } quote_rows(sqlite(
		    "SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = '$t'), 0),\n" .
		    "           coalesce((SELECT max(id) FROM \"$t\"), 0));\n"));
		$reset .= $n > 0 ? "SELECT FROM setval(pg_get_serial_sequence('$t', 'id'), $n);\n"
				 : "SELECT FROM setval(pg_get_serial_sequence('$t', 'id'), 1, false);\n";
	}
}
$copy .= "COMMIT;\n$reset";
psql($copy);
for my $t (@tables) {
	my $a = sqlite("SELECT count(*) FROM \"$t\";\n") =~ s/\s+//gr;
	my $b = psql("SELECT count(*) FROM $t;\n") =~ s/\s+//gr;
	die "compare-q1: $t has $a rows in SQLite, $b in PostgreSQL after the copy\n" if $a ne $b;
}

# --- Normalized rows, so the two sides' printing does not count: NULL as NULL, numbers as the
# doubles they are (%.17g; integers as they are), blobs as lower-case hex, PostgreSQL's
# booleans as SQLite's 1/0 (the C code reads them so), text as it is.
sub norm_number {
	my ($v) = @_;
	return $v if $v =~ /^-?[0-9]+$/;
	return sprintf '%.17g', $v;
}
sub norm_sqlite {
	my ($out) = @_;
	return map {
		join "\t", map {
			/^NULL$/ ? 'NULL' : /^X'(.*)'$/ ? 'x:' . lc $1 : /^'(.*)'$/s ? $1 =~ s/''/'/gr
			    : norm_number($_)
		} @$_
	} quote_rows($out);
}
sub norm_pg {
	my ($out) = @_;
	my (@rows, @row);
	pos($out) = 0;
	while (pos($out) < length $out) {
		my $v;
		if ($out =~ /\G"((?:[^"]|"")*)"/gc) {
			$v = $1 =~ s/""/"/gr;
		} elsif ($out =~ /\G([^,\n]*)/gc) {
			$v = $1;
			$v = $v eq '<<NULL>>' ? 'NULL' : $v eq 't' ? 1 : $v eq 'f' ? 0
			    : $v =~ /^\\x([0-9a-f]*)$/ ? "x:$1"
			    : $v =~ /^-?(?:[0-9.]+(?:e[+-]?[0-9]+)?|Infinity)$/ ? norm_number($v) : $v;
		}
		push @row, $v;
		if ($out =~ /\G,/gc) {
			next;
		}
		$out =~ /\G\n/gc;
		push @rows, join "\t", @row;
		@row = ();
	}
	return @rows;
}

# --- The cases. Parameters are SQLite literals ('text', 5, 1.5, X'..', NULL); PostgreSQL gets
# each as text (a number quoted, a blob as '\x..'), as libpq sends them.
sub lit { my $v = shift; $v =~ s/'/''/g; "'$v'" }
# A JSON array of strings (for the intake's statements).
sub json_strs { '[' . join(',', map { my $v = $_; $v =~ s/(["\\])/\\$1/g; "\"$v\"" } @_) . ']' }
sub one {
	my @r = norm_sqlite(sqlite("$_[0];\n"));
	die "compare-q1: no row for $_[0]\n" if !@r;
	return $r[0];
}

my $S = 'SELECT m.name, b.name, g.config, g.machine_id, g.benchmark_id ' .
    'FROM machines m, benchmarks b, ';
# A Series with a Suspect (the first Suspect's), and the group with the most tagged records.
my ($sm, $sb, $sc, $smid, $sbid) = split /\t/, one("$S (SELECT machine_id, benchmark_id, config " .
    "FROM suspects ORDER BY id LIMIT 1) g WHERE m.id = g.machine_id AND b.id = g.benchmark_id");
my $smetric = one('SELECT metric FROM suspects ORDER BY id LIMIT 1');
my ($tm, $tb, $tc, $tmid, $tbid) = split /\t/, one("$S (SELECT r.machine_id, r.benchmark_id, " .
    "r.config FROM records r JOIN tags t ON t.run_id = r.run_id GROUP BY 1, 2, 3 " .
    "ORDER BY count(*) DESC, 1, 2, 3 LIMIT 1) g " .
    "WHERE m.id = g.machine_id AND b.id = g.benchmark_id");
my $tmetric = one("SELECT primary_metric FROM runs WHERE machine_id = $tmid AND " .
    "benchmark_id = $tbid AND config = " . lit($tc) . " LIMIT 1");
# A standing run with tags and its key; a run that does not stand; a commit and its prefix.
my ($trun, $tsrc, $thv) = split /\t/, one("SELECT r.run_id, r.source_hash, r.harness_version " .
    "FROM records r WHERE r.machine_id = $tmid AND r.benchmark_id = $tbid AND r.config = " .
    lit($tc) . " AND EXISTS (SELECT 1 FROM tags t WHERE t.run_id = r.run_id) " .
    "ORDER BY r.run_id LIMIT 1");
my $digest = one("SELECT digest FROM runs WHERE id = $trun");
my $ttag = one("SELECT min(tag) FROM tags WHERE run_id = $trun");
my $loose = one('SELECT min(id) FROM runs WHERE id NOT IN (SELECT run_id FROM records)');
my $sha = one('SELECT sha FROM commits ORDER BY seq DESC LIMIT 1 OFFSET 5');
my $pfx = substr $sha, 0, 4;
my $src = one("SELECT source_hash FROM commits WHERE sha = " . lit($sha));
my $spfx = substr $src, 0, 3;
# The source hashes of the group's newest 12 records (newest first) as a JSON array, some
# tagged; and the source hash of the newest commit some record was measured at.
my @hashes = map { (split /\t/)[0] } norm_sqlite(sqlite("SELECT r.source_hash FROM records r " .
    "JOIN runs u ON u.id = r.run_id WHERE r.machine_id = $tmid AND r.benchmark_id = $tbid AND " .
    "r.config = " . lit($tc) . " ORDER BY u.started_at DESC LIMIT 12;\n"));
my $json = '[' . join(',', map { "\"$_\"" } @hashes, 'no-such-hash') . ']';
# the gate's groups: the tagged record's, the suspect's and one with no records, as JSON
my $groups_json = '[' . join(',', map { my @g = @$_; $g[2] =~ s/(["\\])/\\$1/g; "[$g[0],$g[1],\"$g[2]\"]" }
	[$tmid, $tbid, $tc], [$smid, $sbid, $sc], [999999, 1, 'none']) . ']';
my $gsrc = $hashes[0];
my $mid2 = one("SELECT id FROM machines WHERE name = " . lit($tm));
my $audit = one('SELECT max(id) FROM audit');

my @cases = (
	['schema_version', [q => 'schema_version']],
	['machine_get', [q => 'machine_get', lit($tm)]],
	['machine_get (first)', [q => 'machine_get', lit('ci-lavapipe')]],
	['machine_get (none)', [q => 'machine_get', lit('nobody')]],
	['benchmark_get', [q => 'benchmark_get', lit($tb)]],
	['tag_has', [q => 'tag_has', $trun, lit($ttag)]],
	['tag_has (none)', [q => 'tag_has', $trun, lit('nonesuch')]],
	# The intake's lookups for a chunk at once (sql/intake.sql): one JSON array each, hits
	# answered by their index in it, misses and repeats among them.
	['intake_runs_by_digest', [q => 'intake_runs_by_digest', lit(json_strs('none', $digest, 'x', $digest))]],
	['intake_tags_of_runs', [q => 'intake_tags_of_runs', lit("[$loose,$trun,999999,$trun]")]],
	['intake_machines', [q => 'intake_machines', lit(json_strs('nobody', $tm, 'ci-lavapipe'))]],
	['intake_benchmarks', [q => 'intake_benchmarks', lit(json_strs($tb, 'none', $tb))]],
	['intake_on_main', [q => 'intake_on_main', lit('[[' . join('],[', map { json_strs(@$_) =~ s/^\[|\]$//gr }
	    [$src, 'x'], ['x', $sha], ['x', 'y'], [$tsrc, 'y']) . ']]')]],
	['intake_standing', [q => 'intake_standing', lit("[[$tmid,$tbid," . json_strs($tc, $tsrc) =~ s/^\[|\]$//gr .
	    ",$thv],[$tmid,$tbid," . json_strs($tc, 'none') =~ s/^\[|\]$//gr . ",$thv]]")]],
	['intake_run_ids', [q => 'intake_run_ids', 3]],
	['main_known', [q => 'main_known']],
	['main_has', [q => 'main_has', lit($src), lit('x')]],
	['main_has (sha)', [q => 'main_has', lit('x'), lit($sha)]],
	['main_has (neither)', [q => 'main_has', lit('x'), lit('y')]],
	['meta_get', [q => 'meta_get', lit('main_branch')]],
	['commit_tip', [q => 'commit_tip']],
	['commit_seq', [q => 'commit_seq', lit($sha)]],
	['commit_count', [q => 'commit_count']],
	['records_list', [q => 'records_list', 'NULL', 'NULL', 0]],
	['records_list (all)', [q => 'records_list', 'NULL', 'NULL', 1]],
	['records_list (machine, benchmark)', [q => 'records_list', lit($tm), lit($tb), 1]],
	['records_page', [q => 'records_page', 0, 'NULL', 'NULL', 1, 'NULL', 'NULL', 'NULL', 'NULL', 100]],
	['records_page (after, standing)',
	 [q => 'records_page', 2000, lit($tm), 'NULL', 0, 'NULL', 'NULL', 'NULL', 'NULL', 50]],
	['records_page_commit', [q => 'records_page_commit', 0, 'NULL', 'NULL', 1, lit($pfx),
				 lit("${pfx}g"), 'NULL', 'NULL', 100]],
	['records_page_source', [q => 'records_page_source', 0, 'NULL', lit($tb), 1, 'NULL', 'NULL',
				 lit($spfx), lit("${spfx}g"), 100]],
	['run_tags', [q => 'run_tags', $trun]],
	['run_metrics', [q => 'run_metrics', $trun]],
	map({ ["count_$_", [q => "count_$_"]] } qw(runs records metrics tags machines benchmarks)),
	['machine_measured', [q => 'machine_measured', lit($tm), lit($tsrc)]],
	['machine_measured (no)', [q => 'machine_measured', lit($tm), lit('none')]],
	['admin_runs', [q => 'admin_runs']],
	['admin_key_runs', [q => 'admin_key_runs', $tmid, $tbid, lit($tc), lit($tsrc), $thv]],
	['admin_target', [q => 'admin_target', $trun]],
	['admin_targets', [q => 'admin_targets', 'NULL', 'NULL', 'NULL', 'NULL']],
	['admin_targets (filters)', [q => 'admin_targets', lit($tm), lit($tb), lit($pfx), lit("${pfx}g")]],
	['web_points', [q => 'web_points', lit($sm), lit($sb), lit($sc), lit($smetric)]],
	['web_points (tagged)', [q => 'web_points', lit($tm), lit($tb), lit($tc), lit($tmetric)]],
	['web_series_suspects', [q => 'web_series_suspects', lit($sm), lit($sb), lit($sc), lit($smetric)]],
	['web_recent_values', [q => 'web_recent_values', lit($tm), lit($tb), lit($tc), lit($tmetric), 30]],
	['web_summary', [q => 'web_summary', lit('open')]],
	['web_suspect_rows', [q => 'web_suspect_rows']],
	['web_commit', [q => 'web_commit', lit($sha)]],
	['web_commit (not on main)', [q => 'web_commit', lit('x')]],
	['series_next_group (first)', [q => 'series_next_group', -1, -1, lit('')]],
	['series_next_group (next)', [q => 'series_next_group', $tmid, $tbid, lit($tc)]],
	['series_members', [q => 'series_members', $tmid, $tbid, lit($tc)]],
	['series_members (suspect)', [q => 'series_members', $smid, $sbid, lit($sc)]],
	['gate_at_source', [q => 'gate_at_source', lit($gsrc)]],
	['gate_at_source (tagged)', [q => 'gate_at_source', lit($tsrc)]],
	['gate_groups_in (one hash)', [q => 'gate_groups_in', lit($groups_json), lit("[\"$gsrc\"]"), 1]],
	['gate_groups_in (no samples)', [q => 'gate_groups_in', lit($groups_json), lit("[\"$gsrc\"]"), 0]],
	['gate_groups_in (a window)', [q => 'gate_groups_in', lit($groups_json), lit($json), 0]],
	['gate_group_skipped', [q => 'gate_group_skipped', $tmid, $tbid, lit($tc), lit($json)]],

	# The writes, each judged by what a plain SELECT reads after it.
	['machine_insert', [id => 'machine_insert', lit('new-machine'), lit('{"cpu":"x"}')],
	 [c => 'SELECT id, name, info, keep FROM machines ORDER BY id']],
	['machine_set_info', [w => 'machine_set_info', $mid2, lit('{"os":"y"}')],
	 [w => 'machine_set_info', 1, 'NULL'],
	 [c => 'SELECT id, name, info, keep FROM machines ORDER BY id']],
	# Without the new machine's id: PostgreSQL's upsert draws an id from the sequence even
	# when the row is there already (it conflicts), so the next new machine's id skips one.
	['machine_set_keep', [w => 'machine_set_keep', lit($tm), lit('first')],
	 [w => 'machine_set_keep', lit('brand-new'), lit('first')],
	 [c => 'SELECT name, info, keep FROM machines ORDER BY id']],
	['benchmark_insert', [id => 'benchmark_insert', lit('new-bench')],
	 [c => 'SELECT id, name FROM benchmarks ORDER BY id']],
	['run_insert', [id => 'run_insert', lit('digest-x'), $mid2, $tbid, lit($tc), lit($tsrc), 7, 'NULL',
			lit($sha), lit('main'), 'NULL', 1700000000.25, 0, lit('release'), 0, lit($tmetric),
			0.0125, lit('{"raw":1}')],
	 [c => 'SELECT id, digest, machine_id, benchmark_id, config, source_hash, harness_version, ' .
	       'content_hash, commit_sha, branch, committed_at, started_at, dirty, profile, baseline, ' .
	       'primary_metric, quietness, raw, ingested_at > 1.7e9 FROM runs ORDER BY id DESC LIMIT 3']],
	['intake_run_insert', [w => 'intake_run_insert', lit('digest-y'), $mid2, $tbid, lit($tc), lit($tsrc), 7,
			       'NULL', lit($sha), lit('main'), 'NULL', 1700000000.25, 0, lit('release'), 0,
			       lit($tmetric), 0.0125, lit('{"raw":2}'), 900000],
	 [c => 'SELECT id, digest, machine_id, benchmark_id, config, source_hash, harness_version, ' .
	       'content_hash, commit_sha, branch, committed_at, started_at, dirty, profile, baseline, ' .
	       'primary_metric, quietness, raw, ingested_at > 1.7e9 FROM runs ORDER BY id DESC LIMIT 2']],
	['intake_metrics_insert', [w => 'intake_metrics_insert',
	  lit("[[$loose,\"new_metric\",\"timed\",\"us\",\"lower\",12.5,13.75,10,null,\"a ladder\",9,16]," .
	      "[$loose,\"other_metric\",\"counted\",\"B\",\"higher\",null,null,null,42,null,null,null]]"),
	  "X'ffffffffffffffff000000000000f03f0000000000000040'"],
	 [c => "SELECT * FROM metrics WHERE run_id = $loose ORDER BY name"]],
	['metric_insert', [w => 'metric_insert', $loose, lit('new_metric'), lit('timed'), lit('us'),
			   lit('lower'), 12.5, 13.75, 10, 'NULL', lit('a ladder'),
			   "X'000000000000f03f0000000000000040'"],
	 [w => 'metric_insert', $loose, lit('other_metric'), lit('counted'), lit('B'), lit('higher'),
	  'NULL', 'NULL', 'NULL', 42, 'NULL', 'NULL'],
	 [c => "SELECT * FROM metrics WHERE run_id = $loose ORDER BY name"]],
	['tag_insert, tag_delete', [w => 'tag_insert', $trun, lit('noisy')],
	 [w => 'tag_insert', $trun, lit('noisy')], [w => 'tag_insert', $loose, lit('dirty')],
	 [w => 'tag_delete', $trun, lit($ttag)],
	 [c => "SELECT run_id, tag FROM tags WHERE run_id IN ($trun, $loose) ORDER BY run_id, tag"],
	 [c => 'SELECT run_id, what, delta FROM detect_log ORDER BY run_id, what']],
	['standing_set', [w => 'standing_set', $tmid, $tbid, lit($tc), lit($tsrc), $thv, $loose],
	 [w => 'standing_set', $tmid, $tbid, lit($tc), lit('new-source'), $thv, $trun],
	 [c => 'SELECT * FROM records ORDER BY machine_id, benchmark_id, config, source_hash, ' .
	       'harness_version'],
	 [c => 'SELECT run_id, what, delta FROM detect_log ORDER BY run_id, what']],
	['not_main_clear, not_main_set', [w => 'commit_delete_after', 300],
	 [w => 'not_main_clear'], [w => 'not_main_set'],
	 [c => 'SELECT run_id, tag FROM tags ORDER BY run_id, tag']],
	['meta_set', [w => 'meta_set', lit('main_branch'), lit('trunk')],
	 [w => 'meta_set', lit('k'), 'NULL'],
	 [c => 'SELECT key, value FROM meta ORDER BY key']],
	['commit_insert, commit_delete_after', [w => 'commit_delete_after', 310],
	 [w => 'commit_insert', lit('f' x 40), 311, lit($sha), lit('src-new'), 1800000000,
	  lit('a subject'), 'NULL'],
	 [w => 'commit_insert', lit('e' x 40), 312, lit('f' x 40), lit('src-new2'), 1800000100,
	  lit('pr (#7)'), 7],
	 [c => 'SELECT sha, seq, parent, source_hash, committed_at, subject, pr FROM commits ' .
	       'ORDER BY seq'],
	 [c => 'SELECT sha, seq, source_hash, committed_at FROM detect_log_commits ORDER BY sha'],
	 [c => 'SELECT key, value FROM meta ORDER BY key']],
	['admin_audit_insert',
	 [id => 'admin_audit_insert', lit('rm'), lit('someone'), lit('why not'), 'NULL', 2],
	 [id => 'admin_audit_insert', lit('ignore'), lit('someone'), 'NULL', 3, 0],
	 [c => 'SELECT id, action, who, at > 1.7e9, why, alert_id, runs FROM audit ORDER BY id']],
	['admin_keep_removed, admin_rm_*', [w => 'admin_keep_removed', $trun, $audit],
	 [w => 'admin_keep_removed', $loose, $audit],
	 map({ [w => $_, $trun], [w => $_, $loose] } qw(admin_rm_suspects admin_rm_lines
	     admin_rm_tags admin_rm_metrics admin_rm_record admin_rm_log admin_rm_log_run
	     admin_rm_run)),
	 [w => 'admin_detect_full'],
	 [c => 'SELECT * FROM removed_runs ORDER BY run_id'],
	 [c => 'SELECT count(*) FROM runs'], [c => 'SELECT count(*) FROM metrics'],
	 [c => 'SELECT count(*) FROM tags'], [c => 'SELECT count(*) FROM records'],
	 [c => 'SELECT count(*) FROM lines'],
	 [c => 'SELECT run_id, what, delta FROM detect_log ORDER BY run_id, what'],
	 [c => 'SELECT key, value FROM meta ORDER BY key']],
);

# A parameter as PostgreSQL gets it: text (NULL stays NULL).
sub pg_param {
	my ($v) = @_;
	return $v if $v eq 'NULL' || $v =~ /^'/;
	return "'\\x" . lc($1) . "'" if $v =~ /^X'(.*)'$/;
	return "'$v'";
}

# A script's output cut at the markers it printed: marker => what came after it.
sub segments {
	my ($out) = @_;
	my (%seg, $at);
	for my $line (split /^/, $out) {
		if ($line =~ /^==(\w+)==\n\z/) {
			$at = $1;
			$seg{$at} = '';
		} elsif (defined $at) {
			$seg{$at} .= $line;
		}
	}
	return %seg;
}

my $failed = 0;
my %seen;
for my $case (@cases) {
	my ($title, @steps) = @$case;
	my ($s, $p) = ("BEGIN;\n", "${reset}BEGIN;\n");
	my $n = 0;
	for my $step (@steps) {
		my ($kind, @args) = @$step;
		$n++;
		$s .= ".print ==$n==\n";
		$p .= "\\echo ==$n==\n";
		if ($kind eq 'c') {
			$s .= "$args[0];\n";
			$p .= "$args[0];\n";
			next;
		}
		my ($name, @params) = @args;
		$seen{$name} = 1;
		die "compare-q1: no statement $name\n" if !exists $sq{$name} || !exists $pg{$name};
		$s .= ".parameter init\nDELETE FROM temp.sqlite_parameters;\n";
		for my $i (0 .. $#params) {
			$s .= "INSERT INTO temp.sqlite_parameters (key, value) VALUES ('?" . ($i + 1) .
			    "', $params[$i]);\n";
		}
		$s .= "$sq{$name};\n";
		$s .= "SELECT last_insert_rowid();\n" if $kind eq 'id';
		$p .= "PREPARE s$n AS\n$pg{$name};\n";
		$p .= @params ? "EXECUTE s$n(" . join(', ', map { pg_param($_) } @params) . ");\n"
			      : "EXECUTE s$n;\n";
		$s .= ".print ==skip==\n" if $kind eq 'w';
		$p .= "\\echo ==skip==\n" if $kind eq 'w';
	}
	$s .= ".print ==end==\nROLLBACK;\n";
	$p .= "\\echo ==end==\nROLLBACK;\n";
	my (%so, %po);
	eval {
		%so = segments(sqlite($s));
		%po = segments(psql($p));
		1;
	} or do {
		print "not ok $title: $@";
		$failed = 1;
		next;
	};
	my ($bad, $rows) = ('', 0);
	my $k = 0;
	for my $step (@steps) {
		$k++;
		next if $step->[0] eq 'w';
		my @a = norm_sqlite($so{$k} // '');
		my @b = norm_pg($po{$k} // '');
		$rows += @a;
		my $i = 0;
		$i++ while $i < @a && $i < @b && $a[$i] eq $b[$i];
		next if $i == @a && $i == @b;
		# The first column that differs, with the row's first columns to find it by.
		my @x = split /\t/, $a[$i] // '(none)', -1;
		my @y = split /\t/, $b[$i] // '(none)', -1;
		my $j = 0;
		$j++ while $j < @x && $j < @y && $x[$j] eq $y[$j];
		my $cut = sub { my $v = shift // '(none)'; length $v > 200 ? substr($v, 0, 200) . '...' : $v };
		$bad = sprintf "step %d (%s), row %d of %d/%d (%s), column %d:\n" .
		    "    SQLite:     %s\n    PostgreSQL: %s\n", $k, $step->[1], $i + 1, scalar @a,
		    scalar @b, $cut->(join ' ', @x[0 .. ($#x < 2 ? $#x : 2)]), $j + 1, $cut->($x[$j]),
		    $cut->($y[$j]);
		last;
	}
	if ($bad) {
		print "not ok $title: $bad";
		$failed = 1;
	} else {
		print "ok $title ($rows rows)\n";
	}
}
# schema_version on a database no migration has touched (the version table as the store makes
# it when it connects, and nothing else): 0, as SQLite's user_version.
{
	(my $empty = $url) =~ s{/[^/]*\z}{/postgres};
	my $v = run("BEGIN; CREATE TABLE benchline_schema (version bigint NOT NULL);\n"
		    . "INSERT INTO benchline_schema VALUES (0);\n"
		    . "SELECT 'sv', v FROM ($pg{schema_version}) x(v);\nROLLBACK;\n", 'psql', '-X', '-q',
		    '--csv', '-t', $empty);
	if ($v =~ /^sv,0$/m) {
		print "ok schema_version (no migration: 0)\n";
	} else {
		print "not ok schema_version (no migration): read $v";
		$failed = 1;
	}
}

# web_data_version has no counterpart to compare with: it must stay while nothing is written,
# and move whenever another connection commits, also when the one that commits began writing
# before another that committed already (T1 below).
{
	my $dv = "SELECT 'dv', v FROM ($pg{web_data_version}) x(v);\n";
	my $read = sub { psql($dv) =~ /^dv,(-?\d+)$/m ? $1 : 'none' };
	my @v = ($read->(), $read->());
	my ($t1_out, $t1_in);
	my $pid = open2($t1_out, $t1_in, 'psql', '-X', '-q', '-t', '-A', $url);
	my $wait = sub {
		my ($mark) = @_;
		while (my $line = <$t1_out>) {
			return if $line =~ /^$mark$/;
		}
		die "compare-q1: the second connection ended early\n";
	};
	print $t1_in "BEGIN;\nUPDATE meta SET value = value WHERE key = 'main_branch';\n" .
	    "SELECT 'ready';\n";
	$t1_in->flush;
	$wait->('ready');
	psql("UPDATE meta SET value = value WHERE key = 'detect_state';\n");
	push @v, $read->();
	print $t1_in "COMMIT;\nSELECT 'done';\n";
	$t1_in->flush;
	$wait->('done');
	push @v, $read->();
	close $t1_in;
	waitpid $pid, 0;
	$seen{web_data_version} = 1;
	if ($v[0] eq $v[1] && $v[2] ne $v[1] && $v[3] ne $v[2] && !grep { $_ eq 'none' } @v) {
		print "ok web_data_version (@v)\n";
	} else {
		print "not ok web_data_version: read @v (the same twice, then a new value after " .
		    "each of two commits)\n";
		$failed = 1;
	}
}

my @unchecked = grep { !$seen{$_} } sort keys %{{%sq, %pg}};
if (@unchecked) {
	print "not compared: @unchecked\n";
	$failed = 1;
}
exit $failed;
PERL
exit $rc

#!/bin/sh
# Runs the PostgreSQL texts of sql/detect.sql, sql/alerts.sql and sql/regressions.sql (sql/pg/'s
# overrides and the rest derived, as store/embed-sql.sh gives them to the binary) and the
# SQLite texts on the same rows, and says where their results differ.
#
#   compare-q2.sh [URL]
#
# The rows: a demo history (`benchline demo`, then `detect`), changed afterwards so that every
# statement has something to read (a change log, Suspects that joined an earlier one's alert,
# alerts pending, open, transient and decided, judged under other quiet settings, Regressions;
# see mutate below). The SQLite file is copied table by table into a new database on the
# PostgreSQL server at URL (one of this script's own when no URL is given, tests/pg/server.sh)
# holding the PostgreSQL schema, sql/pg/NNN-*.sql applied in order (or the files PG_SCHEMA
# names, in the order given). tests/pg/compare-q2.pl then runs each case on both and compares
# the rows; it prints "ok"/"not ok" per case ("not ok FILE NAME" for a named statement no case
# ran) and a last line "N passed, N failed".
# With EXPLAIN=1 it also prints PostgreSQL's plans of the full walk's reads (a custom and a
# generic plan each; on rows as few as the demo's a whole-table range may well be a sequential
# scan and a sort, which is the planner's right choice there: look at plans on a large history).
#
# BENCHLINE is the binary (default ./build/default/benchline); KEEP=1 keeps the files and the
# database, LOAD_ONLY=1 stops once the rows are loaded, VERBOSE=1 prints the rows compared.
# Exits 1 when a case failed or a statement ran in none.
set -eu
cd "$(dirname "$0")/../.."
top=$(pwd)
BENCHLINE=${BENCHLINE:-$top/build/default/benchline}
[ -x "$BENCHLINE" ] || { echo "compare-q2: no $BENCHLINE (make benchline)" >&2; exit 2; }
command -v sqlite3 >/dev/null || { echo "compare-q2: no sqlite3" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/compare-q2.XXXXXX")
chmod 755 "$tmp" # the server of tests/pg/server.sh runs as nobody when this runs as root
server=
dbname=compare_q2_$$
url=${1:-}
cleanup() {
	if [ -n "$url" ] && [ -z "${KEEP:-}" ]; then
		psql -X -q "$url" -c "DROP DATABASE IF EXISTS $dbname" >/dev/null 2>&1 || true
	fi
	if [ -n "$server" ]; then
		sh tests/pg/server.sh stop "$server" || true
	fi
	[ -n "${KEEP:-}" ] && echo "compare-q2: kept $tmp and $dburl" >&2 || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 2' INT TERM HUP

if [ -z "$url" ]; then
	server=$tmp/pg
	url=$(sh tests/pg/server.sh start "$server")
fi
db=$tmp/q2.db
dburl=${url%/*}/$dbname

# --- the SQLite rows ------------------------------------------------------------------------
"$BENCHLINE" --db "$db" demo >/dev/null
"$BENCHLINE" --db "$db" detect >/dev/null

# sqlite_stmt FILE NAME: the SQLite text of one named statement (up to the next name).
sqlite_stmt() {
	awk -v want="$2" '/^-- name: / { on = ($3 == want); next } on && !/^--/' "sql/$1"
}

# run_stmt FILE NAME VALUE...: SQLite's own text of a named statement run on the file, its
# parameters bound to the values (SQL literals); prints what it gives.
run_stmt() {
	f=$1 name=$2
	shift 2
	{
		echo ".parameter init"
		i=1
		for v in "$@"; do
			printf '.parameter set ?%d "%s"\n' "$i" "$v"
			i=$((i + 1))
		done
		sqlite_stmt "$f" "$name"
	} | sqlite3 -bail "$db"
}

# A Regression inserted by SQLite's own statement with its parameters bound: on main with the
# commit's subject and pull request (NULL given), of alert 2; another Series' not on main with
# its own subject; one bisect found alone (no alert) on alert 2's Series at an earlier commit.
insert_regression() {
	run_stmt regressions.sql regression_insert "$@"
}

# The change log, made by the SQLite triggers as the store would: two commits of main stored
# since the detect (one of a standing run not on main, one sharing another such run's source
# hash), runs tagged and untagged, a standing run removed (its key taken by another run). And
# alerts as the pass and confirm leave them (detect/alerts.c, docs/confirm.md):
# Suspects that continued an earlier level and joined its alert (a chain of two, at other
# commits than the alert's), alerts kept with no Suspect left (series 0), a transient Suspect
# and alert, a pending one, an alert judged under another quiet.transient_records and one
# judged before the setting was kept (NULL), Suspects on other Series at two alerts' commits
# (the one with the latest reference transient), the judged Series counted there, and
# decided alerts.
mutate() {
	sqlite3 -bail "$db" <<'EOF'
INSERT INTO commits (sha, seq, parent, source_hash, committed_at, subject, pr)
SELECT r.commit_sha, 320, NULL, 'pgq2-late-source', 1776501300, 'a late commit', NULL
FROM runs r JOIN records x ON x.run_id = r.id
WHERE r.commit_sha NOT IN (SELECT sha FROM commits)
ORDER BY r.id LIMIT 1;
INSERT INTO commits (sha, seq, parent, source_hash, committed_at, subject, pr)
SELECT 'ffffffffffffffffffffffffffffffffffffffff', 321, NULL, r.source_hash, 1776501400,
       'the same source (#77)', 77
FROM runs r JOIN records x ON x.run_id = r.id
WHERE r.commit_sha NOT IN (SELECT sha FROM commits)
  AND r.source_hash NOT IN (SELECT source_hash FROM commits)
ORDER BY r.id DESC LIMIT 1;
INSERT INTO tags (run_id, tag)
SELECT x.run_id, 'noisy' FROM records x
WHERE NOT EXISTS (SELECT 1 FROM tags t WHERE t.run_id = x.run_id)
ORDER BY x.run_id LIMIT 3;
DELETE FROM tags WHERE tag = 'noisy'
  AND run_id IN (SELECT run_id FROM tags WHERE tag = 'noisy' ORDER BY run_id DESC LIMIT 2);
INSERT INTO tags (run_id, tag) VALUES (17, 'dirty');
DELETE FROM tags WHERE run_id = 17 AND tag = 'dirty';

-- Suspect 3 continued Suspect 2's level and Suspect 4 continued 3's: both joined alert 2;
-- alerts 3 and 4 are kept with none.
UPDATE suspects SET alert_id = 2, follows_run_id = 3521 WHERE id = 3;
UPDATE suspects SET alert_id = 2, follows_run_id = 5307 WHERE id = 4;
UPDATE alerts SET series = 0 WHERE id IN (3, 4);
UPDATE alerts SET series = 3 WHERE id = 2;
-- Suspect 5 came back after one record (transient under 4); Suspect 6 has had two followers,
-- both beyond its band (pending); Suspect 9 follows a run with no Suspect.
UPDATE suspects SET followers = 5, persisted = 1 WHERE id = 5;
UPDATE alerts SET state = 'transient' WHERE id = 5;
UPDATE suspects SET followers = 2, persisted = 2 WHERE id = 6;
UPDATE alerts SET state = 'pending' WHERE id = 6;
UPDATE suspects SET follows_run_id = 1 WHERE id = 9;
UPDATE alerts SET transient_records = 3 WHERE id = 9;
-- Suspect 8 came back, but its alert was judged before the setting was kept.
UPDATE suspects SET followers = 6, persisted = 2 WHERE id = 8;
UPDATE alerts SET transient_records = NULL WHERE id = 8;
-- Suspects on other Series of the machine at alert 1's commit (three) and alert 7's (one),
-- each with its reference (the last record of its Series placed before it).
INSERT INTO suspects (run_id, metric, machine_id, benchmark_id, config, side, shift, median,
		      center, tolerance, deviation, reference_run_id, followers, persisted,
		      alert_id, state, created_at)
SELECT r.id, m.name, r.machine_id, r.benchmark_id, r.config, 'slower', 0.125, m.median,
       m.median / 1.125, 0.0625, 0.01,
       (SELECT q.id FROM records y JOIN placed_runs q ON q.id = y.run_id
	WHERE y.machine_id = r.machine_id AND y.benchmark_id = r.benchmark_id
	  AND y.config = r.config AND q.place < p.place
	ORDER BY q.place DESC, q.at DESC, q.started_at DESC, q.id DESC LIMIT 1),
       8, 8, a.id, 'open', 1796169409.5
FROM alerts a
JOIN runs r ON r.machine_id = a.machine_id AND r.commit_sha = a.commit_sha
JOIN placed_runs p ON p.id = r.id
JOIN metrics m ON m.run_id = r.id
WHERE a.id IN (1, 7)
  AND EXISTS (SELECT 1 FROM records x WHERE x.run_id = r.id)
  AND NOT EXISTS (SELECT 1 FROM suspects s WHERE s.run_id = r.id)
  AND (SELECT count(*) FROM runs u JOIN records x ON x.run_id = u.id
       WHERE u.machine_id = a.machine_id AND u.commit_sha = a.commit_sha AND u.id < r.id
	 AND NOT EXISTS (SELECT 1 FROM suspects s WHERE s.run_id = u.id))
      < CASE a.id WHEN 1 THEN 3 ELSE 1 END
  AND m.name = (SELECT min(name) FROM metrics WHERE run_id = r.id AND median IS NOT NULL);
-- Of alert 1's, the one whose reference is latest came back; the others' last records inside
-- their bands are one further back, so that its reference commit is theirs.
UPDATE suspects SET persisted = 2
WHERE id = (SELECT s.id FROM suspects s JOIN placed_runs q ON q.id = s.reference_run_id
	    WHERE s.alert_id = 1
	    ORDER BY q.place DESC, q.at DESC, q.started_at DESC, q.id DESC LIMIT 1);
UPDATE suspects
SET reference_run_id = (SELECT q.id FROM records y JOIN placed_runs q ON q.id = y.run_id
			JOIN placed_runs o ON o.id = suspects.reference_run_id
			WHERE y.machine_id = suspects.machine_id
			  AND y.benchmark_id = suspects.benchmark_id
			  AND y.config = suspects.config AND q.place < o.place
			ORDER BY q.place DESC, q.at DESC, q.started_at DESC, q.id DESC LIMIT 1)
WHERE alert_id = 1 AND persisted = followers;
UPDATE alerts SET series = (SELECT count(*) FROM suspects s WHERE s.alert_id = alerts.id)
WHERE id IN (1, 7);
UPDATE alerts SET state = 'confirmed', outcome = 'confirmed', note = 'held: 2 of 2'
WHERE id = 2;
UPDATE alerts SET state = 'covered', filed_url = 'https://example.invalid/1' WHERE id = 7;
UPDATE alerts SET state = 'ignored' WHERE id = 1;
UPDATE suspects SET state = (SELECT a.state FROM alerts a WHERE a.id = suspects.alert_id);
-- few enough Series judged at alert 1's commit that its Suspects there make it run-wide
UPDATE line_ends SET judged = 0
WHERE line_id IN (SELECT id FROM lines WHERE machine_id = 2 AND benchmark_id IN (2, 3, 5, 6));
EOF
	# The judged Series at alert 1's and alert 7's commits, counted as the pass counts them,
	# and whether their Suspects there are on half of them or more.
	for a in 1 7; do
		set -- $(sqlite3 -separator ' ' "$db" \
			"SELECT machine_id, commit_sha FROM alerts WHERE id = $a")
		judged=$(run_stmt alerts.sql alerts_judged_at "$1" "'$2'")
		sqlite3 -bail "$db" "UPDATE alerts SET judged_series = $judged,
				     run_wide = (2 * series >= $judged) WHERE id = $a"
	done
	c2=$(sqlite3 "$db" "SELECT r.commit_sha FROM runs r WHERE r.id = 3521")
	c7=$(sqlite3 "$db" "SELECT r.commit_sha FROM runs r WHERE r.id = 3530")
	early=$(sqlite3 "$db" "SELECT sha FROM commits WHERE seq = 100")
	offmain=$(sqlite3 "$db" "SELECT commit_sha FROM runs
				 WHERE commit_sha NOT IN (SELECT sha FROM commits) ORDER BY id LIMIT 1")
	insert_regression 2 2 1 "'2560x1440/1800f'" "'gpu_frame_us'" "'$c2'" "'src-2'" NULL NULL \
		1.25 1.2 1.3 "'$early'" "'[{\\\"commit\\\":\\\"$c2\\\"}]'"
	insert_regression 7 3 1 "'2560x1440/1800f'" "'gpu_frame_us'" "'$c7'" "'src-7'" \
		"'covered by #7'" 7 0.5 NULL NULL "'$early'" "'[]'"
	insert_regression NULL 2 1 "'2560x1440/1800f'" "'gpu_frame_us'" "'$offmain'" "'src-x'" \
		NULL NULL NULL NULL NULL "'$early'" "'[]'"
	insert_regression NULL 2 1 "'2560x1440/1800f'" "'gpu_frame_us'" "'$early'" "'src-e'" \
		NULL NULL 2.0 1.5 2.5 "'$early'" "'[]'"
	# A standing run with a Suspect removed the way `rm` does it (its key goes to another run).
	"$BENCHLINE" --db "$db" rm --why 'compare-q2' 3018 >/dev/null
}
mutate

# --- the same rows on PostgreSQL ------------------------------------------------------------
psql -X -q -v ON_ERROR_STOP=1 "$url" -c "CREATE DATABASE $dbname" >/dev/null
if [ -n "${PG_SCHEMA:-}" ]; then
	schema=$PG_SCHEMA
else
	schema=$(ls sql/pg/[0-9][0-9][0-9]-*.sql 2>/dev/null || true)
fi
[ -n "$schema" ] || { echo "compare-q2: no PostgreSQL schema (sql/pg/NNN-*.sql)" >&2; exit 2; }
for f in $schema; do
	psql -X -q -v ON_ERROR_STOP=1 "$dburl" -f "$f" >/dev/null
done

# Each SQLite table to a CSV file of its columns (blobs as bytea's hex input, reals in 21
# significant digits, so each reads back the same double) and into the table of the same name
# with \copy. Triggers and foreign keys are off while it loads (session_replication_role): the
# rows are copied as they are, change log and all. Then each identity sequence is moved past
# the ids copied in (and past SQLite's AUTOINCREMENT counter), and the tables are analyzed.
load=$tmp/load.sql
{
	echo "SET session_replication_role = replica;"
	for t in $(sqlite3 "$db" "SELECT name FROM sqlite_master WHERE type = 'table'
				  AND name NOT LIKE 'sqlite_%' ORDER BY name"); do
		cols=$(sqlite3 "$db" "SELECT group_concat(name, ',') FROM pragma_table_info('$t')")
		sel=$(sqlite3 "$db" "SELECT group_concat(printf('CASE typeof(%s)
			WHEN ''blob'' THEN ''\\x'' || hex(%s) WHEN ''real'' THEN printf(''%%!.20e'', %s)
			ELSE %s END', name, name, name, name), ', ') FROM pragma_table_info('$t')")
		sqlite3 -csv -nullvalue '\N' "$db" "SELECT $sel FROM $t" >"$tmp/$t.csv"
		printf '\\copy %s (%s) FROM '\''%s'\'' WITH (FORMAT csv, NULL '\''\\N'\'')\n' \
			"$t" "$cols" "$tmp/$t.csv"
		# an INTEGER PRIMARY KEY id is an identity column there
		[ "$(sqlite3 "$db" "SELECT count(*) FROM pragma_table_info('$t')
				    WHERE name = 'id' AND pk = 1")" = 1 ] || continue
		seq=$(sqlite3 "$db" "SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = '$t'), 0)")
		echo "SELECT setval(pg_get_serial_sequence('$t', 'id'),
				 greatest($seq, (SELECT max(id) FROM $t)))
		      WHERE pg_get_serial_sequence('$t', 'id') IS NOT NULL
			AND greatest($seq, (SELECT max(id) FROM $t)) > 0;"
	done
	echo "RESET session_replication_role;"
} >"$load"
psql -X -q -v ON_ERROR_STOP=1 "$dburl" -f "$load" >/dev/null
psql -X -q -v ON_ERROR_STOP=1 "$dburl" -c 'VACUUM ANALYZE' >/dev/null

# The PostgreSQL texts, as the binary carries them.
sh store/embed-sql.sh --pg-dir "$tmp/pg-sql" sql/*.sql -- sql/pg/*.sql
[ -n "${LOAD_ONLY:-}" ] || perl tests/pg/compare-q2.pl "$db" "$dburl" "$tmp/pg-sql"

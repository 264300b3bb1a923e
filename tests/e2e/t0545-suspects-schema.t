#!/bin/sh
# Schema 11 (sql/011-suspects-deferred.sql): a Suspect's key to its alert is checked when the
# transaction commits, so that detect writes its Suspects 16 a statement without a statement
# journal. A database at schema 10 upgrades keeping every Suspect (ids, states, kinds, times)
# and the id sequence past a deleted one; a first detect's Suspects carry the time it ran; a
# Suspect whose alert is missing is refused at commit with nothing of the transaction kept.
. "$(dirname "$0")/lib.sh"
pg_skip "SQLite's migration and statement journal; t1320 runs the statements on PostgreSQL"

# Seven lines that step up and down five times each: 35 Suspects, so that a first detect
# writes two statements of 16 and 3 rows alone.
lo="1.0 1.01 0.99 1.0 1.02 0.98 1.0 1.01 1.0 0.99"
hi="2.0 2.02 1.98 2.0 2.01 1.99 2.0 2.02 2.0 1.98"
test_expect 'setup: a first detect writes 35 Suspects, each with the time detect ran' '
	for b in a b c d e f g; do
		wall_records m1 $b 1 $lo $hi $lo $hi $lo $hi || return 1
	done >w.jsonl &&
	bl --db d.db ingest w.jsonl >/dev/null &&
	before=$(date +%s) &&
	bl --db d.db detect >/dev/null &&
	after=$(date +%s) &&
	test "$(sqlite3 d.db "SELECT count(*) FROM suspects")" = 35 &&
	sqlite3 d.db "SELECT count(*) FROM suspects
		WHERE created_at < $before OR created_at > $after + 1" >actual &&
	echo 0 >expect &&
	test_cmp expect actual
'

# schema_10 DB: DB taken back to schema 10, suspects as sql/010-change-points.sql made it (the
# key to alerts checked at once), the sequence past the deleted last Suspect kept.
schema_10() {
	sqlite3 "$1" "PRAGMA foreign_keys = OFF; BEGIN;
		DELETE FROM suspects WHERE id = (SELECT max(id) FROM suspects);
		CREATE TABLE old AS SELECT * FROM suspects;
		CREATE TEMP TABLE seq AS SELECT seq FROM sqlite_sequence WHERE name = 'suspects';
		DROP TABLE suspects;
		$(sed -n '/^CREATE TABLE suspects_v10 (/,/^);/p' "$ROOT/sql/010-change-points.sql" |
			sed 's/suspects_v10/suspects/')
		INSERT INTO suspects SELECT * FROM old;
		DROP TABLE old;
		CREATE INDEX suspects_alert ON suspects (alert_id);
		UPDATE sqlite_sequence SET seq = (SELECT seq FROM temp.seq) WHERE name = 'suspects';
		PRAGMA user_version = 10;
		COMMIT;"
}

# suspects_rows DB: every Suspect's columns, in id order, and the id sequence.
suspects_rows() {
	sqlite3 "$1" "SELECT * FROM suspects ORDER BY id;
		SELECT seq FROM sqlite_sequence WHERE name = 'suspects'"
}

test_expect 'a schema-10 database upgrades keeping every Suspect and the id sequence' '
	sqlite3 d.db "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null &&
	cp d.db ten.db &&
	schema_10 ten.db &&
	test "$(sqlite3 ten.db "PRAGMA user_version")" = 10 &&
	! sqlite3 ten.db "SELECT sql FROM sqlite_master WHERE name = '\''suspects'\''" |
		grep -q DEFERRABLE &&
	suspects_rows ten.db >expect &&
	test "$(tail -1 expect)" -gt "$(sqlite3 ten.db "SELECT max(id) FROM suspects")" &&
	bl --db ten.db alerts --json >alerts.before &&
	bl --db ten.db suspects --json >list.before &&
	test "$(sqlite3 ten.db "PRAGMA user_version")" = 11 &&
	sqlite3 ten.db "SELECT sql FROM sqlite_master WHERE name = '\''suspects'\''" |
		grep -q "REFERENCES alerts (id) DEFERRABLE INITIALLY DEFERRED" &&
	suspects_rows ten.db >actual &&
	test_cmp expect actual &&
	sqlite3 ten.db "PRAGMA foreign_key_check; PRAGMA integrity_check" >actual &&
	echo ok >expect &&
	test_cmp expect actual
'

# The Suspect deleted before the upgrade is a mark detect makes: a rebuild writes it again,
# under a new id past the sequence (AUTOINCREMENT never gives an id twice).
test_expect 'a rebuild writes the deleted Suspect again under an id past the sequence' '
	seq=$(sqlite3 ten.db "SELECT seq FROM sqlite_sequence WHERE name = '\''suspects'\''") &&
	n=$(sqlite3 ten.db "SELECT count(*) FROM suspects") &&
	bl --db ten.db detect --all >/dev/null &&
	test "$(sqlite3 ten.db "SELECT count(*) FROM suspects")" = $((n + 1)) &&
	test "$(sqlite3 ten.db "SELECT min(id) FROM suspects WHERE id > $seq - 1")" -gt "$seq"
'

# add_suspect ALERT_ID: SQL that adds a change-point Suspect beside a band one, in alert
# ALERT_ID.
add_suspect() {
	echo "INSERT OR FAIL INTO suspects (run_id, metric, machine_id, benchmark_id, config, side,
		median, center, tolerance, alert_id, state, created_at, kind)
	SELECT run_id, metric, machine_id, benchmark_id, config, side, median, center, tolerance,
	       $1, state, created_at, 'change-point'
	FROM suspects WHERE kind = 'band' ORDER BY id LIMIT 1;"
}

test_expect 'the key to the alert is checked at commit: an alert written after its Suspect is fine' '
	sqlite3 ten.db "PRAGMA foreign_keys = ON; BEGIN;
		$(add_suspect 999999)
		CREATE TEMP TABLE a AS SELECT * FROM alerts ORDER BY id LIMIT 1;
		UPDATE temp.a SET id = 999999;
		INSERT INTO alerts SELECT * FROM temp.a;
		COMMIT;" &&
	test "$(sqlite3 ten.db "SELECT count(*) FROM suspects WHERE alert_id = 999999")" = 1 &&
	sqlite3 ten.db "DELETE FROM suspects WHERE alert_id = 999999;
		DELETE FROM alerts WHERE id = 999999"
'

test_expect 'a Suspect whose alert never comes is refused at commit; nothing of it is kept' '
	n=$(sqlite3 ten.db "SELECT count(*) FROM suspects") &&
	! sqlite3 ten.db "PRAGMA foreign_keys = ON; BEGIN;
		DELETE FROM suspects WHERE id = (SELECT min(id) FROM suspects);
		$(add_suspect 999998)
		COMMIT;" 2>err &&
	grep -q "FOREIGN KEY constraint failed" err &&
	test "$(sqlite3 ten.db "SELECT count(*) FROM suspects")" = "$n"
'

test_done

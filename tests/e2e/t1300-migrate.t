#!/bin/sh
# migrate (issue 16, docs/deploy.md): a history copied SQLite -> PostgreSQL -> SQLite reads back
# byte for byte the same in records, series, suspects and alerts; detection on the PostgreSQL
# copy finds what it finds on the file; counts and checksums are printed per table; a target
# that already holds a history is refused with nothing written; check verifies the invariants
# on both stores and names a broken one. A real PostgreSQL server on loopback: the suite's
# (make check DB=postgres) or one started here. The files here are SQLite files in both modes:
# the test is about moving between the two.
. "$(dirname "$0")/lib.sh"

pg_test_server || { echo 'Bail out! no PostgreSQL server'; exit 1; }

# newdb NAME: the URL of a new, empty database on the server.
newdb() {
	psql -X -q -v ON_ERROR_STOP=1 "$PG" -c "DROP DATABASE IF EXISTS t1300_$1 WITH (FORCE)" \
		-c "CREATE DATABASE t1300_$1" >/dev/null 2>&1 &&
		echo "${PG%/*}/t1300_$1"
}

# reads DB OUT: what the reading commands print of DB, into OUT.
reads() {
	for c in "records --json --all" "series --json" "suspects --json" "alerts --json" \
		"regressions --json"; do
		echo "== $c"
		"$BENCHLINE" --db "$1" $c || echo "exit $?"
	done >"$2" 2>&1
}

test_expect 'setup: the demo history on a file, detected' '
	"$BENCHLINE" --db demo.db demo >/dev/null 2>&1 &&
	"$BENCHLINE" --db demo.db detect >/dev/null &&
	reads demo.db expect &&
	test "$(grep -c "\"source_hash\"" expect)" -gt 1000
'

A=$(newdb a) || { echo 'Bail out! cannot make a database'; exit 1; }
test_expect 'migrate SQLite -> PostgreSQL: the same history, every table counted and hashed' '
	"$BENCHLINE" migrate --from demo.db --to "$A" --json >copy.json 2>copy.err &&
	grep -q "counts and checksums agree" copy.err &&
	grep -q "copied [0-9]* rows of runs" copy.err &&
	json_get copy.json "scalar @{\$j->{tables}}" >actual &&
	echo 20 >expect.n &&
	test_cmp expect.n actual &&
	json_get copy.json "(grep { \$_->{table} eq q(runs) } @{\$j->{tables}})[0]->{rows}" >actual &&
	sqlite3 demo.db "SELECT count(*) FROM runs" >expect.n &&
	test_cmp expect.n actual &&
	reads "$A" actual &&
	test_cmp expect actual
'

test_expect 'migrate PostgreSQL -> SQLite: byte for byte the first file again' '
	"$BENCHLINE" migrate --from "$A" --to back.db 2>back.err &&
	reads back.db actual &&
	test_cmp expect actual &&
	for t in runs metrics tags lines line_ends suspects alerts meta commits; do
		sqlite3 demo.db "SELECT * FROM $t ORDER BY 1" >expect.t &&
		sqlite3 back.db "SELECT * FROM $t ORDER BY 1" >actual.t &&
		test_cmp expect.t actual.t || return 1
	done
'

test_expect 'migrate SQLite -> SQLite keeps every column of every table' '
	"$BENCHLINE" migrate --from demo.db --to same.db 2>/dev/null &&
	sqlite3 demo.db .dump | grep "^INSERT" >expect.dump &&
	sqlite3 same.db .dump | grep "^INSERT" >actual.dump &&
	test_cmp expect.dump actual.dump
'

test_expect 'detect --all on the PostgreSQL copy finds what it finds on the file' '
	"$BENCHLINE" --db demo.db detect --all >expect.d &&
	"$BENCHLINE" --db "$A" detect --all >actual.d &&
	test_cmp expect.d actual.d &&
	"$BENCHLINE" --db demo.db suspects --json >expect.s &&
	"$BENCHLINE" --db "$A" suspects --json >actual.s &&
	test_cmp expect.s actual.s
'

test_expect 'a target that holds a history is refused, and nothing is written' '
	db_before=$(psql -X -A -t "$A" -c "SELECT count(*) FROM runs") &&
	expect_exit 2 "$BENCHLINE" migrate --from demo.db --to "$A" 2>err &&
	grep -q "already holds a history" err &&
	test "$(psql -X -A -t "$A" -c "SELECT count(*) FROM runs")" = "$db_before" &&
	expect_exit 2 "$BENCHLINE" migrate --from demo.db --to demo.db 2>err &&
	grep -q "same database" err &&
	expect_exit 2 "$BENCHLINE" migrate --from missing.db --to x.db 2>err &&
	grep -q "no database at .missing.db." err &&
	test ! -e x.db
'

test_expect 'a password in the URL is never printed' '
	psql -X -q "$PG" -c "ALTER USER benchline PASSWORD '"'"'s3cret'"'"'" &&
	B=$(newdb b) &&
	echo "$B" >b.url &&
	"$BENCHLINE" --db "$(echo "$B" | sed "s|//benchline@|//benchline:s3cret@|")" init >out 2>&1 &&
	grep -q "t1300_b. at schema version" out &&
	! grep -q s3cret out &&
	D=$(newdb d) &&
	expect_exit 2 "$BENCHLINE" --db "$(echo "$D" | sed "s|//benchline@|//benchline:s3cret@|")" \
		serve --port 0 >out 2>&1 &&
	grep -q "no database at .postgresql://benchline@127.0.0.1:[0-9]*/t1300_d." out &&
	! grep -q s3cret out
'

test_expect 'check: both stores hold, and a broken invariant is named with exit 1' '
	"$BENCHLINE" --db demo.db check >out.f &&
	"$BENCHLINE" --db "$A" check >out.p &&
	test_cmp out.f out.p &&
	grep -q "^ok: [0-9]* runs" out.p &&
	psql -X -q "$A" -c "SET session_replication_role = replica;
		DELETE FROM metrics WHERE run_id = (SELECT min(run_id) FROM records)" &&
	expect_exit 1 "$BENCHLINE" --db "$A" check >out 2>err &&
	grep -q "problem: runs without their primary metric (1 rows)" out &&
	grep -q "checks failed" err
'

test_expect 'a database on PostgreSQL that benchline never made is refused by readers' '
	C=$(newdb c) &&
	expect_exit 2 "$BENCHLINE" --db "$C" records 2>err &&
	grep -q "no benchline database at .postgresql://benchline@127.0.0.1:[0-9]*/t1300_c." err &&
	expect_exit 2 "$BENCHLINE" --db "${PG%/*}/t1300_nowhere" records 2>err &&
	grep -q "cannot connect to" err
'

test_done

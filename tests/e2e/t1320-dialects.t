#!/bin/sh
# The two dialects of the store (docs/architecture.md, "The store"): the PostgreSQL texts
# (sql/pg/'s overrides and those store/embed-sql.sh derives) against sql/ on a real PostgreSQL
# server. The schemas are the same (tests/pg/schema-equal.pl), the triggers leave the same
# change log, meta rows, alerts and Suspects (triggers-equal.pl), the placement rule places
# alike (places-equal.pl), every named statement prepares (prepare-all.pl), and every statement
# gives the same rows on the same history (compare-q1.sh, compare-q2.sh).
. "$(dirname "$0")/lib.sh"

pg_test_server || { echo 'Bail out! no PostgreSQL server'; exit 1; }
PGT=$ROOT/tests/pg
export BENCHLINE

# fresh NAME: the URL of a new, empty database on the server.
fresh() {
	psql -X -q "$PG" -c "DROP DATABASE IF EXISTS t1320_$1 WITH (FORCE)" \
		-c "CREATE DATABASE t1320_$1" >/dev/null 2>&1 && echo "${PG%/*}/t1320_$1"
}
"$BENCHLINE" --db lite.db init >/dev/null || { echo 'Bail out! cannot make a database'; exit 1; }

test_expect 'the schemas are the same' '
	perl "$PGT/schema-equal.pl" --apply "$(fresh schema)" lite.db >out 2>&1 ||
		{ cat out; return 1; }
'

test_expect 'the triggers leave the same change log, meta rows, alerts and Suspects' '
	perl "$PGT/triggers-equal.pl" --apply "$(fresh triggers)" lite.db >out 2>&1 ||
		{ cat out; return 1; }
'

test_expect 'the placement rule places every run alike' '
	perl "$PGT/places-equal.pl" --apply "$(fresh places)" lite.db >out 2>&1 ||
		{ cat out; return 1; }
'

test_expect 'every named statement'"'"'s PostgreSQL text, derived or not, prepares on the schema' '
	U=$(fresh prepare) &&
	"$BENCHLINE" --db "$U" init >/dev/null &&
	pg_statements pg-sql &&
	perl "$PGT/prepare-all.pl" "$U" pg-sql/*.sql >out 2>&1 ||
		{ grep "^not ok" out; return 1; } &&
	test "$(grep -c "^ok " out)" = "$(cat "$ROOT"/sql/[a-z]*.sql | grep -c "^-- name: ")"
'

test_expect 'the statements of queries, admin, web, series and gate give the same rows' '
	sh "$PGT/compare-q1.sh" "$PG" >out 2>&1 || { grep -v "^ok" out; return 1; }
'

test_expect 'the statements of detect, alerts and regressions give the same rows' '
	sh "$PGT/compare-q2.sh" "$PG" >out 2>&1 || { grep -v "^ok" out | tail -20; return 1; }
'

test_done

#!/bin/sh
# A lost PostgreSQL connection (§13): the test terminates the server's backends
# (pg_terminate_backend) while the database takes no new connection, so the server cannot make
# them again at once. Every kind of request is then answered 503 with Retry-After, never 500,
# and no answer names the database's URL (the server's log does); once the database takes
# connections again, the next request is answered. A password in a URL is never printed.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/e2e/serve-lib.sh"

pg_test_server || { echo 'Bail out! no PostgreSQL server'; exit 1; }
psql -X -q "$PG" -c "DROP DATABASE IF EXISTS t1330 WITH (FORCE)" -c "CREATE DATABASE t1330" \
	>/dev/null 2>&1 || { echo 'Bail out! cannot make a database'; exit 1; }
DB=${PG%/*}/t1330
BENCHLINE_DB=$DB
export BENCHLINE_DB
printf 'tok\n' >tokens
{ record m1 b1 1 100 && record m1 b1 2 101; } >two.json
{ bl init && bl ingest two.json; } >setup.log 2>&1 || { cat setup.log; echo 'Bail out! no history'; exit 1; }
serve_start s1 --token-file tokens --timeout 10 || exit 1

# connections on|off: whether the database takes new connections; off also terminates the
# server's backends.
connections() {
	if [ "$1" = off ]; then
		psql -X -q "$PG" -c "ALTER DATABASE t1330 ALLOW_CONNECTIONS false" &&
			psql -X -A -t "$PG" -c "SELECT count(pg_terminate_backend(pid)) > 0
				FROM pg_stat_activity WHERE datname = 't1330' AND pid <> pg_backend_pid()" |
			grep -qx t
	else
		psql -X -q "$PG" -c "ALTER DATABASE t1330 ALLOW_CONNECTIONS true"
	fi
}
# answer METHOD PATH [CURL-ARGS...]: "STATUS RETRY-AFTER" of the answer, its body in ./body.
answer() {
	m=$1 p=$2
	shift 2
	curl -s --max-time 30 -X "$m" -D headers -o body "$@" "$URL$p" >/dev/null &&
		echo "$(sed -n '1s/^HTTP[^ ]* \([0-9]*\).*/\1/p' headers)" \
			"$(sed -n 's/^Retry-After: *\([0-9]*\).*/\1/ip' headers)"
}
# names_nothing: the body names neither the database nor its server.
names_nothing() {
	! grep -q "postgres\|t1330\|127\.0\.0\.1\|$TMP" body || { echo "the body names it:"; cat body; return 1; }
}

test_expect 'the database gone: every kind of request is a 503 with Retry-After, naming nothing' '
	connections off &&
	for route in "GET /api/series" "GET /api/records" "GET /" "GET /suspects" \
		"GET /series/m1/b1/c/t" "GET /api/alerts"; do
		answer $route >actual &&
		echo "503 5" >expect &&
		test_cmp expect actual && names_nothing || { echo "$route"; return 1; }
	done &&
	record m1 b2 3 100 >three.json &&
	answer POST /api/records -H "Authorization: Bearer tok" --data-binary @three.json >actual &&
	test_cmp expect actual && names_nothing &&
	grep -q "the database cannot be reached" body &&
	grep -q "postgresql://benchline@127.0.0.1:[0-9]*/t1330" s1.err
'
test_expect 'the database back: the next request is answered, and the push stored' '
	connections on &&
	answer GET /api/series >actual &&
	echo "200 " >expect &&
	test_cmp expect actual &&
	answer POST /api/records -H "Authorization: Bearer tok" --data-binary @three.json >actual &&
	echo "201 " >expect &&
	test_cmp expect actual &&
	answer GET / >actual &&
	echo "200 " >expect &&
	test_cmp expect actual
'
test_expect 'a password in the URL, as user:PASSWORD@ or ?password=, is never printed' '
	expect_exit 2 "$BENCHLINE" --db "${PG%/*}/t1330_none?password=s3cret&sslmode=disable" records \
		>out 2>&1 &&
	grep -q "postgresql://benchline@127.0.0.1:[0-9]*/t1330_none?sslmode=disable" out &&
	! grep -q s3cret out &&
	expect_exit 2 "$BENCHLINE" --db "$(echo "${PG%/*}/t1330_none" | sed "s|//benchline@|//benchline:s3cret@|")" \
		records >out 2>&1 &&
	grep -q "postgresql://benchline@127.0.0.1:[0-9]*/t1330_none" out &&
	! grep -q s3cret out
'
test_done

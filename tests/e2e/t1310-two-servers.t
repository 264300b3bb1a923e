#!/bin/sh
# Several servers, one PostgreSQL database (issue 16, docs/deploy.md): two `benchline serve`
# on the same database take 8 concurrent pushers between them; every acknowledged record is
# stored once, both servers read the same history, the Suspects the pushes make are found once
# (the Suspects the two background detections report add up to those stored) and agree with a
# detection of the same history on a file; then kill -9 of a server in the middle of pushes
# loses no acknowledged push and leaves every invariant holding (`benchline check`). A server
# whose connections the database dropped makes them again.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/e2e/serve-lib.sh"

pg_test_server || { echo 'Bail out! no PostgreSQL server'; exit 1; }
psql -X -q "$PG" -c "DROP DATABASE IF EXISTS t1310 WITH (FORCE)" -c "CREATE DATABASE t1310" \
	>/dev/null 2>&1 || { echo 'Bail out! cannot make a database'; exit 1; }
DB=${PG%/*}/t1310
BENCHLINE_DB=$DB
export BENCHLINE_DB
q() {
	psql -X -A -t "$DB" -c "$1"
}

# records PUSHER FILE: 20 native records of their own benchmarks (pPUSHER-fFILE-bK), commit
# and source FILE; pusher 1's file 9 is a step on benchmark "step" (flat before it).
records() {
	perl -e '
		my ($p, $f) = @ARGV;
		my $c = sprintf("%040d", $f);
		my @r;
		for my $k (1 .. 20) {
			push @r, [sprintf("p%d-f%d-b%d", $p, $f, $k), 100 + $k];
		}
		push @r, ["step", $f >= 9 ? 150 : 100 + $f % 2] if $p == 1;
		for (@r) {
			printf(qq({"schema": 1, "machine": "m%d", "benchmark": "%s", "harness_version": 1, ) .
			    qq("source": {"commit": "%s", "source_hash": "%s", "branch": "main", ) .
			    qq("committed_at": "2026-11-%02dT00:00:00Z"}, "started_at": "2026-11-%02dT01:00:00Z", ) .
			    qq("metrics": {"wall_ms": {"kind": "timed", "unit": "ms", "median": %s}}}\n),
			    $p, $_->[0], $c, $c, $f, $f, $_->[1]);
		}' "$1" "$2"
}

printf 'tok * push\n' >tokens
test_expect 'setup: two servers on one PostgreSQL database' '
	serve_start s1 --create --token-file tokens --timeout 10 &&
	echo "$URL" >s1.url &&
	serve_start s2 --token-file tokens --timeout 10 &&
	echo "$URL" >s2.url &&
	! test "$(cat s1.url)" = "$(cat s2.url)"
'

# pusher P N: pushes files 1..N, odd pushers to s1 and even ones to s2 (alternating by file),
# writing "FILE STATUS" lines to pusher.P.
pusher() {
	for f in $(seq 1 "$2"); do
		if [ $((($1 + f) % 2)) = 0 ]; then u=$(cat s1.url); else u=$(cat s2.url); fi
		records "$1" "$f" >"push.$1.$f.jsonl"
		code=$(curl -s --max-time 60 -o /dev/null -w "%{http_code}" -H "Authorization: Bearer tok" \
			--data-binary "@push.$1.$f.jsonl" "$u/api/records")
		echo "$f $code"
	done >"pusher.$1"
}

test_expect '8 pushers between the two: every acknowledged record stored once' '
	for p in 1 2 3 4 5 6 7 8; do pusher $p 12 & done; wait &&
	cat pusher.* | awk "{ print \$2 }" | sort | uniq -c | sed "s/^ *//" >actual &&
	echo "96 201" >expect &&
	test_cmp expect actual &&
	q "SELECT count(*), count(DISTINCT digest) FROM runs" >actual &&
	echo "1932|1932" >expect &&
	test_cmp expect actual &&
	q "SELECT count(*) FROM records" >actual &&
	echo 1932 >expect &&
	test_cmp expect actual
'

test_expect 'both servers read the same history, and detection found the step once' '
	URL=$(cat s1.url) && serve_idle 60 &&
	URL=$(cat s2.url) && serve_idle 60 &&
	URL=$(cat s1.url) && serve_idle 60 &&
	curl -s "$(cat s1.url)/api/records?limit=5000" >r1 &&
	curl -s "$(cat s2.url)/api/records?limit=5000" >r2 &&
	test_cmp r1 r2 &&
	curl -s "$(cat s1.url)/api/suspects" >su1 &&
	curl -s "$(cat s2.url)/api/suspects" >su2 &&
	test_cmp su1 su2 &&
	json_get su1 "join q( ), map { \$_->{benchmark} . q(:) . \$_->{side} } @\$j" >actual &&
	echo "step:slower" >expect &&
	test_cmp expect actual &&
	n1=$(curl -s "$(cat s1.url)/api/status" | json_get - "\$j->{detect}{new_suspects}") &&
	n2=$(curl -s "$(cat s2.url)/api/status" | json_get - "\$j->{detect}{new_suspects}") &&
	test "$((n1 + n2))" = "$(q "SELECT count(*) FROM suspects")" &&
	q "SELECT count(*) FROM detect_log" >actual &&
	echo 0 >expect &&
	test_cmp expect actual
'

test_expect 'detection of the same history on a file finds the same Suspects' '
	"$BENCHLINE" migrate --from "$DB" --to file.db 2>/dev/null &&
	"$BENCHLINE" --db file.db detect --all >/dev/null &&
	"$BENCHLINE" --db file.db suspects --json >expect &&
	"$BENCHLINE" --db "$DB" suspects --json >actual &&
	test_cmp expect actual
'

test_expect 'connections the database dropped are made again on the next request' '
	curl -s "$(cat s1.url)/api/records?limit=7" >expect &&
	killed=$(psql -X -A -t "$PG" -c "SELECT count(pg_terminate_backend(pid)) > 0
		FROM pg_stat_activity WHERE datname = '"'"'t1310'"'"' AND pid <> pg_backend_pid()") &&
	test "$killed" = t &&
	curl -s "$(cat s1.url)/api/records?limit=7" >actual &&
	test_cmp expect actual &&
	curl -s -o series.out -w "%{http_code}\n" "$(cat s2.url)/api/series" >actual &&
	echo 200 >expect &&
	test_cmp expect actual
'

test_expect 'kill -9 of a server mid-push: every acknowledged push is there, check holds' '
	for p in 1 2 3 4; do
		(
			for f in $(seq 20 40); do
				records "$p" "$f" >"late.$p.$f.jsonl"
				code=$(curl -s --max-time 30 -o /dev/null -w "%{http_code}" \
					-H "Authorization: Bearer tok" --data-binary "@late.$p.$f.jsonl" \
					"$(cat s2.url)/api/records")
				echo "$f $code"
			done >"late.$p"
		) &
	done &&
	i=0 && while [ "$(cat late.* 2>/dev/null | grep -c " 201")" -lt 8 ] && [ $i -lt 300 ]; do
		sleep 0.1; i=$((i + 1)); done &&
	kill -9 "$(cat s2.pid)" && wait &&
	acked=$(cat late.* | grep -c " 201") && test "$acked" -ge 8 &&
	for p in 1 2 3 4; do
		grep " 201$" late.$p | while read -r f code; do
			test "$(q "SELECT count(*) FROM runs u JOIN benchmarks b ON b.id = u.benchmark_id
				WHERE b.name LIKE '"'"'p$p-f$f-b%'"'"'")" = 20 || { echo "lost p$p f$f"; exit 1; }
		done || return 1
	done &&
	q "SELECT count(*) FROM benchmarks b WHERE b.name ~ '"'"'-f(2[0-9]|3[0-9]|40)-'"'"'
		AND (SELECT count(*) FROM runs u WHERE u.benchmark_id = b.id) <> 1" >actual &&
	echo 0 >expect &&
	test_cmp expect actual &&
	"$BENCHLINE" --db "$DB" check >out &&
	grep -q "^ok: " out &&
	URL=$(cat s1.url) && serve_stop s1
'

test_done

#!/bin/sh
# The fleet (§10, §11; docs/sweep.md): two sweep machines push to one real server on a
# loopback port. Both sweep the same repository with a real benchmark program and every record
# lands once; a docs-only commit is not measured again; a sweep while the server is down keeps
# its records in the spool and the next command pushes them first; the server detects after
# a push with no other command; a planted slowdown is confirmed from the sweep machine and shows
# as a Regression on the server; a token without the confirm role is refused (403). The metric
# judged is the program's iteration count ("work").
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/e2e/serve-lib.sh"
. "$TESTS_DIR/e2e/bench-lib.sh"

# c0; k1..k5 comments; then, test by test, d1 docs; s1 15% more work; k6, k7.
(
	set -e
	bench_repo
	comment_commits 1 5
) >setup.log 2>&1 || { cat setup.log; echo 'Bail out! cannot build the test repository'; exit 1; }
c0=$(cat c0)
cat >repo/benchline.json <<'EOF2'
{"measured_paths": ["bench.c"], "unmeasured_paths": ["docs", ".gitignore"],
 "metrics": ["work"],
 "bench": {"build": "cc -O2 -o bench bench.c", "run": "./bench", "processes": 1}}
EOF2
printf 'tok-a m-a push,confirm\ntok-b m-b push\n' >tokens
echo tok-a >a.token
echo tok-b >b.token
serve_start srv --create --token-file tokens --timeout 10 --repo "$TMP/repo" --sync-interval 1 || exit 1
echo "$URL" >url

# The tests run in subshells: the server's URL (it changes when it restarts) is kept in ./url.
url() {
	URL=$(cat "$TMP/url")
}

# on MACHINE ARGS...: a benchline command of the sweep machine MACHINE (its own spool), talking
# to the server at $URL with its token.
on() {
	url
	m=$1
	shift
	XDG_STATE_HOME="$TMP/state-$m" "$BENCHLINE" "$@" --machine "m-$m" --server "$URL" \
		--token-file "$TMP/$m.token"
}

# push_as MACHINE ARGS...: `benchline push` of the sweep machine MACHINE.
push_as() {
	url
	m=$1
	shift
	XDG_STATE_HOME="$TMP/state-$m" "$BENCHLINE" push "$@" --server "$URL" \
		--token-file "$TMP/$m.token"
}

# server_records: "MACHINE COMMIT-SHORT" per standing record on the server, sorted.
server_records() {
	url
	curl -s "$URL/api/records?limit=1000" |
		json_get - 'join "", sort map { "$_->{machine} " . substr($_->{commit}, 0, 7) . "\n" } @{$j->{records}}' |
		sed '/^$/d'
}

test_expect 'two machines sweep the same history: every record lands once' '
	on a sweep --repo repo --since "$c0" --no-preflight >a.out 2>a.err &&
	on b sweep --repo repo --since "$c0" --no-preflight >b.out 2>b.err &&
	tail -1 a.err >actual &&
	echo "sweep: 5 commits measured (0 already measured, 0 unbuildable), 5 runs pushed to $URL" >expect &&
	test_cmp expect actual &&
	tail -1 b.err | grep -q "^sweep: 5 commits measured (0 already measured, 0 unbuildable), 5 runs pushed" &&
	serve_idle &&
	server_records >actual &&
	for m in m-a m-b; do
		for k in k1 k2 k3 k4 k5; do echo "$m $(cut -c1-7 $k)" || return 1; done
	done | sort >expect &&
	test_cmp expect actual
'

test_expect 'a docs-only commit is not measured again; a second sweep pushes nothing' '
	echo "more notes" >>repo/docs/notes.md &&
	git -C repo add -A && git -C repo commit -q -m "docs only" &&
	on a sweep --repo repo --no-preflight >out 2>err &&
	tail -1 err >actual &&
	echo "sweep: 0 commits measured (1 already measured, 0 unbuildable), 0 runs pushed to $URL" >expect &&
	test_cmp expect actual
'

test_expect 'the server down: the records wait in the spool; the next command pushes them first' '
	serve_stop srv &&
	echo "/* comment 6 */" >>repo/bench.c &&
	git -C repo add -A && git -C repo commit -q -m "comment 6" &&
	git -C repo rev-parse HEAD >k6 &&
	expect_exit 3 on a sweep --repo repo --no-preflight --retries 1 >out 2>err &&
	grep -q "kept in the spool as" err &&
	ls state-a/benchline/spool/*.json >spooled &&
	test "$(wc -l <spooled)" = 1 &&
	cp "$(cat spooled)" night.json &&
	serve_start srv2 --token-file tokens --timeout 10 --repo "$TMP/repo" --sync-interval 1 &&
	echo "$URL" >url &&
	push_as a --spool >out 2>err &&
	test -z "$(ls state-a/benchline/spool/*.json 2>/dev/null)" &&
	serve_idle &&
	server_records | grep -c "^m-a $(cut -c1-7 k6)\$" >actual &&
	echo 1 >expect &&
	test_cmp expect actual &&
	push_as a night.json >out 2>err &&
	grep -q "already stored" out &&
	server_records | grep -c "^m-a " >actual &&
	echo 6 >expect &&
	test_cmp expect actual
'

test_expect 'a push is followed by new Suspects on the server, with no other command' '
	more_work &&
	git -C repo add -A && git -C repo commit -q -m "15% more work (#9)" &&
	git -C repo rev-parse HEAD >s1 &&
	echo "/* comment 7 */" >>repo/bench.c &&
	git -C repo add -A && git -C repo commit -q -m "comment 7" &&
	git -C repo rev-parse HEAD >k7 &&
	url &&
	on a sweep --repo repo --no-preflight >out 2>err &&
	on b sweep --repo repo --since "$c0" --no-preflight >out 2>err &&
	i=0 &&
	while ! curl -s "$URL/api/suspects" | grep -q "\"machine\":\"m-a\""; do
		i=$((i + 1)); test $i -le 200 || { echo "no Suspect appeared"; return 1; }
		sleep 0.1
	done &&
	serve_idle &&
	curl -s "$URL/api/alerts?machine=m-a&state=pending" | json_get - "join q( ), scalar @\$j, \$j->[0]{commit}" >actual &&
	echo "1 $(cat k7)" >expect &&
	test_cmp expect actual
'

test_expect 'confirm from the sweep machine: the Regression is on the server' '
	url &&
	on a confirm --repo repo --pending --json >c.json 2>c.err &&
	json_get c.json "join q( ), scalar @\$j, \$j->[0]{outcome}, scalar @{\$j->[0]{regressions}}" >actual &&
	echo "1 confirmed 1" >expect &&
	test_cmp expect actual &&
	curl -s "$URL/api/regressions" | json_get - "join q( ), scalar @\$j, \$j->[0]{machine}, \$j->[0]{commit}, \$j->[0]{pull_request}" >actual &&
	echo "1 m-a $(cat s1) 9" >expect &&
	test_cmp expect actual &&
	curl -s "$URL/api/alerts?machine=m-a" | json_get - "\$j->[0]{state}" >actual &&
	echo covered >expect &&
	test_cmp expect actual
'

test_expect 'a token without the confirm role cannot post an outcome (403)' '
	url &&
	serve_idle &&
	curl -s "$URL/api/alerts?machine=m-b&state=pending" | json_get - "scalar @\$j" >n &&
	test "$(cat n)" = 1 &&
	expect_exit 2 on b confirm --repo repo --pending >out 2>err &&
	grep -q "answered 403" err
'

test_expect 'docs/examples/two-machines.sh runs as docs/sweep.md shows it' '
	BENCHLINE="$BENCHLINE" sh "$ROOT/docs/examples/two-machines.sh" >ex.out 2>ex.err &&
	sed "s|http://127.0.0.1:[0-9]*|URL|" ex.out >actual &&
	cat >expect <<-\EOF &&
	== the first night: both machines fill the history
	sweep: 5 commits measured (0 already measured, 0 unbuildable), 5 runs pushed to URL
	sweep: 5 commits measured (0 already measured, 0 unbuildable), 5 runs pushed to URL
	records on the server: 10
	== a docs-only change: nothing to measure
	sweep: 0 commits measured (1 already measured, 0 unbuildable), 0 runs pushed to URL
	== a commit doing 15% more work, then one more night
	sweep: 1 commit measured (0 already measured, 0 unbuildable), 1 run pushed to URL
	sweep: 1 commit measured (0 already measured, 0 unbuildable), 1 run pushed to URL, 1 alert confirmed (1 Regression)
	== the Regressions on the server
	m-a loop work: +15.0%, pull request #9
	and the subject of the commit it pinned: 15% more work (#9)
	EOF
	test_cmp expect actual
'

test_expect 'confirm --server with no server there: exit 2, naming the URL' '
	expect_exit 2 env XDG_STATE_HOME="$TMP/state-a" "$BENCHLINE" confirm --repo repo \
		--machine m-a --server http://127.0.0.1:9 --token-file "$TMP/a.token" 2>err &&
	grep -q "cannot reach .http://127.0.0.1:9/api/alerts" err
'

# The restarted server, stopped cleanly before the directory goes.
[ ! -f srv2.pid ] || serve_stop srv2

test_done

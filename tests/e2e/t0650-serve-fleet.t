#!/bin/sh
# The server of a fleet (§11): pushed records become Suspects and alerts with no other command
# (detection in the background), `serve --repo` keeps main synced, token roles, the records,
# alerts and Regressions as JSON with their filters, confirm outcomes posted by a sweep machine
# and stored as a local confirm stores them, and a harness's own output pushed with ?format=.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/e2e/serve-lib.sh"

printf 'tok-all\ntok-push * push\ntok-conf * confirm\ntok-m1 m1 push,confirm\n' >tokens
serve_start fleet --create --token-file tokens --timeout 5 || exit 1

# post TOKEN PATH FILE: POSTs FILE, prints the status; the body goes to ./body.
post() {
	curl -s --max-time 20 -o body -w '%{http_code}' -H "Authorization: Bearer $1" \
		--data-binary "@$3" "$URL$2"
}
# wait_for PATH PERL-EXPR: polls GET PATH (every 0.2 s, up to 20 s) until EXPR holds of its
# JSON ($j); the last answer stays in ./got. Never a timing assertion: only a bound.
wait_for() {
	i=0
	while :; do
		curl -s --max-time 5 -o got "$URL$1" &&
			test "$(json_get got "($2) ? 1 : 0" 2>/dev/null)" = 1 && return 0
		i=$((i + 1))
		[ $i -lt 100 ] || { echo "gave up waiting on $1 for: $2" >&2; cat got >&2; return 1; }
		sleep 0.2
	done
}
flat="100 101 99 100 100 101 99 100"

test_expect 'pushed records become a Suspect and an alert, with no other command' '
	wall_records m1 parse 1 $flat >flat.jsonl &&
	test "$(post tok-all /api/records flat.jsonl)" = 201 &&
	wall_records m1 parse 9 130 131 130 129 130 >step.jsonl &&
	test "$(post tok-all /api/records step.jsonl)" = 201 &&
	wait_for /api/suspects "grep { \$_->{machine} eq q(m1) && \$_->{benchmark} eq q(parse) } @\$j" &&
	json_get got "\$j->[0]{side} . q( ) . \$j->[0]{state} . q( ) . substr(\$j->[0]{commit}, -2)" >actual &&
	echo "slower open 09" >expect &&
	test_cmp expect actual &&
	wait_for /api/alerts "@\$j == 1" &&
	json_get got "\$j->[0]{machine} . q( ) . \$j->[0]{state} . q( ) . join(q(,), @{\$j->[0]{suspects}})" >actual &&
	echo "m1 open $(bl suspects --json | json_get - "\$j->[0]{id}")" >expect &&
	test_cmp expect actual
'
test_expect 'each push is detected in turn; the API is the CLI, byte for byte' '
	wall_records m2 render 1 $flat 140 141 140 139 140 >m2.jsonl &&
	head -n 4 m2.jsonl >a.jsonl && tail -n +5 m2.jsonl >b.jsonl &&
	test "$(post tok-all /api/records a.jsonl)" = 201 &&
	test "$(post tok-all /api/records b.jsonl)" = 201 &&
	wait_for /api/alerts "@\$j == 2" &&
	serve_idle &&
	curl -s "$URL/api/alerts" >api && bl alerts --json >cli && test_cmp cli api &&
	curl -s "$URL/api/suspects" >api && bl suspects --json >cli && test_cmp cli api &&
	curl -s "$URL/api/alerts?machine=m2&state=open" | json_get - "join q(,), map { \$_->{machine} } @\$j" >actual &&
	echo m2 >expect && test_cmp expect actual &&
	bl alerts --json --machine m2 --state open >cli &&
	curl -s "$URL/api/alerts?machine=m2&state=open" >api && test_cmp cli api &&
	curl -s "$URL/api/status" | json_get - "\$j->{state} . q( ) . (\$j->{detect}{new_suspects} >= 2 ? q(ok) : q(few))" >actual &&
	echo "idle ok" >expect && test_cmp expect actual
'
A1=$(bl alerts --json --machine m1 | json_get - '$j->[0]{id}')
A2=$(bl alerts --json --machine m2 | json_get - '$j->[0]{id}')
S9=$(printf '%040d' 9)
S8=$(printf '%040d' 8)

test_expect 'roles: a push-only token cannot post an outcome, a confirm-only one cannot push' '
	echo "{\"outcome\": \"transient\"}" >transient.json &&
	test "$(post tok-push /api/alerts/$A1/outcome transient.json)" = 403 &&
	json_get body "\$j->{error}" | grep -q "roles lack confirm" &&
	test "$(post tok-conf /api/records step.jsonl)" = 403 &&
	json_get body "\$j->{error}" | grep -q "roles lack push" &&
	test "$(post tok-m1 /api/alerts/$A2/outcome transient.json)" = 403 &&
	json_get body "\$j->{error}" | grep -q "may not confirm alerts of machine m2" &&
	test "$(post nope /api/alerts/$A1/outcome transient.json)" = 401 &&
	test "$(bl alerts --json | json_get - "join q(,), map { \$_->{state} } @\$j")" = open,open
'

# The re-bench report a sweep machine sends (rebench --json's shape, the alert's Series slower
# or not) and a pinned bisection of m2 render wall_ms (bisect --json's shape).
rebench() {
	printf '{"schema": 1, "a": {"rev": "%s", "commit": "%s", "source_hash": "%s", "build_s": 1.5},' "$S8" "$S8" "$S8"
	printf ' "b": {"rev": "%s", "commit": "%s", "source_hash": "%s", "build_s": 1.5},' "$S9" "$S9" "$S9"
	printf ' "limit": 1.02, "verdict": "%s", "status": "%s", "identical_artifacts": false,' "$2" "$2"
	printf ' "measurements": 1, "pairs": 10, "metrics": [{"key": "%s wall_ms", "better": "lower",' "$1"
	printf ' "verdict": "%s", "ratio": 1.4, "ci_low": 1.39, "ci_high": 1.41, "pairs": 10,' "$2"
	printf ' "measurements": 1, "slower_votes": 0, "clear_votes": 1, "undecided_votes": 0}],'
	printf ' "benchmarks": []}'
}
bisect() {
	printf '{"schema": 1, "outcome": "pinned", "status": "pinned",'
	printf ' "good": {"rev": "%s", "commit": "%s", "source_hash": "%s"},' "$S8" "$S8" "$S8"
	printf ' "bad": {"rev": "%s", "commit": "%s", "source_hash": "%s"}, "candidates": 1,' "$S9" "$S9" "$S9"
	printf ' "pinned": {"commit": "%s", "source_hash": "%s", "subject": "render twice (#42)",' "$S9" "$S9"
	printf ' "pull_request": 42}, "ratio": 1.4, "interval": [1.39, 1.41], "remaining_range": null,'
	printf ' "range": {"good": "%s", "bad": "%s", "commits": 1, "distinct_sources": 1, "remaining": []},' "$S8" "$S9"
	printf ' "probes": [{"commit": "%s", "source_hash": "%s", "verdict": "slower", "skipped": null,' "$S9" "$S9"
	printf ' "identical_artifacts": false, "metric": "render wall_ms", "ratio": 1.4,'
	printf ' "interval": [1.39, 1.41], "ci_low": 1.39, "ci_high": 1.41, "pairs": 30}]}'
}

test_expect 'an outcome posted for an alert is stored as a local confirm stores it (cleared)' '
	{ printf "{\"outcome\": \"cleared\", \"note\": \"measured on m1\", \"rebench\": "; rebench parse same; printf "}"; } >cleared.json &&
	test "$(post tok-m1 /api/alerts/$A1/outcome cleared.json)" = 200 &&
	json_get body "join q( ), \$j->{alert}, \$j->{state}, \$j->{outcome}, scalar @{\$j->{regressions}}" >actual &&
	echo "$A1 cleared cleared 0" >expect && test_cmp expect actual &&
	bl alerts --json --state cleared | json_get - "\$j->[0]{id} . q( ) . \$j->[0]{outcome}" >actual &&
	echo "$A1 cleared" >expect && test_cmp expect actual &&
	bl suspects --json | json_get - "join q(,), map { \$_->{state} } grep { \$_->{machine} eq q(m1) } @\$j" >actual &&
	echo cleared >expect && test_cmp expect actual &&
	db_sql "$BENCHLINE_DB" "SELECT note FROM alerts WHERE id = $A1" >actual &&
	db_sql "$BENCHLINE_DB" "SELECT rebench FROM alerts WHERE id = $A1" | json_get - "\$j->{status}" >>actual &&
	printf "measured on m1\nsame\n" >expect && test_cmp expect actual
'
test_expect 'a confirmed outcome with a pinned bisection is a Regression covering the alert' '
	{ printf "{\"outcome\": \"confirmed\", \"rebench\": "; rebench render slower
	  printf ", \"regressions\": [{\"benchmark\": \"render\", \"config\": \"\", \"metric\": \"wall_ms\", \"bisect\": "
	  bisect; printf "}]}"; } >confirmed.json &&
	test "$(post tok-conf /api/alerts/$A2/outcome confirmed.json)" = 200 &&
	json_get body "join q( ), \$j->{state}, \$j->{outcome}, scalar @{\$j->{regressions}}" >actual &&
	echo "covered confirmed 1" >expect && test_cmp expect actual &&
	R=$(json_get body "\$j->{regressions}[0]") &&
	curl -s "$URL/api/regressions" >api && bl regressions --json >cli && test_cmp cli api &&
	json_get api "join q( ), map { \$_->{id}, \$_->{alert}, \$_->{machine}, \$_->{benchmark}, \$_->{metric}, substr(\$_->{commit}, -2), substr(\$_->{reference_commit}, -2), \$_->{pull_request}, \$_->{ratio}, scalar @{\$_->{probes}} } @\$j" >actual &&
	echo "$R $A2 m2 render wall_ms 09 08 42 1.4 1" >expect && test_cmp expect actual &&
	curl -s "$URL/api/alerts?state=covered" | json_get - "\$j->[0]{id}" >actual &&
	echo "$A2" >expect && test_cmp expect actual &&
	curl -s "$URL/api/regressions?machine=m2&benchmark=render&commit=00000000" | json_get - "scalar @\$j" | grep -qx 1 &&
	curl -s "$URL/api/regressions?alert=$A2" | json_get - "scalar @\$j" | grep -qx 1 &&
	curl -s "$URL/api/regressions?machine=m1" | json_get - "scalar @\$j" | grep -qx 0 &&
	curl -s "$URL/api/regressions?commit=ffff" | json_get - "scalar @\$j" | grep -qx 0
'
test_expect 'posting the same outcome again stores nothing new' '
	serve_idle &&
	db_dump | grep -v "^INSERT INTO meta\|detect_" >before &&
	test "$(post tok-conf /api/alerts/$A2/outcome confirmed.json)" = 200 &&
	json_get body "\$j->{regressions}[0]" >actual &&
	bl regressions --json | json_get - "\$j->[0]{id}" >expect && test_cmp expect actual &&
	serve_idle &&
	db_dump | grep -v "^INSERT INTO meta\|detect_" >after &&
	test_cmp before after
'
test_expect 'a bad outcome document is a 400 naming the field; nothing is stored' '
	serve_idle &&
	db_dump >before &&
	bad() { printf "%s" "$2" >bad.json; test "$(post tok-all /api/alerts/$1/outcome bad.json)" = 400 &&
		json_get body "\$j->{error}"; } &&
	bad $A1 "{\"outcome\": \"fixed\"}" | grep -q "^outcome: .fixed. is not one of" &&
	bad $A1 "{\"outcome\": \"cleared\"}" | grep -q "^rebench: a cleared outcome needs" &&
	bad $A1 "{\"outcome\": \"cleared\", \"rebench\": null, \"extra\": 1}" | grep -q "unknown key .extra." &&
	bad $A1 "{\"outcome\": \"transient\", \"regressions\": [{}]}" | grep -q "^regressions\[0\]: unknown key\|^regressions\[0\].benchmark: missing" &&
	sed "s/\"benchmark\": \"render\"/\"benchmark\": \"parse\"/" confirmed.json >other.json &&
	test "$(post tok-all /api/alerts/$A2/outcome other.json)" = 400 &&
	json_get body "\$j->{error}" | grep -q "^regressions\[0\]: alert $A2 has no Suspect on parse wall_ms" &&
	sed "s/\"status\": \"pinned\"/\"status\": \"inconclusive\"/" confirmed.json >open.json &&
	test "$(post tok-all /api/alerts/$A2/outcome open.json)" = 400 &&
	json_get body "\$j->{error}" | grep -q "^regressions\[0\].bisect.status: .inconclusive., not .pinned." &&
	sed "s/\"commit\": \"$S9\", \"source_hash\": \"$S9\", \"subject\"/\"commit\": \"xyz\", \"source_hash\": \"$S9\", \"subject\"/" confirmed.json >hex.json &&
	test "$(post tok-all /api/alerts/$A2/outcome hex.json)" = 400 &&
	json_get body "\$j->{error}" | grep -q "^regressions\[0\].bisect.pinned.commit: .xyz. is not 40 hex digits" &&
	printf "{\"outcome\": " >trunc.json &&
	test "$(post tok-all /api/alerts/$A2/outcome trunc.json)" = 400 &&
	json_get body "\$j->{error}" | grep -q "^request:1:" &&
	test "$(post tok-all /api/alerts/$A2/outcome transient.json)" = 409 &&
	json_get body "\$j->{error}" | grep -q "holds 1 Regression already" &&
	db_dump >after &&
	test_cmp before after
'
test_expect 'an unknown alert is a 404; the outcome route takes only POST' '
	test "$(post tok-all /api/alerts/999/outcome transient.json)" = 404 &&
	json_get body "\$j->{error}" | grep -qx "no alert 999" &&
	expect_status 405 application/json GET "$URL/api/alerts/$A1/outcome" &&
	expect_status 404 application/json POST "$URL/api/alerts/x/outcome" -H "Authorization: Bearer tok-all" &&
	expect_status 405 application/json POST "$URL/api/alerts" -H "Authorization: Bearer tok-all"
'

test_expect 'GET /api/records pages by run id: each record once, next until null' '
	bl records --json --all | json_get - "join qq(\n), sort { \$a <=> \$b } map { \$_->{id} } @\$j" >expect &&
	: >actual && after=0 && pages=0 &&
	while :; do
		curl -s "$URL/api/records?all=1&limit=2&after=$after" >page &&
		json_get page "join qq(\n), map { \$_->{id} } @{\$j->{records}}" | sed "/^\$/d" >>actual &&
		after=$(json_get page "\$j->{next}") && pages=$((pages + 1)) &&
		test "$after" != null || break
	done &&
	test_cmp expect actual &&
	test $pages = $(( ($(wc -l <expect) + 1) / 2 )) &&
	curl -s "$URL/api/records?machine=m2&commit=$S9" | json_get - "join q( ), map { \$_->{machine}, \$_->{commit} eq q($S9) ? q(at-9) : q(other), \$_->{metrics}{wall_ms}{median} } @{\$j->{records}}" >actual &&
	echo "m2 at-9 140" >expect && test_cmp expect actual &&
	bl records --json --machine m1 | json_get - "[sort { \$a <=> \$b } map { \$_->{id} } @\$j]" >expect &&
	curl -s "$URL/api/records?machine=m1&limit=1000" | json_get - "[sort { \$a <=> \$b } map { \$_->{id} } @{\$j->{records}}]" >actual &&
	test_cmp expect actual &&
	curl -s "$URL/api/records?machine=m1&limit=1000" | json_get - "\$j->{next}" | grep -qx null &&
	curl -s "$URL/api/records?source_hash=$S8" | json_get - "scalar @{\$j->{records}}" | grep -qx 2
'
test_expect 'GET /api/records, /api/alerts and /api/regressions: a bad parameter is a 400' '
	for q in "records?limit=0" "records?limit=1001" "records?limit=x" "records?after=-1" \
		"records?commit=xyz" "records?commit=abc" "records?all=2" "records?machine=a%20b" \
		"records?nope=1" "alerts?state=fixed" "alerts?machine=" "regressions?alert=0" \
		"regressions?commit=g000" "status?x=1"; do
		expect_status 400 application/json GET "$URL/api/$q" || exit 1
	done &&
	curl -s "$URL/api/records?nope=1" | json_get - "\$j->{error}" >actual &&
	echo "unknown parameter '"'"'nope'"'"' (machine, benchmark, commit, source_hash, all, limit, after)" >expect &&
	test_cmp expect actual &&
	curl -s "$URL/api/records?limit=1001" | json_get - "\$j->{error}" | grep -q "limit: .1001. is not an integer from 1 to 1000" &&
	long=$(perl -e "print q(a) x 4097") &&
	curl -s "$URL/api/records?machine=$long" | json_get - "\$j->{error}" >actual &&
	echo "machine: not percent-encoded UTF-8 of at most 4096 bytes" >expect &&
	test_cmp expect actual
'

test_expect 'POST /api/records?format=gbench stores a harness'"'"'s output' '
	test "$(curl -s -o body -w "%{http_code}" -H "Authorization: Bearer tok-m1" --data-binary @"$FIXTURES/formats/gbench.json" \
		"$URL/api/records?format=gbench&machine=m1&harness_version=3&commit=$S9&source_hash=$S9&config=O2")" = 201 &&
	json_get body "scalar @\$j" >n &&
	test "$(cat n)" -gt 1 &&
	json_get body "\$j->[0]{machine} . q( ) . \$j->[0]{config} . q( ) . \$j->[0]{harness_version} . q( ) . \$j->[0]{outcome}" >actual &&
	echo "m1 O2 3 stands" >expect && test_cmp expect actual &&
	json_get body "join q(,), map { join(q( ), sort @{\$_->{tags}}) eq join(q( ), sort keys %{\$_->{why}}) ? q(ok) : q(differ) } @\$j" >actual &&
	json_get body "join q(,), map { q(ok) } @\$j" >expect && test_cmp expect actual &&
	curl -s "$URL/api/records?machine=m1&commit=$S9&all=1" | json_get - "scalar grep { \$_->{harness_version} == 3 } @{\$j->{records}}" >actual &&
	test_cmp n actual &&
	test "$(curl -s -o body -w "%{http_code}" -H "Authorization: Bearer tok-m1" --data-binary @"$FIXTURES/formats/gbench.json" \
		"$URL/api/records?format=gbench&machine=m2&harness_version=3&commit=$S9&source_hash=$S9")" = 403 &&
	json_get body "\$j->{error}" | grep -q "may not push machine m2" &&
	test "$(curl -s -o body -w "%{http_code}" -H "Authorization: Bearer tok-all" --data-binary @"$FIXTURES/formats/gbench.json" \
		"$URL/api/records?format=gbench&machine=m3&commit=$S9&source_hash=$S9")" = 400 &&
	json_get body "\$j->{error}" | grep -q "no harness version.*harness_version=" &&
	test "$(curl -s -o body -w "%{http_code}" -H "Authorization: Bearer tok-all" --data-binary @"$FIXTURES/formats/gbench.json" \
		"$URL/api/records?format=gbench&machine=m3&harness_version=1&commit=$S9")" = 400 &&
	json_get body "\$j->{error}" | grep -q "source_hash" &&
	test "$(curl -s -o body -w "%{http_code}" -H "Authorization: Bearer tok-all" --data-binary @"$FIXTURES/formats/gbench.json" \
		"$URL/api/records?format=nope&machine=m3")" = 400 &&
	json_get body "\$j->{error}" | grep -q "unknown format .nope." &&
	test "$(post tok-all "/api/records?machine=m1" step.jsonl)" = 400 &&
	test "$(post tok-all "/api/records?formats=gbench" step.jsonl)" = 400
'
test_expect 'a noisy pushed run says why it joins no Series' '
	printf "{\"schema\": 1, \"machine\": \"m1\", \"benchmark\": \"noisy\", \"harness_version\": 1, \"source\": {\"commit\": \"%s\", \"source_hash\": \"%s\"}, \"started_at\": \"2026-11-02T04:00:00Z\", \"metrics\": {\"t\": {\"kind\": \"timed\", \"unit\": \"us\", \"median\": 100, \"p95\": 112}}}\n" $S9 $S9 >noisy.json &&
	test "$(post tok-all /api/records noisy.json)" = 201 &&
	json_get body "\$j->[0]{why}{noisy}" >actual &&
	echo "p95/median 1.12 >= 1.06" >expect && test_cmp expect actual
'
test_expect 'SIGTERM stops the server and its background thread cleanly' '
	serve_stop fleet &&
	if pg_mode; then # (an integrity check is of the file: on PostgreSQL, the alerts are there)
		db_sql "$BENCHLINE_DB" "SELECT count(*) FROM alerts" | grep -qx "[1-9][0-9]*"
	else
		sqlite3 "$BENCHLINE_DB" "PRAGMA integrity_check" | grep -qx ok
	fi
'

# --repo: main synced at start and every --sync-interval, in the background.
git init -q -b main repo &&
	echo one >repo/a && (cd repo && git add a && git commit -qm one) &&
	git -C repo checkout -q -b side && echo two >repo/a && git -C repo commit -qam two &&
	git -C repo checkout -q main || exit 1
C1=$(git -C repo rev-parse main)
C2=$(git -C repo rev-parse side)
BENCHLINE_DB=$(db_url "$TMP/sync.db")
serve_start synced --create --token-file tokens --repo "$TMP/repo" --sync-interval 1 || exit 1
test_expect 'serve --repo syncs main at start: a commit not on it is not-main' '
	wait_for /api/status "\$j->{sync}{commits} && \$j->{sync}{commits} == 1 && \$j->{sync}{interval} == 1" &&
	wall_records m1 synced 1 100 >r1.jsonl && sed "s/0\{39\}1/$C1/g" r1.jsonl >on.json &&
	wall_records m1 synced 2 100 >r2.jsonl && sed "s/0\{39\}2/$C2/g" r2.jsonl >off.json &&
	test "$(post tok-all /api/records on.json)" = 201 &&
	test "$(post tok-all /api/records off.json)" = 201 &&
	json_get body "join q(,), @{\$j->[0]{tags}}" >actual && echo not-main >expect && test_cmp expect actual &&
	json_get body "\$j->[0]{why}{\"not-main\"}" | grep -q "is not on main" &&
	curl -s "$URL/api/records?commit=$C1" | json_get - "\$j->{records}[0]{seq}" >actual &&
	echo 0 >expect && test_cmp expect actual
'
test_expect 'a commit merged into main after start is synced within the interval' '
	git -C repo merge -q --ff-only side &&
	wait_for "/api/records?commit=$C2&all=1" "defined \$j->{records}[0]{seq} && \$j->{records}[0]{seq} == 1 && !@{\$j->{records}[0]{tags}}" &&
	curl -s "$URL/api/status" | json_get - "\$j->{sync}{tip}" >actual &&
	echo "$C2" >expect && test_cmp expect actual &&
	serve_stop synced &&
	grep -q "sync: 1 new commit of main (2 in all)" synced.err
'
test_expect '--sync-interval needs --repo, and it and --lock-timeout their ranges' '
	expect_exit 2 bl serve --sync-interval 5 2>err &&
	grep -q "needs --repo" err &&
	expect_exit 2 bl serve --repo repo --sync-interval 0 2>err &&
	grep -q "sync-interval must be 1 to 86400 seconds, not .0.$" err &&
	expect_exit 2 bl serve --lock-timeout 3601 2>err &&
	grep -q "lock-timeout must be 1 to 3600 seconds, not .3601.$" err
'
test_done

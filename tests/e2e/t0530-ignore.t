#!/bin/sh
# benchline suspects ignore (docs/cli.md "suspects ignore") and POST /api/alerts/{id}/ignore
# (docs/http-api.md): a person's decision that an alert needs no more work. The alert and its
# Suspects are ignored through later detects and `detect --all`, a Suspect that joins it later
# takes its state, it leaves confirm and triage; the audit keeps who, when and why; the web
# route wants a token with the confirm role for the alert's machine.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/e2e/serve-lib.sh"

# alerts DB: "ID MACHINE STATE SUSPECTS" per alert.
alerts() {
	bl --db "$1" alerts --json | json_get - 'join "", map { sprintf("%d %s %s %d\n",
		$_->{id}, $_->{machine}, $_->{state}, scalar @{$_->{suspects}}) } @$j' | sed '/^$/d'
}

flat="100 101 99 100 100 101 99 100"

test_expect 'setup: a step on m1 and one on m2, each an open alert' '
	wall_records m1 town 1 $flat 130 131 130 129 130 >a.jsonl &&
	wall_records m2 town 1 $flat 130 131 130 129 130 >>a.jsonl &&
	bl --db a.db ingest a.jsonl >/dev/null &&
	bl --db a.db detect >/dev/null &&
	alerts a.db >actual &&
	printf "1 m1 open 1\n2 m2 open 1\n" >expect &&
	test_cmp expect actual
'

test_expect 'suspects ignore sets the alert and its Suspects ignored' '
	env USER=someone "$BENCHLINE" --db "$(db_url a.db)" suspects ignore --why "a new compiler, expected" 1 >actual &&
	echo "alert 1 ignored (it was open)" >expect &&
	test_cmp expect actual &&
	alerts a.db >actual &&
	printf "1 m1 ignored 1\n2 m2 open 1\n" >expect &&
	test_cmp expect actual &&
	bl --db a.db suspects --json | json_get - "join q( ), map { \$_->{machine} . q(:) . \$_->{state} } @\$j" >actual &&
	echo "m1:ignored m2:open" >expect &&
	test_cmp expect actual &&
	db_sql a.db "SELECT action, who, why, alert_id, CASE WHEN at > 0 THEN 1 ELSE 0 END
		FROM audit" >actual &&
	echo "ignore|someone|a new compiler, expected|1|1" >expect &&
	test_cmp expect actual
'

test_expect 'ignoring it again changes nothing' '
	db_dump a.db >dump.before &&
	bl --db a.db suspects ignore --why again 1 >actual &&
	echo "alert 1 was ignored already" >expect &&
	test_cmp expect actual &&
	db_dump a.db >dump.after &&
	test_cmp dump.before dump.after
'

test_expect 'an ignored alert stays ignored through detect, detect --all and a Suspect that joins it' '
	wall_records m1 town 13 130 131 >b.jsonl &&
	wall_records m1 village 1 $flat 130 131 130 129 >>b.jsonl &&
	bl --db a.db ingest b.jsonl >/dev/null &&
	bl --db a.db detect >/dev/null &&
	alerts a.db >actual &&
	printf "1 m1 ignored 2\n2 m2 open 1\n" >expect &&
	test_cmp expect actual &&
	bl --db a.db detect --all >/dev/null &&
	alerts a.db >actual &&
	test_cmp expect actual &&
	bl --db a.db suspects --json | json_get - "join q( ), map { \$_->{benchmark} . q(:) . \$_->{state} } grep { \$_->{machine} eq q(m1) } @\$j" >actual &&
	echo "town:ignored village:ignored" >expect &&
	test_cmp expect actual
'

test_expect 'an ignored alert leaves confirm' '
	git init -q repo &&
	echo "{\"machine\": \"m1\", \"bench\": {\"run\": \"false\"}}" >repo/benchline.json &&
	git -C repo add benchline.json && git -C repo commit -q -m settings &&
	bl --db a.db confirm --repo repo --json >actual 2>err &&
	echo "[]" >expect &&
	test_cmp expect actual &&
	grep -q "no open slower alert on .m1." err
'

test_expect 'an ignored alert leaves triage' '
	db_cp a.db t.db &&
	db_sql t.db "UPDATE alerts SET state = '"'"'confirmed'"'"', outcome = '"'"'confirmed'"'"' WHERE id = 2;
		UPDATE suspects SET state = '"'"'confirmed'"'"' WHERE alert_id = 2;
		INSERT INTO regressions (alert_id, machine_id, benchmark_id, config, metric, commit_sha,
			source_hash, reference_commit, probes, created_at)
		SELECT 2, s.machine_id, s.benchmark_id, s.config, s.metric, r.commit_sha, r.source_hash,
			r.commit_sha, '"'"'[]'"'"', 0 FROM suspects s JOIN runs r ON r.id = s.run_id
		WHERE s.alert_id = 2" &&
	bl --db t.db triage --json | json_get - "scalar @\$j" >actual &&
	echo 1 >expect &&
	test_cmp expect actual &&
	bl --db t.db suspects ignore --why "not worth an issue" 2 >actual &&
	echo "alert 2 ignored (it was confirmed)" >expect &&
	test_cmp expect actual &&
	bl --db t.db triage --json | json_get - "scalar @\$j" >actual &&
	echo 0 >expect &&
	test_cmp expect actual
'

test_expect 'errors: no such alert, no reason, not an id; nothing changes' '
	db_dump a.db >dump.before &&
	expect_exit 2 bl --db a.db suspects ignore --why x 99 2>err &&
	echo "benchline: no alert 99" >expect &&
	test_cmp expect err &&
	expect_exit 2 bl --db a.db suspects ignore 2 2>err &&
	grep -q "needs --why TEXT" err &&
	expect_exit 2 bl --db a.db suspects ignore --why x two 2>err &&
	grep -q "not an alert id: .two." err &&
	expect_exit 2 bl --db a.db suspects ignore --why x 2>err &&
	grep -q "takes one alert id" err &&
	expect_exit 2 bl --db a.db suspects ignore --why "$(printf "%04097d" 0)" 2 2>err &&
	echo "benchline: the reason to ignore alert 2 is 4097 bytes: at most 4096 are kept (link to the rest)" >expect &&
	test_cmp expect err &&
	db_dump a.db >dump.after &&
	test_cmp dump.before dump.after
'

# post TOKEN ALERT BODY: the status of POST /api/alerts/ALERT/ignore; the answer in ./body.
post() {
	printf "%s" "$3" >post.json
	curl -s --max-time 20 -o body -w "%{http_code}" -X POST -H "Authorization: Bearer $1" \
		--data-binary @post.json "$URL/api/alerts/$2/ignore"
}

printf 'tok-all\ntok-push * push\ntok-m1 m1 confirm\n' >tokens
BENCHLINE_DB=$(db_url "$TMP/a.db")
export BENCHLINE_DB
serve_start ignore --token-file tokens --timeout 5 || exit 1

test_expect 'POST /api/alerts/{id}/ignore: a token, the confirm role, the machine, a reason' '
	db_dump a.db >dump.before &&
	test "$(post nope 2 "{\"why\": \"x\"}")" = 401 &&
	test "$(post tok-push 2 "{\"why\": \"x\"}")" = 403 &&
	grep -q "may not ignore alerts" body &&
	test "$(post tok-m1 2 "{\"why\": \"x\"}")" = 403 &&
	grep -q "may not ignore alerts of machine m2" body &&
	test "$(post tok-all 2 "{}")" = 400 &&
	test "$(post tok-all 2 "{\"why\": \"x\", \"more\": 1}")" = 400 &&
	test "$(post tok-all 2 "{\"why\": \" \"}")" = 400 &&
	test "$(post tok-all 2 "{\"why\":")" = 400 &&
	json_get body "\$j->{error}" | grep -q "^request:1:7: " &&
	test "$(post tok-all 99 "{\"why\": \"x\"}")" = 404 &&
	test "$(post tok-all 2 "{\"why\": \"$(perl -e "print q(x) x (5 << 20)")\"}")" = 400 &&
	grep -q "the reason to ignore alert 2 is 5242880 bytes: at most 4096 are kept" body &&
	expect_status 405 application/json GET "$URL/api/alerts/2/ignore" &&
	db_dump a.db >dump.after &&
	test_cmp dump.before dump.after
'

test_expect 'POST /api/alerts/{id}/ignore ignores it, the audit names the token by its digest' '
	test "$(post tok-all 2 "{\"why\": \"flaky machine\"}")" = 200 &&
	echo "{\"alert\":2,\"state\":\"ignored\",\"was\":\"open\"}" >expect &&
	test_cmp expect body &&
	alerts a.db >actual &&
	printf "1 m1 ignored 2\n2 m2 ignored 1\n" >expect &&
	test_cmp expect actual &&
	digest=$(printf "%s" tok-all | git hash-object --stdin | cut -c1-12) &&
	db_sql a.db "SELECT who, why, alert_id FROM audit ORDER BY id DESC LIMIT 1" >actual &&
	echo "token $digest|flaky machine|2" >expect &&
	test_cmp expect actual &&
	test "$(post tok-all 2 "{\"why\": \"again\"}")" = 200 &&
	grep -q "\"was\":\"ignored\"" body
'

serve_stop ignore
test_done

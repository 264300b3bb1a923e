#!/bin/sh
# One intake, however a run arrives: a record pushed to `benchline serve --repo DIR` is tagged
# and kept by DIR's benchline.json exactly as `benchline ingest --repo DIR` tags and keeps it
# (quiet.max_p95_ratio, machines.NAME.keep), and both report the same outcomes.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/e2e/serve-lib.sh"

# A repository whose benchline.json allows p95/median up to 1.20 and keeps m-first's first run.
git init -q -b main repo &&
	printf '{"quiet": {"max_p95_ratio": 1.20}, "machines": {"m-first": {"keep": "first"}}}\n' \
		>repo/benchline.json &&
	(cd repo && git add . && git commit -qm init) || exit 1
bl init >/dev/null 2>&1
printf 'secret\n' >tokens
serve_start intake --token-file tokens --timeout 5 --repo "$TMP/repo" || exit 1

# timed MACHINE BENCH MEDIAN P95 [CONTENT]: a record whose primary metric has those figures, at
# the repository's one commit (the server syncs main at start: a commit off main would be
# not-main).
HEAD_SHA=$(git -C repo rev-parse HEAD)
timed() {
	c=$HEAD_SHA
	printf '{"schema":1,"machine":"%s","benchmark":"%s","config":"","harness_version":1,' "$1" "$2"
	printf '"source":{"commit":"%s","source_hash":"%s"},' "$c" "$c"
	printf '"started_at":"2026-11-02T04:00:0%sZ",' "${5:-0}"
	printf '"metrics":{"t":{"kind":"timed","unit":"us","median":%s,"p95":%s}}}\n' "$3" "$4"
}
push() {
	curl -s -o "$2" -w "%{http_code}" -H "Authorization: Bearer secret" \
		--data-binary "@$1" "$URL/api/records"
}
# tags MACHINE BENCH: the tags of every run of that benchmark, oldest first, one line each.
tags() {
	bl records --json --all --machine "$1" --benchmark "$2" |
		json_get - "join qq(\n), map { join q(,), @{\$_->{tags}} } @{\$j}"
}

# (First: an ingest --repo would record the setting in the database for the push to find.)
test_expect 'a push keeps the first run of a keep-first machine, as ingest --repo does' '
	timed m-first b3 100 101 1 >first.json &&
	timed m-first b3 100 100 2 >second.json &&
	test "$(push first.json out)" = 201 &&
	test "$(push second.json out)" = 201 &&
	json_get out "\$j->[0]{outcome}" >actual &&
	echo superseded >expect &&
	test_cmp expect actual
'
test_expect 'a pushed run under benchline.json'"'"'s noisy limit is not tagged noisy' '
	timed m-push b1 100 110 >quiet.json &&
	test "$(push quiet.json out)" = 201 &&
	echo >expect &&
	tags m-push b1 >actual &&
	test_cmp expect actual
'
test_expect 'a pushed run over it is tagged noisy, as the CLI tags it' '
	timed m-push b2 100 125 >noisy.json &&
	test "$(push noisy.json out)" = 201 &&
	timed m-cli b2 100 125 >noisy-cli.json &&
	bl ingest --repo repo noisy-cli.json >/dev/null &&
	tags m-cli b2 >expect &&
	echo noisy >want && test_cmp want expect &&
	tags m-push b2 >actual &&
	test_cmp expect actual
'
test_expect 'the push and ingest --json report a record with the same keys and outcome' '
	timed m-same b4 100 100 >same.json &&
	test "$(push same.json out)" = 201 &&
	json_get out "join q( ), sort keys %{\$j->[0]}" >push.keys &&
	bl ingest --json same.json >cli.json &&
	json_get cli.json "join q( ), sort grep { \$_ ne q(file) } keys %{\$j->[0]}" >cli.keys &&
	test_cmp cli.keys push.keys &&
	json_get cli.json "\$j->[0]{outcome}" >actual &&
	echo duplicate >expect &&
	test_cmp expect actual
'
# (benchline.json now keeps a machine the database has never seen: a refused push must not
# record even that.)
test_expect 'a token that may not push a machine stores nothing (403)' '
	printf "{\"machines\": {\"m-first\": {\"keep\": \"first\"}, \"m-later\": {\"keep\": \"first\"}}}\n" \
		>repo/benchline.json &&
	printf "secret\nsecret-a a-*\n" >tokens &&
	serve_stop intake && serve_start intake2 --token-file tokens --timeout 5 --repo "$TMP/repo" &&
	serve_idle &&
	db_dump >before &&
	timed b-box b5 100 100 >denied.json &&
	test "$(curl -s -o out -w "%{http_code}" -H "Authorization: Bearer secret-a" \
		--data-binary @denied.json "$URL/api/records")" = 403 &&
	json_get out "\$j->{error}" >actual &&
	echo "request: record 1: this token may not push machine b-box" >expect &&
	test_cmp expect actual &&
	db_dump >after &&
	test_cmp before after &&
	serve_stop intake2
'
test_done

#!/bin/sh
# benchline retag (docs/cli.md "retag"): the tag rules and the key rule of the settings in
# force applied again to every stored run, so that a retagged database holds what a fresh one
# ingesting the same runs with those settings holds; --dry-run writes nothing; the next detect
# sees every change (the same Series as a fresh database).
. "$(dirname "$0")/lib.sh"

# run KEY-COMMIT MEDIAN P95 N [DAY]: one native record of m1/town at commit KEY-COMMIT (a
# number), measured on DAY (default 1).
run() {
	c=$(printf '%040d' "$1")
	printf '{"schema":1,"machine":"m1","benchmark":"town","harness_version":1,'
	printf '"source":{"commit":"%s","source_hash":"%s","branch":"main",' "$c" "$c"
	printf '"committed_at":"2026-01-%02dT00:00:00Z"},"started_at":"2026-01-%02dT0%d:00:00Z",' \
		"$1" "$1" "${5:-1}"
	printf '"metrics":{"wall_ms":{"kind":"timed","unit":"ms","median":%s,"p95":%s,"n":%s}}}\n' \
		"$2" "$3" "$4"
}

# tags DB: "ID STANDING TAGS" per run.
tags() {
	bl --db "$1" records --all --json | json_get - 'join "", map { sprintf("%d %s %s\n",
		$_->{id}, $_->{standing} ? "stands" : "-", join(",", @{$_->{tags}}) || "-") }
		sort { $a->{id} <=> $b->{id} } @$j' | sed '/^$/d'
}

mkdir keep
# strict is a repository: ingest reads benchline.json from --repo's.
git init -q strict
echo '{"quiet": {"max_p95_ratio": 1.015}}' >strict/benchline.json
git -C strict add benchline.json && git -C strict commit -q -m settings
echo '{"machines": {"m1": {"keep": "first"}}}' >keep/benchline.json

# Two runs of one key: the first quieter (1.02, 12 samples), the second 1.03 with 5 samples.
# Under quiet.max_p95_ratio 1.015 the first is noisy and the second too few to judge, so the
# second, clean, takes the key. Then a run of each of ten more commits, every one 1.02.
{
	run 1 100 102 12
	run 1 100 103 5 2
	for i in 2 3 4 5 6 7 8 9 10 11; do run "$i" 100 102 12; done
} >runs.jsonl

test_expect 'retag applies a stricter noisy limit and the key rule' '
	bl --db a.db ingest runs.jsonl >/dev/null &&
	tags a.db >before &&
	grep -q "^1 stands -$" before && grep -q "^2 - superseded$" before &&
	bl --db a.db retag --repo strict >actual &&
	echo "12 runs read, 12 re-tagged (noisy +11, superseded +1 -1), 1 key with another standing run" >expect &&
	test_cmp expect actual &&
	tags a.db >after &&
	grep -q "^1 - noisy,superseded$" after && grep -q "^2 stands -$" after &&
	grep -q "^3 stands noisy$" after
'

test_expect 'a retagged database holds what a fresh one ingesting the runs with the settings holds' '
	bl --db fresh.db ingest --repo strict runs.jsonl >/dev/null &&
	tags fresh.db >expect &&
	tags a.db >actual &&
	test_cmp expect actual
'

test_expect 'retag again changes nothing' '
	bl --db a.db retag --repo strict >actual &&
	echo "12 runs read, 0 re-tagged, 0 keys with another standing run" >expect &&
	test_cmp expect actual
'

test_expect 'retag --dry-run says what would change and writes nothing' '
	db_dump a.db >dump.before &&
	bl --db a.db retag --dry-run --json >actual.json &&
	json_get actual.json "join \" \", \$j->{runs}, \$j->{retagged}, \$j->{tags}{noisy}{removed}, \$j->{tags}{superseded}{added}, \$j->{keys_changed}, \$j->{dry_run} ? q(dry) : q(wet)" >actual &&
	echo "12 12 11 1 1 dry" >expect &&
	test_cmp expect actual &&
	db_dump a.db >dump.after &&
	test_cmp dump.before dump.after
'

test_expect 'the next detect sees every change retag made: the same Series as a fresh database' '
	bl --db b.db ingest runs.jsonl >/dev/null &&
	bl --db b.db detect >/dev/null &&
	bl --db b.db retag --repo strict >/dev/null &&
	bl --db b.db detect >/dev/null &&
	bl --db b.db series --json >actual &&
	bl --db fresh.db detect >/dev/null &&
	bl --db fresh.db series --json >expect &&
	test_cmp expect actual &&
	bl --db b.db retag >/dev/null &&
	bl --db b.db detect >/dev/null &&
	bl --db b.db series --json >actual &&
	bl --db plain.db ingest runs.jsonl >/dev/null &&
	bl --db plain.db detect >/dev/null &&
	bl --db plain.db series --json >expect &&
	test_cmp expect actual
'

test_expect 'retag records a machine that keeps its first run, and replays the key by it' '
	{ run 1 100 103 12; run 1 100 101 12 2; } >two.jsonl &&
	bl --db k.db ingest two.jsonl >/dev/null &&
	tags k.db >actual &&
	printf "1 - superseded\n2 stands -\n" >expect &&
	test_cmp expect actual &&
	bl --db k.db retag --repo keep >actual &&
	echo "2 runs read, 2 re-tagged (superseded +1 -1), 1 key with another standing run" >expect &&
	test_cmp expect actual &&
	tags k.db >actual &&
	printf "1 stands -\n2 - superseded\n" >expect &&
	test_cmp expect actual
'

test_expect 'retag is recorded in the audit table when it changed something' '
	db_sql a.db "SELECT action, runs FROM audit ORDER BY id" >actual &&
	echo "retag|12" >expect &&
	test_cmp expect actual &&
	(USER=someone && export USER && bl --db k.db retag --repo strict >/dev/null) &&
	db_sql k.db "SELECT who FROM audit ORDER BY id DESC LIMIT 1" >actual &&
	echo someone >expect &&
	test_cmp expect actual
'

test_expect 'retag agrees with sync and with a source hash ingest computed' '
	git init -q g && (cd g && echo 1 >f && git add f && git commit -q -m one &&
		echo 2 >f && git commit -q -a -m two) &&
	side=$(git -C g commit-tree "HEAD^{tree}" -p HEAD~1 -m "a pull request, squashed as two") &&
	printf "{\"schema\":1,\"machine\":\"m1\",\"benchmark\":\"b\",\"harness_version\":1,\"source\":{\"commit\":\"%s\"},\"started_at\":\"2026-01-01T00:00:00Z\",\"metrics\":{\"t\":{\"unit\":\"ms\",\"median\":1}}}\n" "$side" >pr.json &&
	bl --db g.db sync --repo g >/dev/null &&
	bl --db g.db ingest --repo g pr.json >/dev/null &&
	run 1 100 101 12 | sed "s/\"commit\":\"[0-9]*\"/\"commit\":\"$(printf "%040d" 77)\"/" >off.json &&
	bl --db g.db ingest off.json >/dev/null &&
	bl --db g.db retag >actual &&
	echo "2 runs read, 0 re-tagged, 0 keys with another standing run" >expect &&
	test_cmp expect actual &&
	tags g.db >actual &&
	printf "1 stands -\n2 stands not-main\n" >expect &&
	test_cmp expect actual
'

test_expect 'a bad benchline.json is an error and changes nothing' '
	mkdir bad && echo "{\"quiet\": {\"max_p95_ratio\": \"x\"}}" >bad/benchline.json &&
	db_dump a.db >dump.before &&
	expect_exit 2 bl --db a.db retag --repo bad 2>err &&
	grep -q "max_p95_ratio" err &&
	db_dump a.db >dump.after &&
	test_cmp dump.before dump.after &&
	expect_exit 2 bl --db a.db retag extra 2>err &&
	grep -q "retag takes no arguments" err
'

test_done

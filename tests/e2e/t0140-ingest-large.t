#!/bin/sh
# Ingest of files larger than one read (issue 14): a native file is parsed as it is read and
# staged on disk, so these check that every shape, position and refusal is what a file read
# whole gives: records stored exactly once, in order, with the same digests; errors at the
# right line and column however far into the file; nothing stored on any error; a regular
# file over the cap refused before it is read; source hashes computed from --repo.
. "$(dirname "$0")/lib.sh"

S1=$(printf 'a%039d' 1)
C1=$(printf 'c%039d' 1)

runs() {
	db_sql "$BENCHLINE_DB" "select count(*) from runs"
}

test_expect 'a JSON-lines file of 1,000 records is stored whole, in order, once' '
	native_lines 1000 >big.jsonl &&
	test "$(wc -c <big.jsonl)" -gt 200000 &&
	bl ingest big.jsonl >out &&
	test "$(wc -l <out)" = 1000 &&
	head -1 out | grep -q "^big.jsonl: m1/b1 $(printf %.12s "$S1") harness 1: stands$" &&
	tail -1 out | grep -q "^big.jsonl: m1/b1000 " &&
	test "$(runs)" = 1000 &&
	test "$(db_sql "$BENCHLINE_DB" "select b.name from runs r join benchmarks b on b.id = r.benchmark_id order by r.id limit 3" | paste -s -d, -)" = "b1,b2,b3" &&
	bl ingest big.jsonl >again &&
	test "$(grep -c "already stored$" again)" = 1000 &&
	test "$(runs)" = 1000
'

test_expect 'the same records as a small file, one by one, have the same digests' '
	db_rm "$BENCHLINE_DB" &&
	bl --db big.db ingest big.jsonl >/dev/null &&
		native_lines 1000 | split -l 100 - part. &&
	for f in part.*; do bl --db small.db ingest "$f" >/dev/null || return 1; done &&
	db_sql big.db "select digest, raw from runs order by id" >expect &&
	db_sql small.db "select digest, raw from runs order by id" >actual &&
	test_cmp expect actual &&
	db_sql big.db "select * from metrics order by run_id, name" >expect &&
	db_sql small.db "select * from metrics order by run_id, name" >actual &&
	test_cmp expect actual
'

test_expect 'an array with a byte order mark, read piece by piece, and from standard input' '
	db_rm "$BENCHLINE_DB" &&
	{ printf "\357\273\277[\n"; native_lines 600 | sed "\$!s/\$/,/"; printf "]\n"; } >big-array.json &&
	bl ingest big-array.json >out &&
	test "$(wc -l <out)" = 600 &&
	native_lines 600 601 | bl ingest - >out2 &&
	test "$(grep -c "^-: m1/b.* stands$" out2)" = 600 &&
	test "$(runs)" = 1200
'

test_expect '--json prints one array of every record as it always did' '
	db_rm "$BENCHLINE_DB" &&
	bl ingest --json big.jsonl >out.json &&
	test "$(json_get out.json "scalar @\$j")" = 1000 &&
	test "$(json_get out.json "\$j->[999]{benchmark} . q(/) . \$j->[999]{outcome} . q(/) . \$j->[999]{record}")" = "b1000/stands/1000" &&
	head -3 out.json >head.actual &&
	printf "[\n  {\n    \"file\": \"big.jsonl\",\n" >head.expect &&
	test_cmp head.expect head.actual &&
	tail -2 out.json >tail.actual &&
	printf "  }\n]\n" >tail.expect &&
	test_cmp tail.expect tail.actual
'

test_expect 'an error in the last record names its line and column, and nothing is stored' '
	db_rm "$BENCHLINE_DB" &&
	{ native_lines 999; native_lines 1 1000 | sed "s/\"unit\":\"us\"/\"unit\":7/"; } >bad-last.jsonl &&
	expect_exit 2 bl ingest bad-last.jsonl >out 2>err &&
	col=$(tail -1 bad-last.jsonl | perl -ne "print index(\$_, q(7,)) + 1") &&
	echo "benchline: bad-last.jsonl:1000:$col: record 1000: metrics.t_us.unit: expected a string" >expect &&
	test_cmp expect err &&
	test ! -s out &&
	test "$(runs)" = 0
'

test_expect 'a syntax error far into an array is found where it is' '
	{ printf "[\n"; native_lines 700 | sed "\$!s/\$/,/"; printf "]\n"; } | sed "650s/},\$/} x,/" >bad-array.json &&
	expect_exit 2 bl ingest bad-array.json 2>err &&
	col=$(sed -n 650p bad-array.json | perl -ne "print index(\$_, q( x,)) + 2") &&
	echo "benchline: bad-array.json:650:$col: '"','"' or '"']'"' expected" >expect &&
	test_cmp expect err &&
	test "$(runs)" = 0
'

test_expect 'a NUL byte after the first read is refused where it is' '
	{ native_lines 500; printf "\000"; native_lines 1 501; } >nul.jsonl &&
	expect_exit 2 bl ingest nul.jsonl 2>err &&
	echo "benchline: nul.jsonl:501:1: nul byte in file" >expect &&
	test_cmp expect err &&
	test "$(runs)" = 0
'

test_expect 'a regular file over the 1 GiB cap is refused before it is read' '
	truncate -s 1100M huge.json &&
	expect_exit 2 bl ingest huge.json 2>err &&
	echo "benchline: '"'"'huge.json'"'"' is too big (over 1073741824 bytes)" >expect &&
	test_cmp expect err &&
	rm -f huge.json
'

test_expect 'a large file without source hashes gets them from --repo, one per commit' '
	git init -q repo && echo v1 >repo/main.c && git -C repo add -A &&
	git -C repo commit -q -m one && head=$(git -C repo rev-parse HEAD) &&
	want=$(bl hash --repo repo | cut -d" " -f1) &&
	native_lines 800 | sed "s/\"source_hash\":\"$S1\",//; s/$C1/$head/" >nohash.jsonl &&
	db_rm "$BENCHLINE_DB" &&
	bl ingest --repo repo nohash.jsonl >out &&
	test "$(runs)" = 800 &&
	test "$(db_sql "$BENCHLINE_DB" "select count(distinct source_hash), min(source_hash) from runs")" = "1|$want" &&
	expect_exit 2 bl --db none.db ingest nohash.jsonl 2>err &&
	grep -q "^benchline: nohash.jsonl:1:1: record 1: source.source_hash: missing" err
'

test_done

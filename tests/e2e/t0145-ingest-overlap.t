#!/bin/sh
# A large file is parsed on one thread while another stores it, a chunk of 1,024 records at a
# time with each chunk's lookups asked at once (issue 26): what is stored and said must be what
# storing the same records as small files, one transaction and one whole parse each, stores
# and says, whatever the timing. The history here is full of what the key rule and the tags
# decide on: exact duplicates within a chunk and across chunks, re-ingests, dirty against
# clean, noisy, debug profile, busy preflight, off main, Baselines, keys displaced within a
# chunk and across, and a machine that keeps its first run. A bad record deep in the file,
# after chunks were stored, stores nothing and is reported at its line and column.
. "$(dirname "$0")/lib.sh"

# history N SEED: N native records on lines of their own (about 480 bytes each) over few keys,
# one in eight an exact copy of an earlier line.
history() {
	perl -e '
		my ($n, $seed) = @ARGV;
		my $x = $seed;
		sub rnd { $x = ($x * 1103515245 + 12345) % 2147483648; return int($x / 65536) % $_[0] }
		my @m = qw(m1 m2 mk); my @b = qw(parse render load save);
		my @lines;
		for my $i (0 .. $n - 1) {
			if ($i > 4 && rnd(8) == 0) { push @lines, $lines[rnd($i)]; next }
			my $c = rnd(12) + 1;
			my $med = 100 + rnd(50);
			my $p95 = $med * (1 + rnd(12) / 100);
			push @lines, sprintf(
			    "{\"schema\":1,\"machine\":\"%s\",\"benchmark\":\"%s\",\"config\":\"%s\"," .
			    "\"harness_version\":%d,%s%s%s\"source\":{\"commit\":\"c%039d\"," .
			    "\"source_hash\":\"a%039d\",\"branch\":\"%s\"%s}," .
			    "\"started_at\":\"2026-01-01T%02d:%02d:%02dZ\",\"metrics\":{\"t_us\":" .
			    "{\"kind\":\"timed\",\"unit\":\"us\",\"median\":%s,\"p95\":%s,\"n\":%d," .
			    "\"samples\":[%s,%s,1.5,2.25]},\"bytes\":{\"kind\":\"counted\",\"unit\":\"B\"," .
			    "\"value\":%d}}}\n",
			    $m[rnd(3)], $b[rnd(4)], rnd(2) ? "big" : "", 1 + rnd(2),
			    rnd(10) == 0 ? "\"profile\":\"debug\"," : "",
			    rnd(10) == 0 ? "\"preflight\":{\"quiet\":false}," : "",
			    rnd(15) == 0 ? "\"baseline\":true," : "", $c, $c,
			    rnd(6) == 0 ? "feature" : "main", rnd(8) == 0 ? ",\"dirty\":true" : "",
			    int($i / 3600), int($i / 60) % 60, $i % 60, $med, $p95, rnd(3) ? 12 : 5,
			    $med, $p95, rnd(1000));
		}
		print @lines;
	' "$1" "$2"
}

# rows DB: every row ingest writes, but each run's ingested_at (the time of its insert).
rows() {
	if pg_mode; then
		samples="encode(samples, 'hex')"
	else
		samples="hex(samples)"
	fi
	db_sql "$1" "SELECT id, name, keep, info FROM machines ORDER BY id" &&
	db_sql "$1" "SELECT id, name FROM benchmarks ORDER BY id" &&
	db_sql "$1" "SELECT id, digest, machine_id, benchmark_id, config, source_hash,
		harness_version, content_hash, commit_sha, branch, committed_at, started_at, dirty,
		profile, baseline, primary_metric, quietness, raw FROM runs ORDER BY id" &&
	db_sql "$1" "SELECT run_id, name, kind, unit, better, median, p95, n, value, ladder,
		$samples FROM metrics ORDER BY run_id, name" &&
	db_sql "$1" "SELECT run_id, tag FROM tags ORDER BY run_id, tag" &&
	db_sql "$1" "SELECT * FROM records ORDER BY machine_id, benchmark_id, config,
		source_hash, harness_version"
}

# said FILE: the outcome lines without the file's name.
said() {
	sed 's/^[^:]*: //' "$1"
}

# A repository whose benchline.json keeps the first run of machine mk; every ingest here names
# it (--repo), so each reads that setting. Native records carry their own commits.
test_expect 'setup: a repository keeping the first run of machine mk, and the history' '
	git init -q repo &&
	printf "{\"machines\": {\"mk\": {\"keep\": \"first\"}}}\n" >repo/benchline.json &&
	git -C repo add benchline.json && git -C repo commit -q -m settings &&
	history 3000 7 >repo/history.jsonl &&
	test "$(wc -c <repo/history.jsonl)" -gt 1000000 &&
	split -l 100 repo/history.jsonl repo/part. &&
	test "$(ls repo/part.* | wc -l)" = 30
'
cd repo || exit 1

test_expect 'a file stored while it is parsed stores and says what small files one by one do' '
	bl --db whole.db ingest --repo . history.jsonl >whole.out &&
	for f in part.*; do bl --db parts.db ingest --repo . "$f" >>parts.out || return 1; done &&
	test "$(wc -l <whole.out)" = 3000 &&
	said whole.out >expect && said parts.out >actual && test_cmp expect actual &&
	rows parts.db >expect && rows whole.db >actual && test_cmp expect actual &&
	for o in "stands" "superseded" "already stored" "tagged dirty" "tagged noisy" \
		"tagged profile" "tagged preflight" "tagged not-main" \
		"keeps the first run of a key" "with no quality tag, holds its key"; do
		grep -q "$o" whole.out || { echo "no line says: $o"; return 1; }
	done &&
	test "$(db_sql whole.db "SELECT count(*) FROM runs WHERE baseline = 1")" -gt 0
'

test_expect 'the file again changes nothing and says every record is already stored' '
	rows whole.db >before &&
	bl --db whole.db ingest --repo . history.jsonl >again.out &&
	test "$(grep -c ": already stored" again.out)" = 3000 &&
	rows whole.db >after && test_cmp before after
'

test_expect 'the file over its first half stored before: the same rows as all of it in parts' '
	head -1500 history.jsonl >half.jsonl &&
	bl --db halves.db ingest --repo . half.jsonl >/dev/null &&
	bl --db halves.db ingest --repo . history.jsonl >halves.out &&
	rows parts.db >expect && rows halves.db >actual && test_cmp expect actual &&
	test "$(grep -c ": already stored" halves.out)" -ge 1500
'

test_expect 'a bad record two chunks into the file stores nothing: its line and column said' '
	rows whole.db >before &&
	{ head -2700 history.jsonl; echo "{\"schema\": 1, \"machine\": [}"; tail -200 history.jsonl; } >bad.jsonl &&
	expect_exit 2 bl --db whole.db ingest --repo . bad.jsonl >bad.out 2>bad.err &&
	test ! -s bad.out &&
	grep -q "^benchline: bad.jsonl:2701:27: unexpected token near .}.$" bad.err &&
	test "$(wc -l <bad.err)" = 1 &&
	rows whole.db >after && test_cmp before after &&
	expect_exit 2 bl --db fresh.db ingest --repo . bad.jsonl >/dev/null 2>fresh.err &&
	test_cmp bad.err fresh.err &&
	test "$(db_sql fresh.db "SELECT count(*) FROM runs")" = 0
'

test_expect 'a file cut short in its last record: its line and column, nothing stored' '
	{ cat history.jsonl; printf "{\"schema\": 1, \"machine\": \"m1\""; } >cut.jsonl &&
	expect_exit 2 bl --db cut.db ingest --repo . cut.jsonl >cut.out 2>cut.err &&
	grep -q "^benchline: cut.jsonl:3001:" cut.err &&
	test "$(db_sql cut.db "SELECT count(*) FROM runs")" = 0
'

test_expect 'a record the parse refuses in the first chunk: nothing stored, its place said' '
	{ head -10 history.jsonl; echo "{\"schema\": 2}"; tail -2000 history.jsonl; } >early.jsonl &&
	expect_exit 2 bl --db early.db ingest --repo . early.jsonl >/dev/null 2>early.err &&
	grep -q "^benchline: early.jsonl:11:12: record 11: schema: unknown schema 2$" early.err &&
	test "$(db_sql early.db "SELECT count(*) FROM runs")" = 0
'

test_done

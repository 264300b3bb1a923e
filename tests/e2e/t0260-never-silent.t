#!/bin/sh
# Never silent about why: `series` counts the tagged runs each Series leaves out, by tag, and lists
# the Series whose every run is tagged; `suspects` and `alerts` with none say whether detect has
# run; `detect` with every record tagged says how many it could not use; `run`
# passes the benchmark's standard error through (its progress) and ends with a summary line.
. "$(dirname "$0")/lib.sh"

rec() {
	printf '{"schema": 1, "machine": "ci", "benchmark": "parse", "harness_version": 1, '
	printf '"source": {"commit": "%040d", "source_hash": "%040d"}, ' "$1" "$1"
	printf '"started_at": "2026-11-%02dT04:00:00Z", ' "$1"
	printf '"metrics": {"parse_ms": {"unit": "ms", "median": %s}}}\n' "$2"
}

test_expect 'suspects before any detect: it says detect has not run' '
	{ rec 1 100; rec 2 101; rec 3 99; } >flat.json &&
	bl ingest flat.json >/dev/null &&
	bl suspects >out 2>err &&
	test ! -s out &&
	grep -q "^no suspects: detect has not run on this database yet" err
'

test_expect 'suspects after a detect that found none: it says so' '
	bl detect >/dev/null &&
	bl suspects >out 2>err &&
	test ! -s out &&
	echo "no suspects: detect has run and found none" >expect &&
	test_cmp expect err
'

test_expect 'alerts: before a detect it says run detect; after one that found none, not' '
	{ rec 1 100; rec 2 101; } >two.json &&
	bl --db fresh.db ingest two.json >/dev/null &&
	bl --db fresh.db alerts >out 2>err &&
	test ! -s out &&
	grep -q "^no alerts: detect has not run on this database yet (run .benchline detect. after" err &&
	bl alerts >out 2>err &&
	test ! -s out &&
	echo "no alerts: detect has run and found none" >expect &&
	test_cmp expect err &&
	bl alerts --state open --machine ci >out 2>err &&
	echo "no alerts in state '"'"'open'"'"' of machine '"'"'ci'"'"': detect has run and found none that match" >expect &&
	test_cmp expect err
'

# prof BENCHMARK PROFILE DAY MEDIAN: a record of ci/BENCHMARK; a profile but release is tagged.
prof() {
	printf '{"schema": 1, "machine": "ci", "benchmark": "%s", "profile": "%s", ' "$1" "$2"
	printf '"harness_version": 1, "source": {"commit": "%040d", "source_hash": "%040d"}, ' "$3" "$3"
	printf '"started_at": "2026-11-%02dT04:00:00Z", ' "$3"
	printf '"metrics": {"t": {"unit": "ms", "median": %s}}}\n' "$4"
}

test_expect 'series counts the tagged runs each Series leaves out, and lists those all tagged' '
	{ prof lex release 1 10; prof lex debug 2 11; prof lex debug 3 12;
	  prof dbg debug 1 5; prof dbg debug 2 6; } >tagged.json &&
	bl --db tagged.db ingest tagged.json >/dev/null &&
	bl --db tagged.db series >actual &&
	cat >expect <<-\END &&
	machine  benchmark  config  metric         records  lines  last value
	ci       lex        -       t       1 (+2 profile)      1  10 ms

	Series whose every run is tagged ('"'"'benchline records --all'"'"' shows the tags):
	machine  benchmark  config  metric  tagged runs
	ci       dbg        -       t       2 profile
	END
	test_cmp expect actual
'

# sup DAY SAMPLES...: a run of ci/sup at DAY's commit with these samples of t.
sup() {
	d=$1
	shift
	printf '{"schema": 1, "machine": "ci", "benchmark": "sup", "harness_version": 1, '
	printf '"source": {"commit": "%040d", "source_hash": "%040d"}, ' "$d" "$d"
	printf '"started_at": "2026-11-%02dT0%d:00:00Z", ' "$d" $#
	printf '"metrics": {"t": {"unit": "ms", "samples": [%s]}}}\n' "$(echo "$@" | tr " " ,)"
}

test_expect 'series names why runs are left out: superseded runs are "superseded", not "tagged"' '
	{ sup 1 10 10 10 10 10; sup 1 10 12 14 16 18 20; sup 1 10 13 16 19 22 25 28;
	  sup 2 10 10 10 10 10; sup 2 10 12 14 16 18 20;
	  prof sup debug 3 11; } >sup.json &&
	bl --db sup.db ingest sup.json >/dev/null &&
	bl --db sup.db series >actual &&
	cat >expect <<-\END &&
	machine  benchmark  config  metric                        records  lines  last value
	ci       sup        -       t       2 (+1 profile, +3 superseded)      1  10 ms
	END
	test_cmp expect actual
'

test_expect 'detect with every record tagged names the records it could not use' '
	{ prof dbg debug 1 5; prof dbg debug 2 6; prof lex debug 3 7; } >alltagged.json &&
	bl --db alltagged.db ingest alltagged.json >/dev/null &&
	bl --db alltagged.db detect >out 2>err &&
	grep -q "^0 Series (0 judged)" out &&
	echo "detect: none of the 3 stored records is on a Series: each carries a tag ('"'"'benchline records --all'"'"' shows which)" >expect &&
	test_cmp expect err &&
	bl detect >out 2>err &&
	test ! -s err
'

test_expect 'series with only tagged runs lists them, not "no series yet"' '
	bl --db tagged.db series --benchmark dbg >actual 2>err &&
	test ! -s err &&
	grep -q "^ci       dbg        -       t       2 profile$" actual &&
	! grep -q "records  lines" actual
'

test_expect 'series --json is as it was: no tagged counts' '
	bl --db tagged.db series --json >out.json &&
	test "$(json_get out.json "scalar @\$j")" = 1
'

cat >bench.sh <<'END'
#!/bin/sh
echo "warming up" >&2
echo "round 1/2" >&2
echo "round 2/2" >&2
echo '{"schema": 1, "machine": "box", "benchmark": "loop", "harness_version": 1,
 "source": {"commit": "3f7fd6b5c0ffee00000000000000000000000000",
            "source_hash": "2d5d1c3600000000000000000000000000000000"},
 "started_at": "2026-11-02T04:00:00Z",
 "metrics": {"t": {"unit": "ms", "samples": [10.1, 10.3, 10.2, 10.2, 10.4]}}}'
END
chmod +x bench.sh

test_expect 'run passes the benchmark'\''s progress through and ends with a summary line' '
	bl run --no-preflight -- ./bench.sh >out 2>err &&
	grep -q "box/loop 2d5d1c360000 harness 1: stands" out &&
	sed -n 1,3p err >progress &&
	printf "%s\n" "warming up" "round 1/2" "round 2/2" >expect &&
	test_cmp expect progress &&
	tail -1 err | grep -q "^run: .\./bench\.sh. ran in [0-9.]* s (cpu [0-9.]* s, peak rss [0-9]* KiB): 1 record stored$"
'

test_expect 'a failing benchmark: its standard error is there, then why nothing was stored' '
	expect_exit 2 bl run --no-preflight -- sh -c "echo the reason >&2; exit 3" 2>err &&
	head -1 err >first &&
	echo "the reason" >expect &&
	test_cmp expect first &&
	grep -q "exited with status 3; nothing stored" err
'
test_expect 'records --why explains each tag of a run from its stored figures' '
	why() {
		printf "{\"schema\":1,\"machine\":\"w1\",\"benchmark\":\"why\",\"config\":\"\",\"harness_version\":1,"
		printf "\"source\":{\"commit\":\"%040d\",\"source_hash\":\"%040d\",\"branch\":\"main\"%s}," 1 1 "$3"
		printf "\"started_at\":\"2026-11-02T04:0%d:00Z\",\"metrics\":{\"t_us\":{\"unit\":\"us\"," "$1"
		printf "\"median\":100,\"p95\":%s,\"n\":30}}}\n" "$2"
	}
	{ why 1 101 ""; why 2 112 ""; why 3 101 ",\"dirty\":true"; } >why.json &&
	bl --db why.db ingest why.json >/dev/null &&
	bl --db why.db records --why 1 2 3 >actual &&
	cat >expect <<-EOF &&
	run 1, w1/why 000000000000 harness 1: no tags: it joins its Series
	run 2, w1/why 000000000000 harness 1: superseded, off its Series
	  noisy: p95/median 1.12 >= 1.06
	  superseded: run 1, with no quality tag, holds its key
	run 3, w1/why 000000000000 harness 1: superseded, off its Series
	  dirty: its measured paths differed from commit 000000000000
	  superseded: run 1, with no quality tag, holds its key
	EOF
	test_cmp expect actual &&
	bl --db why.db records --why --json 2 >why2.json &&
	test "$(json_get why2.json "join q(,), @{\$j->[0]{tags}}")" = noisy,superseded &&
	test "$(json_get why2.json "\$j->[0]{why}{noisy}")" = "p95/median 1.12 >= 1.06" &&
	expect_exit 2 bl --db why.db records --why 99 2>err &&
	grep -q "no run 99" err &&
	expect_exit 2 bl --db why.db records --why 2>err &&
	grep -q "needs a run ID" err &&
	expect_exit 2 bl --db why.db records --why 2x 2>err &&
	grep -q "not a run id: '"'"'2x'"'"'" err &&
	expect_exit 2 bl --db why.db records --repo . 2>err &&
	grep -q "repo goes with --why" err
'

test_done

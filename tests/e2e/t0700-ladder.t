#!/bin/sh
# `benchline ladder` (§8): bounds derived from the bucket ladder, the lint that keeps them
# derived, compare with its AND rule, notes and placeholder bootstrap, floors, and every
# malformed file refused with exit 2 naming the file and the key. No database is involved.
. "$(dirname "$0")/lib.sh"

# A millisecond and a microsecond ladder, and a baseline whose every key can be gated:
#   span.tx.process.p99       0.994514815151108 in (0.5, 1]   hi_next 5       bound 4.005485184848892
#   span.ledger.validate.p99  1.06              in (1, 5]     hi_next 10      bound 8.94   floor 9.43x
#   span.tx.apply.p50         0.7917            in (0.5, 1]   hi_next 5       bound 4.2083
#   job.accept.running.p95    17428.6 us        in (5000, 25000] hi_next 100000 bound 82571.4
cat >ladders.json <<'EOF'
{"ladders": {"ms": {"unit": "ms", "edges": [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 50, 100, 500, 1000]},
             "us": {"unit": "us", "edges": [100, 500, 1000, 5000, 25000, 100000, 500000]}},
 "categories": {"span": "ms", "job": "us"}}
EOF
cat >baseline.json <<'EOF'
{"schema_version": 1, "captured_at": "2026-08-24T10:00:00Z", "window": "3m",
 "git_sha": "3f7fd6b5c0ffee00000000000000000000000000", "profile": "full",
 "metrics": {"span.tx.process.p99": {"value": 0.994514815151108, "unit": "ms"},
             "span.ledger.validate.p99": {"value": 1.06, "unit": "ms"},
             "span.tx.apply.p50": {"value": 0.7917, "unit": "ms"},
             "job.accept.running.p95": {"value": 17428.6, "unit": "us"}}}
EOF
cat >declared.json <<'EOF'
{"keys": ["span.tx.process.p99", "span.ledger.validate.p99", "span.tx.apply.p50",
          "job.accept.running.p95"]}
EOF

# capture FILE KEY=VALUE[:UNIT]...: writes a captured run (unit ms unless given; VALUE null).
capture() {
	f=$1
	shift
	{
		printf '{"schema_version": 1, "metrics": {'
		sep=
		for kv in "$@"; do
			k=${kv%%=*} v=${kv#*=} u=ms
			case $v in *:*) u=${v#*:} v=${v%%:*} ;; esac
			printf '%s"%s": {"value": %s, "unit": "%s"}' "$sep" "$k" "$v" "$u"
			sep=', '
		done
		printf '}}\n'
	} >"$f"
}

# The baseline read back at the same values: nothing moved.
capture same.json span.tx.process.p99=0.994514815151108 span.ledger.validate.p99=1.06 \
	span.tx.apply.p50=0.7917 job.accept.running.p95=17428.6:us

test_expect 'derive prints every derived bound in full precision, in the one format' '
	bl ladder derive --baseline baseline.json --ladders ladders.json >thresholds.json 2>err &&
	test ! -s err &&
	cat >want <<-\EOF &&
	{
	  "_derivation_table": [
	    {
	      "baseline": 17428.6,
	      "bound": 82571.4,
	      "bucket": [
	        5000.0,
	        25000.0
	      ],
	      "floor": 5.737695511974571,
	      "hi_next": 100000.0,
	      "key": "job.accept.running.p95",
	      "note": null,
	      "unit": "us"
	    },
	    {
	      "baseline": 1.06,
	      "bound": 8.94,
	      "bucket": [
	        1.0,
	        5.0
	      ],
	      "floor": 9.433962264150942,
	      "hi_next": 10.0,
	      "key": "span.ledger.validate.p99",
	      "note": null,
	      "unit": "ms"
	    },
	    {
	      "baseline": 0.7917,
	      "bound": 4.2083,
	      "bucket": [
	        0.5,
	        1.0
	      ],
	      "floor": 6.315523556902868,
	      "hi_next": 5.0,
	      "key": "span.tx.apply.p50",
	      "note": null,
	      "unit": "ms"
	    },
	    {
	      "baseline": 0.994514815151108,
	      "bound": 4.005485184848892,
	      "bucket": [
	        0.5,
	        1.0
	      ],
	      "floor": 5.027577190230487,
	      "hi_next": 5.0,
	      "key": "span.tx.process.p99",
	      "note": null,
	      "unit": "ms"
	    }
	  ],
	  "overrides": {
	    "job.accept.running": {
	      "p95": {
	        "max_abs_increase_us": 82571.4
	      }
	    },
	    "span.ledger.validate": {
	      "p99": {
	        "max_abs_increase_ms": 8.94
	      }
	    },
	    "span.tx.apply": {
	      "p50": {
	        "max_abs_increase_ms": 4.2083
	      }
	    },
	    "span.tx.process": {
	      "p99": {
	        "max_abs_increase_ms": 4.005485184848892
	      }
	    }
	  }
	}
	EOF
	cmp want thresholds.json &&
	test ! -e "$BENCHLINE_DB"
'

test_expect 'derive then check passes, with the declared keys too' '
	bl ladder check --baseline baseline.json --thresholds thresholds.json \
		--ladders ladders.json --declared declared.json >out 2>err &&
	test "$(cat out)" = "4 keys checked, no violations" &&
	test ! -s err
'

test_expect 'derive --pct writes the percentage into every bound when it stays under each floor' '
	bl ladder derive --baseline baseline.json --ladders ladders.json --pct 50 >pct.json &&
	test "$(grep -c "\"max_pct_increase\": 50.0" pct.json)" = 4 &&
	bl ladder check --baseline baseline.json --thresholds pct.json --ladders ladders.json
'

test_expect 'derive refuses a --pct that would be the operative bound: per key, exit 1, no stdout' '
	expect_exit 1 bl ladder derive --baseline baseline.json --ladders ladders.json \
		--pct 480 >out 2>err &&
	test ! -s out &&
	grep -Fx "benchline: job.accept.running.p95: --pct 480 would be the operative bound: it is at or above 100 * bound / baseline = 100 * 82571.4 / 17428.6 = 473.769551197457" err &&
	grep -Fx "benchline: span.tx.process.p99: --pct 480 would be the operative bound: it is at or above 100 * bound / baseline = 100 * 4.005485184848892 / 0.994514815151108 = 402.75771902304876" err &&
	test "$(grep -c "would be the operative bound" err)" = 2
'

# check_one RULE-LINE ARGS...: check exits 1 and prints exactly that line on stdout.
check_lines() {
	expect_exit 1 bl ladder check --baseline "${B:-baseline.json}" --thresholds "${T:-thresholds.json}" \
		--ladders ladders.json "$@" >out 2>err &&
	grep -q "^benchline: [0-9]* violations\{0,1\} in [0-9]* keys\{0,1\} checked$" err
}

test_expect 'check: a bound rounded to four decimals is not the derived one' '
	sed "s/4.005485184848892$/4.0055/" thresholds.json >rounded.json &&
	T=rounded.json check_lines &&
	test "$(cat out)" = "bound-not-derived: span.tx.process.p99: max_abs_increase_ms 4.0055 (override '"'"'span.tx.process'"'"') is not the derived 4.005485184848892 = hi_next 5 - baseline 0.994514815151108 (baseline in (0.5, 1])"
'

test_expect 'check: the derived bound to 1e-12 relative, not closer and not looser' '
	sed "s/8.94$/8.94000000001/" thresholds.json >close.json &&
	T=close.json check_lines &&
	grep -q "^bound-not-derived: span.ledger.validate.p99: max_abs_increase_ms 8.94000000001 " out &&
	test $(wc -l <out) = 1 &&
	sed "s/8.94$/8.940000000001/" thresholds.json >closer.json &&
	bl ladder check --baseline baseline.json --thresholds closer.json --ladders ladders.json
'

test_expect 'check: a bound in another time unit is converted before it is compared' '
	cat >us.json <<-\EOF &&
	{"overrides": {"span.tx.process": {"p99": {"max_abs_increase_us": 4005.485184848892}},
	               "span.ledger.validate": {"p99": {"max_abs_increase_s": 0.00894}},
	               "span.tx.apply": {"p50": {"max_abs_increase_ms": 4.2083}},
	               "job.accept.running": {"p95": {"max_abs_increase_ms": 82.5714}}}}
	EOF
	bl ladder check --baseline baseline.json --thresholds us.json --ladders ladders.json >out &&
	test "$(cat out)" = "4 keys checked, no violations"
'

test_expect 'check: a gated key without a bound' '
	perl -0pe "s/\"span.tx.apply\": \{\n      \"p50\": \{\n        \"max_abs_increase_ms\": 4.2083\n      \}\n    \},\n//" \
		thresholds.json >nobound.json &&
	! grep -q span.tx.apply\" nobound.json &&
	T=nobound.json check_lines &&
	test "$(cat out)" = "missing-bound: span.tx.apply.p50: no max_abs_increase_ms bound (the derived one is 4.2083 = hi_next 5 - baseline 0.7917)"
'

test_expect 'check: a default that is not the derived bound fails like an override' '
	echo "{\"defaults\": {\"span\": {\"p50\": {\"max_abs_increase_ms\": 10}}}, \"overrides\": {}}" >def.json &&
	B=baseline.json T=def.json check_lines &&
	grep -Fx "bound-not-derived: span.tx.apply.p50: max_abs_increase_ms 10 (default '"'"'span'"'"') is not the derived 4.2083 = hi_next 5 - baseline 0.7917 (baseline in (0.5, 1])" out &&
	grep -Fx "missing-bound: span.tx.process.p99: no max_abs_increase_ms bound (the derived one is 4.005485184848892 = hi_next 5 - baseline 0.994514815151108)" out &&
	test $(wc -l <out) = 4
'

test_expect 'check: a baseline key not declared, and a declared key without a baseline' '
	echo "{\"keys\": [\"span.tx.process.p99\", \"span.ledger.validate.p99\", \"job.accept.running.p95\", \"span.rpc.call.p95\"]}" >decl2.json &&
	check_lines --declared decl2.json &&
	test "$(cat out)" = "declared-not-in-baseline: span.rpc.call.p95: declared in '"'"'decl2.json'"'"' but the baseline has no value for it
undeclared-key: span.tx.apply.p50: in the baseline but not declared in '"'"'decl2.json'"'"'"
'

test_expect 'check: a percentage bound that would be the operative one' '
	sed "s/\"max_abs_increase_ms\": 8.94$/\"max_abs_increase_ms\": 8.94, \"max_pct_increase\": 843.4/" \
		thresholds.json >pctop.json &&
	T=pctop.json check_lines &&
	test "$(cat out)" = "pct-operative: span.ledger.validate.p99: max_pct_increase 843.4 (override '"'"'span.ledger.validate'"'"') is at or above 100 * bound / baseline = 100 * 8.94 / 1.06 = 843.3962264150942: the percentage bound would be the operative one" &&
	sed "s/843.4/843.3/" pctop.json >pctok.json &&
	bl ladder check --baseline baseline.json --thresholds pctok.json --ladders ladders.json >out
'

test_expect 'check: an override for a key the baseline does not have' '
	sed "s/\"overrides\": {/\"overrides\": {\"span.gone\": {\"p95\": {\"max_abs_increase_ms\": 1}},/" \
		thresholds.json >orphan.json &&
	T=orphan.json check_lines &&
	test "$(cat out)" = "orphan-bound: span.gone.p95: an override for a key the baseline does not have (a stale bound: remove it, or add the key to the baseline)"
'

# A baseline with one key on the floor signature (0.95 x the first edge 0.01) and one in the
# top bucket (500, 1000].
cat >bad-baseline.json <<'EOF'
{"metrics": {"span.ledger.validate.p99": {"value": 1.06, "unit": "ms"},
             "span.ledger.store.p95": {"value": 0.0095, "unit": "ms"},
             "span.ledger.store.p50": {"value": 0.005, "unit": "ms"},
             "span.ledger.near.p95": {"value": 0.009500000000000001, "unit": "ms"},
             "span.rpc.huge.p99": {"value": 750, "unit": "ms"}}}
EOF

test_expect 'derive warns about the floor signature and the top bucket and writes them no bound' '
	bl ladder derive --baseline bad-baseline.json --ladders ladders.json >bad-thr.json 2>err &&
	grep -Fx "benchline: warning: span.ledger.store.p95: baseline 0.0095 ms is 0.95 x the first edge 0.01 ms: every sample fell in the first bucket, so it cannot move and must not be gated; no bound written" err &&
	grep -Fx "benchline: warning: span.ledger.store.p50: baseline 0.005 ms is 0.5 x the first edge 0.01 ms: every sample fell in the first bucket, so it cannot move and must not be gated; no bound written" err &&
	grep -Fx "benchline: warning: span.rpc.huge.p99: baseline 750 ms is in the top bucket (500, 1000] of ladder '"'"'ms'"'"': no edge above it, so it cannot be gated; no bound written" err &&
	test $(wc -l <err) = 3 &&
	test "$(json_get bad-thr.json "join \" \", sort keys %{\$j->{overrides}}")" = "span.ledger.near span.ledger.validate" &&
	test "$(json_get bad-thr.json "\$j->{_derivation_table}[4]{key}")" = span.rpc.huge.p99 &&
	test "$(json_get bad-thr.json "\$j->{_derivation_table}[4]{hi_next}")" = null &&
	test "$(json_get bad-thr.json "\$j->{_derivation_table}[4]{bound}")" = null &&
	test "$(json_get bad-thr.json "\$j->{_derivation_table}[4]{floor}")" = null
'

test_expect 'check: the floor signature (exact, one ulp off is a latency) and the top bucket' '
	B=bad-baseline.json T=bad-thr.json check_lines &&
	test "$(cat out)" = "floor-signature: span.ledger.store.p50: baseline 0.005 ms is 0.5 x the first edge 0.01 ms: every sample fell in the first bucket, so it cannot move and must not be gated
floor-signature: span.ledger.store.p95: baseline 0.0095 ms is 0.95 x the first edge 0.01 ms: every sample fell in the first bucket, so it cannot move and must not be gated
top-bucket: span.rpc.huge.p99: baseline 750 ms is in the top bucket (500, 1000] of ladder '"'"'ms'"'"': no edge above it, so it cannot be gated"
'

test_expect 'check: a placeholder baseline gates nothing, and says so' '
	echo "{\"schema_version\": 1, \"placeholder\": true, \"metrics\": {}}" >ph.json &&
	B=ph.json check_lines &&
	grep -q "^placeholder: ph.json: the baseline is a placeholder, so no key is gated" out &&
	grep -q "^orphan-bound: span.tx.process.p99: " out
'

# compare_row KEY REGEX: the table row of KEY matches "KEY +REGEX$".
row() {
	grep -E "^$1 +$2\$" out
}

test_expect 'compare: nothing moved, every key passes' '
	bl ladder compare --baseline baseline.json --thresholds thresholds.json --current same.json >out 2>err &&
	test ! -s err &&
	test "$(head -1 out | tr -s " ")" = "key unit baseline current delta change max abs max pct result" &&
	row span.tx.process.p99 "ms +0.994514815151108 +0.994514815151108 +0 +\+0.0% +4.005485184848892 +- +pass" &&
	test "$(tail -1 out)" = "summary: 4 gated, 0 regressed, 0 missing, 0 not gated"
'

test_expect 'compare at the trip point (hi_next) does not fire; just above it fires' '
	capture at.json span.tx.process.p99=5 span.ledger.validate.p99=10 \
		span.tx.apply.p50=5 job.accept.running.p95=100000:us &&
	bl ladder compare --baseline baseline.json --thresholds thresholds.json --current at.json >out &&
	row span.tx.process.p99 "ms +0.994514815151108 +5 +\+4.005485184848892 +\+402.8% +4.005485184848892 +- +pass" &&
	row job.accept.running.p95 "us +17428.6 +100000 +\+82571.4 +\+473.8% +82571.4 +- +pass" &&
	capture over.json span.tx.process.p99=5.000000000000001 span.ledger.validate.p99=10.000000000000002 \
		span.tx.apply.p50=5.000000000000001 job.accept.running.p95=100000.00000000001:us &&
	expect_exit 1 bl ladder compare --baseline baseline.json --thresholds thresholds.json --current over.json >out &&
	test "$(grep -c "REGRESSED\$" out)" = 4 &&
	test "$(tail -1 out)" = "summary: 4 gated, 4 regressed, 0 missing, 0 not gated"
'

test_expect 'a 10x regression on the 9.43x-floor key fires, a 9x one does not' '
	capture x10.json span.ledger.validate.p99=10.6 &&
	expect_exit 1 bl ladder compare --baseline baseline.json --thresholds pct.json --current x10.json >out &&
	row span.ledger.validate.p99 "ms +1.06 +10.6 +\+9.54 +\+900.0% +8.94 +50% +REGRESSED" &&
	capture x9.json span.ledger.validate.p99=9.54 &&
	bl ladder compare --baseline baseline.json --thresholds pct.json --current x9.json >out &&
	row span.ledger.validate.p99 "ms +1.06 +9.54 +\+8.479999999999999 +\+800.0% +8.94 +50% +pass"
'

test_expect 'the AND rule: over the absolute bound but under the percentage does not fire' '
	echo "{\"overrides\": {\"span.ledger.validate\": {\"p99\": {\"max_abs_increase_ms\": 8.94, \"max_pct_increase\": 950}}}}" >and.json &&
	capture x10.json span.ledger.validate.p99=10.6 &&
	bl ladder compare --baseline baseline.json --thresholds and.json --current x10.json >out 2>/dev/null &&
	row span.ledger.validate.p99 "ms +1.06 +10.6 +\+9.54 +\+900.0% +8.94 +950% +pass"
'

test_expect 'a missing key does not fail and is reported and counted' '
	capture miss.json span.tx.process.p99=1 span.ledger.validate.p99=null span.tx.apply.p50=0.8 &&
	bl ladder compare --baseline baseline.json --thresholds thresholds.json --current miss.json \
		--report report.json >out &&
	row span.ledger.validate.p99 "ms +1.06 +- +- +- +8.94 +- +not captured in current run" &&
	row job.accept.running.p95 "us +17428.6 +- +- +- +82571.4 +- +not captured in current run" &&
	test "$(tail -1 out)" = "summary: 2 gated, 0 regressed, 2 missing, 0 not gated" &&
	test "$(json_get report.json "\$j->{summary}{missing}")" = 2 &&
	test "$(json_get report.json "join \" \", map { \$_->{key} } grep { (\$_->{note} // \"\") eq \"not captured in current run\" } @{\$j->{metrics}}")" = "job.accept.running.p95 span.ledger.validate.p99"
'

test_expect 'a key with no threshold is listed and counted as not gated, never passed silently' '
	capture new.json span.tx.process.p99=0.9 span.ledger.validate.p99=1 span.tx.apply.p50=0.8 \
		job.accept.running.p95=17000:us span.rpc.call.p95=3 &&
	echo "{\"overrides\": {\"span.tx.process\": {\"p99\": {\"max_abs_increase_ms\": 4.005485184848892}}}}" >partial.json &&
	bl ladder compare --baseline baseline.json --thresholds partial.json --current new.json \
		--report report.json >out &&
	row span.tx.apply.p50 "ms +0.7917 +0.8 +\+0.008300000000000085 +\+1.0% +- +- +no threshold configured" &&
	row span.rpc.call.p95 "ms +- +3 +- +- +- +- +not in baseline" &&
	test "$(tail -1 out)" = "summary: 1 gated, 0 regressed, 0 missing, 4 not gated" &&
	test "$(json_get report.json "\$j->{summary}{not_gated}")" = 4 &&
	test "$(json_get report.json "\$j->{metrics}[2]{note}")" = "not in baseline"
'

test_expect 'a unit mismatch is a regression' '
	capture unit.json span.tx.process.p99=0.9:us span.ledger.validate.p99=1.06 \
		span.tx.apply.p50=0.7917 job.accept.running.p95=17428.6:us &&
	expect_exit 1 bl ladder compare --baseline baseline.json --thresholds thresholds.json \
		--current unit.json --report report.json >out &&
	row span.tx.process.p99 "ms +0.994514815151108 +0.9 +- +- +4.005485184848892 +- +REGRESSED: unit mismatch: baseline ms, current us" &&
	test "$(json_get report.json "\$j->{metrics}[3]{regressed} ? 1 : 0")" = 1 &&
	test "$(json_get report.json "\$j->{metrics}[3]{note}")" = "unit mismatch: baseline ms, current us"
'

test_expect 'a baseline that is not positive is judged on the absolute bound alone' '
	echo "{\"metrics\": {\"span.idle.wait.p50\": {\"value\": 0, \"unit\": \"ms\"}}}" >zero.json &&
	echo "{\"overrides\": {\"span.idle.wait\": {\"p50\": {\"max_abs_increase_ms\": 0.05, \"max_pct_increase\": 1000000}}}}" >zero-thr.json &&
	capture jump.json span.idle.wait.p50=500 &&
	expect_exit 1 bl ladder compare --baseline zero.json --thresholds zero-thr.json --current jump.json >out &&
	row span.idle.wait.p50 "ms +0 +500 +\+500 +- +0.05 +1000000% +REGRESSED" &&
	capture small.json span.idle.wait.p50=0.05 &&
	bl ladder compare --baseline zero.json --thresholds zero-thr.json --current small.json >out
'

test_expect 'the report: every key present, null where a value does not apply, in the one format' '
	capture rep.json span.tx.process.p99=0.9 &&
	echo "{\"overrides\": {\"span.tx.process\": {\"p99\": {\"max_abs_increase_ms\": 4.005485184848892}}}}" >one.json &&
	echo "{\"metrics\": {\"span.tx.process.p99\": {\"value\": 0.994514815151108, \"unit\": \"ms\"}, \"span.x.y.p50\": {\"value\": 2, \"unit\": \"ms\"}}}" >two.json &&
	bl ladder compare --baseline two.json --thresholds one.json --current rep.json --report report.json >/dev/null &&
	cat >want <<-\EOF &&
	{
	  "metrics": [
	    {
	      "baseline": 0.994514815151108,
	      "current": 0.9,
	      "delta": -0.09451481515110793,
	      "key": "span.tx.process.p99",
	      "max_abs_increase": 4.005485184848892,
	      "max_pct_increase": null,
	      "note": null,
	      "pct_change": -9.503610575851221,
	      "regressed": false,
	      "unit": "ms"
	    },
	    {
	      "baseline": 2.0,
	      "current": null,
	      "delta": null,
	      "key": "span.x.y.p50",
	      "max_abs_increase": null,
	      "max_pct_increase": null,
	      "note": "not captured in current run",
	      "pct_change": null,
	      "regressed": false,
	      "unit": "ms"
	    }
	  ],
	  "summary": {
	    "gated": 1,
	    "missing": 1,
	    "not_gated": 0,
	    "regressed": 0
	  }
	}
	EOF
	cmp want report.json
'

test_expect 'a placeholder baseline prints the capture byte for byte in the baseline format, exit 0' '
	echo "{\"schema_version\": 1, \"placeholder\": true, \"metrics\": {}}" >ph.json &&
	printf "%s" "{\"window\":\"3m\",\"schema_version\":1,\"profile\":\"full\",\"metrics\":{\"span.tx.process.p99\":{\"unit\":\"ms\",\"value\":12.4},\"job.queue.wait.p95\":{\"value\":1500.0,\"unit\":\"us\"},\"span.gone.p50\":{\"value\":null,\"unit\":\"ms\"}},\"git_sha\":\"abc\",\"captured_at\":\"2026-04-24T17:30:00Z\"}" >raw.json &&
	bl ladder compare --baseline ph.json --thresholds thresholds.json --current raw.json >printed.json 2>err &&
	cat >want <<-\EOF &&
	{
	  "captured_at": "2026-04-24T17:30:00Z",
	  "git_sha": "abc",
	  "metrics": {
	    "job.queue.wait.p95": {
	      "unit": "us",
	      "value": 1500.0
	    },
	    "span.tx.process.p99": {
	      "unit": "ms",
	      "value": 12.4
	    }
	  },
	  "profile": "full",
	  "schema_version": 1,
	  "window": "3m"
	}
	EOF
	cmp want printed.json &&
	grep -Fx "benchline: span.gone.p50: not captured in current run: left out of the printed baseline" err &&
	grep -q "^benchline: '"'"'ph.json'"'"' is a placeholder baseline: nothing was gated" err
'

test_expect 'an empty metrics object is a placeholder too; the printed capture is a working baseline' '
	echo "{\"schema_version\": 1, \"metrics\": {}}" >empty.json &&
	bl ladder compare --baseline empty.json --thresholds thresholds.json --current same.json >new-baseline.json 2>/dev/null &&
	bl ladder derive --baseline new-baseline.json --ladders ladders.json >new-thr.json &&
	cmp new-thr.json thresholds.json &&
	bl ladder compare --baseline new-baseline.json --thresholds new-thr.json --current same.json >out &&
	test "$(tail -1 out)" = "summary: 4 gated, 0 regressed, 0 missing, 0 not gated" &&
	bl ladder compare --baseline empty.json --thresholds thresholds.json --current new-baseline.json >again.json 2>/dev/null &&
	cmp again.json new-baseline.json
'

test_expect 'floors: weakest first, keys that cannot be gated before them' '
	bl ladder floors --baseline baseline.json --ladders ladders.json >out &&
	test "$(cat out)" = "span.ledger.validate.p99  1.06 ms               fires at 10 ms      floor 9.43x
span.tx.apply.p50         0.7917 ms             fires at 5 ms       floor 6.32x
job.accept.running.p95    17428.6 us            fires at 100000 us  floor 5.74x
span.tx.process.p99       0.994514815151108 ms  fires at 5 ms       floor 5.03x" &&
	bl ladder floors --baseline bad-baseline.json --ladders ladders.json >out &&
	head -4 out | grep -q "cannot be gated" &&
	grep -E "^span.rpc.huge.p99 +750 ms +cannot be gated: top bucket \(500, 1000\] has no edge above$" out &&
	grep -E "^span.ledger.store.p95 +0.0095 ms +cannot be gated: floor signature \(0.95 x the first edge 0.01 ms\)$" out &&
	tail -1 out | grep -E "^span.ledger.near.p95 +0.009500000000000001 ms +fires at 0.05 ms +floor 5.26x$"
'

test_expect 'floors --json: exactly one document, every key present' '
	bl ladder floors --baseline bad-baseline.json --ladders ladders.json --json >out &&
	test "$(json_get out "scalar @\$j")" = 5 &&
	test "$(json_get out "\$j->[0]{key}")" = span.ledger.store.p50 &&
	test "$(json_get out "\$j->[0]{gated} ? 1 : 0")" = 0 &&
	test "$(json_get out "\$j->[0]{note}")" = floor-signature &&
	grep -Fx "    \"floor\": 5.263157894736842," out &&
	test "$(json_get out "join \",\", sort keys %{\$j->[4]}")" = "baseline,bucket,floor,gated,hi_next,key,note,unit"
'

# refused EXPECTED-STDERR CMD...: exit 2, stdout empty, stderr exactly the one line.
refused() {
	expected=$1
	shift
	expect_exit 2 bl ladder "$@" >out 2>err &&
	test ! -s out &&
	test "$(cat err)" = "benchline: $expected" || { echo "stderr: $(cat err)"; return 1; }
}

test_expect 'malformed ladders: exit 2 naming the file and the ladder or category' '
	echo "{\"ladders\": {\"ms\": {\"unit\": \"ms\", \"edges\": [0.01, 0.5, 0.1]}}, \"categories\": {\"span\": \"ms\"}}" >l.json &&
	refused "l.json: ms: edges must be strictly increasing: edge 3 (0.1) is not above edge 2 (0.5)" \
		floors --baseline baseline.json --ladders l.json &&
	echo "{\"ladders\": {\"ms\": {\"unit\": \"ms\", \"edges\": [0, 0.5]}}, \"categories\": {\"span\": \"ms\"}}" >l.json &&
	refused "l.json: ms: edge 1 (0) must be positive" derive --baseline baseline.json --ladders l.json &&
	echo "{\"ladders\": {\"ms\": {\"unit\": \"ms\", \"edges\": [-1, 0.5]}}, \"categories\": {}}" >l.json &&
	refused "l.json: ms: edge 1 (-1) must be positive" derive --baseline baseline.json --ladders l.json &&
	echo "{\"ladders\": {\"ms\": {\"unit\": \"ms\", \"edges\": [1, 1]}}, \"categories\": {}}" >l.json &&
	refused "l.json: ms: edges must be strictly increasing: edge 2 (1) is not above edge 1 (1)" \
		derive --baseline baseline.json --ladders l.json &&
	echo "{\"ladders\": {\"ms\": {\"unit\": \"ms\", \"edges\": [0.1, \"0.5\"]}}, \"categories\": {}}" >l.json &&
	refused "l.json: ms: edge 2 must be a number, not a string" derive --baseline baseline.json --ladders l.json &&
	echo "{\"ladders\": {\"ms\": {\"unit\": \"ms\", \"edges\": \"0.1\"}}, \"categories\": {}}" >l.json &&
	refused "l.json: ms: \"edges\" must be an array, not a string" derive --baseline baseline.json --ladders l.json &&
	echo "{\"ladders\": {\"ms\": {\"unit\": \"ms\", \"edges\": [1, 2]}}, \"categories\": {\"span\": \"nope\"}}" >l.json &&
	refused "l.json: categories.span: unknown ladder '"'"'nope'"'"'" floors --baseline baseline.json --ladders l.json &&
	echo "{\"ladders\": {\"ms\": {\"unit\": \"ms\", \"edges\": [1, 2]}}, \"categories\": {\"span\": \"ms\"}}" >l.json &&
	refused "baseline.json: job.accept.running.p95: category '"'"'job'"'"' has no ladder (it is not in the ladders file'"'"'s \"categories\")" \
		check --baseline baseline.json --thresholds thresholds.json --ladders l.json &&
	echo "{\"ladders\": {\"ms\": {\"unit\": \"us\", \"edges\": [1, 2]}}, \"categories\": {\"span\": \"ms\", \"job\": \"ms\"}}" >l.json &&
	refused "baseline.json: span.ledger.validate.p99: unit '"'"'ms'"'"', but its ladder '"'"'ms'"'"' is in '"'"'us'"'"'" \
		floors --baseline baseline.json --ladders l.json
'

test_expect 'malformed baselines and captures: exit 2 naming the file and the key' '
	echo "{\"metrics\": {\"span.a.p95\": {\"value\": \"1\", \"unit\": \"ms\"}}}" >b.json &&
	refused "b.json: span.a.p95: \"value\" must be a number, not a string" floors --baseline b.json --ladders ladders.json &&
	echo "{\"metrics\": {\"span.a.p95\": {\"value\": 1, \"unit\": 5}}}" >b.json &&
	refused "b.json: span.a.p95: \"unit\" must be a non-empty string, not a number" floors --baseline b.json --ladders ladders.json &&
	echo "{\"metrics\": {\"span.a.q95\": {\"value\": 1, \"unit\": \"ms\"}}}" >b.json &&
	refused "b.json: span.a.q95: '"'"'q95'"'"' is not a quantile (p followed by digits: p50, p95, p999)" floors --baseline b.json --ladders ladders.json &&
	echo "{\"metrics\": {\"span.p95\": {\"value\": 1, \"unit\": \"ms\"}}}" >b.json &&
	refused "b.json: span.p95: not a key of the form {category}.{name}.p{quantile}" floors --baseline b.json --ladders ladders.json &&
	echo "{\"metrics\": {\"rpc.call.p95\": {\"value\": 1, \"unit\": \"ms\"}}}" >b.json &&
	refused "b.json: rpc.call.p95: category '"'"'rpc'"'"' has no ladder (it is not in the ladders file'"'"'s \"categories\")" derive --baseline b.json --ladders ladders.json &&
	echo "{\"metrics\": {\"span.a.p95\": {\"value\": null, \"unit\": \"ms\"}}}" >b.json &&
	refused "b.json: span.a.p95: value is null: a baseline holds captured values only (leave the key out)" compare --baseline b.json --thresholds thresholds.json --current same.json &&
	echo "{\"metrics\": [1]}" >b.json &&
	refused "b.json: metrics: must be an object, not an array" floors --baseline b.json --ladders ladders.json &&
	printf "{\"metrics\": {\n  \"span.a.p95\": {\"value\": 1,}}}\n" >b.json &&
	refused "b.json:2:29: string or '"'"'}'"'"' expected near '"'"'}'"'"'" floors --baseline b.json --ladders ladders.json &&
	echo "{\"metrics\": {\"span.a.p95\": {\"value\": true, \"unit\": \"ms\"}}}" >c.json &&
	refused "c.json: span.a.p95: \"value\" must be a number, not a boolean" compare --baseline baseline.json --thresholds thresholds.json --current c.json &&
	refused "cannot open '"'"'nope.json'"'"': No such file or directory" floors --baseline nope.json --ladders ladders.json
'

test_expect 'malformed thresholds and declared keys: exit 2 naming the file and the key' '
	echo "{\"overrides\": {\"span.a\": {\"p95\": {\"max_abs_increase_ms\": \"0.1\"}}}}" >t.json &&
	refused "t.json: overrides.span.a.p95.max_abs_increase_ms: must be a number, not a string" compare --baseline baseline.json --thresholds t.json --current same.json &&
	echo "{\"overides\": {}}" >t.json &&
	refused "t.json: overides: unknown key (a thresholds file has \"defaults\" and \"overrides\")" check --baseline baseline.json --thresholds t.json --ladders ladders.json &&
	echo "{\"overrides\": {\"span.tx.process\": {\"p99\": {\"max_abs_increase_kb\": 1}}}}" >t.json &&
	refused "t.json: span.tx.process.p99: max_abs_increase_kb (override '"'"'span.tx.process'"'"'): '"'"'kb'"'"' is not the key'"'"'s unit '"'"'ms'"'"' and cannot be converted to it" compare --baseline baseline.json --thresholds t.json --current same.json &&
	echo "{\"defaults\": {\"span\": {\"p95\": {\"max_pct_increase\": -5}}}}" >t.json &&
	refused "t.json: defaults.span.p95.max_pct_increase: must not be negative" compare --baseline baseline.json --thresholds t.json --current same.json &&
	echo "{\"keys\": [\"span.tx.process.p99\", 7]}" >d.json &&
	refused "d.json: keys: entry 2 must be a string, not a number" check --baseline baseline.json --thresholds thresholds.json --ladders ladders.json --declared d.json &&
	echo "{\"keys\": [\"span.tx.process.p100\"]}" >d.json &&
	refused "d.json: span.tx.process.p100: '"'"'p100'"'"' reads as 0.100: write it p10 (there is no p100)" check --baseline baseline.json --thresholds thresholds.json --ladders ladders.json --declared d.json
'

test_expect 'bad usage: exit 2 with the usage' '
	expect_exit 2 bl ladder 2>err && grep -q "ladder needs a subcommand" err && grep -q "^usage: benchline ladder derive" err &&
	expect_exit 2 bl ladder frobnicate 2>err && grep -q "unknown subcommand .frobnicate." err &&
	expect_exit 2 bl ladder derive --baseline baseline.json 2>err && grep -q "ladder derive needs --ladders" err &&
	expect_exit 2 bl ladder derive --baseline baseline.json --ladders ladders.json --current x 2>err &&
	grep -q "ladder derive does not take --current" err &&
	expect_exit 2 bl ladder derive --baseline baseline.json --ladders ladders.json --pct -1 2>err &&
	grep -q "pct wants a number of percent, 0 or more, not .-1." err &&
	expect_exit 2 bl ladder floors --baseline ph.json --ladders ladders.json 2>err &&
	grep -q "ph.json: the baseline is a placeholder: capture one first" err &&
	bl ladder --help >out && grep -q "^   or: benchline ladder floors --baseline B --ladders L \[--json\]$" out &&
	test ! -e "$BENCHLINE_DB"
'

test_done

/*
 * Unit tests for the bucket ladders of §8 (detect/ladder/ladder.c, detect/ladder/files.c): where
 * a value lies at, just under and just over every edge; bounds, trip points and floors; the
 * floor signature to the last bit; the AND rule; keys and quantiles; the one JSON output format
 * (its shortest round-trip numbers are common's, tested in test_common.c); the files' refusals; the
 * four operations on small in-memory files.
 */
#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/common.h"
#include "detect/detect.h"
#include "detect/ladder/ladder.h"

/* The millisecond ladder of docs/ladder.md. */
static double ms_edges[] = {0.01, 0.05, 0.1, 0.5, 1, 5, 10, 50, 100, 500, 1000};
static const struct ladder ms = {(char *)"ms", (char *)"ms", ms_edges,
				 sizeof(ms_edges) / sizeof(ms_edges[0])};

static const char ladders_text[] =
    "{\"ladders\": {\"ms\": {\"unit\": \"ms\", \"edges\": [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 50, "
    "100, 500, 1000]}, \"us\": {\"unit\": \"us\", \"edges\": [100, 500, 1000, 5000, 25000, "
    "100000]}}, \"categories\": {\"span\": \"ms\", \"job\": \"us\"}}";

static int same(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

/* Checks out against the bucket that edge index i closes (i == n: above the last edge). */
static void expect_bucket(const struct ladder_bucket *b, const struct ladder *l, size_t i)
{
	assert_int_equal(b->index, i);
	assert_true(same(b->lo, i == 0 ? NAN : l->edges[i - 1]));
	assert_true(same(b->hi, i < l->n ? l->edges[i] : NAN));
	assert_true(same(b->hi_next, i + 1 < l->n ? l->edges[i + 1] : NAN));
	assert_int_equal(b->top, i + 1 >= l->n);
}

static void bucket_at_under_and_over_every_edge(void **state)
{
	struct ladder_bucket b;
	(void)state;
	for (size_t i = 0; i < ms.n; i++) {
		double e = ms.edges[i];
		/* (lo, hi]: the edge itself closes bucket i, one ulp below too, one ulp above
		 * opens bucket i + 1. */
		ladder_bucket_locate(&b, &ms, e);
		expect_bucket(&b, &ms, i);
		ladder_bucket_locate(&b, &ms, nextafter(e, 0));
		expect_bucket(&b, &ms, i);
		ladder_bucket_locate(&b, &ms, nextafter(e, INFINITY));
		expect_bucket(&b, &ms, i + 1);
	}
}

static void bucket_below_the_first_and_above_the_last(void **state)
{
	struct ladder_bucket b;
	const double below[] = {0.001, 1e-300, 0, -0.0, -5};
	(void)state;
	for (size_t i = 0; i < sizeof(below) / sizeof(below[0]); i++) {
		ladder_bucket_locate(&b, &ms, below[i]);
		expect_bucket(&b, &ms, 0);
		assert_true(isnan(b.lo));
		assert_true(b.hi == 0.01 && b.hi_next == 0.05 && !b.top);
	}
	ladder_bucket_locate(&b, &ms, 1000.5);
	expect_bucket(&b, &ms, ms.n);
	assert_true(b.lo == 1000 && isnan(b.hi) && isnan(b.hi_next) && b.top);
	ladder_bucket_locate(&b, &ms, INFINITY);
	expect_bucket(&b, &ms, ms.n);
	/* The last bucket (500, 1000] has no edge above it: top too. */
	ladder_bucket_locate(&b, &ms, 750);
	assert_true(b.index == ms.n - 1 && b.lo == 500 && b.hi == 1000 && b.top);
	ladder_bucket_locate(&b, &ms, NAN);
	assert_true(b.top && isnan(b.hi_next));
}

static void bounds_trip_points_and_floors(void **state)
{
	(void)state;
	/* 1.06 in (1, 5]: hi_next 10, bound 8.94, floor 10 / 1.06. */
	assert_true(ladder_bound(&ms, 1.06) == 10 - 1.06);
	assert_true(ladder_floor(&ms, 1.06) == 10 / 1.06);
	assert_true(fabs(ladder_floor(&ms, 1.06) - 9.4339622641509) < 1e-12);
	/* The worked example of docs/ladder.md. */
	assert_true(ladder_bound(&ms, 0.994514815151108) == 4.005485184848892);
	/* On an edge the value is in the bucket that edge closes: 5 is in (1, 5], hi_next 10. */
	assert_true(ladder_bound(&ms, 5) == 5);
	assert_true(ladder_floor(&ms, 5) == 2);
	/* Below the first edge: (-inf, 0.01], hi_next 0.05. */
	assert_true(ladder_bound(&ms, 0.001) == 0.05 - 0.001);
	assert_true(ladder_bound(&ms, 0) == 0.05);
	assert_true(isnan(ladder_floor(&ms, 0)));
	assert_true(isnan(ladder_floor(&ms, -1)));
	/* The top bucket and above: no bound, no floor. */
	assert_true(isnan(ladder_bound(&ms, 750)));
	assert_true(isnan(ladder_bound(&ms, 5000)));
	assert_true(isnan(ladder_floor(&ms, 750)));
	/* 500 closes (100, 500]: hi_next 1000 exists. */
	assert_true(ladder_bound(&ms, 500) == 500);
}

/* The exact rounding error of a - b (Knuth's TwoSum), to recognise a tie. */
static double sub_error(double a, double b)
{
	double s = a - b, bb = s - a;
	return (a - (s - bb)) + (-b - bb);
}

/*
 * For baselines all over the ladder: a reading at hi_next never fires (the reading's delta is
 * the very subtraction that made the bound), two ulps above always does, and one ulp above
 * does too unless hi_next - baseline was a rounding tie that the next double shares.
 */
static void the_trip_point_is_hi_next(void **state)
{
	size_t checked = 0, ties = 0;
	(void)state;
	for (size_t i = 0; i + 1 < ms.n; i++) {
		double lo = i ? ms.edges[i - 1] : ms.edges[0] / 10, hi = ms.edges[i];
		for (int k = 1; k <= 256; k++) {
			double b = lo + (hi - lo) * k / 256.0, bound = ladder_bound(&ms, b);
			double trip = ms.edges[i + 1], up = nextafter(trip, INFINITY);
			if (b > hi)
				continue;
			assert_true(bound == trip - b);
			assert_false(ladder_regressed(b, trip, bound, NAN));
			assert_false(ladder_regressed(b, nextafter(trip, 0), bound, NAN));
			assert_true(ladder_regressed(b, nextafter(up, INFINITY), bound, NAN));
			if (!ladder_regressed(b, up, bound, NAN)) {
				double e = sub_error(up, b), s = up - b;
				assert_true(fabs(e) * 2 == nextafter(s, INFINITY) - s);
				ties++;
			}
			/* A percentage bound below the floor leaves the trip point where it is. */
			assert_false(ladder_regressed(b, trip, bound, 1));
			assert_true(ladder_regressed(b, nextafter(up, INFINITY), bound, 1));
			checked++;
		}
	}
	assert_true(checked > 2000);
	/* The grid above has short mantissas, so ties are common here (about 2%). */
	assert_true(ties < checked / 10);
}

static void the_floor_signature_to_the_last_bit(void **state)
{
	double q95, q50, q99, q999;
	(void)state;
	assert_int_equal(ladder_quantile(&q95, "p95", NULL), 0);
	assert_int_equal(ladder_quantile(&q50, "p50", NULL), 0);
	assert_int_equal(ladder_quantile(&q99, "p99", NULL), 0);
	assert_int_equal(ladder_quantile(&q999, "p999", NULL), 0);
	/* The literals a histogram prints when every sample fell under 0.01. */
	assert_true(ladder_floor_signature(&ms, q95, strtod("0.0095", NULL)));
	assert_true(ladder_floor_signature(&ms, q50, strtod("0.005", NULL)));
	assert_true(ladder_floor_signature(&ms, q99, strtod("0.0099", NULL)));
	assert_true(ladder_floor_signature(&ms, q999, 0.999 * 0.01));
	/* One ulp either way is a latency, not the signature. */
	assert_false(ladder_floor_signature(&ms, q95, nextafter(0.0095, 1)));
	assert_false(ladder_floor_signature(&ms, q95, nextafter(0.0095, 0)));
	assert_false(ladder_floor_signature(&ms, q99, 0.0095));
	assert_false(ladder_floor_signature(&ms, q95, 0.01));
}

/* The same through a baseline file: 0.0095 as written is the signature, the next double up
 * (written in its own shortest form) is not. */
static void the_floor_signature_from_json(void **state)
{
	struct ladder_run r;
	struct strbuf text = STRBUF_INIT;
	char up[DOUBLE_TEXT_MAX];
	(void)state;
	format_double(up, nextafter(0.0095, 1), DOUBLE_POINT_ZERO);
	assert_string_equal(up, "0.009500000000000001");
	strbuf_addf(&text,
		    "{\"metrics\": {\"span.a.p95\": {\"value\": 0.0095, \"unit\": \"ms\"}, "
		    "\"span.b.p95\": {\"value\": %s, \"unit\": \"ms\"}}}",
		    up);
	assert_int_equal(ladder_run_parse(&r, "b.json", text.buf, text.len, 1, NULL), 0);
	assert_int_equal(r.n, 2);
	assert_string_equal(r.metrics[0].key, "span.a.p95");
	assert_true(ladder_floor_signature(&ms, r.metrics[0].q, r.metrics[0].value));
	assert_false(ladder_floor_signature(&ms, r.metrics[1].q, r.metrics[1].value));
	ladder_run_release(&r);
	strbuf_release(&text);
}

static void the_and_rule(void **state)
{
	(void)state;
	/* Over both: fires; over one only: does not. */
	assert_true(ladder_regressed(10, 20, 5, 50));
	assert_false(ladder_regressed(10, 14, 5, 10));	/* +4: under abs 5 */
	assert_false(ladder_regressed(10, 20, 15, 50)); /* +10: under abs 15 */
	assert_false(ladder_regressed(10, 20, 5, 100)); /* +100%: not over 100% */
	assert_true(ladder_regressed(10, 20.000001, 5, 100));
	/* One bound missing: the other decides; both missing: never. */
	assert_true(ladder_regressed(10, 16, NAN, 50));
	assert_false(ladder_regressed(10, 15, NAN, 50));
	assert_true(ladder_regressed(10, 16, 5, NAN));
	assert_false(ladder_regressed(10, 1e9, NAN, NAN));
	/* Faster is never a regression. */
	assert_false(ladder_regressed(10, 1, 0, 0));
	/* A baseline that is not positive: the absolute bound alone (0 -> 500 must fire). */
	assert_true(ladder_regressed(0, 500, 10, 50));
	assert_false(ladder_regressed(0, 5, 10, 0));
	assert_true(ladder_regressed(-1, 10, 10, 1e9));
	assert_false(ladder_regressed(0, 500, NAN, 50));
	/* No reading: nothing to judge. */
	assert_false(ladder_regressed(10, NAN, 0, 0));
}

static void quantiles_and_keys(void **state)
{
	struct ladder_key k;
	struct bl_error err = BL_ERROR_INIT;
	double q;
	const char *bad[] = {"p", "q95", "p9a", "p-5", "p100", "p500", "p0", "p00", "P95", "p95 "};
	(void)state;
	assert_int_equal(ladder_quantile(&q, "p50", NULL), 0);
	assert_true(q == 0.5);
	assert_int_equal(ladder_quantile(&q, "p95", NULL), 0);
	assert_true(q == 0.95);
	assert_int_equal(ladder_quantile(&q, "p999", NULL), 0);
	assert_true(q == 0.999);
	assert_int_equal(ladder_quantile(&q, "p9999", NULL), 0);
	assert_true(q == 0.9999);
	assert_int_equal(ladder_quantile(&q, "p5", NULL), 0);
	assert_true(q == 0.05);
	assert_int_equal(ladder_quantile(&q, "p10", NULL), 0);
	assert_true(q == 0.1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(ladder_quantile(&q, bad[i], &err), BL_EINVALID);
	assert_int_equal(ladder_quantile(&q, "p100", &err), BL_EINVALID);
	assert_string_equal(err.msg.buf, "'p100' reads as 0.100: write it p10 (there is no p100)");

	assert_int_equal(ladder_key_parse(&k, "span.ledger.validate.p99", NULL), 0);
	assert_int_equal(k.category_len, 4);
	assert_int_equal(k.group_len, strlen("span.ledger.validate"));
	assert_string_equal(k.suffix, "p99");
	assert_true(k.q == 0.99);
	assert_int_equal(ladder_key_parse(&k, "job.acceptLedger.running.p95", NULL), 0);
	assert_int_equal(k.category_len, 3);
	const char *badkeys[] = {"span.p99", ".a.p99", "span..p99", "span.a.",
				 "spanp99",  "",       "span.a.99", "span.a.p99x"};
	for (size_t i = 0; i < sizeof(badkeys) / sizeof(badkeys[0]); i++)
		assert_int_equal(ladder_key_parse(&k, badkeys[i], &err), BL_EINVALID);
	bl_error_release(&err);
}

static void time_units_convert(void **state)
{
	double v;
	(void)state;
	assert_int_equal(ladder_unit_convert(&v, 4005.485184848892, "us", "ms"), 0);
	assert_true(fabs(v - 4.005485184848892) <= 1e-15 * 4.005485184848892);
	assert_int_equal(ladder_unit_convert(&v, 2.5, "s", "ns"), 0);
	assert_true(v == 2.5e9);
	assert_int_equal(ladder_unit_convert(&v, 7, "ms", "ms"), 0);
	assert_true(v == 7);
	assert_int_equal(ladder_unit_convert(&v, 7, "kb", "kb"), 0);
	assert_int_equal(ladder_unit_convert(&v, 7, "ms", "kb"), BL_EINVALID);
	assert_int_equal(ladder_unit_convert(&v, 7, "frames", "ms"), BL_EINVALID);
}

static void the_output_format(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *doc = json_pack("{s:{s:{s:f,s:s}},s:i,s:[f,n],s:{},s:[],s:b}", "metrics",
				"span.b.p95", "value", 12.4, "unit", "ms", "schema_version", 1,
				"arr", 0.5, "empty", "none", "flag", 1);
	(void)state;
	ladder_json_dump(&sb, doc);
	assert_string_equal(sb.buf, "{\n"
				    "  \"arr\": [\n"
				    "    0.5,\n"
				    "    null\n"
				    "  ],\n"
				    "  \"empty\": {},\n"
				    "  \"flag\": true,\n"
				    "  \"metrics\": {\n"
				    "    \"span.b.p95\": {\n"
				    "      \"unit\": \"ms\",\n"
				    "      \"value\": 12.4\n"
				    "    }\n"
				    "  },\n"
				    "  \"none\": [],\n"
				    "  \"schema_version\": 1\n"
				    "}\n");
	json_decref(doc);
	strbuf_release(&sb);
}

/* Parses a ladders file; returns the error message (static) or "" when it was accepted. */
static const char *ladders_error(const char *text)
{
	static struct bl_error err = BL_ERROR_INIT;
	struct ladder_set set;
	int ret = ladder_set_parse(&set, "l.json", text, strlen(text), &err);
	ladder_set_release(&set);
	return ret ? err.msg.buf : "";
}

static void ladders_are_refused_by_name(void **state)
{
	(void)state;
	assert_string_equal(ladders_error("{\"ladders\": {\"a\": {\"unit\": \"ms\", \"edges\": [1, "
					  "2]}}, \"categories\": {\"x\": \"a\"}}"),
			    "");
	assert_string_equal(ladders_error("{\"ladders\": {\"a\": {\"unit\": \"ms\", \"edges\": "
					  "[1, 3, 2]}}, \"categories\": {}}"),
			    "l.json: a: edges must be strictly increasing: edge 3 (2) is not above "
			    "edge 2 (3)");
	assert_string_equal(ladders_error("{\"ladders\": {\"a\": {\"unit\": \"ms\", \"edges\": "
					  "[1, 1]}}, \"categories\": {}}"),
			    "l.json: a: edges must be strictly increasing: edge 2 (1) is not above "
			    "edge 1 (1)");
	assert_string_equal(ladders_error("{\"ladders\": {\"a\": {\"unit\": \"ms\", \"edges\": "
					  "[-1, 1]}}, \"categories\": {}}"),
			    "l.json: a: edge 1 (-1) must be positive");
	assert_string_equal(ladders_error("{\"ladders\": {\"a\": {\"unit\": \"ms\", \"edges\": "
					  "[0, 1]}}, \"categories\": {}}"),
			    "l.json: a: edge 1 (0) must be positive");
	assert_string_equal(ladders_error("{\"ladders\": {\"a\": {\"unit\": \"ms\", \"edges\": "
					  "[1]}}, \"categories\": {}}"),
			    "l.json: a: \"edges\" needs at least 2 edges, has 1");
	assert_string_equal(ladders_error("{\"ladders\": {\"a\": {\"unit\": \"ms\", \"edges\": "
					  "[1, \"2\"]}}, \"categories\": {}}"),
			    "l.json: a: edge 2 must be a number, not a string");
	assert_string_equal(ladders_error("{\"ladders\": {\"a\": {\"unit\": 3, \"edges\": [1, "
					  "2]}}, \"categories\": {}}"),
			    "l.json: a: \"unit\" must be a non-empty string, not a number");
	assert_string_equal(ladders_error("{\"ladders\": {\"a\": [1, 2]}, \"categories\": {}}"),
			    "l.json: a: a ladder must be an object, not an array");
	assert_string_equal(ladders_error("{\"ladders\": {\"a\": {\"unit\": \"ms\", \"edges\": "
					  "[1, 2]}}, \"categories\": {\"span\": \"b\"}}"),
			    "l.json: categories.span: unknown ladder 'b'");
	assert_string_equal(ladders_error("{\"ladders\": {}, \"categories\": {\"span\": 1}}"),
			    "l.json: categories.span: must name a ladder, not a number");
	assert_string_equal(ladders_error("{\"ladders\": {}, \"categoreis\": {}}"),
			    "l.json: categoreis: unknown key (a ladders file has \"ladders\" and "
			    "\"categories\")");
	assert_string_equal(ladders_error("{\"_note\": 1, \"ladders\": {}, \"categories\": {}}"),
			    "");
	assert_string_equal(ladders_error("{\"ladders\": {},\n \"categories\": {}"),
			    "l.json:2:17: '}' expected near end of file");
	assert_string_equal(ladders_error("[]"), "l.json: expected a JSON object");
	/* Duplicate keys would let a stale value hide behind a fresh one. */
	assert_string_equal(ladders_error("{\"ladders\": {}, \"ladders\": {}, \"categories\": {}}"),
			    "l.json:1:25: duplicate object key near '\"ladders\"'");
}

static void parse_all(struct ladder_run *b, struct ladder_set *set, struct ladder_thresholds *t,
		      const char *btext, const char *ttext)
{
	struct bl_error err = BL_ERROR_INIT;
	if (ladder_run_parse(b, "b.json", btext, strlen(btext), 1, &err) ||
	    ladder_set_parse(set, "l.json", ladders_text, strlen(ladders_text), &err) ||
	    (ttext && ladder_thresholds_parse(t, "t.json", ttext, strlen(ttext), &err)))
		fail_msg("%s", err.msg.buf);
	bl_error_release(&err);
}

static void limits_merge_field_by_field(void **state)
{
	struct ladder_run b;
	struct ladder_set set;
	struct ladder_thresholds t;
	struct ladder_limits lim;
	struct bl_error err = BL_ERROR_INIT;
	(void)state;
	parse_all(
	    &b, &set, &t,
	    "{\"metrics\": {\"span.a.p95\": {\"value\": 1, \"unit\": \"ms\"}, \"span.b.p95\": "
	    "{\"value\": 1, \"unit\": \"ms\"}, \"span.c.p99\": {\"value\": 1, \"unit\": "
	    "\"ms\"}}}",
	    "{\"defaults\": {\"span\": {\"p95\": {\"max_pct_increase\": 50, "
	    "\"max_abs_increase_us\": 10}}}, \"overrides\": {\"span.a\": {\"p95\": "
	    "{\"max_abs_increase_ms\": 2}}, \"span.c\": {\"p99\": {\"max_abs_increase_kb\": "
	    "1}}}, \"_derivation_table\": 7}");
	/* span.a: the override's abs, the default's pct. */
	assert_int_equal(ladder_limits_resolve(&lim, &t, &b.metrics[0], &err), 0);
	assert_true(lim.max_abs == 2 && lim.abs_override && lim.max_pct == 50 && !lim.pct_override);
	/* span.b: both from the default, the abs converted from us. */
	assert_int_equal(ladder_limits_resolve(&lim, &t, &b.metrics[1], &err), 0);
	assert_true(lim.max_abs == 0.01 && lim.abs_given == 10 && !lim.abs_override);
	/* span.c: a unit that is not the key's and cannot be converted. */
	assert_int_equal(ladder_limits_resolve(&lim, &t, &b.metrics[2], &err), BL_EINVALID);
	assert_string_equal(err.msg.buf, "t.json: span.c.p99: max_abs_increase_kb (override "
					 "'span.c'): 'kb' is not the key's unit 'ms' and cannot be "
					 "converted to it");
	ladder_thresholds_release(&t);
	ladder_set_release(&set);
	ladder_run_release(&b);
	bl_error_release(&err);
}

static const char *thresholds_error(const char *text)
{
	static struct bl_error err = BL_ERROR_INIT;
	struct ladder_thresholds t;
	int ret = ladder_thresholds_parse(&t, "t.json", text, strlen(text), &err);
	ladder_thresholds_release(&t);
	return ret ? err.msg.buf : "";
}

static void thresholds_are_refused_by_key(void **state)
{
	(void)state;
	assert_string_equal(thresholds_error("{\"overrides\": {\"span.a\": {\"p95\": "
					     "{\"max_abs_increase_ms\": \"1\"}}}}"),
			    "t.json: overrides.span.a.p95.max_abs_increase_ms: must be a number, "
			    "not a string");
	assert_string_equal(
	    thresholds_error("{\"overrides\": {\"span.a\": {\"p95\": {\"max_abs_increase\": 1}}}}"),
	    "t.json: overrides.span.a.p95.max_abs_increase: unknown bound (expected "
	    "max_pct_increase or max_abs_increase_<unit>)");
	assert_string_equal(
	    thresholds_error("{\"overrides\": {\"span\": {\"p95\": {\"max_pct_increase\": 1}}}}"),
	    "t.json: overrides.span: must be CATEGORY.NAME");
	assert_string_equal(
	    thresholds_error("{\"defaults\": {\"span.a\": {\"p95\": {\"max_pct_increase\": 1}}}}"),
	    "t.json: defaults.span.a: must be a category (no dot)");
	assert_string_equal(
	    thresholds_error("{\"defaults\": {\"span\": {\"x95\": {\"max_pct_increase\": 1}}}}"),
	    "t.json: defaults.span.x95: 'x95' is not a quantile (p followed by digits: p50, p95, "
	    "p999)");
	assert_string_equal(
	    thresholds_error("{\"defaults\": {\"span\": {\"p95\": {\"max_pct_increase\": -1}}}}"),
	    "t.json: defaults.span.p95.max_pct_increase: must not be negative");
	assert_string_equal(thresholds_error("{\"defaults\": {\"span\": {\"p95\": "
					     "{\"max_abs_increase_ms\": 1, "
					     "\"max_abs_increase_us\": 1}}}}"),
			    "t.json: defaults.span.p95: two absolute bounds (max_abs_increase_ms "
			    "and max_abs_increase_us): keep one");
	assert_string_equal(thresholds_error("{\"overides\": {}}"),
			    "t.json: overides: unknown key (a thresholds file has \"defaults\" "
			    "and \"overrides\")");
	assert_string_equal(thresholds_error("{\"defaults\": []}"),
			    "t.json: defaults: must be an object, not an array");
}

static const char *run_error(const char *text, int baseline)
{
	static struct bl_error err = BL_ERROR_INIT;
	struct ladder_run r;
	int ret = ladder_run_parse(&r, "b.json", text, strlen(text), baseline, &err);
	ladder_run_release(&r);
	return ret ? err.msg.buf : "";
}

static void runs_are_refused_by_key(void **state)
{
	(void)state;
	assert_string_equal(run_error("{\"metrics\": {\"span.a.p95\": {\"value\": \"1\", "
				      "\"unit\": \"ms\"}}}",
				      1),
			    "b.json: span.a.p95: \"value\" must be a number, not a string");
	assert_string_equal(run_error("{\"metrics\": {\"span.a.p95\": {\"value\": 1}}}", 1),
			    "b.json: span.a.p95: has no \"unit\"");
	assert_string_equal(run_error("{\"metrics\": {\"span.a.p95\": 3}}", 1),
			    "b.json: span.a.p95: must be an object {\"value\", \"unit\"}, not a "
			    "number");
	assert_string_equal(
	    run_error("{\"metrics\": {\"span.p95\": {\"value\": 1, \"unit\": "
		      "\"ms\"}}}",
		      1),
	    "b.json: span.p95: not a key of the form {category}.{name}.p{quantile}");
	assert_string_equal(run_error("{\"metrics\": {\"span.a.p95\": {\"value\": null, "
				      "\"unit\": \"ms\"}}}",
				      1),
			    "b.json: span.a.p95: value is null: a baseline holds captured values "
			    "only (leave the key out)");
	/* A captured run may miss a value. */
	assert_string_equal(run_error("{\"metrics\": {\"span.a.p95\": {\"value\": null, "
				      "\"unit\": \"ms\"}, \"span.b.p95\": null}}",
				      0),
			    "");
	assert_string_equal(run_error("{\"metrics\": []}", 1),
			    "b.json: metrics: must be an object, not an array");
	assert_string_equal(run_error("{\"placeholder\": 1}", 1),
			    "b.json: placeholder: must be a boolean, not a number");
	assert_string_equal(run_error("{\"schema_version\": 2, \"metrics\": {}}", 1),
			    "b.json: schema_version: must be 1 (the version this benchline reads)");
}

static void placeholders(void **state)
{
	struct ladder_run r;
	const char *texts[] = {"{\"placeholder\": true, \"metrics\": {\"span.a.p95\": "
			       "{\"value\": 1, \"unit\": \"ms\"}}}",
			       "{\"schema_version\": 1}", "{\"metrics\": {}}"};
	(void)state;
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(
		    ladder_run_parse(&r, "b.json", texts[i], strlen(texts[i]), 1, NULL), 0);
		assert_true(r.placeholder);
		ladder_run_release(&r);
	}
	static const char real[] = "{\"placeholder\": false, \"metrics\": {\"span.a.p95\": "
				   "{\"value\": 1, \"unit\": \"ms\"}}}";
	assert_int_equal(ladder_run_parse(&r, "b.json", real, strlen(real), 1, NULL), 0);
	assert_false(r.placeholder);
	ladder_run_release(&r);
}

static const char base_text[] =
    "{\"metrics\": {\"span.tx.process.p99\": {\"value\": 0.994514815151108, \"unit\": \"ms\"}, "
    "\"span.ledger.store.p95\": {\"value\": 0.0095, \"unit\": \"ms\"}, \"span.rpc.huge.p99\": "
    "{\"value\": 750, \"unit\": \"ms\"}, \"job.accept.p95\": {\"value\": 17428.6, \"unit\": "
    "\"us\"}}}";

static void derive_then_check(void **state)
{
	struct ladder_run b;
	struct ladder_set set;
	struct ladder_thresholds t;
	struct ladder_derivation d;
	struct ladder_lint lint;
	struct strbuf out = STRBUF_INIT;
	(void)state;
	parse_all(&b, &set, NULL, base_text, NULL);
	assert_int_equal(ladder_derive(&d, &b, &set, NAN, "b.json", NULL), 0);
	assert_non_null(d.doc);
	ladder_json_dump(&out, json_object_get(d.doc, "overrides"));
	assert_string_equal(out.buf, "{\n"
				     "  \"job.accept\": {\n"
				     "    \"p95\": {\n"
				     "      \"max_abs_increase_us\": 82571.4\n"
				     "    }\n"
				     "  },\n"
				     "  \"span.tx.process\": {\n"
				     "    \"p99\": {\n"
				     "      \"max_abs_increase_ms\": 4.005485184848892\n"
				     "    }\n"
				     "  }\n"
				     "}\n");
	assert_string_equal(
	    d.warnings.buf,
	    "span.ledger.store.p95: baseline 0.0095 ms is 0.95 x the first edge "
	    "0.01 ms: every sample fell in the first bucket, so it cannot move and "
	    "must not be gated; no bound written\n"
	    "span.rpc.huge.p99: baseline 750 ms is in the top bucket (500, 1000] of "
	    "ladder 'ms': no edge above it, so it cannot be gated; no bound "
	    "written\n");
	assert_int_equal(json_array_size(json_object_get(d.doc, "_derivation_table")), 4);
	/* The printed document read back as thresholds: every bound is the derived one. */
	strbuf_reset(&out);
	ladder_json_dump(&out, d.doc);
	assert_int_equal(ladder_thresholds_parse(&t, "t.json", out.buf, out.len, NULL), 0);
	assert_int_equal(ladder_check(&lint, &b, &t, &set, NULL, "b.json", NULL, NULL), 0);
	assert_int_equal(lint.checked, 4);
	assert_int_equal(lint.n, 2);
	assert_string_equal(lint.v[0].rule, "floor-signature");
	assert_string_equal(lint.v[0].key, "span.ledger.store.p95");
	assert_string_equal(lint.v[1].rule, "top-bucket");
	ladder_lint_release(&lint);
	ladder_thresholds_release(&t);
	ladder_derivation_release(&d);

	/* --pct 400 is under 100 * 4.0054... / 0.9945... = 402.76, and under 473.8 for
	 * job.accept; 403 is over the first. */
	assert_int_equal(ladder_derive(&d, &b, &set, 400, "b.json", NULL), 0);
	assert_int_equal(d.nrefused, 0);
	ladder_derivation_release(&d);
	assert_int_equal(ladder_derive(&d, &b, &set, 403, "b.json", NULL), 0);
	assert_int_equal(d.nrefused, 1);
	assert_null(d.doc);
	assert_true(!strncmp(d.refusals.buf, "span.tx.process.p99: --pct 403 would be", 39));
	ladder_derivation_release(&d);

	strbuf_release(&out);
	ladder_set_release(&set);
	ladder_run_release(&b);
}

static void check_names_each_rule(void **state)
{
	struct ladder_run b;
	struct ladder_set set;
	struct ladder_thresholds t;
	struct ladder_declared d;
	struct ladder_lint lint;
	static const char decl[] = "{\"keys\": [\"span.tx.process.p99\", \"span.a.p50\"]}";
	(void)state;
	parse_all(&b, &set, &t,
		  "{\"metrics\": {\"span.tx.process.p99\": {\"value\": 0.994514815151108, "
		  "\"unit\": \"ms\"}, \"span.b.p99\": {\"value\": 2, \"unit\": \"ms\"}}}",
		  "{\"defaults\": {\"span\": {\"p99\": {\"max_pct_increase\": 402.8}}}, "
		  "\"overrides\": {\"span.tx.process\": {\"p99\": {\"max_abs_increase_ms\": "
		  "4.0055}}, \"span.gone\": {\"p50\": {\"max_abs_increase_ms\": 1}}}}");
	assert_int_equal(ladder_declared_parse(&d, "d.json", decl, strlen(decl), NULL), 0);
	assert_int_equal(ladder_check(&lint, &b, &t, &set, &d, "b.json", "d.json", NULL), 0);
	assert_int_equal(lint.n, 6);
	assert_string_equal(lint.v[0].rule, "declared-not-in-baseline");
	assert_string_equal(lint.v[0].key, "span.a.p50");
	assert_string_equal(lint.v[1].rule, "undeclared-key");
	assert_string_equal(lint.v[1].key, "span.b.p99");
	assert_string_equal(lint.v[2].rule, "missing-bound");
	assert_string_equal(lint.v[2].key, "span.b.p99");
	assert_string_equal(lint.v[3].rule, "orphan-bound");
	assert_string_equal(lint.v[3].key, "span.gone.p50");
	assert_string_equal(lint.v[4].rule, "bound-not-derived");
	assert_string_equal(lint.v[4].key, "span.tx.process.p99");
	assert_string_equal(lint.v[4].message,
			    "max_abs_increase_ms 4.0055 (override 'span.tx.process') is not the "
			    "derived 4.005485184848892 = hi_next 5 - baseline 0.994514815151108 "
			    "(baseline in (0.5, 1])");
	/* 402.8 >= 100 * 4.005485184848892 / 0.994514815151108 = 402.7577...: the
	 * percentage bound would be the operative one. */
	assert_string_equal(lint.v[5].rule, "pct-operative");
	assert_string_equal(lint.v[5].message,
			    "max_pct_increase 402.8 (default 'span') is at or above 100 * bound / "
			    "baseline = 100 * 4.005485184848892 / 0.994514815151108 = "
			    "402.75771902304876: the percentage bound would be the operative one");
	ladder_lint_release(&lint);
	/* With the derived bound in the defaults, span.b (2 in (1, 5], derived 8) is not
	 * derived, and 402.8 is over 100 * 8 / 2 = 400 for it too. */
	ladder_thresholds_release(&t);
	static const char t2[] = "{\"defaults\": {\"span\": {\"p99\": {\"max_pct_increase\": "
				 "402.8, \"max_abs_increase_ms\": 4.005485184848892}}}}";
	assert_int_equal(ladder_thresholds_parse(&t, "t.json", t2, strlen(t2), NULL), 0);
	assert_int_equal(ladder_check(&lint, &b, &t, &set, NULL, "b.json", NULL, NULL), 0);
	assert_int_equal(lint.n, 3);
	assert_string_equal(lint.v[0].rule, "bound-not-derived");
	assert_string_equal(lint.v[0].key, "span.b.p99");
	assert_string_equal(lint.v[1].rule, "pct-operative");
	assert_string_equal(lint.v[1].key, "span.b.p99");
	assert_string_equal(lint.v[2].rule, "pct-operative");
	assert_string_equal(lint.v[2].key, "span.tx.process.p99");
	ladder_lint_release(&lint);
	ladder_declared_release(&d);
	ladder_thresholds_release(&t);
	ladder_set_release(&set);
	ladder_run_release(&b);
}

static void compare_at_and_over_the_trip_point(void **state)
{
	struct ladder_run b, cur;
	struct ladder_set set;
	struct ladder_thresholds t;
	struct ladder_comparison c;
	struct strbuf text = STRBUF_INIT;
	char over[DOUBLE_TEXT_MAX];
	(void)state;
	parse_all(&b, &set, &t,
		  "{\"metrics\": {\"span.tx.process.p99\": {\"value\": 0.994514815151108, "
		  "\"unit\": \"ms\"}, \"span.free.p95\": {\"value\": 1, \"unit\": \"ms\"}, "
		  "\"span.lost.p95\": {\"value\": 1, \"unit\": \"ms\"}}}",
		  "{\"overrides\": {\"span.tx.process\": {\"p99\": {\"max_abs_increase_ms\": "
		  "4.005485184848892, \"max_pct_increase\": 50}}, \"span.lost\": {\"p95\": "
		  "{\"max_abs_increase_ms\": 1}}}}");
	for (int k = 0; k < 2; k++) {
		strbuf_reset(&text);
		strbuf_addf(&text,
			    "{\"metrics\": {\"span.tx.process.p99\": {\"value\": %s, \"unit\": "
			    "\"ms\"}, \"span.free.p95\": {\"value\": 9, \"unit\": \"ms\"}, "
			    "\"span.new.p95\": {\"value\": 1, \"unit\": \"ms\"}}}",
			    k ? format_double(over, nextafter(5, 6), DOUBLE_POINT_ZERO) : "5");
		assert_int_equal(ladder_run_parse(&cur, "c.json", text.buf, text.len, 0, NULL), 0);
		assert_int_equal(ladder_compare(&c, &b, &t, &cur, NULL), 0);
		assert_int_equal(c.n, 4);
		assert_string_equal(c.rows[0].key, "span.free.p95");
		assert_string_equal(c.rows[0].note, "no threshold configured");
		assert_string_equal(c.rows[1].key, "span.lost.p95");
		assert_string_equal(c.rows[1].note, "not captured in current run");
		assert_string_equal(c.rows[2].key, "span.new.p95");
		assert_string_equal(c.rows[2].note, "not in baseline");
		assert_string_equal(c.rows[3].key, "span.tx.process.p99");
		assert_int_equal(c.rows[3].regressed, k);
		assert_null(c.rows[3].note);
		assert_int_equal(c.gated, 1);
		assert_int_equal(c.regressed, (size_t)k);
		assert_int_equal(c.missing, 1);
		assert_int_equal(c.not_gated, 2);
		ladder_comparison_release(&c);
		ladder_run_release(&cur);
	}
	strbuf_release(&text);
	ladder_thresholds_release(&t);
	ladder_set_release(&set);
	ladder_run_release(&b);
}

static void floors_weakest_first(void **state)
{
	struct ladder_run b;
	struct ladder_set set;
	struct ladder_floor_row *rows;
	size_t n;
	(void)state;
	parse_all(
	    &b, &set, NULL,
	    "{\"metrics\": {\"span.a.p99\": {\"value\": 1.06, \"unit\": \"ms\"}, "
	    "\"span.b.p99\": {\"value\": 4.9, \"unit\": \"ms\"}, \"span.c.p95\": {\"value\": "
	    "0.0095, \"unit\": \"ms\"}, \"span.d.p99\": {\"value\": 0, \"unit\": \"ms\"}, "
	    "\"span.e.p99\": {\"value\": 2000, \"unit\": \"ms\"}, \"span.f.p99\": {\"value\": "
	    "0.7, \"unit\": \"ms\"}}}",
	    NULL);
	assert_int_equal(ladder_floors(&rows, &n, &b, &set, "b.json", NULL), 0);
	assert_int_equal(n, 6);
	assert_string_equal(rows[0].m->key, "span.c.p95");
	assert_int_equal(rows[0].reason, LADDER_FLOOR_SIGNATURE);
	assert_string_equal(ladder_gating_name(rows[0].reason), "floor-signature");
	assert_string_equal(rows[1].m->key, "span.e.p99");
	assert_int_equal(rows[1].reason, LADDER_TOP_BUCKET);
	assert_string_equal(ladder_gating_name(rows[1].reason), "top-bucket");
	assert_string_equal(rows[2].m->key, "span.d.p99");
	assert_int_equal(rows[2].reason, LADDER_BASELINE_NOT_POSITIVE);
	assert_string_equal(ladder_gating_name(rows[2].reason), "baseline-not-positive");
	assert_int_equal(rows[3].reason, LADDER_GATED);
	assert_null(ladder_gating_name(rows[3].reason));
	assert_string_equal(rows[3].m->key, "span.a.p99"); /* 10 / 1.06 = 9.43 */
	assert_string_equal(rows[4].m->key, "span.f.p99"); /* 5 / 0.7 = 7.14 */
	assert_string_equal(rows[5].m->key, "span.b.p99"); /* 10 / 4.9 = 2.04 */
	assert_true(rows[3].floor == 10 / 1.06);
	free(rows);
	ladder_set_release(&set);
	ladder_run_release(&b);
}

static void unknown_category_and_unit(void **state)
{
	struct ladder_run b;
	struct ladder_set set;
	struct ladder_floor_row *rows;
	struct bl_error err = BL_ERROR_INIT;
	size_t n;
	(void)state;
	parse_all(&b, &set, NULL,
		  "{\"metrics\": {\"rpc.a.p99\": {\"value\": 1, \"unit\": \"ms\"}}}", NULL);
	assert_int_equal(ladder_floors(&rows, &n, &b, &set, "b.json", &err), BL_EINVALID);
	assert_string_equal(err.msg.buf, "b.json: rpc.a.p99: category 'rpc' has no ladder (it is "
					 "not in the ladders file's \"categories\")");
	ladder_set_release(&set);
	ladder_run_release(&b);
	parse_all(&b, &set, NULL,
		  "{\"metrics\": {\"job.a.p99\": {\"value\": 1, \"unit\": \"ms\"}}}", NULL);
	assert_int_equal(ladder_floors(&rows, &n, &b, &set, "b.json", &err), BL_EINVALID);
	assert_string_equal(err.msg.buf, "b.json: job.a.p99: unit 'ms', but its ladder 'us' is "
					 "in 'us'");
	ladder_set_release(&set);
	ladder_run_release(&b);
	bl_error_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(bucket_at_under_and_over_every_edge),
	    cmocka_unit_test(bucket_below_the_first_and_above_the_last),
	    cmocka_unit_test(bounds_trip_points_and_floors),
	    cmocka_unit_test(the_trip_point_is_hi_next),
	    cmocka_unit_test(the_floor_signature_to_the_last_bit),
	    cmocka_unit_test(the_floor_signature_from_json),
	    cmocka_unit_test(the_and_rule),
	    cmocka_unit_test(quantiles_and_keys),
	    cmocka_unit_test(time_units_convert),
	    cmocka_unit_test(the_output_format),
	    cmocka_unit_test(ladders_are_refused_by_name),
	    cmocka_unit_test(limits_merge_field_by_field),
	    cmocka_unit_test(thresholds_are_refused_by_key),
	    cmocka_unit_test(runs_are_refused_by_key),
	    cmocka_unit_test(placeholders),
	    cmocka_unit_test(derive_then_check),
	    cmocka_unit_test(check_names_each_rule),
	    cmocka_unit_test(compare_at_and_over_the_trip_point),
	    cmocka_unit_test(floors_weakest_first),
	    cmocka_unit_test(unknown_category_and_unit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

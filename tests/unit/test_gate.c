/*
 * Unit tests for the gate's pure steps (§7.3): the reference window's band, the effective
 * limit it gives, and the verdict of a ratio interval. Each case is small enough to check by
 * hand; the comments do the arithmetic. The whole gate runs end to end in tests/e2e/t08*.t.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/common.h"
#include "detect/detect.h"
#include "detect/gate/gate.h"

/* got within 1e-12 (relative past 1) of want; NaN passes only when NaN is wanted (a NaN
 * difference compares false with everything, so the test is that it is within, not that it is
 * not outside). */
static void assert_close(double got, double want)
{
	if (got == want || (isnan(got) && isnan(want)))
		return;
	if (!(fabs(got - want) <= 1e-12 * fmax(1, fabs(want))))
		fail_msg("got %.17g, want %.17g", got, want);
}

static void test_band_odd_window(void **state)
{
	/* sorted 98 99 100 101 102: center (rank 3) 100; deviations 0 1 1 2 2: rank 3 is 1;
	 * tolerance max(4 * 1, 3% of 100) = 4; noise 1 / 100 */
	double v[] = {100, 101, 99, 102, 98}, c, t, n;
	(void)state;
	gate_band(&c, &t, &n, v, 5);
	assert_close(c, 100);
	assert_close(t, 4);
	assert_close(n, 0.01);
	/* L = max(1.02, 1 + 4 / 100) */
	assert_close(gate_effective_limit(1.02, c, t), 1.04);
	/* a limit above what the noise asks stays */
	assert_close(gate_effective_limit(1.10, c, t), 1.10);
}

static void test_band_quiet_window_takes_the_floor(void **state)
{
	/* no spread at all: the tolerance is the 3% floor, so L is 1.03 however quiet */
	double v[] = {250, 250, 250}, c, t, n;
	(void)state;
	gate_band(&c, &t, &n, v, 3);
	assert_close(c, 250);
	assert_close(t, 7.5);
	assert_close(n, 0);
	assert_close(gate_effective_limit(1.02, c, t), 1.03);
}

static void test_band_even_window_takes_the_lower_middle(void **state)
{
	/* 10 .. 80: rank ceil(8 / 2) = 4 is 40; deviations 30 20 10 0 10 20 30 40 sorted
	 * 0 10 10 20 20 30 30 40: rank 4 is 20; tolerance max(80, 1.2) = 80; L = 1 + 80/40 */
	double v[] = {80, 10, 70, 20, 60, 30, 50, 40}, c, t, n;
	(void)state;
	gate_band(&c, &t, &n, v, 8);
	assert_close(c, 40);
	assert_close(t, 80);
	assert_close(n, 0.5);
	assert_close(gate_effective_limit(1.02, c, t), 3);
}

static void test_band_too_short(void **state)
{
	/* fewer than 3 records: no band, and the bare limit */
	double v[] = {100, 130}, c, t, n;
	(void)state;
	gate_band(&c, &t, &n, v, 2);
	assert_true(isnan(c) && isnan(t) && isnan(n));
	assert_close(gate_effective_limit(1.02, c, t), 1.02);
	/* a center that is not positive gives no ratio scale either */
	assert_close(gate_effective_limit(1.02, 0, 5), 1.02);
}

static void test_interval_verdicts(void **state)
{
	const double L = 1.03; /* 1 / L = 0.970873... */
	(void)state;
	assert_int_equal(gate_interval_verdict(1.05, 1.10, L, 0), GATE_VERDICT_SLOWER);
	assert_int_equal(gate_interval_verdict(0.90, 0.95, L, 0), GATE_VERDICT_FASTER);
	assert_int_equal(gate_interval_verdict(0.99, 1.02, L, 0), GATE_VERDICT_SAME);
	assert_int_equal(gate_interval_verdict(1.00, 1.05, L, 0), GATE_VERDICT_UNDECIDED);
	assert_int_equal(gate_interval_verdict(0.96, 1.01, L, 0), GATE_VERDICT_UNDECIDED);
	/* the edges: slower needs the whole interval strictly above L; same may touch L */
	assert_int_equal(gate_interval_verdict(L, 1.05, L, 0), GATE_VERDICT_UNDECIDED);
	assert_int_equal(gate_interval_verdict(nextafter(L, 2), 1.05, L, 0), GATE_VERDICT_SLOWER);
	assert_int_equal(gate_interval_verdict(0.98, L, L, 0), GATE_VERDICT_SAME);
	assert_int_equal(gate_interval_verdict(1 / L, 1.0, L, 0), GATE_VERDICT_SAME);
	/* an interval wider than the whole band on both sides decides nothing */
	assert_int_equal(gate_interval_verdict(0.5, 2.0, L, 0), GATE_VERDICT_UNDECIDED);
}

static void test_interval_better_higher_flips(void **state)
{
	const double L = 1.03;
	(void)state;
	/* a throughput 5-10% lower is slower, 5-10% higher is faster */
	assert_int_equal(gate_interval_verdict(0.90, 0.95, L, 1), GATE_VERDICT_SLOWER);
	assert_int_equal(gate_interval_verdict(1.05, 1.10, L, 1), GATE_VERDICT_FASTER);
	assert_int_equal(gate_interval_verdict(0.99, 1.02, L, 1), GATE_VERDICT_SAME);
	assert_int_equal(gate_interval_verdict(0.95, 1.00, L, 1), GATE_VERDICT_UNDECIDED);
}

/* Eight timed rows of one metric, each 1% slower and passing on its own: slower across the
 * board, which is SOFT between stored runs and FAIL (counted in failures) under --live. */
static void test_across_the_board_fails_only_live(void **state)
{
	(void)state;
	for (int live = 0; live < 2; live++) {
		struct gate_row rows[9];
		struct gate_comparison c;
		memset(rows, 0, sizeof(rows));
		memset(&c, 0, sizeof(c));
		for (int i = 0; i < 9; i++) {
			rows[i].metric = i < 8 ? "wall_ns" : "other";
			rows[i].kind = METRIC_TIMED;
			rows[i].status = GATE_PASS;
			rows[i].ratio = 1.01;
		}
		c.rows = rows;
		c.nrows = 9;
		gate_across_the_board(&c, 1.02, live);
		assert_int_equal(c.nboards, 1);
		assert_string_equal(c.boards[0].metric, "wall_ns");
		assert_int_equal(c.boards[0].n, 8);
		assert_close(c.boards[0].threshold, 1.005);
		assert_close(c.boards[0].lo, 1.01);
		assert_int_equal(c.boards[0].status, live ? GATE_FAIL : GATE_SOFT);
		assert_int_equal(c.failures, (size_t)live);
		assert_non_null(strstr(c.boards[0].note, live ? "fails the gate" : "--live"));
		free(c.boards[0].metric);
		free(c.boards[0].note);
		free(c.boards);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_band_odd_window),
	    cmocka_unit_test(test_band_quiet_window_takes_the_floor),
	    cmocka_unit_test(test_band_even_window_takes_the_lower_middle),
	    cmocka_unit_test(test_band_too_short),
	    cmocka_unit_test(test_interval_verdicts),
	    cmocka_unit_test(test_interval_better_higher_flips),
	    cmocka_unit_test(test_across_the_board_fails_only_live),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

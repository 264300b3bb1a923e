/*
 * Unit tests for the re-bench engine (detect/confirm/rebench.c) on a synthetic benchmark: a
 * deterministic generator with seeded noise and a machine whose speed drifts over time, the
 * same drift for both builds, as a shared machine's state drifts under both within a night.
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
#include "detect/confirm/confirm.h"

struct synth {
	uint64_t rng;
	double slower_b;     /* B's time is (1 + slower_b) times A's */
	double noise;	     /* relative noise of one sample */
	double drift;	     /* amplitude of the machine's slow drift */
	double rss_a, rss_b; /* peak RSS of each side, KiB; 0: not measured */
	long t;		     /* samples taken: the machine's clock */
	char order[256];     /* the sides in the order they were sampled, while it fits */
	int fail_at;	     /* the sample that fails, 0: none */
	long slow_until;     /* > 0: B is slower only for the samples before this one */
	long flaky_after;    /* > 0: a metric "flaky", quiet until this sample, wild after */
	double own_limit;    /* "loop/t"'s own limit, 0: the options' */
	struct confirm_value v[3];
};

static double uniform(struct synth *b)
{
	b->rng ^= b->rng << 13;
	b->rng ^= b->rng >> 7;
	b->rng ^= b->rng << 17;
	return (double)(b->rng >> 11) / 9007199254740992.0;
}

/* Roughly normal: the sum of 12 uniforms, less 6. */
static double gauss(struct synth *b)
{
	double s = 0;
	for (int i = 0; i < 12; i++)
		s += uniform(b);
	return s - 6;
}

static int sample(struct confirm_value **values, size_t *n, enum confirm_side side, void *data,
		  struct bl_error *err)
{
	struct synth *b = data;
	double machine = 1 + b->drift * sin((double)b->t / 40.0);
	size_t k = 0;
	b->t++;
	if (b->fail_at && b->t == b->fail_at)
		return bl_error_set(err, BL_EIO, "the benchmark crashed");
	if ((size_t)b->t < sizeof(b->order))
		b->order[b->t - 1] = side == CONFIRM_SIDE_A ? 'A' : 'B';
	b->v[k].key = "loop/t";
	double slower = b->slow_until && b->t > b->slow_until ? 0 : b->slower_b;
	b->v[k].value =
	    100.0 * machine * (side == CONFIRM_SIDE_B ? 1 + slower : 1) * (1 + b->noise * gauss(b));
	b->v[k].better_higher = 0;
	b->v[k].limit = b->own_limit;
	b->v[k++].judge = CONFIRM_JUDGE_RATIO;
	if (b->flaky_after > 0) {
		b->v[k].key = "flaky";
		b->v[k].value = 50.0 * (1 + (b->t > b->flaky_after ? 0.5 : 0.0005) * gauss(b));
		b->v[k].better_higher = 0;
		b->v[k++].judge = CONFIRM_JUDGE_RATIO;
	}
	if (b->rss_a > 0) {
		b->v[k].key = "peak_rss_kib";
		b->v[k].value =
		    (side == CONFIRM_SIDE_B ? b->rss_b : b->rss_a) * (1 + 0.001 * gauss(b));
		b->v[k].better_higher = 0;
		b->v[k++].judge = CONFIRM_JUDGE_RSS;
	}
	*values = b->v;
	*n = k;
	return 0;
}

static void bench_init(struct synth *b, uint64_t seed, double slower_b, double noise)
{
	memset(b, 0, sizeof(*b));
	b->rng = seed * 0x9E3779B97F4A7C15ULL + 1;
	b->slower_b = slower_b;
	b->noise = noise;
	b->drift = 0.05;
}

static enum gate_verdict run(struct synth *b, struct confirm_rebench_result *r)
{
	struct confirm_rebench_options o;
	struct bl_error err = BL_ERROR_INIT;
	confirm_rebench_options_init(&o);
	if (confirm_rebench(r, &o, sample, b, NULL, NULL, &err))
		fail_msg("%s", err.msg.buf);
	bl_error_release(&err);
	return r->verdict;
}

/* Identical builds on a drifting machine: same (or faster) in at least 19 of 20 runs. */
static void identical_builds_are_the_same(void **state)
{
	int same = 0;
	(void)state;
	for (uint64_t seed = 1; seed <= 20; seed++) {
		struct synth b;
		struct confirm_rebench_result r;
		bench_init(&b, seed, 0, 0.01);
		same += run(&b, &r) == GATE_VERDICT_SAME;
		assert_int_not_equal(r.verdict, GATE_VERDICT_SLOWER);
		confirm_rebench_release(&r);
	}
	assert_true(same >= 19);
}

/* A build 5% slower is slower, by three measurements that all agree. */
static void a_five_percent_slower_build_is_slower(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 5; seed++) {
		struct synth b;
		struct confirm_rebench_result r;
		bench_init(&b, seed, 0.05, 0.01);
		assert_int_equal(run(&b, &r), GATE_VERDICT_SLOWER);
		assert_int_equal(r.n, 1);
		assert_string_equal(r.metrics[0].key, "loop/t");
		assert_int_equal(r.metrics[0].slower_votes, CONFIRM_CONFIRMATIONS);
		assert_int_equal(r.measurements, CONFIRM_CONFIRMATIONS);
		assert_true(r.metrics[0].lo > 1.02);
		assert_true(fabs(r.metrics[0].ratio - 1.05) < 0.01);
		confirm_rebench_release(&r);
	}
}

/* A value's own limit is what its ratios are judged against (the gate's overrides): 5% slower
 * within a limit of 1.10 is the same, after one measurement; each side's median is reported. */
static void a_value_with_its_own_limit_is_judged_by_it(void **state)
{
	struct synth b;
	struct confirm_rebench_result r;
	(void)state;
	bench_init(&b, 3, 0.05, 0.01);
	b.own_limit = 1.10;
	assert_int_equal(run(&b, &r), GATE_VERDICT_SAME);
	assert_int_equal(r.metrics[0].verdict, GATE_VERDICT_SAME);
	assert_int_equal(r.measurements, 1);
	assert_true(r.metrics[0].ratio > 1.02 && r.metrics[0].hi < 1.10);
	assert_true(r.metrics[0].b / r.metrics[0].a > 1.03 &&
		    r.metrics[0].b / r.metrics[0].a < 1.07);
	assert_true(r.metrics[0].a > 90 && r.metrics[0].a < 110);
	confirm_rebench_release(&r);
}

/* Pairs alternate their order, AB then BA; a quiet pair of builds settles after one round. */
static void pairs_alternate_and_a_clear_case_stops_early(void **state)
{
	struct synth b;
	struct confirm_rebench_result r;
	(void)state;
	bench_init(&b, 7, 0, 0.001);
	b.drift = 0;
	assert_int_equal(run(&b, &r), GATE_VERDICT_SAME);
	assert_int_equal(r.measurements, 1);
	assert_int_equal(r.pairs, CONFIRM_ROUND_PAIRS);
	assert_int_equal(b.t, 2 * CONFIRM_ROUND_PAIRS);
	assert_memory_equal(b.order, "ABBAABBAAB", 10);
	confirm_rebench_release(&r);
}

/* Noise too large for 60 pairs to decide: undecided, after the measurement and its three
 * replacements, never more. */
static void an_undecidable_case_is_replaced_three_times_then_undecided(void **state)
{
	struct synth b;
	struct confirm_rebench_result r;
	(void)state;
	bench_init(&b, 3, 0.02, 0.30);
	assert_int_equal(run(&b, &r), GATE_VERDICT_UNDECIDED);
	assert_int_equal(r.metrics[0].undecided_votes, CONFIRM_REPLACEMENTS + 1);
	assert_int_equal(r.measurements, CONFIRM_REPLACEMENTS + 1);
	assert_int_equal(r.pairs, (CONFIRM_REPLACEMENTS + 1) * CONFIRM_MAX_PAIRS);
	confirm_rebench_release(&r);
}

/* Peak RSS is worse only by more than 10% and more than 1 MiB. */
static void peak_rss_needs_ten_percent_and_a_mebibyte(void **state)
{
	struct synth b;
	struct confirm_rebench_result r;
	(void)state;
	bench_init(&b, 11, 0, 0.001);
	b.rss_a = 4000;
	b.rss_b = 4600; /* 15% but 600 KiB */
	run(&b, &r);
	assert_int_equal(r.n, 2);
	assert_string_equal(r.metrics[1].key, "peak_rss_kib");
	assert_int_equal(r.metrics[1].verdict, GATE_VERDICT_SAME);
	confirm_rebench_release(&r);

	bench_init(&b, 11, 0, 0.001);
	b.rss_a = 40000;
	b.rss_b = 46000; /* 15% and 6,000 KiB */
	assert_int_equal(run(&b, &r), GATE_VERDICT_SLOWER);
	assert_int_equal(r.metrics[0].verdict, GATE_VERDICT_SAME);
	assert_int_equal(r.metrics[1].verdict, GATE_VERDICT_SLOWER);
	confirm_rebench_release(&r);

	bench_init(&b, 11, 0, 0.001);
	b.rss_a = 40000;
	b.rss_b = 42000; /* 5% and 2,000 KiB */
	run(&b, &r);
	assert_int_equal(r.metrics[1].verdict, GATE_VERDICT_SAME);
	confirm_rebench_release(&r);
}

/* A slower first measurement that the next one does not repeat (the machine was in a state
 * that made B slow, for the first round only) clears the metric: same, after two. */
static void one_measurement_that_is_not_slower_clears_it(void **state)
{
	struct synth b;
	struct confirm_rebench_result r;
	(void)state;
	bench_init(&b, 9, 0.05, 0.002);
	b.drift = 0;
	b.slow_until = 2 * CONFIRM_ROUND_PAIRS;
	assert_int_equal(run(&b, &r), GATE_VERDICT_SAME);
	assert_int_equal(r.measurements, 2);
	assert_int_equal(r.metrics[0].slower_votes, 1);
	assert_int_equal(r.metrics[0].clear_votes, 1);
	assert_true(fabs(r.metrics[0].ratio - 1) < 0.005);
	confirm_rebench_release(&r);
}

/* A metric decided by the first measurement does not keep later ones going: "flaky" is the same
 * in the first round, then too noisy ever to settle, yet the measurements that confirm the
 * slower metric stop after one round each. */
static void a_decided_metric_does_not_hold_up_the_confirmations(void **state)
{
	struct synth b;
	struct confirm_rebench_result r;
	(void)state;
	bench_init(&b, 4, 0.05, 0.002);
	b.drift = 0;
	b.flaky_after = 2 * CONFIRM_ROUND_PAIRS;
	assert_int_equal(run(&b, &r), GATE_VERDICT_SLOWER);
	assert_int_equal(r.n, 2);
	assert_string_equal(r.metrics[1].key, "flaky");
	assert_int_equal(r.metrics[1].verdict, GATE_VERDICT_SAME);
	assert_int_equal(r.metrics[1].measurements, 1);
	assert_int_equal(r.measurements, CONFIRM_CONFIRMATIONS);
	assert_int_equal(r.pairs, CONFIRM_CONFIRMATIONS * CONFIRM_ROUND_PAIRS);
	confirm_rebench_release(&r);
}

/* Progress, as the engine reports it: each call's measurement, pairs done and the most. */
struct progress_log {
	int measurement[64];
	size_t done[64], most[64];
	size_t n;
};

static void log_progress(const struct confirm_progress *p, void *data)
{
	struct progress_log *l = data;
	if (l->n < 64) {
		l->measurement[l->n] = p->measurement;
		l->done[l->n] = p->done;
		l->most[l->n] = p->most;
		l->n++;
	}
}

/* The re-bench with only the keys given asked about (n 0: asked is NULL, every metric). */
static enum gate_verdict run_asked(struct synth *b, struct confirm_rebench_result *r,
				   const char *const *asked, size_t n, struct progress_log *log)
{
	struct confirm_rebench_options o;
	struct bl_error err = BL_ERROR_INIT;
	confirm_rebench_options_init(&o);
	o.asked = n ? asked : NULL;
	o.nasked = n;
	if (confirm_rebench(r, &o, sample, b, log ? log_progress : NULL, log, &err))
		fail_msg("%s", err.msg.buf);
	bl_error_release(&err);
	return r->verdict;
}

/* Confirm asks about the alert's own Series only (§9.2): a metric not asked about that never
 * settles ("flaky", wild from the second sample on) is measured and reported, undecided, yet
 * the re-bench ends after one round, as soon as the metric asked about is the same. Asked
 * about too, the same metric keeps it going through every replacement. */
static void a_metric_not_asked_about_is_never_waited_for(void **state)
{
	static const char *const asked[] = {"loop/t"};
	struct synth b;
	struct confirm_rebench_result r;
	(void)state;
	bench_init(&b, 6, 0, 0.001);
	b.drift = 0;
	b.flaky_after = 1;
	assert_int_equal(run_asked(&b, &r, asked, 1, NULL), GATE_VERDICT_SAME);
	assert_int_equal(r.measurements, 1);
	assert_int_equal(r.pairs, CONFIRM_ROUND_PAIRS);
	assert_int_equal(r.n, 2);
	assert_string_equal(r.metrics[0].key, "loop/t");
	assert_true(r.metrics[0].asked);
	assert_int_equal(r.metrics[0].verdict, GATE_VERDICT_SAME);
	assert_string_equal(r.metrics[1].key, "flaky");
	assert_false(r.metrics[1].asked);
	assert_int_equal(r.metrics[1].verdict, GATE_VERDICT_UNDECIDED);
	assert_int_equal(r.metrics[1].pairs, CONFIRM_ROUND_PAIRS);
	confirm_rebench_release(&r);

	bench_init(&b, 6, 0, 0.001);
	b.drift = 0;
	b.flaky_after = 1;
	assert_int_equal(run_asked(&b, &r, NULL, 0, NULL), GATE_VERDICT_UNDECIDED);
	assert_true(r.metrics[0].asked && r.metrics[1].asked);
	assert_int_equal(r.measurements, CONFIRM_REPLACEMENTS + 1);
	assert_int_equal(r.pairs, (CONFIRM_REPLACEMENTS + 1) * CONFIRM_MAX_PAIRS);
	confirm_rebench_release(&r);
}

/* A metric not asked about that looks slower (peak RSS 15% and 6 MiB up) neither takes more
 * measurements nor makes the whole verdict: that is the asked metric's, same. */
static void a_slower_metric_not_asked_about_does_not_decide(void **state)
{
	static const char *const asked[] = {"loop/t"};
	struct synth b;
	struct confirm_rebench_result r;
	(void)state;
	bench_init(&b, 11, 0, 0.001);
	b.drift = 0;
	b.rss_a = 40000;
	b.rss_b = 46000;
	assert_int_equal(run_asked(&b, &r, asked, 1, NULL), GATE_VERDICT_SAME);
	assert_int_equal(r.measurements, 1);
	assert_string_equal(r.metrics[1].key, "peak_rss_kib");
	assert_int_equal(r.metrics[1].slower_votes, 1);
	assert_int_equal(r.metrics[1].verdict, GATE_VERDICT_UNDECIDED);
	confirm_rebench_release(&r);
}

/* Asked about a metric no sample has: one round, nothing to wait for, undecided. */
static void a_metric_asked_about_that_is_never_measured_ends_it_undecided(void **state)
{
	static const char *const asked[] = {"other/t"};
	struct synth b;
	struct confirm_rebench_result r;
	(void)state;
	bench_init(&b, 2, 0, 0.001);
	assert_int_equal(run_asked(&b, &r, asked, 1, NULL), GATE_VERDICT_UNDECIDED);
	assert_int_equal(r.pairs, CONFIRM_ROUND_PAIRS);
	assert_int_equal(r.n, 1);
	assert_false(r.metrics[0].asked);
	confirm_rebench_release(&r);
}

/* Progress: a call before the first pair (the most any re-bench takes: 3 confirmations and 3
 * replacements of 60 pairs), then one per round with the pairs done over the whole re-bench
 * and the most it can still take, which never grows and ends at what was done. A 5% slower
 * build: 10 pairs of at most 310 (one slower vote: five more measurements at the most), 20 of
 * at most 260, 30 of at most 30. */
static void progress_counts_the_pairs_done_of_the_most(void **state)
{
	struct synth b;
	struct confirm_rebench_result r;
	struct progress_log log;
	(void)state;
	memset(&log, 0, sizeof(log));
	bench_init(&b, 1, 0.05, 0.002);
	b.drift = 0;
	assert_int_equal(run_asked(&b, &r, NULL, 0, &log), GATE_VERDICT_SLOWER);
	assert_int_equal(log.n, 4);
	assert_int_equal(log.measurement[0], 0);
	assert_int_equal(log.done[0], 0);
	assert_int_equal(log.most[0], (CONFIRM_CONFIRMATIONS + CONFIRM_REPLACEMENTS) * 60);
	for (size_t i = 1; i < log.n; i++) {
		assert_int_equal(log.measurement[i], (int)i);
		assert_int_equal(log.done[i], i * CONFIRM_ROUND_PAIRS);
		assert_true(log.most[i] <= log.most[i - 1]);
	}
	assert_int_equal(log.most[1], 310);
	assert_int_equal(log.most[2], 260);
	assert_int_equal(log.most[3], 30);
	confirm_rebench_release(&r);
}

static void a_failing_sample_ends_it_with_the_error(void **state)
{
	struct synth b;
	struct confirm_rebench_result r;
	struct confirm_rebench_options o;
	struct bl_error err = BL_ERROR_INIT;
	(void)state;
	bench_init(&b, 5, 0, 0.01);
	b.fail_at = 15;
	confirm_rebench_options_init(&o);
	assert_int_equal(confirm_rebench(&r, &o, sample, &b, NULL, NULL, &err), BL_EIO);
	assert_string_equal(err.msg.buf, "the benchmark crashed");
	assert_int_equal(r.n, 0);
	assert_null(r.metrics);
	bl_error_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(identical_builds_are_the_same),
	    cmocka_unit_test(a_five_percent_slower_build_is_slower),
	    cmocka_unit_test(a_value_with_its_own_limit_is_judged_by_it),
	    cmocka_unit_test(pairs_alternate_and_a_clear_case_stops_early),
	    cmocka_unit_test(an_undecidable_case_is_replaced_three_times_then_undecided),
	    cmocka_unit_test(peak_rss_needs_ten_percent_and_a_mebibyte),
	    cmocka_unit_test(one_measurement_that_is_not_slower_clears_it),
	    cmocka_unit_test(a_decided_metric_does_not_hold_up_the_confirmations),
	    cmocka_unit_test(a_metric_not_asked_about_is_never_waited_for),
	    cmocka_unit_test(a_slower_metric_not_asked_about_does_not_decide),
	    cmocka_unit_test(a_metric_asked_about_that_is_never_measured_ends_it_undecided),
	    cmocka_unit_test(progress_counts_the_pairs_done_of_the_most),
	    cmocka_unit_test(a_failing_sample_ends_it_with_the_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

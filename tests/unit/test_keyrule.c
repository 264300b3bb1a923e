/*
 * The key rule (§1): which of two runs of one key stands, the quietness it is judged by, and
 * the nearest-rank percentile (§2, §6) every median and p95 is computed with.
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
#include "ingest/ingest.h"

/* Shorthands: clean/flawed runs and their quietness. */
/* cmocka 1.1 has no assert_double_equal: compare within eps (0 for exact). */
#define assert_double_equal(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

#define CLEAN  0
#define FLAWED 1

static void keep_first_keeps_the_standing_run(void **state)
{
	(void)state;
	/* Even a much quieter new run does not displace it. */
	assert_int_equal(ingest_new_run_stands(1, CLEAN, 1.05, CLEAN, 1.01), 0);
	assert_int_equal(ingest_new_run_stands(1, CLEAN, 1.05, CLEAN, 1.10), 0);
	assert_int_equal(ingest_new_run_stands(1, CLEAN, 1.05, CLEAN, 1.05), 0);
	/* Times mean nothing there: unknown figures do not matter either. */
	assert_int_equal(ingest_new_run_stands(1, CLEAN, NAN, CLEAN, 1.01), 0);
	assert_int_equal(ingest_new_run_stands(1, FLAWED, NAN, FLAWED, 1.01), 0);
	/* But a flaw still decides first: a flawed first run does not outlast a clean one, and a
	 * flawed later run does not displace a clean first one (§10). */
	assert_int_equal(ingest_new_run_stands(1, FLAWED, 1.05, CLEAN, 1.01), 1);
	assert_int_equal(ingest_new_run_stands(1, FLAWED, NAN, CLEAN, NAN), 1);
	assert_int_equal(ingest_new_run_stands(1, CLEAN, 1.05, FLAWED, 1.01), 0);
}

static void a_flawed_run_never_displaces_a_clean_one(void **state)
{
	(void)state;
	/* Quieter, but dirty/noisy/...: the clean run stays. */
	assert_int_equal(ingest_new_run_stands(0, CLEAN, 1.05, FLAWED, 1.001), 0);
	assert_int_equal(ingest_new_run_stands(0, CLEAN, NAN, FLAWED, 1.001), 0);
	assert_int_equal(ingest_new_run_stands(0, CLEAN, 1.05, FLAWED, NAN), 0);
}

static void a_clean_run_displaces_a_flawed_one(void **state)
{
	(void)state;
	/* Louder, but clean: it takes the key. */
	assert_int_equal(ingest_new_run_stands(0, FLAWED, 1.01, CLEAN, 1.05), 1);
	assert_int_equal(ingest_new_run_stands(0, FLAWED, 1.01, CLEAN, NAN), 1);
	assert_int_equal(ingest_new_run_stands(0, FLAWED, NAN, CLEAN, 1.05), 1);
}

static void both_flawed_the_quieter_stands(void **state)
{
	(void)state;
	assert_int_equal(ingest_new_run_stands(0, FLAWED, 1.20, FLAWED, 1.10), 1);
	assert_int_equal(ingest_new_run_stands(0, FLAWED, 1.10, FLAWED, 1.20), 0);
	assert_int_equal(ingest_new_run_stands(0, FLAWED, 1.10, FLAWED, 1.10), 0);
}

static void unknown_quietness(void **state)
{
	(void)state;
	/* A known figure beats an unknown one, on either side. */
	assert_int_equal(ingest_new_run_stands(0, CLEAN, NAN, CLEAN, 1.02), 1);
	assert_int_equal(ingest_new_run_stands(0, CLEAN, 1.02, CLEAN, NAN), 0);
	/* Both unknown: a tie, the standing run stays. */
	assert_int_equal(ingest_new_run_stands(0, CLEAN, NAN, CLEAN, NAN), 0);
	assert_int_equal(ingest_new_run_stands(0, FLAWED, NAN, FLAWED, NAN), 0);
}

static void tie_lower_higher(void **state)
{
	(void)state;
	assert_int_equal(ingest_new_run_stands(0, CLEAN, 1.03, CLEAN, 1.03), 0);
	assert_int_equal(ingest_new_run_stands(0, CLEAN, 1.03, CLEAN, 1.02), 1);
	assert_int_equal(ingest_new_run_stands(0, CLEAN, 1.03, CLEAN, 1.04), 0);
	/* The smallest difference counts. */
	assert_int_equal(ingest_new_run_stands(0, CLEAN, 1.03, CLEAN, nextafter(1.03, 0)), 1);
	assert_int_equal(ingest_new_run_stands(0, CLEAN, 1.03, CLEAN, nextafter(1.03, 2)), 0);
	/* Perfectly quiet runs (p95 == median). */
	assert_int_equal(ingest_new_run_stands(0, CLEAN, 1.0, CLEAN, 1.0), 0);
	assert_int_equal(ingest_new_run_stands(0, CLEAN, 1.001, CLEAN, 1.0), 1);
}

/* A record with three metrics; primary names which one judges it. */
struct fixture {
	struct ingest_metric metrics[3];
	struct ingest_record rec;
};

static void fixture_init(struct fixture *f, const char *primary)
{
	static char a[] = "allocations", c[] = "cpu_us", g[] = "gpu_frame_us";
	memset(f, 0, sizeof(*f));
	f->metrics[0] = (struct ingest_metric){
	    .name = a, .kind = METRIC_COUNTED, .median = NAN, .p95 = NAN, .value = 5790, .n = -1};
	f->metrics[1] = (struct ingest_metric){
	    .name = c, .kind = METRIC_TIMED, .median = 200, .p95 = 250, .value = NAN, .n = 10};
	f->metrics[2] = (struct ingest_metric){
	    .name = g, .kind = METRIC_TIMED, .median = 8000, .p95 = 8400, .value = NAN, .n = 1800};
	f->rec.metrics = f->metrics;
	f->rec.nmetrics = 3;
	f->rec.primary = (char *)primary;
}

static void quietness_of_the_primary_metric(void **state)
{
	struct fixture f;
	(void)state;
	fixture_init(&f, "gpu_frame_us");
	assert_double_equal(ingest_quietness(&f.rec), 8400.0 / 8000.0, 1e-15);
	fixture_init(&f, "cpu_us");
	assert_double_equal(ingest_quietness(&f.rec), 1.25, 1e-15);
	/* p95 equal to the median: perfectly quiet. */
	f.metrics[1].p95 = 200;
	assert_double_equal(ingest_quietness(&f.rec), 1.0, 0);
}

static void quietness_unknown(void **state)
{
	struct fixture f;
	(void)state;
	/* A counted primary has neither median nor p95. */
	fixture_init(&f, "allocations");
	assert_true(isnan(ingest_quietness(&f.rec)));
	/* No p95, no median, a zero or negative median. */
	fixture_init(&f, "gpu_frame_us");
	f.metrics[2].p95 = NAN;
	assert_true(isnan(ingest_quietness(&f.rec)));
	fixture_init(&f, "gpu_frame_us");
	f.metrics[2].median = NAN;
	assert_true(isnan(ingest_quietness(&f.rec)));
	fixture_init(&f, "gpu_frame_us");
	f.metrics[2].median = 0;
	assert_true(isnan(ingest_quietness(&f.rec)));
	fixture_init(&f, "gpu_frame_us");
	f.metrics[2].median = -1;
	assert_true(isnan(ingest_quietness(&f.rec)));
	/* A primary that names no metric, or none at all. */
	fixture_init(&f, "missing_metric");
	assert_true(isnan(ingest_quietness(&f.rec)));
	fixture_init(&f, NULL);
	assert_true(isnan(ingest_quietness(&f.rec)));
	fixture_init(&f, "gpu_frame_us");
	f.rec.nmetrics = 0;
	assert_true(isnan(ingest_quietness(&f.rec)));
}

static void nearest_rank_odd_and_even(void **state)
{
	const double odd[] = {5, 1, 4, 2, 3}; /* unsorted on purpose */
	const double even[] = {40, 10, 30, 20};
	const double copy[] = {40, 10, 30, 20};
	(void)state;
	assert_double_equal(nearest_rank(odd, 5, 50), 3, 0);
	/* p50 of 4 values is the 2nd (ceil(0.5 * 4) = 2): the lower middle, no averaging. */
	assert_double_equal(nearest_rank(even, 4, 50), 20, 0);
	/* The input is not modified. */
	assert_memory_equal(even, copy, sizeof(even));
	assert_double_equal(nearest_rank(odd, 5, 95), 5, 0);
	assert_double_equal(nearest_rank(even, 4, 75), 30, 0);
	assert_double_equal(nearest_rank(even, 4, 76), 40, 0);
	assert_double_equal(nearest_rank(even, 4, 25), 10, 0);
	assert_double_equal(nearest_rank(even, 4, 26), 20, 0);
}

static void nearest_rank_p95_of_20_is_the_19th(void **state)
{
	double v[20], sorted[20];
	(void)state;
	for (int i = 0; i < 20; i++) {
		v[i] = (double)((i * 7) % 20 + 1); /* 1..20, shuffled */
		sorted[i] = (double)(i + 1);
	}
	/* pct * n / 100 exactly: a product with pct / 100 first can overshoot an integer
	 * (0.07 * 100 is 7.000000000000001, whose ceil is 8), so check every pct and n. */
	assert_double_equal(nearest_rank(v, 20, 95), 19, 0);
	assert_double_equal(nearest_rank_sorted(sorted, 20, 95), 19, 0);
	assert_double_equal(nearest_rank_sorted(sorted, 20, 95.01), 20, 0);
	assert_double_equal(nearest_rank_sorted(sorted, 20, 50), 10, 0);
	assert_double_equal(nearest_rank_sorted(sorted, 20, 5), 1, 0);
	assert_double_equal(nearest_rank_sorted(sorted, 20, 5.01), 2, 0);
	{
		double hundred[100];
		for (int i = 0; i < 100; i++)
			hundred[i] = (double)(i + 1);
		assert_double_equal(nearest_rank_sorted(hundred, 100, 7), 7, 0);
		assert_double_equal(nearest_rank_sorted(hundred, 100, 14), 14, 0);
	}
	/* Other sizes where pct * n / 100 is an integer. */
	for (size_t n = 1; n <= 200; n++) {
		double *s = malloc(n * sizeof(*s));
		assert_non_null(s);
		for (size_t i = 0; i < n; i++)
			s[i] = (double)(i + 1);
		for (int pct = 1; pct <= 100; pct++) {
			size_t want = ((size_t)pct * n + 99) / 100; /* exact ceil in integers */
			if (want < 1)
				want = 1;
			assert_double_equal(nearest_rank_sorted(s, n, pct), (double)want, 0);
		}
		free(s);
	}
}

static void nearest_rank_edges(void **state)
{
	const double one[] = {7.5};
	const double sorted[] = {1, 2, 3, 4, 5, 6};
	const double unsorted[] = {6, 2, 5, 1, 4, 3};
	(void)state;
	/* n = 1: every percentile is that value. */
	assert_double_equal(nearest_rank(one, 1, 0), 7.5, 0);
	assert_double_equal(nearest_rank(one, 1, 50), 7.5, 0);
	assert_double_equal(nearest_rank(one, 1, 95), 7.5, 0);
	assert_double_equal(nearest_rank(one, 1, 100), 7.5, 0);
	assert_double_equal(nearest_rank_sorted(one, 1, 50), 7.5, 0);
	/* pct 0 is rank 1 (the minimum), pct 100 rank n (the maximum). */
	assert_double_equal(nearest_rank_sorted(sorted, 6, 0), 1, 0);
	assert_double_equal(nearest_rank_sorted(sorted, 6, 100), 6, 0);
	assert_double_equal(nearest_rank(unsorted, 6, 0), 1, 0);
	assert_double_equal(nearest_rank(unsorted, 6, 100), 6, 0);
	assert_double_equal(nearest_rank(unsorted, 6, 50), 3, 0);
	/* No values: NAN. */
	assert_true(isnan(nearest_rank(one, 0, 50)));
	assert_true(isnan(nearest_rank_sorted(one, 0, 50)));
}

/* The noisy limit holds only where a p95 can mean something: at least min_samples
 * measurements behind it (n, else the samples given), or a count the record does not say. */
static void the_noisy_rule_needs_enough_samples(void **state)
{
	struct fixture f;
	double five[5] = {200, 201, 202, 203, 260};
	(void)state;
	fixture_init(&f, "cpu_us"); /* p95/median 1.25, n = 10 */
	assert_int_equal(ingest_sample_count(&f.rec), 10);
	assert_true(ingest_is_noisy(&f.rec, 1.06, 10));
	assert_false(ingest_is_noisy(&f.rec, 1.06, 11));
	assert_false(ingest_is_noisy(&f.rec, 1.30, 10));
	/* no n: the samples count */
	f.metrics[1].n = -1;
	f.metrics[1].samples = five;
	f.metrics[1].nsamples = 5;
	assert_int_equal(ingest_sample_count(&f.rec), 5);
	assert_false(ingest_is_noisy(&f.rec, 1.06, 10));
	assert_true(ingest_is_noisy(&f.rec, 1.06, 5));
	/* neither: the producer's p95 is held to the limit */
	f.metrics[1].samples = NULL;
	f.metrics[1].nsamples = 0;
	assert_int_equal(ingest_sample_count(&f.rec), -1);
	assert_true(ingest_is_noisy(&f.rec, 1.06, 10));
	/* an unknown quietness is never noisy */
	fixture_init(&f, "allocations");
	assert_false(ingest_is_noisy(&f.rec, 1.06, 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(keep_first_keeps_the_standing_run),
	    cmocka_unit_test(the_noisy_rule_needs_enough_samples),
	    cmocka_unit_test(a_flawed_run_never_displaces_a_clean_one),
	    cmocka_unit_test(a_clean_run_displaces_a_flawed_one),
	    cmocka_unit_test(both_flawed_the_quieter_stands),
	    cmocka_unit_test(unknown_quietness),
	    cmocka_unit_test(tie_lower_higher),
	    cmocka_unit_test(quietness_of_the_primary_metric),
	    cmocka_unit_test(quietness_unknown),
	    cmocka_unit_test(nearest_rank_odd_and_even),
	    cmocka_unit_test(nearest_rank_p95_of_20_is_the_19th),
	    cmocka_unit_test(nearest_rank_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

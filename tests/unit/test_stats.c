/*
 * Unit tests for detect/stats/stats.c: the §6 band's nearest-rank median; the Hodges-Lehmann shift
 * with its Mann-Whitney interval and the median's order-statistic interval, against reference
 * values R 4.2.2 computed (the command that produced each table is next to it; the test does not
 * need R to run), then the two ways of selecting differences against each other and against sorting
 * them all, ties, the symmetry of the shift, refusals and the per-thread cache.
 *
 * The tie-free data of the R tables comes from two formulas that C and R evaluate to the
 * same doubles (integer arithmetic, then one division and one addition, each rounded once):
 *   x_i = 100 + ((i * 7919) mod 1009) / 10          i = 1..nx   (R: fx(nx))
 *   y_j = 105 + ((j * 7927) mod 1013 + 0.5) / 10    j = 1..ny   (R: fy(ny))
 * with, in R,
 *   fx <- function(n) 100 + ((seq_len(n) * 7919) %% 1009) / 10
 *   fy <- function(n) 105 + ((seq_len(n) * 7927) %% 1013 + 0.5) / 10
 *   g <- function(v) paste(sprintf("%.17g", v), collapse = ", ")
 * Up to 1009 values each are distinct, and no x equals a y (tenths against twentieths).
 */
#include <math.h>
#include <pthread.h>
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
#include "detect/stats/stats.h"

static double *fx(size_t n)
{
	double *v = xmalloc((n ? n : 1) * sizeof(*v));
	for (size_t i = 1; i <= n; i++)
		v[i - 1] = 100 + (double)((i * 7919) % 1009) / 10;
	return v;
}

static double *fy(size_t n)
{
	double *v = xmalloc((n ? n : 1) * sizeof(*v));
	for (size_t j = 1; j <= n; j++)
		v[j - 1] = 105 + ((double)((j * 7927) % 1013) + 0.5) / 10;
	return v;
}

/* 1e-12 relative (absolute near 0). The values agree to the last bit in practice; the
 * tolerance only allows for another platform's rounding of R's printed decimals. */
static void assert_close(double got, double want, double tol)
{
	double scale = fabs(want) > 1 ? fabs(want) : 1;
	if (!(fabs(got - want) <= tol * scale)) {
		print_error("got %.17g, want %.17g (tolerance %g)\n", got, want, tol * scale);
		fail();
	}
}

static void assert_same_bits(double a, double b)
{
	if (memcmp(&a, &b, sizeof(a))) {
		print_error("%.17g and %.17g differ in their bits\n", a, b);
		fail();
	}
}

/* --- The §6 band's nearest-rank median --- */

static void nearest_rank_median(void **state)
{
	double odd[] = {3, 1, 2}, even[] = {4, 1, 3, 2}, one[] = {7},
	       eight[] = {8, 7, 6, 5, 4, 3, 2, 1};
	(void)state;
	assert_true(stats_nr_median(odd, 3) == 2);
	assert_true(stats_nr_median(even, 4) == 2); /* rank ceil(2) = 2: the lower middle */
	assert_true(stats_nr_median(one, 1) == 7);
	assert_true(stats_nr_median(eight, 8) == 4);
	assert_true(isnan(stats_nr_median(odd, 0)));
	/* sorted in place */
	for (size_t i = 0; i < 8; i++)
		assert_true(eight[i] == (double)(i + 1));
	assert_true(even[0] == 1 && even[1] == 2 && even[2] == 3 && even[3] == 4);
}

/* --- The distribution helpers, against R --- */

/* R: for (mn in list(c(5,5), c(4,5), c(7,12), c(20,20), c(30,45), c(50,50)))
 *      for (p in c(0.005, 0.025, 0.05)) cat(p, mn, qwilcox(p, mn[1], mn[2]), "\n") */
static const struct {
	double p;
	size_t m, n;
	int64_t q;
} qwilcox_ref[] = {
    {0.005, 5, 5, 1},	  {0.025, 5, 5, 3},	{0.05, 5, 5, 5},      {0.005, 4, 5, 0},
    {0.025, 4, 5, 2},	  {0.05, 4, 5, 3},	{0.005, 7, 12, 13},   {0.025, 7, 12, 19},
    {0.05, 7, 12, 22},	  {0.005, 20, 20, 106}, {0.025, 20, 20, 128}, {0.05, 20, 20, 139},
    {0.005, 30, 45, 439}, {0.025, 30, 45, 494}, {0.05, 30, 45, 523},  {0.005, 50, 50, 878},
    {0.025, 50, 50, 966}, {0.05, 50, 50, 1011},
};

/* R: for (n in c(0, 7, 8, 10, 25, 100, 1000, 100000)) for (p in c(0.005, 0.025))
 *      cat(p, n, qbinom(p, n, 0.5), "\n") */
static const struct {
	double p;
	size_t n;
	int64_t k;
} qbinom_ref[] = {
    {0.005, 0, 0},	{0.025, 0, 0},	    {0.005, 7, 0},	    {0.025, 7, 1},
    {0.005, 8, 1},	{0.025, 8, 1},	    {0.005, 10, 1},	    {0.025, 10, 2},
    {0.005, 25, 6},	{0.025, 25, 8},	    {0.005, 100, 37},	    {0.025, 100, 40},
    {0.005, 1000, 459}, {0.025, 1000, 469}, {0.005, 100000, 49593}, {0.025, 100000, 49690},
};

/*
 * On the boundaries: p exactly a cumulative probability, where the fuzz of R's quantile
 * functions (qwilcox: p - 10 DBL_EPSILON; qbinom: p (1 - 64 DBL_EPSILON)) keeps the answer at
 * that point although the running sum of probabilities may land an ulp below p. Without the
 * fuzz each of these answers one more. R, p as a count over choose(m + n, n):
 *   m <- 10; n <- 10; tot <- choose(m + n, n)
 *   cnt <- round(cumsum(dwilcox(0:(m * n / 2), m, n) * tot))
 *   p <- cnt[q + 1] / tot; cat(sprintf("%.17g", p), qwilcox(p, m, n))
 * for the q below (and likewise 7 x 12, 20 x 20); and pbinom's own values:
 *   for (n in c(8, 10)) for (k in 0:3) {
 *     p <- pbinom(k, n, 0.5); cat(sprintf("%.17g", p), qbinom(p, n, 0.5)) }
 * (R's pbinom(1, 8, 0.5) is 0.035156250000000014, not 9/256: without the fuzz, 2.)
 */
static const struct {
	double p;
	size_t m, n;
	int64_t q;
} qwilcox_edge[] = {
    {0.00037707390648567121, 7, 12, 5},	  /* 19 / choose(19, 12) */
    {0.041557513693736607, 7, 12, 21},	  /* 2094 / choose(19, 12) */
    {0.00010283833813245579, 10, 10, 5},  /* 19 / choose(20, 10) */
    {0.02162852627248912, 10, 10, 23},	  /* 3996 / choose(20, 10) */
    {5.0781111863473911e-11, 20, 20, 3},  /* 7 / choose(40, 20) */
    {8.7053334623098132e-11, 20, 20, 4},  /* 12 / choose(40, 20) */
    {3.2645000483661799e-10, 20, 20, 7},  /* 45 / choose(40, 20) */
    {8.445624347350904e-08, 20, 20, 26},  /* 11642 / choose(40, 20) */
    {1.0585685490168733e-07, 20, 20, 27}, /* 14592 / choose(40, 20) */
};
static const struct {
	double p;
	size_t n;
	int64_t k;
} qbinom_edge[] = {
    {0.00390625, 8, 0},
    {0.035156250000000014, 8, 1},
    {0.14453125000000006, 8, 2},
    {0.36328125000000017, 8, 3},
    {0.00097656250000000022, 10, 0},
    {0.010742187500000007, 10, 1},
    {0.054687499999999972, 10, 2},
    {0.17187500000000006, 10, 3},
};

/* R: for (p in c(1e-300, 1e-10, 0.005, 0.025, 0.3, 0.5, 0.925, 0.995))
 *      cat(sprintf("%.17g %.17g\n", qnorm(p), qnorm(p, lower.tail = FALSE))) */
static const struct {
	double p, lower, upper;
} qnorm_ref[] = {
    {1e-300, -37.047096299361201, 37.047096299361201},
    {1e-10, -6.3613409024040557, 6.3613409024040557},
    {0.005, -2.5758293035488999, 2.5758293035488999},
    {0.025, -1.9599639845400538, 1.9599639845400538},
    {0.3, -0.52440051270804067, 0.52440051270804067},
    {0.5, 0, 0},
    {0.925, 1.4395314709384559, -1.4395314709384559},
    {0.995, 2.5758293035488999, -2.5758293035488999},
};

static void distribution_helpers_match_r(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(qwilcox_ref) / sizeof(qwilcox_ref[0]); i++) {
		assert_int_equal(
		    stats_qwilcox(qwilcox_ref[i].p, qwilcox_ref[i].m, qwilcox_ref[i].n),
		    qwilcox_ref[i].q);
		/* The distribution is symmetric in m and n. */
		assert_int_equal(
		    stats_qwilcox(qwilcox_ref[i].p, qwilcox_ref[i].n, qwilcox_ref[i].m),
		    qwilcox_ref[i].q);
	}
	for (size_t i = 0; i < sizeof(qbinom_ref) / sizeof(qbinom_ref[0]); i++)
		assert_int_equal(stats_qbinom_half(qbinom_ref[i].p, qbinom_ref[i].n),
				 qbinom_ref[i].k);
	for (size_t i = 0; i < sizeof(qwilcox_edge) / sizeof(qwilcox_edge[0]); i++)
		assert_int_equal(
		    stats_qwilcox(qwilcox_edge[i].p, qwilcox_edge[i].m, qwilcox_edge[i].n),
		    qwilcox_edge[i].q);
	for (size_t i = 0; i < sizeof(qbinom_edge) / sizeof(qbinom_edge[0]); i++)
		assert_int_equal(stats_qbinom_half(qbinom_edge[i].p, qbinom_edge[i].n),
				 qbinom_edge[i].k);
	for (size_t i = 0; i < sizeof(qnorm_ref) / sizeof(qnorm_ref[0]); i++) {
		assert_true(stats_qnorm(qnorm_ref[i].p, 1) == qnorm_ref[i].lower);
		assert_true(stats_qnorm(qnorm_ref[i].p, 0) == qnorm_ref[i].upper);
	}
	/* Outside their domains. */
	assert_int_equal(stats_qwilcox(0.6, 5, 5), -1);
	assert_int_equal(stats_qwilcox(0.005, 0, 5), -1);
	assert_int_equal(stats_qwilcox(0.005, STATS_EXACT_MAX + 1, 5), -1);
	assert_int_equal(stats_qbinom_half(0, 10), -1);
	assert_true(isnan(stats_qnorm(1, 1)));
}

/* --- The shift, against R --- */

struct shift_ref {
	size_t nx, ny;
	double conf;
	double lo, hi, estimate; /* R's interval and estimate (exact), or the order statistics */
	double r_lo, r_hi;	 /* normal: R's uniroot interval with tol.root = 1e-12 */
};

/*
 * Exact branch. R, for each (nx, ny, cl):
 *   x <- fx(nx); y <- fy(ny)
 *   w <- wilcox.test(y, x, exact = TRUE, conf.int = TRUE, conf.level = cl)
 *   cat(g(c(w$conf.int, w$estimate)))
 * (exact = TRUE matters at 50 x 50 only: R's default is exact below 50 a side.)
 */
static const struct shift_ref exact_ref[] = {
    {5, 5, 0.99, -67.75, 64.25, -1.75, 0, 0},
    {7, 12, 0.99, -41.449999999999989, 48.950000000000017, 5.0500000000000043, 0, 0},
    {12, 7, 0.99, -30.950000000000017, 55.150000000000006, 13.5, 0, 0},
    {20, 20, 0.99, -20.650000000000006, 33.75, 5.9500000000000028, 0, 0},
    {20, 20, 0.95, -13.949999999999989, 26.350000000000023, 5.9500000000000028, 0, 0},
    {50, 50, 0.99, -11.849999999999994, 20.350000000000009, 4.25, 0, 0},
};

/*
 * Normal branch. R's interval comes from uniroot on a step function, so it is the order
 * statistic only to within tol.root (default 1e-4: off by up to 4.5e-5 on these). The
 * order statistics themselves, with k as docs/stats.md derives it:
 *   x <- fx(nx); y <- fy(ny); d <- sort(outer(y, x, "-")); N <- length(d)
 *   k <- ceiling(N / 2 - 0.5 - qnorm((1 - cl) / 2, lower.tail = FALSE) *
 *                sqrt(nx * ny * (nx + ny + 1) / 12))
 *   cat(g(c(d[k], d[N + 1 - k], median(d))))
 * and R's own interval, solved tightly:
 *   w <- wilcox.test(y, x, exact = FALSE, correct = TRUE, conf.int = TRUE,
 *                    conf.level = cl, tol.root = 1e-12)
 *   cat(g(w$conf.int))
 * k: 916 (51 x 51), 896 (50 x 51), 1788 (60 x 80 at 0.99), 1935 (at 0.95), 39531 (300 x 300).
 */
static const struct shift_ref normal_ref[] = {
    {51, 51, 0.99, -12.049999999999983, 19.949999999999989, 3.9500000000000028, -12.049999999999564,
     19.949999999999601},
    {50, 51, 0.99, -12.849999999999994, 19.449999999999989, 3.5500000000000114, -12.849999999999767,
     19.450000000000248},
    {60, 80, 0.99, -9.6500000000000057, 17.949999999999989, 4.25, -9.6500000000000785,
     17.950000000000351},
    {60, 80, 0.95, -6.1500000000000057, 14.450000000000017, 4.25, -6.149999999999852,
     14.45000000000079},
    {300, 300, 0.99, -0.95000000000000284, 11.650000000000006, 5.3499999999999943,
     -0.95000000000032048, 11.650000000000622},
};

static void check_ref(const struct shift_ref *r, int exact)
{
	static const enum stats_select hows[] = {STATS_SELECT_AUTO, STATS_SELECT_MATERIALIZE,
						 STATS_SELECT_IMPLICIT};
	double *x = fx(r->nx), *y = fy(r->ny);
	for (size_t h = 0; h < 3; h++) {
		struct stats_shift s;
		struct bl_error err = BL_ERROR_INIT;
		assert_int_equal(
		    stats_hl_shift_with(&s, x, r->nx, y, r->ny, r->conf, hows[h], &err), 0);
		assert_int_equal(s.exact, exact);
		assert_close(s.lo, r->lo, 1e-12);
		assert_close(s.hi, r->hi, 1e-12);
		assert_close(s.estimate, r->estimate, 1e-12);
		if (!exact) {
			/* R's uniroot stops within 1e-12 of the jump; allow it 1e-9. */
			assert_close(s.lo, r->r_lo, 1e-9);
			assert_close(s.hi, r->r_hi, 1e-9);
		}
		bl_error_release(&err);
	}
	free(x);
	free(y);
}

static void exact_shift_matches_r(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(exact_ref) / sizeof(exact_ref[0]); i++)
		check_ref(&exact_ref[i], 1);
}

static void normal_shift_matches_r(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(normal_ref) / sizeof(normal_ref[0]); i++)
		check_ref(&normal_ref[i], 0);
}

/* --- Against sorting every difference --- */

/* The lower end's rank as docs/stats.md states it, from the helpers tested above; 0 when
 * the level cannot be reached. */
static uint64_t lower_rank(size_t nx, size_t ny, double conf)
{
	double N = (double)nx * (double)ny, k;
	if (nx <= STATS_EXACT_MAX && ny <= STATS_EXACT_MAX)
		return (uint64_t)stats_qwilcox((1 - conf) / 2, nx, ny);
	k = ceil(N / 2 - 0.5 -
		 stats_qnorm((1 - conf) / 2, 0) *
		     sqrt((double)nx * (double)ny * (double)(nx + ny + 1) / 12));
	return k < 1 ? 0 : (uint64_t)k;
}

static void check_brute(const double *x, size_t nx, const double *y, size_t ny, double conf)
{
	size_t N = nx * ny, m = 0;
	double *d = xmalloc(N * sizeof(*d)), mid;
	uint64_t k = lower_rank(nx, ny, conf);
	struct stats_shift a, b;
	assert_true(k >= 1);
	for (size_t i = 0; i < nx; i++)
		for (size_t j = 0; j < ny; j++)
			d[m++] = y[j] - x[i] + 0.0;
	qsort(d, N, sizeof(*d), cmp_double);
	mid = N % 2 ? d[N / 2] : (d[N / 2 - 1] + d[N / 2]) / 2;
	assert_int_equal(
	    stats_hl_shift_with(&a, x, nx, y, ny, conf, STATS_SELECT_MATERIALIZE, NULL), 0);
	assert_int_equal(stats_hl_shift_with(&b, x, nx, y, ny, conf, STATS_SELECT_IMPLICIT, NULL),
			 0);
	/* The two ways agree to the bit, and with the sorted differences. */
	assert_same_bits(a.lo, b.lo);
	assert_same_bits(a.hi, b.hi);
	assert_same_bits(a.estimate, b.estimate);
	assert_same_bits(a.lo, d[k - 1]);
	assert_same_bits(a.hi, d[N - k]);
	assert_same_bits(a.estimate, mid);
	free(d);
}

static uint64_t rng_state = 12345;
static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Timing-like samples: the log of 100 plus noise, rounded to a grid of the given step (a
 * coarse step makes many ties, as a timer's resolution does), y shifted by shift. */
static void fill(double *v, size_t n, double shift, double step)
{
	for (size_t i = 0; i < n; i++) {
		double t = log(100 + (double)(rng() % 1000000) / 1e5) + shift;
		v[i] = step > 0 ? round(t / step) * step : t;
	}
}

static void both_ways_agree_with_sorting(void **state)
{
	static const size_t sizes[][2] = {{2, 2},    {5, 5},	 {3, 40},    {50, 50},	{51, 60},
					  {17, 200}, {120, 140}, {400, 300}, {3, 2000}, {2000, 7}};
	static const double steps[] = {0, 0.01, 0.001, 0.0001};
	(void)state;
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		for (size_t t = 0; t < sizeof(steps) / sizeof(steps[0]); t++) {
			size_t nx = sizes[s][0], ny = sizes[s][1];
			double *x = xmalloc(nx * sizeof(*x)), *y = xmalloc(ny * sizeof(*y));
			double conf = t % 2 ? 0.95 : 0.99;
			fill(x, nx, 0, steps[t]);
			fill(y, ny, 0.01 * (double)t, steps[t]);
			if (lower_rank(nx, ny, conf) >= 1) {
				check_brute(x, nx, y, ny, conf);
			} else {
				struct stats_shift sh;
				assert_int_equal(stats_hl_shift(&sh, x, nx, y, ny, conf, NULL),
						 BL_EINVALID);
			}
			free(x);
			free(y);
		}
	}
}

/* Every rank of a few matrices big enough for the implicit selection to take rounds before it
 * gathers the last candidates, with ties from coarse grids (so pivots often equal the answer,
 * at either end of its run of equal values), against the sorted differences. */
static void every_rank_of_the_implicit_selection(void **state)
{
	static const size_t sizes[][2] = {{40, 60}, {90, 13}, {7, 300}};
	static const double steps[] = {0, 0.05, 0.01, 0.002};
	(void)state;
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		for (size_t t = 0; t < sizeof(steps) / sizeof(steps[0]); t++) {
			size_t nx = sizes[s][0], ny = sizes[s][1], N = nx * ny, m = 0;
			double *x = xmalloc(nx * sizeof(*x)), *y = xmalloc(ny * sizeof(*y));
			double *d = xmalloc(N * sizeof(*d));
			fill(x, nx, 0, steps[t]);
			fill(y, ny, 0.002, steps[t]);
			qsort(x, nx, sizeof(*x), cmp_double);
			qsort(y, ny, sizeof(*y), cmp_double);
			for (size_t i = 0; i < nx; i++)
				for (size_t j = 0; j < ny; j++)
					d[m++] = y[j] - x[i];
			qsort(d, N, sizeof(*d), cmp_double);
			for (uint64_t k = 1; k <= N; k++)
				assert_same_bits(stats_pairdiff_kth(x, nx, y, ny, k), d[k - 1]);
			assert_true(isnan(stats_pairdiff_kth(x, nx, y, ny, 0)));
			assert_true(isnan(stats_pairdiff_kth(x, nx, y, ny, N + 1)));
			free(x);
			free(y);
			free(d);
		}
	}
	/* Unsorted input is refused rather than answered wrongly. */
	double u[] = {2, 1}, v[] = {1, 2};
	assert_true(isnan(stats_pairdiff_kth(u, 2, v, 2, 1)));
	assert_true(isnan(stats_pairdiff_kth(v, 2, u, 2, 1)));
}

/* Past STATS_MATERIALIZE_MAX differences AUTO selects without storing them; forced to store
 * them, the answer is the same to the bit. */
static void large_inputs_same_bits_both_ways(void **state)
{
	size_t nx = 700, ny = 500;
	double *x = xmalloc(nx * sizeof(*x)), *y = xmalloc(ny * sizeof(*y));
	struct stats_shift a, b, c;
	(void)state;
	assert_true(nx * ny > STATS_MATERIALIZE_MAX);
	fill(x, nx, 0, 0.0005);
	fill(y, ny, 0.003, 0.0005);
	assert_int_equal(stats_hl_shift(&a, x, nx, y, ny, 0.99, NULL), 0);
	assert_int_equal(
	    stats_hl_shift_with(&b, x, nx, y, ny, 0.99, STATS_SELECT_MATERIALIZE, NULL), 0);
	assert_int_equal(stats_hl_shift_with(&c, x, nx, y, ny, 0.99, STATS_SELECT_IMPLICIT, NULL),
			 0);
	assert_same_bits(a.lo, b.lo);
	assert_same_bits(a.hi, b.hi);
	assert_same_bits(a.estimate, b.estimate);
	assert_same_bits(a.lo, c.lo);
	assert_same_bits(a.hi, c.hi);
	assert_same_bits(a.estimate, c.estimate);
	assert_int_equal(a.exact, 0);
	check_brute(x, nx, y, ny, 0.99);
	free(x);
	free(y);
}

/* --- Ties, symmetry, refusals --- */

static void ties_are_order_statistics_too(void **state)
{
	double x[] = {1, 1, 1, 1, 1, 1}, y[] = {1, 1, 1, 1, 1, 1};
	double a[] = {10, 10, 11, 11, 12, 12, 12, 13}, b[] = {12, 12, 13, 13, 13, 14, 14, 15};
	struct stats_shift s;
	(void)state;
	/* Everything equal: no shift, a point interval. */
	assert_int_equal(stats_hl_shift(&s, x, 6, y, 6, 0.99, NULL), 0);
	assert_true(s.lo == 0 && s.estimate == 0 && s.hi == 0);
	assert_false(signbit(s.lo) || signbit(s.estimate) || signbit(s.hi));
	/* Heavy ties: the same order statistics, whichever way. 64 differences and
	 * qwilcox(0.005, 8, 8) = 8, so the interval is [d(8), d(57)] = [0, 4] and the middle
	 * ones d(32) and d(33) are both 2. R: a <- c(10, 10, 11, 11, 12, 12, 12, 13);
	 * b <- c(12, 12, 13, 13, 13, 14, 14, 15); sort(outer(b, a, "-"))[c(8, 32, 33, 57)] */
	check_brute(a, 8, b, 8, 0.99);
	assert_int_equal(stats_hl_shift(&s, a, 8, b, 8, 0.99, NULL), 0);
	assert_true(s.lo == 0 && s.estimate == 2 && s.hi == 4);
	/* -0 and +0 are one value: both signs give +0, so the two ways cannot differ. Every
	 * difference of -0 against +0 computes as -0, and still comes out +0. */
	double pz[] = {0.0, 0.0, 0.0, 0.0, 0.0}, nz[] = {-0.0, -0.0, -0.0, -0.0, -0.0};
	for (int how = STATS_SELECT_MATERIALIZE; how <= STATS_SELECT_IMPLICIT; how++) {
		assert_int_equal(
		    stats_hl_shift_with(&s, pz, 5, nz, 5, 0.99, (enum stats_select)how, NULL), 0);
		assert_false(signbit(s.lo) || signbit(s.estimate) || signbit(s.hi));
	}
	assert_false(signbit(stats_pairdiff_kth(pz, 5, nz, 5, 3)));
	double z1[] = {-0.0, 0.0, -0.0, 0.0, 1}, z2[] = {0.0, -0.0, 0.0, -0.0, 1};
	check_brute(z1, 5, z2, 5, 0.99);
	assert_int_equal(stats_hl_shift(&s, z1, 5, z2, 5, 0.99, NULL), 0);
	assert_false(signbit(s.estimate));
}

static void shift_is_antisymmetric(void **state)
{
	static const size_t sizes[][2] = {{5, 5}, {7, 12}, {50, 50}, {51, 40}, {300, 200}};
	(void)state;
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t nx = sizes[s][0], ny = sizes[s][1];
		double *x = fx(nx), *y = fy(ny);
		for (int how = STATS_SELECT_MATERIALIZE; how <= STATS_SELECT_IMPLICIT; how++) {
			struct stats_shift a, b;
			assert_int_equal(stats_hl_shift_with(&a, x, nx, y, ny, 0.99,
							     (enum stats_select)how, NULL),
					 0);
			assert_int_equal(stats_hl_shift_with(&b, y, ny, x, nx, 0.99,
							     (enum stats_select)how, NULL),
					 0);
			/* y against x is minus x against y, the interval mirrored, exactly. */
			assert_same_bits(b.estimate, -a.estimate);
			assert_same_bits(b.lo, -a.hi);
			assert_same_bits(b.hi, -a.lo);
			assert_int_equal(a.exact, b.exact);
		}
		free(x);
		free(y);
	}
}

static void inputs_are_not_modified(void **state)
{
	double x[] = {3, 1, 2, 5, 4, 9, 7}, y[] = {8, 6, 7, 5, 3, 0, 9, 2};
	double x0[7], y0[8], lo, est, hi;
	struct stats_shift s;
	(void)state;
	memcpy(x0, x, sizeof(x));
	memcpy(y0, y, sizeof(y));
	assert_int_equal(stats_hl_shift(&s, x, 7, y, 8, 0.9, NULL), 0);
	assert_int_equal(stats_median_interval(&lo, &est, &hi, y, 8, 0.99, NULL), 0);
	assert_memory_equal(x, x0, sizeof(x));
	assert_memory_equal(y, y0, sizeof(y));
}

static void bad_inputs_are_refused(void **state)
{
	double *x = fx(60), *y = fy(60);
	double nan_at[] = {1, 2, NAN, 4, 5}, inf_at[] = {1, 2, 3, INFINITY, 5};
	double huge[] = {-1e308, 1e308, 0, 1, 2}, lo, est, hi;
	struct stats_shift s;
	struct bl_error err = BL_ERROR_INIT;
	(void)state;
	/* Fewer than 2 a side. */
	assert_int_equal(stats_hl_shift(&s, x, 1, y, 10, 0.99, &err), BL_EINVALID);
	assert_int_equal(err.code, BL_EINVALID);
	assert_int_equal(stats_hl_shift(&s, x, 10, y, 0, 0.99, &err), BL_EINVALID);
	/* 4 x 5 at 99%: qwilcox(0.005, 4, 5) = 0, even the whole range covers less. 5 x 5 can. */
	assert_int_equal(stats_hl_shift(&s, x, 4, y, 5, 0.99, &err), BL_EINVALID);
	assert_non_null(strstr(err.msg.buf, "too few"));
	assert_int_equal(stats_hl_shift(&s, x, 5, y, 5, 0.99, NULL), 0);
	assert_int_equal(stats_hl_shift(&s, x, 4, y, 5, 0.9, NULL), 0);
	/* Normal branch: 2 against 60 cannot reach 99% (k = ceil(59.5 - 2.576 * 25.1) < 1). */
	assert_int_equal(stats_hl_shift(&s, x, 2, y, 60, 0.99, &err), BL_EINVALID);
	/* Levels outside (0, 1). */
	assert_int_equal(stats_hl_shift(&s, x, 10, y, 10, 1, &err), BL_EINVALID);
	assert_int_equal(stats_hl_shift(&s, x, 10, y, 10, 0, &err), BL_EINVALID);
	assert_int_equal(stats_hl_shift(&s, x, 10, y, 10, NAN, &err), BL_EINVALID);
	assert_int_equal(stats_median_interval(&lo, &est, &hi, x, 10, 1.5, &err), BL_EINVALID);
	/* NaN and infinities, on either side. */
	assert_int_equal(stats_hl_shift(&s, nan_at, 5, y, 10, 0.9, &err), BL_EINVALID);
	assert_non_null(strstr(err.msg.buf, "not a finite number"));
	assert_int_equal(stats_hl_shift(&s, x, 10, inf_at, 5, 0.9, &err), BL_EINVALID);
	assert_int_equal(stats_median_interval(&lo, &est, &hi, nan_at, 5, 0.5, &err), BL_EINVALID);
	/* Differences past the largest double: 1e308 - -1e308. */
	assert_int_equal(stats_hl_shift(&s, huge, 5, huge, 5, 0.9, &err), BL_EINVALID);
	bl_error_release(&err);
	free(x);
	free(y);
}

/* --- The median's interval, against R --- */

/*
 * R, for n in 8, 10, 25, 100, 1000:
 *   x <- fx(n); k <- qbinom(0.005, n, 0.5); s <- sort(x)
 *   cat(g(c(s[k], median(x), s[n + 1 - k])), k, 1 - 2 * pbinom(k - 1, n, 0.5))
 * k = 1, 1, 6, 37, 459 with coverage 0.9922, 0.9980, 0.9959, 0.9934, 0.9914 (>= 0.99); one
 * rank further in (k + 1) would cover 0.9297, 0.9785, 0.9854, 0.9880, 0.9896 (< 0.99).
 */
static const struct {
	size_t n;
	double lo, median, hi;
} median_ref[] = {
    {8, 109.09999999999999, 162.65000000000001, 194.69999999999999},
    {10, 109.09999999999999, 159.55000000000001, 194.69999999999999},
    {25, 124.40000000000001, 151.69999999999999, 179.40000000000001},
    {100, 138.90000000000001, 151.5, 166.19999999999999},
    {1000, 146.40000000000001, 150.55000000000001, 154.69999999999999},
};

static void median_interval_matches_r(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(median_ref) / sizeof(median_ref[0]); i++) {
		double *x = fx(median_ref[i].n), lo, est, hi;
		assert_int_equal(
		    stats_median_interval(&lo, &est, &hi, x, median_ref[i].n, 0.99, NULL), 0);
		assert_close(lo, median_ref[i].lo, 1e-12);
		assert_close(est, median_ref[i].median, 1e-12);
		assert_close(hi, median_ref[i].hi, 1e-12);
		free(x);
	}
}

static void median_interval_edges(void **state)
{
	double *x = fx(10), lo, est, hi;
	double ties[] = {5, 5, 5, 5, 5, 5, 5, 5, 6};
	struct bl_error err = BL_ERROR_INIT;
	(void)state;
	/* 7 values: qbinom(0.005, 7, 0.5) = 0, the interval would be unbounded; 8 is enough. */
	assert_int_equal(stats_median_interval(&lo, &est, &hi, x, 7, 0.99, &err), BL_EINVALID);
	assert_non_null(strstr(err.msg.buf, "too few"));
	assert_int_equal(stats_median_interval(&lo, &est, &hi, x, 0, 0.99, &err), BL_EINVALID);
	assert_int_equal(stats_median_interval(&lo, &est, &hi, x, 8, 0.99, NULL), 0);
	/* At 95% 7 do: qbinom(0.025, 7, 0.5) = 1. */
	assert_int_equal(stats_median_interval(&lo, &est, &hi, x, 7, 0.95, NULL), 0);
	/* Ties: order statistics all the same. */
	assert_int_equal(stats_median_interval(&lo, &est, &hi, ties, 9, 0.99, NULL), 0);
	assert_true(lo == 5 && est == 5 && hi == 6);
	bl_error_release(&err);
	free(x);
}

/* --- The per-thread cache --- */

static void cache_keeps_levels_and_sizes_apart(void **state)
{
	(void)state;
	/* The same (m, n) at two levels, and sizes that share a slot. */
	for (int round = 0; round < 3; round++) {
		assert_int_equal(stats_qwilcox(0.005, 20, 20), 106);
		assert_int_equal(stats_qwilcox(0.025, 20, 20), 128);
		assert_int_equal(stats_qwilcox(0.005, 50, 50), 878);
		assert_int_equal(stats_qwilcox(0.005, 30, 45), 439);
		assert_int_equal(stats_qwilcox(0.005, 45, 30), 439);
		assert_int_equal(stats_qwilcox(0.05, 7, 12), 22);
	}
}

struct thread_job {
	struct stats_shift got[STATS_EXACT_MAX + 1];
	int ret;
};

static void *thread_main(void *arg)
{
	struct thread_job *job = arg;
	double *x = fx(STATS_EXACT_MAX), *y = fy(STATS_EXACT_MAX);
	job->ret = 0;
	for (size_t n = 5; n <= STATS_EXACT_MAX; n++)
		job->ret |= stats_hl_shift(&job->got[n], x, n, y, n, 0.99, NULL);
	free(x);
	free(y);
	return NULL;
}

static void threads_agree(void **state)
{
	struct thread_job jobs[4], here;
	pthread_t t[4];
	(void)state;
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&t[i], NULL, thread_main, &jobs[i]), 0);
	thread_main(&here);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_int_equal(jobs[i].ret, 0);
		for (size_t n = 5; n <= STATS_EXACT_MAX; n++) {
			assert_same_bits(jobs[i].got[n].lo, here.got[n].lo);
			assert_same_bits(jobs[i].got[n].hi, here.got[n].hi);
			assert_same_bits(jobs[i].got[n].estimate, here.got[n].estimate);
		}
	}
	assert_int_equal(here.ret, 0);
	/* 50 x 50 is the table's last exact row. */
	assert_close(here.got[50].lo, -11.849999999999994, 1e-12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(nearest_rank_median),
	    cmocka_unit_test(distribution_helpers_match_r),
	    cmocka_unit_test(exact_shift_matches_r),
	    cmocka_unit_test(normal_shift_matches_r),
	    cmocka_unit_test(both_ways_agree_with_sorting),
	    cmocka_unit_test(every_rank_of_the_implicit_selection),
	    cmocka_unit_test(large_inputs_same_bits_both_ways),
	    cmocka_unit_test(ties_are_order_statistics_too),
	    cmocka_unit_test(shift_is_antisymmetric),
	    cmocka_unit_test(inputs_are_not_modified),
	    cmocka_unit_test(bad_inputs_are_refused),
	    cmocka_unit_test(median_interval_matches_r),
	    cmocka_unit_test(median_interval_edges),
	    cmocka_unit_test(cache_keeps_levels_and_sizes_apart),
	    cmocka_unit_test(threads_agree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

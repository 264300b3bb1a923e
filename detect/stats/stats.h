/*
 * stats: the distribution-free statistics the band (§6), the gate and the paired re-bench use
 * (§7.3): the nearest-rank median, Hodges-Lehmann shifts with Mann-Whitney intervals, the
 * median's order-statistic interval and the median itself. Pure functions (stats.c);
 * docs/stats.md gives the formulas and R's reference values.
 */
#ifndef BENCHLINE_DETECT_STATS_H
#define BENCHLINE_DETECT_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "common/common.h"

/* A shift of y against x with its distribution-free confidence interval. */
struct stats_shift {
	double estimate; /* Hodges-Lehmann: the median of every y_j - x_i */
	double lo, hi;	 /* the interval at the asked level */
	int exact;	 /* 1: exact Mann-Whitney distribution, 0: normal approximation */
};

/*
 * Hodges-Lehmann shift of y against x with the Mann-Whitney order-statistic interval at
 * confidence conf (e.g. 0.99): exact up to STATS_EXACT_MAX samples a side, the normal
 * approximation above; the same interval R's wilcox.test(y, x, conf.int = TRUE) gives on
 * tie-free data. BL_EINVALID when a side has fewer than 2 values or the level cannot be
 * reached with so few (the interval would be the whole line).
 */
#define STATS_EXACT_MAX 50
int stats_hl_shift(struct stats_shift *out, const double *x, size_t nx, const double *y, size_t ny,
		   double conf, struct bl_error *err);
/*
 * The order-statistic interval for the median of values at confidence conf: the k-th and
 * (n+1-k)-th smallest, k from the binomial(n, 1/2) distribution (R: qbinom). The estimate is
 * the sample median. BL_EINVALID when n is too small for the level.
 */
int stats_median_interval(double *lo, double *estimate, double *hi, const double *values, size_t n,
			  double conf, struct bl_error *err);

/*
 * stats_hl_shift with the way the order statistics of the nx * ny differences are found:
 * MATERIALIZE stores every difference and selects in place; IMPLICIT selects in the implicit
 * sorted matrix (sorted y minus sorted x) without storing it; AUTO, what stats_hl_shift does,
 * materializes up to STATS_MATERIALIZE_MAX differences (about where the implicit selection
 * becomes the faster one, near 120 x 120). Every way gives the same bits: the choice is one
 * of speed and memory (and lets the tests compare the two).
 */
enum stats_select { STATS_SELECT_AUTO, STATS_SELECT_MATERIALIZE, STATS_SELECT_IMPLICIT };
#define STATS_MATERIALIZE_MAX 16384
int stats_hl_shift_with(struct stats_shift *out, const double *x, size_t nx, const double *y,
			size_t ny, double conf, enum stats_select how, struct bl_error *err);
/* The k-th smallest (1-based) of the nx * ny differences y_j - x_i, selected as IMPLICIT does
 * (without storing them); x and y sorted ascending and finite, else NAN, as for k outside
 * 1..nx*ny. */
double stats_pairdiff_kth(const double *x, size_t nx, const double *y, size_t ny, uint64_t k);

/* The nearest-rank median (§6): the element at 1-based rank ceil(n / 2) of the sorted values
 * (the lower middle for an even n). Sorts values in place; NAN when n is 0. */
double stats_nr_median(double *values, size_t n);

/* The distribution helpers behind them, each R's function of the same name (docs/stats.md). */
/* qwilcox(p, m, n) for 0 < p <= 0.5 and 1 <= m, n <= STATS_EXACT_MAX, -1 outside that:
 * the smallest q with P(U <= q) >= p - 10 DBL_EPSILON, U the Mann-Whitney count. */
int64_t stats_qwilcox(double p, size_t m, size_t n);
/* qbinom(p, n, 0.5) for 0 < p <= 0.5, -1 outside that: the smallest k with
 * P(B <= k) >= p (1 - 64 DBL_EPSILON), B binomial(n, 1/2). */
int64_t stats_qbinom_half(double p, size_t n);
/* qnorm(p, lower.tail = lower_tail) for 0 < p < 1 (Wichura's AS 241, as R computes it). */
double stats_qnorm(double p, int lower_tail);

#endif

/*
 * Change points (§6.1): a second opinion beside the band, for what a window of 8 records cannot
 * see (staircases, returns from a temporary improvement, bimodal runners). PELT (Killick,
 * Fearnhead and Eckley 2012) finds the partition of a line's log medians into segments that
 * minimises the sum of each segment's squared deviations from its mean plus a penalty per
 * change; a change it finds counts only when the level after it is worse by the minimum
 * shift and lasts. Pure functions of a line's values: no I/O, the caller's memory only.
 * docs/detection.md, "Change points", explains the choices.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "detect/detect.h"
#include "detect/stats/stats.h"

/* Prefix sums of y and y^2, for a segment's cost in O(1). */
struct sums {
	double *s, *q;
};

/* The cost of y[a..b): its sum of squared deviations from its mean. */
static double seg_cost(const struct sums *p, size_t a, size_t b)
{
	double n = (double)(b - a), s = p->s[b] - p->s[a], q = p->q[b] - p->q[a];
	double c = q - s * s / n;
	return c > 0 ? c : 0; /* rounding can make an exact fit a hair negative */
}

/* The nearest-rank median of v[0..n) (sorted in place: a line is long, so not by insertion). */
static double sorted_median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[(n + 1) / 2 - 1];
}

double detect_change_sigma(const double *y, size_t n)
{
	double *d, med, mad, sigma;
	if (n < 3)
		return DETECT_CHANGE_MIN_SIGMA;
	d = xmalloc((n - 1) * sizeof(*d));
	for (size_t i = 0; i + 1 < n; i++)
		d[i] = y[i + 1] - y[i];
	med = sorted_median(d, n - 1);
	for (size_t i = 0; i + 1 < n; i++)
		d[i] = fabs(d[i] - med);
	mad = sorted_median(d, n - 1);
	free(d);
	/* Differences of two independent values have twice the variance: / sqrt(2). */
	sigma = 1.4826 * mad / sqrt(2.0);
	return sigma > DETECT_CHANGE_MIN_SIGMA ? sigma : DETECT_CHANGE_MIN_SIGMA;
}

double detect_change_penalty(const double *y, size_t n, double factor)
{
	double sigma = detect_change_sigma(y, n);
	return factor * sigma * sigma * log(n > 1 ? (double)n : 2.0);
}

size_t detect_change_points(size_t *out, const double *y, size_t n, double penalty, size_t min_seg)
{
	struct sums p;
	double *f;
	size_t *last, *cand, ncand = 0, nout = 0;

	if (min_seg < 1)
		min_seg = 1;
	if (n < 2 * min_seg)
		return 0;
	p.s = xcalloc(n + 1, sizeof(*p.s));
	p.q = xcalloc(n + 1, sizeof(*p.q));
	for (size_t i = 0; i < n; i++) {
		p.s[i + 1] = p.s[i] + y[i];
		p.q[i + 1] = p.q[i] + y[i] * y[i];
	}
	/* f[t]: the least penalised cost of y[0..t) split into segments of min_seg or more;
	 * last[t]: where that split's last segment starts. Only t = 0 and t >= min_seg end a
	 * valid split. */
	f = xmalloc((n + 1) * sizeof(*f));
	last = xcalloc(n + 1, sizeof(*last));
	cand = xmalloc((n + 1) * sizeof(*cand));
	f[0] = -penalty;
	for (size_t t = 1; t < min_seg && t <= n; t++)
		f[t] = INFINITY;
	for (size_t t = min_seg; t <= n; t++) {
		double best = INFINITY;
		size_t arg = 0, w = 0, u;
		/* s = t - min_seg becomes a candidate once it ends a valid split. */
		if (t - min_seg == 0 || t - min_seg >= min_seg)
			cand[ncand++] = t - min_seg;
		for (size_t k = 0; k < ncand; k++) {
			double v = f[cand[k]] + seg_cost(&p, cand[k], t) + penalty;
			/* ties go to the earlier start, so the answer does not depend on order */
			if (v < best || (v == best && cand[k] < arg)) {
				best = v;
				arg = cand[k];
			}
		}
		f[t] = best;
		last[t] = arg;
		/*
		 * PELT's pruning, with a minimum segment: a start s that does worse up to u than
		 * the best split ending at u (f[s] + cost(s, u) > f[u]) can never be the last
		 * change of a split ending at T >= u + min_seg (the cost is superadditive, and a
		 * split may end at u then). u = t + 1 - min_seg covers every T after t.
		 */
		u = t + 1 - min_seg;
		if (u > 0 && u < min_seg)
			continue; /* no split ends at u */
		for (size_t k = 0; k < ncand; k++)
			if (cand[k] >= u || f[cand[k]] + seg_cost(&p, cand[k], u) <= f[u])
				cand[w++] = cand[k];
		ncand = w;
	}
	/* The changes are the starts of every segment but the first, in order. */
	for (size_t t = n; t > 0 && last[t] > 0; t = last[t])
		out[nout++] = last[t];
	for (size_t i = 0; i < nout / 2; i++) {
		size_t x = out[i];
		out[i] = out[nout - 1 - i];
		out[nout - 1 - i] = x;
	}
	free(p.s);
	free(p.q);
	free(f);
	free(last);
	free(cand);
	return nout;
}

/* The nearest-rank median of v[from..to) (copied: v is left as it is). */
static double median_of(const double *v, size_t from, size_t to)
{
	double w[DETECT_CHANGE_SIDE];
	size_t n = 0;
	for (size_t i = from; i < to && n < DETECT_CHANGE_SIDE; i++)
		w[n++] = v[i];
	return stats_nr_median(w, n);
}

size_t detect_changes_judge(struct detect_change *out, const double *medians, size_t n,
			    int better_higher, const struct detect_change_options *o)
{
	double *y;
	size_t *cp, ncp, nout = 0;
	double factor = o && o->penalty > 0 ? o->penalty : DETECT_CHANGE_PENALTY;
	double min_shift = o && o->min_shift >= 0 ? o->min_shift : DETECT_CHANGE_MIN_SHIFT;

	if (n < DETECT_CHANGE_MIN_SEGMENT + DETECT_CHANGE_SIDE)
		return 0;
	y = xmalloc(n * sizeof(*y));
	for (size_t i = 0; i < n; i++) {
		if (!(medians[i] > 0)) {
			/* the log of a median that is not positive means nothing: no opinion */
			free(y);
			return 0;
		}
		y[i] = log(medians[i]);
	}
	cp = xmalloc(n * sizeof(*cp));
	ncp = detect_change_points(cp, y, n, detect_change_penalty(y, n, factor),
				   DETECT_CHANGE_MIN_SEGMENT);
	for (size_t k = 0; k < ncp; k++) {
		size_t c = cp[k], end = k + 1 < ncp ? cp[k + 1] : n;
		size_t from = c >= DETECT_CHANGE_SIDE ? c - DETECT_CHANGE_SIDE : 0;
		double before, after, shift;
		/* the new level must last: a segment of DETECT_CHANGE_SIDE records or more */
		if (end - c < DETECT_CHANGE_SIDE)
			continue;
		before = median_of(medians, from, c);
		after = median_of(medians, c, c + DETECT_CHANGE_SIDE);
		shift = (after - before) / before;
		if (better_higher ? shift > -min_shift : shift < min_shift)
			continue;
		out[nout].index = c;
		out[nout].before = before;
		out[nout].after = after;
		out[nout].shift = shift;
		nout++;
	}
	free(cp);
	free(y);
	return nout;
}

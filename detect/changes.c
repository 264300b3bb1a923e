/*
 * Change points (§6.1): a second opinion beside the band, for what a window of 8 records cannot
 * see (staircases, returns from a temporary improvement, bimodal runners). PELT's problem
 * (Killick, Fearnhead and Eckley 2012): the split of a line's log medians into segments that
 * minimises the sum of each segment's squared deviations from its mean plus a penalty per
 * change, solved exactly; a change it finds counts only when the level after it is worse by
 * the minimum shift and lasts. Pure functions of a line's values: no I/O, the caller's memory only.
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

/* The nearest-rank median of v[0..n) (v reordered): Hoare's selection of the element of
 * 0-based rank ceil(n / 2) - 1, in linear time on average (a line is long: no sort). */
static double select_median(double *v, size_t n)
{
	size_t k = (n + 1) / 2 - 1, lo = 0, hi = n - 1;
	while (lo < hi) {
		double pivot = v[lo + (hi - lo) / 2];
		size_t i = lo, j = hi;
		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				double x = v[i];
				v[i] = v[j];
				v[j] = x;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;
	}
	return v[k];
}

double detect_change_sigma(const double *y, size_t n)
{
	double *d, med, mad, sigma;
	if (n < 3)
		return DETECT_CHANGE_MIN_SIGMA;
	d = xmalloc((n - 1) * sizeof(*d));
	for (size_t i = 0; i + 1 < n; i++)
		d[i] = y[i + 1] - y[i];
	med = select_median(d, n - 1);
	for (size_t i = 0; i + 1 < n; i++)
		d[i] = fabs(d[i] - med);
	mad = select_median(d, n - 1);
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

/*
 * The search is exact and, in practice, about linear: PELT's recursion, pruned functionally
 * (FPOP, Maidstone, Hocking, Rigaill and Fearnhead 2017). A candidate s for the start of the
 * last segment of y[0..t) costs, as a function of that segment's mean mu,
 *
 *	g_s(mu) = F(s) + penalty + sum over i in [s, t) of (y_i - mu)^2
 *
 * and F(t) = min over s and mu of g_s(mu). Every g_s gains the same (y_t - mu)^2 as t moves
 * on, so where one candidate is below another never changes once both exist: each keeps the
 * set of means where it is the lowest (a union of intervals), a newcomer takes its share from
 * the others, and one whose set is empty can never be the best again and is dropped. With
 * quadratic PELT a line without changes keeps every candidate (a thousand-record line costs
 * half a million evaluations); here its candidates stay few.
 *
 * A minimum segment of m records: s becomes a candidate at t = s + m, with the m records it
 * already covers, and only where a split may end (s = 0, or s >= m).
 */

/* A closed interval of means. */
struct span {
	double lo, hi;
};

struct cand {
	size_t s;
	struct span *z; /* where it is the lowest, sorted and disjoint */
	size_t nz, alloc;
};

/* The means where candidate s is at or below candidate r (s < r): h(mu) = g_s - g_r <= 0, a
 * convex quadratic since s covers r - s more records. *empty when there are none. */
static void below(struct span *out, int *empty, const struct sums *p, const double *f, size_t s,
		  size_t r)
{
	double a = (double)(r - s);
	double b = p->s[r] - p->s[s]; /* h = a mu^2 - 2 b mu + c */
	double c = f[s] - f[r] + p->q[r] - p->q[s];
	double disc = b * b - a * c, root, mid = b / a;
	*empty = disc < 0;
	if (*empty)
		return;
	root = sqrt(disc) / a;
	out->lo = mid - root;
	out->hi = mid + root;
}

/* z intersected with [lo, hi]. */
static void cut_inside(struct cand *c, double lo, double hi)
{
	size_t w = 0;
	for (size_t i = 0; i < c->nz; i++) {
		double a = c->z[i].lo > lo ? c->z[i].lo : lo;
		double b = c->z[i].hi < hi ? c->z[i].hi : hi;
		if (a <= b) {
			c->z[w].lo = a;
			c->z[w].hi = b;
			w++;
		}
	}
	c->nz = w;
}

/* z without the open interval (lo, hi); *scratch (room for *scratch_alloc) is swapped with z. */
static void cut_outside(struct cand *c, double lo, double hi, struct span **scratch,
			size_t *scratch_alloc)
{
	struct span *v;
	size_t w = 0;
	if (*scratch_alloc < c->nz + 1) {
		*scratch_alloc = 2 * (c->nz + 1);
		*scratch = xrealloc(*scratch, *scratch_alloc * sizeof(**scratch));
	}
	v = *scratch;
	for (size_t i = 0; i < c->nz; i++) {
		if (c->z[i].hi <= lo || c->z[i].lo >= hi) {
			v[w++] = c->z[i];
			continue;
		}
		if (c->z[i].lo < lo)
			v[w++] = (struct span){c->z[i].lo, lo};
		if (c->z[i].hi > hi)
			v[w++] = (struct span){hi, c->z[i].hi};
	}
	*scratch = c->z;
	c->z = v;
	c->nz = w;
	w = c->alloc;
	c->alloc = *scratch_alloc;
	*scratch_alloc = w;
}

/* The least g_s(mu) at t over mu in candidate c's set. */
static double lowest(const struct cand *c, const struct sums *p, const double *f, double penalty,
		     size_t t)
{
	double a = (double)(t - c->s), b = p->s[t] - p->s[c->s];
	double k = f[c->s] + penalty + p->q[t] - p->q[c->s];
	double mid = b / a, best = INFINITY;
	for (size_t i = 0; i < c->nz; i++) {
		double mu = mid < c->z[i].lo ? c->z[i].lo : mid > c->z[i].hi ? c->z[i].hi : mid;
		double v = mu == mid ? k - b * b / a : k - 2 * b * mu + a * mu * mu;
		if (v < best)
			best = v;
	}
	return best;
}

size_t detect_change_points(size_t *out, const double *y, size_t n, double penalty, size_t min_seg)
{
	struct sums p;
	double *f;
	size_t *last, ncand = 0, nout = 0, scratch_alloc = 8;
	struct cand *cand;
	struct span *scratch = xmalloc(scratch_alloc * sizeof(*scratch));

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
	/* f[t]: the least penalised cost of y[0..t) split into segments of min_seg or more (less
	 * the first segment's penalty); last[t]: where that split's last segment starts. */
	f = xmalloc((n + 1) * sizeof(*f));
	last = xcalloc(n + 1, sizeof(*last));
	cand = xcalloc(n + 1, sizeof(*cand));
	f[0] = -penalty;
	for (size_t t = 1; t < min_seg; t++)
		f[t] = INFINITY;
	for (size_t t = min_seg; t <= n; t++) {
		size_t s = t - min_seg, w = 0;
		double best = INFINITY;
		if (s == 0 || s >= min_seg) {
			/* s arrives: it takes the means where it is below every candidate. */
			struct cand *c = &cand[ncand];
			c->s = s;
			c->alloc = 4;
			c->z = xmalloc(c->alloc * sizeof(*c->z));
			c->z[0].lo = -INFINITY;
			c->z[0].hi = INFINITY;
			c->nz = 1;
			for (size_t k = 0; k < ncand && c->nz; k++) {
				struct span iv;
				int empty;
				below(&iv, &empty, &p, f, cand[k].s, s);
				if (empty) {
					/* the older one is above s everywhere */
					cand[k].nz = 0;
					continue;
				}
				cut_inside(&cand[k], iv.lo, iv.hi);
				cut_outside(c, iv.lo, iv.hi, &scratch, &scratch_alloc);
			}
			ncand++;
		}
		/* Candidates with no mean left are gone for good. */
		for (size_t k = 0; k < ncand; k++) {
			if (!cand[k].nz) {
				free(cand[k].z);
				continue;
			}
			cand[w++] = cand[k];
		}
		ncand = w;
		for (size_t k = 0; k < ncand; k++) {
			double v = lowest(&cand[k], &p, f, penalty, t);
			/* ties go to the earlier start, so the answer does not depend on order */
			if (v < best) {
				best = v;
				last[t] = cand[k].s;
			}
		}
		f[t] = best;
	}
	/* The changes are the starts of every segment but the first, in order. */
	for (size_t t = n; t > 0 && last[t] > 0; t = last[t])
		out[nout++] = last[t];
	for (size_t i = 0; i < nout / 2; i++) {
		size_t x = out[i];
		out[i] = out[nout - 1 - i];
		out[nout - 1 - i] = x;
	}
	for (size_t k = 0; k < ncand; k++)
		free(cand[k].z);
	free(cand);
	free(scratch);
	free(p.s);
	free(p.q);
	free(f);
	free(last);
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

size_t detect_changes_unmarked(struct detect_change *out, size_t n, const unsigned char *mark,
			       size_t nmarks)
{
	size_t w = 0;
	for (size_t k = 0; k < n; k++) {
		size_t c = out[k].index;
		int near = 0;
		for (size_t i = c ? c - 1 : 0; i <= c + 1 && i < nmarks; i++)
			near |= mark[i] == DETECT_VALUE_SLOWER;
		if (!near)
			out[w++] = out[k];
	}
	return w;
}

void detect_values_init(struct detect_values *v)
{
	memset(v, 0, sizeof(*v));
}

void detect_values_release(struct detect_values *v)
{
	free(v->median);
	free(v->run_id);
	free(v->mark);
	detect_values_init(v);
}

void detect_values_add(struct detect_values *v, double median, int64_t run_id, unsigned char mark)
{
	if (v->n == v->alloc) {
		v->alloc = v->alloc ? 2 * v->alloc : DETECT_VALUES_CHUNK;
		v->median = xrealloc(v->median, v->alloc * sizeof(*v->median));
		v->run_id = xrealloc(v->run_id, v->alloc * sizeof(*v->run_id));
		v->mark = xrealloc(v->mark, v->alloc * sizeof(*v->mark));
	}
	v->median[v->n] = median;
	v->run_id[v->n] = run_id;
	v->mark[v->n] = mark;
	v->n++;
}

static void put_varint(struct strbuf *out, uint64_t x)
{
	unsigned char b[10];
	size_t n = 0;
	do {
		b[n++] = (unsigned char)((x & 0x7f) | (x > 0x7f ? 0x80 : 0));
		x >>= 7;
	} while (x);
	strbuf_add(out, b, n);
}

/* A varint at *p (before end), *p moved past it; -1 when it does not end in time or is too
 * long. */
static int get_varint(uint64_t *x, const unsigned char **p, const unsigned char *end)
{
	*x = 0;
	for (unsigned shift = 0; *p < end && shift < 64; shift += 7) {
		unsigned char b = *(*p)++;
		*x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 0;
	}
	return -1;
}

void detect_values_encode(struct strbuf *out, const struct detect_values *v, size_t chunk)
{
	size_t from = chunk * DETECT_VALUES_CHUNK, to = from + DETECT_VALUES_CHUNK;
	int64_t prev = 0;
	if (to > v->n)
		to = v->n;
	for (size_t i = from; i < to; i++) {
		unsigned char b[8];
		uint64_t bits, d = (uint64_t)v->run_id[i] - (uint64_t)prev;
		memcpy(&bits, &v->median[i], sizeof(bits));
		for (int k = 0; k < 8; k++)
			b[k] = (unsigned char)(bits >> (8 * k));
		strbuf_add(out, b, 8);
		/* zigzag: small differences either way are small numbers */
		d = (d << 1) ^ (uint64_t)((int64_t)d >> 63);
		put_varint(out, (d << 2) | (v->mark[i] & 3));
		prev = v->run_id[i];
	}
}

int detect_values_decode(struct detect_values *v, const void *data, size_t len)
{
	const unsigned char *p = data, *end = p + len;
	int64_t prev = 0;
	while (p < end) {
		uint64_t bits = 0, x, d;
		double m;
		if (end - p < 9)
			return BL_EINVALID;
		for (int k = 0; k < 8; k++)
			bits |= (uint64_t)p[k] << (8 * k);
		p += 8;
		memcpy(&m, &bits, sizeof(m));
		if (get_varint(&x, &p, end) || (x & 3) > DETECT_VALUE_FASTER)
			return BL_EINVALID;
		d = x >> 2;
		d = (d >> 1) ^ (uint64_t) - (int64_t)(d & 1);
		prev = (int64_t)((uint64_t)prev + d);
		detect_values_add(v, m, prev, (unsigned char)(x & 3));
	}
	return 0;
}

void detect_values_encode_head(struct strbuf *out, size_t n, const size_t *changes, size_t nchanges)
{
	put_varint(out, n);
	put_varint(out, nchanges);
	for (size_t i = 0; i < nchanges; i++)
		put_varint(out, changes[i]);
}

int detect_values_decode_head(size_t *n, size_t **changes, size_t *nchanges, const void *data,
			      size_t len)
{
	const unsigned char *p = data, *end = p + len;
	uint64_t x, k;
	*changes = NULL;
	*nchanges = 0;
	if (get_varint(&x, &p, end) || get_varint(&k, &p, end) || k > x)
		return BL_EINVALID;
	*n = (size_t)x;
	if (k)
		*changes = xmalloc((size_t)k * sizeof(**changes));
	for (uint64_t i = 0; i < k; i++) {
		if (get_varint(&x, &p, end) || x >= *n) {
			free(*changes);
			*changes = NULL;
			return BL_EINVALID;
		}
		(*changes)[(*nchanges)++] = (size_t)x;
	}
	if (p != end) {
		free(*changes);
		*changes = NULL;
		*nchanges = 0;
		return BL_EINVALID;
	}
	return 0;
}

size_t detect_changes_line(struct detect_change *out, const struct detect_values *v,
			   int better_higher, const struct detect_change_options *o)
{
	size_t n = detect_changes_judge(out, v->median, v->n, better_higher, o);
	return detect_changes_unmarked(out, n, v->mark, v->n);
}

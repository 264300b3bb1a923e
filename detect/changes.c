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
	double u = sigma * sigma * log(n > 1 ? (double)n : 2.0);
	/* The nearest power of 2^(1/steps): the penalty moves in steps, so that most records a
	 * line gains leave it as it was and the search goes on from where it stopped. */
	double step = round(DETECT_CHANGE_PENALTY_STEPS * log2(u));
	return factor * exp2(step / DETECT_CHANGE_PENALTY_STEPS);
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

static void point_release(struct detect_fpop_point *p)
{
	free(p->chain);
	free(p->z);
	memset(p, 0, sizeof(*p));
}

void detect_fpop_init(struct detect_fpop *st)
{
	memset(st, 0, sizeof(*st));
}

void detect_fpop_release(struct detect_fpop *st)
{
	for (size_t i = 0; i < DETECT_CHANGE_MIN_SEGMENT; i++)
		point_release(&st->tail[i]);
	for (size_t k = 0; k < st->ncand; k++)
		point_release(&st->cand[k]);
	free(st->cand);
	detect_fpop_init(st);
}

/* Whether st can go on to y[0..n) with this penalty: it searched some of them with it. */
static int can_go_on(const struct detect_fpop *st, size_t n, double penalty, size_t min_seg)
{
	return st && st->n && st->n <= n && st->penalty == penalty &&
	       min_seg == DETECT_CHANGE_MIN_SEGMENT;
}

/* The best splits of the prefixes a search goes on with: last[t] for those it searched now
 * (t > from), the kept ones' from its state. */
struct splits {
	const size_t *last;
	size_t from;
	const struct detect_fpop *kept; /* NULL from the start */
};

/* The kept prefix t's point (a candidate or one of the last), NULL when none. */
static const struct detect_fpop_point *kept_point(const struct detect_fpop *st, size_t t)
{
	for (size_t i = 0; i < DETECT_CHANGE_MIN_SEGMENT; i++)
		if (st->n + i + 1 >= DETECT_CHANGE_MIN_SEGMENT && st->tail[i].t == t)
			return &st->tail[i];
	for (size_t k = 0; k < st->ncand; k++)
		if (st->cand[k].t == t)
			return &st->cand[k];
	return NULL;
}

/* The changes of the best split of the first t values, ascending, into *out (malloc'd). */
static size_t split_of(size_t **out, const struct splits *sp, size_t t)
{
	size_t n = 0, alloc = 8, *v = xmalloc(alloc * sizeof(*v)), base_n = 0;
	const size_t *base = NULL;
	/* back through the searched prefixes ... */
	while (t > sp->from && sp->last[t] > 0) {
		ALLOC_GROW(v, n, alloc);
		v[n++] = sp->last[t];
		t = sp->last[t];
	}
	/* ... then the kept split of the prefix where that ends */
	if (t > 0 && t <= sp->from && sp->kept) {
		const struct detect_fpop_point *p = kept_point(sp->kept, t);
		if (p) {
			base = p->chain;
			base_n = p->nchain;
		}
	}
	*out = xmalloc((base_n + n ? base_n + n : 1) * sizeof(**out));
	if (base_n)
		memcpy(*out, base, base_n * sizeof(*base));
	for (size_t i = 0; i < n; i++)
		(*out)[base_n + i] = v[n - 1 - i];
	free(v);
	return base_n + n;
}

size_t detect_change_points_from(size_t *out, const double *y, size_t n, double penalty,
				 size_t min_seg, struct detect_fpop *st)
{
	struct sums p;
	struct splits sp;
	struct detect_fpop kept;
	double *f;
	size_t *last, *split, nsplit, ncand = 0, scratch_alloc = 8, from = 0, t;
	struct cand *cand;
	struct span *scratch = xmalloc(scratch_alloc * sizeof(*scratch));
	int go_on;

	if (min_seg < 1)
		min_seg = 1;
	go_on = can_go_on(st, n, penalty, min_seg);
	/* Only the entries of the candidates, of those to come and of the values searched now
	 * are ever read: no need to clear the rest. */
	p.s = xmalloc((n + 1) * sizeof(*p.s));
	p.q = xmalloc((n + 1) * sizeof(*p.q));
	/* f[t]: the least penalised cost of y[0..t) split into segments of min_seg or more (less
	 * the first segment's penalty); last[t]: where that split's last segment starts. */
	f = xmalloc((n + 1) * sizeof(*f));
	last = xmalloc((n + 1) * sizeof(*last));
	/* the candidates kept, and one for each value still to search */
	cand = xcalloc((go_on ? st->ncand + n - st->n : n) + 1, sizeof(*cand));
	detect_fpop_init(&kept);
	if (go_on) {
		/* Going on: the sums and costs the candidates and the ones to come need. */
		kept = *st;
		detect_fpop_init(st);
		from = kept.n;
		p.s[from] = kept.ps;
		p.q[from] = kept.pq;
		for (size_t i = 0; i < DETECT_CHANGE_MIN_SEGMENT; i++) {
			const struct detect_fpop_point *kp = &kept.tail[i];
			if (from + i + 1 < DETECT_CHANGE_MIN_SEGMENT)
				continue;
			f[kp->t] = kp->f;
			p.s[kp->t] = kp->ps;
			p.q[kp->t] = kp->pq;
		}
		for (size_t k = 0; k < kept.ncand; k++) {
			const struct detect_fpop_point *kp = &kept.cand[k];
			struct cand *c = &cand[ncand++];
			c->s = kp->t;
			f[kp->t] = kp->f;
			p.s[kp->t] = kp->ps;
			p.q[kp->t] = kp->pq;
			c->alloc = kp->nz > 4 ? kp->nz : 4;
			c->z = xmalloc(c->alloc * sizeof(*c->z));
			for (size_t i = 0; i < kp->nz; i++) {
				c->z[i].lo = kp->z[2 * i];
				c->z[i].hi = kp->z[2 * i + 1];
			}
			c->nz = kp->nz;
		}
	} else {
		p.s[0] = p.q[0] = 0;
		f[0] = -penalty;
		for (t = 1; t < min_seg && t <= n; t++)
			f[t] = INFINITY;
	}
	for (size_t i = from; i < n; i++) {
		p.s[i + 1] = p.s[i] + y[i];
		p.q[i + 1] = p.q[i] + y[i] * y[i];
	}
	for (t = 0; t <= n && t < min_seg; t++)
		last[t] = 0;
	for (t = from + 1 > min_seg ? from + 1 : min_seg; t <= n; t++) {
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
		last[t] = 0;
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
	sp.last = last;
	sp.from = from;
	sp.kept = go_on ? &kept : NULL;
	nsplit = split_of(&split, &sp, n);
	memcpy(out, split, nsplit * sizeof(*split));
	free(split);
	if (st) {
		/* Where the search stopped, for the next values of the line: each prefix it will
		 * need, with its best split. */
		detect_fpop_release(st);
		st->n = n;
		st->penalty = penalty;
		st->ps = p.s[n];
		st->pq = p.q[n];
		for (size_t i = 0; i < DETECT_CHANGE_MIN_SEGMENT; i++) {
			struct detect_fpop_point *tp = &st->tail[i];
			if (n + i + 1 < DETECT_CHANGE_MIN_SEGMENT)
				continue;
			tp->t = n + i + 1 - DETECT_CHANGE_MIN_SEGMENT;
			tp->f = f[tp->t];
			tp->ps = p.s[tp->t];
			tp->pq = p.q[tp->t];
			tp->nchain = split_of(&tp->chain, &sp, tp->t);
		}
		st->cand = xcalloc(ncand ? ncand : 1, sizeof(*st->cand));
		st->ncand = ncand;
		for (size_t k = 0; k < ncand; k++) {
			struct detect_fpop_point *cp = &st->cand[k];
			cp->t = cand[k].s;
			cp->f = f[cp->t];
			cp->ps = p.s[cp->t];
			cp->pq = p.q[cp->t];
			cp->nchain = split_of(&cp->chain, &sp, cp->t);
			cp->nz = cand[k].nz;
			cp->z = xmalloc((cp->nz ? 2 * cp->nz : 1) * sizeof(*cp->z));
			for (size_t i = 0; i < cp->nz; i++) {
				cp->z[2 * i] = cand[k].z[i].lo;
				cp->z[2 * i + 1] = cand[k].z[i].hi;
			}
		}
	}
	detect_fpop_release(&kept);
	for (size_t k = 0; k < ncand; k++)
		free(cand[k].z);
	free(cand);
	free(scratch);
	free(p.s);
	free(p.q);
	free(f);
	free(last);
	return nsplit;
}

size_t detect_change_points(size_t *out, const double *y, size_t n, double penalty, size_t min_seg)
{
	if (n < 2 * (min_seg ? min_seg : 1))
		return 0;
	return detect_change_points_from(out, y, n, penalty, min_seg, NULL);
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

/* The changes among cp[0..ncp) (a split of medians[0..n)) that count: worse by the minimum
 * shift, their new level lasting. */
static size_t count_changes(struct detect_change *out, const double *medians, size_t n,
			    const size_t *cp, size_t ncp, int better_higher, double min_shift)
{
	size_t nout = 0;
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
	return nout;
}

/* detect_changes_judge going on from st (NULL: from the start; emptied when the line is not
 * searched). */
static size_t judge_from(struct detect_change *out, const double *medians, size_t n,
			 int better_higher, const struct detect_change_options *o,
			 struct detect_fpop *st)
{
	double *y;
	size_t *cp, ncp, nout;
	double factor = o && o->penalty > 0 ? o->penalty : DETECT_CHANGE_PENALTY;
	double min_shift = o && o->min_shift >= 0 ? o->min_shift : DETECT_CHANGE_MIN_SHIFT;

	if (n < DETECT_CHANGE_MIN_SEGMENT + DETECT_CHANGE_SIDE) {
		if (st)
			detect_fpop_release(st);
		return 0;
	}
	y = xmalloc(n * sizeof(*y));
	for (size_t i = 0; i < n; i++) {
		if (!(medians[i] > 0)) {
			/* the log of a median that is not positive means nothing: no opinion */
			free(y);
			if (st)
				detect_fpop_release(st);
			return 0;
		}
		y[i] = log(medians[i]);
	}
	cp = xmalloc(n * sizeof(*cp));
	ncp = detect_change_points_from(cp, y, n, detect_change_penalty(y, n, factor),
					DETECT_CHANGE_MIN_SEGMENT, st);
	nout = count_changes(out, medians, n, cp, ncp, better_higher, min_shift);
	free(cp);
	free(y);
	return nout;
}

size_t detect_changes_judge(struct detect_change *out, const double *medians, size_t n,
			    int better_higher, const struct detect_change_options *o)
{
	return judge_from(out, medians, n, better_higher, o, NULL);
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

/* Room for n records (so that decoding them allocates once). */
static void values_grow(struct detect_values *v, size_t n)
{
	if (n <= v->alloc)
		return;
	if (n < 2 * v->alloc)
		n = 2 * v->alloc;
	if (n < DETECT_VALUES_CHUNK)
		n = DETECT_VALUES_CHUNK;
	v->median = xrealloc(v->median, n * sizeof(*v->median));
	v->run_id = xrealloc(v->run_id, n * sizeof(*v->run_id));
	v->mark = xrealloc(v->mark, n * sizeof(*v->mark));
	v->alloc = n;
}

void detect_values_add(struct detect_values *v, double median, int64_t run_id, unsigned char mark)
{
	if (v->n == v->alloc)
		values_grow(v, v->n + 1);
	v->median[v->n] = median;
	v->run_id[v->n] = run_id;
	v->mark[v->n] = mark;
	v->n++;
}

/* x as a varint at b (room for 10 bytes); how many bytes. */
static size_t varint_at(unsigned char *b, uint64_t x)
{
	size_t n = 0;
	while (x > 0x7f) {
		b[n++] = (unsigned char)(x | 0x80);
		x >>= 7;
	}
	b[n++] = (unsigned char)x;
	return n;
}

static void put_varint(struct strbuf *out, uint64_t x)
{
	unsigned char b[10];
	strbuf_add(out, b, varint_at(b, x));
}

/* The 8 bytes at b, little-endian (memcpy where the host is). */
static uint64_t le64(const unsigned char *b)
{
	uint64_t x = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(&x, b, 8);
#else
	for (int k = 0; k < 8; k++)
		x |= (uint64_t)b[k] << (8 * k);
#endif
	return x;
}

static void put_le64(unsigned char *b, uint64_t x)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(b, &x, 8);
#else
	for (int k = 0; k < 8; k++)
		b[k] = (unsigned char)(x >> (8 * k));
#endif
}

/* A varint at *p (before end), *p moved past it; -1 when it does not end in time or is too
 * long. */
static int get_varint(uint64_t *x, const unsigned char **p, const unsigned char *end)
{
	/* one byte, most of the time */
	if (*p < end && !(**p & 0x80)) {
		*x = *(*p)++;
		return 0;
	}
	*x = 0;
	for (unsigned shift = 0; *p < end && shift < 64; shift += 7) {
		unsigned char b = *(*p)++;
		*x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 0;
	}
	return -1;
}

void detect_values_encode(struct strbuf *out, const struct detect_values *v, size_t from, size_t to)
{
	size_t len = 0;
	int64_t prev = 0;
	unsigned char *b;
	if (to > v->n)
		to = v->n;
	if (from >= to)
		return;
	/* at most 18 bytes a record: written in place, then the length set */
	strbuf_grow(out, 18 * (to - from));
	b = (unsigned char *)out->buf + out->len;
	for (size_t i = from; i < to; i++) {
		uint64_t bits, d = (uint64_t)v->run_id[i] - (uint64_t)prev;
		memcpy(&bits, &v->median[i], sizeof(bits));
		put_le64(b + len, bits);
		len += 8;
		/* zigzag: small differences either way are small numbers */
		d = (d << 1) ^ (uint64_t)((int64_t)d >> 63);
		len += varint_at(b + len, (d << 2) | (v->mark[i] & 3));
		prev = v->run_id[i];
	}
	strbuf_setlen(out, out->len + len);
}

int detect_values_decode(struct detect_values *v, const void *data, size_t len)
{
	const unsigned char *p = data, *end = p + len;
	int64_t prev = 0;
	/* 9 bytes a record at least: room for as many as it can hold */
	values_grow(v, v->n + len / 9);
	while (p < end) {
		uint64_t bits, x, d;
		size_t i = v->n;
		if (end - p < 9)
			return BL_EINVALID;
		bits = le64(p);
		p += 8;
		/* the run id's difference in two bytes, most of the time */
		if (p + 1 < end && (p[0] & 0x80) && !(p[1] & 0x80)) {
			x = (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
			p += 2;
		} else if (get_varint(&x, &p, end)) {
			return BL_EINVALID;
		}
		if ((x & 3) > DETECT_VALUE_FASTER)
			return BL_EINVALID;
		memcpy(&v->median[i], &bits, sizeof(bits));
		d = x >> 2;
		/* zigzag back: the low bit is the sign */
		d = (d >> 1) ^ (0 - (d & 1));
		prev = (int64_t)((uint64_t)prev + d);
		v->run_id[i] = prev;
		v->mark[i] = (unsigned char)(x & 3);
		v->n++;
	}
	return 0;
}

static void put_double(struct strbuf *out, double x)
{
	unsigned char b[8];
	uint64_t bits;
	memcpy(&bits, &x, sizeof(bits));
	put_le64(b, bits);
	strbuf_add(out, b, 8);
}

static int get_double(double *x, const unsigned char **p, const unsigned char *end)
{
	uint64_t bits;
	if (end - *p < 8)
		return -1;
	bits = le64(*p);
	*p += 8;
	memcpy(x, &bits, sizeof(*x));
	return 0;
}

/* A split's changes, ascending: their count, then each one's distance from the one before. */
static void put_chain(struct strbuf *out, const size_t *chain, size_t n)
{
	put_varint(out, n);
	for (size_t i = 0; i < n; i++)
		put_varint(out, chain[i] - (i ? chain[i - 1] : 0));
}

static int get_chain(size_t **chain, size_t *n, size_t below, const unsigned char **p,
		     const unsigned char *end)
{
	uint64_t k, x;
	size_t at = 0;
	if (get_varint(&k, p, end) || k > (uint64_t)(end - *p))
		return -1;
	*chain = xmalloc((k ? (size_t)k : 1) * sizeof(**chain));
	*n = 0;
	for (uint64_t i = 0; i < k; i++) {
		if (get_varint(&x, p, end) || !x || x >= below - at)
			return -1;
		at += (size_t)x;
		(*chain)[(*n)++] = at;
	}
	return 0;
}

static void put_point(struct strbuf *out, const struct detect_fpop_point *pt, int candidate)
{
	put_varint(out, pt->t);
	put_double(out, pt->f);
	put_double(out, pt->ps);
	put_double(out, pt->pq);
	put_chain(out, pt->chain, pt->nchain);
	if (!candidate)
		return;
	put_varint(out, pt->nz);
	for (size_t i = 0; i < 2 * pt->nz; i++)
		put_double(out, pt->z[i]);
}

static int get_point(struct detect_fpop_point *pt, int candidate, size_t n, const unsigned char **p,
		     const unsigned char *end)
{
	uint64_t t, nz;
	if (get_varint(&t, p, end) || t > n || get_double(&pt->f, p, end) ||
	    get_double(&pt->ps, p, end) || get_double(&pt->pq, p, end))
		return -1;
	pt->t = (size_t)t;
	if (get_chain(&pt->chain, &pt->nchain, pt->t, p, end))
		return -1;
	if (!candidate)
		return 0;
	if (get_varint(&nz, p, end) || nz > (uint64_t)(end - *p) / 16)
		return -1;
	pt->nz = (size_t)nz;
	pt->z = xmalloc((nz ? 2 * (size_t)nz : 1) * sizeof(*pt->z));
	for (size_t i = 0; i < 2 * pt->nz; i++)
		if (get_double(&pt->z[i], p, end))
			return -1;
	return 0;
}

void detect_values_encode_head(struct strbuf *out, const struct detect_values *v,
			       const size_t *changes, size_t nchanges, const struct detect_fpop *st)
{
	put_varint(out, v->n);
	put_varint(out, nchanges);
	for (size_t i = 0; i < nchanges; i++)
		put_varint(out, changes[i]);
	if (!st || !st->n) {
		put_varint(out, 0);
	} else {
		put_varint(out, st->n);
		put_double(out, st->penalty);
		put_double(out, st->ps);
		put_double(out, st->pq);
		for (size_t i = 0; i < DETECT_CHANGE_MIN_SEGMENT; i++)
			if (st->n + i + 1 >= DETECT_CHANGE_MIN_SEGMENT)
				put_point(out, &st->tail[i], 0);
		put_varint(out, st->ncand);
		for (size_t k = 0; k < st->ncand; k++)
			put_point(out, &st->cand[k], 1);
	}
	/* the records of the chunk not yet full */
	detect_values_encode(out, v, v->n - v->n % DETECT_VALUES_CHUNK, v->n);
}

/* The state part of a head, into st (emptied first). */
static int decode_state(struct detect_fpop *st, const unsigned char **p, const unsigned char *end)
{
	uint64_t x, ncand;
	detect_fpop_release(st);
	if (get_varint(&x, p, end))
		return -1;
	if (!x)
		return 0;
	st->n = (size_t)x;
	if (get_double(&st->penalty, p, end) || get_double(&st->ps, p, end) ||
	    get_double(&st->pq, p, end))
		return -1;
	for (size_t i = 0; i < DETECT_CHANGE_MIN_SEGMENT; i++)
		if (st->n + i + 1 >= DETECT_CHANGE_MIN_SEGMENT &&
		    (get_point(&st->tail[i], 0, st->n, p, end) ||
		     st->tail[i].t != st->n + i + 1 - DETECT_CHANGE_MIN_SEGMENT))
			return -1;
	/* each candidate takes 28 bytes at least */
	if (get_varint(&ncand, p, end) || ncand > (uint64_t)(end - *p) / 28)
		return -1;
	st->cand = xcalloc(ncand ? (size_t)ncand : 1, sizeof(*st->cand));
	for (uint64_t k = 0; k < ncand; k++)
		if (get_point(&st->cand[st->ncand++], 1, st->n, p, end))
			return -1;
	return 0;
}

int detect_values_decode_head(size_t *n, size_t **changes, size_t *nchanges, struct detect_fpop *st,
			      struct detect_values *v, const void *data, size_t len)
{
	const unsigned char *p = data, *end = p + len;
	uint64_t x, k;
	*changes = NULL;
	*nchanges = 0;
	if (get_varint(&x, &p, end) || get_varint(&k, &p, end) || k > x)
		goto bad;
	*n = (size_t)x;
	if (k)
		*changes = xmalloc((size_t)k * sizeof(**changes));
	for (uint64_t i = 0; i < k; i++) {
		if (get_varint(&x, &p, end) || x >= *n)
			goto bad;
		(*changes)[(*nchanges)++] = (size_t)x;
	}
	/* v holds the full chunks' records: the rest are here */
	if (decode_state(st, &p, end) || st->n > *n || v->n != *n - *n % DETECT_VALUES_CHUNK ||
	    detect_values_decode(v, p, (size_t)(end - p)) || v->n != *n)
		goto bad;
	return 0;
bad:
	free(*changes);
	*changes = NULL;
	*nchanges = 0;
	detect_fpop_release(st);
	return BL_EINVALID;
}

size_t detect_changes_line(struct detect_change *out, const struct detect_values *v,
			   int better_higher, const struct detect_change_options *o,
			   struct detect_fpop *st)
{
	size_t n = judge_from(out, v->median, v->n, better_higher, o, st);
	return detect_changes_unmarked(out, n, v->mark, v->n);
}

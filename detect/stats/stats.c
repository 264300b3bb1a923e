/*
 * Statistics for the band (§6), the gate (§7) and the paired re-bench, as pure functions: no
 * I/O, no state but a per-thread cache. The nearest-rank median of a window, the
 * Hodges-Lehmann shift of two samples with its Mann-Whitney order-statistic interval, and the
 * order-statistic interval for a median, the last two matching R
 * (wilcox.test, qbinom) to the last bit on tie-free data. docs/stats.md explains the methods,
 * the conventions chosen and the R commands the tests' reference values came from.
 */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "detect/stats/stats.h"

/* --- Sorting and selection of doubles (never NaN here), with the comparison inlined --- */

static void swap_d(double *a, double *b)
{
	double t = *a;
	*a = *b;
	*b = t;
}

static void insertion_sort(double *a, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		double v = a[i];
		size_t j = i;
		while (j > 0 && a[j - 1] > v) {
			a[j] = a[j - 1];
			j--;
		}
		a[j] = v;
	}
}

double stats_nr_median(double *values, size_t n)
{
	if (!n)
		return NAN;
	insertion_sort(values, n);	/* §6's windows hold at most 8 values */
	return values[(n + 1) / 2 - 1]; /* 1-based rank ceil(0.5 * n) */
}

static void sift_down(double *a, size_t root, size_t n)
{
	for (;;) {
		size_t c = 2 * root + 1;
		if (c >= n)
			return;
		if (c + 1 < n && a[c + 1] > a[c])
			c++;
		if (!(a[c] > a[root]))
			return;
		swap_d(a + c, a + root);
		root = c;
	}
}

static void heap_sort(double *a, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift_down(a, i, n);
	for (size_t end = n; end > 1; end--) {
		swap_d(a, a + end - 1);
		sift_down(a, 0, end - 1);
	}
}

static double median3(double a, double b, double c)
{
	if (a > b)
		swap_d(&a, &b);
	if (b > c)
		b = c;
	return a > b ? a : b;
}

static unsigned depth_budget(size_t n)
{
	unsigned d = 8;
	while (n >>= 1)
		d += 2;
	return d;
}

/*
 * Hoare's partition of a[0..n) (n >= 3) around the median of its first, middle and last
 * values: afterwards a[0..*left_end) <= p, a[*right_start..n) >= p, and an element between
 * the two (at most one) equals p. Equal values stop both scans, so runs of equal timings
 * (common) split evenly instead of degrading to quadratic time. p is in the array, so each
 * scan stops within it, and each part is shorter than n.
 */
static void partition(double *a, size_t n, size_t *left_end, size_t *right_start)
{
	double p = median3(a[0], a[n / 2], a[n - 1]);
	size_t i = 0, j = n - 1;
	for (;;) {
		while (a[i] < p)
			i++;
		while (p < a[j])
			j--;
		if (i >= j)
			break;
		swap_d(a + i++, a + j--);
	}
	*left_end = i;
	*right_start = i == j ? i + 1 : i;
}

/* Introsort: quicksort on a median of three, heapsort when it degenerates. */
static void sort_doubles(double *a, size_t n)
{
	unsigned budget = depth_budget(n);
	while (n > 16) {
		size_t l, r;
		if (!budget--) {
			heap_sort(a, n);
			return;
		}
		partition(a, n, &l, &r);
		/* Recurse into the smaller side, loop on the larger: O(log n) stack. */
		if (l < n - r) {
			sort_doubles(a, l);
			a += r;
			n -= r;
		} else {
			sort_doubles(a + r, n - r);
			n = l;
		}
	}
	insertion_sort(a, n);
}

/*
 * Moves the k-th smallest (0-based) of a[0..n) to a[k], with nothing larger before it and
 * nothing smaller after it (quickselect; heapsort of what is left when it degenerates).
 */
static void select_kth(double *a, size_t n, size_t k)
{
	size_t lo = 0, hi = n; /* a[k] belongs in [lo, hi) */
	unsigned budget = depth_budget(n);
	while (hi - lo > 16) {
		size_t l, r;
		if (!budget--) {
			heap_sort(a + lo, hi - lo);
			return;
		}
		partition(a + lo, hi - lo, &l, &r);
		if (k < lo + l)
			hi = lo + l;
		else if (k >= lo + r)
			lo += r;
		else
			return;
	}
	insertion_sort(a + lo, hi - lo);
}

/* Copies values for sorting: BL_EINVALID for NaN or an infinity; -0 becomes +0, so that the
 * differences, and so both ways of selecting among them, never see two zeros. */
static int copy_finite(double *dst, const double *src, size_t n, const char *what,
		       struct bl_error *err)
{
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(src[i]))
			return bl_error_set(err, BL_EINVALID,
					    "%s: value %zu is not a finite number", what, i + 1);
		dst[i] = src[i] + 0.0;
	}
	return 0;
}

/* The midpoint of a <= b as R's mean() gives it: the correctly rounded (a + b) / 2. */
static double midpoint(double a, double b)
{
	double s = a + b;
	return isfinite(s) ? s / 2 : a / 2 + b / 2;
}

/* --- The normal quantile: Wichura's AS 241, as R's qnorm computes it --- */

double stats_qnorm(double p, int lower_tail)
{
	double p_, q, r, val;
	if (!(p > 0 && p < 1))
		return NAN;
	p_ = lower_tail ? p : 0.5 - p + 0.5;
	q = p_ - 0.5;
	if (fabs(q) <= 0.425) {
		r = 0.180625 - q * q;
		return q *
		       (((((((r * 2509.0809287301226727 + 33430.575583588128105) * r +
			     67265.770927008700853) *
				r +
			    45921.953931549871457) *
			       r +
			   13731.693765509461125) *
			      r +
			  1971.5909503065514427) *
			     r +
			 133.14166789178437745) *
			    r +
			3.387132872796366608) /
		       (((((((r * 5226.495278852854561 + 28729.085735721942674) * r +
			     39307.89580009271061) *
				r +
			    21213.794301586595867) *
			       r +
			   5394.1960214247511077) *
			      r +
			  687.1870074920579083) *
			     r +
			 42.313330701600911252) *
			    r +
			1.0);
	}
	/* r = min(p, 1 - p), taken from the argument itself where that is the small one. */
	if (q > 0)
		r = lower_tail ? 0.5 - p + 0.5 : p;
	else
		r = p_;
	r = sqrt(-log(r));
	if (r <= 5.0) {
		r -= 1.6;
		val = (((((((r * 7.7454501427834140764e-4 + 0.0227238449892691845833) * r +
			    0.24178072517745061177) *
			       r +
			   1.27045825245236838258) *
			      r +
			  3.64784832476320460504) *
			     r +
			 5.7694972214606914055) *
			    r +
			4.6303378461565452959) *
			   r +
		       1.42343711074968357734) /
		      (((((((r * 1.05075007164441684324e-9 + 5.475938084995344946e-4) * r +
			    0.0151986665636164571966) *
			       r +
			   0.14810397642748007459) *
			      r +
			  0.68976733498510000455) *
			     r +
			 1.6763848301838038494) *
			    r +
			2.05319162663775882187) *
			   r +
		       1.0);
	} else {
		r -= 5.0;
		val = (((((((r * 2.01033439929228813265e-7 + 2.71155556874348757815e-5) * r +
			    0.0012426609473880784386) *
			       r +
			   0.026532189526576123093) *
			      r +
			  0.29656057182850489123) *
			     r +
			 1.7848265399172913358) *
			    r +
			5.4637849111641143699) *
			   r +
		       6.6579046435011037772) /
		      (((((((r * 2.04426310338993978564e-15 + 1.4215117583164458887e-7) * r +
			    1.8463183175100546818e-5) *
			       r +
			   7.868691311456132591e-4) *
			      r +
			  0.0148753612908506148525) *
			     r +
			 0.13692988092273580531) *
			    r +
			0.59983220655588793769) *
			   r +
		       1.0);
	}
	return q < 0 ? -val : val;
}

/* --- The exact Mann-Whitney quantile --- */

/*
 * The count of arrangements of m x's and n y's with U = u (pairs with the y above the x) is
 * the coefficient of q^u in the Gaussian binomial [m+n choose m]_q = prod_{i=1..m}
 * (1 - q^(n+i)) / (1 - q^i). Each partial product is itself a polynomial ([n+i choose i]_q),
 * so the factors are applied one at a time: multiply by 1 - q^(n+i), then divide by 1 - q^i
 * (a running sum with stride i). The coefficients are kept as exact 128-bit integers: they
 * reach C(100, 50) < 2^97, and the subtraction would lose digits in doubles. Neither step
 * reads above the degree it writes, so stopping at degree mn/2 (the median, past any lower
 * quantile) is exact. O(m * mn) work, about 0.1 ms at 50 x 50; cached per thread below.
 */
__extension__ typedef __int128 wide_count; /* GCC and Clang on 64-bit targets */

static int64_t qwilcox_compute(double p, size_t m, size_t n)
{
	wide_count *c, total = 1;
	size_t N, K, u;
	double ctotal, acc = 0, target;
	int64_t q;
	if (m > n) {
		size_t t = m;
		m = n;
		n = t;
	}
	N = m * n;
	K = N / 2;
	c = xcalloc(K + 1, sizeof(*c));
	c[0] = 1;
	for (size_t i = 1; i <= m; i++) {
		size_t s = n + i;
		for (u = K; u >= s; u--)
			c[u] -= c[u - s];
		for (u = i; u <= K; u++)
			c[u] += c[u - i];
	}
	/* choose(m + n, m), exactly: each partial product is a binomial coefficient. */
	for (size_t j = 1; j <= m; j++)
		total = total * (wide_count)(n + j) / (wide_count)j;
	ctotal = (double)total;
	/* R's qwilcox: accumulate count / choose(m + n, n) until it reaches p - 10 eps. */
	target = p - 10 * DBL_EPSILON;
	for (q = 0; (size_t)q < K; q++) {
		acc += (double)c[q] / ctotal;
		if (acc >= target)
			break;
	}
	free(c);
	return q;
}

/* A few (p, m, n) -> q results per thread: the gate asks the same sizes again and again, and
 * the web server asks from several threads. Direct-mapped on (m, n). */
#define QWILCOX_CACHE 64
struct qwilcox_entry {
	double p;
	uint16_t m, n; /* 0: empty */
	int64_t q;
};
static _Thread_local struct qwilcox_entry qwilcox_cache[QWILCOX_CACHE];

int64_t stats_qwilcox(double p, size_t m, size_t n)
{
	struct qwilcox_entry *e;
	if (!(p > 0 && p <= 0.5) || m < 1 || n < 1 || m > STATS_EXACT_MAX || n > STATS_EXACT_MAX)
		return -1;
	e = &qwilcox_cache[(m * 131 + n) % QWILCOX_CACHE];
	if (e->m == m && e->n == n && e->p == p)
		return e->q;
	e->q = qwilcox_compute(p, m, n);
	e->p = p;
	e->m = (uint16_t)m;
	e->n = (uint16_t)n;
	return e->q;
}

/* --- The binomial(n, 1/2) quantile --- */

/*
 * P(B <= k) = sum_{i <= k} C(n, i) / 2^n, the terms from the recurrence
 * C(n, i + 1) = C(n, i) (n - i) / (i + 1). The running term and sum are kept divided by 2^e,
 * e growing in steps of 600 so neither overflows; dividing by 2^n is then one exact ldexp.
 * Relative error about k DBL_EPSILON, far inside the gap between two attainable values.
 */
int64_t stats_qbinom_half(double p, size_t n)
{
	double term = 1, sum = 1, target;
	long e = 0;
	if (!(p > 0 && p <= 0.5))
		return -1;
	/* R's qbinom: fuzz to ensure left continuity. */
	target = p * (1 - 64 * DBL_EPSILON);
	for (size_t k = 0;; k++) {
		if (ldexp(sum, (int)(e - (long)n)) >= target || k >= n)
			return (int64_t)k;
		term = term * (double)(n - k) / (double)(k + 1);
		sum += term;
		if (sum > 0x1p600) {
			term = ldexp(term, -600);
			sum = ldexp(sum, -600);
			e += 600;
		}
	}
}

/* --- The k-th smallest of the nx * ny differences y_j - x_i --- */

/* A fixed-seed generator: the pivots only decide how fast the selection ends, never what it
 * returns, and a fixed seed keeps even the time reproducible. */
static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * The implicit matrix: row i (x sorted ascending) holds y_j - x_i for j = 0..ny-1 (y sorted
 * ascending). Rounding is monotonic, so each row is nondecreasing and each column
 * nonincreasing in the computed doubles too. Each row keeps a window [lo, hi) of candidate
 * columns: everything left of it is known to be below the answer, everything right of it
 * above.
 */
#define PAIRDIFF_SAMPLE 256
struct pairdiff {
	const double *x, *y;
	size_t nx, ny;
	size_t *lo, *hi;	       /* per row: the window */
	size_t *le1, *lt1, *le2, *lt2; /* per row: counts at the two pivots */
	size_t *rows;		       /* the six arrays above, which trade places */
	uint64_t *pre;		       /* nx + 1 running totals of the window widths */
	double sample[PAIRDIFF_SAMPLE];
	double *buf; /* room for the last candidates */
	size_t bufcap;
};

static void pairdiff_init(struct pairdiff *pd, const double *x, size_t nx, const double *y,
			  size_t ny)
{
	pd->x = x;
	pd->y = y;
	pd->nx = nx;
	pd->ny = ny;
	pd->rows = xmalloc(6 * nx * sizeof(*pd->rows));
	pd->lo = pd->rows;
	pd->hi = pd->rows + nx;
	pd->le1 = pd->rows + 2 * nx;
	pd->lt1 = pd->rows + 3 * nx;
	pd->le2 = pd->rows + 4 * nx;
	pd->lt2 = pd->rows + 5 * nx;
	pd->pre = xmalloc((nx + 1) * sizeof(*pd->pre));
	pd->bufcap = 2 * (nx + ny) + 256;
	pd->buf = xmalloc(pd->bufcap * sizeof(*pd->buf));
}

static void pairdiff_release(struct pairdiff *pd)
{
	free(pd->rows);
	free(pd->pre);
	free(pd->buf);
}

static void pairdiff_reset(struct pairdiff *pd)
{
	for (size_t i = 0; i < pd->nx; i++) {
		pd->lo[i] = 0;
		pd->hi[i] = pd->ny;
	}
}

/*
 * Counts, per row and in all, the elements < pivot (lt) and <= pivot (le). pivot is one of
 * the candidates, so both counts lie within each row's window, and both grow from row to
 * row: pointers that only walk right give the whole staircase in O(nx + ny).
 */
static void pairdiff_count(const struct pairdiff *pd, double pivot, size_t *le, size_t *lt,
			   uint64_t *cle, uint64_t *clt)
{
	size_t ple = 0, plt = 0;
	uint64_t sle = 0, slt = 0;
	for (size_t i = 0; i < pd->nx; i++) {
		double xi = pd->x[i];
		size_t lo = pd->lo[i], hi = pd->hi[i];
		plt = plt < lo ? lo : plt > hi ? hi : plt;
		while (plt < hi && pd->y[plt] - xi < pivot)
			plt++;
		ple = ple < plt ? plt : ple > hi ? hi : ple;
		while (ple < hi && pd->y[ple] - xi <= pivot)
			ple++;
		le[i] = ple;
		lt[i] = plt;
		sle += ple;
		slt += plt;
	}
	*cle = sle;
	*clt = slt;
}

/* A candidate drawn uniformly at random: its rank among them, then its row by bisection of the
 * running totals. */
static double pairdiff_draw(const struct pairdiff *pd, uint64_t *seed, uint64_t cand)
{
	uint64_t r = splitmix64(seed) % cand;
	size_t a = 0, b = pd->nx; /* pre[a] <= r < pre[b] */
	while (b - a > 1) {
		size_t m = a + (b - a) / 2;
		if (pd->pre[m] <= r)
			a = m;
		else
			b = m;
	}
	return pd->y[pd->lo[a] + (size_t)(r - pd->pre[a])] - pd->x[a];
}

/*
 * The k-th smallest (1-based) difference, by Floyd and Rivest's idea on the implicit matrix.
 * Each round draws up to PAIRDIFF_SAMPLE candidates, takes two of them that bracket the answer's
 * expected place among them by three standard deviations, counts the elements below and at
 * each, and shrinks every row's window to the bracket: about a fifth of the candidates stay.
 * A bracket that misses still cuts one side; every round removes at least a pivot, so it
 * always ends. At most bufcap candidates left, they are gathered and selected directly.
 */
static double pairdiff_kth(struct pairdiff *pd, uint64_t k)
{
	uint64_t seed = 0x62656e63686c696eULL ^ k, cand = (uint64_t)pd->nx * pd->ny, below = 0;
	size_t m = 0, *t;
	pairdiff_reset(pd);
	while (cand > pd->bufcap) {
		/* About one sample per two rows and columns, so drawing and sorting them costs less
		 * than a count; never more than a sixteenth of the candidates. */
		long S = (long)((pd->nx + pd->ny) / 2);
		uint64_t cle1 = 0, clt1 = 0, cle2 = 0, clt2 = 0;
		double f, pos, d, p1, p2;
		long i1, i2;
		int have1, have2;
		S = S < 16 ? 16 : S > PAIRDIFF_SAMPLE ? PAIRDIFF_SAMPLE : S;
		if ((uint64_t)S > cand / 16)
			S = (long)(cand / 16);
		f = (double)(k - below) / (double)cand;
		pos = f * (double)S - 0.5;
		d = 3 * sqrt((double)S * f * (1 - f)) + 1;
		i1 = (long)floor(pos - d);
		i2 = (long)ceil(pos + d);
		have1 = i1 >= 0;
		have2 = i2 < S;
		if (!have1 && !have2) {
			/* A bracket wider than the sample: one pivot where the answer should be. */
			i1 = pos < 0 ? 0 : pos >= (double)S ? S - 1 : (long)pos;
			have1 = 1;
		}
		pd->pre[0] = 0;
		for (size_t i = 0; i < pd->nx; i++)
			pd->pre[i + 1] = pd->pre[i] + (pd->hi[i] - pd->lo[i]);
		for (long s = 0; s < S; s++)
			pd->sample[s] = pairdiff_draw(pd, &seed, cand);
		sort_doubles(pd->sample, (size_t)S);
		p1 = pd->sample[have1 ? i1 : 0];
		p2 = pd->sample[have2 ? i2 : S - 1];
		if (have1)
			pairdiff_count(pd, p1, pd->le1, pd->lt1, &cle1, &clt1);
		if (have2)
			pairdiff_count(pd, p2, pd->le2, pd->lt2, &cle2, &clt2);
		if (have1 && clt1 >= k) {
			/* Below the low pivot: the windows end at the first >= it. */
			t = pd->hi, pd->hi = pd->lt1, pd->lt1 = t;
		} else if (have2 && cle2 < k) {
			/* Above the high pivot: the windows start after the last <= it. */
			t = pd->lo, pd->lo = pd->le2, pd->le2 = t;
		} else {
			/* Within the bracket, or on one of its ends. */
			if (have1 && cle1 >= k)
				return p1;
			if (have2 && clt2 < k)
				return p2;
			if (have1)
				t = pd->lo, pd->lo = pd->le1, pd->le1 = t;
			if (have2)
				t = pd->hi, pd->hi = pd->lt2, pd->lt2 = t;
		}
		cand = below = 0;
		for (size_t i = 0; i < pd->nx; i++) {
			cand += pd->hi[i] - pd->lo[i];
			below += pd->lo[i];
		}
	}
	for (size_t i = 0; i < pd->nx; i++)
		for (size_t j = pd->lo[i]; j < pd->hi[i]; j++)
			pd->buf[m++] = pd->y[j] - pd->x[i];
	select_kth(pd->buf, m, (size_t)(k - below - 1));
	return pd->buf[k - below - 1];
}

/* The (k+1)-th smallest difference, v being the k-th: v again when more than k are <= v,
 * else the least difference above v, the first past the staircase in some row. */
static double pairdiff_next(struct pairdiff *pd, double v, uint64_t k)
{
	uint64_t cle, clt;
	double next = INFINITY;
	pairdiff_reset(pd);
	pairdiff_count(pd, v, pd->le1, pd->lt1, &cle, &clt);
	if (cle > k)
		return v;
	for (size_t i = 0; i < pd->nx; i++)
		if (pd->le1[i] < pd->ny && pd->y[pd->le1[i]] - pd->x[i] < next)
			next = pd->y[pd->le1[i]] - pd->x[i];
	return next;
}

double stats_pairdiff_kth(const double *x, size_t nx, const double *y, size_t ny, uint64_t k)
{
	struct pairdiff pd;
	double v;
	if (!nx || !ny || k < 1 || k > (uint64_t)nx * ny)
		return NAN;
	for (size_t i = 0; i < nx; i++)
		if (!isfinite(x[i]) || (i && x[i - 1] > x[i]))
			return NAN;
	for (size_t j = 0; j < ny; j++)
		if (!isfinite(y[j]) || (j && y[j - 1] > y[j]))
			return NAN;
	pairdiff_init(&pd, x, nx, y, ny);
	v = pairdiff_kth(&pd, k);
	pairdiff_release(&pd);
	return v + 0.0;
}

/* --- The Hodges-Lehmann shift --- */

/* The 1-based ranks of the differences a shift needs: the interval's ends and the one or two
 * in the middle. */
struct shift_ranks {
	uint64_t lo, mid1, mid2, hi;
};

/*
 * The lower end's rank. Exact: R's qwilcox(alpha / 2, m, n), the interval
 * [d(qu), d(mn - qu + 1)] of wilcox.test (qu = 0 means the level cannot be reached). Normal:
 * wilcox.test(correct = TRUE) solves W(d) = +-z with uniroot, where W(d) is the continuity-
 * corrected z statistic of the sample shifted by d, a step function jumping at each
 * difference. On tie-free data the root is the difference at rank k, the smallest with
 * (mn - k - mn / 2 - 0.5) / sigma - z <= 0, so k = ceil(mn / 2 - 0.5 - z sigma); the upper
 * end mirrors it. R's own expression decides the integer next to the boundary.
 */
static int64_t lower_rank(size_t nx, size_t ny, double conf, int exact)
{
	double alpha = 1 - conf, N = (double)nx * (double)ny, z, sigma, k;
	if (exact)
		return stats_qwilcox(alpha / 2, ny, nx);
	z = stats_qnorm(alpha / 2, 0);
	sigma = sqrt(((double)nx * (double)ny / 12) * ((double)nx + (double)ny + 1));
	k = ceil(N / 2 - 0.5 - z * sigma);
	if (k < 1)
		return 0;
	/* W at U = N - k (U: the differences above the root), as R evaluates it. */
	while (k > 1 && ((N - (k - 1)) - N / 2 - 0.5) / sigma - z <= 0)
		k--;
	while (k <= N && ((N - k) - N / 2 - 0.5) / sigma - z > 0)
		k++;
	return (int64_t)k;
}

int stats_hl_shift_with(struct stats_shift *out, const double *x, size_t nx, const double *y,
			size_t ny, double conf, enum stats_select how, struct bl_error *err)
{
	double *xs = NULL, *ys = NULL, *d = NULL, v[4];
	uint64_t N, rank[4];
	struct shift_ranks r;
	int64_t k;
	int exact, ret;
	if (!(conf > 0 && conf < 1))
		return bl_error_set(err, BL_EINVALID, "confidence level %g is not between 0 and 1",
				    conf);
	if (nx < 2 || ny < 2)
		return bl_error_set(err, BL_EINVALID,
				    "a shift needs at least 2 samples a side, not %zu and %zu", nx,
				    ny);
	exact = nx <= STATS_EXACT_MAX && ny <= STATS_EXACT_MAX;
	k = lower_rank(nx, ny, conf, exact);
	if (k < 1)
		return bl_error_set(err, BL_EINVALID,
				    "%zu and %zu samples are too few for a %g%% interval", nx, ny,
				    conf * 100);
	N = (uint64_t)nx * ny;
	r.lo = (uint64_t)k;
	r.hi = N + 1 - r.lo;
	r.mid1 = (N + 1) / 2;
	r.mid2 = N / 2 + 1; /* == mid1 for an odd count */

	xs = xmalloc((nx + ny) * sizeof(*xs));
	ys = xs + nx;
	if ((ret = copy_finite(xs, x, nx, "x", err)) || (ret = copy_finite(ys, y, ny, "y", err)))
		goto out;
	/* Sorted: the implicit selection needs it, and the stored differences then come in sorted
	 * runs, which the quickselect's median-of-three pivots split well (twice as fast at
	 * 50 x 50 as unsorted). */
	sort_doubles(xs, nx);
	sort_doubles(ys, ny);
	/* The extreme differences: if they are finite, all of them are. */
	if (!isfinite(ys[ny - 1] - xs[0]) || !isfinite(ys[0] - xs[nx - 1])) {
		ret = bl_error_set(err, BL_EINVALID,
				   "the samples differ by more than a double holds");
		goto out;
	}

	/* Descending, so each selection can work in what the one before left below it. */
	rank[0] = r.hi;
	rank[1] = r.mid2;
	rank[2] = r.mid1;
	rank[3] = r.lo;
	if (how == STATS_SELECT_AUTO)
		how = N <= STATS_MATERIALIZE_MAX ? STATS_SELECT_MATERIALIZE : STATS_SELECT_IMPLICIT;
	if (how == STATS_SELECT_MATERIALIZE) {
		size_t len = N, m = 0;
		d = xmalloc(N * sizeof(*d));
		for (size_t i = 0; i < nx; i++)
			for (size_t j = 0; j < ny; j++)
				d[m++] = ys[j] - xs[i];
		for (int i = 0; i < 4; i++) {
			size_t at = (size_t)rank[i] - 1;
			/* Equal to the rank before: d[at] already holds it. */
			if (at < len)
				select_kth(d, len, at);
			v[i] = d[at];
			len = at;
		}
	} else {
		struct pairdiff pd;
		pairdiff_init(&pd, xs, nx, ys, ny);
		/* The two middle ones are neighbours: one selection and one pass. */
		v[0] = pairdiff_kth(&pd, rank[0]);
		v[2] = pairdiff_kth(&pd, rank[2]);
		v[1] = rank[1] == rank[2] ? v[2] : pairdiff_next(&pd, v[2], rank[2]);
		v[3] = pairdiff_kth(&pd, rank[3]);
		pairdiff_release(&pd);
	}
	out->hi = v[0];
	out->estimate = r.mid1 == r.mid2 ? v[2] : midpoint(v[2], v[1]);
	out->lo = v[3];
	out->exact = exact;
	ret = 0;
out:
	free(d);
	free(xs);
	return ret;
}

int stats_hl_shift(struct stats_shift *out, const double *x, size_t nx, const double *y, size_t ny,
		   double conf, struct bl_error *err)
{
	return stats_hl_shift_with(out, x, nx, y, ny, conf, STATS_SELECT_AUTO, err);
}

/* --- The median's interval --- */

/*
 * x(k) lies above the median when fewer than k values do, which happens with probability
 * P(B <= k - 1), B binomial(n, 1/2). With k = qbinom(alpha / 2, n, 1/2), the smallest k with
 * P(B <= k) >= alpha / 2, P(B <= k - 1) < alpha / 2 on each side, so [x(k), x(n + 1 - k)]
 * covers the median with probability at least conf. k = 0 means it cannot.
 */
int stats_median_interval(double *lo, double *estimate, double *hi, const double *values, size_t n,
			  double conf, struct bl_error *err)
{
	double *s;
	int64_t k;
	int ret;
	if (!(conf > 0 && conf < 1))
		return bl_error_set(err, BL_EINVALID, "confidence level %g is not between 0 and 1",
				    conf);
	k = stats_qbinom_half((1 - conf) / 2, n);
	if (k < 1)
		return bl_error_set(err, BL_EINVALID, "%zu values are too few for a %g%% interval",
				    n, conf * 100);
	s = xmalloc(n * sizeof(*s));
	if ((ret = copy_finite(s, values, n, "values", err))) {
		free(s);
		return ret;
	}
	sort_doubles(s, n);
	*lo = s[k - 1];
	*hi = s[n - (size_t)k];
	*estimate = n % 2 ? s[n / 2] : midpoint(s[n / 2 - 1], s[n / 2]);
	free(s);
	return 0;
}

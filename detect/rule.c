/*
 * The §6 band, as a pure function of a line's medians: no I/O, no allocation. A window of
 * up to 8 medians before the record, its nearest-rank median as the center, the nearest-rank
 * median of the absolute deviations from it, a tolerance of 4 of those or 3% of the center
 * (whichever is larger), and the first-of-a-step rule. docs/detection.md works an example.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "detect/detect.h"
#include "detect/ladder/ladder.h"

void detect_tail_init(struct detect_tail *t)
{
	memset(t, 0, sizeof(*t));
}

int detect_is_slower(int above, int better_higher)
{
	return better_higher ? above < 0 : above > 0;
}

/* Whether a marked record among those before m (all of t, at most 8) starts the step m
 * continues: on the same side of its own center, and m within its tolerance of it. */
static int continues_step(const struct detect_tail *t, double m, int above)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->mark[i] == above && fabs(m - t->median[i]) <= t->tolerance[i])
			return 1;
	return 0;
}

/* What a marked record keeps in the tail; zeros for one not marked. */
struct tail_mark {
	double tolerance, deviation, edge;
	unsigned char followers, persisted;
};

static void tail_push(struct detect_tail *t, double m, int64_t id, int mark,
		      const struct tail_mark *tm)
{
	size_t k;
	if (t->n == DETECT_WINDOW) {
		/* The oldest leaves the sorted copy too (any equal value will do). */
		for (k = 0; k < t->n - 1 && t->sorted[k] != t->median[0]; k++)
			;
		memmove(t->sorted + k, t->sorted + k + 1, (t->n - 1 - k) * sizeof(t->sorted[0]));
#define TAIL_SHIFT(a) memmove(t->a, t->a + 1, (DETECT_WINDOW - 1) * sizeof(t->a[0]))
		TAIL_SHIFT(median);
		TAIL_SHIFT(id);
		TAIL_SHIFT(mark);
		TAIL_SHIFT(tolerance);
		TAIL_SHIFT(deviation);
		TAIL_SHIFT(edge);
		TAIL_SHIFT(followers);
		TAIL_SHIFT(persisted);
#undef TAIL_SHIFT
		t->n--;
	}
	t->median[t->n] = m;
	t->id[t->n] = id;
	t->mark[t->n] = (signed char)mark;
	t->tolerance[t->n] = mark ? tm->tolerance : 0;
	t->deviation[t->n] = mark ? tm->deviation : 0;
	t->edge[t->n] = mark ? tm->edge : 0;
	t->followers[t->n] = mark ? tm->followers : 0;
	t->persisted[t->n] = mark ? tm->persisted : 0;
	for (k = t->n; k > 0 && t->sorted[k - 1] > m; k--)
		t->sorted[k] = t->sorted[k - 1];
	t->sorted[k] = m;
	t->n++;
}

/* m follows every marked record in the window: it counts as one more follower of each, and
 * keeps its run of records beyond the edge going only when it is beyond it too. The oldest
 * record leaves the window when m joins a full one: its counts are final then. */
static void follow_marks(struct detect_verdict *out, struct detect_tail *t, double m)
{
	for (size_t i = 0; i < t->n; i++) {
		int beyond;
		struct detect_followed *f;
		if (!t->mark[i])
			continue;
		beyond = t->mark[i] > 0 ? m > t->edge[i] : m < t->edge[i];
		if (t->persisted[i] == t->followers[i] && beyond)
			t->persisted[i]++;
		t->followers[i]++;
		f = i == 0 && t->n == DETECT_WINDOW ? &out->evicted
						    : &out->followed[out->nfollowed++];
		f->id = t->id[i];
		f->followers = t->followers[i];
		f->persisted = t->persisted[i];
	}
}

/* The nearest-rank median of |w - center| over the sorted window, center being its element
 * at index r: the deviations grow outward from r on both sides, so the k-th smallest is found
 * by merging the two directions (no sort). */
static double window_mad(const double *sorted, size_t n, size_t r)
{
	double c = sorted[r], d = 0;
	size_t k = (n + 1) / 2;
	ptrdiff_t i = (ptrdiff_t)r, j = (ptrdiff_t)r + 1;
	while (k--) {
		double left = i >= 0 ? c - sorted[i] : INFINITY;
		double right = (size_t)j < n ? sorted[j] - c : INFINITY;
		if (left <= right) {
			d = left;
			i--;
		} else {
			d = right;
			j++;
		}
	}
	return d;
}

/* What every rule starts with: m counted as a follower of the marks before it, then too few
 * records before m (0, and m joins the tail), or the window's center and deviation, and which
 * side of the center m is on (1). */
static int step_begin(struct detect_verdict *out, struct detect_tail *t, double m, int64_t id)
{
	size_t n = t->n, r;
	memset(out, 0, sizeof(*out));
	out->center = out->deviation = out->tolerance = out->shift = NAN;
	follow_marks(out, t, m);
	if (n < DETECT_MIN_WINDOW) {
		tail_push(t, m, id, 0, NULL);
		return 0;
	}
	out->judged = 1;
	r = (n + 1) / 2 - 1; /* rank ceil(n / 2), 0-based */
	out->center = t->sorted[r];
	out->deviation = window_mad(t->sorted, n, r);
	out->above = m > out->center ? 1 : m < out->center ? -1 : 0;
	out->shift = out->center != 0 ? (m - out->center) / out->center : NAN;
	return 1;
}

/* The §9.1 facts of a record just marked, whose band is [lo, hi]: the newest record before it
 * inside the band, and the newest marked record of its side whose alert it joins: its level
 * continued, or one excursion with it (every record between the two stayed beyond that
 * record's edge, whatever level they climbed to: a staircase). follow_marks has already
 * counted m as a follower, so the records between are followers - 1 of them, and they all
 * stayed beyond exactly when persisted >= followers - 1. */
static void alert_facts(struct detect_verdict *out, const struct detect_tail *t, double m,
			double lo, double hi)
{
	for (size_t i = t->n; i-- > 0;)
		if (t->median[i] >= lo && t->median[i] <= hi) {
			out->reference_id = t->id[i];
			break;
		}
	for (size_t i = t->n; i-- > 0;) {
		double reach = DETECT_MAD_FACTOR * t->deviation[i];
		if (t->mark[i] != out->above)
			continue;
		if (DETECT_FLOOR * fabs(t->median[i]) > reach)
			reach = DETECT_FLOOR * fabs(t->median[i]);
		if (fabs(m - t->median[i]) <= reach || t->persisted[i] + 1 >= t->followers[i]) {
			out->follows_id = t->id[i];
			break;
		}
	}
}

/* What every rule ends with: an outside m is marked unless it continues a step, and joins the
 * tail with its mark; [lo, hi] is its band. */
static void step_end(struct detect_verdict *out, struct detect_tail *t, double m, int64_t id,
		     double lo, double hi)
{
	struct tail_mark tm = {0};
	if (out->outside) {
		out->continues = continues_step(t, m, out->above);
		out->marked = !out->continues;
	}
	if (out->marked) {
		alert_facts(out, t, m, lo, hi);
		tm.tolerance = out->tolerance;
		tm.deviation = out->deviation;
		tm.edge = out->above > 0 ? hi : lo;
	}
	tail_push(t, m, id, out->marked ? out->above : 0, &tm);
}

void detect_step(struct detect_verdict *out, struct detect_tail *t, double m, int64_t id,
		 double floor)
{
	double floor_tol;

	if (!step_begin(out, t, m, id))
		return;
	out->tolerance = DETECT_MAD_FACTOR * out->deviation;
	floor_tol = floor * fabs(out->center);
	if (floor_tol > out->tolerance)
		out->tolerance = floor_tol;
	out->outside = fabs(m - out->center) > out->tolerance;
	step_end(out, t, m, id, out->center - out->tolerance, out->center + out->tolerance);
}

void detect_step_ladder(struct detect_verdict *out, struct detect_tail *t, double m, int64_t id,
			const struct ladder *l)
{
	struct ladder_bucket b;
	double up, down;

	if (!step_begin(out, t, m, id))
		return;
	/* Only a reading past the bucket above the center's own is known to be higher (§8), and
	 * only one under the edge below the bucket under it is known to be lower. */
	ladder_bucket_locate(&b, l, out->center);
	up = b.top ? INFINITY : b.hi_next - out->center;
	down = b.index >= 2 ? out->center - l->edges[b.index - 2] : INFINITY;
	out->tolerance = out->above < 0 ? down : up;
	out->outside = out->above > 0 ? m - out->center > up : out->center - m > down;
	step_end(out, t, m, id, out->center - down, out->center + up);
}

void detect_line(struct detect_verdict *out, const double *medians, size_t n)
{
	struct detect_tail t;
	detect_tail_init(&t);
	for (size_t i = 0; i < n; i++)
		detect_step(&out[i], &t, medians[i], (int64_t)i + 1, DETECT_FLOOR);
}

static void put_le64(unsigned char *p, double v)
{
	uint64_t bits;
	memcpy(&bits, &v, 8);
	for (int b = 0; b < 8; b++)
		p[b] = (unsigned char)(bits >> (8 * b));
}

static double get_le64(const unsigned char *p)
{
	uint64_t bits = 0;
	double v;
	for (int b = 0; b < 8; b++)
		bits |= (uint64_t)p[b] << (8 * b);
	memcpy(&v, &bits, 8);
	return v;
}

void detect_tail_encode(struct strbuf *out, const struct detect_tail *t)
{
	unsigned char b[8];
	strbuf_addch(out, (char)t->n);
	for (size_t i = 0; i < t->n; i++) {
		put_le64(b, t->median[i]);
		strbuf_add(out, b, 8);
	}
	for (size_t i = 0; i < t->n; i++) {
		uint64_t id = (uint64_t)t->id[i];
		for (int k = 0; k < 8; k++)
			b[k] = (unsigned char)(id >> (8 * k));
		strbuf_add(out, b, 8);
	}
	for (size_t i = 0; i < t->n; i++)
		strbuf_addch(out, (char)(t->mark[i] + 1)); /* 0, 1, 2 */
	for (size_t i = 0; i < t->n; i++) {
		if (!t->mark[i])
			continue;
		put_le64(b, t->tolerance[i]);
		strbuf_add(out, b, 8);
		put_le64(b, t->deviation[i]);
		strbuf_add(out, b, 8);
		put_le64(b, t->edge[i]);
		strbuf_add(out, b, 8);
		strbuf_addch(out, (char)t->followers[i]);
		strbuf_addch(out, (char)t->persisted[i]);
	}
}

/* Bytes a marked record adds to an encoded tail: three doubles and two counts. */
#define MARK_BYTES 26

int detect_tail_decode(struct detect_tail *out, const void *data, size_t len)
{
	const unsigned char *p = data, *ids, *marks, *facts;
	size_t n, marked = 0;
	detect_tail_init(out);
	if (!len)
		return 0;
	n = p[0];
	if (n > DETECT_WINDOW || len < 1 + 17 * n)
		return BL_EINVALID;
	ids = p + 1 + 8 * n;
	marks = ids + 8 * n;
	for (size_t i = 0; i < n; i++) {
		if (marks[i] > 2)
			return BL_EINVALID;
		marked += marks[i] != 1;
	}
	if (len != 1 + 17 * n + MARK_BYTES * marked)
		return BL_EINVALID;
	facts = marks + n;
	for (size_t i = 0; i < n; i++) {
		struct tail_mark tm = {0};
		uint64_t id = 0;
		for (int k = 0; k < 8; k++)
			id |= (uint64_t)ids[8 * i + k] << (8 * k);
		if (marks[i] != 1) {
			tm.tolerance = get_le64(facts);
			tm.deviation = get_le64(facts + 8);
			tm.edge = get_le64(facts + 16);
			tm.followers = facts[24];
			tm.persisted = facts[25];
			if (tm.persisted > tm.followers || tm.followers >= DETECT_WINDOW)
				return BL_EINVALID;
			facts += MARK_BYTES;
		}
		tail_push(out, get_le64(p + 1 + 8 * i), (int64_t)id, marks[i] - 1, &tm);
	}
	return 0;
}

uint64_t detect_fingerprint(uint64_t fp, int64_t run_id, double value, unsigned kind)
{
	unsigned char bytes[17];
	uint64_t id = (uint64_t)run_id, bits;
	if (isnan(value))
		value = NAN; /* one bit pattern for every NaN */
	memcpy(&bits, &value, 8);
	for (int b = 0; b < 8; b++) {
		bytes[b] = (unsigned char)(id >> (8 * b));
		bytes[8 + b] = (unsigned char)(bits >> (8 * b));
	}
	bytes[16] = (unsigned char)kind;
	for (size_t i = 0; i < sizeof(bytes); i++) {
		fp ^= bytes[i];
		fp *= 0x100000001b3ULL;
	}
	return fp;
}

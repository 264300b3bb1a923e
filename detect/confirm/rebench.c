/*
 * The re-bench engine (§9.2): how two builds are measured against each other so that machine
 * state cannot decide the verdict. Samples are taken in pairs, the order alternating within
 * each pair (AB, BA, ...) so a drift of the machine lands on both sides alike; rounds of pairs
 * go on until every metric is settled or the pairs run out; each metric is judged on its
 * paired ratios b / a by the order-statistic interval of their median. A metric that looks
 * slower is measured again from scratch and called slower only when every measurement agrees;
 * an undecided measurement is replaced by another. Only the metrics the caller asks about
 * (confirm: the alert's own Series) decide how long that goes on and the verdict; the others
 * come with the same samples and are reported. The measuring itself is the caller's (a
 * callback): this file decides how much to measure and what it means, and does no I/O.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "detect/confirm/confirm.h"
#include "detect/gate/gate.h"
#include "detect/stats/stats.h"

void confirm_rebench_options_init(struct confirm_rebench_options *o)
{
	memset(o, 0, sizeof(*o));
	o->limit = GATE_LIMIT;
	o->round_pairs = CONFIRM_ROUND_PAIRS;
	o->max_pairs = CONFIRM_MAX_PAIRS;
	o->confirmations = CONFIRM_CONFIRMATIONS;
	o->replacements = CONFIRM_REPLACEMENTS;
}

/* The pairs of one measurement of one metric. */
struct series {
	char *key;
	enum confirm_judge judge;
	int better_higher;
	double limit;  /* the value's own limit; 0: the options' */
	double *a, *b; /* one value a side per pair */
	size_t n, alloc;
};

struct measurement {
	struct series *s;
	size_t n, alloc;
	size_t pairs;
};

static void measurement_release(struct measurement *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->s[i].key);
		free(m->s[i].a);
		free(m->s[i].b);
	}
	free(m->s);
	memset(m, 0, sizeof(*m));
}

static struct series *series_for(struct measurement *m, const struct confirm_value *v)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->s[i].key, v->key))
			return &m->s[i];
	ALLOC_GROW(m->s, m->n, m->alloc);
	memset(&m->s[m->n], 0, sizeof(m->s[m->n]));
	m->s[m->n].key = xstrdup(v->key);
	m->s[m->n].judge = v->judge;
	m->s[m->n].better_higher = v->better_higher;
	m->s[m->n].limit = v->limit;
	return &m->s[m->n++];
}

static const struct confirm_value *find_value(const struct confirm_value *v, size_t n,
					      const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].key, key))
			return &v[i];
	return NULL;
}

/* Appends one pair's values of a metric. */
static void add_pair(struct series *s, double a, double b)
{
	if (s->n >= s->alloc) {
		s->alloc = s->alloc ? 2 * s->alloc : 16;
		s->a = xrealloc(s->a, s->alloc * sizeof(*s->a));
		s->b = xrealloc(s->b, s->alloc * sizeof(*s->b));
	}
	s->a[s->n] = a;
	s->b[s->n] = b;
	s->n++;
}

static int usable(double v)
{
	return v > 0 && isfinite(v);
}

/* Takes one pair: both sides once, in the order the pair's index asks (AB, then BA, ...). A
 * metric enters the pair only when both sides measured it with a positive, finite value. */
static int take_pair(struct measurement *m, confirm_sample_fn sample, void *data,
		     struct bl_error *err)
{
	int first = m->pairs % 2 ? CONFIRM_SIDE_B : CONFIRM_SIDE_A;
	struct confirm_value *v, *kept = NULL;
	size_t n, nkept = 0;
	int ret;

	/* The callee owns a side's values only until its next call: keep the first side's. */
	if ((ret = sample(&v, &n, first, data, err)))
		return ret;
	kept = xcalloc(n ? n : 1, sizeof(*kept));
	for (; nkept < n; nkept++) {
		kept[nkept] = v[nkept];
		kept[nkept].key = xstrdup(v[nkept].key);
	}
	if ((ret = sample(&v, &n, !first, data, err)))
		goto done;
	for (size_t i = 0; i < nkept; i++) {
		const struct confirm_value *other = find_value(v, n, kept[i].key);
		const struct confirm_value *a = first == CONFIRM_SIDE_A ? &kept[i] : other;
		const struct confirm_value *b = first == CONFIRM_SIDE_A ? other : &kept[i];
		if (!other || !usable(a->value) || !usable(b->value))
			continue;
		add_pair(series_for(m, &kept[i]), a->value, b->value);
	}
	m->pairs++;
done:
	for (size_t i = 0; i < nkept; i++)
		free((char *)kept[i].key);
	free(kept);
	return ret;
}

/* The nearest-rank median of one side's values over the pairs (NAN with none). */
static double side_median(const double *v, size_t n, double *scratch)
{
	if (!n)
		return NAN;
	memcpy(scratch, v, n * sizeof(*v));
	return stats_nr_median(scratch, n);
}

/* The verdict of one metric's pairs: the median ratio, its 99% interval, and the rule. */
static void judge(struct confirm_metric *out, const struct series *s,
		  const struct confirm_rebench_options *o)
{
	double *r = xmalloc((s->n ? s->n : 1) * sizeof(*r));
	struct bl_error err = BL_ERROR_INIT;
	double lo, est, hi;

	out->pairs = s->n;
	out->ratio = out->lo = out->hi = NAN;
	out->verdict = GATE_VERDICT_UNDECIDED;
	out->a = side_median(s->a, s->n, r);
	out->b = side_median(s->b, s->n, r);
	for (size_t i = 0; i < s->n; i++)
		r[i] = s->b[i] / s->a[i];
	if (s->n && !stats_median_interval(&lo, &est, &hi, r, s->n, CONFIRM_LEVEL, &err)) {
		out->ratio = est;
		out->lo = lo;
		out->hi = hi;
		if (s->judge == CONFIRM_JUDGE_RSS) {
			/* Worse only by more than 10% and more than 1 MiB (in KiB). */
			double *d = r;
			out->verdict = gate_interval_verdict(lo, hi, CONFIRM_RSS_LIMIT, 0);
			for (size_t i = 0; i < s->n; i++)
				d[i] = fabs(s->b[i] - s->a[i]);
			qsort(d, s->n, sizeof(*d), cmp_double);
			if ((out->verdict == GATE_VERDICT_SLOWER ||
			     out->verdict == GATE_VERDICT_FASTER) &&
			    !(d[(s->n - 1) / 2] > CONFIRM_RSS_MIN_KIB))
				out->verdict = GATE_VERDICT_SAME;
		} else {
			out->verdict = gate_interval_verdict(
			    lo, hi, s->limit > 0 ? s->limit : o->limit, s->better_higher);
		}
	}
	bl_error_release(&err);
	free(r);
}

/* Whether a metric needs another measurement: not while one measurement has cleared it, nor
 * once enough have agreed it is slower, nor when its undecided ones have used up their
 * replacements. */
static int needs_more(const struct confirm_metric *c, const struct confirm_rebench_options *o)
{
	return !c->clear_votes && c->slower_votes < o->confirmations &&
	       c->undecided_votes <= o->replacements;
}

/* Whether the caller asked about the metric (o->asked; none given: every metric is). */
static int asked(const char *key, const struct confirm_rebench_options *o)
{
	if (!o->asked)
		return 1;
	for (size_t i = 0; i < o->nasked; i++)
		if (!strcmp(o->asked[i], key))
			return 1;
	return 0;
}

/* The metric's standing before this measurement, or NULL in the first (and for a metric the
 * first did not meet). */
static const struct confirm_metric *standing(const char *key,
					     const struct confirm_rebench_result *so_far)
{
	for (size_t k = 0; k < so_far->n; k++)
		if (!strcmp(so_far->metrics[k].key, key))
			return &so_far->metrics[k];
	return NULL;
}

/* Whether a metric of this measurement still waits for a vote: only one asked about; every one
 * of those does in the first measurement; in a later one, only those the earlier ones left open
 * (so a metric already decided cannot keep the rounds going). */
static int open_metric(const char *key, const struct confirm_rebench_result *so_far,
		       const struct confirm_rebench_options *o)
{
	const struct confirm_metric *c;
	if (!asked(key, o))
		return 0;
	if (!so_far->measurements)
		return 1;
	c = standing(key, so_far);
	return c && needs_more(c, o); /* only the first measurement says what is measured */
}

/* The most measurements a metric may still take, after the votes it has: none once it is
 * decided; else until `confirmations` say slower, or the undecided ones have used up their
 * replacements, whichever is later (the longest way: confirmations - 1 slower votes and
 * replacements + 1 undecided ones). */
static size_t measurements_left(size_t slower, size_t undecided, int clear,
				const struct confirm_rebench_options *o)
{
	size_t most = o->confirmations + o->replacements;
	if (clear || slower >= o->confirmations || undecided > o->replacements)
		return 0;
	return most > slower + undecided ? most - slower - undecided : 0;
}

/* The most pairs the re-bench may still take after this round of measurement m: the rest of m
 * unless this round ends it, then as many whole measurements as the metrics still waiting may
 * need (with the votes this measurement casts, when it ends here: an undecided one for a metric
 * it did not measure). */
static size_t pairs_left(const struct measurement *m, const struct confirm_metric *now, int ends,
			 const struct confirm_rebench_result *so_far,
			 const struct confirm_rebench_options *o)
{
	size_t further = 0;
	for (size_t k = 0; k < so_far->n; k++) {
		const struct confirm_metric *c = &so_far->metrics[k];
		size_t left;
		int met = 0;
		for (size_t i = 0; i < m->n && !met; i++)
			met = !strcmp(m->s[i].key, c->key);
		if (met || !c->asked || !needs_more(c, o))
			continue;
		left = measurements_left(c->slower_votes, c->undecided_votes + 1, 0, o);
		if (left > further)
			further = left;
	}
	for (size_t i = 0; i < m->n; i++) {
		const struct confirm_metric *c = standing(m->s[i].key, so_far);
		size_t slower = c ? c->slower_votes : 0, undecided = c ? c->undecided_votes : 0;
		size_t left;
		if (!open_metric(m->s[i].key, so_far, o))
			continue;
		if (!ends) {
			/* this measurement's vote is still to come: at least one of the rest */
			left = measurements_left(slower, undecided, 0, o);
			left = left ? left - 1 : 0;
		} else {
			left = measurements_left(slower + (now[i].verdict == GATE_VERDICT_SLOWER),
						 undecided +
						     (now[i].verdict == GATE_VERDICT_UNDECIDED),
						 now[i].verdict == GATE_VERDICT_SAME ||
						     now[i].verdict == GATE_VERDICT_FASTER,
						 o);
		}
		if (left > further)
			further = left;
	}
	return (ends ? 0 : o->max_pairs - m->pairs) + further * o->max_pairs;
}

/* One measurement from scratch: rounds of pairs until every metric waiting for a vote is
 * settled, or none waits, or the pairs run out. */
static int measure(struct measurement *m, const struct confirm_rebench_result *so_far,
		   const struct confirm_rebench_options *o, int index, confirm_sample_fn sample,
		   void *data, confirm_progress_fn progress, void *progress_data,
		   struct bl_error *err)
{
	struct confirm_metric *now = NULL;
	int ret = 0, ends = 0;

	while (!ends) {
		size_t settled = 0, waiting = 0;
		for (size_t i = 0; i < o->round_pairs && m->pairs < o->max_pairs; i++)
			if ((ret = take_pair(m, sample, data, err)))
				goto done;
		now = xrealloc(now, (m->n ? m->n : 1) * sizeof(*now));
		for (size_t i = 0; i < m->n; i++) {
			memset(&now[i], 0, sizeof(now[i]));
			now[i].key = m->s[i].key;
			now[i].better_higher = m->s[i].better_higher;
			now[i].asked = asked(m->s[i].key, o);
			judge(&now[i], &m->s[i], o);
			if (open_metric(m->s[i].key, so_far, o)) {
				waiting++;
				settled += now[i].verdict != GATE_VERDICT_UNDECIDED;
			}
		}
		/* It ends once every metric waiting for a vote is settled (at once when none waits:
		 * nothing asked about was measured, and more rounds cannot change that), or when
		 * the pairs run out. */
		ends = settled == waiting || m->pairs >= o->max_pairs;
		if (progress) {
			struct confirm_progress p;
			memset(&p, 0, sizeof(p));
			p.measurement = index;
			p.pairs = m->pairs;
			p.max_pairs = o->max_pairs;
			p.done = so_far->pairs + m->pairs;
			p.most = p.done + pairs_left(m, now, ends, so_far, o);
			p.metrics = now;
			p.n = m->n;
			progress(&p, progress_data);
		}
	}
done:
	free(now);
	return ret;
}

/* Counts one measurement's verdict for a metric and sets what it stands at. */
static void vote(struct confirm_metric *c, const struct confirm_metric *now,
		 const struct confirm_rebench_options *o)
{
	c->measurements++;
	if (now->verdict == GATE_VERDICT_UNDECIDED)
		c->undecided_votes++;
	else if (now->verdict == GATE_VERDICT_SLOWER)
		c->slower_votes++;
	else
		c->clear_votes++;
	/* The figures shown are the latest measurement's. */
	c->pairs = now->pairs;
	c->a = now->a;
	c->b = now->b;
	c->ratio = now->ratio;
	c->lo = now->lo;
	c->hi = now->hi;
	if (c->clear_votes)
		c->verdict = now->verdict;
	else if (c->slower_votes >= o->confirmations)
		c->verdict = GATE_VERDICT_SLOWER;
	else
		c->verdict = GATE_VERDICT_UNDECIDED;
}

int confirm_rebench(struct confirm_rebench_result *out, const struct confirm_rebench_options *o,
		    confirm_sample_fn sample, void *data, confirm_progress_fn progress,
		    void *progress_data, struct bl_error *err)
{
	int ret = 0, index = 0, more;

	memset(out, 0, sizeof(*out));
	if (progress) {
		/* Before the first pair: where the pace of what follows is measured from. */
		struct confirm_progress p;
		memset(&p, 0, sizeof(p));
		p.max_pairs = o->max_pairs;
		p.most = (o->confirmations + o->replacements) * o->max_pairs;
		progress(&p, progress_data);
	}
	do {
		struct measurement m = {NULL, 0, 0, 0};
		index++;
		if ((ret =
			 measure(&m, out, o, index, sample, data, progress, progress_data, err))) {
			measurement_release(&m);
			confirm_rebench_release(out);
			return ret;
		}
		out->measurements = (size_t)index;
		out->pairs += m.pairs;
		for (size_t i = 0; i < m.n; i++) {
			struct confirm_metric now, *c = NULL;
			for (size_t k = 0; k < out->n && !c; k++)
				if (!strcmp(out->metrics[k].key, m.s[i].key))
					c = &out->metrics[k];
			if (!c && index > 1)
				continue; /* only the first measurement says what is measured */
			if (!c) {
				out->metrics =
				    xrealloc(out->metrics, (out->n + 1) * sizeof(*out->metrics));
				c = &out->metrics[out->n++];
				memset(c, 0, sizeof(*c));
				c->key = xstrdup(m.s[i].key);
				c->better_higher = m.s[i].better_higher;
				c->asked = asked(c->key, o);
			}
			if (!needs_more(c, o))
				continue;
			memset(&now, 0, sizeof(now));
			judge(&now, &m.s[i], o);
			vote(c, &now, o);
		}
		/* A metric asked about that this measurement did not measure (no usable value on
		 * a side) got no vote: it counts as an undecided one, so the replacements bound
		 * how long it is waited for. */
		for (size_t k = 0; k < out->n; k++) {
			struct confirm_metric *c = &out->metrics[k];
			int met = 0;
			for (size_t i = 0; i < m.n && !met; i++)
				met = !strcmp(m.s[i].key, c->key);
			if (!met && c->asked && needs_more(c, o)) {
				c->measurements++;
				c->undecided_votes++;
			}
		}
		measurement_release(&m);
		/* Only the metrics asked about take further measurements. */
		more = 0;
		for (size_t k = 0; k < out->n; k++)
			more |= out->metrics[k].asked && needs_more(&out->metrics[k], o);
	} while (more);

	/* The verdict is the metrics' asked about; the others are only reported. */
	out->verdict = GATE_VERDICT_UNDECIDED;
	for (size_t k = 0; k < out->n; k++)
		if (out->metrics[k].asked)
			out->verdict = GATE_VERDICT_SAME;
	for (size_t k = 0; k < out->n; k++) {
		enum gate_verdict v = out->metrics[k].verdict;
		if (!out->metrics[k].asked)
			continue;
		if (v == GATE_VERDICT_SLOWER)
			out->verdict = GATE_VERDICT_SLOWER;
		else if (v == GATE_VERDICT_UNDECIDED && out->verdict != GATE_VERDICT_SLOWER)
			out->verdict = GATE_VERDICT_UNDECIDED;
	}
	return 0;
}

void confirm_rebench_release(struct confirm_rebench_result *r)
{
	for (size_t i = 0; i < r->n; i++)
		free((char *)r->metrics[i].key);
	free(r->metrics);
	memset(r, 0, sizeof(*r));
}

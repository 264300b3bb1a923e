/*
 * The pull-request gate (§7): from the head's records and their references to one verdict.
 * docs/gate.md explains the rules in plain words; this file follows it step by step:
 * revisions and source hashes, the reference of each record (walking the merge base's
 * first-parent history), the reference window that gives the Series' own noise, the verdict of
 * each metric, accepted shifts, across the board, and the exit status.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ingest/config/config.h"
#include "ingest/ingest.h"
#include "store/store.h"
#include "detect/detect.h"
#include "detect/gate/gate.h"
#include "detect/ladder/ladder.h"
#include "detect/stats/stats.h"
#include "ingest/repo/repo.h"

/* How far back the gate looks for a reference, and for the records before it. */
#define GATE_MAX_COMMITS  10000
#define GATE_SEARCH_STEPS 256
#define GATE_WINDOW_STEPS 64
#define GATE_WINDOW_BATCH (DETECT_WINDOW - 1)
#define GATE_LEVEL	  0.99
#define GATE_MIN_SAMPLES  5
#define GATE_LOCK_CAP	  (4u << 20)

const char *gate_status_name(enum gate_status s)
{
	static const char *const names[] = {"PASS", "FAIL",	 "SOFT", "ACPT",
					    "EXCL", "UNDECIDED", "NEW",	 "MISSING"};
	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

const char *gate_verdict_name(enum gate_verdict v)
{
	static const char *const names[] = {
	    [GATE_VERDICT_NONE] = NULL,
	    [GATE_VERDICT_SAME] = "same",
	    [GATE_VERDICT_SLOWER] = "slower",
	    [GATE_VERDICT_FASTER] = "faster",
	    [GATE_VERDICT_UNDECIDED] = "undecided",
	};
	return (unsigned)v < sizeof(names) / sizeof(names[0]) ? names[v] : NULL;
}

const char *gate_method_name(enum gate_method m)
{
	static const char *const names[] = {
	    [GATE_METHOD_NONE] = NULL,	       [GATE_METHOD_HL] = "hodges-lehmann",
	    [GATE_METHOD_SUMMARY] = "summary", [GATE_METHOD_COUNTED] = "counted",
	    [GATE_METHOD_LADDER] = "ladder",   [GATE_METHOD_RATIO] = "ratio",
	    [GATE_METHOD_PAIRED] = "paired",   [GATE_METHOD_COUNT] = "count",
	};
	return (unsigned)m < sizeof(names) / sizeof(names[0]) ? names[m] : NULL;
}

const char *gate_mode_name(enum gate_mode m)
{
	return m == GATE_MODE_LIVE ? "live" : "stored";
}

const char *gate_outcome_name(enum gate_outcome o)
{
	static const char *const names[] = {
	    [GATE_OUTCOME_ERROR] = "error",   [GATE_OUTCOME_PASS] = "pass",
	    [GATE_OUTCOME_FAIL] = "fail",     [GATE_NOTHING_TO_COMPARE] = "nothing_to_compare",
	    [GATE_NO_VERDICT] = "no_verdict",
	};
	return (unsigned)o < sizeof(names) / sizeof(names[0]) ? names[o] : "error";
}

static int same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* The records a reference search found for one group: the reference, then the records before
 * it on its line, newest first. */
struct window {
	struct store_gate_record *recs;
	size_t n, alloc;
	const char *rule;
	/* No reference found: the source hashes searched, and the tagged records there. */
	size_t searched, skipped;
	size_t skipped_by_tag[INGEST_NTAGS];
};

static void window_release(struct window *w)
{
	for (size_t i = 0; i < w->n; i++)
		store_gate_record_release(&w->recs[i]);
	free(w->recs);
	memset(w, 0, sizeof(*w));
}

/* Everything one comparison needs while it runs. */
struct gate_walk {
	struct store *st;
	struct store_gate *sg;
	struct repo_history *hist;
	const struct gate_options *opts;
	const struct config *cfg;
	struct ladder_set ladders;
	double limit;
	json_t *lock_entries; /* array, or NULL */
	int ratchet;	      /* the ratchet: lock ceilings apply, their references do not */
};

static const struct store_record_metric *find_metric(const struct store_gate_record *r,
						     const char *name)
{
	for (size_t i = 0; i < r->nmetrics; i++)
		if (!strcmp(r->metrics[i].name, name))
			return &r->metrics[i];
	return NULL;
}

/* Moves a record into the window (what it held is the window's now). */
static void window_take(struct window *w, struct store_gate_record *r)
{
	ALLOC_GROW(w->recs, w->n, w->alloc);
	w->recs[w->n++] = *r;
	memset(r, 0, sizeof(*r));
}

/* Whether a found window wants the records before its last one: not full, not at a break. */
static int window_open(const struct window *w)
{
	return w->n && w->n < DETECT_WINDOW && !w->recs[w->n - 1].baseline;
}

/*
 * A search that found no reference in the first `steps` steps of the history: the source hashes
 * it looked at, and the standing records there that a tag kept from being one (§7.2), so the
 * report can say why.
 */
static int count_skipped(struct window *w, struct gate_walk *gr,
			 const struct store_gate_record *head, size_t steps, struct bl_error *err)
{
	const char **hashes = xcalloc(steps + 1, sizeof(*hashes));
	const char *names[INGEST_NTAGS];
	size_t n = 0;
	int ret = 0;

	for (unsigned i = 0; i < INGEST_NTAGS; i++)
		names[i] = ingest_tag_name(i);
	for (size_t step = 0; step < steps; step++) {
		const char *source;
		if ((ret = repo_history_get(&source, NULL, gr->hist, step, err)) < 0)
			goto done;
		if (ret == 1)
			break;
		if (strcmp(source, head->source_hash))
			hashes[n++] = source;
	}
	ret = 0;
	w->searched = n;
	if (n)
		ret = store_gate_skipped(&w->skipped, w->skipped_by_tag, names, INGEST_NTAGS,
					 gr->st, head->machine_id, head->benchmark_id, head->config,
					 hashes, n, err);
done:
	free(hashes);
	return ret;
}

/* "2 noisy, 1 dirty": the tags that kept candidate references off their Series. */
static void add_skipped_tags(struct strbuf *sb, const size_t *by_tag)
{
	int first = 1;
	for (unsigned i = 0; i < INGEST_NTAGS; i++) {
		if (!by_tag[i])
			continue;
		strbuf_addf(sb, "%s%zu %s", first ? "" : ", ", by_tag[i], ingest_tag_name(i));
		first = 0;
	}
}

/* What a search that found no reference saw: "none in the 12 source hashes searched", or "12
 * source hashes searched, 3 candidates skipped: tagged 2 noisy, 1 dirty". */
static void add_search_summary(struct strbuf *sb, size_t searched, size_t skipped,
			       const size_t *by_tag)
{
	const char *es = searched == 1 ? "" : "es";
	if (!skipped) {
		strbuf_addf(sb, "none in the %zu source hash%s searched", searched, es);
		return;
	}
	strbuf_addf(sb, "%zu source hash%s searched, %zu candidate%s skipped: tagged ", searched,
		    es, skipped, skipped == 1 ? "" : "s");
	add_skipped_tags(sb, by_tag);
}

static int has_machine(const struct gate_comparison *c, const char *machine)
{
	for (size_t i = 0; i < c->nmachines; i++)
		if (!strcmp(c->machines[i], machine))
			return 1;
	return 0;
}

/*
 * What a search on machine that found nothing can be told (§10, one machine name per checkout):
 * when the comparison's own source hash has Series records on other machines but none on this
 * one, "the merge base has records on nc-box, ci-1 (give --machine or set "machine" in
 * benchline.json)". Returns 1 when it added it.
 */
static int add_machines_hint(struct strbuf *sb, const struct gate_comparison *c,
			     const char *machine, int ratchet)
{
	if (!c->nmachines || has_machine(c, machine))
		return 0;
	if (ratchet)
		strbuf_addf(sb, "%s has records on ", c->ref_name ? c->ref_name : "the ratchet");
	else
		strbuf_addstr(sb, "the merge base has records on ");
	for (size_t i = 0; i < c->nmachines; i++)
		strbuf_addf(sb, "%s%s", i ? ", " : "", c->machines[i]);
	strbuf_addstr(sb, " (give --machine or set \"machine\" in benchline.json)");
	return 1;
}

/* The machines of the Series records among recs (by machine, as store_gate_at_source orders
 * them) into c. */
static void take_machines(struct gate_comparison *c, const struct store_gate_record *recs, size_t n)
{
	size_t alloc = 0;
	c->machines_read = 1;
	for (size_t i = 0; i < n; i++) {
		if (recs[i].tagged ||
		    (c->nmachines && !strcmp(c->machines[c->nmachines - 1], recs[i].machine)))
			continue;
		ALLOC_GROW(c->machines, c->nmachines + 1, alloc);
		c->machines[c->nmachines++] = xstrdup(recs[i].machine);
		c->machines[c->nmachines] = NULL;
	}
}

/*
 * Continues a window with records of the steps after its last one (list: one group's records
 * of a batch of steps, by step). Step by step: the record on the reference's line (same
 * harness and content) joins it; a step with no record but the head's own is passed over; a
 * step whose records are all off the line is a break. Returns 1 at a break. Records taken are
 * moved out of list.
 */
static int extend_window(struct window *w, const struct store_gate_record *head,
			 struct store_gate_record *list, size_t n)
{
	size_t at = 0;
	while (at < n && window_open(w)) {
		size_t end = at, pick = SIZE_MAX, others = 0;
		while (end < n && list[end].step == list[at].step)
			end++;
		for (size_t k = at; k < end; k++) {
			if (list[k].run_id == head->run_id)
				continue; /* the head itself, at sources main once had */
			others++;
			if (pick == SIZE_MAX &&
			    list[k].harness_version == w->recs[0].harness_version &&
			    same_str(list[k].content_hash, w->recs[0].content_hash))
				pick = k;
		}
		if (others && pick == SIZE_MAX)
			return 1; /* the line starts after this step */
		if (others)
			window_take(w, &list[pick]);
		at = end;
	}
	return 0;
}

/* The groups of the heads in idx[0..n), for store_gate_groups_in. */
static struct store_gate_group *groups_of(const struct store_gate_record *heads, const size_t *idx,
					  size_t n)
{
	struct store_gate_group *groups = xcalloc(n ? n : 1, sizeof(*groups));
	for (size_t i = 0; i < n; i++) {
		groups[i].machine_id = heads[idx[i]].machine_id;
		groups[i].benchmark_id = heads[idx[i]].benchmark_id;
		groups[i].config = heads[idx[i]].config;
	}
	return groups;
}

/*
 * The records before the references found at ref_step, for the heads in idx[0..n) (each
 * window holds its reference): GATE_WINDOW_BATCH steps at a time, every group in one
 * statement, until each window is full, at a break, or GATE_WINDOW_STEPS steps back.
 */
static int extend_windows(struct window *ws, struct gate_walk *gr,
			  const struct store_gate_record *heads, size_t *idx, size_t n,
			  size_t ref_step, struct bl_error *err)
{
	size_t step = ref_step + 1;
	int ret = 0;

	while (n && step <= ref_step + GATE_WINDOW_STEPS) {
		const char *hashes[GATE_WINDOW_BATCH];
		struct store_gate_record *list = NULL;
		struct store_gate_group *groups;
		size_t nh = 0, nrecs = 0, at = 0, kept = 0;
		while (nh < GATE_WINDOW_BATCH && step + nh <= ref_step + GATE_WINDOW_STEPS) {
			ret = repo_history_get(&hashes[nh], NULL, gr->hist, step + nh, err);
			if (ret < 0)
				return ret;
			if (ret == 1)
				break;
			nh++;
		}
		ret = 0;
		if (!nh)
			break;
		groups = groups_of(heads, idx, n);
		ret = store_gate_groups_in(&list, &nrecs, gr->sg, groups, n, hashes, nh, 0, err);
		free(groups);
		if (ret)
			return ret;
		for (size_t q = 0; q < n; q++) {
			size_t start = at;
			int broken;
			while (at < nrecs && list[at].group == q)
				at++;
			broken =
			    extend_window(&ws[idx[q]], &heads[idx[q]], list + start, at - start);
			if (!broken && nh == GATE_WINDOW_BATCH && window_open(&ws[idx[q]]))
				idx[kept++] = idx[q];
		}
		store_gate_records_free(list, nrecs);
		n = kept;
		step += nh;
	}
	return 0;
}

/*
 * The windows of the heads in need[0..nneed) (indexes into heads; ws is by head), all at once.
 * For each it is the reference of §7.2: the Series record at the newest source hash of the
 * base's first-parent history that has one (step 0 is S(M) itself), the head's harness version
 * preferred; then up to 7 records before it on its line. Each step of the search asks for
 * every group still searching in one statement, and each batch of the windows for every group
 * found at the same step in one, so a gate takes a few statements whatever its size.
 */
static int find_windows(struct window *ws, struct gate_walk *gr,
			const struct store_gate_record *heads, const size_t *need, size_t nneed,
			struct bl_error *err)
{
	size_t *pending = xcalloc(nneed ? nneed : 1, sizeof(*pending));
	size_t *asked = xcalloc(nneed ? nneed : 1, sizeof(*asked));
	size_t *found_at = xcalloc(nneed ? nneed : 1, sizeof(*found_at));
	size_t *found = xcalloc(nneed ? nneed : 1, sizeof(*found));
	size_t npending = nneed, nfound = 0, step;
	int ret = 0;

	memcpy(pending, need, nneed * sizeof(*need));
	for (step = 0; step < GATE_SEARCH_STEPS && npending; step++) {
		struct store_gate_record *list = NULL;
		struct store_gate_group *groups;
		const char *source;
		size_t nasked = 0, nrecs = 0, at = 0, still = 0;
		ret = repo_history_get(&source, NULL, gr->hist, step, err);
		if (ret == 1) {
			ret = 0;
			break;
		}
		if (ret)
			goto done;
		for (size_t i = 0; i < npending; i++)
			if (strcmp(source, heads[pending[i]].source_hash))
				asked[nasked++] = pending[i];
		/* (a head whose sources main once had is that record: it skips the step) */
		if (!nasked)
			continue;
		groups = groups_of(heads, asked, nasked);
		ret =
		    store_gate_groups_in(&list, &nrecs, gr->sg, groups, nasked, &source, 1, 1, err);
		free(groups);
		if (ret)
			goto done;
		for (size_t q = 0; q < nasked; q++) {
			const struct store_gate_record *h = &heads[asked[q]];
			size_t start = at, pick;
			while (at < nrecs && list[at].group == q)
				at++;
			if (at == start)
				continue;
			for (pick = start; pick < at; pick++)
				if (list[pick].harness_version == h->harness_version)
					break;
			window_take(&ws[asked[q]], &list[pick < at ? pick : start]);
			ws[asked[q]].rule = step == 0 ? "merge-base" : "history";
			found[nfound] = asked[q];
			found_at[nfound++] = step;
		}
		store_gate_records_free(list, nrecs);
		for (size_t i = 0; i < npending; i++)
			if (!ws[pending[i]].n)
				pending[still++] = pending[i];
		npending = still;
	}
	/* the searches that found nothing: what they looked at */
	for (size_t i = 0; i < npending; i++)
		if ((ret = count_skipped(&ws[pending[i]], gr, &heads[pending[i]], step, err)))
			goto done;

	/* the windows, a step of the search at a time (found[] is in step order) */
	for (size_t i = 0; i < nfound;) {
		size_t end = i, n = 0;
		while (end < nfound && found_at[end] == found_at[i])
			end++;
		for (size_t k = i; k < end; k++)
			if (window_open(&ws[found[k]]))
				asked[n++] = found[k];
		if ((ret = extend_windows(ws, gr, heads, asked, n, found_at[i], err)))
			goto done;
		i = end;
	}
done:
	free(pending);
	free(asked);
	free(found_at);
	free(found);
	return ret;
}

/* A stored metric's judged value (metric_judged_value). */
static double metric_value(const struct store_record_metric *m)
{
	return metric_judged_value(m->kind, m->median, m->value);
}

static int matches(const char *glob, const char *benchmark, const char *metric)
{
	struct strbuf both = STRBUF_INIT;
	int hit = glob_match(glob, benchmark);
	if (!hit) {
		strbuf_addf(&both, "%s:%s", benchmark, metric);
		hit = glob_match(glob, both.buf);
		strbuf_release(&both);
	}
	return hit;
}

static void set_note(struct gate_row *row, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void set_note(struct gate_row *row, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	if (row->note) {
		strbuf_addstr(&sb, row->note);
		strbuf_addstr(&sb, "; ");
		free(row->note);
	}
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	row->note = strbuf_detach(&sb, NULL);
}

static void side_from(struct gate_side *side, const struct store_gate_record *r,
		      const struct store_record_metric *m)
{
	memcpy(side->commit, r->commit, 41);
	memcpy(side->source_hash, r->source_hash, 41);
	side->run_id = r->run_id;
	side->harness_version = r->harness_version;
	side->content_hash = xstrdup_or_null(r->content_hash);
	side->value = m ? metric_value(m) : NAN;
	side->n = m ? (int64_t)m->nsamples : 0;
}

static void row_init(struct gate_row *row, const struct store_gate_record *r,
		     const struct store_record_metric *m)
{
	memset(row, 0, sizeof(*row));
	row->machine = xstrdup(r->machine);
	row->benchmark = xstrdup(r->benchmark);
	row->config = xstrdup(r->config);
	row->metric = xstrdup(m->name);
	row->kind = m->kind;
	row->unit = xstrdup(m->unit);
	row->better_higher = m->better_higher;
	row->ratio = row->lo = row->hi = NAN;
	row->effective_limit = row->center = row->tolerance = row->noise = NAN;
	row->accepted_ceiling = NAN;
	row->stored_ratio = row->stored_lo = row->stored_hi = row->stored_limit = NAN;
}

/* The §6 band of the reference window for one metric: fills center, tolerance, noise. */
static void window_band(struct gate_row *row, const struct window *w, const char *metric)
{
	double values[DETECT_WINDOW];
	size_t n = 0;
	for (size_t i = 0; i < w->n && n < DETECT_WINDOW; i++) {
		const struct store_record_metric *m = find_metric(&w->recs[i], metric);
		if (m && isfinite(metric_value(m)))
			values[n++] = metric_value(m);
	}
	row->window = (int)n;
	gate_band(&row->center, &row->tolerance, &row->noise, values, n);
}

void gate_band(double *center, double *tolerance, double *noise, double *values, size_t n)
{
	double dev[DETECT_WINDOW], c, deviation;
	*center = *tolerance = *noise = NAN;
	if (n < DETECT_MIN_WINDOW || n > DETECT_WINDOW)
		return;
	c = stats_nr_median(values, n);
	for (size_t i = 0; i < n; i++)
		dev[i] = fabs(values[i] - c);
	deviation = stats_nr_median(dev, n);
	*center = c;
	*tolerance = fmax(DETECT_MAD_FACTOR * deviation, DETECT_FLOOR * fabs(c));
	*noise = c != 0 ? deviation / fabs(c) : NAN;
}

double gate_effective_limit(double limit, double center, double tolerance)
{
	if (!(center > 0) || isnan(tolerance))
		return limit;
	return fmax(limit, 1 + tolerance / center);
}

/* Logs of positive samples; 0 when one is not positive (no ratio scale then). */
static int log_samples(double **out, const struct store_record_metric *m)
{
	double *v = xmalloc((m->nsamples ? m->nsamples : 1) * sizeof(*v));
	for (size_t i = 0; i < m->nsamples; i++) {
		if (!(m->samples[i] > 0) || !isfinite(m->samples[i])) {
			free(v);
			return 0;
		}
		v[i] = log(m->samples[i]);
	}
	*out = v;
	return 1;
}

/* A worse-oriented ratio (above 1 is slower), from head / reference. */
static double worse(double ratio, int better_higher)
{
	return better_higher ? 1 / ratio : ratio;
}

enum gate_verdict gate_interval_verdict(double lo, double hi, double L, int better_higher)
{
	double wl = worse(better_higher ? hi : lo, better_higher);
	double wh = worse(better_higher ? lo : hi, better_higher);
	if (isnan(wl) || isnan(wh))
		return GATE_VERDICT_UNDECIDED;
	if (wl > L)
		return GATE_VERDICT_SLOWER;
	if (wh > L)
		return GATE_VERDICT_UNDECIDED; /* lo <= L < hi: it may be slower, or not */
	/* Not slower: the only question the gate asks is answered. An interval wholly below 1 is
	 * an improvement, however wide; one reaching 1 or above (up to L) is within the limit. */
	return wh < 1 ? GATE_VERDICT_FASTER : GATE_VERDICT_SAME;
}

const char *gate_row_label(const struct gate_row *r)
{
	if (r->status == GATE_PASS && r->verdict == GATE_VERDICT_FASTER)
		return "FASTER";
	return gate_status_name(r->status);
}

void gate_add_undecided(struct strbuf *sb, const struct gate_report *r)
{
	if (!r->undecided)
		return;
	strbuf_addf(sb, ", %zu undecided: " GATE_UNDECIDED_WORDS, r->undecided);
	if (r->undecided_fail)
		strbuf_addstr(sb, ", failing under --undecided fail");
}

/* A comparison's failures and undecided rows, counted from its rows and boards. */
static void count_comparison(struct gate_comparison *c, int undecided_fail)
{
	c->failures = c->undecided = 0;
	for (size_t i = 0; i < c->nrows; i++) {
		c->failures += c->rows[i].status == GATE_FAIL;
		c->undecided += c->rows[i].status == GATE_UNDECIDED;
	}
	for (size_t i = 0; i < c->nboards; i++)
		c->failures += c->boards[i].status == GATE_FAIL;
	if (undecided_fail)
		c->failures += c->undecided;
}

void gate_report_decide(struct gate_report *r)
{
	count_comparison(&r->main, r->undecided_fail);
	count_comparison(&r->ratchet, r->undecided_fail);
	r->failures = r->main.failures + r->ratchet.failures;
	r->undecided = r->main.undecided + r->ratchet.undecided;
	if (r->outcome == GATE_NOTHING_TO_COMPARE || r->outcome == GATE_NO_VERDICT)
		return;
	r->outcome = r->failures ? GATE_OUTCOME_FAIL : GATE_OUTCOME_PASS;
	r->exit_code = r->failures ? 1 : 0;
}

static void judge_timed(struct gate_row *row, const struct store_record_metric *hm,
			const struct store_record_metric *rm)
{
	double L = gate_effective_limit(row->limit, row->center, row->tolerance);
	double *x = NULL, *y = NULL;
	row->effective_limit = L;
	row->ratio = metric_value(hm) / metric_value(rm);

	if (hm->nsamples >= GATE_MIN_SAMPLES && rm->nsamples >= GATE_MIN_SAMPLES &&
	    log_samples(&x, rm) && log_samples(&y, hm)) {
		struct stats_shift shift;
		struct bl_error err = BL_ERROR_INIT;
		if (!stats_hl_shift(&shift, x, rm->nsamples, y, hm->nsamples, GATE_LEVEL, &err)) {
			row->method = GATE_METHOD_HL;
			row->ratio = exp(shift.estimate);
			row->lo = exp(shift.lo);
			row->hi = exp(shift.hi);
			row->verdict =
			    gate_interval_verdict(row->lo, row->hi, L, row->better_higher);
		}
		bl_error_release(&err);
	}
	free(x);
	free(y);
	if (row->method)
		return;

	/* Summaries: the head's median against the reference window's band. */
	row->method = GATE_METHOD_SUMMARY;
	if (!isfinite(row->ratio) || row->ratio <= 0) {
		row->verdict = GATE_VERDICT_NONE;
		set_note(row, "no ratio: the reference is not positive");
		return;
	}
	if (row->window >= DETECT_MIN_WINDOW && row->center > 0) {
		double h = metric_value(hm), to_center = h / row->center;
		int above = h > row->center + row->tolerance;
		int below = h < row->center - row->tolerance;
		double w = worse(to_center, row->better_higher);
		if ((row->better_higher ? below : above) && w > L)
			row->verdict = GATE_VERDICT_SLOWER;
		else if ((row->better_higher ? above : below) && w < 1 / L)
			row->verdict = GATE_VERDICT_FASTER;
		else
			row->verdict = GATE_VERDICT_SAME;
	} else {
		double w = worse(row->ratio, row->better_higher);
		row->verdict = w > L	   ? GATE_VERDICT_SLOWER
			       : w < 1 / L ? GATE_VERDICT_FASTER
					   : GATE_VERDICT_SAME;
	}
}

double gate_counted_tolerance(const struct config *cfg, const char *metric, const char *unit)
{
	for (size_t i = 0; i < cfg->n_counted; i++)
		if (!strcmp(cfg->counted_names[i], metric))
			return cfg->counted_pct[i] / 100;
	if (strstr(metric, "alloc") || strstr(unit, "alloc"))
		return 0;
	return 0.01;
}

static void judge_counted(struct gate_row *row, const struct gate_walk *gr,
			  const struct store_record_metric *hm,
			  const struct store_record_metric *rm)
{
	double tol = gate_counted_tolerance(gr->cfg, hm->name, hm->unit);
	double h = metric_value(hm), r = metric_value(rm);
	if (row->override_glob)
		tol = row->limit - 1; /* an override is the benchmark's own tolerance */
	row->method = GATE_METHOD_COUNTED;
	row->ratio = r != 0 ? h / r : NAN;
	row->effective_limit = 1 + tol;
	if (row->better_higher ? h < r * (1 - tol) : h > r * (1 + tol))
		row->verdict = GATE_VERDICT_SLOWER;
	else if (row->better_higher ? h > r : h < r)
		row->verdict = GATE_VERDICT_FASTER;
	else
		row->verdict = GATE_VERDICT_SAME;
}

/* A plain ratio against the limit: quantiles without a ladder. */
static void judge_ratio(struct gate_row *row, const struct store_record_metric *hm,
			const struct store_record_metric *rm)
{
	double r = metric_value(rm);
	row->method = GATE_METHOD_RATIO;
	row->effective_limit = row->limit;
	row->ratio = r != 0 ? metric_value(hm) / r : NAN;
	if (!isfinite(row->ratio) || row->ratio <= 0) {
		row->verdict = GATE_VERDICT_NONE;
		set_note(row, "no ratio: the reference is not positive");
		return;
	}
	double w = worse(row->ratio, row->better_higher);
	row->verdict = w > row->limit	    ? GATE_VERDICT_SLOWER
		       : w < 1 / row->limit ? GATE_VERDICT_FASTER
					    : GATE_VERDICT_SAME;
}

/* A histogram quantile with a ladder (§8): it fires only past the bucket above its own. */
static void judge_quantile(struct gate_row *row, const struct gate_walk *gr,
			   const struct store_record_metric *hm,
			   const struct store_record_metric *rm)
{
	const struct ladder *l = NULL;
	double b = metric_value(rm), c = metric_value(hm), bound;
	if (!hm->ladder || row->better_higher) {
		judge_ratio(row, hm, rm);
		return;
	}
	l = ladder_find(&gr->ladders, hm->ladder);
	if (!l) {
		judge_ratio(row, hm, rm);
		set_note(row, "ladder '%s' is not defined in benchline.json: judged as a ratio",
			 hm->ladder);
		return;
	}
	row->method = GATE_METHOD_LADDER;
	row->ratio = b != 0 ? c / b : NAN;
	if (strcmp(l->unit, hm->unit)) {
		row->verdict = GATE_VERDICT_SLOWER;
		set_note(row, "unit mismatch: the ladder '%s' is in %s, the metric in %s", l->name,
			 l->unit, hm->unit);
		return;
	}
	bound = ladder_bound(l, b);
	if (isnan(bound)) {
		row->status = GATE_SOFT;
		row->verdict = GATE_VERDICT_NONE;
		set_note(row,
			 "the reference %.6g %s is in the top bucket of ladder '%s': cannot "
			 "be gated",
			 b, hm->unit, l->name);
		return;
	}
	row->effective_limit = b + bound; /* the trip point, hi_next */
	if (ladder_regressed(b, c, bound, 100 * (row->limit - 1)))
		row->verdict = GATE_VERDICT_SLOWER;
	else if (c < b)
		row->verdict = GATE_VERDICT_FASTER;
	else
		row->verdict = GATE_VERDICT_SAME;
	set_note(row, "fires above %.6g %s (floor %.2fx)", b + bound, hm->unit, ladder_floor(l, b));
}

static json_t *lock_entry(const struct gate_walk *gr, const struct gate_row *row)
{
	size_t i;
	json_t *e;
	if (!gr->lock_entries)
		return NULL;
	json_array_foreach (gr->lock_entries, i, e) {
		if (same_str(json_string_value(json_object_get(e, "machine")), row->machine) &&
		    same_str(json_string_value(json_object_get(e, "benchmark")), row->benchmark) &&
		    same_str(json_string_value(json_object_get(e, "config")), row->config) &&
		    same_str(json_string_value(json_object_get(e, "metric")), row->metric))
			return e;
	}
	return NULL;
}

/* An accepted shift (§7.6): a one-sided ceiling that holds while the reference stays put. */
static void apply_lock(struct gate_row *row, const struct gate_walk *gr)
{
	json_t *e = lock_entry(gr, row), *ref;
	const char *src;
	double ref_value, ceiling;
	if (!e)
		return;
	ref = json_object_get(e, "reference");
	src = json_string_value(json_object_get(ref, "source_hash"));
	ref_value = json_number_value(json_object_get(ref, "value"));
	ceiling = json_number_value(json_object_get(e, "ceiling"));
	row->accepted_justification =
	    xstrdup(json_string_value(json_object_get(e, "justification")));
	row->accepted_ceiling = ceiling;
	if (!gr->ratchet &&
	    (!src || strcmp(src, row->ref.source_hash) || ref_value != row->ref.value)) {
		row->accept_stale = 1;
		row->status = GATE_FAIL;
		set_note(row,
			 "stale accept: it was accepted against %.12s (%.6g), the reference is now "
			 "%.12s (%.6g); run 'benchline gate accept' again",
			 src ? src : "?", ref_value, row->ref.source_hash, row->ref.value);
		return;
	}
	if (row->status != GATE_FAIL)
		return;
	if (row->better_higher ? row->head.value >= ceiling : row->head.value <= ceiling) {
		row->status = GATE_ACPT;
		set_note(row, "accepted: %s", row->accepted_justification);
	} else {
		set_note(row, "over the accepted ceiling %.6g", ceiling);
	}
}

void gate_settings_for(struct gate_settings *out, const struct gate_options *o, double limit,
		       const char *benchmark, const char *metric)
{
	const struct config *cfg = o->cfg;
	memset(out, 0, sizeof(*out));
	out->limit = limit;
	for (size_t i = 0; i < o->n_overrides && !out->override_glob; i++)
		if (matches(o->override_globs[i], benchmark, metric)) {
			out->override_glob = o->override_globs[i];
			out->limit = 1 + o->override_pct[i] / 100;
		}
	for (size_t i = 0; i < cfg->n_gate_overrides && !out->override_glob; i++)
		if (matches(cfg->gate_override_globs[i], benchmark, metric)) {
			out->override_glob = cfg->gate_override_globs[i];
			out->limit = 1 + cfg->gate_override_pct[i] / 100;
		}
	for (size_t i = 0; i < o->n_excludes; i++)
		out->excluded |= matches(o->excludes[i], benchmark, metric);
	for (size_t i = 0; i < cfg->n_gate_excludes; i++)
		out->excluded |= matches(cfg->gate_excludes[i], benchmark, metric);
	/* benchline.json's metrics names what is judged, for detect and the gate alike: Google
	 * Benchmark's real and CPU time must not both fail for one regression. */
	if (cfg->judged_metrics) {
		int listed = 0;
		for (size_t i = 0; i < cfg->n_judged_metrics && !listed; i++)
			listed = !strcmp(cfg->judged_metrics[i], metric);
		out->unlisted = !listed;
		out->excluded |= !listed;
	}
}

/* The measured_on of a stored run, NULL when it has none (or cannot be read). */
static json_t *measured_on(struct gate_walk *gr, int64_t run_id)
{
	struct strbuf raw = STRBUF_INIT;
	struct bl_error err = BL_ERROR_INIT;
	json_t *rec = NULL, *on = NULL;
	int found = 0;
	if (!store_run_raw(&raw, &found, gr->st, run_id, &err) && found)
		rec = json_loadb(raw.buf, raw.len, 0, NULL);
	on = json_incref(json_object_get(rec, "measured_on"));
	json_decref(rec);
	strbuf_release(&raw);
	bl_error_release(&err);
	return on;
}

/*
 * §9.6: a count is exact only against one built the same way. When both records carry a
 * build stamp and the stamps differ, the fields of measured_on that differ go into fields
 * ("CFLAGS, cc") and 1 is returned.
 */
static int build_stamps_differ(struct strbuf *fields, struct gate_walk *gr, int64_t head_run,
			       int64_t ref_run)
{
	json_t *h = measured_on(gr, head_run), *r = measured_on(gr, ref_run), *v;
	const char *hs = json_string_value(json_object_get(h, "build_stamp"));
	const char *rs = json_string_value(json_object_get(r, "build_stamp"));
	const char *key;
	int differ = hs && rs && strcmp(hs, rs);
	if (differ) {
		json_object_foreach (h, key, v) {
			if (!strcmp(key, "build_stamp") || json_equal(v, json_object_get(r, key)))
				continue;
			strbuf_addf(fields, "%s%s", fields->len ? ", " : "", key);
		}
		json_object_foreach (r, key, v) {
			if (!json_object_get(h, key))
				strbuf_addf(fields, "%s%s", fields->len ? ", " : "", key);
		}
	}
	json_decref(h);
	json_decref(r);
	return differ;
}

/* §9.6: the growth of benchmark's instruction count an accept allowed (ceiling over its
 * reference, less 1; the largest when several machines' were), 0 when none was accepted. Its
 * timed metrics may run hot by as much on top of their limit: the work they time grew. */
static double accepted_count_growth(const struct gate_walk *gr, const char *benchmark,
				    const char *config)
{
	double growth = 0;
	size_t i;
	json_t *e;
	json_array_foreach (gr->lock_entries, i, e) {
		double ref, ceiling;
		if (!same_str(json_string_value(json_object_get(e, "benchmark")), benchmark) ||
		    !same_str(json_string_value(json_object_get(e, "config")), config) ||
		    !same_str(json_string_value(json_object_get(e, "metric")), METRIC_INSTRUCTIONS))
			continue;
		ref = json_number_value(json_object_get(json_object_get(e, "reference"), "value"));
		ceiling = json_number_value(json_object_get(e, "ceiling"));
		if (ref > 0 && ceiling / ref - 1 > growth)
			growth = ceiling / ref - 1;
	}
	return growth;
}

/* Judges one metric present on both sides. */
static void judge_row(struct gate_row *row, struct gate_walk *gr, const struct store_gate_record *h,
		      const struct window *w, const struct store_record_metric *hm,
		      const struct store_record_metric *rm)
{
	const struct store_gate_record *r = &w->recs[0];
	struct gate_settings set;

	gate_settings_for(&set, gr->opts, gr->limit, h->benchmark, hm->name);
	row->limit = set.limit;
	row->override_glob = set.override_glob;
	row->excluded = set.excluded;
	row->unlisted = set.unlisted;

	row->status = GATE_PASS;
	if (hm->kind != rm->kind) {
		row->status = GATE_SOFT;
		set_note(row, "the metric's kind changed from %s to %s", metric_kind_name(rm->kind),
			 metric_kind_name(hm->kind));
		return;
	}
	if (hm->kind == METRIC_TIMED) {
		double hot = accepted_count_growth(gr, h->benchmark, h->config);
		if (hot > 0) {
			row->limit += hot;
			set_note(row, "limit raised by the accepted %+.1f%% of its instructions",
				 100 * hot);
		}
		window_band(row, w, hm->name);
		judge_timed(row, hm, rm);
	} else if (hm->kind == METRIC_COUNTED) {
		struct strbuf fields = STRBUF_INIT;
		judge_counted(row, gr, hm, rm);
		if (build_stamps_differ(&fields, gr, h->run_id, r->run_id)) {
			/* shown, never failing: the count moved with the build, not the code */
			row->status = GATE_SOFT;
			set_note(row,
				 "build stamp differs (%s): the two counts were built differently",
				 fields.len ? fields.buf : "measured_on");
			strbuf_release(&fields);
			return;
		}
		strbuf_release(&fields);
	} else {
		judge_quantile(row, gr, hm, rm);
	}
	if (strcmp(hm->unit, rm->unit) && row->status != GATE_SOFT) {
		row->verdict = GATE_VERDICT_SLOWER;
		set_note(row, "unit mismatch: the reference is in %s, the head in %s", rm->unit,
			 hm->unit);
	}
	if (row->status == GATE_PASS && row->verdict) {
		if (row->verdict == GATE_VERDICT_SLOWER)
			row->status = GATE_FAIL;
		else if (row->verdict == GATE_VERDICT_UNDECIDED)
			row->status = GATE_UNDECIDED;
	}
	if (h->harness_version != r->harness_version) {
		row->status = GATE_SOFT;
		set_note(row, "harness version %lld -> %lld: the ruler changed",
			 (long long)r->harness_version, (long long)h->harness_version);
	} else if (!same_str(h->content_hash, r->content_hash)) {
		row->status = GATE_SOFT;
		set_note(row, "content hash changed: the benchmark's input changed");
	}
	if (row->status != GATE_SOFT)
		apply_lock(row, gr);
	if (row->excluded) {
		row->status = GATE_EXCL;
		row->accept_stale = 0;
	}
	if (row->unlisted)
		set_note(row, "not in benchline.json's metrics: shown, never failing");
}

static struct gate_row *new_row(struct gate_comparison *c, size_t *alloc)
{
	ALLOC_GROW(c->rows, c->nrows, *alloc);
	return &c->rows[c->nrows++];
}

/* Whether head i is an older harness version of the group of head i - 1 (heads come by group,
 * the newest harness first): that group is compared once, with its newest. */
static int same_group_as_previous(const struct store_gate_record *heads, size_t i)
{
	return i > 0 && heads[i].machine_id == heads[i - 1].machine_id &&
	       heads[i].benchmark_id == heads[i - 1].benchmark_id &&
	       !strcmp(heads[i].config, heads[i - 1].config);
}

/* Compares every head record with its reference in the history of ref_commit. */
static int compare(struct gate_comparison *c, struct gate_walk *gr, struct repo *repo,
		   struct store_gate_record *heads, size_t nheads, struct bl_error *err)
{
	struct window *ws = NULL;
	size_t alloc = 0, *need = NULL, nneed = 0;
	int ret;

	if ((ret = repo_history_open(&gr->hist, repo, c->commit, GATE_MAX_COMMITS, err)))
		return ret;
	ws = xcalloc(nheads ? nheads : 1, sizeof(*ws));
	need = xcalloc(nheads ? nheads : 1, sizeof(*need));
	for (size_t i = 0; i < nheads; i++)
		if (!same_group_as_previous(heads, i))
			need[nneed++] = i;
	if ((ret = find_windows(ws, gr, heads, need, nneed, err)))
		goto done;
	for (size_t j = 0; j < nneed; j++) {
		const struct store_gate_record *h = &heads[need[j]];
		struct window w = ws[need[j]];
		memset(&ws[need[j]], 0, sizeof(w));
		for (size_t k = 0; k < h->nmetrics; k++) {
			const struct store_record_metric *hm = &h->metrics[k];
			const struct store_record_metric *rm =
			    w.n ? find_metric(&w.recs[0], hm->name) : NULL;
			struct gate_row *row = new_row(c, &alloc);
			row_init(row, h, hm);
			row->has_head = 1;
			side_from(&row->head, h, hm);
			row->limit = gr->limit;
			if (!rm) {
				row->status = GATE_NEW;
				if (w.n) {
					set_note(row, "the reference did not measure this metric");
				} else {
					struct strbuf why = STRBUF_INIT;
					add_search_summary(&why, w.searched, w.skipped,
							   w.skipped_by_tag);
					strbuf_addstr(&why, "; ");
					if (!add_machines_hint(&why, c, h->machine, gr->ratchet))
						strbuf_setlen(&why, why.len - 2);
					set_note(row, "no reference record: %s", why.buf);
					strbuf_release(&why);
				}
				continue;
			}
			row->has_ref = 1;
			row->reference_rule = w.rule;
			side_from(&row->ref, &w.recs[0], rm);
			judge_row(row, gr, h, &w, hm, rm);
			c->references++;
		}
		if (!w.n) {
			c->searched = w.searched > c->searched ? w.searched : c->searched;
			c->skipped += w.skipped;
			for (unsigned t = 0; t < INGEST_NTAGS; t++)
				c->skipped_by_tag[t] += w.skipped_by_tag[t];
		}
		/* Metrics the reference measured and the head did not. */
		for (size_t k = 0; w.n && k < w.recs[0].nmetrics; k++) {
			const struct store_record_metric *rm = &w.recs[0].metrics[k];
			struct gate_row *row;
			if (find_metric(h, rm->name))
				continue;
			row = new_row(c, &alloc);
			row_init(row, h, rm);
			row->limit = gr->limit;
			row->has_ref = 1;
			row->reference_rule = w.rule;
			side_from(&row->ref, &w.recs[0], rm);
			row->status = GATE_MISSING;
			set_note(row, "the head did not measure this metric");
		}
		window_release(&w);
	}
done:
	for (size_t j = 0; ws && j < nneed; j++)
		window_release(&ws[need[j]]);
	free(ws);
	free(need);
	repo_history_free(gr->hist);
	gr->hist = NULL;
	return ret;
}

/* Benchmarks the reference measured at S(M) on the head's machines that the head did not
 * run (§7.2): one MISSING row per metric. */
static void add_missing(struct gate_comparison *c, struct gate_walk *gr,
			const struct store_gate_record *heads, size_t nheads,
			const struct store_gate_record *refs, size_t nrefs)
{
	size_t alloc = c->nrows;
	for (size_t i = 0; i < nrefs; i++) {
		const struct store_gate_record *r = &refs[i];
		int on_machine = 0, ran = 0;
		if (r->tagged || (i > 0 && r->machine_id == refs[i - 1].machine_id &&
				  r->benchmark_id == refs[i - 1].benchmark_id &&
				  !strcmp(r->config, refs[i - 1].config)))
			continue;
		for (size_t k = 0; k < nheads; k++) {
			on_machine |= heads[k].machine_id == r->machine_id;
			ran |= heads[k].machine_id == r->machine_id &&
			       heads[k].benchmark_id == r->benchmark_id &&
			       !strcmp(heads[k].config, r->config);
		}
		if (!on_machine || ran)
			continue;
		for (size_t k = 0; k < r->nmetrics; k++) {
			struct gate_row *row = new_row(c, &alloc);
			row_init(row, r, &r->metrics[k]);
			row->limit = gr->limit;
			row->has_ref = 1;
			row->reference_rule = "merge-base";
			side_from(&row->ref, r, &r->metrics[k]);
			row->status = GATE_MISSING;
			set_note(row, "the head did not run this benchmark");
		}
	}
}

void gate_across_the_board(struct gate_comparison *c, double limit, int live)
{
	size_t alloc = 0;
	double *ratios = xmalloc((c->nrows ? c->nrows : 1) * sizeof(*ratios));
	char **done = xcalloc(c->nrows + 1, sizeof(*done));
	size_t ndone = 0;
	for (size_t i = 0; i < c->nrows; i++) {
		const char *metric = c->rows[i].metric;
		size_t n = 0, seen = 0;
		struct gate_board *b;
		struct bl_error err = BL_ERROR_INIT;
		for (size_t k = 0; k < ndone; k++)
			seen |= !strcmp(done[k], metric);
		if (seen)
			continue;
		done[ndone++] = (char *)metric;
		for (size_t k = i; k < c->nrows; k++) {
			const struct gate_row *r = &c->rows[k];
			if (strcmp(r->metric, metric) || r->kind != METRIC_TIMED ||
			    !isfinite(r->ratio) || r->ratio <= 0)
				continue;
			if (r->status != GATE_PASS && r->status != GATE_FAIL &&
			    r->status != GATE_UNDECIDED && r->status != GATE_ACPT)
				continue;
			ratios[n++] = worse(r->ratio, r->better_higher);
		}
		if (n < 8)
			continue;
		qsort(ratios, n, sizeof(*ratios), cmp_double);
		ALLOC_GROW(c->boards, c->nboards, alloc);
		b = &c->boards[c->nboards++];
		memset(b, 0, sizeof(*b));
		b->metric = xstrdup(metric);
		b->n = n;
		b->threshold = 1 + (limit - 1) / 4;
		b->status = GATE_PASS;
		if (stats_median_interval(&b->lo, &b->median, &b->hi, ratios, n, GATE_LEVEL,
					  &err)) {
			b->lo = b->median = b->hi = NAN;
			bl_error_release(&err);
			continue;
		}
		if (b->lo > b->threshold) {
			struct strbuf sb = STRBUF_INIT;
			strbuf_addf(&sb,
				    "slower across the board: the median of %zu ratios is %.4f "
				    "[%.4f, %.4f], above %.4f",
				    n, b->median, b->lo, b->hi, b->threshold);
			if (live) {
				/* Both sides measured now, interleaved: the shift is the change's.
				 */
				b->status = GATE_FAIL;
				c->failures++;
				strbuf_addstr(&sb,
					      "; measured live, interleaved, so it fails the gate");
			} else {
				b->status = GATE_SOFT;
				strbuf_addstr(&sb,
					      "; between stored runs a whole-run shift cannot be "
					      "told from the machine's state: confirm with --live");
			}
			b->note = strbuf_detach(&sb, NULL);
		}
	}
	free(done);
	free(ratios);
}

void gate_row_release(struct gate_row *r)
{
	free(r->machine);
	free(r->benchmark);
	free(r->config);
	free(r->metric);
	free(r->unit);
	free(r->head.content_hash);
	free(r->ref.content_hash);
	free(r->accepted_justification);
	free(r->note);
}

static void comparison_release(struct gate_comparison *c)
{
	for (size_t i = 0; i < c->nrows; i++)
		gate_row_release(&c->rows[i]);
	free(c->rows);
	for (size_t i = 0; i < c->nboards; i++) {
		free(c->boards[i].metric);
		free(c->boards[i].note);
	}
	free(c->boards);
	free(c->ref_name);
	strings_free(c->machines, c->nmachines);
	memset(c, 0, sizeof(*c));
}

void gate_report_release(struct gate_report *r)
{
	comparison_release(&r->main);
	comparison_release(&r->ratchet);
	free(r->head_name);
	free(r->base_name);
	free(r->head_subject);
	free(r->merge_base_subject);
	free(r->message);
	free(r->lock_source);
	json_decref(r->lock);
	json_decref(r->profiles);
	free(r->profiles_markdown);
	free(r->profiles_text);
	free(r->profiles_note);
	free(r->live.dirty_paths);
	for (size_t i = 0; r->measured_paths && i < r->n_measured; i++)
		free(r->measured_paths[i]);
	free(r->measured_paths);
	memset(r, 0, sizeof(*r));
}

int gate_lock_parse(struct json_t **entries_out, const char *text, size_t len, const char *name,
		    struct bl_error *err)
{
	json_error_t jerr;
	json_t *root, *entries, *e;
	size_t i;
	int ret = 0;

	*entries_out = NULL;
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return bl_error_set(err, BL_EINVALID, "%s:%d:%d: %s", name, jerr.line, jerr.column,
				    jerr.text);
	entries = json_object_get(root, "entries");
	if (!json_is_object(root) || !json_is_array(entries) ||
	    json_integer_value(json_object_get(root, "schema")) != 1) {
		ret = bl_error_set(err, BL_EINVALID,
				   "%s: expected {\"schema\": 1, \"entries\": [...]}", name);
		goto done;
	}
	json_array_foreach (entries, i, e) {
		json_t *ref = json_object_get(e, "reference");
		if (!json_is_object(e) || !json_is_string(json_object_get(e, "machine")) ||
		    !json_is_string(json_object_get(e, "benchmark")) ||
		    !json_is_string(json_object_get(e, "config")) ||
		    !json_is_string(json_object_get(e, "metric")) ||
		    !json_is_number(json_object_get(e, "ceiling")) ||
		    !json_is_string(json_object_get(e, "justification")) || !json_is_object(ref) ||
		    !json_is_string(json_object_get(ref, "source_hash")) ||
		    !json_is_number(json_object_get(ref, "value"))) {
			ret = bl_error_set(err, BL_EINVALID,
					   "%s: entries[%zu]: expected machine, benchmark, config, "
					   "metric, ceiling, justification and reference "
					   "{source_hash, value}",
					   name, i);
			goto done;
		}
	}
	*entries_out = json_incref(entries);
done:
	json_decref(root);
	return ret;
}

/*
 * benchline-gate.lock (§7.6): the working copy's when the head is what is checked out (what
 * `gate accept` just wrote, about to be committed), else the one committed at the head.
 */
static int read_lock(struct gate_report *out, struct repo *repo, struct bl_error *err)
{
	struct strbuf text = STRBUF_INIT, path = STRBUF_INIT;
	const char *workdir = repo_workdir(repo);
	json_t *entries = NULL;
	int found = 0, ret = 0;

	if (workdir && out->head_checked_out) {
		strbuf_addf(&path, "%s%s", workdir, GATE_LOCK_FILE);
		ret = read_file_capped(&text, path.buf, GATE_LOCK_CAP, err);
		if (ret == BL_ENOTFOUND || (ret == BL_EIO && access(path.buf, F_OK) != 0)) {
			/* Deleted in the working copy: it will be deleted in the commit too. */
			bl_error_clear(err);
			ret = 0;
			goto done;
		} else if (ret) {
			goto done;
		} else {
			found = 1;
			strbuf_reset(&path);
			strbuf_addstr(&path, GATE_LOCK_FILE);
		}
	}
	if (!found) {
		strbuf_reset(&path);
		strbuf_addf(&path, "%s at %.12s", GATE_LOCK_FILE, out->head_commit);
		if ((ret = repo_read_file(&text, &found, repo, out->head_commit, GATE_LOCK_FILE,
					  GATE_LOCK_CAP, err)))
			goto done;
	}
	if (!found)
		goto done;
	if ((ret = gate_lock_parse(&entries, text.buf, text.len, path.buf, err)))
		goto done;
	out->lock = entries;
	out->lock_source = strbuf_detach(&path, NULL);
done:
	strbuf_release(&text);
	strbuf_release(&path);
	return ret;
}

static int run_comparison(struct gate_comparison *c, struct gate_walk *gr, struct repo *repo,
			  struct store_gate_record *heads, size_t nheads, struct bl_error *err)
{
	/* The records at the comparison's own source hash: its machines, and its MISSING rows. */
	struct store_gate_record *refs = NULL;
	size_t nrefs = 0;
	int ret = store_gate_at_source(&refs, &nrefs, gr->sg, c->source_hash, err);
	if (ret)
		return ret;
	take_machines(c, refs, nrefs);
	if (!(ret = compare(c, gr, repo, heads, nheads, err))) {
		add_missing(c, gr, heads, nheads, refs, nrefs);
		gate_across_the_board(c, gr->limit, 0);
	}
	store_gate_records_free(refs, nrefs);
	return ret;
}

/*
 * No reference for any of the head's records, and the merge base has Series records only on
 * other machines than some of the head's groups (the head measured under another machine name,
 * §10): "no reference for m1/town at 1234abcd1234: the merge base has records on nc-box, ci-1
 * (give --machine or set "machine" in benchline.json)", naming up to 3 such groups. 0 when
 * that is not the case.
 */
static int machines_message(struct strbuf *sb, const struct gate_comparison *c,
			    const struct store_gate_record *heads, size_t nheads)
{
	size_t listed = 0, more = 0;
	const char *machine = NULL;
	for (size_t i = 0; i < nheads; i++) {
		if (same_group_as_previous(heads, i) || has_machine(c, heads[i].machine))
			continue;
		if (!machine)
			machine = heads[i].machine;
		if (listed == 3) {
			more++;
			continue;
		}
		strbuf_addstr(sb, listed++ ? ", " : "no reference for ");
		strbuf_addf(sb, "%s/%s%s%s", heads[i].machine, heads[i].benchmark,
			    heads[i].config[0] ? " " : "", heads[i].config);
	}
	if (!listed || !c->nmachines) {
		strbuf_reset(sb);
		return 0;
	}
	if (more)
		strbuf_addf(sb, " and %zu more", more);
	strbuf_addf(sb, " at %.12s: ", c->commit);
	add_machines_hint(sb, c, machine, 0);
	return 1;
}

/* §7.9's exit 4: no verdict is possible, and the message says why. */
static void no_verdict(struct gate_report *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void no_verdict(struct gate_report *out, const char *fmt, ...)
{
	struct strbuf msg = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	out->outcome = GATE_NO_VERDICT;
	out->exit_code = 4;
	out->message = strbuf_detach(&msg, NULL);
}

/* A commit's subject for the report, NULL when it cannot be read (it only decorates). */
static char *commit_subject(struct repo *repo, const char *sha)
{
	struct strbuf sb = STRBUF_INIT;
	struct bl_error err = BL_ERROR_INIT;
	if (repo_commit_subject(&sb, repo, sha, &err)) {
		bl_error_release(&err);
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

int gate_bisect_exit(int status)
{
	return status == 2 || status == 4 ? GATE_EXIT_SKIP : status;
}

int gate_report_begin(struct gate_report *out, struct repo *repo, const struct gate_options *opts,
		      struct bl_error *err)
{
	const struct config *cfg = opts->cfg;
	struct strbuf name = STRBUF_INIT;
	char base_source[41]; /* unused: the merge base's source hash is what is compared */
	int ret;

	memset(out, 0, sizeof(*out));
	out->limit = opts->limit > 0	   ? opts->limit
		     : cfg->gate_limit > 0 ? cfg->gate_limit
					   : GATE_LIMIT;
	out->unix_time = opts->now;
	out->undecided_fail = opts->undecided_fail;
	if (cfg->measured_paths) {
		/* A copy: the report outlives the settings (the server releases them). */
		out->measured_paths = xcalloc(cfg->n_measured + 1, sizeof(char *));
		for (size_t i = 0; i < cfg->n_measured; i++)
			out->measured_paths[i] = xstrdup(cfg->measured_paths[i]);
		out->n_measured = cfg->n_measured;
	}
	out->exit_code = 0;

	if ((ret = repo_resolve(out->head_commit, out->head_source, &name, repo,
				opts->head ? opts->head : "HEAD", err)))
		goto done;
	out->head_name = strbuf_detach(&name, NULL);
	if ((ret = repo_resolve(out->base_commit, base_source, &name, repo, opts->base, err)))
		goto done;
	out->base_name = strbuf_detach(&name, NULL);
	out->main.ref_name = xstrdup(out->base_name);
	if ((ret = repo_merge_base(out->main.commit, out->main.source_hash, repo, out->head_commit,
				   out->base_commit, err)))
		goto done;
	out->head_subject = commit_subject(repo, out->head_commit);
	out->merge_base_subject = commit_subject(repo, out->main.commit);
	if (repo_checkout(out->checkout_commit, repo))
		out->head_checked_out = !strcmp(out->checkout_commit, out->head_commit);
	if (opts->ratchet) {
		out->have_ratchet = 1;
		out->ratchet.ref_name = xstrdup(opts->ratchet);
		if ((ret = repo_resolve(out->ratchet.commit, out->ratchet.source_hash, NULL, repo,
					opts->ratchet, err)))
			goto done;
	}

	if (!strcmp(out->head_source, out->main.source_hash)) {
		struct strbuf msg = STRBUF_INIT;
		out->outcome = GATE_NOTHING_TO_COMPARE;
		if (cfg->measured_paths) {
			strbuf_addstr(&msg, "the measured paths (");
			for (size_t i = 0; i < cfg->n_measured; i++)
				strbuf_addf(&msg, "%s%s", i ? ", " : "", cfg->measured_paths[i]);
			strbuf_addstr(&msg, ")");
		} else {
			strbuf_addstr(&msg, "every top-level path (benchline.json lists no "
					    "measured_paths)");
		}
		strbuf_addf(&msg,
			    " are the same at %.12s and at the merge base %.12s: nothing "
			    "to compare",
			    out->head_commit, out->main.commit);
		out->message = strbuf_detach(&msg, NULL);
	}
done:
	strbuf_release(&name);
	return ret;
}

int gate_run(struct gate_report *out, struct store *st, const struct gate_options *opts,
	     struct bl_error *err)
{
	struct repo *repo = NULL;
	struct gate_walk gr;
	struct store_gate_record *heads = NULL;
	size_t nheads = 0;
	const struct config *cfg = opts->cfg;
	int ret;

	memset(out, 0, sizeof(*out));
	memset(&gr, 0, sizeof(gr));
	ladder_set_init(&gr.ladders);
	gr.opts = opts;
	gr.cfg = cfg;
	gr.st = st;

	if (cfg->ladders &&
	    (ret = ladder_set_from_json(&gr.ladders, cfg->ladders,
					cfg->path ? cfg->path : "benchline.json", err)))
		goto done;
	if ((ret = repo_open(&repo, opts->repo_dir, cfg, err)) ||
	    (ret = gate_report_begin(out, repo, opts, err)))
		goto done;
	gr.limit = out->limit;
	if (out->outcome == GATE_NOTHING_TO_COMPARE)
		goto done;

	if ((ret = read_lock(out, repo, err)))
		goto done;
	gr.lock_entries = opts->no_lock ? NULL : out->lock;
	if ((ret = store_gate_open(&gr.sg, st, err)))
		goto done;
	if ((ret = store_gate_at_source(&heads, &nheads, gr.sg, out->head_source, err)))
		goto done;
	if (!nheads) {
		no_verdict(out,
			   "no clean record at the head's source hash %.12s (commit %.12s): "
			   "ingest the head's benchmark results first",
			   out->head_source, out->head_commit);
		goto done;
	}
	if ((ret = run_comparison(&out->main, &gr, repo, heads, nheads, err)))
		goto done;
	gr.ratchet = 1;
	if (out->have_ratchet &&
	    (ret = run_comparison(&out->ratchet, &gr, repo, heads, nheads, err)))
		goto done;
	if (!out->main.references) {
		struct strbuf why = STRBUF_INIT;
		if (machines_message(&why, &out->main, heads, nheads)) {
			no_verdict(out, "%s", why.buf);
			strbuf_release(&why);
			gate_report_decide(out);
			goto done;
		}
		add_search_summary(&why, out->main.searched, out->main.skipped,
				   out->main.skipped_by_tag);
		if (out->main.skipped)
			strbuf_addstr(&why, " (a reference is a Series record: standing, with no "
					    "tag)");
		no_verdict(out,
			   "no reference for any of the head's %zu records in the history of the "
			   "merge base %.12s: %s",
			   nheads, out->main.commit, why.buf);
		strbuf_release(&why);
	}
	gate_report_decide(out);
done:
	store_gate_records_free(heads, nheads);
	store_gate_close(gr.sg);
	ladder_set_release(&gr.ladders);
	repo_free(repo);
	return ret;
}

/* "GLOB=PCT" into its parts; 0, or -1 when it is not that shape. */
static int split_override(char **glob, double *pct, const char *arg)
{
	const char *eq = strrchr(arg, '=');
	char *end;
	if (!eq || eq == arg || !eq[1])
		return -1;
	errno = 0;
	*pct = strtod(eq + 1, &end);
	if (errno || *end || !(*pct >= 0))
		return -1;
	*glob = xstrndup(arg, (size_t)(eq - arg));
	return 0;
}

int gate_check_limit(double limit, struct bl_error *err)
{
	char text[DOUBLE_TEXT_MAX];
	/* NaN fails both comparisons; an infinity the second. */
	if (limit != 0 && !(limit > 1 && limit <= CONFIG_LIMIT_MAX)) {
		snprintf(text, sizeof(text), "%g", limit);
		return bl_error_set(err, BL_EINVALID,
				    "--limit is a ratio above 1 and at most %g (1.02 lets a metric "
				    "grow by 2%%), not %s",
				    CONFIG_LIMIT_MAX, text);
	}
	return 0;
}

int gate_options_build(struct gate_options *out, const struct gate_request *req,
		       struct bl_error *err)
{
	int ret;

	memset(out, 0, sizeof(*out));
	strbuf_init(&out->root, 0);
	if ((ret = gate_check_limit(req->limit, err)))
		return ret;
	out->own_globs = xcalloc(req->n_overrides + 1, sizeof(*out->own_globs));
	out->own_pct = xcalloc(req->n_overrides + 1, sizeof(*out->own_pct));
	out->n_overrides = req->n_overrides;
	for (size_t i = 0; i < req->n_overrides; i++)
		if (split_override(&out->own_globs[i], &out->own_pct[i], req->overrides[i])) {
			ret = bl_error_set(err, BL_EINVALID,
					   "--override '%s': expected GLOB=PCT, e.g. 'parse_*=5'",
					   req->overrides[i]);
			goto fail;
		}
	/* benchline.json, the lock and the status file live at the repository's root. */
	out->own_cfg = xmalloc(sizeof(*out->own_cfg));
	config_init(out->own_cfg);
	if ((ret = repo_toplevel(&out->root, req->repo ? req->repo : ".", err)) ||
	    (ret = config_load(out->own_cfg, out->root.buf, err)))
		goto fail;
	out->repo_dir = out->root.buf;
	out->cfg = out->own_cfg;
	out->head = req->head;
	out->base = req->base;
	out->ratchet = req->ratchet;
	out->limit = req->limit;
	out->override_globs = (const char *const *)out->own_globs;
	out->override_pct = out->own_pct;
	out->excludes = req->excludes;
	out->n_excludes = req->n_excludes;
	out->no_lock = req->for_accept;
	out->undecided_fail = req->undecided_fail;
	out->allow_dirty = req->allow_dirty;
	out->counters_only = req->counters_only;
	out->no_reuse = req->no_reuse;
	out->counter_db = req->counter_db;
	out->now = req->now;
	return 0;
fail:
	gate_options_release(out);
	return ret;
}

void gate_options_release(struct gate_options *o)
{
	for (size_t i = 0; o->own_globs && i < o->n_overrides; i++)
		free(o->own_globs[i]);
	free(o->own_globs);
	free(o->own_pct);
	if (o->own_cfg)
		config_release(o->own_cfg);
	free(o->own_cfg);
	strbuf_release(&o->root);
	memset(o, 0, sizeof(*o));
	strbuf_init(&o->root, 0);
}

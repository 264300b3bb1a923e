/*
 * `benchline detect`: brings the stored lines and Suspects up to date, in one transaction.
 *
 * Three ways to get there, chosen from the store's change log (docs/detection.md):
 * - full: every Series is read in bulk (store_detect_scan, in passes of bounded memory), cut
 *   into lines and judged; on the first run, with --all, when the judged metrics changed, or
 *   when so much changed that reading everything is cheaper;
 * - append: a record that joined its Series after every record already on it continues its
 *   line from the line's stored tail (the band's memory of its last 8 judged records), so a
 *   nightly sweep costs one small read and one line update per new record;
 * - walk: a group whose records changed anywhere else (a record removed, one inserted in the
 *   middle, places moved by new commits) is read whole and its lines rebuilt.
 * Lines are compared with what was stored by their start and a fingerprint of their members,
 * so `lines_recomputed` counts the lines whose members changed.
 *
 * After the band, each judged timed line that changed is searched for change points (§6.1):
 * the whole line, so a continued line reads its stored medians (line_values) first and
 * stores the new ones. The searches run beside the walk (search.c); their Suspects, of kind
 * change-point, go to the alert pass like the band's.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "detect/detect.h"
#include "ingest/config/config.h"
#include "detect/ladder/ladder.h"

#define DEFAULT_PASS_MEMBERS ((size_t)1 << 19)
#define DEFAULT_PASS_POINTS  ((size_t)1 << 20)
/* More commits stored since the last detect than this: read everything. */
#define MAX_LOGGED_COMMITS 512

/* A line as the last detect stored it, to tell whether it changed. */
struct old_line {
	int64_t machine_id, benchmark_id, start_run_id, records, fingerprint;
	char *config, *metric;
	enum line_break reason;
};

/* A Suspect as stored before this run (mark.metric points at metric). */
struct old_mark {
	struct store_mark mark;
	char *metric;
	int matched;
};

struct detect_ctx {
	double counter_floor; /* the band's floor for instruction Series (§9.6) */
	struct store *st;
	struct store_detect *d;
	const struct detect_options *opts;
	struct detect_result *res;
	/* the judged metrics: all timed ones when all_timed */
	char **judged;
	size_t njudged;
	int all_timed;
	signed char *judged_cache; /* per metric interned in judged_for: -1 unknown, 0, 1 */
	size_t judged_cache_n;
	const struct store_members *judged_for; /* NULL: the cache is stale */
	/* Quantile metrics named in `metrics` are judged by their ladder (§8): the ladders of
	 * benchline.json (kept with the judged metrics), and per interned metric the ladder its
	 * records name, found once per name. */
	json_t *ladders_json;
	struct ladder_set ladders;
	char **ladder_names;		    /* metric names looked up, in order */
	const struct ladder **ladder_found; /* their ladders, NULL when none */
	size_t nladder_names, ladder_names_alloc;
	const struct ladder **ladder_cache; /* per metric interned in judged_for */
	/* what was stored, for the lines and Suspects being rebuilt */
	struct old_line *old_lines;
	size_t nold_lines, old_lines_alloc;
	int count_all; /* --all: every line counts as recomputed */
	struct old_mark *old_marks;
	size_t nold_marks, old_marks_alloc;
	/* The commits bisection pinned (§9.3), by Series: each starts a line. */
	struct store_pinned *pinned;
	size_t npinned;
	struct strbuf tail;
	/* The alert pass (alerts.c): every Suspect goes through it, written when it is done. */
	struct detect_alerts *alerts;
	/* The change-point pass (§6.1): its settings, the searches running beside the walk
	 * (made when the first line is given), and buffers for values and commits. */
	int cp_on;
	struct detect_change_options cp_opts;
	struct detect_search *search;
	struct strbuf cp_buf, cp_commit;
	/* A full walk counts the Series each machine judges at each commit as it goes (the
	 * alert pass's run-wide test), per machine by the members' commit number. */
	int counting;
	struct judged_counts {
		int64_t machine_id;
		int64_t *n;
		size_t alloc;
	} * judged_counts;
	size_t njudged_counts, judged_counts_alloc, judged_counts_last;
};

/* One Series' current line while a group is processed. */
struct line_state {
	int open, grown, is_new;
	int64_t id; /* the stored line's id, 0 while new */
	int64_t line;
	enum line_break reason;
	int64_t start_run_id, records;
	uint64_t fp;
	int64_t harness_version;
	const char *content; /* NULL: none (points into the members or the stored lines) */
	int64_t last_run_id;
	double last_place, last_at, last_started_at, time_placed_at;
	int judged;
	struct detect_tail tail;
	/* In a rebuild, the Suspects marked in the tail's window: stored once their followers
	 * are final (they leave the window, or the line ends), so each is written once. */
	struct store_mark pending[DETECT_WINDOW];
	size_t npending;
	/* The change-point pass: a line with judged timed values (cp) keeps them all, the
	 * direction of its last; a continued line starts with its stored ones (stored_n of
	 * them) and where the last search found changes. */
	int cp, cp_higher;
	struct detect_values vals;
	size_t stored_n;
	size_t *old_changes, nold;
	struct detect_fpop fpop;
};

/* A line handed to the change-point search, with what taking it back needs. */
struct cp_line {
	struct detect_search_line s; /* first: the search's part */
	struct store_group g;	     /* config owned */
	char *metric;
	int64_t line_id;
	int rebuilt;	 /* 1: its group is being rebuilt (old_marks); 0: a continued line */
	size_t stored_n; /* its values already stored */
	size_t *old_changes, nold;
};

static void cp_line_free(struct detect_search_line *sl)
{
	struct cp_line *l = (struct cp_line *)sl;
	detect_values_release(&l->s.v);
	detect_fpop_release(&l->s.state);
	free(l->s.changes);
	free(l->g.config);
	free(l->metric);
	free(l->old_changes);
	free(l);
}

static void line_cp_release(struct line_state *ls)
{
	detect_values_release(&ls->vals);
	detect_fpop_release(&ls->fpop);
	free(ls->old_changes);
	ls->old_changes = NULL;
	ls->nold = ls->stored_n = 0;
	ls->cp = 0;
}

/* qsort and bsearch, for arrays that may be empty (and then NULL). */
static void sort_array(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

static void *find_in(const void *key, const void *base, size_t n, size_t size,
		     int (*cmp)(const void *, const void *))
{
	return n ? bsearch(key, base, n, size, cmp) : NULL;
}

/* Series order: machine id, benchmark id, config, metric (each side's four in that order). */
static int series_order(int64_t machine_a, int64_t benchmark_a, const char *config_a,
			const char *metric_a, int64_t machine_b, int64_t benchmark_b,
			const char *config_b, const char *metric_b)
{
	int c;
	if (machine_a != machine_b)
		return machine_a < machine_b ? -1 : 1;
	if (benchmark_a != benchmark_b)
		return benchmark_a < benchmark_b ? -1 : 1;
	if ((c = strcmp(config_a, config_b)))
		return c;
	return strcmp(metric_a, metric_b);
}

static int old_line_cmp(const void *a, const void *b)
{
	const struct old_line *x = a, *y = b;
	int c = series_order(x->machine_id, x->benchmark_id, x->config, x->metric, y->machine_id,
			     y->benchmark_id, y->config, y->metric);
	if (c)
		return c;
	return x->start_run_id < y->start_run_id ? -1 : x->start_run_id > y->start_run_id;
}

static int old_mark_cmp(const void *a, const void *b)
{
	const struct old_mark *x = a, *y = b;
	int c;
	if (x->mark.run_id != y->mark.run_id)
		return x->mark.run_id < y->mark.run_id ? -1 : 1;
	if ((c = strcmp(x->metric, y->metric)))
		return c;
	return (int)x->mark.kind - (int)y->mark.kind;
}

static void old_lines_clear(struct detect_ctx *c)
{
	for (size_t i = 0; i < c->nold_lines; i++) {
		free(c->old_lines[i].config);
		free(c->old_lines[i].metric);
	}
	c->nold_lines = 0;
}

static void old_marks_clear(struct detect_ctx *c)
{
	for (size_t i = 0; i < c->nold_marks; i++)
		free(c->old_marks[i].metric);
	c->nold_marks = 0;
}

static int collect_old_line(const struct store_line *l, void *data)
{
	struct detect_ctx *c = data;
	struct old_line *o;
	ALLOC_GROW(c->old_lines, c->nold_lines, c->old_lines_alloc);
	o = &c->old_lines[c->nold_lines++];
	o->machine_id = l->machine_id;
	o->benchmark_id = l->benchmark_id;
	o->start_run_id = l->start_run_id;
	o->records = l->records;
	o->fingerprint = l->fingerprint;
	o->config = xstrdup(l->config);
	o->metric = xstrdup(l->metric);
	o->reason = l->reason;
	return 0;
}

static int collect_old_mark(const struct store_mark *m, void *data)
{
	struct detect_ctx *c = data;
	struct old_mark *o;
	ALLOC_GROW(c->old_marks, c->nold_marks, c->old_marks_alloc);
	o = &c->old_marks[c->nold_marks++];
	o->mark = *m;
	o->metric = xstrdup(m->metric);
	o->mark.metric = o->metric;
	o->mark.config = NULL;
	o->mark.commit = NULL;
	o->matched = 0;
	return 0;
}

static int pinned_series_cmp(const void *a, const void *b)
{
	const struct store_pinned *x = a, *y = b;
	return series_order(x->machine_id, x->benchmark_id, x->config, x->metric, y->machine_id,
			    y->benchmark_id, y->config, y->metric);
}

/* Loads the stored lines and Suspects of one group (g), or of all (g NULL). */
static int load_old(struct detect_ctx *c, const struct store_group *g, struct bl_error *err)
{
	int ret;
	old_lines_clear(c);
	old_marks_clear(c);
	if (!c->count_all && (ret = store_detect_lines(c->d, g, collect_old_line, c, err)))
		return ret;
	if ((ret = store_detect_suspects(c->d, g, collect_old_mark, c, err)))
		return ret;
	sort_array(c->old_lines, c->nold_lines, sizeof(*c->old_lines), old_line_cmp);
	sort_array(c->old_marks, c->nold_marks, sizeof(*c->old_marks), old_mark_cmp);
	return 0;
}

/* Drops the stored Suspects no recomputed line marks any more, unless a measurement or a
 * person has decided them (confirmed, cleared, covered, ignored: those decisions are kept).
 * Pending and transient are no decisions: they were read off the line, which no longer marks
 * the record. */
static void drop_unmatched(struct detect_ctx *c)
{
	for (size_t i = 0; i < c->nold_marks; i++) {
		if (c->old_marks[i].matched || !detect_state_undecided(c->old_marks[i].mark.state))
			continue;
		detect_alerts_drop(c->alerts, &c->old_marks[i].mark);
	}
}

/* One more judged Series of group g's machine at the member's commit (a full walk only). */
static void count_judged(struct detect_ctx *c, const struct store_group *g, uint32_t commit)
{
	struct judged_counts *jc = NULL;
	size_t i = c->judged_counts_last;
	if (i < c->njudged_counts && c->judged_counts[i].machine_id == g->machine_id)
		jc = &c->judged_counts[i];
	for (i = 0; !jc && i < c->njudged_counts; i++)
		if (c->judged_counts[i].machine_id == g->machine_id)
			jc = &c->judged_counts[i];
	if (!jc) {
		ALLOC_GROW(c->judged_counts, c->njudged_counts, c->judged_counts_alloc);
		jc = &c->judged_counts[c->njudged_counts++];
		memset(jc, 0, sizeof(*jc));
		jc->machine_id = g->machine_id;
	}
	c->judged_counts_last = (size_t)(jc - c->judged_counts);
	if (commit >= jc->alloc) {
		size_t grown = jc->alloc ? 2 * jc->alloc : 1024;
		while (grown <= commit)
			grown *= 2;
		jc->n = xrealloc(jc->n, grown * sizeof(*jc->n));
		memset(jc->n + jc->alloc, 0, (grown - jc->alloc) * sizeof(*jc->n));
		jc->alloc = grown;
	}
	jc->n[commit]++;
}

/* Hands a full walk's counts to the alert pass; commits names the members' commit numbers. */
static void judged_counts_flush(struct detect_ctx *c, const struct intern *commits)
{
	for (size_t i = 0; i < c->njudged_counts; i++) {
		struct judged_counts *jc = &c->judged_counts[i];
		for (size_t k = 0; k < jc->alloc && k < commits->nr; k++)
			if (jc->n[k])
				detect_alerts_judged(c->alerts, jc->machine_id, commits->strings[k],
						     jc->n[k]);
		free(jc->n);
	}
	free(c->judged_counts);
	c->judged_counts = NULL;
	c->njudged_counts = c->judged_counts_alloc = c->judged_counts_last = 0;
}

/* The ladder a quantile metric's records name, looked up once per detect. */
static const struct ladder *metric_ladder(struct detect_ctx *c, const char *metric)
{
	char *name = NULL;
	const struct ladder *l = NULL;
	struct bl_error err = BL_ERROR_INIT;
	for (size_t i = 0; i < c->nladder_names; i++)
		if (!strcmp(c->ladder_names[i], metric))
			return c->ladder_found[i];
	/* A failed lookup judges nothing, as a metric without a ladder would not be. */
	if (!store_detect_metric_ladder(&name, c->d, metric, &err) && name)
		l = ladder_find(&c->ladders, name);
	free(name);
	bl_error_release(&err);
	ALLOC_GROW(c->ladder_names, c->nladder_names, c->ladder_names_alloc);
	c->ladder_found =
	    xrealloc(c->ladder_found, c->ladder_names_alloc * sizeof(*c->ladder_found));
	c->ladder_names[c->nladder_names] = xstrdup(metric);
	c->ladder_found[c->nladder_names++] = l;
	return l;
}

/* Whether a point is judged: a timed metric of the judged set (all of them by default), or
 * a quantile metric the set names whose records name a ladder benchline.json defines. */
static int is_judged(struct detect_ctx *c, const struct store_members *m,
		     const struct store_point *p)
{
	if (p->kind == METRIC_COUNTED) /* §9.6: instruction counts, whatever `metrics` says */
		return !isnan(p->value) &&
		       !strcmp(m->metrics.strings[p->metric], METRIC_INSTRUCTIONS);
	if (isnan(p->value) || (p->kind != METRIC_TIMED && p->kind != METRIC_QUANTILE))
		return 0;
	if (c->all_timed)
		return p->kind == METRIC_TIMED;
	if (c->judged_for != m) {
		/* Metric indexes belong to one members list: each walk, append and full read
		 * clears judged_for when it starts its own. */
		c->judged_for = m;
		if (c->judged_cache_n) {
			memset(c->judged_cache, -1, c->judged_cache_n);
			memset(c->ladder_cache, 0, c->judged_cache_n * sizeof(*c->ladder_cache));
		}
	}
	if (p->metric >= c->judged_cache_n) {
		size_t n = m->metrics.nr > p->metric ? m->metrics.nr : p->metric + 1;
		c->judged_cache = xrealloc(c->judged_cache, n);
		memset(c->judged_cache + c->judged_cache_n, -1, n - c->judged_cache_n);
		c->ladder_cache = xrealloc(c->ladder_cache, n * sizeof(*c->ladder_cache));
		memset(c->ladder_cache + c->judged_cache_n, 0,
		       (n - c->judged_cache_n) * sizeof(*c->ladder_cache));
		c->judged_cache_n = n;
	}
	if (c->judged_cache[p->metric] < 0) {
		const char *name = m->metrics.strings[p->metric];
		c->judged_cache[p->metric] = 0;
		for (size_t i = 0; i < c->njudged; i++)
			if (!strcmp(c->judged[i], name))
				c->judged_cache[p->metric] = 1;
		if (c->judged_cache[p->metric] && p->kind == METRIC_QUANTILE) {
			c->ladder_cache[p->metric] = metric_ladder(c, name);
			c->judged_cache[p->metric] = c->ladder_cache[p->metric] != NULL;
		}
	}
	return c->judged_cache[p->metric] &&
	       (p->kind == METRIC_TIMED || c->ladder_cache[p->metric] != NULL);
}

static int same_double(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

/* Whether a stored Suspect already says what a new mark says. */
static int same_mark(const struct store_mark *a, const struct store_mark *b)
{
	return a->side == b->side && same_double(a->shift, b->shift) && a->median == b->median &&
	       a->center == b->center && a->tolerance == b->tolerance &&
	       same_double(a->deviation, b->deviation) &&
	       a->reference_run_id == b->reference_run_id &&
	       a->follows_run_id == b->follows_run_id && a->followers == b->followers &&
	       a->persisted == b->persisted;
}

/* The stored Suspect of a mark's (run, metric, kind) into found, *have 0 when there is none:
 * in a rebuild from old_marks (and marked matched there), else, when a line is only continued
 * (use_old 0), looked up. */
static int stored_mark(int *have, struct store_mark *found, struct detect_ctx *c,
		       const struct store_mark *mk, int use_old, struct bl_error *err)
{
	struct store_group g = {mk->machine_id, mk->benchmark_id, (char *)mk->config};
	struct old_mark key, *o;
	*have = 0;
	if (!use_old)
		return store_detect_suspect_find(have, found, c->d, &g, mk->run_id, mk->metric,
						 mk->kind, NULL, err);
	key.mark.run_id = mk->run_id;
	key.mark.kind = mk->kind;
	key.metric = (char *)mk->metric;
	o = find_in(&key, c->old_marks, c->nold_marks, sizeof(*c->old_marks), old_mark_cmp);
	if (o) {
		o->matched = 1;
		*have = 1;
		*found = o->mark;
	}
	return 0;
}

/* Hands a mark to the alert pass (stored: the Suspect stored for it, NULL when it is new). */
static void hand_mark(struct detect_ctx *c, const struct store_mark *mk,
		      const struct store_mark *stored)
{
	if (!stored)
		c->res->new_suspects++;
	detect_alerts_put(c->alerts, mk, stored, mk->commit);
}

/* Hands a mark to the alert pass: a Suspect already stored for its (run, metric) keeps its id
 * (and its alert, unless §9.1 moves it) and takes the new numbers, unless they are the stored
 * ones; otherwise it is new. */
static int put_mark(struct detect_ctx *c, const struct store_mark *mk, int use_old,
		    struct bl_error *err)
{
	struct store_mark found;
	int have, ret;
	if ((ret = stored_mark(&have, &found, c, mk, use_old, err)))
		return ret;
	if (!have || !same_mark(&found, mk))
		hand_mark(c, mk, have ? &found : NULL);
	return 0;
}

/* Stores the pending Suspect i of a rebuilt line and drops it from the pending ones. */
static int put_pending(struct detect_ctx *c, struct line_state *ls, size_t i, struct bl_error *err)
{
	int ret = put_mark(c, &ls->pending[i], 1, err);
	memmove(ls->pending + i, ls->pending + i + 1,
		(ls->npending - i - 1) * sizeof(ls->pending[0]));
	ls->npending--;
	return ret;
}

/* A record's new follower counts for the mark it followed: kept with the pending Suspect in a
 * rebuild (stored when final), written to the stored one when a line is continued. */
static int follow_mark(struct detect_ctx *c, struct line_state *ls, const struct store_group *g,
		       const char *metric, const struct detect_followed *f, int final, int use_old,
		       struct bl_error *err)
{
	if (!use_old)
		return detect_alerts_follow(c->alerts, c->d, g, f->id, metric, f->followers,
					    f->persisted, err);
	for (size_t i = 0; i < ls->npending; i++) {
		if (ls->pending[i].run_id != f->id)
			continue;
		ls->pending[i].followers = f->followers;
		ls->pending[i].persisted = f->persisted;
		return final ? put_pending(c, ls, i, err) : 0;
	}
	return 0;
}

/* A change point's Suspect (§6.1): at the first record of the new level, slower, its center
 * the level before and its tolerance the least move that counts; its reference the last
 * record of the level before; persisted by construction (the new level held
 * DETECT_CHANGE_SIDE records). */
static void cp_mark(struct store_mark *mk, const struct detect_ctx *c, const struct cp_line *l,
		    const struct detect_change *ch)
{
	const struct detect_values *v = &l->s.v;
	size_t i = ch->index;
	memset(mk, 0, sizeof(*mk));
	mk->run_id = v->run_id[i];
	mk->metric = l->metric;
	mk->kind = SUSPECT_CHANGE_POINT;
	mk->machine_id = l->g.machine_id;
	mk->benchmark_id = l->g.benchmark_id;
	mk->config = l->g.config;
	mk->side = SUSPECT_SLOWER;
	mk->shift = ch->shift;
	mk->median = v->median[i];
	mk->center = ch->before;
	mk->tolerance = c->cp_opts.min_shift * fabs(ch->before);
	mk->reference_run_id = i ? v->run_id[i - 1] : 0;
	mk->followers = mk->persisted = DETECT_CHANGE_SIDE;
}

static int has_index(const size_t *list, size_t n, size_t i)
{
	for (size_t k = 0; k < n; k++)
		if (list[k] == i)
			return 1;
	return 0;
}

/* Hands a change point's Suspect to the alert pass (stored: what the database holds of it,
 * NULL when new), its commit read by its run. */
static int cp_put(struct detect_ctx *c, const struct store_mark *mk,
		  const struct store_mark *stored, struct bl_error *err)
{
	struct store_mark m = *mk;
	int ret;
	if ((ret = store_detect_run_commit(&c->cp_commit, c->d, mk->run_id, err)))
		return ret;
	m.commit = c->cp_commit.buf;
	hand_mark(c, &m, stored);
	return 0;
}

/* Takes a searched line back: stores its values (the chunks that filled since it was stored)
 * and what its next search goes on from, and hands its change points to the alert pass. A
 * rebuilt line's stored Suspects are in old_marks (those it no longer finds go with
 * drop_unmatched); a continued line's are looked up, only where the changes moved since its
 * last search (the same change gives the same Suspect: its numbers come from records that do
 * not move). */
static int cp_apply(struct detect_ctx *c, struct cp_line *l, struct bl_error *err)
{
	struct detect_search_line *s = &l->s;
	struct store_group g = {l->g.machine_id, l->g.benchmark_id, l->g.config};
	size_t *idx = xmalloc((s->nchanges ? s->nchanges : 1) * sizeof(*idx));
	int ret = 0;
	for (size_t k = 0; k < s->nchanges; k++)
		idx[k] = s->changes[k].index;
	/* the chunks full now that were not when the line was stored; each is written once */
	for (size_t k = l->stored_n / DETECT_VALUES_CHUNK; (k + 1) * DETECT_VALUES_CHUNK <= s->v.n;
	     k++) {
		strbuf_reset(&c->cp_buf);
		detect_values_encode(&c->cp_buf, &s->v, k * DETECT_VALUES_CHUNK,
				     (k + 1) * DETECT_VALUES_CHUNK);
		if ((ret = store_detect_values_put(c->d, l->line_id, (int64_t)k, c->cp_buf.buf,
						   c->cp_buf.len, err)))
			goto done;
	}
	strbuf_reset(&c->cp_buf);
	detect_values_encode_head(&c->cp_buf, &s->v, idx, s->nchanges, &s->state);
	if ((ret = store_detect_search_put(c->d, l->line_id, c->cp_buf.buf, c->cp_buf.len, err)))
		goto done;
	for (size_t k = 0; k < s->nchanges; k++) {
		struct store_mark mk, found;
		int have = 0;
		cp_mark(&mk, c, l, &s->changes[k]);
		if (!l->rebuilt && has_index(l->old_changes, l->nold, idx[k]))
			continue;
		if ((ret = stored_mark(&have, &found, c, &mk, l->rebuilt, err)))
			goto done;
		if (have && same_mark(&found, &mk))
			continue;
		if ((ret = cp_put(c, &mk, have ? &found : NULL, err)))
			goto done;
	}
	/* A continued line's changes the search no longer finds: gone unless decided. */
	for (size_t k = 0; !l->rebuilt && k < l->nold; k++) {
		struct store_mark found;
		int have;
		if (has_index(idx, s->nchanges, l->old_changes[k]) || l->old_changes[k] >= s->v.n)
			continue;
		if ((ret = store_detect_suspect_find(&have, &found, c->d, &g,
						     s->v.run_id[l->old_changes[k]], l->metric,
						     SUSPECT_CHANGE_POINT, NULL, err)))
			goto done;
		if (have && detect_state_undecided(found.state))
			detect_alerts_drop(c->alerts, &found);
	}
done:
	free(idx);
	return ret;
}

/* Takes back the searched lines, in the order given: those searched already (wait 0), or all
 * of them (wait 1). */
static int cp_drain(struct detect_ctx *c, int wait, struct bl_error *err)
{
	struct detect_search_line *sl;
	int ret = 0;
	if (!c->search)
		return 0;
	while ((sl = detect_search_next(c->search, wait))) {
		if (!ret)
			ret = cp_apply(c, (struct cp_line *)sl, err);
		cp_line_free(sl);
	}
	return ret;
}

/* A finished line's part in the change-point pass: handed to the search, with its values and
 * where its last search left off (its values are stored when it comes back, with the splits
 * the search found). */
static int cp_hand(struct detect_ctx *c, const struct store_group *g, const char *metric,
		   struct line_state *ls, int64_t line_id, int rebuilt, struct bl_error *err)
{
	struct cp_line *l;
	if (!ls->cp || !c->cp_on) {
		line_cp_release(ls);
		return 0;
	}
	l = xcalloc(1, sizeof(*l));
	l->s.v = ls->vals;
	detect_values_init(&ls->vals);
	l->s.state = ls->fpop;
	detect_fpop_init(&ls->fpop);
	l->stored_n = ls->stored_n;
	l->s.better_higher = ls->cp_higher;
	l->g.machine_id = g->machine_id;
	l->g.benchmark_id = g->benchmark_id;
	l->g.config = xstrdup(g->config);
	l->metric = xstrdup(metric);
	l->line_id = line_id;
	l->rebuilt = rebuilt;
	l->old_changes = ls->old_changes;
	l->nold = ls->nold;
	ls->old_changes = NULL;
	line_cp_release(ls);
	if (!c->search)
		c->search = detect_search_new(&c->cp_opts, cp_line_free);
	detect_search_add(c->search, &l->s);
	return cp_drain(c, 0, err);
}

/* What reading a continued line's full chunks found. */
struct cp_read {
	struct line_state *ls;
	int bad;
};

static int cp_read_chunk(int64_t chunk, const void *data, size_t len, void *cb_data)
{
	struct cp_read *r = cb_data;
	struct line_state *ls = r->ls;
	/* the chunks in order, from the first, each full */
	if (chunk < 0 || (size_t)chunk * DETECT_VALUES_CHUNK != ls->vals.n ||
	    detect_values_decode(&ls->vals, data, len) ||
	    ls->vals.n != ((size_t)chunk + 1) * DETECT_VALUES_CHUNK)
		r->bad = 1;
	return r->bad;
}

/* Reads the values a continued line keeps, and what its search goes on from, into ls: 0 when
 * they are all there, 1 when they are not (the group is walked instead), or an error. */
static int cp_load(struct detect_ctx *c, struct line_state *ls, int64_t line_id,
		   struct bl_error *err)
{
	struct cp_read r = {ls, 0};
	size_t n = 0;
	int found = 0, ret = store_detect_values(c->d, line_id, cp_read_chunk, &r, err);
	if (ret < 0)
		return ret;
	if (!r.bad && (ret = store_detect_search(&found, &c->cp_buf, c->d, line_id, err)))
		return ret;
	if (r.bad || !found ||
	    detect_values_decode_head(&n, &ls->old_changes, &ls->nold, &ls->fpop, &ls->vals,
				      c->cp_buf.buf, c->cp_buf.len)) {
		line_cp_release(ls);
		return 1;
	}
	ls->stored_n = n;
	ls->cp = n > 0;
	return 0;
}

/* The stored form of a line state. */
static void line_row(struct store_line *l, struct detect_ctx *c, const struct store_group *g,
		     const char *metric, const struct line_state *ls)
{
	memset(l, 0, sizeof(*l));
	l->id = ls->id;
	l->machine_id = g->machine_id;
	l->benchmark_id = g->benchmark_id;
	l->config = g->config;
	l->metric = metric;
	l->line = ls->line;
	l->reason = ls->reason;
	l->start_run_id = ls->start_run_id;
	l->records = ls->records;
	l->fingerprint = (int64_t)ls->fp;
	l->harness_version = ls->harness_version;
	l->content_hash = ls->content;
	l->last_run_id = ls->last_run_id;
	l->last_place = ls->last_place;
	l->last_at = ls->last_at;
	l->last_started_at = ls->last_started_at;
	l->time_placed_at = ls->time_placed_at;
	l->judged = ls->judged;
	strbuf_reset(&c->tail);
	detect_tail_encode(&c->tail, &ls->tail);
	l->tail = c->tail.buf;
	l->tail_len = c->tail.len;
}

/* A rebuilt line: stored, and counted when its members differ from the stored line's. */
static int flush_rebuilt(struct detect_ctx *c, const struct store_group *g, const char *metric,
			 struct line_state *ls, struct bl_error *err)
{
	struct store_line row;
	int ret;
	if (!ls->open)
		return 0;
	ls->open = 0;
	while (ls->npending)
		if ((ret = put_pending(c, ls, 0, err)))
			return ret;
	line_row(&row, c, g, metric, ls);
	if (c->count_all) {
		c->res->lines_recomputed++;
	} else {
		struct old_line key, *o;
		key.machine_id = g->machine_id;
		key.benchmark_id = g->benchmark_id;
		key.config = g->config;
		key.metric = (char *)metric;
		key.start_run_id = ls->start_run_id;
		o = find_in(&key, c->old_lines, c->nold_lines, sizeof(*c->old_lines), old_line_cmp);
		if (!o || o->records != ls->records || o->fingerprint != (int64_t)ls->fp ||
		    o->reason != ls->reason)
			c->res->lines_recomputed++;
	}
	if ((ret = store_detect_line_put(c->d, &row, err)))
		return ret;
	return cp_hand(c, g, metric, ls, row.id, 1, err);
}

/* A continued line: updated (or, when it starts here, inserted) and counted. */
static int flush_grown(struct detect_ctx *c, const struct store_group *g, const char *metric,
		       struct line_state *ls, struct bl_error *err)
{
	struct store_line row;
	int ret;
	if (!ls->open || !ls->grown)
		return 0;
	ls->grown = 0;
	line_row(&row, c, g, metric, ls);
	c->res->lines_recomputed++;
	if ((ret = ls->is_new ? store_detect_line_put(c->d, &row, err)
			      : store_detect_line_grow(c->d, &row, err)))
		return ret;
	return cp_hand(c, g, metric, ls, ls->is_new ? row.id : ls->id, 0, err);
}

/* The break a member makes on its Series after the line state: the rule of line_break_at,
 * then a commit bisection pinned (§9.3) between the line's last record and this one. */
static enum line_break break_reason(const struct detect_ctx *c, const struct line_state *ls,
				    const struct store_members *m, const struct store_group *g,
				    const char *metric, const struct store_member *mb)
{
	enum line_break b =
	    line_break_at(ls->open, ls->harness_version, ls->content, mb->harness_version,
			  m->contents.strings[mb->content], mb->baseline);
	if (b == LINE_CONTINUES && c->npinned) {
		struct store_pinned key, *p;
		key.machine_id = g->machine_id;
		key.benchmark_id = g->benchmark_id;
		key.config = (char *)g->config;
		key.metric = (char *)metric;
		p = find_in(&key, c->pinned, c->npinned, sizeof(*c->pinned), pinned_series_cmp);
		if (p && line_pinned_at(p->seqs, p->nseqs, ls->last_place, mb->place))
			return LINE_PINNED;
	}
	return b;
}

static void line_start(struct line_state *ls, const struct store_members *m,
		       const struct store_member *mb, enum line_break reason, int64_t index)
{
	line_cp_release(ls);
	memset(ls, 0, sizeof(*ls));
	ls->open = 1;
	ls->is_new = 1;
	ls->line = index;
	ls->reason = reason;
	ls->start_run_id = mb->run_id;
	ls->fp = DETECT_FINGERPRINT_INIT;
	ls->harness_version = mb->harness_version;
	ls->content = m->contents.strings[mb->content];
	ls->time_placed_at = NAN;
	detect_tail_init(&ls->tail);
}

/* Adds a member's value to its line, judging it when its metric is judged. */
static int line_add(struct detect_ctx *c, struct line_state *ls, const struct store_members *m,
		    const struct store_group *g, const struct store_member *mb,
		    const struct store_point *p, int use_old, struct bl_error *err)
{
	ls->records++;
	ls->grown = 1;
	ls->fp = detect_fingerprint(ls->fp, mb->run_id, p->value, p->kind | (p->higher << 2));
	ls->last_run_id = mb->run_id;
	ls->last_place = mb->place;
	ls->last_at = mb->at;
	ls->last_started_at = mb->started_at;
	if (mb->place != floor(mb->place) && !(ls->time_placed_at >= mb->at))
		ls->time_placed_at = mb->at;
	if (is_judged(c, m, p)) {
		const char *metric = m->metrics.strings[p->metric];
		struct detect_verdict v;
		int ret;
		ls->judged = 1;
		if (c->counting)
			count_judged(c, g, mb->commit);
		if (p->kind == METRIC_QUANTILE)
			detect_step_ladder(&v, &ls->tail, p->value, mb->run_id,
					   c->ladder_cache[p->metric]);
		else
			detect_step(&v, &ls->tail, p->value, mb->run_id,
				    p->kind == METRIC_COUNTED ? c->counter_floor : DETECT_FLOOR);
		if (c->cp_on && p->kind == METRIC_TIMED) {
			ls->cp = 1;
			ls->cp_higher = p->higher;
			detect_values_add(&ls->vals, p->value, mb->run_id,
					  !v.marked ? DETECT_VALUE_UNMARKED
					  : detect_is_slower(v.above, p->higher)
					      ? DETECT_VALUE_SLOWER
					      : DETECT_VALUE_FASTER);
		}
		for (size_t i = 0; i < v.nfollowed; i++)
			if ((ret = follow_mark(c, ls, g, metric, &v.followed[i], 0, use_old, err)))
				return ret;
		if (v.evicted.id &&
		    (ret = follow_mark(c, ls, g, metric, &v.evicted, 1, use_old, err)))
			return ret;
		if (v.marked) {
			struct store_mark mk;
			memset(&mk, 0, sizeof(mk));
			mk.run_id = mb->run_id;
			mk.metric = metric;
			mk.machine_id = g->machine_id;
			mk.benchmark_id = g->benchmark_id;
			mk.config = g->config;
			mk.side =
			    detect_is_slower(v.above, p->higher) ? SUSPECT_SLOWER : SUSPECT_FASTER;
			mk.shift = v.shift;
			mk.median = p->value;
			mk.center = v.center;
			mk.tolerance = v.tolerance;
			mk.deviation = v.deviation;
			mk.reference_run_id = v.reference_id;
			mk.follows_run_id = v.follows_id;
			mk.commit = m->commits.strings[mb->commit];
			if (!use_old)
				return put_mark(c, &mk, 0, err);
			ls->pending[ls->npending++] = mk;
		}
	}
	return 0;
}

/* Per-group state: the line of each metric seen in the group. */
struct group_lines {
	struct line_state *ls; /* indexed by interned metric */
	int64_t *next_line;    /* the index the metric's next line gets */
	uint32_t *seen;	       /* metrics seen in this group, in order */
	size_t nseen, alloc;
};

static void group_lines_fit(struct group_lines *gl, size_t nmetrics)
{
	if (nmetrics <= gl->alloc)
		return;
	gl->ls = xrealloc(gl->ls, nmetrics * sizeof(*gl->ls));
	memset(gl->ls + gl->alloc, 0, (nmetrics - gl->alloc) * sizeof(*gl->ls));
	gl->next_line = xrealloc(gl->next_line, nmetrics * sizeof(*gl->next_line));
	memset(gl->next_line + gl->alloc, 0, (nmetrics - gl->alloc) * sizeof(*gl->next_line));
	gl->seen = xrealloc(gl->seen, nmetrics * sizeof(*gl->seen));
	gl->alloc = nmetrics;
}

static void group_lines_release(struct group_lines *gl)
{
	for (size_t i = 0; i < gl->alloc; i++)
		line_cp_release(&gl->ls[i]);
	free(gl->ls);
	free(gl->next_line);
	free(gl->seen);
	memset(gl, 0, sizeof(*gl));
}

/* Rebuilds the lines of every group in m from its members (a full read or a walk). */
static int rebuild_groups(struct detect_ctx *c, struct store_members *m, struct bl_error *err)
{
	struct group_lines gl;
	size_t i = 0;
	int ret = 0;

	memset(&gl, 0, sizeof(gl));
	while (i < m->nmembers) {
		uint32_t gi = m->members[i].group;
		const struct store_group *g = &m->groups[gi];
		group_lines_fit(&gl, m->metrics.nr);
		gl.nseen = 0;
		for (; i < m->nmembers && m->members[i].group == gi; i++) {
			const struct store_member *mb = &m->members[i];
			for (uint32_t k = 0; k < mb->npoints; k++) {
				const struct store_point *p = &m->points[mb->point + k];
				struct line_state *ls;
				enum line_break reason;
				group_lines_fit(&gl, m->metrics.nr);
				ls = &gl.ls[p->metric];
				if (!ls->open) {
					gl.seen[gl.nseen++] = p->metric;
					gl.next_line[p->metric] = 0;
				}
				if ((reason = break_reason(c, ls, m, g,
							   m->metrics.strings[p->metric], mb)) !=
				    LINE_CONTINUES) {
					if ((ret = flush_rebuilt(
						 c, g, m->metrics.strings[p->metric], ls, err)))
						goto done;
					line_start(ls, m, mb, reason, gl.next_line[p->metric]++);
				}
				if ((ret = line_add(c, ls, m, g, mb, p, 1, err)))
					goto done;
			}
		}
		for (size_t k = 0; k < gl.nseen; k++)
			if ((ret = flush_rebuilt(c, g, m->metrics.strings[gl.seen[k]],
						 &gl.ls[gl.seen[k]], err)))
				goto done;
		c->res->groups_walked++;
	}
done:
	group_lines_release(&gl);
	return ret;
}

static int full_rebuild(struct detect_ctx *c, struct bl_error *err)
{
	struct store_members m;
	struct store_scan scan;
	int ret;

	store_members_init(&m);
	c->judged_for = NULL;
	store_scan_init(&scan, c->opts->pass_members ? c->opts->pass_members : DEFAULT_PASS_MEMBERS,
			c->opts->pass_points ? c->opts->pass_points : DEFAULT_PASS_POINTS);
	c->res->full = 1;
	c->counting = 1;
	detect_alerts_walked_all(c->alerts);
	if ((ret = load_old(c, NULL, err)) || (ret = store_detect_lines_delete(c->d, NULL, err)))
		goto done;
	for (;;) {
		if ((ret = store_detect_scan(&m, &scan, c->d, err)))
			goto done;
		if (m.nmembers && (ret = rebuild_groups(c, &m, err)))
			goto done;
		if (scan.done)
			break;
	}
	if ((ret = cp_drain(c, 1, err)))
		goto done;
	drop_unmatched(c);
	judged_counts_flush(c, &m.commits);
done:
	c->counting = 0;
	store_scan_release(&scan);
	store_members_release(&m);
	return ret;
}

/* Reads one group whole and rebuilds its lines. */
static int walk_group(struct detect_ctx *c, const struct store_group *g, struct bl_error *err)
{
	struct store_members m;
	int ret;
	store_members_init(&m);
	c->judged_for = NULL;
	if ((ret = load_old(c, g, err)) || (ret = store_detect_lines_delete(c->d, g, err)) ||
	    (ret = store_detect_group(&m, c->d, g, err)))
		goto done;
	if (m.nmembers)
		ret = rebuild_groups(c, &m, err);
	else
		c->res->groups_walked++;
	/* the lines just given are this group's old_marks' */
	if (!ret)
		ret = cp_drain(c, 1, err);
	if (!ret)
		drop_unmatched(c);
done:
	store_members_release(&m);
	return ret;
}

static int group_cmp(const struct store_group *a, const struct store_group *b)
{
	if (a->machine_id != b->machine_id)
		return a->machine_id < b->machine_id ? -1 : 1;
	if (a->benchmark_id != b->benchmark_id)
		return a->benchmark_id < b->benchmark_id ? -1 : 1;
	return strcmp(a->config, b->config);
}

static int group_qsort_cmp(const void *a, const void *b)
{
	return group_cmp(a, b);
}

/* A set of groups (sorted, unique once finished). */
struct group_set {
	struct store_group *g;
	size_t n, alloc;
};

static void group_set_add(struct group_set *s, const struct store_group *g)
{
	ALLOC_GROW(s->g, s->n, s->alloc);
	s->g[s->n].machine_id = g->machine_id;
	s->g[s->n].benchmark_id = g->benchmark_id;
	s->g[s->n].config = xstrdup(g->config);
	s->n++;
}

static void group_set_finish(struct group_set *s)
{
	size_t w = 0;
	sort_array(s->g, s->n, sizeof(*s->g), group_qsort_cmp);
	for (size_t i = 0; i < s->n; i++) {
		if (w && !group_cmp(&s->g[w - 1], &s->g[i])) {
			free(s->g[i].config);
			continue;
		}
		s->g[w++] = s->g[i];
	}
	s->n = w;
}

static int group_set_has(const struct group_set *s, const struct store_group *g)
{
	return find_in(g, s->g, s->n, sizeof(*s->g), group_qsort_cmp) != NULL;
}

static void group_set_release(struct group_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->g[i].config);
	free(s->g);
	memset(s, 0, sizeof(*s));
}

static void members_add_group(struct store_members *m, const struct store_group *g)
{
	ALLOC_GROW(m->groups, m->ngroups, m->groups_alloc);
	m->groups[m->ngroups].machine_id = g->machine_id;
	m->groups[m->ngroups].benchmark_id = g->benchmark_id;
	m->groups[m->ngroups].config = xstrdup(g->config);
	m->ngroups++;
}

/* The last stored line of each Series of the groups being continued. */
struct last_line {
	struct store_group g;
	char *metric, *content;
	enum line_break reason;
	int64_t id, line, start_run_id, records, fingerprint, harness_version, last_run_id;
	double last_place, last_at, last_started_at, time_placed_at;
	int judged;
	struct detect_tail tail;
	int bad_tail;
};

struct last_lines {
	struct last_line *l;
	size_t n, alloc;
	const struct group_set *want; /* NULL: every group */
};

static int collect_last_line(const struct store_line *l, void *data)
{
	struct last_lines *ll = data;
	struct store_group g = {l->machine_id, l->benchmark_id, (char *)l->config};
	struct last_line *x;
	if (ll->want && !group_set_has(ll->want, &g))
		return 0;
	ALLOC_GROW(ll->l, ll->n, ll->alloc);
	x = &ll->l[ll->n++];
	x->g.machine_id = l->machine_id;
	x->g.benchmark_id = l->benchmark_id;
	x->g.config = xstrdup(l->config);
	x->metric = xstrdup(l->metric);
	x->reason = l->reason;
	x->content = xstrdup_or_null(l->content_hash);
	x->id = l->id;
	x->line = l->line;
	x->start_run_id = l->start_run_id;
	x->records = l->records;
	x->fingerprint = l->fingerprint;
	x->harness_version = l->harness_version;
	x->last_run_id = l->last_run_id;
	x->last_place = l->last_place;
	x->last_at = l->last_at;
	x->last_started_at = l->last_started_at;
	x->time_placed_at = l->time_placed_at;
	x->judged = l->judged;
	x->bad_tail = detect_tail_decode(&x->tail, l->tail, l->tail_len) != 0;
	return 0;
}

static void last_line_free(struct last_line *x)
{
	free(x->g.config);
	free(x->metric);
	free(x->content);
}

static int last_line_cmp(const void *a, const void *b)
{
	const struct last_line *x = a, *y = b;
	int c = group_cmp(&x->g, &y->g);
	if (!c)
		c = strcmp(x->metric, y->metric);
	if (!c)
		c = x->line < y->line ? -1 : x->line > y->line;
	return c;
}

/* Sorts the lines collected by group and metric and keeps the last line of each Series. */
static void last_lines_finish(struct last_lines *ll)
{
	size_t w = 0;
	sort_array(ll->l, ll->n, sizeof(*ll->l), last_line_cmp);
	for (size_t i = 0; i < ll->n; i++) {
		if (i + 1 < ll->n && !group_cmp(&ll->l[i].g, &ll->l[i + 1].g) &&
		    !strcmp(ll->l[i].metric, ll->l[i + 1].metric)) {
			last_line_free(&ll->l[i]);
			continue;
		}
		ll->l[w++] = ll->l[i];
	}
	ll->n = w;
}

static void last_lines_release(struct last_lines *ll)
{
	for (size_t i = 0; i < ll->n; i++)
		last_line_free(&ll->l[i]);
	free(ll->l);
	memset(ll, 0, sizeof(*ll));
}

/* The first last line of group g, or ll->n (ll->l is sorted by last_lines_finish). */
static size_t last_lines_find(const struct last_lines *ll, const struct store_group *g)
{
	size_t lo = 0, hi = ll->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (group_cmp(&ll->l[mid].g, g) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Order of two records on a Series (as sql/series.sql orders them). */
static int key_cmp(double place, double at, double started, int64_t run, double place2, double at2,
		   double started2, int64_t run2)
{
	if (place != place2)
		return place < place2 ? -1 : 1;
	if (at != at2)
		return at < at2 ? -1 : 1;
	if (started != started2)
		return started < started2 ? -1 : 1;
	return run < run2 ? -1 : run > run2;
}

static int member_key_cmp(const void *a, const void *b)
{
	const struct store_member *x = a, *y = b;
	return key_cmp(x->place, x->at, x->started_at, x->run_id, y->place, y->at, y->started_at,
		       y->run_id);
}

/*
 * Continues the lines of group g with the records that joined it (changes[from..to), all
 * members now that were not before). *appended 0 when one of them does not come after every
 * record already on one of its Series: the group must then be walked, and nothing was
 * written.
 */
static int append_group(int *appended, struct detect_ctx *c, const struct last_lines *ll,
			const struct store_change *changes, size_t from, size_t to,
			struct bl_error *err)
{
	const struct store_group *g = &changes[from].group;
	struct store_members m;
	struct group_lines gl;
	size_t first = last_lines_find(ll, g), end = first;
	int ret = 0;

	*appended = 0;
	store_members_init(&m);
	c->judged_for = NULL;
	memset(&gl, 0, sizeof(gl));
	while (end < ll->n && !group_cmp(&ll->l[end].g, g))
		end++;
	members_add_group(&m, g);
	for (size_t i = from; i < to; i++)
		if ((ret = store_detect_add_change(&m, 0, &changes[i], c->d, err)))
			goto done;
	sort_array(m.members, m.nmembers, sizeof(*m.members), member_key_cmp);
	group_lines_fit(&gl, m.metrics.nr);
	/* Every new record must come after the last record of each of its Series. */
	for (size_t i = first; i < end; i++) {
		const struct last_line *x = &ll->l[i];
		uint32_t metric = store_members_metric(&m, x->metric);
		group_lines_fit(&gl, m.metrics.nr);
		int timed = 0;
		for (size_t k = 0; k < m.nmembers; k++) {
			const struct store_member *mb = &m.members[k];
			int has = 0;
			for (uint32_t p = 0; p < mb->npoints; p++) {
				const struct store_point *pt = &m.points[mb->point + p];
				if (pt->metric != metric)
					continue;
				has = 1;
				timed |= pt->kind == METRIC_TIMED && is_judged(c, &m, pt);
			}
			if (has &&
			    key_cmp(mb->place, mb->at, mb->started_at, mb->run_id, x->last_place,
				    x->last_at, x->last_started_at, x->last_run_id) <= 0)
				goto done;
		}
		if (x->bad_tail)
			goto done;
		struct line_state *ls = &gl.ls[metric];
		ls->open = 1;
		ls->id = x->id;
		ls->line = x->line;
		ls->reason = x->reason;
		ls->start_run_id = x->start_run_id;
		ls->records = x->records;
		ls->fp = (uint64_t)x->fingerprint;
		ls->harness_version = x->harness_version;
		ls->content = x->content;
		ls->last_run_id = x->last_run_id;
		ls->last_place = x->last_place;
		ls->last_at = x->last_at;
		ls->last_started_at = x->last_started_at;
		ls->time_placed_at = x->time_placed_at;
		ls->judged = x->judged;
		ls->tail = x->tail;
		gl.next_line[metric] = x->line + 1;
		/* A judged timed line the new records continue: its search needs its values. */
		if (c->cp_on && timed && x->judged && (ret = cp_load(c, ls, x->id, err))) {
			if (ret > 0)
				ret = 0;
			goto done;
		}
	}
	*appended = 1;
	for (size_t k = 0; k < m.nmembers; k++) {
		const struct store_member *mb = &m.members[k];
		for (uint32_t q = 0; q < mb->npoints; q++) {
			const struct store_point *p = &m.points[mb->point + q];
			struct line_state *ls;
			enum line_break reason;
			group_lines_fit(&gl, m.metrics.nr);
			ls = &gl.ls[p->metric];
			if ((reason = break_reason(c, ls, &m, &m.groups[0],
						   m.metrics.strings[p->metric], mb)) !=
			    LINE_CONTINUES) {
				if ((ret = flush_grown(c, &m.groups[0],
						       m.metrics.strings[p->metric], ls, err)))
					goto done;
				line_start(ls, &m, mb, reason, gl.next_line[p->metric]++);
			}
			if ((ret = line_add(c, ls, &m, &m.groups[0], mb, p, 0, err)))
				goto done;
		}
		c->res->records_appended++;
	}
	for (size_t k = 0; k < m.metrics.nr && k < gl.alloc; k++)
		if ((ret = flush_grown(c, &m.groups[0], m.metrics.strings[k], &gl.ls[k], err)))
			goto done;
done:
	/* The stored lines' strings belong to ll, not to the states. */
	group_lines_release(&gl);
	store_members_release(&m);
	return ret;
}

static int change_run_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* Works out from the change log which groups to walk and which records to append, and does
 * it. *too_much 1 (and nothing written) when reading everything is the cheaper way. */
static int incremental(int *too_much, struct detect_ctx *c, struct bl_error *err)
{
	struct store_change *changes = NULL;
	struct store_moved *moved = NULL;
	size_t nchanges = 0, nmoved = 0, nadded = 0;
	int64_t ncommits = 0, series = 0, judged = 0, *added = NULL;
	struct group_set walk = {NULL, 0, 0}, grow = {NULL, 0, 0}, late = {NULL, 0, 0};
	struct last_lines ll;
	int ret;

	*too_much = 0;
	memset(&ll, 0, sizeof(ll));
	if ((ret = store_detect_changes(&changes, &nchanges, c->d, err)) ||
	    (ret = store_detect_moved(&moved, &nmoved, &ncommits, c->d, err)))
		goto done;
	if (ncommits > MAX_LOGGED_COMMITS) {
		*too_much = 1;
		goto done;
	}
	added = xmalloc((nchanges ? nchanges : 1) * sizeof(*added));
	for (size_t i = 0; i < nchanges; i++) {
		const struct store_change *ch = &changes[i];
		if (ch->was_member != ch->is_member)
			detect_alerts_record_at(c->alerts, ch->group.machine_id, ch->commit);
		if (ch->was_member == 0 && ch->is_member) {
			added[nadded++] = ch->run_id;
			group_set_add(&grow, &ch->group);
		} else if (ch->was_member != 0) {
			/* left its Series, or the log cannot say: read the group again */
			group_set_add(&walk, &ch->group);
		}
	}
	sort_array(added, nadded, sizeof(*added), change_run_cmp);
	for (size_t i = 0; i < nmoved; i++) {
		const struct store_moved *mv = &moved[i];
		/* A record that was on its Series and still is, but whose place may have moved
		 * (a record just added is placed afresh anyway). */
		if (!mv->run_id || (!mv->tagged && !find_in(&mv->run_id, added, nadded,
							    sizeof(*added), change_run_cmp)))
			group_set_add(&walk, &mv->group);
	}
	group_set_finish(&walk);
	group_set_finish(&grow);
	if ((ret = store_detect_series_count(&series, &judged, c->d, err)))
		goto done;
	/* Walking a group costs a few times what a full read spends on it. */
	if (walk.n && walk.n * 8 > (size_t)series) {
		*too_much = 1;
		goto done;
	}

	/* The last line of each Series to continue: one read of them all when there are many. */
	ll.want = &grow;
	for (size_t i = 0; grow.n > 32 && i < 1; i++)
		ret = store_detect_lines(c->d, NULL, collect_last_line, &ll, err);
	for (size_t i = 0; grow.n <= 32 && !ret && i < grow.n; i++)
		if (!group_set_has(&walk, &grow.g[i]))
			ret = store_detect_lines(c->d, &grow.g[i], collect_last_line, &ll, err);
	if (ret)
		goto done;
	last_lines_finish(&ll);
	for (size_t i = 0; i < nchanges;) {
		size_t from = i, to = i;
		int appended = 1;
		while (to < nchanges && !group_cmp(&changes[to].group, &changes[from].group))
			to++;
		i = to;
		if (group_set_has(&walk, &changes[from].group))
			continue;
		/* Only the records that joined: move them to the front of the range. */
		size_t w = from;
		for (size_t k = from; k < to; k++) {
			if (changes[k].was_member == 0 && changes[k].is_member) {
				struct store_change t = changes[w];
				changes[w] = changes[k];
				changes[k] = t;
				w++;
			}
		}
		if (w == from)
			continue;
		if ((ret = append_group(&appended, c, &ll, changes, from, w, err)))
			goto done;
		if (!appended)
			group_set_add(&late, &changes[from].group);
	}
	/* The groups a record joined before their end: read whole too. */
	for (size_t i = 0; i < late.n; i++)
		group_set_add(&walk, &late.g[i]);
	group_set_finish(&walk);
	for (size_t i = 0; i < walk.n; i++)
		if ((ret = walk_group(c, &walk.g[i], err)))
			goto done;
done:
	last_lines_release(&ll);
	group_set_release(&walk);
	group_set_release(&grow);
	group_set_release(&late);
	free(added);
	store_changes_release(changes, nchanges);
	store_moved_release(moved, nmoved);
	return ret;
}

/* Sets the judged metrics: every timed one (all), or the names given, sorted and unique. */
static void judged_set(struct detect_ctx *c, const char *const *names, size_t n, int all)
{
	size_t w = 0;
	c->all_timed = all;
	c->judged = xcalloc(n ? n : 1, sizeof(*c->judged));
	for (size_t i = 0; !all && i < n; i++)
		c->judged[i] = xstrdup(names[i]);
	c->njudged = all ? 0 : n;
	sort_array(c->judged, c->njudged, sizeof(*c->judged), cmp_strp);
	for (size_t i = 0; i < c->njudged; i++) {
		if (w && !strcmp(c->judged[w - 1], c->judged[i])) {
			free(c->judged[i]);
			continue;
		}
		c->judged[w++] = c->judged[i];
	}
	c->njudged = w;
}

/* The judged metrics as meta keeps them: "*" for every timed metric, else a JSON array. */
static void judged_encode(struct strbuf *out, const struct detect_ctx *c)
{
	json_t *a;
	char *text;
	if (c->all_timed) {
		strbuf_addstr(out, "*");
		return;
	}
	a = json_array();
	for (size_t i = 0; i < c->njudged; i++)
		json_array_append_new(a, json_string(c->judged[i]));
	if (c->ladders_json) /* with ladders: {"metrics": [...], "ladders": {...}} */
		a = json_pack("{s:o, s:O}", "metrics", a, "ladders", c->ladders_json);
	text = json_write_text(a, JSON_WRITE_SORT_KEYS);
	strbuf_addstr(out, text ? text : "[]");
	free(text);
	json_decref(a);
}

static int judged_decode(struct detect_ctx *c, const char *stored, struct bl_error *err)
{
	json_t *a;
	const char **names;
	size_t n;
	if (!stored || !strcmp(stored, "*")) {
		judged_set(c, NULL, 0, 1);
		return 0;
	}
	a = json_loads(stored, 0, NULL);
	if (json_is_object(a)) {
		json_t *list = json_incref(json_object_get(a, "metrics"));
		c->ladders_json = json_incref(json_object_get(a, "ladders"));
		json_decref(a);
		a = list;
	}
	if (!json_is_array(a)) {
		json_decref(a);
		return bl_error_set(err, BL_EDB, "the stored judged metrics are not a JSON array");
	}
	n = json_array_size(a);
	names = xcalloc(n ? n : 1, sizeof(*names));
	for (size_t i = 0; i < n; i++)
		names[i] = json_string_value(json_array_get(a, i))
			       ? json_string_value(json_array_get(a, i))
			       : "";
	judged_set(c, names, n, 0);
	free(names);
	json_decref(a);
	return 0;
}

/* The change-point settings (§6.1): as given, else as the last detect stored them (meta
 * detect_change_points: "off", or "on PENALTY MIN_SHIFT"), else the defaults; into c and, as
 * meta keeps them, into text. */
static void cp_settings(struct detect_ctx *c, struct strbuf *text, const struct detect_options *o,
			const char *stored)
{
	c->cp_on = 1;
	c->cp_opts.penalty = DETECT_CHANGE_PENALTY;
	c->cp_opts.min_shift = DETECT_CHANGE_MIN_SHIFT;
	if (o->changes_given) {
		c->cp_on = o->change_points != 0;
		if (o->change_penalty > 0 && isfinite(o->change_penalty))
			c->cp_opts.penalty = o->change_penalty;
		if (o->change_min_shift >= 0 && isfinite(o->change_min_shift))
			c->cp_opts.min_shift = o->change_min_shift;
	} else if (stored && !strcmp(stored, "off")) {
		c->cp_on = 0;
	} else if (stored && !strncmp(stored, "on ", 3)) {
		char *end;
		double penalty = strtod(stored + 3, &end), min_shift = strtod(end, &end);
		if (penalty > 0 && isfinite(penalty) && min_shift >= 0 && isfinite(min_shift)) {
			c->cp_opts.penalty = penalty;
			c->cp_opts.min_shift = min_shift;
		}
	}
	if (c->cp_on)
		strbuf_addf(text, "on %.17g %.17g", c->cp_opts.penalty, c->cp_opts.min_shift);
	else
		strbuf_addstr(text, "off");
}

int detect_run(struct detect_result *out, struct store *st, const struct detect_options *opts,
	       struct bl_error *err)
{
	struct detect_ctx c;
	struct strbuf judged = STRBUF_INIT, quiet = STRBUF_INIT, changes = STRBUF_INIT;
	char *state = NULL, *stored_judged = NULL, *full_flag = NULL, *stored_quiet = NULL;
	char *stored_changes = NULL, *stored_floor = NULL;
	struct strbuf floor = STRBUF_INIT;
	int ret, began = 0, full, too_much = 0, state_ok, judged_same, transient_records,
		 floor_same, changes_same;

	memset(out, 0, sizeof(*out));
	memset(&c, 0, sizeof(c));
	c.st = st;
	c.opts = opts;
	c.res = out;
	strbuf_init(&c.tail, 0);
	strbuf_init(&c.cp_buf, 0);
	strbuf_init(&c.cp_commit, 0);
	if ((ret = store_detect_open(&c.d, st, err)) || (ret = store_begin(st, err)))
		goto done;
	began = 1;
	if ((ret = store_get_meta(&state, st, "detect_state", err)) ||
	    (ret = store_get_meta(&stored_judged, st, "detect_metrics", err)) ||
	    (ret = store_get_meta(&full_flag, st, "detect_full", err)) ||
	    (ret = store_get_meta(&stored_quiet, st, "detect_transient_records", err)) ||
	    (ret = store_get_meta(&stored_changes, st, "detect_change_points", err)) ||
	    (ret = store_get_meta(&stored_floor, st, "detect_counter_floor", err)))
		goto done;
	cp_settings(&c, &changes, opts, stored_changes);
	changes_same = stored_changes && !strcmp(stored_changes, changes.buf);
	/* quiet.counter_floor: as given, else as the last detect judged, else the default; the
	 * text kept is the one compared, so a change judges every line again. */
	c.counter_floor = opts->counter_floor > 0 ? opts->counter_floor
			  : stored_floor	  ? atof(stored_floor)
						  : CONFIG_COUNTER_FLOOR;
	if (!(c.counter_floor > 0))
		c.counter_floor = CONFIG_COUNTER_FLOOR;
	strbuf_addf(&floor, "%.17g", c.counter_floor);
	floor_same = stored_floor && !strcmp(stored_floor, floor.buf);
	/* quiet.transient_records: as given, else as the last detect judged, else the default. */
	transient_records = opts->transient_records > 0 && opts->transient_records <= DETECT_WINDOW
				? opts->transient_records
			    : stored_quiet ? atoi(stored_quiet)
					   : DETECT_TRANSIENT_RECORDS;
	if (transient_records < 1 || transient_records > DETECT_WINDOW)
		transient_records = DETECT_TRANSIENT_RECORDS;
	strbuf_addf(&quiet, "%d", transient_records);
	c.alerts = detect_alerts_new(st, transient_records);
	ladder_set_init(&c.ladders);
	if (opts->metrics_given) {
		judged_set(&c, opts->metrics, opts->nmetrics, opts->metrics == NULL);
		if (opts->metrics && opts->ladders)
			c.ladders_json = json_incref((json_t *)opts->ladders);
	} else if ((ret = judged_decode(&c, stored_judged, err))) {
		goto done;
	}
	if (c.ladders_json &&
	    (ret = ladder_set_from_json(&c.ladders, c.ladders_json,
					opts->metrics_given && opts->ladders_file
					    ? opts->ladders_file
					    : "the ladders kept from benchline.json",
					err)))
		goto done;
	judged_encode(&judged, &c);
	state_ok = state && !strcmp(state, DETECT_STATE_FORMAT);
	judged_same = stored_judged && !strcmp(judged.buf, stored_judged);
	/* Other change-point settings: every line is searched again, and its alerts judged. */
	full = opts->all || !state_ok || full_flag || !judged_same || !changes_same ||
	       (stored_floor && !floor_same);
	if ((ret = store_detect_last_suspect_id(&out->first_new_id, c.d, err)))
		goto done;
	out->first_new_id++;
	if ((ret = store_detect_pinned(&c.pinned, &c.npinned, c.d, err)))
		goto done;
	sort_array(c.pinned, c.npinned, sizeof(*c.pinned), pinned_series_cmp);
	if (!full && (ret = incremental(&too_much, &c, err)))
		goto done;
	if (full || too_much) {
		c.count_all = opts->all;
		if ((ret = full_rebuild(&c, err)))
			goto done;
	}
	if ((ret = cp_drain(&c, 1, err)) || (ret = detect_alerts_finish(c.alerts, c.d, err)) ||
	    (ret = store_detect_log_clear(c.d, err)) ||
	    ((!stored_quiet || strcmp(stored_quiet, quiet.buf)) &&
	     (ret = store_set_meta(st, "detect_transient_records", quiet.buf, err))) ||
	    (!floor_same && (ret = store_set_meta(st, "detect_counter_floor", floor.buf, err))) ||
	    (!state_ok && (ret = store_set_meta(st, "detect_state", DETECT_STATE_FORMAT, err))) ||
	    (!changes_same &&
	     (ret = store_set_meta(st, "detect_change_points", changes.buf, err))) ||
	    (!judged_same && (ret = store_set_meta(st, "detect_metrics", judged.buf, err))) ||
	    (full_flag && (ret = store_set_meta(st, "detect_full", NULL, err))) ||
	    (ret = store_detect_series_count(&out->series, &out->judged_series, c.d, err)))
		goto done;
	ret = store_commit(st, err);
	began = 0;
done:
	/* The session's statements go first, so nothing holds the transaction open. */
	detect_search_free(c.search);
	store_detect_close(c.d);
	if (began)
		store_rollback(st);
	old_lines_clear(&c);
	old_marks_clear(&c);
	free(c.old_lines);
	free(c.old_marks);
	store_pinned_free(c.pinned, c.npinned);
	detect_alerts_free(c.alerts);
	for (size_t i = 0; i < c.njudged_counts; i++)
		free(c.judged_counts[i].n);
	free(c.judged_counts);
	for (size_t i = 0; i < c.njudged; i++)
		free(c.judged[i]);
	free(c.judged);
	free(c.judged_cache);
	free(c.ladder_cache);
	for (size_t i = 0; i < c.nladder_names; i++)
		free(c.ladder_names[i]);
	free(c.ladder_names);
	free(c.ladder_found);
	ladder_set_release(&c.ladders);
	json_decref(c.ladders_json);
	strbuf_release(&c.tail);
	strbuf_release(&c.cp_buf);
	strbuf_release(&c.cp_commit);
	strbuf_release(&judged);
	strbuf_release(&quiet);
	strbuf_release(&changes);
	free(stored_quiet);
	free(stored_changes);
	free(stored_floor);
	strbuf_release(&floor);
	free(state);
	free(stored_judged);
	free(full_flag);
	return ret;
}

void detect_options_from_config(struct detect_options *opts, const struct config *cfg)
{
	opts->metrics_given = 1;
	opts->metrics = (const char *const *)cfg->judged_metrics;
	opts->nmetrics = cfg->n_judged_metrics;
	/* the ladders of the quantile metrics `metrics` names (§8), from a file that exists */
	opts->ladders = cfg->path ? cfg->ladders : NULL;
	opts->ladders_file = cfg->path;
	opts->transient_records =
	    cfg->transient_records > 0 ? cfg->transient_records : DETECT_TRANSIENT_RECORDS;
	/* the change-point settings (§6.1), the defaults for those it has none of */
	opts->changes_given = 1;
	opts->change_points = cfg->change_points;
	opts->change_penalty = cfg->change_penalty;
	opts->change_min_shift = cfg->change_min_shift;
	/* quiet.counter_floor (§9.6): always set, to its default when not given */
	opts->counter_floor = cfg->counter_floor;
}

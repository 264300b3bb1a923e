/*
 * Series (§1, §5): every metric of the untagged standing records of one (machine, benchmark,
 * config), in main's commit order, cut into lines at every break. The walk goes one group at
 * a time with two statements (sql/series.sql), both index seeks on the records' primary key,
 * and keeps only the current Series' lines in memory.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store/internal.h"
#include "sql_embed.h"

void store_series_id(struct strbuf *out, const char *machine, const char *benchmark,
		     const char *config, const char *metric)
{
	const char *parts[4] = {machine, benchmark, config, metric};
	static const char hex[] = "0123456789ABCDEF";
	for (int i = 0; i < 4; i++) {
		if (i)
			strbuf_addch(out, '/');
		for (const unsigned char *p = (const unsigned char *)parts[i]; p && *p; p++) {
			if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
			    (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '~' ||
			    *p == '-') {
				strbuf_addch(out, (char)*p);
			} else {
				strbuf_addch(out, '%');
				strbuf_addch(out, hex[*p >> 4]);
				strbuf_addch(out, hex[*p & 15]);
			}
		}
	}
}

/* One (machine, benchmark, config) with records. */
struct series_group {
	int64_t machine_id, benchmark_id;
	char *config, *machine, *benchmark;
};

static int group_cmp(const void *a, const void *b)
{
	const struct series_group *x = a, *y = b;
	int c = strcmp(x->machine, y->machine);
	if (!c)
		c = strcmp(x->benchmark, y->benchmark);
	if (!c)
		c = strcmp(x->config, y->config);
	return c;
}

static void groups_release(struct series_group *groups, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		free(groups[i].config);
		free(groups[i].machine);
		free(groups[i].benchmark);
	}
	free(groups);
}

static int wanted(const char *want, const char *name)
{
	return !want || !strcmp(want, name);
}

/* The groups in name order, via one index seek each. */
static int list_groups(struct series_group **out, size_t *nr, struct store *st,
		       const struct store_series_filter *filter, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_SERIES_NEXT_GROUP, err);
	struct series_group *groups = NULL;
	size_t n = 0, alloc = 0;
	int64_t mid = -1, bid = -1;
	char *config = xstrdup("");
	int rc, ret = 0;

	if (!s) {
		ret = BL_EDB;
		goto done;
	}
	for (;;) {
		store_reset(s);
		store_bind_int64(s, 1, mid);
		store_bind_int64(s, 2, bid);
		store_bind_text_copy(s, 3, config);
		rc = store_step(s);
		if (rc == STORE_DONE)
			break;
		if (rc != STORE_ROW) {
			ret = store_db_error(err, st, "cannot list series");
			goto done;
		}
		mid = store_column_int64(s, 0, 0);
		bid = store_column_int64(s, 1, 0);
		free(config);
		config = xstrdup(store_column_text(s, 2, ""));
		const char *machine = store_column_text(s, 3, "");
		const char *benchmark = store_column_text(s, 4, "");
		if (!wanted(filter ? filter->machine : NULL, machine) ||
		    !wanted(filter ? filter->benchmark : NULL, benchmark))
			continue;
		ALLOC_GROW(groups, n, alloc);
		groups[n].machine_id = mid;
		groups[n].benchmark_id = bid;
		groups[n].config = xstrdup(config);
		groups[n].machine = xstrdup(machine);
		groups[n].benchmark = xstrdup(benchmark);
		n++;
	}
	if (n > 1)
		qsort(groups, n, sizeof(*groups), group_cmp);
done:
	if (s)
		store_reset(s);
	free(config);
	if (ret) {
		groups_release(groups, n);
		groups = NULL;
		n = 0;
	}
	*out = groups;
	*nr = n;
	return ret;
}

/* One metric of a group's Regressions: how many, and the seqs they pinned on main. */
struct regression_count {
	char *metric;
	int64_t n;
	int64_t *pinned;
	size_t npinned, pinned_alloc;
};

/* The Series being walked. */
struct series_state {
	struct store_series s;
	struct store_series_line *lines;
	size_t alloc;
	struct strbuf id, metric, unit, content;
	int content_null;
	int64_t harness;
	double last_place;		     /* of the Series' last record */
	const struct regression_count *pins; /* the current Series' Regressions, or NULL */
	struct regression_count *counts;     /* the current group's, by metric */
	size_t ncounts, counts_alloc;
};

static void counts_reset(struct series_state *w)
{
	for (size_t i = 0; i < w->ncounts; i++) {
		free(w->counts[i].metric);
		free(w->counts[i].pinned);
	}
	w->ncounts = 0;
}

/* Counts the group's Regressions by metric, for each Series' `regressions`. */
static int load_counts(struct series_state *w, struct store *st, const struct series_group *g,
		       struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_REGRESSIONS_GROUP_COUNTS, err);
	int rc;
	counts_reset(w);
	if (!s)
		return BL_EDB;
	store_bind_int64(s, 1, g->machine_id);
	store_bind_int64(s, 2, g->benchmark_id);
	store_bind_text(s, 3, g->config);
	while ((rc = store_step(s)) == STORE_ROW) {
		const char *metric = store_column_text(s, 0, "");
		struct regression_count *c;
		if (!w->ncounts || strcmp(w->counts[w->ncounts - 1].metric, metric)) {
			ALLOC_GROW(w->counts, w->ncounts, w->counts_alloc);
			c = &w->counts[w->ncounts++];
			memset(c, 0, sizeof(*c));
			c->metric = xstrdup(metric);
		}
		c = &w->counts[w->ncounts - 1];
		c->n++;
		if (!store_column_is_null(s, 1)) {
			ALLOC_GROW(c->pinned, c->npinned, c->pinned_alloc);
			c->pinned[c->npinned++] = store_column_int64(s, 1, 0);
		}
	}
	store_reset(s);
	if (rc != STORE_DONE)
		return store_db_error(err, st, "cannot count Regressions");
	return 0;
}

static const struct regression_count *count_of(const struct series_state *w, const char *metric)
{
	for (size_t i = 0; i < w->ncounts; i++)
		if (!strcmp(w->counts[i].metric, metric))
			return &w->counts[i];
	return NULL;
}

static void state_start(struct series_state *w, const struct series_group *g, const char *metric)
{
	strbuf_reset(&w->metric);
	strbuf_addstr(&w->metric, metric);
	strbuf_reset(&w->id);
	store_series_id(&w->id, g->machine, g->benchmark, g->config, metric);
	w->s.id = w->id.buf;
	w->s.machine = g->machine;
	w->s.benchmark = g->benchmark;
	w->s.config = g->config;
	w->s.metric = w->metric.buf;
	w->s.records = 0;
	w->s.nlines = 0;
	w->s.last_value = NAN;
	w->s.last_commit[0] = '\0';
	w->s.last_seq = -1;
	w->pins = count_of(w, metric);
	w->s.regressions = w->pins ? w->pins->n : 0;
}

static void set_str(struct strbuf *sb, const char *v)
{
	strbuf_reset(sb);
	strbuf_addstr(sb, v);
}

/* Adds the member row to the current Series, starting a line at a break. */
static int state_add(struct series_state *w, struct store *st, struct store_stmt *s,
		     struct bl_error *err)
{
	enum metric_kind kind;
	int64_t harness = store_column_int64(s, 9, 0);
	const char *content = store_column_text(s, 10, NULL);
	int baseline = store_column_int(s, 11);
	double place = store_column_double(s, 8);
	int64_t seq = store_place_seq(place);
	enum line_break reason;
	double median = store_column_real(s, 4), value = store_column_real(s, 5);

	if (store_column_kind(&kind, st, s, 1, err) ||
	    store_column_better(&w->s.better_higher, st, s, 3, err))
		return BL_EDB;
	reason = line_break_at(w->s.records > 0, w->harness,
			       w->content_null ? NULL : w->content.buf, harness, content, baseline);
	if (!reason && w->pins &&
	    line_pinned_at(w->pins->pinned, w->pins->npinned, w->last_place, place))
		reason = LINE_PINNED;
	if (reason) {
		struct store_series_line *l;
		ALLOC_GROW(w->lines, w->s.nlines, w->alloc);
		l = &w->lines[w->s.nlines++];
		store_column_sha(l->start_commit, s, 7);
		l->start_seq = seq;
		l->reason = reason;
		l->records = 0;
		w->s.lines = w->lines;
	}
	w->lines[w->s.nlines - 1].records++;
	w->s.records++;
	w->harness = harness;
	w->content_null = content == NULL;
	set_str(&w->content, content ? content : "");
	set_str(&w->unit, store_column_text(s, 2, ""));
	w->s.kind = kind;
	w->s.unit = w->unit.buf;
	w->s.last_value = metric_judged_value(kind, median, value);
	store_column_sha(w->s.last_commit, s, 7);
	w->s.last_seq = seq;
	w->last_place = place;
	return 0;
}

/* Walks one group's members; returns 1 when fn asked to stop. */
static int walk_group(struct series_state *w, struct store *st, struct store_stmt *s,
		      const struct series_group *g, store_series_fn fn, void *data,
		      struct bl_error *err)
{
	int rc, started = 0;
	store_reset(s);
	store_bind_int64(s, 1, g->machine_id);
	store_bind_int64(s, 2, g->benchmark_id);
	store_bind_text(s, 3, g->config);
	while ((rc = store_step(s)) == STORE_ROW) {
		const char *metric = store_column_text(s, 0, "");
		if (!started || strcmp(metric, w->metric.buf)) {
			if (started && fn(&w->s, data))
				return 1;
			state_start(w, g, metric);
			started = 1;
		}
		if (state_add(w, st, s, err))
			return BL_EDB;
	}
	if (rc != STORE_DONE)
		return store_db_error(err, st, "cannot read a series");
	if (started && fn(&w->s, data))
		return 1;
	return 0;
}

int store_each_series(struct store *st, const struct store_series_filter *filter,
		      store_series_fn fn, void *data, struct bl_error *err)
{
	struct store_stmt *members = NULL;
	struct series_group *groups = NULL;
	size_t ngroups = 0;
	struct series_state w;
	int own_txn = 0, ret = 0;

	memset(&w, 0, sizeof(w));
	strbuf_init(&w.id, 0);
	strbuf_init(&w.metric, 0);
	strbuf_init(&w.unit, 0);
	strbuf_init(&w.content, 0);
	/* One read transaction: every group sees the same database. */
	if (store_autocommit(st)) {
		if ((ret = store_begin_read(st, err)))
			goto done;
		own_txn = 1;
	}
	if ((ret = list_groups(&groups, &ngroups, st, filter, err)))
		goto done;
	if (!(members = store_stmt(st, SQL_SERIES_MEMBERS, err))) {
		ret = BL_EDB;
		goto done;
	}
	for (size_t i = 0; i < ngroups; i++) {
		if ((ret = load_counts(&w, st, &groups[i], err)))
			break;
		ret = walk_group(&w, st, members, &groups[i], fn, data, err);
		if (ret) {
			if (ret > 0)
				ret = 0;
			break;
		}
	}
done:
	/* A walk stopped early leaves the statement mid-step: reset before the read ends. */
	if (members)
		store_reset(members);
	if (own_txn)
		store_end_read(st);
	groups_release(groups, ngroups);
	free(w.lines);
	counts_reset(&w);
	free(w.counts);
	strbuf_release(&w.id);
	strbuf_release(&w.metric);
	strbuf_release(&w.unit);
	strbuf_release(&w.content);
	return ret;
}

int store_series_id_has_dot_part(const char *id)
{
	for (const char *part = id; part; part = strchr(part, '/') ? strchr(part, '/') + 1 : NULL) {
		size_t n = strcspn(part, "/");
		if ((n == 1 || n == 2) && !strncmp(part, "..", n))
			return 1;
	}
	return 0;
}

void store_series_page_path(struct strbuf *out, const char *id)
{
	if (!store_series_id_has_dot_part(id)) {
		strbuf_addf(out, "/series/%s", id);
		return;
	}
	strbuf_addstr(out, "/series?id=");
	for (const char *c = id; *c; c++)
		if (*c == '%')
			strbuf_addstr(out, "%25");
		else
			strbuf_addch(out, *c);
}

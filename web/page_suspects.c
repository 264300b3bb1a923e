/*
 * The Suspects page, GET /suspects (§6, §9.1): every Suspect, grouped by the alert it belongs
 * to, each group named by its own alert and that alert's commit (a Suspect that joined an
 * earlier alert, a step continuing it, is listed there with its own commit), the newest
 * alert's commit first; ?side=slower shows the slower ones.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "web/web.h"

/* A Suspect as the page lists it, kept until all are read: the page groups them by alert. */
struct row {
	int64_t id, alert_id, seq;
	char *machine, *benchmark, *config, *metric, *commit, *subject, *unit;
	double date, shift, center, tolerance;
	enum suspect_side side;
	enum suspect_state state;
	enum suspect_kind kind; /* which opinion marked it */
	size_t group;		/* its group's number, in the order groups were made */
};

/* An alert as its group's header names it. */
struct alert_head {
	int64_t id;
	char commit[41];
	enum suspect_state state;
};

/* A group: an alert's Suspects, or those of one machine and commit that are in no alert. */
struct group {
	int64_t alert_id; /* 0: no alert */
	const char *machine, *commit;
	enum suspect_state state;
	const struct row *head; /* the row at its commit, else its first */
	size_t last;		/* its last row in the store's order (the oldest commit) */
	size_t number;		/* in the order groups were made */
	size_t nslower, nfaster;
};

struct suspects_page {
	const struct web_ctx *ctx;
	char *repo_url;
	int slower_only;
	struct row *rows;
	size_t nrows, rows_alloc;
	struct alert_head *alerts;
	size_t nalerts, alerts_alloc;
	struct group *groups;
	size_t ngroups, groups_alloc;
};

static int row_one(const struct store_web_suspect_row *sx, void *data)
{
	struct suspects_page *sp = data;
	struct row *r;
	if (sp->slower_only && sx->side != SUSPECT_SLOWER)
		return 0;
	ALLOC_GROW(sp->rows, sp->nrows, sp->rows_alloc);
	r = &sp->rows[sp->nrows++];
	r->id = sx->id;
	r->alert_id = sx->alert_id;
	r->seq = sx->seq;
	r->machine = xstrdup(sx->machine);
	r->benchmark = xstrdup(sx->benchmark);
	r->config = xstrdup(sx->config);
	r->metric = xstrdup(sx->metric);
	r->commit = xstrdup(sx->commit);
	r->subject = xstrdup_or_null(sx->subject);
	r->unit = xstrdup(sx->unit ? sx->unit : "");
	r->date = sx->date;
	r->shift = sx->shift;
	r->center = sx->center;
	r->tolerance = sx->tolerance;
	r->side = sx->side;
	r->kind = sx->kind;
	r->state = sx->state;
	return 0;
}

static int alert_one(const struct store_alert *a, void *data)
{
	struct suspects_page *sp = data;
	struct alert_head *h;
	ALLOC_GROW(sp->alerts, sp->nalerts, sp->alerts_alloc);
	h = &sp->alerts[sp->nalerts++];
	h->id = a->id;
	snprintf(h->commit, sizeof(h->commit), "%s", a->commit);
	h->state = a->state;
	return 0;
}

/* The alert of id (listed in id order), NULL when it is not listed. */
static const struct alert_head *find_alert(const struct suspects_page *sp, int64_t id)
{
	size_t lo = 0, hi = sp->nalerts;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (sp->alerts[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < sp->nalerts && sp->alerts[lo].id == id ? &sp->alerts[lo] : NULL;
}

/* 1 when row r belongs to group g: its alert's, or with no alert its machine's and commit's. */
static int in_group(const struct group *g, const struct row *r, const struct alert_head *a)
{
	if (a)
		return g->alert_id == a->id;
	return !g->alert_id && !strcmp(g->machine, r->machine) && !strcmp(g->commit, r->commit);
}

/* The group row i belongs to (made when it is the first), its number kept in the row. */
static struct group *group_of(struct suspects_page *sp, size_t i)
{
	struct row *r = &sp->rows[i];
	const struct alert_head *a = r->alert_id ? find_alert(sp, r->alert_id) : NULL;
	struct group *g;
	for (size_t k = 0; k < sp->ngroups; k++)
		if (in_group(&sp->groups[k], r, a)) {
			r->group = sp->groups[k].number;
			return &sp->groups[k];
		}
	ALLOC_GROW(sp->groups, sp->ngroups, sp->groups_alloc);
	g = &sp->groups[sp->ngroups];
	memset(g, 0, sizeof(*g));
	g->number = r->group = sp->ngroups++;
	g->alert_id = a ? a->id : 0;
	g->machine = r->machine;
	g->commit = a ? a->commit : r->commit;
	g->state = a ? a->state : r->state;
	return g;
}

/* The store lists rows by machine, the newest commit first: a group goes where its oldest row
 * is, so the groups are in the order of their alerts' commits, newest first. */
static int cmp_group(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	return x->last < y->last ? -1 : x->last > y->last;
}

static void make_groups(struct suspects_page *sp)
{
	for (size_t i = 0; i < sp->nrows; i++) {
		struct group *g = group_of(sp, i);
		const struct row *r = &sp->rows[i];
		g->last = i;
		if (r->side == SUSPECT_SLOWER)
			g->nslower++;
		else
			g->nfaster++;
		if (!g->head ||
		    (strcmp(g->head->commit, g->commit) && !strcmp(r->commit, g->commit)))
			g->head = r;
	}
	if (sp->ngroups > 1) /* none: no array at all */
		qsort(sp->groups, sp->ngroups, sizeof(*sp->groups), cmp_group);
}

/* A group's header row: its alert, machine and commit, and what it holds. */
static void add_group_head(struct strbuf *sb, const struct suspects_page *sp, const struct group *g)
{
	const struct row *h = g->head;
	int at_commit = !strcmp(h->commit, g->commit);
	strbuf_addstr(sb, "<tbody class=\"alert-group\"><tr class=\"group\"");
	if (g->alert_id) {
		strbuf_addf(sb, " id=\"alert-%lld\"><td colspan=\"11\"><a href=\"",
			    (long long)g->alert_id);
		web_add_alert_href(sb, sp->ctx, g->alert_id);
		strbuf_addf(sb, "\"><strong>Alert %lld</strong></a> · ", (long long)g->alert_id);
	} else {
		strbuf_addstr(
		    sb, "><td colspan=\"11\"><span class=\"muted\">in no alert yet</span> · ");
	}
	strbuf_addstr(sb, "<strong>");
	web_html_escape(sb, g->machine);
	strbuf_addstr(sb, "</strong> at ");
	web_add_commit(sb, sp->repo_url, g->commit, at_commit ? h->subject : NULL);
	if (at_commit && h->seq >= 0)
		strbuf_addf(sb, " (seq %lld)", (long long)h->seq);
	if (at_commit) {
		strbuf_addstr(sb, ", <span class=\"date\">");
		web_format_date(sb, h->date);
		strbuf_addstr(sb, " UTC</span>");
	}
	if (at_commit && h->subject) {
		strbuf_addstr(sb, " <span class=\"subject\">“");
		web_html_escape(sb, h->subject);
		strbuf_addstr(sb, "”</span>");
	}
	strbuf_addstr(sb, " <span class=\"muted\">");
	web_html_escape(sb, suspect_state_name(g->state));
	strbuf_addf(sb, ": %zu slower, %zu faster</span></td></tr>\n", g->nslower, g->nfaster);
}

static void add_row(struct strbuf *sb, const struct suspects_page *sp, const struct row *r)
{
	const char *side = suspect_side_name(r->side);
	struct strbuf id = STRBUF_INIT;
	struct unit_scale sc;
	store_series_id(&id, r->machine, r->benchmark, r->config, r->metric);
	strbuf_addf(sb, "<tr class=\"suspect %s\"><td class=\"num\">%lld</td><td>", side,
		    (long long)r->id);
	web_add_commit(sb, sp->repo_url, r->commit, r->subject);
	strbuf_addstr(sb, "</td>");
	web_add_series_cells(sb, sp->ctx, id.buf, r->benchmark, r->config, r->metric, NULL);
	strbuf_addf(sb, "<td class=\"%s\">%s", side, side);
	if (r->kind == SUSPECT_CHANGE_POINT)
		strbuf_addstr(sb,
			      " <span class=\"kind\" title=\"found by the change-point search: a "
			      "level that held 8 records; center is the level before\">change "
			      "point</span>");
	strbuf_addstr(sb, "</td><td class=\"num\">");
	web_add_delta(sb, 1 + r->shift);
	/* the center and its tolerance in one scale, the center's */
	unit_scale_choose(&sc, r->unit, r->center);
	strbuf_addstr(sb, "</td><td class=\"num\">");
	web_add_quantity(sb, r->center, &sc);
	strbuf_addstr(sb, "</td><td class=\"num\">");
	web_add_quantity(sb, r->tolerance, &sc);
	strbuf_addstr(sb, "</td><td>");
	web_html_escape(sb, suspect_state_name(r->state));
	strbuf_addstr(sb, "</td><td><a href=\"");
	web_add_series_url(sb, sp->ctx, id.buf, WEB_SERIES_PAGE, NULL, NULL);
	strbuf_addstr(sb, "\">chart</a></td></tr>\n");
	strbuf_release(&id);
}

/* "10 Suspects in 9 alerts, at 9 commits": commits counted once however many machines and
 * alerts share them. */
static void add_counts(struct strbuf *sb, const struct suspects_page *sp)
{
	size_t commits = 0, alerts = 0;
	for (size_t i = 0; i < sp->nrows; i++) {
		size_t k = 0;
		while (k < i && strcmp(sp->rows[k].commit, sp->rows[i].commit))
			k++;
		commits += k == i;
	}
	for (size_t k = 0; k < sp->ngroups; k++)
		alerts += sp->groups[k].alert_id != 0;
	strbuf_addf(sb, "<p class=\"muted\">%zu Suspect%s in %zu alert%s, at %zu commit%s.</p>\n",
		    sp->nrows, sp->nrows == 1 ? "" : "s", alerts, alerts == 1 ? "" : "s", commits,
		    commits == 1 ? "" : "s");
}

/* What the page is, and its filter by side. */
static void add_intro(struct strbuf *sb, const struct suspects_page *sp)
{
	const struct web_ctx *ctx = sp->ctx;
	strbuf_addstr(sb, "<p class=\"muted\">Records that stepped out of the range their Series "
			  "kept before them: the first record of a step, and the first records "
			  "of the slower levels the change-point search found (a second opinion, "
			  "8 records late: <em>change point</em>), grouped by the alert they "
			  "belong to, the newest first.");
	if (ctx->exported) {
		strbuf_addstr(sb, "</p>\n");
		return;
	}
	strbuf_addstr(sb, " <a href=\"");
	web_add_href(sb, ctx, "/api/suspects");
	strbuf_addstr(sb, "\">JSON</a></p>\n<p class=\"filter\">Show: ");
	if (sp->slower_only) {
		strbuf_addstr(sb, "<a href=\"");
		web_add_href(sb, ctx, "/suspects");
		strbuf_addstr(sb, "\">both sides</a> · <strong>slower only</strong></p>\n");
	} else {
		strbuf_addstr(sb, "<strong>both sides</strong> · <a href=\"");
		web_add_href(sb, ctx, "/suspects?side=slower");
		strbuf_addstr(sb, "\">slower only</a></p>\n");
	}
}

static void suspects_page_release(struct suspects_page *sp)
{
	for (size_t i = 0; i < sp->nrows; i++) {
		struct row *r = &sp->rows[i];
		free(r->machine);
		free(r->benchmark);
		free(r->config);
		free(r->metric);
		free(r->commit);
		free(r->subject);
		free(r->unit);
	}
	free(sp->rows);
	free(sp->alerts);
	free(sp->groups);
	free(sp->repo_url);
}

static void add_groups(struct strbuf *sb, const struct suspects_page *sp)
{
	strbuf_addstr(sb, "<table id=\"suspects\"><thead><tr><th>id</th><th>commit</th>"
			  "<th>benchmark</th><th>config</th><th>metric</th><th>side</th>"
			  "<th>shift</th><th>center</th><th>tolerance</th><th>state</th><th></th>"
			  "</tr></thead>\n");
	for (size_t k = 0; k < sp->ngroups; k++) {
		const struct group *g = &sp->groups[k];
		add_group_head(sb, sp, g);
		for (size_t i = 0; i < sp->nrows; i++)
			if (sp->rows[i].group == g->number)
				add_row(sb, sp, &sp->rows[i]);
		strbuf_addstr(sb, "</tbody>\n");
	}
	strbuf_addstr(sb, "</table>\n");
}

int web_route_suspects(struct web_reply *r, const struct web_request *req, struct bl_error *err)
{
	const struct web_ctx *ctx = req->ctx;
	struct store_alert_filter every;
	struct strbuf *sb = &r->body;
	struct suspects_page sp;
	int ran, ret;

	memset(&sp, 0, sizeof(sp));
	memset(&every, 0, sizeof(every));
	sp.ctx = ctx;
	sp.slower_only = req->q.side && !strcmp(req->q.side, "slower");
	if ((ret = store_detect_ran(&ran, req->st, err)) ||
	    (ran && ((ret = store_each_alert(req->st, &every, alert_one, &sp, err)) ||
		     (ret = store_web_suspect_rows(req->st, row_one, &sp, err)))))
		goto done;
	make_groups(&sp);
	sp.repo_url = web_repo_url(ctx);
	web_page_start(sb, ctx, "Suspects");
	strbuf_addstr(sb, "<h1>Suspects</h1>\n");
	if (!ran) {
		strbuf_addstr(sb, "<p class=\"empty\">Detection has not run yet: run "
				  "<code>benchline detect</code> to find Suspects.</p>\n");
	} else {
		add_intro(sb, &sp);
		if (sp.nrows) {
			add_groups(sb, &sp);
			add_counts(sb, &sp);
		} else {
			strbuf_addstr(sb, sp.slower_only
					      ? "<p class=\"empty\">No slower Suspects.</p>\n"
					      : "<p class=\"empty\">No Suspects: detection found "
						"no step on any Series.</p>\n");
		}
	}
	web_page_end(sb);
	web_html_reply(r, 200);
done:
	suspects_page_release(&sp);
	return ret;
}

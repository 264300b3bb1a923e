/*
 * The alerts page, GET /alerts (§9.1, §11): every alert, the newest first, with the commit
 * range it stands for (its reference, the last record before the step, to its commit, with
 * their subjects), its state and confirm's outcome, its Series with their shifts and links to
 * their charts, and the Regressions bisection pinned for it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "web/web.h"

/* An alert as the page shows it (store_each_alert's strings copied: the page lists the newest
 * first, the store the oldest). */
struct alert_copy {
	int64_t id, series, judged_series;
	char *machine, *commit, *reference, *note, *filed_url;
	enum suspect_side side;
	enum suspect_state state;
	enum alert_outcome outcome;
	int run_wide;
};

struct alerts_page {
	struct alert_copy *a;
	size_t nr, alloc;
	char *repo_url;
};

static int alert_copy_one(const struct store_alert *al, void *data)
{
	struct alerts_page *ap = data;
	struct alert_copy *c;
	ALLOC_GROW(ap->a, ap->nr, ap->alloc);
	c = &ap->a[ap->nr++];
	c->id = al->id;
	c->series = al->series;
	c->judged_series = al->judged_series;
	c->machine = xstrdup(al->machine);
	c->commit = xstrdup(al->commit);
	c->reference = xstrdup_or_null(al->reference_commit);
	c->note = xstrdup_or_null(al->note);
	c->filed_url = xstrdup_or_null(al->filed_url);
	c->side = al->side;
	c->state = al->state;
	c->outcome = al->outcome;
	c->run_wide = al->run_wide;
	return 0;
}

static void alerts_page_release(struct alerts_page *ap)
{
	for (size_t i = 0; i < ap->nr; i++) {
		free(ap->a[i].machine);
		free(ap->a[i].commit);
		free(ap->a[i].reference);
		free(ap->a[i].note);
		free(ap->a[i].filed_url);
	}
	free(ap->a);
	free(ap->repo_url);
}

/* One end of the range: the commit, its subject when it is on main, its seq. */
static int add_range_end(struct strbuf *sb, const struct alerts_page *ap, struct store *st,
			 const char *commit, struct bl_error *err)
{
	struct store_web_commit c;
	int ret = store_web_commit(&c, st, commit, err);
	if (ret)
		return ret;
	web_add_commit(sb, ap->repo_url, commit, c.subject);
	if (c.seq >= 0)
		strbuf_addf(sb, " (seq %lld)", (long long)c.seq);
	if (c.subject) {
		strbuf_addstr(sb, " <span class=\"subject\">“");
		web_html_escape(sb, c.subject);
		strbuf_addstr(sb, "”</span>");
	}
	store_web_commit_release(&c);
	return 0;
}

/* The alert's Series: one row per Suspect, its own commit (a Suspect that joined the alert by
 * continuing its step has a later one) and its shift. */
struct series_rows {
	struct strbuf *sb;
	const struct web_ctx *ctx;
	const char *repo_url;
	struct strbuf id;
};

static int series_row_one(const struct store_suspect *s, void *data)
{
	struct series_rows *sr = data;
	struct strbuf *sb = sr->sb;
	strbuf_reset(&sr->id);
	store_series_id(&sr->id, s->machine, s->benchmark, s->config, s->metric);
	strbuf_addf(sb, "<tr class=\"suspect %s\">", suspect_side_name(s->side));
	web_add_series_cells(sb, sr->ctx, sr->id.buf, s->benchmark, s->config, s->metric, NULL);
	strbuf_addstr(sb, "<td>");
	web_add_commit(sb, sr->repo_url, s->commit, NULL);
	strbuf_addf(sb, "</td><td class=\"num %s\">", suspect_side_name(s->side));
	web_add_delta(sb, 1 + s->shift);
	strbuf_addstr(sb, "</td><td><a href=\"");
	web_add_series_url(sb, sr->ctx, sr->id.buf, WEB_SERIES_PAGE, NULL, NULL);
	strbuf_addstr(sb, "\">chart</a></td></tr>\n");
	return 0;
}

/* The Regressions bisection pinned for the alert, each linked to its page. */
struct regression_links {
	struct strbuf *sb;
	const struct web_ctx *ctx;
	size_t n;
};

static int regression_link_one(const struct store_regression *g, void *data)
{
	struct regression_links *rl = data;
	strbuf_addstr(rl->sb, rl->n++ ? ", " : "<p class=\"regressions\">Regressions: ");
	strbuf_addstr(rl->sb, "<a href=\"");
	web_add_regression_href(rl->sb, rl->ctx, g->id);
	strbuf_addf(rl->sb, "\">Regression %lld</a> (", (long long)g->id);
	web_html_escape(rl->sb, g->benchmark);
	strbuf_addch(rl->sb, ' ');
	web_html_escape(rl->sb, g->metric);
	strbuf_addstr(rl->sb, " <span class=\"slower\">");
	web_add_delta(rl->sb, g->ratio);
	strbuf_addstr(rl->sb, "</span> at ");
	strbuf_add(rl->sb, g->commit, strnlen(g->commit, 12));
	strbuf_addch(rl->sb, ')');
	return 0;
}

/* The alert's heading: its id, state, side, machine, what confirm found. */
static void add_alert_head(struct strbuf *sb, const struct alert_copy *a)
{
	const char *outcome = alert_outcome_name(a->outcome);
	strbuf_addf(
	    sb,
	    "<section class=\"alert alert-%s\" id=\"alert-%lld\">\n<h2><a href=\"#alert-%lld\">"
	    "Alert %lld</a> <span class=\"state state-%s\">%s</span> <span class=\"%s\">%s"
	    "</span> on ",
	    suspect_state_name(a->state), (long long)a->id, (long long)a->id, (long long)a->id,
	    suspect_state_name(a->state), suspect_state_name(a->state), suspect_side_name(a->side),
	    suspect_side_name(a->side));
	web_html_escape(sb, a->machine);
	strbuf_addstr(sb,
		      a->run_wide ? " <span class=\"run-wide\">run-wide</span></h2>\n" : "</h2>\n");
	strbuf_addf(sb, "<p class=\"counts\">%lld Series", (long long)a->series);
	if (a->judged_series >= 0)
		strbuf_addf(sb, " of the %lld the machine judged at its commit",
			    (long long)a->judged_series);
	strbuf_addstr(sb, " · confirm: ");
	strbuf_addstr(sb, outcome ? outcome : "not measured yet");
	if (a->filed_url) {
		strbuf_addstr(sb, " · issue: ");
		web_add_filed(sb, a->filed_url);
	}
	if (a->note && *a->note) {
		strbuf_addstr(sb, " · ");
		web_html_escape(sb, a->note);
	}
	strbuf_addstr(sb, "</p>\n");
}

static int add_alert(struct strbuf *sb, const struct web_ctx *ctx, const struct alerts_page *ap,
		     struct store *st, const struct alert_copy *a, struct bl_error *err)
{
	struct series_rows sr = {sb, ctx, ap->repo_url, STRBUF_INIT};
	struct regression_links rl = {sb, ctx, 0};
	int ret;
	add_alert_head(sb, a);
	strbuf_addstr(sb, "<p class=\"range\">");
	if (a->reference) {
		strbuf_addstr(sb, "From ");
		if ((ret = add_range_end(sb, ap, st, a->reference, err)))
			goto done;
		strbuf_addstr(sb, "<br>to ");
	} else {
		strbuf_addstr(sb, "At ");
	}
	if ((ret = add_range_end(sb, ap, st, a->commit, err)))
		goto done;
	strbuf_addstr(sb, "</p>\n<table class=\"alert-series\"><thead><tr><th>benchmark</th>"
			  "<th>config</th><th>metric</th><th>commit</th><th>shift</th><th></th>"
			  "</tr></thead><tbody>\n");
	if ((ret = store_alert_suspects(st, a->id, series_row_one, &sr, err)))
		goto done;
	strbuf_addstr(sb, "</tbody></table>\n");
	if ((ret = store_each_regression(st, a->id, regression_link_one, &rl, err)))
		goto done;
	if (rl.n)
		strbuf_addstr(sb, ".</p>\n");
	strbuf_addstr(sb, "</section>\n");
done:
	strbuf_release(&sr.id);
	return ret;
}

/* "10 alerts: 8 open, 2 pending." */
static void add_alert_counts(struct strbuf *sb, const struct alerts_page *ap)
{
	static const enum suspect_state order[] = {
	    SUSPECT_PENDING,   SUSPECT_OPEN,	SUSPECT_CONFIRMED, SUSPECT_COVERED,
	    SUSPECT_TRANSIENT, SUSPECT_CLEARED, SUSPECT_IGNORED};
	int first = 1;
	strbuf_addf(sb, "<p class=\"muted\">%zu alert%s: ", ap->nr, ap->nr == 1 ? "" : "s");
	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
		size_t n = 0;
		for (size_t i = 0; i < ap->nr; i++)
			n += ap->a[i].state == order[k];
		if (!n)
			continue;
		strbuf_addf(sb, "%s%zu %s", first ? "" : ", ", n, suspect_state_name(order[k]));
		first = 0;
	}
	strbuf_addstr(sb, ".</p>\n");
}

int web_route_alerts(struct web_reply *r, const struct web_request *req, struct bl_error *err)
{
	const struct web_ctx *ctx = req->ctx;
	struct strbuf *sb = &r->body;
	struct store_alert_filter every;
	struct alerts_page ap;
	int ran, ret;

	memset(&ap, 0, sizeof(ap));
	memset(&every, 0, sizeof(every));
	if ((ret = store_detect_ran(&ran, req->st, err)) ||
	    (ran && (ret = store_each_alert(req->st, &every, alert_copy_one, &ap, err))))
		goto done;
	ap.repo_url = web_repo_url(ctx);
	web_page_start(sb, ctx, "Alerts");
	strbuf_addstr(sb, "<h1>Alerts</h1>\n<p class=\"muted\">An alert holds the Suspects one "
			  "machine found at one commit, and the steps that continued them: what "
			  "<code>benchline confirm</code> measures again and triage files. The "
			  "newest first.");
	if (!ctx->exported) {
		strbuf_addstr(sb, " <a href=\"");
		web_add_href(sb, ctx, "/api/alerts");
		strbuf_addstr(sb, "\">JSON</a>");
	}
	strbuf_addstr(sb, "</p>\n");
	if (!ran)
		strbuf_addstr(sb, "<p class=\"empty\">Detection has not run yet: run "
				  "<code>benchline detect</code> to find Suspects.</p>\n");
	else if (!ap.nr)
		strbuf_addstr(sb, "<p class=\"empty\">No alerts: detection found no step on any "
				  "Series.</p>\n");
	for (size_t i = ap.nr; i-- > 0;)
		if ((ret = add_alert(sb, ctx, &ap, req->st, &ap.a[i], err)))
			goto done;
	if (ap.nr)
		add_alert_counts(sb, &ap);
	web_page_end(sb);
	web_html_reply(r, 200);
done:
	alerts_page_release(&ap);
	return ret;
}

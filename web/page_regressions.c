/*
 * The Regressions (§9.3, §11): GET /regressions, every commit bisection pinned, with its
 * delta and interval, the good commit it was bisected from, its alert and its issue; GET
 * /regressions/{id}, one of them: its range, culprit, confirm's outcome, the bisection's
 * probe log and where the extra instructions went (§9.7) when it was profiled.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "detect/confirm/confirm.h"
#include "web/web.h"

/* A link to an alert on the alerts page, named by its id. */
static void add_alert_link(struct strbuf *sb, const struct web_ctx *ctx, int64_t alert_id)
{
	strbuf_addstr(sb, "<a href=\"");
	web_add_alert_href(sb, ctx, alert_id);
	strbuf_addf(sb, "\">%lld</a>", (long long)alert_id);
}

struct regressions_page {
	struct strbuf *out;
	const struct web_ctx *ctx;
	size_t count;
	struct strbuf id;
	char *repo_url;
};

static int regressions_page_one(const struct store_regression *g, void *data)
{
	struct regressions_page *rp = data;
	struct strbuf *sb = rp->out;
	rp->count++;
	strbuf_reset(&rp->id);
	store_series_id(&rp->id, g->machine, g->benchmark, g->config, g->metric);
	strbuf_addstr(sb, "<tr class=\"regression\"><td class=\"num\"><a href=\"");
	web_add_regression_href(sb, rp->ctx, g->id);
	strbuf_addf(sb, "\">%lld</a></td><td class=\"nowrap\">", (long long)g->id);
	web_html_escape(sb, g->machine);
	strbuf_addstr(sb, "</td>");
	web_add_series_cells(sb, rp->ctx, rp->id.buf, g->benchmark, g->config, g->metric,
			     "regressions");
	web_add_commit_cell(sb, rp->repo_url, g->commit);
	strbuf_addstr(sb, "<td>");
	web_add_pr(sb, rp->repo_url, g->pr);
	strbuf_addstr(sb, "</td><td class=\"subject\">");
	web_html_escape(sb, g->subject ? g->subject : "");
	strbuf_addstr(sb, "</td><td class=\"num slower\">");
	web_add_delta(sb, g->ratio);
	strbuf_addstr(sb, "</td><td class=\"nowrap\">");
	web_add_delta_interval(sb, g->lo, g->hi);
	strbuf_addstr(sb, "</td>");
	web_add_commit_cell(sb, rp->repo_url, g->reference_commit);
	if (g->alert_id) {
		strbuf_addstr(sb, "<td class=\"num\">");
		add_alert_link(sb, rp->ctx, g->alert_id);
		strbuf_addstr(sb, "</td><td>");
	} else {
		strbuf_addstr(sb, "<td class=\"num muted\">–</td><td>");
	}
	web_add_filed(sb, g->filed_url);
	strbuf_addstr(sb, "</td><td><a href=\"");
	web_add_series_url(sb, rp->ctx, rp->id.buf, WEB_SERIES_PAGE, NULL, "regressions");
	strbuf_addstr(sb, "\">chart</a></td></tr>\n");
	return 0;
}

int web_route_regressions(struct web_reply *r, const struct web_request *req, struct bl_error *err)
{
	const struct web_ctx *ctx = req->ctx;
	struct store *st = req->st;
	struct strbuf *sb = &r->body;
	struct regressions_page rp = {sb, ctx, 0, STRBUF_INIT, web_repo_url(ctx)};
	size_t table_at;
	int ret;

	web_page_start(sb, ctx, "Regressions");
	strbuf_addstr(sb, "<h1>Regressions</h1>\n<p class=\"muted\">Commits bisection pinned: "
			  "each slower than the good commit it was bisected from, by the change "
			  "the two measured side by side show, and its 99% interval.");
	if (!ctx->exported) {
		strbuf_addstr(sb, " <a href=\"");
		web_add_href(sb, ctx, "/api/regressions");
		strbuf_addstr(sb, "\">JSON</a>");
	}
	strbuf_addstr(sb, "</p>\n");
	table_at = sb->len;
	strbuf_addstr(sb, "<table id=\"regressions\"><thead><tr><th>id</th><th>machine</th>"
			  "<th>benchmark</th><th>config</th><th>metric</th><th>commit</th>"
			  "<th>PR</th><th>subject</th><th>delta</th><th>99% interval</th>"
			  "<th>good</th><th>alert</th><th>issue</th><th></th></tr></thead>"
			  "<tbody>\n");
	ret = store_each_regression(st, 0, regressions_page_one, &rp, err);
	strbuf_release(&rp.id);
	if (ret)
		goto done;
	strbuf_addstr(sb, "</tbody></table>\n");
	if (!rp.count) {
		strbuf_setlen(sb, table_at);
		strbuf_addstr(sb,
			      "<p class=\"empty\">No Regressions yet: <code>benchline "
			      "bisect</code> stores one when it pins a commit. Until then, see the "
			      "<a href=\"");
		web_add_href(sb, ctx, "/alerts");
		strbuf_addstr(sb, "\">alerts</a>.</p>\n");
	} else {
		strbuf_addf(sb, "<p class=\"muted\">%zu Regression%s.</p>\n", rp.count,
			    rp.count == 1 ? "" : "s");
	}
	web_page_end(sb);
	web_html_reply(r, 200);
done:
	free(rp.repo_url);
	return ret;
}

/* One Regression: its id, the first the store lists with it (none: found 0). */
struct one_regression {
	int64_t id;
	int found;
	struct strbuf html; /* its page's body, made while the store's strings live */
	const struct web_ctx *ctx;
	struct store *st;
	char *repo_url;
	struct bl_error *err;
	int failed;
};

/* Where the extra instructions went (§9.7), when bisection profiled the pinned commit: the
 * functions that execute more, by their added self instructions. */
static void add_profile(struct strbuf *sb, const char *text)
{
	json_t *j = text ? json_loads(text, 0, NULL) : NULL;
	struct confirm_profile p;
	if (!j || confirm_profile_from_json(&p, j, NULL)) {
		json_decref(j);
		return;
	}
	strbuf_addstr(sb, "<h2 id=\"profile\">Where the extra instructions went</h2>\n");
	if (!p.nfunctions) {
		strbuf_addstr(sb, "<p>No function executes more instructions at the pinned commit."
				  "</p>\n");
	} else {
		strbuf_addstr(sb,
			      "<table class=\"profile\"><thead><tr><th>function</th><th>file</th>"
			      "<th>self</th><th>with callees</th></tr></thead><tbody>\n");
		for (size_t i = 0; i < p.nfunctions; i++) {
			const struct confirm_profile_fn *f = &p.functions[i];
			strbuf_addstr(sb, "<tr><td class=\"mono\">");
			web_html_escape(sb, f->function);
			strbuf_addstr(sb, "</td><td class=\"mono\">");
			web_html_escape(sb, f->file);
			strbuf_addstr(sb, "</td><td class=\"num\">");
			strbuf_add_change(sb, 1 + f->self_share, "");
			strbuf_addstr(sb, "</td><td class=\"num\">");
			strbuf_add_change(sb, 1 + f->inclusive_share, "");
			strbuf_addstr(sb, "</td></tr>\n");
		}
		strbuf_addstr(sb, "</tbody></table>\n");
	}
	strbuf_addf(sb,
		    "<p class=\"muted\">%s: %llu instructions at the good commit, %llu at the "
		    "pinned one (callgrind; %s).</p>\n",
		    p.fixed_work ? "Shares of the good commit's total"
				 : "Changes of each side's share",
		    (unsigned long long)p.base_total, (unsigned long long)p.head_total,
		    p.fixed_work ? "the counter command: fixed work"
				 : "bench.run: the work is not fixed, so each side's own total");
	confirm_profile_release(&p);
	json_decref(j);
}

/* The alert the Regression was bisected for: its state and what confirm found. */
static int alert_state_one(const struct store_alert *a, void *data)
{
	struct strbuf *sb = data;
	const char *outcome = alert_outcome_name(a->outcome);
	strbuf_addf(sb, " (%s; confirm: %s)", suspect_state_name(a->state),
		    outcome ? outcome : "not measured");
	return 1;
}

/* The facts of a Regression: its Series, culprit, range, change, alert and issue. */
static int add_regression_facts(struct one_regression *o, const struct store_regression *g)
{
	struct strbuf *sb = &o->html, id = STRBUF_INIT, title = STRBUF_INIT;
	struct store_alert_filter f;
	struct store_web_commit good;
	int ret = store_web_commit(&good, o->st, g->reference_commit, o->err);
	if (ret)
		return ret;
	store_series_id(&id, g->machine, g->benchmark, g->config, g->metric);
	strbuf_addstr(sb, "<dl class=\"meta\"><dt>Series</dt><dd><a href=\"");
	web_add_series_url(sb, o->ctx, id.buf, WEB_SERIES_PAGE, NULL, "regressions");
	strbuf_addstr(sb, "\">");
	web_series_title(&title, g->machine, g->benchmark, g->config, g->metric);
	web_html_escape(sb, title.buf);
	strbuf_addstr(sb, "</a></dd><dt>culprit</dt><dd>");
	web_add_commit(sb, o->repo_url, g->commit, g->subject);
	if (g->seq >= 0)
		strbuf_addf(sb, " (seq %lld)", (long long)g->seq);
	if (g->subject) {
		strbuf_addstr(sb, " “");
		web_html_escape(sb, g->subject);
		strbuf_addstr(sb, "”");
	}
	if (g->pr > 0) {
		strbuf_addstr(sb, ", PR ");
		web_add_pr(sb, o->repo_url, g->pr);
	}
	strbuf_addstr(sb, "</dd><dt>range</dt><dd>bisected from the good commit ");
	web_add_commit(sb, o->repo_url, g->reference_commit, good.subject);
	if (good.seq >= 0)
		strbuf_addf(sb, " (seq %lld)", (long long)good.seq);
	strbuf_addstr(sb, " to the culprit</dd><dt>change</dt><dd class=\"slower\">");
	web_add_delta(sb, g->ratio);
	strbuf_addstr(sb, ", 99% interval ");
	web_add_delta_interval(sb, g->lo, g->hi);
	strbuf_addstr(sb, "</dd><dt>alert</dt><dd>");
	memset(&f, 0, sizeof(f));
	f.id = g->alert_id;
	if (!g->alert_id) {
		strbuf_addstr(sb, "<span class=\"muted\">none: bisect ran on its own</span>");
	} else {
		add_alert_link(sb, o->ctx, g->alert_id);
		ret = store_each_alert(o->st, &f, alert_state_one, sb, o->err);
	}
	strbuf_addstr(sb, "</dd><dt>issue</dt><dd>");
	web_add_filed(sb, g->filed_url);
	strbuf_addstr(sb, "</dd></dl>\n");
	store_web_commit_release(&good);
	strbuf_release(&id);
	strbuf_release(&title);
	return ret;
}

static int one_regression_one(const struct store_regression *g, void *data)
{
	struct one_regression *o = data;
	struct strbuf *sb = &o->html;
	if (g->id != o->id)
		return 0;
	o->found = 1;
	strbuf_addf(sb, "<h1>Regression %lld: ", (long long)g->id);
	web_html_escape(sb, g->benchmark);
	strbuf_addch(sb, ' ');
	web_html_escape(sb, g->metric);
	strbuf_addstr(sb, " <span class=\"slower\">");
	web_add_delta(sb, g->ratio);
	strbuf_addstr(sb, "</span></h1>\n");
	if (add_regression_facts(o, g)) {
		o->failed = 1;
		return 1;
	}
	strbuf_addstr(sb, "<h2 id=\"probes\">The bisection's probes</h2>\n");
	web_add_probe_log(sb, o->repo_url, g->probes);
	add_profile(sb, g->profile);
	return 1;
}

/* GET /regressions/{id} */
int web_route_regression(struct web_reply *r, const struct web_request *req, struct bl_error *err)
{
	struct one_regression o = {
	    req->id, 0, STRBUF_INIT, req->ctx, req->st, web_repo_url(req->ctx), err, 0};
	struct strbuf title = STRBUF_INIT;
	int ret = store_each_regression(req->st, 0, one_regression_one, &o, err);
	if (!ret && o.failed)
		ret = err->code ? err->code : BL_EDB;
	if (ret)
		goto done;
	if (!o.found) {
		web_page_error(r, req->ctx, 404, "No such Regression");
		goto done;
	}
	strbuf_addf(&title, "Regression %lld", (long long)req->id);
	web_page_start(&r->body, req->ctx, title.buf);
	strbuf_add(&r->body, o.html.buf, o.html.len);
	strbuf_addstr(&r->body, "<p><a href=\"");
	web_add_href(&r->body, req->ctx, "/regressions");
	strbuf_addstr(&r->body, "\">All Regressions</a></p>\n");
	web_page_end(&r->body);
	web_html_reply(r, 200);
done:
	strbuf_release(&o.html);
	strbuf_release(&title);
	free(o.repo_url);
	return ret;
}

/*
 * The Regressions page, GET /regressions (§9.3): every commit bisection pinned, with its
 * delta and interval, the good commit it was bisected from, its alert and its issue.
 */
#include <stdlib.h>
#include <string.h>

#include "web/web.h"

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
	strbuf_addf(sb, "<tr class=\"regression\"><td class=\"num\">%lld</td><td class=\"nowrap\">",
		    (long long)g->id);
	web_html_escape(sb, g->machine);
	strbuf_addstr(sb, "</td><td>");
	web_html_escape(sb, g->benchmark);
	strbuf_addstr(sb, "</td><td>");
	if (g->config[0])
		web_html_escape(sb, g->config);
	else
		strbuf_addstr(sb, "<span class=\"muted\">–</span>");
	strbuf_addstr(sb, "</td><td><a href=\"");
	web_add_series_url(sb, rp->ctx, rp->id.buf, WEB_SERIES_PAGE, NULL, NULL);
	strbuf_addstr(sb, "#regressions\">");
	web_html_escape(sb, g->metric);
	strbuf_addstr(sb, "</a></td>");
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
	if (g->alert_id)
		strbuf_addf(sb, "<td class=\"num\">%lld</td><td>", (long long)g->alert_id);
	else
		strbuf_addstr(sb, "<td class=\"num muted\">–</td><td>");
	web_add_filed(sb, g->filed_url);
	strbuf_addstr(sb, "</td><td><a href=\"");
	web_add_series_url(sb, rp->ctx, rp->id.buf, WEB_SERIES_PAGE, NULL, NULL);
	strbuf_addstr(sb, "#regressions\">chart</a></td></tr>\n");
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
	strbuf_addstr(sb, "<h1>Regressions</h1>\n<p class=\"muted\">Commits bisection pinned "
			  "(§9.3): each slower than the good commit it was bisected from, by the "
			  "re-bench's paired ratio and its 99% interval. <a href=\"");
	web_html_escape(sb, ctx->base);
	strbuf_addstr(sb, "/api/regressions\">JSON</a></p>\n");
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
		web_html_escape(sb, ctx->base);
		strbuf_addstr(sb, "/suspects\">Suspects</a>.</p>\n");
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

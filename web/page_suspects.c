/*
 * The Suspects page, GET /suspects (§6, §9.1): every Suspect, grouped by machine and commit
 * (what an alert is made of), the newest commit first; ?side=slower shows the slower ones.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "web/web.h"

/* The Suspects page: one group per machine and commit (what an alert is made of), its
 * Suspects below it; a group's rows are kept until it ends, since its header names the alerts
 * they belong to. */
struct suspects_page {
	struct strbuf *out;
	const struct web_ctx *ctx;
	char *repo_url;
	int slower_only;
	size_t count, groups;
	struct strbuf id, rows;
	/* the group being read */
	char machine[256], commit[41];
	char *subject;
	int64_t seq;
	double date;
	int64_t *alerts;
	size_t nalerts, alerts_alloc, nslower, nfaster;
	int open;
};

static void add_num_cell(struct strbuf *sb, double v, const char *unit)
{
	strbuf_addstr(sb, "<td class=\"num\">");
	if (isnan(v))
		strbuf_addstr(sb, "–");
	else if (v == floor(v) && fabs(v) < 1e15)
		strbuf_addf(sb, "%.0f", v);
	else
		strbuf_addf(sb, "%.6g", v);
	if (!isnan(v) && unit && *unit) {
		strbuf_addch(sb, ' ');
		web_html_escape(sb, unit);
	}
	strbuf_addstr(sb, "</td>");
}

/* Writes the group read so far: its header row, then its Suspects. */
static void suspects_group_end(struct suspects_page *sp)
{
	struct strbuf *sb = sp->out;
	if (!sp->open)
		return;
	sp->open = 0;
	sp->groups++;
	strbuf_addstr(sb, "<tbody class=\"alert-group\"><tr class=\"group\"><td colspan=\"10\">"
			  "<strong>");
	web_html_escape(sb, sp->machine);
	strbuf_addstr(sb, "</strong> at ");
	web_add_commit(sb, sp->repo_url, sp->commit, sp->subject);
	if (sp->seq >= 0)
		strbuf_addf(sb, " (seq %lld)", (long long)sp->seq);
	strbuf_addstr(sb, ", <span class=\"date\">");
	web_format_date(sb, sp->date);
	strbuf_addstr(sb, " UTC</span>");
	if (sp->subject) {
		strbuf_addstr(sb, " <span class=\"subject\">“");
		web_html_escape(sb, sp->subject);
		strbuf_addstr(sb, "”</span>");
	}
	strbuf_addstr(sb, " <span class=\"muted\">");
	if (sp->nalerts) {
		strbuf_addstr(sb, sp->nalerts > 1 ? "alerts " : "alert ");
		for (size_t i = 0; i < sp->nalerts; i++)
			strbuf_addf(sb, "%s%lld", i ? ", " : "", (long long)sp->alerts[i]);
		strbuf_addstr(sb, ": ");
	}
	strbuf_addf(sb, "%zu slower, %zu faster</span></td></tr>\n", sp->nslower, sp->nfaster);
	strbuf_add(sb, sp->rows.buf, sp->rows.len);
	strbuf_addstr(sb, "</tbody>\n");
	strbuf_reset(&sp->rows);
	free(sp->subject);
	sp->subject = NULL;
}

static int suspects_page_one(const struct store_web_suspect_row *sx, void *data)
{
	struct suspects_page *sp = data;
	struct strbuf *sb = &sp->rows;
	const char *side = suspect_side_name(sx->side);
	size_t k;
	if (sp->slower_only && sx->side != SUSPECT_SLOWER)
		return 0;
	if (!sp->open || strcmp(sp->machine, sx->machine) || strcmp(sp->commit, sx->commit)) {
		suspects_group_end(sp);
		sp->open = 1;
		snprintf(sp->machine, sizeof(sp->machine), "%s", sx->machine);
		snprintf(sp->commit, sizeof(sp->commit), "%s", sx->commit);
		sp->subject = sx->subject ? xstrdup(sx->subject) : NULL;
		sp->seq = sx->seq;
		sp->date = sx->date;
		sp->nalerts = sp->nslower = sp->nfaster = 0;
	}
	sp->count++;
	if (sx->side == SUSPECT_SLOWER)
		sp->nslower++;
	else
		sp->nfaster++;
	for (k = 0; k < sp->nalerts && sp->alerts[k] != sx->alert_id; k++)
		;
	if (sx->alert_id && k == sp->nalerts) {
		ALLOC_GROW(sp->alerts, sp->nalerts, sp->alerts_alloc);
		sp->alerts[sp->nalerts++] = sx->alert_id;
	}
	strbuf_reset(&sp->id);
	store_series_id(&sp->id, sx->machine, sx->benchmark, sx->config, sx->metric);
	strbuf_addf(sb, "<tr class=\"suspect %s\"><td class=\"num\">%lld</td><td>", side,
		    (long long)sx->id);
	web_html_escape(sb, sx->benchmark);
	strbuf_addstr(sb, "</td><td>");
	if (sx->config[0])
		web_html_escape(sb, sx->config);
	else
		strbuf_addstr(sb, "<span class=\"muted\">–</span>");
	strbuf_addstr(sb, "</td><td><a href=\"");
	web_add_series_url(sb, sp->ctx, sp->id.buf, WEB_SERIES_PAGE, NULL, NULL);
	strbuf_addstr(sb, "\">");
	web_html_escape(sb, sx->metric);
	strbuf_addf(sb, "</a></td><td class=\"%s\">", side);
	web_html_escape(sb, side);
	strbuf_addstr(sb, "</td><td class=\"num\">");
	if (isnan(sx->shift))
		strbuf_addstr(sb, "–");
	else
		strbuf_addf(sb, "%+.1f%%", sx->shift * 100);
	strbuf_addstr(sb, "</td>");
	add_num_cell(sb, sx->center, sx->unit);
	add_num_cell(sb, sx->tolerance, sx->unit);
	strbuf_addstr(sb, "<td>");
	web_html_escape(sb, suspect_state_name(sx->state));
	strbuf_addstr(sb, "</td><td><a href=\"");
	web_add_series_url(sb, sp->ctx, sp->id.buf, WEB_SERIES_PAGE, NULL, NULL);
	strbuf_addstr(sb, "\">chart</a></td></tr>\n");
	return 0;
}

int web_route_suspects(struct web_reply *r, const struct web_request *req, struct bl_error *err)
{
	const struct web_ctx *ctx = req->ctx;
	const struct web_query *q = &req->q;
	struct store *st = req->st;
	struct strbuf *sb = &r->body;
	struct suspects_page sp;
	size_t table_at;
	int ran, ret;

	memset(&sp, 0, sizeof(sp));
	sp.out = sb;
	sp.ctx = ctx;
	sp.slower_only = q->side && !strcmp(q->side, "slower");
	strbuf_init(&sp.id, 0);
	strbuf_init(&sp.rows, 0);
	if ((ret = store_detect_ran(&ran, st, err)))
		goto done;
	sp.repo_url = web_repo_url(ctx);
	web_page_start(sb, ctx, "Suspects");
	strbuf_addstr(sb, "<h1>Suspects</h1>\n");
	if (!ran) {
		strbuf_addstr(sb, "<p class=\"empty\">Detection has not run yet: run "
				  "<code>benchline detect</code> to find Suspects.</p>\n");
		goto end;
	}
	strbuf_addstr(sb, "<p class=\"muted\">Records the band of §6 marked as the first of a "
			  "step, grouped by machine and commit (an alert's Suspects), the newest "
			  "commit first. <a href=\"");
	web_html_escape(sb, ctx->base);
	strbuf_addstr(sb, "/api/suspects\">JSON</a></p>\n<p class=\"filter\">Show: ");
	if (sp.slower_only) {
		strbuf_addstr(sb, "<a href=\"");
		web_html_escape(sb, ctx->base);
		strbuf_addstr(sb,
			      "/suspects\">both sides</a> · <strong>slower only</strong></p>\n");
	} else {
		strbuf_addstr(sb, "<strong>both sides</strong> · <a href=\"");
		web_html_escape(sb, ctx->base);
		strbuf_addstr(sb, "/suspects?side=slower\">slower only</a></p>\n");
	}
	table_at = sb->len;
	strbuf_addstr(sb,
		      "<table id=\"suspects\"><thead><tr><th>id</th><th>benchmark</th>"
		      "<th>config</th><th>metric</th><th>side</th><th>shift</th>"
		      "<th>center</th><th>tolerance</th><th>state</th><th></th></tr></thead>\n");
	if ((ret = store_web_suspect_rows(st, suspects_page_one, &sp, err)))
		goto done;
	suspects_group_end(&sp);
	strbuf_addstr(sb, "</table>\n");
	if (!sp.count) {
		strbuf_setlen(sb, table_at);
		strbuf_addstr(sb, sp.slower_only
				      ? "<p class=\"empty\">No slower Suspects.</p>\n"
				      : "<p class=\"empty\">No Suspects: detection found "
					"no step on any Series.</p>\n");
	} else {
		strbuf_addf(sb, "<p class=\"muted\">%zu Suspect%s at %zu commit%s.</p>\n", sp.count,
			    sp.count == 1 ? "" : "s", sp.groups, sp.groups == 1 ? "" : "s");
	}
end:
	web_page_end(sb);
	web_html_reply(r, 200);
done:
	free(sp.subject);
	free(sp.alerts);
	free(sp.repo_url);
	strbuf_release(&sp.id);
	strbuf_release(&sp.rows);
	return ret;
}

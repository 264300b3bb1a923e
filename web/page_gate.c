/*
 * The gate's page, GET /gate?head=REV&base=REF (§7, §11): the verdict and the table of a
 * `benchline gate`, each row linked to its Series' chart (api_gate.c runs it).
 */
#include <math.h>
#include <string.h>

#include "detect/gate/gate.h"
#include "web/web.h"

static void gate_form(struct strbuf *sb, const struct web_ctx *ctx, const struct web_gate_query *q)
{
	strbuf_addstr(sb, "<form class=\"gate\" method=\"get\" action=\"");
	web_html_escape(sb, ctx->base);
	strbuf_addstr(sb, "/gate\"><label>head <input name=\"head\" value=\"");
	web_html_escape(sb, q->head ? q->head : "HEAD");
	strbuf_addstr(sb, "\"></label> <label>base <input name=\"base\" value=\"");
	web_html_escape(sb, q->base ? q->base : "");
	strbuf_addstr(sb, "\" placeholder=\"the main branch\"></label> "
			  "<button type=\"submit\">Compare</button></form>\n");
}

static void gate_rows(struct strbuf *sb, const struct web_ctx *ctx, const struct gate_comparison *c)
{
	struct strbuf text = STRBUF_INIT;
	strbuf_addstr(
	    sb,
	    "<table class=\"gate\"><thead><tr><th>Status</th><th>Benchmark</th>"
	    "<th>Metric</th><th>Machine</th><th>Before → after</th><th>Δ</th><th>99% interval</th>"
	    "<th>Limit</th><th>Noise</th><th>Note</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < c->nrows; i++) {
		const struct gate_row *row = &c->rows[i];
		struct strbuf id = STRBUF_INIT;
		const char *status = gate_status_name(row->status);
		store_series_id(&id, row->machine, row->benchmark, row->config, row->metric);
		strbuf_addf(sb, "<tr class=\"gate-%s\"><td>%s</td><td><a href=\"", status,
			    gate_row_label(row));
		web_add_series_url(sb, ctx, id.buf, WEB_SERIES_PAGE, NULL, NULL);
		strbuf_addstr(sb, "\">");
		web_html_escape(sb, row->benchmark);
		if (*row->config) {
			strbuf_addstr(sb, " [");
			web_html_escape(sb, row->config);
			strbuf_addstr(sb, "]");
		}
		strbuf_addstr(sb, "</a></td><td>");
		web_html_escape(sb, row->metric);
		strbuf_addstr(sb, "</td><td>");
		web_html_escape(sb, row->machine);
		strbuf_addstr(sb, "</td><td class=\"num\">");
		strbuf_reset(&text);
		gate_add_values(&text, row);
		web_html_escape(sb, text.buf);
		strbuf_addstr(sb, "</td><td>");
		web_add_delta(sb, row->ratio);
		strbuf_addstr(sb, "</td><td>");
		web_add_delta_interval(sb, row->lo, row->hi);
		strbuf_addstr(sb, "</td><td>");
		if (row->method == GATE_METHOD_LADDER) {
			/* a ladder's limit is a count of its unit, not a ratio */
			strbuf_reset(&text);
			strbuf_add_value(&text, row->effective_limit, row->unit);
			web_html_escape(sb, text.buf);
		} else {
			web_add_delta(sb, row->effective_limit);
		}
		strbuf_addstr(sb, "</td><td>");
		if (isfinite(row->noise))
			strbuf_addf(sb, "%.1f%%", 100 * row->noise);
		else
			strbuf_addstr(sb, "–");
		strbuf_addstr(sb, "</td><td>");
		if (row->override_glob)
			strbuf_addf(sb, "[override %g%%] ", 100 * (row->limit - 1));
		web_html_escape(sb, row->note ? row->note : "");
		strbuf_addstr(sb, "</td></tr>\n");
		strbuf_release(&id);
	}
	strbuf_addstr(sb, "</tbody></table>\n");
	strbuf_release(&text);
	for (size_t i = 0; i < c->nboards; i++) {
		const struct gate_board *b = &c->boards[i];
		strbuf_addstr(sb, "<p class=\"board\">Across the board, ");
		web_html_escape(sb, b->metric);
		strbuf_addf(sb, " over %zu benchmarks: %s, median change ", b->n,
			    gate_status_name(b->status));
		web_add_delta(sb, b->median);
		if (b->note) {
			strbuf_addstr(sb, ". ");
			web_html_escape(sb, b->note);
		}
		strbuf_addstr(sb, "</p>\n");
	}
}

/* " (a slower parser)": a commit's subject after its id, as the pull-request comment shows it. */
static void gate_subject(struct strbuf *sb, const char *subject)
{
	if (!subject || !*subject)
		return;
	strbuf_addstr(sb, " (");
	web_html_escape(sb, subject);
	strbuf_addch(sb, ')');
}

/* The verdict line: outcome, exit status, failing and undecided rows, what was compared. */
static void gate_verdict(struct strbuf *sb, const struct gate_report *report)
{
	struct strbuf undecided = STRBUF_INIT;
	strbuf_addf(sb, "<p class=\"verdict verdict-%s\">Verdict: <strong>",
		    gate_outcome_name(report->outcome));
	web_html_escape(sb, gate_outcome_name(report->outcome));
	strbuf_addf(sb, "</strong> (exit %d, %zu failing", report->exit_code, report->failures);
	gate_add_undecided(&undecided, report);
	web_html_escape(sb, undecided.buf);
	strbuf_addf(sb, "). Head <code>%.12s</code>", report->head_commit);
	gate_subject(sb, report->head_subject);
	strbuf_addstr(sb, " against ");
	web_html_escape(sb, report->main.ref_name ? report->main.ref_name : "");
	strbuf_addf(sb, ", merge base <code>%.12s</code>", report->main.commit);
	gate_subject(sb, report->merge_base_subject);
	strbuf_addstr(sb, ", limit ");
	web_add_delta(sb, report->limit);
	strbuf_addstr(sb, ".</p>\n");
	strbuf_release(&undecided);
}

/* GET /gate: the form, then the verdict and the table (or why there is none). */
int web_route_gate(struct web_reply *r, const struct web_request *req, struct bl_error *err)
{
	const struct web_ctx *ctx = req->ctx;
	struct strbuf *sb = &r->body;
	struct web_gate_query q;
	struct gate_report report;
	int status, ret = 0;

	if (web_gate_query_read(&q, r, req, 0))
		goto done;
	web_page_start(sb, ctx, "Gate");
	strbuf_addstr(sb, "<h1>Gate</h1>\n");
	gate_form(sb, ctx, &q);
	ret = web_gate_run(&report, &status, ctx, req->st, &q, err);
	if (ret && status == 400) {
		struct strbuf shown = STRBUF_INIT;
		web_scrub(&shown, ctx->opts, err->msg.buf);
		strbuf_addstr(sb, "<p class=\"error\">");
		web_html_escape(sb, shown.buf);
		strbuf_addstr(sb, "</p>\n");
		strbuf_release(&shown);
		web_page_end(sb);
		web_html_reply(r, 400);
		ret = 0;
		goto release;
	}
	if (ret)
		goto release;
	gate_verdict(sb, &report);
	if (report.message) {
		strbuf_addstr(sb, "<p class=\"muted\">");
		web_html_escape(sb, report.message);
		strbuf_addstr(sb, "</p>\n");
	}
	if (report.main.nrows)
		gate_rows(sb, ctx, &report.main);
	if (report.have_ratchet && report.ratchet.nrows) {
		strbuf_addstr(sb, "<h2>Ratchet against ");
		web_html_escape(sb, report.ratchet.ref_name);
		strbuf_addstr(sb, "</h2>\n");
		gate_rows(sb, ctx, &report.ratchet);
	}
	web_page_end(sb);
	web_html_reply(r, 200);
release:
	gate_report_release(&report);
done:
	web_gate_query_release(&q);
	return ret;
}

/*
 * The overview, GET / (§11): every Series at a glance, with a sparkline of its last records,
 * its last value, its change against its line's center, its open Suspects and Regressions,
 * and a search that works with or without script (?q=), and a sort (sort.js).
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "detect/detect.h"
#include "web/web.h"

static void add_lower(struct strbuf *sb, const char *s)
{
	for (; *s; s++)
		strbuf_addch(sb, (char)tolower((unsigned char)*s));
}

/* The overview's header: what needs looking at, and how fresh the data is. */
static void add_summary(struct strbuf *sb, const struct web_ctx *ctx,
			const struct store_web_summary *sum)
{
	strbuf_addstr(sb, "<p class=\"summary\"><a href=\"");
	web_add_href(sb, ctx, "/alerts");
	strbuf_addf(sb, "\"%s><strong>%lld</strong> open alert%s</a> · <a href=\"",
		    sum->open_alerts ? " class=\"slower\"" : "", (long long)sum->open_alerts,
		    sum->open_alerts == 1 ? "" : "s");
	web_add_href(sb, ctx, "/regressions");
	strbuf_addf(sb,
		    "\"%s><strong>%lld</strong> Regression%s</a> · "
		    "<strong>%lld</strong> machine%s · last push ",
		    sum->regressions ? " class=\"slower\"" : "", (long long)sum->regressions,
		    sum->regressions == 1 ? "" : "s", (long long)sum->machines,
		    sum->machines == 1 ? "" : "s");
	if (isnan(sum->last_stored))
		strbuf_addstr(sb, "<strong>none yet</strong>");
	else {
		strbuf_addstr(sb, "<strong>");
		web_format_date(sb, sum->last_stored);
		strbuf_addstr(sb, " UTC</strong>");
	}
	strbuf_addstr(sb, "</p>\n");
}

struct overview {
	struct strbuf *out;
	const struct web_ctx *ctx;
	const char *q;
	size_t shown, total;
	struct strbuf hay;
	struct store_detect *detect; /* NULL before detect has ever run */
	struct store *st;
	struct bl_error *err;
	int failed;
};

/* Every word of q (case-insensitive) is in hay. */
static int matches(const char *hay, const char *q)
{
	struct strbuf word = STRBUF_INIT;
	int ok = 1;
	while (q && *q && ok) {
		while (*q == ' ')
			q++;
		strbuf_reset(&word);
		while (*q && *q != ' ')
			strbuf_addch(&word, (char)tolower((unsigned char)*q++));
		if (word.len && !strstr(hay, word.buf))
			ok = 0;
	}
	strbuf_release(&word);
	return ok;
}

/* Records a sparkline draws: the last ones of the Series. */
#define SPARK_RECORDS 60
#define SPARK_W	      100
#define SPARK_H	      24

/* A number for the overview's column sort (data-v), "" when unknown. */
static void add_sort_number(struct strbuf *sb, double v)
{
	if (isfinite(v))
		strbuf_addf(sb, "%.17g", v);
}

/* The last records of a Series as a small inline SVG line, the last one a dot; its own y
 * range, so it shows the shape, not the level. */
static void add_sparkline(struct strbuf *sb, const double *v, size_t n)
{
	double lo = INFINITY, hi = -INFINITY, x = 0, y = 0;
	size_t shown = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i])) {
			lo = fmin(lo, v[i]);
			hi = fmax(hi, v[i]);
			shown++;
		}
	if (shown < 2) {
		strbuf_addstr(sb, "<span class=\"muted\">–</span>");
		return;
	}
	strbuf_addf(sb,
		    "<svg class=\"sparkline\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		    "role=\"img\"><title>the last %zu records</title><polyline fill=\"none\" "
		    "stroke=\"#3465a4\" stroke-width=\"1.2\" points=\"",
		    SPARK_W, SPARK_H, SPARK_W, SPARK_H, shown);
	for (size_t i = 0, k = 0; i < n; i++) {
		if (!isfinite(v[i]))
			continue;
		x = 2 + (SPARK_W - 4) * (double)k++ / (double)(shown - 1);
		/* On halves: no difference of two finite doubles overflows. */
		y = hi > lo ? 2 + (SPARK_H - 4) * (1 - (v[i] / 2 - lo / 2) / (hi / 2 - lo / 2))
			    : SPARK_H / 2.0;
		strbuf_addf(sb, "%s%.1f,%.1f", k > 1 ? " " : "", x, y);
	}
	strbuf_addf(sb, "\"/><circle cx=\"%.1f\" cy=\"%.1f\" r=\"2\" fill=\"#3465a4\"/></svg>", x,
		    y);
}

/* The last record against its line's center (§6: the median of up to 8 records before it
 * on its line), as a signed percent; red or green when it is outside the band, on the slower
 * or faster side. v holds the last n values, the last line the last line_records of them. */
static void add_change_cell(struct strbuf *sb, const double *v, size_t n, int64_t line_records,
			    int better_higher, const struct unit_scale *sc)
{
	size_t m = n < DETECT_WINDOW + 1 ? n : DETECT_WINDOW + 1;
	struct detect_verdict verdicts[DETECT_WINDOW + 1];
	const struct detect_verdict *last;
	if (line_records >= 0 && (size_t)line_records < m)
		m = (size_t)line_records;
	for (size_t i = n - m; i < n; i++)
		if (!isfinite(v[i]))
			m = n - i - 1;
	if (m < DETECT_MIN_WINDOW + 1) {
		strbuf_addstr(sb, "<td class=\"num muted\" data-v=\"\" title=\"fewer than 3 "
				  "records before it on its line\">–</td>");
		return;
	}
	detect_line(verdicts, v + n - m, m);
	last = &verdicts[m - 1];
	strbuf_addstr(sb, "<td class=\"num");
	if (last->outside)
		strbuf_addstr(sb,
			      detect_is_slower(last->above, better_higher) ? " slower" : " faster");
	strbuf_addstr(sb, "\" data-v=\"");
	add_sort_number(sb, last->shift);
	strbuf_addstr(sb, "\" title=\"against the center ");
	web_add_quantity(sb, last->center, sc);
	strbuf_addstr(sb, " ± ");
	web_add_quantity(sb, last->tolerance, sc);
	strbuf_addstr(sb, "\">");
	web_add_delta(sb, 1 + last->shift);
	strbuf_addstr(sb, "</td>");
}

/* The Series' names: machine, benchmark, config, metric. */
static void add_names(struct strbuf *sb, const struct store_series *s)
{
	strbuf_addstr(sb, "<td>");
	web_html_escape(sb, s->machine);
	strbuf_addstr(sb, "</td><td>");
	web_html_escape(sb, s->benchmark);
	strbuf_addstr(sb, "</td><td>");
	web_add_config(sb, s->config);
	strbuf_addstr(sb, "</td><td>");
	web_html_escape(sb, s->metric);
	strbuf_addstr(sb, "</td>");
}

/* Its open Suspects: "–" before detect has run (unknown, not zero), "not judged" for a Series
 * detection does not judge (its count would always be 0, and say nothing). */
static int add_suspects_cell(struct strbuf *sb, struct overview *o, const struct store_series *s)
{
	int64_t n;
	int judged, ret;
	if (!o->detect) {
		strbuf_addstr(sb, "<td class=\"num muted\" title=\"no detection data\" "
				  "data-v=\"-1\">–</td>");
		return 0;
	}
	if ((ret = store_series_judged(&judged, o->detect, s->machine, s->benchmark, s->config,
				       s->metric, o->err)) ||
	    (judged && (ret = store_open_suspects(&n, o->detect, s->machine, s->benchmark,
						  s->config, s->metric, o->err))))
		return ret;
	if (!judged) {
		strbuf_addstr(sb,
			      "<td class=\"num muted not-judged\" data-v=\"\" title=\"detection "
			      "does not judge this metric\">not judged</td>");
		return 0;
	}
	strbuf_addf(sb, "<td class=\"num%s\"><a href=\"", n ? " suspects" : "");
	web_add_href(sb, o->ctx, "/suspects");
	strbuf_addf(sb, "\">%lld</a></td>", (long long)n);
	return 0;
}

static int overview_one(const struct store_series *s, void *data)
{
	struct overview *o = data;
	struct strbuf *sb = o->out;
	struct unit_scale sc;
	double *values = NULL;
	size_t nvalues = 0;
	o->total++;
	strbuf_reset(&o->hay);
	add_lower(&o->hay, s->machine);
	strbuf_addch(&o->hay, ' ');
	add_lower(&o->hay, s->benchmark);
	strbuf_addch(&o->hay, ' ');
	add_lower(&o->hay, s->config);
	strbuf_addch(&o->hay, ' ');
	add_lower(&o->hay, s->metric);
	if (!matches(o->hay.buf, o->q))
		return 0;
	o->shown++;
	strbuf_addstr(sb, "<tr data-search=\"");
	web_html_escape(sb, o->hay.buf);
	strbuf_addstr(sb, "\">");
	add_names(sb, s);
	strbuf_addstr(sb, "<td class=\"spark\">");
	if (store_web_recent_values(&values, &nvalues, o->st, s->machine, s->benchmark, s->config,
				    s->metric, SPARK_RECORDS, o->err))
		goto fail;
	add_sparkline(sb, values, nvalues);
	/* one scale for the row, as `benchline series` and the Series' chart choose it */
	unit_scale_choose(&sc, s->unit, s->last_value);
	strbuf_addstr(sb, "</td><td class=\"num\" data-v=\"");
	add_sort_number(sb, s->last_value);
	strbuf_addstr(sb, "\">");
	web_add_quantity(sb, s->last_value, &sc);
	strbuf_addstr(sb, "</td>");
	add_change_cell(sb, values, nvalues,
			s->nlines ? s->lines[s->nlines - 1].records : (int64_t)nvalues,
			s->better_higher, &sc);
	free(values);
	strbuf_addf(sb, "<td class=\"num\">%lld</td><td class=\"num\">%zu</td>",
		    (long long)s->records, s->nlines);
	if (add_suspects_cell(sb, o, s))
		goto fail;
	if (s->regressions) {
		strbuf_addstr(sb, "<td class=\"num regressions\"><a href=\"");
		web_add_series_url(sb, o->ctx, s->id, WEB_SERIES_PAGE, NULL, "regressions");
		strbuf_addf(sb, "\">%lld</a></td><td><a href=\"", (long long)s->regressions);
	} else {
		strbuf_addstr(sb, "<td class=\"num\">0</td><td><a href=\"");
	}
	web_add_series_url(sb, o->ctx, s->id, WEB_SERIES_PAGE, NULL, NULL);
	strbuf_addstr(sb, "\">chart</a></td></tr>\n");
	return 0;
fail:
	o->failed = 1;
	return 1;
}

/* The search: a form the server answers (?q=, so a search can be bookmarked), which the script
 * also applies as you type; in an exported site, the script alone (data-local: the form is
 * never sent). */
static void add_search(struct strbuf *sb, const struct web_ctx *ctx, const struct web_query *q)
{
	if (ctx->exported) {
		strbuf_addstr(sb, "<form class=\"search\" data-local>");
	} else {
		strbuf_addstr(sb, "<form class=\"search\" method=\"get\" action=\"");
		web_add_href(sb, ctx, "/");
		strbuf_addstr(sb, "\">");
	}
	strbuf_addstr(sb, "<input type=\"search\" id=\"q\" name=\"q\" "
			  "placeholder=\"machine, benchmark, config or metric\" value=\"");
	web_html_escape(sb, q->q ? q->q : "");
	strbuf_addstr(sb, "\"> <button>Search</button></form>\n");
}

/* Below the table: how many rows are shown, and what the counts mean. */
static void add_overview_end(struct strbuf *sb, const struct overview *o)
{
	strbuf_addf(
	    sb, "<p class=\"muted\"><span id=\"shown\">%zu</span> of %zu Series shown. %s</p>\n",
	    o->shown, o->total,
	    o->detect ? "Open suspects as the last <code>benchline detect</code> left them."
		      : "Suspect counts appear once <code>benchline detect</code> has run.");
}

int web_route_overview(struct web_reply *r, const struct web_request *req, struct bl_error *err)
{
	const struct web_ctx *ctx = req->ctx;
	struct strbuf *sb = &r->body;
	struct overview o = {sb, ctx, req->q.q, 0, 0, STRBUF_INIT, NULL, req->st, err, 0};
	struct store_web_summary sum;
	size_t table_at;
	int ret;

	if ((ret = store_web_summary(&sum, req->st, err)) ||
	    (ret = web_open_detect(&o.detect, req->st, err)))
		return ret;
	web_page_start(sb, ctx, "Series");
	strbuf_addstr(sb, "<h1>Every Series</h1>\n");
	add_summary(sb, ctx, &sum);
	add_search(sb, ctx, &req->q);
	table_at = sb->len;
	strbuf_addstr(
	    sb, "<table id=\"series\" class=\"sortable\"><thead><tr>"
		"<th data-sort=\"text\">machine</th><th data-sort=\"text\">benchmark</th>"
		"<th data-sort=\"text\">config</th><th data-sort=\"text\">metric</th>"
		"<th>recent</th><th data-sort=\"num\">last value</th>"
		"<th data-sort=\"num\" title=\"the last record against the middle of the "
		"records before it on its line\">change</th><th data-sort=\"num\">records</th>"
		"<th data-sort=\"num\">lines</th><th data-sort=\"num\" title=\"open "
		"Suspects\">suspects</th><th data-sort=\"num\">regressions</th><th></th>"
		"</tr></thead><tbody>\n");
	ret = store_each_series(req->st, NULL, overview_one, &o, err);
	strbuf_release(&o.hay);
	if (!ret && o.failed)
		ret = err->code ? err->code : BL_EDB;
	if (!ret) {
		strbuf_addstr(sb, "</tbody></table>\n");
		if (!o.total) {
			strbuf_setlen(sb, table_at);
			strbuf_addstr(sb,
				      "<p class=\"empty\">No Series yet: ingest records (or run "
				      "<code>benchline demo</code>), or push them to "
				      "<code>POST /api/records</code>.</p>\n");
		} else {
			add_overview_end(sb, &o);
		}
		strbuf_addstr(sb, "<script src=\"");
		web_add_href(sb, ctx, "/assets/filter.js");
		strbuf_addstr(sb, "\"></script>\n<script src=\"");
		web_add_href(sb, ctx, "/assets/sort.js");
		strbuf_addstr(sb, "\"></script>\n");
		web_page_end(sb);
		web_html_reply(r, 200);
	}
	store_detect_close(o.detect);
	return ret;
}

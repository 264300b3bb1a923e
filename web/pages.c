/*
 * The pages and JSON documents the server answers with. Every string from the database or
 * the request goes into HTML through web_html_escape; JSON is built with jansson, exactly
 * as `benchline series --json`, `records --json` and `suspects --json` print it.
 */
#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "detect/detect.h"
#include "ingest/config/config.h"
#include "web/web.h"
#include "detect/confirm/confirm.h"
#include "detect/gate/gate.h"

/* JSON (§14) */

/* Appends one element of a JSON array printed as the CLI prints it. */
static void add_json_element(struct strbuf *sb, json_t *o, size_t index)
{
	char *text = json_write_text(o, 0);
	strbuf_addstr(sb, index ? ",\n" : "\n");
	strbuf_addstr(sb, text ? text : "null");
	free(text);
	json_decref(o);
}

static void close_json_array(struct strbuf *sb, size_t count)
{
	strbuf_addstr(sb, count ? "\n]\n" : "]\n");
}

/* Open Suspects per Series, once detect has run (d NULL before: nothing is known). */
static int open_detect(struct store_detect **d, struct store *st, struct bl_error *err)
{
	int ran;
	*d = NULL;
	if (store_detect_ran(&ran, st, err))
		return BL_EDB;
	return ran ? store_detect_open(d, st, err) : 0;
}

struct api_series {
	struct strbuf *out;
	size_t count;
	struct store_detect *detect;
	struct bl_error *err;
	int failed;
};

static int api_series_one(const struct store_series *s, void *data)
{
	struct api_series *a = data;
	json_t *open = NULL;
	int64_t n;
	if (a->detect) {
		if (store_open_suspects(&n, a->detect, s->machine, s->benchmark, s->config,
					s->metric, a->err)) {
			a->failed = 1;
			return 1;
		}
		open = json_integer(n);
	}
	add_json_element(a->out, detect_series_json(s, open), a->count++);
	return 0;
}

int web_api_series(struct web_reply *r, struct store *st, struct bl_error *err)
{
	struct api_series a = {&r->body, 0, NULL, err, 0};
	int ret;
	if ((ret = open_detect(&a.detect, st, err)))
		return ret;
	strbuf_addch(&r->body, '[');
	ret = store_each_series(st, NULL, api_series_one, &a, err);
	store_detect_close(a.detect);
	if (a.failed)
		ret = BL_EDB;
	if (ret)
		return ret;
	close_json_array(&r->body, a.count);
	r->status = 200;
	r->type = "application/json";
	return 0;
}

struct api_suspects {
	struct strbuf *out;
	size_t count;
};

static int api_suspects_one(const struct store_suspect *s, void *data)
{
	struct api_suspects *a = data;
	add_json_element(a->out, detect_suspect_json(s), a->count++);
	return 0;
}

int web_api_suspects(struct web_reply *r, struct store *st, struct bl_error *err)
{
	struct api_suspects a = {&r->body, 0};
	int ret;
	strbuf_addch(&r->body, '[');
	if ((ret = store_each_suspect(st, 0, api_suspects_one, &a, err)))
		return ret;
	close_json_array(&r->body, a.count);
	r->status = 200;
	r->type = "application/json";
	return 0;
}

struct api_regressions {
	struct strbuf *out;
	size_t count;
};

static int api_regressions_one(const struct store_regression *g, void *data)
{
	struct api_regressions *a = data;
	add_json_element(a->out, confirm_regression_json(g), a->count++);
	return 0;
}

int web_api_regressions(struct web_reply *r, struct store *st,
			const struct store_regression_filter *f, struct bl_error *err)
{
	struct api_regressions a = {&r->body, 0};
	int ret;
	strbuf_addch(&r->body, '[');
	if ((ret = store_each_regression_filtered(st, f, api_regressions_one, &a, err)))
		return ret;
	close_json_array(&r->body, a.count);
	r->status = 200;
	r->type = "application/json";
	return 0;
}

struct api_alerts {
	struct strbuf *out;
	size_t count;
	struct store *st;
	struct bl_error *err;
	int failed;
};

static int api_alerts_one(const struct store_alert *al, void *data)
{
	struct api_alerts *a = data;
	int64_t *ids;
	size_t n;
	json_t *arr;
	if (store_alert_suspect_ids(&ids, &n, a->st, al->id, a->err)) {
		a->failed = 1;
		return 1;
	}
	arr = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, json_integer(ids[i]));
	free(ids);
	add_json_element(a->out, detect_alert_json(al, arr), a->count++);
	return 0;
}

int web_api_alerts(struct web_reply *r, struct store *st, const struct store_alert_filter *f,
		   struct bl_error *err)
{
	struct api_alerts a = {&r->body, 0, st, err, 0};
	int ret;
	strbuf_addch(&r->body, '[');
	ret = store_each_alert(st, f, api_alerts_one, &a, err);
	if (!ret && a.failed)
		ret = err->code ? err->code : BL_EDB;
	if (ret)
		return ret;
	close_json_array(&r->body, a.count);
	r->status = 200;
	r->type = "application/json";
	return 0;
}

/* A page of GET /api/records: one row more than the page is read, to know whether another
 * page follows. */
struct api_page {
	json_t *records;
	size_t limit, count;
	int64_t last_id;
	int more;
};

static int api_page_one(const struct store_record_row *row, void *data)
{
	struct api_page *p = data;
	if (p->count == p->limit) {
		p->more = 1;
		return 1;
	}
	json_array_append_new(p->records, detect_record_json(row));
	p->count++;
	p->last_id = row->id;
	return 0;
}

int web_api_records(struct web_reply *r, struct store *st, const struct store_record_page *q,
		    struct bl_error *err)
{
	struct store_record_page page = *q;
	struct api_page p = {json_array(), q->limit, 0, 0, 0};
	json_t *o = NULL;
	int ret;
	page.limit = q->limit + 1;
	if ((ret = store_record_page(st, &page, api_page_one, &p, err))) {
		json_decref(p.records);
		return ret;
	}
	o = json_pack("{s:o, s:o}", "records", p.records, "next",
		      p.more ? json_integer(p.last_id) : json_null());
	web_reply_json(r, 200, o);
	return 0;
}

/* Finding a Series by its decoded names. */

struct series_copy {
	const char *config, *metric;
	int found;
	enum metric_kind kind;
	char *unit, *id;
	int better_higher;
	int64_t records;
	struct store_series_line *lines;
	size_t nlines;
};

static int find_series_one(const struct store_series *s, void *data)
{
	struct series_copy *c = data;
	if (strcmp(s->config, c->config) || strcmp(s->metric, c->metric))
		return 0;
	c->found = 1;
	c->kind = s->kind;
	c->unit = xstrdup(s->unit);
	c->better_higher = s->better_higher;
	c->id = xstrdup(s->id);
	c->records = s->records;
	c->nlines = s->nlines;
	c->lines = xcalloc(s->nlines ? s->nlines : 1, sizeof(*c->lines));
	if (s->nlines)
		memcpy(c->lines, s->lines, s->nlines * sizeof(*c->lines));
	return 1;
}

static void series_copy_release(struct series_copy *c)
{
	free(c->unit);
	free(c->id);
	free(c->lines);
}

static int find_series(struct series_copy *c, struct store *st, const char *const names[4],
		       struct bl_error *err)
{
	struct store_series_filter f = {names[0], names[1]};
	memset(c, 0, sizeof(*c));
	c->config = names[2];
	c->metric = names[3];
	return store_each_series(st, &f, find_series_one, c, err);
}

struct api_records {
	struct strbuf *out;
	const char *config, *metric;
	size_t count;
};

static int api_records_one(const struct store_record_row *row, void *data)
{
	struct api_records *a = data;
	int has_metric = 0;
	if (strcmp(row->config, a->config))
		return 0;
	for (size_t i = 0; i < row->nmetrics; i++)
		if (!strcmp(row->metrics[i].name, a->metric))
			has_metric = 1;
	if (!has_metric)
		return 0;
	add_json_element(a->out, detect_record_json(row), a->count++);
	return 0;
}

int web_api_series_records(struct web_reply *r, struct store *st, const char *const names[4],
			   struct bl_error *err)
{
	struct store_record_filter f = {names[0], names[1], 0};
	struct api_records a = {&r->body, names[2], names[3], 0};
	struct series_copy c;
	int ret = find_series(&c, st, names, err);
	if (ret)
		goto done;
	if (!c.found) {
		web_reply_json_error(r, 404, "no such series");
		goto done;
	}
	strbuf_addch(&r->body, '[');
	if ((ret = store_each_record(st, &f, api_records_one, &a, err)))
		goto done;
	close_json_array(&r->body, a.count);
	r->status = 200;
	r->type = "application/json";
done:
	series_copy_release(&c);
	return ret;
}

/* HTML */

static void page_start(struct strbuf *sb, const struct web_ctx *ctx, const char *title)
{
	strbuf_addstr(sb,
		      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		      "<title>");
	web_html_escape(sb, title);
	strbuf_addstr(sb, " · benchline</title>\n<link rel=\"stylesheet\" href=\"");
	web_html_escape(sb, ctx->base);
	strbuf_addstr(sb,
		      "/assets/style.css\">\n</head><body>\n<header><a class=\"brand\" href=\"");
	web_html_escape(sb, ctx->base);
	strbuf_addstr(sb, "/\">benchline</a><a href=\"");
	web_html_escape(sb, ctx->base);
	strbuf_addstr(sb, "/\">Series</a><a href=\"");
	web_html_escape(sb, ctx->base);
	strbuf_addstr(sb, "/suspects\">Suspects</a><a href=\"");
	web_html_escape(sb, ctx->base);
	strbuf_addstr(sb, "/regressions\">Regressions</a><a href=\"");
	if (ctx->repo_dir) {
		web_html_escape(sb, ctx->base);
		strbuf_addstr(sb, "/gate\">Gate</a><a href=\"");
	}
	web_html_escape(sb, ctx->base);
	strbuf_addstr(sb, "/api/series\">JSON</a></header>\n<main>\n");
}

static void page_end(struct strbuf *sb)
{
	strbuf_addstr(sb, "</main>\n</body></html>\n");
}

static void html_reply(struct web_reply *r, int status)
{
	r->status = status;
	r->type = "text/html; charset=utf-8";
}

void web_page_error(struct web_reply *r, const struct web_ctx *ctx, int status, const char *msg)
{
	strbuf_reset(&r->body);
	page_start(&r->body, ctx, msg);
	strbuf_addstr(&r->body, "<h1>");
	web_html_escape(&r->body, msg);
	strbuf_addstr(&r->body, "</h1>\n<p><a href=\"");
	web_html_escape(&r->body, ctx->base);
	strbuf_addstr(&r->body, "/\">Every Series</a></p>\n");
	page_end(&r->body);
	html_reply(r, status);
	r->has_etag = 0;
}

static void format_value(struct strbuf *sb, double v, const char *unit)
{
	if (isnan(v)) {
		strbuf_addstr(sb, "–");
		return;
	}
	if (v == floor(v) && fabs(v) < 1e15)
		strbuf_addf(sb, "%.0f", v);
	else if (fabs(v) >= 100)
		strbuf_addf(sb, "%.1f", v);
	else
		strbuf_addf(sb, "%.4g", v);
	if (unit && *unit) {
		strbuf_addch(sb, ' ');
		web_html_escape(sb, unit);
	}
}

/* What of a Series a link opens. */
enum series_view { SERIES_PAGE, SERIES_CHART, SERIES_RECORDS };

/* A link to a Series (its page, chart or records), with query parameters (already encoded,
 * "x=date"; NULL: none) and a fragment (NULL: none). The id goes in the path, or, when a part
 * of it is a dot segment, in the query (?id=ID, its '%' escaped once more), which the server
 * takes as the same route. */
static void add_series_url(struct strbuf *sb, const struct web_ctx *ctx, const char *id,
			   enum series_view view, const char *query, const char *fragment)
{
	static const char *const path_of[][2] = {
	    {"/series/", ""}, {"/series/", "/chart.svg"}, {"/api/series/", "/records"}};
	static const char *const query_of[] = {
	    "/series?id=", "/series/chart.svg?id=", "/api/series/records?id="};
	int in_query = store_series_id_has_dot_part(id);
	web_html_escape(sb, ctx->base);
	if (in_query) {
		strbuf_addstr(sb, query_of[view]);
		for (const char *c = id; *c; c++)
			if (*c == '%')
				strbuf_addstr(sb, "%25");
			else
				web_html_escape(sb, (char[]){*c, '\0'});
	} else {
		strbuf_addstr(sb, path_of[view][0]);
		web_html_escape(sb, id);
		strbuf_addstr(sb, path_of[view][1]);
	}
	if (query && *query) {
		strbuf_addstr(sb, in_query ? "&amp;" : "?");
		web_html_escape(sb, query);
	}
	if (fragment) {
		strbuf_addch(sb, '#');
		web_html_escape(sb, fragment);
	}
}

static void add_series_link(struct strbuf *sb, const struct web_ctx *ctx, const char *id)
{
	add_series_url(sb, ctx, id, SERIES_PAGE, NULL, NULL);
}

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
	web_html_escape(sb, ctx->base);
	strbuf_addf(sb, "/suspects\"%s><strong>%lld</strong> open alert%s</a> · <a href=\"",
		    sum->open_alerts ? " class=\"slower\"" : "", (long long)sum->open_alerts,
		    sum->open_alerts == 1 ? "" : "s");
	web_html_escape(sb, ctx->base);
	strbuf_addf(sb,
		    "/regressions\"%s><strong>%lld</strong> Regression%s</a> · "
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
			    int better_higher)
{
	size_t m = n < DETECT_WINDOW + 1 ? n : DETECT_WINDOW + 1;
	struct detect_verdict verdicts[DETECT_WINDOW + 1];
	const struct detect_verdict *last;
	double change;
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
	change = isnan(last->shift) ? NAN : last->shift;
	strbuf_addstr(sb, "<td class=\"num");
	if (last->outside)
		strbuf_addstr(sb,
			      detect_is_slower(last->above, better_higher) ? " slower" : " faster");
	strbuf_addstr(sb, "\" data-v=\"");
	add_sort_number(sb, change);
	strbuf_addstr(sb, "\" title=\"against the center ");
	format_value(sb, last->center, NULL);
	strbuf_addstr(sb, " ± ");
	format_value(sb, last->tolerance, NULL);
	strbuf_addstr(sb, "\">");
	if (isnan(change))
		strbuf_addstr(sb, "–");
	else if (fabs(100 * change) < 0.05) /* no "-0.0%" */
		strbuf_addstr(sb, "0.0%");
	else
		strbuf_addf(sb, "%+.1f%%", 100 * change);
	strbuf_addstr(sb, "</td>");
}

static int overview_one(const struct store_series *s, void *data)
{
	struct overview *o = data;
	struct strbuf *sb = o->out;
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
	strbuf_addstr(sb, "\"><td>");
	web_html_escape(sb, s->machine);
	strbuf_addstr(sb, "</td><td>");
	web_html_escape(sb, s->benchmark);
	strbuf_addstr(sb, "</td><td>");
	if (s->config[0])
		web_html_escape(sb, s->config);
	else
		strbuf_addstr(sb, "<span class=\"muted\">–</span>");
	strbuf_addstr(sb, "</td><td>");
	web_html_escape(sb, s->metric);
	strbuf_addstr(sb, "</td><td class=\"spark\">");
	if (store_web_recent_values(&values, &nvalues, o->st, s->machine, s->benchmark, s->config,
				    s->metric, SPARK_RECORDS, o->err)) {
		o->failed = 1;
		return 1;
	}
	add_sparkline(sb, values, nvalues);
	strbuf_addstr(sb, "</td><td class=\"num\" data-v=\"");
	add_sort_number(sb, s->last_value);
	strbuf_addstr(sb, "\">");
	format_value(sb, s->last_value, s->unit);
	strbuf_addstr(sb, "</td>");
	add_change_cell(sb, values, nvalues,
			s->nlines ? s->lines[s->nlines - 1].records : (int64_t)nvalues,
			s->better_higher);
	free(values);
	strbuf_addf(sb, "<td class=\"num\">%lld</td><td class=\"num\">%zu</td>",
		    (long long)s->records, s->nlines);
	if (o->detect) {
		int64_t n;
		if (store_open_suspects(&n, o->detect, s->machine, s->benchmark, s->config,
					s->metric, o->err)) {
			o->failed = 1;
			return 1;
		}
		strbuf_addf(sb, "<td class=\"num%s\"><a href=\"", n ? " suspects" : "");
		web_html_escape(sb, o->ctx->base);
		strbuf_addf(sb, "/suspects\">%lld</a></td>", (long long)n);
	} else {
		/* Detection has never run: the count is unknown, not zero. */
		strbuf_addstr(sb, "<td class=\"num muted\" title=\"no detection data\" "
				  "data-v=\"-1\">–</td>");
	}
	if (s->regressions) {
		strbuf_addstr(sb, "<td class=\"num regressions\"><a href=\"");
		add_series_url(sb, o->ctx, s->id, SERIES_PAGE, NULL, "regressions");
		strbuf_addf(sb, "\">%lld</a></td><td><a href=\"", (long long)s->regressions);
	} else {
		strbuf_addstr(sb, "<td class=\"num\">0</td><td><a href=\"");
	}
	add_series_link(sb, o->ctx, s->id);
	strbuf_addstr(sb, "\">chart</a></td></tr>\n");
	return 0;
}

int web_page_overview(struct web_reply *r, const struct web_ctx *ctx, struct store *st,
		      const struct web_query *q, struct bl_error *err)
{
	struct strbuf *sb = &r->body;
	struct overview o = {sb, ctx, q->q, 0, 0, STRBUF_INIT, NULL, st, err, 0};
	struct store_web_summary sum;
	size_t table_at;
	int ret;

	if ((ret = store_web_summary(&sum, st, err)) || (ret = open_detect(&o.detect, st, err)))
		return ret;
	page_start(sb, ctx, "Series");
	strbuf_addstr(sb, "<h1>Every Series</h1>\n");
	add_summary(sb, ctx, &sum);
	strbuf_addstr(sb, "<form class=\"search\" method=\"get\" action=\"");
	web_html_escape(sb, ctx->base);
	strbuf_addstr(sb, "/\"><input type=\"search\" id=\"q\" name=\"q\" "
			  "placeholder=\"machine, benchmark, config or metric\" value=\"");
	web_html_escape(sb, q->q ? q->q : "");
	strbuf_addstr(sb, "\"> <button>Search</button></form>\n");
	table_at = sb->len;
	strbuf_addstr(sb, "<table id=\"series\" class=\"sortable\"><thead><tr>"
			  "<th data-sort=\"text\">machine</th><th data-sort=\"text\">benchmark</th>"
			  "<th data-sort=\"text\">config</th><th data-sort=\"text\">metric</th>"
			  "<th>recent</th><th data-sort=\"num\">last value</th>"
			  "<th data-sort=\"num\" title=\"the last record against its line's "
			  "center (§6)\">change</th><th data-sort=\"num\">records</th>"
			  "<th data-sort=\"num\">lines</th><th data-sort=\"num\" title=\"open "
			  "Suspects\">suspects</th><th data-sort=\"num\">regressions</th><th></th>"
			  "</tr></thead><tbody>\n");
	ret = store_each_series(st, NULL, overview_one, &o, err);
	strbuf_release(&o.hay);
	if (o.failed)
		ret = BL_EDB;
	if (ret) {
		store_detect_close(o.detect);
		return ret;
	}
	strbuf_addstr(sb, "</tbody></table>\n");
	if (!o.total) {
		strbuf_setlen(sb, table_at);
		strbuf_addstr(sb, "<p class=\"empty\">No Series yet: ingest records (or run "
				  "<code>benchline demo</code>), or push them to "
				  "<code>POST /api/records</code>.</p>\n");
	} else {
		strbuf_addf(sb,
			    "<p class=\"muted\"><span id=\"shown\">%zu</span> of %zu Series "
			    "shown. %s</p>\n",
			    o.shown, o.total,
			    o.detect ? "Open suspects as the last <code>benchline detect</code> "
				       "left them."
				     : "Suspect counts appear once <code>benchline detect</code> "
				       "has run.");
	}
	store_detect_close(o.detect);
	strbuf_addstr(sb, "<script src=\"");
	web_html_escape(sb, ctx->base);
	strbuf_addstr(sb, "/assets/filter.js\"></script>\n<script src=\"");
	web_html_escape(sb, ctx->base);
	strbuf_addstr(sb, "/assets/sort.js\"></script>\n");
	page_end(sb);
	html_reply(r, 200);
	return 0;
}

/* The Series page. */

struct points {
	struct web_point *p;
	size_t nr, alloc;
	/* line-break state of the untagged points */
	int started;
	int64_t harness;
	char *content;
};

static int points_one(const struct store_web_point *sp, void *data)
{
	struct points *ps = data;
	struct web_point *p;
	ALLOC_GROW(ps->p, ps->nr, ps->alloc);
	p = &ps->p[ps->nr++];
	memset(p, 0, sizeof(*p));
	p->place = sp->place;
	p->value = sp->value;
	p->seq = sp->seq;
	p->harness_version = sp->harness_version;
	p->pr = sp->pr;
	p->run_id = sp->run_id;
	snprintf(p->commit, sizeof(p->commit), "%s", sp->commit);
	snprintf(p->source_hash, sizeof(p->source_hash), "%s", sp->source_hash);
	p->content_hash = sp->content_hash ? xstrdup(sp->content_hash) : NULL;
	p->tags = xstrdup(sp->tags);
	p->subject = sp->subject ? xstrdup(sp->subject) : NULL;
	p->date = sp->date;
	p->x = sp->place;
	p->spread = sp->spread;
	p->spread_lo = sp->spread_lo;
	p->spread_hi = sp->spread_hi;
	p->band_center = p->band_tolerance = NAN;
	p->baseline = sp->baseline;
	if (p->tags[0])
		return 0;
	p->brk = line_break_at(ps->started, ps->harness, ps->content, p->harness_version,
			       p->content_hash, p->baseline);
	ps->started = 1;
	ps->harness = p->harness_version;
	ps->content = p->content_hash;
	return 0;
}

struct ring {
	struct points *ps;
	size_t total, open;
};

/* Marks the point of a Suspect's record (a record is on one Series point at most; it may hold
 * the band's Suspect and the change-point search's). */
static int ring_one(const struct store_web_suspect *sx, void *data)
{
	struct ring *rg = data;
	rg->total++;
	if (sx->state == SUSPECT_OPEN)
		rg->open++;
	for (size_t i = 0; i < rg->ps->nr; i++) {
		struct web_point *p = &rg->ps->p[i];
		if (p->run_id != sx->run_id)
			continue;
		if (sx->kind == SUSPECT_CHANGE_POINT) {
			p->change_point = 1;
			p->change_shift = sx->shift;
			p->change_state = sx->state;
			break;
		}
		p->suspect = 1;
		p->suspect_side = sx->side;
		p->suspect_shift = sx->shift;
		p->suspect_state = sx->state;
		break;
	}
	return 0;
}

/* "slower +5.2%" */
static void add_suspect_text(struct strbuf *sb, enum suspect_side side, double shift)
{
	strbuf_addstr(sb, suspect_side_name(side));
	if (!isnan(shift))
		strbuf_addf(sb, " %+.1f%%", shift * 100);
}

static void points_release(struct points *ps)
{
	for (size_t i = 0; i < ps->nr; i++) {
		free(ps->p[i].content_hash);
		free(ps->p[i].tags);
		free(ps->p[i].subject);
	}
	free(ps->p);
}

static int parse_bound(double *out, const char *s)
{
	char *end;
	if (!s || !*s)
		return 0;
	*out = strtod(s, &end);
	return *end || isnan(*out) ? BL_EINVALID : 0;
}

static int cmp_int64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* A Series' Regressions (§9.3), kept for its page: the chart's marks, the lines they break,
 * the list with each probe log. */
struct page_regression {
	int64_t id, alert_id, seq, pr;
	double ratio, lo, hi;
	double place; /* where its mark goes; NAN when its commit has no place on the chart */
	char commit[41], reference[41];
	char *subject, *probes, *filed_url; /* subject, filed_url may be NULL */
};

struct page_regressions {
	struct page_regression *r;
	size_t nr, alloc;
};

static int page_regression_one(const struct store_regression *g, void *data)
{
	struct page_regressions *pr = data;
	struct page_regression *x;
	ALLOC_GROW(pr->r, pr->nr, pr->alloc);
	x = &pr->r[pr->nr++];
	memset(x, 0, sizeof(*x));
	x->id = g->id;
	x->alert_id = g->alert_id;
	x->seq = g->seq;
	x->pr = g->pr;
	x->ratio = g->ratio;
	x->lo = g->lo;
	x->hi = g->hi;
	x->place = NAN;
	snprintf(x->commit, sizeof(x->commit), "%s", g->commit);
	snprintf(x->reference, sizeof(x->reference), "%s", g->reference_commit);
	x->subject = g->subject ? xstrdup(g->subject) : NULL;
	x->probes = xstrdup(g->probes ? g->probes : "[]");
	x->filed_url = g->filed_url ? xstrdup(g->filed_url) : NULL;
	return 0;
}

static void page_regressions_release(struct page_regressions *pr)
{
	for (size_t i = 0; i < pr->nr; i++) {
		free(pr->r[i].subject);
		free(pr->r[i].probes);
		free(pr->r[i].filed_url);
	}
	free(pr->r);
}

/* Places each Regression's mark at its commit's seq, else at the record of its commit, and
 * breaks the drawn line where a pinned seq falls (line_pinned_at, the rule detection and the
 * Series listing follow): a pinned commit starts a line (§1). */
static void place_regressions(struct page_regressions *pr, struct points *ps)
{
	int64_t *pinned = xcalloc(pr->nr ? pr->nr : 1, sizeof(*pinned));
	size_t npinned = 0;
	double last_place = NAN;
	for (size_t i = 0; i < pr->nr; i++) {
		struct page_regression *x = &pr->r[i];
		if (x->seq >= 0) {
			x->place = (double)x->seq;
			pinned[npinned++] = x->seq;
		}
		for (size_t k = 0; k < ps->nr && isnan(x->place); k++)
			if (!strcmp(ps->p[k].commit, x->commit))
				x->place = ps->p[k].place;
	}
	if (npinned > 1)
		qsort(pinned, npinned, sizeof(*pinned), cmp_int64);
	for (size_t k = 0; k < ps->nr && npinned; k++) {
		struct web_point *p = &ps->p[k];
		if (p->tags[0])
			continue;
		if (!isnan(last_place) && p->brk == LINE_CONTINUES &&
		    line_pinned_at(pinned, npinned, last_place, p->place))
			p->brk = LINE_PINNED;
		last_place = p->place;
	}
	free(pinned);
}

/* Each untagged point's §6 band (detect_line over its line, the rule detection judges by),
 * so the chart draws what each record was judged against. */
static void set_bands(struct points *ps)
{
	size_t *at = xcalloc(ps->nr ? ps->nr : 1, sizeof(*at)), n = 0;
	double *medians = xcalloc(ps->nr ? ps->nr : 1, sizeof(*medians));
	struct detect_verdict *v = xcalloc(ps->nr ? ps->nr : 1, sizeof(*v));
	for (size_t i = 0; i <= ps->nr; i++) {
		struct web_point *p = i < ps->nr ? &ps->p[i] : NULL;
		if (p && (p->tags[0] || isnan(p->value)))
			continue;
		if ((!p || p->brk != LINE_CONTINUES) && n) {
			detect_line(v, medians, n);
			for (size_t k = 0; k < n; k++)
				if (v[k].judged) {
					ps->p[at[k]].band_center = v[k].center;
					ps->p[at[k]].band_tolerance = v[k].tolerance;
				}
			n = 0;
		}
		if (p) {
			at[n] = i;
			medians[n++] = p->value;
		}
	}
	free(at);
	free(medians);
	free(v);
}

/* The chart's axis by date: each point at its date, each mark at the date of the first point
 * at or after its place (its own commit's record when the Series has one). */
static void use_dates(struct web_point *p, size_t n, struct web_mark *marks, size_t nmarks)
{
	for (size_t i = 0; i < n; i++)
		p[i].x = p[i].date;
	for (size_t k = 0; k < nmarks; k++) {
		marks[k].x = NAN;
		for (size_t i = 0; i < n && isnan(marks[k].x); i++)
			if (!strcmp(p[i].commit, marks[k].commit))
				marks[k].x = p[i].date;
		for (size_t i = 0; i < n && isnan(marks[k].x); i++)
			if (p[i].place >= marks[k].place)
				marks[k].x = p[i].date;
	}
}

/* The query of a Series page's links, "from=1&to=2&x=date": its zoom and its axis (from and
 * to are numbers, parse_bound checked them). */
static void series_query(struct strbuf *out, const struct web_query *q, int by_date)
{
	if (q->from && *q->from)
		strbuf_addf(out, "from=%s", q->from);
	if (q->to && *q->to)
		strbuf_addf(out, "%sto=%s", out->len ? "&" : "", q->to);
	if (by_date)
		strbuf_addf(out, "%sx=date", out->len ? "&" : "");
}

/* "by commit" or "by date": a link to the other axis, the current one in bold. */
static void add_axis_link(struct strbuf *sb, const struct web_ctx *ctx, const char *id,
			  const struct web_query *q, int date, int by_date)
{
	const char *label = date ? "by date" : "by commit";
	struct strbuf query = STRBUF_INIT;
	if (date == by_date) {
		strbuf_addf(sb, "<strong class=\"axis\">%s</strong>", label);
		return;
	}
	series_query(&query, q, date);
	strbuf_addstr(sb, "<a class=\"axis\" href=\"");
	add_series_url(sb, ctx, id, SERIES_PAGE, query.buf, NULL);
	strbuf_addf(sb, "\">%s</a>", label);
	strbuf_release(&query);
}

/* benchline.json's repo_url of the served repository (malloc'd), NULL without one. Read for
 * each page, as the background thread reads the settings for each run; a file that does not
 * parse gives no links (the sync and detection report it). */
static char *page_repo_url(const struct web_ctx *ctx)
{
	struct config cfg;
	char *url = NULL;
	if (!ctx->repo_dir)
		return NULL;
	config_init(&cfg);
	if (!config_load(&cfg, ctx->repo_dir, NULL) && cfg.repo_url)
		url = xstrdup(cfg.repo_url);
	config_release(&cfg);
	return url;
}

/* A commit: 12 digits shown, all 40 and the subject on hover, linked to repo_url's page of
 * it when there is one. */
static void add_commit(struct strbuf *sb, const char *repo_url, const char *commit,
		       const char *subject)
{
	char short12[13];
	strbuf_addstr(sb, repo_url ? "<a class=\"mono\" href=\"" : "<span class=\"mono\"");
	if (repo_url) {
		web_html_escape(sb, repo_url);
		strbuf_addstr(sb, "/commit/");
		web_html_escape(sb, commit);
		strbuf_addch(sb, '"');
	}
	strbuf_addstr(sb, " title=\"");
	web_html_escape(sb, commit);
	if (subject && *subject) {
		strbuf_addstr(sb, ": ");
		web_html_escape(sb, subject);
	}
	strbuf_addstr(sb, "\">");
	snprintf(short12, sizeof(short12), "%.12s", commit);
	web_html_escape(sb, short12);
	strbuf_addstr(sb, repo_url ? "</a>" : "</span>");
}

/* A pull request: "#42", linked to repo_url's page of it when there is one. */
static void add_pr(struct strbuf *sb, const char *repo_url, int64_t pr)
{
	if (pr <= 0)
		return;
	if (!repo_url) {
		strbuf_addf(sb, "#%lld", (long long)pr);
		return;
	}
	strbuf_addstr(sb, "<a href=\"");
	web_html_escape(sb, repo_url);
	strbuf_addf(sb, "/pull/%lld\">#%lld</a>", (long long)pr, (long long)pr);
}

/* A ratio as a signed percent change ("+15.2%"), "–" when unknown. */
static void add_delta(struct strbuf *sb, double ratio)
{
	if (isfinite(ratio))
		strbuf_addf(sb, "%+.1f%%", 100 * (ratio - 1));
	else
		strbuf_addstr(sb, "–");
}

static void add_delta_interval(struct strbuf *sb, double lo, double hi)
{
	if (!isfinite(lo) || !isfinite(hi)) {
		strbuf_addstr(sb, "–");
		return;
	}
	strbuf_addch(sb, '[');
	add_delta(sb, lo);
	strbuf_addstr(sb, ", ");
	add_delta(sb, hi);
	strbuf_addch(sb, ']');
}

/* A commit cell: 12 digits shown, all 40 on hover, linked to repo_url's page of it when there
 * is one. */
static void add_commit_cell(struct strbuf *sb, const char *repo_url, const char *commit)
{
	struct strbuf short12 = STRBUF_INIT;
	strbuf_add(&short12, commit, strnlen(commit, 12));
	strbuf_addstr(sb, "<td class=\"mono\" title=\"");
	web_html_escape(sb, commit);
	strbuf_addstr(sb, "\">");
	if (repo_url && *commit) {
		strbuf_addstr(sb, "<a href=\"");
		web_html_escape(sb, repo_url);
		strbuf_addstr(sb, "/commit/");
		web_html_escape(sb, commit);
		strbuf_addstr(sb, "\">");
	}
	web_html_escape(sb, short12.buf);
	strbuf_addstr(sb, repo_url && *commit ? "</a></td>" : "</td>");
	strbuf_release(&short12);
}

/* Where an alert was filed: a link when it is an http(s) URL, else text. */
static void add_filed(struct strbuf *sb, const char *url)
{
	if (!url) {
		strbuf_addstr(sb, "<span class=\"muted\">not filed</span>");
	} else if (!strncmp(url, "https://", 8) || !strncmp(url, "http://", 7)) {
		strbuf_addstr(sb, "<a href=\"");
		web_html_escape(sb, url);
		strbuf_addstr(sb, "\">");
		web_html_escape(sb, url);
		strbuf_addstr(sb, "</a>");
	} else {
		web_html_escape(sb, url);
	}
}

/* A json value's number, "–" when it is none. */
static void add_json_number(struct strbuf *sb, json_t *v)
{
	if (json_is_number(v))
		strbuf_addf(sb, "%.4f", json_number_value(v));
	else
		strbuf_addstr(sb, "–");
}

/* A bisection's probe log (the `probes` of bisect --json, as stored) as a table. */
static void add_probe_log(struct strbuf *sb, const char *repo_url, const char *probes)
{
	json_t *arr = json_loads(probes, JSON_DECODE_ANY, NULL), *p;
	size_t i;
	if (!json_is_array(arr) || !json_array_size(arr)) {
		strbuf_addstr(sb, "<p class=\"muted\">No probe log was stored.</p>\n");
		json_decref(arr);
		return;
	}
	strbuf_addstr(sb, "<table class=\"probes\"><thead><tr><th>probe</th><th>commit</th>"
			  "<th>verdict</th><th>metric</th><th>ratio</th><th>99% interval</th>"
			  "<th>pairs</th></tr></thead><tbody>\n");
	json_array_foreach(arr, i, p)
	{
		const char *commit = json_string_value(json_object_get(p, "commit"));
		const char *verdict = json_string_value(json_object_get(p, "verdict"));
		const char *skipped = json_string_value(json_object_get(p, "skipped"));
		const char *metric = json_string_value(json_object_get(p, "metric"));
		json_t *lo = json_object_get(p, "ci_low"), *hi = json_object_get(p, "ci_high");
		strbuf_addf(sb, "<tr class=\"probe-%s\"><td class=\"num\">%zu</td>",
			    skipped				    ? "skipped"
			    : verdict && !strcmp(verdict, "slower") ? "slower"
								    : "other",
			    i + 1);
		add_commit_cell(sb, repo_url, commit ? commit : "");
		strbuf_addstr(sb, "<td>");
		if (skipped) {
			strbuf_addstr(sb, "skipped: ");
			web_html_escape(sb, skipped);
		} else {
			web_html_escape(sb, verdict ? verdict : "–");
			if (json_is_true(json_object_get(p, "identical_artifacts")))
				strbuf_addstr(sb, " <span class=\"muted\">(artifacts identical to "
						  "good's)</span>");
		}
		strbuf_addstr(sb, "</td><td>");
		web_html_escape(sb, metric ? metric : "");
		strbuf_addstr(sb, "</td><td class=\"num\">");
		add_json_number(sb, json_object_get(p, "ratio"));
		strbuf_addstr(sb, "</td><td>");
		if (json_is_number(lo) && json_is_number(hi))
			strbuf_addf(sb, "[%.4f, %.4f]", json_number_value(lo),
				    json_number_value(hi));
		else
			strbuf_addstr(sb, "–");
		strbuf_addf(sb, "</td><td class=\"num\">%lld</td></tr>\n",
			    (long long)json_integer_value(json_object_get(p, "pairs")));
	}
	strbuf_addstr(sb, "</tbody></table>\n");
	json_decref(arr);
}

/* The Series page's list of its Regressions, each with its bisection's probe log. */
static void add_series_regressions(struct strbuf *sb, const struct web_ctx *ctx,
				   const char *repo_url, const struct page_regressions *pr)
{
	strbuf_addstr(sb, "<h2 id=\"regressions\">Regressions</h2>\n");
	for (size_t i = 0; i < pr->nr; i++) {
		const struct page_regression *x = &pr->r[i];
		strbuf_addf(sb, "<div class=\"regression\"><p><strong>Regression %lld</strong>: ",
			    (long long)x->id);
		add_commit(sb, repo_url, x->commit, NULL);
		strbuf_addch(sb, ' ');
		if (x->subject) {
			strbuf_addstr(sb, "“");
			web_html_escape(sb, x->subject);
			strbuf_addstr(sb, "”");
		}
		if (x->pr > 0) {
			strbuf_addstr(sb, ", PR ");
			add_pr(sb, repo_url, x->pr);
		}
		strbuf_addstr(sb, ": <span class=\"slower\">");
		add_delta(sb, x->ratio);
		strbuf_addstr(sb, "</span>, 99% interval ");
		add_delta_interval(sb, x->lo, x->hi);
		if (x->seq >= 0)
			strbuf_addf(sb, ", seq %lld", (long long)x->seq);
		strbuf_addstr(sb, ". Bisected against good <code title=\"");
		web_html_escape(sb, x->reference);
		strbuf_addstr(sb, "\">");
		strbuf_add(sb, x->reference, strnlen(x->reference, 12));
		strbuf_addstr(sb, "</code>");
		if (x->alert_id)
			strbuf_addf(sb, " for alert %lld", (long long)x->alert_id);
		strbuf_addstr(sb, ". Issue: ");
		add_filed(sb, x->filed_url);
		strbuf_addstr(sb, ". <a href=\"");
		web_html_escape(sb, ctx->base);
		strbuf_addstr(sb, "/regressions\">All Regressions</a></p>\n");
		add_probe_log(sb, repo_url, x->probes);
		strbuf_addstr(sb, "</div>\n");
	}
}

int web_page_series(struct web_reply *r, const struct web_ctx *ctx, struct store *st,
		    const char *const names[4], const struct web_query *q, int chart_only,
		    struct bl_error *err)
{
	struct strbuf *sb = &r->body, title = STRBUF_INIT, query = STRBUF_INIT;
	struct series_copy c;
	struct points ps;
	struct web_point *drawn = NULL;
	size_t ndrawn = 0;
	double from = -INFINITY, to = INFINITY;
	char *svg = NULL;
	uint64_t chart_etag = 0;
	struct bl_error chart_err = BL_ERROR_INIT;
	struct ring rg = {NULL, 0, 0};
	struct page_regressions pr = {NULL, 0, 0};
	struct web_mark *marks = NULL;
	size_t nmarks = 0;
	struct web_chart chart;
	char *repo_url = NULL;
	int by_date = q->x && !strcmp(q->x, "date");
	int ret, chart_ret, ran = 0;

	memset(&ps, 0, sizeof(ps));
	if ((ret = find_series(&c, st, names, err)))
		goto done;
	if (!c.found) {
		web_page_error(r, ctx, 404, "No such Series");
		goto done;
	}
	if (parse_bound(&from, q->from) || parse_bound(&to, q->to)) {
		web_page_error(r, ctx, 400, "from and to must be numbers (places on main)");
		goto done;
	}
	if ((ret = store_web_points(st, names[0], names[1], names[2], names[3], points_one, &ps,
				    err)))
		goto done;
	rg.ps = &ps;
	if ((ret = store_detect_ran(&ran, st, err)) ||
	    (ret = store_web_suspects(st, names[0], names[1], names[2], names[3], ring_one, &rg,
				      err)))
		goto done;
	if ((ret = store_series_regressions(st, names[0], names[1], names[2], names[3],
					    page_regression_one, &pr, err)))
		goto done;
	place_regressions(&pr, &ps);
	set_bands(&ps);
	drawn = xcalloc(ps.nr ? ps.nr : 1, sizeof(*drawn));
	for (size_t i = 0; i < ps.nr; i++)
		if (ps.p[i].place >= from && ps.p[i].place <= to)
			drawn[ndrawn++] = ps.p[i];
	marks = xcalloc(pr.nr ? pr.nr : 1, sizeof(*marks));
	for (size_t i = 0; i < pr.nr; i++) {
		struct web_mark *m = &marks[nmarks];
		if (isnan(pr.r[i].place) || pr.r[i].place < from || pr.r[i].place > to)
			continue;
		m->id = pr.r[i].id;
		m->place = pr.r[i].place;
		m->x = m->place;
		m->ratio = pr.r[i].ratio;
		memcpy(m->commit, pr.r[i].commit, sizeof(m->commit));
		nmarks++;
	}
	if (by_date)
		use_dates(drawn, ndrawn, marks, nmarks);
	repo_url = page_repo_url(ctx);
	strbuf_addf(&title, "%s / %s / %s / %s", names[0], names[1], names[2][0] ? names[2] : "-",
		    names[3]);
	chart.points = drawn;
	chart.npoints = ndrawn;
	chart.marks = marks;
	chart.nmarks = nmarks;
	chart.title = title.buf;
	chart.unit = c.unit;
	chart.axis = by_date ? WEB_AXIS_DATE : WEB_AXIS_PLACE;
	chart.repo_url = repo_url;
	chart_ret = web_chart_svg(&svg, &chart_etag, ctx->cache, ctx->gnuplot, &chart, &chart_err);
	if (chart_ret) {
		/* In full in the log; on the page, what failed without the server's paths, and
		 * without gnuplot's own words after it (they may name the server's files). */
		struct strbuf shown = STRBUF_INIT;
		char *colon = strstr(chart_err.msg.buf, ": ");
		web_log(ctx->opts, "a chart was not drawn: %s", chart_err.msg.buf);
		if (colon)
			*colon = '\0';
		web_scrub(&shown, ctx->opts, chart_err.msg.buf);
		if (colon)
			strbuf_addstr(&shown, " (the server's log says more)");
		strbuf_release(&chart_err.msg);
		chart_err.msg = shown;
	}
	if (chart_only) {
		if (chart_ret) {
			strbuf_addstr(sb, chart_err.msg.buf);
			strbuf_addch(sb, '\n');
			r->status = 503;
			r->type = "text/plain; charset=utf-8";
		} else {
			strbuf_addstr(sb, svg);
			r->status = 200;
			r->type = "image/svg+xml";
			r->etag = chart_etag;
			r->has_etag = 1;
		}
		goto done;
	}

	page_start(sb, ctx, title.buf);
	strbuf_addstr(sb, "<h1>");
	web_html_escape(sb, title.buf);
	strbuf_addstr(sb, "</h1>\n<dl class=\"meta\"><dt>machine</dt><dd>");
	web_html_escape(sb, names[0]);
	strbuf_addstr(sb, "</dd><dt>benchmark</dt><dd>");
	web_html_escape(sb, names[1]);
	strbuf_addstr(sb, "</dd><dt>config</dt><dd>");
	web_html_escape(sb, names[2][0] ? names[2] : "–");
	strbuf_addstr(sb, "</dd><dt>metric</dt><dd>");
	web_html_escape(sb, names[3]);
	strbuf_addstr(sb, " (");
	web_html_escape(sb, metric_kind_name(c.kind));
	strbuf_addstr(sb, ", ");
	web_html_escape(sb, c.unit);
	strbuf_addstr(sb, ", ");
	web_html_escape(sb, metric_better_name(c.better_higher));
	strbuf_addstr(sb, " is better)</dd>");
	strbuf_addf(sb, "<dt>records</dt><dd>%lld on the Series, %zu lines</dd>",
		    (long long)c.records, c.nlines);
	if (!ran) {
		strbuf_addstr(sb, "<dt>suspects</dt><dd class=\"muted\">no detection data yet "
				  "(run <code>benchline detect</code>)</dd>");
	} else {
		strbuf_addstr(sb, "<dt>suspects</dt><dd><a href=\"");
		web_html_escape(sb, ctx->base);
		strbuf_addf(sb, "/suspects\">%zu open</a> of %zu</dd>", rg.open, rg.total);
	}
	if (pr.nr)
		strbuf_addf(sb, "<dt>regressions</dt><dd><a href=\"#regressions\">%zu</a></dd>",
			    pr.nr);
	else
		strbuf_addstr(sb, "<dt>regressions</dt><dd>none</dd>");
	strbuf_addstr(sb, "</dl>\n");

	/* Zoom. */
	strbuf_addstr(sb, "<form class=\"zoom\" method=\"get\" action=\"");
	if (store_series_id_has_dot_part(c.id)) {
		/* A form's GET drops its action's query: the id goes as a field. */
		web_html_escape(sb, ctx->base);
		strbuf_addstr(sb, "/series\"><input type=\"hidden\" name=\"id\" value=\"");
		web_html_escape(sb, c.id);
	} else {
		add_series_link(sb, ctx, c.id);
	}
	strbuf_addstr(sb, "\">Zoom: from <input name=\"from\" value=\"");
	web_html_escape(sb, q->from ? q->from : "");
	strbuf_addstr(sb, "\"> to <input name=\"to\" value=\"");
	web_html_escape(sb, q->to ? q->to : "");
	strbuf_addstr(sb, "\"> ");
	if (by_date)
		strbuf_addstr(sb, "<input type=\"hidden\" name=\"x\" value=\"date\">");
	strbuf_addstr(sb, "<button>Draw</button> <a href=\"");
	add_series_url(sb, ctx, c.id, SERIES_PAGE, by_date ? "x=date" : NULL, NULL);
	strbuf_addstr(sb, "\">all</a> · x axis: ");
	add_axis_link(sb, ctx, c.id, q, 0, by_date);
	strbuf_addstr(sb, " ");
	add_axis_link(sb, ctx, c.id, q, 1, by_date);
	strbuf_addstr(sb, " · <a href=\"");
	series_query(&query, q, by_date);
	add_series_url(sb, ctx, c.id, SERIES_CHART, query.buf, NULL);
	strbuf_addstr(sb, "\">SVG</a> · <a href=\"");
	add_series_url(sb, ctx, c.id, SERIES_RECORDS, NULL, NULL);
	strbuf_addstr(sb, "\">JSON</a></form>\n");

	strbuf_addstr(sb, "<div class=\"chart\">\n");
	if (chart_ret) {
		strbuf_addstr(sb, "<p class=\"error\">The chart was not drawn: ");
		web_html_escape(sb, chart_err.msg.buf);
		strbuf_addstr(sb, ".</p>\n");
	} else {
		strbuf_addstr(sb, svg);
	}
	strbuf_addstr(sb, "</div>\n<p class=\"legend muted\"><span>● record</span>"
			  "<span class=\"band\">▬ the band it was judged by (center ± "
			  "tolerance, §6)</span><span>┃ spread (samples min–max, or median to "
			  "p95)</span>"
			  "<span>■ imported Baseline</span><span>○ tagged (not judged)</span>"
			  "<span>△ beyond the Series' range, drawn at the edge</span>"
			  "<span>┆ harness-version change</span><span>▒ other break</span>"
			  "<span class=\"ring-slower\">◯ slower Suspect</span>"
			  "<span class=\"ring-faster\">◯ faster Suspect</span>"
			  "<span class=\"ring-slower\">◇ change point: a slower level that held "
			  "8 records, which the band missed (§6.1; known 8 records late)</span>"
			  "<span class=\"slower\">▼ Regression (its pinned commit)</span></p>\n");
	if (pr.nr)
		add_series_regressions(sb, ctx, repo_url, &pr);
	strbuf_addstr(sb, "<h2>Records</h2>\n");

	strbuf_addstr(sb, "<table><thead><tr><th>seq</th><th>commit</th>"
			  "<th>date (UTC)</th><th>PR</th><th>source hash</th><th>harness</th>"
			  "<th>value</th><th>line</th><th>tags</th><th>suspect</th></tr></thead>"
			  "<tbody>\n");
	for (size_t k = ndrawn; k-- > 0;) {
		const struct web_point *p = &drawn[k];
		if (p->suspect || p->change_point)
			strbuf_addf(
			    sb, "<tr class=\"suspect %s\">",
			    suspect_side_name(p->suspect ? p->suspect_side : SUSPECT_SLOWER));
		else
			strbuf_addstr(sb, "<tr>");
		if (p->seq >= 0)
			strbuf_addf(sb, "<td class=\"num\">%lld</td>", (long long)p->seq);
		else
			strbuf_addf(sb,
				    "<td class=\"num muted\" title=\"placed by time\">%.1f</td>",
				    p->place);
		strbuf_addstr(sb, "<td>");
		add_commit(sb, repo_url, p->commit, p->subject);
		strbuf_addstr(sb, "</td><td class=\"nowrap\">");
		web_format_date(sb, p->date);
		strbuf_addstr(sb, "</td><td>");
		add_pr(sb, repo_url, p->pr);
		strbuf_addstr(sb, "</td><td class=\"mono\" title=\"");
		web_html_escape(sb, p->source_hash);
		strbuf_addstr(sb, "\">");
		strbuf_add(sb, p->source_hash, strnlen(p->source_hash, 12));
		strbuf_addf(sb, "</td><td class=\"num\">%lld</td><td class=\"num\">",
			    (long long)p->harness_version);
		format_value(sb, p->value, c.unit);
		strbuf_addstr(sb, "</td><td>");
		if (p->brk != LINE_CONTINUES && p->brk != LINE_FIRST)
			strbuf_addstr(sb, line_break_name(p->brk));
		if (p->baseline)
			strbuf_addstr(sb, " (Baseline)");
		strbuf_addstr(sb, "</td><td>");
		for (const char *t = p->tags; *t;) {
			const char *e = strchr(t, ',');
			size_t n = e ? (size_t)(e - t) : strlen(t);
			struct strbuf one = STRBUF_INIT;
			strbuf_add(&one, t, n);
			strbuf_addstr(sb, "<span class=\"tag\">");
			web_html_escape(sb, one.buf);
			strbuf_addstr(sb, "</span>");
			strbuf_release(&one);
			t += n + (e ? 1 : 0);
		}
		strbuf_addstr(sb, "</td><td>");
		if (p->suspect) {
			strbuf_addf(sb, "<a class=\"suspect %s\" href=\"",
				    suspect_side_name(p->suspect_side));
			web_html_escape(sb, ctx->base);
			strbuf_addstr(sb, "/suspects\">");
			add_suspect_text(sb, p->suspect_side, p->suspect_shift);
			if (p->suspect_state != SUSPECT_OPEN) {
				strbuf_addstr(sb, " (");
				web_html_escape(sb, suspect_state_name(p->suspect_state));
				strbuf_addch(sb, ')');
			}
			strbuf_addstr(sb, "</a>");
		}
		if (p->change_point) {
			strbuf_addf(sb, "%s<a class=\"suspect slower change-point\" href=\"",
				    p->suspect ? " " : "");
			web_html_escape(sb, ctx->base);
			strbuf_addstr(sb, "/suspects\">change point ");
			add_suspect_text(sb, SUSPECT_SLOWER, p->change_shift);
			if (p->change_state != SUSPECT_OPEN) {
				strbuf_addstr(sb, " (");
				web_html_escape(sb, suspect_state_name(p->change_state));
				strbuf_addch(sb, ')');
			}
			strbuf_addstr(sb, "</a>");
		}
		strbuf_addstr(sb, "</td></tr>\n");
	}
	strbuf_addstr(sb, "</tbody></table>\n");
	if (!ndrawn)
		strbuf_addstr(sb, "<p class=\"empty\">No records in this range.</p>\n");
	page_end(sb);
	html_reply(r, 200);
	/* The page is a function of what it shows: its own hash is its ETag. */
	r->etag = web_hash(WEB_HASH_INIT, sb->buf, sb->len);
	r->has_etag = !chart_ret;
done:
	free(svg);
	free(repo_url);
	free(drawn);
	free(marks);
	page_regressions_release(&pr);
	points_release(&ps);
	series_copy_release(&c);
	strbuf_release(&title);
	strbuf_release(&query);
	bl_error_release(&chart_err);
	return ret;
}

/* The Suspects and Regressions views. */

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
	add_commit(sb, sp->repo_url, sp->commit, sp->subject);
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
	add_series_link(sb, sp->ctx, sp->id.buf);
	strbuf_addstr(sb, "\">");
	web_html_escape(sb, sx->metric);
	strbuf_addf(sb, "</a></td><td class=\"%s\">", side);
	web_html_escape(sb, side);
	if (sx->kind == SUSPECT_CHANGE_POINT)
		strbuf_addstr(sb, " <span class=\"kind\" title=\"found by the change-point search "
				  "(§6.1): a level that held 8 records; center is the level "
				  "before\">change point</span>");
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
	add_series_link(sb, sp->ctx, sp->id.buf);
	strbuf_addstr(sb, "\">chart</a></td></tr>\n");
	return 0;
}

int web_page_suspects(struct web_reply *r, const struct web_ctx *ctx, struct store *st,
		      const struct web_query *q, struct bl_error *err)
{
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
	sp.repo_url = page_repo_url(ctx);
	page_start(sb, ctx, "Suspects");
	strbuf_addstr(sb, "<h1>Suspects</h1>\n");
	if (!ran) {
		strbuf_addstr(sb, "<p class=\"empty\">Detection has not run yet: run "
				  "<code>benchline detect</code> to find Suspects.</p>\n");
		goto end;
	}
	strbuf_addstr(sb, "<p class=\"muted\">Records the band of §6 marked as the first of a "
			  "step, and the first records of the slower levels the change-point "
			  "search of §6.1 found (a second opinion, 8 records late: "
			  "<em>change point</em>), grouped by machine and commit (an alert's "
			  "Suspects), the newest commit first. <a href=\"");
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
	page_end(sb);
	html_reply(r, 200);
done:
	free(sp.subject);
	free(sp.alerts);
	free(sp.repo_url);
	strbuf_release(&sp.id);
	strbuf_release(&sp.rows);
	return ret;
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
	add_series_link(sb, rp->ctx, rp->id.buf);
	strbuf_addstr(sb, "#regressions\">");
	web_html_escape(sb, g->metric);
	strbuf_addstr(sb, "</a></td>");
	add_commit_cell(sb, rp->repo_url, g->commit);
	strbuf_addstr(sb, "<td>");
	add_pr(sb, rp->repo_url, g->pr);
	strbuf_addstr(sb, "</td><td class=\"subject\">");
	web_html_escape(sb, g->subject ? g->subject : "");
	strbuf_addstr(sb, "</td><td class=\"num slower\">");
	add_delta(sb, g->ratio);
	strbuf_addstr(sb, "</td><td class=\"nowrap\">");
	add_delta_interval(sb, g->lo, g->hi);
	strbuf_addstr(sb, "</td>");
	add_commit_cell(sb, rp->repo_url, g->reference_commit);
	if (g->alert_id)
		strbuf_addf(sb, "<td class=\"num\">%lld</td><td>", (long long)g->alert_id);
	else
		strbuf_addstr(sb, "<td class=\"num muted\">–</td><td>");
	add_filed(sb, g->filed_url);
	strbuf_addstr(sb, "</td><td><a href=\"");
	add_series_link(sb, rp->ctx, rp->id.buf);
	strbuf_addstr(sb, "#regressions\">chart</a></td></tr>\n");
	return 0;
}

int web_page_regressions(struct web_reply *r, const struct web_ctx *ctx, struct store *st,
			 struct bl_error *err)
{
	struct strbuf *sb = &r->body;
	struct regressions_page rp = {sb, ctx, 0, STRBUF_INIT, page_repo_url(ctx)};
	size_t table_at;
	int ret;

	page_start(sb, ctx, "Regressions");
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
	page_end(sb);
	html_reply(r, 200);
done:
	free(rp.repo_url);
	return ret;
}

/* The gate (§7) */

/* Runs the gate for a request: 400 for what the request got wrong (an unknown revision),
 * 500 for what the server did (err set, BL_EDB and the like). */
static int run_gate(struct gate_report *report, int *status, const struct web_ctx *ctx,
		    struct store *st, const struct web_gate_query *q, struct bl_error *err)
{
	struct gate_request req;
	struct gate_options opts;
	struct timespec now;
	int ret;
	*status = 200;
	clock_gettime(CLOCK_REALTIME, &now);
	memset(&req, 0, sizeof(req));
	req.repo = ctx->repo_dir;
	req.head = q->head;
	req.base = q->base;
	req.ratchet = q->ratchet;
	req.undecided_fail = q->undecided_fail;
	req.now = (int64_t)now.tv_sec;
	if ((ret = gate_options_build(&opts, &req, err))) {
		*status = 500;
		return ret;
	}
	ret = gate_run(report, st, &opts, err);
	if (ret == BL_ENOTFOUND || ret == BL_EINVALID)
		*status = 400;
	else if (ret)
		*status = 500;
	gate_options_release(&opts);
	return ret;
}

int web_api_gate(struct web_reply *r, const struct web_ctx *ctx, struct store *st,
		 const struct web_gate_query *q, struct bl_error *err)
{
	struct gate_report report;
	int status, ret = run_gate(&report, &status, ctx, st, q, err);
	if (!ret) {
		gate_json_text(&r->body, &report);
		r->status = 200;
		r->type = "application/json";
	} else if (status == 400) {
		struct strbuf shown = STRBUF_INIT;
		web_scrub(&shown, ctx->opts, err->msg.buf);
		web_reply_json_error(r, 400, shown.buf);
		strbuf_release(&shown);
		ret = 0;
	}
	gate_report_release(&report);
	return ret;
}

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

static void gate_num(struct strbuf *sb, const char *fmt, double v)
{
	if (isfinite(v))
		strbuf_addf(sb, fmt, v);
	else
		strbuf_addstr(sb, "–");
}

static void gate_rows(struct strbuf *sb, const struct web_ctx *ctx, const struct gate_comparison *c)
{
	strbuf_addstr(sb, "<table class=\"gate\"><thead><tr><th>Status</th><th>Benchmark</th>"
			  "<th>Metric</th><th>Machine</th><th>Ratio</th><th>99% interval</th>"
			  "<th>Limit</th><th>Noise</th><th>Note</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < c->nrows; i++) {
		const struct gate_row *row = &c->rows[i];
		struct strbuf id = STRBUF_INIT;
		const char *status = gate_status_name(row->status);
		store_series_id(&id, row->machine, row->benchmark, row->config, row->metric);
		strbuf_addf(sb, "<tr class=\"gate-%s\"><td>%s</td><td><a href=\"", status,
			    gate_row_label(row));
		add_series_link(sb, ctx, id.buf);
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
		strbuf_addstr(sb, "</td><td>");
		gate_num(sb, "%.4f", row->ratio);
		strbuf_addstr(sb, "</td><td>");
		if (isfinite(row->lo))
			strbuf_addf(sb, "[%.4f, %.4f]", row->lo, row->hi);
		else
			strbuf_addstr(sb, "–");
		strbuf_addstr(sb, "</td><td>");
		gate_num(sb, "%.4g", row->effective_limit);
		strbuf_addstr(sb, "</td><td>");
		gate_num(sb, "%.1f%%", isfinite(row->noise) ? 100 * row->noise : NAN);
		strbuf_addstr(sb, "</td><td>");
		if (row->override_glob)
			strbuf_addf(sb, "[override %g%%] ", 100 * (row->limit - 1));
		web_html_escape(sb, row->note ? row->note : "");
		strbuf_addstr(sb, "</td></tr>\n");
		strbuf_release(&id);
	}
	strbuf_addstr(sb, "</tbody></table>\n");
	for (size_t i = 0; i < c->nboards; i++) {
		const struct gate_board *b = &c->boards[i];
		strbuf_addstr(sb, "<p class=\"board\">Across the board, ");
		web_html_escape(sb, b->metric);
		strbuf_addf(sb, " over %zu benchmarks: %s, median ratio ", b->n,
			    gate_status_name(b->status));
		gate_num(sb, "%.4f", b->median);
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

int web_page_gate(struct web_reply *r, const struct web_ctx *ctx, struct store *st,
		  const struct web_gate_query *q, struct bl_error *err)
{
	struct strbuf *sb = &r->body;
	struct strbuf undecided = STRBUF_INIT;
	struct gate_report report;
	int status, ret;

	page_start(sb, ctx, "Gate");
	strbuf_addstr(sb, "<h1>Gate</h1>\n");
	gate_form(sb, ctx, q);
	ret = run_gate(&report, &status, ctx, st, q, err);
	if (ret && status == 400) {
		struct strbuf shown = STRBUF_INIT;
		web_scrub(&shown, ctx->opts, err->msg.buf);
		strbuf_addstr(sb, "<p class=\"error\">");
		web_html_escape(sb, shown.buf);
		strbuf_addstr(sb, "</p>\n");
		strbuf_release(&shown);
		page_end(sb);
		html_reply(r, 400);
		gate_report_release(&report);
		return 0;
	}
	if (ret) {
		gate_report_release(&report);
		return ret;
	}
	strbuf_addf(sb, "<p class=\"verdict verdict-%s\">Verdict: <strong>",
		    gate_outcome_name(report.outcome));
	web_html_escape(sb, gate_outcome_name(report.outcome));
	strbuf_addf(sb, "</strong> (exit %d, %zu failing", report.exit_code, report.failures);
	strbuf_reset(&undecided);
	gate_add_undecided(&undecided, &report);
	web_html_escape(sb, undecided.buf);
	strbuf_addf(sb, "). Head <code>%.12s</code>", report.head_commit);
	gate_subject(sb, report.head_subject);
	strbuf_addstr(sb, " against ");
	web_html_escape(sb, report.main.ref_name ? report.main.ref_name : "");
	strbuf_addf(sb, ", merge base <code>%.12s</code>", report.main.commit);
	gate_subject(sb, report.merge_base_subject);
	strbuf_addf(sb, ", limit %.4f.</p>\n", report.limit);
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
	page_end(sb);
	html_reply(r, 200);
	gate_report_release(&report);
	strbuf_release(&undecided);
	return 0;
}

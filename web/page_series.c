/*
 * A Series' page, GET /series/{id} (§11): its chart (drawn by chart.c) with the records as
 * points, its breaks, the §6 band each record was judged by, its Suspects ringed and its
 * Regressions marked; a zoom by place and an axis by date; the list of its Regressions with
 * their probe logs; the table of its records. GET /series/{id}/chart.svg is the chart alone.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect/detect.h"
#include "web/web.h"

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
	p->content_hash = xstrdup_or_null(sp->content_hash);
	p->tags = xstrdup(sp->tags);
	p->subject = xstrdup_or_null(sp->subject);
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
	if (isfinite(shift)) {
		strbuf_addch(sb, ' ');
		strbuf_add_change(sb, 1 + shift, "");
	}
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
	x->subject = xstrdup_or_null(g->subject);
	x->probes = xstrdup(g->probes ? g->probes : "[]");
	x->filed_url = xstrdup_or_null(g->filed_url);
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
	web_add_series_url(sb, ctx, id, WEB_SERIES_PAGE, query.buf, NULL);
	strbuf_addf(sb, "\">%s</a>", label);
	strbuf_release(&query);
}

/* The Series page's list of its Regressions, each with its bisection's probe log. */
static void add_series_regressions(struct strbuf *sb, const struct web_ctx *ctx,
				   const char *repo_url, const struct page_regressions *pr)
{
	strbuf_addstr(sb, "<h2 id=\"regressions\">Regressions</h2>\n");
	for (size_t i = 0; i < pr->nr; i++) {
		const struct page_regression *x = &pr->r[i];
		strbuf_addstr(sb, "<div class=\"regression\"><p><strong><a href=\"");
		web_add_regression_href(sb, ctx, x->id);
		strbuf_addf(sb, "\">Regression %lld</a></strong>: ", (long long)x->id);
		web_add_commit(sb, repo_url, x->commit, NULL);
		strbuf_addch(sb, ' ');
		if (x->subject) {
			strbuf_addstr(sb, "“");
			web_html_escape(sb, x->subject);
			strbuf_addstr(sb, "”");
		}
		if (x->pr > 0) {
			strbuf_addstr(sb, ", PR ");
			web_add_pr(sb, repo_url, x->pr);
		}
		strbuf_addstr(sb, ": <span class=\"slower\">");
		web_add_delta(sb, x->ratio);
		strbuf_addstr(sb, "</span>, 99% interval ");
		web_add_delta_interval(sb, x->lo, x->hi);
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
		web_add_filed(sb, x->filed_url);
		strbuf_addstr(sb, ". <a href=\"");
		web_add_href(sb, ctx, "/regressions");
		strbuf_addstr(sb, "\">All Regressions</a></p>\n");
		web_add_probe_log(sb, repo_url, x->probes);
		strbuf_addstr(sb, "</div>\n");
	}
}

/* Everything a Series' page shows, read once. */
struct series_page {
	struct web_series_copy c;
	struct points ps;
	struct ring rg;
	struct page_regressions pr;
	int ran;	      /* detect has run on the database */
	int judged;	      /* and judges this Series */
	struct unit_scale sc; /* the Series' values: one scale for all, as its chart's */
	/* drawn: the points and marks in the zoom's range, on the chart's axis */
	struct web_point *drawn;
	size_t ndrawn;
	struct web_mark *marks;
	size_t nmarks;
	double from, to;
	int by_date;
	char *repo_url;
	struct strbuf title;
	/* the chart, or why it was not drawn (chart_ret non-zero) */
	char *svg;
	uint64_t chart_etag;
	int chart_ret;
	struct bl_error chart_err;
};

static void series_page_release(struct series_page *sp)
{
	free(sp->svg);
	free(sp->repo_url);
	free(sp->drawn);
	free(sp->marks);
	page_regressions_release(&sp->pr);
	points_release(&sp->ps);
	web_series_copy_release(&sp->c);
	strbuf_release(&sp->title);
	bl_error_release(&sp->chart_err);
}

/* Reads the Series' points, Suspects and Regressions; c.found 0 when there is no such
 * Series. */
static int series_read(struct series_page *sp, struct store *st, const char *const names[4],
		       struct bl_error *err)
{
	struct store_detect *d;
	int ret;
	if ((ret = web_find_series(&sp->c, st, names, err)) || !sp->c.found)
		return ret;
	if ((ret = store_web_points(st, names[0], names[1], names[2], names[3], points_one, &sp->ps,
				    err)))
		return ret;
	sp->rg.ps = &sp->ps;
	if ((ret = store_web_suspects(st, names[0], names[1], names[2], names[3], ring_one, &sp->rg,
				      err)) ||
	    (ret = store_series_regressions(st, names[0], names[1], names[2], names[3],
					    page_regression_one, &sp->pr, err)) ||
	    (ret = web_open_detect(&d, st, err)))
		return ret;
	place_regressions(&sp->pr, &sp->ps);
	set_bands(&sp->ps);
	sp->ran = d != NULL;
	if (d) {
		ret = store_series_judged(&sp->judged, d, names[0], names[1], names[2], names[3],
					  err);
		store_detect_close(d);
	}
	unit_scale_choose(&sp->sc, sp->c.unit, sp->c.last_value);
	return ret;
}

/* The points and marks in the zoom's range, on the chart's axis. */
static void series_select(struct series_page *sp)
{
	sp->drawn = xcalloc(sp->ps.nr ? sp->ps.nr : 1, sizeof(*sp->drawn));
	for (size_t i = 0; i < sp->ps.nr; i++)
		if (sp->ps.p[i].place >= sp->from && sp->ps.p[i].place <= sp->to)
			sp->drawn[sp->ndrawn++] = sp->ps.p[i];
	sp->marks = xcalloc(sp->pr.nr ? sp->pr.nr : 1, sizeof(*sp->marks));
	for (size_t i = 0; i < sp->pr.nr; i++) {
		struct web_mark *m = &sp->marks[sp->nmarks];
		const struct page_regression *x = &sp->pr.r[i];
		if (isnan(x->place) || x->place < sp->from || x->place > sp->to)
			continue;
		m->id = x->id;
		m->place = x->place;
		m->x = m->place;
		m->ratio = x->ratio;
		memcpy(m->commit, x->commit, sizeof(m->commit));
		sp->nmarks++;
	}
	if (sp->by_date)
		use_dates(sp->drawn, sp->ndrawn, sp->marks, sp->nmarks);
}

/* Draws the chart; when gnuplot fails, chart_err says so in words an answer may show: in full
 * in the log, on the page what failed without the server's paths, and without what gnuplot
 * itself printed (it may name the server's files); in full for an export. */
static void series_draw(struct series_page *sp, const struct web_ctx *ctx)
{
	struct strbuf said = STRBUF_INIT;
	struct web_chart chart;
	chart.points = sp->drawn;
	chart.npoints = sp->ndrawn;
	chart.marks = sp->marks;
	chart.nmarks = sp->nmarks;
	chart.title = sp->title.buf;
	chart.unit = sp->c.unit;
	chart.axis = sp->by_date ? WEB_AXIS_DATE : WEB_AXIS_PLACE;
	chart.repo_url = sp->repo_url;
	sp->chart_ret = web_chart_svg(&sp->svg, &sp->chart_etag, &said, ctx->cache, ctx->gnuplot,
				      &chart, &sp->chart_err);
	if (sp->chart_ret && !ctx->exported) {
		struct strbuf shown = STRBUF_INIT;
		web_log(ctx->opts, "a chart was not drawn: %s%s%s", sp->chart_err.msg.buf,
			said.len ? ": " : "", said.buf);
		web_scrub(&shown, ctx->opts, sp->chart_err.msg.buf);
		if (said.len)
			strbuf_addstr(&shown, " (the server's log says more)");
		strbuf_release(&sp->chart_err.msg);
		sp->chart_err.msg = shown;
	} else if (sp->chart_ret && said.len) {
		/* An export has no log: its error says it all (it names no one else's files). */
		strbuf_addf(&sp->chart_err.msg, ": %s", said.buf);
	}
	strbuf_release(&said);
}

/* The page's header: the Series' names, its metric, its records, Suspects and Regressions. */
static void add_series_meta(struct strbuf *sb, const struct web_ctx *ctx,
			    const struct series_page *sp, const char *const names[4])
{
	strbuf_addstr(sb, "<h1>");
	web_html_escape(sb, sp->title.buf);
	strbuf_addstr(sb, "</h1>\n<dl class=\"meta\"><dt>machine</dt><dd>");
	web_html_escape(sb, names[0]);
	strbuf_addstr(sb, "</dd><dt>benchmark</dt><dd>");
	web_html_escape(sb, names[1]);
	strbuf_addstr(sb, "</dd><dt>config</dt><dd>");
	web_html_escape(sb, names[2][0] ? names[2] : "–");
	strbuf_addstr(sb, "</dd><dt>metric</dt><dd>");
	web_html_escape(sb, names[3]);
	strbuf_addstr(sb, " (");
	web_html_escape(sb, metric_kind_name(sp->c.kind));
	strbuf_addstr(sb, ", ");
	web_html_escape(sb, sp->c.unit);
	strbuf_addstr(sb, ", ");
	web_html_escape(sb, metric_better_name(sp->c.better_higher));
	strbuf_addstr(sb, " is better)</dd>");
	strbuf_addf(sb, "<dt>records</dt><dd>%lld on the Series, %zu lines</dd>",
		    (long long)sp->c.records, sp->c.nlines);
	if (!sp->ran) {
		strbuf_addstr(sb, "<dt>suspects</dt><dd class=\"muted\">no detection data yet "
				  "(run <code>benchline detect</code>)</dd>");
	} else if (!sp->judged && !sp->rg.total) {
		strbuf_addstr(sb, "<dt>suspects</dt><dd class=\"muted not-judged\">not judged "
				  "(detection does not judge this metric)</dd>");
	} else {
		strbuf_addstr(sb, "<dt>suspects</dt><dd><a href=\"");
		web_add_href(sb, ctx, "/suspects");
		strbuf_addf(sb, "\">%zu open</a> of %zu</dd>", sp->rg.open, sp->rg.total);
	}
	if (sp->pr.nr)
		strbuf_addf(sb, "<dt>regressions</dt><dd><a href=\"#regressions\">%zu</a></dd>",
			    sp->pr.nr);
	else
		strbuf_addstr(sb, "<dt>regressions</dt><dd>none</dd>");
	strbuf_addstr(sb, "</dl>\n");
}

/* The zoom's form, the axis links and the links to the chart and the records alone. */
static void add_zoom(struct strbuf *sb, const struct web_ctx *ctx, const struct series_page *sp,
		     const struct web_query *q)
{
	struct strbuf query = STRBUF_INIT;
	const char *id = sp->c.id;
	strbuf_addstr(sb, "<form class=\"zoom\" method=\"get\" action=\"");
	if (store_series_id_has_dot_part(id)) {
		/* A form's GET drops its action's query: the id goes as a field. */
		web_html_escape(sb, ctx->base);
		strbuf_addstr(sb, "/series\"><input type=\"hidden\" name=\"id\" value=\"");
		web_html_escape(sb, id);
	} else {
		web_add_series_url(sb, ctx, id, WEB_SERIES_PAGE, NULL, NULL);
	}
	strbuf_addstr(sb, "\">Zoom: from <input name=\"from\" value=\"");
	web_html_escape(sb, q->from ? q->from : "");
	strbuf_addstr(sb, "\"> to <input name=\"to\" value=\"");
	web_html_escape(sb, q->to ? q->to : "");
	strbuf_addstr(sb, "\"> ");
	if (sp->by_date)
		strbuf_addstr(sb, "<input type=\"hidden\" name=\"x\" value=\"date\">");
	strbuf_addstr(sb, "<button>Draw</button> <a href=\"");
	web_add_series_url(sb, ctx, id, WEB_SERIES_PAGE, sp->by_date ? "x=date" : NULL, NULL);
	strbuf_addstr(sb, "\">all</a> · x axis: ");
	add_axis_link(sb, ctx, id, q, 0, sp->by_date);
	strbuf_addstr(sb, " ");
	add_axis_link(sb, ctx, id, q, 1, sp->by_date);
	strbuf_addstr(sb, " · <a href=\"");
	series_query(&query, q, sp->by_date);
	web_add_series_url(sb, ctx, id, WEB_SERIES_CHART, query.buf, NULL);
	strbuf_addstr(sb, "\">SVG</a> · <a href=\"");
	web_add_series_url(sb, ctx, id, WEB_SERIES_RECORDS, NULL, NULL);
	strbuf_addstr(sb, "\">JSON</a></form>\n");
	strbuf_release(&query);
}

/* The chart in the page (or why it is not there) and its legend. */
static void add_chart(struct strbuf *sb, const struct series_page *sp)
{
	strbuf_addstr(sb, "<div class=\"chart\">\n");
	if (sp->chart_ret) {
		strbuf_addstr(sb, "<p class=\"error\">The chart was not drawn: ");
		web_html_escape(sb, sp->chart_err.msg.buf);
		strbuf_addstr(sb, ".</p>\n");
	} else {
		strbuf_addstr(sb, sp->svg);
	}
	strbuf_addstr(
	    sb,
	    "</div>\n<p class=\"legend muted\"><span>● record</span>"
	    "<span class=\"band\">▬ the band it was judged by (the middle of the "
	    "records before it ± their noise)</span><span>┃ spread (samples min–max, or median to "
	    "p95)</span>"
	    "<span>■ imported Baseline</span><span>○ tagged (not judged)</span>"
	    "<span>△ beyond the Series' range, drawn at the edge</span>"
	    "<span>┆ harness-version change</span><span>▒ other break</span>"
	    "<span class=\"ring-slower\">◯ slower Suspect</span>"
	    "<span class=\"ring-faster\">◯ faster Suspect</span>"
	    "<span class=\"ring-slower\">◇ change point: a slower level that held 8 records, "
	    "which the band missed (known 8 records late)</span>"
	    "<span class=\"slower\">▼ Regression (its pinned commit)</span></p>\n");
}

/* A record's tags, each in its own span. */
static void add_tags(struct strbuf *sb, const char *tags)
{
	for (const char *t = tags; *t;) {
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
}

/* One record of the table: its place, commit, date, pull request, hashes, value, line, tags,
 * and the Suspect it is. */
static void add_record_row(struct strbuf *sb, const struct web_ctx *ctx,
			   const struct series_page *sp, const struct web_point *p)
{
	if (p->suspect || p->change_point)
		strbuf_addf(sb, "<tr class=\"suspect %s\">",
			    suspect_side_name(p->suspect ? p->suspect_side : SUSPECT_SLOWER));
	else
		strbuf_addstr(sb, "<tr>");
	if (p->seq >= 0)
		strbuf_addf(sb, "<td class=\"num\">%lld</td>", (long long)p->seq);
	else
		strbuf_addf(sb, "<td class=\"num muted\" title=\"placed by time\">%.1f</td>",
			    p->place);
	strbuf_addstr(sb, "<td>");
	web_add_commit(sb, sp->repo_url, p->commit, p->subject);
	strbuf_addstr(sb, "</td><td class=\"nowrap\">");
	web_format_date(sb, p->date);
	strbuf_addstr(sb, "</td><td>");
	web_add_pr(sb, sp->repo_url, p->pr);
	strbuf_addstr(sb, "</td><td class=\"mono\" title=\"");
	web_html_escape(sb, p->source_hash);
	strbuf_addstr(sb, "\">");
	strbuf_add(sb, p->source_hash, strnlen(p->source_hash, 12));
	strbuf_addf(sb, "</td><td class=\"num\">%lld</td><td class=\"num\">",
		    (long long)p->harness_version);
	web_add_quantity(sb, p->value, &sp->sc);
	strbuf_addstr(sb, "</td><td>");
	if (p->brk != LINE_CONTINUES && p->brk != LINE_FIRST)
		strbuf_addstr(sb, line_break_name(p->brk));
	if (p->baseline)
		strbuf_addstr(sb, " (Baseline)");
	strbuf_addstr(sb, "</td><td>");
	add_tags(sb, p->tags);
	strbuf_addstr(sb, "</td><td>");
	if (p->suspect) {
		strbuf_addf(sb, "<a class=\"suspect %s\" href=\"",
			    suspect_side_name(p->suspect_side));
		web_add_href(sb, ctx, "/suspects");
		strbuf_addstr(sb, "\">");
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
		web_add_href(sb, ctx, "/suspects");
		strbuf_addstr(sb, "\">change point ");
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

/* The page around the chart: header, zoom, chart, Regressions, the records newest first. */
static void add_series_page(struct strbuf *sb, const struct web_ctx *ctx,
			    const struct series_page *sp, const char *const names[4],
			    const struct web_query *q)
{
	web_page_start(sb, ctx, sp->title.buf);
	add_series_meta(sb, ctx, sp, names);
	if (!ctx->exported) {
		add_zoom(sb, ctx, sp, q);
	} else {
		strbuf_addstr(sb, "<p class=\"zoom\"><a href=\"");
		web_add_series_url(sb, ctx, sp->c.id, WEB_SERIES_CHART, NULL, NULL);
		strbuf_addstr(sb, "\">SVG</a></p>\n");
	}
	add_chart(sb, sp);
	if (sp->pr.nr)
		add_series_regressions(sb, ctx, sp->repo_url, &sp->pr);
	strbuf_addstr(sb, "<h2>Records</h2>\n");
	strbuf_addstr(sb, "<table><thead><tr><th>seq</th><th>commit</th>"
			  "<th>date (UTC)</th><th>PR</th><th>source hash</th><th>harness</th>"
			  "<th>value</th><th>line</th><th>tags</th><th>suspect</th></tr></thead>"
			  "<tbody>\n");
	for (size_t k = sp->ndrawn; k-- > 0;)
		add_record_row(sb, ctx, sp, &sp->drawn[k]);
	strbuf_addstr(sb, "</tbody></table>\n");
	if (!sp->ndrawn)
		strbuf_addstr(sb, "<p class=\"empty\">No records in this range.</p>\n");
	web_page_end(sb);
}

/* The Series' page, or its chart alone (chart_only). */
static int page_series(struct web_reply *r, const struct web_ctx *ctx, struct store *st,
		       const char *const names[4], const struct web_query *q, int chart_only,
		       struct bl_error *err)
{
	struct series_page sp;
	struct bl_error none = BL_ERROR_INIT;
	int ret;

	memset(&sp, 0, sizeof(sp));
	strbuf_init(&sp.title, 0);
	sp.chart_err = none;
	sp.from = -INFINITY;
	sp.to = INFINITY;
	sp.by_date = q->x && !strcmp(q->x, "date");
	if ((ret = series_read(&sp, st, names, err)))
		goto done;
	if (!sp.c.found) {
		web_page_error(r, ctx, 404, "No such Series");
		goto done;
	}
	if (parse_bound(&sp.from, q->from) || parse_bound(&sp.to, q->to)) {
		web_page_error(r, ctx, 400, "from and to must be numbers (places on main)");
		goto done;
	}
	series_select(&sp);
	sp.repo_url = web_repo_url(ctx);
	web_series_title(&sp.title, names[0], names[1], names[2], names[3]);
	series_draw(&sp, ctx);
	if (chart_only && sp.chart_ret) {
		web_reply_text(r, 503, sp.chart_err.msg.buf);
	} else if (chart_only) {
		strbuf_addstr(&r->body, sp.svg);
		r->status = 200;
		r->type = "image/svg+xml";
		r->etag = sp.chart_etag;
		r->has_etag = 1;
	} else {
		add_series_page(&r->body, ctx, &sp, names, q);
		web_html_reply(r, 200);
		/* The page is a function of what it shows: its own hash is its ETag. */
		r->etag = web_hash(WEB_HASH_INIT, r->body.buf, r->body.len);
		r->has_etag = !sp.chart_ret;
	}
done:
	series_page_release(&sp);
	return ret;
}

/* GET /series/{id}[/chart.svg], or /series?id=ID and /series/chart.svg?id=ID: how the pages
 * link a Series with a "." or ".." part, which a browser resolves away in a path. */
int web_route_series(struct web_reply *r, const struct web_request *req, struct bl_error *err)
{
	struct strbuf parts[4] = {STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT};
	int by_path = !strncmp(req->path, "/series/", 8) && strcmp(req->path, "/series/chart.svg");
	const char *names[4], *rest = NULL, *id = by_path ? req->rest : req->q.id;
	int chart_only, ret = 0;

	if (!id || web_split_series_id(parts, &rest, id) ||
	    (by_path ? *rest && strcmp(rest, "/chart.svg") : *rest != '\0')) {
		web_page_error(r, req->ctx, 404, "No such Series");
		goto done;
	}
	chart_only = by_path ? *rest != '\0' : req->path[7] != '\0';
	for (int i = 0; i < 4; i++)
		names[i] = parts[i].buf;
	ret = page_series(r, req->ctx, req->st, names, &req->q, chart_only, err);
done:
	for (int i = 0; i < 4; i++)
		strbuf_release(&parts[i]);
	return ret;
}

/*
 * `benchline export --html DIR` (§11): the pages the server answers, written as files that
 * work from the file system or any static host (as asv publishes its site): the overview
 * (index.html, its search and sort done by the page's own scripts), the alerts, the Suspects,
 * the Regressions and each Regression's page, every Series' page with its chart (series/),
 * the badge and the assets. Each page is made by the handler the server routes its path to,
 * with links to files, relative to the page (web_ctx.exported); what needs a server (the JSON
 * API, the gate, zoom and filters by query) is left out of them. With --base-url each page
 * names its address where the site will be served (rel="canonical").
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "web/web.h"

struct exporter {
	const struct web_export *x;
	struct store *st;
	struct web_ctx top, deep; /* pages in DIR (base "."), and in its folders (base "..") */
	struct web_export_result *res;
	struct strbuf path;
	char **series;
	size_t nseries, series_alloc;
	int64_t *regressions;
	size_t nregressions, regressions_alloc;
};

static void say(const struct exporter *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void say(const struct exporter *e, const char *fmt, ...)
{
	struct strbuf line = STRBUF_INIT;
	va_list ap;
	if (!e->x->progress)
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&line, fmt, ap);
	va_end(ap);
	e->x->progress(line.buf, e->x->progress_data);
	strbuf_release(&line);
}

static int make_dir(const char *path, struct bl_error *err)
{
	if (mkdir(path, 0777) && errno != EEXIST)
		return bl_error_set(err, BL_EIO, "cannot create '%s': %s", path, strerror(errno));
	return 0;
}

/* Writes DIR/NAME. */
static int write_out(struct exporter *e, const char *name, const void *data, size_t len,
		     struct bl_error *err)
{
	strbuf_reset(&e->path);
	strbuf_addf(&e->path, "%s/%s", e->x->dir, name);
	e->res->files++;
	return write_file_atomic(e->path.buf, data, len, err);
}

/*
 * Asks the handler of a page (its path as the server routes it, rest and id as the route
 * table would give them) and writes its answer to DIR/NAME. Anything but a 200 is an error:
 * a page that cannot be made is not left out of the site silently.
 */
static int export_page(struct exporter *e, const struct web_ctx *ctx, web_route_fn *fn,
		       const char *path, const char *rest, int64_t id, const char *name,
		       struct bl_error *err)
{
	struct web_request req;
	struct web_reply r;
	struct web_ctx page = *ctx;
	struct strbuf url = STRBUF_INIT;
	int ret;

	memset(&req, 0, sizeof(req));
	memset(&r, 0, sizeof(r));
	strbuf_init(&r.body, 0);
	if (e->x->base_url) {
		web_export_url(&url, e->x->base_url, name);
		page.canonical = url.buf;
	}
	req.ctx = &page;
	req.path = path;
	req.rest = rest;
	req.id = id;
	req.st = e->st;
	if ((ret = fn(&r, &req, err)))
		goto done;
	if (r.status != 200) {
		/* the page's own words: a chart gnuplot did not draw, say */
		strbuf_setlen(&r.body, r.body.len && r.body.buf[r.body.len - 1] == '\n'
					   ? r.body.len - 1
					   : r.body.len);
		ret =
		    bl_error_set(err, BL_EIO, "cannot make '%s' (%d): %.300s", name, r.status,
				 strncmp(r.type ? r.type : "", "text/plain", 10) ? "" : r.body.buf);
		goto done;
	}
	ret = write_out(e, name, r.body.buf, r.body.len, err);
done:
	strbuf_release(&r.body);
	strbuf_release(&url);
	return ret;
}

void web_export_url(struct strbuf *sb, const char *base_url, const char *name)
{
	size_t len = strlen(base_url);
	while (len && base_url[len - 1] == '/')
		len--;
	strbuf_add(sb, base_url, len);
	strbuf_addch(sb, '/');
	if (strcmp(name, "index.html"))
		strbuf_addstr(sb, name);
}

static int series_id_one(const struct store_series *s, void *data)
{
	struct exporter *e = data;
	ALLOC_GROW(e->series, e->nseries, e->series_alloc);
	e->series[e->nseries++] = xstrdup(s->id);
	return 0;
}

static int regression_id_one(const struct store_regression *g, void *data)
{
	struct exporter *e = data;
	ALLOC_GROW(e->regressions, e->nregressions, e->regressions_alloc);
	e->regressions[e->nregressions++] = g->id;
	return 0;
}

/* Every Series' chart and page, series/NAME.svg and series/NAME.html: the chart first, so a
 * chart gnuplot cannot draw stops the export before a page that would say so is written; and
 * before the pages of DIR itself, so a gnuplot that cannot draw at all leaves no page. */
static int export_series(struct exporter *e, struct bl_error *err)
{
	struct strbuf file = STRBUF_INIT, path = STRBUF_INIT, rest = STRBUF_INIT;
	int ret = 0;
	for (size_t i = 0; i < e->nseries && !ret; i++) {
		const char *id = e->series[i];
		strbuf_reset(&file);
		strbuf_addstr(&file, "series/");
		web_series_file(&file, id);
		strbuf_addstr(&file, ".svg");
		strbuf_reset(&path);
		strbuf_addf(&path, "/series/%s/chart.svg", id);
		strbuf_reset(&rest);
		strbuf_addf(&rest, "%s/chart.svg", id);
		ret = export_page(e, &e->deep, web_route_series, path.buf, rest.buf, 0, file.buf,
				  err);
		if (ret)
			break;
		strbuf_setlen(&file, file.len - 4);
		strbuf_addstr(&file, ".html");
		strbuf_setlen(&path, path.len - 10);
		ret = export_page(e, &e->deep, web_route_series, path.buf, id, 0, file.buf, err);
		e->res->pages++;
		e->res->charts++;
		if ((i + 1) % 25 == 0 && i + 1 < e->nseries)
			say(e, "export: %zu of %zu Series", i + 1, e->nseries);
	}
	strbuf_release(&file);
	strbuf_release(&path);
	strbuf_release(&rest);
	return ret;
}

/* The pages of DIR itself, each Regression's page, the badge. */
static int export_pages(struct exporter *e, struct bl_error *err)
{
	static const struct {
		const char *path;
		web_route_fn *fn;
	} pages[] = {{"/", web_route_overview},
		     {"/alerts", web_route_alerts},
		     {"/suspects", web_route_suspects},
		     {"/regressions", web_route_regressions}};
	struct strbuf name = STRBUF_INIT, path = STRBUF_INIT;
	int ret = 0;
	for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]) && !ret; i++) {
		strbuf_reset(&name);
		web_export_path(&name, pages[i].path);
		ret = export_page(e, &e->top, pages[i].fn, pages[i].path, "", 0, name.buf, err);
		e->res->pages++;
	}
	for (size_t i = 0; i < e->nregressions && !ret; i++) {
		strbuf_reset(&path);
		strbuf_addf(&path, "/regressions/%lld", (long long)e->regressions[i]);
		strbuf_reset(&name);
		web_export_path(&name, path.buf);
		ret = export_page(e, &e->deep, web_route_regression, path.buf, "",
				  e->regressions[i], name.buf, err);
		e->res->pages++;
	}
	if (!ret)
		ret =
		    export_page(e, &e->top, web_route_badge, "/badge.svg", "", 0, "badge.svg", err);
	strbuf_release(&name);
	strbuf_release(&path);
	return ret;
}

static int export_assets(struct exporter *e, struct bl_error *err)
{
	const struct web_asset *a;
	struct strbuf name = STRBUF_INIT;
	int ret = 0;
	for (size_t i = 0; !ret && (a = web_asset_at(i)); i++) {
		strbuf_reset(&name);
		strbuf_addf(&name, "assets/%s", a->name);
		ret = write_out(e, name.buf, a->data, a->len, err);
	}
	strbuf_release(&name);
	return ret;
}

static int make_dirs(const char *dir, struct bl_error *err)
{
	static const char *const sub[] = {"series", "regressions", "assets"};
	struct strbuf path = STRBUF_INIT;
	int ret = make_dir(dir, err);
	for (size_t i = 0; i < 3 && !ret; i++) {
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir, sub[i]);
		ret = make_dir(path.buf, err);
	}
	strbuf_release(&path);
	return ret;
}

int web_export_html(struct web_export_result *out, struct store *st, const struct web_export *x,
		    struct bl_error *err)
{
	struct exporter e;
	int ret;

	memset(out, 0, sizeof(*out));
	memset(&e, 0, sizeof(e));
	e.x = x;
	e.st = st;
	e.res = out;
	strbuf_init(&e.path, 0);
	e.top.base = ".";
	e.top.gnuplot = x->gnuplot ? x->gnuplot : "gnuplot";
	e.top.cache = web_chart_cache_new(4);
	e.top.repo_dir = x->repo_dir;
	e.top.exported = 1;
	e.deep = e.top;
	e.deep.base = "..";
	if ((ret = make_dirs(x->dir, err)) ||
	    (ret = store_each_series(st, NULL, series_id_one, &e, err)) ||
	    (ret = store_each_regression(st, 0, regression_id_one, &e, err)))
		goto done;
	say(&e, "export: %zu Series, %zu Regressions to '%s'", e.nseries, e.nregressions, x->dir);
	if ((ret = export_series(&e, err)) || (ret = export_pages(&e, err)))
		goto done;
	ret = export_assets(&e, err);
done:
	web_chart_cache_free(e.top.cache);
	strings_free(e.series, e.nseries);
	free(e.regressions);
	strbuf_release(&e.path);
	return ret;
}

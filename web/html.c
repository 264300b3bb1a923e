/*
 * What every page shares: its frame (the header's links, the stylesheet), error pages, links
 * to the server's own pages and to a Series, and how values, commits, pull requests, deltas,
 * filed issues and a bisection's probe log are shown. Every string from the database or the
 * request goes into HTML through web_html_escape.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/config/config.h"
#include "web/web.h"

void web_export_path(struct strbuf *sb, const char *path)
{
	const char *hash = strchr(path, '#');
	size_t n = hash ? (size_t)(hash - path) : strlen(path);
	if (n == 1 && path[0] == '/')
		strbuf_addstr(sb, "index.html");
	else if (!strncmp(path, "/assets/", 8))
		strbuf_add(sb, path + 1, n - 1);
	else if (n > 1) {
		strbuf_add(sb, path + 1, n - 1);
		strbuf_addstr(sb, ".html");
	}
	if (hash)
		strbuf_addstr(sb, hash);
}

void web_add_href(struct strbuf *sb, const struct web_ctx *ctx, const char *path)
{
	struct strbuf file = STRBUF_INIT;
	web_html_escape(sb, ctx->base);
	if (!ctx->exported) {
		web_html_escape(sb, path);
		return;
	}
	strbuf_addch(sb, '/');
	web_export_path(&file, path);
	web_html_escape(sb, file.buf);
	strbuf_release(&file);
}

void web_add_regression_href(struct strbuf *sb, const struct web_ctx *ctx, int64_t id)
{
	struct strbuf path = STRBUF_INIT;
	strbuf_addf(&path, "/regressions/%lld", (long long)id);
	web_add_href(sb, ctx, path.buf);
	strbuf_release(&path);
}

void web_add_alert_href(struct strbuf *sb, const struct web_ctx *ctx, int64_t id)
{
	struct strbuf path = STRBUF_INIT;
	strbuf_addf(&path, "/alerts#alert-%lld", (long long)id);
	web_add_href(sb, ctx, path.buf);
	strbuf_release(&path);
}

void web_series_file(struct strbuf *sb, const char *id)
{
	size_t n = 0;
	for (const char *c = id; *c && n < 80; c++, n++) {
		unsigned char ch = (unsigned char)*c;
		int plain = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			    (ch >= '0' && ch <= '9') || ch == '_' || ch == '-';
		strbuf_addch(sb, plain ? (char)ch : '_');
	}
	strbuf_addf(sb, "-%08x", (unsigned)(web_hash(WEB_HASH_INIT, id, strlen(id)) & 0xffffffffu));
}

void web_page_start(struct strbuf *sb, const struct web_ctx *ctx, const char *title)
{
	strbuf_addstr(sb,
		      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		      "<title>");
	web_html_escape(sb, title);
	strbuf_addstr(sb, " · benchline</title>\n<link rel=\"stylesheet\" href=\"");
	web_add_href(sb, ctx, "/assets/style.css");
	if (ctx->canonical) {
		strbuf_addstr(sb, "\">\n<link rel=\"canonical\" href=\"");
		web_html_escape(sb, ctx->canonical);
	}
	strbuf_addstr(sb, "\">\n</head><body>\n<header><a class=\"brand\" href=\"");
	web_add_href(sb, ctx, "/");
	strbuf_addstr(sb, "\">benchline</a><a href=\"");
	web_add_href(sb, ctx, "/");
	strbuf_addstr(sb, "\">Series</a><a href=\"");
	web_add_href(sb, ctx, "/alerts");
	strbuf_addstr(sb, "\">Alerts</a><a href=\"");
	web_add_href(sb, ctx, "/suspects");
	strbuf_addstr(sb, "\">Suspects</a><a href=\"");
	web_add_href(sb, ctx, "/regressions");
	strbuf_addstr(sb, "\">Regressions</a>");
	if (!ctx->exported) {
		if (ctx->repo_dir) {
			strbuf_addstr(sb, "<a href=\"");
			web_add_href(sb, ctx, "/gate");
			strbuf_addstr(sb, "\">Gate</a>");
		}
		strbuf_addstr(sb, "<a href=\"");
		web_add_href(sb, ctx, "/api/series");
		strbuf_addstr(sb, "\">JSON</a>");
	}
	strbuf_addstr(sb, "</header>\n<main>\n");
}

void web_page_end(struct strbuf *sb)
{
	strbuf_addstr(sb, "</main>\n</body></html>\n");
}

void web_html_reply(struct web_reply *r, int status)
{
	r->status = status;
	r->type = "text/html; charset=utf-8";
}

void web_page_error(struct web_reply *r, const struct web_ctx *ctx, int status, const char *msg)
{
	strbuf_reset(&r->body);
	web_page_start(&r->body, ctx, msg);
	strbuf_addstr(&r->body, "<h1>");
	web_html_escape(&r->body, msg);
	strbuf_addstr(&r->body, "</h1>\n<p><a href=\"");
	web_add_href(&r->body, ctx, "/");
	strbuf_addstr(&r->body, "\">Every Series</a></p>\n");
	web_page_end(&r->body);
	web_html_reply(r, status);
	r->has_etag = 0;
}

void web_add_quantity(struct strbuf *sb, double v, const struct unit_scale *sc)
{
	struct strbuf text = STRBUF_INIT;
	if (isnan(v)) {
		strbuf_addstr(sb, "–");
		return;
	}
	strbuf_add_quantity(&text, v, sc);
	web_html_escape(sb, text.buf);
	strbuf_release(&text);
}

void web_add_config(struct strbuf *sb, const char *config)
{
	if (config[0])
		web_html_escape(sb, config);
	else
		strbuf_addstr(sb, "<span class=\"muted\">–</span>");
}

void web_add_series_url(struct strbuf *sb, const struct web_ctx *ctx, const char *id,
			enum web_series_view view, const char *query, const char *fragment)
{
	static const char *const path_of[][2] = {
	    {"/series/", ""}, {"/series/", "/chart.svg"}, {"/api/series/", "/records"}};
	static const char *const query_of[] = {
	    "/series?id=", "/series/chart.svg?id=", "/api/series/records?id="};
	int in_query = store_series_id_has_dot_part(id);
	web_html_escape(sb, ctx->base);
	if (ctx->exported) {
		/* files: the page and its chart (no records: the JSON API needs a server) */
		strbuf_addstr(sb, "/series/");
		web_series_file(sb, id);
		strbuf_addstr(sb, view == WEB_SERIES_CHART ? ".svg" : ".html");
		if (fragment) {
			strbuf_addch(sb, '#');
			web_html_escape(sb, fragment);
		}
		return;
	}
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

void web_series_title(struct strbuf *sb, const char *machine, const char *benchmark,
		      const char *config, const char *metric)
{
	strbuf_addf(sb, "%s / %s / %s / %s", machine, benchmark, config[0] ? config : "-", metric);
}

void web_add_series_cells(struct strbuf *sb, const struct web_ctx *ctx, const char *id,
			  const char *benchmark, const char *config, const char *metric,
			  const char *fragment)
{
	strbuf_addstr(sb, "<td>");
	web_html_escape(sb, benchmark);
	strbuf_addstr(sb, "</td><td>");
	web_add_config(sb, config);
	strbuf_addstr(sb, "</td><td><a href=\"");
	web_add_series_url(sb, ctx, id, WEB_SERIES_PAGE, NULL, fragment);
	strbuf_addstr(sb, "\">");
	web_html_escape(sb, metric);
	strbuf_addstr(sb, "</a></td>");
}

char *web_repo_url(const struct web_ctx *ctx)
{
	struct config cfg;
	char *url = NULL;
	/* Read for each page, as the background thread reads the settings for each run; a file
	 * that does not parse gives no links (the sync and detection report it). */
	if (!ctx->repo_dir)
		return NULL;
	config_init(&cfg);
	if (!config_load(&cfg, ctx->repo_dir, NULL) && cfg.repo_url)
		url = xstrdup(cfg.repo_url);
	config_release(&cfg);
	return url;
}

void web_add_commit(struct strbuf *sb, const char *repo_url, const char *commit,
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

void web_add_pr(struct strbuf *sb, const char *repo_url, int64_t pr)
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

void web_add_delta(struct strbuf *sb, double ratio)
{
	strbuf_add_change(sb, ratio, "–");
}

void web_add_delta_interval(struct strbuf *sb, double lo, double hi)
{
	strbuf_add_change_interval(sb, lo, hi, "–");
}

void web_add_commit_cell(struct strbuf *sb, const char *repo_url, const char *commit)
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

void web_add_filed(struct strbuf *sb, const char *url)
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

/* A ratio a JSON value holds as its change, "–" when it holds none. */
static void add_json_delta(struct strbuf *sb, json_t *v)
{
	web_add_delta(sb, json_is_number(v) ? json_number_value(v) : NAN);
}

/* One probe of a bisection's log as a table row. */
static void add_probe(struct strbuf *sb, const char *repo_url, json_t *p, size_t i)
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
	web_add_commit_cell(sb, repo_url, commit ? commit : "");
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
	add_json_delta(sb, json_object_get(p, "ratio"));
	strbuf_addstr(sb, "</td><td>");
	web_add_delta_interval(sb, json_is_number(lo) ? json_number_value(lo) : NAN,
			       json_is_number(hi) ? json_number_value(hi) : NAN);
	strbuf_addf(sb, "</td><td class=\"num\">%lld</td></tr>\n",
		    (long long)json_integer_value(json_object_get(p, "pairs")));
}

void web_add_probe_log(struct strbuf *sb, const char *repo_url, const char *probes)
{
	json_t *arr = json_loads(probes, JSON_DECODE_ANY, NULL), *p;
	size_t i;
	if (!json_is_array(arr) || !json_array_size(arr)) {
		strbuf_addstr(sb, "<p class=\"muted\">No probe log was stored.</p>\n");
		json_decref(arr);
		return;
	}
	strbuf_addstr(sb, "<table class=\"probes\"><thead><tr><th>probe</th><th>commit</th>"
			  "<th>verdict</th><th>metric</th><th>Δ</th><th>99% interval</th>"
			  "<th>pairs</th></tr></thead><tbody>\n");
	json_array_foreach (arr, i, p) {
		add_probe(sb, repo_url, p, i);
	}
	strbuf_addstr(sb, "</tbody></table>\n");
	json_decref(arr);
}

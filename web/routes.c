/*
 * The route table: every route the server answers, in one place, as cli/ has its command
 * table. server.c looks each request up here (web_route_find) and dispatches: it borrows a
 * store connection from the route's pool, answers from the reply cache for a cached route,
 * and turns a handler's error into a status (web_reply_error, the one place that does).
 */
#include <ctype.h>
#include <jansson.h>
#include <stdint.h>
#include <string.h>

#include "web/web.h"

/* Most specific first where two could take a path: an exact route before the prefix that
 * also starts it ("/series/chart.svg" before "/series/"). */
static const struct web_route routes[] = {
    /* pages */
    {"GET", "/", WEB_POOL_READ, WEB_ROUTE_CACHED, 0, NULL, web_route_overview},
    {"GET", "/series", WEB_POOL_CHART, WEB_ROUTE_CACHED, 0, NULL, web_route_series},
    {"GET", "/series/chart.svg", WEB_POOL_CHART, WEB_ROUTE_CACHED, 0, NULL, web_route_series},
    {"GET", "/series/", WEB_POOL_CHART, WEB_ROUTE_PREFIX | WEB_ROUTE_CACHED, 0, NULL,
     web_route_series},
    {"GET", "/suspects", WEB_POOL_READ, WEB_ROUTE_CACHED, 0, NULL, web_route_suspects},
    {"GET", "/alerts", WEB_POOL_READ, WEB_ROUTE_CACHED, 0, NULL, web_route_alerts},
    {"GET", "/regressions", WEB_POOL_READ, WEB_ROUTE_CACHED, 0, NULL, web_route_regressions},
    {"GET", "/regressions/{id}", WEB_POOL_READ, WEB_ROUTE_CACHED, 0, NULL, web_route_regression},
    {"GET", "/badge.svg", WEB_POOL_READ, WEB_ROUTE_CACHED, 0, NULL, web_route_badge},
    {"GET", "/gate", WEB_POOL_READ, WEB_ROUTE_REPO, 0, NULL, web_route_gate},
    {"GET", "/assets/", WEB_POOL_NONE, WEB_ROUTE_PREFIX, 0, NULL, web_route_asset},
    /* the JSON API */
    {"GET", "/api/series", WEB_POOL_READ, WEB_ROUTE_CACHED, 0, NULL, web_api_series},
    {"GET", "/api/series/records", WEB_POOL_READ, WEB_ROUTE_CACHED, 0, NULL,
     web_api_series_records},
    {"GET", "/api/series/", WEB_POOL_READ, WEB_ROUTE_PREFIX | WEB_ROUTE_CACHED, 0, NULL,
     web_api_series_records},
    {"GET", "/api/suspects", WEB_POOL_READ, WEB_ROUTE_CACHED, 0, NULL, web_api_suspects},
    {"GET", "/api/regressions", WEB_POOL_READ, WEB_ROUTE_CODES, 0, NULL, web_api_regressions},
    {"GET", "/api/alerts", WEB_POOL_READ, WEB_ROUTE_CODES, 0, NULL, web_api_alerts},
    {"POST", "/api/alerts/{id}/outcome", WEB_POOL_WRITE, WEB_ROUTE_CODES, WEB_ROLE_CONFIRM,
     "post confirm outcomes", web_api_alert_outcome},
    {"POST", "/api/alerts/{id}/ignore", WEB_POOL_WRITE, WEB_ROUTE_CODES, WEB_ROLE_CONFIRM,
     "ignore alerts", web_api_alert_ignore},
    {"GET", "/api/records", WEB_POOL_READ, WEB_ROUTE_CODES, 0, NULL, web_api_records},
    {"POST", "/api/records", WEB_POOL_WRITE, WEB_ROUTE_CODES, WEB_ROLE_PUSH, "push records",
     web_api_push},
    {"GET", "/api/status", WEB_POOL_NONE, WEB_ROUTE_CODES, 0, NULL, web_api_status},
    {"GET", "/api/gate", WEB_POOL_READ, WEB_ROUTE_REPO, 0, NULL, web_api_gate},
};

/* 1 when path is the route's: *rest what follows a prefix, *id the "{id}" it holds. */
static int route_matches(const char **rest, int64_t *id, const struct web_route *rt,
			 const char *path)
{
	const char *pat = rt->path, *brace = strstr(pat, "{id}");
	size_t n;
	*id = 0;
	if (rt->flags & WEB_ROUTE_PREFIX) {
		n = strlen(pat);
		if (strncmp(path, pat, n))
			return 0;
		*rest = path + n;
		return 1;
	}
	*rest = "";
	if (!brace)
		return !strcmp(path, pat);
	n = (size_t)(brace - pat);
	if (strncmp(path, pat, n) || path[n] < '1' || path[n] > '9')
		return 0;
	for (path += n; isdigit((unsigned char)*path); path++) {
		if (*id > (INT64_MAX - 9) / 10)
			return 0;
		*id = *id * 10 + (*path - '0');
	}
	return !strcmp(path, brace + 4);
}

const struct web_route *web_route_find(const char **rest, int64_t *id, const char **allow,
				       const char *path, const char *method, int have_repo)
{
	static const char *const allows[] = {NULL, "GET, HEAD", "POST", "GET, HEAD, POST"};
	int get = !strcmp(method, "GET") || !strcmp(method, "HEAD");
	unsigned methods = 0;
	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
		const struct web_route *rt = &routes[i];
		int rt_get = !strcmp(rt->method, "GET");
		if ((rt->flags & WEB_ROUTE_REPO) && !have_repo)
			continue;
		if (!route_matches(rest, id, rt, path))
			continue;
		if (rt_get ? get : !strcmp(method, rt->method))
			return rt;
		methods |= rt_get ? 1 : 2;
	}
	*rest = "";
	*id = 0;
	*allow = allows[methods];
	return NULL;
}

/* An error of a use case as an HTTP status: the client's fault, its token's, a state that
 * forbids it, a lock held too long (503, try again), or ours. */
static unsigned error_status(int code)
{
	switch (code) {
	case BL_EINVALID:
		return 400;
	case BL_EDENIED:
		return 403;
	case BL_ENOTFOUND:
		return 404;
	case BL_ECONFLICT:
		return 409;
	case BL_EBUSY:
	case BL_EUNAVAILABLE:
		return 503;
	default:
		return 500;
	}
}

int web_is_api(const char *path)
{
	return !strncmp(path, "/api/", 5);
}

void web_reply_message(struct web_reply *r, const struct web_ctx *ctx, int api, int status,
		       const char *msg)
{
	if (api)
		web_reply_json_error(r, status, msg);
	else
		web_page_error(r, ctx, status, msg);
}

void web_reply_error(struct web_reply *r, const struct web_ctx *ctx, int api,
		     const struct bl_error *err)
{
	unsigned status = error_status(err->code);
	const char *msg = err->msg.len ? err->msg.buf : "unknown error";
	struct strbuf shown = STRBUF_INIT;
	if (err->code == BL_EUNAVAILABLE || status == 500) {
		web_log(ctx->opts, "answered %u: %s", status, msg);
		strbuf_addstr(&shown, err->code == BL_EUNAVAILABLE
					  ? "the database cannot be reached: try again later"
					  : "the server failed to answer (its log says why)");
	} else {
		web_scrub(&shown, ctx->opts, msg);
	}
	web_reply_message(r, ctx, api, (int)status, shown.buf);
	if (status == 503)
		r->retry_after_s = WEB_RETRY_AFTER;
	strbuf_release(&shown);
}

void web_reply_failure(struct web_reply *r, const struct web_ctx *ctx, int api,
		       struct bl_error *err)
{
	if (err->code != BL_EBUSY && err->code != BL_EUNAVAILABLE)
		err->code = BL_EDB;
	web_reply_error(r, ctx, api, err);
}

/* GET /api/status: what the background thread is doing. Never cached. */
int web_api_status(struct web_reply *r, const struct web_request *req, struct bl_error *err)
{
	static const char *const no_params[] = {NULL};
	(void)err;
	if (web_check_params(r, req, no_params))
		return 0;
	web_reply_json(r, 200, web_server_status(req->srv));
	return 0;
}

/*
 * web: `benchline serve` (§11). An HTTP server on libmicrohttpd (server.c: connections, bodies,
 * the store pools, and the one dispatch through the route table of routes.c, which says for
 * every route its method, path or prefix, pool, whether its answer is cached, and its
 * handler), the request deadline's watch (watch.c), bearer tokens and their roles (tokens.c),
 * the API's query parameters (params.c), what every page shares: its frame, links, commits,
 * values, error pages (html.c); one file per page: the overview (page_overview.c), a Series
 * with its chart (page_series.c, drawn by gnuplot in chart.c), the alerts (page_alerts.c),
 * the Suspects (page_suspects.c), the Regressions and each one's page (page_regressions.c),
 * the gate (page_gate.c), the README badge (badge.c) and the static assets (assets.c); the
 * JSON API by resource: api_series.c, api_suspects.c, api_regressions.c, api_alerts.c (with
 * the confirm outcomes and ignores sweep machines post), api_records.c (with POST
 * /api/records, the intake) and api_gate.c; the same pages as a static site (export.c,
 * `benchline export --html`); the background thread that detects after pushes and syncs
 * main (background.c), and small helpers: escaping, hashing, JSON replies and lists, the
 * reply cache (util.c). Each connection has its own thread; a request borrows a store
 * connection from the pool its route names (reads, charts, the one writer). Nothing here
 * prints or exits; cli/cmd_serve.c starts and stops the server, cli/cmd_export.c exports.
 */
#ifndef BENCHLINE_WEB_H
#define BENCHLINE_WEB_H

#include <stddef.h>
#include <stdint.h>

#include "common/common.h"
#include "store/store.h"

struct json_t;

/* Largest body POST /api/records takes (413 over it). */
#define WEB_MAX_BODY ((size_t)16 << 20)
/* Most query parameters a request may have (414 over it). */
#define WEB_MAX_PARAMS 64
/* Largest token file read. */
#define WEB_MAX_TOKEN_FILE ((size_t)1 << 20)
/* gnuplot is killed when it runs longer than this. */
#define WEB_GNUPLOT_TIMEOUT_MS 5000
/* Seconds between two syncs of --repo's main (--sync-interval). */
#define WEB_SYNC_INTERVAL 300
/* GET /api/records: rows of a page by default, and at the most. */
#define WEB_PAGE_DEFAULT 100
#define WEB_PAGE_MAX	 1000

struct web_options {
	const char *db_path;
	const char *bind;	 /* "127.0.0.1" when NULL */
	unsigned port;		 /* 0: any free port (web_port() says which) */
	const char *token_file;	 /* NULL: pushing is refused with 401 */
	const char *base_url;	 /* prefix of absolute links, NULL for relative ones */
	const char *gnuplot;	 /* the program, "gnuplot" when NULL */
	unsigned threads;	 /* store connections for reads, and for charts: 4 each when 0 */
	unsigned timeout_s;	 /* idle or slow connections are dropped after this; 10 when 0 */
	unsigned lock_timeout_s; /* a write waits this long for the lock, then 503; 30 when 0 */
	/* A request's headers and body must be in this long after the connection is ready for
	 * it (accepted, or its previous answer sent), else it is dropped; WEB_REQUEST_DEADLINE
	 * when 0. */
	unsigned request_deadline_s;
	unsigned client_connections; /* open connections one address may have; 0: no limit */
	unsigned client_charts;	     /* charts one address has drawn at once; WEB_CLIENT_CHARTS
					when 0 */
	const char *repo_dir; /* the benchmarked repository: /gate, /api/gate and the sync need
				 it; its benchline.json applies to pushes and detection */
	unsigned
	    sync_interval_s; /* with repo_dir: seconds between syncs; WEB_SYNC_INTERVAL when 0 */
	/* What the background thread did ("detect: 2 new Suspects, ..."), one line a call, from
	 * that thread; NULL: not told. */
	void (*log)(const char *line, void *data);
	void *log_data;
};

struct web_server;

/* Opens the store connections, reads the token file and starts listening. */
int web_start(struct web_server **out, const struct web_options *opts, struct bl_error *err);
/* The port listened on. */
unsigned web_port(const struct web_server *srv);
/* What SIGTERM starts: stops accepting connections, closes the kept-alive ones that are idle,
 * and from now on answers a new request 503 (with Retry-After) and closes every connection
 * after its answer; the requests in flight go on. Returns at once; web_stop does it too. */
void web_begin_stop(struct web_server *srv);
/* Stops accepting, lets the requests in flight finish (at most the connection timeout),
 * stops the threads and closes the database. */
void web_stop(struct web_server *srv);

/*
 * `benchline export --html DIR` (export.c): the overview, the alerts, the Suspects, the
 * Regressions and each one's page, every Series' page and chart, the badge and the assets, as
 * files with relative links that work from the file system or any static host. DIR is made
 * when missing; the files written replace those of a former export, nothing else is touched.
 * progress (may be NULL) hears a line now and then.
 */
struct web_export {
	const char *dir;
	const char *repo_dir; /* its benchline.json's repo_url links commits; NULL: none */
	/* where the site will be served from (--base-url), NULL when not said: each page then
	 * names its address there (rel="canonical"); links stay relative either way */
	const char *base_url;
	const char *gnuplot; /* "gnuplot" when NULL */
	void (*progress)(const char *line, void *data);
	void *progress_data;
};
struct web_export_result {
	size_t pages, charts, files;
};
int web_export_html(struct web_export_result *out, struct store *st, const struct web_export *x,
		    struct bl_error *err);
/* The address of an exported file NAME ("series/X.html") under base_url, whose trailing
 * slashes do not count: "URL/series/X.html", and "URL/" for index.html. */
void web_export_url(struct strbuf *sb, const char *base_url, const char *name);

/* Internal to web/: shared by its files. */

/* The background thread (background.c): detection after pushes, and the sync of --repo's main
 * at start and every sync_interval_s (then detection). opts must outlive it (the server's own
 * copy). Started with its own store connection;
 * web_background_poke asks for one more detection (pokes during a run make one more run
 * after it); web_background_stop lets a run in progress finish, then joins the thread. */
struct web_background;
int web_background_start(struct web_background **out, const struct web_options *opts,
			 struct bl_error *err);
void web_background_poke(struct web_background *bg);
void web_background_stop(struct web_background *bg);
/* GET /api/status: {"state": "idle"|"queued"|"running", "detect": {"runs", "failures",
 * "new_suspects", "last_error"}, "sync": null | {"interval", "runs", "failures", "tip",
 * "commits", "last_error"}}. */
struct json_t *web_background_status(struct web_background *bg);

/* HTML-escapes s (&, <, >, ", ') for HTML and SVG alike: a C0 control character but tab, LF
 * and CR, a byte that is not UTF-8, and U+FFFE and U+FFFF become U+FFFD, so the text is
 * always characters XML 1.0 admits. */
void web_html_escape(struct strbuf *out, const char *s);
/* msg as an answer may show it, appended to out (§13: no answer names a server path, a
 * database file or URL): the database (its path as given, its URL with or without a
 * password), the server's repository and a gnuplot given by its path are named by what they
 * are ("the database", "the server's repository", "gnuplot"), never by where. */
void web_scrub(struct strbuf *out, const struct web_options *opts, const char *msg);
/* The length of the UTF-8 sequence at s (1 to 4) with its code point in *cp, or 0 for a byte
 * that starts none: a sequence cut short, an overlong form, a surrogate, past U+10FFFF. */
size_t web_utf8_char(const unsigned char *s, uint32_t *cp);
/* A line in the server's log (opts->log; none when opts or its log is NULL). */
void web_log(const struct web_options *opts, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Percent-decodes s[0..len) into out; '+' becomes a space when plus is set. Returns
 * BL_EINVALID on a malformed escape or a NUL byte. */
int web_percent_decode(struct strbuf *out, const char *s, size_t len, int plus);
/* 64-bit FNV-1a, for ETags and the chart cache. */
uint64_t web_hash(uint64_t h, const void *data, size_t len);
#define WEB_HASH_INIT 0xcbf29ce484222325ULL

/* An embedded asset (web/assets/, see web/embed-assets.sh). */
struct web_asset {
	const char *name, *type;
	const unsigned char *data;
	size_t len;
};
const struct web_asset *web_asset_find(const char *name);
/* The i-th asset, NULL past the last (an exported site copies them all). */
const struct web_asset *web_asset_at(size_t i);

/* What a chart's x axis is: the commit's place on main, or its date (?x=date). */
enum web_axis { WEB_AXIS_PLACE, WEB_AXIS_DATE };

/* The points of a Series as drawn. */
struct web_point {
	double place, value;
	double x;    /* where it is drawn: its place, or its date (the chart's axis) */
	double date; /* seconds since the epoch: its commit's time on main, else its own */
	int64_t seq, harness_version, pr, run_id;
	char commit[41], source_hash[41];
	char *content_hash; /* NULL when none */
	char *tags;	    /* "" when on the Series */
	char *subject;	    /* the commit's subject, NULL when not on main */
	int baseline;
	/* its spread, drawn as a whisker (STORE_SPREAD_NONE: unknown) */
	enum store_spread spread;
	double spread_lo, spread_hi;
	/* on the Series: where a line starts here, and why */
	enum line_break brk;
	/* the §6 band it was judged by (center +/- tolerance); NAN when not judged */
	double band_center, band_tolerance;
	/* 1 when the band made the record a Suspect, with its side, shift (NAN when unknown) and
	 * state */
	int suspect;
	enum suspect_side suspect_side;
	double suspect_shift;
	enum suspect_state suspect_state;
	/* 1 when the change-point search (§6.1) made it one (always slower), with its shift (the
	 * level after against the level before) and state */
	int change_point;
	double change_shift;
	enum suspect_state change_state;
};

/* A Regression as its chart marks it (§11): a triangle at the top edge over its pinned commit,
 * labelled with its id and delta. */
struct web_mark {
	int64_t id;
	double place; /* the pinned commit's place on main */
	double x;     /* where it is drawn, on the chart's axis */
	double ratio; /* b / a of the probe that pinned it; NAN when unknown */
	char commit[41];
};

struct web_chart_cache;
/* A chart drawn before from exactly the key text (the hash finds it, the text is compared
 * whole), as a new string; NULL when there is none. web_chart_cache_put keeps one, the oldest
 * going once the cache is full. */
char *web_chart_cache_get(struct web_chart_cache *c, uint64_t hash, const struct strbuf *key);
void web_chart_cache_put(struct web_chart_cache *c, uint64_t hash, const struct strbuf *key,
			 const char *svg);
struct web_chart_cache *web_chart_cache_new(size_t max_entries);
void web_chart_cache_free(struct web_chart_cache *c);

/* What one chart shows. */
struct web_chart {
	const struct web_point *points;
	size_t npoints;
	const struct web_mark *marks; /* those outside the points' x range are left out */
	size_t nmarks;
	const char *title, *unit;
	enum web_axis axis;
	const char *repo_url; /* points link to their commit there; NULL: no links */
};

/* Draws the chart as SVG with gnuplot, or takes it from the cache. *svg_out is malloc'd.
 * *etag_out hashes what is drawn (marks included). On a gnuplot failure or timeout, returns
 * BL_EIO with the reason in err, and appends to said (when not NULL) what gnuplot itself
 * printed when it failed, apart: it may name the server's files. */
int web_chart_svg(char **svg_out, uint64_t *etag_out, struct strbuf *said,
		  struct web_chart_cache *cache, const char *gnuplot, const struct web_chart *chart,
		  struct bl_error *err);

/* The values a chart's y axis may reach: gnuplot's tick arithmetic overflows near DBL_MAX, so
 * the frame stays inside +/- this and a value beyond it is drawn at the edge. */
#define WEB_CHART_YMAX 1e300
/* A chart's frame: the x range of its points (on the axis their x is on), the y range of its
 * Series' own (untagged) points, padded; always finite, x0 < x1, y0 < y1, |y| <=
 * WEB_CHART_YMAX. */
struct web_chart_frame {
	double x0, x1, y0, y1;
};
void web_chart_frame(struct web_chart_frame *f, const struct web_point *p, size_t n,
		     enum web_axis axis);

/* A time (seconds since the epoch) as "2026-11-02 04:00" in UTC. */
void web_format_date(struct strbuf *out, double t);

/* What a route answers. */
struct web_reply {
	int status;
	const char *type; /* Content-Type */
	struct strbuf body;
	uint64_t etag;
	int has_etag;
	const char *allow;	/* the Allow header of a 405 */
	unsigned retry_after_s; /* a Retry-After header (a 503 for a lock); 0: none */
};

/* Defaults of --request-deadline and --client-connections. */
#define WEB_REQUEST_DEADLINE   30
#define WEB_CLIENT_CONNECTIONS 32
#define WEB_CLIENT_CHARTS      2
/* How often the request deadline is checked. */
#define WEB_WATCH_PERIOD_MS 250
/* Seconds a write waits for another's lock by default (--lock-timeout). */
#define WEB_LOCK_TIMEOUT 30
/* Seconds a client is told to wait when the database stayed locked (503). */
#define WEB_RETRY_AFTER 5

/* Answers to GETs kept for one database generation (the server bumps it on every change),
 * found by their whole key: the hash only picks candidates. Safe to share between threads. */
#define WEB_REPLY_CACHE_SLOTS	 64
#define WEB_REPLY_CACHE_MAX_BODY ((size_t)4 << 20)
struct web_reply_cache;
struct web_reply_cache *web_reply_cache_new(size_t slots);
void web_reply_cache_free(struct web_reply_cache *c);
/* 1 and r filled (body appended) when the cache holds key's answer for gen, else 0. hash is
 * web_hash of the key. */
int web_reply_cache_get(struct web_reply_cache *c, struct web_reply *r, uint64_t hash,
			const char *key, size_t key_len, uint64_t gen);
/* Keeps r (a 200 of at most WEB_REPLY_CACHE_MAX_BODY bytes) for key and gen, in place of the
 * oldest entry. */
void web_reply_cache_put(struct web_reply_cache *c, const struct web_reply *r, uint64_t hash,
			 const char *key, size_t key_len, uint64_t gen);

/* r answers o (its reference taken) as JSON with status. */
void web_reply_json(struct web_reply *r, int status, struct json_t *o);
/* Makes r the JSON error {"error": msg} with status (no ETag: errors are not cached). */
void web_reply_json_error(struct web_reply *r, int status, const char *msg);
/* r answers status with msg as plain text (no ETag). */
void web_reply_text(struct web_reply *r, int status, const char *msg);

/*
 * A JSON array answered element by element as the CLI prints its lists (`series --json`,
 * `suspects --json`...): web_json_list opens it, calls each (which walks the store and hands
 * every element to web_json_list_add), closes it and makes r its 200. A row that fails sets
 * failed (err says why) and stops the walk; each's own error code or BL_EDB is returned then.
 */
struct web_json_list {
	struct strbuf *out;
	size_t count;
	struct store *st;
	const void *filter; /* what each lists, its own (NULL: everything) */
	void *data;	    /* each's own state */
	struct bl_error *err;
	int failed;
};
typedef int web_json_each_fn(struct web_json_list *l);
int web_json_list(struct web_reply *r, struct store *st, const void *filter, web_json_each_fn *each,
		  struct bl_error *err);
/* Appends o (its reference taken) to the list. */
void web_json_list_add(struct web_json_list *l, struct json_t *o);

/* What the pages need from the server. */
struct web_ctx {
	const char *base; /* prefix of links ("" for relative ones) */
	const char *gnuplot;
	struct web_chart_cache *cache;
	const char *repo_dir;		/* NULL: the gate routes answer 404 */
	const struct web_options *opts; /* the server's: its log, and what answers never name */
	/* 1: the pages of `export --html`, files linked by relative paths (base "." or ".."),
	 * without what needs a server (the JSON API, the gate, zoom and filters by query) */
	int exported;
	const char *canonical; /* an exported page's address under --base-url, NULL: none */
};

/* A page's query parameters, decoded. */
struct web_query {
	const char *q;	       /* the overview's search, NULL when none */
	const char *from, *to; /* zoom range of a Series page, NULL when none */
	const char *x;	       /* a Series page's x axis: "date", else by place; NULL: place */
	const char *side;      /* the Suspects page's filter: "slower", else every side */
	const char *id;	       /* a Series id given as ?id= (a part that is "." or "..") */
};

/*
 * The route table (routes.c): every route the server answers, its method, its path (exact, a
 * "{id}" in it standing for a positive decimal id, or with WEB_ROUTE_PREFIX its start), the
 * pool of store connections it borrows from, whether its answer is cached, and its handler.
 * server.c looks a request up here and dispatches; nothing else lists routes.
 */
enum web_pool {
	WEB_POOL_NONE,	/* needs no database */
	WEB_POOL_READ,	/* GETs but Series pages and charts; --threads connections */
	WEB_POOL_CHART, /* Series pages and charts (gnuplot), a few at a time per client;
			   --threads connections */
	WEB_POOL_WRITE, /* the one writer, the server's write lock: the handler takes it once its
			   body is read and checked (web_pool_take), so a push waiting for the lock
			   holds no connection a read needs */
};
#define WEB_POOLS 4

enum web_route_flags {
	WEB_ROUTE_PREFIX = 1, /* path is a prefix: the request's rest is what follows it */
	WEB_ROUTE_CACHED = 2, /* the answer is kept for the database's generation (and the
				 page's parameters) */
	WEB_ROUTE_REPO = 4,   /* only with --repo (the gate): 404 without one */
	/* its error codes say whose fault they are (400, 403, 404, 409...); without it any error
	 * is the server's (500, or 503 for a lock held too long or a database out of reach) */
	WEB_ROUTE_CODES = 8,
};

/* What a token may do (token file lines `TOKEN [MACHINE-GLOB [ROLES]]`, §11). */
enum web_role {
	WEB_ROLE_PUSH = 1,    /* POST /api/records */
	WEB_ROLE_CONFIRM = 2, /* POST /api/alerts/{id}/outcome and /ignore */
};

struct web_token {
	char *token;
	char *glob; /* NULL: any machine */
	unsigned roles;
};

struct web_server;
struct MHD_Connection;

/* A request as a handler sees it. */
struct web_request {
	const struct web_ctx *ctx;
	struct web_server *srv;	     /* NULL outside the server */
	struct MHD_Connection *conn; /* NULL outside the server: no API parameters */
	const char *path;	     /* the URL's path */
	const char *rest;	     /* after a prefix route's prefix; "" for other routes */
	int64_t id;		     /* the route's {id}, 0 when it has none */
	struct web_query q;
	struct store *st; /* borrowed from the route's pool; NULL for WEB_POOL_NONE and _WRITE */
	/* a POST's */
	const struct strbuf *body;
	const struct web_token *token;
};

/* A handler: 0 with r filled (a client's mistake, a 400 or 404, is an answer too), or an
 * error code with err set, which the server turns into a status (one place: web_reply_error). */
typedef int web_route_fn(struct web_reply *r, const struct web_request *req, struct bl_error *err);

struct web_route {
	const char *method; /* "GET" (HEAD too) or "POST" */
	const char *path;
	enum web_pool pool;
	unsigned flags;	  /* enum web_route_flags */
	unsigned role;	  /* a POST's: what its token must be allowed (enum web_role) */
	const char *verb; /* a POST's: what the token does, for the 403 ("push records") */
	web_route_fn *fn;
};

/* The route for path and method (HEAD as GET), *rest and *id set from the path; NULL when
 * none, with *allow the methods the path takes ("GET, HEAD", "POST", "GET, HEAD, POST"), or
 * NULL when no route has the path (a 404). have_repo: whether the server serves --repo. */
const struct web_route *web_route_find(const char **rest, int64_t *id, const char **allow,
				       const char *path, const char *method, int have_repo);

/* 1 when path is the JSON API's (under /api/): its answers, errors too, are JSON. */
int web_is_api(const char *path);
/* r answers status with msg (no ETag): {"error": msg} under /api/ (api set), else an HTML
 * error page. */
void web_reply_message(struct web_reply *r, const struct web_ctx *ctx, int api, int status,
		       const char *msg);
/* r answers err: JSON under /api/ (api set), else an HTML page; a 503 says when to try again.
 * The one place an error becomes a status. The answer names no server path, database file or
 * URL (§13): a client's error is told without them (web_scrub); the server's own failure, or
 * a database it cannot reach, is told in general words, and in full in the server's log. */
void web_reply_error(struct web_reply *r, const struct web_ctx *ctx, int api,
		     const struct bl_error *err);
/* r answers a route's own failure: a 500, but a lock held too long or a database that cannot
 * be reached is still a 503. */
void web_reply_failure(struct web_reply *r, const struct web_ctx *ctx, int api,
		       struct bl_error *err);

/* The server's side a handler may use (server.c). A connection from a pool: web_pool_take
 * waits for one (the writer at most --lock-timeout, then BL_EBUSY), web_pool_give gives it
 * back (none taken: nothing; wrote: cached answers are stale). web_server_poke asks the
 * background thread for a detection. */
struct web_pooled {
	void *pool;
	size_t slot;
	struct store *st; /* NULL: none taken */
};
int web_pool_take(struct web_pooled *out, uint64_t *gen_out, struct web_server *srv,
		  enum web_pool kind, struct bl_error *err);
void web_pool_give(struct web_server *srv, struct web_pooled *c, int wrote);
void web_server_poke(struct web_server *srv);

/* Tokens (tokens.c): the token file read into *out (blank lines and # comments skipped), and
 * the token an "Authorization: Bearer TOKEN" header presents (NULL: none of them). */
int web_tokens_load(struct web_token **out, size_t *nr, const char *path, struct bl_error *err);
void web_tokens_free(struct web_token *t, size_t nr);
const struct web_token *web_token_find(const struct web_token *t, size_t nr, const char *header);

/* The API's query parameters (params.c). Each returns 0, or BL_EINVALID with the 400 already
 * in r. web_check_params: every parameter is one of known (NULL-terminated). The others read
 * one, *out NULL (or kept, for numbers) when absent: web_param_string any UTF-8 text of at
 * most 4096 bytes, web_param_machine a machine name, web_param_hex_prefix 4 to 40 hex digits
 * (kept in lowercase), web_param_int a decimal in [min, max], web_param_bool 1 or 0 (a bare
 * "?all" is 1). web_page_arg: a page's parameter, decoded, NULL when absent or malformed. */
int web_check_params(struct web_reply *r, const struct web_request *req, const char *const *known);
int web_param_string(const char **out, struct strbuf *buf, struct web_reply *r,
		     const struct web_request *req, const char *key);
int web_param_machine(const char **out, struct strbuf *buf, struct web_reply *r,
		      const struct web_request *req, const char *key);
int web_param_hex_prefix(const char **out, struct strbuf *buf, struct web_reply *r,
			 const struct web_request *req, const char *key);
int web_param_int(int64_t *out, struct web_reply *r, const struct web_request *req, const char *key,
		  int64_t min, int64_t max);
int web_param_bool(int *out, struct web_reply *r, const struct web_request *req, const char *key);
int web_param_bad(struct web_reply *r, const char *key, const char *value, const char *want);
const char *web_page_arg(struct strbuf *out, struct MHD_Connection *conn, const char *key);

/* What every page shares (html.c). web_page_start opens a page with its header and title,
 * web_page_end closes it, web_html_reply makes r its answer. */
void web_page_start(struct strbuf *sb, const struct web_ctx *ctx, const char *title);
void web_page_end(struct strbuf *sb);
void web_html_reply(struct web_reply *r, int status);
/* An HTML error page. */
void web_page_error(struct web_reply *r, const struct web_ctx *ctx, int status, const char *msg);
/* A link to one of the server's own pages: ctx->base, then path ("/suspects", "/alerts#alert-3"),
 * escaped; in an exported site the file that page is (web_export_path: "./suspects.html"). */
void web_add_href(struct strbuf *sb, const struct web_ctx *ctx, const char *path);
/* The same for a Regression's page ("/regressions/ID") and an alert on the alerts page
 * ("/alerts#alert-ID"). */
void web_add_regression_href(struct strbuf *sb, const struct web_ctx *ctx, int64_t id);
void web_add_alert_href(struct strbuf *sb, const struct web_ctx *ctx, int64_t id);
/* The file of an exported site a server path is (no query): "/" index.html, "/assets/NAME"
 * itself, any other "/PATH" PATH.html; a fragment kept after it. */
void web_export_path(struct strbuf *sb, const char *path);
/* The name of a Series' files in an exported site (series/NAME.html, NAME.svg): its id with
 * every byte but [A-Za-z0-9_-] as '_', cut to 80 bytes, then '-' and 8 hex digits of the id's
 * hash, so that ids alike once made plain still differ. */
void web_series_file(struct strbuf *sb, const char *id);
/* A config, or a muted "–" for the empty one. */
void web_add_config(struct strbuf *sb, const char *config);
/* What of a Series a link opens. */
enum web_series_view { WEB_SERIES_PAGE, WEB_SERIES_CHART, WEB_SERIES_RECORDS };
/* A link to a Series (its page, chart or records), with query parameters (already encoded,
 * "x=date"; NULL: none) and a fragment (NULL: none). The id goes in the path, or, when a part
 * of it is a dot segment, in the query (?id=ID, its '%' escaped once more), which the server
 * takes as the same route. */
void web_add_series_url(struct strbuf *sb, const struct web_ctx *ctx, const char *id,
			enum web_series_view view, const char *query, const char *fragment);
/* A Series as its page's title names it, plain text: "machine / benchmark / config / metric",
 * "-" for the empty config. */
void web_series_title(struct strbuf *sb, const char *machine, const char *benchmark,
		      const char *config, const char *metric);
/* A Series' benchmark, config and metric as three table cells, the metric linked to its page
 * (id its Series id; fragment NULL or where on the page). */
void web_add_series_cells(struct strbuf *sb, const struct web_ctx *ctx, const char *id,
			  const char *benchmark, const char *config, const char *metric,
			  const char *fragment);
/* A value in a scale (one per Series, as its chart's: "983 MB/s", "66.7 µs"), escaped; "–"
 * when unknown. */
void web_add_quantity(struct strbuf *sb, double v, const struct unit_scale *sc);
/* A commit: 12 digits shown, all 40 and the subject on hover, linked to repo_url's page of it
 * when there is one; web_add_commit_cell the same as a table cell. */
void web_add_commit(struct strbuf *sb, const char *repo_url, const char *commit,
		    const char *subject);
void web_add_commit_cell(struct strbuf *sb, const char *repo_url, const char *commit);
/* A pull request: "#42", linked to repo_url's page of it when there is one. */
void web_add_pr(struct strbuf *sb, const char *repo_url, int64_t pr);
/* A ratio as its change (strbuf_add_change: "+15.2%"), "–" when unknown; an interval of two
 * ("[+14.0%, +16.4%]"). */
void web_add_delta(struct strbuf *sb, double ratio);
void web_add_delta_interval(struct strbuf *sb, double lo, double hi);
/* Where an alert was filed: a link when it is an http(s) URL, else text. */
void web_add_filed(struct strbuf *sb, const char *url);
/* A bisection's probe log (the `probes` of bisect --json, as stored) as a table. */
void web_add_probe_log(struct strbuf *sb, const char *repo_url, const char *probes);
/* benchline.json's repo_url of the served repository (malloc'd), NULL without one. */
char *web_repo_url(const struct web_ctx *ctx);

/* Series (api_series.c): the open Suspects per Series once detect has run (*d NULL before:
 * nothing is known), and a Series found by its decoded names (c->found 0 when there is none;
 * released with web_series_copy_release). */
struct store_detect;
int web_open_detect(struct store_detect **d, struct store *st, struct bl_error *err);
struct web_series_copy {
	const char *config, *metric;
	int found;
	enum metric_kind kind;
	char *unit, *id;
	int better_higher;
	int64_t records;
	double last_value; /* NAN when absent */
	size_t nlines;
};
int web_find_series(struct web_series_copy *c, struct store *st, const char *const names[4],
		    struct bl_error *err);
void web_series_copy_release(struct web_series_copy *c);
/* A Series id (four percent-encoded parts joined by '/') split into its decoded parts; *rest
 * is what follows the fourth ("" or "/..."). 0 or BL_EINVALID. */
int web_split_series_id(struct strbuf parts[4], const char **rest, const char *path);

/* The gate (§7) for ?head=REV&base=REF[&ratchet=REF] (api_gate.c): the request's query read
 * and checked (0, or non-zero with the 400 in r), and the gate run: 400 in *status for what
 * the request got wrong (an unknown revision), 500 for what the server did. */
struct web_gate_query {
	const char *head, *base, *ratchet;
	int undecided_fail; /* ?undecided=fail: UNDECIDED rows fail, as gate --undecided fail */
	struct strbuf bufs[4];
};
struct gate_report;
int web_gate_query_read(struct web_gate_query *q, struct web_reply *r,
			const struct web_request *req, int api);
void web_gate_query_release(struct web_gate_query *q);
int web_gate_run(struct gate_report *report, int *status, const struct web_ctx *ctx,
		 struct store *st, const struct web_gate_query *q, struct bl_error *err);

/* The handlers of the route table, each in the file of its page or resource. */
web_route_fn web_route_overview;     /* GET / */
web_route_fn web_route_series;	     /* GET /series/{id}, its chart.svg, /series?id= */
web_route_fn web_route_suspects;     /* GET /suspects */
web_route_fn web_route_alerts;	     /* GET /alerts */
web_route_fn web_route_regressions;  /* GET /regressions */
web_route_fn web_route_regression;   /* GET /regressions/{id} */
web_route_fn web_route_badge;	     /* GET /badge.svg */
web_route_fn web_route_gate;	     /* GET /gate */
web_route_fn web_route_asset;	     /* GET /assets/NAME */
web_route_fn web_api_series;	     /* GET /api/series */
web_route_fn web_api_series_records; /* GET /api/series/{id}/records, ?id= */
web_route_fn web_api_suspects;	     /* GET /api/suspects */
web_route_fn web_api_regressions;    /* GET /api/regressions */
web_route_fn web_api_alerts;	     /* GET /api/alerts */
web_route_fn web_api_alert_outcome;  /* POST /api/alerts/{id}/outcome */
web_route_fn web_api_alert_ignore;   /* POST /api/alerts/{id}/ignore */
web_route_fn web_api_records;	     /* GET /api/records */
web_route_fn web_api_push;	     /* POST /api/records */
web_route_fn web_api_gate;	     /* GET /api/gate */
web_route_fn web_api_status;	     /* GET /api/status */

/* The request deadline's watch (watch.c): its thread, started and stopped with the server; a
 * connection is opened when accepted (its descriptor), marked receiving while its request
 * comes in (the deadline runs) or not (its answer is the server's time), and closed. */
struct web_watch;
struct web_watched;
int web_watch_start(struct web_watch **out, unsigned deadline_s, struct bl_error *err);
void web_watch_stop(struct web_watch *w);
struct web_watched *web_watch_open(struct web_watch *w, int fd);
void web_watch_mark(struct web_watch *w, struct web_watched *c, int receiving);
/* c's request line has arrived: from now on it is not idle (until its answer is sent). */
void web_watch_request(struct web_watch *w, struct web_watched *c);
/* Shuts down every kept-alive connection with no request in it (SIGTERM's web_begin_stop). */
void web_watch_close_idle(struct web_watch *w);
void web_watch_close(struct web_watch *w, struct web_watched *c);

/* The background thread's state for GET /api/status (server.c). */
struct json_t *web_server_status(struct web_server *srv);

#endif

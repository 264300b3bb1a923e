/*
 * web: `benchline serve` (§11). An HTTP server on libmicrohttpd with a thread pool (server.c:
 * routes, tokens, the store pool): the overview, Series pages with gnuplot charts (chart.c),
 * the JSON API and POST /api/records (pages.c), and the background thread that detects after
 * pushes and syncs main (background.c), with small helpers (util.c). Each connection has its
 * own thread; a request borrows a store connection from the pool of its kind (reads, charts,
 * the one writer). Nothing here prints
 * or exits; cli/cmd_serve.c starts and stops the server.
 */
#ifndef BENCHLINE_WEB_H
#define BENCHLINE_WEB_H

#include <stddef.h>
#include <stdint.h>

#include "common/common.h"
#include "store/store.h"

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
 * BL_EIO with the reason in err. */
int web_chart_svg(char **svg_out, uint64_t *etag_out, struct web_chart_cache *cache,
		  const char *gnuplot, const struct web_chart *chart, struct bl_error *err);

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

/* Makes r the JSON error {"error": msg} with status (no ETag: errors are not cached). */
/* r answers o (its reference taken) as JSON with status. */
void web_reply_json(struct web_reply *r, int status, struct json_t *o);
void web_reply_json_error(struct web_reply *r, int status, const char *msg);

/* What the pages need from the server. */
struct web_ctx {
	const char *base; /* prefix of links ("" for relative ones) */
	const char *gnuplot;
	struct web_chart_cache *cache;
	const char *repo_dir;		/* NULL: the gate routes answer 404 */
	const struct web_options *opts; /* the server's: its log, and what answers never name */
};

/* A request: the path after its prefix, already split, and the decoded query parameters. */
struct web_query {
	const char *q;	       /* the overview's search, NULL when none */
	const char *from, *to; /* zoom range of a Series page, NULL when none */
	const char *x;	       /* a Series page's x axis: "date", else by place; NULL: place */
	const char *side;      /* the Suspects page's filter: "slower", else every side */
};

/* The JSON documents of `benchline series --json` and `records --json` (§14): the same
 * objects, printed the same way. open_suspects (a reference taken) may be NULL for null. */
struct json_t;

/* Routes (web/pages.c). names[4] are a Series id's decoded parts. */
int web_page_overview(struct web_reply *r, const struct web_ctx *ctx, struct store *st,
		      const struct web_query *q, struct bl_error *err);
int web_page_series(struct web_reply *r, const struct web_ctx *ctx, struct store *st,
		    const char *const names[4], const struct web_query *q, int chart_only,
		    struct bl_error *err);
int web_api_series(struct web_reply *r, struct store *st, struct bl_error *err);
int web_api_series_records(struct web_reply *r, struct store *st, const char *const names[4],
			   struct bl_error *err);
/* Suspects (§6): `benchline suspects --json` and its HTML view. */
int web_api_suspects(struct web_reply *r, struct store *st, struct bl_error *err);
int web_page_suspects(struct web_reply *r, const struct web_ctx *ctx, struct store *st,
		      const struct web_query *q, struct bl_error *err);
/* Regressions (§9.3): `benchline regressions --json` (every filter field NULL, 0), or the
 * Regressions the filter takes, and the HTML view. */
int web_api_regressions(struct web_reply *r, struct store *st,
			const struct store_regression_filter *f, struct bl_error *err);
int web_page_regressions(struct web_reply *r, const struct web_ctx *ctx, struct store *st,
			 struct bl_error *err);
/* Alerts (§9.1): `benchline alerts --json` with the filter's machine and state. */
int web_api_alerts(struct web_reply *r, struct store *st, const struct store_alert_filter *f,
		   struct bl_error *err);
/* A page of runs by id (GET /api/records): {"records": [records as `records --json` prints
 * them], "next": the last id of the page when another page follows, else null}. q->limit
 * rows at the most. */
int web_api_records(struct web_reply *r, struct store *st, const struct store_record_page *q,
		    struct bl_error *err);
/* The gate (§7) for ?head=REV&base=REF[&ratchet=REF]: the JSON of `gate --json`, and a page
 * with the table and links to each Series chart. A bad revision is a 400. */
struct web_gate_query {
	const char *head, *base, *ratchet;
	int undecided_fail; /* ?undecided=fail: UNDECIDED rows fail, as gate --undecided fail */
};
int web_api_gate(struct web_reply *r, const struct web_ctx *ctx, struct store *st,
		 const struct web_gate_query *q, struct bl_error *err);
int web_page_gate(struct web_reply *r, const struct web_ctx *ctx, struct store *st,
		  const struct web_gate_query *q, struct bl_error *err);
/* An HTML error page. */
void web_page_error(struct web_reply *r, const struct web_ctx *ctx, int status, const char *msg);

#endif

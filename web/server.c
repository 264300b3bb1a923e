/*
 * The HTTP side of `benchline serve`: libmicrohttpd with a thread pool, routing, bearer
 * tokens, request bodies and the pool of store connections (one per request thread: SQLite
 * connections are never shared by two threads at once).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "detect/confirm/confirm.h"
#include "ingest/ingest.h"
#include "ingest/repo/repo.h"
#include "web/web.h"
#include "ingest/adapters/adapters.h"

/* What a token may do (token file lines `TOKEN [MACHINE-GLOB [ROLES]]`, §11). */
enum token_role {
	TOKEN_PUSH = 1,	   /* POST /api/records */
	TOKEN_CONFIRM = 2, /* POST /api/alerts/{id}/outcome */
};

struct token {
	char *token;
	char *glob; /* NULL: any machine */
	unsigned roles;
};

/* The store connections, one pool for each kind of work, so that one kind never waits for
 * another's connections: reads are never held up behind pushes waiting for the write lock
 * (WAL readers need no lock), nor behind charts, which hold theirs while gnuplot draws. */
enum pool_kind {
	POOL_READ,  /* GETs but Series pages and charts; --threads connections */
	POOL_CHART, /* Series pages and charts (gnuplot); --threads connections */
	POOL_WRITE, /* pushes and confirm outcomes: one, the server's write lock */
	POOL__COUNT
};

struct pool {
	struct store **stores;
	size_t *idle;	       /* idle[0..nidle): indexes into stores */
	int64_t *data_version; /* per store: the data_version last seen */
	size_t n, nidle;
	pthread_cond_t cond; /* CLOCK_MONOTONIC: a connection was given back */
};

/* A connection taken from a pool. */
struct pooled {
	struct pool *pool;
	size_t slot;
	struct store *st; /* NULL: none taken */
};

/* The charts one client address is drawing (--client-charts at most). */
struct client_charts {
	char addr[INET6_ADDRSTRLEN];
	unsigned drawing;
};

struct web_server {
	struct MHD_Daemon *daemon;
	struct web_options opts;
	struct web_ctx ctx;
	char *base;
	/* Under lock: the store pools, the generation and the charts each client is drawing. */
	pthread_mutex_t lock;
	struct pool pools[POOL__COUNT];
	struct client_charts *charts;
	size_t ncharts, charts_alloc;
	pthread_cond_t charts_cond; /* a client's chart is done */
	/* Bumped whenever the database may have changed: a push, or a connection that sees
	 * another one's commit (SQLite's data_version). Cached replies are for one generation. */
	uint64_t gen;
	struct web_reply_cache *replies;
	struct token *tokens;
	size_t ntokens;
	int have_token_file;
	struct web_background *bg; /* detection after pushes, the sync of --repo */
	/* The request deadline's watch: every open connection, and the thread that drops those
	 * whose request is not in after opts.request_deadline_s. */
	pthread_mutex_t watch_lock;
	pthread_cond_t watch_cond;
	struct watched *watched; /* a list */
	pthread_t watcher;
	int watching, stop_watching;
};

/* An open connection as the deadline's watch sees it. */
struct watched {
	struct watched *prev, *next;
	int fd;
	int receiving;	       /* a request is coming in (or the next one may) */
	int dropped;	       /* shut down by the watch */
	struct timespec since; /* CLOCK_MONOTONIC: accepted, or the last answer sent */
};

static struct timespec now_monotonic(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t;
}

/* Connections come and go (libmicrohttpd's connection notification): each is watched from its
 * start to its close. */
static void connection_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
			      enum MHD_ConnectionNotificationCode code)
{
	struct web_server *srv = cls;
	struct watched *w = *socket_context;
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *info =
		    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
		w = xcalloc(1, sizeof(*w));
		w->fd = info ? info->connect_fd : -1;
		w->receiving = 1;
		w->since = now_monotonic();
		pthread_mutex_lock(&srv->watch_lock);
		w->next = srv->watched;
		if (w->next)
			w->next->prev = w;
		srv->watched = w;
		pthread_mutex_unlock(&srv->watch_lock);
		*socket_context = w;
		return;
	}
	if (!w)
		return;
	/* Closed: the socket is still open until this returns, so the watch never shuts down
	 * another connection's descriptor. */
	pthread_mutex_lock(&srv->watch_lock);
	if (w->prev)
		w->prev->next = w->next;
	else
		srv->watched = w->next;
	if (w->next)
		w->next->prev = w->prev;
	pthread_mutex_unlock(&srv->watch_lock);
	free(w);
	*socket_context = NULL;
}

/* The request of conn is in (headers and body): the deadline no longer runs, or, with
 * receiving set, the connection waits for its next request and the deadline starts again. */
static void watch_mark(struct web_server *srv, struct MHD_Connection *conn, int receiving)
{
	const union MHD_ConnectionInfo *info =
	    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct watched *w = info ? info->socket_context : NULL;
	if (!w)
		return;
	pthread_mutex_lock(&srv->watch_lock);
	w->receiving = receiving;
	if (receiving)
		w->since = now_monotonic();
	pthread_mutex_unlock(&srv->watch_lock);
}

/* The watch: a client that takes longer than the deadline to send its request (a header byte
 * every few seconds keeps libmicrohttpd's idle timeout from ever firing) has its connection
 * shut down, which ends it in its own thread. */
static void *watch_run(void *data)
{
	struct web_server *srv = data;
	int64_t deadline_ms = (int64_t)srv->opts.request_deadline_s * 1000;
	pthread_mutex_lock(&srv->watch_lock);
	while (!srv->stop_watching) {
		struct timespec now = now_monotonic(), wake;
		for (struct watched *w = srv->watched; w; w = w->next) {
			int64_t waited_ms = (int64_t)(now.tv_sec - w->since.tv_sec) * 1000 +
					    (now.tv_nsec - w->since.tv_nsec) / 1000000;
			if (!w->receiving || w->dropped || w->fd < 0 || waited_ms < deadline_ms)
				continue;
			shutdown(w->fd, SHUT_RDWR);
			w->dropped = 1;
		}
		clock_gettime(CLOCK_REALTIME, &wake);
		wake.tv_nsec += WEB_WATCH_PERIOD_MS * 1000000L;
		if (wake.tv_nsec >= 1000000000L) {
			wake.tv_sec++;
			wake.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&srv->watch_cond, &srv->watch_lock, &wake);
	}
	pthread_mutex_unlock(&srv->watch_lock);
	return NULL;
}

/* What a request is, decided on its first call. */
enum request_kind {
	REQUEST_GET,	 /* a GET or HEAD route (a body is read and ignored) */
	REQUEST_PUSH,	 /* POST /api/records */
	REQUEST_OUTCOME, /* POST /api/alerts/{id}/outcome */
	REQUEST_IGNORE,	 /* POST /api/alerts/{id}/ignore */
};

/* What one connection carries between calls of the access handler. */
struct request {
	int started;	     /* the access handler has seen it */
	int too_many_params; /* the query had more than WEB_MAX_PARAMS parameters */
	enum request_kind kind;
	int64_t alert_id; /* REQUEST_OUTCOME, REQUEST_IGNORE */
	struct strbuf body;
	int too_big;
	const struct token *token;
};

static int pool_open(struct pool *p, size_t n, const struct web_options *opts, struct bl_error *err)
{
	pthread_condattr_t attr;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&p->cond, &attr);
	pthread_condattr_destroy(&attr);
	p->stores = xcalloc(n, sizeof(*p->stores));
	p->idle = xcalloc(n, sizeof(*p->idle));
	p->data_version = xcalloc(n, sizeof(*p->data_version));
	for (; p->n < n; p->n++) {
		int ret = store_open(&p->stores[p->n], opts->db_path, 0, err);
		if (ret)
			return ret;
		store_set_busy_timeout(p->stores[p->n], opts->lock_timeout_s * 1000);
		p->data_version[p->n] = -1;
		p->idle[p->nidle++] = p->n;
	}
	return 0;
}

static void pool_close(struct pool *p)
{
	for (size_t i = 0; i < p->n; i++)
		store_free(p->stores[i]);
	free(p->stores);
	free(p->idle);
	free(p->data_version);
	if (p->stores)
		pthread_cond_destroy(&p->cond);
}

/* Takes an idle connection of the kind's pool into *out; *gen_out (may be NULL) receives the
 * database generation, bumped first when this connection sees a commit it has not seen. The
 * write pool is waited for at most --lock-timeout (BL_EBUSY after it, the 503 of a lock held
 * too long); the others as long as it takes (their work is bounded). */
static int pool_take(struct pooled *out, uint64_t *gen_out, struct web_server *srv,
		     enum pool_kind kind, struct bl_error *err)
{
	struct pool *p = &srv->pools[kind];
	struct timespec until = now_monotonic();
	int64_t dv = 0;
	int have_dv;
	size_t i;

	until.tv_sec += srv->opts.lock_timeout_s;
	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&srv->lock);
	while (!p->nidle) {
		if (kind != POOL_WRITE) {
			pthread_cond_wait(&p->cond, &srv->lock);
		} else if (pthread_cond_timedwait(&p->cond, &srv->lock, &until) == ETIMEDOUT &&
			   !p->nidle) {
			pthread_mutex_unlock(&srv->lock);
			return bl_error_set(err, BL_EBUSY,
					    "the database is busy: other writes held it for %u s",
					    srv->opts.lock_timeout_s);
		}
	}
	i = p->idle[--p->nidle];
	pthread_mutex_unlock(&srv->lock);
	/* Only this thread uses connection i until it is given back. */
	have_dv = !store_web_data_version(&dv, p->stores[i], NULL);
	pthread_mutex_lock(&srv->lock);
	if (!have_dv || dv != p->data_version[i]) {
		srv->gen++;
		p->data_version[i] = dv;
	}
	if (gen_out)
		*gen_out = srv->gen;
	pthread_mutex_unlock(&srv->lock);
	out->pool = p;
	out->slot = i;
	out->st = p->stores[i];
	return 0;
}

/* Gives a taken connection back (none taken: nothing); wrote: cached replies are stale. */
static void pool_give(struct web_server *srv, struct pooled *c, int wrote)
{
	if (!c->st)
		return;
	pthread_mutex_lock(&srv->lock);
	if (wrote)
		srv->gen++;
	c->pool->idle[c->pool->nidle++] = c->slot;
	pthread_cond_signal(&c->pool->cond);
	pthread_mutex_unlock(&srv->lock);
	c->st = NULL;
}

/* The client's address as text, "" when unknown. */
static void client_address(char out[INET6_ADDRSTRLEN], struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *info =
	    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = info ? info->client_addr : NULL;
	out[0] = '\0';
	if (sa && sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, out,
			  INET6_ADDRSTRLEN);
	else if (sa && sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, out,
			  INET6_ADDRSTRLEN);
}

static struct client_charts *client_charts_find(struct web_server *srv, const char *addr)
{
	for (size_t i = 0; i < srv->ncharts; i++)
		if (!strcmp(srv->charts[i].addr, addr))
			return &srv->charts[i];
	return NULL;
}

/* Waits until the client draws fewer than --client-charts charts, then counts one more: a
 * client asking for many charts at once has them drawn a few at a time, and leaves the rest
 * of the chart pool to others. */
static void chart_begin(struct web_server *srv, const char *addr)
{
	struct client_charts *c;
	pthread_mutex_lock(&srv->lock);
	while ((c = client_charts_find(srv, addr)) && c->drawing >= srv->opts.client_charts)
		pthread_cond_wait(&srv->charts_cond, &srv->lock);
	if (!c) {
		ALLOC_GROW(srv->charts, srv->ncharts, srv->charts_alloc);
		c = &srv->charts[srv->ncharts++];
		memset(c, 0, sizeof(*c));
		memcpy(c->addr, addr, strlen(addr) + 1);
	}
	c->drawing++;
	pthread_mutex_unlock(&srv->lock);
}

static void chart_end(struct web_server *srv, const char *addr)
{
	struct client_charts *c;
	pthread_mutex_lock(&srv->lock);
	c = client_charts_find(srv, addr);
	if (c && !--c->drawing)
		*c = srv->charts[--srv->ncharts];
	pthread_cond_broadcast(&srv->charts_cond);
	pthread_mutex_unlock(&srv->lock);
}

/* A reply cache key: the parts NUL-terminated, a missing one as a lone 0xff byte (never in
 * a decoded UTF-8 value). */
static void cache_key_add(struct strbuf *key, const char *s)
{
	if (s)
		strbuf_add(key, s, strlen(s) + 1);
	else
		strbuf_addch(key, '\xff');
}

/* ROLES of a token line: a comma list of push and confirm, each at most once. */
static int parse_roles(unsigned *out, const char *list)
{
	*out = 0;
	for (const char *p = list;;) {
		size_t n = strcspn(p, ",");
		unsigned role;
		if (n == 4 && !strncmp(p, "push", 4))
			role = TOKEN_PUSH;
		else if (n == 7 && !strncmp(p, "confirm", 7))
			role = TOKEN_CONFIRM;
		else
			return BL_EINVALID;
		if (*out & role)
			return BL_EINVALID;
		*out |= role;
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

/* Tokens: one a line, "TOKEN [MACHINE-GLOB [ROLES]]" (ROLES a comma list of push and confirm,
 * both when not given); blank lines and # comments skipped. */
static int load_tokens(struct web_server *srv, const char *path, struct bl_error *err)
{
	struct strbuf text = STRBUF_INIT;
	size_t alloc = 0, lineno = 0;
	int ret = read_file_capped(&text, path, WEB_MAX_TOKEN_FILE, err);
	if (ret) {
		bl_error_prefix(err, "token file");
		goto done;
	}
	for (char *line = text.buf; *line;) {
		char *end = strchr(line, '\n'), *tok, *glob, *roles, *extra, *save = NULL;
		unsigned mask = TOKEN_PUSH | TOKEN_CONFIRM;
		lineno++;
		if (end)
			*end = '\0';
		tok = strtok_r(line, " \t\r", &save);
		glob = tok ? strtok_r(NULL, " \t\r", &save) : NULL;
		roles = glob ? strtok_r(NULL, " \t\r", &save) : NULL;
		extra = roles ? strtok_r(NULL, " \t\r", &save) : NULL;
		if (tok && tok[0] != '#') {
			if (extra) {
				ret = bl_error_set(err, BL_EINVALID,
						   "%s:%zu: a line is TOKEN [MACHINE-GLOB [ROLES]]",
						   path, lineno);
				goto done;
			}
			if (roles && parse_roles(&mask, roles)) {
				ret = bl_error_set(err, BL_EINVALID,
						   "%s:%zu: roles are a comma list of push and "
						   "confirm, not '%s'",
						   path, lineno, roles);
				goto done;
			}
			ALLOC_GROW(srv->tokens, srv->ntokens, alloc);
			srv->tokens[srv->ntokens].token = xstrdup(tok);
			srv->tokens[srv->ntokens].glob = glob ? xstrdup(glob) : NULL;
			srv->tokens[srv->ntokens].roles = mask;
			srv->ntokens++;
		}
		if (!end)
			break;
		line = end + 1;
	}
done:
	strbuf_release(&text);
	return ret;
}

/* Compares without stopping at the first difference. */
static int token_equal(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned char diff = (unsigned char)(la != lb);
	for (size_t i = 0; i < la; i++)
		diff |= (unsigned char)(a[i] ^ b[i % (lb ? lb : 1)]);
	return !diff;
}

/* The token of an "Authorization: Bearer TOKEN" header, without the blanks around it (a
 * client or proxy may pad the value). */
static const struct token *find_token(const struct web_server *srv, const char *header)
{
	const struct token *found = NULL;
	struct strbuf presented = STRBUF_INIT;
	size_t n;
	if (!header || strncasecmp(header, "Bearer ", 7))
		return NULL;
	header += 7;
	header += strspn(header, " \t");
	n = strlen(header);
	while (n && (header[n - 1] == ' ' || header[n - 1] == '\t'))
		n--;
	strbuf_add(&presented, header, n);
	for (size_t i = 0; i < srv->ntokens; i++)
		if (token_equal(srv->tokens[i].token, presented.buf))
			found = &srv->tokens[i];
	strbuf_release(&presented);
	return found;
}

static size_t unescape_none(void *cls, struct MHD_Connection *c, char *s)
{
	(void)cls;
	(void)c;
	return strlen(s);
}

static enum MHD_Result send_reply(struct MHD_Connection *conn, struct web_reply *r)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;
	char etag[24];
	const char *inm;
	int not_modified = 0;

	if (r->has_etag) {
		snprintf(etag, sizeof(etag), "\"%016llx\"", (unsigned long long)r->etag);
		inm = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "If-None-Match");
		not_modified = inm && (strstr(inm, etag) || !strcmp(inm, "*"));
	}
	if (not_modified) {
		resp = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
	} else {
		size_t len = r->body.len;
		char *buf = strbuf_detach(&r->body, NULL);
		resp = MHD_create_response_from_buffer(len, buf, MHD_RESPMEM_MUST_FREE);
		if (!resp)
			free(buf);
	}
	if (!resp)
		return MHD_NO;
	if (r->type)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, r->type);
	if (r->has_etag) {
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ETAG, etag);
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
	} else {
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	}
	if (r->allow)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, r->allow);
	if (r->status == 401)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
					"Bearer realm=\"benchline\"");
	if (r->retry_after_s) {
		char secs[16];
		snprintf(secs, sizeof(secs), "%u", r->retry_after_s);
		MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, secs);
	}
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(resp, "Content-Security-Policy",
				"default-src 'none'; style-src 'self' 'unsafe-inline'; "
				"script-src 'self'; img-src 'self' data:; form-action 'self'; "
				"base-uri 'none'; frame-ancestors 'none'");
	ret = MHD_queue_response(conn, not_modified ? MHD_HTTP_NOT_MODIFIED : (unsigned)r->status,
				 resp);
	MHD_destroy_response(resp);
	return ret;
}

static void reply_text(struct web_reply *r, int status, const char *msg)
{
	strbuf_reset(&r->body);
	strbuf_addstr(&r->body, msg);
	strbuf_addch(&r->body, '\n');
	r->status = status;
	r->type = "text/plain; charset=utf-8";
	r->has_etag = 0;
}

/* Splits a Series id (four percent-encoded parts joined by '/') into parts[4]; 0 or
 * BL_EINVALID. *rest is what follows the fourth part ("" or "/..."). */
static int split_series_id(struct strbuf parts[4], const char **rest, const char *path)
{
	for (int i = 0; i < 4; i++) {
		const char *end = strchr(path, '/');
		size_t n = end ? (size_t)(end - path) : strlen(path);
		if (i < 3 && !end)
			return BL_EINVALID;
		if (web_percent_decode(&parts[i], path, n, 0) ||
		    !utf8_valid(parts[i].buf, parts[i].len))
			return BL_EINVALID;
		path += n;
		if (i < 3)
			path++;
	}
	*rest = path;
	return 0;
}

static const char *query_arg(struct strbuf *out, struct MHD_Connection *conn, const char *key)
{
	const char *raw = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, key);
	if (!raw)
		return NULL;
	strbuf_reset(out);
	if (strlen(raw) > 4096 || web_percent_decode(out, raw, strlen(raw), 1) ||
	    !utf8_valid(out->buf, out->len))
		return NULL;
	return out->buf;
}

static int is_get(const char *method)
{
	return !strcmp(method, MHD_HTTP_METHOD_GET) || !strcmp(method, MHD_HTTP_METHOD_HEAD);
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

/* r answers err: JSON under /api/, else an HTML page; a 503 says when to try again. The one
 * place an error becomes a status. The answer names no server path, database file or URL
 * (§13): a client's error is told without them (web_scrub); the server's own failure, or a
 * database it cannot reach, is told in general words, and in full in the server's log. */
static void reply_error(struct web_reply *r, const struct web_ctx *ctx, int api,
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
	if (api)
		web_reply_json_error(r, (int)status, shown.buf);
	else
		web_page_error(r, ctx, (int)status, shown.buf);
	if (status == 503)
		r->retry_after_s = WEB_RETRY_AFTER;
	strbuf_release(&shown);
}

/* r answers a route's own failure: a 500, but a lock held too long or a database that cannot
 * be reached is still a 503. */
static void reply_failure(struct web_reply *r, const struct web_ctx *ctx, int api,
			  struct bl_error *err)
{
	if (err->code != BL_EBUSY && err->code != BL_EUNAVAILABLE)
		err->code = BL_EDB;
	reply_error(r, ctx, api, err);
}

/* The query parameters an API route takes: any other is a 400 naming it. */
struct param_check {
	const char *const *known;
	struct strbuf unknown;
	int bad;
};

static enum MHD_Result check_param(void *cls, enum MHD_ValueKind kind, const char *key,
				   const char *value)
{
	struct param_check *c = cls;
	(void)kind;
	(void)value;
	for (size_t i = 0; c->known[i]; i++)
		if (!strcmp(key, c->known[i]))
			return MHD_YES;
	c->bad = 1;
	if (web_percent_decode(&c->unknown, key, strlen(key), 1) ||
	    !utf8_valid(c->unknown.buf, c->unknown.len) || c->unknown.len > 256) {
		strbuf_reset(&c->unknown);
		strbuf_addstr(&c->unknown, "?");
	}
	return MHD_NO;
}

/* 0, or BL_EINVALID with the 400 in r when the query has a parameter not in known. */
static int check_params(struct web_reply *r, struct MHD_Connection *conn, const char *const *known)
{
	struct param_check c = {known, STRBUF_INIT, 0};
	struct strbuf msg = STRBUF_INIT;
	MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, check_param, &c);
	if (c.bad) {
		strbuf_addf(&msg, "unknown parameter '%s' (", c.unknown.buf);
		for (size_t i = 0; known[i]; i++)
			strbuf_addf(&msg, "%s%s", i ? ", " : "", known[i]);
		strbuf_addstr(&msg, known[0] ? ")" : "none is taken)");
		web_reply_json_error(r, 400, msg.buf);
	}
	strbuf_release(&c.unknown);
	strbuf_release(&msg);
	return c.bad ? BL_EINVALID : 0;
}

/* A query parameter of the API: 0 when absent (*out NULL), 1 when given (*out its decoded
 * value in buf; "" for a bare "?all"), BL_EINVALID (a 400 in r) when it does not decode to
 * UTF-8 of at most 4096 bytes. */
static int api_param(const char **out, struct strbuf *buf, struct web_reply *r,
		     struct MHD_Connection *conn, const char *key)
{
	const char *raw = NULL;
	size_t len = 0;
	*out = NULL;
	strbuf_reset(buf);
	if (MHD_lookup_connection_value_n(conn, MHD_GET_ARGUMENT_KIND, key, strlen(key), &raw,
					  &len) != MHD_YES)
		return 0;
	if (raw && (len > 4096 || web_percent_decode(buf, raw, len, 1) ||
		    !utf8_valid(buf->buf, buf->len))) {
		struct strbuf msg = STRBUF_INIT;
		strbuf_addf(&msg, "%s: not percent-encoded UTF-8 of at most 4096 bytes", key);
		web_reply_json_error(r, 400, msg.buf);
		strbuf_release(&msg);
		return BL_EINVALID;
	}
	*out = buf->buf;
	return 1;
}

static int bad_param(struct web_reply *r, const char *key, const char *value, const char *want)
{
	struct strbuf msg = STRBUF_INIT;
	strbuf_addf(&msg, "%s: '%s' is not %s", key, value, want);
	web_reply_json_error(r, 400, msg.buf);
	strbuf_release(&msg);
	return BL_EINVALID;
}

/* machine=NAME: a machine name (§1). */
static int param_machine(const char **out, struct strbuf *buf, struct web_reply *r,
			 struct MHD_Connection *conn, const char *key)
{
	int ret = api_param(out, buf, r, conn, key);
	if (ret == 1 && !ingest_valid_machine(*out))
		return bad_param(r, key, *out, "a machine name ([A-Za-z0-9._-], 1 to 64)");
	return ret < 0 ? ret : 0;
}

/* A name (benchmark=, config=): any string, "" meaning not given for a filter. */
static int param_string(const char **out, struct strbuf *buf, struct web_reply *r,
			struct MHD_Connection *conn, const char *key)
{
	int ret = api_param(out, buf, r, conn, key);
	return ret < 0 ? ret : 0;
}

/* commit= and source_hash= as filters: 4 to 40 hex digits, a prefix, kept in lowercase. */
static int param_hex_prefix(const char **out, struct strbuf *buf, struct web_reply *r,
			    struct MHD_Connection *conn, const char *key)
{
	int ret = api_param(out, buf, r, conn, key);
	if (ret <= 0)
		return ret;
	if (buf->len < 4 || buf->len > 40 || strspn(buf->buf, "0123456789abcdefABCDEF") != buf->len)
		return bad_param(r, key, *out, "4 to 40 hex digits");
	for (size_t i = 0; i < buf->len; i++)
		buf->buf[i] = (char)tolower((unsigned char)buf->buf[i]);
	return 0;
}

/* An integer in [min, max]; *out keeps its value when the parameter is absent. */
static int param_int(int64_t *out, struct web_reply *r, struct MHD_Connection *conn,
		     const char *key, int64_t min, int64_t max)
{
	struct strbuf buf = STRBUF_INIT, want = STRBUF_INIT;
	const char *v;
	char *end;
	long long n;
	int ret = api_param(&v, &buf, r, conn, key);
	if (ret == 1) {
		errno = 0;
		n = strtoll(v, &end, 10);
		if (!*v || *end || errno || n < min || n > max || !isdigit((unsigned char)*v)) {
			strbuf_addf(&want, "an integer from %lld to %lld", (long long)min,
				    (long long)max);
			ret = bad_param(r, key, v, want.buf);
		} else {
			*out = n;
			ret = 0;
		}
	}
	strbuf_release(&buf);
	strbuf_release(&want);
	return ret < 0 ? ret : 0;
}

/* all=1 (or a bare ?all, all=true), all=0 (all=false). */
static int param_bool(int *out, struct web_reply *r, struct MHD_Connection *conn, const char *key)
{
	struct strbuf buf = STRBUF_INIT;
	const char *v;
	int ret = api_param(&v, &buf, r, conn, key);
	if (ret == 1) {
		ret = 0;
		if (!*v || !strcmp(v, "1") || !strcmp(v, "true"))
			*out = 1;
		else if (!strcmp(v, "0") || !strcmp(v, "false"))
			*out = 0;
		else
			ret = bad_param(r, key, v, "1 or 0");
	}
	strbuf_release(&buf);
	return ret < 0 ? ret : 0;
}

/* GET /api/records, /api/alerts, /api/regressions and /api/status: their parameters checked,
 * then the store asked. Never cached: each answer is for its own query. */
static int api_query(struct web_server *srv, struct web_reply *r, struct MHD_Connection *conn,
		     struct store *st, const char *url, struct bl_error *err)
{
	static const char *const records_params[] = {
	    "machine", "benchmark", "commit", "source_hash", "all", "limit", "after", NULL};
	static const char *const alerts_params[] = {"machine", "state", NULL};
	static const char *const regressions_params[] = {"machine", "benchmark", "commit", "alert",
							 NULL};
	static const char *const no_params[] = {NULL};
	struct strbuf b1 = STRBUF_INIT, b2 = STRBUF_INIT, b3 = STRBUF_INIT, b4 = STRBUF_INIT;
	int ret = 0;

	if (!strcmp(url, "/api/records")) {
		struct store_record_page p;
		int64_t limit = WEB_PAGE_DEFAULT, after = 0;
		memset(&p, 0, sizeof(p));
		if (check_params(r, conn, records_params) ||
		    param_machine(&p.machine, &b1, r, conn, "machine") ||
		    param_string(&p.benchmark, &b2, r, conn, "benchmark") ||
		    param_hex_prefix(&p.commit, &b3, r, conn, "commit") ||
		    param_hex_prefix(&p.source_hash, &b4, r, conn, "source_hash") ||
		    param_bool(&p.all, r, conn, "all") ||
		    param_int(&limit, r, conn, "limit", 1, WEB_PAGE_MAX) ||
		    param_int(&after, r, conn, "after", 0, INT64_MAX))
			goto done;
		p.limit = (size_t)limit;
		p.after = after;
		ret = web_api_records(r, st, &p, err);
	} else if (!strcmp(url, "/api/alerts")) {
		struct store_alert_filter f;
		const char *state;
		memset(&f, 0, sizeof(f));
		if (check_params(r, conn, alerts_params) ||
		    param_machine(&f.machine, &b1, r, conn, "machine") ||
		    param_string(&state, &b2, r, conn, "state"))
			goto done;
		if (state && *state) {
			if (suspect_state_parse(&f.state, state)) {
				bad_param(r, "state", state,
					  "a state (pending, open, transient, cleared, confirmed, "
					  "covered, ignored)");
				goto done;
			}
			f.state_given = 1;
		}
		ret = web_api_alerts(r, st, &f, err);
	} else if (!strcmp(url, "/api/regressions")) {
		struct store_regression_filter f;
		memset(&f, 0, sizeof(f));
		if (check_params(r, conn, regressions_params) ||
		    param_machine(&f.machine, &b1, r, conn, "machine") ||
		    param_string(&f.benchmark, &b2, r, conn, "benchmark") ||
		    param_hex_prefix(&f.commit, &b3, r, conn, "commit") ||
		    param_int(&f.alert_id, r, conn, "alert", 1, INT64_MAX))
			goto done;
		if (f.benchmark && !*f.benchmark)
			f.benchmark = NULL;
		ret = web_api_regressions(r, st, &f, err);
	} else {
		json_t *o;
		if (check_params(r, conn, no_params))
			goto done;
		o = web_background_status(srv->bg);
		web_reply_json(r, 200, o);
	}
done:
	strbuf_release(&b1);
	strbuf_release(&b2);
	strbuf_release(&b3);
	strbuf_release(&b4);
	return ret;
}

/* 0 when the gate's revisions of a request are plain (repo_rev_is_plain), else BL_EINVALID
 * with a 400 naming the first that is not. */
static int gate_revs_plain(struct web_reply *r, const struct web_ctx *ctx, int api,
			   const struct web_gate_query *q)
{
	const char *const keys[] = {"head", "base", "ratchet"};
	const char *const revs[] = {q->head, q->base, q->ratchet};
	for (size_t i = 0; i < 3; i++) {
		struct strbuf msg = STRBUF_INIT;
		if (!revs[i] || !*revs[i] || repo_rev_is_plain(revs[i]))
			continue;
		strbuf_addf(&msg,
			    "%s: '%s' is not a ref name or a commit id (4 to 40 hex digits); "
			    "the server takes no revision expressions",
			    keys[i], revs[i]);
		if (api)
			web_reply_json_error(r, 400, msg.buf);
		else
			web_page_error(r, ctx, 400, msg.buf);
		strbuf_release(&msg);
		return BL_EINVALID;
	}
	return 0;
}

/* The GET routes. */
static void route_get(struct web_server *srv, struct web_reply *r, struct MHD_Connection *conn,
		      const char *url, const char *method)
{
	struct strbuf parts[4] = {STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT};
	struct strbuf qa = STRBUF_INIT, fa = STRBUF_INIT, ta = STRBUF_INIT;
	struct strbuf xa = STRBUF_INIT, sa = STRBUF_INIT, ia = STRBUF_INIT;
	const char *in_query = NULL; /* ?id=: a Series id given in the query */
	struct web_query q = {NULL, NULL, NULL, NULL, NULL};
	struct bl_error err = BL_ERROR_INIT;
	struct pooled conn_db = {NULL, 0, NULL};
	struct store *st = NULL;
	char client[INET6_ADDRSTRLEN];
	int drawing = 0;
	struct strbuf key = STRBUF_INIT;
	uint64_t gen = 0, key_hash;
	const char *rest = NULL;
	const char *names[4];
	int api = !strncmp(url, "/api/", 5), ret = 0;
	int query = !strcmp(url, "/api/records") || !strcmp(url, "/api/alerts") ||
		    !strcmp(url, "/api/regressions") || !strcmp(url, "/api/status");

	if (!strncmp(url, "/assets/", 8)) {
		const struct web_asset *a = web_asset_find(url + 8);
		if (!a) {
			reply_text(r, 404, "not found");
		} else {
			strbuf_add(&r->body, a->data, a->len);
			r->status = 200;
			r->type = a->type;
			r->etag = web_hash(WEB_HASH_INIT, a->data, a->len);
			r->has_etag = 1;
		}
		goto done;
	}
	if (!query && strcmp(url, "/") && strcmp(url, "/api/series") && strcmp(url, "/series") &&
	    strncmp(url, "/series/", 8) && strncmp(url, "/api/series/", 12) &&
	    strcmp(url, "/suspects") && strcmp(url, "/api/suspects") &&
	    strcmp(url, "/regressions") &&
	    (!srv->ctx.repo_dir || (strcmp(url, "/gate") && strcmp(url, "/api/gate")))) {
		if (api)
			web_reply_json_error(r, 404, "no such route");
		else
			web_page_error(r, &srv->ctx, 404, "Not found");
		goto done;
	}
	if (!is_get(method)) {
		r->allow = !strcmp(url, "/api/records") ? "GET, HEAD, POST" : "GET, HEAD";
		if (api)
			web_reply_json_error(r, 405, "method not allowed");
		else
			reply_text(r, 405, "method not allowed");
		goto done;
	}
	q.q = query_arg(&qa, conn, "q");
	q.from = query_arg(&fa, conn, "from");
	q.to = query_arg(&ta, conn, "to");
	q.x = query_arg(&xa, conn, "x");
	q.side = query_arg(&sa, conn, "side");
	in_query = query_arg(&ia, conn, "id");
	/* Series pages and charts draw with gnuplot: a few at a time per client, on their own
	 * connections. */
	if (!strncmp(url, "/series/", 8) || !strcmp(url, "/series")) {
		client_address(client, conn);
		chart_begin(srv, client);
		drawing = 1;
	}
	if (pool_take(&conn_db, &gen, srv, drawing ? POOL_CHART : POOL_READ, &err)) {
		reply_failure(r, &srv->ctx, api, &err);
		goto done;
	}
	st = conn_db.st;
	if (query) {
		if (api_query(srv, r, conn, st, url, &err))
			reply_error(r, &srv->ctx, 1, &err);
		goto done;
	}
	if (!strcmp(url, "/gate") || !strcmp(url, "/api/gate")) {
		/* Never cached: the repository moves under the server. */
		struct strbuf ha = STRBUF_INIT, ba = STRBUF_INIT, ra = STRBUF_INIT;
		struct strbuf ua = STRBUF_INIT;
		struct web_gate_query gq;
		const char *undecided = query_arg(&ua, conn, "undecided");
		gq.head = query_arg(&ha, conn, "head");
		gq.base = query_arg(&ba, conn, "base");
		gq.ratchet = query_arg(&ra, conn, "ratchet");
		gq.undecided_fail = undecided && !strcmp(undecided, "fail");
		if (gq.base && !*gq.base)
			gq.base = NULL;
		if (gq.ratchet && !*gq.ratchet)
			gq.ratchet = NULL;
		if (api && (!gq.head || !*gq.head)) {
			web_reply_json_error(r, 400,
					     "/api/gate needs ?head=REV (and optionally base=REF)");
		} else if (undecided && *undecided && strcmp(undecided, "pass") &&
			   strcmp(undecided, "fail")) {
			const char *msg = "undecided: pass or fail (whether UNDECIDED rows fail "
					  "the gate)";
			if (api)
				web_reply_json_error(r, 400, msg);
			else
				web_page_error(r, &srv->ctx, 400, msg);
		} else if (gate_revs_plain(r, &srv->ctx, api, &gq)) {
			/* the 400 is in r */
		} else {
			if (!gq.head || !*gq.head)
				gq.head = "HEAD";
			ret = api ? web_api_gate(r, &srv->ctx, st, &gq, &err)
				  : web_page_gate(r, &srv->ctx, st, &gq, &err);
			if (ret)
				reply_failure(r, &srv->ctx, api, &err);
		}
		strbuf_release(&ha);
		strbuf_release(&ba);
		strbuf_release(&ra);
		strbuf_release(&ua);
		goto done;
	}
	cache_key_add(&key, url);
	cache_key_add(&key, q.q);
	cache_key_add(&key, q.from);
	cache_key_add(&key, q.to);
	cache_key_add(&key, q.x);
	cache_key_add(&key, q.side);
	cache_key_add(&key, in_query);
	key_hash = web_hash(WEB_HASH_INIT, key.buf, key.len);
	if (web_reply_cache_get(srv->replies, r, key_hash, key.buf, key.len, gen))
		goto done;
	if (!strcmp(url, "/")) {
		ret = web_page_overview(r, &srv->ctx, st, &q, &err);
	} else if (!strcmp(url, "/api/series")) {
		ret = web_api_series(r, st, &err);
	} else if (!strcmp(url, "/suspects")) {
		ret = web_page_suspects(r, &srv->ctx, st, &q, &err);
	} else if (!strcmp(url, "/api/suspects")) {
		ret = web_api_suspects(r, st, &err);
	} else if (!strcmp(url, "/regressions")) {
		ret = web_page_regressions(r, &srv->ctx, st, &err);
	} else if (!strcmp(url, "/series") || !strcmp(url, "/series/chart.svg") ||
		   !strcmp(url, "/api/series/records")) {
		/* The Series named by ?id=ID: how the pages link one with a "." or ".." part,
		 * which a browser resolves away in a path. */
		if (!in_query || split_series_id(parts, &rest, in_query) || *rest) {
			if (api)
				web_reply_json_error(r, 404, "no such series");
			else
				web_page_error(r, &srv->ctx, 404, "No such Series");
			goto done;
		}
		for (int i = 0; i < 4; i++)
			names[i] = parts[i].buf;
		ret = api ? web_api_series_records(r, st, names, &err)
			  : web_page_series(r, &srv->ctx, st, names, &q, url[7] != '\0', &err);
	} else if (!strncmp(url, "/series/", 8)) {
		if (split_series_id(parts, &rest, url + 8) ||
		    (*rest && strcmp(rest, "/chart.svg"))) {
			web_page_error(r, &srv->ctx, 404, "No such Series");
			goto done;
		}
		for (int i = 0; i < 4; i++)
			names[i] = parts[i].buf;
		ret = web_page_series(r, &srv->ctx, st, names, &q, *rest != '\0', &err);
	} else {
		if (split_series_id(parts, &rest, url + 12) || strcmp(rest, "/records")) {
			web_reply_json_error(r, 404, "no such route");
			goto done;
		}
		for (int i = 0; i < 4; i++)
			names[i] = parts[i].buf;
		ret = web_api_series_records(r, st, names, &err);
	}
	if (ret) {
		reply_failure(r, &srv->ctx, api, &err);
	} else {
		web_reply_cache_put(srv->replies, r, key_hash, key.buf, key.len, gen);
	}
done:
	pool_give(srv, &conn_db, 0);
	if (drawing)
		chart_end(srv, client);
	for (int i = 0; i < 4; i++)
		strbuf_release(&parts[i]);
	strbuf_release(&qa);
	strbuf_release(&fa);
	strbuf_release(&ta);
	strbuf_release(&key);
	strbuf_release(&xa);
	strbuf_release(&sa);
	strbuf_release(&ia);
	bl_error_release(&err);
}

/* The parameters of POST /api/records: a harness's own output in format F, with what the
 * format lacks (as `benchline ingest --format F` takes it from flags). */
static const char *const push_params[] = {
    "format", "machine", "harness_version", "commit", "source_hash", "config", NULL};

/* POST /api/records with the whole body read: the intake use case, one transaction for the
 * body, with the served repository's benchline.json; native records unless ?format= names
 * another format, parsed by the same adapters as `benchline ingest --format`. */
static void push_records(struct web_server *srv, struct web_reply *r, struct request *req,
			 struct MHD_Connection *conn)
{
	struct ingest_intake in;
	struct ingest_batch batch = {NULL, 0, 0};
	struct bl_error err = BL_ERROR_INIT;
	struct strbuf fa = STRBUF_INIT, ma = STRBUF_INIT, ca = STRBUF_INIT, sa = STRBUF_INIT;
	struct strbuf cfa = STRBUF_INIT;
	enum ingest_outcome *outcomes = NULL;
	struct ingest_tagged *tagged = NULL;
	int64_t *ids = NULL, harness = -1;
	struct store *st = NULL;
	struct pooled writer = {NULL, 0, NULL};
	json_t *out = NULL;
	const char *format = NULL;
	int stored = 0;

	ingest_intake_init(&in, &adapters_parsers);
	if (check_params(r, conn, push_params) || param_string(&format, &fa, r, conn, "format") ||
	    param_machine(&in.machine, &ma, r, conn, "machine") ||
	    param_int(&harness, r, conn, "harness_version", 0, INT64_MAX) ||
	    param_string(&in.commit, &ca, r, conn, "commit") ||
	    param_string(&in.source_hash, &sa, r, conn, "source_hash") ||
	    param_string(&in.config, &cfa, r, conn, "config"))
		goto done;
	if (format && !*format)
		format = NULL;
	if (!format && (in.machine || harness >= 0 || in.commit || in.source_hash || in.config)) {
		web_reply_json_error(r, 400,
				     "machine=, harness_version=, commit=, source_hash= and "
				     "config= fill what a format lacks: give format= too (native "
				     "records carry their own)");
		goto done;
	}
	if (in.source_hash && !in.commit) {
		web_reply_json_error(r, 400, "source_hash= needs commit=");
		goto done;
	}
	in.format = format ? format : "benchline";
	in.harness_version = (long)harness;
	in.settings_dir = srv->ctx.repo_dir;
	in.machine_glob = req->token->glob;
	in.no_hash_hint = format ? "give source_hash= with commit=: the server cannot compute it"
				 : "the server cannot compute it";
	if (req->body.len == 0) {
		web_reply_json_error(r, 400, "request: empty body");
		goto done;
	}
	if (ingest_intake_setup(&in, &err)) {
		reply_error(r, &srv->ctx, 1, &err);
		goto done;
	}
	if (ingest_intake_parse(&in, &batch, "request", req->body.buf, req->body.len, NAN, &err)) {
		struct strbuf shown = STRBUF_INIT;
		if (format && strstr(err.msg.buf, "give --"))
			strbuf_addstr(&err.msg,
				      " (a push gives machine=, harness_version=, commit=, "
				      "source_hash= and config= in its query)");
		web_scrub(&shown, &srv->opts, err.msg.buf);
		web_reply_json_error(r, 400, shown.buf);
		strbuf_release(&shown);
		goto done;
	}
	outcomes = xcalloc(batch.nr ? batch.nr : 1, sizeof(*outcomes));
	ids = xcalloc(batch.nr ? batch.nr : 1, sizeof(*ids));
	tagged = xcalloc(batch.nr ? batch.nr : 1, sizeof(*tagged));
	in.tagged = tagged;
	/* The write lock first: a push waiting for it holds no connection a read needs. */
	if (pool_take(&writer, NULL, srv, POOL_WRITE, &err)) {
		reply_error(r, &srv->ctx, 1, &err);
		goto done;
	}
	st = writer.st;
	if (ingest_intake_store(&in, st, "request", &batch, outcomes, ids, &err)) {
		reply_error(r, &srv->ctx, 1, &err);
		goto done;
	}
	out = json_array();
	for (size_t i = 0; i < batch.nr; i++) {
		json_t *row = ingest_outcome_json(NULL, i, &batch.records[i], ids[i], outcomes[i]);
		/* why it joins no Series, if it does not (§10) */
		ingest_outcome_add_tags(row, &batch.records[i], &tagged[i]);
		json_array_append_new(out, row);
		if (outcomes[i] != INGEST_DUPLICATE)
			stored = 1;
	}
	web_reply_json(r, stored ? 201 : 200, json_incref(out));
	/* New records: detection runs in the background, never in this request. */
	if (stored)
		web_background_poke(srv->bg);
done:
	/* Any push may have written: cached replies are dropped. */
	pool_give(srv, &writer, 1);
	json_decref(out);
	free(outcomes);
	free(ids);
	free(tagged);
	strbuf_release(&fa);
	strbuf_release(&ma);
	strbuf_release(&ca);
	strbuf_release(&sa);
	strbuf_release(&cfa);
	ingest_batch_release(&batch);
	ingest_intake_release(&in);
	bl_error_release(&err);
}

/* The alert a confirm outcome is posted for: its machine, or *found 0. */
struct outcome_alert {
	int found;
	struct strbuf machine;
	enum suspect_state state;
	enum alert_outcome outcome;
};

static int outcome_alert_one(const struct store_alert *a, void *data)
{
	struct outcome_alert *x = data;
	x->found = 1;
	strbuf_reset(&x->machine);
	strbuf_addstr(&x->machine, a->machine);
	x->state = a->state;
	x->outcome = a->outcome;
	return 1;
}

static int find_alert(struct outcome_alert *out, struct store *st, int64_t id, struct bl_error *err)
{
	struct store_alert_filter f;
	memset(&f, 0, sizeof(f));
	f.id = id;
	out->found = 0;
	return store_each_alert(st, &f, outcome_alert_one, out, err);
}

/* The first steps of a POST on an alert: the writer's connection, then the alert, which must
 * exist and be of a machine the token may VERB (confirm, ignore). Non-zero when r already
 * answers why not. */
static int writer_alert(struct pooled *writer, struct outcome_alert *alert, struct web_server *srv,
			struct web_reply *r, const struct request *req, const char *verb,
			struct bl_error *err)
{
	if (pool_take(writer, NULL, srv, POOL_WRITE, err) ||
	    find_alert(alert, writer->st, req->alert_id, err))
		goto fail;
	if (!alert->found) {
		bl_error_set(err, BL_ENOTFOUND, "no alert %lld", (long long)req->alert_id);
		goto fail;
	}
	if (req->token->glob && !glob_match(req->token->glob, alert->machine.buf)) {
		bl_error_set(err, BL_EDENIED, "this token may not %s alerts of machine %s", verb,
			     alert->machine.buf);
		goto fail;
	}
	return 0;
fail:
	reply_error(r, &srv->ctx, 1, err);
	return -1;
}

/* POST /api/alerts/{id}/outcome with the whole body read: the outcome document stored by the
 * use case a local confirm would share (confirm_apply_outcome), for an alert of a machine the
 * token may confirm. */
static void post_outcome(struct web_server *srv, struct web_reply *r, struct request *req,
			 struct MHD_Connection *conn)
{
	static const char *const no_params[] = {NULL};
	struct confirm_alert_result res;
	struct outcome_alert alert = {0, STRBUF_INIT, SUSPECT_OPEN, ALERT_NO_OUTCOME};
	struct bl_error err = BL_ERROR_INIT;
	struct store *st = NULL;
	json_error_t jerr;
	json_t *doc = NULL, *ids, *o;
	struct pooled writer = {NULL, 0, NULL};

	memset(&res, 0, sizeof(res));
	if (check_params(r, conn, no_params))
		goto done;
	doc = json_loadb(req->body.buf, req->body.len, JSON_REJECT_DUPLICATES, &jerr);
	if (!doc) {
		struct strbuf msg = STRBUF_INIT;
		strbuf_addf(&msg, "request:%d:%d: %s", jerr.line, jerr.column, jerr.text);
		web_reply_json_error(r, 400, msg.buf);
		strbuf_release(&msg);
		goto done;
	}
	if (writer_alert(&writer, &alert, srv, r, req, "confirm", &err))
		goto done;
	st = writer.st;
	if (confirm_apply_outcome(&res, st, req->alert_id, doc, &err) ||
	    find_alert(&alert, st, req->alert_id, &err)) {
		reply_error(r, &srv->ctx, 1, &err);
		goto done;
	}
	ids = json_array();
	for (size_t i = 0; i < res.nregressions; i++)
		json_array_append_new(ids, json_integer(res.regressions[i]));
	o = json_pack("{s:I, s:s, s:s, s:o}", "alert", (json_int_t)req->alert_id, "state",
		      suspect_state_name(alert.state), "outcome", alert_outcome_name(res.outcome),
		      "regressions", ids);
	web_reply_json(r, 200, o);
	/* A Regression starts a pinned line: the next detection reads every Series. */
	if (res.nregressions)
		web_background_poke(srv->bg);
done:
	pool_give(srv, &writer, 1);
	confirm_alert_result_release(&res);
	json_decref(doc);
	strbuf_release(&alert.machine);
	bl_error_release(&err);
}

/* POST /api/alerts/{id}/ignore with the whole body read, {"why": TEXT}: the alert ignored by the
 * use case `benchline suspects ignore` calls (confirm_ignore_alert), for an alert of a machine
 * the token may confirm. The audit names the token by the first 12 digits of its digest, never
 * by the token itself. */
static void post_ignore(struct web_server *srv, struct web_reply *r, struct request *req,
			struct MHD_Connection *conn)
{
	static const char *const no_params[] = {NULL};
	struct outcome_alert alert = {0, STRBUF_INIT, SUSPECT_OPEN, ALERT_NO_OUTCOME};
	struct bl_error err = BL_ERROR_INIT;
	struct strbuf who = STRBUF_INIT;
	struct store *st = NULL;
	enum suspect_state was;
	json_error_t jerr;
	json_t *doc = NULL, *o;
	const char *why;
	char digest[41];
	struct pooled writer = {NULL, 0, NULL};

	if (check_params(r, conn, no_params))
		goto done;
	doc = json_loadb(req->body.buf, req->body.len, JSON_REJECT_DUPLICATES, &jerr);
	why = json_string_value(json_object_get(doc, "why"));
	if (!doc || !json_is_object(doc) || json_object_size(doc) != 1 || !why) {
		web_reply_json_error(r, 400,
				     "the body is {\"why\": TEXT}, the reason to ignore it");
		goto done;
	}
	if (writer_alert(&writer, &alert, srv, r, req, "ignore", &err))
		goto done;
	st = writer.st;
	if (digest_blob(digest, req->token->token, strlen(req->token->token)))
		digest[0] = '\0';
	strbuf_addf(&who, "token %.12s", digest);
	if (confirm_ignore_alert(&was, st, req->alert_id, who.buf, why, &err)) {
		reply_error(r, &srv->ctx, 1, &err);
		goto done;
	}
	o = json_pack("{s:I, s:s, s:s}", "alert", (json_int_t)req->alert_id, "state",
		      suspect_state_name(SUSPECT_IGNORED), "was", suspect_state_name(was));
	web_reply_json(r, 200, o);
done:
	pool_give(srv, &writer, 1);
	json_decref(doc);
	strbuf_release(&alert.machine);
	strbuf_release(&who);
	bl_error_release(&err);
}

/* "/api/alerts/{id}ACTION" (ACTION "/outcome" or "/ignore"): the alert's id (a positive
 * decimal number), else 0. */
static int64_t outcome_route(const char *url, const char *action)
{
	const char *p;
	int64_t id = 0;
	if (strncmp(url, "/api/alerts/", 12))
		return 0;
	p = url + 12;
	if (*p < '1' || *p > '9')
		return 0;
	for (; isdigit((unsigned char)*p); p++) {
		if (id > (INT64_MAX - 9) / 10)
			return 0;
		id = id * 10 + (*p - '0');
	}
	return strcmp(p, action) ? 0 : id;
}

/* The first call of a request with a body (a push or an outcome): its method, token and role,
 * the body's announced size. 0 to read the body, or an error answer already in r. */
static int body_request_start(struct web_server *srv, struct web_reply *r, struct request *req,
			      struct MHD_Connection *conn, const char *method)
{
	const char *len_header;
	unsigned role = req->kind == REQUEST_PUSH ? TOKEN_PUSH : TOKEN_CONFIRM;
	if (strcmp(method, MHD_HTTP_METHOD_POST)) {
		r->allow = req->kind == REQUEST_PUSH ? "GET, HEAD, POST" : "POST";
		web_reply_json_error(r, 405, "method not allowed");
		return -1;
	}
	if (!srv->have_token_file) {
		web_reply_json_error(r, 401,
				     req->kind == REQUEST_PUSH
					 ? "pushing is off: the server has no --token-file"
					 : "confirming is off: the server has no --token-file");
		return -1;
	}
	req->token =
	    find_token(srv, MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization"));
	if (!req->token) {
		web_reply_json_error(r, 401, "a valid bearer token is required");
		return -1;
	}
	if (!(req->token->roles & role)) {
		web_reply_json_error(
		    r, 403,
		    role == TOKEN_PUSH ? "this token may not push records (its roles lack push)"
		    : req->kind == REQUEST_IGNORE
			? "this token may not ignore alerts (its roles lack confirm)"
			: "this token may not post confirm outcomes (its roles "
			  "lack confirm)");
		return -1;
	}
	len_header =
	    MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	if (len_header && strtoull(len_header, NULL, 10) > WEB_MAX_BODY) {
		web_reply_json_error(r, 413, "the body is over 16 MiB");
		return -1;
	}
	return 0;
}

/* A body in a Transfer-Encoding other than chunked alone ("gzip, chunked") is a 501: the
 * server cannot read it, and libmicrohttpd would wait for it forever. 0 when the request has
 * none or chunked. */
static int transfer_encoding_unknown(struct web_reply *r, const struct web_ctx *ctx,
				     struct MHD_Connection *conn, const char *url)
{
	const char *te =
	    MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING);
	struct strbuf msg = STRBUF_INIT;
	size_t n;
	if (!te)
		return 0;
	te += strspn(te, " \t");
	n = strlen(te);
	while (n && (te[n - 1] == ' ' || te[n - 1] == '\t'))
		n--;
	if (n == 7 && !strncasecmp(te, "chunked", 7))
		return 0;
	strbuf_addf(&msg, "Transfer-Encoding '%.*s' is not supported (only chunked)", (int)n, te);
	if (!utf8_valid(msg.buf, msg.len)) {
		strbuf_reset(&msg);
		strbuf_addstr(&msg, "Transfer-Encoding: only chunked is supported");
	}
	if (!strncmp(url, "/api/", 5))
		web_reply_json_error(r, 501, msg.buf);
	else
		web_page_error(r, ctx, 501, msg.buf);
	strbuf_release(&msg);
	return BL_EINVALID;
}

static void reply_too_many_params(struct web_reply *r, const struct web_ctx *ctx, const char *url)
{
	struct strbuf msg = STRBUF_INIT;
	strbuf_addf(&msg, "too many query parameters (at most %d)", WEB_MAX_PARAMS);
	if (!strncmp(url, "/api/", 5))
		web_reply_json_error(r, 414, msg.buf);
	else
		web_page_error(r, ctx, 414, msg.buf);
	strbuf_release(&msg);
}

/* Every request starts here, with its URI as the client sent it, before libmicrohttpd splits
 * the query: the request's state is made, and a query of more than WEB_MAX_PARAMS parameters
 * is marked to be refused (414) and cut off. libmicrohttpd keeps each parameter in the
 * connection's 64 KiB memory pool, and with a thousand of them it runs out and drops the
 * connection without an answer, so the query is emptied in place (the URI is the
 * connection's own buffer, split after this returns, in libmicrohttpd 0.9.75; t0660 sees a
 * 414 for 3,000 parameters) to leave room for the 414. */
static void *request_begin(void *cls, const char *uri, struct MHD_Connection *conn)
{
	struct request *req = xcalloc(1, sizeof(*req));
	char *query = (char *)strchr(uri, '?');
	size_t params = 1;
	(void)cls;
	(void)conn;
	strbuf_init(&req->body, 0);
	if (query) {
		for (const char *p = query + 1; *p; p++)
			params += *p == '&';
		if (params > WEB_MAX_PARAMS) {
			req->too_many_params = 1;
			query[1] = '\0';
		}
	}
	return req;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url,
			      const char *method, const char *version, const char *upload_data,
			      size_t *upload_data_size, void **con_cls)
{
	struct web_server *srv = cls;
	struct request *req = *con_cls;
	struct web_reply r;
	enum MHD_Result ret;
	(void)version;

	memset(&r, 0, sizeof(r));
	strbuf_init(&r.body, 0);
	if (!req->started) {
		req->started = 1;
		if (req->too_many_params) {
			reply_too_many_params(&r, &srv->ctx, url);
			goto answer_now;
		}
		if (transfer_encoding_unknown(&r, &srv->ctx, conn, url))
			goto answer_now;
		if (!strcmp(url, "/api/records") && !is_get(method)) {
			req->kind = REQUEST_PUSH;
		} else if ((req->alert_id = outcome_route(url, "/outcome"))) {
			req->kind = REQUEST_OUTCOME;
		} else if ((req->alert_id = outcome_route(url, "/ignore"))) {
			req->kind = REQUEST_IGNORE;
		} else {
			/* Answering on the first call would make libmicrohttpd close the
			 * connection (the body might be unread): GETs answer on the next call,
			 * keeping it alive. */
			strbuf_release(&r.body);
			return MHD_YES;
		}
		if (body_request_start(srv, &r, req, conn, method))
			goto answer_now;
		strbuf_release(&r.body);
		return MHD_YES;
	}
	if (*upload_data_size) {
		/* A body on a GET is read and ignored. */
		if (req->kind != REQUEST_GET && !req->too_big &&
		    req->body.len + *upload_data_size <= WEB_MAX_BODY)
			strbuf_add(&req->body, upload_data, *upload_data_size);
		else if (req->kind != REQUEST_GET)
			req->too_big = 1;
		*upload_data_size = 0;
		strbuf_release(&r.body);
		return MHD_YES;
	}
	/* The whole request is in: what follows is the server's time, not the client's. */
	watch_mark(srv, conn, 0);
	if (req->kind == REQUEST_GET)
		route_get(srv, &r, conn, url, method);
	else if (req->too_big)
		web_reply_json_error(&r, 413, "the body is over 16 MiB");
	else if (req->kind == REQUEST_PUSH)
		push_records(srv, &r, req, conn);
	else if (req->kind == REQUEST_IGNORE)
		post_ignore(srv, &r, req, conn);
	else
		post_outcome(srv, &r, req, conn);
	goto send;
answer_now:
	/* answered before its body: the connection closes after the answer */
	watch_mark(srv, conn, 0);
send:
	ret = send_reply(conn, &r);
	strbuf_release(&r.body);
	return ret;
}

static void completed(void *cls, struct MHD_Connection *conn, void **con_cls,
		      enum MHD_RequestTerminationCode toe)
{
	struct request *req = *con_cls;
	(void)toe;
	/* The next request on a kept-alive connection has the whole deadline again. */
	watch_mark(cls, conn, 1);
	if (!req)
		return;
	strbuf_release(&req->body);
	free(req);
	*con_cls = NULL;
}

static void server_free(struct web_server *srv)
{
	if (srv->daemon)
		MHD_stop_daemon(srv->daemon);
	if (srv->watching) {
		pthread_mutex_lock(&srv->watch_lock);
		srv->stop_watching = 1;
		pthread_cond_signal(&srv->watch_cond);
		pthread_mutex_unlock(&srv->watch_lock);
		pthread_join(srv->watcher, NULL);
	}
	/* The daemon is stopped: no request can ask for another run. */
	web_background_stop(srv->bg);
	for (int i = 0; i < POOL__COUNT; i++)
		pool_close(&srv->pools[i]);
	free(srv->charts);
	pthread_cond_destroy(&srv->charts_cond);
	web_reply_cache_free(srv->replies);
	for (size_t i = 0; i < srv->ntokens; i++) {
		free(srv->tokens[i].token);
		free(srv->tokens[i].glob);
	}
	free(srv->tokens);
	web_chart_cache_free(srv->ctx.cache);
	free(srv->base);
	pthread_mutex_destroy(&srv->lock);
	pthread_mutex_destroy(&srv->watch_lock);
	pthread_cond_destroy(&srv->watch_cond);
	free(srv);
}

int web_start(struct web_server **out, const struct web_options *opts, struct bl_error *err)
{
	struct web_server *srv = xcalloc(1, sizeof(*srv));
	struct sockaddr_in sa4;
	struct sockaddr_in6 sa6;
	struct sockaddr *sa;
	/* A thread for each connection: a request waiting on the database or on gnuplot holds up
	 * no other connection (with a shared pool of threads, every connection of a waiting
	 * thread went unanswered, kept-alive ones dropped). */
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
			 MHD_USE_POLL | MHD_USE_ITC;
	const char *bind = opts->bind ? opts->bind : "127.0.0.1";
	size_t n;
	int ret = 0;

	*out = NULL;
	pthread_mutex_init(&srv->lock, NULL);
	pthread_cond_init(&srv->charts_cond, NULL);
	pthread_mutex_init(&srv->watch_lock, NULL);
	pthread_cond_init(&srv->watch_cond, NULL);
	srv->opts = *opts;
	if (!srv->opts.request_deadline_s)
		srv->opts.request_deadline_s = WEB_REQUEST_DEADLINE;
	if (!srv->opts.client_charts)
		srv->opts.client_charts = WEB_CLIENT_CHARTS;
	if (!srv->opts.threads)
		srv->opts.threads = 4;
	if (!srv->opts.timeout_s)
		srv->opts.timeout_s = 10;
	if (!srv->opts.lock_timeout_s)
		srv->opts.lock_timeout_s = WEB_LOCK_TIMEOUT;
	memset(&sa4, 0, sizeof(sa4));
	memset(&sa6, 0, sizeof(sa6));
	if (inet_pton(AF_INET, bind, &sa4.sin_addr) == 1) {
		sa4.sin_family = AF_INET;
		sa4.sin_port = htons((uint16_t)opts->port);
		sa = (struct sockaddr *)&sa4;
	} else if (inet_pton(AF_INET6, bind, &sa6.sin6_addr) == 1) {
		sa6.sin6_family = AF_INET6;
		sa6.sin6_port = htons((uint16_t)opts->port);
		sa = (struct sockaddr *)&sa6;
		flags |= MHD_USE_IPv6;
	} else {
		ret = bl_error_set(err, BL_EINVALID, "--bind: not an IP address: %s", bind);
		goto done;
	}
	if (opts->token_file) {
		if ((ret = load_tokens(srv, opts->token_file, err)))
			goto done;
		srv->have_token_file = 1;
	}
	/* The base URL without its trailing slashes. */
	srv->base = xstrdup(opts->base_url ? opts->base_url : "");
	n = strlen(srv->base);
	while (n && srv->base[n - 1] == '/')
		srv->base[--n] = '\0';
	srv->ctx.base = srv->base;
	srv->ctx.gnuplot = opts->gnuplot ? opts->gnuplot : "gnuplot";
	srv->ctx.cache = web_chart_cache_new(128);
	srv->replies = web_reply_cache_new(WEB_REPLY_CACHE_SLOTS);
	srv->ctx.repo_dir = opts->repo_dir;
	srv->ctx.opts = &srv->opts;
	if ((ret = pool_open(&srv->pools[POOL_READ], srv->opts.threads, &srv->opts, err)) ||
	    (ret = pool_open(&srv->pools[POOL_CHART], srv->opts.threads, &srv->opts, err)) ||
	    (ret = pool_open(&srv->pools[POOL_WRITE], 1, &srv->opts, err)))
		goto done;
	if ((ret = web_background_start(&srv->bg, &srv->opts, err)))
		goto done;
	srv->daemon = MHD_start_daemon(
	    flags, (uint16_t)opts->port, NULL, NULL, handle, srv, MHD_OPTION_SOCK_ADDR, sa,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)srv->opts.timeout_s,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned)512, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
	    (size_t)64 * 1024, MHD_OPTION_NOTIFY_COMPLETED, completed, srv,
	    MHD_OPTION_NOTIFY_CONNECTION, connection_notify, srv,
	    MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)srv->opts.client_connections,
	    MHD_OPTION_UNESCAPE_CALLBACK, unescape_none, NULL, MHD_OPTION_URI_LOG_CALLBACK,
	    request_begin, srv, MHD_OPTION_END);
	if (!srv->daemon) {
		ret = bl_error_set(err, BL_EIO, "cannot listen on %s port %u: %s", bind, opts->port,
				   strerror(errno ? errno : EADDRINUSE));
		goto done;
	}
	if (pthread_create(&srv->watcher, NULL, watch_run, srv)) {
		ret = bl_error_set(err, BL_EIO, "cannot start the request deadline's thread");
		goto done;
	}
	srv->watching = 1;
done:
	if (ret)
		server_free(srv);
	else
		*out = srv;
	return ret;
}

unsigned web_port(const struct web_server *srv)
{
	const union MHD_DaemonInfo *info =
	    MHD_get_daemon_info(srv->daemon, MHD_DAEMON_INFO_BIND_PORT);
	return info ? info->port : srv->opts.port;
}

void web_stop(struct web_server *srv)
{
	MHD_socket fd;
	struct timespec pause = {0, 20 * 1000 * 1000};
	unsigned waited_ms = 0, limit_ms;

	if (!srv)
		return;
	/* Stop accepting; let what is in flight finish (an idle keep-alive connection is
	 * dropped by the connection timeout at the latest). */
	fd = MHD_quiesce_daemon(srv->daemon);
	limit_ms = (srv->opts.timeout_s + 1) * 1000;
	while (waited_ms < limit_ms) {
		const union MHD_DaemonInfo *info =
		    MHD_get_daemon_info(srv->daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
		if (!info || !info->num_connections)
			break;
		nanosleep(&pause, NULL);
		waited_ms += 20;
	}
	MHD_stop_daemon(srv->daemon);
	srv->daemon = NULL;
	if (fd != MHD_INVALID_SOCKET)
		close(fd);
	server_free(srv);
}

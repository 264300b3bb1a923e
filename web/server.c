/*
 * The HTTP side of `benchline serve`: libmicrohttpd with a thread per connection, the request
 * deadline's watch, bodies, the pools of store connections (one per request thread: SQLite
 * connections are never shared by two threads at once), the charts each client draws at
 * once, the reply cache, and the dispatch of every request through the route table
 * (routes.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "web/web.h"

/* The store connections, one pool for each kind of work (enum web_pool), so that one kind
 * never waits for another's connections: reads are never held up behind pushes waiting for
 * the write lock (WAL readers need no lock), nor behind charts, which hold theirs while
 * gnuplot draws. */
struct pool {
	struct store **stores;
	size_t *idle;	       /* idle[0..nidle): indexes into stores */
	int64_t *data_version; /* per store: the data_version last seen */
	size_t n, nidle;
	pthread_cond_t cond; /* CLOCK_MONOTONIC: a connection was given back */
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
	struct pool pools[WEB_POOLS];
	struct client_charts *charts;
	size_t ncharts, charts_alloc;
	pthread_cond_t charts_cond; /* a client's chart is done */
	/* Bumped whenever the database may have changed: a push, or a connection that sees
	 * another one's commit (SQLite's data_version). Cached replies are for one generation. */
	uint64_t gen;
	struct web_reply_cache *replies;
	struct web_token *tokens;
	size_t ntokens;
	int have_token_file;
	struct web_background *bg; /* detection after pushes, the sync of --repo */
	/* The request deadline's watch: every open connection, and the thread that drops those
	 * whose request is not in after opts.request_deadline_s (watch.c). */
	struct web_watch *watch;
	MHD_socket listen_fd; /* given back by MHD_quiesce_daemon, closed by web_stop */
	/* SIGTERM came (web_begin_stop): new requests are answered 503, every answer closes its
	 * connection, and idle kept-alive connections are closed. */
	atomic_int stopping;
};

static struct timespec now_monotonic(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t;
}

/* Connections come and go (libmicrohttpd's connection notification): each is watched from its
 * start to its close (the socket is still open until this returns, so the watch never shuts
 * down another connection's descriptor). */
static void connection_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
			      enum MHD_ConnectionNotificationCode code)
{
	struct web_server *srv = cls;
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *info =
		    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
		*socket_context = web_watch_open(srv->watch, info ? info->connect_fd : -1);
	} else if (*socket_context) {
		web_watch_close(srv->watch, *socket_context);
		*socket_context = NULL;
	}
}

/* The request of conn is in (headers and body): the deadline no longer runs, or, with
 * receiving set, the connection waits for its next request and the deadline starts again. */
static void watch_mark(struct web_server *srv, struct MHD_Connection *conn, int receiving)
{
	const union MHD_ConnectionInfo *info =
	    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	if (info && info->socket_context)
		web_watch_mark(srv->watch, info->socket_context, receiving);
}

/* conn's request line has arrived: from now on it is not idle (web_begin_stop leaves it be). */
static void watch_request(struct web_server *srv, struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *info =
	    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	if (info && info->socket_context)
		web_watch_request(srv->watch, info->socket_context);
}

/* What one connection carries between calls of the access handler. */
struct request {
	int started;		      /* the access handler has seen it */
	int too_many_params;	      /* the query had more than WEB_MAX_PARAMS parameters */
	const struct web_route *post; /* a route that takes a body; NULL: a GET (or HEAD) */
	int64_t id;		      /* the post route's {id} */
	struct strbuf body;
	int too_big;
	const struct web_token *token;
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
int web_pool_take(struct web_pooled *out, uint64_t *gen_out, struct web_server *srv,
		  enum web_pool kind, struct bl_error *err)
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
		if (kind != WEB_POOL_WRITE) {
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
void web_pool_give(struct web_server *srv, struct web_pooled *c, int wrote)
{
	struct pool *p = c->pool;
	if (!c->st)
		return;
	pthread_mutex_lock(&srv->lock);
	if (wrote)
		srv->gen++;
	p->idle[p->nidle++] = c->slot;
	pthread_cond_signal(&p->cond);
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

static size_t unescape_none(void *cls, struct MHD_Connection *c, char *s)
{
	(void)cls;
	(void)c;
	return strlen(s);
}

static enum MHD_Result send_reply(const struct web_server *srv, struct MHD_Connection *conn,
				  struct web_reply *r)
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
	/* Stopping: no connection is kept for another request. */
	if (atomic_load(&srv->stopping))
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
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
	web_reply_message(r, ctx, web_is_api(url), 501, msg.buf);
	strbuf_release(&msg);
	return BL_EINVALID;
}

static void reply_too_many_params(struct web_reply *r, const struct web_ctx *ctx, const char *url)
{
	struct strbuf msg = STRBUF_INIT;
	strbuf_addf(&msg, "too many query parameters (at most %d)", WEB_MAX_PARAMS);
	web_reply_message(r, ctx, web_is_api(url), 414, msg.buf);
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
	watch_request(cls, conn);
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

/* A route's 404 or 405: JSON under /api/, else a page (a plain-text 405). */
static void reply_no_route(struct web_reply *r, const struct web_ctx *ctx, const char *url,
			   const char *allow)
{
	int api = web_is_api(url);
	if (allow)
		r->allow = allow;
	if (!allow)
		web_reply_message(r, ctx, api, 404, api ? "no such route" : "Not found");
	else if (api)
		web_reply_json_error(r, 405, "method not allowed");
	else
		web_reply_text(r, 405, "method not allowed");
}

/* A page's parameters, decoded (each in its own buffer). */
struct page_args {
	struct strbuf q, from, to, x, side, id;
};

static void page_args_read(struct web_query *q, struct page_args *a, struct MHD_Connection *conn)
{
	q->q = web_page_arg(&a->q, conn, "q");
	q->from = web_page_arg(&a->from, conn, "from");
	q->to = web_page_arg(&a->to, conn, "to");
	q->x = web_page_arg(&a->x, conn, "x");
	q->side = web_page_arg(&a->side, conn, "side");
	q->id = web_page_arg(&a->id, conn, "id");
}

static void page_args_release(struct page_args *a)
{
	strbuf_release(&a->q);
	strbuf_release(&a->from);
	strbuf_release(&a->to);
	strbuf_release(&a->x);
	strbuf_release(&a->side);
	strbuf_release(&a->id);
}

/* The reply cache's key of a request: its path and its page's parameters. */
static void cache_key(struct strbuf *key, const struct web_request *req)
{
	cache_key_add(key, req->path);
	cache_key_add(key, req->q.q);
	cache_key_add(key, req->q.from);
	cache_key_add(key, req->q.to);
	cache_key_add(key, req->q.x);
	cache_key_add(key, req->q.side);
	cache_key_add(key, req->q.id);
}

/* Runs a GET route's handler on its pool's connection, from and into the reply cache when the
 * route is cached. */
static void run_get(struct web_server *srv, struct web_reply *r, struct web_request *req,
		    const struct web_route *rt)
{
	struct bl_error err = BL_ERROR_INIT;
	struct web_pooled db = {NULL, 0, NULL};
	struct strbuf key = STRBUF_INIT;
	uint64_t gen = 0, key_hash = 0;
	int api = web_is_api(req->path), ret;

	if (rt->pool != WEB_POOL_NONE && web_pool_take(&db, &gen, srv, rt->pool, &err)) {
		web_reply_failure(r, &srv->ctx, api, &err);
		goto done;
	}
	req->st = db.st;
	if (rt->flags & WEB_ROUTE_CACHED) {
		cache_key(&key, req);
		key_hash = web_hash(WEB_HASH_INIT, key.buf, key.len);
		if (web_reply_cache_get(srv->replies, r, key_hash, key.buf, key.len, gen))
			goto done;
	}
	ret = rt->fn(r, req, &err);
	if (ret && (rt->flags & WEB_ROUTE_CODES))
		web_reply_error(r, &srv->ctx, api, &err);
	else if (ret)
		web_reply_failure(r, &srv->ctx, api, &err);
	else if (rt->flags & WEB_ROUTE_CACHED)
		web_reply_cache_put(srv->replies, r, key_hash, key.buf, key.len, gen);
done:
	web_pool_give(srv, &db, 0);
	strbuf_release(&key);
	bl_error_release(&err);
}

/* A GET (or HEAD) with its whole request in: its route found, its page's parameters read,
 * and, for a chart's pool, a few charts at a time per client. */
static void route_get(struct web_server *srv, struct web_reply *r, struct MHD_Connection *conn,
		      const char *url, const char *method)
{
	struct web_request req;
	struct page_args args = {STRBUF_INIT, STRBUF_INIT, STRBUF_INIT,
				 STRBUF_INIT, STRBUF_INIT, STRBUF_INIT};
	const struct web_route *rt;
	const char *allow = NULL;
	char client[INET6_ADDRSTRLEN];

	memset(&req, 0, sizeof(req));
	rt = web_route_find(&req.rest, &req.id, &allow, url, method, srv->ctx.repo_dir != NULL);
	if (!rt) {
		reply_no_route(r, &srv->ctx, url, allow);
		return;
	}
	req.ctx = &srv->ctx;
	req.srv = srv;
	req.conn = conn;
	req.path = url;
	page_args_read(&req.q, &args, conn);
	if (rt->pool == WEB_POOL_CHART) {
		client_address(client, conn);
		chart_begin(srv, client);
	}
	run_get(srv, r, &req, rt);
	if (rt->pool == WEB_POOL_CHART)
		chart_end(srv, client);
	page_args_release(&args);
}

/* A POST with its whole body read: its route's handler, which takes the writer itself. */
static void route_post(struct web_server *srv, struct web_reply *r, struct request *rq,
		       struct MHD_Connection *conn, const char *url)
{
	struct web_request req;
	struct bl_error err = BL_ERROR_INIT;
	memset(&req, 0, sizeof(req));
	req.ctx = &srv->ctx;
	req.srv = srv;
	req.conn = conn;
	req.path = url;
	req.rest = "";
	req.id = rq->id;
	req.body = &rq->body;
	req.token = rq->token;
	if (rq->post->fn(r, &req, &err))
		web_reply_error(r, &srv->ctx, 1, &err);
	bl_error_release(&err);
}

/* The first call of a request with a body (a push or an outcome): its token and role, the
 * body's announced size. 0 to read the body, or an error answer already in r. */
static int body_request_start(struct web_server *srv, struct web_reply *r, struct request *req,
			      struct MHD_Connection *conn)
{
	const struct web_route *rt = req->post;
	const char *len_header;
	struct strbuf msg = STRBUF_INIT;
	if (!srv->have_token_file) {
		web_reply_json_error(r, 401,
				     rt->role == WEB_ROLE_PUSH
					 ? "pushing is off: the server has no --token-file"
					 : "confirming is off: the server has no --token-file");
		return -1;
	}
	req->token =
	    web_token_find(srv->tokens, srv->ntokens,
			   MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization"));
	if (!req->token) {
		web_reply_json_error(r, 401, "a valid bearer token is required");
		return -1;
	}
	if (!(req->token->roles & rt->role)) {
		strbuf_addf(&msg, "this token may not %s (its roles lack %s)", rt->verb,
			    rt->role == WEB_ROLE_PUSH ? "push" : "confirm");
		web_reply_json_error(r, 403, msg.buf);
		strbuf_release(&msg);
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

/* The first call of a request: 1 when it is answered already (an error, in r), else 0 (a
 * GET waits for its next call, a POST reads its body). A method a path that takes a body does
 * not allow is answered at once: its body is never read. */
static int request_first(struct web_server *srv, struct web_reply *r, struct request *req,
			 struct MHD_Connection *conn, const char *url, const char *method)
{
	const char *rest, *allow = NULL;
	const struct web_route *rt;
	req->started = 1;
	if (atomic_load(&srv->stopping)) {
		/* Answered on the first call: the connection closes after it. */
		web_reply_json_error(r, 503, "the server is stopping: try again later");
		r->retry_after_s = WEB_RETRY_AFTER;
		return 1;
	}
	if (req->too_many_params) {
		reply_too_many_params(r, &srv->ctx, url);
		return 1;
	}
	if (transfer_encoding_unknown(r, &srv->ctx, conn, url))
		return 1;
	rt = web_route_find(&rest, &req->id, &allow, url, method, srv->ctx.repo_dir != NULL);
	if (!rt && allow && strstr(allow, "POST")) {
		r->allow = allow;
		web_reply_json_error(r, 405, "method not allowed");
		return 1;
	}
	if (!rt || strcmp(rt->method, "POST"))
		return 0;
	req->post = rt;
	return body_request_start(srv, r, req, conn) ? 1 : 0;
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
		if (request_first(srv, &r, req, conn, url, method))
			goto answer_now;
		/* Answering on the first call would make libmicrohttpd close the connection (the
		 * body might be unread): GETs answer on the next call, keeping it alive. */
		strbuf_release(&r.body);
		return MHD_YES;
	}
	if (*upload_data_size) {
		/* A body on a GET is read and ignored. */
		if (req->post && !req->too_big && req->body.len + *upload_data_size <= WEB_MAX_BODY)
			strbuf_add(&req->body, upload_data, *upload_data_size);
		else if (req->post)
			req->too_big = 1;
		*upload_data_size = 0;
		strbuf_release(&r.body);
		return MHD_YES;
	}
	/* The whole request is in: what follows is the server's time, not the client's. */
	watch_mark(srv, conn, 0);
	if (!req->post)
		route_get(srv, &r, conn, url, method);
	else if (req->too_big)
		web_reply_json_error(&r, 413, "the body is over 16 MiB");
	else
		route_post(srv, &r, req, conn, url);
	goto send;
answer_now:
	/* answered before its body: the connection closes after the answer */
	watch_mark(srv, conn, 0);
send:
	ret = send_reply(srv, conn, &r);
	strbuf_release(&r.body);
	return ret;
}

void web_server_poke(struct web_server *srv)
{
	if (srv)
		web_background_poke(srv->bg);
}

json_t *web_server_status(struct web_server *srv)
{
	return web_background_status(srv->bg);
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
	web_watch_stop(srv->watch);
	/* The daemon is stopped: no request can ask for another run. */
	web_background_stop(srv->bg);
	for (int i = 0; i < WEB_POOLS; i++)
		pool_close(&srv->pools[i]);
	free(srv->charts);
	pthread_cond_destroy(&srv->charts_cond);
	web_reply_cache_free(srv->replies);
	web_tokens_free(srv->tokens, srv->ntokens);
	web_chart_cache_free(srv->ctx.cache);
	free(srv->base);
	pthread_mutex_destroy(&srv->lock);
	free(srv);
}

/* Where to listen: bind (an IPv4 or IPv6 address) and port in *la, IPv6 added to *flags;
 * NULL when bind is not an address. */
union listen_addr {
	struct sockaddr_in v4;
	struct sockaddr_in6 v6;
};

static struct sockaddr *listen_address(union listen_addr *la, unsigned *flags, const char *bind,
				       unsigned port)
{
	memset(la, 0, sizeof(*la));
	if (inet_pton(AF_INET, bind, &la->v4.sin_addr) == 1) {
		la->v4.sin_family = AF_INET;
		la->v4.sin_port = htons((uint16_t)port);
		return (struct sockaddr *)&la->v4;
	}
	memset(la, 0, sizeof(*la));
	if (inet_pton(AF_INET6, bind, &la->v6.sin6_addr) == 1) {
		la->v6.sin6_family = AF_INET6;
		la->v6.sin6_port = htons((uint16_t)port);
		*flags |= MHD_USE_IPv6;
		return (struct sockaddr *)&la->v6;
	}
	return NULL;
}

int web_start(struct web_server **out, const struct web_options *opts, struct bl_error *err)
{
	struct web_server *srv = xcalloc(1, sizeof(*srv));
	union listen_addr la;
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
	if (!(sa = listen_address(&la, &flags, bind, opts->port))) {
		ret = bl_error_set(err, BL_EINVALID, "--bind: not an IP address: %s", bind);
		goto done;
	}
	if (opts->token_file) {
		if ((ret = web_tokens_load(&srv->tokens, &srv->ntokens, opts->token_file, err)))
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
	if ((ret = pool_open(&srv->pools[WEB_POOL_READ], srv->opts.threads, &srv->opts, err)) ||
	    (ret = pool_open(&srv->pools[WEB_POOL_CHART], srv->opts.threads, &srv->opts, err)) ||
	    (ret = pool_open(&srv->pools[WEB_POOL_WRITE], 1, &srv->opts, err)))
		goto done;
	/* The watch first: libmicrohttpd tells it of every connection from the start. */
	if ((ret = web_background_start(&srv->bg, &srv->opts, err)) ||
	    (ret = web_watch_start(&srv->watch, srv->opts.request_deadline_s, err)))
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

void web_begin_stop(struct web_server *srv)
{
	if (!srv || atomic_exchange(&srv->stopping, 1))
		return;
	/* Stop accepting new connections, and refuse them at once rather than leave them
	 * waiting in the listening socket's queue until the server is gone: shut down, not
	 * closed, since libmicrohttpd's threads may still look at the descriptor until
	 * MHD_stop_daemon (web_stop closes it then). */
	srv->listen_fd = MHD_quiesce_daemon(srv->daemon);
	if (srv->listen_fd != MHD_INVALID_SOCKET)
		shutdown(srv->listen_fd, SHUT_RDWR);
	/* A kept-alive connection with no request in it is closed now, rather than taking a
	 * push over the next seconds; one whose request has begun gets its answer. */
	web_watch_close_idle(srv->watch);
}

void web_stop(struct web_server *srv)
{
	MHD_socket fd;
	struct timespec pause = {0, 20 * 1000 * 1000};
	unsigned waited_ms = 0, limit_ms;

	if (!srv)
		return;
	/* Stop accepting, close what is idle; let what is in flight finish. */
	web_begin_stop(srv);
	fd = srv->listen_fd;
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

/*
 * A benchline server over HTTP (push.h): the server named once, one request at a time on a
 * kept connection through libcurl, and POST /api/records with its retries.
 */
#include <curl/curl.h>
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ingest/push/push.h"

/* What a request collects from libcurl's callbacks. */
struct sink {
	struct strbuf *body;
	int too_big;
};

static size_t collect(char *data, size_t size, size_t n, void *userdata)
{
	struct sink *s = userdata;
	size_t len = size * n;
	if (s->body->len + len > PUSH_MAX_RESPONSE) {
		s->too_big = 1;
		return 0; /* libcurl stops the transfer */
	}
	strbuf_add(s->body, data, len);
	return len;
}

int push_token_parse(struct strbuf *out, const char *text, size_t len)
{
	size_t i = 0;
	while (i < len) {
		size_t start, end;
		while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r'))
			i++;
		start = i;
		while (i < len && text[i] != '\n' && text[i] != ' ' && text[i] != '\t' &&
		       text[i] != '\r')
			i++;
		end = i;
		while (i < len && text[i] != '\n')
			i++;
		i++; /* past the newline */
		if (end > start && text[start] != '#') {
			strbuf_add(out, text + start, end - start);
			return 0;
		}
	}
	return BL_EINVALID;
}

/* Checks a base URL with libcurl's own parser: http or https, a host, no query or fragment
 * (paths are appended to it). */
static int check_url(const char *url, struct bl_error *err)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL, *query = NULL, *fragment = NULL;
	struct strbuf shown = STRBUF_INIT;
	int ret = 0;

	if (!u)
		return bl_error_set(err, BL_EINVALID, "cannot parse URLs (libcurl)");
	strbuf_add_url_redacted(&shown, url);
	if (curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK || !host[0]) {
		ret = bl_error_set(err, BL_EINVALID,
				   "'%s' is not a URL (http://HOST[:PORT][/PATH])", shown.buf);
		goto done;
	}
	if (strcmp(scheme, "http") && strcmp(scheme, "https")) {
		ret = bl_error_set(err, BL_EINVALID, "'%s': a server URL is http:// or https://",
				   shown.buf);
		goto done;
	}
	if (curl_url_get(u, CURLUPART_QUERY, &query, 0) == CURLUE_OK ||
	    curl_url_get(u, CURLUPART_FRAGMENT, &fragment, 0) == CURLUE_OK)
		ret = bl_error_set(err, BL_EINVALID, "'%s': a server URL has no query or fragment",
				   shown.buf);
done:
	strbuf_release(&shown);
	curl_free(scheme);
	curl_free(host);
	curl_free(query);
	curl_free(fragment);
	curl_url_cleanup(u);
	return ret;
}

static int read_token(struct push_server *srv, const char *token_file, struct bl_error *err)
{
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT, tok = STRBUF_INIT;
	const char *home = getenv("HOME");
	int ret;

	if (!strncmp(token_file, "~/", 2) && home && *home)
		strbuf_addf(&path, "%s/%s", home, token_file + 2);
	else
		strbuf_addstr(&path, token_file);
	if ((ret = read_file_capped(&text, path.buf, PUSH_MAX_TOKEN_FILE, err))) {
		bl_error_prefix(err, "token file");
		goto done;
	}
	if (push_token_parse(&tok, text.buf, text.len)) {
		ret = bl_error_set(err, BL_EINVALID, "token file '%s' holds no token", path.buf);
		goto done;
	}
	srv->token = strbuf_detach(&tok, NULL);
done:
	strbuf_release(&path);
	strbuf_release(&text);
	strbuf_release(&tok);
	return ret;
}

int push_server_open(struct push_server **out, const char *url, const char *token_file,
		     struct bl_error *err)
{
	static int curl_ready;
	struct push_server *srv = NULL;
	size_t len;
	int ret;

	*out = NULL;
	if (!curl_ready) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT))
			return bl_error_set(err, BL_EIO, "cannot start libcurl");
		curl_ready = 1;
	}
	if ((ret = check_url(url, err)))
		return ret;
	srv = xcalloc(1, sizeof(*srv));
	len = strlen(url);
	while (len && url[len - 1] == '/')
		len--;
	srv->url = xstrndup(url, len);
	{
		struct strbuf shown = STRBUF_INIT;
		strbuf_add_url_redacted(&shown, srv->url);
		srv->shown = strbuf_detach(&shown, NULL);
	}
	srv->connect_timeout_ms = PUSH_CONNECT_TIMEOUT_MS;
	srv->timeout_ms = PUSH_TIMEOUT_MS;
	if (token_file && (ret = read_token(srv, token_file, err)))
		goto fail;
	if (!(srv->handle = curl_easy_init())) {
		ret = bl_error_set(err, BL_EIO, "cannot start libcurl");
		goto fail;
	}
	*out = srv;
	return 0;
fail:
	push_server_free(srv);
	return ret;
}

void push_server_free(struct push_server *srv)
{
	if (!srv)
		return;
	if (srv->handle)
		curl_easy_cleanup(srv->handle);
	if (srv->url) /* it may hold a password */
		memset(srv->url, 0, strlen(srv->url));
	free(srv->url);
	free(srv->shown);
	if (srv->token) {
		/* The token does not outlive its use in memory that is given back. */
		memset(srv->token, 0, strlen(srv->token));
		free(srv->token);
	}
	free(srv);
}

void push_response_init(struct push_response *r)
{
	r->status = 0;
	strbuf_init(&r->body, 0);
	strbuf_init(&r->content_type, 0);
	strbuf_init(&r->location, 0);
	r->retry_after_s = -1;
}

void push_response_release(struct push_response *r)
{
	strbuf_release(&r->body);
	strbuf_release(&r->content_type);
	strbuf_release(&r->location);
	r->status = 0;
	r->retry_after_s = -1;
}

int push_request(struct push_response *out, struct push_server *srv, const char *method,
		 const char *path_and_query, const char *body, size_t len, const char *content_type,
		 struct bl_error *err)
{
	CURL *h = srv->handle;
	struct curl_slist *headers = NULL;
	struct strbuf url = STRBUF_INIT, line = STRBUF_INIT, shown = STRBUF_INIT;
	char errbuf[CURL_ERROR_SIZE];
	struct sink sink = {&out->body, 0};
	curl_off_t retry_after = 0;
	char *info = NULL;
	CURLcode rc;
	long status = 0;
	int ret = 0;

	strbuf_reset(&out->body);
	strbuf_reset(&out->content_type);
	strbuf_reset(&out->location);
	out->status = 0;
	out->retry_after_s = -1;
	errbuf[0] = '\0';
	strbuf_addf(&url, "%s%s", srv->url, path_and_query);
	strbuf_addf(&shown, "%s%s", srv->shown, path_and_query);

	/* A reset keeps the connection, so one command's requests share it. */
	curl_easy_reset(h);
	curl_easy_setopt(h, CURLOPT_URL, url.buf);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(h, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, srv->connect_timeout_ms);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, srv->timeout_ms);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "benchline/" BENCHLINE_VERSION);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &sink);
	if (!strcmp(method, "GET")) {
		curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
	} else {
		if (strcmp(method, "POST"))
			curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
		curl_easy_setopt(h, CURLOPT_POST, 1L);
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, body ? body : "");
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(body ? len : 0));
	}
	strbuf_addf(&line, "Content-Type: %s", content_type ? content_type : "application/json");
	headers = curl_slist_append(headers, line.buf);
	/* No "Expect: 100-continue" round trip before a large body. */
	headers = curl_slist_append(headers, "Expect:");
	if (srv->token) {
		strbuf_reset(&line);
		strbuf_addf(&line, "Authorization: Bearer %s", srv->token);
		headers = curl_slist_append(headers, line.buf);
	}
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);

	rc = curl_easy_perform(h);
	if (sink.too_big) {
		ret = bl_error_set(err, BL_ETOOBIG, "the answer of '%s' is over %zu bytes",
				   shown.buf, PUSH_MAX_RESPONSE);
		goto done;
	}
	if (rc == CURLE_URL_MALFORMAT || rc == CURLE_UNSUPPORTED_PROTOCOL) {
		ret = bl_error_set(err, BL_EINVALID, "'%s': %s", shown.buf,
				   errbuf[0] ? errbuf : curl_easy_strerror(rc));
		goto done;
	}
	if (rc != CURLE_OK) {
		ret = bl_error_set(err, BL_EIO, "cannot reach '%s': %s", shown.buf,
				   errbuf[0] ? errbuf : curl_easy_strerror(rc));
		goto done;
	}
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	out->status = status;
	if (curl_easy_getinfo(h, CURLINFO_RETRY_AFTER, &retry_after) == CURLE_OK && retry_after > 0)
		out->retry_after_s = (double)retry_after;
	if (curl_easy_getinfo(h, CURLINFO_CONTENT_TYPE, &info) == CURLE_OK && info)
		strbuf_addstr(&out->content_type, info);
	/* Where a redirect points (libcurl resolves it; it is never followed). */
	if (curl_easy_getinfo(h, CURLINFO_REDIRECT_URL, &info) == CURLE_OK && info)
		strbuf_addstr(&out->location, info);
done:
	/* The header list holds the token: cleared before it is freed. */
	for (struct curl_slist *l = headers; l; l = l->next)
		memset(l->data, 0, strlen(l->data));
	curl_slist_free_all(headers);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, NULL);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, NULL);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, NULL);
	memset(line.buf, 0, line.len);
	strbuf_release(&line);
	memset(url.buf, 0, url.len);
	strbuf_release(&url);
	strbuf_release(&shown);
	return ret;
}

void push_retry_init(struct push_retry *r)
{
	r->retries = PUSH_RETRIES;
	r->base_delay_ms = PUSH_BASE_DELAY_MS;
}

long push_retry_delay_ms(const struct push_retry *r, int attempt, double retry_after_s)
{
	long delay = r->base_delay_ms > 0 ? r->base_delay_ms : 0;
	for (int i = 1; i < attempt && delay < PUSH_MAX_DELAY_MS * 1000L; i++)
		delay *= 2;
	if (retry_after_s > 0) {
		double asked = retry_after_s * 1000;
		if (asked > PUSH_MAX_DELAY_MS)
			asked = PUSH_MAX_DELAY_MS;
		if ((long)asked > delay)
			delay = (long)asked;
	}
	return delay;
}

int push_status_retryable(long status)
{
	return status == 0 || status == 408 || status == 429 || (status >= 500 && status <= 599);
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* The bytes of sb from start on made printable: control characters become '?'. */
static void add_printable(struct strbuf *sb, size_t start)
{
	for (size_t i = start; i < sb->len; i++)
		if ((unsigned char)sb->buf[i] < 0x20 || sb->buf[i] == 0x7f)
			sb->buf[i] = '?';
}

/* The server's message in an answer: its JSON "error", else its text, one line, control
 * characters made '?', at most 300 bytes. */
static void add_answer_message(struct strbuf *sb, const struct push_response *r)
{
	json_t *j = json_loadb(r->body.buf, r->body.len, 0, NULL);
	const char *msg = NULL;
	size_t len, start = sb->len;

	if (json_is_object(j) && json_is_string(json_object_get(j, "error")))
		msg = json_string_value(json_object_get(j, "error"));
	else
		msg = r->body.buf;
	len = strlen(msg);
	while (len && (msg[len - 1] == '\n' || msg[len - 1] == '\r' || msg[len - 1] == ' '))
		len--;
	if (len > 300)
		len = 300;
	strbuf_add(sb, msg, len);
	add_printable(sb, start);
	if (sb->len == start)
		strbuf_addstr(sb, "(no message)");
	json_decref(j);
}

int push_request_retrying(struct push_response *out, struct push_server *srv,
			  const struct push_retry *retry, const char *name, const char *method,
			  const char *path_and_query, const char *body, size_t len,
			  struct bl_error *err)
{
	struct strbuf msg = STRBUF_INIT;
	int attempts = 0, ret = 0;

	for (int attempt = 0; attempt <= retry->retries; attempt++) {
		if (attempt)
			sleep_ms(push_retry_delay_ms(retry, attempt, out->retry_after_s));
		attempts++;
		if (err)
			bl_error_clear(err);
		ret = push_request(out, srv, method, path_and_query, body, len, NULL, err);
		if (ret == BL_EIO)
			continue; /* no answer: try again */
		if (ret) {
			bl_error_prefix(err, "%s", name);
			goto done;
		}
		if (out->status >= 200 && out->status <= 299)
			goto done;
		if (out->status >= 300 && out->status <= 399) {
			/* A proxy sending http to https, a moved server: following would post the
			 * body to a place nobody named, so it waits in the spool for a --server
			 * that is right. */
			strbuf_reset(&msg);
			strbuf_add_url_redacted(&msg,
						out->location.len ? out->location.buf : "nowhere");
			add_printable(&msg, msg.len);
			ret = bl_error_set(err, BL_EIO, "%s: redirected to %s: not followed", name,
					   msg.buf);
			goto done;
		}
		strbuf_reset(&msg);
		add_answer_message(&msg, out);
		if (push_status_retryable(out->status)) {
			ret = bl_error_set(err, BL_EIO, "'%s' answered %ld: %s", srv->shown,
					   out->status, msg.buf);
			continue;
		}
		if (out->status < 400 || out->status > 499) {
			/* Not an HTTP status benchline's server answers: not a refusal. */
			strbuf_reset(&msg);
			push_answer_describe(&msg, out);
			ret = bl_error_set(err, BL_EIO,
					   "%s: the server's answer is not benchline's (%s)", name,
					   msg.buf);
			goto done;
		}
		/* The server names the body "request" where the command names its file. */
		if (!strncmp(msg.buf, "request:", 8))
			ret = bl_error_set(err, BL_EDENIED, "%s%s (the server answered %ld)", name,
					   msg.buf + 7, out->status);
		else
			ret = bl_error_set(err, BL_EDENIED, "%s: the server answered %ld: %s", name,
					   out->status, msg.buf);
		goto done;
	}
	bl_error_prefix(err, "%s: not acknowledged after %d attempt%s", name, attempts,
			attempts == 1 ? "" : "s");
done:
	strbuf_release(&msg);
	return ret;
}

/* Whether a 2xx answer to a body of records acknowledges it: benchline's outcome list, one
 * outcome per record, numbered 1 to N in order. 0, or BL_EIO saying what came back. */
static int check_acknowledged(const struct push_response *r, const char *name, const char *body,
			      size_t len, struct bl_error *err)
{
	struct strbuf what = STRBUF_INIT;
	json_t *rows = NULL, *row;
	size_t n, i;
	int ret = 0;

	push_answer_describe(&what, r);
	if (push_answer_outcomes(&rows, r->body.buf, r->body.len, NULL)) {
		ret = bl_error_set(err, BL_EIO, "%s: the server's answer is not benchline's (%s)",
				   name, what.buf);
		goto done;
	}
	if (push_body_records(&n, body, len)) {
		/* A benchline server refuses what it cannot read: a 2xx to it is another's. */
		ret = bl_error_set(err, BL_EIO,
				   "%s: the server answered %ld to a body that is not records (%s)",
				   name, r->status, what.buf);
		goto done;
	}
	if (json_array_size(rows) != n) {
		ret = bl_error_set(
		    err, BL_EIO, "%s: the server answered %ld with %zu outcome%s for %zu record%s",
		    name, r->status, json_array_size(rows), json_array_size(rows) == 1 ? "" : "s",
		    n, n == 1 ? "" : "s");
		goto done;
	}
	json_array_foreach (rows, i, row) {
		if (json_integer_value(json_object_get(row, "record")) != (json_int_t)i + 1) {
			ret =
			    bl_error_set(err, BL_EIO,
					 "%s: the server's outcomes are not those of records 1 to "
					 "%zu in order (%s)",
					 name, n, what.buf);
			goto done;
		}
	}
done:
	json_decref(rows);
	strbuf_release(&what);
	return ret;
}

int push_records(struct push_response *out, struct push_server *srv, const struct push_retry *retry,
		 const char *name, const char *body, size_t len, struct bl_error *err)
{
	int ret;
	if (!len || len > PUSH_MAX_BODY)
		return bl_error_set(err, BL_ETOOBIG, "%s: %zu bytes: a body is 1 byte to %zu", name,
				    len, PUSH_MAX_BODY);
	if ((ret = push_request_retrying(out, srv, retry, name, "POST", "/api/records", body, len,
					 err)))
		return ret;
	return check_acknowledged(out, name, body, len, err);
}

/* Past JSON's whitespace. */
static size_t skip_ws(const char *s, size_t len, size_t pos)
{
	while (pos < len && (s[pos] == ' ' || s[pos] == '\t' || s[pos] == '\n' || s[pos] == '\r'))
		pos++;
	return pos;
}

int push_body_records(size_t *n, const char *body, size_t len)
{
	size_t pos = 0;
	json_error_t e;
	json_t *v;

	*n = 0;
	if (len >= 3 && !memcmp(body, "\xEF\xBB\xBF", 3))
		pos = 3; /* a byte order mark, as the native parser skips it */
	pos = skip_ws(body, len, pos);
	if (pos == len)
		return BL_EINVALID;
	if (body[pos] == '[') {
		/* One array, and nothing after it. */
		v = json_loadb(body + pos, len - pos, 0, &e);
		if (!json_is_array(v)) {
			json_decref(v);
			return BL_EINVALID;
		}
		*n = json_array_size(v);
		json_decref(v);
		return 0;
	}
	while (pos < len) {
		v = json_loadb(body + pos, len - pos, JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK, &e);
		if (!v || e.position <= 0) {
			json_decref(v);
			*n = 0;
			return BL_EINVALID;
		}
		json_decref(v);
		(*n)++;
		pos = skip_ws(body, len, pos + (size_t)e.position);
	}
	return 0;
}

void push_answer_describe(struct strbuf *out, const struct push_response *r)
{
	size_t type = strcspn(r->content_type.buf, ";");
	while (type && r->content_type.buf[type - 1] == ' ')
		type--;
	strbuf_addf(out, "%ld, ", r->status);
	if (type) {
		size_t start = out->len;
		strbuf_add(out, r->content_type.buf, type > 80 ? 80 : type);
		add_printable(out, start);
	} else {
		strbuf_addstr(out, "no content type");
	}
	strbuf_addf(out, ", %zu byte%s", r->body.len, r->body.len == 1 ? "" : "s");
}

int push_answer_outcomes(json_t **out, const char *answer, size_t len, struct bl_error *err)
{
	static const char *const strings[] = {"machine", "benchmark", "config", "source_hash",
					      "outcome"};
	static const char *const integers[] = {"record", "id", "harness_version"};
	json_t *arr = json_loadb(answer, len, 0, NULL), *row;
	enum ingest_outcome o;
	size_t i;

	*out = NULL;
	if (!json_is_array(arr))
		goto bad;
	json_array_foreach (arr, i, row) {
		if (!json_is_object(row) || !json_is_boolean(json_object_get(row, "baseline")))
			goto bad;
		for (size_t k = 0; k < sizeof(strings) / sizeof(*strings); k++)
			if (!json_is_string(json_object_get(row, strings[k])))
				goto bad;
		for (size_t k = 0; k < sizeof(integers) / sizeof(*integers); k++)
			if (!json_is_integer(json_object_get(row, integers[k])))
				goto bad;
		if (ingest_outcome_parse(&o, json_string_value(json_object_get(row, "outcome"))))
			goto bad;
	}
	*out = arr;
	return 0;
bad:
	json_decref(arr);
	return bl_error_set(err, BL_EINVALID,
			    "the server's answer is not a list of outcomes (%zu bytes)", len);
}

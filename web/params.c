/*
 * Query parameters: the API's, checked strictly (an unknown one, or a value that is not what
 * it should be, is a 400 naming it), and a page's, read leniently (a malformed one is as if it
 * were not given).
 */
#include <ctype.h>
#include <errno.h>
#include <microhttpd.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/ingest.h"
#include "web/web.h"

/* Values longer than this are refused (the API) or ignored (a page). */
#define PARAM_MAX 4096

const char *web_page_arg(struct strbuf *out, struct MHD_Connection *conn, const char *key)
{
	const char *raw = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, key);
	if (!raw)
		return NULL;
	strbuf_reset(out);
	if (strlen(raw) > PARAM_MAX || web_percent_decode(out, raw, strlen(raw), 1) ||
	    !utf8_valid(out->buf, out->len))
		return NULL;
	return out->buf;
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

int web_check_params(struct web_reply *r, const struct web_request *req, const char *const *known)
{
	struct param_check c = {known, STRBUF_INIT, 0};
	struct strbuf msg = STRBUF_INIT;
	if (req->conn)
		MHD_get_connection_values(req->conn, MHD_GET_ARGUMENT_KIND, check_param, &c);
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
 * UTF-8 of at most PARAM_MAX bytes. */
static int api_param(const char **out, struct strbuf *buf, struct web_reply *r,
		     const struct web_request *req, const char *key)
{
	const char *raw = NULL;
	size_t len = 0;
	*out = NULL;
	strbuf_reset(buf);
	if (!req->conn || MHD_lookup_connection_value_n(req->conn, MHD_GET_ARGUMENT_KIND, key,
							strlen(key), &raw, &len) != MHD_YES)
		return 0;
	if (raw && (len > PARAM_MAX || web_percent_decode(buf, raw, len, 1) ||
		    !utf8_valid(buf->buf, buf->len))) {
		struct strbuf msg = STRBUF_INIT;
		strbuf_addf(&msg, "%s: not percent-encoded UTF-8 of at most %d bytes", key,
			    PARAM_MAX);
		web_reply_json_error(r, 400, msg.buf);
		strbuf_release(&msg);
		return BL_EINVALID;
	}
	*out = buf->buf;
	return 1;
}

int web_param_bad(struct web_reply *r, const char *key, const char *value, const char *want)
{
	struct strbuf msg = STRBUF_INIT;
	strbuf_addf(&msg, "%s: '%s' is not %s", key, value, want);
	web_reply_json_error(r, 400, msg.buf);
	strbuf_release(&msg);
	return BL_EINVALID;
}

/* machine=NAME: a machine name (§1). */
int web_param_machine(const char **out, struct strbuf *buf, struct web_reply *r,
		      const struct web_request *req, const char *key)
{
	int ret = api_param(out, buf, r, req, key);
	if (ret == 1 && !machine_name_valid(*out))
		return web_param_bad(r, key, *out, "a machine name ([A-Za-z0-9._-], 1 to 64)");
	return ret < 0 ? ret : 0;
}

/* A name (benchmark=, config=): any string, "" meaning not given for a filter. */
int web_param_string(const char **out, struct strbuf *buf, struct web_reply *r,
		     const struct web_request *req, const char *key)
{
	int ret = api_param(out, buf, r, req, key);
	return ret < 0 ? ret : 0;
}

/* commit= and source_hash= as filters: 4 to 40 hex digits, a prefix, kept in lowercase. */
int web_param_hex_prefix(const char **out, struct strbuf *buf, struct web_reply *r,
			 const struct web_request *req, const char *key)
{
	int ret = api_param(out, buf, r, req, key);
	if (ret <= 0)
		return ret;
	if (buf->len < 4 || buf->len > 40 || strspn(buf->buf, "0123456789abcdefABCDEF") != buf->len)
		return web_param_bad(r, key, *out, "4 to 40 hex digits");
	for (size_t i = 0; i < buf->len; i++)
		buf->buf[i] = (char)tolower((unsigned char)buf->buf[i]);
	return 0;
}

/* An integer in [min, max]; *out keeps its value when the parameter is absent. */
int web_param_int(int64_t *out, struct web_reply *r, const struct web_request *req, const char *key,
		  int64_t min, int64_t max)
{
	struct strbuf buf = STRBUF_INIT, want = STRBUF_INIT;
	const char *v;
	char *end;
	long long n;
	int ret = api_param(&v, &buf, r, req, key);
	if (ret == 1) {
		errno = 0;
		n = strtoll(v, &end, 10);
		if (!*v || *end || errno || n < min || n > max || !isdigit((unsigned char)*v)) {
			strbuf_addf(&want, "an integer from %lld to %lld", (long long)min,
				    (long long)max);
			ret = web_param_bad(r, key, v, want.buf);
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
int web_param_bool(int *out, struct web_reply *r, const struct web_request *req, const char *key)
{
	struct strbuf buf = STRBUF_INIT;
	const char *v;
	int ret = api_param(&v, &buf, r, req, key);
	if (ret == 1) {
		ret = 0;
		if (!*v || !strcmp(v, "1") || !strcmp(v, "true"))
			*out = 1;
		else if (!strcmp(v, "0") || !strcmp(v, "false"))
			*out = 0;
		else
			ret = web_param_bad(r, key, v, "1 or 0");
	}
	strbuf_release(&buf);
	return ret < 0 ? ret : 0;
}

/*
 * Small helpers of the web module: HTML escaping, percent-decoding, a hash for ETags, JSON
 * and text replies, JSON lists as the CLI prints them, the reply cache.
 */
#include <jansson.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "web/web.h"

size_t web_utf8_char(const unsigned char *s, uint32_t *cp)
{
	unsigned c = s[0];
	size_t n;
	*cp = c;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, *cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, *cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, *cp = c & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && *cp < 0x800) || (n == 4 && (*cp < 0x10000 || *cp > 0x10ffff)) ||
	    (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return n;
}

void web_html_escape(struct strbuf *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (p && *p) {
		uint32_t cp;
		size_t n;
		switch (*p) {
		case '&':
			strbuf_addstr(out, "&amp;");
			break;
		case '<':
			strbuf_addstr(out, "&lt;");
			break;
		case '>':
			strbuf_addstr(out, "&gt;");
			break;
		case '"':
			strbuf_addstr(out, "&quot;");
			break;
		case '\'':
			strbuf_addstr(out, "&#39;");
			break;
		case '\t':
		case '\n':
		case '\r':
			strbuf_addch(out, (char)*p);
			break;
		default:
			/* A C0 control, or what is not a character of XML (bytes that are not
			 * UTF-8 among them), is U+FFFD: no name or subject can make a page or a
			 * chart invalid (§13). */
			n = *p < 0x20 ? 0 : web_utf8_char(p, &cp);
			if (!n || cp == 0xfffe || cp == 0xffff)
				strbuf_addstr(out, "\xef\xbf\xbd");
			else
				strbuf_add(out, p, n);
			p += n ? n : 1;
			continue;
		}
		p++;
	}
}

/* What web_scrub names a server string by. */
struct scrubbed {
	const char *text, *as;
};

void web_scrub(struct strbuf *out, const struct web_options *opts, const char *msg)
{
	struct scrubbed names[5];
	char *shown = NULL;
	size_t n = 0, start = out->len;

	if (opts && opts->db_path && *opts->db_path) {
		shown = store_name_of_path(opts->db_path);
		names[n++] = (struct scrubbed){opts->db_path, "the database"};
		names[n++] = (struct scrubbed){shown, "the database"};
	}
	if (opts && opts->repo_dir && *opts->repo_dir)
		names[n++] = (struct scrubbed){opts->repo_dir, "the server's repository"};
	if (opts && opts->gnuplot && strchr(opts->gnuplot, '/'))
		names[n++] = (struct scrubbed){opts->gnuplot, "gnuplot"};
	for (const char *p = msg; p && *p;) {
		size_t best = 0;
		const char *as = NULL;
		/* A name where messages put one: quoted, or after a blank or at the start; and
		 * whole, or followed by a path or a port. The longest wins. */
		int starts = p == msg || p[-1] == '\'' || p[-1] == ' ';
		for (size_t i = 0; starts && i < n; i++) {
			size_t len = strlen(names[i].text);
			/* p[len] is read only once p holds all len bytes of the name. */
			if (len > best && !strncmp(p, names[i].text, len) &&
			    (!p[len] || strchr("'/: ,;)\n\t", p[len]))) {
				best = len;
				as = names[i].as;
			}
		}
		if (!best) {
			strbuf_addch(out, *p++);
			continue;
		}
		if (out->len > start && out->buf[out->len - 1] == '\'' && p[best] == '\'') {
			strbuf_setlen(out, out->len - 1); /* 'NAME' is said without its quotes */
			best++;
		}
		strbuf_addstr(out, as);
		p += best;
	}
	free(shown);
}

void web_log(const struct web_options *opts, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	if (!opts || !opts->log)
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	opts->log(sb.buf, opts->log_data);
	strbuf_release(&sb);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int web_percent_decode(struct strbuf *out, const char *s, size_t len, int plus)
{
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (c == '%') {
			int hi, lo;
			if (i + 2 >= len)
				return BL_EINVALID;
			hi = hexval(s[i + 1]);
			lo = hexval(s[i + 2]);
			if (hi < 0 || lo < 0)
				return BL_EINVALID;
			c = (char)(hi * 16 + lo);
			i += 2;
		} else if (c == '+' && plus) {
			c = ' ';
		}
		if (c == '\0')
			return BL_EINVALID;
		strbuf_addch(out, c);
	}
	return 0;
}

uint64_t web_hash(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;
	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

void web_reply_json(struct web_reply *r, int status, json_t *o)
{
	strbuf_reset(&r->body);
	if (json_write(&r->body, o, 0))
		strbuf_addstr(&r->body, "null");
	strbuf_addch(&r->body, '\n');
	json_decref(o);
	r->status = status;
	r->type = "application/json";
}

void web_reply_json_error(struct web_reply *r, int status, const char *msg)
{
	web_reply_json(r, status, json_pack("{s:s}", "error", msg));
	r->has_etag = 0;
}

void web_reply_text(struct web_reply *r, int status, const char *msg)
{
	strbuf_reset(&r->body);
	strbuf_addstr(&r->body, msg);
	strbuf_addch(&r->body, '\n');
	r->status = status;
	r->type = "text/plain; charset=utf-8";
	r->has_etag = 0;
}

void web_json_list_add(struct web_json_list *l, json_t *o)
{
	char *text = json_write_text(o, 0);
	strbuf_addstr(l->out, l->count++ ? ",\n" : "\n");
	strbuf_addstr(l->out, text ? text : "null");
	free(text);
	json_decref(o);
}

int web_json_list(struct web_reply *r, struct store *st, const void *filter, web_json_each_fn *each,
		  struct bl_error *err)
{
	struct web_json_list l = {&r->body, 0, st, filter, NULL, err, 0};
	int ret;
	strbuf_addch(&r->body, '[');
	ret = each(&l);
	if (!ret && l.failed)
		ret = err->code ? err->code : BL_EDB;
	if (ret)
		return ret;
	strbuf_addstr(&r->body, l.count ? "\n]\n" : "]\n");
	r->status = 200;
	r->type = "application/json";
	return 0;
}

struct cached_reply {
	uint64_t hash, gen;
	char *key; /* NULL: an empty slot */
	size_t key_len;
	int status, has_etag;
	const char *type;
	uint64_t etag;
	char *body;
	size_t len;
};

struct web_reply_cache {
	pthread_mutex_t lock;
	struct cached_reply *slots;
	size_t nslots, next;
};

struct web_reply_cache *web_reply_cache_new(size_t slots)
{
	struct web_reply_cache *c = xcalloc(1, sizeof(*c));
	pthread_mutex_init(&c->lock, NULL);
	c->nslots = slots ? slots : 1;
	c->slots = xcalloc(c->nslots, sizeof(*c->slots));
	return c;
}

void web_reply_cache_free(struct web_reply_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nslots; i++) {
		free(c->slots[i].key);
		free(c->slots[i].body);
	}
	free(c->slots);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

int web_reply_cache_get(struct web_reply_cache *c, struct web_reply *r, uint64_t hash,
			const char *key, size_t key_len, uint64_t gen)
{
	int hit = 0;
	pthread_mutex_lock(&c->lock);
	for (size_t i = 0; i < c->nslots; i++) {
		const struct cached_reply *e = &c->slots[i];
		if (!e->key || e->hash != hash || e->gen != gen || e->key_len != key_len ||
		    memcmp(e->key, key, key_len))
			continue;
		strbuf_add(&r->body, e->body, e->len);
		r->status = e->status;
		r->type = e->type;
		r->etag = e->etag;
		r->has_etag = e->has_etag;
		hit = 1;
		break;
	}
	pthread_mutex_unlock(&c->lock);
	return hit;
}

void web_reply_cache_put(struct web_reply_cache *c, const struct web_reply *r, uint64_t hash,
			 const char *key, size_t key_len, uint64_t gen)
{
	struct cached_reply *e;
	if (r->status != 200 || r->body.len > WEB_REPLY_CACHE_MAX_BODY)
		return;
	pthread_mutex_lock(&c->lock);
	e = &c->slots[c->next];
	c->next = (c->next + 1) % c->nslots;
	free(e->key);
	free(e->body);
	e->hash = hash;
	e->gen = gen;
	e->key = xmalloc(key_len ? key_len : 1);
	memcpy(e->key, key, key_len);
	e->key_len = key_len;
	e->status = r->status;
	e->type = r->type;
	e->etag = r->etag;
	e->has_etag = r->has_etag;
	e->len = r->body.len;
	e->body = xmalloc(r->body.len + 1);
	memcpy(e->body, r->body.buf, r->body.len + 1);
	pthread_mutex_unlock(&c->lock);
}

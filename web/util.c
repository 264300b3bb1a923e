/*
 * Small helpers of the web module: HTML escaping, percent-decoding, a hash for ETags, JSON
 * error replies.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "web/web.h"

void web_html_escape(struct strbuf *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
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
		default:
			strbuf_addch(out, *s);
		}
	}
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

void web_reply_json_error(struct web_reply *r, int status, const char *msg)
{
	json_t *o = json_object();
	char *text;
	json_object_set_new(o, "error", json_string(msg));
	text = json_dumps(o, JSON_COMPACT);
	strbuf_reset(&r->body);
	strbuf_addstr(&r->body, text ? text : "{}");
	strbuf_addch(&r->body, '\n');
	free(text);
	json_decref(o);
	r->status = status;
	r->type = "application/json";
	r->has_etag = 0;
}

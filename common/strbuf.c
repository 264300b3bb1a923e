#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"

char strbuf_slopbuf[1];

void strbuf_init(struct strbuf *sb, size_t hint)
{
	sb->alloc = 0;
	sb->len = 0;
	sb->buf = strbuf_slopbuf;
	if (hint)
		strbuf_grow(sb, hint);
}

void strbuf_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	strbuf_init(sb, 0);
}

void strbuf_reset(struct strbuf *sb)
{
	strbuf_setlen(sb, 0);
}

char *strbuf_detach(struct strbuf *sb, size_t *len)
{
	char *out;
	if (!sb->alloc)
		strbuf_grow(sb, 0);
	out = sb->buf;
	if (len)
		*len = sb->len;
	strbuf_init(sb, 0);
	return out;
}

void strbuf_grow(struct strbuf *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;
	int fresh = !sb->alloc;
	if (need < sb->len)
		abort(); /* size_t overflow */
	if (need <= sb->alloc)
		return;
	size_t alloc = sb->alloc < 32 ? 32 : sb->alloc;
	while (alloc < need)
		alloc = alloc / 2 * 3 + 16;
	sb->buf = xrealloc(fresh ? NULL : sb->buf, alloc);
	if (fresh)
		sb->buf[0] = '\0';
	sb->alloc = alloc;
}

void strbuf_setlen(struct strbuf *sb, size_t len)
{
	if (!sb->alloc) {
		if (len)
			abort();
		return;
	}
	sb->len = len;
	sb->buf[len] = '\0';
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	if (!len)
		return;
	strbuf_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, char c)
{
	strbuf_grow(sb, 1);
	sb->buf[sb->len++] = c;
	sb->buf[sb->len] = '\0';
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list copy;
	int n;
	strbuf_grow(sb, 64);
	va_copy(copy, ap);
	n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, copy);
	va_end(copy);
	if (n < 0)
		abort();
	if ((size_t)n >= sb->alloc - sb->len) {
		strbuf_grow(sb, (size_t)n);
		n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
	}
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void strbuf_add_json_string(struct strbuf *sb, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	strbuf_addch(sb, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			strbuf_addstr(sb, "\\\"");
			break;
		case '\\':
			strbuf_addstr(sb, "\\\\");
			break;
		case '\n':
			strbuf_addstr(sb, "\\n");
			break;
		case '\r':
			strbuf_addstr(sb, "\\r");
			break;
		case '\t':
			strbuf_addstr(sb, "\\t");
			break;
		default:
			if (*p < 0x20) {
				strbuf_addstr(sb, "\\u00");
				strbuf_addch(sb, hex[*p >> 4]);
				strbuf_addch(sb, hex[*p & 15]);
			} else {
				strbuf_addch(sb, (char)*p);
			}
		}
	}
	strbuf_addch(sb, '"');
}

void strbuf_add_markdown(struct strbuf *sb, const char *s)
{
	for (; s && *s; s++) {
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			strbuf_addch(sb, ' ');
		else if (strchr("\\`*_[]<>|~@&", *s))
			strbuf_addf(sb, "\\%c", *s);
		else
			strbuf_addch(sb, *s);
	}
}

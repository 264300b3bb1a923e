#include <stdint.h>
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

void strbuf_add_int64(struct strbuf *sb, int64_t v)
{
	char digits[20];
	/* the magnitude as unsigned, so that INT64_MIN has one */
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	size_t n = 0;
	do {
		digits[sizeof(digits) - ++n] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		strbuf_addch(sb, '-');
	strbuf_add(sb, digits + sizeof(digits) - n, n);
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

/* The edit distance of a and b (an insertion, deletion, change or swap of two neighbours
 * counts one), at most 64 characters of each. */
static size_t edit_distance(const char *a, size_t na, const char *b, size_t nb)
{
	size_t d[65][65];
	if (na > 64)
		na = 64;
	if (nb > 64)
		nb = 64;
	for (size_t i = 0; i <= na; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= nb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= na; i++) {
		for (size_t j = 1; j <= nb; j++) {
			size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	}
	return d[na][nb];
}

/* Is candidate near enough to what was typed to suggest it? Two edits, one for short names. */
static size_t near_miss(const char *typed, size_t len, const char *candidate)
{
	size_t d = edit_distance(typed, len, candidate, strlen(candidate));
	size_t most = len < 5 ? 1 : 2;
	return d <= most ? d : SIZE_MAX;
}

void strbuf_add_suggestion(struct strbuf *sb, const char *prefix, const char *typed, size_t len,
			   const char *const *names, size_t n)
{
	size_t best = SIZE_MAX, shown = 0;
	for (size_t i = 0; i < n; i++) {
		size_t d = near_miss(typed, len, names[i]);
		if (d < best)
			best = d;
	}
	if (best == SIZE_MAX)
		return;
	for (size_t i = 0; i < n; i++) {
		if (near_miss(typed, len, names[i]) != best)
			continue;
		strbuf_addf(sb, "%s'%s%s'", shown ? " or " : "; did you mean ", prefix, names[i]);
		shown++;
	}
	strbuf_addch(sb, '?');
}

void bl_note(void (*fn)(const char *line, void *data), void *data, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	if (!fn)
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	fn(sb.buf, data);
	strbuf_release(&sb);
}

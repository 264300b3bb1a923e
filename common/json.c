/*
 * The JSON values every report needs and jansson lacks: a number or a string that may be
 * missing, written as null then (NAN and the infinities are not JSON numbers).
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"

json_t *json_real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *json_string_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

int strbuf_add_json_scalar(struct strbuf *sb, const json_t *v, unsigned double_flags)
{
	switch (json_typeof(v)) {
	case JSON_STRING:
		strbuf_add_json_string(sb, json_string_value(v));
		return 0;
	case JSON_INTEGER:
		strbuf_addf(sb, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return 0;
	case JSON_REAL:
		strbuf_add_double(sb, json_real_value(v), double_flags);
		return 0;
	case JSON_TRUE:
		strbuf_addstr(sb, "true");
		return 0;
	case JSON_FALSE:
		strbuf_addstr(sb, "false");
		return 0;
	case JSON_NULL:
		strbuf_addstr(sb, "null");
		return 0;
	case JSON_OBJECT:
	case JSON_ARRAY:
		break;
	}
	return -1;
}

json_t *json_time_or_null(double t)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *j;
	if (isnan(t))
		return json_null();
	format_rfc3339_utc(&sb, (int64_t)t);
	j = json_string(sb.buf);
	strbuf_release(&sb);
	return j;
}

/* A key of an object being written, with its value, for sorting. */
struct member {
	const char *key;
	size_t len;
	json_t *value;
};

static int member_cmp(const void *a, const void *b)
{
	const struct member *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->key, y->key, n);
	if (c)
		return c;
	return (x->len > y->len) - (x->len < y->len);
}

/* A string's JSON literal as jansson writes it: \" \\ \b \f \n \r \t, other control
 * characters as \u00XX, everything else (valid UTF-8) as it is. */
static void add_string(struct strbuf *sb, const char *s, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t run = 0;

	strbuf_addch(sb, '"');
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *esc = NULL;
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		strbuf_add(sb, s + run, i - run);
		run = i + 1;
		switch (c) {
		case '"':
			esc = "\\\"";
			break;
		case '\\':
			esc = "\\\\";
			break;
		case '\b':
			esc = "\\b";
			break;
		case '\f':
			esc = "\\f";
			break;
		case '\n':
			esc = "\\n";
			break;
		case '\r':
			esc = "\\r";
			break;
		case '\t':
			esc = "\\t";
			break;
		}
		if (esc) {
			strbuf_addstr(sb, esc);
		} else {
			char u[7] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], '\0'};
			strbuf_add(sb, u, 6);
		}
	}
	strbuf_add(sb, s + run, len - run);
	strbuf_addch(sb, '"');
}

static void add_real(struct strbuf *sb, double v, unsigned flags)
{
	char buf[DOUBLE_TEXT_MAX + 4];
	int len;

	if (!(flags & JSON_WRITE_CANONICAL)) {
		strbuf_addstr(sb, format_double(buf, v, DOUBLE_POINT_ZERO));
		return;
	}
	len = format_double_g17(buf, v);
	if (!memchr(buf, '.', (size_t)len) && !memchr(buf, 'e', (size_t)len)) {
		memcpy(buf + len, ".0", 3);
		len += 2;
	} else {
		/* "1e+20" as 1e20, "1e-05" as 1e-5 */
		char *e = memchr(buf, 'e', (size_t)len), *from, *to;
		if (e) {
			to = e + 1;
			from = to;
			if (*from == '+')
				from++;
			else if (*from == '-')
				from = ++to;
			while (*from == '0' && from[1])
				from++;
			memmove(to, from, (size_t)(buf + len + 1 - from));
			len -= (int)(from - to);
		}
	}
	strbuf_add(sb, buf, (size_t)len);
}

static void add_newline(struct strbuf *sb, unsigned flags, int depth)
{
	if (!(flags & JSON_WRITE_INDENT))
		return;
	strbuf_addch(sb, '\n');
	for (int i = 0; i < depth; i++)
		strbuf_add(sb, "  ", 2);
}

static int write_value(struct strbuf *sb, const json_t *v, unsigned flags, int depth)
{
	char num[32];
	int ret = 0;

	switch (json_typeof(v)) {
	case JSON_OBJECT: {
		size_t n = json_object_size(v), i = 0;
		struct member stack[32], *m = n <= 32 ? stack : xcalloc(n, sizeof(*m));
		const char *key;
		json_t *value;
		void *iter;

		for (iter = json_object_iter((json_t *)v); iter && i < n;
		     iter = json_object_iter_next((json_t *)v, iter), i++) {
			key = json_object_iter_key(iter);
			value = json_object_iter_value(iter);
			m[i].key = key;
			m[i].len = json_object_iter_key_len(iter);
			m[i].value = value;
		}
		n = i;
		if (flags & (JSON_WRITE_SORT_KEYS | JSON_WRITE_CANONICAL) && n > 1)
			qsort(m, n, sizeof(*m), member_cmp);
		strbuf_addch(sb, '{');
		for (i = 0; i < n && !ret; i++) {
			if (i)
				strbuf_addch(sb, ',');
			add_newline(sb, flags, depth + 1);
			add_string(sb, m[i].key, m[i].len);
			strbuf_addstr(sb, flags & JSON_WRITE_INDENT ? ": " : ":");
			ret = write_value(sb, m[i].value, flags, depth + 1);
		}
		if (n)
			add_newline(sb, flags, depth);
		strbuf_addch(sb, '}');
		if (m != stack)
			free(m);
		return ret;
	}
	case JSON_ARRAY: {
		size_t n = json_array_size(v);
		strbuf_addch(sb, '[');
		for (size_t i = 0; i < n && !ret; i++) {
			if (i)
				strbuf_addch(sb, ',');
			add_newline(sb, flags, depth + 1);
			ret = write_value(sb, json_array_get(v, i), flags, depth + 1);
		}
		if (n)
			add_newline(sb, flags, depth);
		strbuf_addch(sb, ']');
		return ret;
	}
	case JSON_STRING:
		add_string(sb, json_string_value(v), json_string_length(v));
		return 0;
	case JSON_INTEGER:
		strbuf_add(sb, num,
			   (size_t)snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT,
					    json_integer_value(v)));
		return 0;
	case JSON_REAL:
		if (!isfinite(json_real_value(v)))
			return BL_EINVALID;
		add_real(sb, json_real_value(v), flags);
		return 0;
	case JSON_TRUE:
		strbuf_add(sb, "true", 4);
		return 0;
	case JSON_FALSE:
		strbuf_add(sb, "false", 5);
		return 0;
	case JSON_NULL:
		strbuf_add(sb, "null", 4);
		return 0;
	}
	return BL_EINVALID;
}

int json_write(struct strbuf *sb, const json_t *v, unsigned flags)
{
	size_t start = sb->len;
	int ret = v ? write_value(sb, v, flags, 0) : BL_EINVALID;
	if (ret)
		strbuf_setlen(sb, start);
	return ret;
}

char *json_write_text(const json_t *v, unsigned flags)
{
	struct strbuf sb = STRBUF_INIT;
	if (json_write(&sb, v, flags)) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

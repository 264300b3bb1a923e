#include <jansson.h>
#include <string.h>

#include "ingest/ingest.h"

void ingest_json_cursor_init(struct ingest_json_cursor *cur)
{
	cur->offset = 0;
	cur->line = 1;
	cur->column = 1;
}

void ingest_json_cursor_advance(struct ingest_json_cursor *cur, const char *text, size_t to)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = cur->offset;
	int line = cur->line, column = cur->column;

	for (; i < to; i++) {
		if (s[i] == '\n') {
			line++;
			column = 1;
		} else if ((s[i] & 0xC0) != 0x80) {
			column++;
		}
	}
	cur->offset = i;
	cur->line = line;
	cur->column = column;
}

static int is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int is_punct(char c)
{
	return c == '{' || c == '}' || c == '[' || c == ']' || c == ':' || c == ',';
}

size_t ingest_json_skip_ws(const char *text, size_t len, size_t i)
{
	while (i < len && is_ws(text[i]))
		i++;
	return i;
}

/* Past the string whose opening quote is at i. */
size_t ingest_json_skip_string(const char *text, size_t len, size_t i)
{
	for (i++; i < len; i++) {
		if (text[i] == '\\')
			i++;
		else if (text[i] == '"')
			return i + 1;
	}
	return len;
}

/* Past the valid value starting at i. */
size_t ingest_json_skip_value(const char *text, size_t len, size_t i)
{
	size_t depth = 0;

	if (i >= len)
		return len;
	if (text[i] == '"')
		return ingest_json_skip_string(text, len, i);
	if (text[i] != '{' && text[i] != '[') {
		while (i < len && !is_ws(text[i]) && !is_punct(text[i]) && text[i] != '"')
			i++;
		return i;
	}
	while (i < len) {
		char c = text[i];
		if (c == '"') {
			i = ingest_json_skip_string(text, len, i);
			continue;
		}
		if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			if (--depth == 0)
				return i + 1;
		}
		i++;
	}
	return len;
}

/* Whether the string token text[start..end) (quotes included) decodes to key. */
static int key_equals(const char *text, size_t start, size_t end, const char *key)
{
	size_t raw, klen = strlen(key);
	json_t *decoded;
	int same;

	if (end - start < 2)
		return 0;
	raw = end - start - 2;
	if (!memchr(text + start + 1, '\\', raw))
		return raw == klen && !memcmp(text + start + 1, key, klen);
	decoded = json_loadb(text + start, end - start, JSON_DECODE_ANY, NULL);
	same = decoded && json_is_string(decoded) && json_string_length(decoded) == klen &&
	       !memcmp(json_string_value(decoded), key, klen);
	json_decref(decoded);
	return same;
}

/* After the value that ends at i: past the whitespace and a following comma. */
static size_t next_member(const char *text, size_t len, size_t i)
{
	i = ingest_json_skip_ws(text, len, i);
	if (i < len && text[i] == ',')
		i = ingest_json_skip_ws(text, len, i + 1);
	return i;
}

size_t ingest_json_locate(const char *text, size_t len, size_t start,
			  const struct ingest_json_seg *path, size_t n, int want_key)
{
	size_t i = ingest_json_skip_ws(text, len, start);

	for (size_t k = 0; k < n; k++) {
		if (i >= len)
			return INGEST_JSON_NOT_FOUND;
		if (path[k].key) {
			int found = 0;
			if (text[i] != '{')
				return INGEST_JSON_NOT_FOUND;
			i = ingest_json_skip_ws(text, len, i + 1);
			while (i < len && text[i] == '"') {
				size_t key_start = i,
				       key_end = ingest_json_skip_string(text, len, i);
				int match = key_equals(text, key_start, key_end, path[k].key);
				i = ingest_json_skip_ws(text, len, key_end);
				if (i < len && text[i] == ':')
					i = ingest_json_skip_ws(text, len, i + 1);
				if (match) {
					if (want_key && k + 1 == n)
						return key_start;
					found = 1;
					break;
				}
				i = next_member(text, len, ingest_json_skip_value(text, len, i));
			}
			if (!found)
				return INGEST_JSON_NOT_FOUND;
		} else {
			if (text[i] != '[')
				return INGEST_JSON_NOT_FOUND;
			i = ingest_json_skip_ws(text, len, i + 1);
			for (size_t e = 0; e < path[k].index && i < len && text[i] != ']'; e++)
				i = next_member(text, len, ingest_json_skip_value(text, len, i));
			if (i >= len || text[i] == ']')
				return INGEST_JSON_NOT_FOUND;
		}
	}
	return i < len ? i : INGEST_JSON_NOT_FOUND;
}

size_t ingest_json_token_start(const char *text, size_t len, size_t start, size_t pos)
{
	size_t i = start, last = start;

	if (pos > len)
		pos = len;
	while (i < pos) {
		char c = text[i];
		if (is_ws(c)) {
			i++;
			continue;
		}
		last = i;
		if (c == '"')
			i = ingest_json_skip_string(text, len, i);
		else if (is_punct(c))
			i++;
		else
			i = ingest_json_skip_value(text, len, i);
	}
	return last;
}

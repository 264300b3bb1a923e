/*
 * libFuzzer target for the native record parser (§2, §13): any input must either parse or
 * fail with a positioned message, never crash, leak or read out of bounds. Built and run by
 * tests/fuzz/run.sh.
 */
#include "common/common.h"
#include "ingest/ingest.h"
#include "ingest/adapters/adapters.h"

#include "fuzz_input.h"

/* The byte offset of 1-based line and column (in characters), or (size_t)-1. */
static size_t offset_of(const char *text, size_t len, long line, long column)
{
	size_t i = len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3) ? 3 : 0;
	long l = 1, c = 1;

	for (;; i++) {
		if (l == line && c == column &&
		    (i >= len || ((unsigned char)text[i] & 0xC0) != 0x80))
			return i;
		if (i >= len)
			return (size_t)-1;
		if (text[i] == '\n') {
			l++;
			c = 1;
		} else if (((unsigned char)text[i] & 0xC0) != 0x80) {
			c++;
		}
	}
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !memcmp(s + n - k, suffix, k);
}

/* The last occurrence of needle in s, or NULL. */
static const char *last(const char *s, const char *needle)
{
	const char *found = NULL;
	for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
		found = p;
	return found;
}

/* Whether what follows ": negative " is a whole "negative time -5"-like message. */
static int is_negative(const char *what)
{
	static const char *const words[] = {"time ", "count ", "harness version "};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		size_t n = strlen(words[i]);
		if (!strncmp(what, words[i], n))
			return what[n] == '-' &&
			       strspn(what + n, "-+.0123456789e") == strlen(what + n);
	}
	return 0;
}

/* Whether the message is the cap's own, "...: string longer than 4096 bytes (N)" or "...: key
 * longer ... (N)", to its end: a metric may be named like it ("t: string longer than 4096
 * bytes (") while the message is another's, which ends with ")" too. */
static int is_too_long(const char *msg)
{
	static const char cap[] = " longer than 4096 bytes (";
	const char *at = last(msg, cap), *num;
	size_t digits;

	if (!at)
		return 0;
	num = at + sizeof(cap) - 1;
	digits = strspn(num, "0123456789");
	if (!digits || strcmp(num + digits, ")"))
		return 0;
	return (at - msg >= 8 && !strncmp(at - 8, ": string", 8)) ||
	       (at - msg >= 5 && !strncmp(at - 5, ": key", 5));
}

/*
 * The position in a message says where the offending text is: checks what can be checked
 * without being fooled by names and values quoted in the message.
 */
static void check_position(const char *text, size_t len, const char *msg)
{
	const char *rest = msg + 10, *near, *neg;
	char *end;
	long line = strtol(rest, &end, 10), column;
	size_t off;

	if (*end != ':')
		abort();
	column = strtol(end + 1, &end, 10);
	if (line < 1 || column < 1 || strncmp(end, ": ", 2))
		abort();
	msg = end + 2;
	off = offset_of(text, len, line, column);
	if (off == (size_t)-1)
		abort();
	if (strncmp(msg, "record ", 7)) {
		/* jansson's syntax errors and the file's shape */
		near = strstr(msg, " near '");
		if (near && strncmp(msg, "unable to decode byte", 21)) {
			/* it quotes the token it stopped at: the token starts there */
			size_t tok = strlen(near + 7) - 1;
			if (off + tok > len || memcmp(text + off, near + 7, tok))
				abort();
		} else if (ends_with(msg, " near end of file")) {
			if (off != len)
				abort();
		} else if (!strcmp(msg, "nul byte in file")) {
			if (off >= len || text[off])
				abort();
		}
		return;
	}
	/* a rule broken by a value: the position is a value or key in the record */
	if (off >= len || !strchr("{[\"-0123456789tfn", text[off]))
		abort();
	neg = last(msg, ": negative ");
	if (ends_with(msg, ": missing required field") ||
	    ends_with(msg, ": missing required field (give median or samples)")) {
		if (text[off] != '{')
			abort();
	} else if (ends_with(msg, "(expected rfc 3339 utc, like 2026-11-02T04:00:00Z)") ||
		   ends_with(msg, "(expected [A-Za-z0-9._-]{1,64})") ||
		   ends_with(msg, "or \"quantile\")") || ends_with(msg, "or \"higher\")") ||
		   is_too_long(msg)) {
		if (text[off] != '"')
			abort();
	} else if (neg && is_negative(neg + 11)) {
		if (text[off] != '-')
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ingest_batch batch = {NULL, 0, 0};
	struct bl_error err = BL_ERROR_INIT;
	char *text = fuzz_input(data, size);

	if (!text)
		return 0;
	if (adapters_parse_native(&batch, "fuzz.json", text, size, &err)) {
		/* a failure appends nothing and always says where */
		if (batch.nr || strncmp(err.msg.buf, "fuzz.json:", 10))
			abort();
		if (err.code == BL_EINVALID)
			check_position(text, size, err.msg.buf);
	} else {
		if (!batch.nr)
			abort();
		for (size_t i = 0; i < batch.nr; i++)
			if (!batch.records[i].raw || strlen(batch.records[i].digest) != 40 ||
			    batch.records[i].line < 1 || batch.records[i].column < 1)
				abort();
	}
	ingest_batch_release(&batch);
	bl_error_release(&err);
	free(text);
	return 0;
}

/*
 * jsonpos: finds where things are in JSON text, for messages. jansson does not keep the
 * position of values, so these re-scan text that jansson has already accepted (or, for a
 * syntax error, text up to the point where it stopped). Private to ingest; only the error
 * paths and the per-record line counter use it.
 */
#ifndef BENCHLINE_INGEST_JSONPOS_H
#define BENCHLINE_INGEST_JSONPOS_H

#include <stddef.h>

/* What ingest_json_locate returns when the path leads nowhere. */
#define INGEST_JSON_NOT_FOUND ((size_t)-1)

/* One step of a path into a JSON value: an object's member (key) or an array's element. */
struct ingest_json_seg {
	const char *key; /* NULL for an array element */
	size_t index;
};

/* A position in a text: byte offset, 1-based line and 1-based column in characters. */
struct ingest_json_cursor {
	size_t offset;
	int line, column;
};

void ingest_json_cursor_init(struct ingest_json_cursor *cur);
/* Moves the cursor forward to byte offset to (to >= cur->offset). A newline starts a line;
 * a UTF-8 continuation byte does not count as a column. */
void ingest_json_cursor_advance(struct ingest_json_cursor *cur, const char *text, size_t to);

/* The first offset at or after i that is not JSON whitespace (len when there is none). */
size_t ingest_json_skip_ws(const char *text, size_t len, size_t i);

/*
 * The byte offset of the value at path inside the valid JSON value starting at or after
 * start (whitespace skipped). With want_key, the offset of the last step's key (its opening
 * quote) instead. n = 0 names the value itself. INGEST_JSON_NOT_FOUND when the path does
 * not exist.
 */
size_t ingest_json_locate(const char *text, size_t len, size_t start,
			  const struct ingest_json_seg *path, size_t n, int want_key);

/*
 * The start of the token that holds the byte just before pos, scanning the (possibly
 * invalid) text from start: where a syntax error's offending token begins when the parser
 * only said where it stopped. start when there is no token before pos.
 */
size_t ingest_json_token_start(const char *text, size_t len, size_t start, size_t pos);

#endif

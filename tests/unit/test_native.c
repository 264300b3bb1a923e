/*
 * The native record parser (§2): the three file shapes, defaults, figures computed from
 * samples, raw JSON and digest, and every rejection with the exact FILE:LINE:COLUMN it is
 * reported at. Columns below are counted by hand from the texts.
 */
#include <dirent.h>
#include <git2.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/common.h"
#include "ingest/ingest.h"
#include "ingest/adapters/adapters.h"
#include "ingest/preflight/preflight.h"
#include "unit_records.h"

#define assert_double_equal(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

#define COMMIT "0123456789abcdef0123456789abcdef01234567"

/* The fields of a minimal valid record, one a line, in this order (lines 2 to 8). */
static const char *const base_fields[][2] = {
    {"schema", "1"},
    {"machine", "\"m1\""},
    {"benchmark", "\"b\""},
    {"harness_version", "1"},
    {"source", "{\"commit\": \"" COMMIT "\"}"},
    {"started_at", "\"2026-11-02T04:00:00Z\""},
    {"metrics", "{\"t\": {\"unit\": \"us\", \"median\": 5}}"},
};
#define NBASE (sizeof(base_fields) / sizeof(base_fields[0]))

/*
 * A record with one field a line:
 *   {
 *    "schema": 1,
 *    ...
 *    "metrics": {"t": {"unit": "us", "median": 5}}
 *   }
 * The arguments are KEY, VALUE pairs ending with NULL: VALUE (raw JSON) replaces the base
 * field's value, "-" drops the field, and a key not in the base is added after metrics.
 */
static char *record(const char *key, ...)
{
	const char *keys[16], *values[16];
	size_t n = 0, lines = 0;
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, key);
	for (const char *k = key; k && n < 16; k = va_arg(ap, const char *)) {
		keys[n] = k;
		values[n++] = va_arg(ap, const char *);
	}
	va_end(ap);

	strbuf_addstr(&sb, "{\n");
	for (size_t i = 0; i < NBASE; i++) {
		const char *value = base_fields[i][1];
		for (size_t k = 0; k < n; k++)
			if (!strcmp(keys[k], base_fields[i][0]))
				value = values[k];
		if (!strcmp(value, "-"))
			continue;
		strbuf_addf(&sb, "%s \"%s\": %s", lines++ ? ",\n" : "", base_fields[i][0], value);
	}
	for (size_t k = 0; k < n; k++) {
		size_t i;
		for (i = 0; i < NBASE && strcmp(keys[k], base_fields[i][0]); i++)
			;
		if (i == NBASE)
			strbuf_addf(&sb, "%s \"%s\": %s", lines++ ? ",\n" : "", keys[k], values[k]);
	}
	strbuf_addstr(&sb, "\n}\n");
	return strbuf_detach(&sb, NULL);
}

/* n copies of c, as a NUL-terminated string. */
static char *repeat(char c, size_t n)
{
	char *s = malloc(n + 1);
	assert_non_null(s);
	memset(s, c, n);
	s[n] = '\0';
	return s;
}

/* The text parsed as a file read piece by piece: the first 3 bytes given as already read, the
 * rest through a pipe in small writes, so every boundary the reader can meet is met. */
static int parse_streamed(struct ingest_batch *b, const char *text, size_t len,
			  struct bl_error *err)
{
	size_t first = len < 3 ? len : 3, piece = len < 65536 ? 5 : 4096;
	int fds[2], ret, status;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		close(fds[0]);
		for (size_t at = first; at < len; at += piece) {
			size_t n = len - at < piece ? len - at : piece;
			if (write(fds[1], text + at, n) != (ssize_t)n)
				_exit(1);
		}
		_exit(0);
	}
	close(fds[1]);
	ret = adapters_parse_native_fd("x.json", fds[0], text, first, unit_take_record, b, err);
	/* the reader may stop early, at an error: let the writer end */
	{
		char sink[4096];
		while (read(fds[0], sink, sizeof(sink)) > 0)
			;
	}
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return ret;
}

/* Parses text in memory, and as a file read piece by piece, which must agree exactly: the same
 * records with the same digests, or the same error. */
static int parse_len(struct ingest_batch *b, const char *text, size_t len, struct bl_error *err)
{
	struct ingest_batch streamed = {NULL, 0, 0};
	struct bl_error serr = BL_ERROR_INIT;
	size_t before = b->nr;
	int ret = adapters_parse_native(b, "x.json", text, len, err);
	int sret = parse_streamed(&streamed, text, len, &serr);

	assert_int_equal(sret, ret);
	if (ret) {
		assert_string_equal(serr.msg.buf, err->msg.buf);
	} else {
		assert_int_equal(streamed.nr, b->nr - before);
		for (size_t i = 0; i < streamed.nr; i++) {
			assert_string_equal(streamed.records[i].digest,
					    b->records[before + i].digest);
			assert_int_equal(streamed.records[i].line, b->records[before + i].line);
			assert_int_equal(streamed.records[i].column, b->records[before + i].column);
		}
	}
	ingest_batch_release(&streamed);
	bl_error_release(&serr);
	return ret;
}

static int parse(struct ingest_batch *b, const char *text, struct bl_error *err)
{
	return parse_len(b, text, strlen(text), err);
}

/* Parsing len bytes of text fails with exactly msg, and nothing is appended. */
static void expect_error_len(const char *text, size_t len, const char *msg)
{
	struct ingest_batch b = {NULL, 0, 0};
	struct bl_error err = BL_ERROR_INIT;

	assert_int_equal(parse_len(&b, text, len, &err), BL_EINVALID);
	assert_int_equal(err.code, BL_EINVALID);
	assert_string_equal(err.msg.buf, msg);
	assert_int_equal(b.nr, 0);
	ingest_batch_release(&b);
	bl_error_release(&err);
}

static void expect_error(const char *text, const char *msg)
{
	expect_error_len(text, strlen(text), msg);
}

/* The record made of the pairs fails with exactly msg; the text is freed. */
static void expect_record_error(char *text, const char *msg)
{
	expect_error(text, msg);
	free(text);
}

/* Parses text, which must succeed, into b. */
static void parse_ok(struct ingest_batch *b, const char *text)
{
	struct bl_error err = BL_ERROR_INIT;
	int ret = parse(b, text, &err);
	if (ret)
		fail_msg("unexpected error: %s", err.msg.buf);
	bl_error_release(&err);
}

/* --- the shapes of a file --- */

static void one_object_with_defaults(void **state)
{
	struct ingest_batch b = {NULL, 0, 0};
	char *text = record(NULL);
	const struct ingest_record *rec;
	const struct ingest_metric *m;

	(void)state;
	parse_ok(&b, text);
	assert_int_equal(b.nr, 1);
	rec = &b.records[0];
	assert_string_equal(rec->machine, "m1");
	assert_string_equal(rec->benchmark, "b");
	assert_int_equal(rec->harness_version, 1);
	assert_string_equal(rec->commit, COMMIT);
	assert_double_equal(rec->started_at, 1793592000, 0);
	/* defaults */
	assert_string_equal(rec->config, "");
	assert_string_equal(rec->profile, "release");
	assert_string_equal(rec->source_hash, "");
	assert_null(rec->content_hash);
	assert_null(rec->branch);
	assert_null(rec->machine_info);
	assert_true(isnan(rec->committed_at));
	assert_int_equal(rec->dirty, 0);
	assert_int_equal(rec->baseline, 0);
	assert_int_equal(rec->has_preflight, 0);
	assert_string_equal(rec->primary, "t");
	assert_int_equal(rec->line, 1);
	assert_int_equal(rec->column, 1);
	assert_int_equal(rec->nmetrics, 1);
	m = &rec->metrics[0];
	assert_string_equal(m->name, "t");
	assert_int_equal(m->kind, METRIC_TIMED);
	assert_string_equal(m->unit, "us");
	assert_int_equal(m->better_higher, 0);
	assert_double_equal(m->median, 5, 0);
	assert_true(isnan(m->p95));
	assert_true(isnan(m->value));
	assert_int_equal(m->n, -1);
	assert_null(m->samples);
	assert_null(m->ladder);
	assert_non_null(rec->raw);
	assert_int_equal(strlen(rec->digest), 40);
	ingest_batch_release(&b);
	free(text);
}

static void every_optional_field(void **state)
{
	struct ingest_batch b = {NULL, 0, 0};
	char *text = record(
	    "source",
	    "{\"commit\": \"ABCDEF0123456789ABCDEF0123456789ABCDEF01\", \"source_hash\": "
	    "\"FEDCBA9876543210FEDCBA9876543210FEDCBA98\", \"branch\": \"topic\", "
	    "\"committed_at\": "
	    "\"2026-11-01T22:10:00Z\", \"dirty\": true}",
	    "metrics",
	    "{\"z_frame\": {\"kind\": \"timed\", \"unit\": \"us\", \"better\": \"higher\", "
	    "\"median\": "
	    "8123.5, \"p95\": 8390.25, \"n\": 1800}, \"allocs\": {\"kind\": \"counted\", \"unit\": "
	    "\"allocs\", \"value\": 5790}, \"q\": {\"kind\": \"quantile\", \"unit\": \"ms\", "
	    "\"value\": -0.5, \"ladder\": \"ms\"}}",
	    "config", "\"1080p\"", "content_hash", "\"5d41\"", "profile", "\"debug\"", "baseline",
	    "true", "primary", "\"allocs\"", "machine_info", "{\"os\": \"linux\", \"cpu\": \"x\"}",
	    "preflight", "{\"quiet\": false, \"warnings\": [\"busy\"]}", NULL);
	const struct ingest_record *rec;
	const struct ingest_metric *m;

	(void)state;
	parse_ok(&b, text);
	rec = &b.records[0];
	assert_string_equal(rec->commit, "abcdef0123456789abcdef0123456789abcdef01");
	assert_string_equal(rec->source_hash, "fedcba9876543210fedcba9876543210fedcba98");
	assert_string_equal(rec->branch, "topic");
	assert_double_equal(rec->committed_at, 1793592000 - 5 * 3600 - 50 * 60, 0);
	assert_int_equal(rec->dirty, 1);
	assert_string_equal(rec->config, "1080p");
	assert_string_equal(rec->content_hash, "5d41");
	assert_string_equal(rec->profile, "debug");
	assert_int_equal(rec->baseline, 1);
	assert_string_equal(rec->primary, "allocs");
	assert_string_equal(rec->machine_info, "{\"cpu\":\"x\",\"os\":\"linux\"}");
	assert_int_equal(rec->has_preflight, 1);
	assert_int_equal(rec->preflight_quiet, 0);
	/* metrics come sorted by name */
	assert_int_equal(rec->nmetrics, 3);
	assert_string_equal(rec->metrics[0].name, "allocs");
	assert_string_equal(rec->metrics[1].name, "q");
	assert_string_equal(rec->metrics[2].name, "z_frame");
	m = unit_metric(rec, "z_frame");
	assert_int_equal(m->better_higher, 1);
	assert_double_equal(m->median, 8123.5, 0);
	assert_double_equal(m->p95, 8390.25, 0);
	assert_int_equal(m->n, 1800);
	m = unit_metric(rec, "allocs");
	assert_int_equal(m->kind, METRIC_COUNTED);
	assert_double_equal(m->value, 5790, 0);
	assert_true(isnan(m->median));
	m = unit_metric(rec, "q");
	assert_int_equal(m->kind, METRIC_QUANTILE);
	assert_double_equal(m->value, -0.5, 0);
	assert_string_equal(m->ladder, "ms");
	ingest_batch_release(&b);
	free(text);
}

static void primary_defaults_to_first_timed_by_name(void **state)
{
	struct ingest_batch b = {NULL, 0, 0};
	char *text =
	    record("metrics",
		   "{\"c\": {\"unit\": \"us\", \"median\": 1}, \"a\": {\"kind\": \"counted\", "
		   "\"unit\": \"n\", \"value\": 1}, \"b\": {\"unit\": \"us\", \"median\": 1}}",
		   NULL);

	(void)state;
	parse_ok(&b, text);
	assert_string_equal(b.records[0].primary, "b");
	ingest_batch_release(&b);
	free(text);
}

static void an_array_of_records(void **state)
{
	struct ingest_batch b = {NULL, 0, 0};
	char *one = record("benchmark", "\"first\"", NULL);
	char *two = record("benchmark", "\"second\"", NULL);
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	strbuf_addf(&sb, "  [%s ,\n%s]\n", one, two);
	parse_ok(&b, sb.buf);
	assert_int_equal(b.nr, 2);
	assert_string_equal(b.records[0].benchmark, "first");
	assert_string_equal(b.records[1].benchmark, "second");
	assert_int_equal(b.records[0].line, 1);
	assert_int_equal(b.records[0].column, 4);
	/* the first record takes 10 lines: the second starts on line 11 */
	assert_int_equal(b.records[1].line, 11);
	assert_int_equal(b.records[1].column, 1);
	ingest_batch_release(&b);
	strbuf_release(&sb);
	free(one);
	free(two);
}

/* Line n (1-based) of a JSON-lines test file. */
static const char *const lines3[] = {
    "{\"schema\":1,\"machine\":\"m\",\"benchmark\":\"a\",\"harness_version\":1,\"source\":{"
    "\"commit\":\"" COMMIT "\"},\"started_at\":\"2026-11-02T04:00:00Z\",\"metrics\":{\"t\":{"
    "\"unit\":\"us\",\"median\":1}}}",
    "  {\"schema\":1,\"machine\":\"m\",\"benchmark\":\"b\",\"harness_version\":1,\"source\":{"
    "\"commit\":\"" COMMIT "\"},\"started_at\":\"2026-11-02T04:00:00Z\",\"metrics\":{\"t\":{"
    "\"unit\":\"us\",\"median\":2}}}",
    "{\"schema\":1,\"machine\":\"m\",\"benchmark\":\"c\",\"harness_version\":1,\"source\":{"
    "\"commit\":\"" COMMIT "\"},\"started_at\":\"2026-11-02T04:00:00Z\",\"metrics\":{\"t\":{"
    "\"unit\":\"us\",\"median\":-3}}}",
};

static void json_lines(void **state)
{
	struct ingest_batch b = {NULL, 0, 0};
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	strbuf_addf(&sb, "%s\n%s\n\n", lines3[0], lines3[1]);
	parse_ok(&b, sb.buf);
	assert_int_equal(b.nr, 2);
	assert_string_equal(b.records[1].benchmark, "b");
	assert_double_equal(b.records[1].metrics[0].median, 2, 0);
	assert_int_equal(b.records[1].line, 2);
	assert_int_equal(b.records[1].column, 3);
	ingest_batch_release(&b);
	strbuf_release(&sb);
}

static void json_lines_error_on_the_third_line(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	const char *median = strstr(lines3[2], "-3");

	(void)state;
	/* the offending -3 is at byte (and character) 199 of line 3 */
	assert_int_equal(median - lines3[2] + 1, 199);
	strbuf_addf(&sb, "%s\n%s\n%s\n", lines3[0], lines3[1], lines3[2]);
	expect_error(sb.buf, "x.json:3:199: record 3: metrics.t.median: negative time -3");
	/* a syntax error there too: jansson's message, line 3 */
	strbuf_reset(&sb);
	strbuf_addf(&sb, "%s\n%s\n{\"schema\": 1,, }\n", lines3[0], lines3[1]);
	expect_error(sb.buf, "x.json:3:14: string or '}' expected near ','");
	strbuf_release(&sb);
}

static void array_error_in_the_second_record(void **state)
{
	char *one = record(NULL);
	char *two = record("machine", "\"bad name\"", NULL);
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	strbuf_addf(&sb, "[%s,%s]", one, two);
	/* record 2 starts on line 10 (after "}\n,"): its machine line is line 12 */
	expect_error(sb.buf, "x.json:12:13: record 2: machine: invalid machine name \"bad name\" "
			     "(expected [A-Za-z0-9._-]{1,64})");
	strbuf_release(&sb);
	free(one);
	free(two);
}

static void array_syntax(void **state)
{
	char *one = record(NULL);
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	expect_error("[", "x.json:1:2: ']' expected near end of file");
	expect_error("[ ]", "x.json:1:1: no records");
	strbuf_addf(&sb, "[%s,", one);
	expect_error(sb.buf, "x.json:10:2: ']' expected near end of file");
	strbuf_reset(&sb);
	strbuf_addf(&sb, "[%s", one);
	expect_error(sb.buf, "x.json:10:1: ']' expected near end of file");
	strbuf_reset(&sb);
	strbuf_addf(&sb, "[%s x]", one);
	expect_error(sb.buf, "x.json:10:2: ',' or ']' expected");
	strbuf_reset(&sb);
	strbuf_addf(&sb, "[%s, ]", one);
	expect_error(sb.buf, "x.json:10:3: unexpected token near ']'");
	strbuf_reset(&sb);
	strbuf_addf(&sb, "[%s] {}", one);
	expect_error(sb.buf, "x.json:10:3: end of file expected");
	strbuf_reset(&sb);
	strbuf_addf(&sb, "[%s, 7]", one);
	expect_error(sb.buf, "x.json:10:3: record 2: expected an object");
	strbuf_release(&sb);
	free(one);
}

static void empty_files(void **state)
{
	(void)state;
	expect_error("", "x.json:1:1: no records");
	expect_error("  \n\t\n ", "x.json:3:2: no records");
	expect_error("\n[]", "x.json:2:1: no records");
}

static void a_byte_order_mark_is_skipped(void **state)
{
	struct ingest_batch b = {NULL, 0, 0};
	struct strbuf sb = STRBUF_INIT;
	char *one = record(NULL);

	(void)state;
	strbuf_addf(&sb, "\xEF\xBB\xBF%s", one);
	parse_ok(&b, sb.buf);
	assert_int_equal(b.nr, 1);
	assert_int_equal(b.records[0].line, 1);
	assert_int_equal(b.records[0].column, 1);
	ingest_batch_release(&b);
	expect_error("\xEF\xBB\xBF{\"a\": x}", "x.json:1:7: invalid token near 'x'");
	expect_error("\xEF\xBB\xBF", "x.json:1:1: no records");
	/* only at the start */
	expect_error(" \xEF\xBB\xBF{}", "x.json:1:2: invalid token near '\xEF\xBB\xBF'");
	strbuf_release(&sb);
	free(one);
}

static void a_top_level_value_that_is_not_an_object(void **state)
{
	(void)state;
	expect_error("\n  \"text\"", "x.json:2:3: record 1: expected an object");
	expect_error("{} 1", "x.json:1:1: record 1: schema: missing required field");
}

/* --- syntax errors, reported at the start of the offending token --- */

static void truncated_json(void **state)
{
	(void)state;
	expect_error("{\"schema\": 1, \"machine\": \"m", "x.json:1:26: premature end of input near "
							 "'\"m'");
	expect_error("{\"schema\": 1", "x.json:1:13: '}' expected near end of file");
	expect_error("{\"schema\": 1,\n \"source\": {\"commit\": ",
		     "x.json:2:23: unexpected token near end of file");
}

static void nan_infinity_overflow(void **state)
{
	(void)state;
	/* the metrics line is line 8; median's value starts at column 44 */
	expect_record_error(record("metrics", "{\"t\": {\"unit\": \"us\", \"median\": NaN}}", NULL),
			    "x.json:8:44: invalid token near 'NaN'");
	expect_record_error(
	    record("metrics", "{\"t\": {\"unit\": \"us\", \"median\": Infinity}}", NULL),
	    "x.json:8:44: invalid token near 'Infinity'");
	expect_record_error(
	    record("metrics", "{\"t\": {\"unit\": \"us\", \"median\": -Infinity}}", NULL),
	    "x.json:8:44: invalid token near '-'");
	expect_record_error(
	    record("metrics", "{\"t\": {\"unit\": \"us\", \"median\": 1e999}}", NULL),
	    "x.json:8:44: real number overflow near '1e999'");
	expect_record_error(
	    record("metrics", "{\"t\": {\"unit\": \"us\", \"samples\": [1, -1e400]}}", NULL),
	    "x.json:8:49: real number overflow near '-1e400'");
	expect_record_error(
	    record("metrics", "{\"t\": {\"unit\": \"us\", \"n\": 99999999999999999999}}", NULL),
	    "x.json:8:39: too big integer near '99999999999999999999'");
}

static void invalid_utf8(void **state)
{
	(void)state;
	/* the bad byte itself: "b" opens at column 15, 0xff is column 17 */
	expect_record_error(record("benchmark", "\"b\xff\"", NULL),
			    "x.json:4:17: unable to decode byte 0xff near '\"b'");
	/* a two-byte character counts as one column */
	expect_record_error(record("benchmark", "\"\xc3\xa9\xff\"", NULL),
			    "x.json:4:17: unable to decode byte 0xff near '\"\xc3\xa9'");
	/* a lead byte without its continuation */
	expect_record_error(record("benchmark", "\"ab\xe2\x82z\"", NULL),
			    "x.json:4:18: unable to decode byte 0xe2 near '\"ab'");
	/* outside a string */
	expect_error("{\n \xff", "x.json:2:2: unable to decode byte 0xff");
}

static void long_tokens_are_found_without_a_quote(void **state)
{
	(void)state;
	/* jansson quotes no token over 20 bytes: the start is found by scanning */
	expect_record_error(record("benchmark", "\"aaaaaaaaaaaaaaaaaaaaaaaaa\tb\"", NULL),
			    "x.json:4:15: control character 0x9");
	expect_record_error(record("benchmark", "\"aaaaaaaaaaaaaaaaaaaaaaaaa\\x\"", NULL),
			    "x.json:4:15: invalid escape");
	expect_record_error(record("machine", "abcdefghijklmnopqrstuvwxyz", NULL),
			    "x.json:3:13: invalid token");
	expect_error("{\"k\": \"aaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		     "x.json:1:7: premature end of input");
}

static void duplicate_keys(void **state)
{
	(void)state;
	expect_record_error(record("machine", "\"m1\", \"machine\": \"m2\"", NULL),
			    "x.json:3:19: duplicate object key near '\"machine\"'");
}

static void nul_byte(void **state)
{
	static const char text[] = "{\"schema\": 1,\n \"m\": \"a\0b\"}";
	(void)state;
	expect_error_len(text, sizeof(text) - 1, "x.json:2:9: nul byte in file");
	/* what is wrong before the NUL is reported first */
	expect_error_len("\xff\0", 2, "x.json:1:1: unable to decode byte 0xff");
	expect_error_len("\x97\0\0\0", 4, "x.json:1:1: unable to decode byte 0x97");
	expect_error_len("{\"a\" 1}\n\0", 10, "x.json:1:6: ':' expected near '1'");
	expect_error_len("{}\n{\"schema\": 1, \0", 17,
			 "x.json:1:1: record 1: schema: missing required field");
	/* and a token the NUL cuts short is the NUL's fault */
	expect_error_len("{\"a\": \"b\0\"}", 12, "x.json:1:9: nul byte in file");
	expect_error_len("{\"a\": 1\0", 8, "x.json:1:8: nul byte in file");
	expect_error_len("[1\0", 3, "x.json:1:2: record 1: expected an object");
	expect_record_error(record("machine", "\"a\\u0000b\"", NULL),
			    "x.json:3:13: \\u0000 is not allowed without JSON_ALLOW_NUL near "
			    "'\"a\\u0000b\"'");
}

/* --- semantic errors, reported at the offending value --- */

static void unknown_schema(void **state)
{
	(void)state;
	expect_record_error(record("schema", "2", NULL),
			    "x.json:2:12: record 1: schema: unknown schema 2");
	expect_record_error(record("schema", "\"1\"", NULL),
			    "x.json:2:12: record 1: schema: unknown schema \"1\"");
	expect_record_error(record("schema", "1.0", NULL),
			    "x.json:2:12: record 1: schema: unknown schema 1.0");
}

static void missing_required_fields(void **state)
{
	static const char *const required[] = {
	    "schema", "machine", "benchmark", "harness_version", "source", "started_at", "metrics"};
	(void)state;
	for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
		struct strbuf msg = STRBUF_INIT;
		strbuf_addf(&msg, "x.json:1:1: record 1: %s: missing required field", required[i]);
		expect_record_error(record(required[i], "-", NULL), msg.buf);
		strbuf_release(&msg);
	}
	/* nested: at the opening brace of the object that lacks it */
	expect_record_error(record("source", "{\"branch\": \"main\"}", NULL),
			    "x.json:6:12: record 1: source.commit: missing required field");
	expect_record_error(record("metrics", "{\"t\": {\"median\": 5}}", NULL),
			    "x.json:8:19: record 1: metrics.t.unit: missing required field");
	expect_record_error(record("metrics", "{\"t\": {\"unit\": \"us\"}}", NULL),
			    "x.json:8:19: record 1: metrics.t.median: missing required field "
			    "(give median or samples)");
	expect_record_error(record("metrics", "{\"t\": {\"unit\": \"us\", \"samples\": []}}", NULL),
			    "x.json:8:19: record 1: metrics.t.median: missing required field "
			    "(give median or samples)");
	expect_record_error(
	    record("metrics", "{\"t\": {\"kind\": \"counted\", \"unit\": \"n\"}}", NULL),
	    "x.json:8:19: record 1: metrics.t.value: missing required field");
	expect_record_error(
	    record("metrics", "{\"t\": {\"kind\": \"quantile\", \"unit\": \"n\"}}", NULL),
	    "x.json:8:19: record 1: metrics.t.value: missing required field");
	expect_record_error(record("preflight", "{\"warnings\": []}", NULL),
			    "x.json:9:15: record 1: preflight.quiet: missing required field");
	expect_record_error(
	    record("metrics", "{}", NULL),
	    "x.json:8:13: record 1: metrics: no metrics (at least one is required)");
}

static void wrong_types(void **state)
{
	(void)state;
	expect_record_error(record("machine", "5", NULL),
			    "x.json:3:13: record 1: machine: expected a string");
	expect_record_error(record("harness_version", "\"1\"", NULL),
			    "x.json:5:21: record 1: harness_version: expected an integer");
	expect_record_error(record("harness_version", "1.5", NULL),
			    "x.json:5:21: record 1: harness_version: expected an integer");
	expect_record_error(record("source", "\"abc\"", NULL),
			    "x.json:6:12: record 1: source: expected an object");
	expect_record_error(record("metrics", "[]", NULL),
			    "x.json:8:13: record 1: metrics: expected an object");
	expect_record_error(record("metrics", "{\"t\": 5}", NULL),
			    "x.json:8:19: record 1: metrics.t: expected an object");
	expect_record_error(
	    record("metrics", "{\"t\": {\"unit\": \"us\", \"median\": \"5\"}}", NULL),
	    "x.json:8:44: record 1: metrics.t.median: expected a number");
	expect_record_error(record("metrics", "{\"t\": {\"unit\": \"us\", \"samples\": 5}}", NULL),
			    "x.json:8:45: record 1: metrics.t.samples: expected an array");
	expect_record_error(
	    record("metrics", "{\"t\": {\"unit\": \"us\", \"samples\": [1, null]}}", NULL),
	    "x.json:8:49: record 1: metrics.t.samples[1]: expected a number");
	expect_record_error(record("metrics", "{\"t\": {\"unit\": 1, \"median\": 5}}", NULL),
			    "x.json:8:28: record 1: metrics.t.unit: expected a string");
	expect_record_error(
	    record("metrics", "{\"t\": {\"unit\": \"us\", \"median\": 5, \"n\": 2.0}}", NULL),
	    "x.json:8:52: record 1: metrics.t.n: expected an integer");
	expect_record_error(record("baseline", "\"yes\"", NULL),
			    "x.json:9:14: record 1: baseline: expected a boolean");
	expect_record_error(record("source", "{\"commit\": \"" COMMIT "\", \"dirty\": 0}", NULL),
			    "x.json:6:76: record 1: source.dirty: expected a boolean");
	expect_record_error(record("config", "null", NULL),
			    "x.json:9:12: record 1: config: expected a string");
	expect_record_error(record("machine_info", "\"linux\"", NULL),
			    "x.json:9:18: record 1: machine_info: expected an object");
	expect_record_error(record("preflight", "{\"quiet\": 1}", NULL),
			    "x.json:9:25: record 1: preflight.quiet: expected a boolean");
}

static void negative_times(void **state)
{
	(void)state;
	expect_record_error(record("metrics", "{\"t\": {\"unit\": \"us\", \"median\": -5}}", NULL),
			    "x.json:8:44: record 1: metrics.t.median: negative time -5");
	expect_record_error(
	    record("metrics", "{\"t\": {\"unit\": \"us\", \"median\": 5, \"p95\": -1.5}}", NULL),
	    "x.json:8:54: record 1: metrics.t.p95: negative time -1.5");
	expect_record_error(
	    record("metrics", "{\"t\": {\"unit\": \"us\", \"samples\": [1, 2, -3.0]}}", NULL),
	    "x.json:8:52: record 1: metrics.t.samples[2]: negative time -3.0");
	expect_record_error(
	    record("metrics", "{\"t\": {\"kind\": \"counted\", \"unit\": \"n\", \"value\": -1}}",
		   NULL),
	    "x.json:8:61: record 1: metrics.t.value: negative count -1");
	expect_record_error(
	    record("metrics", "{\"t\": {\"unit\": \"us\", \"median\": 5, \"n\": -1}}", NULL),
	    "x.json:8:52: record 1: metrics.t.n: negative count -1");
	expect_record_error(record("harness_version", "-2", NULL),
			    "x.json:5:21: record 1: harness_version: negative harness version -2");
	/* A p95 under the median would make the run the quietest of its key. */
	expect_record_error(
	    record("metrics", "{\"t\": {\"unit\": \"us\", \"median\": 1, \"p95\": 0.5}}", NULL),
	    "x.json:8:54: record 1: metrics.t.p95: p95 below the median 0.5 (median 1)");
}

static void bad_names_hashes_timestamps_kinds(void **state)
{
	char *long_name = repeat('m', 65), *ok_name = repeat('m', 64);
	struct strbuf value = STRBUF_INIT;
	struct ingest_batch b = {NULL, 0, 0};
	char *text;

	(void)state;
	expect_record_error(
	    record("machine", "\"a/b\"", NULL),
	    "x.json:3:13: record 1: machine: invalid machine name \"a/b\" (expected "
	    "[A-Za-z0-9._-]{1,64})");
	expect_record_error(record("machine", "\"\"", NULL),
			    "x.json:3:13: record 1: machine: invalid machine name \"\" (expected "
			    "[A-Za-z0-9._-]{1,64})");
	strbuf_addf(&value, "\"%s\"", long_name);
	expect_record_error(record("machine", value.buf, NULL),
			    "x.json:3:13: record 1: machine: invalid machine name "
			    "\"mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm\"... (expected "
			    "[A-Za-z0-9._-]{1,64})");
	strbuf_reset(&value);
	strbuf_addf(&value, "\"%s\"", ok_name);
	text = record("machine", value.buf, NULL);
	parse_ok(&b, text);
	assert_string_equal(b.records[0].machine, ok_name);
	ingest_batch_release(&b);
	free(text);

	expect_record_error(record("benchmark", "\"\"", NULL),
			    "x.json:4:15: record 1: benchmark: empty string");
	expect_record_error(
	    record("source", "{\"commit\": \"xyz\"}", NULL),
	    "x.json:6:23: record 1: source.commit: expected 40 hex digits, got \"xyz\"");
	expect_record_error(
	    record("source",
		   "{\"commit\": \"" COMMIT
		   "\", \"source_hash\": \"g123456789abcdef0123456789abcdef01234567\"}",
		   NULL),
	    "x.json:6:82: record 1: source.source_hash: expected 40 hex digits, got "
	    "\"g123456789abcdef0123456789abcdef01234567\"");
	expect_record_error(
	    record("started_at", "\"2026-11-02 04:00:00\"", NULL),
	    "x.json:7:16: record 1: started_at: bad timestamp \"2026-11-02 04:00:00\" "
	    "(expected rfc 3339 utc, like 2026-11-02T04:00:00Z)");
	expect_record_error(
	    record("started_at", "\"2026-02-30T00:00:00Z\"", NULL),
	    "x.json:7:16: record 1: started_at: bad timestamp \"2026-02-30T00:00:00Z\" "
	    "(expected rfc 3339 utc, like 2026-11-02T04:00:00Z)");
	expect_record_error(
	    record("source", "{\"commit\": \"" COMMIT "\", \"committed_at\": \"yesterday\"}", NULL),
	    "x.json:6:83: record 1: source.committed_at: bad timestamp \"yesterday\" (expected rfc "
	    "3339 utc, like 2026-11-02T04:00:00Z)");
	expect_record_error(
	    record("metrics", "{\"t\": {\"kind\": \"histogram\", \"unit\": \"us\"}}", NULL),
	    "x.json:8:28: record 1: metrics.t.kind: unknown metric kind \"histogram\" "
	    "(expected \"timed\", \"counted\" or \"quantile\")");
	expect_record_error(
	    record("metrics", "{\"t\": {\"unit\": \"us\", \"better\": \"up\", \"median\": 1}}",
		   NULL),
	    "x.json:8:44: record 1: metrics.t.better: unknown direction \"up\" (expected \"lower\" "
	    "or \"higher\")");
	expect_record_error(record("primary", "\"nope\"", NULL),
			    "x.json:9:13: record 1: primary: no metric named \"nope\"");
	expect_record_error(record("metrics", "{\"\": {\"unit\": \"us\", \"median\": 1}}", NULL),
			    "x.json:8:14: record 1: metrics: empty metric name");
	strbuf_release(&value);
	free(long_name);
	free(ok_name);
}

/* --- caps --- */

static void strings_over_4096_bytes(void **state)
{
	char *s4096 = repeat('a', 4096), *s4097 = repeat('a', 4097);
	struct strbuf value = STRBUF_INIT;
	struct ingest_batch b = {NULL, 0, 0};
	char *text;

	(void)state;
	strbuf_addf(&value, "\"%s\"", s4096);
	text = record("benchmark", value.buf, NULL);
	parse_ok(&b, text);
	assert_int_equal(strlen(b.records[0].benchmark), 4096);
	ingest_batch_release(&b);
	free(text);

	strbuf_reset(&value);
	strbuf_addf(&value, "\"%s\"", s4097);
	expect_record_error(
	    record("benchmark", value.buf, NULL),
	    "x.json:4:15: record 1: benchmark: string longer than 4096 bytes (4097)");

	/* inside unknown keys too, at any depth */
	strbuf_reset(&value);
	strbuf_addf(&value, "{\"notes\": [\"x\", \"%s\"]}", s4097);
	expect_record_error(record("extra", value.buf, NULL),
			    "x.json:9:27: record 1: extra.notes[1]: string longer than 4096 bytes "
			    "(4097)");

	/* an escape counts as the one byte it stands for: 4096 bytes once decoded */
	strbuf_reset(&value);
	strbuf_addf(&value, "\"\\n%s\"", s4096 + 1);
	text = record("benchmark", value.buf, NULL);
	parse_ok(&b, text);
	assert_int_equal(strlen(b.records[0].benchmark), 4096);
	ingest_batch_release(&b);
	free(text);

	/* and keys */
	strbuf_reset(&value);
	strbuf_addf(&value, "{\"%s\": 1}", s4097);
	expect_record_error(record("extra", value.buf, NULL),
			    "x.json:9:12: record 1: extra: key longer than 4096 bytes (4097)");
	strbuf_reset(&value);
	strbuf_addf(&value, "{\"t\": {\"unit\": \"us\", \"median\": 1}, \"%s\": {}}", s4097);
	expect_record_error(record("metrics", value.buf, NULL),
			    "x.json:8:48: record 1: metrics: key longer than 4096 bytes (4097)");
	strbuf_release(&value);
	free(s4096);
	free(s4097);
}

/* A record whose metric t has n samples, sample i being i % 1000. */
static char *record_with_samples(size_t n)
{
	struct strbuf value = STRBUF_INIT;
	char *text;

	strbuf_grow(&value, n * 4 + 64);
	strbuf_addstr(&value, "{\"t\": {\"unit\": \"us\", \"samples\": [");
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&value, "%s%zu", i ? "," : "", i % 1000);
	strbuf_addstr(&value, "]}}");
	text = record("metrics", value.buf, NULL);
	strbuf_release(&value);
	return text;
}

static void samples_over_one_million(void **state)
{
	struct ingest_batch b = {NULL, 0, 0};
	char *text = record_with_samples(INGEST_MAX_SAMPLES);
	const struct ingest_metric *m;

	(void)state;
	parse_ok(&b, text);
	m = &b.records[0].metrics[0];
	assert_int_equal(m->nsamples, 1000000);
	assert_int_equal(m->n, 1000000);
	/* 1000 of each of 0..999: rank 500000 is 499, rank 950000 is 949 */
	assert_double_equal(m->median, 499, 0);
	assert_double_equal(m->p95, 949, 0);
	assert_double_equal(m->samples[1234], 234, 0);
	ingest_batch_release(&b);
	free(text);

	expect_record_error(record_with_samples(INGEST_MAX_SAMPLES + 1),
			    "x.json:8:45: record 1: metrics.t.samples: 1000001 samples, over the "
			    "limit of 1000000");
}

/* --- figures --- */

static void median_and_p95_from_samples_by_nearest_rank(void **state)
{
	struct ingest_batch b = {NULL, 0, 0};
	char *text = record(
	    "metrics",
	    "{\"even\": {\"unit\": \"us\", \"samples\": [5, 1, 4, 2, 3, 10, 9, 8, 7, 6]}, "
	    "\"odd\": {\"unit\": \"us\", \"samples\": [3.5, 1.25, 2]}, "
	    "\"twenty\": {\"unit\": \"us\", \"samples\": [20, 1, 19, 2, 18, 3, 17, 4, 16, 5, 15, "
	    "6, "
	    "14, 7, 13, 8, 12, 9, 11, 10]}, "
	    "\"given\": {\"unit\": \"us\", \"median\": 100, \"samples\": [1, 2, 3, 4], \"n\": 50}, "
	    "\"four\": {\"unit\": \"us\", \"samples\": [40, 10, 30, 20], \"p95\": 33}}",
	    NULL);
	const struct ingest_record *rec;
	const struct ingest_metric *m;

	(void)state;
	parse_ok(&b, text);
	rec = &b.records[0];
	/* 10 samples: the median is rank 5 (the lower middle, not 5.5); p95 is rank 10 */
	m = unit_metric(rec, "even");
	assert_double_equal(m->median, 5, 0);
	assert_double_equal(m->p95, 10, 0);
	assert_int_equal(m->n, 10);
	assert_int_equal(m->nsamples, 10);
	/* the samples stay in their order */
	assert_double_equal(m->samples[0], 5, 0);
	assert_double_equal(m->samples[9], 6, 0);
	m = unit_metric(rec, "odd");
	assert_double_equal(m->median, 2, 0);
	assert_double_equal(m->p95, 3.5, 0);
	/* 20 samples: p95 is rank 19 */
	m = unit_metric(rec, "twenty");
	assert_double_equal(m->median, 10, 0);
	assert_double_equal(m->p95, 19, 0);
	/* a given median and n stand; p95 still comes from the samples */
	m = unit_metric(rec, "given");
	assert_double_equal(m->median, 100, 0);
	assert_double_equal(m->p95, 4, 0);
	assert_int_equal(m->n, 50);
	/* a given p95 stands; the median is the lower middle */
	m = unit_metric(rec, "four");
	assert_double_equal(m->median, 20, 0);
	assert_double_equal(m->p95, 33, 0);
	ingest_batch_release(&b);
	free(text);
}

/* --- raw JSON and digest --- */

static void unknown_keys_are_kept_in_raw(void **state)
{
	struct ingest_batch b = {NULL, 0, 0};
	char *text =
	    record("runner", "{\"name\": \"sweep-7\", \"tags\": [\"nightly\"]}", "metrics",
		   "{\"t\": {\"unit\": \"us\", \"median\": 5, \"histogram\": {\"8000\": 12}}}",
		   "source", "{\"commit\": \"" COMMIT "\", \"ci_job\": 81723}", NULL);
	const char *raw;

	(void)state;
	parse_ok(&b, text);
	raw = b.records[0].raw;
	assert_non_null(strstr(raw, "\"runner\":{\"name\":\"sweep-7\",\"tags\":[\"nightly\"]}"));
	assert_non_null(strstr(raw, "\"histogram\":{\"8000\":12}"));
	assert_non_null(strstr(raw, "\"ci_job\":81723"));
	/* compact, keys sorted */
	assert_int_equal(strncmp(raw, "{\"benchmark\":\"b\",\"harness_version\":1,", 37), 0);
	assert_null(strchr(raw, '\n'));
	ingest_batch_release(&b);
	free(text);
}

static void digest_is_stable_across_key_order_and_whitespace(void **state)
{
	static const char compact[] =
	    "{\"schema\":1,\"machine\":\"m\",\"benchmark\":\"b\",\"harness_version\":1,"
	    "\"source\":{\"commit\":\"" COMMIT "\",\"branch\":\"main\"},"
	    "\"started_at\":\"2026-11-02T04:00:00Z\",\"x\":[1,{\"b\":2,\"a\":1}],"
	    "\"metrics\":{\"t\":{\"unit\":\"us\",\"median\":5.5},\"u\":{\"unit\":\"us\",\"median\":"
	    "1}}}";
	static const char spaced[] =
	    "\n\n  {\n\t\"metrics\" : { \"u\" : {\"median\": 1, \"unit\": \"us\"},\n"
	    "   \"t\": {\"median\": 5.5, \"unit\": \"us\"} },\r\n"
	    "  \"x\": [ 1 , { \"a\" : 1 , \"b\" : 2 } ],\n"
	    "  \"started_at\": \"2026-11-02T04:00:00Z\", \"source\": {\"branch\": \"main\",\n"
	    "  \"commit\": \"" COMMIT "\"}, \"harness_version\": 1,\n"
	    "  \"benchmark\": \"b\", \"machine\": \"m\", \"schema\": 1 }\n";
	struct ingest_batch b = {NULL, 0, 0};
	struct strbuf other = STRBUF_INIT;

	(void)state;
	parse_ok(&b, compact);
	parse_ok(&b, spaced);
	assert_int_equal(b.nr, 2);
	assert_string_equal(b.records[0].raw, b.records[1].raw);
	assert_string_equal(b.records[0].digest, b.records[1].digest);
	assert_int_equal(b.records[1].line, 3);
	assert_int_equal(b.records[1].column, 3);
	/* any value changed: another digest */
	strbuf_addstr(&other, compact);
	*strstr(other.buf, "5.5") = '6';
	parse_ok(&b, other.buf);
	assert_string_not_equal(b.records[0].digest, b.records[2].digest);
	/* and an unknown key's value counts too */
	strbuf_reset(&other);
	strbuf_addstr(&other, compact);
	strstr(other.buf, "\"b\":2")[4] = '3';
	parse_ok(&b, other.buf);
	assert_string_not_equal(b.records[0].digest, b.records[3].digest);
	ingest_batch_release(&b);
	strbuf_release(&other);
}

/* --- all or nothing --- */

static void nothing_is_appended_on_error(void **state)
{
	struct ingest_batch b = {NULL, 0, 0};
	struct bl_error err = BL_ERROR_INIT;
	struct strbuf sb = STRBUF_INIT;
	char *good = record(NULL);

	(void)state;
	parse_ok(&b, good);
	assert_int_equal(b.nr, 1);
	/* two good records, then a bad one: the batch keeps only what it had */
	strbuf_addf(&sb, "%s\n%s\n%s\n", lines3[0], lines3[1], lines3[2]);
	assert_int_equal(parse(&b, sb.buf, &err), BL_EINVALID);
	assert_int_equal(b.nr, 1);
	assert_string_equal(b.records[0].benchmark, "b");
	/* the same in an array, and for a syntax error after good records */
	strbuf_reset(&sb);
	strbuf_addf(&sb, "[%s, %s, {]", lines3[0], lines3[1]);
	assert_int_equal(parse(&b, sb.buf, &err), BL_EINVALID);
	assert_int_equal(b.nr, 1);
	/* a good file appends after what is there */
	strbuf_reset(&sb);
	strbuf_addf(&sb, "%s\n%s\n", lines3[0], lines3[1]);
	assert_int_equal(parse(&b, sb.buf, &err), 0);
	assert_int_equal(b.nr, 3);
	assert_string_equal(b.records[0].benchmark, "b");
	assert_string_equal(b.records[1].benchmark, "a");
	assert_string_equal(b.records[2].benchmark, "b");
	ingest_batch_release(&b);
	bl_error_release(&err);
	strbuf_release(&sb);
	free(good);
}

/* --- the example files and the fuzzer's finds --- */

static void parse_file(const char *path, int want_ok)
{
	struct strbuf text = STRBUF_INIT;
	struct ingest_batch b = {NULL, 0, 0};
	struct bl_error err = BL_ERROR_INIT;
	int ret;

	if (read_file_capped(&text, path, INGEST_MAX_FILE, &err))
		fail_msg("%s", err.msg.buf);
	ret = adapters_parse_native(&b, path, text.buf, text.len, &err);
	if (want_ok && ret)
		fail_msg("%s", err.msg.buf);
	if (!ret)
		assert_true(b.nr > 0);
	else
		assert_int_equal(b.nr, 0);
	ingest_batch_release(&b);
	bl_error_release(&err);
	strbuf_release(&text);
}

static void the_fixtures_parse(void **state)
{
	struct ingest_batch b = {NULL, 0, 0};
	struct strbuf text = STRBUF_INIT;
	struct bl_error err = BL_ERROR_INIT;

	(void)state;
	parse_file("fixtures/native/one.json", 1);
	parse_file("fixtures/native/array.json", 1);
	parse_file("fixtures/native/lines.jsonl", 1);
	parse_file("fixtures/native/unknown-keys.json", 1);
	assert_int_equal(
	    read_file_capped(&text, "fixtures/native/lines.jsonl", INGEST_MAX_FILE, &err), 0);
	assert_int_equal(adapters_parse_native(&b, "l", text.buf, text.len, &err), 0);
	assert_int_equal(b.nr, 3);
	ingest_batch_release(&b);
	bl_error_release(&err);
	strbuf_release(&text);
}

/* Every tests/fuzz/regressions/native-* input runs cleanly (under the sanitizers in
 * `make check SANITIZE=...`). */
static void fuzz_regressions_replay(void **state)
{
	DIR *dir = opendir("tests/fuzz/regressions");
	struct dirent *de;
	size_t n = 0;

	(void)state;
	if (!dir)
		fail_msg(
		    "cannot open tests/fuzz/regressions (run the unit tests from the repository's "
		    "root)");
	while ((de = readdir(dir))) {
		struct strbuf path = STRBUF_INIT;
		if (strncmp(de->d_name, "native-", 7))
			continue;
		strbuf_addf(&path, "tests/fuzz/regressions/%s", de->d_name);
		parse_file(path.buf, 0);
		strbuf_release(&path);
		n++;
	}
	closedir(dir);
	/* Some are saved: none replayed means their names or their directory moved. */
	assert_true(n > 0);
}

static void assert_same_str(const char *a, const char *b)
{
	if (!a || !b)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
}

/* A record staged on disk reads back field for field (every optional field set, samples, a
 * record without them), in order, and the results kept beside them too. */
static void records_round_trip_through_a_stage(void **state)
{
	struct ingest_batch b = {NULL, 0, 0};
	struct ingest_stage sg;
	struct bl_error err = BL_ERROR_INIT;
	const struct ingest_record *back;
	char *full = record(
	    "source",
	    "{\"commit\": \"ABCDEF0123456789ABCDEF0123456789ABCDEF01\", \"source_hash\": "
	    "\"FEDCBA9876543210FEDCBA9876543210FEDCBA98\", \"branch\": \"topic\", "
	    "\"committed_at\": \"2026-11-01T22:10:00Z\", \"dirty\": true}",
	    "metrics",
	    "{\"z\": {\"kind\": \"timed\", \"unit\": \"us\", \"samples\": [3, 1.5, 2]}, "
	    "\"allocs\": "
	    "{\"kind\": \"counted\", \"unit\": \"allocs\", \"value\": 5790}, \"q\": {\"kind\": "
	    "\"quantile\", \"unit\": \"ms\", \"value\": -0.5, \"ladder\": \"ms\"}}",
	    "config", "\"1080p\"", "content_hash", "\"5d41\"", "profile", "\"debug\"", "baseline",
	    "true", "machine_info", "{\"os\": \"linux\"}", "preflight", "{\"quiet\": false}", NULL);
	char *plain = record(NULL);
	struct strbuf wide = STRBUF_INIT;
	char *wide_text;

	(void)state;
	/* more metrics than any buffer starts with */
	strbuf_addch(&wide, '{');
	for (int i = 0; i < 300; i++)
		strbuf_addf(&wide,
			    "%s\"m%03d\": {\"kind\": \"timed\", \"unit\": \"us\", \"median\": %d}",
			    i ? ", " : "", i, i + 1);
	strbuf_addch(&wide, '}');
	wide_text = record("metrics", wide.buf, NULL);
	parse_ok(&b, full);
	parse_ok(&b, plain);
	parse_ok(&b, wide_text);
	assert_int_equal(b.records[2].nmetrics, 300);
	ingest_stage_init(&sg);
	for (size_t i = 0; i < b.nr; i++)
		assert_int_equal(ingest_stage_add(&sg, &b.records[i], &err), 0);
	assert_int_equal(ingest_stage_rewind(&sg, &err), 0);
	for (size_t i = 0; i < b.nr; i++) {
		const struct ingest_record *rec = &b.records[i];
		struct ingest_stage_result res = {(int64_t)i + 7, INGEST_SUPERSEDED, {0}};
		assert_int_equal(ingest_stage_next(&back, &sg, &err), 1);
		assert_same_str(back->machine, rec->machine);
		assert_same_str(back->machine_info, rec->machine_info);
		assert_same_str(back->benchmark, rec->benchmark);
		assert_same_str(back->config, rec->config);
		assert_same_str(back->content_hash, rec->content_hash);
		assert_same_str(back->branch, rec->branch);
		assert_same_str(back->profile, rec->profile);
		assert_same_str(back->primary, rec->primary);
		assert_same_str(back->raw, rec->raw);
		assert_string_equal(back->commit, rec->commit);
		assert_string_equal(back->source_hash, rec->source_hash);
		assert_string_equal(back->digest, rec->digest);
		assert_int_equal(back->harness_version, rec->harness_version);
		assert_int_equal(back->dirty, rec->dirty);
		assert_int_equal(back->baseline, rec->baseline);
		assert_int_equal(back->has_preflight, rec->has_preflight);
		assert_int_equal(back->preflight_quiet, rec->preflight_quiet);
		assert_int_equal(back->line, rec->line);
		assert_memory_equal(&back->committed_at, &rec->committed_at, sizeof(double));
		assert_memory_equal(&back->started_at, &rec->started_at, sizeof(double));
		assert_int_equal(back->nmetrics, rec->nmetrics);
		for (size_t k = 0; k < rec->nmetrics; k++) {
			const struct ingest_metric *x = &back->metrics[k], *y = &rec->metrics[k];
			assert_string_equal(x->name, y->name);
			assert_string_equal(x->unit, y->unit);
			assert_same_str(x->ladder, y->ladder);
			assert_int_equal(x->kind, y->kind);
			assert_int_equal(x->better_higher, y->better_higher);
			assert_int_equal(x->n, y->n);
			assert_memory_equal(&x->median, &y->median, sizeof(double));
			assert_memory_equal(&x->p95, &y->p95, sizeof(double));
			assert_memory_equal(&x->value, &y->value, sizeof(double));
			assert_int_equal(x->nsamples, y->nsamples);
			assert_int_equal(!x->samples, !y->samples);
			if (y->samples)
				assert_memory_equal(x->samples, y->samples,
						    y->nsamples * sizeof(double));
		}
		assert_int_equal(ingest_stage_put_result(&sg, &res, &err), 0);
	}
	assert_int_equal(ingest_stage_next(&back, &sg, &err), 0);
	assert_null(back);
	assert_int_equal(ingest_stage_rewind(&sg, &err), 0);
	for (size_t i = 0; i < b.nr; i++) {
		struct ingest_stage_result res;
		assert_int_equal(ingest_stage_get_result(&res, &sg, &err), 0);
		assert_int_equal(res.run_id, (int64_t)i + 7);
		assert_int_equal(res.outcome, INGEST_SUPERSEDED);
	}
	ingest_stage_release(&sg);
	ingest_batch_release(&b);
	bl_error_release(&err);
	free(full);
	free(plain);
	free(wide_text);
	strbuf_release(&wide);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(one_object_with_defaults),
	    cmocka_unit_test(records_round_trip_through_a_stage),
	    cmocka_unit_test(every_optional_field),
	    cmocka_unit_test(primary_defaults_to_first_timed_by_name),
	    cmocka_unit_test(an_array_of_records),
	    cmocka_unit_test(json_lines),
	    cmocka_unit_test(json_lines_error_on_the_third_line),
	    cmocka_unit_test(array_error_in_the_second_record),
	    cmocka_unit_test(array_syntax),
	    cmocka_unit_test(empty_files),
	    cmocka_unit_test(a_byte_order_mark_is_skipped),
	    cmocka_unit_test(a_top_level_value_that_is_not_an_object),
	    cmocka_unit_test(truncated_json),
	    cmocka_unit_test(nan_infinity_overflow),
	    cmocka_unit_test(invalid_utf8),
	    cmocka_unit_test(long_tokens_are_found_without_a_quote),
	    cmocka_unit_test(duplicate_keys),
	    cmocka_unit_test(nul_byte),
	    cmocka_unit_test(unknown_schema),
	    cmocka_unit_test(missing_required_fields),
	    cmocka_unit_test(wrong_types),
	    cmocka_unit_test(negative_times),
	    cmocka_unit_test(bad_names_hashes_timestamps_kinds),
	    cmocka_unit_test(strings_over_4096_bytes),
	    cmocka_unit_test(samples_over_one_million),
	    cmocka_unit_test(median_and_p95_from_samples_by_nearest_rank),
	    cmocka_unit_test(unknown_keys_are_kept_in_raw),
	    cmocka_unit_test(digest_is_stable_across_key_order_and_whitespace),
	    cmocka_unit_test(nothing_is_appended_on_error),
	    cmocka_unit_test(the_fixtures_parse),
	    cmocka_unit_test(fuzz_regressions_replay),
	};
	int ret;

	git_libgit2_init();
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return ret;
}

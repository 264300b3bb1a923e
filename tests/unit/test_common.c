/* Unit tests for common/: strbuf, errors, timestamps, UTF-8, hex, globs. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/common.h"

static void strbuf_starts_empty_and_never_null(void **state)
{
	(void)state;
	struct strbuf sb = STRBUF_INIT;
	assert_non_null(sb.buf);
	assert_string_equal(sb.buf, "");
	strbuf_release(&sb);
	assert_non_null(sb.buf);
	assert_int_equal(sb.len, 0);
}

static void strbuf_grows_across_many_appends(void **state)
{
	(void)state;
	struct strbuf sb = STRBUF_INIT;
	for (int i = 0; i < 10000; i++)
		strbuf_addf(&sb, "%d,", i % 10);
	assert_int_equal(sb.len, 20000);
	assert_memory_equal(sb.buf, "0,1,2,", 6);
	assert_int_equal(sb.buf[sb.len], '\0');
	strbuf_setlen(&sb, 3);
	assert_string_equal(sb.buf, "0,1");
	size_t len;
	char *owned = strbuf_detach(&sb, &len);
	assert_int_equal(len, 3);
	assert_string_equal(owned, "0,1");
	assert_string_equal(sb.buf, "");
	free(owned);
}

static void strbuf_addf_handles_long_output(void **state)
{
	(void)state;
	struct strbuf sb = STRBUF_INIT;
	char big[5000];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	strbuf_addf(&sb, "<%s>", big);
	assert_int_equal(sb.len, 5001);
	assert_int_equal(sb.buf[0], '<');
	assert_int_equal(sb.buf[5000], '>');
	strbuf_release(&sb);
}

static void strbuf_json_string_escapes(void **state)
{
	(void)state;
	struct strbuf sb = STRBUF_INIT;
	strbuf_add_json_string(&sb, "a\"b\\c\nd\x01");
	assert_string_equal(sb.buf, "\"a\\\"b\\\\c\\nd\\u0001\"");
	strbuf_release(&sb);
}

static void error_set_and_prefix(void **state)
{
	(void)state;
	struct bl_error err = BL_ERROR_INIT;
	assert_int_equal(bl_error_set(&err, BL_EINVALID, "bad '%s'", "x"), BL_EINVALID);
	bl_error_prefix(&err, "file.json:%d", 3);
	assert_string_equal(err.msg.buf, "file.json:3: bad 'x'");
	assert_int_equal(err.code, BL_EINVALID);
	/* A NULL error is allowed and only returns the code. */
	assert_int_equal(bl_error_set(NULL, BL_EIO, "ignored"), BL_EIO);
	bl_error_release(&err);
}

static void rfc3339_accepts_utc(void **state)
{
	(void)state;
	double t;
	assert_int_equal(parse_rfc3339_utc("1970-01-01T00:00:00Z", &t), 0);
	assert_true(t == 0);
	assert_int_equal(parse_rfc3339_utc("2026-11-02T04:00:00Z", &t), 0);
	assert_true(t == 1793592000.0);
	assert_int_equal(parse_rfc3339_utc("2026-11-02T04:00:00.25Z", &t), 0);
	assert_true(t == 1793592000.25);
	assert_int_equal(parse_rfc3339_utc("2024-02-29T12:00:00Z", &t), 0);
	struct strbuf sb = STRBUF_INIT;
	format_rfc3339_utc(&sb, 1793592000);
	assert_string_equal(sb.buf, "2026-11-02T04:00:00Z");
	strbuf_release(&sb);
}

static void rfc3339_rejects_the_rest(void **state)
{
	(void)state;
	double t;
	const char *bad[] = {
	    "2026-11-02T04:00:00",	 /* no zone */
	    "2026-11-02T04:00:00+01:00", /* not UTC */
	    "2026-11-02 04:00:00Z",	 /* no T */
	    "2026-13-02T04:00:00Z",	 /* month */
	    "2026-02-30T04:00:00Z",	 /* day */
	    "2025-02-29T04:00:00Z",	 /* not a leap year */
	    "2026-11-02T24:00:00Z",	 /* hour */
	    "2026-11-02T04:00:00.Z",	 /* empty fraction */
	    "2026-11-02T04:00:00Zjunk",	 "",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(parse_rfc3339_utc(bad[i], &t), BL_EINVALID);
}

static void utf8_validation(void **state)
{
	(void)state;
	assert_true(utf8_valid("plain", 5));
	assert_true(utf8_valid("caf\xc3\xa9", 5));
	assert_true(utf8_valid("\xf0\x9f\x98\x80", 4));
	assert_false(utf8_valid("\xff", 1));
	assert_false(utf8_valid("caf\xc3", 4));	     /* truncated */
	assert_false(utf8_valid("\xc0\xaf", 2));     /* overlong */
	assert_false(utf8_valid("\xed\xa0\x80", 3)); /* surrogate */
}

static void hex40(void **state)
{
	(void)state;
	assert_true(is_hex40("0123456789abcdef0123456789ABCDEF01234567"));
	assert_false(is_hex40("0123456789abcdef0123456789abcdef0123456"));
	assert_false(is_hex40("0123456789abcdef0123456789abcdef012345678"));
	assert_false(is_hex40("g123456789abcdef0123456789abcdef01234567"));
}

static void globs(void **state)
{
	(void)state;
	assert_true(glob_match("m4-*", "m4-pro-metal"));
	assert_false(glob_match("m4-*", "rtx2070"));
	assert_true(glob_match("*", "anything"));
}

static void file_reading_is_capped(void **state)
{
	(void)state;
	char path[] = "/tmp/benchline-unit-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "0123456789", 10), 10);
	close(fd);
	struct strbuf sb = STRBUF_INIT;
	struct bl_error err = BL_ERROR_INIT;
	assert_int_equal(read_file_capped(&sb, path, 10, &err), 0);
	assert_string_equal(sb.buf, "0123456789");
	strbuf_reset(&sb);
	assert_int_equal(read_file_capped(&sb, path, 9, &err), BL_ETOOBIG);
	assert_non_null(strstr(err.msg.buf, "too big"));
	unlink(path);
	assert_int_equal(read_file_capped(&sb, path, 9, &err), BL_EIO);
	assert_non_null(strstr(err.msg.buf, "cannot open '/tmp/benchline-unit-"));
	strbuf_release(&sb);
	bl_error_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(strbuf_starts_empty_and_never_null),
	    cmocka_unit_test(strbuf_grows_across_many_appends),
	    cmocka_unit_test(strbuf_addf_handles_long_output),
	    cmocka_unit_test(strbuf_json_string_escapes),
	    cmocka_unit_test(error_set_and_prefix),
	    cmocka_unit_test(rfc3339_accepts_utc),
	    cmocka_unit_test(rfc3339_rejects_the_rest),
	    cmocka_unit_test(utf8_validation),
	    cmocka_unit_test(hex40),
	    cmocka_unit_test(globs),
	    cmocka_unit_test(file_reading_is_capped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

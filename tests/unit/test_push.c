/* Unit tests for ingest/push/: the backoff schedule, which statuses are retried, the spool's
 * names and files, the token file's rule, the answer's check, and the body a batch becomes. */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "ingest/adapters/adapters.h"
#include "ingest/push/push.h"

static void the_delays_double_from_the_base(void **state)
{
	struct push_retry r;
	(void)state;
	push_retry_init(&r);
	assert_int_equal(r.retries, 3);
	assert_int_equal(push_retry_delay_ms(&r, 1, -1), 200);
	assert_int_equal(push_retry_delay_ms(&r, 2, -1), 400);
	assert_int_equal(push_retry_delay_ms(&r, 3, -1), 800);
	assert_int_equal(push_retry_delay_ms(&r, 4, -1), 1600);
	/* The schedule itself is not cut: --retries bounds it. */
	assert_int_equal(push_retry_delay_ms(&r, 7, -1), 12800);
	r.base_delay_ms = 0;
	assert_int_equal(push_retry_delay_ms(&r, 3, -1), 0);
	/* A huge attempt number does not overflow. */
	r.base_delay_ms = 200;
	assert_true(push_retry_delay_ms(&r, 1000, -1) > 0);
}

static void a_longer_retry_after_wins_up_to_its_cap(void **state)
{
	struct push_retry r;
	(void)state;
	push_retry_init(&r);
	assert_int_equal(push_retry_delay_ms(&r, 1, 1.5), 1500);
	assert_int_equal(push_retry_delay_ms(&r, 3, 0.5), 800); /* shorter: the schedule */
	assert_int_equal(push_retry_delay_ms(&r, 1, 3600), PUSH_MAX_DELAY_MS);
	assert_int_equal(push_retry_delay_ms(&r, 1, 0), 200);
}

static void only_what_may_pass_is_retried(void **state)
{
	(void)state;
	assert_true(push_status_retryable(0));
	assert_true(push_status_retryable(500));
	assert_true(push_status_retryable(502));
	assert_true(push_status_retryable(503));
	assert_true(push_status_retryable(599));
	assert_true(push_status_retryable(408));
	assert_true(push_status_retryable(429));
	assert_false(push_status_retryable(400));
	assert_false(push_status_retryable(401));
	assert_false(push_status_retryable(403));
	assert_false(push_status_retryable(404));
	assert_false(push_status_retryable(413));
	assert_false(push_status_retryable(200));
	assert_false(push_status_retryable(301));
}

static void spool_names_are_fixed_width_utc(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;
	/* 2026-11-02T04:00:00Z and 7 ns. */
	push_spool_name(&sb, INT64_C(1793592000) * 1000000000 + 7, 4242, 3);
	assert_string_equal(sb.buf, "20261102T040000.000000007Z-00004242-000003.json");
	assert_true(push_spool_name_valid(sb.buf));
	strbuf_release(&sb);
}

static void spool_names_sort_as_they_were_made(void **state)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, c = STRBUF_INIT, d = STRBUF_INIT;
	(void)state;
	push_spool_name(&a, INT64_C(999999999) * 1000000000 + 999999999, 99999, 0);
	push_spool_name(&b, INT64_C(1000000000) * 1000000000, 1, 0); /* a second later */
	push_spool_name(&c, INT64_C(1000000000) * 1000000000, 1, 1); /* same time, next body */
	push_spool_name(&d, INT64_C(1000000000) * 1000000000 + 10, 1, 0);
	assert_true(strcmp(a.buf, b.buf) < 0);
	assert_true(strcmp(b.buf, c.buf) < 0);
	assert_true(strcmp(c.buf, d.buf) < 0);
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&c);
	strbuf_release(&d);
}

static void only_spool_names_are_bodies(void **state)
{
	(void)state;
	assert_true(push_spool_name_valid("20260101T000000.000000000Z-00000001-000000.json"));
	assert_false(push_spool_name_valid(
	    "20260101T000000.000000000Z-00000001-000000.json.tmp.4242")); /* being written */
	assert_false(push_spool_name_valid("20260101T000000.000000000Z-00000001-000000.jso"));
	assert_false(push_spool_name_valid("2026010xT000000.000000000Z-00000001-000000.json"));
	assert_false(push_spool_name_valid(".lock"));
	assert_false(push_spool_name_valid("rejected"));
	assert_false(push_spool_name_valid(""));
}

static void the_token_is_the_first_field_of_the_first_real_line(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	static const char text[] = "# the bench server\n\n \t\r\n  s3cret  m4-*\nother\n";
	(void)state;
	assert_int_equal(push_token_parse(&sb, text, strlen(text)), 0);
	assert_string_equal(sb.buf, "s3cret");
	strbuf_reset(&sb);
	assert_int_equal(push_token_parse(&sb, "tok\r\n", 5), 0);
	assert_string_equal(sb.buf, "tok");
	strbuf_reset(&sb);
	assert_int_equal(push_token_parse(&sb, "last-line-no-newline", 20), 0);
	assert_string_equal(sb.buf, "last-line-no-newline");
	strbuf_reset(&sb);
	assert_int_equal(push_token_parse(&sb, "# only\n\n", 8), BL_EINVALID);
	assert_int_equal(push_token_parse(&sb, "", 0), BL_EINVALID);
	assert_int_equal(sb.len, 0);
	strbuf_release(&sb);
}

static void an_answer_is_checked_before_it_is_printed(void **state)
{
	static const char good[] =
	    "[{\"record\":1,\"id\":6,\"machine\":\"m\",\"benchmark\":\"b\",\"config\":\"\","
	    "\"source_hash\":\"aa\",\"harness_version\":1,\"baseline\":false,\"outcome\":"
	    "\"stands\"}]";
	static const char bad_outcome[] =
	    "[{\"record\":1,\"id\":6,\"machine\":\"m\",\"benchmark\":\"b\",\"config\":\"\","
	    "\"source_hash\":\"aa\",\"harness_version\":1,\"baseline\":false,\"outcome\":\"kept\"}"
	    "]";
	static const char no_id[] =
	    "[{\"record\":1,\"machine\":\"m\",\"benchmark\":\"b\",\"config\":\"\","
	    "\"source_hash\":\"aa\",\"harness_version\":1,\"baseline\":false,\"outcome\":"
	    "\"stands\"}]";
	struct bl_error err = BL_ERROR_INIT;
	json_t *rows = NULL;
	(void)state;
	assert_int_equal(push_answer_outcomes(&rows, good, strlen(good), &err), 0);
	assert_int_equal(json_array_size(rows), 1);
	json_decref(rows);
	assert_int_equal(push_answer_outcomes(&rows, "[]", 2, &err), 0);
	json_decref(rows);
	assert_int_equal(push_answer_outcomes(&rows, bad_outcome, strlen(bad_outcome), &err),
			 BL_EINVALID);
	assert_null(rows);
	assert_int_equal(push_answer_outcomes(&rows, no_id, strlen(no_id), &err), BL_EINVALID);
	assert_int_equal(push_answer_outcomes(&rows, "{\"error\":\"x\"}", 13, &err), BL_EINVALID);
	assert_int_equal(push_answer_outcomes(&rows, "<html>", 6, &err), BL_EINVALID);
	bl_error_release(&err);
}

static void the_records_of_a_body_are_counted_as_the_native_parser_reads_them(void **state)
{
	static const struct {
		const char *body;
		int ret;
		size_t n;
	} cases[] = {
	    {"{\"a\": 1}\n{\"b\": [1, {}]}\n", 0, 2},
	    {"{}{} \r\n\t{}", 0, 3},
	    {"\xEF\xBB\xBF{}", 0, 1},
	    {" [{}, {}, {\"x\": \"]\"}]\n", 0, 3},
	    {"[]", 0, 0},
	    {"", BL_EINVALID, 0},
	    {" \n", BL_EINVALID, 0},
	    {"<html>", BL_EINVALID, 0},
	    {"[{}] {}", BL_EINVALID, 0},
	    {"{}{", BL_EINVALID, 0},
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		size_t n = 99;
		assert_int_equal(push_body_records(&n, cases[i].body, strlen(cases[i].body)),
				 cases[i].ret);
		assert_int_equal(n, cases[i].n);
	}
}

static void an_answer_is_described_by_status_type_and_size(void **state)
{
	struct push_response r;
	struct strbuf sb = STRBUF_INIT;
	(void)state;
	push_response_init(&r);
	r.status = 200;
	strbuf_addstr(&r.content_type, "text/html; charset=utf-8");
	strbuf_addstr(&r.body, "<html>maintenance</html>");
	push_answer_describe(&sb, &r);
	assert_string_equal(sb.buf, "200, text/html, 24 bytes");
	strbuf_reset(&sb);
	strbuf_reset(&r.content_type);
	strbuf_addstr(&r.content_type, "a\x1b[2Jb");
	strbuf_reset(&r.body);
	strbuf_addch(&r.body, 'x');
	push_answer_describe(&sb, &r);
	assert_string_equal(sb.buf, "200, a?[2Jb, 1 byte");
	strbuf_reset(&sb);
	strbuf_reset(&r.content_type);
	r.status = 204;
	strbuf_reset(&r.body);
	push_answer_describe(&sb, &r);
	assert_string_equal(sb.buf, "204, no content type, 0 bytes");
	push_response_release(&r);
	strbuf_release(&sb);
}

static void outcomes_are_named_both_ways(void **state)
{
	enum ingest_outcome o;
	(void)state;
	for (int i = INGEST_STANDS; i <= INGEST_DUPLICATE; i++) {
		assert_int_equal(ingest_outcome_parse(&o, ingest_outcome_name(i)), 0);
		assert_int_equal(o, i);
	}
	assert_int_equal(ingest_outcome_parse(&o, "already stored"), BL_EINVALID);
	assert_int_equal(ingest_outcome_parse(&o, NULL), BL_EINVALID);
}

static void the_spool_directory_follows_xdg(void **state)
{
	struct push_spool *sp = NULL;
	struct bl_error err = BL_ERROR_INIT;
	(void)state;
	setenv("HOME", "/home/bench", 1);
	setenv("XDG_STATE_HOME", "/var/state", 1);
	assert_int_equal(push_spool_open(&sp, NULL, &err), 0);
	assert_string_equal(sp->dir, "/var/state/benchline/spool");
	push_spool_free(sp);
	setenv("XDG_STATE_HOME", "relative", 1); /* ignored, as the XDG rule says */
	assert_int_equal(push_spool_open(&sp, NULL, &err), 0);
	assert_string_equal(sp->dir, "/home/bench/.local/state/benchline/spool");
	push_spool_free(sp);
	unsetenv("XDG_STATE_HOME");
	assert_int_equal(push_spool_open(&sp, "own//", &err), 0);
	assert_string_equal(sp->dir, "own");
	push_spool_free(sp);
	unsetenv("HOME");
	assert_int_equal(push_spool_open(&sp, NULL, &err), BL_EINVALID);
	assert_null(sp);
	assert_int_equal(push_spool_open(&sp, "", &err), BL_EINVALID);
	bl_error_release(&err);
}

static void spooled_bodies_come_back_in_order(void **state)
{
	char tmpl[] = "/tmp/benchline-unit-spool.XXXXXX";
	char *root = mkdtemp(tmpl);
	struct strbuf dir = STRBUF_INIT, path = STRBUF_INIT, body = STRBUF_INIT,
		      moved = STRBUF_INIT;
	struct push_spool *sp = NULL;
	struct bl_error err = BL_ERROR_INIT;
	char **names = NULL;
	size_t n = 0;
	struct stat st;
	(void)state;

	assert_non_null(root);
	strbuf_addf(&dir, "%s/deep/spool", root);
	assert_int_equal(push_spool_open(&sp, dir.buf, &err), 0);
	assert_int_equal(push_spool_list(&names, &n, sp, &err), 0); /* no directory yet */
	assert_int_equal(n, 0);
	for (int i = 0; i < 3; i++) {
		char b[32];
		snprintf(b, sizeof(b), "body %d\n", i);
		strbuf_reset(&path);
		assert_int_equal(push_spool_add(&path, sp, b, strlen(b), &err), 0);
		assert_int_equal(stat(path.buf, &st), 0);
	}
	assert_int_equal(stat(dir.buf, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(push_spool_lock(sp, &err), 0);
	assert_int_equal(push_spool_list(&names, &n, sp, &err), 0);
	assert_int_equal(n, 3); /* .lock is not a body */
	for (size_t i = 0; i < n; i++) {
		char b[32];
		snprintf(b, sizeof(b), "body %zu\n", i);
		strbuf_reset(&body);
		assert_int_equal(push_spool_read(&body, sp, names[i], &err), 0);
		assert_string_equal(body.buf, b);
	}
	assert_int_equal(push_spool_reject(&moved, sp, names[0], "{\"error\":\"no\"}", 14, &err),
			 0);
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/rejected/%s", dir.buf, names[0]);
	assert_string_equal(moved.buf, path.buf);
	strbuf_addstr(&path, ".answer");
	strbuf_reset(&body);
	assert_int_equal(read_file_capped(&body, path.buf, 100, &err), 0);
	assert_string_equal(body.buf, "{\"error\":\"no\"}");
	assert_int_equal(push_spool_remove(sp, names[1], &err), 0);
	assert_int_equal(push_spool_remove(sp, names[1], &err), 0); /* gone already: fine */
	strings_free(names, n);
	push_spool_unlock(sp);
	assert_int_equal(push_spool_list(&names, &n, sp, &err), 0);
	assert_int_equal(n, 1);
	strings_free(names, n);
	push_spool_free(sp);

	strbuf_reset(&path);
	strbuf_addf(&path, "rm -rf '%s'", root);
	assert_int_equal(system(path.buf), 0);
	strbuf_release(&dir);
	strbuf_release(&path);
	strbuf_release(&body);
	strbuf_release(&moved);
	bl_error_release(&err);
}

/* What is not a regular file is never read as a body: a symlink is not followed, a directory
 * or a FIFO is not opened for its content (a FIFO would block). */
static void only_regular_files_are_read_from_the_spool(void **state)
{
	char tmpl[] = "/tmp/benchline-unit-spool.XXXXXX";
	char *root = mkdtemp(tmpl);
	static const char *const names[] = {
	    "20260101T000000.000000000Z-00000001-000000.json",
	    "20260101T000000.000000000Z-00000001-000001.json",
	    "20260101T000000.000000000Z-00000001-000002.json",
	    "20260101T000000.000000000Z-00000001-000003.json",
	};
	struct strbuf path = STRBUF_INIT, body = STRBUF_INIT;
	struct push_spool *sp = NULL;
	struct bl_error err = BL_ERROR_INIT;
	(void)state;

	assert_non_null(root);
	assert_int_equal(push_spool_open(&sp, root, &err), 0);
	strbuf_addf(&path, "%s/%s", root, names[0]);
	assert_int_equal(symlink("/etc/passwd", path.buf), 0);
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/%s", root, names[1]);
	assert_int_equal(mkdir(path.buf, 0700), 0);
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/%s", root, names[2]);
	assert_int_equal(mkfifo(path.buf, 0600), 0);
	assert_int_equal(push_spool_read(&body, sp, names[0], &err), BL_EINVALID);
	assert_non_null(strstr(err.msg.buf, "a symbolic link, never followed: skipped"));
	assert_int_equal(push_spool_read(&body, sp, names[1], &err), BL_EINVALID);
	assert_non_null(strstr(err.msg.buf, "not a regular file (a directory): skipped"));
	assert_int_equal(push_spool_read(&body, sp, names[2], &err), BL_EINVALID);
	assert_non_null(strstr(err.msg.buf, "not a regular file (a FIFO): skipped"));
	assert_int_equal(push_spool_read(&body, sp, names[3], &err), BL_ENOTFOUND);
	assert_int_equal(body.len, 0);
	push_spool_free(sp);

	strbuf_reset(&path);
	strbuf_addf(&path, "rm -rf '%s'", root);
	assert_int_equal(system(path.buf), 0);
	strbuf_release(&path);
	strbuf_release(&body);
	bl_error_release(&err);
}

static void a_batch_becomes_one_record_a_line_with_its_source_hash(void **state)
{
	static const char text[] =
	    "{\"schema\":1,\"machine\":\"m\",\"benchmark\":\"b\",\"harness_version\":2,"
	    "\"source\":{\"commit\":\"3f7fd6b5c0ffee00000000000000000000000000\"},"
	    "\"started_at\":\"2026-11-02T04:00:00Z\",\"metrics\":{\"t\":{\"unit\":\"ms\","
	    "\"median\":1.5,\"p95\":1.75}}}\n"
	    "{\"schema\":1,\"machine\":\"m\",\"benchmark\":\"c\",\"harness_version\":2,"
	    "\"source\":{\"commit\":\"3f7fd6b5c0ffee00000000000000000000000000\","
	    "\"source_hash\":\"2d5d1c3600000000000000000000000000000000\"},"
	    "\"started_at\":\"2026-11-02T04:00:00Z\",\"metrics\":{\"t\":{\"unit\":\"ms\","
	    "\"median\":0.1,\"p95\":0.30000000000000004}}}\n";
	struct ingest_batch batch = {NULL, 0, 0}, again = {NULL, 0, 0};
	struct strbuf body = STRBUF_INIT;
	struct bl_error err = BL_ERROR_INIT;
	(void)state;

	assert_int_equal(adapters_parse_native(&batch, "t", text, strlen(text), &err), 0);
	assert_int_equal(batch.nr, 2);
	/* What the intake does for a record that carried only its commit. */
	memcpy(batch.records[0].source_hash, "1111111111111111111111111111111111111111", 41);
	assert_int_equal(ingest_intake_body(&body, &batch, &err), 0);
	assert_non_null(
	    strstr(body.buf, "\"source_hash\":\"1111111111111111111111111111111111111111\""));
	/* The second went as it was read: byte for byte its canonical JSON. */
	assert_non_null(strstr(body.buf, batch.records[1].raw));
	assert_int_equal(body.buf[body.len - 1], '\n');
	/* What the server reads back is the same records, the second the same run. */
	assert_int_equal(adapters_parse_native(&again, "request", body.buf, body.len, &err), 0);
	assert_int_equal(again.nr, 2);
	assert_string_equal(again.records[0].source_hash, batch.records[0].source_hash);
	assert_string_equal(again.records[1].digest, batch.records[1].digest);
	assert_true(again.records[1].metrics[0].p95 == 0.30000000000000004);
	ingest_batch_release(&batch);
	ingest_batch_release(&again);
	strbuf_release(&body);
	bl_error_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(the_delays_double_from_the_base),
	    cmocka_unit_test(a_longer_retry_after_wins_up_to_its_cap),
	    cmocka_unit_test(only_what_may_pass_is_retried),
	    cmocka_unit_test(spool_names_are_fixed_width_utc),
	    cmocka_unit_test(spool_names_sort_as_they_were_made),
	    cmocka_unit_test(only_spool_names_are_bodies),
	    cmocka_unit_test(the_token_is_the_first_field_of_the_first_real_line),
	    cmocka_unit_test(an_answer_is_checked_before_it_is_printed),
	    cmocka_unit_test(outcomes_are_named_both_ways),
	    cmocka_unit_test(the_records_of_a_body_are_counted_as_the_native_parser_reads_them),
	    cmocka_unit_test(an_answer_is_described_by_status_type_and_size),
	    cmocka_unit_test(the_spool_directory_follows_xdg),
	    cmocka_unit_test(spooled_bodies_come_back_in_order),
	    cmocka_unit_test(only_regular_files_are_read_from_the_spool),
	    cmocka_unit_test(a_batch_becomes_one_record_a_line_with_its_source_hash),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

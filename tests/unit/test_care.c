/*
 * Data care: the tag rules of one record (ingest_record_tags), retag and rm in one transaction
 * each (a dry run or an error leaves the database as it was), and ignoring an alert's checks.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/common.h"
#include "detect/confirm/confirm.h"
#include "ingest/ingest.h"
#include "ingest/adapters/adapters.h"
#include "store/store.h"
#include "unit_store.h"

/* A record of m1/town at commit number c, with these extra top-level and source members. */
static void record_text(struct strbuf *sb, int c, const char *top, const char *source, double p95)
{
	strbuf_addf(sb,
		    "{\"schema\": 1, \"machine\": \"m1\", \"benchmark\": \"town\", "
		    "\"harness_version\": 1, %s\"source\": {\"commit\": \"%040d\", "
		    "\"source_hash\": \"%040d\"%s}, \"started_at\": \"2026-01-01T00:00:00Z\", "
		    "\"metrics\": {\"t\": {\"kind\": \"timed\", \"unit\": \"ms\", \"median\": 100, "
		    "\"p95\": %g, \"n\": 12}}}\n",
		    top, c, c, source, p95);
}

static void parse(struct ingest_batch *batch, const char *text)
{
	struct bl_error err = BL_ERROR_INIT;
	if (adapters_parse_native(batch, "t.json", text, strlen(text), &err))
		fail_msg("%s", err.msg.buf);
	bl_error_release(&err);
}

static void store_text(struct store *st, const char *text)
{
	struct ingest_batch batch = {NULL, 0, 0};
	struct bl_error err = BL_ERROR_INIT;
	parse(&batch, text);
	if (ingest_store(st, &batch, NULL, NULL, NULL, &err))
		fail_msg("%s", err.msg.buf);
	ingest_batch_release(&batch);
	bl_error_release(&err);
}

/* Rows of a table, read through a connection of its own: what is committed. */
static int64_t count_in(const char *path, const char *table)
{
	char sql[80];
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", table);
	return unit_sql_int64(path, sql);
}

static void record_tags_are_the_rules_of_one_record(void **state)
{
	struct ingest_batch batch = {NULL, 0, 0};
	struct bl_error err = BL_ERROR_INIT;
	struct strbuf sb = STRBUF_INIT;
	char path[160];
	struct store *st = unit_store_open(path, sizeof(path), "care-tags");
	unsigned tags;
	(void)state;

	record_text(&sb, 1, "\"profile\": \"debug\", \"preflight\": {\"quiet\": false}, ",
		    ", \"branch\": \"feature\", \"dirty\": true", 107);
	record_text(&sb, 2, "\"baseline\": true, ", ", \"branch\": \"feature\"", 101);
	parse(&batch, sb.buf);
	assert_int_equal(batch.nr, 2);
	assert_int_equal(ingest_record_tags(&tags, st, &batch.records[0], 1.06, 10, &err), 0);
	assert_int_equal(tags, INGEST_TAG_DIRTY | INGEST_TAG_PROFILE | INGEST_TAG_PREFLIGHT |
				   INGEST_TAG_NOISY | INGEST_TAG_NOT_MAIN);
	/* the noisy limit and the sample count are the caller's */
	assert_int_equal(ingest_record_tags(&tags, st, &batch.records[0], 1.08, 10, &err), 0);
	assert_false(tags & INGEST_TAG_NOISY);
	assert_int_equal(ingest_record_tags(&tags, st, &batch.records[0], 1.06, 13, &err), 0);
	assert_false(tags & INGEST_TAG_NOISY);
	/* an imported Baseline is never not-main */
	assert_int_equal(ingest_record_tags(&tags, st, &batch.records[1], 1.06, 10, &err), 0);
	assert_int_equal(tags, 0);
	assert_int_equal(INGEST_QUALITY_TAGS & (INGEST_TAG_NOT_MAIN | INGEST_TAG_SUPERSEDED), 0);
	ingest_batch_release(&batch);
	strbuf_release(&sb);
	bl_error_release(&err);
	unit_store_close(st, path);
}

static void retag_dry_run_writes_nothing(void **state)
{
	struct ingest_retag_result res;
	struct config cfg;
	struct bl_error err = BL_ERROR_INIT;
	struct strbuf sb = STRBUF_INIT;
	char path[160];
	struct store *st = unit_store_open(path, sizeof(path), "care-retag");
	(void)state;

	record_text(&sb, 1, "", "", 103);
	record_text(&sb, 2, "", "", 103);
	store_text(st, sb.buf);
	assert_int_equal(count_in(path, "tags"), 0);
	config_init(&cfg);
	cfg.noisy_limit = 1.02;
	assert_int_equal(ingest_retag(&res, st, &adapters_parsers, &cfg, "tester", 1, &err), 0);
	assert_int_equal(res.runs, 2);
	assert_int_equal(res.retagged, 2);
	assert_int_equal(res.added[1], 2); /* noisy, the second tag in the store's order */
	assert_int_equal(count_in(path, "tags"), 0);
	assert_int_equal(count_in(path, "audit"), 0);
	assert_int_equal(ingest_retag(&res, st, &adapters_parsers, &cfg, "tester", 0, &err), 0);
	assert_int_equal(count_in(path, "tags"), 2);
	assert_int_equal(count_in(path, "audit"), 1);
	/* nothing more to change: no audit row */
	assert_int_equal(ingest_retag(&res, st, &adapters_parsers, &cfg, "tester", 0, &err), 0);
	assert_int_equal(res.retagged, 0);
	assert_int_equal(count_in(path, "audit"), 1);
	config_release(&cfg);
	strbuf_release(&sb);
	bl_error_release(&err);
	unit_store_close(st, path);
}

static void rm_removes_all_or_nothing(void **state)
{
	struct ingest_rm_request req;
	struct ingest_rm_result res;
	struct bl_error err = BL_ERROR_INIT;
	struct strbuf sb = STRBUF_INIT;
	int64_t ids[2] = {1, 7};
	char path[160];
	struct store *st = unit_store_open(path, sizeof(path), "care-rm");
	(void)state;

	record_text(&sb, 1, "", "", 103);
	record_text(&sb, 2, "", "", 103);
	store_text(st, sb.buf);
	memset(&req, 0, sizeof(req));
	req.ids = ids;
	req.nids = 2;
	req.who = "tester";
	req.why = "a test";
	assert_int_equal(ingest_rm(&res, st, &req, NULL, NULL, &err), BL_ENOTFOUND);
	assert_string_equal(err.msg.buf, "no run 7");
	assert_int_equal(count_in(path, "runs"), 2);
	assert_int_equal(count_in(path, "audit"), 0);
	/* no reason: refused before anything is read */
	req.nids = 1;
	req.why = "";
	assert_int_equal(ingest_rm(&res, st, &req, NULL, NULL, &err), BL_EINVALID);
	req.why = "a test";
	req.dry_run = 1;
	assert_int_equal(ingest_rm(&res, st, &req, NULL, NULL, &err), 0);
	assert_int_equal(res.removed, 1);
	assert_int_equal(count_in(path, "runs"), 2);
	req.dry_run = 0;
	assert_int_equal(ingest_rm(&res, st, &req, NULL, NULL, &err), 0);
	assert_int_equal(res.removed, 1);
	assert_int_equal(res.keys_emptied, 1);
	assert_int_equal(count_in(path, "runs"), 1);
	assert_int_equal(count_in(path, "metrics"), 1);
	assert_int_equal(count_in(path, "records"), 1);
	assert_int_equal(count_in(path, "removed_runs"), 1);
	strbuf_release(&sb);
	bl_error_release(&err);
	unit_store_close(st, path);
}

static void ignore_needs_a_reason_and_an_alert(void **state)
{
	struct bl_error err = BL_ERROR_INIT;
	enum suspect_state was;
	char path[160];
	struct store *st = unit_store_open(path, sizeof(path), "care-ignore");
	(void)state;

	assert_int_equal(confirm_ignore_alert(&was, st, 1, "tester", " ", &err), BL_EINVALID);
	bl_error_release(&err);
	assert_int_equal(confirm_ignore_alert(&was, st, 1, "tester", "why", &err), BL_ENOTFOUND);
	assert_string_equal(err.msg.buf, "no alert 1");
	assert_int_equal(count_in(path, "audit"), 0);
	bl_error_release(&err);
	unit_store_close(st, path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(record_tags_are_the_rules_of_one_record),
	    cmocka_unit_test(retag_dry_run_writes_nothing),
	    cmocka_unit_test(rm_removes_all_or_nothing),
	    cmocka_unit_test(ignore_needs_a_reason_and_an_alert),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Unit tests for the alert rules of §9.1 (detect/alerts.c), through a real database: small
 * hand-made Series, each built to show one rule. Records are one a day on machine m1, commit
 * number i (40 digits) committed on day i, so the last three digits name a record.
 */
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
#include "detect/detect.h"
#include "ingest/ingest.h"
#include "ingest/adapters/adapters.h"
#include "store/store.h"
#include "tests/unit/unit_store.h"

struct db {
	char path[160];
	struct store *st;
};

static void db_open(struct db *db)
{
	db->st = unit_store_open(db->path, sizeof(db->path), "test_alerts");
}

static void db_close(struct db *db)
{
	unit_store_close(db->st, db->path);
}

/* Records of benchmark `bench` at commits first, first + 1, ... with the given medians. */
static void add(struct db *db, const char *bench, int first, const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct ingest_batch batch = {NULL, 0, 0};
		struct bl_error err = BL_ERROR_INIT;
		struct strbuf json = STRBUF_INIT;
		int c = first + (int)i;
		strbuf_addf(&json,
			    "{\"schema\": 1, \"machine\": \"m1\", \"benchmark\": \"%s\","
			    " \"harness_version\": 1, \"source\": {\"commit\": \"%040d\","
			    " \"source_hash\": \"%040d\", \"branch\": \"main\","
			    " \"committed_at\": \"2026-%02d-%02dT00:00:00Z\"},"
			    " \"started_at\": \"2026-%02d-%02dT01:00:00Z\","
			    " \"metrics\": {\"wall_ms\": {\"kind\": \"timed\", \"unit\": \"ms\","
			    " \"median\": %.17g}}}",
			    bench, c, c, 1 + c / 28, 1 + c % 28, 1 + c / 28, 1 + c % 28, v[i]);
		if (adapters_parse_native(&batch, "test", json.buf, json.len, &err) ||
		    ingest_store(db->st, &batch, NULL, NULL, NULL, &err))
			fail_msg("%s", err.msg.buf);
		ingest_batch_release(&batch);
		strbuf_release(&json);
		bl_error_release(&err);
	}
}

#define ADD(db, bench, first, ...)                                                                 \
	do {                                                                                       \
		const double v_[] = {__VA_ARGS__};                                                 \
		add(db, bench, first, v_, sizeof(v_) / sizeof(v_[0]));                             \
	} while (0)

/* Eight quiet records, commits 1 to 8. */
#define FLAT 100, 101, 99, 100, 100, 101, 99, 100

/* detect with quiet.transient_records t (0: as the last detect, or the default). */
static void detect(struct db *db, int t, int all)
{
	struct detect_options opts;
	struct detect_result res;
	struct bl_error err = BL_ERROR_INIT;
	memset(&opts, 0, sizeof(opts));
	opts.transient_records = t;
	opts.all = all;
	if (detect_run(&res, db->st, &opts, &err))
		fail_msg("%s", err.msg.buf);
	bl_error_release(&err);
}

struct listing {
	struct strbuf sb;
	struct store *st;
};

/* "ID COMMIT SIDE STATE SERIES SUSPECTS REFERENCE" per alert, commits by their last 3 digits. */
static int list_one(const struct store_alert *a, void *data)
{
	struct listing *l = data;
	struct bl_error err = BL_ERROR_INIT;
	int64_t *ids;
	size_t n;
	if (store_alert_suspect_ids(&ids, &n, l->st, a->id, &err))
		fail_msg("%s", err.msg.buf);
	free(ids);
	strbuf_addf(&l->sb, "%lld %s %s %s %lld %zu %s\n", (long long)a->id,
		    a->commit + strlen(a->commit) - 3, suspect_side_name(a->side),
		    suspect_state_name(a->state), (long long)a->series, n,
		    a->reference_commit ? a->reference_commit + strlen(a->reference_commit) - 3
					: "-");
	return 0;
}

static void alerts(struct strbuf *out, struct db *db)
{
	struct store_alert_filter f;
	struct listing l = {STRBUF_INIT, db->st};
	struct bl_error err = BL_ERROR_INIT;
	memset(&f, 0, sizeof(f));
	if (store_each_alert(db->st, &f, list_one, &l, &err))
		fail_msg("%s", err.msg.buf);
	strbuf_reset(out);
	strbuf_add(out, l.sb.buf, l.sb.len);
	strbuf_release(&l.sb);
}

/* A step that climbs again while every record between stays beyond the first step's band is
 * one excursion: the second mark joins the first's alert, whose reference stays on the old
 * level. A second step after the level came back is an alert of its own, with the last record
 * inside its band (100 at commit 10) as its reference. */
static void a_staircase_is_one_alert(void **state)
{
	struct db db;
	struct strbuf got = STRBUF_INIT;
	(void)state;
	db_open(&db);
	ADD(&db, "stairs", 1, FLAT, 110, 111, 109, 124, 125, 124, 125, 124);
	detect(&db, 0, 0);
	alerts(&got, &db);
	assert_string_equal(got.buf, "1 009 slower open 1 2 008\n");
	db_close(&db);

	db_open(&db);
	ADD(&db, "back", 1, FLAT, 110, 100, 109, 124, 125, 124, 125, 124);
	detect(&db, 0, 0);
	alerts(&got, &db);
	assert_string_equal(got.buf, "1 009 slower transient 1 1 008\n"
				     "2 012 slower open 1 1 010\n");
	db_close(&db);
	strbuf_release(&got);
}

/*
 * A step marked one record late (record 18: record 17 continued the excursion of record 9,
 * still in its window) has its predecessor on the new level: its reference is record 16, the
 * last inside its band. At the same commit another benchmark blips (record 18 only): its
 * reference is record 17. The alert holds both; the blip is transient, so the alert's
 * reference is the step's, 016, not the later 017, which is on the step's new level.
 */
static void a_blip_does_not_move_the_reference(void **state)
{
	struct db db;
	struct strbuf got = STRBUF_INIT;
	(void)state;
	db_open(&db);
	ADD(&db, "late", 1, FLAT, 130, 100, 100, 100, 100, 100, 100, 100, 131, 131, 131, 131, 131,
	    131);
	ADD(&db, "blip", 1, FLAT, 100, 100, 100, 100, 100, 100, 100, 100, 100, 130, 100, 100, 100,
	    100);
	detect(&db, 0, 0);
	alerts(&got, &db);
	assert_string_equal(got.buf, "1 009 slower transient 1 1 008\n"
				     "2 018 slower open 2 2 016\n");
	db_close(&db);
	strbuf_release(&got);
}

/* A fresh step is pending until quiet.transient_records records follow it: open when they
 * all stay beyond its band, transient as soon as one comes back first. */
static void pending_then_open_or_transient(void **state)
{
	struct db db;
	struct strbuf got = STRBUF_INIT;
	(void)state;
	db_open(&db);
	ADD(&db, "holds", 1, FLAT, 130, 131);
	ADD(&db, "drops", 1, FLAT, 100, 100, 100, 100, 100, 100, 100, 100);
	ADD(&db, "drops", 17, 130, 131);
	detect(&db, 0, 0);
	alerts(&got, &db);
	assert_string_equal(got.buf, "1 009 slower pending 1 1 008\n"
				     "2 017 slower pending 1 1 016\n");
	ADD(&db, "holds", 11, 130, 131, 130); /* four followers beyond: persisted */
	ADD(&db, "drops", 19, 100);	      /* back after one: transient */
	detect(&db, 0, 0);
	alerts(&got, &db);
	assert_string_equal(got.buf, "1 009 slower open 1 1 008\n"
				     "2 017 slower transient 1 1 016\n");
	db_close(&db);
	strbuf_release(&got);
}

/* Transience is judged under the quiet settings detect runs with: other settings judge every
 * undecided alert again, and going back gives back the first judgement, ids unchanged. */
static void a_settings_change_judges_again(void **state)
{
	struct db db;
	struct strbuf first = STRBUF_INIT, got = STRBUF_INIT;
	(void)state;
	db_open(&db);
	/* one record beyond, then back: transient under 4, persisted under 1 */
	ADD(&db, "short", 1, FLAT, 130, 131, 100, 100, 100);
	detect(&db, 0, 0);
	alerts(&first, &db);
	assert_string_equal(first.buf, "1 009 slower transient 1 1 008\n");
	detect(&db, 1, 0);
	alerts(&got, &db);
	assert_string_equal(got.buf, "1 009 slower open 1 1 008\n");
	/* without settings, detect keeps the last ones */
	detect(&db, 0, 0);
	alerts(&got, &db);
	assert_string_equal(got.buf, "1 009 slower open 1 1 008\n");
	detect(&db, DETECT_TRANSIENT_RECORDS, 0);
	alerts(&got, &db);
	assert_string_equal(got.buf, first.buf);
	db_close(&db);
	strbuf_release(&first);
	strbuf_release(&got);
}

/* An alert keeps its id through every re-detect: a full read, a Regression's break, and its
 * Suspects going and coming back (their record tagged, then not). */
static void ids_survive_a_redetect(void **state)
{
	struct db db;
	struct strbuf before = STRBUF_INIT, got = STRBUF_INIT;
	struct store_regression r;
	struct bl_error err = BL_ERROR_INIT;
	int64_t id;
	char *run, sql[200];
	(void)state;
	db_open(&db);
	ADD(&db, "a", 1, FLAT, 120, 121, 120, 121, 120, 100, 100, 100, 100, 100, 125, 126, 125, 126,
	    125);
	ADD(&db, "b", 1, FLAT, 100, 100, 100, 100, 100, 100, 100, 100, 130, 131, 130, 131, 130);
	detect(&db, 0, 0);
	alerts(&before, &db);
	/* ids in the order the walk found them: benchmark a, then b */
	assert_string_equal(before.buf, "1 009 slower open 1 1 008\n"
					"2 014 faster open 1 1 013\n"
					"3 019 slower open 1 1 018\n"
					"4 017 slower open 1 1 016\n");
	detect(&db, 0, 1);
	alerts(&got, &db);
	assert_string_equal(got.buf, before.buf);

	/* b's step pinned by bisection: b's line breaks at commit 17 (seq unknown: placed by
	 * time, so no break is drawn), and every Series is read again. */
	memset(&r, 0, sizeof(r));
	r.machine = "m1";
	r.benchmark = "b";
	r.config = "";
	r.metric = "wall_ms";
	r.commit = "0000000000000000000000000000000000000017";
	r.source_hash = r.commit;
	r.ratio = r.lo = r.hi = 1.3;
	r.reference_commit = "0000000000000000000000000000000000000016";
	r.probes = "[]";
	if (store_regression_add(&id, NULL, db.st, &r, &err))
		fail_msg("%s", err.msg.buf);
	detect(&db, 0, 0);
	alerts(&got, &db);
	assert_string_equal(got.buf, before.buf);

	/* a's record 19 tagged: its Suspect is gone, and with it alert 3 from every listing; the
	 * step is now marked at record 20, a new alert */
	run = unit_sql(db.path,
		       "SELECT run_id FROM records r JOIN runs ON runs.id = r.run_id"
		       " WHERE runs.commit_sha = '0000000000000000000000000000000000000019'");
	assert_non_null(run);
	snprintf(sql, sizeof(sql), "INSERT INTO tags (run_id, tag) VALUES (%s, 'preflight')", run);
	free(unit_sql(db.path, sql));
	detect(&db, 0, 0);
	alerts(&got, &db);
	assert_string_equal(got.buf, "1 009 slower open 1 1 008\n"
				     "2 014 faster open 1 1 013\n"
				     "4 017 slower open 1 1 016\n"
				     "5 020 slower pending 1 1 018\n");
	/* ... and back, with its id; alert 5 has no Suspect left and is listed nowhere */
	snprintf(sql, sizeof(sql), "DELETE FROM tags WHERE run_id = %s", run);
	free(unit_sql(db.path, sql));
	detect(&db, 0, 0);
	alerts(&got, &db);
	assert_string_equal(got.buf, before.buf);
	free(run);
	db_close(&db);
	bl_error_release(&err);
	strbuf_release(&before);
	strbuf_release(&got);
}

/* Run-wide needs the Series the machine judged at the alert's commit: counted by a full walk
 * as it goes, asked of the database by an incremental detect. Both give the same alerts, also
 * when the commit's records come in two detects (the second adds no Suspect: its records
 * joining their Series at the alert's commit count it again). */
static void run_wide_counts_agree(void **state)
{
	struct db db;
	struct strbuf inc = STRBUF_INIT, all = STRBUF_INIT;
	(void)state;
	db_open(&db);
	ADD(&db, "w1", 1, FLAT);
	ADD(&db, "w2", 1, FLAT);
	ADD(&db, "w3", 1, FLAT);
	ADD(&db, "w4", 1, FLAT);
	detect(&db, 0, 0);
	ADD(&db, "w1", 9, 120, 121, 120, 121);
	ADD(&db, "w2", 9, 120, 121, 120, 121);
	detect(&db, 0, 0);
	ADD(&db, "w3", 9, 100, 101, 100, 99);
	ADD(&db, "w4", 9, 100, 101, 100, 99);
	detect(&db, 0, 0);
	alerts(&inc, &db);
	assert_int_equal(unit_sql_int64(db.path, "SELECT judged_series FROM alerts WHERE id = 1"),
			 4);
	assert_int_equal(unit_sql_int64(db.path, "SELECT run_wide FROM alerts WHERE id = 1"), 1);
	/* a full walk that finds another count than the alert's counts again */
	free(unit_sql(db.path, "UPDATE alerts SET judged_series = 9, run_wide = 0"));
	detect(&db, 0, 1);
	alerts(&all, &db);
	assert_string_equal(all.buf, inc.buf);
	assert_int_equal(unit_sql_int64(db.path, "SELECT judged_series FROM alerts WHERE id = 1"),
			 4);
	assert_int_equal(unit_sql_int64(db.path, "SELECT run_wide FROM alerts WHERE id = 1"), 1);
	db_close(&db);
	strbuf_release(&inc);
	strbuf_release(&all);
}

static void the_status_of_a_mark(void **state)
{
	(void)state;
	assert_int_equal(detect_mark_status(0, 0, 4), DETECT_MARK_PENDING);
	assert_int_equal(detect_mark_status(3, 3, 4), DETECT_MARK_PENDING);
	assert_int_equal(detect_mark_status(4, 4, 4), DETECT_MARK_PERSISTED);
	assert_int_equal(detect_mark_status(8, 4, 4), DETECT_MARK_PERSISTED);
	assert_int_equal(detect_mark_status(1, 0, 4), DETECT_MARK_TRANSIENT);
	assert_int_equal(detect_mark_status(4, 3, 4), DETECT_MARK_TRANSIENT);
	assert_int_equal(detect_mark_status(2, 1, 1), DETECT_MARK_PERSISTED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(the_status_of_a_mark),
	    cmocka_unit_test(a_staircase_is_one_alert),
	    cmocka_unit_test(a_blip_does_not_move_the_reference),
	    cmocka_unit_test(pending_then_open_or_transient),
	    cmocka_unit_test(a_settings_change_judges_again),
	    cmocka_unit_test(ids_survive_a_redetect),
	    cmocka_unit_test(run_wide_counts_agree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

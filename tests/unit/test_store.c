/*
 * Unit tests for store/'s statement cache and its error messages: a walk whose callback starts
 * the same walk is refused without cutting the outer one short, a callback may use the other
 * statements, and database errors name the file.
 */
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
#include "store/store.h"
#include "tests/unit/unit_store.h"

struct db {
	char path[160];
	struct store *st;
};

static void db_open(struct db *db)
{
	db->st = unit_store_open(db->path, sizeof(db->path), "test_store");
}

static void db_close(struct db *db)
{
	unit_store_close(db->st, db->path);
}

/* Three standing records of one Series, each with a metric. */
static void add_records(struct db *db)
{
	struct bl_error err = BL_ERROR_INIT;
	int64_t machine_id, benchmark_id, run_id;
	if (store_machine(&machine_id, NULL, db->st, "m", NULL, &err) ||
	    store_benchmark(&benchmark_id, db->st, "b", &err))
		fail_msg("%s", err.msg.buf);
	for (int i = 0; i < 3; i++) {
		char digest[41], hash[41];
		struct store_run run;
		struct store_metric metric;
		struct store_key key;
		snprintf(digest, sizeof(digest), "d%039d", i);
		snprintf(hash, sizeof(hash), "%040d", i);
		memset(&run, 0, sizeof(run));
		run.digest = digest;
		run.machine_id = machine_id;
		run.benchmark_id = benchmark_id;
		run.config = "";
		run.source_hash = hash;
		run.harness_version = 1;
		run.commit = hash;
		run.committed_at = 1000 + i;
		run.started_at = 1000 + i;
		run.profile = "release";
		run.primary_metric = "t";
		run.quietness = NAN;
		run.raw = "{}";
		memset(&metric, 0, sizeof(metric));
		metric.name = "t";
		metric.kind = METRIC_TIMED;
		metric.unit = "us";
		metric.better_higher = 0;
		metric.median = 10 + i;
		metric.p95 = metric.value = NAN;
		metric.n = -1;
		key.machine_id = machine_id;
		key.benchmark_id = benchmark_id;
		key.config = "";
		key.source_hash = hash;
		key.harness_version = 1;
		if (store_insert_run(&run_id, db->st, &run, &err) ||
		    store_insert_metric(db->st, run_id, &metric, &err) ||
		    store_set_standing(db->st, &key, run_id, &err))
			fail_msg("%s", err.msg.buf);
	}
	bl_error_release(&err);
}

struct walk {
	struct store *st;
	int rows, inner_ret, counted;
	struct bl_error err;
};

static int restart(const struct store_record_row *row, void *data)
{
	struct walk *w = data;
	struct store_record_filter f = {NULL, NULL, 0};
	int64_t n = 0;
	(void)row;
	w->rows++;
	/* the same walk again: refused, and the outer one goes on */
	w->inner_ret = store_each_record(w->st, &f, restart, w, &w->err);
	/* another statement: fine */
	if (!store_count(&n, w->st, "runs", NULL))
		w->counted = (int)n;
	return 0;
}

static void a_walk_is_not_restarted_from_its_callback(void **state)
{
	struct bl_error err = BL_ERROR_INIT;
	struct store_record_filter f = {NULL, NULL, 0};
	struct walk w;
	struct db db;
	(void)state;
	db_open(&db);
	add_records(&db);
	memset(&w, 0, sizeof(w));
	w.st = db.st;
	strbuf_init(&w.err.msg, 0);
	assert_int_equal(store_each_record(db.st, &f, restart, &w, &err), 0);
	assert_int_equal(w.rows, 3);
	assert_int_equal(w.inner_ret, BL_EDB);
	assert_non_null(strstr(w.err.msg.buf, "already in use"));
	assert_non_null(strstr(w.err.msg.buf, db.path));
	assert_int_equal(w.counted, 3);
	/* and afterwards the walk runs as usual */
	w.rows = 0;
	assert_int_equal(store_each_record(db.st, &f, restart, &w, &err), 0);
	assert_int_equal(w.rows, 3);
	bl_error_release(&w.err);
	bl_error_release(&err);
	db_close(&db);
}

static void database_errors_name_the_file(void **state)
{
	struct bl_error err = BL_ERROR_INIT;
	struct store *st = NULL;
	char path[64], msg[160];
	FILE *f;
	int fd;
	(void)state;
	snprintf(path, sizeof(path), "/tmp/test_store.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("not a database, not at all, but long enough to have a header's worth of bytes "
	      "in it\n",
	      f);
	fclose(f);
	assert_int_equal(store_open(&st, path, 0, &err), BL_EDB);
	assert_null(st);
	snprintf(msg, sizeof(msg), "in '%s': ", path);
	assert_non_null(strstr(err.msg.buf, msg));
	assert_non_null(strstr(err.msg.buf, "not a database"));
	unlink(path);
	bl_error_release(&err);
}

/* A Series with a "." or ".." part is linked through the query (a browser drops dot segments
 * from a path); the pages, the gate's comment and triage's issues all link it so. */
/*
 * A write the database refuses inside a transaction fails that transaction, and nothing of it
 * is stored: on SQLite at once; on PostgreSQL, where a write that returns nothing is sent
 * without waiting (store/pg.c's pipeline), at the latest at the commit, with the server's
 * message for the write.
 */
static void a_refused_write_stores_nothing(void **state)
{
	struct bl_error err = BL_ERROR_INIT;
	struct store_metric again;
	struct db db;
	int64_t runs = -1;
	int write_ret, commit_ret = 0;
	(void)state;
	db_open(&db);
	assert_int_equal(store_begin(db.st, &err), 0);
	add_records(&db);
	/* run 1's metric t a second time: its primary key refuses it */
	memset(&again, 0, sizeof(again));
	again.name = "t";
	again.kind = METRIC_TIMED;
	again.unit = "us";
	again.median = 1;
	again.p95 = again.value = NAN;
	again.n = -1;
	write_ret = store_insert_metric(db.st, 1, &again, &err);
	if (!write_ret)
		commit_ret = store_commit(db.st, &err);
	else
		store_rollback(db.st);
	assert_true(write_ret || commit_ret);
	assert_non_null(strstr(err.msg.buf, "metrics"));
	assert_int_equal(store_count(&runs, db.st, "runs", NULL), 0);
	assert_int_equal(runs, 0);
	bl_error_release(&err);
	db_close(&db);
}

static void series_links_with_dot_parts(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;
	store_series_page_path(&sb, "m1/town/1080p/t");
	assert_string_equal(sb.buf, "/series/m1/town/1080p/t");
	strbuf_reset(&sb);
	store_series_page_path(&sb, "m1/../a%2Fb/t");
	assert_string_equal(sb.buf, "/series?id=m1/../a%252Fb/t");
	assert_true(store_series_id_has_dot_part("./x/y/z"));
	assert_true(store_series_id_has_dot_part("a/b/c/."));
	assert_false(store_series_id_has_dot_part("a/.b/c../d"));
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(series_links_with_dot_parts),
	    cmocka_unit_test(a_refused_write_stores_nothing),
	    cmocka_unit_test(a_walk_is_not_restarted_from_its_callback),
	    cmocka_unit_test(database_errors_name_the_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Unit tests for store/'s statement cache and its error messages: a walk whose callback starts
 * the same walk is refused without cutting the outer one short, a callback may use the other
 * statements, and database errors name the file; for the statement layer itself (so this file
 * includes store/internal.h): a streamed read that other statements interrupt or cut short,
 * and its columns; and a full read in passes, which keeps every group whole.
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
#include "store/internal.h"
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

/*
 * n standing records of benchmark `bench` on machine m (one Series), each with a metric t of
 * median 10, 11, ... and two samples; seq numbers the runs across calls (digests and hashes).
 */
static void add_series(struct db *db, const char *bench, int n, int *seq)
{
	struct bl_error err = BL_ERROR_INIT;
	int64_t machine_id, benchmark_id, run_id;
	if (store_machine(&machine_id, NULL, db->st, "m", NULL, &err) ||
	    store_benchmark(&benchmark_id, db->st, bench, &err))
		fail_msg("%s", err.msg.buf);
	for (int i = 0; i < n; i++, (*seq)++) {
		char digest[41], hash[41];
		double samples[2] = {10 + i, 10.25 + i};
		struct store_run run;
		struct store_metric metric;
		struct store_key key;
		snprintf(digest, sizeof(digest), "d%039d", *seq);
		snprintf(hash, sizeof(hash), "%040d", *seq);
		memset(&run, 0, sizeof(run));
		run.digest = digest;
		run.machine_id = machine_id;
		run.benchmark_id = benchmark_id;
		run.config = "";
		run.source_hash = hash;
		run.harness_version = 1;
		run.commit = hash;
		run.committed_at = 1000 + *seq;
		run.started_at = 1000 + *seq;
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
		metric.samples = samples;
		metric.nsamples = 2;
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

/* Three standing records of one Series, each with a metric. */
static void add_records(struct db *db)
{
	int seq = 0;
	add_series(db, "b", 3, &seq);
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

/*
 * A full read in passes (store_detect_scan) gives every group once, in key order and whole,
 * whatever the pass limit: groups larger than the limit, and groups cut by the rows a pass
 * asks for (a quarter more than the limit), come whole in a later pass.
 */
static void a_full_read_in_passes_keeps_every_group_whole(void **state)
{
	static const int sizes[] = {1, 3, 7, 2, 4, 1};
	static const size_t limits[] = {1, 2, 3, 5, 8, 100, 0};
	enum { NGROUPS = sizeof(sizes) / sizeof(sizes[0]) };
	struct bl_error err = BL_ERROR_INIT;
	struct db db;
	int seq = 0;
	(void)state;
	db_open(&db);
	for (int g = 0; g < NGROUPS; g++) {
		char bench[8];
		snprintf(bench, sizeof(bench), "b%d", g);
		add_series(&db, bench, sizes[g], &seq);
	}
	for (size_t l = 0; l < sizeof(limits) / sizeof(limits[0]); l++) {
		struct store_detect *d = NULL;
		struct store_members m;
		struct store_scan scan;
		int seen = 0, passes = 0;
		int64_t last_benchmark = 0;
		store_members_init(&m);
		store_scan_init(&scan, limits[l], 0);
		assert_int_equal(store_detect_open(&d, db.st, &err), 0);
		do {
			assert_int_equal(store_detect_scan(&m, &scan, d, &err), 0);
			passes++;
			/* a pass ends with the group that reaches the limit */
			if (limits[l] && m.ngroups > 1) {
				size_t before_last = 0;
				for (size_t i = 0; i < m.nmembers; i++)
					before_last += m.members[i].group + 1 < m.ngroups;
				assert_true(before_last < limits[l]);
			}
			for (size_t g = 0; g < m.ngroups; g++) {
				size_t n = 0;
				assert_true(m.groups[g].benchmark_id > last_benchmark);
				last_benchmark = m.groups[g].benchmark_id;
				for (size_t i = 0; i < m.nmembers; i++)
					if (m.members[i].group == g) {
						assert_int_equal(m.members[i].npoints, 1);
						assert_true(m.points[m.members[i].point].value ==
							    10.0 + (double)n);
						n++;
					}
				assert_true(seen < NGROUPS);
				assert_int_equal(n, sizes[seen]);
				seen++;
			}
		} while (!scan.done && passes < 100);
		assert_int_equal(seen, NGROUPS);
		assert_true(scan.done);
		store_scan_release(&scan);
		store_members_release(&m);
		store_detect_close(d);
	}
	bl_error_release(&err);
	db_close(&db);
}

/* Steps s to its end from where it is, checking that column 0 counts up from *next. */
static void step_ids(struct store_stmt *s, int64_t *next, int rows)
{
	for (int i = 0; i < rows; i++) {
		assert_int_equal(store_step(s), STORE_ROW);
		assert_int_equal(store_column_int64(s, 0, 0), *next);
		(*next)++;
	}
}

/*
 * A streamed read (on PostgreSQL, a row at a time off the connection, in binary) reads its
 * columns as any statement does, and lets other statements run before its end: their rows and
 * its own stay right. One reset before its end leaves the connection usable.
 */
static void a_streamed_read_outlives_other_statements(void **state)
{
	struct bl_error err = BL_ERROR_INIT;
	struct store_stmt *runs, *metrics;
	struct db db;
	int64_t next = 1, n = -1;
	int seq = 0;
	(void)state;
	db_open(&db);
	add_series(&db, "b", 6, &seq);

	runs = store_stmt(db.st, SQL_COPY_READ_RUNS, &err);
	assert_non_null(runs);
	step_ids(runs, &next, 2);
	/* another statement now, and a second streamed read, then the first again */
	assert_int_equal(store_count(&n, db.st, "runs", NULL), 0);
	assert_int_equal(n, 6);
	metrics = store_stmt(db.st, SQL_COPY_READ_METRICS, &err);
	assert_non_null(metrics);
	assert_int_equal(store_step(metrics), STORE_ROW);
	/* run_id, name, kind, unit, better, median, p95, n, value, ladder, samples */
	assert_int_equal(store_column_int64(metrics, 0, 0), 1);
	assert_string_equal(store_column_text(metrics, 0, NULL), "1");
	assert_int_equal(store_column_bytes(metrics, 0), 1);
	assert_int_equal(store_column_type(metrics, 0), SQLITE_INTEGER);
	assert_string_equal(store_column_text(metrics, 1, NULL), "t");
	assert_int_equal(store_column_type(metrics, 1), SQLITE_TEXT);
	assert_true(store_column_double(metrics, 5) == 10.0);
	assert_int_equal(store_column_type(metrics, 5), SQLITE_FLOAT);
	assert_true(store_column_is_null(metrics, 6));
	assert_int_equal(store_column_type(metrics, 10), SQLITE_BLOB);
	assert_int_equal(store_column_bytes(metrics, 10), 2 * sizeof(double));
	{
		double samples[2];
		memcpy(samples, store_column_blob(metrics, 10), sizeof(samples));
		assert_true(samples[0] == 10.0 && samples[1] == 10.25);
	}
	step_ids(runs, &next, 2);
	/* cut short while rows are still coming */
	store_reset(metrics);
	step_ids(runs, &next, 2);
	assert_int_equal(store_step(runs), STORE_DONE);
	store_reset(runs);
	/* the connection is free: a write and a read */
	add_series(&db, "c", 1, &seq);
	assert_int_equal(store_count(&n, db.st, "runs", NULL), 0);
	assert_int_equal(n, 7);
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
	    cmocka_unit_test(a_full_read_in_passes_keeps_every_group_whole),
	    cmocka_unit_test(a_streamed_read_outlives_other_statements),
	    cmocka_unit_test(a_walk_is_not_restarted_from_its_callback),
	    cmocka_unit_test(database_errors_name_the_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * A record's place on main is defined once, by the view placed_runs (sql/003-places.sql);
 * the full read of store/detect.c computes it in C from the commits it loads once. These
 * tests fail when the two disagree: on a history whose commit times go back and repeat, with
 * records placed by commit, by source hash and by time (before, between, on and after main's
 * commits), they compare the full read (C) with one group's read and the change log's (SQL)
 * and with the view itself, place by place and in order; and check the hand-worked places.
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
	int runs;
};

static void db_open(struct db *db)
{
	db->st = unit_store_open(db->path, sizeof(db->path), "test_places");
	db->runs = 0;
}

static void db_close(struct db *db)
{
	unit_store_close(db->st, db->path);
}

static void hex(char out[41], char letter, int n)
{
	snprintf(out, 41, "%c%039d", letter, n);
}

/* main's commit seq: sha "a<seq>", source "s<src>", committed at `at`. */
static void add_commit(struct db *db, int64_t seq, int src, int64_t at)
{
	struct store_commit c;
	struct bl_error err = BL_ERROR_INIT;
	memset(&c, 0, sizeof(c));
	hex(c.sha, 'a', (int)seq);
	hex(c.source_hash, 'b', src);
	if (seq)
		hex(c.parent, 'a', (int)seq - 1);
	c.seq = seq;
	c.committed_at = at;
	c.subject = "c";
	if (store_insert_commit(db->st, &c, &err))
		fail_msg("%s", err.msg.buf);
	bl_error_release(&err);
}

/*
 * A standing record of group (machine m, benchmark "b", config cfg) at commit "<letter><n>"
 * with source "b<src>", committed_at (NAN: none) and started_at; its own harness version, so
 * every record has a key of its own. tag: NULL, or a tag that keeps it off its Series.
 */
static int64_t add_run(struct db *db, const char *m, const char *cfg, char letter, int n, int src,
		       double committed_at, double started_at, const char *tag)
{
	struct bl_error err = BL_ERROR_INIT;
	struct store_run run;
	struct store_metric metric;
	struct store_key key;
	char commit[41], source[41], digest[41];
	int64_t machine_id, benchmark_id, run_id;

	hex(commit, letter, n);
	hex(source, 'b', src);
	hex(digest, 'd', ++db->runs);
	if (store_machine(&machine_id, NULL, db->st, m, NULL, &err) ||
	    store_benchmark(&benchmark_id, db->st, "b", &err))
		fail_msg("%s", err.msg.buf);
	memset(&run, 0, sizeof(run));
	run.digest = digest;
	run.machine_id = machine_id;
	run.benchmark_id = benchmark_id;
	run.config = cfg;
	run.source_hash = source;
	run.harness_version = db->runs;
	run.commit = commit;
	run.committed_at = committed_at;
	run.started_at = started_at;
	run.profile = "release";
	run.primary_metric = "t";
	run.quietness = NAN;
	run.raw = "{}";
	memset(&metric, 0, sizeof(metric));
	metric.name = "t";
	metric.kind = METRIC_TIMED;
	metric.unit = "us";
	metric.better_higher = 0;
	metric.median = 100 + db->runs;
	metric.p95 = metric.value = NAN;
	metric.n = -1;
	key.machine_id = machine_id;
	key.benchmark_id = benchmark_id;
	key.config = cfg;
	key.source_hash = source;
	key.harness_version = run.harness_version;
	if (store_insert_run(&run_id, db->st, &run, &err) ||
	    store_insert_metric(db->st, run_id, &metric, &err) ||
	    store_set_standing(db->st, &key, run_id, &err) ||
	    (tag && store_add_tag(db->st, run_id, tag, &err)))
		fail_msg("%s", err.msg.buf);
	bl_error_release(&err);
	return run_id;
}

/* The view's place of a run. */
static double view_place(struct db *db, int64_t run_id)
{
	char sql[80], *v;
	double place = NAN;
	snprintf(sql, sizeof(sql), "SELECT place FROM placed_runs WHERE id = %lld",
		 (long long)run_id);
	v = unit_sql(db->path, sql);
	assert_non_null(v);
	if (*v)
		place = strtod(v, NULL);
	free(v);
	return place;
}

/*
 * The full read (C places), in passes of at most max_members records, against each group read
 * on its own (SQL places) and the view: the same members in the same order, at the same
 * places. Returns how many members the full read found.
 */
static size_t compare_reads(struct db *db, size_t max_members)
{
	struct bl_error err = BL_ERROR_INIT;
	struct store_detect *d;
	struct store_members full, one;
	struct store_scan scan;
	size_t total = 0;

	if (store_detect_open(&d, db->st, &err))
		fail_msg("%s", err.msg.buf);
	store_members_init(&full);
	store_members_init(&one);
	store_scan_init(&scan, max_members, 0);
	for (;;) {
		if (store_detect_scan(&full, &scan, d, &err))
			fail_msg("%s", err.msg.buf);
		if (!full.ngroups)
			break;
		for (size_t g = 0; g < full.ngroups; g++) {
			size_t at = 0, k = 0;
			store_members_reset(&one);
			if (store_detect_group(&one, d, &full.groups[g], &err))
				fail_msg("%s", err.msg.buf);
			for (size_t i = 0; i < full.nmembers; i++) {
				const struct store_member *c = &full.members[i], *q;
				if (c->group != g)
					continue;
				assert_true(k < one.nmembers);
				q = &one.members[k++];
				/* the same record at the same place, in the same order */
				assert_int_equal(c->run_id, q->run_id);
				assert_true(c->place == q->place);
				assert_true(c->at == q->at);
				assert_true(c->started_at == q->started_at);
				assert_true(c->place == view_place(db, c->run_id));
				at++;
			}
			assert_int_equal(k, one.nmembers);
			total += at;
		}
		if (scan.done)
			break;
	}
	store_scan_release(&scan);
	store_members_release(&full);
	store_members_release(&one);
	store_detect_close(d);
	bl_error_release(&err);
	return total;
}

/* The history: commit times go back (seq 2 before seq 1) and repeat (seqs 3 and 4). */
static void add_history(struct db *db)
{
	add_commit(db, 0, 0, 1000);
	add_commit(db, 1, 1, 2000);
	add_commit(db, 2, 1, 1500); /* source b1 again: its first seq is 1 */
	add_commit(db, 3, 3, 3000);
	add_commit(db, 4, 4, 3000);
}

struct expect {
	int64_t run_id;
	double place;
};

static void the_view_and_the_full_read_place_alike(void **state)
{
	struct db db;
	struct expect e[32];
	size_t n = 0;
	(void)state;
	db_open(&db);
	add_history(&db);
	/* by commit: the commit's seq, even where its source hash is first seen earlier */
	e[n++] = (struct expect){add_run(&db, "m", "x", 'a', 2, 1, 1500, 1500, NULL), 2};
	e[n++] = (struct expect){add_run(&db, "m", "x", 'a', 0, 7, NAN, 50, NULL), 0};
	e[n++] = (struct expect){add_run(&db, "m", "x", 'a', 3, 1, 10, 10, NULL), 3};
	/* by source hash: its first seq */
	e[n++] = (struct expect){add_run(&db, "m", "x", 'f', 1, 1, 2500, 2500, NULL), 1};
	e[n++] = (struct expect){add_run(&db, "m", "x", 'f', 2, 4, 9000, 9000, NULL), 4};
	/* by time: after the last commit committed at or before it (its largest seq) */
	e[n++] = (struct expect){add_run(&db, "m", "x", 'f', 3, 90, 1750, 1750, NULL), 2.5};
	e[n++] = (struct expect){add_run(&db, "m", "x", 'f', 4, 91, 1500, 1, NULL), 2.5};
	e[n++] = (struct expect){add_run(&db, "m", "x", 'f', 5, 92, 2000, 2000, NULL), 2.5};
	e[n++] = (struct expect){add_run(&db, "m", "x", 'f', 6, 93, 1999.5, 1999.5, NULL), 2.5};
	e[n++] = (struct expect){add_run(&db, "m", "x", 'f', 7, 94, 1000, 1000, NULL), 0.5};
	e[n++] = (struct expect){add_run(&db, "m", "x", 'f', 8, 95, 3000, 3000, NULL), 4.5};
	e[n++] = (struct expect){add_run(&db, "m", "x", 'f', 9, 96, 1e9, 1e9, NULL), 4.5};
	/* committed_at unknown: started_at places it */
	e[n++] = (struct expect){add_run(&db, "m", "x", 'f', 10, 97, NAN, 2500, NULL), 2.5};
	/* before the history (an imported Baseline's place) */
	e[n++] = (struct expect){add_run(&db, "m", "x", 'f', 11, 98, 999, 999, NULL), -0.5};
	e[n++] = (struct expect){add_run(&db, "m", "x", 'f', 12, 99, NAN, -5, NULL), -0.5};
	/* ties at one place: at, then started_at, then run id decide */
	e[n++] = (struct expect){add_run(&db, "m", "x", 'f', 13, 80, 1600, 1700, NULL), 2.5};
	e[n++] = (struct expect){add_run(&db, "m", "x", 'f', 14, 81, 1600, 1650, NULL), 2.5};
	e[n++] = (struct expect){add_run(&db, "m", "x", 'f', 15, 82, 1600, 1650, NULL), 2.5};
	/* other groups, one of them with a tagged record (off its Series, in no read) */
	e[n++] = (struct expect){add_run(&db, "m", "y", 'f', 16, 83, 2200, 2200, NULL), 2.5};
	e[n++] = (struct expect){add_run(&db, "m", "y", 'a', 4, 4, 2200, 2200, "noisy"), 4};
	e[n++] = (struct expect){add_run(&db, "n", "", 'f', 17, 3, 1, 1, NULL), 3};
	e[n++] = (struct expect){add_run(&db, "n", "", 'f', 18, 84, 3500, 3500, NULL), 4.5};

	for (size_t i = 0; i < n; i++)
		if (view_place(&db, e[i].run_id) != e[i].place)
			fail_msg("run %lld: the view places it at %g, not %g",
				 (long long)e[i].run_id, view_place(&db, e[i].run_id), e[i].place);
	/* every untagged record, in one pass and in passes of 2 records (a group at a time) */
	assert_int_equal(compare_reads(&db, 0), n - 1);
	assert_int_equal(compare_reads(&db, 2), n - 1);
	db_close(&db);
}

/* The change log's places (detect_changes reads the view) are the full read's too. */
static void the_change_log_places_as_the_full_read(void **state)
{
	struct bl_error err = BL_ERROR_INIT;
	struct store_detect *d;
	struct store_change *changes;
	size_t nchanges;
	struct db db;
	int64_t ids[6];
	double want[6] = {2, 1, 2.5, -0.5, 4.5, 2.5};
	(void)state;
	db_open(&db);
	add_history(&db);
	/* from here on the triggers of sql/002-detect.sql log every change */
	if (store_set_meta(db.st, "detect_state", "test", &err))
		fail_msg("%s", err.msg.buf);
	ids[0] = add_run(&db, "m", "x", 'a', 2, 1, 1500, 1500, NULL);
	ids[1] = add_run(&db, "m", "x", 'f', 1, 1, 2500, 2500, NULL);
	ids[2] = add_run(&db, "m", "x", 'f', 3, 90, 1750, 1750, NULL);
	ids[3] = add_run(&db, "m", "x", 'f', 11, 98, 999, 999, NULL);
	ids[4] = add_run(&db, "m", "x", 'f', 8, 95, 3000, 3000, NULL);
	ids[5] = add_run(&db, "m", "x", 'f', 10, 97, NAN, 2500, NULL);
	if (store_detect_open(&d, db.st, &err) ||
	    store_detect_changes(&changes, &nchanges, d, &err))
		fail_msg("%s", err.msg.buf);
	assert_int_equal(nchanges, 6);
	for (size_t i = 0; i < nchanges; i++) {
		assert_int_equal(changes[i].run_id, ids[i]);
		assert_true(changes[i].is_member);
		assert_true(changes[i].place == want[i]);
		assert_true(changes[i].place == view_place(&db, ids[i]));
	}
	store_changes_release(changes, nchanges);
	store_detect_close(d);
	assert_int_equal(compare_reads(&db, 0), 6);
	bl_error_release(&err);
	db_close(&db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(the_view_and_the_full_read_place_alike),
	    cmocka_unit_test(the_change_log_places_as_the_full_read),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

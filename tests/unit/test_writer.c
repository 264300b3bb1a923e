/*
 * The writer (ingest.c): a chunk's lookups asked in a few statements give what asking record
 * by record gives. A history full of what the key rule and the tags decide on (exact
 * duplicates in a chunk and across chunks, re-ingests, dirty against clean, noisy, profile,
 * preflight, keys displaced within a chunk and across, a machine that keeps its first run,
 * not-main runs before and after main's history is synced, Baselines) is stored one record per
 * call (chunks of one: every lookup asked on its own, after the record before it was written)
 * and all at once (chunks of INGEST_CHUNK), and the two databases must hold the same rows with
 * the same ids, and every record the same outcome, run and tags.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/common.h"
#include "ingest/ingest.h"
#include "ingest/adapters/adapters.h"
#include "store/store.h"
#include "unit_store.h"

/* A deterministic generator, so a failure repeats. */
static uint64_t rng_state;
static unsigned rnd(unsigned n)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned)((rng_state >> 33) % n);
}

/*
 * n records drawn from few keys (so most keys get several runs): 3 machines (mk keeps its first
 * run), 4 benchmarks, 2 configs, 12 commits (each its own source hash), 2 harness versions;
 * some dirty, some noisy, some in the debug profile, some with a busy preflight, some off main
 * (branch "feature"), some Baselines, and one in eight an exact copy of an earlier record.
 */
static void history(struct strbuf *sb, size_t n, unsigned seed)
{
	static const char *const machines[] = {"m1", "m2", "mk"};
	static const char *const benchmarks[] = {"parse", "render", "load", "save"};
	struct strbuf *lines = xcalloc(n, sizeof(*lines));

	rng_state = seed;
	for (size_t i = 0; i < n; i++) {
		strbuf_init(&lines[i], 0);
		if (i > 4 && rnd(8) == 0) {
			const struct strbuf *copy = &lines[rnd((unsigned)i)];
			strbuf_add(&lines[i], copy->buf, copy->len);
			continue;
		}
		unsigned c = rnd(12);
		double median = 100 + rnd(50), p95 = median * (1.0 + rnd(12) / 100.0);
		strbuf_addf(
		    &lines[i],
		    "{\"schema\": 1, \"machine\": \"%s\", \"benchmark\": \"%s\", "
		    "\"config\": \"%s\", \"harness_version\": %u, %s%s%s"
		    "\"source\": {\"commit\": \"%040u\", \"source_hash\": \"a%039u\", "
		    "\"branch\": \"%s\"%s}, \"started_at\": \"2026-01-01T00:%02u:%02uZ\", "
		    "\"metrics\": {\"t_us\": {\"kind\": \"timed\", \"unit\": \"us\", "
		    "\"median\": %g, \"p95\": %g, \"n\": %u, \"samples\": [%g, %g]}, "
		    "\"bytes\": {\"kind\": \"counted\", \"unit\": \"B\", \"value\": %u}}}\n",
		    machines[rnd(3)], benchmarks[rnd(4)], rnd(2) ? "big" : "", 1 + rnd(2),
		    rnd(10) == 0 ? "\"profile\": \"debug\", " : "",
		    rnd(10) == 0 ? "\"preflight\": {\"quiet\": false}, " : "",
		    rnd(15) == 0 ? "\"baseline\": true, " : "", c + 1, c + 1,
		    rnd(6) == 0 ? "feature" : "main", rnd(8) == 0 ? ", \"dirty\": true" : "",
		    (unsigned)(i / 60) % 60, (unsigned)i % 60, median, p95, rnd(3) ? 12 : 5, median,
		    p95, rnd(1000));
	}
	for (size_t i = 0; i < n; i++) {
		strbuf_add(sb, lines[i].buf, lines[i].len);
		strbuf_release(&lines[i]);
	}
	free(lines);
}

/* Every row of the tables ingest writes, as text, in a fixed order (ingested_at aside: the
 * time of the insert). */
static char *tables(const char *path)
{
	static const char *const lite[] = {
	    "SELECT group_concat(x, '|') FROM (SELECT id || ',' || name || ',' || keep || ',' || "
	    "coalesce(info, '-') AS x FROM machines ORDER BY id)",
	    "SELECT group_concat(x, '|') FROM (SELECT id || ',' || name AS x FROM benchmarks "
	    "ORDER BY id)",
	    "SELECT group_concat(x, '|') FROM (SELECT id || ',' || digest || ',' || machine_id || "
	    "',' || benchmark_id || ',' || config || ',' || source_hash || ',' || harness_version "
	    "|| ',' || commit_sha || ',' || dirty || ',' || profile || ',' || baseline || ',' || "
	    "primary_metric || ',' || coalesce(printf('%.17g', quietness), '-') || ',' || raw AS x "
	    "FROM runs ORDER BY id)",
	    "SELECT group_concat(x, '|') FROM (SELECT run_id || ',' || name || ',' || kind || ',' "
	    "|| coalesce(printf('%.17g', median), '-') || ',' || coalesce(printf('%.17g', p95), "
	    "'-') || ',' || coalesce(n, '-') || ',' || coalesce(printf('%.17g', value), '-') || "
	    "',' || coalesce(hex(samples), '-') AS x FROM metrics ORDER BY run_id, name)",
	    "SELECT group_concat(x, '|') FROM (SELECT run_id || ',' || tag AS x FROM tags ORDER BY "
	    "run_id, tag)",
	    "SELECT group_concat(x, '|') FROM (SELECT machine_id || ',' || benchmark_id || ',' || "
	    "config || ',' || source_hash || ',' || harness_version || ',' || run_id AS x FROM "
	    "records ORDER BY 1)",
	};
	static const char *const pg[] = {
	    "SELECT string_agg(id || ',' || name || ',' || keep || ',' || coalesce(info, '-'), '|' "
	    "ORDER BY id) FROM machines",
	    "SELECT string_agg(id || ',' || name, '|' ORDER BY id) FROM benchmarks",
	    "SELECT string_agg(id || ',' || digest || ',' || machine_id || ',' || benchmark_id || "
	    "',' || config || ',' || source_hash || ',' || harness_version || ',' || commit_sha || "
	    "',' || dirty || ',' || profile || ',' || baseline || ',' || primary_metric || ',' || "
	    "coalesce(quietness::text, '-') || ',' || raw, '|' ORDER BY id) FROM runs",
	    "SELECT string_agg(run_id || ',' || name || ',' || kind || ',' || "
	    "coalesce(median::text, "
	    "'-') || ',' || coalesce(p95::text, '-') || ',' || coalesce(n::text, '-') || ',' || "
	    "coalesce(value::text, '-') || ',' || coalesce(encode(samples, 'hex'), '-'), '|' ORDER "
	    "BY run_id, name) FROM metrics",
	    "SELECT string_agg(run_id || ',' || tag, '|' ORDER BY run_id, tag) FROM tags",
	    "SELECT string_agg(machine_id || ',' || benchmark_id || ',' || config || ',' || "
	    "source_hash || ',' || harness_version || ',' || run_id, '|' ORDER BY machine_id, "
	    "benchmark_id, config, source_hash, harness_version) FROM records",
	};
	struct strbuf out = STRBUF_INIT;
	for (size_t i = 0; i < sizeof(lite) / sizeof(*lite); i++) {
		char *t = unit_sql(path, unit_store_is_pg(path) ? pg[i] : lite[i]);
		if (!t)
			fail_msg("cannot read the tables of '%s'", path);
		strbuf_addf(&out, "%s\n", t);
		free(t);
	}
	return strbuf_detach(&out, NULL);
}

/* The batch stored by one writer, `step` records per call (0: all in one call). */
static void store_by(struct store *st, struct ingest_batch *batch, size_t step,
		     struct ingest_stage_result *res)
{
	struct ingest_options opts = {1.06, 10, NULL};
	struct ingest_writer *w = ingest_writer_new(st, &opts);
	struct bl_error err = BL_ERROR_INIT;

	if (ingest_writer_begin(w, 1, &err))
		fail_msg("%s", err.msg.buf);
	for (size_t at = 0; at < batch->nr; at += step ? step : batch->nr) {
		size_t k = step && batch->nr - at > step ? step : batch->nr - at;
		if (ingest_writer_store(w, batch->records + at, k, res + at, &err))
			fail_msg("%s", err.msg.buf);
	}
	if (ingest_writer_commit(w, &err))
		fail_msg("%s", err.msg.buf);
	ingest_writer_free(w);
	bl_error_release(&err);
}

/* Two databases' tables alike, else where they first differ. */
static void assert_same_tables(const char *a, const char *b)
{
	size_t i = 0;
	while (a[i] && a[i] == b[i])
		i++;
	if (a[i] || b[i])
		fail_msg("the tables differ at byte %zu: '%.120s' against '%.120s'", i,
			 a + (i > 40 ? i - 40 : 0), b + (i > 40 ? i - 40 : 0));
}

static void assert_same_results(const struct ingest_stage_result *a,
				const struct ingest_stage_result *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (a[i].outcome != b[i].outcome || a[i].run_id != b[i].run_id ||
		    a[i].tagged.tags != b[i].tagged.tags ||
		    a[i].tagged.standing != b[i].tagged.standing ||
		    a[i].tagged.kept != b[i].tagged.kept)
			fail_msg(
			    "record %zu: %s run %lld tags %#x (held by %lld, kept %d) against %s "
			    "run %lld tags %#x (held by %lld, kept %d)",
			    i + 1, ingest_outcome_name(a[i].outcome), (long long)a[i].run_id,
			    a[i].tagged.tags, (long long)a[i].tagged.standing, a[i].tagged.kept,
			    ingest_outcome_name(b[i].outcome), (long long)b[i].run_id,
			    b[i].tagged.tags, (long long)b[i].tagged.standing, b[i].tagged.kept);
	}
}

/* Counts of each outcome and tag, so the test shows it met what it is about. */
static void assert_varied(const struct ingest_stage_result *r, size_t n)
{
	size_t outcomes[3] = {0}, tags[INGEST_NTAGS] = {0};
	for (size_t i = 0; i < n; i++) {
		outcomes[r[i].outcome]++;
		for (unsigned t = 0; t < INGEST_NTAGS; t++)
			tags[t] += (r[i].tagged.tags >> t) & 1;
	}
	for (int o = 0; o < 3; o++)
		assert_true(outcomes[o] > 20);
	for (unsigned t = 0; t < INGEST_NTAGS; t++)
		if (!tags[t])
			fail_msg("no record was tagged %s", ingest_tag_name(t));
}

static void one_history(size_t n, unsigned seed, int synced)
{
	struct strbuf text = STRBUF_INIT;
	struct ingest_batch batch = {NULL, 0, 0};
	struct bl_error err = BL_ERROR_INIT;
	char one_path[160], all_path[160];
	struct store *one = unit_store_open(one_path, sizeof(one_path), "writer-one");
	struct store *all = unit_store_open(all_path, sizeof(all_path), "writer-all");
	struct ingest_stage_result *r1 = xcalloc(n, sizeof(*r1)), *r2 = xcalloc(n, sizeof(*r2));
	char *t1, *t2;

	history(&text, n, seed);
	if (adapters_parse_native(&batch, "history.jsonl", text.buf, text.len, &err))
		fail_msg("%s", err.msg.buf);
	assert_int_equal(batch.nr, n);
	for (int k = 0; k < 2; k++) {
		struct store *st = k ? all : one;
		if (store_set_machine_keep(st, "mk", 1, &err))
			fail_msg("%s", err.msg.buf);
		/* main's history synced: commits 1 to 8 are main's, 9 to 12 not */
		for (unsigned c = 1; synced && c <= 8; c++) {
			char sha[41], src[41];
			struct store_commit sc;
			snprintf(sha, sizeof(sha), "%040u", c);
			snprintf(src, sizeof(src), "a%039u", c);
			memset(&sc, 0, sizeof(sc));
			memcpy(sc.sha, sha, 41);
			sc.seq = c;
			memcpy(sc.source_hash, src, 41);
			sc.committed_at = 1767225600 + c;
			if (store_insert_commit(st, &sc, &err))
				fail_msg("%s", err.msg.buf);
		}
	}

	/* the first half, then all of it again: every record of the first half a re-ingest */
	store_by(one, &batch, 1, r1);
	{
		struct ingest_batch half = batch;
		half.nr = n / 2;
		store_by(all, &half, 0, r2);
		store_by(all, &batch, 0, r2);
	}
	t1 = tables(one_path);
	t2 = tables(all_path);
	assert_same_tables(t1, t2);
	free(t1);
	free(t2);

	/* the results of the whole file over the first half already stored */
	store_by(one, &batch, 1, r1);
	store_by(all, &batch, 0, r2);
	assert_same_results(r1, r2, n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(r2[i].outcome, INGEST_DUPLICATE);

	t1 = tables(one_path);
	t2 = tables(all_path);
	assert_same_tables(t1, t2);
	free(t1);
	free(t2);
	free(r1);
	free(r2);
	ingest_batch_release(&batch);
	strbuf_release(&text);
	bl_error_release(&err);
	unit_store_close(one, one_path);
	unit_store_close(all, all_path);
}

/* The results of a first store of the history, one record at a time against all at once, with
 * the outcomes varied enough to mean something. */
static void first_results(size_t n, unsigned seed)
{
	struct strbuf text = STRBUF_INIT;
	struct ingest_batch batch = {NULL, 0, 0};
	struct bl_error err = BL_ERROR_INIT;
	char one_path[160], all_path[160];
	struct store *one = unit_store_open(one_path, sizeof(one_path), "writer-one");
	struct store *all = unit_store_open(all_path, sizeof(all_path), "writer-all");
	struct ingest_stage_result *r1 = xcalloc(n, sizeof(*r1)), *r2 = xcalloc(n, sizeof(*r2));

	history(&text, n, seed);
	if (adapters_parse_native(&batch, "history.jsonl", text.buf, text.len, &err))
		fail_msg("%s", err.msg.buf);
	if (store_set_machine_keep(one, "mk", 1, &err) ||
	    store_set_machine_keep(all, "mk", 1, &err))
		fail_msg("%s", err.msg.buf);
	store_by(one, &batch, 1, r1);
	store_by(all, &batch, 0, r2);
	assert_same_results(r1, r2, n);
	assert_varied(r2, n);
	free(r1);
	free(r2);
	ingest_batch_release(&batch);
	strbuf_release(&text);
	bl_error_release(&err);
	unit_store_close(one, one_path);
	unit_store_close(all, all_path);
}

static void chunks_store_what_records_one_by_one_store(void **state)
{
	(void)state;
	/* more than two chunks, so keys and digests meet across chunk boundaries */
	first_results(2 * INGEST_CHUNK + 300, 1);
	one_history(2 * INGEST_CHUNK + 300, 2, 0);
}

static void the_same_once_main_is_synced(void **state)
{
	(void)state;
	one_history(INGEST_CHUNK + 100, 3, 1);
}

static void a_small_batch_and_odd_splits(void **state)
{
	struct strbuf text = STRBUF_INIT;
	struct ingest_batch batch = {NULL, 0, 0};
	struct bl_error err = BL_ERROR_INIT;
	char path0[160], path1[160], path2[160], *paths[3] = {path0, path1, path2};
	struct store *st[3];
	struct ingest_stage_result *r[3];
	size_t n = 300, steps[3] = {1, 7, 0};
	char *t[3];
	(void)state;

	history(&text, n, 4);
	if (adapters_parse_native(&batch, "history.jsonl", text.buf, text.len, &err))
		fail_msg("%s", err.msg.buf);
	for (int k = 0; k < 3; k++) {
		st[k] = unit_store_open(paths[k], sizeof(path0), "writer-split");
		r[k] = xcalloc(n, sizeof(*r[k]));
		store_by(st[k], &batch, steps[k], r[k]);
		t[k] = tables(paths[k]);
	}
	for (int k = 1; k < 3; k++) {
		assert_same_results(r[0], r[k], n);
		assert_same_tables(t[0], t[k]);
	}
	for (int k = 0; k < 3; k++) {
		free(r[k]);
		free(t[k]);
		unit_store_close(st[k], paths[k]);
	}
	ingest_batch_release(&batch);
	strbuf_release(&text);
	bl_error_release(&err);
}

/* A writer freed without its commit leaves nothing: the rows of the chunks it stored go. */
static void an_uncommitted_writer_leaves_nothing(void **state)
{
	struct strbuf text = STRBUF_INIT;
	struct ingest_batch batch = {NULL, 0, 0};
	struct bl_error err = BL_ERROR_INIT;
	struct ingest_stage_result *res;
	struct ingest_writer *w;
	char path[160];
	struct store *st = unit_store_open(path, sizeof(path), "writer-rollback");
	(void)state;

	history(&text, INGEST_CHUNK + 10, 5);
	if (adapters_parse_native(&batch, "history.jsonl", text.buf, text.len, &err))
		fail_msg("%s", err.msg.buf);
	res = xcalloc(batch.nr, sizeof(*res));
	w = ingest_writer_new(st, NULL);
	assert_int_equal(ingest_writer_begin(w, 1, &err), 0);
	assert_int_equal(ingest_writer_store(w, batch.records, batch.nr, res, &err), 0);
	ingest_writer_free(w);
	assert_int_equal(unit_sql_int64(path, "SELECT count(*) FROM runs"), 0);
	assert_int_equal(unit_sql_int64(path, "SELECT count(*) FROM metrics"), 0);
	assert_int_equal(unit_sql_int64(path, "SELECT count(*) FROM records"), 0);
	/* and the ids it took are given again (SQLite) or skipped (a PostgreSQL sequence) */
	store_by(st, &batch, 0, res);
	assert_true(res[0].run_id >= 1);
	free(res);
	ingest_batch_release(&batch);
	strbuf_release(&text);
	bl_error_release(&err);
	unit_store_close(st, path);
}

/* A record that cannot be stored (no source hash) is named by its place among all the batch's
 * records, and ingest_store leaves nothing: not even the chunk stored before it. */
static void a_bad_record_is_named_and_nothing_is_stored(void **state)
{
	struct strbuf text = STRBUF_INIT, want = STRBUF_INIT;
	struct ingest_batch batch = {NULL, 0, 0};
	struct bl_error err = BL_ERROR_INIT;
	struct ingest_record *bad;
	char path[160];
	struct store *st = unit_store_open(path, sizeof(path), "writer-bad");
	(void)state;

	history(&text, INGEST_CHUNK + 10, 9);
	if (adapters_parse_native(&batch, "history.jsonl", text.buf, text.len, &err))
		fail_msg("%s", err.msg.buf);
	bad = &batch.records[INGEST_CHUNK + 3];
	bad->source_hash[0] = '\0';
	assert_int_equal(ingest_store(st, &batch, NULL, NULL, NULL, &err), BL_EINVALID);
	strbuf_addf(&want, "record %d: record %s/%s has no source hash (give --repo to compute it)",
		    INGEST_CHUNK + 4, bad->machine, bad->benchmark);
	assert_string_equal(err.msg.buf, want.buf);
	assert_int_equal(unit_sql_int64(path, "SELECT count(*) FROM runs"), 0);
	assert_int_equal(unit_sql_int64(path, "SELECT count(*) FROM metrics"), 0);
	assert_int_equal(unit_sql_int64(path, "SELECT count(*) FROM records"), 0);
	ingest_batch_release(&batch);
	strbuf_release(&text);
	strbuf_release(&want);
	bl_error_release(&err);
	unit_store_close(st, path);
}

/* A producer that fails at once, as a reader does that lacks what a flag gives. */
static int produce_needing_a_flag(void *data, ingest_record_fn *fn, void *fn_data,
				  struct bl_error *err)
{
	(void)data;
	(void)fn;
	(void)fn_data;
	return bl_error_set_kind(err, BL_KIND_NEEDS_FLAG, BL_EINVALID, "x:1:1: no machine");
}

static void never_reported(void *data, size_t index, const struct ingest_record *rec,
			   int64_t run_id, enum ingest_outcome o, const struct ingest_tagged *t)
{
	(void)data;
	(void)index;
	(void)rec;
	(void)run_id;
	(void)o;
	(void)t;
	fail_msg("a record was reported");
}

/* The producing thread's error reaches the caller whole: its code, message and kind (which
 * the server words as a push's query). */
static void the_producers_error_is_the_callers(void **state)
{
	struct ingest_intake in;
	struct bl_error err = BL_ERROR_INIT;
	char path[160];
	struct store *st = unit_store_open(path, sizeof(path), "writer-producer");
	(void)state;

	ingest_intake_init(&in, &adapters_parsers);
	assert_int_equal(ingest_intake_records(&in, st, "x", produce_needing_a_flag, NULL, NULL,
					       NULL, never_reported, NULL, &err),
			 BL_EINVALID);
	assert_string_equal(err.msg.buf, "x:1:1: no machine");
	assert_int_equal(err.kind, BL_KIND_NEEDS_FLAG);
	assert_int_equal(unit_sql_int64(path, "SELECT count(*) FROM runs"), 0);
	ingest_intake_release(&in);
	bl_error_release(&err);
	unit_store_close(st, path);
}

/* A writer that only tries the lock gets BL_EBUSY at once while another writer holds it. */
static void trying_the_lock_does_not_wait(void **state)
{
	struct bl_error err = BL_ERROR_INIT;
	char path[160];
	struct store *st = unit_store_open(path, sizeof(path), "writer-lock"), *other;
	struct ingest_writer *w;
	(void)state;

	if (store_open(&other, path, 0, &err))
		fail_msg("%s", err.msg.buf);
	assert_int_equal(store_begin(other, &err), 0);
	w = ingest_writer_new(st, NULL);
	assert_int_equal(ingest_writer_begin(w, 0, &err), BL_EBUSY);
	bl_error_clear(&err);
	store_rollback(other);
	assert_int_equal(ingest_writer_begin(w, 0, &err), 0);
	assert_int_equal(ingest_writer_commit(w, &err), 0);
	ingest_writer_free(w);
	store_free(other);
	bl_error_release(&err);
	unit_store_close(st, path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(chunks_store_what_records_one_by_one_store),
	    cmocka_unit_test(the_same_once_main_is_synced),
	    cmocka_unit_test(a_small_batch_and_odd_splits),
	    cmocka_unit_test(an_uncommitted_writer_leaves_nothing),
	    cmocka_unit_test(a_bad_record_is_named_and_nothing_is_stored),
	    cmocka_unit_test(the_producers_error_is_the_callers),
	    cmocka_unit_test(trying_the_lock_does_not_wait),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

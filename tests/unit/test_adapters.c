/*
 * The format adapters (§10, issue 3): the exact records out of each fixture in
 * fixtures/formats/ (made with the real tools, see fixtures/README.md), the flags filling
 * what a format lacks, every rejection with the file and position it names, `--format auto`
 * on every fixture, and the saved fuzz inputs. Run from the repository root.
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
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/common.h"
#include "ingest/adapters/adapters.h"
#include "ingest/ingest.h"
#include "unit_records.h"

#define assert_double_equal(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))
/* Relative closeness, for figures computed from the fixtures' values. */
#define assert_close(a, b) assert_true(fabs((double)(a) - (double)(b)) <= 1e-12 * fabs((double)(b)))

#define COMMIT	  "0123456789abcdef0123456789abcdef01234567"
#define SRC_HASH  "89abcdef0123456789abcdef0123456789abcdef"
#define STARTED	  1793592000.0 /* 2026-11-02T04:00:00Z */
#define FIXTURES  "fixtures/formats/"
#define CRITERION FIXTURES "criterion"

/* Every flag given. */
static void full_defaults(struct ingest_defaults *d)
{
	ingest_defaults_init(d);
	d->machine = "m1";
	d->harness_version = 3;
	d->config = "cfg";
	d->commit = COMMIT;
	d->source_hash = SRC_HASH;
	d->branch = "main";
	d->started_at = STARTED;
}

static char *slurp(const char *path, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	struct bl_error err = BL_ERROR_INIT;

	if (read_file_capped(&sb, path, INGEST_MAX_FILE, &err))
		fail_msg("%s", err.msg.buf);
	bl_error_release(&err);
	if (len)
		*len = sb.len;
	return strbuf_detach(&sb, NULL);
}

/* Parses text (NULL: the directory path), which must succeed; returns the chosen format. */
static const char *parse_ok(struct ingest_batch *b, const char *format, const char *path,
			    const char *text, size_t len, const struct ingest_defaults *d)
{
	struct bl_error err = BL_ERROR_INIT;
	const char *chosen = NULL;
	int ret = adapters_parse(b, &chosen, format, path, text, len, d, &err);

	if (ret)
		fail_msg("unexpected error: %s", err.msg.buf);
	bl_error_release(&err);
	return chosen;
}

static const char *parse_fixture(struct ingest_batch *b, const char *format, const char *path,
				 const struct ingest_defaults *d)
{
	size_t len;
	char *text = slurp(path, &len);
	const char *chosen = parse_ok(b, format, path, text, len, d);

	free(text);
	return chosen;
}

/* A record that is already in the batch before a failing parse, to see nothing is added. */
static void one_record(struct ingest_batch *b)
{
	struct ingest_defaults d;
	static const char text[] = "{\"b\": {\"latency\": {\"value\": 1}}}";

	full_defaults(&d);
	parse_ok(b, "bmf", "seed.json", text, sizeof(text) - 1, &d);
	assert_int_equal(b->nr, 1);
}

/* Parsing fails with BL_EINVALID and exactly msg, and appends nothing. */
static void expect_error_len(const char *format, const char *path, const char *text, size_t len,
			     const struct ingest_defaults *d, const char *msg)
{
	struct ingest_batch b = {NULL, 0, 0};
	struct bl_error err = BL_ERROR_INIT;

	one_record(&b);
	assert_int_equal(adapters_parse(&b, NULL, format, path, text, len, d, &err), BL_EINVALID);
	assert_int_equal(err.code, BL_EINVALID);
	assert_string_equal(err.msg.buf, msg);
	/* What a flag fills in is missing: the error says so by its kind, which the server's
	 * answer to a push is worded by (issue 27), and only then. */
	assert_int_equal(err.kind, strstr(msg, ": give --machine") ||
					   strstr(msg, ": give --harness-version") ||
					   strstr(msg, ": give --repo")
				       ? BL_KIND_NEEDS_FLAG
				       : BL_KIND_NONE);
	assert_int_equal(b.nr, 1);
	ingest_batch_release(&b);
	bl_error_release(&err);
}

static void expect_error(const char *format, const char *text, const char *msg)
{
	struct ingest_defaults d;

	full_defaults(&d);
	expect_error_len(format, "x", text, strlen(text), &d, msg);
}

/* Parsing fails with a message "PATH:LINE:COLUMN: ..." at exactly line and column. */
static void expect_error_at(const char *format, const char *path, const char *text, size_t len,
			    int line, int column)
{
	struct ingest_batch b = {NULL, 0, 0};
	struct bl_error err = BL_ERROR_INIT;
	struct ingest_defaults d;
	struct strbuf want = STRBUF_INIT;

	full_defaults(&d);
	one_record(&b);
	assert_int_equal(adapters_parse(&b, NULL, format, path, text, len, &d, &err), BL_EINVALID);
	strbuf_addf(&want, "%s:%d:%d: ", path, line, column);
	if (strncmp(err.msg.buf, want.buf, want.len))
		fail_msg("expected \"%s...\", got \"%s\"", want.buf, err.msg.buf);
	assert_int_equal(b.nr, 1);
	ingest_batch_release(&b);
	bl_error_release(&err);
	strbuf_release(&want);
}

static const struct ingest_record *record(const struct ingest_batch *b, const char *benchmark)
{
	for (size_t i = 0; i < b->nr; i++)
		if (!strcmp(b->records[i].benchmark, benchmark))
			return &b->records[i];
	fail_msg("no record %s", benchmark);
	return NULL;
}

static void assert_metric(const struct ingest_metric *m, enum metric_kind kind, const char *unit,
			  int better_higher, size_t nsamples)
{
	assert_int_equal(m->kind, kind);
	assert_string_equal(m->unit, unit);
	assert_int_equal(m->better_higher, better_higher);
	assert_int_equal(m->nsamples, nsamples);
	if (nsamples) {
		assert_non_null(m->samples);
		assert_int_equal(m->n, (int64_t)nsamples);
	} else {
		assert_null(m->samples);
	}
}

/* The fields every adapter fills from the flags. */
static void assert_from_flags(const struct ingest_record *rec)
{
	assert_string_equal(rec->machine, "m1");
	assert_int_equal(rec->harness_version, 3);
	assert_string_equal(rec->config, "cfg");
	assert_string_equal(rec->commit, COMMIT);
	assert_string_equal(rec->source_hash, SRC_HASH);
	assert_string_equal(rec->branch, "main");
	assert_int_equal(rec->dirty, 0);
	assert_double_equal(rec->started_at, STARTED, 0);
	assert_string_equal(rec->profile, "release");
	assert_int_equal(rec->baseline, 0);
	assert_non_null(rec->raw);
	assert_int_equal(strlen(rec->digest), 40);
}

/* --- bmf --- */

static void bmf_fixture(void **state)
{
	struct ingest_batch b = {NULL, 0, 0};
	struct ingest_defaults d;
	const struct ingest_record *rec;
	const struct ingest_metric *m;

	(void)state;
	full_defaults(&d);
	assert_string_equal(parse_fixture(&b, "bmf", FIXTURES "bmf.json", &d), "bmf");
	assert_int_equal(b.nr, 4);
	/* in the file's order, each at its key */
	assert_string_equal(b.records[0].benchmark, "sort::quick/1000");
	assert_string_equal(b.records[1].benchmark, "/bin/sh -c ./build.sh");
	assert_string_equal(b.records[2].benchmark, "benchline-binary");
	assert_string_equal(b.records[3].benchmark, "alloc_heavy");
	assert_int_equal(b.records[0].line, 2);
	assert_int_equal(b.records[0].column, 3);
	assert_int_equal(b.records[3].line, 12);

	rec = record(&b, "sort::quick/1000");
	assert_from_flags(rec);
	assert_int_equal(rec->nmetrics, 2);
	assert_string_equal(rec->primary, "latency");
	m = unit_metric(rec, "latency");
	assert_metric(m, METRIC_TIMED, "ns", 0, 0);
	assert_double_equal(m->median, 18234.0, 0);
	assert_true(isnan(m->p95));
	m = unit_metric(rec, "throughput");
	assert_metric(m, METRIC_TIMED, "ops/s", 1, 0);
	assert_double_equal(m->median, 54842.1, 0);

	m = unit_metric(record(&b, "/bin/sh -c ./build.sh"), "build-time");
	assert_metric(m, METRIC_TIMED, "s", 0, 0);
	assert_double_equal(m->median, 87.0, 0);

	m = unit_metric(record(&b, "benchline-binary"), "file-size");
	assert_metric(m, METRIC_COUNTED, "B", 0, 0);
	assert_double_equal(m->value, 1843200.0, 0);
	assert_true(isnan(m->median));

	rec = record(&b, "alloc_heavy");
	assert_string_equal(rec->primary, "latency");
	m = unit_metric(rec, "Total Bytes");
	assert_metric(m, METRIC_TIMED, "", 0, 0);
	assert_double_equal(m->median, 662, 0);
	ingest_batch_release(&b);
}

static void bmf_errors(void **state)
{
	(void)state;
	expect_error("bmf", "{}", "x:1:1: no benchmarks");
	expect_error("bmf", "{\"b\": 3}", "x:1:7: b: expected an object of measures");
	expect_error("bmf", "{\"b\": {}}", "x:1:7: b: no measures (at least one is required)");
	expect_error("bmf", "{\"b\": {\"latency\": {}}}",
		     "x:1:19: b.latency.value: missing required field");
	expect_error("bmf", "{\"b\": {\"latency\": {\"value\": \"1\"}}}",
		     "x:1:29: b.latency.value: expected a number");
	expect_error("bmf", "{\"b\":\n {\"latency\": {\"value\": -1}}}",
		     "x:2:24: b.latency.value: negative value -1");
	expect_error("bmf", "{\"b\": {\"latency\": {\"value\": 1, \"upper_value\": null}}}",
		     "x:1:47: b.latency.upper_value: expected a number");
	expect_error("bmf", "{\"b\": {\"\": {\"value\": 1}}}", "x:1:8: b.: empty measure name");
	expect_error("bmf", "[1]", "x:1:1: expected an object");
}

/* --- gbench --- */

static void gbench_fixture(void **state)
{
	struct ingest_batch b = {NULL, 0, 0};
	struct ingest_defaults d;
	const struct ingest_record *rec;
	const struct ingest_metric *m;

	(void)state;
	full_defaults(&d);
	assert_string_equal(parse_fixture(&b, "gbench", FIXTURES "gbench.json", &d), "gbench");
	/* two benchmarks; the aggregate rows (mean, median, stddev, cv) are not records */
	assert_int_equal(b.nr, 2);
	rec = &b.records[0];
	assert_string_equal(rec->benchmark, "BM_StringCopy/64");
	assert_from_flags(rec);
	assert_int_equal(rec->line, 15);
	assert_int_equal(rec->column, 5);
	assert_string_equal(rec->primary, "real_time");
	assert_string_equal(rec->machine_info, "{\"mhz_per_cpu\":2096,\"num_cpus\":2}");
	assert_int_equal(rec->nmetrics, 3);
	/* five repetitions: five samples, not nine */
	m = unit_metric(rec, "real_time");
	assert_metric(m, METRIC_TIMED, "ns", 0, 5);
	assert_close(m->samples[0], 28.534552793849787);
	assert_close(m->samples[4], 25.991132162720294);
	/* nearest rank: the 3rd of 5 sorted, 19.31 23.58 25.99 26.79 28.53 */
	assert_close(m->median, 25.991132162720294);
	assert_close(m->p95, 28.534552793849787);
	m = unit_metric(rec, "cpu_time");
	assert_metric(m, METRIC_TIMED, "ns", 0, 5);
	assert_close(m->samples[1], 12.012514747866113);
	m = unit_metric(rec, "bytes_per_second");
	assert_metric(m, METRIC_TIMED, "B/s", 1, 5);
	assert_close(m->samples[0], 5380626187.220304);

	rec = &b.records[1];
	assert_string_equal(rec->benchmark, "BM_Accumulate");
	assert_int_equal(rec->line, 154);
	assert_int_equal(rec->nmetrics, 4);
	m = unit_metric(rec, "real_time");
	assert_metric(m, METRIC_TIMED, "us", 0, 5);
	assert_close(m->samples[2], 0.5274914974559034);
	m = unit_metric(rec, "cpu_time");
	assert_metric(m, METRIC_TIMED, "us", 0, 5);
	m = unit_metric(rec, "items_per_second");
	assert_metric(m, METRIC_TIMED, "items/s", 1, 5);
	/* a user counter: timed, no unit */
	m = unit_metric(rec, "elements");
	assert_metric(m, METRIC_TIMED, "", 0, 5);
	assert_double_equal(m->median, 1000, 0);
	ingest_batch_release(&b);
}

static void gbench_context_fills_machine_and_date(void **state)
{
	struct ingest_batch b = {NULL, 0, 0};
	struct ingest_defaults d;

	(void)state;
	/* no --machine, no date flag: context.host_name and context.date */
	full_defaults(&d);
	d.machine = NULL;
	d.started_at = NAN;
	parse_fixture(&b, "gbench", FIXTURES "gbench.json", &d);
	assert_string_equal(b.records[0].machine, "vm");
	assert_double_equal(b.records[0].started_at, 1795997924.0, 0); /* 2026-11-30T00:18:44Z */
	ingest_batch_release(&b);

	/* the flags win over the file */
	full_defaults(&d);
	parse_fixture(&b, "gbench", FIXTURES "gbench.json", &d);
	assert_string_equal(b.records[0].machine, "m1");
	assert_double_equal(b.records[0].started_at, STARTED, 0);
	ingest_batch_release(&b);
}

static void gbench_aggregates_only_and_errors_skipped(void **state)
{
	static const char text[] =
	    "{\"context\": {\"date\": \"2016-08-02 17:44:46\"},\n"
	    " \"benchmarks\": [\n"
	    "  {\"name\": \"BM_A_mean\", \"run_name\": \"BM_A\", \"run_type\": \"aggregate\",\n"
	    "   \"aggregate_name\": \"mean\", \"real_time\": 12, \"cpu_time\": 11,"
	    " \"time_unit\": \"ms\"},\n"
	    "  {\"name\": \"BM_A_median\", \"run_name\": \"BM_A\", \"run_type\": \"aggregate\",\n"
	    "   \"aggregate_name\": \"median\", \"real_time\": 10, \"cpu_time\": 9,"
	    " \"time_unit\": \"ms\"},\n"
	    "  {\"name\": \"BM_A_stddev\", \"run_name\": \"BM_A\", \"run_type\": \"aggregate\",\n"
	    "   \"aggregate_name\": \"stddev\", \"real_time\": 1, \"cpu_time\": 1,"
	    " \"time_unit\": \"ms\"},\n"
	    "  {\"name\": \"BM_Bad\", \"error_occurred\": true, \"error_message\": \"no\"},\n"
	    "  {\"name\": \"BM_Old/repeats:2\", \"real_time\": 4, \"cpu_time\": 3},\n"
	    "  {\"name\": \"BM_Old/repeats:2\", \"real_time\": 5, \"cpu_time\": 4,"
	    " \"allocs_per_iter\": 2}\n"
	    " ]}\n";
	struct ingest_batch b = {NULL, 0, 0};
	struct ingest_defaults d;
	const struct ingest_metric *m;

	(void)state;
	full_defaults(&d);
	d.started_at = NAN;
	parse_ok(&b, "auto", "agg.json", text, sizeof(text) - 1, &d);
	assert_int_equal(b.nr, 2);
	assert_string_equal(b.records[0].benchmark, "BM_A");
	assert_int_equal(b.records[0].line, 3);
	/* an old date without an offset is taken as UTC */
	assert_double_equal(b.records[0].started_at, 1470159886.0, 0);
	m = unit_metric(&b.records[0], "real_time");
	assert_metric(m, METRIC_TIMED, "ms", 0, 0);
	assert_double_equal(m->median, 10, 0); /* the median row, not the mean */
	assert_double_equal(unit_metric(&b.records[0], "cpu_time")->median, 9, 0);
	/* no run_name: the name without its /repeats: suffix; no time_unit: ns */
	assert_string_equal(b.records[1].benchmark, "BM_Old");
	m = unit_metric(&b.records[1], "real_time");
	assert_metric(m, METRIC_TIMED, "ns", 0, 2);
	assert_double_equal(m->median, 4, 0);
	m = unit_metric(&b.records[1], "allocs_per_iter");
	assert_metric(m, METRIC_COUNTED, "allocs", 0, 0);
	assert_double_equal(m->value, 2, 0);
	ingest_batch_release(&b);
}

static void gbench_errors(void **state)
{
	static const char bad_date[] = "{\"context\": {\"date\": \"yesterday\"}, \"benchmarks\":"
				       " [{\"name\": \"a\", \"real_time\": 1, \"cpu_time\": 1}]}";
	struct ingest_batch b = {NULL, 0, 0};
	struct ingest_defaults d;

	(void)state;
	expect_error("gbench", "{\"context\": {}}", "x:1:1: benchmarks: missing required field");
	expect_error("gbench", "{\"benchmarks\": []}", "x:1:16: benchmarks: no benchmark results");
	expect_error("gbench", "{\"benchmarks\": [\n {\"name\": \"a\", \"real_time\": 1}]}",
		     "x:2:2: benchmarks[0].cpu_time: missing required field");
	expect_error(
	    "gbench",
	    "{\"benchmarks\": [\n {\"name\": \"a\", \"real_time\": \"1\", \"cpu_time\": 1}]}",
	    "x:2:29: benchmarks[0].real_time: expected a number");
	expect_error(
	    "gbench",
	    "{\"benchmarks\": [\n {\"name\": \"a\", \"real_time\": 1, \"cpu_time\": 1,"
	    " \"time_unit\": \"ns\"},\n {\"name\": \"a\", \"real_time\": 1, \"cpu_time\": 1,"
	    " \"time_unit\": \"us\"}]}",
	    "x:3:60: benchmarks[1].time_unit: time unit \"us\" differs from the "
	    "benchmark's \"ns\"");
	expect_error("gbench",
		     "{\"benchmarks\": [{\"name\": \"a\", \"run_type\": \"x\", \"real_time\": 1,"
		     " \"cpu_time\": 1}]}",
		     "x:1:43: benchmarks[0].run_type: unknown run type (expected \"iteration\" or "
		     "\"aggregate\")");
	expect_error("gbench", "{\"benchmarks\": [{\"name\": 3}]}",
		     "x:1:26: benchmarks[0].name: expected a string");
	expect_error("gbench", "{\"benchmarks\": 3}", "x:1:16: benchmarks: expected an array");
	/* a date is read only when no flag gives one */
	full_defaults(&d);
	d.started_at = NAN;
	expect_error_len("gbench", "x", bad_date, strlen(bad_date), &d,
			 "x:1:22: context.date: bad date");
	full_defaults(&d);
	parse_ok(&b, "gbench", "x", bad_date, strlen(bad_date), &d);
	assert_double_equal(b.records[0].started_at, STARTED, 0);
	ingest_batch_release(&b);
}

/* --- hyperfine --- */

static void hyperfine_fixture(void **state)
{
	struct ingest_batch b = {NULL, 0, 0};
	struct ingest_defaults d;
	const struct ingest_record *rec;
	const struct ingest_metric *m;

	(void)state;
	full_defaults(&d);
	assert_string_equal(parse_fixture(&b, "hyperfine", FIXTURES "hyperfine.json", &d),
			    "hyperfine");
	assert_int_equal(b.nr, 2);
	rec = &b.records[0];
	assert_string_equal(rec->benchmark, "sleep 0.01");
	assert_from_flags(rec);
	assert_null(rec->machine_info);
	assert_int_equal(rec->line, 3);
	assert_int_equal(rec->column, 5);
	assert_string_equal(rec->primary, "time");
	assert_int_equal(rec->nmetrics, 3);
	m = unit_metric(rec, "time");
	assert_metric(m, METRIC_TIMED, "s", 0, 5);
	assert_close(m->samples[0], 0.01108088914);
	assert_close(m->samples[4], 0.03459098914);
	assert_close(m->median, 0.02722765914);
	assert_close(m->p95, 0.03459098914);
	m = unit_metric(rec, "user");
	assert_metric(m, METRIC_TIMED, "s", 0, 0);
	assert_close(m->median, 0.003942024);
	m = unit_metric(rec, "system");
	assert_metric(m, METRIC_TIMED, "s", 0, 0);
	assert_close(m->median, 0.004674880000000001);
	rec = &b.records[1];
	assert_string_equal(rec->benchmark, "sleep 0.02");
	assert_int_equal(rec->line, 27);
	assert_close(unit_metric(rec, "time")->samples[2], 0.03112263414);
	ingest_batch_release(&b);
}

static void hyperfine_command_name_and_no_times(void **state)
{
	static const char text[] = "{\"results\": [{\"command\": \"./a --fast\", \"command_name\":"
				   " \"fast\", \"mean\": 0.5, \"median\": 0.25}]}";
	struct ingest_batch b = {NULL, 0, 0};
	struct ingest_defaults d;
	const struct ingest_metric *m;

	(void)state;
	full_defaults(&d);
	parse_ok(&b, "hyperfine", "h.json", text, sizeof(text) - 1, &d);
	assert_int_equal(b.nr, 1);
	assert_string_equal(b.records[0].benchmark, "fast");
	assert_int_equal(b.records[0].nmetrics, 1);
	m = unit_metric(&b.records[0], "time");
	assert_metric(m, METRIC_TIMED, "s", 0, 0);
	assert_double_equal(m->median, 0.25, 0);
	ingest_batch_release(&b);
}

static void hyperfine_errors(void **state)
{
	(void)state;
	expect_error("hyperfine", "{\"results\": []}", "x:1:13: results: no results");
	expect_error("hyperfine", "{\"results\": [{\"times\": [1]}]}",
		     "x:1:14: results[0].command: missing required field");
	expect_error("hyperfine", "{\"results\": [{\"command\": \"a\"}]}",
		     "x:1:14: results[0].times: missing required field (give times, median or "
		     "mean)");
	expect_error("hyperfine", "{\"results\": [{\"command\": \"a\",\n \"times\": [0.1, -2]}]}",
		     "x:2:17: results[0].times[1]: negative value -2");
	expect_error("hyperfine", "{\"results\": [{\"command\": \"a\", \"times\": [\"x\"]}]}",
		     "x:1:41: results[0].times[0]: expected a number");
	expect_error("hyperfine", "{\"results\": [{\"command\": \"\", \"times\": [1]}]}",
		     "x:1:14: empty benchmark name");
}

/* --- pytest --- */

static void pytest_fixture(void **state)
{
	struct ingest_batch b = {NULL, 0, 0};
	struct ingest_defaults d;
	const struct ingest_record *rec;
	const struct ingest_metric *m;

	(void)state;
	full_defaults(&d);
	assert_string_equal(parse_fixture(&b, "pytest", FIXTURES "pytest.json", &d), "pytest");
	assert_int_equal(b.nr, 2);
	rec = &b.records[0];
	assert_string_equal(rec->benchmark, "test_demo.py::test_fib_10");
	/* the flags win over machine_info.node, commit_info and datetime */
	assert_from_flags(rec);
	assert_string_equal(rec->machine_info, "{\"cpu\":\"AMD EPYC\",\"os\":\"Linux "
					       "6.18.44-fc-v782\",\"python\":\"CPython 3.11.2\"}");
	assert_int_equal(rec->line, 31);
	assert_int_equal(rec->column, 9);
	assert_int_equal(rec->nmetrics, 1);
	m = unit_metric(rec, "time");
	assert_metric(m, METRIC_TIMED, "s", 0, 5);
	assert_close(m->samples[0], 5.962199998066353e-06);
	assert_close(m->samples[3], 1.867040000433917e-05);
	/* 5.44 5.49 5.96 10.79 18.67 (us): the 3rd */
	assert_close(m->median, 5.962199998066353e-06);
	assert_close(m->p95, 1.867040000433917e-05);
	rec = &b.records[1];
	assert_string_equal(rec->benchmark, "test_demo.py::test_sorted");
	assert_close(unit_metric(rec, "time")->samples[1], 1.2743100000989217e-06);
	ingest_batch_release(&b);
}

static void pytest_file_fills_machine_commit_and_date(void **state)
{
	struct ingest_batch b = {NULL, 0, 0};
	struct ingest_defaults d;
	const struct ingest_record *rec;

	(void)state;
	ingest_defaults_init(&d);
	d.harness_version = 1;
	parse_fixture(&b, "pytest", FIXTURES "pytest.json", &d);
	rec = &b.records[0];
	assert_string_equal(rec->machine, "vm");
	assert_string_equal(rec->commit, "e03979db3365628e3a43c20af11700973d08c638");
	assert_string_equal(rec->source_hash, "");
	assert_string_equal(rec->branch, "main");
	assert_int_equal(rec->dirty, 0);
	assert_double_equal(rec->committed_at, 1795998113.0, 0); /* 2026-11-30T00:21:53+00:00 */
	assert_double_equal(rec->started_at, 1795998116.209765, 1e-6); /* 00:21:56.209765 */
	assert_string_equal(rec->config, "");
	ingest_batch_release(&b);
}

static void pytest_without_data(void **state)
{
	static const char text[] =
	    "{\"commit_info\": {\"id\": \"unversioned\", \"branch\": \"(unknown)\"},\n"
	    " \"benchmarks\": [{\"name\": \"test_x\", \"stats\": {\"median\": 0.002,"
	    " \"rounds\": 38523}}]}";
	struct ingest_batch b = {NULL, 0, 0};
	struct ingest_defaults d;
	const struct ingest_metric *m;

	(void)state;
	full_defaults(&d);
	parse_ok(&b, "auto", "p.json", text, sizeof(text) - 1, &d);
	assert_int_equal(b.nr, 1);
	assert_string_equal(b.records[0].benchmark, "test_x"); /* no fullname: name */
	m = unit_metric(&b.records[0], "time");
	assert_metric(m, METRIC_TIMED, "s", 0, 0);
	assert_double_equal(m->median, 0.002, 0);
	assert_true(isnan(m->p95));
	assert_int_equal(m->n, 38523);
	ingest_batch_release(&b);

	/* "unversioned" is no commit */
	full_defaults(&d);
	d.commit = NULL;
	expect_error_len("pytest", "p.json", text, sizeof(text) - 1, &d,
			 "p.json: no commit: give --repo");
}

static void pytest_errors(void **state)
{
	struct ingest_defaults d;

	(void)state;
	expect_error("pytest", "{\"benchmarks\": [{\"name\": \"a\"}]}",
		     "x:1:17: benchmarks[0].stats: missing required field");
	expect_error("pytest", "{\"benchmarks\": [{\"stats\": {\"median\": 1}}]}",
		     "x:1:17: benchmarks[0].name: missing required field");
	expect_error("pytest", "{\"benchmarks\": [{\"name\": \"a\", \"stats\": {}}]}",
		     "x:1:40: benchmarks[0].stats.median: missing required field");
	expect_error("pytest",
		     "{\"benchmarks\": [{\"name\": \"a\", \"stats\": {\"data\": [1, null]}}]}",
		     "x:1:53: benchmarks[0].stats.data[1]: expected a number");
	expect_error("pytest", "{\"benchmarks\": []}", "x:1:16: benchmarks: no benchmarks");
	/* the date is read only when no flag gives one */
	expect_error("pytest", "{\"datetime\": \"then\", \"benchmarks\": []}",
		     "x:1:36: benchmarks: no benchmarks");
	full_defaults(&d);
	d.started_at = NAN;
	expect_error_len("pytest", "x", "{\"datetime\": \"then\", \"benchmarks\": []}", 38, &d,
			 "x:1:14: datetime: bad date");
	expect_error("pytest", "{\"machine_info\": {\"node\": 7}, \"benchmarks\": []}",
		     "x:1:27: machine_info.node: expected a string");
}

/* --- gotest --- */

static void gotest_fixture(void **state)
{
	struct ingest_batch b = {NULL, 0, 0};
	struct ingest_defaults d;
	const struct ingest_record *rec;
	const struct ingest_metric *m;

	(void)state;
	full_defaults(&d);
	assert_string_equal(parse_fixture(&b, "gotest", FIXTURES "gotest.txt", &d), "gotest");
	assert_int_equal(b.nr, 4);
	rec = &b.records[0];
	assert_string_equal(rec->benchmark, "benchline.test/gobench.BenchmarkFib-2");
	assert_from_flags(rec);
	assert_string_equal(
	    rec->machine_info,
	    "{\"cpu\":\"Oxide Virtual Turin-like Processor\",\"os\":\"linux/amd64\"}");
	assert_int_equal(rec->line, 5);
	assert_int_equal(rec->column, 1);
	assert_string_equal(rec->primary, "ns/op");
	assert_int_equal(rec->nmetrics, 3);
	/* -count 3: three samples */
	m = unit_metric(rec, "ns/op");
	assert_metric(m, METRIC_TIMED, "ns", 0, 3);
	assert_double_equal(m->samples[0], 5603, 0);
	assert_double_equal(m->samples[1], 5115, 0);
	assert_double_equal(m->samples[2], 4770, 0);
	assert_double_equal(m->median, 5115, 0);
	assert_double_equal(m->p95, 5603, 0);
	m = unit_metric(rec, "B/op");
	assert_metric(m, METRIC_COUNTED, "B", 0, 0);
	assert_double_equal(m->value, 0, 0);
	m = unit_metric(rec, "allocs/op");
	assert_metric(m, METRIC_COUNTED, "allocs", 0, 0);

	rec = &b.records[1];
	assert_string_equal(rec->benchmark, "benchline.test/gobench.BenchmarkJoin-2");
	assert_int_equal(rec->line, 8);
	assert_int_equal(rec->nmetrics, 4);
	m = unit_metric(rec, "ns/op");
	assert_double_equal(m->samples[0], 519.9, 1e-12);
	assert_double_equal(m->median, 346.2, 1e-12);
	m = unit_metric(rec, "MB/s");
	assert_metric(m, METRIC_TIMED, "MB/s", 1, 3);
	assert_double_equal(m->samples[1], 195.47, 1e-12);
	m = unit_metric(rec, "B/op");
	assert_metric(m, METRIC_COUNTED, "B", 0, 0);
	assert_double_equal(m->value, 208, 0);
	assert_double_equal(unit_metric(rec, "allocs/op")->value, 2, 0);

	/* a sub-benchmark with a custom x/op metric */
	rec = &b.records[2];
	assert_string_equal(rec->benchmark, "benchline.test/gobench.BenchmarkSub/n=5-2");
	m = unit_metric(rec, "depth/op");
	assert_metric(m, METRIC_TIMED, "depth", 0, 3);
	assert_double_equal(m->median, 5, 0);
	assert_string_equal(b.records[3].benchmark, "benchline.test/gobench.BenchmarkSub/n=10-2");
	ingest_batch_release(&b);
}

static void gotest_lines(void **state)
{
	/* no pkg line: the bare name; a custom unit; test chatter and -v name lines ignored */
	static const char text[] = "=== RUN   TestX\n"
				   "--- PASS: TestX (0.00s)\n"
				   "BenchmarkA\n"
				   "BenchmarkA-8 \t 100\t 10.5 ns/op\t 3.000 widgets\t 7 MB/s\n"
				   "Benchmarks are run below\n"
				   "BenchmarkA-8 \t 100\t 12 ns/op\t 3.000 widgets\t 9 MB/s\r\n"
				   "PASS\n"
				   "ok  \tpkg\t1.2s\n";
	struct ingest_batch b = {NULL, 0, 0};
	struct ingest_defaults d;
	const struct ingest_metric *m;

	(void)state;
	full_defaults(&d);
	assert_string_equal(parse_ok(&b, "auto", "g.txt", text, sizeof(text) - 1, &d), "gotest");
	assert_int_equal(b.nr, 1);
	assert_string_equal(b.records[0].benchmark, "BenchmarkA-8");
	assert_int_equal(b.records[0].line, 4);
	assert_null(b.records[0].machine_info);
	m = unit_metric(&b.records[0], "ns/op");
	assert_metric(m, METRIC_TIMED, "ns", 0, 2);
	assert_double_equal(m->samples[0], 10.5, 0);
	m = unit_metric(&b.records[0], "widgets");
	assert_metric(m, METRIC_TIMED, "widgets", 0, 2);
	m = unit_metric(&b.records[0], "MB/s");
	assert_metric(m, METRIC_TIMED, "MB/s", 1, 2);
	assert_double_equal(m->samples[1], 9, 0);
	ingest_batch_release(&b);
}

static void gotest_errors(void **state)
{
	(void)state;
	expect_error("gotest", "goos: linux\nBenchmarkX-8  abc ns/op\n",
		     "x:2:15: expected an iteration count, got \"abc\"");
	expect_error("gotest", "BenchmarkX-8\t100\t12x ns/op\n",
		     "x:1:18: expected a number, got \"12x\"");
	expect_error("gotest", "BenchmarkX-8\t100\t12 ns/op\t5\n",
		     "x:1:27: value \"5\" has no unit");
	expect_error("gotest", "BenchmarkX-8\t100\t-1 ns/op\n",
		     "x:1:18: expected a number, got \"-1\"");
	expect_error("gotest", "BenchmarkX-8\t100\tnan ns/op\n",
		     "x:1:18: expected a number, got \"nan\"");
	expect_error("gotest", "BenchmarkX-8\t100\n",
		     "x:1:17: no measurements after the iteration count");
	expect_error("gotest", "PASS\nok\n", "x: no benchmark results");
	expect_error("gotest", "Benchmark\xff-8\t1\t2 ns/op\n",
		     "x:1:1: benchmark name longer than 4096 bytes or not utf-8");
	expect_error_len("gotest", "x", "BenchmarkX\t1\0", 13, NULL, "x:1:13: nul byte in file");
}

/* --- criterion --- */

static void criterion_fixture(void **state)
{
	struct ingest_batch b = {NULL, 0, 0};
	struct ingest_defaults d;
	const struct ingest_record *rec;
	const struct ingest_metric *m;

	(void)state;
	full_defaults(&d);
	assert_string_equal(parse_ok(&b, "auto", CRITERION, NULL, 0, &d), "criterion");
	/* new/ only: base/ and the report directories are not records */
	assert_int_equal(b.nr, 2);
	rec = &b.records[0];
	assert_string_equal(rec->benchmark, "fib/20");
	assert_from_flags(rec);
	assert_string_equal(rec->primary, "time");
	assert_int_equal(rec->nmetrics, 1);
	m = unit_metric(rec, "time");
	assert_metric(m, METRIC_TIMED, "ns", 0, 10);
	/* times[i] / iters[i] */
	assert_close(m->samples[0], 244701.6 / 10);
	assert_close(m->samples[9], 2403492.0 / 100);
	/* the median is criterion's own estimate */
	assert_close(m->median, 24192.09);
	assert_close(m->p95, 2490540.0 / 100);

	rec = &b.records[1];
	assert_string_equal(rec->benchmark, "parse/json");
	assert_int_equal(rec->nmetrics, 2);
	m = unit_metric(rec, "time");
	assert_metric(m, METRIC_TIMED, "ns", 0, 10);
	assert_close(m->samples[0], 35904.0 / 10);
	m = unit_metric(rec, "throughput");
	assert_metric(m, METRIC_TIMED, "B/s", 1, 10);
	assert_close(m->samples[0], 1024 * 1e9 / (35904.0 / 10));
	ingest_batch_release(&b);
}

/* Writes text to dir/rel (its directories made). */
static void put(const char *dir, const char *rel, const char *text)
{
	struct strbuf path = STRBUF_INIT;
	FILE *f;

	strbuf_addf(&path, "%s/%s", dir, rel);
	for (char *s = path.buf + strlen(dir) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(path.buf, 0755);
		*s = '/';
	}
	f = fopen(path.buf, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	strbuf_release(&path);
}

static void criterion_directories(void **state)
{
	char dir[] = "/tmp/benchline-criterion-XXXXXX";
	struct ingest_batch b = {NULL, 0, 0};
	struct ingest_defaults d;
	struct strbuf msg = STRBUF_INIT;
	const struct ingest_metric *m;

	(void)state;
	assert_non_null(mkdtemp(dir));
	full_defaults(&d);
	/* no benchmark at all */
	strbuf_addf(&msg, "%s: no criterion benchmarks (no */new/estimates.json)", dir);
	expect_error_len("criterion", dir, NULL, 0, &d, msg.buf);

	/* no benchmark.json: the directory path is the name; a symbolic link is not followed */
	put(dir, "g/f/new/estimates.json", "{\"median\": {\"point_estimate\": 5.5}}");
	put(dir, "g/f/new/sample.json", "{\"iters\": [1, 2, 4], \"times\": [6, 10, 24]}");
	strbuf_reset(&msg);
	strbuf_addf(&msg, "%s/g/loop", dir);
	assert_int_equal(symlink("..", msg.buf), 0);
	parse_ok(&b, "criterion", dir, NULL, 0, &d);
	assert_int_equal(b.nr, 1);
	assert_string_equal(b.records[0].benchmark, "g/f");
	m = unit_metric(&b.records[0], "time");
	assert_metric(m, METRIC_TIMED, "ns", 0, 3);
	assert_double_equal(m->samples[1], 5, 0);
	assert_double_equal(m->median, 5.5, 0);
	ingest_batch_release(&b);

	/* a missing sample.json is named */
	put(dir, "h/new/estimates.json", "{\"median\": {\"point_estimate\": 1}}");
	strbuf_reset(&msg);
	strbuf_addf(&msg,
		    "%s/h/new/sample.json: missing (criterion writes it beside "
		    "estimates.json)",
		    dir);
	expect_error_len("criterion", dir, NULL, 0, &d, msg.buf);

	/* a bad file is named with the position */
	put(dir, "h/new/sample.json", "{\"iters\": [1, 0],\n \"times\": [1, 2]}");
	strbuf_reset(&msg);
	strbuf_addf(&msg, "%s/h/new/sample.json:1:15: iters[1]: iteration count is 0", dir);
	expect_error_len("criterion", dir, NULL, 0, &d, msg.buf);
	/* a time per iteration too large for a double is refused, not stored as 0 */
	put(dir, "h/new/sample.json", "{\"iters\": [1, 0.5],\n \"times\": [1, 1.5e308]}");
	strbuf_reset(&msg);
	strbuf_addf(&msg,
		    "%s/h/new/sample.json:2:15: times[1]: time per iteration 1.5e+308 / 0.5 is not "
		    "a finite number",
		    dir);
	expect_error_len("criterion", dir, NULL, 0, &d, msg.buf);
	put(dir, "h/new/sample.json", "{\"iters\": [1],\n \"times\": [1, 2]}");
	strbuf_reset(&msg);
	strbuf_addf(&msg, "%s/h/new/sample.json:2:11: times: 2 times for 1 iteration counts", dir);
	expect_error_len("criterion", dir, NULL, 0, &d, msg.buf);
	put(dir, "h/new/sample.json", "{\"iters\": [1], \"times\": [1]}");
	put(dir, "h/new/estimates.json", "{\"median\": {\"point_estimate\": 1}");
	strbuf_reset(&msg);
	strbuf_addf(&msg, "%s/h/new/estimates.json:1:33: '}' expected near end of file", dir);
	expect_error_len("criterion", dir, NULL, 0, &d, msg.buf);
	put(dir, "h/new/estimates.json", "{\"median\": {\"point_estimate\": 1}}");
	put(dir, "h/new/benchmark.json", "{\"full_id\": \"h/x\", \"throughput\": {\"Bits\": 1}}");
	strbuf_reset(&msg);
	strbuf_addf(&msg,
		    "%s/h/new/benchmark.json:1:34: throughput: unknown throughput (expected "
		    "Bytes, BytesDecimal or Elements)",
		    dir);
	expect_error_len("criterion", dir, NULL, 0, &d, msg.buf);
	put(dir, "h/new/benchmark.json",
	    "{\"full_id\": \"h/x\", \"throughput\": {\"Elements\": 2}}");
	parse_ok(&b, "criterion", dir, NULL, 0, &d);
	assert_int_equal(b.nr, 2);
	assert_string_equal(b.records[1].benchmark, "h/x");
	m = unit_metric(&b.records[1], "throughput");
	assert_metric(m, METRIC_TIMED, "elements/s", 1, 1);
	assert_double_equal(m->samples[0], 2e9, 0);
	ingest_batch_release(&b);

	/* a file is not a criterion directory */
	expect_error_len("criterion", "f.json", "{}", 2, &d,
			 "f.json: criterion reads a target/criterion directory, not a file");
	strbuf_release(&msg);
	strbuf_reset(&msg);
	strbuf_addf(&msg, "rm -rf '%s'", dir);
	assert_int_equal(system(msg.buf), 0);
	strbuf_release(&msg);
}

static void criterion_texts(void **state)
{
	struct adapters_criterion_texts t;
	struct ingest_batch b = {NULL, 0, 0};
	struct bl_error err = BL_ERROR_INIT;
	struct ingest_defaults d;

	(void)state;
	full_defaults(&d);
	memset(&t, 0, sizeof(t));
	t.dir_name = "grp/fn";
	t.estimates_name = "e.json";
	t.estimates = "{\"median\": {\"point_estimate\": 1.5}}";
	t.estimates_len = strlen(t.estimates);
	t.sample_name = "s.json";
	t.sample = "{\"iters\": [2], \"times\": [3]}";
	t.sample_len = strlen(t.sample);
	t.benchmark_name = "b.json";
	t.fallback_time = NAN;
	assert_int_equal(adapters_criterion_parse_texts(&b, &t, &d, &err), 0);
	assert_int_equal(b.nr, 1);
	assert_string_equal(b.records[0].benchmark, "grp/fn");
	assert_double_equal(unit_metric(&b.records[0], "time")->samples[0], 1.5, 0);
	/* a median the samples cannot have */
	t.estimates = "{\"median\": {\"point_estimate\": 2.5}}";
	t.estimates_len = strlen(t.estimates);
	assert_int_equal(adapters_criterion_parse_texts(&b, &t, &d, &err), BL_EINVALID);
	assert_string_equal(err.msg.buf, "e.json:1:31: median.point_estimate: median 2.5 is above "
					 "the 95th percentile of sample.json (1.5)");
	assert_int_equal(b.nr, 1);
	t.estimates = "{\"median\": {}}";
	t.estimates_len = strlen(t.estimates);
	assert_int_equal(adapters_criterion_parse_texts(&b, &t, &d, &err), BL_EINVALID);
	assert_string_equal(err.msg.buf, "e.json:1:12: median.point_estimate: missing required "
					 "field");
	assert_int_equal(b.nr, 1);
	ingest_batch_release(&b);
	bl_error_release(&err);
}

/* --- what every adapter shares --- */

static const char *const json_fixtures[][2] = {
    {"bmf", FIXTURES "bmf.json"},
    {"gbench", FIXTURES "gbench.json"},
    {"hyperfine", FIXTURES "hyperfine.json"},
    {"pytest", FIXTURES "pytest.json"},
};
#define NJSON (sizeof(json_fixtures) / sizeof(json_fixtures[0]))

/* --- catch2 --- */

static void catch2_fixture(void **state)
{
	struct ingest_batch b = {NULL, 0, 0};
	struct ingest_defaults d;
	const struct ingest_metric *m;

	(void)state;
	full_defaults(&d);
	assert_string_equal(parse_fixture(&b, "auto", FIXTURES "catch2.xml", &d), "catch2");
	assert_int_equal(b.nr, 3);
	assert_from_flags(&b.records[0]);
	assert_string_equal(b.records[0].benchmark, "fib 20");
	assert_int_equal(b.records[0].line, 4);
	assert_int_equal(b.records[0].column, 5);
	assert_int_equal(b.records[0].nmetrics, 1);
	assert_string_equal(b.records[0].primary, "mean");
	m = unit_metric(&b.records[0], "mean");
	assert_metric(m, METRIC_TIMED, "ns", 0, 0);
	assert_close(m->median, 28815.4);
	assert_true(isnan(m->p95));
	assert_int_equal(m->n, 100);
	assert_close(unit_metric(&b.records[1], "mean")->median, 318770);
	/* the entities of an attribute are decoded */
	assert_string_equal(b.records[2].benchmark, "vector<int> push_back 1000");
	assert_int_equal(b.records[2].line, 19);
	assert_int_equal(unit_metric(&b.records[2], "mean")->n, 50);
	ingest_batch_release(&b);
	/* Catch2 2's <Catch><Group> */
	assert_string_equal(parse_fixture(&b, "auto", FIXTURES "catch2-v2.xml", &d), "catch2");
	assert_int_equal(b.nr, 1);
	assert_string_equal(b.records[0].benchmark, "fib 20");
	assert_close(unit_metric(&b.records[0], "mean")->median, 29102);
	ingest_batch_release(&b);
}

static void catch2_errors(void **state)
{
	(void)state;
	expect_error("catch2",
		     "<Catch2TestRun>\n<TestCase name=\"t\"><BenchmarkResults name=\"a\">"
		     "</BenchmarkResults></TestCase></Catch2TestRun>",
		     "x:2:20: <BenchmarkResults name=\"a\">: no <mean value=...>");
	expect_error("catch2", "<Catch2TestRun><BenchmarkResults name=\"a\"><mean value=\"-1\"/>",
		     "x:1:56: <mean value>: negative value -1");
	expect_error("catch2", "<Catch2TestRun><BenchmarkResults name=\"a\"><mean value=\"1x\"/>",
		     "x:1:56: <mean value>: expected a number, got \"1x\"");
	expect_error("catch2",
		     "<Catch2TestRun><BenchmarkResults name=\"a\"><mean value=\"1\"/>"
		     "</BenchmarkResults>\n<BenchmarkResults name=\"a\"><mean value=\"2\"/>"
		     "</BenchmarkResults></Catch2TestRun>",
		     "x:2:1: benchmark \"a\" again (test cases \"\" and \"\"): give each benchmark "
		     "of a file its own name");
	expect_error("catch2", "<Catch2TestRun><TestCase name=\"t\"></Catch2TestRun>",
		     "x:1:35: </Catch2TestRun> closes <TestCase>");
	expect_error("catch2", "<Catch2TestRun>\n  <TestCase name=\"a &nbsp; b\"/>",
		     "x:2:21: unknown entity (XML knows lt, gt, amp, quot and apos)");
	expect_error("catch2", "<Catch2TestRun><TestCase name=\"t\">",
		     "x:1:35: unterminated element <TestCase>");
	expect_error("catch2", "<?xml version=\"1.0\"?>\n<testsuites name=\"junit\"/>",
		     "x:2:1: not Catch2's XML: the root element is <testsuites>, expected "
		     "<Catch2TestRun> (Catch2 3) or <Catch> (Catch2 2)");
	expect_error("catch2", "<!DOCTYPE x [<!ENTITY a \"b\">]><Catch2TestRun/>",
		     "x:1:1: a document type declaration (no DTD is read)");
	expect_error("catch2", "<Catch2TestRun><TestCase name=\"t\"/></Catch2TestRun>",
		     "x: no benchmark results (run the benchmarks: a test case with BENCHMARK, and "
		     "--reporter xml without --skip-benchmarks)");
	expect_error("catch2", "<Catch2TestRun/><Catch/>", "x:1:17: a second root element <Catch>");
	expect_error("catch2", "", "x:1:1: not Catch2's XML: no root element");
}

/* --- jmh --- */

static void jmh_fixture(void **state)
{
	struct ingest_batch b = {NULL, 0, 0};
	struct ingest_defaults d;
	const struct ingest_record *rec;
	const struct ingest_metric *m;

	(void)state;
	full_defaults(&d);
	d.config = NULL;
	assert_string_equal(parse_fixture(&b, "auto", FIXTURES "jmh.json", &d), "jmh");
	/* quickSort with size 1000 ran in two modes: one record */
	assert_int_equal(b.nr, 3);
	rec = &b.records[0];
	assert_string_equal(rec->benchmark, "org.example.jmh.SortBench.quickSort");
	assert_string_equal(rec->config, "size=1000 kind=random");
	assert_int_equal(rec->line, 2);
	assert_string_equal(rec->primary, "thrpt");
	assert_string_equal(rec->machine_info, "{\"jdk\":\"17.0.9\",\"vm\":\"OpenJDK 64-Bit Server "
					       "VM\",\"vm_version\":\"17.0.9+9-Debian-1deb12u1\"}");
	assert_int_equal(rec->nmetrics, 5);
	m = unit_metric(rec, "thrpt");
	assert_metric(m, METRIC_TIMED, "ops/s", 1, 10);
	assert_close(m->samples[0], 47381.7868);
	m = unit_metric(rec, "avgt");
	assert_metric(m, METRIC_TIMED, "us", 0, 10);
	/* -prof gc, without its leading middle dot; "NaN" figures are no figures */
	assert_metric(unit_metric(rec, "gc.alloc.rate"), METRIC_TIMED, "MB/sec", 0, 10);
	assert_metric(unit_metric(rec, "gc.alloc.rate.norm"), METRIC_TIMED, "B/op", 0, 10);
	assert_close(unit_metric(rec, "gc.alloc.rate.norm")->median, 4096);
	assert_metric(unit_metric(rec, "gc.count"), METRIC_TIMED, "counts", 0, 10);
	assert_string_equal(b.records[1].config, "size=10000 kind=random");
	assert_int_equal(b.records[1].line, 169);
	rec = &b.records[2];
	assert_string_equal(rec->benchmark, "org.example.jmh.HashBench.murmur");
	assert_string_equal(rec->config, "");
	assert_metric(unit_metric(rec, "avgt"), METRIC_TIMED, "ns", 0, 10);
	ingest_batch_release(&b);
}

static void jmh_errors(void **state)
{
	(void)state;
	expect_error("jmh", "[]", "x:1:1: no benchmark results");
	expect_error("jmh", "[{\"benchmark\": \"a\", \"mode\": \"avgt\"}]",
		     "x:1:2: [0].primaryMetric: missing required field");
	expect_error(
	    "jmh",
	    "[{\"benchmark\": \"a\", \"mode\": \"avgt\",\n \"primaryMetric\": {\"score\": 1}}]",
	    "x:2:19: [0].primaryMetric.scoreUnit: missing required field");
	expect_error(
	    "jmh",
	    "[{\"benchmark\": \"a\", \"mode\": \"avgt\", \"primaryMetric\": {\"scoreUnit\": "
	    "\"ns/op\", \"rawData\": [[1, -3]]}}]",
	    "x:1:93: [0].primaryMetric.rawData[0][1]: negative value -3");
	expect_error(
	    "jmh",
	    "[{\"benchmark\": \"a\", \"mode\": \"avgt\", \"primaryMetric\": {\"scoreUnit\": "
	    "\"ns/op\", \"score\": 1}},\n {\"benchmark\": \"a\", \"mode\": \"avgt\", "
	    "\"primaryMetric\": {\"scoreUnit\": \"ns/op\", \"score\": 2}}]",
	    "x:2:54: [1].primaryMetric: mode avgt of this benchmark and parameters again");
	expect_error("jmh",
		     "[{\"benchmark\": \"a\", \"mode\": \"ss\", \"primaryMetric\": {\"scoreUnit\": "
		     "\"s/op\", \"score\": \"NaN\"}}]",
		     "x:1:52: [0].primaryMetric: no figure: neither rawData, scorePercentiles nor "
		     "score");
}

/* --- hints: what a file is when it is not the format asked for --- */

static void format_hints(void **state)
{
	static const char console[] =
	    "2026-12-01T10:00:00+00:00\n"
	    "Running ./bench\n"
	    "Run on (2 X 2096 MHz CPU s)\n"
	    "CPU Caches:\n"
	    "  L1 Data 32 KiB (x1)\n"
	    "Load Average: 0.52, 0.41, 0.30\n"
	    "-----------------------------------------------------------\n"
	    "Benchmark                 Time             CPU   Iterations\n"
	    "-----------------------------------------------------------\n"
	    "BM_StringCopy/64       28.5 ns         11.9 ns     58712345\n";
	static const char data_js[] =
	    "window.BENCHMARK_DATA = {\"lastUpdate\": 1, \"entries\": {}}\n";
	struct ingest_defaults d;
	size_t len;
	char *text;

	(void)state;
	full_defaults(&d);
	/* Google Benchmark's console output: run it with --benchmark_format=json */
	expect_error_len("auto", "b.txt", console, sizeof(console) - 1, &d,
			 "b.txt:8:1: cannot tell the format: it looks like Google Benchmark's "
			 "console output (run it with --benchmark_format=json, or "
			 "--benchmark_out=FILE --benchmark_out_format=json, and ingest that)");
	expect_error_len("gbench", "b.txt", console, sizeof(console) - 1, &d,
			 "b.txt:8:1: not Google Benchmark JSON: it looks like Google Benchmark's "
			 "console output (run it with --benchmark_format=json, or "
			 "--benchmark_out=FILE --benchmark_out_format=json, and ingest that)");
	/* Google Benchmark's JSON given as hyperfine's */
	text = slurp(FIXTURES "gbench.json", &len);
	expect_error_len("hyperfine", "g.json", text, len, &d,
			 "g.json:1:1: not hyperfine JSON: it looks like Google Benchmark JSON "
			 "(benchline ingest --format gbench)");
	free(text);
	/* a history is imported, not ingested */
	expect_error_len("auto", "data.js", data_js, sizeof(data_js) - 1, &d,
			 "data.js:1:1: cannot tell the format: it looks like "
			 "github-action-benchmark's data.js (benchline import --from gab)");
	/* a broken file of the format asked for keeps its own error */
	expect_error("gbench", "{\"context\": {}, \"benchmarks\": [{\"name\": 1}]}",
		     "x:1:41: benchmarks[0].name: expected a string");
	/* and the other tools' console outputs */
	{
		static const char *const outputs[][2] = {
		    {"benchmark name                       samples       iterations    "
		     "estimated\n",
		     "Catch2's console output"},
		    {"Benchmark                 Mode  Cnt   Score   Error  Units\n",
		     "JMH's console"},
		    {"Benchmark 1: sleep 0.1\n  Time (mean \xc2\xb1 \xcf\x83):     101.2 ms\n",
		     "hyperfine's console"},
		    {"Name (time in us)        Min      Max     Mean\n",
		     "pytest-benchmark's console"},
		};
		for (size_t i = 0; i < sizeof(outputs) / sizeof(outputs[0]); i++) {
			size_t off = 99;
			const char *looks =
			    adapters_looks_like(outputs[i][0], strlen(outputs[i][0]), &off);
			assert_non_null(looks);
			assert_true(!strncmp(looks, outputs[i][1], strlen(outputs[i][1])));
			assert_int_equal(off, 0);
		}
	}
	assert_null(adapters_looks_like("hello\n", 6, NULL));
}

/* The line and column just past the first n bytes of text. */
static void end_position(const char *text, size_t n, int *line, int *column)
{
	*line = 1;
	*column = 1;
	for (size_t i = 0; i < n; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*column = 1;
		} else if (((unsigned char)text[i] & 0xC0) != 0x80) {
			(*column)++;
		}
	}
}

static void truncated_input(void **state)
{
	(void)state;
	for (size_t i = 0; i < NJSON; i++) {
		size_t len;
		char *text = slurp(json_fixtures[i][1], &len);
		int line, column;
		/* cut inside a number, right after a digit of the last line that has one: the
		 * document ends there */
		size_t cut = len / 2;
		while (cut && (text[cut - 1] < '0' || text[cut - 1] > '9'))
			cut--;
		end_position(text, cut, &line, &column);
		expect_error_at(json_fixtures[i][0], json_fixtures[i][1], text, cut, line, column);
		free(text);
	}
	/* gotest: a result line cut after its iteration count */
	expect_error("gotest", "pkg: p\nBenchmarkA-2\t1000\t5 ns/op\nBenchmarkA-2\t1000",
		     "x:3:18: no measurements after the iteration count");
}

static void garbled_input(void **state)
{
	(void)state;
	for (size_t i = 0; i < NJSON; i++) {
		size_t len;
		char *text = slurp(json_fixtures[i][1], &len);
		int line, column;
		/* a stray byte where a value starts, in the middle of the file */
		char *colon = strchr(text + len / 2, ':');
		assert_non_null(colon);
		colon[1] = '#';
		end_position(text, (size_t)(colon + 1 - text), &line, &column);
		expect_error_at(json_fixtures[i][0], json_fixtures[i][1], text, len, line, column);
		/* bytes that are not UTF-8 */
		colon[1] = '"';
		colon[2] = (char)0xff;
		end_position(text, (size_t)(colon + 2 - text), &line, &column);
		expect_error_at(json_fixtures[i][0], json_fixtures[i][1], text, len, line, column);
		free(text);
	}
}

static void wrong_format_input(void **state)
{
	size_t len;
	char *text;
	struct ingest_defaults d;

	(void)state;
	full_defaults(&d);
	/* a file of another format says what it looks like, where it starts */
	text = slurp(FIXTURES "hyperfine.json", &len);
	expect_error_len("gbench", "h.json", text, len, &d,
			 "h.json:1:1: not Google Benchmark JSON: it looks like hyperfine JSON "
			 "(benchline ingest --format hyperfine)");
	expect_error_len("pytest", "h.json", text, len, &d,
			 "h.json:1:1: not pytest-benchmark JSON: it looks like hyperfine JSON "
			 "(benchline ingest --format hyperfine)");
	expect_error_len("bmf", "h.json", text, len, &d,
			 "h.json:1:1: not Bencher Metric Format JSON: it looks like hyperfine JSON "
			 "(benchline ingest --format hyperfine)");
	expect_error_len("gotest", "h.json", text, len, &d,
			 "h.json:1:1: not go test -bench output: it looks like hyperfine JSON "
			 "(benchline ingest --format hyperfine)");
	expect_error_len("catch2", "h.json", text, len, &d,
			 "h.json:1:1: not Catch2's XML: it looks like hyperfine JSON (benchline "
			 "ingest --format hyperfine)");
	free(text);
	text = slurp(FIXTURES "gbench.json", &len);
	expect_error_len("hyperfine", "g.json", text, len, &d,
			 "g.json:1:1: not hyperfine JSON: it looks like Google Benchmark JSON "
			 "(benchline ingest --format gbench)");
	expect_error_len("benchline", "g.json", text, len, &d,
			 "g.json:1:1: not benchline records: it looks like Google Benchmark JSON "
			 "(benchline ingest --format gbench)");
	expect_error_len("jmh", "g.json", text, len, &d,
			 "g.json:1:1: not JMH JSON: it looks like Google Benchmark JSON (benchline "
			 "ingest --format gbench)");
	free(text);
	text = slurp(FIXTURES "gotest.txt", &len);
	expect_error_len("bmf", "g.txt", text, len, &d,
			 "g.txt:1:1: not Bencher Metric Format JSON: it looks like go test -bench "
			 "output (benchline ingest --format gotest)");
	expect_error_len(
	    "gbench", "g.txt", text, len, &d,
	    "g.txt:1:1: not Google Benchmark JSON: it looks like go test -bench output "
	    "(benchline ingest --format gotest)");
	free(text);
	text = slurp(FIXTURES "pytest.json", &len);
	expect_error_len("hyperfine", "p.json", text, len, &d,
			 "p.json:1:1: not hyperfine JSON: it looks like pytest-benchmark JSON "
			 "(benchline ingest --format pytest)");
	free(text);
	text = slurp(FIXTURES "catch2.xml", &len);
	expect_error_len("jmh", "c.xml", text, len, &d,
			 "c.xml:1:1: not JMH JSON: it looks like Catch2's XML (benchline ingest "
			 "--format catch2)");
	free(text);
	/* nothing benchline knows: the adapter's own error */
	expect_error("gbench", "hello", "x:1:1: invalid token near 'hello'");
	expect_error("hyperfine", "", "x:1:1: empty file");
}

static void auto_picks_every_fixture(void **state)
{
	static const char *const cases[][2] = {
	    {FIXTURES "bmf.json", "bmf"},
	    {FIXTURES "gbench.json", "gbench"},
	    {FIXTURES "hyperfine.json", "hyperfine"},
	    {FIXTURES "pytest.json", "pytest"},
	    {FIXTURES "gotest.txt", "gotest"},
	    {FIXTURES "catch2.xml", "catch2"},
	    {FIXTURES "catch2-v2.xml", "catch2"},
	    {FIXTURES "jmh.json", "jmh"},
	    {"fixtures/native/one.json", "benchline"},
	    {"fixtures/native/array.json", "benchline"},
	    {"fixtures/native/lines.jsonl", "benchline"},
	    {"fixtures/native/unknown-keys.json", "benchline"},
	};
	struct ingest_defaults d;

	(void)state;
	full_defaults(&d);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ingest_batch b = {NULL, 0, 0};
		size_t len;
		char *text = slurp(cases[i][0], &len);
		const char *detected = adapters_detect_format(cases[i][0], text, len);
		assert_non_null(detected);
		assert_string_equal(detected, cases[i][1]);
		assert_string_equal(parse_ok(&b, "auto", cases[i][0], text, len, &d), cases[i][1]);
		assert_true(b.nr > 0);
		ingest_batch_release(&b);
		free(text);
	}
	assert_string_equal(adapters_detect_format(CRITERION, NULL, 0), "criterion");
	/* a native record without its schema is still native, for its parser to say so */
	assert_string_equal(
	    adapters_detect_format("x", "{\"benchmark\": \"b\", \"metrics\": {}}", 33),
	    "benchline");
	/* a truncated file is still told by what it starts with */
	assert_string_equal(adapters_detect_format("x", "{\"context\": {}, \"benchmarks\": [{", 32),
			    "gbench");
}

static void auto_refuses_unknown_files(void **state)
{
	static const char *const unknown[] = {
	    "hello world\n",
	    "{}",
	    "[1, 2]",
	    "{\"a\": 1}",
	    "",
	    "   \n",
	    "{\"results\": {}}",
	    "BenchmarkX without numbers\n",
	};
	struct ingest_defaults d;

	(void)state;
	full_defaults(&d);
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		assert_null(adapters_detect_format("u.txt", unknown[i], strlen(unknown[i])));
		expect_error_len("auto", "u.txt", unknown[i], strlen(unknown[i]), &d,
				 "u.txt: cannot tell the format (give --format)");
	}
	expect_error_len("auto", FIXTURES "bmf.json", NULL, 0, &d,
			 FIXTURES "bmf.json: cannot tell the format (give --format)");
	expect_error_len("yaml", "u.txt", "a", 1, &d,
			 "unknown format \"yaml\" (expected auto, benchline, bmf, gbench, "
			 "hyperfine, pytest, gotest, criterion, catch2 or jmh)");
	{
		enum result_format f;
		assert_int_equal(result_format_parse(&f, "auto"), 0);
		assert_int_equal(f, RESULT_AUTO);
		assert_int_equal(result_format_parse(&f, "criterion"), 0);
		assert_int_equal(f, RESULT_CRITERION);
		assert_int_equal(result_format_parse(&f, "native"), 0);
		assert_string_equal(result_format_name(f), "benchline");
		assert_int_equal(result_format_parse(&f, "yaml"), BL_EINVALID);
		/* every format but auto and the native one has its adapter */
		for (int i = RESULT_BMF; i < RESULT_NFORMATS; i++) {
			struct ingest_batch b = {NULL, 0, 0};
			struct bl_error err = BL_ERROR_INIT;
			assert_int_equal(adapters_parse(&b, NULL,
							result_format_name((enum result_format)i),
							"x", "x", 1, &d, &err),
					 BL_EINVALID);
			assert_null(strstr(err.msg.buf, "unknown format"));
			ingest_batch_release(&b);
			bl_error_release(&err);
		}
	}
}

static void missing_fields_name_their_flag(void **state)
{
	struct ingest_defaults d;
	size_t len;
	char *text = slurp(FIXTURES "hyperfine.json", &len);

	(void)state;
	full_defaults(&d);
	d.machine = NULL;
	expect_error_len("hyperfine", "bench.json", text, len, &d,
			 "bench.json: no machine: give --machine");
	full_defaults(&d);
	d.harness_version = -1;
	expect_error_len("hyperfine", "bench.json", text, len, &d,
			 "bench.json: no harness version: give --harness-version");
	full_defaults(&d);
	d.commit = NULL;
	expect_error_len("hyperfine", "bench.json", text, len, &d,
			 "bench.json: no commit: give --repo");
	full_defaults(&d);
	d.machine = "bad name";
	expect_error_len("hyperfine", "bench.json", text, len, &d,
			 "bench.json: --machine: invalid machine name (expected "
			 "[A-Za-z0-9._-]{1,64})");
	/* no defaults at all */
	expect_error_len("hyperfine", "bench.json", text, len, NULL,
			 "bench.json: no machine: give --machine");
	free(text);

	/* a host name that cannot be a machine name */
	full_defaults(&d);
	d.machine = NULL;
	expect_error_len("gbench", "g.json",
			 "{\"context\": {\"host_name\": \"my host\"}, \"benchmarks\": [{\"name\":"
			 " \"a\", \"real_time\": 1, \"cpu_time\": 1}]}",
			 99, &d,
			 "g.json: the host name \"my host\" is not a valid machine name: give "
			 "--machine");
	/* gotest and criterion never name a machine */
	expect_error_len("gotest", "g.txt", "BenchmarkA\t1\t2 ns/op\n", 21, &d,
			 "g.txt: no machine: give --machine");
	expect_error_len("criterion", CRITERION, NULL, 0, &d,
			 CRITERION ": no machine: give --machine");
}

static void native_is_passed_through(void **state)
{
	struct ingest_batch b = {NULL, 0, 0};
	struct ingest_defaults d;

	(void)state;
	ingest_defaults_init(&d); /* the native format needs no flag */
	assert_string_equal(parse_fixture(&b, "benchline", "fixtures/native/array.json", &d),
			    "benchline");
	assert_string_equal(parse_fixture(&b, "native", "fixtures/native/one.json", &d),
			    "benchline");
	assert_true(b.nr >= 2);
	ingest_batch_release(&b);
	expect_error("benchline", "{", "x:1:2: string or '}' expected near end of file");
}

static void records_are_stable_and_valid_native_json(void **state)
{
	static const char *const formats[] = {"bmf", "gbench", "hyperfine", "pytest", "gotest"};
	static const char *const paths[] = {FIXTURES "bmf.json", FIXTURES "gbench.json",
					    FIXTURES "hyperfine.json", FIXTURES "pytest.json",
					    FIXTURES "gotest.txt"};
	struct ingest_defaults d;

	(void)state;
	full_defaults(&d);
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		struct ingest_batch a = {NULL, 0, 0}, b = {NULL, 0, 0}, native = {NULL, 0, 0};
		struct bl_error err = BL_ERROR_INIT;
		parse_fixture(&a, formats[i], paths[i], &d);
		parse_fixture(&b, formats[i], paths[i], &d);
		assert_int_equal(a.nr, b.nr);
		for (size_t k = 0; k < a.nr; k++) {
			assert_string_equal(a.records[k].digest, b.records[k].digest);
			/* each record reads back through the native parser as itself */
			if (adapters_parse_native(&native, "raw", a.records[k].raw,
						  strlen(a.records[k].raw), &err))
				fail_msg("%s: %s", paths[i], err.msg.buf);
			assert_string_equal(native.records[k].digest, a.records[k].digest);
		}
		ingest_batch_release(&a);
		ingest_batch_release(&b);
		ingest_batch_release(&native);
		bl_error_release(&err);
	}
}

static void timestamps(void **state)
{
	double t;

	(void)state;
	assert_int_equal(adapters_parse_time("2026-11-02T04:00:00Z", &t), 0);
	assert_double_equal(t, STARTED, 0);
	assert_int_equal(adapters_parse_time("2026-11-02T13:00:00+09:00", &t), 0);
	assert_double_equal(t, STARTED, 0);
	assert_int_equal(adapters_parse_time("2026-11-01T23:30:00-0430", &t), 0);
	assert_double_equal(t, STARTED, 0);
	assert_int_equal(adapters_parse_time("2026-11-02 04:00:00", &t), 0);
	assert_double_equal(t, STARTED, 0);
	assert_int_equal(adapters_parse_time("2026-11-02T04:00:00.25", &t), 0);
	assert_double_equal(t, STARTED + 0.25, 1e-6);
	assert_int_equal(adapters_parse_time("2026-11-02T04:00:00+01", &t), 0);
	assert_double_equal(t, STARTED - 3600, 0);
	assert_int_equal(adapters_parse_time("2026-11-02", &t), BL_EINVALID);
	assert_int_equal(adapters_parse_time("2026-11-02T04:00:00+25:00", &t), BL_EINVALID);
	assert_int_equal(adapters_parse_time("2026-11-02T04:00:00.", &t), BL_EINVALID);
	assert_int_equal(adapters_parse_time("2026-13-02T04:00:00", &t), BL_EINVALID);
	assert_int_equal(adapters_parse_time("2026-11-02T04:00:00 UTC", &t), BL_EINVALID);
	/* a record can only say 1970 to 9999 */
	assert_int_equal(adapters_parse_time("1969-12-31T23:59:59Z", &t), BL_EINVALID);
	assert_int_equal(adapters_parse_time("1970-01-01T01:00:00+02:00", &t), BL_EINVALID);
	assert_int_equal(adapters_parse_time("9999-12-31T23:00:00-05:00", &t), BL_EINVALID);
	assert_int_equal(adapters_parse_time("1970-01-01T00:00:00Z", &t), 0);
	assert_double_equal(t, 0, 0);
}

/* A criterion fuzz input, split as tests/fuzz/fuzz_criterion.c splits it: estimates 0x1e
 * sample [0x1e benchmark]. */
static void replay_criterion(const char *text, size_t len, const struct ingest_defaults *d)
{
	const char *sep1 = memchr(text, 0x1e, len), *sep2, *end = text + len;
	struct adapters_criterion_texts t;
	struct ingest_batch b = {NULL, 0, 0};
	struct bl_error err = BL_ERROR_INIT;

	if (!sep1)
		return;
	sep2 = memchr(sep1 + 1, 0x1e, (size_t)(end - sep1 - 1));
	memset(&t, 0, sizeof(t));
	t.dir_name = "group/bench";
	t.estimates_name = "e.json";
	t.estimates = text;
	t.estimates_len = (size_t)(sep1 - text);
	t.sample_name = "s.json";
	t.sample = sep1 + 1;
	t.sample_len = (size_t)((sep2 ? sep2 : end) - sep1 - 1);
	t.benchmark_name = "b.json";
	t.benchmark = sep2 ? sep2 + 1 : NULL;
	t.benchmark_len = sep2 ? (size_t)(end - sep2 - 1) : 0;
	t.fallback_time = STARTED;
	if (adapters_criterion_parse_texts(&b, &t, d, &err))
		assert_int_equal(b.nr, 0);
	else
		assert_int_equal(b.nr, 1);
	ingest_batch_release(&b);
	bl_error_release(&err);
}

/* One saved fuzz input through its adapter: it parses, or fails naming the file and adding
 * nothing. */
static void replay(const char *adapter, const char *path)
{
	struct ingest_batch b = {NULL, 0, 0};
	struct bl_error err = BL_ERROR_INIT;
	struct ingest_defaults d;
	size_t len;
	char *text = slurp(path, &len);

	full_defaults(&d);
	if (!strcmp(adapter, "criterion")) {
		replay_criterion(text, len, &d);
	} else if (adapters_parse(&b, NULL, adapter, path, text, len, &d, &err)) {
		assert_int_equal(b.nr, 0);
		assert_true(!strncmp(err.msg.buf, path, strlen(path)));
	}
	ingest_batch_release(&b);
	bl_error_release(&err);
	free(text);
}

/* Replays every regular file of dir whose name starts with prefix through adapter; how many
 * there were. A directory that cannot be read fails the test, unless it may be missing. */
static size_t replay_dir(const char *adapter, const char *dir_name, const char *prefix,
			 int may_be_missing)
{
	DIR *dir = opendir(dir_name);
	struct dirent *de;
	size_t n = 0, np = strlen(prefix);

	if (!dir && may_be_missing)
		return 0;
	if (!dir)
		fail_msg("cannot open %s (run the unit tests from the repository's root)",
			 dir_name);
	while ((de = readdir(dir))) {
		struct strbuf path = STRBUF_INIT;
		struct stat st;
		if (de->d_name[0] == '.' || strncmp(de->d_name, prefix, np))
			continue;
		strbuf_addf(&path, "%s/%s", dir_name, de->d_name);
		if (!stat(path.buf, &st) && S_ISREG(st.st_mode)) {
			replay(adapter, path.buf);
			n++;
		}
		strbuf_release(&path);
	}
	closedir(dir);
	return n;
}

/* Every saved fuzz input runs cleanly through its adapter (the sanitizers catch what went
 * wrong under `make check SANITIZE=...`): the crash inputs saved once fixed
 * (tests/fuzz/regressions/ADAPTER-*) and the seeds the fuzzer starts from, as
 * tests/fuzz/run.sh gathers them (tests/fuzz/corpus/ADAPTER/, fixtures/formats/ADAPTER.* and
 * ADAPTER-*). There is always a seed, so a misnamed directory or fixture fails rather than
 * passing with nothing replayed. */
static void fuzz_regressions_replay(void **state)
{
	static const char *const adapters[] = {"bmf",	 "gbench",    "hyperfine", "pytest",
					       "gotest", "criterion", "catch2",	   "jmh"};

	(void)state;
	for (size_t i = 0; i < sizeof(adapters) / sizeof(adapters[0]); i++) {
		struct strbuf dash = STRBUF_INIT, dot = STRBUF_INIT, corpus = STRBUF_INIT;
		size_t seeds;
		strbuf_addf(&dash, "%s-", adapters[i]);
		strbuf_addf(&dot, "%s.", adapters[i]);
		strbuf_addf(&corpus, "tests/fuzz/corpus/%s", adapters[i]);
		replay_dir(adapters[i], "tests/fuzz/regressions", dash.buf, 0);
		seeds = replay_dir(adapters[i], corpus.buf, "", 1) +
			replay_dir(adapters[i], "fixtures/formats", dot.buf, 0) +
			replay_dir(adapters[i], "fixtures/formats", dash.buf, 0);
		if (!seeds)
			fail_msg("no seed for %s in %s or fixtures/formats", adapters[i],
				 corpus.buf);
		strbuf_release(&dash);
		strbuf_release(&dot);
		strbuf_release(&corpus);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(bmf_fixture),
	    cmocka_unit_test(bmf_errors),
	    cmocka_unit_test(gbench_fixture),
	    cmocka_unit_test(gbench_context_fills_machine_and_date),
	    cmocka_unit_test(gbench_aggregates_only_and_errors_skipped),
	    cmocka_unit_test(gbench_errors),
	    cmocka_unit_test(hyperfine_fixture),
	    cmocka_unit_test(hyperfine_command_name_and_no_times),
	    cmocka_unit_test(hyperfine_errors),
	    cmocka_unit_test(pytest_fixture),
	    cmocka_unit_test(pytest_file_fills_machine_commit_and_date),
	    cmocka_unit_test(pytest_without_data),
	    cmocka_unit_test(pytest_errors),
	    cmocka_unit_test(gotest_fixture),
	    cmocka_unit_test(gotest_lines),
	    cmocka_unit_test(gotest_errors),
	    cmocka_unit_test(criterion_fixture),
	    cmocka_unit_test(criterion_directories),
	    cmocka_unit_test(criterion_texts),
	    cmocka_unit_test(catch2_fixture),
	    cmocka_unit_test(catch2_errors),
	    cmocka_unit_test(jmh_fixture),
	    cmocka_unit_test(jmh_errors),
	    cmocka_unit_test(format_hints),
	    cmocka_unit_test(truncated_input),
	    cmocka_unit_test(garbled_input),
	    cmocka_unit_test(wrong_format_input),
	    cmocka_unit_test(auto_picks_every_fixture),
	    cmocka_unit_test(auto_refuses_unknown_files),
	    cmocka_unit_test(missing_fields_name_their_flag),
	    cmocka_unit_test(native_is_passed_through),
	    cmocka_unit_test(records_are_stable_and_valid_native_json),
	    cmocka_unit_test(timestamps),
	    cmocka_unit_test(fuzz_regressions_replay),
	};
	int ret;

	git_libgit2_init();
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return ret;
}

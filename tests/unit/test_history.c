/*
 * The histories `benchline import` reads (§10, docs/import.md): the exact records out of each
 * fixture in fixtures/import/ (made by fixtures/src/import/make_fixtures.py), what each reader
 * skips and why, the flags over a history's own names, the published asv site against the
 * results it was published from, every wrong kind of input with what it says, and the saved
 * fuzz inputs. Run from the repository's root.
 */
#include <dirent.h>
#include <git2.h>
#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "common/common.h"
#include "ingest/adapters/adapters.h"
#include "ingest/ingest.h"
#include "unit_records.h"

#define assert_close(a, b) assert_true(fabs((double)(a) - (double)(b)) <= 1e-12 * fabs((double)(b)))

#define FIX "fixtures/import/"
/* The fixtures' commits: sha1("fixture commit N"). */
#define C0   "77ca0ef0a4904fade42010090ef0f406bb0c4899"
#define C2   "b0ef9ad7522e044c0518ba9c88b2b8fe9e856949"
#define JAN1 1767225600.0 /* 2026-01-01T00:00:00Z */

/* Reads the history into b with the flags given (NULL: not given); the return code, err set. */
static int read_history(struct ingest_batch *b, struct ingest_history *h, enum history_format f,
			const char *path, const char *machine, const char *config,
			struct bl_error *err)
{
	static struct ingest_defaults d;

	ingest_defaults_init(&d);
	d.machine = machine;
	d.config = config;
	memset(h, 0, sizeof(*h));
	h->from = f;
	h->path = path;
	h->defaults = &d;
	h->fn = unit_take_record;
	h->fn_data = b;
	return adapters_history(h, err);
}

static void read_ok(struct ingest_batch *b, struct ingest_history *h, enum history_format f,
		    const char *path, const char *machine, const char *config)
{
	struct bl_error err = BL_ERROR_INIT;

	if (read_history(b, h, f, path, machine, config, &err))
		fail_msg("unexpected error: %s", err.msg.buf);
	bl_error_release(&err);
}

static void expect_error(enum history_format f, const char *path, const char *msg)
{
	struct ingest_batch b = {NULL, 0, 0};
	struct ingest_history h;
	struct bl_error err = BL_ERROR_INIT;

	assert_int_equal(read_history(&b, &h, f, path, NULL, NULL, &err), BL_EINVALID);
	assert_string_equal(err.msg.buf, msg);
	ingest_batch_release(&b);
	bl_error_release(&err);
}

/* The text through a file reader (gab, bencher), which must fail with msg. */
static void expect_text_error(enum history_format f, const char *text, const char *msg)
{
	struct ingest_batch b = {NULL, 0, 0};
	struct ingest_history h;
	struct ingest_defaults d;
	struct bl_error err = BL_ERROR_INIT;
	int ret;

	ingest_defaults_init(&d);
	memset(&h, 0, sizeof(h));
	h.from = f;
	h.defaults = &d;
	h.fn = unit_take_record;
	h.fn_data = &b;
	ret = f == HISTORY_GAB ? adapters_history_gab(&h, "x", text, strlen(text), &err)
			       : adapters_history_bencher(&h, "x", text, strlen(text), &err);
	assert_int_equal(ret, BL_EINVALID);
	assert_string_equal(err.msg.buf, msg);
	ingest_batch_release(&b);
	bl_error_release(&err);
}

/* --- github-action-benchmark --- */

static void gab_fixture(void **state)
{
	struct ingest_batch b = {NULL, 0, 0};
	struct ingest_history h;
	const struct ingest_record *rec;
	const struct ingest_metric *m;

	(void)state;
	read_ok(&b, &h, HISTORY_GAB, FIX "gab/data.js", NULL, NULL);
	/* one record per bench of each entry; the entry with a null commit is skipped */
	assert_int_equal(b.nr, 10);
	assert_int_equal(h.skipped[INGEST_SKIP_NO_COMMIT], 1);
	rec = &b.records[0];
	assert_string_equal(rec->machine, "gab-cpp-benchmark");
	assert_string_equal(rec->benchmark, "BM_Sort/1024");
	assert_string_equal(rec->config, "");
	assert_int_equal(rec->harness_version, 1);
	assert_string_equal(rec->commit, C0);
	/* the commit's tree: benchline's source hash when every top-level path is measured */
	assert_string_equal(rec->source_hash, "fe18920df6f891383a8bf956a81901edab7b8eab");
	/* 2026-01-01T01:00:00+09:00, and the run's date (date, in milliseconds) */
	assert_close(rec->committed_at, JAN1 - 8 * 3600);
	assert_close(rec->started_at, JAN1 + 5400);
	assert_int_equal(rec->line, 6);
	assert_int_equal(rec->nmetrics, 1);
	/* googlecpp: Google Benchmark's real time, as the gbench adapter names it */
	m = unit_metric(rec, "real_time");
	assert_int_equal(m->kind, METRIC_TIMED);
	assert_string_equal(m->unit, "ns");
	assert_int_equal(m->better_higher, 0);
	assert_close(m->median, 23456.7);
	assert_true(isnan(m->p95));
	assert_non_null(rec->raw);
	/* the re-run of the last commit: the same commit, a second later in committed_at */
	assert_string_equal(b.records[6].commit, C2);
	assert_string_equal(b.records[4].commit, C2);
	assert_close(b.records[6].committed_at, b.records[4].committed_at + 1);
	assert_close(unit_metric(&b.records[6], "real_time")->median, 30411.2);
	/* customBiggerIsBetter, in req/s */
	rec = &b.records[8];
	assert_string_equal(rec->machine, "gab-web-throughput");
	assert_string_equal(rec->benchmark, "requests");
	m = unit_metric(rec, "throughput");
	assert_string_equal(m->unit, "req/s");
	assert_int_equal(m->better_higher, 1);
	ingest_batch_release(&b);

	/* --machine: several suites stay apart by their config */
	read_ok(&b, &h, HISTORY_GAB, FIX "gab/data.js", "ci-box", NULL);
	assert_string_equal(b.records[0].machine, "ci-box");
	assert_string_equal(b.records[0].config, "C++ Benchmark");
	assert_string_equal(b.records[9].config, "Web Throughput");
	ingest_batch_release(&b);
	read_ok(&b, &h, HISTORY_GAB, FIX "gab/data.js", "ci-box", "release");
	assert_string_equal(b.records[0].config, "release");
	ingest_batch_release(&b);
}

static void gab_errors(void **state)
{
	(void)state;
	expect_text_error(HISTORY_GAB, "{\"benchmarks\": []}",
			  "x:1:1: not github-action-benchmark's data.js: expected an object with "
			  "\"entries\", found no \"entries\" object");
	expect_text_error(HISTORY_GAB, "var x = 1;\n",
			  "x:1:1: not github-action-benchmark's data.js: expected "
			  "'window.BENCHMARK_DATA = {...}', found 'var x = 1;'");
	expect_text_error(
	    HISTORY_GAB, "{\"context\": {}, \"benchmarks\": [{\"name\": \"a\", \"real_time\": 1}]}",
	    "x:1:1: not github-action-benchmark's data.js: expected an object with \"entries\", "
	    "found Google Benchmark JSON (benchline ingest --format gbench)");
	expect_text_error(
	    HISTORY_GAB,
	    "window.BENCHMARK_DATA = {\"entries\": {\"s\": [{\"commit\": {\"id\": "
	    "\"0123456789abcdef0123456789abcdef01234567\"},\n \"date\": 1, \"benches\": "
	    "[{\"name\": \"b\", \"value\": -5, \"unit\": \"ns\"}]}]}};",
	    "x:2:48: entries.s[0].benches[0].value: negative value -5");
	expect_text_error(HISTORY_GAB,
			  "window.BENCHMARK_DATA = {\"entries\": {\"s\": [{\"commit\": {}, "
			  "\"date\": 1}]}}",
			  "x:1:44: entries.s[0].benches: missing required field");
	expect_text_error(HISTORY_GAB, "window.BENCHMARK_DATA = {\"entries\": {\"s\": [1,",
			  "x:1:46: ']' expected near end of file");
}

/* --- Bencher --- */

static void bencher_fixture(void **state)
{
	struct ingest_batch b = {NULL, 0, 0};
	struct ingest_history h;
	const struct ingest_record *rec;
	const struct ingest_metric *m;

	(void)state;
	read_ok(&b, &h, HISTORY_BENCHER, FIX "bencher/perf.json", NULL, NULL);
	/* one record per testbed, benchmark, parameter set and report */
	assert_int_equal(b.nr, 4);
	assert_int_equal(h.skipped[INGEST_SKIP_NO_COMMIT], 1);
	rec = &b.records[0];
	assert_string_equal(rec->machine, "ci-box");
	assert_string_equal(rec->benchmark, "sort::quick/1000");
	assert_string_equal(rec->config, "");
	assert_string_equal(rec->branch, "main");
	assert_string_equal(rec->commit, C0);
	assert_string_equal(rec->source_hash, C0);
	assert_close(rec->started_at, JAN1 + 7200);
	assert_true(isnan(rec->committed_at));
	assert_string_equal(rec->primary, "latency");
	assert_int_equal(rec->nmetrics, 2);
	/* two iterations of one report: two samples */
	m = unit_metric(rec, "latency");
	assert_string_equal(m->unit, "ns");
	assert_int_equal(m->nsamples, 2);
	assert_close(m->samples[1], 18301.5);
	m = unit_metric(rec, "throughput");
	assert_string_equal(m->unit, "ops/s");
	assert_int_equal(m->better_higher, 1);
	assert_int_equal(m->nsamples, 2);
	m = unit_metric(&b.records[1], "latency");
	assert_int_equal(m->nsamples, 0);
	assert_close(m->median, 18190.2);
	rec = &b.records[2];
	assert_string_equal(rec->benchmark, "parse");
	assert_string_equal(rec->config, "size_mb=16");
	assert_close(unit_metric(rec, "latency")->median, 912.5);
	ingest_batch_release(&b);
}

static void bencher_errors(void **state)
{
	(void)state;
	expect_error(HISTORY_BENCHER, "fixtures/formats/hyperfine.json",
		     "fixtures/formats/hyperfine.json:1:1: not Bencher's perf JSON: expected an "
		     "object with a \"results\" array, found hyperfine JSON (benchline ingest "
		     "--format hyperfine)");
	expect_error(HISTORY_BENCHER, FIX "gab/data.js",
		     FIX "gab/data.js:1:1: not Bencher's perf JSON: expected an object with a "
			 "\"results\" array, found github-action-benchmark's data.js (benchline "
			 "import --from gab)");
	expect_text_error(HISTORY_BENCHER, "[1]",
			  "x:1:1: not Bencher's perf JSON: expected an object with a \"results\" "
			  "array, found another value");
	expect_text_error(
	    HISTORY_BENCHER,
	    "{\"results\": [{\"branch\": {\"name\": \"main\"}, \"testbed\": {\"slug\": "
	    "\"t\"},\n \"benchmark\": {\"name\": \"b\"}, \"metrics\": []}]}",
	    "x:1:14: results[0].measure: missing required field");
	expect_text_error(
	    HISTORY_BENCHER,
	    "{\"results\": [{\"branch\": {\"name\": \"main\"}, \"testbed\": {\"slug\": "
	    "\"t\"}, \"benchmark\": {\"name\": \"b\"}, \"measure\": {\"slug\": "
	    "\"latency\"},\n \"metrics\": [{\"report\": \"r\", \"start_time\": "
	    "\"yesterday\", \"version\": {}, \"metric\": {\"value\": 1}}]}]}",
	    "x:2:44: results[0].metrics[0].start_time: not a date: \"yesterday\"");
	expect_error(HISTORY_BENCHER, FIX "asv",
		     FIX "asv: expected Bencher's perf JSON (what `bencher perf` prints), found a "
			 "directory");
}

/* --- asv --- */

/* The record of benchmark, config and commit in b. */
static const struct ingest_record *find(const struct ingest_batch *b, const char *bench,
					const char *config, const char *commit)
{
	for (size_t i = 0; i < b->nr; i++)
		if (!strcmp(b->records[i].benchmark, bench) &&
		    !strcmp(b->records[i].config, config) && !strcmp(b->records[i].commit, commit))
			return &b->records[i];
	fail_msg("no record of %s [%s] at %s", bench, config, commit);
	return NULL;
}

static void asv_fixture(void **state)
{
	struct ingest_batch b = {NULL, 0, 0};
	struct ingest_history h;
	const struct ingest_record *rec;
	const struct ingest_metric *m;

	(void)state;
	read_ok(&b, &h, HISTORY_ASV, FIX "asv/results", NULL, NULL);
	/* 5 benchmarks at 3 commits, one with two parameter values, one that never ran */
	assert_int_equal(b.nr, 15);
	assert_int_equal(h.skipped[INGEST_SKIP_NO_VALUE], 3);
	assert_int_equal(h.skipped[INGEST_SKIP_UNDESCRIBED], 1);
	rec = find(&b, "benchmarks.TimeSuite.time_sort", "python=3.12", C0);
	assert_string_equal(rec->machine, "ci-box");
	assert_string_equal(
	    rec->machine_info,
	    "{\"arch\":\"x86_64\",\"cpu\":\"AMD EPYC 7B13\",\"num_cpu\":\"2\",\"os\":"
	    "\"Linux 6.1.0-18-amd64\",\"ram\":\"8148012\"}");
	assert_string_equal(rec->source_hash, C0);
	assert_int_equal(strlen(rec->content_hash), 64);
	assert_close(rec->committed_at, JAN1);
	assert_close(rec->started_at, JAN1 + 3600);
	assert_null(rec->branch);
	m = unit_metric(rec, "time");
	assert_int_equal(m->kind, METRIC_TIMED);
	assert_string_equal(m->unit, "s");
	/* the samples, and asv's own median (the mean of the middle two of ten) */
	assert_int_equal(m->nsamples, 10);
	assert_true(m->p95 >= m->median);
	{
		double s[10];
		memcpy(s, m->samples, sizeof(s));
		qsort(s, 10, sizeof(double), cmp_double);
		assert_close(m->median, (s[4] + s[5]) / 2);
	}
	/* a parameter's values are configs */
	find(&b, "benchmarks.TimeSuite.time_search", "python=3.12 n=100", C2);
	rec = find(&b, "benchmarks.TimeSuite.time_search", "python=3.12 n=1000", C2);
	assert_int_equal(unit_metric(rec, "time")->nsamples, 10);
	/* peakmem: counted bytes; track: timed in its own unit */
	m = unit_metric(find(&b, "benchmarks.MemSuite.peakmem_list", "python=3.12", C2), "peakmem");
	assert_int_equal(m->kind, METRIC_COUNTED);
	assert_string_equal(m->unit, "B");
	assert_close(m->value, 24150016 + 4096 * 2);
	m = unit_metric(find(&b, "benchmarks.Track.track_queue_depth", "python=3.12", C0), "track");
	assert_string_equal(m->unit, "items");
	assert_close(m->median, 12);
	ingest_batch_release(&b);
	/* one machine's directory reads as well; --config goes in front */
	read_ok(&b, &h, HISTORY_ASV, FIX "asv/results/ci-box", "lab-1", "opt");
	assert_int_equal(b.nr, 15);
	assert_string_equal(b.records[0].machine, "lab-1");
	find(&b, "benchmarks.TimeSuite.time_search", "opt python=3.12 n=100", C0);
	ingest_batch_release(&b);
}

static void asv_html_fixture(void **state)
{
	struct ingest_batch site = {NULL, 0, 0}, results = {NULL, 0, 0};
	struct ingest_history h;

	(void)state;
	read_ok(&site, &h, HISTORY_ASV_HTML, FIX "asv-html", NULL, NULL);
	assert_int_equal(site.nr, 15);
	/* graphs/summary/ and summary.json; the graph of time_fails; the point at revision 13 */
	assert_int_equal(h.skipped[INGEST_SKIP_OVERVIEW], 6);
	assert_int_equal(h.skipped[INGEST_SKIP_EMPTY], 1);
	assert_int_equal(h.skipped[INGEST_SKIP_NO_COMMIT], 1);
	assert_int_equal(h.skipped[INGEST_SKIP_NO_VALUE], 0);
	read_ok(&results, &h, HISTORY_ASV, FIX "asv/results", NULL, NULL);
	/* the site asv published from the results says what they say, on the same keys */
	for (size_t i = 0; i < site.nr; i++) {
		const struct ingest_record *s = &site.records[i];
		const struct ingest_record *r = find(&results, s->benchmark, s->config, s->commit);
		assert_string_equal(s->machine, r->machine);
		assert_string_equal(s->machine_info, r->machine_info);
		assert_string_equal(s->source_hash, r->source_hash);
		assert_string_equal(s->content_hash, r->content_hash);
		assert_close(s->committed_at, r->committed_at);
		assert_string_equal(s->branch, "main");
		assert_int_equal(s->nmetrics, 1);
		assert_string_equal(s->metrics[0].name, r->metrics[0].name);
		if (s->metrics[0].kind == METRIC_COUNTED)
			assert_close(s->metrics[0].value, r->metrics[0].value);
		else
			assert_close(s->metrics[0].median, r->metrics[0].median);
	}
	ingest_batch_release(&site);
	ingest_batch_release(&results);
}

static void asv_errors(void **state)
{
	(void)state;
	expect_error(HISTORY_ASV, FIX "asv-html",
		     FIX "asv-html: not asv's results directory: expected benchmarks.json and a "
			 "directory per machine holding machine.json, found a site asv published "
			 "(--from asv-html)");
	expect_error(HISTORY_ASV_HTML, FIX "asv/results",
		     FIX "asv/results: not a site asv published: expected index.json and graphs/, "
			 "found asv's results directory (--from asv)");
	expect_error(HISTORY_ASV_HTML, FIX "gab",
		     FIX "gab: not a site asv published: expected index.json and graphs/, found no "
			 "index.json");
	expect_error(HISTORY_ASV, FIX "gab/data.js",
		     FIX "gab/data.js: expected asv's results directory (benchmarks.json, and a "
			 "directory per machine holding machine.json), found a file: "
			 "github-action-benchmark's data.js (benchline import --from gab)");
}

/* A results file of asv's, read as the directory walk reads each. */
static void expect_results_error(const char *text, const char *msg)
{
	struct ingest_batch b = {NULL, 0, 0};
	struct ingest_history h;
	struct ingest_defaults d;
	struct bl_error err = BL_ERROR_INIT;
	json_t *benchmarks = json_loads("{\"t\": {\"type\": \"time\", \"unit\": \"seconds\", "
					"\"params\": [], \"param_names\": []}}",
					0, NULL);

	ingest_defaults_init(&d);
	memset(&h, 0, sizeof(h));
	h.defaults = &d;
	h.fn = unit_take_record;
	h.fn_data = &b;
	assert_int_equal(adapters_asv_results_file(&h, "r.json", text, strlen(text), "m", NULL,
						   benchmarks, &err),
			 BL_EINVALID);
	assert_string_equal(err.msg.buf, msg);
	json_decref(benchmarks);
	ingest_batch_release(&b);
	bl_error_release(&err);
}

static void asv_results_errors(void **state)
{
	(void)state;
	expect_results_error("{\"commit_hash\": \"0123456789abcdef0123456789abcdef01234567\", "
			     "\"results\": {}, \"version\": 1}",
			     "r.json:1:87: version: asv results of version 1: benchline reads "
			     "version 2 (run 'asv update' to rewrite them)");
	expect_results_error("{\"commit_hash\": \"0123456789abcdef0123456789abcdef01234567\",\n"
			     "\"version\": 2, \"date\": 1, \"result_columns\": [\"result\"],\n"
			     "\"results\": {\"t\": [[1, 2]]}}",
			     "r.json:3:19: results.t[0]: expected 1 value, one per parameter "
			     "combination");
	expect_results_error("{\"commit_hash\": \"0123456789abcdef0123456789abcdef01234567\",\n"
			     "\"version\": 2, \"date\": 1, \"result_columns\": [\"result\"],\n"
			     "\"results\": {\"t\": [[\"fast\"]]}}",
			     "r.json:3:20: results.t[0][0]: expected a number");
	expect_results_error("{\"benchmarks\": []}",
			     "r.json:1:1: not an asv results file: expected \"commit_hash\" and a "
			     "\"results\" object, found '{\"benchmarks\": []}'");
}

/* One saved fuzz input through its history's reader, as the fuzz target reads it: it reads, or
 * fails naming the file. */
static int replay_file(const char *kind, const char *path)
{
	struct strbuf text = STRBUF_INIT;
	struct ingest_batch b = {NULL, 0, 0};
	struct ingest_history h;
	struct ingest_defaults d;
	struct bl_error err = BL_ERROR_INIT;
	json_t *benchmarks = json_loads("{\"t\": {\"type\": \"time\", \"unit\": \"seconds\", "
					"\"params\": [[\"1\", \"2\"]], \"param_names\": [\"n\"]}}",
					0, NULL);
	int ret;

	if (read_file_capped(&text, path, INGEST_MAX_FILE, &err))
		fail_msg("%s", err.msg.buf);
	ingest_defaults_init(&d);
	memset(&h, 0, sizeof(h));
	h.defaults = &d;
	h.fn = unit_take_record;
	h.fn_data = &b;
	if (!strcmp(kind, "gab"))
		ret = adapters_history_gab(&h, path, text.buf, text.len, &err);
	else if (!strcmp(kind, "bencher"))
		ret = adapters_history_bencher(&h, path, text.buf, text.len, &err);
	else
		ret = adapters_asv_results_file(&h, path, text.buf, text.len, "m", NULL, benchmarks,
						&err);
	if (ret)
		assert_true(!strncmp(err.msg.buf, path, strlen(path)));
	json_decref(benchmarks);
	ingest_batch_release(&b);
	strbuf_release(&text);
	bl_error_release(&err);
	return 1;
}

/* Replays every regular file of dir (a missing one holds none) whose name starts with prefix
 * through kind's reader; how many there were. */
static size_t replay_dir(const char *kind, const char *dir_name, const char *prefix)
{
	DIR *d = opendir(dir_name);
	struct dirent *de;
	struct strbuf path = STRBUF_INIT;
	size_t n = 0;

	while (d && (de = readdir(d))) {
		struct stat st;
		if (de->d_name[0] == '.' || strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir_name, de->d_name);
		if (!stat(path.buf, &st) && S_ISREG(st.st_mode))
			n += (size_t)replay_file(kind, path.buf);
	}
	if (d)
		closedir(d);
	strbuf_release(&path);
	return n;
}

/* The fuzz targets' seeds, as tests/fuzz/run.sh gathers them (tests/fuzz/corpus/KIND/ and the
 * files of fixtures/import/KIND/), and saved crash inputs (tests/fuzz/regressions/KIND-*) run
 * cleanly (the sanitizers catch what goes wrong under `make check SANITIZE=...`); there is
 * always a seed, so a misnamed directory fails rather than replaying nothing. */
static void fuzz_inputs_replay(void **state)
{
	static const char *const kinds[] = {"gab", "bencher", "asv"};

	(void)state;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		struct strbuf corpus = STRBUF_INIT, fixtures = STRBUF_INIT, prefix = STRBUF_INIT;
		strbuf_addf(&corpus, "tests/fuzz/corpus/%s", kinds[i]);
		strbuf_addf(&fixtures, "fixtures/import/%s", kinds[i]);
		strbuf_addf(&prefix, "%s-", kinds[i]);
		if (!(replay_dir(kinds[i], corpus.buf, "") +
		      replay_dir(kinds[i], fixtures.buf, "")))
			fail_msg("no seed for %s in %s or %s (run the unit tests from the "
				 "repository's root)",
				 kinds[i], corpus.buf, fixtures.buf);
		replay_dir(kinds[i], "tests/fuzz/regressions", prefix.buf);
		strbuf_release(&corpus);
		strbuf_release(&fixtures);
		strbuf_release(&prefix);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(gab_fixture),	  cmocka_unit_test(gab_errors),
	    cmocka_unit_test(bencher_fixture),	  cmocka_unit_test(bencher_errors),
	    cmocka_unit_test(asv_fixture),	  cmocka_unit_test(asv_html_fixture),
	    cmocka_unit_test(asv_errors),	  cmocka_unit_test(asv_results_errors),
	    cmocka_unit_test(fuzz_inputs_replay),
	};

	git_libgit2_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}

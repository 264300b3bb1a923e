/* Unit tests of ingest/bench: the byte comparison of bench.artifacts, and bench.build and
 * bench.run in a directory (a stand-in for a worktree): success, the "cannot build" result
 * with its tail, a timeout, and the run's output, CPU time and peak RSS; and one run of a
 * benchmark and its records (bench_records): parsed through the intake and annotated, or no
 * records when its command fails. */
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

#include <jansson.h>

#include "ingest/adapters/adapters.h"
#include "ingest/bench/bench.h"
#include "ingest/ingest.h"

/* A temporary directory with sides a/ and b/, removed with its content at the end. */
static char tmpdir[256], side_a[300], side_b[300];

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "%s/bl-unit-bench-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(side_a, sizeof(side_a), "%s/a", tmpdir);
	snprintf(side_b, sizeof(side_b), "%s/b", tmpdir);
	return mkdir(side_a, 0777) || mkdir(side_b, 0777);
}

static int teardown(void **state)
{
	char cmd[300];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd);
}

/* Writes text to DIR/REL, making REL's directories. */
static void put(const char *dir, const char *rel, const char *text)
{
	char path[600];
	FILE *f;
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	for (char *p = strchr(path + strlen(dir) + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = 0;
		mkdir(path, 0777);
		*p = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void parse_config(struct config *cfg, const char *text)
{
	struct bl_error err = BL_ERROR_INIT;
	if (config_parse(cfg, "benchline.json", text, strlen(text), &err))
		fail_msg("%s", err.msg.buf);
	bl_error_release(&err);
}

/* identical, and the reason when not, for cfg_text's artifacts over sides a and b. */
static int compare(const char *cfg_text, struct strbuf *why, size_t *files)
{
	struct config cfg;
	struct bl_error err = BL_ERROR_INIT;
	int identical = -1;
	parse_config(&cfg, cfg_text);
	strbuf_reset(why);
	assert_int_equal(
	    bench_artifacts_identical(&identical, why, files, &cfg, side_a, side_b, &err), 0);
	config_release(&cfg);
	bl_error_release(&err);
	return identical;
}

static void artifacts(void **state)
{
	struct strbuf why = STRBUF_INIT;
	size_t files = 99;
	const char *globs = "{\"bench\": {\"artifacts\": [\"build/*\", \"lib/*.so\"]}}";
	(void)state;

	/* no bench.artifacts, or nothing matched: nothing says they cannot differ */
	assert_int_equal(compare("{}", &why, &files), 0);
	assert_string_equal(why.buf, "no bench.artifacts in benchline.json");
	assert_int_equal(files, 0);
	assert_int_equal(compare(globs, &why, NULL), 0);
	assert_string_equal(why.buf, "no artifact matches in either side");

	put(side_a, "build/bench", "binary 1");
	assert_int_equal(compare(globs, &why, NULL), 0);
	assert_string_equal(why.buf, "no artifact matches in b");

	/* the same files with the same bytes, sources aside */
	put(side_b, "build/bench", "binary 1");
	put(side_a, "lib/x.so", "lib");
	put(side_b, "lib/x.so", "lib");
	put(side_a, "src/main.c", "int main(void) { return 0; }\n");
	put(side_b, "src/main.c", "int main(void) { return 1; }\n");
	assert_int_equal(compare(globs, &why, &files), 1);
	assert_int_equal(files, 2);
	/* a file two globs match counts once */
	assert_int_equal(
	    compare("{\"bench\": {\"artifacts\": [\"build/*\", \"build/bench\", \"lib/*.so\"]}}",
		    &why, &files),
	    1);
	assert_int_equal(files, 2);

	/* a byte differs; then only the length */
	put(side_b, "build/bench", "binary 2");
	assert_int_equal(compare(globs, &why, NULL), 0);
	assert_string_equal(why.buf, "'build/bench' differs");
	put(side_b, "build/bench", "binary 1 and more");
	assert_int_equal(compare(globs, &why, NULL), 0);
	assert_string_equal(why.buf, "'build/bench' differs");
	put(side_b, "build/bench", "binary 1");

	/* a file on one side only, at the end and in the middle of the sorted paths */
	put(side_b, "lib/y.so", "lib");
	assert_int_equal(compare(globs, &why, NULL), 0);
	assert_string_equal(why.buf, "'lib/y.so' is only in b");
	put(side_a, "build/extra", "x");
	assert_int_equal(compare(globs, &why, NULL), 0);
	assert_string_equal(why.buf, "'build/extra' is only in a");
	put(side_b, "build/extra", "x");
	put(side_a, "lib/y.so", "lib");
	assert_int_equal(compare(globs, &why, &files), 1);
	assert_int_equal(files, 4);

	/* a directory the glob matches adds nothing; a big file is compared in chunks */
	put(side_a, "build/sub/deep", "a");
	put(side_b, "build/sub/deep", "b");
	assert_int_equal(compare(globs, &why, NULL), 1);
	{
		size_t n = 200000;
		char *big = xmalloc(n + 1);
		memset(big, 'x', n);
		big[n] = 0;
		put(side_a, "build/big", big);
		big[n - 1] = 'y';
		put(side_b, "build/big", big);
		assert_int_equal(compare(globs, &why, NULL), 0);
		assert_string_equal(why.buf, "'build/big' differs");
		big[n - 1] = 'x';
		put(side_b, "build/big", big);
		assert_int_equal(compare(globs, &why, NULL), 1);
		free(big);
	}
	strbuf_release(&why);
}

/* A worktree whose path has glob metacharacters: only the pattern's count. */
static void artifacts_literal_root(void **state)
{
	char a[400], b[400];
	struct config cfg;
	struct bl_error err = BL_ERROR_INIT;
	struct strbuf why = STRBUF_INIT;
	int identical = -1;
	(void)state;
	snprintf(a, sizeof(a), "%s/[x]*a", tmpdir);
	snprintf(b, sizeof(b), "%s/[x]*b/", tmpdir); /* a trailing slash is fine */
	assert_int_equal(mkdir(a, 0777), 0);
	assert_int_equal(mkdir(b, 0777), 0);
	put(a, "out.bin", "same");
	put(b, "out.bin", "same");
	parse_config(&cfg, "{\"bench\": {\"artifacts\": [\"*.bin\"]}}");
	assert_int_equal(bench_artifacts_identical(&identical, &why, NULL, &cfg, a, b, &err), 0);
	assert_int_equal(identical, 1);
	config_release(&cfg);
	strbuf_release(&why);
	bl_error_release(&err);
}

static void build(void **state)
{
	struct config cfg;
	struct bl_error err = BL_ERROR_INIT;
	double wall_s = -1;
	char missing[400];
	(void)state;

	/* no bench.build: nothing to do */
	parse_config(&cfg, "{}");
	assert_int_equal(bench_build(&wall_s, &cfg, side_a, &err), 0);
	assert_true(wall_s == 0);
	config_release(&cfg);

	/* it runs in the worktree; its stdout does not need a reader */
	parse_config(&cfg, "{\"bench\": {\"build\": \"echo built >built.txt && echo log\"}}");
	assert_int_equal(bench_build(&wall_s, &cfg, side_a, &err), 0);
	assert_true(wall_s >= 0);
	assert_int_equal(access("built.txt", F_OK), -1);
	{
		char path[400];
		snprintf(path, sizeof(path), "%s/built.txt", side_a);
		assert_int_equal(access(path, F_OK), 0);
	}
	config_release(&cfg);

	/* a failure is "cannot build", with the end of its output, stdout and stderr */
	parse_config(&cfg, "{\"bench\": {\"build\": \"echo compiling; echo 'bench.c:1: error' >&2; "
			   "exit 3\"}}");
	assert_int_equal(bench_build(&wall_s, &cfg, side_a, &err), BL_EBUILD);
	assert_int_equal(err.code, BL_EBUILD);
	{
		char want[600];
		snprintf(want, sizeof(want),
			 "cannot build in '%s': bench.build exited with status 3; the end of its "
			 "output:\ncompiling\nbench.c:1: error",
			 side_a);
		assert_string_equal(err.msg.buf, want);
	}
	config_release(&cfg);

	/* killed by a signal, and over its deadline (what it started is killed too) */
	parse_config(&cfg, "{\"bench\": {\"build\": \"kill -KILL $$\"}}");
	assert_int_equal(bench_build(NULL, &cfg, side_a, &err), BL_EBUILD);
	assert_non_null(strstr(err.msg.buf, "bench.build was killed by signal 9"));
	config_release(&cfg);
	parse_config(&cfg, "{\"bench\": {\"build\": \"sleep 30 & wait\", \"build_timeout\": 0.2}}");
	assert_int_equal(bench_build(&wall_s, &cfg, side_a, &err), BL_EBUILD);
	assert_non_null(strstr(err.msg.buf, "bench.build timed out after 0.2 s"));
	assert_true(wall_s < 10);

	/* a worktree that does not exist is an error, not "cannot build" */
	snprintf(missing, sizeof(missing), "%s/nowhere", tmpdir);
	assert_int_equal(bench_build(NULL, &cfg, missing, &err), BL_ENOTFOUND);
	config_release(&cfg);
	bl_error_release(&err);
}

static void run_once(void **state)
{
	struct config cfg;
	struct bench_run run;
	struct bl_error err = BL_ERROR_INIT;
	(void)state;
	bench_run_init(&run);

	parse_config(&cfg, "{}");
	assert_int_equal(bench_run_once(&run, &cfg, side_a, &err), BL_EINVALID);
	assert_string_equal(err.msg.buf, "no bench.run in benchline.json: nothing to measure");
	config_release(&cfg);

	/* its stdout, in the worktree, and the figures of wait4 */
	put(side_a, "results.txt", "{\"wall\": 1}\n");
	parse_config(&cfg, "{\"bench\": {\"run\": \"cat results.txt; echo noise >&2\"}}");
	assert_int_equal(bench_run_once(&run, &cfg, side_a, &err), 0);
	assert_string_equal(run.out.buf, "{\"wall\": 1}\n");
	assert_true(run.peak_rss_kib > 0);
	assert_true(run.cpu_s >= 0 && run.wall_s >= 0);
	config_release(&cfg);

	/* a failure is an error with its stderr's end; the last results are gone */
	parse_config(&cfg, "{\"bench\": {\"run\": \"echo partial; echo crashed >&2; exit 1\"}}");
	assert_int_equal(bench_run_once(&run, &cfg, side_a, &err), BL_EIO);
	{
		char want[600];
		snprintf(want, sizeof(want),
			 "cannot measure in '%s': bench.run exited with status 1; the end of its "
			 "output:\ncrashed",
			 side_a);
		assert_string_equal(err.msg.buf, want);
	}
	assert_int_equal(run.out.len, 0);
	config_release(&cfg);
	parse_config(&cfg, "{\"bench\": {\"run\": \"sleep 30\", \"run_timeout\": 0.2}}");
	assert_int_equal(bench_run_once(&run, &cfg, side_a, &err), BL_EIO);
	assert_non_null(strstr(err.msg.buf, "bench.run timed out after 0.2 s"));
	config_release(&cfg);
	bench_run_release(&run);
	bl_error_release(&err);
}

/* A native record, as a benchmark that prints benchline's own format would. */
#define NATIVE_RECORD                                                                              \
	"{\"schema\": 1, \"machine\": \"box\", \"benchmark\": \"loop\", \"harness_version\": 1, "  \
	"\"source\": {\"commit\": \"3f7fd6b5c0ffee00000000000000000000000000\", "                  \
	"\"source_hash\": \"2d5d1c3600000000000000000000000000000000\"}, "                         \
	"\"started_at\": \"2026-11-02T04:00:00Z\", "                                               \
	"\"metrics\": {\"t\": {\"unit\": \"ms\", \"samples\": [10.1, 10.3, 10.2]}}}\n"

/* The value at key of the record's raw JSON, as compact JSON text (NULL when absent). */
static char *raw_member(const struct ingest_record *rec, const char *key)
{
	json_t *o = json_loads(rec->raw, 0, NULL), *v;
	char *text;
	assert_non_null(o);
	v = json_object_get(o, key);
	text = v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_SORT_KEYS) : NULL;
	json_decref(o);
	return text;
}

static void records_of_bench_run(void **state)
{
	struct ingest_intake in;
	struct bench_records one;
	struct bench_records_request req;
	struct bl_error err = BL_ERROR_INIT;
	char *process;
	json_t *p;
	(void)state;

	put(side_a, "out.json", NATIVE_RECORD);
	ingest_intake_init(&in, &adapters_parsers);
	parse_config(&in.cfg,
		     "{\"bench\": {\"run\": \"cat out.json\", \"format\": \"benchline\"}}");
	in.format = in.cfg.bench_format;
	assert_int_equal(ingest_intake_setup(&in, &err), 0);
	bench_records_init(&one);
	memset(&req, 0, sizeof(req));
	req.in = &in;
	req.dir = side_a;
	req.name = "bench.run's output";
	req.no_preflight = 1;
	assert_int_equal(bench_records(&one, &req, &err), 0);
	assert_int_equal(one.batch.nr, 1);
	assert_false(one.preflighted);
	assert_false(one.batch.records[0].has_preflight);
	assert_null(raw_member(&one.batch.records[0], "preflight"));
	/* bench.run runs with /bin/sh -c, and its process says so */
	process = raw_member(&one.batch.records[0], "process");
	assert_non_null(process);
	p = json_loads(process, 0, NULL);
	assert_string_equal(json_string_value(json_array_get(json_object_get(p, "argv"), 0)),
			    "/bin/sh");
	assert_string_equal(json_string_value(json_array_get(json_object_get(p, "argv"), 2)),
			    "cat out.json");
	assert_int_equal(json_integer_value(json_object_get(p, "exit")), 0);
	assert_true(json_integer_value(json_object_get(p, "peak_rss_kib")) > 0);
	assert_true(json_is_real(json_object_get(p, "cpu_s")));
	assert_true(json_is_real(json_object_get(p, "wall_s")));
	json_decref(p);
	free(process);
	/* the annotation changed the record, so its digest is the annotated JSON's */
	{
		char digest[41];
		assert_int_equal(
		    digest_blob(digest, one.batch.records[0].raw, strlen(one.batch.records[0].raw)),
		    0);
		assert_string_equal(digest, one.batch.records[0].digest);
	}
	bench_records_release(&one);
	ingest_intake_release(&in);
	bl_error_release(&err);
}

static void a_failing_command_gives_no_records(void **state)
{
	struct ingest_intake in;
	struct bench_records one;
	struct bench_records_request req;
	struct bl_error err = BL_ERROR_INIT;
	const char *argv[] = {"sh", "-c", "echo '" NATIVE_RECORD "'; exit 3", NULL};
	(void)state;

	ingest_intake_init(&in, &adapters_parsers);
	assert_int_equal(ingest_intake_setup(&in, &err), 0);
	bench_records_init(&one);
	memset(&req, 0, sizeof(req));
	req.in = &in;
	req.argv = argv;
	req.name = "output of 'sh'";
	req.no_preflight = 1;
	assert_int_equal(bench_records(&one, &req, &err), BL_EIO);
	assert_string_equal(err.msg.buf, "'sh' exited with status 3; nothing stored");
	assert_int_equal(one.batch.nr, 0);
	bench_records_release(&one);
	ingest_intake_release(&in);
	bl_error_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(artifacts, setup, teardown),
	    cmocka_unit_test_setup_teardown(artifacts_literal_root, setup, teardown),
	    cmocka_unit_test_setup_teardown(build, setup, teardown),
	    cmocka_unit_test_setup_teardown(run_once, setup, teardown),
	    cmocka_unit_test_setup_teardown(records_of_bench_run, setup, teardown),
	    cmocka_unit_test_setup_teardown(a_failing_command_gives_no_records, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

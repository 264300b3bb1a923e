/* Unit tests of ingest/repo and benchline.json: pull request numbers from subjects, the
 * config, and the source hash's tree order against a tree libgit2 writes itself. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <git2.h>

#include "ingest/ingest.h"
#include "detect/gate/gate.h"
#include "ingest/repo/repo.h"

static void test_pr_from_subject(void **state)
{
	(void)state;
	assert_int_equal(repo_pr_from_subject("Fix the thing (#123)"), 123);
	assert_int_equal(repo_pr_from_subject("Fix the thing (#123)  "), 123);
	assert_int_equal(repo_pr_from_subject("Fix the thing (#123)\t"), 123);
	assert_int_equal(repo_pr_from_subject("Revert \"Fix (#12)\" (#13)"), 13);
	assert_int_equal(repo_pr_from_subject("(#7)"), 7);
	assert_int_equal(repo_pr_from_subject("Merge pull request #123 from user/branch"), 123);
	assert_int_equal(repo_pr_from_subject("Merge pull request #9"), 9);
	/* anything else */
	assert_int_equal(repo_pr_from_subject("Fix (#12) in the middle"), 0);
	assert_int_equal(repo_pr_from_subject("Revert \"Fix (#12)\""), 0);
	assert_int_equal(repo_pr_from_subject("Fix #12"), 0);
	assert_int_equal(repo_pr_from_subject("Fix (#)"), 0);
	assert_int_equal(repo_pr_from_subject("Fix (12)"), 0);
	assert_int_equal(repo_pr_from_subject("Fix (#1a)"), 0);
	assert_int_equal(repo_pr_from_subject("Fix (#99999999999999999999)"), 0);
	assert_int_equal(repo_pr_from_subject("Merge pull request #12x from a/b"), 0);
	assert_int_equal(repo_pr_from_subject("Merge pull request # from a/b"), 0);
	assert_int_equal(repo_pr_from_subject("merge pull request #12 from a/b"), 0);
	assert_int_equal(repo_pr_from_subject("Merge branch 'main' into x"), 0);
	assert_int_equal(repo_pr_from_subject(""), 0);
	assert_int_equal(repo_pr_from_subject(NULL), 0);
}

/* Parses text and returns the code; the message is in msg (static storage). */
static char msg[1024];

static int parse(struct config *cfg, const char *text)
{
	struct bl_error err = BL_ERROR_INIT;
	int ret = config_parse(cfg, "repo/benchline.json", text, strlen(text), &err);
	snprintf(msg, sizeof(msg), "%s", err.msg.buf);
	bl_error_release(&err);
	return ret;
}

/* The text must fail with BL_ECONFIG and exactly this message. */
static void expect_error(const char *text, const char *want)
{
	struct config cfg;
	int ret = parse(&cfg, text);
	if (ret != BL_ECONFIG || strcmp(msg, want))
		fail_msg("%s\n  got (%d) '%s'\n  want '%s'", text, ret, msg, want);
	/* a failed parse leaves the defaults */
	assert_null(cfg.measured_paths);
	assert_null(cfg.keep_first_machines);
	config_release(&cfg);
}

static void test_config_defaults(void **state)
{
	struct config cfg;
	(void)state;
	assert_int_equal(parse(&cfg, "{}"), 0);
	assert_null(cfg.measured_paths);
	assert_int_equal(cfg.n_measured, 0);
	assert_null(cfg.unmeasured_paths);
	assert_null(cfg.main_branch);
	assert_null(cfg.primary_metric);
	assert_true(cfg.noisy_limit == CONFIG_NOISY_LIMIT);
	assert_true(cfg.cpu_load_pct == 10);
	assert_true(cfg.gpu_load_pct == 10);
	assert_int_equal(cfg.n_keep_first, 0);
	assert_null(cfg.path);
	/* bench: nothing to build or run, the defaults of §9 */
	assert_null(cfg.bench_build);
	assert_null(cfg.bench_run);
	assert_null(cfg.bench_format);
	assert_null(cfg.bench_artifacts);
	assert_true(cfg.bench_build_timeout == 600);
	assert_true(cfg.bench_run_timeout == 600);
	assert_int_equal(cfg.bench_processes, 3);
	config_release(&cfg);
}

static void test_config_bench(void **state)
{
	struct config cfg;
	(void)state;
	assert_int_equal(parse(&cfg, "{\"bench\": {\"build\": \"make -j2 bench\", "
				     "\"build_timeout\": 30, \"run\": \"./bench --json\", "
				     "\"format\": \"gbench\", \"processes\": 5, "
				     "\"run_timeout\": 0.5, "
				     "\"artifacts\": [\"build/bench\", \"lib/*.so\"]}}"),
			 0);
	assert_string_equal(cfg.bench_build, "make -j2 bench");
	assert_true(cfg.bench_build_timeout == 30);
	assert_string_equal(cfg.bench_run, "./bench --json");
	assert_string_equal(cfg.bench_format, "gbench");
	assert_int_equal(cfg.bench_processes, 5);
	assert_true(cfg.bench_run_timeout == 0.5);
	assert_int_equal(cfg.n_bench_artifacts, 2);
	assert_string_equal(cfg.bench_artifacts[0], "build/bench");
	assert_string_equal(cfg.bench_artifacts[1], "lib/*.so");
	assert_null(cfg.bench_artifacts[2]);
	config_release(&cfg);

	/* every adapter's name is a format, and an empty list of artifacts is a list */
	static const char *const formats[] = {"auto",	   "benchline", "bmf",	  "gbench",
					      "hyperfine", "pytest",	"gotest", "criterion",
					      "catch2",	   "jmh"};
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		char text[128];
		snprintf(text, sizeof(text), "{\"bench\": {\"format\": \"%s\"}}", formats[i]);
		assert_int_equal(parse(&cfg, text), 0);
		assert_string_equal(cfg.bench_format, formats[i]);
		config_release(&cfg);
	}
	assert_int_equal(parse(&cfg, "{\"bench\": {\"artifacts\": []}}"), 0);
	assert_non_null(cfg.bench_artifacts);
	assert_int_equal(cfg.n_bench_artifacts, 0);
	config_release(&cfg);

	static const struct {
		const char *text, *want;
	} cases[] = {
	    {"{\"bench\": []}", "repo/benchline.json: bench: expected an object"},
	    {"{\"bench\": {\"command\": \"make\"}}",
	     "repo/benchline.json: bench.command: unknown key"},
	    {"{\"bench\": {\"build\": 1}}",
	     "repo/benchline.json: bench.build: expected a non-empty string"},
	    {"{\"bench\": {\"build\": \"\"}}",
	     "repo/benchline.json: bench.build: expected a non-empty string"},
	    {"{\"bench\": {\"run\": [\"./bench\"]}}",
	     "repo/benchline.json: bench.run: expected a non-empty string"},
	    {"{\"bench\": {\"build_timeout\": 0}}",
	     "repo/benchline.json: bench.build_timeout: expected seconds: a number over 0, at "
	     "most 1000000"},
	    {"{\"bench\": {\"build_timeout\": \"600\"}}",
	     "repo/benchline.json: bench.build_timeout: expected seconds: a number over 0, at "
	     "most 1000000"},
	    {"{\"bench\": {\"run_timeout\": 1e7}}",
	     "repo/benchline.json: bench.run_timeout: expected seconds: a number over 0, at "
	     "most 1000000"},
	    {"{\"bench\": {\"format\": \"csv\"}}",
	     "repo/benchline.json: bench.format: expected a format: auto, benchline, bmf, "
	     "gbench, hyperfine, pytest, gotest, criterion, catch2 or jmh"},
	    {"{\"bench\": {\"format\": 3}}",
	     "repo/benchline.json: bench.format: expected a format: auto, benchline, bmf, "
	     "gbench, hyperfine, pytest, gotest, criterion, catch2 or jmh"},
	    {"{\"bench\": {\"processes\": 0}}",
	     "repo/benchline.json: bench.processes: expected an integer from 1 to 1000"},
	    {"{\"bench\": {\"processes\": 2.5}}",
	     "repo/benchline.json: bench.processes: expected an integer from 1 to 1000"},
	    {"{\"bench\": {\"processes\": \"3\"}}",
	     "repo/benchline.json: bench.processes: expected an integer from 1 to 1000"},
	    {"{\"bench\": {\"artifacts\": \"build/*\"}}",
	     "repo/benchline.json: bench.artifacts: expected an array of strings"},
	    {"{\"bench\": {\"artifacts\": [\"a\", 1]}}",
	     "repo/benchline.json: bench.artifacts: expected an array of strings"},
	    {"{\"bench\": {\"artifacts\": [\"/usr/lib/*.so\"]}}",
	     "repo/benchline.json: bench.artifacts: '/usr/lib/*.so' is not a glob inside the "
	     "worktree (relative, no '..')"},
	    {"{\"bench\": {\"artifacts\": [\"build/../../b/x\"]}}",
	     "repo/benchline.json: bench.artifacts: 'build/../../b/x' is not a glob inside the "
	     "worktree (relative, no '..')"},
	    {"{\"bench\": {\"artifacts\": [\"\"]}}",
	     "repo/benchline.json: bench.artifacts: '' is not a glob inside the worktree "
	     "(relative, no '..')"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		expect_error(cases[i].text, cases[i].want);
}

static void test_config_full(void **state)
{
	struct config cfg;
	(void)state;
	assert_int_equal(
	    parse(&cfg,
		  "{\"measured_paths\": [\"src\", \"Cargo.toml\"],\n"
		  " \"unmeasured_paths\": [\"docs\"],\n"
		  " \"main_branch\": \"trunk\", \"primary_metric\": \"wall\",\n"
		  " \"quiet\": {\"max_p95_ratio\": 1.1, \"cpu_load_pct\": 5,\n"
		  "   \"gpu_load_pct\": 2.5, \"processes\": [\"cargo\"]},\n"
		  " \"machines\": {\"ci-1\": {\"keep\": \"first\"},\n"
		  "   \"m4\": {\"keep\": \"quieter\"}, \"ci-2\": {\"keep\": \"first\"}},\n"
		  " \"metrics\": [\"wall\"], \"bench\": {},\n"
		  " \"gate\": {\"limit\": 1.05, \"overrides\": {\"parse_*\": 10, \"a*\": 2},\n"
		  "   \"exclude\": [\"flaky\"]},\n"
		  " \"ladders\": {\"ms\": {\"unit\": \"ms\", \"edges\": [1, 5]}},\n"
		  " \"counted_tolerance\": {\"rss\": 2.5}}"),
	    0);
	assert_true(cfg.gate_limit == 1.05);
	assert_int_equal(cfg.n_gate_overrides, 2);
	assert_string_equal(cfg.gate_override_globs[0], "parse_*"); /* the file's order */
	assert_true(cfg.gate_override_pct[0] == 10);
	assert_string_equal(cfg.gate_override_globs[1], "a*");
	assert_int_equal(cfg.n_gate_excludes, 1);
	assert_string_equal(cfg.gate_excludes[0], "flaky");
	assert_int_equal(cfg.n_counted, 1);
	assert_string_equal(cfg.counted_names[0], "rss");
	assert_true(cfg.counted_pct[0] == 2.5);
	assert_non_null(cfg.ladders);
	assert_int_equal(cfg.n_measured, 2);
	assert_string_equal(cfg.measured_paths[0], "src");
	assert_string_equal(cfg.measured_paths[1], "Cargo.toml");
	assert_null(cfg.measured_paths[2]);
	assert_int_equal(cfg.n_unmeasured, 1);
	assert_string_equal(cfg.unmeasured_paths[0], "docs");
	assert_string_equal(cfg.main_branch, "trunk");
	assert_string_equal(cfg.primary_metric, "wall");
	assert_true(cfg.noisy_limit == 1.1);
	assert_true(cfg.cpu_load_pct == 5);
	assert_true(cfg.gpu_load_pct == 2.5);
	assert_int_equal(cfg.n_keep_first, 2);
	assert_string_equal(cfg.keep_first_machines[0], "ci-1");
	assert_string_equal(cfg.keep_first_machines[1], "ci-2");
	config_release(&cfg);

	/* an empty list measures nothing, which is not the same as no list */
	assert_int_equal(parse(&cfg, "{\"measured_paths\": []}"), 0);
	assert_non_null(cfg.measured_paths);
	assert_int_equal(cfg.n_measured, 0);
	config_release(&cfg);
}

/* The machine a command measures on: the flag, else benchline.json's, else the host name. */
static void test_config_machine(void **state)
{
	struct config cfg;
	struct strbuf sb = STRBUF_INIT;
	struct bl_error err = BL_ERROR_INIT;
	char host[256];
	(void)state;
	assert_int_equal(parse(&cfg, "{\"machine\": \"bench-box\"}"), 0);
	assert_string_equal(cfg.machine, "bench-box");
	assert_int_equal(config_machine(&sb, "ci-1", &cfg, &err), 0);
	assert_string_equal(sb.buf, "ci-1");
	strbuf_reset(&sb);
	assert_int_equal(config_machine(&sb, NULL, &cfg, &err), 0);
	assert_string_equal(sb.buf, "bench-box");
	strbuf_reset(&sb);
	assert_int_equal(config_machine(&sb, "no/such", &cfg, &err), BL_EINVALID);
	assert_string_equal(err.msg.buf,
			    "invalid machine name 'no/such' (expected [A-Za-z0-9._-]{1,64})");
	bl_error_clear(&err);
	config_release(&cfg);
	assert_int_equal(gethostname(host, sizeof(host)), 0);
	host[sizeof(host) - 1] = '\0';
	if (config_machine(&sb, NULL, NULL, &err) == 0)
		assert_string_equal(sb.buf, host);
	else
		assert_non_null(strstr(err.msg.buf, "is not a machine name"));
	strbuf_release(&sb);
	bl_error_release(&err);
}

static void test_config_type_errors(void **state)
{
	(void)state;
	static const struct {
		const char *text, *want;
	} cases[] = {
	    {"{\"measured_paths\": \"src\"}",
	     "repo/benchline.json: measured_paths: expected an array of strings"},
	    {"{\"measured_paths\": [\"src\", 1]}",
	     "repo/benchline.json: measured_paths: expected an array of strings"},
	    {"{\"unmeasured_paths\": {}}",
	     "repo/benchline.json: unmeasured_paths: expected an array of strings"},
	    {"{\"machine\": 1}", "repo/benchline.json: machine: expected a non-empty string"},
	    {"{\"machine\": \"two words\"}",
	     "repo/benchline.json: machine: not a machine name ([A-Za-z0-9._-]{1,64})"},
	    {"{\"main_branch\": 1}",
	     "repo/benchline.json: main_branch: expected a non-empty string"},
	    {"{\"main_branch\": \"\"}",
	     "repo/benchline.json: main_branch: expected a non-empty string"},
	    {"{\"primary_metric\": null}",
	     "repo/benchline.json: primary_metric: expected a non-empty string"},
	    {"{\"quiet\": []}", "repo/benchline.json: quiet: expected an object"},
	    {"{\"quiet\": {\"max_p95_ratio\": \"1.1\"}}",
	     "repo/benchline.json: quiet.max_p95_ratio: expected a number over 1"},
	    {"{\"quiet\": {\"max_p95_ratio\": 1}}",
	     "repo/benchline.json: quiet.max_p95_ratio: expected a number over 1"},
	    {"{\"quiet\": {\"cpu_load_pct\": true}}",
	     "repo/benchline.json: quiet.cpu_load_pct: expected a number of 0 or more"},
	    {"{\"quiet\": {\"gpu_load_pct\": -1}}",
	     "repo/benchline.json: quiet.gpu_load_pct: expected a number of 0 or more"},
	    {"{\"quiet\": {\"processes\": \"cargo\"}}",
	     "repo/benchline.json: quiet.processes: expected an array of strings"},
	    {"{\"machines\": []}", "repo/benchline.json: machines: expected an object"},
	    {"{\"machines\": {\"m1\": \"first\"}}",
	     "repo/benchline.json: machines.m1: expected an object"},
	    {"{\"machines\": {\"m1\": {\"keep\": \"last\"}}}",
	     "repo/benchline.json: machines.m1.keep: expected \"first\" or \"quieter\""},
	    {"{\"machines\": {\"bad name\": {}}}",
	     "repo/benchline.json: machines.bad name: not a machine name ([A-Za-z0-9._-], 1 to 64 "
	     "characters)"},
	    {"{\"metrics\": [1]}", "repo/benchline.json: metrics: expected an array of strings"},
	    {"{\"gate\": 1}", "repo/benchline.json: gate: expected an object"},
	    {"{\"ladders\": \"x\"}", "repo/benchline.json: ladders: expected an object"},
	    {"{\"counted_tolerance\": null}",
	     "repo/benchline.json: counted_tolerance: expected an object of percentages"},
	    {"{\"counted_tolerance\": {\"rss\": -1}}",
	     "repo/benchline.json: counted_tolerance.rss: expected a percentage (0 or more)"},
	    {"{\"gate\": []}", "repo/benchline.json: gate: expected an object"},
	    {"{\"gate\": {\"limit\": 0.9}}",
	     "repo/benchline.json: gate.limit: expected a ratio above 1 and at most 10 (1.02 "
	     "lets a metric grow by 2%)"},
	    {"{\"gate\": {\"exclude\": \"x\"}}",
	     "repo/benchline.json: gate.exclude: expected an array of strings"},
	    {"{\"gate\": {\"overrides\": {\"a\": \"5\"}}}",
	     "repo/benchline.json: gate.overrides.a: expected a percentage (0 or more)"},
	    {"{\"gate\": {\"x\": 1}}", "repo/benchline.json: gate.x: unknown key"},
	    /* the lists hold top-level names, once, in one list */
	    {"{\"measured_paths\": [\"src/lib\"]}",
	     "repo/benchline.json: measured_paths: 'src/lib' is not a top-level name (one path "
	     "component, no slash)"},
	    {"{\"measured_paths\": [\"\"]}",
	     "repo/benchline.json: measured_paths: '' is not a top-level name (one path "
	     "component, no slash)"},
	    {"{\"unmeasured_paths\": [\"..\"]}",
	     "repo/benchline.json: unmeasured_paths: '..' is not a top-level name (one path "
	     "component, no slash)"},
	    {"{\"measured_paths\": [\"src\", \"src\"]}",
	     "repo/benchline.json: measured_paths: 'src' is listed twice"},
	    {"{\"measured_paths\": [\"src\"], \"unmeasured_paths\": [\"src\"]}",
	     "repo/benchline.json: unmeasured_paths: 'src' is also in measured_paths"},
	    {"[]", "repo/benchline.json: expected a JSON object"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		expect_error(cases[i].text, cases[i].want);
}

static void test_config_unknown_keys(void **state)
{
	(void)state;
	/* a near miss is named, with its object's path; a far one is not */
	expect_error("{\"mesured_paths\": []}",
		     "repo/benchline.json: mesured_paths: unknown key; did you mean "
		     "'measured_paths'?");
	expect_error("{\"quiet\": {\"min_sampels\": 5}}",
		     "repo/benchline.json: quiet.min_sampels: unknown key; did you mean "
		     "'quiet.min_samples'?");
	expect_error("{\"gate\": {\"limt\": 1.1}}",
		     "repo/benchline.json: gate.limt: unknown key; did you mean 'gate.limit'?");
	expect_error("{\"bench\": {\"counters\": {\"rnu\": \"x\"}}}",
		     "repo/benchline.json: bench.counters.rnu: unknown key; did you mean "
		     "'bench.counters.run'?");
	expect_error("{\"machines\": {\"m1.a\": {\"kep\": \"first\"}}}",
		     "repo/benchline.json: machines.m1.a.kep: unknown key; did you mean "
		     "'machines.m1.a.keep'?");
	/* only the keys of the same object are candidates: "limit" is gate's, not bench's */
	expect_error("{\"bench\": {\"limit\": 1.1}}",
		     "repo/benchline.json: bench.limit: unknown key");
	expect_error("{\"measured_paths\": [], \"colour\": 1}",
		     "repo/benchline.json: colour: unknown key");
	expect_error("{\"quiet\": {\"cpu\": 1}}", "repo/benchline.json: quiet.cpu: unknown key");
	expect_error("{\"machines\": {\"m1\": {\"keep\": \"first\", \"why\": 1}}}",
		     "repo/benchline.json: machines.m1.why: unknown key");
}

static void test_config_malformed(void **state)
{
	struct config cfg;
	(void)state;
	/* jansson's line and column of the first bad token */
	assert_int_equal(parse(&cfg, "{\n  \"measured_paths\": [\"src\",]\n}"), BL_ECONFIG);
	assert_true(!strncmp(msg, "repo/benchline.json:2:28: ", 26));
	assert_int_equal(parse(&cfg, "{\"a\": 1"), BL_ECONFIG);
	assert_true(!strncmp(msg, "repo/benchline.json:1:7: ", 25));
	assert_int_equal(parse(&cfg, "{\"main_branch\": \"a\", \"main_branch\": \"b\"}"),
			 BL_ECONFIG);
	assert_non_null(strstr(msg, "duplicate object key"));
	assert_int_equal(parse(&cfg, ""), BL_ECONFIG);
	assert_true(!strncmp(msg, "repo/benchline.json:", 20));
	config_release(&cfg);
}

/* A temporary directory, removed with its content at the end. */
static char tmpdir[256];

static void rm_tmpdir(void)
{
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	assert_int_equal(system(cmd), 0);
}

static void test_config_load(void **state)
{
	struct config cfg;
	struct bl_error err = BL_ERROR_INIT;
	char path[300];
	FILE *f;
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "%s/bl-unit-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(tmpdir));

	/* no file: the defaults, and no path */
	assert_int_equal(config_load(&cfg, tmpdir, &err), 0);
	assert_null(cfg.path);
	assert_null(cfg.measured_paths);
	config_release(&cfg);

	snprintf(path, sizeof(path), "%s/benchline.json", tmpdir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"measured_paths\": [\"src\"]}\n", f);
	fclose(f);
	assert_int_equal(config_load(&cfg, tmpdir, &err), 0);
	assert_string_equal(cfg.path, path);
	assert_int_equal(cfg.n_measured, 1);
	config_release(&cfg);

	f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"measured_paths\": [\"src\"]\n", f);
	fclose(f);
	assert_int_equal(config_load(&cfg, tmpdir, &err), BL_ECONFIG);
	assert_true(!strncmp(err.msg.buf, path, strlen(path)));
	assert_int_equal(err.msg.buf[strlen(path)], ':');
	config_release(&cfg);
	bl_error_release(&err);
	rm_tmpdir();
}

/* Adds a blob (or a tree when sub is given) to a tree builder. */
static void add_entry(git_treebuilder *tb, git_repository *repo, const char *name,
		      git_filemode_t mode, const git_oid *sub)
{
	git_oid id;
	if (sub)
		git_oid_cpy(&id, sub);
	else
		assert_int_equal(git_blob_create_from_buffer(&id, repo, name, strlen(name)), 0);
	assert_int_equal(git_treebuilder_insert(NULL, tb, name, &id, mode), 0);
}

/* git's tree order puts a tree "foo" after "foo.c" and "foo-x" (as if "foo/"), a blob "foo"
 * before them: the hash must use that order, as a tree libgit2 writes does. */
/* What the server takes as a revision: ref names and hex ids, no revparse expressions. */
static void test_rev_is_plain(void **state)
{
	static const char *const plain[] = {
	    "main",	   "HEAD", "origin/pr-7", "refs/heads/main",
	    "feature/x.y", "v1.0", "4f1c",	  "4f1c2e9d0000000000000000000000000000abcd",
	    "DEADBEEF",
	};
	static const char *const not_plain[] = {
	    "",	   "HEAD^{/x}",	   ":/fix", "main@{1}", "@{-1}", "HEAD~1", "HEAD^",	"a..b",
	    "a b", "main:src/a.c", "x*",    "x?",	"x[1]",	 "a\\b",   "trailing/", "a\tb",
	};
	(void)state;
	assert_false(repo_rev_is_plain(NULL));
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		assert_true(repo_rev_is_plain(plain[i]));
	for (size_t i = 0; i < sizeof(not_plain) / sizeof(not_plain[0]); i++)
		assert_false(repo_rev_is_plain(not_plain[i]));
}

static void test_source_hash_tree_order(void **state)
{
	git_repository *repo;
	git_treebuilder *tb;
	git_signature *sig;
	git_tree *tree;
	git_commit *parent = NULL;
	git_oid sub, root, want, commit;
	struct config cfg;
	struct bl_error err = BL_ERROR_INIT;
	const char *revs[] = {"HEAD"};
	char hashes[1][41], commits[1][41], hex[41];
	(void)state;

	snprintf(tmpdir, sizeof(tmpdir), "%s/bl-unit-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(tmpdir));
	assert_int_equal(git_repository_init(&repo, tmpdir, 1), 0);
	assert_int_equal(git_signature_new(&sig, "t", "t@example.com", 1700000000, 0), 0);

	assert_int_equal(git_treebuilder_new(&tb, repo, NULL), 0);
	add_entry(tb, repo, "inner", GIT_FILEMODE_BLOB, NULL);
	assert_int_equal(git_treebuilder_write(&sub, tb), 0);
	git_treebuilder_free(tb);

	for (int dir = 0; dir < 2; dir++) {
		static const char *const measured[] = {"foo.c", "foo", "foo-x", "run.sh", "link"};
		/* the whole root tree: what the commit holds */
		assert_int_equal(git_treebuilder_new(&tb, repo, NULL), 0);
		add_entry(tb, repo, "foo", dir ? GIT_FILEMODE_TREE : GIT_FILEMODE_BLOB,
			  dir ? &sub : NULL);
		add_entry(tb, repo, "foo.c", GIT_FILEMODE_BLOB, NULL);
		add_entry(tb, repo, "foo-x", GIT_FILEMODE_TREE, &sub);
		add_entry(tb, repo, "run.sh", GIT_FILEMODE_BLOB_EXECUTABLE, NULL);
		add_entry(tb, repo, "link", GIT_FILEMODE_LINK, NULL);
		add_entry(tb, repo, "docs", GIT_FILEMODE_TREE, &sub);
		assert_int_equal(git_treebuilder_write(&root, tb), 0);
		/* just the measured entries: what the source hash must equal */
		assert_int_equal(git_treebuilder_remove(tb, "docs"), 0);
		assert_int_equal(git_treebuilder_write(&want, tb), 0);
		git_treebuilder_free(tb);

		assert_int_equal(git_tree_lookup(&tree, repo, &root), 0);
		assert_int_equal(git_commit_create(&commit, repo, "HEAD", sig, sig, NULL, "c", tree,
						   parent ? 1 : 0, (const git_commit **)&parent),
				 0);
		git_tree_free(tree);
		git_commit_free(parent);
		assert_int_equal(git_commit_lookup(&parent, repo, &commit), 0);

		config_init(&cfg);
		cfg.measured_paths = (char **)measured;
		cfg.n_measured = 5;
		assert_int_equal(
		    repo_source_hash_revs(hashes, commits, tmpdir, &cfg, revs, 1, &err), 0);
		assert_string_equal(hashes[0], git_oid_tostr(hex, sizeof(hex), &want));
		assert_string_equal(commits[0], git_oid_tostr(hex, sizeof(hex), &commit));

		/* no list: the root tree itself */
		cfg.measured_paths = NULL;
		cfg.n_measured = 0;
		assert_int_equal(
		    repo_source_hash_revs(hashes, commits, tmpdir, &cfg, revs, 1, &err), 0);
		assert_string_equal(hashes[0], git_oid_tostr(hex, sizeof(hex), &root));

		/* nothing measured present: the empty tree */
		cfg.measured_paths = (char **)(measured + 5);
		cfg.n_measured = 0;
		assert_int_equal(
		    repo_source_hash_revs(hashes, commits, tmpdir, &cfg, revs, 1, &err), 0);
		assert_string_equal(hashes[0], "4b825dc642cb6eb9a060e54bf8d69288fbee4904");
	}

	/* errors name the repository and the revision */
	revs[0] = "nope";
	assert_int_equal(repo_source_hash_revs(hashes, commits, tmpdir, &cfg, revs, 1, &err),
			 BL_ENOTFOUND);
	assert_non_null(strstr(err.msg.buf, "cannot resolve 'nope' in '"));

	git_commit_free(parent);
	git_signature_free(sig);
	git_repository_free(repo);
	bl_error_release(&err);
	rm_tmpdir();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pr_from_subject),
	    cmocka_unit_test(test_config_defaults),
	    cmocka_unit_test(test_config_full),
	    cmocka_unit_test(test_config_bench),
	    cmocka_unit_test(test_config_machine),
	    cmocka_unit_test(test_config_type_errors),
	    cmocka_unit_test(test_config_unknown_keys),
	    cmocka_unit_test(test_config_malformed),
	    cmocka_unit_test(test_config_load),
	    cmocka_unit_test(test_source_hash_tree_order),
	    cmocka_unit_test(test_rev_is_plain),
	};
	int ret;
	git_libgit2_init();
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return ret;
}

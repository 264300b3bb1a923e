/* Unit tests of §10's "one machine name per checkout" (ingest/config/): each setting from its flag,
 * else benchline.json, else its default, and where it came from; benchline.json's
 * "harness_version"; which checkout's benchline.json a command reads. */
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
#include <git2.h>

#include "ingest/config/config.h"

static int parse(struct config *cfg, const char *text)
{
	struct bl_error err = BL_ERROR_INIT;
	int ret = config_parse(cfg, "repo/benchline.json", text, strlen(text), &err);
	bl_error_release(&err);
	return ret;
}

static const struct config_flags no_flags = {NULL, -1, NULL};

/* Nothing given anywhere: harness version 1, format auto, and no machine unless the command
 * measures here (then the host name). */
static void test_resolve_defaults(void **state)
{
	struct config_settings s;
	struct bl_error err = BL_ERROR_INIT;
	struct config cfg;
	char host[256];
	(void)state;

	config_init(&cfg);
	assert_int_equal(cfg.harness_version, -1);
	assert_int_equal(config_resolve(&s, &no_flags, &cfg, 0, &err), 0);
	assert_int_equal(s.machine_from, CONFIG_FROM_NONE);
	assert_string_equal(s.machine, "");
	assert_int_equal(s.harness_version, 1);
	assert_int_equal(s.harness_from, CONFIG_FROM_DEFAULT);
	assert_string_equal(s.format, "auto");
	assert_int_equal(s.format_from, CONFIG_FROM_DEFAULT);

	/* no benchline.json at all is the same */
	assert_int_equal(config_resolve(&s, &no_flags, NULL, CONFIG_BENCH_FORMAT, &err), 0);
	assert_int_equal(s.machine_from, CONFIG_FROM_NONE);
	assert_string_equal(s.format, "auto");

	assert_int_equal(gethostname(host, sizeof(host)), 0);
	host[sizeof(host) - 1] = '\0';
	if (config_resolve(&s, &no_flags, &cfg, CONFIG_HOST_MACHINE, &err) == 0) {
		assert_int_equal(s.machine_from, CONFIG_FROM_HOST);
		assert_string_equal(s.machine, host);
	} else {
		assert_non_null(strstr(err.msg.buf, "is not a machine name"));
		bl_error_clear(&err);
	}
	config_release(&cfg);
	bl_error_release(&err);
}

/* benchline.json over the defaults, the flags over benchline.json. */
static void test_resolve_order(void **state)
{
	struct config_settings s;
	struct bl_error err = BL_ERROR_INIT;
	struct config cfg;
	struct config_flags flags = {"ci-1", 7, "hyperfine"};
	(void)state;

	assert_int_equal(parse(&cfg, "{\"machine\": \"nc-box\", \"harness_version\": 3, "
				     "\"bench\": {\"run\": \"./b\", \"format\": \"gbench\"}}"),
			 0);
	assert_int_equal(cfg.harness_version, 3);
	assert_int_equal(
	    config_resolve(&s, &no_flags, &cfg, CONFIG_HOST_MACHINE | CONFIG_BENCH_FORMAT, &err),
	    0);
	assert_string_equal(s.machine, "nc-box");
	assert_int_equal(s.machine_from, CONFIG_FROM_FILE);
	assert_int_equal(s.harness_version, 3);
	assert_int_equal(s.harness_from, CONFIG_FROM_FILE);
	assert_string_equal(s.format, "gbench");
	assert_int_equal(s.format_from, CONFIG_FROM_FILE);

	/* bench.format is the format of a benchmark's output: only a command that asks reads it */
	assert_int_equal(config_resolve(&s, &no_flags, &cfg, 0, &err), 0);
	assert_string_equal(s.format, "auto");
	assert_int_equal(s.format_from, CONFIG_FROM_DEFAULT);
	assert_string_equal(s.machine, "nc-box"); /* the file's machine needs no host fallback */

	assert_int_equal(
	    config_resolve(&s, &flags, &cfg, CONFIG_HOST_MACHINE | CONFIG_BENCH_FORMAT, &err), 0);
	assert_string_equal(s.machine, "ci-1");
	assert_int_equal(s.machine_from, CONFIG_FROM_FLAG);
	assert_int_equal(s.harness_version, 7);
	assert_int_equal(s.harness_from, CONFIG_FROM_FLAG);
	assert_string_equal(s.format, "hyperfine");
	assert_int_equal(s.format_from, CONFIG_FROM_FLAG);

	/* --harness-version 0 is a harness version, not "not given" */
	flags.harness_version = 0;
	assert_int_equal(config_resolve(&s, &flags, &cfg, 0, &err), 0);
	assert_int_equal(s.harness_version, 0);
	assert_int_equal(s.harness_from, CONFIG_FROM_FLAG);
	config_release(&cfg);
	bl_error_release(&err);
}

static void test_resolve_bad_machine(void **state)
{
	struct config_settings s;
	struct bl_error err = BL_ERROR_INIT;
	struct config_flags flags = {"no/such", -1, NULL};
	(void)state;
	assert_int_equal(config_resolve(&s, &flags, NULL, CONFIG_HOST_MACHINE, &err), BL_EINVALID);
	assert_string_equal(err.msg.buf,
			    "invalid machine name 'no/such' (expected [A-Za-z0-9._-]{1,64})");
	bl_error_release(&err);
}

static void test_from_phrase(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct config cfg;
	(void)state;
	assert_int_equal(parse(&cfg, "{\"machine\": \"nc-box\"}"), 0);
	cfg.path = strdup("repo/benchline.json");
	config_from_phrase(&sb, CONFIG_FROM_FILE, "--machine", "machine", &cfg);
	assert_string_equal(sb.buf, "\"machine\" in repo/benchline.json");
	strbuf_reset(&sb);
	config_from_phrase(&sb, CONFIG_FROM_FLAG, "--machine", "machine", &cfg);
	assert_string_equal(sb.buf, "--machine");
	strbuf_reset(&sb);
	config_from_phrase(&sb, CONFIG_FROM_HOST, "--machine", "machine", NULL);
	assert_string_equal(sb.buf, "the host name");
	strbuf_reset(&sb);
	config_from_phrase(&sb, CONFIG_FROM_DEFAULT, "--harness-version", "harness_version", NULL);
	assert_string_equal(sb.buf, "the default");
	strbuf_release(&sb);
	config_release(&cfg);
}

static void test_harness_version_key(void **state)
{
	static const char *const bad[] = {
	    "{\"harness_version\": -1}",
	    "{\"harness_version\": 1.5}",
	    "{\"harness_version\": \"1\"}",
	};
	struct bl_error err = BL_ERROR_INIT;
	struct config cfg;
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(
		    config_parse(&cfg, "repo/benchline.json", bad[i], strlen(bad[i]), &err),
		    BL_ECONFIG);
		assert_string_equal(err.msg.buf,
				    "repo/benchline.json: harness_version: expected an "
				    "integer of 0 or more");
		bl_error_clear(&err);
	}
	assert_int_equal(parse(&cfg, "{\"harness_version\": 0}"), 0);
	assert_int_equal(cfg.harness_version, 0);
	config_release(&cfg);
	bl_error_release(&err);
}

/* A temporary directory, the current directory while a test runs in it. */
static char tmpdir[64], olddir[4096];

static void enter_tmpdir(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/benchline-unit-config.XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	assert_non_null(getcwd(olddir, sizeof(olddir)));
	assert_int_equal(chdir(tmpdir), 0);
}

static void leave_tmpdir(void)
{
	char cmd[128];
	assert_int_equal(chdir(olddir), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	assert_int_equal(system(cmd), 0);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* --repo's benchline.json; else the one at the root of the repository holding the current
 * directory (from a directory under it too); else none: a directory outside every repository
 * keeps the defaults, whatever benchline.json lies in it. */
static void test_load_checkout(void **state)
{
	struct bl_error err = BL_ERROR_INIT;
	struct strbuf root = STRBUF_INIT, want = STRBUF_INIT;
	struct config cfg;
	git_repository *repo;
	char real[4096];
	(void)state;

	enter_tmpdir();
	write_text("benchline.json", "{\"machine\": \"stray\"}");
	assert_int_equal(config_load_checkout(&cfg, &root, NULL, &err), 0);
	assert_null(cfg.machine);
	assert_null(cfg.path);
	assert_int_equal(root.len, 0);
	config_release(&cfg);

	assert_int_equal(mkdir("co", 0777), 0);
	assert_int_equal(git_repository_init(&repo, "co", 0), 0);
	git_repository_free(repo);
	write_text("co/benchline.json", "{\"machine\": \"nc-box\", \"harness_version\": 2}");
	assert_int_equal(mkdir("co/src", 0777), 0);

	/* --repo names it */
	assert_int_equal(config_load_checkout(&cfg, &root, "co", &err), 0);
	assert_string_equal(cfg.machine, "nc-box");
	assert_string_equal(root.buf, "co");
	config_release(&cfg);
	strbuf_reset(&root);

	/* from inside it, a directory down */
	assert_int_equal(chdir("co/src"), 0);
	assert_int_equal(config_load_checkout(&cfg, &root, NULL, &err), 0);
	assert_string_equal(cfg.machine, "nc-box");
	assert_int_equal(cfg.harness_version, 2);
	assert_non_null(realpath("..", real));
	strbuf_addstr(&want, real);
	{
		char got[4096];
		assert_non_null(realpath(root.buf, got));
		assert_string_equal(got, want.buf);
	}
	config_release(&cfg);
	assert_int_equal(chdir("../.."), 0);

	leave_tmpdir();
	strbuf_release(&root);
	strbuf_release(&want);
	bl_error_release(&err);
}

/* The pre-check that spares libgit2's start outside every repository: false as soon as a
 * `.git` (a directory or a gitlink file) or a `HEAD` lies in the directory or above it. */
static void test_outside_repositories(void **state)
{
	char path[4200];
	git_repository *repo;
	(void)state;

	enter_tmpdir();
	assert_true(config_surely_outside_repositories(tmpdir));
	snprintf(path, sizeof(path), "%s/", tmpdir); /* a trailing slash names the same */
	assert_true(config_surely_outside_repositories(path));
	assert_false(config_surely_outside_repositories("relative/dir"));

	assert_int_equal(mkdir("a", 0777), 0);
	assert_int_equal(mkdir("a/b", 0777), 0);
	snprintf(path, sizeof(path), "%s/a/b", tmpdir);
	assert_true(config_surely_outside_repositories(path));
	/* a gitlink file two levels up */
	write_text("a/.git", "gitdir: /elsewhere\n");
	assert_false(config_surely_outside_repositories(path));
	assert_int_equal(unlink("a/.git"), 0);
	assert_true(config_surely_outside_repositories(path));

	/* a bare repository, from a directory inside it */
	assert_int_equal(git_repository_init(&repo, "bare.git", 1), 0);
	git_repository_free(repo);
	snprintf(path, sizeof(path), "%s/bare.git/refs/heads", tmpdir);
	assert_false(config_surely_outside_repositories(path));
	/* a working tree's subdirectory */
	assert_int_equal(git_repository_init(&repo, "wt", 0), 0);
	git_repository_free(repo);
	assert_int_equal(mkdir("wt/src", 0777), 0);
	snprintf(path, sizeof(path), "%s/wt/src", tmpdir);
	assert_false(config_surely_outside_repositories(path));
	leave_tmpdir();
}

/* From inside a bare repository the settings are HEAD's benchline.json: the pre-check must
 * not take the repository for a plain directory. */
static void test_load_checkout_bare(void **state)
{
	struct bl_error err = BL_ERROR_INIT;
	struct strbuf root = STRBUF_INIT;
	struct config cfg;
	git_repository *repo;
	git_index *index;
	git_oid blob, tree, commit;
	git_tree *t;
	git_signature *sig;
	const char *text = "{\"machine\": \"bare-box\"}";
	(void)state;

	enter_tmpdir();
	assert_int_equal(git_repository_init(&repo, "bare.git", 1), 0);
	assert_int_equal(git_blob_create_from_buffer(&blob, repo, text, strlen(text)), 0);
	assert_int_equal(git_repository_index(&index, repo), 0);
	{
		git_index_entry e;
		memset(&e, 0, sizeof(e));
		e.mode = GIT_FILEMODE_BLOB;
		e.id = blob;
		e.path = "benchline.json";
		assert_int_equal(git_index_add(index, &e), 0);
	}
	assert_int_equal(git_index_write_tree(&tree, index), 0);
	assert_int_equal(git_tree_lookup(&t, repo, &tree), 0);
	assert_int_equal(git_signature_now(&sig, "t", "t@example.com"), 0);
	assert_int_equal(git_commit_create_v(&commit, repo, "HEAD", sig, sig, NULL, "c", t, 0), 0);
	git_signature_free(sig);
	git_tree_free(t);
	git_index_free(index);
	git_repository_free(repo);

	assert_int_equal(chdir("bare.git/refs"), 0);
	assert_int_equal(config_load_checkout(&cfg, &root, NULL, &err), 0);
	assert_string_equal(cfg.machine, "bare-box");
	assert_true(root.len > 0);
	config_release(&cfg);
	assert_int_equal(chdir("../.."), 0);
	leave_tmpdir();
	strbuf_release(&root);
	bl_error_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_resolve_defaults),	 cmocka_unit_test(test_resolve_order),
	    cmocka_unit_test(test_resolve_bad_machine),	 cmocka_unit_test(test_from_phrase),
	    cmocka_unit_test(test_harness_version_key),	 cmocka_unit_test(test_load_checkout),
	    cmocka_unit_test(test_outside_repositories), cmocka_unit_test(test_load_checkout_bare),
	};
	int ret;
	git_libgit2_init();
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return ret;
}

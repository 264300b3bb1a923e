/*
 * Unit tests of the deterministic counters (§9.6, ingest/bench/counters.c), with real valgrind
 * on a program compiled here: the machine key and the build stamp (CFLAGS moves the stamp, not
 * the key); a count per benchmark, the same on every run, the shell that runs the command left
 * out; the records they make; and what is refused: a failing command (its status and stderr),
 * one that prints nothing, no valgrind on PATH (naming the package).
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

#include <jansson.h>

#include "ingest/bench/bench.h"
#include "ingest/config/config.h"
#include "ingest/ingest.h"

static char dir[256];

static int sh(const char *cmd)
{
	int rc = system(cmd);
	return rc == -1 ? -1 : WEXITSTATUS(rc);
}

/* A program whose benchmark "a" does 100,000 iterations and "b" 200,000; it prints the name. */
static int setup(void **state)
{
	char cmd[1024];
	FILE *f;
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_counters.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(cmd, sizeof(cmd), "%s/prog.c", dir);
	if (!(f = fopen(cmd, "w")))
		return -1;
	fputs("#include <stdio.h>\n#include <string.h>\n"
	      "__attribute__((noinline)) static unsigned work(unsigned n)\n"
	      "{ volatile unsigned s = 0; for (unsigned i = 0; i < n; i++) s += i; return s; }\n"
	      "int main(int argc, char **argv)\n"
	      "{ if (argc < 2) return 2; if (!strcmp(argv[1], \"quiet\")) return 0;\n"
	      "  work(strcmp(argv[1], \"a\") ? 200000 : 100000); printf(\"%s\\n\", argv[1]);\n"
	      "  return 0; }\n",
	      f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cd %s && cc -O1 -o prog prog.c", dir);
	return sh(cmd);
}

static int teardown(void **state)
{
	char cmd[300];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	sh(cmd);
	return 0;
}

static void probe(struct bench_counter_env *env)
{
	struct bl_error err = BL_ERROR_INIT;
	bench_counter_env_init(env);
	if (bench_counter_env_probe(env, &err))
		fail_msg("%s", err.msg.buf);
	bl_error_release(&err);
}

static void the_key_and_the_stamp(void **state)
{
	struct bench_counter_env env, again;
	const char *ver;
	(void)state;
	unsetenv("CFLAGS");
	probe(&env);
	ver = env.valgrind.buf + strlen("valgrind-");
	assert_int_equal(strncmp(env.machine.buf, "callgrind-", 10), 0);
	assert_int_equal(strncmp(env.machine.buf + 10, ver, strlen(ver)), 0);
	assert_int_equal((int)strlen(env.machine.buf), 10 + (int)strlen(ver) + 1 + 8);
	assert_int_equal((int)strlen(env.build_stamp), 16);
	assert_string_equal(json_string_value(json_object_get(env.measured_on, "build_stamp")),
			    env.build_stamp);
	assert_non_null(
	    json_string_value(json_object_get(json_object_get(env.measured_on, "libc"), "sha256")));
	/* the same machine, the same stamp; another CFLAGS, another stamp, the same key */
	probe(&again);
	assert_string_equal(again.build_stamp, env.build_stamp);
	bench_counter_env_release(&again);
	setenv("CFLAGS", "-O3", 1);
	probe(&again);
	assert_string_not_equal(again.build_stamp, env.build_stamp);
	assert_string_equal(again.machine.buf, env.machine.buf);
	assert_string_equal(json_string_value(json_object_get(again.measured_on, "cflags")), "-O3");
	unsetenv("CFLAGS");
	bench_counter_env_release(&again);
	bench_counter_env_release(&env);
}

static void counts(struct bench_counts *out, const char *run, const char *const *names, size_t n)
{
	struct config cfg;
	struct bl_error err = BL_ERROR_INIT;
	char profiles[300];
	config_init(&cfg);
	cfg.counters_run = xstrdup(run);
	snprintf(profiles, sizeof(profiles), "%s/profiles", dir);
	if (bench_count(out, &cfg, dir, names, n, profiles, &err))
		fail_msg("%s", err.msg.buf);
	config_release(&cfg);
	bl_error_release(&err);
}

static void a_count_per_benchmark_exactly(void **state)
{
	static const char *const names[] = {"a", "b"};
	struct bench_counts c1, c2;
	struct bench_counter_env env;
	struct ingest_batch batch = {NULL, 0, 0};
	struct bl_error err = BL_ERROR_INIT;
	(void)state;
	counts(&c1, "./prog {benchmark}", names, 2);
	counts(&c2, "./prog {benchmark}", names, 2);
	assert_int_equal((int)c1.n, 2);
	assert_string_equal(c1.v[0].benchmark, "a");
	assert_string_equal(c1.v[1].benchmark, "b");
	/* exact: the same on every run */
	assert_true(c1.v[0].instructions == c2.v[0].instructions);
	assert_true(c1.v[1].instructions == c2.v[1].instructions);
	/* b's loop is twice a's: its count is larger by about a's loop */
	assert_true(c1.v[1].instructions > c1.v[0].instructions + 100000);
	assert_int_equal(access(c1.v[0].profile, R_OK), 0);
	/* the records they make */
	probe(&env);
	if (bench_counts_records(&batch, &c1, &env, "1111111111111111111111111111111111111111",
				 "2222222222222222222222222222222222222222", 1, &err))
		fail_msg("%s", err.msg.buf);
	assert_int_equal((int)batch.nr, 2);
	assert_string_equal(batch.records[0].machine, env.machine.buf);
	assert_string_equal(batch.records[1].benchmark, "b");
	bench_counter_env_release(&env);
	ingest_batch_release(&batch);
	bench_counts_release(&c2);
	/* without {benchmark}: one count of the whole command, both programs and not the shell
	 * that ran them (a /bin/sh counts some 200,000 instructions of its own) */
	counts(&c2, "./prog a && ./prog b", NULL, 0);
	assert_int_equal((int)c2.n, 1);
	assert_null(c2.v[0].benchmark);
	{
		double both = (double)(c1.v[0].instructions + c1.v[1].instructions);
		assert_true(c2.v[0].instructions > 0.99 * both);
		assert_true(c2.v[0].instructions < 1.01 * both);
	}
	bench_counts_release(&c1);
	bench_counts_release(&c2);
	bl_error_release(&err);
}

static void count_fails(const char *run, const char *const *names, size_t n, const char *path,
			const char *want)
{
	struct config cfg;
	struct bench_counts c;
	struct bl_error err = BL_ERROR_INIT;
	char profiles[300], *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	config_init(&cfg);
	cfg.counters_run = xstrdup(run);
	snprintf(profiles, sizeof(profiles), "%s/profiles", dir);
	if (path)
		setenv("PATH", path, 1);
	assert_int_not_equal(bench_count(&c, &cfg, dir, names, n, profiles, &err), 0);
	if (path)
		setenv("PATH", old, 1);
	if (!strstr(err.msg.buf, want))
		fail_msg("'%s' does not say '%s'", err.msg.buf, want);
	assert_int_equal((int)c.n, 0);
	free(old);
	config_release(&cfg);
	bl_error_release(&err);
}

static void what_is_refused(void **state)
{
	static const char *const names[] = {"a"};
	struct bench_counter_env env;
	struct bl_error err = BL_ERROR_INIT;
	char *old = strdup(getenv("PATH"));
	(void)state;
	count_fails("echo oops >&2; exit 3", NULL, 0, NULL, "exited with status 3");
	count_fails("echo oops >&2; exit 3", NULL, 0, NULL, "oops");
	count_fails("./prog quiet", NULL, 0, NULL, "printed nothing");
	count_fails("./prog {benchmark}", NULL, 0, NULL, "no benchmark to count");
	count_fails("./prog {benchmark}", names, 1, "/nonexistent", "cannot run 'valgrind'");
	/* the probe says which package */
	setenv("PATH", "/nonexistent", 1);
	bench_counter_env_init(&env);
	assert_int_equal(bench_counter_env_probe(&env, &err), BL_ENOTFOUND);
	setenv("PATH", old, 1);
	assert_non_null(strstr(err.msg.buf, "apt-get install valgrind"));
	bench_counter_env_release(&env);
	free(old);
	bl_error_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(the_key_and_the_stamp),
	    cmocka_unit_test(a_count_per_benchmark_exactly),
	    cmocka_unit_test(what_is_refused),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

/*
 * Deterministic counters (§9.6): bench.counters' command run under valgrind's callgrind in a
 * worktree, once per benchmark when it holds {benchmark}, and the instructions each run
 * executed. What moves a count is not the host but valgrind and the code it runs: the records
 * are keyed by a machine named after valgrind's version and the libc the guest loads, and
 * carry what was measured with (`measured_on`) and a digest of it (`build_stamp`), so a count
 * taken on one runner stands for every other of the same kind. docs/counters.md explains.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "ingest/adapters/adapters.h"
#include "ingest/bench/bench.h"
#include "ingest/config/config.h"

/* The first line of a command's standard output, "" when it prints nothing or cannot run. */
static void first_line(struct strbuf *out, const char *const *argv)
{
	struct child_process cp;
	struct bl_error err = BL_ERROR_INIT;
	size_t n;
	strbuf_reset(out);
	child_process_init(&cp);
	cp.argv = argv;
	cp.no_stdin = 1;
	cp.no_stderr = 1;
	cp.out_max = 1 << 16;
	cp.timeout_ms = 30000;
	if (!child_process_run(&cp, &err) && !cp.exit_code) {
		n = strcspn(cp.out.buf, "\n");
		strbuf_add(out, cp.out.buf, n);
	}
	cp.argv = NULL;
	child_process_release(&cp);
	bl_error_release(&err);
}

/* The libc this process loads (the guest's too: the same dynamic loader picks it), from
 * /proc/self/maps; "" when there is none (a static build). */
static void loaded_libc(struct strbuf *out)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	strbuf_reset(out);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/'), *base;
		if (!path)
			continue;
		path[strcspn(path, "\n")] = '\0';
		base = strrchr(path, '/') + 1;
		if (!strncmp(base, "libc.so", 7) || !strncmp(base, "libc-", 5)) {
			strbuf_addstr(out, path);
			break;
		}
	}
	fclose(f);
}

void bench_counter_env_init(struct bench_counter_env *env)
{
	memset(env, 0, sizeof(*env));
	strbuf_init(&env->machine, 0);
	strbuf_init(&env->valgrind, 0);
}

void bench_counter_env_release(struct bench_counter_env *env)
{
	strbuf_release(&env->machine);
	strbuf_release(&env->valgrind);
	json_decref(env->measured_on);
	memset(env, 0, sizeof(*env));
}

/* "" for a variable that is not set. */
static const char *env_or_empty(const char *name)
{
	const char *v = getenv(name);
	return v ? v : "";
}

int bench_counter_env_probe(struct bench_counter_env *env, struct bl_error *err)
{
	static const char *const valgrind_version[] = {"valgrind", "--version", NULL};
	struct strbuf libc = STRBUF_INIT, compiler = STRBUF_INIT, stamp = STRBUF_INIT;
	const char *cc = getenv("CC") && *getenv("CC") ? getenv("CC") : "cc";
	const char *cc_version[] = {cc, "--version", NULL};
	char libc_digest[65] = "";
	struct utsname un;
	int ret = 0;

	first_line(&env->valgrind, valgrind_version);
	if (strncmp(env->valgrind.buf, "valgrind-", 9)) {
		ret = bl_error_set(err, BL_ENOTFOUND,
				   "bench.counters needs valgrind, which is not installed here "
				   "(Debian: apt-get install valgrind)");
		goto done;
	}
	loaded_libc(&libc);
	if (libc.len && (ret = digest_sha256_file(libc_digest, libc.buf, err)))
		goto done;
	first_line(&compiler, cc_version);
	if (uname(&un))
		memcpy(un.machine, "unknown", sizeof("unknown"));
	/* The stamp: a digest of everything that moves a count besides the code. */
	strbuf_addf(&stamp, "%s\n%s\n%s\n%s\n%s\n%s\n", env->valgrind.buf, libc_digest,
		    compiler.buf, env_or_empty("CFLAGS"), env_or_empty("CXXFLAGS"),
		    env_or_empty("LDFLAGS"));
	if ((ret = digest_sha256(env->build_stamp, stamp.buf, stamp.len, err)))
		goto done;
	env->build_stamp[16] = '\0'; /* 64 bits are plenty to tell builds apart */
	strbuf_reset(&env->machine);
	strbuf_addf(&env->machine, "callgrind-%s-%.8s", env->valgrind.buf + 9,
		    libc.len ? libc_digest : "static0");
	json_decref(env->measured_on);
	env->measured_on = json_pack(
	    "{s:s, s:{s:s?, s:s?}, s:s, s:s, s:s, s:s, s:s, s:s}", "valgrind", env->valgrind.buf,
	    "libc", "path", libc.len ? libc.buf : NULL, "sha256", libc.len ? libc_digest : NULL,
	    "guest_cpu", un.machine, "compiler", compiler.buf, "cflags", env_or_empty("CFLAGS"),
	    "cxxflags", env_or_empty("CXXFLAGS"), "ldflags", env_or_empty("LDFLAGS"), "build_stamp",
	    env->build_stamp);
done:
	strbuf_release(&libc);
	strbuf_release(&compiler);
	strbuf_release(&stamp);
	return ret;
}

void bench_counts_init(struct bench_counts *c)
{
	memset(c, 0, sizeof(*c));
}

void bench_counts_release(struct bench_counts *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].benchmark);
		free(c->v[i].profile);
	}
	free(c->v);
	memset(c, 0, sizeof(*c));
}

/* s as one word for /bin/sh: in single quotes, each ' written '\''. */
static void shell_quote(struct strbuf *out, const char *s)
{
	strbuf_addch(out, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			strbuf_addstr(out, "'\\''");
		else
			strbuf_addch(out, *s);
	}
	strbuf_addch(out, '\'');
}

/* The command with every {benchmark} replaced by the quoted name. */
static void expand(struct strbuf *out, const char *cmd, const char *benchmark)
{
	static const char mark[] = "{benchmark}";
	strbuf_reset(out);
	while (*cmd) {
		const char *at = strstr(cmd, mark);
		if (!at || !benchmark) {
			strbuf_addstr(out, cmd);
			break;
		}
		strbuf_add(out, cmd, (size_t)(at - cmd));
		shell_quote(out, benchmark);
		cmd = at + sizeof(mark) - 1;
	}
}

/* A benchmark name as part of a file name: its letters, digits, '-' and '.', then the first 8
 * hex digits of the name's SHA-256, so two names never share a file and a later gate finds a
 * side's profile again from the name alone. */
static void file_tag(struct strbuf *out, const char *name)
{
	char digest[65];
	const char *n = name ? name : "all";
	strbuf_reset(out);
	for (const char *p = n; *p && out->len < 64; p++)
		strbuf_addch(out, isalnum((unsigned char)*p) || *p == '-' || *p == '.' ? *p : '_');
	if (digest_sha256(digest, n, strlen(n), NULL))
		memset(digest, '0', 8);
	strbuf_addf(out, "-%.8s", digest);
}

void bench_profile_path(struct strbuf *out, const char *profile_dir, const char *benchmark)
{
	struct strbuf tag = STRBUF_INIT;
	file_tag(&tag, benchmark);
	strbuf_reset(out);
	strbuf_addf(out, "%s/%s.out", profile_dir, tag.buf);
	strbuf_release(&tag);
}

int bench_counters_read(uint64_t *total, struct strbuf *kept, const char *dir, const char *prefix,
			const char *wrapper_cmd, struct bl_error *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT, best = STRBUF_INIT;
	uint64_t best_total = 0;
	size_t counted = 0, plen = strlen(prefix);
	int ret = 0;

	*total = 0;
	if (!d)
		return bl_error_set(err, BL_EIO, "cannot read '%s': %s", dir, strerror(errno));
	while ((e = readdir(d))) {
		struct bench_profile p;
		/* PREFIX.PID, one per process callgrind followed (not a PREFIX.out kept before) */
		if (strncmp(e->d_name, prefix, plen) || e->d_name[plen] != '.' ||
		    !e->d_name[plen + 1] ||
		    strspn(e->d_name + plen + 1, "0123456789") != strlen(e->d_name + plen + 1))
			continue;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir, e->d_name);
		strbuf_reset(&text);
		if ((ret = read_file_capped(&text, path.buf, (size_t)1 << 30, err)) ||
		    (ret = bench_profile_parse(&p, path.buf, text.buf, text.len, err)))
			break;
		/* The shell that runs the command is ours, not the benchmark's: left out. */
		if (wrapper_cmd && p.cmd && !strcmp(p.cmd, wrapper_cmd)) {
			bench_profile_release(&p);
			unlink(path.buf);
			continue;
		}
		*total += p.total;
		counted++;
		if (!best.len || p.total > best_total) {
			if (best.len)
				unlink(best.buf);
			strbuf_reset(&best);
			strbuf_add(&best, path.buf, path.len);
			best_total = p.total;
		} else {
			unlink(path.buf);
		}
		bench_profile_release(&p);
	}
	closedir(d);
	if (!ret && !counted)
		ret = bl_error_set(err, BL_EIO,
				   "callgrind counted no program: the counter command ran none");
	if (!ret && kept) {
		/* the profile kept for §9.7: the busiest process's */
		strbuf_reset(kept);
		strbuf_addf(kept, "%s/%s.out", dir, prefix);
		if (rename(best.buf, kept->buf))
			ret = bl_error_set(err, BL_EIO, "cannot rename '%s': %s", best.buf,
					   strerror(errno));
	}
	strbuf_release(&path);
	strbuf_release(&text);
	strbuf_release(&best);
	return ret;
}

/* Counts one run of command, the setting named what (benchmark NULL: no {benchmark} in it),
 * its files tagged after tag_name. */
static int count_one(struct bench_count *out, const struct config *cfg, const char *what,
		     const char *command, const char *worktree, const char *benchmark,
		     const char *tag_name, const char *profile_dir, struct bl_error *err)
{
	struct strbuf cmd = STRBUF_INIT, out_file = STRBUF_INIT, tag = STRBUF_INIT,
		      wrapper = STRBUF_INIT, kept = STRBUF_INIT, msg = STRBUF_INIT;
	struct child_process cp;
	const char *argv[] = {"valgrind",
			      "--tool=callgrind",
			      "--trace-children=yes",
			      NULL /* out file */,
			      "/bin/sh",
			      "-c",
			      NULL /* cmd */,
			      NULL};
	int ret;

	expand(&cmd, command, benchmark);
	file_tag(&tag, tag_name);
	strbuf_addf(&out_file, "--callgrind-out-file=%s/%s.%%p", profile_dir, tag.buf);
	argv[3] = out_file.buf;
	argv[6] = cmd.buf;
	strbuf_addf(&wrapper, "/bin/sh -c %s", cmd.buf);
	child_process_init(&cp);
	cp.argv = argv;
	cp.dir = worktree;
	cp.no_stdin = 1;
	cp.out_max = BENCH_MAX_OUTPUT;
	cp.err_tail_max = BENCH_ERR_TAIL;
	cp.timeout_ms = (int)(cfg->bench_run_timeout * 1000);
	if ((ret = child_process_run(&cp, err)))
		goto done;
	if (cp.timed_out || cp.signal || cp.exit_code) {
		size_t len = cp.err_tail.len;
		while (len && cp.err_tail.buf[len - 1] == '\n')
			len--;
		if (cp.timed_out)
			strbuf_addf(&msg, "timed out after %.0f s", cfg->bench_run_timeout);
		else if (cp.signal)
			strbuf_addf(&msg, "was killed by signal %d", cp.signal);
		else
			strbuf_addf(&msg, "exited with status %d", cp.exit_code);
		ret = bl_error_set(err, BL_EIO, "%s%s%s in '%s' %s%s%.*s", what,
				   benchmark ? " for " : "", benchmark ? benchmark : "", worktree,
				   msg.buf, len ? "; the end of its output:\n" : "", (int)len,
				   cp.err_tail.buf);
		goto done;
	}
	if (!cp.out.len) {
		ret = bl_error_set(err, BL_EIO,
				   "%s%s%s in '%s' printed nothing: a command that "
				   "ran no benchmark counts nothing%s",
				   what, benchmark ? " for " : "", benchmark ? benchmark : "",
				   worktree, benchmark ? " (does its filter match the name?)" : "");
		goto done;
	}
	if ((ret = bench_counters_read(&out->instructions, &kept, profile_dir, tag.buf, wrapper.buf,
				       err))) {
		bl_error_prefix(err, "%s%s%s", what, benchmark ? " for " : "",
				benchmark ? benchmark : "");
		goto done;
	}
	out->benchmark = xstrdup_or_null(benchmark);
	out->profile = strbuf_detach(&kept, NULL);
done:
	cp.argv = NULL;
	child_process_release(&cp);
	strbuf_release(&cmd);
	strbuf_release(&out_file);
	strbuf_release(&tag);
	strbuf_release(&wrapper);
	strbuf_release(&kept);
	strbuf_release(&msg);
	return ret;
}

int bench_counters_per_benchmark(const struct config *cfg)
{
	return cfg->counters_run && strstr(cfg->counters_run, "{benchmark}") != NULL;
}

/* mkdir -p */
static int make_dirs(const char *path, struct bl_error *err)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = 0;
	strbuf_addstr(&sb, path);
	for (size_t i = 1; i <= sb.len; i++) {
		if (sb.buf[i] != '/' && sb.buf[i] != '\0')
			continue;
		sb.buf[i] = '\0';
		if (mkdir(sb.buf, 0777) && errno != EEXIST) {
			ret = bl_error_set(err, BL_EIO, "cannot create '%s': %s", sb.buf,
					   strerror(errno));
			break;
		}
		if (i < sb.len)
			sb.buf[i] = '/';
	}
	strbuf_release(&sb);
	return ret;
}

int bench_count(struct bench_counts *out, const struct config *cfg, const char *worktree,
		const char *const *benchmarks, size_t nbenchmarks, const char *profile_dir,
		struct bl_error *err)
{
	int per = bench_counters_per_benchmark(cfg), ret;
	size_t n = per ? nbenchmarks : 1;

	bench_counts_init(out);
	if (!cfg->counters_run)
		return bl_error_set(err, BL_EINVALID,
				    "no bench.counters in benchline.json: nothing to count");
	if (per && !nbenchmarks)
		return bl_error_set(err, BL_EINVALID,
				    "bench.counters.run names {benchmark}, but bench.run reported "
				    "no benchmark to count");
	if ((ret = make_dirs(profile_dir, err)))
		return ret;
	out->v = xcalloc(n, sizeof(*out->v));
	for (size_t i = 0; i < n; i++) {
		const char *name = per ? benchmarks[i] : NULL;
		if ((ret = count_one(&out->v[out->n], cfg, "bench.counters.run", cfg->counters_run,
				     worktree, name, name, profile_dir, err))) {
			bench_counts_release(out);
			return ret;
		}
		out->n++;
	}
	return 0;
}

int bench_profile_run(struct bench_count *out, int *fixed_work, const struct config *cfg,
		      const char *worktree, const char *benchmark, const char *profile_dir,
		      struct bl_error *err)
{
	int ret;
	memset(out, 0, sizeof(*out));
	/* the counter command, unless it counts one benchmark at a time and none is named */
	int counter = cfg->counters_run && (benchmark || !bench_counters_per_benchmark(cfg));
	*fixed_work = counter;
	if (!counter && !cfg->bench_run)
		return bl_error_set(err, BL_EINVALID,
				    "no bench.counters or bench.run in benchline.json: nothing to "
				    "profile");
	if ((ret = make_dirs(profile_dir, err)))
		return ret;
	if (counter) {
		const char *name = bench_counters_per_benchmark(cfg) ? benchmark : NULL;
		return count_one(out, cfg, "bench.counters.run", cfg->counters_run, worktree, name,
				 name, profile_dir, err);
	}
	/* bench.run does every benchmark's work: its file is the benchmark's own */
	ret = count_one(out, cfg, "bench.run", cfg->bench_run, worktree, NULL, "bench.run",
			profile_dir, err);
	return ret;
}

int bench_counts_records(struct ingest_batch *out, const struct bench_counts *c,
			 const struct bench_counter_env *env, const char *commit,
			 const char *source_hash, int64_t harness_version, struct bl_error *err)
{
	struct strbuf text = STRBUF_INIT;
	char started[32];
	time_t now = time(NULL);
	struct tm tm;
	int ret = 0;

	gmtime_r(&now, &tm);
	strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%SZ", &tm);
	for (size_t i = 0; i < c->n && !ret; i++) {
		json_t *rec = json_pack(
		    "{s:i, s:s, s:s, s:I, s:{s:s, s:s}, s:s, s:{s:{s:s, s:s, s:s, s:I}}, s:O}",
		    "schema", 1, "machine", env->machine.buf, "benchmark",
		    c->v[i].benchmark ? c->v[i].benchmark : BENCH_COUNTERS_BENCHMARK,
		    "harness_version", (json_int_t)harness_version, "source", "commit", commit,
		    "source_hash", source_hash, "started_at", started, "metrics",
		    METRIC_INSTRUCTIONS, "kind", "counted", "unit", "instructions", "better",
		    "lower", "value", (json_int_t)c->v[i].instructions, "measured_on",
		    env->measured_on);
		char *s = rec ? json_dumps(rec, JSON_COMPACT) : NULL;
		if (!s) {
			ret = bl_error_set(err, BL_EINVALID, "cannot write a counter record");
		} else {
			strbuf_addstr(&text, s);
			strbuf_addch(&text, '\n');
		}
		free(s);
		json_decref(rec);
	}
	if (!ret)
		ret = adapters_parse_native(out, "the counter records", text.buf, text.len, err);
	strbuf_release(&text);
	return ret;
}

/*
 * The commands that measure (§9, §10): bench.build and bench.run, each a shell command run with
 * /bin/sh -c in a worktree through child_process_run, with its deadline; and `benchline run`'s
 * command, run as it was given.
 */
#include <math.h>
#include <string.h>

#include "ingest/config/config.h"
#include "ingest/bench/bench.h"

/* Runs script with /bin/sh -c in worktree within timeout_s seconds; cp is set up by the
 * caller for the streams. */
static int run_shell(struct child_process *cp, const char *script, const char *worktree,
		     double timeout_s, struct bl_error *err)
{
	const char *argv[] = {"/bin/sh", "-c", script, NULL};
	double ms = ceil(timeout_s * 1000);
	int ret;
	cp->argv = argv;
	cp->dir = worktree;
	cp->no_stdin = 1;
	cp->err_tail_max = BENCH_ERR_TAIL;
	cp->timeout_ms = ms < 1 ? 1 : (int)ms; /* config.c keeps it under INT_MAX */
	ret = child_process_run(cp, err);
	cp->argv = NULL; /* argv was ours */
	return ret;
}

/* "KEY exited with status N" (or was killed, or timed out), then the tail of its stderr. */
static void add_failure(struct strbuf *sb, const struct child_process *cp, const char *key,
			double timeout_s)
{
	char num[DOUBLE_TEXT_MAX];
	size_t len = cp->err_tail.len;
	if (cp->timed_out)
		strbuf_addf(sb, "%s timed out after %s s", key, format_double(num, timeout_s, 0));
	else if (cp->signal)
		strbuf_addf(sb, "%s was killed by signal %d", key, cp->signal);
	else
		strbuf_addf(sb, "%s exited with status %d", key, cp->exit_code);
	while (len && cp->err_tail.buf[len - 1] == '\n')
		len--;
	if (len) {
		strbuf_addstr(sb, "; the end of its output:\n");
		strbuf_add(sb, cp->err_tail.buf, len);
	}
}

static int failed(const struct child_process *cp)
{
	return cp->timed_out || cp->signal || cp->exit_code != 0;
}

int bench_build(double *wall_s, const struct config *cfg, const char *worktree,
		struct bl_error *err)
{
	struct child_process cp;
	struct strbuf msg = STRBUF_INIT;
	int ret;
	if (wall_s)
		*wall_s = 0;
	if (!cfg->bench_build)
		return 0;
	child_process_init(&cp);
	/* A build log can be long; only its end matters, and only when the build fails. */
	cp.stdout_to_stderr = 1;
	if ((ret = run_shell(&cp, cfg->bench_build, worktree, cfg->bench_build_timeout, err)))
		goto done;
	if (wall_s)
		*wall_s = cp.wall_s;
	if (failed(&cp)) {
		add_failure(&msg, &cp, "bench.build", cfg->bench_build_timeout);
		ret = bl_error_set(err, BL_EBUILD, "cannot build in '%s': %s", worktree, msg.buf);
	}
done:
	child_process_release(&cp);
	strbuf_release(&msg);
	return ret;
}

void bench_run_init(struct bench_run *run)
{
	memset(run, 0, sizeof(*run));
	strbuf_init(&run->out, 0);
}

void bench_run_release(struct bench_run *run)
{
	strbuf_release(&run->out);
	bench_run_init(run);
}

/* What a process that ran to a good end did, into run: its output is handed over, not copied
 * (it can be large). */
static void take(struct bench_run *run, struct child_process *cp)
{
	struct strbuf out = run->out;
	run->out = cp->out;
	cp->out = out;
	run->wall_s = cp->wall_s;
	run->cpu_s = cp->cpu_s;
	run->peak_rss_kib = cp->peak_rss_kib;
	run->exit_code = cp->exit_code;
}

int bench_run_once(struct bench_run *run, const struct config *cfg, const char *worktree,
		   struct bl_error *err)
{
	struct child_process cp;
	struct strbuf msg = STRBUF_INIT;
	int ret;
	strbuf_reset(&run->out);
	run->wall_s = run->cpu_s = 0;
	run->peak_rss_kib = 0;
	run->exit_code = 0;
	if (!cfg->bench_run)
		return bl_error_set(err, BL_EINVALID,
				    "no bench.run in benchline.json: nothing to measure");
	child_process_init(&cp);
	cp.out_max = BENCH_MAX_OUTPUT;
	if ((ret = run_shell(&cp, cfg->bench_run, worktree, cfg->bench_run_timeout, err))) {
		if (ret == BL_ETOOBIG)
			bl_error_prefix(err, "bench.run in '%s'", worktree);
		goto done;
	}
	if (failed(&cp)) {
		add_failure(&msg, &cp, "bench.run", cfg->bench_run_timeout);
		ret = bl_error_set(err, BL_EIO, "cannot measure in '%s': %s", worktree, msg.buf);
		goto done;
	}
	take(run, &cp);
done:
	child_process_release(&cp);
	strbuf_release(&msg);
	return ret;
}

int bench_run_command(struct bench_run *run, const char *const *argv, struct bl_error *err)
{
	struct child_process cp;
	int ret;
	strbuf_reset(&run->out);
	run->wall_s = run->cpu_s = 0;
	run->peak_rss_kib = 0;
	run->exit_code = 0;
	child_process_init(&cp);
	cp.argv = argv;
	cp.out_max = BENCH_MAX_OUTPUT;
	/* The benchmark shares our stdin and stderr (its progress shows as it runs, and when it
	 * fails its reason is already there) and stays in our process group, so a Ctrl-C at the
	 * terminal stops it with us; it has no time limit. */
	cp.keep_pgroup = 1;
	if ((ret = child_process_run(&cp, err)))
		goto done;
	if (cp.signal)
		ret = bl_error_set(err, BL_EIO, "'%s' was killed by signal %d; nothing stored",
				   argv[0], cp.signal);
	else if (cp.exit_code)
		ret = bl_error_set(err, BL_EIO, "'%s' exited with status %d; nothing stored",
				   argv[0], cp.exit_code);
	else
		take(run, &cp);
done:
	cp.argv = NULL; /* argv is the caller's */
	child_process_release(&cp);
	return ret;
}

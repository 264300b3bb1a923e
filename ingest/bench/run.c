/*
 * The re-bench's commands (§9): bench.build and bench.run, each a shell command run with
 * /bin/sh -c in a side's worktree through child_process_run, with its deadline.
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

int bench_run_once(struct bench_run *run, const struct config *cfg, const char *worktree,
		   struct bl_error *err)
{
	struct child_process cp;
	struct strbuf msg = STRBUF_INIT;
	int ret;
	strbuf_reset(&run->out);
	run->wall_s = run->cpu_s = 0;
	run->peak_rss_kib = 0;
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
	/* The output is handed over, not copied: it can be large. */
	{
		struct strbuf out = run->out;
		run->out = cp.out;
		cp.out = out;
	}
	run->wall_s = cp.wall_s;
	run->cpu_s = cp.cpu_s;
	run->peak_rss_kib = cp.peak_rss_kib;
done:
	child_process_release(&cp);
	strbuf_release(&msg);
	return ret;
}

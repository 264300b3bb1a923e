/*
 * confirm: measuring a Suspect again (§9). Today the re-bench's steps on a side's worktree
 * (ingest/repo's repo_worktree): building it with bench.build, running bench.run once there
 * with the process's CPU time and peak RSS, and comparing both sides' bench.artifacts, so
 * that byte-identical builds are not measured at all. rebench, bisect, confirm and triage
 * will be built on these. Commands run with /bin/sh -c in the worktree, through common/'s
 * child-process API, stdin from /dev/null, in their own process group (a timeout kills what
 * they started too). Nothing here prints or exits.
 */
#ifndef BENCHLINE_DETECT_CONFIRM_H
#define BENCHLINE_DETECT_CONFIRM_H

#include <stddef.h>
#include <stdint.h>

#include "common/common.h"

struct ingest_config;

/* The most bench.run may print on standard output (as `benchline run`). */
#define CONFIRM_MAX_OUTPUT ((size_t)256 << 20)
/* Bytes of a failing command's standard error kept for its message. */
#define CONFIRM_ERR_TAIL 2048

/*
 * Builds the worktree with cfg's bench.build (nothing to do without one: 0, *wall_s 0),
 * within bench.build_timeout. Its stdout joins its stderr, whose tail is kept. 0 when it
 * exited 0; BL_EBUILD when it cannot build (a non-zero exit, a signal, the timeout), err
 * saying "cannot build in 'WORKTREE': bench.build exited with status 2" (or "was killed by
 * signal N", "timed out after S s") and then, on the next lines, the tail of its output;
 * another negative code when it could not be run at all (BL_ENOTFOUND: no such worktree).
 * wall_s (may be NULL) receives how long it took.
 */
int confirm_build(double *wall_s, const struct ingest_config *cfg, const char *worktree,
		  struct bl_error *err);

/* What one bench.run process did. */
struct confirm_run {
	struct strbuf out;    /* its standard output: the results, in bench.format */
	double wall_s, cpu_s; /* elapsed, and user + system CPU seconds (wait4) */
	int64_t peak_rss_kib; /* peak resident set size (wait4's ru_maxrss) */
};
void confirm_run_init(struct confirm_run *run);
void confirm_run_release(struct confirm_run *run);

/*
 * Runs cfg's bench.run once in the worktree within bench.run_timeout, as one fresh process
 * (a sample of §9 is the fastest of bench.processes of these). BL_EINVALID when there is no
 * bench.run; BL_EIO when it fails (a non-zero exit, a signal, the timeout), with the tail of
 * its stderr in the message; BL_ETOOBIG over CONFIRM_MAX_OUTPUT. Earlier results in run are
 * replaced.
 */
int confirm_run_once(struct confirm_run *run, const struct ingest_config *cfg, const char *worktree,
		     struct bl_error *err);

/*
 * Whether the two worktrees' bench.artifacts are byte-identical: the regular files the globs
 * match (shell globs relative to each worktree; a directory or a pattern that matches nothing
 * adds nothing) form the same set of relative paths on both sides, and each pair has the same
 * bytes. *identical is 0 when there are no artifacts to compare (no bench.artifacts, or no
 * match on either side), so only a positive answer means "nothing can differ". why (may be
 * NULL) receives, when they are not identical, the reason ("'bench' differs", "'x.so' is only
 * in b", "no artifact matches in a"); files (may be NULL), when they are identical, the
 * number of files on each side.
 */
int confirm_artifacts_identical(int *identical, struct strbuf *why, size_t *files,
				const struct ingest_config *cfg, const char *worktree_a,
				const char *worktree_b, struct bl_error *err);

#endif

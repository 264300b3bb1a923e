/*
 * bench: measuring (§9, §10), for every command that measures (run, sweep, rebench, bisect,
 * confirm, gate --live). Building a revision in its worktree with bench.build and one process
 * of bench.run there with its CPU time and peak RSS (run.c); the byte comparison of both
 * sides' bench.artifacts, so that byte-identical builds are not measured at all (artifacts.c);
 * two revisions of one repository side by side, each checked out in its worktree (ingest/repo's
 * repo_worktree) and built once (sides.c), with one process's output parsed by bench.format's
 * adapter for a re-bench's sample. Commands run with /bin/sh -c in the worktree, through
 * common/'s child-process API, stdin from /dev/null, in their own process group (a timeout
 * kills what they started too). What the measurements mean is detect/confirm/'s. Nothing here
 * prints or exits.
 */
#ifndef BENCHLINE_INGEST_BENCH_H
#define BENCHLINE_INGEST_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "common/common.h"
#include "ingest/config/config.h"
#include "ingest/ingest.h"
#include "ingest/repo/repo.h"

/* The most bench.run may print on standard output (as `benchline run`). */
#define BENCH_MAX_OUTPUT ((size_t)256 << 20)
/* Bytes of a failing command's standard error kept for its message. */
#define BENCH_ERR_TAIL 2048

/*
 * Builds the worktree with cfg's bench.build (nothing to do without one: 0, *wall_s 0),
 * within bench.build_timeout. Its stdout joins its stderr, whose tail is kept. 0 when it
 * exited 0; BL_EBUILD when it cannot build (a non-zero exit, a signal, the timeout), err
 * saying "cannot build in 'WORKTREE': bench.build exited with status 2" (or "was killed by
 * signal N", "timed out after S s") and then, on the next lines, the tail of its output;
 * another negative code when it could not be run at all (BL_ENOTFOUND: no such worktree).
 * wall_s (may be NULL) receives how long it took.
 */
int bench_build(double *wall_s, const struct config *cfg, const char *worktree,
		struct bl_error *err);

/* What one bench.run process did. */
struct bench_run {
	struct strbuf out;    /* its standard output: the results, in bench.format */
	double wall_s, cpu_s; /* elapsed, and user + system CPU seconds (wait4) */
	int64_t peak_rss_kib; /* peak resident set size (wait4's ru_maxrss) */
};
void bench_run_init(struct bench_run *run);
void bench_run_release(struct bench_run *run);

/*
 * Runs cfg's bench.run once in the worktree within bench.run_timeout, as one fresh process
 * (a sample of §9 is the fastest of bench.processes of these). BL_EINVALID when there is no
 * bench.run; BL_EIO when it fails (a non-zero exit, a signal, the timeout), with the tail of
 * its stderr in the message; BL_ETOOBIG over BENCH_MAX_OUTPUT. Earlier results in run are
 * replaced.
 */
int bench_run_once(struct bench_run *run, const struct config *cfg, const char *worktree,
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
int bench_artifacts_identical(int *identical, struct strbuf *why, size_t *files,
			      const struct config *cfg, const char *worktree_a,
			      const char *worktree_b, struct bl_error *err);

/*
 * Two revisions of one repository measured side by side (the re-bench, §9): its settings, the
 * repository, both sides' worktrees and the commit each holds built, and how messages name the
 * sides.
 */
struct bench {
	struct strbuf root;	  /* the root of the working tree */
	const struct config *cfg; /* own_cfg, or the caller's */
	struct config own_cfg;
	struct repo *r;
	struct strbuf wt[2];  /* each side's worktree, once checked out */
	char built[2][41];    /* the commit each side holds built; "" until it is */
	const char *label[2]; /* how messages name the sides: "side a", "side b" unless set */
};

/* Opens the repository holding repo (NULL: ".") with its benchline.json: cfg when the caller has
 * read it, else the one at the working tree's root. BL_ECONFIG without bench.run. b is released
 * by bench_close, whatever this returns. */
int bench_open(struct bench *b, const char *repo, const struct config *cfg, struct bl_error *err);
void bench_close(struct bench *b);

/* The side's worktree with sha (40 hex digits) checked out and built, once: a side already built
 * at sha is left alone. BL_EBUILD when it cannot be built; errors are prefixed by the side's label
 * and the commit. build_s (may be NULL) receives how long bench.build took. */
int bench_side(struct bench *b, enum repo_side side, const char *sha, double *build_s,
	       struct bl_error *err);

/*
 * One process of bench.run in the side's worktree (bench_run_once) and the records it printed,
 * parsed by bench.format's adapter ("bench.run's output" in messages) with what the output
 * lacks from d: the re-bench's sample, not records to store, so nothing is completed from the
 * repository and nothing is annotated. Records are appended to out; run keeps the process's
 * figures.
 */
int bench_side_run(struct ingest_batch *out, struct bench_run *run, struct bench *b,
		   enum repo_side side, const struct ingest_defaults *d, struct bl_error *err);

#endif

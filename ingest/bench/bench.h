/*
 * bench: measuring (§9, §10), for every command that measures: run, sweep, rebench, bisect,
 * confirm and gate --live. Building a revision in its worktree with bench.build, one process
 * of bench.run there (or of `benchline run`'s command) with its CPU time and peak RSS
 * (run.c); the byte comparison of both sides' bench.artifacts, so that byte-identical builds
 * are not measured at all (artifacts.c); two revisions of one repository side by side, each
 * checked out in its worktree (ingest/repo's repo_worktree) and built once, and one process's
 * output there parsed for a re-bench's sample (sides.c); one run of a benchmark and its
 * records, the way `benchline run` and each process of a sweep measure: preflight, the
 * command, its output parsed through the intake, the "preflight" and "process" annotations
 * (records.c); the nightly sweep's measuring of main's new sources (sweep.c); and
 * benchline's own reader of the callgrind format, which the deterministic counters total and
 * the profiles of §9.7 rank (callgrind.c); the deterministic counters of §9.6, bench.counters
 * run under callgrind (counters.c). Commands
 * run with /bin/sh -c in the worktree, through common/'s child-process API, stdin from
 * /dev/null, in their own process group (a timeout kills what they started too), but for
 * `benchline run`'s, which runs as given. What the measurements mean is detect/confirm/'s.
 * Nothing here prints or exits.
 */
#ifndef BENCHLINE_INGEST_BENCH_H
#define BENCHLINE_INGEST_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "common/common.h"
#include "ingest/config/config.h"
#include "ingest/ingest.h"
#include "ingest/preflight/preflight.h"
#include "ingest/repo/repo.h"

struct store;

/* The most bench.run, or `benchline run`'s command, may print on standard output. */
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
	int exit_code;	      /* its exit status (0: only a process that exited 0 is kept) */
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
 * Runs argv as it was given, once (`benchline run`'s command): it shares our stdin and stderr
 * and stays in our process group, with no time limit, its standard output capped at
 * BENCH_MAX_OUTPUT. BL_EIO when it exits non-zero or is killed ("'ARGV0' exited with status
 * N; nothing stored": it gives no records); BL_ENOTFOUND when there is no such program. Earlier
 * results in run are replaced.
 */
int bench_run_command(struct bench_run *run, const char *const *argv, struct bl_error *err);

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

/* --- One run of a benchmark and its records (records.c) --- */

/* What one run did: its records and how they were measured. */
struct bench_records {
	struct ingest_batch batch; /* its records, each annotated */
	struct bench_run run;	   /* the process: its output, wall and CPU time, peak RSS */
	struct preflight pf;	   /* what the last preflight found */
	int preflighted;	   /* a preflight was made (pf holds its answer) */
};
void bench_records_init(struct bench_records *r);
void bench_records_release(struct bench_records *r);

struct bench_records_request {
	/* Parses the output: set up (ingest_intake_setup), with its format, the flags that fill
	 * what the format lacks, benchline.json (in->cfg: the quiet limits, bench.run) and HEAD. */
	struct ingest_intake *in;
	/* The command: argv as it was given (bench_run_command, `benchline run`); NULL: in->cfg's
	 * bench.run with /bin/sh -c in dir (bench_run_once, each process of a sweep). */
	const char *const *argv;
	const char *dir;
	const char *name;    /* names the output in messages */
	const char *results; /* the file or criterion directory the command wrote its results to,
				read once it ends; NULL: its standard output */
	int no_preflight;    /* measure without checking the machine (the records carry none) */
	double wait_quiet_s; /* a busy machine's preflight is retried for this long, then it is
				measured anyway (its records tagged) */
	/* "the machine is busy (REASON): waiting to measure", before each retry; NULL: none. */
	void (*note)(const char *line, void *data);
	/* What the preflight found, told before the command starts; NULL: nothing. */
	void (*preflight)(const struct preflight *pf, void *data);
	void *data;
};

/*
 * One run of a benchmark and its records, as `benchline run` and each process of a sweep make
 * them: the preflight (preflight_check, with in->cfg's limits), the command, its CPU time and
 * peak RSS, its output (or the results file) parsed through the intake (ingest_intake_parse,
 * ingest_intake_read) with started_at the moment the command started, and on each record the
 * preflight's answer under "preflight" (when one was made: a busy machine's records are then
 * tagged) and {"argv", "exit", "wall_s", "cpu_s", "peak_rss_kib"} under "process". out is as
 * bench_records_init leaves it. Nothing is stored: out->batch is the caller's to store or push.
 * A command that fails gives no records (BL_EIO, as bench_run_command or bench_run_once say).
 */
int bench_records(struct bench_records *out, const struct bench_records_request *req,
		  struct bl_error *err);

/* --- `benchline sweep` (sweep.c): main's unmeasured sources built, run and delivered --- */

#define BENCH_SWEEP_NTAGS 6
/* The i-th tag the summary counts (§5): dirty, profile, not-main, preflight, noisy,
 * superseded. */
const char *bench_sweep_tag_name(size_t i);

/* One commit swept, for progress. */
struct bench_sweep_step {
	size_t index, total; /* 1-based, of the commits to measure */
	char commit[41];
	const char *subject;
	double build_s, run_s; /* bench.build, and every bench.run process together */
	size_t processes;
	size_t runs;	/* the processes printed: a run per benchmark per process */
	size_t counted; /* benchmarks bench.counters counted (§9.6), their runs among runs */
	int unbuildable;
	const char *why; /* when unbuildable: the build's error */
};
/* What a sweep did. */
struct bench_sweep_result {
	size_t candidates; /* distinct sources looked at */
	size_t already;	   /* of which this machine had a clean record of */
	size_t measured, unbuildable;
	size_t runs;	/* stored (a re-delivered run counts nothing) */
	size_t records; /* keys whose standing run (§1's record) is now one of those runs */
	size_t joined;	/* of which stand on their Series */
	size_t tagged;	/* of which a tag keeps off it */
	size_t tagged_by[BENCH_SWEEP_NTAGS];
	char *busy_why; /* the first preflight failure, when the machine was busy */
};
struct bench_sweep_request {
	const char *repo;     /* a directory inside the main checkout; NULL: "." */
	const char *machine;  /* this machine */
	const char *since;    /* every source after this revision; NULL: the newest `last` */
	size_t last;	      /* 0: 1, tonight's main */
	long harness_version; /* the records' when bench.format lacks one; -1: benchline.json's
				 "harness_version", else 1 */
	int no_preflight;
	double wait_quiet_s; /* retry a busy preflight for this long before measuring anyway */
	/* With a store, the sweep syncs main, asks it which sources are measured and stores the
	 * records. Without one (a sweep machine pushing to a server), measured and deliver
	 * answer those. */
	int (*measured)(int *yes, const char *source_hash, void *data, struct bl_error *err);
	int (*deliver)(struct bench_sweep_result *counts, const char *name,
		       struct ingest_intake *in, struct ingest_batch *batch, void *data,
		       struct bl_error *err);
	void (*progress)(const struct bench_sweep_step *step, void *data);
	void (*note)(const char *line, void *data);
	void *data;
};
/*
 * Sweeps main (§10): with a store, syncs its history first; picks main's newest `last`
 * distinct sources (or every one after `since`), newest first, each at the commit that made it
 * (repo_source_first_commit: never a docs-only commit after it; the root is one too), and
 * drops those this machine has a clean record of; for each left, checks it out in side a's
 * worktree, builds it (one that cannot be built is counted and skipped), and runs bench.run
 * bench.processes times, each one run and its records (bench_records: the preflight, the
 * process, its output parsed by bench.format's adapter into records of that commit, with its
 * source hash, commit time and main's branch, annotated with "preflight" and "process"), each
 * process's records delivered. Detection and confirmation are the caller's next steps
 * (`benchline sweep`, cli/cmd_sweep.c).
 */
int bench_sweep(struct bench_sweep_result *out, struct store *st,
		const struct bench_sweep_request *req, struct bl_error *err);
void bench_sweep_result_release(struct bench_sweep_result *r);

/* ------------------------------------------------------------------------------------------
 * Shared by the files of ingest/bench/ only.
 */

/* --- Deterministic counters (§9.6, counters.c) --- */

/* The benchmark of counter records: the benchmark's own name when the command holds
 * {benchmark}, else this one; the metric is always METRIC_INSTRUCTIONS. */
#define BENCH_COUNTERS_BENCHMARK "bench.counters"

/* What moves a count besides the code, probed once: the machine key counter records are
 * stored under ("callgrind-<valgrind version>-<first 8 hex of the libc's SHA-256>"), the
 * measured_on object they carry (valgrind, the libc's path and digest, the guest CPU, the
 * compiler's --version line, CFLAGS, CXXFLAGS, LDFLAGS, build_stamp) and the build stamp, a
 * digest of it all. */
struct bench_counter_env {
	struct strbuf machine;
	struct strbuf valgrind; /* "valgrind-3.19.0" */
	char build_stamp[65];	/* 16 hex digits */
	struct json_t *measured_on;
};
void bench_counter_env_init(struct bench_counter_env *env);
void bench_counter_env_release(struct bench_counter_env *env);
/* BL_ENOTFOUND, naming the package, when valgrind is not installed. */
int bench_counter_env_probe(struct bench_counter_env *env, struct bl_error *err);

/* One count: a benchmark's (NULL: the whole command's) instructions, and the callgrind file
 * kept for §9.7 (the busiest process's). */
struct bench_count {
	char *benchmark;
	uint64_t instructions;
	char *profile;
};
struct bench_counts {
	struct bench_count *v;
	size_t n;
};
void bench_counts_init(struct bench_counts *c);
void bench_counts_release(struct bench_counts *c);
/* Whether bench.counters.run holds {benchmark} (a count per benchmark). */
int bench_counters_per_benchmark(const struct config *cfg);
/*
 * Runs bench.counters.run in the worktree under valgrind --tool=callgrind (children traced;
 * the /bin/sh that runs it left out of the count), once per benchmark of benchmarks[0..n) when
 * it holds {benchmark} (the shell-quoted name put in its place), else once; the callgrind files
 * go to profile_dir (created). A command that fails, times out (bench.run_timeout) or prints
 * nothing is BL_EIO with its exit status and the end of its stderr, and nothing is counted.
 */
int bench_count(struct bench_counts *out, const struct config *cfg, const char *worktree,
		const char *const *benchmarks, size_t nbenchmarks, const char *profile_dir,
		struct bl_error *err);
/* Totals the callgrind files DIR/PREFIX.* but the one whose cmd: is wrapper_cmd (removed);
 * keeps the busiest as DIR/PREFIX.out (its path into kept, may be NULL) and removes the rest.
 * A file that is not callgrind's is BL_EINVALID with its line. */
int bench_counters_read(uint64_t *total, struct strbuf *kept, const char *dir, const char *prefix,
			const char *wrapper_cmd, struct bl_error *err);
/* Where bench_count keeps benchmark's (NULL: the whole command's) callgrind file in
 * profile_dir, DIR/NAME-DIGEST.out, so a later gate finds a reused side's profile again. */
void bench_profile_path(struct strbuf *out, const char *profile_dir, const char *benchmark);
/*
 * One callgrind run for §9.7's profile of benchmark on a side: bench.counters.run for it when
 * there is one (fixed_work set), else (or for no benchmark, NULL, when the counter command
 * takes one) bench.run, whose work is not fixed; the file kept under
 * profile_dir (out->profile), the instructions counted. Errors as bench_count's.
 */
int bench_profile_run(struct bench_count *out, int *fixed_work, const struct config *cfg,
		      const char *worktree, const char *benchmark, const char *profile_dir,
		      struct bl_error *err);
/* The counts as native records (§9.6): machine env's key, the benchmark, the metric
 * instructions (counted, lower is better), measured_on; appended to out. */
int bench_counts_records(struct ingest_batch *out, const struct bench_counts *c,
			 const struct bench_counter_env *env, const char *commit,
			 const char *source_hash, int64_t harness_version, struct bl_error *err);

/* One function of a callgrind profile: its cost in the first event (Ir, instructions), in its
 * own code and with everything it called, summed over every part of the file. */
struct bench_profile_fn {
	char *name, *file, *object; /* "???" where callgrind did not know */
	uint64_t self, inclusive;
};

/* A callgrind file as bench_profile_parse read it. */
struct bench_profile {
	char **events; /* the events: line's names; events[0] is what the costs count */
	size_t nevents, events_alloc;
	uint64_t total; /* the first event's total: totals: or summary:, else every self cost */
	int has_total;	/* the file said it (a file without one is summed) */
	char *cmd;	/* the cmd: line, NULL when none */
	struct bench_profile_fn *fns;
	size_t nfns, fns_alloc;
};
void bench_profile_init(struct bench_profile *p);
void bench_profile_release(struct bench_profile *p);
/*
 * Reads a callgrind file's bytes (file names it in messages). BL_EINVALID, with
 * "FILE:LINE: what is wrong", for anything the format does not allow (a cost line before
 * events: or fn=, a name used before it is given, a calls= without its cost line, a number
 * that is not one); nothing is kept then.
 */
int bench_profile_parse(struct bench_profile *out, const char *file, const char *data, size_t len,
			struct bl_error *err);

#endif

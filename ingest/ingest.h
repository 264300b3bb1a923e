/*
 * ingest: the record model (§2), the native parser, the key rule and tags (§1, §5), the
 * source hash and commit sync (§3), and benchline.json. Nothing here prints or exits.
 */
#ifndef BENCHLINE_INGEST_H
#define BENCHLINE_INGEST_H

#include <stddef.h>
#include <stdint.h>

#include "../common/common.h"

struct store;

/* Caps on what a record may carry (§2). */
#define INGEST_MAX_STRING  4096
#define INGEST_MAX_SAMPLES 1000000
/* Largest file `ingest` reads. */
#define INGEST_MAX_FILE ((size_t)1 << 30)
/* Default p95/median at or over which a run is tagged noisy (§4). */
#define INGEST_NOISY_LIMIT 1.06

enum ingest_kind { INGEST_TIMED, INGEST_COUNTED, INGEST_QUANTILE };

struct ingest_metric {
	char *name;
	enum ingest_kind kind;
	char *unit;
	int better_higher; /* 1 when higher is better */
	double median;	   /* NAN when absent (counted, quantile) */
	double p95;	   /* NAN when absent */
	double value;	   /* counted and quantile metrics; NAN when absent */
	int64_t n;	   /* number of measurements, -1 when absent */
	double *samples;   /* NULL when none */
	size_t nsamples;
	char *ladder; /* quantile metrics: the ladder's name, else NULL */
};

struct ingest_record {
	char *machine;
	char *machine_info; /* compact JSON object, or NULL */
	char *benchmark;
	char *config;	    /* "" by default */
	char *content_hash; /* NULL when absent */
	int64_t harness_version;
	char commit[41];
	char source_hash[41]; /* "" when the file left it out */
	char *branch;	      /* NULL when absent */
	double committed_at;  /* seconds since the epoch, NAN when absent */
	int dirty;
	char *profile; /* "release" by default */
	double started_at;
	int baseline;
	char *primary; /* the primary metric's name (defaulted to the first timed by name) */
	int has_preflight;
	int preflight_quiet;
	struct ingest_metric *metrics; /* sorted by name */
	size_t nmetrics;
	char *raw;	  /* the record as canonical JSON (sorted keys, compact) */
	char digest[41];  /* SHA-1 of raw: the run's identity for idempotent re-ingest */
	int line, column; /* where the record starts in its file (1-based), for messages */
};

struct ingest_batch {
	struct ingest_record *records;
	size_t nr, alloc;
};

void ingest_record_release(struct ingest_record *rec);
void ingest_batch_release(struct ingest_batch *batch);

/*
 * Parses native records (§2): one object, an array of objects, or one object per line.
 * name is the file name used in messages. On failure err says "NAME:LINE:COLUMN: message"
 * and nothing is appended to out.
 */
int ingest_parse_native(struct ingest_batch *out, const char *name, const char *text, size_t len,
			struct bl_error *err);

struct json_t;
/* Fills the record's canonical raw JSON (sorted keys, compact) and its digest. obj is the
 * validated object the record came from (unknown keys kept); NULL builds the JSON from the
 * record's fields, for producers without a source object (adapters, the demo). Sorts the
 * metrics by name and defaults primary. */
int ingest_record_finish(struct ingest_record *rec, const struct json_t *obj, struct bl_error *err);

/* Sets key to value at the top level of the record's raw JSON (value's reference is taken)
 * and recomputes the digest: how `run` attaches its preflight and process figures and how
 * import-baseline marks a Baseline. The caller keeps the parsed fields in step. */
int ingest_record_annotate(struct ingest_record *rec, const char *key, struct json_t *value,
			   struct bl_error *err);

/*
 * The key rule (§1): whether a new run displaces the standing run of its key. A machine with
 * keep "first" keeps the standing run. A run with a quality tag (dirty, profile, preflight,
 * noisy) never displaces one without; otherwise the quieter (lower p95/median of the
 * primary metric, NAN when unknown) stands, a known figure beats an unknown one, and a tie
 * keeps the standing run.
 */
int ingest_new_run_stands(int keep_first, int old_flawed, double old_quietness, int new_flawed,
			  double new_quietness);

/* p95/median of the record's primary metric, NAN when either is unknown. */
double ingest_quietness(const struct ingest_record *rec);

/* What ingest_store did with one record. */
enum ingest_outcome {
	INGEST_STANDS,	   /* stored, and it is its key's record */
	INGEST_SUPERSEDED, /* stored, another run holds the key */
	INGEST_DUPLICATE,  /* the same run was already stored: nothing new */
};

struct ingest_options {
	double noisy_limit; /* 0 for INGEST_NOISY_LIMIT */
};

/*
 * Stores a parsed batch in one transaction: every record, or (on any error) none. outcomes
 * (may be NULL) receives one entry per record, and run_ids the run each record became.
 */
int ingest_store(struct store *st, struct ingest_batch *batch, const struct ingest_options *opts,
		 enum ingest_outcome *outcomes, int64_t *run_ids, struct bl_error *err);

/*
 * benchline.json (§3), at the root of the benchmarked repository. Unknown keys and wrong
 * types are errors naming the file and the key.
 */
struct ingest_config {
	char **measured_paths; /* NULL when not listed: every top-level path is measured */
	size_t n_measured;
	char **unmeasured_paths;
	size_t n_unmeasured;
	char *main_branch;	/* NULL: origin/HEAD's branch, then main, then master */
	char *primary_metric;	/* NULL when not set */
	double noisy_limit;	/* quiet.max_p95_ratio, default INGEST_NOISY_LIMIT */
	double cpu_load_pct;	/* quiet.cpu_load_pct, default 10 */
	double gpu_load_pct;	/* quiet.gpu_load_pct, default 10 */
	char **quiet_processes; /* quiet.processes: benchmark processes that make a machine busy */
	size_t n_quiet_processes;
	char **keep_first_machines; /* machines with {"keep": "first"} */
	size_t n_keep_first;
	char *path; /* where it was read from, NULL when the repository has none */
	/* The gate (§7): "gate": {"limit": 1.02, "overrides": {GLOB: PCT}, "exclude": [GLOB]}. */
	double gate_limit;	    /* 0 when not set */
	char **gate_override_globs; /* in the file's order: the first match wins */
	double *gate_override_pct;  /* the limit in percent above 1, per glob */
	size_t n_gate_overrides;
	char **gate_excludes;
	size_t n_gate_excludes;
	/* "counted_tolerance": {METRIC: PCT}: how far a counted metric may grow. */
	char **counted_names;
	double *counted_pct;
	size_t n_counted;
	/* "ladders": {NAME: {"unit", "edges"}}, kept as JSON for detect_ladders_from_json. */
	struct json_t *ladders;
};

void ingest_config_init(struct ingest_config *cfg);
void ingest_config_release(struct ingest_config *cfg);
/* Reads repo_dir/benchline.json from the working tree; defaults when there is none. */
int ingest_config_load(struct ingest_config *cfg, const char *repo_dir, struct bl_error *err);
/* Parses config text (name is used in messages). */
int ingest_config_parse(struct ingest_config *cfg, const char *name, const char *text, size_t len,
			struct bl_error *err);

/*
 * Source hash (§3) of each revision: out_hashes[i] and out_commits[i] receive 40 hex digits
 * each. Opens the repository read-only; never writes to it.
 */
int ingest_source_hash_revs(char (*out_hashes)[41], char (*out_commits)[41], const char *repo_dir,
			    const struct ingest_config *cfg, const char *const *revs, size_t nrevs,
			    struct bl_error *err);

/* Top-level paths of HEAD that are in neither list (§3). *out is a NULL-terminated array the
 * caller frees with ingest_free_strings. */
int ingest_paths_unclassified(char ***out, size_t *nr, const char *repo_dir,
			      const struct ingest_config *cfg, struct bl_error *err);
void ingest_free_strings(char **strings, size_t nr);

/* A benchmark command's run (`benchline run`). */
#define INGEST_RUN_ERR_TAIL 4096 /* bytes of standard error kept */
struct ingest_run {
	struct strbuf out;	/* standard output, at most max_output bytes */
	struct strbuf err_tail; /* the last INGEST_RUN_ERR_TAIL bytes of standard error */
	int exit_code;		/* when it exited */
	int signal;		/* the signal that ended it, else 0 */
	double wall_s, cpu_s;	/* elapsed and user + system CPU seconds */
	int64_t peak_rss_kib;	/* peak resident set size (wait4's ru_maxrss) */
};

/* Runs argv (looked up in PATH) to its end. Returns 0 when it could be run, whatever its exit
 * status; BL_ETOOBIG when its output is over max_output. */
int ingest_run_command(struct ingest_run *out, const char *const *argv, size_t max_output,
		       struct bl_error *err);
void ingest_run_release(struct ingest_run *run);

/* What HEAD of a repository is, for records whose format does not say (--repo). */
struct ingest_head {
	char commit[41];
	char source_hash[41];
	char branch[256]; /* "" when HEAD is detached */
	double committed_at;
	int dirty; /* the measured paths differ from HEAD in the index or working tree */
};
int ingest_repo_head(struct ingest_head *out, const char *repo_dir, const struct ingest_config *cfg,
		     struct bl_error *err);

struct ingest_sync_result {
	size_t walked;	  /* commits read from the repository in this run */
	size_t total;	  /* commits of main now stored */
	int rewritten;	  /* 1 when main was rewritten and commits past the fork were dropped */
	char tip[41];	  /* main's tip */
	char branch[256]; /* the main branch's name */
};

/* Walks main's first-parent history into the store, only commits not already there (§3),
 * then refreshes every run's not-main tag. */
int ingest_sync(struct ingest_sync_result *out, struct store *st, const char *repo_dir,
		const struct ingest_config *cfg, struct bl_error *err);

/* The pull request number a subject names ("... (#123)" or "Merge pull request #123"),
 * else 0. */
long ingest_pr_from_subject(const char *subject);

/*
 * The demo history (§2 issue): machines, benchmarks, configs, a few hundred commits, harness
 * bumps, an imported Baseline, planted steps, noisy and dirty runs. Deterministic for a seed.
 */
struct ingest_demo_summary {
	size_t commits, runs, machines, benchmarks;
};
int ingest_demo(struct ingest_demo_summary *out, struct store *st, unsigned long seed,
		struct bl_error *err);

/*
 * The gate's view of a repository (§7), read-only through libgit2: revisions resolved with
 * their source hashes, merge bases, files at a revision, and first-parent history walked
 * lazily, one source hash at a time.
 */
struct ingest_repo;
int ingest_repo_open(struct ingest_repo **out, const char *repo_dir,
		     const struct ingest_config *cfg, struct bl_error *err);
void ingest_repo_free(struct ingest_repo *r);
/* Resolves rev (NULL: the main branch, §3) to a commit and its source hash; name_out (may be
 * NULL) receives rev, or the main branch's name. */
int ingest_repo_resolve(char sha_out[41], char source_out[41], struct strbuf *name_out,
			struct ingest_repo *r, const char *rev, struct bl_error *err);
/* The merge base of two commits (full ids) and its source hash. */
int ingest_repo_merge_base(char sha_out[41], char source_out[41], struct ingest_repo *r,
			   const char *a, const char *b, struct bl_error *err);
/* The root of the working tree holding dir (dir itself for a bare repository), so settings and
 * files at "the repository's root" are found from any directory inside it. */
int ingest_repo_toplevel(struct strbuf *out, const char *dir, struct bl_error *err);
/* The commit the working directory has checked out: 1, or 0 (sha_out "") when none. */
int ingest_repo_checkout(char sha_out[41], struct ingest_repo *r);
/* The working directory (with a trailing slash), NULL for a bare repository. */
const char *ingest_repo_workdir(struct ingest_repo *r);
/* Appends the file at path in commit's tree to out; *found 0 when there is none. */
int ingest_repo_read_file(struct strbuf *out, int *found, struct ingest_repo *r,
			  const char *commit_sha, const char *path, size_t cap,
			  struct bl_error *err);

/* A commit's first-parent history as distinct source hashes, newest first. */
struct ingest_history;
int ingest_history_open(struct ingest_history **out, struct ingest_repo *r, const char *commit_sha,
			size_t max_commits, struct bl_error *err);
/* The i-th distinct source hash back from the start (0: the start's own) and the newest
 * commit with it: 0, 1 past the root or max_commits, or a negative error. */
int ingest_history_get(const char **source_out, const char **commit_out, struct ingest_history *h,
		       size_t i, struct bl_error *err);
void ingest_history_free(struct ingest_history *h);

#endif

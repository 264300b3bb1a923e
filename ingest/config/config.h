/*
 * config: benchline.json (§3), the benchmarked repository's settings, read from the root of its
 * working tree (or HEAD's tree, for a bare repository) through libgit2 (config.c). Strict: a
 * key this version does not know, or a value of the wrong type, is an error naming the file and
 * the key. Also the one rule of §10's "one machine name per checkout": which checkout's
 * benchline.json a command reads (--repo, else the repository holding the current directory),
 * and each setting taken from its flag, else benchline.json, else its default, with where it
 * came from (config_resolve). Below every room that reads the settings: it includes none of
 * them. Nothing here prints or exits.
 */
#ifndef BENCHLINE_INGEST_CONFIG_H
#define BENCHLINE_INGEST_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "common/common.h"

struct json_t;

/* Default p95/median at or over which a run is tagged noisy (§4). */
#define CONFIG_NOISY_LIMIT 1.06
/* The largest limit a gate, a re-bench or a bisection takes (gate.limit, --limit): a metric
 * may grow tenfold. Past it (1e308, inf) no shift could ever be slower (§13: refused). */
#define CONFIG_LIMIT_MAX 10.0
/* Default of quiet.min_samples: the fewest measurements behind a p95 for the noisy limit to
 * apply. With fewer, a nearest-rank p95 is the slowest repetition or next to it, and one slow
 * repetition would tag the whole run. */
#define CONFIG_MIN_SAMPLES 10
/* The largest quiet.min_samples: the most samples a record may carry (ingest.h's
 * INGEST_MAX_SAMPLES, which ingest.c checks is the same number). */
#define CONFIG_MAX_MIN_SAMPLES 1000000
/* The harness version of records whose format names none, when neither --harness-version nor
 * benchline.json's "harness_version" gives one (§10). */
#define CONFIG_HARNESS_VERSION 1
/* The re-bench's defaults (§9): seconds a build and one benchmark process may take, and the
 * fresh processes of one sample. */
#define CONFIG_BENCH_TIMEOUT   600
#define CONFIG_BENCH_PROCESSES 3
/* §9.6: an instruction count may grow 1% before it fails a gate; §6 judges instruction
 * Series with a floor of 0.5% instead of 3%. */
#define CONFIG_COUNTER_TOLERANCE 0.01
#define CONFIG_COUNTER_FLOOR	 0.005

/*
 * benchline.json (§3), at the root of the benchmarked repository. Unknown keys and wrong
 * types are errors naming the file and the key.
 */
struct config {
	char **measured_paths; /* NULL when not listed: every top-level path is measured */
	size_t n_measured;
	char **unmeasured_paths;
	size_t n_unmeasured;
	char *main_branch; /* NULL: origin/HEAD's branch, then main, then master */
	char *machine;	   /* "machine": this checkout's machine name (§10); NULL: unset */
	/* "harness_version": the records' when their format names none (§10); -1: unset, the
	 * default CONFIG_HARNESS_VERSION applies */
	int64_t harness_version;
	/* "server": the benchline server records are pushed to (§10's fleet), an http:// or
	 * https:// URL; "token_file": its bearer token's file, absolute or under "~/". NULL:
	 * unset. */
	char *server;
	char *token_file;
	/* "repo_url": the repository's web page, an http:// or https:// URL kept without a
	 * trailing '/'; the server's pages link commits to REPO_URL/commit/SHA and pull requests
	 * to REPO_URL/pull/N. NULL: unset, no links. */
	char *repo_url;
	char *primary_metric;  /* NULL when not set */
	char **judged_metrics; /* "metrics": what detect judges; NULL: every timed metric */
	size_t n_judged_metrics;
	double noisy_limit;  /* quiet.max_p95_ratio, default CONFIG_NOISY_LIMIT */
	int64_t min_samples; /* quiet.min_samples, default CONFIG_MIN_SAMPLES */
	double cpu_load_pct; /* quiet.cpu_load_pct, default 10 */
	double gpu_load_pct; /* quiet.gpu_load_pct, default 10 */
	/* quiet.transient_records: a Suspect back inside its band within this many records is
	 * transient (§9.1); 1 to 8 (detection follows a Suspect over its window of 8), 0 when
	 * benchline.json does not say (detect's default, 2) */
	int transient_records;
	/* The change-point pass of §6.1: quiet.change_points (1, the default, or 0),
	 * quiet.change_penalty (the factor of the penalty per change; 0 when benchline.json does
	 * not say: detect's default) and quiet.change_min_shift (how much worse a new level must
	 * be, a fraction; negative when not said: detect's default). */
	int change_points;
	double change_penalty, change_min_shift;
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
	/* "ladders": {NAME: {"unit", "edges"}}, kept as JSON for ladder_set_from_json. */
	struct json_t *ladders;
	/* The re-bench (§9): "bench": {"build", "build_timeout", "run", "format", "processes",
	 * "run_timeout", "artifacts"}. */
	char *bench_build;	    /* shell command run in a worktree; NULL: nothing to build */
	double bench_build_timeout; /* seconds, default CONFIG_BENCH_TIMEOUT */
	char *bench_run;	    /* shell command that prints results; NULL when not set */
	char *bench_format;	    /* a format's name (result_format_parse); NULL: "auto" */
	long bench_processes;	    /* fresh processes per sample, default CONFIG_BENCH_PROCESSES */
	double bench_run_timeout;   /* seconds per process, default CONFIG_BENCH_TIMEOUT */
	char **bench_artifacts;	    /* globs relative to a worktree; NULL when not set */
	size_t n_bench_artifacts;
	/* Deterministic counters (§9.6): "bench": {"counters": {"run": COMMAND, "tool":
	 * "callgrind"}}: COMMAND, run under callgrind in a worktree, once per benchmark when it
	 * holds {benchmark}; NULL when not set. */
	char *counters_run;
	/* "gate": {"counter_tolerance": PCT}: how far an instruction count may grow before it
	 * fails, as a fraction (default CONFIG_COUNTER_TOLERANCE). */
	double counter_tolerance;
	/* "quiet": {"counter_floor": PCT}: the band's floor for instruction Series (§6), as a
	 * fraction, instead of 3% (default CONFIG_COUNTER_FLOOR). */
	double counter_floor;
};

void config_init(struct config *cfg);
void config_release(struct config *cfg);
/* Reads repo_dir/benchline.json from the working tree; defaults when there is none. */
int config_load(struct config *cfg, const char *repo_dir, struct bl_error *err);
/* Parses config text (name is used in messages). */
int config_parse(struct config *cfg, const char *name, const char *text, size_t len,
		 struct bl_error *err);
/*
 * True when no directory from dir (absolute) up to / holds a `.git` or a `HEAD`: no git
 * repository can hold dir, since libgit2 finds one through a working tree's `.git` or a
 * repository directory's own `HEAD`. config_load_checkout asks it before starting libgit2,
 * which costs 7 ms on Debian (mbedTLS parses the whole CA bundle): a `detect` or `suspects`
 * run from a data directory would pay that for nothing. Anything doubtful (a relative dir, a
 * name that cannot be looked at) answers false, and libgit2 decides.
 */
int config_surely_outside_repositories(const char *dir);
/*
 * The benchline.json of the checkout a command works in (§10): repo's (--repo) when it is given;
 * else, when the current directory is inside a git repository, the one at the root of its
 * working tree; else none (cfg keeps the defaults). root receives the directory the settings
 * were looked for in (repo, or the working tree's root; nothing when none), which is also
 * where the command's HEAD is. A repository without benchline.json is found all the same (its
 * root is given; cfg->path stays NULL).
 */
int config_load_checkout(struct config *cfg, struct strbuf *root, const char *repo,
			 struct bl_error *err);

/* Where a setting's value came from (§10: flag > benchline.json > default). */
enum config_from {
	CONFIG_FROM_NONE,    /* nowhere: no value (a format's own may still give one) */
	CONFIG_FROM_FLAG,    /* the command line (or a push's query) */
	CONFIG_FROM_FILE,    /* benchline.json */
	CONFIG_FROM_DEFAULT, /* the default: harness version 1, format auto */
	CONFIG_FROM_HOST,    /* the host name */
};

/* What the command line gave. */
struct config_flags {
	const char *machine;  /* --machine; NULL: not given */
	long harness_version; /* --harness-version; -1: not given */
	const char *format;   /* --format; NULL: not given */
};

/* Which defaults a command takes beyond the flags, benchline.json and harness version 1. */
enum {
	/* No machine from a flag or benchline.json: the host name (a command that measures here
	 * and now: run, sweep, confirm, bisect). Without it the machine may stay unset, for a
	 * format's own (gbench's host_name, pytest's node) to give. */
	CONFIG_HOST_MACHINE = 1,
	/* No --format: bench.format, the format of what bench.run prints (a command that parses a
	 * benchmark's output: run, sweep); without it, auto. */
	CONFIG_BENCH_FORMAT = 2,
};

/* The settings resolved: each value and where it came from. */
struct config_settings {
	char machine[65]; /* "" when machine_from is CONFIG_FROM_NONE */
	enum config_from machine_from;
	int64_t harness_version;
	enum config_from harness_from;
	const char *format; /* points into the flags, cfg or a constant */
	enum config_from format_from;
};

/*
 * The one rule of §10: each setting from its flag, else cfg's (benchline.json; cfg may be NULL),
 * else its default (how: CONFIG_HOST_MACHINE, CONFIG_BENCH_FORMAT). The machine, from wherever
 * it comes, is checked to be a machine name (§1): BL_EINVALID saying which, naming the flag or
 * asking for one. The format's name is not checked here (the intake checks it).
 */
int config_resolve(struct config_settings *out, const struct config_flags *flags,
		   const struct config *cfg, unsigned how, struct bl_error *err);
/* Where a setting came from, for a message: --machine, "machine" in PATH/benchline.json, the
 * host name, the default (what config_from_phrase appends). flag and key name the setting
 * ("--machine", "machine"); cfg (may be NULL) names the file. */
void config_from_phrase(struct strbuf *out, enum config_from from, const char *flag,
			const char *key, const struct config *cfg);

/* The machine a command measures on: config_resolve's with CONFIG_HOST_MACHINE (flag, else cfg's
 * "machine", else the host name), appended to out. BL_EINVALID when the flag or the host name
 * is not a machine name (§1). */
int config_machine(struct strbuf *out, const char *flag, const struct config *cfg,
		   struct bl_error *err);

#endif

/*
 * gate: the pull-request verdict (§7). gate.c reaches it from stored records, report.c writes
 * it out (table, JSON, Markdown) and decides what `gate accept` records in the lock.
 * docs/gate.md explains the rules.
 */
#ifndef BENCHLINE_DETECT_GATE_H
#define BENCHLINE_DETECT_GATE_H

#include <stddef.h>
#include <stdint.h>

#include "common/common.h"
#include "ingest/config/config.h"
#include "ingest/ingest.h"

struct store;
struct json_t;
struct repo;

struct config;

enum gate_status {
	GATE_PASS,
	GATE_FAIL,
	GATE_SOFT, /* shown, never fails: the ruler changed, or across the board */
	GATE_ACPT, /* failing, but at or under an accepted ceiling */
	GATE_EXCL, /* measured and shown, never fails (--exclude) */
	GATE_UNDECIDED,
	GATE_NEW,     /* the head measured it, the reference did not */
	GATE_MISSING, /* the reference measured it, the head did not */
};
/* "PASS", "FAIL", ... as the table prints them. */
const char *gate_status_name(enum gate_status s);

/* What the judging said of a row, before the lock and the board applied. */
enum gate_verdict {
	GATE_VERDICT_NONE, /* not judged (no reference, no ratio, the top bucket) */
	GATE_VERDICT_SAME,
	GATE_VERDICT_SLOWER,
	GATE_VERDICT_FASTER,
	GATE_VERDICT_UNDECIDED, /* the interval straddles the limit */
};
/* "same", "slower", "faster", "undecided"; NULL for NONE (JSON null). */
const char *gate_verdict_name(enum gate_verdict v);

/* How a row was judged. */
enum gate_method {
	GATE_METHOD_NONE,
	GATE_METHOD_HL,	     /* Hodges-Lehmann on the samples */
	GATE_METHOD_SUMMARY, /* the head's median against the reference window's band */
	GATE_METHOD_COUNTED, /* a count against its tolerance */
	GATE_METHOD_LADDER,  /* a quantile against its bucket ladder (§8) */
	GATE_METHOD_RATIO,   /* a plain ratio against the limit */
	GATE_METHOD_PAIRED,  /* --live: the median of the paired ratios of a re-bench (§9.2) */
	GATE_METHOD_COUNT,   /* --live: instructions counted once per side (§9.6), exact */
};
/* "hodges-lehmann", "summary", "counted", "ladder", "ratio", "paired"; NULL for NONE. */
const char *gate_method_name(enum gate_method m);

/* The whole gate's outcome (§7.9). */
enum gate_outcome {
	GATE_OUTCOME_ERROR, /* no report was made */
	GATE_OUTCOME_PASS,
	GATE_OUTCOME_FAIL,
	GATE_NOTHING_TO_COMPARE, /* the head measures what the base measures */
	GATE_NO_VERDICT,	 /* no reference could be found (exit 4) */
};
/* "error", "pass", "fail", "nothing_to_compare", "no_verdict", as the JSON report says. */
const char *gate_outcome_name(enum gate_outcome o);

/* One side of a comparison. */
struct gate_side {
	char commit[41], source_hash[41];
	int64_t run_id, harness_version;
	char *content_hash;
	double value; /* the median (timed) or the value */
	int64_t n;    /* samples, 0 when only summaries */
};

/* One metric of one (machine, benchmark, config), judged. */
struct gate_row {
	char *machine, *benchmark, *config, *metric, *unit;
	enum metric_kind kind;
	int better_higher;
	enum gate_status status;
	enum gate_verdict verdict;
	enum gate_method method;
	double ratio, lo, hi;	  /* head / reference with its 99% interval; NAN when none */
	double limit;		  /* the limit asked for (an override's, else the gate's) */
	double effective_limit;	  /* what was applied (§7.3); NAN when the kind has none */
	double center, tolerance; /* the §6 band of the reference window; NAN with < 3 */
	double noise; /* the window's run-to-run noise: deviation / center; NAN with < 3 */
	int window;   /* records in the reference window */
	int has_head, has_ref;
	struct gate_side head, ref;
	const char *reference_rule; /* "merge-base": the record at S(M); "history": an older one */
	const char *override_glob;  /* the --override that set the limit, else NULL */
	int excluded;
	int unlisted; /* excluded because benchline.json's metrics does not name it */
	char *accepted_justification; /* a lock entry applies (ACPT, stale or over its ceiling) */
	double accepted_ceiling;
	int accept_stale;
	char *note;
	/* --live: the sides were measured now; paired when both were (not NEW, MISSING). */
	int live, paired;
	size_t pairs, measurements; /* of the re-bench that judged it (the last measurement's) */
	/* --settle: a stored FAIL or UNDECIDED row measured again live, whose verdict replaced the
	 * stored one; what the stored gate had said is kept for the report. */
	int settled;
	enum gate_status stored_status;
	enum gate_verdict stored_verdict;
	enum gate_method stored_method;
	double stored_ratio, stored_lo, stored_hi, stored_limit;
};

/* Across the board (§7.5): one metric over 8 or more comparisons. */
struct gate_board {
	char *metric;
	size_t n;
	double median, lo, hi;	 /* of the head / reference ratios, slower-is-above oriented */
	double threshold;	 /* 1 + (limit - 1) / 4 */
	enum gate_status status; /* slower across the board: SOFT, FAIL under --live; else PASS */
	char *note;
};

struct gate_comparison {
	char *ref_name;			  /* the base ref (or main's name), or the ratchet ref */
	char commit[41], source_hash[41]; /* M, or the ratchet's commit */
	struct gate_row *rows;
	size_t nrows;
	struct gate_board *boards;
	size_t nboards;
	/* Rows (and boards) that fail the gate: FAIL, and UNDECIDED under --undecided fail; rows
	 * that found a reference; UNDECIDED rows. */
	size_t failures, references, undecided;
	/* Groups that found no reference: the source hashes their searches looked at, and the
	 * standing records found there that a tag kept from being one (§7.2), per tag. */
	size_t searched, skipped;
	size_t skipped_by_tag[INGEST_NTAGS];
	/* The machines with Series records at source_hash, sorted (§10: a row without a reference
	 * on a machine not among them names them); machines_read 0 when they were not read (a
	 * live report, nothing to compare, no record at the head). */
	char **machines;
	size_t nmachines;
	int machines_read;
};

/* Stored records compared, or both sides measured now (--live, §7.10). */
enum gate_mode { GATE_MODE_STORED, GATE_MODE_LIVE };
/* "stored", "live". */
const char *gate_mode_name(enum gate_mode m);

/* What a live gate measured, for the report. */
struct gate_live {
	char machine[256];	    /* where: the checkout's machine (config_machine) */
	size_t measurements, pairs; /* the re-bench's, over every measurement */
	int identical;		    /* bench.artifacts byte-identical: nothing measured */
	size_t artifact_files;	    /* compared, when identical */
	double build_s[2];	    /* how long bench.build took: the merge base, the head */
	/* --allow-dirty: the head was the checkout's HEAD, measured as committed without the
	 * uncommitted changes to these measured paths (NULL when there were none) */
	char *dirty_paths;
	/* §9.6: counted with callgrind under this machine key; the merge base's count reused
	 * from one taken on base_counted_on (RFC 3339), neither built nor counted again */
	int counted, reused_base, counters_only;
	char counter_machine[96];
	char base_counted_on[32];
};

/* What --settle measured again (§7.8): the stored gate's FAIL and UNDECIDED rows, their
 * benchmarks only, the head against the merge base, now. */
struct gate_settle {
	int asked;		    /* --settle was given */
	char machine[256];	    /* where: the checkout's machine (config_machine) */
	size_t rows;		    /* the FAIL and UNDECIDED rows picked to be measured again */
	size_t settled;		    /* those whose verdict the live one replaced */
	size_t measurements, pairs; /* the re-bench's, over every measurement */
	int identical;		    /* bench.artifacts byte-identical: nothing measured */
	double build_s[2];	    /* how long bench.build took: the merge base, the head */
};

struct gate_report {
	enum gate_outcome outcome;
	int exit_code; /* §7.9: 0, 1 or 4 */
	char *head_name, *base_name;
	char *head_subject, *merge_base_subject; /* the commits' subjects; NULL when unknown */
	char head_commit[41], head_source[41];
	char base_commit[41];
	double limit;
	struct gate_comparison main;
	struct gate_comparison ratchet;
	int have_ratchet;
	size_t failures;
	size_t undecided;   /* UNDECIDED rows, of the main comparison and the ratchet */
	int undecided_fail; /* --undecided fail: they fail the gate */
	char *message;
	char **measured_paths; /* benchline.json's (a copy); NULL: every top-level path */
	size_t n_measured;
	char *lock_source;	  /* where benchline-gate.lock was read, NULL when none */
	char checkout_commit[41]; /* what the working copy holds, "" when none */
	int head_checked_out;	  /* the head is what the working copy holds */
	struct json_t *lock;	  /* its entries, for accept to keep */
	int64_t unix_time;
	enum gate_mode mode;
	struct gate_live live;	   /* GATE_MODE_LIVE only */
	struct gate_settle settle; /* --settle only */
	/* §9.7, a live gate: where the extra instructions went, for the benchmarks of its first
	 * FAIL rows: a JSON array of {benchmark, metric, fixed_work, base_total, head_total,
	 * functions}, the same as Markdown <details> blocks and as a line each for the table
	 * (NULL: none); profiles_note says
	 * what was not profiled and why (NULL: nothing was skipped). */
	struct json_t *profiles;
	char *profiles_markdown;
	char *profiles_text; /* "gate: where the extra instructions went ..." lines */
	char *profiles_note;
};

/* What a caller asks of the gate: the flags of `benchline gate` or the query of /api/gate. */
struct gate_request {
	const char *repo;	      /* a directory inside the working tree; NULL: "." */
	const char *head;	      /* default HEAD */
	const char *base;	      /* default: the main branch */
	const char *ratchet;	      /* NULL: none */
	double limit;		      /* 0: benchline.json's gate.limit, else GATE_LIMIT */
	const char *const *overrides; /* "GLOB=PCT", before benchline.json's; first wins */
	size_t n_overrides;
	const char *const *excludes; /* globs: measured and shown, never failing */
	size_t n_excludes;
	int for_accept;	    /* read benchline-gate.lock but do not apply it (accept does) */
	int undecided_fail; /* --undecided fail: UNDECIDED rows fail the gate */
	int allow_dirty;    /* --live: measure HEAD as committed despite uncommitted changes */
	int64_t now;	    /* the report's time */
	/* --live with bench.counters (§9.6): --counters-only (no timing rounds), --no-reuse (the
	 * merge base counted again), and the database counts are kept in and read from (NULL:
	 * the working tree's .benchline/counters.db) */
	int counters_only, no_reuse;
	const char *counter_db;
};

/* What the gate runs with: a request resolved against the working tree's root and its
 * benchline.json. Made by gate_options_build, which owns what it points at. */
struct gate_options {
	const char *repo_dir;	  /* the working tree's root */
	const struct config *cfg; /* the repository's benchline.json */
	const char *head, *base, *ratchet;
	double limit;
	/* --override GLOB=PCT and --exclude GLOB, before benchline.json's; first match wins */
	const char *const *override_globs;
	const double *override_pct;
	size_t n_overrides;
	const char *const *excludes;
	size_t n_excludes;
	int no_lock;
	int undecided_fail;
	int allow_dirty;
	int64_t now;
	int counters_only, no_reuse;
	const char *counter_db;
	/* Owned by the options. */
	struct strbuf root;
	struct config *own_cfg;
	char **own_globs;
	double *own_pct;
};

/* A limit given by the caller: 0 (none given) or a ratio above 1 and at most CONFIG_LIMIT_MAX
 * (10), else BL_EINVALID saying so: NaN, an infinity, 1e308, 1 or less. The gate, the
 * re-bench, bisection and confirm take the same --limit. */
int gate_check_limit(double limit, struct bl_error *err);

/* Checks a request (BL_EINVALID for a bad --limit or --override, naming it), finds the root of
 * the working tree holding req->repo and reads its benchline.json. The request's strings must
 * outlive the options. */
int gate_options_build(struct gate_options *out, const struct gate_request *req,
		       struct bl_error *err);
void gate_options_release(struct gate_options *o);

#define GATE_LIMIT     1.02
#define GATE_LOCK_FILE "benchline-gate.lock"

/* benchline-gate.lock's text (name in messages) into its entries array (a new reference):
 * {"schema": 1, "entries": [{machine, benchmark, config, metric, ceiling, justification,
 * reference: {source_hash, value}, ...}]}; BL_EINVALID naming what is wrong. */
int gate_lock_parse(struct json_t **entries_out, const char *text, size_t len, const char *name,
		    struct bl_error *err);

/*
 * The pure steps of a timed verdict (§7.3). The band of a reference window (the reference and
 * up to 7 records before it, values in any order; sorted in place): its center and tolerance
 * as §6 computes them and the noise deviation / |center|; all NAN with fewer than 3 values.
 */
void gate_band(double *center, double *tolerance, double *noise, double *values, size_t n);
/* L = max(limit, 1 + tolerance / center); the bare limit without a band (NAN tolerance). */
double gate_effective_limit(double limit, double center, double tolerance);
/* An interval [lo, hi] of head / reference ratios against L (§7.3), the question being "is it
 * slower?": SLOWER when lo > L; UNDECIDED only when it straddles L (lo <= L < hi); otherwise
 * not slower, FASTER when hi < 1, else SAME. better_higher flips it (1 / hi and 1 / lo are
 * then the worse-oriented ends). An interval with a NaN end is UNDECIDED. */
enum gate_verdict gate_interval_verdict(double lo, double hi, double L, int better_higher);

/* How the table, the comment and the page show a row: its status, but FASTER for a PASS judged
 * faster (§7.3: not slower, and shown as what it is). */
const char *gate_row_label(const struct gate_row *r);
/* "66.7 → 96.8 µs": a row's reference value, then its head's, in one scale of its unit (§11),
 * chosen by the smaller so neither is under 1; "-" for a side it lacks, and the unit after
 * the reference's value when the head has none. Plain text: the caller escapes it. */
void gate_add_values(struct strbuf *sb, const struct gate_row *r);

/* The words for undecided rows in every verdict line (§7.8). */
#define GATE_UNDECIDED_WORDS "measured too loosely to tell"
/* ", 2 undecided: measured too loosely to tell" (and ", failing under --undecided fail" under
 * that policy) when the report has undecided rows; nothing otherwise. */
void gate_add_undecided(struct strbuf *sb, const struct gate_report *r);

/*
 * The verdict from the rows (§7.9), for a report whose rows are final (or were replaced, by
 * --settle): each comparison's failures (its FAIL rows and FAIL boards, and its UNDECIDED rows
 * under r->undecided_fail) and undecided rows counted again, r->failures and r->undecided their
 * sums, and unless the outcome is already nothing to compare or no verdict, PASS (exit 0) or
 * FAIL (exit 1).
 */
void gate_report_decide(struct gate_report *r);

/*
 * The first step of every gate, stored or live (§7.1): the report started (limit, time, measured
 * paths), the head, the base, their merge base and the ratchet resolved in repo, and when the
 * head's source hash is the merge base's, the outcome GATE_NOTHING_TO_COMPARE with the message
 * naming the unchanged paths. Any other outcome is the caller's to reach.
 */
int gate_report_begin(struct gate_report *out, struct repo *repo, const struct gate_options *opts,
		      struct bl_error *err);

/* What the settings say of one metric of one benchmark (§7.4): the limit asked for (the first
 * override matching the benchmark or BENCHMARK:METRIC, the command line's before
 * benchline.json's, else limit), the glob that set it (NULL: none; it points into o), and
 * whether an exclude matches. */
struct gate_settings {
	double limit;
	const char *override_glob;
	int excluded;
	int unlisted; /* benchline.json lists `metrics` without this one: excluded too */
};
void gate_settings_for(struct gate_settings *out, const struct gate_options *o, double limit,
		       const char *benchmark, const char *metric);
/* How much a counted metric may grow, as a fraction: benchline.json's counted_tolerance for its
 * name, else 0 for allocations (name or unit containing "alloc"), else 0.01. */
double gate_counted_tolerance(const struct config *cfg, const char *metric, const char *unit);

/* Across the board (§7.5): a board for each timed metric with 8 or more judged rows in c (PASS,
 * FAIL, UNDECIDED, ACPT), the median of their worse-oriented ratios with its 99% interval against
 * 1 + (limit - 1) / 4. Slower across the board is SOFT between stored runs and FAIL under live,
 * where it counts in c->failures. */
void gate_across_the_board(struct gate_comparison *c, double limit, int live);

/* Reaches the verdict of §7 from stored records; err only for real errors (exit 2). */
int gate_run(struct gate_report *out, struct store *st, const struct gate_options *opts,
	     struct bl_error *err);
void gate_report_release(struct gate_report *r);
/* Frees what a row owns (its names, content hashes, justification and note); r itself stays. */
void gate_row_release(struct gate_row *r);

/* The report as `gate --json` writes it (docs/gate-json.md). */
struct json_t *gate_json(const struct gate_report *r);
/* That report as text, as `gate --json` writes it and GET /api/gate answers it: 2-space
 * indent, every real to 17 digits, a trailing newline. */
void gate_json_text(struct strbuf *out, const struct gate_report *r);
/* The terminal table. */
void gate_table(struct strbuf *out, const struct gate_report *r);
/* The first line of every comment gate_markdown writes, for a bot to find and update it. */
#define GATE_MARKDOWN_MARKER "<!-- benchline-gate -->"
/* What a GitHub comment holds, in characters, and the bytes of a comment after which its tables
 * take no more rows (the rest is counted, leaving room for the text around them). */
#define GATE_MARKDOWN_LIMIT  65536
#define GATE_MARKDOWN_BUDGET 48000
/* A pull-request comment (and a CI job summary): the marker, the verdict, the rows that need a
 * look with their before and after values, an accept hint when something fails, then every
 * row in a collapsed <details>; chart links when base_url is not NULL. */
void gate_markdown(struct strbuf *out, const struct gate_report *r, const char *base_url);

/* The exit status git bisect run reads from a gate's (§7.9) under --bisect-exit: 125, "skip
 * this commit", for an error (2) or no verdict (4); pass and fail are good and bad. */
#define GATE_EXIT_SKIP 125
int gate_bisect_exit(int status);

struct gate_accept_options {
	const char *justification;
	double headroom; /* points of the limit within which a passing metric may be accepted */
	const char *const *only; /* globs on benchmark or benchmark:metric; none: every FAIL */
	size_t n_only;
};
/*
 * benchline-gate.lock after accepting (§7.6): the report's failing metrics (or those named)
 * recorded with their new values, the entries not touched kept, stale entries of metrics that
 * now pass dropped. One line per decision goes to log; *skipped counts the named ones refused.
 */
int gate_accept(struct strbuf *lock_out, struct strbuf *log, size_t *skipped,
		const struct gate_report *r, const struct gate_accept_options *o,
		struct bl_error *err);

#endif

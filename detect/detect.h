/*
 * detect: Suspects (§6). The band rule itself, a pure function of one line's medians with no
 * I/O (rule.c), and `detect_run`, which walks the Series the store hands it, judges the lines
 * that changed since the last run and stores lines and Suspects (run.c). docs/detection.md
 * explains the rule with a worked example, its blind spots and the incremental design.
 */
#ifndef BENCHLINE_DETECT_H
#define BENCHLINE_DETECT_H

#include <stddef.h>
#include <stdint.h>

#include "../common/common.h"

struct store;
struct store_suspect;
struct json_t;
struct store_series;
struct store_record_row;

/* The band (§6): a window of up to 8 medians before a record on its line, at least 3. */
#define DETECT_WINDOW	    8
#define DETECT_MIN_WINDOW   3
#define DETECT_MAD_FACTOR   4.0
#define DETECT_FLOOR	    0.03
#define DETECT_STATE_FORMAT "1"

/*
 * What the rule remembers of a line: its last judged records (at most DETECT_WINDOW, oldest
 * first), each with its mark. That is all it needs to judge the next record, so a line can
 * be continued record by record (an incremental detect) exactly as a walk from its start
 * would judge it.
 */
struct detect_tail {
	size_t n;
	double median[DETECT_WINDOW];
	/* +1: marked above its center, -1: marked below, 0: not marked */
	signed char mark[DETECT_WINDOW];
	double tolerance[DETECT_WINDOW]; /* a marked record's tolerance */
	double sorted[DETECT_WINDOW];	 /* the medians in ascending order */
};

/* The rule's finding for one record. */
struct detect_verdict {
	int judged;    /* 0: fewer than DETECT_MIN_WINDOW records before it on its line */
	int outside;   /* |m - center| > tolerance */
	int continues; /* outside, but continues a marked step (so not marked) */
	int marked;    /* outside and the first of its step: a Suspect */
	int above;     /* +1 above the center, -1 below, 0 on it (only when judged) */
	double center, deviation, tolerance;
	double shift; /* (m - center) / center; NAN when the center is 0 */
};

void detect_tail_init(struct detect_tail *t);
/* Judges median m, the record after those t holds, then adds it to t. */
void detect_step(struct detect_verdict *out, struct detect_tail *t, double m);
struct detect_ladder;
/*
 * The same for a histogram quantile with a ladder (§8): the center is the window's median as
 * above, but a value is outside only past the bucket above the center's own (tolerance
 * hi_next - center) or under the edge below the bucket under it; a center in the top
 * bucket cannot be outside above, one in the first two buckets cannot be outside below.
 */
void detect_step_ladder(struct detect_verdict *out, struct detect_tail *t, double m,
			const struct detect_ladder *l);
/* Judges a whole line from its first record: out[i] for medians[i]. */
void detect_line(struct detect_verdict *out, const double *medians, size_t n);
/* The nearest-rank median: the element at 1-based rank ceil(n / 2) of the sorted values (the
 * lower middle for an even n). Sorts values in place; NAN when n is 0. */
double detect_nr_median(double *values, size_t n);
/* 1 when a record on the given side of its center is slower (worse in the metric's
 * direction): above for lower-is-better metrics, below for higher-is-better ones. */
int detect_is_slower(int above, int better_higher);

/* A tail as bytes, for the store: the count, the medians (little-endian doubles), a mark byte
 * each, then the tolerance of each marked one. 73 bytes for a full window with no mark. */
void detect_tail_encode(struct strbuf *out, const struct detect_tail *t);
/* BL_EINVALID when the bytes are not an encoded tail. */
int detect_tail_decode(struct detect_tail *out, const void *data, size_t len);

/* A line's fingerprint: FNV-1a over each member's run id, value and kind, in order. Two walks
 * of the same members give the same fingerprint, any change to them another. */
#define DETECT_FINGERPRINT_INIT 0xcbf29ce484222325ULL
uint64_t detect_fingerprint(uint64_t fp, int64_t run_id, double value, unsigned kind);

struct detect_options {
	int all; /* recompute every line */
	/* The judged metrics (benchline.json `metrics`), when given: NULL with metrics_given 1
	 * means every timed metric. Without metrics_given, the set the last detect used. */
	const char *const *metrics;
	size_t nmetrics;
	int metrics_given;
	/* With metrics_given: benchline.json's "ladders", so the quantile metrics `metrics`
	 * names are judged by their ladder (§8); NULL: none. Kept with the judged metrics. */
	const struct json_t *ladders;
	const char *ladders_file; /* where they were read, for messages */
	/* A full walk holds at most this many records (and metric values) in memory at once;
	 * 0 for the defaults. */
	size_t pass_members, pass_points;
};

struct detect_result {
	int64_t series;		  /* every Series (machine, benchmark, config, metric) */
	int64_t judged_series;	  /* of which detection judges */
	int64_t lines_recomputed; /* lines whose members changed, so were judged again */
	int64_t groups_walked;	  /* (machine, benchmark, config) read whole */
	int64_t records_appended; /* records judged at the end of their line */
	int64_t first_new_id;	  /* Suspects with this id or above are new */
	int64_t new_suspects;
	int full; /* 1: every Series was read (--all, the first run, new judged metrics) */
};

/*
 * Brings the stored lines and Suspects up to date in one transaction: on the first run, with
 * opts->all or when the judged metrics changed, every Series is read and judged; otherwise
 * only what the store's change log says moved. Idempotent: a second run changes nothing.
 */
int detect_run(struct detect_result *out, struct store *st, const struct detect_options *opts,
	       struct bl_error *err);

/* A Suspect as §14 prints it: {"id", "machine", "benchmark", "config", "metric", "commit",
 * "source_hash", "seq", "side", "shift", "center", "tolerance", "state"}, null where
 * unknown. */
struct json_t *detect_suspect_json(const struct store_suspect *s);
/* A Series as `series --json` prints it; open_suspects (a reference taken) or NULL for null. */
struct json_t *detect_series_json(const struct store_series *s, struct json_t *open_suspects);
/* A record as `records --json` prints it. */
struct json_t *detect_record_json(const struct store_record_row *row);

/* --- Bucket ladders (§8): pure functions in ladder.c, files and the lint in ladder_files.c --- */

/* One ladder: its unit and strictly increasing, positive bucket edges. */
struct detect_ladder {
	char *name;
	char *unit;
	double *edges;
	size_t n;
};

/* Where a value lies on a ladder: the half-open bucket (lo, hi]. */
struct detect_bucket {
	size_t index;	/* hi is edges[index]; index == n when above the last edge */
	double lo;	/* NAN below the first edge (the bucket (-inf, edges[0]]) */
	double hi;	/* NAN above the last edge */
	double hi_next; /* the edge above hi; NAN in the top bucket */
	int top;	/* 1: no hi_next, so a value here cannot be gated */
};

void detect_bucket_locate(struct detect_bucket *out, const struct detect_ladder *l, double value);
/* The derived absolute bound hi_next - baseline (the trip point is hi_next); NAN in the top
 * bucket. */
double detect_ladder_bound(const struct detect_ladder *l, double baseline);
/* The detection floor hi_next / baseline: the smallest factor that can fire; NAN in the top
 * bucket or for a baseline that is not positive. */
double detect_ladder_floor(const struct detect_ladder *l, double baseline);
/* 1 when value is exactly (to the last bit) quantile q (0..1, e.g. 0.95) times the first edge:
 * every sample fell in the first bucket, so the key cannot move (§8). */
int detect_ladder_floor_signature(const struct detect_ladder *l, double q, double value);
/*
 * The §8 rule for one reading: regressed when current exceeds baseline by more than max_abs
 * AND by more than max_pct percent; a baseline that is not positive is judged on max_abs
 * alone. A NAN bound does not constrain (the other one decides); both NAN: never regressed.
 */
int detect_ladder_regressed(double baseline, double current, double max_abs, double max_pct);

/* A set of ladders, as a ladders file (§8) or benchline.json's "ladders" defines it. */
struct detect_ladder_set {
	struct detect_ladder *ladders;
	size_t n;
	char **categories, **category_ladder; /* category name -> ladder name */
	size_t ncategories;
};
void detect_ladder_set_init(struct detect_ladder_set *set);
void detect_ladder_set_release(struct detect_ladder_set *set);
/*
 * Reads {NAME: {"unit": "ms", "edges": [...]}, ...} (the value of a "ladders" key) into set.
 * file names the file in messages. BL_EINVALID, naming the file and the ladder, for a wrong
 * type, an empty, unsorted, repeated or non-positive edge list.
 */
int detect_ladders_from_json(struct detect_ladder_set *set, const struct json_t *ladders,
			     const char *file, struct bl_error *err);
const struct detect_ladder *detect_ladder_find(const struct detect_ladder_set *set,
					       const char *name);
/* "an object", "a number", ... for messages about a JSON value; "missing" for NULL. */
const char *detect_ladder_type_name(const struct json_t *v);

/*
 * Numbers as text in their shortest round-trip form (the fewest digits that read back as the
 * same double), laid out as Python's repr does: 12.4, 4.005485184848892, 100.0, 1e-05. With
 * json 0 a whole number drops its ".0" (10 rather than 10.0, for messages and tables). buf
 * holds DETECT_LADDER_NUM_MAX bytes; returns buf.
 */
#define DETECT_LADDER_NUM_MAX 40
const char *detect_ladder_num(char *buf, double v, int json);
void detect_ladder_format_real(struct strbuf *sb, double v);
/* A quantile suffix as a fraction: p50 0.5, p95 0.95, p999 0.999 (0.DIGITS), p5 0.05 (one
 * digit is hundredths). BL_EINVALID for anything else, 0, or a spelling of more than two digits
 * ending in 0 (p500 is p50; p100 does not exist). */
int detect_ladder_quantile(double *q, const char *suffix, struct bl_error *err);
/* A key {category}.{name}.p{digits}: the category up to the first dot, the quantile after the
 * last, the name (dots allowed) between, none of them empty. */
struct detect_ladder_key {
	size_t category_len; /* key[0, category_len) is the category */
	size_t group_len;    /* key[0, group_len) is "category.name", an override's key */
	const char *suffix;  /* "p95", inside the key */
	double q;	     /* 0.95 */
};
int detect_ladder_key_parse(struct detect_ladder_key *out, const char *key, struct bl_error *err);
/* v in unit from, as unit to: equal units, or two of the time units s, ms, us, ns (one exact
 * power of ten, so one rounding). BL_EINVALID for any other pair. */
int detect_ladder_unit_convert(double *out, double v, const char *from, const char *to);

/* --- The ladder files and the four `benchline ladder` operations (ladder_files.c) --- */

/* Every file is read with this cap. */
#define DETECT_LADDER_FILE_MAX ((size_t)16 << 20)

/* One metric of a baseline or a captured run, {"value": 12.4, "unit": "ms"}. */
struct detect_ladder_metric {
	char *key;
	char *category;	    /* the key up to its first dot */
	char *group;	    /* "category.name": the key of its entry in "overrides" */
	const char *suffix; /* "p95", inside key */
	double q;
	double value; /* NAN: not captured (null) */
	char *unit;   /* NULL only for a value that is null with no unit */
};

/* A baseline or a captured run (the same shape, §8), metrics sorted by key. */
struct detect_ladder_run {
	struct json_t *doc; /* the whole file as parsed */
	int placeholder;    /* "placeholder": true, or no metrics */
	struct detect_ladder_metric *metrics;
	size_t n;
};
void detect_ladder_run_init(struct detect_ladder_run *r);
void detect_ladder_run_release(struct detect_ladder_run *r);
/* A baseline (baseline 1: every value of a populated one a number) or a captured run (values may
 * be null). BL_EINVALID as "FILE: KEY: what is wrong", or FILE:LINE:COLUMN for bad JSON. */
int detect_ladder_run_parse(struct detect_ladder_run *r, const char *file, const char *text,
			    size_t len, int baseline, struct bl_error *err);
int detect_ladder_run_read(struct detect_ladder_run *r, const char *path, int baseline,
			   struct bl_error *err);
const struct detect_ladder_metric *detect_ladder_run_find(const struct detect_ladder_run *r,
							  const char *key);
/* A captured run as the baseline it bootstraps: the file's document without "placeholder" and
 * without the keys that were not captured (each appended to dropped, one a line). */
struct json_t *detect_ladder_capture_json(const struct detect_ladder_run *cur,
					  struct strbuf *dropped);
/* The one output format: sorted keys, 2-space indent, shortest round-trip reals, a trailing
 * newline. */
void detect_ladder_json_dump(struct strbuf *sb, const struct json_t *doc);

/* A ladders file {"ladders": {...}, "categories": {CATEGORY: LADDER}}. */
int detect_ladder_set_parse(struct detect_ladder_set *set, const char *file, const char *text,
			    size_t len, struct bl_error *err);
int detect_ladder_set_read(struct detect_ladder_set *set, const char *path, struct bl_error *err);
const struct detect_ladder *detect_ladder_for_category(const struct detect_ladder_set *set,
						       const char *category);

/* One quantile entry of a thresholds file's "defaults" or "overrides". */
struct detect_ladder_limit {
	char *scope;  /* the category (defaults) or "category.name" (overrides) */
	char *suffix; /* "p95" */
	double q;
	double max_pct; /* NAN when not given */
	double max_abs; /* NAN when not given, in abs_unit */
	char *abs_unit; /* the <unit> of max_abs_increase_<unit>, NULL when not given */
};
struct detect_ladder_thresholds {
	char *file;
	struct detect_ladder_limit *defaults, *overrides;
	size_t ndefaults, noverrides;
};
void detect_ladder_thresholds_init(struct detect_ladder_thresholds *t);
void detect_ladder_thresholds_release(struct detect_ladder_thresholds *t);
int detect_ladder_thresholds_parse(struct detect_ladder_thresholds *t, const char *file,
				   const char *text, size_t len, struct bl_error *err);
int detect_ladder_thresholds_read(struct detect_ladder_thresholds *t, const char *path,
				  struct bl_error *err);
/* The bounds of one key, field by field (an override's field wins over its default's). */
struct detect_ladder_limits {
	double max_abs;	  /* in the key's unit; NAN: none */
	double max_pct;	  /* NAN: none */
	double abs_given; /* max_abs as written, in abs_from->abs_unit */
	const struct detect_ladder_limit *abs_from, *pct_from; /* NULL: none */
	int abs_override, pct_override; /* 1: from "overrides", 0: from "defaults" */
};
/* BL_EINVALID, naming the thresholds file and the key, for an absolute bound in a unit that is
 * not the key's and not convertible to it. */
int detect_ladder_limits_resolve(struct detect_ladder_limits *out,
				 const struct detect_ladder_thresholds *t,
				 const struct detect_ladder_metric *m, struct bl_error *err);

/* A declared-keys file {"keys": [KEY, ...]}, sorted. */
struct detect_ladder_declared {
	char **keys;
	size_t n;
};
void detect_ladder_declared_release(struct detect_ladder_declared *d);
int detect_ladder_declared_parse(struct detect_ladder_declared *d, const char *file,
				 const char *text, size_t len, struct bl_error *err);
int detect_ladder_declared_read(struct detect_ladder_declared *d, const char *path,
				struct bl_error *err);

/*
 * derive: a thresholds document {"_derivation_table": [...], "overrides": {...}} carrying each
 * key's bound hi_next - baseline (and max_pct_increase pct unless pct is NAN). A key that
 * cannot be gated (top bucket, floor signature) gets a table row and a line in warnings, no
 * bound. When pct would be the operative bound of some key, doc stays NULL and each such key
 * has a line in refusals.
 */
struct detect_ladder_derivation {
	struct json_t *doc;
	struct strbuf warnings, refusals; /* one line each, "KEY: message\n" */
	size_t nrefused;
};
void detect_ladder_derivation_init(struct detect_ladder_derivation *d);
void detect_ladder_derivation_release(struct detect_ladder_derivation *d);
int detect_ladder_derive(struct detect_ladder_derivation *out, const struct detect_ladder_run *b,
			 const struct detect_ladder_set *set, double pct, const char *file,
			 struct bl_error *err);

/* check: every violation of §8's rules, sorted by key. rule is one of "bound-not-derived",
 * "missing-bound", "undeclared-key", "declared-not-in-baseline", "pct-operative",
 * "floor-signature", "top-bucket", "orphan-bound", "placeholder". */
struct detect_ladder_violation {
	const char *rule;
	char *key;
	char *message;
	size_t order; /* keeps one key's violations in the order they were found */
};
struct detect_ladder_lint {
	struct detect_ladder_violation *v;
	size_t n;
	size_t checked; /* baseline keys checked */
};
void detect_ladder_lint_init(struct detect_ladder_lint *lint);
void detect_ladder_lint_release(struct detect_ladder_lint *lint);
/* declared NULL skips the two declared rules. */
int detect_ladder_check(struct detect_ladder_lint *lint, const struct detect_ladder_run *b,
			const struct detect_ladder_thresholds *t,
			const struct detect_ladder_set *set,
			const struct detect_ladder_declared *declared, const char *baseline_file,
			const char *declared_file, struct bl_error *err);

/* compare: one row per key of the baseline or the current run, in key order. */
struct detect_ladder_row {
	char *key;
	char *unit; /* the baseline's (the current run's for a key not in the baseline) */
	double baseline, current, delta, pct_change, max_abs, max_pct; /* NAN: does not apply */
	int regressed;
	char *note; /* NULL, "not captured in current run", "no threshold configured", ... */
};
struct detect_ladder_comparison {
	struct detect_ladder_row *rows;
	size_t n;
	size_t gated, regressed, missing, not_gated;
};
void detect_ladder_comparison_release(struct detect_ladder_comparison *c);
int detect_ladder_compare(struct detect_ladder_comparison *out, const struct detect_ladder_run *b,
			  const struct detect_ladder_thresholds *t,
			  const struct detect_ladder_run *cur, struct bl_error *err);
/* {"summary": {"gated", "regressed", "missing", "not_gated"}, "metrics": [{"key", "unit",
 * "baseline", "current", "delta", "pct_change", "max_abs_increase", "max_pct_increase",
 * "regressed", "note"}]}, null where a value does not apply. */
struct json_t *detect_ladder_comparison_json(const struct detect_ladder_comparison *c);

/* floors: each key's detection floor hi_next / baseline; the keys that cannot be gated first
 * (reason "top-bucket", "floor-signature" or "baseline-not-positive"), then the weakest. */
struct detect_ladder_floor_row {
	const struct detect_ladder_metric *m; /* points into the baseline */
	const struct detect_ladder *ladder;   /* points into the ladder set */
	struct detect_bucket bucket;
	double floor;
	const char *reason; /* NULL when it can be gated */
};
int detect_ladder_floors(struct detect_ladder_floor_row **rows, size_t *n,
			 const struct detect_ladder_run *b, const struct detect_ladder_set *set,
			 const char *file, struct bl_error *err);
/* An array of {"key", "unit", "baseline", "bucket", "hi_next", "floor", "gated", "note"}. */
struct json_t *detect_ladder_floors_json(const struct detect_ladder_floor_row *rows, size_t n);

/* --- Statistics for the gate (§7) and the paired re-bench: pure, in stats.c --- */

/* A shift of y against x with its distribution-free confidence interval. */
struct detect_shift {
	double estimate; /* Hodges-Lehmann: the median of every y_j - x_i */
	double lo, hi;	 /* the interval at the asked level */
	int exact;	 /* 1: exact Mann-Whitney distribution, 0: normal approximation */
};

/*
 * Hodges-Lehmann shift of y against x with the Mann-Whitney order-statistic interval at
 * confidence conf (e.g. 0.99): exact up to DETECT_EXACT_MAX samples a side, the normal
 * approximation above; the same interval R's wilcox.test(y, x, conf.int = TRUE) gives on
 * tie-free data. BL_EINVALID when a side has fewer than 2 values or the level cannot be
 * reached with so few (the interval would be the whole line).
 */
#define DETECT_EXACT_MAX 50
int detect_hl_shift(struct detect_shift *out, const double *x, size_t nx, const double *y,
		    size_t ny, double conf, struct bl_error *err);
/*
 * The order-statistic interval for the median of values at confidence conf: the k-th and
 * (n+1-k)-th smallest, k from the binomial(n, 1/2) distribution (R: qbinom). The estimate is
 * the sample median. BL_EINVALID when n is too small for the level.
 */
int detect_median_interval(double *lo, double *estimate, double *hi, const double *values, size_t n,
			   double conf, struct bl_error *err);

/*
 * detect_hl_shift with the way the order statistics of the nx * ny differences are found:
 * MATERIALIZE stores every difference and selects in place; IMPLICIT selects in the implicit
 * sorted matrix (sorted y minus sorted x) without storing it; AUTO, what detect_hl_shift does,
 * materializes up to DETECT_MATERIALIZE_MAX differences (about where the implicit selection
 * becomes the faster one, near 120 x 120). Every way gives the same bits: the choice is one
 * of speed and memory (and lets the tests compare the two).
 */
enum detect_select { DETECT_SELECT_AUTO, DETECT_SELECT_MATERIALIZE, DETECT_SELECT_IMPLICIT };
#define DETECT_MATERIALIZE_MAX 16384
int detect_hl_shift_with(struct detect_shift *out, const double *x, size_t nx, const double *y,
			 size_t ny, double conf, enum detect_select how, struct bl_error *err);
/* The k-th smallest (1-based) of the nx * ny differences y_j - x_i, selected as IMPLICIT does
 * (without storing them); x and y sorted ascending and finite, else NAN, as for k outside
 * 1..nx*ny. */
double detect_pairdiff_kth(const double *x, size_t nx, const double *y, size_t ny, uint64_t k);

/* The distribution helpers behind them, each R's function of the same name (docs/stats.md). */
/* qwilcox(p, m, n) for 0 < p <= 0.5 and 1 <= m, n <= DETECT_EXACT_MAX, -1 outside that:
 * the smallest q with P(U <= q) >= p - 10 DBL_EPSILON, U the Mann-Whitney count. */
int64_t detect_qwilcox(double p, size_t m, size_t n);
/* qbinom(p, n, 0.5) for 0 < p <= 0.5, -1 outside that: the smallest k with
 * P(B <= k) >= p (1 - 64 DBL_EPSILON), B binomial(n, 1/2). */
int64_t detect_qbinom_half(double p, size_t n);
/* qnorm(p, lower.tail = lower_tail) for 0 < p < 1 (Wichura's AS 241, as R computes it). */
double detect_qnorm(double p, int lower_tail);

/* --- The gate (§7): gate.c reaches the verdict, gate_report.c writes it out --- */

struct ingest_config;

enum detect_gate_status {
	DETECT_GATE_PASS,
	DETECT_GATE_FAIL,
	DETECT_GATE_SOFT, /* shown, never fails: the ruler changed, or across the board */
	DETECT_GATE_ACPT, /* failing, but at or under an accepted ceiling */
	DETECT_GATE_EXCL, /* measured and shown, never fails (--exclude) */
	DETECT_GATE_UNDECIDED,
	DETECT_GATE_NEW,     /* the head measured it, the reference did not */
	DETECT_GATE_MISSING, /* the reference measured it, the head did not */
};
/* "PASS", "FAIL", ... as the table prints them. */
const char *detect_gate_status_name(enum detect_gate_status s);

/* One side of a comparison. */
struct detect_gate_side {
	char commit[41], source_hash[41];
	int64_t run_id, harness_version;
	char *content_hash;
	double value; /* the median (timed) or the value */
	int64_t n;    /* samples, 0 when only summaries */
};

/* One metric of one (machine, benchmark, config), judged. */
struct detect_gate_row {
	char *machine, *benchmark, *config, *metric, *kind, *unit;
	int better_higher;
	enum detect_gate_status status;
	const char *verdict;	/* "slower", "faster", "same", "undecided"; NULL when not judged */
	const char *method;	/* "hodges-lehmann", "summary", "counted", "ladder", "ratio" */
	double ratio, lo, hi;	/* head / reference with its 99% interval; NAN when none */
	double limit;		/* the limit asked for (an override's, else the gate's) */
	double effective_limit; /* what was applied (§7.3); NAN when the kind has none */
	double center, tolerance; /* the §6 band of the reference window; NAN with < 3 */
	double noise; /* the window's run-to-run noise: deviation / center; NAN with < 3 */
	int window;   /* records in the reference window */
	int has_head, has_ref;
	struct detect_gate_side head, ref;
	const char *reference_rule; /* "merge-base": the record at S(M); "history": an older one */
	const char *override_glob;  /* the --override that set the limit, else NULL */
	int excluded;
	char *accepted_justification; /* a lock entry applies (ACPT, stale or over its ceiling) */
	double accepted_ceiling;
	int accept_stale;
	char *note;
};

/* Across the board (§7.5): one metric over 8 or more comparisons. */
struct detect_gate_board {
	char *metric;
	size_t n;
	double median, lo, hi; /* of the head / reference ratios, slower-is-above oriented */
	double threshold;      /* 1 + (limit - 1) / 4 */
	enum detect_gate_status status; /* SOFT when slower across the board, else PASS */
	char *note;
};

struct detect_gate_comparison {
	char *ref_name;			  /* the base ref (or main's name), or the ratchet ref */
	char commit[41], source_hash[41]; /* M, or the ratchet's commit */
	struct detect_gate_row *rows;
	size_t nrows;
	struct detect_gate_board *boards;
	size_t nboards;
	size_t failures, references; /* FAIL rows; rows that found a reference */
};

struct detect_gate_report {
	const char *status; /* "pass", "fail", "nothing_to_compare", "no_verdict" */
	int exit_code;	    /* §7.9: 0, 1 or 4 */
	char *head_name, *base_name;
	char head_commit[41], head_source[41];
	char base_commit[41];
	double limit;
	struct detect_gate_comparison main;
	struct detect_gate_comparison ratchet;
	int have_ratchet;
	size_t failures;
	char *message;
	char **measured_paths; /* benchline.json's (a copy); NULL: every top-level path */
	size_t n_measured;
	char *lock_source;	  /* where benchline-gate.lock was read, NULL when none */
	char checkout_commit[41]; /* what the working copy holds, "" when none */
	int head_checked_out;	  /* the head is what the working copy holds */
	struct json_t *lock;	  /* its entries, for accept to keep */
	int64_t unix_time;
};

struct detect_gate_options {
	const char *repo_dir;
	const struct ingest_config *cfg; /* the repository's benchline.json */
	const char *head;		 /* default HEAD */
	const char *base;		 /* default: the main branch */
	const char *ratchet;		 /* NULL: none */
	double limit;			 /* 0: gate.limit, else 1.02 */
	/* --override GLOB=PCT and --exclude GLOB, before benchline.json's; first match wins */
	const char *const *override_globs;
	const double *override_pct;
	size_t n_overrides;
	const char *const *excludes;
	size_t n_excludes;
	int no_lock; /* read benchline-gate.lock but do not apply it (accept does) */
	int64_t now;
};

#define DETECT_GATE_LIMIT     1.02
#define DETECT_GATE_LOCK_FILE "benchline-gate.lock"

/* benchline-gate.lock's text (name in messages) into its entries array (a new reference):
 * {"schema": 1, "entries": [{machine, benchmark, config, metric, ceiling, justification,
 * reference: {source_hash, value}, ...}]}; BL_EINVALID naming what is wrong. */
int detect_gate_lock_parse(struct json_t **entries_out, const char *text, size_t len,
			   const char *name, struct bl_error *err);

/*
 * The pure steps of a timed verdict (§7.3). The band of a reference window (the reference and
 * up to 7 records before it, values in any order; sorted in place): its center and tolerance
 * as §6 computes them and the noise deviation / |center|; all NAN with fewer than 3 values.
 */
void detect_gate_band(double *center, double *tolerance, double *noise, double *values, size_t n);
/* L = max(limit, 1 + tolerance / center); the bare limit without a band (NAN tolerance). */
double detect_gate_effective_limit(double limit, double center, double tolerance);
/* An interval [lo, hi] of head / reference ratios against L: "slower" when it lies above L,
 * "faster" below 1/L, "same" inside [1/L, L], else "undecided"; better_higher flips it. */
const char *detect_gate_interval_verdict(double lo, double hi, double L, int better_higher);

/* Reaches the verdict of §7 from stored records; err only for real errors (exit 2). */
int detect_gate(struct detect_gate_report *out, struct store *st,
		const struct detect_gate_options *opts, struct bl_error *err);
void detect_gate_report_release(struct detect_gate_report *r);

/* The report as `gate --json` writes it (docs/gate-json.md). */
struct json_t *detect_gate_json(const struct detect_gate_report *r);
/* That report as text, as `gate --json` writes it and GET /api/gate answers it: 2-space
 * indent, every real to 17 digits, a trailing newline. */
void detect_gate_json_text(struct strbuf *out, const struct detect_gate_report *r);
/* The terminal table. */
void detect_gate_table(struct strbuf *out, const struct detect_gate_report *r);
/* A pull-request comment; chart links when base_url is not NULL. */
void detect_gate_markdown(struct strbuf *out, const struct detect_gate_report *r,
			  const char *base_url);

struct detect_gate_accept_options {
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
int detect_gate_accept(struct strbuf *lock_out, struct strbuf *log, size_t *skipped,
		       const struct detect_gate_report *r,
		       const struct detect_gate_accept_options *o, struct bl_error *err);

#endif

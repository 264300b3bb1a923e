/*
 * ladder: bucket ladders (§8). The pure rule (ladder.c: bucket location, the derived bound,
 * the detection floor, the AND rule) and the ladder files with the four `benchline ladder`
 * operations (files.c). docs/ladder.md explains them.
 */
#ifndef BENCHLINE_DETECT_LADDER_H
#define BENCHLINE_DETECT_LADDER_H

#include <stddef.h>
#include <stdint.h>

#include "common/common.h"

struct json_t;

/* One ladder: its unit and strictly increasing, positive bucket edges. */
struct ladder {
	char *name;
	char *unit;
	double *edges;
	size_t n;
};

/* Where a value lies on a ladder: the half-open bucket (lo, hi]. */
struct ladder_bucket {
	size_t index;	/* hi is edges[index]; index == n when above the last edge */
	double lo;	/* NAN below the first edge (the bucket (-inf, edges[0]]) */
	double hi;	/* NAN above the last edge */
	double hi_next; /* the edge above hi; NAN in the top bucket */
	int top;	/* 1: no hi_next, so a value here cannot be gated */
};

void ladder_bucket_locate(struct ladder_bucket *out, const struct ladder *l, double value);
/* The derived absolute bound hi_next - baseline (the trip point is hi_next); NAN in the top
 * bucket. */
double ladder_bound(const struct ladder *l, double baseline);
/* The detection floor hi_next / baseline: the smallest factor that can fire; NAN in the top
 * bucket or for a baseline that is not positive. */
double ladder_floor(const struct ladder *l, double baseline);
/* 1 when value is exactly (to the last bit) quantile q (0..1, e.g. 0.95) times the first edge:
 * every sample fell in the first bucket, so the key cannot move (§8). */
int ladder_floor_signature(const struct ladder *l, double q, double value);
/*
 * The §8 rule for one reading: regressed when current exceeds baseline by more than max_abs
 * AND by more than max_pct percent; a baseline that is not positive is judged on max_abs
 * alone. A NAN bound does not constrain (the other one decides); both NAN: never regressed.
 */
int ladder_regressed(double baseline, double current, double max_abs, double max_pct);

/* A set of ladders, as a ladders file (§8) or benchline.json's "ladders" defines it. */
struct ladder_set {
	struct ladder *ladders;
	size_t n;
	char **categories, **category_ladder; /* category name -> ladder name */
	size_t ncategories;
};
void ladder_set_init(struct ladder_set *set);
void ladder_set_release(struct ladder_set *set);
/*
 * Reads {NAME: {"unit": "ms", "edges": [...]}, ...} (the value of a "ladders" key) into set.
 * file names the file in messages. BL_EINVALID, naming the file and the ladder, for a wrong
 * type, an empty, unsorted, repeated or non-positive edge list.
 */
int ladder_set_from_json(struct ladder_set *set, const struct json_t *ladders, const char *file,
			 struct bl_error *err);
const struct ladder *ladder_find(const struct ladder_set *set, const char *name);
/* "an object", "a number", ... for messages about a JSON value; "missing" for NULL. */
const char *ladder_type_name(const struct json_t *v);

/* A quantile suffix as a fraction: p50 0.5, p95 0.95, p999 0.999 (0.DIGITS), p5 0.05 (one
 * digit is hundredths). BL_EINVALID for anything else, 0, or a spelling of more than two digits
 * ending in 0 (p500 is p50; p100 does not exist). */
int ladder_quantile(double *q, const char *suffix, struct bl_error *err);
/* A key {category}.{name}.p{digits}: the category up to the first dot, the quantile after the
 * last, the name (dots allowed) between, none of them empty. */
struct ladder_key {
	size_t category_len; /* key[0, category_len) is the category */
	size_t group_len;    /* key[0, group_len) is "category.name", an override's key */
	const char *suffix;  /* "p95", inside the key */
	double q;	     /* 0.95 */
};
int ladder_key_parse(struct ladder_key *out, const char *key, struct bl_error *err);
/* v in unit from, as unit to: equal units, or two of the time units s, ms, us, ns (one exact
 * power of ten, so one rounding). BL_EINVALID for any other pair. */
int ladder_unit_convert(double *out, double v, const char *from, const char *to);

/* --- The ladder files and the four `benchline ladder` operations (files.c) --- */

/* Every file is read with this cap. */
#define LADDER_FILE_MAX ((size_t)16 << 20)

/* One metric of a baseline or a captured run, {"value": 12.4, "unit": "ms"}. */
struct ladder_metric {
	char *key;
	char *category;	    /* the key up to its first dot */
	char *group;	    /* "category.name": the key of its entry in "overrides" */
	const char *suffix; /* "p95", inside key */
	double q;
	double value; /* NAN: not captured (null) */
	char *unit;   /* NULL only for a value that is null with no unit */
};

/* A baseline or a captured run (the same shape, §8), metrics sorted by key. */
struct ladder_run {
	struct json_t *doc; /* the whole file as parsed */
	int placeholder;    /* "placeholder": true, or no metrics */
	struct ladder_metric *metrics;
	size_t n;
};
void ladder_run_init(struct ladder_run *r);
void ladder_run_release(struct ladder_run *r);
/* A baseline (baseline 1: every value of a populated one a number) or a captured run (values may
 * be null). BL_EINVALID as "FILE: KEY: what is wrong", or FILE:LINE:COLUMN for bad JSON. */
int ladder_run_parse(struct ladder_run *r, const char *file, const char *text, size_t len,
		     int baseline, struct bl_error *err);
int ladder_run_read(struct ladder_run *r, const char *path, int baseline, struct bl_error *err);
const struct ladder_metric *ladder_run_find(const struct ladder_run *r, const char *key);
/* A captured run as the baseline it bootstraps: the file's document without "placeholder" and
 * without the keys that were not captured (each appended to dropped, one a line). */
struct json_t *ladder_capture_json(const struct ladder_run *cur, struct strbuf *dropped);
/* The one output format: sorted keys, 2-space indent, shortest round-trip reals, a trailing
 * newline. */
void ladder_json_dump(struct strbuf *sb, const struct json_t *doc);

/* A ladders file {"ladders": {...}, "categories": {CATEGORY: LADDER}}. */
int ladder_set_parse(struct ladder_set *set, const char *file, const char *text, size_t len,
		     struct bl_error *err);
int ladder_set_read(struct ladder_set *set, const char *path, struct bl_error *err);
const struct ladder *ladder_for_category(const struct ladder_set *set, const char *category);

/* One quantile entry of a thresholds file's "defaults" or "overrides". */
struct ladder_limit {
	char *scope;  /* the category (defaults) or "category.name" (overrides) */
	char *suffix; /* "p95" */
	double q;
	double max_pct; /* NAN when not given */
	double max_abs; /* NAN when not given, in abs_unit */
	char *abs_unit; /* the <unit> of max_abs_increase_<unit>, NULL when not given */
};
struct ladder_thresholds {
	char *file;
	struct ladder_limit *defaults, *overrides;
	size_t ndefaults, noverrides;
};
void ladder_thresholds_init(struct ladder_thresholds *t);
void ladder_thresholds_release(struct ladder_thresholds *t);
int ladder_thresholds_parse(struct ladder_thresholds *t, const char *file, const char *text,
			    size_t len, struct bl_error *err);
int ladder_thresholds_read(struct ladder_thresholds *t, const char *path, struct bl_error *err);
/* The bounds of one key, field by field (an override's field wins over its default's). */
struct ladder_limits {
	double max_abs;	  /* in the key's unit; NAN: none */
	double max_pct;	  /* NAN: none */
	double abs_given; /* max_abs as written, in abs_from->abs_unit */
	const struct ladder_limit *abs_from, *pct_from; /* NULL: none */
	int abs_override, pct_override; /* 1: from "overrides", 0: from "defaults" */
};
/* BL_EINVALID, naming the thresholds file and the key, for an absolute bound in a unit that is
 * not the key's and not convertible to it. */
int ladder_limits_resolve(struct ladder_limits *out, const struct ladder_thresholds *t,
			  const struct ladder_metric *m, struct bl_error *err);

/* A declared-keys file {"keys": [KEY, ...]}, sorted. */
struct ladder_declared {
	char **keys;
	size_t n;
};
void ladder_declared_release(struct ladder_declared *d);
int ladder_declared_parse(struct ladder_declared *d, const char *file, const char *text, size_t len,
			  struct bl_error *err);
int ladder_declared_read(struct ladder_declared *d, const char *path, struct bl_error *err);

/*
 * derive: a thresholds document {"_derivation_table": [...], "overrides": {...}} carrying each
 * key's bound hi_next - baseline (and max_pct_increase pct unless pct is NAN). A key that
 * cannot be gated (top bucket, floor signature) gets a table row and a line in warnings, no
 * bound. When pct would be the operative bound of some key, doc stays NULL and each such key
 * has a line in refusals.
 */
struct ladder_derivation {
	struct json_t *doc;
	struct strbuf warnings, refusals; /* one line each, "KEY: message\n" */
	size_t nrefused;
};
void ladder_derivation_init(struct ladder_derivation *d);
void ladder_derivation_release(struct ladder_derivation *d);
int ladder_derive(struct ladder_derivation *out, const struct ladder_run *b,
		  const struct ladder_set *set, double pct, const char *file, struct bl_error *err);

/* check: every violation of §8's rules, sorted by key. rule is one of "bound-not-derived",
 * "missing-bound", "undeclared-key", "declared-not-in-baseline", "pct-operative",
 * "floor-signature", "top-bucket", "orphan-bound", "placeholder". */
struct ladder_violation {
	const char *rule;
	char *key;
	char *message;
	size_t order; /* keeps one key's violations in the order they were found */
};
struct ladder_lint {
	struct ladder_violation *v;
	size_t n;
	size_t checked; /* baseline keys checked */
};
void ladder_lint_init(struct ladder_lint *lint);
void ladder_lint_release(struct ladder_lint *lint);
/* declared NULL skips the two declared rules. */
int ladder_check(struct ladder_lint *lint, const struct ladder_run *b,
		 const struct ladder_thresholds *t, const struct ladder_set *set,
		 const struct ladder_declared *declared, const char *baseline_file,
		 const char *declared_file, struct bl_error *err);

/* compare: one row per key of the baseline or the current run, in key order. */
struct ladder_row {
	char *key;
	char *unit; /* the baseline's (the current run's for a key not in the baseline) */
	double baseline, current, delta, pct_change, max_abs, max_pct; /* NAN: does not apply */
	int regressed;
	char *note; /* NULL, "not captured in current run", "no threshold configured", ... */
};
struct ladder_comparison {
	struct ladder_row *rows;
	size_t n;
	size_t gated, regressed, missing, not_gated;
};
void ladder_comparison_release(struct ladder_comparison *c);
int ladder_compare(struct ladder_comparison *out, const struct ladder_run *b,
		   const struct ladder_thresholds *t, const struct ladder_run *cur,
		   struct bl_error *err);
/* {"summary": {"gated", "regressed", "missing", "not_gated"}, "metrics": [{"key", "unit",
 * "baseline", "current", "delta", "pct_change", "max_abs_increase", "max_pct_increase",
 * "regressed", "note"}]}, null where a value does not apply. */
struct json_t *ladder_comparison_json(const struct ladder_comparison *c);

/* Whether a key can be gated, and if not why (also the rule a lint violation names). */
enum ladder_gating {
	LADDER_GATED,
	LADDER_TOP_BUCKET,	      /* no edge above the baseline's bucket */
	LADDER_FLOOR_SIGNATURE,	      /* every sample fell in the first bucket */
	LADDER_BASELINE_NOT_POSITIVE, /* gated, but with no floor */
};
/* NULL, "top-bucket", "floor-signature", "baseline-not-positive". */
const char *ladder_gating_name(enum ladder_gating g);

/* floors: each key's detection floor hi_next / baseline; the keys that cannot be gated first,
 * then those without a floor, then the weakest. */
struct ladder_floor_row {
	const struct ladder_metric *m; /* points into the baseline */
	const struct ladder *ladder;   /* points into the ladder set */
	struct ladder_bucket bucket;
	double floor;
	enum ladder_gating reason;
};
int ladder_floors(struct ladder_floor_row **rows, size_t *n, const struct ladder_run *b,
		  const struct ladder_set *set, const char *file, struct bl_error *err);
/* An array of {"key", "unit", "baseline", "bucket", "hi_next", "floor", "gated", "note"}. */
struct json_t *ladder_floors_json(const struct ladder_floor_row *rows, size_t n);

#endif

/*
 * store: the only code that talks to SQLite. Every statement is prepared once per store,
 * bound, stepped and reset; the SQL text lives in sql/ and is embedded at build time.
 */
#ifndef BENCHLINE_STORE_H
#define BENCHLINE_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "../common/common.h"

struct store;

enum store_open_flags {
	STORE_CREATE = 1, /* create the file when it is missing */
	STORE_READONLY = 2,
};

/* Opens (and migrates) the database at path: WAL, a busy timeout, foreign keys on. */
int store_open(struct store **out, const char *path, int flags, struct bl_error *err);
void store_free(struct store *st);
/* The schema version now in force (PRAGMA user_version). */
int store_schema_version(struct store *st);
/* The number of migrations this binary knows. */
int store_latest_version(void);

int store_begin(struct store *st, struct bl_error *err);
int store_commit(struct store *st, struct bl_error *err);
void store_rollback(struct store *st);

/* Machines and benchmarks, created on first use. keep_first_out may be NULL. */
int store_machine(int64_t *id_out, int *keep_first_out, struct store *st, const char *name,
		  const char *info_json, struct bl_error *err);
int store_set_machine_keep(struct store *st, const char *name, int keep_first,
			   struct bl_error *err);
int store_benchmark(int64_t *id_out, struct store *st, const char *name, struct bl_error *err);

/* The run with this digest, 0 when none. */
int store_run_by_digest(int64_t *run_id_out, struct store *st, const char *digest,
			struct bl_error *err);

struct store_run {
	const char *digest;
	int64_t machine_id, benchmark_id;
	const char *config, *source_hash;
	int64_t harness_version;
	const char *content_hash;    /* may be NULL */
	const char *commit, *branch; /* branch may be NULL */
	double committed_at;	     /* NAN when unknown */
	double started_at;
	int dirty, baseline;
	const char *profile, *primary_metric;
	double quietness; /* NAN when unknown */
	const char *raw;
};

struct store_metric {
	const char *name;
	const char *kind; /* "timed", "counted", "quantile" */
	const char *unit;
	const char *better;	   /* "lower", "higher" */
	double median, p95, value; /* NAN when absent */
	int64_t n;		   /* -1 when absent */
	const double *samples;
	size_t nsamples;
	const char *ladder; /* may be NULL */
};

int store_insert_run(int64_t *run_id_out, struct store *st, const struct store_run *run,
		     struct bl_error *err);
int store_insert_metric(struct store *st, int64_t run_id, const struct store_metric *m,
			struct bl_error *err);
int store_add_tag(struct store *st, int64_t run_id, const char *tag, struct bl_error *err);
int store_remove_tag(struct store *st, int64_t run_id, const char *tag, struct bl_error *err);
int store_has_tag(int *out, struct store *st, int64_t run_id, const char *tag,
		  struct bl_error *err);

/* The standing run of a key: *run_id_out 0 when the key has none. */
struct store_key {
	int64_t machine_id, benchmark_id;
	const char *config, *source_hash;
	int64_t harness_version;
};
int store_standing(int64_t *run_id_out, double *quietness_out, int *flawed_out, struct store *st,
		   const struct store_key *key, struct bl_error *err);
int store_set_standing(struct store *st, const struct store_key *key, int64_t run_id,
		       struct bl_error *err);

/* Whether a new run counts as main's (§5): 1 when its source hash or commit is on synced
 * main, or (before any sync) when its branch is the main branch or not given. */
int store_is_main(int *out, struct store *st, const char *source_hash, const char *commit,
		  const char *branch, struct bl_error *err);
/* Recomputes every run's not-main tag from the synced commits. */
int store_refresh_not_main(struct store *st, struct bl_error *err);

/* Small settings kept between commands. *out is NULL when unset; caller frees. */
int store_get_meta(char **out, struct store *st, const char *key, struct bl_error *err);
int store_set_meta(struct store *st, const char *key, const char *value, struct bl_error *err);

/* main's commits (§3). */
struct store_commit {
	char sha[41];
	int64_t seq;
	char parent[41]; /* "" for the root */
	char source_hash[41];
	int64_t committed_at;
	const char *subject;
	long pr; /* 0 when none */
};
/* The stored commit with the highest seq; *found 0 when there is none. */
int store_commit_tip(int *found, char sha_out[41], int64_t *seq_out, struct store *st,
		     struct bl_error *err);
/* seq of a stored commit, -1 when not stored. */
int store_commit_seq(int64_t *seq_out, struct store *st, const char *sha, struct bl_error *err);
int store_insert_commit(struct store *st, const struct store_commit *c, struct bl_error *err);
/* Drops commits with seq > after (main was rewritten). */
int store_delete_commits_after(struct store *st, int64_t after, struct bl_error *err);
int store_commit_count(int64_t *out, struct store *st, struct bl_error *err);

/* Listing records (§14 `records --json`). */
struct store_record_filter {
	const char *machine;   /* NULL: any */
	const char *benchmark; /* NULL: any */
	int all;	       /* 1: every run, not just standing ones */
};

struct store_record_metric {
	char *name, *kind, *unit, *better;
	double median, p95, value; /* NAN when NULL */
	int64_t n;		   /* -1 when NULL */
	double *samples;
	size_t nsamples;
};

struct store_record_row {
	int64_t id;
	char *machine, *benchmark, *config, *source_hash, *commit, *content_hash;
	int64_t harness_version;
	int64_t seq; /* -1 when the commit's place on main is unknown */
	double started_at, committed_at;
	int standing, baseline;
	char **tags;
	size_t ntags;
	struct store_record_metric *metrics;
	size_t nmetrics;
};

/* Called once per row in Series order (machine, benchmark, config, then seq, committed_at,
 * started_at); the row is released after the call. A non-zero return stops the walk. */
typedef int (*store_record_fn)(const struct store_record_row *row, void *data);
int store_each_record(struct store *st, const struct store_record_filter *filter,
		      store_record_fn fn, void *data, struct bl_error *err);

/* Counts, for tests and `init`. */
int store_count(int64_t *out, struct store *st, const char *table, struct bl_error *err);

/* Series */

/* A line of a Series (§1): a stretch with no break, and why it starts where it does. */
struct store_series_line {
	char start_commit[41];
	int64_t start_seq;  /* -1 when the first record's place on main is unknown */
	const char *reason; /* "first", "harness", "content" or "baseline" */
	int64_t records;
};

/* One Series: a metric over the untagged standing records of one (machine, benchmark,
 * config), in main's commit order (§1, §3, §5). Strings live until the callback returns. */
struct store_series {
	const char *id; /* store_series_id(): machine/benchmark/config/metric, percent-encoded */
	const char *machine, *benchmark, *config, *metric;
	const char *kind, *unit, *better; /* as the last record gives them */
	int64_t records;
	const struct store_series_line *lines;
	size_t nlines;
	double last_value; /* the last record's median (timed) or value; NAN when absent */
	char last_commit[41];
	int64_t last_seq; /* -1 when unknown */
};

struct store_series_filter {
	const char *machine;   /* NULL: any */
	const char *benchmark; /* NULL: any */
};

/* Called once per Series, ordered by machine, benchmark, config and metric name (bytewise).
 * A non-zero return stops the walk (store_each_series then returns 0). */
typedef int (*store_series_fn)(const struct store_series *series, void *data);
/* Walks every Series (filter may be NULL) in one read transaction, one (machine, benchmark,
 * config) group at a time: memory holds one group's lines, never the records. */
int store_each_series(struct store *st, const struct store_series_filter *filter,
		      store_series_fn fn, void *data, struct bl_error *err);
/* Appends a Series' stable id: the four names joined by '/', each percent-encoded (every
 * byte outside [A-Za-z0-9._~-] as %XX, uppercase), e.g.
 * "m4-pro-metal/town/2560x1440%2F1800f/gpu_frame_us". */
void store_series_id(struct strbuf *out, const char *machine, const char *benchmark,
		     const char *config, const char *metric);

/* Web */

/* One standing record of a Series as the web server draws and lists it. Strings live until
 * the callback returns. */
struct store_web_point {
	int64_t run_id;
	const char *commit, *source_hash;
	const char *content_hash; /* NULL when the record has none */
	const char *tags;	  /* comma-separated, "" when the record is on its Series */
	double place;		  /* seq on main; x.5 when placed by time between two commits */
	int64_t seq;		  /* -1 when the place is not a known commit */
	int64_t harness_version;
	int baseline;
	double value; /* the median (timed) or value; NAN when absent */
	int64_t pr;   /* the commit's pull request, 0 when none */
};
typedef int (*store_web_point_fn)(const struct store_web_point *p, void *data);
/* Every standing record (tagged or not) of the Series (machine, benchmark, config, metric),
 * in Series order. A non-zero return from fn stops the walk. */
int store_web_points(struct store *st, const char *machine, const char *benchmark,
		     const char *config, const char *metric, store_web_point_fn fn, void *data,
		     struct bl_error *err);
/* SQLite's data_version of this connection: it changes when another connection commits. */
int store_web_data_version(int64_t *out, struct store *st, struct bl_error *err);

#endif

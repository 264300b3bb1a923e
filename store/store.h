/*
 * store: the only code that talks to a database, SQLite's file or a PostgreSQL server (pg.c),
 * picked by store_open from the path (store.c: opening, migrations, the statement cache and
 * transactions). Its reads and writes are grouped by who asks: detection (detect.c), the gate
 * (gate.c, gate_skipped.c), the Series (series.c), the web server (web.c), alerts (alerts.c),
 * Regressions and triage (regressions.c), deterministic counters (counters.c), data care
 * (admin.c), `check`'s invariants (check.c), the intake's lookups a chunk of records at a time
 * (intake.c) and `migrate` (copy.c). The SQL text lives in sql/ and is embedded at build time
 * (embed-sql.sh, which derives each statement's PostgreSQL text from SQLite's unless sql/pg/
 * keeps one). Every statement of sql/ is prepared once per store, on its first use, then bound,
 * stepped and reset each time, and finalized by store_free. Only the migrations, the
 * connection's pragmas at open and transaction control (BEGIN, COMMIT, ROLLBACK) run as SQL text
 * instead (sqlite3_exec). A callback of a walk (store_each_*, store_web_*, store_detect_lines,
 * store_detect_suspects) may call any store function but the walk it is called from: that one's
 * statement is still stepping, and the inner call fails (BL_EDB).
 */
#ifndef BENCHLINE_STORE_H
#define BENCHLINE_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "common/common.h"

struct store;

enum store_open_flags {
	STORE_CREATE = 1, /* create the file when it is missing */
	STORE_READONLY = 2,
};

/*
 * Opens (and migrates) the database at path: a SQLite file (WAL, a busy timeout, foreign keys
 * on), or, when path is a postgresql:// or postgres:// URL, a PostgreSQL database (the same
 * schema and rules; docs/deploy.md). STORE_CREATE on PostgreSQL lets an empty database be
 * given benchline's schema; without it an empty one is BL_ENOTFOUND, as a missing file is.
 */
int store_open(struct store **out, const char *path, int flags, struct bl_error *err);
/* Whether path is a PostgreSQL URL rather than a file name. */
int store_is_postgres_url(const char *path);
/* The database as messages name it: the file, or the URL without its password; and the same
 * of a path no store is open on (a new string). */
const char *store_name(const struct store *st);
char *store_name_of_path(const char *path);
void store_free(struct store *st);
/* What a writer is told while it waits for the write lock another connection holds: the
 * database as messages name it, the seconds waited so far and the most it will wait. Called
 * from the waiting thread, first after STORE_WAIT_FIRST_S seconds, then every
 * STORE_WAIT_EVERY_S. */
#define STORE_WAIT_FIRST_S 2
#define STORE_WAIT_EVERY_S 10
typedef void (*store_wait_fn)(const char *name, double waited_s, double limit_s, void *data);
/* For every store this process opens after the call: how long a writer waits for another's
 * lock before BL_EBUSY (timeout_ms; 30 s until set), and whom it tells while it waits (fn,
 * NULL for nobody). The command line's --lock-timeout; the server sets its own timeout per
 * connection (store_set_busy_timeout) and tells nobody. */
void store_set_lock_wait(unsigned timeout_ms, store_wait_fn fn, void *data);
/* How long this connection waits for another's write lock before BL_EBUSY (30 s after
 * store_open), telling nobody while it waits: the server's, which answers 503 instead. */
void store_set_busy_timeout(struct store *st, unsigned ms);
/* The schema version now in force (the migrations applied). */
int store_schema_version(struct store *st);
/* The number of migrations this binary knows. */
int store_latest_version(void);

int store_begin(struct store *st, struct bl_error *err);
/* store_begin without waiting: BL_EBUSY at once (nothing begun) when another writer holds the
 * write lock. */
int store_try_begin(struct store *st, struct bl_error *err);
int store_commit(struct store *st, struct bl_error *err);
void store_rollback(struct store *st);

/* Machines and benchmarks, created on first use. keep_first_out may be NULL. */
int store_machine(int64_t *id_out, int *keep_first_out, struct store *st, const char *name,
		  const char *info_json, struct bl_error *err);
int store_set_machine_keep(struct store *st, const char *name, int keep_first,
			   struct bl_error *err);
int store_benchmark(int64_t *id_out, struct store *st, const char *name, struct bl_error *err);
/* A machine's info (compact JSON, NULL for none) as its latest run gives it. */
int store_set_machine_info(struct store *st, int64_t id, const char *info_json,
			   struct bl_error *err);

struct store_run {
	int64_t id; /* 0: the database picks it (else one of store_new_run_ids) */
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
	enum metric_kind kind;
	const char *unit;
	int better_higher;	   /* 1 when higher is better */
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
/* The metrics of many runs (intake.c): on PostgreSQL in a few statements (one per few MiB),
 * on SQLite row by row. *failed is the row whose insert failed, n when that is not known. */
struct store_metric_row {
	int64_t run_id;
	struct store_metric m;
};
int store_insert_metrics(size_t *failed, struct store *st, const struct store_metric_row *rows,
			 size_t n, struct bl_error *err);
int store_add_tag(struct store *st, int64_t run_id, const char *tag, struct bl_error *err);
int store_remove_tag(struct store *st, int64_t run_id, const char *tag, struct bl_error *err);
int store_has_tag(int *out, struct store *st, int64_t run_id, const char *tag,
		  struct bl_error *err);

/* A key (§1): the runs of one machine, benchmark, config, source hash and harness version, of
 * which one stands. */
struct store_key {
	int64_t machine_id, benchmark_id;
	const char *config, *source_hash;
	int64_t harness_version;
};
int store_set_standing(struct store *st, const struct store_key *key, int64_t run_id,
		       struct bl_error *err);

/* Whether a new run counts as main's (§5): 1 when its source hash or commit is on synced
 * main, or (before any sync) when its branch is the main branch or not given. */
int store_is_main(int *out, struct store *st, const char *source_hash, const char *commit,
		  const char *branch, struct bl_error *err);
/* The rule before any sync: whether a run of branch (NULL: not given) is main's, main being
 * main_branch (the setting, NULL when not set: main or master). */
int store_branch_is_main(const char *branch, const char *main_branch);
/* Recomputes every run's not-main tag from the synced commits. */
int store_refresh_not_main(struct store *st, struct bl_error *err);

/*
 * The intake's lookups, a chunk of records at a time (intake.c): each asks about n values in one
 * statement and answers one entry per value, so that storing a file waits for the database a
 * few times per chunk instead of a few times per record. Inside a write transaction they see
 * what it wrote so far.
 */
/* The run stored under each digest, 0 when none. */
int store_runs_by_digest(int64_t *run_ids, struct store *st, const char *const *digests, size_t n,
			 struct bl_error *err);
/* Each tag of each run, as fn(data, the run's index in run_ids, the tag's name). */
typedef void store_tag_fn(void *data, size_t index, const char *tag);
int store_tags_of_runs(struct store *st, const int64_t *run_ids, size_t n, store_tag_fn *fn,
		       void *data, struct bl_error *err);
/* A machine as stored: id 0 when there is none by that name; info a new string or NULL. */
struct store_machine_row {
	int64_t id;
	int keep_first;
	char *info;
};
int store_machines_by_name(struct store_machine_row *rows, struct store *st,
			   const char *const *names, size_t n, struct bl_error *err);
/* Each benchmark's id, 0 when there is none by that name. */
int store_benchmarks_by_name(int64_t *ids, struct store *st, const char *const *names, size_t n,
			     struct bl_error *err);
/* Whether main's history was synced (some commit is known), and, when it was, whether each run
 * (its source hash and commit) is main's: store_is_main's rule for many runs. */
int store_main_known(int *out, struct store *st, struct bl_error *err);
int store_on_main(int *out, struct store *st, const char *const *source_hashes,
		  const char *const *commits, size_t n, struct bl_error *err);
/* The standing run of a key: run_id 0 when the key has none; its p95/median (NAN: unknown) and
 * whether a quality tag applies to it. */
struct store_standing {
	int64_t run_id;
	double quietness;
	int flawed;
};
int store_standing_of_keys(struct store_standing *out, struct store *st,
			   const struct store_key *keys, size_t n, struct bl_error *err);
/* n ids for runs about to be inserted (store_run.id), ascending: those the database would give
 * them one insert at a time. Only for a writer inside its transaction. */
int store_new_run_ids(int64_t *ids, struct store *st, size_t n, struct bl_error *err);

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
	char *name;
	enum metric_kind kind;
	char *unit;
	int better_higher;	   /* 1 when higher is better */
	double median, p95, value; /* NAN when NULL */
	int64_t n;		   /* -1 when NULL */
	double *samples;
	size_t nsamples;
	char *ladder; /* quantile metrics: the ladder's name (read by the gate), else NULL */
};

struct store_record_row {
	int64_t id;
	char *machine, *benchmark, *config, *source_hash, *commit, *content_hash;
	int64_t harness_version;
	int64_t seq; /* -1 when the commit's place on main is unknown */
	double started_at, committed_at;
	int standing, baseline;
	char *primary_metric; /* the metric the run is judged by */
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

/* A page of runs in run id order (GET /api/records): keyset paging, each page after the last
 * id of the one before. */
struct store_record_page {
	const char *machine, *benchmark; /* NULL: any */
	const char *commit;		 /* a prefix of lowercase hex digits; NULL: any */
	const char *source_hash;	 /* likewise */
	int all;			 /* 1: every run, not just standing ones */
	int64_t after;			 /* only runs with a larger id (0: from the first) */
	size_t limit;			 /* at most this many rows */
};
/* Called once per row by ascending run id, as store_each_record calls fn. */
int store_record_page(struct store *st, const struct store_record_page *p, store_record_fn fn,
		      void *data, struct bl_error *err);

/* Counts, for tests and `init`. */
int store_count(int64_t *out, struct store *st, const char *table, struct bl_error *err);

/* Series */

/* A line of a Series (§1): a stretch with no break, and why it starts where it does. */
struct store_series_line {
	char start_commit[41];
	int64_t start_seq;	/* -1 when the first record's place on main is unknown */
	enum line_break reason; /* never LINE_CONTINUES */
	int64_t records;
};

/* One Series: a metric over the untagged standing records of one (machine, benchmark,
 * config), in main's commit order (§1, §3, §5). Strings live until the callback returns. */
struct store_series {
	const char *id; /* store_series_id(): machine/benchmark/config/metric, percent-encoded */
	const char *machine, *benchmark, *config, *metric;
	enum metric_kind kind; /* as the last record gives it */
	const char *unit;      /* as the last record gives it */
	int better_higher;     /* likewise */
	int64_t records;
	const struct store_series_line *lines;
	size_t nlines;
	double last_value; /* the last record's median (timed) or value; NAN when absent */
	char last_commit[41];
	int64_t last_seq;    /* -1 when unknown */
	int64_t regressions; /* the Regressions bisection stored on it (§9.3) */
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
/* Whether a Series id has a part that is "." or "..": a browser resolves such a path segment
 * away before sending it, percent-encoded or not (to the URL standard "%2E" is a dot too), so
 * such a Series is linked with its id in the query. */
int store_series_id_has_dot_part(const char *id);
/* The path of a Series' page for a link, appended to out: "/series/ID", or "/series?id=ID" (its
 * '%' escaped once more) when a part of it is a dot segment; the server takes both. */
void store_series_page_path(struct strbuf *out, const char *id);

/* Web */

enum store_spread {
	STORE_SPREAD_NONE,
	STORE_SPREAD_SAMPLES, /* the smallest to the largest sample */
	STORE_SPREAD_P95,     /* the median to the p95 */
};

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
	double value;	     /* the median (timed) or value; NAN when absent */
	int64_t pr;	     /* the commit's pull request, 0 when none */
	const char *subject; /* the commit's subject when it is on main, else NULL */
	double date; /* its commit's time on main, else the record's committed_at or started_at */
	/* How far its samples spread (§11's whiskers): the smallest and largest sample when the
	 * record kept two or more, else the median and p95 of a timed metric when it gave them. */
	enum store_spread spread;
	double spread_lo, spread_hi; /* NAN when spread is STORE_SPREAD_NONE */
};
typedef int (*store_web_point_fn)(const struct store_web_point *p, void *data);
/* Every standing record (tagged or not) of the Series (machine, benchmark, config, metric),
 * in Series order. A non-zero return from fn stops the walk. */
int store_web_points(struct store *st, const char *machine, const char *benchmark,
		     const char *config, const char *metric, store_web_point_fn fn, void *data,
		     struct bl_error *err);
/* SQLite's data_version of this connection: it changes when another connection commits. */
int store_web_data_version(int64_t *out, struct store *st, struct bl_error *err);
/* A Suspect of one Series as its chart rings it. Strings live until the callback returns. */
struct store_web_suspect {
	int64_t id, run_id;
	enum suspect_side side;
	enum suspect_state state;
	enum suspect_kind kind; /* which opinion marked it */
	double shift;		/* NAN when the center was 0 */
};
typedef int (*store_web_suspect_fn)(const struct store_web_suspect *s, void *data);
/* Every Suspect (any state) of the Series (machine, benchmark, config, metric), by run id. A
 * non-zero return from fn stops the walk. */
int store_web_suspects(struct store *st, const char *machine, const char *benchmark,
		       const char *config, const char *metric, store_web_suspect_fn fn, void *data,
		       struct bl_error *err);

/* The last (at most limit) values of a Series' untagged records, oldest first, into *out
 * (malloc'd, *n_out of them; the median of a timed metric, else its value, NAN when absent). */
int store_web_recent_values(double **out, size_t *n_out, struct store *st, const char *machine,
			    const char *benchmark, const char *config, const char *metric,
			    size_t limit, struct bl_error *err);
/* The overview's header. */
struct store_web_summary {
	int64_t open_alerts, regressions, machines;
	double last_stored; /* seconds since the epoch of the last run stored; NAN before one */
};
int store_web_summary(struct store_web_summary *out, struct store *st, struct bl_error *err);
/* A commit on main as the pages name it: seq -1 and subject NULL when it is not on main.
 * Released with store_web_commit_release. */
struct store_web_commit {
	int64_t seq;
	char *subject; /* NULL when empty */
};
int store_web_commit(struct store_web_commit *out, struct store *st, const char *sha,
		     struct bl_error *err);
void store_web_commit_release(struct store_web_commit *c);
/* A Suspect as the Suspects page lists it. Strings live until the callback returns. */
struct store_web_suspect_row {
	int64_t id, alert_id; /* alert_id 0 when it has none yet */
	const char *machine, *benchmark, *config, *metric, *commit;
	const char *subject; /* NULL when its commit is not on main */
	const char *unit;    /* "" when unknown */
	int64_t seq;	     /* -1 when its place on main is unknown */
	double date;	     /* as store_web_point's */
	enum suspect_side side;
	enum suspect_state state;
	enum suspect_kind kind;		 /* which opinion marked it */
	double shift, center, tolerance; /* shift NAN when the center was 0 */
};
typedef int (*store_web_suspect_row_fn)(const struct store_web_suspect_row *s, void *data);
/* Every Suspect, grouped by machine and commit (the newest commit first), then in Series
 * order. A non-zero return from fn stops the walk. */
int store_web_suspect_rows(struct store *st, store_web_suspect_row_fn fn, void *data,
			   struct bl_error *err);

/* Detection */

/*
 * What detect/ (§6) reads and writes: the members of Series in bulk, the stored lines and
 * Suspects, and the change log the triggers of sql/002-detect.sql keep from the first detect
 * on. Nothing here judges a record; docs/detection.md describes the whole design.
 */

/* A detection session on an open store (its statements are the store's, prepared once). */
struct store_detect;
int store_detect_open(struct store_detect **out, struct store *st, struct bl_error *err);
void store_detect_close(struct store_detect *d);

/* A (machine, benchmark, config): every Series of it is drawn from the same records. */
struct store_group {
	int64_t machine_id, benchmark_id;
	char *config;
};

/* An untagged standing record, in Series order: its place on main (a commit's seq; x.5 when
 * placed by time, as the view placed_runs of sql/003-places.sql defines it), then at
 * (committed_at, else started_at), started_at and run id. */
struct store_member {
	int64_t run_id;
	double place, at, started_at;
	int64_t harness_version;
	uint32_t group;	  /* index into store_members.groups */
	uint32_t content; /* index into store_members.contents; 0: no content hash */
	uint32_t commit;  /* index into store_members.commits: its run's commit */
	uint32_t point;	  /* its metrics, by name: points[point .. point + npoints) */
	uint32_t npoints; /* a record's metrics: as many as a 1 GiB file can name */
	uint8_t baseline;
	uint8_t dropped; /* set while a bulk read works out the members; never set after */
};

/* One metric of a member. */
struct store_point {
	uint32_t metric; /* index into store_members.metrics */
	uint8_t kind;	 /* enum metric_kind */
	uint8_t higher;	 /* 1 when higher is better */
	double value;	 /* the median of a timed metric, else the value; NAN when absent */
};

/* Members of some groups: each group's members contiguous and in Series order. The names
 * interned in metrics, contents and commits stay across store_members_reset. */
struct store_members {
	struct store_group *groups;
	size_t ngroups, groups_alloc;
	struct store_member *members;
	size_t nmembers, members_alloc;
	struct store_point *points;
	size_t npoints, points_alloc;
	struct intern metrics;	/* metric names: metrics.strings[point.metric] */
	struct intern contents; /* content hashes: number 0 is NULL, no content hash */
	struct intern commits;	/* the runs' commits */
};
void store_members_init(struct store_members *m);
/* Forgets the groups, members and points (not the interned names). */
void store_members_reset(struct store_members *m);
void store_members_release(struct store_members *m);
/* The index of a metric name (interned on first use). */
uint32_t store_members_metric(struct store_members *m, const char *name);

/* Where a full read resumes, and how much one pass may hold. */
struct store_scan {
	int started, done;
	int64_t machine_id, benchmark_id;
	struct strbuf config;
	size_t max_members, max_points; /* 0: no limit */
	/* main's commits, loaded on the first pass (private) */
	struct store_commit_index *commits;
};
void store_scan_init(struct store_scan *scan, size_t max_members, size_t max_points);
void store_scan_release(struct store_scan *scan);
/*
 * The next groups of a full read into out (reset first): whole groups in primary-key order,
 * up to max_members records and max_points metric values unless one group alone is larger.
 * Reads records, runs (through the runs_detect index), tags and metrics each in one sequential
 * pass in id order, places the records in C and sorts each group. Sets scan->done after the
 * last groups.
 */
int store_detect_scan(struct store_members *out, struct store_scan *scan, struct store_detect *d,
		      struct bl_error *err);
/* Appends one group's members (read by SQL, in Series order) to out. */
int store_detect_group(struct store_members *out, struct store_detect *d,
		       const struct store_group *g, struct bl_error *err);

/* A run the change log names: whether it was on its Series at the last detect and whether it
 * is now, and (for a member now) its place and break attributes. */
struct store_change {
	int64_t run_id;
	struct store_group group;
	int was_member, is_member;
	double place, at, started_at;
	int64_t harness_version;
	char *content_hash; /* NULL: none */
	char *commit;
	int baseline;
};
void store_changes_release(struct store_change *c, size_t nr);
/* Every run in the change log, ordered by group then run id. */
int store_detect_changes(struct store_change **out, size_t *nr, struct store_detect *d,
			 struct bl_error *err);
/* Appends a changed run (a member now) and its metrics to out as a member of group index
 * group (out->groups[group] must exist). */
int store_detect_add_change(struct store_members *out, uint32_t group, const struct store_change *c,
			    struct store_detect *d, struct bl_error *err);

/* A stored run whose place commits stored since the last detect may have moved. */
struct store_moved {
	int64_t run_id;
	struct store_group group;
	int tagged;
};
/* How many commits were stored since the last detect (*ncommits), and when there were any,
 * the standing runs they may have moved and the groups holding a record placed by time that
 * they may have moved (run_id 0). */
int store_detect_moved(struct store_moved **out, size_t *nr, int64_t *ncommits,
		       struct store_detect *d, struct bl_error *err);
void store_moved_release(struct store_moved *m, size_t nr);
/* Empties the change log. */
int store_detect_log_clear(struct store_detect *d, struct bl_error *err);

/* A stored line (sql/002-detect.sql). Strings and tail live until the callback returns. */
struct store_line {
	int64_t id; /* 0 until stored */
	int64_t machine_id, benchmark_id;
	const char *config, *metric;
	int64_t line;
	enum line_break reason;
	int64_t start_run_id, records, fingerprint, harness_version;
	const char *content_hash; /* NULL: none */
	int64_t last_run_id;
	double last_place, last_at, last_started_at;
	double time_placed_at; /* NAN: no record placed by time */
	int judged;
	const void *tail;
	size_t tail_len;
};
typedef int (*store_line_fn)(const struct store_line *l, void *data);
/* Every stored line (g NULL; in no particular order) or one group's (by metric and line). A
 * non-zero return from fn stops the walk and is returned. */
int store_detect_lines(struct store_detect *d, const struct store_group *g, store_line_fn fn,
		       void *data, struct bl_error *err);
/* Stores a new line (its key must be free) and sets l->id. */
int store_detect_line_put(struct store_detect *d, struct store_line *l, struct bl_error *err);
/* Updates what stored line l->id keeps as records are added at its end: its count,
 * fingerprint, last record and tail. */
int store_detect_line_grow(struct store_detect *d, const struct store_line *l,
			   struct bl_error *err);
/* Deletes every stored line (g NULL) or one group's, with their values. */
int store_detect_lines_delete(struct store_detect *d, const struct store_group *g,
			      struct bl_error *err);
/* How many Series have stored lines, and how many of them are judged. */
int store_detect_series_count(int64_t *series, int64_t *judged, struct store_detect *d,
			      struct bl_error *err);

/* A Suspect as detection writes and compares it. */
struct store_mark {
	int64_t id; /* 0 for a new one */
	int64_t run_id;
	const char *metric;
	enum suspect_kind kind; /* with run_id and metric, its key in its group */
	int64_t machine_id, benchmark_id;
	const char *config;
	enum suspect_side side;
	double shift; /* NAN when the center is 0 */
	double median, center, tolerance, deviation;
	/* §9.1: the record before it inside its band (its reference), the earlier Suspect whose
	 * alert it joins (run ids, 0 when none), and its followers so far (detect_tail) */
	int64_t reference_run_id, follows_run_id;
	int followers, persisted;
	int64_t alert_id; /* 0: none yet */
	enum suspect_state state;
	const char *commit; /* read back: its record's commit */
};
typedef int (*store_mark_fn)(const struct store_mark *m, void *data);
/* Every stored Suspect (g NULL) or one group's. */
int store_detect_suspects(struct store_detect *d, const struct store_group *g, store_mark_fn fn,
			  void *data, struct bl_error *err);
/* The Suspect of group g's run run_id, metric and kind: *found 0 when there is none. out's
 * metric and config are the caller's; its commit is copied into commit (may be NULL:
 * out->commit is NULL then). */
int store_detect_suspect_find(int *found, struct store_mark *out, struct store_detect *d,
			      const struct store_group *g, int64_t run_id, const char *metric,
			      enum suspect_kind kind, struct strbuf *commit, struct bl_error *err);
/* The judged medians a line keeps for the change-point search (sql/010-change-points.sql):
 * fn gets each full chunk of line line_id in order (data lives until fn returns); a non-zero
 * return stops the walk and is returned. */
typedef int (*store_values_fn)(int64_t chunk, const void *data, size_t len, void *cb_data);
int store_detect_values(struct store_detect *d, int64_t line_id, store_values_fn fn, void *cb_data,
			struct bl_error *err);
/* Stores (or replaces) one chunk of line line_id's values. */
int store_detect_values_put(struct store_detect *d, int64_t line_id, int64_t chunk,
			    const void *data, size_t len, struct bl_error *err);
/* What the next search of line line_id goes on from, into out; *found 0 when none is kept. */
int store_detect_search(int *found, struct strbuf *out, struct store_detect *d, int64_t line_id,
			struct bl_error *err);
int store_detect_search_put(struct store_detect *d, int64_t line_id, const void *data, size_t len,
			    struct bl_error *err);
/* The commit of run run_id into out ("" when there is no such run). */
int store_detect_run_commit(struct strbuf *out, struct store_detect *d, int64_t run_id,
			    struct bl_error *err);
/* Inserts n new Suspects, in order (their ids ascending in that order), several at a time. */
int store_detect_suspects_insert(struct store_detect *d, const struct store_mark *const *m,
				 size_t n, struct bl_error *err);
/* Updates Suspect m->id: its numbers, alert and state. */
int store_detect_suspect_update(struct store_detect *d, const struct store_mark *m,
				struct bl_error *err);
/* The commits bisection pinned on one Series (§9.3), where detection starts lines. */
struct store_pinned {
	int64_t machine_id, benchmark_id;
	char *config, *metric;
	int64_t *seqs; /* the commits' seqs on main, ascending */
	size_t nseqs;
};
/* Every Series with a commit pinned on main, by machine, benchmark, config and metric. */
int store_detect_pinned(struct store_pinned **out, size_t *nr, struct store_detect *d,
			struct bl_error *err);
void store_pinned_free(struct store_pinned *p, size_t nr);
int store_detect_suspect_delete(struct store_detect *d, int64_t id, struct bl_error *err);
/* The largest Suspect id ever given, 0 before the first (ids are never reused). */
/* The ladder a quantile metric's records name (the first found), *out NULL when none. */
int store_detect_metric_ladder(char **out, struct store_detect *d, const char *metric,
			       struct bl_error *err);
int store_detect_last_suspect_id(int64_t *out, struct store_detect *d, struct bl_error *err);

/* A Suspect as `benchline suspects` lists it (§14). Strings live until the callback returns. */
struct store_suspect {
	int64_t id, run_id;
	const char *machine, *benchmark, *config, *metric, *commit, *source_hash;
	int64_t seq; /* -1 when the record's place on main is unknown */
	enum suspect_side side;
	enum suspect_state state;
	enum suspect_kind kind; /* which opinion marked it */
	double shift;		/* NAN when the center was 0 */
	double median, center, tolerance;
};
typedef int (*store_suspect_fn)(const struct store_suspect *s, void *data);
/* The Suspects with an id over after_id, in Series order. A non-zero return from fn stops the
 * walk (store_each_suspect then returns 0). */
int store_each_suspect(struct store *st, int64_t after_id, store_suspect_fn fn, void *data,
		       struct bl_error *err);
/* The first `limit` Suspects with an id over after_id, in id order (the order found). */
int store_each_new_suspect(struct store *st, int64_t after_id, int64_t limit, store_suspect_fn fn,
			   void *data, struct bl_error *err);
/* Whether machine (by name) has a clean standing record (not dirty, release profile) at
 * source_hash: what a sweep need not measure again. */
int store_machine_measured(int *out, struct store *st, const char *machine, const char *source_hash,
			   struct bl_error *err);
/* Whether detection judges a Series (§6): 1 when one of its lines is judged, 0 when none is
 * (its metric is not judged: a count, or one benchline.json's `metrics` leaves out) or it has
 * no lines yet. */
int store_series_judged(int *out, struct store_detect *d, const char *machine,
			const char *benchmark, const char *config, const char *metric,
			struct bl_error *err);
/* Whether detect has ever run on this database. */
int store_detect_ran(int *out, struct store *st, struct bl_error *err);
/* Open Suspects on one Series. */
int store_open_suspects(int64_t *out, struct store_detect *d, const char *machine,
			const char *benchmark, const char *config, const char *metric,
			struct bl_error *err);

/* Gate (§7) */

/* A record as the gate reads it. */
struct store_gate_record {
	int64_t run_id, machine_id, benchmark_id;
	char *machine, *benchmark, *config; /* NULL from store_gate_groups_in */
	char *content_hash;		    /* NULL when the record has none */
	char commit[41], source_hash[41];
	int64_t harness_version;
	int baseline;
	int tagged;   /* a tag keeps it off its Series */
	size_t group; /* store_gate_groups_in: the index of its group */
	int64_t step; /* store_gate_groups_in: the index of its source hash */
	struct store_record_metric *metrics; /* by name */
	size_t nmetrics;
};

/* A group the gate looks up: its Series are drawn from the same records. */
struct store_gate_group {
	int64_t machine_id, benchmark_id;
	const char *config;
};

struct store_gate;
int store_gate_open(struct store_gate **out, struct store *st, struct bl_error *err);
void store_gate_close(struct store_gate *g);
/* The standing records at a source hash that are clean (not dirty, release profile), on any
 * branch, by machine, benchmark and config, the newest harness version first; with their
 * metrics and samples. One statement. */
int store_gate_at_source(struct store_gate_record **out, size_t *nr, struct store_gate *g,
			 const char *source_hash, struct bl_error *err);
/*
 * The Series records (standing, untagged) of several groups at several source hashes, in one
 * statement: by group (a record's group is its index in groups), then by source hash (its step
 * is the index in source_hashes), then the newest harness version first; with their metrics,
 * and their samples only when with_samples.
 */
int store_gate_groups_in(struct store_gate_record **out, size_t *nr, struct store_gate *g,
			 const struct store_gate_group *groups, size_t ngroups,
			 const char *const *source_hashes, size_t nhashes, int with_samples,
			 struct bl_error *err);
/* Why a group found no reference: how many of its standing records at these source hashes
 * carry a tag (*runs_out), and per tag of tag_names (the stored names) how many carry it. */
int store_gate_skipped(size_t *runs_out, size_t *by_tag, const char *const *tag_names, size_t ntags,
		       struct store *st, int64_t machine_id, int64_t benchmark_id,
		       const char *config, const char *const *source_hashes, size_t nhashes,
		       struct bl_error *err);
void store_gate_record_release(struct store_gate_record *r);
void store_gate_records_free(struct store_gate_record *r, size_t nr);

/* Deterministic counters (§9.6, store/counters.c, sql/counters.sql) */

/* A count as stored: its benchmark, instructions, when it was measured and the record's JSON
 * (measured_on, build_stamp). Strings live until the callback returns; non-zero stops. */
typedef int (*store_counter_fn)(const char *benchmark, double instructions, double started_at,
				const char *raw, void *data);
/* The instruction counts machine (a counter key) took of the standing clean records at
 * source_hash, by benchmark. */
int store_counters_at(struct store *st, const char *machine, const char *source_hash,
		      store_counter_fn fn, void *data, struct bl_error *err);
/* The JSON run run_id was ingested as, into out; *found 0 when there is no such run. */
int store_run_raw(struct strbuf *out, int *found, struct store *st, int64_t run_id,
		  struct bl_error *err);

/* Alerts (§9.1, store/alerts.c, sql/alerts.sql) */

/*
 * What the alert pass (detect/alerts.c) reads and writes, in detect's transaction: the pass
 * decides, these only store. An alert is never deleted (its id stays its machine's, commit's
 * and side's); one left without Suspects has series 0 and is listed nowhere.
 */
/* The alert of (machine, commit, side), *id 0 when there is none. */
int store_alert_find(int64_t *id, struct store *st, int64_t machine_id, const char *commit,
		     enum suspect_side side, struct bl_error *err);
int store_alert_insert(int64_t *id, struct store *st, int64_t machine_id, const char *commit,
		       enum suspect_side side, enum suspect_state state, int transient_records,
		       struct bl_error *err);
/* What the pass judged of an alert (and its key, read back). */
struct store_alert_row {
	int64_t machine_id;
	char commit[41];
	enum suspect_side side;
	enum suspect_state state;
	int64_t series;
	int64_t judged_series; /* -1: not counted (NULL) */
	int run_wide;
	int transient_records; /* the quiet.transient_records it was judged under; -1: none */
};
int store_alert_get(int *found, struct store_alert_row *out, struct store *st, int64_t id,
		    struct bl_error *err);
int store_alert_put(struct store *st, int64_t id, const struct store_alert_row *row,
		    struct bl_error *err);
/* A stored Suspect of an alert, as judging it needs it. Strings live until fn returns. */
struct store_alert_member {
	int64_t id, run_id, benchmark_id;
	const char *metric, *config, *commit;
	int followers, persisted;
	enum suspect_state state;
	enum suspect_kind kind;
};
typedef int (*store_alert_member_fn)(const struct store_alert_member *m, void *data);
int store_alert_members(struct store *st, int64_t alert_id, store_alert_member_fn fn, void *data,
			struct bl_error *err);
/* The ids of the undecided alerts (pending, open, transient) with Suspects that were judged
 * under another quiet.transient_records (*ids the caller's to free). */
int store_alerts_stale(int64_t **ids, size_t *nr, struct store *st, int transient_records,
		       struct bl_error *err);
/* The Series a machine judged at a commit (its standing, untagged records there, one per
 * metric with a judged line). */
int store_alert_judged_at(int64_t *out, struct store *st, int64_t machine_id, const char *commit,
			  struct bl_error *err);
/* The ids of the alerts of (machine, commit) that counted its judged Series (*ids the
 * caller's). */
int store_alerts_counted_at(int64_t **ids, size_t *nr, struct store *st, int64_t machine_id,
			    const char *commit, struct bl_error *err);
/* Every alert that counted its machine's judged Series at its commit, with the count. */
typedef int (*store_counted_alert_fn)(int64_t id, int64_t machine_id, const char *commit,
				      int64_t judged_series, void *data);
int store_each_counted_alert(struct store *st, store_counted_alert_fn fn, void *data,
			     struct bl_error *err);
/* An alert's Suspects take its state. */
int store_alert_sync_suspects(struct store *st, int64_t alert_id, enum suspect_state state,
			      struct bl_error *err);

/* An alert as listed. Strings live until the callback returns. */
struct store_alert {
	int64_t id;
	const char *machine, *commit;
	const char *reference_commit; /* §9.1: its Suspects' latest reference; NULL when none */
	enum suspect_side side;
	enum suspect_state state;
	int run_wide;
	int64_t series;	       /* the Series its Suspects are on */
	int64_t judged_series; /* the Series its machine judged at its commit; -1: not counted */
	enum alert_outcome outcome;
	const char *note, *filed_url, *rebench; /* NULL when none */
	double created_at;
	/* Which opinions marked its Suspects: the band (§6), the change-point search (§6.1). */
	int by_band, by_change_point;
};
typedef int (*store_alert_fn)(const struct store_alert *a, void *data);
/* What to list: NULL machine for every machine, state_given 0 for every state, id 0 for
 * every alert. */
struct store_alert_filter {
	const char *machine;
	int state_given;
	enum suspect_state state;
	int64_t id;
};
/* The alerts the filter takes, oldest first. A non-zero return from fn stops the walk. */
int store_each_alert(struct store *st, const struct store_alert_filter *f, store_alert_fn fn,
		     void *data, struct bl_error *err);
/* The largest alert id (0 before the first), and how many alerts stand with an id over
 * after_id: a command's new alerts, without listing them. */
int store_alerts_last_id(int64_t *out, struct store *st, struct bl_error *err);
int store_alerts_count_after(int64_t *out, struct store *st, int64_t after_id,
			     struct bl_error *err);
/* The ids of an alert's Suspects, ascending (*ids the caller's to free). */
int store_alert_suspect_ids(int64_t **ids, size_t *nr, struct store *st, int64_t alert_id,
			    struct bl_error *err);
/* An alert's Suspects as `suspects` lists them, in Series order. */
int store_alert_suspects(struct store *st, int64_t alert_id, store_suspect_fn fn, void *data,
			 struct bl_error *err);
/* Records what confirm found: the alert's state (its Suspects take it too), its outcome, the
 * re-bench report as JSON text and a note (each may be NULL). In its own transaction, or in
 * the caller's when one is open. */
int store_alert_set_outcome(struct store *st, int64_t id, enum suspect_state state,
			    enum alert_outcome outcome, const char *rebench, const char *note,
			    struct bl_error *err);

/* Regressions (§9.3): the commits bisection pinned, one per Series (store/regressions.c) */

/* A Regression as stored and listed. Strings live until the callback returns (listing), or
 * stay the caller's (store_regression_add). */
struct store_regression {
	int64_t id;
	int64_t alert_id; /* the alert confirm bisected for it; 0 when bisect ran on its own */
	const char *machine, *benchmark, *config, *metric;
	const char *commit, *source_hash;
	const char *subject;  /* the commit's subject; NULL when unknown */
	int64_t pr;	      /* pull request number its subject names; 0 when none */
	double ratio, lo, hi; /* b / a of the bisection's last slower probe; NAN when none */
	const char *reference_commit; /* the good end of the bisection */
	const char *probes;	      /* the probe log: a JSON array as `bisect --json` has it */
	const char *profile;   /* §9.7: where the extra instructions went (JSON), NULL: none */
	const char *filed_url; /* listing only: where triage filed its alert, or NULL */
	double created_at;     /* listing only */
	int64_t seq;	       /* listing only: the commit's seq on main when stored, else -1 */
};
/*
 * Stores a Regression on the Series (machine, benchmark by name; created when new), placed at
 * the pinned commit's seq on main when it is there, so the next detect starts a `pinned` line
 * there. A Regression already stored for the same Series and commit is kept: *id_out is its id
 * and *added 0 (added may be NULL).
 */
int store_regression_add(int64_t *id_out, int *added, struct store *st,
			 const struct store_regression *r, struct bl_error *err);
typedef int (*store_regression_fn)(const struct store_regression *r, void *data);
/* Every Regression (alert_id 0), or one alert's, oldest first. A non-zero return from fn stops
 * the walk. */
int store_each_regression(struct store *st, int64_t alert_id, store_regression_fn fn, void *data,
			  struct bl_error *err);
/* What GET /api/regressions asks for: NULL (0) for any. */
struct store_regression_filter {
	const char *machine, *benchmark;
	const char *commit; /* a prefix of lowercase hex digits */
	int64_t alert_id;
};
/* The Regressions the filter takes, oldest first. A non-zero return from fn stops the walk. */
int store_each_regression_filtered(struct store *st, const struct store_regression_filter *f,
				   store_regression_fn fn, void *data, struct bl_error *err);
/* The Regressions of one Series (machine, benchmark, config, metric by name), oldest first. A
 * non-zero return from fn stops the walk. */
int store_series_regressions(struct store *st, const char *machine, const char *benchmark,
			     const char *config, const char *metric, store_regression_fn fn,
			     void *data, struct bl_error *err);

/* An alert as triage (§9.5) files it. Strings live until the callback returns. */
struct store_triage_alert {
	int64_t id;
	const char *machine;
	const char *commit; /* the commit of the record that started it */
	enum suspect_side side;
	enum suspect_state state; /* confirmed or covered */
	int64_t series;		  /* the Suspects it holds */
	int run_wide;
	/* Which opinions marked its Suspects: the band (§6), the change-point search (§6.1). */
	int by_band, by_change_point;
};
typedef int (*store_triage_alert_fn)(const struct store_triage_alert *a, void *data);
/* Every alert triage has yet to file, oldest first: confirmed or covered, holding at least one
 * Regression, its filed_url NULL. A non-zero return from fn stops the walk. */
int store_each_triage_alert(struct store *st, store_triage_alert_fn fn, void *data,
			    struct bl_error *err);
/* Records where alert_id's issue was filed; BL_ENOTFOUND ("no alert N") when there is no such
 * alert. A filed alert is never listed by store_each_triage_alert again. */
int store_alert_set_filed(struct store *st, int64_t alert_id, const char *url,
			  struct bl_error *err);

/* Data care (store/admin.c, sql/admin.sql): what retag re-reads, what rm removes, and the
 * audit of every hand-made change (sql/009-audit.sql). */

/* A stored run as retag and rm re-decide its tags and its key. Strings live until the
 * callback returns. */
struct store_admin_run {
	int64_t id;
	struct store_key key;
	int keep_first;	  /* its machine keeps the first run of a key */
	double quietness; /* as stored, NAN when unknown */
	const char *tags; /* its tags, comma-separated in the store's order; "" when none */
	int standing, baseline;
	const char *raw; /* its canonical JSON */
};
typedef int (*store_admin_run_fn)(const struct store_admin_run *r, void *data);
/* Every run (key NULL) or one key's, by key then run id: the order they were ingested in
 * within each key. A non-zero return from fn stops the walk and is returned. */
int store_admin_each_run(struct store *st, const struct store_key *key, store_admin_run_fn fn,
			 void *data, struct bl_error *err);

/* A run rm is asked to remove. Strings live until the callback returns. */
struct store_admin_target {
	int64_t id;
	struct store_key key;
	const char *machine, *benchmark, *commit;
	int standing;
};
typedef int (*store_admin_target_fn)(const struct store_admin_target *t, void *data);
/* The run with this id: *found 0 when there is none (fn not called). */
int store_admin_target(int *found, struct store *st, int64_t run_id, store_admin_target_fn fn,
		       void *data, struct bl_error *err);
/* The runs the filters take (NULL: any; commit a prefix of lowercase hex digits), by id. A
 * non-zero return from fn stops the walk and is returned. */
int store_admin_targets(struct store *st, const char *machine, const char *benchmark,
			const char *commit, store_admin_target_fn fn, void *data,
			struct bl_error *err);

/* What a row of the audit table records. */
enum store_audit_action {
	STORE_AUDIT_RETAG,
	STORE_AUDIT_RM,
	STORE_AUDIT_IGNORE,
};
/* Records who did what and why (why may be NULL), now: the alert an ignore named (0: none)
 * and how many runs the command changed. *id_out the row's id. */
int store_admin_audit(int64_t *id_out, struct store *st, enum store_audit_action action,
		      const char *who, const char *why, int64_t alert_id, int64_t runs,
		      struct bl_error *err);
/* Removes a run and everything that refers to it (its Suspects, the lines that start at it,
 * tags, metrics, its standing and change-log entries), keeping a copy in removed_runs under
 * audit row audit_id, and makes the next detect read every Series. The caller settles its
 * key afterwards (which run stands now) and holds the transaction. */
int store_admin_remove_run(struct store *st, int64_t run_id, int64_t audit_id,
			   struct bl_error *err);

/*
 * migrate (store/copy.c): copies every table of from into to, which must hold no history yet,
 * in one transaction on to, from one snapshot of from. Each table's rows are counted and
 * hashed on both sides before to commits (the report has both); any difference rolls the copy
 * back (BL_EDB). A target with runs, commits or lines is BL_ECONFLICT. progress, when given,
 * hears of each table as it is copied.
 */
#define STORE_COPY_NTABLES 20
struct store_copy_count {
	size_t rows;
	char checksum[41]; /* SHA-1 of the rows in their key's order, as store/copy.c writes them */
};
struct store_copy_table {
	const char *name;
	struct store_copy_count source, target;
};
struct store_copy_report {
	struct store_copy_table tables[STORE_COPY_NTABLES];
};
typedef void (*store_copy_progress_fn)(const char *table, size_t rows, void *data);
int store_copy(struct store_copy_report *out, struct store *from, struct store *to,
	       store_copy_progress_fn progress, void *data, struct bl_error *err);

/*
 * check (store/check.c): the database's own integrity check (SQLite's quick_check) and the
 * invariants every history keeps: each standing record has its run on the record's key, each
 * metric, tag and Suspect its run, each run its primary metric, each line its start run. fn
 * hears of each broken one with the number of rows that break it; out counts them.
 */
struct store_check_report {
	int invariants;			/* how many were checked */
	int problems;			/* how many did not hold (fn heard of each) */
	int64_t runs, records, metrics; /* the rows checked */
};
typedef void (*store_check_fn)(const char *what, int64_t rows, void *data);
int store_check(struct store_check_report *out, struct store *st, store_check_fn fn, void *data,
		struct bl_error *err);

/* The background detection's claim (sql/claim.sql): *claimed 1 when this connection may
 * detect now, 0 when another server on the same PostgreSQL database is detecting; given back
 * with store_detect_release. SQLite's claim always succeeds. */
int store_detect_claim(int *claimed, struct store *st, struct bl_error *err);
void store_detect_release(struct store *st);

#endif

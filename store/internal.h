/*
 * Private to store/: what the store's own files share. Nothing outside store/ includes it but
 * the store's unit test (tests/unit/test_store.c), which tests the statements themselves.
 */
#ifndef BENCHLINE_STORE_INTERNAL_H
#define BENCHLINE_STORE_INTERNAL_H

#include <math.h>
#include <sqlite3.h>

#include "store/store.h"
#include "sql_embed.h"

/*
 * The two databases behind store.h: a SQLite file, or a PostgreSQL server (store/pg.c). Every
 * file of store/ talks to either through the statements below, which keep SQLite's model: a
 * statement is bound by parameter number, stepped row by row and reset; its columns are read
 * by position. On SQLite each call is SQLite's own; on PostgreSQL a statement is prepared on
 * the server and its first step runs it (store/pg.c).
 */
enum store_backend { STORE_SQLITE, STORE_POSTGRES };
struct store_pg_stmt;
enum store_backend store_backend_of(const struct store *st);

/* A statement of the cache: exactly one of the two is set. */
struct store_stmt {
	sqlite3_stmt *lite;
	struct store_pg_stmt *pg;
};

/* What store_step returns besides an error code: SQLite's own values, so SQLite's result
 * passes through unchanged. */
#define STORE_ROW  SQLITE_ROW
#define STORE_DONE SQLITE_DONE

/* How a writer on PostgreSQL starts its transaction: with the transaction-scoped advisory lock
 * every writer takes, so that writers go one at a time as on SQLite (BEGIN IMMEDIATE). The
 * tests' lock holders take the same number. */
#define STORE_PG_WRITERS_LOCK "7306033440531431246"
#define STORE_PG_BEGIN_WRITE  "BEGIN; SELECT pg_advisory_xact_lock(" STORE_PG_WRITERS_LOCK ")"
/* The same lock tried without waiting (store_try_begin): held by another, it fails as a lock
 * timeout does (55P03). */
#define STORE_PG_TRY_BEGIN_WRITE                                                                   \
	"BEGIN; DO $bl$ BEGIN IF NOT pg_try_advisory_xact_lock(" STORE_PG_WRITERS_LOCK             \
	") THEN RAISE EXCEPTION USING ERRCODE = 'lock_not_available', MESSAGE = 'another writer "  \
	"holds the lock'; END IF; END $bl$"

/* One more moment of a writer's wait for another's lock (count: the moments before, 0 when
 * the wait begins): 1 to wait on, 0 to give up; tells the store's store_wait_fn how long it
 * has waited (store.c). */
int store_lock_wait(struct store *st, int count);

/* The PostgreSQL connection (store/pg.c): open on a URL, run SQL text that is no cached
 * statement, and what the last statement left. The errors are the server's messages. */
struct store_pg;
int store_pg_open(struct store_pg **out, const char *url, unsigned lock_timeout_ms, int create,
		  struct bl_error *err);
void store_pg_close(struct store_pg *pg);
int store_pg_exec(struct store_pg *pg, const char *sql);
/* BEGIN, then the writers' lock taken a moment at a time (pg_try_advisory_xact_lock between
 * store_lock_wait's pauses, so the wait can be told), for st: 0, or -1 with the error kept
 * (busy when the lock stayed held); store_begin rolls back, as after any failed BEGIN. */
int store_pg_begin_write(struct store_pg *pg, struct store *st);
const char *store_pg_errmsg(struct store_pg *pg);
int store_pg_busy(struct store_pg *pg);
/* Whether the last error was the connection's (lost, or not made again): BL_EUNAVAILABLE. */
int store_pg_lost(struct store_pg *pg);
int store_pg_in_transaction(struct store_pg *pg);
int64_t store_pg_last_insert_id(struct store_pg *pg);
int64_t store_pg_changes(struct store_pg *pg);
void store_pg_set_lock_timeout(struct store_pg *pg, unsigned ms);
/* The URL without its password, for messages (a new string). */
char *store_pg_url_for_messages(const char *url);
int store_pg_prepare(struct store_pg_stmt **out, struct store_pg *pg, enum sql_stmt id,
		     struct bl_error *err);
void store_pg_finalize(struct store_pg_stmt *s);
int store_pg_stmt_busy(struct store_pg_stmt *s);
void store_pg_clear_bindings(struct store_pg_stmt *s);

/* The PostgreSQL side of the calls below (store/pg.c). */
int store_pg_step(struct store_pg_stmt *s);
void store_pg_reset(struct store_pg_stmt *s);
void store_pg_bind(struct store_pg_stmt *s, int i, const void *v, size_t len, int binary);
void store_pg_bind_int64(struct store_pg_stmt *s, int i, int64_t v);
void store_pg_bind_double(struct store_pg_stmt *s, int i, double v);
int store_pg_column_is_null(struct store_pg_stmt *s, int i);
int64_t store_pg_column_int64(struct store_pg_stmt *s, int i);
double store_pg_column_double(struct store_pg_stmt *s, int i);
const char *store_pg_column_text(struct store_pg_stmt *s, int i);
const void *store_pg_column_blob(struct store_pg_stmt *s, int i);
int store_pg_column_type(struct store_pg_stmt *s, int i);
int store_pg_column_count(struct store_pg_stmt *s);
size_t store_pg_column_bytes(struct store_pg_stmt *s, int i);

/*
 * The statement cache: every statement of the sql/ files, by its "-- name:" (SQL_NAME), prepared
 * on its first use (SQLite: SQLITE_PREPARE_PERSISTENT) and kept until store_free. store_stmt
 * returns it reset and unbound, or NULL with err set when it cannot be prepared or is still
 * stepping: a walk's callback that reached the same walk again would cut the outer walk short,
 * so it is refused. Whoever steps a statement resets it when done with it (store_exec and
 * store_query_int64 do), so an open statement never holds a read transaction open.
 */
struct store_stmt *store_stmt(struct store *st, enum sql_stmt id, struct bl_error *err);
/* Steps s once (a statement that returns no rows, or only its first is wanted) and resets it;
 * BL_EDB saying what failed. */
int store_exec(struct store *st, struct store_stmt *s, const char *what, struct bl_error *err);
/* Steps s once for a one-column integer row and resets it: *out is its value, dflt when there
 * is no row or the value is NULL. */
int store_query_int64(int64_t *out, int64_t dflt, struct store *st, struct store_stmt *s,
		      const char *what, struct bl_error *err);
/* Steps s once for a one-column row of text or a blob and resets it: *found 1 and the bytes
 * into out (emptied first), or *found 0 and out empty when there is no row. */
int store_query_bytes(int *found, struct strbuf *out, struct store *st, struct store_stmt *s,
		      const char *what, struct bl_error *err);
/* The one formatter of database errors: "WHAT in 'FILE': the database's message". Returns
 * BL_EDB, BL_EBUSY when the last error was a lock another connection held too long, or
 * BL_EUNAVAILABLE when it was a PostgreSQL connection lost (or not made again). */
int store_db_error(struct bl_error *err, struct store *st, const char *what);

/* The id of the row the last INSERT made (on PostgreSQL, the INSERT's `RETURNING id`), and how
 * many rows the last INSERT, UPDATE or DELETE changed. */
int64_t store_last_insert_id(struct store *st);
int64_t store_changes(struct store *st);
/* Whether no transaction is open on the connection. */
int store_autocommit(struct store *st);
/* A read transaction, so that several statements see one state of the database. */
int store_begin_read(struct store *st, struct bl_error *err);
void store_end_read(struct store *st);

static inline int store_step(struct store_stmt *s)
{
	return s->lite ? sqlite3_step(s->lite) : store_pg_step(s->pg);
}
static inline void store_reset(struct store_stmt *s)
{
	if (s->lite)
		sqlite3_reset(s->lite);
	else
		store_pg_reset(s->pg);
}

/* Binding: a text or blob bound with store_bind_text, _text_len or _blob must stay as it is
 * until the statement is stepped; store_bind_text_copy and store_bind_blob_take do not ask that
 * (the latter frees the blob itself). A NULL string and a NAN double are SQL NULL both ways. */
static inline void store_bind_int64(struct store_stmt *s, int i, int64_t v)
{
	if (s->lite)
		sqlite3_bind_int64(s->lite, i, v);
	else
		store_pg_bind_int64(s->pg, i, v);
}
static inline void store_bind_double(struct store_stmt *s, int i, double v)
{
	if (s->lite)
		sqlite3_bind_double(s->lite, i, v);
	else
		store_pg_bind_double(s->pg, i, v);
}
static inline void store_bind_null(struct store_stmt *s, int i)
{
	if (s->lite)
		sqlite3_bind_null(s->lite, i);
	else
		store_pg_bind(s->pg, i, NULL, 0, 0);
}
void store_bind_text(struct store_stmt *s, int i, const char *v);
void store_bind_text_copy(struct store_stmt *s, int i, const char *v);
void store_bind_text_len(struct store_stmt *s, int i, const char *v, size_t len);
void store_bind_blob(struct store_stmt *s, int i, const void *v, size_t len);
void store_bind_blob_take(struct store_stmt *s, int i, void *v, size_t len);
void store_bind_real(struct store_stmt *s, int i, double v);
/* A row id, or SQL NULL for 0 (none); store_column_int64(s, i, 0) reads it back. */
void store_bind_id(struct store_stmt *s, int i, int64_t id);

/* The column readers are inline: the full read calls them for every column of a million rows.
 * SQL NULL reads as 0, 0.0, dflt or NAN, as each says. */
static inline int store_column_is_null(struct store_stmt *s, int i)
{
	return s->lite ? sqlite3_column_type(s->lite, i) == SQLITE_NULL
		       : store_pg_column_is_null(s->pg, i);
}
static inline double store_column_double(struct store_stmt *s, int i)
{
	return s->lite ? sqlite3_column_double(s->lite, i) : store_pg_column_double(s->pg, i);
}
/*
 * The readers with a default for SQL NULL look at SQLite's value once (one call of the API,
 * not two). The value is "unprotected", which only matters to a connection that threads share:
 * the store opens its connections SQLITE_OPEN_NOMUTEX, each used by one thread at a time.
 */
static inline double store_column_real(struct store_stmt *s, int i)
{
	if (s->lite) {
		sqlite3_value *v = sqlite3_column_value(s->lite, i);
		return sqlite3_value_type(v) == SQLITE_NULL ? NAN : sqlite3_value_double(v);
	}
	return store_pg_column_is_null(s->pg, i) ? NAN : store_pg_column_double(s->pg, i);
}
/* A column's integer, dflt for SQL NULL. */
static inline int64_t store_column_int64(struct store_stmt *s, int i, int64_t dflt)
{
	if (s->lite) {
		sqlite3_value *v = sqlite3_column_value(s->lite, i);
		return sqlite3_value_type(v) == SQLITE_NULL ? dflt : sqlite3_value_int64(v);
	}
	return store_pg_column_is_null(s->pg, i) ? dflt : store_pg_column_int64(s->pg, i);
}
static inline int store_column_int(struct store_stmt *s, int i)
{
	return (int)store_column_int64(s, i, 0);
}
/* A column's text, valid until the statement steps or resets again; dflt for SQL NULL. */
static inline const char *store_column_text(struct store_stmt *s, int i, const char *dflt)
{
	const char *t = s->lite ? (const char *)sqlite3_column_text(s->lite, i)
				: store_pg_column_text(s->pg, i);
	return t ? t : dflt;
}
/* What a column of the current row holds, for code that copies values whatever they are
 * (store/copy.c): SQLite's five storage classes, SQLITE_INTEGER to SQLITE_NULL. */
static inline int store_column_type(struct store_stmt *s, int i)
{
	return s->lite ? sqlite3_column_type(s->lite, i) : store_pg_column_type(s->pg, i);
}
static inline int store_column_count(struct store_stmt *s)
{
	return s->lite ? sqlite3_column_count(s->lite) : store_pg_column_count(s->pg);
}
/* A blob column's bytes, valid as long as its text would be, NULL for SQL NULL; and the bytes
 * of a blob or a text column (without the text's NUL). */
static inline const void *store_column_blob(struct store_stmt *s, int i)
{
	return s->lite ? sqlite3_column_blob(s->lite, i) : store_pg_column_blob(s->pg, i);
}
static inline size_t store_column_bytes(struct store_stmt *s, int i)
{
	return s->lite ? (size_t)sqlite3_column_bytes(s->lite, i) : store_pg_column_bytes(s->pg, i);
}
/* A column's text as a new string, NULL for SQL NULL. */
char *store_column_strdup(struct store_stmt *s, int i);
/* A column's commit or source hash into out: at most 40 characters, "" for SQL NULL. */
void store_column_sha(char out[41], struct store_stmt *s, int i);

/* A kind or state column into its enum (the name tables of common/names.c). The schema's
 * CHECKs admit no other names; a value that is none (a file changed by hand) is BL_EDB:
 * "unknown WHAT 'VALUE' in 'FILE'". */
int store_column_line_break(enum line_break *out, struct store *st, struct store_stmt *s, int i,
			    struct bl_error *err);
int store_column_better(int *better_higher, struct store *st, struct store_stmt *s, int i,
			struct bl_error *err);
int store_column_kind(enum metric_kind *out, struct store *st, struct store_stmt *s, int i,
		      struct bl_error *err);
int store_column_side(enum suspect_side *out, struct store *st, struct store_stmt *s, int i,
		      struct bl_error *err);
int store_column_state(enum suspect_state *out, struct store *st, struct store_stmt *s, int i,
		       struct bl_error *err);
int store_column_suspect_kind(enum suspect_kind *out, struct store *st, struct store_stmt *s, int i,
			      struct bl_error *err);
/* An alert's outcome: SQL NULL is ALERT_NO_OUTCOME. */
int store_column_outcome(enum alert_outcome *out, struct store *st, struct store_stmt *s, int i,
			 struct bl_error *err);

/* A group's key and source hashes as parameters 1 to 4 (machine, benchmark, config, and the
 * hashes as a JSON array, which json holds until the statement is stepped): the window reads
 * of the gate (sql/gate.sql, sql/gate-skipped.sql). */
void store_bind_group_hashes(struct store_stmt *s, struct strbuf *json, int64_t machine_id,
			     int64_t benchmark_id, const char *config,
			     const char *const *source_hashes, size_t nhashes);

/* The seq on main of a place (placed_runs, sql/003-places.sql): an integer place is a known
 * seq; one ending in .5, placed by time between two commits, is none (-1). */
int64_t store_place_seq(double place);

/* A metric from the columns at..at+9 of a row: name, kind, unit, better, median, p95, value,
 * n, ladder, samples (the order every metrics query selects them in). BL_EDB for an unknown
 * kind, m then still to be freed with the others (store_metrics_free). */
int store_metric_from_row(struct store_record_metric *m, struct store *st, struct store_stmt *s,
			  int at, struct bl_error *err);
/* A run's metrics by name, with their samples (sql/queries.sql run_metrics), and freeing
 * such an array. */
int store_read_metrics(struct store_record_metric **out, size_t *nr, struct store *st,
		       int64_t run_id, struct bl_error *err);
void store_metrics_free(struct store_record_metric *metrics, size_t n);
/* Samples as stored (little-endian doubles, §2) into a new array of *n_out values; and n
 * samples into that form, at blob (n * 8 bytes). */
double *store_decode_samples(const unsigned char *blob, size_t bytes, size_t *n_out);
void store_encode_samples(unsigned char *blob, const double *samples, size_t n);

#endif

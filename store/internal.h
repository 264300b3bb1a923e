/*
 * Private to store/: what the store's own files share. Nothing outside store/ includes it.
 */
#ifndef BENCHLINE_STORE_INTERNAL_H
#define BENCHLINE_STORE_INTERNAL_H

#include <math.h>
#include <sqlite3.h>

#include "store/store.h"
#include "sql_embed.h"

/* The open connection. */
sqlite3 *store_sqlite(struct store *st);

/*
 * The statement cache: every statement of the sql/ files, by its "-- name:" (SQL_NAME), prepared
 * on its first use with SQLITE_PREPARE_PERSISTENT and kept until store_free. store_stmt
 * returns it reset and unbound, or NULL with err set when it cannot be prepared or is still
 * stepping: a walk's callback that reached the same walk again would cut the outer walk short,
 * so it is refused. Whoever steps a statement resets it when done with it (store_exec and
 * store_query_int64 do), so an open statement never holds a read transaction open.
 */
sqlite3_stmt *store_stmt(struct store *st, enum sql_stmt id, struct bl_error *err);
/* Steps s once (a statement that returns no rows, or only its first is wanted) and resets it;
 * BL_EDB saying what failed. */
int store_exec(struct store *st, sqlite3_stmt *s, const char *what, struct bl_error *err);
/* Steps s once for a one-column integer row and resets it: *out is its value, dflt when there
 * is no row or the value is NULL. */
int store_query_int64(int64_t *out, int64_t dflt, struct store *st, sqlite3_stmt *s,
		      const char *what, struct bl_error *err);
/* The one formatter of database errors: "WHAT in 'FILE': sqlite's message". Returns BL_EDB, or
 * BL_EBUSY when the connection's last error is SQLITE_BUSY or SQLITE_LOCKED. */
int store_db_error(struct bl_error *err, struct store *st, const char *what);

/* Binding and reading the values the store keeps: a NULL string and a NAN double are SQL
 * NULL both ways. */
void store_bind_text(sqlite3_stmt *s, int i, const char *v);
void store_bind_real(sqlite3_stmt *s, int i, double v);
/* A row id, or SQL NULL for 0 (none); store_column_int64(s, i, 0) reads it back. */
void store_bind_id(sqlite3_stmt *s, int i, int64_t id);
/* The three column readers are inline: the full read calls them for every column of a million
 * rows. */
static inline double store_column_real(sqlite3_stmt *s, int i)
{
	return sqlite3_column_type(s, i) == SQLITE_NULL ? NAN : sqlite3_column_double(s, i);
}
/* A column's integer, dflt for SQL NULL. */
static inline int64_t store_column_int64(sqlite3_stmt *s, int i, int64_t dflt)
{
	return sqlite3_column_type(s, i) == SQLITE_NULL ? dflt : sqlite3_column_int64(s, i);
}
/* A column's text, valid until the statement steps or resets again; dflt for SQL NULL. */
static inline const char *store_column_text(sqlite3_stmt *s, int i, const char *dflt)
{
	const unsigned char *t = sqlite3_column_text(s, i);
	return t ? (const char *)t : dflt;
}
/* A column's text as a new string, NULL for SQL NULL. */
char *store_column_strdup(sqlite3_stmt *s, int i);
/* A column's commit or source hash into out: at most 40 characters, "" for SQL NULL. */
void store_column_sha(char out[41], sqlite3_stmt *s, int i);

/* A kind or state column into its enum (the name tables of common/names.c). The schema's
 * CHECKs admit no other names; a value that is none (a file changed by hand) is BL_EDB:
 * "unknown WHAT 'VALUE' in 'FILE'". */
int store_column_line_break(enum line_break *out, struct store *st, sqlite3_stmt *s, int i,
			    struct bl_error *err);
int store_column_better(int *better_higher, struct store *st, sqlite3_stmt *s, int i,
			struct bl_error *err);
int store_column_kind(enum metric_kind *out, struct store *st, sqlite3_stmt *s, int i,
		      struct bl_error *err);
int store_column_side(enum suspect_side *out, struct store *st, sqlite3_stmt *s, int i,
		      struct bl_error *err);
int store_column_state(enum suspect_state *out, struct store *st, sqlite3_stmt *s, int i,
		       struct bl_error *err);
/* An alert's outcome: SQL NULL is ALERT_NO_OUTCOME. */
int store_column_outcome(enum alert_outcome *out, struct store *st, sqlite3_stmt *s, int i,
			 struct bl_error *err);

/* The seq on main of a place (placed_runs, sql/003-places.sql): an integer place is a known
 * seq; one ending in .5, placed by time between two commits, is none (-1). */
int64_t store_place_seq(double place);

/* A metric from the columns at..at+9 of a row: name, kind, unit, better, median, p95, value,
 * n, ladder, samples (the order every metrics query selects them in). BL_EDB for an unknown
 * kind, m then still to be freed with the others (store_metrics_free). */
int store_metric_from_row(struct store_record_metric *m, struct store *st, sqlite3_stmt *s, int at,
			  struct bl_error *err);
/* A run's metrics by name, with their samples (sql/queries.sql run_metrics), and freeing
 * such an array. */
int store_read_metrics(struct store_record_metric **out, size_t *nr, struct store *st,
		       int64_t run_id, struct bl_error *err);
void store_metrics_free(struct store_record_metric *metrics, size_t n);
/* Samples as stored (little-endian doubles, §2) into a new array of *n_out values. */
double *store_decode_samples(const unsigned char *blob, size_t bytes, size_t *n_out);

#endif

/*
 * Private to store/: what the store's own files share. Nothing outside store/ includes it.
 */
#ifndef BENCHLINE_STORE_INTERNAL_H
#define BENCHLINE_STORE_INTERNAL_H

#include <sqlite3.h>

#include "store/store.h"

/* The open connection, for the store's other files (series walks prepare their own
 * statements: they run while the shared ones are in use). */
sqlite3 *store_sqlite(struct store *st);

/* Binding and reading the values the store keeps: a NULL string and a NAN double are SQL
 * NULL both ways. */
void store_bind_text(sqlite3_stmt *s, int i, const char *v);
void store_bind_real(sqlite3_stmt *s, int i, double v);
double store_column_real(sqlite3_stmt *s, int i);
/* A column's text as a new string, NULL for SQL NULL. */
char *store_column_strdup(sqlite3_stmt *s, int i);
/* A metric from the columns at..at+9 of a row: name, kind, unit, better, median, p95, value,
 * n, ladder, samples (the order every metrics query selects them in). */
void store_metric_from_row(struct store_record_metric *m, sqlite3_stmt *s, int at);
/* A run's metrics by name, with their samples (sql/queries.sql run_metrics), and freeing
 * such an array. */
int store_read_metrics(struct store_record_metric **out, size_t *nr, struct store *st,
		       int64_t run_id, struct bl_error *err);
void store_metrics_free(struct store_record_metric *metrics, size_t n);
/* Samples as stored (little-endian doubles, §2) into a new array of *n_out values. */
double *store_decode_samples(const unsigned char *blob, size_t bytes, size_t *n_out);

#endif

/*
 * The reference for the ingest budget (§12): plain prepared SQLite inserts of the rows
 * `benchline ingest` stores for the same records, in one transaction, with the same pragmas.
 *
 *   plain_insert DB ROWS
 *
 * DB already holds benchline's schema (sql/001-init.sql, created by the sqlite3 CLI). ROWS is
 * the tab-separated form gen-records.pl --rows writes. It is read into memory first and not
 * timed; the timed part is BEGIN, the machine and benchmark rows, then per record one runs
 * row, its metric rows and its records row, COMMIT and the close (which checkpoints the WAL, as
 * the end of a benchline process does). Prints "RECORDS SECONDS".
 */
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rows.h"

struct metric {
	const char *name, *kind, *unit, *better;
	double median, p95, value; /* NAN: NULL */
	long long n;		   /* -1: NULL */
	double *samples;
	size_t nsamples;
};

struct run {
	long long machine, benchmark, harness;
	const char *config, *source, *commit, *branch, *primary, *digest, *raw;
	double started, quietness;
	size_t first_metric, nmetrics;
};

static void die(const char *what, sqlite3 *db)
{
	fprintf(stderr, "plain_insert: %s: %s\n", what, db ? sqlite3_errmsg(db) : "failed");
	exit(1);
}

static void rows_fail(const char *what)
{
	die(what, NULL);
}

static double real_or_nan(const char *s)
{
	return strcmp(s, "-") ? strtod(s, NULL) : NAN;
}

static void bind_text(sqlite3_stmt *s, int i, const char *v)
{
	sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
}

static void bind_real(sqlite3_stmt *s, int i, double v)
{
	if (isnan(v))
		sqlite3_bind_null(s, i);
	else
		sqlite3_bind_double(s, i, v);
}

static void step(sqlite3 *db, sqlite3_stmt *s, const char *what)
{
	if (sqlite3_step(s) != SQLITE_DONE)
		die(what, db);
	sqlite3_reset(s);
}

static sqlite3_stmt *prepare(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s;
	if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s, NULL) != SQLITE_OK)
		die(sql, db);
	return s;
}

/* The machines' or the benchmarks' rows, through statement s. */
static void insert_names(sqlite3 *db, sqlite3_stmt *s, const struct rows_name *list, size_t n,
			 const char *what)
{
	for (size_t i = 0; i < n; i++) {
		sqlite3_bind_int64(s, 1, list[i].id);
		bind_text(s, 2, list[i].name);
		step(db, s, what);
	}
}

int main(int argc, char **argv)
{
	struct rows rows;
	struct run *runs;
	struct metric *metrics;
	sqlite3 *db;
	sqlite3_stmt *ins_machine, *ins_benchmark, *ins_run, *ins_metric, *ins_record;
	double t0, t1;

	if (argc != 3) {
		fprintf(stderr, "usage: plain_insert DB ROWS\n");
		return 2;
	}
	rows_load(&rows, argv[2]);
	/* the numbers as the store binds them, converted before the clock starts */
	runs = calloc(rows.nruns ? rows.nruns : 1, sizeof(*runs));
	metrics = calloc(rows.nmetrics ? rows.nmetrics : 1, sizeof(*metrics));
	if (!runs || !metrics)
		rows_fail("out of memory");
	for (size_t i = 0; i < rows.nruns; i++) {
		const struct rows_run *r = &rows.runs[i];
		runs[i] = (struct run){
		    .machine = r->machine,
		    .benchmark = r->benchmark,
		    .config = r->config,
		    .source = r->source,
		    .harness = atoll(r->harness),
		    .commit = r->commit,
		    .branch = r->branch,
		    .started = strtod(r->started, NULL),
		    .primary = r->primary,
		    .quietness = real_or_nan(r->quietness),
		    .digest = r->digest,
		    .raw = r->raw,
		    .first_metric = r->first_metric,
		    .nmetrics = r->nmetrics,
		};
	}
	for (size_t i = 0; i < rows.nmetrics; i++) {
		const struct rows_metric *m = &rows.metrics[i];
		metrics[i] = (struct metric){
		    .name = m->name,
		    .kind = m->kind,
		    .unit = m->unit,
		    .better = m->better,
		    .median = real_or_nan(m->median),
		    .p95 = real_or_nan(m->p95),
		    .n = strcmp(m->n, "-") ? atoll(m->n) : -1,
		    .value = real_or_nan(m->value),
		    .samples = m->samples,
		    .nsamples = m->nsamples,
		};
	}

	if (sqlite3_open(argv[1], &db) != SQLITE_OK)
		die(argv[1], db);
	if (sqlite3_exec(db,
			 "PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON;"
			 " PRAGMA synchronous = NORMAL; PRAGMA temp_store = MEMORY;",
			 NULL, NULL, NULL) != SQLITE_OK)
		die("pragmas", db);
	/* The statements of sql/queries.sql that ingest uses to insert. */
	ins_machine = prepare(db, "INSERT INTO machines (id, name) VALUES (?1, ?2)");
	ins_benchmark = prepare(db, "INSERT INTO benchmarks (id, name) VALUES (?1, ?2)");
	ins_run = prepare(
	    db, "INSERT INTO runs (digest, machine_id, benchmark_id, config, source_hash,"
		" harness_version, content_hash, commit_sha, branch, committed_at, started_at,"
		" dirty, profile, baseline, primary_metric, quietness, raw, ingested_at)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,"
		" ?17, (julianday('now') - 2440587.5) * 86400.0)");
	ins_metric = prepare(db, "INSERT INTO metrics (run_id, name, kind, unit, better, median,"
				 " p95, n, value, ladder, samples)"
				 " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
	ins_record = prepare(db, "INSERT INTO records (machine_id, benchmark_id, config,"
				 " source_hash, harness_version, run_id)"
				 " VALUES (?1, ?2, ?3, ?4, ?5, ?6)");

	t0 = rows_now();
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		die("begin", db);
	insert_names(db, ins_machine, rows.machines, rows.nmachines, "insert a machine");
	insert_names(db, ins_benchmark, rows.benchmarks, rows.nbenchmarks, "insert a benchmark");
	for (size_t i = 0; i < rows.nruns; i++) {
		const struct run *r = &runs[i];
		sqlite3_int64 run_id;
		bind_text(ins_run, 1, r->digest);
		sqlite3_bind_int64(ins_run, 2, r->machine);
		sqlite3_bind_int64(ins_run, 3, r->benchmark);
		bind_text(ins_run, 4, r->config);
		bind_text(ins_run, 5, r->source);
		sqlite3_bind_int64(ins_run, 6, r->harness);
		sqlite3_bind_null(ins_run, 7);
		bind_text(ins_run, 8, r->commit);
		bind_text(ins_run, 9, r->branch);
		sqlite3_bind_null(ins_run, 10);
		sqlite3_bind_double(ins_run, 11, r->started);
		sqlite3_bind_int(ins_run, 12, 0);
		bind_text(ins_run, 13, "release");
		sqlite3_bind_int(ins_run, 14, 0);
		bind_text(ins_run, 15, r->primary);
		bind_real(ins_run, 16, r->quietness);
		bind_text(ins_run, 17, r->raw);
		step(db, ins_run, "insert a run");
		run_id = sqlite3_last_insert_rowid(db);
		for (size_t k = 0; k < r->nmetrics; k++) {
			const struct metric *m = &metrics[r->first_metric + k];
			sqlite3_bind_int64(ins_metric, 1, run_id);
			bind_text(ins_metric, 2, m->name);
			bind_text(ins_metric, 3, m->kind);
			bind_text(ins_metric, 4, m->unit);
			bind_text(ins_metric, 5, m->better);
			bind_real(ins_metric, 6, m->median);
			bind_real(ins_metric, 7, m->p95);
			if (m->n >= 0)
				sqlite3_bind_int64(ins_metric, 8, m->n);
			else
				sqlite3_bind_null(ins_metric, 8);
			bind_real(ins_metric, 9, m->value);
			sqlite3_bind_null(ins_metric, 10);
			if (m->samples) /* little-endian doubles, as the store keeps them (x86, arm)
					 */
				sqlite3_bind_blob(ins_metric, 11, m->samples,
						  (int)(m->nsamples * sizeof(double)),
						  SQLITE_STATIC);
			else
				sqlite3_bind_null(ins_metric, 11);
			step(db, ins_metric, "insert a metric");
		}
		sqlite3_bind_int64(ins_record, 1, r->machine);
		sqlite3_bind_int64(ins_record, 2, r->benchmark);
		bind_text(ins_record, 3, r->config);
		bind_text(ins_record, 4, r->source);
		sqlite3_bind_int64(ins_record, 5, r->harness);
		sqlite3_bind_int64(ins_record, 6, run_id);
		step(db, ins_record, "insert a record");
	}
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		die("commit", db);
	sqlite3_finalize(ins_machine);
	sqlite3_finalize(ins_benchmark);
	sqlite3_finalize(ins_run);
	sqlite3_finalize(ins_metric);
	sqlite3_finalize(ins_record);
	/* Closing checkpoints the WAL, as benchline does when its process ends. */
	if (sqlite3_close(db) != SQLITE_OK)
		die("close", db);
	t1 = rows_now();
	printf("%zu %.6f\n", rows.nruns, t1 - t0);
	free(metrics); /* their samples are the rows' */
	free(runs);
	rows_release(&rows);
	return 0;
}

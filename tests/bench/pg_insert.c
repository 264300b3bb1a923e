/*
 * The floor for the PostgreSQL ingest goal (issue 16): plain server-side prepared inserts of
 * the rows `benchline ingest` stores for the same records, in one transaction, over libpq.
 * The twin of plain_insert.c (the SQLite reference), for `make bench DB=postgres`
 * (tests/bench/pg.sh).
 *
 *   pg_insert CONNINFO ROWS
 *
 * CONNINFO is a libpq connection string or URL whose database already holds the schema
 * (tests/bench/pg-floor.sql, the keys alone; created by psql). ROWS is the tab-separated form
 * gen-records.pl --rows writes. It is read into memory, the connection made and the five
 * statements prepared first, none of it timed; the timed part is BEGIN, the machine and
 * benchmark rows, then per record one runs row (its id from RETURNING), its metric rows and
 * its records row, COMMIT and the close. Every value goes as text, as the store sends it,
 * except the samples: bytea in binary form, little-endian doubles, as the store keeps them.
 * Prints "RECORDS SECONDS".
 */
#include <libpq-fe.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rows.h"

static void die(const char *what, PGconn *conn)
{
	fprintf(stderr, "pg_insert: %s: %s\n", what, conn ? PQerrorMessage(conn) : "failed");
	exit(1);
}

static void rows_fail(const char *what)
{
	die(what, NULL);
}

/* A field as a text parameter: "-" is NULL. */
static const char *text_or_null(const char *s)
{
	return strcmp(s, "-") ? s : NULL;
}

static void prepare(PGconn *conn, const char *name, const char *sql)
{
	PGresult *res = PQprepare(conn, name, sql, 0, NULL);
	if (PQresultStatus(res) != PGRES_COMMAND_OK)
		die(sql, conn);
	PQclear(res);
}

static void exec(PGconn *conn, const char *sql)
{
	PGresult *res = PQexec(conn, sql);
	if (PQresultStatus(res) != PGRES_COMMAND_OK)
		die(sql, conn);
	PQclear(res);
}

/* Runs prepared statement name; returns its result (the caller clears it). */
static PGresult *run(PGconn *conn, const char *name, int n, const char *const *values,
		     const int *lengths, const int *formats, const char *what)
{
	PGresult *res = PQexecPrepared(conn, name, n, values, lengths, formats, 0);
	ExecStatusType st = PQresultStatus(res);
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
		die(what, conn);
	return res;
}

/* The machines' or the benchmarks' rows, through prepared statement name. */
static void insert_names(PGconn *conn, const char *name, const struct rows_name *list, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char id[24];
		const char *v[2] = {id, list[i].name};
		snprintf(id, sizeof(id), "%lld", list[i].id);
		PQclear(run(conn, name, 2, v, NULL, NULL, name));
	}
}

int main(int argc, char **argv)
{
	struct rows rows;
	PGconn *conn;
	double t0, t1;

	if (argc != 3) {
		fprintf(stderr, "usage: pg_insert CONNINFO ROWS\n");
		return 2;
	}
	rows_load(&rows, argv[2]);

	conn = PQconnectdb(argv[1]);
	if (PQstatus(conn) != CONNECTION_OK)
		die("connect", conn);
	/* The PostgreSQL texts of the statements of sql/queries.sql that ingest uses to insert. */
	prepare(conn, "machine", "INSERT INTO machines (id, name) VALUES ($1, $2)");
	prepare(conn, "benchmark", "INSERT INTO benchmarks (id, name) VALUES ($1, $2)");
	prepare(conn, "run",
		"INSERT INTO runs (digest, machine_id, benchmark_id, config, source_hash,"
		" harness_version, content_hash, commit_sha, branch, committed_at, started_at,"
		" dirty, profile, baseline, primary_metric, quietness, raw, ingested_at)"
		" VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16,"
		" $17, extract(epoch FROM clock_timestamp())::float8) RETURNING id");
	prepare(conn, "metric",
		"INSERT INTO metrics (run_id, name, kind, unit, better, median,"
		" p95, n, value, ladder, samples)"
		" VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)");
	prepare(conn, "record",
		"INSERT INTO records (machine_id, benchmark_id, config,"
		" source_hash, harness_version, run_id)"
		" VALUES ($1, $2, $3, $4, $5, $6)");

	t0 = rows_now();
	exec(conn, "BEGIN");
	insert_names(conn, "machine", rows.machines, rows.nmachines);
	insert_names(conn, "benchmark", rows.benchmarks, rows.nbenchmarks);
	for (size_t i = 0; i < rows.nruns; i++) {
		const struct rows_run *r = &rows.runs[i];
		char machine[24], benchmark[24], run_id[24];
		const char *rv[17] = {r->digest, machine,    benchmark,	 r->config,
				      r->source, r->harness, NULL,	 r->commit,
				      r->branch, NULL,	     r->started, "0",
				      "release", "0",	     r->primary, text_or_null(r->quietness),
				      r->raw};
		PGresult *res;
		/* ids as text, as the store binds them */
		snprintf(machine, sizeof(machine), "%lld", r->machine);
		snprintf(benchmark, sizeof(benchmark), "%lld", r->benchmark);
		res = run(conn, "run", 17, rv, NULL, NULL, "insert a run");
		if (PQntuples(res) != 1)
			die("insert a run: no id", conn);
		snprintf(run_id, sizeof(run_id), "%s", PQgetvalue(res, 0, 0));
		PQclear(res);
		for (size_t k = 0; k < r->nmetrics; k++) {
			const struct rows_metric *m = &rows.metrics[r->first_metric + k];
			const char *mv[11] = {run_id,
					      m->name,
					      m->kind,
					      m->unit,
					      m->better,
					      text_or_null(m->median),
					      text_or_null(m->p95),
					      text_or_null(m->n),
					      text_or_null(m->value),
					      NULL,
					      (const char *)m->samples};
			int lengths[11] = {0};
			int formats[11] = {0};
			/* little-endian doubles, as the store keeps them (x86, arm) */
			lengths[10] = (int)(m->nsamples * sizeof(double));
			formats[10] = 1;
			PQclear(run(conn, "metric", 11, mv, lengths, formats, "insert a metric"));
		}
		const char *kv[6] = {machine, benchmark, r->config, r->source, r->harness, run_id};
		PQclear(run(conn, "record", 6, kv, NULL, NULL, "insert a record"));
	}
	exec(conn, "COMMIT");
	PQfinish(conn);
	t1 = rows_now();
	printf("%zu %.6f\n", rows.nruns, t1 - t0);
	rows_release(&rows);
	return 0;
}

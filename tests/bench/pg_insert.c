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

struct metric {
	const char *name, *kind, *unit, *better, *median, *p95, *n, *value; /* NULL: NULL */
	double *samples;
	size_t nsamples;
};

struct run {
	char machine[24], benchmark[24];
	const char *config, *source, *harness, *commit, *branch, *started, *primary, *quietness;
	const char *digest, *raw;
	size_t first_metric, nmetrics;
};

struct name {
	char id[24];
	const char *name;
};

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

int main(int argc, char **argv)
{
	struct run *runs = NULL;
	struct metric *metrics = NULL;
	struct name *machines = NULL, *benchmarks = NULL;
	size_t nruns = 0, aruns = 0, nmetrics = 0, ametrics = 0;
	size_t nmachines = 0, amachines = 0, nbenchmarks = 0, abenchmarks = 0;
	PGconn *conn;
	char *buf, *line, *next;
	double t0, t1;

	if (argc != 3) {
		fprintf(stderr, "usage: pg_insert CONNINFO ROWS\n");
		return 2;
	}
	buf = rows_read(argv[2]);
	for (line = buf; *line; line = next) {
		char *f[13];
		size_t nf;
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		nf = rows_split(line, f, 13);
		if (!strcmp(f[0], "MACHINE") && nf == 3) {
			machines = rows_grow(machines, &amachines, nmachines, sizeof(*machines));
			snprintf(machines[nmachines].id, sizeof(machines[nmachines].id), "%lld",
				 atoll(f[1]) + 1);
			machines[nmachines++].name = f[2];
		} else if (!strcmp(f[0], "BENCHMARK") && nf == 3) {
			benchmarks =
			    rows_grow(benchmarks, &abenchmarks, nbenchmarks, sizeof(*benchmarks));
			snprintf(benchmarks[nbenchmarks].id, sizeof(benchmarks[nbenchmarks].id),
				 "%lld", atoll(f[1]) + 1);
			benchmarks[nbenchmarks++].name = f[2];
		} else if (!strcmp(f[0], "R") && nf == 13) {
			struct run *r;
			runs = rows_grow(runs, &aruns, nruns, sizeof(*runs));
			r = &runs[nruns++];
			*r = (struct run){
			    .config = f[3],
			    .source = f[4],
			    .harness = f[5],
			    .commit = f[6],
			    .branch = f[7],
			    .started = f[8],
			    .primary = f[9],
			    .quietness = text_or_null(f[10]),
			    .digest = f[11],
			    .raw = f[12],
			    .first_metric = nmetrics,
			};
			snprintf(r->machine, sizeof(r->machine), "%lld", atoll(f[1]) + 1);
			snprintf(r->benchmark, sizeof(r->benchmark), "%lld", atoll(f[2]) + 1);
		} else if (!strcmp(f[0], "M") && nf == 10 && nruns) {
			struct metric *m;
			metrics = rows_grow(metrics, &ametrics, nmetrics, sizeof(*metrics));
			m = &metrics[nmetrics++];
			*m = (struct metric){
			    .name = f[1],
			    .kind = f[2],
			    .unit = f[3],
			    .better = f[4],
			    .median = text_or_null(f[5]),
			    .p95 = text_or_null(f[6]),
			    .n = text_or_null(f[7]),
			    .value = text_or_null(f[8]),
			};
			m->samples = rows_samples(f[9], &m->nsamples);
			runs[nruns - 1].nmetrics++;
		} else {
			fprintf(stderr, "pg_insert: %s: bad row '%.40s'\n", argv[2], f[0]);
			return 1;
		}
	}

	conn = PQconnectdb(argv[1]);
	if (PQstatus(conn) != CONNECTION_OK)
		die("connect", conn);
	/* The statements of sql/pg/queries.sql that ingest uses to insert. */
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
	for (size_t i = 0; i < nmachines; i++) {
		const char *v[2] = {machines[i].id, machines[i].name};
		PQclear(run(conn, "machine", 2, v, NULL, NULL, "insert a machine"));
	}
	for (size_t i = 0; i < nbenchmarks; i++) {
		const char *v[2] = {benchmarks[i].id, benchmarks[i].name};
		PQclear(run(conn, "benchmark", 2, v, NULL, NULL, "insert a benchmark"));
	}
	for (size_t i = 0; i < nruns; i++) {
		const struct run *r = &runs[i];
		const char *rv[17] = {r->digest,    r->machine, r->benchmark, r->config, r->source,
				      r->harness,   NULL,	r->commit,    r->branch, NULL,
				      r->started,   "0",	"release",    "0",	 r->primary,
				      r->quietness, r->raw};
		char run_id[24];
		PGresult *res = run(conn, "run", 17, rv, NULL, NULL, "insert a run");
		if (PQntuples(res) != 1)
			die("insert a run: no id", conn);
		snprintf(run_id, sizeof(run_id), "%s", PQgetvalue(res, 0, 0));
		PQclear(res);
		for (size_t k = 0; k < r->nmetrics; k++) {
			const struct metric *m = &metrics[r->first_metric + k];
			const char *mv[11] = {run_id,
					      m->name,
					      m->kind,
					      m->unit,
					      m->better,
					      m->median,
					      m->p95,
					      m->n,
					      m->value,
					      NULL,
					      (const char *)m->samples};
			int lengths[11] = {0};
			int formats[11] = {0};
			/* little-endian doubles, as the store keeps them (x86, arm) */
			lengths[10] = (int)(m->nsamples * sizeof(double));
			formats[10] = 1;
			PQclear(run(conn, "metric", 11, mv, lengths, formats, "insert a metric"));
		}
		const char *kv[6] = {r->machine, r->benchmark, r->config,
				     r->source,	 r->harness,   run_id};
		PQclear(run(conn, "record", 6, kv, NULL, NULL, "insert a record"));
	}
	exec(conn, "COMMIT");
	PQfinish(conn);
	t1 = rows_now();
	printf("%zu %.6f\n", nruns, t1 - t0);
	for (size_t i = 0; i < nmetrics; i++)
		free(metrics[i].samples);
	free(metrics);
	free(runs);
	free(machines);
	free(benchmarks);
	free(buf);
	return 0;
}

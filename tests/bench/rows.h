/*
 * What the two insert floors share (plain_insert.c for SQLite, pg_insert.c for PostgreSQL):
 * reading the tab-separated rows gen-records.pl --rows writes (rows_load), before anything is
 * timed, and the clock they are timed by. Each program defines its own rows_fail, which prints
 * what failed in its own words and exits.
 */
#ifndef BENCHLINE_BENCH_ROWS_H
#define BENCHLINE_BENCH_ROWS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void rows_fail(const char *what);

/* Makes room for one more of nr elements of size bytes (append-one use). */
static void *rows_grow(void *p, size_t *alloc, size_t nr, size_t size)
{
	if (nr < *alloc)
		return p;
	*alloc = *alloc ? *alloc * 2 : 1024;
	p = realloc(p, *alloc * size);
	if (!p)
		rows_fail("out of memory");
	return p;
}

/* Splits line at tabs in place into at most max fields; returns how many. */
static size_t rows_split(char *line, char **fields, size_t max)
{
	size_t n = 0;
	while (n < max) {
		char *tab = strchr(line, '\t');
		fields[n++] = line;
		if (!tab)
			break;
		*tab = '\0';
		line = tab + 1;
	}
	return n;
}

/* A samples field (comma-separated numbers, "-" for none) as a new array of *n doubles. */
static double *rows_samples(const char *s, size_t *n)
{
	double *v = NULL;
	size_t alloc = 0;
	*n = 0;
	if (!strcmp(s, "-"))
		return NULL;
	while (*s) {
		char *end;
		double d = strtod(s, &end);
		if (end == s)
			break;
		v = rows_grow(v, &alloc, *n, sizeof(*v));
		v[(*n)++] = d;
		s = *end == ',' ? end + 1 : end;
	}
	return v;
}

/* The whole rows file, NUL-terminated. */
static char *rows_read(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long len;
	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		perror(path);
		exit(1);
	}
	buf = malloc((size_t)len + 1);
	if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len)
		rows_fail("cannot read the rows");
	buf[len] = '\0';
	fclose(f);
	return buf;
}

/*
 * A rows file: its machines and benchmarks (MACHINE and BENCHMARK lines), runs (R) and each
 * run's metrics (M lines after it). Values are the file's text, "-" where one is absent; ids
 * are the store's (the file's, which count from 0, plus 1).
 */
struct rows_name {
	long long id;
	const char *name;
};

struct rows_run {
	long long machine, benchmark;
	const char *config, *source, *harness, *commit, *branch, *started, *primary, *quietness;
	const char *digest, *raw;
	size_t first_metric, nmetrics; /* its metrics: metrics[first_metric ..] */
};

struct rows_metric {
	const char *name, *kind, *unit, *better, *median, *p95, *n, *value;
	double *samples; /* NULL for none */
	size_t nsamples;
};

struct rows {
	char *buf; /* the file; the values point into it */
	struct rows_name *machines, *benchmarks;
	struct rows_run *runs;
	struct rows_metric *metrics;
	size_t nmachines, nbenchmarks, nruns, nmetrics;
};

/* Reads and splits the rows file at path; a line of no known form fails (rows_fail). */
static void rows_load(struct rows *out, const char *path)
{
	size_t amachines = 0, abenchmarks = 0, aruns = 0, ametrics = 0;
	char *line, *next;

	memset(out, 0, sizeof(*out));
	out->buf = rows_read(path);
	for (line = out->buf; *line; line = next) {
		char *f[13];
		size_t nf;
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		nf = rows_split(line, f, 13);
		if ((!strcmp(f[0], "MACHINE") || !strcmp(f[0], "BENCHMARK")) && nf == 3) {
			int machine = f[0][0] == 'M';
			struct rows_name **list = machine ? &out->machines : &out->benchmarks;
			size_t *n = machine ? &out->nmachines : &out->nbenchmarks;
			*list = rows_grow(*list, machine ? &amachines : &abenchmarks, *n,
					  sizeof(**list));
			(*list)[(*n)++] = (struct rows_name){atoll(f[1]) + 1, f[2]};
		} else if (!strcmp(f[0], "R") && nf == 13) {
			out->runs = rows_grow(out->runs, &aruns, out->nruns, sizeof(*out->runs));
			out->runs[out->nruns++] = (struct rows_run){
			    .machine = atoll(f[1]) + 1,
			    .benchmark = atoll(f[2]) + 1,
			    .config = f[3],
			    .source = f[4],
			    .harness = f[5],
			    .commit = f[6],
			    .branch = f[7],
			    .started = f[8],
			    .primary = f[9],
			    .quietness = f[10],
			    .digest = f[11],
			    .raw = f[12],
			    .first_metric = out->nmetrics,
			};
		} else if (!strcmp(f[0], "M") && nf == 10 && out->nruns) {
			struct rows_metric *m;
			out->metrics = rows_grow(out->metrics, &ametrics, out->nmetrics,
						 sizeof(*out->metrics));
			m = &out->metrics[out->nmetrics++];
			*m = (struct rows_metric){
			    .name = f[1],
			    .kind = f[2],
			    .unit = f[3],
			    .better = f[4],
			    .median = f[5],
			    .p95 = f[6],
			    .n = f[7],
			    .value = f[8],
			};
			m->samples = rows_samples(f[9], &m->nsamples);
			out->runs[out->nruns - 1].nmetrics++;
		} else {
			static char what[128];
			snprintf(what, sizeof(what), "%s: bad row '%.40s'", path, f[0]);
			rows_fail(what);
		}
	}
}

static void rows_release(struct rows *r)
{
	for (size_t i = 0; i < r->nmetrics; i++)
		free(r->metrics[i].samples);
	free(r->metrics);
	free(r->runs);
	free(r->machines);
	free(r->benchmarks);
	free(r->buf);
	memset(r, 0, sizeof(*r));
}

/* Seconds on the monotonic clock. */
static double rows_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif

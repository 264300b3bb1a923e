/*
 * What the two insert floors share (plain_insert.c for SQLite, pg_insert.c for PostgreSQL):
 * reading the tab-separated rows gen-records.pl --rows writes, before anything is timed, and
 * the clock they are timed by. Each program defines its own rows_fail, which prints what
 * failed in its own words and exits.
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

/* Seconds on the monotonic clock. */
static double rows_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif

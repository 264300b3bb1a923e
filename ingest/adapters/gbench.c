/*
 * Google Benchmark JSON (`--benchmark_format=json` or `--benchmark_out`): one record per
 * run_name. Its iteration rows (one per repetition) become the samples of real_time and
 * cpu_time (unit from time_unit) and of each user counter; aggregate rows (mean, median,
 * stddev, cv, BigO, RMS) are not samples, and are only used when a benchmark has no
 * iteration row (--benchmark_report_aggregates_only): then its median row gives the medians.
 * Rows that report an error are skipped. context.host_name and context.date fill machine
 * and started_at when no flag does. docs/formats.md.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/adapters/adapters.h"

/* Numeric row fields that are not counters. */
static const char *const not_counters[] = {
    "family_index",
    "per_family_instance_index",
    "repetitions",
    "repetition_index",
    "threads",
    "iterations",
    "real_time",
    "cpu_time",
    "cpu_coefficient",
    "real_coefficient",
    "rms",
    "complexity_n",
};

/* Counters with a known meaning. */
static const struct {
	const char *name;
	enum metric_kind kind;
	const char *unit;
	int better_higher;
} known_counters[] = {
    {"bytes_per_second", METRIC_TIMED, "B/s", 1},
    {"items_per_second", METRIC_TIMED, "items/s", 1},
    {"allocs_per_iter", METRIC_COUNTED, "allocs", 0},
    {"max_bytes_used", METRIC_COUNTED, "B", 0},
    {"total_allocated_bytes", METRIC_COUNTED, "B", 0},
    {"net_heap_growth", METRIC_COUNTED, "B", 0},
};

/* One figure of a benchmark, gathered over its rows. */
struct series {
	char *name;
	double *values;
	size_t nr, alloc;
	double aggregate_median; /* from a "median" aggregate row, NAN when none */
	double aggregate_mean;
};

/* One benchmark (a run_name) and what its rows said. */
struct bench {
	char *name;
	const char *time_unit;
	size_t first_row; /* index of its first row, for its position */
	int line, column;
	size_t iterations; /* iteration rows seen */
	size_t aggregates; /* aggregate rows seen */
	struct series *series;
	size_t nseries, series_alloc;
};

struct benches {
	struct bench *list;
	size_t nr, alloc;
	json_t *index; /* name -> position in list */
};

static void benches_release(struct benches *b)
{
	for (size_t i = 0; i < b->nr; i++) {
		for (size_t k = 0; k < b->list[i].nseries; k++) {
			free(b->list[i].series[k].name);
			free(b->list[i].series[k].values);
		}
		free(b->list[i].series);
		free(b->list[i].name);
	}
	free(b->list);
	json_decref(b->index);
	memset(b, 0, sizeof(*b));
}

static struct series *series_get(struct bench *b, const char *name)
{
	struct series *s;

	for (size_t i = 0; i < b->nseries; i++)
		if (!strcmp(b->series[i].name, name))
			return &b->series[i];
	ALLOC_GROW(b->series, b->nseries, b->series_alloc);
	s = &b->series[b->nseries++];
	memset(s, 0, sizeof(*s));
	s->name = xstrdup(name);
	s->aggregate_median = s->aggregate_mean = NAN;
	return s;
}

/* The benchmark a row belongs to, new when its name was not seen before. */
static struct bench *bench_get(struct benches *all, const char *name, size_t row)
{
	json_t *known = json_object_get(all->index, name);
	struct bench *b;

	if (known)
		return &all->list[json_integer_value(known)];
	ALLOC_GROW(all->list, all->nr, all->alloc);
	json_object_set_new(all->index, name, json_integer((json_int_t)all->nr));
	b = &all->list[all->nr++];
	memset(b, 0, sizeof(*b));
	b->name = xstrdup(name);
	b->first_row = row;
	return b;
}

static int is_counter(const char *key, json_t *v)
{
	if (!json_is_number(v))
		return 0;
	for (size_t i = 0; i < sizeof(not_counters) / sizeof(not_counters[0]); i++)
		if (!strcmp(not_counters[i], key))
			return 0;
	return 1;
}

/* The benchmark name of a row without run_name: its name less a "/repeats:N" suffix. */
static char *name_of(const char *name)
{
	const char *r = strstr(name, "/repeats:");
	size_t n = strlen(name);

	if (r) {
		const char *d = r + 9;
		while (*d >= '0' && *d <= '9')
			d++;
		if (!*d && d > r + 9)
			n = (size_t)(r - name);
	}
	return xstrndup(name, n);
}

/* Reads one row (at path p, benchmarks[i]) into its benchmark. */
static int read_row(struct benches *all, const struct adapters_input *a, struct adapters_path *p,
		    json_t *row, size_t index)
{
	const char *name = NULL, *run_name = NULL, *run_type = NULL, *aggregate = NULL;
	const char *unit = "ns", *key;
	char *bench_name;
	struct bench *b;
	json_t *v, *err_flag;
	double figure;
	int ret, aggregate_row;

	if (!json_is_object(row))
		return adapters_json_fail(a, p, INGEST_AT_VALUE, "expected an object");
	if ((ret = adapters_get_string(a, p, row, "name", 1, &name)) ||
	    (ret = adapters_get_string(a, p, row, "run_name", 0, &run_name)) ||
	    (ret = adapters_get_string(a, p, row, "run_type", 0, &run_type)) ||
	    (ret = adapters_get_string(a, p, row, "aggregate_name", 0, &aggregate)) ||
	    (ret = adapters_get_string(a, p, row, "time_unit", 0, &unit)))
		return ret;
	err_flag = json_object_get(row, "error_occurred");
	if (json_is_true(err_flag))
		return 0; /* a benchmark that failed: no figures */
	if (run_type && strcmp(run_type, "iteration") && strcmp(run_type, "aggregate")) {
		adapters_path_key(p, "run_type");
		ret = adapters_json_fail(a, p, INGEST_AT_VALUE,
					 "unknown run type (expected \"iteration\" or "
					 "\"aggregate\")");
		adapters_path_pop(p);
		return ret;
	}
	aggregate_row = run_type && !strcmp(run_type, "aggregate");
	if (aggregate_row &&
	    (!aggregate || (strcmp(aggregate, "median") && strcmp(aggregate, "mean"))))
		return 0; /* stddev, cv, BigO, RMS: not a time */
	if (!*unit) {
		adapters_path_key(p, "time_unit");
		ret = adapters_json_fail(a, p, INGEST_AT_VALUE, "empty time unit");
		adapters_path_pop(p);
		return ret;
	}

	bench_name = run_name ? xstrdup(run_name) : name_of(name);
	b = bench_get(all, bench_name, index);
	free(bench_name);
	if (!b->time_unit) {
		b->time_unit = unit;
	} else if (strcmp(b->time_unit, unit)) {
		adapters_path_key(p, "time_unit");
		ret = adapters_json_fail(a, p, INGEST_AT_VALUE,
					 "time unit \"%s\" differs from the benchmark's \"%s\"",
					 unit, b->time_unit);
		adapters_path_pop(p);
		return ret;
	}
	if (aggregate_row)
		b->aggregates++;
	else
		b->iterations++;

	/* real_time and cpu_time are required; every other number is a counter */
	if (!json_object_get(row, "real_time") || !json_object_get(row, "cpu_time")) {
		adapters_path_key(p, json_object_get(row, "real_time") ? "cpu_time" : "real_time");
		ret = adapters_json_fail(a, p, INGEST_AT_PARENT, "missing required field");
		adapters_path_pop(p);
		return ret;
	}
	json_object_foreach (row, key, v) {
		struct series *s;
		if (strcmp(key, "real_time") && strcmp(key, "cpu_time") && !is_counter(key, v))
			continue;
		if ((ret = adapters_get_number(a, p, row, key, 1, &figure)))
			return ret;
		if (strlen(key) > INGEST_MAX_STRING || !*key) {
			adapters_path_key(p, key);
			ret = adapters_json_fail(a, p, INGEST_AT_KEY, "bad counter name");
			adapters_path_pop(p);
			return ret;
		}
		s = series_get(b, key);
		if (!aggregate_row) {
			if (s->nr >= INGEST_MAX_SAMPLES) {
				adapters_path_key(p, key);
				ret = adapters_json_fail(a, p, INGEST_AT_VALUE, "over %d samples",
							 INGEST_MAX_SAMPLES);
				adapters_path_pop(p);
				return ret;
			}
			ALLOC_GROW(s->values, s->nr, s->alloc);
			s->values[s->nr++] = figure;
		} else if (!strcmp(aggregate, "median")) {
			s->aggregate_median = figure;
		} else {
			s->aggregate_mean = figure;
		}
	}
	return 0;
}

/* The metric of one series: its kind, unit and direction. */
static struct ingest_metric *add_series_metric(struct ingest_record *rec, const struct bench *b,
					       const struct series *s)
{
	if (!strcmp(s->name, "real_time") || !strcmp(s->name, "cpu_time"))
		return adapters_add_metric(rec, s->name, METRIC_TIMED, b->time_unit, 0);
	for (size_t i = 0; i < sizeof(known_counters) / sizeof(known_counters[0]); i++)
		if (!strcmp(known_counters[i].name, s->name))
			return adapters_add_metric(rec, s->name, known_counters[i].kind,
						   known_counters[i].unit,
						   known_counters[i].better_higher);
	/* a user counter: its unit is not in the file */
	return adapters_add_metric(rec, s->name, METRIC_TIMED, "", 0);
}

static int make_record(struct ingest_batch *out, const struct adapters_input *a,
		       const struct adapters_common *common, struct bench *b)
{
	struct ingest_record rec;
	int ret;

	if ((ret =
		 adapters_record_init(&rec, common, b->name, b->line, b->column, a->name, a->err)))
		goto done;
	for (size_t i = 0; i < b->nseries; i++) {
		struct series *s = &b->series[i];
		struct ingest_metric *m;
		double fallback =
		    !isnan(s->aggregate_median) ? s->aggregate_median : s->aggregate_mean;
		if (!s->nr && isnan(fallback))
			continue;
		m = add_series_metric(&rec, b, s);
		if (m->kind == METRIC_COUNTED) {
			m->value = s->nr ? adapters_median(s->values, s->nr) : fallback;
		} else if (s->nr) {
			adapters_take_samples(m, s->values, s->nr);
			s->values = NULL;
			s->nr = s->alloc = 0;
		} else {
			m->median = fallback;
		}
	}
	rec.primary = xstrdup("real_time");
	ret = adapters_push(out, &rec, a->name, a->err);
done:
	ingest_record_release(&rec);
	return ret;
}

/* context: host_name, date, and the machine's figures as machine_info. */
static int read_context(struct adapters_file_info *fi, const struct adapters_input *a,
			struct adapters_path *p, json_t *doc)
{
	json_t *ctx = NULL, *info;
	const char *date = NULL;
	int ret;

	if ((ret = adapters_get_object(a, p, doc, "context", 0, &ctx)) || !ctx)
		return ret;
	adapters_path_key(p, "context");
	if ((ret = adapters_get_string(a, p, ctx, "host_name", 0, &fi->machine)) ||
	    (ret = adapters_get_string(a, p, ctx, "date", 0, &date)))
		goto done;
	fi->machine_what = "host name";
	if (date && isnan(a->defaults->started_at) && adapters_parse_time(date, &fi->started_at)) {
		adapters_path_key(p, "date");
		ret = adapters_json_fail(a, p, INGEST_AT_VALUE, "bad date");
		adapters_path_pop(p);
		goto done;
	}
	info = json_object();
	if (json_is_integer(json_object_get(ctx, "num_cpus")))
		json_object_set(info, "num_cpus", json_object_get(ctx, "num_cpus"));
	if (json_is_integer(json_object_get(ctx, "mhz_per_cpu")))
		json_object_set(info, "mhz_per_cpu", json_object_get(ctx, "mhz_per_cpu"));
	if (json_object_size(info)) {
		char *s = json_write_text(info, JSON_WRITE_SORT_KEYS);
		fi->machine_info = xstrdup_or_null(s);
		free(s);
	}
	json_decref(info);
done:
	adapters_path_pop(p);
	return ret;
}

int adapters_gbench(struct ingest_batch *out, const struct adapters_input *a)
{
	struct adapters_file_info fi;
	struct adapters_common common;
	struct adapters_path p = {.n = 0};
	struct adapters_walk walk;
	struct benches all = {NULL, 0, 0, json_object()};
	json_t *doc = NULL, *rows = NULL, *row;
	size_t i, b;
	int ret, line, column;

	adapters_file_info_init(&fi);
	if ((ret = adapters_load_json(&doc, a->name, a->text, a->len, a->err)) ||
	    (ret = read_context(&fi, a, &p, doc)) ||
	    (ret = adapters_get_array(a, &p, doc, "benchmarks", 1, &rows)))
		goto done;
	adapters_path_key(&p, "benchmarks");
	json_array_foreach (rows, i, row) {
		adapters_path_index(&p, i);
		ret = read_row(&all, a, &p, row, i);
		adapters_path_pop(&p);
		if (ret)
			goto done;
	}
	/* each benchmark starts at its first row */
	adapters_walk_start(&walk, a, &p);
	for (i = 0, b = 0; i < json_array_size(rows) && b < all.nr; i++) {
		adapters_walk_next(&walk, a, &line, &column);
		if (all.list[b].first_row == i) {
			all.list[b].line = line;
			all.list[b].column = column;
			b++;
		}
	}
	if (!all.nr) {
		ret = adapters_json_fail(a, &p, INGEST_AT_VALUE, "no benchmark results");
		goto done;
	}
	if ((ret = adapters_resolve(&common, a, &fi)))
		goto done;
	for (b = 0; b < all.nr; b++)
		if ((ret = make_record(out, a, &common, &all.list[b])))
			goto done;
done:
	benches_release(&all);
	json_decref(doc);
	adapters_file_info_release(&fi);
	return ret;
}

/*
 * JMH's JSON (-rf json): an array of
 *   {"jmhVersion", "benchmark": "pkg.Class.method", "mode": "thrpt", "threads", "forks",
 *    "jdkVersion", "vmName", "vmVersion", "params": {"size": "100"},
 *    "primaryMetric": {"score", "scoreError", "scorePercentiles": {"50.0", ...},
 *                      "scoreUnit": "ops/s", "rawData": [[per iteration] per fork]},
 *    "secondaryMetrics": {"·gc.alloc.rate": {same shape}}}
 * One record per benchmark and parameter set (their config: size=100), whichever modes ran:
 * each mode is a timed metric named as JMH names it (thrpt, avgt, sample, ss) with the
 * iterations of every fork as samples (the sample mode's histogram gives its median and p95
 * from scorePercentiles instead). Each secondary metric is a timed metric of its own, named
 * without JMH's leading '·'. A unit of operations per time (ops/s) is better higher, any other
 * lower; a time per operation is written as a time (us/op: us). The JVM becomes machine_info; JMH
 * names no machine and no date. docs/formats.md.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/adapters/adapters.h"

/* JMH writes an undefined figure as the string "NaN". */
static int is_nan_text(json_t *v)
{
	const char *s = json_string_value(v);
	return s && (!strcmp(s, "NaN") || !strcmp(s, "Infinity") || !strcmp(s, "-Infinity"));
}

/* ops/s, ops/ms, ops/us, ops/ns: better higher. */
static int unit_is_rate(const char *unit)
{
	return !strncmp(unit, "ops/", 4);
}

/* A time per operation as benchline writes times (ns/op: ns, as gotest's), else unit. */
static const char *record_unit(const char *unit)
{
	static const char *const times[][2] = {
	    {"ns/op", "ns"}, {"us/op", "us"}, {"ms/op", "ms"}, {"s/op", "s"}};
	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++)
		if (!strcmp(unit, times[i][0]))
			return times[i][1];
	return unit;
}

/* A metric's figures: rawData's values as samples, or the percentiles' median and p95, or the
 * score. */
static int fill_metric(const struct adapters_input *a, struct adapters_path *p, json_t *mo,
		       struct ingest_metric *m)
{
	json_t *raw = json_object_get(mo, "rawData"), *fork, *pct, *score;
	double *samples = NULL, value;
	size_t n = 0, alloc = 0, i, k;
	int ret = 0;

	if (json_is_array(raw)) {
		adapters_path_key(p, "rawData");
		json_array_foreach (raw, i, fork) {
			json_t *v;
			adapters_path_index(p, i);
			if (!json_is_array(fork)) {
				ret = adapters_json_fail(a, p, INGEST_AT_VALUE,
							 "expected an array of iterations");
				adapters_path_pop(p);
				break;
			}
			json_array_foreach (fork, k, v) {
				if (is_nan_text(v))
					continue;
				adapters_path_index(p, k);
				if (n >= INGEST_MAX_SAMPLES)
					ret = adapters_json_fail(a, p, INGEST_AT_VALUE,
								 "over %d samples",
								 INGEST_MAX_SAMPLES);
				else
					ret = adapters_number_value(a, p, v, &value);
				adapters_path_pop(p);
				if (ret)
					break;
				ALLOC_GROW(samples, n, alloc);
				samples[n++] = value;
			}
			adapters_path_pop(p);
			if (ret)
				break;
		}
		adapters_path_pop(p);
		if (ret) {
			free(samples);
			return ret;
		}
		if (n) {
			adapters_take_samples(m, samples, n);
			return 0;
		}
		free(samples);
	}
	pct = json_object_get(mo, "scorePercentiles");
	if (json_is_object(pct) && json_is_number(json_object_get(pct, "50.0"))) {
		double med = NAN, p95 = NAN;
		adapters_path_key(p, "scorePercentiles");
		ret = adapters_get_number(a, p, pct, "50.0", 1, &med);
		if (!ret && json_is_number(json_object_get(pct, "95.0")))
			ret = adapters_get_number(a, p, pct, "95.0", 1, &p95);
		adapters_path_pop(p);
		if (ret)
			return ret;
		m->median = med;
		if (!isnan(p95) && p95 >= med)
			m->p95 = p95;
		return 0;
	}
	score = json_object_get(mo, "score");
	if (!score || is_nan_text(score))
		return adapters_json_fail(a, p, INGEST_AT_VALUE,
					  "no figure: neither rawData, scorePercentiles nor score");
	if ((ret = adapters_get_number(a, p, mo, "score", 1, &value)))
		return ret;
	m->median = value;
	return 0;
}

/* Adds the metric mo (at p) named name to rec; a name already taken gets " (MODE)". */
static int add_metric(struct ingest_record *rec, const struct adapters_input *a,
		      struct adapters_path *p, json_t *mo, const char *name, const char *mode)
{
	struct strbuf full = STRBUF_INIT;
	const char *unit = NULL;
	struct ingest_metric *m;
	int ret;

	if (!json_is_object(mo))
		return adapters_json_fail(a, p, INGEST_AT_VALUE, "expected an object");
	if ((ret = adapters_get_string(a, p, mo, "scoreUnit", 1, &unit)))
		return ret;
	strbuf_addstr(&full, name);
	for (size_t i = 0; i < rec->nmetrics; i++) {
		if (!strcmp(rec->metrics[i].name, full.buf)) {
			if (strcmp(name, mode)) {
				strbuf_addf(&full, " (%s)", mode);
				i = (size_t)-1; /* check the new name too */
				continue;
			}
			ret = adapters_json_fail(a, p, INGEST_AT_VALUE,
						 "mode %s of this benchmark and parameters again",
						 mode);
			strbuf_release(&full);
			return ret;
		}
	}
	m = adapters_add_metric(rec, full.buf, METRIC_TIMED, record_unit(unit), unit_is_rate(unit));
	strbuf_release(&full);
	return fill_metric(a, p, mo, m);
}

struct jmh {
	const struct adapters_input *a;
	struct adapters_common common;
	struct ingest_record *pending; /* one per benchmark and parameter set, in order */
	size_t nr, alloc;
	struct intern index; /* benchmark and config, numbered by position in pending */
	struct strbuf config;
};

static int parse_entry(struct jmh *j, struct adapters_path *p, json_t *e, int line, int column)
{
	const struct adapters_input *a = j->a;
	const char *bench = NULL, *mode = NULL, *key;
	json_t *params = NULL, *primary = NULL, *secondary = NULL, *v;
	int64_t known;
	struct ingest_record *rec;
	struct strbuf id = STRBUF_INIT;
	int ret;

	if (!json_is_object(e))
		return adapters_json_fail(a, p, INGEST_AT_VALUE, "expected an object");
	if ((ret = adapters_get_string(a, p, e, "benchmark", 1, &bench)) ||
	    (ret = adapters_get_string(a, p, e, "mode", 1, &mode)) ||
	    (ret = adapters_get_object(a, p, e, "params", 0, &params)) ||
	    (ret = adapters_get_object(a, p, e, "primaryMetric", 1, &primary)) ||
	    (ret = adapters_get_object(a, p, e, "secondaryMetrics", 0, &secondary)))
		return ret;
	if (!*mode) {
		adapters_path_key(p, "mode");
		ret = adapters_json_fail(a, p, INGEST_AT_VALUE, "empty mode");
		adapters_path_pop(p);
		return ret;
	}
	/* --config, then the parameters */
	strbuf_reset(&j->config);
	strbuf_addstr(&j->config, j->common.config);
	json_object_foreach (params, key, v) {
		adapters_config_add_json(&j->config, key, v);
	}
	strbuf_addf(&id, "%s%c%s", bench, 0x1f, j->config.buf);
	known = intern_find(&j->index, id.buf);
	if (known >= 0) {
		rec = &j->pending[known];
	} else {
		struct adapters_common c = j->common;
		ALLOC_GROW(j->pending, j->nr, j->alloc);
		rec = &j->pending[j->nr];
		c.config = j->config.buf;
		if ((ret = adapters_record_init(rec, &c, bench, line, column, a->name, a->err)))
			goto done;
		rec->primary = xstrdup(mode);
		intern_add(&j->index, id.buf); /* number j->nr */
		j->nr++;
	}
	adapters_path_key(p, "primaryMetric");
	ret = add_metric(rec, a, p, primary, mode, mode);
	adapters_path_pop(p);
	if (ret)
		goto done;
	adapters_path_key(p, "secondaryMetrics");
	json_object_foreach (secondary, key, v) {
		const char *name = !strncmp(key, "\xc2\xb7", 2) ? key + 2 : key;
		adapters_path_key(p, key);
		if (!*name)
			ret = adapters_json_fail(a, p, INGEST_AT_KEY, "empty metric name");
		else
			ret = add_metric(rec, a, p, v, name, mode);
		adapters_path_pop(p);
		if (ret)
			break;
	}
	adapters_path_pop(p);
done:
	strbuf_release(&id);
	return ret;
}

/* The JVM of the first entry, as machine_info. */
static char *jvm_info(json_t *first)
{
	static const char *const keys[][2] = {
	    {"jdkVersion", "jdk"}, {"vmName", "vm"}, {"vmVersion", "vm_version"}};
	json_t *info = json_object();
	char *text = NULL;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		json_t *v = json_object_get(first, keys[i][0]);
		if (json_is_string(v) && json_string_length(v) <= INGEST_MAX_STRING &&
		    utf8_valid(json_string_value(v), json_string_length(v)))
			json_object_set(info, keys[i][1], v);
	}
	if (json_object_size(info))
		text = json_dumps(info, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(info);
	return text;
}

int adapters_jmh(struct ingest_batch *out, const struct adapters_input *a)
{
	struct adapters_file_info fi;
	struct adapters_path p = {.n = 0};
	struct adapters_walk walk;
	struct jmh j;
	json_t *doc = NULL, *e;
	size_t i, pushed = 0;
	int ret, line, column;

	memset(&j, 0, sizeof(j));
	j.a = a;
	intern_init(&j.index);
	strbuf_init(&j.config, 0);
	adapters_file_info_init(&fi);
	if ((ret = adapters_load_json_any(&doc, a->name, a->text, a->len, a->err)))
		goto done;
	if (!json_is_array(doc)) {
		ret = adapters_json_fail(a, &p, INGEST_AT_VALUE,
					 "expected an array of benchmark results");
		goto done;
	}
	if (!json_array_size(doc)) {
		ret = adapters_json_fail(a, &p, INGEST_AT_VALUE, "no benchmark results");
		goto done;
	}
	fi.machine_info = jvm_info(json_array_get(doc, 0));
	if ((ret = adapters_resolve(&j.common, a, &fi)))
		goto done;
	adapters_walk_start(&walk, a, &p);
	json_array_foreach (doc, i, e) {
		adapters_walk_next(&walk, a, &line, &column);
		adapters_path_index(&p, i);
		ret = parse_entry(&j, &p, e, line, column);
		adapters_path_pop(&p);
		if (ret)
			goto done;
	}
	for (; pushed < j.nr; pushed++) {
		ret = adapters_push(out, &j.pending[pushed], a->name, a->err);
		if (ret) {
			pushed++;
			break;
		}
	}
done:
	/* what was not pushed (adapters_push releases what it fails on) */
	for (; pushed < j.nr; pushed++)
		ingest_record_release(&j.pending[pushed]);
	free(j.pending);
	intern_release(&j.index);
	json_decref(doc);
	strbuf_release(&j.config);
	adapters_file_info_release(&fi);
	return ret;
}

/*
 * Bencher's perf JSON, what `bencher perf --project P ...` prints and the perf API answers:
 *   {"project": {...}, "results": [{"branch": {"name"}, "testbed": {"name", "slug"},
 *     "benchmark": {"name"}, "parameter": {"set": {...}}, "measure": {"slug", "units"},
 *     "metrics": [{"report", "iteration", "start_time", "version": {"number", "hash"},
 *                  "metric": {"value", "lower_value", "upper_value"}}]}]}
 * (older exports say "metric_kind" for the measure). One record per testbed, benchmark,
 * parameter set and report, at the report's git hash; one metric per measure, named by its
 * slug, with the report's iterations as samples. Points whose version has no hash are skipped.
 * docs/import.md.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/adapters/adapters.h"

/* One measure of a record under construction: its values, one per iteration. */
struct measure {
	char *slug;
	char *unit;
	double *values;
	size_t nr, alloc;
};

/* One record under construction. */
struct pending {
	char *machine, *benchmark, *config, *branch;
	char commit[41];
	double started_at;
	int line, column;
	struct measure *measures;
	size_t nmeasures;
};

struct bencher {
	struct ingest_history *h;
	const struct adapters_input *a;
	struct pending *list;
	size_t nr, alloc;
	struct intern index; /* keys, numbered by position in list */
	struct strbuf key, config;
};

static void bencher_release(struct bencher *b)
{
	for (size_t i = 0; i < b->nr; i++) {
		struct pending *pd = &b->list[i];
		for (size_t k = 0; k < pd->nmeasures; k++) {
			free(pd->measures[k].slug);
			free(pd->measures[k].unit);
			free(pd->measures[k].values);
		}
		free(pd->measures);
		free(pd->machine);
		free(pd->benchmark);
		free(pd->config);
		free(pd->branch);
	}
	free(b->list);
	intern_release(&b->index);
	strbuf_release(&b->key);
	strbuf_release(&b->config);
}

/* A named thing of a result ({"name", "slug"}): its slug when want_slug and it has one, else
 * its name. */
static int named(const struct adapters_input *a, struct adapters_path *p, json_t *result,
		 const char *key, int want_slug, const char **out)
{
	json_t *o = NULL;
	const char *name = NULL, *slug = NULL;
	int ret;

	if ((ret = adapters_get_object(a, p, result, key, 1, &o)))
		return ret;
	adapters_path_key(p, key);
	if (!(ret = adapters_get_string(a, p, o, "slug", 0, &slug)) &&
	    !(ret = adapters_get_string(a, p, o, "name", !slug, &name)))
		*out = want_slug && slug && *slug ? slug : name ? name : slug;
	adapters_path_pop(p);
	return ret;
}

/* "nanoseconds (ns)": the text in its last parentheses, else all of it. */
static char *unit_of(const char *units)
{
	const char *open = strrchr(units, '('), *close = open ? strchr(open, ')') : NULL;

	if (open && close && close > open + 1)
		return xstrndup(open + 1, (size_t)(close - open - 1));
	return xstrdup(units);
}

/* The point's value: metric.value, or (newer exports) metrics.value.value. */
static int point_value(const struct adapters_input *a, struct adapters_path *p, json_t *point,
		       double *out)
{
	json_t *metric = json_object_get(point, "metric"), *metrics;
	int ret;

	if (json_is_object(metric)) {
		adapters_path_key(p, "metric");
		ret = adapters_get_number(a, p, metric, "value", 1, out);
		adapters_path_pop(p);
		return ret;
	}
	metrics = json_object_get(point, "metrics");
	if (json_is_object(metrics) && json_is_object(json_object_get(metrics, "value"))) {
		adapters_path_key(p, "metrics");
		adapters_path_key(p, "value");
		ret = adapters_get_number(a, p, json_object_get(metrics, "value"), "value", 1, out);
		adapters_path_pop(p);
		adapters_path_pop(p);
		return ret;
	}
	adapters_path_key(p, "metric");
	ret = adapters_json_fail(a, p, INGEST_AT_PARENT, "missing required field");
	adapters_path_pop(p);
	return ret;
}

static struct measure *measure_of(struct pending *pd, const char *slug, const char *unit)
{
	for (size_t i = 0; i < pd->nmeasures; i++)
		if (!strcmp(pd->measures[i].slug, slug))
			return &pd->measures[i];
	pd->measures = xrealloc(pd->measures, (pd->nmeasures + 1) * sizeof(*pd->measures));
	memset(&pd->measures[pd->nmeasures], 0, sizeof(*pd->measures));
	pd->measures[pd->nmeasures].slug = xstrdup(slug);
	pd->measures[pd->nmeasures].unit = unit_of(unit);
	return &pd->measures[pd->nmeasures++];
}

static int parse_point(struct bencher *b, struct adapters_path *p, json_t *point,
		       const char *const what[5], const char *units, int line, int column)
{
	const struct adapters_input *a = b->a;
	const char *report = NULL, *hash = NULL, *start = NULL;
	json_t *version = NULL;
	int64_t known;
	struct pending *pd;
	struct measure *m;
	double value = NAN, started;
	int ret;

	if (!json_is_object(point))
		return adapters_json_fail(a, p, INGEST_AT_VALUE, "expected an object");
	if ((ret = adapters_get_string(a, p, point, "report", 1, &report)) ||
	    (ret = adapters_get_string(a, p, point, "start_time", 1, &start)) ||
	    (ret = adapters_get_object(a, p, point, "version", 1, &version)) ||
	    (ret = point_value(a, p, point, &value)))
		return ret;
	if (json_is_string(json_object_get(version, "hash")))
		hash = json_string_value(json_object_get(version, "hash"));
	if (adapters_parse_time(start, &started)) {
		adapters_path_key(p, "start_time");
		ret = adapters_json_fail(a, p, INGEST_AT_VALUE, "not a date: \"%s\"", start);
		adapters_path_pop(p);
		return ret;
	}
	if (!hash || !is_hex40(hash)) {
		b->h->skipped[INGEST_SKIP_NO_COMMIT]++;
		return 0;
	}
	/* testbed, benchmark, parameters and report: one record */
	strbuf_reset(&b->key);
	strbuf_addf(&b->key, "%s%c%s%c%s%c%s", what[1], 0x1f, what[2], 0x1f, b->config.buf, 0x1f,
		    report);
	known = intern_find(&b->index, b->key.buf);
	if (known >= 0) {
		pd = &b->list[known];
		if (started < pd->started_at)
			pd->started_at = started;
	} else {
		ALLOC_GROW(b->list, b->nr, b->alloc);
		pd = &b->list[b->nr];
		memset(pd, 0, sizeof(*pd));
		pd->machine = xstrdup(what[1]);
		pd->benchmark = xstrdup(what[2]);
		pd->config = xstrdup(b->config.buf);
		pd->branch = xstrdup_or_null(what[0]);
		memcpy(pd->commit, hash, 40);
		pd->started_at = started;
		pd->line = line;
		pd->column = column;
		intern_add(&b->index, b->key.buf); /* number b->nr */
		b->nr++;
	}
	m = measure_of(pd, what[3], units);
	if (m->nr >= INGEST_MAX_SAMPLES)
		return adapters_json_fail(a, p, INGEST_AT_VALUE,
					  "over %d iterations of one measure in one report",
					  INGEST_MAX_SAMPLES);
	ALLOC_GROW(m->values, m->nr, m->alloc);
	m->values[m->nr++] = value;
	return 0;
}

static int parse_result(struct bencher *b, struct adapters_path *p, json_t *result)
{
	const struct adapters_input *a = b->a;
	const struct ingest_defaults *d = b->h->defaults;
	const char *what[5] = {NULL}, *units = NULL; /* branch, testbed, benchmark, measure */
	json_t *metrics = NULL, *measure, *parameter, *set, *point, *v;
	const char *key, *mkey;
	struct adapters_walk walk;
	size_t i;
	int ret, line, column;

	if (!json_is_object(result))
		return adapters_json_fail(a, p, INGEST_AT_VALUE, "expected an object");
	mkey = json_object_get(result, "measure") || !json_object_get(result, "metric_kind")
		   ? "measure"
		   : "metric_kind";
	if ((ret = named(a, p, result, "branch", 0, &what[0])) ||
	    (ret = named(a, p, result, "testbed", 1, &what[1])) ||
	    (ret = named(a, p, result, "benchmark", 0, &what[2])) ||
	    (ret = named(a, p, result, mkey, 1, &what[3])) ||
	    (ret = adapters_get_array(a, p, result, "metrics", 1, &metrics)))
		return ret;
	measure = json_object_get(result, mkey);
	adapters_path_key(p, mkey);
	ret = adapters_get_string(a, p, measure, "units", 0, &units);
	adapters_path_pop(p);
	if (ret)
		return ret;
	/* the parameter set, after --config */
	strbuf_reset(&b->config);
	if (d->config)
		strbuf_addstr(&b->config, d->config);
	parameter = json_object_get(result, "parameter");
	set = json_is_object(parameter) ? json_object_get(parameter, "set") : NULL;
	json_object_foreach (set, key, v) {
		adapters_config_add_json(&b->config, key, v);
	}
	adapters_path_key(p, "metrics");
	adapters_walk_start(&walk, a, p);
	json_array_foreach (metrics, i, point) {
		adapters_walk_next(&walk, a, &line, &column);
		adapters_path_index(p, i);
		ret = parse_point(b, p, point, what, units ? units : "", line, column);
		adapters_path_pop(p);
		if (ret)
			break;
	}
	adapters_path_pop(p);
	return ret;
}

static int emit(struct bencher *b, struct pending *pd)
{
	struct adapters_point pt;
	struct ingest_record rec;
	int ret;

	memset(&pt, 0, sizeof(pt));
	pt.machine = pd->machine;
	pt.benchmark = pd->benchmark;
	pt.config = pd->config;
	pt.commit = pd->commit;
	pt.branch = pd->branch;
	pt.committed_at = NAN;
	pt.started_at = pd->started_at;
	pt.line = pd->line;
	pt.column = pd->column;
	if ((ret = adapters_history_record(&rec, b->h, &pt, b->a->name, b->a->err)))
		return ret;
	for (size_t k = 0; k < pd->nmeasures; k++) {
		struct measure *m = &pd->measures[k];
		struct adapters_measure how;
		struct ingest_metric *im;
		adapters_bencher_measure(&how, m->slug, m->unit);
		im = adapters_add_metric(&rec, m->slug, how.kind, how.unit, how.better_higher);
		if (how.kind == METRIC_COUNTED) {
			im->value = adapters_median(m->values, m->nr);
		} else if (m->nr > 1) {
			adapters_take_samples(im, m->values, m->nr);
			m->values = NULL;
			m->nr = 0;
		} else {
			im->median = m->values[0];
		}
	}
	if (pd->nmeasures && !strcmp(pd->measures[0].slug, "latency"))
		rec.primary = xstrdup("latency");
	return adapters_history_emit(b->h, &rec, b->a->name, b->a->err);
}

int adapters_history_bencher(struct ingest_history *h, const char *name, const char *text,
			     size_t len, struct bl_error *err)
{
	struct adapters_input a;
	struct adapters_path p = {.n = 0};
	struct bencher b;
	json_t *doc = NULL, *results, *result;
	size_t i, start = ingest_json_skip_ws(text, len, 0);
	int ret, kind = adapters_detect_history(text, len);

	memset(&b, 0, sizeof(b));
	intern_init(&b.index);
	strbuf_init(&b.key, 0);
	strbuf_init(&b.config, 0);
	/* another tool's file says so before its fields are missed one by one */
	if ((kind >= 0 && kind != HISTORY_BENCHER) ||
	    (kind < 0 && adapters_looks_like(text, len, NULL))) {
		ret = adapters_not_a(err, name, text, len, start, "Bencher's perf JSON",
				     "an object with a \"results\" array", NULL);
		goto done;
	}
	if ((ret = adapters_load_json_any(&doc, name, text, len, err)))
		goto done;
	results = json_object_get(doc, "results");
	if (!json_is_object(doc) || !json_is_array(results)) {
		ret =
		    adapters_not_a(err, name, text, len, start, "Bencher's perf JSON",
				   "an object with a \"results\" array",
				   json_is_object(doc) ? "no \"results\" array" : "another value");
		goto done;
	}
	adapters_history_input(&a, h, name, text, len, err);
	b.h = h;
	b.a = &a;
	adapters_path_key(&p, "results");
	json_array_foreach (results, i, result) {
		adapters_path_index(&p, i);
		ret = parse_result(&b, &p, result);
		adapters_path_pop(&p);
		if (ret)
			goto done;
		if (h->progress)
			h->progress(h->progress_data, i + 1, json_array_size(results));
	}
	for (i = 0; i < b.nr; i++)
		if ((ret = emit(&b, &b.list[i])))
			break;
done:
	json_decref(doc);
	bencher_release(&b);
	return ret;
}

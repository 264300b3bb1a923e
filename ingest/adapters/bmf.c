/*
 * Bencher Metric Format: {"BENCHMARK": {"MEASURE": {"value", "lower_value", "upper_value"}}}.
 * One record per benchmark, one metric per measure. Bencher's built-in measures keep their
 * meaning (latency in ns, throughput in ops/s with higher better, build-time in s, file-size
 * in bytes, counted); any other measure is a timed metric with no unit, lower better. The
 * value is the median; lower and upper values are checked but not kept (they are not
 * samples). docs/formats.md.
 */
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "ingest/adapters/adapters.h"

static const struct {
	const char *name;
	struct adapters_measure m;
} builtin[] = {
    {"latency", {METRIC_TIMED, "ns", 0}},
    {"throughput", {METRIC_TIMED, "ops/s", 1}},
    {"build-time", {METRIC_TIMED, "s", 0}},
    {"file-size", {METRIC_COUNTED, "B", 0}},
};

void adapters_bencher_measure(struct adapters_measure *out, const char *measure, const char *unit)
{
	for (size_t i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++) {
		if (!strcmp(builtin[i].name, measure)) {
			*out = builtin[i].m;
			return;
		}
	}
	out->kind = METRIC_TIMED;
	out->unit = unit ? unit : "";
	out->better_higher = 0;
}

static int parse_measure(struct ingest_record *rec, const struct adapters_input *a,
			 struct adapters_path *p, const char *measure, json_t *mo)
{
	struct adapters_measure k;
	struct ingest_metric *m;
	double value = NAN, lower = NAN, upper = NAN;
	int ret;

	adapters_path_key(p, measure);
	if (!*measure) {
		ret = adapters_json_fail(a, p, INGEST_AT_KEY, "empty measure name");
		goto done;
	}
	if (strlen(measure) > INGEST_MAX_STRING) {
		ret = adapters_json_fail(a, p, INGEST_AT_KEY, "measure name longer than %d bytes",
					 INGEST_MAX_STRING);
		goto done;
	}
	if (!json_is_object(mo)) {
		ret = adapters_json_fail(a, p, INGEST_AT_VALUE, "expected an object");
		goto done;
	}
	if ((ret = adapters_get_number(a, p, mo, "value", 1, &value)) ||
	    (ret = adapters_get_number(a, p, mo, "lower_value", 0, &lower)) ||
	    (ret = adapters_get_number(a, p, mo, "upper_value", 0, &upper)))
		goto done;
	adapters_bencher_measure(&k, measure, NULL);
	m = adapters_add_metric(rec, measure, k.kind, k.unit, k.better_higher);
	if (k.kind == METRIC_COUNTED)
		m->value = value;
	else
		m->median = value;
done:
	adapters_path_pop(p);
	return ret;
}

static int parse_benchmark(struct ingest_batch *batch, const struct adapters_input *a,
			   const struct adapters_common *common, struct adapters_path *p,
			   const char *bench, json_t *bo, int line, int column)
{
	struct ingest_record rec;
	const char *measure;
	json_t *mo;
	int ret;

	memset(&rec, 0, sizeof(rec));
	adapters_path_key(p, bench);
	if (!json_is_object(bo)) {
		ret = adapters_json_fail(a, p, INGEST_AT_VALUE, "expected an object of measures");
		goto done;
	}
	if (!json_object_size(bo)) {
		ret = adapters_json_fail(a, p, INGEST_AT_VALUE,
					 "no measures (at least one is required)");
		goto done;
	}
	if ((ret = adapters_record_init(&rec, common, bench, line, column, a->name, a->err)))
		goto done;
	json_object_foreach (bo, measure, mo) {
		if ((ret = parse_measure(&rec, a, p, measure, mo)))
			goto done;
	}
	if (json_object_get(bo, "latency"))
		rec.primary = xstrdup("latency");
	ret = adapters_push(batch, &rec, a->name, a->err);
done:
	ingest_record_release(&rec);
	adapters_path_pop(p);
	return ret;
}

int adapters_bmf(struct ingest_batch *out, const struct adapters_input *a)
{
	struct adapters_file_info fi;
	struct adapters_common common;
	struct adapters_path p = {.n = 0};
	struct adapters_walk walk;
	json_t *doc = NULL, *bo;
	const char *bench;
	int ret, line, column;

	adapters_file_info_init(&fi);
	if ((ret = adapters_load_json(&doc, a->name, a->text, a->len, a->err)))
		goto done;
	if (!json_object_size(doc)) {
		ret = adapters_json_fail(a, &p, INGEST_AT_VALUE, "no benchmarks");
		goto done;
	}
	if ((ret = adapters_resolve(&common, a, &fi)))
		goto done;
	/* a record starts at its benchmark's key */
	adapters_walk_start(&walk, a, &p);
	json_object_foreach (doc, bench, bo) {
		adapters_walk_next(&walk, a, &line, &column);
		if ((ret = parse_benchmark(out, a, &common, &p, bench, bo, line, column)))
			goto done;
	}
done:
	json_decref(doc);
	adapters_file_info_release(&fi);
	return ret;
}

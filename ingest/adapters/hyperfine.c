/*
 * hyperfine `--export-json`: {"results": [{"command", "times", "mean", "median", "user",
 * "system", "exit_codes", ...}]}. One record per result, named by command_name when the file
 * has it, else command (hyperfine 1.15 writes the -n name there). times become the samples
 * of the timed metric "time" (unit s); user and system, which hyperfine gives only as means,
 * become timed metrics of their own with that mean as median. exit_codes are ignored.
 * docs/formats.md.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/adapters/adapters.h"

static int parse_result(struct ingest_batch *out, const struct adapters_input *a,
			const struct adapters_common *common, struct adapters_path *p, json_t *res,
			int line, int column)
{
	struct ingest_record rec;
	struct ingest_metric *m;
	const char *command = NULL, *name = NULL;
	double median = NAN, mean = NAN, user = NAN, sys = NAN, *samples = NULL;
	size_t n = 0;
	json_t *times = NULL;
	int ret;

	memset(&rec, 0, sizeof(rec));
	if (!json_is_object(res))
		return adapters_json_fail(a, p, INGEST_AT_VALUE, "expected an object");
	if ((ret = adapters_get_string(a, p, res, "command", 1, &command)) ||
	    (ret = adapters_get_string(a, p, res, "command_name", 0, &name)) ||
	    (ret = adapters_get_array(a, p, res, "times", 0, &times)) ||
	    (ret = adapters_get_number(a, p, res, "median", 0, &median)) ||
	    (ret = adapters_get_number(a, p, res, "mean", 0, &mean)) ||
	    (ret = adapters_get_number(a, p, res, "user", 0, &user)) ||
	    (ret = adapters_get_number(a, p, res, "system", 0, &sys)))
		return ret;
	if (times) {
		adapters_path_key(p, "times");
		ret = adapters_get_samples(a, p, times, &samples, &n);
		adapters_path_pop(p);
		if (ret)
			return ret;
	}
	if (!n && isnan(median) && isnan(mean)) {
		adapters_path_key(p, "times");
		ret = adapters_json_fail(a, p, INGEST_AT_PARENT,
					 "missing required field (give times, median or mean)");
		adapters_path_pop(p);
		return ret;
	}
	if ((ret = adapters_record_init(&rec, common, name ? name : command, line, column, a->name,
					a->err))) {
		free(samples);
		goto done;
	}
	m = adapters_add_metric(&rec, "time", METRIC_TIMED, "s", 0);
	if (n)
		adapters_take_samples(m, samples, n);
	else
		m->median = !isnan(median) ? median : mean;
	if (!isnan(user))
		adapters_add_metric(&rec, "user", METRIC_TIMED, "s", 0)->median = user;
	if (!isnan(sys))
		adapters_add_metric(&rec, "system", METRIC_TIMED, "s", 0)->median = sys;
	rec.primary = xstrdup("time");
	ret = adapters_push(out, &rec, a->name, a->err);
done:
	ingest_record_release(&rec);
	return ret;
}

int adapters_hyperfine(struct ingest_batch *out, const struct adapters_input *a)
{
	struct adapters_file_info fi;
	struct adapters_common common;
	struct adapters_path p = {.n = 0};
	json_t *doc = NULL, *results = NULL;
	int ret;

	adapters_file_info_init(&fi);
	if ((ret = adapters_load_json(&doc, a->name, a->text, a->len, a->err)) ||
	    (ret = adapters_get_array(a, &p, doc, "results", 1, &results)))
		goto done;
	adapters_path_key(&p, "results");
	if (!json_array_size(results)) {
		ret = adapters_json_fail(a, &p, INGEST_AT_VALUE, "no results");
		goto done;
	}
	if ((ret = adapters_resolve(&common, a, &fi)))
		goto done;
	ret = adapters_each_element(out, a, &common, &p, results, parse_result);
done:
	json_decref(doc);
	adapters_file_info_release(&fi);
	return ret;
}

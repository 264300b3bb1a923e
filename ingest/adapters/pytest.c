/*
 * pytest-benchmark JSON (`--benchmark-json`): {"machine_info", "commit_info", "benchmarks":
 * [{"name", "fullname", "stats": {"median", "rounds", "data", ...}}], "datetime"}. One record
 * per benchmark, named by fullname (else name), with the timed metric "time" (unit s):
 * stats.data (the per-round times, present when saved with the data) become its samples;
 * without data, stats.median is the median and stats.rounds the count. machine_info.node
 * fills the machine, datetime started_at, and commit_info (id, branch, dirty, time) the
 * source when no flag does. docs/formats.md.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/adapters/adapters.h"

/* machine_info: node as the machine, the CPU, OS and Python as machine_info. */
static int read_machine(struct adapters_file_info *fi, const struct adapters_input *a,
			struct adapters_path *p, json_t *doc)
{
	json_t *mi = NULL, *info, *cpu;
	const char *s;
	int ret;

	if ((ret = adapters_get_object(a, p, doc, "machine_info", 0, &mi)) || !mi)
		return ret;
	adapters_path_key(p, "machine_info");
	ret = adapters_get_string(a, p, mi, "node", 0, &fi->machine);
	adapters_path_pop(p);
	if (ret)
		return ret;
	fi->machine_what = "node";
	info = json_object();
	cpu = json_object_get(mi, "cpu");
	if (json_is_object(cpu) && json_is_string(json_object_get(cpu, "brand_raw")))
		json_object_set(info, "cpu", json_object_get(cpu, "brand_raw"));
	else if (json_is_object(cpu) && json_is_string(json_object_get(cpu, "brand")))
		json_object_set(info, "cpu", json_object_get(cpu, "brand"));
	if (json_is_string(json_object_get(mi, "system"))) {
		struct strbuf os = STRBUF_INIT;
		strbuf_addstr(&os, json_string_value(json_object_get(mi, "system")));
		s = json_string_value(json_object_get(mi, "release"));
		if (s && *s)
			strbuf_addf(&os, " %s", s);
		json_object_set_new(info, "os", json_string(os.buf));
		strbuf_release(&os);
	}
	if (json_is_string(json_object_get(mi, "python_version"))) {
		struct strbuf py = STRBUF_INIT;
		s = json_string_value(json_object_get(mi, "python_implementation"));
		if (s && *s)
			strbuf_addf(&py, "%s ", s);
		strbuf_addstr(&py, json_string_value(json_object_get(mi, "python_version")));
		json_object_set_new(info, "python", json_string(py.buf));
		strbuf_release(&py);
	}
	if (json_object_size(info)) {
		char *dump = json_write_text(info, JSON_WRITE_SORT_KEYS);
		fi->machine_info = dump && strlen(dump) <= INGEST_MAX_STRING ? xstrdup(dump) : NULL;
		free(dump);
	}
	json_decref(info);
	return 0;
}

/* commit_info: used only when it names a commit (40 hex digits, not "unversioned"). */
static int read_commit(struct adapters_file_info *fi, const struct adapters_input *a,
		       struct adapters_path *p, json_t *doc)
{
	json_t *ci = NULL, *v;
	const char *id = NULL, *branch = NULL, *time = NULL;
	int ret;

	if ((ret = adapters_get_object(a, p, doc, "commit_info", 0, &ci)) || !ci)
		return ret;
	adapters_path_key(p, "commit_info");
	v = json_object_get(ci, "id");
	if (json_is_string(v) && is_hex40(json_string_value(v)))
		id = json_string_value(v);
	if (!id)
		goto done;
	fi->commit = id;
	v = json_object_get(ci, "branch");
	if (json_is_string(v) && (branch = json_string_value(v)) && *branch &&
	    strcmp(branch, "(unknown)"))
		fi->branch = branch;
	fi->dirty = json_is_true(json_object_get(ci, "dirty"));
	v = json_object_get(ci, "time");
	if (json_is_string(v) && (time = json_string_value(v)) &&
	    adapters_parse_time(time, &fi->committed_at))
		fi->committed_at = NAN;
done:
	adapters_path_pop(p);
	return ret;
}

static int parse_benchmark(struct ingest_batch *out, const struct adapters_input *a,
			   const struct adapters_common *common, struct adapters_path *p,
			   json_t *bo, int line, int column)
{
	struct ingest_record rec;
	struct ingest_metric *m;
	const char *name = NULL, *fullname = NULL;
	json_t *stats = NULL, *data = NULL, *rounds;
	double median = NAN, *samples = NULL;
	size_t n = 0;
	int ret;

	memset(&rec, 0, sizeof(rec));
	if (!json_is_object(bo))
		return adapters_json_fail(a, p, INGEST_AT_VALUE, "expected an object");
	if ((ret = adapters_get_string(a, p, bo, "fullname", 0, &fullname)) ||
	    (ret = adapters_get_string(a, p, bo, "name", !fullname, &name)) ||
	    (ret = adapters_get_object(a, p, bo, "stats", 1, &stats)))
		return ret;
	adapters_path_key(p, "stats");
	if ((ret = adapters_get_array(a, p, stats, "data", 0, &data)) ||
	    (ret = adapters_get_number(a, p, stats, "median", !data, &median)))
		goto done;
	if (data) {
		adapters_path_key(p, "data");
		ret = adapters_get_samples(a, p, data, &samples, &n);
		adapters_path_pop(p);
		if (ret)
			goto done;
		if (!n && isnan(median)) {
			ret = adapters_get_number(a, p, stats, "median", 1, &median);
			goto done;
		}
	}
	if ((ret = adapters_record_init(&rec, common, fullname ? fullname : name, line, column,
					a->name, a->err)))
		goto done;
	m = adapters_add_metric(&rec, "time", METRIC_TIMED, "s", 0);
	if (n) {
		adapters_take_samples(m, samples, n);
		samples = NULL;
	} else {
		m->median = median;
		rounds = json_object_get(stats, "rounds");
		if (json_is_integer(rounds) && json_integer_value(rounds) >= 0)
			m->n = json_integer_value(rounds);
	}
	ret = adapters_push(out, &rec, a->name, a->err);
done:
	adapters_path_pop(p);
	free(samples);
	ingest_record_release(&rec);
	return ret;
}

int adapters_pytest(struct ingest_batch *out, const struct adapters_input *a)
{
	struct adapters_file_info fi;
	struct adapters_common common;
	struct adapters_path p = {.n = 0};
	json_t *doc = NULL, *list = NULL;
	const char *date = NULL;
	int ret;

	adapters_file_info_init(&fi);
	if ((ret = adapters_load_json(&doc, a->name, a->text, a->len, a->err)) ||
	    (ret = read_machine(&fi, a, &p, doc)) || (ret = read_commit(&fi, a, &p, doc)) ||
	    (ret = adapters_get_string(a, &p, doc, "datetime", 0, &date)) ||
	    (ret = adapters_get_array(a, &p, doc, "benchmarks", 1, &list)))
		goto done;
	if (date && isnan(a->defaults->started_at) && adapters_parse_time(date, &fi.started_at)) {
		adapters_path_key(&p, "datetime");
		ret = adapters_json_fail(a, &p, INGEST_AT_VALUE, "bad date");
		goto done;
	}
	adapters_path_key(&p, "benchmarks");
	if (!json_array_size(list)) {
		ret = adapters_json_fail(a, &p, INGEST_AT_VALUE, "no benchmarks");
		goto done;
	}
	if ((ret = adapters_resolve(&common, a, &fi)))
		goto done;
	ret = adapters_each_element(out, a, &common, &p, list, parse_benchmark);
done:
	json_decref(doc);
	adapters_file_info_release(&fi);
	return ret;
}

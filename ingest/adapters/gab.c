/*
 * github-action-benchmark's data.js, the history its gh-pages chart reads:
 *   window.BENCHMARK_DATA = {"lastUpdate": MS, "repoUrl": URL, "entries": {SUITE: [ENTRY...]}}
 *   ENTRY: {"commit": {"id", "tree_id", "timestamp", ...}, "date": MS, "tool": TOOL,
 *           "benches": [{"name", "value", "unit", "range", "extra"}]}
 * One record per bench of each entry, at the entry's commit. Each suite is a machine of its own
 * ("gab-" and its name), or with --machine a config of its own when there are several. The
 * metric is named by the unit (a time, a rate, or another value) and by the tool where that
 * matches the adapter a team moves to (googlecpp: real_time; catch2: mean); custom tools say
 * which way is better. docs/import.md.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/adapters/adapters.h"

#define PREFIX "window.BENCHMARK_DATA"

/* A metric as a data.js unit and tool make it. */
struct gab_metric {
	const char *name;
	struct strbuf unit;
	int better_higher;
};

/* ns, us, µs, μs, ms, s or sec, alone or per iter, op, call or run: the time part, written as
 * benchline's units are ("us", "s"); NULL when word is not a time. */
static const char *time_unit(const char *word, size_t n)
{
	static const struct {
		const char *in, *out;
	} units[] = {{"ns", "ns"}, {"us", "us"}, {"\xc2\xb5s", "us"}, {"\xce\xbcs", "us"},
		     {"ms", "ms"}, {"s", "s"},	 {"sec", "s"}};
	static const char *const per[] = {"", "/iter", "/op", "/call", "/run"};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t u = strlen(units[i].in);
		if (n < u || memcmp(word, units[i].in, u))
			continue;
		for (size_t k = 0; k < sizeof(per) / sizeof(per[0]); k++)
			if (n - u == strlen(per[k]) && !memcmp(word + u, per[k], n - u))
				return units[i].out;
	}
	return NULL;
}

/* X/s, X/sec, X/second: a rate. */
static int is_rate(const char *word, size_t n)
{
	static const char *const ends[] = {"/s", "/sec", "/second"};
	for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		size_t e = strlen(ends[i]);
		if (n > e && !memcmp(word + n - e, ends[i], e))
			return 1;
	}
	return 0;
}

static void metric_of(struct gab_metric *m, const char *unit, const char *tool)
{
	const char *word = unit, *t;
	size_t n;

	/* the unit's first word: an old Go parser glued "4.000 auxMetricUnits" after "ns/op" */
	while (*word == ' ' || *word == '\t')
		word++;
	for (n = 0; word[n] && word[n] != ' ' && word[n] != '\t'; n++)
		;
	strbuf_reset(&m->unit);
	if ((t = time_unit(word, n))) {
		strbuf_addstr(&m->unit, t);
		m->name = tool && !strcmp(tool, "googlecpp") ? "real_time"
			  : tool && !strcmp(tool, "catch2")  ? "mean"
							     : "time";
		m->better_higher = 0;
	} else if (is_rate(word, n)) {
		strbuf_add(&m->unit, word, n);
		m->name = "throughput";
		m->better_higher = 1;
	} else {
		strbuf_add(&m->unit, word, n);
		m->name = "value";
		m->better_higher = 0;
	}
	if (tool && !strcmp(tool, "customBiggerIsBetter"))
		m->better_higher = 1;
	else if (tool && !strcmp(tool, "customSmallerIsBetter"))
		m->better_higher = 0;
}

/* "gab-" and the suite's name in lower case, runs of other characters than [a-z0-9.] one '-',
 * '+' read as 'p' ("C++ Benchmark": gab-cpp-benchmark), made unique with -2, -3... */
static void suite_machine(char out[65], const char *suite, struct intern *taken)
{
	struct strbuf m = STRBUF_INIT;
	char base[65];
	int dash = 0;

	strbuf_addstr(&m, "gab-");
	for (const char *s = suite; *s; s++) {
		char c = *s >= 'A' && *s <= 'Z' ? (char)(*s - 'A' + 'a') : *s;
		if (c == '+')
			c = 'p';
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.') {
			if (dash && m.buf[m.len - 1] != '-')
				strbuf_addch(&m, '-');
			strbuf_addch(&m, c);
			dash = 0;
		} else {
			dash = 1;
		}
	}
	if (m.buf[m.len - 1] == '-')
		strbuf_setlen(&m, m.len - 1);
	adapters_machine_name(base, m.buf);
	snprintf(out, 65, "%s", base);
	for (int n = 2; intern_find(taken, out) >= 0; n++) {
		char suffix[16];
		size_t keep;
		snprintf(suffix, sizeof(suffix), "-%d", n);
		keep = strlen(base) + strlen(suffix) > 64 ? 64 - strlen(suffix) : strlen(base);
		snprintf(out, 65, "%.*s%s", (int)keep, base, suffix);
	}
	intern_add(taken, out);
	strbuf_release(&m);
}

struct gab {
	struct ingest_history *h;
	const struct adapters_input *a;
	struct gab_metric metric;
	size_t done, total;
	int suites;
};

static int parse_bench(struct gab *g, struct adapters_point *pt, struct adapters_path *p,
		       json_t *bench, const char *tool)
{
	const struct adapters_input *a = g->a;
	struct ingest_record rec;
	const char *name = NULL, *unit = NULL;
	double value = NAN;
	int ret;

	if (!json_is_object(bench))
		return adapters_json_fail(a, p, INGEST_AT_VALUE, "expected an object");
	if ((ret = adapters_get_string(a, p, bench, "name", 1, &name)) ||
	    (ret = adapters_get_string(a, p, bench, "unit", 0, &unit)) ||
	    (ret = adapters_get_number(a, p, bench, "value", 1, &value)))
		return ret;
	metric_of(&g->metric, unit ? unit : "", tool);
	pt->benchmark = name;
	if ((ret = adapters_history_record(&rec, g->h, pt, a->name, a->err)))
		return ret;
	adapters_add_metric(&rec, g->metric.name, METRIC_TIMED, g->metric.unit.buf,
			    g->metric.better_higher)
	    ->median = value;
	return adapters_history_emit(g->h, &rec, a->name, a->err);
}

static int parse_entry(struct gab *g, struct adapters_point *pt, struct adapters_path *p,
		       json_t *entry, double *prev_committed)
{
	const struct adapters_input *a = g->a;
	json_t *commit = NULL, *benches = NULL, *bench;
	const char *id = NULL, *tree = NULL, *stamp = NULL, *tool = NULL;
	double date = NAN;
	size_t i;
	int ret;

	if (!json_is_object(entry))
		return adapters_json_fail(a, p, INGEST_AT_VALUE, "expected an object");
	if ((ret = adapters_get_object(a, p, entry, "commit", 1, &commit)) ||
	    (ret = adapters_get_array(a, p, entry, "benches", 1, &benches)) ||
	    (ret = adapters_get_string(a, p, entry, "tool", 0, &tool)) ||
	    (ret = adapters_get_number(a, p, entry, "date", 1, &date)))
		return ret;
	adapters_path_key(p, "commit");
	/* a null id is a run the action could not tie to a commit */
	if ((!json_is_null(json_object_get(commit, "id")) &&
	     (ret = adapters_get_string(a, p, commit, "id", 0, &id))) ||
	    (ret = adapters_get_string(a, p, commit, "tree_id", 0, &tree)) ||
	    (ret = adapters_get_string(a, p, commit, "timestamp", 0, &stamp)))
		goto done;
	pt->committed_at = NAN;
	if (stamp && adapters_parse_time(stamp, &pt->committed_at)) {
		adapters_path_key(p, "timestamp");
		ret = adapters_json_fail(a, p, INGEST_AT_VALUE, "not a date: \"%s\"", stamp);
		adapters_path_pop(p);
		goto done;
	}
	adapters_path_pop(p);
	if (adapters_ms_to_time(date, &pt->started_at)) {
		adapters_path_key(p, "date");
		ret = adapters_json_fail(a, p, INGEST_AT_VALUE,
					 "a date in milliseconds after 1970 and before 9999");
		adapters_path_pop(p);
		return ret;
	}
	if (!id || !is_hex40(id)) {
		/* a point with no commit cannot be placed in a history */
		g->h->skipped[INGEST_SKIP_NO_COMMIT] += (int64_t)json_array_size(benches);
		return 0;
	}
	/* in the entries' order, as the action's chart draws them (docs/import.md) */
	if (!isnan(pt->committed_at)) {
		if (!isnan(*prev_committed) && pt->committed_at <= *prev_committed)
			pt->committed_at = *prev_committed + 1;
		*prev_committed = pt->committed_at;
	}
	pt->commit = id;
	pt->source_hash = tree && is_hex40(tree) ? tree : NULL;
	adapters_path_key(p, "benches");
	json_array_foreach (benches, i, bench) {
		adapters_path_index(p, i);
		ret = parse_bench(g, pt, p, bench, tool);
		adapters_path_pop(p);
		if (ret)
			break;
	}
	adapters_path_pop(p);
	return ret;
done:
	adapters_path_pop(p);
	return ret;
}

static int parse_suite(struct gab *g, struct adapters_path *p, const char *suite, json_t *list,
		       struct intern *taken)
{
	const struct adapters_input *a = g->a;
	const struct ingest_defaults *d = g->h->defaults;
	struct adapters_point pt;
	struct adapters_walk walk;
	struct strbuf config = STRBUF_INIT;
	char machine[65];
	double prev = NAN;
	json_t *entry;
	size_t i;
	int ret = 0;

	if (!json_is_array(list))
		return adapters_json_fail(a, p, INGEST_AT_VALUE, "expected an array of entries");
	memset(&pt, 0, sizeof(pt));
	suite_machine(machine, suite, taken);
	pt.machine = machine;
	/* with --machine, several suites stay apart by their config */
	if (d->config)
		strbuf_addstr(&config, d->config);
	else if (d->machine && g->suites > 1)
		strbuf_addstr(&config, suite);
	pt.config = config.buf;
	adapters_walk_start(&walk, a, p);
	json_array_foreach (list, i, entry) {
		adapters_walk_next(&walk, a, &pt.line, &pt.column);
		adapters_path_index(p, i);
		ret = parse_entry(g, &pt, p, entry, &prev);
		adapters_path_pop(p);
		if (ret)
			break;
		if (g->h->progress)
			g->h->progress(g->h->progress_data, ++g->done, g->total);
	}
	strbuf_release(&config);
	return ret;
}

/* Where the JSON starts: past "window.BENCHMARK_DATA =", or at a bare object; len when it is
 * neither. */
static size_t json_start(const char *text, size_t len)
{
	size_t i =
	    ingest_json_skip_ws(text, len, len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3) ? 3 : 0);

	if (i < len && text[i] == '{')
		return i;
	if (len - i < strlen(PREFIX) || memcmp(text + i, PREFIX, strlen(PREFIX)))
		return len;
	i = ingest_json_skip_ws(text, len, i + strlen(PREFIX));
	if (i >= len || text[i] != '=')
		return len;
	i = ingest_json_skip_ws(text, len, i + 1);
	return i < len && text[i] == '{' ? i : len;
}

int adapters_history_gab(struct ingest_history *h, const char *name, const char *text, size_t len,
			 struct bl_error *err)
{
	struct strbuf json = STRBUF_INIT;
	struct adapters_input a;
	struct adapters_path p = {.n = 0};
	struct gab g;
	json_t *doc = NULL, *entries = NULL, *list;
	struct intern taken;
	const char *suite;
	size_t start = json_start(text, len), end;
	int ret;

	memset(&g, 0, sizeof(g));
	strbuf_init(&g.metric.unit, 0);
	intern_init(&taken);
	if (start == len) {
		ret = adapters_not_a(err, name, text, len, ingest_json_skip_ws(text, len, 0),
				     "github-action-benchmark's data.js",
				     "'window.BENCHMARK_DATA = {...}'", NULL);
		goto done;
	}
	/* the JavaScript around the object blanked, so that positions are the file's own */
	strbuf_add(&json, text, len);
	for (size_t i = 0; i < start; i++)
		if (json.buf[i] != '\n')
			json.buf[i] = ' ';
	for (end = len; end > start && strchr(" \t\r\n;", json.buf[end - 1]); end--)
		if (json.buf[end - 1] == ';')
			json.buf[end - 1] = ' ';
	adapters_history_input(&a, h, name, json.buf, json.len, err);
	if ((ret = adapters_load_json(&doc, name, json.buf, json.len, err)))
		goto done;
	if (!json_is_object(json_object_get(doc, "entries"))) {
		ret =
		    adapters_not_a(err, name, text, len, start, "github-action-benchmark's data.js",
				   "an object with \"entries\"", "no \"entries\" object");
		goto done;
	}
	entries = json_object_get(doc, "entries");
	g.h = h;
	g.a = &a;
	g.suites = (int)json_object_size(entries);
	json_object_foreach (entries, suite, list) {
		g.total += json_array_size(list);
	}
	adapters_path_key(&p, "entries");
	json_object_foreach (entries, suite, list) {
		adapters_path_key(&p, suite);
		ret = parse_suite(&g, &p, suite, list, &taken);
		adapters_path_pop(&p);
		if (ret)
			break;
	}
done:
	json_decref(doc);
	intern_release(&taken);
	strbuf_release(&json);
	strbuf_release(&g.metric.unit);
	return ret;
}

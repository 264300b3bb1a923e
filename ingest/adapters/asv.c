/*
 * airspeed velocity (asv) histories, two ways:
 * - its results directory ("asv"): benchmarks.json (each benchmark's type, unit, parameters
 *   and version), and a directory per machine with machine.json and one results file per
 *   commit and environment ({"commit_hash", "date", "params", "result_columns", "results":
 *   {NAME: [result, params, version, started_at, ..., samples]}, "version": 2});
 * - a site asv published ("asv-html"): index.json (revisions to commits and dates, the
 *   benchmarks, the machines) and graphs/KEY-VALUE/.../NAME.json, each [[revision, value],
 *   ...] for the environment its directories name.
 * One record per benchmark, parameter combination and commit: the machine is asv's machine,
 * the config its environment (python=3.12 ...) and the benchmark's parameters, the metric asv's
 * type (time in s, track in its unit: timed; mem and peakmem in B: counted), the content hash
 * the benchmark's version. A value asv could not measure (null) is skipped, as are its summary
 * graphs. docs/import.md.
 */
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ingest/adapters/adapters.h"

/* asv's machine information: machine_info of the record, not its config. */
static int is_machine_key(const char *key)
{
	static const char *const keys[] = {"arch", "cpu", "num_cpu", "os", "ram"};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(keys[i], key))
			return 1;
	return 0;
}

/* The compact JSON of obj's string and number members but machine and version (machine.json,
 * index.json's machines): a record's machine_info; NULL when none is left. */
static char *machine_info_of(json_t *obj)
{
	json_t *info = json_object(), *v;
	const char *key;
	char *text = NULL;

	json_object_foreach (obj, key, v) {
		if (!strcmp(key, "machine") || !strcmp(key, "version"))
			continue;
		if (json_is_string(v) || json_is_number(v))
			json_object_set(info, key, v);
	}
	if (json_object_size(info))
		text = json_dumps(info, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(info);
	return text;
}

/* How asv's type of benchmark becomes a metric. */
struct asv_metric {
	const char *name;
	enum metric_kind kind;
	const char *unit;
};

/* The benchmark's metric from its description (benchmarks.json, index.json); 0, or -1 when
 * the description is missing or has no type asv writes. */
static int asv_metric_of(struct asv_metric *m, json_t *desc)
{
	const char *type = json_string_value(json_object_get(desc, "type"));
	const char *unit = json_string_value(json_object_get(desc, "unit"));

	if (!type)
		return -1;
	if (!strcmp(type, "time")) {
		*m = (struct asv_metric){"time", METRIC_TIMED, "s"};
	} else if (!strcmp(type, "mem") || !strcmp(type, "peakmem")) {
		*m = (struct asv_metric){type, METRIC_COUNTED, "B"};
	} else if (!strcmp(type, "track")) {
		*m = (struct asv_metric){"track", METRIC_TIMED, unit ? unit : ""};
		if (strlen(m->unit) > INGEST_MAX_STRING)
			m->unit = "";
	} else {
		return -1;
	}
	return 0;
}

/* The number of parameter combinations of params (a list of lists), 0 when it is not one or
 * has too many. */
static size_t combinations(json_t *params)
{
	size_t n = 1, i;
	json_t *list;

	if (!json_is_array(params))
		return 0;
	json_array_foreach (params, i, list) {
		size_t k = json_array_size(list);
		if (!json_is_array(list) || !k || n > INGEST_MAX_SAMPLES / k)
			return 0;
		n *= k;
	}
	return n;
}

/* The config of combination index (itertools.product's order: the last parameter varies
 * fastest) after the environment's part env. */
static void combination_config(struct strbuf *out, const char *env, json_t *names, json_t *params,
			       size_t index)
{
	size_t n = json_array_size(params), *digit = xcalloc(n ? n : 1, sizeof(*digit));

	strbuf_reset(out);
	strbuf_addstr(out, env);
	for (size_t i = n; i-- > 0;) {
		size_t k = json_array_size(json_array_get(params, i));
		digit[i] = k ? index % k : 0;
		index = k ? index / k : 0;
	}
	for (size_t i = 0; i < n; i++) {
		const char *name = json_string_value(json_array_get(names, i));
		char fallback[32];
		if (!name) {
			snprintf(fallback, sizeof(fallback), "param%zu", i + 1);
			name = fallback;
		}
		adapters_config_add_json(out, name,
					 json_array_get(json_array_get(params, i), digit[i]));
	}
	free(digit);
}

/* The environment's part of a config: its parameters but machine, branch and the machine's
 * information, by name (a JSON object is sorted by key here, asv's graph directories are). */
static void environment_config(struct strbuf *out, const char *flag, json_t *params)
{
	const char **keys = NULL;
	size_t n = 0, alloc = 0;
	const char *key;
	json_t *v;

	strbuf_reset(out);
	if (flag)
		strbuf_addstr(out, flag);
	json_object_foreach (params, key, v) {
		if (!strcmp(key, "machine") || !strcmp(key, "branch") || is_machine_key(key))
			continue;
		ALLOC_GROW(keys, n, alloc);
		keys[n++] = key;
	}
	for (size_t i = 1; i < n; i++)
		for (size_t k = i; k > 0 && strcmp(keys[k - 1], keys[k]) > 0; k--) {
			const char *t = keys[k];
			keys[k] = keys[k - 1];
			keys[k - 1] = t;
		}
	for (size_t i = 0; i < n; i++) {
		v = json_object_get(params, keys[i]);
		adapters_config_add(out, keys[i], json_is_string(v) ? json_string_value(v) : "");
	}
	free(keys);
}

/* One metric's record for a point: figures from value (and samples, may be NULL). */
static int emit_point(struct ingest_history *h, struct adapters_point *pt,
		      const struct asv_metric *m, double value, double *samples, size_t nsamples,
		      const char *name, struct bl_error *err)
{
	struct ingest_record rec;
	struct ingest_metric *im;
	int ret;

	if ((ret = adapters_history_record(&rec, h, pt, name, err))) {
		free(samples);
		return ret;
	}
	im = adapters_add_metric(&rec, m->name, m->kind, m->unit, 0);
	if (m->kind == METRIC_COUNTED) {
		im->value = value;
		free(samples);
	} else {
		if (nsamples) {
			/* the samples, but asv's own figure as the median: what asv judged */
			adapters_take_samples(im, samples, nsamples);
			if (im->p95 < value)
				im->p95 = value;
		} else {
			free(samples);
		}
		im->median = value;
	}
	rec.primary = xstrdup(m->name);
	return adapters_history_emit(h, &rec, name, err);
}

/* --- the results directory --- */

/* A column of asv's result_columns, by name: its index, or -1. */
static int column_of(json_t *columns, const char *name)
{
	size_t i;
	json_t *c;

	json_array_foreach (columns, i, c) {
		if (json_is_string(c) && !strcmp(json_string_value(c), name))
			return (int)i;
	}
	return -1;
}

/* Element index of row (-1: none), NULL when absent. */
static json_t *cell(json_t *row, int index)
{
	return index < 0 ? NULL : json_array_get(row, (size_t)index);
}

/* The samples of combination k, when asv kept them: a list of numbers. */
static int sample_list(const struct adapters_input *a, struct adapters_path *p, json_t *list,
		       double **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (!json_is_array(list))
		return 0;
	return adapters_get_samples(a, p, list, out, n);
}

static int results_entry(struct ingest_history *h, const struct adapters_input *a,
			 struct adapters_path *p, struct adapters_point *pt, const char *env,
			 json_t *columns, const struct json_t *benchmarks, const char *bench,
			 json_t *row, double file_date)
{
	json_t *desc = json_object_get(benchmarks, bench), *result, *params, *names, *samples;
	struct strbuf config = STRBUF_INIT;
	struct asv_metric m;
	double started = NAN;
	size_t ncomb, k;
	int ret = 0;

	if (!json_is_array(row))
		return adapters_json_fail(a, p, INGEST_AT_VALUE, "expected an array of columns");
	result = cell(row, column_of(columns, "result"));
	params = cell(row, column_of(columns, "params"));
	samples = cell(row, column_of(columns, "samples"));
	if (!json_is_object(desc) || asv_metric_of(&m, desc)) {
		h->skipped[INGEST_SKIP_UNDESCRIBED]++;
		return 0;
	}
	if (json_is_null(result) || !result) {
		h->skipped[INGEST_SKIP_NO_VALUE]++;
		return 0;
	}
	if (json_is_number(cell(row, column_of(columns, "started_at"))) &&
	    adapters_ms_to_time(json_number_value(cell(row, column_of(columns, "started_at"))),
				&started))
		started = NAN;
	pt->started_at = isnan(started) ? file_date : started;
	pt->content_hash = json_string_value(cell(row, column_of(columns, "version")));
	pt->benchmark = bench;
	names = json_object_get((json_t *)desc, "param_names");
	if (!json_is_array(params) || !json_array_size(params)) {
		params = NULL;
		ncomb = 1;
	} else if (!(ncomb = combinations(params))) {
		adapters_path_index(p, (size_t)column_of(columns, "params"));
		ret = adapters_json_fail(a, p, INGEST_AT_VALUE,
					 "expected a list of lists of parameter values");
		adapters_path_pop(p);
		return ret;
	}
	/* a benchmark without parameters may give its result as a number or a list of one */
	if (!json_is_array(result) && !(json_is_number(result) && ncomb == 1))
		goto bad_result;
	if (json_is_array(result) && json_array_size(result) != ncomb)
		goto bad_result;
	for (k = 0; k < ncomb && !ret; k++) {
		json_t *v = json_is_array(result) ? json_array_get(result, k) : result;
		double value, *s = NULL;
		size_t ns = 0;
		if (json_is_null(v)) {
			h->skipped[INGEST_SKIP_NO_VALUE]++;
			continue;
		}
		adapters_path_index(p, (size_t)column_of(columns, "result"));
		if (json_is_array(result))
			adapters_path_index(p, k);
		ret = adapters_number_value(a, p, v, &value);
		if (json_is_array(result))
			adapters_path_pop(p);
		adapters_path_pop(p);
		if (ret)
			break;
		if (json_is_array(samples)) {
			adapters_path_index(p, (size_t)column_of(columns, "samples"));
			adapters_path_index(p, k);
			ret = sample_list(a, p, json_array_get(samples, k), &s, &ns);
			adapters_path_pop(p);
			adapters_path_pop(p);
			if (ret)
				break;
		}
		if (params)
			combination_config(&config, env, names, params, k);
		else {
			strbuf_reset(&config);
			strbuf_addstr(&config, env);
		}
		pt->config = config.buf;
		ret = emit_point(h, pt, &m, value, s, ns, a->name, a->err);
	}
	strbuf_release(&config);
	return ret;
bad_result:
	strbuf_release(&config);
	adapters_path_index(p, (size_t)column_of(columns, "result"));
	ret = adapters_json_fail(a, p, INGEST_AT_VALUE,
				 "expected %zu value%s, one per parameter combination", ncomb,
				 ncomb == 1 ? "" : "s");
	adapters_path_pop(p);
	return ret;
}

int adapters_asv_results_file(struct ingest_history *h, const char *name, const char *text,
			      size_t len, const char *machine, const char *machine_info,
			      const struct json_t *benchmarks, struct bl_error *err)
{
	struct adapters_input a;
	struct adapters_path p = {.n = 0};
	struct adapters_point pt;
	struct adapters_walk walk;
	struct strbuf env = STRBUF_INIT;
	json_t *doc = NULL, *results = NULL, *columns = NULL, *params = NULL, *row;
	const char *commit = NULL, *bench;
	double date = NAN, version = NAN, when;
	int ret;

	adapters_history_input(&a, h, name, text, len, err);
	memset(&pt, 0, sizeof(pt));
	if ((ret = adapters_load_json(&doc, name, text, len, err)))
		goto done;
	if (!json_is_object(json_object_get(doc, "results")) ||
	    !json_object_get(doc, "commit_hash")) {
		ret = adapters_not_a(err, name, text, len, ingest_json_skip_ws(text, len, 0),
				     "an asv results file",
				     "\"commit_hash\" and a \"results\" object", NULL);
		goto done;
	}
	if ((ret = adapters_get_number(&a, &p, doc, "version", 1, &version)))
		goto done;
	if (version != 2) {
		adapters_path_key(&p, "version");
		ret = adapters_json_fail(&a, &p, INGEST_AT_VALUE,
					 "asv results of version %g: benchline reads version 2 "
					 "(run 'asv update' to rewrite them)",
					 version);
		goto done;
	}
	if ((ret = adapters_get_string(&a, &p, doc, "commit_hash", 1, &commit)) ||
	    (ret = adapters_get_number(&a, &p, doc, "date", 1, &date)) ||
	    (ret = adapters_get_object(&a, &p, doc, "params", 0, &params)) ||
	    (ret = adapters_get_array(&a, &p, doc, "result_columns", 1, &columns)) ||
	    (ret = adapters_get_object(&a, &p, doc, "results", 1, &results)))
		goto done;
	if (adapters_ms_to_time(date, &when)) {
		adapters_path_key(&p, "date");
		ret = adapters_json_fail(&a, &p, INGEST_AT_VALUE,
					 "a date in milliseconds after 1970 and before 9999");
		goto done;
	}
	if (!is_hex40(commit)) {
		h->skipped[INGEST_SKIP_NO_COMMIT] += (int64_t)json_object_size(results);
		goto done;
	}
	environment_config(&env, h->defaults ? h->defaults->config : NULL, params);
	pt.machine = machine;
	pt.machine_info = machine_info;
	pt.commit = commit;
	pt.committed_at = when;
	adapters_path_key(&p, "results");
	adapters_walk_start(&walk, &a, &p);
	json_object_foreach (results, bench, row) {
		adapters_walk_next(&walk, &a, &pt.line, &pt.column);
		adapters_path_key(&p, bench);
		ret = results_entry(h, &a, &p, &pt, env.buf, columns, benchmarks, bench, row, when);
		adapters_path_pop(&p);
		if (ret)
			break;
	}
done:
	json_decref(doc);
	strbuf_release(&env);
	return ret;
}

/* --- reading files and directories --- */

static int read_json_file(json_t **out, struct strbuf *text, const char *path, struct bl_error *err)
{
	strbuf_reset(text);
	*out = NULL;
	if (read_file_capped(text, path, INGEST_MAX_FILE, err))
		return BL_EIO;
	return adapters_load_json(out, path, text->buf, text->len, err);
}

static void free_list(char **list, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(list[i]);
	free(list);
}

/* The names in dir (not . and ..) whose entries are regular files (want_dir 0) or
 * directories (1), sorted; symbolic links are never followed. More than
 * ADAPTERS_HISTORY_MAX_FILES is an error, never a part of the history read. */
static int list_dir(char ***out, size_t *nr, const char *dir, int want_dir, struct bl_error *err)
{
	struct strbuf path = STRBUF_INIT;
	struct dirent *e;
	size_t alloc = 0;
	int ret = 0;
	DIR *d = opendir(dir);

	*out = NULL;
	*nr = 0;
	if (!d)
		return bl_error_set(err, BL_EIO, "cannot read the directory '%s'", dir);
	while ((e = readdir(d))) {
		struct stat st;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir, e->d_name);
		if (lstat(path.buf, &st) ||
		    (want_dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)))
			continue;
		if (*nr >= ADAPTERS_HISTORY_MAX_FILES) {
			ret = bl_error_set(err, BL_ETOOBIG, "%s: over %d %s", dir,
					   ADAPTERS_HISTORY_MAX_FILES,
					   want_dir ? "directories" : "files");
			break;
		}
		ALLOC_GROW(*out, *nr, alloc);
		(*out)[(*nr)++] = xstrdup(e->d_name);
	}
	closedir(d);
	strbuf_release(&path);
	if (ret) {
		free_list(*out, *nr);
		*out = NULL;
		*nr = 0;
	} else if (*nr) {
		qsort(*out, *nr, sizeof(**out), cmp_strp);
	}
	return ret;
}

static int is_json_name(const char *name)
{
	size_t n = strlen(name);
	return n > 5 && !strcmp(name + n - 5, ".json");
}

/* Whether dir holds name as a regular file (want_dir 0) or a directory (1). */
static int has_entry(const char *dir, const char *name, int want_dir)
{
	struct strbuf p = STRBUF_INIT;
	struct stat st;
	int ok;

	strbuf_addf(&p, "%s/%s", dir, name);
	ok = !stat(p.buf, &st) && (want_dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode));
	strbuf_release(&p);
	return ok;
}

static int file_exists(const char *dir, const char *name)
{
	return has_entry(dir, name, 0);
}

static int dir_exists(const char *dir, const char *name)
{
	return has_entry(dir, name, 1);
}

/* What a directory is, when it is not what was expected. */
static const char *what_dir(const char *dir)
{
	if (file_exists(dir, "index.json") && dir_exists(dir, "graphs"))
		return "a site asv published (--from asv-html)";
	if (file_exists(dir, "benchmarks.json"))
		return "asv's results directory (--from asv)";
	if (file_exists(dir, "machine.json"))
		return "a machine's directory of asv's results (--from asv)";
	if (file_exists(dir, "asv.conf.json"))
		return "an asv project (its results are in the directory its asv.conf.json names "
		       "as results_dir, .asv/results by default)";
	return NULL;
}

/* One machine's directory: machine.json, then each results file. */
static int asv_machine(struct ingest_history *h, const char *dir, const json_t *benchmarks,
		       size_t *done, size_t total, struct bl_error *err)
{
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT;
	char **files = NULL, *info = NULL;
	size_t nfiles = 0;
	const char *machine, *base = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
	json_t *mj = NULL;
	int ret;

	strbuf_addf(&path, "%s/machine.json", dir);
	if ((ret = read_json_file(&mj, &text, path.buf, err)))
		goto done;
	machine = json_string_value(json_object_get(mj, "machine"));
	info = machine_info_of(mj);
	if ((ret = list_dir(&files, &nfiles, dir, 0, err)))
		goto done;
	for (size_t i = 0; i < nfiles; i++) {
		if (!is_json_name(files[i]) || !strcmp(files[i], "machine.json"))
			continue;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir, files[i]);
		strbuf_reset(&text);
		if ((ret = read_file_capped(&text, path.buf, INGEST_MAX_FILE, err)) ||
		    (ret = adapters_asv_results_file(h, path.buf, text.buf, text.len,
						     machine ? machine : base, info, benchmarks,
						     err)))
			goto done;
		if (h->progress)
			h->progress(h->progress_data, ++*done, total);
	}
done:
	json_decref(mj);
	free(info);
	free_list(files, nfiles);
	strbuf_release(&path);
	strbuf_release(&text);
	return ret;
}

/* The number of results files of a machine's directory, for the progress. */
static size_t count_results(const char *dir)
{
	char **files = NULL;
	size_t nfiles = 0, n = 0;
	struct bl_error ignored = BL_ERROR_INIT;

	if (!list_dir(&files, &nfiles, dir, 0, &ignored))
		for (size_t i = 0; i < nfiles; i++)
			n += is_json_name(files[i]) && strcmp(files[i], "machine.json");
	free_list(files, nfiles);
	bl_error_release(&ignored);
	return n;
}

int adapters_history_asv(struct ingest_history *h, struct bl_error *err)
{
	struct strbuf root = STRBUF_INIT, path = STRBUF_INIT, text = STRBUF_INIT;
	char **machines = NULL;
	size_t nmachines = 0, done = 0, total = 0;
	json_t *benchmarks = NULL;
	int ret, one_machine = 0;

	/* the results directory, or one machine's directory inside it */
	strbuf_addstr(&root, h->path);
	if (!file_exists(h->path, "benchmarks.json") && file_exists(h->path, "machine.json")) {
		strbuf_addstr(&root, "/..");
		one_machine = 1;
	}
	if (!file_exists(root.buf, "benchmarks.json")) {
		const char *what = what_dir(h->path);
		ret =
		    bl_error_set(err, BL_EINVALID,
				 "%s: not asv's results directory: expected benchmarks.json and a "
				 "directory per machine holding machine.json, found %s",
				 h->path, what ? what : "no benchmarks.json");
		goto done;
	}
	strbuf_addf(&path, "%s/benchmarks.json", root.buf);
	if ((ret = read_json_file(&benchmarks, &text, path.buf, err)))
		goto done;
	if (one_machine) {
		machines = xcalloc(1, sizeof(*machines));
		machines[0] = xstrdup(h->path);
		nmachines = 1;
	} else {
		char **dirs = NULL;
		size_t ndirs = 0;
		if ((ret = list_dir(&dirs, &ndirs, h->path, 1, err)))
			goto done;
		for (size_t i = 0; i < ndirs; i++) {
			struct strbuf d = STRBUF_INIT;
			strbuf_addf(&d, "%s/%s", h->path, dirs[i]);
			if (file_exists(d.buf, "machine.json")) {
				machines = xrealloc(machines, (nmachines + 1) * sizeof(*machines));
				machines[nmachines++] = strbuf_detach(&d, NULL);
			} else {
				strbuf_release(&d);
			}
		}
		free_list(dirs, ndirs);
	}
	if (!nmachines) {
		ret = bl_error_set(err, BL_EINVALID,
				   "%s: no machine's results: expected a directory per machine "
				   "holding machine.json",
				   h->path);
		goto done;
	}
	for (size_t i = 0; i < nmachines; i++)
		total += count_results(machines[i]);
	for (size_t i = 0; i < nmachines; i++)
		if ((ret = asv_machine(h, machines[i], benchmarks, &done, total, err)))
			break;
done:
	json_decref(benchmarks);
	free_list(machines, nmachines);
	strbuf_release(&root);
	strbuf_release(&path);
	strbuf_release(&text);
	return ret;
}

/* --- a published site --- */

/* The site's revisions: commit, date and committed_at by revision number. */
struct revision {
	long long rev;
	const char *hash; /* NULL: none */
	double date;	  /* the revision's date, NAN: none */
	double committed; /* date, moved past the revision before it where it would go back */
};

struct site {
	struct ingest_history *h;
	json_t *index, *benchmarks, *machines, *param_keys;
	const char *index_path, *index_text; /* index.json, for messages about it */
	size_t index_len;
	struct revision *revs;
	size_t nrevs;
	char **graphs; /* paths under graphs/, sorted */
	size_t ngraphs, graphs_alloc;
	struct strbuf env, config;
};

static int cmp_rev(const void *a, const void *b)
{
	long long x = ((const struct revision *)a)->rev, y = ((const struct revision *)b)->rev;
	return x < y ? -1 : x > y;
}

static const struct revision *find_rev(const struct site *s, long long rev)
{
	size_t lo = 0, hi = s->nrevs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->revs[mid].rev < rev)
			lo = mid + 1;
		else if (s->revs[mid].rev > rev)
			hi = mid;
		else
			return &s->revs[mid];
	}
	return NULL;
}

/* Every revision index.json names, in order, with committed_at strictly increasing so that
 * benchline orders them as asv does before a sync (docs/import.md). */
static void load_revisions(struct site *s)
{
	json_t *hashes = json_object_get(s->index, "revision_to_hash");
	json_t *dates = json_object_get(s->index, "revision_to_date");
	json_t *maps[2] = {hashes, dates}, *v;
	const char *key;
	size_t alloc = 0;
	double prev = NAN;

	for (int m = 0; m < 2; m++) {
		json_object_foreach (maps[m], key, v) {
			char *end;
			long long rev = strtoll(key, &end, 10);
			if (*end || end == key)
				continue;
			ALLOC_GROW(s->revs, s->nrevs, alloc);
			s->revs[s->nrevs].rev = rev;
			s->revs[s->nrevs].hash = NULL;
			s->revs[s->nrevs].date = NAN;
			s->nrevs++;
		}
	}
	if (s->nrevs)
		qsort(s->revs, s->nrevs, sizeof(*s->revs), cmp_rev);
	/* drop repeats */
	size_t n = 0;
	for (size_t i = 0; i < s->nrevs; i++)
		if (!n || s->revs[n - 1].rev != s->revs[i].rev)
			s->revs[n++] = s->revs[i];
	s->nrevs = n;
	for (size_t i = 0; i < s->nrevs; i++) {
		struct revision *r = &s->revs[i];
		char key_text[32];
		double t;
		snprintf(key_text, sizeof(key_text), "%lld", r->rev);
		v = json_object_get(hashes, key_text);
		r->hash = json_is_string(v) && is_hex40(json_string_value(v)) ? json_string_value(v)
									      : NULL;
		v = json_object_get(dates, key_text);
		if (json_is_number(v) && !adapters_ms_to_time(json_number_value(v), &t))
			r->date = t;
		/* an undated revision a second after the one before */
		t = isnan(r->date) ? (isnan(prev) ? 0 : prev + 1) : r->date;
		if (isnan(r->date))
			r->date = t;
		if (!isnan(prev) && t <= prev)
			t = prev + 1;
		r->committed = t;
		prev = t;
	}
}

/* Collects the graph files under dir (relative path rel), depth first. */
static int collect_graphs(struct site *s, const char *dir, const char *rel, int depth,
			  struct bl_error *err)
{
	struct strbuf sub = STRBUF_INIT, subrel = STRBUF_INIT;
	char **names = NULL;
	size_t n = 0;
	int ret = 0;

	if (depth > ADAPTERS_HISTORY_MAX_DEPTH)
		return bl_error_set(err, BL_ETOOBIG, "%s: directories nested over %d deep", dir,
				    ADAPTERS_HISTORY_MAX_DEPTH);
	if ((ret = list_dir(&names, &n, dir, 0, err)))
		goto done;
	for (size_t i = 0; i < n; i++) {
		if (!is_json_name(names[i]))
			continue;
		if (s->ngraphs >= ADAPTERS_HISTORY_MAX_FILES) {
			ret = bl_error_set(err, BL_ETOOBIG, "%s: over %d graph files", dir,
					   ADAPTERS_HISTORY_MAX_FILES);
			goto done;
		}
		strbuf_reset(&subrel);
		strbuf_addf(&subrel, "%s%s%s", rel, *rel ? "/" : "", names[i]);
		ALLOC_GROW(s->graphs, s->ngraphs, s->graphs_alloc);
		s->graphs[s->ngraphs++] = strbuf_detach(&subrel, NULL);
	}
	free_list(names, n);
	names = NULL;
	if ((ret = list_dir(&names, &n, dir, 1, err)))
		goto done;
	for (size_t i = 0; i < n && !ret; i++) {
		strbuf_reset(&sub);
		strbuf_addf(&sub, "%s/%s", dir, names[i]);
		strbuf_reset(&subrel);
		strbuf_addf(&subrel, "%s%s%s", rel, *rel ? "/" : "", names[i]);
		ret = collect_graphs(s, sub.buf, subrel.buf, depth + 1, err);
	}
done:
	free_list(names, n);
	strbuf_release(&sub);
	strbuf_release(&subrel);
	return ret;
}

/* The parameters a graph's directories name (KEY-VALUE, KEY-null, KEY), as an object; a key
 * is one of index.json's params when one matches, else the text before the first '-'. */
static json_t *graph_params(const struct site *s, const char *rel)
{
	json_t *params = json_object();
	const char *p = rel, *slash;

	while ((slash = strchr(p, '/'))) {
		size_t n = (size_t)(slash - p), best = 0;
		const char *key;
		json_t *v;
		char *part = xstrndup(p, n);
		/* the longest key of index.json that the part starts with */
		json_object_foreach (s->param_keys, key, v) {
			size_t k = strlen(key);
			if (k <= n && !memcmp(part, key, k) && (part[k] == '-' || !part[k]) &&
			    k > best)
				best = k;
		}
		if (!best) {
			const char *dash = strchr(part, '-');
			best = dash ? (size_t)(dash - part) : n;
		}
		part[best] = '\0';
		/* the value runs to the slash */
		json_object_set_new(
		    params, part,
		    json_stringn(best < n ? p + best + 1 : "", best < n ? n - best - 1 : 0));
		free(part);
		p = slash + 1;
	}
	return params;
}

static int site_graph(struct site *s, const char *root, const char *rel, struct bl_error *err)
{
	struct ingest_history *h = s->h;
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT, stem = STRBUF_INIT;
	struct adapters_input a;
	struct adapters_path p = {.n = 0};
	struct adapters_point pt;
	struct adapters_walk walk;
	struct asv_metric m;
	json_t *doc = NULL, *params = NULL, *desc, *point, *names = NULL, *bparams = NULL;
	const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel, *machine, *branch;
	char *info = NULL;
	size_t i, ncomb = 1;
	int ret = 0;

	/* asv's summaries: graphs/summary/ and each directory's summary.json */
	if (!strncmp(rel, "summary/", 8) || !strcmp(base, "summary.json")) {
		h->skipped[INGEST_SKIP_OVERVIEW]++;
		return 0;
	}
	strbuf_add(&stem, base, strlen(base) - 5);
	strbuf_addf(&path, "%s/graphs/%s", root, rel);
	if ((ret = read_file_capped(&text, path.buf, INGEST_MAX_FILE, err)) ||
	    (ret = adapters_load_json_any(&doc, path.buf, text.buf, text.len, err)))
		goto done;
	adapters_history_input(&a, h, path.buf, text.buf, text.len, err);
	if (!json_is_array(doc)) {
		ret = adapters_json_fail(&a, &p, INGEST_AT_VALUE,
					 "expected an array of [revision, value] points");
		goto done;
	}
	if (!json_array_size(doc)) {
		h->skipped[INGEST_SKIP_EMPTY]++;
		goto done;
	}
	desc = json_object_get(s->benchmarks, stem.buf);
	if (!json_is_object(desc) || asv_metric_of(&m, desc)) {
		h->skipped[INGEST_SKIP_UNDESCRIBED] += (int64_t)json_array_size(doc);
		goto done;
	}
	params = graph_params(s, rel);
	machine = json_string_value(json_object_get(params, "machine"));
	branch = json_string_value(json_object_get(params, "branch"));
	if (!machine || !*machine) {
		ret = bl_error_set(err, BL_EINVALID,
				   "%s: no machine-NAME directory above the graph", path.buf);
		goto done;
	}
	info = machine_info_of(json_object_get(s->machines, machine));
	environment_config(&s->env, h->defaults ? h->defaults->config : NULL, params);
	bparams = json_object_get(desc, "params");
	names = json_object_get(desc, "param_names");
	if (json_array_size(bparams) && !(ncomb = combinations(bparams))) {
		/* index.json's fault: named where it is there */
		struct adapters_input ia;
		struct adapters_path ip = {.n = 0};
		adapters_history_input(&ia, h, s->index_path, s->index_text, s->index_len, err);
		adapters_path_key(&ip, "benchmarks");
		adapters_path_key(&ip, stem.buf);
		adapters_path_key(&ip, "params");
		ret = adapters_json_fail(&ia, &ip, INGEST_AT_VALUE,
					 "expected a list of lists of parameter values");
		goto done;
	}
	memset(&pt, 0, sizeof(pt));
	pt.machine = machine;
	pt.machine_info = info;
	pt.benchmark = stem.buf;
	pt.branch = branch && *branch ? branch : NULL;
	pt.content_hash = json_string_value(json_object_get(desc, "version"));
	adapters_walk_start(&walk, &a, &p);
	json_array_foreach (doc, i, point) {
		const struct revision *r;
		json_t *revv, *value;
		adapters_walk_next(&walk, &a, &pt.line, &pt.column);
		adapters_path_index(&p, i);
		if (!json_is_array(point) || json_array_size(point) < 2) {
			ret = adapters_json_fail(&a, &p, INGEST_AT_VALUE,
						 "expected a point: [revision, value]");
			goto point_done;
		}
		revv = json_array_get(point, 0);
		value = json_array_get(point, 1);
		adapters_path_index(&p, 0);
		if (!json_is_integer(revv) || json_integer_value(revv) < 0)
			ret = adapters_json_fail(&a, &p, INGEST_AT_VALUE,
						 "expected a revision number");
		adapters_path_pop(&p);
		if (ret)
			goto point_done;
		if (json_is_null(value)) {
			h->skipped[INGEST_SKIP_NO_VALUE] += (int64_t)ncomb;
			goto point_done;
		}
		r = find_rev(s, json_integer_value(revv));
		if (!r || !r->hash) {
			h->skipped[INGEST_SKIP_NO_COMMIT] += (int64_t)ncomb;
			goto point_done;
		}
		pt.commit = r->hash;
		pt.committed_at = r->committed;
		pt.started_at = r->date;
		adapters_path_index(&p, 1);
		if (json_is_array(value) ? json_array_size(value) != ncomb || ncomb < 1
					 : ncomb != 1 || !json_is_number(value)) {
			ret = adapters_json_fail(&a, &p, INGEST_AT_VALUE,
						 "expected %zu value%s, one per parameter "
						 "combination",
						 ncomb, ncomb == 1 ? "" : "s");
			adapters_path_pop(&p);
			goto point_done;
		}
		for (size_t k = 0; k < ncomb && !ret; k++) {
			json_t *v = json_is_array(value) ? json_array_get(value, k) : value;
			double x;
			if (json_is_null(v)) {
				h->skipped[INGEST_SKIP_NO_VALUE]++;
				continue;
			}
			if (json_is_array(value))
				adapters_path_index(&p, k);
			ret = adapters_number_value(&a, &p, v, &x);
			if (json_is_array(value))
				adapters_path_pop(&p);
			if (ret)
				break;
			if (json_array_size(bparams))
				combination_config(&s->config, s->env.buf, names, bparams, k);
			else {
				strbuf_reset(&s->config);
				strbuf_addstr(&s->config, s->env.buf);
			}
			pt.config = s->config.buf;
			ret = emit_point(h, &pt, &m, x, NULL, 0, path.buf, err);
		}
		adapters_path_pop(&p);
	point_done:
		adapters_path_pop(&p);
		if (ret)
			break;
	}
done:
	json_decref(doc);
	json_decref(params);
	free(info);
	strbuf_release(&path);
	strbuf_release(&text);
	strbuf_release(&stem);
	return ret;
}

int adapters_history_asv_html(struct ingest_history *h, struct bl_error *err)
{
	struct strbuf path = STRBUF_INIT, index = STRBUF_INIT, text = STRBUF_INIT;
	struct site s;
	int ret;

	memset(&s, 0, sizeof(s));
	s.h = h;
	strbuf_init(&s.env, 0);
	strbuf_init(&s.config, 0);
	if (!file_exists(h->path, "index.json") || !dir_exists(h->path, "graphs")) {
		const char *what = what_dir(h->path);
		ret = bl_error_set(err, BL_EINVALID,
				   "%s: not a site asv published: expected index.json and graphs/, "
				   "found %s",
				   h->path,
				   what					? what
				   : file_exists(h->path, "index.json") ? "no graphs/ directory"
									: "no index.json");
		goto done;
	}
	strbuf_addf(&index, "%s/index.json", h->path);
	if ((ret = read_json_file(&s.index, &text, index.buf, err)))
		goto done;
	if (!json_is_object(json_object_get(s.index, "revision_to_hash")) ||
	    !json_is_object(json_object_get(s.index, "benchmarks"))) {
		ret = adapters_not_a(err, index.buf, text.buf, text.len,
				     ingest_json_skip_ws(text.buf, text.len, 0), "asv's index.json",
				     "\"revision_to_hash\" and \"benchmarks\" objects", NULL);
		goto done;
	}
	s.index_path = index.buf;
	s.index_text = text.buf;
	s.index_len = text.len;
	s.benchmarks = json_object_get(s.index, "benchmarks");
	s.machines = json_object_get(s.index, "machines");
	s.param_keys = json_object_get(s.index, "params");
	load_revisions(&s);
	strbuf_addf(&path, "%s/graphs", h->path);
	if ((ret = collect_graphs(&s, path.buf, "", 0, err)))
		goto done;
	if (s.ngraphs)
		qsort(s.graphs, s.ngraphs, sizeof(*s.graphs), cmp_strp);
	for (size_t i = 0; i < s.ngraphs; i++) {
		if ((ret = site_graph(&s, h->path, s.graphs[i], err)))
			break;
		if (h->progress)
			h->progress(h->progress_data, i + 1, s.ngraphs);
	}
done:
	json_decref(s.index);
	free(s.revs);
	free_list(s.graphs, s.ngraphs);
	strbuf_release(&s.env);
	strbuf_release(&s.config);
	strbuf_release(&path);
	strbuf_release(&index);
	strbuf_release(&text);
	return ret;
}

/*
 * benchline.json (§3): the benchmarked repository's settings. Strict: a key this version does
 * not know, or a value of the wrong type, is an error naming the file and the key, so a typo
 * cannot silently fall back to a default.
 */
#include <errno.h>
#include <git2.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ingest/config/config.h"

/* Largest benchline.json read. */
#define CONFIG_MAX_FILE ((size_t)1 << 20)
/* Largest bench.build_timeout and bench.run_timeout in seconds: a deadline in milliseconds
 * must fit an int (child_process's timeout_ms). */
#define CONFIG_MAX_TIMEOUT 1000000
/* Most fresh processes one sample may ask for. */
#define CONFIG_MAX_PROCESSES 1000
#define CONFIG_NAME	     "benchline.json"

void config_init(struct config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->noisy_limit = CONFIG_NOISY_LIMIT;
	cfg->min_samples = CONFIG_MIN_SAMPLES;
	cfg->cpu_load_pct = 10;
	cfg->gpu_load_pct = 10;
	cfg->bench_build_timeout = CONFIG_BENCH_TIMEOUT;
	cfg->bench_run_timeout = CONFIG_BENCH_TIMEOUT;
	cfg->bench_processes = CONFIG_BENCH_PROCESSES;
	cfg->counter_tolerance = CONFIG_COUNTER_TOLERANCE;
	cfg->counter_floor = CONFIG_COUNTER_FLOOR;
	cfg->change_points = 1;
	cfg->change_min_shift = -1;
	cfg->harness_version = -1;
}

void config_release(struct config *cfg)
{
	strings_free(cfg->measured_paths, cfg->n_measured);
	strings_free(cfg->unmeasured_paths, cfg->n_unmeasured);
	strings_free(cfg->keep_first_machines, cfg->n_keep_first);
	strings_free(cfg->quiet_processes, cfg->n_quiet_processes);
	strings_free(cfg->judged_metrics, cfg->n_judged_metrics);
	free(cfg->main_branch);
	free(cfg->machine);
	free(cfg->server);
	free(cfg->token_file);
	free(cfg->repo_url);
	free(cfg->primary_metric);
	free(cfg->path);
	strings_free(cfg->gate_override_globs, cfg->n_gate_overrides);
	free(cfg->gate_override_pct);
	strings_free(cfg->gate_excludes, cfg->n_gate_excludes);
	strings_free(cfg->counted_names, cfg->n_counted);
	free(cfg->counted_pct);
	json_decref(cfg->ladders);
	free(cfg->bench_build);
	free(cfg->bench_run);
	free(cfg->counters_run);
	free(cfg->bench_format);
	strings_free(cfg->bench_artifacts, cfg->n_bench_artifacts);
	config_init(cfg);
}

static int type_error(struct bl_error *err, const char *name, const char *key, const char *what)
{
	return bl_error_set(err, BL_ECONFIG, "%s: %s: %s", name, key, what);
}

/*
 * Every key benchline.json may hold, by its dotted path ("machines.*" stands for any machine's
 * name): what a misspelt key is compared with. A key the parsers below take must be listed
 * here too (t0230 compares the two).
 */
static const char *const known_keys[] = {
    "measured_paths",
    "unmeasured_paths",
    "main_branch",
    "machine",
    "harness_version",
    "server",
    "repo_url",
    "token_file",
    "metrics",
    "primary_metric",
    "counted_tolerance",
    "ladders",
    "quiet",
    "quiet.max_p95_ratio",
    "quiet.cpu_load_pct",
    "quiet.gpu_load_pct",
    "quiet.processes",
    "quiet.min_samples",
    "quiet.counter_floor",
    "quiet.transient_records",
    "quiet.change_points",
    "quiet.change_penalty",
    "quiet.change_min_shift",
    "machines",
    "machines.*.keep",
    "gate",
    "gate.limit",
    "gate.overrides",
    "gate.counter_tolerance",
    "gate.exclude",
    "bench",
    "bench.build",
    "bench.build_timeout",
    "bench.run",
    "bench.run_timeout",
    "bench.format",
    "bench.processes",
    "bench.counters",
    "bench.artifacts",
    "bench.counters.run",
    "bench.counters.tool",
};

/* "; did you mean 'quiet.cpu_load_pct'?" for a key (a dotted path) near one of its object's
 * known keys, nothing when none is near. */
static void suggest_key(struct strbuf *hint, const char *key)
{
	const char *names[sizeof(known_keys) / sizeof(known_keys[0])];
	const char *last = strrchr(key, '.'), *parent = "machines.*";
	size_t n = 0, plen = last ? (size_t)(last - key) : 0, skip = plen ? plen + 1 : 0;
	struct strbuf prefix = STRBUF_INIT;
	/* a machine's own object: machines.NAME.KEY (NAME may hold dots) */
	if (plen > 9 && !strncmp(key, "machines.", 9))
		plen = strlen(parent);
	else
		parent = key;
	for (size_t i = 0; i < sizeof(known_keys) / sizeof(known_keys[0]); i++) {
		const char *k = known_keys[i], *dot = strrchr(k, '.');
		size_t klen = dot ? (size_t)(dot - k) : 0;
		if (klen == plen && !strncmp(k, parent, plen))
			names[n++] = dot ? dot + 1 : k;
	}
	strbuf_add(&prefix, key, skip);
	strbuf_add_suggestion(hint, prefix.buf, key + skip, strlen(key + skip), names, n);
	strbuf_release(&prefix);
}

static int unknown_key(struct bl_error *err, const char *name, const char *key)
{
	struct strbuf hint = STRBUF_INIT;
	int ret;
	suggest_key(&hint, key);
	ret = bl_error_set(err, BL_ECONFIG, "%s: %s: unknown key%s", name, key, hint.buf);
	strbuf_release(&hint);
	return ret;
}

static int is_string_array(const json_t *v)
{
	size_t i;
	json_t *item;
	if (!json_is_array(v))
		return 0;
	json_array_foreach (v, i, item) {
		if (!json_is_string(item))
			return 0;
	}
	return 1;
}

/* A top-level entry name: what a root tree can hold (no slash, not "." or ".."). */
static int is_top_level_name(const char *s, size_t len)
{
	if (!len || len != strlen(s))
		return 0;
	if (!strcmp(s, ".") || !strcmp(s, "..") || !strcmp(s, ".git"))
		return 0;
	return !strchr(s, '/');
}

static int listed(char *const *list, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i], s))
			return 1;
	return 0;
}

/* Reads an array of top-level names into a NULL-terminated list (never NULL itself). */
static int parse_paths(char ***out, size_t *nr, const json_t *v, const char *name, const char *key,
		       struct bl_error *err)
{
	size_t i, n = 0;
	json_t *item;
	char **list;
	if (!is_string_array(v))
		return type_error(err, name, key, "expected an array of strings");
	list = xcalloc(json_array_size(v) + 1, sizeof(*list));
	json_array_foreach (v, i, item) {
		const char *s = json_string_value(item);
		if (!is_top_level_name(s, json_string_length(item))) {
			strings_free(list, n);
			return bl_error_set(err, BL_ECONFIG,
					    "%s: %s: '%s' is not a top-level name (one path "
					    "component, no slash)",
					    name, key, s);
		}
		if (listed(list, n, s)) {
			strings_free(list, n);
			return bl_error_set(err, BL_ECONFIG, "%s: %s: '%s' is listed twice", name,
					    key, s);
		}
		list[n++] = xstrdup(s);
	}
	*out = list;
	*nr = n;
	return 0;
}

/* Reads an array of strings into a NULL-terminated list (never NULL itself). */
static int parse_strings(char ***out, size_t *nr, const json_t *v, const char *name,
			 const char *key, struct bl_error *err)
{
	size_t i;
	json_t *item;
	if (!is_string_array(v))
		return type_error(err, name, key, "expected an array of strings");
	strings_free(*out, *nr);
	*out = xcalloc(json_array_size(v) + 1, sizeof(**out));
	*nr = 0;
	json_array_foreach (v, i, item) {
		(*out)[(*nr)++] = xstrdup(json_string_value(item));
	}
	return 0;
}

static int parse_string(char **out, const json_t *v, const char *name, const char *key,
			struct bl_error *err)
{
	if (!json_is_string(v) || !json_string_length(v) ||
	    strlen(json_string_value(v)) != json_string_length(v))
		return type_error(err, name, key, "expected a non-empty string");
	free(*out);
	*out = xstrdup(json_string_value(v));
	return 0;
}

static int parse_quiet(struct config *cfg, const json_t *quiet, const char *name,
		       struct bl_error *err)
{
	const char *key;
	json_t *v;
	if (!json_is_object(quiet))
		return type_error(err, name, "quiet", "expected an object");
	json_object_foreach ((json_t *)quiet, key, v) {
		if (!strcmp(key, "max_p95_ratio")) {
			if (!json_is_number(v) || !(json_number_value(v) > 1))
				return type_error(err, name, "quiet.max_p95_ratio",
						  "expected a number over 1");
			cfg->noisy_limit = json_number_value(v);
		} else if (!strcmp(key, "cpu_load_pct") || !strcmp(key, "gpu_load_pct")) {
			struct strbuf k = STRBUF_INIT;
			int bad = !json_is_number(v) || json_number_value(v) < 0;
			if (bad) {
				strbuf_addf(&k, "quiet.%s", key);
				type_error(err, name, k.buf, "expected a number of 0 or more");
				strbuf_release(&k);
				return BL_ECONFIG;
			}
			if (key[0] == 'c')
				cfg->cpu_load_pct = json_number_value(v);
			else
				cfg->gpu_load_pct = json_number_value(v);
		} else if (!strcmp(key, "processes")) {
			size_t i;
			json_t *item;
			if (!is_string_array(v))
				return type_error(err, name, "quiet.processes",
						  "expected an array of strings");
			strings_free(cfg->quiet_processes, cfg->n_quiet_processes);
			cfg->quiet_processes = xcalloc(json_array_size(v) + 1, sizeof(char *));
			cfg->n_quiet_processes = 0;
			json_array_foreach (v, i, item) {
				if (!json_string_length(item))
					return type_error(err, name, "quiet.processes",
							  "expected non-empty strings");
				cfg->quiet_processes[cfg->n_quiet_processes++] =
				    xstrdup(json_string_value(item));
			}
		} else if (!strcmp(key, "min_samples")) {
			json_int_t x = json_is_integer(v) ? json_integer_value(v) : 0;
			if (x < 1 || x > CONFIG_MAX_MIN_SAMPLES)
				return type_error(err, name, "quiet.min_samples",
						  "expected an integer from 1 to 1000000");
			cfg->min_samples = (int64_t)x;
		} else if (!strcmp(key, "counter_floor")) {
			if (!json_is_number(v) || !(json_number_value(v) > 0) ||
			    json_number_value(v) > 100)
				return type_error(
				    err, name, "quiet.counter_floor",
				    "expected a percentage above 0, at most 100 (0.5 is 0.5%)");
			cfg->counter_floor = json_number_value(v) / 100;
		} else if (!strcmp(key, "change_points")) {
			if (!json_is_boolean(v))
				return type_error(err, name, "quiet.change_points",
						  "expected true or false");
			cfg->change_points = json_is_true(v);
		} else if (!strcmp(key, "change_penalty")) {
			if (!json_is_number(v) || !(json_number_value(v) > 0) ||
			    !isfinite(json_number_value(v)))
				return type_error(err, name, "quiet.change_penalty",
						  "expected a number over 0 (the default is 32)");
			cfg->change_penalty = json_number_value(v);
		} else if (!strcmp(key, "change_min_shift")) {
			if (!json_is_number(v) || !(json_number_value(v) >= 0) ||
			    !isfinite(json_number_value(v)))
				return type_error(err, name, "quiet.change_min_shift",
						  "expected a fraction of 0 or more (0.05 is 5%)");
			cfg->change_min_shift = json_number_value(v);
		} else if (!strcmp(key, "transient_records")) {
			json_int_t x = json_is_integer(v) ? json_integer_value(v) : 0;
			if (x < 1 || x > 8)
				return type_error(err, name, "quiet.transient_records",
						  "expected an integer from 1 to 8");
			cfg->transient_records = (int)x;
		} else {
			struct strbuf k = STRBUF_INIT;
			strbuf_addf(&k, "quiet.%s", key);
			unknown_key(err, name, k.buf);
			strbuf_release(&k);
			return BL_ECONFIG;
		}
	}
	return 0;
}

static int parse_machines(struct config *cfg, const json_t *machines, const char *name,
			  struct bl_error *err)
{
	struct strbuf k = STRBUF_INIT;
	size_t alloc = 0;
	const char *machine;
	json_t *m;
	int ret = 0;
	if (!json_is_object(machines))
		return type_error(err, name, "machines", "expected an object");
	json_object_foreach ((json_t *)machines, machine, m) {
		const char *key;
		json_t *v;
		strbuf_reset(&k);
		strbuf_addf(&k, "machines.%s", machine);
		if (!machine_name_valid(machine)) {
			ret = type_error(err, name, k.buf,
					 "not a machine name ([A-Za-z0-9._-], 1 to 64 characters)");
			goto done;
		}
		if (!json_is_object(m)) {
			ret = type_error(err, name, k.buf, "expected an object");
			goto done;
		}
		json_object_foreach (m, key, v) {
			strbuf_reset(&k);
			strbuf_addf(&k, "machines.%s.%s", machine, key);
			if (strcmp(key, "keep")) {
				ret = unknown_key(err, name, k.buf);
				goto done;
			}
			if (!json_is_string(v) || (strcmp(json_string_value(v), "first") &&
						   strcmp(json_string_value(v), "quieter"))) {
				ret = type_error(err, name, k.buf,
						 "expected \"first\" or \"quieter\"");
				goto done;
			}
			if (!strcmp(json_string_value(v), "first")) {
				ALLOC_GROW(cfg->keep_first_machines, cfg->n_keep_first + 1, alloc);
				cfg->keep_first_machines[cfg->n_keep_first++] = xstrdup(machine);
				cfg->keep_first_machines[cfg->n_keep_first] = NULL;
			}
		}
	}
done:
	strbuf_release(&k);
	return ret;
}

/* An object of {NAME: non-negative number} into parallel arrays, in the file's order. */
static int parse_pct_map(char ***names, double **pcts, size_t *nr, const json_t *v,
			 const char *name, const char *key, struct bl_error *err)
{
	const char *k;
	json_t *item;
	size_t n = 0;
	if (!json_is_object(v))
		return type_error(err, name, key, "expected an object of percentages");
	*names = xcalloc(json_object_size(v) + 1, sizeof(**names));
	*pcts = xcalloc(json_object_size(v) + 1, sizeof(**pcts));
	json_object_foreach ((json_t *)v, k, item) {
		if (!json_is_number(item) || json_number_value(item) < 0) {
			struct strbuf at = STRBUF_INIT;
			int ret;
			strbuf_addf(&at, "%s.%s", key, k);
			ret = type_error(err, name, at.buf, "expected a percentage (0 or more)");
			strbuf_release(&at);
			*nr = n;
			return ret;
		}
		(*names)[n] = xstrdup(k);
		(*pcts)[n++] = json_number_value(item);
	}
	*nr = n;
	return 0;
}

static int parse_gate(struct config *cfg, const json_t *gate, const char *name,
		      struct bl_error *err)
{
	const char *key;
	json_t *v;
	if (!json_is_object(gate))
		return type_error(err, name, "gate", "expected an object");
	json_object_foreach ((json_t *)gate, key, v) {
		int ret = 0;
		if (!strcmp(key, "limit")) {
			if (!json_is_number(v) || !(json_number_value(v) > 1) ||
			    json_number_value(v) > CONFIG_LIMIT_MAX)
				return type_error(
				    err, name, "gate.limit",
				    "expected a ratio above 1 and at most 10 (1.02 lets "
				    "a metric grow by 2%)");
			cfg->gate_limit = json_number_value(v);
		} else if (!strcmp(key, "overrides")) {
			ret = parse_pct_map(&cfg->gate_override_globs, &cfg->gate_override_pct,
					    &cfg->n_gate_overrides, v, name, "gate.overrides", err);
		} else if (!strcmp(key, "counter_tolerance")) {
			if (!json_is_number(v) || !(json_number_value(v) >= 0) ||
			    json_number_value(v) > 1000)
				return type_error(err, name, "gate.counter_tolerance",
						  "expected a percentage from 0 to 1000 (1 is 1%)");
			cfg->counter_tolerance = json_number_value(v) / 100;
		} else if (!strcmp(key, "exclude")) {
			size_t i;
			json_t *item;
			if (!is_string_array(v))
				return type_error(err, name, "gate.exclude",
						  "expected an array of strings");
			cfg->gate_excludes = xcalloc(json_array_size(v) + 1, sizeof(char *));
			json_array_foreach (v, i, item)
				cfg->gate_excludes[cfg->n_gate_excludes++] =
				    xstrdup(json_string_value(item));
		} else {
			struct strbuf at = STRBUF_INIT;
			strbuf_addf(&at, "gate.%s", key);
			ret = unknown_key(err, name, at.buf);
			strbuf_release(&at);
		}
		if (ret)
			return ret;
	}
	return 0;
}

/* A glob that stays inside a worktree: relative, without a ".." component. */
static int is_inner_glob(const char *s, size_t len)
{
	const char *p = s;
	if (!len || len != strlen(s) || s[0] == '/')
		return 0;
	while (*p) {
		size_t n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return 0;
		p += n;
		if (*p == '/')
			p++;
	}
	return 1;
}

static int parse_seconds(double *out, const json_t *v, const char *name, const char *key,
			 struct bl_error *err)
{
	if (!json_is_number(v) || !(json_number_value(v) > 0) ||
	    json_number_value(v) > CONFIG_MAX_TIMEOUT)
		return bl_error_set(err, BL_ECONFIG,
				    "%s: %s: expected seconds: a number over 0, at most %d", name,
				    key, CONFIG_MAX_TIMEOUT);
	*out = json_number_value(v);
	return 0;
}

/* "bench.counters" (§9.6): {"run": COMMAND, "tool": "callgrind"}. */
static int parse_counters(struct config *cfg, const json_t *v, const char *name,
			  struct bl_error *err)
{
	const char *key;
	json_t *x;
	if (!json_is_object(v))
		return type_error(err, name, "bench.counters",
				  "expected an object: {\"run\": COMMAND}");
	json_object_foreach ((json_t *)v, key, x) {
		int ret;
		if (!strcmp(key, "run")) {
			if ((ret = parse_string(&cfg->counters_run, x, name, "bench.counters.run",
						err)))
				return ret;
		} else if (!strcmp(key, "tool")) {
			if (!json_is_string(x) || strcmp(json_string_value(x), "callgrind"))
				return type_error(err, name, "bench.counters.tool",
						  "expected \"callgrind\" (the only tool for now)");
		} else {
			struct strbuf at = STRBUF_INIT;
			strbuf_addf(&at, "bench.counters.%s", key);
			ret = unknown_key(err, name, at.buf);
			strbuf_release(&at);
			return ret;
		}
	}
	if (!cfg->counters_run)
		return type_error(err, name, "bench.counters.run", "missing: the command to count");
	return 0;
}

/* "bench" (§9): how the re-bench builds a commit's worktree and runs its benchmarks. */
static int parse_bench(struct config *cfg, const json_t *bench, const char *name,
		       struct bl_error *err)
{
	struct strbuf at = STRBUF_INIT;
	const char *key;
	json_t *v;
	int ret = 0;
	if (!json_is_object(bench))
		return type_error(err, name, "bench", "expected an object");
	json_object_foreach ((json_t *)bench, key, v) {
		strbuf_reset(&at);
		strbuf_addf(&at, "bench.%s", key);
		if (!strcmp(key, "build")) {
			ret = parse_string(&cfg->bench_build, v, name, at.buf, err);
		} else if (!strcmp(key, "build_timeout")) {
			ret = parse_seconds(&cfg->bench_build_timeout, v, name, at.buf, err);
		} else if (!strcmp(key, "run")) {
			ret = parse_string(&cfg->bench_run, v, name, at.buf, err);
		} else if (!strcmp(key, "run_timeout")) {
			ret = parse_seconds(&cfg->bench_run_timeout, v, name, at.buf, err);
		} else if (!strcmp(key, "format")) {
			enum result_format f;
			if (!json_is_string(v) || result_format_parse(&f, json_string_value(v))) {
				struct strbuf what = STRBUF_INIT;
				strbuf_addstr(&what, "expected a format: ");
				result_format_list(&what);
				ret = type_error(err, name, at.buf, what.buf);
				strbuf_release(&what);
			} else {
				ret = parse_string(&cfg->bench_format, v, name, at.buf, err);
			}
		} else if (!strcmp(key, "processes")) {
			if (!json_is_integer(v) || json_integer_value(v) < 1 ||
			    json_integer_value(v) > CONFIG_MAX_PROCESSES)
				ret = bl_error_set(err, BL_ECONFIG,
						   "%s: %s: expected an integer from 1 to %d", name,
						   at.buf, CONFIG_MAX_PROCESSES);
			else
				cfg->bench_processes = (long)json_integer_value(v);
		} else if (!strcmp(key, "counters")) {
			ret = parse_counters(cfg, v, name, err);
		} else if (!strcmp(key, "artifacts")) {
			if ((ret = parse_strings(&cfg->bench_artifacts, &cfg->n_bench_artifacts, v,
						 name, at.buf, err)))
				goto done;
			for (size_t i = 0; i < cfg->n_bench_artifacts; i++) {
				const char *glob = cfg->bench_artifacts[i];
				if (!is_inner_glob(glob, strlen(glob))) {
					ret = bl_error_set(err, BL_ECONFIG,
							   "%s: %s: '%s' is not a glob inside the "
							   "worktree (relative, no '..')",
							   name, at.buf, glob);
					goto done;
				}
			}
		} else {
			ret = unknown_key(err, name, at.buf);
		}
		if (ret)
			goto done;
	}
done:
	strbuf_release(&at);
	return ret;
}

static int parse_object(struct config *cfg, const json_t *root, const char *name,
			struct bl_error *err)
{
	const char *key;
	json_t *v;
	int ret;
	json_object_foreach ((json_t *)root, key, v) {
		if (!strcmp(key, "measured_paths"))
			ret =
			    parse_paths(&cfg->measured_paths, &cfg->n_measured, v, name, key, err);
		else if (!strcmp(key, "unmeasured_paths"))
			ret = parse_paths(&cfg->unmeasured_paths, &cfg->n_unmeasured, v, name, key,
					  err);
		else if (!strcmp(key, "main_branch"))
			ret = parse_string(&cfg->main_branch, v, name, key, err);
		else if (!strcmp(key, "machine")) {
			ret = parse_string(&cfg->machine, v, name, key, err);
			if (!ret && !machine_name_valid(cfg->machine))
				ret = type_error(err, name, key,
						 "not a machine name ([A-Za-z0-9._-]{1,64})");
		} else if (!strcmp(key, "harness_version")) {
			ret = 0;
			if (!json_is_integer(v) || json_integer_value(v) < 0)
				ret =
				    type_error(err, name, key, "expected an integer of 0 or more");
			else
				cfg->harness_version = (int64_t)json_integer_value(v);
		} else if (!strcmp(key, "server")) {
			ret = parse_string(&cfg->server, v, name, key, err);
			if (!ret && strncmp(cfg->server, "http://", 7) &&
			    strncmp(cfg->server, "https://", 8))
				ret = type_error(err, name, key,
						 "expected an http:// or https:// URL");
		} else if (!strcmp(key, "repo_url")) {
			size_t len;
			ret = parse_string(&cfg->repo_url, v, name, key, err);
			/* Kept without its trailing '/', so links append "/commit/SHA". */
			for (len = ret ? 0 : strlen(cfg->repo_url);
			     len && cfg->repo_url[len - 1] == '/'; len--)
				cfg->repo_url[len - 1] = '\0';
			if (!ret && !((!strncmp(cfg->repo_url, "http://", 7) && len > 7) ||
				      (!strncmp(cfg->repo_url, "https://", 8) && len > 8)))
				ret = type_error(err, name, key,
						 "expected an http:// or https:// URL");
		} else if (!strcmp(key, "token_file")) {
			ret = parse_string(&cfg->token_file, v, name, key, err);
			/* Relative, it would depend on the current directory; and a token must not
			 * be committed with the repository. */
			if (!ret && cfg->token_file[0] != '/' && strncmp(cfg->token_file, "~/", 2))
				ret = type_error(err, name, key,
						 "expected an absolute path or one under ~/");
		} else if (!strcmp(key, "metrics"))
			ret = parse_strings(&cfg->judged_metrics, &cfg->n_judged_metrics, v, name,
					    key, err);
		else if (!strcmp(key, "primary_metric"))
			ret = parse_string(&cfg->primary_metric, v, name, key, err);
		else if (!strcmp(key, "quiet"))
			ret = parse_quiet(cfg, v, name, err);
		else if (!strcmp(key, "machines"))
			ret = parse_machines(cfg, v, name, err);
		else if (!strcmp(key, "gate"))
			ret = parse_gate(cfg, v, name, err);
		else if (!strcmp(key, "counted_tolerance"))
			ret = parse_pct_map(&cfg->counted_names, &cfg->counted_pct, &cfg->n_counted,
					    v, name, key, err);
		else if (!strcmp(key, "ladders")) {
			ret = 0;
			if (!json_is_object(v))
				ret = type_error(err, name, key, "expected an object");
			else
				cfg->ladders = json_incref(v);
		} else if (!strcmp(key, "bench"))
			ret = parse_bench(cfg, v, name, err);
		else
			ret = unknown_key(err, name, key);
		if (ret)
			return ret;
	}
	/* A path in both lists would be measured and excused at once. */
	for (size_t i = 0; i < cfg->n_unmeasured; i++)
		if (listed(cfg->measured_paths, cfg->n_measured, cfg->unmeasured_paths[i]))
			return bl_error_set(err, BL_ECONFIG,
					    "%s: unmeasured_paths: '%s' is also in measured_paths",
					    name, cfg->unmeasured_paths[i]);
	return 0;
}

int config_parse(struct config *cfg, const char *name, const char *text, size_t len,
		 struct bl_error *err)
{
	json_error_t jerr;
	json_t *root;
	int ret;

	config_init(cfg);
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		if (jerr.line > 0)
			return bl_error_set(err, BL_ECONFIG, "%s:%d:%d: %s", name, jerr.line,
					    jerr.column, jerr.text);
		return bl_error_set(err, BL_ECONFIG, "%s: %s", name, jerr.text);
	}
	if (!json_is_object(root))
		ret = bl_error_set(err, BL_ECONFIG, "%s: expected a JSON object", name);
	else
		ret = parse_object(cfg, root, name, err);
	json_decref(root);
	if (ret)
		config_release(cfg);
	return ret;
}

/* Reads a file, or NULL text when it does not exist. */
static int read_config_file(struct strbuf *text, int *found, const char *path, struct bl_error *err)
{
	struct stat sb;
	*found = 0;
	if (stat(path, &sb) < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		return bl_error_set(err, BL_EIO, "cannot read '%s': %s", path, strerror(errno));
	}
	if (S_ISDIR(sb.st_mode))
		return bl_error_set(err, BL_ECONFIG, "'%s' is a directory", path);
	*found = 1;
	return read_file_capped(text, path, CONFIG_MAX_FILE, err);
}

/* The config in HEAD's tree, for a bare repository (it has no working tree). */
static int read_config_blob(struct strbuf *text, int *found, git_repository *repo,
			    struct bl_error *err)
{
	git_object *obj = NULL;
	int ret = 0;
	*found = 0;
	if (git_revparse_single(&obj, repo, "HEAD:" CONFIG_NAME) < 0)
		return 0; /* no HEAD, or no file in it: defaults */
	if (git_object_type(obj) == GIT_OBJECT_BLOB) {
		const git_blob *blob = (const git_blob *)obj;
		git_object_size_t size = git_blob_rawsize(blob);
		if (size > CONFIG_MAX_FILE)
			ret = bl_error_set(err, BL_ETOOBIG,
					   "HEAD:" CONFIG_NAME " is too big (over %zu bytes)",
					   CONFIG_MAX_FILE);
		else {
			strbuf_add(text, git_blob_rawcontent(blob), (size_t)size);
			*found = 1;
		}
	}
	git_object_free(obj);
	return ret;
}

static int same_dir(const char *a, const char *b)
{
	char *ra = realpath(a, NULL), *rb = realpath(b, NULL);
	int same = ra && rb && !strcmp(ra, rb);
	free(ra);
	free(rb);
	return same;
}

int config_load(struct config *cfg, const char *repo_dir, struct bl_error *err)
{
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT;
	git_repository *repo = NULL;
	const char *root = repo_dir;
	int found = 0, ret;

	config_init(cfg);
	/* The file sits at the working tree's root, which may be above repo_dir. */
	libgit2_start();
	if (git_repository_open_ext(&repo, repo_dir, 0, NULL) == 0) {
		root = git_repository_workdir(repo);
		if (root && same_dir(root, repo_dir))
			root = repo_dir; /* name the file as the user named its directory */
	}
	if (root) {
		if (strcmp(root, ".")) {
			strbuf_addstr(&path, root);
			if (path.len && path.buf[path.len - 1] != '/')
				strbuf_addch(&path, '/');
		}
		strbuf_addstr(&path, CONFIG_NAME);
		ret = read_config_file(&text, &found, path.buf, err);
	} else {
		strbuf_addf(&path, "%s/HEAD:" CONFIG_NAME, repo_dir);
		ret = read_config_blob(&text, &found, repo, err);
		if (ret)
			bl_error_prefix(err, "'%s'", repo_dir);
	}
	if (ret || !found)
		goto done;
	if ((ret = config_parse(cfg, path.buf, text.buf, text.len, err)))
		goto done;
	cfg->path = strbuf_detach(&path, NULL);
done:
	git_repository_free(repo);
	strbuf_release(&path);
	strbuf_release(&text);
	return ret;
}

/* The current directory's absolute name, or "" when it cannot be named. */
static void current_dir(struct strbuf *out)
{
	for (size_t size = 256; size <= 65536; size *= 2) {
		strbuf_grow(out, size);
		if (getcwd(out->buf, size)) {
			strbuf_setlen(out, strlen(out->buf));
			return;
		}
		if (errno != ERANGE)
			return;
	}
}

int config_surely_outside_repositories(const char *dir)
{
	struct strbuf path = STRBUF_INIT;
	size_t len = strlen(dir), base;
	int found = 0;

	if (dir[0] != '/')
		return 0;
	strbuf_addstr(&path, dir);
	while (len > 1 && path.buf[len - 1] == '/')
		len--;
	for (;;) {
		base = len > 1 ? len : 0; /* "/" holds "/.git", not "//.git" */
		strbuf_setlen(&path, base);
		strbuf_addstr(&path, "/.git");
		found = access(path.buf, F_OK) == 0 || errno != ENOENT;
		strbuf_setlen(&path, base);
		strbuf_addstr(&path, "/HEAD");
		found = found || access(path.buf, F_OK) == 0 || errno != ENOENT;
		if (found || len == 1)
			break;
		/* the parent: what comes before the last slash, or "/" itself */
		while (len > 1 && path.buf[len - 1] != '/')
			len--;
		while (len > 1 && path.buf[len - 1] == '/')
			len--;
	}
	strbuf_release(&path);
	return !found;
}

int config_load_checkout(struct config *cfg, struct strbuf *root, const char *repo,
			 struct bl_error *err)
{
	struct strbuf cwd = STRBUF_INIT;
	git_repository *r = NULL;
	const char *workdir;
	size_t len;
	int ret, outside;

	config_init(cfg);
	if (repo) {
		strbuf_addstr(root, repo);
		return config_load(cfg, repo, err);
	}
	/* The repository holding the current directory, if any: a directory outside every
	 * repository has no checkout, and its own benchline.json is not read. */
	current_dir(&cwd);
	outside = cwd.len && config_surely_outside_repositories(cwd.buf);
	strbuf_release(&cwd);
	if (outside)
		return 0;
	libgit2_start();
	ret = git_repository_open_ext(&r, ".", 0, NULL);
	if (ret == GIT_ENOTFOUND)
		return 0;
	if (ret < 0) {
		const git_error *e = git_error_last();
		return bl_error_set(err, BL_EGIT, "cannot open the repository of '.': %s",
				    e && e->message ? e->message : "unknown error");
	}
	workdir = git_repository_workdir(r);
	if (!workdir)
		workdir = git_repository_path(r); /* bare: the repository itself */
	for (len = strlen(workdir); len > 1 && workdir[len - 1] == '/'; len--)
		;
	strbuf_add(root, workdir, len);
	git_repository_free(r);
	return config_load(cfg, root->buf, err);
}

/* A machine name checked, or the error naming where it came from. */
static int check_machine(const char *name, enum config_from from, const struct config *cfg,
			 struct bl_error *err)
{
	if (machine_name_valid(name))
		return 0;
	switch (from) {
	case CONFIG_FROM_FLAG:
		return bl_error_set(err, BL_EINVALID,
				    "invalid machine name '%s' (expected [A-Za-z0-9._-]{1,64})",
				    name);
	case CONFIG_FROM_HOST:
		return bl_error_set(
		    err, BL_EINVALID,
		    "the host name '%s' is not a machine name ([A-Za-z0-9._-]{1,64}): "
		    "give --machine or set \"machine\" in benchline.json",
		    name);
	default: /* benchline.json's is checked when it is read */
		return bl_error_set(err, BL_ECONFIG, "%s: machine: '%s' is not a machine name",
				    cfg && cfg->path ? cfg->path : CONFIG_NAME, name);
	}
}

int config_resolve(struct config_settings *out, const struct config_flags *flags,
		   const struct config *cfg, unsigned how, struct bl_error *err)
{
	const char *machine = NULL;
	char host[256];

	memset(out, 0, sizeof(*out));
	if (flags->machine) {
		machine = flags->machine;
		out->machine_from = CONFIG_FROM_FLAG;
	} else if (cfg && cfg->machine) {
		machine = cfg->machine;
		out->machine_from = CONFIG_FROM_FILE;
	} else if (how & CONFIG_HOST_MACHINE) {
		if (gethostname(host, sizeof(host)) < 0)
			return bl_error_set(err, BL_EIO,
					    "cannot read the host name: give --machine or set "
					    "\"machine\" in benchline.json");
		host[sizeof(host) - 1] = '\0';
		machine = host;
		out->machine_from = CONFIG_FROM_HOST;
	}
	if (machine) {
		int ret = check_machine(machine, out->machine_from, cfg, err);
		if (ret)
			return ret;
		memcpy(out->machine, machine, strlen(machine) + 1); /* at most 64 bytes */
	}

	if (flags->harness_version >= 0) {
		out->harness_version = flags->harness_version;
		out->harness_from = CONFIG_FROM_FLAG;
	} else if (cfg && cfg->harness_version >= 0) {
		out->harness_version = cfg->harness_version;
		out->harness_from = CONFIG_FROM_FILE;
	} else {
		out->harness_version = CONFIG_HARNESS_VERSION;
		out->harness_from = CONFIG_FROM_DEFAULT;
	}

	if (flags->format) {
		out->format = flags->format;
		out->format_from = CONFIG_FROM_FLAG;
	} else if ((how & CONFIG_BENCH_FORMAT) && cfg && cfg->bench_format) {
		out->format = cfg->bench_format;
		out->format_from = CONFIG_FROM_FILE;
	} else {
		out->format = "auto";
		out->format_from = CONFIG_FROM_DEFAULT;
	}
	return 0;
}

void config_from_phrase(struct strbuf *out, enum config_from from, const char *flag,
			const char *key, const struct config *cfg)
{
	switch (from) {
	case CONFIG_FROM_FLAG:
		strbuf_addstr(out, flag);
		break;
	case CONFIG_FROM_FILE:
		strbuf_addf(out, "\"%s\" in %s", key, cfg && cfg->path ? cfg->path : CONFIG_NAME);
		break;
	case CONFIG_FROM_HOST:
		strbuf_addstr(out, "the host name");
		break;
	case CONFIG_FROM_DEFAULT:
		strbuf_addstr(out, "the default");
		break;
	case CONFIG_FROM_NONE:
		strbuf_addstr(out, "nowhere");
		break;
	}
}

int config_machine(struct strbuf *out, const char *flag, const struct config *cfg,
		   struct bl_error *err)
{
	struct config_flags flags = {flag, -1, NULL};
	struct config_settings s;
	int ret = config_resolve(&s, &flags, cfg, CONFIG_HOST_MACHINE, err);
	if (!ret)
		strbuf_addstr(out, s.machine);
	return ret;
}

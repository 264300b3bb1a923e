/*
 * Criterion.rs results: a target/criterion directory where each benchmark has a new/
 * directory holding estimates.json, sample.json and benchmark.json. One record per new/
 * directory, named by benchmark.json's full_id (else the directory's path under the root),
 * with the timed metric "time" (unit ns): sample.json's times[i] / iters[i] (nanoseconds per
 * iteration) are its samples and estimates.json's median.point_estimate its median. A
 * throughput in benchmark.json ({"Bytes": N} or {"Elements": N}) adds a "throughput" metric
 * (B/s or elements/s, higher better) computed from each sample. base/ and other saved
 * baselines are not read. The walk does not follow symbolic links and is capped in entries,
 * depth and file size. docs/formats.md.
 */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ingest/adapters/adapters.h"

/* What benchmark.json says. */
struct bench_info {
	const char *full_id;
	const char *throughput_unit; /* "B/s" or "elements/s", NULL when none */
	double throughput_per_iter;
};

static int read_benchmark_json(struct bench_info *info, json_t **doc,
			       const struct adapters_criterion_texts *t,
			       const struct ingest_defaults *defaults, struct bl_error *err)
{
	struct adapters_input a = {t->benchmark_name, t->benchmark,	t->benchmark_len,
				   defaults,	      t->fallback_time, err};
	struct adapters_path p = {.n = 0};
	json_t *tp = NULL;
	const char *key;
	json_t *v;
	int ret;

	memset(info, 0, sizeof(*info));
	if ((ret = adapters_load_json(doc, a.name, a.text, a.len, err)) ||
	    (ret = adapters_get_string(&a, &p, *doc, "full_id", 0, &info->full_id)))
		return ret;
	tp = json_object_get(*doc, "throughput");
	if (!tp || json_is_null(tp))
		return 0;
	if (!json_is_object(tp) || json_object_size(tp) != 1) {
		adapters_path_key(&p, "throughput");
		return adapters_json_fail(&a, &p, INGEST_AT_VALUE,
					  "expected {\"Bytes\": N} or {\"Elements\": N}");
	}
	adapters_path_key(&p, "throughput");
	json_object_foreach (tp, key, v) {
		if (!strcmp(key, "Bytes") || !strcmp(key, "BytesDecimal"))
			info->throughput_unit = "B/s";
		else if (!strcmp(key, "Elements"))
			info->throughput_unit = "elements/s";
		else
			return adapters_json_fail(&a, &p, INGEST_AT_VALUE,
						  "unknown throughput (expected Bytes, "
						  "BytesDecimal or Elements)");
		if ((ret = adapters_get_number(&a, &p, tp, key, 1, &info->throughput_per_iter)))
			return ret;
	}
	return 0;
}

static int read_estimates(double *median, const struct adapters_criterion_texts *t,
			  const struct ingest_defaults *defaults, struct bl_error *err)
{
	struct adapters_input a = {t->estimates_name, t->estimates,	t->estimates_len,
				   defaults,	      t->fallback_time, err};
	struct adapters_path p = {.n = 0};
	json_t *doc = NULL, *mo = NULL;
	int ret;

	if ((ret = adapters_load_json(&doc, a.name, a.text, a.len, err)) ||
	    (ret = adapters_get_object(&a, &p, doc, "median", 1, &mo)))
		goto done;
	adapters_path_key(&p, "median");
	ret = adapters_get_number(&a, &p, mo, "point_estimate", 1, median);
done:
	json_decref(doc);
	return ret;
}

/* sample.json: the time per iteration of each sample, in ns. */
static int read_samples(double **out, size_t *n, const struct adapters_criterion_texts *t,
			const struct ingest_defaults *defaults, struct bl_error *err)
{
	struct adapters_input a = {t->sample_name, t->sample,	     t->sample_len,
				   defaults,	   t->fallback_time, err};
	struct adapters_path p = {.n = 0};
	json_t *doc = NULL, *iters_arr = NULL, *times_arr = NULL;
	double *iters = NULL, *times = NULL;
	size_t ni = 0, nt = 0;
	int ret;

	*out = NULL;
	*n = 0;
	if ((ret = adapters_load_json(&doc, a.name, a.text, a.len, err)) ||
	    (ret = adapters_get_array(&a, &p, doc, "iters", 1, &iters_arr)) ||
	    (ret = adapters_get_array(&a, &p, doc, "times", 1, &times_arr)))
		goto done;
	adapters_path_key(&p, "iters");
	ret = adapters_get_samples(&a, &p, iters_arr, &iters, &ni);
	adapters_path_pop(&p);
	if (ret)
		goto done;
	adapters_path_key(&p, "times");
	ret = adapters_get_samples(&a, &p, times_arr, &times, &nt);
	if (ret)
		goto done;
	if (ni != nt) {
		ret = adapters_json_fail(&a, &p, INGEST_AT_VALUE,
					 "%zu times for %zu iteration counts", nt, ni);
		goto done;
	}
	if (!nt) {
		ret = adapters_json_fail(&a, &p, INGEST_AT_VALUE, "no samples");
		goto done;
	}
	adapters_path_pop(&p);
	adapters_path_key(&p, "iters");
	for (size_t i = 0; i < ni; i++) {
		if (iters[i] > 0)
			continue;
		adapters_path_index(&p, i);
		ret = adapters_json_fail(&a, &p, INGEST_AT_VALUE, "iteration count is 0");
		goto done;
	}
	adapters_path_pop(&p);
	adapters_path_key(&p, "times");
	for (size_t i = 0; i < nt; i++) {
		double per_iter = times[i] / iters[i];
		/* A time too large for a double per iteration is no measurement to keep. */
		if (!isfinite(per_iter)) {
			adapters_path_index(&p, i);
			ret =
			    adapters_json_fail(&a, &p, INGEST_AT_VALUE,
					       "time per iteration %g / %g is not a finite number",
					       times[i], iters[i]);
			goto done;
		}
		times[i] = per_iter;
	}
	*out = times;
	*n = nt;
	times = NULL;
done:
	free(iters);
	free(times);
	json_decref(doc);
	return ret;
}

static int median_above_p95(const struct adapters_criterion_texts *t,
			    const struct ingest_defaults *defaults, double median, double p95,
			    struct bl_error *err)
{
	struct adapters_input a = {t->estimates_name, t->estimates,	t->estimates_len,
				   defaults,	      t->fallback_time, err};
	struct adapters_path p = {.n = 0};

	adapters_path_key(&p, "median");
	adapters_path_key(&p, "point_estimate");
	return adapters_json_fail(&a, &p, INGEST_AT_VALUE,
				  "median %.17g is above the 95th percentile of sample.json "
				  "(%.17g)",
				  median, p95);
}

static int parse_texts(struct ingest_batch *out, const struct adapters_criterion_texts *t,
		       const struct adapters_common *common, const struct ingest_defaults *defaults,
		       struct bl_error *err)
{
	struct ingest_record rec;
	struct ingest_metric *m;
	struct bench_info info;
	json_t *bdoc = NULL;
	double median = NAN, *samples = NULL, *rate = NULL;
	size_t n = 0;
	int ret;

	memset(&rec, 0, sizeof(rec));
	memset(&info, 0, sizeof(info));
	if ((t->benchmark && (ret = read_benchmark_json(&info, &bdoc, t, defaults, err))) ||
	    (ret = read_estimates(&median, t, defaults, err)) ||
	    (ret = read_samples(&samples, &n, t, defaults, err)))
		goto done;
	if ((ret = adapters_record_init(&rec, common, info.full_id ? info.full_id : t->dir_name, 1,
					1, t->estimates_name, err)))
		goto done;
	if (info.throughput_unit) {
		rate = xmalloc(n * sizeof(*rate));
		for (size_t i = 0; i < n && rate; i++) {
			double r = info.throughput_per_iter * 1e9 / samples[i];
			if (!isfinite(r)) {
				free(rate); /* a sample of no time has no rate */
				rate = NULL;
			} else {
				rate[i] = r;
			}
		}
	}
	m = adapters_add_metric(&rec, "time", METRIC_TIMED, "ns", 0);
	adapters_take_samples(m, samples, n);
	samples = NULL;
	/* criterion's median of these samples cannot be above their 95th percentile */
	if (median > m->p95) {
		ret = median_above_p95(t, defaults, median, m->p95, err);
		goto done;
	}
	m->median = median;
	if (rate) {
		m = adapters_add_metric(&rec, "throughput", METRIC_TIMED, info.throughput_unit, 1);
		adapters_take_samples(m, rate, n);
		rate = NULL;
	}
	rec.primary = xstrdup("time");
	ret = adapters_push(out, &rec, t->estimates_name, err);
done:
	free(samples);
	free(rate);
	json_decref(bdoc);
	ingest_record_release(&rec);
	return ret;
}

int adapters_criterion_parse_texts(struct ingest_batch *out,
				   const struct adapters_criterion_texts *t,
				   const struct ingest_defaults *defaults, struct bl_error *err)
{
	struct adapters_input a = {t->estimates_name, t->estimates,	t->estimates_len,
				   defaults,	      t->fallback_time, err};
	struct adapters_file_info fi;
	struct adapters_common common;
	struct ingest_batch local = {NULL, 0, 0};
	int ret;

	adapters_file_info_init(&fi);
	if ((ret = adapters_resolve(&common, &a, &fi)) ||
	    (ret = parse_texts(&local, t, &common, defaults, err)))
		goto done;
	adapters_append(out, &local);
done:
	ingest_batch_release(&local);
	return ret;
}

/* --- the directory walk --- */

struct walk {
	const char *root;
	size_t entries;
	char **found; /* benchmark directories relative to root */
	size_t nr, alloc;
	struct bl_error *err;
};

static int is_regular(const char *path)
{
	struct stat st;
	return !lstat(path, &st) && S_ISREG(st.st_mode);
}

static int walk_dir(struct walk *w, const char *rel, int depth)
{
	struct strbuf dir = STRBUF_INIT, child = STRBUF_INIT;
	struct dirent *de;
	DIR *d;
	int ret = 0;

	strbuf_addstr(&dir, w->root);
	if (*rel)
		strbuf_addf(&dir, "/%s", rel);
	d = opendir(dir.buf);
	if (!d) {
		ret = bl_error_set(w->err, BL_EIO, "%s: cannot open: %s", dir.buf, strerror(errno));
		goto done;
	}
	while ((de = readdir(d))) {
		struct stat st;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (++w->entries > INGEST_CRITERION_MAX_ENTRIES) {
			ret = bl_error_set(w->err, BL_ETOOBIG, "%s: over %d directory entries",
					   w->root, INGEST_CRITERION_MAX_ENTRIES);
			goto done;
		}
		strbuf_reset(&child);
		strbuf_addf(&child, "%s/%s", dir.buf, de->d_name);
		if (lstat(child.buf, &st) || !S_ISDIR(st.st_mode))
			continue;
		if (!strcmp(de->d_name, "new")) {
			strbuf_addstr(&child, "/estimates.json");
			if (is_regular(child.buf)) {
				ALLOC_GROW(w->found, w->nr, w->alloc);
				w->found[w->nr++] = xstrdup(*rel ? rel : ".");
			}
			continue;
		}
		if (depth + 1 >= INGEST_CRITERION_MAX_DEPTH)
			continue;
		strbuf_reset(&child);
		if (*rel)
			strbuf_addf(&child, "%s/", rel);
		strbuf_addstr(&child, de->d_name);
		if ((ret = walk_dir(w, child.buf, depth + 1)))
			goto done;
	}
done:
	if (d)
		closedir(d);
	strbuf_release(&dir);
	strbuf_release(&child);
	return ret;
}

/* Reads root/rel/new/file into sb; with optional, a missing file leaves sb empty. */
static int read_new_file(struct strbuf *path, struct strbuf *sb, const char *root, const char *rel,
			 const char *file, int optional, struct bl_error *err)
{
	strbuf_reset(path);
	strbuf_addf(path, "%s/%s/new/%s", root, rel, file);
	if (!is_regular(path->buf)) {
		if (optional)
			return 0;
		return bl_error_set(err, BL_EINVALID,
				    "%s: missing (criterion writes it beside "
				    "estimates.json)",
				    path->buf);
	}
	return read_file_capped(sb, path->buf, INGEST_CRITERION_MAX_FILE, err);
}

int adapters_criterion(struct ingest_batch *out, const struct adapters_input *a)
{
	struct walk w = {a->name, 0, NULL, 0, 0, a->err};
	struct adapters_file_info fi;
	struct adapters_common common;
	struct strbuf est = STRBUF_INIT, smp = STRBUF_INIT, bj = STRBUF_INIT;
	struct strbuf est_path = STRBUF_INIT, smp_path = STRBUF_INIT, bj_path = STRBUF_INIT;
	int ret;

	adapters_file_info_init(&fi);
	if ((ret = adapters_resolve(&common, a, &fi)) || (ret = walk_dir(&w, "", 0)))
		goto done;
	if (!w.nr) {
		ret =
		    bl_error_set(a->err, BL_EINVALID,
				 "%s: no criterion benchmarks (no */new/estimates.json)", a->name);
		goto done;
	}
	qsort(w.found, w.nr, sizeof(*w.found), cmp_strp);
	for (size_t i = 0; i < w.nr; i++) {
		struct adapters_criterion_texts t;
		struct stat st;
		strbuf_reset(&est);
		strbuf_reset(&smp);
		strbuf_reset(&bj);
		if ((ret = read_new_file(&est_path, &est, a->name, w.found[i], "estimates.json", 0,
					 a->err)) ||
		    (ret = read_new_file(&smp_path, &smp, a->name, w.found[i], "sample.json", 0,
					 a->err)) ||
		    (ret = read_new_file(&bj_path, &bj, a->name, w.found[i], "benchmark.json", 1,
					 a->err)))
			goto done;
		memset(&t, 0, sizeof(t));
		t.dir_name = w.found[i];
		t.estimates_name = est_path.buf;
		t.estimates = est.buf;
		t.estimates_len = est.len;
		t.sample_name = smp_path.buf;
		t.sample = smp.buf;
		t.sample_len = smp.len;
		t.benchmark_name = bj_path.buf;
		t.benchmark = is_regular(bj_path.buf) ? bj.buf : NULL;
		t.benchmark_len = bj.len;
		t.fallback_time = a->fallback_time;
		if (isnan(a->defaults->started_at) && !stat(est_path.buf, &st))
			common.started_at = (double)st.st_mtime;
		if ((ret = parse_texts(out, &t, &common, a->defaults, a->err)))
			goto done;
	}
done:
	for (size_t i = 0; i < w.nr; i++)
		free(w.found[i]);
	free(w.found);
	strbuf_release(&est);
	strbuf_release(&smp);
	strbuf_release(&bj);
	strbuf_release(&est_path);
	strbuf_release(&smp_path);
	strbuf_release(&bj_path);
	adapters_file_info_release(&fi);
	return ret;
}

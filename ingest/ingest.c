#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "ingest/ingest.h"

/* benchline.json's reading, below the record model, caps quiet.min_samples by its own number. */
_Static_assert(CONFIG_MAX_MIN_SAMPLES == INGEST_MAX_SAMPLES,
	       "quiet.min_samples' cap is the most samples a record may carry");

static void metric_release(struct ingest_metric *m)
{
	free(m->name);
	free(m->unit);
	free(m->samples);
	free(m->ladder);
	memset(m, 0, sizeof(*m));
}

int ingest_valid_machine(const char *s)
{
	size_t n = strlen(s);

	if (n < 1 || n > 64)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-'))
			return 0;
	}
	return 1;
}

void ingest_defaults_init(struct ingest_defaults *d)
{
	memset(d, 0, sizeof(*d));
	d->harness_version = -1;
	d->committed_at = NAN;
	d->started_at = NAN;
}

void ingest_record_release(struct ingest_record *rec)
{
	free(rec->machine);
	free(rec->machine_info);
	free(rec->benchmark);
	free(rec->config);
	free(rec->content_hash);
	free(rec->branch);
	free(rec->profile);
	free(rec->primary);
	for (size_t i = 0; i < rec->nmetrics; i++)
		metric_release(&rec->metrics[i]);
	free(rec->metrics);
	free(rec->raw);
	memset(rec, 0, sizeof(*rec));
}

void ingest_batch_release(struct ingest_batch *batch)
{
	for (size_t i = 0; i < batch->nr; i++)
		ingest_record_release(&batch->records[i]);
	free(batch->records);
	memset(batch, 0, sizeof(*batch));
}

static int metric_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ingest_metric *)a)->name,
		      ((const struct ingest_metric *)b)->name);
}

static void set_real(json_t *obj, const char *key, double v)
{
	if (!isnan(v))
		json_object_set_new(obj, key, json_real(v));
}

/* The native JSON of a record built from its fields, for producers without a source text. */
static json_t *record_to_json(const struct ingest_record *rec)
{
	json_t *obj = json_object(), *src = json_object(), *metrics = json_object();
	struct strbuf ts = STRBUF_INIT;

	json_object_set_new(obj, "schema", json_integer(1));
	json_object_set_new(obj, "machine", json_string(rec->machine));
	if (rec->machine_info) {
		json_t *info = json_loads(rec->machine_info, 0, NULL);
		if (info)
			json_object_set_new(obj, "machine_info", info);
	}
	json_object_set_new(obj, "benchmark", json_string(rec->benchmark));
	json_object_set_new(obj, "config", json_string(rec->config ? rec->config : ""));
	if (rec->content_hash)
		json_object_set_new(obj, "content_hash", json_string(rec->content_hash));
	json_object_set_new(obj, "harness_version", json_integer(rec->harness_version));
	json_object_set_new(src, "commit", json_string(rec->commit));
	if (rec->source_hash[0])
		json_object_set_new(src, "source_hash", json_string(rec->source_hash));
	if (rec->branch)
		json_object_set_new(src, "branch", json_string(rec->branch));
	if (!isnan(rec->committed_at)) {
		format_rfc3339_utc(&ts, (int64_t)rec->committed_at);
		json_object_set_new(src, "committed_at", json_string(ts.buf));
		strbuf_reset(&ts);
	}
	json_object_set_new(src, "dirty", json_boolean(rec->dirty));
	json_object_set_new(obj, "source", src);
	json_object_set_new(obj, "profile", json_string(rec->profile ? rec->profile : "release"));
	format_rfc3339_utc(&ts, (int64_t)rec->started_at);
	json_object_set_new(obj, "started_at", json_string(ts.buf));
	json_object_set_new(obj, "baseline", json_boolean(rec->baseline));
	if (rec->primary)
		json_object_set_new(obj, "primary", json_string(rec->primary));
	if (rec->has_preflight) {
		json_t *pf = json_object();
		json_object_set_new(pf, "quiet", json_boolean(rec->preflight_quiet));
		json_object_set_new(obj, "preflight", pf);
	}
	for (size_t i = 0; i < rec->nmetrics; i++) {
		const struct ingest_metric *m = &rec->metrics[i];
		json_t *mo = json_object();
		json_object_set_new(mo, "kind", json_string(metric_kind_name(m->kind)));
		json_object_set_new(mo, "unit", json_string(m->unit));
		json_object_set_new(mo, "better",
				    json_string(metric_better_name(m->better_higher)));
		set_real(mo, "median", m->median);
		set_real(mo, "p95", m->p95);
		set_real(mo, "value", m->value);
		if (m->n >= 0)
			json_object_set_new(mo, "n", json_integer(m->n));
		if (m->samples) {
			json_t *arr = json_array();
			for (size_t k = 0; k < m->nsamples; k++)
				json_array_append_new(arr, json_real(m->samples[k]));
			json_object_set_new(mo, "samples", arr);
		}
		if (m->ladder)
			json_object_set_new(mo, "ladder", json_string(m->ladder));
		json_object_set_new(metrics, m->name, mo);
	}
	json_object_set_new(obj, "metrics", metrics);
	strbuf_release(&ts);
	return obj;
}

int ingest_record_finish(struct ingest_record *rec, const struct json_t *obj, struct bl_error *err)
{
	struct strbuf raw = STRBUF_INIT;
	json_t *built = NULL;
	int ret;

	if (rec->nmetrics > 1)
		qsort(rec->metrics, rec->nmetrics, sizeof(*rec->metrics), metric_cmp);
	if (!rec->config)
		rec->config = xstrdup("");
	if (!rec->profile)
		rec->profile = xstrdup("release");
	if (!rec->primary) {
		for (size_t i = 0; i < rec->nmetrics; i++) {
			if (rec->metrics[i].kind == METRIC_TIMED) {
				rec->primary = xstrdup(rec->metrics[i].name);
				break;
			}
		}
		/* No timed metric: the first by name stands for the run. */
		if (!rec->primary && rec->nmetrics)
			rec->primary = xstrdup(rec->metrics[0].name);
	}
	if (!obj)
		obj = built = record_to_json(rec);
	ret = json_write(&raw, obj, JSON_WRITE_CANONICAL);
	json_decref(built);
	if (ret) {
		strbuf_release(&raw);
		return bl_error_set(err, BL_EINVALID, "cannot encode a record as JSON");
	}
	free(rec->raw);
	rec->raw = strbuf_detach(&raw, NULL);
	if (digest_blob(rec->digest, rec->raw, strlen(rec->raw)))
		return bl_error_set(err, BL_EINVALID, "cannot hash a record");
	return 0;
}

int ingest_record_annotate(struct ingest_record *rec, const char *key, struct json_t *value,
			   struct bl_error *err)
{
	json_error_t jerr;
	json_t *obj = json_loads(rec->raw, 0, &jerr);
	int ret;

	if (!obj) {
		json_decref(value);
		return bl_error_set(err, BL_EINVALID, "cannot read a record's JSON: %s", jerr.text);
	}
	json_object_set_new(obj, key, value);
	ret = ingest_record_finish(rec, obj, err);
	json_decref(obj);
	return ret;
}

double ingest_quietness(const struct ingest_record *rec)
{
	for (size_t i = 0; i < rec->nmetrics; i++) {
		const struct ingest_metric *m = &rec->metrics[i];
		if (rec->primary && !strcmp(m->name, rec->primary)) {
			if (isnan(m->median) || isnan(m->p95) || m->median <= 0)
				return NAN;
			return m->p95 / m->median;
		}
	}
	return NAN;
}

int64_t ingest_sample_count(const struct ingest_record *rec)
{
	for (size_t i = 0; i < rec->nmetrics; i++) {
		const struct ingest_metric *m = &rec->metrics[i];
		if (rec->primary && !strcmp(m->name, rec->primary))
			return m->n >= 0 ? m->n : m->samples ? (int64_t)m->nsamples : -1;
	}
	return -1;
}

int ingest_is_noisy(const struct ingest_record *rec, double limit, int64_t min_samples)
{
	double quietness = ingest_quietness(rec);
	int64_t count = ingest_sample_count(rec);
	return !isnan(quietness) && quietness >= limit && (count < 0 || count >= min_samples);
}

int ingest_new_run_stands(int keep_first, int old_flawed, double old_quietness, int new_flawed,
			  double new_quietness)
{
	/* a flaw decides first: a flawed run never displaces a clean one, nor outlasts it, even on
	 * a machine that keeps its first run */
	if (old_flawed != new_flawed)
		return old_flawed;
	if (keep_first)
		return 0;
	if (isnan(new_quietness))
		return 0;
	if (isnan(old_quietness))
		return 1;
	return new_quietness < old_quietness;
}

/*
 * The machines and benchmarks of a batch, each looked up (or created) once: a file names a few
 * machines and benchmarks over and over, interleaved (a sweep runs every benchmark on every
 * machine). An open-addressing table keyed by name; a machine also keeps the info it last
 * stored, so a record carrying other info updates the row as before.
 */
struct id_entry {
	char *name, *info;
	int64_t id;
	int keep_first;
};

struct id_table {
	struct id_entry *slots;
	size_t nr, alloc; /* alloc: a power of two, or 0 */
};

struct id_cache {
	struct id_table machines, benchmarks;
};

static size_t name_hash(const char *s)
{
	size_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static struct id_entry *id_find(struct id_table *t, const char *name)
{
	if (!t->alloc)
		return NULL;
	for (size_t i = name_hash(name) & (t->alloc - 1);; i = (i + 1) & (t->alloc - 1)) {
		if (!t->slots[i].name)
			return NULL;
		if (!strcmp(t->slots[i].name, name))
			return &t->slots[i];
	}
}

static struct id_entry *id_add(struct id_table *t, const char *name)
{
	if ((t->nr + 1) * 2 > t->alloc) {
		struct id_table bigger = {NULL, t->nr, t->alloc ? t->alloc * 2 : 64};
		bigger.slots = xcalloc(bigger.alloc, sizeof(*bigger.slots));
		for (size_t i = 0; i < t->alloc; i++) {
			size_t j;
			if (!t->slots[i].name)
				continue;
			for (j = name_hash(t->slots[i].name) & (bigger.alloc - 1);
			     bigger.slots[j].name; j = (j + 1) & (bigger.alloc - 1))
				;
			bigger.slots[j] = t->slots[i];
		}
		free(t->slots);
		*t = bigger;
	}
	size_t i = name_hash(name) & (t->alloc - 1);
	while (t->slots[i].name)
		i = (i + 1) & (t->alloc - 1);
	t->slots[i].name = xstrdup(name);
	t->nr++;
	return &t->slots[i];
}

static void id_table_release(struct id_table *t)
{
	for (size_t i = 0; i < t->alloc; i++) {
		free(t->slots[i].name);
		free(t->slots[i].info);
	}
	free(t->slots);
}

static int same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static int lookup_ids(int64_t *machine_id, int *keep_first, int64_t *benchmark_id,
		      struct id_cache *c, struct store *st, const struct ingest_record *rec,
		      struct bl_error *err)
{
	struct id_entry *m = id_find(&c->machines, rec->machine), *b;
	int ret;
	if (!m || (rec->machine_info && !same_str(m->info, rec->machine_info))) {
		int64_t id;
		int first;
		if ((ret = store_machine(&id, &first, st, rec->machine, rec->machine_info, err)))
			return ret;
		if (!m)
			m = id_add(&c->machines, rec->machine);
		m->id = id;
		m->keep_first = first;
		free(m->info);
		m->info = rec->machine_info ? xstrdup(rec->machine_info) : NULL;
	}
	if (!(b = id_find(&c->benchmarks, rec->benchmark))) {
		int64_t id;
		if ((ret = store_benchmark(&id, st, rec->benchmark, err)))
			return ret;
		b = id_add(&c->benchmarks, rec->benchmark);
		b->id = id;
	}
	*machine_id = m->id;
	*keep_first = m->keep_first;
	*benchmark_id = b->id;
	return 0;
}

static int insert_metrics(struct store *st, int64_t run_id, const struct ingest_record *rec,
			  struct bl_error *err)
{
	for (size_t i = 0; i < rec->nmetrics; i++) {
		const struct ingest_metric *m = &rec->metrics[i];
		struct store_metric sm = {
		    .name = m->name,
		    .kind = m->kind,
		    .unit = m->unit,
		    .better_higher = m->better_higher,
		    .median = m->median,
		    .p95 = m->p95,
		    .value = m->value,
		    .n = m->n,
		    .samples = m->samples,
		    .nsamples = m->nsamples,
		    .ladder = m->ladder,
		};
		int ret = store_insert_metric(st, run_id, &sm, err);
		if (ret)
			return ret;
	}
	return 0;
}

int ingest_record_tags(unsigned *out, struct store *st, const struct ingest_record *rec,
		       double noisy_limit, int64_t min_samples, struct bl_error *err)
{
	unsigned tags = 0;
	int on_main = 1, ret;
	if (rec->dirty)
		tags |= INGEST_TAG_DIRTY;
	if (strcmp(rec->profile, "release"))
		tags |= INGEST_TAG_PROFILE;
	if (rec->has_preflight && !rec->preflight_quiet)
		tags |= INGEST_TAG_PREFLIGHT;
	if (ingest_is_noisy(rec, noisy_limit, min_samples))
		tags |= INGEST_TAG_NOISY;
	/* An imported Baseline is history of its own, main's or not. */
	if (!rec->baseline &&
	    (ret = store_is_main(&on_main, st, rec->source_hash, rec->commit, rec->branch, err)))
		return ret;
	if (!on_main)
		tags |= INGEST_TAG_NOT_MAIN;
	*out = tags;
	return 0;
}

/* Stores one record: its run, metrics and tags, and settles which run holds its key. */
static int store_one(enum ingest_outcome *outcome, int64_t *run_id, struct ingest_tagged *tg,
		     struct store *st, struct id_cache *ids, const struct ingest_record *rec,
		     double noisy_limit, int64_t min_samples, struct bl_error *err)
{
	double quietness = ingest_quietness(rec);
	unsigned tags;
	int flawed, ret;
	int64_t existing, standing;
	double standing_quietness;
	int standing_flawed;
	struct store_key key;
	int64_t machine_id, benchmark_id;
	int keep_first;

	memset(tg, 0, sizeof(*tg));
	tg->quietness = quietness;
	tg->noisy_limit = noisy_limit;
	tg->standing_quietness = NAN;
	if ((ret = store_run_by_digest(&existing, st, rec->digest, err)))
		return ret;
	if (existing) {
		*outcome = INGEST_DUPLICATE;
		*run_id = existing;
		/* Stored before: the tags it has now. */
		for (unsigned i = 0; i < INGEST_NTAGS; i++) {
			int has;
			if ((ret = store_has_tag(&has, st, existing, ingest_tag_name(i), err)))
				return ret;
			if (has)
				tg->tags |= 1u << i;
		}
		return 0;
	}
	if (!rec->source_hash[0])
		return bl_error_set(err, BL_EINVALID,
				    "record %s/%s has no source hash (give --repo to compute it)",
				    rec->machine, rec->benchmark);
	if ((ret = lookup_ids(&machine_id, &keep_first, &benchmark_id, ids, st, rec, err)))
		return ret;

	struct store_run run = {
	    .digest = rec->digest,
	    .machine_id = machine_id,
	    .benchmark_id = benchmark_id,
	    .config = rec->config,
	    .source_hash = rec->source_hash,
	    .harness_version = rec->harness_version,
	    .content_hash = rec->content_hash,
	    .commit = rec->commit,
	    .branch = rec->branch,
	    .committed_at = rec->committed_at,
	    .started_at = rec->started_at,
	    .dirty = rec->dirty,
	    .baseline = rec->baseline,
	    .profile = rec->profile,
	    .primary_metric = rec->primary,
	    .quietness = quietness,
	    .raw = rec->raw,
	};
	if ((ret = store_insert_run(run_id, st, &run, err)) ||
	    (ret = insert_metrics(st, *run_id, rec, err)) ||
	    (ret = ingest_record_tags(&tags, st, rec, noisy_limit, min_samples, err)))
		return ret;
	for (unsigned i = 0; i < INGEST_NTAGS; i++)
		if ((tags & 1u << i) && (ret = store_add_tag(st, *run_id, ingest_tag_name(i), err)))
			return ret;
	tg->tags = tags;
	flawed = (tags & INGEST_QUALITY_TAGS) != 0;

	key.machine_id = machine_id;
	key.benchmark_id = benchmark_id;
	key.config = rec->config;
	key.source_hash = rec->source_hash;
	key.harness_version = rec->harness_version;
	if ((ret = store_standing(&standing, &standing_quietness, &standing_flawed, st, &key, err)))
		return ret;
	if (standing && !ingest_new_run_stands(keep_first, standing_flawed, standing_quietness,
					       flawed, quietness)) {
		*outcome = INGEST_SUPERSEDED;
		tg->tags |= INGEST_TAG_SUPERSEDED;
		tg->standing = standing;
		tg->standing_quietness = standing_quietness;
		/* in the key rule's order: a flaw decides first, then keep "first" */
		tg->kept = standing_flawed != flawed ? INGEST_KEPT_CLEAN
			   : keep_first		     ? INGEST_KEPT_FIRST
						     : INGEST_KEPT_QUIETER;
		return store_add_tag(st, *run_id, "superseded", err);
	}
	*outcome = INGEST_STANDS;
	if (standing && (ret = store_add_tag(st, standing, "superseded", err)))
		return ret;
	return store_set_standing(st, &key, *run_id, err);
}

/* The records a transaction stores: a batch in memory, or a stage on disk. */
struct record_source {
	struct ingest_batch *batch;
	struct ingest_stage *stage;
	size_t next;
};

static int source_next(const struct ingest_record **out, struct record_source *src,
		       struct bl_error *err)
{
	if (src->stage)
		return ingest_stage_next(out, src->stage, err);
	if (src->next == src->batch->nr) {
		*out = NULL;
		return 0;
	}
	*out = &src->batch->records[src->next++];
	return 1;
}

/* Stores every record of src in one transaction, or (on any error) none; results go to the
 * arrays (a batch) or to the stage. */
static int store_records(struct store *st, struct record_source *src,
			 const struct ingest_options *opts, enum ingest_outcome *outcomes,
			 int64_t *run_ids, struct bl_error *err)
{
	double noisy_limit = opts && opts->noisy_limit > 0 ? opts->noisy_limit : CONFIG_NOISY_LIMIT;
	int64_t min_samples =
	    opts && opts->min_samples > 0 ? opts->min_samples : CONFIG_MIN_SAMPLES;
	const struct ingest_record *rec;
	struct id_cache ids;
	size_t i = 0;
	int ret;

	memset(&ids, 0, sizeof(ids));
	if (src->stage && (ret = ingest_stage_rewind(src->stage, err)))
		return ret;
	if ((ret = store_begin(st, err)))
		return ret;
	while ((ret = source_next(&rec, src, err)) > 0) {
		struct ingest_stage_result res = {0, INGEST_DUPLICATE, {0}};
		if ((ret = store_one(&res.outcome, &res.run_id, &res.tagged, st, &ids, rec,
				     noisy_limit, min_samples, err))) {
			bl_error_prefix(err, "record %zu", i + 1);
			break;
		}
		if (src->stage && (ret = ingest_stage_put_result(src->stage, &res, err)))
			break;
		if (outcomes)
			outcomes[i] = res.outcome;
		if (run_ids)
			run_ids[i] = res.run_id;
		if (opts && opts->tagged)
			opts->tagged[i] = res.tagged;
		i++;
	}
	if (ret)
		store_rollback(st);
	else
		ret = store_commit(st, err);
	id_table_release(&ids.machines);
	id_table_release(&ids.benchmarks);
	return ret;
}

int ingest_store(struct store *st, struct ingest_batch *batch, const struct ingest_options *opts,
		 enum ingest_outcome *outcomes, int64_t *run_ids, struct bl_error *err)
{
	struct record_source src = {batch, NULL, 0};
	return store_records(st, &src, opts, outcomes, run_ids, err);
}

int ingest_store_stage(struct store *st, struct ingest_stage *sg, const struct ingest_options *opts,
		       struct bl_error *err)
{
	struct record_source src = {NULL, sg, 0};
	struct ingest_options staged = {opts ? opts->noisy_limit : 0, opts ? opts->min_samples : 0,
					NULL};
	return store_records(st, &src, &staged, NULL, NULL, err);
}

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
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

void ingest_record_error_prefix(struct bl_error *err, const char *file,
				const struct ingest_record *rec, size_t number)
{
	if (rec->line > 0)
		bl_error_prefix(err, "%s:%d:%d: record %zu", file, rec->line, rec->column, number);
	else
		bl_error_prefix(err, "%s: record %zu", file, number);
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

/* The names (machines', or benchmarks' when benchmarks) of a chunk's new records that table t
 * does not know yet, each once, into names; their count. */
static size_t unknown_names(const char **names, struct id_table *t,
			    const struct ingest_record *recs, size_t n, const unsigned char *fresh,
			    int benchmarks)
{
	struct hashmap asked = HASHMAP_INIT;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		const char *name = benchmarks ? recs[i].benchmark : recs[i].machine;
		int64_t v;
		if (fresh[i] && !id_find(t, name) && !hashmap_get(&asked, name, &v)) {
			hashmap_put(&asked, name, 0);
			names[k++] = name;
		}
	}
	hashmap_release(&asked);
	return k;
}

/* The machines and benchmarks of a chunk's new records that the cache does not know yet, looked
 * up in two statements; those the database lacks are made when a record first needs them. */
static int prefetch_ids(struct id_cache *c, struct store *st, const struct ingest_record *recs,
			size_t n, const unsigned char *fresh, struct bl_error *err)
{
	const char **names = xcalloc(n ? n : 1, sizeof(*names));
	size_t k = unknown_names(names, &c->machines, recs, n, fresh, 0);
	struct store_machine_row *rows = xcalloc(k ? k : 1, sizeof(*rows));
	int64_t *ids = NULL;
	int ret;

	if ((ret = store_machines_by_name(rows, st, names, k, err)))
		goto done;
	for (size_t j = 0; j < k; j++) {
		struct id_entry *m;
		if (!rows[j].id)
			continue;
		m = id_add(&c->machines, names[j]);
		m->id = rows[j].id;
		m->keep_first = rows[j].keep_first;
		m->info = rows[j].info;
		rows[j].info = NULL;
	}
	free(rows);
	rows = NULL;
	k = unknown_names(names, &c->benchmarks, recs, n, fresh, 1);
	ids = xcalloc(k ? k : 1, sizeof(*ids));
	if ((ret = store_benchmarks_by_name(ids, st, names, k, err)))
		goto done;
	for (size_t j = 0; j < k; j++)
		if (ids[j])
			id_add(&c->benchmarks, names[j])->id = ids[j];
done:
	for (size_t j = 0; rows && j < k; j++)
		free(rows[j].info);
	free(rows);
	free(ids);
	free(names);
	return ret;
}

/*
 * A record's machine and benchmark ids, and whether its machine keeps the first run of a key.
 * A machine or benchmark the database lacks is made here, when a record first needs it, so
 * ids come in the order records name them; a machine's info is written when a record carries
 * other info than it holds.
 */
static int lookup_ids(int64_t *machine_id, int *keep_first, int64_t *benchmark_id,
		      struct id_cache *c, struct store *st, const struct ingest_record *rec,
		      struct bl_error *err)
{
	struct id_entry *m = id_find(&c->machines, rec->machine), *b;
	int ret;
	if (!m) {
		int64_t id;
		int first;
		if ((ret = store_machine(&id, &first, st, rec->machine, rec->machine_info, err)))
			return ret;
		m = id_add(&c->machines, rec->machine);
		m->id = id;
		m->keep_first = first;
		m->info = xstrdup_or_null(rec->machine_info);
	} else if (rec->machine_info && !same_str(m->info, rec->machine_info)) {
		if ((ret = store_set_machine_info(st, m->id, rec->machine_info, err)))
			return ret;
		free(m->info);
		m->info = xstrdup(rec->machine_info);
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

/* The tags of §5 that the record alone decides: dirty, profile, preflight, noisy. */
static unsigned own_tags(const struct ingest_record *rec, double noisy_limit, int64_t min_samples)
{
	unsigned tags = 0;
	if (rec->dirty)
		tags |= INGEST_TAG_DIRTY;
	if (strcmp(rec->profile, "release"))
		tags |= INGEST_TAG_PROFILE;
	if (rec->has_preflight && !rec->preflight_quiet)
		tags |= INGEST_TAG_PREFLIGHT;
	if (ingest_is_noisy(rec, noisy_limit, min_samples))
		tags |= INGEST_TAG_NOISY;
	return tags;
}

int ingest_record_tags(unsigned *out, struct store *st, const struct ingest_record *rec,
		       double noisy_limit, int64_t min_samples, struct bl_error *err)
{
	unsigned tags = own_tags(rec, noisy_limit, min_samples);
	int on_main = 1, ret;
	/* An imported Baseline is history of its own, main's or not. */
	if (!rec->baseline &&
	    (ret = store_is_main(&on_main, st, rec->source_hash, rec->commit, rec->branch, err)))
		return ret;
	if (!on_main)
		tags |= INGEST_TAG_NOT_MAIN;
	*out = tags;
	return 0;
}

/* The tag bit of a tag's name (0 for a name ingest does not give). */
static unsigned tag_bit(const char *name)
{
	for (unsigned i = 0; i < INGEST_NTAGS; i++)
		if (!strcmp(name, ingest_tag_name(i)))
			return 1u << i;
	return 0;
}

/*
 * A writer: one transaction in which records are stored a chunk at a time. For each chunk the
 * database is asked what the key rule and the tags need (runs by digest, their tags, machines
 * and benchmarks, the standing run of each key, which runs are main's, ids for the new runs) in
 * a few statements; then each record is stored in order, as one at a time would be, its
 * lookups answered by those answers and by what the chunk itself stored before it. The rows
 * written, their ids and the outcomes are those of storing the records one by one.
 */
struct ingest_writer {
	struct store *st;
	double noisy_limit;
	int64_t min_samples;
	struct id_cache ids; /* every machine and benchmark met, for the whole transaction */
	int begun;
	int main_known;	   /* main's history was synced (read once per transaction) */
	char *main_branch; /* else the main_branch setting, NULL when unset */
	size_t stored;	   /* records stored so far, for messages */
};

struct ingest_writer *ingest_writer_new(struct store *st, const struct ingest_options *opts)
{
	struct ingest_writer *w = xcalloc(1, sizeof(*w));
	w->st = st;
	w->noisy_limit = opts && opts->noisy_limit > 0 ? opts->noisy_limit : CONFIG_NOISY_LIMIT;
	w->min_samples = opts && opts->min_samples > 0 ? opts->min_samples : CONFIG_MIN_SAMPLES;
	return w;
}

void ingest_writer_free(struct ingest_writer *w)
{
	if (!w)
		return;
	if (w->begun)
		store_rollback(w->st);
	id_table_release(&w->ids.machines);
	id_table_release(&w->ids.benchmarks);
	free(w->main_branch);
	free(w);
}

int ingest_writer_begin(struct ingest_writer *w, int wait, struct bl_error *err)
{
	int ret = wait ? store_begin(w->st, err) : store_try_begin(w->st, err);
	if (ret)
		return ret;
	w->begun = 1;
	/* main's commits only change under the write lock, which this transaction holds */
	if ((ret = store_main_known(&w->main_known, w->st, err)) ||
	    (!w->main_known && (ret = store_get_meta(&w->main_branch, w->st, "main_branch", err))))
		return ret;
	return 0;
}

int ingest_writer_commit(struct ingest_writer *w, struct bl_error *err)
{
	w->begun = 0;
	return store_commit(w->st, err);
}

/* A key of the chunk as a string, unambiguous whatever the config holds. */
static char *key_string(const struct store_key *k)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%" PRId64 ",%" PRId64 ",%" PRId64 ",%zu:%s,%s", k->machine_id,
		    k->benchmark_id, k->harness_version, strlen(k->config), k->config,
		    k->source_hash);
	return strbuf_detach(&sb, NULL);
}

/* Who holds a key now, as the chunk goes: the database's answer, then the chunk's changes. */
struct holder {
	int64_t run_id;
	double quietness;
	int flawed;
	ptrdiff_t record; /* the chunk's record that is that run, -1 when stored before */
};

/* What one chunk knows, and what it changed so far. */
struct chunk {
	const struct ingest_record *recs;
	size_t n;
	int64_t *stored;	/* the run already stored under each record's digest, or 0 */
	unsigned *stored_tags;	/* and its tags at the chunk's start */
	ptrdiff_t *first;	/* an earlier record of the chunk with the same digest, or -1 */
	unsigned char *fresh;	/* a new run: neither stored nor met earlier in the chunk */
	ptrdiff_t *key_of;	/* the record's key among keys, -1 when no stored run can hold it */
	struct store_key *keys; /* keys whose standing run the database was asked for */
	struct store_standing *standing;
	int *on_main;	  /* the record is main's (a Baseline always) */
	int64_t *new_ids; /* ids for the fresh records, in order */
	size_t nfresh, next_id;
	struct hashmap holders; /* key string -> index into held */
	struct holder *held;
	char **key_strings; /* the holders' keys (the map's keys) */
	size_t nheld;
	struct store_metric_row *metrics; /* the new runs' metrics, inserted at the chunk's end */
	size_t *metric_of;		  /* the record of each */
	size_t nmetrics, metrics_alloc, metric_of_alloc;
	unsigned char *displaced;	 /* per record: its run was superseded later in the chunk */
	struct hashmap displaced_before; /* runs stored before the chunk that it superseded */
	char (*displaced_keys)[24];
	size_t ndisplaced;
};

/* A run's metrics, queued for the chunk's one insert of metrics (store_insert_metrics), each
 * with the chunk's record it belongs to. */
static void queue_metrics(struct chunk *c, int64_t run_id, size_t record,
			  const struct ingest_record *rec)
{
	for (size_t i = 0; i < rec->nmetrics; i++) {
		const struct ingest_metric *m = &rec->metrics[i];
		ALLOC_GROW(c->metrics, c->nmetrics, c->metrics_alloc);
		ALLOC_GROW(c->metric_of, c->nmetrics, c->metric_of_alloc);
		c->metrics[c->nmetrics] = (struct store_metric_row){
		    run_id,
		    {
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
		    },
		};
		c->metric_of[c->nmetrics++] = record;
	}
}

static void chunk_release(struct chunk *c)
{
	free(c->stored);
	free(c->stored_tags);
	free(c->first);
	free(c->fresh);
	free(c->key_of);
	free(c->keys);
	free(c->standing);
	free(c->on_main);
	free(c->new_ids);
	hashmap_release(&c->holders);
	free(c->held);
	for (size_t i = 0; i < c->nheld; i++)
		free(c->key_strings[i]);
	free(c->key_strings);
	free(c->metrics);
	free(c->metric_of);
	free(c->displaced);
	hashmap_release(&c->displaced_before);
	free(c->displaced_keys);
}

static void add_tag_bit(void *data, size_t index, const char *tag)
{
	((unsigned *)data)[index] |= tag_bit(tag);
}

/* The database's answers for a chunk: every lookup its records need, a statement each. */
static int chunk_ask(struct chunk *c, struct ingest_writer *w, struct bl_error *err)
{
	const struct ingest_record *recs = c->recs;
	size_t n = c->n, nstored = 0, nkeys = 0, npairs = 0;
	const char **strings = xcalloc(n, sizeof(*strings)), **commits = NULL;
	int64_t *run_ids = NULL;
	unsigned *stored_tags = NULL;
	size_t *which = NULL;
	struct hashmap seen = HASHMAP_INIT;
	int *pair_on_main = NULL, ret;

	/* the runs already stored, and their tags now */
	for (size_t i = 0; i < n; i++)
		strings[i] = recs[i].digest;
	if ((ret = store_runs_by_digest(c->stored, w->st, strings, n, err)))
		goto done;
	run_ids = xcalloc(n, sizeof(*run_ids));
	which = xcalloc(n, sizeof(*which));
	for (size_t i = 0, k = 0; i < n; i++) {
		int64_t j;
		c->first[i] = -1;
		if (c->stored[i]) {
			run_ids[k++] = c->stored[i];
			continue;
		}
		if (hashmap_get(&seen, recs[i].digest, &j)) {
			c->first[i] = (ptrdiff_t)j;
			continue;
		}
		hashmap_put(&seen, recs[i].digest, (int64_t)i);
		c->fresh[i] = 1;
		c->nfresh++;
	}
	/* their tags come back by the index among the stored ones: each goes to its record */
	for (size_t i = 0; i < n; i++)
		if (c->stored[i])
			which[nstored++] = i;
	stored_tags = xcalloc(nstored ? nstored : 1, sizeof(*stored_tags));
	if ((ret = store_tags_of_runs(w->st, run_ids, nstored, add_tag_bit, stored_tags, err)))
		goto done;
	for (size_t j = 0; j < nstored; j++)
		c->stored_tags[which[j]] = stored_tags[j];

	/* the machines and benchmarks, then the standing run of each key they can have */
	if ((ret = prefetch_ids(&w->ids, w->st, recs, n, c->fresh, err)))
		goto done;
	for (size_t i = 0; i < n; i++) {
		struct id_entry *m, *b;
		c->key_of[i] = -1;
		if (!c->fresh[i] || !(m = id_find(&w->ids.machines, recs[i].machine)) ||
		    !(b = id_find(&w->ids.benchmarks, recs[i].benchmark)))
			continue;
		c->keys[nkeys] = (struct store_key){m->id, b->id, recs[i].config,
						    recs[i].source_hash, recs[i].harness_version};
		c->key_of[i] = (ptrdiff_t)nkeys++;
	}
	if ((ret = store_standing_of_keys(c->standing, w->st, c->keys, nkeys, err)))
		goto done;

	/* which new runs are main's: by synced main's commits, else by their branch */
	commits = xcalloc(n, sizeof(*commits));
	for (size_t i = 0; i < n; i++) {
		c->on_main[i] = 1;
		if (!c->fresh[i] || recs[i].baseline)
			continue;
		if (!w->main_known) {
			c->on_main[i] = store_branch_is_main(recs[i].branch, w->main_branch);
			continue;
		}
		strings[npairs] = recs[i].source_hash;
		commits[npairs] = recs[i].commit;
		which[npairs++] = i;
	}
	pair_on_main = xcalloc(npairs ? npairs : 1, sizeof(*pair_on_main));
	if ((ret = store_on_main(pair_on_main, w->st, strings, commits, npairs, err)))
		goto done;
	for (size_t j = 0; j < npairs; j++)
		c->on_main[which[j]] = pair_on_main[j];

	ret = store_new_run_ids(c->new_ids, w->st, c->nfresh, err);
done:
	free(strings);
	free(commits);
	free(run_ids);
	free(which);
	free(stored_tags);
	free(pair_on_main);
	hashmap_release(&seen);
	return ret;
}

/* The holder of a key now (NULL: none), and a slot for a new one. */
static struct holder *holder_of(struct chunk *c, const struct store_key *key, ptrdiff_t key_of,
				char **key_str)
{
	int64_t at;
	*key_str = key_string(key);
	if (hashmap_get(&c->holders, *key_str, &at))
		return &c->held[at];
	if (key_of < 0 || !c->standing[key_of].run_id)
		return NULL;
	/* the database's holder, kept so the chunk's later changes apply to it */
	c->key_strings[c->nheld] = *key_str;
	hashmap_put(&c->holders, *key_str, (int64_t)c->nheld);
	c->held[c->nheld] =
	    (struct holder){c->standing[key_of].run_id, c->standing[key_of].quietness,
			    c->standing[key_of].flawed, -1};
	*key_str = NULL;
	return &c->held[c->nheld++];
}

/* The tags of the run a duplicate record names, as they are now. */
static unsigned duplicate_tags(struct chunk *c, size_t i, const struct ingest_stage_result *res)
{
	char id[24];
	int64_t v;
	if (c->first[i] >= 0) {
		ptrdiff_t j = c->first[i];
		return res[j].tagged.tags | (c->displaced[j] ? INGEST_TAG_SUPERSEDED : 0);
	}
	snprintf(id, sizeof(id), "%" PRId64, c->stored[i]);
	return c->stored_tags[i] |
	       (hashmap_get(&c->displaced_before, id, &v) ? INGEST_TAG_SUPERSEDED : 0);
}

/* Stores record i of the chunk: its run, metrics and tags, and settles which run holds its
 * key, as the key rule says (§1). */
static int store_fresh(struct chunk *c, struct ingest_writer *w, size_t i,
		       struct ingest_stage_result *res, struct bl_error *err)
{
	const struct ingest_record *rec = &c->recs[i];
	struct ingest_tagged *tg = &res[i].tagged;
	double quietness = ingest_quietness(rec);
	struct store_key key;
	struct holder *h;
	char *key_str = NULL;
	unsigned tags;
	int keep_first, flawed, ret;

	if (!rec->source_hash[0])
		return bl_error_set(err, BL_EINVALID,
				    "record %s/%s has no source hash (give --repo to compute it)",
				    rec->machine, rec->benchmark);
	if ((ret = lookup_ids(&key.machine_id, &keep_first, &key.benchmark_id, &w->ids, w->st, rec,
			      err)))
		return ret;
	struct store_run run = {
	    .id = c->new_ids[c->next_id++],
	    .digest = rec->digest,
	    .machine_id = key.machine_id,
	    .benchmark_id = key.benchmark_id,
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
	tags = own_tags(rec, w->noisy_limit, w->min_samples) |
	       (c->on_main[i] ? 0 : INGEST_TAG_NOT_MAIN);
	if ((ret = store_insert_run(&res[i].run_id, w->st, &run, err)))
		return ret;
	queue_metrics(c, res[i].run_id, i, rec);
	for (unsigned t = 0; t < INGEST_NTAGS; t++)
		if ((tags & 1u << t) &&
		    (ret = store_add_tag(w->st, res[i].run_id, ingest_tag_name(t), err)))
			return ret;
	tg->tags = tags;
	flawed = (tags & INGEST_QUALITY_TAGS) != 0;

	key.config = rec->config;
	key.source_hash = rec->source_hash;
	key.harness_version = rec->harness_version;
	h = holder_of(c, &key, c->key_of[i], &key_str);
	if (h && !ingest_new_run_stands(keep_first, h->flawed, h->quietness, flawed, quietness)) {
		free(key_str);
		res[i].outcome = INGEST_SUPERSEDED;
		tg->tags |= INGEST_TAG_SUPERSEDED;
		tg->standing = h->run_id;
		tg->standing_quietness = h->quietness;
		/* in the key rule's order: a flaw decides first, then keep "first" */
		tg->kept = h->flawed != flawed ? INGEST_KEPT_CLEAN
			   : keep_first	       ? INGEST_KEPT_FIRST
					       : INGEST_KEPT_QUIETER;
		return store_add_tag(w->st, res[i].run_id, "superseded", err);
	}
	res[i].outcome = INGEST_STANDS;
	if (h) {
		if ((ret = store_add_tag(w->st, h->run_id, "superseded", err)))
			goto done;
		if (h->record >= 0) {
			c->displaced[h->record] = 1;
		} else {
			snprintf(c->displaced_keys[c->ndisplaced], sizeof(*c->displaced_keys),
				 "%" PRId64, h->run_id);
			hashmap_put(&c->displaced_before, c->displaced_keys[c->ndisplaced++], 1);
		}
		*h = (struct holder){res[i].run_id, quietness, flawed, (ptrdiff_t)i};
	} else {
		c->key_strings[c->nheld] = key_str;
		hashmap_put(&c->holders, key_str, (int64_t)c->nheld);
		c->held[c->nheld++] =
		    (struct holder){res[i].run_id, quietness, flawed, (ptrdiff_t)i};
		key_str = NULL;
	}
	ret = store_set_standing(w->st, &key, res[i].run_id, err);
done:
	free(key_str);
	return ret;
}

/* One chunk: asked about, then each record in order. */
static int store_chunk(struct ingest_writer *w, const struct ingest_record *recs, size_t n,
		       struct ingest_stage_result *res, struct bl_error *err)
{
	struct chunk c;
	int ret;

	memset(&c, 0, sizeof(c));
	c.recs = recs;
	c.n = n;
	c.stored = xcalloc(n, sizeof(*c.stored));
	c.stored_tags = xcalloc(n, sizeof(*c.stored_tags));
	c.first = xcalloc(n, sizeof(*c.first));
	c.fresh = xcalloc(n, sizeof(*c.fresh));
	c.key_of = xcalloc(n, sizeof(*c.key_of));
	c.keys = xcalloc(n, sizeof(*c.keys));
	c.standing = xcalloc(n, sizeof(*c.standing));
	c.on_main = xcalloc(n, sizeof(*c.on_main));
	c.new_ids = xcalloc(n, sizeof(*c.new_ids));
	c.held = xcalloc(n, sizeof(*c.held));
	c.key_strings = xcalloc(n, sizeof(*c.key_strings));
	c.displaced = xcalloc(n, sizeof(*c.displaced));
	c.displaced_keys = xcalloc(n, sizeof(*c.displaced_keys));
	if ((ret = chunk_ask(&c, w, err)))
		goto done;
	for (size_t i = 0; i < n; i++) {
		struct ingest_tagged *tg = &res[i].tagged;
		memset(tg, 0, sizeof(*tg));
		tg->quietness = ingest_quietness(&recs[i]);
		tg->noisy_limit = w->noisy_limit;
		tg->standing_quietness = NAN;
		if (!c.fresh[i]) {
			/* stored before, in this chunk or earlier: the tags it has now */
			res[i].outcome = INGEST_DUPLICATE;
			res[i].run_id = c.first[i] >= 0 ? res[c.first[i]].run_id : c.stored[i];
			tg->tags = duplicate_tags(&c, i, res);
			continue;
		}
		if ((ret = store_fresh(&c, w, i, res, err))) {
			bl_error_prefix(err, "record %zu", w->stored + i + 1);
			goto done;
		}
	}
	{
		size_t failed;
		if ((ret = store_insert_metrics(&failed, w->st, c.metrics, c.nmetrics, err)) &&
		    failed < c.nmetrics)
			bl_error_prefix(err, "record %zu", w->stored + c.metric_of[failed] + 1);
	}
done:
	chunk_release(&c);
	return ret;
}

int ingest_writer_store(struct ingest_writer *w, const struct ingest_record *recs, size_t n,
			struct ingest_stage_result *res, struct bl_error *err)
{
	for (size_t at = 0; at < n; at += INGEST_CHUNK) {
		size_t k = n - at < INGEST_CHUNK ? n - at : INGEST_CHUNK;
		int ret = store_chunk(w, recs + at, k, res + at, err);
		if (ret)
			return ret;
		w->stored += k;
	}
	return 0;
}

int ingest_store(struct store *st, struct ingest_batch *batch, const struct ingest_options *opts,
		 enum ingest_outcome *outcomes, int64_t *run_ids, struct bl_error *err)
{
	struct ingest_writer *w = ingest_writer_new(st, opts);
	struct ingest_stage_result *res = xcalloc(batch->nr ? batch->nr : 1, sizeof(*res));
	int ret;

	if (!(ret = ingest_writer_begin(w, 1, err)) &&
	    !(ret = ingest_writer_store(w, batch->records, batch->nr, res, err)))
		ret = ingest_writer_commit(w, err);
	for (size_t i = 0; !ret && i < batch->nr; i++) {
		if (outcomes)
			outcomes[i] = res[i].outcome;
		if (run_ids)
			run_ids[i] = res[i].run_id;
		if (opts && opts->tagged)
			opts->tagged[i] = res[i].tagged;
	}
	free(res);
	ingest_writer_free(w);
	return ret;
}

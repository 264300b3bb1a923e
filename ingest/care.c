/*
 * Data care: retag (the tag rules and the key rule applied again to stored runs, after a
 * settings change) and rm (runs removed, their keys settled again). Both are written on the
 * intake's own rules, ingest_record_tags and ingest_new_run_stands, so a retagged or trimmed
 * database holds what a fresh one would after ingesting the same runs in the same order.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "ingest/ingest.h"

/* One run of a key as the key rule replays it. */
struct key_run {
	int64_t id;
	unsigned old_tags, new_tags; /* enum ingest_tag bits */
	double quietness;
	int standing;
};

/* The runs of one key, in the order they were stored. */
struct key_runs {
	struct store_key key;
	struct strbuf config, source_hash; /* the key's strings, owned */
	int keep_first;
	struct key_run *v;
	size_t nr, alloc;
};

/* What settling keys changed. */
struct settle_counts {
	int64_t retagged, keys_changed;
	int64_t added[INGEST_NTAGS], removed[INGEST_NTAGS];
};

static void key_runs_init(struct key_runs *k)
{
	memset(k, 0, sizeof(*k));
	strbuf_init(&k->config, 0);
	strbuf_init(&k->source_hash, 0);
}

static void key_runs_release(struct key_runs *k)
{
	strbuf_release(&k->config);
	strbuf_release(&k->source_hash);
	free(k->v);
}

static void key_runs_start(struct key_runs *k, const struct store_admin_run *r)
{
	strbuf_reset(&k->config);
	strbuf_addstr(&k->config, r->key.config);
	strbuf_reset(&k->source_hash);
	strbuf_addstr(&k->source_hash, r->key.source_hash);
	k->key = r->key;
	k->key.config = k->config.buf;
	k->key.source_hash = k->source_hash.buf;
	k->keep_first = r->keep_first;
	k->nr = 0;
}

static int same_key(const struct store_key *a, const struct store_key *b)
{
	return a->machine_id == b->machine_id && a->benchmark_id == b->benchmark_id &&
	       a->harness_version == b->harness_version && !strcmp(a->config, b->config) &&
	       !strcmp(a->source_hash, b->source_hash);
}

/* The tag bits of a stored comma-separated list of names. */
static unsigned tags_from_names(const char *names)
{
	unsigned bits = 0;
	while (*names) {
		size_t len = strcspn(names, ",");
		for (unsigned i = 0; i < INGEST_NTAGS; i++) {
			const char *name = ingest_tag_name(i);
			if (strlen(name) == len && !strncmp(name, names, len))
				bits |= 1u << i;
		}
		names += len;
		if (*names == ',')
			names++;
	}
	return bits;
}

static void key_runs_add(struct key_runs *k, const struct store_admin_run *r, unsigned new_tags)
{
	struct key_run *kr;
	ALLOC_GROW(k->v, k->nr, k->alloc);
	kr = &k->v[k->nr++];
	kr->id = r->id;
	kr->old_tags = tags_from_names(r->tags);
	kr->new_tags = new_tags;
	kr->quietness = r->quietness;
	kr->standing = r->standing;
}

/*
 * The key rule replayed over a key's runs in the order they were stored, as ingest_store met
 * them: the first stands, each later one displaces the standing run when the rule says so.
 * Every other run is superseded. The tags and the standing run are then written where they
 * differ from what is stored.
 */
static int settle_key(struct settle_counts *c, struct store *st, struct key_runs *k,
		      struct bl_error *err)
{
	size_t stands = 0;
	int64_t was_standing = 0;
	int ret;

	if (!k->nr)
		return 0;
	for (size_t i = 1; i < k->nr; i++) {
		const struct key_run *old = &k->v[stands], *new = &k->v[i];
		if (ingest_new_run_stands(k->keep_first, (old->new_tags & INGEST_QUALITY_TAGS) != 0,
					  old->quietness, (new->new_tags &INGEST_QUALITY_TAGS) != 0,
					  new->quietness))
			stands = i;
	}
	for (size_t i = 0; i < k->nr; i++) {
		struct key_run *kr = &k->v[i];
		unsigned changed;
		kr->new_tags &= ~(unsigned)INGEST_TAG_SUPERSEDED;
		if (i != stands)
			kr->new_tags |= INGEST_TAG_SUPERSEDED;
		if (kr->standing)
			was_standing = kr->id;
		if (!(changed = kr->old_tags ^ kr->new_tags))
			continue;
		c->retagged++;
		for (unsigned t = 0; t < INGEST_NTAGS; t++) {
			if (!(changed & 1u << t))
				continue;
			if (kr->new_tags & 1u << t) {
				c->added[t]++;
				ret = store_add_tag(st, kr->id, ingest_tag_name(t), err);
			} else {
				c->removed[t]++;
				ret = store_remove_tag(st, kr->id, ingest_tag_name(t), err);
			}
			if (ret)
				return ret;
		}
	}
	if (was_standing == k->v[stands].id)
		return 0;
	c->keys_changed++;
	return store_set_standing(st, &k->key, k->v[stands].id, err);
}

struct retag_walk {
	const struct ingest_parsers *parsers;
	struct store *st;
	const struct config *cfg;
	struct key_runs key;
	int have_key;
	struct settle_counts counts;
	int64_t runs;
	struct ingest_batch batch;
	struct strbuf name;
	struct bl_error *err;
};

static int retag_one(const struct store_admin_run *r, void *data)
{
	struct retag_walk *w = data;
	unsigned tags;
	int ret;

	if (w->have_key && !same_key(&w->key.key, &r->key)) {
		if ((ret = settle_key(&w->counts, w->st, &w->key, w->err)))
			return ret;
		w->have_key = 0;
	}
	if (!w->have_key) {
		key_runs_start(&w->key, r);
		w->have_key = 1;
	}
	strbuf_reset(&w->name);
	strbuf_addf(&w->name, "run %lld", (long long)r->id);
	if ((ret = w->parsers->native(&w->batch, w->name.buf, r->raw, strlen(r->raw), w->err)))
		return ret;
	if (w->batch.nr != 1) {
		ingest_batch_release(&w->batch);
		return bl_error_set(w->err, BL_EINVALID,
				    "run %lld: its stored JSON is not one record",
				    (long long)r->id);
	}
	/* A record ingested without its source hash got one computed: the stored key has it. */
	if (!w->batch.records[0].source_hash[0] &&
	    strlen(r->key.source_hash) < sizeof(w->batch.records[0].source_hash))
		memcpy(w->batch.records[0].source_hash, r->key.source_hash,
		       strlen(r->key.source_hash) + 1);
	ret = ingest_record_tags(&tags, w->st, &w->batch.records[0], w->cfg->noisy_limit,
				 w->cfg->min_samples, w->err);
	ingest_batch_release(&w->batch);
	if (ret)
		return ret;
	key_runs_add(&w->key, r, tags);
	w->runs++;
	return 0;
}

/* Ends a command's transaction: committed, or rolled back on error or for a dry run. */
static int finish(struct store *st, int ret, int dry_run, struct bl_error *err)
{
	if (ret || dry_run) {
		store_rollback(st);
		return ret;
	}
	return store_commit(st, err);
}

int ingest_retag(struct ingest_retag_result *out, struct store *st,
		 const struct ingest_parsers *parsers, const struct config *cfg, const char *who,
		 int dry_run, struct bl_error *err)
{
	struct retag_walk w;
	int64_t audit_id;
	int ret;

	memset(out, 0, sizeof(*out));
	memset(&w, 0, sizeof(w));
	w.parsers = parsers;
	w.st = st;
	w.cfg = cfg;
	w.err = err;
	key_runs_init(&w.key);
	strbuf_init(&w.name, 0);
	if ((ret = store_begin(st, err)))
		goto done;
	if (!(ret = ingest_record_machine_settings(st, cfg, err)) &&
	    !(ret = store_admin_each_run(st, NULL, retag_one, &w, err)) && w.have_key)
		ret = settle_key(&w.counts, st, &w.key, err);
	if (!ret && (w.counts.retagged || w.counts.keys_changed))
		ret = store_admin_audit(&audit_id, st, STORE_AUDIT_RETAG, who, NULL, 0,
					w.counts.retagged, err);
	if (!ret) {
		out->runs = w.runs;
		out->retagged = w.counts.retagged;
		out->keys_changed = w.counts.keys_changed;
		memcpy(out->added, w.counts.added, sizeof(out->added));
		memcpy(out->removed, w.counts.removed, sizeof(out->removed));
	}
	ret = finish(st, ret, dry_run, err);
done:
	key_runs_release(&w.key);
	strbuf_release(&w.name);
	return ret;
}

/* A run rm removes, copied out of the walk that found it. */
struct target {
	int64_t id;
	char *machine, *benchmark, *config, *commit, *source_hash;
	int64_t machine_id, benchmark_id, harness_version;
	int standing;
	int64_t now_standing;
};

struct targets {
	struct target *v; /* by id */
	size_t nr, alloc;
	int by_id; /* named by id (a list that may name one twice) */
};

static int add_target(const struct store_admin_target *t, void *data)
{
	struct targets *ts = data;
	struct target *x;
	/* An id named twice is one run; the filters' walk names each run once. */
	for (size_t i = 0; ts->by_id && i < ts->nr; i++)
		if (ts->v[i].id == t->id)
			return 0;
	ALLOC_GROW(ts->v, ts->nr, ts->alloc);
	x = &ts->v[ts->nr++];
	x->id = t->id;
	x->machine = xstrdup(t->machine);
	x->benchmark = xstrdup(t->benchmark);
	x->config = xstrdup(t->key.config);
	x->commit = xstrdup(t->commit);
	x->source_hash = xstrdup(t->key.source_hash);
	x->machine_id = t->key.machine_id;
	x->benchmark_id = t->key.benchmark_id;
	x->harness_version = t->key.harness_version;
	x->standing = t->standing;
	x->now_standing = 0;
	return 0;
}

static void targets_release(struct targets *ts)
{
	for (size_t i = 0; i < ts->nr; i++) {
		free(ts->v[i].machine);
		free(ts->v[i].benchmark);
		free(ts->v[i].config);
		free(ts->v[i].commit);
		free(ts->v[i].source_hash);
	}
	free(ts->v);
}

static struct store_key target_key(const struct target *t)
{
	struct store_key key = {t->machine_id, t->benchmark_id, t->config, t->source_hash,
				t->harness_version};
	return key;
}

/* Collects the runs of a key as they are stored, with their tags kept. */
static int collect_kept(const struct store_admin_run *r, void *data)
{
	struct key_runs *k = data;
	if (!k->nr)
		key_runs_start(k, r);
	key_runs_add(k, r, tags_from_names(r->tags));
	return 0;
}

/* The run that stands for a settled key: the one run not superseded, 0 when it has no run. */
static int64_t standing_of(const struct key_runs *k)
{
	for (size_t i = 0; i < k->nr; i++)
		if (!(k->v[i].new_tags & INGEST_TAG_SUPERSEDED))
			return k->v[i].id;
	return 0;
}

static int check_commit_prefix(const char *commit, struct bl_error *err)
{
	size_t len = strlen(commit);
	if (len < 4 || len > 40 || strspn(commit, "0123456789abcdef") != len)
		return bl_error_set(err, BL_EINVALID,
				    "not a commit prefix (4 to 40 lowercase hex digits): '%s'",
				    commit);
	return 0;
}

/* Orders targets by key, then id: the targets of one key next to each other. */
static int target_key_cmp(const void *a, const void *b)
{
	const struct target *x = *(const struct target *const *)a;
	const struct target *y = *(const struct target *const *)b;
	int c;
	if (x->machine_id != y->machine_id)
		return x->machine_id < y->machine_id ? -1 : 1;
	if (x->benchmark_id != y->benchmark_id)
		return x->benchmark_id < y->benchmark_id ? -1 : 1;
	if ((c = strcmp(x->config, y->config)) || (c = strcmp(x->source_hash, y->source_hash)))
		return c;
	if (x->harness_version != y->harness_version)
		return x->harness_version < y->harness_version ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Settles one key by the runs left (group: its targets), noting who stands now in each. */
static int settle_removed(struct ingest_rm_result *out, struct store *st, struct target **group,
			  size_t n, struct bl_error *err)
{
	struct store_key key = target_key(group[0]);
	struct settle_counts counts;
	struct key_runs k;
	int standing_removed = 0, ret;

	memset(&counts, 0, sizeof(counts));
	key_runs_init(&k);
	if (!(ret = store_admin_each_run(st, &key, collect_kept, &k, err)))
		ret = settle_key(&counts, st, &k, err);
	for (size_t j = 0; !ret && j < n; j++) {
		group[j]->now_standing = standing_of(&k);
		standing_removed |= group[j]->standing;
	}
	if (!ret && !k.nr)
		out->keys_emptied++;
	else if (!ret && (standing_removed || counts.keys_changed))
		out->keys_changed++;
	key_runs_release(&k);
	return ret;
}

/* Settles every key the targets were runs of, each once. */
static int settle_all(struct ingest_rm_result *out, struct store *st, struct targets *ts,
		      struct bl_error *err)
{
	struct target **by_key = xcalloc(ts->nr ? ts->nr : 1, sizeof(*by_key));
	int ret = 0;
	for (size_t i = 0; i < ts->nr; i++)
		by_key[i] = &ts->v[i];
	qsort(by_key, ts->nr, sizeof(*by_key), target_key_cmp);
	for (size_t i = 0, j; !ret && i < ts->nr; i = j) {
		struct store_key key = target_key(by_key[i]);
		for (j = i + 1; j < ts->nr; j++) {
			struct store_key other = target_key(by_key[j]);
			if (!same_key(&key, &other))
				break;
		}
		ret = settle_removed(out, st, by_key + i, j - i, err);
	}
	free(by_key);
	return ret;
}

/* The filters that took no run, named in the message. */
static int no_match(const struct ingest_rm_request *req, struct bl_error *err)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;
	if (req->machine)
		strbuf_addf(&sb, " machine '%s'", req->machine);
	if (req->benchmark)
		strbuf_addf(&sb, "%s benchmark '%s'", sb.len ? "," : "", req->benchmark);
	if (req->commit)
		strbuf_addf(&sb, "%s commit '%s'", sb.len ? "," : "", req->commit);
	ret = bl_error_set(err, BL_ENOTFOUND, "no run matches%s", sb.buf);
	strbuf_release(&sb);
	return ret;
}

int ingest_rm(struct ingest_rm_result *out, struct store *st, const struct ingest_rm_request *req,
	      ingest_removed_fn *fn, void *data, struct bl_error *err)
{
	struct targets ts = {NULL, 0, 0, req->nids > 0};
	int64_t audit_id = 0;
	int ret;

	memset(out, 0, sizeof(out[0]));
	if (!req->nids && !req->machine && !req->benchmark && !req->commit)
		return bl_error_set(
		    err, BL_EINVALID,
		    "name the runs to remove: ids, or a machine, benchmark or commit");
	if (req->nids && (req->machine || req->benchmark || req->commit))
		return bl_error_set(err, BL_EINVALID,
				    "runs are named by id or by filters, not both");
	if (req->commit && (ret = check_commit_prefix(req->commit, err)))
		return ret;
	if (!req->dry_run && (!req->why || !*req->why))
		return bl_error_set(err, BL_EINVALID,
				    "removing runs needs a reason (why), kept in the audit");
	if ((ret = store_begin(st, err)))
		return ret;
	for (size_t i = 0; !ret && i < req->nids; i++) {
		int found;
		if (!(ret = store_admin_target(&found, st, req->ids[i], add_target, &ts, err)) &&
		    !found)
			ret =
			    bl_error_set(err, BL_ENOTFOUND, "no run %lld", (long long)req->ids[i]);
	}
	if (!ret && !req->nids &&
	    !(ret = store_admin_targets(st, req->machine, req->benchmark, req->commit, add_target,
					&ts, err)) &&
	    !ts.nr)
		ret = no_match(req, err);
	if (!ret)
		ret = store_admin_audit(&audit_id, st, STORE_AUDIT_RM, req->who, req->why, 0,
					(int64_t)ts.nr, err);
	for (size_t i = 0; !ret && i < ts.nr; i++)
		ret = store_admin_remove_run(st, ts.v[i].id, audit_id, err);
	if (!ret)
		ret = settle_all(out, st, &ts, err);
	if (!ret)
		out->removed = (int64_t)ts.nr;
	ret = finish(st, ret, req->dry_run, err);
	for (size_t i = 0; !ret && fn && i < ts.nr; i++) {
		const struct target *t = &ts.v[i];
		struct ingest_removed r = {
		    t->id,	    t->machine,		t->benchmark, t->config,      t->commit,
		    t->source_hash, t->harness_version, t->standing,  t->now_standing};
		fn(data, &r);
	}
	if (ret)
		memset(out, 0, sizeof(out[0]));
	targets_release(&ts);
	return ret;
}

/* What ingest_explain_run gathers from the run's key. */
struct explain_walk {
	int64_t id;
	int found, keep_first;
	unsigned tags;
	double quietness;
	char *raw;
	int64_t standing;
	double standing_quietness;
	unsigned standing_tags;
};

static unsigned tag_bits(const char *list)
{
	unsigned bits = 0;
	for (unsigned i = 0; i < INGEST_NTAGS; i++) {
		const char *name = ingest_tag_name(i), *p = list;
		size_t n = strlen(name);
		for (; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
			if (!strncmp(p, name, n) && (p[n] == ',' || !p[n]))
				bits |= 1u << i;
	}
	return bits;
}

static int explain_key_run(const struct store_admin_run *r, void *data)
{
	struct explain_walk *w = data;
	if (r->id == w->id) {
		w->found = 1;
		w->keep_first = r->keep_first;
		w->tags = tag_bits(r->tags);
		w->quietness = r->quietness;
		w->raw = xstrdup(r->raw);
	}
	if (r->standing) {
		w->standing = r->id;
		w->standing_quietness = r->quietness;
		w->standing_tags = tag_bits(r->tags);
	}
	return 0;
}

static int explain_target(const struct store_admin_target *t, void *data)
{
	struct store_key *key = data;
	/* the key's strings live until this returns: copied by the caller's next call */
	*key = t->key;
	key->config = xstrdup(t->key.config);
	key->source_hash = xstrdup(t->key.source_hash);
	return 0;
}

int ingest_explain_run(struct ingest_explained *out, struct store *st,
		       const struct ingest_parsers *parsers, const struct config *cfg,
		       int64_t run_id, struct bl_error *err)
{
	struct explain_walk w = {run_id, 0, 0, 0, NAN, NULL, 0, NAN, 0};
	struct store_key key;
	struct strbuf name = STRBUF_INIT;
	int found = 0, ret;

	memset(out, 0, sizeof(*out));
	memset(&key, 0, sizeof(key));
	if ((ret = store_admin_target(&found, st, run_id, explain_target, &key, err)))
		return ret;
	if (!found)
		return bl_error_set(err, BL_ENOTFOUND, "no run %lld", (long long)run_id);
	ret = store_admin_each_run(st, &key, explain_key_run, &w, err);
	free((char *)key.config);
	free((char *)key.source_hash);
	if (ret)
		goto done;
	if (!w.found) {
		ret = bl_error_set(err, BL_ENOTFOUND, "no run %lld", (long long)run_id);
		goto done;
	}
	strbuf_addf(&name, "run %lld", (long long)run_id);
	if ((ret = parsers->native(&out->batch, name.buf, w.raw, strlen(w.raw), err)))
		goto done;
	if (out->batch.nr != 1) {
		ret = bl_error_set(err, BL_EINVALID, "run %lld: its stored JSON is not one record",
				   (long long)run_id);
		goto done;
	}
	out->record = &out->batch.records[0];
	/* the figures as stored, held to the current settings' limit */
	out->tagged.tags = w.tags;
	out->tagged.quietness = w.quietness;
	out->tagged.noisy_limit = cfg->noisy_limit;
	out->tagged.standing_quietness = NAN;
	if (w.tags & INGEST_TAG_SUPERSEDED) {
		int flawed = (w.tags & INGEST_QUALITY_TAGS) != 0;
		int standing_flawed = (w.standing_tags & INGEST_QUALITY_TAGS) != 0;
		out->tagged.standing = w.standing;
		out->tagged.standing_quietness = w.standing_quietness;
		out->tagged.kept = flawed != standing_flawed ? INGEST_KEPT_CLEAN
				   : w.keep_first	     ? INGEST_KEPT_FIRST
							     : INGEST_KEPT_QUIETER;
	}
	out->standing = w.standing == run_id;
done:
	free(w.raw);
	strbuf_release(&name);
	if (ret)
		ingest_explained_release(out);
	return ret;
}

void ingest_explained_release(struct ingest_explained *e)
{
	ingest_batch_release(&e->batch);
	memset(e, 0, sizeof(*e));
}

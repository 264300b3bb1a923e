/*
 * The alert pass (§9.1), in detect's transaction: detect's walk hands it every Suspect it
 * marked anew or whose numbers moved, and every stored one it no longer marks; the pass gives
 * each its alert, judges the alerts whose Suspects changed (and those judged under other quiet
 * settings), and writes the Suspects once, each with its alert and its alert's state. One
 * transaction-long set of marks, so a first detect of a long history writes each Suspect and
 * each alert once, with no statement looping over the tables. docs/confirm.md, "Alerts", has
 * the rules and the reasons for them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "detect/detect.h"

/* A Suspect the pass will write. */
struct pass_mark {
	struct store_mark mk;  /* as it will be stored; mk.id 0 for a new one */
	char *metric, *config; /* interned in names, not owned */
	char *key;
	uint32_t commit; /* in commits */
	int stored;	 /* it is in the database already */
	int64_t stored_alert, stored_follows;
	enum suspect_state stored_state;
};

/* An alert whose Suspects changed, or that was judged under other settings. */
struct touched {
	int64_t id;
	int created;	     /* made by this pass: nothing stored belongs to it */
	int members_changed; /* not only its settings */
};

struct detect_alerts {
	struct store *st;
	int transient_records;
	struct intern commits;
	struct intern names; /* the marks' metrics and configs: a pass has few of each */
	struct pass_mark *marks;
	size_t nmarks, marks_alloc;
	struct hashmap by_run; /* "RUN KIND METRIC" to an index into marks */
	struct dropped {
		int64_t id, alert_id;
	} * dropped;
	size_t ndropped, dropped_alloc;
	/* A full walk's count of the Series each machine judged at each commit. */
	int counted;
	struct intern judged_keys; /* "MACHINE COMMIT" */
	int64_t *judged;
	size_t judged_alloc;
	/* An incremental detect's (machine, commit) where a record joined or left its Series. */
	struct intern moved_keys; /* "MACHINE COMMIT" */
	struct moved_at {
		int64_t machine_id;
		uint32_t commit; /* in commits */
	} * moved;
	size_t nmoved, moved_alloc;
	struct hashmap by_key; /* "MACHINE SIDE COMMIT" to an alert id */
	struct intern alert_keys;
	struct touched *touched;
	size_t ntouched, touched_alloc;
	struct strbuf sb;
	struct strbuf found_commit; /* a stored Suspect's commit, read back */
};

struct detect_alerts *detect_alerts_new(struct store *st, int transient_records)
{
	struct detect_alerts *a = xcalloc(1, sizeof(*a));
	a->st = st;
	a->transient_records = transient_records;
	intern_init(&a->commits);
	intern_init(&a->names);
	intern_init(&a->judged_keys);
	intern_init(&a->moved_keys);
	intern_init(&a->alert_keys);
	strbuf_init(&a->sb, 0);
	strbuf_init(&a->found_commit, 0);
	return a;
}

void detect_alerts_free(struct detect_alerts *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->nmarks; i++)
		free(a->marks[i].key);
	free(a->marks);
	hashmap_release(&a->by_run);
	free(a->dropped);
	intern_release(&a->commits);
	intern_release(&a->names);
	intern_release(&a->judged_keys);
	free(a->judged);
	intern_release(&a->moved_keys);
	free(a->moved);
	hashmap_release(&a->by_key);
	intern_release(&a->alert_keys);
	free(a->touched);
	strbuf_release(&a->sb);
	strbuf_release(&a->found_commit);
	free(a);
}

int detect_mark_status(int followers, int persisted, int transient_records)
{
	if (persisted >= transient_records)
		return DETECT_MARK_PERSISTED;
	/* The run of records beyond the edge broke before T of them: it came back. */
	if (persisted < followers)
		return DETECT_MARK_TRANSIENT;
	return DETECT_MARK_PENDING;
}

int detect_state_undecided(enum suspect_state s)
{
	return s == SUSPECT_PENDING || s == SUSPECT_OPEN || s == SUSPECT_TRANSIENT;
}

/* "ID TEXT", or "ID TAG TEXT" when tag >= 0, in a->sb: the keys of the pass's tables. */
static const char *make_key(struct detect_alerts *a, int64_t id, int tag, const char *text)
{
	strbuf_reset(&a->sb);
	strbuf_add_int64(&a->sb, id);
	strbuf_addch(&a->sb, ' ');
	if (tag >= 0) {
		strbuf_add_int64(&a->sb, tag);
		strbuf_addch(&a->sb, ' ');
	}
	strbuf_addstr(&a->sb, text);
	return a->sb.buf;
}

static const char *run_key(struct detect_alerts *a, int64_t run_id, const char *metric,
			   enum suspect_kind kind)
{
	return make_key(a, run_id, (int)kind, metric);
}

static struct pass_mark *find_mark(struct detect_alerts *a, int64_t run_id, const char *metric,
				   enum suspect_kind kind)
{
	int64_t i;
	return hashmap_get(&a->by_run, run_key(a, run_id, metric, kind), &i) ? &a->marks[i] : NULL;
}

/* The pass's mark for (run, metric, kind), added when it has none. */
static struct pass_mark *mark_slot(struct detect_alerts *a, const struct store_mark *m)
{
	struct pass_mark *pm = find_mark(a, m->run_id, m->metric, m->kind);
	if (pm)
		return pm;
	ALLOC_GROW(a->marks, a->nmarks, a->marks_alloc);
	pm = &a->marks[a->nmarks];
	memset(pm, 0, sizeof(*pm));
	pm->key = xstrdup(a->sb.buf);
	hashmap_put(&a->by_run, pm->key, (int64_t)a->nmarks++);
	return pm;
}

/* Sets what pm will store from m; stored is its stored form, NULL for a new Suspect. */
static void mark_set(struct detect_alerts *a, struct pass_mark *pm, const struct store_mark *m,
		     const struct store_mark *stored, const char *commit)
{
	uint32_t metric = intern_add(&a->names, m->metric);
	uint32_t config = intern_add(&a->names, m->config ? m->config : "");
	/* (numbers first: adding may move the table of strings, never a string) */
	pm->metric = a->names.strings[metric];
	pm->config = a->names.strings[config];
	pm->mk = *m;
	pm->mk.metric = pm->metric;
	pm->mk.config = pm->config;
	pm->mk.commit = NULL;
	pm->commit = intern_add(&a->commits, commit);
	if (stored && !pm->stored) {
		pm->stored = 1;
		pm->stored_alert = stored->alert_id;
		pm->stored_follows = stored->follows_run_id;
		pm->stored_state = stored->state;
		pm->mk.id = stored->id;
	}
}

void detect_alerts_put(struct detect_alerts *a, const struct store_mark *m,
		       const struct store_mark *stored, const char *commit)
{
	mark_set(a, mark_slot(a, m), m, stored, commit);
}

int detect_alerts_follow(struct detect_alerts *a, struct store_detect *d,
			 const struct store_group *g, int64_t run_id, const char *metric,
			 int followers, int persisted, struct bl_error *err)
{
	/* Only the band's Suspects have followers: a change point's new level has held. */
	struct pass_mark *pm = find_mark(a, run_id, metric, SUSPECT_BAND);
	struct store_mark found;
	int have, ret;
	if (pm) {
		pm->mk.followers = followers;
		pm->mk.persisted = persisted;
		return 0;
	}
	if ((ret = store_detect_suspect_find(&have, &found, d, g, run_id, metric, SUSPECT_BAND,
					     &a->found_commit, err)))
		return ret;
	if (!have || (found.followers == followers && found.persisted == persisted))
		return 0;
	found.followers = followers;
	found.persisted = persisted;
	pm = mark_slot(a, &found);
	mark_set(a, pm, &found, &found, found.commit);
	return 0;
}

void detect_alerts_drop(struct detect_alerts *a, const struct store_mark *stored)
{
	ALLOC_GROW(a->dropped, a->ndropped, a->dropped_alloc);
	a->dropped[a->ndropped].id = stored->id;
	a->dropped[a->ndropped].alert_id = stored->alert_id;
	a->ndropped++;
}

void detect_alerts_walked_all(struct detect_alerts *a)
{
	a->counted = 1;
}

void detect_alerts_judged(struct detect_alerts *a, int64_t machine_id, const char *commit,
			  int64_t n)
{
	uint32_t i;
	i = intern_add(&a->judged_keys, make_key(a, machine_id, -1, commit));
	if (i >= a->judged_alloc) {
		size_t grown = a->judged_alloc ? 2 * a->judged_alloc : 256;
		while (grown <= i)
			grown *= 2;
		a->judged = xrealloc(a->judged, grown * sizeof(*a->judged));
		memset(a->judged + a->judged_alloc, 0,
		       (grown - a->judged_alloc) * sizeof(*a->judged));
		a->judged_alloc = grown;
	}
	a->judged[i] += n;
}

void detect_alerts_record_at(struct detect_alerts *a, int64_t machine_id, const char *commit)
{
	size_t before = a->moved_keys.nr;
	intern_add(&a->moved_keys, make_key(a, machine_id, -1, commit));
	if (a->moved_keys.nr == before)
		return;
	ALLOC_GROW(a->moved, a->nmoved, a->moved_alloc);
	a->moved[a->nmoved].machine_id = machine_id;
	a->moved[a->nmoved].commit = intern_add(&a->commits, commit);
	a->nmoved++;
}

static void touch(struct detect_alerts *a, int64_t id, int created, int members_changed)
{
	if (!id)
		return;
	ALLOC_GROW(a->touched, a->ntouched, a->touched_alloc);
	a->touched[a->ntouched].id = id;
	a->touched[a->ntouched].created = created;
	a->touched[a->ntouched].members_changed = members_changed;
	a->ntouched++;
}

static int touched_cmp(const void *x, const void *y)
{
	const struct touched *p = x, *q = y;
	return p->id < q->id ? -1 : p->id > q->id;
}

/* The alert of (machine, commit, side): known to the pass, stored, or made now. */
static int alert_by_key(int64_t *id, struct detect_alerts *a, int64_t machine_id,
			const char *commit, enum suspect_side side, struct bl_error *err)
{
	int ret;
	if (hashmap_get(&a->by_key, make_key(a, machine_id, (int)side, commit), id))
		return 0;
	uint32_t k = intern_add(&a->alert_keys, a->sb.buf);
	if ((ret = store_alert_find(id, a->st, machine_id, commit, side, err)))
		return ret;
	if (!*id) {
		if ((ret = store_alert_insert(id, a->st, machine_id, commit, side, SUSPECT_PENDING,
					      a->transient_records, err)))
			return ret;
		touch(a, *id, 1, 1);
	}
	hashmap_put(&a->by_key, a->alert_keys.strings[k], *id);
	return 0;
}

/* Gives each mark its alert: the alert it is stored in, unless it is new, or its link moved
 * while nobody had decided that alert; else the alert of the earlier Suspect it joins, else
 * the alert of its machine, commit and side. Marks come in their lines' order, so a Suspect a
 * mark joins has been given its alert already when it is one of the marks. */
static int assign(struct detect_alerts *a, struct store_detect *d, struct bl_error *err)
{
	for (size_t i = 0; i < a->nmarks; i++) {
		struct pass_mark *pm = &a->marks[i];
		int64_t alert = 0;
		int ret;
		if (pm->stored && pm->stored_alert &&
		    (pm->stored_follows == pm->mk.follows_run_id ||
		     !detect_state_undecided(pm->stored_state))) {
			pm->mk.alert_id = pm->stored_alert;
			touch(a, pm->stored_alert, 0, 1);
			continue;
		}
		if (pm->mk.follows_run_id) {
			/* the Suspect it follows is the band's */
			struct pass_mark *f =
			    find_mark(a, pm->mk.follows_run_id, pm->metric, SUSPECT_BAND);
			if (f) {
				alert = f->mk.alert_id;
			} else {
				struct store_mark found;
				struct store_group g = {pm->mk.machine_id, pm->mk.benchmark_id,
							pm->config};
				int have;
				if ((ret = store_detect_suspect_find(
					 &have, &found, d, &g, pm->mk.follows_run_id, pm->metric,
					 SUSPECT_BAND, NULL, err)))
					return ret;
				if (have)
					alert = found.alert_id;
			}
		}
		if (!alert &&
		    (ret = alert_by_key(&alert, a, pm->mk.machine_id,
					a->commits.strings[pm->commit], pm->mk.side, err)))
			return ret;
		pm->mk.alert_id = alert;
		touch(a, alert, 0, 1);
		touch(a, pm->stored_alert, 0, 1);
	}
	for (size_t i = 0; i < a->ndropped; i++)
		touch(a, a->dropped[i].alert_id, 0, 1);
	return 0;
}

/* A Suspect of the alert being judged. */
struct member {
	int64_t benchmark_id;
	const char *config, *metric, *commit; /* live while the alert is judged */
	int status;			      /* DETECT_MARK_* */
	int64_t stored_id;		      /* a stored one that is not among the marks */
	enum suspect_state state;
};

struct judging {
	struct detect_alerts *a;
	struct member *m;
	size_t n, alloc;
	/* the stored members' strings, until the alert is judged */
	struct intern strings;
	const struct dropped *dropped; /* sorted by id */
};

static int dropped_cmp(const void *x, const void *y)
{
	const struct dropped *p = x, *q = y;
	return p->id < q->id ? -1 : p->id > q->id;
}

/* s, kept until the alert is judged (intern_add may move the array of strings: it is read
 * after the call). */
static const char *judging_string(struct judging *j, const char *s)
{
	uint32_t i = intern_add(&j->strings, s);
	return j->strings.strings[i];
}

static int collect_stored(const struct store_alert_member *sm, void *data)
{
	struct judging *j = data;
	struct dropped key = {sm->id, 0};
	struct member *m;
	/* A mark's own numbers win over what is stored; a dropped one is gone. */
	if (find_mark(j->a, sm->run_id, sm->metric, sm->kind) ||
	    (j->a->ndropped &&
	     bsearch(&key, j->dropped, j->a->ndropped, sizeof(*j->dropped), dropped_cmp)))
		return 0;
	ALLOC_GROW(j->m, j->n, j->alloc);
	m = &j->m[j->n++];
	m->benchmark_id = sm->benchmark_id;
	m->config = judging_string(j, sm->config);
	m->metric = judging_string(j, sm->metric);
	m->commit = judging_string(j, sm->commit);
	m->status = detect_mark_status(sm->followers, sm->persisted, j->a->transient_records);
	m->stored_id = sm->id;
	m->state = sm->state;
	return 0;
}

static int series_cmp(const void *x, const void *y)
{
	const struct member *p = x, *q = y;
	int c;
	if (p->benchmark_id != q->benchmark_id)
		return p->benchmark_id < q->benchmark_id ? -1 : 1;
	if ((c = strcmp(p->config, q->config)))
		return c;
	return strcmp(p->metric, q->metric);
}

/* The distinct Series among members m[0..n) (sorted here), of those at commit when given. */
static int64_t count_series(struct member *m, size_t n, const char *commit)
{
	int64_t count = 0;
	const struct member *last = NULL;
	if (n > 1)
		qsort(m, n, sizeof(*m), series_cmp);
	for (size_t i = 0; i < n; i++) {
		if (commit && strcmp(m[i].commit, commit))
			continue;
		if (!last || series_cmp(last, &m[i]))
			count++;
		last = &m[i];
	}
	return count;
}

/* The Series the alert's machine judged at its commit: counted by a full walk, else asked. */
static int judged_at(int64_t *out, struct detect_alerts *a, int64_t machine_id, const char *commit,
		     struct bl_error *err)
{
	int64_t i;
	if (!a->counted)
		return store_alert_judged_at(out, a->st, machine_id, commit, err);
	i = intern_find(&a->judged_keys, make_key(a, machine_id, -1, commit));
	*out = i >= 0 ? a->judged[i] : 0;
	return 0;
}

/* A mark's place when the marks are sorted by alert. */
struct by_alert {
	int64_t alert_id;
	size_t mark;
};

static int by_alert_cmp(const void *x, const void *y)
{
	const struct by_alert *p = x, *q = y;
	if (p->alert_id != q->alert_id)
		return p->alert_id < q->alert_id ? -1 : 1;
	return p->mark < q->mark ? -1 : p->mark > q->mark;
}

/* Judges one alert from its Suspects and stores what changed; the marks in it take its state.
 * order[from..to) are its marks. */
static int judge(struct detect_alerts *a, const struct touched *t, const struct by_alert *order,
		 size_t from, size_t to, struct judging *j, struct bl_error *err)
{
	struct store_alert_row was, now;
	int found, ret, any_persisted = 0, all_transient = 1, sync = 0;
	int64_t at_commit;

	j->n = 0;
	intern_release(&j->strings);
	intern_init(&j->strings);
	if ((ret = store_alert_get(&found, &was, a->st, t->id, err)))
		return ret;
	if (!found)
		return bl_error_set(err, BL_EDB, "alert %lld is gone", (long long)t->id);
	for (size_t k = from; k < to; k++) {
		const struct pass_mark *pm = &a->marks[order[k].mark];
		struct member *m;
		ALLOC_GROW(j->m, j->n, j->alloc);
		m = &j->m[j->n++];
		m->benchmark_id = pm->mk.benchmark_id;
		m->config = pm->config;
		m->metric = pm->metric;
		m->commit = a->commits.strings[pm->commit];
		m->status =
		    detect_mark_status(pm->mk.followers, pm->mk.persisted, a->transient_records);
		m->stored_id = 0;
	}
	if (!t->created && (ret = store_alert_members(a->st, t->id, collect_stored, j, err)))
		return ret;
	now = was;
	now.transient_records = a->transient_records;
	for (size_t i = 0; i < j->n; i++) {
		any_persisted |= j->m[i].status == DETECT_MARK_PERSISTED;
		all_transient &= j->m[i].status == DETECT_MARK_TRANSIENT;
	}
	if (j->n && detect_state_undecided(was.state))
		now.state = any_persisted   ? SUSPECT_OPEN
			    : all_transient ? SUSPECT_TRANSIENT
					    : SUSPECT_PENDING;
	if (t->members_changed || t->created) {
		now.series = count_series(j->m, j->n, NULL);
		at_commit = count_series(j->m, j->n, was.commit);
		now.judged_series = -1;
		now.run_wide = 0;
		if (at_commit > 1) {
			if ((ret =
				 judged_at(&now.judged_series, a, was.machine_id, was.commit, err)))
				return ret;
			now.run_wide = now.judged_series > 0 && 2 * at_commit >= now.judged_series;
		}
	}
	if (t->created || now.state != was.state || now.series != was.series ||
	    now.judged_series != was.judged_series || now.run_wide != was.run_wide ||
	    now.transient_records != was.transient_records)
		if ((ret = store_alert_put(a->st, t->id, &now, err)))
			return ret;
	for (size_t k = from; k < to; k++)
		a->marks[order[k].mark].mk.state = now.state;
	for (size_t i = 0; i < j->n; i++)
		sync |= j->m[i].stored_id && j->m[i].state != now.state;
	return sync ? store_alert_sync_suspects(a->st, t->id, now.state, err) : 0;
}

/* A full walk's count differs from the one an alert keeps: count again. */
static int recount_if_moved(int64_t id, int64_t machine_id, const char *commit, int64_t judged,
			    void *data)
{
	struct detect_alerts *a = data;
	int64_t now;
	struct bl_error ignored = BL_ERROR_INIT;
	judged_at(&now, a, machine_id, commit, &ignored); /* from the walk: cannot fail */
	bl_error_release(&ignored);
	if (now != judged)
		touch(a, id, 0, 1);
	return 0;
}

/* The alerts whose run-wide count a record joining or leaving its Series may have moved. */
static int touch_recounted(struct detect_alerts *a, struct bl_error *err)
{
	if (a->counted)
		return store_each_counted_alert(a->st, recount_if_moved, a, err);
	for (size_t i = 0; i < a->nmoved; i++) {
		int64_t *ids;
		size_t n;
		int ret;
		if ((ret = store_alerts_counted_at(&ids, &n, a->st, a->moved[i].machine_id,
						   a->commits.strings[a->moved[i].commit], err)))
			return ret;
		for (size_t k = 0; k < n; k++)
			touch(a, ids[k], 0, 1);
		free(ids);
	}
	return 0;
}

/* Writes the marks: the stored ones updated, the new ones inserted in their order, several
 * rows a statement (a first detect writes thousands). */
static int write_marks(struct detect_alerts *a, struct store_detect *d, struct bl_error *err)
{
	const struct store_mark **fresh = xmalloc((a->nmarks ? a->nmarks : 1) * sizeof(*fresh));
	size_t nfresh = 0;
	int ret = 0;
	for (size_t i = 0; !ret && i < a->nmarks; i++) {
		if (!a->marks[i].stored)
			fresh[nfresh++] = &a->marks[i].mk;
		else
			ret = store_detect_suspect_update(d, &a->marks[i].mk, err);
	}
	if (!ret)
		ret = store_detect_suspects_insert(d, fresh, nfresh, err);
	free(fresh);
	return ret;
}

int detect_alerts_finish(struct detect_alerts *a, struct store_detect *d, struct bl_error *err)
{
	struct judging j;
	struct by_alert *order = NULL;
	size_t w = 0, k = 0;
	int64_t *stale = NULL;
	size_t nstale = 0;
	int ret;

	memset(&j, 0, sizeof(j));
	j.a = a;
	intern_init(&j.strings);
	if ((ret = store_alerts_stale(&stale, &nstale, a->st, a->transient_records, err)))
		goto done;
	for (size_t i = 0; i < nstale; i++)
		touch(a, stale[i], 0, 0);
	if (a->ndropped)
		qsort(a->dropped, a->ndropped, sizeof(*a->dropped), dropped_cmp);
	j.dropped = a->dropped;
	for (size_t i = 0; i < a->ndropped; i++)
		if ((ret = store_detect_suspect_delete(d, a->dropped[i].id, err)))
			goto done;
	if ((ret = assign(a, d, err)) || (ret = touch_recounted(a, err)))
		goto done;

	/* One entry per alert: created or members changed wins over settings only. */
	if (a->ntouched > 1)
		qsort(a->touched, a->ntouched, sizeof(*a->touched), touched_cmp);
	for (size_t i = 0; i < a->ntouched; i++) {
		if (w && a->touched[w - 1].id == a->touched[i].id) {
			a->touched[w - 1].created |= a->touched[i].created;
			a->touched[w - 1].members_changed |= a->touched[i].members_changed;
			continue;
		}
		a->touched[w++] = a->touched[i];
	}
	a->ntouched = w;

	order = xmalloc((a->nmarks ? a->nmarks : 1) * sizeof(*order));
	for (size_t i = 0; i < a->nmarks; i++) {
		order[i].alert_id = a->marks[i].mk.alert_id;
		order[i].mark = i;
	}
	if (a->nmarks > 1)
		qsort(order, a->nmarks, sizeof(*order), by_alert_cmp);
	for (size_t i = 0; i < a->ntouched; i++) {
		size_t from;
		while (k < a->nmarks && order[k].alert_id < a->touched[i].id)
			k++;
		from = k;
		while (k < a->nmarks && order[k].alert_id == a->touched[i].id)
			k++;
		if ((ret = judge(a, &a->touched[i], order, from, k, &j, err)))
			goto done;
	}
	ret = write_marks(a, d, err);
done:
	free(order);
	free(stale);
	free(j.m);
	intern_release(&j.strings);
	return ret;
}

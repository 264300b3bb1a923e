/*
 * Detection's reads and writes (§6; the statements are in sql/detect.sql). The full read is
 * the one that must be fast: a million records in well under a second. Runs and metrics are
 * stored in the order they were ingested, a sweep at a time, so the records of one Series are
 * scattered over the whole file; reading them Series by Series would seek once per record.
 * Instead each table is read once, sequentially, in id order (records by primary key, then
 * tags, runs through the runs_detect index and metrics), merged in memory by run id, and each
 * group's records are sorted into Series order here, each placed by time_place() and the
 * commit index: the C twin of the view placed_runs (sql/003-places.sql), which the small reads
 * (one group, the change log) use. tests/unit/test_places.c checks that the two agree.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store/internal.h"
#include "sql_embed.h"

/* A detection session is the store itself: its statements are in the store's cache. */
struct store_detect {
	struct store *st;
};

int store_detect_open(struct store_detect **out, struct store *st, struct bl_error *err)
{
	struct store_detect *d = xcalloc(1, sizeof(*d));
	(void)err;
	d->st = st;
	*out = d;
	return 0;
}

void store_detect_close(struct store_detect *d)
{
	free(d);
}

static void bind_group(struct store_stmt *s, const struct store_group *g)
{
	store_bind_int64(s, 1, g->machine_id);
	store_bind_int64(s, 2, g->benchmark_id);
	store_bind_text(s, 3, g->config);
}

void store_members_init(struct store_members *m)
{
	memset(m, 0, sizeof(*m));
	intern_init(&m->metrics);
	intern_init(&m->contents);
	intern_add(&m->contents, NULL);
	intern_init(&m->commits);
}

void store_members_reset(struct store_members *m)
{
	for (size_t i = 0; i < m->ngroups; i++)
		free(m->groups[i].config);
	m->ngroups = m->nmembers = m->npoints = 0;
}

void store_members_release(struct store_members *m)
{
	store_members_reset(m);
	free(m->groups);
	free(m->members);
	free(m->points);
	intern_release(&m->metrics);
	intern_release(&m->contents);
	intern_release(&m->commits);
	memset(m, 0, sizeof(*m));
}

uint32_t store_members_metric(struct store_members *m, const char *name)
{
	return intern_add(&m->metrics, name);
}

static uint32_t add_group(struct store_members *m, int64_t machine_id, int64_t benchmark_id,
			  const char *config)
{
	ALLOC_GROW(m->groups, m->ngroups, m->groups_alloc);
	m->groups[m->ngroups].machine_id = machine_id;
	m->groups[m->ngroups].benchmark_id = benchmark_id;
	m->groups[m->ngroups].config = xstrdup(config ? config : "");
	return (uint32_t)m->ngroups++;
}

static struct store_member *add_member(struct store_members *m)
{
	struct store_member *mb;
	ALLOC_GROW(m->members, m->nmembers, m->members_alloc);
	mb = &m->members[m->nmembers++];
	memset(mb, 0, sizeof(*mb));
	mb->point = (uint32_t)m->npoints;
	return mb;
}

/* Appends a point from a row whose columns from col on are name, kind, better, median, value.
 * A full read's rows mostly repeat the previous row's metric (a history measures one or a
 * few): its name, kind and direction compared as text spare a hash lookup and two parses. */
static int add_point(struct store_members *m, struct store *st, struct store_stmt *s, int col,
		     struct bl_error *err)
{
	const struct store_point *prev = m->npoints ? &m->points[m->npoints - 1] : NULL;
	const char *name = store_column_text(s, col, "");
	const char *kind_text = store_column_text(s, col + 1, "");
	const char *better_text = store_column_text(s, col + 2, "");
	struct store_point *p;
	enum metric_kind kind;
	uint32_t metric;
	int higher;

	if (prev && !strcmp(kind_text, metric_kind_name((enum metric_kind)prev->kind)))
		kind = (enum metric_kind)prev->kind;
	else if (store_column_kind(&kind, st, s, col + 1, err))
		return BL_EDB;
	if (prev && !strcmp(better_text, metric_better_name(prev->higher)))
		higher = prev->higher;
	else if (store_column_better(&higher, st, s, col + 2, err))
		return BL_EDB;
	metric = intern_add_hint(&m->metrics, name, prev ? prev->metric : 0);
	ALLOC_GROW(m->points, m->npoints, m->points_alloc);
	p = &m->points[m->npoints++];
	p->metric = metric;
	p->kind = (uint8_t)kind;
	p->higher = (uint8_t)higher;
	p->value = store_column_real(s, kind == METRIC_TIMED ? col + 3 : col + 4);
	return 0;
}

/* main's commits, for placing records in C during a full read. */
struct commit_time {
	double at;
	int64_t seq_max; /* the largest seq committed at or before at */
};

struct store_commit_index {
	struct hashmap sha, source;
	char **strings; /* owned keys */
	size_t nstrings, strings_alloc;
	struct commit_time *times;
	size_t ntimes;
	/* The seq of each commit of store_members.commits, by its number: -1 not on main, -2
	 * not looked up yet. Runs share commits: a commit's hash is looked up once. */
	int64_t *seq_of;
	size_t nseq_of;
};

static void commit_index_free(struct store_commit_index *ci)
{
	if (!ci)
		return;
	hashmap_release(&ci->sha);
	hashmap_release(&ci->source);
	strings_free(ci->strings, ci->nstrings);
	free(ci->times);
	free(ci->seq_of);
	free(ci);
}

static const char *own_string(struct store_commit_index *ci, const char *s)
{
	ALLOC_GROW(ci->strings, ci->nstrings, ci->strings_alloc);
	ci->strings[ci->nstrings] = xstrdup(s ? s : "");
	return ci->strings[ci->nstrings++];
}

static int time_cmp(const void *a, const void *b)
{
	const struct commit_time *x = a, *y = b;
	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return x->seq_max < y->seq_max ? -1 : x->seq_max > y->seq_max;
}

static int commit_index_load(struct store_commit_index **out, struct store_detect *d,
			     struct bl_error *err)
{
	struct store_commit_index *ci = xcalloc(1, sizeof(*ci));
	struct store_stmt *s = store_stmt(d->st, SQL_DETECT_COMMITS, err);
	size_t alloc = 0;
	int rc, ret = 0;
	if (!s) {
		ret = BL_EDB;
		goto done;
	}
	while ((rc = store_step(s)) == STORE_ROW) {
		int64_t seq = store_column_int64(s, 1, 0), have;
		const char *src = store_column_text(s, 2, NULL);
		hashmap_put(&ci->sha, own_string(ci, store_column_text(s, 0, NULL)), seq);
		if (!hashmap_get(&ci->source, src ? src : "", &have) || seq < have)
			hashmap_put(&ci->source, own_string(ci, src), seq);
		ALLOC_GROW(ci->times, ci->ntimes, alloc);
		ci->times[ci->ntimes].at = store_column_double(s, 3);
		ci->times[ci->ntimes].seq_max = seq;
		ci->ntimes++;
	}
	store_reset(s);
	if (rc != STORE_DONE) {
		ret = store_db_error(err, d->st, "cannot read commits");
		goto done;
	}
	if (ci->ntimes > 1)
		qsort(ci->times, ci->ntimes, sizeof(*ci->times), time_cmp);
	for (size_t i = 1; i < ci->ntimes; i++)
		if (ci->times[i - 1].seq_max > ci->times[i].seq_max)
			ci->times[i].seq_max = ci->times[i - 1].seq_max;
done:
	if (ret) {
		commit_index_free(ci);
		ci = NULL;
	}
	*out = ci;
	return ret;
}

/* The seq on main of commit number c of commits, -1 when it is not on main. */
static int64_t commit_seq(struct store_commit_index *ci, const struct intern *commits, uint32_t c)
{
	int64_t seq;
	if (c >= ci->nseq_of) {
		/* doubled, not grown by the one commit just interned */
		size_t n = ci->nseq_of ? 2 * ci->nseq_of : 256;
		while (n <= c)
			n *= 2;
		ci->seq_of = xrealloc(ci->seq_of, n * sizeof(*ci->seq_of));
		for (size_t i = ci->nseq_of; i < n; i++)
			ci->seq_of[i] = -2;
		ci->nseq_of = n;
	}
	if (ci->seq_of[c] == -2) {
		const char *sha = commits->strings[c];
		ci->seq_of[c] = sha && hashmap_get(&ci->sha, sha, &seq) ? seq : -1;
	}
	return ci->seq_of[c];
}

/* The place of a record placed by time at `at`: the largest seq committed at or before it,
 * plus 0.5 (-0.5 when none). */
static double time_place(const struct store_commit_index *ci, double at)
{
	size_t lo = 0, hi = ci->ntimes; /* times[0..lo) are at or before at */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ci->times[mid].at <= at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (lo ? (double)ci->times[lo - 1].seq_max : -1.0) + 0.5;
}

void store_scan_init(struct store_scan *scan, size_t max_members, size_t max_points)
{
	memset(scan, 0, sizeof(*scan));
	strbuf_init(&scan->config, 0);
	scan->max_members = max_members;
	scan->max_points = max_points;
}

void store_scan_release(struct store_scan *scan)
{
	strbuf_release(&scan->config);
	commit_index_free(scan->commits);
	scan->commits = NULL;
}

static int member_cmp(const void *a, const void *b)
{
	const struct store_member *x = a, *y = b;
	if (x->place != y->place)
		return x->place < y->place ? -1 : 1;
	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	if (x->started_at != y->started_at)
		return x->started_at < y->started_at ? -1 : 1;
	return x->run_id < y->run_id ? -1 : x->run_id > y->run_id;
}

enum { KEPT = 0, UNSEEN = 1, TAGGED = 2, DEFERRED = 3 };

/* Ends the pass before group `from`: the next pass starts at it. */
static void resume_at(struct store_members *out, struct store_scan *scan, uint32_t from)
{
	scan->machine_id = out->groups[from].machine_id;
	scan->benchmark_id = out->groups[from].benchmark_id;
	strbuf_reset(&scan->config);
	strbuf_addstr(&scan->config, out->groups[from].config);
	scan->done = 0;
	for (size_t g = from; g < out->ngroups; g++)
		free(out->groups[g].config);
	out->ngroups = from;
}

/* Defers the groups from `from` on to the next pass: forgets their points (compacting the
 * points of the members merged so far, perm[0..merged)) and remembers where to resume. */
static void defer_groups(struct store_members *out, struct store_scan *scan, const uint32_t *perm,
			 size_t merged, uint32_t from)
{
	size_t w = 0;
	for (size_t i = 0; i < out->nmembers; i++)
		if (out->members[i].group >= from)
			out->members[i].dropped = DEFERRED;
	for (size_t j = 0; j < merged; j++) {
		struct store_member *mb = &out->members[perm[j]];
		if (!mb->npoints)
			continue;
		if (mb->dropped) {
			mb->npoints = 0;
			continue;
		}
		memmove(&out->points[w], &out->points[mb->point],
			mb->npoints * sizeof(*out->points));
		mb->point = (uint32_t)w;
		w += mb->npoints;
	}
	out->npoints = w;
	resume_at(out, scan, from);
}

/*
 * Step 1 of a full read: the standing records of whole groups, up to the member limit. The
 * read asks for a quarter more rows than the limit, not the rest of the table (a server sends
 * every row it was asked for); a group that limit cut is left for the next pass, unless it is
 * the only one, which is then read again without a limit.
 */
static int scan_records(struct store_members *out, struct store_scan *scan, struct store_detect *d,
			struct bl_error *err)
{
	struct store_stmt *s = store_stmt(d->st, SQL_DETECT_SCAN_RECORDS, err);
	int64_t limit = INT64_MAX, nrows = 0;
	int first = !scan->started, rc;
	if (!s)
		return BL_EDB;
	if (scan->max_members && scan->max_members < (size_t)INT64_MAX / 2)
		limit = (int64_t)(scan->max_members + scan->max_members / 4 + 1);
again:
	store_bind_int64(s, 1, first ? INT64_MIN : scan->machine_id);
	store_bind_int64(s, 2, first ? INT64_MIN : scan->benchmark_id);
	store_bind_text_copy(s, 3, first ? "" : scan->config.buf);
	store_bind_int64(s, 4, limit);
	scan->started = 1;
	scan->done = 1;
	while ((rc = store_step(s)) == STORE_ROW) {
		int64_t mid = store_column_int64(s, 0, 0), bid = store_column_int64(s, 1, 0);
		const char *config = store_column_text(s, 2, "");
		const struct store_group *last =
		    out->ngroups ? &out->groups[out->ngroups - 1] : NULL;
		struct store_member *mb;
		int64_t src;
		nrows++;
		if (!last || last->machine_id != mid || last->benchmark_id != bid ||
		    strcmp(last->config, config)) {
			if (last && scan->max_members && out->nmembers >= scan->max_members) {
				scan->machine_id = mid;
				scan->benchmark_id = bid;
				strbuf_reset(&scan->config);
				strbuf_addstr(&scan->config, config);
				scan->done = 0;
				break;
			}
			add_group(out, mid, bid, config);
		}
		mb = add_member(out);
		mb->run_id = store_column_int64(s, 5, 0);
		mb->harness_version = store_column_int64(s, 4, 0);
		mb->group = (uint32_t)(out->ngroups - 1);
		mb->dropped = UNSEEN;
		/* The source hash's first seq, until the run's commit is known. */
		mb->place = hashmap_get_len(&scan->commits->source, store_column_text(s, 3, NULL),
					    (size_t)store_column_bytes(s, 3), &src)
				? (double)src
				: -1.0;
	}
	store_reset(s);
	if (rc != STORE_DONE && rc != STORE_ROW)
		return store_db_error(err, d->st, "cannot read records");
	if (rc == STORE_DONE && nrows == limit) {
		/* the limit, not the table, ended the read: its last group may go on */
		if (out->ngroups > 1) {
			uint32_t last = (uint32_t)(out->ngroups - 1);
			while (out->nmembers && out->members[out->nmembers - 1].group == last)
				out->nmembers--;
			resume_at(out, scan, last);
		} else {
			store_members_reset(out);
			limit = INT64_MAX;
			nrows = 0;
			goto again;
		}
	}
	return 0;
}

/* How many members ahead the merges below ask the processor for. */
#define PREFETCH_AHEAD 8

/* The merges read members in run id order, and they are kept in group order: each would wait
 * for memory (a cache miss a member, most of the merge's own time on a long history). Asking
 * for the member a few rows ahead lets that wait pass while SQLite reads the rows between. */
static inline void prefetch_member(const struct store_members *out, const uint32_t *perm, size_t i,
				   size_t n)
{
	if (i + PREFETCH_AHEAD < n)
		__builtin_prefetch(&out->members[perm[i + PREFETCH_AHEAD]], 1);
}

/* Steps 2 to 4: tags, runs and metrics, each merged with the members in run id order. */
static int scan_runs(struct store_members *out, struct store_scan *scan, struct store_detect *d,
		     const uint32_t *perm, struct bl_error *err)
{
	size_t n = out->nmembers, i = 0;
	int64_t lo = out->members[perm[0]].run_id, hi = out->members[perm[n - 1]].run_id;
	struct store_stmt *s;
	int rc, ret = 0;

	if (!(s = store_stmt(d->st, SQL_DETECT_SCAN_TAGS, err)))
		return BL_EDB;
	store_bind_int64(s, 1, lo);
	store_bind_int64(s, 2, hi);
	while ((rc = store_step(s)) == STORE_ROW) {
		int64_t id = store_column_int64(s, 0, 0);
		while (i < n && out->members[perm[i]].run_id < id)
			i++;
		if (i < n && out->members[perm[i]].run_id == id)
			out->members[perm[i]].dropped = TAGGED;
	}
	store_reset(s);
	if (rc != STORE_DONE)
		return store_db_error(err, d->st, "cannot read tags");

	if (!(s = store_stmt(d->st, SQL_DETECT_SCAN_RUNS, err)))
		return BL_EDB;
	store_bind_int64(s, 1, lo);
	store_bind_int64(s, 2, hi);
	i = 0;
	while ((rc = store_step(s)) == STORE_ROW) {
		int64_t id = store_column_int64(s, 0, 0), seq;
		struct store_member *mb;
		while (i < n && out->members[perm[i]].run_id < id)
			i++;
		if (i >= n)
			break;
		prefetch_member(out, perm, i, n);
		mb = &out->members[perm[i]];
		if (mb->run_id != id || mb->dropped != UNSEEN)
			continue;
		mb->dropped = KEPT;
		mb->content = intern_add(&out->contents, store_column_text(s, 2, NULL));
		mb->commit = intern_add(&out->commits, store_column_text(s, 1, ""));
		mb->baseline = store_column_int(s, 3) != 0;
		mb->started_at = store_column_double(s, 5);
		mb->at = store_column_real(s, 4); /* committed_at, else started_at */
		if (isnan(mb->at))
			mb->at = mb->started_at;
		if ((seq = commit_seq(scan->commits, &out->commits, mb->commit)) >= 0)
			mb->place = (double)seq;
		else if (mb->place < 0)
			mb->place = time_place(scan->commits, mb->at);
	}
	store_reset(s);
	if (rc != STORE_DONE && rc != STORE_ROW)
		return store_db_error(err, d->st, "cannot read runs");

	if (!(s = store_stmt(d->st, SQL_DETECT_SCAN_METRICS, err)))
		return BL_EDB;
	store_bind_int64(s, 1, lo);
	store_bind_int64(s, 2, hi);
	i = 0;
	while ((rc = store_step(s)) == STORE_ROW) {
		int64_t id = store_column_int64(s, 0, 0);
		struct store_member *mb;
		while (i < n && out->members[perm[i]].run_id < id)
			i++;
		if (i >= n)
			break;
		prefetch_member(out, perm, i, n);
		mb = &out->members[perm[i]];
		if (mb->run_id != id || mb->dropped)
			continue;
		if (!mb->npoints) {
			/* Too much for one pass: leave the second half of its groups for the next.
			 */
			if (scan->max_points && out->npoints >= scan->max_points &&
			    out->ngroups > 1 && mb->group > 0) {
				uint32_t from = (uint32_t)(out->ngroups / 2);
				if (from > mb->group)
					from = mb->group;
				if (from < 1)
					from = 1;
				defer_groups(out, scan, perm, i, from);
				if (mb->dropped)
					continue;
			}
			mb->point = (uint32_t)out->npoints;
		}
		if ((ret = add_point(out, d->st, s, 1, err)))
			break;
		mb->npoints++;
	}
	store_reset(s);
	if (ret)
		return ret;
	if (rc != STORE_DONE && rc != STORE_ROW)
		return store_db_error(err, d->st, "cannot read metrics");
	return 0;
}

int store_detect_scan(struct store_members *out, struct store_scan *scan, struct store_detect *d,
		      struct bl_error *err)
{
	uint32_t *perm = NULL;
	size_t w = 0, start;
	int ret;

	store_members_reset(out);
	if (scan->started && scan->done)
		return 0;
	if (!scan->commits && (ret = commit_index_load(&scan->commits, d, err)))
		return ret;
	if ((ret = scan_records(out, scan, d, err)) || !out->nmembers)
		goto done;
	perm = xmalloc(out->nmembers * sizeof(*perm));
	sort_index_by_int64(perm, &out->members[0].run_id, sizeof(*out->members), out->nmembers);
	if ((ret = scan_runs(out, scan, d, perm, err)))
		goto done;
	/* Keep the members that are on their Series, then put each group in Series order. */
	for (size_t i = 0; i < out->nmembers; i++)
		if (!out->members[i].dropped)
			out->members[w++] = out->members[i];
	out->nmembers = w;
	for (size_t i = 0; i < out->nmembers; i = start) {
		start = i + 1;
		while (start < out->nmembers && out->members[start].group == out->members[i].group)
			start++;
		qsort(&out->members[i], start - i, sizeof(*out->members), member_cmp);
	}
done:
	free(perm);
	return ret;
}

int store_detect_group(struct store_members *out, struct store_detect *d,
		       const struct store_group *g, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(d->st, SQL_DETECT_GROUP_MEMBERS, err);
	struct store_member *mb = NULL;
	uint32_t gi;
	int rc, ret = 0;
	if (!s)
		return BL_EDB;
	gi = add_group(out, g->machine_id, g->benchmark_id, g->config);
	bind_group(s, g);
	while ((rc = store_step(s)) == STORE_ROW) {
		int64_t run_id = store_column_int64(s, 0, 0);
		if (!mb || mb->run_id != run_id) {
			mb = add_member(out);
			mb->run_id = run_id;
			mb->group = gi;
			mb->place = store_column_double(s, 1);
			mb->at = store_column_double(s, 2);
			mb->started_at = store_column_double(s, 3);
			mb->harness_version = store_column_int64(s, 4, 0);
			mb->content = intern_add(&out->contents, store_column_text(s, 5, NULL));
			mb->baseline = store_column_int(s, 6) != 0;
			mb->commit = intern_add(&out->commits, store_column_text(s, 12, ""));
		}
		if ((ret = add_point(out, d->st, s, 7, err)))
			break;
		mb->npoints++;
	}
	store_reset(s);
	if (ret)
		return ret;
	if (rc != STORE_DONE)
		return store_db_error(err, d->st, "cannot read a group's records");
	return 0;
}

void store_changes_release(struct store_change *c, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		free(c[i].group.config);
		free(c[i].content_hash);
		free(c[i].commit);
	}
	free(c);
}

int store_detect_changes(struct store_change **out, size_t *nr, struct store_detect *d,
			 struct bl_error *err)
{
	struct store_stmt *s = store_stmt(d->st, SQL_DETECT_CHANGES, err);
	struct store_change *list = NULL;
	size_t n = 0, alloc = 0;
	int rc, ret = 0;
	*out = NULL;
	*nr = 0;
	if (!s)
		return BL_EDB;
	while ((rc = store_step(s)) == STORE_ROW) {
		struct store_change *c;
		int standing = store_column_int(s, 4);
		int64_t ntags = store_column_int64(s, 5, 0);
		double was_standing = standing - store_column_double(s, 6);
		double was_tags = (double)ntags - store_column_double(s, 7);
		ALLOC_GROW(list, n, alloc);
		c = &list[n++];
		memset(c, 0, sizeof(*c));
		c->run_id = store_column_int64(s, 0, 0);
		c->group.machine_id = store_column_int64(s, 1, 0);
		c->group.benchmark_id = store_column_int64(s, 2, 0);
		c->group.config = xstrdup(store_column_text(s, 3, ""));
		c->is_member = standing && !ntags;
		/* What the net changes say it was; -1 when they cannot have come from any state. */
		if ((was_standing != 0 && was_standing != 1) || was_tags < 0)
			c->was_member = -1;
		else
			c->was_member = was_standing == 1 && was_tags == 0;
		c->harness_version = store_column_int64(s, 8, 0);
		c->content_hash = store_column_strdup(s, 9);
		c->baseline = store_column_int(s, 10) != 0;
		c->at = store_column_double(s, 11);
		c->started_at = store_column_double(s, 12);
		c->place = store_column_double(s, 13);
		c->commit = xstrdup(store_column_text(s, 14, ""));
	}
	store_reset(s);
	if (rc != STORE_DONE) {
		ret = store_db_error(err, d->st, "cannot read the change log");
		store_changes_release(list, n);
		return ret;
	}
	*out = list;
	*nr = n;
	return 0;
}

int store_detect_add_change(struct store_members *out, uint32_t group, const struct store_change *c,
			    struct store_detect *d, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(d->st, SQL_DETECT_RUN_METRICS, err);
	struct store_member *mb;
	int rc, ret = 0;
	if (!s)
		return BL_EDB;
	mb = add_member(out);
	mb->run_id = c->run_id;
	mb->group = group;
	mb->place = c->place;
	mb->at = c->at;
	mb->started_at = c->started_at;
	mb->harness_version = c->harness_version;
	mb->content = intern_add(&out->contents, c->content_hash);
	mb->commit = intern_add(&out->commits, c->commit);
	mb->baseline = (uint8_t)c->baseline;
	store_bind_int64(s, 1, c->run_id);
	while ((rc = store_step(s)) == STORE_ROW) {
		if ((ret = add_point(out, d->st, s, 0, err)))
			break;
		mb->npoints++;
	}
	store_reset(s);
	if (ret)
		return ret;
	if (rc != STORE_DONE)
		return store_db_error(err, d->st, "cannot read a run's metrics");
	return 0;
}

void store_moved_release(struct store_moved *m, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(m[i].group.config);
	free(m);
}

static struct store_moved *add_moved(struct store_moved **list, size_t *n, size_t *alloc,
				     struct store_stmt *s, int64_t run_id)
{
	struct store_moved *m;
	ALLOC_GROW(*list, *n, *alloc);
	m = &(*list)[(*n)++];
	m->run_id = run_id;
	m->group.machine_id = store_column_int64(s, run_id ? 1 : 0, 0);
	m->group.benchmark_id = store_column_int64(s, run_id ? 2 : 1, 0);
	m->group.config = xstrdup(store_column_text(s, run_id ? 3 : 2, ""));
	m->tagged = run_id ? store_column_int(s, 4) != 0 : 0;
	return m;
}

int store_detect_moved(struct store_moved **out, size_t *nr, int64_t *ncommits,
		       struct store_detect *d, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(d->st, SQL_DETECT_COMMIT_LOG_STATS, err);
	struct store_moved *list = NULL;
	size_t n = 0, alloc = 0;
	double min_at;
	int rc, ret = 0;

	*out = NULL;
	*nr = 0;
	*ncommits = 0;
	if (!s)
		return BL_EDB;
	rc = store_step(s);
	if (rc == STORE_ROW) {
		*ncommits = store_column_int64(s, 0, 0);
		min_at = store_column_real(s, 1);
	}
	store_reset(s);
	if (rc != STORE_ROW)
		return store_db_error(err, d->st, "cannot read the change log");
	if (!*ncommits)
		return 0;

	if (!(s = store_stmt(d->st, SQL_DETECT_COMMIT_RUNS, err))) {
		ret = BL_EDB;
		goto done;
	}
	while ((rc = store_step(s)) == STORE_ROW)
		add_moved(&list, &n, &alloc, s, store_column_int64(s, 0, 0));
	store_reset(s);
	if (rc != STORE_DONE) {
		ret = store_db_error(err, d->st, "cannot read the change log");
		goto done;
	}
	if (!(s = store_stmt(d->st, SQL_DETECT_TIME_GROUPS, err))) {
		ret = BL_EDB;
		goto done;
	}
	store_bind_double(s, 1, min_at);
	while ((rc = store_step(s)) == STORE_ROW)
		add_moved(&list, &n, &alloc, s, 0);
	store_reset(s);
	if (rc != STORE_DONE)
		ret = store_db_error(err, d->st, "cannot read lines");
done:
	if (ret) {
		store_moved_release(list, n);
		return ret;
	}
	*out = list;
	*nr = n;
	return 0;
}

int store_detect_log_clear(struct store_detect *d, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(d->st, SQL_DETECT_LOG_CLEAR, err);
	if (!s || store_exec(d->st, s, "cannot clear the change log", err))
		return BL_EDB;
	if (!(s = store_stmt(d->st, SQL_DETECT_LOG_COMMITS_CLEAR, err)) ||
	    store_exec(d->st, s, "cannot clear the change log", err))
		return BL_EDB;
	if (!(s = store_stmt(d->st, SQL_DETECT_LOG_RUNS_CLEAR, err)))
		return BL_EDB;
	return store_exec(d->st, s, "cannot clear the change log", err);
}

int store_detect_lines(struct store_detect *d, const struct store_group *g, store_line_fn fn,
		       void *data, struct bl_error *err)
{
	struct store_stmt *s =
	    store_stmt(d->st, g ? SQL_DETECT_LINES_GROUP : SQL_DETECT_LINES_ALL, err);
	int rc, ret = 0;
	if (!s)
		return BL_EDB;
	if (g)
		bind_group(s, g);
	while ((rc = store_step(s)) == STORE_ROW) {
		struct store_line l;
		l.id = store_column_int64(s, 0, 0);
		l.machine_id = store_column_int64(s, 1, 0);
		l.benchmark_id = store_column_int64(s, 2, 0);
		l.config = store_column_text(s, 3, "");
		l.metric = store_column_text(s, 4, "");
		l.line = store_column_int64(s, 5, 0);
		if ((ret = store_column_line_break(&l.reason, d->st, s, 6, err)))
			break;
		l.start_run_id = store_column_int64(s, 7, 0);
		l.records = store_column_int64(s, 8, 0);
		l.fingerprint = store_column_int64(s, 9, 0);
		l.harness_version = store_column_int64(s, 10, 0);
		l.content_hash = store_column_text(s, 11, NULL);
		l.last_run_id = store_column_int64(s, 12, 0);
		l.last_place = store_column_double(s, 13);
		l.last_at = store_column_double(s, 14);
		l.last_started_at = store_column_double(s, 15);
		l.time_placed_at = store_column_real(s, 16);
		l.judged = store_column_int(s, 17);
		l.tail = store_column_blob(s, 18);
		l.tail_len = (size_t)store_column_bytes(s, 18);
		if ((ret = fn(&l, data)))
			break;
	}
	store_reset(s);
	if (!ret && rc != STORE_DONE)
		ret = store_db_error(err, d->st, "cannot read lines");
	return ret;
}

static void bind_tail(struct store_stmt *s, int i, const struct store_line *l)
{
	if (l->tail_len)
		store_bind_blob(s, i, l->tail, l->tail_len);
	else
		store_bind_null(s, i);
}

/* Binds a line's end from parameter 1 (its id) on. */
static void bind_line_end(struct store_stmt *s, const struct store_line *l)
{
	store_bind_int64(s, 1, l->id);
	store_bind_int64(s, 2, l->records);
	store_bind_int64(s, 3, l->fingerprint);
	store_bind_int64(s, 4, l->last_run_id);
	store_bind_double(s, 5, l->last_place);
	store_bind_double(s, 6, l->last_at);
	store_bind_double(s, 7, l->last_started_at);
	store_bind_real(s, 8, l->time_placed_at);
	store_bind_int64(s, 9, l->judged);
	bind_tail(s, 10, l);
}

int store_detect_line_grow(struct store_detect *d, const struct store_line *l, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(d->st, SQL_DETECT_LINE_END_GROW, err);
	if (!s)
		return BL_EDB;
	bind_line_end(s, l);
	return store_exec(d->st, s, "cannot store a line", err);
}

int store_detect_line_put(struct store_detect *d, struct store_line *l, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(d->st, SQL_DETECT_LINE_PUT, err);
	if (!s)
		return BL_EDB;
	store_bind_int64(s, 1, l->machine_id);
	store_bind_int64(s, 2, l->benchmark_id);
	store_bind_text(s, 3, l->config);
	store_bind_text(s, 4, l->metric);
	store_bind_int64(s, 5, l->line);
	store_bind_text(s, 6, line_break_name(l->reason));
	store_bind_int64(s, 7, l->start_run_id);
	store_bind_int64(s, 8, l->harness_version);
	store_bind_text(s, 9, l->content_hash);
	if (store_exec(d->st, s, "cannot store a line", err))
		return BL_EDB;
	l->id = store_last_insert_id(d->st);
	if (!(s = store_stmt(d->st, SQL_DETECT_LINE_END_PUT, err)))
		return BL_EDB;
	bind_line_end(s, l);
	return store_exec(d->st, s, "cannot store a line", err);
}

/* Runs one of the statements that delete every line's (g NULL) or one group's rows. */
static int delete_lines_of(struct store_detect *d, const struct store_group *g, enum sql_stmt all,
			   enum sql_stmt group, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(d->st, g ? group : all, err);
	if (!s)
		return BL_EDB;
	if (g)
		bind_group(s, g);
	return store_exec(d->st, s, "cannot delete lines", err);
}

int store_detect_lines_delete(struct store_detect *d, const struct store_group *g,
			      struct bl_error *err)
{
	struct store_stmt *s;
	/* what the change-point search keeps of the lines goes first: it names them */
	if (delete_lines_of(d, g, SQL_DETECT_VALUES_DELETE_ALL, SQL_DETECT_VALUES_DELETE_GROUP,
			    err) ||
	    delete_lines_of(d, g, SQL_DETECT_SEARCHES_DELETE_ALL, SQL_DETECT_SEARCHES_DELETE_GROUP,
			    err))
		return BL_EDB;
	if (!g && (!(s = store_stmt(d->st, SQL_DETECT_LINE_ENDS_DELETE_ALL, err)) ||
		   store_exec(d->st, s, "cannot delete lines", err)))
		return BL_EDB;
	return delete_lines_of(d, g, SQL_DETECT_LINES_DELETE_ALL, SQL_DETECT_LINES_DELETE_GROUP,
			       err);
}

int store_detect_series_count(int64_t *series, int64_t *judged, struct store_detect *d,
			      struct bl_error *err)
{
	struct store_stmt *s = store_stmt(d->st, SQL_DETECT_SERIES_COUNT, err);
	int rc;
	*series = *judged = 0;
	if (!s)
		return BL_EDB;
	rc = store_step(s);
	if (rc == STORE_ROW) {
		*series = store_column_int64(s, 0, 0);
		*judged = (int64_t)store_column_double(s, 1);
	}
	store_reset(s);
	if (rc != STORE_ROW)
		return store_db_error(err, d->st, "cannot count Series");
	return 0;
}

static int read_mark(struct store_mark *m, struct store *st, struct store_stmt *s,
		     struct bl_error *err)
{
	memset(m, 0, sizeof(*m));
	m->id = store_column_int64(s, 0, 0);
	m->run_id = store_column_int64(s, 1, 0);
	m->metric = store_column_text(s, 2, "");
	m->shift = store_column_real(s, 4);
	m->median = store_column_real(s, 5);
	m->center = store_column_real(s, 6);
	m->tolerance = store_column_real(s, 7);
	m->deviation = store_column_real(s, 9);
	m->reference_run_id = store_column_int64(s, 10, 0);
	m->follows_run_id = store_column_int64(s, 11, 0);
	m->followers = store_column_int(s, 12);
	m->persisted = store_column_int(s, 13);
	m->alert_id = store_column_int64(s, 14, 0);
	m->commit = store_column_text(s, 15, "");
	m->machine_id = store_column_int64(s, 16, 0);
	m->benchmark_id = store_column_int64(s, 17, 0);
	m->config = store_column_text(s, 18, "");
	if (store_column_side(&m->side, st, s, 3, err) ||
	    store_column_state(&m->state, st, s, 8, err) ||
	    store_column_suspect_kind(&m->kind, st, s, 19, err))
		return BL_EDB;
	return 0;
}

int store_detect_suspects(struct store_detect *d, const struct store_group *g, store_mark_fn fn,
			  void *data, struct bl_error *err)
{
	struct store_stmt *s =
	    store_stmt(d->st, g ? SQL_DETECT_SUSPECTS_GROUP : SQL_DETECT_SUSPECTS_ALL, err);
	int rc, ret = 0;
	if (!s)
		return BL_EDB;
	if (g)
		bind_group(s, g);
	while ((rc = store_step(s)) == STORE_ROW) {
		struct store_mark m;
		if ((ret = read_mark(&m, d->st, s, err)) || (ret = fn(&m, data)))
			break;
	}
	store_reset(s);
	if (!ret && rc != STORE_DONE)
		ret = store_db_error(err, d->st, "cannot read Suspects");
	return ret;
}

int store_detect_suspect_find(int *found, struct store_mark *out, struct store_detect *d,
			      const struct store_group *g, int64_t run_id, const char *metric,
			      enum suspect_kind kind, struct strbuf *commit, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(d->st, SQL_DETECT_SUSPECT_FIND, err);
	int rc, ret = 0;
	*found = 0;
	if (!s)
		return BL_EDB;
	bind_group(s, g);
	store_bind_int64(s, 4, run_id);
	store_bind_text(s, 5, metric);
	store_bind_text(s, 6, suspect_kind_name(kind));
	rc = store_step(s);
	if (rc == STORE_ROW && !(ret = read_mark(out, d->st, s, err))) {
		/* the row's strings go with the reset below */
		out->metric = metric;
		out->config = g->config;
		out->commit = NULL;
		if (commit) {
			strbuf_reset(commit);
			strbuf_addstr(commit, store_column_text(s, 15, ""));
			out->commit = commit->buf;
		}
		*found = 1;
	}
	store_reset(s);
	if (!ret && rc != STORE_ROW && rc != STORE_DONE)
		ret = store_db_error(err, d->st, "cannot read Suspects");
	return ret;
}

static void bind_numbers(struct store_stmt *s, int i, const struct store_mark *m)
{
	store_bind_text(s, i, suspect_side_name(m->side));
	store_bind_real(s, i + 1, m->shift);
	store_bind_double(s, i + 2, m->median);
	store_bind_double(s, i + 3, m->center);
	store_bind_double(s, i + 4, m->tolerance);
	store_bind_double(s, i + 5, m->deviation);
	store_bind_id(s, i + 6, m->reference_run_id);
	store_bind_id(s, i + 7, m->follows_run_id);
	store_bind_int64(s, i + 8, m->followers);
	store_bind_int64(s, i + 9, m->persisted);
}

/* A new Suspect's 19 parameters, from parameter o + 1 on; found_at when it was found. */
static void bind_new_suspect(struct store_stmt *s, int o, const struct store_mark *m,
			     double found_at)
{
	store_bind_int64(s, o + 1, m->run_id);
	store_bind_text(s, o + 2, m->metric);
	store_bind_int64(s, o + 3, m->machine_id);
	store_bind_int64(s, o + 4, m->benchmark_id);
	store_bind_text(s, o + 5, m->config);
	bind_numbers(s, o + 6, m);
	store_bind_id(s, o + 16, m->alert_id);
	store_bind_text(s, o + 17, suspect_state_name(m->state));
	store_bind_double(s, o + 18, found_at);
	store_bind_text(s, o + 19, suspect_kind_name(m->kind));
}

/* Inserts one new Suspect with its alert and state. */
static int insert_suspect(struct store_detect *d, const struct store_mark *m, double found_at,
			  struct bl_error *err)
{
	struct store_stmt *s = store_stmt(d->st, SQL_DETECT_SUSPECT_INSERT, err);
	if (!s)
		return BL_EDB;
	bind_new_suspect(s, 0, m, found_at);
	return store_exec(d->st, s, "cannot store a Suspect", err);
}

/* The rows of detect_suspect_insert_many (sql/detect.sql). */
#define SUSPECT_BATCH 16

int store_detect_suspects_insert(struct store_detect *d, const struct store_mark *const *m,
				 size_t n, struct bl_error *err)
{
	double found_at = epoch_s(); /* one time for the Suspects one detect finds */
	size_t i = 0;
	for (; n - i >= SUSPECT_BATCH; i += SUSPECT_BATCH) {
		struct store_stmt *s = store_stmt(d->st, SQL_DETECT_SUSPECT_INSERT_MANY, err);
		if (!s)
			return BL_EDB;
		for (int k = 0; k < SUSPECT_BATCH; k++)
			bind_new_suspect(s, 19 * k, m[i + (size_t)k], found_at);
		if (store_exec(d->st, s, "cannot store a Suspect", err))
			return BL_EDB;
	}
	for (; i < n; i++)
		if (insert_suspect(d, m[i], found_at, err))
			return BL_EDB;
	return 0;
}

int store_detect_suspect_update(struct store_detect *d, const struct store_mark *m,
				struct bl_error *err)
{
	struct store_stmt *s = store_stmt(d->st, SQL_DETECT_SUSPECT_UPDATE, err);
	if (!s)
		return BL_EDB;
	store_bind_int64(s, 1, m->id);
	bind_numbers(s, 2, m);
	store_bind_id(s, 12, m->alert_id);
	store_bind_text(s, 13, suspect_state_name(m->state));
	return store_exec(d->st, s, "cannot update a Suspect", err);
}

int store_detect_values(struct store_detect *d, int64_t line_id, store_values_fn fn, void *cb_data,
			struct bl_error *err)
{
	struct store_stmt *s = store_stmt(d->st, SQL_DETECT_VALUES_READ, err);
	int rc, ret = 0;
	if (!s)
		return BL_EDB;
	store_bind_int64(s, 1, line_id);
	while ((rc = store_step(s)) == STORE_ROW)
		if ((ret = fn(store_column_int64(s, 0, 0), store_column_blob(s, 1),
			      (size_t)store_column_bytes(s, 1), cb_data)))
			break;
	store_reset(s);
	if (!ret && rc != STORE_DONE)
		ret = store_db_error(err, d->st, "cannot read a line's values");
	return ret;
}

int store_detect_values_put(struct store_detect *d, int64_t line_id, int64_t chunk,
			    const void *data, size_t len, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(d->st, SQL_DETECT_VALUES_PUT, err);
	if (!s)
		return BL_EDB;
	store_bind_int64(s, 1, line_id);
	store_bind_int64(s, 2, chunk);
	store_bind_blob(s, 3, data, len);
	return store_exec(d->st, s, "cannot store a line's values", err);
}

int store_detect_search(int *found, struct strbuf *out, struct store_detect *d, int64_t line_id,
			struct bl_error *err)
{
	struct store_stmt *s = store_stmt(d->st, SQL_DETECT_SEARCH_READ, err);
	if (!s)
		return BL_EDB;
	store_bind_int64(s, 1, line_id);
	return store_query_bytes(found, out, d->st, s, "cannot read a line's search", err);
}

int store_detect_search_put(struct store_detect *d, int64_t line_id, const void *data, size_t len,
			    struct bl_error *err)
{
	struct store_stmt *s = store_stmt(d->st, SQL_DETECT_SEARCH_PUT, err);
	if (!s)
		return BL_EDB;
	store_bind_int64(s, 1, line_id);
	store_bind_blob(s, 2, data, len);
	return store_exec(d->st, s, "cannot store a line's search", err);
}

int store_detect_run_commit(struct strbuf *out, struct store_detect *d, int64_t run_id,
			    struct bl_error *err)
{
	struct store_stmt *s = store_stmt(d->st, SQL_DETECT_RUN_COMMIT, err);
	int found;
	if (!s)
		return BL_EDB;
	store_bind_int64(s, 1, run_id);
	return store_query_bytes(&found, out, d->st, s, "cannot read a run's commit", err);
}

void store_pinned_free(struct store_pinned *p, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		free(p[i].config);
		free(p[i].metric);
		free(p[i].seqs);
	}
	free(p);
}

int store_detect_pinned(struct store_pinned **out, size_t *nr, struct store_detect *d,
			struct bl_error *err)
{
	struct store_stmt *s = store_stmt(d->st, SQL_DETECT_PINNED, err);
	struct store_pinned *p = NULL;
	size_t n = 0, alloc = 0;
	int rc;
	*out = NULL;
	*nr = 0;
	if (!s)
		return BL_EDB;
	while ((rc = store_step(s)) == STORE_ROW) {
		int64_t machine = store_column_int64(s, 0, 0), bench = store_column_int64(s, 1, 0);
		const char *config = store_column_text(s, 2, ""),
			   *metric = store_column_text(s, 3, "");
		struct store_pinned *x = n ? &p[n - 1] : NULL;
		if (!x || x->machine_id != machine || x->benchmark_id != bench ||
		    strcmp(x->config, config) || strcmp(x->metric, metric)) {
			ALLOC_GROW(p, n, alloc);
			x = &p[n++];
			x->machine_id = machine;
			x->benchmark_id = bench;
			x->config = xstrdup(config);
			x->metric = xstrdup(metric);
			x->seqs = NULL;
			x->nseqs = 0;
		}
		x->seqs = xrealloc(x->seqs, (x->nseqs + 1) * sizeof(*x->seqs));
		x->seqs[x->nseqs++] = store_column_int64(s, 4, 0);
	}
	store_reset(s);
	if (rc != STORE_DONE) {
		store_pinned_free(p, n);
		return store_db_error(err, d->st, "cannot read Regressions");
	}
	*out = p;
	*nr = n;
	return 0;
}

int store_detect_suspect_delete(struct store_detect *d, int64_t id, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(d->st, SQL_DETECT_SUSPECT_DELETE, err);
	if (!s)
		return BL_EDB;
	store_bind_int64(s, 1, id);
	return store_exec(d->st, s, "cannot delete a Suspect", err);
}

int store_detect_metric_ladder(char **out, struct store_detect *d, const char *metric,
			       struct bl_error *err)
{
	struct store_stmt *s = store_stmt(d->st, SQL_DETECT_METRIC_LADDER, err);
	int rc;
	*out = NULL;
	if (!s)
		return BL_EDB;
	store_bind_text(s, 1, metric);
	rc = store_step(s);
	if (rc == STORE_ROW)
		*out = store_column_strdup(s, 0);
	store_reset(s);
	if (rc != STORE_ROW && rc != STORE_DONE)
		return store_db_error(err, d->st, "cannot read a metric's ladder");
	return 0;
}

int store_detect_last_suspect_id(int64_t *out, struct store_detect *d, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(d->st, SQL_DETECT_SUSPECT_LAST_ID, err);
	*out = 0;
	if (!s)
		return BL_EDB;
	return store_query_int64(out, 0, d->st, s, "cannot read Suspects", err);
}

int store_open_suspects(int64_t *out, struct store_detect *d, const char *machine,
			const char *benchmark, const char *config, const char *metric,
			struct bl_error *err)
{
	struct store_stmt *s = store_stmt(d->st, SQL_SUSPECTS_OPEN_COUNT, err);
	*out = 0;
	if (!s)
		return BL_EDB;
	store_bind_text(s, 1, machine);
	store_bind_text(s, 2, benchmark);
	store_bind_text(s, 3, config);
	store_bind_text(s, 4, metric);
	store_bind_text(s, 5, suspect_state_name(SUSPECT_OPEN));
	return store_query_int64(out, 0, d->st, s, "cannot count Suspects", err);
}

int store_series_judged(int *out, struct store_detect *d, const char *machine,
			const char *benchmark, const char *config, const char *metric,
			struct bl_error *err)
{
	struct store_stmt *s = store_stmt(d->st, SQL_SERIES_JUDGED, err);
	int64_t judged = 0;
	int ret;
	*out = 0;
	if (!s)
		return BL_EDB;
	store_bind_text(s, 1, machine);
	store_bind_text(s, 2, benchmark);
	store_bind_text(s, 3, config);
	store_bind_text(s, 4, metric);
	ret = store_query_int64(&judged, 0, d->st, s, "cannot read lines", err);
	*out = judged > 0;
	return ret;
}

int store_detect_ran(int *out, struct store *st, struct bl_error *err)
{
	char *v = NULL;
	int ret = store_get_meta(&v, st, "detect_state", err);
	*out = v != NULL;
	free(v);
	return ret;
}

/* The Suspects over after_id, of one alert unless alert_id is 0. */
/* Suspects with an id over after_id: of one alert (alert_id) in Series order, or at most limit
 * of them in id order (limit > 0), or all in Series order. */
static int each_suspect(struct store *st, int64_t after_id, int64_t alert_id, int64_t limit,
			store_suspect_fn fn, void *data, struct bl_error *err)
{
	struct store_stmt *s =
	    store_stmt(st, limit > 0 ? SQL_SUSPECTS_NEW : SQL_SUSPECTS_LIST, err);
	int rc, ret = 0;
	if (!s)
		return BL_EDB;
	store_bind_int64(s, 1, after_id);
	if (limit > 0)
		store_bind_int64(s, 2, limit);
	else
		store_bind_id(s, 2, alert_id);
	while ((rc = store_step(s)) == STORE_ROW) {
		struct store_suspect x;
		x.id = store_column_int64(s, 0, 0);
		x.machine = store_column_text(s, 1, "");
		x.benchmark = store_column_text(s, 2, "");
		x.config = store_column_text(s, 3, "");
		x.metric = store_column_text(s, 4, "");
		x.commit = store_column_text(s, 5, "");
		x.source_hash = store_column_text(s, 6, "");
		x.seq = store_place_seq(store_column_double(s, 7));
		if ((ret = store_column_side(&x.side, st, s, 8, err)) ||
		    (ret = store_column_state(&x.state, st, s, 13, err)) ||
		    (ret = store_column_suspect_kind(&x.kind, st, s, 15, err))) {
			rc = STORE_DONE;
			break;
		}
		x.shift = store_column_real(s, 9);
		x.median = store_column_real(s, 10);
		x.center = store_column_real(s, 11);
		x.tolerance = store_column_real(s, 12);
		x.run_id = store_column_int64(s, 14, 0);
		if (fn(&x, data)) {
			rc = STORE_DONE;
			break;
		}
	}
	if (!ret && rc != STORE_DONE)
		ret = store_db_error(err, st, "cannot list Suspects");
	store_reset(s);
	return ret;
}

int store_each_suspect(struct store *st, int64_t after_id, store_suspect_fn fn, void *data,
		       struct bl_error *err)
{
	return each_suspect(st, after_id, 0, 0, fn, data, err);
}

int store_each_new_suspect(struct store *st, int64_t after_id, int64_t limit, store_suspect_fn fn,
			   void *data, struct bl_error *err)
{
	return each_suspect(st, after_id, 0, limit, fn, data, err);
}

int store_alert_suspects(struct store *st, int64_t alert_id, store_suspect_fn fn, void *data,
			 struct bl_error *err)
{
	return each_suspect(st, 0, alert_id, 0, fn, data, err);
}

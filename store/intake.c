/*
 * The intake's lookups a chunk of records at a time (store.h, sql/intake.sql): each asks about
 * many values in one statement (a JSON array bound as one parameter) and answers by their index,
 * so that storing a file waits for the database a few times per chunk, not per record: on
 * PostgreSQL each wait is a round trip.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store/internal.h"

static void strings_json(struct strbuf *sb, const char *const *v, size_t n)
{
	strbuf_addch(sb, '[');
	for (size_t i = 0; i < n; i++) {
		if (i)
			strbuf_addch(sb, ',');
		strbuf_add_json_string(sb, v[i]);
	}
	strbuf_addch(sb, ']');
}

static void ids_json(struct strbuf *sb, const int64_t *v, size_t n)
{
	strbuf_addch(sb, '[');
	for (size_t i = 0; i < n; i++) {
		if (i)
			strbuf_addch(sb, ',');
		strbuf_add_int64(sb, v[i]);
	}
	strbuf_addch(sb, ']');
}

/* What a row of an intake lookup fills: the row's values for the value at index. */
typedef int row_fn(struct store *st, struct store_stmt *s, size_t index, void *data,
		   struct bl_error *err);

/* Runs statement id with json (an array of n values) as its only parameter, handing each row
 * to fn with the index its first column gives; an index outside the n values is an error. */
static int each_row(struct store *st, enum sql_stmt id, const struct strbuf *json, size_t n,
		    row_fn *fn, void *data, const char *what, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, id, err);
	int rc, ret = 0;

	if (!s)
		return BL_EDB;
	store_bind_text_len(s, 1, json->buf, json->len);
	while ((rc = store_step(s)) == STORE_ROW) {
		int64_t index = store_column_int64(s, 0, -1);
		if (index < 0 || (uint64_t)index >= n) {
			ret = bl_error_set(err, BL_EDB,
					   "%s in '%s': an answer for value %" PRId64 " of %zu",
					   what, store_name(st), index, n);
			break;
		}
		if ((ret = fn(st, s, (size_t)index, data, err)))
			break;
	}
	store_reset(s);
	if (!ret && rc != STORE_DONE)
		ret = store_db_error(err, st, what);
	return ret;
}

static int take_id(struct store *st, struct store_stmt *s, size_t index, void *data,
		   struct bl_error *err)
{
	(void)st;
	(void)err;
	((int64_t *)data)[index] = store_column_int64(s, 1, 0);
	return 0;
}

int store_runs_by_digest(int64_t *run_ids, struct store *st, const char *const *digests, size_t n,
			 struct bl_error *err)
{
	struct strbuf json = STRBUF_INIT;
	int ret;

	memset(run_ids, 0, n * sizeof(*run_ids));
	if (!n)
		return 0;
	strings_json(&json, digests, n);
	ret = each_row(st, SQL_INTAKE_RUNS_BY_DIGEST, &json, n, take_id, run_ids,
		       "cannot look up runs", err);
	strbuf_release(&json);
	return ret;
}

struct tags_walk {
	store_tag_fn *fn;
	void *data;
};

static int take_tag(struct store *st, struct store_stmt *s, size_t index, void *data,
		    struct bl_error *err)
{
	struct tags_walk *w = data;
	(void)st;
	(void)err;
	w->fn(w->data, index, store_column_text(s, 1, ""));
	return 0;
}

int store_tags_of_runs(struct store *st, const int64_t *run_ids, size_t n, store_tag_fn *fn,
		       void *data, struct bl_error *err)
{
	struct strbuf json = STRBUF_INIT;
	struct tags_walk w = {fn, data};
	int ret;

	if (!n)
		return 0;
	ids_json(&json, run_ids, n);
	ret =
	    each_row(st, SQL_INTAKE_TAGS_OF_RUNS, &json, n, take_tag, &w, "cannot read tags", err);
	strbuf_release(&json);
	return ret;
}

static int take_machine(struct store *st, struct store_stmt *s, size_t index, void *data,
			struct bl_error *err)
{
	struct store_machine_row *row = &((struct store_machine_row *)data)[index];
	(void)st;
	(void)err;
	row->id = store_column_int64(s, 1, 0);
	row->keep_first = store_column_int(s, 2);
	free(row->info);
	row->info = store_column_strdup(s, 3);
	return 0;
}

int store_machines_by_name(struct store_machine_row *rows, struct store *st,
			   const char *const *names, size_t n, struct bl_error *err)
{
	struct strbuf json = STRBUF_INIT;
	int ret;

	memset(rows, 0, n * sizeof(*rows));
	if (!n)
		return 0;
	strings_json(&json, names, n);
	ret = each_row(st, SQL_INTAKE_MACHINES, &json, n, take_machine, rows,
		       "cannot look up machines", err);
	strbuf_release(&json);
	return ret;
}

int store_benchmarks_by_name(int64_t *ids, struct store *st, const char *const *names, size_t n,
			     struct bl_error *err)
{
	struct strbuf json = STRBUF_INIT;
	int ret;

	memset(ids, 0, n * sizeof(*ids));
	if (!n)
		return 0;
	strings_json(&json, names, n);
	ret = each_row(st, SQL_INTAKE_BENCHMARKS, &json, n, take_id, ids,
		       "cannot look up benchmarks", err);
	strbuf_release(&json);
	return ret;
}

int store_main_known(int *out, struct store *st, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_MAIN_KNOWN, err);
	int64_t known;
	int ret;

	*out = 0;
	if (!s)
		return BL_EDB;
	ret = store_query_int64(&known, 0, st, s, "cannot read commits", err);
	*out = known != 0;
	return ret;
}

static int take_flag(struct store *st, struct store_stmt *s, size_t index, void *data,
		     struct bl_error *err)
{
	(void)st;
	(void)s;
	(void)err;
	((int *)data)[index] = 1;
	return 0;
}

int store_on_main(int *out, struct store *st, const char *const *source_hashes,
		  const char *const *commits, size_t n, struct bl_error *err)
{
	struct strbuf json = STRBUF_INIT;
	int ret;

	memset(out, 0, n * sizeof(*out));
	if (!n)
		return 0;
	strbuf_addch(&json, '[');
	for (size_t i = 0; i < n; i++) {
		strbuf_addstr(&json, i ? ",[" : "[");
		strbuf_add_json_string(&json, source_hashes[i]);
		strbuf_addch(&json, ',');
		strbuf_add_json_string(&json, commits[i]);
		strbuf_addch(&json, ']');
	}
	strbuf_addch(&json, ']');
	ret =
	    each_row(st, SQL_INTAKE_ON_MAIN, &json, n, take_flag, out, "cannot read commits", err);
	strbuf_release(&json);
	return ret;
}

static int take_standing(struct store *st, struct store_stmt *s, size_t index, void *data,
			 struct bl_error *err)
{
	struct store_standing *row = &((struct store_standing *)data)[index];
	(void)st;
	(void)err;
	row->run_id = store_column_int64(s, 1, 0);
	row->quietness = store_column_real(s, 2);
	row->flawed = store_column_int(s, 3);
	return 0;
}

int store_standing_of_keys(struct store_standing *out, struct store *st,
			   const struct store_key *keys, size_t n, struct bl_error *err)
{
	struct strbuf json = STRBUF_INIT;
	int ret;

	for (size_t i = 0; i < n; i++)
		out[i] = (struct store_standing){0, NAN, 0};
	if (!n)
		return 0;
	strbuf_addch(&json, '[');
	for (size_t i = 0; i < n; i++) {
		const struct store_key *k = &keys[i];
		strbuf_addstr(&json, i ? ",[" : "[");
		strbuf_add_int64(&json, k->machine_id);
		strbuf_addch(&json, ',');
		strbuf_add_int64(&json, k->benchmark_id);
		strbuf_addch(&json, ',');
		strbuf_add_json_string(&json, k->config);
		strbuf_addch(&json, ',');
		strbuf_add_json_string(&json, k->source_hash);
		strbuf_addch(&json, ',');
		strbuf_add_int64(&json, k->harness_version);
		strbuf_addch(&json, ']');
	}
	strbuf_addch(&json, ']');
	ret = each_row(st, SQL_INTAKE_STANDING, &json, n, take_standing, out, "cannot read records",
		       err);
	strbuf_release(&json);
	return ret;
}

int store_new_run_ids(int64_t *ids, struct store *st, size_t n, struct bl_error *err)
{
	struct store_stmt *s;
	size_t got = 0;
	int rc;

	if (!n)
		return 0;
	if (!(s = store_stmt(st, SQL_INTAKE_RUN_IDS, err)))
		return BL_EDB;
	store_bind_int64(s, 1, (int64_t)n);
	while ((rc = store_step(s)) == STORE_ROW)
		if (got < n)
			ids[got++] = store_column_int64(s, 0, 0);
	store_reset(s);
	if (rc != STORE_DONE)
		return store_db_error(err, st, "cannot number new runs");
	if (got != n)
		return bl_error_set(err, BL_EDB, "cannot number new runs in '%s': %zu ids for %zu",
				    store_name(st), got, n);
	return 0;
}

/* A real in an intake array: null for NAN, its %.17g (which reads back as the same double),
 * and the words PostgreSQL's float8 reads for the infinities. */
static void add_real(struct strbuf *sb, double v)
{
	char buf[DOUBLE_TEXT_MAX];
	if (isnan(v))
		strbuf_addstr(sb, "null");
	else if (isinf(v))
		strbuf_addstr(sb, v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
	else
		strbuf_add(sb, buf, (size_t)format_double_g17(buf, v));
}

/* What one statement of intake_metrics_insert carries at most: its array and its samples. */
#define METRICS_BATCH_BYTES (4 << 20)

/* Metrics rows [from, to) as one intake_metrics_insert. */
static int insert_metrics_at_once(struct store *st, const struct store_metric_row *rows,
				  size_t from, size_t to, struct bl_error *err)
{
	struct strbuf json = STRBUF_INIT, blob = STRBUF_INIT;
	struct store_stmt *s = store_stmt(st, SQL_INTAKE_METRICS_INSERT, err);
	int ret;

	if (!s)
		return BL_EDB;
	strbuf_addch(&json, '[');
	for (size_t i = from; i < to; i++) {
		const struct store_metric *m = &rows[i].m;
		strbuf_addstr(&json, i > from ? ",[" : "[");
		strbuf_add_int64(&json, rows[i].run_id);
		strbuf_addch(&json, ',');
		strbuf_add_json_string(&json, m->name);
		strbuf_addch(&json, ',');
		strbuf_add_json_string(&json, metric_kind_name(m->kind));
		strbuf_addch(&json, ',');
		strbuf_add_json_string(&json, m->unit);
		strbuf_addch(&json, ',');
		strbuf_add_json_string(&json, metric_better_name(m->better_higher));
		strbuf_addch(&json, ',');
		add_real(&json, m->median);
		strbuf_addch(&json, ',');
		add_real(&json, m->p95);
		if (m->n >= 0) {
			strbuf_addch(&json, ',');
			strbuf_add_int64(&json, m->n);
			strbuf_addch(&json, ',');
		} else
			strbuf_addstr(&json, ",null,");
		add_real(&json, m->value);
		strbuf_addch(&json, ',');
		if (m->ladder)
			strbuf_add_json_string(&json, m->ladder);
		else
			strbuf_addstr(&json, "null");
		if (m->samples && m->nsamples) {
			strbuf_addf(&json, ",%zu,%zu]", blob.len + 1, m->nsamples * 8);
			strbuf_grow(&blob, m->nsamples * 8);
			store_encode_samples((unsigned char *)blob.buf + blob.len, m->samples,
					     m->nsamples);
			strbuf_setlen(&blob, blob.len + m->nsamples * 8);
		} else {
			strbuf_addstr(&json, ",null,null]");
		}
	}
	strbuf_addch(&json, ']');
	store_bind_text_len(s, 1, json.buf, json.len);
	store_bind_blob(s, 2, blob.buf, blob.len);
	ret = store_exec(st, s, "cannot insert metrics", err);
	strbuf_release(&json);
	strbuf_release(&blob);
	return ret;
}

int store_insert_metrics(size_t *failed, struct store *st, const struct store_metric_row *rows,
			 size_t n, struct bl_error *err)
{
	size_t from = 0, bytes = 0;
	int ret;

	*failed = n;
	if (store_backend_of(st) == STORE_SQLITE) {
		/* a statement costs SQLite no wait: row by row, each error its row's */
		for (size_t i = 0; i < n; i++) {
			if ((ret = store_insert_metric(st, rows[i].run_id, &rows[i].m, err))) {
				*failed = i;
				return ret;
			}
		}
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		/* the array's bytes, roughly, and the samples' */
		bytes += 160 + strlen(rows[i].m.name) + rows[i].m.nsamples * 8;
		if (bytes < METRICS_BATCH_BYTES && i + 1 < n)
			continue;
		if ((ret = insert_metrics_at_once(st, rows, from, i + 1, err)))
			return ret;
		from = i + 1;
		bytes = 0;
	}
	return 0;
}

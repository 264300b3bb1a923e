/*
 * The gate's reads (§7; the statements are in sql/gate.sql). A gate touches a few thousand
 * records at most, so everything here is an index seek.
 */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "store/internal.h"
#include "sql_embed.h"

/* A gate session is the store itself: its statements are in the store's cache. */
struct store_gate {
	struct store *st;
};

int store_gate_open(struct store_gate **out, struct store *st, struct bl_error *err)
{
	struct store_gate *g = xcalloc(1, sizeof(*g));
	(void)err;
	g->st = st;
	*out = g;
	return 0;
}

void store_gate_close(struct store_gate *g)
{
	free(g);
}

int store_gate_at_source(struct store_gate_record **out, size_t *nr, struct store_gate *g,
			 const char *source_hash, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(g->st, SQL_GATE_AT_SOURCE, err);
	struct store_gate_record *list = NULL;
	size_t n = 0, alloc = 0;
	int rc, ret = 0;

	if (!s) {
		ret = BL_EDB;
		goto fail;
	}
	store_bind_text(s, 1, source_hash);
	while ((rc = store_step(s)) == STORE_ROW) {
		struct store_gate_record *r;
		ALLOC_GROW(list, n, alloc);
		r = &list[n++];
		memset(r, 0, sizeof(*r));
		r->run_id = store_column_int64(s, 0, 0);
		r->machine_id = store_column_int64(s, 1, 0);
		r->benchmark_id = store_column_int64(s, 2, 0);
		r->config = store_column_strdup(s, 3);
		r->harness_version = store_column_int64(s, 4, 0);
		r->machine = store_column_strdup(s, 5);
		r->benchmark = store_column_strdup(s, 6);
		store_column_sha(r->commit, s, 7);
		r->content_hash = store_column_strdup(s, 8);
		r->baseline = store_column_int(s, 9);
		r->tagged = store_column_int(s, 10);
		snprintf(r->source_hash, sizeof(r->source_hash), "%.40s",
			 source_hash ? source_hash : "");
	}
	store_reset(s);
	if (rc != STORE_DONE) {
		ret = store_db_error(err, g->st, "cannot read the records at a source hash");
		goto fail;
	}
	for (size_t i = 0; i < n; i++)
		if ((ret = store_read_metrics(&list[i].metrics, &list[i].nmetrics, g->st,
					      list[i].run_id, err)))
			goto fail;
	*out = list;
	*nr = n;
	return 0;
fail:
	store_gate_records_free(list, n);
	*out = NULL;
	*nr = 0;
	return ret;
}

/*
 * Reads the rows of gate_group_at or gate_group_in (the same columns: step, run, harness,
 * commit, content hash, baseline, source hash, then a metric) into records, one per run.
 */
static int collect_group(struct store_gate_record **out, size_t *nr, struct store_gate *g,
			 struct store_stmt *s, int64_t machine_id, int64_t benchmark_id,
			 struct bl_error *err)
{
	struct store_gate_record *list = NULL, *r = NULL;
	size_t n = 0, alloc = 0, metrics_alloc = 0;
	int rc, ret = 0;

	while ((rc = store_step(s)) == STORE_ROW) {
		int64_t run_id = store_column_int64(s, 1, 0);
		if (!r || r->run_id != run_id) {
			ALLOC_GROW(list, n, alloc);
			r = &list[n++];
			memset(r, 0, sizeof(*r));
			metrics_alloc = 0;
			r->step = store_column_int64(s, 0, 0);
			r->run_id = run_id;
			r->machine_id = machine_id;
			r->benchmark_id = benchmark_id;
			r->harness_version = store_column_int64(s, 2, 0);
			store_column_sha(r->commit, s, 3);
			r->content_hash = store_column_strdup(s, 4);
			r->baseline = store_column_int(s, 5);
			store_column_sha(r->source_hash, s, 6);
		}
		ALLOC_GROW(r->metrics, r->nmetrics, metrics_alloc);
		if ((ret = store_metric_from_row(&r->metrics[r->nmetrics++], g->st, s, 7, err)))
			break;
	}
	store_reset(s);
	if (!ret && rc != STORE_DONE)
		ret = store_db_error(err, g->st, "cannot read a group's records");
	if (ret) {
		store_gate_records_free(list, n);
		list = NULL;
		n = 0;
	}
	*out = list;
	*nr = n;
	return ret;
}

int store_gate_group_at(struct store_gate_record **out, size_t *nr, struct store_gate *g,
			int64_t machine_id, int64_t benchmark_id, const char *config,
			const char *source_hash, int with_samples, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(g->st, SQL_GATE_GROUP_AT, err);
	*out = NULL;
	*nr = 0;
	if (!s)
		return BL_EDB;
	store_bind_int64(s, 1, machine_id);
	store_bind_int64(s, 2, benchmark_id);
	store_bind_text(s, 3, config);
	store_bind_text(s, 4, source_hash);
	store_bind_int64(s, 5, with_samples);
	return collect_group(out, nr, g, s, machine_id, benchmark_id, err);
}

int store_gate_group_in(struct store_gate_record **out, size_t *nr, struct store_gate *g,
			int64_t machine_id, int64_t benchmark_id, const char *config,
			const char *const *source_hashes, size_t nhashes, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(g->st, SQL_GATE_GROUP_IN, err);
	struct strbuf hashes = STRBUF_INIT;
	int ret;

	*out = NULL;
	*nr = 0;
	if (!s)
		return BL_EDB;
	store_bind_group_hashes(s, &hashes, machine_id, benchmark_id, config, source_hashes,
				nhashes);
	ret = collect_group(out, nr, g, s, machine_id, benchmark_id, err);
	strbuf_release(&hashes);
	return ret;
}

void store_bind_group_hashes(struct store_stmt *s, struct strbuf *json, int64_t machine_id,
			     int64_t benchmark_id, const char *config,
			     const char *const *source_hashes, size_t nhashes)
{
	strbuf_addch(json, '[');
	for (size_t i = 0; i < nhashes; i++) {
		if (i)
			strbuf_addch(json, ',');
		strbuf_add_json_string(json, source_hashes[i]);
	}
	strbuf_addch(json, ']');
	store_bind_int64(s, 1, machine_id);
	store_bind_int64(s, 2, benchmark_id);
	store_bind_text(s, 3, config);
	store_bind_text_len(s, 4, json->buf, json->len);
}

void store_gate_record_release(struct store_gate_record *r)
{
	store_metrics_free(r->metrics, r->nmetrics);
	free(r->machine);
	free(r->benchmark);
	free(r->config);
	free(r->content_hash);
	memset(r, 0, sizeof(*r));
}

void store_gate_records_free(struct store_gate_record *r, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		store_gate_record_release(&r[i]);
	free(r);
}

/*
 * The gate's reads (§7; the statements are in sql/gate.sql). A gate touches a few thousand
 * records at most, so everything here is an index seek, and a few statements read them all: the
 * head's records with their metrics in one, each step of the reference search for every group
 * in one, each batch of the windows for every group in one (a round trip to a server costs
 * more than the seeks).
 */
#include <inttypes.h>
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

/* Adds the metric in columns at.. of s's row to r, unless the record has none (a NULL name). */
static int add_metric(struct store_gate_record *r, size_t *alloc, struct store *st,
		      struct store_stmt *s, int at, struct bl_error *err)
{
	if (store_column_is_null(s, at))
		return 0;
	ALLOC_GROW(r->metrics, r->nmetrics, *alloc);
	return store_metric_from_row(&r->metrics[r->nmetrics++], st, s, at, err);
}

int store_gate_at_source(struct store_gate_record **out, size_t *nr, struct store_gate *g,
			 const char *source_hash, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(g->st, SQL_GATE_AT_SOURCE, err);
	struct store_gate_record *list = NULL, *r = NULL;
	size_t n = 0, alloc = 0, metrics_alloc = 0;
	int rc, ret = 0;

	*out = NULL;
	*nr = 0;
	if (!s)
		return BL_EDB;
	store_bind_text(s, 1, source_hash);
	while ((rc = store_step(s)) == STORE_ROW) {
		int64_t run_id = store_column_int64(s, 0, 0);
		if (!r || r->run_id != run_id) {
			ALLOC_GROW(list, n, alloc);
			r = &list[n++];
			memset(r, 0, sizeof(*r));
			metrics_alloc = 0;
			r->run_id = run_id;
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
		if ((ret = add_metric(r, &metrics_alloc, g->st, s, 11, err)))
			break;
	}
	store_reset(s);
	if (!ret && rc != STORE_DONE)
		ret = store_db_error(err, g->st, "cannot read the records at a source hash");
	if (ret) {
		store_gate_records_free(list, n);
		return ret;
	}
	*out = list;
	*nr = n;
	return 0;
}

/* JSON arrays of the groups and of the source hashes, what gate_groups_in binds. */
static void groups_json(struct strbuf *json, const struct store_gate_group *groups, size_t n)
{
	strbuf_addch(json, '[');
	for (size_t i = 0; i < n; i++) {
		strbuf_addf(json, "%s[%" PRId64 ",%" PRId64 ",", i ? "," : "", groups[i].machine_id,
			    groups[i].benchmark_id);
		strbuf_add_json_string(json, groups[i].config);
		strbuf_addch(json, ']');
	}
	strbuf_addch(json, ']');
}

static void hashes_json(struct strbuf *json, const char *const *hashes, size_t n)
{
	strbuf_addch(json, '[');
	for (size_t i = 0; i < n; i++) {
		if (i)
			strbuf_addch(json, ',');
		strbuf_add_json_string(json, hashes[i]);
	}
	strbuf_addch(json, ']');
}

int store_gate_groups_in(struct store_gate_record **out, size_t *nr, struct store_gate *g,
			 const struct store_gate_group *groups, size_t ngroups,
			 const char *const *source_hashes, size_t nhashes, int with_samples,
			 struct bl_error *err)
{
	struct store_stmt *s = store_stmt(g->st, SQL_GATE_GROUPS_IN, err);
	struct strbuf gjson = STRBUF_INIT, hjson = STRBUF_INIT;
	struct store_gate_record *list = NULL, *r = NULL;
	size_t n = 0, alloc = 0, metrics_alloc = 0;
	int rc, ret = 0;

	*out = NULL;
	*nr = 0;
	if (!s)
		return BL_EDB;
	groups_json(&gjson, groups, ngroups);
	hashes_json(&hjson, source_hashes, nhashes);
	store_bind_text_len(s, 1, gjson.buf, gjson.len);
	store_bind_text_len(s, 2, hjson.buf, hjson.len);
	store_bind_int64(s, 3, with_samples != 0);
	while ((rc = store_step(s)) == STORE_ROW) {
		int64_t group = store_column_int64(s, 0, 0), run_id = store_column_int64(s, 2, 0);
		if (group < 0 || (size_t)group >= ngroups) {
			rc = STORE_DONE;
			ret = bl_error_set(err, BL_EDB, "a gate read gave group %" PRId64 " of %zu",
					   group, ngroups);
			break;
		}
		if (!r || r->run_id != run_id || r->group != (size_t)group) {
			ALLOC_GROW(list, n, alloc);
			r = &list[n++];
			memset(r, 0, sizeof(*r));
			metrics_alloc = 0;
			r->group = (size_t)group;
			r->step = store_column_int64(s, 1, 0);
			r->run_id = run_id;
			r->machine_id = groups[group].machine_id;
			r->benchmark_id = groups[group].benchmark_id;
			r->harness_version = store_column_int64(s, 3, 0);
			store_column_sha(r->commit, s, 4);
			r->content_hash = store_column_strdup(s, 5);
			r->baseline = store_column_int(s, 6);
			store_column_sha(r->source_hash, s, 7);
		}
		if ((ret = add_metric(r, &metrics_alloc, g->st, s, 8, err)))
			break;
	}
	store_reset(s);
	strbuf_release(&gjson);
	strbuf_release(&hjson);
	if (!ret && rc != STORE_DONE)
		ret = store_db_error(err, g->st, "cannot read the groups' records");
	if (ret) {
		store_gate_records_free(list, n);
		return ret;
	}
	*out = list;
	*nr = n;
	return 0;
}

void store_bind_group_hashes(struct store_stmt *s, struct strbuf *json, int64_t machine_id,
			     int64_t benchmark_id, const char *config,
			     const char *const *source_hashes, size_t nhashes)
{
	hashes_json(json, source_hashes, nhashes);
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

/*
 * Alerts (§9.1): what the alert pass (detect/alerts.c, which decides) reads and writes of
 * them, and what the listings, confirm and ignore read and record. The statements are in
 * sql/alerts.sql; docs/confirm.md explains the rules.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/internal.h"
#include "store/store.h"

int store_alert_find(int64_t *id, struct store *st, int64_t machine_id, const char *commit,
		     enum suspect_side side, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_ALERTS_FIND, err);
	*id = 0;
	if (!s)
		return BL_EDB;
	store_bind_int64(s, 1, machine_id);
	store_bind_text(s, 2, commit);
	store_bind_text(s, 3, suspect_side_name(side));
	return store_query_int64(id, 0, st, s, "cannot read alerts", err);
}

int store_alert_insert(int64_t *id, struct store *st, int64_t machine_id, const char *commit,
		       enum suspect_side side, enum suspect_state state, int transient_records,
		       struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_ALERTS_INSERT, err);
	*id = 0;
	if (!s)
		return BL_EDB;
	store_bind_int64(s, 1, machine_id);
	store_bind_text(s, 2, commit);
	store_bind_text(s, 3, suspect_side_name(side));
	store_bind_text(s, 4, suspect_state_name(state));
	store_bind_int64(s, 5, transient_records);
	if (store_exec(st, s, "cannot store an alert", err))
		return BL_EDB;
	*id = store_last_insert_id(st);
	return 0;
}

int store_alert_get(int *found, struct store_alert_row *out, struct store *st, int64_t id,
		    struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_ALERTS_GET, err);
	int rc, ret = 0;
	*found = 0;
	memset(out, 0, sizeof(*out));
	if (!s)
		return BL_EDB;
	store_bind_int64(s, 1, id);
	rc = store_step(s);
	if (rc == STORE_ROW) {
		*found = 1;
		out->series = store_column_int64(s, 1, 0);
		out->judged_series = store_column_int64(s, 2, -1);
		out->run_wide = store_column_int(s, 3) != 0;
		out->transient_records = (int)store_column_int64(s, 4, -1);
		out->machine_id = store_column_int64(s, 5, 0);
		snprintf(out->commit, sizeof(out->commit), "%s", store_column_text(s, 6, ""));
		if (!(ret = store_column_state(&out->state, st, s, 0, err)))
			ret = store_column_side(&out->side, st, s, 7, err);
	}
	store_reset(s);
	if (!ret && rc != STORE_ROW && rc != STORE_DONE)
		ret = store_db_error(err, st, "cannot read alerts");
	return ret;
}

int store_alert_put(struct store *st, int64_t id, const struct store_alert_row *row,
		    struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_ALERTS_PUT, err);
	if (!s)
		return BL_EDB;
	store_bind_int64(s, 1, id);
	store_bind_text(s, 2, suspect_state_name(row->state));
	store_bind_int64(s, 3, row->series);
	if (row->judged_series >= 0)
		store_bind_int64(s, 4, row->judged_series);
	else
		store_bind_text(s, 4, NULL);
	store_bind_int64(s, 5, row->run_wide);
	store_bind_int64(s, 6, row->transient_records);
	return store_exec(st, s, "cannot store an alert", err);
}

int store_alert_members(struct store *st, int64_t alert_id, store_alert_member_fn fn, void *data,
			struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_ALERTS_MEMBERS, err);
	int rc, ret = 0;
	if (!s)
		return BL_EDB;
	store_bind_int64(s, 1, alert_id);
	while ((rc = store_step(s)) == STORE_ROW) {
		struct store_alert_member m;
		m.id = store_column_int64(s, 0, 0);
		m.run_id = store_column_int64(s, 1, 0);
		m.metric = store_column_text(s, 2, "");
		m.benchmark_id = store_column_int64(s, 3, 0);
		m.config = store_column_text(s, 4, "");
		m.followers = store_column_int(s, 5);
		m.persisted = store_column_int(s, 6);
		m.commit = store_column_text(s, 8, "");
		if ((ret = store_column_state(&m.state, st, s, 7, err)) || (ret = fn(&m, data)))
			break;
	}
	store_reset(s);
	if (!ret && rc != STORE_DONE)
		ret = store_db_error(err, st, "cannot read an alert's Suspects");
	return ret;
}

/* The ids a bound statement gives in its first column (*ids the caller's); what is the message
 * of a failure ("cannot read alerts"). */
static int read_ids(int64_t **ids, size_t *nr, struct store *st, struct store_stmt *s,
		    const char *what, struct bl_error *err)
{
	int64_t *v = NULL;
	size_t n = 0, alloc = 0;
	int rc;
	while ((rc = store_step(s)) == STORE_ROW) {
		ALLOC_GROW(v, n, alloc);
		v[n++] = store_column_int64(s, 0, 0);
	}
	store_reset(s);
	if (rc != STORE_DONE) {
		free(v);
		return store_db_error(err, st, what);
	}
	*ids = v;
	*nr = n;
	return 0;
}

int store_alerts_counted_at(int64_t **ids, size_t *nr, struct store *st, int64_t machine_id,
			    const char *commit, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_ALERTS_COUNTED_AT, err);
	*ids = NULL;
	*nr = 0;
	if (!s)
		return BL_EDB;
	store_bind_int64(s, 1, machine_id);
	store_bind_text(s, 2, commit);
	return read_ids(ids, nr, st, s, "cannot read alerts", err);
}

int store_each_counted_alert(struct store *st, store_counted_alert_fn fn, void *data,
			     struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_ALERTS_COUNTED, err);
	int rc, ret = 0;
	if (!s)
		return BL_EDB;
	while ((rc = store_step(s)) == STORE_ROW)
		if ((ret = fn(store_column_int64(s, 0, 0), store_column_int64(s, 1, 0),
			      store_column_text(s, 2, ""), store_column_int64(s, 3, 0), data)))
			break;
	store_reset(s);
	if (!ret && rc != STORE_DONE)
		ret = store_db_error(err, st, "cannot read alerts");
	return ret;
}

int store_alerts_stale(int64_t **ids, size_t *nr, struct store *st, int transient_records,
		       struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_ALERTS_STALE, err);
	*ids = NULL;
	*nr = 0;
	if (!s)
		return BL_EDB;
	store_bind_int64(s, 1, transient_records);
	return read_ids(ids, nr, st, s, "cannot read alerts", err);
}

int store_alert_judged_at(int64_t *out, struct store *st, int64_t machine_id, const char *commit,
			  struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_ALERTS_JUDGED_AT, err);
	*out = 0;
	if (!s)
		return BL_EDB;
	store_bind_int64(s, 1, machine_id);
	store_bind_text(s, 2, commit);
	return store_query_int64(out, 0, st, s, "cannot count an alert's Series", err);
}

int store_alert_sync_suspects(struct store *st, int64_t alert_id, enum suspect_state state,
			      struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_ALERTS_SET_SUSPECTS_STATE, err);
	if (!s)
		return BL_EDB;
	store_bind_int64(s, 1, alert_id);
	store_bind_text(s, 2, suspect_state_name(state));
	return store_exec(st, s, "cannot update Suspects", err);
}

int store_each_alert(struct store *st, const struct store_alert_filter *f, store_alert_fn fn,
		     void *data, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_ALERTS_LIST, err);
	int rc, ret = 0;
	if (!s)
		return BL_EDB;
	store_bind_text(s, 1, f->machine);
	store_bind_text(s, 2, f->state_given ? suspect_state_name(f->state) : NULL);
	store_bind_id(s, 3, f->id);
	while ((rc = store_step(s)) == STORE_ROW) {
		struct store_alert a;
		a.id = store_column_int64(s, 0, 0);
		a.machine = store_column_text(s, 1, "");
		a.commit = store_column_text(s, 2, "");
		if ((ret = store_column_side(&a.side, st, s, 3, err)) ||
		    (ret = store_column_state(&a.state, st, s, 4, err)) ||
		    (ret = store_column_outcome(&a.outcome, st, s, 8, err)))
			break;
		a.run_wide = store_column_int(s, 5);
		a.series = store_column_int64(s, 6, 0);
		a.judged_series = store_column_int64(s, 7, -1);
		a.note = store_column_text(s, 9, NULL);
		a.filed_url = store_column_text(s, 10, NULL);
		a.reference_commit = store_column_text(s, 11, NULL);
		a.created_at = store_column_double(s, 12);
		a.rebench = store_column_text(s, 13, NULL);
		if (fn(&a, data)) {
			rc = STORE_DONE;
			break;
		}
	}
	if (!ret && rc != STORE_DONE)
		ret = store_db_error(err, st, "cannot list alerts");
	store_reset(s);
	return ret;
}

int store_alert_suspect_ids(int64_t **ids, size_t *nr, struct store *st, int64_t alert_id,
			    struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_ALERTS_SUSPECT_IDS, err);
	*ids = NULL;
	*nr = 0;
	if (!s)
		return BL_EDB;
	store_bind_int64(s, 1, alert_id);
	return read_ids(ids, nr, st, s, "cannot read an alert's Suspects", err);
}

int store_alert_set_outcome(struct store *st, int64_t id, enum suspect_state state,
			    enum alert_outcome outcome, const char *rebench, const char *note,
			    struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_ALERTS_SET_OUTCOME, err);
	/* Its own transaction, unless the caller's is open (an outcome stored with its
	 * Regressions, confirm_apply_outcome). */
	int own_txn = store_autocommit(st), ret;
	if (!s)
		return BL_EDB;
	if (own_txn && (ret = store_begin(st, err)))
		return ret;
	store_bind_int64(s, 1, id);
	store_bind_text(s, 2, suspect_state_name(state));
	store_bind_text(s, 3, alert_outcome_name(outcome));
	store_bind_text(s, 4, rebench);
	store_bind_text(s, 5, note);
	if ((ret = store_exec(st, s, "cannot record an alert's outcome", err)))
		goto fail;
	if ((ret = store_alert_sync_suspects(st, id, state, err)))
		goto fail;
	return own_txn ? store_commit(st, err) : 0;
fail:
	if (own_txn)
		store_rollback(st);
	return ret;
}

int store_alerts_last_id(int64_t *out, struct store *st, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_ALERTS_LAST_ID, err);
	*out = 0;
	if (!s)
		return BL_EDB;
	return store_query_int64(out, 0, st, s, "cannot read alerts", err);
}

int store_alerts_count_after(int64_t *out, struct store *st, int64_t after_id, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_ALERTS_COUNT_AFTER, err);
	*out = 0;
	if (!s)
		return BL_EDB;
	store_bind_int64(s, 1, after_id);
	return store_query_int64(out, 0, st, s, "cannot count alerts", err);
}

/*
 * Alerts (§9.1): the pass that groups Suspects into alerts after each detect, and what
 * confirm reads and records of them. The rules themselves are the statements of
 * sql/alerts.sql, run here in order; docs/confirm.md explains them.
 */
#include <stdlib.h>

#include "store/internal.h"
#include "store/store.h"

/* Runs one of the pass's statements; *changed (may be NULL) the rows it changed. */
static int pass_step(int *changed, struct store *st, enum sql_stmt which, int bind_int, int value,
		     struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, which, err);
	if (!s)
		return BL_EDB;
	if (bind_int)
		store_bind_int64(s, 1, value);
	if (store_exec(st, s, "cannot update alerts", err))
		return BL_EDB;
	if (changed)
		*changed = store_changes(st);
	return 0;
}

int store_alerts_update(struct store *st, int transient_records, struct bl_error *err)
{
	int changed, ret;
	/* Suspects that continue nothing first, so that the links of those that do lead to an
	 * alert; then the links, one step of a chain per run; then whatever is left (a link to a
	 * Suspect no longer stored) by its commit. */
	if ((ret = pass_step(NULL, st, SQL_ALERTS_GROUP_NEW, 1, 1, err)) ||
	    (ret = pass_step(NULL, st, SQL_ALERTS_GROUP_JOIN, 1, 1, err)))
		return ret;
	do {
		if ((ret = pass_step(&changed, st, SQL_ALERTS_FOLLOW, 0, 0, err)))
			return ret;
	} while (changed);
	if ((ret = pass_step(NULL, st, SQL_ALERTS_GROUP_NEW, 1, 0, err)) ||
	    (ret = pass_step(NULL, st, SQL_ALERTS_GROUP_JOIN, 1, 0, err)) ||
	    (ret = pass_step(NULL, st, SQL_ALERTS_COUNT, 0, 0, err)) ||
	    (ret = pass_step(NULL, st, SQL_ALERTS_DROP_EMPTY, 0, 0, err)) ||
	    (ret = pass_step(NULL, st, SQL_ALERTS_JUDGE, 1, transient_records, err)) ||
	    (ret = pass_step(NULL, st, SQL_ALERTS_SYNC_SUSPECTS, 0, 0, err)))
		return ret;
	return pass_step(NULL, st, SQL_ALERTS_RECHECKED, 0, 0, err);
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
	int64_t *v = NULL;
	size_t n = 0, alloc = 0;
	int rc;
	*ids = NULL;
	*nr = 0;
	if (!s)
		return BL_EDB;
	store_bind_int64(s, 1, alert_id);
	while ((rc = store_step(s)) == STORE_ROW) {
		ALLOC_GROW(v, n, alloc);
		v[n++] = store_column_int64(s, 0, 0);
	}
	store_reset(s);
	if (rc != STORE_DONE) {
		free(v);
		return store_db_error(err, st, "cannot read an alert's Suspects");
	}
	*ids = v;
	*nr = n;
	return 0;
}

int store_alert_set_outcome(struct store *st, int64_t id, enum suspect_state state,
			    enum alert_outcome outcome, const char *rebench, const char *note,
			    struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_ALERTS_SET_OUTCOME, err);
	struct store_stmt *u;
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
	if (!(u = store_stmt(st, SQL_ALERTS_SET_SUSPECTS_STATE, err))) {
		ret = BL_EDB;
		goto fail;
	}
	store_bind_int64(u, 1, id);
	store_bind_text(u, 2, suspect_state_name(state));
	if ((ret = store_exec(st, u, "cannot record an alert's outcome", err)))
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

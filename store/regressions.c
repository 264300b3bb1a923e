/*
 * Regressions (§9.3): the commits bisection pinned, one per Series, with the measurement that
 * pinned them; and what triage (§9.5) reads and writes of the alerts they belong to. The
 * statements are in sql/regressions.sql.
 */
#include <math.h>
#include <string.h>

#include "store/internal.h"
#include "sql_embed.h"

int store_regression_add(int64_t *id_out, int *added, struct store *st,
			 const struct store_regression *r, struct bl_error *err)
{
	int64_t machine_id, benchmark_id, id = 0;
	int own_txn = store_autocommit(st), ret;
	struct store_stmt *s;

	*id_out = 0;
	if (added)
		*added = 0;
	/* The Series' names and the Regression go in together, or nothing does. */
	if (own_txn && (ret = store_begin(st, err)))
		return ret;
	if ((ret = store_machine(&machine_id, NULL, st, r->machine, NULL, err)) ||
	    (ret = store_benchmark(&benchmark_id, st, r->benchmark, err)))
		goto done;
	if (!(s = store_stmt(st, SQL_REGRESSION_FIND, err))) {
		ret = BL_EDB;
		goto done;
	}
	store_bind_int64(s, 1, machine_id);
	store_bind_int64(s, 2, benchmark_id);
	store_bind_text(s, 3, r->config ? r->config : "");
	store_bind_text(s, 4, r->metric);
	store_bind_text(s, 5, r->commit);
	if ((ret = store_query_int64(&id, 0, st, s, "cannot look up a Regression", err)) || id)
		goto done;
	if (!(s = store_stmt(st, SQL_REGRESSION_INSERT, err))) {
		ret = BL_EDB;
		goto done;
	}
	if (r->alert_id)
		store_bind_int64(s, 1, r->alert_id);
	store_bind_int64(s, 2, machine_id);
	store_bind_int64(s, 3, benchmark_id);
	store_bind_text(s, 4, r->config ? r->config : "");
	store_bind_text(s, 5, r->metric);
	store_bind_text(s, 6, r->commit);
	store_bind_text(s, 7, r->source_hash);
	store_bind_text(s, 8, r->subject);
	if (r->pr > 0)
		store_bind_int64(s, 9, r->pr);
	store_bind_real(s, 10, r->ratio);
	store_bind_real(s, 11, r->lo);
	store_bind_real(s, 12, r->hi);
	store_bind_text(s, 13, r->reference_commit);
	store_bind_text(s, 14, r->probes ? r->probes : "[]");
	store_bind_text(s, 15, r->profile);
	if ((ret = store_exec(st, s, "cannot store a Regression", err)))
		goto done;
	id = store_last_insert_id(st);
	if (added)
		*added = 1;
done:
	if (own_txn) {
		if (ret)
			store_rollback(st);
		else
			ret = store_commit(st, err);
	}
	if (!ret)
		*id_out = id;
	else if (added)
		*added = 0;
	return ret;
}

/* Walks the rows of regressions_list or regressions_of_series (the same columns). */
static int walk_regressions(struct store *st, struct store_stmt *s, store_regression_fn fn,
			    void *data, struct bl_error *err)
{
	int rc, ret = 0;
	while ((rc = store_step(s)) == STORE_ROW) {
		struct store_regression r;
		r.id = store_column_int64(s, 0, 0);
		r.alert_id = store_column_int64(s, 1, 0);
		r.machine = store_column_text(s, 2, "");
		r.benchmark = store_column_text(s, 3, "");
		r.config = store_column_text(s, 4, "");
		r.metric = store_column_text(s, 5, "");
		r.commit = store_column_text(s, 6, "");
		r.seq = store_column_int64(s, 7, -1);
		r.source_hash = store_column_text(s, 8, "");
		r.subject = store_column_text(s, 9, NULL);
		r.pr = store_column_int64(s, 10, 0);
		r.ratio = store_column_real(s, 11);
		r.lo = store_column_real(s, 12);
		r.hi = store_column_real(s, 13);
		r.reference_commit = store_column_text(s, 14, "");
		r.probes = store_column_text(s, 15, "[]");
		r.filed_url = store_column_text(s, 16, NULL);
		r.created_at = store_column_real(s, 17);
		r.profile = store_column_text(s, 18, NULL);
		if (fn(&r, data)) {
			rc = STORE_DONE;
			break;
		}
	}
	if (rc != STORE_DONE)
		ret = store_db_error(err, st, "cannot list Regressions");
	store_reset(s);
	return ret;
}

int store_each_regression(struct store *st, int64_t alert_id, store_regression_fn fn, void *data,
			  struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_REGRESSIONS_LIST, err);
	if (!s)
		return BL_EDB;
	store_bind_int64(s, 1, alert_id);
	return walk_regressions(st, s, fn, data, err);
}

int store_each_regression_filtered(struct store *st, const struct store_regression_filter *f,
				   store_regression_fn fn, void *data, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_REGRESSIONS_FILTERED, err);
	struct strbuf hi = STRBUF_INIT;
	int ret;
	if (!s)
		return BL_EDB;
	store_bind_text(s, 1, f->machine);
	store_bind_text(s, 2, f->benchmark);
	if (f->commit) {
		/* "g" comes after every hex digit: the range holds every id with the prefix */
		strbuf_addf(&hi, "%sg", f->commit);
		store_bind_text(s, 3, f->commit);
		store_bind_text(s, 4, hi.buf);
	}
	store_bind_id(s, 5, f->alert_id);
	ret = walk_regressions(st, s, fn, data, err);
	strbuf_release(&hi);
	return ret;
}

int store_series_regressions(struct store *st, const char *machine, const char *benchmark,
			     const char *config, const char *metric, store_regression_fn fn,
			     void *data, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_REGRESSIONS_OF_SERIES, err);
	if (!s)
		return BL_EDB;
	store_bind_text(s, 1, machine);
	store_bind_text(s, 2, benchmark);
	store_bind_text(s, 3, config ? config : "");
	store_bind_text(s, 4, metric);
	return walk_regressions(st, s, fn, data, err);
}

int store_each_triage_alert(struct store *st, store_triage_alert_fn fn, void *data,
			    struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_TRIAGE_ALERTS, err);
	int rc, ret = 0;
	if (!s)
		return BL_EDB;
	while ((rc = store_step(s)) == STORE_ROW) {
		struct store_triage_alert a;
		a.id = store_column_int64(s, 0, 0);
		a.machine = store_column_text(s, 1, "");
		a.commit = store_column_text(s, 2, "");
		if ((ret = store_column_side(&a.side, st, s, 3, err)) ||
		    (ret = store_column_state(&a.state, st, s, 4, err)))
			break;
		a.series = store_column_int64(s, 5, 0);
		a.run_wide = store_column_int(s, 6) != 0;
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

int store_alert_set_filed(struct store *st, int64_t alert_id, const char *url, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_ALERT_SET_FILED, err);
	int ret;
	if (!s)
		return BL_EDB;
	store_bind_int64(s, 1, alert_id);
	store_bind_text(s, 2, url);
	if ((ret = store_exec(st, s, "cannot mark an alert filed", err)))
		return ret;
	if (!store_changes(st))
		return bl_error_set(err, BL_ENOTFOUND, "no alert %lld", (long long)alert_id);
	return 0;
}

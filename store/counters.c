/*
 * Deterministic counters (§9.6; the statement is in sql/counters.sql): the counts a machine key
 * took at a source hash, for the live gate's reuse of a merge base counted before; a run's JSON,
 * for the gate to compare two counts' build stamps.
 */
#include "store/internal.h"
#include "sql_embed.h"

int store_counters_at(struct store *st, const char *machine, const char *source_hash,
		      store_counter_fn fn, void *data, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_COUNTERS_AT, err);
	int rc, ret = 0;
	if (!s)
		return BL_EDB;
	store_bind_text(s, 1, machine);
	store_bind_text(s, 2, source_hash);
	while ((rc = store_step(s)) == STORE_ROW)
		if ((ret = fn(store_column_text(s, 0, ""), store_column_real(s, 1),
			      store_column_double(s, 2), store_column_text(s, 3, ""), data))) {
			rc = STORE_DONE;
			break;
		}
	store_reset(s);
	if (!ret && rc != STORE_DONE)
		ret = store_db_error(err, st, "cannot read counts");
	return ret;
}

int store_run_raw(struct strbuf *out, int *found, struct store *st, int64_t run_id,
		  struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_COUNTERS_RUN_RAW, err);
	if (!s)
		return BL_EDB;
	store_bind_int64(s, 1, run_id);
	return store_query_bytes(found, out, st, s, "cannot read a run", err);
}

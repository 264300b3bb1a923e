/*
 * Data care (docs/cli.md: retag, rm, suspects ignore): the reads retag and rm re-decide runs
 * from, removing a run with what refers to it, and the audit table. The rules themselves are
 * the intake's (ingest/): nothing here decides a tag or which run stands.
 */
#include <stdlib.h>

#include "store/internal.h"
#include "store/store.h"

static const char *const audit_action_names[] = {
    [STORE_AUDIT_RETAG] = "retag",
    [STORE_AUDIT_RM] = "rm",
    [STORE_AUDIT_IGNORE] = "ignore",
};

static void bind_key(struct store_stmt *s, int at, const struct store_key *key)
{
	store_bind_int64(s, at, key->machine_id);
	store_bind_int64(s, at + 1, key->benchmark_id);
	store_bind_text(s, at + 2, key->config);
	store_bind_text(s, at + 3, key->source_hash);
	store_bind_int64(s, at + 4, key->harness_version);
}

static void column_key(struct store_key *key, struct store_stmt *s, int at)
{
	key->machine_id = store_column_int64(s, at, 0);
	key->benchmark_id = store_column_int64(s, at + 1, 0);
	key->config = store_column_text(s, at + 2, "");
	key->source_hash = store_column_text(s, at + 3, "");
	key->harness_version = store_column_int64(s, at + 4, 0);
}

int store_admin_each_run(struct store *st, const struct store_key *key, store_admin_run_fn fn,
			 void *data, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, key ? SQL_ADMIN_KEY_RUNS : SQL_ADMIN_RUNS, err);
	int rc, ret = 0;
	if (!s)
		return BL_EDB;
	if (key)
		bind_key(s, 1, key);
	while ((rc = store_step(s)) == STORE_ROW) {
		struct store_admin_run r;
		r.id = store_column_int64(s, 0, 0);
		column_key(&r.key, s, 1);
		r.keep_first = store_column_int(s, 6);
		r.quietness = store_column_real(s, 7);
		r.tags = store_column_text(s, 8, "");
		r.standing = store_column_int(s, 9);
		r.baseline = store_column_int(s, 10);
		r.raw = store_column_text(s, 11, "");
		if ((ret = fn(&r, data)))
			break;
	}
	if (!ret && rc != STORE_DONE)
		ret = store_db_error(err, st, "cannot read runs");
	store_reset(s);
	return ret;
}

/* Calls fn for each row of a targets statement already bound. */
static int walk_targets(int *found, struct store *st, struct store_stmt *s,
			store_admin_target_fn fn, void *data, struct bl_error *err)
{
	int rc, ret = 0;
	while ((rc = store_step(s)) == STORE_ROW) {
		struct store_admin_target t;
		t.id = store_column_int64(s, 0, 0);
		column_key(&t.key, s, 1);
		t.machine = store_column_text(s, 6, "");
		t.benchmark = store_column_text(s, 7, "");
		t.commit = store_column_text(s, 8, "");
		t.standing = store_column_int(s, 9);
		if (found)
			*found = 1;
		if ((ret = fn(&t, data)))
			break;
	}
	if (!ret && rc != STORE_DONE)
		ret = store_db_error(err, st, "cannot read runs");
	store_reset(s);
	return ret;
}

int store_admin_target(int *found, struct store *st, int64_t run_id, store_admin_target_fn fn,
		       void *data, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_ADMIN_TARGET, err);
	*found = 0;
	if (!s)
		return BL_EDB;
	store_bind_int64(s, 1, run_id);
	return walk_targets(found, st, s, fn, data, err);
}

int store_admin_targets(struct store *st, const char *machine, const char *benchmark,
			const char *commit, store_admin_target_fn fn, void *data,
			struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_ADMIN_TARGETS, err);
	struct strbuf hi = STRBUF_INIT;
	int ret;
	if (!s)
		return BL_EDB;
	store_bind_text(s, 1, machine);
	store_bind_text(s, 2, benchmark);
	if (commit) {
		/* "g" comes after every hex digit: [prefix, prefix + "g") is the prefix's range. */
		strbuf_addstr(&hi, commit);
		strbuf_addch(&hi, 'g');
		store_bind_text(s, 3, commit);
		store_bind_text_copy(s, 4, hi.buf);
	}
	ret = walk_targets(NULL, st, s, fn, data, err);
	strbuf_release(&hi);
	return ret;
}

int store_admin_audit(int64_t *id_out, struct store *st, enum store_audit_action action,
		      const char *who, const char *why, int64_t alert_id, int64_t runs,
		      struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_ADMIN_AUDIT_INSERT, err);
	int ret;
	*id_out = 0;
	if (!s)
		return BL_EDB;
	store_bind_text(s, 1, audit_action_names[action]);
	store_bind_text(s, 2, who);
	store_bind_text(s, 3, why);
	store_bind_id(s, 4, alert_id);
	store_bind_int64(s, 5, runs);
	if ((ret = store_exec(st, s, "cannot record the audit", err)))
		return ret;
	*id_out = store_last_insert_id(st);
	return 0;
}

int store_admin_remove_run(struct store *st, int64_t run_id, int64_t audit_id, struct bl_error *err)
{
	/* What refers to the run goes before it (foreign keys), its copy first of all. */
	static const enum sql_stmt steps[] = {
	    SQL_ADMIN_KEEP_REMOVED, SQL_ADMIN_RM_SUSPECTS, SQL_ADMIN_RM_LINES,
	    SQL_ADMIN_RM_TAGS,	    SQL_ADMIN_RM_METRICS,  SQL_ADMIN_RM_RECORD,
	    SQL_ADMIN_RM_LOG,	    SQL_ADMIN_RM_LOG_RUN,  SQL_ADMIN_RM_RUN,
	};
	struct store_stmt *s;
	int ret;
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		if (!(s = store_stmt(st, steps[i], err)))
			return BL_EDB;
		store_bind_int64(s, 1, run_id);
		if (steps[i] == SQL_ADMIN_KEEP_REMOVED)
			store_bind_int64(s, 2, audit_id);
		if ((ret = store_exec(st, s, "cannot remove a run", err)))
			return ret;
	}
	if (!(s = store_stmt(st, SQL_ADMIN_DETECT_FULL, err)))
		return BL_EDB;
	return store_exec(st, s, "cannot remove a run", err);
}

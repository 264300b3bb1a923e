/*
 * check: the invariants of a stored history (sql/check.sql), on either database. SQLite's
 * quick_check comes first there; PostgreSQL checks its own pages as it reads them.
 */
#include <string.h>

#include "store/internal.h"

int store_check(struct store_check_report *out, struct store *st, store_check_fn fn, void *data,
		struct bl_error *err)
{
	struct store_stmt *s;
	int rc, ret = 0;

	memset(out, 0, sizeof(*out));
	if ((ret = store_begin_read(st, err)))
		return ret;
	if (!(s = store_stmt(st, SQL_CHECK_INTEGRITY, err))) {
		ret = BL_EDB;
		goto done;
	}
	while ((rc = store_step(s)) == STORE_ROW) {
		const char *what = store_column_text(s, 0, "");
		if (!strcmp(what, "ok"))
			continue;
		out->problems++;
		fn(what, 1, data);
	}
	store_reset(s);
	if (rc != STORE_DONE) {
		ret = store_db_error(err, st, "cannot check the database");
		goto done;
	}
	if (!(s = store_stmt(st, SQL_CHECK_INVARIANTS, err))) {
		ret = BL_EDB;
		goto done;
	}
	while ((rc = store_step(s)) == STORE_ROW) {
		int64_t n = store_column_int64(s, 1, 0);
		out->invariants++;
		if (n) {
			out->problems++;
			fn(store_column_text(s, 0, ""), n, data);
		}
	}
	store_reset(s);
	if (rc != STORE_DONE) {
		ret = store_db_error(err, st, "cannot check the invariants");
		goto done;
	}
	if (!(s = store_stmt(st, SQL_CHECK_COUNTS, err))) {
		ret = BL_EDB;
		goto done;
	}
	if ((rc = store_step(s)) == STORE_ROW) {
		out->runs = store_column_int64(s, 0, 0);
		out->records = store_column_int64(s, 1, 0);
		out->metrics = store_column_int64(s, 2, 0);
	}
	store_reset(s);
	if (rc != STORE_ROW)
		ret = store_db_error(err, st, "cannot count the rows");
done:
	store_end_read(st);
	return ret;
}

int store_detect_claim(int *claimed, struct store *st, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_DETECT_CLAIM, err);
	int64_t v = 0;
	int ret;
	*claimed = 0;
	if (!s)
		return BL_EDB;
	if ((ret = store_query_int64(&v, 0, st, s, "cannot claim detection", err)))
		return ret;
	*claimed = v == 1;
	return 0;
}

void store_detect_release(struct store *st)
{
	struct store_stmt *s = store_stmt(st, SQL_DETECT_RELEASE, NULL);
	int64_t v;
	if (s)
		store_query_int64(&v, 0, st, s, "cannot release detection", NULL);
}

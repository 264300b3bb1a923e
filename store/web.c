/*
 * The web server's reads (sql/web.sql): every standing record of one Series, tagged or not,
 * with what its chart and table show, and the Suspects its chart rings.
 */
#include <math.h>
#include <sqlite3.h>
#include <string.h>

#include "store/internal.h"
#include "sql_embed.h"

static const char *text_or(sqlite3_stmt *s, int i, const char *dflt)
{
	const unsigned char *t = sqlite3_column_text(s, i);
	return t ? (const char *)t : dflt;
}

static double num_or_nan(sqlite3_stmt *s, int i)
{
	return sqlite3_column_type(s, i) == SQLITE_NULL ? NAN : sqlite3_column_double(s, i);
}

int store_web_points(struct store *st, const char *machine, const char *benchmark,
		     const char *config, const char *metric, store_web_point_fn fn, void *data,
		     struct bl_error *err)
{
	sqlite3 *db = store_sqlite(st);
	sqlite3_stmt *s = NULL;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(db, SQL_WEB_POINTS, -1, &s, NULL) != SQLITE_OK) {
		ret = bl_error_set(err, BL_EDB, "cannot read a series: %s", sqlite3_errmsg(db));
		goto done;
	}
	sqlite3_bind_text(s, 1, machine, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, benchmark, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, config, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 4, metric, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_web_point p;
		double median = num_or_nan(s, 9), value = num_or_nan(s, 10);
		p.run_id = sqlite3_column_int64(s, 0);
		p.commit = text_or(s, 1, "");
		p.source_hash = text_or(s, 2, "");
		p.place = sqlite3_column_double(s, 3);
		p.seq = p.place >= 0 && p.place == floor(p.place) ? (int64_t)p.place : -1;
		p.harness_version = sqlite3_column_int64(s, 4);
		p.content_hash = text_or(s, 5, NULL);
		p.baseline = sqlite3_column_int(s, 6);
		p.tags = text_or(s, 7, "");
		p.value = !strcmp(text_or(s, 8, ""), "timed") && !isnan(median) ? median : value;
		p.pr = sqlite3_column_type(s, 11) == SQLITE_NULL ? 0 : sqlite3_column_int64(s, 11);
		if (fn(&p, data))
			goto done;
	}
	if (rc != SQLITE_DONE)
		ret = bl_error_set(err, BL_EDB, "cannot read a series: %s", sqlite3_errmsg(db));
done:
	sqlite3_finalize(s);
	return ret;
}

int store_web_data_version(int64_t *out, struct store *st, struct bl_error *err)
{
	sqlite3 *db = store_sqlite(st);
	sqlite3_stmt *s = NULL;
	int ret = 0;
	if (sqlite3_prepare_v2(db, SQL_WEB_DATA_VERSION, -1, &s, NULL) != SQLITE_OK ||
	    sqlite3_step(s) != SQLITE_ROW)
		ret = bl_error_set(err, BL_EDB, "cannot read data_version: %s", sqlite3_errmsg(db));
	else
		*out = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return ret;
}

int store_web_suspects(struct store *st, const char *machine, const char *benchmark,
		       const char *config, const char *metric, store_web_suspect_fn fn, void *data,
		       struct bl_error *err)
{
	sqlite3 *db = store_sqlite(st);
	sqlite3_stmt *s = NULL;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(db, SQL_WEB_SERIES_SUSPECTS, -1, &s, NULL) != SQLITE_OK) {
		ret = bl_error_set(err, BL_EDB, "cannot read Suspects: %s", sqlite3_errmsg(db));
		goto done;
	}
	sqlite3_bind_text(s, 1, machine, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, benchmark, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, config, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 4, metric, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_web_suspect x;
		x.id = sqlite3_column_int64(s, 0);
		x.run_id = sqlite3_column_int64(s, 1);
		x.side = text_or(s, 2, "");
		x.shift = num_or_nan(s, 3);
		x.state = text_or(s, 4, "");
		if (fn(&x, data))
			goto done;
	}
	if (rc != SQLITE_DONE)
		ret = bl_error_set(err, BL_EDB, "cannot read Suspects: %s", sqlite3_errmsg(db));
done:
	sqlite3_finalize(s);
	return ret;
}

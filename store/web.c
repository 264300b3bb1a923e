/*
 * The web server's reads (sql/web.sql): every standing record of one Series, tagged or not,
 * with what its chart and table show, and the Suspects its chart rings.
 */
#include <math.h>
#include <sqlite3.h>
#include <string.h>

#include "store/internal.h"
#include "sql_embed.h"

/* Binds a Series' names (machine, benchmark, config, metric) to parameters 1 to 4. */
static void bind_series(sqlite3_stmt *s, const char *machine, const char *benchmark,
			const char *config, const char *metric)
{
	store_bind_text(s, 1, machine);
	store_bind_text(s, 2, benchmark);
	store_bind_text(s, 3, config);
	store_bind_text(s, 4, metric);
}

int store_web_points(struct store *st, const char *machine, const char *benchmark,
		     const char *config, const char *metric, store_web_point_fn fn, void *data,
		     struct bl_error *err)
{
	sqlite3_stmt *s = store_stmt(st, SQL_WEB_POINTS, err);
	int rc, ret = 0;

	if (!s)
		return BL_EDB;
	bind_series(s, machine, benchmark, config, metric);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_web_point p;
		double median = store_column_real(s, 9), value = store_column_real(s, 10);
		enum metric_kind kind;
		if ((ret = store_column_kind(&kind, st, s, 8, err)))
			break;
		p.run_id = sqlite3_column_int64(s, 0);
		p.commit = store_column_text(s, 1, "");
		p.source_hash = store_column_text(s, 2, "");
		p.place = sqlite3_column_double(s, 3);
		p.seq = store_place_seq(p.place);
		p.harness_version = sqlite3_column_int64(s, 4);
		p.content_hash = store_column_text(s, 5, NULL);
		p.baseline = sqlite3_column_int(s, 6);
		p.tags = store_column_text(s, 7, "");
		p.value = kind == METRIC_TIMED && !isnan(median) ? median : value;
		p.pr = store_column_int64(s, 11, 0);
		if (fn(&p, data)) {
			rc = SQLITE_DONE;
			break;
		}
	}
	if (!ret && rc != SQLITE_DONE)
		ret = store_db_error(err, st, "cannot read a series");
	sqlite3_reset(s);
	return ret;
}

int store_web_data_version(int64_t *out, struct store *st, struct bl_error *err)
{
	sqlite3_stmt *s = store_stmt(st, SQL_WEB_DATA_VERSION, err);
	if (!s)
		return BL_EDB;
	return store_query_int64(out, 0, st, s, "cannot read data_version", err);
}

int store_web_suspects(struct store *st, const char *machine, const char *benchmark,
		       const char *config, const char *metric, store_web_suspect_fn fn, void *data,
		       struct bl_error *err)
{
	sqlite3_stmt *s = store_stmt(st, SQL_WEB_SERIES_SUSPECTS, err);
	int rc, ret = 0;

	if (!s)
		return BL_EDB;
	bind_series(s, machine, benchmark, config, metric);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_web_suspect x;
		x.id = sqlite3_column_int64(s, 0);
		x.run_id = sqlite3_column_int64(s, 1);
		x.shift = store_column_real(s, 3);
		if ((ret = store_column_side(&x.side, st, s, 2, err)) ||
		    (ret = store_column_state(&x.state, st, s, 4, err)))
			break;
		if (fn(&x, data)) {
			rc = SQLITE_DONE;
			break;
		}
	}
	if (!ret && rc != SQLITE_DONE)
		ret = store_db_error(err, st, "cannot read Suspects");
	sqlite3_reset(s);
	return ret;
}

/*
 * The web server's reads (sql/web.sql): every standing record of one Series, tagged or not,
 * with what its chart and table show, and the Suspects its chart rings; the overview's
 * sparklines and header; the Suspects page's rows.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store/internal.h"
#include "sql_embed.h"

/* Statement id with a Series' names (machine, benchmark, config, metric) bound to parameters
 * 1 to 4; NULL (err set) when it cannot be prepared. */
static struct store_stmt *series_stmt(struct store *st, enum sql_stmt id, const char *machine,
				      const char *benchmark, const char *config, const char *metric,
				      struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, id, err);
	if (!s)
		return NULL;
	store_bind_text(s, 1, machine);
	store_bind_text(s, 2, benchmark);
	store_bind_text(s, 3, config);
	store_bind_text(s, 4, metric);
	return s;
}

/* A point's spread: its samples' range when it kept two or more, else median to p95. */
static void set_spread(struct store_web_point *p, enum metric_kind kind, double p95,
		       struct store_stmt *s, int samples_col)
{
	const unsigned char *blob = store_column_blob(s, samples_col);
	size_t bytes = (size_t)store_column_bytes(s, samples_col), n = 0;
	double *samples = blob ? store_decode_samples(blob, bytes, &n) : NULL;
	p->spread = STORE_SPREAD_NONE;
	p->spread_lo = p->spread_hi = NAN;
	if (n >= 2) {
		double lo = samples[0], hi = samples[0];
		for (size_t i = 1; i < n; i++) {
			lo = samples[i] < lo ? samples[i] : lo;
			hi = samples[i] > hi ? samples[i] : hi;
		}
		p->spread = STORE_SPREAD_SAMPLES;
		p->spread_lo = lo;
		p->spread_hi = hi;
	} else if (kind == METRIC_TIMED && !isnan(p95) && !isnan(p->value)) {
		p->spread = STORE_SPREAD_P95;
		p->spread_lo = p->value;
		p->spread_hi = p95;
	}
	free(samples);
}

int store_web_points(struct store *st, const char *machine, const char *benchmark,
		     const char *config, const char *metric, store_web_point_fn fn, void *data,
		     struct bl_error *err)
{
	struct store_stmt *s =
	    series_stmt(st, SQL_WEB_POINTS, machine, benchmark, config, metric, err);
	int rc, ret = 0;

	if (!s)
		return BL_EDB;
	while ((rc = store_step(s)) == STORE_ROW) {
		struct store_web_point p;
		double median = store_column_real(s, 9), value = store_column_real(s, 10);
		enum metric_kind kind;
		if ((ret = store_column_kind(&kind, st, s, 8, err)))
			break;
		p.run_id = store_column_int64(s, 0, 0);
		p.commit = store_column_text(s, 1, "");
		p.source_hash = store_column_text(s, 2, "");
		p.place = store_column_double(s, 3);
		p.seq = store_place_seq(p.place);
		p.harness_version = store_column_int64(s, 4, 0);
		p.content_hash = store_column_text(s, 5, NULL);
		p.baseline = store_column_int(s, 6);
		p.tags = store_column_text(s, 7, "");
		p.value = metric_judged_value(kind, median, value);
		p.pr = store_column_int64(s, 11, 0);
		p.subject = store_column_text(s, 14, NULL);
		p.date = store_column_double(s, 15);
		set_spread(&p, kind, store_column_real(s, 12), s, 13);
		if (fn(&p, data)) {
			rc = STORE_DONE;
			break;
		}
	}
	if (!ret && rc != STORE_DONE)
		ret = store_db_error(err, st, "cannot read a series");
	store_reset(s);
	return ret;
}

int store_web_data_version(int64_t *out, struct store *st, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_WEB_DATA_VERSION, err);
	if (!s)
		return BL_EDB;
	return store_query_int64(out, 0, st, s, "cannot read data_version", err);
}

int store_web_suspects(struct store *st, const char *machine, const char *benchmark,
		       const char *config, const char *metric, store_web_suspect_fn fn, void *data,
		       struct bl_error *err)
{
	struct store_stmt *s =
	    series_stmt(st, SQL_WEB_SERIES_SUSPECTS, machine, benchmark, config, metric, err);
	int rc, ret = 0;

	if (!s)
		return BL_EDB;
	while ((rc = store_step(s)) == STORE_ROW) {
		struct store_web_suspect x;
		x.id = store_column_int64(s, 0, 0);
		x.run_id = store_column_int64(s, 1, 0);
		x.shift = store_column_real(s, 3);
		if ((ret = store_column_side(&x.side, st, s, 2, err)) ||
		    (ret = store_column_state(&x.state, st, s, 4, err)) ||
		    (ret = store_column_suspect_kind(&x.kind, st, s, 5, err)))
			break;
		if (fn(&x, data)) {
			rc = STORE_DONE;
			break;
		}
	}
	if (!ret && rc != STORE_DONE)
		ret = store_db_error(err, st, "cannot read Suspects");
	store_reset(s);
	return ret;
}

int store_web_recent_values(double **out, size_t *n_out, struct store *st, const char *machine,
			    const char *benchmark, const char *config, const char *metric,
			    size_t limit, struct bl_error *err)
{
	struct store_stmt *s =
	    series_stmt(st, SQL_WEB_RECENT_VALUES, machine, benchmark, config, metric, err);
	double *v = NULL;
	size_t n = 0, alloc = 0;
	int rc, ret = 0;

	*out = NULL;
	*n_out = 0;
	if (!s)
		return BL_EDB;
	store_bind_int64(s, 5, limit);
	while ((rc = store_step(s)) == STORE_ROW) {
		ALLOC_GROW(v, n, alloc);
		v[n++] = store_column_real(s, 0);
	}
	if (rc != STORE_DONE) {
		ret = store_db_error(err, st, "cannot read a series");
		free(v);
		v = NULL;
		n = 0;
	}
	store_reset(s);
	/* Read newest first (the limit keeps the newest): handed back oldest first. */
	for (size_t i = 0; i < n / 2; i++) {
		double t = v[i];
		v[i] = v[n - 1 - i];
		v[n - 1 - i] = t;
	}
	*out = v;
	*n_out = n;
	return ret;
}

int store_web_summary(struct store_web_summary *out, struct store *st, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_WEB_SUMMARY, err);
	int rc, ret = 0;

	memset(out, 0, sizeof(*out));
	out->last_stored = NAN;
	if (!s)
		return BL_EDB;
	store_bind_text(s, 1, suspect_state_name(SUSPECT_OPEN));
	if ((rc = store_step(s)) == STORE_ROW) {
		out->open_alerts = store_column_int64(s, 0, 0);
		out->regressions = store_column_int64(s, 1, 0);
		out->machines = store_column_int64(s, 2, 0);
		out->last_stored = store_column_real(s, 3);
	} else {
		ret = store_db_error(err, st, "cannot read the summary");
	}
	store_reset(s);
	return ret;
}

int store_web_suspect_rows(struct store *st, store_web_suspect_row_fn fn, void *data,
			   struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_WEB_SUSPECT_ROWS, err);
	int rc, ret = 0;

	if (!s)
		return BL_EDB;
	while ((rc = store_step(s)) == STORE_ROW) {
		struct store_web_suspect_row x;
		x.id = store_column_int64(s, 0, 0);
		x.alert_id = store_column_int64(s, 1, 0);
		x.machine = store_column_text(s, 2, "");
		x.benchmark = store_column_text(s, 3, "");
		x.config = store_column_text(s, 4, "");
		x.metric = store_column_text(s, 5, "");
		x.commit = store_column_text(s, 6, "");
		x.seq = store_place_seq(store_column_double(s, 7));
		x.subject = store_column_text(s, 8, NULL);
		x.date = store_column_double(s, 9);
		x.shift = store_column_real(s, 11);
		x.center = store_column_real(s, 12);
		x.tolerance = store_column_real(s, 13);
		x.unit = store_column_text(s, 15, "");
		if ((ret = store_column_side(&x.side, st, s, 10, err)) ||
		    (ret = store_column_state(&x.state, st, s, 14, err)) ||
		    (ret = store_column_suspect_kind(&x.kind, st, s, 16, err)))
			break;
		if (fn(&x, data)) {
			rc = STORE_DONE;
			break;
		}
	}
	if (!ret && rc != STORE_DONE)
		ret = store_db_error(err, st, "cannot read Suspects");
	store_reset(s);
	return ret;
}

int store_web_commit(struct store_web_commit *out, struct store *st, const char *sha,
		     struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_WEB_COMMIT, err);
	int rc, ret = 0;

	memset(out, 0, sizeof(*out));
	out->seq = -1;
	if (!s)
		return BL_EDB;
	store_bind_text(s, 1, sha);
	if ((rc = store_step(s)) == STORE_ROW) {
		const char *subject = store_column_text(s, 1, NULL);
		out->seq = store_column_int64(s, 0, -1);
		out->subject = subject && *subject ? xstrdup(subject) : NULL;
	} else if (rc != STORE_DONE) {
		ret = store_db_error(err, st, "cannot read commits");
	}
	store_reset(s);
	return ret;
}

void store_web_commit_release(struct store_web_commit *c)
{
	free(c->subject);
	c->subject = NULL;
}

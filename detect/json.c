/* Series, records and Suspects as JSON (§14): one builder each, for every command and page
 * that lists them, so the API and the CLI print the same documents. */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "store/store.h"
#include "detect/detect.h"

json_t *detect_suspect_json(const struct store_suspect *s)
{
	json_t *o = json_object();
	json_object_set_new(o, "id", json_integer(s->id));
	json_object_set_new(o, "machine", json_string(s->machine));
	json_object_set_new(o, "benchmark", json_string(s->benchmark));
	json_object_set_new(o, "config", json_string(s->config));
	json_object_set_new(o, "metric", json_string(s->metric));
	json_object_set_new(o, "commit", s->commit[0] ? json_string(s->commit) : json_null());
	json_object_set_new(o, "source_hash",
			    s->source_hash[0] ? json_string(s->source_hash) : json_null());
	json_object_set_new(o, "seq", s->seq >= 0 ? json_integer(s->seq) : json_null());
	json_object_set_new(o, "side", json_string(suspect_side_name(s->side)));
	json_object_set_new(o, "kind", json_string(suspect_kind_name(s->kind)));
	json_object_set_new(o, "shift", json_real_or_null(s->shift));
	json_object_set_new(o, "center", json_real_or_null(s->center));
	json_object_set_new(o, "tolerance", json_real_or_null(s->tolerance));
	json_object_set_new(o, "state", json_string(suspect_state_name(s->state)));
	return o;
}

/* ["band"], ["change-point"] or ["band", "change-point"]: which opinions marked an alert's
 * Suspects. */
static json_t *alert_kinds_json(const struct store_alert *a)
{
	json_t *kinds = json_array();
	if (a->by_band)
		json_array_append_new(kinds, json_string(suspect_kind_name(SUSPECT_BAND)));
	if (a->by_change_point)
		json_array_append_new(kinds, json_string(suspect_kind_name(SUSPECT_CHANGE_POINT)));
	return kinds;
}

json_t *detect_alert_json(const struct store_alert *a, json_t *suspect_ids)
{
	json_t *o = json_object();
	json_object_set_new(o, "id", json_integer(a->id));
	json_object_set_new(o, "machine", json_string(a->machine));
	json_object_set_new(o, "commit", json_string(a->commit));
	json_object_set_new(o, "reference_commit", json_string_or_null(a->reference_commit));
	json_object_set_new(o, "side", json_string(suspect_side_name(a->side)));
	json_object_set_new(o, "run_wide", json_boolean(a->run_wide));
	json_object_set_new(o, "state", json_string(suspect_state_name(a->state)));
	json_object_set_new(o, "outcome", json_string_or_null(alert_outcome_name(a->outcome)));
	json_object_set_new(o, "suspects", suspect_ids ? suspect_ids : json_array());
	json_object_set_new(o, "kinds", alert_kinds_json(a));
	json_object_set_new(o, "series", json_integer(a->series));
	json_object_set_new(o, "judged_series",
			    a->judged_series >= 0 ? json_integer(a->judged_series) : json_null());
	json_object_set_new(o, "filed_url", json_string_or_null(a->filed_url));
	return o;
}

int detect_alert_json_read(json_t **out, struct store *st, const struct store_alert *a,
			   struct bl_error *err)
{
	int64_t *ids;
	size_t n;
	json_t *arr;
	int ret;
	*out = NULL;
	if ((ret = store_alert_suspect_ids(&ids, &n, st, a->id, err)))
		return ret;
	arr = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, json_integer(ids[i]));
	free(ids);
	*out = detect_alert_json(a, arr);
	return 0;
}

static json_t *line_json(const struct store_series_line *l)
{
	json_t *o = json_object();
	json_object_set_new(o, "start_commit",
			    l->start_commit[0] ? json_string(l->start_commit) : json_null());
	json_object_set_new(o, "start_seq",
			    l->start_seq >= 0 ? json_integer(l->start_seq) : json_null());
	json_object_set_new(o, "reason", json_string(line_break_name(l->reason)));
	json_object_set_new(o, "records", json_integer(l->records));
	return o;
}

json_t *detect_series_json(const struct store_series *s, json_t *open_suspects)
{
	json_t *o = json_object(), *lines = json_array();
	json_object_set_new(o, "id", json_string(s->id));
	json_object_set_new(o, "machine", json_string(s->machine));
	json_object_set_new(o, "benchmark", json_string(s->benchmark));
	json_object_set_new(o, "config", json_string(s->config));
	json_object_set_new(o, "metric", json_string(s->metric));
	json_object_set_new(o, "kind", json_string(metric_kind_name(s->kind)));
	json_object_set_new(o, "unit", json_string(s->unit));
	json_object_set_new(o, "better", json_string(metric_better_name(s->better_higher)));
	json_object_set_new(o, "records", json_integer(s->records));
	for (size_t i = 0; i < s->nlines; i++)
		json_array_append_new(lines, line_json(&s->lines[i]));
	json_object_set_new(o, "lines", lines);
	json_object_set_new(o, "last_value",
			    isnan(s->last_value) ? json_null() : json_real(s->last_value));
	json_object_set_new(o, "last_commit",
			    s->last_commit[0] ? json_string(s->last_commit) : json_null());
	/* Detection (§6) gives the open Suspects (null until it has ever run); bisection (§9.3)
	 * the Regressions stored on the Series. */
	json_object_set_new(o, "open_suspects", open_suspects ? open_suspects : json_null());
	json_object_set_new(o, "regressions", json_integer(s->regressions));
	return o;
}

int detect_series_json_read(json_t **out, struct store_detect *detect, const struct store_series *s,
			    struct bl_error *err)
{
	json_t *open = NULL;
	int64_t n;
	int ret;
	*out = NULL;
	if (detect) {
		if ((ret = store_open_suspects(&n, detect, s->machine, s->benchmark, s->config,
					       s->metric, err)))
			return ret;
		open = json_integer(n);
	}
	*out = detect_series_json(s, open);
	return 0;
}

json_t *detect_record_json(const struct store_record_row *row)
{
	json_t *o = json_object(), *tags = json_array(), *metrics = json_object();
	json_object_set_new(o, "id", json_integer(row->id));
	json_object_set_new(o, "machine", json_string(row->machine));
	json_object_set_new(o, "benchmark", json_string(row->benchmark));
	json_object_set_new(o, "config", json_string(row->config));
	json_object_set_new(o, "source_hash", json_string(row->source_hash));
	json_object_set_new(o, "harness_version", json_integer(row->harness_version));
	json_object_set_new(o, "commit", json_string(row->commit));
	json_object_set_new(o, "seq", row->seq >= 0 ? json_integer(row->seq) : json_null());
	json_object_set_new(o, "started_at", json_time_or_null(row->started_at));
	json_object_set_new(o, "committed_at", json_time_or_null(row->committed_at));
	json_object_set_new(o, "content_hash",
			    row->content_hash ? json_string(row->content_hash) : json_null());
	json_object_set_new(o, "baseline", json_boolean(row->baseline));
	json_object_set_new(o, "standing", json_boolean(row->standing));
	for (size_t i = 0; i < row->ntags; i++)
		json_array_append_new(tags, json_string(row->tags[i]));
	json_object_set_new(o, "tags", tags);
	for (size_t i = 0; i < row->nmetrics; i++) {
		const struct store_record_metric *m = &row->metrics[i];
		json_t *mo = json_object();
		json_object_set_new(mo, "kind", json_string(metric_kind_name(m->kind)));
		json_object_set_new(mo, "unit", json_string(m->unit));
		json_object_set_new(mo, "better",
				    json_string(metric_better_name(m->better_higher)));
		json_object_set_new(mo, "median", json_real_or_null(m->median));
		json_object_set_new(mo, "p95", json_real_or_null(m->p95));
		json_object_set_new(mo, "n", m->n >= 0 ? json_integer(m->n) : json_null());
		json_object_set_new(mo, "value", json_real_or_null(m->value));
		json_object_set_new(mo, "samples", json_integer((json_int_t)m->nsamples));
		json_object_set_new(metrics, m->name, mo);
	}
	json_object_set_new(o, "metrics", metrics);
	return o;
}

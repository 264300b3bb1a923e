/*
 * Regressions (§9.3): the commit a bisection pinned, stored on the Series it was judged by, with
 * the measurement that pinned it and the whole probe log. `benchline bisect` stores one for the
 * key its pinned probe found slower; confirm stores one per Series of the alert it bisected,
 * through the same function.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "detect/confirm/confirm.h"
#include "ingest/config/config.h"
#include "ingest/repo/repo.h"
#include "store/store.h"

int confirm_store_regression(int64_t *id_out, int *added, struct store *st,
			     const struct confirm_bisect_report *r, const char *machine,
			     const char *benchmark, const char *config, const char *metric,
			     int64_t alert_id, struct bl_error *err)
{
	const struct confirm_probe *p = confirm_bisect_pinned_probe(r);
	struct store_regression reg;
	json_t *report = NULL;
	char *probes = NULL, *profile = NULL;
	int ret;

	*id_out = 0;
	if (added)
		*added = 0;
	if (r->outcome != CONFIRM_PINNED) {
		ret = bl_error_set(err, BL_EINVALID, "the bisection pinned no commit (%s)",
				   confirm_bisect_outcome_name(r->outcome));
		goto done;
	}
	report = confirm_bisect_json(r);
	probes = json_write_text(json_object_get(report, "probes"), 0);
	if (r->profile)
		profile = json_write_text(json_object_get(report, "profile"), JSON_WRITE_SORT_KEYS);
	memset(&reg, 0, sizeof(reg));
	reg.alert_id = alert_id;
	reg.machine = machine;
	reg.benchmark = benchmark;
	reg.config = config ? config : "";
	reg.metric = metric;
	reg.commit = r->pinned.sha;
	reg.source_hash = r->pinned.source_hash;
	reg.subject = r->subject;
	reg.pr = r->pr;
	reg.ratio = p ? p->ratio : NAN;
	reg.lo = p ? p->lo : NAN;
	reg.hi = p ? p->hi : NAN;
	reg.reference_commit = r->good.commit;
	reg.probes = probes ? probes : "[]";
	reg.profile = profile;
	ret = store_regression_add(id_out, added, st, &reg, err);
done:
	free(probes);
	free(profile);
	json_decref(report);
	return ret;
}

int confirm_machine(struct strbuf *out, const char *flag, const char *repo, struct bl_error *err)
{
	struct config cfg;
	struct strbuf root = STRBUF_INIT;
	int ret;
	config_init(&cfg);
	if (!flag && ((ret = repo_toplevel(&root, repo ? repo : ".", err)) ||
		      (ret = config_load(&cfg, root.buf, err))))
		goto done;
	ret = config_machine(out, flag, &cfg, err);
done:
	config_release(&cfg);
	strbuf_release(&root);
	return ret;
}

int confirm_bisect_store(int64_t *id_out, int *added, struct strbuf *series_out, struct store *st,
			 const struct confirm_bisect_report *r, const char *machine,
			 struct bl_error *err)
{
	const struct confirm_probe *p = confirm_bisect_pinned_probe(r);
	int ret;

	*id_out = 0;
	if (added)
		*added = 0;
	if (!p || !p->benchmark)
		return bl_error_set(err, BL_EINVALID, "the bisection pinned no commit (%s)",
				    confirm_bisect_outcome_name(r->outcome));
	/* an instruction count's Series is its counter key's, not this host's (§9.6) */
	if (r->counter_machine[0] && p->metric && !strcmp(p->metric, METRIC_INSTRUCTIONS))
		machine = r->counter_machine;
	if ((ret = confirm_store_regression(id_out, added, st, r, machine, p->benchmark, p->config,
					    p->metric, 0, err)))
		return ret;
	if (series_out)
		store_series_id(series_out, machine, p->benchmark, p->config, p->metric);
	return 0;
}

json_t *confirm_regression_json(const struct store_regression *r)
{
	json_t *o = json_object(), *probes, *profile;
	json_object_set_new(o, "id", json_integer(r->id));
	json_object_set_new(o, "alert", r->alert_id ? json_integer(r->alert_id) : json_null());
	json_object_set_new(o, "machine", json_string(r->machine));
	json_object_set_new(o, "benchmark", json_string(r->benchmark));
	json_object_set_new(o, "config", json_string(r->config));
	json_object_set_new(o, "metric", json_string(r->metric));
	json_object_set_new(o, "commit", json_string(r->commit));
	json_object_set_new(o, "seq", r->seq >= 0 ? json_integer(r->seq) : json_null());
	json_object_set_new(o, "source_hash", json_string(r->source_hash));
	json_object_set_new(o, "subject", json_string_or_null(r->subject));
	json_object_set_new(o, "pull_request", r->pr > 0 ? json_integer(r->pr) : json_null());
	json_object_set_new(o, "ratio", json_real_or_null(r->ratio));
	json_object_set_new(o, "interval",
			    isfinite(r->lo) && isfinite(r->hi) ? json_pack("[f, f]", r->lo, r->hi)
							       : json_null());
	json_object_set_new(o, "reference_commit", json_string(r->reference_commit));
	json_object_set_new(o, "filed_url", json_string_or_null(r->filed_url));
	json_object_set_new(o, "created_at", json_time_or_null(r->created_at));
	/* The probe log as bisect printed it; a text that is not a JSON array (edited by hand)
	 * is null rather than a made-up log. */
	probes = json_loads(r->probes ? r->probes : "[]", JSON_DECODE_ANY, NULL);
	if (!json_is_array(probes)) {
		json_decref(probes);
		probes = json_null();
	}
	json_object_set_new(o, "probes", probes);
	/* §9.7: where the extra instructions went, as bisection found it; null when none (or
	 * not an object: edited by hand) */
	profile = r->profile ? json_loads(r->profile, 0, NULL) : NULL;
	if (!json_is_object(profile)) {
		json_decref(profile);
		profile = json_null();
	}
	json_object_set_new(o, "profile", profile);
	return o;
}

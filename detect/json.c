/* Suspects as JSON (§14), for every command and page that lists them. */
#include <jansson.h>
#include <math.h>

#include "../store/store.h"
#include "detect.h"

static json_t *real_or_null(double v)
{
	return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

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
	json_object_set_new(o, "side", json_string(s->side));
	json_object_set_new(o, "shift", real_or_null(s->shift));
	json_object_set_new(o, "center", real_or_null(s->center));
	json_object_set_new(o, "tolerance", real_or_null(s->tolerance));
	json_object_set_new(o, "state", json_string(s->state));
	return o;
}

/*
 * libFuzzer target for one of asv's results files (benchline import --from asv), read as the
 * directory walk reads each, against a benchmarks.json describing a time benchmark with two
 * parameter values, a peakmem and a track benchmark: the shared body is in fuzz_history.h.
 */
#include <jansson.h>

#include "ingest/adapters/adapters.h"

static int read_results(struct ingest_history *h, const char *name, const char *text, size_t len,
			struct bl_error *err)
{
	static json_t *benchmarks;
	if (!benchmarks)
		benchmarks = json_loads(
		    "{\"t\": {\"type\": \"time\", \"unit\": \"seconds\", \"params\": [[\"1\", "
		    "\"2\"]], "
		    "\"param_names\": [\"n\"], \"version\": \"v1\"}, \"m\": {\"type\": "
		    "\"peakmem\", "
		    "\"unit\": \"bytes\", \"params\": [], \"param_names\": []}, \"k\": {\"type\": "
		    "\"track\", \"unit\": \"items\", \"params\": [], \"param_names\": []}}",
		    0, NULL);
	return adapters_asv_results_file(h, name, text, len, "box", "{\"cpu\":\"x\"}", benchmarks,
					 err);
}

#define READ read_results
#include "fuzz_history.h"

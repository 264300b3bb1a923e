/*
 * Regressions (§9.3): GET /api/regressions, `benchline regressions --json`, or the Regressions
 * its filters take (machine, benchmark, a commit's prefix, an alert).
 */
#include <string.h>

#include "detect/confirm/confirm.h"
#include "web/web.h"

static int regressions_one(const struct store_regression *g, void *data)
{
	web_json_list_add(data, confirm_regression_json(g));
	return 0;
}

static int regressions_each(struct web_json_list *l)
{
	return store_each_regression_filtered(l->st, l->filter, regressions_one, l, l->err);
}

/* Never cached: each answer is for its own query. */
int web_api_regressions(struct web_reply *r, const struct web_request *req, struct bl_error *err)
{
	static const char *const params[] = {"machine", "benchmark", "commit", "alert", NULL};
	struct strbuf b1 = STRBUF_INIT, b2 = STRBUF_INIT, b3 = STRBUF_INIT;
	struct store_regression_filter f;
	int ret = 0;

	memset(&f, 0, sizeof(f));
	if (web_check_params(r, req, params) ||
	    web_param_machine(&f.machine, &b1, r, req, "machine") ||
	    web_param_string(&f.benchmark, &b2, r, req, "benchmark") ||
	    web_param_hex_prefix(&f.commit, &b3, r, req, "commit") ||
	    web_param_int(&f.alert_id, r, req, "alert", 1, INT64_MAX))
		goto done;
	if (f.benchmark && !*f.benchmark)
		f.benchmark = NULL;
	ret = web_json_list(r, req->st, &f, regressions_each, err);
done:
	strbuf_release(&b1);
	strbuf_release(&b2);
	strbuf_release(&b3);
	return ret;
}

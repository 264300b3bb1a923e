#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect/confirm/confirm.h"
#include "store/store.h"
#include "cli/cli.h"

/* The text table's columns. */
enum {
	COL_ID,
	COL_MACHINE,
	COL_BENCHMARK,
	COL_CONFIG,
	COL_METRIC,
	COL_COMMIT,
	COL_PR,
	COL_DELTA,
	COL_INTERVAL,
	COL_FILED,
	NCOL
};

static const char *const col_names[NCOL] = {"id",     "machine", "benchmark", "config",	  "metric",
					    "commit", "pr",	 "delta",     "interval", "filed"};

struct regressions_out {
	int json;
	size_t count;
	struct cli_table table;	     /* text mode */
	struct cli_json_array array; /* --json */
};

static int each_regression(const struct store_regression *r, void *data)
{
	struct regressions_out *out = data;
	struct strbuf sb = STRBUF_INIT;
	out->count++;
	if (out->json) {
		cli_json_array_add(&out->array, confirm_regression_json(r));
		return 0;
	}
	cli_table_row(&out->table);
	cli_table_add(&out->table, "%lld", (long long)r->id);
	cli_table_add(&out->table, "%s", r->machine);
	cli_table_add(&out->table, "%s", r->benchmark);
	cli_table_add(&out->table, "%s", r->config[0] ? r->config : "-");
	cli_table_add(&out->table, "%s", r->metric);
	cli_table_add(&out->table, "%.12s", r->commit);
	if (r->pr > 0)
		cli_table_add(&out->table, "#%lld", (long long)r->pr);
	else
		cli_table_add(&out->table, "-");
	strbuf_add_change(&sb, r->ratio, "-");
	cli_table_add(&out->table, "%s", sb.buf);
	strbuf_reset(&sb);
	strbuf_add_change_interval(&sb, r->lo, r->hi, "-");
	cli_table_add(&out->table, "%s", sb.buf);
	cli_table_add(&out->table, "%s", r->filed_url ? r->filed_url : "-");
	strbuf_release(&sb);
	return 0;
}

/* benchline regressions [--json]: every Regression bisection stored (§9.3, §14). */
int cmd_regressions(int argc, const char **argv, struct cli_ctx *ctx)
{
	struct regressions_out out;
	struct bl_error err = BL_ERROR_INIT;
	int ret;
	const struct cli_option opts[] = {
	    {OPT_BOOL, "json", &out.json, NULL, "print one JSON array"},
	    {OPT_END, NULL, NULL, NULL, NULL},
	};
	memset(&out, 0, sizeof(out));
	/* Ids align right, the rest left. */
	cli_table_init(&out.table, col_names, NCOL, "r......rr.");
	if (cli_parse(argc, argv, opts, ctx))
		cli_usage_error(ctx->cmd, opts, "regressions takes no arguments");
	if (out.json)
		cli_json_array_start(&out.array);
	ret = store_each_regression(ctx->store, 0, each_regression, &out, &err);
	if (out.json)
		cli_json_array_end(&out.array);
	else if (!ret && out.count)
		cli_table_print(&out.table, stdout);
	else if (!ret)
		fputs("no regressions (bisect stores one when it pins a commit)\n", stderr);
	if (ret)
		ret = cli_fail(&err);
	cli_table_release(&out.table);
	bl_error_release(&err);
	return ret;
}

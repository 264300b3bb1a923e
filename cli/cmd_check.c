#include <inttypes.h>
#include <stdio.h>

#include "store/store.h"
#include "cli/cli.h"

static void show_problem(const char *what, int64_t rows, void *data)
{
	(void)data;
	cli_printf(stdout, "problem: %s (%" PRId64 " rows)\n", what, rows);
}

int cmd_check(int argc, const char **argv, struct cli_ctx *ctx)
{
	static const struct cli_option opts[] = {{OPT_END, NULL, NULL, NULL, NULL}};
	struct bl_error err = BL_ERROR_INIT;
	struct store_check_report report;

	if (cli_parse(argc, argv, opts, ctx))
		cli_usage_error(ctx->cmd, opts, "check takes no arguments");
	if (store_check(&report, ctx->store, show_problem, NULL, &err)) {
		cli_fail(&err);
		bl_error_release(&err);
		return 2;
	}
	if (report.problems) {
		cli_error("%d of %d checks failed in '%s'", report.problems, report.invariants + 1,
			  store_name(ctx->store));
		return 1;
	}
	printf("ok: %" PRId64 " runs, %" PRId64 " standing records, %" PRId64
	       " metrics; %d invariants hold\n",
	       report.runs, report.records, report.metrics, report.invariants);
	return 0;
}

#include <stdio.h>

#include "cli/cli.h"

int cmd_ingest(int argc, const char **argv, struct cli_ctx *ctx)
{
	struct cli_intake in;
	int ret;

	cli_intake_init(&in);
	const struct cli_option opts[] = {
	    CLI_INTAKE_OPTIONS(&in),
	    {OPT_END, NULL, NULL, NULL, NULL},
	};
	argc = cli_parse(argc, argv, opts, ctx);
	if (!argc)
		cli_usage_error(ctx->cmd, opts, "no file to ingest");
	ret = cli_intake_files(&in, ctx, argc, argv, NULL);
	cli_intake_release(&in);
	return ret;
}

#include <stdio.h>

#include "cli/cli.h"

int cmd_ingest(int argc, const char **argv, struct cli_ctx *ctx)
{
	return cli_intake_command(argc, argv, ctx, "no file to ingest", NULL);
}

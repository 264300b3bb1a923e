#include <stdio.h>

#include "store/store.h"
#include "cli/cli.h"

int cmd_init(int argc, const char **argv, struct cli_ctx *ctx)
{
	static const struct cli_option opts[] = {{OPT_END, NULL, NULL, NULL, NULL}};
	if (cli_parse(argc, argv, opts, ctx))
		cli_usage_error(ctx->cmd, opts, "init takes no arguments");
	printf("database '%s' at schema version %d\n", store_name(ctx->store),
	       store_schema_version(ctx->store));
	return 0;
}

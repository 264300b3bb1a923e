#include <stdio.h>

#include "cli.h"

int cmd_hash(int argc, const char **argv, struct cli_ctx *ctx)
{
	static const struct cli_option opts[] = {{OPT_END, NULL, NULL, NULL, NULL}};
	argc = cli_parse(argc, argv, opts, ctx);
	(void)argc;
	cli_error("'hash' is not built yet");
	return 2;
}

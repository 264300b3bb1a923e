#include <stdio.h>

#include "cli.h"

int cmd_ingest(int argc, const char **argv, struct cli_ctx *ctx)
{
	struct cli_intake in;
	struct bl_error err = BL_ERROR_INIT;
	int failed = 0;

	cli_intake_init(&in);
	const struct cli_option opts[] = {
	    CLI_INTAKE_OPTIONS(&in),
	    {OPT_END, NULL, NULL, NULL, NULL},
	};
	argc = cli_parse(argc, argv, opts, ctx);
	if (!argc)
		cli_usage_error(ctx->cmd, opts, "no file to ingest");
	if (cli_intake_setup(&in, ctx, &err)) {
		cli_fail(&err);
		failed = 1;
		goto done;
	}
	/* Each file stands alone: a bad one is reported, nothing of it is stored, and the rest
	 * still go in. */
	for (int i = 0; i < argc; i++) {
		struct ingest_batch batch = {NULL, 0, 0};
		if (cli_intake_read(&in, &batch, argv[i], &err) ||
		    cli_intake_store(&in, ctx, argv[i], &batch, &err)) {
			cli_fail(&err);
			failed = 1;
		}
		ingest_batch_release(&batch);
	}
	cli_intake_finish(&in);
done:
	cli_intake_release(&in);
	bl_error_release(&err);
	return failed ? 2 : 0;
}

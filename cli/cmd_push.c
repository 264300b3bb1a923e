/*
 * benchline push: native record files sent to a server as they are, one body each, after
 * the spool (§10's fleet). With no file, only the spool is pushed.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "ingest/push/push.h"
#include "cli/cli.h"

/* `--spool` with no directory after it (the last argument, or another option next) is the
 * spool-only form of the contract, `benchline push --spool`: it is taken out of argv. */
static int bare_spool(int argc, const char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (strcmp(argv[i], "--spool") || (i + 1 < argc && strncmp(argv[i + 1], "--", 2)))
			continue;
		memmove(argv + i, argv + i + 1, (size_t)(argc - i) * sizeof(*argv));
		return 1;
	}
	return 0;
}

int cmd_push(int argc, const char **argv, struct cli_ctx *ctx)
{
	struct cli_push p;
	struct config cfg;
	struct bl_error err = BL_ERROR_INIT;
	struct strbuf body = STRBUF_INIT, root = STRBUF_INIT;
	const char *repo = NULL;
	json_t *json_out = NULL;
	int json = 0, spool_only, ret = 2;

	cli_push_init(&p);
	config_init(&cfg);
	const struct cli_option opts[] = {
	    CLI_PUSH_OPTIONS(&p),
	    {OPT_STRING, "repo", &repo, "DIR",
	     "read the server and token file from DIR's benchline.json (default: the current "
	     "directory's repository's)"},
	    {OPT_BOOL, "json", &json, NULL, "print what the server stored as JSON"},
	    {OPT_END, NULL, NULL, NULL, NULL},
	};
	spool_only = bare_spool(argc, argv);
	if (spool_only)
		argc--;
	argc = cli_parse(argc, argv, opts, ctx);
	if (spool_only && argc)
		cli_usage_error(ctx->cmd, opts,
				"--spool without a directory pushes the spool only: "
				"no FILE");
	/* The server and token file: the flags, the environment, else --repo's benchline.json, else
	 * the checkout's (§10). */
	if (config_load_checkout(&cfg, &root, repo, &err) || cli_push_connect(&p, &cfg, &err))
		goto fail;
	if (json)
		json_out = json_array();
	cli_push_flush(&p, json_out);
	if (!argc && !p.flushed_bodies)
		cli_error("nothing waits in the spool '%s'", p.session->spool->dir);
	for (int i = 0; i < argc; i++) {
		strbuf_reset(&body);
		if (read_file_capped(&body, argv[i], PUSH_MAX_BODY, &err) ||
		    cli_push_body(&p, argv[i], body.buf, body.len, json_out, &err)) {
			cli_fail(&err);
			p.failed = 1;
		}
	}
	if (json_out)
		cli_json_print(json_incref(json_out));
	ret = cli_push_status(&p);
	goto done;
fail:
	cli_fail(&err);
done:
	json_decref(json_out);
	strbuf_release(&body);
	strbuf_release(&root);
	config_release(&cfg);
	cli_push_release(&p);
	bl_error_release(&err);
	return ret;
}

#include <jansson.h>
#include <stdio.h>

#include "ingest/config/config.h"
#include "store/store.h"
#include "cli/cli.h"
#include "ingest/repo/repo.h"

/* benchline sync --repo DIR [--json]: stores main's new first-parent commits (§3). */
int cmd_sync(int argc, const char **argv, struct cli_ctx *ctx)
{
	const char *repo = NULL;
	int json = 0, ret = 0;
	struct config cfg;
	struct repo_sync_result res;
	struct bl_error err = BL_ERROR_INIT;
	struct cli_command parse_only = *ctx->cmd;
	struct cli_ctx pctx = *ctx;
	const struct cli_option opts[] = {
	    {OPT_STRING, "repo", &repo, "DIR", "the repository whose main to record"},
	    {OPT_BOOL, "json", &json, NULL, "print the result as one JSON object"},
	    {OPT_END, NULL, NULL, NULL, NULL},
	};

	/* Options first, the database only once they are good: a usage error never creates it. */
	parse_only.needs = 0;
	pctx.cmd = &parse_only;
	argc = cli_parse(argc, argv, opts, &pctx);
	if (argc)
		cli_usage_error(ctx->cmd, opts, "unexpected argument '%s'", argv[0]);
	if (!repo)
		cli_usage_error(ctx->cmd, opts, "sync needs --repo DIR");

	config_init(&cfg);
	if (config_load(&cfg, repo, &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	if (!ctx->store && store_open(&ctx->store, ctx->db_path, STORE_CREATE, &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	if (repo_sync(&res, ctx->store, repo, &cfg, &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	if (json) {
		json_t *o = json_object();
		json_object_set_new(o, "branch", json_string(res.branch));
		json_object_set_new(o, "tip", json_string(res.tip));
		json_object_set_new(o, "walked", json_integer((json_int_t)res.walked));
		json_object_set_new(o, "total", json_integer((json_int_t)res.total));
		json_object_set_new(o, "rewritten", json_boolean(res.rewritten));
		cli_json_print(o);
	} else {
		if (res.rewritten)
			fprintf(
			    stderr,
			    "benchline: %s was rewritten: commits no longer on it were dropped\n",
			    res.branch);
		printf("synced %zu new commits of %s (%zu in all), tip %s\n", res.walked,
		       res.branch, res.total, res.tip);
	}
done:
	config_release(&cfg);
	bl_error_release(&err);
	return ret;
}

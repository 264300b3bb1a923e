#include <stdio.h>
#include <string.h>

#include "ingest/config/config.h"
#include "cli/cli.h"
#include "ingest/repo/repo.h"

/* benchline paths check [--repo DIR]: exits 1 naming each unclassified top-level path (§3). */
int cmd_paths(int argc, const char **argv, struct cli_ctx *ctx)
{
	const char *repo = ".";
	struct config cfg;
	struct bl_error err = BL_ERROR_INIT;
	char **paths = NULL;
	size_t n = 0;
	int ret = 0;
	const struct cli_option opts[] = {
	    {OPT_STRING, "repo", &repo, "DIR", "the repository (default: the current directory)"},
	    {OPT_END, NULL, NULL, NULL, NULL},
	};

	argc = cli_parse(argc, argv, opts, ctx);
	if (!argc)
		cli_usage_error(ctx->cmd, opts, "paths needs a subcommand: check");
	if (strcmp(argv[0], "check"))
		cli_usage_error(ctx->cmd, opts, "unknown subcommand '%s'", argv[0]);
	if (argc > 1)
		cli_usage_error(ctx->cmd, opts, "unexpected argument '%s'", argv[1]);

	config_init(&cfg);
	if (config_load(&cfg, repo, &err) ||
	    repo_paths_unclassified(&paths, &n, repo, &cfg, &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	for (size_t i = 0; i < n; i++)
		fprintf(stderr,
			"unclassified top-level path '%s': add it to measured_paths or "
			"unmeasured_paths in benchline.json\n",
			paths[i]);
	if (n)
		ret = 1;
	else if (!cfg.path)
		cli_printf(stdout,
			   "nothing to classify: no benchline.json in '%s' (every top-level path "
			   "is measured)\n",
			   repo);
	else if (!cfg.measured_paths)
		cli_printf(stdout,
			   "nothing to classify: %s lists no measured_paths (every top-level path "
			   "is measured)\n",
			   cfg.path);
	else
		printf("every top-level path is classified\n");
done:
	strings_free(paths, n);
	config_release(&cfg);
	bl_error_release(&err);
	return ret;
}

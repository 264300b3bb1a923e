#include <stdio.h>
#include <stdlib.h>

#include "ingest/config/config.h"
#include "cli/cli.h"
#include "ingest/repo/repo.h"

/* benchline hash [--repo DIR] [REV...]: "SOURCE_HASH COMMIT" per revision (§3, §14). */
int cmd_hash(int argc, const char **argv, struct cli_ctx *ctx)
{
	const char *repo = ".";
	static const char *const head[] = {"HEAD"};
	const char *const *revs = head;
	struct config cfg;
	struct bl_error err = BL_ERROR_INIT;
	char(*hashes)[41] = NULL, (*commits)[41] = NULL;
	size_t nrevs = 1;
	int ret = 0;
	const struct cli_option opts[] = {
	    {OPT_STRING, "repo", &repo, "DIR", "the repository (default: the current directory)"},
	    {OPT_END, NULL, NULL, NULL, NULL},
	};

	argc = cli_parse(argc, argv, opts, ctx);
	if (argc) {
		revs = argv;
		nrevs = (size_t)argc;
	}
	config_init(&cfg);
	if (config_load(&cfg, repo, &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	hashes = xcalloc(nrevs, sizeof(*hashes));
	commits = xcalloc(nrevs, sizeof(*commits));
	if (repo_source_hash_revs(hashes, commits, repo, &cfg, revs, nrevs, &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	for (size_t i = 0; i < nrevs; i++)
		printf("%s %s\n", hashes[i], commits[i]);
done:
	free(hashes);
	free(commits);
	config_release(&cfg);
	bl_error_release(&err);
	return ret;
}

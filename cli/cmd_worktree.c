#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "ingest/bench/bench.h"
#include "ingest/repo/repo.h"

/*
 * benchline worktree [--repo DIR] [--build] [--run] REV [REV]: plumbing for the re-bench
 * (§9), left out of `benchline help`. Checks REV out in side a's worktree (and the second in
 * b's) and prints "SIDE COMMIT PATH"; --build builds each with bench.build, --run runs
 * bench.run once in each; with two built sides and bench.artifacts, whether the artifacts are
 * identical. Exit 0, 2 on an error, 125 when a side cannot be built.
 */
int cmd_worktree(int argc, const char **argv, struct cli_ctx *ctx)
{
	const char *repo_dir = ".";
	int build = 0, run = 0, ret = 0;
	struct config cfg;
	struct repo *r = NULL;
	struct strbuf paths[2] = {STRBUF_INIT, STRBUF_INIT}, why = STRBUF_INIT;
	struct bench_run once;
	struct bl_error err = BL_ERROR_INIT;
	const struct cli_option opts[] = {
	    {OPT_STRING, "repo", &repo_dir, "DIR",
	     "the repository (default: the current directory)"},
	    {OPT_BOOL, "build", &build, NULL, "build each side with bench.build"},
	    {OPT_BOOL, "run", &run, NULL, "run bench.run once in each side"},
	    {OPT_END, NULL, NULL, NULL, NULL},
	};

	argc = cli_parse(argc, argv, opts, ctx);
	if (argc < 1 || argc > 2)
		cli_usage_error(ctx->cmd, opts, "give one or two revisions (sides a and b)");
	config_init(&cfg);
	bench_run_init(&once);
	if (config_load(&cfg, repo_dir, &err) || repo_open(&r, repo_dir, &cfg, &err))
		goto fail;
	for (int i = 0; i < argc; i++) {
		enum repo_side side = i ? REPO_SIDE_B : REPO_SIDE_A;
		const char *name = repo_side_name(side);
		char sha[41], source[41];
		double wall_s;
		if (repo_resolve(sha, source, NULL, r, argv[i], &err) ||
		    repo_worktree(&paths[i], r, sha, side, &err))
			goto fail;
		printf("%s %s %s\n", name, sha, paths[i].buf);
		if (build) {
			if (bench_build(&wall_s, &cfg, paths[i].buf, &err)) {
				if (err.code != BL_EBUILD)
					goto fail;
				cli_error("side %s (%.12s): %s", name, sha, err.msg.buf);
				ret = EXIT_CANNOT_BUILD;
				goto done;
			}
			printf("%s built in %.2f s\n", name, wall_s);
		}
		if (run) {
			if (bench_run_once(&once, &cfg, paths[i].buf, &err))
				goto fail;
			printf("%s ran in %.2f s: cpu_s %.3f, peak_rss_kib %lld, %zu bytes of "
			       "output\n",
			       name, once.wall_s, once.cpu_s, (long long)once.peak_rss_kib,
			       once.out.len);
		}
	}
	if (build && argc == 2 && cfg.n_bench_artifacts) {
		int identical;
		size_t files;
		if (bench_artifacts_identical(&identical, &why, &files, &cfg, paths[0].buf,
					      paths[1].buf, &err))
			goto fail;
		if (identical)
			printf("artifacts identical (%zu file%s): nothing can differ\n", files,
			       files == 1 ? "" : "s");
		else
			printf("artifacts differ: %s\n", why.buf);
	}
	goto done;
fail:
	ret = cli_fail(&err);
done:
	bench_run_release(&once);
	repo_free(r);
	config_release(&cfg);
	strbuf_release(&paths[0]);
	strbuf_release(&paths[1]);
	strbuf_release(&why);
	bl_error_release(&err);
	return ret;
}

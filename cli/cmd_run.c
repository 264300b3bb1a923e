#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "ingest/bench/bench.h"

/* What the preflight found, before the command runs. */
static void say_preflight(const struct preflight *pf, void *data)
{
	(void)data;
	if (pf->quiet) {
		fputs("benchline: preflight: the machine is quiet\n", stderr);
	} else {
		for (size_t i = 0; i < pf->nfailures; i++)
			fprintf(stderr, "benchline: preflight: %s (the runs are tagged)\n",
				pf->failures[i]);
	}
}

int cmd_run(int argc, const char **argv, struct cli_ctx *ctx)
{
	struct cli_intake in;
	struct bl_error err = BL_ERROR_INIT;
	struct bench_records one;
	struct bench_records_request req;
	struct strbuf name = STRBUF_INIT;
	const char *results = NULL;
	int no_preflight = 0, ret = 2;
	struct stat st;

	cli_intake_init(&in);
	bench_records_init(&one);
	const struct cli_option opts[] = {
	    CLI_INTAKE_OPTIONS(&in),
	    {OPT_STRING, "results", &results, "PATH",
	     "read the results from PATH (a file or criterion directory), not standard output"},
	    {OPT_BOOL, "no-preflight", &no_preflight, NULL, "do not check the machine first"},
	    {OPT_END, NULL, NULL, NULL, NULL},
	};
	argc = cli_parse(argc, argv, opts, ctx);
	if (!argc)
		cli_usage_error(ctx->cmd, opts, "no command to run (give it after --)");
	/* A sweep runs inside its checkout: the current directory's HEAD when it is one. */
	if (!in.core.repo && stat(".git", &st) == 0)
		in.core.repo = ".";
	if (cli_intake_setup(&in, ctx, &err))
		goto fail;

	argv[argc] = NULL;
	if (results)
		strbuf_addstr(&name, results);
	else
		strbuf_addf(&name, "output of '%s'", argv[0]);
	memset(&req, 0, sizeof(req));
	req.in = &in.core;
	req.argv = argv;
	req.name = name.buf;
	req.results = results;
	req.no_preflight = no_preflight;
	req.preflight = say_preflight;
	ret = bench_records(&one, &req, &err);
	if (in.core.chosen_format)
		cli_intake_say_format(&in, name.buf);
	if (ret || cli_intake_store(&in, ctx, name.buf, &one.batch, &err)) {
		ret = 2;
		goto fail;
	}
	cli_intake_finish(&in);
	ret = cli_intake_status(&in, 0);
	cli_printf(
	    stderr, "run: '%s' ran in %.2f s (cpu %.2f s, peak rss %lld KiB): %zu record%s %s\n",
	    argv[0], one.run.wall_s, one.run.cpu_s, (long long)one.run.peak_rss_kib, one.batch.nr,
	    one.batch.nr == 1 ? "" : "s", in.push.bodies_spooled ? "kept in the spool" : "stored");
	goto done;
fail:
	cli_fail(&err);
done:
	bench_records_release(&one);
	cli_intake_release(&in);
	strbuf_release(&name);
	bl_error_release(&err);
	return ret;
}

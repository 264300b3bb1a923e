#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "ingest/adapters/adapters.h"
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

/*
 * Everything storing needs that can be known before the command runs (§10): the settings resolved
 * (cli_intake_setup: the machine, the harness version, the format, where the records go), and a
 * commit: a format that names none needs a repository's HEAD. So nothing is measured only to be
 * thrown away.
 */
static int check_ready(const struct cli_intake *in, struct bl_error *err)
{
	enum result_format f;
	if (in->core.have_head || result_format_parse(&f, in->core.format) ||
	    adapters_format_names_commit(f))
		return 0;
	return bl_error_set(err, BL_EINVALID,
			    "%s output names no commit and no repository gives one: run inside "
			    "the checkout or give --repo DIR (nothing was run)",
			    in->core.format);
}

/* Where the records' machine and harness version came from, once they are stored: "run: machine
 * 'nc-box' from "machine" in repo/benchline.json, harness version 1 from the default"; native
 * records name their own. */
static void say_settings(const struct cli_intake *in, const struct ingest_batch *batch)
{
	const struct ingest_intake *core = &in->core;
	struct strbuf line = STRBUF_INIT;
	int own = core->chosen_format && !strcmp(core->chosen_format, "benchline");

	if (!batch->nr)
		return;
	strbuf_addf(&line, "run: machine '%s' ", batch->records[0].machine);
	if (own) {
		strbuf_addf(&line, "and harness version %lld as the records name them",
			    (long long)batch->records[0].harness_version);
	} else {
		strbuf_addstr(&line, "from ");
		config_from_phrase(&line, core->resolved.machine_from, "--machine", "machine",
				   &core->cfg);
		if (core->resolved.machine_from == CONFIG_FROM_HOST)
			strbuf_addstr(&line, " (no --machine, no \"machine\" in benchline.json)");
		strbuf_addf(&line, ", harness version %lld from ",
			    (long long)batch->records[0].harness_version);
		config_from_phrase(&line, core->resolved.harness_from, "--harness-version",
				   "harness_version", &core->cfg);
	}
	cli_printf(stderr, "%s\n", line.buf);
	strbuf_release(&line);
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
	/* What is measured is the checkout: without --repo, the repository holding the current
	 * directory gives HEAD and benchline.json. */
	in.core.settings = INGEST_SETTINGS_MEASURE;
	if (cli_intake_setup(&in, ctx, &err) || check_ready(&in, &err))
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
	/* where the settings came from, then the summary, which ends the run */
	if (ret == 0 || ret == EXIT_SPOOLED)
		say_settings(&in, &one.batch);
	cli_printf(stderr,
		   "run: '%s' ran in %.2f s (cpu %.2f s, peak rss %lld KiB): %zu record%s %s\n",
		   argv[0], one.run.wall_s, one.run.cpu_s, (long long)one.run.peak_rss_kib,
		   one.batch.nr, one.batch.nr == 1 ? "" : "s",
		   in.push.bodies_spooled ? "kept in the spool"
		   : !ret		  ? "stored"
					  : "not all stored");
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

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli/cli.h"
#include "ingest/preflight/preflight.h"

/* The most a benchmark command may print on standard output. */
#define RUN_MAX_OUTPUT ((size_t)256 << 20)

/* The process figures every record of the run carries under "process". */
static json_t *process_json(const char *const *argv, const struct child_process *run)
{
	json_t *o = json_object(), *args = json_array();
	for (size_t i = 0; argv[i]; i++)
		json_array_append_new(args, json_string(argv[i]));
	json_object_set_new(o, "argv", args);
	json_object_set_new(o, "exit", json_integer(run->exit_code));
	json_object_set_new(o, "wall_s", json_real(run->wall_s));
	json_object_set_new(o, "cpu_s", json_real(run->cpu_s));
	json_object_set_new(o, "peak_rss_kib", json_integer(run->peak_rss_kib));
	return o;
}

static int annotate(struct ingest_batch *batch, const struct preflight *pf, const char *const *argv,
		    const struct child_process *run, struct bl_error *err)
{
	for (size_t i = 0; i < batch->nr; i++) {
		struct ingest_record *rec = &batch->records[i];
		if (pf) {
			rec->has_preflight = 1;
			rec->preflight_quiet = pf->quiet;
			if (ingest_record_annotate(rec, "preflight", preflight_to_json(pf), err))
				return BL_EINVALID;
		}
		if (ingest_record_annotate(rec, "process", process_json(argv, run), err))
			return BL_EINVALID;
	}
	return 0;
}

static int check_machine(struct preflight *pf, const struct config *cfg, struct bl_error *err)
{
	int ret;
	if ((ret = preflight_check(pf, cfg, err)))
		return ret;
	if (pf->quiet) {
		fputs("benchline: preflight: the machine is quiet\n", stderr);
	} else {
		for (size_t i = 0; i < pf->nfailures; i++)
			fprintf(stderr, "benchline: preflight: %s (the runs are tagged)\n",
				pf->failures[i]);
	}
	return 0;
}

int cmd_run(int argc, const char **argv, struct cli_ctx *ctx)
{
	struct cli_intake in;
	struct bl_error err = BL_ERROR_INIT;
	struct preflight pf;
	struct child_process run;
	struct ingest_batch batch = {NULL, 0, 0};
	struct strbuf name = STRBUF_INIT;
	const char *results = NULL;
	int no_preflight = 0, ret = 2;
	struct stat st;
	double started;

	cli_intake_init(&in);
	preflight_init(&pf);
	child_process_init(&run);
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
	if (!no_preflight && check_machine(&pf, &in.core.cfg, &err))
		goto fail;

	argv[argc] = NULL;
	started = (double)time(NULL);
	run.argv = argv;
	run.out_max = RUN_MAX_OUTPUT;
	/* The benchmark shares our stdin and stderr (its progress shows as it runs, and when it
	 * fails its reason is already there) and stays in our process group, so a Ctrl-C at the
	 * terminal stops it with us; it has no time limit. */
	run.keep_pgroup = 1;
	if (child_process_run(&run, &err))
		goto fail;
	if (run.exit_code || run.signal) {
		if (run.signal)
			cli_error("'%s' was killed by signal %d; nothing stored", argv[0],
				  run.signal);
		else
			cli_error("'%s' exited with status %d; nothing stored", argv[0],
				  run.exit_code);
		goto done;
	}
	if (results) {
		strbuf_addstr(&name, results);
		if (cli_intake_read(&in, &batch, results, &err))
			goto fail;
	} else {
		strbuf_addf(&name, "output of '%s'", argv[0]);
		if (cli_intake_parse(&in, &batch, name.buf, run.out.buf, run.out.len, started,
				     &err))
			goto fail;
	}
	if (annotate(&batch, no_preflight ? NULL : &pf, argv, &run, &err) ||
	    cli_intake_store(&in, ctx, name.buf, &batch, &err))
		goto fail;
	cli_intake_finish(&in);
	ret = cli_intake_status(&in, 0);
	cli_printf(stderr,
		   "run: '%s' ran in %.2f s (cpu %.2f s, peak rss %lld KiB): %zu record%s %s\n",
		   argv[0], run.wall_s, run.cpu_s, (long long)run.peak_rss_kib, batch.nr,
		   batch.nr == 1 ? "" : "s",
		   !ret			 ? "stored"
		   : ret == EXIT_SPOOLED ? "kept in the spool"
					 : "not all stored");
	goto done;
fail:
	cli_fail(&err);
done:
	ingest_batch_release(&batch);
	child_process_release(&run);
	preflight_release(&pf);
	cli_intake_release(&in);
	strbuf_release(&name);
	bl_error_release(&err);
	return ret;
}

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "detect/confirm/confirm.h"
#include "detect/detect.h"
#include "ingest/ingest.h"
#include "store/store.h"

/* What the progress lines need: the terminal's progress state and this machine's name. */
struct sweep_out {
	struct cli_progress progress;
};

static void print_note(const char *line, void *data)
{
	struct sweep_out *out = data;
	cli_progress_done(&out->progress);
	fprintf(stderr, "sweep: %s\n", line);
}

/* [3/12] 4a18d4e parse_ints: refuse ... build 2.1 s, run 3 x 4.0 s, 4 records */
static void print_step(const struct confirm_sweep_step *s, void *data)
{
	struct sweep_out *out = data;
	cli_progress_done(&out->progress);
	fprintf(stderr, "[%zu/%zu] %.7s %.60s", s->index, s->total, s->commit, s->subject);
	if (s->unbuildable) {
		const char *nl = s->why ? strchr(s->why, '\n') : NULL;
		fprintf(stderr, ": cannot be built, skipped (%.*s)\n",
			nl ? (int)(nl - s->why) : (int)strlen(s->why ? s->why : ""),
			s->why ? s->why : "");
		return;
	}
	fprintf(stderr, ": build %.1f s, run %zu x %.1f s, %zu record%s\n", s->build_s,
		s->processes, s->processes ? s->run_s / (double)s->processes : 0.0, s->records,
		s->records == 1 ? "" : "s");
}

static int count_alert(const struct store_alert *a, void *data)
{
	(void)a;
	(*(size_t *)data)++;
	return 0;
}

static void confirm_note(const char *line, void *data)
{
	print_note(line, data);
}

/*
 * benchline sweep [--repo DIR] [--machine M] [--since REV | --last N] [--harness-version N]
 * [--confirm] [--wait-quiet S] [--no-preflight]: the nightly job (§10). Exit 0 when every
 * commit was measured or found unbuildable, 2 on an error.
 */
int cmd_sweep(int argc, const char **argv, struct cli_ctx *ctx)
{
	struct confirm_sweep_request req;
	struct confirm_sweep_result res;
	struct detect_options dopts;
	struct detect_result dres;
	struct sweep_out out = {{"sweep", 0, 0}};
	struct ingest_config cfg;
	struct strbuf machine = STRBUF_INIT, why = STRBUF_INIT;
	struct bl_error err = BL_ERROR_INIT;
	const char *machine_flag = NULL;
	long last = 0, harness = 0;
	double wait_quiet = 0;
	int do_confirm = 0, no_preflight = 0, ret = 0;
	size_t alerts_before = 0, alerts_after = 0, confirmed = 0, regressions = 0;
	const struct cli_option opts[] = {
	    {OPT_STRING, "repo", &req.repo, "DIR",
	     "the main checkout (default: the current directory)"},
	    {OPT_STRING, "machine", &machine_flag, "M",
	     "this machine's name (default: benchline.json's machine, else the host name)"},
	    {OPT_STRING, "since", &req.since, "REV", "every source of main after REV"},
	    {OPT_INT, "last", &last, "N", "the newest N sources of main (default 1)"},
	    {OPT_INT, "harness-version", &harness, "N",
	     "the records' harness version when bench.format lacks one (default 1)"},
	    {OPT_BOOL, "confirm", &do_confirm, NULL, "then confirm this machine's open alerts"},
	    {OPT_DOUBLE, "wait-quiet", &wait_quiet, "SECONDS",
	     "retry a busy preflight for up to SECONDS before measuring anyway"},
	    {OPT_BOOL, "no-preflight", &no_preflight, NULL, "do not check the machine first"},
	    {OPT_END, NULL, NULL, NULL, NULL},
	};

	memset(&req, 0, sizeof(req));
	memset(&res, 0, sizeof(res));
	ingest_config_init(&cfg);
	if (cli_parse(argc, argv, opts, ctx))
		cli_usage_error(ctx->cmd, opts, "sweep takes no arguments");
	if (req.since && last)
		cli_usage_error(ctx->cmd, opts, "give --since or --last, not both");
	if (last < 0 || harness < 0 || wait_quiet < 0)
		cli_usage_error(ctx->cmd, opts,
				"--last, --harness-version and --wait-quiet cannot "
				"be negative");
	if (confirm_machine(&machine, machine_flag, req.repo, &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	out.progress.tty = isatty(2);
	req.machine = machine.buf;
	req.last = (size_t)last;
	req.harness_version = harness;
	req.no_preflight = no_preflight;
	req.wait_quiet_s = wait_quiet;
	req.progress = print_step;
	req.note = print_note;
	req.data = &out;
	if (store_each_alert(ctx->store, &(struct store_alert_filter){0}, count_alert,
			     &alerts_before, &err) ||
	    confirm_sweep(&res, ctx->store, &req, &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	/* Detection, with the judged metrics of the repository's benchline.json. */
	{
		struct strbuf root = STRBUF_INIT;
		memset(&dopts, 0, sizeof(dopts));
		if (repo_toplevel(&root, req.repo ? req.repo : ".", &err) ||
		    ingest_config_load(&cfg, root.buf, &err)) {
			strbuf_release(&root);
			ret = cli_fail(&err);
			goto done;
		}
		strbuf_release(&root);
		dopts.metrics_given = 1;
		dopts.metrics = (const char *const *)cfg.judged_metrics;
		dopts.nmetrics = cfg.n_judged_metrics;
		dopts.ladders = cfg.path ? cfg.ladders : NULL;
		dopts.ladders_file = cfg.path;
		dopts.transient_records = cfg.transient_records;
	}
	if (detect_run(&dres, ctx->store, &dopts, &err) ||
	    store_each_alert(ctx->store, &(struct store_alert_filter){0}, count_alert,
			     &alerts_after, &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	if (do_confirm) {
		struct confirm_alerts_request creq;
		struct confirm_alert_result *cres = NULL;
		size_t n = 0;
		memset(&creq, 0, sizeof(creq));
		creq.repo = req.repo;
		creq.machine = machine.buf;
		creq.progress = cli_measure_progress;
		creq.progress_data = &out.progress;
		creq.note = confirm_note;
		creq.note_data = &out;
		if (confirm_alerts(&cres, &n, ctx->store, &creq, &err)) {
			cli_progress_done(&out.progress);
			ret = cli_fail(&err);
			goto done;
		}
		cli_progress_done(&out.progress);
		for (size_t i = 0; i < n; i++) {
			confirmed += cres[i].outcome == ALERT_CONFIRMED;
			regressions += cres[i].nregressions;
		}
		confirm_alert_results_free(cres, n);
	}
	for (size_t t = 0; t < CONFIRM_SWEEP_NTAGS; t++) {
		if (!res.tagged_by[t])
			continue;
		strbuf_addf(&why, "%s%zu %s", why.len ? ", " : "", res.tagged_by[t],
			    confirm_sweep_tag_name(t));
		if (!strcmp(confirm_sweep_tag_name(t), "preflight") && res.busy_why)
			strbuf_addf(&why, ": %s", res.busy_why);
	}
	fprintf(
	    stderr,
	    "sweep: %zu commit%s measured (%zu already measured, %zu unbuildable), %zu record%s "
	    "stored, %zu joined their Series, %zu tagged%s%s%s, %lld new Suspect%s, %zu new "
	    "alert%s",
	    res.measured, res.measured == 1 ? "" : "s", res.already, res.unbuildable, res.records,
	    res.records == 1 ? "" : "s", res.joined, res.tagged, why.len ? " (" : "", why.buf,
	    why.len ? ")" : "", (long long)dres.new_suspects, dres.new_suspects == 1 ? "" : "s",
	    alerts_after - alerts_before, alerts_after - alerts_before == 1 ? "" : "s");
	if (do_confirm)
		fprintf(stderr, ", %zu alert%s confirmed (%zu Regression%s)", confirmed,
			confirmed == 1 ? "" : "s", regressions, regressions == 1 ? "" : "s");
	fputc('\n', stderr);
done:
	confirm_sweep_result_release(&res);
	ingest_config_release(&cfg);
	strbuf_release(&machine);
	strbuf_release(&why);
	bl_error_release(&err);
	return ret;
}

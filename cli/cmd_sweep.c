#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/cli.h"
#include "detect/confirm/confirm.h"
#include "ingest/bench/bench.h"
#include "detect/detect.h"
#include "ingest/config/config.h"
#include "ingest/ingest.h"
#include "ingest/push/push.h"
#include "store/store.h"

/* What the callbacks need: the terminal's progress state, and with a server its session. */
struct sweep_out {
	struct cli_progress progress;
	struct cli_push *push; /* NULL: the records are stored */
	const char *machine;
	size_t pushed;	 /* runs the server acknowledged */
	size_t spooled;	 /* runs kept in the spool */
	int unreachable; /* the server did not answer: every source counts as not measured */
};

/* With a server: whether it holds a clean record of this machine at the source (GET
 * /api/records: standing records, none tagged dirty or profile). */
static int remote_measured(int *yes, const char *source_hash, void *data, struct bl_error *err)
{
	struct sweep_out *out = data;
	struct push_response res;
	struct strbuf path = STRBUF_INIT;
	json_t *doc = NULL, *records = NULL, *rec;
	json_error_t jerr;
	size_t i;
	int ret = 0;

	*yes = 0;
	push_response_init(&res);
	strbuf_addf(&path, "/api/records?machine=%s&source_hash=%s&limit=1000", out->machine,
		    source_hash);
	if (out->unreachable)
		goto done;
	if ((ret = push_request(&res, out->push->session->srv, "GET", path.buf, NULL, 0, NULL,
				err)) &&
	    ret != BL_EIO)
		goto done;
	if (!ret && res.status == 200) {
		doc = json_loadb(res.body.buf, res.body.len, 0, &jerr);
		records = json_object_get(doc, "records");
	}
	if (ret || !json_is_array(records)) {
		/* The server down, or not answering as benchline's does (a maintenance page, a
		 * redirect): what the spool is for. Measure, and keep the records there. */
		struct strbuf what = STRBUF_INIT;
		if (!ret) {
			push_answer_describe(&what, &res);
			bl_error_set(err, BL_EIO,
				     "GET %s: the server's answer is not benchline's (%s)",
				     path.buf, what.buf);
		}
		cli_progress_done(&out->progress);
		fprintf(stderr, "sweep: %s: measuring without knowing what the server has\n",
			err->msg.buf);
		bl_error_clear(err);
		strbuf_release(&what);
		out->unreachable = 1;
		ret = 0;
		goto done;
	}
	json_array_foreach (records, i, rec) {
		const json_t *tags = json_object_get(rec, "tags"), *t;
		size_t k;
		int clean = 1;
		json_array_foreach (tags, k, t) {
			const char *name = json_string_value(t);
			if (name && (!strcmp(name, "dirty") || !strcmp(name, "profile")))
				clean = 0;
		}
		if (clean)
			*yes = 1;
	}
done:
	json_decref(doc);
	strbuf_release(&path);
	push_response_release(&res);
	return ret;
}

/* With a server: each process's records pushed as one body (or spooled), their outcomes
 * printed as `ingest --server` prints them. */
static int remote_deliver(struct bench_sweep_result *counts, const char *name,
			  struct ingest_intake *in, struct ingest_batch *batch, void *data,
			  struct bl_error *err)
{
	struct sweep_out *out = data;
	struct strbuf body = STRBUF_INIT;
	int ret;
	(void)in;
	(void)counts;
	cli_progress_done(&out->progress);
	if (!(ret = ingest_intake_body(&body, batch, err)))
		ret = cli_push_body(out->push, name, body.buf, body.len, NULL, err);
	/* Once the server failed this command, every body went to the spool. */
	if (!ret && out->push->session->unreachable)
		out->spooled += batch->nr;
	else if (!ret)
		out->pushed += batch->nr;
	strbuf_release(&body);
	return ret;
}

static void print_note(const char *line, void *data)
{
	struct sweep_out *out = data;
	cli_progress_done(&out->progress);
	cli_printf(stderr, "sweep: %s\n", line);
}

/* [3/12] 4a18d4e parse_ints: refuse ... build 2.1 s, run 3 x 4.0 s, 12 runs */
static void print_step(const struct bench_sweep_step *s, void *data)
{
	struct sweep_out *out = data;
	cli_progress_done(&out->progress);
	cli_printf(stderr, "[%zu/%zu] %.7s %.60s", s->index, s->total, s->commit, s->subject);
	if (s->unbuildable) {
		const char *nl = s->why ? strchr(s->why, '\n') : NULL;
		fprintf(stderr, ": cannot be built, skipped (%.*s)\n",
			nl ? (int)(nl - s->why) : (int)strlen(s->why ? s->why : ""),
			s->why ? s->why : "");
		return;
	}
	fprintf(stderr, ": build %.1f s, run %zu x %.1f s, %zu run%s", s->build_s, s->processes,
		s->processes ? s->run_s / (double)s->processes : 0.0, s->runs,
		s->runs == 1 ? "" : "s");
	if (s->counted)
		fprintf(stderr, " (%zu instruction count%s)", s->counted,
			s->counted == 1 ? "" : "s");
	fputc('\n', stderr);
}

/* The longest a sweep waits for the server's detection of what it pushed, before --confirm. */
#define SWEEP_DETECT_WAIT_S 120

/* Waits until the server's background detection is idle (GET /api/status), at most
 * SWEEP_DETECT_WAIT_S: the alerts of tonight's records exist once it is. */
static int wait_server_idle(struct push_server *srv, struct bl_error *err)
{
	for (int i = 0; i < SWEEP_DETECT_WAIT_S * 5; i++) {
		struct push_response res;
		json_t *doc;
		json_error_t jerr;
		const char *state;
		int ret, idle;
		push_response_init(&res);
		if ((ret = push_request(&res, srv, "GET", "/api/status", NULL, 0, NULL, err))) {
			push_response_release(&res);
			return ret;
		}
		doc = json_loadb(res.body.buf, res.body.len, 0, &jerr);
		state = json_string_value(json_object_get(doc, "state"));
		idle = res.status != 200 || !state || !strcmp(state, "idle");
		json_decref(doc);
		push_response_release(&res);
		if (idle)
			return 0;
		usleep(200 * 1000);
	}
	return 0;
}

/* --confirm: this machine's open alerts (and with --pending its pending ones), in the
 * database, or on the server (after its detection of tonight's pushes), measured here. */
static int sweep_confirm(size_t *confirmed, size_t *regressions,
			 const struct bench_sweep_request *sreq, const struct config *cfg,
			 int pending, struct sweep_out *out, struct store *st,
			 struct cli_push *push, struct bl_error *err)
{
	struct confirm_alerts_request creq;
	struct confirm_alert_result *cres = NULL;
	size_t n = 0;
	int ret;
	memset(&creq, 0, sizeof(creq));
	creq.repo = sreq->repo;
	creq.machine = sreq->machine;
	creq.cfg = cfg;
	creq.pending = pending;
	creq.progress = cli_measure_progress;
	creq.progress_data = &out->progress;
	creq.note = print_note;
	creq.note_data = out;
	if (push && (ret = wait_server_idle(push->session->srv, err)))
		return cli_fail(err);
	ret = push ? confirm_alerts_remote(&cres, &n, push->session->srv, &creq, err)
		   : confirm_alerts(&cres, &n, st, &creq, err);
	cli_progress_done(&out->progress);
	if (ret)
		return cli_fail(err);
	for (size_t i = 0; i < n; i++) {
		*confirmed += cres[i].outcome == ALERT_CONFIRMED;
		*regressions += cres[i].nregressions;
	}
	confirm_alert_results_free(cres, n);
	return 0;
}

/*
 * benchline sweep [--repo DIR] [--machine M] [--since REV | --last N] [--harness-version N]
 * [--confirm [--pending]] [--wait-quiet S] [--no-preflight]: the nightly job (§10). Exit 0 when
 * every commit was measured or found unbuildable, 2 on an error.
 */
int cmd_sweep(int argc, const char **argv, struct cli_ctx *ctx)
{
	struct bench_sweep_request req;
	struct bench_sweep_result res;
	struct detect_options dopts;
	struct detect_result dres;
	struct sweep_out out = {{"sweep", 0, 0, 0}, NULL, NULL, 0, 0, 0};
	struct config cfg;
	struct strbuf machine = STRBUF_INIT, why = STRBUF_INIT, root = STRBUF_INIT;
	struct bl_error err = BL_ERROR_INIT;
	struct cli_push push;
	const char *machine_flag = NULL;
	long last = 0, harness = -1;
	double wait_quiet = 0;
	int do_confirm = 0, pending = 0, no_preflight = 0, ret = 0, remote;
	int64_t last_alert = 0, new_alerts = 0;
	size_t confirmed = 0, regressions = 0;
	const struct cli_option opts[] = {
	    {OPT_STRING, "repo", &req.repo, "DIR",
	     "the main checkout (default: the current directory)"},
	    {OPT_STRING, "machine", &machine_flag, "M",
	     "this machine's name (default: benchline.json's machine, else the host name)"},
	    {OPT_STRING, "since", &req.since, "REV", "every source of main after REV"},
	    {OPT_INT, "last", &last, "N", "the newest N sources of main (default 1)"},
	    {OPT_INT, "harness-version", &harness, "N",
	     "the records' harness version when bench.format lacks one (default: "
	     "benchline.json's harness_version, else 1)"},
	    {OPT_BOOL, "confirm", &do_confirm, NULL, "then confirm this machine's open alerts"},
	    {OPT_BOOL, "pending", &pending, NULL,
	     "with --confirm, its pending alerts too (as confirm --pending)"},
	    {OPT_DOUBLE, "wait-quiet", &wait_quiet, "SECONDS",
	     "retry a busy preflight for up to SECONDS before measuring anyway"},
	    {OPT_BOOL, "no-preflight", &no_preflight, NULL, "do not check the machine first"},
	    CLI_PUSH_OPTIONS(&push),
	    {OPT_END, NULL, NULL, NULL, NULL},
	};

	memset(&req, 0, sizeof(req));
	memset(&res, 0, sizeof(res));
	memset(&dres, 0, sizeof(dres));
	config_init(&cfg);
	cli_push_init(&push);
	if (cli_parse(argc, argv, opts, ctx))
		cli_usage_error(ctx->cmd, opts, "sweep takes no arguments");
	if (req.since && last)
		cli_usage_error(ctx->cmd, opts, "give --since or --last, not both");
	if (pending && !do_confirm)
		cli_usage_error(ctx->cmd, opts, "--pending goes with --confirm");
	if (last < 0 || harness < -1 || wait_quiet < 0)
		cli_usage_error(ctx->cmd, opts,
				"--last, --harness-version and --wait-quiet cannot "
				"be negative");
	if (confirm_machine(&machine, machine_flag, req.repo, &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	/* The records go to a server (--server, $BENCHLINE_SERVER, benchline.json's server), or
	 * into the database. */
	if (repo_toplevel(&root, req.repo ? req.repo : ".", &err) ||
	    config_load(&cfg, root.buf, &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	remote = cli_push_wanted(&push, ctx, &cfg);
	if (remote ? cli_push_connect(&push, &cfg, &err)
		   : store_open(&ctx->store, ctx->db_path, STORE_CREATE, &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	out.machine = machine.buf;
	if (remote) {
		out.push = &push;
		req.measured = remote_measured;
		req.deliver = remote_deliver;
		cli_push_flush(&push, NULL); /* what earlier nights left in the spool goes first */
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
	if ((!remote && store_alerts_last_id(&last_alert, ctx->store, &err)) ||
	    bench_sweep(&res, remote ? NULL : ctx->store, &req, &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	if (remote) {
		/* The server detects after each push; confirm measures here, stores there. */
		if (do_confirm && (ret = sweep_confirm(&confirmed, &regressions, &req, &cfg,
						       pending, &out, NULL, &push, &err)))
			goto done;
		fprintf(stderr,
			"sweep: %zu commit%s measured (%zu already measured, %zu unbuildable), %zu "
			"run%s pushed to %s",
			res.measured, res.measured == 1 ? "" : "s", res.already, res.unbuildable,
			out.pushed, out.pushed == 1 ? "" : "s", push.session->srv->shown);
		if (out.spooled)
			fprintf(stderr, ", %zu kept in the spool", out.spooled);
		if (do_confirm)
			fprintf(stderr, ", %zu alert%s confirmed (%zu Regression%s)", confirmed,
				confirmed == 1 ? "" : "s", regressions,
				regressions == 1 ? "" : "s");
		fputc('\n', stderr);
		ret = cli_push_status(&push);
		goto done;
	}
	/* Detection, with the judged metrics of the repository's benchline.json. */
	memset(&dopts, 0, sizeof(dopts));
	detect_options_from_config(&dopts, &cfg);
	if (detect_run(&dres, ctx->store, &dopts, &err) ||
	    store_alerts_count_after(&new_alerts, ctx->store, last_alert, &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	if (do_confirm && (ret = sweep_confirm(&confirmed, &regressions, &req, &cfg, pending, &out,
					       ctx->store, NULL, &err)))
		goto done;
	for (size_t t = 0; t < BENCH_SWEEP_NTAGS; t++) {
		if (!res.tagged_by[t])
			continue;
		strbuf_addf(&why, "%s%zu %s", why.len ? ", " : ": ", res.tagged_by[t],
			    bench_sweep_tag_name(t));
		if (!strcmp(bench_sweep_tag_name(t), "preflight") && res.busy_why)
			strbuf_addf(&why, ": %s", res.busy_why);
	}
	fprintf(stderr,
		"sweep: %zu commit%s measured (%zu already measured, %zu unbuildable), %zu run%s "
		"stored (%zu record%s: %zu joined their Series, %zu tagged%s), %lld new Suspect%s, "
		"%lld new alert%s",
		res.measured, res.measured == 1 ? "" : "s", res.already, res.unbuildable, res.runs,
		res.runs == 1 ? "" : "s", res.records, res.records == 1 ? "" : "s", res.joined,
		res.tagged, why.buf, (long long)dres.new_suspects,
		dres.new_suspects == 1 ? "" : "s", (long long)new_alerts,
		new_alerts == 1 ? "" : "s");
	if (do_confirm)
		fprintf(stderr, ", %zu alert%s confirmed (%zu Regression%s)", confirmed,
			confirmed == 1 ? "" : "s", regressions, regressions == 1 ? "" : "s");
	fputc('\n', stderr);
done:
	bench_sweep_result_release(&res);
	cli_push_release(&push);
	strbuf_release(&root);
	config_release(&cfg);
	strbuf_release(&machine);
	strbuf_release(&why);
	bl_error_release(&err);
	return ret;
}

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "detect/confirm/confirm.h"
#include "ingest/config/config.h"
#include "ingest/push/push.h"
#include "store/store.h"

/* A step of the use case, on stderr, after any progress line left open. */
static void print_note(const char *line, void *data)
{
	struct cli_progress *progress = data;
	cli_progress_done(progress);
	cli_printf(stderr, "confirm: %s\n", line);
}

static void print_result(const struct confirm_alert_result *r)
{
	const char *outcome =
	    r->outcome != ALERT_NO_OUTCOME ? alert_outcome_name(r->outcome) : "decided by hand";
	printf("alert %lld: %s%s", (long long)r->alert, outcome, r->already ? " (before)" : "");
	if (r->nregressions) {
		printf(": Regression%s", r->nregressions == 1 ? "" : "s");
		for (size_t i = 0; i < r->nregressions; i++)
			printf(" %lld", (long long)r->regressions[i]);
	}
	if (r->note)
		cli_printf(stdout, ": %s", r->note);
	putchar('\n');
}

/*
 * benchline confirm [--repo DIR] [--machine M] [--limit R] [--pending] [--json] [ALERT...]: the
 * open slower alerts of this machine (with --pending the pending ones too, or the alerts named)
 * re-benched and, when they hold, bisected into Regressions (§9.4). Exit 0 when each got an
 * outcome, 2 on an error (usage, database, a repository or command that fails for another
 * reason than a build).
 */
int cmd_confirm(int argc, const char **argv, struct cli_ctx *ctx)
{
	struct confirm_alerts_request req;
	struct confirm_alert_result *res = NULL;
	struct cli_progress progress = {"confirm", 0, 0, 0};
	struct strbuf machine = STRBUF_INIT, root = STRBUF_INIT;
	struct bl_error err = BL_ERROR_INIT;
	struct cli_push push;
	struct config cfg;
	const char *machine_flag = NULL;
	int remote;
	int64_t *ids = NULL;
	size_t n = 0, counts[ALERT_TRANSIENT + 1] = {0}, regressions = 0;
	int json = 0, ret = 0;
	const struct cli_option opts[] = {
	    {OPT_STRING, "repo", &req.repo, "DIR",
	     "the repository (default: the current directory)"},
	    {OPT_STRING, "machine", &machine_flag, "M",
	     "this machine's name (default: benchline.json's machine, else the host name)"},
	    {OPT_DOUBLE, "limit", &req.limit, "RATIO",
	     "the ratio a metric may grow by before it is slower (default: gate.limit, else 1.02)"},
	    {OPT_BOOL, "pending", &req.pending, NULL,
	     "take up the pending slower alerts too (not yet quiet.transient_records records "
	     "after them)"},
	    {OPT_BOOL, "counters-only", &req.counters_only, NULL,
	     "re-bench and bisect by bench.counters' instruction counts alone, nothing timed"},
	    {OPT_BOOL, "json", &json, NULL, "print one JSON array of outcomes"},
	    {OPT_STRING, "server", &push.server, "URL",
	     "take this machine's alerts from a benchline server, post the outcomes there"},
	    {OPT_STRING, "token-file", &push.token_file, "F",
	     "the server's bearer token (a token with the confirm role)"},
	    {OPT_END, NULL, NULL, NULL, NULL},
	};

	memset(&req, 0, sizeof(req));
	cli_push_init(&push);
	config_init(&cfg);
	argc = cli_parse(argc, argv, opts, ctx);
	if (gate_check_limit(req.limit, &err))
		cli_usage_error(ctx->cmd, opts, "%s", err.msg.buf);
	ids = xcalloc((size_t)argc + 1, sizeof(*ids));
	for (int i = 0; i < argc; i++) {
		char *end;
		errno = 0;
		ids[i] = strtoll(argv[i], &end, 10);
		if (errno || end == argv[i] || *end || ids[i] <= 0)
			cli_usage_error(ctx->cmd, opts, "'%s' is not an alert id", argv[i]);
	}
	req.ids = ids;
	req.nids = (size_t)argc;
	if (req.pending && req.nids)
		cli_usage_error(
		    ctx->cmd, opts,
		    "give alert ids or --pending, not both (an id takes a pending alert)");
	if (confirm_machine(&machine, machine_flag, req.repo, &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	req.machine = machine.buf;
	/* A server (--server, $BENCHLINE_SERVER or benchline.json's server) holds the alerts;
	 * else the database does. */
	if (repo_toplevel(&root, req.repo ? req.repo : ".", &err) ||
	    config_load(&cfg, root.buf, &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	req.cfg = &cfg;
	remote = cli_push_wanted(&push, ctx, &cfg);
	if (remote ? cli_push_connect(&push, &cfg, &err)
		   : store_open(&ctx->store, ctx->db_path, 0, &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	progress.tty = isatty(2);
	req.progress = cli_measure_progress;
	req.progress_data = &progress;
	req.note = print_note;
	req.note_data = &progress;
	ret = remote ? confirm_alerts_remote(&res, &n, push.session->srv, &req, &err)
		     : confirm_alerts(&res, &n, ctx->store, &req, &err);
	cli_progress_done(&progress);
	if (ret) {
		ret = cli_fail(&err);
		goto done;
	}
	if (json) {
		json_t *a = json_array();
		for (size_t i = 0; i < n; i++)
			json_array_append_new(a, confirm_alert_result_json(&res[i]));
		cli_json_print(a);
	} else {
		for (size_t i = 0; i < n; i++)
			print_result(&res[i]);
	}
	for (size_t i = 0; i < n; i++) {
		counts[res[i].outcome]++;
		regressions += res[i].nregressions;
	}
	if (!n && !req.nids)
		fprintf(stderr, "confirm: no %s slower alert on '%s' to confirm\n",
			req.pending ? "open or pending" : "open", machine.buf);
	else
		fprintf(stderr,
			"confirm: %zu alert%s: %zu cleared, %zu transient, %zu confirmed (%zu "
			"Regression%s), %zu unbuildable, %zu inconclusive\n",
			n, n == 1 ? "" : "s", counts[ALERT_CLEARED], counts[ALERT_TRANSIENT],
			counts[ALERT_CONFIRMED], regressions, regressions == 1 ? "" : "s",
			counts[ALERT_UNBUILDABLE], counts[ALERT_INCONCLUSIVE]);
done:
	confirm_alert_results_free(res, n);
	free(ids);
	cli_push_release(&push);
	config_release(&cfg);
	strbuf_release(&root);
	strbuf_release(&machine);
	bl_error_release(&err);
	return ret;
}

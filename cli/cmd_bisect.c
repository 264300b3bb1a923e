#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "detect/confirm/confirm.h"
#include "store/store.h"

static void print_probe(const struct confirm_probe *p)
{
	cli_printf(stdout, "probe %.12s %-10s", p->commit,
		   p->skip != CONFIRM_PROBE_MEASURED ? confirm_probe_skip_name(p->skip)
						     : gate_verdict_name(p->verdict));
	if (p->identical)
		printf(" artifacts identical to good's");
	else if (!isnan(p->ratio) && !p->pairs)
		cli_printf(stdout, " %s %.4f (counted)", p->key, p->ratio);
	else if (!isnan(p->ratio))
		cli_printf(stdout, " %s %.4f [%.4f, %.4f], %zu pairs", p->key, p->ratio, p->lo,
			   p->hi, p->pairs);
	if (!isnan(p->count_ratio) && p->pairs)
		printf(", instructions %.4f (counted)", p->count_ratio);
	putchar('\n');
}

/* Whether a pinned commit is stored: unless --no-store, when the database exists or --db
 * named one (created then). A PostgreSQL database that holds no store is as a missing file:
 * nothing is stored there, nor made. The store is opened before measuring, so a database that
 * cannot be opened fails at once rather than after the bisection. */
static int open_store(struct cli_ctx *ctx, int no_store, struct bl_error *err)
{
	struct stat sb;
	int ret;
	if (no_store)
		return 0;
	if (!ctx->db_given && store_is_postgres_url(ctx->db_path)) {
		ret = store_open(&ctx->store, ctx->db_path, 0, err);
		if (ret == BL_ENOTFOUND) {
			bl_error_clear(err);
			return 0;
		}
		return ret;
	}
	if (!ctx->db_given && stat(ctx->db_path, &sb) < 0)
		return 0;
	return store_open(&ctx->store, ctx->db_path, STORE_CREATE, err);
}

/* Stores the pinned commit as a Regression and says so on stderr. */
static int store_pinned(struct cli_ctx *ctx, const struct confirm_bisect_report *report,
			const char *machine, struct bl_error *err)
{
	struct strbuf series = STRBUF_INIT;
	int64_t id;
	int added, ret;
	ret = confirm_bisect_store(&id, &added, &series, ctx->store, report, machine, err);
	if (!ret)
		cli_printf(stderr, "%s Regression %lld: %s at %.12s\n",
			   added ? "bisect: stored" : "bisect: already stored", (long long)id,
			   series.buf, report->pinned.sha);
	strbuf_release(&series);
	return ret;
}

/*
 * benchline bisect [--repo DIR] --good REV --bad REV --benchmark NAME [--metric M]
 * [--limit R] [--machine M] [--no-store] [--json]: the first commit whose source is slower
 * (§9.3), stored as a Regression when there is a database. Exit 0 pinned, 1 not reproduced,
 * 2 an error, 3 inconclusive, 125 good cannot be built.
 */
int cmd_bisect(int argc, const char **argv, struct cli_ctx *ctx)
{
	struct confirm_bisect_request req = {0};
	struct confirm_bisect_report report;
	struct cli_progress progress = {"bisect", isatty(2), 0, 0};
	struct bl_error err = BL_ERROR_INIT;
	struct strbuf machine = STRBUF_INIT;
	const char *machine_flag = NULL;
	int json = 0, no_store = 0, ret;
	const struct cli_option opts[] = {
	    {OPT_STRING, "repo", &req.repo, "DIR",
	     "the repository (default: the current directory)"},
	    {OPT_STRING, "good", &req.good, "REV", "a revision that is not slower"},
	    {OPT_STRING, "bad", &req.bad, "REV", "a later revision that is slower"},
	    {OPT_STRING, "benchmark", &req.benchmark, "NAME", "the benchmark judged (a glob)"},
	    {OPT_STRING, "metric", &req.metric, "M", "its metric judged (default: every one)"},
	    {OPT_DOUBLE, "limit", &req.limit, "RATIO",
	     "the ratio a metric may grow by before it is slower (default: gate.limit, else 1.02)"},
	    {OPT_STRING, "machine", &machine_flag, "M",
	     "the Regression's machine (default: benchline.json's machine, else the host name)"},
	    {OPT_BOOL, "no-store", &no_store, NULL,
	     "do not store the pinned commit as a Regression"},
	    {OPT_BOOL, "counters-only", &req.counters_only, NULL,
	     "decide each probe by bench.counters' instruction count alone, nothing timed"},
	    {OPT_BOOL, "json", &json, NULL, "print the report as JSON"},
	    {OPT_END, NULL, NULL, NULL, NULL},
	};

	argc = cli_parse(argc, argv, opts, ctx);
	if (gate_check_limit(req.limit, &err))
		cli_usage_error(ctx->cmd, opts, "%s", err.msg.buf);
	if (argc)
		cli_usage_error(ctx->cmd, opts, "unexpected argument '%s'", argv[0]);
	if (!req.good || !req.bad || !req.benchmark)
		cli_usage_error(ctx->cmd, opts, "--good, --bad and --benchmark are needed");
	memset(&report, 0, sizeof(report));
	if ((ret = open_store(ctx, no_store, &err)) ||
	    (ctx->store && (ret = confirm_machine(&machine, machine_flag, req.repo, &err)))) {
		ret = cli_fail(&err);
		goto done;
	}
	req.progress = cli_measure_progress;
	req.progress_data = &progress;
	ret = confirm_bisect(&report, &req, &err);
	cli_progress_done(&progress);
	if (ret) {
		ret = cli_fail_measure(ret, &err);
		goto done;
	}
	if (json) {
		cli_json_print(confirm_bisect_json(&report));
	} else {
		for (size_t i = 0; i < report.nprobes; i++)
			print_probe(&report.probes[i]);
		if (report.outcome == CONFIRM_PINNED) {
			/* the pinned line last: scripts take it with tail -1 */
			struct strbuf line = STRBUF_INIT;
			if (report.profile) {
				confirm_profile_line(&line, report.profile);
				cli_printf(stdout, "%s\n", line.buf);
			}
			printf("pinned %s\n", report.pinned.sha);
			strbuf_release(&line);
		} else if (report.outcome == CONFIRM_INCONCLUSIVE)
			printf("inconclusive: the first slower commit is in %.12s..%.12s\n",
			       report.range_first.sha, report.range_last.sha);
		else
			printf("not reproduced: %.12s is not slower than %.12s\n",
			       report.bad.commit, report.good.commit);
	}
	if (report.outcome == CONFIRM_PINNED && ctx->store &&
	    store_pinned(ctx, &report, machine.buf, &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	if (report.profile_note.len)
		cli_printf(stderr, "bisect: %s\n", report.profile_note.buf);
	fprintf(stderr, "bisect: %s, %zu probe%s over %zu distinct source%s\n",
		confirm_bisect_outcome_name(report.outcome), report.nprobes,
		report.nprobes == 1 ? "" : "s", report.candidates,
		report.candidates == 1 ? "" : "s");
	ret = report.outcome == CONFIRM_PINNED		 ? 0
	      : report.outcome == CONFIRM_NOT_REPRODUCED ? 1
							 : 3;
done:
	confirm_bisect_report_release(&report);
	strbuf_release(&machine);
	bl_error_release(&err);
	return ret;
}

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "cli/cli.h"
#include "detect/confirm/confirm.h"

static void print_table(const struct confirm_rebench_report *r)
{
	static const char *const header[] = {"verdict", "ratio", "99% interval", "pairs", "metric"};
	struct cli_table t;
	cli_table_init(&t, header, 5, ".r.r.");
	for (size_t i = 0; i < r->result.n; i++) {
		const struct confirm_metric *m = &r->result.metrics[i];
		cli_table_row(&t);
		cli_table_add(&t, "%s", gate_verdict_name(m->verdict));
		if (isnan(m->ratio)) {
			cli_table_add(&t, "-");
			cli_table_add(&t, "-");
		} else {
			cli_table_add(&t, "%.4f", m->ratio);
			cli_table_add(&t, "[%.4f, %.4f]", m->lo, m->hi);
		}
		cli_table_add(&t, "%zu", m->pairs);
		cli_table_add(&t, "%s", m->key);
	}
	cli_table_print(&t, stdout);
	cli_table_release(&t);
}

/*
 * benchline rebench [--repo DIR] [--benchmark GLOB] [--limit R] [--json] A B: B measured
 * against A, interleaved (§9.2). Exit 0 same or faster (or nothing could differ), 1 slower,
 * 2 an error, 125 a side cannot be built.
 */
int cmd_rebench(int argc, const char **argv, struct cli_ctx *ctx)
{
	struct confirm_rebench_request req = {0};
	struct confirm_rebench_report report;
	struct cli_progress progress = {"rebench", isatty(2), 0, 0};
	struct bl_error err = BL_ERROR_INIT;
	int json = 0, ret;
	const struct cli_option opts[] = {
	    {OPT_STRING, "repo", &req.repo, "DIR",
	     "the repository (default: the current directory)"},
	    {OPT_STRING, "benchmark", &req.benchmark_glob, "GLOB",
	     "only the benchmarks matching GLOB"},
	    {OPT_DOUBLE, "limit", &req.limit, "RATIO",
	     "the ratio a metric may grow by before it is slower (default: gate.limit, else 1.02)"},
	    {OPT_BOOL, "counters-only", &req.counters_only, NULL,
	     "judge by bench.counters' instruction counts alone, no timing rounds"},
	    {OPT_BOOL, "json", &json, NULL, "print the report as JSON"},
	    {OPT_END, NULL, NULL, NULL, NULL},
	};

	argc = cli_parse(argc, argv, opts, ctx);
	if (gate_check_limit(req.limit, &err))
		cli_usage_error(ctx->cmd, opts, "%s", err.msg.buf);
	if (argc != 2)
		cli_usage_error(ctx->cmd, opts, "give two revisions: the reference A and B");
	req.a = argv[0];
	req.b = argv[1];
	req.progress = cli_measure_progress;
	req.progress_data = &progress;
	ret = confirm_rebench_revs(&report, &req, &err);
	cli_progress_done(&progress);
	if (ret) {
		ret = cli_fail_measure(ret, &err);
		goto done;
	}
	if (json) {
		cli_json_print(confirm_rebench_json(&report));
	} else if (!report.identical) {
		print_table(&report);
	}
	if (report.identical)
		fprintf(stderr,
			"rebench: same: the artifacts of %.12s and %.12s are byte-identical (%zu "
			"file%s), so nothing can differ; nothing measured\n",
			report.side[0].commit, report.side[1].commit, report.artifact_files,
			report.artifact_files == 1 ? "" : "s");
	else
		fprintf(stderr, "rebench: %s: %.12s against %.12s, %zu measurement%s, %zu pairs\n",
			gate_verdict_name(report.result.verdict), report.side[1].commit,
			report.side[0].commit, report.result.measurements,
			report.result.measurements == 1 ? "" : "s", report.result.pairs);
	ret = report.result.verdict == GATE_VERDICT_SLOWER;
done:
	confirm_rebench_report_release(&report);
	bl_error_release(&err);
	return ret;
}

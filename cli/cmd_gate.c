#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "detect/confirm/confirm.h"
#include "detect/gate/gate.h"
#include "ingest/repo/repo.h"
#include "store/store.h"

static int write_out(const char *path, const char *text, size_t len, struct bl_error *err)
{
	if (!strcmp(path, "-")) {
		fwrite(text, 1, len, stdout);
		return 0;
	}
	return write_file_atomic(path, text, len, err);
}

/* .benchline/gate-status.json at the repository's root: {passed, failures, unix}. */
static int write_status(const char *repo, const struct gate_report *r, struct bl_error *err)
{
	struct strbuf dir = STRBUF_INIT, path = STRBUF_INIT, text = STRBUF_INIT;
	json_t *status;
	char *json_text;
	int ret = 0;
	if ((ret = repo_state_dir_at(&dir, repo, err)))
		goto done;
	strbuf_addf(&path, "%s/gate-status.json", dir.buf);
	status = json_pack("{s:b, s:I, s:I}", "passed", r->exit_code == 0, "failures",
			   (json_int_t)r->failures, "unix", (json_int_t)r->unix_time);
	json_text = json_write_text(status, 0);
	strbuf_addstr(&text, json_text);
	strbuf_addch(&text, '\n');
	free(json_text);
	json_decref(status);
	ret = write_file_atomic(path.buf, text.buf, text.len, err);
done:
	strbuf_release(&dir);
	strbuf_release(&path);
	strbuf_release(&text);
	return ret;
}

/* Appends the comment to the job summary of a GitHub Actions step ($GITHUB_STEP_SUMMARY), which
 * the step's other commands may also write to. */
static int append_summary(const char *path, const char *text, size_t len, struct bl_error *err)
{
	FILE *f = fopen(path, "a");
	int ret = 0;
	if (!f)
		return bl_error_set(err, BL_EIO, "cannot open the job summary '%s': %s", path,
				    strerror(errno));
	if (fwrite(text, 1, len, f) != len || fputc('\n', f) == EOF)
		ret = bl_error_set(err, BL_EIO, "cannot write the job summary '%s': %s", path,
				   strerror(errno));
	if (fclose(f) && !ret)
		ret = bl_error_set(err, BL_EIO, "cannot write the job summary '%s': %s", path,
				   strerror(errno));
	return ret;
}

/* A usage error: exit 2, or with --bisect-exit 125, so git bisect run skips rather than marks
 * the commit bad. */
static void usage_error(const struct cli_ctx *ctx, const struct cli_option *options, int bisect,
			const char *fmt, ...) __attribute__((format(printf, 4, 5), noreturn));
static void usage_error(const struct cli_ctx *ctx, const struct cli_option *options, int bisect,
			const char *fmt, ...)
{
	struct strbuf msg = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	if (!bisect)
		cli_usage_error(ctx->cmd, options, "%s", msg.buf);
	cli_error("%s", msg.buf);
	cli_print_usage(stderr, ctx->cmd, options);
	strbuf_release(&msg);
	exit(GATE_EXIT_SKIP);
}

/*
 * benchline gate [--repo DIR] [--head REV] [--base REF] [--live] ...: the verdict of §7, from
 * stored records or (--live, §7.10) from the head and the merge base measured now; --settle
 * measures the stored FAIL and UNDECIDED rows again live before the verdict, --undecided fail
 * makes UNDECIDED rows fail (§7.8); exit 0 pass or nothing to compare, 1 regression, 2 error
 * (a side that cannot be built, under --live or --settle), 4 no verdict possible; with
 * --bisect-exit, 125 (git bisect run's skip) for 2 and 4.
 * benchline gate accept --justification TEXT [--headroom PCT] [--only NAME]...: §7.6, exit 0
 * when every named metric was recorded, 3 when some were skipped.
 */
int cmd_gate(int argc, const char **argv, struct cli_ctx *ctx)
{
	const char *repo = ".", *head = NULL, *base = NULL, *ratchet = NULL;
	const char *json_path = NULL, *md_path = NULL, *base_url = NULL, *justification = NULL;
	const char *undecided = NULL;
	double limit = 0, headroom = 0;
	struct cli_list overrides = {0}, excludes = {0}, only = {0};
	struct gate_request req;
	struct gate_options opts;
	struct gate_report report;
	struct bl_error err = BL_ERROR_INIT;
	struct strbuf out = STRBUF_INIT;
	struct cli_progress progress = {"gate", isatty(2), 0, 0};
	const char *summary = getenv("GITHUB_STEP_SUMMARY");
	int accept = 0, live = 0, settle = 0, bisect = 0, allow_dirty = 0, counters_only = 0,
	    no_reuse = 0, ret = 0;
	const struct cli_option options[] = {
	    {OPT_STRING, "repo", &repo, "DIR", "the repository (default: the current directory)"},
	    {OPT_STRING, "head", &head, "REV", "the pull request's head (default HEAD)"},
	    {OPT_STRING, "base", &base, "REF", "what it merges into (default: the main branch)"},
	    {OPT_BOOL, "live", &live, NULL,
	     "measure the head and the merge base now, in worktrees (benchline.json's bench)"},
	    {OPT_BOOL, "allow-dirty", &allow_dirty, NULL,
	     "--live: measure HEAD as committed, despite uncommitted changes to measured paths"},
	    {OPT_BOOL, "settle", &settle, NULL,
	     "measure the stored FAIL and UNDECIDED rows again now, as --live does, before the "
	     "verdict"},
	    {OPT_BOOL, "counters-only", &counters_only, NULL,
	     "--live: judge by bench.counters' instruction counts alone, no timing rounds"},
	    {OPT_BOOL, "no-reuse", &no_reuse, NULL,
	     "--live: count the merge base again even when .benchline/counters.db has it"},
	    {OPT_STRING, "undecided", &undecided, "pass|fail",
	     "whether UNDECIDED rows pass (the default) or fail the gate"},
	    {OPT_DOUBLE, "limit", &limit, "RATIO",
	     "the ratio a metric may grow by (default gate.limit, else 1.02)"},
	    {OPT_LIST, "override", &overrides, "GLOB=PCT",
	     "another limit, in percent, for benchmarks matching GLOB (first match wins)"},
	    {OPT_LIST, "exclude", &excludes, "GLOB", "measure and show, never fail"},
	    {OPT_STRING, "ratchet", &ratchet, "REF",
	     "also compare with the records at REF (a release tag)"},
	    {OPT_STRING, "json", &json_path, "FILE", "write the report as JSON (- for stdout)"},
	    {OPT_STRING, "markdown", &md_path, "FILE",
	     "write a pull-request comment (- for stdout); also $GITHUB_STEP_SUMMARY when set"},
	    {OPT_STRING, "base-url", &base_url, "URL", "link each metric to its chart on URL"},
	    {OPT_BOOL, "bisect-exit", &bisect, NULL,
	     "exit 125 for an error or no verdict, as git bisect run skips a commit"},
	    {OPT_STRING, "justification", &justification, "TEXT", "accept: why the shift is fine"},
	    {OPT_DOUBLE, "headroom", &headroom, "PCT",
	     "accept: a passing metric within PCT points of its limit may be accepted"},
	    {OPT_LIST, "only", &only, "NAME",
	     "accept: only these (globs on BENCHMARK or BENCHMARK:METRIC)"},
	    {OPT_END, NULL, NULL, NULL, NULL},
	};

	memset(&report, 0, sizeof(report));
	memset(&opts, 0, sizeof(opts));
	strbuf_init(&opts.root, 0);
	argc = cli_parse(argc, argv, options, ctx);
	if (argc > 0 && !strcmp(argv[0], "accept")) {
		accept = 1;
		argc--;
		argv++;
	}
	if (argc > 0)
		usage_error(ctx, options, bisect, "unexpected argument '%s'", argv[0]);
	if (json_path && md_path && !strcmp(json_path, "-") && !strcmp(md_path, "-"))
		usage_error(ctx, options, bisect,
			    "--json - and --markdown - both want stdout: give one of them a file");
	if (accept && bisect)
		usage_error(ctx, options, bisect,
			    "--bisect-exit goes with the gate's verdict, not with 'gate accept'");
	if (accept && !justification)
		usage_error(ctx, options, bisect, "accept needs --justification TEXT");
	if (!accept && (justification || only.nr))
		usage_error(ctx, options, bisect,
			    "--justification and --only go with 'gate accept'");
	if (headroom < 0)
		usage_error(ctx, options, bisect, "--headroom is 0 or more points");
	if (live && accept)
		usage_error(ctx, options, bisect,
			    "accept records stored references: not with --live");
	if (live && ratchet)
		usage_error(ctx, options, bisect,
			    "--ratchet compares stored records: not with --live");
	if (live && base_url)
		usage_error(ctx, options, bisect,
			    "--base-url links stored Series: not with --live, whose rows are "
			    "measured now");
	if (settle && live)
		usage_error(ctx, options, bisect,
			    "--settle measures a stored gate's FAIL and UNDECIDED rows again live; "
			    "--live measures every row live already: give one or the other");
	if (settle && accept)
		usage_error(
		    ctx, options, bisect,
		    "--settle goes with the gate's verdict, not with 'gate accept' (the lock "
		    "records stored values)");
	if (allow_dirty && !live)
		usage_error(ctx, options, bisect,
			    "--allow-dirty goes with --live (a stored gate measures nothing)");
	if ((counters_only || no_reuse) && !live)
		usage_error(ctx, options, bisect, "--%s goes with --live",
			    counters_only ? "counters-only" : "no-reuse");
	if (undecided && strcmp(undecided, "pass") && strcmp(undecided, "fail"))
		usage_error(ctx, options, bisect, "--undecided takes pass or fail, not '%s'",
			    undecided);

	memset(&req, 0, sizeof(req));
	req.repo = repo;
	req.head = head;
	req.base = base;
	req.ratchet = ratchet;
	req.limit = limit;
	req.overrides = overrides.items;
	req.n_overrides = overrides.nr;
	req.excludes = excludes.items;
	req.n_excludes = excludes.nr;
	req.for_accept = accept;
	req.undecided_fail = undecided && !strcmp(undecided, "fail");
	req.allow_dirty = allow_dirty;
	req.now = (int64_t)time(NULL);
	req.counters_only = counters_only;
	req.no_reuse = no_reuse;
	/* §9.6: a live gate given a database (--db or $BENCHLINE_DB) keeps and reuses counts
	 * there; without one, in .benchline/counters.db */
	if (ctx->db_given || getenv("BENCHLINE_DB"))
		req.counter_db = ctx->db_path;
	if ((ret = gate_options_build(&opts, &req, &err))) {
		/* A bad --limit or --override is a usage error, as a bad flag is. */
		if (ret == BL_EINVALID)
			usage_error(ctx, options, bisect, "%s", err.msg.buf);
		ret = cli_fail(&err);
		goto done;
	}
	repo = opts.repo_dir;
	/* Before the stored gate runs: --settle without anything to measure with is an error. */
	if (settle && (ret = confirm_gate_settle_ready(&opts, &err))) {
		ret = cli_fail(&err);
		goto done;
	}
	if (live) {
		/* No database: both sides are measured now (a hosted runner keeps none). */
		ret = confirm_gate_live(&report, &opts, cli_measure_progress, &progress, &err);
		cli_progress_done(&progress);
		if (ret) {
			ret = cli_fail(&err);
			goto done;
		}
		if (report.live.dirty_paths)
			cli_printf(stderr,
				   "gate --live: measured %.12s as committed, without the "
				   "uncommitted changes to %s (--allow-dirty)\n",
				   report.head_commit, report.live.dirty_paths);
	} else if ((ret = store_open(&ctx->store, ctx->db_path, 0, &err)) ||
		   (ret = gate_run(&report, ctx->store, &opts, &err))) {
		ret = cli_fail(&err);
		goto done;
	} else if (settle) {
		/* The rows the stored records could not settle, measured again now. */
		ret = confirm_gate_settle(&report, &opts, cli_measure_progress, &progress, &err);
		cli_progress_done(&progress);
		if (ret) {
			ret = cli_fail(&err);
			goto done;
		}
	}

	if (accept) {
		struct gate_accept_options ao = {justification, headroom, only.items, only.nr};
		struct strbuf lock = STRBUF_INIT, log = STRBUF_INIT, path = STRBUF_INIT;
		size_t skipped = 0;
		if (!report.head_checked_out) {
			cli_error("accept writes %s into the working copy, which holds %.12s, not "
				  "the head %.12s: check the head out first, so the lock is "
				  "committed with it",
				  GATE_LOCK_FILE, report.checkout_commit, report.head_commit);
			ret = 2;
			goto done;
		}
		if (report.outcome == GATE_NOTHING_TO_COMPARE ||
		    report.outcome == GATE_NO_VERDICT) {
			fprintf(stderr, "%s\n", report.message);
			ret = report.exit_code;
			goto done;
		}
		if (gate_accept(&lock, &log, &skipped, &report, &ao, &err)) {
			ret = cli_fail(&err);
		} else {
			strbuf_addf(&path, "%s/%s", repo, GATE_LOCK_FILE);
			fputs(log.buf, stdout);
			if (write_file_atomic(path.buf, lock.buf, lock.len, &err))
				ret = cli_fail(&err);
			else
				ret = skipped ? 3 : 0;
		}
		strbuf_release(&lock);
		strbuf_release(&log);
		strbuf_release(&path);
		goto done;
	}

	/* stdout is the report's when --json - or --markdown - asks for it. */
	gate_table(&out, &report);
	cli_printf((json_path && !strcmp(json_path, "-")) || (md_path && !strcmp(md_path, "-"))
		       ? stderr
		       : stdout,
		   "%s", out.buf);
	fflush(stdout);
	if (json_path) {
		struct strbuf t = STRBUF_INIT;
		gate_json_text(&t, &report);
		if (write_out(json_path, t.buf, t.len, &err))
			ret = cli_fail(&err);
		strbuf_release(&t);
		if (ret)
			goto done;
	}
	strbuf_reset(&out);
	gate_markdown(&out, &report, base_url);
	if (md_path && write_out(md_path, out.buf, out.len, &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	if (summary && *summary && append_summary(summary, out.buf, out.len, &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	if (write_status(repo, &report, &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	ret = report.exit_code;
done:
	gate_report_release(&report);
	gate_options_release(&opts);
	cli_list_release(&overrides);
	cli_list_release(&excludes);
	cli_list_release(&only);
	strbuf_release(&out);
	bl_error_release(&err);
	return bisect ? gate_bisect_exit(ret) : ret;
}

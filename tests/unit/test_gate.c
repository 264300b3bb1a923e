/*
 * Unit tests for the gate's pure steps (§7.3): the reference window's band, the effective
 * limit it gives, and the verdict of a ratio interval. Each case is small enough to check by
 * hand; the comments do the arithmetic. The whole gate runs end to end in tests/e2e/t08*.t.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/common.h"
#include "detect/detect.h"
#include "detect/gate/gate.h"

/* got within 1e-12 (relative past 1) of want; NaN passes only when NaN is wanted (a NaN
 * difference compares false with everything, so the test is that it is within, not that it is
 * not outside). */
static void assert_close(double got, double want)
{
	if (got == want || (isnan(got) && isnan(want)))
		return;
	if (!(fabs(got - want) <= 1e-12 * fmax(1, fabs(want))))
		fail_msg("got %.17g, want %.17g", got, want);
}

static void test_band_odd_window(void **state)
{
	/* sorted 98 99 100 101 102: center (rank 3) 100; deviations 0 1 1 2 2: rank 3 is 1;
	 * tolerance max(4 * 1, 3% of 100) = 4; noise 1 / 100 */
	double v[] = {100, 101, 99, 102, 98}, c, t, n;
	(void)state;
	gate_band(&c, &t, &n, v, 5);
	assert_close(c, 100);
	assert_close(t, 4);
	assert_close(n, 0.01);
	/* L = max(1.02, 1 + 4 / 100) */
	assert_close(gate_effective_limit(1.02, c, t), 1.04);
	/* a limit above what the noise asks stays */
	assert_close(gate_effective_limit(1.10, c, t), 1.10);
}

static void test_band_quiet_window_takes_the_floor(void **state)
{
	/* no spread at all: the tolerance is the 3% floor, so L is 1.03 however quiet */
	double v[] = {250, 250, 250}, c, t, n;
	(void)state;
	gate_band(&c, &t, &n, v, 3);
	assert_close(c, 250);
	assert_close(t, 7.5);
	assert_close(n, 0);
	assert_close(gate_effective_limit(1.02, c, t), 1.03);
}

static void test_band_even_window_takes_the_lower_middle(void **state)
{
	/* 10 .. 80: rank ceil(8 / 2) = 4 is 40; deviations 30 20 10 0 10 20 30 40 sorted
	 * 0 10 10 20 20 30 30 40: rank 4 is 20; tolerance max(80, 1.2) = 80; L = 1 + 80/40 */
	double v[] = {80, 10, 70, 20, 60, 30, 50, 40}, c, t, n;
	(void)state;
	gate_band(&c, &t, &n, v, 8);
	assert_close(c, 40);
	assert_close(t, 80);
	assert_close(n, 0.5);
	assert_close(gate_effective_limit(1.02, c, t), 3);
}

static void test_band_too_short(void **state)
{
	/* fewer than 3 records: no band, and the bare limit */
	double v[] = {100, 130}, c, t, n;
	(void)state;
	gate_band(&c, &t, &n, v, 2);
	assert_true(isnan(c) && isnan(t) && isnan(n));
	assert_close(gate_effective_limit(1.02, c, t), 1.02);
	/* a center that is not positive gives no ratio scale either */
	assert_close(gate_effective_limit(1.02, 0, 5), 1.02);
}

static void test_interval_verdicts(void **state)
{
	const double L = 1.03;
	(void)state;
	assert_int_equal(gate_interval_verdict(1.05, 1.10, L, 0), GATE_VERDICT_SLOWER);
	assert_int_equal(gate_interval_verdict(0.90, 0.95, L, 0), GATE_VERDICT_FASTER);
	assert_int_equal(gate_interval_verdict(0.99, 1.02, L, 0), GATE_VERDICT_SAME);
	assert_int_equal(gate_interval_verdict(1.00, 1.05, L, 0), GATE_VERDICT_UNDECIDED);
	/* not slower: the interval ends at or under L, whatever its low end */
	assert_int_equal(gate_interval_verdict(0.96, 1.01, L, 0), GATE_VERDICT_SAME);
	/* the edges: slower needs the whole interval strictly above L; same may touch L */
	assert_int_equal(gate_interval_verdict(L, 1.05, L, 0), GATE_VERDICT_UNDECIDED);
	assert_int_equal(gate_interval_verdict(nextafter(L, 2), 1.05, L, 0), GATE_VERDICT_SLOWER);
	assert_int_equal(gate_interval_verdict(0.98, L, L, 0), GATE_VERDICT_SAME);
	assert_int_equal(gate_interval_verdict(0.98, nextafter(L, 2), L, 0),
			 GATE_VERDICT_UNDECIDED);
	assert_int_equal(gate_interval_verdict(1 / L, 1.0, L, 0), GATE_VERDICT_SAME);
	/* an interval wider than the whole band on both sides decides nothing */
	assert_int_equal(gate_interval_verdict(0.5, 2.0, L, 0), GATE_VERDICT_UNDECIDED);
}

/* §7.3 at its edges: the question is "is it slower?". UNDECIDED only when the interval straddles
 * L (lo <= L < hi); an interval wholly below 1 is FASTER however wide, and one that ends at or
 * under L is not slower even when its low end is far below 1 / L. */
static void test_interval_verdict_edges(void **state)
{
	(void)state;
	/* the row the issue found labelled UNDECIDED under a noisy Series' L = 1.30 (1 / L =
	 * 0.769): wholly below 1, so faster */
	assert_int_equal(gate_interval_verdict(0.5290, 0.8301, 1.30, 0), GATE_VERDICT_FASTER);
	/* wholly below 1 just barely, and reaching 1 */
	assert_int_equal(gate_interval_verdict(0.5, nextafter(1, 0), 1.30, 0), GATE_VERDICT_FASTER);
	assert_int_equal(gate_interval_verdict(0.5, 1.0, 1.30, 0), GATE_VERDICT_SAME);
	/* the README tour's branch on a busy machine: straddles L = 1.04 */
	assert_int_equal(gate_interval_verdict(0.9181, 1.1957, 1.04, 0), GATE_VERDICT_UNDECIDED);
	/* [0.95, 1.01] under L = 1.05: lo < 1 / L = 0.952, hi <= L: not slower, same */
	assert_int_equal(gate_interval_verdict(0.95, 1.01, 1.05, 0), GATE_VERDICT_SAME);
	/* hi <= L but lo < 1 / L, far: still same */
	assert_int_equal(gate_interval_verdict(0.60, 1.02, 1.03, 0), GATE_VERDICT_SAME);
	/* hi just above L: undecided, however low lo is */
	assert_int_equal(gate_interval_verdict(0.60, 1.031, 1.03, 0), GATE_VERDICT_UNDECIDED);
	/* a point interval at L is not slower; just above it is */
	assert_int_equal(gate_interval_verdict(1.03, 1.03, 1.03, 0), GATE_VERDICT_SAME);
	assert_int_equal(gate_interval_verdict(1.0301, 1.0301, 1.03, 0), GATE_VERDICT_SLOWER);
	/* no interval: nothing is decided */
	assert_int_equal(gate_interval_verdict(NAN, 1.0, 1.03, 0), GATE_VERDICT_UNDECIDED);
	assert_int_equal(gate_interval_verdict(0.9, NAN, 1.03, 1), GATE_VERDICT_UNDECIDED);
}

static void test_interval_better_higher_flips(void **state)
{
	const double L = 1.03; /* worse-oriented: 1 / hi and 1 / lo */
	(void)state;
	/* a throughput 5-10% lower is slower, 5-10% higher is faster */
	assert_int_equal(gate_interval_verdict(0.90, 0.95, L, 1), GATE_VERDICT_SLOWER);
	assert_int_equal(gate_interval_verdict(1.05, 1.10, L, 1), GATE_VERDICT_FASTER);
	assert_int_equal(gate_interval_verdict(0.99, 1.02, L, 1), GATE_VERDICT_SAME);
	/* [1/1.00, 1/0.95] = [1, 1.053] straddles L */
	assert_int_equal(gate_interval_verdict(0.95, 1.00, L, 1), GATE_VERDICT_UNDECIDED);
	/* wholly above 1 is faster however wide; down to 1 / L is within the limit */
	assert_int_equal(gate_interval_verdict(1.20, 1.90, 1.30, 1), GATE_VERDICT_FASTER);
	assert_int_equal(gate_interval_verdict(1 / L, 1.60, L, 1), GATE_VERDICT_SAME);
	assert_int_equal(gate_interval_verdict(1.00, 1.60, L, 1), GATE_VERDICT_SAME);
}

/* The label the table shows: FASTER for a PASS judged faster, else the status. */
static void test_row_label(void **state)
{
	struct gate_row r;
	(void)state;
	memset(&r, 0, sizeof(r));
	r.status = GATE_PASS;
	r.verdict = GATE_VERDICT_FASTER;
	assert_string_equal(gate_row_label(&r), "FASTER");
	r.verdict = GATE_VERDICT_SAME;
	assert_string_equal(gate_row_label(&r), "PASS");
	r.status = GATE_EXCL;
	r.verdict = GATE_VERDICT_FASTER;
	assert_string_equal(gate_row_label(&r), "EXCL");
	r.status = GATE_UNDECIDED;
	r.verdict = GATE_VERDICT_UNDECIDED;
	assert_string_equal(gate_row_label(&r), "UNDECIDED");
}

/* Eight timed rows of one metric, each 1% slower and passing on its own: slower across the
 * board, which is SOFT between stored runs and FAIL (counted in failures) under --live. */
static void test_across_the_board_fails_only_live(void **state)
{
	(void)state;
	for (int live = 0; live < 2; live++) {
		struct gate_row rows[9];
		struct gate_comparison c;
		memset(rows, 0, sizeof(rows));
		memset(&c, 0, sizeof(c));
		for (int i = 0; i < 9; i++) {
			rows[i].metric = i < 8 ? (char *)"wall_ns" : (char *)"other";
			rows[i].kind = METRIC_TIMED;
			rows[i].status = GATE_PASS;
			rows[i].ratio = 1.01;
		}
		c.rows = rows;
		c.nrows = 9;
		gate_across_the_board(&c, 1.02, live);
		assert_int_equal(c.nboards, 1);
		assert_string_equal(c.boards[0].metric, "wall_ns");
		assert_int_equal(c.boards[0].n, 8);
		assert_close(c.boards[0].threshold, 1.005);
		assert_close(c.boards[0].lo, 1.01);
		assert_int_equal(c.boards[0].status, live ? GATE_FAIL : GATE_SOFT);
		assert_int_equal(c.failures, (size_t)live);
		assert_non_null(strstr(c.boards[0].note, live ? "fails the gate" : "--live"));
		free(c.boards[0].metric);
		free(c.boards[0].note);
		free(c.boards);
	}
}

/* --bisect-exit: git bisect run reads 125 as "skip this commit"; pass and fail stay good and
 * bad, and accept's 3 is not the gate's to change. */
static void test_bisect_exit(void **state)
{
	(void)state;
	assert_int_equal(gate_bisect_exit(0), 0);
	assert_int_equal(gate_bisect_exit(1), 1);
	assert_int_equal(gate_bisect_exit(2), GATE_EXIT_SKIP);
	assert_int_equal(gate_bisect_exit(4), GATE_EXIT_SKIP);
	assert_int_equal(gate_bisect_exit(3), 3);
}

/* benchline.json's metrics names what is judged: another metric is excluded, and says why. */
static void test_settings_honour_the_judged_metrics(void **state)
{
	struct config cfg;
	struct gate_options o;
	struct gate_settings set;
	char *names[] = {(char *)"real_time"};
	(void)state;
	config_init(&cfg);
	memset(&o, 0, sizeof(o));
	o.cfg = &cfg;
	gate_settings_for(&set, &o, 1.02, "parse", "cpu_time");
	assert_int_equal(set.excluded, 0); /* no list: every metric is judged */
	assert_int_equal(set.unlisted, 0);
	cfg.judged_metrics = names;
	cfg.n_judged_metrics = 1;
	gate_settings_for(&set, &o, 1.02, "parse", "real_time");
	assert_int_equal(set.excluded, 0);
	assert_int_equal(set.unlisted, 0);
	gate_settings_for(&set, &o, 1.02, "parse", "cpu_time");
	assert_int_equal(set.excluded, 1);
	assert_int_equal(set.unlisted, 1);
	assert_close(set.limit, 1.02);
	cfg.judged_metrics = NULL;
	cfg.n_judged_metrics = 0;
	config_release(&cfg);
}

static void md_test_row(struct gate_row *r, const char *metric, enum gate_status status,
			enum gate_verdict verdict, double ref, double head)
{
	memset(r, 0, sizeof(*r));
	r->machine = (char *)"ci";
	r->benchmark = (char *)"parse";
	r->config = (char *)"";
	r->metric = (char *)metric;
	r->unit = (char *)"ns";
	r->kind = METRIC_TIMED;
	r->status = status;
	r->verdict = verdict;
	r->method = GATE_METHOD_HL;
	r->ratio = head / ref;
	r->lo = r->ratio * 0.99;
	r->hi = r->ratio * 1.01;
	r->limit = 1.02;
	r->effective_limit = 1.03;
	r->noise = 0.001;
	r->window = 8;
	r->has_head = r->has_ref = 1;
	r->ref.value = ref;
	r->head.value = head;
}

/* Before → after in one scale, picked by the smaller side so neither is under 1 (§11); a
 * count as it is; a side missing is "-", and the unit follows the reference when it is alone. */
static void test_values_in_one_scale(void **state)
{
	struct gate_row r;
	struct strbuf sb = STRBUF_INIT;
	static const struct {
		const char *unit;
		double ref, head;
		int has_ref, has_head;
		const char *want;
	} cases[] = {
	    {"ns", 66699.3, 96765, 1, 1, "66.7 → 96.8 µs"},
	    {"ns", 998.36, 1084.2, 1, 1, "998 → 1084 ns"},
	    {"B/s", 982603401.0, 1.2e9, 1, 1, "983 → 1200 MB/s"},
	    {"allocs", 12, 12, 1, 1, "12 → 12 allocs"},
	    {"", 2000000, 2200000, 1, 1, "2000000 → 2200000"},
	    {"ns", 5, NAN, 1, 0, "5 ns → -"},
	    {"us", NAN, 1500, 0, 1, "- → 1.5 ms"},
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&r, 0, sizeof(r));
		r.unit = (char *)cases[i].unit;
		r.has_ref = cases[i].has_ref;
		r.has_head = cases[i].has_head;
		r.ref.value = cases[i].ref;
		r.head.value = cases[i].head;
		strbuf_reset(&sb);
		gate_add_values(&sb, &r);
		assert_string_equal(sb.buf, cases[i].want);
	}
	strbuf_release(&sb);
}

/* The comment: its marker first, the subjects shown as text, only the rows that need a look
 * in the first table, the widened limit marked and explained, every row in <details>. */
static void test_markdown_comment(void **state)
{
	struct gate_report r;
	struct gate_row rows[3];
	struct strbuf md = STRBUF_INIT;
	const char *details;
	(void)state;
	memset(&r, 0, sizeof(r));
	r.outcome = GATE_OUTCOME_FAIL;
	r.exit_code = 1;
	r.limit = 1.02;
	memcpy(r.head_commit, "aaaaaaaaaaaabbbbbbbbbbbbbbbbbbbbbbbbbbbb", 41);
	r.head_subject = (char *)"make *all* <b>lookups</b> faster";
	r.main.ref_name = (char *)"main";
	memcpy(r.main.commit, "ccccccccccccdddddddddddddddddddddddddddd", 41);
	md_test_row(&rows[0], "real_time", GATE_FAIL, GATE_VERDICT_SLOWER, 66699, 96765);
	md_test_row(&rows[1], "cpu_time", GATE_PASS, GATE_VERDICT_SAME, 800, 801);
	md_test_row(&rows[2], "wall_ns", GATE_MISSING, GATE_VERDICT_NONE, 5, NAN);
	rows[2].has_head = 0;
	r.main.rows = rows;
	r.main.nrows = 3;
	r.main.failures = 1;
	gate_markdown(&md, &r, NULL);

	assert_int_equal(strncmp(md.buf, GATE_MARKDOWN_MARKER "\n### benchline gate: FAIL\n",
				 strlen(GATE_MARKDOWN_MARKER) + 26),
			 0);
	assert_non_null(strstr(md.buf,
			       "Head `aaaaaaaaaaaa` (make \\*all\\* &lt;b\\>lookups&lt;/b\\> "
			       "faster) against `main`, merge base `cccccccccccc`,"));
	details = strstr(md.buf, "<details><summary>Every compared metric (3)</summary>");
	assert_non_null(details);
	/* the first table: the failure and the missing metric, not the pass; values in the unit
	 * their size calls for, one scale for both sides (§11), changes with one decimal */
	assert_non_null(strstr(md.buf,
			       "| FAIL | parse | real_time | ci | 66.7 → 96.8 µs | +45.1% | "
			       "[+43.6%, +46.5%] | +3.0% † | 0.1% |  |"));
	assert_true(strstr(md.buf, "| MISSING | parse | wall_ns | ci | 5 ns → - |") < details);
	assert_true(strstr(md.buf, "| PASS | parse | cpu_time |") > details);
	assert_non_null(strstr(md.buf, "† Wider than the +2.0% limit because of the Series' own "
				       "noise"));
	assert_non_null(strstr(md.buf, "benchline gate accept --justification"));
	assert_non_null(strstr(details, "\n</details>\n"));
	strbuf_release(&md);

	/* nothing failing, nothing widened: no accept hint, no footnote */
	rows[0].status = GATE_PASS;
	rows[0].verdict = GATE_VERDICT_SAME;
	for (int i = 0; i < 3; i++)
		rows[i].effective_limit = 1.02;
	r.outcome = GATE_OUTCOME_PASS;
	r.main.failures = 0;
	gate_markdown(&md, &r, NULL);
	assert_null(strstr(md.buf, "gate accept"));
	assert_null(strstr(md.buf, "†"));
	strbuf_release(&md);
}

/* A suite of thousands of benchmarks still makes a comment GitHub accepts: the tables stop
 * within the budget and count what they left out. */
static void test_markdown_fits_a_comment(void **state)
{
	enum { NROWS = 3000 };
	struct gate_report r;
	struct gate_row *rows = calloc(NROWS, sizeof(*rows));
	struct strbuf md = STRBUF_INIT;
	(void)state;
	memset(&r, 0, sizeof(r));
	r.outcome = GATE_OUTCOME_FAIL;
	r.limit = 1.02;
	r.main.ref_name = (char *)"main";
	for (int i = 0; i < NROWS; i++)
		md_test_row(&rows[i], "real_time", i % 2 ? GATE_FAIL : GATE_PASS,
			    i % 2 ? GATE_VERDICT_SLOWER : GATE_VERDICT_SAME, 1000, 1100);
	r.main.rows = rows;
	r.main.nrows = NROWS;
	r.main.failures = NROWS / 2;
	gate_markdown(&md, &r, "https://bench.example.org");
	assert_true(md.len < GATE_MARKDOWN_LIMIT);
	assert_non_null(strstr(md.buf, "more rows left out: a pull-request comment holds"));
	assert_non_null(strstr(md.buf, "\n</details>\n"));
	strbuf_release(&md);
	free(rows);
}

/* Undecided rows never hide (§7.8): the report counts them, the verdict line says so, and
 * under --undecided fail they fail the gate (exit 1). A FAIL board counts as a failure. */
static void test_report_decide_counts_undecided(void **state)
{
	struct gate_report r;
	struct gate_row rows[3];
	struct gate_board board;
	struct strbuf out = STRBUF_INIT;
	(void)state;
	memset(&r, 0, sizeof(r));
	r.limit = 1.02;
	r.main.ref_name = (char *)"main";
	md_test_row(&rows[0], "a", GATE_UNDECIDED, GATE_VERDICT_UNDECIDED, 100, 101);
	md_test_row(&rows[1], "b", GATE_UNDECIDED, GATE_VERDICT_UNDECIDED, 100, 99);
	md_test_row(&rows[2], "c", GATE_PASS, GATE_VERDICT_FASTER, 100, 70);
	r.main.rows = rows;
	r.main.nrows = 3;

	gate_report_decide(&r);
	assert_int_equal(r.outcome, GATE_OUTCOME_PASS);
	assert_int_equal(r.exit_code, 0);
	assert_int_equal(r.failures, 0);
	assert_int_equal(r.undecided, 2);
	gate_table(&out, &r);
	assert_non_null(strstr(out.buf, "\nFASTER    0.7000  "));
	assert_non_null(
	    strstr(out.buf, "\ngate: pass, 2 undecided: measured too loosely to tell\n"));
	strbuf_reset(&out);

	r.undecided_fail = 1;
	gate_report_decide(&r);
	assert_int_equal(r.outcome, GATE_OUTCOME_FAIL);
	assert_int_equal(r.exit_code, 1);
	assert_int_equal(r.failures, 2);
	assert_int_equal(r.main.failures, 2);
	gate_table(&out, &r);
	assert_non_null(strstr(out.buf, "\ngate: fail (2 failing), 2 undecided: measured too "
					"loosely to tell, failing under --undecided fail\n"));
	strbuf_reset(&out);

	/* nothing undecided: the line is as it always was; a FAIL board fails */
	r.undecided_fail = 0;
	rows[0].status = rows[1].status = GATE_PASS;
	memset(&board, 0, sizeof(board));
	board.metric = (char *)"real_time";
	board.status = GATE_FAIL;
	r.main.boards = &board;
	r.main.nboards = 1;
	gate_report_decide(&r);
	assert_int_equal(r.outcome, GATE_OUTCOME_FAIL);
	assert_int_equal(r.failures, 1);
	assert_int_equal(r.undecided, 0);
	gate_table(&out, &r);
	assert_non_null(strstr(out.buf, "\ngate: fail (1 failing)\n"));
	strbuf_reset(&out);

	/* no verdict stays no verdict */
	r.main.nboards = 0;
	r.outcome = GATE_NO_VERDICT;
	r.exit_code = 4;
	rows[0].status = GATE_UNDECIDED;
	gate_report_decide(&r);
	assert_int_equal(r.outcome, GATE_NO_VERDICT);
	assert_int_equal(r.exit_code, 4);
	assert_int_equal(r.undecided, 1);
	strbuf_release(&out);
}

/* The comment: the undecided count in its headline; a FASTER row listed as FASTER, not counted
 * among the metrics within their limits; an undecided row counted (and listed under
 * --undecided fail); a row --settle measured again marked settled live. */
static void test_markdown_faster_undecided_settled(void **state)
{
	struct gate_report r;
	struct gate_row rows[4];
	struct strbuf md = STRBUF_INIT;
	const char *details;
	(void)state;
	memset(&r, 0, sizeof(r));
	r.limit = 1.02;
	r.main.ref_name = (char *)"main";
	md_test_row(&rows[0], "faster", GATE_PASS, GATE_VERDICT_FASTER, 1000, 693);
	md_test_row(&rows[1], "loose", GATE_UNDECIDED, GATE_VERDICT_UNDECIDED, 1000, 1009);
	md_test_row(&rows[2], "same", GATE_PASS, GATE_VERDICT_SAME, 1000, 1001);
	md_test_row(&rows[3], "allocs", GATE_PASS, GATE_VERDICT_SAME, 12, 12);
	r.main.rows = rows;
	r.main.nrows = 4;
	gate_report_decide(&r);
	gate_markdown(&md, &r, NULL);
	assert_non_null(strstr(md.buf, "\n### benchline gate: PASS, 1 undecided: measured too "
				       "loosely to tell\n"));
	details = strstr(md.buf, "<details>");
	assert_non_null(details);
	assert_true(strstr(md.buf, "| FASTER | parse | faster |") < details);
	assert_true(strstr(md.buf, "| UNDECIDED | parse | loose |") > details);
	assert_non_null(strstr(md.buf, "\n2 other metrics within their limits; 1 undecided: "
				       "measured too loosely to tell (the interval straddles the "
				       "limit; every row is in the details below).\n"));
	assert_null(strstr(md.buf, "unchanged"));
	assert_non_null(strstr(md.buf, "`benchline gate --settle` measures them"));
	strbuf_release(&md);

	/* --undecided fail: it fails, so it is listed */
	r.undecided_fail = 1;
	gate_report_decide(&r);
	gate_markdown(&md, &r, NULL);
	assert_non_null(strstr(md.buf, "### benchline gate: FAIL, 1 undecided: measured too "
				       "loosely to tell, failing under --undecided fail\n"));
	assert_non_null(strstr(md.buf, ": 1 failing of 4 compared metrics (1 of them undecided, "
				       "failing under `--undecided fail`)."));
	details = strstr(md.buf, "<details>");
	assert_true(strstr(md.buf, "| UNDECIDED | parse | loose |") < details);
	strbuf_release(&md);

	/* --settle: the row measured again is marked, and listed whatever it came to */
	r.undecided_fail = 0;
	r.settle.asked = 1;
	memcpy(r.settle.machine, "box", 4);
	r.settle.rows = r.settle.settled = 1;
	r.settle.measurements = 1;
	r.settle.pairs = 10;
	rows[1].status = GATE_PASS;
	rows[1].verdict = GATE_VERDICT_SAME;
	rows[1].settled = 1;
	gate_report_decide(&r);
	gate_markdown(&md, &r, NULL);
	assert_non_null(strstr(md.buf, "\n### benchline gate: PASS\n"));
	assert_non_null(strstr(md.buf, "`--settle`: 1 `FAIL` and `UNDECIDED` row measured again "
				       "now on `box`"));
	details = strstr(md.buf, "<details>");
	assert_true(strstr(md.buf, "| PASS (settled live) | parse | loose |") < details);
	assert_null(strstr(md.buf, "`benchline gate --settle` measures them"));
	strbuf_release(&md);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_band_odd_window),
	    cmocka_unit_test(test_band_quiet_window_takes_the_floor),
	    cmocka_unit_test(test_band_even_window_takes_the_lower_middle),
	    cmocka_unit_test(test_band_too_short),
	    cmocka_unit_test(test_interval_verdicts),
	    cmocka_unit_test(test_interval_verdict_edges),
	    cmocka_unit_test(test_interval_better_higher_flips),
	    cmocka_unit_test(test_row_label),
	    cmocka_unit_test(test_report_decide_counts_undecided),
	    cmocka_unit_test(test_markdown_faster_undecided_settled),
	    cmocka_unit_test(test_across_the_board_fails_only_live),
	    cmocka_unit_test(test_bisect_exit),
	    cmocka_unit_test(test_settings_honour_the_judged_metrics),
	    cmocka_unit_test(test_values_in_one_scale),
	    cmocka_unit_test(test_markdown_comment),
	    cmocka_unit_test(test_markdown_fits_a_comment),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

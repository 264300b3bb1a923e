/*
 * Unit tests for Regressions and triage (§9.3, §9.5): storing a pinned bisection (once per
 * Series and commit, its seq, subject and pull request from main's history), listing them, and
 * the issue triage writes for an alert: its title (the largest Regression, "+N more"), its
 * Markdown body (escaped, chart links, each probe log once), its JSON, and --mark-filed.
 */
#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/common.h"
#include "detect/confirm/confirm.h"
#include "store/store.h"
#include "tests/unit/unit_store.h"

#define SHA_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define SHA_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define SHA_C "cccccccccccccccccccccccccccccccccccccccc"
#define SHA_G "0000000000000000000000000000000000000000"

/* A Regression as the store lists it, with the fields a test sets. */
static struct store_regression reg(int64_t id, const char *benchmark, const char *config,
				   const char *metric, const char *commit, double ratio)
{
	struct store_regression r;
	memset(&r, 0, sizeof(r));
	r.id = id;
	r.alert_id = 7;
	r.machine = "m1";
	r.benchmark = benchmark;
	r.config = config;
	r.metric = metric;
	r.commit = commit;
	r.source_hash = commit;
	r.subject = "Make it faster (#12)";
	r.pr = 12;
	r.ratio = ratio;
	r.lo = ratio - 0.01;
	r.hi = ratio + 0.01;
	r.reference_commit = SHA_G;
	r.probes = "[]";
	r.seq = -1;
	return r;
}

static void alert_issue(struct confirm_triage_issue *is)
{
	struct store_triage_alert a = {7, "m1", SHA_A, SUSPECT_SLOWER, SUSPECT_CONFIRMED, 2,
				       0, 0,	0};
	confirm_triage_issue_init(is, &a);
}

static void title_names_the_one_regression(void **state)
{
	struct confirm_triage_issue is;
	struct store_regression r = reg(3, "parse", "", "wall_ms", SHA_B, 1.152);
	(void)state;
	alert_issue(&is);
	confirm_triage_issue_add(&is, &r);
	confirm_triage_issue_write(&is, NULL);
	assert_string_equal(is.title.buf, "parse wall_ms +15.2% on m1 at bbbbbbbbbbbb (#12)");
	confirm_triage_issue_release(&is);
}

/* The body says which opinion marked the alert's Suspects (§6, §6.1). */
static void body_says_which_opinion_found_it(void **state)
{
	struct confirm_triage_issue is;
	struct store_regression r = reg(3, "parse", "", "wall_ms", SHA_B, 1.152);
	struct store_triage_alert a = {7, "m1", SHA_A, SUSPECT_SLOWER, SUSPECT_CONFIRMED, 2,
				       0, 0,	0};
	(void)state;
	a.by_change_point = 1;
	confirm_triage_issue_init(&is, &a);
	confirm_triage_issue_add(&is, &r);
	confirm_triage_issue_write(&is, NULL);
	assert_non_null(strstr(is.body.buf, "\n- **Found by:** the change-point search (§6.1): "
					    "a slower level that held 8 records"));
	assert_null(strstr(is.body.buf, "the band (§6)"));
	confirm_triage_issue_release(&is);
	a.by_band = 1;
	confirm_triage_issue_init(&is, &a);
	confirm_triage_issue_add(&is, &r);
	confirm_triage_issue_write(&is, NULL);
	assert_non_null(strstr(is.body.buf, "\n- **Found by:** the band (§6): a record outside "
					    "the band of the 8 before it; and the change-point "
					    "search (§6.1)"));
	confirm_triage_issue_release(&is);
	/* an alert with no Suspects left says nothing of them */
	a.by_band = a.by_change_point = 0;
	confirm_triage_issue_init(&is, &a);
	confirm_triage_issue_add(&is, &r);
	confirm_triage_issue_write(&is, NULL);
	assert_null(strstr(is.body.buf, "Found by"));
	confirm_triage_issue_release(&is);
}

static void title_names_the_largest_and_how_many_more(void **state)
{
	struct confirm_triage_issue is;
	/* 0.8 on a higher-is-better metric is a larger step than 1.2 (|log 0.8| > |log 1.2|). */
	struct store_regression a = reg(1, "parse", "", "wall_ms", SHA_A, 1.05);
	struct store_regression b = reg(2, "render", "4k", "frame_ms", SHA_B, 1.2);
	struct store_regression c = reg(3, "parse", "", "ops_per_s", SHA_C, 0.8);
	(void)state;
	alert_issue(&is);
	c.pr = 0;
	confirm_triage_issue_add(&is, &a);
	confirm_triage_issue_add(&is, &b);
	confirm_triage_issue_add(&is, &c);
	confirm_triage_issue_write(&is, NULL);
	assert_string_equal(is.title.buf, "parse ops_per_s -20.0% on m1 at cccccccccccc +2 more");
	assert_int_equal(is.regs[0].id, 3);
	assert_int_equal(is.regs[1].id, 2);
	assert_int_equal(is.regs[2].id, 1);
	confirm_triage_issue_release(&is);
}

static void body_escapes_what_markdown_would_read(void **state)
{
	struct confirm_triage_issue is;
	struct store_regression r = reg(1, "<img src=x>|*b*", "a_b", "t", SHA_B, 1.1);
	(void)state;
	r.subject = "Ping @team, see [x](javascript:1) & `code`\nsecond line";
	alert_issue(&is);
	confirm_triage_issue_add(&is, &r);
	confirm_triage_issue_write(&is, NULL);
	assert_non_null(strstr(is.body.buf, "\\<img src=x\\>\\|\\*b\\* \\[a\\_b\\] t |"));
	assert_non_null(strstr(is.body.buf, "Ping \\@team, see \\[x\\](javascript:1) \\& "
					    "\\`code\\` second line\n"));
	for (const char *p = is.body.buf; (p = strchr(p, '<')); p++)
		assert_int_equal(p[-1], '\\');
	/* No chart column without a base URL. */
	assert_null(strstr(is.body.buf, "chart"));
	/* A title is plain text on one line. */
	assert_string_equal(is.title.buf,
			    "<img src=x>|*b* [a_b] t +10.0% on m1 at bbbbbbbbbbbb (#12)");
	confirm_triage_issue_release(&is);
}

static void body_links_each_chart_under_the_base_url(void **state)
{
	struct confirm_triage_issue is;
	struct store_regression r = reg(1, "town", "2560x1440/1800f", "gpu_frame_us", SHA_B, 1.1);
	(void)state;
	alert_issue(&is);
	confirm_triage_issue_add(&is, &r);
	confirm_triage_issue_write(&is, "https://ci.example/bench//");
	assert_non_null(strstr(is.body.buf, "| chart |\n|---|---:|---|---|---|---|---|\n"));
	assert_non_null(strstr(
	    is.body.buf,
	    "[chart](https://ci.example/bench/series/m1/town/2560x1440%2F1800f/gpu_frame_us) |\n"));
	confirm_triage_issue_release(&is);
}

static void one_bisection_s_log_is_shown_once(void **state)
{
	static const char probes[] =
	    "[{\"commit\":\"" SHA_B "\",\"verdict\":\"slower\",\"skipped\":null,"
	    "\"identical_artifacts\":false,\"metric\":\"x a\",\"ratio\":1.1,\"ci_low\":1.05,"
	    "\"ci_high\":1.15,\"pairs\":20},{\"commit\":\"" SHA_C "\",\"verdict\":\"same\","
	    "\"skipped\":null,\"identical_artifacts\":true,\"metric\":null,\"ratio\":null,"
	    "\"ci_low\":null,\"ci_high\":null,\"pairs\":0}]";
	struct confirm_triage_issue is;
	struct store_regression a = reg(1, "x", "", "a", SHA_B, 1.1);
	struct store_regression b = reg(2, "x", "", "b", SHA_B, 1.05);
	const char *log;
	(void)state;
	a.probes = b.probes = probes;
	alert_issue(&is);
	confirm_triage_issue_add(&is, &a);
	confirm_triage_issue_add(&is, &b);
	confirm_triage_issue_write(&is, NULL);
	assert_non_null(log = strstr(is.body.buf, "**x a, x b**: each probe measured against "
						  "good `000000000000`, the ends first.\n"));
	assert_null(strstr(strstr(log, "ends first.") + 1, "each probe measured"));
	assert_non_null(strstr(log, "| `bbbbbbbbbbbb` | slower | x a | 1.1000 | [1.0500, 1.1500] | "
				    "20 |\n"));
	assert_non_null(strstr(log, "| `cccccccccccc` | same (artifacts identical to good's) |  "
				    "| – | – | 0 |\n"));
	confirm_triage_issue_release(&is);
}

static void json_has_the_five_keys(void **state)
{
	struct confirm_triage_issue is;
	struct store_regression a = reg(4, "p", "", "t", SHA_B, 1.1);
	struct store_regression b = reg(9, "p", "", "u", SHA_B, 1.3);
	json_t *o;
	char *text;
	(void)state;
	alert_issue(&is);
	confirm_triage_issue_add(&is, &a);
	confirm_triage_issue_add(&is, &b);
	confirm_triage_issue_write(&is, NULL);
	o = confirm_triage_json(&is);
	assert_int_equal(json_object_size(o), 5);
	assert_int_equal(json_integer_value(json_object_get(o, "id")), 7);
	assert_string_equal(json_string_value(json_object_get(o, "title")), is.title.buf);
	assert_string_equal(json_string_value(json_object_get(o, "body")), is.body.buf);
	text = json_dumps(json_object_get(o, "labels"), JSON_COMPACT);
	assert_string_equal(text, "[\"performance\",\"needs-triage\"]");
	free(text);
	text = json_dumps(json_object_get(o, "regressions"), JSON_COMPACT);
	assert_string_equal(text, "[9,4]");
	free(text);
	json_decref(o);
	confirm_triage_issue_release(&is);
}

static void mark_filed_arguments(void **state)
{
	static const char *const bad[] = {"",
					  "=",
					  "1",
					  "1=",
					  "=u",
					  "x=u",
					  "0=u",
					  "-1=u",
					  "1=a b",
					  "1=a\tb",
					  "99999999999999999999=u"};
	struct bl_error err = BL_ERROR_INIT;
	const char *url;
	int64_t id;
	(void)state;
	assert_int_equal(confirm_triage_parse_filed(&id, &url, "12=https://x/1?a=b", &err), 0);
	assert_int_equal(id, 12);
	assert_string_equal(url, "https://x/1?a=b");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(confirm_triage_parse_filed(&id, &url, bad[i], &err), BL_EINVALID);
		assert_non_null(strstr(err.msg.buf, "--mark-filed wants ALERT=URL"));
		bl_error_clear(&err);
	}
	bl_error_release(&err);
}

/* A pinned bisection: bad's source slower, a neutral commit the same, the step slower. */
static void pinned_report(struct confirm_bisect_report *r)
{
	memset(r, 0, sizeof(*r));
	r->outcome = CONFIRM_PINNED;
	memcpy(r->good.commit, SHA_G, 41);
	memcpy(r->good.source_hash, SHA_G, 41);
	memcpy(r->pinned.sha, SHA_B, 41);
	memcpy(r->pinned.source_hash, SHA_B, 41);
	r->probes = xcalloc(3, sizeof(*r->probes));
	r->nprobes = 3;
	for (size_t i = 0; i < 3; i++) {
		struct confirm_probe *p = &r->probes[i];
		memcpy(p->commit, i == 0 ? SHA_C : i == 1 ? SHA_A : SHA_B, 41);
		memcpy(p->source_hash, p->commit, 41);
		p->verdict = i == 1 ? GATE_VERDICT_SAME : GATE_VERDICT_SLOWER;
		p->ratio = i == 1 ? NAN : 1.1 + 0.01 * (double)i;
		p->lo = i == 1 ? NAN : p->ratio - 0.02;
		p->hi = i == 1 ? NAN : p->ratio + 0.02;
		p->pairs = i == 1 ? 0 : 10;
		p->identical = i == 1;
		if (i != 1) {
			p->key = xstrdup("loop work");
			p->benchmark = xstrdup("loop");
			p->config = xstrdup("");
			p->metric = xstrdup("work");
		}
	}
}

struct listed {
	size_t n;
	int64_t ids[8], seq[8], pr[8];
	double ratio[8];
	char subject[8][64];
	char probes[2048];
};

static int list_one(const struct store_regression *r, void *data)
{
	struct listed *l = data;
	if (l->n < 8) {
		l->ids[l->n] = r->id;
		l->seq[l->n] = r->seq;
		l->pr[l->n] = r->pr;
		l->ratio[l->n] = r->ratio;
		snprintf(l->subject[l->n], sizeof(l->subject[0]), "%s",
			 r->subject ? r->subject : "-");
		snprintf(l->probes, sizeof(l->probes), "%s", r->probes);
	}
	l->n++;
	return 0;
}

static int series_count(const struct store_series *s, void *data)
{
	*(int64_t *)data = s->regressions;
	return 0;
}

/* One standing record of (machine, benchmark, "") with one counted metric. */
static void add_record(struct store *st, const char *machine, const char *benchmark,
		       const char *metric)
{
	struct bl_error err = BL_ERROR_INIT;
	struct store_run run;
	struct store_metric m;
	struct store_key key;
	int64_t run_id;
	memset(&run, 0, sizeof(run));
	assert_int_equal(store_machine(&run.machine_id, NULL, st, machine, NULL, &err), 0);
	assert_int_equal(store_benchmark(&run.benchmark_id, st, benchmark, &err), 0);
	run.digest = "d1";
	run.config = "";
	run.source_hash = SHA_A;
	run.harness_version = 1;
	run.commit = SHA_A;
	run.committed_at = NAN;
	run.profile = "release";
	run.primary_metric = metric;
	run.quietness = NAN;
	run.raw = "{}";
	assert_int_equal(store_insert_run(&run_id, st, &run, &err), 0);
	memset(&m, 0, sizeof(m));
	m.name = metric;
	m.kind = METRIC_COUNTED;
	m.unit = "n";
	m.median = m.p95 = NAN;
	m.value = 1;
	m.n = -1;
	assert_int_equal(store_insert_metric(st, run_id, &m, &err), 0);
	key.machine_id = run.machine_id;
	key.benchmark_id = run.benchmark_id;
	key.config = "";
	key.source_hash = SHA_A;
	key.harness_version = 1;
	assert_int_equal(store_set_standing(st, &key, run_id, &err), 0);
	bl_error_release(&err);
}

static void exec_sql(const char *path, const char *sql)
{
	char *done = unit_sql(path, sql);
	assert_non_null(done);
	free(done);
}

static void a_pinned_bisection_is_stored_once_and_listed(void **state)
{
	struct confirm_bisect_report r;
	struct bl_error err = BL_ERROR_INIT;
	struct store_commit c;
	struct listed l;
	struct strbuf series = STRBUF_INIT;
	char path[160], *meta = NULL;
	struct store *st = unit_store_open(path, sizeof(path), "test_triage");
	int64_t id = 0, id2 = 0, count = -1;
	int added = 0;
	(void)state;

	/* The pinned commit is on synced main: its seq, subject and pull request come from there.
	 */
	memset(&c, 0, sizeof(c));
	memcpy(c.sha, SHA_B, 41);
	memcpy(c.source_hash, SHA_B, 41);
	c.seq = 5;
	c.subject = "Parse it twice (#31)";
	c.pr = 31;
	assert_int_equal(store_insert_commit(st, &c, &err), 0);
	pinned_report(&r);
	assert_int_equal(confirm_bisect_store(&id, &added, &series, st, &r, "m1", &err), 0);
	assert_true(added);
	assert_int_equal(id, 1);
	assert_string_equal(series.buf, "m1/loop//work");
	assert_int_equal(store_get_meta(&meta, st, "detect_full", &err), 0);
	assert_string_equal(meta, "a Regression was pinned");
	free(meta);

	/* Again: the same Series and commit keep their Regression. */
	assert_int_equal(
	    confirm_store_regression(&id2, &added, st, &r, "m1", "loop", "", "work", 0, &err), 0);
	assert_false(added);
	assert_int_equal(id2, 1);
	/* Another Series of the same bisection, for alert 0 still. */
	assert_int_equal(
	    confirm_store_regression(&id2, &added, st, &r, "m1", "loop", "", "cpu", 0, &err), 0);
	assert_true(added);
	assert_int_equal(id2, 2);

	memset(&l, 0, sizeof(l));
	assert_int_equal(store_each_regression(st, 0, list_one, &l, &err), 0);
	assert_int_equal(l.n, 2);
	assert_int_equal(l.ids[0], 1);
	assert_int_equal(l.seq[0], 5);
	assert_int_equal(l.pr[0], 31);
	assert_string_equal(l.subject[0], "Parse it twice (#31)");
	/* The pinned probe's figures: the last slower probe, at the pinned commit. */
	assert_true(fabs(l.ratio[0] - 1.12) < 1e-12);
	assert_non_null(strstr(l.probes, "\"commit\":\"" SHA_C "\""));
	assert_non_null(strstr(l.probes, "\"identical_artifacts\":true"));

	memset(&l, 0, sizeof(l));
	assert_int_equal(store_series_regressions(st, "m1", "loop", "", "work", list_one, &l, &err),
			 0);
	assert_int_equal(l.n, 1);
	memset(&l, 0, sizeof(l));
	assert_int_equal(store_each_regression(st, 7, list_one, &l, &err), 0);
	assert_int_equal(l.n, 0);

	/* A report that pinned nothing stores nothing. */
	r.outcome = CONFIRM_NOT_REPRODUCED;
	assert_int_equal(
	    confirm_store_regression(&id2, &added, st, &r, "m1", "loop", "", "x", 0, &err),
	    BL_EINVALID);
	assert_non_null(strstr(err.msg.buf, "pinned no commit (not_reproduced)"));
	bl_error_clear(&err);

	/* The Series listing counts a Series' Regressions (it needs a record to exist). */
	add_record(st, "m1", "loop", "work");
	assert_int_equal(store_each_series(st, NULL, series_count, &count, &err), 0);
	assert_int_equal(count, 1);

	strbuf_release(&series);
	confirm_bisect_report_release(&r);
	bl_error_release(&err);
	unit_store_close(st, path);
}

static void triage_lists_an_alert_until_it_is_filed(void **state)
{
	struct confirm_bisect_report r;
	struct bl_error err = BL_ERROR_INIT;
	struct confirm_triage_issue *issues = NULL;
	char path[160];
	struct store *st = unit_store_open(path, sizeof(path), "test_triage");
	int64_t id, ids[2] = {1, 5};
	const char *urls[2] = {"https://x/1", "https://x/5"};
	size_t n = 0;
	(void)state;

	pinned_report(&r);
	assert_int_equal(
	    confirm_store_regression(&id, NULL, st, &r, "m1", "loop", "", "work", 0, &err), 0);
	/* Without an alert, nothing to triage. */
	assert_int_equal(confirm_triage_list(&issues, &n, st, NULL, &err), 0);
	assert_int_equal(n, 0);
	confirm_triage_issues_free(issues, n);

	exec_sql(path, "INSERT INTO alerts (id, machine_id, commit_sha, side, state, series, "
		       "created_at) VALUES (1, 1, '" SHA_B "', 'slower', 'confirmed', 1, 0),"
		       "(2, 1, '" SHA_B "', 'slower', 'open', 1, 0)");
	exec_sql(path, "UPDATE regressions SET alert_id = 1");
	assert_int_equal(confirm_triage_list(&issues, &n, st, NULL, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(issues[0].alert_id, 1);
	assert_int_equal(issues[0].nregs, 1);
	assert_string_equal(issues[0].title.buf, "loop work +12.0% on m1 at bbbbbbbbbbbb");
	confirm_triage_issues_free(issues, n);

	/* An unknown alert marks none of them. */
	assert_int_equal(confirm_triage_mark_filed(st, ids, urls, 2, &err), BL_ENOTFOUND);
	assert_string_equal(err.msg.buf, "no alert 5");
	bl_error_clear(&err);
	assert_int_equal(confirm_triage_list(&issues, &n, st, NULL, &err), 0);
	assert_int_equal(n, 1);
	confirm_triage_issues_free(issues, n);

	assert_int_equal(confirm_triage_mark_filed(st, ids, urls, 1, &err), 0);
	assert_int_equal(confirm_triage_list(&issues, &n, st, NULL, &err), 0);
	assert_int_equal(n, 0);
	confirm_triage_issues_free(issues, n);

	confirm_bisect_report_release(&r);
	bl_error_release(&err);
	unit_store_close(st, path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(title_names_the_one_regression),
	    cmocka_unit_test(title_names_the_largest_and_how_many_more),
	    cmocka_unit_test(body_says_which_opinion_found_it),
	    cmocka_unit_test(body_escapes_what_markdown_would_read),
	    cmocka_unit_test(body_links_each_chart_under_the_base_url),
	    cmocka_unit_test(one_bisection_s_log_is_shown_once),
	    cmocka_unit_test(json_has_the_five_keys),
	    cmocka_unit_test(mark_filed_arguments),
	    cmocka_unit_test(a_pinned_bisection_is_stored_once_and_listed),
	    cmocka_unit_test(triage_lists_an_alert_until_it_is_filed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

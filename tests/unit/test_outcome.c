/*
 * Unit tests for confirm_apply_outcome (§11's POST /api/alerts/{id}/outcome): every field of the
 * outcome document checked with a message naming it, nothing stored on a refusal, and the alert
 * left as a local confirm leaves it: cleared, covered by the Regressions of a pinned bisection
 * (the same document again stores nothing new), confirmed or open when inconclusive, and the
 * states that refuse an outcome (ignored, holding Regressions).
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
#include "detect/detect.h"
#include "ingest/ingest.h"
#include "ingest/adapters/adapters.h"
#include "store/store.h"
#include "tests/unit/unit_store.h"

#define C8 "0000000000000000000000000000000000000008"
#define C9 "0000000000000000000000000000000000000009"

struct fixture {
	char path[160];
	struct store *st;
	int64_t alert; /* the one alert: m1 parse wall_ms stepping up at commit 9 */
};

static int first_alert(const struct store_alert *a, void *data)
{
	*(int64_t *)data = a->id;
	return 1;
}

/* Eight flat records and a step that holds for four more: detection makes one open alert of one
 * Suspect. */
static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));
	struct ingest_batch batch = {NULL, 0, 0};
	struct strbuf json = STRBUF_INIT;
	struct bl_error err = BL_ERROR_INIT;
	struct detect_options opts;
	struct detect_result res;
	struct store_alert_filter af;
	static const double values[] = {100, 101, 99,  100, 100, 101, 99,
					100, 130, 131, 130, 129, 130};

	f->st = unit_store_open(f->path, sizeof(f->path), "test_outcome");
	for (int i = 0; i < (int)(sizeof(values) / sizeof(values[0])); i++)
		strbuf_addf(
		    &json,
		    "{\"schema\": 1, \"machine\": \"m1\", \"benchmark\": \"parse\","
		    " \"harness_version\": 1, \"source\": {\"commit\": \"%040d\","
		    " \"source_hash\": \"%040d\", \"committed_at\": \"2026-01-%02dT00:00:00Z\"},"
		    " \"started_at\": \"2026-01-%02dT01:00:00Z\", \"metrics\": {\"wall_ms\":"
		    " {\"kind\": \"timed\", \"unit\": \"ms\", \"median\": %g}}}\n",
		    i + 1, i + 1, i + 1, i + 1, values[i]);
	memset(&opts, 0, sizeof(opts));
	memset(&af, 0, sizeof(af));
	if (adapters_parse_native(&batch, "test", json.buf, json.len, &err) ||
	    ingest_store(f->st, &batch, NULL, NULL, NULL, &err) ||
	    detect_run(&res, f->st, &opts, &err) ||
	    store_each_alert(f->st, &af, first_alert, &f->alert, &err))
		fail_msg("%s", err.msg.buf);
	assert_true(f->alert > 0);
	ingest_batch_release(&batch);
	strbuf_release(&json);
	bl_error_release(&err);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	unit_store_close(f->st, f->path);
	free(f);
	return 0;
}

/* The re-bench report: the alert's Series with this verdict. */
static const char *rebench(const char *verdict)
{
	static char buf[512];
	snprintf(buf, sizeof(buf),
		 "{\"status\": \"%s\", \"metrics\": [{\"key\": \"parse wall_ms\", \"verdict\": "
		 "\"%s\", \"ratio\": 1.3}]}",
		 verdict, verdict);
	return buf;
}

/* A pinned bisection of parse wall_ms at commit 9 from good 8. */
#define BISECT                                                                                     \
	"{\"status\": \"pinned\", \"good\": {\"commit\": \"" C8 "\"},"                             \
	" \"pinned\": {\"commit\": \"" C9 "\", \"source_hash\": \"" C9 "\","                       \
	" \"subject\": \"slower (#7)\", \"pull_request\": 7}, \"ratio\": 1.3,"                     \
	" \"interval\": [1.29, 1.31], \"probes\": [{\"commit\": \"" C9 "\", \"verdict\": "         \
	"\"slower\"}]}"

static json_t *doc(const char *text)
{
	json_error_t jerr;
	json_t *j = json_loads(text, 0, &jerr);
	if (!j)
		fail_msg("bad test JSON: %s: %s", jerr.text, text);
	return j;
}

struct alert_now {
	enum suspect_state state;
	enum alert_outcome outcome;
	char note[64];
};

static int read_alert(const struct store_alert *a, void *data)
{
	struct alert_now *x = data;
	x->state = a->state;
	x->outcome = a->outcome;
	snprintf(x->note, sizeof(x->note), "%s", a->note ? a->note : "");
	return 1;
}

static struct alert_now alert_now(struct fixture *f)
{
	struct alert_now x;
	struct store_alert_filter af;
	struct bl_error err = BL_ERROR_INIT;
	memset(&x, 0, sizeof(x));
	memset(&af, 0, sizeof(af));
	af.id = f->alert;
	if (store_each_alert(f->st, &af, read_alert, &x, &err))
		fail_msg("%s", err.msg.buf);
	return x;
}

static int count_one(const struct store_regression *r, void *data)
{
	(void)r;
	(*(int64_t *)data)++;
	return 0;
}

static int64_t regressions(struct fixture *f)
{
	int64_t n = 0;
	struct bl_error err = BL_ERROR_INIT;
	if (store_each_regression(f->st, 0, count_one, &n, &err))
		fail_msg("%s", err.msg.buf);
	return n;
}

/* Applies the document and returns its code; the message starts with want when it fails. */
static int apply(struct fixture *f, const char *text, const char *want)
{
	struct confirm_alert_result res;
	struct bl_error err = BL_ERROR_INIT;
	json_t *j = doc(text);
	int ret = confirm_apply_outcome(&res, f->st, f->alert, j, &err);
	if (ret && want && strncmp(err.msg.buf, want, strlen(want)))
		fail_msg("expected '%s...', got '%s'", want, err.msg.buf);
	if (!ret && want)
		fail_msg("expected '%s...', got success", want);
	if (ret && !want)
		fail_msg("%s", err.msg.buf);
	confirm_alert_result_release(&res);
	json_decref(j);
	bl_error_release(&err);
	return ret;
}

static void every_field_is_checked(void **state)
{
	struct fixture *f = *state;
	static const struct {
		const char *doc, *message;
	} bad[] = {
	    {"[]", "expected an object"},
	    {"{}", "outcome: missing"},
	    {"{\"outcome\": 3}", "outcome: expected a string"},
	    {"{\"outcome\": \"fixed\"}", "outcome: 'fixed' is not one of"},
	    {"{\"outcome\": \"transient\", \"why\": 1}", "outcome document: unknown key 'why'"},
	    {"{\"outcome\": \"cleared\"}", "rebench: a cleared outcome needs"},
	    {"{\"outcome\": \"confirmed\", \"rebench\": null}",
	     "rebench: a confirmed outcome needs"},
	    {"{\"outcome\": \"cleared\", \"rebench\": []}", "rebench: expected the"},
	    {"{\"outcome\": \"cleared\", \"rebench\": {}}", "rebench.status: missing"},
	    {"{\"outcome\": \"cleared\", \"rebench\": {\"status\": \"same\", \"metrics\": [1]}}",
	     "rebench.metrics[0]: expected an object"},
	    {"{\"outcome\": \"transient\", \"rebench\": {\"status\": \"same\"}}",
	     "rebench: a transient outcome is decided without measuring"},
	    {"{\"outcome\": \"unbuildable\", \"note\": 5}", "note: expected a string"},
	    {"{\"outcome\": \"unbuildable\", \"regressions\": {}}",
	     "regressions: expected an array"},
	    {"{\"outcome\": \"confirmed\", \"rebench\": {\"status\": \"slower\"}, \"regressions\":"
	     " [{\"benchmark\": \"parse\", \"metric\": \"wall_ms\"}]}",
	     "regressions[0].bisect: expected the `bisect --json` report"},
	    {"{\"outcome\": \"confirmed\", \"rebench\": {\"status\": \"slower\"}, \"regressions\":"
	     " [{\"metric\": \"wall_ms\", \"bisect\": " BISECT "}]}",
	     "regressions[0].benchmark: missing"},
	    {"{\"outcome\": \"confirmed\", \"rebench\": {\"status\": \"slower\"}, \"regressions\":"
	     " [{\"benchmark\": \"parse\", \"metric\": \"cpu_ms\", \"bisect\": " BISECT "}]}",
	     "regressions[0]: alert "},
	    {"{\"outcome\": \"inconclusive\", \"rebench\": null, \"regressions\":"
	     " [{\"benchmark\": \"parse\", \"metric\": \"wall_ms\", \"bisect\": " BISECT "}]}",
	     "regressions: only a confirmed outcome has Regressions"},
	    {"{\"outcome\": \"confirmed\", \"rebench\": {\"status\": \"slower\"}, \"regressions\":"
	     " [{\"benchmark\": \"parse\", \"metric\": \"wall_ms\", \"bisect\": {\"status\":"
	     " \"not_reproduced\"}}]}",
	     "regressions[0].bisect.status: 'not_reproduced', not 'pinned'"},
	    {"{\"outcome\": \"confirmed\", \"rebench\": {\"status\": \"slower\"}, \"regressions\":"
	     " [{\"benchmark\": \"parse\", \"metric\": \"wall_ms\", \"bisect\": {\"status\":"
	     " \"pinned\", \"pinned\": {\"commit\": \"abc\"}}}]}",
	     "regressions[0].bisect.pinned.commit: 'abc' is not 40 hex digits"},
	    {"{\"outcome\": \"confirmed\", \"rebench\": {\"status\": \"slower\"}, \"regressions\":"
	     " [{\"benchmark\": \"parse\", \"metric\": \"wall_ms\", \"bisect\": {\"status\":"
	     " \"pinned\", \"pinned\": {\"commit\": \"" C9 "\", \"source_hash\": \"" C9 "\"},"
	     " \"good\": {\"commit\": \"" C8 "\"}, \"ratio\": -1, \"probes\": []}}]}",
	     "regressions[0].bisect.ratio: expected a positive number or null"},
	    {"{\"outcome\": \"confirmed\", \"rebench\": {\"status\": \"slower\"}, \"regressions\":"
	     " [{\"benchmark\": \"parse\", \"metric\": \"wall_ms\", \"bisect\": {\"status\":"
	     " \"pinned\", \"pinned\": {\"commit\": \"" C9 "\", \"source_hash\": \"" C9 "\"},"
	     " \"good\": {\"commit\": \"" C8 "\"}, \"interval\": [2, 1], \"probes\": []}}]}",
	     "regressions[0].bisect.interval: expected [low, high]"},
	    {"{\"outcome\": \"confirmed\", \"rebench\": {\"status\": \"slower\"}, \"regressions\":"
	     " [{\"benchmark\": \"parse\", \"metric\": \"wall_ms\", \"bisect\": {\"status\":"
	     " \"pinned\", \"pinned\": {\"commit\": \"" C9 "\", \"source_hash\": \"" C9 "\"},"
	     " \"good\": {\"commit\": \"" C8 "\"}}}]}",
	     "regressions[0].bisect.probes: expected the probe log"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(apply(f, bad[i].doc, bad[i].message), BL_EINVALID);
	assert_int_equal(alert_now(f).state, SUSPECT_OPEN);
	assert_int_equal(alert_now(f).outcome, ALERT_NO_OUTCOME);
	assert_int_equal(regressions(f), 0);
}

static void unknown_alert_is_not_found(void **state)
{
	struct fixture *f = *state;
	struct confirm_alert_result res;
	struct bl_error err = BL_ERROR_INIT;
	json_t *j = doc("{\"outcome\": \"transient\"}");
	assert_int_equal(confirm_apply_outcome(&res, f->st, 999, j, &err), BL_ENOTFOUND);
	assert_string_equal(err.msg.buf, "no alert 999");
	confirm_alert_result_release(&res);
	json_decref(j);
	bl_error_release(&err);
}

static void cleared_clears_the_alert_and_its_suspects(void **state)
{
	struct fixture *f = *state;
	struct strbuf sb = STRBUF_INIT;
	struct alert_now a;
	strbuf_addf(&sb, "{\"outcome\": \"cleared\", \"note\": \"fine\", \"rebench\": %s}",
		    rebench("same"));
	apply(f, sb.buf, NULL);
	a = alert_now(f);
	assert_int_equal(a.state, SUSPECT_CLEARED);
	assert_int_equal(a.outcome, ALERT_CLEARED);
	assert_string_equal(a.note, "fine");
	strbuf_release(&sb);
}

static void inconclusive_is_confirmed_only_when_the_series_was_slower(void **state)
{
	struct fixture *f = *state;
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "{\"outcome\": \"inconclusive\", \"rebench\": %s}", rebench("undecided"));
	apply(f, sb.buf, NULL);
	assert_int_equal(alert_now(f).state, SUSPECT_OPEN);
	assert_int_equal(alert_now(f).outcome, ALERT_INCONCLUSIVE);
	strbuf_reset(&sb);
	strbuf_addf(&sb,
		    "{\"outcome\": \"inconclusive\", \"rebench\": %s, \"note\": \"left a..b\"}",
		    rebench("slower"));
	apply(f, sb.buf, NULL);
	assert_int_equal(alert_now(f).state, SUSPECT_CONFIRMED);
	apply(f, "{\"outcome\": \"unbuildable\", \"note\": \"cc failed\"}", NULL);
	assert_int_equal(alert_now(f).state, SUSPECT_OPEN);
	assert_int_equal(alert_now(f).outcome, ALERT_UNBUILDABLE);
	strbuf_release(&sb);
}

static void a_pinned_bisection_is_a_regression_covering_the_alert(void **state)
{
	struct fixture *f = *state;
	struct strbuf sb = STRBUF_INIT;
	struct confirm_alert_result res;
	struct bl_error err = BL_ERROR_INIT;
	json_t *j;
	int64_t first;
	strbuf_addf(
	    &sb,
	    "{\"outcome\": \"confirmed\", \"rebench\": %s, \"regressions\": [{\"benchmark\":"
	    " \"parse\", \"config\": \"\", \"metric\": \"wall_ms\", \"bisect\": " BISECT "}]}",
	    rebench("slower"));
	j = doc(sb.buf);
	assert_int_equal(confirm_apply_outcome(&res, f->st, f->alert, j, &err), 0);
	assert_int_equal(res.outcome, ALERT_CONFIRMED);
	assert_int_equal(res.nregressions, 1);
	assert_non_null(res.rebench);
	first = res.regressions[0];
	confirm_alert_result_release(&res);
	assert_int_equal(alert_now(f).state, SUSPECT_COVERED);
	assert_int_equal(regressions(f), 1);
	/* Again: the same Regression, nothing new. */
	assert_int_equal(confirm_apply_outcome(&res, f->st, f->alert, j, &err), 0);
	assert_int_equal(res.regressions[0], first);
	assert_int_equal(regressions(f), 1);
	confirm_alert_result_release(&res);
	/* A confirmed outcome without Regressions keeps the alert covered by the one it holds. */
	apply(f, "{\"outcome\": \"confirmed\", \"rebench\": {\"status\": \"slower\"}}", NULL);
	assert_int_equal(alert_now(f).state, SUSPECT_COVERED);
	/* ...and nothing else may follow. */
	strbuf_reset(&sb);
	strbuf_addf(&sb, "{\"outcome\": \"cleared\", \"rebench\": %s}", rebench("same"));
	assert_int_equal(apply(f, sb.buf, "alert "), BL_ECONFLICT);
	assert_int_equal(alert_now(f).state, SUSPECT_COVERED);
	json_decref(j);
	strbuf_release(&sb);
	bl_error_release(&err);
}

static void an_ignored_alert_takes_no_outcome(void **state)
{
	struct fixture *f = *state;
	struct bl_error err = BL_ERROR_INIT;
	if (store_alert_set_outcome(f->st, f->alert, SUSPECT_IGNORED, ALERT_NO_OUTCOME, NULL,
				    "by hand", &err))
		fail_msg("%s", err.msg.buf);
	assert_int_equal(apply(f, "{\"outcome\": \"transient\"}", "alert "), BL_ECONFLICT);
	assert_int_equal(alert_now(f).state, SUSPECT_IGNORED);
	bl_error_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(every_field_is_checked, setup, teardown),
	    cmocka_unit_test_setup_teardown(unknown_alert_is_not_found, setup, teardown),
	    cmocka_unit_test_setup_teardown(cleared_clears_the_alert_and_its_suspects, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(
		inconclusive_is_confirmed_only_when_the_series_was_slower, setup, teardown),
	    cmocka_unit_test_setup_teardown(a_pinned_bisection_is_a_regression_covering_the_alert,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(an_ignored_alert_takes_no_outcome, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * libFuzzer target for the bucket-ladder files (§8, §13): the input is read as each of the
 * four kinds (baseline, captured run, ladders, thresholds, declared keys). Each is either
 * accepted or refused with a message naming the file, never a crash or a leak; what is accepted
 * goes through derive, check, compare and floors against a fixed ladder set and baseline, and
 * every printed document reads back as JSON.
 */
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "detect/detect.h"
#include "detect/ladder/ladder.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char fixed_ladders[] =
    "{\"ladders\": {\"ms\": {\"unit\": \"ms\", \"edges\": [0.01, 0.05, 0.1, 0.5, 1, 5, 10]}, "
    "\"us\": {\"unit\": \"us\", \"edges\": [100, 500, 1000, 5000]}}, \"categories\": "
    "{\"span\": \"ms\", \"job\": \"us\", \"a\": \"ms\"}}";
static const char fixed_baseline[] =
    "{\"metrics\": {\"span.a.p95\": {\"value\": 0.7, \"unit\": \"ms\"}, \"job.b.p99\": "
    "{\"value\": 700, \"unit\": \"us\"}, \"a.b.c.p5\": {\"value\": 0.0005, \"unit\": \"ms\"}}}";

/* A message must name the file it is about. */
static void named(const struct bl_error *err, const char *file)
{
	if (!strstr(err->msg.buf, file))
		__builtin_trap();
}

/* A printed document must be JSON again. */
static void reads_back(const json_t *doc)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *again;
	ladder_json_dump(&sb, doc);
	again = json_loadb(sb.buf, sb.len, 0, NULL);
	if (!again || sb.buf[sb.len - 1] != '\n')
		__builtin_trap();
	json_decref(again);
	strbuf_release(&sb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct ladder_set fixed, set;
	struct ladder_run base, run;
	struct ladder_thresholds t;
	struct ladder_declared d = {NULL, 0};
	struct bl_error err = BL_ERROR_INIT;

	if (ladder_set_parse(&fixed, "l.json", fixed_ladders, strlen(fixed_ladders), NULL) ||
	    ladder_run_parse(&base, "b.json", fixed_baseline, strlen(fixed_baseline), 1, NULL))
		__builtin_trap();

	/* As a baseline: derive and floors on the fixed ladders. */
	if (ladder_run_parse(&run, "x.json", text, size, 1, &err) == 0) {
		struct ladder_derivation der;
		struct ladder_floor_row *rows = NULL;
		size_t n = 0;
		if (ladder_derive(&der, &run, &fixed, 50, "x.json", &err) == 0 && der.doc)
			reads_back(der.doc);
		else if (!der.doc && !der.nrefused)
			named(&err, "x.json");
		ladder_derivation_release(&der);
		if (ladder_floors(&rows, &n, &run, &fixed, "x.json", &err) == 0) {
			json_t *doc = ladder_floors_json(rows, n);
			reads_back(doc);
			json_decref(doc);
		}
		free(rows);
		ladder_run_release(&run);
	} else {
		named(&err, "x.json");
	}

	/* As a captured run: the placeholder print, and a compare with no bounds. */
	if (ladder_run_parse(&run, "x.json", text, size, 0, &err) == 0) {
		struct strbuf dropped = STRBUF_INIT;
		struct ladder_comparison c;
		json_t *doc = ladder_capture_json(&run, &dropped);
		reads_back(doc);
		json_decref(doc);
		strbuf_release(&dropped);
		ladder_thresholds_init(&t);
		t.file = xstrdup("t.json");
		if (ladder_compare(&c, &base, &t, &run, &err) == 0) {
			doc = ladder_comparison_json(&c);
			reads_back(doc);
			json_decref(doc);
			ladder_comparison_release(&c);
		}
		ladder_thresholds_release(&t);
		ladder_run_release(&run);
	} else {
		named(&err, "x.json");
	}

	/* As a ladders file. */
	if (ladder_set_parse(&set, "x.json", text, size, &err) == 0) {
		struct ladder_bucket b;
		for (size_t i = 0; i < set.n; i++) {
			const struct ladder *l = &set.ladders[i];
			for (size_t j = 0; j < l->n; j++) {
				ladder_bucket_locate(&b, l, l->edges[j]);
				if (b.index != j)
					__builtin_trap();
			}
		}
		ladder_set_release(&set);
	} else {
		named(&err, "x.json");
	}

	/* As thresholds: check the fixed baseline against them. */
	if (ladder_thresholds_parse(&t, "x.json", text, size, &err) == 0) {
		struct ladder_lint lint;
		if (ladder_check(&lint, &base, &t, &fixed, NULL, "b.json", NULL, &err))
			named(&err, "x.json");
		ladder_lint_release(&lint);
		ladder_thresholds_release(&t);
	} else {
		named(&err, "x.json");
	}

	/* As declared keys. */
	if (ladder_declared_parse(&d, "x.json", text, size, &err))
		named(&err, "x.json");
	ladder_declared_release(&d);

	ladder_run_release(&base);
	ladder_set_release(&fixed);
	bl_error_release(&err);
	return 0;
}

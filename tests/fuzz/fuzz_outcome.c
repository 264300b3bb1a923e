/*
 * libFuzzer target for the confirm outcome document of POST /api/alerts/{id}/outcome (§11,
 * §13): confirm_apply_outcome on any JSON either stores it or refuses it with a message, and
 * never leaves the database inconsistent. One database with one open alert (eight flat records
 * and a step, detected) serves every input; the alert is reopened after each one it accepts.
 */
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/common.h"
#include "detect/confirm/confirm.h"
#include "detect/detect.h"
#include "ingest/ingest.h"
#include "ingest/adapters/adapters.h"
#include "store/store.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct store *st;
static int64_t alert_id;

static int first_alert(const struct store_alert *a, void *data)
{
	*(int64_t *)data = a->id;
	return 1;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const double values[] = {100, 101, 99, 100, 100, 101, 99, 100, 130};
	struct ingest_batch batch = {NULL, 0, 0};
	struct strbuf json = STRBUF_INIT;
	struct bl_error err = BL_ERROR_INIT;
	struct detect_options opts;
	struct detect_result res;
	struct store_alert_filter f;
	char path[64];
	int fd;
	(void)argc;
	(void)argv;
	snprintf(path, sizeof(path), "/tmp/fuzz_outcome.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		abort();
	close(fd);
	unlink(path);
	for (int i = 0; i < 9; i++)
		strbuf_addf(
		    &json,
		    "{\"schema\": 1, \"machine\": \"m1\", \"benchmark\": \"parse\","
		    " \"harness_version\": 1, \"source\": {\"commit\": \"%040d\","
		    " \"source_hash\": \"%040d\", \"committed_at\": \"2026-01-%02dT00:00:00Z\"},"
		    " \"started_at\": \"2026-01-%02dT01:00:00Z\", \"metrics\": {\"wall_ms\":"
		    " {\"kind\": \"timed\", \"unit\": \"ms\", \"median\": %g}}}\n",
		    i + 1, i + 1, i + 1, i + 1, values[i]);
	memset(&opts, 0, sizeof(opts));
	memset(&f, 0, sizeof(f));
	if (store_open(&st, path, STORE_CREATE, &err) ||
	    adapters_parse_native(&batch, "fuzz", json.buf, json.len, &err) ||
	    ingest_store(st, &batch, NULL, NULL, NULL, &err) || detect_run(&res, st, &opts, &err) ||
	    store_each_alert(st, &f, first_alert, &alert_id, &err) || !alert_id) {
		fprintf(stderr, "fuzz_outcome: %s\n", err.msg.buf);
		abort();
	}
	/* The file goes when the process does (its name is no longer needed). */
	unlink(path);
	ingest_batch_release(&batch);
	strbuf_release(&json);
	bl_error_release(&err);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct confirm_alert_result res;
	struct bl_error err = BL_ERROR_INIT;
	json_t *doc = json_loadb((const char *)data, size, JSON_DECODE_ANY, NULL);
	int ret;
	if (!doc)
		return 0;
	ret = confirm_apply_outcome(&res, st, alert_id, doc, &err);
	if (ret) {
		if (!err.msg.len || (ret != BL_EINVALID && ret != BL_ECONFLICT))
			__builtin_trap();
	} else {
		if (res.outcome == ALERT_NO_OUTCOME)
			__builtin_trap();
		for (size_t i = 0; i < res.nregressions; i++)
			if (res.regressions[i] <= 0)
				__builtin_trap();
		/* Open again for the next input (Regressions stay: later ones meet the conflict).
		 */
		if (store_alert_set_outcome(st, alert_id, SUSPECT_OPEN, ALERT_NO_OUTCOME, NULL,
					    NULL, &err))
			__builtin_trap();
	}
	confirm_alert_result_release(&res);
	json_decref(doc);
	bl_error_release(&err);
	return 0;
}

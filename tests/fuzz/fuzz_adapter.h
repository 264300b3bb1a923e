/*
 * The body every adapter's libFuzzer target shares (§10, §13): any input must either parse or
 * fail with a message naming the file, never crash, leak or read out of bounds; a parsed record
 * must read back through the native parser as itself. Each input is parsed twice: with every
 * flag given, and with only the harness version and commit, so what the file says about its
 * machine and date is read too. A target defines FORMAT and includes this file; built and run
 * by tests/fuzz/run.sh.
 */
#ifndef FORMAT
#error "define FORMAT, the adapter's name, before including fuzz_adapter.h"
#endif

#include <math.h>

#include "common/common.h"
#include "ingest/adapters/adapters.h"
#include "ingest/ingest.h"

#include "fuzz_input.h"

#define NAME "fuzz.in"

static void check(const char *text, size_t size, const struct ingest_defaults *d)
{
	struct ingest_batch batch = {NULL, 0, 0}, back = {NULL, 0, 0};
	struct bl_error err = BL_ERROR_INIT;
	const char *chosen = NULL;

	if (adapters_parse(&batch, &chosen, FORMAT, NAME, text, size, d, &err)) {
		/* a failure appends nothing and always names the file */
		if (batch.nr || strncmp(err.msg.buf, NAME, strlen(NAME)))
			abort();
	} else {
		if (!batch.nr || !chosen || strcmp(chosen, FORMAT))
			abort();
		for (size_t i = 0; i < batch.nr; i++) {
			const struct ingest_record *rec = &batch.records[i];
			if (!rec->raw || strlen(rec->digest) != 40 || rec->line < 1 ||
			    rec->column < 1 || !rec->nmetrics)
				abort();
			if (adapters_parse_native(&back, "raw", rec->raw, strlen(rec->raw), &err) ||
			    strcmp(back.records[back.nr - 1].digest, rec->digest))
				abort();
		}
	}
	ingest_batch_release(&batch);
	ingest_batch_release(&back);
	bl_error_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ingest_defaults d;
	char *text = fuzz_input(data, size);

	if (!text)
		return 0;
	(void)adapters_detect_format(NAME, text, size);
	ingest_defaults_init(&d);
	d.machine = "fuzz";
	d.harness_version = 1;
	d.config = "c";
	d.commit = "0123456789abcdef0123456789abcdef01234567";
	d.started_at = 1793592000;
	check(text, size, &d);
	d.machine = NULL;
	d.started_at = NAN;
	check(text, size, &d);
	free(text);
	return 0;
}

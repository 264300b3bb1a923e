/*
 * The body the libFuzzer targets of the histories `benchline import` reads share (§10, §13):
 * any input must either read or fail with a message naming the file, never crash, leak or read
 * out of bounds; every record handed on must be finished (canonical JSON, digest) and read back
 * through the native parser as itself. A target defines READ(h, name, text, len, err), the
 * reader of one file's text, and includes this file; built and run by tests/fuzz/run.sh.
 */
#ifndef READ
#error "define READ, the history's reader of one text, before including fuzz_history.h"
#endif

#include "common/common.h"
#include "ingest/adapters/adapters.h"
#include "ingest/ingest.h"

#include "fuzz_input.h"

#define NAME "fuzz.in"

static int check_record(struct ingest_record *rec, void *data, struct bl_error *err)
{
	struct ingest_batch back = {NULL, 0, 0};
	size_t *n = data;

	(void)err;
	if (!rec->raw || strlen(rec->digest) != 40 || !rec->nmetrics || rec->line < 1 ||
	    rec->column < 1)
		abort();
	if (adapters_parse_native(&back, "raw", rec->raw, strlen(rec->raw), err) ||
	    strcmp(back.records[0].digest, rec->digest))
		abort();
	ingest_batch_release(&back);
	(*n)++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ingest_history h;
	struct ingest_defaults d;
	struct bl_error err = BL_ERROR_INIT;
	size_t n = 0;
	char *text = fuzz_input(data, size);

	if (!text)
		return 0;
	for (int pass = 0; pass < 2; pass++) {
		/* the history's own names, then the flags over them */
		ingest_defaults_init(&d);
		if (pass) {
			d.machine = "fuzz";
			d.config = "c";
			d.harness_version = 2;
		}
		memset(&h, 0, sizeof(h));
		h.defaults = &d;
		h.fn = check_record;
		h.fn_data = &n;
		if (READ(&h, NAME, text, size, &err) && strncmp(err.msg.buf, NAME, strlen(NAME)))
			abort();
		bl_error_clear(&err);
	}
	bl_error_release(&err);
	free(text);
	return 0;
}

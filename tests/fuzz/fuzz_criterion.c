/*
 * libFuzzer target for the criterion adapter (§10, §13). A criterion benchmark is three
 * files, so an input is their texts separated by 0x1e bytes: estimates.json, sample.json and
 * (optional) benchmark.json, parsed through adapters_criterion_parse_texts, which the directory
 * walk also uses. Any input must either parse or fail with a message naming one of the
 * files, never crash, leak or read out of bounds; a parsed record must read back through the
 * native parser as itself. Built and run by tests/fuzz/run.sh.
 */
#include <git2.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "ingest/adapters/adapters.h"
#include "ingest/ingest.h"

#define SEP 0x1e

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A copy of [start, end) without a terminating NUL, so reading past the end is caught. */
static char *part(const uint8_t *start, const uint8_t *end)
{
	size_t n = (size_t)(end - start);
	char *s = malloc(n ? n : 1);

	if (s && n)
		memcpy(s, start, n);
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int initialized;
	const uint8_t *end = data + size, *sep1, *sep2;
	struct adapters_criterion_texts t;
	struct ingest_batch batch = {NULL, 0, 0}, back = {NULL, 0, 0};
	struct bl_error err = BL_ERROR_INIT;
	struct ingest_defaults d;
	char *est, *smp, *bj = NULL;

	if (!initialized) {
		git_libgit2_init();
		initialized = 1;
	}
	sep1 = memchr(data, SEP, size);
	if (!sep1)
		return 0;
	sep2 = memchr(sep1 + 1, SEP, (size_t)(end - sep1 - 1));
	est = part(data, sep1);
	smp = part(sep1 + 1, sep2 ? sep2 : end);
	if (sep2)
		bj = part(sep2 + 1, end);
	if (!est || !smp || (sep2 && !bj))
		goto done;
	memset(&t, 0, sizeof(t));
	t.dir_name = "group/bench";
	t.estimates_name = "e.json";
	t.estimates = est;
	t.estimates_len = (size_t)(sep1 - data);
	t.sample_name = "s.json";
	t.sample = smp;
	t.sample_len = (size_t)((sep2 ? sep2 : end) - sep1 - 1);
	t.benchmark_name = "b.json";
	t.benchmark = bj;
	t.benchmark_len = sep2 ? (size_t)(end - sep2 - 1) : 0;
	t.fallback_time = 1793592000;
	ingest_defaults_init(&d);
	d.machine = "fuzz";
	d.harness_version = 1;
	d.commit = "0123456789abcdef0123456789abcdef01234567";
	if (adapters_criterion_parse_texts(&batch, &t, &d, &err)) {
		if (batch.nr ||
		    (strncmp(err.msg.buf, "e.json:", 7) && strncmp(err.msg.buf, "s.json:", 7) &&
		     strncmp(err.msg.buf, "b.json:", 7)))
			abort();
	} else {
		const struct ingest_record *rec = &batch.records[0];
		if (batch.nr != 1 || !rec->raw || strlen(rec->digest) != 40 || !rec->nmetrics)
			abort();
		if (adapters_parse_native(&back, "raw", rec->raw, strlen(rec->raw), &err) ||
		    strcmp(back.records[0].digest, rec->digest))
			abort();
	}
done:
	ingest_batch_release(&batch);
	ingest_batch_release(&back);
	bl_error_release(&err);
	free(est);
	free(smp);
	free(bj);
	return 0;
}

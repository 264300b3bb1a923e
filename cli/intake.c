/*
 * The intake commands' side of the intake use case (ingest, run, import-baseline): the flags
 * go into a struct ingest_intake, and what became of each record is printed, one line per
 * record or one JSON array.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

void cli_intake_init(struct cli_intake *in)
{
	memset(in, 0, sizeof(*in));
	ingest_intake_init(&in->core);
}

void cli_intake_release(struct cli_intake *in)
{
	ingest_intake_release(&in->core);
	json_decref(in->json_out);
	in->json_out = NULL;
}

int cli_intake_setup(struct cli_intake *in, struct bl_error *err)
{
	if (in->json)
		in->json_out = json_array();
	return ingest_intake_setup(&in->core, err);
}

static void say_format(const struct cli_intake *in, const char *name)
{
	if (!in->verbose)
		return;
	fprintf(stderr, "benchline: %s: format %s%s\n", name,
		in->core.chosen_format ? in->core.chosen_format : "?",
		strcmp(in->core.format, "auto") ? "" : " (decided from its content)");
}

int cli_intake_parse(struct cli_intake *in, struct ingest_batch *out, const char *name,
		     const char *text, size_t len, double started_at, struct bl_error *err)
{
	int ret = ingest_intake_parse(&in->core, out, name, text, len, started_at, err);
	if (in->core.chosen_format)
		say_format(in, name);
	return ret;
}

int cli_intake_read(struct cli_intake *in, struct ingest_batch *out, const char *path,
		    struct bl_error *err)
{
	int ret = ingest_intake_read(&in->core, out, path, err);
	if (in->core.chosen_format)
		say_format(in, path);
	return ret;
}

int cli_intake_store(struct cli_intake *in, struct cli_ctx *ctx, const char *name,
		     struct ingest_batch *batch, struct bl_error *err)
{
	enum ingest_outcome *outcomes = xcalloc(batch->nr ? batch->nr : 1, sizeof(*outcomes));
	int64_t *ids = xcalloc(batch->nr ? batch->nr : 1, sizeof(*ids));
	int ret = ingest_intake_store(&in->core, ctx->store, name, batch, outcomes, ids, err);

	for (size_t i = 0; !ret && i < batch->nr; i++) {
		const struct ingest_record *rec = &batch->records[i];
		if (in->json_out) {
			json_array_append_new(
			    in->json_out, ingest_outcome_json(name, i, rec, ids[i], outcomes[i]));
			continue;
		}
		printf("%s: %s/%s%s%s %.12s harness %lld: %s\n", name, rec->machine, rec->benchmark,
		       rec->config[0] ? " " : "", rec->config, rec->source_hash,
		       (long long)rec->harness_version, ingest_outcome_phrase(outcomes[i]));
	}
	free(outcomes);
	free(ids);
	return ret;
}

void cli_intake_finish(struct cli_intake *in)
{
	if (!in->json_out)
		return;
	cli_json_print(json_incref(in->json_out));
}

int cli_intake_files(struct cli_intake *in, struct cli_ctx *ctx, int nfiles, const char **files,
		     cli_intake_mark_fn mark)
{
	struct bl_error err = BL_ERROR_INIT;
	int failed = 0;

	if (cli_intake_setup(in, &err)) {
		cli_fail(&err);
		bl_error_release(&err);
		return 2;
	}
	for (int i = 0; i < nfiles; i++) {
		struct ingest_batch batch = {NULL, 0, 0};
		if (cli_intake_read(in, &batch, files[i], &err) ||
		    (mark && mark(&batch, files[i], &err)) ||
		    cli_intake_store(in, ctx, files[i], &batch, &err)) {
			cli_fail(&err);
			failed = 1;
		}
		ingest_batch_release(&batch);
	}
	cli_intake_finish(in);
	bl_error_release(&err);
	return failed ? 2 : 0;
}

#include <jansson.h>
#include <stdio.h>

#include "cli/cli.h"

/* Marks every record of the batch an imported Baseline: it starts a line (§1, §10). */
static int mark_baselines(struct ingest_batch *batch, const char *file, struct bl_error *err)
{
	for (size_t i = 0; i < batch->nr; i++) {
		struct ingest_record *rec = &batch->records[i];
		rec->baseline = 1;
		if (ingest_record_annotate(rec, "baseline", json_true(), err)) {
			bl_error_prefix(err, "%s: record %zu", file, i + 1);
			return BL_EINVALID;
		}
	}
	return 0;
}

int cmd_import_baseline(int argc, const char **argv, struct cli_ctx *ctx)
{
	return cli_intake_command(argc, argv, ctx, "no file to import", mark_baselines);
}

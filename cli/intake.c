/*
 * The intake commands' side of the intake use case (ingest, run, import-baseline): the flags
 * go into a struct ingest_intake, and what became of each record is printed, one line per
 * record or one JSON array.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "cli/cli.h"
#include "ingest/adapters/adapters.h"

void cli_intake_init(struct cli_intake *in)
{
	memset(in, 0, sizeof(*in));
	ingest_intake_init(&in->core, &adapters_parsers);
	/* Files brought in; `run` measures (INGEST_SETTINGS_MEASURE). */
	in->core.settings = INGEST_SETTINGS_FILES;
	cli_push_init(&in->push);
}

void cli_intake_release(struct cli_intake *in)
{
	ingest_intake_release(&in->core);
	cli_push_release(&in->push);
	json_decref(in->json_out);
	in->json_out = NULL;
}

int cli_intake_setup(struct cli_intake *in, struct cli_ctx *ctx, struct bl_error *err)
{
	int ret;

	if (in->json)
		in->json_out = json_array();
	if ((ret = ingest_intake_setup(&in->core, err)))
		return ret;
	if (in->push.server && ctx->db_given)
		return bl_error_set(err, BL_EINVALID,
				    "--db and --server name two places for the records: give one");
	if (cli_push_wanted(&in->push, ctx, &in->core.cfg))
		return cli_push_connect(&in->push, &in->core.cfg, err);
	/* Only a command that stores opens the database (and creates it). */
	if (!ctx->store)
		return store_open(&ctx->store, ctx->db_path, STORE_CREATE, err);
	return 0;
}

int cli_intake_status(const struct cli_intake *in, int failed)
{
	if (failed)
		return 2;
	return cli_push_status(&in->push);
}

void cli_intake_say(const char *name, const json_t *row)
{
	struct strbuf line = STRBUF_INIT;
	ingest_outcome_text(&line, row);
	cli_printf(stdout, "%s: %s\n", name, line.buf);
	strbuf_release(&line);
}

void cli_intake_say_format(const struct cli_intake *in, const char *name)
{
	if (!in->verbose)
		return;
	cli_printf(stderr, "benchline: %s: format %s%s\n", name,
		   in->core.chosen_format ? in->core.chosen_format : "?",
		   strcmp(in->core.format, "auto") ? "" : " (decided from its content)");
}

int cli_intake_read(struct cli_intake *in, struct ingest_batch *out, const char *path,
		    struct bl_error *err)
{
	int ret = ingest_intake_read(&in->core, out, path, err);
	if (in->core.chosen_format)
		cli_intake_say_format(in, path);
	return ret;
}

/* The batch as one body to the server. */
static int push_batch(struct cli_intake *in, const char *name, struct ingest_batch *batch,
		      struct bl_error *err)
{
	struct strbuf body = STRBUF_INIT;
	int ret;

	if (!batch->nr) {
		ret = bl_error_set(err, BL_EINVALID, "%s: no records to push", name);
		goto done;
	}
	if ((ret = ingest_intake_body(&body, batch, err))) {
		bl_error_prefix(err, "%s", name);
		goto done;
	}
	ret = cli_push_body(&in->push, name, body.buf, body.len, in->json_out, err);
done:
	strbuf_release(&body);
	return ret;
}

int cli_intake_store(struct cli_intake *in, struct cli_ctx *ctx, const char *name,
		     struct ingest_batch *batch, struct bl_error *err)
{
	enum ingest_outcome *outcomes;
	struct ingest_tagged *tagged;
	int64_t *ids;
	int ret;

	if (in->push.session)
		return push_batch(in, name, batch, err);
	outcomes = xcalloc(batch->nr ? batch->nr : 1, sizeof(*outcomes));
	ids = xcalloc(batch->nr ? batch->nr : 1, sizeof(*ids));
	tagged = xcalloc(batch->nr ? batch->nr : 1, sizeof(*tagged));
	in->core.tagged = tagged;
	ret = ingest_intake_store(&in->core, ctx->store, name, batch, outcomes, ids, err);
	in->core.tagged = NULL;
	for (size_t i = 0; !ret && i < batch->nr; i++) {
		const struct ingest_record *rec = &batch->records[i];
		json_t *row = ingest_outcome_json(name, i, rec, ids[i], outcomes[i]);
		ingest_outcome_add_tags(row, rec, &tagged[i]);
		if (in->json_out) {
			json_array_append_new(in->json_out, row);
			cli_intake_flush_json(in);
			continue;
		}
		cli_intake_say(name, row);
		json_decref(row);
	}
	free(outcomes);
	free(ids);
	free(tagged);
	return ret;
}

void cli_intake_flush_json(struct cli_intake *in)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n = in->json_out ? json_array_size(in->json_out) : 0;

	/* the rows as the one JSON_INDENT(2) array they always were, printed as they come */
	for (size_t i = 0; i < n; i++) {
		strbuf_reset(&sb);
		json_write(&sb, json_array_get(in->json_out, i), JSON_WRITE_INDENT);
		fputs(in->json_rows++ ? ",\n  " : "[\n  ", stdout);
		/* each line of the row one level deeper, as an element of the array */
		for (const char *p = sb.buf, *nl; *p; p = nl + 1) {
			if (!(nl = strchr(p, '\n'))) {
				fputs(p, stdout);
				break;
			}
			fwrite(p, 1, (size_t)(nl + 1 - p), stdout);
			fputs("  ", stdout);
		}
	}
	if (n)
		json_array_clear(in->json_out);
	strbuf_release(&sb);
}

void cli_intake_finish(struct cli_intake *in)
{
	if (!in->json_out)
		return;
	cli_intake_flush_json(in);
	fputs(in->json_rows ? "\n]\n" : "[]\n", stdout);
}

/* One stored record of a file, printed as soon as the file is stored: a line, or a row of the
 * --json array. */
struct report {
	struct cli_intake *in;
	const char *file;
};

static void report_record(void *data, size_t index, const struct ingest_record *rec, int64_t run_id,
			  enum ingest_outcome o, const struct ingest_tagged *t)
{
	struct report *r = data;
	json_t *row = ingest_outcome_json(r->file, index, rec, run_id, o);
	ingest_outcome_add_tags(row, rec, t);
	if (r->in->json) {
		json_array_append_new(r->in->json_out, row);
		cli_intake_flush_json(r->in);
		return;
	}
	cli_intake_say(r->file, row);
	json_decref(row);
}

/* The command's mark step, as the intake use case calls it. */
static int mark_records(struct ingest_batch *batch, const char *file, void *data,
			struct bl_error *err)
{
	const cli_intake_mark_fn *mark = data;
	return (*mark)(batch, file, err);
}

int cli_intake_files(struct cli_intake *in, struct cli_ctx *ctx, int nfiles, const char **files,
		     cli_intake_mark_fn mark)
{
	struct bl_error err = BL_ERROR_INIT;
	int failed = 0;

	if (cli_intake_setup(in, ctx, &err)) {
		cli_fail(&err);
		bl_error_release(&err);
		return 2;
	}
	for (int i = 0; i < nfiles; i++) {
		struct ingest_batch batch = {NULL, 0, 0};
		struct report r = {in, files[i]};
		int ret;
		if (in->push.session) {
			ret = cli_intake_read(in, &batch, files[i], &err) ||
			      (mark && mark(&batch, files[i], &err)) ||
			      cli_intake_store(in, ctx, files[i], &batch, &err);
		} else {
			ret = ingest_intake_file(&in->core, ctx->store, files[i],
						 mark ? mark_records : NULL, &mark, report_record,
						 &r, &err);
			if (in->core.chosen_format)
				cli_intake_say_format(in, files[i]);
		}
		if (ret) {
			cli_fail(&err);
			failed = 1;
		}
		ingest_batch_release(&batch);
	}
	cli_intake_finish(in);
	bl_error_release(&err);
	return cli_intake_status(in, failed);
}

int cli_intake_command(int argc, const char **argv, struct cli_ctx *ctx, const char *none,
		       cli_intake_mark_fn mark)
{
	struct cli_intake in;
	int ret;

	cli_intake_init(&in);
	const struct cli_option opts[] = {
	    CLI_INTAKE_OPTIONS(&in),
	    {OPT_END, NULL, NULL, NULL, NULL},
	};
	argc = cli_parse(argc, argv, opts, ctx);
	if (!argc)
		cli_usage_error(ctx->cmd, opts, "%s", none);
	ret = cli_intake_files(&in, ctx, argc, argv, mark);
	cli_intake_release(&in);
	return ret;
}

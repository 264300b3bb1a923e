#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ingest/ingest.h"
#include "../store/store.h"
#include "cli.h"

static const char *outcome_name(enum ingest_outcome o)
{
	switch (o) {
	case INGEST_STANDS:
		return "stands";
	case INGEST_SUPERSEDED:
		return "superseded";
	case INGEST_DUPLICATE:
		break;
	}
	return "already stored";
}

/* Fills the source hash of every record that lacks one from the repository, opening it once. */
static int fill_source_hashes(struct ingest_batch *batch, const char *file, const char *repo,
			      const struct ingest_config *cfg, struct bl_error *err)
{
	const char **revs = NULL;
	size_t *index = NULL, nr = 0, alloc = 0, index_alloc = 0;
	char(*hashes)[41] = NULL, (*commits)[41] = NULL;
	int ret = 0;

	for (size_t i = 0; i < batch->nr; i++) {
		if (batch->records[i].source_hash[0])
			continue;
		if (!repo) {
			ret = bl_error_set(err, BL_EINVALID,
					   "%s: record %zu: source.source_hash: missing (give "
					   "--repo to compute it)",
					   file, i + 1);
			goto done;
		}
		ALLOC_GROW(revs, nr, alloc);
		ALLOC_GROW(index, nr, index_alloc);
		revs[nr] = batch->records[i].commit;
		index[nr++] = i;
	}
	if (!nr)
		goto done;
	hashes = xcalloc(nr, sizeof(*hashes));
	commits = xcalloc(nr, sizeof(*commits));
	if ((ret = ingest_source_hash_revs(hashes, commits, repo, cfg, revs, nr, err))) {
		/* Name the first record whose commit cannot be hashed (a slow path, errors only).
		 */
		for (size_t k = 0; k < nr; k++) {
			if (ingest_source_hash_revs(hashes, commits, repo, cfg, revs + k, 1, err)) {
				bl_error_prefix(err, "%s: record %zu: source.commit", file,
						index[k] + 1);
				goto done;
			}
		}
		bl_error_prefix(err, "%s: source.commit", file);
		goto done;
	}
	for (size_t k = 0; k < nr; k++)
		memcpy(batch->records[index[k]].source_hash, hashes[k], 41);
done:
	free(revs);
	free(index);
	free(hashes);
	free(commits);
	return ret;
}

static void print_outcome_json(json_t *out, const char *file, size_t index,
			       const struct ingest_record *rec, int64_t run_id,
			       enum ingest_outcome o)
{
	json_t *row = json_object();
	json_object_set_new(row, "file", json_string(file));
	json_object_set_new(row, "record", json_integer((json_int_t)index + 1));
	json_object_set_new(row, "id", json_integer(run_id));
	json_object_set_new(row, "machine", json_string(rec->machine));
	json_object_set_new(row, "benchmark", json_string(rec->benchmark));
	json_object_set_new(row, "config", json_string(rec->config));
	json_object_set_new(row, "source_hash", json_string(rec->source_hash));
	json_object_set_new(row, "harness_version", json_integer(rec->harness_version));
	json_object_set_new(row, "outcome",
			    json_string(o == INGEST_DUPLICATE ? "duplicate" : outcome_name(o)));
	json_array_append_new(out, row);
}

static int ingest_file(struct cli_ctx *ctx, const char *file, const char *repo,
		       const struct ingest_config *cfg, json_t *json_out)
{
	struct bl_error err = BL_ERROR_INIT;
	struct strbuf text = STRBUF_INIT;
	struct ingest_batch batch = {NULL, 0, 0};
	struct ingest_options opts = {cfg->noisy_limit};
	enum ingest_outcome *outcomes = NULL;
	int64_t *ids = NULL;
	int ret;

	if ((ret = read_file_capped(&text, file, INGEST_MAX_FILE, &err)))
		goto done;
	if ((ret = ingest_parse_native(&batch, file, text.buf, text.len, &err)))
		goto done;
	strbuf_release(&text);
	if ((ret = fill_source_hashes(&batch, file, repo, cfg, &err)))
		goto done;
	outcomes = xcalloc(batch.nr, sizeof(*outcomes));
	ids = xcalloc(batch.nr, sizeof(*ids));
	if ((ret = ingest_store(ctx->store, &batch, &opts, outcomes, ids, &err))) {
		bl_error_prefix(&err, "%s", file);
		goto done;
	}
	for (size_t i = 0; i < batch.nr; i++) {
		const struct ingest_record *rec = &batch.records[i];
		if (json_out) {
			print_outcome_json(json_out, file, i, rec, ids[i], outcomes[i]);
			continue;
		}
		printf("%s: %s/%s%s%s %.12s harness %lld: %s\n", file, rec->machine, rec->benchmark,
		       rec->config[0] ? " " : "", rec->config, rec->source_hash,
		       (long long)rec->harness_version, outcome_name(outcomes[i]));
	}
done:
	if (ret)
		cli_fail(&err);
	free(outcomes);
	free(ids);
	ingest_batch_release(&batch);
	strbuf_release(&text);
	bl_error_release(&err);
	return ret;
}

int cmd_ingest(int argc, const char **argv, struct cli_ctx *ctx)
{
	const char *format = "auto", *repo = NULL;
	int json = 0, failed = 0;
	struct ingest_config cfg;
	struct bl_error err = BL_ERROR_INIT;
	json_t *json_out = NULL;
	const struct cli_option opts[] = {
	    {OPT_STRING, "format", &format, "F", "auto (default) or benchline"},
	    {OPT_STRING, "repo", &repo, "DIR", "repository to compute missing source hashes from"},
	    {OPT_BOOL, "json", &json, NULL, "print what was stored as JSON"},
	    {OPT_END, NULL, NULL, NULL, NULL},
	};

	argc = cli_parse(argc, argv, opts, ctx);
	if (!argc)
		cli_usage_error(ctx->cmd, opts, "no file to ingest");
	if (strcmp(format, "auto") && strcmp(format, "benchline"))
		cli_usage_error(ctx->cmd, opts, "unknown format '%s'", format);

	ingest_config_init(&cfg);
	if (repo) {
		if (ingest_config_load(&cfg, repo, &err))
			goto fail;
		for (size_t i = 0; i < cfg.n_keep_first; i++)
			if (store_set_machine_keep(ctx->store, cfg.keep_first_machines[i], 1, &err))
				goto fail;
	}
	if (json)
		json_out = json_array();
	/* Each file stands alone: a bad one is reported and the rest still go in. */
	for (int i = 0; i < argc; i++)
		if (ingest_file(ctx, argv[i], repo, &cfg, json_out))
			failed = 1;
	if (json_out) {
		json_dumpf(json_out, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
		json_decref(json_out);
	}
	ingest_config_release(&cfg);
	bl_error_release(&err);
	return failed ? 2 : 0;
fail:
	cli_fail(&err);
	ingest_config_release(&cfg);
	bl_error_release(&err);
	return 2;
}

/*
 * What ingest, run and import-baseline share: the flags that fill what a format lacks, the
 * repository's settings and HEAD, parsing a file in any format, and storing a batch with one
 * line (or JSON object) per record.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ingest/adapters/adapters.h"
#include "ingest/ingest.h"
#include "store/store.h"
#include "cli/cli.h"
#include "ingest/repo/repo.h"

void cli_intake_init(struct cli_intake *in)
{
	memset(in, 0, sizeof(*in));
	in->format = "auto";
	in->harness_version = -1;
	ingest_config_init(&in->cfg);
}

void cli_intake_release(struct cli_intake *in)
{
	ingest_config_release(&in->cfg);
	json_decref(in->json_out);
	in->json_out = NULL;
}

int cli_intake_setup(struct cli_intake *in, struct cli_ctx *ctx, struct bl_error *err)
{
	int ret;
	if (!adapters_format_known(in->format))
		return bl_error_set(err, BL_EINVALID,
				    "unknown format '%s' (auto, benchline, bmf, gbench, hyperfine, "
				    "pytest, gotest, criterion)",
				    in->format);
	if (in->harness_version < -1)
		return bl_error_set(err, BL_EINVALID, "--harness-version must be 0 or more");
	if (in->json)
		in->json_out = json_array();
	if (!in->repo)
		return 0;
	if ((ret = ingest_config_load(&in->cfg, in->repo, err)) ||
	    (ret = repo_read_head(&in->head, in->repo, &in->cfg, err)))
		return ret;
	in->have_head = 1;
	for (size_t i = 0; i < in->cfg.n_keep_first; i++)
		if ((ret = store_set_machine_keep(ctx->store, in->cfg.keep_first_machines[i], 1,
						  err)))
			return ret;
	return 0;
}

/* Fills the source hash of every record that lacks one from the repository, opening it
 * once. */
static int fill_source_hashes(struct cli_intake *in, struct ingest_batch *batch, const char *file,
			      struct bl_error *err)
{
	const char **revs = NULL;
	size_t *index = NULL, nr = 0, alloc = 0, index_alloc = 0;
	char(*hashes)[41] = NULL, (*commits)[41] = NULL;
	int ret = 0;

	for (size_t i = 0; i < batch->nr; i++) {
		if (batch->records[i].source_hash[0])
			continue;
		if (!in->repo) {
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
	if ((ret = repo_source_hash_revs(hashes, commits, in->repo, &in->cfg, revs, nr, err))) {
		/* Name the first record whose commit cannot be hashed (a slow path, errors only).
		 */
		for (size_t k = 0; k < nr; k++) {
			if (repo_source_hash_revs(hashes, commits, in->repo, &in->cfg, revs + k, 1,
						  err)) {
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

int cli_intake_parse(struct cli_intake *in, struct ingest_batch *out, const char *name,
		     const char *text, size_t len, double started_at, struct bl_error *err)
{
	struct adapters_defaults d;
	const char *chosen = NULL;
	int ret;

	adapters_defaults_init(&d);
	d.machine = in->machine;
	d.harness_version = in->harness_version;
	d.config = in->config;
	d.started_at = started_at;
	if (in->have_head) {
		d.commit = in->head.commit;
		d.source_hash = in->head.source_hash;
		d.dirty = in->head.dirty;
		d.branch = in->head.branch[0] ? in->head.branch : NULL;
		d.committed_at = in->head.committed_at;
	}
	if ((ret = adapters_parse(out, &chosen, in->format, name, text, len, &d, err)))
		return ret;
	if (in->verbose)
		fprintf(stderr, "benchline: %s: format %s%s\n", name, chosen ? chosen : "?",
			strcmp(in->format, "auto") ? "" : " (decided from its content)");
	return fill_source_hashes(in, out, name, err);
}

int cli_intake_read(struct cli_intake *in, struct ingest_batch *out, const char *path,
		    struct bl_error *err)
{
	struct strbuf text = STRBUF_INIT;
	struct stat st;
	int ret;

	/* A criterion target directory is read by its adapter. */
	if (strcmp(path, "-") && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return cli_intake_parse(in, out, path, NULL, 0, NAN, err);
	if ((ret = read_file_capped(&text, path, INGEST_MAX_FILE, err)) == 0)
		ret = cli_intake_parse(in, out, path, text.buf, text.len, NAN, err);
	strbuf_release(&text);
	return ret;
}

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

static void outcome_json(json_t *out, const char *file, size_t index,
			 const struct ingest_record *rec, int64_t run_id, enum ingest_outcome o)
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
	json_object_set_new(row, "baseline", json_boolean(rec->baseline));
	json_object_set_new(row, "outcome",
			    json_string(o == INGEST_DUPLICATE ? "duplicate" : outcome_name(o)));
	json_array_append_new(out, row);
}

int cli_intake_store(struct cli_intake *in, struct cli_ctx *ctx, const char *name,
		     struct ingest_batch *batch, struct bl_error *err)
{
	struct ingest_options opts = {in->cfg.noisy_limit};
	enum ingest_outcome *outcomes = xcalloc(batch->nr, sizeof(*outcomes));
	int64_t *ids = xcalloc(batch->nr, sizeof(*ids));
	int ret = ingest_store(ctx->store, batch, &opts, outcomes, ids, err);

	if (ret) {
		bl_error_prefix(err, "%s", name);
		goto done;
	}
	for (size_t i = 0; i < batch->nr; i++) {
		const struct ingest_record *rec = &batch->records[i];
		if (in->json_out) {
			outcome_json(in->json_out, name, i, rec, ids[i], outcomes[i]);
			continue;
		}
		printf("%s: %s/%s%s%s %.12s harness %lld: %s\n", name, rec->machine, rec->benchmark,
		       rec->config[0] ? " " : "", rec->config, rec->source_hash,
		       (long long)rec->harness_version, outcome_name(outcomes[i]));
	}
done:
	free(outcomes);
	free(ids);
	return ret;
}

void cli_intake_finish(struct cli_intake *in)
{
	if (!in->json_out)
		return;
	json_dumpf(in->json_out, stdout, JSON_INDENT(2));
	fputc('\n', stdout);
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

/*
 * The import use case (ingest.h, §10): another tool's history read by its reader (the parsers'
 * history, handed in by the caller), each record's source hash taken from the repository when
 * one is given, and everything stored through the intake in one transaction. What was stored,
 * what was already there and what the reader left out are counted for the summary.
 */
#include <stdlib.h>
#include <string.h>

#include "ingest/ingest.h"
#include "ingest/repo/repo.h"

/* Each reason's noun and why, as the summary says it: "4 graphs without a point". */
static const struct {
	const char *one, *many, *why;
} skip_words[INGEST_NSKIPS] = {
    [INGEST_SKIP_NO_VALUE] = {"point", "points", "without a value (a measurement that failed)"},
    [INGEST_SKIP_NO_COMMIT] = {"point", "points", "at no git commit (the history names none)"},
    [INGEST_SKIP_OVERVIEW] = {"summary file", "summary files",
			      "(asv's overviews of other graphs, not measurements)"},
    [INGEST_SKIP_EMPTY] = {"graph", "graphs", "without a point"},
    [INGEST_SKIP_UNDESCRIBED] =
	{"result", "results", "whose benchmark the history does not describe (no type, no unit)"},
};

void ingest_skip_text(struct strbuf *out, enum ingest_skip s, int64_t n)
{
	if ((unsigned)s >= INGEST_NSKIPS)
		return;
	strbuf_addf(out, "%lld %s %s", (long long)n,
		    n == 1 ? skip_words[s].one : skip_words[s].many, skip_words[s].why);
}

/* The import under way: the repository's source hashes, one per commit, and the counts. */
struct import {
	struct ingest_intake *in;
	struct ingest_import_result *out;
	struct repo *repo; /* NULL without --repo */
	struct intern commits;
	char (*hashes)[41]; /* per commit of commits: its source hash, "" when unknown */
	size_t hashes_alloc;
	struct intern series; /* machine, benchmark, config and metric, each once */
	struct strbuf key;
	ingest_import_progress_fn *progress;
	void *progress_data;
	struct ingest_history history;
};

/* The record's source hash from the repository, computed once per commit; a commit the
 * repository lacks keeps the history's own and is counted. */
static int complete_record(struct ingest_record *rec, void *data, struct bl_error *err)
{
	struct import *im = data;
	int64_t known = intern_find(&im->commits, rec->commit);
	size_t i;

	(void)err;
	if (!im->repo)
		return 0;
	if (known < 0) {
		struct bl_error ignored = BL_ERROR_INIT;
		i = intern_add(&im->commits, rec->commit);
		ALLOC_GROW(im->hashes, i, im->hashes_alloc);
		if (repo_resolve((char[41]){0}, im->hashes[i], NULL, im->repo, rec->commit,
				 &ignored))
			im->hashes[i][0] = '\0';
		bl_error_release(&ignored);
	} else {
		i = (size_t)known;
	}
	if (im->hashes[i][0])
		memcpy(rec->source_hash, im->hashes[i], sizeof(rec->source_hash));
	else
		im->out->commits_unknown++;
	return 0;
}

static void reading(void *data, size_t done, size_t total)
{
	struct import *im = data;
	if (im->progress)
		im->progress(im->progress_data, INGEST_IMPORT_READING, done, total);
}

/* Counts each record on its way from the reader to the intake. */
struct counted {
	struct import *im;
	ingest_record_fn *fn;
	void *fn_data;
};

static int count_record(struct ingest_record *rec, void *data, struct bl_error *err)
{
	struct counted *c = data;
	c->im->out->records++;
	return c->fn(rec, c->fn_data, err);
}

/* The intake's producer: the history's reader. */
static int produce_history(void *data, ingest_record_fn *fn, void *fn_data, struct bl_error *err)
{
	struct import *im = data;
	struct counted c = {im, fn, fn_data};
	int ret;

	im->history.fn = count_record;
	im->history.fn_data = &c;
	if ((ret = im->in->parsers->history(&im->history, err)))
		return ret;
	for (size_t i = 0; i < INGEST_NSKIPS; i++)
		im->out->skipped[i] = im->history.skipped[i];
	/* every record is staged: what the writer has yet to store comes next */
	if (im->progress)
		im->progress(im->progress_data, INGEST_IMPORT_STORING, 0, (size_t)im->out->records);
	return 0;
}

static void report_record(void *data, size_t index, const struct ingest_record *rec, int64_t run_id,
			  enum ingest_outcome o, const struct ingest_tagged *t)
{
	struct import *im = data;

	(void)index;
	(void)run_id;
	(void)t;
	if (o == INGEST_DUPLICATE)
		im->out->duplicates++;
	else
		im->out->stored++;
	if (o == INGEST_STANDS)
		im->out->standing++;
	for (size_t i = 0; i < rec->nmetrics; i++) {
		strbuf_reset(&im->key);
		strbuf_addf(&im->key, "%s%c%s%c%s%c%s", rec->machine, 0x1f, rec->benchmark, 0x1f,
			    rec->config ? rec->config : "", 0x1f, rec->metrics[i].name);
		intern_add(&im->series, im->key.buf);
	}
}

int ingest_import(struct ingest_import_result *out, struct ingest_intake *in, struct store *st,
		  enum history_format from, const char *path, const char *repo,
		  ingest_import_progress_fn *progress, void *progress_data, struct bl_error *err)
{
	struct ingest_defaults d;
	struct import im;
	int ret;

	memset(out, 0, sizeof(*out));
	memset(&im, 0, sizeof(im));
	im.in = in;
	im.out = out;
	im.progress = progress;
	im.progress_data = progress_data;
	intern_init(&im.commits);
	intern_init(&im.series);
	strbuf_init(&im.key, 0);
	ingest_defaults_init(&d);
	d.machine = in->machine;
	d.config = in->config;
	d.harness_version = in->harness_version >= 0 ? in->harness_version : 1;
	im.history.from = from;
	im.history.path = path;
	im.history.defaults = &d;
	im.history.complete = complete_record;
	im.history.complete_data = &im;
	im.history.progress = reading;
	im.history.progress_data = &im;
	if (!in->parsers->history) {
		ret = bl_error_set(err, BL_EINVALID, "%s: no reader of histories", path);
		goto done;
	}
	if (repo && (ret = repo_open(&im.repo, repo, &in->cfg, err)))
		goto done;
	ret = ingest_intake_records(in, st, path, produce_history, &im, NULL, NULL, report_record,
				    &im, err);
	out->series = (int64_t)im.series.nr;
done:
	if (im.repo)
		repo_free(im.repo);
	intern_release(&im.commits);
	intern_release(&im.series);
	free(im.hashes);
	strbuf_release(&im.key);
	return ret;
}

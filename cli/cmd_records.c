#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect/detect.h"
#include "store/store.h"
#include "ingest/config/config.h"
#include "ingest/ingest.h"
#include "cli/cli.h"
#include "ingest/adapters/adapters.h"

/* Rows are printed as a table sized to their content, a block of this many at a time, so that
 * listing a million runs holds a block in memory, not the whole history. */
#define RECORDS_BLOCK 5000

static const char *const col_names[] = {"id",	  "machine", "benchmark", "config",
					"source", "harness", "seq",	  "commit",
					"metric", "value",   "tags"};
#define NCOL (sizeof(col_names) / sizeof(*col_names))

struct records_out {
	int json;
	struct cli_json_array array;
	struct cli_table table;
	size_t printed; /* rows printed in earlier blocks */
	/* the Series of the last row, and the scale its values are written in (one per Series) */
	struct strbuf series;
	struct unit_scale scale;
};

/* The metric a row is judged by: its primary, else its first. */
static const struct store_record_metric *primary(const struct store_record_row *row)
{
	for (size_t i = 0; row->primary_metric && i < row->nmetrics; i++)
		if (!strcmp(row->metrics[i].name, row->primary_metric))
			return &row->metrics[i];
	return row->nmetrics ? &row->metrics[0] : NULL;
}

static void flush_block(struct records_out *out)
{
	cli_table_print(&out->table, stdout);
	out->printed += out->table.nrows;
	cli_table_release(&out->table);
	cli_table_init(&out->table, NULL, NCOL, "r....rrr.r");
}

static void add_row_text(struct records_out *out, const struct store_record_row *row)
{
	const struct store_record_metric *m = primary(row);
	struct strbuf series = STRBUF_INIT, cell = STRBUF_INIT;
	double v = m ? metric_judged_value(m->kind, m->median, m->value) : NAN;

	cli_table_row(&out->table);
	cli_table_add(&out->table, "%lld", (long long)row->id);
	cli_table_add(&out->table, "%s", row->machine);
	cli_table_add(&out->table, "%s", row->benchmark);
	cli_table_add(&out->table, "%s", row->config[0] ? row->config : "-");
	cli_table_add(&out->table, "%.12s", row->source_hash);
	cli_table_add(&out->table, "%lld", (long long)row->harness_version);
	if (row->seq >= 0)
		cli_table_add(&out->table, "%lld", (long long)row->seq);
	else
		cli_table_add(&out->table, "-");
	cli_table_add(&out->table, "%.8s", row->commit);
	cli_table_add(&out->table, "%s", m ? m->name : "-");
	/* one scale per Series: chosen at its first row, kept for the rest */
	strbuf_addf(&series, "%s%c%s%c%s%c%s", row->machine, 0, row->benchmark, 0, row->config, 0,
		    m ? m->name : "");
	if (m &&
	    (series.len != out->series.len || memcmp(series.buf, out->series.buf, series.len))) {
		unit_scale_choose(&out->scale, m->unit, v);
		strbuf_reset(&out->series);
		strbuf_add(&out->series, series.buf, series.len);
	}
	if (m && !isnan(v))
		strbuf_add_quantity(&cell, v, &out->scale);
	cli_table_add(&out->table, "%s", cell.len ? cell.buf : "-");
	strbuf_reset(&cell);
	for (size_t i = 0; i < row->ntags; i++)
		strbuf_addf(&cell, "%s%s", i ? "," : "", row->tags[i]);
	/* no tags: the row ends at its value, with nothing trailing */
	if (cell.len)
		cli_table_add(&out->table, "%s", cell.buf);
	strbuf_release(&series);
	strbuf_release(&cell);
	if (out->table.nrows >= RECORDS_BLOCK)
		flush_block(out);
}

static int each_row(const struct store_record_row *row, void *data)
{
	struct records_out *out = data;
	if (out->json)
		cli_json_array_add(&out->array, detect_record_json(row));
	else
		add_row_text(out, row);
	return 0;
}

/* records --why ID...: each run's tags and the reason for each, from its stored figures. */
static int explain(int argc, const char **argv, const char *repo, int json, struct cli_ctx *ctx)
{
	struct config cfg;
	struct bl_error err = BL_ERROR_INIT;
	struct strbuf why = STRBUF_INIT, root = STRBUF_INIT;
	json_t *rows = json ? json_array() : NULL;
	int ret = 0;

	/* --repo's benchline.json, else the checkout's (§10): the limits the runs were tagged by */
	ret = config_load_checkout(&cfg, &root, repo, &err);
	strbuf_release(&root);
	if (ret)
		goto done;
	for (int i = 0; i < argc && !ret; i++) {
		struct ingest_explained e;
		char *end;
		long long id = strtoll(argv[i], &end, 10);
		if (*end || id < 1) {
			ret = bl_error_set(&err, BL_EINVALID, "not a run id: '%s'", argv[i]);
			break;
		}
		if ((ret = ingest_explain_run(&e, ctx->store, &adapters_parsers, &cfg, id, &err)))
			break;
		if (json) {
			json_t *row = ingest_outcome_json(
			    NULL, 0, e.record, id, e.standing ? INGEST_STANDS : INGEST_SUPERSEDED);
			json_object_del(row, "record");
			json_object_del(row, "outcome");
			json_object_set_new(row, "standing", json_boolean(e.standing));
			ingest_outcome_add_tags(row, e.record, &e.tagged);
			json_array_append_new(rows, row);
		} else {
			cli_printf(stdout, "run %lld, %s/%s%s%s %.12s harness %lld: %s\n", id,
				   e.record->machine, e.record->benchmark,
				   e.record->config[0] ? " " : "", e.record->config,
				   e.record->source_hash, (long long)e.record->harness_version,
				   !e.tagged.tags ? "no tags: it joins its Series"
				   : e.standing	  ? "stands for its key, off its Series"
						  : "superseded, off its Series");
			for (unsigned t = 0; t < INGEST_NTAGS; t++) {
				if (!(e.tagged.tags & (1u << t)))
					continue;
				strbuf_reset(&why);
				ingest_tag_why(&why, t, e.record, &e.tagged);
				cli_printf(stdout, "  %s: %s\n", ingest_tag_name(t), why.buf);
			}
		}
		ingest_explained_release(&e);
	}
done:
	if (ret)
		ret = cli_fail(&err);
	else if (rows)
		cli_json_print(json_incref(rows));
	json_decref(rows);
	strbuf_release(&why);
	config_release(&cfg);
	bl_error_release(&err);
	return ret;
}

int cmd_records(int argc, const char **argv, struct cli_ctx *ctx)
{
	struct store_record_filter filter = {NULL, NULL, 0};
	struct records_out out;
	struct bl_error err = BL_ERROR_INIT;
	const char *repo = NULL;
	int ret, why = 0;
	const struct cli_option opts[] = {
	    {OPT_BOOL, "json", &out.json, NULL, "print one JSON array"},
	    {OPT_STRING, "machine", &filter.machine, "M", "only this machine"},
	    {OPT_STRING, "benchmark", &filter.benchmark, "B", "only this benchmark"},
	    {OPT_BOOL, "all", &filter.all, NULL, "every run, not just standing records"},
	    {OPT_BOOL, "why", &why, NULL,
	     "for each run ID given: its tags and why, from its stored figures"},
	    {OPT_STRING, "repo", &repo, "DIR",
	     "with --why: the limits of DIR's benchline.json (default: the current directory's "
	     "repository's)"},
	    {OPT_END, NULL, NULL, NULL, NULL},
	};
	memset(&out, 0, sizeof(out));
	strbuf_init(&out.series, 0);
	argc = cli_parse(argc, argv, opts, ctx);
	if (why) {
		if (!argc)
			cli_usage_error(ctx->cmd, opts, "--why needs a run ID");
		return explain(argc, argv, repo, out.json, ctx);
	}
	if (argc)
		cli_usage_error(ctx->cmd, opts, "records takes no arguments without --why");
	if (repo)
		cli_usage_error(ctx->cmd, opts, "--repo goes with --why");
	/* ids, harness versions, places and values align right, text left */
	cli_table_init(&out.table, col_names, NCOL, "r....rrr.r");
	if (out.json)
		cli_json_array_start(&out.array);
	ret = store_each_record(ctx->store, &filter, each_row, &out, &err);
	if (out.json)
		cli_json_array_end(&out.array);
	else if (!ret)
		cli_table_print(&out.table, stdout);
	cli_table_release(&out.table);
	strbuf_release(&out.series);
	if (ret)
		ret = cli_fail(&err);
	bl_error_release(&err);
	return ret;
}

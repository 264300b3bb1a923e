#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "detect/detect.h"
#include "store/store.h"
#include "cli/cli.h"

struct records_out {
	int json;
	struct cli_json_array array;
};

/* Appends s escaped for a terminal, as every text printer shows names. */
static const char *safe(struct strbuf *sb, const char *s)
{
	cli_escape_text(sb, s, strlen(s), 0);
	return sb->buf;
}

static void print_row_text(const struct store_record_row *row)
{
	const struct store_record_metric *m = row->nmetrics ? &row->metrics[0] : NULL;
	struct strbuf tags = STRBUF_INIT, seq = STRBUF_INIT;
	struct strbuf machine = STRBUF_INIT, benchmark = STRBUF_INIT, config = STRBUF_INIT;
	struct strbuf metric = STRBUF_INIT, unit = STRBUF_INIT;
	for (size_t i = 0; i < row->ntags; i++)
		strbuf_addf(&tags, "%s%s", i ? "," : "", row->tags[i]);
	if (row->seq >= 0)
		strbuf_addf(&seq, "%lld", (long long)row->seq);
	else
		strbuf_addch(&seq, '-');
	/* each name escaped before it is padded, so the columns line up */
	printf("%-7lld %-16s %-20s %-16s %.12s %4lld %6s %-8.8s", (long long)row->id,
	       safe(&machine, row->machine), safe(&benchmark, row->benchmark),
	       row->config[0] ? safe(&config, row->config) : "-", row->source_hash,
	       (long long)row->harness_version, seq.buf, row->commit);
	if (m)
		printf(" %s=%g %s", safe(&metric, m->name), isnan(m->median) ? m->value : m->median,
		       safe(&unit, m->unit));
	if (row->ntags)
		cli_printf(stdout, " [%s]", tags.buf);
	putchar('\n');
	strbuf_release(&tags);
	strbuf_release(&seq);
	strbuf_release(&machine);
	strbuf_release(&benchmark);
	strbuf_release(&config);
	strbuf_release(&metric);
	strbuf_release(&unit);
}

static int each_row(const struct store_record_row *row, void *data)
{
	struct records_out *out = data;
	if (out->json)
		cli_json_array_add(&out->array, detect_record_json(row));
	else
		print_row_text(row);
	return 0;
}

int cmd_records(int argc, const char **argv, struct cli_ctx *ctx)
{
	struct store_record_filter filter = {NULL, NULL, 0};
	struct records_out out = {0, {0}};
	struct bl_error err = BL_ERROR_INIT;
	int ret;
	const struct cli_option opts[] = {
	    {OPT_BOOL, "json", &out.json, NULL, "print one JSON array"},
	    {OPT_STRING, "machine", &filter.machine, "M", "only this machine"},
	    {OPT_STRING, "benchmark", &filter.benchmark, "B", "only this benchmark"},
	    {OPT_BOOL, "all", &filter.all, NULL, "every run, not just standing records"},
	    {OPT_END, NULL, NULL, NULL, NULL},
	};
	if (cli_parse(argc, argv, opts, ctx))
		cli_usage_error(ctx->cmd, opts, "records takes no arguments");
	if (out.json)
		cli_json_array_start(&out.array);
	else
		printf("%-7s %-16s %-20s %-16s %-12s %4s %6s %-8s\n", "id", "machine", "benchmark",
		       "config", "source", "harn", "seq", "commit");
	ret = store_each_record(ctx->store, &filter, each_row, &out, &err);
	if (out.json)
		cli_json_array_end(&out.array);
	if (ret)
		ret = cli_fail(&err);
	bl_error_release(&err);
	return ret;
}

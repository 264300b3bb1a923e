#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "detect/detect.h"
#include "cli/cli.h"

/* The text table's columns. */
enum { COL_MACHINE, COL_BENCHMARK, COL_CONFIG, COL_METRIC, COL_RECORDS, COL_LINES, COL_LAST, NCOL };

static const char *const col_names[NCOL] = {"machine", "benchmark", "config",	 "metric",
					    "records", "lines",	    "last value"};

struct series_out {
	int json;
	size_t count;
	/* Open Suspects per Series once detect has run (NULL before: nothing is known). */
	struct store_detect *detect;
	struct bl_error *err;
	int failed;
	struct cli_table table;	     /* text mode */
	struct cli_json_array array; /* --json */
};

/* A value as a person reads it: whole numbers whole, others with a few decimals. */
static void format_value(struct strbuf *sb, double v, const char *unit)
{
	if (isnan(v))
		strbuf_addch(sb, '-');
	else if (v == floor(v) && fabs(v) < 1e15)
		strbuf_addf(sb, "%.0f", v);
	else if (fabs(v) >= 100)
		strbuf_addf(sb, "%.1f", v);
	else
		strbuf_addf(sb, "%.4g", v);
	if (!isnan(v) && unit && *unit)
		strbuf_addf(sb, " %s", unit);
}

static int each_series(const struct store_series *s, void *data)
{
	struct series_out *out = data;
	struct strbuf sb = STRBUF_INIT;
	if (out->json) {
		json_t *open = json_null(), *o;
		int64_t n;
		if (out->detect) {
			if (store_open_suspects(&n, out->detect, s->machine, s->benchmark,
						s->config, s->metric, out->err)) {
				out->failed = 1;
				return 1;
			}
			open = json_integer(n);
		}
		o = detect_series_json(s, open);
		cli_json_array_add(&out->array, o);
		out->count++;
		return 0;
	}
	cli_table_row(&out->table);
	cli_table_add(&out->table, "%s", s->machine);
	cli_table_add(&out->table, "%s", s->benchmark);
	cli_table_add(&out->table, "%s", s->config[0] ? s->config : "-");
	cli_table_add(&out->table, "%s", s->metric);
	cli_table_add(&out->table, "%lld", (long long)s->records);
	cli_table_add(&out->table, "%zu", s->nlines);
	format_value(&sb, s->last_value, s->unit);
	cli_table_add(&out->table, "%s", sb.buf);
	strbuf_release(&sb);
	out->count++;
	return 0;
}

int cmd_series(int argc, const char **argv, struct cli_ctx *ctx)
{
	struct store_series_filter filter = {NULL, NULL};
	struct series_out out;
	struct bl_error err = BL_ERROR_INIT;
	int ret;
	const struct cli_option opts[] = {
	    {OPT_BOOL, "json", &out.json, NULL, "print one JSON array"},
	    {OPT_STRING, "machine", &filter.machine, "M", "only this machine"},
	    {OPT_STRING, "benchmark", &filter.benchmark, "B", "only this benchmark"},
	    {OPT_END, NULL, NULL, NULL, NULL},
	};
	memset(&out, 0, sizeof(out));
	/* Counts and ids align right, text left. */
	cli_table_init(&out.table, col_names, NCOL, "....rr.");
	if (cli_parse(argc, argv, opts, ctx))
		cli_usage_error(ctx->cmd, opts, "series takes no arguments");
	out.err = &err;
	if (out.json) {
		int ran;
		if (store_detect_ran(&ran, ctx->store, &err) ||
		    (ran && store_detect_open(&out.detect, ctx->store, &err))) {
			ret = cli_fail(&err);
			bl_error_release(&err);
			return ret;
		}
		cli_json_array_start(&out.array);
	}
	ret = store_each_series(ctx->store, &filter, each_series, &out, &err);
	if (out.failed)
		ret = BL_EDB;
	if (out.json)
		cli_json_array_end(&out.array);
	else if (!ret && out.count)
		cli_table_print(&out.table, stdout);
	else if (!ret)
		fputs("no series yet (ingest records, or try 'benchline demo')\n", stderr);
	if (ret)
		ret = cli_fail(&err);
	cli_table_release(&out.table);
	store_detect_close(out.detect);
	bl_error_release(&err);
	return ret;
}

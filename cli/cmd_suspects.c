#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect/detect.h"
#include "store/store.h"
#include "cli/cli.h"

/* The text table's columns. */
enum {
	COL_ID,
	COL_STATE,
	COL_SIDE,
	COL_SHIFT,
	COL_MACHINE,
	COL_BENCHMARK,
	COL_CONFIG,
	COL_METRIC,
	COL_COMMIT,
	COL_SEQ,
	NCOL
};

static const char *const col_names[NCOL] = {"id",	 "state",  "side",   "shift",  "machine",
					    "benchmark", "config", "metric", "commit", "seq"};

struct suspects_out {
	int json;
	size_t count;
	struct cli_table table; /* text mode */
};

/* Appends sb as the row's next cell and empties it. */
static void add_cell(struct suspects_out *out, struct strbuf *sb)
{
	cli_table_add(&out->table, "%s", sb->buf);
	strbuf_reset(sb);
}

static int each_suspect(const struct store_suspect *s, void *data)
{
	struct suspects_out *out = data;
	struct strbuf sb = STRBUF_INIT;
	if (out->json) {
		json_t *o = detect_suspect_json(s);
		fputs(out->count ? ",\n" : "\n", stdout);
		json_dumpf(o, stdout, JSON_COMPACT | JSON_REAL_PRECISION(17));
		json_decref(o);
		out->count++;
		return 0;
	}
	cli_table_row(&out->table);
	strbuf_addf(&sb, "%lld", (long long)s->id);
	add_cell(out, &sb);
	strbuf_addstr(&sb, suspect_state_name(s->state));
	add_cell(out, &sb);
	strbuf_addstr(&sb, suspect_side_name(s->side));
	add_cell(out, &sb);
	if (isnan(s->shift))
		strbuf_addch(&sb, '-');
	else
		strbuf_addf(&sb, "%+.1f%%", s->shift * 100);
	add_cell(out, &sb);
	strbuf_addstr(&sb, s->machine);
	add_cell(out, &sb);
	strbuf_addstr(&sb, s->benchmark);
	add_cell(out, &sb);
	strbuf_addstr(&sb, s->config[0] ? s->config : "-");
	add_cell(out, &sb);
	strbuf_addstr(&sb, s->metric);
	add_cell(out, &sb);
	strbuf_addf(&sb, "%.12s", s->commit);
	add_cell(out, &sb);
	if (s->seq >= 0)
		strbuf_addf(&sb, "%lld", (long long)s->seq);
	else
		strbuf_addch(&sb, '-');
	add_cell(out, &sb);
	strbuf_release(&sb);
	out->count++;
	return 0;
}

int cmd_suspects(int argc, const char **argv, struct cli_ctx *ctx)
{
	struct suspects_out out;
	struct bl_error err = BL_ERROR_INIT;
	int ret;
	const struct cli_option opts[] = {
	    {OPT_BOOL, "json", &out.json, NULL, "print one JSON array (§14)"},
	    {OPT_END, NULL, NULL, NULL, NULL},
	};
	memset(&out, 0, sizeof(out));
	/* Counts and ids align right, text left. */
	cli_table_init(&out.table, col_names, NCOL, "r..r.....r");
	if (cli_parse(argc, argv, opts, ctx))
		cli_usage_error(ctx->cmd, opts, "suspects takes no arguments");
	if (out.json)
		fputc('[', stdout);
	ret = store_each_suspect(ctx->store, 0, each_suspect, &out, &err);
	if (out.json)
		fputs(out.count ? "\n]\n" : "]\n", stdout);
	else if (!ret && out.count)
		cli_table_print(&out.table, stdout);
	else if (!ret)
		fputs("no suspects (run 'benchline detect' after ingesting records)\n", stderr);
	if (ret)
		ret = cli_fail(&err);
	cli_table_release(&out.table);
	bl_error_release(&err);
	return ret;
}

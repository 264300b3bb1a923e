#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect/confirm/confirm.h"
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
	struct cli_table table;	     /* text mode */
	struct strbuf cell;	     /* text mode: a cell being made */
	struct cli_json_array array; /* --json */
};

static int each_suspect(const struct store_suspect *s, void *data)
{
	struct suspects_out *out = data;
	if (out->json) {
		json_t *o = detect_suspect_json(s);
		cli_json_array_add(&out->array, o);
		out->count++;
		return 0;
	}
	cli_table_row(&out->table);
	cli_table_add(&out->table, "%lld", (long long)s->id);
	cli_table_add(&out->table, "%s", suspect_state_name(s->state));
	cli_table_add(&out->table, "%s", suspect_side_name(s->side));
	strbuf_reset(&out->cell);
	strbuf_add_change(&out->cell, 1 + s->shift, "-");
	cli_table_add(&out->table, "%s", out->cell.buf);
	cli_table_add(&out->table, "%s", s->machine);
	cli_table_add(&out->table, "%s", s->benchmark);
	cli_table_add(&out->table, "%s", s->config[0] ? s->config : "-");
	cli_table_add(&out->table, "%s", s->metric);
	cli_table_add(&out->table, "%.12s", s->commit);
	if (s->seq >= 0)
		cli_table_add(&out->table, "%lld", (long long)s->seq);
	else
		cli_table_add(&out->table, "-");
	out->count++;
	return 0;
}

/* No Suspects: found none, or never looked? Whether detect has run tells the two apart. */
static int say_none(struct store *st, struct bl_error *err)
{
	int ran, ret;
	if ((ret = store_detect_ran(&ran, st, err)))
		return ret;
	if (ran)
		fputs("no suspects: detect has run and found none\n", stderr);
	else
		fputs("no suspects: detect has not run on this database yet (run 'benchline "
		      "detect' after ingesting records)\n",
		      stderr);
	return 0;
}

/* benchline suspects ignore --why TEXT ALERT: the alert and its Suspects ignored for good. */
static int suspects_ignore(int argc, const char **argv, struct cli_ctx *ctx)
{
	struct bl_error err = BL_ERROR_INIT;
	struct strbuf who = STRBUF_INIT;
	enum suspect_state was;
	const char *why = NULL;
	long long id;
	char *end;
	int ret = 0;
	const struct cli_option opts[] = {
	    {OPT_STRING, "why", &why, "TEXT", "ignore: the reason, kept in the audit (required)"},
	    {OPT_END, NULL, NULL, NULL, NULL},
	};
	if (cli_parse(argc, argv, opts, ctx) != 1)
		cli_usage_error(ctx->cmd, opts, "suspects ignore takes one alert id");
	errno = 0;
	id = strtoll(argv[0], &end, 10);
	if (errno || *end || argv[0][0] < '1' || argv[0][0] > '9')
		cli_usage_error(ctx->cmd, opts, "not an alert id: '%s'", argv[0]);
	if (!why || !*why)
		cli_usage_error(ctx->cmd, opts,
				"suspects ignore needs --why TEXT (kept in the audit)");
	cli_who(&who);
	if (confirm_ignore_alert(&was, ctx->store, id, who.buf, why, &err))
		ret = cli_fail(&err);
	else if (was == SUSPECT_IGNORED)
		printf("alert %lld was ignored already\n", id);
	else
		printf("alert %lld ignored (it was %s)\n", id, suspect_state_name(was));
	strbuf_release(&who);
	bl_error_release(&err);
	return ret;
}

int cmd_suspects(int argc, const char **argv, struct cli_ctx *ctx)
{
	if (argc > 1 && !strcmp(argv[1], "ignore"))
		return suspects_ignore(argc - 1, argv + 1, ctx);
	struct suspects_out out;
	struct bl_error err = BL_ERROR_INIT;
	const char *why = NULL;
	int ret;
	/* --why belongs to 'suspects ignore' (which parses its own): listed here so that the
	 * command's help, built from this table, shows it */
	const struct cli_option opts[] = {
	    {OPT_BOOL, "json", &out.json, NULL, "print one JSON array"},
	    {OPT_STRING, "why", &why, "TEXT", "ignore: the reason, kept in the audit (required)"},
	    {OPT_END, NULL, NULL, NULL, NULL},
	};
	memset(&out, 0, sizeof(out));
	/* Counts and ids align right, text left. */
	cli_table_init(&out.table, col_names, NCOL, "r..r.....r");
	strbuf_init(&out.cell, 0);
	if (cli_parse(argc, argv, opts, ctx))
		cli_usage_error(ctx->cmd, opts, "suspects takes no arguments");
	if (why)
		cli_usage_error(ctx->cmd, opts, "--why is for 'suspects ignore --why TEXT ALERT'");
	if (out.json)
		cli_json_array_start(&out.array);
	ret = store_each_suspect(ctx->store, 0, each_suspect, &out, &err);
	if (out.json)
		cli_json_array_end(&out.array);
	else if (!ret && out.count)
		cli_table_print(&out.table, stdout);
	else if (!ret)
		ret = say_none(ctx->store, &err);
	if (ret)
		ret = cli_fail(&err);
	cli_table_release(&out.table);
	strbuf_release(&out.cell);
	bl_error_release(&err);
	return ret;
}

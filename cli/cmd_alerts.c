#include <jansson.h>
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
	COL_MACHINE,
	COL_COMMIT,
	COL_REFERENCE,
	COL_SERIES,
	COL_BY,
	COL_RUN_WIDE,
	COL_OUTCOME,
	NCOL
};

static const char *const col_names[NCOL] = {"id",	"state",     "side",	 "machine",
					    "commit",	"reference", "suspects", "found-by",
					    "run-wide", "outcome"};

/* Which opinions marked an alert's Suspects (§6, §6.1). */
static const char *found_by(const struct store_alert *a)
{
	if (a->by_band && a->by_change_point)
		return "band,change-point";
	return a->by_change_point ? "change-point" : "band";
}

struct alerts_out {
	int json;
	size_t count;
	struct store *st;
	struct bl_error *err;
	int failed;
	struct cli_table table;	     /* text mode */
	struct cli_json_array array; /* --json */
};

static int each_alert(const struct store_alert *a, void *data)
{
	struct alerts_out *out = data;
	out->count++;
	if (out->json) {
		json_t *o;
		if (detect_alert_json_read(&o, out->st, a, out->err)) {
			out->failed = 1;
			return 1;
		}
		cli_json_array_add(&out->array, o);
		return 0;
	}
	cli_table_row(&out->table);
	cli_table_add(&out->table, "%lld", (long long)a->id);
	cli_table_add(&out->table, "%s", suspect_state_name(a->state));
	cli_table_add(&out->table, "%s", suspect_side_name(a->side));
	cli_table_add(&out->table, "%s", a->machine);
	cli_table_add(&out->table, "%.12s", a->commit);
	cli_table_add(&out->table, "%.12s", a->reference_commit ? a->reference_commit : "-");
	if (a->judged_series >= 0)
		cli_table_add(&out->table, "%lld/%lld", (long long)a->series,
			      (long long)a->judged_series);
	else
		cli_table_add(&out->table, "%lld", (long long)a->series);
	cli_table_add(&out->table, "%s", found_by(a));
	cli_table_add(&out->table, "%s", a->run_wide ? "yes" : "no");
	cli_table_add(&out->table, "%s",
		      a->outcome != ALERT_NO_OUTCOME ? alert_outcome_name(a->outcome) : "-");
	return 0;
}

/* No alerts: none found, none that match, or never looked? Whether detect has run tells. */
static int say_none(struct store *st, const struct store_alert_filter *f, const char *state,
		    struct bl_error *err)
{
	struct strbuf which = STRBUF_INIT;
	int ran, ret;
	if ((ret = store_detect_ran(&ran, st, err)))
		return ret;
	if (state)
		strbuf_addf(&which, " in state '%s'", state);
	if (f->machine)
		strbuf_addf(&which, " of machine '%s'", f->machine);
	if (!ran)
		fputs("no alerts: detect has not run on this database yet (run 'benchline detect' "
		      "after ingesting records)\n",
		      stderr);
	else
		cli_printf(stderr, "no alerts%s: detect has run and found none%s\n", which.buf,
			   which.len ? " that match" : "");
	strbuf_release(&which);
	return 0;
}

int cmd_alerts(int argc, const char **argv, struct cli_ctx *ctx)
{
	struct alerts_out out;
	struct store_alert_filter f;
	struct bl_error err = BL_ERROR_INIT;
	const char *state = NULL;
	int ret;
	const struct cli_option opts[] = {
	    {OPT_STRING, "machine", &f.machine, "M", "only the alerts of machine M"},
	    {OPT_STRING, "state", &state, "S",
	     "only alerts in state S (pending, open, transient, cleared, confirmed, covered, "
	     "ignored)"},
	    {OPT_BOOL, "json", &out.json, NULL, "print one JSON array"},
	    {OPT_END, NULL, NULL, NULL, NULL},
	};
	memset(&out, 0, sizeof(out));
	memset(&f, 0, sizeof(f));
	out.err = &err;
	cli_table_init(&out.table, col_names, NCOL, "r.....r...");
	if (cli_parse(argc, argv, opts, ctx))
		cli_usage_error(ctx->cmd, opts, "alerts takes no arguments");
	out.st = ctx->store; /* opened once the options are read */
	if (state) {
		if (suspect_state_parse(&f.state, state))
			cli_usage_error(ctx->cmd, opts, "unknown state '%s'", state);
		f.state_given = 1;
	}
	if (out.json)
		cli_json_array_start(&out.array);
	ret = store_each_alert(ctx->store, &f, each_alert, &out, &err);
	if (out.failed)
		ret = BL_EDB;
	if (out.json)
		cli_json_array_end(&out.array);
	else if (!ret && out.count)
		cli_table_print(&out.table, stdout);
	else if (!ret)
		ret = say_none(ctx->store, &f, state, &err);
	if (ret)
		ret = cli_fail(&err);
	cli_table_release(&out.table);
	bl_error_release(&err);
	return ret;
}

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/ingest.h"
#include "store/store.h"
#include "cli/cli.h"

struct rm_out {
	int json, dry_run;
	json_t *array;
};

static void say_removed(void *data, const struct ingest_removed *r)
{
	struct rm_out *out = data;
	if (out->json) {
		json_t *o =
		    json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:I, s:b}", "id", (json_int_t)r->id,
			      "machine", r->machine, "benchmark", r->benchmark, "config", r->config,
			      "commit", r->commit, "source_hash", r->source_hash, "harness_version",
			      (json_int_t)r->harness_version, "standing", r->standing);
		json_object_set_new(o, "now_standing",
				    r->now_standing ? json_integer(r->now_standing) : json_null());
		json_array_append_new(out->array, o);
		return;
	}
	printf("%s run %lld: %s/%s%s%s %.12s harness %lld",
	       out->dry_run ? "would remove" : "removed", (long long)r->id, r->machine,
	       r->benchmark, r->config[0] ? " " : "", r->config, r->source_hash,
	       (long long)r->harness_version);
	if (r->standing && r->now_standing)
		printf(" (stood for its key: run %lld stands now)", (long long)r->now_standing);
	else if (r->standing)
		printf(" (stood for its key: no run is left for it)");
	putchar('\n');
}

static int64_t parse_run_id(const struct cli_command *cmd, const struct cli_option *opts,
			    const char *arg)
{
	char *end;
	long long v;
	errno = 0;
	v = strtoll(arg, &end, 10);
	if (errno || *end || end == arg || v <= 0 || arg[0] < '0' || arg[0] > '9')
		cli_usage_error(cmd, opts, "not a run id: '%s'", arg);
	return v;
}

int cmd_rm(int argc, const char **argv, struct cli_ctx *ctx)
{
	struct ingest_rm_request req;
	struct ingest_rm_result res;
	struct rm_out out;
	struct bl_error err = BL_ERROR_INIT;
	struct strbuf who = STRBUF_INIT;
	int64_t *ids = NULL;
	int ret = 0, nargs;
	const struct cli_option options[] = {
	    {OPT_STRING, "why", &req.why, "TEXT", "the reason, kept in the audit (required)"},
	    {OPT_STRING, "machine", &req.machine, "M", "the runs of machine M"},
	    {OPT_STRING, "benchmark", &req.benchmark, "B", "the runs of benchmark B"},
	    {OPT_STRING, "commit", &req.commit, "PREFIX",
	     "the runs of the commit these hex digits start (4 to 40)"},
	    {OPT_BOOL, "dry-run", &out.dry_run, NULL, "say what would be removed, remove nothing"},
	    {OPT_BOOL, "json", &out.json, NULL, "print the runs removed as one JSON array"},
	    {OPT_END, NULL, NULL, NULL, NULL},
	};
	memset(&req, 0, sizeof(req));
	memset(&out, 0, sizeof(out));
	nargs = cli_parse(argc, argv, options, ctx);
	if (nargs && (req.machine || req.benchmark || req.commit))
		cli_usage_error(ctx->cmd, options, "name runs by id or by filters, not both");
	if (!nargs && !req.machine && !req.benchmark && !req.commit)
		cli_usage_error(ctx->cmd, options, "name the runs to remove: ids, or filters");
	if (!out.dry_run && (!req.why || !*req.why))
		cli_usage_error(ctx->cmd, options, "rm needs --why TEXT (kept in the audit)");
	ids = xcalloc(nargs ? (size_t)nargs : 1, sizeof(*ids));
	for (int i = 0; i < nargs; i++)
		ids[i] = parse_run_id(ctx->cmd, options, argv[i]);
	cli_who(&who);
	req.ids = ids;
	req.nids = (size_t)nargs;
	req.who = who.buf;
	req.dry_run = out.dry_run;
	if (out.json)
		out.array = json_array();
	if (ingest_rm(&res, ctx->store, &req, say_removed, &out, &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	if (out.json) {
		cli_json_print(out.array);
		out.array = NULL;
		goto done;
	}
	printf("%s %lld run%s: %lld key%s with another standing run, %lld with no run left%s\n",
	       out.dry_run ? "dry run: would remove" : "removed", (long long)res.removed,
	       res.removed == 1 ? "" : "s", (long long)res.keys_changed,
	       res.keys_changed == 1 ? "" : "s", (long long)res.keys_emptied,
	       out.dry_run ? " (nothing written)" : "; the next detect reads every Series");
done:
	json_decref(out.array);
	free(ids);
	strbuf_release(&who);
	bl_error_release(&err);
	return ret;
}

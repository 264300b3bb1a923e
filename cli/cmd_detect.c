#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect/detect.h"
#include "ingest/config/config.h"
#include "store/store.h"
#include "cli/cli.h"

/* New Suspects printed one a line; the rest are counted (a first detect of a long history finds
 * thousands: `suspects` lists them). */
#define DETECT_LISTED 20

struct new_out {
	int json;
	json_t *array;
	size_t count;
};

static int each_new(const struct store_suspect *s, void *data)
{
	struct new_out *out = data;
	struct strbuf shift = STRBUF_INIT;
	out->count++;
	if (out->json) {
		json_array_append_new(out->array, detect_suspect_json(s));
		return 0;
	}
	strbuf_add_change(&shift, 1 + s->shift, "-");
	cli_printf(stdout, "  #%-3lld %-6s %7s  %s/%s %s %s at %.12s", (long long)s->id,
		   suspect_side_name(s->side), shift.buf, s->machine, s->benchmark,
		   s->config[0] ? s->config : "-", s->metric, s->commit);
	if (s->seq >= 0)
		printf(" (seq %lld)", (long long)s->seq);
	putchar('\n');
	strbuf_release(&shift);
	return 0;
}

/* BENCHLINE_TEST_DETECT_PASS=MEMBERS,POINTS: a full read in passes this small (tests). */
static void test_pass_limits(struct detect_options *opts)
{
	const char *v = getenv("BENCHLINE_TEST_DETECT_PASS");
	char *end;
	if (!v || !*v)
		return;
	opts->pass_members = strtoul(v, &end, 10);
	if (*end == ',')
		opts->pass_points = strtoul(end + 1, NULL, 10);
}

/* No Series: when records are stored, every one carries a tag (§5), and "0 Series" alone
 * would hide them. */
static int say_unused(struct store *st, struct bl_error *err)
{
	int64_t records;
	int ret;
	if ((ret = store_count(&records, st, "records", err)))
		return ret;
	if (records)
		fprintf(stderr,
			"detect: none of the %lld stored record%s is on a Series: %s a tag "
			"('benchline records --all' shows which)\n",
			(long long)records, records == 1 ? "" : "s",
			records == 1 ? "it carries" : "each carries");
	return 0;
}

int cmd_detect(int argc, const char **argv, struct cli_ctx *ctx)
{
	struct detect_options opts;
	struct detect_result res;
	struct new_out out;
	struct bl_error err = BL_ERROR_INIT;
	const char *repo = NULL;
	struct config cfg;
	struct strbuf root = STRBUF_INIT;
	int all = 0, json = 0, ret = 0;
	const struct cli_option options[] = {
	    {OPT_BOOL, "all", &all, NULL, "read and judge every Series again"},
	    {OPT_BOOL, "json", &json, NULL,
	     "print {\"series\", \"lines_recomputed\", \"new_suspects\"}"},
	    {OPT_STRING, "repo", &repo, "DIR",
	     "judge the metrics DIR's benchline.json names in `metrics` (kept for later runs; "
	     "default: the benchline.json of the current directory's repository, when it has "
	     "one)"},
	    {OPT_END, NULL, NULL, NULL, NULL},
	};
	memset(&opts, 0, sizeof(opts));
	memset(&out, 0, sizeof(out));
	config_init(&cfg);
	if (cli_parse(argc, argv, options, ctx))
		cli_usage_error(ctx->cmd, options, "detect takes no arguments");
	/* --repo's benchline.json, else the checkout's (§10); a checkout without one, or no
	 * checkout, judges what the last detect judged. */
	if ((ret = config_load_checkout(&cfg, &root, repo, &err))) {
		ret = cli_fail(&err);
		goto done;
	}
	if (repo || cfg.path)
		detect_options_from_config(&opts, &cfg);
	opts.all = all;
	test_pass_limits(&opts);
	if (detect_run(&res, ctx->store, &opts, &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	out.json = json;
	if (json) {
		json_t *o = json_object();
		out.array = json_array();
		if (store_each_suspect(ctx->store, res.first_new_id - 1, each_new, &out, &err)) {
			json_decref(o);
			json_decref(out.array);
			ret = cli_fail(&err);
			goto done;
		}
		json_object_set_new(o, "series", json_integer(res.series));
		json_object_set_new(o, "lines_recomputed", json_integer(res.lines_recomputed));
		json_object_set_new(o, "new_suspects", out.array);
		cli_json_print(o);
		goto done;
	}
	if (res.new_suspects)
		printf("new suspects:\n");
	if (store_each_new_suspect(ctx->store, res.first_new_id - 1, DETECT_LISTED, each_new, &out,
				   &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	if (res.new_suspects > (int64_t)out.count)
		printf("  ... and %lld more ('benchline suspects' lists them all)\n",
		       (long long)(res.new_suspects - (int64_t)out.count));
	printf("%lld Series (%lld judged), %lld line%s recomputed%s, %lld new suspect%s\n",
	       (long long)res.series, (long long)res.judged_series, (long long)res.lines_recomputed,
	       res.lines_recomputed == 1 ? "" : "s", res.full ? " (every Series read)" : "",
	       (long long)res.new_suspects, res.new_suspects == 1 ? "" : "s");
	if (!res.series && (ret = say_unused(ctx->store, &err)))
		ret = cli_fail(&err);
done:
	config_release(&cfg);
	strbuf_release(&root);
	bl_error_release(&err);
	return ret;
}

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect/detect.h"
#include "ingest/ingest.h"
#include "store/store.h"
#include "cli/cli.h"

/* benchline.json's `metrics` (the judged metrics), read after ingest_config_load has checked
 * the file. *given 1 when --repo was given: names NULL then means every timed metric. */
static int read_judged(char ***names, size_t *n, json_t **ladders, char **file, const char *repo,
		       struct bl_error *err)
{
	struct ingest_config cfg;
	struct strbuf text = STRBUF_INIT;
	json_t *root = NULL, *list;
	int ret;

	*names = NULL;
	*n = 0;
	if ((ret = ingest_config_load(&cfg, repo, err)))
		goto done;
	if (!cfg.path)
		goto done;
	*ladders = json_incref(cfg.ladders); /* for the quantile metrics `metrics` names (§8) */
	*file = xstrdup(cfg.path);
	if ((ret = read_file_capped(&text, cfg.path, (size_t)1 << 20, err)))
		goto done;
	root = json_loadb(text.buf, text.len, 0, NULL);
	list = json_object_get(root, "metrics");
	if (!json_is_array(list))
		goto done;
	*names = xcalloc(json_array_size(list) + 1, sizeof(**names));
	for (size_t i = 0; i < json_array_size(list); i++) {
		const char *s = json_string_value(json_array_get(list, i));
		(*names)[(*n)++] = xstrdup(s ? s : "");
	}
done:
	json_decref(root);
	strbuf_release(&text);
	ingest_config_release(&cfg);
	return ret;
}

struct new_out {
	int json;
	json_t *array;
	size_t count;
};

static void format_shift(struct strbuf *sb, double shift)
{
	if (isnan(shift))
		strbuf_addstr(sb, "-");
	else
		strbuf_addf(sb, "%+.1f%%", shift * 100);
}

static int each_new(const struct store_suspect *s, void *data)
{
	struct new_out *out = data;
	struct strbuf shift = STRBUF_INIT;
	out->count++;
	if (out->json) {
		json_array_append_new(out->array, detect_suspect_json(s));
		return 0;
	}
	format_shift(&shift, s->shift);
	printf("  #%-3lld %-6s %7s  %s/%s %s %s at %.12s", (long long)s->id,
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

int cmd_detect(int argc, const char **argv, struct cli_ctx *ctx)
{
	struct detect_options opts;
	struct detect_result res;
	struct new_out out;
	struct bl_error err = BL_ERROR_INIT;
	const char *repo = NULL;
	char **names = NULL;
	size_t nnames = 0;
	json_t *ladders = NULL;
	char *config_file = NULL;
	int all = 0, json = 0, ret = 0;
	const struct cli_option options[] = {
	    {OPT_BOOL, "all", &all, NULL, "read and judge every Series again"},
	    {OPT_BOOL, "json", &json, NULL,
	     "print {\"series\", \"lines_recomputed\", \"new_suspects\"}"},
	    {OPT_STRING, "repo", &repo, "DIR",
	     "judge the metrics DIR's benchline.json names in `metrics` (kept for later runs)"},
	    {OPT_END, NULL, NULL, NULL, NULL},
	};
	memset(&opts, 0, sizeof(opts));
	memset(&out, 0, sizeof(out));
	if (cli_parse(argc, argv, options, ctx))
		cli_usage_error(ctx->cmd, options, "detect takes no arguments");
	if (repo) {
		if ((ret = read_judged(&names, &nnames, &ladders, &config_file, repo, &err))) {
			ret = cli_fail(&err);
			goto done;
		}
		opts.metrics_given = 1;
		opts.metrics = (const char *const *)names;
		opts.nmetrics = nnames;
		opts.ladders = ladders;
		opts.ladders_file = config_file;
	}
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
		json_dumpf(o, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
		fputc('\n', stdout);
		json_decref(o);
		goto done;
	}
	if (res.new_suspects)
		printf("new suspects:\n");
	if (store_each_suspect(ctx->store, res.first_new_id - 1, each_new, &out, &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	printf("%lld Series (%lld judged), %lld line%s recomputed%s, %zu new suspect%s\n",
	       (long long)res.series, (long long)res.judged_series, (long long)res.lines_recomputed,
	       res.lines_recomputed == 1 ? "" : "s", res.full ? " (every Series read)" : "",
	       out.count, out.count == 1 ? "" : "s");
done:
	for (size_t i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	json_decref(ladders);
	free(config_file);
	bl_error_release(&err);
	return ret;
}

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "ingest/config/config.h"
#include "ingest/ingest.h"
#include "store/store.h"
#include "cli/cli.h"
#include "ingest/adapters/adapters.h"

/* "noisy +2 -1, superseded +1": the tags that changed, in the store's order. */
static void tag_changes(struct strbuf *sb, const struct ingest_retag_result *r)
{
	for (unsigned i = 0; i < INGEST_NTAGS; i++) {
		if (!r->added[i] && !r->removed[i])
			continue;
		strbuf_addf(sb, "%s%s", sb->len ? ", " : "", ingest_tag_name(i));
		if (r->added[i])
			strbuf_addf(sb, " +%lld", (long long)r->added[i]);
		if (r->removed[i])
			strbuf_addf(sb, " -%lld", (long long)r->removed[i]);
	}
}

static void print_json(const struct ingest_retag_result *r, int dry_run)
{
	json_t *o = json_object(), *tags = json_object();
	for (unsigned i = 0; i < INGEST_NTAGS; i++)
		json_object_set_new(tags, ingest_tag_name(i),
				    json_pack("{s:I, s:I}", "added", (json_int_t)r->added[i],
					      "removed", (json_int_t)r->removed[i]));
	json_object_set_new(o, "runs", json_integer(r->runs));
	json_object_set_new(o, "retagged", json_integer(r->retagged));
	json_object_set_new(o, "tags", tags);
	json_object_set_new(o, "keys_changed", json_integer(r->keys_changed));
	json_object_set_new(o, "dry_run", json_boolean(dry_run));
	cli_json_print(o);
}

int cmd_retag(int argc, const char **argv, struct cli_ctx *ctx)
{
	struct ingest_retag_result res;
	struct config cfg;
	struct bl_error err = BL_ERROR_INIT;
	struct strbuf who = STRBUF_INIT, changes = STRBUF_INIT, root = STRBUF_INIT;
	const char *repo = NULL;
	int dry_run = 0, json = 0, ret = 0;
	const struct cli_option options[] = {
	    {OPT_STRING, "repo", &repo, "DIR",
	     "the rules of DIR's benchline.json (quiet limits, machines); default: the current "
	     "directory's repository's, else the defaults"},
	    {OPT_BOOL, "dry-run", &dry_run, NULL, "say what would change, change nothing"},
	    {OPT_BOOL, "json", &json, NULL,
	     "print {\"runs\", \"retagged\", \"tags\", \"keys_changed\", \"dry_run\"}"},
	    {OPT_END, NULL, NULL, NULL, NULL},
	};
	config_init(&cfg);
	if (cli_parse(argc, argv, options, ctx))
		cli_usage_error(ctx->cmd, options, "retag takes no arguments");
	cli_who(&who);
	/* --repo's benchline.json, else the checkout's (§10), whose limits the intake tags by */
	if (config_load_checkout(&cfg, &root, repo, &err) ||
	    ingest_retag(&res, ctx->store, &adapters_parsers, &cfg, who.buf, dry_run, &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	if (json) {
		print_json(&res, dry_run);
		goto done;
	}
	tag_changes(&changes, &res);
	printf("%s%lld run%s read, %lld re-tagged%s%s%s, %lld key%s with another standing run%s\n",
	       dry_run ? "dry run: " : "", (long long)res.runs, res.runs == 1 ? "" : "s",
	       (long long)res.retagged, changes.len ? " (" : "", changes.buf,
	       changes.len ? ")" : "", (long long)res.keys_changed,
	       res.keys_changed == 1 ? "" : "s", dry_run ? " (nothing written)" : "");
done:
	config_release(&cfg);
	strbuf_release(&who);
	strbuf_release(&changes);
	strbuf_release(&root);
	bl_error_release(&err);
	return ret;
}

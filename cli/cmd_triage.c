#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect/confirm/confirm.h"
#include "store/store.h"
#include "cli/cli.h"

/* --mark-filed ID=URL...: records where each issue was filed, all or none. */
static int mark_filed(struct cli_ctx *ctx, const struct cli_command *cmd,
		      const struct cli_option *opts, const struct cli_list *filed)
{
	struct bl_error err = BL_ERROR_INIT;
	const char **urls, *url;
	int64_t *ids, id;
	int ret = 0;

	/* Every argument is checked before anything is allocated: a usage error exits. */
	for (size_t i = 0; i < filed->nr; i++)
		if (confirm_triage_parse_filed(&id, &url, filed->items[i], &err))
			cli_usage_error(cmd, opts, "%s", err.msg.buf);
	ids = xcalloc(filed->nr, sizeof(*ids));
	urls = xcalloc(filed->nr, sizeof(*urls));
	for (size_t i = 0; i < filed->nr; i++)
		confirm_triage_parse_filed(&ids[i], &urls[i], filed->items[i], &err);
	if (confirm_triage_mark_filed(ctx->store, ids, urls, filed->nr, &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	for (size_t i = 0; i < filed->nr; i++)
		fprintf(stderr, "benchline: alert %lld filed at %s\n", (long long)ids[i], urls[i]);
done:
	free(ids);
	free(urls);
	bl_error_release(&err);
	return ret;
}

/*
 * benchline triage [--json | --markdown] [--base-url URL] [--mark-filed ID=URL]...: the issue
 * of every confirmed alert with a Regression not yet filed (§9.5), or, with --mark-filed,
 * where issues were filed (those alerts are never listed again).
 */
int cmd_triage(int argc, const char **argv, struct cli_ctx *ctx)
{
	struct confirm_triage_issue *issues = NULL;
	struct cli_list filed = {NULL, 0, 0};
	struct bl_error err = BL_ERROR_INIT;
	const char *base_url = NULL;
	int json = 0, markdown = 0, ret = 0;
	size_t n = 0;
	const struct cli_option opts[] = {
	    {OPT_BOOL, "json", &json, NULL, "print one JSON array of issues"},
	    {OPT_BOOL, "markdown", &markdown, NULL, "print each issue's title and Markdown body"},
	    {OPT_STRING, "base-url", &base_url, "URL",
	     "link each Series' chart under URL (the server's address)"},
	    {OPT_LIST, "mark-filed", &filed, "ID=URL",
	     "record where alert ID's issue was filed (repeatable); it is never listed again"},
	    {OPT_END, NULL, NULL, NULL, NULL},
	};

	if (cli_parse(argc, argv, opts, ctx))
		cli_usage_error(ctx->cmd, opts, "triage takes no arguments");
	if (json && markdown)
		cli_usage_error(ctx->cmd, opts, "--json and --markdown are two formats: pick one");
	if (filed.nr) {
		if (json || markdown || base_url)
			cli_usage_error(ctx->cmd, opts,
					"--mark-filed lists nothing: it takes no "
					"other option");
		ret = mark_filed(ctx, ctx->cmd, opts, &filed);
		goto done;
	}
	if (confirm_triage_list(&issues, &n, ctx->store, base_url, &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	if (json) {
		struct cli_json_array a;
		cli_json_array_start(&a);
		for (size_t i = 0; i < n; i++)
			cli_json_array_add(&a, confirm_triage_json(&issues[i]));
		cli_json_array_end(&a);
	} else if (markdown) {
		struct strbuf md = STRBUF_INIT;
		for (size_t i = 0; i < n; i++) {
			if (i)
				strbuf_addstr(&md, "\n---\n\n");
			confirm_triage_markdown(&md, &issues[i]);
		}
		cli_printf(stdout, "%s", md.buf);
		strbuf_release(&md);
	} else {
		for (size_t i = 0; i < n; i++) {
			cli_printf(stdout, "alert %lld: %s\n    labels %s, %s; Regression%s",
				   (long long)issues[i].alert_id, issues[i].title.buf,
				   confirm_triage_labels[0], confirm_triage_labels[1],
				   issues[i].nregs == 1 ? "" : "s");
			for (size_t k = 0; k < issues[i].nregs; k++)
				printf("%s %lld", k ? "," : "", (long long)issues[i].regs[k].id);
			putchar('\n');
		}
	}
	if (!n && !json)
		fputs("nothing to triage: no confirmed alert with a Regression is left unfiled\n",
		      stderr);
done:
	confirm_triage_issues_free(issues, n);
	cli_list_release(&filed);
	bl_error_release(&err);
	return ret;
}

#include <stdio.h>
#include <string.h>

#include "store/store.h"
#include "web/web.h"
#include "cli/cli.h"
#include "ingest/repo/repo.h"

/* A line of the export's progress on stderr. */
static void export_progress(const char *line, void *data)
{
	(void)data;
	cli_printf(stderr, "benchline: %s\n", line);
}

int cmd_export(int argc, const char **argv, struct cli_ctx *ctx)
{
	struct web_export x;
	struct web_export_result res;
	struct bl_error err = BL_ERROR_INIT;
	struct strbuf root = STRBUF_INIT;
	const char *repo = NULL;
	int ret = 0;
	const struct cli_option options[] = {
	    {OPT_STRING, "html", &x.dir, "DIR",
	     "write the site into DIR (made when missing; its files are replaced)"},
	    {OPT_STRING, "repo", &repo, "DIR",
	     "the benchmarked repository: its benchline.json's repo_url links commits"},
	    {OPT_STRING, "base-url", &x.base_url, "URL",
	     "where the site will be served: each page names its address there, and the badge's "
	     "Markdown for a README is printed"},
	    {OPT_STRING, "gnuplot", &x.gnuplot, "PROGRAM", "the gnuplot to run (gnuplot)"},
	    {OPT_END, NULL, NULL, NULL, NULL},
	};
	memset(&x, 0, sizeof(x));
	if (cli_parse(argc, argv, options, ctx))
		cli_usage_error(ctx->cmd, options, "export takes no arguments");
	if (!x.dir || !*x.dir)
		cli_usage_error(ctx->cmd, options, "export needs --html DIR");
	if (x.base_url && strncmp(x.base_url, "https://", 8) && strncmp(x.base_url, "http://", 7))
		cli_usage_error(ctx->cmd, options,
				"--base-url takes an http:// or https:// URL, not '%s'",
				x.base_url);
	if (repo && repo_toplevel(&root, repo, &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	x.repo_dir = repo ? root.buf : NULL;
	x.progress = export_progress;
	if (web_export_html(&res, ctx->store, &x, &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	if (x.base_url) {
		struct strbuf site = STRBUF_INIT, badge = STRBUF_INIT;
		web_export_url(&site, x.base_url, "index.html");
		web_export_url(&badge, x.base_url, "badge.svg");
		printf("badge: [![benchmarks](%s)](%s)\n", badge.buf, site.buf);
		strbuf_release(&site);
		strbuf_release(&badge);
	}
	printf("export: %zu pages and %zu charts written to '%s' (%zu files)\n", res.pages,
	       res.charts, x.dir, res.files);
done:
	strbuf_release(&root);
	bl_error_release(&err);
	return ret;
}

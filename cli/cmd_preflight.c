#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "ingest/config/config.h"
#include "cli/cli.h"
#include "ingest/preflight/preflight.h"

static const char *level_name(enum preflight_level level)
{
	switch (level) {
	case PREFLIGHT_OK:
		return "ok";
	case PREFLIGHT_SKIP:
		return "skip";
	case PREFLIGHT_WARN:
		return "warn";
	case PREFLIGHT_FAIL:
		return "FAIL";
	}
	return "?";
}

/*
 * benchline preflight [--json] [--repo DIR] (§4): one line per finding, or with --json the
 * object a record carries under "preflight". Exit 0 quiet, 1 noisy, 2 error.
 */
int cmd_preflight(int argc, const char **argv, struct cli_ctx *ctx)
{
	const char *repo = ".";
	int json = 0, ret = 0;
	struct config cfg;
	struct preflight_limits limits;
	struct preflight pf;
	struct bl_error err = BL_ERROR_INIT;
	struct strbuf out = STRBUF_INIT;
	char **processes = NULL;
	size_t nprocesses = 0;
	struct stat st;
	const struct cli_option opts[] = {
	    {OPT_BOOL, "json", &json, NULL, "print the preflight object of a record"},
	    {OPT_STRING, "repo", &repo, "DIR",
	     "read limits from DIR's benchline.json (default: the current directory)"},
	    {OPT_END, NULL, NULL, NULL, NULL},
	};

	if (cli_parse(argc, argv, opts, ctx))
		cli_usage_error(ctx->cmd, opts, "preflight takes no arguments");
	config_init(&cfg);
	preflight_init(&pf);
	/* A mistyped --repo must not silently fall back to the default limits. */
	if (stat(repo, &st) < 0 || !S_ISDIR(st.st_mode)) {
		const char *why = "not a directory";
		if (stat(repo, &st) < 0)
			why = strerror(errno);
		cli_error("cannot open repository '%s': %s", repo, why);
		ret = 2;
		goto done;
	}
	if (config_load(&cfg, repo, &err) ||
	    preflight_config_processes(&processes, &nprocesses, &cfg, &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	preflight_limits_init(&limits);
	limits.cpu_load_pct = cfg.cpu_load_pct;
	limits.gpu_load_pct = cfg.gpu_load_pct;
	limits.processes = processes;
	limits.nprocesses = nprocesses;
	if (preflight_run(&pf, &limits, &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	if (json) {
		if (preflight_json(&out, &pf)) {
			cli_error("cannot encode the preflight as json");
			ret = 2;
			goto done;
		}
		puts(out.buf);
	} else {
		for (size_t i = 0; i < pf.nfindings; i++)
			/* a finding may quote a process's name, which its owner chose */
			cli_printf(stdout, "%-4s %s\n", level_name(pf.findings[i].level),
				   pf.findings[i].text);
	}
	ret = pf.quiet ? 0 : 1;
done:
	preflight_release(&pf);
	strings_free(processes, nprocesses);
	config_release(&cfg);
	strbuf_release(&out);
	bl_error_release(&err);
	return ret;
}

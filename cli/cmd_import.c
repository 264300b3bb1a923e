#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "store/store.h"
#include "cli/cli.h"
#include "ingest/adapters/adapters.h"

/* The names of the reasons a reader skips, in --json. */
static const char *const skip_keys[INGEST_NSKIPS] = {
    [INGEST_SKIP_NO_VALUE] = "no_value",       [INGEST_SKIP_NO_COMMIT] = "no_commit",
    [INGEST_SKIP_OVERVIEW] = "overview",       [INGEST_SKIP_EMPTY] = "empty",
    [INGEST_SKIP_UNDESCRIBED] = "undescribed",
};

/* Progress on stderr, once reading has taken a second: rewritten in place on a terminal,
 * else a line at each tenth; and before a large store, a line saying so. */
struct progress {
	const char *path;
	int tty, shown;
	size_t last_tenth;
	double started;
};

/* Records from this many on take long enough to store that the wait deserves a line. */
#define STORING_SAID 10000

static void progress(void *data, enum ingest_import_phase phase, size_t done, size_t total)
{
	struct progress *p = data;

	if (phase == INGEST_IMPORT_STORING) {
		if (p->shown && p->tty)
			fputc('\n', stderr);
		if (p->shown || total >= STORING_SAID)
			cli_printf(stderr,
				   "benchline: import: storing %zu records of '%s' in one "
				   "transaction\n",
				   total, p->path);
		p->shown = 0;
		return;
	}
	if (!total || monotonic_s() - p->started < 1.0)
		return;
	if (p->tty) {
		cli_printf(stderr, "\r\033[Kbenchline: import: reading '%s': %zu/%zu", p->path,
			   done, total);
		p->shown = 1;
	} else if (done * 10 / total > p->last_tenth) {
		p->last_tenth = done * 10 / total;
		cli_printf(stderr, "benchline: import: reading '%s': %zu/%zu\n", p->path, done,
			   total);
		p->shown = 1;
	}
}

/* The one line that ends an import. */
static void summary(struct strbuf *out, const char *from, const char *path,
		    const struct ingest_import_result *r)
{
	int skipped = 0;

	strbuf_addf(out, "imported '%s' (%s): ", path, from);
	if (r->stored)
		strbuf_addf(out, "%lld record%s stored (%lld standing)", (long long)r->stored,
			    r->stored == 1 ? "" : "s", (long long)r->standing);
	else
		strbuf_addstr(out, "nothing new stored");
	strbuf_addf(out, ", %lld already stored, on %lld Series", (long long)r->duplicates,
		    (long long)r->series);
	if (r->commits_unknown)
		strbuf_addf(out,
			    "; %lld at commits the repository lacks (their source hash is the "
			    "history's own)",
			    (long long)r->commits_unknown);
	for (int i = 0; i < INGEST_NSKIPS; i++) {
		if (!r->skipped[i])
			continue;
		strbuf_addstr(out, skipped++ ? ", " : "; skipped ");
		ingest_skip_text(out, (enum ingest_skip)i, r->skipped[i]);
	}
}

int cmd_import(int argc, const char **argv, struct cli_ctx *ctx)
{
	const char *from = NULL, *machine = NULL, *config = NULL, *repo = NULL;
	long harness = -1;
	int json = 0, ret = 0;
	enum history_format f;
	struct ingest_intake in;
	struct ingest_import_result res;
	struct bl_error err = BL_ERROR_INIT;
	struct progress pr = {NULL, isatty(2), 0, 0, monotonic_s()};
	struct cli_command parse_only = *ctx->cmd;
	struct cli_ctx pctx = *ctx;
	const struct cli_option opts[] = {
	    {OPT_STRING, "from", &from, "TOOL", "asv, asv-html, gab or bencher"},
	    {OPT_STRING, "machine", &machine, "M",
	     "the machine of every record (default: the history's)"},
	    {OPT_INT, "harness-version", &harness, "N", "the harness version (default 1)"},
	    {OPT_STRING, "config", &config, "C", "put in front of every record's config"},
	    {OPT_STRING, "repo", &repo, "DIR",
	     "source hashes from DIR's history; DIR's benchline.json"},
	    {OPT_BOOL, "json", &json, NULL, "print the summary as one JSON object"},
	    {OPT_END, NULL, NULL, NULL, NULL},
	};

	/* Options first, the database only once they are good: a usage error never creates it. */
	parse_only.needs = 0;
	pctx.cmd = &parse_only;
	argc = cli_parse(argc, argv, opts, &pctx);
	if (!from) {
		struct strbuf list = STRBUF_INIT;
		history_format_list(&list);
		cli_usage_error(ctx->cmd, opts, "import needs --from TOOL (%s)", list.buf);
	}
	if (history_format_parse(&f, from)) {
		struct strbuf list = STRBUF_INIT;
		history_format_list(&list);
		cli_usage_error(ctx->cmd, opts, "unknown --from '%s' (expected %s)", from,
				list.buf);
	}
	if (argc != 1)
		cli_usage_error(ctx->cmd, opts,
				argc ? "import reads one history at a time"
				: f == HISTORY_ASV || f == HISTORY_ASV_HTML
				    ? "no directory to import"
				    : "no file to import");
	if (harness < -1)
		cli_usage_error(ctx->cmd, opts, "--harness-version must be 0 or more");
	/* checked here, as ingest's --machine is, so that it is named and no database is made */
	if (machine && !machine_name_valid(machine))
		cli_usage_error(ctx->cmd, opts,
				"invalid machine name '%s' (expected [A-Za-z0-9._-]{1,64})",
				machine);

	ingest_intake_init(&in, &adapters_parsers);
	in.machine = machine;
	in.config = config;
	in.harness_version = harness;
	in.settings_dir = repo;
	pr.path = argv[0];
	if (ingest_intake_setup(&in, &err) ||
	    (!ctx->store && store_open(&ctx->store, ctx->db_path, STORE_CREATE, &err)) ||
	    ingest_import(&res, &in, ctx->store, f, argv[0], repo, progress, &pr, &err)) {
		if (pr.shown && pr.tty)
			fputc('\n', stderr);
		ret = cli_fail(&err);
		goto done;
	}
	if (json) {
		json_t *o = json_object(), *skipped = json_object();
		json_object_set_new(o, "from", json_string(from));
		json_object_set_new(o, "path", json_string(argv[0]));
		json_object_set_new(o, "records", json_integer(res.records));
		json_object_set_new(o, "stored", json_integer(res.stored));
		json_object_set_new(o, "standing", json_integer(res.standing));
		json_object_set_new(o, "duplicates", json_integer(res.duplicates));
		json_object_set_new(o, "series", json_integer(res.series));
		json_object_set_new(o, "commits_unknown", json_integer(res.commits_unknown));
		for (int i = 0; i < INGEST_NSKIPS; i++)
			json_object_set_new(skipped, skip_keys[i], json_integer(res.skipped[i]));
		json_object_set_new(o, "skipped", skipped);
		cli_json_print(o);
	} else {
		struct strbuf line = STRBUF_INIT;
		summary(&line, from, argv[0], &res);
		cli_printf(stdout, "%s\n", line.buf);
		strbuf_release(&line);
	}
done:
	ingest_intake_release(&in);
	bl_error_release(&err);
	return ret;
}

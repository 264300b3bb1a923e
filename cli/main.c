#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "cli/cli.h"

/* The one command table: name, function, the setup it needs, usage, summary. */
const struct cli_command cli_commands[] = {
    {"help", cmd_help, 0, "benchline help [COMMAND]", "show the commands, or one command's usage"},
    {"init", cmd_init, NEED_DB_CREATE, "benchline init",
     "create or migrate the database (--db, $BENCHLINE_DB, ./benchline.db)"},
    /* The intake commands open (and create) the database themselves: with --server they
     * push and need none. */
    {"ingest", cmd_ingest, 0,
     "benchline ingest [--format F] [--machine M] [--harness-version N] [--config C]\n"
     "                        [--repo DIR] [--verbose] [--json]\n"
     "                        [--server URL --token-file F] [--spool DIR] FILE...",
     "store benchmark results (any format), one transaction per file"},
    {"run", cmd_run, 0,
     "benchline run [--format F] [--machine M] [--harness-version N] [--config C]\n"
     "                     [--repo DIR] [--results PATH] [--no-preflight] [--json]\n"
     "                     [--server URL --token-file F] [--spool DIR] -- COMMAND...",
     "preflight, run a benchmark command, parse its output, tag and store"},
    {"import-baseline", cmd_import_baseline, 0,
     "benchline import-baseline [--format F] [--machine M] [--harness-version N]\n"
     "                                 [--server URL --token-file F] FILE...",
     "store historical records as imported Baselines (each starts a line)"},
    {"push", cmd_push, 0,
     "benchline push [--server URL --token-file F] [--spool DIR] [--json] FILE...\n"
     "   or: benchline push --spool [--server URL --token-file F]",
     "send native record files to a server, after what waits in the spool"},
    {"records", cmd_records, NEED_DB,
     "benchline records [--json] [--machine M] [--benchmark B] [--all]",
     "list standing records (every run with --all)"},
    {"series", cmd_series, NEED_DB, "benchline series [--json] [--machine M] [--benchmark B]",
     "list every Series: machine, benchmark, config, metric"},
    {"detect", cmd_detect, NEED_DB, "benchline detect [--all] [--json] [--repo DIR]",
     "find Suspects: records that step out of their line's band (§6)"},
    {"gate", cmd_gate, 0, /* opens the database itself: --live needs none */
     "benchline gate [--repo DIR] [--head REV] [--base REF] [--live] [--json FILE]\n"
     "                      [--markdown FILE]\n"
     "   or: benchline gate accept --justification TEXT [--headroom PCT] [--only NAME]...",
     "pass or fail for a pull request: did it make anything slower?"},
    {"rebench", cmd_rebench, 0,
     "benchline rebench [--repo DIR] [--benchmark GLOB] [--limit RATIO] [--json] A B",
     "measure B against A now, interleaved: is B slower?"},
    {"bisect", cmd_bisect, 0,
     "benchline bisect [--repo DIR] --good REV --bad REV --benchmark NAME [--metric M]\n"
     "                        [--limit RATIO] [--machine M] [--no-store] [--json]",
     "find the first commit between two that made a benchmark slower"},
    {"suspects", cmd_suspects, NEED_DB,
     "benchline suspects [--json]\n"
     "   or: benchline suspects ignore --why TEXT ALERT",
     "list the Suspects detect found, in Series order"},
    {"retag", cmd_retag, NEED_DB, "benchline retag [--repo DIR] [--dry-run] [--json]",
     "apply the current tag rules and the key rule to every stored run again"},
    {"rm", cmd_rm, NEED_DB,
     "benchline rm [--dry-run] [--json] --why TEXT ID...\n"
     "   or: benchline rm [--dry-run] [--json] --why TEXT [--machine M] [--benchmark B]\n"
     "                    [--commit PREFIX]",
     "remove runs (recorded in the audit table with who, when and why)"},
    {"alerts", cmd_alerts, NEED_DB, "benchline alerts [--machine M] [--state S] [--json]",
     "list the alerts: Suspects grouped into what confirm measures"},
    {"sweep", cmd_sweep, 0, /* opens the database itself: --server needs none */
     "benchline sweep [--repo DIR] [--machine M] [--since REV | --last N] [--confirm]\n"
     "                       [--harness-version N] [--wait-quiet SECONDS] [--no-preflight]\n"
     "                       [--server URL --token-file F]",
     "the nightly job: build, run and store main's commits not measured yet, then detect"},
    {"confirm", cmd_confirm, 0, /* opens the database itself: --server needs none */
     "benchline confirm [--repo DIR] [--machine M] [--limit RATIO] [--json]\n"
     "                         [--server URL --token-file F] [ALERT...]",
     "re-bench open slower alerts and bisect the ones that hold into Regressions"},
    {"regressions", cmd_regressions, NEED_DB, "benchline regressions [--json]",
     "list the Regressions bisection pinned"},
    {"triage", cmd_triage, NEED_DB,
     "benchline triage [--json | --markdown] [--base-url URL]\n"
     "   or: benchline triage --mark-filed ID=URL...",
     "one issue per confirmed alert not yet filed, for a bot to file"},
    {"hash", cmd_hash, 0, "benchline hash [--repo DIR] [REV...]",
     "print the source hash of revisions (default HEAD)"},
    {"paths", cmd_paths, 0, "benchline paths check [--repo DIR]",
     "fail when a top-level path is neither measured nor unmeasured"},
    {"sync", cmd_sync, NEED_DB_CREATE, "benchline sync --repo DIR [--json]",
     "record main's first-parent history (only new commits)"},
    {"preflight", cmd_preflight, 0, "benchline preflight [--json] [--repo DIR]",
     "check that the machine is quiet enough to measure"},
    {"serve", cmd_serve, NEED_DB_CREATE,
     "benchline serve [--bind ADDR] [--port PORT] [--token-file F] [--base-url URL]\n"
     "                       [--threads N] [--timeout SECONDS] [--gnuplot PROGRAM] [--repo DIR]",
     "serve the charts, the Series pages and the JSON API over HTTP"},
    {"demo", cmd_demo, NEED_DB_CREATE, "benchline demo [--seed N] [--json]",
     "write a generated demo history into the database"},
    {"ladder", cmd_ladder, 0,
     "benchline ladder derive --baseline B --ladders L [--pct P]\n"
     "   or: benchline ladder check --baseline B --thresholds T --ladders L [--declared D]\n"
     "   or: benchline ladder compare --baseline B --thresholds T --current C [--report FILE]\n"
     "   or: benchline ladder floors --baseline B --ladders L [--json]",
     "bucket-ladder bounds for histogram quantiles: derive, check, compare, floors"},
    /* Plumbing (no summary: left out of `benchline help`), for the tests and scripts. */
    {"worktree", cmd_worktree, 0, "benchline worktree [--repo DIR] [--build] [--run] REV [REV]",
     NULL},
    {NULL, NULL, 0, NULL, NULL},
};

static const char global_usage[] =
    "usage: benchline [--db FILE] [--version] COMMAND [ARGS]\n"
    "\n"
    "The database is --db FILE, else $BENCHLINE_DB, else ./benchline.db.\n"
    "'benchline COMMAND --help' shows a command's options.\n";

const struct cli_command *cli_find_command(const char *name)
{
	for (const struct cli_command *c = cli_commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

void cli_error(const char *fmt, ...)
{
	va_list ap;
	fputs("benchline: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_fail(const struct bl_error *err)
{
	cli_error("%s", err->msg.len ? err->msg.buf : "unknown error");
	return 2;
}

void cli_list_release(struct cli_list *l)
{
	free(l->items);
	l->items = NULL;
	l->nr = l->alloc = 0;
}

void cli_print_usage(FILE *f, const struct cli_command *cmd, const struct cli_option *opts)
{
	fprintf(f, "usage: %s\n", cmd->usage);
	if (!opts || opts[0].type == OPT_END)
		return;
	fputc('\n', f);
	for (const struct cli_option *o = opts; o->type != OPT_END; o++) {
		struct strbuf left = STRBUF_INIT;
		strbuf_addf(&left, "--%s", o->long_name);
		if (o->argh)
			strbuf_addf(&left, " %s", o->argh);
		fprintf(f, "    %-26s %s\n", left.buf, o->help);
		strbuf_release(&left);
	}
}

void cli_usage_error(const struct cli_command *cmd, const struct cli_option *opts, const char *fmt,
		     ...)
{
	va_list ap;
	fputs("benchline: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	cli_print_usage(stderr, cmd, opts);
	exit(2);
}

static const struct cli_option *find_option(const struct cli_option *opts, const char *name,
					    size_t len)
{
	for (const struct cli_option *o = opts; o && o->type != OPT_END; o++)
		if (strlen(o->long_name) == len && !strncmp(o->long_name, name, len))
			return o;
	return NULL;
}

static void set_option(const struct cli_command *cmd, const struct cli_option *opts,
		       const struct cli_option *o, const char *arg)
{
	char *end;
	switch (o->type) {
	case OPT_BOOL:
		*(int *)o->value = 1;
		break;
	case OPT_STRING:
		*(const char **)o->value = arg;
		break;
	case OPT_LIST: {
		struct cli_list *l = o->value;
		ALLOC_GROW(l->items, l->nr, l->alloc);
		l->items[l->nr++] = arg;
		break;
	}
	case OPT_INT:
		errno = 0;
		*(long *)o->value = strtol(arg, &end, 10);
		if (errno || end == arg || *end)
			cli_usage_error(cmd, opts, "--%s wants an integer, not '%s'", o->long_name,
					arg);
		break;
	case OPT_DOUBLE:
		errno = 0;
		*(double *)o->value = strtod(arg, &end);
		if (errno || end == arg || *end)
			cli_usage_error(cmd, opts, "--%s wants a number, not '%s'", o->long_name,
					arg);
		break;
	case OPT_END:
		break;
	}
}

/* Opens the database the command's table entry asks for; exits 2 when it cannot. */
static void setup(struct cli_ctx *ctx)
{
	struct bl_error err = BL_ERROR_INIT;
	int flags = (ctx->cmd->needs & NEED_DB_CREATE) ? STORE_CREATE : 0;
	if (!ctx->cmd->needs || ctx->store)
		return;
	if (store_open(&ctx->store, ctx->db_path, flags, &err)) {
		cli_fail(&err);
		exit(2);
	}
}

int cli_parse(int argc, const char **argv, const struct cli_option *opts, struct cli_ctx *ctx)
{
	const struct cli_command *cmd = ctx->cmd;
	int nargs = 0, i;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			cli_print_usage(stdout, cmd, opts);
			exit(0);
		}
		if (a[0] == '-' && a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);
			const struct cli_option *o = find_option(opts, name, len);
			if (!o)
				cli_usage_error(cmd, opts, "unknown option '%s'", a);
			if (o->type == OPT_BOOL) {
				if (eq)
					cli_usage_error(cmd, opts, "--%s takes no value",
							o->long_name);
				set_option(cmd, opts, o, NULL);
			} else if (eq) {
				set_option(cmd, opts, o, eq + 1);
			} else if (i + 1 < argc) {
				set_option(cmd, opts, o, argv[++i]);
			} else {
				cli_usage_error(cmd, opts, "--%s needs a value", o->long_name);
			}
			continue;
		}
		/* -v is the one short option: --verbose, where a command has it. */
		if (!strcmp(a, "-v") && find_option(opts, "verbose", 7)) {
			set_option(cmd, opts, find_option(opts, "verbose", 7), NULL);
			continue;
		}
		if (a[0] == '-' && a[1])
			cli_usage_error(cmd, opts, "unknown option '%s'", a);
		argv[nargs++] = a;
	}
	for (; i < argc; i++)
		argv[nargs++] = argv[i];
	setup(ctx);
	return nargs;
}

int cmd_help(int argc, const char **argv, struct cli_ctx *ctx)
{
	static const struct cli_option opts[] = {{OPT_END, NULL, NULL, NULL, NULL}};
	argc = cli_parse(argc, argv, opts, ctx);
	if (argc > 1)
		cli_usage_error(ctx->cmd, opts, "help takes at most one command");
	if (argc == 1) {
		const struct cli_command *c = cli_find_command(argv[0]);
		if (!c)
			cli_usage_error(ctx->cmd, opts, "no command '%s'", argv[0]);
		const char *args[] = {c->name, "--help", NULL};
		struct cli_ctx sub = {ctx->db_path, NULL, c, 0};
		return c->fn(2, args, &sub);
	}
	fputs(global_usage, stdout);
	fputs("\ncommands:\n", stdout);
	for (const struct cli_command *c = cli_commands; c->name; c++)
		if (c->summary)
			printf("    %-10s %s\n", c->name, c->summary);
	return 0;
}

int main(int argc, char **argv_in)
{
	const char **argv = (const char **)argv_in;
	const char *db_path = getenv("BENCHLINE_DB");
	const struct cli_command *cmd;
	struct cli_ctx ctx = {NULL, NULL, NULL, 0};
	struct bl_error err = BL_ERROR_INIT;
	int i, ret;

	signal(SIGPIPE, SIG_IGN);
	if (!db_path || !*db_path)
		db_path = "benchline.db";
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--version")) {
			printf("benchline %s\n", BENCHLINE_VERSION);
			return 0;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			/* 'benchline help': the global usage and the commands */
			ctx.db_path = db_path;
			ctx.cmd = cli_find_command("help");
			return cmd_help(1, argv + i, &ctx);
		} else if (!strcmp(argv[i], "--db")) {
			if (i + 1 >= argc) {
				cli_error("--db needs a file");
				fputs(global_usage, stderr);
				return 2;
			}
			db_path = argv[++i];
			ctx.db_given = 1;
		} else if (!strncmp(argv[i], "--db=", 5)) {
			db_path = argv[i] + 5;
			ctx.db_given = 1;
		} else {
			cli_error("unknown option '%s'", argv[i]);
			fputs(global_usage, stderr);
			return 2;
		}
	}
	if (i >= argc) {
		fputs(global_usage, stderr);
		return 2;
	}
	if (!(cmd = cli_find_command(argv[i]))) {
		cli_error("'%s' is not a benchline command (see 'benchline help')", argv[i]);
		return 2;
	}
	ctx.db_path = db_path;
	ctx.cmd = cmd;
	ret = cmd->fn(argc - i, argv + i, &ctx);
	store_free(ctx.store);
	bl_error_release(&err);
	repo_libgit2_shutdown();
	if (fflush(stdout) || ferror(stdout)) {
		if (ret == 0)
			ret = 2;
	}
	return ret;
}

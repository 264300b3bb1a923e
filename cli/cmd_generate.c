#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

/*
 * benchline generate manpage|completion [COMMAND] (plumbing): the man page and the bash
 * completion script, made from the command table and every command's option table, so
 * neither can disagree with `--help`. A command's option table is its own (cli_parse is handed
 * it when the command runs), so each command's part is its `--help` printed in another format,
 * by this binary run again with COMMAND: the whole page is those parts in table order.
 */

enum generated { GEN_MANPAGE, GEN_COMPLETION };

/* The part of each command, plumbing too, in table order. */
static int add_parts(struct strbuf *out, const char *what, struct bl_error *err)
{
	int ret = 0;
	for (const struct cli_command *c = cli_commands; c->name && !ret; c++) {
		const char *argv[] = {"/proc/self/exe", "generate", what, c->name, NULL};
		struct child_process cp;
		child_process_init(&cp);
		cp.argv = argv;
		cp.no_stdin = 1;
		cp.out_max = 1 << 20;
		if ((ret = child_process_run(&cp, err))) {
			;
		} else if (cp.exit_code != 0) {
			ret = bl_error_set(err, BL_EIO, "cannot generate the %s of '%s'", what,
					   c->name);
		} else if (!strcmp(what, "completion")) {
			/* "SUBCOMMANDS\nOPTIONS\n" as one case of the script */
			const char *nl = strchr(cp.out.buf, '\n');
			size_t sub_len = nl ? (size_t)(nl - cp.out.buf) : 0;
			const char *opts = nl ? nl + 1 : "";
			strbuf_addf(out, "\t%s)\n\t\tsubs='%.*s'\n\t\topts='%.*s'\n\t\t;;\n",
				    c->name, (int)sub_len, cp.out.buf, (int)strcspn(opts, "\n"),
				    opts);
		} else {
			strbuf_add(out, cp.out.buf, cp.out.len);
		}
		child_process_release(&cp);
	}
	return ret;
}

static void add_command_names(struct strbuf *out)
{
	for (const struct cli_command *c = cli_commands; c->name; c++)
		strbuf_addf(out, " %s", c->name);
}

static int manpage(struct strbuf *out, struct bl_error *err)
{
	int ret;
	strbuf_addf(
	    out,
	    ".\\\" The man page of benchline %s, written by 'benchline generate manpage'.\n"
	    ".TH BENCHLINE 1 \"\" \"benchline %s\" \"benchline manual\"\n"
	    ".SH NAME\n"
	    "benchline \\- a benchmark history database and regression detector\n"
	    ".SH SYNOPSIS\n"
	    ".B benchline\n"
	    "[\\-\\-db FILE] [\\-\\-version] COMMAND [ARGS]\n"
	    ".SH DESCRIPTION\n"
	    "benchline keeps every benchmark run keyed by what it measured, in one SQLite "
	    "database, tags the runs that should not be trusted, finds the records that step "
	    "out of their line (Suspects), confirms them by measuring again and bisects the "
	    "commit that made a benchmark slower (Regressions), answers pass or fail for a "
	    "pull request, and serves charts and a JSON API.\n"
	    ".PP\n"
	    "Every command works on one database: \\-\\-db FILE, else $BENCHLINE_DB, else "
	    "./benchline.db. Options take their value as the next argument or after '=' "
	    "(\\-\\-db=x.db); \\-\\- ends the options. Messages go to stderr as 'benchline: "
	    "MESSAGE'; listings go to stdout, and every listing takes \\-\\-json.\n"
	    ".SH COMMANDS\n",
	    BENCHLINE_VERSION, BENCHLINE_VERSION);
	if ((ret = add_parts(out, "manpage", err)))
		return ret;
	strbuf_addstr(out,
		      ".SH EXIT STATUS\n"
		      "0 success; 1 a finding the command exists to report (a slower metric, "
		      "an unclassified path); 2 an error: bad usage, unreadable input, a broken "
		      "repository or database. Each command lists its own above.\n"
		      ".SH ENVIRONMENT\n"
		      ".TP\n.B BENCHLINE_DB\nthe database, when \\-\\-db is not given\n"
		      ".TP\n.B BENCHLINE_SERVER\nthe server the intake commands push to\n"
		      ".TP\n.B BENCHLINE_TOKEN_FILE\nthe file holding the server's bearer token\n"
		      ".TP\n.B XDG_STATE_HOME\nthe spool is $XDG_STATE_HOME/benchline/spool\n"
		      ".SH SEE ALSO\n"
		      "docs/cli.md and the other documents of benchline's source tree.\n");
	return 0;
}

static int completion(struct strbuf *out, struct bl_error *err)
{
	int ret;
	strbuf_addstr(out, "# bash completion for benchline, written by 'benchline generate "
			   "completion'\n"
			   "_benchline() {\n"
			   "\tlocal cur=${COMP_WORDS[COMP_CWORD]} cmd= subs= opts= i\n"
			   "\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
			   "\t\tcase ${COMP_WORDS[i]} in\n"
			   "\t\t--db) ((i++)) ;;\n"
			   "\t\t-*) ;;\n"
			   "\t\t*) cmd=${COMP_WORDS[i]}; break ;;\n"
			   "\t\tesac\n"
			   "\tdone\n"
			   "\tif [ -z \"$cmd\" ]; then\n"
			   "\t\tCOMPREPLY=($(compgen -W '--db --version --help");
	add_command_names(out);
	strbuf_addstr(out, "' -- \"$cur\"))\n"
			   "\t\treturn\n"
			   "\tfi\n"
			   "\tcase $cmd in\n");
	if ((ret = add_parts(out, "completion", err)))
		return ret;
	strbuf_addstr(out, "\t*) return ;;\n"
			   "\tesac\n"
			   "\tcase $cur in\n"
			   "\t-*) COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\")) ;;\n"
			   "\t*) [ \"$i\" -eq $((COMP_CWORD - 1)) ] && [ -n \"$subs\" ] &&\n"
			   "\t\tCOMPREPLY=($(compgen -W \"$subs\" -- \"$cur\")) ;;\n"
			   "\tesac\n"
			   "}\n"
			   "complete -o default -F _benchline benchline\n");
	return 0;
}

int cmd_generate(int argc, const char **argv, struct cli_ctx *ctx)
{
	static const struct cli_option opts[] = {{OPT_END, NULL, NULL, NULL, NULL}};
	struct strbuf out = STRBUF_INIT;
	struct bl_error err = BL_ERROR_INIT;
	enum generated what;
	int ret;

	argc = cli_parse(argc, argv, opts, ctx);
	if (!argc)
		cli_usage_error(ctx->cmd, opts,
				"generate needs a subcommand: manpage or completion");
	if (!strcmp(argv[0], "manpage"))
		what = GEN_MANPAGE;
	else if (!strcmp(argv[0], "completion"))
		what = GEN_COMPLETION;
	else
		cli_usage_error(ctx->cmd, opts, "unknown subcommand '%s'", argv[0]);
	if (argc > 2)
		cli_usage_error(ctx->cmd, opts, "unexpected argument '%s'", argv[2]);
	if (argc == 2) {
		const struct cli_command *c = cli_find_command(argv[1]);
		if (!c)
			cli_usage_error(ctx->cmd, opts, "no command '%s'", argv[1]);
		return cli_run_help(c, ctx->db_path,
				    what == GEN_MANPAGE ? CLI_HELP_ROFF : CLI_HELP_WORDS);
	}
	ret = what == GEN_MANPAGE ? manpage(&out, &err) : completion(&out, &err);
	if (ret)
		ret = cli_fail(&err);
	else
		fwrite(out.buf, 1, out.len, stdout);
	strbuf_release(&out);
	bl_error_release(&err);
	return ret;
}

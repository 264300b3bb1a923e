/*
 * cli: main() with the one command table and the option parser (main.c), each command's help,
 * man page section and completion words made from its table entry (help.c), one cmd_<name>.c
 * per command, the intake commands' setup and printing (intake.c), pushing to a server
 * (push.c), the listing commands' tables and JSON arrays (output.c) and who is running it, for
 * the audit (who.c). Only this folder prints or exits. Exit codes: 0 success, 1 a finding
 * (regression, lint, unclassified path), 2 error or bad usage, others as each command documents.
 */
#ifndef BENCHLINE_CLI_H
#define BENCHLINE_CLI_H

#include <stdio.h>

#include "common/common.h"
#include "ingest/ingest.h"

struct store;

/* The exit status of a command whose side cannot be built (git bisect's "skip"). */
#define EXIT_CANNOT_BUILD 125

/* What a command needs set up before it runs. */
enum cli_needs {
	NEED_DB = 1,	    /* an existing database */
	NEED_DB_CREATE = 2, /* a database, created and migrated when missing */
};

/* How `COMMAND --help` prints the command's help (see `benchline generate`). */
enum cli_help {
	CLI_HELP_TEXT,	/* for a person: usage, description, options, exit status, examples */
	CLI_HELP_ROFF,	/* the command's section of the man page */
	CLI_HELP_WORDS, /* its subcommands on one line, its options on the next (completion) */
};

struct cli_ctx {
	const char *db_path;
	struct store *store; /* opened per the command's needs, else NULL */
	const struct cli_command *cmd;
	int db_given; /* --db was on the command line (not $BENCHLINE_DB or the default) */
	enum cli_help help;
};

/*
 * One way of calling a command: the subcommand it starts with (NULL for none), the options it
 * takes by name in synopsis order ("--good --bad [--json]": bracketed when optional; NULL for
 * every option), and what follows them ("FILE...", "-- COMMAND...", "" for nothing). The
 * synopsis of form 0 also lists, as optional, every option of the command's table no form
 * names, so no synopsis can leave an option out.
 */
struct cli_form {
	const char *word;
	const char *options;
	const char *args;
};
#define CLI_MAX_FORMS 4

struct cli_command {
	const char *name;
	int (*fn)(int argc, const char **argv, struct cli_ctx *ctx);
	int needs;
	/* forms[0] always; a later form is there when its args is not NULL */
	struct cli_form forms[CLI_MAX_FORMS];
	const char *summary;	 /* one line for `benchline help` */
	int plumbing;		 /* `help` lists it apart: for scripts and tests */
	const char *description; /* one paragraph, unwrapped */
	const char *exits;	 /* one line per exit status: "CODE what it means" */
	/* two examples (or more): what each does, then its command line */
	const char *examples[6];
};

/* Options, git's parse-options in miniature. */
enum cli_opt_type {
	OPT_END,
	OPT_BOOL,   /* int *: set to 1 */
	OPT_STRING, /* const char **: the argument */
	OPT_LIST,   /* struct cli_list *: appended */
	OPT_INT,    /* long *: a decimal integer */
	OPT_DOUBLE, /* double * */
};

struct cli_list {
	const char **items;
	size_t nr, alloc;
};

struct cli_option {
	enum cli_opt_type type;
	const char *long_name; /* without the dashes */
	void *value;
	const char *argh; /* the argument's name in help, NULL for flags */
	const char *help;
};

/* How form (an index into cmd's forms) takes the option name: CLI_FORM_NEEDED, CLI_FORM_TAKES
 * (optional) or 0 (not at all). A form 0 without a list takes every option. */
enum { CLI_FORM_TAKES = 1, CLI_FORM_NEEDED = 2 };
int cli_form_option(const struct cli_command *cmd, int form, const char *name);
/* The index of the form whose subcommand is word, or -1. */
int cli_form_find(const struct cli_command *cmd, const char *word);

/*
 * Parses argv (argv[0] is the command's name) against opts, leaving the non-option arguments
 * in argv[0..returned). "--" ends options. --help prints the command's help (in the format
 * ctx->help names) and exits 0; a bad option prints a one-line message and the usage and exits
 * 2. Once the options are good, it does the
 * setup the command's table entry asks for (opening the database), so a usage error never
 * touches the database.
 */
int cli_parse(int argc, const char **argv, const struct cli_option *opts, struct cli_ctx *ctx);
/* Prints "benchline: message" and the command's usage to stderr, and exits 2. */
void cli_usage_error(const struct cli_command *cmd, const struct cli_option *opts, const char *fmt,
		     ...) __attribute__((format(printf, 3, 4), noreturn));
/* The synopsis of every form and the options, as a usage error shows them. */
void cli_print_usage(FILE *f, const struct cli_command *cmd, const struct cli_option *opts);
/* What `COMMAND --help` prints, in the format help asks for (cli/help.c). */
void cli_print_help(FILE *f, const struct cli_command *cmd, const struct cli_option *opts,
		    enum cli_help help);
/* Prints "benchline: MESSAGE" to stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Appends "; did you mean 'NAME'?" when a command's name is a near miss of typed. */
void cli_suggest_command(struct strbuf *hint, const char *typed);
/* Runs cmd with --help alone, printing its help in the format help asks for. */
int cli_run_help(const struct cli_command *cmd, const char *db_path, enum cli_help help);
/* Prints err's message and returns 2 (the error exit status). */
int cli_fail(const struct bl_error *err);
/* The same for a command that measures: EXIT_CANNOT_BUILD when ret is BL_EBUILD (a revision
 * that does not build, §9.3), else 2. */
int cli_fail_measure(int ret, const struct bl_error *err);
void cli_list_release(struct cli_list *l);

/* The exit status of a pushing command whose bodies were not all acknowledged, but each is
 * kept in the spool and nothing was refused (§10's fleet). */
#define EXIT_SPOOLED 3

/*
 * Pushing records to a server instead of storing them (§10's fleet; ingest/push/push.h): the
 * flags every pushing command takes, its session, and what became of its bodies.
 */
struct push_session;
struct cli_push {
	const char *server, *token_file, *spool_dir;
	long retries;		      /* -1: PUSH_RETRIES */
	double timeout;		      /* seconds a request may take; 0: PUSH_TIMEOUT_MS */
	struct push_session *session; /* NULL until cli_push_connect */
	int flushed;		      /* the spool was pushed (once, before the first body) */
	size_t flushed_bodies;	      /* spooled bodies it found and tried */
	int failed;		      /* a body was refused or lost: exit 2 */
	int spooled;		      /* a body waits in the spool: exit 3 unless failed */
	size_t bodies_spooled;	      /* bodies of the command's own that were spooled */
};

/* The option entries of the pushing flags. */
#define CLI_PUSH_OPTIONS(p)                                                                        \
	{OPT_STRING, "server", &(p)->server, "URL",                                                \
	 "the benchline server to push to (then no database is opened)"},                          \
	    {OPT_STRING, "token-file", &(p)->token_file, "F",                                      \
	     "the server's bearer token: the first field of F's first line"},                      \
	    {OPT_STRING, "spool", &(p)->spool_dir, "DIR",                                          \
	     "where unacknowledged bodies wait (default $XDG_STATE_HOME/benchline/spool)"},        \
	    {OPT_INT, "retries", &(p)->retries, "N",                                               \
	     "retries of a push that got no answer or a 5xx (default 3)"},                         \
	{                                                                                          \
		OPT_DOUBLE, "timeout", &(p)->timeout, "SECONDS",                                   \
		    "how long one request to the server may take (default 60)"                     \
	}

void cli_push_init(struct cli_push *p);
void cli_push_release(struct cli_push *p);
/* 1 when the records go to a server: --server; else not with --db; else $BENCHLINE_SERVER;
 * else not with $BENCHLINE_DB; else benchline.json's "server" (cfg may be NULL). */
int cli_push_wanted(const struct cli_push *p, const struct cli_ctx *ctx, const struct config *cfg);
/* Opens the server (URL and token file: the flag, else $BENCHLINE_SERVER and
 * $BENCHLINE_TOKEN_FILE, else cfg's "server" and "token_file") and the spool. */
int cli_push_connect(struct cli_push *p, const struct config *cfg, struct bl_error *err);
/* Pushes the spool, once per command; prints what became of each spooled body. */
void cli_push_flush(struct cli_push *p, struct json_t *json_out);
/*
 * Pushes one body (the spool first, when not yet done) and prints the server's outcome for
 * each record as a local ingest prints it (or appends it to json_out, named name); a body
 * not acknowledged (push_records: anything but benchline's outcome list, one outcome per
 * record) is spooled and said so on stderr, with what came back. 0 when acknowledged or
 * spooled; BL_EDENIED, BL_ETOOBIG or BL_EIO (err says) when refused or lost.
 */
int cli_push_body(struct cli_push *p, const char *name, const char *body, size_t len,
		  struct json_t *json_out, struct bl_error *err);
/* The exit status of the pushes: 2 when one was refused or lost, else EXIT_SPOOLED when a
 * body waits in the spool, else 0. */
int cli_push_status(const struct cli_push *p);

/*
 * Taking records in (ingest, run, import-baseline): the intake use case (ingest.h) with the
 * flags that set it, and its outcomes printed one line per record (or as JSON with --json).
 * With a server (cli_push_wanted), each file's records go there as one body, and no database
 * is opened.
 */
struct cli_intake {
	struct ingest_intake core;
	int verbose, json;
	struct json_t *json_out; /* with --json: rows not printed yet */
	size_t json_rows;	 /* rows printed */
	struct cli_push push;
};

/* The option entries every intake command takes. */
#define CLI_INTAKE_OPTIONS(in)                                                                     \
	{OPT_STRING, "format", &(in)->core.format, "F",                                            \
	 "auto (the default; run: benchline.json's bench.format), benchline, bmf, gbench, "        \
	 "hyperfine, pytest, gotest, criterion, catch2, jmh"},                                     \
	    {OPT_STRING, "machine", &(in)->core.machine, "M",                                      \
	     "the machine, when the format lacks one (default: benchline.json's machine)"},        \
	    {OPT_INT, "harness-version", &(in)->core.harness_version, "N",                         \
	     "the harness version, when the format lacks one (default: benchline.json's, else "    \
	     "1)"},                                                                                \
	    {OPT_STRING, "config", &(in)->core.config, "C", "the config (default \"\")"},          \
	    {OPT_STRING, "repo", &(in)->core.repo, "DIR",                                          \
	     "DIR's HEAD gives commit, source hash and dirty state, its benchline.json the "       \
	     "settings (default: the current directory's repository; ingest takes only its "       \
	     "settings)"},                                                                         \
	    {OPT_BOOL, "verbose", &(in)->verbose, NULL, "say which format was chosen"},            \
	    {OPT_BOOL, "json", &(in)->json, NULL, "print what was stored as JSON"},                \
	    CLI_PUSH_OPTIONS(&(in)->push)

void cli_intake_init(struct cli_intake *in);
void cli_intake_release(struct cli_intake *in);
/* Checks the flags and reads --repo's settings and HEAD (after cli_parse), then opens where
 * the records go: the server (cli_push_wanted), else the database (created when missing). */
int cli_intake_setup(struct cli_intake *in, struct cli_ctx *ctx, struct bl_error *err);
/* Parses a file (or a criterion directory) into out. */
int cli_intake_read(struct cli_intake *in, struct ingest_batch *out, const char *path,
		    struct bl_error *err);
/* With --verbose, the format name's records were parsed in (the intake's last parse), on
 * stderr. */
void cli_intake_say_format(const struct cli_intake *in, const char *name);
/* Stores a batch in one transaction, or pushes it as one body, and prints one line per
 * record. A body spooled is not an error (see cli_intake_status). */
int cli_intake_store(struct cli_intake *in, struct cli_ctx *ctx, const char *name,
		     struct ingest_batch *batch, struct bl_error *err);
/* With --json: prints the rows of json_out not printed yet, as elements of one array. */
void cli_intake_flush_json(struct cli_intake *in);
/* Ends the JSON array when --json was given. */
void cli_intake_finish(struct cli_intake *in);
/* The command's exit status: 2 when failed (a file of its own failed) or a push failed,
 * EXIT_SPOOLED when a body waits in the spool, else 0. */
int cli_intake_status(const struct cli_intake *in, int failed);
/* One record's line, as ingest prints it: "NAME: " and ingest_outcome_text of its outcome
 * row. */
void cli_intake_say(const char *name, const struct json_t *row);
/*
 * The whole of ingest and import-baseline: sets up, then reads, (with mark) changes and stores
 * each file, each on its own: a bad one is reported, nothing of it stored, and the rest still go
 * in. Returns the exit status (0, or 2 when any file failed).
 */
typedef int (*cli_intake_mark_fn)(struct ingest_batch *batch, const char *file,
				  struct bl_error *err);
int cli_intake_files(struct cli_intake *in, struct cli_ctx *ctx, int nfiles, const char **files,
		     cli_intake_mark_fn mark);
/* The whole of a command that takes the intake's options and files (ingest, import-baseline):
 * parses them, says none when no file is given, runs cli_intake_files with mark. */
int cli_intake_command(int argc, const char **argv, struct cli_ctx *ctx, const char *none,
		       cli_intake_mark_fn mark);

/*
 * A text table: each column as wide as its widest cell, two spaces between columns. align
 * has one letter per column, 'r' for a column aligned right (numbers), anything else for
 * left; a row's last cell is not padded unless its column aligns right. Rows may have fewer
 * cells than columns.
 */
struct cli_table {
	size_t ncols;
	const char *align;
	struct strbuf *cells; /* ncols per row */
	size_t *ncells;	      /* the cells each row has */
	size_t nrows, alloc;
};
/* Starts a table, with header as its first row when it is not NULL. */
void cli_table_init(struct cli_table *t, const char *const *header, size_t ncols,
		    const char *align);
/* Starts a row; cli_table_add appends a cell to it. */
void cli_table_row(struct cli_table *t);
void cli_table_add(struct cli_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_table_print(const struct cli_table *t, FILE *f);
void cli_table_release(struct cli_table *t);

/* A JSON array on standard output, one compact element a line, every real to 17 digits: the
 * `--json` of the listing commands. cli_json_array_add takes element's reference. */
struct cli_json_array {
	size_t count;
};
void cli_json_array_start(struct cli_json_array *a);
void cli_json_array_add(struct cli_json_array *a, struct json_t *element);
void cli_json_array_end(struct cli_json_array *a);

/*
 * Text from outside (benchmark, config, metric and unit names, messages) as it is safe to show
 * on a terminal: control characters (C0, DEL and C1, U+0080 to U+009F) and bytes that are not
 * UTF-8 are written as \xNN (\u00NN for C1), so a name cannot send an escape sequence to the
 * terminal of whoever lists the database. Tab and newline stay when keep_lines is 1. JSON output
 * never goes through it: it stays exact.
 */
void cli_escape_text(struct strbuf *out, const char *s, size_t len, int keep_lines);
/* printf to f through cli_escape_text, lines kept: every text printer of names uses it. */
void cli_printf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints a JSON value on standard output (2-space indent, reals in their shortest form, a newline)
 * and takes its reference. */
void cli_json_print(struct json_t *o);

/* A re-bench's progress on stderr, one line per round (rewritten in place on a terminal):
 * "PREFIX: measurement M, pair P/N (pairs D of at most X, at most T left): KEY RATIO [LO, HI];
 * ...; K more measured, not waited for": the pairs done over the whole re-bench and the most
 * it can still take, the time that may take at the pace so far, then the metrics asked about,
 * and how many others were measured alongside. A confirm_progress_fn whose data is a struct
 * cli_progress; cli_progress_done ends a line left open on a terminal. */
struct cli_progress {
	const char *prefix;
	int tty, shown;
	double started; /* the monotonic clock when the re-bench's first pair began */
};
struct confirm_progress;
void cli_measure_progress(const struct confirm_progress *pr, void *data);
void cli_progress_done(struct cli_progress *p);

/* The commands. */
int cmd_help(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_init(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_check(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_migrate(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_ingest(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_records(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_series(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_detect(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_suspects(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_alerts(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_confirm(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_sweep(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_hash(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_paths(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_sync(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_preflight(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_demo(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_run(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_import_baseline(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_import(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_serve(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_export(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_ladder(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_gate(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_rebench(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_bisect(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_regressions(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_triage(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_worktree(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_push(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_version(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_generate(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_retag(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_rm(int argc, const char **argv, struct cli_ctx *ctx);

/* Who changes the stored history by hand, for the audit (cli/who.c): $USER, else the login
 * name, else "uid N". */
void cli_who(struct strbuf *out);

extern const struct cli_command cli_commands[];
const struct cli_command *cli_find_command(const char *name);

#endif

/*
 * cli: main(), the one command table, the option parser and one cmd_<name>.c per command.
 * Only this folder prints or exits. Exit codes: 0 success, 1 a finding (regression, lint,
 * unclassified path), 2 error or bad usage, others as each command documents.
 */
#ifndef BENCHLINE_CLI_H
#define BENCHLINE_CLI_H

#include <stdio.h>

#include "../common/common.h"

struct store;

/* What a command needs set up before it runs. */
enum cli_needs {
	NEED_DB = 1,	    /* an existing database */
	NEED_DB_CREATE = 2, /* a database, created and migrated when missing */
};

struct cli_ctx {
	const char *db_path;
	struct store *store; /* opened per the command's needs, else NULL */
	const struct cli_command *cmd;
};

struct cli_command {
	const char *name;
	int (*fn)(int argc, const char **argv, struct cli_ctx *ctx);
	int needs;
	const char *usage;   /* "benchline NAME ..." first line(s) */
	const char *summary; /* one line for `benchline help` */
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

/*
 * Parses argv (argv[0] is the command's name) against opts, leaving the non-option arguments
 * in argv[0..returned). "--" ends options. --help prints the usage and exits 0; a bad option
 * prints a one-line message and the usage and exits 2. Once the options are good, it does the
 * setup the command's table entry asks for (opening the database), so a usage error never
 * touches the database.
 */
int cli_parse(int argc, const char **argv, const struct cli_option *opts, struct cli_ctx *ctx);
/* Prints "benchline: message" and the command's usage to stderr, and exits 2. */
void cli_usage_error(const struct cli_command *cmd, const struct cli_option *opts, const char *fmt,
		     ...) __attribute__((format(printf, 3, 4), noreturn));
void cli_print_usage(FILE *f, const struct cli_command *cmd, const struct cli_option *opts);
/* Prints "benchline: MESSAGE" to stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints err's message and returns 2 (the error exit status). */
int cli_fail(const struct bl_error *err);
void cli_list_release(struct cli_list *l);

/* The commands. */
int cmd_help(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_init(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_ingest(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_records(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_series(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_hash(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_paths(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_sync(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_preflight(int argc, const char **argv, struct cli_ctx *ctx);
int cmd_demo(int argc, const char **argv, struct cli_ctx *ctx);

extern const struct cli_command cli_commands[];
const struct cli_command *cli_find_command(const char *name);

#endif

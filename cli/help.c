/*
 * A command's help, made from its entry in the command table and its option table: the
 * synopsis of each form (so it lists every option the form takes), the options, and for
 * `--help` the description, the exit statuses and the examples. The same tables give the man
 * page's section of the command and the words bash completes (`benchline generate`).
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

/* Text help is wrapped at this width. */
#define WIDTH 80
/* An option's help starts in this column. */
#define HELP_COLUMN 31

static int form_exists(const struct cli_command *cmd, int form)
{
	return form == 0 || (form < CLI_MAX_FORMS && cmd->forms[form].args);
}

/* How list (a form's options) names name: CLI_FORM_NEEDED, CLI_FORM_TAKES, or 0. */
static int listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; p && *p;) {
		int optional = *p == '[';
		const char *word = p + optional, *end;
		if (word[0] == '-' && word[1] == '-')
			word += 2;
		end = word + strcspn(word, " ]");
		if ((size_t)(end - word) == n && !strncmp(word, name, n))
			return optional ? CLI_FORM_TAKES : CLI_FORM_NEEDED;
		p = end + strcspn(end, " ");
		p += strspn(p, " ");
	}
	return 0;
}

/* Named by no form of cmd: such an option goes with form 0. */
static int unlisted(const struct cli_command *cmd, const char *name)
{
	for (int form = 0; form_exists(cmd, form); form++)
		if (listed(cmd->forms[form].options, name))
			return 0;
	return 1;
}

int cli_form_option(const struct cli_command *cmd, int form, const char *name)
{
	int how;
	if (!form_exists(cmd, form))
		return 0;
	if (!cmd->forms[form].options)
		return CLI_FORM_TAKES;
	if ((how = listed(cmd->forms[form].options, name)))
		return how;
	return form == 0 && unlisted(cmd, name) ? CLI_FORM_TAKES : 0;
}

int cli_form_find(const struct cli_command *cmd, const char *word)
{
	for (int form = 0; form_exists(cmd, form); form++)
		if (cmd->forms[form].word && !strcmp(cmd->forms[form].word, word))
			return form;
	return -1;
}

/* "--name ARG", with "..." for an option that may be repeated. */
static void add_option_words(struct strbuf *sb, const struct cli_option *o)
{
	strbuf_addf(sb, "--%s", o->long_name);
	if (o->argh)
		strbuf_addf(sb, " %s", o->argh);
	if (o->type == OPT_LIST)
		strbuf_addstr(sb, "...");
}

/* o as a word of a synopsis: "--good REV", "[--json]", "[--only NAME]...". */
static void add_synopsis_word(struct strbuf *sb, const struct cli_option *o, int needed)
{
	if (needed) {
		add_option_words(sb, o);
		return;
	}
	strbuf_addch(sb, '[');
	strbuf_addf(sb, "--%s", o->long_name);
	if (o->argh)
		strbuf_addf(sb, " %s", o->argh);
	strbuf_addstr(sb, o->type == OPT_LIST ? "]..." : "]");
}

static const struct cli_option *option_named(const struct cli_option *opts, const char *name,
					     size_t len)
{
	for (const struct cli_option *o = opts; o && o->type != OPT_END; o++)
		if (strlen(o->long_name) == len && !strncmp(o->long_name, name, len))
			return o;
	return NULL;
}

/* The words of a form's synopsis after "benchline NAME", one per element of words. */
static size_t form_words(struct strbuf *words, size_t max, const struct cli_command *cmd,
			 const struct cli_option *opts, int form)
{
	const struct cli_form *f = &cmd->forms[form];
	size_t n = 0;
	if (f->word && n < max)
		strbuf_addstr(&words[n++], f->word);
	if (f->options) {
		/* the form's own list, in its order */
		for (const char *p = f->options; *p && n < max;) {
			int optional = *p == '[';
			const char *word = p + optional + 2, *end = word + strcspn(word, " ]");
			const struct cli_option *o = option_named(opts, word, (size_t)(end - word));
			if (o)
				add_synopsis_word(&words[n++], o, !optional);
			p = end + strcspn(end, " ");
			p += strspn(p, " ");
		}
	}
	for (const struct cli_option *o = opts; o && o->type != OPT_END && n < max; o++)
		if (!f->options || (form == 0 && unlisted(cmd, o->long_name)))
			add_synopsis_word(&words[n++], o, 0);
	/* the arguments stay together: "-- COMMAND..." or "A B" */
	if (f->args && *f->args && n < max)
		strbuf_addstr(&words[n++], f->args);
	return n;
}

#define MAX_WORDS 64

static void release_words(struct strbuf *words, size_t n)
{
	for (size_t i = 0; i < n; i++)
		strbuf_release(&words[i]);
}

/* Appends text to out, wrapped at WIDTH, every line after the first indented by indent,
 * the first continuing a line already col long. */
static void add_wrapped(struct strbuf *out, const char *text, size_t col, size_t indent)
{
	const char *p = text;
	int first = 1;
	while (*p) {
		const char *end = p;
		size_t len;
		while (*end && *end != ' ')
			end++;
		len = (size_t)(end - p);
		if (!first && col + 1 + len > WIDTH) {
			strbuf_addch(out, '\n');
			for (size_t i = 0; i < indent; i++)
				strbuf_addch(out, ' ');
			col = indent;
		} else if (!first) {
			strbuf_addch(out, ' ');
			col++;
		}
		strbuf_add(out, p, len);
		col += len;
		first = 0;
		p = end;
		while (*p == ' ')
			p++;
	}
}

static void add_synopsis(struct strbuf *out, const struct cli_command *cmd,
			 const struct cli_option *opts)
{
	for (int form = 0; form_exists(cmd, form); form++) {
		struct strbuf words[MAX_WORDS];
		const char *lead = form ? "   or: " : "usage: ";
		size_t n, col, indent;
		for (size_t i = 0; i < MAX_WORDS; i++)
			strbuf_init(&words[i], 0);
		n = form_words(words, MAX_WORDS, cmd, opts, form);
		strbuf_addf(out, "%sbenchline %s", lead, cmd->name);
		col = strlen(lead) + strlen("benchline ") + strlen(cmd->name);
		indent = col + 1;
		for (size_t i = 0; i < n; i++) {
			if (col + 1 + words[i].len > WIDTH && col > indent) {
				strbuf_addch(out, '\n');
				for (size_t k = 0; k < indent; k++)
					strbuf_addch(out, ' ');
				col = indent;
			} else {
				strbuf_addch(out, ' ');
				col++;
			}
			strbuf_add(out, words[i].buf, words[i].len);
			col += words[i].len;
		}
		strbuf_addch(out, '\n');
		release_words(words, MAX_WORDS);
	}
}

static void add_options(struct strbuf *out, const struct cli_option *opts)
{
	for (const struct cli_option *o = opts; o && o->type != OPT_END; o++) {
		struct strbuf left = STRBUF_INIT;
		add_option_words(&left, o);
		strbuf_addf(out, "    %s", left.buf);
		if (4 + left.len + 1 > HELP_COLUMN) {
			strbuf_addf(out, "\n%*s", HELP_COLUMN, "");
		} else {
			strbuf_addf(out, "%*s", (int)(HELP_COLUMN - 4 - left.len), "");
		}
		add_wrapped(out, o->help, HELP_COLUMN, HELP_COLUMN);
		strbuf_addch(out, '\n');
		strbuf_release(&left);
	}
}

void cli_print_usage(FILE *f, const struct cli_command *cmd, const struct cli_option *opts)
{
	struct strbuf out = STRBUF_INIT;
	add_synopsis(&out, cmd, opts);
	if (opts && opts[0].type != OPT_END) {
		strbuf_addch(&out, '\n');
		add_options(&out, opts);
	}
	fwrite(out.buf, 1, out.len, f);
	strbuf_release(&out);
}

/* Calls fn for each "CODE what" line of exits. */
static void each_exit(const char *exits,
		      void (*fn)(struct strbuf *out, const char *code, size_t code_len,
				 const char *what, size_t what_len),
		      struct strbuf *out)
{
	const char *p = exits;
	while (p && *p) {
		const char *nl = strchr(p, '\n'), *sp;
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		sp = memchr(p, ' ', len);
		if (sp)
			fn(out, p, (size_t)(sp - p), sp + 1, len - (size_t)(sp + 1 - p));
		p += len;
		if (*p)
			p++;
	}
}

static void text_exit(struct strbuf *out, const char *code, size_t code_len, const char *what,
		      size_t what_len)
{
	struct strbuf w = STRBUF_INIT;
	strbuf_add(&w, what, what_len);
	strbuf_addf(out, "    %-4.*s ", (int)code_len, code);
	add_wrapped(out, w.buf, 9, 9);
	strbuf_addch(out, '\n');
	strbuf_release(&w);
}

static void add_text_help(struct strbuf *out, const struct cli_command *cmd,
			  const struct cli_option *opts)
{
	add_synopsis(out, cmd, opts);
	if (cmd->description) {
		strbuf_addch(out, '\n');
		add_wrapped(out, cmd->description, 0, 0);
		strbuf_addch(out, '\n');
	}
	if (opts && opts[0].type != OPT_END) {
		strbuf_addstr(out, "\noptions:\n");
		add_options(out, opts);
	}
	if (cmd->exits) {
		strbuf_addstr(out, "\nexit status:\n");
		each_exit(cmd->exits, text_exit, out);
	}
	if (cmd->examples[0]) {
		strbuf_addstr(out, "\nexamples:\n");
		for (size_t i = 0;
		     i + 1 < sizeof(cmd->examples) / sizeof(cmd->examples[0]) && cmd->examples[i];
		     i += 2) {
			strbuf_addstr(out, i ? "\n    " : "    ");
			add_wrapped(out, cmd->examples[i], 4, 4);
			strbuf_addf(out, "\n        %s\n", cmd->examples[i + 1]);
		}
	}
}

/* Text for roff: a backslash escaped, a '-' as \-, a leading '.' or '\'' made harmless. */
static void add_roff(struct strbuf *out, const char *s, size_t len)
{
	if (len && (s[0] == '.' || s[0] == '\''))
		strbuf_addstr(out, "\\&");
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\\')
			strbuf_addstr(out, "\\e");
		else if (s[i] == '-')
			strbuf_addstr(out, "\\-");
		else
			strbuf_addch(out, s[i]);
	}
}

static void add_roff_str(struct strbuf *out, const char *s)
{
	add_roff(out, s, strlen(s));
}

static void roff_exit(struct strbuf *out, const char *code, size_t code_len, const char *what,
		      size_t what_len)
{
	strbuf_addstr(out, ".TP\n.B ");
	add_roff(out, code, code_len);
	strbuf_addch(out, '\n');
	add_roff(out, what, what_len);
	strbuf_addch(out, '\n');
}

static void add_roff_help(struct strbuf *out, const struct cli_command *cmd,
			  const struct cli_option *opts)
{
	strbuf_addstr(out, ".SS \"benchline ");
	add_roff_str(out, cmd->name);
	strbuf_addstr(out, "\"\n");
	for (int form = 0; form_exists(cmd, form); form++) {
		struct strbuf words[MAX_WORDS];
		size_t n;
		for (size_t i = 0; i < MAX_WORDS; i++)
			strbuf_init(&words[i], 0);
		n = form_words(words, MAX_WORDS, cmd, opts, form);
		/* a synopsis, its continuation lines indented (groff's .SY) */
		strbuf_addstr(out, ".SY \"benchline ");
		add_roff_str(out, cmd->name);
		strbuf_addstr(out, "\"\n");
		for (size_t i = 0; i < n; i++) {
			add_roff(out, words[i].buf, words[i].len);
			/* "[--only NAME]..." ends no sentence */
			strbuf_addstr(out, words[i].buf[words[i].len - 1] == '.' ? "\\&\n" : "\n");
		}
		strbuf_addstr(out, ".YS\n");
		release_words(words, MAX_WORDS);
	}
	if (cmd->description) {
		strbuf_addstr(out, ".PP\n");
		add_roff_str(out, cmd->description);
		strbuf_addch(out, '\n');
	}
	if (opts && opts[0].type != OPT_END) {
		strbuf_addstr(out, ".PP\nOptions:\n.RS\n");
		for (const struct cli_option *o = opts; o->type != OPT_END; o++) {
			struct strbuf left = STRBUF_INIT;
			add_option_words(&left, o);
			strbuf_addstr(out, ".TP\n.B ");
			add_roff(out, left.buf, left.len);
			strbuf_addch(out, '\n');
			add_roff_str(out, o->help);
			strbuf_addch(out, '\n');
			strbuf_release(&left);
		}
		strbuf_addstr(out, ".RE\n");
	}
	if (cmd->exits) {
		strbuf_addstr(out, ".PP\nExit status:\n.RS\n.PD 0\n");
		each_exit(cmd->exits, roff_exit, out);
		strbuf_addstr(out, ".PD\n.RE\n");
	}
	if (cmd->examples[0]) {
		strbuf_addstr(out, ".PP\nExamples:\n.RS\n");
		for (size_t i = 0;
		     i + 1 < sizeof(cmd->examples) / sizeof(cmd->examples[0]) && cmd->examples[i];
		     i += 2) {
			strbuf_addstr(out, ".PP\n");
			add_roff_str(out, cmd->examples[i]);
			strbuf_addstr(out, "\n.IP\n.EX\n");
			add_roff_str(out, cmd->examples[i + 1]);
			strbuf_addstr(out, "\n.EE\n");
		}
		strbuf_addstr(out, ".RE\n");
	}
}

/* The subcommands on one line, the options on the next. */
static void add_words_help(struct strbuf *out, const struct cli_command *cmd,
			   const struct cli_option *opts)
{
	for (int form = 0; form_exists(cmd, form); form++)
		if (cmd->forms[form].word)
			strbuf_addf(out, "%s%s", out->len ? " " : "", cmd->forms[form].word);
	strbuf_addch(out, '\n');
	for (const struct cli_option *o = opts; o && o->type != OPT_END; o++)
		strbuf_addf(out, "--%s ", o->long_name);
	strbuf_addstr(out, "--help\n");
}

void cli_print_help(FILE *f, const struct cli_command *cmd, const struct cli_option *opts,
		    enum cli_help help)
{
	struct strbuf out = STRBUF_INIT;
	switch (help) {
	case CLI_HELP_TEXT:
		add_text_help(&out, cmd, opts);
		break;
	case CLI_HELP_ROFF:
		add_roff_help(&out, cmd, opts);
		break;
	case CLI_HELP_WORDS:
		add_words_help(&out, cmd, opts);
		break;
	}
	fwrite(out.buf, 1, out.len, f);
	strbuf_release(&out);
}

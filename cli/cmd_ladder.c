#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect/detect.h"
#include "cli/cli.h"
#include "detect/ladder/ladder.h"

/*
 * benchline ladder derive|check|compare|floors (§8): bucket-ladder bounds for histogram
 * quantiles. Everything is computed by detect/ladder/files.c; this file reads the flags, prints
 * and picks the exit status: 0 pass, 1 a regression, a lint violation or a refused derivation,
 * 2 an error (bad usage, an unreadable or malformed file). docs/ladder.md explains the rules.
 */

struct ladder_flags {
	const char *baseline, *ladders, *thresholds, *current, *declared, *report, *pct_arg;
	double pct; /* NAN without --pct */
	int json;
};

static int option_given(const struct cli_option *o)
{
	if (o->type == OPT_BOOL)
		return *(const int *)o->value;
	return *(const char *const *)o->value != NULL;
}

/* Prints each "KEY: message" line of lines as "benchline: PREFIXKEY: message". */
static void print_lines(const struct strbuf *lines, const char *prefix)
{
	const char *p = lines->buf, *nl;
	while ((nl = strchr(p, '\n'))) {
		cli_printf(stderr, "benchline: %s%.*s\n", prefix, (int)(nl - p), p);
		p = nl + 1;
	}
}

static void print_json(const json_t *doc)
{
	struct strbuf out = STRBUF_INIT;
	ladder_json_dump(&out, doc);
	fwrite(out.buf, 1, out.len, stdout);
	strbuf_release(&out);
}

static int op_derive(const struct ladder_flags *f)
{
	struct ladder_run b;
	struct ladder_set set;
	struct ladder_derivation d;
	struct bl_error err = BL_ERROR_INIT;
	int ret = 0;

	ladder_run_init(&b);
	ladder_set_init(&set);
	ladder_derivation_init(&d);
	if (ladder_run_read(&b, f->baseline, 1, &err) || ladder_set_read(&set, f->ladders, &err) ||
	    ladder_derive(&d, &b, &set, f->pct, f->baseline, &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	print_lines(&d.warnings, "warning: ");
	if (d.nrefused) {
		print_lines(&d.refusals, "");
		cli_error("refused: %zu key%s would be gated by --pct rather than by the ladder; "
			  "lower --pct below each figure above (nothing written)",
			  d.nrefused, d.nrefused == 1 ? "" : "s");
		ret = 1;
		goto done;
	}
	print_json(d.doc);
done:
	ladder_derivation_release(&d);
	ladder_set_release(&set);
	ladder_run_release(&b);
	bl_error_release(&err);
	return ret;
}

static int op_check(const struct ladder_flags *f)
{
	struct ladder_run b;
	struct ladder_set set;
	struct ladder_thresholds t;
	struct ladder_declared d = {NULL, 0};
	struct ladder_lint lint;
	struct bl_error err = BL_ERROR_INIT;
	int ret = 0;

	ladder_run_init(&b);
	ladder_set_init(&set);
	ladder_thresholds_init(&t);
	ladder_lint_init(&lint);
	if (ladder_run_read(&b, f->baseline, 1, &err) ||
	    ladder_thresholds_read(&t, f->thresholds, &err) ||
	    ladder_set_read(&set, f->ladders, &err) ||
	    (f->declared && ladder_declared_read(&d, f->declared, &err)) ||
	    ladder_check(&lint, &b, &t, &set, f->declared ? &d : NULL, f->baseline, f->declared,
			 &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	for (size_t i = 0; i < lint.n; i++)
		cli_printf(stdout, "%s: %s: %s\n", lint.v[i].rule, lint.v[i].key,
			   lint.v[i].message);
	if (lint.n) {
		cli_error("%zu violation%s in %zu key%s checked", lint.n, lint.n == 1 ? "" : "s",
			  lint.checked, lint.checked == 1 ? "" : "s");
		ret = 1;
	} else {
		printf("%zu key%s checked, no violations\n", lint.checked,
		       lint.checked == 1 ? "" : "s");
	}
done:
	ladder_lint_release(&lint);
	ladder_declared_release(&d);
	ladder_thresholds_release(&t);
	ladder_set_release(&set);
	ladder_run_release(&b);
	bl_error_release(&err);
	return ret;
}

/* A number for the table: shortest form, "-" when it does not apply. */
static const char *cell_num(char *buf, double v)
{
	if (isnan(v)) {
		buf[0] = '-';
		buf[1] = '\0';
		return buf;
	}
	return format_double(buf, v, 0);
}

static void print_comparison(const struct ladder_comparison *c)
{
	struct cli_table t;
	cli_table_init(&t, NULL, 10, NULL);
	char a[DOUBLE_TEXT_MAX];

	cli_table_row(&t);
	const char *head[] = {"key",	"unit",	   "baseline", "current", "delta",
			      "change", "max abs", "max pct",  "result"};
	for (size_t i = 0; i < sizeof(head) / sizeof(head[0]); i++)
		cli_table_add(&t, "%s", head[i]);
	for (size_t i = 0; i < c->n; i++) {
		const struct ladder_row *r = &c->rows[i];
		cli_table_row(&t);
		cli_table_add(&t, "%s", r->key);
		cli_table_add(&t, "%s", r->unit ? r->unit : "-");
		cli_table_add(&t, "%s", cell_num(a, r->baseline));
		cli_table_add(&t, "%s", cell_num(a, r->current));
		cli_table_add(&t, "%s%s", r->delta > 0 ? "+" : "", cell_num(a, r->delta));
		if (isnan(r->pct_change))
			cli_table_add(&t, "-");
		else
			cli_table_add(&t, "%+.1f%%", r->pct_change);
		cli_table_add(&t, "%s", cell_num(a, r->max_abs));
		cli_table_add(&t, "%s%s", cell_num(a, r->max_pct), isnan(r->max_pct) ? "" : "%");
		if (r->regressed)
			cli_table_add(&t, "REGRESSED%s%s", r->note ? ": " : "",
				      r->note ? r->note : "");
		else
			cli_table_add(&t, "%s", r->note ? r->note : "pass");
	}
	cli_table_print(&t, stdout);
	cli_table_release(&t);
	printf("summary: %zu gated, %zu regressed, %zu missing, %zu not gated\n", c->gated,
	       c->regressed, c->missing, c->not_gated);
}

/* A placeholder baseline: print the capture as the baseline it should become, gate nothing. */
static int print_capture(const struct ladder_flags *f, const struct ladder_run *cur)
{
	struct strbuf dropped = STRBUF_INIT;
	json_t *doc = ladder_capture_json(cur, &dropped);
	const char *p = dropped.buf, *nl;

	print_json(doc);
	while ((nl = strchr(p, '\n'))) {
		cli_error("%.*s: not captured in current run: left out of the printed baseline",
			  (int)(nl - p), p);
		p = nl + 1;
	}
	cli_error("'%s' is a placeholder baseline: nothing was gated. The captured run above is "
		  "in the baseline format: review it, paste it into '%s' byte for byte, then "
		  "derive the bounds (benchline ladder derive)",
		  f->baseline, f->baseline);
	json_decref(doc);
	strbuf_release(&dropped);
	return 0;
}

static int op_compare(const struct ladder_flags *f)
{
	struct ladder_run b, cur;
	struct ladder_thresholds t;
	struct ladder_comparison c = {0};
	struct bl_error err = BL_ERROR_INIT;
	int ret = 0;

	ladder_run_init(&b);
	ladder_run_init(&cur);
	ladder_thresholds_init(&t);
	if (ladder_run_read(&b, f->baseline, 1, &err) ||
	    ladder_thresholds_read(&t, f->thresholds, &err) ||
	    ladder_run_read(&cur, f->current, 0, &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	if (b.placeholder) {
		ret = print_capture(f, &cur);
		goto done;
	}
	if (ladder_compare(&c, &b, &t, &cur, &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	if (f->report) {
		struct strbuf out = STRBUF_INIT;
		json_t *doc = ladder_comparison_json(&c);
		ladder_json_dump(&out, doc);
		json_decref(doc);
		if (write_file_atomic(f->report, out.buf, out.len, &err))
			ret = cli_fail(&err);
		strbuf_release(&out);
		if (ret)
			goto done;
	}
	print_comparison(&c);
	ret = c.regressed ? 1 : 0;
done:
	ladder_comparison_release(&c);
	ladder_thresholds_release(&t);
	ladder_run_release(&cur);
	ladder_run_release(&b);
	bl_error_release(&err);
	return ret;
}

static void print_floors(const struct ladder_floor_row *rows, size_t n)
{
	struct cli_table t;
	cli_table_init(&t, NULL, 10, NULL);
	char a[DOUBLE_TEXT_MAX], b[DOUBLE_TEXT_MAX], c[DOUBLE_TEXT_MAX];

	for (size_t i = 0; i < n; i++) {
		const struct ladder_floor_row *r = &rows[i];
		const char *unit = r->m->unit;
		cli_table_row(&t);
		cli_table_add(&t, "%s", r->m->key);
		cli_table_add(&t, "%s %s", format_double(a, r->m->value, 0), unit);
		if (r->reason == LADDER_GATED) {
			cli_table_add(&t, "fires at %s %s", format_double(a, r->bucket.hi_next, 0),
				      unit);
			cli_table_add(&t, "floor %.2fx", r->floor);
		} else if (r->reason == LADDER_BASELINE_NOT_POSITIVE) {
			cli_table_add(&t, "fires at %s %s", format_double(a, r->bucket.hi_next, 0),
				      unit);
			cli_table_add(&t, "floor undefined (baseline not positive)");
		} else if (r->reason == LADDER_TOP_BUCKET) {
			if (isnan(r->bucket.hi))
				cli_table_add(&t, "cannot be gated: above the last edge %s %s",
					      format_double(a, r->bucket.lo, 0), unit);
			else
				cli_table_add(
				    &t, "cannot be gated: top bucket (%s, %s] has no edge above",
				    format_double(a, r->bucket.lo, 0),
				    format_double(b, r->bucket.hi, 0));
		} else {
			cli_table_add(
			    &t, "cannot be gated: floor signature (%s x the first edge %s %s)",
			    format_double(a, r->m->q, 0), format_double(c, r->ladder->edges[0], 0),
			    unit);
		}
	}
	cli_table_print(&t, stdout);
	cli_table_release(&t);
}

static int op_floors(const struct ladder_flags *f)
{
	struct ladder_run b;
	struct ladder_set set;
	struct ladder_floor_row *rows = NULL;
	struct bl_error err = BL_ERROR_INIT;
	size_t n = 0;
	int ret = 0;

	ladder_run_init(&b);
	ladder_set_init(&set);
	if (ladder_run_read(&b, f->baseline, 1, &err) || ladder_set_read(&set, f->ladders, &err) ||
	    ladder_floors(&rows, &n, &b, &set, f->baseline, &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	if (f->json) {
		json_t *doc = ladder_floors_json(rows, n);
		print_json(doc);
		json_decref(doc);
	} else {
		print_floors(rows, n);
	}
done:
	free(rows);
	ladder_set_release(&set);
	ladder_run_release(&b);
	bl_error_release(&err);
	return ret;
}

/* Each subcommand: the flags it needs, those it also takes, and what it does. */
/* The subcommands, in the order of the command's forms (cli/main.c), whose option lists say
 * which options each takes and needs. */
static int (*const ladder_ops[])(const struct ladder_flags *f) = {op_derive, op_check, op_compare,
								  op_floors};

int cmd_ladder(int argc, const char **argv, struct cli_ctx *ctx)
{
	struct ladder_flags f = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NAN, 0};
	const char *sub;
	int form;
	const struct cli_option opts[] = {
	    {OPT_STRING, "baseline", &f.baseline, "B", "the baseline file"},
	    {OPT_STRING, "ladders", &f.ladders, "L", "the ladders file (derive, check, floors)"},
	    {OPT_STRING, "thresholds", &f.thresholds, "T", "the thresholds file (check, compare)"},
	    {OPT_STRING, "current", &f.current, "C", "the captured run to judge (compare)"},
	    {OPT_STRING, "declared", &f.declared, "D",
	     "the declared keys {\"keys\": [...]} (check)"},
	    {OPT_STRING, "report", &f.report, "FILE", "also write the JSON report there (compare)"},
	    {OPT_STRING, "pct", &f.pct_arg, "P",
	     "write max_pct_increase P with every bound (derive)"},
	    {OPT_BOOL, "json", &f.json, NULL, "print one JSON document (floors)"},
	    {OPT_END, NULL, NULL, NULL, NULL},
	};

	argc = cli_parse(argc, argv, opts, ctx);
	if (!argc)
		cli_usage_error(ctx->cmd, opts,
				"ladder needs a subcommand: derive, check, compare or floors");
	sub = argv[0];
	form = cli_form_find(ctx->cmd, sub);
	if (form < 0 || (size_t)form >= sizeof(ladder_ops) / sizeof(ladder_ops[0]))
		cli_usage_error(ctx->cmd, opts, "unknown subcommand '%s'", sub);
	if (argc > 1)
		cli_usage_error(ctx->cmd, opts, "unexpected argument '%s'", argv[1]);
	for (const struct cli_option *o = opts; o->type != OPT_END; o++) {
		int how = cli_form_option(ctx->cmd, form, o->long_name);
		if (option_given(o) && !how)
			cli_usage_error(ctx->cmd, opts, "ladder %s does not take --%s", sub,
					o->long_name);
		if (how == CLI_FORM_NEEDED && !option_given(o))
			cli_usage_error(ctx->cmd, opts, "ladder %s needs --%s", sub, o->long_name);
	}
	if (f.pct_arg) {
		char *end;
		errno = 0;
		f.pct = strtod(f.pct_arg, &end);
		if (errno || end == f.pct_arg || *end || !(f.pct >= 0) || isinf(f.pct))
			cli_usage_error(ctx->cmd, opts,
					"--pct wants a number of percent, 0 or more, not '%s'",
					f.pct_arg);
	}
	return ladder_ops[form](&f);
}

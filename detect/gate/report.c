/*
 * The gate's verdict written out (§7.8): the JSON report (docs/gate-json.md names every key),
 * the terminal table and the pull-request comment, which only write what gate_run decided.
 * And `gate accept` (§7.6), which does decide: which metrics of the report go into
 * benchline-gate.lock (every failing one or those named; a passing one only within the
 * headroom and beyond 3x its noise), and which of the lock's old entries stay.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "detect/detect.h"
#include "detect/gate/gate.h"

#define NSTATUS (GATE_MISSING + 1)

/* A side: a stored record, or (live) a revision measured now, which has no run in the
 * database and no harness version. */
static json_t *side_json(const struct gate_side *s, int present, int live)
{
	if (!present)
		return json_null();
	return json_pack(
	    "{s:s, s:s, s:o, s:o, s:o, s:o, s:I}", "commit", s->commit, "source_hash",
	    s->source_hash, "run_id", live ? json_null() : json_integer((json_int_t)s->run_id),
	    "harness_version", live ? json_null() : json_integer((json_int_t)s->harness_version),
	    "content_hash", json_string_or_null(s->content_hash), "value",
	    json_real_or_null(s->value), "n", (json_int_t)s->n);
}

static json_t *count_or_null(int present, size_t n)
{
	return present ? json_integer((json_int_t)n) : json_null();
}

/* A row --settle measured again: where, and what the stored gate had said; null otherwise. */
static json_t *settled_json(const struct gate_row *r, const char *machine)
{
	if (!r->settled)
		return json_null();
	return json_pack("{s:s, s:{s:s, s:o, s:o, s:o, s:o, s:o, s:o}}", "machine", machine,
			 "stored", "status", gate_status_name(r->stored_status), "verdict",
			 json_string_or_null(gate_verdict_name(r->stored_verdict)), "method",
			 json_string_or_null(gate_method_name(r->stored_method)), "ratio",
			 json_real_or_null(r->stored_ratio), "ci_low",
			 json_real_or_null(r->stored_lo), "ci_high",
			 json_real_or_null(r->stored_hi), "effective_limit",
			 json_real_or_null(r->stored_limit));
}

static json_t *row_json(const struct gate_row *r, const char *machine)
{
	struct strbuf id = STRBUF_INIT;
	json_t *o, *accepted = json_null();
	double delta = NAN;
	if (isfinite(r->ratio))
		delta = 100 * (r->ratio - 1);
	if (r->accepted_justification)
		accepted = json_pack("{s:s, s:o, s:b}", "justification", r->accepted_justification,
				     "ceiling", json_real_or_null(r->accepted_ceiling), "stale",
				     r->accept_stale);
	store_series_id(&id, r->machine, r->benchmark, r->config, r->metric);
	o = json_object();
	json_object_set_new(o, "machine", json_string(r->machine));
	json_object_set_new(o, "benchmark", json_string(r->benchmark));
	json_object_set_new(o, "config", json_string(r->config));
	json_object_set_new(o, "metric", json_string(r->metric));
	json_object_set_new(o, "series", json_string(id.buf));
	json_object_set_new(o, "kind", json_string(metric_kind_name(r->kind)));
	json_object_set_new(o, "unit", json_string(r->unit));
	json_object_set_new(o, "better", json_string(metric_better_name(r->better_higher)));
	json_object_set_new(o, "status", json_string(gate_status_name(r->status)));
	json_object_set_new(o, "label", json_string(gate_row_label(r)));
	json_object_set_new(o, "verdict", json_string_or_null(gate_verdict_name(r->verdict)));
	json_object_set_new(o, "method", json_string_or_null(gate_method_name(r->method)));
	json_object_set_new(o, "ratio", json_real_or_null(r->ratio));
	json_object_set_new(o, "ci_low", json_real_or_null(r->lo));
	json_object_set_new(o, "ci_high", json_real_or_null(r->hi));
	json_object_set_new(o, "delta_pct", json_real_or_null(delta));
	json_object_set_new(o, "limit", json_real_or_null(r->limit));
	json_object_set_new(o, "effective_limit", json_real_or_null(r->effective_limit));
	json_object_set_new(o, "noise", json_real_or_null(r->noise));
	json_object_set_new(o, "center", json_real_or_null(r->center));
	json_object_set_new(o, "tolerance", json_real_or_null(r->tolerance));
	json_object_set_new(o, "window", json_integer(r->window));
	json_object_set_new(o, "override", json_string_or_null(r->override_glob));
	json_object_set_new(o, "excluded", json_boolean(r->excluded));
	json_object_set_new(o, "reference_rule", json_string_or_null(r->reference_rule));
	json_object_set_new(o, "pairs", count_or_null(r->paired, r->pairs));
	json_object_set_new(o, "measurements", count_or_null(r->paired, r->measurements));
	json_object_set_new(o, "head", side_json(&r->head, r->has_head, r->live));
	json_object_set_new(o, "reference", side_json(&r->ref, r->has_ref, r->live));
	json_object_set_new(o, "accepted", accepted);
	json_object_set_new(o, "settled", settled_json(r, machine));
	json_object_set_new(o, "note", json_string_or_null(r->note));
	strbuf_release(&id);
	return o;
}

static json_t *counts_json(const struct gate_comparison *c)
{
	size_t counts[NSTATUS] = {0};
	json_t *o = json_object();
	for (size_t i = 0; i < c->nrows; i++)
		counts[c->rows[i].status]++;
	for (int s = 0; s < NSTATUS; s++)
		json_object_set_new(o, gate_status_name((enum gate_status)s),
				    json_integer((json_int_t)counts[s]));
	return o;
}

static json_t *comparison_json(const struct gate_comparison *c, const char *machine)
{
	json_t *rows = json_array(), *boards = json_array();
	for (size_t i = 0; i < c->nrows; i++)
		json_array_append_new(rows, row_json(&c->rows[i], machine));
	for (size_t i = 0; i < c->nboards; i++) {
		const struct gate_board *b = &c->boards[i];
		json_array_append_new(
		    boards,
		    json_pack("{s:s, s:I, s:o, s:o, s:o, s:o, s:s, s:o}", "metric", b->metric,
			      "comparisons", (json_int_t)b->n, "median",
			      json_real_or_null(b->median), "ci_low", json_real_or_null(b->lo),
			      "ci_high", json_real_or_null(b->hi), "threshold",
			      json_real_or_null(b->threshold), "status",
			      gate_status_name(b->status), "note", json_string_or_null(b->note)));
	}
	return json_pack("{s:o, s:o, s:I, s:I, s:o, s:o}", "ref", json_string_or_null(c->ref_name),
			 "counts", counts_json(c), "failures", (json_int_t)c->failures, "undecided",
			 (json_int_t)c->undecided, "comparisons", rows, "across_the_board", boards);
}

/* The machines with Series records at a comparison's source hash; null when not read. */
static json_t *machines_json(const struct gate_comparison *c)
{
	json_t *a;
	if (!c->machines_read)
		return json_null();
	a = json_array();
	for (size_t i = 0; i < c->nmachines; i++)
		json_array_append_new(a, json_string(c->machines[i]));
	return a;
}

/* What --settle measured again; null without it. */
static json_t *settle_json(const struct gate_report *r)
{
	const struct gate_settle *st = &r->settle;
	if (!st->asked)
		return json_null();
	return json_pack("{s:s, s:I, s:I, s:I, s:I, s:b, s:{s:o, s:o}}", "machine", st->machine,
			 "rows", (json_int_t)st->rows, "settled", (json_int_t)st->settled,
			 "measurements", (json_int_t)st->measurements, "pairs",
			 (json_int_t)st->pairs, "identical_artifacts", st->identical, "build_s",
			 "merge_base", json_real_or_null(st->build_s[0]), "head",
			 json_real_or_null(st->build_s[1]));
}

json_t *gate_json(const struct gate_report *r)
{
	json_t *o = json_object(), *paths = json_null();
	json_t *main = comparison_json(&r->main, r->settle.machine);
	if (r->measured_paths) {
		paths = json_array();
		for (size_t i = 0; i < r->n_measured; i++)
			json_array_append_new(paths, json_string(r->measured_paths[i]));
	}
	json_object_set_new(o, "schema", json_integer(1));
	json_object_set_new(o, "mode", json_string(gate_mode_name(r->mode)));
	json_object_set_new(o, "status", json_string(gate_outcome_name(r->outcome)));
	json_object_set_new(o, "passed", json_boolean(r->exit_code == 0));
	json_object_set_new(o, "exit_code", json_integer(r->exit_code));
	json_object_set_new(o, "message", json_string_or_null(r->message));
	json_object_set_new(o, "head",
			    json_pack("{s:o, s:s, s:s, s:o}", "ref",
				      json_string_or_null(r->head_name), "commit", r->head_commit,
				      "source_hash", r->head_source, "subject",
				      json_string_or_null(r->head_subject)));
	json_object_set_new(o, "base",
			    json_pack("{s:o, s:s}", "ref", json_string_or_null(r->base_name),
				      "commit", r->base_commit));
	json_object_set_new(o, "merge_base",
			    json_pack("{s:s, s:s, s:o, s:o}", "commit", r->main.commit,
				      "source_hash", r->main.source_hash, "subject",
				      json_string_or_null(r->merge_base_subject), "machines",
				      machines_json(&r->main)));
	json_object_set_new(o, "limit", json_real_or_null(r->limit));
	json_object_set_new(o, "measured_paths", paths);
	json_object_set_new(o, "lock", json_string_or_null(r->lock_source));
	json_object_set_new(o, "failures", json_integer((json_int_t)r->failures));
	json_object_set_new(o, "undecided", json_integer((json_int_t)r->undecided));
	json_object_set_new(o, "undecided_policy",
			    json_string(r->undecided_fail ? "fail" : "pass"));
	json_object_set_new(o, "counts", json_incref(json_object_get(main, "counts")));
	json_object_set_new(o, "comparisons", json_incref(json_object_get(main, "comparisons")));
	json_object_set_new(o, "across_the_board",
			    json_incref(json_object_get(main, "across_the_board")));
	if (r->have_ratchet) {
		json_t *rt = comparison_json(&r->ratchet, r->settle.machine);
		json_object_set_new(rt, "commit", json_string(r->ratchet.commit));
		json_object_set_new(rt, "source_hash", json_string(r->ratchet.source_hash));
		json_object_set_new(o, "ratchet", rt);
	} else {
		json_object_set_new(o, "ratchet", json_null());
	}
	if (r->mode == GATE_MODE_LIVE) {
		const struct gate_live *l = &r->live;
		json_object_set_new(
		    o, "live",
		    json_pack(
			"{s:s, s:I, s:I, s:b, s:o, s:{s:o, s:o}}", "machine", l->machine,
			"measurements", (json_int_t)l->measurements, "pairs", (json_int_t)l->pairs,
			"identical_artifacts", l->identical, "artifact_files",
			l->identical ? json_integer((json_int_t)l->artifact_files) : json_null(),
			"build_s", "merge_base", json_real_or_null(l->build_s[0]), "head",
			json_real_or_null(l->build_s[1])));
		/* §9.6: what counted the instructions, and whether the merge base's count was
		 * reused (then neither built nor counted) */
		json_object_set_new(json_object_get(o, "live"), "counters",
				    l->counted
					? json_pack("{s:s, s:b}", "machine", l->counter_machine,
						    "counters_only", l->counters_only)
					: json_null());
		json_object_set_new(json_object_get(o, "live"), "reused_base",
				    json_boolean(l->reused_base));
		json_object_set_new(json_object_get(o, "live"), "base_counted_on",
				    l->reused_base ? json_string(l->base_counted_on) : json_null());
	} else {
		json_object_set_new(o, "live", json_null());
	}
	json_object_set_new(o, "settle", settle_json(r));
	/* §9.7: where the extra instructions went, for a live gate's first FAIL rows */
	json_object_set_new(o, "profiles", r->profiles ? json_incref(r->profiles) : json_array());
	json_object_set_new(o, "profiles_note",
			    r->profiles_note ? json_string(r->profiles_note) : json_null());
	json_object_set_new(o, "unix", json_integer((json_int_t)r->unix_time));
	json_decref(main);
	return o;
}

void gate_json_text(struct strbuf *out, const struct gate_report *r)
{
	json_t *o = gate_json(r);
	json_write(out, o, JSON_WRITE_INDENT);
	strbuf_addch(out, '\n');
	json_decref(o);
}

/* "1.0312", or "-" when there is none. */
static void add_num(struct strbuf *sb, const char *fmt, double v)
{
	if (isfinite(v))
		strbuf_addf(sb, fmt, v);
	else
		strbuf_addstr(sb, "-");
}

static void pad(struct strbuf *sb, size_t from, size_t width)
{
	while (sb->len - from < width)
		strbuf_addch(sb, ' ');
	strbuf_addch(sb, ' ');
}

static void row_name(struct strbuf *sb, const struct gate_row *r)
{
	strbuf_addf(sb, "%s/%s", r->machine, r->benchmark);
	if (*r->config)
		strbuf_addf(sb, " [%s]", r->config);
	strbuf_addf(sb, " %s", r->metric);
}

static void table_rows(struct strbuf *out, const struct gate_comparison *c)
{
	strbuf_addstr(out, "STATUS    RATIO   INTERVAL           LIMIT  NOISE  WHAT\n");
	for (size_t i = 0; i < c->nrows; i++) {
		const struct gate_row *r = &c->rows[i];
		size_t at = out->len;
		strbuf_addstr(out, gate_row_label(r));
		pad(out, at, 9);
		at = out->len;
		add_num(out, "%.4f", r->ratio);
		pad(out, at, 7);
		at = out->len;
		if (isfinite(r->lo))
			strbuf_addf(out, "[%.4f, %.4f]", r->lo, r->hi);
		else
			strbuf_addstr(out, "-");
		pad(out, at, 18);
		at = out->len;
		if (r->method == GATE_METHOD_LADDER)
			add_num(out, "%.4g", r->effective_limit);
		else
			add_num(out, "%.4f", r->effective_limit);
		pad(out, at, 6);
		at = out->len;
		if (isfinite(r->noise))
			strbuf_addf(out, "%.1f%%", 100 * r->noise);
		else
			strbuf_addstr(out, "-");
		pad(out, at, 6);
		row_name(out, r);
		if (r->override_glob)
			strbuf_addf(out, " [override %g%%]", 100 * (r->limit - 1));
		if (r->excluded)
			strbuf_addstr(out, " [EXCLUDED]");
		if (r->settled)
			strbuf_addstr(out, " [settled live]");
		if (r->note)
			strbuf_addf(out, "  (%s)", r->note);
		strbuf_addch(out, '\n');
	}
	for (size_t i = 0; i < c->nboards; i++) {
		const struct gate_board *b = &c->boards[i];
		strbuf_addf(out, "across the board: %s %s over %zu benchmarks, median ratio ",
			    gate_status_name(b->status), b->metric, b->n);
		add_num(out, "%.4f", b->median);
		strbuf_addstr(out, " [");
		add_num(out, "%.4f", b->lo);
		strbuf_addstr(out, ", ");
		add_num(out, "%.4f", b->hi);
		strbuf_addf(out, "], threshold %.4f", b->threshold);
		if (b->note)
			strbuf_addf(out, "  (%s)", b->note);
		strbuf_addch(out, '\n');
	}
}

/* ", 2 rows settled live on HOST: 3 measurements, 30 pairs": what --settle did. */
static void add_settle(struct strbuf *out, const struct gate_report *r)
{
	const struct gate_settle *st = &r->settle;
	if (!st->rows) {
		strbuf_addstr(out, ", nothing to settle (no FAIL or UNDECIDED row)");
		return;
	}
	strbuf_addf(out, ", %zu of %zu row%s settled live on %s", st->settled, st->rows,
		    st->rows == 1 ? "" : "s", st->machine);
	if (st->identical)
		strbuf_addstr(out, ": byte-identical artifacts, nothing measured");
	else
		strbuf_addf(out, ": %zu measurement%s, %zu pairs", st->measurements,
			    st->measurements == 1 ? "" : "s", st->pairs);
}

/* Each profile's first function and what was not profiled, one "gate: " line each. */
static void table_profiles(struct strbuf *out, const struct gate_report *r)
{
	if (r->profiles_text)
		strbuf_addstr(out, r->profiles_text);
	if (r->profiles_note)
		strbuf_addf(out, "gate: %s\n", r->profiles_note);
}

void gate_table(struct strbuf *out, const struct gate_report *r)
{
	if (r->message && (!r->main.nrows || r->outcome != GATE_NO_VERDICT))
		strbuf_addf(out, "%s\n", r->message);
	if (r->main.nrows) {
		strbuf_addf(out, "head %.12s against %s (merge base %.12s), limit %.4f",
			    r->head_commit, r->main.ref_name, r->main.commit, r->limit);
		if (r->mode == GATE_MODE_LIVE && r->live.counters_only)
			strbuf_addf(out, ", counted live on %s (--counters-only: nothing timed)",
				    r->live.machine);
		else if (r->mode == GATE_MODE_LIVE)
			strbuf_addf(out, ", measured live on %s: %zu measurement%s, %zu pairs",
				    r->live.machine, r->live.measurements,
				    r->live.measurements == 1 ? "" : "s", r->live.pairs);
		if (r->settle.asked)
			add_settle(out, r);
		strbuf_addch(out, '\n');
		if (r->mode == GATE_MODE_LIVE && r->live.reused_base)
			strbuf_addf(out, "gate: reusing the merge base counted on %s\n",
				    r->live.base_counted_on);
		table_rows(out, &r->main);
		table_profiles(out, r);
	}
	if (r->have_ratchet && r->ratchet.nrows) {
		strbuf_addf(out, "ratchet: head %.12s against %s (%.12s)\n", r->head_commit,
			    r->ratchet.ref_name, r->ratchet.commit);
		table_rows(out, &r->ratchet);
	}
	if (r->message && r->main.nrows && r->outcome == GATE_NO_VERDICT)
		strbuf_addf(out, "%s\n", r->message);
	strbuf_addf(out, "gate: %s", gate_outcome_name(r->outcome));
	if (r->failures)
		strbuf_addf(out, " (%zu failing)", r->failures);
	gate_add_undecided(out, r);
	strbuf_addch(out, '\n');
}

/* What the comment's first table lists: the rows that need a look. Not a plain pass, not an
 * undecided row that does not fail (nothing is known to have changed: it is counted, and listed
 * under <details>), not an excluded row that did not move; but every row --settle measured
 * again, whatever it came to. */
static int changed(const struct gate_row *r, int undecided_fail)
{
	int moved = r->verdict == GATE_VERDICT_SLOWER || r->verdict == GATE_VERDICT_FASTER;
	if (r->settled)
		return 1;
	if (r->status == GATE_UNDECIDED)
		return undecided_fail;
	if (r->status == GATE_PASS || r->status == GATE_EXCL)
		return moved;
	return 1;
}

/* A row whose limit the Series' own noise widened past the one asked for (§7.3). */
static int widened(const struct gate_row *r)
{
	return r->kind == METRIC_TIMED && r->method != GATE_METHOD_PAIRED &&
	       r->window >= DETECT_MIN_WINDOW && isfinite(r->effective_limit) &&
	       r->effective_limit > r->limit * (1 + 1e-12);
}

/* Markdown table cells must not break the table. */
static void md_cell(struct strbuf *sb, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|')
			strbuf_addstr(sb, "\\|");
		else if (*s == '\n')
			strbuf_addch(sb, ' ');
		else if (*s == '<')
			strbuf_addstr(sb, "&lt;");
		else
			strbuf_addch(sb, *s);
	}
}

/* Text from outside (a commit subject) in running Markdown: shown as it is, never formatting. */
static void md_text(struct strbuf *sb, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '<')
			strbuf_addstr(sb, "&lt;");
		else if (*s == '&')
			strbuf_addstr(sb, "&amp;");
		else if (*s == '\n')
			strbuf_addch(sb, ' ');
		else if (strchr("\\`*_[]#|~>", *s))
			strbuf_addf(sb, "\\%c", *s);
		else
			strbuf_addch(sb, *s);
	}
}

void gate_add_values(struct strbuf *sb, const struct gate_row *r)
{
	struct unit_scale scale, bare;
	double typical;
	if (r->has_ref && r->has_head && isfinite(r->ref.value) && isfinite(r->head.value))
		typical = fmin(fabs(r->ref.value), fabs(r->head.value));
	else
		typical = r->has_ref ? r->ref.value : r->head.value;
	unit_scale_choose(&scale, r->unit, typical);
	bare = scale;
	bare.unit[0] = '\0';
	if (r->has_ref && isfinite(r->ref.value))
		strbuf_add_quantity(sb, r->ref.value, r->has_head ? &bare : &scale);
	else
		strbuf_addstr(sb, "-");
	strbuf_addstr(sb, " → ");
	if (r->has_head && isfinite(r->head.value))
		strbuf_add_quantity(sb, r->head.value, &scale);
	else
		strbuf_addstr(sb, "-");
}

static void md_row(struct strbuf *out, const struct gate_row *r, const char *base_url)
{
	struct strbuf values = STRBUF_INIT;
	strbuf_addf(out, "| %s%s | ", gate_row_label(r), r->settled ? " (settled live)" : "");
	if (base_url)
		strbuf_addch(out, '[');
	md_cell(out, r->benchmark);
	if (*r->config) {
		strbuf_addstr(out, " ");
		md_cell(out, r->config);
	}
	if (base_url) {
		struct strbuf id = STRBUF_INIT;
		store_series_id(&id, r->machine, r->benchmark, r->config, r->metric);
		strbuf_addf(out, "](%s", base_url);
		store_series_page_path(out, id.buf);
		strbuf_addch(out, ')');
		strbuf_release(&id);
	}
	strbuf_addstr(out, " | ");
	md_cell(out, r->metric);
	strbuf_addstr(out, " | ");
	md_cell(out, r->machine);
	strbuf_addstr(out, " | ");
	strbuf_reset(&values);
	gate_add_values(&values, r);
	md_cell(out, values.buf);
	strbuf_addstr(out, " | ");
	strbuf_add_change(out, r->ratio, "-");
	strbuf_addstr(out, " | ");
	if (isfinite(r->lo))
		strbuf_add_change_interval(out, r->lo, r->hi, "-");
	strbuf_addstr(out, " | ");
	if (r->method == GATE_METHOD_LADDER) {
		strbuf_reset(&values);
		strbuf_add_value(&values, r->effective_limit, r->unit);
		md_cell(out, values.buf);
	} else if (isfinite(r->effective_limit)) {
		strbuf_add_change(out, r->effective_limit, "-");
		if (widened(r))
			strbuf_addstr(out, " †");
	}
	if (r->override_glob)
		strbuf_addstr(out, " (override)");
	strbuf_addstr(out, " | ");
	if (isfinite(r->noise))
		strbuf_addf(out, "%.1f%%", 100 * r->noise);
	strbuf_addstr(out, " | ");
	md_cell(out, r->note);
	strbuf_addstr(out, " |\n");
	strbuf_release(&values);
}

/* Rows a table could not hold within GATE_MARKDOWN_BUDGET. */
static void md_left_out(struct strbuf *out, size_t n)
{
	strbuf_addf(
	    out,
	    "\n%zu more row%s left out: a pull-request comment holds %d characters at most, "
	    "and `--json` writes every row.\n",
	    n, n == 1 ? "" : "s", GATE_MARKDOWN_LIMIT);
}

static const char md_header[] =
    "| status | benchmark | metric | machine | before → after | delta | interval | limit | "
    "noise | note |\n|---|---|---|---|---:|---:|---|---:|---:|---|\n";

/* The rows that need a look, how many others there are, and what the columns mean. */
static void md_look(struct strbuf *out, const struct gate_comparison *c,
		    const struct gate_report *r, const char *base_url)
{
	size_t shown = 0, hidden = 0, wide = 0;
	for (size_t i = 0; i < c->nrows; i++) {
		int look = changed(&c->rows[i], r->undecided_fail);
		shown += look;
		hidden += !look && c->rows[i].status == GATE_UNDECIDED;
		wide += widened(&c->rows[i]);
	}
	if (!shown && !hidden) {
		strbuf_addf(out, "All %zu compared metrics are within their limits.\n", c->nrows);
	} else if (!shown) {
		strbuf_addf(out,
			    "%zu of %zu compared metrics are within their limits; %zu "
			    "undecided: " GATE_UNDECIDED_WORDS
			    " (the interval straddles the limit; every row is in the details "
			    "below).\n",
			    c->nrows - hidden, c->nrows, hidden);
	} else {
		size_t listed = 0;
		strbuf_addstr(out, md_header);
		for (size_t i = 0; i < c->nrows && out->len < GATE_MARKDOWN_BUDGET; i++)
			if (changed(&c->rows[i], r->undecided_fail)) {
				md_row(out, &c->rows[i], base_url);
				listed++;
			}
		if (listed < shown)
			md_left_out(out, shown - listed);
		if (shown < c->nrows) {
			strbuf_addf(out, "\n%zu other metric%s within %s limits",
				    c->nrows - shown - hidden,
				    c->nrows - shown - hidden == 1 ? "" : "s",
				    c->nrows - shown - hidden == 1 ? "its" : "their");
			if (hidden)
				strbuf_addf(out,
					    "; %zu undecided: " GATE_UNDECIDED_WORDS
					    " (the interval straddles the limit; every row is in "
					    "the details below)",
					    hidden);
			strbuf_addstr(out, ".\n");
		}
		strbuf_addstr(out, "\n*Before → after*: the reference's value and the head's (the "
				   "median of a timed metric); *delta* and *interval*: head / "
				   "reference, from the samples when both sides have them.\n");
	}
	if (wide) {
		strbuf_addstr(out, "\n† Wider than the ");
		strbuf_add_change(out, r->limit, "-");
		strbuf_addf(
		    out,
		    " limit because of the Series' own noise: two stored runs, measured on "
		    "different occasions, differ that much by themselves. A row's limit is "
		    "its Series' band when that is wider: %g × the noise (the spread of the "
		    "reference and up to %d records before it, over their median), at least "
		    "%g%%.\n",
		    DETECT_MAD_FACTOR, DETECT_WINDOW - 1, 100 * DETECT_FLOOR);
	}
	for (size_t i = 0; i < c->nboards; i++)
		if (c->boards[i].note)
			strbuf_addf(out, "\n**Across the board (%s):** %s\n", c->boards[i].metric,
				    c->boards[i].note);
}

/* Every row, collapsed: the comment stays short, and nothing is hidden, up to what a comment
 * can hold (GATE_MARKDOWN_BUDGET); the rows past that are counted and left to the JSON. */
static void md_details(struct strbuf *out, const struct gate_comparison *c, const char *base_url)
{
	size_t i;
	if (!c->nrows)
		return;
	strbuf_addf(out, "\n<details><summary>Every compared metric (%zu)</summary>\n\n", c->nrows);
	strbuf_addstr(out, md_header);
	for (i = 0; i < c->nrows && out->len < GATE_MARKDOWN_BUDGET; i++)
		md_row(out, &c->rows[i], base_url);
	if (i < c->nrows)
		md_left_out(out, c->nrows - i);
	strbuf_addstr(out, "\n</details>\n");
}

/* What --settle measured again, before the table. */
static void md_settle(struct strbuf *out, const struct gate_report *r)
{
	const struct gate_settle *st = &r->settle;
	if (!st->rows) {
		strbuf_addstr(out,
			      "`--settle`: no `FAIL` or `UNDECIDED` row to measure again.\n\n");
		return;
	}
	strbuf_addf(out,
		    "`--settle`: %zu `FAIL` and `UNDECIDED` row%s measured again now on `%s`, the "
		    "head against the merge base, interleaved, before the verdict",
		    st->rows, st->rows == 1 ? "" : "s", st->machine);
	if (st->identical)
		strbuf_addstr(out, " (byte-identical artifacts: nothing measured)");
	else
		strbuf_addf(out, " (%zu measurement%s, %zu pairs)", st->measurements,
			    st->measurements == 1 ? "" : "s", st->pairs);
	strbuf_addf(out, "; %zu took the live verdict, marked *settled live*.\n\n", st->settled);
}

/* "`2555f91b05c1` (a slower parser)": a commit and its subject. */
static void md_commit(struct strbuf *out, const char *sha, const char *subject)
{
	strbuf_addf(out, "`%.12s`", sha);
	if (subject && *subject) {
		strbuf_addstr(out, " (");
		md_text(out, subject);
		strbuf_addch(out, ')');
	}
}

/* What to do about a failure that is the price of something worth it. */
static void md_accept_hint(struct strbuf *out, const struct gate_report *r)
{
	if (r->mode == GATE_MODE_LIVE) {
		strbuf_addstr(out, "\nA live gate reads no " GATE_LOCK_FILE
				   ": to let an intended slowdown pass, give its benchmark an "
				   "override or an exclude in benchline.json's `gate` settings, "
				   "reviewed with the pull request.\n");
		return;
	}
	strbuf_addstr(out, "\nIf the slowdown is intended, accept it: with the head checked out, "
			   "run this with the gate's own options and commit " GATE_LOCK_FILE
			   ", where review sees the justification.\n\n"
			   "```sh\nbenchline gate accept --justification 'WHY IT IS WORTH IT'\n"
			   "git add " GATE_LOCK_FILE "\n```\n");
}

void gate_markdown(struct strbuf *out, const struct gate_report *r, const char *base_url)
{
	const char *verdict = r->outcome == GATE_OUTCOME_PASS	      ? "PASS"
			      : r->outcome == GATE_OUTCOME_FAIL	      ? "FAIL"
			      : r->outcome == GATE_NOTHING_TO_COMPARE ? "nothing to compare"
								      : "no verdict";
	int failing_rows = 0;
	strbuf_addstr(out, GATE_MARKDOWN_MARKER "\n");
	strbuf_addf(out, "### benchline gate: %s", verdict);
	gate_add_undecided(out, r);
	strbuf_addstr(out, "\n\n");
	if (r->message)
		strbuf_addf(out, "%s\n\n", r->message);
	if (!r->main.nrows)
		return;
	strbuf_addstr(out, "Head ");
	md_commit(out, r->head_commit, r->head_subject);
	strbuf_addstr(out, " against `");
	md_cell(out, r->main.ref_name);
	strbuf_addstr(out, "`, merge base ");
	md_commit(out, r->main.commit, r->merge_base_subject);
	strbuf_addf(out, ", limit %+.1f%%: %zu failing of %zu compared metrics",
		    100 * (r->limit - 1), r->main.failures, r->main.nrows);
	if (r->undecided_fail && r->main.undecided)
		strbuf_addf(out, " (%zu of them undecided, failing under `--undecided fail`)",
			    r->main.undecided);
	strbuf_addstr(out, ".\n\n");
	if (r->mode == GATE_MODE_LIVE && r->live.counters_only)
		strbuf_addf(out,
			    "Both counted now on `%s` (`gate --live --counters-only`): nothing "
			    "timed.\n\n",
			    r->live.machine);
	else if (r->mode == GATE_MODE_LIVE)
		strbuf_addf(out,
			    "Both measured now on `%s`, interleaved (`gate --live`): %zu "
			    "measurement%s, %zu pairs.\n\n",
			    r->live.machine, r->live.measurements,
			    r->live.measurements == 1 ? "" : "s", r->live.pairs);
	if (r->mode == GATE_MODE_LIVE && r->live.counted)
		strbuf_addf(out, "Instructions counted with callgrind (`%s`)%s.\n\n",
			    r->live.counter_machine,
			    r->live.reused_base ? "; the merge base's count reused" : "");
	if (r->settle.asked)
		md_settle(out, r);
	md_look(out, &r->main, r, base_url);
	for (size_t i = 0; i < r->main.nrows; i++)
		failing_rows |= r->main.rows[i].status == GATE_FAIL;
	if (failing_rows)
		md_accept_hint(out, r);
	if (r->profiles_markdown)
		strbuf_addf(out, "\n%s", r->profiles_markdown);
	if (r->profiles_note) {
		strbuf_addstr(out, "\n_");
		md_text(out, r->profiles_note);
		strbuf_addstr(out, "_\n");
	}
	if (r->main.undecided && r->mode == GATE_MODE_STORED && !r->settle.asked)
		strbuf_addstr(out,
			      "\nUndecided rows were " GATE_UNDECIDED_WORDS
			      " between stored runs: `benchline gate --settle` measures them "
			      "(and any failing row) again now, the head against the merge base, "
			      "interleaved, before the verdict.\n");
	md_details(out, &r->main, base_url);
	if (r->have_ratchet) {
		strbuf_addf(out, "\n#### Ratchet against `%s` (`%.12s`): %zu failing\n\n",
			    r->ratchet.ref_name, r->ratchet.commit, r->ratchet.failures);
		md_look(out, &r->ratchet, r, base_url);
		md_details(out, &r->ratchet, base_url);
	}
}

/* --- gate accept (§7.6) --- */

/* Judged: a verdict that accepting can move (PASS, FAIL, UNDECIDED). EXCL, NEW, MISSING and
 * SOFT rows never fail, so there is nothing to accept in them. */
static int judged(const struct gate_row *r)
{
	return r->status == GATE_PASS || r->status == GATE_FAIL || r->status == GATE_UNDECIDED;
}

/* Whether a --only glob names r; hits[i] counts the rows glob i matched, judged[i] the judged
 * ones among them. */
static int named(const struct gate_accept_options *o, const struct gate_row *r, size_t *hits,
		 size_t *judged_hits)
{
	struct strbuf both = STRBUF_INIT;
	int hit = 0;
	strbuf_addf(&both, "%s:%s", r->benchmark, r->metric);
	for (size_t i = 0; i < o->n_only; i++)
		if (glob_match(o->only[i], r->benchmark) || glob_match(o->only[i], both.buf)) {
			hits[i]++;
			judged_hits[i] += judged(r);
			hit = 1;
		}
	strbuf_release(&both);
	return hit;
}

static int same_key(json_t *e, const struct gate_row *r)
{
	const char *m = json_string_value(json_object_get(e, "machine"));
	const char *b = json_string_value(json_object_get(e, "benchmark"));
	const char *c = json_string_value(json_object_get(e, "config"));
	const char *k = json_string_value(json_object_get(e, "metric"));
	return m && b && c && k && !strcmp(m, r->machine) && !strcmp(b, r->benchmark) &&
	       !strcmp(c, r->config) && !strcmp(k, r->metric);
}

static const struct gate_row *row_for(const struct gate_report *r, json_t *e)
{
	for (size_t i = 0; i < r->main.nrows; i++)
		if (same_key(e, &r->main.rows[i]))
			return &r->main.rows[i];
	return NULL;
}

static json_t *new_entry(const struct gate_row *r, const char *justification, int64_t now)
{
	struct strbuf at = STRBUF_INIT;
	json_t *e;
	format_rfc3339_utc(&at, now);
	e = json_pack("{s:s, s:s, s:s, s:s, s:o, s:o, s:s, s:s, s:{s:s, s:s, s:o}, s:{s:s, s:s}}",
		      "machine", r->machine, "benchmark", r->benchmark, "config", r->config,
		      "metric", r->metric, "ceiling", json_real_or_null(r->head.value), "ratio",
		      json_real_or_null(r->ratio), "justification", justification, "accepted_at",
		      at.buf, "reference", "commit", r->ref.commit, "source_hash",
		      r->ref.source_hash, "value", json_real_or_null(r->ref.value), "head",
		      "commit", r->head.commit, "source_hash", r->head.source_hash);
	strbuf_release(&at);
	return e;
}

static int entry_cmp(const void *a, const void *b)
{
	static const char *const keys[] = {"machine", "benchmark", "config", "metric"};
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	for (size_t i = 0; i < 4; i++) {
		int c = strcmp(json_string_value(json_object_get(x, keys[i])),
			       json_string_value(json_object_get(y, keys[i])));
		if (c)
			return c;
	}
	return 0;
}

int gate_accept(struct strbuf *lock_out, struct strbuf *log, size_t *skipped,
		const struct gate_report *r, const struct gate_accept_options *o,
		struct bl_error *err)
{
	json_t **entries = NULL, *root, *arr;
	size_t n = 0, alloc = 0, i;
	size_t *hits = xcalloc(o->n_only + 1, sizeof(*hits));
	size_t *judged_hits = xcalloc(o->n_only + 1, sizeof(*judged_hits));
	json_t *e;

	*skipped = 0;
	if (!o->justification || !*o->justification) {
		free(hits);
		free(judged_hits);
		return bl_error_set(err, BL_EINVALID, "accept needs --justification TEXT");
	}
	for (i = 0; i < r->main.nrows; i++) {
		const struct gate_row *row = &r->main.rows[i];
		int is_named = o->n_only ? named(o, row, hits, judged_hits) : 0;
		if (row->status == GATE_FAIL && (!o->n_only || is_named)) {
			ALLOC_GROW(entries, n, alloc);
			entries[n++] = new_entry(row, o->justification, r->unix_time);
			strbuf_addf(log, "accepted: ");
			row_name(log, row);
			strbuf_addf(log, " at %.6g %s (ratio %.4f)\n", row->head.value, row->unit,
				    row->ratio);
			continue;
		}
		if (!is_named)
			continue;
		if (row->status == GATE_PASS || row->status == GATE_UNDECIDED) {
			double w = row->better_higher ? 1 / row->ratio : row->ratio;
			double L =
			    isfinite(row->effective_limit) ? row->effective_limit : row->limit;
			if (isfinite(w) && isfinite(row->noise) && w >= L - o->headroom / 100 &&
			    fabs(w - 1) > 3 * row->noise) {
				ALLOC_GROW(entries, n, alloc);
				entries[n++] = new_entry(row, o->justification, r->unix_time);
				strbuf_addstr(log, "accepted (within headroom): ");
				row_name(log, row);
				strbuf_addf(log, " at %.6g %s (ratio %.4f, limit %.4f)\n",
					    row->head.value, row->unit, row->ratio, L);
				continue;
			}
			(*skipped)++;
			strbuf_addstr(log, "skipped: ");
			row_name(log, row);
			if (!isfinite(row->noise))
				strbuf_addstr(log, " passes, and its Series is too short to know "
						   "its noise\n");
			else
				strbuf_addf(
				    log,
				    " passes (ratio %.4f, limit %.4f, noise %.1f%%): accept "
				    "only within --headroom %g points of the limit and beyond "
				    "3x the noise\n",
				    row->ratio, L, 100 * row->noise, o->headroom);
			continue;
		}
		/* A row that never fails has nothing to accept: said, but not a skip (a glob
		 * such as BM_Checksum also matches its EXCL and NEW rows). */
		strbuf_addf(log, "not judged: ");
		row_name(log, row);
		strbuf_addf(log, " is %s: nothing to accept\n", gate_status_name(row->status));
	}
	for (i = 0; i < o->n_only; i++) {
		if (!hits[i]) {
			(*skipped)++;
			strbuf_addf(log, "skipped: no compared metric matches '%s'\n", o->only[i]);
		} else if (!judged_hits[i]) {
			(*skipped)++;
			strbuf_addf(
			    log,
			    "skipped: '%s' matches no judged metric (only EXCL, NEW, MISSING "
			    "or SOFT rows)\n",
			    o->only[i]);
		}
	}

	/* The entries not decided now: kept while their metric still needs them. */
	json_array_foreach (r->lock, i, e) {
		const struct gate_row *row = row_for(r, e);
		int recorded = 0;
		for (size_t k = 0; k < n && row; k++)
			recorded |= same_key(entries[k], row);
		if (recorded)
			continue;
		if (!row || row->status != GATE_FAIL) {
			strbuf_addf(log, "dropped: %s/%s %s no longer needs its accepted entry\n",
				    json_string_value(json_object_get(e, "machine")),
				    json_string_value(json_object_get(e, "benchmark")),
				    json_string_value(json_object_get(e, "metric")));
			continue;
		}
		ALLOC_GROW(entries, n, alloc);
		entries[n++] = json_incref(e);
	}
	if (n > 1)
		qsort(entries, n, sizeof(*entries), entry_cmp);
	arr = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(arr, entries[i]);
	root = json_pack("{s:i, s:o}", "schema", 1, "entries", arr);
	json_write(lock_out, root, JSON_WRITE_INDENT | JSON_WRITE_SORT_KEYS);
	strbuf_addch(lock_out, '\n');
	json_decref(root);
	free(entries);
	free(hits);
	free(judged_hits);
	return 0;
}

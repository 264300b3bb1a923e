/*
 * `benchline gate --live` (§7.10) as a use case: the gate's first step (head, base, merge base,
 * nothing to compare), then, instead of stored records, the head measured against the merge
 * base now by the re-bench (§9.2) in the two worktrees, every key of bench.run's output a row
 * of the gate's report, judged on its paired ratios against the bare limit (an override's, or
 * a counted metric's tolerance), and across the board as a failure. The report is the stored
 * gate's, so the table, the JSON and the Markdown are written the same way.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "detect/confirm/confirm.h"
#include "detect/gate/gate.h"
#include "ingest/bench/bench.h"
#include "ingest/config/config.h"
#include "ingest/ingest.h"
#include "ingest/repo/repo.h"
#include "store/store.h"

/* What a key's limit is decided from. */
struct live_limits {
	const struct gate_options *opts;
	double limit;
};

/* A key's limit: its override's, else the gate's; a counted metric's tolerance unless an
 * override replaces it, as the stored gate judges counts. */
static double key_limit(const struct confirm_key *k, void *data)
{
	const struct live_limits *l = data;
	struct gate_settings set;
	gate_settings_for(&set, l->opts, l->limit, k->benchmark, k->metric);
	if (k->kind == METRIC_COUNTED && !set.override_glob)
		return 1 + gate_counted_tolerance(l->opts->cfg, k->metric, k->unit);
	return set.limit;
}

static const struct confirm_metric *result_for(const struct confirm_rebench_result *res,
					       const char *key)
{
	for (size_t i = 0; i < res->n; i++)
		if (!strcmp(res->metrics[i].key, key))
			return &res->metrics[i];
	return NULL;
}

static void side_at(struct gate_side *side, const struct confirm_rebench_side *sd, double value,
		    size_t pairs)
{
	memcpy(side->commit, sd->commit, 41);
	memcpy(side->source_hash, sd->source_hash, 41);
	side->value = value;
	side->n = (int64_t)pairs;
}

/* One row of the report from one key the re-bench met on machine. */
static void live_row(struct gate_row *row, const struct gate_report *r, const char *machine,
		     const struct confirm_key *k, const struct confirm_rebench_report *rb,
		     const struct gate_options *opts)
{
	const struct confirm_metric *m = result_for(&rb->result, k->key);
	const int base = CONFIRM_SIDE_A, head = CONFIRM_SIDE_B;
	struct gate_settings set;
	struct strbuf note = STRBUF_INIT;

	memset(row, 0, sizeof(*row));
	row->machine = xstrdup(machine);
	row->benchmark = xstrdup(k->benchmark);
	row->config = xstrdup(k->config);
	row->metric = xstrdup(k->metric);
	/* The head's unit and kind, the merge base's when only it printed the metric. */
	row->unit = xstrdup(k->side_unit[head] ? k->side_unit[head] : k->unit);
	row->kind = k->seen[head] ? k->side_kind[head] : k->kind;
	row->better_higher = k->better_higher;
	row->ratio = row->lo = row->hi = NAN;
	row->effective_limit = row->center = row->tolerance = row->noise = NAN;
	row->accepted_ceiling = NAN;
	row->stored_ratio = row->stored_lo = row->stored_hi = row->stored_limit = NAN;
	row->live = 1;
	row->limit = r->limit; /* NEW and MISSING rows are not judged: no override applies */

	if (!k->seen[base]) {
		row->status = GATE_NEW;
		row->has_head = 1;
		side_at(&row->head, &rb->side[CONFIRM_SIDE_B], NAN, 0);
		strbuf_addstr(&note, "the merge base's bench.run does not print it");
		goto done;
	}
	if (!k->seen[head]) {
		row->status = GATE_MISSING;
		row->has_ref = 1;
		row->reference_rule = "merge-base";
		side_at(&row->ref, &rb->side[CONFIRM_SIDE_A], NAN, 0);
		strbuf_addstr(&note, "the head's bench.run does not print it");
		goto done;
	}
	/* Judged: both sides measured it, now, in pairs. */
	gate_settings_for(&set, opts, r->limit, k->benchmark, k->metric);
	row->limit = set.limit;
	row->override_glob = set.override_glob;
	row->excluded = set.excluded;
	row->has_head = row->has_ref = 1;
	row->reference_rule = "merge-base";
	row->method = GATE_METHOD_PAIRED;
	row->effective_limit = k->judge == CONFIRM_JUDGE_RSS ? CONFIRM_RSS_LIMIT
			       : k->limit > 0		     ? k->limit
							     : rb->limit;
	row->status = GATE_PASS;
	if (k->side_kind[base] != k->side_kind[head]) {
		/* The ruler changed: shown, never failing, not judged (as stored). */
		row->status = GATE_SOFT;
		row->method = GATE_METHOD_NONE;
		if (m) {
			row->paired = 1;
			row->pairs = m->pairs;
			row->measurements = m->measurements;
		}
		side_at(&row->head, &rb->side[head], m ? m->b : NAN, m ? m->pairs : 0);
		side_at(&row->ref, &rb->side[base], m ? m->a : NAN, m ? m->pairs : 0);
		strbuf_addf(&note, "the metric's kind changed from %s to %s",
			    metric_kind_name(k->side_kind[base]),
			    metric_kind_name(k->side_kind[head]));
	} else if (k->judge == CONFIRM_JUDGE_COUNT) {
		/* §9.6: counted once per side, exact: the counted rule, no interval to speak of */
		row->method = GATE_METHOD_COUNT;
		row->verdict = m->verdict;
		row->ratio = row->lo = row->hi = m->ratio;
		row->effective_limit = k->limit;
		row->measurements = 1;
		side_at(&row->head, &rb->side[CONFIRM_SIDE_B], m->b, 1);
		side_at(&row->ref, &rb->side[CONFIRM_SIDE_A], m->a, 1);
		if (m->verdict == GATE_VERDICT_SLOWER)
			row->status = GATE_FAIL;
		strbuf_addf(&note, "callgrind on %s", rb->env.machine.buf);
		if (rb->reused_a)
			strbuf_addf(&note, "; the merge base's count reused (counted %s)",
				    rb->a_counted_on ? rb->a_counted_on : "before");
	} else if (!m) {
		side_at(&row->head, &rb->side[CONFIRM_SIDE_B], NAN, 0);
		side_at(&row->ref, &rb->side[CONFIRM_SIDE_A], NAN, 0);
		strbuf_addstr(&note, "no pair with a positive value on both sides: not judged");
	} else {
		row->paired = 1;
		row->verdict = m->verdict;
		row->ratio = m->ratio;
		row->lo = m->lo;
		row->hi = m->hi;
		row->pairs = m->pairs;
		row->measurements = m->measurements;
		side_at(&row->head, &rb->side[CONFIRM_SIDE_B], m->b, m->pairs);
		side_at(&row->ref, &rb->side[CONFIRM_SIDE_A], m->a, m->pairs);
		if (m->verdict == GATE_VERDICT_SLOWER)
			row->status = GATE_FAIL;
		else if (m->verdict == GATE_VERDICT_UNDECIDED)
			row->status = GATE_UNDECIDED;
		if (k->judge == CONFIRM_JUDGE_RSS)
			strbuf_addf(&note, "worse only by more than %.0f%% and %g MiB",
				    100 * (CONFIRM_RSS_LIMIT - 1), CONFIRM_RSS_MIN_KIB / 1024.0);
		else if (k->kind == METRIC_QUANTILE)
			strbuf_addstr(&note, "a quantile, judged live by its paired ratios");
		if (strcmp(k->side_unit[base], k->side_unit[head])) {
			/* Numbers in two units cannot be compared: a regression (as stored). */
			row->verdict = GATE_VERDICT_SLOWER;
			row->status = GATE_FAIL;
			strbuf_addf(&note,
				    "%sunit mismatch: the merge base's is in %s, the head's in %s",
				    note.len ? "; " : "", k->side_unit[base], k->side_unit[head]);
		}
	}
	if (row->excluded)
		row->status = GATE_EXCL;
done:
	row->note = note.len ? strbuf_detach(&note, NULL) : NULL;
	strbuf_release(&note);
}

/* Every key the re-bench met becomes a row; the outcome follows from them. */
static void live_verdict(struct gate_report *out, const struct confirm_rebench_report *rb,
			 const struct gate_options *opts)
{
	struct gate_comparison *c = &out->main;
	struct strbuf msg = STRBUF_INIT;

	out->live.measurements = rb->result.measurements;
	out->live.pairs = rb->result.pairs;
	out->live.identical = rb->identical;
	out->live.artifact_files = rb->artifact_files;
	out->live.build_s[0] = rb->side[CONFIRM_SIDE_A].build_s;
	out->live.build_s[1] = rb->side[CONFIRM_SIDE_B].build_s;
	if (rb->identical) {
		strbuf_addf(&msg,
			    "the artifacts of %.12s and of the merge base %.12s are byte-identical "
			    "(%zu file%s of bench.artifacts): nothing can differ; nothing measured",
			    out->head_commit, c->commit, rb->artifact_files,
			    rb->artifact_files == 1 ? "" : "s");
		out->message = strbuf_detach(&msg, NULL);
		out->outcome = GATE_OUTCOME_PASS;
		return;
	}
	c->rows = xcalloc(rb->nkeys ? rb->nkeys : 1, sizeof(*c->rows));
	for (size_t i = 0; i < rb->nkeys; i++) {
		struct gate_row *row = &c->rows[c->nrows++];
		live_row(row, out, out->live.machine, &rb->keys[i], rb, opts);
		c->references += row->paired || row->method == GATE_METHOD_COUNT;
	}
	gate_across_the_board(c, out->limit, 1);
	if (!c->references) {
		out->outcome = GATE_NO_VERDICT;
		out->exit_code = 4;
		strbuf_addf(&msg,
			    "bench.run printed no metric both %.12s and the merge base %.12s "
			    "measured: nothing could be paired",
			    out->head_commit, c->commit);
		out->message = strbuf_detach(&msg, NULL);
	}
	gate_report_decide(out);
}

/* --- §9.7: the first FAIL rows' benchmarks profiled --- */

/* What the profile step needs to tell a FAIL row from the re-bench's keys. */
struct live_profiling {
	const struct gate_report *report;
	const struct gate_options *opts;
};

/* Whether key i of the re-bench is a FAIL row of the live gate. */
static int fails(const struct confirm_rebench_report *rb, size_t i, void *data)
{
	const struct live_profiling *lp = data;
	struct gate_row row;
	int failed;
	live_row(&row, lp->report, lp->report->live.machine, &rb->keys[i], rb, lp->opts);
	failed = row.status == GATE_FAIL;
	gate_row_release(&row);
	return failed;
}

/* The re-bench's profiles moved into the report, as JSON and Markdown. */
static void take_profiles(struct gate_report *out, const struct confirm_rebench_report *rb)
{
	struct strbuf md = STRBUF_INIT, text = STRBUF_INIT;
	if (rb->nprofiles) {
		out->profiles = json_array();
		for (size_t i = 0; i < rb->nprofiles; i++) {
			json_array_append_new(out->profiles,
					      confirm_profile_json(&rb->profiles[i]));
			confirm_profile_markdown(&md, &rb->profiles[i]);
			strbuf_addstr(&text, "gate: ");
			confirm_profile_line(&text, &rb->profiles[i]);
			strbuf_addch(&text, '\n');
		}
		out->profiles_markdown = strbuf_detach(&md, NULL);
		out->profiles_text = strbuf_detach(&text, NULL);
	}
	if (rb->profile_note.len)
		out->profiles_note = xstrdup(rb->profile_note.buf);
	strbuf_release(&md);
	strbuf_release(&text);
}

/* --- The counts kept for later gates (§9.6: reuse) --- */

/* The database counts are kept in: the option's, else .benchline/counters.db (created). */
static int open_counter_db(struct store **out, const struct gate_options *opts,
			   struct bl_error *err)
{
	struct strbuf path = STRBUF_INIT;
	int ret;
	if (opts->counter_db) {
		strbuf_addstr(&path, opts->counter_db);
	} else {
		if ((ret = repo_state_dir_at(&path, opts->root.buf, err))) {
			strbuf_release(&path);
			return ret;
		}
		strbuf_addstr(&path, "/counters.db");
	}
	ret = store_open(out, path.buf, STORE_CREATE, err);
	strbuf_release(&path);
	return ret;
}

/* What the lookup of a merge base's counts found. */
struct reuse {
	const char *stamp;
	struct bench_counts counts;
	double counted_at; /* the latest started_at of them */
	int other_stamp;   /* counted, but under another build stamp */
};

static int take_count(const char *benchmark, double instructions, double started_at,
		      const char *raw, void *data)
{
	struct reuse *r = data;
	json_t *rec = json_loads(raw, 0, NULL);
	const char *stamp =
	    json_string_value(json_object_get(json_object_get(rec, "measured_on"), "build_stamp"));
	if (!stamp || strcmp(stamp, r->stamp)) {
		r->other_stamp = 1;
	} else {
		struct bench_count *c;
		r->counts.v = xrealloc(r->counts.v, (r->counts.n + 1) * sizeof(*r->counts.v));
		c = &r->counts.v[r->counts.n++];
		c->benchmark =
		    strcmp(benchmark, BENCH_COUNTERS_BENCHMARK) ? xstrdup(benchmark) : NULL;
		c->instructions = (uint64_t)instructions;
		c->profile = NULL;
		if (started_at > r->counted_at)
			r->counted_at = started_at;
	}
	json_decref(rec);
	return 0;
}

/* The merge base's counts under this machine key and build stamp, when some were kept. */
static int find_reusable(struct reuse *r, struct store *st, const struct bench_counter_env *env,
			 const char *source_hash, struct bl_error *err)
{
	memset(r, 0, sizeof(*r));
	r->stamp = env->build_stamp;
	return store_counters_at(st, env->machine.buf, source_hash, take_count, r, err);
}

/* Keeps the counts of each side counted now (the head always; the merge base unless reused). */
static int keep_counts(struct store *st, const struct confirm_rebench_report *rb,
		       struct bl_error *err)
{
	for (int side = 0; side < 2; side++) {
		struct ingest_batch batch = {NULL, 0, 0};
		int ret;
		if (side == CONFIRM_SIDE_A && rb->reused_a)
			continue;
		if (!rb->counts[side].n)
			continue;
		ret =
		    bench_counts_records(&batch, &rb->counts[side], &rb->env, rb->side[side].commit,
					 rb->side[side].source_hash, 1, err);
		if (!ret)
			ret = ingest_store(st, &batch, NULL, NULL, NULL, err);
		ingest_batch_release(&batch);
		if (ret)
			return ret;
	}
	return 0;
}

/* The machine a live measurement is labelled with (size bytes, zeroed): the checkout's one
 * machine name (§10, config_machine: benchline.json's "machine", else the host name), so live
 * rows name the machine its stored records do; "localhost" when neither is a name. */
static void live_machine(char *out, size_t size, const struct gate_options *opts)
{
	struct strbuf sb = STRBUF_INIT;
	struct bl_error err = BL_ERROR_INIT;
	if (!config_machine(&sb, NULL, opts->cfg, &err) && sb.len && sb.len < size)
		memcpy(out, sb.buf, sb.len + 1);
	else /* config_machine fell back to the host name and refused it */
		memcpy(out, "localhost", sizeof("localhost"));
	strbuf_release(&sb);
	bl_error_release(&err);
}

/* gate --live measures commits: when the head is the checkout's HEAD and its measured paths
 * have uncommitted changes, what it would measure is not what the person sees (§13). Refused,
 * unless --allow-dirty, which the report then remembers. */
static int check_dirty(struct gate_report *out, const struct gate_options *opts,
		       struct bl_error *err)
{
	struct repo_head head;
	struct strbuf paths = STRBUF_INIT;
	size_t n = 0;
	int ret;

	if ((ret = repo_read_head(&head, opts->repo_dir, opts->cfg, err)) || !head.dirty ||
	    strcmp(head.commit, out->head_commit) ||
	    (ret = repo_measured_changes(&paths, &n, opts->repo_dir, opts->cfg, err)) || !n)
		goto done;
	if (!opts->allow_dirty) {
		ret = bl_error_set(
		    err, BL_EINVALID,
		    "the measured paths of '%s' have uncommitted changes (%s): gate "
		    "--live measures commits, and would measure %.12s without them; "
		    "commit them, or give --allow-dirty to measure the commit as it is",
		    opts->repo_dir, paths.buf, head.commit);
		goto done;
	}
	out->live.dirty_paths = strbuf_detach(&paths, NULL);
done:
	strbuf_release(&paths);
	return ret;
}

int confirm_gate_live(struct gate_report *out, const struct gate_options *opts,
		      confirm_progress_fn progress, void *progress_data, struct bl_error *err)
{
	struct confirm_rebench_request req;
	struct confirm_rebench_report rb;
	struct live_limits limits;
	struct live_profiling profiling;
	struct repo *repo = NULL;
	struct store *counter_st = NULL;
	struct bench_counter_env env;
	struct reuse reuse;
	int ret;

	memset(&rb, 0, sizeof(rb));
	memset(&reuse, 0, sizeof(reuse));
	bench_counter_env_init(&env);
	memset(out, 0, sizeof(*out));
	if (opts->ratchet) {
		ret = bl_error_set(err, BL_EINVALID,
				   "--ratchet compares stored records: not with --live");
		goto done;
	}
	if ((ret = repo_open(&repo, opts->repo_dir, opts->cfg, err)) ||
	    (ret = gate_report_begin(out, repo, opts, err)) || (ret = check_dirty(out, opts, err)))
		goto done;
	out->mode = GATE_MODE_LIVE;
	live_machine(out->live.machine, sizeof(out->live.machine), opts);
	out->live.build_s[0] = out->live.build_s[1] = NAN;
	if (out->outcome == GATE_NOTHING_TO_COMPARE) {
		/* Decided before anything is built: nothing is. */
		struct strbuf msg = STRBUF_INIT;
		strbuf_addf(&msg, "%s; nothing built", out->message);
		free(out->message);
		out->message = strbuf_detach(&msg, NULL);
		goto done;
	}
	repo_free(repo); /* the re-bench opens its own, with the worktrees */
	repo = NULL;

	memset(&req, 0, sizeof(req));
	limits.opts = opts;
	limits.limit = out->limit;
	req.repo = opts->repo_dir;
	req.cfg = opts->cfg;
	req.a = out->main.commit;
	req.b = out->head_commit;
	req.label[CONFIRM_SIDE_A] = "the merge base";
	req.label[CONFIRM_SIDE_B] = "the head";
	req.limit = out->limit;
	req.limit_for = key_limit;
	req.limit_data = &limits;
	req.progress = progress;
	req.progress_data = progress_data;
	req.counters_only = opts->counters_only;
	profiling.report = out;
	profiling.opts = opts;
	req.profile_wanted = fails;
	req.profile_data = &profiling;
	if (opts->cfg->counters_run) {
		/* §9.6 reuse: the merge base counted before under the same key and stamp */
		if ((ret = bench_counter_env_probe(&env, err)) ||
		    (ret = open_counter_db(&counter_st, opts, err)))
			goto done;
		if (!opts->no_reuse &&
		    (ret = find_reusable(&reuse, counter_st, &env, out->main.source_hash, err)))
			goto done;
		if (reuse.counts.n) {
			time_t at = (time_t)reuse.counted_at;
			struct tm tm;
			gmtime_r(&at, &tm);
			strftime(out->live.base_counted_on, sizeof(out->live.base_counted_on),
				 "%Y-%m-%dT%H:%M:%SZ", &tm);
			req.a_counts = &reuse.counts;
			req.a_counted_on = out->live.base_counted_on;
		}
	}
	if ((ret = confirm_rebench_revs(&rb, &req, err)))
		goto done;
	if (rb.counted) {
		out->live.counted = 1;
		out->live.reused_base = rb.reused_a;
		out->live.counters_only = rb.counters_only;
		snprintf(out->live.counter_machine, sizeof(out->live.counter_machine), "%s",
			 rb.env.machine.buf);
		if (counter_st && (ret = keep_counts(counter_st, &rb, err)))
			goto done;
	}
	live_verdict(out, &rb, opts);
	take_profiles(out, &rb);
done:
	confirm_rebench_report_release(&rb);
	bench_counts_release(&reuse.counts);
	bench_counter_env_release(&env);
	store_free(counter_st);
	repo_free(repo);
	return ret;
}

/* --- --settle (§7.8): a stored gate's FAIL and UNDECIDED rows measured again live --- */

/* Whether a stored row is measured again: FAIL (but not for a stale accept, whose failure is
 * the lock's, not the measurement's) or UNDECIDED. */
static int to_settle(const struct gate_row *r)
{
	return (r->status == GATE_FAIL && !r->accept_stale) || r->status == GATE_UNDECIDED;
}

/* "UNDECIDED 1.0088 [0.9181, 1.1957], limit 1.0400": what the stored gate said of a row. */
static void add_stored(struct strbuf *sb, const struct gate_row *r)
{
	strbuf_addstr(sb, gate_status_name(r->stored_status));
	if (isfinite(r->stored_ratio))
		strbuf_addf(sb, " %.4f", r->stored_ratio);
	if (isfinite(r->stored_lo))
		strbuf_addf(sb, " [%.4f, %.4f]", r->stored_lo, r->stored_hi);
	if (isfinite(r->stored_limit))
		strbuf_addf(
		    sb, r->stored_method == GATE_METHOD_LADDER ? ", limit %.4g" : ", limit %.4f",
		    r->stored_limit);
}

/* Keeps what the stored gate said of row, and marks it settled. */
static void keep_stored(struct gate_row *row)
{
	row->settled = 1;
	row->stored_status = row->status;
	row->stored_verdict = row->verdict;
	row->stored_method = row->method;
	row->stored_ratio = row->ratio;
	row->stored_lo = row->lo;
	row->stored_hi = row->hi;
	row->stored_limit = row->effective_limit;
}

/* The row's note: settled live on machine, what was stored, then what (the live row, the
 * stored row) had to say. */
static void settled_note(struct gate_row *row, const char *machine, const char *live_note)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "settled live on %s (stored ", machine);
	add_stored(&sb, row);
	strbuf_addch(&sb, ')');
	if (live_note)
		strbuf_addf(&sb, "; %s", live_note);
	if (row->note)
		strbuf_addf(&sb, "; stored: %s", row->note);
	free(row->note);
	row->note = strbuf_detach(&sb, NULL);
}

/* The live verdict of live replaces the stored one of row; its values, sides and unit are the
 * live measurement's (the sides are moved out of live). */
static void settle_row(struct gate_row *row, struct gate_row *live, const char *machine)
{
	keep_stored(row);
	row->status = live->status;
	row->verdict = live->verdict;
	row->method = live->method;
	row->ratio = live->ratio;
	row->lo = live->lo;
	row->hi = live->hi;
	row->effective_limit = live->effective_limit;
	row->live = row->paired = 1;
	row->pairs = live->pairs;
	row->measurements = live->measurements;
	free(row->unit);
	row->unit = live->unit;
	live->unit = NULL;
	free(row->head.content_hash);
	free(row->ref.content_hash);
	row->head = live->head;
	row->ref = live->ref;
	memset(&live->head, 0, sizeof(live->head));
	memset(&live->ref, 0, sizeof(live->ref));
	row->has_head = row->has_ref = 1;
	row->reference_rule = "merge-base";
	settled_note(row, machine, live->note);
}

static void append_note(struct gate_row *row, const char *text)
{
	struct strbuf sb = STRBUF_INIT;
	if (row->note)
		strbuf_addf(&sb, "%s; ", row->note);
	strbuf_addstr(&sb, text);
	free(row->note);
	row->note = strbuf_detach(&sb, NULL);
}

/* One row to settle, from the re-bench's keys: the live verdict when both sides measured it,
 * else the stored one stays, with why. */
static void settle_from(struct gate_report *r, struct gate_row *row,
			const struct confirm_rebench_report *rb, const struct gate_options *opts)
{
	const char *machine = r->settle.machine;
	struct gate_row live;
	struct strbuf why = STRBUF_INIT;

	if (rb->identical) {
		keep_stored(row);
		row->status = GATE_PASS;
		row->verdict = GATE_VERDICT_SAME;
		row->method = GATE_METHOD_NONE;
		row->ratio = row->lo = row->hi = NAN;
		strbuf_addf(
		    &why,
		    "the artifacts of the head and of the merge base are byte-identical (%zu "
		    "file%s of bench.artifacts): nothing can differ; nothing measured",
		    rb->artifact_files, rb->artifact_files == 1 ? "" : "s");
		settled_note(row, machine, why.buf);
		r->settle.settled++;
		strbuf_release(&why);
		return;
	}
	for (size_t i = 0; i < rb->nkeys; i++) {
		const struct confirm_key *k = &rb->keys[i];
		if (strcmp(k->benchmark, row->benchmark) || strcmp(k->config, row->config) ||
		    strcmp(k->metric, row->metric))
			continue;
		live_row(&live, r, machine, k, rb, opts);
		if (live.paired) {
			settle_row(row, &live, machine);
			r->settle.settled++;
		} else {
			strbuf_addf(&why, "--settle: %s: the stored verdict stands",
				    live.note ? live.note : "not measured on both sides");
			append_note(row, why.buf);
		}
		gate_row_release(&live);
		strbuf_release(&why);
		return;
	}
	append_note(row, "--settle: bench.run does not print it: the stored verdict stands");
}

int confirm_gate_settle_ready(const struct gate_options *opts, struct bl_error *err)
{
	const struct config *cfg = opts->cfg;
	if (cfg->bench_run)
		return 0;
	if (cfg->path)
		return bl_error_set(
		    err, BL_ECONFIG,
		    "--settle measures again live with benchline.json's bench "
		    "settings, and '%s' has no bench.run (the command that prints the "
		    "results)",
		    cfg->path);
	return bl_error_set(err, BL_ECONFIG,
			    "--settle measures again live with benchline.json's bench settings, "
			    "and '%s' has no benchline.json",
			    opts->repo_dir);
}

int confirm_gate_settle(struct gate_report *r, const struct gate_options *opts,
			confirm_progress_fn progress, void *progress_data, struct bl_error *err)
{
	struct gate_comparison *c = &r->main;
	struct confirm_rebench_request req;
	struct confirm_rebench_report rb;
	struct live_limits limits;
	const char **names = xcalloc(c->nrows + 1, sizeof(*names));
	char **keys = xcalloc(c->nrows + 1, sizeof(*keys));
	size_t nnames = 0, nkeys = 0;
	struct strbuf key = STRBUF_INIT;
	int ret = 0;

	memset(&rb, 0, sizeof(rb));
	r->settle.asked = 1;
	live_machine(r->settle.machine, sizeof(r->settle.machine), opts);
	r->settle.build_s[0] = r->settle.build_s[1] = NAN;
	if ((ret = confirm_gate_settle_ready(opts, err)))
		goto done;
	if (r->outcome != GATE_OUTCOME_PASS && r->outcome != GATE_OUTCOME_FAIL)
		goto done;
	/* The benchmarks of the rows to settle, each once, and their keys: only those are asked
	 * about, so another metric of the same benchmark (a noisy latency beside the work being
	 * settled) is measured alongside but never holds the rounds up. */
	for (size_t i = 0; i < c->nrows; i++) {
		const struct gate_row *row = &c->rows[i];
		int seen = 0;
		if (!to_settle(row))
			continue;
		r->settle.rows++;
		for (size_t k = 0; k < nnames && !seen; k++)
			seen = !strcmp(names[k], row->benchmark);
		if (!seen)
			names[nnames++] = row->benchmark;
		confirm_metric_key(&key, row->benchmark, row->config, row->metric);
		seen = 0;
		for (size_t k = 0; k < nkeys && !seen; k++)
			seen = !strcmp(keys[k], key.buf);
		if (!seen)
			keys[nkeys++] = xstrdup(key.buf);
	}
	if (!r->settle.rows)
		goto done;

	memset(&req, 0, sizeof(req));
	limits.opts = opts;
	limits.limit = r->limit;
	req.repo = opts->repo_dir;
	req.cfg = opts->cfg;
	req.a = c->commit;
	req.b = r->head_commit;
	req.label[CONFIRM_SIDE_A] = "the merge base";
	req.label[CONFIRM_SIDE_B] = "the head";
	req.benchmarks = names;
	req.n_benchmarks = nnames;
	req.asked = (const char *const *)keys;
	req.nasked = nkeys;
	req.limit = r->limit;
	req.limit_for = key_limit;
	req.limit_data = &limits;
	req.progress = progress;
	req.progress_data = progress_data;
	if ((ret = confirm_rebench_revs(&rb, &req, err)))
		goto done;
	r->settle.measurements = rb.result.measurements;
	r->settle.pairs = rb.result.pairs;
	r->settle.identical = rb.identical;
	r->settle.build_s[0] = rb.side[CONFIRM_SIDE_A].build_s;
	r->settle.build_s[1] = rb.side[CONFIRM_SIDE_B].build_s;
	for (size_t i = 0; i < c->nrows; i++)
		if (to_settle(&c->rows[i]))
			settle_from(r, &c->rows[i], &rb, opts);
	gate_report_decide(r);
done:
	confirm_rebench_report_release(&rb);
	for (size_t i = 0; i < nkeys; i++)
		free(keys[i]);
	free(keys);
	free(names);
	strbuf_release(&key);
	return ret;
}

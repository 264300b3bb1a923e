/*
 * `benchline rebench` and `benchline bisect` as use cases (§9.2, §9.3): two revisions checked
 * out in their worktrees and built (ingest/bench/'s struct bench), and measured against each
 * other by the re-bench engine, each sample the fastest of bench.processes fresh runs of
 * bench.run (bench_side_run, parsed by bench.format's adapter), with the runs' CPU time and
 * peak RSS as two more metrics; bisection's search over the first-parent range.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "detect/confirm/confirm.h"
#include "ingest/bench/bench.h"
#include "ingest/config/config.h"
#include "ingest/ingest.h"
#include "ingest/repo/repo.h"

/* What the sample callback needs, and the values it hands back (kept until its next call). */
struct sampler {
	struct bench *b; /* both sides, built */
	const char *commit[2], *source[2];
	const char *benchmark_glob;
	int benchmark_exact;	       /* benchmark_glob is a name, not a glob */
	const char *const *benchmarks; /* only these (exact names), when n_benchmarks */
	size_t n_benchmarks;
	const char *metric;  /* only this metric; NULL: every one */
	int process_metrics; /* also the runs' cpu_s and peak_rss_kib */
	confirm_limit_fn limit_for;
	void *limit_data;
	struct confirm_value *v;
	size_t *v_key; /* each value's key in keys */
	size_t n, alloc;
	struct confirm_key *keys; /* every key met, on either side */
	size_t nkeys, keys_alloc;
	struct bench_run run;
};

void confirm_metric_key(struct strbuf *sb, const char *benchmark, const char *config,
			const char *metric)
{
	strbuf_reset(sb);
	strbuf_addstr(sb, benchmark);
	if (config[0])
		strbuf_addf(sb, " [%s]", config);
	strbuf_addf(sb, " %s", metric);
}

/* Whether name is one of names[0..n). */
static int listed(const char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return 1;
	return 0;
}

/* The key's entry among those met, made on its first meeting. */
static size_t key_index(struct sampler *s, const char *key, const char *benchmark,
			const char *config, const char *metric, const char *unit,
			enum metric_kind kind, int better_higher, enum confirm_judge judge)
{
	struct confirm_key *k;
	for (size_t i = 0; i < s->nkeys; i++)
		if (!strcmp(s->keys[i].key, key))
			return i;
	ALLOC_GROW(s->keys, s->nkeys, s->keys_alloc);
	k = &s->keys[s->nkeys];
	memset(k, 0, sizeof(*k));
	k->key = xstrdup(key);
	k->benchmark = xstrdup(benchmark);
	k->config = xstrdup(config);
	k->metric = xstrdup(metric);
	k->unit = xstrdup(unit);
	k->kind = kind;
	k->better_higher = better_higher;
	k->judge = judge;
	k->limit = s->limit_for ? s->limit_for(k, s->limit_data) : 0;
	return s->nkeys++;
}

/* Keeps the better of two values of one key: a sample is the fastest of its processes. */
static void keep(struct sampler *s, enum confirm_side side, const char *key, const char *benchmark,
		 const char *config, const char *metric, const char *unit, enum metric_kind kind,
		 double value, int better_higher, enum confirm_judge judge)
{
	size_t k = key_index(s, key, benchmark, config, metric, unit, kind, better_higher, judge);
	if (!s->keys[k].seen[side]) {
		s->keys[k].seen[side] = 1;
		s->keys[k].side_unit[side] = xstrdup(unit);
		s->keys[k].side_kind[side] = kind;
	}
	for (size_t i = 0; i < s->n; i++) {
		if (s->v_key[i] != k)
			continue;
		if (better_higher ? value > s->v[i].value : value < s->v[i].value)
			s->v[i].value = value;
		return;
	}
	if (s->n >= s->alloc) {
		s->alloc = s->alloc ? 2 * s->alloc : 16;
		s->v = xrealloc(s->v, s->alloc * sizeof(*s->v));
		s->v_key = xrealloc(s->v_key, s->alloc * sizeof(*s->v_key));
	}
	s->v_key[s->n] = k;
	s->v[s->n].value = value;
	s->v[s->n].better_higher = better_higher;
	s->v[s->n].judge = judge;
	s->v[s->n].limit = s->keys[k].limit;
	s->n++;
}

static int sample(struct confirm_value **values, size_t *n, enum confirm_side side, void *data,
		  struct bl_error *err)
{
	struct sampler *s = data;
	struct strbuf key = STRBUF_INIT;
	int ret = 0;

	s->n = 0;
	for (long p = 0; p < s->b->cfg->bench_processes; p++) {
		struct ingest_batch batch = {NULL, 0, 0};
		struct ingest_defaults d;
		ingest_defaults_init(&d);
		d.machine = "rebench";
		d.harness_version = 0;
		d.commit = s->commit[side];
		d.source_hash = s->source[side];
		d.started_at = (double)time(NULL);
		if ((ret = bench_side_run(&batch, &s->run, s->b, (enum repo_side)side, &d, err)))
			goto done;
		for (size_t r = 0; r < batch.nr; r++) {
			const struct ingest_record *rec = &batch.records[r];
			if (s->benchmark_glob &&
			    (s->benchmark_exact ? strcmp(s->benchmark_glob, rec->benchmark)
						: !glob_match(s->benchmark_glob, rec->benchmark)))
				continue;
			if (s->n_benchmarks &&
			    !listed(s->benchmarks, s->n_benchmarks, rec->benchmark))
				continue;
			for (size_t m = 0; m < rec->nmetrics; m++) {
				const struct ingest_metric *im = &rec->metrics[m];
				double v = metric_judged_value(im->kind, im->median, im->value);
				if (isnan(v) || (s->metric && strcmp(s->metric, im->name)))
					continue;
				confirm_metric_key(&key, rec->benchmark, rec->config, im->name);
				keep(s, side, key.buf, rec->benchmark, rec->config, im->name,
				     im->unit, im->kind, v, im->better_higher, CONFIRM_JUDGE_RATIO);
			}
		}
		ingest_batch_release(&batch);
		if (s->process_metrics && (!s->metric || !strcmp(s->metric, "cpu_s")))
			keep(s, side, "cpu_s", CONFIRM_RUN_BENCHMARK, "", "cpu_s", "s",
			     METRIC_TIMED, s->run.cpu_s, 0, CONFIRM_JUDGE_RATIO);
		if (s->process_metrics && (!s->metric || !strcmp(s->metric, "peak_rss_kib")))
			keep(s, side, "peak_rss_kib", CONFIRM_RUN_BENCHMARK, "", "peak_rss_kib",
			     "KiB", METRIC_COUNTED, (double)s->run.peak_rss_kib, 0,
			     CONFIRM_JUDGE_RSS);
	}
	for (size_t i = 0; i < s->n; i++)
		s->v[i].key = s->keys[s->v_key[i]].key;
	*values = s->v;
	*n = s->n;
done:
	if (ret)
		bl_error_prefix(err, "%s (%.12s)", s->b->label[side], s->commit[side]);
	strbuf_release(&key);
	return ret;
}

static void keys_free(struct confirm_key *keys, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(keys[i].key);
		free(keys[i].benchmark);
		free(keys[i].config);
		free(keys[i].metric);
		free(keys[i].unit);
		free(keys[i].side_unit[0]);
		free(keys[i].side_unit[1]);
	}
	free(keys);
}

static void sampler_release(struct sampler *s)
{
	keys_free(s->keys, s->nkeys);
	free(s->v_key);
	free(s->v);
	bench_run_release(&s->run);
}

/* Measuring revisions of one repository (ingest/bench/'s struct bench), and what the samples
 * keep of each key: where a key's own limit comes from and which benchmarks are asked for. */
struct measuring {
	struct bench b;
	confirm_limit_fn limit_for;
	void *limit_data;
	const char *const *benchmarks; /* only these benchmarks, when n_benchmarks */
	size_t n_benchmarks;
	/* §9.6, a counted bisection: the counter key, good's counts taken once (counted_good),
	 * and whether the probes are decided by the counts alone */
	int counting, counted_good, counts_only;
	struct bench_counter_env env;
	struct bench_counts good;
	struct strbuf good_name; /* the benchmark good's counts are of */
};

/* Measures the built sides against each other, unless their artifacts are identical: the
 * benchmarks benchmark_glob matches (a name when exact), only metric when not NULL, the runs'
 * own figures when process_metrics. The keys met go to keys (may be NULL). */
static int measure_sides(struct confirm_rebench_result *res, int *identical, size_t *files,
			 struct confirm_key **keys, size_t *nkeys, struct measuring *m,
			 const struct confirm_rebench_side *side,
			 const struct confirm_rebench_options *o, const char *benchmark_glob,
			 int exact, const char *metric, int process_metrics,
			 confirm_progress_fn progress, void *progress_data, struct bl_error *err)
{
	struct sampler s;
	int ret;

	memset(res, 0, sizeof(*res));
	if ((ret = bench_artifacts_identical(identical, NULL, files, m->b.cfg, m->b.wt[0].buf,
					     m->b.wt[1].buf, err)))
		return ret;
	if (*identical) {
		res->verdict = GATE_VERDICT_SAME;
		return 0;
	}
	memset(&s, 0, sizeof(s));
	bench_run_init(&s.run);
	s.b = &m->b;
	s.benchmark_glob = benchmark_glob;
	s.benchmark_exact = exact;
	s.benchmarks = m->benchmarks;
	s.n_benchmarks = m->n_benchmarks;
	s.metric = metric;
	/* A list of benchmarks asks for those: the runs' own figures only when it names them. */
	s.process_metrics =
	    process_metrics &&
	    (!m->n_benchmarks || listed(m->benchmarks, m->n_benchmarks, CONFIRM_RUN_BENCHMARK));
	s.limit_for = m->limit_for;
	s.limit_data = m->limit_data;
	for (int k = 0; k < 2; k++) {
		s.commit[k] = side[k].commit;
		s.source[k] = side[k].source_hash;
	}
	ret = confirm_rebench(res, o, sample, &s, progress, progress_data, err);
	if (!ret && keys) {
		*keys = s.keys;
		*nkeys = s.nkeys;
		s.keys = NULL;
		s.nkeys = 0;
	}
	sampler_release(&s);
	return ret;
}

/* The engine's options with the limit asked for, else benchline.json's gate.limit (the one the
 * gate judges by), else GATE_LIMIT. */
static int limit_options(struct confirm_rebench_options *o, double limit, const struct config *cfg,
			 struct bl_error *err)
{
	int ret;
	confirm_rebench_options_init(o);
	if ((ret = gate_check_limit(limit, err)))
		return ret;
	if (limit != 0)
		o->limit = limit;
	else if (cfg->gate_limit > 0)
		o->limit = cfg->gate_limit;
	return 0;
}

/* --- Counted once per side (§9.6) --- */

/* Names, each once, in the order added. */
struct strings {
	char **v;
	size_t n, alloc;
};
#define STRINGS_INIT                                                                               \
	{                                                                                          \
		NULL, 0, 0                                                                         \
	}

static void strings_add_unique(struct strings *s, const char *name)
{
	if (listed((const char *const *)s->v, s->n, name))
		return;
	ALLOC_GROW(s->v, s->n, s->alloc);
	s->v[s->n++] = xstrdup(name);
}

static void strings_release(struct strings *s)
{
	strings_free(s->v, s->n);
	memset(s, 0, sizeof(*s));
}

/* The benchmarks a count per benchmark counts: the request's, else those one process of
 * bench.run prints on side B (the benchmark glob applied), in the order met. */
static int names_to_count(struct strings *out, struct measuring *m,
			  const struct confirm_rebench_request *req,
			  const struct confirm_rebench_side *sides, struct bl_error *err)
{
	struct ingest_batch batch = {NULL, 0, 0};
	struct ingest_defaults d;
	struct bench_run run;
	int ret;
	if (req->n_benchmarks) {
		for (size_t i = 0; i < req->n_benchmarks; i++)
			strings_add_unique(out, req->benchmarks[i]);
		return 0;
	}
	ingest_defaults_init(&d);
	d.machine = "rebench";
	d.harness_version = 1; /* only the names are read */
	d.commit = sides[CONFIRM_SIDE_B].commit;
	d.source_hash = sides[CONFIRM_SIDE_B].source_hash;
	d.started_at = (double)time(NULL);
	bench_run_init(&run);
	if (!(ret = bench_side_run(&batch, &run, &m->b, (enum repo_side)CONFIRM_SIDE_B, &d, err)))
		for (size_t r = 0; r < batch.nr; r++)
			if (!req->benchmark_glob ||
			    glob_match(req->benchmark_glob, batch.records[r].benchmark))
				strings_add_unique(out, batch.records[r].benchmark);
	ingest_batch_release(&batch);
	bench_run_release(&run);
	return ret;
}

/* Where a side's callgrind files stay: .benchline/profiles/SOURCE_HASH/MACHINE/. */
static void profile_dir(struct strbuf *out, const struct bench *b, const char *source_hash,
			const char *machine)
{
	strbuf_reset(out);
	strbuf_addf(out, "%s/.benchline/profiles/%s/%s", b->root.buf, source_hash, machine);
}

/* Adds the counted keys to the report: "BENCHMARK instructions" for each benchmark both sides
 * counted, judged by the counted rule against 1 + tolerance. */
static void add_counted(struct confirm_rebench_report *out, double tolerance)
{
	const struct bench_counts *a = &out->counts[CONFIRM_SIDE_A],
				  *b = &out->counts[CONFIRM_SIDE_B];
	struct strbuf key = STRBUF_INIT;
	for (size_t i = 0; i < b->n; i++) {
		const char *name = b->v[i].benchmark ? b->v[i].benchmark : BENCH_COUNTERS_BENCHMARK;
		const struct bench_count *ca = NULL;
		struct confirm_key *k;
		struct confirm_metric *m;
		for (size_t j = 0; j < a->n && !ca; j++)
			if (!strcmp(a->v[j].benchmark ? a->v[j].benchmark
						      : BENCH_COUNTERS_BENCHMARK,
				    name))
				ca = &a->v[j];
		confirm_metric_key(&key, name, "", METRIC_INSTRUCTIONS);
		out->keys = xrealloc(out->keys, (out->nkeys + 1) * sizeof(*out->keys));
		k = &out->keys[out->nkeys++];
		memset(k, 0, sizeof(*k));
		k->key = xstrdup(key.buf);
		k->benchmark = xstrdup(name);
		k->config = xstrdup("");
		k->metric = xstrdup(METRIC_INSTRUCTIONS);
		k->unit = xstrdup("instructions");
		k->kind = METRIC_COUNTED;
		k->judge = CONFIRM_JUDGE_COUNT;
		k->limit = 1 + tolerance;
		k->seen[CONFIRM_SIDE_B] = 1;
		k->side_unit[CONFIRM_SIDE_B] = xstrdup("instructions");
		k->side_kind[CONFIRM_SIDE_B] = METRIC_COUNTED;
		if (!ca || !ca->instructions)
			continue; /* NEW: only the head's command counted it */
		k->seen[CONFIRM_SIDE_A] = 1;
		k->side_unit[CONFIRM_SIDE_A] = xstrdup("instructions");
		k->side_kind[CONFIRM_SIDE_A] = METRIC_COUNTED;
		out->result.metrics = xrealloc(out->result.metrics,
					       (out->result.n + 1) * sizeof(*out->result.metrics));
		m = &out->result.metrics[out->result.n++];
		memset(m, 0, sizeof(*m));
		m->key = xstrdup(key.buf);
		m->a = (double)ca->instructions;
		m->b = (double)b->v[i].instructions;
		m->ratio = m->lo = m->hi = m->b / m->a;
		m->measurements = 1;
		m->asked = 1;
		/* the counted rule (§7): worse past the tolerance, better below its inverse */
		m->verdict = m->ratio > 1 + tolerance	      ? GATE_VERDICT_SLOWER
			     : m->ratio < 1 / (1 + tolerance) ? GATE_VERDICT_FASTER
							      : GATE_VERDICT_SAME;
		if (m->verdict == GATE_VERDICT_SLOWER)
			m->slower_votes = 1;
		else
			m->clear_votes = 1;
	}
	strbuf_release(&key);
}

/* Counts the sides (side A's only when the request has none), before any timing round; their
 * keys are added to the report once the rounds are done (add_counted). */
static int count_sides(struct confirm_rebench_report *out, struct measuring *m,
		       const struct confirm_rebench_request *req, struct bl_error *err)
{
	struct strings names = STRINGS_INIT;
	struct strbuf dir = STRBUF_INIT;
	int ret = 0;
	if (bench_counters_per_benchmark(m->b.cfg) &&
	    (ret = names_to_count(&names, m, req, out->side, err)))
		goto done;
	for (int side = CONFIRM_SIDE_B; side >= CONFIRM_SIDE_A; side--) {
		if (side == CONFIRM_SIDE_A && req->a_counts)
			continue;
		profile_dir(&dir, &m->b, out->side[side].source_hash, out->env.machine.buf);
		if ((ret = bench_count(&out->counts[side], m->b.cfg, m->b.wt[side].buf,
				       (const char *const *)names.v, names.n, dir.buf, err))) {
			bl_error_prefix(err, "%s (%.12s)", m->b.label[side],
					out->side[side].commit);
			goto done;
		}
	}
	if (req->a_counts) {
		struct bench_counts *a = &out->counts[CONFIRM_SIDE_A];
		a->v = xcalloc(req->a_counts->n ? req->a_counts->n : 1, sizeof(*a->v));
		for (size_t i = 0; i < req->a_counts->n; i++) {
			const struct bench_count *c = &req->a_counts->v[i];
			a->v[i].benchmark = xstrdup_or_null(c->benchmark);
			a->v[i].instructions = c->instructions;
			a->v[i].profile = xstrdup_or_null(c->profile);
		}
		a->n = req->a_counts->n;
		out->reused_a = 1;
		out->a_counted_on = xstrdup_or_null(req->a_counted_on);
	}
done:
	strings_release(&names);
	strbuf_release(&dir);
	return ret;
}

/* --- §9.7: where the extra instructions went --- */

/* The callgrind files a profile step may read: large programs write large ones. */
#define PROFILE_FILE_MAX (512u << 20)

/* The count of benchmark among c's; a count of the whole command stands for every one. */
static const struct bench_count *count_of(const struct bench_counts *c, const char *benchmark)
{
	for (size_t i = 0; i < c->n; i++)
		if (!c->v[i].benchmark || !strcmp(c->v[i].benchmark, benchmark))
			return &c->v[i];
	return NULL;
}

/* A side's callgrind file for benchmark into path: the one its count kept; for a side whose
 * count was reused, the one that count left in the side's profile directory; else one run of
 * callgrind now, the side checked out and built first when it is not. */
static int side_profile(struct strbuf *path, int *fixed_work, struct confirm_rebench_report *out,
			struct measuring *m, int side, const char *benchmark, struct bl_error *err)
{
	const struct bench_count *c = out->counted && strcmp(benchmark, CONFIRM_RUN_BENCHMARK)
					  ? count_of(&out->counts[side], benchmark)
					  : NULL;
	struct strbuf dir = STRBUF_INIT;
	struct bench_count run;
	int ret = 0;

	strbuf_reset(path);
	*fixed_work = m->b.cfg->counters_run != NULL;
	profile_dir(&dir, &m->b, out->side[side].source_hash, out->env.machine.buf);
	if (c && c->profile && !access(c->profile, R_OK)) {
		strbuf_addstr(path, c->profile);
		goto done;
	}
	if (c) {
		bench_profile_path(path, dir.buf, c->benchmark);
		if (!access(path->buf, R_OK))
			goto done;
		strbuf_reset(path);
	}
	/* the runs' own figures (cpu_s, peak_rss_kib) are the whole of bench.run's */
	if (!strcmp(benchmark, CONFIRM_RUN_BENCHMARK))
		benchmark = NULL;
	if ((ret = bench_side(&m->b, (enum repo_side)side, out->side[side].commit, NULL, err)) ||
	    (ret = bench_profile_run(&run, fixed_work, m->b.cfg, m->b.wt[side].buf, benchmark,
				     dir.buf, err)))
		goto done;
	strbuf_addstr(path, run.profile);
	free(run.benchmark);
	free(run.profile);
done:
	strbuf_release(&dir);
	return ret;
}

/* Reads and parses a callgrind file. */
static int load_profile(struct bench_profile *p, const char *path, struct bl_error *err)
{
	struct strbuf text = STRBUF_INIT;
	int ret;
	bench_profile_init(p);
	if (!(ret = read_file_capped(&text, path, PROFILE_FILE_MAX, err)))
		ret = bench_profile_parse(p, path, text.buf, text.len, err);
	strbuf_release(&text);
	return ret;
}

/* Both sides' profiles of the key's benchmark compared into a new entry of out->profiles. */
static int profile_key(struct confirm_rebench_report *out, struct measuring *m,
		       const struct confirm_key *k, struct bl_error *err)
{
	struct strbuf path[2] = {STRBUF_INIT, STRBUF_INIT};
	struct bench_profile prof[2];
	struct confirm_profile *cp;
	int fixed[2] = {0, 0}, ret;

	bench_profile_init(&prof[0]);
	bench_profile_init(&prof[1]);
	for (int side = CONFIRM_SIDE_B; side >= CONFIRM_SIDE_A; side--)
		if ((ret = side_profile(&path[side], &fixed[side], out, m, side, k->benchmark,
					err)) ||
		    (ret = load_profile(&prof[side], path[side].buf, err)))
			goto done;
	out->profiles = xrealloc(out->profiles, (out->nprofiles + 1) * sizeof(*out->profiles));
	cp = &out->profiles[out->nprofiles++];
	confirm_profile_compare(cp, &prof[CONFIRM_SIDE_A], &prof[CONFIRM_SIDE_B],
				fixed[0] && fixed[1], m->b.wt[CONFIRM_SIDE_A].buf,
				m->b.wt[CONFIRM_SIDE_B].buf);
	cp->benchmark = xstrdup(k->benchmark);
	cp->metric = xstrdup(k->metric);
done:
	bench_profile_release(&prof[0]);
	bench_profile_release(&prof[1]);
	strbuf_release(&path[0]);
	strbuf_release(&path[1]);
	return ret;
}

/* The profiles of the benchmarks the request wants profiled. Never an error of its own: what
 * cannot be profiled is said in out->profile_note, and the verdicts stand. */
static void profile_wanted_keys(struct confirm_rebench_report *out, struct measuring *m,
				const struct confirm_rebench_request *req)
{
	struct strings done = STRINGS_INIT;
	struct bl_error err = BL_ERROR_INIT;

	for (size_t i = 0; i < out->nkeys && done.n < CONFIRM_PROFILES_MAX; i++) {
		const struct confirm_key *k = &out->keys[i];
		int seen = 0;
		for (size_t j = 0; j < done.n && !seen; j++)
			seen = !strcmp(done.v[j], k->benchmark);
		if (seen || !req->profile_wanted(out, i, req->profile_data))
			continue;
		strings_add_unique(&done, k->benchmark);
		if (!out->env.machine.len && bench_counter_env_probe(&out->env, &err)) {
			strbuf_addf(&out->profile_note,
				    "where the extra instructions went is not profiled: %s",
				    err.msg.buf);
			break;
		}
		if (profile_key(out, m, k, &err)) {
			strbuf_addf(&out->profile_note, "%s%s: not profiled: %s",
				    out->profile_note.len ? "; " : "", k->benchmark, err.msg.buf);
			bl_error_clear(&err);
		}
	}
	bl_error_release(&err);
	strings_release(&done);
}

/* Whether both sides' bench.artifacts are byte-identical, when both are built (a reused side
 * A that nothing times is not): then nothing can differ, and nothing is counted. */
static int artifacts_identical(struct confirm_rebench_report *out, struct measuring *m,
			       struct bl_error *err)
{
	out->identical = 0;
	if (!m->b.built[CONFIRM_SIDE_A][0] || !m->b.built[CONFIRM_SIDE_B][0])
		return 0;
	return bench_artifacts_identical(&out->identical, NULL, &out->artifact_files, m->b.cfg,
					 m->b.wt[0].buf, m->b.wt[1].buf, err);
}

int confirm_rebench_revs(struct confirm_rebench_report *out,
			 const struct confirm_rebench_request *req, struct bl_error *err)
{
	struct confirm_rebench_options o;
	struct measuring m;
	int ret;

	memset(out, 0, sizeof(*out));
	strbuf_init(&out->profile_note, 0);
	memset(&m, 0, sizeof(m));
	if ((ret = bench_open(&m.b, req->repo, req->cfg, err)) ||
	    (ret = limit_options(&o, req->limit, m.b.cfg, err)))
		goto done;
	for (int side = 0; side < 2; side++)
		if (req->label[side])
			m.b.label[side] = req->label[side];
	m.limit_for = req->limit_for;
	m.limit_data = req->limit_data;
	m.benchmarks = req->benchmarks;
	m.n_benchmarks = req->n_benchmarks;
	o.asked = req->asked;
	o.nasked = req->nasked;
	out->limit = o.limit;
	for (int side = 0; side < 2; side++) {
		struct confirm_rebench_side *sd = &out->side[side];
		struct strbuf name = STRBUF_INIT;
		ret = repo_resolve(sd->commit, sd->source_hash, &name, m.b.r,
				   side ? req->b : req->a, err);
		sd->name = strbuf_detach(&name, NULL);
		if (ret)
			goto done;
	}
	out->counted = m.b.cfg->counters_run && !req->no_counters;
	out->counters_only = out->counted && req->counters_only;
	bench_counter_env_init(&out->env);
	if (out->counted && (ret = bench_counter_env_probe(&out->env, err)))
		goto done;
	if (req->counters_only && !out->counted) {
		ret = bl_error_set(
		    err, BL_EINVALID,
		    "--counters-only: no bench.counters in benchline.json to count with");
		goto done;
	}
	out->side[CONFIRM_SIDE_A].build_s = out->side[CONFIRM_SIDE_B].build_s = NAN;
	for (int side = 1; side >= 0; side--) {
		/* a reused side A is not built when nothing is timed */
		if (side == CONFIRM_SIDE_A && out->counters_only && req->a_counts)
			continue;
		if ((ret = bench_side(&m.b, (enum repo_side)side, out->side[side].commit,
				      &out->side[side].build_s, err)))
			goto done;
	}
	/* §9.6: counted once per side, before the timing rounds, unless nothing can differ */
	if (out->counted && ((ret = artifacts_identical(out, &m, err)) ||
			     (!out->identical && (ret = count_sides(out, &m, req, err)))))
		goto done;
	if (!out->counters_only &&
	    (ret = measure_sides(&out->result, &out->identical, &out->artifact_files, &out->keys,
				 &out->nkeys, &m, out->side, &o, req->benchmark_glob, 0, NULL, 1,
				 req->progress, req->progress_data, err)))
		goto done;
	if (out->counted && !out->identical) {
		add_counted(out, m.b.cfg->counter_tolerance);
		/* a count that is slower makes the re-bench slower; counted alone, the counts
		 * decide */
		for (size_t i = 0; i < out->result.n; i++) {
			const struct confirm_metric *cm = &out->result.metrics[i];
			if (!strstr(cm->key, " " METRIC_INSTRUCTIONS))
				continue;
			if (cm->verdict == GATE_VERDICT_SLOWER && (cm->asked || !req->asked))
				out->result.verdict = GATE_VERDICT_SLOWER;
		}
		if (out->counters_only && out->result.verdict != GATE_VERDICT_SLOWER)
			out->result.verdict =
			    out->result.n ? GATE_VERDICT_SAME : GATE_VERDICT_UNDECIDED;
	}
	if (req->profile_wanted && !out->identical)
		profile_wanted_keys(out, &m, req);
done:
	bench_close(&m.b);
	return ret;
}

void confirm_rebench_report_release(struct confirm_rebench_report *r)
{
	free(r->side[0].name);
	free(r->side[1].name);
	confirm_rebench_release(&r->result);
	keys_free(r->keys, r->nkeys);
	bench_counts_release(&r->counts[0]);
	bench_counts_release(&r->counts[1]);
	bench_counter_env_release(&r->env);
	free(r->a_counted_on);
	for (size_t i = 0; i < r->nprofiles; i++)
		confirm_profile_release(&r->profiles[i]);
	free(r->profiles);
	strbuf_release(&r->profile_note);
	memset(r, 0, sizeof(*r));
}

/* The key's entry among those the report met, or NULL. */
static const struct confirm_key *report_key(const struct confirm_rebench_report *r, const char *key)
{
	for (size_t i = 0; i < r->nkeys; i++)
		if (!strcmp(r->keys[i].key, key))
			return &r->keys[i];
	return NULL;
}

/* §14's view of the metrics: [{"name", "config", "metrics": {METRIC: {"ratio", "interval",
 * "limit", "pairs", "measurements", "verdict", "a", "b", "unit"}}}], one entry per benchmark
 * and config in the order first met (the runs' own cpu_s and peak_rss_kib under "bench.run"). */
static json_t *benchmarks_json(const struct confirm_rebench_report *r)
{
	json_t *list = json_array();
	for (size_t i = 0; i < r->result.n; i++) {
		const struct confirm_metric *m = &r->result.metrics[i];
		const struct confirm_key *k = report_key(r, m->key);
		const char *bench = k ? k->benchmark : m->key, *config = k ? k->config : "";
		const char *metric = k ? k->metric : m->key;
		json_t *entry = NULL, *v, *metrics;
		size_t j;
		json_array_foreach (list, j, v) {
			if (!strcmp(json_string_value(json_object_get(v, "name")), bench) &&
			    !strcmp(json_string_value(json_object_get(v, "config")), config)) {
				entry = v;
				break;
			}
		}
		if (!entry) {
			entry = json_pack("{s:s, s:s, s:o}", "name", bench, "config", config,
					  "metrics", json_object());
			json_array_append_new(list, entry);
		}
		metrics = json_object_get(entry, "metrics");
		json_object_set_new(
		    metrics, metric,
		    json_pack(
			"{s:o, s:o, s:o, s:I, s:I, s:s, s:o, s:o, s:o}", "ratio",
			json_real_or_null(m->ratio), "interval",
			isnan(m->lo) ? json_null()
				     : json_pack("[o, o]", json_real(m->lo), json_real(m->hi)),
			"limit", json_real(k && k->limit > 0 ? k->limit : r->limit), "pairs",
			(json_int_t)m->pairs, "measurements", (json_int_t)m->measurements,
			"verdict", gate_verdict_name(m->verdict), "a", json_real_or_null(m->a), "b",
			json_real_or_null(m->b), "unit", json_string_or_null(k ? k->unit : NULL)));
		json_object_set_new(json_object_get(metrics, metric), "asked",
				    json_boolean(m->asked));
	}
	return list;
}

json_t *confirm_rebench_json(const struct confirm_rebench_report *r)
{
	json_t *o = json_object(), *metrics = json_array();
	for (int side = 0; side < 2; side++) {
		const struct confirm_rebench_side *sd = &r->side[side];
		json_object_set_new(o, side ? "b" : "a",
				    json_pack("{s:s, s:s, s:s, s:o}", "rev",
					      sd->name ? sd->name : "", "commit", sd->commit,
					      "source_hash", sd->source_hash, "build_s",
					      json_real_or_null(sd->build_s)));
	}
	json_object_set_new(o, "schema", json_integer(1));
	json_object_set_new(o, "limit", json_real(r->limit));
	json_object_set_new(o, "verdict",
			    json_string_or_null(gate_verdict_name(r->result.verdict)));
	/* §14's name for the answer: the verdict, or "identical" when nothing was measured */
	json_object_set_new(
	    o, "status",
	    json_string_or_null(r->identical ? "identical" : gate_verdict_name(r->result.verdict)));
	json_object_set_new(o, "identical_artifacts", json_boolean(r->identical));
	json_object_set_new(o, "measurements", json_integer((json_int_t)r->result.measurements));
	json_object_set_new(o, "pairs", json_integer((json_int_t)r->result.pairs));
	for (size_t i = 0; i < r->result.n; i++) {
		const struct confirm_metric *m = &r->result.metrics[i];
		json_array_append_new(
		    metrics,
		    json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:I, s:I, s:I, s:I, s:I}", "key",
			      m->key, "better", metric_better_name(m->better_higher), "verdict",
			      gate_verdict_name(m->verdict), "ratio", json_real_or_null(m->ratio),
			      "ci_low", json_real_or_null(m->lo), "ci_high",
			      json_real_or_null(m->hi), "pairs", (json_int_t)m->pairs,
			      "measurements", (json_int_t)m->measurements, "slower_votes",
			      (json_int_t)m->slower_votes, "clear_votes",
			      (json_int_t)m->clear_votes, "undecided_votes",
			      (json_int_t)m->undecided_votes));
		json_object_set_new(json_array_get(metrics, json_array_size(metrics) - 1), "asked",
				    json_boolean(m->asked));
	}
	json_object_set_new(o, "metrics", metrics);
	json_object_set_new(o, "benchmarks", benchmarks_json(r));
	/* §9.6: what the counts were taken with, null when nothing was counted */
	json_object_set_new(
	    o, "counters",
	    r->counted ? json_pack("{s:s, s:s, s:O, s:b, s:s?, s:b}", "machine", r->env.machine.buf,
				   "build_stamp", r->env.build_stamp, "measured_on",
				   r->env.measured_on ? r->env.measured_on : json_null(),
				   "reused_a", r->reused_a, "a_counted_on", r->a_counted_on,
				   "counters_only", r->counters_only)
		       : json_null());
	return o;
}

const char *confirm_bisect_outcome_name(enum confirm_bisect_outcome o)
{
	static const char *const names[] = {
	    [CONFIRM_PINNED] = "pinned",
	    [CONFIRM_NOT_REPRODUCED] = "not_reproduced",
	    [CONFIRM_INCONCLUSIVE] = "inconclusive",
	};
	return (unsigned)o < sizeof(names) / sizeof(names[0]) ? names[o] : "?";
}

const char *confirm_probe_skip_name(enum confirm_probe_skip s)
{
	static const char *const names[] = {
	    [CONFIRM_PROBE_MEASURED] = NULL,
	    [CONFIRM_PROBE_UNDECIDED] = "undecided",
	    [CONFIRM_PROBE_UNBUILDABLE] = "unbuildable",
	};
	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : NULL;
}

/* The distinct sources of (good, bad], each at its first commit, good's own left out. */
static void candidates(struct repo_commit *list, size_t *n, const char *good_source)
{
	size_t kept = 0;
	for (size_t i = 0; i < *n; i++) {
		int seen = !strcmp(list[i].source_hash, good_source);
		for (size_t k = 0; k < kept && !seen; k++)
			seen = !strcmp(list[k].source_hash, list[i].source_hash);
		if (!seen)
			list[kept++] = list[i];
	}
	*n = kept;
}

/* §9.6: the probe's benchmark counted at side B (and good's at side A, once): its count over
 * good's into p->count_ratio, and the counted rule's verdict into *verdict. */
static int count_probe(enum gate_verdict *verdict, struct confirm_probe *p, struct measuring *m,
		       const struct confirm_rebench_side *side, const char *benchmark,
		       struct bl_error *err)
{
	const char *names[1] = {benchmark};
	struct bench_counts head;
	struct strbuf dir = STRBUF_INIT;
	double tol = m->b.cfg->counter_tolerance;
	int ret;

	bench_counts_init(&head);
	if (m->counted_good && strcmp(m->good_name.buf, benchmark)) {
		bench_counts_release(&m->good);
		m->counted_good = 0;
	}
	if (!m->counted_good) {
		strbuf_reset(&m->good_name);
		strbuf_addstr(&m->good_name, benchmark);
		profile_dir(&dir, &m->b, side[0].source_hash, m->env.machine.buf);
		if ((ret =
			 bench_count(&m->good, m->b.cfg, m->b.wt[0].buf, names, 1, dir.buf, err))) {
			bl_error_prefix(err, "good (%.12s)", side[0].commit);
			goto done;
		}
		m->counted_good = 1;
	}
	profile_dir(&dir, &m->b, side[1].source_hash, m->env.machine.buf);
	if ((ret = bench_count(&head, m->b.cfg, m->b.wt[1].buf, names, 1, dir.buf, err))) {
		bl_error_prefix(err, "%.12s", side[1].commit);
		goto done;
	}
	p->count_ratio = m->good.v[0].instructions
			     ? (double)head.v[0].instructions / (double)m->good.v[0].instructions
			     : NAN;
	*verdict = !(p->count_ratio <= 1 + tol)	    ? GATE_VERDICT_SLOWER
		   : p->count_ratio < 1 / (1 + tol) ? GATE_VERDICT_FASTER
						    : GATE_VERDICT_SAME;
done:
	bench_counts_release(&head);
	strbuf_release(&dir);
	return ret;
}

/* A probe decided by counts alone: the benchmark's instructions, exact, nothing timed. */
static int probe_counted(struct confirm_probe *p, struct measuring *m,
			 const struct confirm_rebench_side *side,
			 const struct confirm_bisect_request *req, struct bl_error *err)
{
	struct strbuf key = STRBUF_INIT;
	int ret, identical = 0;
	size_t files = 0;
	if ((ret = bench_artifacts_identical(&identical, NULL, &files, m->b.cfg, m->b.wt[0].buf,
					     m->b.wt[1].buf, err)))
		return ret;
	if (identical) {
		p->identical = 1;
		p->verdict = GATE_VERDICT_SAME;
		return 0;
	}
	if ((ret = count_probe(&p->verdict, p, m, side, req->benchmark, err)))
		return ret;
	confirm_metric_key(&key, req->benchmark, "", METRIC_INSTRUCTIONS);
	p->key = strbuf_detach(&key, NULL);
	p->benchmark = xstrdup(req->benchmark);
	p->config = xstrdup("");
	p->metric = xstrdup(METRIC_INSTRUCTIONS);
	p->ratio = p->lo = p->hi = p->count_ratio;
	return 0;
}

/* Probes one candidate: side B at it, measured against good on side A. */
static int probe(struct confirm_probe *p, struct measuring *m, struct confirm_rebench_side *side,
		 const struct repo_commit *c, const struct confirm_rebench_options *o,
		 const struct confirm_bisect_request *req, struct bl_error *err)
{
	struct confirm_rebench_result res;
	struct confirm_rebench_options po = *o;
	struct confirm_key *keys = NULL;
	struct strbuf series = STRBUF_INIT;
	const char *asked[1];
	int identical = 0, ret, judged = 0;
	size_t files = 0, nkeys = 0;

	memset(p, 0, sizeof(*p));
	memcpy(p->commit, c->sha, 41);
	memcpy(p->source_hash, c->source_hash, 41);
	p->ratio = p->lo = p->hi = p->count_ratio = NAN;
	memcpy(side[1].commit, c->sha, 41);
	memcpy(side[1].source_hash, c->source_hash, 41);
	if ((ret = bench_side(&m->b, REPO_SIDE_B, c->sha, NULL, err))) {
		if (ret != BL_EBUILD)
			return ret;
		bl_error_clear(err);
		p->skip = CONFIRM_PROBE_UNBUILDABLE;
		p->verdict = GATE_VERDICT_NONE;
		return 0;
	}
	if (m->counts_only)
		return probe_counted(p, m, side, req, err);
	/* One Series (confirm's): only its key is asked about, so its benchmark's other configs
	 * cannot hold the probe up. */
	if (req->config && req->metric) {
		confirm_metric_key(&series, req->benchmark, req->config, req->metric);
		asked[0] = series.buf;
		po.asked = asked;
		po.nasked = 1;
	}
	/* The runs' own figures only when --metric names one of them. */
	ret = measure_sides(&res, &identical, &files, &keys, &nkeys, m, side, &po, req->benchmark,
			    req->config != NULL, req->metric, req->metric != NULL, req->progress,
			    req->progress_data, err);
	strbuf_release(&series);
	if (ret)
		return ret;
	p->identical = identical;
	p->verdict = res.verdict;
	p->pairs = res.pairs;
	for (size_t i = 0; i < res.n; i++)
		judged += res.metrics[i].asked;
	if (judged) {
		/* The probe's figures: the first metric judged found slower, else the first. */
		size_t pick = res.n;
		for (size_t i = 0; i < res.n && pick == res.n; i++)
			if (res.metrics[i].asked && res.metrics[i].verdict == GATE_VERDICT_SLOWER)
				pick = i;
		for (size_t i = 0; i < res.n && pick == res.n; i++)
			if (res.metrics[i].asked)
				pick = i;
		p->key = xstrdup(res.metrics[pick].key);
		p->ratio = res.metrics[pick].ratio;
		p->lo = res.metrics[pick].lo;
		p->hi = res.metrics[pick].hi;
		for (size_t i = 0; i < nkeys; i++)
			if (!strcmp(keys[i].key, p->key)) {
				p->benchmark = xstrdup(keys[i].benchmark);
				p->config = xstrdup(keys[i].config);
				p->metric = xstrdup(keys[i].metric);
				break;
			}
	}
	keys_free(keys, nkeys);
	if (!identical && !judged)
		ret = bl_error_set(
		    err, BL_EINVALID, "bench.run's output at %.12s has no benchmark '%s'%s%s%s%s%s",
		    c->sha, req->benchmark, req->config && req->config[0] ? " [" : "",
		    req->config && req->config[0] ? req->config : "",
		    req->config && req->config[0] ? "]" : "", req->metric ? " with metric " : "",
		    req->metric ? req->metric : "");
	else if (p->verdict == GATE_VERDICT_UNDECIDED)
		p->skip = CONFIRM_PROBE_UNDECIDED;
	if (!ret && !identical && m->counting && p->benchmark &&
	    strcmp(p->benchmark, CONFIRM_RUN_BENCHMARK)) {
		/* §9.6: a slower count makes the probe slower, whatever the timings said */
		enum gate_verdict counted;
		if (!(ret = count_probe(&counted, p, m, side, p->benchmark, err)) &&
		    counted == GATE_VERDICT_SLOWER) {
			p->verdict = GATE_VERDICT_SLOWER;
			p->skip = CONFIRM_PROBE_MEASURED;
		}
	}
	confirm_rebench_release(&res);
	return ret;
}

/* One side's callgrind file of benchmark at commit (side checked out and built first). */
static int run_profile(struct bench_profile *prof, int *fixed_work, struct measuring *m, int side,
		       const struct repo_commit *c, const char *benchmark, struct bl_error *err)
{
	struct strbuf dir = STRBUF_INIT;
	struct bench_count run;
	int ret;
	memset(&run, 0, sizeof(run));
	profile_dir(&dir, &m->b, c->source_hash, m->env.machine.buf);
	if (!(ret = bench_side(&m->b, (enum repo_side)side, c->sha, NULL, err)) &&
	    !(ret = bench_profile_run(&run, fixed_work, m->b.cfg, m->b.wt[side].buf, benchmark,
				      dir.buf, err)))
		ret = load_profile(prof, run.profile, err);
	free(run.benchmark);
	free(run.profile);
	strbuf_release(&dir);
	return ret;
}

/*
 * §9.7 for a pinned commit: its benchmark under callgrind once at the source before it (before,
 * or good when NULL) on side A and once at it on side B, compared into out->profile. Never an
 * error of its own: what could not be done is said in out->profile_note.
 */
static void profile_pinned(struct confirm_bisect_report *out, struct measuring *m,
			   const struct repo_commit *before,
			   const struct confirm_bisect_request *req)
{
	const struct confirm_probe *p = confirm_bisect_pinned_probe(out);
	const char *benchmark = p && p->benchmark ? p->benchmark : req->benchmark;
	struct repo_commit good;
	struct bench_profile prof[2];
	struct bl_error err = BL_ERROR_INIT;
	int fixed[2] = {0, 0};

	bench_profile_init(&prof[0]);
	bench_profile_init(&prof[1]);
	if (!strcmp(benchmark, CONFIRM_RUN_BENCHMARK) || strpbrk(benchmark, "*?["))
		benchmark = NULL; /* the whole of bench.run */
	if (!before) {
		memset(&good, 0, sizeof(good));
		memcpy(good.sha, out->good.commit, 41);
		memcpy(good.source_hash, out->good.source_hash, 41);
		before = &good;
	}
	if (!m->env.machine.len && bench_counter_env_probe(&m->env, &err)) {
		strbuf_addf(&out->profile_note,
			    "where the extra instructions went is not profiled: %s", err.msg.buf);
		goto done;
	}
	if (run_profile(&prof[0], &fixed[0], m, CONFIRM_SIDE_A, before, benchmark, &err) ||
	    run_profile(&prof[1], &fixed[1], m, CONFIRM_SIDE_B, &out->pinned, benchmark, &err)) {
		strbuf_addf(&out->profile_note, "not profiled: %s", err.msg.buf);
		goto done;
	}
	out->profile = xcalloc(1, sizeof(*out->profile));
	confirm_profile_compare(out->profile, &prof[0], &prof[1], fixed[0] && fixed[1],
				m->b.wt[CONFIRM_SIDE_A].buf, m->b.wt[CONFIRM_SIDE_B].buf);
	out->profile->benchmark = xstrdup(benchmark ? benchmark : CONFIRM_RUN_BENCHMARK);
	out->profile->metric = p && p->metric ? xstrdup(p->metric) : NULL;
done:
	bench_profile_release(&prof[0]);
	bench_profile_release(&prof[1]);
	bl_error_release(&err);
}

static struct confirm_probe *next_probe(struct confirm_bisect_report *out)
{
	out->probes = xrealloc(out->probes, (out->nprobes + 1) * sizeof(*out->probes));
	return &out->probes[out->nprobes++];
}

/* The candidates list[from..to] an inconclusive bisection leaves. */
static void set_remaining(struct confirm_bisect_report *out, const struct repo_commit *list,
			  size_t from, size_t to)
{
	out->nremaining = to - from + 1;
	out->remaining = xcalloc(out->nremaining, sizeof(*out->remaining));
	memcpy(out->remaining, list + from, out->nremaining * sizeof(*out->remaining));
}

int confirm_bisect(struct confirm_bisect_report *out, const struct confirm_bisect_request *req,
		   struct bl_error *err)
{
	struct confirm_rebench_options o;
	struct confirm_rebench_side side[2];
	struct repo_commit *list = NULL;
	unsigned char *tried = NULL;
	struct measuring m;
	size_t n = 0;
	long lo, hi;
	int ret;

	memset(out, 0, sizeof(*out));
	strbuf_init(&out->profile_note, 0);
	memset(&m, 0, sizeof(m));
	memset(side, 0, sizeof(side));
	bench_counter_env_init(&m.env);
	bench_counts_init(&m.good);
	strbuf_init(&m.good_name, 0);
	if ((ret = bench_open(&m.b, req->repo, NULL, err)) ||
	    (ret = limit_options(&o, req->limit, m.b.cfg, err)))
		goto done;
	/* §9.6: counted when bench.counters is set; by the counts alone when asked, or when the
	 * Series bisected is the instructions one */
	m.counting = m.b.cfg->counters_run && !req->no_counters;
	m.counts_only =
	    req->counters_only || (req->metric && !strcmp(req->metric, METRIC_INSTRUCTIONS));
	if (m.counts_only && !m.b.cfg->counters_run) {
		ret = bl_error_set(
		    err, BL_ECONFIG, "%s: no bench.counters in benchline.json to count with",
		    req->counters_only ? "--counters-only" : "bisecting instructions");
		goto done;
	}
	if (m.counts_only && (!req->benchmark || strpbrk(req->benchmark, "*?["))) {
		ret = bl_error_set(err, BL_EINVALID,
				   "a counted bisection counts one benchmark: give its name, not a "
				   "glob ('%s')",
				   req->benchmark ? req->benchmark : "");
		goto done;
	}
	m.counting |= m.counts_only;
	if (m.counting && (ret = bench_counter_env_probe(&m.env, err)))
		goto done;
	if (m.counting)
		snprintf(out->counter_machine, sizeof(out->counter_machine), "%s",
			 m.env.machine.buf);
	/* A probe that stays undecided over a whole measurement is skipped, not measured again. */
	o.replacements = 0;
	for (int k = 0; k < 2; k++) {
		struct confirm_rebench_side *sd = k ? &out->bad : &out->good;
		struct strbuf name = STRBUF_INIT;
		ret = repo_resolve(sd->commit, sd->source_hash, &name, m.b.r,
				   k ? req->bad : req->good, err);
		sd->name = strbuf_detach(&name, NULL);
		if (ret)
			goto done;
	}
	if ((ret =
		 repo_first_parent_range(&list, &n, m.b.r, out->good.commit, out->bad.commit, err)))
		goto done;
	out->commits = n;
	candidates(list, &n, out->good.source_hash);
	out->candidates = n;
	if (!n) {
		out->outcome = CONFIRM_NOT_REPRODUCED; /* nothing measured differs from good */
		goto done;
	}
	side[0] = out->good;
	side[0].name = NULL;
	if ((ret = bench_side(&m.b, REPO_SIDE_A, out->good.commit, NULL, err)))
		goto done;

	/* The ends first: unless bad is slower than good there is nothing to find. */
	tried = xcalloc(n, 1);
	lo = -1;
	hi = (long)n - 1;
	/* Bad's own source must build: there is no bisecting towards what cannot be measured. */
	if ((ret = bench_side(&m.b, REPO_SIDE_B, list[hi].sha, NULL, err)) ||
	    (ret = probe(next_probe(out), &m, side, &list[hi], &o, req, err)))
		goto done;
	tried[hi] = 1;
	if (out->probes[0].skip == CONFIRM_PROBE_UNDECIDED) {
		/* Nothing is known of the range: all of it is left. */
		out->outcome = CONFIRM_INCONCLUSIVE;
		out->range_first = list[0];
		out->range_last = list[hi];
		set_remaining(out, list, 0, (size_t)hi);
		goto done;
	}
	if (out->probes[0].verdict != GATE_VERDICT_SLOWER) {
		out->outcome = CONFIRM_NOT_REPRODUCED;
		goto done;
	}
	/* Binary search for the first slower source; skipped probes are stepped over, the
	 * one nearest the middle tried instead. */
	for (;;) {
		long mid = -1, want = lo + (hi - lo) / 2;
		struct confirm_probe *p;
		for (long d = 0; d <= hi - lo && mid < 0; d++) {
			if (want - d > lo && want - d < hi && !tried[want - d])
				mid = want - d;
			else if (want + d > lo && want + d < hi && !tried[want + d])
				mid = want + d;
		}
		if (mid < 0)
			break;
		tried[mid] = 1;
		p = next_probe(out);
		if ((ret = probe(p, &m, side, &list[mid], &o, req, err)))
			goto done;
		if (p->skip != CONFIRM_PROBE_MEASURED)
			continue;
		if (p->verdict == GATE_VERDICT_SLOWER)
			hi = mid;
		else
			lo = mid;
	}
	if (hi - lo == 1) {
		struct strbuf subject = STRBUF_INIT;
		out->outcome = CONFIRM_PINNED;
		out->pinned = list[hi];
		ret = repo_commit_subject(&subject, m.b.r, out->pinned.sha, err);
		out->subject = strbuf_detach(&subject, NULL);
		out->pr = repo_pr_from_subject(out->subject);
		if (!ret)
			profile_pinned(out, &m, hi ? &list[hi - 1] : NULL, req);
	} else {
		out->outcome = CONFIRM_INCONCLUSIVE;
		out->range_first = list[lo + 1];
		out->range_last = list[hi];
		set_remaining(out, list, (size_t)(lo + 1), (size_t)hi);
	}
done:
	free(tried);
	free(list);
	bench_counts_release(&m.good);
	bench_counter_env_release(&m.env);
	strbuf_release(&m.good_name);
	bench_close(&m.b);
	return ret;
}

void confirm_bisect_report_release(struct confirm_bisect_report *r)
{
	free(r->good.name);
	free(r->bad.name);
	for (size_t i = 0; i < r->nprobes; i++) {
		free(r->probes[i].key);
		free(r->probes[i].benchmark);
		free(r->probes[i].config);
		free(r->probes[i].metric);
	}
	free(r->probes);
	free(r->remaining);
	free(r->subject);
	if (r->profile)
		confirm_profile_release(r->profile);
	free(r->profile);
	strbuf_release(&r->profile_note);
	memset(r, 0, sizeof(*r));
}

static json_t *commit_json(const struct repo_commit *c)
{
	return json_pack("{s:s, s:s}", "commit", c->sha, "source_hash", c->source_hash);
}

const struct confirm_probe *confirm_bisect_pinned_probe(const struct confirm_bisect_report *r)
{
	if (r->outcome != CONFIRM_PINNED)
		return NULL;
	for (size_t i = r->nprobes; i-- > 0;)
		if (r->probes[i].verdict == GATE_VERDICT_SLOWER &&
		    !strcmp(r->probes[i].commit, r->pinned.sha))
			return &r->probes[i];
	return NULL;
}

/* [lo, hi], or null when there is no interval. */
static json_t *interval_json(double lo, double hi)
{
	if (!isfinite(lo) || !isfinite(hi))
		return json_null();
	return json_pack("[f, f]", lo, hi);
}

json_t *confirm_bisect_json(const struct confirm_bisect_report *r)
{
	json_t *o = json_object(), *probes = json_array();
	json_object_set_new(o, "schema", json_integer(1));
	json_object_set_new(o, "outcome", json_string(confirm_bisect_outcome_name(r->outcome)));
	json_object_set_new(o, "status", json_string(confirm_bisect_outcome_name(r->outcome)));
	for (int k = 0; k < 2; k++) {
		const struct confirm_rebench_side *sd = k ? &r->bad : &r->good;
		json_object_set_new(o, k ? "bad" : "good",
				    json_pack("{s:s, s:s, s:s}", "rev", sd->name ? sd->name : "",
					      "commit", sd->commit, "source_hash",
					      sd->source_hash));
	}
	json_object_set_new(o, "candidates", json_integer((json_int_t)r->candidates));
	if (r->outcome == CONFIRM_PINNED) {
		const struct confirm_probe *p = confirm_bisect_pinned_probe(r);
		json_t *pinned = commit_json(&r->pinned);
		json_object_set_new(pinned, "subject", json_string_or_null(r->subject));
		json_object_set_new(pinned, "pull_request",
				    r->pr > 0 ? json_integer(r->pr) : json_null());
		json_object_set_new(o, "pinned", pinned);
		json_object_set_new(o, "ratio", json_real_or_null(p ? p->ratio : NAN));
		json_object_set_new(o, "interval", p ? interval_json(p->lo, p->hi) : json_null());
	} else {
		json_object_set_new(o, "pinned", json_null());
		json_object_set_new(o, "ratio", json_null());
		json_object_set_new(o, "interval", json_null());
	}
	json_object_set_new(
	    o, "remaining_range",
	    r->outcome == CONFIRM_INCONCLUSIVE
		? json_pack("[o, o]", commit_json(&r->range_first), commit_json(&r->range_last))
		: json_null());
	/* §14's range: what was searched, and what an inconclusive search left */
	{
		json_t *range = json_object(), *remaining = json_array();
		for (size_t i = 0; i < r->nremaining; i++)
			json_array_append_new(remaining, json_string(r->remaining[i].sha));
		json_object_set_new(range, "good", json_string(r->good.commit));
		json_object_set_new(range, "bad", json_string(r->bad.commit));
		json_object_set_new(range, "commits", json_integer((json_int_t)r->commits));
		json_object_set_new(range, "distinct_sources",
				    json_integer((json_int_t)r->candidates));
		json_object_set_new(range, "remaining", remaining);
		json_object_set_new(o, "range", range);
	}
	for (size_t i = 0; i < r->nprobes; i++) {
		const struct confirm_probe *p = &r->probes[i];
		json_array_append_new(
		    probes,
		    json_pack("{s:s, s:s, s:o, s:o, s:b, s:o, s:o, s:o, s:o, s:o, s:I}", "commit",
			      p->commit, "source_hash", p->source_hash, "verdict",
			      json_string_or_null(gate_verdict_name(p->verdict)), "skipped",
			      json_string_or_null(confirm_probe_skip_name(p->skip)),
			      "identical_artifacts", p->identical, "metric",
			      json_string_or_null(p->key), "ratio", json_real_or_null(p->ratio),
			      "interval", interval_json(p->lo, p->hi), "ci_low",
			      json_real_or_null(p->lo), "ci_high", json_real_or_null(p->hi),
			      "pairs", (json_int_t)p->pairs));
		json_object_set_new(json_array_get(probes, i), "instructions_ratio",
				    json_real_or_null(p->count_ratio));
	}
	json_object_set_new(o, "probes", probes);
	/* §9.7: where the extra instructions went, when the pinned commit was profiled */
	json_object_set_new(o, "profile",
			    r->profile ? confirm_profile_json(r->profile) : json_null());
	json_object_set_new(o, "profile_note",
			    r->profile_note.len ? json_string(r->profile_note.buf) : json_null());
	return o;
}

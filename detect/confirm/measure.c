/*
 * `benchline rebench` as a use case (§9.2): two revisions checked out in their worktrees,
 * built, and measured against each other by the re-bench engine, each sample the fastest of
 * bench.processes fresh runs of bench.run, parsed by bench.format's adapter, with the runs'
 * CPU time and peak RSS as two more metrics.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "detect/confirm/confirm.h"
#include "ingest/adapters/adapters.h"
#include "ingest/ingest.h"
#include "ingest/repo/repo.h"

/* What the sample callback needs, and the values it hands back (kept until its next call). */
struct sampler {
	const struct ingest_config *cfg;
	const char *worktree[2];
	const char *commit[2], *source[2];
	const char *benchmark_glob;
	struct confirm_value *v;
	struct strbuf *keys;
	size_t n, alloc;
	struct confirm_run run;
};

/* The key a record's metric is matched by on both sides: "benchmark[ config] metric". */
static void metric_key(struct strbuf *sb, const struct ingest_record *rec, const char *metric)
{
	strbuf_reset(sb);
	strbuf_addstr(sb, rec->benchmark);
	if (rec->config[0])
		strbuf_addf(sb, " [%s]", rec->config);
	strbuf_addf(sb, " %s", metric);
}

/* Keeps the better of two values of one key: a sample is the fastest of its processes. */
static void keep(struct sampler *s, const char *key, double value, int better_higher,
		 enum confirm_judge judge)
{
	for (size_t i = 0; i < s->n; i++) {
		if (strcmp(s->keys[i].buf, key))
			continue;
		if (better_higher ? value > s->v[i].value : value < s->v[i].value)
			s->v[i].value = value;
		return;
	}
	if (s->n >= s->alloc) {
		size_t old = s->alloc;
		s->alloc = s->alloc ? 2 * s->alloc : 16;
		s->v = xrealloc(s->v, s->alloc * sizeof(*s->v));
		s->keys = xrealloc(s->keys, s->alloc * sizeof(*s->keys));
		for (size_t i = old; i < s->alloc; i++)
			strbuf_init(&s->keys[i], 0);
	}
	strbuf_reset(&s->keys[s->n]);
	strbuf_addstr(&s->keys[s->n], key);
	s->v[s->n].value = value;
	s->v[s->n].better_higher = better_higher;
	s->v[s->n].judge = judge;
	s->n++;
}

static int sample(struct confirm_value **values, size_t *n, enum confirm_side side, void *data,
		  struct bl_error *err)
{
	struct sampler *s = data;
	struct strbuf key = STRBUF_INIT;
	int ret = 0;

	s->n = 0;
	for (long p = 0; p < s->cfg->bench_processes; p++) {
		struct ingest_batch batch = {NULL, 0, 0};
		struct adapters_defaults d;
		if ((ret = confirm_run_once(&s->run, s->cfg, s->worktree[side], err)))
			goto done;
		adapters_defaults_init(&d);
		d.machine = "rebench";
		d.harness_version = 0;
		d.commit = s->commit[side];
		d.source_hash = s->source[side];
		d.started_at = (double)time(NULL);
		if ((ret = adapters_parse(&batch, NULL, s->cfg->bench_format, "bench.run's output",
					  s->run.out.buf, s->run.out.len, &d, err))) {
			bl_error_prefix(err, "side %s", repo_side_name((enum repo_side)side));
			goto done;
		}
		for (size_t r = 0; r < batch.nr; r++) {
			const struct ingest_record *rec = &batch.records[r];
			if (s->benchmark_glob && !glob_match(s->benchmark_glob, rec->benchmark))
				continue;
			for (size_t m = 0; m < rec->nmetrics; m++) {
				const struct ingest_metric *im = &rec->metrics[m];
				double v = im->kind == METRIC_TIMED ? im->median : im->value;
				if (isnan(v))
					continue;
				metric_key(&key, rec, im->name);
				keep(s, key.buf, v, im->better_higher, CONFIRM_JUDGE_RATIO);
			}
		}
		ingest_batch_release(&batch);
		keep(s, "cpu_s", s->run.cpu_s, 0, CONFIRM_JUDGE_RATIO);
		keep(s, "peak_rss_kib", (double)s->run.peak_rss_kib, 0, CONFIRM_JUDGE_RSS);
	}
	for (size_t i = 0; i < s->n; i++)
		s->v[i].key = s->keys[i].buf;
	*values = s->v;
	*n = s->n;
done:
	strbuf_release(&key);
	return ret;
}

static void sampler_release(struct sampler *s)
{
	for (size_t i = 0; i < s->alloc; i++)
		strbuf_release(&s->keys[i]);
	free(s->keys);
	free(s->v);
	confirm_run_release(&s->run);
}

int confirm_rebench_revs(struct confirm_rebench_report *out,
			 const struct confirm_rebench_request *req, struct bl_error *err)
{
	struct confirm_rebench_options o;
	struct sampler s;
	struct strbuf root = STRBUF_INIT, wt[2] = {STRBUF_INIT, STRBUF_INIT};
	struct ingest_config cfg;
	struct repo *r = NULL;
	int ret;

	memset(out, 0, sizeof(*out));
	memset(&s, 0, sizeof(s));
	confirm_run_init(&s.run);
	ingest_config_init(&cfg);
	confirm_rebench_options_init(&o);
	if (req->limit != 0) {
		if (!(req->limit >= 1)) {
			ret = bl_error_set(err, BL_EINVALID,
					   "--limit is a ratio of 1 or more (1.02 is 2%%)");
			goto done;
		}
		o.limit = req->limit;
	}
	out->limit = o.limit;
	if ((ret = repo_toplevel(&root, req->repo ? req->repo : ".", err)) ||
	    (ret = ingest_config_load(&cfg, root.buf, err)))
		goto done;
	if (!cfg.bench_run) {
		ret = bl_error_set(err, BL_ECONFIG,
				   "%s: bench.run: not set (the command that prints the results)",
				   cfg.path ? cfg.path : "benchline.json");
		goto done;
	}
	if ((ret = repo_open(&r, root.buf, &cfg, err)))
		goto done;
	for (int side = 0; side < 2; side++) {
		struct confirm_rebench_side *sd = &out->side[side];
		struct strbuf name = STRBUF_INIT;
		ret = repo_resolve(sd->commit, sd->source_hash, &name, r, side ? req->b : req->a,
				   err);
		sd->name = strbuf_detach(&name, NULL);
		if (ret ||
		    (ret = repo_worktree(&wt[side], r, sd->commit, (enum repo_side)side, err)))
			goto done;
	}
	for (int side = 0; side < 2; side++) {
		if ((ret = confirm_build(&out->side[side].build_s, &cfg, wt[side].buf, err))) {
			out->unbuildable = side + 1;
			goto done;
		}
	}
	if ((ret = confirm_artifacts_identical(&out->identical, NULL, &out->artifact_files, &cfg,
					       wt[0].buf, wt[1].buf, err)))
		goto done;
	if (out->identical) {
		out->result.verdict = GATE_VERDICT_SAME;
		goto done;
	}
	s.cfg = &cfg;
	s.benchmark_glob = req->benchmark_glob;
	for (int side = 0; side < 2; side++) {
		s.worktree[side] = wt[side].buf;
		s.commit[side] = out->side[side].commit;
		s.source[side] = out->side[side].source_hash;
	}
	ret = confirm_rebench(&out->result, &o, sample, &s, req->progress, req->progress_data, err);
done:
	sampler_release(&s);
	repo_free(r);
	ingest_config_release(&cfg);
	strbuf_release(&root);
	strbuf_release(&wt[0]);
	strbuf_release(&wt[1]);
	return ret;
}

void confirm_rebench_report_release(struct confirm_rebench_report *r)
{
	free(r->side[0].name);
	free(r->side[1].name);
	confirm_rebench_release(&r->result);
	memset(r, 0, sizeof(*r));
}

static json_t *real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *name_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
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
					      real_or_null(sd->build_s)));
	}
	json_object_set_new(o, "schema", json_integer(1));
	json_object_set_new(o, "limit", json_real(r->limit));
	json_object_set_new(o, "verdict", name_or_null(gate_verdict_name(r->result.verdict)));
	json_object_set_new(o, "identical_artifacts", json_boolean(r->identical));
	json_object_set_new(o, "measurements", json_integer((json_int_t)r->result.measurements));
	json_object_set_new(o, "pairs", json_integer((json_int_t)r->result.pairs));
	for (size_t i = 0; i < r->result.n; i++) {
		const struct confirm_metric *m = &r->result.metrics[i];
		json_array_append_new(
		    metrics,
		    json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:I, s:I, s:I, s:I, s:I}", "key",
			      m->key, "better", metric_better_name(m->better_higher), "verdict",
			      gate_verdict_name(m->verdict), "ratio", real_or_null(m->ratio),
			      "ci_low", real_or_null(m->lo), "ci_high", real_or_null(m->hi),
			      "pairs", (json_int_t)m->pairs, "measurements",
			      (json_int_t)m->measurements, "slower_votes",
			      (json_int_t)m->slower_votes, "clear_votes",
			      (json_int_t)m->clear_votes, "undecided_votes",
			      (json_int_t)m->undecided_votes));
	}
	json_object_set_new(o, "metrics", metrics);
	return o;
}

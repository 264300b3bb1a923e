/*
 * The nightly sweep's measuring (§10): main's newest commits, one per distinct source hash,
 * that this machine has no clean record of yet are checked out in a worktree, built with
 * bench.build and run bench.processes times, each process one run and its records
 * (bench_records: preflight, parsed by bench.format's adapter, annotated) delivered (stored,
 * or pushed by the caller), each at the commit that made its source (the first of the commits
 * sharing it, as bisection pins a step), with its source hash and commit time. It is asv's
 * `run --skip-existing-commits`, keyed on source hashes: a docs-only commit measures what its
 * parent measured, so it is never run. `benchline sweep` then detects and confirms
 * (cli/cmd_sweep.c).
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ingest/adapters/adapters.h"
#include "ingest/bench/bench.h"
#include "ingest/config/config.h"
#include "ingest/ingest.h"
#include "ingest/repo/repo.h"
#include "store/store.h"

/* The tags a stored run can carry (§5), for the summary. */
static const char *const sweep_tags[BENCH_SWEEP_NTAGS] = {
    "dirty", "profile", "not-main", "preflight", "noisy", "superseded",
};

const char *bench_sweep_tag_name(size_t i)
{
	return i < BENCH_SWEEP_NTAGS ? sweep_tags[i] : "?";
}

/*
 * The candidates, newest first, one commit per distinct source hash: the newest `last` sources
 * of main, or every source after `since`; each at the commit that made it (§10, as bisection
 * pins a step): the first of the run of first-parent commits that share its source, so a step is
 * measured at the change, never at a docs-only commit after it, and the root is a commit like
 * any other. A source that `since` itself has (the docs-only commits right after it) is not
 * after it.
 */
static int pick(struct repo_commit **out, size_t *nr, struct repo *r, const char *tip,
		const struct bench_sweep_request *req, struct bl_error *err)
{
	struct repo_commit *list = NULL;
	size_t n = 0, alloc = 0;
	int ret = 0;
	*out = NULL;
	*nr = 0;
	if (req->since) {
		char since[41], source[41];
		struct repo_commit *range = NULL;
		size_t nrange = 0;
		if ((ret = repo_resolve(since, source, NULL, r, req->since, err)) ||
		    (ret = repo_first_parent_range(&range, &nrange, r, since, tip, err)))
			return ret;
		/* Newest first, each source where it is newest (a revert to an older tree counts
		 * once), then back to the first commit of that run (range is oldest first). */
		for (size_t i = nrange; i-- > 0;) {
			size_t first = i;
			int seen = 0;
			for (size_t k = 0; k < n && !seen; k++)
				seen = !strcmp(list[k].source_hash, range[i].source_hash);
			while (!seen && first > 0 &&
			       !strcmp(range[first - 1].source_hash, range[i].source_hash))
				first--;
			if (seen || (first == 0 && !strcmp(source, range[i].source_hash)))
				continue;
			ALLOC_GROW(list, n, alloc);
			list[n++] = range[first];
		}
		free(range);
	} else {
		struct repo_history *h;
		size_t last = req->last ? req->last : 1;
		if ((ret = repo_history_open(&h, r, tip, SIZE_MAX, err)))
			return ret;
		for (size_t i = 0; i < last; i++) {
			const char *source, *commit;
			int got = repo_history_get(&source, &commit, h, i, err);
			if (got < 0) {
				ret = got;
				break;
			}
			if (got)
				break;
			ALLOC_GROW(list, n, alloc);
			if ((ret = repo_source_first_commit(list[n].sha, r, commit, err)))
				break;
			memcpy(list[n].source_hash, source, 41);
			n++;
		}
		repo_history_free(h);
	}
	if (ret) {
		free(list);
		return ret;
	}
	*out = list;
	*nr = n;
	return 0;
}

/* Whether this machine has a clean record at the source: the store's answer, or the
 * caller's. */
static int measured(int *yes, struct store *st, const struct bench_sweep_request *req,
		    const char *source, struct bl_error *err)
{
	*yes = 0;
	if (req->measured)
		return req->measured(yes, source, req->data, err);
	return store_machine_measured(yes, st, req->machine, source, err);
}

/* The records one commit's processes stored: per key (a record's benchmark, config and
 * harness version), the run that stands for it now. */
struct commit_records {
	struct strbuf *keys;
	int64_t *standing; /* 0: no run of the key stands (each was already stored) */
	size_t n, alloc;
	size_t runs; /* stored, of every key */
};

static void commit_records_release(struct commit_records *c)
{
	for (size_t i = 0; i < c->n; i++)
		strbuf_release(&c->keys[i]);
	free(c->keys);
	free(c->standing);
	memset(c, 0, sizeof(*c));
}

/* Notes what became of a run of the key. */
static void commit_records_add(struct commit_records *c, const struct ingest_record *rec,
			       enum ingest_outcome o, int64_t run_id)
{
	struct strbuf key = STRBUF_INIT;
	size_t i;
	strbuf_addf(&key, "%s\n%s\n%lld", rec->benchmark, rec->config,
		    (long long)rec->harness_version);
	for (i = 0; i < c->n && strcmp(c->keys[i].buf, key.buf); i++)
		;
	if (i == c->n) {
		if (c->n == c->alloc) {
			c->alloc = c->alloc ? 2 * c->alloc : 8;
			c->keys = xrealloc(c->keys, c->alloc * sizeof(*c->keys));
			c->standing = xrealloc(c->standing, c->alloc * sizeof(*c->standing));
		}
		c->keys[i] = key;
		c->standing[i] = 0;
		c->n++;
	} else {
		strbuf_release(&key);
	}
	if (o == INGEST_STANDS)
		c->standing[i] = run_id;
	c->runs++;
}

/* Stores one process's records. */
static int store_batch(struct commit_records *recs, struct store *st, struct ingest_intake *in,
		       const char *name, struct ingest_batch *batch, struct bl_error *err)
{
	enum ingest_outcome *outcomes = xcalloc(batch->nr + 1, sizeof(*outcomes));
	int64_t *ids = xcalloc(batch->nr + 1, sizeof(*ids));
	int ret = ingest_intake_store(in, st, name, batch, outcomes, ids, err);
	for (size_t i = 0; !ret && i < batch->nr; i++)
		if (outcomes[i] != INGEST_DUPLICATE)
			commit_records_add(recs, &batch->records[i], outcomes[i], ids[i]);
	free(outcomes);
	free(ids);
	return ret;
}

/* Counts a commit's records once its processes are stored: each key's standing run, joined
 * or kept off its Series by its tags. */
static int count_records(struct bench_sweep_result *res, struct store *st,
			 const struct commit_records *recs, struct bl_error *err)
{
	res->runs += recs->runs;
	for (size_t i = 0; i < recs->n; i++) {
		int tagged = 0, ret;
		if (!recs->standing[i])
			continue;
		res->records++;
		for (size_t t = 0; t < BENCH_SWEEP_NTAGS; t++) {
			int has = 0;
			if ((ret = store_has_tag(&has, st, recs->standing[i], sweep_tags[t], err)))
				return ret;
			if (has) {
				res->tagged_by[t]++;
				tagged = 1;
			}
		}
		if (tagged)
			res->tagged++;
		else
			res->joined++;
	}
	return 0;
}

/* §9.6: the commit's benchmarks (those its timing run reported) counted under callgrind in
 * its worktree, and their instruction records delivered as one more process's. A counter
 * command that fails is noted and counts nothing: the timings stored stand. */
static int count_commit(struct commit_records *recs, struct bench_sweep_step *step,
			struct bench_sweep_result *res, struct store *st, struct ingest_intake *in,
			const struct bench_counter_env *env, const char *wt,
			const struct repo_commit *c, const struct ingest_batch *timed,
			const struct bench_sweep_request *req, struct bl_error *err)
{
	const char **names = xcalloc(timed->nr + 1, sizeof(*names));
	struct strbuf dir = STRBUF_INIT, name = STRBUF_INIT;
	struct bl_error count_err = BL_ERROR_INIT;
	struct ingest_batch batch = {NULL, 0, 0};
	struct bench_counts counts;
	size_t n = 0;
	int ret = 0;

	bench_counts_init(&counts);
	for (size_t i = 0; i < timed->nr; i++) {
		int seen = 0;
		for (size_t j = 0; j < n && !seen; j++)
			seen = !strcmp(names[j], timed->records[i].benchmark);
		if (!seen)
			names[n++] = timed->records[i].benchmark;
	}
	strbuf_addf(&dir, "%s/.benchline/profiles/%s/%s", in->settings_dir, c->source_hash,
		    env->machine.buf);
	if (bench_count(&counts, &in->cfg, wt, names, n, dir.buf, &count_err)) {
		bl_note(req->note, req->data, "%.12s: nothing counted: %s", c->sha,
			count_err.msg.buf);
		goto done;
	}
	strbuf_addf(&name, "bench.counters at %.12s", c->sha);
	if ((ret = bench_counts_records(&batch, &counts, env, c->sha, c->source_hash,
					in->harness_version, err)))
		goto done;
	step->runs += batch.nr;
	step->counted += counts.n;
	if (req->deliver)
		ret = req->deliver(res, name.buf, in, &batch, req->data, err);
	else
		ret = store_batch(recs, st, in, name.buf, &batch, err);
done:
	ingest_batch_release(&batch);
	bench_counts_release(&counts);
	bl_error_release(&count_err);
	strbuf_release(&dir);
	strbuf_release(&name);
	free(names);
	return ret;
}

/* Builds, runs and delivers one commit. *built 0 when it cannot be built (err says why). */
static int sweep_commit(int *built, struct bench_sweep_step *step, struct bench_sweep_result *res,
			struct store *st, struct ingest_intake *in, struct repo *r,
			const struct repo_commit *c, const char *branch,
			const struct bench_counter_env *env, const struct bench_sweep_request *req,
			struct bl_error *err)
{
	struct strbuf wt = STRBUF_INIT, name = STRBUF_INIT;
	struct bench_records one;
	struct bench_records_request rr;
	struct commit_records recs = {NULL, NULL, 0, 0, 0};
	long processes = in->cfg.bench_processes > 0 ? in->cfg.bench_processes : 1;
	int ret;

	*built = 0;
	bench_records_init(&one);
	if ((ret = repo_worktree(&wt, r, c->sha, REPO_SIDE_A, err)))
		goto done;
	ret = bench_build(&step->build_s, &in->cfg, wt.buf, err);
	if (ret == BL_EBUILD) {
		step->unbuildable = 1;
		ret = 0;
		goto done;
	}
	if (ret)
		goto done;
	*built = 1;
	/* What the records were measured at: the worktree's HEAD, on main. */
	if ((ret = repo_read_head(&in->head, wt.buf, &in->cfg, err)))
		goto done;
	snprintf(in->head.branch, sizeof(in->head.branch), "%s", branch);
	in->have_head = 1;
	memset(&rr, 0, sizeof(rr));
	rr.in = in;
	rr.dir = wt.buf;
	rr.no_preflight = req->no_preflight;
	rr.wait_quiet_s = req->wait_quiet_s;
	rr.note = req->note;
	rr.data = req->data;
	for (long p = 0; p < processes; p++) {
		strbuf_reset(&name);
		strbuf_addf(&name, "bench.run at %.12s (process %ld)", c->sha, p + 1);
		rr.name = name.buf;
		bench_records_release(&one);
		if ((ret = bench_records(&one, &rr, err)))
			goto done;
		step->run_s += one.run.wall_s;
		step->processes++;
		if (one.preflighted && !one.pf.quiet && one.pf.nfailures && !res->busy_why)
			res->busy_why = xstrdup(one.pf.failures[0]);
		step->runs += one.batch.nr;
		if (req->deliver)
			ret = req->deliver(res, name.buf, in, &one.batch, req->data, err);
		else
			ret = store_batch(&recs, st, in, name.buf, &one.batch, err);
		if (ret)
			goto done;
	}
	if (env &&
	    (ret = count_commit(&recs, step, res, st, in, env, wt.buf, c, &one.batch, req, err)))
		goto done;
	if (!req->deliver)
		ret = count_records(res, st, &recs, err);
done:
	commit_records_release(&recs);
	bench_records_release(&one);
	strbuf_release(&wt);
	strbuf_release(&name);
	return ret;
}

int bench_sweep(struct bench_sweep_result *out, struct store *st,
		const struct bench_sweep_request *req, struct bl_error *err)
{
	struct ingest_intake in;
	struct strbuf root = STRBUF_INIT, branch = STRBUF_INIT;
	struct repo *r = NULL;
	struct repo_commit *list = NULL;
	char tip[41], tip_source[41];
	struct bench_counter_env env;
	size_t n = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	bench_counter_env_init(&env);
	ingest_intake_init(&in, &adapters_parsers);
	if ((ret = repo_toplevel(&root, req->repo ? req->repo : ".", err)))
		goto done;
	/* The main checkout's benchline.json rules every commit, as the re-bench's does. */
	in.settings_dir = root.buf;
	/* A benchmark measured here: the harness version and bench.format as `benchline run`
	 * resolves them (§10). */
	in.settings = INGEST_SETTINGS_MEASURE;
	in.machine = req->machine;
	in.harness_version = req->harness_version;
	if ((ret = ingest_intake_setup(&in, err)))
		goto done;
	if (!in.cfg.bench_run) {
		ret = bl_error_set(err, BL_ECONFIG,
				   "%s: bench.run: not set (the command that prints the results)",
				   in.cfg.path ? in.cfg.path : "benchline.json");
		goto done;
	}
	/* §9.6: bench.counters without valgrind fails before anything is measured */
	if (in.cfg.counters_run && (ret = bench_counter_env_probe(&env, err)))
		goto done;
	if (st) {
		struct repo_sync_result sync;
		if ((ret = repo_sync(&sync, st, root.buf, &in.cfg, err)))
			goto done;
		bl_note(req->note, req->data, "synced main (%s): %zu new commit%s, %zu in all",
			sync.branch, sync.walked, sync.walked == 1 ? "" : "s", sync.total);
	}
	if ((ret = repo_open(&r, root.buf, &in.cfg, err)) ||
	    (ret = repo_resolve(tip, tip_source, &branch, r, NULL, err)) ||
	    (ret = pick(&list, &n, r, tip, req, err)))
		goto done;
	out->candidates = n;
	/* Only the sources not measured yet, still newest first. */
	for (size_t i = 0; i < n;) {
		int yes;
		if ((ret = measured(&yes, st, req, list[i].source_hash, err)))
			goto done;
		if (yes) {
			memmove(list + i, list + i + 1, (n - i - 1) * sizeof(*list));
			n--;
			out->already++;
			continue;
		}
		i++;
	}
	for (size_t i = 0; i < n; i++) {
		struct bench_sweep_step step;
		struct strbuf subject = STRBUF_INIT;
		int built;
		memset(&step, 0, sizeof(step));
		step.index = i + 1;
		step.total = n;
		memcpy(step.commit, list[i].sha, 41);
		if ((ret = repo_commit_subject(&subject, r, list[i].sha, err))) {
			strbuf_release(&subject);
			goto done;
		}
		step.subject = subject.buf;
		ret = sweep_commit(&built, &step, out, st, &in, r, &list[i], branch.buf,
				   in.cfg.counters_run ? &env : NULL, req, err);
		if (!ret && step.unbuildable) {
			step.why = err->msg.buf;
			out->unbuildable++;
		} else if (!ret) {
			out->measured++;
		}
		if (!ret && req->progress)
			req->progress(&step, req->data);
		if (step.unbuildable)
			bl_error_clear(err);
		strbuf_release(&subject);
		if (ret)
			goto done;
	}
done:
	free(list);
	repo_free(r);
	bench_counter_env_release(&env);
	ingest_intake_release(&in);
	strbuf_release(&root);
	strbuf_release(&branch);
	return ret;
}

void bench_sweep_result_release(struct bench_sweep_result *r)
{
	free(r->busy_why);
	memset(r, 0, sizeof(*r));
}

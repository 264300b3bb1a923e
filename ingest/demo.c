/*
 * The demo history: a few hundred commits of main, three machines, six scenes, baselines, a
 * harness bump, a content change, planted steps and every kind of tagged run, generated from
 * a seed with a PRNG of its own (splitmix64), so a seed always writes the same database.
 * docs/demo.md describes what is in it; ingest_demo_planted() is its ground truth.
 *
 * Noise is bounded on purpose: a run's median moves at most +-noise from its Series' level
 * (0.4% to 1%), so within a line two medians differ by at most 2%, under the 3% floor of the
 * §6 band, and the band marks exactly the planted steps.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../store/store.h"
#include "demo.h"
#include "ingest.h"

#define DEMO_COMMITS 320
#define DEMO_START   "2026-03-02T09:14:00Z"
/* Every machine's harness goes from 9 to 10 at this commit: cpu_frame_us now includes the
 * submit thread, so its level moves by HARNESS_CPU_FACTOR (a new line, never a step). */
#define HARNESS_SEQ	   200
#define HARNESS_CPU_FACTOR 1.30
/* The forest scene's content changes here (a new line). */
#define CONTENT_SEQ	140
#define CONTENT_BENCH	"forest"
#define NBASELINES	3
#define BATCH_COMMITS	40
#define SMALL_CONFIG	"640x360/64f"
#define LARGE_CONFIG	"2560x1440/1800f"
#define GPU		"gpu_frame_us"
#define CPU		"cpu_frame_us"
#define QUANTILE_METRIC "ledger_build_p95_ms"
/* The single noisy outlier (no rerun), and a noisy run a quieter rerun replaces. */
#define OUTLIER_SEQ	130
#define RERUN_SEQ	205
#define FEATURE_FROM	240
#define FEATURE_COMMITS 4
#define COUNT(a)	(sizeof(a) / sizeof((a)[0]))

struct demo_machine {
	const char *name, *info;
	double noise;		     /* a median moves at most +-noise from its level */
	double spread;		     /* typical in-run p95/median - 1 */
	double gpu_speed, cpu_speed; /* multipliers on a scene's base times */
	int keep_first;		     /* keep: "first" (its times mean nothing) */
	int small_only;		     /* runs only the SMALL_CONFIG benchmarks */
	int busy_evenings;	     /* some evening runs find the machine busy */
	int preflight;		     /* its runs carry a preflight result */
	int start_minutes;	     /* its sweep starts this long after a commit */
};

/* Sorted by name. */
static const struct demo_machine machines[] = {
    {"ci-lavapipe",
     "{\"cpu\":\"AMD EPYC 7763 (4 vCPU)\",\"gpu\":\"llvmpipe (LLVM 15.0.6, 256 bits)\","
     "\"os\":\"Debian 12 (CI container)\"}",
     0.008, 0.02, 38.0, 1.6, 1, 1, 0, 0, 12},
    {"m4-pro-metal",
     "{\"cpu\":\"Apple M4 Pro (14 cores)\",\"gpu\":\"M4 Pro 20-core GPU\",\"os\":\"macOS 15.1\"}",
     0.004, 0.015, 1.0, 1.0, 0, 0, 0, 1, 25},
    {"rtx2070-linux",
     "{\"cpu\":\"AMD Ryzen 7 3700X\",\"gpu\":\"NVIDIA GeForce RTX 2070 (550.120)\","
     "\"os\":\"Ubuntu 24.04\"}",
     0.010, 0.03, 0.85, 1.25, 0, 0, 1, 1, 35},
};
#define NMACHINES COUNT(machines)

struct demo_bench {
	const char *name, *config;
	double gpu_us, cpu_us; /* base medians on m4-pro-metal */
	int64_t allocs;
	int quantile; /* also carries QUANTILE_METRIC (a histogram quantile with a ladder) */
};

static const struct demo_bench benches[] = {
    {"caves", LARGE_CONFIG, 7730, 1210, 4470, 0},   {"crowd", LARGE_CONFIG, 9480, 3920, 12840, 0},
    {"crowd", SMALL_CONFIG, 744, 3610, 12310, 0},   {"desert", LARGE_CONFIG, 5120, 980, 2410, 0},
    {"forest", LARGE_CONFIG, 11230, 1720, 7420, 0}, {"forest", SMALL_CONFIG, 905, 1590, 7010, 0},
    {"ocean", LARGE_CONFIG, 6890, 1330, 3120, 1},   {"town", LARGE_CONFIG, 8120, 2150, 5790, 0},
    {"town", SMALL_CONFIG, 612, 1480, 5230, 0},
};
#define NBENCHES COUNT(benches)
#define NSCENES	 6

/* The planted steps, in Series order. The subject names the commit that did it. */
static const struct demo_plant {
	const char *machine, *benchmark, *config, *metric;
	int64_t seq;
	double shift;
	const char *subject;
} planted[] = {
    {"m4-pro-metal", "crowd", LARGE_CONFIG, CPU, 113, 0.07,
     "ecs: run crowd steering on the main thread"},
    {"m4-pro-metal", "crowd", LARGE_CONFIG, GPU, 176, 0.08,
     "renderer: per-agent shadow casters in crowds"},
    {"m4-pro-metal", "desert", LARGE_CONFIG, GPU, 88, -0.18,
     "shaders: cheaper dune normal reconstruction"},
    {"m4-pro-metal", "forest", SMALL_CONFIG, GPU, 262, 0.06,
     "renderer: always allocate the foliage overdraw buffer"},
    {"m4-pro-metal", "ocean", LARGE_CONFIG, CPU, 301, -0.09, "physics: batch wave queries by tile"},
    {"m4-pro-metal", "town", LARGE_CONFIG, GPU, 62, 0.12,
     "renderer: switch town lighting to clustered forward"},
    {"rtx2070-linux", "caves", LARGE_CONFIG, GPU, 284, -0.22,
     "renderer: skip occluded cave chunks with a hi-z pass"},
    {"rtx2070-linux", "crowd", LARGE_CONFIG, GPU, 176, 0.09,
     "renderer: per-agent shadow casters in crowds"},
    {"rtx2070-linux", "ocean", LARGE_CONFIG, GPU, 151, 0.25,
     "shaders: foam with eight octaves of noise"},
    {"rtx2070-linux", "town", SMALL_CONFIG, CPU, 237, 0.10,
     "scene: rebuild the town BVH every frame"},
};
#define NPLANTED COUNT(planted)

/* Extra runs on m4-pro-metal: dirty trees and debug builds, at these commits. */
static const int64_t dirty_seqs[] = {70, 150, 222, 291};
static const int64_t debug_seqs[] = {95, 180, 251};

/* What each PRNG stream is for: every value comes from its own stream, so one kind of run
 * changing never shifts the numbers of another. */
enum demo_stream {
	S_COMMIT = 1,
	S_SHA,
	S_SOURCE,
	S_CONTENT,
	S_RUN,
	S_START,
	S_BUSY,
	S_EXTRA,
	S_BASELINE,
	S_FEATURE,
	S_FEATURE_SHA,
	S_FEATURE_SOURCE,
	S_BASELINE_SHA,
	S_BASELINE_SOURCE,
};

/* splitmix64 */
struct demo_rng {
	uint64_t s;
};

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rng_next(struct demo_rng *r)
{
	r->s += 0x9e3779b97f4a7c15ULL;
	return mix64(r->s);
}

/* Uniform in [0, 1). */
static double rng_unit(struct demo_rng *r)
{
	return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* A bell-shaped value in [-1, 1] (the mean of three uniforms, rescaled). */
static double rng_bounded(struct demo_rng *r)
{
	return (rng_unit(r) + rng_unit(r) + rng_unit(r) - 1.5) / 1.5;
}

static struct demo_rng rng_for(unsigned long seed, enum demo_stream what, uint64_t a, uint64_t b,
			       uint64_t c)
{
	struct demo_rng r;
	uint64_t h = mix64((uint64_t)seed + 0x6a09e667f3bcc909ULL);
	h = mix64(h ^ (uint64_t)what);
	h = mix64(h ^ a);
	h = mix64(h ^ (b + 0x3c6ef372fe94f82bULL));
	h = mix64(h ^ (c + 0xa54ff53a5f1d36f1ULL));
	r.s = h;
	return r;
}

/* nhex hex digits (at most 48) from a stream: synthetic commit SHAs and hashes. */
static void demo_hex(char *out, size_t nhex, unsigned long seed, enum demo_stream what, uint64_t a,
		     uint64_t b)
{
	struct demo_rng r = rng_for(seed, what, a, b, 0);
	char buf[49];
	for (int i = 0; i < 3; i++)
		snprintf(buf + 16 * i, 17, "%016llx", (unsigned long long)rng_next(&r));
	memcpy(out, buf, nhex);
	out[nhex] = '\0';
}

static void commit_sha(char out[41], unsigned long seed, int64_t seq)
{
	demo_hex(out, 40, seed, S_SHA, (uint64_t)seq, 0);
}

size_t ingest_demo_planted(struct ingest_demo_step *out, size_t max, unsigned long seed)
{
	for (size_t i = 0; i < NPLANTED && i < max; i++) {
		out[i].machine = planted[i].machine;
		out[i].benchmark = planted[i].benchmark;
		out[i].config = planted[i].config;
		out[i].metric = planted[i].metric;
		out[i].seq = planted[i].seq;
		commit_sha(out[i].commit, seed, planted[i].seq);
		out[i].slower = planted[i].shift > 0;
		out[i].shift = planted[i].shift;
	}
	return NPLANTED;
}

static int seq_in(int64_t seq, const int64_t *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] == seq)
			return 1;
	return 0;
}

static const struct demo_plant *plant_at(int64_t seq)
{
	for (size_t i = 0; i < NPLANTED; i++)
		if (planted[i].seq == seq)
			return &planted[i];
	return NULL;
}

/* Commits that must carry runs (and so change the source). */
static int protected_seq(int64_t seq)
{
	return seq == 0 || seq == HARNESS_SEQ || seq == CONTENT_SEQ || seq == OUTLIER_SEQ ||
	       seq == RERUN_SEQ || plant_at(seq) || seq_in(seq, dirty_seqs, COUNT(dirty_seqs)) ||
	       seq_in(seq, debug_seqs, COUNT(debug_seqs)) ||
	       (seq >= FEATURE_FROM && seq < FEATURE_FROM + FEATURE_COMMITS);
}

/* Whether machine m has a step planted at seq (its busy evenings avoid those commits). */
static int planted_on(const struct demo_machine *m, int64_t seq)
{
	for (size_t i = 0; i < NPLANTED; i++)
		if (planted[i].seq == seq && !strcmp(planted[i].machine, m->name))
			return 1;
	return 0;
}

/* The level (true median) of a Series at a commit; seq -1 is before the history. */
static double level(const struct demo_machine *m, const struct demo_bench *b, const char *metric,
		    int64_t seq)
{
	int cpu = !strcmp(metric, CPU);
	double v = cpu ? b->cpu_us * m->cpu_speed : b->gpu_us * m->gpu_speed;
	if (cpu && seq >= HARNESS_SEQ)
		v *= HARNESS_CPU_FACTOR;
	if (!strcmp(b->name, CONTENT_BENCH) && seq >= CONTENT_SEQ)
		v *= cpu ? 1.02 : 1.07;
	for (size_t i = 0; i < NPLANTED; i++) {
		const struct demo_plant *p = &planted[i];
		if (seq >= p->seq && !strcmp(p->machine, m->name) &&
		    !strcmp(p->benchmark, b->name) && !strcmp(p->config, b->config) &&
		    !strcmp(p->metric, metric))
			v *= 1 + p->shift;
	}
	return v;
}

/* Allocations are exact: the same on every machine for a source, changed by a few commits. */
static int64_t allocations(const struct demo_machine *m, const struct demo_bench *b, int64_t seq)
{
	int64_t v = b->allocs;
	if (seq >= 45)
		v += 12;
	if (seq >= 97 && !strcmp(b->name, "crowd"))
		v -= 64;
	if (seq >= CONTENT_SEQ && !strcmp(b->name, CONTENT_BENCH))
		v += 310;
	if (seq >= 190 && !strcmp(b->name, "town"))
		v += 128;
	if (seq >= 255)
		v -= 20;
	if (m->keep_first)
		v += 6; /* the software driver allocates a little more */
	return v;
}

static void content_hash(char out[33], unsigned long seed, const struct demo_bench *b, int64_t seq)
{
	int version = !strcmp(b->name, CONTENT_BENCH) && seq >= CONTENT_SEQ;
	uint64_t name = 0;
	for (const char *p = b->name; *p; p++)
		name = name * 131 + (unsigned char)*p;
	demo_hex(out, 32, seed, S_CONTENT, name, (uint64_t)version);
}

struct demo_commit {
	char sha[41], parent[41], source_hash[41];
	int64_t committed_at;
	char *subject;
	long pr;
	int docs_only;
};

static const char *const areas[] = {"renderer", "scene",  "ecs",   "physics", "audio",
				    "ui",	"assets", "build", "net",     "shaders"};
static const char *const changes[] = {
    "batch shadow cascades by light",
    "cache material lookups per frame",
    "fix frustum culling at tile edges",
    "merge duplicate vertex streams",
    "move particle update to a job",
    "drop the legacy GL path",
    "reuse transient command buffers",
    "inline the transform hierarchy walk",
    "stream terrain tiles asynchronously",
    "tighten the LOD selection heuristic",
    "split the main pass into two subpasses",
    "pool entity allocations",
    "avoid a copy in mesh upload",
    "size classes in the frame allocator",
    "refactor input mapping",
    "fix a race in the asset loader",
    "add debug names to GPU resources",
    "sort draw calls by pipeline",
    "clamp the exposure adaptation rate",
    "compress animation tracks",
};
static const char *const docs_changes[] = {
    "docs: describe the scene format",
    "docs: fix typos in the contributing guide",
    "ci: cache the toolchain",
    "docs: update the changelog",
    "ci: run clang-tidy on pull requests",
    "docs: explain the benchmark configs",
};
static const char *const users[] = {"alice", "bruno", "chen", "dana", "emre", "farah"};
static void make_commits(struct demo_commit *commits, unsigned long seed, double start)
{
	int64_t t = (int64_t)start;
	long pr = 1180;
	for (int64_t seq = 0; seq < DEMO_COMMITS; seq++) {
		struct demo_commit *c = &commits[seq];
		struct demo_rng r = rng_for(seed, S_COMMIT, (uint64_t)seq, 0, 0);
		const struct demo_plant *p = plant_at(seq);
		struct strbuf subject = STRBUF_INIT;
		double kind = rng_unit(&r);
		const char *area = areas[rng_next(&r) % COUNT(areas)];
		const char *change = changes[rng_next(&r) % COUNT(changes)];
		const char *user = users[rng_next(&r) % COUNT(users)];
		int hour;

		if (seq) {
			t += (int64_t)(40 + rng_next(&r) % 220) * 60;
			hour = (int)((t % 86400) / 3600);
			if (hour < 8) /* nobody merges at night */
				t += (int64_t)(8 - hour) * 3600;
		}
		c->committed_at = t;
		commit_sha(c->sha, seed, seq);
		if (seq)
			memcpy(c->parent, commits[seq - 1].sha, 41);
		else
			c->parent[0] = '\0';
		c->docs_only = seq && !protected_seq(seq) && rng_unit(&r) < 0.12;
		if (c->docs_only)
			memcpy(c->source_hash, commits[seq - 1].source_hash, 41);
		else
			demo_hex(c->source_hash, 40, seed, S_SOURCE, (uint64_t)seq, 0);

		c->pr = 0;
		if (seq == 0) {
			strbuf_addstr(&subject, "Initial import of the engine and its benchmarks");
		} else if (p || seq == HARNESS_SEQ || seq == CONTENT_SEQ) {
			pr += 1 + (long)(rng_next(&r) % 3);
			c->pr = pr;
			strbuf_addf(&subject, "%s (#%ld)",
				    p ? p->subject
				    : seq == HARNESS_SEQ
					? "bench: harness 10 times cpu_frame_us with "
					  "the submit thread"
					: "assets: denser foliage in the forest scene",
				    pr);
		} else if (c->docs_only) {
			strbuf_addstr(&subject, docs_changes[rng_next(&r) % COUNT(docs_changes)]);
		} else if (kind < 0.25) {
			pr += 1 + (long)(rng_next(&r) % 3);
			c->pr = pr;
			strbuf_addf(&subject, "%s: %s (#%ld)", area, change, pr);
		} else if (kind < 0.33) {
			pr += 1 + (long)(rng_next(&r) % 3);
			c->pr = pr;
			strbuf_addf(&subject, "Merge pull request #%ld from %s/%s-%lld", pr, user,
				    area, (long long)seq);
		} else {
			strbuf_addf(&subject, "%s: %s", area, change);
		}
		c->subject = strbuf_detach(&subject, NULL);
	}
}

/* What one run is. */
struct run_spec {
	const struct demo_machine *m;
	const struct demo_bench *b;
	int64_t level_seq; /* the commit whose level it measures (-1: before the history) */
	const char *commit, *source_hash, *branch, *profile;
	double committed_at, started_at;
	int64_t harness;
	int baseline, dirty;
	int preflight; /* -1 none, 0 busy, 1 quiet */
	double factor; /* on both timed medians: a busy machine, a debug build, a dirty tree */
	double spread; /* in-run p95/median - 1 wanted */
	int noisy;     /* 1: p95/median must reach the noisy limit; 0: must stay well under */
	struct demo_rng *rng;
};

/* Samples around a median: skewed to the slow side as frame times are, rescaled so their
 * nearest-rank median is the median wanted, rounded to 0.1 us. */
static void make_timed(struct ingest_metric *mt, const char *name, double median, double spread,
		       int noisy, struct demo_rng *r)
{
	size_t n = 30 + (size_t)(rng_next(r) % 31);
	double *x = xmalloc(n * sizeof(*x));
	double p95_scale = log(20.0) - log(2.0), med, ratio;

	for (int attempt = 0;; attempt++) {
		for (size_t i = 0; i < n; i++) {
			double g = (-log(1.0 - rng_unit(r)) - log(2.0)) / p95_scale;
			if (!noisy && g > 1.6)
				g = 1.6;
			/* Past a few tries, narrow (or widen) the tail until it fits. */
			if (attempt >= 8)
				g = noisy ? g * (1 + 0.25 * (attempt - 7))
					  : g * pow(0.8, attempt - 7);
			x[i] = 1 + spread * g;
		}
		med = nearest_rank(x, n, 50);
		for (size_t i = 0; i < n; i++)
			x[i] = round(median * x[i] / med * 10.0) / 10.0;
		ratio = nearest_rank(x, n, 95) / nearest_rank(x, n, 50);
		if (noisy ? ratio >= 1.08 : ratio < 1.05)
			break;
	}
	mt->name = xstrdup(name);
	mt->kind = INGEST_TIMED;
	mt->unit = xstrdup("us");
	mt->better_higher = 0;
	mt->median = nearest_rank(x, n, 50);
	mt->p95 = nearest_rank(x, n, 95);
	mt->value = NAN;
	mt->n = (int64_t)n;
	mt->samples = x;
	mt->nsamples = n;
	mt->ladder = NULL;
}

static int add_run(struct ingest_batch *batch, const struct run_spec *sp, unsigned long seed,
		   struct bl_error *err)
{
	const struct demo_machine *m = sp->m;
	const struct demo_bench *b = sp->b;
	struct ingest_record *rec;
	struct ingest_metric *mt;
	char content[33];
	double gpu, cpu;

	ALLOC_GROW(batch->records, batch->nr, batch->alloc);
	rec = &batch->records[batch->nr++];
	memset(rec, 0, sizeof(*rec));
	rec->machine = xstrdup(m->name);
	rec->machine_info = xstrdup(m->info);
	rec->benchmark = xstrdup(b->name);
	rec->config = xstrdup(b->config);
	content_hash(content, seed, b, sp->level_seq);
	rec->content_hash = xstrdup(content);
	rec->harness_version = sp->harness;
	memcpy(rec->commit, sp->commit, 41);
	memcpy(rec->source_hash, sp->source_hash, 41);
	rec->branch = xstrdup(sp->branch);
	rec->committed_at = sp->committed_at;
	rec->dirty = sp->dirty;
	rec->profile = xstrdup(sp->profile ? sp->profile : "release");
	rec->started_at = sp->started_at;
	rec->baseline = sp->baseline;
	rec->primary = xstrdup(GPU);
	rec->has_preflight = sp->preflight >= 0;
	rec->preflight_quiet = sp->preflight > 0;

	rec->nmetrics = b->quantile ? 4 : 3;
	rec->metrics = xcalloc(rec->nmetrics, sizeof(*rec->metrics));
	gpu = level(m, b, GPU, sp->level_seq) * (1 + m->noise * rng_bounded(sp->rng)) * sp->factor;
	cpu = level(m, b, CPU, sp->level_seq) * (1 + m->noise * rng_bounded(sp->rng)) * sp->factor;
	make_timed(&rec->metrics[0], GPU, gpu, sp->spread, sp->noisy, sp->rng);
	make_timed(&rec->metrics[1], CPU, cpu, sp->spread, sp->noisy, sp->rng);
	mt = &rec->metrics[2];
	mt->name = xstrdup("allocations");
	mt->kind = INGEST_COUNTED;
	mt->unit = xstrdup("allocs");
	mt->median = mt->p95 = NAN;
	mt->value = (double)allocations(m, b, sp->level_seq);
	mt->n = -1;
	if (b->quantile) {
		/* A histogram quantile: only known to its bucket of the "ms" ladder. */
		mt = &rec->metrics[3];
		mt->name = xstrdup(QUANTILE_METRIC);
		mt->kind = INGEST_QUANTILE;
		mt->unit = xstrdup("ms");
		mt->median = mt->p95 = NAN;
		mt->value =
		    round(1.0612 * m->cpu_speed * (1 + 0.02 * rng_bounded(sp->rng)) * 1e4) / 1e4;
		mt->n = -1;
		mt->ladder = xstrdup("ms");
	}
	return ingest_record_finish(rec, NULL, err);
}

/* Stores a batch in one transaction and counts what it stored. */
static int flush(struct ingest_demo_summary *sum, struct store *st, struct ingest_batch *batch,
		 struct bl_error *err)
{
	enum ingest_outcome *outcomes;
	int ret;
	if (!batch->nr)
		return 0;
	outcomes = xcalloc(batch->nr, sizeof(*outcomes));
	ret = ingest_store(st, batch, NULL, outcomes, NULL, err);
	for (size_t i = 0; !ret && i < batch->nr; i++)
		if (outcomes[i] != INGEST_DUPLICATE)
			sum->runs++;
	free(outcomes);
	ingest_batch_release(batch);
	return ret;
}

static int store_commits(struct store *st, const struct demo_commit *commits, struct bl_error *err)
{
	int ret;
	if ((ret = store_begin(st, err)))
		return ret;
	for (size_t i = 0; i < NMACHINES; i++)
		if (machines[i].keep_first &&
		    (ret = store_set_machine_keep(st, machines[i].name, 1, err)))
			goto fail;
	if ((ret = store_set_meta(st, "main_branch", "main", err)))
		goto fail;
	for (int64_t seq = 0; seq < DEMO_COMMITS; seq++) {
		const struct demo_commit *c = &commits[seq];
		struct store_commit sc;
		memset(&sc, 0, sizeof(sc));
		memcpy(sc.sha, c->sha, 41);
		sc.seq = seq;
		memcpy(sc.parent, c->parent, 41);
		memcpy(sc.source_hash, c->source_hash, 41);
		sc.committed_at = c->committed_at;
		sc.subject = c->subject;
		sc.pr = c->pr;
		if ((ret = store_insert_commit(st, &sc, err)))
			goto fail;
	}
	return store_commit(st, err);
fail:
	store_rollback(st);
	return ret;
}

static int runs_on(const struct demo_machine *m, const struct demo_bench *b)
{
	return !m->small_only || !strcmp(b->config, SMALL_CONFIG);
}

/* Imported Baselines: NBASELINES per (machine, benchmark, config), from releases before the
 * history, each starting a line. */
static int add_baselines(struct ingest_batch *batch, unsigned long seed, double start,
			 struct bl_error *err)
{
	int ret;
	for (int k = 0; k < NBASELINES; k++) {
		char sha[41], src[41];
		double at = start - (double)(NBASELINES - k) * 9 * 86400;
		demo_hex(sha, 40, seed, S_BASELINE_SHA, (uint64_t)k, 0);
		demo_hex(src, 40, seed, S_BASELINE_SOURCE, (uint64_t)k, 0);
		for (size_t mi = 0; mi < NMACHINES; mi++) {
			for (size_t bi = 0; bi < NBENCHES; bi++) {
				const struct demo_machine *m = &machines[mi];
				struct demo_rng r = rng_for(seed, S_BASELINE, (uint64_t)k, mi, bi);
				struct run_spec sp = {
				    .m = m,
				    .b = &benches[bi],
				    .level_seq = -1,
				    .commit = sha,
				    .source_hash = src,
				    .branch = "main",
				    .committed_at = at,
				    .started_at = at + 3600 + (double)bi * 300,
				    .harness = 9,
				    .baseline = 1,
				    .preflight = -1,
				    .factor = 1.0,
				    .spread = m->spread,
				    .rng = &r,
				};
				if (!runs_on(m, &benches[bi]))
					continue;
				if ((ret = add_run(batch, &sp, seed, err)))
					return ret;
			}
		}
	}
	return 0;
}

/* Runs of a feature branch that never reached main: tagged not-main. */
static int add_feature_runs(struct ingest_batch *batch, const struct demo_commit *commits,
			    unsigned long seed, struct bl_error *err)
{
	int ret;
	for (int k = 0; k < FEATURE_COMMITS; k++) {
		const struct demo_commit *base = &commits[FEATURE_FROM + k];
		char sha[41], src[41];
		double at = (double)base->committed_at + 1800;
		demo_hex(sha, 40, seed, S_FEATURE_SHA, (uint64_t)k, 0);
		demo_hex(src, 40, seed, S_FEATURE_SOURCE, (uint64_t)k, 0);
		for (size_t mi = 1; mi < NMACHINES; mi++) {
			for (size_t bi = 0; bi < NBENCHES; bi++) {
				const struct demo_machine *m = &machines[mi];
				struct demo_rng r = rng_for(seed, S_FEATURE, (uint64_t)k, mi, bi);
				struct run_spec sp = {
				    .m = m,
				    .b = &benches[bi],
				    .level_seq = FEATURE_FROM + k,
				    .commit = sha,
				    .source_hash = src,
				    .branch = "feature-x",
				    .committed_at = at,
				    .started_at = at + 2400 + (double)bi * 240,
				    .harness = FEATURE_FROM + k >= HARNESS_SEQ ? 10 : 9,
				    .preflight = 1,
				    .factor = 1.03, /* the branch is a little slower */
				    .spread = m->spread,
				    .rng = &r,
				};
				if (strcmp(benches[bi].name, "town"))
					continue;
				if ((ret = add_run(batch, &sp, seed, err)))
					return ret;
			}
		}
	}
	return 0;
}

/* Every run of one machine at one commit, with the extra runs that commit gets. */
static int add_commit_runs(struct ingest_batch *batch, const struct demo_commit *c, int64_t seq,
			   size_t mi, unsigned long seed, struct bl_error *err)
{
	const struct demo_machine *m = &machines[mi];
	struct demo_rng start = rng_for(seed, S_START, (uint64_t)seq, mi, 0);
	struct demo_rng busy_rng = rng_for(seed, S_BUSY, (uint64_t)seq, mi, 0);
	double at =
	    (double)c->committed_at + (double)(m->start_minutes + rng_next(&start) % 40) * 60;
	int hour = (int)(((int64_t)at % 86400) / 3600);
	int busy = 0, rerun_busy = 0, ret;
	int64_t harness = seq >= HARNESS_SEQ ? 10 : 9;

	/* Evenings on the desktop: someone is playing a game, or compiling. */
	if (m->busy_evenings && hour >= 18 && hour <= 22 && !planted_on(m, seq) &&
	    seq != HARNESS_SEQ && seq != CONTENT_SEQ && rng_unit(&busy_rng) < 0.35) {
		busy = 1 + (int)(rng_next(&busy_rng) % 2); /* 1: preflight fails, 2: noisy */
		rerun_busy = rng_unit(&busy_rng) < 0.35;
	}
	for (size_t bi = 0; bi < NBENCHES; bi++) {
		const struct demo_bench *b = &benches[bi];
		struct demo_rng r = rng_for(seed, S_RUN, (uint64_t)seq, mi, bi);
		struct demo_rng extra = rng_for(seed, S_EXTRA, (uint64_t)seq, mi, bi);
		double started = at + (double)bi * (180 + (double)(rng_next(&start) % 180));
		struct run_spec sp = {
		    .m = m,
		    .b = b,
		    .level_seq = seq,
		    .commit = c->sha,
		    .source_hash = c->source_hash,
		    .branch = "main",
		    .committed_at = (double)c->committed_at,
		    .started_at = started,
		    .harness = harness,
		    .preflight = m->preflight ? 1 : -1,
		    .factor = 1.0,
		    .spread = m->spread,
		    .rng = &r,
		};
		int outlier = !strcmp(m->name, "m4-pro-metal") &&
			      ((seq == OUTLIER_SEQ && !strcmp(b->name, "town") &&
				!strcmp(b->config, LARGE_CONFIG)) ||
			       (seq == RERUN_SEQ && !strcmp(b->name, "crowd") &&
				!strcmp(b->config, SMALL_CONFIG)));

		if (!runs_on(m, b))
			continue;
		if (busy == 1) {
			sp.preflight = 0;
			sp.factor = 1.03 + 0.07 * rng_unit(&extra);
			sp.spread = 0.04;
		} else if (busy == 2 || outlier) {
			sp.factor = 1.05 + 0.13 * rng_unit(&extra);
			sp.spread = 0.12;
			sp.noisy = 1;
		}
		if ((ret = add_run(batch, &sp, seed, err)))
			return ret;

		/* A clean rerun the next morning takes the key from the flawed run. */
		if ((busy && rerun_busy) || (outlier && seq == RERUN_SEQ)) {
			struct run_spec again = sp;
			again.started_at = started + 11 * 3600;
			again.preflight = m->preflight ? 1 : -1;
			again.factor = 1.0;
			again.spread = m->spread;
			again.noisy = 0;
			if ((ret = add_run(batch, &again, seed, err)))
				return ret;
		}
		/* Second runs of a key: the quieter stands, except on keep-first machines. */
		if (!busy && !outlier && rng_unit(&extra) < (m->keep_first ? 0.06 : 0.03)) {
			struct run_spec again = sp;
			again.started_at = started + (4 + (double)(rng_next(&extra) % 4)) * 3600;
			again.spread = m->spread * (rng_unit(&extra) < 0.5 ? 0.6 : 1.4);
			if ((ret = add_run(batch, &again, seed, err)))
				return ret;
		}
		if (!strcmp(m->name, "m4-pro-metal")) {
			struct run_spec local = sp;
			local.started_at = started + 2 * 3600;
			if (seq_in(seq, dirty_seqs, COUNT(dirty_seqs)) &&
			    !strcmp(b->config, LARGE_CONFIG) &&
			    (!strcmp(b->name, "town") || !strcmp(b->name, "crowd"))) {
				/* A developer's working tree: an experiment in progress. */
				local.dirty = 1;
				local.factor = 0.96;
				if ((ret = add_run(batch, &local, seed, err)))
					return ret;
			}
			if (seq_in(seq, debug_seqs, COUNT(debug_seqs)) &&
			    !strcmp(b->name, "forest") && !strcmp(b->config, SMALL_CONFIG)) {
				local.dirty = 0;
				local.profile = "debug";
				local.factor = 3.2;
				if ((ret = add_run(batch, &local, seed, err)))
					return ret;
			}
		}
	}
	return 0;
}

int ingest_demo(struct ingest_demo_summary *out, struct store *st, unsigned long seed,
		struct bl_error *err)
{
	struct demo_commit *commits = NULL;
	struct ingest_batch batch = {NULL, 0, 0};
	int64_t nruns = 0, ncommits = 0;
	double start;
	int ret;

	memset(out, 0, sizeof(*out));
	if ((ret = store_count(&nruns, st, "runs", err)) ||
	    (ret = store_count(&ncommits, st, "commits", err)))
		return ret;
	if (nruns || ncommits)
		return bl_error_set(
		    err, BL_EINVALID,
		    "the database already holds %lld runs and %lld commits; the demo "
		    "writes only into an empty database (pass --db NEW.db)",
		    (long long)nruns, (long long)ncommits);
	if (parse_rfc3339_utc(DEMO_START, &start))
		return bl_error_set(err, BL_EINVALID, "bad demo start time");

	commits = xcalloc(DEMO_COMMITS, sizeof(*commits));
	make_commits(commits, seed, start);
	if ((ret = store_commits(st, commits, err)))
		goto done;
	out->commits = DEMO_COMMITS;

	if ((ret = add_baselines(&batch, seed, start, err)) || (ret = flush(out, st, &batch, err)))
		goto done;
	for (int64_t seq = 0; seq < DEMO_COMMITS; seq++) {
		const struct demo_commit *c = &commits[seq];
		if (!c->docs_only) {
			for (size_t mi = 0; mi < NMACHINES; mi++)
				if ((ret = add_commit_runs(&batch, c, seq, mi, seed, err)))
					goto done;
		}
		if (seq == FEATURE_FROM + FEATURE_COMMITS &&
		    (ret = add_feature_runs(&batch, commits, seed, err)))
			goto done;
		if ((seq + 1) % BATCH_COMMITS == 0 && (ret = flush(out, st, &batch, err)))
			goto done;
	}
	if ((ret = flush(out, st, &batch, err)))
		goto done;
	out->machines = NMACHINES;
	out->benchmarks = NSCENES;
done:
	ingest_batch_release(&batch);
	for (size_t i = 0; commits && i < DEMO_COMMITS; i++)
		free(commits[i].subject);
	free(commits);
	return ret;
}

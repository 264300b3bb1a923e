/*
 * gen_history: writes a large benchmark history straight into a benchline database, through
 * benchline's own ingest path (ingest_record_finish, ingest_store), so every row is exactly
 * what `benchline ingest` stores, without writing and parsing a gigabyte of JSON. The input of
 * the detect section of `make bench` (tests/bench/run.sh).
 *
 *   gen_history DB [--groups G] [--commits N] [--seed S]   a fresh history
 *   gen_history DB --append [--groups G] [--seed S]        one more commit, one record per group
 *   gen_history DB --head COMMIT SOURCE [--shift R]        one record per group at a pull
 *                                                          request's head (branch "pr")
 *
 * --revs FILE takes the commits and source hashes from FILE ("SOURCE_HASH COMMIT" per line,
 * oldest first, as `benchline hash` prints them) instead of made-up ones, so the history
 * belongs to a real repository (the gate's budget needs one). --tip-samples K gives the
 * records of the last commit, and those of --head, K samples each (the gate's
 * Hodges-Lehmann path); --shift R multiplies the head's values by R.
 *
 * G (machine, benchmark, config) groups (default 1,000: 10 machines x 50 benchmarks x 2
 * configs, taken in that order) each get one record per commit of main, N commits (default
 * 1,000), so G * N records. Each record has one timed metric, frame_us (median, p95 = 1.02 x
 * median, n = 30, no samples): G Series. The commits are stored as `sync` stores them; the
 * records go in commit by commit (one transaction each), as a nightly sweep's would.
 *
 * The values: each Series has a level drawn from the seed; a median is the level times
 * 1 +- 1% noise; about one commit in 150 steps a Series' level by 4% to 20% up or down; one
 * record in 300 is an outlier 5% to 9% off its level (no rerun); at commit N/2 the odd
 * machines move to harness version 4 (a new line, level x 1.2); at commit N/4 the first ten
 * benchmarks change content (a new line). --append continues the same process.
 */
#include <git2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/ingest.h"
#include "store/store.h"

#define NMACHINES   10
#define NBENCHMARKS 50
#define NCONFIGS    2
#define T0	    1793592000.0 /* 2026-11-02T04:00:00Z */

static const char *const configs[NCONFIGS] = {"1920x1080/600f", "2560x1440/1800f"};

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A uniform value in [0, 1) for (seed, what, a, b). */
static double unit(uint64_t seed, uint64_t what, uint64_t a, uint64_t b)
{
	uint64_t h = mix64(mix64(mix64(seed * 0x9e3779b97f4a7c15ULL + what) ^ a) ^ (b + 77));
	return (double)(h >> 11) * (1.0 / 9007199254740992.0);
}

static void hex40(char out[41], char first, uint64_t seq)
{
	snprintf(out, 41, "%c%039llx", first, (unsigned long long)seq);
}

/* --revs: the real commits and source hashes, by seq. */
static char (*rev_commit)[41], (*rev_source)[41];
static size_t nrevs;
/* --tip-samples and --head */
static long tip_samples;
static int64_t tip_seq = -1;

static void commit_of(char out[41], int64_t seq)
{
	if ((size_t)seq < nrevs)
		memcpy(out, rev_commit[seq], 41);
	else
		hex40(out, 'c', (uint64_t)seq);
}

static void source_of(char out[41], int64_t seq)
{
	if ((size_t)seq < nrevs)
		memcpy(out, rev_source[seq], 41);
	else
		hex40(out, 'a', (uint64_t)seq);
}

static int read_revs(const char *path)
{
	FILE *f = fopen(path, "r");
	char src[41], commit[41];
	size_t alloc = 0, alloc2 = 0;
	if (!f)
		return -1;
	while (fscanf(f, "%40s %40s", src, commit) == 2) {
		ALLOC_GROW(rev_source, nrevs, alloc);
		ALLOC_GROW(rev_commit, nrevs, alloc2);
		memcpy(rev_source[nrevs], src, 41);
		memcpy(rev_commit[nrevs], commit, 41);
		nrevs++;
	}
	fclose(f);
	return 0;
}

/* K samples around median: deterministic, +-2%. */
static void add_samples(struct ingest_metric *m, uint64_t seed, size_t g, int64_t seq,
			double median)
{
	m->nsamples = (size_t)tip_samples;
	m->samples = xcalloc(m->nsamples, sizeof(double));
	for (size_t k = 0; k < m->nsamples; k++)
		m->samples[k] =
		    round(median * (1 + 0.02 * (2 * unit(seed, 9 + k, g, (uint64_t)seq) - 1)) *
			  10) /
		    10;
}

/* The level of group g's Series before any step. */
static double base_level(uint64_t seed, size_t g)
{
	return 1000 + 9000 * unit(seed, 1, g, 0);
}

/* The level after commit s's step (if it has one) from the level v before it. */
static double step(uint64_t seed, size_t g, int64_t s, double v)
{
	if (s > 0 && unit(seed, 2, g, (uint64_t)s) < 1.0 / 150) {
		double size = 0.04 + 0.16 * unit(seed, 3, g, (uint64_t)s);
		v *= unit(seed, 4, g, (uint64_t)s) < 0.5 ? 1 + size : 1 / (1 + size);
	}
	return v;
}

static int64_t harness(size_t g, int64_t seq, int64_t ncommits)
{
	return (g / (NBENCHMARKS * NCONFIGS)) % 2 && seq >= ncommits / 2 ? 4 : 3;
}

/* One record of group g at commit seq, whose Series' level (before the harness bump) is lv. */
static int add_record(struct ingest_batch *batch, uint64_t seed, size_t g, int64_t seq,
		      int64_t ncommits, double lv, struct bl_error *err)
{
	struct ingest_record *rec;
	struct ingest_metric *m;
	size_t mi = g / (NBENCHMARKS * NCONFIGS), bi = (g / NCONFIGS) % NBENCHMARKS,
	       ci = g % NCONFIGS;
	char name[64], content[41];
	double median;

	ALLOC_GROW(batch->records, batch->nr, batch->alloc);
	rec = &batch->records[batch->nr++];
	memset(rec, 0, sizeof(*rec));
	snprintf(name, sizeof(name), "bench-m%02zu", mi);
	rec->machine = xstrdup(name);
	snprintf(name, sizeof(name), "scene-%02zu", bi);
	rec->benchmark = xstrdup(name);
	rec->config = xstrdup(configs[ci]);
	hex40(content, 'b', bi < 10 && seq >= ncommits / 4 ? 2 : 1);
	content[32] = '\0';
	rec->content_hash = xstrdup(content);
	rec->harness_version = harness(g, seq, ncommits);
	commit_of(rec->commit, seq);
	source_of(rec->source_hash, seq);
	rec->branch = xstrdup("main");
	rec->committed_at = T0 + (double)seq * 3600;
	rec->started_at = rec->committed_at + 600 + (double)g;
	rec->nmetrics = 1;
	rec->metrics = xcalloc(1, sizeof(*rec->metrics));
	if (harness(g, seq, ncommits) == 4)
		lv *= 1.2;
	median = lv * (1 + 0.01 * (2 * unit(seed, 5, g, (uint64_t)seq) - 1));
	if (unit(seed, 6, g, (uint64_t)seq) < 1.0 / 300)
		median *= 1 + (unit(seed, 7, g, (uint64_t)seq) < 0.5 ? -1 : 1) *
				  (0.05 + 0.04 * unit(seed, 8, g, (uint64_t)seq));
	m = &rec->metrics[0];
	m->name = xstrdup("frame_us");
	m->kind = METRIC_TIMED;
	m->unit = xstrdup("us");
	m->median = round(median * 10) / 10;
	m->p95 = round(median * 1.02 * 10) / 10;
	m->value = NAN;
	m->n = 30;
	if (tip_samples > 0 && seq == tip_seq)
		add_samples(m, seed, g, seq, median);
	return ingest_record_finish(rec, NULL, err);
}

static int add_commit(struct store *st, int64_t seq, struct bl_error *err)
{
	struct store_commit c;
	memset(&c, 0, sizeof(c));
	commit_of(c.sha, seq);
	c.seq = seq;
	if (seq)
		commit_of(c.parent, seq - 1);
	source_of(c.source_hash, seq);
	c.committed_at = (int64_t)(T0 + (double)seq * 3600);
	c.subject = "bench: a commit";
	return store_insert_commit(st, &c, err);
}

/* Commit seq: the commit row, then one record per group, in one transaction each. */
static int write_commit(struct store *st, uint64_t seed, size_t groups, int64_t seq,
			int64_t ncommits, const double *levels, struct bl_error *err)
{
	struct ingest_batch batch = {NULL, 0, 0};
	int ret;
	if ((ret = store_begin(st, err)))
		return ret;
	if ((ret = add_commit(st, seq, err))) {
		store_rollback(st);
		return ret;
	}
	if ((ret = store_commit(st, err)))
		return ret;
	for (size_t g = 0; g < groups; g++)
		if ((ret = add_record(&batch, seed, g, seq, ncommits, levels[g], err)))
			goto done;
	ret = ingest_store(st, &batch, NULL, NULL, NULL, err);
done:
	ingest_batch_release(&batch);
	return ret;
}

int main(int argc, char **argv)
{
	struct store *st = NULL;
	struct bl_error err = BL_ERROR_INIT;
	long groups = 1000, commits = 1000, seed = 1;
	int append = 0, ret = 0;
	const char *db = NULL, *head_commit = NULL, *head_source = NULL;
	double shift = 1;
	double *levels = NULL;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--append"))
			append = 1;
		else if (!strcmp(argv[i], "--groups") && i + 1 < argc)
			groups = strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--commits") && i + 1 < argc)
			commits = strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--revs") && i + 1 < argc) {
			if (read_revs(argv[++i])) {
				fprintf(stderr, "gen_history: cannot read '%s'\n", argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--tip-samples") && i + 1 < argc)
			tip_samples = strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--shift") && i + 1 < argc)
			shift = strtod(argv[++i], NULL);
		else if (!strcmp(argv[i], "--head") && i + 2 < argc) {
			head_commit = argv[++i];
			head_source = argv[++i];
		} else if (!db && argv[i][0] != '-')
			db = argv[i];
		else {
			fprintf(stderr,
				"usage: gen_history DB [--groups G] [--commits N] [--seed S] "
				"[--append]\n");
			return 2;
		}
	}
	if (!db || groups < 1 || groups > NMACHINES * NBENCHMARKS * NCONFIGS || commits < 1) {
		fprintf(stderr, "gen_history: need a database, 1 <= groups <= %d, commits >= 1\n",
			NMACHINES * NBENCHMARKS * NCONFIGS);
		return 2;
	}
	git_libgit2_init();
	levels = xcalloc((size_t)groups, sizeof(*levels));
	for (size_t g = 0; g < (size_t)groups; g++)
		levels[g] = base_level((uint64_t)seed, g);
	if (store_open(&st, db, STORE_CREATE, &err))
		goto fail;
	if (head_commit) {
		/* One record per group at the head, its level the tip's times --shift. */
		struct ingest_batch batch = {NULL, 0, 0};
		char *n = NULL;
		int64_t last;
		if (store_get_meta(&n, st, "bench_commits", &err))
			goto fail;
		commits = n ? strtol(n, NULL, 10) : commits;
		free(n);
		last = commits - 1;
		tip_seq = last;
		for (size_t g = 0; g < (size_t)groups; g++) {
			struct ingest_record *rec;
			for (int64_t s = 0; s <= last; s++)
				levels[g] = step((uint64_t)seed, g, s, levels[g]);
			if (add_record(&batch, (uint64_t)seed, g, last, commits, levels[g] * shift,
				       &err)) {
				ingest_batch_release(&batch);
				goto fail;
			}
			rec = &batch.records[batch.nr - 1];
			snprintf(rec->commit, 41, "%s", head_commit);
			snprintf(rec->source_hash, 41, "%s", head_source);
			free(rec->branch);
			rec->branch = xstrdup("pr");
			free(rec->raw);
			rec->raw = NULL;
			if (ingest_record_finish(rec, NULL, &err)) {
				ingest_batch_release(&batch);
				goto fail;
			}
		}
		ret = ingest_store(st, &batch, NULL, NULL, NULL, &err) ? 1 : 0;
		ingest_batch_release(&batch);
		if (ret)
			goto fail;
		goto done;
	}
	if (append) {
		char tip[41];
		int found;
		int64_t seq;
		char *n = NULL;
		if (store_commit_tip(&found, tip, &seq, st, &err) ||
		    store_get_meta(&n, st, "bench_commits", &err))
			goto fail;
		if (!found || !n) {
			fprintf(stderr, "gen_history: --append needs a generated history\n");
			free(n);
			ret = 2;
			goto done;
		}
		commits = strtol(n, NULL, 10);
		free(n);
		for (size_t g = 0; g < (size_t)groups; g++)
			for (int64_t s = 1; s <= seq + 1; s++)
				levels[g] = step((uint64_t)seed, g, s, levels[g]);
		if (write_commit(st, (uint64_t)seed, (size_t)groups, seq + 1, commits, levels,
				 &err))
			goto fail;
	} else {
		char n[32];
		snprintf(n, sizeof(n), "%ld", commits);
		if (store_set_meta(st, "bench_commits", n, &err))
			goto fail;
		tip_seq = commits - 1;
		for (int64_t seq = 0; seq < commits; seq++) {
			for (size_t g = 0; g < (size_t)groups; g++)
				levels[g] = step((uint64_t)seed, g, seq, levels[g]);
			if (write_commit(st, (uint64_t)seed, (size_t)groups, seq, commits, levels,
					 &err))
				goto fail;
		}
	}
	goto done;
fail:
	fprintf(stderr, "gen_history: %s\n", err.msg.buf);
	ret = 1;
done:
	store_free(st);
	free(levels);
	bl_error_release(&err);
	git_libgit2_shutdown();
	return ret;
}

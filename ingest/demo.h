/*
 * The demo history's ground truth: the steps ingest_demo() plants, so `benchline demo --json`
 * can print them and tests can hold `benchline detect` to them. See docs/demo.md.
 */
#ifndef BENCHLINE_DEMO_H
#define BENCHLINE_DEMO_H

#include <stddef.h>
#include <stdint.h>

#include "ingest.h"

/* The seed `benchline demo` uses without --seed. */
#define INGEST_DEMO_DEFAULT_SEED 42

/* One planted step: from its commit on, the Series' level is (1 + shift) times what it was,
 * for the rest of the history. */
struct ingest_demo_step {
	const char *machine, *benchmark, *config, *metric;
	int64_t seq;	 /* the commit's place on main */
	char commit[41]; /* the commit's SHA for this seed */
	int slower;   /* 1: worse in the metric's direction (every demo metric: lower is better) */
	double shift; /* the planted relative change, e.g. 0.12 for 12% slower */
};

/*
 * The steps ingest_demo(seed) plants, in Series order (machine, benchmark, config, metric,
 * then seq). Fills up to max entries of out (out may be NULL with max 0) and returns how many
 * there are.
 */
size_t ingest_demo_planted(struct ingest_demo_step *out, size_t max, unsigned long seed);

#endif

/*
 * confirm: what turns a Suspect into a Regression (§9): re-benching two builds against each
 * other, interleaved (rebench.c). docs/confirm.md explains the rules.
 */
#ifndef BENCHLINE_DETECT_CONFIRM_H
#define BENCHLINE_DETECT_CONFIRM_H

#include <stddef.h>
#include <stdint.h>

#include "common/common.h"
#include "detect/gate/gate.h"

/* --- The re-bench engine (§9.2, rebench.c) --- */

#define CONFIRM_ROUND_PAIRS   10   /* pairs between two looks at the intervals */
#define CONFIRM_MAX_PAIRS     60   /* pairs in one measurement at the most */
#define CONFIRM_CONFIRMATIONS 3	   /* measurements that must all say slower */
#define CONFIRM_REPLACEMENTS  3	   /* undecided measurements replaced at the most */
#define CONFIRM_LEVEL	      0.99 /* the paired ratios' median interval */
#define CONFIRM_RSS_LIMIT     1.10 /* peak RSS: worse by more than 10% ... */
#define CONFIRM_RSS_MIN_KIB   1024 /* ... and by more than 1 MiB */

enum confirm_side { CONFIRM_SIDE_A, CONFIRM_SIDE_B };

/* How a metric is judged: its paired ratios against the limit, or as peak memory is. */
enum confirm_judge { CONFIRM_JUDGE_RATIO, CONFIRM_JUDGE_RSS };

/* One metric of one sample. */
struct confirm_value {
	const char *key; /* names the metric the same way on both sides */
	double value;	 /* positive and finite to count */
	int better_higher;
	enum confirm_judge judge;
};

/* Takes one sample of side (a build): *values (n of them) stay the callee's, valid until its
 * next call. 0, or an error that ends the re-bench. */
typedef int (*confirm_sample_fn)(struct confirm_value **values, size_t *n, enum confirm_side side,
				 void *data, struct bl_error *err);

/* A metric's standing: after a round (progress) or at the end (the result). */
struct confirm_metric {
	const char *key;
	int better_higher;
	enum gate_verdict verdict; /* SAME, SLOWER, FASTER or UNDECIDED */
	size_t pairs;		   /* in the latest measurement */
	double ratio, lo, hi;	   /* median of b / a and its interval; NAN when none */
	/* How the measurements voted (the result only). */
	size_t measurements, slower_votes, clear_votes, undecided_votes, required;
};

/* Called after each round: measurement is 1-based, pairs of max_pairs taken so far. */
typedef void (*confirm_progress_fn)(int measurement, size_t pairs, size_t max_pairs,
				    const struct confirm_metric *metrics, size_t n, void *data);

struct confirm_rebench_options {
	double limit; /* the bare limit the ratios are judged against (GATE_LIMIT) */
	size_t round_pairs, max_pairs, confirmations, replacements;
};
void confirm_rebench_options_init(struct confirm_rebench_options *o);

struct confirm_rebench_result {
	struct confirm_metric *metrics; /* in the order the first measurement met them */
	size_t n;
	enum gate_verdict verdict;  /* SLOWER when any metric is, else UNDECIDED when any is, else
				       SAME (FASTER metrics count as SAME here) */
	size_t measurements, pairs; /* measurements taken, pairs over all of them */
};

/*
 * Measures side B against side A: measurements of rounds of pairs until every metric is
 * settled (its interval decides) or max_pairs are taken. A metric that a measurement finds
 * slower is measured again from scratch, and is SLOWER only when `confirmations` measurements
 * say so and none says otherwise; one measurement that is not slower (same or faster) decides
 * it; an UNDECIDED measurement counts for nothing and is followed by another, at most
 * `replacements` times. Samples are taken through sample; progress (may be NULL) after each
 * round.
 */
int confirm_rebench(struct confirm_rebench_result *out, const struct confirm_rebench_options *o,
		    confirm_sample_fn sample, confirm_progress_fn progress, void *data,
		    struct bl_error *err);
void confirm_rebench_release(struct confirm_rebench_result *r);

#endif

/*
 * bench: measuring (§9.2, §9.6, §9.7). Its files: callgrind.c, benchline's own reader of the
 * callgrind format, which the deterministic counters total and the profiles rank.
 */
#ifndef BENCHLINE_INGEST_BENCH_H
#define BENCHLINE_INGEST_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "common/common.h"

/* One function of a callgrind profile: its cost in the first event (Ir, instructions), in its
 * own code and with everything it called, summed over every part of the file. */
struct bench_profile_fn {
	char *name, *file, *object; /* "???" where callgrind did not know */
	uint64_t self, inclusive;
};

/* A callgrind file as bench_profile_parse read it. */
struct bench_profile {
	char **events; /* the events: line's names; events[0] is what the costs count */
	size_t nevents, events_alloc;
	uint64_t total; /* the first event's total: totals: or summary:, else every self cost */
	int has_total;	/* the file said it (a file without one is summed) */
	char *cmd;	/* the cmd: line, NULL when none */
	struct bench_profile_fn *fns;
	size_t nfns, fns_alloc;
};
void bench_profile_init(struct bench_profile *p);
void bench_profile_release(struct bench_profile *p);
/*
 * Reads a callgrind file's bytes (file names it in messages). BL_EINVALID, with
 * "FILE:LINE: what is wrong", for anything the format does not allow (a cost line before
 * events: or fn=, a name used before it is given, a calls= without its cost line, a number
 * that is not one); nothing is kept then.
 */
int bench_profile_parse(struct bench_profile *out, const char *file, const char *data, size_t len,
			struct bl_error *err);

#endif

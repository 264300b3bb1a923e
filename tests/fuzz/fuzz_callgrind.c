/*
 * libFuzzer target for benchline's reader of the callgrind format (§9.6, §9.7): a file is
 * either a profile whose numbers hold together (every function's inclusive cost at least its
 * self cost, the self costs summing to the total when the file gave none) or a message naming
 * the file.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/common.h"
#include "ingest/bench/bench.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bl_error err = BL_ERROR_INIT;
	struct bench_profile p;
	if (!bench_profile_parse(&p, "cg.out", (const char *)data, size, &err)) {
		uint64_t sum = 0;
		if (!p.nevents)
			__builtin_trap();
		for (size_t i = 0; i < p.nfns; i++) {
			if (p.fns[i].inclusive < p.fns[i].self || !p.fns[i].name)
				__builtin_trap();
			sum += p.fns[i].self;
		}
		if (!p.has_total && sum != p.total)
			__builtin_trap();
		bench_profile_release(&p);
	} else if (strncmp(err.msg.buf, "cg.out", 6)) {
		__builtin_trap();
	}
	bl_error_release(&err);
	return 0;
}

/*
 * What every text-reading libFuzzer target does first with its input (tests/fuzz/run.sh):
 * libgit2 started once, and the input copied to a buffer of its own size without a
 * terminating NUL, so a reader that goes past the end is caught by AddressSanitizer.
 */
#ifndef FUZZ_INPUT_H
#define FUZZ_INPUT_H

#include <git2.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input's copy (free it), NULL when out of memory. */
static char *fuzz_input(const uint8_t *data, size_t size)
{
	static int initialized;
	char *text = malloc(size ? size : 1);

	if (!initialized) {
		git_libgit2_init();
		initialized = 1;
	}
	if (text && size)
		memcpy(text, data, size);
	return text;
}

#endif

/* libFuzzer target for the catch2 adapter (Catch2's XML and its small XML reader): the shared body
 * is in fuzz_adapter.h. */
#define FORMAT "catch2"
#include "fuzz_adapter.h"

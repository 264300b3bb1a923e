/* libFuzzer target for the bmf adapter: the shared body is in fuzz_adapter.h. */
#define FORMAT "bmf"
#include "fuzz_adapter.h"

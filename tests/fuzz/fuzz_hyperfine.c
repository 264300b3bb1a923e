/* libFuzzer target for the hyperfine adapter: the shared body is in fuzz_adapter.h. */
#define FORMAT "hyperfine"
#include "fuzz_adapter.h"

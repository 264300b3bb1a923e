/* libFuzzer target for the jmh adapter: the shared body is in fuzz_adapter.h. */
#define FORMAT "jmh"
#include "fuzz_adapter.h"

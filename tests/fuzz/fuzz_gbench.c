/* libFuzzer target for the gbench adapter: the shared body is in fuzz_adapter.h. */
#define FORMAT "gbench"
#include "fuzz_adapter.h"

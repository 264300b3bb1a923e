/* libFuzzer target for the gotest adapter: the shared body is in fuzz_adapter.h. */
#define FORMAT "gotest"
#include "fuzz_adapter.h"

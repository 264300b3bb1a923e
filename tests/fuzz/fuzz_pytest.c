/* libFuzzer target for the pytest adapter: the shared body is in fuzz_adapter.h. */
#define FORMAT "pytest"
#include "fuzz_adapter.h"

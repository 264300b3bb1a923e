/* libFuzzer target for Bencher's perf JSON (benchline import --from bencher): the shared body
 * is in fuzz_history.h. */
#define READ adapters_history_bencher
#include "fuzz_history.h"

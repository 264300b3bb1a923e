/* libFuzzer target for github-action-benchmark's data.js (benchline import --from gab): the
 * shared body is in fuzz_history.h. */
#define READ adapters_history_gab
#include "fuzz_history.h"

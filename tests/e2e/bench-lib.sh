# Helpers for the re-bench's end-to-end tests (worktrees, rebench, bisect): a real benchmark
# program in a temporary git repository.
#
#   . "$(dirname "$0")/lib.sh"
#   . "$TESTS_DIR/e2e/bench-lib.sh"
#   bench_program repo/bench.c 2000000 wall_ns   # a loop of WORK iterations, timed
#   c1=$(commit 'a benchmark')                   # commits everything in ./repo, prints the id

# bench_program FILE WORK MEASURE: a C program that runs WORK iterations of a loop and prints
# how long they took, in nanoseconds, as BMF: {"loop": {"wall_ns": N}} for the measure
# "wall_ns", else {"loop": {MEASURE: {"value": N}, "work": {"value": WORK}}}: "work" is a
# figure no machine state can move, for the tests whose verdicts must not depend on timing.
# `#define WORK` is on a line of its own, so a test can change it with sed.
bench_program() {
	work=", WORK"
	if [ "$3" = wall_ns ]; then
		work=
		fmt='{\"loop\": {\"wall_ns\": %ld}}\n'
	else
		fmt="{\\\"loop\\\": {\\\"$3\\\": {\\\"value\\\": %ld}, \\\"work\\\": {\\\"value\\\": %d}}}\\n"
	fi
	cat >"$1" <<EOC
#include <stdio.h>
#include <time.h>
#ifndef WORK
#define WORK $2
#endif
int main(void)
{
	struct timespec a, b;
	volatile unsigned long s = 0;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (unsigned long i = 0; i < WORK; i++)
		s += i * i;
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("$fmt",
	       (long)((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec))$work);
	return 0;
}
EOC
}

# commit MESSAGE: commits everything in ./repo and prints the commit's id.
commit() {
	git -C repo add -A . && git -C repo commit -q -m "$1" && git -C repo rev-parse HEAD
}

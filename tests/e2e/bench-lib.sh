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

# bench_repo: ./repo, a repository of the benchmark program (2,000,000 iterations; its
# measures "latency" and "work"), docs/notes.md beside it and a .gitignore of the build and
# benchline.json, committed as 'a benchmark' with the commit's id in ./c0. docs/ and
# .gitignore are for benchline.json's unmeasured_paths.
bench_repo() {
	git init -q repo &&
		mkdir repo/docs &&
		bench_program repo/bench.c 2000000 latency &&
		echo notes >repo/docs/notes.md &&
		printf 'bench\nbenchline.json\n' >repo/.gitignore &&
		commit 'a benchmark' >c0
}

# comment_commits FROM TO: one comment-only commit ("comment N": a new source, the same work)
# per N from FROM to TO, each id in ./kN.
comment_commits() {
	k=$1
	while [ "$k" -le "$2" ]; do
		echo "/* comment $k */" >>repo/bench.c &&
			commit "comment $k" >k$k || return 1
		k=$((k + 1))
	done
}

# more_work: the benchmark does 15% more iterations (2,300,000), not yet committed.
more_work() {
	sed 's/^#define WORK 2000000$/#define WORK 2300000/' repo/bench.c >repo/bench.c.new &&
		mv repo/bench.c.new repo/bench.c
}

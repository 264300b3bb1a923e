#!/bin/sh
# benchline rebench (§9.2) on a real benchmark program in a real repository: a build 15%
# slower is slower by three measurements that agree; identical code is not slower;
# byte-identical artifacts measure nothing; a side that cannot be built exits 125.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/e2e/bench-lib.sh"

# repo: c1 a benchmark, c2 docs only (the same binary), c3 15% more work per run, c4 broken.
(
	set -e
	git init -q repo
	mkdir repo/docs
	bench_program repo/bench.c 2000000 latency
	echo notes >repo/docs/notes.md
	echo bench >repo/.gitignore
	commit 'a benchmark' >c1
	echo 'more notes' >>repo/docs/notes.md
	commit 'docs only' >c2
	sed 's/^#define WORK 2000000$/#define WORK 2300000/' repo/bench.c >repo/bench.c.new
	mv repo/bench.c.new repo/bench.c
	grep -q 2300000 repo/bench.c
	commit '15% more work' >c3
	echo 'this is not C' >>repo/bench.c
	commit 'broken' >c4
) >setup.log 2>&1 || { cat setup.log; echo 'Bail out! cannot build the test repository'; exit 1; }
c1=$(cat c1) c2=$(cat c2) c3=$(cat c3) c4=$(cat c4)
settings() { # settings EXTRA-KEYS: benchline.json in the main checkout's working tree
	printf '{"bench": {"build": "cc -O2 -o bench bench.c", "run": "./bench", "processes": 1%s}}\n' \
		"$1" >repo/benchline.json
}

# The program also prints its iteration count as "work", a figure no machine state moves: the
# verdicts asserted are its, so no test here depends on how busy the machine is.
test_expect 'a build doing 15% more work is slower: three measurements agree (exit 1)' '
	settings "" &&
	expect_exit 1 bl rebench --repo repo --json "$c1" "$c3" >out.json 2>err &&
	json_get out.json "\$j->{verdict}" >actual &&
	echo slower >expect && test_cmp expect actual &&
	json_get out.json "my (\$m) = grep { \$_->{key} eq q(loop work) } @{\$j->{metrics}}; join q( ), \$m->{verdict}, \$m->{slower_votes}, \$m->{clear_votes}, \$m->{ratio}, \$m->{ci_low}, \$m->{ci_high}" >actual &&
	echo "slower 3 0 1.15 1.15 1.15" >expect && test_cmp expect actual &&
	json_get out.json "join q( ), \$j->{a}{commit}, \$j->{b}{commit}" >actual &&
	echo "$c1 $c3" >expect && test_cmp expect actual
'
test_expect '§14'"'"'s view: status, and the metrics grouped by benchmark with both medians' '
	json_get out.json "my \$w = \$j->{benchmarks}[0]; my \$m = \$w->{metrics}{work};
		join q( ), \$j->{status}, \$w->{name}, sort(keys %{\$w->{metrics}}), \$m->{verdict},
		\$m->{a}, \$m->{b}, @{\$m->{interval}}, \$m->{limit}, \$j->{benchmarks}[1]{name}" >actual &&
	echo "slower loop latency work slower 2000000 2300000 1.15 1.15 1.02 bench.run" >expect &&
	test_cmp expect actual
'
test_expect 'progress on stderr, one line per round, and a one-line summary' '
	grep -q "^rebench: measurement 1, pair 10/60 (pairs 10 of at most [0-9]*, at most [0-9hms ]* left): " err &&
	grep -q "loop latency [0-9.]* \[[0-9.]*, [0-9.]*\]" err &&
	tail -1 err | grep -q "^rebench: slower: $(echo $c3 | cut -c1-12) against $(echo $c1 | cut -c1-12), [0-9]* measurements, [0-9]* pairs$"
'
test_expect 'every sample also measures the runs'"'"' CPU time and peak RSS' '
	json_get out.json "join q( ), sort map { \$_->{key} } @{\$j->{metrics}}" >actual &&
	echo "cpu_s loop latency loop work peak_rss_kib" >expect && test_cmp expect actual
'
test_expect 'identical code: its work is the same, and it is not slower (exit 0)' '
	bl rebench --repo repo --json "$c1" "$c2" >aa.json 2>err &&
	json_get aa.json "my (\$m) = grep { \$_->{key} eq q(loop work) } @{\$j->{metrics}}; join q( ), \$m->{verdict}, \$m->{ratio}" >actual &&
	echo "same 1" >expect && test_cmp expect actual
'
test_expect 'the table names each metric with its verdict, ratio and interval' '
	bl rebench --repo repo "$c1" "$c2" >table 2>err &&
	head -1 table | tr -s " " >actual &&
	echo "verdict ratio 99% interval pairs metric" >expect &&
	test_cmp expect actual &&
	grep -q "^[a-z]* *[0-9.]* *\[[0-9.]*, [0-9.]*\] *[0-9]*  loop latency$" table
'
test_expect 'byte-identical artifacts: nothing is measured (exit 0)' '
	settings ", \"artifacts\": [\"bench\"]" &&
	bl rebench --repo repo --json "$c1" "$c2" >same.json 2>err &&
	json_get same.json "join q( ), \$j->{identical_artifacts} ? 1 : 0, \$j->{measurements}, \$j->{pairs}, \$j->{verdict}" >actual &&
	echo "1 0 0 same" >expect && test_cmp expect actual &&
	json_get same.json "\$j->{status}" >actual &&
	echo identical >expect && test_cmp expect actual &&
	grep -q "^rebench: same: the artifacts of .* are byte-identical (1 file), so nothing can differ; nothing measured$" err
'
test_expect 'a side that cannot be built exits 125 and says why' '
	settings "" &&
	expect_exit 125 bl rebench --repo repo "$c1" "$c4" >out 2>err &&
	grep -q "cannot build in .*\.benchline/worktrees/b.*bench.build exited with status" err &&
	test_cmp /dev/null out
'
test_expect '--benchmark keeps only the matching benchmarks (and the runs'"'"' own figures)' '
	bl rebench --repo repo --json --benchmark "nothing*" "$c1" "$c2" >only.json 2>err &&
	json_get only.json "join q( ), sort map { \$_->{key} } @{\$j->{metrics}}" >actual &&
	echo "cpu_s peak_rss_kib" >expect && test_cmp expect actual
'
test_expect 'usage errors and a missing bench.run exit 2' '
	expect_exit 2 bl rebench --repo repo "$c1" 2>err &&
	grep -q "give two revisions" err &&
	expect_exit 2 bl rebench --repo repo --limit 0.5 "$c1" "$c2" 2>err &&
	grep -q "limit is a ratio above 1 and at most 10" err &&
	echo "{}" >repo/benchline.json &&
	expect_exit 2 bl rebench --repo repo "$c1" "$c2" 2>err &&
	grep -q "bench.run: not set" err &&
	settings "" &&
	expect_exit 2 bl rebench --repo repo "$c1" no-such-rev 2>err &&
	grep -q "no-such-rev" err
'
test_done

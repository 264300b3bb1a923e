#!/bin/sh
# The stored gate's labels (§7.3) and its undecided rows (§7.8), on a real repository of a real
# benchmark program: an interval wholly below 1 is FASTER however wide, UNDECIDED is only an
# interval straddling the effective limit L, one ending at or under L passes however low it
# starts; the undecided count in the table's last line, the comment's headline and the JSON;
# --undecided fail makes them fail (exit 1); --undecided with anything else is a usage error.
#
# The records are written by hand, with samples spread on purpose (tests/e2e/gate-rec.pl), so
# every interval is known: no verdict here depends on how busy the machine is.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/e2e/bench-lib.sh"

# rec REV MACHINE BENCHMARK METRIC MEDIAN SPREAD: a record of MACHINE/BENCHMARK measured at REV
# in ./repo, METRIC (in ns) with 20 samples spread below MEDIAN by up to SPREAD of it.
rec() {
	set -- "$@" $(bl hash --repo repo "$1")
	perl "$TESTS_DIR/e2e/gate-rec.pl" "$2" "$3" "$4" "$5" "$6" ns "$7" "$8" "$1"
}

# main: the benchmark, then five commits measured with medians 1000, 1100, 900, 1050 and 950
# ns of three benchmarks, so each one's reference window (the reference, 950, and the four
# before it) has the center 1000 and the MAD 50: tolerance 4 * 50 = 200, L = 1 + 200 / 1000 =
# 1.2 (and 1 / L = 0.833). The branch pr is measured once: faster 22% faster, loose 21% slower
# but spread wide, steady 2% faster spread as wide.
test_expect 'setup: main with 5 measured commits of 3 benchmarks, a pull request measured once' '
	git init -q -b main repo &&
	bench_program repo/bench.c 2000000 latency &&
	printf "bench\n.benchline/\n" >repo/.gitignore &&
	echo "{\"measured_paths\": [\"bench.c\"], \"unmeasured_paths\": [\".gitignore\", \"benchline.json\"]}" \
		>repo/benchline.json &&
	git -C repo add -A && git -C repo commit -qm "a benchmark" &&
	: >recs.json &&
	for median in 1000 1100 900 1050 950; do
		echo "/* main $median */" >>repo/bench.c &&
		git -C repo commit -qam "main $median" &&
		for b in faster loose steady; do
			rec main box $b wall_ns $median 0.3 >>recs.json || exit 1
		done
	done &&
	git -C repo checkout -qb pr &&
	echo "/* the pull request */" >>repo/bench.c && git -C repo commit -qam "the pull request" &&
	rec pr box faster wall_ns 740 0.3 >>recs.json &&
	rec pr box loose wall_ns 1150 0.5 >>recs.json &&
	rec pr box steady wall_ns 930 0.5 >>recs.json &&
	bl init >/dev/null && bl ingest recs.json >ingest.out &&
	test "$(grep -c ": stands" ingest.out)" = 18 &&
	! grep -q noisy ingest.out
'

row() { # row FILE BENCHMARK EXPR: EXPR of the wall_ns row ($c) of the JSON report FILE
	json_get "$1" "my (\$c) = grep { \$_->{benchmark} eq q($2) } @{\$j->{comparisons}}; $3"
}

test_expect 'the labels: FASTER below 1, UNDECIDED across L, PASS under L however low it starts' '
	bl gate --repo repo --head pr --json labels.json --markdown labels.md >out &&
	cat out &&
	grep -q "^FASTER  *0\.7[0-9]*  *\[0\.7[0-9]*, 0\.8[3-9][0-9]*\]  *1\.2000 5\.0%  *box/faster wall_ns$" out &&
	grep -q "^UNDECIDED 1\.2[0-9]*  *\[0\.9[0-9]*, 1\.2[1-9][0-9]*\]  *1\.2000 5\.0%  *box/loose wall_ns$" out &&
	grep -q "^PASS  *0\.9[0-9]*  *\[0\.8[0-2][0-9]*, 1\.0[0-9]*\]  *1\.2000 5\.0%  *box/steady wall_ns$" out &&
	for b in faster loose steady; do
		row labels.json $b "join q( ), @\$c{qw(status label verdict effective_limit)}" || exit 1
	done >actual &&
	printf "%s\n" "PASS FASTER faster 1.2" "UNDECIDED UNDECIDED undecided 1.2" \
		"PASS PASS same 1.2" >expect &&
	test_cmp expect actual
'
test_expect 'the intervals are the ones the labels are about: below 1, across L, from under 1 / L' '
	row labels.json faster "die unless \$c->{ci_high} < 1 && \$c->{ci_high} > 1 / 1.2; 1" &&
	row labels.json loose "die unless \$c->{ci_low} <= 1.2 && \$c->{ci_high} > 1.2; 1" &&
	row labels.json steady "die unless \$c->{ci_low} < 1 / 1.2 && \$c->{ci_high} <= 1.2; 1"
'

test_expect 'undecided rows never hide: the last line, the JSON and the comment'"'"'s headline count them' '
	test "$(tail -1 out)" = "gate: pass, 1 undecided: measured too loosely to tell" &&
	json_get labels.json "join q( ), @\$j{qw(status passed exit_code failures undecided undecided_policy)}, \$j->{counts}{UNDECIDED}" >actual &&
	echo "pass 1 0 0 1 pass 1" >expect && test_cmp expect actual &&
	sed -n 2p labels.md >actual &&
	echo "### benchline gate: PASS, 1 undecided: measured too loosely to tell" >expect &&
	test_cmp expect actual
'

test_expect 'the comment lists the FASTER row, counts the undecided one, and calls neither unchanged' '
	sed "/^<details>/,\$d" labels.md >look.md &&
	grep -q "^| FASTER | faster | wall_ns | box | 950 → 740 ns | " look.md &&
	! grep -q "^| UNDECIDED |" look.md &&
	grep -q "^| UNDECIDED | loose | wall_ns | box |" labels.md &&
	grep -q "^1 other metric within its limits; 1 undecided: measured too loosely to tell (the interval straddles the limit; every row is in the details below)\.$" look.md &&
	! grep -q unchanged labels.md &&
	grep -q "^Undecided rows were measured too loosely to tell between stored runs: .benchline gate --settle. measures them" labels.md
'

test_expect '--undecided fail: the undecided row fails the gate, exit 1, and everything says why' '
	expect_exit 1 bl gate --repo repo --head pr --undecided fail --json strict.json \
		--markdown strict.md >strict.out &&
	test "$(tail -1 strict.out)" = "gate: fail (1 failing), 1 undecided: measured too loosely to tell, failing under --undecided fail" &&
	grep -q "^UNDECIDED .* box/loose wall_ns$" strict.out &&
	json_get strict.json "join q( ), @\$j{qw(status passed exit_code failures undecided undecided_policy)}" >actual &&
	echo "fail 0 1 1 1 fail" >expect && test_cmp expect actual &&
	test "$(json_get repo/.benchline/gate-status.json "join q( ), \$j->{passed} ? 1 : 0, \$j->{failures}")" = "0 1" &&
	grep -q "^### benchline gate: FAIL, 1 undecided: measured too loosely to tell, failing under --undecided fail$" strict.md &&
	grep -q "1 failing of 3 compared metrics (1 of them undecided, failing under .--undecided fail.)\.$" strict.md &&
	sed "/^<details>/,\$d" strict.md | grep -q "^| UNDECIDED | loose | wall_ns | box |"
'

test_expect '--undecided pass is the default; --bisect-exit keeps the fail a fail' '
	bl gate --repo repo --head pr --undecided pass >pass.out &&
	test_cmp out pass.out &&
	expect_exit 1 bl gate --repo repo --head pr --undecided fail --bisect-exit >/dev/null
'

test_expect '--undecided with anything but pass or fail is a usage error: exit 2, nothing written' '
	rm -f repo/.benchline/gate-status.json &&
	expect_exit 2 bl gate --repo repo --head pr --undecided maybe >maybe.out 2>maybe.err &&
	test ! -s maybe.out &&
	head -1 maybe.err >actual &&
	echo "benchline: --undecided takes pass or fail, not '"'"'maybe'"'"'" >expect &&
	test_cmp expect actual &&
	grep -q "^usage: benchline gate" maybe.err &&
	! test -e repo/.benchline/gate-status.json
'

test_done

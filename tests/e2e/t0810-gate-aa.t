#!/bin/sh
# The gate's false-failure rate (§7.3): 200 A/A pull requests, each a new commit off main's tip
# whose sweep is drawn from the same distribution as main's (another seed), gated one by one.
# Between stored runs the machine's state moves a whole run, which is why the effective limit
# follows the Series' own run-to-run noise: at most 2 of the 200 may fail, and none may end in
# an error or without a verdict. Then the same history must still catch a real 10% slowdown.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/e2e/gate-lib.sh"

TRIALS=200

test_expect 'setup: main with 10 measured commits of 4 benchmarks' '
	gate_main aa 10 --benchmarks 4 &&
	test "$(gbl aa records --json | json_get - "scalar @\$j")" = 40
'

# trial SEED GEN-ARGS...: one pull request off main with its own sweep, gated; appends
# "SEED EXIT FAILS UNDECIDED" to trials.
trial() {
	seed=$1
	shift
	gate_branch aa pr &&
		gate_change aa "trial $seed" &&
		gate_sweep aa "$seed" "$@" || return 1
	gate_run aa --json "$TMP/trial.json" >trial.out 2>trial.err
	rc=$?
	echo "$seed $rc $(gate_rows trial.out FAIL) $(gate_rows trial.out UNDECIDED)" >>trials
	if [ $rc = 1 ]; then
		sed "s/^/$seed: /" trial.out >>failures
	fi
	return 0
}

test_expect "$TRIALS A/A pull requests, each gated" '
	: >trials && : >failures &&
	seed=1001 &&
	while [ $seed -le $((1000 + TRIALS)) ]; do
		trial $seed || exit 1
		seed=$((seed + 1))
	done &&
	test "$(wc -l <trials)" = $TRIALS
'

test_expect 'every A/A gate ended in pass or fail (exit 0 or 1), never an error or no verdict' '
	awk "\$2 != 0 && \$2 != 1 { print; bad = 1 } END { exit bad }" trials
'

test_expect 'at most 2 of the A/A gates failed' '
	fails=$(awk "\$2 == 1" trials | wc -l) &&
	echo "$fails false failures of $TRIALS" &&
	cat failures &&
	test "$fails" -le 2
'

# The rows of the failing gates, the count of UNDECIDED rows, for the log.
echo "# A/A: $(awk '$2 == 1' trials | wc -l) failing gates of $TRIALS," \
	"$(awk '{ n += $3 } END { print n + 0 }' trials) failing rows," \
	"$(awk '{ n += $4 } END { print n + 0 }' trials) undecided rows of $((TRIALS * 4))"
sed 's/^/# /' failures

test_expect 'the A/A rows were judged by their samples against an effective limit of 1.03 or more' '
	json_get trial.json "die qq(no row\n) unless @{\$j->{comparisons}}; for (@{\$j->{comparisons}}) {
		die unless \$_->{method} eq q(hodges-lehmann) && \$_->{effective_limit} >= 1.03 - 1e-12
			&& \$_->{window} == 8 && \$_->{reference_rule} eq q(merge-base) } 1"
'

# Not a gate that passes everything: the same history, a real 10% slowdown of one benchmark.
test_expect 'an A/A comment lists no undecided row, only counts them, in its headline too' '
	seed=3001 &&
	while :; do
		trial $seed || exit 1
		test "$(gate_rows trial.out UNDECIDED)" -gt 0 && break
		seed=$((seed + 1))
		test $seed -le 3050 || { echo "no undecided row in 50 trials"; exit 1; }
	done &&
	gate_run aa --markdown "$TMP/aa.md" >/dev/null &&
	sed "/^<details>/,\$d" "$TMP/aa.md" >look.md &&
	! grep -q "^| UNDECIDED |" look.md &&
	grep -q "^| UNDECIDED |" "$TMP/aa.md" &&
	grep -q "undecided: measured too loosely to tell (the interval straddles the limit" "$TMP/aa.md" &&
	grep -q "^### benchline gate: PASS, [1-9][0-9]* undecided: measured too loosely to tell$" "$TMP/aa.md"
'

test_expect 'the same history fails each of 20 pull requests with a 10% slowdown of one benchmark' '
	: >trials && : >failures &&
	seed=2001 &&
	while [ $seed -le 2020 ]; do
		trial $seed --shift 1.10 --shift-only bench_02 || exit 1
		seed=$((seed + 1))
	done &&
	test "$(awk "\$2 == 1 && \$3 == 1" trials | wc -l)" = 20 &&
	test "$(grep -c "^[0-9]*: FAIL .* ci-1/bench_02 wall_ns$" failures)" = 20
'

test_done

#!/bin/sh
# benchline confirm (§9.4) on a real benchmark program swept every other commit: the one alert
# detection raises is re-benched against its reference, confirmed, bisected to exactly the
# commit that did 15% more work and stored as one Regression that covers it; a second run does
# nothing; detect then starts a `pinned` line there. A step marked one record late is
# re-benched against the last record inside its band and pinned at the true commit. An
# excursion the history already shows to be transient is not measured; a reference that cannot
# be built leaves the alert unbuildable. The metric judged is the program's iteration count
# ("work"), so no verdict depends on how busy the machine is.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/e2e/bench-lib.sh"

# c0; k1..k10 comments (new sources, the same work); d1 docs; s1 15% more work (#42);
# k11..k20 comments.
(
	set -e
	bench_repo
	comment_commits 1 10
	echo 'more notes' >>repo/docs/notes.md
	commit 'docs only' >d1
	more_work
	commit '15% more work (#42)' >s1
	comment_commits 11 20
) >setup.log 2>&1 || { cat setup.log; echo 'Bail out! cannot build the test repository'; exit 1; }
c0=$(cat c0) s1=$(cat s1)
for k in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do eval "k$k=\$(cat k$k)"; done
cat >repo/benchline.json <<'EOF2'
{"measured_paths": ["bench.c"], "unmeasured_paths": ["docs", ".gitignore"],
 "metrics": ["work"],
 "bench": {"build": "cc -O2 -o bench bench.c", "run": "./bench", "processes": 1,
           "artifacts": ["bench"]}}
EOF2

# sweep DB COMMIT [WORK]: what a nightly sweep stores for COMMIT on machine m1: the program
# built and run there (or, with WORK, a result saying it did WORK iterations), ingested.
sweep() {
	git -C repo checkout -q "$2" &&
		if [ $# -ge 3 ]; then
			echo "{\"loop\": {\"latency\": {\"value\": 1000}, \"work\": {\"value\": $3}}}" >night.json
		else
			(cd repo && cc -O2 -o bench bench.c && ./bench) >night.json
		fi &&
		bl --db "$1" ingest --format bmf --repo repo --machine m1 --harness-version 1 night.json >/dev/null
}

main_branch=$(git -C repo symbolic-ref --short HEAD)

test_expect 'setup: every other commit swept, synced and detected: one open slower alert' '
	for c in $c0 $k2 $k4 $k6 $k8 $k10 $k12 $k14 $k16 $k18 $k20; do sweep s.db $c || return 1; done &&
	git -C repo checkout -q "$main_branch" &&
	bl --db s.db sync --repo repo >/dev/null &&
	bl --db s.db detect --repo repo >/dev/null &&
	bl --db s.db alerts --json >alerts.json &&
	json_get alerts.json "join q( ), scalar @\$j, \$j->[0]{commit}, \$j->[0]{reference_commit}, \$j->[0]{state}" >actual &&
	echo "1 $k12 $k10 open" >expect &&
	test_cmp expect actual
'

test_expect 'confirm re-benches the alert, bisects it and stores exactly one Regression at the step' '
	bl --db s.db confirm --repo repo --machine m1 --json >c.json 2>err &&
	json_get c.json "join q( ), scalar @\$j, \$j->[0]{outcome}, scalar @{\$j->[0]{regressions}}, \$j->[0]{rebench}{status}" >actual &&
	echo "1 confirmed 1 slower" >expect &&
	test_cmp expect actual &&
	bl --db s.db regressions --json >r.json &&
	json_get r.json "join q( ), scalar @\$j, \$j->[0]{commit}, \$j->[0]{metric}, \$j->[0]{reference_commit}, \$j->[0]{pull_request}" >actual &&
	echo "1 $s1 work $k10 42" >expect &&
	test_cmp expect actual &&
	tail -1 err | grep -q "^confirm: 1 alert: 0 cleared, 0 transient, 1 confirmed (1 Regression), 0 unbuildable, 0 inconclusive$"
'

test_expect 'the alert and its Suspect are covered; a second confirm does nothing' '
	bl --db s.db alerts --json | json_get - "\$j->[0]{state} . q( ) . \$j->[0]{outcome}" >actual &&
	echo "covered confirmed" >expect &&
	test_cmp expect actual &&
	bl --db s.db suspects --json | json_get - "join q( ), map { \$_->{state} } @\$j" >actual &&
	echo covered >expect &&
	test_cmp expect actual &&
	bl --db s.db confirm --repo repo --machine m1 --json >again.json 2>err &&
	echo "[]" >expect &&
	json_get again.json "scalar @\$j ? q(not empty) : q([])" >actual &&
	test_cmp expect actual &&
	grep -q "no open slower alert on .m1." err &&
	bl --db s.db confirm --repo repo --machine m1 1 >out 2>/dev/null &&
	grep -q "^alert 1: confirmed (before): Regression" out
'

test_expect 'triage files the covered alert once: its Regression, the pull request, the probe log' '
	bl --db s.db triage --json >tr.json &&
	json_get tr.json "join q( ), scalar @\$j, \$j->[0]{id}, @{\$j->[0]{regressions}}, @{\$j->[0]{labels}}" >actual &&
	echo "1 1 1 performance needs-triage" >expect &&
	test_cmp expect actual &&
	json_get tr.json "\$j->[0]{title}" | grep -q "loop work.*+15.0%.*m1.*$(echo $s1 | cut -c1-7).*#42" &&
	json_get tr.json "\$j->[0]{body}" >body &&
	grep -q "$s1" body && grep -q "15% more work" body &&
	bl --db s.db triage --mark-filed "1=https://example.org/issues/7" &&
	bl --db s.db triage --json >tr2.json &&
	json_get tr2.json "scalar @\$j" >actual &&
	echo 0 >expect &&
	test_cmp expect actual
'

test_expect 'detect after confirm starts a pinned line at the Regression' '
	bl --db s.db detect --repo repo >/dev/null &&
	bl --db s.db series --json | json_get - "join qq(\n), map { \$_->{reason} . q( ) . \$_->{start_commit} } map { @{\$_->{lines}} } grep { \$_->{metric} eq q(work) } @\$j" >actual &&
	printf "first %s\npinned %s\n" "$c0" "$k12" >expect &&
	test_cmp expect actual
'

# Record k3 claims 2,300,000 iterations: an excursion (k4 is back) whose Suspect is transient.
# From k11 on the step is real, but k11 continues k3'"'"'s level while k3 is in its window (the 8
# records before it), so it is not marked; k12 is, one record late, with k11 (already on the
# new level) just before it: its reference is k10.
test_expect 'a step marked one record late is re-benched against the last record inside its band' '
	for c in $c0 $k1 $k2; do sweep late.db $c || return 1; done &&
	sweep late.db $k3 2300000 &&
	for c in $k4 $k5 $k6 $k7 $k8 $k9 $k10 $k11 $k12 $k13 $k14 $k15 $k16; do
		sweep late.db $c || return 1
	done &&
	git -C repo checkout -q "$main_branch" &&
	bl --db late.db sync --repo repo >/dev/null &&
	bl --db late.db detect --repo repo >/dev/null &&
	bl --db late.db alerts --json >la.json &&
	json_get la.json "join qq(\n), map { join q( ), \$_->{commit}, \$_->{state}, \$_->{reference_commit} // q(-) } @\$j" >actual &&
	printf "%s transient %s\n%s open %s\n" "$k3" "$k2" "$k12" "$k10" >expect &&
	test_cmp expect actual &&
	bl --db late.db confirm --repo repo --machine m1 --json >lc.json 2>/dev/null &&
	json_get lc.json "join q( ), scalar @\$j, \$j->[0]{alert}, \$j->[0]{outcome}" >actual &&
	echo "1 2 confirmed" >expect &&
	test_cmp expect actual &&
	bl --db late.db regressions --json | json_get - "join q( ), map { \$_->{commit} } @\$j" >actual &&
	echo "$s1" >expect &&
	test_cmp expect actual
'

test_expect 'a transient alert asked for by id is cleared without measuring' '
	bl --db late.db confirm --repo repo --machine m1 --json 1 >t.json 2>/dev/null &&
	json_get t.json "join q( ), \$j->[0]{outcome}, defined \$j->[0]{rebench} ? q(measured) : q(not-measured)" >actual &&
	echo "transient not-measured" >expect &&
	test_cmp expect actual
'

test_expect 'a step that does not hold when measured is cleared' '
	for c in $c0 $k1 $k2 $k4; do sweep fake.db $c || return 1; done &&
	for c in $k5 $k6 $k7 $k8 $k9; do sweep fake.db $c 2600000 || return 1; done &&
	git -C repo checkout -q "$main_branch" &&
	bl --db fake.db sync --repo repo >/dev/null &&
	bl --db fake.db detect --repo repo >/dev/null &&
	bl --db fake.db confirm --repo repo --machine m1 --json >f.json 2>/dev/null &&
	json_get f.json "join q( ), scalar @\$j, \$j->[0]{outcome}, scalar @{\$j->[0]{regressions}}" >actual &&
	echo "1 cleared 0" >expect &&
	test_cmp expect actual &&
	bl --db fake.db alerts --json | json_get - "\$j->[0]{state}" >actual &&
	echo cleared >expect &&
	test_cmp expect actual &&
	bl --db fake.db regressions --json >fr.json &&
	echo "[]" >expect &&
	json_get fr.json "scalar @\$j ? q(some) : q([])" >actual &&
	test_cmp expect actual
'

test_expect 'an alert whose sides cannot be built is unbuildable, and stays open' '
	sed "s/\"build\": \"cc -O2 -o bench bench.c\"/\"build\": \"false\"/" repo/benchline.json >broken.json &&
	cp repo/benchline.json good.json && cp broken.json repo/benchline.json &&
	bl --db s2.db init >/dev/null &&
	for c in $c0 $k2 $k4 $k6 $k8 $k10 $k12 $k14 $k16 $k18 $k20; do sweep s2.db $c || return 1; done &&
	git -C repo checkout -q "$main_branch" &&
	bl --db s2.db sync --repo repo >/dev/null &&
	bl --db s2.db detect --repo repo >/dev/null &&
	bl --db s2.db confirm --repo repo --machine m1 --json >u.json 2>/dev/null;
	status=$?; cp good.json repo/benchline.json &&
	test $status = 0 &&
	json_get u.json "\$j->[0]{outcome}" >actual &&
	echo unbuildable >expect &&
	test_cmp expect actual &&
	bl --db s2.db alerts --json | json_get - "\$j->[0]{state}" >actual &&
	echo open >expect &&
	test_cmp expect actual
'

test_expect 'usage: an alert id that is no number, an alert that does not exist' '
	expect_exit 2 bl --db s.db confirm --repo repo --machine m1 x1 2>err &&
	grep -q "x1. is not an alert id" err &&
	expect_exit 2 bl --db s.db confirm --repo repo --machine m1 99 2>err &&
	grep -q "no alert 99" err
'

test_done

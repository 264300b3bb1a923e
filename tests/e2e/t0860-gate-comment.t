#!/bin/sh
# benchline gate's pull-request comment and its interface (§7.8, §7.9): the marker, commit
# subjects, before and after values, why a row's limit is wider than the gate's, the accept
# hint, every row in <details>; the job summary in $GITHUB_STEP_SUMMARY; --markdown - and
# --json - on stdout, not both; benchline.json's metrics; --bisect-exit; and a no_verdict that
# says which candidate references were skipped and why. Records are written by hand, so every
# number is known and the outputs are compared whole.
. "$(dirname "$0")/lib.sh"
unset GITHUB_STEP_SUMMARY

CONFIG='{"measured_paths": ["src"], "unmeasured_paths": ["benchline.json", "benchline-gate.lock"]}'

# rec BENCHMARK SCALE [dirty|noisy]: a record of ci/BENCHMARK at HEAD: real_time (20 samples
# from 98 to 102 ns, times SCALE), cpu_time (0.8 of it) and allocs (a count, 12). noisy makes
# its two slowest samples 30% slower (p95/median 1.3); dirty measures a dirty tree.
rec() {
	set -- "$1" "$2" "${3:-}" $(bl hash) "$(git symbolic-ref --short HEAD)"
	perl -MJSON::PP -e '
		my ($bench, $scale, $flaw, $source, $commit, $branch) = @ARGV;
		my @real = map { (100 + ($_ * 7) % 5 - 2) * $scale } 0 .. 19;
		@real[18, 19] = map { $_ * 1.3 } @real[18, 19] if $flaw eq "noisy";
		my %r = (schema => 1, machine => "ci", benchmark => $bench, harness_version => 1,
			source => {commit => $commit, source_hash => $source, branch => $branch,
				dirty => $flaw eq "dirty" ? JSON::PP::true : JSON::PP::false},
			started_at => "2026-11-01T04:00:00Z",
			metrics => {
				real_time => {kind => "timed", unit => "ns", samples => \@real},
				cpu_time => {kind => "timed", unit => "ns",
					samples => [map { $_ * 0.8 } @real]},
				allocs => {kind => "counted", unit => "allocs", value => 12}});
		print JSON::PP->new->canonical->encode(\%r), "\n";
	' "$@"
}

# commit_and_rec SUBJECT FLAW SCALE: a commit changing src/ with SUBJECT, and records of parse
# (SCALE) and lex (unchanged) measured there, ingested.
commit_and_rec() {
	echo "$1" >src/version && git add src && git commit -qm "$1" &&
		{ rec parse "$3" "$2" && rec lex 2 "$2"; } >"$TMP/rec.json" &&
		bl ingest "$TMP/rec.json" >/dev/null
}

# hashes FILE: FILE with every 12-digit commit id written HASH, for comparisons.
hashes() {
	sed 's/[0-9a-f]\{12\}/HASH/g' "$1"
}

test_expect 'setup: main with 4 measured commits, a branch 10% slower in parse' '
	git init -q -b main c && cd c && mkdir src &&
	printf "%s\n" "$CONFIG" >benchline.json && git add . && git commit -qm init &&
	for i in 1 2 3 4; do commit_and_rec "main $i" "" 1 || exit 1; done &&
	git checkout -qb slower && commit_and_rec "a slower parser" "" 1.1
'

cat >comment.expect <<'EOF'
<!-- benchline-gate -->
### benchline gate: FAIL

Head `HASH` (a slower parser) against `main`, merge base `HASH` (main 4), limit +2.0%: 2 failing of 6 compared metrics.

| status | benchmark | metric | machine | before → after | delta | interval | limit | noise | note |
|---|---|---|---|---:|---:|---|---:|---:|---|
| FAIL | parse | cpu_time | ci | 80 → 88 ns | +10.0% | [+8.9%, +11.1%] | +3.0% † | 0.0% |  |
| FAIL | parse | real_time | ci | 100 → 110 ns | +10.0% | [+8.9%, +11.1%] | +3.0% † | 0.0% |  |

4 other metrics within their limits.

*Before → after*: the reference's value and the head's (the median of a timed metric); *delta* and *interval*: head / reference, from the samples when both sides have them.

† Wider than the +2.0% limit because of the Series' own noise: two stored runs, measured on different occasions, differ that much by themselves. A row's limit is its Series' band when that is wider: 4 × the noise (the spread of the reference and up to 7 records before it, over their median), at least 3%.

If the slowdown is intended, accept it: with the head checked out, run this with the gate's own options and commit benchline-gate.lock, where review sees the justification.

```sh
benchline gate accept --justification 'WHY IT IS WORTH IT'
git add benchline-gate.lock
```

<details><summary>Every compared metric (6)</summary>

| status | benchmark | metric | machine | before → after | delta | interval | limit | noise | note |
|---|---|---|---|---:|---:|---|---:|---:|---|
| PASS | lex | allocs | ci | 12 → 12 allocs | 0.0% |  | 0.0% |  |  |
| PASS | lex | cpu_time | ci | 160 → 160 ns | 0.0% | [-1.0%, +1.0%] | +3.0% † | 0.0% |  |
| PASS | lex | real_time | ci | 200 → 200 ns | 0.0% | [-1.0%, +1.0%] | +3.0% † | 0.0% |  |
| PASS | parse | allocs | ci | 12 → 12 allocs | 0.0% |  | 0.0% |  |  |
| FAIL | parse | cpu_time | ci | 80 → 88 ns | +10.0% | [+8.9%, +11.1%] | +3.0% † | 0.0% |  |
| FAIL | parse | real_time | ci | 100 → 110 ns | +10.0% | [+8.9%, +11.1%] | +3.0% † | 0.0% |  |

</details>
EOF

test_expect 'the comment: marker, subjects, before and after, the wider limit explained, the accept hint, every row in <details>' '
	cd c && expect_exit 1 bl gate --markdown ../comment.md --json ../comment.json >../table &&
	hashes ../comment.md >../actual && test_cmp ../comment.expect ../actual
'

test_expect 'the JSON report carries both commits'"'"' subjects' '
	json_get comment.json "join q(|), \$j->{head}{subject}, \$j->{merge_base}{subject}" >actual &&
	echo "a slower parser|main 4" >expect && test_cmp expect actual
'

test_expect '--markdown - writes the comment on stdout, the table on stderr' '
	cd c && expect_exit 1 bl gate --markdown - >../md.out 2>../md.err &&
	cd .. && test_cmp comment.md md.out && test_cmp table md.err
'

test_expect '--json - and --markdown - together are refused: exit 2, nothing written' '
	cd c && rm -f .benchline/gate-status.json &&
	expect_exit 2 bl gate --json - --markdown - >../both.out 2>../both.err &&
	test ! -s ../both.out && test ! -e .benchline/gate-status.json &&
	head -1 ../both.err >../actual &&
	echo "benchline: --json - and --markdown - both want stdout: give one of them a file" >../expect &&
	test_cmp ../expect ../actual
'

test_expect '$GITHUB_STEP_SUMMARY gets the comment appended, whatever the step wrote before' '
	echo "## the build" >summary.md && cp summary.md summary.expect &&
	cat comment.md >>summary.expect && echo >>summary.expect &&
	(cd c && GITHUB_STEP_SUMMARY=$TMP/summary.md expect_exit 1 bl gate >/dev/null) &&
	test_cmp summary.expect summary.md
'

test_expect 'an empty $GITHUB_STEP_SUMMARY writes nothing; an unwritable one is an error' '
	(cd c && GITHUB_STEP_SUMMARY= expect_exit 1 bl gate >/dev/null) &&
	(cd c && GITHUB_STEP_SUMMARY=$TMP/no/such/dir/s.md expect_exit 2 bl gate >/dev/null 2>"$TMP/sum.err") &&
	echo "benchline: cannot open the job summary '"'"'$TMP/no/such/dir/s.md'"'"': No such file or directory" >expect &&
	test_cmp expect sum.err
'

cat >metrics.expect <<'EOF'
EXCL      1.0000  -                  1.0000 -      ci/parse allocs [EXCLUDED]  (not in benchline.json's metrics: shown, never failing)
EXCL      1.1000  [1.0889, 1.1112]   1.0300 0.0%   ci/parse cpu_time [EXCLUDED]  (not in benchline.json's metrics: shown, never failing)
FAIL      1.1000  [1.0889, 1.1112]   1.0300 0.0%   ci/parse real_time
gate: fail (1 failing)
EOF

test_expect 'benchline.json'"'"'s metrics: one regression fails once, the unlisted metrics are EXCL' '
	cd c &&
	echo "{\"measured_paths\": [\"src\"], \"metrics\": [\"real_time\"]}" >benchline.json &&
	expect_exit 1 bl gate --json ../metrics.json >../metrics.out &&
	git checkout -q benchline.json &&
	cd .. && grep " ci/parse " metrics.out >actual &&
	tail -1 metrics.out >>actual && test_cmp metrics.expect actual &&
	json_get metrics.json "join q( ), map { \$_->{excluded} ? 1 : 0 } grep { \$_->{benchmark} eq q(parse) } @{\$j->{comparisons}}" >actual &&
	echo "1 1 0" >expect && test_cmp expect actual
'

test_expect '--bisect-exit: pass 0 and fail 1 as they are; an error and no verdict 125' '
	cd c &&
	expect_exit 1 bl gate --bisect-exit >/dev/null &&
	expect_exit 0 bl gate --bisect-exit --head main~1 --base main~2 >/dev/null &&
	expect_exit 2 bl gate --base no-such-ref >/dev/null 2>&1 &&
	expect_exit 125 bl gate --bisect-exit --base no-such-ref >/dev/null 2>&1 &&
	git checkout -qb unmeasured && echo new >src/version && git commit -qam unmeasured &&
	expect_exit 4 bl gate --json ../nv.json >/dev/null &&
	expect_exit 125 bl gate --bisect-exit --json ../nv.json >/dev/null &&
	test "$(json_get ../nv.json "\$j->{exit_code}")" = 4 &&
	expect_exit 125 bl gate --bisect-exit --json - --markdown - >/dev/null 2>&1 &&
	expect_exit 125 bl gate --bisect-exit accept --justification x >/dev/null 2>&1 &&
	git checkout -q slower
'

# Between main (good) and the last commit (bad): a commit as fast as main, three commits nobody
# measured, another as fast, then the slower parser. Bisection lands on the unmeasured ones
# first (they are the middle) and must skip them, not call them bad.
test_expect 'git bisect run with --bisect-exit skips the commits without records' '
	cd c && git checkout -q main && git checkout -qb bisect-me &&
	commit_and_rec "as fast 1" "" 1 &&
	for i in 1 2 3; do
		echo "unmeasured $i" >src/version && git commit -qam "unmeasured $i" || exit 1
	done &&
	commit_and_rec "as fast 2" "" 1 && commit_and_rec "slower parse" "" 1.1 &&
	commit_and_rec "slower still" "" 1.1 &&
	git bisect start HEAD main >/dev/null &&
	git bisect run "$BENCHLINE" gate --bisect-exit --base main >../bisect.out 2>&1 &&
	git bisect log >../bisect.log && git bisect reset >/dev/null 2>&1 &&
	git checkout -q slower &&
	grep -q "^# skip: \[[0-9a-f]*\] unmeasured [123]$" ../bisect.log &&
	grep -q "^# first bad commit: \[[0-9a-f]*\] slower parse$" ../bisect.log
'

test_expect 'setup: a repository whose main has only dirty and noisy records' '
	git init -q -b main t && cd t && mkdir src &&
	printf "%s\n" "$CONFIG" >benchline.json && git add . && git commit -qm init &&
	commit_and_rec "dirty 1" dirty 1 && commit_and_rec "dirty 2" dirty 1 &&
	commit_and_rec "noisy 3" noisy 1 &&
	git checkout -qb head && commit_and_rec "the head" "" 1
'

cat >skipped.expect <<'EOF'
no reference for any of the head's 2 records in the history of the merge base HASH: 4 source hashes searched, 6 candidates skipped: tagged 4 dirty, 2 noisy (a reference is a Series record: standing, with no tag)
gate: no_verdict
EOF

test_expect 'no_verdict says how many candidate references were skipped, and which tags kept them' '
	cd t && expect_exit 4 bl gate --json ../skipped.json >../skipped.out &&
	cd .. && tail -2 skipped.out | hashes /dev/stdin >actual && test_cmp skipped.expect actual &&
	json_get skipped.json "\$j->{message}" | hashes /dev/stdin >actual &&
	head -1 skipped.expect >expect && test_cmp expect actual &&
	json_get skipped.json "my (\$c) = grep { \$_->{benchmark} eq q(parse) && \$_->{metric} eq q(real_time) } @{\$j->{comparisons}}; \$c->{note}" >actual &&
	echo "no reference record: 4 source hashes searched, 3 candidates skipped: tagged 2 dirty, 1 noisy" >expect &&
	test_cmp expect actual
'

test_done

#!/bin/sh
# benchline gate --live (§7.10) on a real benchmark program in a real repository: the head and
# the merge base built in their worktrees and measured now by the re-bench. A head whose code
# changed but not its speed passes; a head doing 10% more work fails with a FAIL row; the
# report says mode live with each row's pairs and measurements (and the stored gate says
# stored); equal source hashes build nothing; identical artifacts measure nothing; 1% slower
# everywhere fails across the board; a head that cannot be built is an error (exit 2, and 125
# with --bisect-exit); benchline.json's metrics leaves the unlisted metrics EXCL.
#
# The verdicts asserted are those of the program's "work" figure (its iteration count, which
# no machine state moves) or of a script printing fixed figures; the timed metrics (latency,
# the runs' cpu_s) are excluded where a verdict must not depend on how busy the machine is.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/e2e/bench-lib.sh"

HOST=$(uname -n)

# main: c0 a benchmark. Branches off it: docs (docs only), aa (a comment in the measured
# source: another source hash, the same speed), slow (10% more work), broken (not C).
(
	set -e
	git init -q -b main repo
	mkdir repo/docs
	bench_program repo/bench.c 2000000 latency
	echo notes >repo/docs/notes.md
	printf 'bench\n.benchline/\n' >repo/.gitignore
	commit 'a benchmark' >c0
	git -C repo checkout -q -b docs
	echo 'more notes' >>repo/docs/notes.md
	commit 'docs only' >/dev/null
	git -C repo checkout -q -b aa main
	sed 's|^int main(void)$|/* the benchmark: a loop of WORK squares */\nint main(void)|' \
		repo/bench.c >repo/bench.c.new
	mv repo/bench.c.new repo/bench.c
	grep -q 'a loop of WORK squares' repo/bench.c
	commit 'a comment' >/dev/null
	git -C repo checkout -q -b slow main
	sed 's/^#define WORK 2000000$/#define WORK 2200000/' repo/bench.c >repo/bench.c.new
	mv repo/bench.c.new repo/bench.c
	grep -q 2200000 repo/bench.c
	commit '10% more work' >/dev/null
	git -C repo checkout -q -b broken main
	echo 'this is not C' >>repo/bench.c
	commit 'broken' >/dev/null
	git -C repo checkout -q main
) >setup.log 2>&1 || { cat setup.log; echo 'Bail out! cannot build the test repository'; exit 1; }
c0=$(cat c0)

# settings EXTRA-BENCH-KEYS: benchline.json in the main checkout's working tree; every build
# appends a line to builds.log.
settings() {
	cat >repo/benchline.json <<-EOF
	{"measured_paths": ["bench.c"],
	 "unmeasured_paths": ["docs", ".gitignore", "benchline.json"],
	 "bench": {"build": "cc -O2 -o bench bench.c && echo built >>'$TMP/builds.log'",
	           "run": "./bench", "processes": 1$1}}
	EOF
}
settings ""
live() { # live ARGS...: gate --live on repo against main
	bl gate --live --repo repo --base main "$@"
}
row() { # row FILE BENCHMARK METRIC EXPR: EXPR of the row ($c) of the JSON report FILE
	json_get "$1" "my (\$c) = grep { \$_->{benchmark} eq q($2) && \$_->{metric} eq q($3) } @{\$j->{comparisons}}; $4"
}

test_expect 'equal source hashes: nothing_to_compare, exit 0, and nothing built' '
	live --head docs --json nc.json >out 2>err &&
	grep -q "^the measured paths (bench.c) are the same at [0-9a-f]\{12\} and at the merge base $(echo $c0 | cut -c1-12): nothing to compare; nothing built$" out &&
	test "$(tail -1 out)" = "gate: nothing_to_compare" &&
	json_get nc.json "join q( ), @\$j{qw(mode status passed exit_code)}, scalar @{\$j->{comparisons}}, \$j->{live}{measurements}" >actual &&
	echo "live nothing_to_compare 1 0 0 0" >expect && test_cmp expect actual &&
	! test -e builds.log &&
	! test -e repo/.benchline/worktrees &&
	test "$(git -C repo worktree list | wc -l)" = 1 &&
	test "$(json_get repo/.benchline/gate-status.json "\$j->{passed} ? 1 : 0")" = 1
'
test_expect 'no database is needed, nor made' '
	! test -e "$BENCHLINE_DB"
'

test_expect 'A/A: a comment in the measured source changes nothing measured, and passes (exit 0)' '
	live --head aa --exclude "loop:latency" --exclude "bench.run" \
		--json aa.json --markdown aa.md >out 2>err &&
	test "$(wc -l <builds.log)" = 2 &&
	grep -q "^PASS  *1\.0000  *\[1\.0000, 1\.0000\]  *1\.0200 - *$HOST/loop work$" out &&
	test "$(tail -1 out)" = "gate: pass" &&
	row aa.json loop work "join q( ), @\$c{qw(status verdict method ratio ci_low ci_high limit effective_limit)}" >actual &&
	echo "PASS same paired 1 1 1 1.02 1.02" >expect && test_cmp expect actual &&
	json_get aa.json "join q( ), sort map { \$_->{status} } grep { \$_->{metric} ne q(work) } @{\$j->{comparisons}}" >actual &&
	echo "EXCL EXCL EXCL" >expect && test_cmp expect actual &&
	grep -q "^[A-Z]* .* $HOST/loop latency \[EXCLUDED\]$" out &&
	json_get aa.json "join q( ), @\$j{qw(mode status passed exit_code failures)}" >actual &&
	echo "live pass 1 0 0" >expect && test_cmp expect actual &&
	grep -q "^### benchline gate: PASS$" aa.md
'

test_expect 'a head doing 10% more work fails with exit 1 and a FAIL row' '
	expect_exit 1 live --head slow --json slow.json --markdown slow.md >out 2>err &&
	grep -q "^FAIL  *1\.1000  *\[1\.1000, 1\.1000\]  *1\.0200 - *$HOST/loop work$" out &&
	grep -q "^head [0-9a-f]\{12\} against main (merge base $(echo $c0 | cut -c1-12)), limit 1\.0200, measured live on $HOST: [0-9]* measurements, [0-9]* pairs$" out &&
	tail -1 out | grep -q "^gate: fail ([0-9]* failing)\(, [1-9][0-9]* undecided: measured too loosely to tell\)\{0,1\}$" &&
	row slow.json loop work "join q( ), @\$c{qw(status verdict method ratio ci_low ci_high measurements)}" >actual &&
	echo "FAIL slower paired 1.1 1.1 1.1 3" >expect && test_cmp expect actual &&
	grep -q "^| FAIL | loop | work | $HOST | 2000000 → 2200000 | +10.0% | \[+10.0%, +10.0%\] | +2.0% |  |  |$" slow.md &&
	grep -q "^### benchline gate: FAIL\(, [1-9][0-9]* undecided: measured too loosely to tell\)\{0,1\}$" slow.md &&
	grep -q "^Both measured now on \`$HOST\`, interleaved (\`gate --live\`): " slow.md &&
	test "$(json_get repo/.benchline/gate-status.json "\$j->{passed} ? 1 : 0")" = 0
'
test_expect 'the JSON says mode live, each row its pairs and measurements, each side its median' '
	json_get slow.json "join q( ), @\$j{qw(schema mode status passed exit_code)}, \$j->{ratchet} // q(null), \$j->{lock} // q(null)" >actual &&
	echo "1 live fail 0 1 null null" >expect && test_cmp expect actual &&
	json_get slow.json "join q(,), map { \$_->{metric} } @{\$j->{comparisons}}" >actual &&
	echo "latency,work,cpu_s,peak_rss_kib" >expect && test_cmp expect actual &&
	json_get slow.json "for my \$c (@{\$j->{comparisons}}) {
			die qq(\$c->{metric}: pairs\n) unless \$c->{pairs} >= 10 && \$c->{pairs} <= 60;
			die qq(\$c->{metric}: measurements\n) unless \$c->{measurements} >= 1 && \$c->{measurements} <= 6;
			die qq(\$c->{metric}: sides\n) unless \$c->{head}{n} == \$c->{pairs} && \$c->{reference}{n} == \$c->{pairs};
			die qq(\$c->{metric}: stored keys\n) if defined \$c->{head}{run_id} || defined \$c->{reference}{harness_version};
			die qq(\$c->{metric}: machine\n) unless \$c->{machine} eq q($HOST) && \$c->{reference_rule} eq q(merge-base) } 1" &&
	row slow.json loop work "join q( ), \$c->{head}{value}, \$c->{reference}{value}, \$c->{head}{commit} eq q($(git -C repo rev-parse slow)) ? 1 : 0, \$c->{reference}{commit} eq q($c0) ? 1 : 0" >actual &&
	echo "2200000 2000000 1 1" >expect && test_cmp expect actual &&
	row slow.json bench.run peak_rss_kib "\$c->{effective_limit}" >actual &&
	echo 1.1 >expect && test_cmp expect actual &&
	json_get slow.json "join q( ), \$j->{live}{machine}, \$j->{live}{identical_artifacts} ? 1 : 0, \$j->{live}{pairs} >= 30 ? 1 : 0, \$j->{live}{build_s}{head} >= 0 ? 1 : 0" >actual &&
	echo "$HOST 0 1 1" >expect && test_cmp expect actual
'

test_expect 'benchline.json'"'"'s metrics: live too, an unlisted metric is EXCL and never fails' '
	sed "s/^{\"measured_paths\"/{\"metrics\": [\"work\"], \"measured_paths\"/" \
		repo/benchline.json >metrics.json && cp metrics.json repo/benchline.json &&
	grep -q "\"metrics\": \[\"work\"\]" repo/benchline.json &&
	expect_exit 1 live --head slow --json metrics-live.json >out 2>err;
	status=$?; settings ""; test $status = 0 &&
	json_get metrics-live.json "join q( ), map { qq(\$_->{metric}:\$_->{status}) } @{\$j->{comparisons}}" >actual &&
	echo "latency:EXCL work:FAIL cpu_s:EXCL peak_rss_kib:EXCL" >expect && test_cmp expect actual &&
	test "$(json_get metrics-live.json "\$j->{failures}")" = 1
'
test_expect 'every key of the live report is one docs/gate-json.md lists, and none is missing' '
	perl -MJSON::PP -e '"'"'
		my ($doc, $file) = @ARGV;
		open my $f, "<", $doc or die; my ($cur, %keys);
		while (<$f>) {
			if (/^###\s+(\S+)\s*$/) { $cur = $1; next }
			$keys{$cur}{$1} = 1 if defined $cur && /^\|\s*`([^`]+)`\s*\|/;
		}
		open my $r, "<", $file or die; local $/; my $j = decode_json(<$r>);
		my @err;
		my $cmp = sub { my ($kind, $o, $where) = @_;
			my $want = join " ", sort keys %{$keys{$kind}};
			my $got = join " ", sort keys %$o;
			push @err, "$where: {$got}, the docs list {$want}" unless $want eq $got };
		$cmp->("report", $j, "report");
		$cmp->("live", $j->{live}, "live");
		for my $c (@{$j->{comparisons}}) {
			$cmp->("comparison", $c, "$c->{metric}");
			$cmp->("side", $c->{$_}, "$c->{metric}.$_") for qw(head reference);
		}
		print STDERR "$_\n" for @err; exit !!@err;
	'"'"' "$ROOT/docs/gate-json.md" slow.json
'
test_expect 'progress on stderr, one line per round, as rebench prints it' '
	grep -q "^gate: measurement 1, pair 10/60 (pairs 10 of at most [0-9]*, at most [0-9hms ]* left): loop latency [0-9.]* \[[0-9.]*, [0-9.]*\]; loop work 1.1000 \[1.1000, 1.1000\]; cpu_s " err &&
	grep -q "^gate: measurement 3, pair [0-9]*/60 (pairs [0-9]* of at most [0-9]*[,)].*: " err
'

test_expect '--override and --exclude apply as in the stored gate: 10% within a 15% override passes' '
	live --head slow --override "loop=15" --exclude "loop:latency" --exclude "bench.run" \
		--json over.json >out 2>err &&
	grep -q "^PASS  *1\.1000  *\[1\.1000, 1\.1000\]  *1\.1500 - *$HOST/loop work \[override 15%\]$" out &&
	row over.json loop work "join q( ), @\$c{qw(status verdict override limit effective_limit)}" >actual &&
	echo "PASS same loop 1.15 1.15" >expect && test_cmp expect actual
'

test_expect 'byte-identical artifacts: nothing measured, and the gate passes' '
	settings ", \"artifacts\": [\"bench\"]" &&
	live --head aa --json same.json >out 2>err &&
	grep -q "^the artifacts of [0-9a-f]\{12\} and of the merge base $(echo $c0 | cut -c1-12) are byte-identical (1 file of bench.artifacts): nothing can differ; nothing measured$" out &&
	json_get same.json "join q( ), @\$j{qw(mode status exit_code)}, scalar @{\$j->{comparisons}}, \$j->{live}{identical_artifacts} ? 1 : 0, \$j->{live}{artifact_files}, \$j->{live}{measurements}" >actual &&
	echo "live pass 0 0 1 1 0" >expect && test_cmp expect actual &&
	! grep -q "measurement 1" err &&
	settings ""
'

test_expect 'a head that cannot be built: exit 2, naming the head and its commit; no report' '
	cp repo/.benchline/gate-status.json status.before &&
	expect_exit 2 live --head broken --json broken.json >out 2>err &&
	grep -q "^benchline: the head ($(git -C repo rev-parse broken | cut -c1-12)): cannot build in .*\.benchline/worktrees/b.*: bench.build exited with status" err &&
	grep -q "this is not C" err &&
	! test -e broken.json &&
	test_cmp status.before repo/.benchline/gate-status.json &&
	expect_exit 125 live --head broken --bisect-exit >/dev/null 2>&1
'

# board: eight benchmarks of one metric, from a script printing fixed figures; the head adds
# 1% to every one of them.
(
	set -e
	git init -q -b main board
	cat >board/bench.sh <<-'EOF'
	W=1000
	printf '{'
	for b in 1 2 3 4 5 6 7 8; do
		printf '%s"b%s": {"work": {"value": %s}}' "$([ $b = 1 ] || echo ,)" $b $((W * b))
	done
	printf '}\n'
	EOF
	printf '{"bench": {"run": "sh bench.sh", "format": "bmf", "processes": 1}}\n' \
		>board/benchline.json
	git -C board add -A && git -C board commit -q -m 'eight benchmarks'
	git -C board checkout -q -b wide
	sed 's/^W=1000$/W=1010/' board/bench.sh >board/bench.sh.new
	mv board/bench.sh.new board/bench.sh
	git -C board commit -q -am 'a little more work everywhere'
) >board.log 2>&1 || { cat board.log; echo 'Bail out! cannot build the board repository'; exit 1; }

test_expect 'slower across the board fails under --live, though every benchmark passes' '
	expect_exit 1 bl gate --live --repo board --head wide --base main --exclude bench.run \
		--json board.json --markdown board.md >out 2>err &&
	test "$(grep -c "^PASS .* $HOST/b[1-8] work$" out)" = 8 &&
	grep -q "^across the board: FAIL work over 8 benchmarks, median ratio 1\.0100 \[1\.0100, 1\.0100\], threshold 1\.0050  (slower across the board: .*measured live, interleaved, so it fails the gate)$" out &&
	test "$(tail -1 out)" = "gate: fail (1 failing)" &&
	json_get board.json "join q( ), @\$j{qw(status failures)}, \$j->{counts}{FAIL}, map { @\$_{qw(metric comparisons status)} } @{\$j->{across_the_board}}" >actual &&
	echo "fail 1 0 work 8 FAIL" >expect && test_cmp expect actual &&
	grep -q "^\*\*Across the board (work):\*\* slower across the board" board.md
'

# units: a benchmark printed in ns at main and in us on the branch (gbench's time_unit).
(
	set -e
	git init -q -b main units
	cat >units/bench.sh <<-'EOF'
	U=ns T=100000
	printf '{"benchmarks": [{"name": "copy", "run_type": "iteration", "iterations": 10, '
	printf '"real_time": %s, "cpu_time": %s, "time_unit": "%s"}]}\n' $T $T $U
	EOF
	printf '{"bench": {"run": "sh bench.sh", "format": "gbench", "processes": 1}}\n' \
		>units/benchline.json
	git -C units add -A && git -C units commit -q -m 'in ns'
	git -C units checkout -q -b us
	sed 's/^U=ns T=100000$/U=us T=100/' units/bench.sh >units/bench.sh.new
	mv units/bench.sh.new units/bench.sh
	git -C units commit -q -am 'in us'
) >units.log 2>&1 || { cat units.log; echo 'Bail out! cannot build the units repository'; exit 1; }

test_expect 'a unit that changed cannot be compared: FAIL, as in the stored gate' '
	expect_exit 1 bl gate --live --repo units --head us --base main --exclude bench.run \
		--json units.json >out 2>err &&
	grep -q "^FAIL .* $HOST/copy real_time  (unit mismatch: the merge base.s is in ns, the head.s in us)$" out &&
	row units.json copy real_time "join q( ), @\$c{qw(status verdict unit)}" >actual &&
	echo "FAIL slower us" >expect && test_cmp expect actual
'

test_expect 'the stored gate says mode stored, with null pairs and measurements' '
	bl init >/dev/null &&
	expect_exit 4 bl gate --repo repo --head slow --json stored.json >/dev/null &&
	json_get stored.json "join q( ), @\$j{qw(mode status)}, \$j->{live} // q(null)" >actual &&
	echo "stored no_verdict null" >expect && test_cmp expect actual
'

test_expect 'usage: --live with accept, --ratchet or --base-url, and no bench.run, exit 2' '
	expect_exit 2 live --head slow --ratchet main 2>err &&
	grep -q "ratchet compares stored records: not with --live" err &&
	expect_exit 2 bl gate accept --live --repo repo --justification x 2>err &&
	grep -q "accept records stored references: not with --live" err &&
	expect_exit 2 live --head slow --base-url http://x 2>err &&
	grep -q "base-url links stored Series: not with --live" err &&
	echo "{\"measured_paths\": [\"bench.c\"]}" >repo/benchline.json &&
	expect_exit 2 live --head slow 2>err &&
	grep -q "bench.run: not set" err &&
	settings "" &&
	expect_exit 2 live --head no-such-rev 2>err &&
	grep -q "no-such-rev" err
'
test_expect 'the hosted-runner workflow in docs/gate.md is docs/examples/benchline-gate.yml, and it parses' '
	perl -ne '"'"'
		$on = 1 if /^### On a hosted runner, with `--live`/;
		if ($on && /^```yaml$/) { $in = 1; next }
		if ($in && /^```$/) { exit }
		print if $in;
	'"'"' "$ROOT/docs/gate.md" >workflow.yml &&
	test_cmp "$ROOT/docs/examples/benchline-gate.yml" workflow.yml &&
	grep -q "fetch-depth: 0" workflow.yml &&
	grep -q "runs-on: ubuntu-latest" workflow.yml &&
	grep -q "benchline gate --live --repo . --head \"\$GITHUB_SHA\" --base \"origin/\$GITHUB_BASE_REF\"" workflow.yml &&
	grep -q "gh pr comment \"\$PR\" --body-file gate.md" workflow.yml &&
	if python3 -c "import yaml" 2>/dev/null; then
		python3 -c "
import sys, yaml
w = yaml.safe_load(open(sys.argv[1]))
steps = w[\"jobs\"][\"gate\"][\"steps\"]
assert w[\"jobs\"][\"gate\"][\"runs-on\"] == \"ubuntu-latest\"
assert steps[0][\"with\"][\"fetch-depth\"] == 0
assert any(\"gate --live\" in s.get(\"run\", \"\") for s in steps)
" workflow.yml
	fi
'
test_done

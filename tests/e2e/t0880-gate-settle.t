#!/bin/sh
# benchline gate --settle (§7.8) on a real benchmark program in a real repository: the stored
# gate's FAIL and UNDECIDED rows are measured again live, the head against the merge base in
# their worktrees, only their benchmarks, and the live verdict replaces the stored one, marked
# settled live in the table, the JSON and the comment. A stored UNDECIDED on a branch doing 30%
# more work settles to FAIL; on an A/A branch a stored UNDECIDED and a stored FAIL settle to
# PASS; a row bench.run does not print keeps its stored verdict, saying why. --settle without
# bench settings, and with --live or accept, is refused (exit 2).
#
# The stored records are written by hand with samples spread on purpose (tests/e2e/gate-rec.pl)
# so their intervals are wide; the verdicts asserted after settling are those of the program's
# "work" figure (its iteration count, which no machine state moves), never a time.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/e2e/bench-lib.sh"

HOST=$(uname -n)

# rec REV MACHINE BENCHMARK MEDIAN SPREAD: a record of MACHINE/BENCHMARK measured at REV in
# ./repo: "work" (no unit, as bench.run prints it) with 20 samples spread below MEDIAN by up to
# SPREAD of it.
rec() {
	set -- "$@" $(bl hash --repo repo "$1")
	perl "$TESTS_DIR/e2e/gate-rec.pl" "$2" "$3" work "$4" "$5" "" "$6" "$7" "$1"
}

# settings [BENCH]: benchline.json in the main checkout's working tree, with the bench settings
# unless BENCH is "none"; every build appends a line to builds.log.
settings() {
	if [ "${1:-}" = none ]; then
		echo '{"measured_paths": ["bench.c"], "unmeasured_paths": ["docs", ".gitignore", "benchline.json"]}' \
			>repo/benchline.json
		return
	fi
	cat >repo/benchline.json <<-EOF
	{"measured_paths": ["bench.c"],
	 "unmeasured_paths": ["docs", ".gitignore", "benchline.json"],
	 "bench": {"build": "cc -O2 -o bench bench.c && echo built >>'$TMP/builds.log'",
	           "run": "./bench", "processes": 1}}
	EOF
}

# main: c0 the benchmark (2,000,000 iterations; it prints loop's latency and work). Branches
# off it: slow (30% more work), aa (a comment in the measured source: another source hash, the
# same work).
(
	set -e
	git init -q -b main repo
	mkdir repo/docs
	bench_program repo/bench.c 2000000 latency
	echo notes >repo/docs/notes.md
	printf 'bench\n.benchline/\n' >repo/.gitignore
	commit 'a benchmark' >c0
	git -C repo checkout -q -b slow
	sed 's/^#define WORK 2000000$/#define WORK 2600000/' repo/bench.c >repo/bench.c.new
	mv repo/bench.c.new repo/bench.c
	grep -q 2600000 repo/bench.c
	commit '30% more work' >/dev/null
	git -C repo checkout -q -b aa main
	echo '/* the same loop */' >>repo/bench.c
	commit 'a comment' >/dev/null
	git -C repo checkout -q main
) >setup.log 2>&1 || { cat setup.log; echo 'Bail out! cannot build the test repository'; exit 1; }
settings

# The stored records: on box, loop's work at the merge base c0 (2,000,000) and on each branch
# measured loosely (spread 50%) and too low (2,100,000, as a busy machine might): both
# UNDECIDED. On box2, tightly, aa's at 2,600,000: a stored FAIL that measuring again clears. And
# parse, a benchmark bench.run does not print, FAIL on aa.
test_expect 'setup: stored records whose intervals are wide on purpose' '
	{
		rec main box loop 2000000 0.5 &&
		rec slow box loop 2100000 0.5 &&
		rec aa box loop 2100000 0.5 &&
		rec main box2 loop 2000000 0 &&
		rec aa box2 loop 2600000 0 &&
		rec main box parse 100 0 &&
		rec aa box parse 150 0
	} >recs.json &&
	bl init >/dev/null && bl ingest recs.json >ingest.out &&
	test "$(grep -c ": stands" ingest.out)" = 7 && ! grep -q noisy ingest.out
'

row() { # row FILE MACHINE BENCHMARK EXPR: EXPR of the work row ($c) of the JSON report FILE
	json_get "$1" "my (\$c) = grep { \$_->{machine} eq q($2) && \$_->{benchmark} eq q($3) } @{\$j->{comparisons}}; $4"
}

test_expect 'stored, the branch doing 30% more work is only UNDECIDED: it passes' '
	bl gate --repo repo --head slow >stored.out &&
	grep -q "^UNDECIDED 1\.0500  *\[0\.9[0-9]*, 1\.[1-9][0-9]*\]  *1\.0200 - *box/loop work$" stored.out &&
	test "$(tail -1 stored.out)" = "gate: pass, 1 undecided: measured too loosely to tell" &&
	! test -e builds.log
'

test_expect '--settle: measured again live, the UNDECIDED row is FAIL, marked settled live (exit 1)' '
	expect_exit 1 bl gate --repo repo --head slow --settle --json slow.json \
		--markdown slow.md >slow.out 2>slow.err &&
	cat slow.out &&
	grep -q "^FAIL  *1\.3000  *\[1\.3000, 1\.3000\]  *1\.0200 - *box/loop work \[settled live\]  (settled live on $HOST (stored UNDECIDED 1\.0500 \[0\.9[0-9]*, 1\.[0-9]*\], limit 1\.0200))$" slow.out &&
	grep -q "^head [0-9a-f]\{12\} against main (merge base $(cut -c1-12 c0)), limit 1\.0200, 1 of 1 row settled live on $HOST: [1-9][0-9]* measurements\{0,1\}, [1-9][0-9]* pairs$" slow.out &&
	test "$(tail -1 slow.out)" = "gate: fail (1 failing)" &&
	test "$(wc -l <builds.log)" = 2 &&
	test "$(json_get repo/.benchline/gate-status.json "\$j->{passed} ? 1 : 0")" = 0
'

test_expect 'the JSON: the live verdict and sides, the stored one under settled, what settle measured' '
	row slow.json box loop "join q( ), @\$c{qw(status label verdict method ratio ci_low ci_high effective_limit measurements)}" >actual &&
	echo "FAIL FAIL slower paired 1.3 1.3 1.3 1.02 3" >expect && test_cmp expect actual &&
	row slow.json box loop "join q( ), \$c->{head}{value}, \$c->{reference}{value}, \$c->{reference}{commit} eq q($(cat c0)) ? 1 : 0, \$c->{head}{run_id} // q(null), \$c->{settled}{machine}" >actual &&
	echo "2600000 2000000 1 null $HOST" >expect && test_cmp expect actual &&
	row slow.json box loop "join q( ), map { \$_ // q(null) } @{\$c->{settled}{stored}}{qw(status verdict method ratio effective_limit)}" >actual &&
	echo "UNDECIDED undecided hodges-lehmann 1.05 1.02" >expect && test_cmp expect actual &&
	json_get slow.json "join q( ), @\$j{qw(mode status exit_code failures undecided)}, @{\$j->{settle}}{qw(machine rows settled)}, \$j->{settle}{identical_artifacts} ? 1 : 0, \$j->{settle}{pairs} >= 30 ? 1 : 0" >actual &&
	echo "stored fail 1 1 0 $HOST 1 1 0 1" >expect && test_cmp expect actual
'

test_expect 'only the benchmarks of those rows measured, only their rows waited for: no cpu_s, no peak RSS' '
	grep -q "^gate: measurement 1, pair 10/60 (pairs 10 of at most [0-9]*[,)].*: loop work 1\.3000 \[1\.3000, 1\.3000\]; 1 more measured, not waited for$" slow.err &&
	! grep -q "cpu_s\|peak_rss_kib" slow.err
'

test_expect 'the comment says what was measured again and marks the row settled live' '
	grep -q "^### benchline gate: FAIL$" slow.md &&
	grep -q "^.--settle.: 1 .FAIL. and .UNDECIDED. row measured again now on .$HOST., the head against the merge base, interleaved, before the verdict ([1-9][0-9]* measurements\{0,1\}, [1-9][0-9]* pairs); 1 took the live verdict, marked \*settled live\*\.$" slow.md &&
	grep -q "^| FAIL (settled live) | loop | work | box | 2000000 → 2600000 | +30\.0% | \[+30\.0%, +30\.0%\] | +2\.0% |  | settled live on $HOST (stored UNDECIDED 1\.0500 " slow.md
'

test_expect 'A/A: a stored UNDECIDED and a stored FAIL settle to PASS; a benchmark bench.run lacks stays FAIL' '
	expect_exit 1 bl gate --repo repo --head aa --json aa.json >aa.out 2>aa.err &&
	grep -q "^UNDECIDED .* box/loop work$" aa.out && grep -q "^FAIL .* box2/loop work$" aa.out &&
	expect_exit 1 bl gate --repo repo --head aa --settle --json aa-settled.json \
		--markdown aa.md >aas.out 2>aas.err &&
	cat aas.out &&
	grep -q "^PASS  *1\.0000  *\[1\.0000, 1\.0000\]  *1\.0200 - *box/loop work \[settled live\]  (settled live on $HOST (stored UNDECIDED " aas.out &&
	grep -q "^PASS  *1\.0000  *\[1\.0000, 1\.0000\]  *1\.0200 - *box2/loop work \[settled live\]  (settled live on $HOST (stored FAIL 1\.3000 " aas.out &&
	grep -q "^FAIL  *1\.5000 .* box/parse work  (--settle: bench.run does not print it: the stored verdict stands)$" aas.out &&
	grep -q ", 2 of 3 rows settled live on $HOST: " aas.out &&
	test "$(tail -1 aas.out)" = "gate: fail (1 failing)" &&
	json_get aa-settled.json "join q( ), map { qq(\$_->{machine}/\$_->{benchmark}:\$_->{status}:) . (\$_->{settled} ? \$_->{settled}{stored}{status} : q(-)) } @{\$j->{comparisons}}" >actual &&
	echo "box/loop:PASS:UNDECIDED box/parse:FAIL:- box2/loop:PASS:FAIL" >expect && test_cmp expect actual &&
	grep -q "^| PASS (settled live) | loop | work | box2 | 2000000 → 2000000 | 0\.0% |" aa.md &&
	# the work the rows ask about is the same after one round; the latency beside it is
	# measured, never waited for
	test "$(grep -c "^gate: measurement" aas.err)" = 1 &&
	grep -q "^gate: measurement 1, pair 10/60 (.*): loop work 1\.0000 \[1\.0000, 1\.0000\]; 1 more measured, not waited for$" aas.err
'

test_expect 'A/A with the benchmark bench.run lacks excluded: settled, the gate passes (exit 0)' '
	bl gate --repo repo --head aa --settle --exclude parse --json aa-pass.json >aap.out 2>aap.err &&
	test "$(tail -1 aap.out)" = "gate: pass" &&
	json_get aa-pass.json "join q( ), @\$j{qw(status exit_code failures undecided)}, \$j->{settle}{rows}, \$j->{settle}{settled}" >actual &&
	echo "pass 0 0 0 2 2" >expect && test_cmp expect actual
'

test_expect 'nothing to settle: nothing built or measured, and the JSON says so' '
	rm -f builds.log &&
	bl gate --repo repo --head aa --settle --exclude parse --exclude loop --json none.json >none.out 2>none.err &&
	grep -q "^head .*, nothing to settle (no FAIL or UNDECIDED row)$" none.out &&
	! test -e builds.log &&
	json_get none.json "join q( ), @{\$j->{settle}}{qw(rows settled measurements pairs)}, \$j->{settle}{build_s}{head} // q(null)" >actual &&
	echo "0 0 0 0 null" >expect && test_cmp expect actual
'

test_expect 'every key of a settled report is one docs/gate-json.md lists, and none is missing' '
	perl -MJSON::PP -e '"'"'
		my ($doc, $file) = @ARGV;
		open my $f, "<", $doc or die; my ($cur, %keys, %sub);
		while (<$f>) {
			if (/^###\s+(\S+)\s*$/) { $cur = $1; next }
			next unless defined $cur && /^\|\s*`([^`]+)`\s*\|([^|]*)\|/;
			my ($k, $type) = ($1, $2);
			$keys{$cur}{$k} = 1;
			$sub{$cur}{$k} = [split /\s*,\s*/, $1] if $type =~ /\{([^}]*)\}/;
		}
		open my $r, "<", $file or die; local $/; my $j = decode_json(<$r>);
		my @err;
		my $cmp = sub { my ($kind, $o, $where) = @_;
			my $want = join " ", sort keys %{$keys{$kind}};
			my $got = join " ", sort keys %$o;
			push @err, "$where: {$got}, the docs list {$want}" unless $want eq $got;
			for my $k (keys %{$sub{$kind} || {}}) {
				next unless ref $o->{$k} eq "HASH";
				my $w = join " ", sort @{$sub{$kind}{$k}};
				my $g = join " ", sort keys %{$o->{$k}};
				push @err, "$where.$k: {$g}, the docs list {$w}" unless $w eq $g;
			} };
		$cmp->("report", $j, "report");
		$cmp->("settle", $j->{settle}, "settle");
		my $settled = 0;
		for my $c (@{$j->{comparisons}}) {
			$cmp->("comparison", $c, "$c->{machine}/$c->{benchmark}");
			$cmp->("side", $c->{$_}, "$c->{benchmark}.$_") for qw(head reference);
			next unless $c->{settled};
			$settled++;
			$cmp->("settled", $c->{settled}, "$c->{machine}/$c->{benchmark}.settled");
		}
		push @err, "no settled row" unless $settled;
		push @err, "the docs list no keys of settled.stored" unless @{$sub{settled}{stored} || []} == 7;
		print STDERR "$_\n" for @err; exit !!@err;
	'"'"' "$ROOT/docs/gate-json.md" aa-settled.json
'

test_expect '--settle without bench settings in benchline.json: exit 2, saying so, before anything' '
	settings none &&
	rm -f repo/.benchline/gate-status.json &&
	expect_exit 2 bl gate --repo repo --head slow --settle >nobench.out 2>nobench.err;
	status=$?; settings; test $status = 0 &&
	echo "benchline: --settle measures again live with benchline.json'"'"'s bench settings, and '"'"'$TMP/repo/benchline.json'"'"' has no bench.run (the command that prints the results)" >expect &&
	test_cmp expect nobench.err &&
	test ! -s nobench.out &&
	! test -e repo/.benchline/gate-status.json
'

test_expect '--settle with --live, or with accept, is a usage error (exit 2)' '
	expect_exit 2 bl gate --repo repo --head slow --settle --live 2>err &&
	grep -q "^benchline: --settle measures a stored gate.s FAIL and UNDECIDED rows again live; --live measures every row live already: give one or the other$" err &&
	grep -q "^usage: benchline gate" err &&
	expect_exit 2 bl gate accept --repo repo --head slow --settle --justification x 2>err &&
	grep -q "^benchline: --settle goes with the gate.s verdict, not with .gate accept." err
'

test_done

#!/bin/sh
# benchline bisect (§9.3) on a real benchmark program: docs-only commits share a source and are
# never probed, a neutral code change is (its artifacts match good's, so nothing is measured),
# the commit that does 15% more work is pinned, and a history that is not slower is not
# reproduced. The metric judged is the program's iteration count ("work"), so no verdict here
# depends on how busy the machine is.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/e2e/bench-lib.sh"

# c1 good; c2 docs; c3 a comment (a new source, the same binary); c4 15% more work;
# c5 docs; c6 another comment; c7 (on a branch off c1) a comment only.
(
	set -e
	git init -q repo
	mkdir repo/docs
	bench_program repo/bench.c 2000000 latency
	echo notes >repo/docs/notes.md
	printf 'bench\nbenchline.json\n' >repo/.gitignore
	commit 'a benchmark' >c1
	echo 'more notes' >>repo/docs/notes.md
	commit 'docs only' >c2
	echo '/* a comment */' >>repo/bench.c
	commit 'a comment' >c3
	sed 's/^#define WORK 2000000$/#define WORK 2300000/' repo/bench.c >repo/bench.c.new
	mv repo/bench.c.new repo/bench.c
	commit '15% more work' >c4
	echo 'even more notes' >>repo/docs/notes.md
	commit 'docs only' >c5
	echo '/* another comment */' >>repo/bench.c
	commit 'another comment' >c6
	# a branch off c1: a commit that does not build, then the fix doing 15% more work
	git -C repo checkout -q -b other "$(cat c1)"
	echo 'this is not C' >>repo/bench.c
	commit 'broken' >b1
	sed 's/^#define WORK 2000000$/#define WORK 2300000/; /^this is not C$/d' repo/bench.c >repo/bench.c.new
	mv repo/bench.c.new repo/bench.c
	commit 'fixed, with 15% more work' >b2
	git -C repo checkout -q main 2>/dev/null || git -C repo checkout -q master
) >setup.log 2>&1 || { cat setup.log; echo 'Bail out! cannot build the test repository'; exit 1; }
c1=$(cat c1) c3=$(cat c3) c4=$(cat c4) c6=$(cat c6) b1=$(cat b1) b2=$(cat b2)
cat >repo/benchline.json <<'EOF2'
{"measured_paths": ["bench.c"], "unmeasured_paths": ["docs", ".gitignore"],
 "bench": {"build": "cc -O2 -o bench bench.c", "run": "./bench", "processes": 1,
           "artifacts": ["bench"]}}
EOF2

test_expect 'the commit doing 15% more work is pinned (exit 0), no source probed twice' '
	bl bisect --repo repo --good "$c1" --bad "$c6" --benchmark loop --metric work --json >out.json 2>err &&
	json_get out.json "\$j->{outcome} . q( ) . \$j->{pinned}{commit}" >actual &&
	echo "pinned $c4" >expect && test_cmp expect actual &&
	json_get out.json "\$j->{candidates}" >actual &&
	echo 3 >expect && test_cmp expect actual &&
	json_get out.json "join qq(\n), map { \$_->{source_hash} } @{\$j->{probes}}" | sort | uniq -d >dups &&
	test_cmp /dev/null dups
'
test_expect 'the probe log: the ends first, the comment measured nothing, the step is slower' '
	json_get out.json "join qq(\n), map { join q( ), \$_->{commit}, \$_->{verdict}, \$_->{identical_artifacts} ? q(identical) : q(measured) } @{\$j->{probes}}" >actual &&
	printf "%s slower measured\n%s same identical\n%s slower measured\n" "$c6" "$c3" "$c4" >expect &&
	test_cmp expect actual &&
	tail -1 err | grep -q "^bisect: pinned, 3 probes over 3 distinct sources$"
'
test_expect 'the text output ends with the pinned commit' '
	bl bisect --repo repo --good "$c1" --bad "$c6" --benchmark loop --metric work >out 2>/dev/null &&
	tail -1 out >actual &&
	echo "pinned $c4" >expect && test_cmp expect actual &&
	grep -q "^probe $(echo $c3 | cut -c1-12) same  *artifacts identical to good" out
'
test_expect 'a range with no slower source is not reproduced (exit 1)' '
	expect_exit 1 bl bisect --repo repo --good "$c1" --bad "$c3" --benchmark loop --metric work >out 2>err &&
	tail -1 out >actual &&
	echo "not reproduced: $(echo $c3 | cut -c1-12) is not slower than $(echo $c1 | cut -c1-12)" >expect &&
	test_cmp expect actual
'
test_expect 'an unbuildable probe is skipped; the range it leaves is inconclusive (exit 3)' '
	expect_exit 3 bl bisect --repo repo --good "$c1" --bad "$b2" --benchmark loop --metric work --json >inc.json 2>err &&
	json_get inc.json "join q( ), \$j->{status}, \$j->{remaining_range}[0]{commit}, \$j->{remaining_range}[1]{commit}" >actual &&
	echo "inconclusive $b1 $b2" >expect && test_cmp expect actual &&
	json_get inc.json "join q( ), @{\$j->{range}}{qw(good bad commits distinct_sources)}, @{\$j->{range}{remaining}}" >actual &&
	echo "$c1 $b2 2 2 $b1 $b2" >expect && test_cmp expect actual &&
	json_get inc.json "join q( ), map { \$_->{skipped} // q(-) } @{\$j->{probes}}" >actual &&
	echo "- unbuildable" >expect && test_cmp expect actual
'
test_expect 'a bad revision that cannot be built exits 125, naming it' '
	expect_exit 125 bl bisect --repo repo --good "$c1" --bad "$b1" --benchmark loop --metric work >out 2>err &&
	grep -q "side b ($(echo $b1 | cut -c1-12)): cannot build in" err
'
test_expect 'usage errors, a good not on the history, an unknown benchmark exit 2' '
	expect_exit 2 bl bisect --repo repo --good "$c1" --benchmark loop 2>err &&
	grep -q "good, --bad and --benchmark are needed" err &&
	expect_exit 2 bl bisect --repo repo --good "$c4" --bad "$c1" --benchmark loop 2>err &&
	grep -q "is not on the first-parent history of" err &&
	expect_exit 2 bl bisect --repo repo --good "$c1" --bad "$c6" --benchmark nothing 2>err &&
	grep -q "has no benchmark .nothing." err
'
test_done

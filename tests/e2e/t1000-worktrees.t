#!/bin/sh
# The re-bench's worktrees and builds (§9) through the plumbing command `benchline worktree`:
# both sides under .benchline/worktrees/ at paths of equal length and depth, detached at their
# commits, reused at another commit with tracked files forced back and build outputs kept,
# .benchline/ ignored by its own .gitignore so the main checkout stays clean; a real C
# benchmark built with cc; a failing build and one over its timeout exit 125; identical
# artifacts say so.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/e2e/bench-lib.sh"

# repo: c1 a benchmark, c2 a docs-only change (the same binary), c3 more work per loop (another
# binary), c4 a syntax error. benchline.json is read from the main checkout's working tree.
(
	set -e
	git init -q repo
	mkdir repo/docs
	bench_program repo/bench.c 200000 wall_ns
	echo 'notes' >repo/docs/notes.md
	echo bench >repo/.gitignore
	echo '{"bench": {"build": "cc -O2 -o bench bench.c", "run": "./bench", "artifacts": ["bench"]}}' \
		>repo/benchline.json
	commit 'a benchmark' >c1
	echo 'more notes' >>repo/docs/notes.md
	commit 'docs only' >c2
	sed 's/^#define WORK 200000$/#define WORK 400000/' repo/bench.c >repo/bench.c.new
	mv repo/bench.c.new repo/bench.c
	grep -q 400000 repo/bench.c
	commit 'twice the work' >c3
	echo 'this is not C' >>repo/bench.c
	commit 'broken' >c4
	git -C repo checkout -q "$(cat c3)"
	git -C repo checkout -q main
) >setup.log 2>&1 || { cat setup.log; echo 'Bail out! cannot build the test repository'; exit 1; }
c1=$(cat c1) c2=$(cat c2) c3=$(cat c3) c4=$(cat c4)
root=$(cd repo && pwd -P)

test_expect 'two sides at paths of equal length and depth, detached at their commits' '
	bl worktree --repo repo "$c1" "$c3" >out &&
	printf "a %s %s\nb %s %s\n" "$c1" "$root/.benchline/worktrees/a" \
		"$c3" "$root/.benchline/worktrees/b" >expect &&
	test_cmp expect out &&
	a=$(awk "NR == 1 { print \$3 }" out) b=$(awk "NR == 2 { print \$3 }" out) &&
	test "${#a}" = "${#b}" &&
	test "$(echo "$a" | tr -cd / | wc -c)" = "$(echo "$b" | tr -cd / | wc -c)" &&
	test "$(git -C "$a" rev-parse HEAD)" = "$c1" &&
	test "$(git -C "$b" rev-parse HEAD)" = "$c3" &&
	expect_exit 1 git -C "$a" symbolic-ref -q HEAD &&
	expect_exit 1 git -C "$b" symbolic-ref -q HEAD &&
	grep -q "define WORK 200000" "$a/bench.c" &&
	grep -q "define WORK 400000" "$b/bench.c"
'

test_expect '.benchline/ carries a .gitignore of "*": the main checkout stays clean' '
	echo "*" >expect &&
	test_cmp expect repo/.benchline/.gitignore &&
	git -C repo status --porcelain >status &&
	test_cmp /dev/null status &&
	git -C repo status --porcelain --untracked-files=all >status &&
	test_cmp /dev/null status &&
	test "$(git -C repo symbolic-ref HEAD)" = refs/heads/main &&
	git -C repo branch --list "benchline-*" >branches &&
	test_cmp /dev/null branches &&
	! ls repo/.git/logs/refs/heads | grep -q benchline &&
	test "$(git -C repo worktree list | wc -l)" = 3
'

test_expect 'the plumbing is in help, apart, and has its usage' '
	bl help >help &&
	sed -n "/^plumbing/,\$p" help | grep -q "^    worktree " &&
	bl worktree --help >usage &&
	grep -q "^usage: benchline worktree \[--repo DIR\] \[--build\] \[--run\] REV \[REV\]$" usage &&
	expect_exit 2 bl worktree --repo repo 2>err &&
	grep -q "give one or two revisions" err &&
	expect_exit 2 bl worktree --repo repo nope 2>err &&
	grep -q "^benchline: cannot resolve .nope. in .repo.$" err
'

test_expect 'a build compiles the benchmark in each worktree; --run runs it once' '
	bl worktree --repo repo --build --run "$c1" "$c3" >out &&
	grep -q "^a built in [0-9.]* s$" out &&
	grep -q "^b built in [0-9.]* s$" out &&
	grep -q "^a ran in [0-9.]* s: cpu_s [0-9.]*, peak_rss_kib [1-9][0-9]*, [1-9][0-9]* bytes of output$" out &&
	grep -q "^b ran in " out &&
	grep -q "^artifacts differ: .bench. differs$" out &&
	"$root/.benchline/worktrees/a/bench" | grep -q "^{\"loop\": {\"wall_ns\": [0-9]*}}$" &&
	git -C repo status --porcelain >status &&
	test_cmp /dev/null status
'

test_expect 'reuse at another commit: tracked files forced back, build outputs kept' '
	a=$root/.benchline/worktrees/a &&
	echo "/* a stray edit */" >>"$a/bench.c" &&
	echo "left by the build" >"$a/build.log" &&
	bl worktree --repo repo "$c2" >out &&
	echo "a $c2 $a" >expect &&
	test_cmp expect out &&
	test "$(git -C "$a" rev-parse HEAD)" = "$c2" &&
	git -C repo show "$c2:bench.c" >want &&
	test_cmp want "$a/bench.c" &&
	grep -q "more notes" "$a/docs/notes.md" &&
	test -f "$a/build.log" &&
	test -x "$a/bench" &&
	test "$(git -C repo worktree list | wc -l)" = 3 &&
	git -C repo branch --list "benchline-*" >branches &&
	test_cmp /dev/null branches
'

test_expect 'identical artifacts: a docs-only change builds the same binary' '
	bl worktree --repo repo --build "$c1" "$c2" >out &&
	grep -q "^artifacts identical (1 file): nothing can differ$" out &&
	cmp "$root/.benchline/worktrees/a/bench" "$root/.benchline/worktrees/b/bench"
'

test_expect 'a side that does not compile cannot be built: exit 125 with the compiler output' '
	expect_exit 125 bl worktree --repo repo --build "$c1" "$c4" >out 2>err &&
	grep -q "^b $c4 " out &&
	! grep -q "^b built" out &&
	head -1 err >first &&
	grep -q "^benchline: side b (.\{12\}): cannot build in .$root/.benchline/worktrees/b.: bench.build exited with status [1-9][0-9]*; the end of its output:$" first &&
	grep -q "this is not C\|bench.c:" err
'

test_expect 'a build over bench.build_timeout cannot be built: exit 125' '
	cp repo/benchline.json saved.json &&
	echo "{\"bench\": {\"build\": \"echo slow; sleep 30\", \"build_timeout\": 1}}" >repo/benchline.json &&
	expect_exit 125 bl worktree --repo repo --build "$c1" 2>err;
	status=$?
	cp saved.json repo/benchline.json &&
	test $status = 0 &&
	grep -q "^benchline: side a (.\{12\}): cannot build in .*: bench.build timed out after 1 s; the end of its output:$" err &&
	grep -qx "slow" err
'

test_expect 'a removed .benchline/ is made again; a directory in the way is an error' '
	rm -rf repo/.benchline &&
	bl worktree --repo repo "$c3" >out &&
	echo "a $c3 $root/.benchline/worktrees/a" >expect &&
	test_cmp expect out &&
	echo "*" >expect &&
	test_cmp expect repo/.benchline/.gitignore &&
	mkdir repo/.benchline/worktrees/b &&
	expect_exit 2 bl worktree --repo repo "$c3" "$c1" >out 2>err &&
	grep -q "^benchline: .$root/.benchline/worktrees/b. is in the way of benchline.s worktree: remove it$" err &&
	rmdir repo/.benchline/worktrees/b &&
	bl worktree --repo repo "$c3" "$c1" >out &&
	test "$(git -C repo worktree list | wc -l)" = 3 &&
	git -C repo status --porcelain >status &&
	test_cmp /dev/null status
'

test_expect 'a .benchline/ the user made is left as it is (no .gitignore written)' '
	git init -q other &&
	echo x >other/x && git -C other add x && git -C other commit -q -m x &&
	mkdir other/.benchline &&
	bl worktree --repo other HEAD >out &&
	test ! -e other/.benchline/.gitignore &&
	test -f other/.benchline/worktrees/a/x
'
test_done

#!/bin/sh
# gate --live measures commits (§7.10): in a checkout whose measured paths have uncommitted
# changes it would measure the committed head without them, so it refuses (exit 2, naming the
# paths) unless --allow-dirty, and then says what it measured. Changes outside the measured
# paths, or a head that is not the checkout's HEAD, do not matter.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/e2e/bench-lib.sh"

(
	set -e
	git init -q -b main repo
	mkdir repo/docs
	bench_program repo/bench.c 2000000 latency
	echo notes >repo/docs/notes.md
	printf 'bench\n.benchline/\nbenchline.json\n' >repo/.gitignore
	commit 'a benchmark' >c0
	git -C repo checkout -q -b pr
	echo '/* a comment */' >>repo/bench.c
	commit 'a comment' >c1
	cat >repo/benchline.json <<'EOF'
{"measured_paths": ["bench.c"], "unmeasured_paths": ["docs", ".gitignore", "benchline.json"],
 "metrics": ["work"],
 "bench": {"build": "cc -O2 -o bench bench.c", "run": "./bench", "processes": 1}}
EOF
) >setup.log 2>&1 || { cat setup.log; echo 'Bail out! cannot build the test repository'; exit 1; }
c1=$(cat c1)

test_expect 'an uncommitted change to a measured path: refused, exit 2, naming it' '
	sed "s/^#define WORK 2000000$/#define WORK 2600000/" repo/bench.c >repo/bench.c.new &&
	mv repo/bench.c.new repo/bench.c &&
	expect_exit 2 bl gate --live --repo repo --base main >out 2>err &&
	head -1 err >actual &&
	echo "benchline: the measured paths of '"'"'$(cd repo && pwd -P)'"'"' have uncommitted changes (bench.c): gate --live measures commits, and would measure $(echo $c1 | cut -c1-12) without them; commit them, or give --allow-dirty to measure the commit as it is" >expect &&
	test_cmp expect actual &&
	test ! -s out &&
	! test -e repo/.benchline/worktrees
'
test_expect '--allow-dirty: measured, and it says it measured the committed head' '
	bl gate --live --repo repo --base main --allow-dirty >out 2>err &&
	grep -q "^gate --live: measured $(echo $c1 | cut -c1-12) as committed, without the uncommitted changes to bench.c (--allow-dirty)$" err &&
	tail -1 out | grep -q "^gate: pass"
'
test_expect 'changes outside the measured paths, or a head that is not HEAD, are no reason' '
	git -C repo checkout -q bench.c &&
	echo "more notes" >>repo/docs/notes.md &&
	bl gate --live --repo repo --base main >out 2>err &&
	! grep -q "allow-dirty" err &&
	echo "/* uncommitted */" >>repo/bench.c &&
	bl gate --live --repo repo --base main --head main >out 2>err &&
	! grep -q "allow-dirty" err
'
test_expect '--allow-dirty names five changed paths however long they are, then how many more' '
	git -C repo checkout -q bench.c &&
	mkdir repo/long &&
	for i in 1 2 3 4 5 6 7; do
		echo "/* $i */" >"repo/long/$(printf "%0120d" $i).c" || return 1
	done &&
	git -C repo add long && git -C repo commit -q -m "long names" &&
	c2=$(git -C repo rev-parse HEAD) &&
	sed "s|\"measured_paths\": \[\"bench.c\"\]|\"measured_paths\": [\"bench.c\", \"long\"]|" \
		repo/benchline.json >b.json && mv b.json repo/benchline.json &&
	grep -q "\"long\"" repo/benchline.json &&
	for f in repo/long/*.c; do echo "/* changed */" >>"$f" || return 1; done &&
	bl gate --live --repo repo --base main --allow-dirty >out 2>err &&
	names=$(for i in 1 2 3 4 5; do printf "long/%0120d.c, " $i; done) &&
	grep -q "^gate --live: measured $(echo $c2 | cut -c1-12) as committed, without the uncommitted changes to ${names%, } and 2 more (--allow-dirty)$" err
'
test_done

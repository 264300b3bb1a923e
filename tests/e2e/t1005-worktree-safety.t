#!/bin/sh
# The re-bench's worktrees stay benchline's (§13): a committed .benchline symlink never sends
# them outside the repository; benchline holds its own lock on them, so a second command on
# the same checkout is refused while the first runs; an index.lock (or HEAD.lock) that a killed
# run left in a worktree is cleared instead of failing every later re-bench.
. "$(dirname "$0")/lib.sh"

(
	set -e
	git init -q repo
	echo 'int main(void) { return 0; }' >repo/bench.c
	echo '{"bench": {"build": "true", "run": "true"}}' >repo/benchline.json
	git -C repo add -A
	git -C repo commit -q -m one
	git -C repo rev-parse HEAD >c1
) >setup.log 2>&1 || { cat setup.log; echo 'Bail out! cannot build the test repository'; exit 1; }
c1=$(cat c1)
root=$(cd repo && pwd -P)

test_expect 'a committed .benchline symlink is refused; nothing is made where it points' '
	git clone -q repo linked &&
	mkdir outside &&
	ln -s "$TMP/outside" linked/.benchline &&
	git -C linked add .benchline && git -C linked commit -q -m "a link" &&
	expect_exit 2 bl worktree --repo linked "$c1" "$c1" 2>err &&
	grep -q "^benchline: .*linked/.benchline. is a symbolic link, never followed: benchline keeps its worktrees inside the repository (remove the link)$" err &&
	test -z "$(ls -A outside)" &&
	expect_exit 2 bl rebench --repo linked "$c1" "$c1" 2>err &&
	grep -q "is a symbolic link, never followed" err &&
	test -z "$(ls -A outside)"
'
test_expect 'so is a .benchline/worktrees symlink' '
	mkdir -p repo/.benchline && ln -s "$TMP/outside" repo/.benchline/worktrees &&
	expect_exit 2 bl worktree --repo repo "$c1" "$c1" 2>err &&
	grep -q "benchline/worktrees. is a symbolic link, never followed" err &&
	test -z "$(ls -A outside)" &&
	rm repo/.benchline/worktrees
'
test_expect 'benchline holds its own lock on the worktrees: a second command is refused, naming the first' '
	bl worktree --repo repo "$c1" "$c1" >out &&
	test -f "$root/.benchline/worktrees/.lock" &&
	echo 4242 >"$root/.benchline/worktrees/.lock" &&
	expect_exit 2 flock "$root/.benchline/worktrees/.lock" "$BENCHLINE" worktree --repo repo "$c1" "$c1" 2>err &&
	grep -q "^benchline: another benchline (pid 4242) is using the worktrees in .$root/.benchline/worktrees.: wait for it to end$" err &&
	bl worktree --repo repo "$c1" "$c1" >out
'
test_expect 'an index.lock or HEAD.lock a killed run left in a worktree is cleared' '
	gitdir=$(git -C "$root/.benchline/worktrees/a" rev-parse --absolute-git-dir) &&
	: >"$gitdir/index.lock" &&
	: >"$gitdir/HEAD.lock" &&
	bl worktree --repo repo "$c1" "$c1" >out 2>err &&
	test ! -e "$gitdir/index.lock" &&
	test ! -e "$gitdir/HEAD.lock"
'
test_done

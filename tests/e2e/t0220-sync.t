#!/bin/sh
# `benchline sync` (§3): main's first-parent history with seq, parent, source hash, time,
# subject and pull request; incremental; a rewritten main drops what left it; the main branch
# rule; and the not-main tag (§5) once main is known.
. "$(dirname "$0")/lib.sh"

commit() {
	git -C "$1" add -A . && git -C "$1" commit -q -m "$2"
}

# repo: main with a squash merge (#12), a docs-only commit, and a real merge of a pull
# request branch (#7) whose own commits are not on main's first-parent history.
(
	set -e
	git init -q repo
	mkdir -p repo/src repo/docs
	echo 'v1' >repo/src/main.c
	echo 'docs' >repo/docs/index.md
	echo '{"measured_paths": ["src"], "unmeasured_paths": ["docs", "benchline.json"],
	  "machines": {"ci-1": {"keep": "first"}}}' >repo/benchline.json
	commit repo 'initial'
	echo 'sky' >>repo/src/main.c
	commit repo 'Add the sky (#12)'
	echo 'typo' >>repo/docs/index.md
	commit repo 'docs: fix a typo'
	git -C repo checkout -q -b x/y
	echo 'pr7-a' >>repo/src/main.c
	commit repo 'pr 7: first'
	echo 'pr7-b' >>repo/src/main.c
	commit repo 'pr 7: second'
	git -C repo checkout -q main
	git -C repo merge -q --no-ff -m 'Merge pull request #7 from x/y' x/y
) >setup.log 2>&1 || { cat setup.log; echo 'Bail out! cannot build the test repository'; exit 1; }

q() {
	db_sql "$BENCHLINE_DB" "$1"
}

test_expect 'the first sync stores main first-parent history' '
	bl sync --repo repo --json >out &&
	test "$(json_get out "\$j->{branch}")" = main &&
	test "$(json_get out "\$j->{tip}")" = "$(git -C repo rev-parse main)" &&
	test "$(json_get out "\$j->{walked}")" = 4 &&
	test "$(json_get out "\$j->{total}")" = 4 &&
	test "$(json_get out "\$j->{rewritten} ? 1 : 0")" = 0 &&
	test "$(q "select count(*) from commits")" = 4
'

test_expect 'seq, parent, subject, time and pull request of each commit' '
	git -C repo rev-list --first-parent --reverse main >fp &&
	n=0 && parent= &&
	while read -r sha; do
		row=$(q "select seq, coalesce(parent, '\''-'\''), subject, committed_at, coalesce(pr, 0)
			 from commits where sha = '\''$sha'\''") &&
		want="$n|${parent:--}|$(git -C repo log -1 --format="%s|%ct" $sha)" &&
		test "${row%|*}" = "$want" || { echo "got $row, want $want"; exit 1; }
		n=$((n + 1)) && parent=$sha
	done <fp &&
	test "$(q "select seq || '\'':'\'' || coalesce(cast(pr as text), '\'''\'')
		   from commits order by seq" | tr "\n" " ")" = "0: 1:12 2: 3:7 "
'

test_expect 'the stored source hash is what hash prints' '
	q "select sha, source_hash from commits order by seq" >stored &&
	while IFS="|" read -r sha hash; do
		test "$(bl hash --repo repo $sha)" = "$hash $sha" || exit 1
	done <stored &&
	test "$(q "select count(distinct source_hash) from commits")" = 3
'

test_expect 'the pull request branch own commits are not stored' '
	for sha in $(git -C repo rev-list main ^main^1); do
		test "$(git -C repo rev-parse main)" = $sha ||
		test "$(q "select count(*) from commits where sha = '\''$sha'\''")" = 0 || exit 1
	done
'

test_expect 'meta and keep-first machines are stored' '
	test "$(q "select value from meta where key = '\''main_branch'\''")" = main &&
	test "$(q "select value from meta where key = '\''synced_tip'\''")" = \
		"$(git -C repo rev-parse main)" &&
	test "$(q "select keep from machines where name = '\''ci-1'\''")" = first
'

test_expect 'an up-to-date sync walks nothing' '
	bl sync --repo repo >out &&
	test "$(cat out)" = \
		"synced 0 new commits of main (4 in all), tip $(git -C repo rev-parse main)"
'

test_expect 'one appended commit walks exactly one' '
	echo "v2" >>repo/src/main.c && commit repo "Speed up (#21)" &&
	bl sync --repo repo --json >out &&
	test "$(json_get out "\$j->{walked}")" = 1 &&
	test "$(json_get out "\$j->{total}")" = 5 &&
	test "$(json_get out "\$j->{rewritten} ? 1 : 0")" = 0 &&
	test "$(q "select seq || '\'' '\'' || pr || '\'' '\'' || parent from commits
		   where sha = '\''$(git -C repo rev-parse HEAD)'\''")" = \
		"4 21 $(git -C repo rev-parse HEAD~1)"
'

test_expect 'a rewritten main drops the commits that left it' '
	git -C repo rev-parse HEAD HEAD~1 >dropped &&
	git -C repo reset -q --hard HEAD~2 &&
	echo "v3" >>repo/src/main.c && commit repo "Redo (#30)" &&
	bl sync --repo repo --json >out 2>err &&
	test "$(json_get out "\$j->{walked}")" = 1 &&
	test "$(json_get out "\$j->{total}")" = 4 &&
	test "$(json_get out "\$j->{rewritten} ? 1 : 0")" = 1 &&
	for sha in $(cat dropped); do
		test "$(q "select count(*) from commits where sha = '\''$sha'\''")" = 0 || exit 1
	done &&
	test "$(q "select seq from commits where sha = '\''$(git -C repo rev-parse HEAD)'\''")" = 3 &&
	test "$(q "select max(seq) from commits")" = 3
'

test_expect 'main moved back with no new commit: walked 0, rewritten, the tip dropped' '
	git -C repo reset -q --hard HEAD~1 &&
	bl sync --repo repo >out 2>err &&
	grep -q "^synced 0 new commits of main (3 in all), tip $(git -C repo rev-parse HEAD)$" out &&
	grep -q "main was rewritten" err &&
	test "$(q "select count(*) from commits")" = 3
'

test_expect 'an unrelated history replaces every stored commit' '
	git init -q other &&
	echo a >other/a && commit other one && echo b >other/a && commit other two &&
	bl sync --repo other --json >out &&
	test "$(json_get out "\$j->{walked}")" = 2 &&
	test "$(json_get out "\$j->{total}")" = 2 &&
	test "$(json_get out "\$j->{rewritten} ? 1 : 0")" = 1 &&
	test "$(q "select sha from commits order by seq")" = "$(git -C other rev-list --reverse main)" &&
	bl sync --repo repo --json >out &&
	test "$(json_get out "\$j->{walked}")" = 3
'

test_expect 'a changed measured list recomputes every stored source hash' '
	cp repo/benchline.json saved.json &&
	echo "{\"measured_paths\": [\"src\", \"docs\"]}" >repo/benchline.json &&
	bl sync --repo repo --json >out &&
	test "$(json_get out "\$j->{walked}")" = 3 &&
	test "$(json_get out "\$j->{rewritten} ? 1 : 0")" = 0 &&
	q "select sha, source_hash from commits order by seq" >stored &&
	while IFS="|" read -r sha hash; do
		test "$(bl hash --repo repo $sha)" = "$hash $sha" || exit 1
	done <stored &&
	test "$(q "select count(distinct source_hash) from commits")" = 3 &&
	cp saved.json repo/benchline.json &&
	bl sync --repo repo --json >out &&
	test "$(json_get out "\$j->{walked}")" = 3 &&
	bl sync --repo repo --json >out &&
	test "$(json_get out "\$j->{walked}")" = 0
'

# branches DIR NAME...: a repository whose branches NAME... all hold its one commit.
branches() {
	dir=$1 && shift &&
	git init -q -b scratch "$dir" && echo x >"$dir/x" && commit "$dir" one &&
	for b in "$@"; do git -C "$dir" branch -q "$b" || return 1; done &&
	git -C "$dir" checkout -q "$1" &&
	git -C "$dir" branch -q -D scratch
}

# branch_of DIR: the branch sync picks.
branch_of() {
	bl --db "$1.db" sync --repo "$1" --json >"$1.out" &&
	json_get "$1.out" "\$j->{branch}"
}

test_expect 'main branch: origin/HEAD first, even over main and master' '
	branches up trunk main master &&
	git -C up checkout -q trunk &&
	echo y >up/y && commit up "trunk only" &&
	git clone -q up clone &&
	test "$(git -C clone symbolic-ref refs/remotes/origin/HEAD)" = refs/remotes/origin/trunk &&
	git -C clone branch -q main origin/main &&
	test "$(branch_of clone)" = trunk &&
	test "$(json_get clone.out "\$j->{tip}")" = "$(git -C up rev-parse trunk)" &&
	test "$(db_sql clone.db "select value from meta where key = '\''main_branch'\''")" = trunk
'

test_expect 'main branch: the local branch of origin/HEAD wins over its remote-tracking ref' '
	echo z >clone/z && commit clone "local work" &&
	test "$(branch_of clone)" = trunk &&
	test "$(json_get clone.out "\$j->{tip}")" = "$(git -C clone rev-parse trunk)" &&
	test "$(git -C clone rev-parse trunk)" != "$(git -C clone rev-parse origin/trunk)"
'

test_expect 'main branch: without a local branch, the remote-tracking ref' '
	git clone -q up clone2 &&
	git -C clone2 checkout -q -b work &&
	git -C clone2 branch -q -D trunk &&
	echo w >up/w && commit up "upstream moves" && git -C clone2 fetch -q &&
	test "$(branch_of clone2)" = trunk &&
	test "$(json_get clone2.out "\$j->{tip}")" = "$(git -C up rev-parse trunk)" &&
	test "$(json_get clone2.out "\$j->{total}")" = 3
'

test_expect 'main branch: else main, else master, else an error' '
	branches both master main && test "$(branch_of both)" = main &&
	branches old master dev && test "$(branch_of old)" = master &&
	branches neither dev trunk &&
	expect_exit 2 bl --db neither.db sync --repo neither 2>err &&
	grep -q "^benchline: .neither. has no main branch" err
'

test_expect 'main branch: benchline.json main_branch overrides, and must exist' '
	echo "{\"main_branch\": \"dev\"}" >neither/benchline.json &&
	test "$(branch_of neither)" = dev &&
	echo "{\"main_branch\": \"release\"}" >neither/benchline.json &&
	expect_exit 2 bl --db neither.db sync --repo neither 2>err &&
	grep -q "no branch .release. in .neither." err
'

test_expect 'sync without --repo, or with an argument, is a usage error with no database' '
	expect_exit 2 bl --db u.db sync 2>err &&
	grep -q "^usage: benchline sync" err &&
	expect_exit 2 bl --db u.db sync --repo repo extra 2>err &&
	grep -q "^usage: benchline sync" err &&
	db_absent u.db
'

test_expect 'sync of a directory that is not a repository exits 2' '
	mkdir plain &&
	expect_exit 2 bl --db p.db sync --repo plain 2>err &&
	grep -q "^benchline: .plain. is not a git repository$" err
'

test_expect 'a failed sync stores nothing (shallow clone)' '
	git clone -q --depth 1 "file://$TMP/repo" shallow &&
	expect_exit 2 bl --db s.db sync --repo shallow 2>err &&
	grep -q "shallow" err &&
	test "$(db_sql s.db "select count(*) from commits")" = 0 &&
	test "$(db_sql s.db "select count(*) from meta")" = 0
'

# The not-main tag (§5): records on main lose it once main is known, branch records keep it.
rec() {
	printf '{"schema":1,"machine":"m1","benchmark":"%s","harness_version":1,' "$1"
	printf '"source":{"commit":"%s","source_hash":"%s","branch":"%s"},' "$2" "$3" "$4"
	printf '"started_at":"2026-11-02T04:00:00Z","metrics":{"wall":{"kind":"timed",'
	printf '"unit":"ms","better":"lower","median":100,"p95":101,"n":10}}}\n'
}

not_main() {
	db_sql tags.db "select b.name || '=' || case when exists (select 1 from tags t
		where t.run_id = r.id and t.tag = 'not-main') then 1 else 0 end
		from runs r join benchmarks b on b.id = r.benchmark_id order by b.name" |
		tr "\n" " "
}

test_expect 'not-main: records on main lose it after sync, branch records keep it' '
	git -C repo checkout -q -b wip &&
	echo wip >>repo/src/main.c && commit repo "wip" &&
	git -C repo checkout -q main &&
	git -C repo checkout -q -b pr40 &&
	echo pr40 >>repo/src/main.c && commit repo "pr 40" &&
	git -C repo checkout -q main &&
	git -C repo merge -q --squash pr40 && git -C repo commit -q -m "Pr forty (#40)" &&
	h() { bl hash --repo repo "$1"; } &&
	set -- $(h main~1) && rec a-main $2 $1 main >r.json &&
	set -- $(h wip) && rec b-wip $2 $1 wip >>r.json &&
	set -- $(h pr40) && rec c-prhead $2 $1 pr40 >>r.json &&
	set -- $(h wip) && rec d-claims-main $2 $1 main >>r.json &&
	bl --db tags.db ingest r.json >/dev/null &&
	test "$(not_main)" = "a-main=0 b-wip=1 c-prhead=1 d-claims-main=0 " &&
	bl --db tags.db sync --repo repo >/dev/null &&
	test "$(not_main)" = "a-main=0 b-wip=1 c-prhead=0 d-claims-main=1 " &&
	set -- $(h main) &&
	test "$(db_sql tags.db "select pr from commits where sha = '\''$2'\''")" = 40
'
test_done

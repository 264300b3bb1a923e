#!/bin/sh
# benchline sweep (§10) on a real benchmark program: tonight's main is built, run and stored
# with its commit and source hash; a docs-only commit is not measured again; --since measures
# every source not measured yet, newest first, and the summary counts right; each source is
# measured at the commit that made it, never at a docs-only commit after it, and the root commit
# is measured like any other; a commit that cannot be built is skipped and counted; preflight
# runs before each process, and each process's records carry its preflight and process figures
# as `benchline run`'s do; --confirm --pending turns a planted 15% slowdown into one Regression
# the night it lands (without --pending the fresh alert waits until it persisted: t1065). The
# metric judged is the program's iteration count ("work"), so no verdict depends on how busy the
# machine is.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/e2e/bench-lib.sh"

# c0; k1..k6 comments (new sources, the same work); then, test by test, d1 docs only; s1 15% more
# work, k7, k8 comments; b1 broken.
(
	set -e
	bench_repo
	comment_commits 1 6
) >setup.log 2>&1 || { cat setup.log; echo 'Bail out! cannot build the test repository'; exit 1; }
c0=$(cat c0)
for k in 1 2 3 4 5 6; do eval "k$k=\$(cat k$k)"; done
cat >repo/benchline.json <<'EOF2'
{"measured_paths": ["bench.c"], "unmeasured_paths": ["docs", ".gitignore"],
 "metrics": ["work"], "machine": "night1",
 "quiet": {"cpu_load_pct": 100, "gpu_load_pct": 100},
 "bench": {"build": "cc -O2 -o bench bench.c", "run": "./bench", "processes": 2}}
EOF2

# records DB: "COMMIT-SHORT SOURCE-SHORT work" per standing record, newest first.
records() {
	bl --db "$1" records --json | json_get - 'join "", map { substr($_->{commit}, 0, 7) . " " . substr($_->{source_hash}, 0, 7) . " " . $_->{metrics}{work}{median} . "\n" } sort { $b->{seq} <=> $a->{seq} } @$j' |
		sed '/^$/d'
}

test_expect 'tonight'"'"'s main: built, run twice with preflight, stored with its commit and source hash' '
	bl --db s.db sweep --repo repo >out 2>err &&
	grep -q "^\[1/1\] $(echo $k6 | cut -c1-7) comment 6: build [0-9.]* s, run 2 x [0-9.]* s, 2 runs$" err &&
	tail -1 err >actual &&
	echo "sweep: 1 commit measured (0 already measured, 0 unbuildable), 2 runs stored (1 record: 1 joined their Series, 0 tagged), 0 new Suspects, 0 new alerts" >expect &&
	test_cmp expect actual &&
	bl hash --repo repo "$k6" | cut -c1-7 >src &&
	printf "%s %s 2000000\n" "$(echo $k6 | cut -c1-7)" "$(cat src)" >expect &&
	records s.db >actual &&
	test_cmp expect actual &&
	bl --db s.db records --json | json_get - "\$j->[0]{machine} . q( ) . (exists \$j->[0]{tags} ? scalar @{\$j->[0]{tags}} : 0)" >actual &&
	echo "night1 0" >expect &&
	test_cmp expect actual &&
	bl --db s.db records --all --json | json_get - "scalar @\$j" >actual &&
	echo 2 >expect &&
	test_cmp expect actual
'

# The figures of each stored run, as `benchline run` annotates its own (t0310). The preflight is
# there ("kept"), quiet or not: a suite running beside it may make the machine busy.
annotations() {
	db_sql "$1" "select raw from runs order by id" |
		perl -MJSON::PP -ne '
			my $j = decode_json($_); my $p = $j->{process};
			printf "preflight %s, argv %s, exit %s, figures %s\n",
				exists $j->{preflight} && exists $j->{preflight}{quiet} ? "kept" : "none",
				join(" ", @{ $p->{argv} }), $p->{exit},
				(defined $p->{wall_s} && defined $p->{cpu_s} && $p->{peak_rss_kib} > 0) ? "yes" : "no";
		'
}

test_expect 'each process'"'"'s records carry its preflight and process figures, as run'"'"'s do' '
	annotations s.db >actual &&
	printf "preflight kept, argv /bin/sh -c ./bench, exit 0, figures yes\n" >line &&
	cat line line >expect &&
	test_cmp expect actual
'

test_expect 'a docs-only commit is not measured again' '
	echo "more notes" >>repo/docs/notes.md &&
	git -C repo add -A && git -C repo commit -q -m "docs only" &&
	bl --db s.db sweep --repo repo >out 2>err &&
	tail -1 err >actual &&
	echo "sweep: 0 commits measured (1 already measured, 0 unbuildable), 0 runs stored (0 records: 0 joined their Series, 0 tagged), 0 new Suspects, 0 new alerts" >expect &&
	test_cmp expect actual &&
	! grep -q "^\[" err
'

test_expect '--since: every source not measured yet, newest first; the summary counts right' '
	bl --db s.db sweep --repo repo --since "$c0" --no-preflight >out 2>err &&
	grep "^\[" err | cut -d" " -f1,2 >actual &&
	printf "[1/5] %s\n[2/5] %s\n[3/5] %s\n[4/5] %s\n[5/5] %s\n" \
		"$(echo $k5 | cut -c1-7)" "$(echo $k4 | cut -c1-7)" "$(echo $k3 | cut -c1-7)" \
		"$(echo $k2 | cut -c1-7)" "$(echo $k1 | cut -c1-7)" >expect &&
	test_cmp expect actual &&
	tail -1 err >actual &&
	echo "sweep: 5 commits measured (1 already measured, 0 unbuildable), 10 runs stored (5 records: 5 joined their Series, 0 tagged), 0 new Suspects, 0 new alerts" >expect &&
	test_cmp expect actual
'

test_expect 'with --no-preflight the records carry their process figures and no preflight' '
	annotations s.db | tail -n +3 | sort | uniq -c | sed "s/^ *//" >actual &&
	echo "10 preflight none, argv /bin/sh -c ./bench, exit 0, figures yes" >expect &&
	test_cmp expect actual
'

test_expect '--confirm --pending: a planted 15% slowdown becomes one Regression the night it lands' '
	more_work &&
	git -C repo add -A && git -C repo commit -q -m "15% more work (#7)" &&
	git -C repo rev-parse HEAD >s1 &&
	for k in 7 8; do
		echo "/* comment $k */" >>repo/bench.c &&
		git -C repo add -A && git -C repo commit -q -m "comment $k" &&
		git -C repo rev-parse HEAD >k$k || return 1
	done &&
	bl --db s.db sweep --repo repo --no-preflight --confirm --pending >out 2>err &&
	tail -1 err >actual &&
	echo "sweep: 1 commit measured (0 already measured, 0 unbuildable), 2 runs stored (1 record: 1 joined their Series, 0 tagged), 1 new Suspect, 1 new alert, 1 alert confirmed (1 Regression)" >expect &&
	test_cmp expect actual &&
	bl --db s.db regressions --json | json_get - "join q( ), scalar @\$j, \$j->[0]{commit}, \$j->[0]{machine}, \$j->[0]{pull_request}" >actual &&
	echo "1 $(cat s1) night1 7" >expect &&
	test_cmp expect actual
'

test_expect 'a commit that cannot be built is skipped and counted' '
	echo "this is not C" >>repo/bench.c &&
	git -C repo add -A && git -C repo commit -q -m "broken" &&
	git -C repo rev-parse HEAD >b1 &&
	bl --db s.db sweep --repo repo --no-preflight >out 2>err &&
	grep -q "^\[1/1\] $(cut -c1-7 b1) broken: cannot be built, skipped (cannot build in" err &&
	tail -1 err | grep -q "^sweep: 0 commits measured (0 already measured, 1 unbuildable), 0 runs stored (0 records: "
'

test_expect 'no bench.run: an error naming benchline.json, nothing stored' '
	mkdir norun && git -C norun init -q && echo "int main(void) { return 0; }" >norun/x.c &&
	git -C norun add -A && git -C norun commit -q -m one &&
	echo "{\"bench\": {\"build\": \"true\"}}" >norun/benchline.json &&
	expect_exit 2 bl --db norun.db sweep --repo norun --no-preflight 2>err &&
	grep -q "norun/benchline.json: bench.run: not set" err &&
	bl --db norun.db records --all --json >actual &&
	echo "[]" >expect &&
	test_cmp expect actual
'

# ./first: the root (the benchmark), a code change, then a docs-only commit on top of it.
(
	set -e
	mkdir first
	cd first
	git init -q repo
	mkdir repo/docs
	bench_program repo/bench.c 2000000 latency
	echo notes >repo/docs/notes.md
	printf 'bench\nbenchline.json\n' >repo/.gitignore
	commit 'a benchmark' >root
	echo "/* the change */" >>repo/bench.c
	commit 'the change' >change
	echo "a changelog" >repo/docs/CHANGES.md
	commit 'docs: start a changelog' >docs
) >setup-first.log 2>&1 || { cat setup-first.log; echo 'Bail out! cannot build the first-commit repository'; exit 1; }
cp repo/benchline.json first/repo/benchline.json

# commits DB: the commit of each standing record, newest first.
commits() {
	bl --db "$1" records --json | json_get - 'join "", map { "$_->{commit}\n" } sort { $b->{seq} <=> $a->{seq} } @$j' |
		sed '/^$/d'
}

test_expect 'each source is measured at its first commit: the change, not the docs commit after it, and the root' '
	bl --db first.db sweep --repo first/repo --last 5 --no-preflight >out 2>err &&
	grep "^\[" err | sed "s/: build .*//" >actual &&
	printf "[1/2] %.7s the change\n[2/2] %.7s a benchmark\n" "$(cat first/change)" "$(cat first/root)" >expect &&
	test_cmp expect actual &&
	commits first.db >actual &&
	cat first/change first/root >expect &&
	test_cmp expect actual
'

test_expect '--since: the source after it at its first commit; the source of REV itself (its docs commits) is not after it' '
	bl --db since.db sweep --repo first/repo --since "$(cat first/root)" --no-preflight >out 2>err &&
	commits since.db >actual &&
	cat first/change >expect &&
	test_cmp expect actual &&
	bl --db since2.db sweep --repo first/repo --since "$(cat first/change)" --no-preflight >out 2>err &&
	tail -1 err | grep -q "^sweep: 0 commits measured (0 already measured, 0 unbuildable)" &&
	! grep -q "^\[" err
'

test_expect 'usage: --since with --last, a negative --last' '
	expect_exit 2 bl --db s.db sweep --repo repo --since "$c0" --last 2 2>err &&
	grep -q "give --since or --last, not both" err &&
	expect_exit 2 bl --db s.db sweep --repo repo --last -1 2>err &&
	grep -q "cannot be negative" err
'

test_done

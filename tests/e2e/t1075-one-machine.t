#!/bin/sh
# §10, "one machine name per checkout": every command that stores, pushes or looks up records
# reads benchline.json from its repository (--repo, else the repository holding the current
# directory) for machine, harness_version (default 1), format and metrics; flags override it.
# The story a user met: after a sweep stored main under benchline.json's "nc-box", `benchline
# run` on a branch stored the head under the host name (Google Benchmark's host_name), after
# measuring for nothing when --harness-version was missing, and the gate answered "no reference"
# without a hint. Here run and gate agree on nc-box; run measures nothing it could not store; a
# gate whose head was measured under another name says which machines the merge base has; detect
# and ingest from inside the checkout read its benchline.json; a run outside any repository keeps
# the host name and says so. The metric judged is "work", a count no machine state moves.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/e2e/bench-lib.sh"

host=$(uname -n)

# gbench_program FILE: bench_program's loop printed as Google Benchmark's JSON, three
# repetitions, with the host name in its context (as Google Benchmark prints it) and the
# iteration count as the user counter "work".
gbench_program() {
	cat >"$1" <<'EOC'
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#ifndef WORK
#define WORK 2000000
#endif
int main(void)
{
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	printf("{\"context\": {\"host_name\": \"%s\", \"date\": \"2026-11-02T04:00:00+00:00\"},\n"
	       " \"benchmarks\": [\n", host);
	for (int r = 0; r < 3; r++) {
		struct timespec a, b;
		volatile unsigned long s = 0;
		clock_gettime(CLOCK_MONOTONIC, &a);
		for (unsigned long i = 0; i < WORK; i++)
			s += i * i;
		clock_gettime(CLOCK_MONOTONIC, &b);
		printf("  {\"name\": \"BM_loop\", \"run_name\": \"BM_loop\", \"run_type\": "
		       "\"iteration\", \"repetitions\": 3, \"repetition_index\": %d, \"threads\": 1, "
		       "\"iterations\": 1, \"real_time\": %ld, \"cpu_time\": %ld, \"time_unit\": "
		       "\"ns\", \"work\": %d}%s\n",
		       r, (long)((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec)),
		       (long)((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec)), WORK,
		       r < 2 ? "," : "");
	}
	printf(" ]}\n");
	return 0;
}
EOC
}

# ./repo: the program on main ('a benchmark', then 'comment 1'); benchline.json (not committed)
# names the machine nc-box, judges "work" only, and runs the program in gbench's format.
(
	set -e
	git init -q repo
	mkdir repo/docs
	gbench_program repo/bench.c
	echo notes >repo/docs/notes.md
	printf 'bench\nbenchline.json\n' >repo/.gitignore
	commit 'a benchmark' >c0
	comment_commits 1 1
) >setup.log 2>&1 || { cat setup.log; echo 'Bail out! cannot build the test repository'; exit 1; }
cat >repo/benchline.json <<'EOF'
{"measured_paths": ["bench.c"], "unmeasured_paths": ["docs", ".gitignore"],
 "metrics": ["work"], "machine": "nc-box",
 "bench": {"build": "cc -O2 -o bench bench.c", "run": "./bench", "format": "gbench",
           "processes": 1}}
EOF

# rows DB: "MACHINE HARNESS" of each standing record, sorted.
rows() {
	bl --db "$1" records --json | json_get - 'join "", sort map { "$_->{machine} $_->{harness_version}\n" } @$j' |
		sed '/^$/d'
}

test_expect 'the sweep stores main under benchline.json'"'"'s machine' '
	bl --db story.db sweep --repo repo --no-preflight >out 2>err &&
	tail -1 err | grep -q "^sweep: 1 commit measured" &&
	rows story.db >actual &&
	echo "nc-box 1" >expect &&
	test_cmp expect actual
'

test_expect 'run on a branch, no flags: the head is stored on nc-box with harness version 1, and says so' '
	git -C repo checkout -q -b faster &&
	echo "/* the branch */" >>repo/bench.c &&
	git -C repo commit -q -am "the branch" &&
	(cd repo && cc -O2 -o bench bench.c && bl --db ../story.db run --no-preflight -- ./bench) >out 2>err &&
	grep -q "^output of .\./bench.: nc-box/BM_loop [0-9a-f]* harness 1: stands" out &&
	grep -q "^run: machine .nc-box. from \"machine\" in .*repo/benchline.json, harness version 1 from the default$" err &&
	rows story.db >actual &&
	printf "nc-box 1\nnc-box 1\n" >expect &&
	test_cmp expect actual
'

test_expect 'gate from the checkout finds the reference the sweep stored: run and gate agree' '
	(cd repo && bl --db ../story.db gate --json ../gate.json) >out 2>err &&
	json_get gate.json "join q( ), \$j->{status}, map { \"\$_->{machine}:\$_->{metric}:\$_->{status}\" } grep { \$_->{metric} eq q(work) } @{\$j->{comparisons}}" >actual &&
	echo "pass nc-box:work:PASS" >expect &&
	test_cmp expect actual &&
	json_get gate.json "join q(,), @{\$j->{merge_base}{machines}}" >actual &&
	echo nc-box >expect &&
	test_cmp expect actual
'

test_expect 'run checks before running: a format that names no commit and no repository is refused, nothing run' '
	mkdir -p outside &&
	cp repo/bench outside/bench &&
	(cd outside && expect_exit 2 bl --db ../story.db run --no-preflight --format gbench -- sh -c "touch ran; ./bench") 2>err &&
	grep -q "gbench output names no commit and no repository gives one: run inside the checkout or give --repo DIR (nothing was run)" err &&
	! test -e outside/ran
'

test_expect 'run without --harness-version: benchline.json'"'"'s harness_version, else 1; the flag wins' '
	cp repo/benchline.json saved.json &&
	perl -0pi -e "s/\"machine\": \"nc-box\",/\"machine\": \"nc-box\", \"harness_version\": 4,/" repo/benchline.json &&
	(cd repo && bl --db ../hv.db run --no-preflight -- ./bench) >out 2>err &&
	grep -q "harness version 4 from \"harness_version\" in .*repo/benchline.json$" err &&
	(cd repo && bl --db ../hv.db run --no-preflight --harness-version 5 --machine ci-1 -- ./bench) >out 2>err &&
	grep -q "^run: machine .ci-1. from --machine, harness version 5 from --harness-version$" err &&
	rows hv.db >actual &&
	printf "ci-1 5\nnc-box 4\n" >expect &&
	test_cmp expect actual
'
cp saved.json repo/benchline.json

test_expect 'a head measured under another name: no verdict, naming the machines the merge base has' '
	cp story.db hint.db 2>/dev/null || db_cp story.db hint.db &&
	git -C repo checkout -q -b elsewhere main &&
	echo "/* elsewhere */" >>repo/bench.c &&
	git -C repo commit -q -am "elsewhere" &&
	(cd repo && cc -O2 -o bench bench.c && bl --db ../hint.db run --no-preflight --machine m1 -- ./bench) >out 2>err &&
	mb=$(git -C repo rev-parse main | cut -c1-12) &&
	(cd repo && expect_exit 4 bl --db ../hint.db gate --json ../hint.json) >out 2>err &&
	echo "no reference for m1/BM_loop at $mb: the merge base has records on nc-box (give --machine or set \"machine\" in benchline.json)" >expect &&
	grep "^no reference" out >actual &&
	test_cmp expect actual &&
	json_get hint.json "\$j->{message}" >actual &&
	test_cmp expect actual &&
	json_get hint.json "join q(,), \$j->{status}, @{\$j->{merge_base}{machines}}" >actual &&
	echo "no_verdict,nc-box" >expect &&
	test_cmp expect actual &&
	json_get hint.json "\$j->{comparisons}[0]{note}" | grep -q "; the merge base has records on nc-box (give --machine or set \"machine\" in benchline.json)$"
'

test_expect 'detect from inside the checkout judges the metrics its benchline.json names' '
	bl --db det.db init >/dev/null &&
	for i in 1 2 3 4 5 6; do
		printf "{\"schema\":1,\"machine\":\"nc-box\",\"benchmark\":\"b\",\"harness_version\":1,\"source\":{\"commit\":\"%040d\",\"source_hash\":\"%040d\"},\"started_at\":\"2026-11-0%dT04:00:00Z\",\"metrics\":{\"work\":{\"unit\":\"\",\"median\":100,\"p95\":100},\"latency\":{\"unit\":\"ns\",\"median\":100,\"p95\":100}}}\n" $i $i $i
	done >det.jsonl &&
	bl --db det.db ingest det.jsonl >/dev/null &&
	bl --db det.db detect --json | json_get - "\$j->{series}" >all &&
	(cd repo/docs && bl --db ../../det.db detect) >out &&
	grep -q "^2 Series (1 judged)" out &&
	bl --db det.db detect >out &&
	grep -q "^2 Series (1 judged)" out
'

test_expect 'ingest from inside the checkout: benchline.json'"'"'s machine over the file'"'"'s host name, harness 1; --machine wins' '
	(cd repo && ./bench >../g.json && bl --db ../in.db ingest --repo . ../g.json) >out &&
	grep -q ": nc-box/BM_loop [0-9a-f]* harness 1: stands" out &&
	(cd repo/docs && bl --db ../../in.db ingest --machine ci-2 --repo .. ../../g.json) >out &&
	grep -q ": ci-2/BM_loop [0-9a-f]* harness 1: stands" out &&
	expect_exit 2 bl --db in.db ingest g.json 2>err &&
	grep -q "g.json: no commit: give --repo" err
'

test_expect 'a checkout whose benchline.json names no machine: run stores under the host name, and says so' '
	git init -q plain &&
	cp repo/bench.c plain/ &&
	git -C plain add bench.c && git -C plain commit -q -m one &&
	(cd plain && cc -O2 -o bench bench.c) &&
	if [ -n "$(printf %s "$host" | tr -d "A-Za-z0-9._-")" ]; then
		echo "# the host name $host is not a machine name: skipped"
		exit 0
	fi &&
	(cd plain && bl --db ../plain.db run --no-preflight -- ./bench) >out 2>err &&
	grep -q "^output of .\./bench.: $host/BM_loop [0-9a-f]* harness 1: stands" out &&
	grep -q "^run: machine .$host. from the host name (no --machine, no \"machine\" in benchline.json), harness version 1 from the default$" err
'

test_expect 'outside any repository: native records name their own machine, and run says so' '
	cat >native.sh <<-EOF &&
	#!/bin/sh
	echo "{\"schema\":1,\"machine\":\"own-box\",\"benchmark\":\"b\",\"harness_version\":2,\"source\":{\"commit\":\"$(printf %040d 7)\",\"source_hash\":\"$(printf %040d 7)\"},\"started_at\":\"2026-11-02T04:00:00Z\",\"metrics\":{\"t\":{\"unit\":\"ns\",\"median\":1,\"p95\":1}}}"
	EOF
	chmod +x native.sh &&
	(cd outside && bl --db ../out.db run --no-preflight -- ../native.sh) >out 2>err &&
	grep -q "^output of .\.\./native\.sh.: own-box/b [0-9]* harness 2: stands" out &&
	grep -q "^run: machine .own-box. and harness version 2 as the records name them$" err
'

test_done

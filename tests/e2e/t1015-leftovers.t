#!/bin/sh
# No process a benchmark starts outlives its sample (§13): benchline is a child subreaper, and
# what a run leaves behind (a detached `setsid sleep`, one that keeps the run's stdout open) is
# killed and reaped once the run ends, by `benchline run` and by every sample of a re-bench.
# Each leftover writes its pid to ./pids; afterwards none of them is alive.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/e2e/bench-lib.sh"

(
	set -e
	bench_repo
	# bench.run: the benchmark, and two processes left behind at each run
	cat >repo/run.sh <<EOF
setsid sleep 300 >/dev/null 2>&1 &
echo \$! >>"$TMP/pids"
sleep 300 &
echo \$! >>"$TMP/pids"
exec ./bench
EOF
	cat >repo/benchline.json <<'EOF'
{"metrics": ["work"],
 "bench": {"build": "cc -O2 -o bench bench.c", "run": "sh run.sh", "processes": 1}}
EOF
	commit 'leaves processes behind' >c1
	comment_commits 1 1
) >setup.log 2>&1 || { cat setup.log; echo 'Bail out! cannot build the test repository'; exit 1; }
c1=$(cat c1) k1=$(cat k1)

# none_alive: no pid of ./pids is a live process (nor a zombie).
none_alive() {
	test -s pids || { echo "no pid was written"; return 1; }
	while read -r pid; do
		if kill -0 "$pid" 2>/dev/null; then
			echo "$pid is still there:"
			ps -o pid,ppid,stat,cmd -p "$pid"
			return 1
		fi
	done <pids
}

test_expect 'benchline run: the processes its command left are gone when it ends' '
	: >pids &&
	bl run --no-preflight --machine m1 --harness-version 1 --format bmf --repo repo -- \
		sh -c "setsid sleep 300 >/dev/null 2>&1 & echo \$! >>pids; sleep 300 & echo \$! >>pids; echo {\\\"loop\\\": {\\\"work\\\": {\\\"value\\\": 1}}}" \
		>out 2>err || { cat err; return 1; }
	test "$(wc -l <pids)" = 2 &&
	none_alive
'
test_expect 'rebench: after every sample, what the run left is gone' '
	: >pids &&
	bl rebench --repo repo "$c1" "$k1" >out 2>err || { cat err; return 1; }
	test "$(wc -l <pids)" -ge 4 &&
	none_alive
'
test_done

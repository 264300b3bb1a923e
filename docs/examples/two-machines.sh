#!/bin/sh
# Two sweep machines and one server, on this machine (docs/sweep.md, "Two machines on one
# server"): a tiny benchmark repository, `benchline serve` on a loopback port, two sweeps that
# push to it, a planted slowdown that the server detects and a sweep machine confirms into a
# Regression. Everything lives in a temporary directory, removed at the end; needs benchline
# on PATH (or $BENCHLINE), git, cc and curl.
#
#   sh docs/examples/two-machines.sh
set -eu
BL=${BENCHLINE:-benchline}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/benchline-fleet.XXXXXX")
SERVER=
trap '[ -z "$SERVER" ] || { kill "$SERVER"; wait "$SERVER"; } 2>/dev/null; rm -rf "$DIR"' EXIT
cd "$DIR"
export GIT_AUTHOR_NAME=example GIT_AUTHOR_EMAIL=example@example.org
export GIT_COMMITTER_NAME=example GIT_COMMITTER_EMAIL=example@example.org

# The repository: a loop whose iteration count is its metric, so the example's verdicts do not
# depend on how busy this machine is.
git init -q -b main engine
cat >engine/bench.c <<'EOF'
#include <stdio.h>
#define WORK 2000000
int main(void)
{
	volatile unsigned long s = 0;
	for (unsigned long i = 0; i < WORK; i++)
		s += i;
	printf("{\"loop\": {\"work\": {\"value\": %d}}}\n", WORK);
	return 0;
}
EOF
printf 'bench\nbenchline.json\n' >engine/.gitignore
cat >engine/benchline.json <<'EOF'
{"measured_paths": ["bench.c"], "unmeasured_paths": [".gitignore"], "metrics": ["work"],
 "bench": {"build": "cc -O2 -o bench bench.c", "run": "./bench", "format": "bmf",
           "processes": 1}}
EOF
commit() { git -C engine add -A && git -C engine commit -q -m "$1"; }
commit 'a benchmark'
for k in 1 2 3 4 5; do echo "/* comment $k */" >>engine/bench.c; commit "comment $k"; done

# The server: a token per machine; m-b's may push but not confirm.
printf 'tok-a m-a push,confirm\ntok-b m-b push\n' >tokens
echo tok-a >a.token
echo tok-b >b.token
"$BL" --db server.db serve --create --port 0 --token-file tokens --repo engine --sync-interval 1 \
	>server.out 2>server.err &
SERVER=$!
i=0
until grep -q serving server.out 2>/dev/null; do
	i=$((i + 1))
	[ $i -le 100 ] || { cat server.err >&2; exit 2; }
	sleep 0.1
done
URL=$(sed -n 's/.* at \(http[^ ]*\)\/ .*/\1/p' server.out)

# sweep MACHINE ARGS...: one night of a sweep machine (its own spool).
sweep() {
	m=$1
	shift
	XDG_STATE_HOME="$DIR/state-$m" "$BL" sweep --repo engine --machine "m-$m" \
		--server "$URL" --token-file "$m.token" --no-preflight "$@"
}
idle() { until curl -s "$URL/api/status" | grep -q '"state":"idle"'; do sleep 0.1; done; }
# (the server answers 201 only once a push's detection is queued, so idle means detected)

echo "== the first night: both machines fill the history"
sweep a --since HEAD~5 2>&1 >/dev/null | tail -1
sweep b --since HEAD~5 2>&1 >/dev/null | tail -1
idle
echo "records on the server: $(curl -s "$URL/api/records?limit=1000" | grep -o '"machine":' | wc -l)"

echo "== a docs-only change: nothing to measure"
echo '# engine' >engine/README.md
commit 'a readme'
sweep a 2>&1 >/dev/null | tail -1

echo "== a commit doing 15% more work, then one more night"
sed 's/^#define WORK 2000000$/#define WORK 2300000/' engine/bench.c >engine/bench.c.new
mv engine/bench.c.new engine/bench.c
commit '15% more work (#9)'
echo '/* comment 6 */' >>engine/bench.c
commit 'comment 6'
sleep 2 # the server syncs main every second
sweep b 2>&1 >/dev/null | tail -1
# --pending: the step has no records after it yet, so its alert is pending; a nightly
# `sweep --confirm` alone would wait until quiet.transient_records more nights show it holds.
sweep a --confirm --pending 2>&1 >/dev/null | tail -1
echo "== the Regressions on the server"
curl -s "$URL/api/regressions" | perl -MJSON::PP -e '
	for my $r (@{ decode_json(join "", <STDIN>) }) {
		printf "%s %s %s: %+.1f%%, pull request #%s\n", $r->{machine}, $r->{benchmark},
		    $r->{metric}, ($r->{ratio} - 1) * 100, $r->{pull_request};
	}'
echo "and the subject of the commit it pinned: $(git -C engine log -1 --format=%s HEAD~1)"

#!/bin/sh
# The gate on histogram quantiles (§7.3, §8): a quantile metric that names a ladder of
# benchline.json fires only past the bucket above its reference's own, whatever the ratio.
. "$(dirname "$0")/lib.sh"

GEN="perl $TESTS_DIR/gate-gen.pl"

# ladders EDGES-JSON UNIT: writes benchline.json with the "ms" ladder.
settings() {
	printf '{"measured_paths": ["src"], "unmeasured_paths": ["benchline.json", ".benchline"], "ladders": {"ms": {"unit": "%s", "edges": [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 50]}}}\n' \
		"$1" >repo/benchline.json
}

git init -q -b main repo
mkdir repo/src && echo 0 >repo/src/a.c && settings ms &&
	(cd repo && git add . && git commit -qm init) || exit 1

# sweep SEED QUANTILE [GEN-ARGS...]: one sweep at the repository's HEAD, every benchmark's
# latency_p99 at QUANTILE ms.
sweep() {
	seed=$1 q=$2
	shift 2
	set -- $(cd repo && "$BENCHLINE" hash) "$@"
	$GEN --commit "$2" --source "$1" --seed "$seed" --benchmarks 2 --quantile "$q" "$@" \
		>sweep.json && bl ingest sweep.json >/dev/null
}
i=1
while [ $i -le 5 ]; do
	(cd repo && echo $i >src/a.c && git commit -qam "c$i") && sweep $i 0.7 || exit 1
	i=$((i + 1))
done

# pr NAME QUANTILE: a pull request off main whose quantile reads QUANTILE ms.
pr() {
	(cd repo && git checkout -q -B "$1" main && echo "$1" >src/a.c && git commit -qam "$1") &&
		sweep 50 "$2" --branch "$1" && (cd repo && git checkout -q main)
}
# row FILE: the status and note of bench_00's latency_p99 row.
row() {
	json_get "$1" 'my ($r) = grep { $_->{benchmark} eq q(bench_00) && $_->{metric} eq q(latency_p99) } @{$j->{comparisons}}; "$r->{status} $r->{method} " . ($r->{note} // q())'
}

test_expect 'a 7x higher quantile still inside the bucket above its own passes' '
	pr sevenfold 4.9 &&
	expect_exit 0 bl gate --repo repo --head sevenfold --json g.json >out &&
	row g.json >r && cat r &&
	grep -q "^PASS ladder fires above 5 ms" r
'

test_expect 'the trip point itself does not fire, just past it does' '
	pr trip 5 &&
	expect_exit 0 bl gate --repo repo --head trip --json g.json >out &&
	row g.json | grep -q "^PASS ladder" &&
	pr past 5.01 &&
	expect_exit 1 bl gate --repo repo --head past --json g.json >out &&
	row g.json | grep -q "^FAIL ladder" &&
	grep -q "^FAIL .*bench_00 latency_p99" out
'

test_expect 'a reference in the top bucket cannot be gated: SOFT, and it says so' '
	(cd repo && echo top >src/a.c && git commit -qam top) && sweep 60 70 &&
	pr high 400 &&
	expect_exit 0 bl gate --repo repo --head high --json g.json >out &&
	row g.json | grep -q "^SOFT ladder .*top bucket" &&
	(cd repo && echo back >src/a.c && git commit -qam back) && sweep 61 0.7
'

test_expect 'a ladder in another unit than the metric is a regression, named' '
	settings us && (cd repo && git commit -qam "ladder in us") && sweep 62 0.7 &&
	pr units 0.7 &&
	expect_exit 1 bl gate --repo repo --head units --json g.json >out &&
	row g.json | grep -q "^FAIL ladder .*unit mismatch" &&
	settings ms && (cd repo && git commit -qam "ladder in ms") && sweep 63 0.7
'

test_expect 'a quantile naming a ladder benchline.json lacks is judged as a ratio, and says so' '
	printf "{\"measured_paths\": [\"src\"], \"unmeasured_paths\": [\"benchline.json\", \".benchline\"]}\n" >repo/benchline.json &&
	(cd repo && git commit -qam "no ladders") && sweep 64 0.7 &&
	pr noladder 0.9 &&
	expect_exit 1 bl gate --repo repo --head noladder --json g.json >out &&
	row g.json | grep -q "^FAIL ratio .*not defined in benchline.json"
'

test_expect 'a malformed ladder in benchline.json is an error naming the file and ladder (exit 2)' '
	printf "{\"measured_paths\": [\"src\"], \"ladders\": {\"ms\": {\"unit\": \"ms\", \"edges\": [1, 0.5]}}}\n" >repo/benchline.json &&
	expect_exit 2 bl gate --repo repo --head noladder 2>err &&
	cat err &&
	grep -q "repo/benchline.json: ms: edges must be strictly increasing" err
'
test_done

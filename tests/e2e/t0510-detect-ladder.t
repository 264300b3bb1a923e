#!/bin/sh
# Detection of histogram quantiles (§6, §8): a quantile metric that benchline.json's `metrics`
# names, whose records name a ladder of benchline.json's `ladders`, is marked only past the
# bucket above its center's own (or under the edge below the bucket beneath it), never for a
# reading that could be interpolation inside those buckets.
. "$(dirname "$0")/lib.sh"

git init -q proj
LADDERS='"ladders": {"ms": {"unit": "ms", "edges": [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 50]}}'

# records VALUES...: one record per value of latency_p99 (ms, ladder "ms"), in order, on
# main; a timed metric beside it stays flat.
records() {
	perl -e '
		my $i = 0;
		for my $v (@ARGV) {
			$i++;
			my $c = sprintf("%040d", $i); # the last 3 digits are the record number
			printf(qq({"schema": 1, "machine": "m1", "benchmark": "rpc", "harness_version": 1, ) .
			    qq("source": {"commit": "%s", "source_hash": "%s", "branch": "main", ) .
			    qq("committed_at": "2026-11-%02dT00:00:00Z"}, "started_at": "2026-11-%02dT01:00:00Z", ) .
			    qq("metrics": {"wall_us": {"kind": "timed", "unit": "us", "median": 100}, ) .
			    qq("latency_p99": {"kind": "quantile", "unit": "ms", "value": %s, "ladder": "ms"}}}\n),
			    $c, $c, $i, $i, $v);
		}' "$@"
}

# marks: "COMMIT-SUFFIX SIDE" of each Suspect of latency_p99, in Series order.
marks() {
	bl suspects --json | json_get - 'join "", map { substr($_->{commit}, -3) . " $_->{side}\n" } grep { $_->{metric} eq q(latency_p99) } @$j' |
		sed "/^\$/d"
}

# The center is 0.70 or 0.71 throughout (the nearest-rank median of up to 8 before), in the
# bucket (0.5, 1]. Record 6 (4.9 ms) is 7x its center but inside the bucket above (1, 5]: not
# a step. Record 9 (5.6 ms) is past 5 ms, the top of that bucket: slower. Records 10 and 11
# continue that step (within its tolerance, 4.3, of 5.6). Record 14 (0.2 ms) is one bucket
# down: nothing; record 16 (0.05 ms) is under 0.1, the edge below the bucket beneath
# (0.5, 1]: faster.
records 0.70 0.72 0.69 0.71 0.70 4.9 0.71 0.70 5.6 5.4 5.7 0.70 0.71 0.2 0.70 0.05 0.71 >q.jsonl
bl ingest q.jsonl >/dev/null || { echo "Bail out! cannot ingest"; exit 1; }

test_expect 'by default only timed metrics are judged: no quantile Suspect' '
	bl detect >/dev/null &&
	test -z "$(marks)"
'

test_expect 'named in metrics, with its ladder: slower past the bucket above, faster two below' '
	printf "{\"metrics\": [\"wall_us\", \"latency_p99\"], %s}\n" "$LADDERS" >proj/benchline.json &&
	bl detect --repo proj --json >d.json &&
	marks >got &&
	printf "%s\n" "009 slower" "016 faster" >want &&
	diff -u want got &&
	json_get d.json "scalar @{\$j->{new_suspects}}" | grep -qx 2
'

test_expect 'the mark carries the ladder tolerance: hi_next - center' '
	bl suspects --json | json_get - "my (\$s) = grep { \$_->{metric} eq q(latency_p99) && \$_->{side} eq q(slower) } @\$j; sprintf q(%.6f %.6f), \$s->{center}, \$s->{tolerance}" >tol &&
	test "$(cat tol)" = "0.700000 4.300000"
'

test_expect 'later runs keep the ladders; a changed ladder judges every line again' '
	bl detect --json >again.json &&
	json_get again.json "scalar @{\$j->{new_suspects}}" | grep -qx 0 &&
	marks >same && cmp got same &&
	printf "{\"metrics\": [\"latency_p99\"], \"ladders\": {\"ms\": {\"unit\": \"ms\", \"edges\": [0.01, 0.05, 0.1, 0.5, 1, 2, 5, 10, 50]}}}\n" >proj/benchline.json &&
	bl detect --repo proj --json >finer.json &&
	marks >finer && cat finer &&
	grep -q "^006 slower" finer
'

test_expect 'a quantile whose ladder benchline.json lacks is not judged' '
	printf "{\"metrics\": [\"latency_p99\"]}\n" >proj/benchline.json &&
	bl detect --repo proj >/dev/null &&
	test -z "$(marks)"
'

test_expect 'a malformed ladder is an error naming benchline.json and the ladder (exit 2)' '
	printf "{\"metrics\": [\"latency_p99\"], \"ladders\": {\"ms\": {\"unit\": \"ms\", \"edges\": [1, 1]}}}\n" >proj/benchline.json &&
	expect_exit 2 bl detect --repo proj 2>err &&
	cat err &&
	grep -q "proj/benchline.json: ms: edges must be strictly increasing" err
'
test_done

#!/bin/sh
# Detection (§6) judges every metric of a record, however many: 70,000 metrics are 70,000
# Series (a 16-bit count judged 4,464 of them, silently).
. "$(dirname "$0")/lib.sh"

perl -e '
	print q({"schema":1,"machine":"m1","benchmark":"wide","config":"c","harness_version":1,),
	    q("source":{"commit":"), "a" x 40, q(","source_hash":"), "b" x 40,
	    q(","branch":"main"},"started_at":"2026-11-02T04:00:00Z","metrics":{),
	    join(",", map { qq("m$_":{"kind":"timed","unit":"us","median":100,"p95":100}) } 1 .. 70000),
	    "}}\n";
' >wide.json

test_expect 'a record of 70,000 metrics is 70,000 Series, each judged' '
	bl ingest wide.json >/dev/null &&
	bl detect --json >detect.json &&
	json_get detect.json "\$j->{series} . q( ) . \$j->{lines_recomputed}" >actual &&
	echo "70000 70000" >expect &&
	test_cmp expect actual &&
	test "$(bl series --json | json_get - "scalar @{\$j}")" = 70000
'
test_done

#!/bin/sh
# The JSON Schemas of docs/schemas/ hold every fixture of their format, refuse what the binary
# refuses (for the rules a schema can say), and are checked by tests/check-schema.pl, which
# knows the part of JSON Schema they use and nothing more.
. "$(dirname "$0")/lib.sh"

RECORD=$ROOT/docs/schemas/record.schema.json
CONFIG=$ROOT/docs/schemas/benchline.schema.json
check() { perl "$ROOT/tests/check-schema.pl" "$@"; }

test_expect 'every native record fixture is valid, and the binary takes it' '
	for f in "$FIXTURES"/native/*.json; do
		check "$RECORD" "$f" || exit 1
		bl --db fixtures.db ingest "$f" >/dev/null || { echo "the binary refuses $f"; exit 1; }
	done &&
	check "$RECORD" --lines "$FIXTURES/native/lines.jsonl" &&
	bl --db fixtures.db ingest "$FIXTURES/native/lines.jsonl" >/dev/null
'

test_expect 'the fuzz corpus: the good records are valid, the broken ones are not' '
	C=$ROOT/tests/fuzz/corpus/native &&
	check "$RECORD" "$C/full.json" "$C/array.json" "$C/minimal.json" &&
	check "$RECORD" --lines "$C/lines.jsonl" &&
	for f in broken nan negative utf8; do
		expect_exit 1 check "$RECORD" "$C/$f.json" >out || exit 1
	done
'

test_expect 'every benchline.json fixture is valid, and the binary reads it' '
	for f in "$FIXTURES/tour/benchline.json" "$ROOT"/tests/fuzz/corpus/config/*.json; do
		check "$CONFIG" "$f" || exit 1
		rm -rf cfg && git init -q cfg && cp "$f" cfg/benchline.json &&
		bl preflight --repo cfg >/dev/null 2>err
		[ $? -ne 2 ] || { echo "the binary refuses $f:"; cat err; exit 1; }
	done
'

# refused RECORD-JSON: the schema and the binary both refuse it.
refused_record() {
	printf "%s\n" "$1" >bad.json
	expect_exit 1 check "$RECORD" bad.json >out || { echo "schema took: $1"; return 1; }
	expect_exit 2 bl --db refused.db ingest bad.json 2>err || { echo "binary took: $1"; return 1; }
}
GOOD_SOURCE='"source": {"commit": "3f7fd6b5c0ffee00000000000000000000000000", "source_hash": "2d5d1c3600000000000000000000000000000000"}'

test_expect 'records the binary refuses, the schema refuses' '
	refused_record "{\"schema\": 2, \"machine\": \"m\", \"benchmark\": \"b\", \"harness_version\": 1, $GOOD_SOURCE, \"started_at\": \"2026-11-02T04:00:00Z\", \"metrics\": {\"t\": {\"unit\": \"ms\", \"median\": 1}}}" &&
	refused_record "{\"schema\": 1, \"benchmark\": \"b\", \"harness_version\": 1, $GOOD_SOURCE, \"started_at\": \"2026-11-02T04:00:00Z\", \"metrics\": {\"t\": {\"unit\": \"ms\", \"median\": 1}}}" &&
	refused_record "{\"schema\": 1, \"machine\": \"a b\", \"benchmark\": \"b\", \"harness_version\": 1, $GOOD_SOURCE, \"started_at\": \"2026-11-02T04:00:00Z\", \"metrics\": {\"t\": {\"unit\": \"ms\", \"median\": 1}}}" &&
	refused_record "{\"schema\": 1, \"machine\": \"m\", \"benchmark\": \"b\", \"harness_version\": 1, \"source\": {\"commit\": \"3f7f\"}, \"started_at\": \"2026-11-02T04:00:00Z\", \"metrics\": {\"t\": {\"unit\": \"ms\", \"median\": 1}}}" &&
	refused_record "{\"schema\": 1, \"machine\": \"m\", \"benchmark\": \"b\", \"harness_version\": 1, $GOOD_SOURCE, \"started_at\": \"2026-11-02 04:00:00\", \"metrics\": {\"t\": {\"unit\": \"ms\", \"median\": 1}}}" &&
	refused_record "{\"schema\": 1, \"machine\": \"m\", \"benchmark\": \"b\", \"harness_version\": 1, $GOOD_SOURCE, \"started_at\": \"2026-11-02T04:00:00Z\", \"metrics\": {}}" &&
	refused_record "{\"schema\": 1, \"machine\": \"m\", \"benchmark\": \"b\", \"harness_version\": 1, $GOOD_SOURCE, \"started_at\": \"2026-11-02T04:00:00Z\", \"metrics\": {\"t\": {\"unit\": \"ms\", \"median\": -3}}}" &&
	refused_record "{\"schema\": 1, \"machine\": \"m\", \"benchmark\": \"b\", \"harness_version\": 1, $GOOD_SOURCE, \"started_at\": \"2026-11-02T04:00:00Z\", \"metrics\": {\"t\": {\"unit\": \"ms\"}}}" &&
	refused_record "{\"schema\": 1, \"machine\": \"m\", \"benchmark\": \"b\", \"harness_version\": 1, $GOOD_SOURCE, \"started_at\": \"2026-11-02T04:00:00Z\", \"metrics\": {\"a\": {\"kind\": \"counted\", \"unit\": \"allocs\", \"value\": -1}}}" &&
	refused_record "[]"
'

# refused_config JSON: the schema and the binary both refuse it as benchline.json.
refused_config() {
	printf "%s\n" "$1" >bad-config.json
	expect_exit 1 check "$CONFIG" bad-config.json >out || { echo "schema took: $1"; return 1; }
	rm -rf cfg && git init -q cfg && cp bad-config.json cfg/benchline.json &&
	expect_exit 2 bl preflight --repo cfg >/dev/null 2>err || { echo "binary took: $1"; return 1; }
}

test_expect 'benchline.json files the binary refuses, the schema refuses' '
	refused_config "{\"mesured_paths\": [\"src\"]}" &&
	refused_config "{\"measured_paths\": \"src\"}" &&
	refused_config "{\"measured_paths\": [\"src/lib\"]}" &&
	refused_config "{\"quiet\": {\"max_p95_ratio\": 1}}" &&
	refused_config "{\"bench\": {\"processes\": 0}}" &&
	refused_config "{\"bench\": {\"command\": \"make\"}}" &&
	refused_config "{\"machines\": {\"m\": {\"keep\": \"last\"}}}" &&
	refused_config "{\"machine\": \"not a name\"}"
'

test_expect 'the validator refuses a keyword it does not check' '
	echo "{\"type\": \"object\", \"dependentRequired\": {}}" >odd.schema.json &&
	echo "{}" >empty.json &&
	! check odd.schema.json empty.json 2>err &&
	grep -q "unsupported keyword .dependentRequired." err
'
test_done

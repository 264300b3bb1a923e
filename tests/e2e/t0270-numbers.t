#!/bin/sh
# Numbers people read (issue 15): every JSON benchline prints writes a real in its shortest
# round-trip form (8124.4, not jansson's 8124.3999999999996), while the stored record keeps the
# canonical form its digest was computed over; text tables show figures in units people read.
. "$(dirname "$0")/lib.sh"

rec() {
	printf '{"schema":1,"machine":"m1","benchmark":"town","config":"","harness_version":1,'
	printf '"source":{"commit":"%040d","source_hash":"%040d","branch":"main"},' "$1" "$1"
	printf '"started_at":"2026-11-0%dT04:00:00Z","metrics":{"frame_us":{"unit":"us",' "$1"
	printf '"median":%s,"p95":%s,"n":30}}}\n' "$2" "$3"
}
{ rec 1 8124.4 8200.1; rec 2 28268.7 28300.3; } >two.json
bl ingest two.json >/dev/null || { echo 'Bail out! cannot ingest'; exit 1; }

test_expect 'records --json writes reals in their shortest round-trip form' '
	bl records --json --all >out.json &&
	grep -q "8124\\.4[,}]" out.json &&
	grep -q "8200\\.1[,}]" out.json &&
	! grep -q "8124\\.3999" out.json
'

test_expect 'the stored record keeps its canonical 17-digit form (the digest is over it)' '
	db_sql "$BENCHLINE_DB" "select raw from runs order by id limit 1" >raw &&
	grep -q "\"median\":8124.3999999999996" raw &&
	test "$(db_sql "$BENCHLINE_DB" "select digest from runs order by id limit 1")" = \
		"$(tr -d "\\n" <raw | git hash-object --stdin)"
'

test_expect 'series --json and detect --json write the shortest form too' '
	bl detect >/dev/null &&
	bl series --json >series.json &&
	! grep -q "[0-9]\\.[0-9]*9999999" series.json &&
	! grep -q "[0-9]\\.[0-9]*0000000[1-9]" series.json
'

test_done

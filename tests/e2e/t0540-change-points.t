#!/bin/sh
# Change points (§6.1, docs/detection.md "Change points"): a staircase that falls and jumps back,
# which the band's window spans, is found by the change-point search, once, as a Suspect of kind
# change-point in an open alert, 8 records after the jump; an incremental detect finds what a
# rebuild finds; quiet.change_points, change_penalty and change_min_shift judge every line
# again when they change, and bad values are refused naming the key; the chart rings the
# change point with a shape of its own and its legend says what it is.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/e2e/serve-lib.sh"

# kinds DB: "COMMIT-SUFFIX KIND SIDE STATE" per Suspect, in Series order.
kinds() {
	bl --db "$1" suspects --json | json_get - 'join "", map { sprintf("%s %s %s %s\n",
		substr($_->{commit}, -3), $_->{kind}, $_->{side}, $_->{state}) } @$j' | sed '/^$/d'
}

# asv's Django: the level falls 2.0 -> 1.6 -> 1.0 in pairs (faster), then jumps back to 2.1
# (record 13, commit 013) and stays. The band marks the falls; the jump back lands inside a
# window that holds both levels (center 1.6, tolerance 4 x 0.4), so it marks nothing there.
# The search splits the line there: the level before (the nearest-rank median of the 8 records
# before) 1.61, after 2.1, +30.4%.
high="2.0 2.01 1.99 2.0 2.02 1.98 2.0 2.01"
stairs="1.6 1.61 1.0 1.01"
back="2.1 2.11 2.09 2.1 2.12 2.1 2.08 2.1 2.11 2.1 2.09 2.1 2.1 2.11 2.1 2.09 2.1 2.1 2.11 2.1"

test_expect 'a staircase that jumps back: one change-point Suspect, slower, in an open alert' '
	wall_records m1 stairs 1 $high $stairs $back >s.jsonl &&
	bl --db s.db ingest s.jsonl >/dev/null &&
	bl --db s.db detect >/dev/null &&
	kinds s.db >actual &&
	grep -c " band " actual >n.band && test "$(cat n.band)" -ge 1 &&
	grep " change-point " actual >cp &&
	echo "013 change-point slower open" >expect &&
	test_cmp expect cp &&
	! grep -q "^01[2-4] band slower" actual &&
	bl --db s.db suspects --json | json_get - "my (\$s) = grep { \$_->{kind} eq q(change-point) } @\$j;
		sprintf(q(%.3f %.2f), \$s->{shift}, \$s->{center})" >actual &&
	echo "0.304 1.61" >expect &&
	test_cmp expect actual
'

test_expect 'alerts say which opinion marked them: kinds in --json, found-by in the table' '
	bl --db s.db alerts --json | json_get - "join q(), map { join(q( ), substr(\$_->{commit}, -3),
		\$_->{state}, @{\$_->{kinds}}) . qq(\n) } grep { \$_->{side} eq q(slower) } @\$j" |
		sed "/^\$/d" >actual &&
	echo "013 open change-point" >expect &&
	test_cmp expect actual &&
	bl --db s.db alerts --json | json_get - "my (\$a) = grep { \$_->{side} eq q(slower) } @\$j;
		substr(\$a->{reference_commit}, -3)" >actual &&
	echo 012 >expect &&
	test_cmp expect actual &&
	bl --db s.db alerts >table &&
	grep -q "^ *[0-9]*  open  *slower  m1  *0\{12\}  0\{12\}  *1  change-point  no  *-$" table &&
	bl --db s.db suspects >table &&
	grep -q "^ *[0-9]*  open  *slower  change-point  *+30\.4%  m1  *stairs" table
'

test_expect 'the search speaks 8 records after the jump, never before; incremental finds what --all finds' '
	wall_records m1 stairs 1 $high $stairs 2.1 2.11 2.09 2.1 2.12 2.1 2.08 >a.jsonl &&
	bl --db i.db ingest a.jsonl >/dev/null &&
	bl --db i.db detect >/dev/null &&
	! kinds i.db | grep -q change-point &&
	wall_records m1 stairs 20 2.1 >b.jsonl &&
	bl --db i.db ingest b.jsonl >/dev/null &&
	bl --db i.db detect --json >d.json &&
	json_get d.json "join q(), map { qq(\$_->{kind}\n) } @{\$j->{new_suspects}}" | sed "/^\$/d" >actual &&
	echo change-point >expect &&
	test_cmp expect actual &&
	wall_records m1 stairs 21 2.11 2.1 2.09 2.1 2.1 2.11 2.1 2.09 2.1 2.1 2.11 2.1 >c.jsonl &&
	bl --db i.db ingest c.jsonl >/dev/null &&
	bl --db i.db detect >/dev/null &&
	kinds i.db >incremental &&
	bl --db i.db suspects --json >before.json &&
	bl --db i.db detect --all --json >all.json &&
	test "$(json_get all.json "scalar @{\$j->{new_suspects}}")" = 0 &&
	bl --db i.db suspects --json >after.json &&
	test_cmp before.json after.json &&
	kinds s.db >rebuilt &&
	test_cmp rebuilt incremental
'

# kept DB: the values and search states detect keeps for the change-point search, by line.
kept() {
	if pg_mode; then hex="upper(encode(v.data, 'hex'))"; else hex="hex(v.data)"; fi
	db_sql "$1" "SELECT l.metric, l.line, v.chunk, $hex FROM line_values v
		JOIN lines l ON l.id = v.line_id ORDER BY 1, 2, 3" &&
	db_sql "$1" "SELECT l.metric, l.line, $hex FROM line_searches v
		JOIN lines l ON l.id = v.line_id ORDER BY 1, 2"
}

# A line of 160 records over three chunks of kept values, the staircase above five times over:
# fed 10 records at a time with a detect after each, the search goes on from its kept state
# each time (a chunk written once it is full) and keeps exactly what one detect of the whole
# line keeps.
test_expect 'a line fed 10 records at a time keeps what one detect of it keeps, byte for byte' '
	long="$high $stairs $back $high $stairs $back $high $stairs $back $high $stairs $back $high $stairs $back" &&
	wall_records m2 long 1 $long >long.jsonl &&
	bl --db whole.db ingest long.jsonl >/dev/null &&
	bl --db whole.db detect >/dev/null &&
	i=1 && while [ $i -le 160 ]; do
		sed -n "${i},$((i + 9))p" long.jsonl >part.jsonl &&
		bl --db grown.db ingest part.jsonl >/dev/null &&
		bl --db grown.db detect >/dev/null || return 1
		i=$((i + 10))
	done &&
	kinds whole.db >expect &&
	test "$(grep -c "change-point slower" expect)" -ge 3 &&
	kinds grown.db >actual &&
	test_cmp expect actual &&
	kept whole.db >expect &&
	test "$(grep -c "^wall_ms|0|[0-9]|" expect)" = 2 &&
	kept grown.db >actual &&
	test_cmp expect actual
'

# A continued line whose kept values cannot be read (a chunk missing, or no search state) is
# not searched from what is left: its group is walked again, and what it keeps then is what
# a rebuild keeps.
test_expect 'kept values missing: the group is walked again and keeps what a rebuild keeps' '
	n=161 &&
	for damage in "DELETE FROM line_values WHERE chunk = 1" "DELETE FROM line_searches"; do
		db_sql grown.db "$damage" &&
		wall_records m2 long $n 2.1 >more.jsonl &&
		bl --db grown.db ingest more.jsonl >/dev/null &&
		bl --db grown.db detect >/dev/null &&
		kinds grown.db >expect.kinds && kept grown.db >expect.kept &&
		test "$(grep -c "^wall_ms|0|[0-9]|" expect.kept)" = 2 &&
		bl --db grown.db detect --all >/dev/null &&
		kinds grown.db >actual.kinds && kept grown.db >actual.kept &&
		test_cmp expect.kinds actual.kinds &&
		test_cmp expect.kept actual.kept || return 1
		n=$((n + 1))
	done
'

test_expect 'BENCHLINE_DETECT_THREADS=0 (no worker thread) stores the same' '
	bl --db s.db suspects --json >threaded.json &&
	BENCHLINE_DETECT_THREADS=0 bl --db s.db detect --all >/dev/null &&
	bl --db s.db suspects --json >plain.json &&
	test_cmp threaded.json plain.json
'

test_expect 'quiet.change_points false takes the change point away; true brings it back' '
	mkdir off on && echo "{\"quiet\": {\"change_points\": false}}" >off/benchline.json &&
	echo "{}" >on/benchline.json &&
	bl --db s.db detect --repo off --json >d.json &&
	! kinds s.db | grep -q change-point &&
	kinds s.db | grep -q " band " &&
	bl --db s.db alerts --json | json_get - "scalar grep { grep { \$_ eq q(change-point) } @{\$_->{kinds}} } @\$j" >n &&
	echo 0 >expect && test_cmp expect n &&
	bl --db s.db detect >/dev/null &&
	! kinds s.db | grep -q change-point &&
	bl --db s.db detect --repo on >/dev/null &&
	kinds s.db | grep -q "^013 change-point slower open$"
'

test_expect 'quiet.change_penalty and quiet.change_min_shift judge every line again' '
	mkdir pen shift &&
	echo "{\"quiet\": {\"change_penalty\": 100000}}" >pen/benchline.json &&
	echo "{\"quiet\": {\"change_min_shift\": 2}}" >shift/benchline.json &&
	bl --db s.db detect --repo pen >/dev/null &&
	! kinds s.db | grep -q change-point &&
	bl --db s.db detect --repo on >/dev/null &&
	kinds s.db | grep -q "^013 change-point" &&
	bl --db s.db detect --repo shift >/dev/null &&
	! kinds s.db | grep -q change-point &&
	bl --db s.db detect >/dev/null &&
	! kinds s.db | grep -q change-point &&
	bl --db s.db detect --repo on >/dev/null &&
	kinds s.db | grep -q "^013 change-point"
'

test_expect 'negative, zero or non-numeric settings are refused, naming the key; nothing changes' '
	bl --db s.db suspects --json >before.json &&
	for bad in "\"change_penalty\": -1" "\"change_penalty\": 0" "\"change_penalty\": \"32\"" \
		"\"change_min_shift\": -0.05" "\"change_min_shift\": null" \
		"\"change_points\": \"yes\"" "\"change_points\": 1"; do
		rm -rf bad && mkdir bad && echo "{\"quiet\": {$bad}}" >bad/benchline.json &&
		expect_exit 2 bl --db s.db detect --repo bad 2>err &&
		key=$(echo "$bad" | sed "s/\"\([a-z_]*\)\".*/\1/") &&
		grep -q "benchline.json: quiet\.$key: expected" err || { cat err; exit 1; }
	done &&
	bl --db s.db suspects --json >after.json &&
	test_cmp before.json after.json
'

BENCHLINE_DB=$(db_url "$TMP/s.db")
export BENCHLINE_DB
serve_start web || exit 1
SID=m1/stairs//wall_ms

test_expect 'the chart rings the change point with a diamond of its own; the legend says what it is' '
	expect_status 200 image/svg+xml GET "$URL/series/$SID/chart.svg" &&
	mv body chart.svg &&
	test "$(grep -c "<path class=\"suspect change-point slower\" d=\"M[0-9.]* [0-9.]* L[0-9.]* [0-9.]* L[0-9.]* [0-9.]* L[0-9.]* [0-9.]* Z\" fill=\"none\" stroke=\"#cc0000\"" chart.svg)" = 1 &&
	grep -q "<title>change point: slower +30.4%, a level that held 8 records</title>" chart.svg &&
	grep -q "<text class=\"suspect-label change-point\"[^>]*>+30.4%</text>" chart.svg &&
	test "$(grep -c "<circle [^>]*class=\"suspect slower\"" chart.svg)" = 0 &&
	expect_status 200 text/html GET "$URL/series/$SID" &&
	grep -q "◇ change point: a slower level that held 8 records" body &&
	grep -q "class=\"suspect slower change-point\"[^>]*>change point slower +30.4%" body &&
	expect_status 200 text/html GET "$URL/suspects" &&
	grep -q "slower <span class=\"kind\"[^>]*>change point</span>" body
'

test_done

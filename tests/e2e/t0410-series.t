#!/bin/sh
# benchline series (§1, §5, §14): one Series per (machine, benchmark, config, metric) over the
# untagged standing records, in main's order, cut into lines at every break; the JSON keys;
# the text table; the query plan.
. "$(dirname "$0")/lib.sh"

C() { printf 'c%039d' "$1"; }
S() { printf 'a%039d' "$1"; }
H() { printf '%032d' "$1"; }

# rec [NAME=VALUE...]: one native record on one line. Defaults: machine m1, benchmark town,
# config 1080p, harness 1, content 1, commit/source 1, committed day 1, median 100, p95 1% over
# the median; extra= is
# pasted at the top level, metrics= replaces the metrics object.
rec() (
	machine=m1 benchmark=town config=1080p harness=1 content=1 commit=1 source=1 branch=main
	day=01 started= median=100 p95= extra= metrics=
	for a in "$@"; do eval "${a%%=*}=\${a#*=}"; done
	[ -n "$p95" ] || p95=$(awk "BEGIN { print $median * 1.01 }")
	[ -n "$started" ] || started="2026-10-${day}T12:00:00Z"
	[ -n "$metrics" ] || metrics="{\"gpu_frame_us\":{\"kind\":\"timed\",\"unit\":\"us\",\"median\":$median,\"p95\":$p95,\"n\":30},\"allocations\":{\"kind\":\"counted\",\"unit\":\"allocs\",\"value\":5790},\"ledger_p95_ms\":{\"kind\":\"quantile\",\"unit\":\"ms\",\"value\":1.0612,\"ladder\":\"ms\"}}"
	printf '{"schema":1,"machine":"%s","benchmark":"%s","config":"%s","harness_version":%s,' \
		"$machine" "$benchmark" "$config" "$harness"
	printf '"content_hash":"%s","source":{"commit":"%s","source_hash":"%s","branch":"%s",' \
		"$(H "$content")" "$(C "$commit")" "$(S "$source")" "$branch"
	printf '"committed_at":"2026-10-%sT10:00:00Z"},"started_at":"%s",%s"metrics":%s}\n' \
		"$day" "$started" "$extra" "$metrics"
)

# json_ok FILE PERL-EXPR: succeeds when the expression is true for the decoded JSON ($j).
json_ok() {
	if [ "$(json_get "$1" "($2) ? 1 : 0")" != 1 ]; then
		echo "false: $2"
		json_get "$1" '$j'
		return 1
	fi
}

# lines FILE ID: "reason:records reason:records ..." of one Series.
lines() {
	json_get "$1" "my (\$s) = grep { \$_->{id} eq q($2) } @\$j; die q(no $2) unless \$s;
		join q( ), map { \"\$_->{reason}:\$_->{records}\" } @{\$s->{lines}}"
}

test_expect 'an empty database has no series' '
	bl init &&
	bl series --json >s.json &&
	test "$(cat s.json)" = "[]" &&
	bl series >out 2>err &&
	test ! -s out &&
	grep -q "no series yet" err
'

test_expect 'one Series per machine, benchmark, config and metric' '
	{
		rec machine=m1 benchmark=town config=1080p
		rec machine=m1 benchmark=town config=4k
		rec machine=m1 benchmark=crowd config=1080p
		rec machine=m2 benchmark=town config=1080p
		rec machine=m2 benchmark=town config=1080p commit=2 source=2 day=02
	} >group.json &&
	bl ingest group.json >/dev/null &&
	bl series --json >s.json &&
	json_ok s.json "@\$j == 12" &&
	test "$(json_get s.json "join q(,), map { \$_->{id} } @\$j")" = "m1/crowd/1080p/allocations,m1/crowd/1080p/gpu_frame_us,m1/crowd/1080p/ledger_p95_ms,m1/town/1080p/allocations,m1/town/1080p/gpu_frame_us,m1/town/1080p/ledger_p95_ms,m1/town/4k/allocations,m1/town/4k/gpu_frame_us,m1/town/4k/ledger_p95_ms,m2/town/1080p/allocations,m2/town/1080p/gpu_frame_us,m2/town/1080p/ledger_p95_ms" &&
	json_ok s.json "(grep { \$_->{id} eq q(m2/town/1080p/gpu_frame_us) } @\$j)[0]{records} == 2"
'

test_expect 'every §14 key is present, suspects null until detection, no regressions' '
	for k in id machine benchmark config metric records lines last_value open_suspects \
		regressions; do
		json_ok s.json "!grep { !exists \$_->{$k} } @\$j" || exit 1
	done &&
	for k in start_commit reason records; do
		json_ok s.json "!grep { grep { !exists \$_->{$k} } @{\$_->{lines}} } @\$j" || exit 1
	done &&
	json_ok s.json "!grep { defined \$_->{open_suspects} || \$_->{regressions} ne q(0) } @\$j" &&
	json_ok s.json "!grep { my \$n = 0; \$n += \$_->{records} for @{\$_->{lines}}; \$n != \$_->{records} } @\$j"
'

test_expect 'last_value: the median of a timed metric, the value of the others' '
	json_ok s.json "(grep { \$_->{id} eq q(m1/town/4k/gpu_frame_us) } @\$j)[0]{last_value} == 100" &&
	json_ok s.json "(grep { \$_->{id} eq q(m1/town/4k/allocations) } @\$j)[0]{last_value} == 5790" &&
	json_ok s.json "(grep { \$_->{id} eq q(m1/town/4k/ledger_p95_ms) } @\$j)[0]{last_value} == 1.0612"
'

test_expect 'ids are stable and percent-encoded' '
	rec machine=m.3 benchmark="town square" config=2560x1440/1800f >enc.json &&
	bl ingest enc.json >/dev/null &&
	bl series --json --machine m.3 >e.json &&
	json_ok e.json "\$j->[1]{id} eq q(m.3/town%20square/2560x1440%2F1800f/gpu_frame_us)" &&
	json_ok e.json "\$j->[1]{config} eq q(2560x1440/1800f) && \$j->[1]{benchmark} eq q(town square)"
'

test_expect '--machine and --benchmark filter the listing' '
	bl series --json --machine m1 --benchmark town >f.json &&
	json_ok f.json "@\$j == 6 && !grep { \$_->{machine} ne q(m1) || \$_->{benchmark} ne q(town) } @\$j" &&
	bl series --json --machine nobody >f.json &&
	json_ok f.json "@\$j == 0"
'

test_expect 'lines break at the first record, a baseline, a harness and a content change' '
	{
		rec machine=lb commit=10 source=10 day=05 extra="\"baseline\":true,"
		rec machine=lb commit=11 source=11 day=06 extra="\"baseline\":true,"
		rec machine=lb commit=12 source=12 day=07
		rec machine=lb commit=13 source=13 day=08
		rec machine=lb commit=14 source=14 day=09 harness=2
		rec machine=lb commit=15 source=15 day=10 harness=2 content=2
		rec machine=lb commit=16 source=16 day=11 harness=2 content=2
	} >lb.json &&
	bl ingest lb.json >/dev/null &&
	bl series --json --machine lb >lb-s.json &&
	test "$(lines lb-s.json lb/town/1080p/gpu_frame_us)" = "first:1 baseline:3 harness:1 content:2" &&
	json_ok lb-s.json "join(q(,), map { \$_->{start_commit} } @{\$j->[1]{lines}}) eq join(q(,), q($(C 10)), q($(C 11)), q($(C 14)), q($(C 15)))"
'

test_expect 'a line ends at a content hash appearing or going away' '
	{
		rec machine=ch commit=20 source=20 day=01
		rec machine=ch commit=21 source=21 day=02 content=7
		rec machine=ch commit=22 source=22 day=03 content=7
	} | sed "3s/\"content_hash\":\"[0-9]*\",//" >ch.json &&
	bl ingest ch.json >/dev/null &&
	bl series --json --machine ch >ch-s.json &&
	test "$(lines ch-s.json ch/town/1080p/gpu_frame_us)" = "first:1 content:1 content:1"
'

test_expect 'without synced commits, a Series follows committed_at, not ingest order' '
	{
		rec machine=ord commit=33 source=33 day=13 median=133
		rec machine=ord commit=31 source=31 day=11 median=131
		rec machine=ord commit=32 source=32 day=12 median=132
	} >ord.json &&
	bl ingest ord.json >/dev/null &&
	bl series --json --machine ord >ord-s.json &&
	json_ok ord-s.json "\$j->[1]{last_value} == 133" &&
	json_ok ord-s.json "\$j->[1]{lines}[0]{start_commit} eq q($(C 31))" &&
	rec machine=ord commit=34 source=34 day=09 median=109 >late.json &&
	bl ingest late.json >/dev/null &&
	bl series --json --machine ord >ord-s.json &&
	json_ok ord-s.json "\$j->[1]{last_value} == 133 && \$j->[1]{records} == 4" &&
	json_ok ord-s.json "\$j->[1]{lines}[0]{start_commit} eq q($(C 34))"
'

test_expect 'tagged runs never join a Series' '
	{
		rec machine=tg commit=40 source=40 day=01 median=100
		rec machine=tg commit=41 source=41 day=02 median=300 extra="\"profile\":\"debug\","
		rec machine=tg commit=42 source=42 day=03 median=400 branch=feature/x
		rec machine=tg commit=43 source=43 day=04 median=500 extra="\"preflight\":{\"quiet\":false},"
		rec machine=tg commit=44 source=44 day=05 median=600 p95=700
		rec machine=tg commit=45 source=45 day=06 median=700 |
			sed "s/\"branch\":\"main\"/\"branch\":\"main\",\"dirty\":true/"
		rec machine=tg commit=46 source=46 day=07 median=101 p95=103
		rec machine=tg commit=46 source=46 day=07 median=102 p95=102.5 started=2026-10-07T13:00:00Z
	} >tg.json &&
	bl ingest tg.json >/dev/null &&
	bl records --all --json --machine tg >tg-r.json &&
	for t in profile not-main preflight noisy dirty superseded; do
		json_ok tg-r.json "grep { grep { \$_ eq q($t) } @{\$_->{tags}} } @\$j" || exit 1
	done &&
	bl series --json --machine tg >tg-s.json &&
	json_ok tg-s.json "\$j->[1]{metric} eq q(gpu_frame_us) && \$j->[1]{records} == 2" &&
	json_ok tg-s.json "\$j->[1]{last_value} == 102" &&
	rec machine=tg2 extra="\"profile\":\"debug\"," >tg2.json &&
	bl ingest tg2.json >/dev/null &&
	bl series --json --machine tg2 >tg2-s.json &&
	json_ok tg2-s.json "@\$j == 0"
'

test_expect 'the text listing is an aligned table with units, sized to each value (100 µs, 1.06 ms)' '
	bl series --machine m1 >out &&
	head -1 out | grep -q "^machine *benchmark *config *metric *records *lines *last value$" &&
	grep -q "^m1 *town *4k *gpu_frame_us *1 *1 *100 µs$" out &&
	grep -q "^m1 *town *4k *allocations *1 *1 *5790 allocs$" out &&
	grep -q "^m1 *town *4k *ledger_p95_ms *1 *1 *1.06 ms$" out &&
	awk "NR == 1 { p = index(\$0, \"records\") + 6 }
		NR > 1 && substr(\$0, p, 1) != \"1\" { bad = 1 } END { exit bad }" out &&
	test "$(wc -l <out)" = 10
'

# The demo stores main's commits directly: its Series are in seq order.
test_expect 'on the demo, Series follow seq and break at its harness and content commits' '
	bl --db demo.db demo >/dev/null &&
	bl --db demo.db series --json >d.json &&
	h=$(db_sql demo.db "SELECT sha FROM commits WHERE seq = 200") &&
	c=$(db_sql demo.db "SELECT sha FROM commits WHERE seq = 140") &&
	json_ok d.json "@\$j > 60" &&
	json_ok d.json "!grep { my @l = grep { \$_->{reason} eq q(harness) } @{\$_->{lines}};
		@l != 1 || \$l[0]{start_seq} < 200 } @\$j" &&
	json_ok d.json "!grep { \$_->{machine} eq q(m4-pro-metal) && (grep { \$_->{reason} eq q(harness) } @{\$_->{lines}})[0]{start_commit} ne q($h) } @\$j" &&
	json_ok d.json "!grep { (\$_->{benchmark} eq q(forest)) != !!grep { \$_->{reason} eq q(content) && \$_->{start_commit} eq q($c) } @{\$_->{lines}} } @\$j" &&
	json_ok d.json "!grep { join(q( ), map { \$_->{reason} } @{\$_->{lines}}) !~ /^first baseline baseline (content )?harness\$/ } @\$j"
'

test_expect 'on the demo, each Series holds exactly the untagged standing records' '
	db_sql demo.db "SELECT m.name || '"'"'/'"'"' || b.name || '"'"'/'"'"' || r.config, count(*)
		FROM records r
		JOIN machines m ON m.id = r.machine_id JOIN benchmarks b ON b.id = r.benchmark_id
		WHERE NOT EXISTS (SELECT 1 FROM tags t WHERE t.run_id = r.run_id)
		GROUP BY 1" | tr "|" " " | LC_ALL=C sort >want &&
	json_get d.json "join qq(\n), map { qq(\$_->{machine}/\$_->{benchmark}/\$_->{config} \$_->{records}) } grep { \$_->{metric} eq q(gpu_frame_us) } @\$j" | LC_ALL=C sort >got &&
	diff want got &&
	last=$(db_sql demo.db "SELECT c.sha FROM records r JOIN runs ON runs.id = r.run_id
		JOIN commits c ON c.sha = runs.commit_sha JOIN machines m ON m.id = r.machine_id
		JOIN benchmarks b ON b.id = r.benchmark_id
		WHERE m.name = '"'"'rtx2070-linux'"'"' AND b.name = '"'"'town'"'"'
		AND r.config = '"'"'640x360/64f'"'"'
		AND NOT EXISTS (SELECT 1 FROM tags t WHERE t.run_id = r.run_id)
		ORDER BY c.seq DESC LIMIT 1") &&
	json_ok d.json "(grep { \$_->{id} eq q(rtx2070-linux/town/640x360%2F64f/cpu_frame_us) } @\$j)[0]{last_commit} eq q($last)"
'

test_expect 'records join main by commit, else by source hash, else by time' '
	db_cp demo.db place.db &&
	sha() { db_sql place.db "SELECT $1 FROM commits WHERE seq = $2"; } &&
	at() {
		t=$(db_sql place.db "SELECT committed_at + $2 FROM commits WHERE seq = $1") &&
		perl -MPOSIX -e "print strftime(q(%Y-%m-%dT%H:%M:%SZ), gmtime(\$ARGV[0]))" "$t"
	} &&
	main_rec() {
		printf "{\"schema\":1,\"machine\":\"late-box\",\"benchmark\":\"town\",\"harness_version\":9,\"source\":{\"commit\":\"%s\",\"source_hash\":\"%s\",\"committed_at\":\"%s\"},\"started_at\":\"%s\",%s\"metrics\":{\"t\":{\"unit\":\"us\",\"median\":%s}}}\n" "$1" "$2" "$3" "$3" "$4" "$5"
	} &&
	{
		main_rec "$(sha sha 20)" "$(sha source_hash 20)" "$(at 20 0)" "" 20
		main_rec "$(sha sha 3)" "$(sha source_hash 3)" "$(at 3 0)" "" 3
		main_rec "$(C 99)" "$(sha source_hash 12)" "$(at 12 -60)" "" 12
		main_rec "$(C 98)" "$(S 98)" "$(at 7 60)" "\"baseline\":true," 7.5
	} >place.json &&
	bl --db place.db ingest place.json >/dev/null &&
	bl --db place.db series --json --machine late-box >p.json &&
	json_ok p.json "@\$j == 1 && \$j->[0]{records} == 4 && \$j->[0]{last_value} == 20" &&
	test "$(lines p.json late-box/town//t)" = "first:1 baseline:3" &&
	json_ok p.json "\$j->[0]{lines}[0]{start_seq} == 3 && !defined \$j->[0]{lines}[1]{start_seq}" &&
	json_ok p.json "\$j->[0]{lines}[1]{start_commit} eq q($(C 98))"
'

# pg_plan FILE ARGS: PostgreSQL's plans of the statement in FILE (its PostgreSQL text), prepared as
# store/pg.c prepares it and explained with ARGS, first as a custom plan then as the generic
# one a prepared statement comes to. :mid, :bid and :cfg in ARGS are the demo's first group.
pg_plan() {
	{
		echo "SELECT machine_id AS mid, benchmark_id AS bid, config AS cfg"
		echo "FROM records ORDER BY 1, 2, 3 LIMIT 1 \\gset"
		echo "PREPARE s(bigint, bigint, text) AS"
		cat "$1"
		for mode in force_custom_plan force_generic_plan; do
			echo "SET plan_cache_mode = $mode;"
			echo "EXPLAIN EXECUTE s($2);"
		done
	} | db_sql demo.db
}

# On PostgreSQL the planner weighs the demo's small tables: it may read metrics or tags whole
# for a hash join, so only the reads of records are checked there (after ANALYZE, so the plans
# do not depend on whether autovacuum has been by).
test_expect 'the Series queries are index range scans on the records primary key' '
	if pg_mode; then pg_statements pg-sql && sql=pg-sql/series.sql; else sql=$ROOT/sql/series.sql; fi &&
	awk "/^-- name: series_members/ { f = 1; next } /^-- name:/ { f = 0 } f && !/^--/" \
		"$sql" >members.sql &&
	awk "/^-- name: series_next_group/ { f = 1; next } /^-- name:/ { f = 0 } f && !/^--/" \
		"$sql" >groups.sql &&
	test -s members.sql && test -s groups.sql &&
	if pg_mode; then
		db_sql demo.db "ANALYZE" &&
		pg_plan members.sql ":mid, :bid, :'"'"'cfg'"'"'" >plan1 &&
		pg_plan groups.sql "-1, -1, '"'"''"'"'" >plan2 &&
		cat plan1 plan2 &&
		key="Index Cond: ((machine_id = .*) AND (benchmark_id = .*) AND (config = .*))$" &&
		test "$(grep -A1 "Scan.* records_pkey" plan1 | grep -c "$key")" = 2 &&
		test "$(grep -A1 "Index Only Scan using records_pkey on records r" plan2 |
			grep -c "Index Cond: (ROW(machine_id, benchmark_id, config) > ROW(")" = 2 &&
		! grep -q "Seq Scan on records" plan1 plan2
	else
		{ echo "EXPLAIN QUERY PLAN"; cat members.sql; } | db_sql demo.db >plan1 &&
		{ echo "EXPLAIN QUERY PLAN"; cat groups.sql; } | db_sql demo.db >plan2 &&
		cat plan1 plan2 &&
		grep -q "SEARCH r USING PRIMARY KEY (machine_id=? AND benchmark_id=? AND config=?)" plan1 &&
		grep -q "SEARCH r USING PRIMARY KEY ((machine_id,benchmark_id,config)>(?,?,?))" plan2 &&
		! grep -q "SCAN r\\b" plan1 plan2 &&
		! grep -q "SCAN runs\\|SCAN mt\\|SCAN c\\b\\|SCAN t\\b" plan1
	fi
'

test_done

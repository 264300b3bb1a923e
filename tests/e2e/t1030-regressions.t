#!/bin/sh
# Regressions (§9.3): benchline bisect with a database stores the commit it pins, on the Series
# of the metric it judged; `benchline regressions` lists them (§14), the server shows them
# (/regressions, /api/regressions, a Series page's marks and probe log, the Series JSON's
# count), and triage (§9.5) files the alert that holds one. A real benchmark program in a real
# repository: one commit does 15% more work. The metric judged is the program's iteration
# count ("work"), so no verdict depends on how busy the machine is.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/e2e/bench-lib.sh"
. "$TESTS_DIR/e2e/serve-lib.sh"

# c1 good; c2 docs; c3 a comment (a new source, good's binary); c4 15% more work (#42);
# c5 docs; c6 another comment.
(
	set -e
	git init -q repo
	mkdir repo/docs
	bench_program repo/bench.c 2000000 latency
	echo notes >repo/docs/notes.md
	printf 'bench\nbenchline.json\n' >repo/.gitignore
	commit 'a benchmark' >c1
	echo 'more notes' >>repo/docs/notes.md
	commit 'docs only' >c2
	echo '/* a comment */' >>repo/bench.c
	commit 'a comment' >c3
	sed 's/^#define WORK 2000000$/#define WORK 2300000/' repo/bench.c >repo/bench.c.new
	mv repo/bench.c.new repo/bench.c
	commit 'Parse twice as carefully (#42)' >c4
	echo 'even more notes' >>repo/docs/notes.md
	commit 'docs only' >c5
	echo '/* another comment */' >>repo/bench.c
	commit 'another comment' >c6
) >setup.log 2>&1 || { cat setup.log; echo 'Bail out! cannot build the test repository'; exit 1; }
c1=$(cat c1) c3=$(cat c3) c4=$(cat c4) c6=$(cat c6)
s4=$(echo "$c4" | cut -c1-12)
cat >repo/benchline.json <<'EOF'
{"measured_paths": ["bench.c"], "unmeasured_paths": ["docs", ".gitignore"], "machine": "bench-box",
 "bench": {"build": "cc -O2 -o bench bench.c", "run": "./bench", "processes": 1,
           "artifacts": ["bench"]}}
EOF
src() { bl hash --repo repo "$1" | cut -d" " -f1; }

# The nightly history of the Series the Regression lands on: one record of bench-box's
# loop/work per commit, 2000000 before c4 and 2300000 from c4 on (the docs-only commits share
# their parents' source hash, so their records share a key: four records stand).
history() {
	n=0
	for c in $(git -C repo rev-list --reverse HEAD); do
		n=$((n + 1))
		w=2000000
		git -C repo merge-base --is-ancestor "$c4" "$c" && w=2300000
		printf '{"schema": 1, "machine": "bench-box", "benchmark": "loop", "harness_version": 1, '
		printf '"source": {"commit": "%s", "source_hash": "%s", "branch": "main"}, ' "$c" "$(src "$c")"
		printf '"started_at": "2026-11-%02dT04:00:00Z", ' "$n"
		printf '"metrics": {"work": {"kind": "counted", "unit": "iterations", "value": %s}}}\n' "$w"
	done
}
history >history.json

test_expect 'bisect without a database stores nothing and makes no database' '
	BENCHLINE_DB=$(db_url "$TMP/none.db") bl bisect --repo repo --good "$c1" --bad "$c6" --benchmark loop \
		--metric work >out 2>err &&
	tail -1 out | grep -q "^pinned $c4$" &&
	db_absent none.db &&
	! grep -q "Regression" err
'

test_expect 'with a database, bisect stores the pinned commit as a Regression (stderr says so)' '
	bl sync --repo repo >/dev/null &&
	bl ingest history.json >/dev/null &&
	bl bisect --repo repo --good "$c1" --bad "$c6" --benchmark loop --metric work --json \
		>bisect.json 2>err &&
	grep -q "^bisect: stored Regression 1: bench-box/loop//work at $s4$" err &&
	tail -1 err | grep -q "^bisect: pinned, 3 probes over 3 distinct sources$"
'

test_expect 'the bisect report names the pinned commit'"'"'s subject, pull request, ratio and interval' '
	json_get bisect.json "join q(|), \$j->{pinned}{commit}, \$j->{pinned}{subject}, \$j->{pinned}{pull_request}, \$j->{ratio}, join(q(,), @{\$j->{interval}})" >actual &&
	echo "$c4|Parse twice as carefully (#42)|42|1.15|1.15,1.15" >expect &&
	test_cmp expect actual
'

test_expect 'regressions --json: every §14 field, the probe log as bisect printed it' '
	bl regressions --json >regs.json &&
	json_get regs.json "\$_->{created_at} =~ /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\$/ or die q(created_at) for @\$j; \$_->{created_at} = q(T) for @\$j; \$_->{profile} = \$_->{profile} ? join(q( ), map { \$_ // q(null) } @{\$_->{profile}}{qw(benchmark metric fixed_work)}) : q(none) for @\$j; \$j" >actual &&
	cat >expect <<-EOF &&
	[{"alert":null,"benchmark":"loop","commit":"$c4","config":"","created_at":"T","filed_url":null,"id":1,"interval":[1.15,1.15],"machine":"bench-box","metric":"work","probes":[{"ci_high":1.15,"ci_low":1.15,"commit":"$c6","identical_artifacts":false,"instructions_ratio":null,"interval":[1.15,1.15],"metric":"loop work","pairs":30,"ratio":1.15,"skipped":null,"source_hash":"$(src "$c6")","verdict":"slower"},{"ci_high":null,"ci_low":null,"commit":"$c3","identical_artifacts":true,"instructions_ratio":null,"interval":null,"metric":null,"pairs":0,"ratio":null,"skipped":null,"source_hash":"$(src "$c3")","verdict":"same"},{"ci_high":1.15,"ci_low":1.15,"commit":"$c4","identical_artifacts":false,"instructions_ratio":null,"interval":[1.15,1.15],"metric":"loop work","pairs":30,"ratio":1.15,"skipped":null,"source_hash":"$(src "$c4")","verdict":"slower"}],"profile":"loop work 0","pull_request":42,"ratio":1.15,"reference_commit":"$c1","seq":3,"source_hash":"$(src "$c4")","subject":"Parse twice as carefully (#42)"}]
	EOF
	test_cmp expect actual &&
	json_get bisect.json "\$j->{probes}" >from-bisect &&
	json_get regs.json "\$j->[0]{probes}" >stored &&
	test_cmp from-bisect stored
'

test_expect 'the regressions table' '
	bl regressions >table &&
	head -1 table | grep -q "^id  machine  *benchmark  config  metric  commit  *pr  *delta  *interval  filed$" &&
	sed -n 2p table | grep -q "^ 1  bench-box  loop  *-  *work  *$s4  #42  +15.0%  \[+15.0%, +15.0%\]  -$"
'

test_expect 'the same bisection again keeps the one Regression; --no-store stores nothing' '
	bl bisect --repo repo --good "$c1" --bad "$c6" --benchmark loop --metric work >/dev/null 2>err &&
	grep -q "^bisect: already stored Regression 1: bench-box/loop//work at $s4$" err &&
	bl bisect --repo repo --good "$c1" --bad "$c6" --benchmark loop --metric work --no-store \
		--machine other-box >/dev/null 2>err &&
	! grep -q Regression err &&
	test "$(db_sql "$BENCHLINE_DB" "SELECT count(*) FROM regressions")" = 1
'

test_expect 'a bad --machine is refused before anything is measured (exit 2)' '
	expect_exit 2 bl bisect --repo repo --good "$c1" --bad "$c6" --benchmark loop \
		--machine "no such/box" >out 2>err &&
	grep -q "invalid machine name .no such/box." err &&
	test ! -s out
'

test_expect 'storing made the next detect a full one; the Series counts its Regression' '
	test "$(db_sql "$BENCHLINE_DB" "SELECT value FROM meta WHERE key = '"'"'detect_full'"'"'")" = "a Regression was pinned" &&
	bl series --json >series.json &&
	json_get series.json "join q( ), map { \$_->{id} . q(=) . \$_->{regressions} } @\$j" >actual &&
	echo "bench-box/loop//work=1" >expect && test_cmp expect actual
'
test_expect 'the pinned commit starts a line of its Series (reason pinned), detect agrees' '
	bl detect >/dev/null &&
	bl series --json >series.json &&
	json_get series.json "join q( ), map { \$_->{reason} . q(:) . \$_->{start_commit} . q(:) . \$_->{records} } @{\$j->[0]{lines}}" >actual &&
	echo "first:$c1:2 pinned:$c4:2" >expect && test_cmp expect actual &&
	test "$(db_sql "$BENCHLINE_DB" "SELECT reason FROM lines ORDER BY line")" = "$(printf "first\npinned")"
'

serve_start web || exit 1
SID=bench-box/loop//work

test_expect '/api/regressions is regressions --json byte for byte; /api/series counts it' '
	expect_status 200 application/json GET "$URL/api/regressions" &&
	bl regressions --json >cli.json && test_cmp cli.json body &&
	curl -s "$URL/api/series" >api.json &&
	json_get api.json "\$j->[0]{regressions}" >actual &&
	echo 1 >expect && test_cmp expect actual
'

test_expect '/regressions lists it, linked to its Series' '
	expect_status 200 text/html GET "$URL/regressions" &&
	grep -q "<td><a href=\"/series/$SID#regressions\">work</a></td><td class=\"mono\" title=\"$c4\">$s4</td><td>#42</td><td class=\"subject\">Parse twice as carefully (#42)</td><td class=\"num slower\">+15.0%</td>" body &&
	grep -q "1 Regression\." body
'

test_expect 'the Series page marks the pinned commit on its chart and lists the probe log' '
	expect_status 200 text/html GET "$URL/series/$SID" &&
	grep -q "<g class=\"regression\">.*<text [^>]*>Regression 1 +15.0%</text><title>Regression 1: commit $s4, +15.0%</title></g>" body &&
	grep -q "<h2 id=\"regressions\">Regressions</h2>" body &&
	test "$(grep -c "<tr class=\"probe-" body)" = 3 &&
	grep -q "<td>same <span class=\"muted\">(artifacts identical to good" body &&
	grep -q "<dt>regressions</dt><dd><a href=\"#regressions\">1</a></dd>" body &&
	grep -q "<td>pinned</td>" body &&
	curl -s "$URL/" | grep -q "<td class=\"num regressions\"><a href=\"/series/$SID#regressions\">1</a></td>"
'

test_expect 'the chart alone carries the mark too' '
	expect_status 200 image/svg+xml GET "$URL/series/$SID/chart.svg" &&
	grep -q "<title>Regression 1: commit $s4, +15.0%</title>" body
'

# Triage (§9.5): confirm is what makes alerts; here one is made by hand for the Regression.
test_expect 'triage files the confirmed alert holding the Regression' '
	db_sql "$BENCHLINE_DB" "INSERT INTO alerts (machine_id, commit_sha, side, state, series, created_at) SELECT id, '"'"'$c4'"'"', '"'"'slower'"'"', '"'"'confirmed'"'"', 1, 0 FROM machines WHERE name = '"'"'bench-box'"'"'; UPDATE regressions SET alert_id = 1;" &&
	bl triage --json --base-url http://bench.example/ >triage.json &&
	json_get triage.json "join q(|), scalar(@\$j), \$j->[0]{id}, \$j->[0]{title}, join(q(,), @{\$j->[0]{labels}}), join(q(,), @{\$j->[0]{regressions}})" >actual &&
	echo "1|1|loop work +15.0% on bench-box at $s4 (#42)|performance,needs-triage|1" >expect &&
	test_cmp expect actual &&
	json_get triage.json "\$j->[0]{body}" >body.md &&
	grep -q "^- \*\*Commit:\*\* \`$c4\` Parse twice as carefully (#42)$" body.md &&
	grep -q "^- \*\*Pull request:\*\* #42$" body.md &&
	grep -q "^| loop work | +15.0% | \[+15.0%, +15.0%\] | \`$s4\` | #42 | \`$(echo $c1 | cut -c1-12)\` | \[chart\](http://bench.example/series/$SID) |$" body.md &&
	test "$(grep -c "^| \`[0-9a-f]\{12\}\` | " body.md)" = 3
'

test_expect 'the alert filed, triage never lists it again; the page links the issue' '
	bl triage --mark-filed 1=https://issues.example/42 2>err &&
	grep -q "alert 1 filed at https://issues.example/42" err &&
	bl triage --json >after.json &&
	echo "[]" >expect && test_cmp expect after.json &&
	bl regressions --json | json_get - "\$j->[0]{filed_url}" >actual &&
	echo https://issues.example/42 >expect && test_cmp expect actual &&
	curl -s "$URL/regressions" | grep -q "<a href=\"https://issues.example/42\">https://issues.example/42</a>"
'

test_expect 'the server stops cleanly' '
	serve_stop web
'
test_done

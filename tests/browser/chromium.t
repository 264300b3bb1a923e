#!/bin/sh
# A real browser (§11 issue 5): headless Chromium loads a Series page; the chart's SVG must be
# in the rendered DOM with a <title> on its points, and screenshots are kept in tests/output/
# for people to look at: series.png, series-date.png, suspect-series.png, overview.png,
# suspects.png, suspects-slower.png, regression.png, regressions.png, alerts.png,
# regression-page.png, export-overview.png, export-series.png, export-alerts.png (the exported
# site, from the file system), dots.png, huge.png, gate.png, linked.png. Run by `make e2e`
# (tests/e2e/t0620-browser.t) and `make browser`. Chromium is a test dependency: missing, the test fails (make deps).
TEST_FILE_DIR=$(cd "$(dirname "$0")" && pwd)
. "$TEST_FILE_DIR/../e2e/lib.sh"
. "$TESTS_DIR/e2e/serve-lib.sh"

# BENCHLINE_SCREENSHOTS names another folder: `make docs-images` writes docs/images/ so.
OUTPUT=${BENCHLINE_SCREENSHOTS:-$ROOT/tests/output}
CHROMIUM=$(command -v chromium || command -v chromium-browser)

# chrome ARGS... URL: headless Chromium with nothing that reaches the network.
chrome() {
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --user-data-dir="$(mktemp -d "$TMP/chrome.XXXXXX")" "$@"
}

test_expect 'chromium is installed' '
	test -n "$CHROMIUM" || { echo "chromium is missing: run make deps"; exit 1; }
'
[ -n "$CHROMIUM" ] || { test_done; exit 1; }

bl demo --json >planted.json 2>/dev/null && bl detect >/dev/null 2>&1 || exit 1
serve_start web || exit 1
SID=rtx2070-linux/forest/2560x1440%2F1800f/gpu_frame_us
bl series --json | grep -q "\"id\":\"$SID\"" ||
	SID=$(bl series --json | json_get - '$j->[0]{id}')

test_expect 'the rendered Series page holds the SVG chart with point titles' '
	chrome --dump-dom "$URL/series/$SID" >dom.html 2>chrome.err &&
	grep -q "<svg" dom.html &&
	grep -q "<title>commit [0-9a-f]\{12\}" dom.html &&
	grep -q "class=\"point\"" dom.html &&
	grep -q "class=\"tagged\"" dom.html
'
test_expect 'the overview renders with its search box' '
	chrome --dump-dom "$URL/?q=town" >dom2.html 2>chrome.err &&
	grep -q "id=\"q\"" dom2.html &&
	grep -q "<tr data-search" dom2.html
'
# Issue 15 item 6: what the rendered chart holds (tests/e2e/t0625-charts.t reads the same as
# text, in more detail).
test_expect 'the rendered chart has the band, whiskers, break labels, and no gnuplot titles' '
	grep -q "<polygon class=\"band\"" dom.html &&
	grep -q "<path class=\"whisker\"" dom.html &&
	grep -q "class=\"break-label\"[^>]*>harness 9→10</text>" dom.html &&
	grep -q "class=\"clamped tagged\"" dom.html &&
	! grep -qi "<title>gnuplot\|<title>\$d" dom.html
'
test_expect 'sort.js sorts the overview by the column #sort= names (change, descending)' '
	chrome --dump-dom "$URL/#sort=-change" >sorted.html 2>chrome.err &&
	grep -q "aria-sort=\"descending\"[^>]*>change</th>\|>change</th>" sorted.html &&
	perl -0ne "push @v, \$1 while /<td class=\"num[a-z ]*\" data-v=\"([-0-9.e]+)\" title=\"against/g; END { exit 1 unless @v > 10; for (1 .. \$#v) { exit 1 if \$v[\$_] > \$v[\$_ - 1] } }" sorted.html &&
	perl -0ne "push @v, \$1 while /<td class=\"num[a-z ]*\" data-v=\"([-0-9.e]+)\" title=\"against/g; END { exit 1 unless grep { \$v[\$_] > \$v[\$_ - 1] } 1 .. \$#v }" dom2.html
'
test_expect 'a screenshot of the Series page is kept in tests/output/series.png' '
	mkdir -p "$OUTPUT" &&
	rm -f "$OUTPUT/series.png" &&
	chrome --screenshot="$OUTPUT/series.png" --window-size=1280,900 --hide-scrollbars \
		"$URL/series/$SID" >/dev/null 2>chrome.err &&
	test "$(wc -c <"$OUTPUT/series.png")" -gt 20000 &&
	chrome --screenshot="$OUTPUT/overview.png" --window-size=1280,900 --hide-scrollbars \
		"$URL/" >/dev/null 2>chrome.err &&
	test "$(wc -c <"$OUTPUT/overview.png")" -gt 20000
'
test_expect 'screenshots: the Series by date, a Suspect'"'"'s Series, the Suspects, slower only' '
	chrome --screenshot="$OUTPUT/series-date.png" --window-size=1280,900 --hide-scrollbars \
		"$URL/series/$SID?x=date" >/dev/null 2>chrome.err &&
	test "$(wc -c <"$OUTPUT/series-date.png")" -gt 20000 &&
	chrome --dump-dom "$URL/suspects" >sus.html 2>chrome.err &&
	grep -q "<tbody class=\"alert-group\">" sus.html &&
	SUS=$(json_get planted.json "my (\$p) = grep { \$_->{side} eq q(slower) } @{\$j->{planted}}; join q(/), map { my \$s = \$_; \$s =~ s/([^A-Za-z0-9._~-])/sprintf(q(%%%02X), ord \$1)/ge; \$s } @\$p{qw(machine benchmark config metric)}") &&
	chrome --dump-dom "$URL/series/$SUS" >susseries.html 2>chrome.err &&
	grep -q "class=\"suspect-label slower\"" susseries.html &&
	chrome --screenshot="$OUTPUT/suspect-series.png" --window-size=1280,900 --hide-scrollbars \
		"$URL/series/$SUS" >/dev/null 2>chrome.err &&
	chrome --screenshot="$OUTPUT/suspects.png" --window-size=1280,900 --hide-scrollbars \
		"$URL/suspects" >/dev/null 2>chrome.err &&
	test "$(wc -c <"$OUTPUT/suspects.png")" -gt 20000 &&
	chrome --screenshot="$OUTPUT/suspects-slower.png" --window-size=1280,700 --hide-scrollbars \
		"$URL/suspects?side=slower" >/dev/null 2>chrome.err
'
# A Regression on the Series of the demo's first planted slower step, written by hand (bisect
# needs a repository to measure; t1030 stores one for real): the chart marks it with a
# triangle on its top edge, the page lists it with its probe log.
json_get planted.json 'my ($p) = grep { $_->{side} eq q(slower) } @{$j->{planted}}; join q( ), @$p{qw(machine benchmark config metric commit seq shift)}' >step
read -r RM RB RC RMETRIC RCOMMIT RSEQ RSHIFT <step
RSID=$(bl series --json | json_get - "(grep { \$_->{machine} eq q($RM) && \$_->{benchmark} eq q($RB) && \$_->{config} eq q($RC) && \$_->{metric} eq q($RMETRIC) } @\$j)[0]{id}")
db_sql "$BENCHLINE_DB" "INSERT INTO regressions (machine_id, benchmark_id, config, metric, commit_sha, seq, source_hash, subject, pr, ratio, lo, hi, reference_commit, probes, created_at) SELECT m.id, b.id, '$RC', '$RMETRIC', '$RCOMMIT', $RSEQ, c.source_hash, c.subject, c.pr, 1 + $RSHIFT, 1 + $RSHIFT - 0.01, 1 + $RSHIFT + 0.01, (SELECT sha FROM commits WHERE seq = $RSEQ - 4), '[{\"commit\":\"$RCOMMIT\",\"source_hash\":\"'||c.source_hash||'\",\"verdict\":\"slower\",\"skipped\":null,\"identical_artifacts\":false,\"metric\":\"$RB [$RC] $RMETRIC\",\"ratio\":'||(1 + $RSHIFT)||',\"ci_low\":'||(1 + $RSHIFT - 0.01)||',\"ci_high\":'||(1 + $RSHIFT + 0.01)||',\"pairs\":30}]', 0 FROM machines m, benchmarks b, commits c WHERE m.name = '$RM' AND b.name = '$RB' AND c.sha = '$RCOMMIT'" ||
	echo "# cannot write the Regression" >&2

test_expect 'a Series page with a Regression: the triangle on the chart, the probe log, a screenshot' '
	test -n "$RSID" &&
	chrome --dump-dom "$URL/series/$RSID" >reg.html 2>chrome.err &&
	grep -q "<g class=\"regression\">" reg.html &&
	grep -q "<title>Regression 1: commit $(echo $RCOMMIT | cut -c1-12), +" reg.html &&
	grep -q "<text class=\"regression-label\"[^>]*>Regression 1 +[0-9.]*%</text>" reg.html &&
	grep -q "<h2 id=\"regressions\">Regressions</h2>" reg.html &&
	grep -q "<tr class=\"probe-slower\">" reg.html &&
	chrome --screenshot="$OUTPUT/regression.png" --window-size=1280,1000 --hide-scrollbars \
		"$URL/series/$RSID" >/dev/null 2>chrome.err &&
	test "$(wc -c <"$OUTPUT/regression.png")" -gt 20000 &&
	chrome --screenshot="$OUTPUT/regressions.png" --window-size=1280,500 --hide-scrollbars \
		"$URL/regressions" >/dev/null 2>chrome.err
'
test_expect 'the alerts page renders each alert with its range and Series, and a screenshot' '
	chrome --dump-dom "$URL/alerts" >alerts.html 2>chrome.err &&
	test "$(grep -c "<section class=\"alert " alerts.html)" = "$(bl alerts --json | json_get - "scalar @\$j")" &&
	grep -q "<br>to <span class=\"mono\"" alerts.html &&
	chrome --screenshot="$OUTPUT/alerts.png" --window-size=1280,1000 --hide-scrollbars \
		"$URL/alerts" >/dev/null 2>chrome.err &&
	test "$(wc -c <"$OUTPUT/alerts.png")" -gt 20000
'
test_expect 'a Regression'"'"'s page renders its facts and probe log, and a screenshot' '
	chrome --dump-dom "$URL/regressions/1" >regpage.html 2>chrome.err &&
	grep -q "<h1>Regression 1: " regpage.html &&
	grep -q "<dt>culprit</dt>" regpage.html &&
	grep -q "<tr class=\"probe-slower\">" regpage.html &&
	chrome --screenshot="$OUTPUT/regression-page.png" --window-size=1280,800 --hide-scrollbars \
		"$URL/regressions/1" >/dev/null 2>chrome.err &&
	test "$(wc -c <"$OUTPUT/regression-page.png")" -gt 10000
'
test_expect 'the server stops cleanly' '
	serve_stop web
'

# The exported site (benchline export --html), opened from the file system: no server, yet the
# overview's search (?q= read by filter.js) and sort (#sort= by sort.js) work.
bl export --html "$TMP/site" >/dev/null 2>&1 || echo "# export failed" >&2
SITE=file://$TMP/site
test_expect 'the exported overview filters by ?q= with no server behind it' '
	chrome --dump-dom "$SITE/index.html?q=town+gpu" >site-q.html 2>chrome.err &&
	total=$(grep -c "<tr data-search=" site-q.html) &&
	shown=$(grep "<tr data-search=" site-q.html | grep -vc " hidden") &&
	test "$shown" -gt 0 && test "$shown" -lt "$total" &&
	{ grep "<tr data-search=" site-q.html | grep -v " hidden" | grep -v "town.*gpu" >wrong || :; } &&
	test ! -s wrong &&
	grep -q "<span id=\"shown\">$shown</span>" site-q.html
'
test_expect 'the exported overview sorts by #sort=-change with no server behind it' '
	chrome --dump-dom "$SITE/index.html#sort=-change" >site-s.html 2>chrome.err &&
	grep -q "aria-sort=\"descending\"" site-s.html &&
	perl -0ne "push @v, \$1 while /<td class=\"num[a-z ]*\" data-v=\"([-0-9.e]+)\" title=\"against/g; END { exit 1 unless @v > 10; for (1 .. \$#v) { exit 1 if \$v[\$_] > \$v[\$_ - 1] } }" site-s.html
'
test_expect 'the exported pages render from files: screenshots of the overview, a Series, the alerts' '
	chrome --screenshot="$OUTPUT/export-overview.png" --window-size=1280,800 --hide-scrollbars \
		"$SITE/index.html?q=town#sort=-change" >/dev/null 2>chrome.err &&
	test "$(wc -c <"$OUTPUT/export-overview.png")" -gt 20000 &&
	page=$(sed -n "s/.*<a href=\"\.\/\(series\/[^\"]*\)\">chart<\/a>.*/\1/p" "$TMP/site/index.html" | head -1) &&
	chrome --dump-dom "$SITE/$page" >site-series.html 2>chrome.err &&
	grep -q "class=\"point\"" site-series.html &&
	grep -q "<link rel=\"stylesheet\" href=\"../assets/style.css\">" site-series.html &&
	chrome --screenshot="$OUTPUT/export-series.png" --window-size=1280,900 --hide-scrollbars \
		"$SITE/$page" >/dev/null 2>chrome.err &&
	test "$(wc -c <"$OUTPUT/export-series.png")" -gt 20000 &&
	chrome --screenshot="$OUTPUT/export-alerts.png" --window-size=1280,800 --hide-scrollbars \
		"$SITE/alerts.html" >/dev/null 2>chrome.err &&
	test "$(wc -c <"$OUTPUT/export-alerts.png")" -gt 20000
'

# D9: a Series with "." and ".." parts opens from the link the overview gives it (Chromium
# resolves such path segments away, even percent-encoded, before sending).
export BENCHLINE_DB="$TMP/dots.db"
bl init >/dev/null &&
	{ record m1 .. 1 5 && record m1 .. 2 6 && record m1 .. 3 5.5; } | sed 's/"config":"c"/"config":"."/' >dots.jsonl &&
	bl ingest dots.jsonl >/dev/null || exit 1
serve_start dots || exit 1
test_expect 'D9: Chromium opens a Series named ".." / "." from the overview'"'"'s link' '
	chrome --dump-dom "$URL/" >dots-ov.html 2>chrome.err &&
	link=$(sed -n "s/.*<a href=\"\([^\"]*\)\">chart<\/a>.*/\1/p" dots-ov.html | sed "s/&amp;/\&/g") &&
	test "$link" = "/series?id=m1/.././t" &&
	chrome --dump-dom "$URL$link" >dots.html 2>chrome.err &&
	grep -q "<h1>m1 / .. / . / t</h1>" dots.html &&
	grep -q "class=\"point\"" dots.html &&
	chrome --screenshot="$OUTPUT/dots.png" --window-size=1280,700 --hide-scrollbars \
		"$URL$link" >/dev/null 2>chrome.err
'
# D7: values near DBL_MAX are drawn (on the edge, marked), not a 503.
for i in 1 2 3 4; do
	record m1 huge $i 1.7e308
done >huge.jsonl && bl ingest huge.jsonl >/dev/null || exit 1
test_expect 'D7: a Series of values near DBL_MAX renders its chart, and a screenshot' '
	chrome --dump-dom "$URL/series/m1/huge/c/t" >huge.html 2>chrome.err &&
	grep -q "<path class=\"clamped\"" huge.html &&
	! grep -q "The chart was not drawn" huge.html &&
	chrome --screenshot="$OUTPUT/huge.png" --window-size=1280,800 --hide-scrollbars \
		"$URL/series/m1/huge/c/t" >/dev/null 2>chrome.err
'
test_expect 'the dots server stops cleanly' '
	serve_stop dots
'

# The gate page (§7, §11): a repository whose pull request makes bench_01 10% slower.
export BENCHLINE_DB="$TMP/gate.db"
git init -q -b main repo
(
	cd repo && mkdir src &&
	printf '{"measured_paths": ["src"], "unmeasured_paths": ["benchline.json", ".benchline"], "repo_url": "https://git.example.org/team/engine"}\n' >benchline.json &&
	echo 0 >src/a.c && git add . && git commit -qm init
) || exit 1
gate_sweep() {
	seed=$1
	shift
	set -- $(cd repo && "$BENCHLINE" hash) "$@"
	perl "$TESTS_DIR/gate-gen.pl" --commit "$2" --source "$1" --seed "$seed" --benchmarks 3 \
		"$@" >sweep.json && bl ingest sweep.json >/dev/null
}
for i in 1 2 3 4 5 6; do
	(cd repo && echo $i >src/a.c && git commit -qam "c$i (#$i)") && gate_sweep $i || exit 1
done
(cd repo && git checkout -qb pr && echo slow >src/a.c && git commit -qam slow) &&
	gate_sweep 99 --branch pr --shift 1.10 --shift-only bench_01 || exit 1
serve_start gate --repo "$TMP/repo" || exit 1
test_expect 'the rendered gate page shows the failing row linked to its chart, and a screenshot' '
	chrome --dump-dom "$URL/gate?head=pr&base=main" >gate.html 2>chrome.err &&
	grep -q "verdict-fail" gate.html &&
	grep -q "<tr class=\"gate-FAIL\"><td>FAIL</td><td><a href=\"/series/ci-1/bench_01/" gate.html &&
	test "$(grep -c "<tr class=\"gate-PASS\"" gate.html)" = 2 &&
	chrome --screenshot="$OUTPUT/gate.png" --window-size=1280,700 --hide-scrollbars \
		"$URL/gate?head=pr&base=main" >/dev/null 2>chrome.err &&
	test "$(wc -c <"$OUTPUT/gate.png")" -gt 10000
'
test_expect 'with repo_url, a Series page links its commits and pull requests, and a screenshot' '
	gid=$(bl series --json | json_get - "(grep { \$_->{benchmark} eq q(bench_01) } @\$j)[0]{id}") &&
	c6=$(git -C repo rev-parse main) &&
	chrome --dump-dom "$URL/series/$gid" >linked.html 2>chrome.err &&
	grep -q "<a class=\"mono\" href=\"https://git.example.org/team/engine/commit/$c6\" title=\"$c6: c6 (#6)\">" linked.html &&
	grep -q "<a href=\"https://git.example.org/team/engine/pull/6\">#6</a>" linked.html &&
	grep -q "<a href=\"https://git.example.org/team/engine/commit/$c6\"><circle" linked.html &&
	chrome --screenshot="$OUTPUT/linked.png" --window-size=1280,1000 --hide-scrollbars \
		"$URL/series/$gid" >/dev/null 2>chrome.err
'
test_expect 'the gate server stops cleanly' '
	serve_stop gate
'
test_done

#!/bin/sh
# The charts and pages of issue 15 item 6 (§6, §11), read as SVG and HTML text: the band, the
# whiskers, the labels, the date axis, points beyond the range, no gnuplot titles; the
# overview's summary, sparklines, change and sortable columns; Suspects grouped by machine and
# commit with a slower-only filter; commit and pull-request links from repo_url. Then D7
# (values near DBL_MAX) and D9 (Series with "." or ".." parts). tests/browser/chromium.t takes
# the screenshots.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/e2e/serve-lib.sh"

bl demo >/dev/null 2>&1 && bl detect >/dev/null 2>&1 || { echo "Bail out! no demo"; exit 1; }
# A Series with tagged runs, Baselines, a content break and a harness change 9 -> 10.
SID=rtx2070-linux/forest/2560x1440%2F1800f/gpu_frame_us
bl suspects --json >suspects.json
SERIES_ID='join "/", map { my $s = $_; $s =~ s/([^A-Za-z0-9._~-])/sprintf("%%%02X", ord $1)/ge; $s } @{$_}{qw(machine benchmark config metric)}'
SLOWER=$(json_get suspects.json "my (\$x) = grep { \$_->{side} eq q(slower) } @\$j; \$_ = \$x; $SERIES_ID")
serve_start web || exit 1

test_expect 'the chart draws the §6 band as light polygons under the points' '
	expect_status 200 image/svg+xml GET "$URL/series/$SID/chart.svg" &&
	mv body chart.svg &&
	test "$(grep -c "<polygon class=\"band\" points=\"[0-9., ]*\" fill=\"#3465a4\" fill-opacity=\"0.10\"" chart.svg)" -ge 3 &&
	band=$(grep -n "class=\"bands\"" chart.svg | cut -d: -f1) &&
	points=$(grep -n "class=\"bl-points\"" chart.svg | cut -d: -f1) &&
	plot=$(grep -n "gnuplot_plot_1" chart.svg | cut -d: -f1) &&
	test "$band" -lt "$plot" && test "$plot" -lt "$points"
'
test_expect 'each record of the Series has a whisker of its samples, and its hover text says so' '
	test "$(grep -c "<path class=\"whisker\"" chart.svg)" -gt 200 &&
	grep -q " [mµ]*s, samples [0-9.]* [mµ]*s–[0-9.]* [mµ]*s</title>" chart.svg
'
test_expect 'no <title> is gnuplot'"'"'s: each is the chart'"'"'s, a point'"'"'s, a ring'"'"'s or a mark'"'"'s' '
	! grep -qi "gnuplot</title>\|<title>gnuplot\|<title>\$d\|using 1:2" chart.svg &&
	! grep -q "<desc>" chart.svg &&
	perl -0ne "while (/<title>(.*?)<\/title>/sg) { print qq(\$1\n) unless \$1 =~ /^(rtx2070-linux \/ forest|commit [0-9a-f]{12}|suspect: |Regression \d)/ }" chart.svg >odd &&
	test_cmp /dev/null odd
'
test_expect 'hover text names the commit, its subject, its date and the value' '
	sha=$(db_sql "$BENCHLINE_DB" "SELECT sha FROM commits WHERE seq = 0" | cut -c1-12) &&
	subject=$(db_sql "$BENCHLINE_DB" "SELECT subject FROM commits WHERE seq = 0") &&
	perl -0ne "exit 1 unless /<title>commit $sha \(seq 0\), \d{4}-\d\d-\d\d \d\d:\d\d UTC\n\Q$subject\E\n[0-9.]+ (µs|ms|s)/" chart.svg
'
test_expect 'breaks are labelled where they are: harness 9→10, content changed, Baseline' '
	grep -q "<text class=\"break-label\"[^>]*>harness 9→10</text>" chart.svg &&
	grep -q "<text class=\"break-label\"[^>]*>content changed</text>" chart.svg &&
	grep -q "<text class=\"break-label\"[^>]*>Baseline</text>" chart.svg
'
test_expect 'the y range is the Series'"'"' own: tagged points above it sit on the edge, marked' '
	grep -q "<path class=\"clamped tagged\" d=\"M[0-9.]* [0-9.]* L[0-9.]* [0-9.]* L[0-9.]* [0-9.]* Z\"" chart.svg &&
	grep -q "tagged [a-z,-]* (above the chart)</title></path>" chart.svg &&
	! grep -q "class=\"clamped\"" chart.svg
'
test_expect 'a Suspect'"'"'s shift is written beside its ring, not only on hover' '
	curl -s "$URL/series/$SLOWER/chart.svg" >slow.svg &&
	grep -q "<text class=\"suspect-label slower\"[^>]*>+[0-9]*\.[0-9]%</text>" slow.svg
'
test_expect '?x=date puts the points at their dates and labels the axis with days' '
	expect_status 200 image/svg+xml GET "$URL/series/$SID/chart.svg?x=date" &&
	mv body date.svg &&
	grep -q ">commit date (UTC)<" date.svg &&
	grep -q "> 2026-0[0-9]-[0-9][0-9]</tspan>\|>2026-0[0-9]-[0-9][0-9]</tspan>" date.svg &&
	grep -q ">commit (place on main)<" chart.svg &&
	! grep -q ">2026-0[0-9]-[0-9][0-9]</tspan>" chart.svg &&
	! cmp -s chart.svg date.svg &&
	curl -s "$URL/series/$SID?x=date" >page &&
	grep -q "<strong class=\"axis\">by date</strong>" page &&
	grep -q "<a class=\"axis\" href=\"/series/$SID\">by commit</a>" page &&
	grep -q "href=\"/series/$SID/chart.svg?x=date\">SVG</a>" page
'
test_expect 'the table gives each record its date (UTC)' '
	curl -s "$URL/series/$SID" >page &&
	grep -q "<th>date (UTC)</th>" page &&
	grep -q "<td class=\"nowrap\">2026-[0-9-]* [0-9:]*</td>" page
'
test_expect 'the overview: a summary, a sparkline and the change against the center per Series' '
	curl -s "$URL/" >ov &&
	open=$(db_sql "$BENCHLINE_DB" "SELECT count(*) FROM alerts WHERE state = '"'"'open'"'"'") &&
	grep -q "<p class=\"summary\"><a href=\"/alerts\" class=\"slower\"><strong>$open</strong> open alerts</a> · <a href=\"/regressions\"><strong>0</strong> Regressions</a> · <strong>3</strong> machines · last push <strong>20[0-9-]* [0-9:]* UTC</strong></p>" ov &&
	n=$(bl series --json | json_get - "scalar @\$j") &&
	test "$(grep -c "<svg class=\"sparkline\"" ov)" = "$n" &&
	grep -q "<td class=\"num\" data-v=\"[-0-9.e]*\" title=\"against the center [0-9.]* [µm]s ± [0-9.]* [µm]s\">[+-][0-9]*\.[0-9]%</td>" ov &&
	grep -q ">0.0%</td>" ov && ! grep -q ">-0.0%</td>" ov
'
test_expect 'the overview'"'"'s columns are sortable (sort.js, data-sort and data-v)' '
	grep -q "<table id=\"series\" class=\"sortable\">" ov &&
	test "$(grep -o "<th data-sort=\"num\"" ov | wc -l)" = 6 &&
	grep -q "<script src=\"/assets/sort.js\"></script>" ov &&
	expect_status 200 text/javascript GET "$URL/assets/sort.js"
'
test_expect 'Suspects are grouped by their alert, with ids, subjects, dates and units' '
	curl -s "$URL/suspects" >sus &&
	groups=$(bl alerts --json | json_get - "scalar @\$j") &&
	test "$(grep -c "<tbody class=\"alert-group\">" sus)" = "$groups" &&
	test "$(grep -c "<tr class=\"suspect " sus)" = "$(json_get suspects.json "scalar @\$j")" &&
	id=$(json_get suspects.json "\$j->[0]{id}") &&
	grep -q "<tr class=\"suspect [a-z]*\"><td class=\"num\">$id</td>" sus &&
	grep -q "UTC</span> <span class=\"subject\">“[^”]*”</span> <span class=\"muted\">open: [0-9] slower, [0-9] faster</span>" sus &&
	grep -q "<tr class=\"group\" id=\"alert-[0-9]*\"><td colspan=\"11\"><a href=\"/alerts#alert-[0-9]*\"><strong>Alert [0-9]*</strong></a>" sus &&
	grep -q "<td class=\"num\">[0-9.]* [µm]s</td>" sus
'
test_expect '?side=slower keeps only the slower Suspects' '
	curl -s "$URL/suspects?side=slower" >slower &&
	test "$(grep -c "<tr class=\"suspect slower\"" slower)" = "$(json_get suspects.json "scalar grep { \$_->{side} eq q(slower) } @\$j")" &&
	! grep -q "<tr class=\"suspect faster\"" slower &&
	grep -q "<strong>slower only</strong>" slower &&
	grep -q "<a href=\"/suspects?side=slower\">slower only</a>" sus
'
test_expect 'without repo_url nothing links to a forge' '
	! grep -q "/commit/" page && ! grep -q "/pull/" page
'
test_expect 'the server stops cleanly' '
	serve_stop web
'

# repo_url (benchline.json): commit and pull-request links on every page that names them.
export BENCHLINE_DB="$TMP/repo.db"
git init -q repo && (
	cd repo &&
	printf '{"repo_url": "https://git.example.org/team/engine/"}\n' >benchline.json &&
	for i in 1 2 3 4 5; do echo $i >a.c && git add . && git commit -qm "change $i (#1$i)"; done
) || exit 1
bl init >/dev/null && bl sync --repo repo >/dev/null || exit 1
git -C repo log --format=%H --reverse >shas
i=0
while read -r sha; do
	i=$((i + 1))
	record m1 linked "$sha" $((100 + i)) >"r$i.json" && bl ingest "r$i.json" >/dev/null || exit 1
done <shas
LAST=$(tail -n 1 shas)
serve_start linked --repo "$TMP/repo" || exit 1
test_expect 'with repo_url, commits link to REPO_URL/commit/SHA and pull requests to /pull/N' '
	curl -s "$URL/series/m1/linked/c/t" >linked &&
	grep -q "<a class=\"mono\" href=\"https://git.example.org/team/engine/commit/$LAST\" title=\"$LAST: change 5 (#15)\">$(echo $LAST | cut -c1-12)</a>" linked &&
	grep -q "<a href=\"https://git.example.org/team/engine/pull/15\">#15</a>" linked &&
	grep -q "<a href=\"https://git.example.org/team/engine/commit/$LAST\"><circle [^>]*class=\"point\"><title>commit $(echo $LAST | cut -c1-12)" linked
'
test_expect 'the server with repo_url stops cleanly' '
	serve_stop linked
'
test_expect 'a repo_url that is not an http(s) URL is refused by name' '
	printf "{\"repo_url\": \"git@example.org:x\"}\n" >repo/benchline.json &&
	expect_exit 2 bl paths check --repo repo 2>err &&
	grep -q "benchline.json: repo_url: expected an http:// or https:// URL" err
'

# D7: finite values near DBL_MAX once padded the frame to inf in gnuplot's script (503).
export BENCHLINE_DB="$TMP/huge.db"
bl init >/dev/null || exit 1
for i in 1 2 3 4; do
	v=1.7e308
	[ $i = 3 ] && v=1.79e308
	record m1 huge $i $v
done >huge.jsonl && bl ingest huge.jsonl >/dev/null || exit 1
serve_start huge || exit 1
test_expect 'D7: a Series of values near DBL_MAX is drawn (200), its points at the edge' '
	expect_status 200 image/svg+xml GET "$URL/series/m1/huge/c/t/chart.svg" &&
	grep -q "<svg" body && test "$(grep -c "<path class=\"clamped\"" body)" = 4 &&
	perl -0ne "exit 1 unless /<title>commit 0{12}[^<]*\n1\.[0-9]*e\+302 s, p95 1\.[0-9]*e\+302 s \(above the chart\)<\/title>/" body &&
	expect_status 200 text/html GET "$URL/series/m1/huge/c/t" &&
	! grep -q "The chart was not drawn" body
'
test_expect 'the huge server stops cleanly' '
	serve_stop huge
'

# D9: a Series with "." or ".." parts: browsers resolve such path segments away, even as %2E,
# so the pages link it by ?id=, and the path form still works for clients that send it.
export BENCHLINE_DB="$TMP/dots.db"
bl init >/dev/null || exit 1
{ record m1 .. 1 5 && record m1 .. 2 6 && record m1 . 3 7; } | sed 's/"config":"c"/"config":"."/' >dots.jsonl &&
	bl ingest dots.jsonl >/dev/null || exit 1
serve_start dots || exit 1
test_expect 'D9: the overview links dot-part Series by ?id=, and those links open them' '
	curl -s "$URL/" >ov &&
	grep -q "href=\"/series?id=m1/.././t\">chart</a>" ov &&
	grep -q "href=\"/series?id=m1/././t\">chart</a>" ov &&
	expect_status 200 text/html GET "$URL/series?id=m1/.././t" &&
	grep -q "<h1>m1 / .. / . / t</h1>" body &&
	grep -q "href=\"/series/chart.svg?id=m1/.././t\">SVG</a>" body &&
	grep -q "href=\"/api/series/records?id=m1/.././t\">JSON</a>" body &&
	grep -q "<input type=\"hidden\" name=\"id\" value=\"m1/.././t\">" body &&
	grep -q "href=\"/series?id=m1/.././t&amp;x=date\">by date</a>" body &&
	expect_status 200 image/svg+xml GET "$URL/series/chart.svg?id=m1/.././t&x=date" &&
	expect_status 200 application/json GET "$URL/api/series/records?id=m1/.././t" &&
	test "$(json_get body "scalar @\$j")" = 2
'
test_expect 'D9: the path form with %2E parts is accepted decoded, and ?id= needs a whole id' '
	expect_status 200 text/html GET "$URL/series/m1/%2E%2E/%2e/t" &&
	grep -q "<h1>m1 / .. / . / t</h1>" body &&
	expect_status 200 text/html GET "$URL/series/m1/.././t" &&
	expect_status 404 text/html GET "$URL/series?id=m1/../x/t" &&
	expect_status 404 text/html GET "$URL/series?id=m1/.." &&
	expect_status 404 text/html GET "$URL/series" &&
	expect_status 404 application/json GET "$URL/api/series/records"
'
test_expect 'the dots server stops cleanly' '
	serve_stop dots
'
test_done

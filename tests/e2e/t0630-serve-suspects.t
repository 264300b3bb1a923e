#!/bin/sh
# benchline serve and detection (§6, §11, §14): /suspects and /api/suspects against
# `benchline suspects --json`, open Suspect counts in /api/series, Suspects ringed on the
# charts (red slower, green faster), the chart's ETag following a detect, /regressions.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/e2e/serve-lib.sh"

bl demo >/dev/null 2>&1
# Before detect has ever run: no Suspects known, none listed.
serve_start pre --timeout 5 || exit 1
test_expect 'before detect: /suspects says so, /api/suspects is [], counts are null' '
	expect_status 200 text/html GET "$URL/suspects" &&
	grep -q "Detection has not run yet" body &&
	expect_status 200 application/json GET "$URL/api/suspects" &&
	test "$(cat body)" = "[]" &&
	curl -s "$URL/api/series" >api && bl series --json >cli && cmp api cli &&
	json_get api "scalar grep { defined \$_->{open_suspects} } @\$j" | grep -qx 0 &&
	curl -s "$URL/" | grep -q "no detection data"
'
serve_stop pre || exit 1

bl detect >/dev/null 2>&1 || { echo "Bail out! detect failed"; exit 1; }
serve_start main --timeout 5 || exit 1
bl suspects --json >suspects.json
# A Series id (store_series_id) from a Suspect's names.
SERIES_ID='join "/", map { my $s = $_; $s =~ s/([^A-Za-z0-9._~-])/sprintf("%%%02X", ord $1)/ge; $s } @{$_}{qw(machine benchmark config metric)}'
SLOWER=$(json_get suspects.json "my (\$x) = grep { \$_->{side} eq q(slower) } @\$j; \$_ = \$x; $SERIES_ID")
FASTER=$(json_get suspects.json "my (\$x) = grep { \$_->{side} eq q(faster) } @\$j; \$_ = \$x; $SERIES_ID")

test_expect 'the demo has slower and faster Suspects to look at' '
	test "$(json_get suspects.json "scalar @\$j")" -gt 1 &&
	case "$SLOWER" in */*/*/*) ;; *) exit 1 ;; esac &&
	case "$FASTER" in */*/*/*) ;; *) exit 1 ;; esac
'
test_expect 'every new route answers with its status and content type' '
	expect_status 200 text/html GET "$URL/suspects" &&
	expect_status 200 application/json GET "$URL/api/suspects" &&
	expect_status 200 text/html GET "$URL/regressions" &&
	expect_status 200 application/json GET "$URL/api/regressions" &&
	expect_status 200 text/html GET "$URL/series/$SLOWER" &&
	expect_status 200 image/svg+xml GET "$URL/series/$FASTER/chart.svg" &&
	expect_status 405 text/plain POST "$URL/suspects" &&
	expect_status 405 application/json DELETE "$URL/api/suspects" &&
	expect_status 405 application/json POST "$URL/api/regressions" &&
	expect_status 404 application/json GET "$URL/api/suspects/1" &&
	expect_status 404 text/html GET "$URL/suspects/x"
'
test_expect 'GET /api/suspects is exactly `benchline suspects --json`' '
	curl -s "$URL/api/suspects" >api &&
	cmp api suspects.json
'
test_expect 'GET /api/series is exactly `benchline series --json`, with open counts' '
	curl -s "$URL/api/series" >api &&
	bl series --json >cli &&
	cmp api cli &&
	json_get api "scalar grep { !defined \$_->{open_suspects} } @\$j" | grep -qx 0 &&
	test "$(json_get api "my \$n = 0; \$n += \$_->{open_suspects} for @\$j; \$n")" = \
		"$(json_get suspects.json "scalar grep { \$_->{state} eq q(open) } @\$j")"
'
test_expect 'the overview shows the open counts, linking to /suspects' '
	curl -s "$URL/" >page &&
	! grep -q "no detection data" page &&
	grep -q "<td class=\"num suspects\"><a href=\"/suspects\">[1-9]" page
'
test_expect '/suspects lists every Suspect with its commit and a link to its Series' '
	curl -s "$URL/suspects" >page &&
	test "$(grep -c "<tr class=\"suspect" page)" = "$(json_get suspects.json "scalar @\$j")" &&
	json_get suspects.json "join qq(\n), map { substr(\$_->{commit}, 0, 12) } @\$j" >commits &&
	while read -r c; do
		grep -q ">$c</span>" page || { echo "no commit $c"; exit 1; }
	done <commits &&
	json_get suspects.json "join qq(\n), map { $SERIES_ID } @\$j" >ids &&
	while read -r id; do
		grep -qF "href=\"/series/$id\"" page || { echo "no link to $id"; exit 1; }
	done <ids &&
	grep -q "<td class=\"num\">[+-][0-9]*\.[0-9]%</td>" page
'
test_expect 'a slower Suspect is ringed red, a faster one green, and the table marks them' '
	curl -s "$URL/series/$SLOWER" >slow &&
	grep -q "stroke=\"#cc0000\" stroke-width=\"2\" class=\"suspect slower\"><title>suspect: slower +[0-9.]*%</title>" slow &&
	grep -q "<tr class=\"suspect slower\">" slow &&
	curl -s "$URL/series/$FASTER" >fast &&
	grep -q "stroke=\"#2e9a2e\" stroke-width=\"2\" class=\"suspect faster\"><title>suspect: faster -[0-9.]*%</title>" fast &&
	grep -q "<tr class=\"suspect faster\">" fast &&
	curl -s "$URL/series/$SLOWER/chart.svg" | grep -q "class=\"suspect slower\""
'
test_expect '/regressions says there are none before a bisection stores one; /api/regressions is []' '
	curl -s "$URL/regressions" >page &&
	grep -q "No Regressions yet: <code>benchline bisect</code> stores one when it pins a commit" page &&
	test "$(curl -s "$URL/api/regressions")" = "[]"
'

# A Series of its own, with a hostile benchmark name: five flat records, then a step.
XB="<script>alert(1)</script>"
XID=etag-box/%3Cscript%3Ealert%281%29%3C%2Fscript%3E/c/t
for s in 1 2 3 4 5; do
	record etag-box "$XB" "$(db_sql "$BENCHLINE_DB" "SELECT sha FROM commits WHERE seq = $s")" 100
done >flat.json
record etag-box "$XB" "$(db_sql "$BENCHLINE_DB" "SELECT sha FROM commits WHERE seq = 6")" 150 >step.json
etag() {
	curl -s -D - -o /dev/null "$1" | sed -n "s/^ETag: \(.*\)\r$/\1/p"
}
test_expect 'a chart ETag changes with a new record, and again when detect rings it' '
	for f in flat.json; do bl ingest $f >/dev/null || exit 1; done &&
	bl detect >/dev/null 2>&1 &&
	e1=$(etag "$URL/series/$XID/chart.svg") && test -n "$e1" &&
	! curl -s "$URL/series/$XID/chart.svg" | grep -q "class=\"suspect" &&
	bl ingest step.json >/dev/null &&
	e2=$(etag "$URL/series/$XID/chart.svg") && test -n "$e2" && test "$e1" != "$e2" &&
	bl detect >/dev/null 2>&1 &&
	e3=$(etag "$URL/series/$XID/chart.svg") && test -n "$e3" && test "$e2" != "$e3" &&
	curl -s "$URL/series/$XID/chart.svg" | grep -q "class=\"suspect slower\"><title>suspect: slower +50.0%" &&
	curl -s "$URL/api/suspects" >api && bl suspects --json >cli && cmp api cli
'
test_expect 'a hostile benchmark name is escaped on /suspects' '
	curl -s "$URL/suspects" >page &&
	grep -q "<td>&lt;script&gt;alert(1)&lt;/script&gt;</td>" page &&
	grep -qF "href=\"/series/$XID\"" page &&
	! grep -q "<script>alert" page &&
	curl -s "$URL/series/$XID" >page &&
	! grep -q "<script>alert" page &&
	grep -q "<tr class=\"suspect slower\">" page
'
serve_stop main || exit 1
test_done

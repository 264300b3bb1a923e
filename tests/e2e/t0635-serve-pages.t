#!/bin/sh
# The pages of issue 28 on a real server (§11): /alerts, /regressions/{id} with its probe log
# and profile, /badge.svg (valid SVG, in its three states), the Suspects page grouped by each
# Suspect's own alert and counting distinct commits, values in human units on the overview,
# a µs chart that says µs, never-judged Series that say so, page intros without section
# numbers.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/e2e/serve-lib.sh"

command -v xmllint >/dev/null || { echo "1..0 # SKIP no xmllint (libxml2-utils; make deps)"; exit 0; }

bl demo --json >planted.json 2>/dev/null || { echo 'Bail out! demo failed'; exit 1; }

# Before detect: the badge has nothing to count, the alerts page says why it is empty.
serve_start pre --timeout 5 || exit 1
test_expect 'before detect: /alerts says detection has not run, the badge says no regressions' '
	expect_status 200 text/html GET "$URL/alerts" &&
	grep -q "Detection has not run yet" body &&
	expect_status 200 image/svg+xml GET "$URL/badge.svg" &&
	xmllint --noout body &&
	grep -q ">no regressions</text>" body &&
	grep -q "fill=\"#4c1\"" body
'
serve_stop pre || exit 1

bl detect >/dev/null 2>&1 || { echo 'Bail out! detect failed'; exit 1; }
bl alerts --json >alerts.json
serve_start main --timeout 5 || exit 1

test_expect '/alerts lists every alert, the newest first, each with its range and Series' '
	expect_status 200 text/html GET "$URL/alerts" &&
	mv body alerts.html &&
	test "$(grep -c "<section class=\"alert " alerts.html)" = "$(json_get alerts.json "scalar @\$j")" &&
	grep -o "<section class=\"alert [a-z-]*\" id=\"alert-[0-9]*\"" alerts.html |
		sed "s/.*alert-//; s/\"//" >order &&
	json_get alerts.json "join qq(\n), reverse map { \$_->{id} } @\$j" >expect &&
	test_cmp expect order &&
	json_get alerts.json "my (\$a) = grep { \$_->{reference_commit} } @\$j; join q( ), \$a->{id}, substr(\$a->{reference_commit}, 0, 12), substr(\$a->{commit}, 0, 12)" >ids &&
	read -r id ref commit <ids &&
	perl -0ne "exit 1 unless /id=\"alert-$id\">.*?From <span class=\"mono\" title=\"[0-9a-f]{40}: [^\"]*\">$ref<\/span> \(seq [0-9]+\) <span class=\"subject\">“[^”]*”<\/span><br>to <span class=\"mono\" [^>]*>$commit<\/span>/s" alerts.html &&
	grep -q "<p class=\"counts\">1 Series · confirm: not measured yet</p>" alerts.html &&
	grep -q "<td class=\"num slower\">+[0-9]*\.[0-9]%</td><td><a href=\"/series/[^\"]*\">chart</a></td>" alerts.html &&
	grep -q "<p class=\"muted\">[0-9]* alerts: [0-9]* open.</p>" alerts.html &&
	grep -q "<a href=\"/alerts\">Alerts</a>" alerts.html
'
test_expect 'the overview links its open alerts to /alerts' '
	curl -s "$URL/" >ov &&
	grep -q "<p class=\"summary\"><a href=\"/alerts\" class=\"slower\"><strong>[0-9]*</strong> open alerts</a>" ov
'
test_expect 'the Suspects page counts distinct commits: two machines at one commit are one' '
	curl -s "$URL/suspects" >sus &&
	n=$(json_get alerts.json "scalar @\$j") &&
	commits=$(bl suspects --json | json_get - "my %c; \$c{\$_->{commit}} = 1 for @\$j; scalar keys %c") &&
	test "$commits" -lt "$n" &&
	grep -q "<p class=\"muted\">$n Suspects in $n alerts, at $commits commits.</p>" sus
'
test_expect 'a Series detection does not judge says "not judged", never a count of 0' '
	grep -q "<td class=\"num muted not-judged\" data-v=\"\" title=\"detection does not judge this metric\">not judged</td>" ov &&
	! grep -q "<tr data-search=\"[^\"]* allocations\">.*<a href=\"/suspects\">0</a>" ov &&
	curl -s "$URL/series/m4-pro-metal/town/640x360%2F64f/allocations" >alloc &&
	grep -q "<dd class=\"muted not-judged\">not judged" alloc
'
test_expect 'no page says a section number: plain words in every intro and legend' '
	SID=$(bl series --json | json_get - "\$j->[0]{id}") &&
	for page in / /alerts /suspects /regressions "/series/$SID"; do
		curl -s "$URL$page" >p && ! grep -q "§" p || { echo "§ on $page"; exit 1; }
	done
'
test_expect 'the badge counts the slower alerts waiting to be measured, as valid SVG' '
	expect_status 200 image/svg+xml GET "$URL/badge.svg" &&
	xmllint --noout body &&
	open=$(json_get alerts.json "scalar grep { \$_->{side} eq q(slower) && \$_->{state} eq q(open) } @\$j") &&
	grep -q "aria-label=\"benchmarks: $open open alerts\"" body &&
	grep -q "<text x=\"[0-9]*\" y=\"14\">$open open alerts</text>" body &&
	curl -s -D headers -o /dev/null "$URL/badge.svg" && grep -qi "^ETag: " headers
'
test_expect 'the server stops cleanly' '
	serve_stop main
'

# A Regression on the Series of the demo's first planted slower step, as bisection stores
# one for an alert (its probe log and profile as `bisect --json` has them), written by hand:
# bisect needs a repository to measure (t1030 stores one for real).
json_get planted.json 'my ($p) = grep { $_->{side} eq q(slower) } @{$j->{planted}}; join q( ), @$p{qw(machine benchmark config metric commit seq shift)}' >step
read -r RM RB RC RMETRIC RCOMMIT RSEQ RSHIFT <step
RALERT=$(json_get alerts.json "(grep { \$_->{machine} eq q($RM) && \$_->{commit} eq q($RCOMMIT) } @\$j)[0]{id}")
PROFILE='{"benchmark":"'$RB'","metric":"'$RMETRIC'","fixed_work":true,"base_total":1000000,"head_total":1180000,"functions":[{"function":"shade_pixel<float>","file":"src/shade.c","base_self":400000,"head_self":560000,"self_share":0.16,"inclusive_share":0.18}]}'
db_sql "$BENCHLINE_DB" "INSERT INTO regressions (alert_id, machine_id, benchmark_id, config, metric, commit_sha, seq, source_hash, subject, pr, ratio, lo, hi, reference_commit, probes, created_at, profile) SELECT $RALERT, m.id, b.id, '$RC', '$RMETRIC', '$RCOMMIT', $RSEQ, c.source_hash, c.subject, c.pr, 1 + $RSHIFT, 1 + $RSHIFT - 0.01, 1 + $RSHIFT + 0.01, (SELECT sha FROM commits WHERE seq = $RSEQ - 4), '[{\"commit\":\"$RCOMMIT\",\"source_hash\":\"'||c.source_hash||'\",\"verdict\":\"slower\",\"skipped\":null,\"identical_artifacts\":false,\"metric\":\"$RB [$RC] $RMETRIC\",\"ratio\":'||(1 + $RSHIFT)||',\"ci_low\":'||(1 + $RSHIFT - 0.01)||',\"ci_high\":'||(1 + $RSHIFT + 0.01)||',\"pairs\":30}]', 0, '$PROFILE' FROM machines m, benchmarks b, commits c WHERE m.name = '$RM' AND b.name = '$RB' AND c.sha = '$RCOMMIT'" &&
	db_sql "$BENCHLINE_DB" "UPDATE alerts SET state = 'covered', outcome = 'confirmed' WHERE id = $RALERT" ||
	{ echo 'Bail out! cannot write the Regression'; exit 1; }
REF12=$(db_sql "$BENCHLINE_DB" "SELECT substr(sha, 1, 12) FROM commits WHERE seq = $RSEQ - 4")
serve_start reg --timeout 5 || exit 1

test_expect '/regressions/1: the culprit, the range, the change, the alert and what confirm found' '
	expect_status 200 text/html GET "$URL/regressions/1" &&
	mv body reg.html &&
	grep -q "<h1>Regression 1: $RB $RMETRIC <span class=\"slower\">+[0-9]*\.[0-9]%</span></h1>" reg.html &&
	grep -q "<dt>culprit</dt><dd><span class=\"mono\" title=\"$RCOMMIT: [^\"]*\">$(echo $RCOMMIT | cut -c1-12)</span> (seq $RSEQ)" reg.html &&
	grep -q "<dt>range</dt><dd>bisected from the good commit <span class=\"mono\" title=\"[0-9a-f]*: [^\"]*\">$REF12</span> (seq $((RSEQ - 4))) to the culprit</dd>" reg.html &&
	grep -q "<dt>change</dt><dd class=\"slower\">+[0-9]*\.[0-9]%, 99% interval \[+[0-9]*\.[0-9]%, +[0-9]*\.[0-9]%\]</dd>" reg.html &&
	grep -q "<dt>alert</dt><dd><a href=\"/alerts#alert-$RALERT\">$RALERT</a> (covered; confirm: confirmed)</dd>" reg.html &&
	grep -q "<tr class=\"probe-slower\"><td class=\"num\">1</td>" reg.html
'
test_expect '/regressions/1 shows where the extra instructions went, when it was profiled' '
	grep -q "<h2 id=\"profile\">Where the extra instructions went</h2>" reg.html &&
	grep -q "<tr><td class=\"mono\">shade_pixel&lt;float&gt;</td><td class=\"mono\">src/shade.c</td><td class=\"num\">+16.0%</td><td class=\"num\">+18.0%</td></tr>" reg.html &&
	grep -q "1000000 instructions at the good commit, 1180000 at the pinned one" reg.html
'
test_expect 'a Regression without a profile has no such section; an unknown id is a 404' '
	db_sql "$BENCHLINE_DB" "UPDATE regressions SET profile = NULL" &&
	expect_status 200 text/html GET "$URL/regressions/1" &&
	! grep -q "id=\"profile\"" body &&
	expect_status 404 text/html GET "$URL/regressions/2" &&
	grep -q "No such Regression" body &&
	expect_status 404 text/html GET "$URL/regressions/x" &&
	expect_status 404 text/html GET "$URL/regressions/0"
'
test_expect 'the Regressions page and the alerts page link to /regressions/1' '
	curl -s "$URL/regressions" | grep -q "<td class=\"num\"><a href=\"/regressions/1\">1</a></td>" &&
	curl -s "$URL/alerts" | grep -q "Regressions: <a href=\"/regressions/1\">Regression 1</a>"
'
test_expect 'the badge says an open Regression first, until its alert is ignored' '
	expect_status 200 image/svg+xml GET "$URL/badge.svg" &&
	xmllint --noout body &&
	grep -q ">1 regression</text>" body &&
	grep -q "fill=\"#e05d44\"" body &&
	bl suspects ignore $RALERT --why "fixed in #1400" >/dev/null &&
	expect_status 200 image/svg+xml GET "$URL/badge.svg" &&
	! grep -q "regression</text>" body &&
	grep -q "open alerts</text>" body
'
test_expect 'the regression server stops cleanly' '
	serve_stop reg
'

# Units (§11): a throughput in B/s and a timing in ns read as `series` prints them, and a µs
# Series' chart says µs on its y axis (gnuplot was handed '??s' before).
export BENCHLINE_DB="$TMP/units.db"
urec() {
	printf '{"schema":1,"machine":"m1","benchmark":"%s","harness_version":1,' "$1"
	printf '"source":{"commit":"%040d","source_hash":"%040d","branch":"main"},' "$2" "$2"
	printf '"started_at":"2026-11-0%dT04:00:00Z","metrics":{"%s":{"kind":"timed","unit":"%s",' "$2" "$3" "$4"
	printf '"better":"%s","median":%s}}}\n' "$5" "$6"
}
{
	urec copy 1 bytes_per_s B/s higher 982603401 && urec copy 2 bytes_per_s B/s higher 982603401 &&
	urec parse 1 wall ns lower 66699.3 && urec parse 2 wall ns lower 66699.3 &&
	urec tick 1 t us lower 145 && urec tick 2 t us lower 150
} >units.jsonl && bl init >/dev/null && bl ingest units.jsonl >/dev/null ||
	{ echo 'Bail out! cannot ingest'; exit 1; }
serve_start units --timeout 5 || exit 1
test_expect 'the overview prints 983 MB/s and 66.7 µs, as benchline series does' '
	curl -s "$URL/" >ov &&
	grep -q "<td class=\"num\" data-v=\"982603401\">983 MB/s</td>" ov &&
	grep -q "<td class=\"num\" data-v=\"66699.300000000003\">66.7 µs</td>" ov &&
	bl series | grep -q "983 MB/s" && bl series | grep -q "66.7 µs"
'
test_expect 'a µs Series'"'"'s chart says µs on its y axis' '
	expect_status 200 image/svg+xml GET "$URL/series/m1/tick//t/chart.svg" &&
	xmllint --noout body &&
	grep -q ">µs</tspan>" body &&
	! grep -q "??s" body &&
	expect_status 200 image/svg+xml GET "$URL/series/m1/parse//wall/chart.svg" &&
	grep -q ">µs</tspan>" body
'
test_expect 'the units server stops cleanly' '
	serve_stop units
'

# A staircase (§9.1): a second step on the same Series, every record between beyond the first
# band, joins the first step's alert. Its group is that alert's, named by the alert's commit,
# the joined Suspect listed with its own.
export BENCHLINE_DB="$TMP/stairs.db"
perl -e '
	my $i = 1;
	for my $v (100, 101, 99, 100, 100, 101, 99, 100, 110, 111, 109, 124, 125, 124, 125, 124) {
		my $c = sprintf("%040d", $i);
		printf(qq({"schema": 1, "machine": "m5", "benchmark": "stairs", "harness_version": 1, ) .
		    qq("source": {"commit": "%s", "source_hash": "%s", "branch": "main", ) .
		    qq("committed_at": "2026-01-%02dT00:00:00Z"}, "started_at": "2026-01-%02dT01:00:00Z", ) .
		    qq("metrics": {"wall_ms": {"kind": "timed", "unit": "ms", "median": %s}}}\n), $c, $c, $i, $i, $v);
		$i++;
	}' >stairs.jsonl
bl init >/dev/null && bl ingest stairs.jsonl >/dev/null && bl detect >/dev/null ||
	{ echo 'Bail out! cannot detect the staircase'; exit 1; }
serve_start stairs --timeout 5 || exit 1
test_expect 'a Suspect that joined an earlier alert is grouped under that alert, named by its commit' '
	bl alerts --json | json_get - "join q( ), scalar @\$j, \$j->[0]{id}, scalar @{\$j->[0]{suspects}}" >actual &&
	echo "1 1 2" >expect && test_cmp expect actual &&
	curl -s "$URL/suspects" >sus &&
	test "$(grep -c "<tbody class=\"alert-group\">" sus)" = 1 &&
	grep -q "<tr class=\"group\" id=\"alert-1\"><td colspan=\"11\"><a href=\"/alerts#alert-1\"><strong>Alert 1</strong></a> · <strong>m5</strong> at <span class=\"mono\" title=\"0000000000000000000000000000000000000009\">000000000000</span>" sus &&
	test "$(grep -c "<tr class=\"suspect slower\">" sus)" = 2 &&
	grep -q "<tr class=\"suspect slower\"><td class=\"num\">[0-9]*</td><td><span class=\"mono\" title=\"0000000000000000000000000000000000000012\">" sus &&
	grep -q "<p class=\"muted\">2 Suspects in 1 alert, at 2 commits.</p>" sus &&
	curl -s "$URL/alerts" >al &&
	grep -q "<td><span class=\"mono\" title=\"0000000000000000000000000000000000000012\">000000000000</span></td>" al
'
test_expect 'the staircase server stops cleanly' '
	serve_stop stairs
'
test_done

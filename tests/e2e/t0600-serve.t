#!/bin/sh
# benchline serve (§11): every route's status and content type, the API against the CLI,
# pushing records with tokens, ETags, escaping, traversal.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/e2e/serve-lib.sh"

bl demo >/dev/null 2>&1
printf '# tokens\nsecret-all\nsecret-m1 m1-*\n\n' >tokens
serve_start main --token-file tokens --timeout 5 || exit 1
SID=ci-lavapipe/crowd/640x360%2F64f/cpu_frame_us
# Commits on main (the demo syncs its history), so pushed records join their Series.
MAIN1=$(db_sql "$BENCHLINE_DB" "SELECT sha FROM commits WHERE seq = 7")
MAIN2=$(db_sql "$BENCHLINE_DB" "SELECT sha FROM commits WHERE seq = 8")

test_expect 'serve listens on loopback and prints its URL' '
	case "$URL" in http://127.0.0.1:[0-9]*) ;; *) echo "$URL"; exit 1 ;; esac
'
test_expect 'every route answers with its status and content type' '
	expect_status 200 text/html GET "$URL/" &&
	expect_status 200 text/html GET "$URL/?q=crowd+cpu" &&
	expect_status 200 application/json GET "$URL/api/series" &&
	expect_status 200 text/html GET "$URL/series/$SID" &&
	expect_status 200 text/html GET "$URL/series/$SID?from=10&to=50" &&
	expect_status 200 image/svg+xml GET "$URL/series/$SID/chart.svg" &&
	expect_status 200 application/json GET "$URL/api/series/$SID/records" &&
	expect_status 200 text/css GET "$URL/assets/style.css" &&
	expect_status 200 text/javascript GET "$URL/assets/filter.js" &&
	expect_status 404 text/html GET "$URL/nope" &&
	expect_status 404 text/html GET "$URL/series/a/b/c/d" &&
	expect_status 404 text/html GET "$URL/series/only-one-part" &&
	expect_status 404 application/json GET "$URL/api/nope" &&
	expect_status 404 application/json GET "$URL/api/series/a/b/c/d/records" &&
	expect_status 404 text/plain GET "$URL/assets/nope.css" &&
	expect_status 400 text/html GET "$URL/series/$SID?from=x" &&
	expect_status 405 text/plain POST "$URL/" &&
	expect_status 405 application/json DELETE "$URL/api/series" &&
	expect_status 405 application/json DELETE "$URL/api/records" &&
	curl -s -o /dev/null -D headers -X DELETE "$URL/api/records" &&
	grep -qi "^Allow: GET, HEAD, POST" headers
'
test_expect 'the overview lists every Series with a link, and ?q= filters' '
	curl -s "$URL/" >page &&
	test "$(grep -c "<tr data-search" page)" = "$(bl series --json | json_get - "scalar @\$j")" &&
	grep -q "href=\"/series/$SID\"" page &&
	curl -s "$URL/?q=crowd+cpu_frame" >page &&
	grep -q "<tr data-search=\"ci-lavapipe crowd" page &&
	! grep "<tr data-search" page | grep -v crowd | grep -q . &&
	grep -q "no detection data" page
'
test_expect 'GET /api/series is exactly `benchline series --json`' '
	curl -s "$URL/api/series" >api &&
	bl series --json >cli &&
	cmp api cli
'
test_expect 'GET /api/series/ID/records is the Series records of `records --json`' '
	curl -s "$URL/api/series/$SID/records" >api &&
	bl records --json --machine ci-lavapipe --benchmark crowd >all &&
	perl -MJSON::PP -e "
		local \$/; open my \$f, q(<), q(all) or die; my \$all = decode_json(<\$f>);
		open my \$g, q(<), q(api) or die; my \$api = decode_json(<\$g>);
		my @want = grep { \$_->{config} eq q(640x360/64f) && \$_->{metrics}{cpu_frame_us} } @\$all;
		my \$c = JSON::PP->new->canonical;
		die q(differ) unless \$c->encode(\\@want) eq \$c->encode(\$api) && @want > 100;
	"
'
test_expect 'the Series page holds the SVG chart with a <title> per point' '
	curl -s "$URL/series/$SID" >page &&
	grep -q "<svg" page &&
	test "$(grep -c "<circle.*<title>commit [0-9a-f]\{12\}" page)" -gt 100 &&
	grep -q "<rect[^>]*class=\"baseline\"><title>" page &&
	grep -q "stroke-dasharray\|dasharray" page &&
	! grep -q "gnuplot_svg.js\|http://www.w3.org/1999/xlink.*href=.http" page
'
test_expect 'charts and pages carry ETags; If-None-Match gives 304' '
	for u in "$URL/series/$SID/chart.svg" "$URL/series/$SID" "$URL/assets/style.css"; do
		etag=$(curl -s -D - -o /dev/null "$u" | sed -n "s/^ETag: \(.*\)\r$/\1/p") &&
		test -n "$etag" &&
		test "$(curl -s -o /dev/null -w "%{http_code}" -H "If-None-Match: $etag" "$u")" = 304 &&
		test "$(curl -s -o /dev/null -w "%{http_code}" -H "If-None-Match: \"x\"" "$u")" = 200 ||
		exit 1
	done
'
test_expect 'zooming draws only the range' '
	curl -s "$URL/series/$SID/chart.svg?from=10&to=19" >z.svg &&
	test "$(grep -c "class=\"point\"" z.svg)" -ge 5 &&
	! grep "class=\"point\"" z.svg | grep -v "(seq 1[0-9])" | grep -q .
'

# Pushing.
test_expect 'POST /api/records stores a record (201) and it shows on its Series page' '
	record m1-box pushed $MAIN1 123.5 >r1.json &&
	expect_status 201 application/json POST "$URL/api/records" \
		-H "Authorization: Bearer secret-all" --data-binary @r1.json &&
	json_get body "\$j->[0]{outcome}" | grep -qx stands &&
	bl records --json --machine m1-box | json_get - "\$j->[0]{metrics}{t}{median}" | grep -qx 123.5 &&
	curl -s "$URL/series/m1-box/pushed/c/t" >page &&
	grep -q "124 µs" page &&
	grep -q "<title>commit $(echo $MAIN1 | cut -c1-12) (seq 7), [0-9-]* [0-9:]* UTC" page
'
# (Each push queues a detection in the background: tests that compare the database wait until
# it is done.)
test_expect 'a record ingested by the CLI while serving shows at once (no stale cache)' '
	serve_idle &&
	curl -s "$URL/api/series" >before.json &&
	curl -s "$URL/series/m1-box/pushed/c/t" >before.html &&
	record m1-box pushed $MAIN2 77.25 >cli.json &&
	bl ingest cli.json >/dev/null &&
	curl -s "$URL/series/m1-box/pushed/c/t" | grep -q "77.2 µs" &&
	curl -s "$URL/api/series" >after.json &&
	! cmp -s before.json after.json &&
	bl series --json | cmp - after.json
'
test_expect 'pushing the same run again stores nothing new (200)' '
	expect_status 200 application/json POST "$URL/api/records" \
		-H "Authorization: Bearer secret-all" --data-binary @r1.json &&
	json_get body "\$j->[0]{outcome}" | grep -qx duplicate
'
test_expect 'a machine-restricted token pushes its machines' '
	record m1-other pushed 2 >r2.json &&
	expect_status 201 application/json POST "$URL/api/records" \
		-H "Authorization: Bearer secret-m1" --data-binary @r2.json
'
test_expect '401, 403, 413 and 400 store nothing' '
	serve_idle &&
	db_dump >before &&
	record m1-box pushed 3 >r3.json &&
	record other-box pushed 4 >r4.json &&
	cat r3.json r4.json >mixed.json &&
	expect_status 401 application/json POST "$URL/api/records" --data-binary @r3.json &&
	expect_status 401 application/json POST "$URL/api/records" \
		-H "Authorization: Bearer wrong" --data-binary @r3.json &&
	expect_status 401 application/json POST "$URL/api/records" \
		-H "Authorization: Bearer secret-al" --data-binary @r3.json &&
	expect_status 401 application/json POST "$URL/api/records" \
		-H "Authorization: Basic secret-all" --data-binary @r3.json &&
	expect_status 403 application/json POST "$URL/api/records" \
		-H "Authorization: Bearer secret-m1" --data-binary @mixed.json &&
	grep -q "other-box" body &&
	head -c $((17 * 1024 * 1024)) /dev/zero | tr "\0" " " >big.json &&
	expect_status 413 application/json POST "$URL/api/records" \
		-H "Authorization: Bearer secret-all" --data-binary @big.json &&
	expect_status 413 application/json POST "$URL/api/records" \
		-H "Authorization: Bearer secret-all" -H "Transfer-Encoding: chunked" \
		--data-binary @big.json &&
	printf "{\"schema\": 1, \"machine\": " >bad.json &&
	expect_status 400 application/json POST "$URL/api/records" \
		-H "Authorization: Bearer secret-all" --data-binary @bad.json &&
	json_get body "\$j->{error}" | grep -q "^request:1:" &&
	sed "s/\"harness_version\":1,//" r3.json >nohv.json &&
	cat r4.json nohv.json >half.json &&
	expect_status 400 application/json POST "$URL/api/records" \
		-H "Authorization: Bearer secret-all" --data-binary @half.json &&
	json_get body "\$j->{error}" | grep -q harness_version &&
	expect_status 400 application/json POST "$URL/api/records" \
		-H "Authorization: Bearer secret-all" --data-binary "" &&
	db_dump >after &&
	cmp before after
'
test_expect 'a benchmark named <script>alert(1)</script> is escaped on every page' '
	record m1-box "<script>alert(1)</script>" $MAIN2 >x.json &&
	expect_status 201 application/json POST "$URL/api/records" \
		-H "Authorization: Bearer secret-all" --data-binary @x.json &&
	xid=m1-box/%3Cscript%3Ealert%281%29%3C%2Fscript%3E/c/t &&
	curl -s "$URL/" >p1 && curl -s "$URL/?q=%3Cscript%3E" >p2 &&
	curl -s "$URL/series/$xid" >p3 && curl -s "$URL/series/$xid/chart.svg" >p4 &&
	grep -q "&lt;script&gt;alert(1)&lt;/script&gt;" p1 &&
	grep -q "&lt;script&gt;alert(1)&lt;/script&gt;" p3 &&
	grep -q "&lt;script&gt;" p2 &&
	for p in p1 p2 p3 p4; do
		! grep -q "<script>alert" $p || { echo "unescaped in $p"; exit 1; }
	done &&
	curl -s "$URL/api/series" | json_get - "scalar grep { \$_->{benchmark} eq q(<script>alert(1)</script>) } @\$j" | grep -qx 1
'
test_expect '.. and encoded traversal reach no file' '
	for p in /assets/../../../../etc/passwd /assets/..%2f..%2f..%2fetc%2fpasswd \
		/%2e%2e/%2e%2e/etc/passwd /assets/%2e%2e/web.h /assets/..%252fweb.h \
		/../web/web.h /assets//etc/passwd /assets/ /series/../../etc/passwd \
		/api/series/..%2f..%2f/x/y/records; do
		code=$(curl -s --path-as-is -o body -w "%{http_code}" "$URL$p") &&
		test "$code" = 404 || { echo "$p: $code"; exit 1; }
		! grep -q "root:\|BENCHLINE_WEB_H" body || { echo "$p leaked"; exit 1; }
	done
'
test_expect 'SIGTERM stops the server cleanly (exit 0)' '
	serve_stop main &&
	grep -q "stopped" main.err &&
	if pg_mode; then # (an integrity check is SQLite'"'"'s: on PostgreSQL, the runs are there)
		db_sql "$BENCHLINE_DB" "SELECT count(*) FROM runs" | grep -qx "[1-9][0-9]*"
	else
		test "$(sqlite3 "$BENCHLINE_DB" "PRAGMA integrity_check")" = ok
	fi
'
test_expect 'serve without --token-file refuses pushes with 401' '
	serve_start notok &&
	record m1-box pushed 9 >r9.json &&
	expect_status 401 application/json POST "$URL/api/records" \
		-H "Authorization: Bearer secret-all" --data-binary @r9.json &&
	grep -q "token-file" body &&
	serve_stop notok
'
test_expect '--base-url prefixes every link; HEAD answers like GET' '
	serve_start based --base-url https://ci.example.org/bench/ &&
	curl -s "$URL/" >page &&
	grep -q "href=\"https://ci.example.org/bench/assets/style.css\"" page &&
	grep -q "href=\"https://ci.example.org/bench/series/$SID\"" page &&
	! grep -q "href=\"/" page &&
	test "$(curl -s -I -o /dev/null -w "%{http_code}" "$URL/api/series")" = 200 &&
	serve_stop based
'
test_expect 'bad options are usage errors' '
	expect_exit 2 bl serve --port 70000 2>err &&
	expect_exit 2 bl serve --bind nowhere --port 0 2>err && grep -q "not an IP" err &&
	expect_exit 2 bl serve --port 0 --token-file missing 2>err && grep -q "token file" err
'
test_expect 'a token file line that is not TOKEN [MACHINE-GLOB [ROLES]] names its place' '
	printf "# fleet\n\nt1 m*\nt2 m* push,sudo\n" >bad-roles &&
	expect_exit 2 bl serve --port 0 --token-file bad-roles 2>err &&
	echo "benchline: bad-roles:4:7: roles are a comma list of push and confirm, not '"'"'push,sudo'"'"'" >expect &&
	test_cmp expect err &&
	printf "t1\n t2 m* push extra\n" >too-many &&
	expect_exit 2 bl serve --port 0 --token-file too-many 2>err &&
	echo "benchline: too-many:2:13: '"'"'extra'"'"' after the roles: a line is TOKEN [MACHINE-GLOB [ROLES]]" >expect &&
	test_cmp expect err
'
test_done

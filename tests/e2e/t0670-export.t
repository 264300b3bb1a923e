#!/bin/sh
# benchline export --html DIR (§11): the demo's pages and charts as a static site, at least ten
# pages and no broken local link (tests/check-links.pl crawls it from index.html as a browser
# on the file system would); the pages are the server's own, with relative links; what needs a
# server is left out; a second export replaces the files; --base-url names each page's address
# where the site will be served and prints the badge's Markdown; bad usage and a DIR that cannot be
# written are errors that say so.
. "$(dirname "$0")/lib.sh"

command -v xmllint >/dev/null || { echo "1..0 # SKIP no xmllint (libxml2-utils; make deps)"; exit 0; }

{ bl demo >/dev/null && bl detect >/dev/null; } 2>setup.err ||
	{ cat setup.err; echo 'Bail out! demo failed'; exit 1; }
NSERIES=$(bl series --json | json_get - 'scalar @$j')

test_expect 'export --html writes the demo as a site: every Series a page and a chart' '
	bl export --html site >out 2>err &&
	echo "export: $((NSERIES + 4)) pages and $NSERIES charts written to '"'"'site'"'"' ($((2 * NSERIES + 8)) files)" >expect &&
	test_cmp expect out &&
	grep -q "^benchline: export: $NSERIES Series, 0 Regressions to '"'"'site'"'"'$" err &&
	grep -q "^benchline: export: 25 of $NSERIES Series$" err &&
	for f in index.html alerts.html suspects.html regressions.html badge.svg \
		assets/style.css assets/filter.js assets/sort.js; do
		test -s "site/$f" || { echo "no $f"; exit 1; }
	done &&
	test "$(ls site/series/*.html | wc -l)" = "$NSERIES" &&
	test "$(ls site/series/*.svg | wc -l)" = "$NSERIES"
'
test_expect 'at least ten pages, and no broken local link from index.html on' '
	perl "$TESTS_DIR/check-links.pl" site >links &&
	tail -1 links >summary &&
	n=$(sed "s/ pages.*//" summary) &&
	test "$n" -ge 10 &&
	grep -q " 0 broken links$" summary
'
test_expect 'the crawler finds a broken link: a missing page, a fragment, an absolute path' '
	cp -r site broken &&
	rm broken/alerts.html &&
	printf "<a href=\"suspects.html#nope\">x</a><a href=\"/etc/passwd\">y</a>\n" >>broken/regressions.html &&
	expect_exit 1 perl "$TESTS_DIR/check-links.pl" broken >links &&
	grep -q "^index.html: ./alerts.html: no such file$" links &&
	grep -q "^regressions.html: suspects.html#nope: no element with id .nope.$" links &&
	grep -q "^regressions.html: /etc/passwd: not relative$" links
'
test_expect 'the pages link files relative to themselves, and nothing that needs a server' '
	grep -q "<a href=\"./alerts.html\">Alerts</a>" site/index.html &&
	grep -q "<link rel=\"stylesheet\" href=\"../assets/style.css\">" site/series/*.html &&
	grep -q "<a href=\"./series/[A-Za-z0-9_-]*-[0-9a-f]\{8\}.html\">chart</a>" site/index.html &&
	grep -q "<form class=\"search\" data-local>" site/index.html &&
	! grep -q "action=" site/index.html &&
	! grep -l "href=\"[^\"]*/api/\|href=\"/\|?side=\|?x=date\|?from=" site/*.html site/series/*.html &&
	! grep -q ">JSON<\|>Gate<\|class=\"zoom\" method" site/*.html site/series/*.html
'
test_expect 'each Series page holds its chart, and the chart file is the same SVG' '
	page=$(ls site/series/*.html | head -1) &&
	svg=${page%.html}.svg &&
	xmllint --noout "$svg" &&
	grep -q "<svg" "$page" &&
	grep -q "<a href=\"../series/$(basename "$svg")\">SVG</a>" "$page" &&
	xmllint --noout site/badge.svg
'
test_expect 'a second export replaces the files and adds a page per new Regression' '
	c=$(db_sql "$BENCHLINE_DB" "SELECT sha FROM commits WHERE seq = 100") &&
	db_sql "$BENCHLINE_DB" "INSERT INTO regressions (machine_id, benchmark_id, config, metric, commit_sha, seq, source_hash, ratio, lo, hi, reference_commit, probes, created_at) SELECT m.id, b.id, '"'"'2560x1440/1800f'"'"', '"'"'gpu_frame_us'"'"', c.sha, c.seq, c.source_hash, 1.1, 1.09, 1.11, c.parent, '"'"'[]'"'"', 0 FROM machines m, benchmarks b, commits c WHERE m.name = '"'"'m4-pro-metal'"'"' AND b.name = '"'"'town'"'"' AND c.sha = '"'"'$c'"'"'" &&
	bl export --html site >out 2>/dev/null &&
	grep -q "^export: $((NSERIES + 5)) pages" out &&
	test -s site/regressions/1.html &&
	grep -q "<a href=\"./regressions/1.html\">1</a>" site/regressions.html &&
	grep -q "<a href=\"../regressions.html\">All Regressions</a>" site/regressions/1.html &&
	perl "$TESTS_DIR/check-links.pl" site | tail -1 | grep -q " 0 broken links$"
'
test_expect '--base-url: each page names its address there, the links stay relative' '
	bl export --html based --base-url https://bench.example.org/demo/ >out 2>/dev/null &&
	printf "%s\n" "badge: [![benchmarks](https://bench.example.org/demo/badge.svg)](https://bench.example.org/demo/)" >expect &&
	head -1 out >actual &&
	test_cmp expect actual &&
	grep -q "^export: $((NSERIES + 5)) pages" out &&
	grep -q "<link rel=\"canonical\" href=\"https://bench.example.org/demo/\">" based/index.html &&
	grep -q "<link rel=\"canonical\" href=\"https://bench.example.org/demo/alerts.html\">" based/alerts.html &&
	page=$(ls based/series/*.html | head -1) &&
	grep -q "<link rel=\"canonical\" href=\"https://bench.example.org/demo/series/$(basename "$page")\">" "$page" &&
	grep -q "<link rel=\"stylesheet\" href=\"../assets/style.css\">" "$page" &&
	! grep -q "canonical" site/index.html &&
	perl "$TESTS_DIR/check-links.pl" based | tail -1 | grep -q " 0 broken links$" &&
	expect_exit 2 bl export --html based --base-url bench.example.org 2>err &&
	grep -q "base-url takes an http:// or https:// URL, not .bench.example.org.$" err
'
test_expect 'bad usage and a DIR that cannot be written are errors that say so' '
	expect_exit 2 bl export 2>err &&
	grep -q "export needs --html DIR" err &&
	expect_exit 2 bl export --html site extra 2>err &&
	grep -q "export takes no arguments" err &&
	echo file >plain &&
	expect_exit 2 bl export --html plain/site 2>err &&
	grep -q "cannot create .plain/site.: Not a directory" err
'
test_expect 'without gnuplot, or with one that fails, the export fails naming the chart it could not draw' '
	expect_exit 2 bl export --html nogp --gnuplot /nonexistent/gnuplot 2>err &&
	grep -q "^benchline: cannot make .series/[A-Za-z0-9_-]*\.svg. (503): cannot run ./nonexistent/gnuplot.: " err &&
	test -z "$(ls nogp/series)" && ! test -e nogp/index.html &&
	printf "#!/bin/sh\necho \"gnuplot: no font\" >&2\nexit 3\n" >broken-gnuplot &&
	chmod +x broken-gnuplot &&
	expect_exit 2 bl export --html brokengp --gnuplot ./broken-gnuplot 2>err &&
	grep -q "^benchline: cannot make .series/[A-Za-z0-9_-]*\.svg. (503): gnuplot failed: gnuplot: no font$" err
'
test_done

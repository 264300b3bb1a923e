#!/bin/sh
# No HTTP answer names a server path, a database file or a URL (§13): they go to the server's
# log. A revision the repository lacks (400), a chart gnuplot did not draw (the program given
# by its path), a failure of the server's own (500): each answer says what went wrong in words
# of its own, and the server's stderr says where.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/e2e/serve-lib.sh"

git init -q repo && echo a >repo/a && (cd repo && git add a && git commit -qm init) &&
	c1=$(git -C repo rev-parse HEAD) && echo b >repo/a &&
	(cd repo && git commit -qam second) && c2=$(git -C repo rev-parse HEAD) ||
	{ echo 'Bail out! no repository'; exit 1; }
{ record m1 b1 "$c1" 100 && record m1 b1 "$c2" 101; } >two.json
{ bl sync --repo repo && bl ingest two.json; } >setup.log 2>&1 ||
	{ cat setup.log; echo 'Bail out! no history'; exit 1; }
mkdir bin
printf '#!/bin/sh\necho "gnuplot: cannot open font file $0" >&2\nexit 3\n' >bin/broken-gnuplot
chmod +x bin/broken-gnuplot
serve_start s1 --repo "$TMP/repo" --gnuplot "$TMP/bin/broken-gnuplot" || exit 1

# names_nothing: ./body names neither this test's directory (the repository, the database,
# gnuplot are all in it) nor the database's file.
names_nothing() {
	! grep -q "$TMP\|bench\.db" body || { echo "the answer names a server path:"; cat body; return 1; }
}

test_expect 'a revision the repository lacks: a 400 that names the revision, not the repository' '
	expect_status 400 application/json GET "$URL/api/gate?head=no-such-branch" &&
	names_nothing &&
	grep -q "cannot resolve .no-such-branch. in the server'"'"'s repository" body &&
	expect_status 400 text/html GET "$URL/gate?head=no-such-branch" &&
	names_nothing &&
	grep -q "cannot resolve &#39;no-such-branch&#39; in the server&#39;s repository" body
'
test_expect 'a chart gnuplot did not draw: the page and the chart say so without its path' '
	expect_status 503 text/plain GET "$URL/series/m1/b1/c/t/chart.svg" &&
	names_nothing &&
	echo "gnuplot failed (the server'"'"'s log says more)" >expect &&
	test_cmp expect body &&
	expect_status 200 text/html GET "$URL/series/m1/b1/c/t" &&
	names_nothing &&
	grep -q "The chart was not drawn: gnuplot failed (the server&#39;s log says more).</p>" body &&
	grep -q "a chart was not drawn: gnuplot failed: gnuplot: cannot open font file $TMP/bin/broken-gnuplot" s1.err
'
test_expect 'the server'"'"'s own failure: a 500 in general words; the log has it whole' '
	db_sql "$BENCHLINE_DB" "DROP TABLE regressions" &&
	expect_status 500 text/html GET "$URL/regressions" &&
	names_nothing &&
	grep -q "the server failed to answer (its log says why)" body &&
	expect_status 500 application/json GET "$URL/api/regressions" &&
	names_nothing &&
	grep -q "answered 500: .*regressions" s1.err &&
	{ pg_mode || grep -q "answered 500: .*bench.db" s1.err; }
'
test_done

#!/bin/sh
# The gate over HTTP (§7, §11): GET /api/gate answers the JSON `benchline gate --json` writes,
# the /gate page shows the table with a link to each Series chart, and both need --repo.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/e2e/serve-lib.sh"

GEN="perl $TESTS_DIR/gate-gen.pl"

# A main history of 8 sweeps and a pull request that makes bench_01 10% slower.
git init -q -b main repo
(
	cd repo &&
	mkdir src docs &&
	printf '{"measured_paths": ["src"], "unmeasured_paths": ["docs", "benchline.json", ".benchline", "benchline-gate.lock"]}\n' >benchline.json &&
	echo 0 >src/a.c && echo d >docs/r.md && git add . && git commit -qm init
) || exit 1
sweep() { # sweep SEED [GEN-ARGS...]: ingests one sweep at the repository's HEAD
	seed=$1
	shift
	set -- $(cd repo && "$BENCHLINE" hash) "$@"
	$GEN --commit "$2" --source "$1" --seed "$seed" --benchmarks 3 "$@" >sweep.json &&
		bl ingest sweep.json >/dev/null
}
i=1
while [ $i -le 8 ]; do
	(cd repo && echo $i >src/a.c && git commit -qam "c$i") && sweep $i || exit 1
	i=$((i + 1))
done
(cd repo && git checkout -qb pr && echo slow >src/a.c && git commit -qam slow) &&
	sweep 99 --branch pr --shift 1.10 --shift-only bench_01 || exit 1
(cd repo && git checkout -q main)

serve_start plain --timeout 5 || exit 1
test_expect 'without --repo, /gate and /api/gate are not there' '
	expect_status 404 application/json GET "$URL/api/gate?head=pr" &&
	expect_status 404 text/html GET "$URL/gate"
'
serve_stop plain || exit 1

test_expect 'a repository the server cannot read stops it at startup (exit 2)' '
	expect_exit 2 bl serve --port 0 --repo "$TMP/no-such-repo" 2>err &&
	grep -q "no-such-repo" err
'

serve_start gate --timeout 5 --repo "$TMP/repo" || exit 1
# drop_unix FILE: the report without its "unix" time, which differs from run to run.
drop_unix() {
	perl -MJSON::PP -0777 -ne 'my $j = decode_json($_); delete $j->{unix};
		print JSON::PP->new->canonical->pretty->encode($j)' "$1"
}

test_expect '/api/gate answers what gate --json writes' '
	expect_status 200 application/json GET "$URL/api/gate?head=pr&base=main" &&
	mv body api.json &&
	expect_exit 1 bl gate --repo repo --head pr --base main --json cli.json >/dev/null &&
	drop_unix api.json >api.norm && drop_unix cli.json >cli.norm &&
	cmp api.norm cli.norm &&
	test "$(json_get api.json "\$j->{status}")" = fail &&
	json_get api.json "join q( ), map { \$_->{benchmark} } grep { \$_->{status} eq q(FAIL) } @{\$j->{comparisons}}" | grep -qx bench_01
'

test_expect '/api/gate without a base takes the main branch' '
	expect_status 200 application/json GET "$URL/api/gate?head=pr" &&
	test "$(json_get body "\$j->{base}{ref}")" = main
'

test_expect '/api/gate with no head or an unknown revision is a 400 naming it' '
	expect_status 400 application/json GET "$URL/api/gate" &&
	grep -q "head=" body &&
	expect_status 400 application/json GET "$URL/api/gate?head=no-such-branch" &&
	grep -q "no-such-branch" body
'

test_expect '/api/gate counts the undecided rows; ?undecided=fail makes them fail, as --undecided fail' '
	expect_status 200 application/json GET "$URL/api/gate?head=pr&base=main" &&
	json_get body "die unless \$j->{undecided} == \$j->{counts}{UNDECIDED} && \$j->{undecided_policy} eq q(pass) && \$j->{failures} == \$j->{counts}{FAIL}; 1" &&
	expect_status 200 application/json GET "$URL/api/gate?head=pr&base=main&undecided=fail" &&
	mv body strict.json &&
	json_get strict.json "die unless \$j->{undecided_policy} eq q(fail) && \$j->{failures} == \$j->{counts}{FAIL} + \$j->{undecided} && !defined \$j->{settle}; 1" &&
	expect_exit 1 bl gate --repo repo --head pr --base main --undecided fail --json cli-strict.json >/dev/null &&
	drop_unix strict.json >api.norm && drop_unix cli-strict.json >cli.norm &&
	cmp api.norm cli.norm &&
	expect_status 400 application/json GET "$URL/api/gate?head=pr&undecided=maybe" &&
	grep -q "undecided: pass or fail" body
'

test_expect 'the /gate page shows the verdict, the failing row and links to its chart' '
	expect_status 200 text/html GET "$URL/gate?head=pr&base=main" &&
	grep -q "verdict-fail" body &&
	grep -q "<tr class=\"gate-FAIL\"><td>FAIL</td>" body &&
	grep -q "Head <code>[0-9a-f]\{12\}</code> (slow) against main, merge base <code>[0-9a-f]\{12\}</code> (c[0-9]*), limit +2\.0%\.</p>" body &&
	# changes as Δ % with one precision, never ratios (issue 28): the failing row, its
	# values before and after in the unit their size calls for, its interval and its limit
	grep -q "<tr class=\"gate-FAIL\"><td>FAIL</td><td><a [^>]*>bench_01</a></td><td>[^<]*</td><td>[^<]*</td><td class=\"num\">[0-9.]* → [0-9.]* µs</td><td>+[0-9]*\.[0-9]%</td><td>\[+[0-9]*\.[0-9]%, +[0-9]*\.[0-9]%\]</td><td>+[0-9]*\.[0-9]%</td>" body &&
	grep -q "<th>Before → after</th><th>Δ</th><th>99% interval</th>" body &&
	! grep -q "<td>[01]\.[0-9]*</td>" body &&
	link=$(sed -n "s/.*gate-FAIL.*<a href=\"\\([^\"]*\\)\">bench_01.*/\\1/p" body) &&
	test -n "$link" &&
	expect_status 200 text/html GET "$URL$link" &&
	grep -q "bench_01" body
'

test_expect 'the /gate page escapes what the request says' '
	expect_status 400 text/html GET "$URL/gate?head=%3Cscript%3Ex" &&
	! grep -q "<script>x" body &&
	grep -q "&lt;script&gt;x" body
'

test_expect 'gate answers are never cached: a new head sweep shows at once' '
	expect_status 200 application/json GET "$URL/api/gate?head=pr" &&
	before=$(json_get body "\$j->{failures}") &&
	(cd repo && git checkout -q pr && echo slower >src/a.c && git commit -qam slower && git checkout -q main) &&
	(cd repo && git checkout -q pr) && sweep 100 --branch pr && (cd repo && git checkout -q main) &&
	expect_status 200 application/json GET "$URL/api/gate?head=pr" &&
	test "$before" = 1 &&
	test "$(json_get body "\$j->{failures}")" = 0
'
serve_stop gate || exit 1
test_done

#!/bin/sh
# The fleet (§10): ingest, run and import-baseline with --server parse locally and push one
# native body per file to a real `benchline serve` on loopback; what the server does not
# acknowledge waits in the spool and goes first next time; a 4xx is never retried nor spooled.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/e2e/serve-lib.sh"

# The server keeps bench.db; the pushing commands name a database of their own that must
# never appear.
export BENCHLINE_CLIENT_DB="$(db_url "$TMP/client.db")"
git init -q -b main repo && echo a >repo/a && (cd repo && git add a && git commit -qm init) ||
	exit 1
printf '# tokens\nsecret\nsecret-m m-*\n' >tokens
printf '\n  secret  m-*\n' >token
printf 'secret-m\n' >token-m
printf 'wrong\n' >token-bad
gbench=$FIXTURES/formats/gbench.json
hyperfine=$FIXTURES/formats/hyperfine.json
serve_start srv1 --create --token-file tokens --timeout 5 || exit 1

# cl ARGS...: the client side, with its own (never created) database in the environment.
cl() {
	BENCHLINE_DB=$BENCHLINE_CLIENT_DB "$BENCHLINE" "$@"
}
# runs: how many runs the server stored.
runs() {
	db_sql "$BENCHLINE_DB" 'select count(*) from runs'
}
spooled() {
	ls "$TMP/.local/state/benchline/spool" 2>/dev/null | grep -c '\.json$'
}

# A one-shot HTTP server that answers each request with the next status of its list (the
# last one repeats) and logs "REQUEST-LINE BODY-BYTES AUTHORIZATION" per request. A 2xx
# carries an outcome for each line of the body, as benchline's server would.
cat >fake.pl <<'EOF'
use strict;
use warnings;
use IO::Socket::INET;
my ($portfile, $log, @statuses) = @ARGV;
my $srv = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0, Listen => 16,
	ReuseAddr => 1) or die "listen: $!";
open my $pf, '>', "$portfile.tmp" or die;
print $pf $srv->sockport, "\n";
close $pf;
rename "$portfile.tmp", $portfile or die;
my $n = 0;
while (my $c = $srv->accept) {
	my $head = '';
	while (defined(my $line = <$c>)) {
		$head .= $line;
		last if $line eq "\r\n";
	}
	my ($len) = $head =~ /^Content-Length:\s*(\d+)/mi;
	my $body = '';
	read($c, $body, $len) if $len;
	my ($auth) = $head =~ /^Authorization:\s*([^\r\n]*)/mi;
	my $st = $statuses[$n < @statuses ? $n : $#statuses];
	$n++;
	my ($first) = split /\r\n/, $head;
	open my $l, '>>', $log or die;
	print $l "$first ", length($body), " ", $auth // '-', "\n";
	close $l;
	my @outcomes = map { qq({"record": $_, "id": $_, "machine": "m", "benchmark": "b", ) .
	    qq("config": "", "source_hash": "a", "harness_version": 1, "baseline": false, ) .
	    qq("outcome": "stands"}) } 1 .. scalar(() = $body =~ /^\{/mg);
	my $msg = $st =~ /^2/ ? "[" . join(",", @outcomes) . "]\n" : qq({"error": "fake $st"}\n);
	print $c "HTTP/1.1 $st Fake\r\nContent-Type: application/json\r\n",
	    "Content-Length: ", length($msg), "\r\nConnection: close\r\n\r\n$msg";
	close $c;
}
EOF
# fake_stop: stops it, when it runs (its pid file is also what serve_cleanup kills at exit).
fake_stop() {
	[ -f "$TMP/fake.pid" ] || return 0
	kill "$(cat "$TMP/fake.pid")" 2>/dev/null
	rm -f "$TMP/fake.pid"
}
# fake_start STATUS...: starts it (stopping one left by a failed test), its log in fake.log.
fake_start() {
	fake_stop
	rm -f fake.port fake.log
	perl fake.pl fake.port fake.log "$@" >/dev/null 2>&1 &
	echo $! >"$TMP/fake.pid"
	i=0
	while [ ! -s fake.port ]; do
		i=$((i + 1))
		[ $i -le 100 ] || { echo "the fake server did not start" >&2; return 1; }
		sleep 0.1
	done
}
# fake: the fake server's URL.
fake() {
	echo "http://127.0.0.1:$(cat fake.port)"
}

test_expect 'ingest --server stores a gbench file on the server, and opens no database' '
	cl ingest --server "$URL" --token-file token --machine m-1 --harness-version 1 \
		--repo repo "$gbench" >push.out &&
	test "$(runs)" = 2 &&
	db_absent "$BENCHLINE_CLIENT_DB" &&
	bl records --json --all >records.json &&
	json_get records.json "join q( ), sort map { \$_->{benchmark} } @\$j" >actual &&
	echo "BM_Accumulate BM_StringCopy/64" >expect &&
	test_cmp expect actual
'
test_expect 'each record is printed exactly as a local ingest prints it' '
	bl --db local.db ingest --machine m-1 --harness-version 1 --repo repo "$gbench" >local.out &&
	test_cmp local.out push.out &&
	test $(wc -l <push.out) = 2 &&
	cl ingest --server "$URL" --token-file token --machine m-1 --harness-version 1 \
		--repo repo --json "$gbench" >push.json &&
	bl --db local.db ingest --machine m-1 --harness-version 1 --repo repo --json "$gbench" \
		>local.json &&
	json_get push.json "[map { delete \$_->{id}; \$_ } @\$j]" >actual &&
	json_get local.json "[map { delete \$_->{id}; \$_ } @\$j]" >expect &&
	test_cmp expect actual &&
	json_get push.json "join q( ), map { \$_->{outcome} } @\$j" >actual &&
	echo "duplicate duplicate" >expect &&
	test_cmp expect actual
'
test_expect 'a pushed run is the same run as a local one: the same digests' '
	db_sql "$BENCHLINE_DB" "select digest from runs order by digest" >actual &&
	db_sql local.db "select digest from runs order by digest" >expect &&
	test_cmp expect actual
'

serve_stop srv1 || exit 1
test_expect 'the server stopped: the body is spooled, exit 3' '
	expect_exit 3 cl ingest --server "$URL" --token-file token --machine m-1 \
		--harness-version 1 --repo repo "$hyperfine" >out 2>err &&
	test "$(spooled)" = 1 &&
	grep -q "not acknowledged after 4 attempts: cannot reach" err &&
	grep -q "kept in the spool as .$TMP/.local/state/benchline/spool/" err &&
	test ! -s out &&
	db_absent "$BENCHLINE_CLIENT_DB"
'
test_expect 'after one body found no server, the next go to the spool untried' '
	printf "{\"results\": [{\"command\": \"x\", \"times\": [1, 2, 3]}]}\n" >h2.json &&
	expect_exit 3 cl ingest --server "$URL" --token-file token --machine m-1 \
		--harness-version 1 --repo repo --retries 0 "$gbench" h2.json 2>err &&
	test "$(spooled)" = 3 &&
	grep -q "spool/.*\.json: not acknowledged after 1 attempt: cannot reach" err &&
	grep -q "gbench.json: not sent: .* did not acknowledge an earlier body of this command" err &&
	grep -q "h2.json: not sent: .* did not acknowledge an earlier body of this command" err
'
serve_start srv2 --create --token-file tokens --timeout 5 || exit 1
test_expect 'the server back: the spool goes first, oldest first, then the command'"'"'s own' '
	bl records --json --all >before.json &&
	cl ingest --server "$URL" --token-file token --machine m-2 --harness-version 1 \
		--repo repo "$gbench" >out 2>err &&
	test "$(spooled)" = 0 &&
	test $(wc -l <out) = 7 &&
	sed -n "1,2p" out | grep -c "spool/.*sleep 0.0[12] .*: stands" >n &&
	echo 2 >expect && test_cmp expect n &&
	sed -n "3,4p" out | grep -c "spool/.*BM_.*: already stored" >n &&
	test_cmp expect n &&
	sed -n "5p" out | grep -q "spool/.*m-1/x .*: stands" &&
	sed -n "6,7p" out | grep -c "^$gbench: m-2/BM_.*: stands" >n &&
	test_cmp expect n &&
	test "$(runs)" = 7
'
test_expect 're-pushing stores nothing twice' '
	db_dump >before &&
	cl ingest --server "$URL" --token-file token --machine m-1 --harness-version 1 \
		--repo repo "$gbench" "$hyperfine" >out &&
	test $(grep -c ": already stored$" out) = 4 &&
	test "$(runs)" = 7
'

test_expect 'a bad token is a 401: not retried, not spooled, exit 2' '
	expect_exit 2 cl ingest --server "$URL" --token-file token-bad --machine m-3 \
		--harness-version 1 --repo repo "$gbench" 2>err &&
	grep -q "gbench.json: the server answered 401: a valid bearer token is required" err &&
	test "$(spooled)" = 0 &&
	test "$(runs)" = 7
'
test_expect 'a machine the token may not push is a 403: not spooled, exit 2' '
	expect_exit 2 cl ingest --server "$URL" --token-file token-m --machine box \
		--harness-version 1 --repo repo "$gbench" 2>err &&
	grep -q "gbench.json: record 1: this token may not push machine box (the server answered 403)" err &&
	test "$(spooled)" = 0 &&
	test "$(runs)" = 7
'
test_expect 'push sends a native file as it is; a bad one is a 400 named by file, line, column' '
	record m-4 parse 5 >good.json &&
	printf "{\"schema\": 1, \"machine\": \"m-4\"}\n" >bad.json &&
	expect_exit 2 cl push --server "$URL" --token-file token good.json bad.json >out 2>err &&
	grep -q "^good.json: m-4/parse c 000000000000 harness 1: stands$" out &&
	grep -q "^benchline: bad.json:1:1: record 1: benchmark: missing required field (the server answered 400)$" err &&
	test "$(spooled)" = 0 &&
	test "$(runs)" = 8
'
test_expect 'a 4xx is asked once; a 5xx is asked again, then the body is spooled' '
	fake_start 400 &&
	expect_exit 2 cl push --server "$(fake)" --token-file token --retries 3 good.json 2>err &&
	test $(wc -l <fake.log) = 1 &&
	grep -q "^POST /api/records HTTP/1.1 $(wc -c <good.json | tr -d " ") Bearer secret$" fake.log &&
	test "$(spooled)" = 0 &&
	fake_stop &&
	fake_start 500 &&
	expect_exit 3 cl push --server "$(fake)" --token-file token --retries 2 good.json 2>err &&
	test $(wc -l <fake.log) = 3 &&
	grep -q "not acknowledged after 3 attempts: .* answered 500: fake 500" err &&
	test "$(spooled)" = 1 &&
	fake_stop
'
test_expect 'a 503 then a 201 is acknowledged at the retry' '
	fake_start 503 201 &&
	cl push --spool --server "$(fake)" --token-file token &&
	test $(wc -l <fake.log) = 2 &&
	test "$(spooled)" = 0 &&
	fake_stop
'
test_expect 'a spooled body the server refuses is moved aside with its answer, exit 2' '
	mkdir -p own-spool &&
	cp bad.json own-spool/20260101T000000.000000000Z-00000001-000000.json &&
	cp good.json own-spool/20260101T000000.000000000Z-00000001-000001.json &&
	expect_exit 2 cl push --server "$URL" --token-file token --spool own-spool 2>err >out &&
	test -f own-spool/rejected/20260101T000000.000000000Z-00000001-000000.json &&
	grep -q "missing required field" own-spool/rejected/20260101T000000.000000000Z-00000001-000000.json.answer &&
	grep -q "moved to .own-spool/rejected/" err &&
	grep -q "000001.json: m-4/parse c 000000000000 harness 1: already stored$" out &&
	test -z "$(ls own-spool | grep json)"
'
test_expect 'a 401 while pushing the spool leaves the spool as it is' '
	cp good.json own-spool/20260101T000000.000000000Z-00000001-000002.json &&
	expect_exit 2 cl push --server "$URL" --token-file token-bad --spool own-spool 2>err &&
	grep -q "401" err &&
	test -f own-spool/20260101T000000.000000000Z-00000001-000002.json &&
	cl push --spool --server "$URL" --token-file token --spool own-spool >out &&
	test ! -f own-spool/20260101T000000.000000000Z-00000001-000002.json
'

test_expect 'run and import-baseline push too' '
	record m-5 loop 9 >rec.json &&
	printf "#!/bin/sh\ncat \"%s\"\n" "$TMP/rec.json" >bench.sh &&
	chmod +x bench.sh &&
	cl run --server "$URL" --token-file token --no-preflight -- ./bench.sh >out &&
	grep -q "^output of .\./bench.sh.: m-5/loop c 000000000000 harness 1: stands$" out &&
	db_sql "$BENCHLINE_DB" "select raw from runs" | grep m-5 | grep -q "\"process\":" &&
	record m-5 old 3 >old.json &&
	cl import-baseline --server "$URL" --token-file token old.json >out &&
	grep -q "^old.json: m-5/old c 000000000000 harness 1: stands$" out &&
	bl records --json --all --machine m-5 --benchmark old >rec.out &&
	json_get rec.out "\$j->[0]{baseline}" >actual &&
	echo true >expect &&
	test_cmp expect actual &&
	db_absent "$BENCHLINE_CLIENT_DB"
'
test_expect 'the server and token file from the environment, then from benchline.json' '
	record m-6 env 1 >env.json &&
	(
		export BENCHLINE_SERVER="$URL" BENCHLINE_TOKEN_FILE="$TMP/token" &&
		cl ingest env.json >out
	) &&
	grep -q ": stands$" out &&
	db_absent "$BENCHLINE_CLIENT_DB" &&
	record m-6 cfg 1 >cfg.json &&
	printf "{\"server\": \"%s\", \"token_file\": \"%s\"}\n" "$URL" "$TMP/token" \
		>repo/benchline.json &&
	(unset BENCHLINE_DB && "$BENCHLINE" ingest --repo repo cfg.json >out) &&
	grep -q ": stands$" out &&
	test ! -e benchline.db &&
	cl push --repo repo env.json >out &&
	grep -q ": already stored$" out &&
	rm repo/benchline.json
'
test_expect 'a database named beats a server from benchline.json; --db with --server is an error' '
	printf "{\"server\": \"%s\", \"token_file\": \"~/token\"}\n" "$URL" >repo/benchline.json &&
	record m-7 local 1 >local7.json &&
	cl ingest --repo repo local7.json >out &&
	! db_absent "$BENCHLINE_CLIENT_DB" &&
	db_rm "$BENCHLINE_CLIENT_DB" &&
	expect_exit 2 bl --db x.db ingest --server "$URL" --token-file token local7.json 2>err &&
	grep -q "^benchline: --db and --server name two places for the records: give one$" err &&
	db_absent x.db &&
	rm repo/benchline.json
'
serve_stop srv2 || exit 1
test_expect 'XDG_STATE_HOME places the spool; bad settings are refused' '
	(
		export XDG_STATE_HOME="$TMP/state" &&
		expect_exit 3 cl push --server "$URL" --token-file token --retries 0 good.json
	) 2>err &&
	test $(ls state/benchline/spool | grep -c json) = 1 &&
	expect_exit 2 cl push --server ftp://x --token-file token good.json 2>err &&
	grep -q "a server URL is http:// or https://" err &&
	expect_exit 2 cl push --server "$URL" good.json 2>err &&
	grep -q "no token for" err &&
	printf "# none\n\n" >empty-token &&
	expect_exit 2 cl push --server "$URL" --token-file empty-token good.json 2>err &&
	grep -q "holds no token" err &&
	expect_exit 2 cl push good.json 2>err &&
	grep -q "no server to push to" err &&
	printf "{\"server\": \"ftp://x\"}\n" >repo/benchline.json &&
	expect_exit 2 cl push --repo repo good.json 2>err &&
	grep -q "benchline.json: server: expected an http:// or https:// URL" err &&
	printf "{\"token_file\": \"token\"}\n" >repo/benchline.json &&
	expect_exit 2 cl push --repo repo good.json 2>err &&
	grep -q "token_file: expected an absolute path or one under ~/" err &&
	rm repo/benchline.json
'
test_done

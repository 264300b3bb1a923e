#!/bin/sh
# benchline serve against a hostile client (issue 15's hardening list, docs/web.md "Limits and
# hardening"): revisions over HTTP, locks, tokens, oversized and malformed requests, slow
# clients and floods.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/e2e/serve-lib.sh"

# A repository of three commits on main.
git init -q -b main repo
(
	cd repo &&
		mkdir src &&
		printf '{"measured_paths": ["src"], "unmeasured_paths": ["benchline.json", ".benchline", "benchline-gate.lock"]}\n' >benchline.json &&
		for i in 1 2 3; do echo $i >src/a.c && git add . && git commit -qm "c$i" || exit 1; done
) || exit 1
C2=$(cd repo && git rev-parse HEAD~1)
bl init >/dev/null || exit 1
printf 'secret-all\n' >tokens

# raw PORT [SECONDS]: sends stdin as it is to the server at 127.0.0.1:PORT and prints what
# comes back until the server closes the connection, or "(no more)" after SECONDS (3).
raw() {
	perl -MIO::Socket::INET -e '
		my ($port, $secs) = @ARGV;
		local $/; my $req = <STDIN>;
		my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port") or die "connect: $!\n";
		print $s $req;
		my $out = "";
		eval {
			local $SIG{ALRM} = sub { die "alarm\n" };
			alarm $secs;
			while (sysread($s, my $buf, 65536)) { $out .= $buf }
			alarm 0;
		};
		print $out, ($@ ? "(no more)\n" : "");
	' "$1" "${2:-3}"
}
# params N: a query of N parameters p1=v&p2=v...
params() {
	perl -e 'print join("&", map { "p$_=v" } 1 .. $ARGV[0])' "$1"
}

# slow PORT GAP MAX [BODY]: a client that sends a request one byte every GAP seconds (its
# headers, or with BODY its headers whole and then a body of BODY bytes): prints "dropped" when
# the server closes the connection, "answered" when it answers, "open" when it is still open
# after MAX seconds.
slow() {
	perl -MIO::Socket::INET -MTime::HiRes=time -e '
		my ($port, $gap, $max, $body) = @ARGV;
		$SIG{PIPE} = "IGNORE";
		my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port") or die "connect: $!\n";
		my ($head, $rest);
		if ($body) {
			print $s "POST /api/records HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer secret-all\r\nContent-Length: $body\r\n\r\n";
			$rest = "x" x $body;
		} else {
			$rest = "GET /api/series HTTP/1.1\r\nHost: x\r\nX-Slow: " . ("a" x 100000);
		}
		my $t0 = time;
		for (my $i = 0; time - $t0 < $max; $i++) {
			if (!defined syswrite($s, substr($rest, $i, 1), 1)) { print "dropped\n"; exit }
			my $rin = "";
			vec($rin, fileno($s), 1) = 1;
			next unless select(my $rout = $rin, undef, undef, $gap);
			print sysread($s, my $buf, 100) ? "answered\n" : "dropped\n";
			exit;
		}
		print "open\n";
	' "$@"
}

# hold PORT N: opens N connections from 127.0.0.1, each with a request begun, and keeps them
# open until release.
hold() {
	rm -f hold.ready hold.release
	perl -MIO::Socket::INET -e '
		my ($port, $n) = @ARGV;
		my @s = map { IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port") or die "connect: $!\n" } 1 .. $n;
		print $_ "GET /api/series HTTP/1.1\r\n" for @s;
		open my $f, ">", "hold.ready" or die;
		close $f;
		for (1 .. 300) { last if -e "hold.release"; select(undef, undef, undef, 0.1) }
	' "$1" "$2" &
	i=0
	until [ -e hold.ready ]; do
		i=$((i + 1))
		[ $i -le 100 ] || return 1
		sleep 0.1
	done
}
release() {
	touch hold.release && wait
}

# lock_hold: another process (the sqlite3 shell; on PostgreSQL, psql taking the advisory lock
# benchline's writers take) takes the database's write lock and keeps it until lock_release.
lock_hold() {
	rm -f lock.in lock.out && mkfifo lock.in || return 1
	if pg_mode; then
		(psql -X -q -A -t "$(db_url "$BENCHLINE_DB")" <lock.in >lock.out 2>&1 &) &&
			exec 7>lock.in &&
			echo "BEGIN; SELECT pg_advisory_xact_lock(7306033440531431246); SELECT 'locked';" >&7 ||
			return 1
	else
		(sqlite3 "$BENCHLINE_DB" <lock.in >lock.out 2>&1 &) &&
			exec 7>lock.in &&
			echo "BEGIN IMMEDIATE; SELECT 'locked';" >&7 || return 1
	fi
	i=0
	until grep -qs locked lock.out; do
		i=$((i + 1))
		[ $i -le 100 ] || return 1
		sleep 0.1
	done
}
lock_release() {
	echo "COMMIT;" >&7 && exec 7>&-
}

serve_start gate --timeout 5 --repo "$TMP/repo" --token-file tokens || exit 1

# D1: a revision from HTTP is a ref name or a commit id, never a revparse expression.
test_expect 'the gate over HTTP takes ref names and commit ids' '
	expect_status 200 application/json GET "$URL/api/gate?head=main" &&
	expect_status 200 application/json GET "$URL/api/gate?head=$C2&base=main" &&
	expect_status 200 application/json GET "$URL/api/gate?head=refs/heads/main" &&
	expect_status 200 text/html GET "$URL/gate?head=main"
'
test_expect 'the gate over HTTP refuses revision expressions (400, naming the parameter)' '
	expect_status 400 application/json GET "$URL/api/gate?head=HEAD%5E%7B%2Fc2%7D" &&
	json_get body "\$j->{error}" >actual &&
	echo "head: '\''HEAD^{/c2}'\'' is not a ref name or a commit id (4 to 40 hex digits); the server takes no revision expressions" >expect &&
	test_cmp expect actual &&
	expect_status 400 application/json GET "$URL/api/gate?head=main&base=%3A%2Fc1" &&
	grep -q "^{\"error\":\"base: " body &&
	expect_status 400 application/json GET "$URL/api/gate?head=main&ratchet=main%40%7B1%7D" &&
	grep -q "^{\"error\":\"ratchet: " body &&
	expect_status 400 text/html GET "$URL/gate?head=HEAD~1" &&
	grep -q "not a ref name or a commit id" body
'
test_expect 'the command line keeps every revision form' '
	(cd repo && bl gate --head "HEAD^{/c2}" --json g.json >/dev/null) ;
	test -s repo/g.json
'

# D11: blanks around a bearer token are not part of it.
record m1 b1 1 >rec.json
test_expect 'a bearer token padded with blanks is the token' '
	expect_status 201 application/json POST "$URL/api/records" \
		-H "Authorization: Bearer secret-all   " --data-binary @rec.json &&
	expect_status 200 application/json POST "$URL/api/records" \
		-H "Authorization: Bearer 	secret-all	 " --data-binary @rec.json &&
	expect_status 401 application/json POST "$URL/api/records" \
		-H "Authorization: Bearer secret-al l" --data-binary @rec.json &&
	expect_status 401 application/json POST "$URL/api/records" \
		-H "Authorization: Bearer    " --data-binary @rec.json
'

# D10: a query of many parameters is answered (414), not dropped.
test_expect 'a query of more than 64 parameters is a 414' '
	expect_status 200 application/json GET "$URL/api/series?$(params 64)" &&
	expect_status 414 application/json GET "$URL/api/series?$(params 65)" &&
	echo "{\"error\":\"too many query parameters (at most 64)\"}" >expect &&
	test_cmp expect body &&
	expect_status 414 application/json GET "$URL/api/series?$(params 1000)" &&
	expect_status 414 text/html GET "$URL/?$(params 1000)" &&
	expect_status 414 application/json GET "$URL/api/records?$(params 3000)"
'
test_expect 'a header block of many headers is answered (431)' '
	for i in $(seq 1 1500); do echo "X-H$i: v"; done >many-headers &&
	expect_status 431 "" GET "$URL/api/series" -H @many-headers
'

# A body in an encoding the server cannot read is a 501, not a wait for ever.
PORT=${URL##*:}
test_expect 'Transfer-Encoding other than chunked is a 501' '
	printf "POST /api/records HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n" |
		raw "$PORT" >answer &&
	head -1 answer | tr -d "\r" >actual &&
	echo "HTTP/1.1 501 Not Implemented" >expect &&
	test_cmp expect actual &&
	grep -q "Transfer-Encoding .gzip, chunked. is not supported (only chunked)" answer &&
	printf "GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n" | raw "$PORT" >answer &&
	grep -q "^HTTP/1.1 501" answer &&
	grep -qi "^Content-Type: text/html" answer &&
	body=$(cat rec.json) &&
	printf "POST /api/records HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer secret-all\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n" \
		"${#body}" "$body" | raw "$PORT" >answer &&
	grep -q "^HTTP/1.1 200" answer
'

serve_stop gate || exit 1

# D2: a client slow to send its request is dropped at the deadline; one address may hold a
# bounded number of connections.
serve_start slow --request-deadline 2 --token-file tokens || exit 1
PORT=${URL##*:}
test_expect 'a client sending its headers a byte at a time is dropped' '
	slow "$PORT" 0.5 20 >actual &&
	echo dropped >expect &&
	test_cmp expect actual &&
	expect_status 200 application/json GET "$URL/api/series"
'
test_expect 'a client sending its body a byte at a time is dropped' '
	slow "$PORT" 0.5 20 1000 >actual &&
	echo dropped >expect &&
	test_cmp expect actual
'
serve_stop slow || exit 1

serve_start crowd --client-connections 3 || exit 1
PORT=${URL##*:}
test_expect 'an address holds at most --client-connections connections; others still answer' '
	hold "$PORT" 3 &&
	status GET "$URL/api/series" >over.status;
	status GET "$URL/api/series" --interface 127.0.0.2 >other.status;
	release &&
	echo "000 " >expect && test_cmp expect over.status &&
	echo "200 application/json" >expect && test_cmp expect other.status &&
	expect_status 200 application/json GET "$URL/api/series"
'
serve_stop crowd || exit 1

# D3: a write lock the server cannot get within --lock-timeout is a 503 with Retry-After.
# With a deadline shorter than the wait for the lock: the deadline is the client's time to send
# its request, never the server's time to answer it.
serve_start locked --lock-timeout 3 --request-deadline 1 --token-file tokens || exit 1
record m1 b2 2 >rec2.json
lock_hold || exit 1
test_expect 'a push that cannot get the write lock is a 503 with Retry-After' '
	curl -s -o body -D headers -H "Authorization: Bearer secret-all" \
		--data-binary @rec2.json "$URL/api/records" &&
	grep -qi "^HTTP/1.1 503" headers &&
	grep -qi "^Retry-After: 5" headers &&
	grep -qi "^Content-Type: application/json" headers &&
	if pg_mode; then
		grep -q "lock timeout" body
	else
		grep -q "database is locked" body
	fi
'
test_expect 'reads answer while another process holds the write lock' '
	expect_status 200 application/json GET "$URL/api/series" &&
	expect_status 200 text/html GET "$URL/"
'
# (timeout: a reader that waits for the lock would wait for ever; 60 s is far past any read.)
test_expect '.. and so does the command line, opening the database afresh' '
	timeout 60 "$BENCHLINE" series --json >cli.json &&
	curl -s --max-time 20 "$URL/api/series" >api.json &&
	test_cmp api.json cli.json
'
lock_release
test_expect 'the same push is stored once the lock is free' '
	expect_status 201 application/json POST "$URL/api/records" \
		-H "Authorization: Bearer secret-all" --data-binary @rec2.json
'
serve_stop locked || exit 1
# D5/D6: reads do not wait behind writes or behind another client's charts.
for i in 1 2 3 4 5 6; do record m1 "b$i" "$C2" >>series.json; done
bl ingest series.json >/dev/null || exit 1
# A gnuplot that waits for ./release (at most 4 s, under the server's 5 s limit): the charts
# asked for stay in flight until the test lets them go. Each run leaves a started.* file.
cat >wait-gnuplot <<EOF
#!/bin/sh
touch "$TMP/started.\$\$"
i=0
while [ ! -e "$TMP/release" ] && [ \$i -lt 40 ]; do sleep 0.1; i=\$((i + 1)); done
exec gnuplot "\$@"
EOF
chmod +x wait-gnuplot
serve_start pools --threads 2 --lock-timeout 60 --gnuplot "$TMP/wait-gnuplot" --token-file tokens || exit 1

# wait_for FILE-GLOB N: waits until N files match (at most 10 s).
wait_for() {
	i=0
	until [ "$(ls $1 2>/dev/null | wc -l)" -ge "$2" ]; do
		i=$((i + 1))
		[ $i -le 100 ] || return 1
		sleep 0.1
	done
}

lock_hold || exit 1
pushes=
for i in 1 2 3 4; do
	record m2 b1 "$((10 + i))" >"late$i.json"
	curl -s -o /dev/null -w "%{http_code}\n" --max-time 120 -H "Authorization: Bearer secret-all" \
		--data-binary @"late$i.json" "$URL/api/records" >"late$i.code" &
	pushes="$pushes $!"
done
sleep 1 # the pushes are in, each waiting for the write lock
test_expect 'reads, kept-alive ones too, answer while pushes wait for a write lock another process holds' '
	expect_status 200 application/json GET "$URL/api/series" &&
	expect_status 200 text/html GET "$URL/" &&
	expect_status 200 application/json GET "$URL/api/records" &&
	curl -s -o /dev/null -o /dev/null -w "%{http_code} %{num_connects}\n" --max-time 20 \
		"$URL/api/series" "$URL/api/suspects" >actual &&
	printf "200 1\n200 0\n" >expect &&
	test_cmp expect actual &&
	cat late1.code late2.code late3.code late4.code >codes &&
	test ! -s codes
'
lock_release
wait $pushes
test_expect 'the waiting pushes are stored once the lock is free' '
	printf "201\n201\n201\n201\n" >expect &&
	cat late1.code late2.code late3.code late4.code >actual &&
	test_cmp expect actual
'

test_expect 'one client drawing many charts is bounded, and another client is answered meanwhile' '
	for i in 1 2 3 4 5 6; do
		curl -s -o "chart$i.svg" -w "%{http_code}\n" --max-time 60 \
			"$URL/series/m1/b$i/c/t/chart.svg" >"chart$i.code" &
	done &&
	wait_for "started.*" 2 &&
	sleep 0.5 &&
	ls started.* | wc -l | tr -d " " >drawing &&
	expect_status 200 application/json GET "$URL/api/series" --interface 127.0.0.2 &&
	expect_status 200 text/html GET "$URL/" --interface 127.0.0.2 &&
	cat chart?.code >codes &&
	touch release &&
	wait &&
	echo 2 >expect &&
	test_cmp expect drawing &&
	test ! -s codes &&
	printf "200\n200\n200\n200\n200\n200\n" >expect &&
	cat chart?.code >actual &&
	test_cmp expect actual
'
serve_stop pools || exit 1
test_done

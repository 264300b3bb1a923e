#!/bin/sh
# benchline serve under stress (§11, §13): slow clients dropped on time, 8 concurrent
# pushers, SIGTERM with requests in flight, a gnuplot that hangs.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/e2e/serve-lib.sh"

bl init >/dev/null
printf 'tok\n' >tokens
# A gnuplot that takes a second, so requests are still in flight when SIGTERM comes.
printf '#!/bin/sh\nsleep 1\nexec gnuplot "$@"\n' >slow-gnuplot && chmod +x slow-gnuplot
printf '#!/bin/sh\nexec sleep 30\n' >hung-gnuplot && chmod +x hung-gnuplot
serve_start main --token-file tokens --timeout 2 --threads 4 || exit 1

test_expect 'a client that sends half a request and stalls is dropped on time' '
	perl -MIO::Socket::INET -MTime::HiRes=time -e "
		my (\$host, \$port) = \$ARGV[0] =~ m{http://([^:]+):(\d+)};
		my \$s = IO::Socket::INET->new(PeerAddr => \$host, PeerPort => \$port) or die;
		print \$s qq(GET / HTTP/1.1\r\nHost: x\r\n);
		my \$t0 = time;
		# Others are served meanwhile.
		my \$code = qx(curl -s -o /dev/null -w %{http_code} --max-time 5 \$ARGV[0]/);
		die qq(other client got \$code) unless \$code eq q(200);
		# Only a client never dropped fails here: 25 s is far past the 2 s timeout, so a
		# loaded machine cannot make this flake.
		local \$SIG{ALRM} = sub { die qq(never dropped (25 s)\n) };
		alarm 25;
		my \$buf; 1 while sysread(\$s, \$buf, 4096);
		my \$dt = time - \$t0;
		die qq(dropped too early: \$dt s\n) if \$dt < 1.5;
		print qq(dropped after \$dt s\n);
	" "$URL"
'

test_expect '8 concurrent pushers of 500 records each: all stored, no 5xx' '
	perl -MHTTP::Tiny -e "
		my (\$url) = @ARGV; my @kids;
		for my \$p (1 .. 8) {
			my \$pid = fork // die; if (\$pid) { push @kids, \$pid; next }
			my \$http = HTTP::Tiny->new(keep_alive => 1, timeout => 60);
			my \$bad = 0;
			for my \$i (1 .. 500) {
				my \$c = sprintf(q(%040x), \$p * 100000 + \$i);
				my \$body = qq({\"schema\":1,\"machine\":\"load\$p\",\"benchmark\":\"b\",)
				  . qq(\"harness_version\":1,\"source\":{\"commit\":\"\$c\",\"source_hash\":\"\$c\"},)
				  . qq(\"started_at\":\"2026-11-02T04:00:00Z\",\"metrics\":{\"t\":{\"kind\":\"timed\",)
				  . qq(\"unit\":\"us\",\"better\":\"lower\",\"median\":\$i}}});
				my \$r = \$http->post(qq(\$url/api/records), { content => \$body,
					headers => { Authorization => q(Bearer tok) } });
				if (\$r->{status} != 201) { \$bad++; print STDERR qq(\$r->{status} \$r->{content}\n) if \$bad < 3 }
			}
			exit(\$bad ? 1 : 0);
		}
		my \$fail = 0; for (@kids) { waitpid(\$_, 0); \$fail++ if \$? }
		exit(\$fail ? 1 : 0);
	" "$URL" &&
	test "$(db_sql "$BENCHLINE_DB" "SELECT count(*) FROM runs")" = 4000 &&
	test "$(db_sql "$BENCHLINE_DB" "SELECT count(*) FROM records")" = 4000 &&
	test "$(db_sql "$BENCHLINE_DB" "SELECT count(DISTINCT machine_id) FROM runs")" = 8
'
test_expect 'the pushed Series are listed by the API' '
	curl -s "$URL/api/series" | json_get - "scalar @\$j" | grep -qx 8 &&
	curl -s "$URL/api/series/load3/b//t/records" | json_get - "scalar @\$j" | grep -qx 500
'
# Not before 5 s (a lower bound a loaded machine cannot break); that it was killed, not waited
# for (hung-gnuplot sleeps 30 s), the page says: no upper bound on the time.
test_expect 'a gnuplot that hangs is killed after 5 s and the page says so' '
	serve_stop main &&
	serve_start hung --gnuplot ./hung-gnuplot &&
	start=$(date +%s) &&
	expect_status 200 text/html GET "$URL/series/load1/b//t" &&
	end=$(date +%s) &&
	test $((end - start)) -ge 4 &&
	grep -q "was killed" body &&
	grep -q "<table>" body &&
	expect_status 503 text/plain GET "$URL/series/load1/b//t/chart.svg" &&
	serve_stop hung
'
# Pushes late.json in the background (a function, so the && chain around it stays in front).
push_late() {
	curl -s -o push.out -w "%{http_code}\n" --max-time 20 -H "Authorization: Bearer tok" \
		--data-binary @late.json "$URL/api/records" >push.code &
}
test_expect 'SIGTERM during requests: in-flight requests finish, the database is intact' '
	c=$(printf "%040x" 999) &&
	for i in $(seq 1 2000); do
		printf "{\"schema\":1,\"machine\":\"late\",\"benchmark\":\"b%d\",\"harness_version\":1,\"source\":{\"commit\":\"%s\",\"source_hash\":\"%s\"},\"started_at\":\"2026-11-02T04:00:00Z\",\"metrics\":{\"t\":{\"kind\":\"timed\",\"unit\":\"us\",\"better\":\"lower\",\"median\":1}}}\n" $i $c $c
	done >late.json &&
	serve_start slow --token-file tokens --gnuplot ./slow-gnuplot &&
	for i in 1 2 3; do
		curl -s -o page$i -w "%{http_code}\n" --max-time 20 "$URL/series/load$i/b//t" >code$i &
	done &&
	push_late &&
	sleep 0.4 &&
	kill -TERM "$(cat slow.pid)" &&
	wait &&
	for i in 1 2 3; do
		test "$(cat code$i)" = 200 && grep -q "<svg" page$i || { echo "request $i: $(cat code$i)"; exit 1; }
	done &&
	test "$(cat push.code)" = 201 &&
	serve_wait slow &&
	{ pg_mode || test "$(sqlite3 "$BENCHLINE_DB" "PRAGMA integrity_check")" = ok; } && # (an integrity check of the file)
	test "$(db_sql "$BENCHLINE_DB" "SELECT count(*) FROM runs r JOIN machines m ON m.id = r.machine_id WHERE m.name = '"'late'"'")" = 2000
'
test_done

#!/bin/sh
# What counts as stored (§13: nothing measured is lost to a wrong answer): only a 2xx whose body
# is benchline's outcome list, one outcome per record sent. Fake servers on loopback answer a
# maintenance page (200 text/html), another JSON, a redirect (301, never followed), `201 []` to
# a body of several records, a reset connection and a stalled one; after each, every spooled
# body is still there, push --spool, ingest, run and sweep exit 3 and say what came back, and
# nothing is called stored. docs/sweep.md says the same.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/e2e/bench-lib.sh"

(
	set -e
	bench_repo
	cat >repo/benchline.json <<'EOF'
{"measured_paths": ["bench.c"], "unmeasured_paths": ["docs", ".gitignore"],
 "metrics": ["work"],
 "bench": {"build": "cc -O2 -o bench bench.c", "run": "./bench", "processes": 1}}
EOF
) >setup.log 2>&1 || { cat setup.log; echo 'Bail out! cannot build the test repository'; exit 1; }
echo secret >token

# The fake server: each request is answered as MODE says, and logged as "METHOD PATH BYTES".
#   html      200, text/html, a maintenance page of 24 bytes
#   json      200, application/json, {"ok": true}
#   redirect  301 to https://bench.example/api/records
#   empty     201, application/json, []
#   reset     the connection reset after the request was read (no answer)
#   stall     the request read, then nothing (until the client gives up)
cat >fake.pl <<'EOF'
use strict;
use warnings;
use IO::Socket::INET;
use Socket qw(SOL_SOCKET SO_LINGER);
my ($portfile, $log, $mode) = @ARGV;
my $srv = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0, Listen => 16,
	ReuseAddr => 1) or die "listen: $!";
open my $pf, '>', "$portfile.tmp" or die;
print $pf $srv->sockport, "\n";
close $pf;
rename "$portfile.tmp", $portfile or die;
my @stalled;
while (my $c = $srv->accept) {
	my $head = '';
	while (defined(my $line = <$c>)) {
		$head .= $line;
		last if $line eq "\r\n";
	}
	my ($len) = $head =~ /^Content-Length:\s*(\d+)/mi;
	my $body = '';
	read($c, $body, $len) if $len;
	my ($method, $path) = split / /, $head;
	open my $l, '>>', $log or die;
	print $l "$method $path ", length($body), "\n";
	close $l;
	if ($mode eq 'reset') {
		setsockopt($c, SOL_SOCKET, SO_LINGER, pack('ii', 1, 0));
		close $c;
		next;
	}
	if ($mode eq 'stall') {
		push @stalled, $c;
		next;
	}
	my ($status, $type, $msg, $extra) = (200, 'text/html', "<html>maintenance</html>", '');
	($type, $msg) = ('application/json', '{"ok": true}') if $mode eq 'json';
	($status, $type, $msg) = (201, 'application/json', '[]') if $mode eq 'empty';
	($status, $type, $msg, $extra) = (301, 'text/plain', '',
	    "Location: https://bench.example/api/records\r\n") if $mode eq 'redirect';
	print $c "HTTP/1.1 $status Fake\r\nContent-Type: $type\r\n$extra",
	    "Content-Length: ", length($msg), "\r\nConnection: close\r\n\r\n$msg";
	close $c;
}
EOF
fake_stop() {
	[ -f "$TMP/fake.pid" ] || return 0
	kill "$(cat "$TMP/fake.pid")" 2>/dev/null
	rm -f "$TMP/fake.pid"
}
# fake_start MODE: starts the fake server (its log in fake.log, its port in fake.port).
fake_start() {
	fake_stop
	rm -f fake.port fake.log
	perl fake.pl fake.port fake.log "$1" >/dev/null 2>&1 &
	echo $! >"$TMP/fake.pid"
	i=0
	while [ ! -s fake.port ]; do
		i=$((i + 1))
		[ $i -le 100 ] || { echo "the fake server did not start" >&2; return 1; }
		sleep 0.1
	done
}
trap 'fake_stop; cleanup' EXIT

# Three records, one body; and two bodies already waiting in the spool.
native_lines 3 1 m-1 >three.json
mkdir -p waiting
native_lines 1 10 m-1 >waiting/20260101T000000.000000000Z-00000001-000000.json
native_lines 2 20 m-1 >waiting/20260101T000000.000000000Z-00000001-000001.json
(cd waiting && sha1sum *.json) >waiting.sums
printf '#!/bin/sh\ncat "%s"\n' "$TMP/three.json" >bench.sh && chmod +x bench.sh

# spool_fresh: ./spool holds the two waiting bodies, and nothing else.
spool_fresh() {
	rm -rf spool && cp -R waiting spool
}
# spool_kept N: the two waiting bodies are in ./spool as they were, with N bodies more.
spool_kept() {
	(cd spool && sha1sum -c --quiet "$TMP/waiting.sums") &&
		test "$(ls spool | grep -c '\.json$')" = $((2 + $1))
}
# pushing COMMAND ARGS...: a benchline command with the fake server, a short timeout and no
# retries.
pushing() {
	cmd=$1
	shift
	"$BENCHLINE" "$cmd" --server "http://127.0.0.1:$(cat fake.port)" --token-file token \
		--spool spool --timeout 1 --retries 0 "$@"
}
# never_stored: nothing was printed as stored or standing (out), nothing claimed (err).
never_stored() {
	test ! -s out && ! grep -q "stored\|stands" err
}

for mode in html json redirect empty reset stall; do
	# what the command says came back, for a body of N records
	case $mode in
	html) said="the server's answer is not benchline's (200, text/html, 24 bytes)" ;;
	json) said="the server's answer is not benchline's (200, application/json, 12 bytes)" ;;
	redirect) said="redirected to https://bench.example/api/records: not followed" ;;
	empty) said="the server answered 201 with 0 outcomes for N records\{0,1\}" ;;
	reset) said="not acknowledged after 1 attempt: cannot reach '.*': .*reset" ;;
	stall) said="not acknowledged after 1 attempt: cannot reach '.*': .*timed out" ;;
	esac
	fake_start $mode || exit 1
	test_expect "$mode: push --spool keeps both bodies, exit 3, and says what came back" '
		rm -f fake.log &&
		spool_fresh &&
		expect_exit 3 pushing push --spool >out 2>err &&
		spool_kept 0 &&
		never_stored &&
		grep -q "spool/20260101T000000.000000000Z-00000001-000000.json: $(echo "$said" | sed "s/N/1/")" err &&
		grep -q "^benchline: 2 bodies wait in the spool" err &&
		test $(wc -l <fake.log) = 1
	'
	test_expect "$mode: ingest --server spools its body, exit 3" '
		rm -rf spool fake.log &&
		expect_exit 3 pushing ingest --machine m-1 --harness-version 1 --repo repo \
			three.json >out 2>err &&
		test "$(ls spool | grep -c "\.json$")" = 1 &&
		test $(cat spool/*.json | wc -l) = 3 &&
		never_stored &&
		grep -q "^benchline: three.json: $(echo "$said" | sed "s/N/3/").*; kept in the spool as .*spool/" err
	'
	test_expect "$mode: run --server spools its run behind the waiting ones, exit 3" '
		spool_fresh &&
		expect_exit 3 pushing run --no-preflight -- ./bench.sh >out 2>err &&
		spool_kept 1 &&
		never_stored &&
		grep -q "not sent: .* did not acknowledge an earlier body of this command; kept in the spool as" err &&
		grep -q "^run: .*: 3 records kept in the spool$" err
	'
	test_expect "$mode: sweep --server spools its run, exit 3" '
		rm -rf spool &&
		expect_exit 3 pushing sweep --repo repo --machine m-1 --no-preflight >out 2>err &&
		test "$(ls spool | grep -c "\.json$")" = 1 &&
		test ! -s out &&
		grep -q "kept in the spool as" err &&
		tail -1 err | grep -q "^sweep: 1 commit measured .* 0 runs pushed to .*, 1 kept in the spool$"
	'
done
fake_stop

test_expect 'push --spool with nothing waiting says so' '
	rm -rf spool &&
	echo 9 >fake.port &&
	pushing push --spool >out 2>err &&
	grep -q "^benchline: nothing waits in the spool .*spool.$" err &&
	mkdir spool &&
	pushing push --spool >out 2>err &&
	grep -q "^benchline: nothing waits in the spool .*spool.$" err &&
	test ! -s out
'
test_expect 'a password in the server URL is never printed' '
	rm -rf spool &&
	expect_exit 3 "$BENCHLINE" ingest --server "http://bench:s3cret@127.0.0.1:9" \
		--token-file token --spool spool --retries 0 three.json 2>err &&
	grep -q "cannot reach .http://bench@127.0.0.1:9/api/records." err &&
	! grep -q s3cret err &&
	expect_exit 2 "$BENCHLINE" push --server "ftp://bench:s3cret@x" --token-file token \
		three.json 2>err &&
	grep -q "^benchline: .ftp://bench@x.: a server URL is http:// or https://$" err &&
	! grep -q s3cret err &&
	expect_exit 2 "$BENCHLINE" push --server "http://bench:s3cret@x" three.json 2>err &&
	grep -q "no token for .http://bench@x." err &&
	! grep -q s3cret err
'
test_done

#!/bin/sh
# SIGTERM (§11, §13): the server finishes the requests in flight, but takes no new work. A
# kept-alive connection idle at the signal is closed; a request whose headers were still
# coming is answered 503 with Retry-After (and not stored); a new connection is refused; the
# in-flight request (a chart whose gnuplot the test holds) still gets its answer before the
# server exits 0.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/e2e/serve-lib.sh"

printf 'tok\n' >tokens
{ record m1 b1 1 100 && record m1 b1 2 101; } >two.json
record m1 b2 3 100 >late.json
# A gnuplot that waits for ./release: the chart asked for stays in flight until the test lets
# it go (at most 20 s). It leaves ./started.
cat >wait-gnuplot <<EOF
#!/bin/sh
touch "$TMP/started"
i=0
while [ ! -e "$TMP/release" ] && [ \$i -lt 200 ]; do sleep 0.1; i=\$((i + 1)); done
exec gnuplot "\$@"
EOF
chmod +x wait-gnuplot
# A client on one kept-alive connection: a GET, then, once ./go exists, a push on the same
# connection; writes what the push got ("STATUS", or "closed" when the server had closed the
# connection) to ./kept. With "begun" it is another client: the request line of its push is
# sent at once (./begun when it is), its headers and body once ./go exists, and what it got
# goes to ./begun.got.
cat >kept.pl <<'EOF'
use strict;
use warnings;
use IO::Socket::INET;
my ($port, $body, $mode) = @ARGV;
$SIG{PIPE} = 'IGNORE';
my $s = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $port) or die "connect: $!";
$s->autoflush(1);
sub answer {
	my $status = <$s>;
	return undef unless defined $status;
	my $len = 0;
	while (defined(my $h = <$s>)) {
		last if $h eq "\r\n";
		$len = $1 if $h =~ /^Content-Length:\s*(\d+)/i;
	}
	read($s, my $skip, $len) if $len;
	return $status =~ /^HTTP\/1\.1 (\d+)/ ? $1 : "?";
}
if (($mode // '') eq 'begun') {
	print $s "POST /api/records HTTP/1.1\r\n";
	open my $b, '>', 'begun' or die;
	close $b;
	select(undef, undef, undef, 0.1) until -e 'go';
	open my $f, '<', $body or die;
	local $/;
	my $data = <$f>;
	print $s "Host: x\r\nAuthorization: Bearer tok\r\nContent-Type: application/json\r\n",
	    "Content-Length: ", length($data), "\r\n\r\n", $data;
	my $got = answer();
	open my $o, '>', 'begun.tmp' or die;
	print $o defined $got ? "$got\n" : "closed\n";
	close $o;
	rename 'begun.tmp', 'begun.got';
	exit 0;
}
print $s "GET /api/status HTTP/1.1\r\nHost: x\r\n\r\n";
answer() eq '200' or die "no first answer";
open my $r, '>', 'ready' or die;
close $r;
select(undef, undef, undef, 0.1) until -e 'go';
open my $f, '<', $body or die;
local $/;
my $data = <$f>;
my $ok = print $s "POST /api/records HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer tok\r\n",
    "Content-Type: application/json\r\nContent-Length: ", length($data), "\r\n\r\n", $data;
my $got = $ok ? answer() : undef;
open my $o, '>', 'kept.tmp' or die;
print $o defined $got ? "$got\n" : "closed\n";
close $o;
rename 'kept.tmp', 'kept';
EOF
# wait_for FILE: waits until FILE exists (at most 20 s).
wait_for() {
	i=0
	until [ -e "$1" ]; do
		i=$((i + 1))
		[ $i -le 200 ] || { echo "no $1" >&2; return 1; }
		sleep 0.1
	done
}
{ bl init && bl ingest two.json; } >setup.log 2>&1 || { cat setup.log; echo 'Bail out! no history'; exit 1; }
serve_start s1 --token-file tokens --timeout 60 --gnuplot "$TMP/wait-gnuplot" || exit 1
PORT=${URL##*:}

test_expect 'SIGTERM: an idle kept-alive connection takes no push, a new one none; in flight finishes' '
	perl kept.pl "$PORT" late.json >kept.log 2>&1 &
	wait_for ready &&
	perl kept.pl "$PORT" late.json begun >begun.log 2>&1 &
	wait_for begun &&
	curl -s -o chart.svg -w "%{http_code}\n" --max-time 60 "$URL/series/m1/b1/c/t/chart.svg" >chart.code &
	wait_for started &&
	kill -TERM "$(cat s1.pid)" &&
	i=0 && until grep -q "finishing requests in flight" s1.err; do
		i=$((i + 1)); [ $i -le 200 ] || { echo "no stop"; return 1; }; sleep 0.1; done &&
	touch go &&
	wait_for kept &&
	grep -qx "closed\|503" kept &&
	wait_for begun.got &&
	echo 503 >expect && test_cmp expect begun.got &&
	code=$(curl -s -o /dev/null -w "%{http_code}" --max-time 10 "$URL/api/status" || :) &&
	case "$code" in 000 | 503) ;; *) echo "a new request got $code"; return 1 ;; esac &&
	touch release &&
	wait_for chart.code && i=0 && until [ -s chart.code ]; do sleep 0.1; i=$((i + 1)); [ $i -le 200 ] || return 1; done &&
	test "$(cat chart.code)" = 200 &&
	grep -q "<svg" chart.svg &&
	serve_wait s1 &&
	test "$(db_sql "$BENCHLINE_DB" "SELECT count(*) FROM runs")" = 2
'
test_done

#!/bin/sh
# The spool against what may be found in it (§13): entries are opened without following
# symlinks; a directory, a symlink (to /etc/passwd, or dangling) or a FIFO under a body's name
# is skipped and reported once, never sent; an unreadable body is moved to rejected/; no entry
# stops the others. And a spool that cannot be written (read-only, full) is an error naming
# the body and why, with nothing read after it was freed (run it under
# `make check SANITIZE=address,undefined`).
. "$(dirname "$0")/lib.sh"

echo secret >token
chmod 644 token
# A fake server that keeps each body it is sent (body.N) and answers benchline's outcome
# list, an outcome per line of the body.
cat >fake.pl <<'EOF'
use strict;
use warnings;
use IO::Socket::INET;
my ($portfile, $dir) = @ARGV;
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
	$n++;
	open my $b, '>', "$dir/body.$n" or die;
	print $b $body;
	close $b;
	my @outcomes = map { qq({"record": $_, "id": $_, "machine": "m", "benchmark": "b", ) .
	    qq("config": "", "source_hash": "a", "harness_version": 1, "baseline": false, ) .
	    qq("outcome": "stands"}) } 1 .. scalar(() = $body =~ /^\{/mg);
	my $msg = "[" . join(",", @outcomes) . "]\n";
	print $c "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\n",
	    "Content-Length: ", length($msg), "\r\nConnection: close\r\n\r\n$msg";
	close $c;
}
EOF
mkdir received
perl fake.pl fake.port "$TMP/received" >/dev/null 2>&1 &
echo $! >fake.pid
trap 'kill "$(cat "$TMP/fake.pid")" 2>/dev/null; cleanup' EXIT
i=0
while [ ! -s fake.port ]; do
	i=$((i + 1))
	[ $i -le 100 ] || { echo 'Bail out! the fake server did not start'; exit 1; }
	sleep 0.1
done
FAKE="http://127.0.0.1:$(cat fake.port)"

name() {
	echo "20260101T000000.000000000Z-00000001-00000$1.json"
}

test_expect 'a directory, symlinks and a FIFO are skipped and reported once; the bodies around them go' '
	mkdir spool &&
	native_lines 1 1 m-1 >spool/$(name 0) &&
	mkdir spool/$(name 1) &&
	ln -s /etc/passwd spool/$(name 2) &&
	ln -s "$TMP/nowhere" spool/$(name 3) &&
	mkfifo spool/$(name 4) &&
	native_lines 2 10 m-1 >spool/$(name 5) &&
	"$BENCHLINE" push --spool --server "$FAKE" --token-file token --spool spool >out 2>err &&
	test "$(ls received | wc -l)" = 2 &&
	cat received/* | grep -c "\"benchmark\":\"b" >n && echo 3 >expect && test_cmp expect n &&
	! grep -q "root:" received/* &&
	grep -c "^spool/$(name 0): m/b a harness 1: stands$" out >n &&
	echo 1 >expect && test_cmp expect n &&
	test "$(grep -c "$(name 5): m/b a harness 1: stands$" out)" = 2 &&
	for k in 1 2 3 4; do
		test "$(grep -c "$(name $k)" err)" = 1 || return 1
	done &&
	grep -q "^benchline: spool/$(name 1): not a regular file (a directory): skipped$" err &&
	grep -q "^benchline: spool/$(name 2): a symbolic link, never followed: skipped$" err &&
	grep -q "^benchline: spool/$(name 3): a symbolic link, never followed: skipped$" err &&
	grep -q "^benchline: spool/$(name 4): not a regular file (a FIFO): skipped$" err &&
	test ! -e spool/$(name 0) && test ! -e spool/$(name 5) &&
	test -d spool/$(name 1) && test -L spool/$(name 2) && test -L spool/$(name 3) &&
	test -p spool/$(name 4) &&
	test ! -e spool/rejected
'

test_expect 'an unreadable body is moved to rejected/, and the next one still goes' '
	rm -rf spool received/* &&
	mkdir spool &&
	native_lines 1 1 m-1 >spool/$(name 0) &&
	native_lines 1 2 m-1 >spool/$(name 1) &&
	chmod 000 spool/$(name 0) &&
	if [ "$(id -u)" = 0 ]; then
		# root reads any file: the push runs as nobody, who cannot
		chown -R 65534:65534 spool && chmod 711 "$TMP" &&
		as=$(command -v setpriv) &&
		as="$as --reuid=65534 --regid=65534 --clear-groups"
	else
		as=
	fi &&
	{ $as "$BENCHLINE" push --spool --server "$FAKE" --token-file "$TMP/token" \
		--spool "$TMP/spool" >out 2>err; echo $? >rc; } &&
	chmod 700 "$TMP" &&
	echo 2 >expect && test_cmp expect rc &&
	grep -q "^benchline: cannot open .$TMP/spool/$(name 0).: Permission denied; moved to .$TMP/spool/rejected/$(name 0).$" err &&
	test -f spool/rejected/$(name 0) &&
	grep -q "Permission denied" spool/rejected/$(name 0).answer &&
	grep -q "$(name 1): m/b a harness 1: stands$" out &&
	test "$(ls received | wc -l)" = 1 &&
	test ! -e spool/$(name 1)
'

# unwritable KIND DIR CMD...: runs CMD with DIR made unwritable: KIND ro (a read-only file
# system) or full (a file system with no space left). As root (whom permissions do not stop)
# DIR is a tmpfs of its own, in a mount namespace of the command's; otherwise ro is a
# directory without write permission, and full cannot be made (exit 77).
unwritable() {
	kind=$1 dir=$2
	shift 2
	if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
		mkdir -p "$dir" &&
			unshare -m sh -c '
				kind=$1 dir=$2; shift 2
				mount -t tmpfs -o size=64k tmpfs "$dir" || exit 77
				mkdir "$dir/spool"
				if [ "$kind" = ro ]; then
					mount -o remount,ro "$dir" || exit 77
				else
					dd if=/dev/zero of="$dir/fill" bs=4k 2>/dev/null
				fi
				exec "$@"' sh "$kind" "$dir" "$@"
	elif [ "$kind" = ro ]; then
		mkdir -p "$dir/spool" && chmod 555 "$dir/spool" && "$@"
	else
		return 77
	fi
}

test_expect 'a read-only spool: the body is named, with both reasons; exit 2' '
	native_lines 3 1 m-1 >three.json &&
	{ unwritable ro "$TMP/ro" "$BENCHLINE" ingest --server http://127.0.0.1:9 --token-file token \
		--retries 0 --spool "$TMP/ro/spool" three.json >out 2>err; echo $? >rc; } &&
	echo 2 >expect && test_cmp expect rc &&
	grep -q "^benchline: three.json: not acknowledged after 1 attempt: cannot reach .*; and it cannot be spooled: cannot create .$TMP/ro/spool/20[0-9T.]*Z-[0-9]*-000000.json.tmp.[0-9]*.: \(Read-only file system\|Permission denied\)$" err &&
	test ! -s out
'

test_expect 'a full spool: the body is named, with both reasons; exit 2' '
	{ unwritable full "$TMP/full" "$BENCHLINE" ingest --server http://127.0.0.1:9 \
		--token-file token --retries 0 --spool "$TMP/full/spool" three.json >out 2>err;
		echo $? >rc; } &&
	if [ "$(cat rc)" = 77 ]; then
		echo "# no full file system can be made here: skipped"
	else
		echo 2 >expect && test_cmp expect rc &&
		grep -q "^benchline: three.json: not acknowledged after 1 attempt: cannot reach .*; and it cannot be spooled: cannot \(create\|write\) .*: No space left on device$" err
	fi
'
test_done

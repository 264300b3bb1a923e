# Helpers for the web server's tests: start `benchline serve` on a free loopback port in
# the background, talk to it with curl, stop it at the end.
#
#   . "$(dirname "$0")/lib.sh"
#   . "$(dirname "$0")/serve-lib.sh"
#   serve_start srv1 --token-file tokens   # sets URL_srv1 (and $URL) and PID_srv1
#   ...
#   serve_stop srv1

serve_cleanup() {
	for f in "$TMP"/*.pid; do
		[ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	# A server's subshell writes NAME.rc once it ended: waited for (at most 5 s each), so
	# that it does not write into the directory after cleanup removed it.
	for name in $(cat "$TMP/.servers" 2>/dev/null); do
		i=0
		while [ -f "$TMP/$name.pid" ] && [ ! -f "$TMP/$name.rc" ] && [ $i -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
	done
	cleanup
}
trap serve_cleanup EXIT

# serve_start NAME ARGS...: starts the server (port 0: a free port), waits for its URL. The
# server's pid goes to NAME.pid and, once it ends, its exit status to NAME.rc.
serve_start() {
	name=$1
	shift
	rm -f "$name.out" "$name.rc" "$name.pid"
	echo "$name" >>"$TMP/.servers"
	(
		bl_exec serve --port 0 "$@" >"$name.out" 2>"$name.err" &
		echo $! >"$name.pid"
		wait $!
		echo $? >"$name.rc"
	) >/dev/null 2>&1 &
	i=0
	while ! grep -q 'serving' "$name.out" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt 100 ] || [ -f "$name.rc" ]; then
			echo "server $name did not start:" >&2
			cat "$name.err" >&2
			return 1
		fi
		sleep 0.1
	done
	URL=$(sed -n 's/.* at \(http[^ ]*\)\/ .*/\1/p' "$name.out")
	export URL
}

# serve_wait NAME [SECONDS]: waits for the server to end; fails unless it exited 0.
serve_wait() {
	i=0
	while [ ! -f "$1.rc" ]; do
		i=$((i + 1))
		[ $i -le $((${2:-30} * 10)) ] || { echo "server $1 did not stop" >&2; return 1; }
		sleep 0.1
	done
	rm -f "$1.pid"
	test "$(cat "$1.rc")" = 0 || { echo "server $1 exited $(cat "$1.rc")" >&2; return 1; }
}

# serve_idle [SECONDS]: waits (at most SECONDS, 30) until the server at $URL has no background
# work running or queued: the detection a push asked for, the sync of --repo. A push that was
# answered has queued its detection already, so after this its Suspects are stored.
serve_idle() {
	i=0
	while ! curl -s --max-time 5 "$URL/api/status" | grep -q '"state":"idle"'; do
		i=$((i + 1))
		[ $i -le $((${1:-30} * 10)) ] || { echo "the server stayed busy" >&2; return 1; }
		sleep 0.1
	done
}

# serve_stop NAME: SIGTERM, then waits for a clean exit.
serve_stop() {
	kill -TERM "$(cat "$1.pid")" && serve_wait "$1"
}

# status METHOD URL [CURL-ARGS...]: prints "CODE CONTENT-TYPE" and keeps the body in ./body.
status() {
	m=$1 u=$2
	shift 2
	curl -s --path-as-is --max-time 20 -X "$m" -o body -w '%{http_code} %{content_type}\n' \
		"$@" "$u"
}

# expect_status WANT-CODE WANT-TYPE-PREFIX METHOD URL [CURL-ARGS...]
expect_status() {
	want=$1 wtype=$2
	shift 2
	got=$(status "$@")
	case "$got" in
	"$want $wtype"*) return 0 ;;
	esac
	echo "expected $want $wtype from $1 $2, got: $got" >&2
	head -c 400 body >&2
	return 1
}

# record MACHINE BENCHMARK COMMIT [VALUE]: one native record on stdout; COMMIT is 40 hex
# digits or a number (made into 40 hex digits).
record() {
	case $3 in
	????????????????????????????????????????) c=$3 ;;
	*) c=$(printf '%040x' "$3") ;;
	esac
	printf '{"schema":1,"machine":"%s","benchmark":"%s","config":"c","harness_version":1,' "$1" "$2"
	printf '"source":{"commit":"%s","source_hash":"%s","branch":"main"},' "$c" "$c"
	printf '"started_at":"2026-11-02T04:00:00Z","metrics":{"t":{"kind":"timed","unit":"us",'
	printf '"better":"lower","median":%s,"p95":%s}}}\n' "${4:-100}" "${4:-100}"
}

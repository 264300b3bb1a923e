#!/bin/sh
# A PostgreSQL 15 server of the tests' own, on loopback, in a temporary directory.
#
#   server.sh start DIR   creates DIR (which must not exist), initdb's a cluster in it, starts
#                         the server on a free loopback port and prints its URL:
#                         postgresql://benchline@127.0.0.1:PORT/postgres
#   server.sh stop DIR    stops that server (fast shutdown) and removes DIR
#   server.sh url DIR     prints the URL again
#
# Run as root (as CI is), the cluster belongs to the unprivileged user 'nobody': PostgreSQL
# refuses to run as root. Authentication is trust, on 127.0.0.1 only, no Unix socket. The
# binaries come from PG_BINDIR, else the newest /usr/lib/postgresql/*/bin, else PATH.
set -eu

die() {
	echo "pg-server: $*" >&2
	exit 2
}

bindir() {
	if [ -n "${PG_BINDIR:-}" ]; then
		echo "$PG_BINDIR"
		return
	fi
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
		echo "$d"
		return
	done
	dirname "$(command -v initdb 2>/dev/null || echo /nonexistent/initdb)"
}

BIN=$(bindir)
[ -x "$BIN/initdb" ] && [ -x "$BIN/pg_ctl" ] || die "no initdb and pg_ctl (install postgresql)"

# as_owner CMD...: runs CMD as the cluster's owner.
as_owner() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u nobody -- "$@"
	else
		"$@"
	fi
}

# A port nothing listens on now (a race with other programs is caught by the start's retry).
free_port() {
	perl -MIO::Socket::INET -e '
		my $s = IO::Socket::INET->new(LocalAddr => "127.0.0.1", LocalPort => 0,
					      Listen => 1, ReuseAddr => 1) or exit 1;
		print $s->sockport, "\n";'
}

cmd=${1:-}
dir=${2:-}
[ -n "$dir" ] || die "usage: server.sh start|stop|url DIR"

case $cmd in
start)
	[ ! -e "$dir" ] || die "'$dir' already exists"
	mkdir -p "$dir"
	chmod 755 "$dir"
	[ "$(id -u)" = 0 ] && chown nobody "$dir"
	as_owner "$BIN/initdb" --no-sync --auth=trust --username=benchline --encoding=UTF8 \
		--locale=C -D "$dir/data" >"$dir/initdb.log" 2>&1 ||
		{ cat "$dir/initdb.log" >&2; die "initdb failed"; }
	tries=0
	while :; do
		port=$(free_port) || die "no free port"
		if as_owner "$BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
			-o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=''
			    -c fsync=off -c synchronous_commit=off -c full_page_writes=off
			    -c max_connections=200" start >"$dir/pg_ctl.log" 2>&1; then
			break
		fi
		tries=$((tries + 1))
		[ $tries -lt 5 ] || { cat "$dir/server.log" >&2; die "cannot start the server"; }
	done
	echo "postgresql://benchline@127.0.0.1:$port/postgres" >"$dir/url"
	cat "$dir/url"
	;;
stop)
	[ -d "$dir/data" ] || die "no server in '$dir'"
	as_owner "$BIN/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
	rm -rf "$dir"
	;;
url)
	cat "$dir/url"
	;;
*)
	die "usage: server.sh start|stop|url DIR"
	;;
esac

#!/bin/sh
# `make bench DB=postgres`: the goals of issue 16 (benchline on PostgreSQL), each measured as a
# ratio against a reference taken in the same run, on a PostgreSQL 15 server this script
# starts itself (tests/pg/server.sh: a temporary cluster on loopback, fsync off) and stops at
# the end. Exits 1 when a goal is missed (every figure is printed either way), 2 when the
# bench itself cannot run.
#
#   ingest  BENCH_RECORDS native records (default 100,000) x 10 metrics in one file:
#           `benchline --db postgresql://... ingest` into a fresh database, the whole process
#           timed, against pg_insert.c, plain server-side prepared inserts of the same rows
#           over libpq (BEGIN, the rows, COMMIT, the close) into tests/bench/pg-floor.sql, the
#           keys alone: goal benchline's rate >= 0.5 of the floor's; and against benchline's
#           SQLite ingest of the same file: goal PostgreSQL's time <= 3x SQLite's (issue 26).
#   detect  the history of run.sh's detect section (gen_history.c, BENCH_GROUPS x
#           BENCH_COMMITS records, default 1,000 x 1,000; BENCH_DETECT_DB=FILE reuses or keeps
#           it), copied with `benchline migrate --from FILE --to URL` (timed, printed), then
#           VACUUM ANALYZE; `detect --all` on both, best of BENCH_RUNS each: goal PostgreSQL
#           <= 2x SQLite, and the Suspects of both (`suspects --json`) the same.
#   gate    as run.sh's gate section: the head's records written by gen_history into a copy
#           of the history, then that copy migrated; `gate --repo REPO --head pr --base main`
#           on both, best of BENCH_RUNS: goal PostgreSQL <= 2x SQLite, and the two gate JSON
#           outputs the same (but for "unix", the second each ran at).
#   web     `benchline serve --threads 4` on the PostgreSQL copy of the demo history (migrated
#           from a file): GET /api/series with wrk -t2 -c8 for 5 s against one server, then
#           against two servers on the same database at once, wrk's load split between them
#           (one wrk -t1 -c4 per server, their rates summed): goal one server >= 5,000 req/s.
#           Two servers cannot double the rate of one on 2 cores that one server, its
#           PostgreSQL backends and wrk already fill, so what doubling stands for is measured
#           instead (issue 26): requests answered per CPU-second of the servers and their
#           backends together (user + system time from /proc/PID/stat, before and after each
#           run), goal two servers' >= 0.9 of one's: a second server on the same database costs
#           no more per request. The raw rates and the CPU left idle (/proc/stat) are printed.
#
# BENCH_RUNS (default 3), BENCH_RECORDS, BENCH_GROUPS and BENCH_COMMITS set the sizes (the
# goals are only meaningful at the defaults); BENCH_SECTIONS picks the sections (default
# "ingest detect gate web"); BENCH_KEEP=1 keeps the temporary directory (the server is
# stopped all the same). PG_BINDIR picks the PostgreSQL binaries (see tests/pg/server.sh).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$ROOT/tests/bench
BL=${BENCHLINE:-$ROOT/benchline}
RUNS=${BENCH_RUNS:-3}
RECORDS=${BENCH_RECORDS:-100000}
NGROUPS=${BENCH_GROUPS:-1000}
DETECT_COMMITS=${BENCH_COMMITS:-1000}
SECTIONS=${BENCH_SECTIONS:-ingest detect gate web}
CC=${CC:-cc}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/benchline-pgbench.XXXXXX") || exit 2
# the cluster lives beside WORK, not in it: its owner (nobody, when run as root) must reach it
PGDIR=$(mktemp -u "${TMPDIR:-/tmp}/benchline-pgbench-server.XXXXXX") || exit 2
SERVER_PIDS=
missed=0
. "$HERE/lib.sh"

cleanup() {
	for p in $SERVER_PIDS; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	[ -d "$PGDIR/data" ] && sh "$ROOT/tests/pg/server.sh" stop "$PGDIR"
	[ -n "${BENCH_KEEP:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 2' INT TERM


for tool in perl sqlite3 git psql wrk curl; do
	command -v $tool >/dev/null || die "$tool is needed"
done
[ -x "$BL" ] || die "no $BL (run make)"







# both_equal NAME NOTE LITE PG: prints whether the SQLite and PostgreSQL outputs LITE and PG
# are the same (an empty LITE is never), with NOTE; a difference is MISSED and shown.
both_equal() {
	if [ -s "$3" ] && cmp -s "$3" "$4"; then
		printf '  %-44s %8s%s\n' "$1" "equal" "${2:+   $2}"
	else
		printf '  %-44s %8s   MISSED\n' "$1" "DIFFER"
		diff "$3" "$4" | head -6 | sed 's/^/    /'
		missed=1
	fi
}

# goal NAME VALUE OP LIMIT TEXT: prints a ratio with its goal and ok/MISSED.
goal() {
	if [ -n "$2" ] && awk -v v="$2" -v l="$4" -v op="$3" \
		'BEGIN { exit !(op == "<=" ? v <= l : v >= l) }'; then
		printf '  %-44s %8.2f  (goal %s %s%s)  ok\n' "$1" "$2" "$3" "$4" "$5"
	elif [ -n "$2" ]; then
		printf '  %-44s %8.2f  (goal %s %s%s)  MISSED\n' "$1" "$2" "$3" "$4" "$5"
		missed=1
	else
		printf '  %-44s %8s  (goal %s %s%s)  MISSED\n' "$1" "failed" "$3" "$4" "$5"
		missed=1
	fi
}

# The server, and a fresh database on it by name: pgdb NAME drops and creates NAME and prints
# its URL.
# psql says no NOTICEs (DROP DATABASE IF EXISTS of one not there yet)
PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning"
export PGOPTIONS
URL=$(sh "$ROOT/tests/pg/server.sh" start "$PGDIR") || die "cannot start a PostgreSQL server"
BASE=${URL%/*}
pgdb() {
	psql -q -X -v ON_ERROR_STOP=1 "$URL" -c "DROP DATABASE IF EXISTS $1" \
		-c "CREATE DATABASE $1" >/dev/null || die "cannot create database $1"
	echo "$BASE/$1"
}
pgsql() { # URL SQL
	psql -q -X -v ON_ERROR_STOP=1 -At "$1" -c "$2"
}

echo "benchline bench DB=postgres: $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc 2>/dev/null || echo '?')" \
	"cores, $(uname -srm), $(psql -X -At "$URL" -c 'SHOW server_version' | cut -d' ' -f1)," \
	"sqlite $(sqlite3 --version | cut -d' ' -f1), best of $RUNS"
echo "  server: $URL (tests/pg/server.sh: fsync, synchronous_commit, full_page_writes off)"
echo

# --- ingest -----------------------------------------------------------------------------------
if want ingest; then
echo "ingest: $RECORDS native records x 10 metrics in one file"
perl "$HERE/gen-records.pl" --count "$RECORDS" --metrics 10 --rows "$WORK/rows.tsv" \
	>"$WORK/records.json" || die "cannot generate records"
$CC -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Werror \
	$(pkg-config --cflags-only-I libpq 2>/dev/null || echo -I/usr/include/postgresql) \
	-o "$WORK/pg_insert" "$HERE/pg_insert.c" \
	$(pkg-config --libs libpq 2>/dev/null || echo -lpq) || die "cannot build pg_insert.c"
printf '  input: %.0f MB of JSON lines\n' "$(calc "$(wc -c <"$WORK/records.json") / 1e6")"

# Rounds of one floor run, one benchline run on PostgreSQL and one on SQLite, so all see the
# same machine state; the figures are the best of each, the ratio that of the bests. The
# floor times itself from BEGIN to the close (its input parsed and its statements prepared
# before); benchline is timed as a whole process (read, parse, validate, hash, store, commit),
# into a database created just before (empty; benchline creates its schema, not timed apart).
t_floor=
t_pg=
t_lite=
r=0
while [ $r -lt "$RUNS" ]; do
	floor_url=$(pgdb bench_floor)
	psql -q -X -v ON_ERROR_STOP=1 "$floor_url" -f "$HERE/pg-floor.sql" >/dev/null ||
		die "cannot create the floor schema"
	out=$("$WORK/pg_insert" "$floor_url" "$WORK/rows.tsv") || die "pg_insert failed"
	tf=$(echo "$out" | cut -d' ' -f2)
	t_floor=$(min "$t_floor" "$tf")
	bl_url=$(pgdb bench_ingest)
	t0=$(now)
	if ! "$BL" --db "$bl_url" ingest "$WORK/records.json" >/dev/null 2>"$WORK/err"; then
		echo "  benchline ingest (PostgreSQL) FAILED:"
		head -5 "$WORK/err" | sed 's/^/    /'
		t_pg=
		missed=1
		break
	fi
	t1=$(now)
	tp=$(calc "$t1 - $t0")
	t_pg=$(min "$t_pg" "$tp")
	rm -f "$WORK/bl.db" "$WORK/bl.db-wal" "$WORK/bl.db-shm"
	t0=$(now)
	"$BL" --db "$WORK/bl.db" ingest "$WORK/records.json" >/dev/null 2>"$WORK/err" ||
		die "benchline ingest (SQLite) failed: $(head -1 "$WORK/err")"
	t1=$(now)
	tl=$(calc "$t1 - $t0")
	t_lite=$(min "$t_lite" "$tl")
	printf '  round %d: floor %.2f s, benchline on PostgreSQL %.2f s, on SQLite %.2f s\n' \
		$((r + 1)) "$tf" "$tp" "$tl"
	r=$((r + 1))
done
rate_floor=$(calc "$RECORDS / $t_floor")
printf '  %-44s %8.2f s %9.0f records/s\n' "plain prepared inserts, keys only (floor)" \
	"$t_floor" "$rate_floor"
if [ -n "$t_pg" ]; then
	stored=$(pgsql "$bl_url" "SELECT count(*) FROM runs")
	[ "$stored" = "$RECORDS" ] || { echo "  benchline stored $stored runs, not $RECORDS"; missed=1; }
	rate_pg=$(calc "$RECORDS / $t_pg")
	printf '  %-44s %8.2f s %9.0f records/s\n' "benchline ingest, PostgreSQL" "$t_pg" "$rate_pg"
	printf '  %-44s %8.2f s %9.0f records/s   (reference, no goal)\n' \
		"benchline ingest, SQLite" "$t_lite" "$(calc "$RECORDS / $t_lite")"
	goal "ratio benchline / floor (PostgreSQL)" "$(calc "$rate_pg / $rate_floor")" ">=" 0.5 ""
	goal "time PostgreSQL / SQLite (benchline ingest)" "$(calc "$t_pg / $t_lite")" "<=" 3 ""
else
	goal "ratio benchline / floor (PostgreSQL)" "" ">=" 0.5 ""
	goal "time PostgreSQL / SQLite (benchline ingest)" "" "<=" 3 ""
fi
rm -f "$WORK/records.json" "$WORK/rows.tsv" "$WORK/bl.db"*
pgsql "$URL" "DROP DATABASE bench_floor" >/dev/null
pgsql "$URL" "DROP DATABASE bench_ingest" >/dev/null
echo
fi


# migrate_to FILE NAME: copies FILE into a fresh database NAME (timed, printed), then VACUUM
# ANALYZE (timed apart, printed); sets MIGRATED to its URL.
migrate_to() {
	MIGRATED=$(pgdb "$2")
	t0=$(now)
	"$BL" migrate --from "$1" --to "$MIGRATED" >/dev/null 2>"$WORK/err" ||
		die "migrate --from $1 failed: $(tail -1 "$WORK/err")"
	t1=$(now)
	pgsql "$MIGRATED" "VACUUM ANALYZE" >/dev/null || die "VACUUM ANALYZE failed"
	t2=$(now)
	printf '  %-44s %8.2f s   (%.0f MB file; then VACUUM ANALYZE %.2f s, %s)\n' \
		"benchline migrate --from FILE --to URL" "$(calc "$t1 - $t0")" \
		"$(calc "$(wc -c <"$1") / 1e6")" "$(calc "$t2 - $t1")" \
		"$(pgsql "$MIGRATED" "SELECT pg_size_pretty(pg_database_size(current_database()))")"
}

# --- detect -----------------------------------------------------------------------------------
if want detect; then
echo "detect: $((NGROUPS * DETECT_COMMITS)) records over $NGROUPS Series"
history_db
cp "$WORK/detect.db" "$WORK/lite.db" || die "cannot copy the history"
migrate_to "$WORK/lite.db" bench_detect
PGDB=$MIGRATED
# One untimed rebuild on each first (both then hold Suspects and lines of their own), then
# --all RUNS times each, interleaved run by run.
"$BL" --db "$WORK/lite.db" detect --all >/dev/null 2>"$WORK/err" ||
	die "detect (SQLite) failed: $(head -1 "$WORK/err")"
"$BL" --db "$PGDB" detect --all >/dev/null 2>"$WORK/err" ||
	{ echo "  detect (PostgreSQL) FAILED:"; head -5 "$WORK/err" | sed 's/^/    /'; missed=1; }
t_lite=
t_pg=
r=0
while [ $r -lt "$RUNS" ]; do
	t0=$(now)
	"$BL" --db "$WORK/lite.db" detect --all >/dev/null 2>&1 || die "detect (SQLite) failed"
	t1=$(now)
	t_lite=$(min "$t_lite" "$(calc "$t1 - $t0")")
	t0=$(now)
	"$BL" --db "$PGDB" detect --all >/dev/null 2>&1 || { t_pg=; missed=1; break; }
	t1=$(now)
	t_pg=$(min "$t_pg" "$(calc "$t1 - $t0")")
	r=$((r + 1))
done
"$BL" --db "$WORK/lite.db" suspects --json >"$WORK/lite.suspects" || die "suspects (SQLite) failed"
"$BL" --db "$PGDB" suspects --json >"$WORK/pg.suspects" 2>/dev/null || missed=1
marks=$(perl -MJSON::PP -0777 -ne 'print scalar @{decode_json($_)}' "$WORK/lite.suspects")
printf '  %-44s %8.3f s   %s Suspects\n' "benchline detect --all, SQLite" "$t_lite" "$marks"
[ -n "$t_pg" ] && printf '  %-44s %8.3f s\n' "benchline detect --all, PostgreSQL" "$t_pg"
goal "ratio PostgreSQL / SQLite" "$([ -n "$t_pg" ] && calc "$t_pg / $t_lite")" "<=" 2 ""
both_equal "the Suspects of both (suspects --json)" "" "$WORK/lite.suspects" "$WORK/pg.suspects"
rm -f "$WORK/lite.db"*
pgsql "$URL" "DROP DATABASE bench_detect" >/dev/null
echo
fi

# --- gate -------------------------------------------------------------------------------------
if want gate; then
echo "gate: $NGROUPS comparisons on a $((NGROUPS * DETECT_COMMITS))-record database"
history_db
cp "$WORK/detect.db" "$WORK/gate.db" || die "cannot copy the history"
set -- $("$BL" hash --repo "$WORK/repo" pr)
"$WORK/gen_history" "$WORK/gate.db" --groups "$NGROUPS" --head "$2" "$1" --tip-samples 30 ||
	die "cannot write the head's records"
migrate_to "$WORK/gate.db" bench_gate
PGDB=$MIGRATED
gate() { # DB JSON
	"$BL" --db "$1" gate --repo "$WORK/repo" --head pr --base main --json "$2" \
		>/dev/null 2>"$WORK/err"
	[ $? -le 1 ]
}
gate "$WORK/gate.db" "$WORK/lite.gate" || die "gate (SQLite) failed: $(head -1 "$WORK/err")"
compared=$(perl -MJSON::PP -0777 -ne 'my $j = decode_json($_);
	print scalar grep { defined $_->{ratio} } @{$j->{comparisons}}' "$WORK/lite.gate" 2>/dev/null)
[ "$compared" = "$NGROUPS" ] || { echo "  SQLite's gate made $compared comparisons, not $NGROUPS"; missed=1; }
pg_ok=1
gate "$PGDB" "$WORK/pg.gate" ||
	{ echo "  gate (PostgreSQL) FAILED:"; head -5 "$WORK/err" | sed 's/^/    /'; pg_ok=; missed=1; }
t_lite=
t_pg=
r=0
while [ $r -lt "$RUNS" ]; do
	t0=$(now)
	gate "$WORK/gate.db" "$WORK/gate.out" || die "gate (SQLite) failed"
	t1=$(now)
	t_lite=$(min "$t_lite" "$(calc "$t1 - $t0")")
	if [ -n "$pg_ok" ]; then
		t0=$(now)
		gate "$PGDB" "$WORK/gate.out" || { pg_ok=; missed=1; }
		t1=$(now)
		t_pg=$(min "$t_pg" "$(calc "$t1 - $t0")")
	fi
	r=$((r + 1))
done
printf '  %-44s %8.3f s   %s comparisons\n' "benchline gate, SQLite" "$t_lite" "$compared"
[ -n "$pg_ok" ] && printf '  %-44s %8.3f s\n' "benchline gate, PostgreSQL" "$t_pg"
goal "ratio PostgreSQL / SQLite" "$([ -n "$pg_ok" ] && calc "$t_pg / $t_lite")" "<=" 2 ""
# the same but for "unix", the second the gate ran at
unstamped() {
	perl -MJSON::PP -0777 -ne 'my $j = decode_json($_); delete $j->{unix};
		print JSON::PP->new->canonical->pretty->encode($j)' "$1"
}
unstamped "$WORK/lite.gate" >"$WORK/lite.gate.cmp"
unstamped "$WORK/pg.gate" >"$WORK/pg.gate.cmp" 2>/dev/null
both_equal "the gate JSON of both" '(but "unix", the time it ran)' "$WORK/lite.gate.cmp" \
	"$WORK/pg.gate.cmp"
rm -f "$WORK/gate.db"*
pgsql "$URL" "DROP DATABASE bench_gate" >/dev/null
echo
fi

# --- web --------------------------------------------------------------------------------------
if want web; then
echo "web: GET /api/series on the demo history, one server and two on one database"
"$BL" --db "$WORK/demo.db" demo >/dev/null 2>"$WORK/err" ||
	die "demo failed: $(head -1 "$WORK/err")"
migrate_to "$WORK/demo.db" bench_web
PGDB=$MIGRATED
# serve N: starts server N on the database; sets SERVED to its URL.
serve() {
	"$BL" --db "$PGDB" serve --port 0 --threads 4 >"$WORK/serve$1.out" 2>"$WORK/serve$1.err" &
	SERVER_PIDS="$SERVER_PIDS $!"
	i=0
	until grep -q serving "$WORK/serve$1.out" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 100 ] || { cat "$WORK/serve$1.err" >&2; die "server $1 did not start"; }
		sleep 0.1
	done
	SERVED=$(sed -n 's/.* at \(http[^ ]*\)\/ .*/\1/p' "$WORK/serve$1.out")
	curl -sf "$SERVED/api/series" >/dev/null || die "server $1 does not answer /api/series"
}
# rps FILE: wrk's requests/s; non-2xx answers make it 0.
rps() {
	if grep -q 'Non-2xx or 3xx' "$1"; then
		echo 0
	else
		sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p' "$1"
	fi
}
# cpu_ticks: the machine's busy and idle (with iowait) CPU ticks so far, from /proc/stat.
cpu_ticks() {
	awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' /proc/stat 2>/dev/null
}
# requests FILE: how many requests wrk counted answered (0 when some were not 2xx).
requests() {
	if grep -q 'Non-2xx or 3xx' "$1"; then
		echo 0
	else
		sed -n 's/^ *\([0-9][0-9]*\) requests in .*/\1/p' "$1"
	fi
}
# The servers' PostgreSQL backends: every connection to the web's database but psql's own.
backends() {
	pgsql "$URL" "SELECT pid FROM pg_stat_activity WHERE datname = '${PGDB##*/}'
		AND pid <> pg_backend_pid()" | tr '\n' ' '
}
# ticks PID...: "PID TICKS" for each process still there, its user + system CPU time so far
# in clock ticks (/proc/PID/stat fields 14 and 15, counted after the command's parenthesis,
# which may hold spaces).
ticks() {
	for p in "$@"; do
		sed -n 's/^[0-9]* (.*) //p' "/proc/$p/stat" 2>/dev/null |
			awk -v p="$p" '{ print p, $12 + $13 }'
	done
}
# cpu_used BEFORE AFTER: the CPU seconds between two ticks lists; a process only in AFTER
# (a backend opened meanwhile) counts from 0, one only in BEFORE (gone) counts nothing.
cpu_used() {
	awk -v hz="$(getconf CLK_TCK)" 'FNR == NR { b[$1] = $2; next }
		{ s += $2 - (($1 in b) ? b[$1] : 0) } END { printf "%.3f", s / hz }' "$1" "$2"
}
serve 1
url1=$SERVED
pid1=${SERVER_PIDS##* }
# One server alone on the database: its CPU and that of the backends it opened.
ticks $pid1 $(backends) >"$WORK/cpu1.before"
set -- $(cpu_ticks)
wrk -t2 -c8 -d5s "$url1/api/series" >"$WORK/wrk1.txt" 2>&1
set -- "$@" $(cpu_ticks)
ticks $pid1 $(backends) >"$WORK/cpu1.after"
# How much of the machine one server leaves idle: two servers on the same cores can add no
# more than that (a machine one server saturates cannot show them scaling).
idle_one=
[ $# -eq 4 ] && idle_one=$(calc "100 * ($4 - $2) / ($3 - $1 + $4 - $2)")
one=$(rps "$WORK/wrk1.txt")
cpu_one=$(cpu_used "$WORK/cpu1.before" "$WORK/cpu1.after")
req_one=$(requests "$WORK/wrk1.txt")
serve 2
url2=$SERVED
pid2=${SERVER_PIDS##* }
ticks $pid1 $pid2 $(backends) >"$WORK/cpu2.before"
wrk -t1 -c4 -d5s "$url1/api/series" >"$WORK/wrk2a.txt" 2>&1 &
wa=$!
wrk -t1 -c4 -d5s "$url2/api/series" >"$WORK/wrk2b.txt" 2>&1 &
wb=$!
wait $wa $wb
ticks $pid1 $pid2 $(backends) >"$WORK/cpu2.after"
a=$(rps "$WORK/wrk2a.txt")
b=$(rps "$WORK/wrk2b.txt")
two=$(calc "${a:-0} + ${b:-0}")
cpu_two=$(cpu_used "$WORK/cpu2.before" "$WORK/cpu2.after")
req_two=$(calc "$(requests "$WORK/wrk2a.txt") + $(requests "$WORK/wrk2b.txt")")
per_one=$(calc "${req_one:-0} / ($cpu_one > 0 ? $cpu_one : 1)")
per_two=$(calc "${req_two:-0} / ($cpu_two > 0 ? $cpu_two : 1)")
printf '  %-44s %8.0f req/s   (the CPU %s%% idle meanwhile)\n' "one server (wrk -t2 -c8)" \
	"${one:-0}" "$([ -n "$idle_one" ] && printf '%.0f' "$idle_one" || echo ?)"
printf '  %-44s %8.0f req/s   (%.0f + %.0f)\n' "two servers (wrk -t1 -c4 each, at once)" "$two" \
	"${a:-0}" "${b:-0}"
printf '  %-44s %8.0f req/CPU-s   (%s requests, %s CPU-s of the server and its backends)\n' \
	"one server, per CPU-second" "$per_one" "${req_one:-0}" "$cpu_one"
printf '  %-44s %8.0f req/CPU-s   (%s requests, %s CPU-s of both and their backends)\n' \
	"two servers, per CPU-second" "$per_two" "$req_two" "$cpu_two"
goal "one server, thousands of req/s" "$(calc "${one:-0} / 1000")" ">=" 5 ": 5,000 req/s"
goal "per CPU-second, two servers / one" "$([ "$per_one" != 0 ] && calc "$per_two / $per_one")" \
	">=" 0.9 ""
echo
fi

if [ $missed = 0 ]; then
	echo "every goal measured is met"
else
	echo "a goal is MISSED (or its command failed)"
fi
exit $missed

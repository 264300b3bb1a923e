# A small TAP library for benchline's end-to-end tests, after git's test-lib.
#
#   . "$(dirname "$0")/lib.sh"
#   test_expect 'what it checks' '
#       bl ingest good.json &&
#       test "$(bl records --json | jq length)" = 1
#   '
#   test_done
#
# Each test file runs in a fresh temporary directory (removed at the end unless
# BENCHLINE_KEEP_TMP is set), with BENCHLINE_DB pointing at ./bench.db there.
# $BENCHLINE names the binary under test (the Makefile sets it; default ../../benchline).
#
# With BENCHLINE_TEST_PG set to a PostgreSQL server's URL (make check DB=postgres starts one:
# tests/pg/server.sh), every database a test names is a database on that server instead:
# BENCHLINE_DB, each `bl --db FILE` and each `db_sql FILE` name one made for FILE's path
# (db_url), dropped at the end. Tests that look at a database go through db_sql, db_rm and
# db_dump, never sqlite3 on the file; a test of something only SQLite has (its file, its WAL)
# says so with pg_skip.

set -u
TESTS_DIR=$(cd "$(dirname "$0")/.." && pwd)
ROOT=$(cd "$TESTS_DIR/.." && pwd)
FIXTURES=$ROOT/fixtures
: "${BENCHLINE:=$ROOT/benchline}"
export BENCHLINE
TMP=$(mktemp -d "${TMPDIR:-/tmp}/benchline-test.XXXXXX")
export BENCHLINE_DB="$TMP/bench.db"

# pg_mode: whether the databases are PostgreSQL's (BENCHLINE_TEST_PG).
pg_mode() {
	[ -n "${BENCHLINE_TEST_PG:-}" ]
}

# db_url PATH: the database PATH names in this mode: PATH itself, or (PostgreSQL) the URL of a
# database of its own on the test server, made the first time it is named. A URL stays as it is.
db_url() {
	case $1 in
	postgres://* | postgresql://*)
		echo "$1"
		return
		;;
	esac
	if ! pg_mode; then
		echo "$1"
		return
	fi
	case $1 in
	/*) abs=$1 ;;
	*) abs=$PWD/$1 ;;
	esac
	# one database per file, however the path is spelt (../x.db from a subdirectory, x.db)
	dir=$(cd "$(dirname "$abs")" 2>/dev/null && pwd -P) && abs=$dir/$(basename "$abs")
	name=bl_$(printf '%s' "$abs" | md5sum | cut -c1-24)
	if ! grep -qx "$name" "$TMP/.pg-dbs" 2>/dev/null; then
		psql -X -q -v ON_ERROR_STOP=1 "$BENCHLINE_TEST_PG" -c "CREATE DATABASE $name" \
			>/dev/null 2>&1 || psql -X -q "$BENCHLINE_TEST_PG" -c "SELECT 1" >/dev/null
		echo "$name" >>"$TMP/.pg-dbs"
	fi
	echo "${BENCHLINE_TEST_PG%/*}/$name"
}

# db_sql PATH [SQL]: runs SQL (else standard input) on the database PATH names and prints the
# rows as sqlite3 does (columns joined by |, NULL as nothing; PostgreSQL's booleans are t/f).
# The SQL must mean the same in both dialects.
db_sql() {
	if [ $# -ge 2 ]; then
		if pg_mode; then
			psql -X -q -A -t -F '|' -v ON_ERROR_STOP=1 "$(db_url "$1")" -c "$2"
		else
			sqlite3 "$1" "$2"
		fi
	elif pg_mode; then
		psql -X -q -A -t -F '|' -v ON_ERROR_STOP=1 "$(db_url "$1")"
	else
		sqlite3 "$1"
	fi
}

# db_rm PATH: the database PATH names is gone (its file, or its tables), as before it was made.
db_rm() {
	if pg_mode; then
		psql -X -q "$(db_url "$1")" -c "DROP SCHEMA public CASCADE; CREATE SCHEMA public" \
			>/dev/null 2>&1
	else
		rm -f "$1" "$1-wal" "$1-shm"
	fi
}

# pg_skip WHY: in PostgreSQL mode, prints a TAP skip for what follows and ends the file.
pg_skip() {
	if pg_mode; then
		echo "1..0 # SKIP $1"
		exit 0
	fi
}

# bl_db_args ARGS...: ARGS with every --db FILE made db_url FILE, one per line (for "$@").
bl_db_args() {
	next=
	for a in "$@"; do
		if [ -n "$next" ]; then
			db_url "$a"
			next=
			continue
		fi
		case $a in
		--db) next=1 ;;
		--db=*) a="--db=$(db_url "${a#--db=}")" ;;
		esac
		printf '%s\n' "$a"
	done
}
if pg_mode; then
	BENCHLINE_DB=$(cd "$TMP" && db_url "$TMP/bench.db")
	export BENCHLINE_DB
fi
# A server named in the environment would take the records away from the test's database.
unset BENCHLINE_SERVER BENCHLINE_TOKEN_FILE XDG_STATE_HOME
export GIT_AUTHOR_NAME=tester GIT_AUTHOR_EMAIL=tester@example.com
export GIT_COMMITTER_NAME=tester GIT_COMMITTER_EMAIL=tester@example.com
export GIT_CONFIG_NOSYSTEM=1 HOME="$TMP"
git config --global init.defaultBranch main 2>/dev/null
cd "$TMP" || exit 1

# Whatever a test file writes to stderr outside its tests (each test's own goes into its
# output) is kept in $TMP/.stderr, and test_done fails the file on it: a passing suite prints
# nothing but its TAP. (A poll grepping a file not made yet printed "grep: lock.out: No such
# file or directory" in every passing run.) The real stderr stays on fd 8, where cleanup shows
# what a file that never reached test_done left there.
exec 8>&2 2>"$TMP/.stderr"

test_count=0
test_failed=0

# pg_statements DIR: the PostgreSQL text of every named statement, the text the binary carries
# (store/embed-sql.sh: sql/pg/'s override, else the one derived from sql/), in DIR/X.sql for
# each statement file sql/X.sql.
pg_statements() {
	sh "$ROOT/store/embed-sql.sh" --pg-dir "$1" "$ROOT"/sql/*.sql -- "$ROOT"/sql/pg/*.sql
}

# pg_test_server: sets PG to a PostgreSQL server's URL for a test about PostgreSQL itself
# (migrate, several servers): the suite's (BENCHLINE_TEST_PG), else one started for this file
# (tests/pg/server.sh) and stopped by cleanup.
PG_OWN_DIR=
pg_test_server() {
	if pg_mode; then
		PG=$BENCHLINE_TEST_PG
		return 0
	fi
	PG_OWN_DIR=$(mktemp -u "${TMPDIR:-/tmp}/benchline-test-pg.XXXXXX")
	PG=$(sh "$ROOT/tests/pg/server.sh" start "$PG_OWN_DIR")
}

cleanup() {
	[ -z "$PG_OWN_DIR" ] || sh "$ROOT/tests/pg/server.sh" stop "$PG_OWN_DIR"
	if pg_mode && [ -f "$TMP/.pg-dbs" ] && [ -z "${BENCHLINE_KEEP_TMP:-}" ]; then
		while read -r name; do
			psql -X -q "$BENCHLINE_TEST_PG" -c "DROP DATABASE IF EXISTS $name WITH (FORCE)" \
				>/dev/null 2>&1
		done <"$TMP/.pg-dbs"
	fi
	if [ -s "$TMP/.stderr" ]; then cat "$TMP/.stderr" >&8; fi
	[ -n "${BENCHLINE_KEEP_TMP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT

# bl_exec ARGS...: becomes the binary under test, every --db FILE naming the mode's database
# (db_url); for a background process whose pid is the binary's: `bl_exec serve ... &`.
bl_exec() {
	case "$*" in
	*--db*)
		if pg_mode; then
			# one argument a line: an argument holding a newline would be split
			IFS='
'
			set -f
			# shellcheck disable=SC2046
			set -- $(bl_db_args "$@")
		fi
		;;
	esac
	exec "$BENCHLINE" "$@"
}

# bl ARGS...: runs the binary under test, as bl_exec.
bl() {
	(bl_exec "$@")
}

# test_expect DESCRIPTION SCRIPT: one TAP test; the script's exit status decides it.
test_expect() {
	test_count=$((test_count + 1))
	out=$(eval "$2" 2>&1)
	status=$?
	if [ $status -eq 0 ]; then
		echo "ok $test_count - $1"
	else
		test_failed=$((test_failed + 1))
		echo "not ok $test_count - $1"
		printf '%s\n' "$out" | sed 's/^/#   /'
	fi
}

# expect_exit CODE CMD...: runs CMD and fails unless it exits with CODE.
expect_exit() {
	want=$1
	shift
	"$@"
	got=$?
	if [ "$got" != "$want" ]; then
		echo "expected exit $want, got $got from: $*" >&2
		return 1
	fi
	return 0
}

# json_get JSON-FILE-OR-- EXPR: evaluates a Perl expression on the decoded JSON ($j).
# Perl's JSON::PP ships with perl, so the tests need no jq.
json_get() {
	perl -MJSON::PP -e '
		local $/; my $t = $ARGV[0] eq "-" ? <STDIN> : do { open my $f, "<", $ARGV[0] or die; <$f> };
		my $j = JSON::PP->new->allow_nonref->decode($t);
		my $v = eval $ARGV[1]; die $@ if $@;
		print ref($v) ? JSON::PP->new->canonical->encode($v) : (defined $v ? $v : "null"), "\n";
	' "$1" "$2"
}

# test_cmp EXPECT ACTUAL: fails with a unified diff unless the two files are the same.
test_cmp() {
	diff -u "$1" "$2"
}

# db_dump [PATH]: the database's content as text, for before/after comparisons. PostgreSQL's
# leaves out what differs between two dumps of the same rows: pg_dump's \restrict key (new at
# every dump) and the sequences' positions (a rolled-back insert still moves them, where
# SQLite's rollback gives the ids back); its INSERTs name the tables as SQLite's do.
db_dump() {
	if pg_mode; then
		pg_dump --no-owner --data-only --inserts "$(db_url "${1:-$BENCHLINE_DB}")" |
			sed '/^\\\(un\)\{0,1\}restrict /d; /^SELECT pg_catalog\.setval(/d;
				s/^INSERT INTO public\./INSERT INTO /'
	else
		sqlite3 "${1:-$BENCHLINE_DB}" .dump
	fi
}

# db_cp FROM TO: TO becomes a copy of the database FROM names (a file copied, or a database
# made from FROM as its template).
db_cp() {
	if pg_mode; then
		from=$(db_url "$1") && to=$(db_url "$2") &&
			psql -X -q -v ON_ERROR_STOP=1 "$BENCHLINE_TEST_PG" \
				-c "DROP DATABASE ${to##*/} WITH (FORCE)" \
				-c "CREATE DATABASE ${to##*/} TEMPLATE ${from##*/}"
	else
		cp "$1" "$2"
	fi
}

# db_tables PATH: how many tables the database PATH names holds (0 for no file).
db_tables() {
	if pg_mode; then
		db_sql "$1" "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'"
	elif [ -e "$1" ]; then
		sqlite3 "$1" "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
	else
		echo 0
	fi
}

# db_absent PATH: nothing was made for PATH (no file; on PostgreSQL, no table in its database).
db_absent() {
	test "$(db_tables "$1")" = 0
}

# wall_records MACHINE BENCHMARK FIRST V1 V2 ...: one native record per value, a timed wall_ms
# of that median, the i-th (from FIRST on) at commit i (40 digits, the last ones the number,
# the source hash the same) on main, committed on day i (28 days a month).
wall_records() {
	perl -e '
		my ($machine, $bench, $i, @v) = @ARGV;
		for my $v (@v) {
			my $c = sprintf("%040d", $i);
			printf(qq({"schema": 1, "machine": "%s", "benchmark": "%s", "harness_version": 1, ) .
			    qq("source": {"commit": "%s", "source_hash": "%s", "branch": "main", ) .
			    qq("committed_at": "2026-%02d-%02dT00:00:00Z"}, "started_at": "2026-%02d-%02dT01:00:00Z", ) .
			    qq("metrics": {"wall_ms": {"kind": "timed", "unit": "ms", "median": %s}}}\n),
			    $machine, $bench, $c, $c, 1 + int($i / 28), 1 + $i % 28, 1 + int($i / 28),
			    1 + $i % 28, $v);
			$i++;
		}' "$@"
}

# native_lines N [FIRST [MACHINE]]: N native records on lines of their own (about 420 bytes
# each), machine MACHINE (m1), benchmarks bFIRST.. (so no two share a key), commit c00..1,
# source hash a00..1, 8 samples each.
native_lines() {
	perl -e '
		my ($n, $i, $m) = @ARGV;
		my ($c, $s) = ("c" . "0" x 38 . "1", "a" . "0" x 38 . "1");
		for my $k ($i .. $i + $n - 1) {
			printf "{\"schema\":1,\"machine\":\"%s\",\"benchmark\":\"b%d\",\"config\":\"\",".
			  "\"harness_version\":1,\"source\":{\"commit\":\"%s\",\"source_hash\":\"%s\",".
			  "\"branch\":\"main\"},\"started_at\":\"2026-11-02T04:00:00Z\",\"metrics\":".
			  "{\"t_us\":{\"unit\":\"us\",\"median\":%.1f,\"p95\":%.1f,\"n\":8,".
			  "\"samples\":[1.5,2.25,3,4.125,5,6,7,8.5]}}}\n", $m, $k, $c, $s, 100 + $k % 7,
			  101 + $k % 7;
		}' "$1" "${2:-1}" "${3:-m1}"
}

test_done() {
	if [ -s "$TMP/.stderr" ]; then
		test_count=$((test_count + 1))
		test_failed=$((test_failed + 1))
		echo "not ok $test_count - nothing was written to stderr outside the tests"
		sed 's/^/#   /' "$TMP/.stderr"
		: >"$TMP/.stderr"
	fi
	echo "1..$test_count"
	[ $test_failed -eq 0 ]
}

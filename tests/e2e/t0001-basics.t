#!/bin/sh
# The command table: help, --version, usage errors, the database option.
. "$(dirname "$0")/lib.sh"

test_expect 'help lists every command' '
	bl help >out &&
	for c in init ingest records series hash paths sync demo preflight; do
		grep -q "^    $c " out || { echo "missing $c"; exit 1; }
	done
'
test_expect '--help and -h print the global usage and the commands, as help does' '
	bl help >expect &&
	bl --help >actual &&
	test_cmp expect actual &&
	bl -h >actual &&
	test_cmp expect actual &&
	bl --db nowhere/x.db --help >actual &&
	test_cmp expect actual &&
	test ! -e nowhere &&
	head -1 actual >first &&
	echo "usage: benchline [--db FILE] [--lock-timeout SECONDS] [--version] COMMAND [ARGS]" >want &&
	test_cmp want first
'
test_expect '--version names the version' '
	bl --version | grep -q "^benchline [0-9]"
'
test_expect 'COMMAND --help prints usage and exits 0 without a database' '
	bl --db nowhere/x.db records --help >out &&
	grep -q "^usage: benchline records" out &&
	test ! -e nowhere
'
test_expect 'an unknown option exits 2 with one message and the usage' '
	expect_exit 2 bl records --bogus 2>err &&
	head -1 err | grep -q "^benchline: unknown option .--bogus.$" &&
	grep -q "^usage: benchline records" err
'
test_expect 'an unknown command exits 2' '
	expect_exit 2 bl frobnicate 2>err &&
	grep -q "not a benchline command" err
'
# sqlite_only DESCRIPTION SCRIPT: test_expect on SQLite; a TAP skip on PostgreSQL, where what
# it checks (a file) has no meaning.
sqlite_only() {
	if pg_mode; then
		test_count=$((test_count + 1))
		echo "ok $test_count - $1 # skip a SQLite file's check"
	else
		test_expect "$@"
	fi
}

# schema_version DB: the migrations applied to the database DB names.
schema_version() {
	if pg_mode; then
		db_sql "$1" "SELECT max(version) FROM benchline_schema"
	else
		sqlite3 "$1" "PRAGMA user_version"
	fi
}

test_expect 'a missing database is an error for a reading command' '
	expect_exit 2 bl --db missing.db records 2>err &&
	if pg_mode; then
		# the server has the (empty) database: it is not a benchline database
		grep -q "no benchline database at .$(db_url missing.db)." err
	else
		grep -q "no database at .missing.db." err
	fi &&
	test ! -e missing.db &&
	test "$(db_tables missing.db)" = 0
'
test_expect 'init creates the database at --db, then $BENCHLINE_DB' '
	bl --db one.db init &&
	BENCHLINE_DB=$(db_url two.db) bl init &&
	test "$(schema_version one.db)" -ge 1 &&
	test "$(schema_version two.db)" -ge 1 &&
	if pg_mode; then
		test ! -e one.db && test ! -e two.db
	else
		test -f one.db && test -f two.db &&
		test "$(sqlite3 one.db "PRAGMA journal_mode")" = wal
	fi
'
test_expect 'the default database is ./benchline.db' '
	mkdir d && (cd d && unset BENCHLINE_DB && bl init) && test -f d/benchline.db
'
sqlite_only 'init refuses a file that is not a database' '
	echo "hello" >not.db &&
	expect_exit 2 bl --db not.db init 2>err &&
	grep -q "not.db" err
'
test_done

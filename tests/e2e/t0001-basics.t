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
	echo "usage: benchline [--db FILE] [--version] COMMAND [ARGS]" >want &&
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
test_expect 'a missing database is an error for a reading command' '
	expect_exit 2 bl --db missing.db records 2>err &&
	grep -q "no database at .missing.db." err &&
	test ! -e missing.db
'
test_expect 'init creates the database at --db, then $BENCHLINE_DB' '
	bl --db one.db init && test -f one.db &&
	BENCHLINE_DB=two.db bl init && test -f two.db &&
	test "$(sqlite3 one.db "PRAGMA user_version")" -ge 1 &&
	test "$(sqlite3 one.db "PRAGMA journal_mode")" = wal
'
test_expect 'the default database is ./benchline.db' '
	mkdir d && (cd d && unset BENCHLINE_DB && bl init) && test -f d/benchline.db
'
test_expect 'init refuses a file that is not a database' '
	echo "hello" >not.db &&
	expect_exit 2 bl --db not.db init 2>err &&
	grep -q "not.db" err
'
test_done

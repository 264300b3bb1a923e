#!/bin/sh
# The write lock and ingest (issue 14): a file is read, checked and staged before the lock is
# taken, and whoever meets the lock (a push to the server, a detect, another ingest) waits
# for it and succeeds. No timing is asserted: the order is shown by what each one reports.
# A command waits at most --lock-timeout (default 300 s), saying so on stderr while it waits.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/e2e/serve-lib.sh"

printf 'secret\n' >tokens
printf 'secret\n' >token
runs() {
	db_sql "$BENCHLINE_DB" "select count(*) from runs"
}
# The PostgreSQL writers' lock: the transaction-scoped advisory lock every benchline writer
# takes on the database (store/pg.c).
PG_WRITERS_LOCK=7306033440531431246
# hold_lock: another process takes the database's write lock and keeps it until release_lock.
# It reads its commands from a FIFO, so the release is a ROLLBACK and the end of its input, not
# a signal that could arrive before it holds the lock. On SQLite that is sqlite3 in a BEGIN
# IMMEDIATE; on PostgreSQL, psql in a transaction holding the writers' advisory lock.
hold_lock() {
	rm -f ctl && mkfifo ctl || return 1
	if pg_mode; then
		psql -X -q "$BENCHLINE_DB" <ctl >/dev/null 2>&1 &
	else
		sqlite3 "$BENCHLINE_DB" <ctl >/dev/null 2>&1 &
	fi
	echo $! >holder.pid
	exec 9>ctl
	if pg_mode; then
		printf 'BEGIN;\nSELECT pg_advisory_xact_lock(%s);\n' "$PG_WRITERS_LOCK" >&9
	else
		# a busy timeout of its own: the polls below take the lock for an instant, and a
		# holder refused at once would hold nothing
		printf '.timeout 20000\nBEGIN IMMEDIATE;\nINSERT INTO meta (key, value) VALUES ('"'"'held'"'"', 1);\n' >&9
	fi
	# the lock is held once a writer is refused at once
	i=0
	while lock_free; do
		i=$((i + 1))
		[ $i -lt 300 ] || return 1
		sleep 0.1
	done
}
# lock_free: whether a writer could take the write lock at once (it takes it and lets it go).
lock_free() {
	if pg_mode; then
		test "$(db_sql "$BENCHLINE_DB" "SELECT pg_try_advisory_xact_lock($PG_WRITERS_LOCK)")" = t
	else
		sqlite3 -cmd ".timeout 0" "$BENCHLINE_DB" "BEGIN IMMEDIATE; ROLLBACK;" 2>/dev/null
	fi
}
release_lock() {
	printf 'ROLLBACK;\n' >&9
	exec 9>&-
	wait "$(cat holder.pid)" 2>/dev/null
	return 0
}

bl init >/dev/null || exit 1
native_lines 3000 >big.jsonl
{ native_lines 2999 1 m2; echo '{"schema": 1, "machine": "m2", "benchmark": ['; } >bad.jsonl

test_expect 'a bad file is refused while another process holds the lock: it is read first' '
	hold_lock &&
	bl ingest bad.jsonl >out 2>err; rc=$?; release_lock;
	test $rc = 2 &&
	grep -q "^benchline: bad.jsonl:3001:1: " err &&
	! grep -q locked err &&
	test "$(runs)" = 0
'

test_expect '--lock-timeout: a writer waits that long, says so while it waits, then gives up (exit 2)' '
	hold_lock || exit 1
	native_lines 3 90 m4 >few.jsonl
	bl --lock-timeout 3 ingest few.jsonl >out 2>err; rc=$?; release_lock;
	test $rc = 2 &&
	grep -q "^benchline: waiting for the write lock of .*, held by another writer ([0-9] s of at most 3; --lock-timeout)$" err &&
	grep -q "^benchline: few.jsonl: .*(another writer held it for over 3 s)$" err &&
	test ! -s out &&
	bl --lock-timeout=3 ingest few.jsonl >out &&
	test "$(wc -l <out)" = 3
'
test_expect 'a writer past the first 2 s says it is waiting, and stores once the lock is let go' '
	hold_lock || exit 1
	# big enough to be streamed: the lock is tried (store_try_begin) before it is waited for
	native_lines 3000 120 m5 >more.jsonl
	{ bl ingest more.jsonl >out 2>err; echo $? >rc; } &
	i=0
	until grep -q "^benchline: waiting for the write lock of .*(at most 300; --lock-timeout)$" err 2>/dev/null; do
		i=$((i + 1)); [ $i -le 300 ] || break; sleep 0.1
	done
	release_lock; wait
	test "$(cat rc)" = 0 &&
	grep -q "^benchline: waiting for the write lock of .*, held by another writer ([0-9]* s of at most 300; --lock-timeout)$" err &&
	test "$(wc -l <out)" = 3000
'
test_expect '--lock-timeout takes 1 to 86400 seconds' '
	for t in 0 -1 x 86401 nan; do
		expect_exit 2 bl --lock-timeout "$t" records 2>err &&
		grep -q "^benchline: --lock-timeout wants seconds, 1 to 86400, not .$t.$" err || return 1
	done &&
	expect_exit 2 bl --lock-timeout 2>err &&
	bl --help | grep -q "waits up to --lock-timeout seconds (300)"
'

serve_start srv --token-file tokens --timeout 60 || exit 1

test_expect 'pushes and a detect during a long ingest wait and succeed' '
	native_lines 20000 1 m3 >bigger.jsonl || exit 1
	{ bl ingest bigger.jsonl >out 2>err; echo $? >rc; } &
	ok=0 &&
	for k in 1 2 3; do
		native_lines 5 $((k * 10)) "m-push" >push$k.jsonl &&
		BENCHLINE_DB=none.db bl ingest --server "$URL" --token-file token push$k.jsonl \
			>push$k.out 2>push$k.err && ok=$((ok + 1))
		bl detect >detect$k.out 2>detect$k.err && ok=$((ok + 1))
	done
	wait
	test "$ok" = 6 &&
	test "$(cat rc)" = 0 &&
	! grep -l "locked\|503" push*.err detect*.err &&
	test "$(runs)" = $((3 + 3000 + 20000 + 15)) &&
	test ! -e none.db
'

serve_stop srv
test_done

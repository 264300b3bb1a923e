#!/bin/sh
# A non-regular input (a device, a pipe) is read as it streams in, up to the cap, and refused
# as soon as it cannot be what ingest reads (§13): /dev/zero was read to 1 GiB before "too
# big". No format holds a NUL byte, so the first one ends the read: the writer of a pipe of
# NUL bytes is cut off (SIGPIPE) long before it is done, for every format and with a server
# too (where the file is read before it is pushed).
. "$(dirname "$0")/lib.sh"

echo secret >token

test_expect '/dev/zero: refused at its first byte, stored nowhere' '
	expect_exit 2 bl ingest /dev/zero 2>err &&
	echo "benchline: /dev/zero:1:1: a NUL byte: not text (no format benchline reads holds one)" >expect &&
	test_cmp expect err &&
	expect_exit 2 bl ingest --format gbench /dev/zero 2>err &&
	test_cmp expect err &&
	expect_exit 2 bl ingest --server http://127.0.0.1:9 --token-file token --spool spool /dev/zero 2>err &&
	test_cmp expect err &&
	test ! -e spool
'
for fmt in auto gbench hyperfine gotest benchline; do
	test_expect "a pipe of NUL bytes (--format $fmt) is refused before its writer is done" '
		{ head -c 400000000 /dev/zero; echo $? >head.rc; } |
			{ bl ingest --format '"$fmt"' - >out 2>err; echo $? >rc; } &&
		echo 2 >expect && test_cmp expect rc &&
		test "$(cat head.rc)" != 0 &&
		{ { head -c 400000000 /dev/zero; echo $? >head.rc; } |
			{ bl ingest --format '"$fmt"' --server http://127.0.0.1:9 --token-file token \
				--spool spool - >out 2>err; echo $? >rc; }; } &&
		test_cmp expect rc &&
		test "$(cat head.rc)" != 0 &&
		test ! -e spool
	'
done
test_expect 'a NUL byte in another format is named by line and column, nothing stored' '
	native_lines 1 >one.jsonl && bl ingest one.jsonl >out &&
	printf "{\n  \"x\000 \"}\n" >nul.json &&
	expect_exit 2 bl ingest --format gbench nul.json 2>err &&
	echo "benchline: nul.json:2:5: a NUL byte: not text (no format benchline reads holds one)" >expect &&
	test_cmp expect err &&
	test "$(db_sql "$BENCHLINE_DB" "select count(*) from runs")" = 1
'
test_expect 'a NUL after good native records is still named by line and column' '
	{ native_lines 3; printf "\000"; } | { bl ingest - >out 2>err; echo $? >rc; } &&
	echo 2 >expect && test_cmp expect rc &&
	echo "benchline: -:4:1: nul byte in file" >expect &&
	test_cmp expect err
'
test_done

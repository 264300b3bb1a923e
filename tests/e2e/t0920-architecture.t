#!/bin/sh
# docs/architecture.md's table of which room includes which is the code's (tests/check-deps.pl),
# and the check notices a dependency the table does not list, rooms that form a cycle, and a
# room's .c file that its header's opening comment does not name. web/ keeps to its size limits
# (issue 27): no file over 900 lines, no function over 90 (tests/check-sizes.pl).
. "$(dirname "$0")/lib.sh"

test_expect 'the architecture table matches the includes of the tree' '
	perl "$TESTS_DIR/check-deps.pl" "$ROOT"
'
# copy DIR: the tree's sources and docs in DIR, to break on purpose.
copy() {
	rm -rf "$1" && mkdir -p "$1" &&
	(cd "$ROOT" && tar cf - --exclude=./build --exclude=./.git --exclude=./tests .) | (cd "$1" && tar xf -)
}
test_expect 'a new include the table does not list fails the check, naming both tables' '
	copy copy &&
	printf "#include \"web/web.h\"\n" >>copy/store/store.c &&
	expect_exit 1 perl "$TESTS_DIR/check-deps.pl" copy >out &&
	grep -x "store              -> web" out >actual &&
	echo "store              -> web" >expect &&
	test_cmp expect actual &&
	grep -q "^docs/architecture.md says:" out
'
test_expect 'rooms that form a cycle fail the check, which names the cycle' '
	copy cycle &&
	printf "#include \"ingest/adapters/adapters.h\"\n" >>cycle/ingest/intake.c &&
	expect_exit 1 perl "$TESTS_DIR/check-deps.pl" cycle >out &&
	grep "^cycle: " out >actual &&
	echo "cycle: ingest -> ingest/adapters -> ingest" >expect &&
	test_cmp expect actual &&
	expect_exit 1 perl "$TESTS_DIR/check-deps.pl" --print cycle >out &&
	grep -q "^cycle: ingest -> ingest/adapters -> ingest$" out &&
	copy cycle3 &&
	printf "#include \"detect/gate/gate.h\"\n" >>cycle3/ingest/repo/repo.c &&
	expect_exit 1 perl "$TESTS_DIR/check-deps.pl" cycle3 >out &&
	grep -q "^cycle: detect/gate -> ingest -> ingest/repo -> detect/gate$" out
'
test_expect 'each room'"'"'s opening comment names every .c file of the room' '
	copy comments &&
	printf "int config_extra(void);\nint config_extra(void) { return 0; }\n" \
		>comments/ingest/config/extra.c &&
	expect_exit 1 perl "$TESTS_DIR/check-deps.pl" comments >out &&
	echo "ingest/config/config.h: its opening comment does not name extra.c" >expect &&
	test_cmp expect out &&
	copy comments2 &&
	perl -0pi -e "s/\(stage\.c\)/(a stage)/" comments2/ingest/ingest.h &&
	expect_exit 1 perl "$TESTS_DIR/check-deps.pl" comments2 >out &&
	echo "ingest/ingest.h: its opening comment does not name stage.c" >expect &&
	test_cmp expect out &&
	copy comments3 &&
	printf "int cli_extra(void);\n" >comments3/cli/cmd_extra.c &&
	printf "int cli_extra(void);\n" >comments3/cli/extra.c &&
	expect_exit 1 perl "$TESTS_DIR/check-deps.pl" comments3 >out &&
	echo "cli/cli.h: its opening comment does not name extra.c" >expect &&
	test_cmp expect out
'
test_expect 'no file in web/ is over 900 lines and no function there over 90' '
	perl "$TESTS_DIR/check-sizes.pl" --max-file 900 --max-function 90 "$ROOT/web"
'
test_expect 'the size check names a file and a function over their limits' '
	mkdir -p big &&
	{
		echo "static int long_one(void)" && echo "{" &&
		i=0 && while [ $i -lt 95 ]; do echo "	(void)0;"; i=$((i + 1)); done &&
		echo "	return 0;" && echo "}" &&
		i=0 && while [ $i -lt 810 ]; do echo "/* filler */"; i=$((i + 1)); done
	} >big/a.c &&
	expect_exit 1 perl "$TESTS_DIR/check-sizes.pl" big >out &&
	printf "%s\n" "big/a.c: 909 lines (at most 900)" \
		"big/a.c:1: long_one is 99 lines (at most 90)" >expect &&
	test_cmp expect out
'
test_done

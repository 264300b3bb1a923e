#!/bin/sh
# docs/architecture.md's table of which room includes which is the code's (tests/check-deps.pl),
# and the check notices a dependency the table does not list.
. "$(dirname "$0")/lib.sh"

test_expect 'the architecture table matches the includes of the tree' '
	perl "$TESTS_DIR/check-deps.pl" "$ROOT"
'
test_expect 'a new include the table does not list fails the check, naming both tables' '
	mkdir -p copy &&
	(cd "$ROOT" && tar cf - --exclude=./build --exclude=./.git --exclude=./tests .) | (cd copy && tar xf -) &&
	printf "#include \"web/web.h\"\n" >>copy/store/store.c &&
	expect_exit 1 perl "$TESTS_DIR/check-deps.pl" copy >out &&
	grep -x "store              -> web" out >actual &&
	echo "store              -> web" >expect &&
	test_cmp expect actual &&
	grep -q "^docs/architecture.md says:" out
'
test_done

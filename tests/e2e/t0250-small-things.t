#!/bin/sh
# Small things that add up: `paths check` without benchline.json says there is nothing to
# classify; `serve` refuses a database that does not exist unless --create; `make run PORT=`.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/e2e/serve-lib.sh"

(
	set -e
	git init -q repo
	mkdir repo/src
	echo 'int main(void) { return 0; }' >repo/src/main.c
	git -C repo add -A . && git -C repo commit -q -m initial
) >setup.log 2>&1 || { cat setup.log; echo 'Bail out! cannot build the test repository'; exit 1; }

test_expect 'paths check without benchline.json: nothing to classify, exit 0' '
	bl paths check --repo repo >actual &&
	echo "nothing to classify: no benchline.json in '\''repo'\'' (every top-level path is measured)" >expect &&
	test_cmp expect actual
'

test_expect 'paths check with a benchline.json that lists no measured_paths: nothing to classify' '
	echo "{}" >repo/benchline.json &&
	bl paths check --repo repo >actual &&
	grep -q "^nothing to classify: .*benchline.json lists no measured_paths" actual &&
	rm repo/benchline.json
'

test_expect 'serve refuses a database that does not exist, and creates none' '
	expect_exit 2 bl --db missing.db serve --port 0 2>err &&
	echo "benchline: no database at '\''$(db_url missing.db)'\'' (serve --create makes an empty one)" >expect &&
	test_cmp expect err &&
	test ! -e missing.db &&
	test "$(db_tables missing.db)" = 0
'

test_expect 'serve --create makes the database and serves it' '
	BENCHLINE_DB=$(db_url "$TMP/created.db") serve_start created --create &&
	test "$(db_tables created.db)" -gt 0 &&
	if pg_mode; then test ! -e created.db; else test -f created.db; fi &&
	test "$(curl -s -o /dev/null -w "%{http_code}" "$URL/")" = 200 &&
	serve_stop created
'

test_expect 'serve serves an existing database without --create' '
	bl --db there.db init >/dev/null &&
	BENCHLINE_DB=$(db_url "$TMP/there.db") serve_start there &&
	serve_stop there
'

test_expect 'make run serves on PORT' '
	make -s -n -C "$ROOT" run PORT=9123 >run.sh 2>&1 &&
	grep -q -- "serve --bind 127.0.0.1 --port 9123\$" run.sh &&
	make -s -n -C "$ROOT" run >run.sh 2>&1 &&
	grep -q -- "serve --bind 127.0.0.1 --port 8080\$" run.sh
'
test_done

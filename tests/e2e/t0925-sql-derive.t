#!/bin/sh
# One SQL source for both dialects (docs/architecture.md, "The SQL of two dialects"):
# store/embed-sql.sh derives a statement's PostgreSQL text from its SQLite text unless sql/pg/
# overrides it. At most 60 statements are kept by hand in sql/pg/ (the migrations aside); none
# of them is what would be derived; each says why it differs; and the script refuses what
# would break that. `make check DB=postgres` runs the derived texts on a real server (t1320).
. "$(dirname "$0")/lib.sh"

EMBED=$ROOT/store/embed-sql.sh

# embed DIR: the script run on the statement files of DIR (sql/ and sql/pg/ laid out the same).
embed() {
	pg=$(ls "$1"/sql/pg/*.sql 2>/dev/null)
	sh "$EMBED" --pg-dir "$1/out" "$1"/sql/*.sql -- $pg
}

# tree DIR: DIR/sql and DIR/sql/pg, empty.
tree() {
	rm -rf "$1" && mkdir -p "$1/sql/pg"
}

test_expect 'at most 60 statements are kept by hand in sql/pg/, the migrations aside' '
	kept=$(cat "$ROOT"/sql/pg/[a-z]*.sql | grep -c "^-- name: ") &&
	all=$(cat "$ROOT"/sql/[a-z]*.sql | grep -c "^-- name: ") &&
	echo "# $kept of $all statements kept by hand in sql/pg/" >&2 &&
	test "$kept" -le 60
'

test_expect 'every statement of the tree has its PostgreSQL text, derived or kept (none kept uselessly, each kept one saying why)' '
	pg_statements pg-sql &&
	grep -h "^-- name: " "$ROOT"/sql/[a-z]*.sql | sort >expect &&
	grep -h "^-- name: " pg-sql/*.sql | sort >actual &&
	test_cmp expect actual &&
	! grep -n "?[0-9]" pg-sql/*.sql
'

test_expect 'the rewrites: parameters, INDEXED BY, CROSS JOIN with ON, IS NOT, streamed' '
	tree d &&
	cat >d/sql/q.sql <<-\EOF &&
	-- A file of statements.

	-- name: one
	-- streamed
	SELECT a.id FROM a INDEXED BY a_key
	CROSS JOIN b INDEXED BY b_key ON b.id = a.id
	CROSS JOIN c
	WHERE a.x = ?1 AND a.y IS NOT ?2 AND a.z IS NOT NULL AND a.w = ?12;

	-- name: two
	UPDATE a SET x = ?2 WHERE id = ?1;
	EOF
	embed d &&
	cat >expect <<-\EOF &&
	-- name: one
	-- streamed
	SELECT a.id FROM a
	JOIN b ON b.id = a.id
	CROSS JOIN c
	WHERE a.x = $1 AND a.y IS DISTINCT FROM $2 AND a.z IS NOT NULL AND a.w = $12;

	-- name: two
	UPDATE a SET x = $2 WHERE id = $1;

	EOF
	test_cmp expect d/out/q.sql
'

test_expect 'a parameter without its number, and two CROSS JOINs with an ON on one line, are refused' '
	tree d &&
	printf -- "-- name: one\nSELECT 1;\n\n-- name: two\nSELECT x FROM a\nWHERE id = ?;\n" >d/sql/q.sql &&
	expect_exit 1 embed d 2>err &&
	echo "embed-sql.sh: d/sql/q.sql:6 (two): a parameter without its number (write ?N)" >expect &&
	test_cmp expect err &&
	printf -- "-- name: one\nSELECT 1 FROM a CROSS JOIN b ON b.id = a.id CROSS JOIN c ON c.id = b.id;\n" \
		>d/sql/q.sql &&
	expect_exit 1 embed d 2>err &&
	echo "embed-sql.sh: d/sql/q.sql:2 (one): two CROSS JOINs on one line with an ON (one a line)" >expect &&
	test_cmp expect err
'

test_expect 'an override takes the place of the derived text' '
	tree d &&
	printf -- "-- name: one\nINSERT INTO a (x) VALUES (?1);\n" >d/sql/q.sql &&
	printf -- "-- RETURNING: the id.\n-- name: one\nINSERT INTO a (x) VALUES (\$1) RETURNING id;\n" \
		>d/sql/pg/q.sql &&
	embed d &&
	printf -- "-- name: one\nINSERT INTO a (x) VALUES (\$1) RETURNING id;\n\n" >expect &&
	test_cmp expect d/out/q.sql
'

test_expect 'an override that is what would be derived is refused, whitespace aside' '
	tree d &&
	printf -- "-- name: one\nSELECT x FROM a INDEXED BY a_key WHERE id = ?1;\n" >d/sql/q.sql &&
	printf -- "-- Why not.\n-- name: one\nSELECT x\n  FROM a WHERE id = \$1 ;\n" >d/sql/pg/q.sql &&
	expect_exit 1 embed d 2>err &&
	echo "embed-sql.sh: d/sql/pg/q.sql:2: one is what d/sql/q.sql derives: drop it from d/sql/pg/q.sql" >expect &&
	test_cmp expect err
'

test_expect 'an override without its comment, or with one of two lines, is refused' '
	tree d &&
	printf -- "-- name: one\nSELECT 1;\n" >d/sql/q.sql &&
	printf -- "-- name: one\nSELECT 2;\n" >d/sql/pg/q.sql &&
	expect_exit 1 embed d 2>err &&
	grep -q "q.sql:1: one needs one comment line right above its name" err &&
	printf -- "-- Why,\n-- at length.\n-- name: one\nSELECT 2;\n" >d/sql/pg/q.sql &&
	expect_exit 1 embed d 2>err &&
	grep -q "q.sql:3: one needs one comment line right above its name" err &&
	printf -- "-- Header.\n\n-- Catalog: two.\n-- name: one\nSELECT 2;\n" >d/sql/pg/q.sql &&
	embed d
'

test_expect 'a derived text with a word of SQLite alone is refused, naming it' '
	tree d &&
	printf -- "-- name: one\nSELECT 1;\n\n-- name: stamp\nINSERT INTO a (at)\nVALUES (julianday(\"now\"));\n" \
		>d/sql/q.sql &&
	expect_exit 1 embed d 2>err &&
	echo "embed-sql.sh: d/sql/q.sql:4: stamp uses julianday, which is SQLite'"'"'s alone: write its PostgreSQL text in sql/pg/" >expect &&
	test_cmp expect err &&
	printf -- "-- name: one\nSELECT group_concat(x, \",\") FROM a;\n" >d/sql/q.sql &&
	expect_exit 1 embed d 2>err && grep -q "one uses group_concat, " err &&
	printf -- "-- name: one\nINSERT OR IGNORE INTO a (x) VALUES (?1);\n" >d/sql/q.sql &&
	expect_exit 1 embed d 2>err && grep -q "one uses insert or, " err &&
	printf -- "-- name: one\nSELECT detect_changes(x), subtotal(x) FROM a;\n" >d/sql/q.sql &&
	embed d
'

test_expect 'an override SQLite lacks, a file of sql/pg/ without its twin, and a streamed mark there are refused' '
	tree d &&
	printf -- "-- name: one\nSELECT 1;\n" >d/sql/q.sql &&
	printf -- "-- Why.\n-- name: two\nSELECT 2;\n" >d/sql/pg/q.sql &&
	expect_exit 1 embed d 2>err &&
	grep -q "q.sql:2: two is no statement of d/sql/q.sql" err &&
	rm d/sql/pg/q.sql &&
	printf -- "-- Why.\n-- name: one\nSELECT 2;\n" >d/sql/pg/r.sql &&
	expect_exit 1 embed d 2>err &&
	grep -q "r.sql: no sql/r.sql holds the statements it overrides" err &&
	rm d/sql/pg/r.sql &&
	printf -- "-- Why.\n-- name: one\n-- streamed\nSELECT 2;\n" >d/sql/pg/q.sql &&
	expect_exit 1 embed d 2>err &&
	grep -q "q.sql:3: -- streamed belongs with one in d/sql/q.sql" err
'

test_expect 'the build fails on a useless override, so none reaches the binary' '
	rm -rf b && mkdir b &&
	(cd "$ROOT" && tar cf - sql store/embed-sql.sh) | (cd b && tar xf -) &&
	sh b/store/embed-sql.sh b/x.c b/x.h b/sql/*.sql -- b/sql/pg/*.sql &&
	grep -q "sql_text_pg\[SQL__COUNT\]" b/x.c &&
	sh b/store/embed-sql.sh --pg-dir b/out b/sql/*.sql -- b/sql/pg/*.sql &&
	sed -n "/^-- name: machine_get\$/,/;\$/p" b/out/queries.sql >derived &&
	test "$(wc -l <derived)" = 2 &&
	{ printf -- "\n-- Why not.\n"; cat derived; } >>b/sql/pg/queries.sql &&
	expect_exit 1 sh b/store/embed-sql.sh b/y.c b/y.h b/sql/*.sql -- b/sql/pg/*.sql 2>err &&
	grep -q "machine_get is what b/sql/queries.sql derives" err &&
	test ! -e b/y.c
'

test_done

#!/bin/sh
# Turns sql/NNN-name.sql migrations and the named statements of the other sql/*.sql files into
# C, so the binary carries its SQL as constants, in both dialects. Usage:
#   embed-sql.sh OUT.c OUT.h SQLFILE... -- PGFILE...
#   embed-sql.sh --pg-dir DIR SQLFILE... -- PGFILE...
# Files named NNN-name.sql are migrations (applied in the order given); every other file holds
# named statements, each starting with a "-- name: NAME" line: SQL_NAME is its id (enum
# sql_stmt, what store_stmt() takes) and sql_text[SQL_NAME] its text. A "-- streamed" line
# right after the name marks a statement whose result can be large: sql_pg_streamed[SQL_NAME]
# is 1, and store/pg.c reads it a row at a time as it comes instead of whole.
#
# The files after "--" are sql/pg/: PostgreSQL's migrations (sql_pg_migrations), and the
# statements whose PostgreSQL text differs from what is derived here. sql_text_pg[SQL_NAME] is
# the text of NAME in sql/pg/X.sql when that file overrides it, else SQLite's text of sql/X.sql
# with these rewritten:
#   ?N                         $N
#   INDEXED BY index           dropped (PostgreSQL's planner picks the index)
#   CROSS JOIN t ... ON        JOIN t ... ON, when the ON is on the CROSS JOIN's line (SQLite
#                              keeps the join order; PostgreSQL has no CROSS JOIN with ON)
#   IS NOT $N                  IS DISTINCT FROM $N
#   INSERT OR FAIL INTO        INSERT INTO (a failed statement keeps none of its rows in
#                              PostgreSQL, and every caller rolls its transaction back)
# A derived text that still holds a word of SQLite's alone (julianday, group_concat, total,
# json_each, PRAGMA, INSERT OR, sqlite_...) is an error: such a statement needs its override.
# So is an override whose text is what would be derived (whitespace aside), one SQLite lacks,
# one without a comment of a single line right above its name saying why it differs, a file
# of sql/pg/ with no file of sql/ of its name, and a "-- streamed" line in sql/pg/ (it belongs
# with the statement in sql/). --pg-dir writes, for
# each statement file, DIR/X.sql: every statement of sql/X.sql in PostgreSQL's text, the texts
# sql_text_pg holds (tests/pg/ prepares and runs them).
set -eu
pg_dir=
if [ "${1:-}" = --pg-dir ]; then
	pg_dir=$2
	shift 2
else
	out_c=$1 out_h=$2
	shift 2
fi
queries=
migrations=
pg_queries=
pg_migrations=
dialect=sqlite
for f in "$@"; do
	if [ "$f" = -- ]; then
		dialect=pg
		continue
	fi
	case $dialect/$(basename "$f") in
	sqlite/[0-9][0-9][0-9]-*.sql) migrations="$migrations $f" ;;
	sqlite/*) queries="$queries $f" ;;
	pg/[0-9][0-9][0-9]-*.sql) pg_migrations="$pg_migrations $f" ;;
	pg/*) pg_queries="$pg_queries $f" ;;
	esac
done

cstring() {
	# Each line as a C string literal piece; comments of the form "-- " kept (harmless).
	awk '{ gsub(/\\/, "\\\\"); gsub(/"/, "\\\""); printf "\t\"%s\\n\"\n", $0 }' "$1"
}

# A name given twice would make two statements one id.
dup=$(awk '/^-- name: / { print $3 }' $queries | sort | uniq -d)
if [ -n "$dup" ]; then
	echo "embed-sql.sh: statement names given twice: $dup" >&2
	exit 1
fi
if [ -n "$pg_queries" ]; then
	dup=$(awk '/^-- name: / { print $3 }' $pg_queries | sort | uniq -d)
	if [ -n "$dup" ]; then
		echo "embed-sql.sh: PostgreSQL statement names given twice: $dup" >&2
		exit 1
	fi
fi
# Each file of sql/pg/ overrides statements of the file of sql/ with its name.
for p in $pg_queries; do
	found=
	for q in $queries; do
		[ "${q##*/}" = "${p##*/}" ] && found=1
	done
	if [ -z "$found" ]; then
		echo "embed-sql.sh: $p: no sql/$(basename "$p") holds the statements it overrides" >&2
		exit 1
	fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/embed-sql.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 2' INT TERM

# The PostgreSQL text of every statement of one file of sql/ (SQL), from the file of sql/pg/
# with its name (PG, "" when there is none), written as sql/ writes them (name, streamed mark,
# text) on stdout.
derive='
function fail(msg) {
	print "embed-sql.sh: " msg >"/dev/stderr"
	failed = 1
	exit 1
}
# A text as compared: whitespace runs made one space, none beside ( ) , ;
function norm(s) {
	gsub(/[ \t\n]+/, " ", s)
	gsub(/ ?\( ?/, "(", s)
	gsub(/ ?\) ?/, ")", s)
	gsub(/ ?, ?/, ",", s)
	gsub(/ ?; ?/, ";", s)
	sub(/^ /, "", s)
	sub(/ $/, "", s)
	return s
}
# One line of SQLite text in PostgreSQL: the rewrites listed in embed-sql.sh.
function derive_line(line, where,    out, n) {
	out = ""
	while (match(line, /\?[0-9]+/)) {
		out = out substr(line, 1, RSTART - 1) "$" substr(line, RSTART + 1, RLENGTH - 1)
		line = substr(line, RSTART + RLENGTH)
	}
	line = out line
	if (index(line, "?"))
		fail(where ": a parameter without its number (write ?N)")
	gsub(/ INDEXED BY [A-Za-z_][A-Za-z0-9_]*/, "", line)
	if (line ~ /CROSS JOIN/ && line ~ / ON /) {
		n = gsub(/CROSS JOIN/, "JOIN", line)
		if (n > 1)
			fail(where ": two CROSS JOINs on one line with an ON (one a line)")
	}
	gsub(/ IS NOT \$/, " IS DISTINCT FROM $", line)
	gsub(/INSERT OR FAIL INTO /, "INSERT INTO ", line)
	return line
}
# The first word of SQLite alone in a derived text, "" when none.
function sqlite_only(text,    words, n, i, low, w) {
	n = split("julianday(|group_concat(|total(|json_each(|json_extract(|json_group_array(|" \
		  "strftime(|unixepoch(|ifnull(|iif(|printf(|pragma |pragma_|insert or |" \
		  "replace into|sqlite_|last_insert_rowid(|changes(|glob(|glob |indexed by",
		  words, "|")
	low = " " tolower(text)
	gsub(/[ \t\n]+/, " ", low)
	for (i = 1; i <= n; i++) {
		w = words[i]
		if (index(low, " " w) || index(low, "(" w) || index(low, "," w) || index(low, "." w))
			return w
	}
	return ""
}
BEGIN {
	if (pg != "") {
		# the overrides: name -> text, and the comment above each name
		prev2 = ""; prev = ""; lineno = 0; name = ""
		while ((getline line <pg) > 0) {
			lineno++
			if (line ~ /^-- name: /) {
				split(line, f, " ")
				name = f[3]
				over[name] = ""
				over_line[name] = lineno
				why_ok[name] = prev ~ /^-- ./ && prev2 !~ /^--/
				names_pg[++npg] = name
			} else if (name != "" && line == "-- streamed" && prev ~ /^-- name: /) {
				fail(pg ":" lineno ": -- streamed belongs with " name " in " sql)
			} else if (name != "" && line !~ /^--/) {
				over[name] = over[name] line "\n"
			}
			prev2 = prev
			prev = line
		}
		close(pg)
	}
}
/^-- name: / {
	name = $3
	order[++n] = name
	text[name] = ""
	streamed[name] = 0
	lineof[name] = FNR
	just_named = 1
	next
}
name != "" && just_named && $0 == "-- streamed" { streamed[name] = 1; next }
{ just_named = 0 }
name != "" && !/^--/ { text[name] = text[name] derive_line($0, sql ":" FNR " (" name ")") "\n" }
END {
	if (failed)
		exit 1
	for (i = 1; i <= npg; i++) {
		nm = names_pg[i]
		if (!(nm in text))
			fail(pg ":" over_line[nm] ": " nm " is no statement of " sql)
	}
	for (i = 1; i <= n; i++) {
		nm = order[i]
		body = text[nm]
		if (nm in over) {
			if (norm(over[nm]) == norm(body))
				fail(pg ":" over_line[nm] ": " nm " is what " sql \
				     " derives: drop it from " pg)
			if (!why_ok[nm])
				fail(pg ":" over_line[nm] ": " nm " needs one comment line right " \
				     "above its name saying why it differs from " sql "'"'"'s")
			body = over[nm]
		} else if ((w = sqlite_only(body)) != "") {
			sub(/[ (_]$/, "", w)
			fail(sql ":" lineof[nm] ": " nm " uses " w ", which is SQLite'"'"'s alone: " \
			     "write its PostgreSQL text in sql/pg/")
		}
		sub(/\n+$/, "\n", body)
		printf "-- name: %s\n", nm
		if (streamed[nm])
			print "-- streamed"
		printf "%s\n", body
	}
}'

mkdir "$work/pg"
for q in $queries; do
	base=${q##*/}
	pg=
	for p in $pg_queries; do
		[ "${p##*/}" = "$base" ] && pg=$p
	done
	awk -v sql="$q" -v pg="$pg" "$derive" "$q" >"$work/pg/$base"
done
resolved=
for q in $queries; do
	resolved="$resolved $work/pg/${q##*/}"
done

if [ -n "$pg_dir" ]; then
	mkdir -p "$pg_dir"
	for r in $resolved; do
		cp "$r" "$pg_dir/"
	done
	exit 0
fi

{
	echo "/* generated by store/embed-sql.sh from sql/: do not edit */"
	echo "#ifndef BENCHLINE_SQL_EMBED_H"
	echo "#define BENCHLINE_SQL_EMBED_H"
	echo "#include <stddef.h>"
	echo "struct sql_migration { const char *name; const char *text; };"
	echo "extern const struct sql_migration sql_migrations[];"
	echo "extern const size_t sql_migration_count;"
	echo "enum sql_stmt {"
	awk '/^-- name: / { printf "\tSQL_%s,\n", toupper($3) }' $queries
	printf '\tSQL__COUNT\n'
	echo "};"
	echo "extern const char *const sql_text[SQL__COUNT];"
	echo "extern const struct sql_migration sql_pg_migrations[];"
	echo "extern const size_t sql_pg_migration_count;"
	echo "extern const char *const sql_text_pg[SQL__COUNT];"
	echo "extern const unsigned char sql_pg_streamed[SQL__COUNT];"
	echo "#endif"
} >"$out_h.tmp"

# emit_migrations ARRAY PREFIX FILE...: the migrations' texts and their table.
emit_migrations() {
	array=$1 prefix=$2
	shift 2
	n=0
	for m in "$@"; do
		echo "static const char ${prefix}_$n[] ="
		cstring "$m"
		printf '\t;\n'
		n=$((n + 1))
	done
	echo "const struct sql_migration $array[] = {"
	n=0
	for m in "$@"; do
		printf '\t{"%s", %s_%d},\n' "$(basename "$m")" "$prefix" "$n"
		n=$((n + 1))
	done
	[ $n -gt 0 ] || printf '\t{0, 0},\n'
	echo "};"
	echo "const size_t ${array%s}_count = $n;"
}

# emit_texts ARRAY FILE...: the named statements' texts by their ids.
emit_texts() {
	array=$1
	shift
	echo "const char *const $array[SQL__COUNT] = {"
	[ $# -gt 0 ] || printf '\t0,\n'
	[ $# -eq 0 ] || awk '
	function flush() { if (name != "") { printf "\t[SQL_%s] =\n%s\t,\n", toupper(name), body } }
	/^-- name: / { flush(); name = $3; body = ""; next }
	name != "" && !/^--/ {
		line = $0; gsub(/\\/, "\\\\", line); gsub(/"/, "\\\"", line)
		body = body sprintf("\t\"%s\\n\"\n", line)
	}
	END { flush() }' "$@"
	echo "};"
}

# emit_streamed ARRAY FILE...: 1 for each statement whose name line is followed by
# "-- streamed".
emit_streamed() {
	array=$1
	shift
	echo "const unsigned char $array[SQL__COUNT] = {"
	[ $# -gt 0 ] || printf '\t0,\n'
	[ $# -eq 0 ] || awk '
	named != "" && /^-- streamed$/ { printf "\t[SQL_%s] = 1,\n", toupper(named) }
	{ named = "" }
	/^-- name: / { named = $3 }
	' "$@"
	echo "};"
}

{
	echo "/* generated by store/embed-sql.sh from sql/: do not edit */"
	echo "#include \"sql_embed.h\""
	emit_migrations sql_migrations migration $migrations
	emit_migrations sql_pg_migrations pg_migration $pg_migrations
	emit_texts sql_text $queries
	emit_texts sql_text_pg $resolved
	emit_streamed sql_pg_streamed $resolved
} >"$out_c.tmp"
mv "$out_h.tmp" "$out_h"
mv "$out_c.tmp" "$out_c"

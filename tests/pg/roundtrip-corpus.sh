#!/bin/sh
# A real history moved SQLite -> PostgreSQL -> SQLite (issue 16; figures in
# docs/performance.md): the asv Django history of the shared data, converted as
# tests/corpora/measure.sh converts it (only read, never copied), ingested and detected in a
# file, migrated to a PostgreSQL database and back into a new file. `records --json --all`,
# `series --json` and `suspects --json` must print byte for byte the same from all three, and
# detection on the PostgreSQL copy must find the same Suspects. Prints each step's time.
#
#   sh tests/pg/roundtrip-corpus.sh [--data DIR] [URL]
#
# Without URL a server of its own is started (tests/pg/server.sh). Exit 0 when all agree, 1
# when something differs, 2 when the corpus is missing or a step fails.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BL=${BENCHLINE:-$ROOT/build/default/benchline}
DATA=${BENCHLINE_DATA:-$ROOT/../shared/data}
if [ "${1:-}" = --data ]; then
	DATA=$2
	shift 2
fi
URL=${1:-}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/benchline-roundtrip.XXXXXX") || exit 2
PGDIR=
cleanup() {
	[ -z "$PGDIR" ] || sh "$ROOT/tests/pg/server.sh" stop "$PGDIR"
	rm -rf "$WORK"
}
trap cleanup EXIT
die() {
	echo "roundtrip: $*" >&2
	exit 2
}
now() {
	date +%s.%N
}
step() {
	what=$1
	shift
	t0=$(now)
	"$@" >"$WORK/step.out" 2>"$WORK/step.err" || { cat "$WORK/step.err" >&2; die "$what failed"; }
	printf '  %-44s %7.2f s\n' "$what" "$(awk "BEGIN { print $(now) - $t0 }")"
}

[ -f "$DATA/asv_django/gh-pages/index.json" ] || die "no asv_django in $DATA"
if [ -z "$URL" ]; then
	PGDIR=$WORK/pg
	URL=$(sh "$ROOT/tests/pg/server.sh" start "$PGDIR") || die "cannot start a server"
fi
psql -X -q "$URL" -c "DROP DATABASE IF EXISTS roundtrip WITH (FORCE)" \
	-c "CREATE DATABASE roundtrip" >/dev/null 2>&1 || die "cannot make a database"
PG=${URL%/*}/roundtrip

cd "$WORK" || exit 2
perl "$ROOT/tests/corpora/asv-django.pl" --data "$DATA" --out records.jsonl 2>convert.log ||
	die "cannot convert the corpus"
echo "asv Django: $(wc -l <records.jsonl) records"
step "ingest into a file" "$BL" --db a.db ingest records.jsonl
step "detect on the file" "$BL" --db a.db detect
step "migrate file -> PostgreSQL" "$BL" migrate --from a.db --to "$PG"
step "migrate PostgreSQL -> a new file" "$BL" migrate --from "$PG" --to b.db
differ=0
for db in a.db "$PG" b.db; do
	for c in "records --json --all" "series --json" "suspects --json"; do
		"$BL" --db "$db" $c
	done >"out.$(echo "$db" | md5sum | cut -c1-8)" 2>&1 || die "cannot read $db"
done
for f in out.*; do
	cmp -s "$f" "out.$(echo a.db | md5sum | cut -c1-8)" || { echo "  $f differs"; differ=1; }
done
printf '  %-44s %s bytes, %s\n' "records, series and suspects as JSON" \
	"$(wc -c <"out.$(echo a.db | md5sum | cut -c1-8)")" \
	"$([ $differ = 0 ] && echo "the same from all three" || echo DIFFERENT)"
step "detect --all on the file" "$BL" --db a.db detect --all
cp step.out detect.file
step "detect --all on PostgreSQL" "$BL" --db "$PG" detect --all
cmp -s step.out detect.file || { echo "  detection differs"; differ=1; }
"$BL" --db a.db suspects --json >s.file && "$BL" --db "$PG" suspects --json >s.pg &&
	cmp -s s.file s.pg || { echo "  the Suspects differ"; differ=1; }
echo "  detection: $(cat detect.file)"
exit $differ

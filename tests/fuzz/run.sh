#!/bin/sh
# `make fuzz`: builds every tests/fuzz/fuzz_*.c as a libFuzzer target with AddressSanitizer and
# UndefinedBehaviorSanitizer (clang), replays the saved crash inputs of tests/fuzz/regressions/
# (NAME-*, for target fuzz_NAME), then fuzzes each target for FUZZ_SECONDS (default 60) from
# its seeds: tests/fuzz/corpus/NAME/ and the fixtures the tests read in that format or history
# (fixtures/formats/NAME.* and NAME-*, the files of fixtures/import/NAME/), so a fixture is not
# kept twice. The seeds are copied to a temporary directory, so what the fuzzer finds does not
# flood the repository. Exits 1 when any target crashes; the
# crashing input is left in build/fuzz/NAME-crashes/ (save it under tests/fuzz/regressions/
# once fixed).
#
#   FUZZ_SECONDS=300 sh tests/fuzz/run.sh        # longer
#   FUZZ_TARGETS="native" sh tests/fuzz/run.sh   # only some targets
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
SECONDS_PER_TARGET=${FUZZ_SECONDS:-60}
CLANG=${CLANG:-clang}
OUT=build/fuzz
GEN=build/default/gen

die() {
	echo "fuzz: $*" >&2
	exit 2
}

command -v "$CLANG" >/dev/null || die "clang is needed (make deps)"
# The library includes generated SQL; make produces it.
[ -f "$GEN/sql_embed.c" ] || make -s >/dev/null || die "make failed"
[ -f "$GEN/sql_embed.c" ] || die "no $GEN/sql_embed.c after make"
mkdir -p "$OUT" || die "cannot create $OUT"

# The Makefile's include paths and libraries (libpq's headers are not in the default path).
PG_INC=$(pkg-config --cflags-only-I libpq 2>/dev/null || echo -I/usr/include/postgresql)
CFLAGS="-std=c11 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I. -I$GEN $PG_INC"
LIBS="$(pkg-config --libs sqlite3 libgit2 jansson libcurl libcrypto libpq libmicrohttpd 2>/dev/null ||
	echo -lsqlite3 -lgit2 -ljansson -lcurl -lcrypto -lpq -lmicrohttpd) -lpthread -lm"
# The same sources as the Makefile's library (make prints them).
LIB_SRC=$(make -s print-lib-src) || die "make print-lib-src failed"

# The library, compiled once (with fuzzer instrumentation but no main) into objects.
echo "fuzz: building the library with clang"
mkdir -p "$OUT/lib" || die "cannot create $OUT/lib"
objs=
for src in $LIB_SRC "$GEN/sql_embed.c"; do
	obj=$OUT/lib/$(echo "$src" | tr '/' '_' | sed 's/\.c$/.o/')
	if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ -n "$(find common ingest store detect web fixtures \
		-name '*.h' -newer "$obj" 2>/dev/null | head -1)" ]; then
		# -fsanitize=fuzzer-no-link: coverage without libFuzzer's main in every object
		$CLANG $(echo "$CFLAGS" | sed 's/-fsanitize=fuzzer,/-fsanitize=fuzzer-no-link,/') \
			-c -o "$obj" "$src" || die "cannot compile $src"
	fi
	objs="$objs $obj"
done
# An archive, so a target links only the objects it needs.
rm -f "$OUT/libbenchline-fuzz.a"
ar rcs "$OUT/libbenchline-fuzz.a" $objs || die "cannot archive the library"

failed=0
targets=
for src in tests/fuzz/fuzz_*.c; do
	name=$(basename "$src" .c)
	name=${name#fuzz_}
	if [ -n "${FUZZ_TARGETS:-}" ]; then
		case " $FUZZ_TARGETS " in *" $name "*) ;; *) continue ;; esac
	fi
	echo "fuzz: building fuzz_$name"
	$CLANG $CFLAGS -o "$OUT/fuzz_$name" "$src" "$OUT/libbenchline-fuzz.a" $LIBS || die "cannot build $src"
	targets="$targets $name"
done
[ -n "$targets" ] || die "no target to run"

for name in $targets; do
	bin=$OUT/fuzz_$name
	# 1. every saved crash input must now run cleanly
	regressions=$(ls tests/fuzz/regressions/"$name"-* 2>/dev/null)
	if [ -n "$regressions" ]; then
		echo "fuzz: replaying $(echo "$regressions" | wc -l) regression input(s) for $name"
		if ! "$bin" -runs=1 $regressions >"$OUT/$name-replay.log" 2>&1; then
			echo "fuzz: $name: a regression input crashes again:" >&2
			tail -40 "$OUT/$name-replay.log" >&2
			failed=1
			continue
		fi
	fi
	# 2. a bounded fuzzing run from a copy of the seed corpus
	work=$(mktemp -d "${TMPDIR:-/tmp}/benchline-fuzz-$name.XXXXXX") || die "mktemp failed"
	[ -d "tests/fuzz/corpus/$name" ] && cp -R "tests/fuzz/corpus/$name/." "$work/"
	for f in fixtures/formats/"$name".* fixtures/formats/"$name"-* fixtures/import/"$name"/*; do
		[ -f "$f" ] && cp "$f" "$work/fixture-${f##*/}"
	done
	crashes=$OUT/$name-crashes
	rm -rf "$crashes"
	mkdir -p "$crashes"
	echo "fuzz: running $name for ${SECONDS_PER_TARGET}s"
	"$bin" -max_total_time="$SECONDS_PER_TARGET" -artifact_prefix="$crashes/" \
		-max_len=65536 -rss_limit_mb=4096 -print_final_stats=1 "$work" >"$OUT/$name.log" 2>&1
	status=$?
	found=$(ls "$crashes" 2>/dev/null | head -1)
	if [ $status -ne 0 ] || [ -n "$found" ]; then
		echo "fuzz: $name FAILED (exit $status); input(s) in $crashes/:" >&2
		ls "$crashes" >&2
		grep -A30 -m1 'ERROR:\|runtime error\|deadly signal' "$OUT/$name.log" >&2
		failed=1
	else
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$OUT/$name.log" | tail -1)
		echo "fuzz: $name ok: ${runs:-?} runs, corpus grew to $(ls "$work" | wc -l) inputs"
	fi
	rm -rf "$work"
done
exit $failed

#!/bin/sh
# `make bench`: measures the performance budgets of SPEC §12 that exist so far, each beside a
# reference measured in the same run, and exits 1 when a budget is missed (the figures are
# printed either way). Inputs are generated into a temporary directory; nothing big is kept.
#
#   ingest  100,000 native records x 10 metrics in one file, `benchline ingest` into a fresh
#           database, against plain prepared SQLite inserts of the same rows (plain_insert.c)
#           into tests/bench/floor.sql, the floor (§12): a run row holding the record's text
#           under its digest, its key's row and a row per metric, the keys alone (no CHECKs,
#           foreign keys, triggers or secondary indexes), no parsing: budget benchline's rate
#           >= 50% of the floor's, peak memory <= 64 MB. The same program into benchline's own
#           first schema (sql/001-init.sql) is printed beside it, the reference (no budget).
#   sync    a repository of 10,000 first-parent commits, `benchline sync` on a fresh database,
#           beside `git rev-list --first-parent` and `git log --first-parent --format=%T`:
#           budget: under 10 s.
#   detect  1,000,000 records over 1,000 Series (1,000 groups x 1,000 commits of main, one
#           timed metric each), written by gen_history.c through benchline's own ingest path:
#           `benchline detect --all` (the full rebuild) from nothing stored, writing every line,
#           Suspect and alert, and again over what it stored: budget under 3 s; then one new record
#           per Series and `benchline detect` (incremental): budget under 5% of the rebuild;
#           peak memory of both: budget under 100 MB.
#   gate    the same history, belonging to a real repository of as many first-parent commits
#           (each record at its commit's real source hash; the last commit's records carry 30
#           samples), and a pull request's head one commit past main's tip with one record
#           per group (30 samples each): `benchline gate --head pr --base main`, 1,000
#           comparisons (Hodges-Lehmann on the samples, the effective limit from each
#           reference's window): budget under 200 ms for the whole command.
#   confirm the re-bench and bisection on a real repository of a tiny benchmark program: the
#           re-bench's overhead per sample beyond running the benchmark itself (`benchline
#           rebench` less both builds, against the same number of `sh -c ./bench` runs):
#           goal at most 2 ms; and bisection's probes over 32 distinct sources with one step:
#           at most the ends plus ceil(log2(32)) = 6.
#   counters a counted live gate (§9.6) on a real repository of a fixed-work benchmark (two
#           benchmarks, an A/A branch): `benchline gate --live --counters-only --no-reuse`
#           against its builds plus valgrind's own callgrind runs of the same counter commands
#           (one per side and benchmark, timed here): budget at most 1.25 x; then the same gate
#           reusing the merge base: its build and count are not paid (build_s null), budget at
#           most the head's build plus its runs plus the same slack. Skipped without valgrind.
#   push    the fleet (§10): BENCH_PUSH_FILES files (default 400) of BENCH_PUSH_RECORDS native
#           records each (default 100, 10 metrics), pushed to a local `benchline serve` over
#           loopback by 8 concurrent clients (`benchline push`, the files as they are; then
#           `benchline ingest --server`, parsed on the client first), each into a fresh
#           database; beside `benchline ingest` of the same files into a fresh database, one
#           transaction per file, by one process and by 8 at once (the server's own ingest
#           with no HTTP: the limit). Reported, no budget.
#   corpora real histories from ../shared/data (Django's asv history, github-action-benchmark's
#           own), converted and detected by tests/corpora/measure.sh: records, Series, slower
#           Suspects and live alerts per 100 records, asv's regression ranges matched
#           (reported); and their first `detect --all` against one sorted SQL scan of the same
#           values: budget at most 1.5 x (both histories summed). Skipped when the data
#           directory ($BENCHLINE_DATA, else ROOT/../shared/data) is absent.
#   import  `benchline import` of the real histories (§10): Django's published asv site (every
#           graph's points, 191,434 records) into a fresh database, beside `benchline ingest`
#           of the same points as native JSON lines (tests/corpora/asv-django.pl, not timed)
#           into a fresh database, alternated; then the second import, which stores nothing;
#           and github-action-benchmark's data.js. Peak memory of the site's import. Reported,
#           no budget in §12. Skipped without the data directory.
#
# Each figure is the best of BENCH_RUNS runs (default 3). BENCH_RECORDS and BENCH_COMMITS
# change the sizes for a quick look (the budgets are only meaningful at the defaults), as do
# BENCH_DETECT_GROUPS and BENCH_DETECT_COMMITS (default 1,000 each). BENCH_SECTIONS picks the
# sections (default "ingest stream sync detect gate confirm counters push corpora import").
# BENCH_DETECT_DB=FILE keeps the
# generated detect history in FILE and reuses it when it exists (generating it takes a few
# minutes).
# BENCH_KEEP=1 keeps the temporary directory.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$ROOT/tests/bench
BL=${BENCHLINE:-$ROOT/benchline}
RUNS=${BENCH_RUNS:-3}
RECORDS=${BENCH_RECORDS:-100000}
COMMITS=${BENCH_COMMITS:-10000}
SECTIONS=${BENCH_SECTIONS:-ingest stream sync detect gate confirm counters push corpora import}
NGROUPS=${BENCH_DETECT_GROUPS:-1000}
DETECT_COMMITS=${BENCH_DETECT_COMMITS:-1000}
CC=${CC:-cc}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/benchline-bench.XXXXXX") || exit 2
[ -n "${BENCH_KEEP:-}" ] || trap 'rm -rf "$WORK"' EXIT
missed=0
. "$HERE/lib.sh"


for tool in perl sqlite3 git; do
	command -v $tool >/dev/null || die "$tool is needed"
done
[ -x "$BL" ] || die "no $BL (run make)"

# Peak memory: GNU time when it is there, else the getrusage wrapper.
if /usr/bin/time -v true >/dev/null 2>&1; then
	rss_run() {
		/usr/bin/time -v -o "$WORK/rss" "$@" || return
		sed -n 's/.*Maximum resident set size (kbytes): *//p' "$WORK/rss" >"$WORK/rss.kib"
	}
else
	$CC -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -o "$WORK/maxrss" "$HERE/maxrss.c" ||
		die "cannot build maxrss.c"
	rss_run() {
		"$WORK/maxrss" "$@" 2>"$WORK/rss" || { cat "$WORK/rss" >&2; return 1; }
		sed -n 's/^maxrss_kib //p' "$WORK/rss" >"$WORK/rss.kib"
	}
fi







echo "benchline bench: $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc 2>/dev/null || echo '?') cores," \
	"$(uname -srm), sqlite $(sqlite3 --version | cut -d' ' -f1), best of $RUNS"
echo

# --- ingest -----------------------------------------------------------------------------------
if want ingest; then
echo "ingest: $RECORDS native records x 10 metrics in one file"
perl "$HERE/gen-records.pl" --count "$RECORDS" --metrics 10 --rows "$WORK/rows.tsv" \
	>"$WORK/records.json" || die "cannot generate records"
$CC -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Werror -o "$WORK/plain_insert" \
	"$HERE/plain_insert.c" -lsqlite3 -lm || die "cannot build plain_insert.c"
printf '  input: %.0f MB of JSON lines\n' "$(calc "$(wc -c <"$WORK/records.json") / 1e6")"

fresh_ingest_db() {
	rm -f "$WORK/bl.db" "$WORK/bl.db-wal" "$WORK/bl.db-shm"
}
fresh_ref_db() {
	rm -f "$WORK/ref.db" "$WORK/ref.db-wal" "$WORK/ref.db-shm"
	sqlite3 "$WORK/ref.db" <"$ROOT/sql/001-init.sql" || die "cannot create the reference schema"
}
fresh_floor_db() {
	rm -f "$WORK/floor.db" "$WORK/floor.db-wal" "$WORK/floor.db-shm"
	sqlite3 "$WORK/floor.db" <"$HERE/floor.sql" || die "cannot create the floor schema"
}

# Rounds of one reference run, one floor run, then one benchline run, so all see the same
# machine state; the figures are the best of each, the ratios those of the bests.
# - the reference is plain_insert.c into benchline's first schema (sql/001-init.sql, its CHECKs
#   and indexes); the floor is the same program, the same rows, into tests/bench/floor.sql, a
#   schema with only the keys: the inserts alone;
# - the reference times itself from BEGIN to the close (its input is parsed before that);
# - benchline is timed as a whole process (read, parse, validate, hash, store, commit, the
#   checkpoint at the close), under GNU time or maxrss for its peak memory.
t_ref=
t_floor=
t_bl=
rss_max=0
r=0
while [ $r -lt "$RUNS" ]; do
	fresh_ref_db
	out=$("$WORK/plain_insert" "$WORK/ref.db" "$WORK/rows.tsv") || die "plain_insert failed"
	t_ref=$(min "$t_ref" "$(echo "$out" | cut -d' ' -f2)")
	fresh_floor_db
	out_floor=$("$WORK/plain_insert" "$WORK/floor.db" "$WORK/rows.tsv") || die "plain_insert (floor) failed"
	t_floor=$(min "$t_floor" "$(echo "$out_floor" | cut -d' ' -f2)")
	fresh_ingest_db
	t0=$(now)
	if ! rss_run "$BL" --db "$WORK/bl.db" ingest "$WORK/records.json" >/dev/null 2>"$WORK/err"; then
		echo "  benchline ingest FAILED:"
		head -5 "$WORK/err" | sed 's/^/    /'
		t_bl=
		missed=1
		break
	fi
	t1=$(now)
	t_bl=$(min "$t_bl" "$(calc "$t1 - $t0")")
	rss_max=$(calc "($(cat "$WORK/rss.kib") > $rss_max) ? $(cat "$WORK/rss.kib") : $rss_max")
	printf '  round %d: reference %.2f s, floor %.2f s, benchline %.2f s\n' $((r + 1)) \
		"$(echo "$out" | cut -d' ' -f2)" "$(echo "$out_floor" | cut -d' ' -f2)" \
		"$(calc "$t1 - $t0")"
	r=$((r + 1))
done

rate_ref=$(calc "$RECORDS / $t_ref")
rate_floor=$(calc "$RECORDS / $t_floor")
printf '  %-34s %8.2f s %9.0f records/s\n' "plain prepared inserts (reference)" "$t_ref" "$rate_ref"
printf '  %-34s %8.2f s %9.0f records/s\n' "plain inserts, keys only (floor)" "$t_floor" \
	"$rate_floor"
if [ -n "$t_bl" ]; then
	stored=$(sqlite3 "$WORK/bl.db" "select count(*) from runs")
	[ "$stored" = "$RECORDS" ] || { echo "  benchline stored $stored runs, not $RECORDS"; missed=1; }
	rate_bl=$(calc "$RECORDS / $t_bl")
	ratio=$(calc "$rate_bl / $rate_ref")
	printf '  %-34s %8.2f s %9.0f records/s   peak RSS %.0f MB\n' "benchline ingest" "$t_bl" \
		"$rate_bl" "$(calc "$rss_max / 1024")"
	ratio_floor=$(calc "$rate_bl / $rate_floor")
	printf '  %-34s %8.2f  (no budget)\n' "ratio benchline / reference" "$ratio"
	verdict=ok
	[ "$(calc "($ratio_floor >= 0.50) ? 1 : 0")" = 1 ] || { verdict=MISSED; missed=1; }
	printf '  %-34s %8.2f  (budget >= 0.50)  %s\n' "ratio benchline / floor" "$ratio_floor" \
		"$verdict"
	verdict=ok
	[ "$(calc "($rss_max <= 64 * 1024) ? 1 : 0")" = 1 ] || { verdict=MISSED; missed=1; }
	printf '  %-34s %8.0f MB  (budget <= 64 MB)  %s\n' "peak RSS of benchline ingest" \
		"$(calc "$rss_max / 1024")" "$verdict"
	# the shortest write lock one file can have: benchline's rows copied by SQLite itself
	# from a staged database (bl.db) into a live one (a few runs already there)
	perl "$HERE/gen-records.pl" --count 10 --metrics 10 --prefix live >"$WORK/live.json" ||
		die "cannot generate records"
	rm -f "$WORK/live0.db"*
	"$BL" --db "$WORK/live0.db" ingest "$WORK/live.json" >/dev/null || die "cannot seed a database"
	fresh_live_db() {
		rm -f "$WORK/live.db"*
		cp "$WORK/live0.db" "$WORK/live.db"
	}
	copy_staged() {
		sqlite3 -cmd "ATTACH '$WORK/bl.db' AS s" "$WORK/live.db" <"$HERE/stage-copy.sql"
	}
	t_copy=$(best fresh_live_db copy_staged) || die "the staged copy failed"
	printf '  %-34s %8.2f s  %.2f of the floor, %.0f%% of benchline ingest\n' \
		"staged copy (INSERT ... SELECT)" "$t_copy" "$(calc "$t_copy / $t_floor")" \
		"$(calc "100 * $t_copy / $t_bl")"
fi
echo
fi

# --- stream (issue 14) -------------------------------------------------------------------------
# Memory, the write lock and the first detection, each beside its own floor in the same run:
# - peak RSS of `benchline ingest` of 1M native records (3 metrics each, about 450 MB): the
#   file is read piece by piece and staged on disk, so memory should not grow with it;
# - the write lock during a 300k-record ingest: another process tries `BEGIN IMMEDIATE` with no
#   wait every 20 ms; the share of tries refused is the share of the ingest's wall time the lock
#   was held (no budget: the file is stored while it is parsed, issue 26, so the lock is held
#   from its first chunk to its commit);
# - ingest + the first detect of a 200k-record history (200 Series x 1,000 commits, gen_history
#   exported as native lines into a database holding only main's commits) against
#   `detect --all` on the same records (detection alone).
if want stream; then
echo "stream: memory, the write lock and the first detection (issue 14)"
perl "$HERE/gen-records.pl" --count 1000000 --metrics 3 --prefix big >"$WORK/1m.json" ||
	die "cannot generate records"
rm -f "$WORK/1m.db"*
t0=$(now)
rss_run "$BL" --db "$WORK/1m.db" ingest "$WORK/1m.json" >/dev/null 2>"$WORK/err" ||
	{ echo "  ingest of 1M records FAILED"; head -3 "$WORK/err"; missed=1; }
t1=$(now)
printf '  %-46s %8.2f s   %5.0f MB file   peak RSS %.0f MB  (goal <= 64 MB)\n' \
	"benchline ingest, 1M records x 3 metrics" "$(calc "$t1 - $t0")" \
	"$(calc "$(wc -c <"$WORK/1m.json") / 1e6")" "$(calc "$(cat "$WORK/rss.kib") / 1024")"
rm -f "$WORK/1m.json" "$WORK/1m.db"*

perl "$HERE/gen-records.pl" --count 300000 --metrics 3 --prefix lock >"$WORK/300k.json" ||
	die "cannot generate records"
rm -f "$WORK/lock.db"*
"$BL" --db "$WORK/lock.db" init >/dev/null || die "cannot create a database"
t0=$(now)
"$BL" --db "$WORK/lock.db" ingest "$WORK/300k.json" >/dev/null 2>"$WORK/err" &
ingest_pid=$!
tries=0
held=0
while kill -0 "$ingest_pid" 2>/dev/null; do
	if sqlite3 -cmd ".timeout 0" "$WORK/lock.db" "BEGIN IMMEDIATE; ROLLBACK;" >/dev/null 2>&1; then
		:
	else
		held=$((held + 1))
	fi
	tries=$((tries + 1))
	sleep 0.02
done
wait "$ingest_pid" || { echo "  ingest of 300k records FAILED"; missed=1; }
t1=$(now)
printf '  %-46s %8.2f s   lock held in %d of %d tries: %.0f%% of the time (no budget)\n' \
	"benchline ingest, 300k records x 3 metrics" "$(calc "$t1 - $t0")" "$held" "$tries" \
	"$(calc "100 * $held / ($tries ? $tries : 1)")"
rm -f "$WORK/300k.json" "$WORK/lock.db"*

$CC -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -I"$ROOT" -I"$ROOT/build/default/gen" \
	-o "$WORK/gen_history" "$HERE/gen_history.c" "$ROOT/build/default/libbenchline.a" \
	$(pkg-config --libs sqlite3 libgit2 jansson libcrypto libpq 2>/dev/null || echo -lsqlite3 -lgit2 -ljansson -lcrypto -lpq) \
	-lm || die "cannot build gen_history.c"
rm -f "$WORK/h200.db"* "$WORK/first.db"*
"$WORK/gen_history" "$WORK/h200.db" --groups 200 --commits 1000 >/dev/null ||
	die "cannot generate the 200k history"
sqlite3 "$WORK/h200.db" "select raw from runs order by id" >"$WORK/h200.json"
"$BL" --db "$WORK/first.db" init >/dev/null || die "cannot create a database"
sqlite3 "$WORK/first.db" "attach '$WORK/h200.db' as h; insert into commits select * from h.commits;
	insert or replace into meta select * from h.meta where key in ('main_branch', 'synced_tip');" ||
	die "cannot copy main's commits"
t0=$(now)
"$BL" --db "$WORK/first.db" ingest "$WORK/h200.json" >/dev/null 2>"$WORK/err" &&
	"$BL" --db "$WORK/first.db" detect >/dev/null 2>>"$WORK/err" ||
	{ echo "  ingest + detect FAILED"; head -3 "$WORK/err"; missed=1; }
t1=$(now)
t_first=$(calc "$t1 - $t0")
t_alone=$(best nothing "$BL" --db "$WORK/first.db" detect --all)
# the physical floor of the first half: plain prepared inserts of 200k records' rows (3 metrics
# each, the fewest gen-records.pl writes) into the keys-only schema, no JSON parsed
perl "$HERE/gen-records.pl" --count 200000 --metrics 3 --prefix first --rows "$WORK/rows200.tsv" \
	>/dev/null || die "cannot generate records"
[ -x "$WORK/plain_insert" ] || $CC -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Werror \
	-o "$WORK/plain_insert" "$HERE/plain_insert.c" -lsqlite3 -lm || die "cannot build plain_insert.c"
rm -f "$WORK/floor200.db"*
sqlite3 "$WORK/floor200.db" <"$HERE/floor.sql" || die "cannot create the floor schema"
t_floor200=$("$WORK/plain_insert" "$WORK/floor200.db" "$WORK/rows200.tsv" | cut -d' ' -f2) ||
	die "plain_insert failed"
printf '  %-46s %8.2f s\n' "ingest + first detect, 200k records" "$t_first"
printf '  %-46s %8.2f s\n' "detect --all on them (detection alone)" "$t_alone"
printf '  %-46s %8.2f s  (%.1f x detection alone)\n' "plain inserts of 200k records (floor)" \
	"$t_floor200" "$(calc "$t_floor200 / $t_alone")"
printf '  %-46s %8.2f  (goal <= 3)\n' "ratio" "$(calc "$t_first / $t_alone")"
rm -f "$WORK/h200.db"* "$WORK/first.db"* "$WORK/h200.json" "$WORK/floor200.db"* "$WORK/rows200.tsv"
echo
fi

# --- sync -------------------------------------------------------------------------------------
if want sync; then
echo "sync: a repository of $COMMITS first-parent commits"
git init -q "$WORK/repo" || die "git init failed"
perl "$HERE/gen-repo.pl" --commits "$COMMITS" | git -C "$WORK/repo" fast-import --quiet ||
	die "cannot generate the repository"
git -C "$WORK/repo" checkout -q -f main || die "cannot check out main"
n=$(git -C "$WORK/repo" rev-list --first-parent --count HEAD)
printf '  %s commits on main, %s in all\n' "$n" "$(git -C "$WORK/repo" rev-list --all --count)"

fresh_sync_db() {
	rm -f "$WORK/sync.db" "$WORK/sync.db-wal" "$WORK/sync.db-shm"
}
t_rl=$(best nothing git -C "$WORK/repo" rev-list --first-parent HEAD)
t_log=$(best nothing git -C "$WORK/repo" log --first-parent --format=%T)
printf '  %-34s %8.3f s\n' "git rev-list --first-parent" "$t_rl"
printf '  %-34s %8.3f s\n' "git log --first-parent --format=%T" "$t_log"
if t_sync=$(best fresh_sync_db "$BL" --db "$WORK/sync.db" sync --repo "$WORK/repo"); then
	synced=$(sqlite3 "$WORK/sync.db" "select count(*) from commits")
	[ "$synced" = "$n" ] || { echo "  benchline synced $synced commits, not $n"; missed=1; }
	t_again=$(best nothing "$BL" --db "$WORK/sync.db" sync --repo "$WORK/repo")
	verdict=ok
	[ "$(calc "($t_sync < 10) ? 1 : 0")" = 1 ] || { verdict=MISSED; missed=1; }
	printf '  %-34s %8.3f s   %.1fx rev-list, %.1fx log %%T   (budget < 10 s)  %s\n' \
		"benchline sync (fresh database)" "$t_sync" "$(calc "$t_sync / $t_rl")" \
		"$(calc "$t_sync / $t_log")" "$verdict"
	printf '  %-34s %8.3f s\n' "benchline sync (nothing new)" "$t_again"
else
	echo "  benchline sync FAILED:"
	"$BL" --db "$WORK/sync.db" sync --repo "$WORK/repo" 2>&1 >/dev/null | head -5 | sed 's/^/    /'
	missed=1
fi
echo
fi


# The gate's copy of the history is taken as it is made, before detect appends to it.
history_made() {
	cp "$WORK/detect.db" "$WORK/gate.db" || die "cannot copy the history"
}

if want detect; then
echo "detect: $((NGROUPS * DETECT_COMMITS)) records over $NGROUPS Series"
history_db
# detect runs outside every repository, as a server's does: run from benchline's checkout it
# would open that unrelated repository to look for a benchline.json (libgit2's start, 7 ms a
# process, a tenth of the incremental round).
cd "$WORK" || die "cannot enter $WORK"
DB=$WORK/detect.db
stored=$(sqlite3 "$DB" "select count(*) from records")
[ "$stored" = $((NGROUPS * DETECT_COMMITS)) ] || { echo "  $stored records, not $((NGROUPS * DETECT_COMMITS))"; missed=1; }

# The floor every command pays: starting the process (dynamic libraries, libgit2).
t_start=$(best nothing "$BL" --version)
# The full rebuild: the first detect (under GNU time or maxrss, for its peak memory), then
# --all RUNS times.
rss_run "$BL" --db "$DB" detect --all >/dev/null 2>"$WORK/err" ||
	{ echo "  detect FAILED:"; head -5 "$WORK/err"; missed=1; }
rss_full=$(cat "$WORK/rss.kib")
marks=$(sqlite3 "$DB" "select count(*) from suspects")
alerts=$(sqlite3 "$DB" "select count(*) from alerts where series > 0")
lines=$(sqlite3 "$DB" "select count(*) from lines")
# The first detect, which writes every line, Suspect and alert: what detect stored removed
# before each run (not timed). Then --all again, which finds everything stored as it is.
forget_detection() {
	sqlite3 "$DB" "DELETE FROM suspects; DELETE FROM alerts; DELETE FROM line_ends;
		DELETE FROM lines; DELETE FROM meta WHERE key LIKE 'detect%';" || die "cannot reset"
}
t_first=$(best forget_detection "$BL" --db "$DB" detect --all)
t_full=$(best nothing "$BL" --db "$DB" detect --all)
# Incremental: one new commit with one record per Series (not timed), then `detect`, RUNS
# times; one more round under GNU time or maxrss for its peak memory.
append() {
	"$WORK/gen_history" "$DB" --append --groups "$NGROUPS" || die "cannot append records"
}
t_inc=
r=0
while [ $r -le "$RUNS" ]; do
	append
	t0=$(now)
	if [ $r -lt "$RUNS" ]; then
		"$BL" --db "$DB" detect --json >"$WORK/inc.json" 2>"$WORK/err"
	else
		rss_run "$BL" --db "$DB" detect --json >"$WORK/inc.json" 2>"$WORK/err"
	fi || { echo "  incremental detect FAILED:"; head -5 "$WORK/err"; missed=1; break; }
	t1=$(now)
	[ $r -lt "$RUNS" ] && t_inc=$(min "$t_inc" "$(calc "$t1 - $t0")")
	recomputed=$(sed -n 's/.*"lines_recomputed": *\([0-9]*\).*/\1/p' "$WORK/inc.json")
	[ "$recomputed" = "$NGROUPS" ] ||
		{ echo "  the incremental detect recomputed $recomputed lines, not $NGROUPS"; missed=1; }
	r=$((r + 1))
done
rss_inc=$(cat "$WORK/rss.kib")
# What the incremental runs stored is what a rebuild finds.
sqlite3 "$DB" "select run_id, metric, side, shift, center, tolerance from suspects order by id" \
	>"$WORK/inc.marks"
"$BL" --db "$DB" detect --all >/dev/null 2>&1 || missed=1
sqlite3 "$DB" "select run_id, metric, side, shift, center, tolerance from suspects order by id" |
	cmp -s - "$WORK/inc.marks" || { echo "  a rebuild disagrees with the incremental runs"; missed=1; }
printf '  %-34s %8.3f s\n' "process start (benchline --version)" "$t_start"
if [ -n "$t_first" ]; then
	verdict=ok
	[ "$(calc "($t_first < 3) ? 1 : 0")" = 1 ] || { verdict=MISSED; missed=1; }
	printf '  %-34s %8.3f s   %s lines, %s Suspects, %s alerts   (budget < 3 s)  %s\n' \
		"benchline detect --all, the first" "$t_first" "$lines" "$marks" "$alerts" "$verdict"
fi
if [ -n "$t_full" ]; then
	verdict=ok
	[ "$(calc "($t_full < 3) ? 1 : 0")" = 1 ] || { verdict=MISSED; missed=1; }
	printf '  %-34s %8.3f s   (budget < 3 s)  %s\n' \
		"benchline detect --all, again" "$t_full" "$verdict"
fi
if [ -n "$t_full" ] && [ -n "$t_inc" ]; then
	ratio=$(calc "$t_inc / $t_full")
	verdict=ok
	[ "$(calc "($ratio < 0.05) ? 1 : 0")" = 1 ] || { verdict=MISSED; missed=1; }
	printf '  %-34s %8.3f s   %.1f%% of the rebuild   (budget < 5%%)  %s\n' \
		"benchline detect, +1 record/Series" "$t_inc" "$(calc "$ratio * 100")" "$verdict"
fi
peak=$(calc "(($rss_full > $rss_inc) ? $rss_full : $rss_inc) / 1024")
verdict=ok
[ "$(calc "($peak < 100) ? 1 : 0")" = 1 ] || { verdict=MISSED; missed=1; }
printf '  %-34s %8.0f MB (rebuild %.0f MB, incremental %.0f MB)   (budget < 100 MB)  %s\n' \
	"peak memory" "$peak" "$(calc "$rss_full / 1024")" "$(calc "$rss_inc / 1024")" "$verdict"
cd "$ROOT" || die "cannot enter $ROOT"
echo
fi

if want gate; then
echo "gate: $NGROUPS comparisons on a $((NGROUPS * DETECT_COMMITS))-record database"
history_db
set -- $("$BL" hash --repo "$WORK/repo" pr)
"$WORK/gen_history" "$WORK/gate.db" --groups "$NGROUPS" --head "$2" "$1" --tip-samples 30 ||
	die "cannot write the head's records"
"$BL" --db "$WORK/gate.db" gate --repo "$WORK/repo" --head pr --base main \
	--json "$WORK/gate.json" >/dev/null 2>"$WORK/err"
rc=$?
compared=$(perl -MJSON::PP -0777 -ne 'my $j = decode_json($_);
	print scalar grep { defined $_->{ratio} } @{$j->{comparisons}}' "$WORK/gate.json" 2>/dev/null)
samples=$(perl -MJSON::PP -0777 -ne 'my $j = decode_json($_);
	print scalar grep { ($_->{method} // "") eq "hodges-lehmann" } @{$j->{comparisons}}' \
	"$WORK/gate.json" 2>/dev/null)
if [ $rc -gt 1 ] || [ "$compared" != "$NGROUPS" ]; then
	echo "  gate FAILED (exit $rc, $compared comparisons):"
	head -5 "$WORK/err"
	missed=1
else
	t_start=$(best nothing "$BL" --version)
	t_gate=$(best nothing "$BL" --db "$WORK/gate.db" gate --repo "$WORK/repo" --head pr \
		--base main)
	verdict=ok
	[ "$(calc "($t_gate < 0.2) ? 1 : 0")" = 1 ] || { verdict=MISSED; missed=1; }
	printf '  %-34s %8.3f s\n' "process start (benchline --version)" "$t_start"
	printf '  %-34s %8.3f s   %s comparisons, %s on samples   (budget < 200 ms)  %s\n' \
		"benchline gate" "$t_gate" "$compared" "$samples" "$verdict"
fi
echo
fi

# --- confirm ----------------------------------------------------------------------------------
if want confirm; then
echo "confirm: re-bench overhead and bisection probes on a real repository"
crepo=$WORK/confirm-repo
(
	set -e
	git init -q -b main "$crepo"
	cd "$crepo"
	git config user.email bench@example.com
	git config user.name bench
	cat >bench.c <<'EOC'
#include <stdio.h>
#ifndef SLOW
#define SLOW 0
#endif
int main(void)
{
	printf("{\"loop\": {\"latency\": {\"value\": %d}}}\n", SLOW ? 1150 : 1000);
	return 0;
}
EOC
	printf 'bench\nbenchline.json\n' >.gitignore
	git add . && git commit -q -m base
	i=1
	while [ $i -le 32 ]; do
		echo "/* $i */" >>bench.c
		[ $i = 20 ] && sed -i 's/^#define SLOW 0$/#define SLOW 1/' bench.c
		git commit -q -am "change $i"
		i=$((i + 1))
	done
) >"$WORK/confirm-setup.log" 2>&1 || die "cannot make the confirm repository"
printf '{"bench": {"build": "cc -O2 -o bench bench.c", "run": "./bench", "processes": 1%s}}\n' \
	"" >"$crepo/benchline.json"
# Overhead: two sources with the same figures, so every metric settles as it would.
t0=$(now)
"$BL" rebench --repo "$crepo" --json HEAD~1 HEAD >"$WORK/rebench.json" 2>"$WORK/rebench.err"
rc=$?
t1=$(now)
if [ $rc -gt 1 ]; then
	echo "  rebench FAILED (exit $rc):"
	head -5 "$WORK/rebench.err"
	missed=1
else
	set -- $(perl -MJSON::PP -0777 -ne 'my $j = decode_json($_);
		print "$j->{pairs} $j->{a}{build_s} $j->{b}{build_s}"' "$WORK/rebench.json")
	pairs=$1 builds=$(calc "$2 + $3")
	samples=$((2 * pairs))
	( cd "$WORK/confirm-repo/.benchline/worktrees/a" && t0=$(now) && i=0 &&
		while [ $i -lt $samples ]; do sh -c ./bench >/dev/null; i=$((i + 1)); done &&
		t1=$(now) && calc "$t1 - $t0" ) >"$WORK/floor" || die "cannot time the floor"
	floor=$(cat "$WORK/floor")
	total=$(calc "$t1 - $t0")
	per=$(calc "($total - $builds - $floor) / $samples * 1000")
	verdict=ok
	[ "$(calc "($per <= 2) ? 1 : 0")" = 1 ] || { verdict=MISSED; missed=1; }
	printf '  %-34s %8.3f s   %s samples, builds %.3f s, %s x sh -c ./bench %.3f s\n' \
		"benchline rebench" "$total" "$samples" "$builds" "$samples" "$floor"
	printf '  %-34s %8.2f ms   (goal <= 2 ms)  %s\n' "overhead per sample" "$per" "$verdict"
fi
# Bisection: only the step's binary differs, so the other probes need no measuring.
printf '{"bench": {"build": "cc -O2 -o bench bench.c", "run": "./bench", "processes": 1, %s}}\n' \
	'"artifacts": ["bench"]' >"$crepo/benchline.json"
"$BL" bisect --repo "$crepo" --good HEAD~32 --bad HEAD --benchmark loop --json \
	>"$WORK/bisect.json" 2>"$WORK/bisect.err"
rc=$?
set -- $(perl -MJSON::PP -0777 -ne 'my $j = decode_json($_);
	print "$j->{outcome} ", scalar @{$j->{probes}}, " $j->{candidates}"' "$WORK/bisect.json" \
	2>/dev/null)
want_commit=$(git -C "$crepo" rev-parse HEAD~12)
got=$(perl -MJSON::PP -0777 -ne 'my $j = decode_json($_); print $j->{pinned}{commit} // ""' \
	"$WORK/bisect.json" 2>/dev/null)
bound=$(awk -v n="${3:-1}" 'BEGIN { b = 0; while (2 ^ b < n) b++; print b + 1 }')
if [ $rc != 0 ] || [ "$got" != "$want_commit" ]; then
	echo "  bisect FAILED (exit $rc, pinned '$got', want $want_commit):"
	head -5 "$WORK/bisect.err"
	missed=1
else
	verdict=ok
	[ "$2" -le "$bound" ] || { verdict=MISSED; missed=1; }
	printf '  %-34s %8s     %s probes over %s distinct sources (at most %s)  %s\n' \
		"benchline bisect" "$1" "$2" "$3" "$bound" "$verdict"
fi
echo
fi

# --- counters ---------------------------------------------------------------------------------
if want counters && command -v valgrind >/dev/null; then
echo "counters: a counted live gate against its builds and valgrind's own runs"
krepo=$WORK/counters-repo
(
	set -e
	git init -q -b main "$krepo"
	cd "$krepo"
	git config user.email bench@example.com
	git config user.name bench
	cat >bench.c <<'EOC'
#include <stdio.h>
#include <string.h>
__attribute__((noinline)) static unsigned long work(unsigned long n, unsigned long k)
{
	volatile unsigned long s = k;
	for (unsigned long i = 0; i < n; i++)
		s += i ^ (s >> 3);
	return s;
}
int main(int argc, char **argv)
{
	const char *only = argc > 2 ? argv[2] : NULL;
	printf("{");
	if (!only || !strcmp(only, "checksum"))
		printf("\"checksum\": {\"work\": {\"value\": %lu}}", work(2000000, 1) & 1);
	if (!only)
		printf(", ");
	if (!only || !strcmp(only, "other"))
		printf("\"other\": {\"work\": {\"value\": %lu}}", work(1500000, 2) & 1);
	printf("}\n");
	return 0;
}
EOC
	printf 'bench\n.benchline/\nbenchline.json\n' >.gitignore
	git add . && git commit -q -m base
	git checkout -q -b aa
	echo '__attribute__((used)) static int unused(int x) { return x * 7; }' >>bench.c
	git commit -q -am "an unused function"
) >"$WORK/counters-setup.log" 2>&1 || die "cannot make the counters repository"
cat >"$krepo/benchline.json" <<'EOJ'
{"bench": {"build": "cc -O1 -o bench bench.c", "run": "./bench", "format": "bmf", "processes": 1,
           "counters": {"run": "./bench --filter {benchmark}"}}}
EOJ
counted_gate() { # counted_gate JSON [--no-reuse]: the gate's wall time in seconds
	t0=$(now)
	(cd "$krepo" && env -u BENCHLINE_DB "$BL" gate --live --counters-only ${2:-} --head aa \
		--base main --json "$1" >/dev/null 2>"$1.err") || return 1
	t1=$(now)
	calc "$t1 - $t0"
}
if ! t_gate=$(counted_gate "$WORK/counted.json" --no-reuse); then
	echo "  counted gate FAILED:"; head -5 "$WORK/counted.json.err"; missed=1
else
	builds=$(perl -MJSON::PP -0777 -ne 'my $j = decode_json($_);
		print $j->{live}{build_s}{merge_base} + $j->{live}{build_s}{head}' "$WORK/counted.json")
	# valgrind's own runs: the same four commands, in the worktrees the gate left
	t0=$(now)
	for side in a b; do
		for b in checksum other; do
			(cd "$krepo/.benchline/worktrees/$side" && valgrind --tool=callgrind \
				--trace-children=yes --callgrind-out-file=/dev/null /bin/sh -c \
				"./bench --filter $b" >/dev/null 2>&1) || die "valgrind failed"
		done
	done
	t1=$(now)
	floor=$(calc "$t1 - $t0")
	ratio=$(calc "($t_gate - $builds) / $floor")
	verdict=ok
	[ "$(calc "($ratio <= 1.25) ? 1 : 0")" = 1 ] || { verdict=MISSED; missed=1; }
	printf '  %-34s %8.3f s   builds %.3f s, 4 callgrind runs by hand %.3f s\n' \
		"gate --live --counters-only" "$t_gate" "$builds" "$floor"
	printf '  %-34s %8.2f x   (budget <= 1.25 x)  %s\n' "(gate - builds) / valgrind's runs" \
		"$ratio" "$verdict"
	if ! t_reuse=$(counted_gate "$WORK/reused.json"); then
		echo "  reusing gate FAILED:"; head -5 "$WORK/reused.json.err"; missed=1
	else
		set -- $(perl -MJSON::PP -0777 -ne 'my $j = decode_json($_);
			print(($j->{live}{reused_base} ? 1 : 0), " ",
			      $j->{live}{build_s}{merge_base} // "null", " ",
			      $j->{live}{build_s}{head})' "$WORK/reused.json")
		verdict=ok
		# the head's build and its two runs, with the same slack as above
		limit=$(calc "$3 + 1.25 * $floor / 2")
		{ [ "$1" = 1 ] && [ "$2" = null ] &&
			[ "$(calc "($t_reuse <= $limit) ? 1 : 0")" = 1 ]; } || { verdict=MISSED; missed=1; }
		printf '  %-34s %8.3f s   reused %s, merge base built: %s   (budget <= %.3f s)  %s\n' \
			"the same gate, merge base reused" "$t_reuse" "$1" "$2" "$limit" "$verdict"
	fi
fi
echo
fi

# --- push -------------------------------------------------------------------------------------
# Figures only, like the corpora: no budget in §12 yet; a failure is printed and counts.
if want push; then
PUSH_FILES=${BENCH_PUSH_FILES:-400}
PUSH_RECORDS=${BENCH_PUSH_RECORDS:-100}
PUSH_CLIENTS=8
total=$((PUSH_FILES * PUSH_RECORDS))
echo "push: $PUSH_FILES files x $PUSH_RECORDS records (10 metrics) over loopback," \
	"$PUSH_CLIENTS clients"
mkdir -p "$WORK/push" || die "cannot create $WORK/push"
perl "$HERE/gen-records.pl" --count "$total" --metrics 10 --prefix fleet --seed 7 |
	perl -e '
		my ($dir, $per) = @ARGV;
		my ($n, $f) = (0, undef);
		while (my $line = <STDIN>) {
			if ($n % $per == 0) {
				close $f if $f;
				open $f, ">", sprintf("%s/%05d.json", $dir, $n / $per) or die "$!\n";
			}
			print $f $line;
			$n++;
		}
		close $f if $f;
	' "$WORK/push" "$PUSH_RECORDS" || die "cannot generate the push files"
printf 'secret\n' >"$WORK/push.token"
printf '  input: %.1f MB in %s files\n' "$(calc "$(cat "$WORK"/push/*.json | wc -c) / 1e6")" \
	"$PUSH_FILES"

fresh_push_db() {
	rm -f "$WORK/push.db" "$WORK/push.db-wal" "$WORK/push.db-shm"
}
push_pid=
push_serve() {
	fresh_push_db
	rm -f "$WORK/serve.out"
	"$BL" --db "$WORK/push.db" serve --create --port 0 --threads 4 --token-file "$WORK/push.token" \
		>"$WORK/serve.out" 2>"$WORK/serve.err" &
	push_pid=$!
	i=0
	until grep -q serving "$WORK/serve.out" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 100 ] || { cat "$WORK/serve.err" >&2; return 1; }
		sleep 0.1
	done
	push_url=$(sed -n 's/.* at \(http[^ ]*\)\/ .*/\1/p' "$WORK/serve.out")
}
push_stop() {
	[ -n "$push_pid" ] && kill -TERM "$push_pid" && wait "$push_pid"
	push_pid=
}
# push_clients CMD...: the files dealt round-robin to PUSH_CLIENTS concurrent `benchline CMD
# --server ...` processes, each with a spool of its own (CMD "local": `benchline ingest` into
# the database, no server); fails when one does not exit 0.
push_clients() {
	c=0
	pids=
	while [ $c -lt $PUSH_CLIENTS ]; do
		files=$(ls "$WORK"/push/*.json | awk -v n=$PUSH_CLIENTS -v c=$c 'NR % n == c')
		# shellcheck disable=SC2086
		if [ "$1" = local ]; then
			"$BL" --db "$WORK/push.db" ingest $files >/dev/null 2>"$WORK/client-$c.err" &
		else
			BENCHLINE_DB=$WORK/none.db "$BL" "$@" --server "$push_url" \
				--token-file "$WORK/push.token" --spool "$WORK/spool-$c" $files \
				>/dev/null 2>"$WORK/client-$c.err" &
		fi
		pids="$pids $!"
		c=$((c + 1))
	done
	rc=0
	for p in $pids; do
		wait "$p" || rc=1
	done
	return $rc
}
# push_round CMD...: a fresh server and database, the clients timed; prints the seconds.
push_round() {
	push_serve || return 1
	t0=$(now)
	push_clients "$@" || { push_stop; cat "$WORK"/client-*.err | head -5 >&2; return 1; }
	t1=$(now)
	push_stop
	n=$(sqlite3 "$WORK/push.db" "select count(*) from runs")
	[ "$n" = "$total" ] || { echo "the server stored $n runs, not $total" >&2; return 1; }
	[ -z "$(ls "$WORK"/spool-* 2>/dev/null | grep json)" ] || { echo "a body was spooled" >&2; return 1; }
	calc "$t1 - $t0"
}

# The limits: the same files ingested with no HTTP, by one process, and by as many processes
# as there are clients (the server's threads parse bodies at once and share the write lock).
t_lim=$(best fresh_push_db "$BL" --db "$WORK/push.db" ingest "$WORK"/push/*.json) ||
	die "benchline ingest of the push files failed"
rate_lim=$(calc "$total / $t_lim")
printf '  %-34s %8.2f s %9.0f records/s\n' "benchline ingest, 1 process (limit)" "$t_lim" \
	"$rate_lim"
# (Created first: eight processes would all migrate a missing database at once.)
init_push_db() {
	fresh_push_db
	"$BL" --db "$WORK/push.db" init >/dev/null
}
t_lim8=$(best init_push_db push_clients local) || die "concurrent benchline ingest failed"
rate_lim8=$(calc "$total / $t_lim8")
printf '  %-34s %8.2f s %9.0f records/s\n' "benchline ingest, $PUSH_CLIENTS processes" "$t_lim8" \
	"$rate_lim8"
for mode in push ingest; do
	t_push=
	r=0
	while [ $r -lt "$RUNS" ]; do
		if ! t=$(push_round "$mode"); then
			echo "  $mode --server FAILED"
			missed=1
			t_push=
			break
		fi
		t_push=$(min "$t_push" "$t")
		r=$((r + 1))
	done
	[ -n "$t_push" ] || continue
	rate=$(calc "$total / $t_push")
	printf '  %-34s %8.2f s %9.0f records/s   %.2f of 1 process, %.2f of %s\n' \
		"$mode --server, $PUSH_CLIENTS clients" "$t_push" "$rate" "$(calc "$rate / $rate_lim")" \
		"$(calc "$rate / $rate_lim8")" "$PUSH_CLIENTS"
done
echo
fi

# --- corpora ----------------------------------------------------------------------------------
# The figures of docs/detection.md and docs/confirm.md, reported; and the budget of §12 on them:
# the first detect --all of the real histories (both, summed) at most 1.5 times one sorted SQL
# scan of the same values, in 4 x BENCH_RUNS + 3 rounds of a detect and the scan right after
# it. The verdict is the median of the rounds' ratios (the histories' times summed round by
# round): each ratio is taken within a second, so a machine whose speed drifts between rounds
# moves both sides of it alike. The best of each side over the rounds is printed beside it.
# A conversion failure is printed and does not count as a missed budget; a missing data
# directory skips it.
if want corpora; then
	data=${BENCHLINE_DATA:-$ROOT/../shared/data}
	if [ -d "$data" ]; then
		echo "corpora: real histories from $data"
		BENCHLINE=$BL sh "$ROOT/tests/corpora/measure.sh" --data "$data" --time $((4 * RUNS + 3)) \
			>"$WORK/corpora.out" 2>"$WORK/corpora.err"
		sed 's/^/  /' "$WORK/corpora.out"
		[ -s "$WORK/corpora.err" ] && sed 's/^/  /' "$WORK/corpora.err"
		sums=$(sed -n 's/.*first detect --all: \([0-9.]*\) s, one sorted SQL scan of the same values: \([0-9.]*\) s.*/\1 \2/p' \
			"$WORK/corpora.out" | awk '{ d += $1; s += $2 } END { if (NR) print d, s }')
		paired=$(sed -n 's/.*first detect --all rounds (detect\/scan s): //p' "$WORK/corpora.out" |
			perl -ne '
				my $i = 0;
				for (split) { my ($d, $s) = split m{/}; $d[$i] += $d; $s[$i++] += $s }
				END {
					my @r = sort { $a <=> $b } map { $d[$_] / $s[$_] } grep { $s[$_] } 0 .. $#d;
					printf "%.3f %d\n", $r[$#r / 2], scalar @r if @r;
				}')
		if [ -n "$sums" ] && [ -n "$paired" ]; then
			set -- $sums $paired
			verdict=ok
			[ "$(calc "($3 <= 1.5) ? 1 : 0")" = 1 ] || { verdict=MISSED; missed=1; }
			printf '  %-46s %8.2f x   (budget <= 1.5 x)  %s\n' \
				"first detect --all of them / sorted SQL scan" "$3" "$verdict"
			printf '  %-46s %8.3f s against %.3f s: %.2f x\n' \
				"  (median of $4 rounds; the best of each side)" "$1" "$2" "$(calc "$1 / $2")"
		fi
	else
		echo "corpora: skipped (no ../shared/data)"
	fi
	echo
fi

# --- import -----------------------------------------------------------------------------------
# The figures of docs/performance.md ("Importing other tools' histories"), reported: no budget in
# §12 covers import. A failure is printed and counts.
if want import; then
	data=${BENCHLINE_DATA:-$ROOT/../shared/data}
	site=$data/asv_django/gh-pages
	gab=$data/gab_histories/github-action-benchmark_self/data.js
	if [ -f "$site/index.json" ] && [ -f "$gab" ]; then
		echo "import: real histories from $data"
		perl "$ROOT/tests/corpora/asv-django.pl" --data "$data" --out "$WORK/site.jsonl" \
			2>/dev/null || die "cannot convert Django's asv site"
		fresh_import_db() {
			rm -f "$WORK/imp.db" "$WORK/imp.db-wal" "$WORK/imp.db-shm"
		}
		t_imp= t_ing= r=0
		while [ $r -lt "$RUNS" ]; do
			fresh_import_db
			t0=$(now)
			"$BL" --db "$WORK/imp.db" ingest "$WORK/site.jsonl" >/dev/null ||
				{ echo "  ingest of the converted site FAILED"; missed=1; break; }
			t_ing=$(min "$t_ing" "$(calc "$(now) - $t0")")
			fresh_import_db
			t0=$(now)
			"$BL" --db "$WORK/imp.db" import --from asv-html "$site" >"$WORK/import.out" \
				2>/dev/null || { echo "  import --from asv-html FAILED"; missed=1; break; }
			t_imp=$(min "$t_imp" "$(calc "$(now) - $t0")")
			r=$((r + 1))
		done
		if [ -n "$t_imp" ] && [ -n "$t_ing" ]; then
			n=$(sed -n 's/.*: \([0-9]*\) records stored.*/\1/p' "$WORK/import.out")
			series=$(sed -n 's/.* on \([0-9]*\) Series.*/\1/p' "$WORK/import.out")
			printf '  %-46s %8.2f s %9.0f records/s   (%s records, %s Series)\n' \
				"import --from asv-html, Django's site" "$t_imp" "$(calc "$n / $t_imp")" \
				"$n" "$series"
			printf '  %-46s %8.2f s %9.0f records/s   import / ingest: %.2f\n' \
				"ingest of the same points as native records" "$t_ing" \
				"$(calc "$n / $t_ing")" "$(calc "$t_imp / $t_ing")"
			t_again=$(best nothing "$BL" --db "$WORK/imp.db" import --from asv-html "$site")
			printf '  %-46s %8.2f s   (nothing new stored)\n' "the same import again" "$t_again"
			fresh_import_db
			rss_run "$BL" --db "$WORK/imp.db" import --from asv-html "$site" >/dev/null 2>&1 &&
				printf '  %-46s %8.0f MB\n' "peak memory of the site's import" \
					"$(calc "$(cat "$WORK/rss.kib") / 1024")"
			fresh_import_db
			t_gab=$(best fresh_import_db "$BL" --db "$WORK/imp.db" import --from gab "$gab")
			"$BL" --db "$WORK/imp.db" import --from gab "$gab" >"$WORK/gab.out" 2>/dev/null
			printf '  %-46s %8.2f s   (%s records)\n' \
				"import --from gab, github-action-benchmark's" "$t_gab" \
				"$(sed -n 's/.*, \([0-9]*\) already stored.*/\1/p' "$WORK/gab.out")"
		fi
	else
		echo "import: skipped (no ../shared/data)"
	fi
	echo
fi

if [ $missed = 0 ]; then
	echo "every budget measured is met"
else
	echo "a budget is MISSED (or its command failed)"
fi
exit $missed

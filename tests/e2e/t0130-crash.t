#!/bin/sh
# kill -9 during an ingest (§13): one transaction per file, so whenever the process dies the
# database passes PRAGMA integrity_check and holds either none or all of the file's 20,000
# runs, and every run acknowledged before survives. On PostgreSQL the server rolls back what
# the killed connection left open; `benchline check` stands in for SQLite's integrity and
# foreign key checks (the server enforces the foreign keys itself).
#
# The kill delays are fractions of the time a full ingest takes on this machine, drawn from a
# seeded sequence (srand(2024)) so the trials are the same on every run: trial 1 lands in the
# first sixth of the ingest, trial 6 just after its end. Nothing here asserts a timing.
. "$(dirname "$0")/lib.sh"

N=20000
TRIALS=6

# crash_counts DB: "RUNS METRICS RECORDS TAGS" of machine crash's runs.
crash_counts() {
	db_sql "$1" "
		select (select count(*) from runs r where r.machine_id = m.id),
		       (select count(*) from metrics x join runs r on r.id = x.run_id
			where r.machine_id = m.id),
		       (select count(*) from records r where r.machine_id = m.id),
		       (select count(*) from tags t join runs r on r.id = t.run_id
			where r.machine_id = m.id)
		from (select coalesce((select id from machines where name = 'crash'), -1) as id) m" |
		tr '|' ' '
}

# check_db DB: intact, and the file is in it whole or not at all.
check_db() {
	if pg_mode; then
		bl --db "$1" check >check.txt 2>&1 || { cat check.txt; return 1; }
	else
		ok=$(sqlite3 "$1" "PRAGMA integrity_check") || return 1
		[ "$ok" = ok ] || { echo "integrity_check: $ok"; return 1; }
		fk=$(sqlite3 "$1" "PRAGMA foreign_key_check") || return 1
		[ -z "$fk" ] || { echo "foreign_key_check: $fk"; return 1; }
	fi
	counts=$(crash_counts "$1") || return 1
	echo "crash runs, metrics, records, tags: $counts"
	case $counts in
	"0 0 0 0" | "$N $((N * 10)) $N 0") return 0 ;;
	esac
	echo "partial ingest: $counts"
	return 1
}

# trial K DB: ingests big.json into DB in the background and kills it after delay K.
trial() {
	delay=$(sed -n "$1p" delays)
	# the binary itself, not bl, runs in the background: $! is the process killed
	db=$(db_url "$2")
	"$BENCHLINE" --db "$db" ingest big.json >/dev/null 2>&1 &
	pid=$!
	sleep "$delay"
	if kill -9 $pid 2>/dev/null; then
		what="killed after ${delay}s"
	else
		what="the ingest had ended before ${delay}s"
	fi
	wait $pid
	check_db "$2" >check.out
	status=$?
	cat check.out
	echo "trial $1: $what: $(tail -1 check.out)" >>trials.log
	return $status
}

test_expect 'setup: 20,000 records in one file' '
	perl "$ROOT/tests/bench/gen-records.pl" --count $N --machines 1 --prefix crash --seed 7 \
		>big.json &&
	test "$(wc -l <big.json)" = $N &&
	perl "$ROOT/tests/bench/gen-records.pl" --count 3 --machines 1 --prefix other --seed 9 \
		>other.json
'

test_expect 'a full ingest stores them all (and gives the kill delays a scale)' '
	bl --db full.db init >/dev/null &&
	t0=$(date +%s.%N) &&
	bl --db full.db ingest big.json >out &&
	t1=$(date +%s.%N) &&
	test "$(grep -c ": stands$" out)" = $N &&
	check_db full.db &&
	perl -e "srand(2024); printf qq(%.3f\n), (\$_ + rand()) / $TRIALS * 1.2 * (\$ARGV[1] - \$ARGV[0])
		for 0 .. $TRIALS - 1" "$t0" "$t1" >delays &&
	cat delays
'

i=1
while [ $i -le $TRIALS ]; do
	if [ $i = 3 ]; then
		test_expect "trial $i: kill -9 on a database that holds other records" '
			bl --db trial3.db ingest other.json >/dev/null &&
			bl --db trial3.db records --json >before.json &&
			trial 3 trial3.db &&
			bl --db trial3.db records --json --machine other >after.json &&
			test "$(json_get after.json "scalar @\$j")" = 3 &&
			bl --db trial3.db records --json --machine other >after.json &&
			json_get before.json "[grep { \$_->{machine} eq q(other) } @\$j]" >b &&
			json_get after.json "\$j" >a &&
			cmp a b
		'
	else
		test_expect "trial $i: kill -9 during an ingest" "
			bl --db trial$i.db init >/dev/null &&
			trial $i trial$i.db
		"
	fi
	i=$((i + 1))
done
# What each trial hit, for the record (the delays depend on this machine's speed).
sed "s/^/# /" trials.log

test_expect 'after a kill the database takes the file again, whole (trials 1 and 3)' '
	for i in 1 3; do
		bl --db trial$i.db ingest big.json >/dev/null &&
		check_db trial$i.db >counts &&
		grep -q "^crash runs, metrics, records, tags: $N " counts || exit 1
	done
'

test_done

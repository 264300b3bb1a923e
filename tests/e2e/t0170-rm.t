#!/bin/sh
# benchline rm (docs/cli.md "rm"): runs removed by id or by machine, benchmark and commit,
# with --dry-run; the key of a removed standing run taken by the next run the key rule picks;
# detect afterwards gives the Series, lines and Suspects a fresh database ingesting the runs
# left gives; an unknown id or a missing reason changes nothing; the audit keeps who, when, why
# and the removed runs' JSON.
. "$(dirname "$0")/lib.sh"

# records MACHINE FIRST V1 V2 ...: one record of MACHINE/town per value, commit i (a number)
# committed on day i, from FIRST on; p95 1% over the median.
records() {
	perl -e '
		my ($machine, $i, @v) = @ARGV;
		for my $v (@v) {
			my $c = sprintf("%040d", $i);
			printf(qq({"schema": 1, "machine": "%s", "benchmark": "town", "harness_version": 1, ) .
			    qq("source": {"commit": "%s", "source_hash": "%s", "branch": "main", ) .
			    qq("committed_at": "2026-01-%02dT00:00:00Z"}, "started_at": "2026-01-%02dT01:00:00Z", ) .
			    qq("metrics": {"wall_ms": {"kind": "timed", "unit": "ms", "median": %s, "p95": %s}}}\n),
			    $machine, $c, $c, $i, $i, $v, $v * 1.01);
			$i++;
		}' "$@"
}

# fresh DB: a new database FRESH.db ingesting DB's runs left, in their order, then detect.
fresh() {
	db_sql "$1" "SELECT raw FROM runs ORDER BY id" >"$1.left" &&
	bl --db "$2" ingest "$1.left" >/dev/null &&
	bl --db "$2" detect >/dev/null
}

# same_detect DB FRESH: the Series (with their lines) and the Suspects of both are the same,
# Suspect ids aside (ids are never reused).
same_detect() {
	bl --db "$1" series --json >"$1.series" &&
	bl --db "$2" series --json >"$2.series" &&
	test_cmp "$2.series" "$1.series" &&
	bl --db "$1" suspects --json | sed 's/"id":[0-9]*,//' >"$1.suspects" &&
	bl --db "$2" suspects --json | sed 's/"id":[0-9]*,//' >"$2.suspects" &&
	test_cmp "$2.suspects" "$1.suspects"
}

# A step at commit 9 on m1 (a Suspect there), a flat m2, and a second, quieter run of m1's
# commit 3 (run 21, which takes the key from run 3).
{
	records m1 1 100 101 99 100 100 101 99 100 130 131 130 129
	records m2 1 50 51 49 50 50 51 49 50
	perl -pe "s/\"median\": 99, \"p95\": 99.99/\"median\": 99.5, \"p95\": 99.6/" <<-EOF
	$(records m1 3 99)
	EOF
} >runs.jsonl

test_expect 'setup: 21 runs, one Suspect' '
	bl --db a.db ingest runs.jsonl >/dev/null &&
	bl --db a.db detect >/dev/null &&
	test "$(db_sql a.db "SELECT count(*) FROM runs")" = 21 &&
	test "$(db_sql a.db "SELECT run_id FROM records WHERE run_id IN (3, 21)")" = 21 &&
	test "$(bl --db a.db suspects --json | json_get - "scalar @\$j")" = 1
'

test_expect 'an unknown id is an error naming it, and nothing is removed' '
	db_dump a.db >dump.before &&
	expect_exit 2 bl --db a.db rm --why "bad runs" 2 999 2>err &&
	echo "benchline: no run 999" >expect &&
	test_cmp expect err &&
	db_dump a.db >dump.after &&
	test_cmp dump.before dump.after
'

test_expect 'rm needs a reason, runs named one way, and ids that are ids' '
	expect_exit 2 bl --db a.db rm 2 2>err && grep -q "rm needs --why TEXT" err &&
	expect_exit 2 bl --db a.db rm --why x --machine m1 2 2>err &&
	grep -q "by id or by filters, not both" err &&
	expect_exit 2 bl --db a.db rm --why x 2>err && grep -q "name the runs to remove" err &&
	expect_exit 2 bl --db a.db rm --why x 2x 2>err && grep -q "not a run id: .2x." err &&
	expect_exit 2 bl --db a.db rm --why x --commit xyz1 2>err &&
	grep -q "not a commit prefix" err &&
	expect_exit 2 bl --db a.db rm --why x --machine m9 --benchmark town 2>err &&
	echo "benchline: no run matches machine '"'"'m9'"'"', benchmark '"'"'town'"'"'" >expect &&
	test_cmp expect err
'

test_expect '--dry-run says what it would remove and writes nothing' '
	db_dump a.db >dump.before &&
	bl --db a.db rm --dry-run --machine m2 >actual &&
	test "$(grep -c "^would remove run" actual)" = 8 &&
	tail -n 1 actual >last &&
	echo "dry run: would remove 8 runs: 0 keys with another standing run, 8 with no run left (nothing written)" >expect &&
	test_cmp expect last &&
	db_dump a.db >dump.after &&
	test_cmp dump.before dump.after
'

test_expect 'a removed standing run: the next run by the key rule takes its key' '
	bl --db a.db rm --why "a broken build" 21 >actual &&
	cat >expect <<-EOF &&
	removed run 21: m1/town 000000000000 harness 1 (stood for its key: run 3 stands now)
	removed 1 run: 1 key with another standing run, 0 with no run left; the next detect reads every Series
	EOF
	test_cmp expect actual &&
	bl --db a.db records --all --json | json_get - "join q( ), map { \$_->{standing} ? q(stands) : q(-), join(q(,), @{\$_->{tags}}) } grep { \$_->{id} == 3 } @\$j" >actual &&
	echo "stands " >expect &&
	test_cmp expect actual &&
	bl --db a.db detect >/dev/null &&
	fresh a.db f1.db &&
	same_detect a.db f1.db
'

test_expect 'removing the run a Suspect is on and the run a line starts at: detect as on a fresh database' '
	bl --db a.db rm --why "bad machine day" 9 1 >/dev/null &&
	bl --db a.db detect >/dev/null &&
	fresh a.db f2.db &&
	same_detect a.db f2.db &&
	test "$(bl --db a.db series --json | json_get - "\$j->[0]{lines}[0]{start_commit}")" = 0000000000000000000000000000000000000002
'

test_expect 'rm by machine, and by commit prefix and benchmark' '
	bl --db a.db rm --why "m2 retired" --machine m2 >actual &&
	test "$(grep -c "^removed run" actual)" = 8 &&
	bl --db a.db rm --why "a bad commit" --benchmark town --commit 000000000000000000000000000000000000001 >actual &&
	test "$(grep -c "^removed run" actual)" = 3 &&
	bl --db a.db detect >/dev/null &&
	fresh a.db f3.db &&
	same_detect a.db f3.db
'

test_expect 'rm --json lists the runs removed' '
	bl --db a.db rm --why again --json 2 >actual.json &&
	json_get actual.json "join q( ), map { \$_->{id}, \$_->{machine}, \$_->{standing} ? q(stood) : q(-), defined \$_->{now_standing} ? \$_->{now_standing} : q(none) } @\$j" >actual &&
	echo "2 m1 stood none" >expect &&
	test_cmp expect actual
'

test_expect 'the audit keeps who, when, why and the removed runs, which ingest takes back' '
	db_sql a.db "SELECT action, why, runs, CASE WHEN at > 0 THEN 1 ELSE 0 END FROM audit ORDER BY id" >actual &&
	cat >expect <<-EOF &&
	rm|a broken build|1|1
	rm|bad machine day|2|1
	rm|m2 retired|8|1
	rm|a bad commit|3|1
	rm|again|1|1
	EOF
	test_cmp expect actual &&
	(USER=someone && export USER && bl --db a.db rm --why mine 4 >/dev/null) &&
	db_sql a.db "SELECT who FROM audit ORDER BY id DESC LIMIT 1" >actual &&
	echo someone >expect &&
	test_cmp expect actual &&
	db_sql a.db "SELECT run_id, standing, tags FROM removed_runs WHERE run_id IN (9, 21) ORDER BY run_id" >actual &&
	printf "9|1|\n21|1|\n" >expect &&
	test_cmp expect actual &&
	db_sql a.db "SELECT raw FROM removed_runs WHERE run_id = 4" >back.jsonl &&
	bl --db a.db ingest back.jsonl >actual &&
	grep -q ": stands$" actual
'

test_done

#!/bin/sh
# The key rule (§1): when a second run lands on a key, the quieter one (lower p95/median of the
# primary metric) stands and the other is tagged superseded; a keep-"first" machine keeps its
# first run, unless it is flawed and the new one clean; a flawed run never displaces a clean
# one; other keys never interact.
. "$(dirname "$0")/lib.sh"

C1=$(printf 'c%039d' 1)
S1=$(printf 'a%039d' 1)
S2=$(printf 'a%039d' 2)

# rec [NAME=VALUE...]: one native record on one line, on the key (m1, town, 1080p, S1, 1)
# unless told otherwise. started= tells runs of one key apart; extra= is pasted at the top
# level; source_extra= inside "source"; metrics= replaces the metrics object.
rec() (
	machine=m1 benchmark=town config=1080p harness=1 source=$S1 started=2026-11-02T04:00:00Z
	median=100 p95=102 extra= source_extra=
	metrics=
	for a in "$@"; do eval "${a%%=*}=\${a#*=}"; done
	[ -n "$metrics" ] ||
		metrics="{\"gpu_frame_us\":{\"unit\":\"us\",\"median\":$median,\"p95\":$p95,\"n\":30}}"
	printf '{"schema":1,"machine":"%s","benchmark":"%s","config":"%s","harness_version":%s,' \
		"$machine" "$benchmark" "$config" "$harness"
	printf '"source":{"commit":"%s","source_hash":"%s",%s"branch":"main"},' \
		"$C1" "$source" "$source_extra"
	printf '"started_at":"%s",%s"metrics":%s}\n' "$started" "$extra" "$metrics"
)

# outcome: the outcome of ingest's line (what follows it, why a run is off its Series, is
# checked by state).
outcome() {
	sed -E 's/^.* harness [0-9]+: //; s/ \(.*//; s/[,:].*//'
}

# run N [NAME=VALUE...]: ingests run N of a key (its own started_at) and prints the outcome.
run() {
	n=$1
	shift
	rec started="2026-11-02T04:0$n:00Z" "$@" >run$n.json &&
	bl ingest run$n.json | outcome
}
# The same with the ingest flags given first (for --repo).
run_with() {
	flags=$1 n=$2
	shift 2
	rec started="2026-11-02T04:0$n:00Z" "$@" >run$n.json &&
	bl ingest $flags run$n.json | outcome
}

# state: "ID:S|-:TAGS" for every run by id (S: it stands for its key).
state() {
	bl records --json --all >state.json &&
	json_get state.json 'join " ", map { "$_->{id}:" . ($_->{standing} ? "S" : "-") . ":" . join(",", @{$_->{tags}}) } sort { $a->{id} <=> $b->{id} } @$j'
}

# expect_state WANT: state is WANT, else print both.
expect_state() {
	got=$(state) || return 1
	[ "$got" = "$1" ] && return 0
	echo "want: $1"
	echo "got:  $got"
	return 1
}

# fresh NAME: a new database for one scenario.
fresh() {
	BENCHLINE_DB=$TMP/$1.db
	export BENCHLINE_DB
}

test_expect 'a noisier second run is superseded; the first stands' '
	fresh noisier &&
	test "$(run 1 p95=102)" = stands &&
	test "$(run 2 p95=104)" = superseded &&
	expect_state "1:S: 2:-:superseded" &&
	bl records --json >r.json &&
	test "$(json_get r.json "join q(,), map { \$_->{id} } @\$j")" = 1
'

test_expect 'a quieter second run stands; the first becomes superseded' '
	fresh quieter &&
	test "$(run 1 p95=104)" = stands &&
	test "$(run 2 p95=101)" = stands &&
	expect_state "1:-:superseded 2:S:" &&
	bl records --json >r.json &&
	test "$(json_get r.json "join q(,), map { \$_->{id} } @\$j")" = 2
'

test_expect 'a tie keeps the first run' '
	fresh tie &&
	test "$(run 1 p95=103)" = stands &&
	test "$(run 2 p95=103)" = superseded &&
	expect_state "1:S: 2:-:superseded"
'

test_expect 'quietness is p95/median, not the p95 itself' '
	fresh ratio &&
	test "$(run 1 median=100 p95=103)" = stands &&
	test "$(run 2 median=200 p95=204)" = stands &&
	test "$(run 3 median=50 p95=51.5)" = superseded &&
	expect_state "1:-:superseded 2:S: 3:-:superseded"
'

test_expect 'three runs: the quietest stands, the others are superseded' '
	fresh three &&
	run 1 p95=104 >/dev/null && run 2 p95=102 >/dev/null && run 3 p95=103 >/dev/null &&
	expect_state "1:-:superseded 2:S: 3:-:superseded" &&
	test "$(sqlite3 "$BENCHLINE_DB" "select count(*) from records")" = 1
'

test_expect 'the primary metric decides: explicit primary, else the first timed by name' '
	fresh primary &&
	m1="{\"a_wall_ms\":{\"unit\":\"ms\",\"median\":10,\"p95\":10.5},\"gpu_frame_us\":{\"unit\":\"us\",\"median\":100,\"p95\":101}}" &&
	m2="{\"a_wall_ms\":{\"unit\":\"ms\",\"median\":10,\"p95\":10.1},\"gpu_frame_us\":{\"unit\":\"us\",\"median\":100,\"p95\":103}}" &&
	test "$(run 1 metrics="$m1")" = stands &&
	test "$(run 2 metrics="$m2")" = stands &&
	expect_state "1:-:superseded 2:S:" &&
	fresh primary2 &&
	test "$(run 1 metrics="$m1" extra="\"primary\":\"gpu_frame_us\",")" = stands &&
	test "$(run 2 metrics="$m2" extra="\"primary\":\"gpu_frame_us\",")" = superseded &&
	expect_state "1:S: 2:-:superseded"
'

test_expect 'a known quietness beats an unknown one, either way round; both unknown is a tie' '
	nop95="{\"gpu_frame_us\":{\"unit\":\"us\",\"median\":100}}" &&
	fresh unknown1 &&
	test "$(run 1 metrics="$nop95")" = stands &&
	test "$(run 2 p95=105)" = stands &&
	expect_state "1:-:superseded 2:S:" &&
	fresh unknown2 &&
	test "$(run 1 p95=105)" = stands &&
	test "$(run 2 metrics="$nop95")" = superseded &&
	expect_state "1:S: 2:-:superseded" &&
	fresh unknown3 &&
	test "$(run 1 metrics="$nop95")" = stands &&
	test "$(run 2 metrics="$nop95")" = superseded &&
	expect_state "1:S: 2:-:superseded"
'

test_expect 'a dirty, debug or busy run never displaces a clean one, however quiet' '
	fresh flawed &&
	test "$(run 1 p95=105)" = stands &&
	test "$(run 2 p95=100 source_extra="\"dirty\":true,")" = superseded &&
	test "$(run 3 p95=100 extra="\"profile\":\"debug\",")" = superseded &&
	test "$(run 4 p95=100 extra="\"preflight\":{\"quiet\":false},")" = superseded &&
	test "$(run 5 p95=110)" = superseded &&
	expect_state "1:S: 2:-:dirty,superseded 3:-:profile,superseded 4:-:preflight,superseded 5:-:noisy,superseded"
'

test_expect 'a clean run displaces a flawed one, even a louder or unknown one' '
	fresh clean-wins &&
	test "$(run 1 p95=100 source_extra="\"dirty\":true,")" = stands &&
	expect_state "1:S:dirty" &&
	test "$(run 2 p95=105)" = stands &&
	expect_state "1:-:dirty,superseded 2:S:" &&
	fresh clean-wins-noisy &&
	test "$(run 1 p95=107)" = stands &&
	test "$(run 2 metrics="{\"gpu_frame_us\":{\"unit\":\"us\",\"median\":100}}")" = stands &&
	expect_state "1:-:noisy,superseded 2:S:"
'

test_expect 'between two flawed runs the quieter stands' '
	fresh both-flawed &&
	test "$(run 1 p95=104 source_extra="\"dirty\":true,")" = stands &&
	test "$(run 2 p95=102 extra="\"profile\":\"debug\",")" = stands &&
	expect_state "1:-:dirty,superseded 2:S:profile"
'

test_expect 'different keys do not interact' '
	fresh keys &&
	test "$(run 1 p95=104)" = stands &&
	test "$(run 2 p95=101 config=720p)" = stands &&
	test "$(run 3 p95=101 harness=2)" = stands &&
	test "$(run 4 p95=101 source=$S2)" = stands &&
	test "$(run 5 p95=101 machine=m2)" = stands &&
	test "$(run 6 p95=101 benchmark=forest)" = stands &&
	test "$(run 7 p95=105 config=720p)" = superseded &&
	expect_state "1:S: 2:S: 3:S: 4:S: 5:S: 6:S: 7:-:superseded" &&
	test "$(sqlite3 "$BENCHLINE_DB" "select count(*) from records")" = 6
'

test_expect 'records lists the standing run only, --all every run' '
	fresh listing &&
	run 1 p95=104 >/dev/null && run 2 p95=101 >/dev/null && run 3 p95=109 >/dev/null &&
	bl records --json >r.json &&
	test "$(json_get r.json "scalar @\$j")" = 1 &&
	bl records --json --all >r.json &&
	test "$(json_get r.json "scalar @\$j")" = 3
'

# A repository whose benchline.json keeps the first run of machine lavapipe.
test_expect 'setup: a repository with benchline.json machines.lavapipe.keep = first' '
	git init -q repo &&
	cat >repo/benchline.json <<-EOF &&
	{"machines": {"lavapipe": {"keep": "first"}}}
	EOF
	mkdir repo/src && echo "int main(void) { return 0; }" >repo/src/main.c &&
	git -C repo add . && git -C repo commit -q -m initial
'

test_expect 'a keep-first machine keeps its first run (ingest --repo reads benchline.json)' '
	fresh keep-first &&
	test "$(run_with "--repo repo" 1 machine=lavapipe p95=105)" = stands &&
	test "$(run_with "--repo repo" 2 machine=lavapipe p95=101)" = superseded &&
	expect_state "1:S: 2:-:superseded" &&
	sqlite3 -separator " " "$BENCHLINE_DB" "select name, keep from machines" | grep -q "^lavapipe first$"
'

test_expect 'keep first stays with the machine in later ingests without --repo' '
	fresh keep-first &&
	test "$(run 3 machine=lavapipe p95=100.5)" = superseded &&
	expect_state "1:S: 2:-:superseded 3:-:superseded"
'

test_expect 'keep first: a flawed first run does not outlast a clean one (§10)' '
	fresh keep-first-flawed &&
	test "$(run_with "--repo repo" 1 machine=lavapipe p95=101 source_extra="\"dirty\":true,")" = stands &&
	test "$(run_with "--repo repo" 2 machine=lavapipe p95=101)" = stands &&
	test "$(run_with "--repo repo" 3 machine=lavapipe p95=101 source_extra="\"dirty\":true,")" = superseded &&
	test "$(run_with "--repo repo" 4 machine=lavapipe p95=100)" = superseded &&
	expect_state "1:-:dirty,superseded 2:S: 3:-:dirty,superseded 4:-:superseded"
'

test_expect 'other machines in the same repository still keep the quieter run' '
	fresh keep-first-other &&
	test "$(run_with "--repo repo" 1 machine=m4 p95=105)" = stands &&
	test "$(run_with "--repo repo" 2 machine=m4 p95=101)" = stands &&
	expect_state "1:-:superseded 2:S:"
'

test_done

#!/bin/sh
# Alerts (§9.1, docs/confirm.md "Alerts"): a one-record excursion is a transient alert; a
# run-wide shift over 12 Series is one alert; a big step with a repeat mark is one alert; a
# staircase is one alert; a step marked one record late has the last in-band record as its
# reference, which a blip at the same commit does not move; an alert still waiting for
# followers is pending; quiet.transient_records, and detect judging again under other settings;
# detect again changes nothing.
. "$(dirname "$0")/lib.sh"

# alerts DB: "COMMIT-SUFFIX SIDE STATE RUN-WIDE SUSPECTS REFERENCE-SUFFIX" per alert.
alerts() {
	bl --db "$1" alerts --json | json_get - 'join "", map { sprintf("%s %s %s %s %d %s\n",
		substr($_->{commit}, -3), $_->{side}, $_->{state}, $_->{run_wide} ? "run-wide" : "-",
		scalar @{$_->{suspects}}, defined $_->{reference_commit} ? substr($_->{reference_commit}, -3) : "-") } @$j' |
		sed '/^$/d'
}

flat="100 101 99 100 100 101 99 100"

test_expect 'a one-record excursion is a transient alert' '
	wall_records m1 excursion 1 $flat 130 100 101 100 >x.jsonl &&
	bl --db x.db ingest x.jsonl >/dev/null &&
	bl --db x.db detect >/dev/null &&
	alerts x.db >actual &&
	echo "009 slower transient - 1 008" >expect &&
	test_cmp expect actual &&
	bl --db x.db suspects --json | json_get - "\$j->[0]{state}" >actual &&
	echo transient >expect &&
	test_cmp expect actual
'

test_expect 'a Suspect with fewer followers than quiet.transient_records is pending' '
	wall_records m1 fresh 1 $flat 130 131 >y.jsonl &&
	bl --db y.db ingest y.jsonl >/dev/null &&
	mkdir cfg && echo "{\"quiet\": {\"transient_records\": 3}}" >cfg/benchline.json &&
	bl --db y.db detect --repo cfg >/dev/null &&
	alerts y.db >actual &&
	echo "009 slower pending - 1 008" >expect &&
	test_cmp expect actual &&
	wall_records m1 fresh 11 100 100 >y2.jsonl &&
	bl --db y.db ingest y2.jsonl >/dev/null &&
	bl --db y.db detect --repo cfg >/dev/null &&
	alerts y.db >actual &&
	echo "009 slower transient - 1 008" >expect &&
	test_cmp expect actual
'

test_expect 'with quiet.transient_records 1, one record beyond is enough to persist' '
	wall_records m1 once 1 $flat 130 131 100 100 >z.jsonl &&
	bl --db z.db ingest z.jsonl >/dev/null &&
	mkdir one && echo "{\"quiet\": {\"transient_records\": 1}}" >one/benchline.json &&
	bl --db z.db detect --repo one >/dev/null &&
	alerts z.db >actual &&
	echo "009 slower open - 1 008" >expect &&
	test_cmp expect actual
'

test_expect 'quiet.transient_records must be 1 to 8' '
	mkdir bad && echo "{\"quiet\": {\"transient_records\": 9}}" >bad/benchline.json &&
	expect_exit 2 bl --db y.db detect --repo bad 2>err &&
	grep -q "quiet.transient_records: expected an integer from 1 to 8" err
'

test_expect 'a run-wide shift over 12 Series is one alert; a step that holds is open' '
	for b in 1 2 3 4 5 6 7 8 9 10 11 12; do
		wall_records m2 bench$b 1 $flat 112 111 112 113 112 || return 1
	done >w.jsonl &&
	wall_records m2 calm 1 $flat 100 100 101 100 99 >>w.jsonl &&
	bl --db w.db ingest w.jsonl >/dev/null &&
	bl --db w.db detect >/dev/null &&
	alerts w.db >actual &&
	echo "009 slower open run-wide 12 008" >expect &&
	test_cmp expect actual &&
	bl --db w.db alerts --json | json_get - "\$j->[0]{series} . q( ) . \$j->[0]{judged_series}" >actual &&
	echo "12 13" >expect &&
	test_cmp expect actual
'

test_expect 'a big step with a repeat mark is one alert' '
	wall_records m3 big 1 $flat 120 100 100 123.5 124 123 124 123 >b.jsonl &&
	bl --db b.db ingest b.jsonl >/dev/null &&
	bl --db b.db detect >/dev/null &&
	test "$(bl --db b.db suspects --json | json_get - "scalar grep { \$_->{side} eq q(slower) } @\$j")" = 2 &&
	alerts b.db >actual &&
	echo "009 slower open - 2 008" >expect &&
	test_cmp expect actual
'

# Record 17 (131) starts the step, but continues the excursion of record 9 (130) still in its
# window, so it is not marked; record 18 is, one record late. Its predecessor is on the new level:
# the reference is record 16, the last inside the band. Another benchmark blips at record 18:
# its Suspect is in the same alert, with record 17 as its reference, but it is transient, so the
# alert keeps 016, on the old level of the step.
test_expect 'a step marked one record late: the reference is the last record inside the band' '
	wall_records m4 late 1 $flat 130 100 100 100 100 100 100 100 131 131 131 131 131 131 >l.jsonl &&
	wall_records m4 blip 1 $flat 100 100 100 100 100 100 100 100 100 130 100 100 100 100 >>l.jsonl &&
	bl --db l.db ingest l.jsonl >/dev/null &&
	bl --db l.db detect >/dev/null &&
	alerts l.db >actual &&
	cat >expect <<-\EOF &&
	009 slower transient - 1 008
	018 slower open run-wide 2 016
	EOF
	test_cmp expect actual
'

test_expect 'a staircase (every record between the steps beyond the first band) is one alert' '
	wall_records m5 stairs 1 $flat 110 111 109 124 125 124 125 124 >s.jsonl &&
	bl --db s.db ingest s.jsonl >/dev/null &&
	bl --db s.db detect >/dev/null &&
	alerts s.db >actual &&
	echo "009 slower open - 2 008" >expect &&
	test_cmp expect actual
'

# One record beyond the band, then back: transient under the default (4), persisted under 1.
test_expect 'detect under other quiet settings judges the alerts again, and back' '
	wall_records m6 short 1 $flat 130 131 100 100 100 >r.jsonl &&
	wall_records m6 long 1 $flat 100 100 130 131 130 129 130 >>r.jsonl &&
	bl --db r.db ingest r.jsonl >/dev/null &&
	bl --db r.db detect >/dev/null &&
	alerts r.db >first &&
	cat >expect <<-\EOF &&
	009 slower transient - 1 008
	011 slower open - 1 010
	EOF
	test_cmp expect first &&
	mkdir t1 && echo "{\"quiet\": {\"transient_records\": 1}}" >t1/benchline.json &&
	bl --db r.db detect --repo t1 >/dev/null &&
	alerts r.db >actual &&
	cat >expect <<-\EOF &&
	009 slower open - 1 008
	011 slower open - 1 010
	EOF
	test_cmp expect actual &&
	mkdir t0 && echo "{}" >t0/benchline.json &&
	bl --db r.db detect --repo t0 >/dev/null &&
	alerts r.db >actual &&
	test_cmp first actual
'

test_expect 'detect again, or from scratch, leaves the alerts as they are' '
	bl --db w.db alerts --json >before &&
	bl --db w.db detect >/dev/null &&
	bl --db w.db alerts --json >after &&
	test_cmp before after &&
	bl --db w.db detect --all >/dev/null &&
	bl --db w.db alerts --json >after &&
	test_cmp before after
'

test_expect 'alerts prints a table; --state filters; a bad state is a usage error' '
	bl --db w.db alerts >table &&
	head -1 table | grep -q "^id *state *side *machine *commit *reference *suspects *found-by *run-wide *outcome$" &&
	grep -q "^ *1  open   slower  m2 .* 12/13  band  *yes  *-$" table &&
	bl --db x.db alerts --state open --json >actual &&
	echo "[]" >expect &&
	test_cmp expect actual &&
	expect_exit 2 bl --db x.db alerts --state sleepy 2>err &&
	grep -q "unknown state .sleepy." err
'

test_done

#!/bin/sh
# Control characters in benchmark, config, metric and unit names (ESC, BEL, the C1 CSI U+009B)
# reach the terminal of whoever lists the database only escaped (\x1b, \x07, \u009b): an OSC
# sequence in a name cannot retitle or clear it. JSON output stays exact.
. "$(dirname "$0")/lib.sh"

# rec DAY MEDIAN: a record whose names carry an OSC title sequence, a clear-screen and a C1 CSI.
rec() {
	printf '{"schema": 1, "machine": "ci", "benchmark": "parse\\u001b]0;pwned\\u0007\\u009b2J", '
	printf '"config": "c\\u001b[2J", "harness_version": 1, '
	printf '"source": {"commit": "%040d", "source_hash": "%040d"}, ' "$1" "$1"
	printf '"started_at": "2026-11-%02dT04:00:00Z", ' "$1"
	printf '"metrics": {"t\\u001bm": {"unit": "m\\u0007s", "median": %s}}}\n' "$2"
}
{ rec 1 100; rec 2 101; rec 3 99; rec 4 100; rec 5 112; } >history.json
bl ingest history.json >/dev/null 2>&1 || { echo 'Bail out! cannot ingest the records'; exit 1; }

# raw FILE: fails when FILE holds ESC, BEL or the bytes of U+009B.
raw() {
	perl -e 'local $/; my $t = <STDIN>; exit($t =~ /\x1b|\x07|\xc2[\x80-\x9f]/ ? 1 : 0)' <"$1" || {
		echo "raw control characters in $1:"; od -c "$1" | head; return 1; }
}

test_expect 'ingest prints each record line with its names escaped' '
	rec 6 100 >one.json &&
	bl --db ingest-line.db ingest one.json >out &&
	raw out &&
	grep -qF "one.json: ci/parse\x1b]0;pwned\x07\u009b2J c\x1b[2J 000000000000 harness 1: stands" out
'

test_expect 'detect prints the new Suspect with its names escaped' '
	bl detect >out &&
	raw out &&
	grep -qF "ci/parse\\x1b]0;pwned\\x07\\u009b2J c\\x1b[2J t\\x1bm at " out
'

test_expect 'records, series and suspects escape every name' '
	for c in records series suspects alerts; do
		bl $c >$c.out 2>&1 && raw $c.out || { echo "$c"; exit 1; }
	done &&
	grep -qF "parse\\x1b]0;pwned\\x07\\u009b2J" records.out &&
	grep -qF "t\\x1bm" records.out &&
	grep -qF "100 m\\x07s" records.out &&
	grep -qF "c\\x1b[2J" series.out &&
	grep -qF "112 m\\x07s" series.out &&
	grep -qF "t\\x1bm" suspects.out
'

test_expect 'an escaped name keeps its table column: the next column still lines up' '
	bl series >out &&
	head -1 out | perl -ne "print index(\$_, q(metric))" >want &&
	sed -n 2p out | perl -ne "print index(\$_, q(t\\\\x1bm))" >got &&
	test_cmp want got
'

test_expect 'an error message escapes what it quotes' '
	expect_exit 2 bl records "--x$(printf "\033]0;t\007")" 2>err &&
	raw err &&
	grep -qF "unknown option '\''--x\\x1b]0;t\\x07'\''" err
'

test_expect 'a preflight finding quoting a process name escapes it' '
	rm -rf sys && cp -R "$FIXTURES/sysroot/quiet" sys &&
	mkdir sys/proc/555 && printf "ev\033]0;x\007il\n" >sys/proc/555/comm &&
	printf "evil\0" >sys/proc/555/cmdline &&
	git init -q cfg &&
	echo "{\"quiet\": {\"processes\": [\"ev\\u001b]0;x\\u0007il\"]}}" >cfg/benchline.json &&
	BENCHLINE_SYSROOT=$TMP/sys expect_exit 1 bl preflight --repo cfg >out &&
	raw out &&
	grep -qF "ev\x1b]0;x\x07il" out
'

test_expect 'JSON output stays exact' '
	bl records --json >records.json &&
	json_get records.json "\$j->[0]{benchmark} eq qq(parse\\x{1b}]0;pwned\\x{07}\\x{c2}\\x{9b}2J) ? 1 : 0" >got &&
	echo 1 >want && test_cmp want got &&
	bl series --json >series.json &&
	json_get series.json "\$j->[0]{metric} eq qq(t\\x{1b}m) ? 1 : 0" >got &&
	test_cmp want got
'
test_done

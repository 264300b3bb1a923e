#!/bin/sh
# benchline triage (§9.5): one issue per confirmed (or covered) alert that holds a Regression
# and is not filed yet, the largest Regression in the title, every one in the body, names
# escaped for Markdown; --mark-filed records where an issue went, and that alert is never
# listed again. Alerts come from confirm, which is not here yet, so the database is written by
# hand with SQL (t1030 triages a Regression a real bisection stored).
. "$(dirname "$0")/lib.sh"

ca=$(printf 'a%.0s' $(seq 40)) cb=$(printf 'b%.0s' $(seq 40)) cc=$(printf 'c%.0s' $(seq 40))
cd_=$(printf 'd%.0s' $(seq 40)) ce=$(printf 'e%.0s' $(seq 40)) c0=$(printf '0%.0s' $(seq 40))
PROBES='[{"commit":"'$cb'","source_hash":"'$cb'","verdict":"slower","skipped":null,"identical_artifacts":false,"metric":"render [4k] frame_ms","ratio":1.2,"interval":[1.18,1.22],"ci_low":1.18,"ci_high":1.22,"pairs":10},{"commit":"'$cd_'","source_hash":"'$cd_'","verdict":null,"skipped":"unbuildable","identical_artifacts":false,"metric":null,"ratio":null,"interval":null,"ci_low":null,"ci_high":null,"pairs":0}]'

bl init >/dev/null || exit 1
# regression ID ALERT MACHINE BENCHMARK CONFIG METRIC COMMIT SUBJECT PR RATIO LO HI PROBES
regression() {
	printf "INSERT INTO regressions (id, alert_id, machine_id, benchmark_id, config, metric, commit_sha, source_hash, subject, pr, ratio, lo, hi, reference_commit, probes, created_at) SELECT %s, %s, m.id, b.id, '%s', '%s', '%s', '%s', %s, %s, %s, %s, %s, '%s', '%s', 0 FROM machines m, benchmarks b WHERE m.name = '%s' AND b.name = '%s';\n" \
		"$1" "$2" "$5" "$6" "$7" "$7" "$8" "$9" "${10}" "${11}" "${12}" "$c0" "${13}" "$3" "$4"
}
{
	echo "INSERT INTO machines (name) VALUES ('m1'), ('m2');"
	echo "INSERT INTO benchmarks (name) VALUES ('parse'), ('render'), ('<b>x|y</b>');"
	# 1 confirmed, two Regressions; 2 covered, one; 3 open; 4 confirmed, none; 5 filed already
	for a in "1 m1 confirmed $ca" "2 m2 covered $cc" "3 m1 open $ce" "4 m1 confirmed $ce" "5 m1 confirmed $ce"; do
		set -- $a
		echo "INSERT INTO alerts (id, machine_id, commit_sha, side, state, series, created_at) SELECT $1, id, '$4', 'slower', '$3', 2, 0 FROM machines WHERE name = '$2';"
	done
	echo "UPDATE alerts SET filed_url = 'https://issues.example/5' WHERE id = 5;"
	regression 1 1 m1 parse '' wall_ms "$ca" "'Speed up parsing (#7)'" 7 1.05 1.03 1.07 '[]'
	regression 2 1 m1 render 4k frame_ms "$cb" "'Rework the renderer'" 9 1.2 1.18 1.22 "$PROBES"
	regression 3 2 m2 '<b>x|y</b>' 'a|b' ns "$cc" "'fix *all* @here [x](javascript:alert(1))'" NULL 1.1 NULL NULL '[]'
	regression 4 3 m1 parse '' cpu_ms "$ce" NULL NULL 1.3 1.2 1.4 '[]'
	regression 5 5 m1 parse '' mem "$ce" NULL NULL 1.3 1.2 1.4 '[]'
} >setup.sql
db_sql "$BENCHLINE_DB" <setup.sql || { echo 'Bail out! cannot write the alerts'; exit 1; }

test_expect 'one issue per confirmed or covered alert with a Regression, not filed yet' '
	bl triage >actual &&
	cat >expect <<-EOF &&
	alert 1: render [4k] frame_ms +20.0% on m1 at bbbbbbbbbbbb (#9) +1 more
	    labels performance, needs-triage; Regressions 2, 1
	alert 2: <b>x|y</b> [a|b] ns +10.0% on m2 at cccccccccccc
	    labels performance, needs-triage; Regression 3
	EOF
	test_cmp expect actual
'

test_expect '--json: {id, title, body, labels, regressions}, the largest Regression first' '
	bl triage --json >issues.json &&
	json_get issues.json "join qq(\n), map { join q(|), \$_->{id}, \$_->{title}, join(q(,), @{\$_->{labels}}), join(q(,), @{\$_->{regressions}}), join(q(,), sort keys %\$_) } @\$j" >actual &&
	cat >expect <<-EOF &&
	1|render [4k] frame_ms +20.0% on m1 at bbbbbbbbbbbb (#9) +1 more|performance,needs-triage|2,1|body,id,labels,regressions,title
	2|<b>x|y</b> [a|b] ns +10.0% on m2 at cccccccccccc|performance,needs-triage|3|body,id,labels,regressions,title
	EOF
	test_cmp expect actual
'

test_expect 'the body: commit, subject, pull request, every Series, chart links, the probe log' '
	# (json_get ends what it prints with a newline, after the body'"'"'s own)
	bl triage --json --base-url https://bench.example/sub/ | json_get - "\$j->[0]{body}" >actual &&
	cat >expect <<-EOF &&
	benchline confirmed a slowdown on m1 by measuring again, and bisection pinned it to a commit.

	- **Commit:** \`$cb\` Rework the renderer
	- **Pull request:** #9
	- **Alert:** 1 (confirmed), 2 Series, from the records of \`aaaaaaaaaaaa\`

	### Regressions

	| Series | delta | 99% interval | commit | pull request | reference | chart |
	|---|---:|---|---|---|---|---|
	| render \\[4k\\] frame\\_ms | +20.0% | [+18.0%, +22.0%] | \`bbbbbbbbbbbb\` | #9 | \`000000000000\` | [chart](https://bench.example/sub/series/m1/render/4k/frame_ms) |
	| parse wall\\_ms | +5.0% | [+3.0%, +7.0%] | \`aaaaaaaaaaaa\` | #7 | \`000000000000\` | [chart](https://bench.example/sub/series/m1/parse//wall_ms) |

	### Bisection

	**render \\[4k\\] frame\\_ms**: each probe measured against good \`000000000000\`, the ends first.

	| probe | verdict | metric | ratio | 99% interval | pairs |
	|---|---|---|---:|---|---:|
	| \`bbbbbbbbbbbb\` | slower | render \\[4k\\] frame\\_ms | 1.2000 | [1.1800, 1.2200] | 10 |
	| \`dddddddddddd\` | skipped: unbuildable |  | – | – | 0 |

	**parse wall\\_ms**: each probe measured against good \`000000000000\`, the ends first.

	No probe log was stored.

	EOF
	test_cmp expect actual
'

test_expect '--markdown: names and subjects cannot break the table, link, or mention anyone' '
	bl triage --markdown >issues.md &&
	grep -qxF "# render \\[4k\\] frame\\_ms +20.0% on m1 at bbbbbbbbbbbb (#9) +1 more" issues.md &&
	grep -qxF "# \\<b\\>x\\|y\\</b\\> \\[a\\|b\\] ns +10.0% on m2 at cccccccccccc" issues.md &&
	grep -qF -- "- **Commit:** \`$cc\` fix \\*all\\* \\@here \\[x\\](javascript:alert(1))" issues.md &&
	grep -qF -- "- **Pull request:** none named in the commit'"'"'s subject" issues.md &&
	grep -qF "| \\<b\\>x\\|y\\</b\\> \\[a\\|b\\] ns | +10.0% | none | \`cccccccccccc\` |  | \`000000000000\` |" issues.md &&
	test "$(grep -c "^---$" issues.md)" = 1
'

test_expect '--mark-filed records where the issue went; that alert is never listed again' '
	bl triage --mark-filed 1=https://issues.example/1 2>err &&
	grep -q "^benchline: alert 1 filed at https://issues.example/1$" err &&
	test "$(db_sql "$BENCHLINE_DB" "SELECT filed_url FROM alerts WHERE id = 1")" = https://issues.example/1 &&
	bl triage --json | json_get - "join q(,), map { \$_->{id} } @\$j" >actual &&
	echo 2 >expect && test_cmp expect actual &&
	bl triage | grep -c "^alert " >actual &&
	echo 1 >expect && test_cmp expect actual
'

test_expect 'an unknown alert is an error (exit 2) and marks none of the others' '
	expect_exit 2 bl triage --mark-filed 2=https://issues.example/2 --mark-filed 99=https://x/99 2>err &&
	grep -q "^benchline: no alert 99$" err &&
	test "$(db_sql "$BENCHLINE_DB" "SELECT count(*) FROM alerts WHERE id = 2 AND filed_url IS NULL")" = 1
'

test_expect 'a malformed --mark-filed, or two formats at once, is a usage error (exit 2)' '
	for arg in x=https://u 1= =https://u 1 0=https://u "1=https://a b" -3=u; do
		expect_exit 2 bl triage --mark-filed "$arg" 2>err || exit 1
		grep -q "mark-filed wants ALERT=URL" err || { cat err; exit 1; }
	done &&
	expect_exit 2 bl triage --json --markdown 2>err &&
	grep -q "pick one" err &&
	expect_exit 2 bl triage --json --mark-filed 2=https://u 2>err &&
	grep -q "takes no other option" err &&
	test "$(db_sql "$BENCHLINE_DB" "SELECT count(*) FROM alerts WHERE filed_url IS NOT NULL")" = 2
'

test_expect 'once every issue is filed: nothing on stdout, [] with --json' '
	bl triage --mark-filed 2=https://issues.example/2 2>/dev/null &&
	bl triage >out 2>err &&
	test ! -s out && grep -q "nothing to triage" err &&
	bl triage --json >actual &&
	echo "[]" >expect && test_cmp expect actual
'
test_done

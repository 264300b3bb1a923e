#!/bin/sh
# A non-finite or absurd --limit is refused (§13), by every command that takes one: rebench,
# bisect, gate (and gate --live) and confirm. A limit is a ratio above 1 and at most 10; inf,
# 1e308 and nan made rebench and bisect blind (no shift could pass them), and 1 or less makes
# every run slower. Each is a usage error: exit 2, the message, then the usage. benchline.json's
# gate.limit follows the same rule.
. "$(dirname "$0")/lib.sh"

git init -q repo && echo a >repo/a && (cd repo && git add a && git commit -qm init) &&
	bl init >/dev/null || { echo 'Bail out! no repository'; exit 1; }

for limit in inf -inf 1e308 nan 1 1.0 0.5 -3 10.5; do
	test_expect "--limit $limit is refused by rebench, bisect, gate, gate --live and confirm" '
		for cmd in "rebench --repo repo HEAD HEAD" "bisect --repo repo --good HEAD --bad HEAD" \
			"gate --repo repo --head HEAD" "gate --live --repo repo --head HEAD" \
			"confirm --repo repo"; do
			expect_exit 2 bl $cmd --limit "$limit" 2>err || { echo "$cmd"; return 1; }
			head -1 err >actual &&
			echo "benchline: --limit is a ratio above 1 and at most 10 (1.02 lets a metric grow by 2%), not $(printf %g "$limit" 2>/dev/null || echo "$limit")" >expect &&
			test_cmp expect actual &&
			grep -q "^usage: benchline ${cmd%% *}" err || { echo "$cmd"; return 1; }
		done
	'
done

test_expect 'the bounds themselves: 10 is taken, 1.0000001 too' '
	for limit in 10 1.0000001; do
		bl gate --repo repo --head HEAD --limit "$limit" >out 2>err ||
			{ test $? != 2 || { cat err; return 1; }; }
	done
'

test_expect 'gate.limit in benchline.json: the same rule' '
	for limit in 1 0.5 1e308 11; do
		printf "{\"gate\": {\"limit\": %s}}\n" "$limit" >repo/benchline.json &&
		expect_exit 2 bl gate --repo repo --head HEAD 2>err &&
		grep -q "benchline.json: gate.limit: expected a ratio above 1 and at most 10 (1.02 lets a metric grow by 2%)" err ||
		{ echo "$limit"; return 1; }
	done
'
test_done

#!/bin/sh
# Deterministic counters (§9.6) and where the extra instructions went (§9.7), on a real
# repository of a real C benchmark program under real valgrind: the counted live gate fails a
# branch whose checksum executes about 1.9% more instructions and passes two A/A branches
# within 0.1%; the second A/A gate reuses the merge base the first counted; the profile in the
# JSON, the Markdown and the triage issue; the sweep stores an instruction Series that detect
# judges with the 0.5% floor; a changed CFLAGS makes a stored counted row SOFT (measured_on
# names it cflags); bad input.
. "$(dirname "$0")/lib.sh"

command -v valgrind >/dev/null || {
	echo "1..0 # SKIP valgrind is not installed (make deps)"
	exit 0
}

# The program: two benchmarks doing fixed work per iteration (checksum, other), timed in
# nanoseconds as BMF; --filter NAME runs one, --iterations N sets how many. CHECKSUM_WORK is
# on a line of its own for sed.
program() {
	cat >repo/bench.c <<'EOC'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#define CHECKSUM_WORK 50000
#define OTHER_WORK 40000
__attribute__((noinline)) static unsigned long checksum(unsigned long n)
{
	volatile unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++)
		s += i ^ (s >> 3);
	return s;
}
__attribute__((noinline)) static unsigned long other(unsigned long n)
{
	volatile unsigned long s = 1;
	for (unsigned long i = 0; i < n; i++)
		s = s * 3 + i;
	return s;
}
static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}
int main(int argc, char **argv)
{
	const char *filter = NULL;
	long iterations = 100;
	int first = 1;
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "--filter"))
			filter = argv[++i];
		else if (!strcmp(argv[i], "--iterations"))
			iterations = atol(argv[++i]);
	printf("{");
	if (!filter || !strcmp(filter, "checksum")) {
		double t = now();
		for (long k = 0; k < iterations; k++)
			checksum(CHECKSUM_WORK);
		printf("\"checksum\": {\"latency\": {\"value\": %.1f}}", (now() - t) / iterations);
		first = 0;
	}
	if (!filter || !strcmp(filter, "other")) {
		double t = now();
		for (long k = 0; k < iterations; k++)
			other(OTHER_WORK);
		printf("%s\"other\": {\"latency\": {\"value\": %.1f}}", first ? "" : ", ",
		       (now() - t) / iterations);
	}
	printf("}\n");
	return 0;
}
EOC
}

settings() { # settings COUNTER-COMMAND
	cat >repo/benchline.json <<EOF
{"machine": "box", "measured_paths": ["bench.c"], "unmeasured_paths": [".gitignore", "benchline.json"],
 "bench": {"build": "cc -O1 -g \$CFLAGS -o bench bench.c", "run": "./bench", "format": "bmf",
           "processes": 1, "counters": {"run": "$1"}}}
EOF
}

test_expect 'setup: main, a branch whose checksum does 1.9% more work, two A/A branches' '
	git init -q -b main repo && program && settings "./bench --filter {benchmark} --iterations 20" &&
	printf "bench\n.benchline/\n" >repo/.gitignore &&
	git -C repo add -A && git -C repo commit -qm "a benchmark" &&
	git -C repo checkout -qb slower &&
	sed "s/^#define CHECKSUM_WORK 50000$/#define CHECKSUM_WORK 50950/" repo/bench.c >b.c &&
	mv b.c repo/bench.c && git -C repo commit -qam "checksum: 1.9% more work" &&
	for b in aa1 aa2; do
		git -C repo checkout -q main && git -C repo checkout -qb $b &&
		printf "__attribute__((used)) static int unused_%s(int x) { return x * 7; }\n" $b \
			>>repo/bench.c &&
		git -C repo commit -qam "$b: an unused function" || exit 1
	done &&
	git -C repo checkout -q main
'

row() { # row FILE BENCHMARK METRIC EXPR: EXPR of that row ($c) of the gate's JSON FILE
	json_get "$1" "my (\$c) = grep { \$_->{benchmark} eq q($2) && \$_->{metric} eq q($3) } @{\$j->{comparisons}}; $4"
}

test_expect 'the counted gate fails the slower branch: checksum 1.01-1.03, the other within 0.1%' '
	(cd repo && expect_exit 1 env -u BENCHLINE_DB "$BENCHLINE" gate --live --counters-only \
		--head slower --base main --json ../slow.json --markdown ../slow.md >../slow.out 2>../slow.err) &&
	cat slow.out &&
	grep -q "^FAIL  *[0-9.]* .* box/checksum instructions " slow.out &&
	row slow.json checksum instructions "die unless \$c->{status} eq q(FAIL) && \$c->{method} eq q(count) && \$c->{ratio} > 1.01 && \$c->{ratio} < 1.03 && \$c->{ci_low} == \$c->{ratio} && \$c->{ci_high} == \$c->{ratio}; 1" &&
	row slow.json other instructions "die unless \$c->{status} eq q(PASS) && abs(\$c->{ratio} - 1) < 0.001; 1" &&
	json_get slow.json "\$j->{live}{counters}{machine}" | grep -q "^callgrind-[0-9.]*-[0-9a-f]\{8\}$" &&
	json_get slow.json "\$j->{live}{reused_base} ? 1 : 0" | grep -qx 0
'

test_expect 'the profile names checksum first, in the table, the JSON and the Markdown' '
	grep -q "^gate: where the extra instructions went in .checksum.: +1\.[0-9]*% self, .* in checksum (bench\.c)$" slow.out &&
	json_get slow.json "join q( ), map { \$_->{benchmark} } @{\$j->{profiles}}" >actual &&
	echo checksum >expect && test_cmp expect actual &&
	json_get slow.json "my \$p = \$j->{profiles}[0]; die unless \$p->{fixed_work} && \$p->{base_total} > 0 && \$p->{functions}[0]{self_share} > 0.01 && \$p->{functions}[0]{self_share} < 0.03; \$p->{functions}[0]{function} . q( ) . \$p->{functions}[0]{file}" >actual &&
	echo "checksum bench.c" >expect && test_cmp expect actual &&
	grep -q "<details><summary>where the extra instructions went: checksum</summary>" slow.md &&
	grep -q "^| checksum | bench\.c | +1\.[0-9][0-9]% | +1\.[0-9][0-9]% |$" slow.md
'

test_expect 'A/A: an unused function changes the binary, no count; --no-reuse counts the merge base again' '
	(cd repo && env -u BENCHLINE_DB "$BENCHLINE" gate --live --counters-only --no-reuse \
		--head aa1 --base main --json ../aa1.json >../aa1.out 2>../aa1.err) &&
	for b in checksum other; do
		row aa1.json $b instructions "die unless \$c->{status} eq q(PASS) && abs(\$c->{ratio} - 1) < 0.001; 1" || exit 1
	done &&
	json_get aa1.json "\$j->{live}{reused_base} ? 1 : 0" | grep -qx 0 &&
	! grep -q "reusing the merge base" aa1.out
'

test_expect 'the second A/A gate reuses the merge base the first counted: neither built nor counted' '
	(cd repo && env -u BENCHLINE_DB "$BENCHLINE" gate --live --counters-only \
		--head aa2 --base main --json ../aa2.json >../aa2.out 2>../aa2.err) &&
	cat aa2.out &&
	grep -q "^gate: reusing the merge base counted on 20[0-9-]*T[0-9:]*Z$" aa2.out &&
	json_get aa2.json "\$j->{live}{reused_base} ? 1 : 0" | grep -qx 1 &&
	json_get aa2.json "\$j->{live}{base_counted_on}" | grep -q "^20[0-9-]*T[0-9:]*Z$" &&
	json_get aa2.json "\$j->{live}{build_s}{merge_base}" | grep -qx null &&
	for b in checksum other; do
		row aa2.json $b instructions "die unless \$c->{status} eq q(PASS) && abs(\$c->{ratio} - 1) < 0.001; 1" || exit 1
	done &&
	test -f repo/.benchline/counters.db
'

test_expect 'a merge base counted under another build stamp is not reused: counted again' '
	(cd repo && CFLAGS=-fno-omit-frame-pointer env -u BENCHLINE_DB "$BENCHLINE" gate --live \
		--counters-only --head aa2 --base main --json ../stamp.json >../stamp.out 2>../stamp.err) &&
	json_get stamp.json "\$j->{live}{reused_base} ? 1 : 0" | grep -qx 0 &&
	! grep -q "reusing the merge base" stamp.out
'

test_expect 'a full live gate times the benchmarks beside the counts, and the counts decide' '
	(cd repo && expect_exit 1 env -u BENCHLINE_DB "$BENCHLINE" gate --live --head slower \
		--base main --json ../full.json >../full.out 2>../full.err) &&
	row full.json checksum latency "die unless \$c->{method} eq q(paired) && \$c->{pairs} > 0; 1" &&
	row full.json checksum instructions "\$c->{status}" >actual &&
	echo FAIL >expect && test_cmp expect actual
'

test_expect 'bisect --counters-only pins the slower commit by its count, and profiles it' '
	bl --db "$TMP/bisect.db" init >/dev/null &&
	(cd repo && bl --db "$TMP/bisect.db" bisect --good main --bad slower --benchmark checksum \
		--counters-only --json >../bisect.json 2>../bisect.err) &&
	json_get bisect.json "join q( ), \$j->{outcome}, \$j->{probes}[0]{metric}, \$j->{profile}{functions}[0]{function}" >actual &&
	echo "pinned checksum instructions checksum" >expect && test_cmp expect actual &&
	bl --db "$TMP/bisect.db" regressions --json >regs.json &&
	json_get regs.json "my \$r = \$j->[0]; join q( ), \$r->{machine} =~ /^callgrind-/ ? q(counter-key) : \$r->{machine}, \$r->{metric}, \$r->{profile}{functions}[0]{function}" >actual &&
	echo "counter-key instructions checksum" >expect && test_cmp expect actual
'

test_expect 'without valgrind, bench.counters fails at once naming the package' '
	mkdir nobin && for t in env cc sh cat; do ln -s "$(command -v $t)" nobin/$t || exit 1; done &&
	(cd repo && PATH="$TMP/nobin" expect_exit 2 env -u BENCHLINE_DB "$BENCHLINE" gate --live \
		--counters-only --head aa1 --base main >../nov.out 2>../nov.err) &&
	cat nov.err &&
	grep -q "valgrind" nov.err && grep -q "apt-get install valgrind" nov.err
'

test_expect 'a counter command that fails is reported with its status and stderr, and stores nothing' '
	settings "./bench --filter {benchmark} --iterations 20 && echo broken-on-purpose >&2 && exit 3" &&
	(cd repo && expect_exit 2 "$BENCHLINE" --db ../fail.db gate --live --counters-only --no-reuse \
		--head aa1 --base main >../fail.out 2>../fail.err) &&
	cat fail.err &&
	grep -q "exited with status 3" fail.err && grep -q "broken-on-purpose" fail.err &&
	if test -f fail.db || pg_mode; then
		db_sql fail.db "SELECT count(*) FROM runs" 2>/dev/null >actual || echo 0 >actual
		echo 0 >expect && test_cmp expect actual
	fi &&
	settings "./bench --filter {benchmark} --iterations 20"
'

# The sweep: main's sources measured one by one, each timed and counted; the fourth does 1.9%
# more work in checksum, which a timing's 3% floor would hide and the counts' 0.5% does not.
test_expect 'the sweep stores an instruction Series, and detect judges it with the 0.5% floor' '
	bl init >/dev/null &&
	for k in 1 2 3 4; do
		echo "/* comment $k */" >>repo/bench.c &&
		git -C repo commit -qam "comment $k" &&
		(cd repo && bl sweep --last 1 --no-preflight >../sweep$k.out 2>../sweep$k.err) || exit 1
	done &&
	grep -q "(2 instruction counts)" sweep4.err &&
	sed "s/^#define CHECKSUM_WORK 50000$/#define CHECKSUM_WORK 50950/" repo/bench.c >b.c &&
	mv b.c repo/bench.c && git -C repo commit -qam "checksum: 1.9% more work" &&
	(cd repo && bl sweep --last 1 --no-preflight >../sweep5.out 2>../sweep5.err) &&
	bl series --json >series.json &&
	json_get series.json "scalar grep { \$_->{metric} eq q(instructions) && \$_->{machine} =~ /^callgrind-/ } @{ref(\$j) eq q(ARRAY) ? \$j : \$j->{series}}" >actual &&
	echo 2 >expect && test_cmp expect actual &&
	bl detect >/dev/null 2>&1 &&
	bl suspects --json >suspects.json &&
	json_get suspects.json "join q(,), sort map { \$_->{benchmark} . q(/) . \$_->{metric} } grep { \$_->{machine} =~ /^callgrind-/ } @{ref(\$j) eq q(ARRAY) ? \$j : \$j->{suspects}}" >actual &&
	echo "checksum/instructions" >expect && test_cmp expect actual
'

test_expect 'a stored counted row whose build stamp differs is SOFT, naming CFLAGS' '
	before=$(git -C repo rev-parse HEAD) &&
	echo "/* comment 6 */" >>repo/bench.c && git -C repo commit -qam "comment 6" &&
	(cd repo && CFLAGS=-O2 bl sweep --last 1 --no-preflight >../sweep6.out 2>../sweep6.err) &&
	(cd repo && bl gate --head HEAD --base "$before" --json ../soft.json >../soft.out 2>&1); cat soft.out;
	row soft.json checksum instructions "\$c->{status} . q(: ) . \$c->{note}" >actual &&
	echo "SOFT: build stamp differs (cflags): the two counts were built differently" >expect &&
	test_cmp expect actual
'

test_expect 'an accepted instruction growth lets the benchmark'"'"'s timings run hot by as much' '
	git -C repo checkout -q HEAD~1 &&
	(cd repo && expect_exit 1 "$BENCHLINE" gate --head HEAD --base HEAD~1 >../acc0.out 2>&1) &&
	grep -q "^FAIL .*/checksum instructions" acc0.out &&
	(cd repo && "$BENCHLINE" gate accept --justification "checksum does more on purpose" \
		--head HEAD --base HEAD~1 --only "checksum:instructions" >../accept.out 2>&1) &&
	(cd repo && "$BENCHLINE" gate --head HEAD --base HEAD~1 --json ../acc.json >../acc.out 2>&1
	 test $? -le 1) && # a timing of one run a side may fail on a busy machine: not the point here
	row acc.json checksum instructions "\$c->{status}" >actual &&
	echo ACPT >expect && test_cmp expect actual &&
	row acc.json checksum latency "\$c->{note}" | grep -q "limit raised by the accepted +1\.[0-9]% of its instructions" &&
	row acc.json other latency "\$c->{note} // q()" | grep -qv "limit raised" &&
	git -C repo checkout -q main
'

test_done

#!/bin/sh
# Tags (§5): why a run is not on its Series. dirty, profile, preflight, noisy (p95/median at or
# over 1.06), not-main (before and after a sync), superseded; a baseline is never not-main.
. "$(dirname "$0")/lib.sh"

C1=$(printf 'c%039d' 1)

# rec [NAME=VALUE...]: one native record on one line. branch=none leaves
# source.branch out; extra= is pasted at the top level, source_extra= inside "source".
rec() (
	machine=m1 benchmark=town commit=$C1 source=$(printf 'a%039d' 1) branch=main
	median=100 p95=102 extra= source_extra= metrics=
	for a in "$@"; do eval "${a%%=*}=\${a#*=}"; done
	[ -n "$metrics" ] ||
		metrics="{\"gpu_frame_us\":{\"unit\":\"us\",\"median\":$median,\"p95\":$p95,\"n\":30}}"
	[ "$branch" = none ] || source_extra="$source_extra\"branch\":\"$branch\","
	printf '{"schema":1,"machine":"%s","benchmark":"%s","harness_version":1,' \
		"$machine" "$benchmark"
	printf '"source":{%s"commit":"%s","source_hash":"%s"},' "$source_extra" "$commit" "$source"
	printf '"started_at":"2026-11-02T04:00:00Z",%s"metrics":%s}\n' "$extra" "$metrics"
)

# tags_of [NAME=VALUE...]: ingests one record on a key of its own (benchmark tagN, N counted
# in a file: it runs in a subshell) and prints its tags, comma-separated ("-" when none).
tags_of() {
	n=$(($(cat counter 2>/dev/null || echo 0) + 1)) &&
	echo $n >counter &&
	rec benchmark=tag$n "$@" >tag$n.json &&
	bl ingest tag$n.json >/dev/null &&
	bl records --json --all --benchmark tag$n >tag$n.out &&
	json_get tag$n.out '@$j == 1 ? (join(",", @{$j->[0]{tags}}) || "-") : "runs: " . scalar @$j'
}

# expect_tags WANT [NAME=VALUE...]: the record's tags are WANT.
expect_tags() {
	want=$1
	shift
	got=$(tags_of "$@") || return 1
	[ "$got" = "$want" ] && return 0
	echo "want tags: $want, got: $got (for $*)"
	return 1
}

test_expect 'a clean run has no tag' '
	expect_tags - &&
	expect_tags - extra="\"profile\":\"release\"," &&
	expect_tags - source_extra="\"dirty\":false," &&
	expect_tags - extra="\"preflight\":{\"quiet\":true,\"warnings\":[\"governor\"]},"
'

test_expect 'dirty: uncommitted changes' '
	expect_tags dirty source_extra="\"dirty\":true,"
'

test_expect 'profile: any profile but release' '
	expect_tags profile extra="\"profile\":\"debug\"," &&
	expect_tags profile extra="\"profile\":\"Release\"," &&
	expect_tags profile extra="\"profile\":\"\","
'

test_expect 'preflight: the machine was busy' '
	expect_tags preflight extra="\"preflight\":{\"quiet\":false,\"cpu_load_pct\":55.0},"
'

test_expect 'noisy: p95/median of 1.06 or more, and not below' '
	expect_tags - median=100 p95=105.99 &&
	expect_tags noisy median=100 p95=106 &&
	expect_tags - median=1000 p95=1059.9 &&
	expect_tags noisy median=1000 p95=1060 &&
	expect_tags noisy median=100 p95=250
'

test_expect 'noisy from samples: nearest-rank p95 (the 19th of 20)' '
	s19="100,100,100,100,100,100,100,100,100,100,100,100,100,100,100,100,100,100,100,106" &&
	s18="100,100,100,100,100,100,100,100,100,100,100,100,100,100,100,100,100,100,106,106" &&
	expect_tags - metrics="{\"t\":{\"unit\":\"us\",\"samples\":[$s19]}}" &&
	expect_tags noisy metrics="{\"t\":{\"unit\":\"us\",\"samples\":[$s18]}}"
'

test_expect 'noisy judges the primary metric only' '
	m="{\"a_ms\":{\"unit\":\"ms\",\"median\":10,\"p95\":10.1},\"b_ms\":{\"unit\":\"ms\",\"median\":10,\"p95\":20}}" &&
	expect_tags - metrics="$m" &&
	expect_tags noisy metrics="$m" extra="\"primary\":\"b_ms\","
'

test_expect 'not-main before any sync: a branch other than main or master' '
	expect_tags not-main branch=feature/faster-blit &&
	expect_tags not-main branch=main2 &&
	expect_tags - branch=main &&
	expect_tags - branch=master &&
	expect_tags - branch=none
'

test_expect 'a baseline is never not-main' '
	expect_tags - branch=feature/x extra="\"baseline\":true," &&
	expect_tags - branch=none extra="\"baseline\":true,"
'

test_expect 'several tags at once, sorted' '
	expect_tags dirty,noisy,not-main,preflight,profile branch=wip p95=150 \
		source_extra="\"dirty\":true," \
		extra="\"profile\":\"debug\",\"preflight\":{\"quiet\":false},"
'

test_expect 'superseded: another run holds the key' '
	rec benchmark=sup p95=101 >sup1.json &&
	rec benchmark=sup p95=103 | sed "s/04:00:00Z/05:00:00Z/" >sup2.json &&
	bl ingest sup1.json sup2.json &&
	bl records --json --all --benchmark sup >sup.out &&
	test "$(json_get sup.out "join q( ), map { join(q(,), @{\$_->{tags}}) || q(-) } sort { \$a->{id} <=> \$b->{id} } @\$j")" = "- superseded"
'

test_expect 'tagged runs are stored and listed' '
	bl records --json --all >all.json &&
	test "$(json_get all.json "scalar grep { @{\$_->{tags}} } @\$j")" -ge 10 &&
	test "$(json_get all.json "scalar grep { !@{\$_->{tags}} } @\$j")" -ge 5
'

# After a sync, not-main comes from main's history: a record counts as main's when its commit
# is on main or its source hash is that of a commit on main.
test_expect 'setup: a repository with main and a feature branch' '
	git init -q repo &&
	mkdir repo/src repo/docs &&
	echo "{\"measured_paths\": [\"src\"], \"unmeasured_paths\": [\"docs\", \"benchline.json\"]}" >repo/benchline.json &&
	echo one >repo/src/a.c && echo doc >repo/docs/x.md &&
	git -C repo add . && git -C repo commit -q -m "first" &&
	echo two >repo/src/a.c && git -C repo commit -q -am "second (#12)" &&
	git -C repo checkout -q -b feature &&
	echo three >repo/src/a.c && git -C repo commit -q -am "feature work" &&
	git -C repo checkout -q -b docs-only main &&
	echo more >repo/docs/x.md && git -C repo commit -q -am "docs only" &&
	git -C repo checkout -q main &&
	bl hash --repo repo main feature docs-only >hashes &&
	cat hashes &&
	test "$(wc -l <hashes)" = 3 &&
	test "$(sed -n 3p hashes | cut -d" " -f1)" = "$(sed -n 1p hashes | cut -d" " -f1)" &&
	test "$(sed -n 2p hashes | cut -d" " -f1)" != "$(sed -n 1p hashes | cut -d" " -f1)"
'

main_src() { sed -n 1p hashes | cut -d" " -f1; }
main_commit() { sed -n 1p hashes | cut -d" " -f2; }
feature_src() { sed -n 2p hashes | cut -d" " -f1; }
feature_commit() { sed -n 2p hashes | cut -d" " -f2; }
docs_commit() { sed -n 3p hashes | cut -d" " -f2; }

test_expect 'before the sync the branch names decide' '
	BENCHLINE_DB=$TMP/sync.db &&
	export BENCHLINE_DB &&
	rec benchmark=s-main commit=$(main_commit) source=$(main_src) branch=main >s1.json &&
	rec benchmark=s-feat commit=$(feature_commit) source=$(feature_src) branch=feature >s2.json &&
	rec benchmark=s-lies commit=$(feature_commit) source=$(feature_src) branch=main >s3.json &&
	rec benchmark=s-docs commit=$(docs_commit) source=$(main_src) branch=docs-only >s4.json &&
	bl ingest s1.json s2.json s3.json s4.json &&
	bl records --json --all >before.out &&
	test "$(json_get before.out "join q( ), map { \$_->{benchmark} . q(=) . (join(q(,), @{\$_->{tags}}) || q(-)) } sort { \$a->{benchmark} cmp \$b->{benchmark} } @\$j")" = "s-docs=not-main s-feat=not-main s-lies=- s-main=-"
'

test_expect 'sync recomputes not-main from main: commit or source hash on main' '
	BENCHLINE_DB=$TMP/sync.db &&
	export BENCHLINE_DB &&
	bl sync --repo repo &&
	bl records --json --all >after.out &&
	test "$(json_get after.out "join q( ), map { \$_->{benchmark} . q(=) . (join(q(,), @{\$_->{tags}}) || q(-)) } sort { \$a->{benchmark} cmp \$b->{benchmark} } @\$j")" = "s-docs=- s-feat=not-main s-lies=not-main s-main=-"
'

test_expect 'after a sync, new runs are judged by main, not by their branch name' '
	BENCHLINE_DB=$TMP/sync.db &&
	export BENCHLINE_DB &&
	rec benchmark=s-new-main commit=$(main_commit) source=$(main_src) branch=whatever >s5.json &&
	rec benchmark=s-new-feat commit=$(feature_commit) source=$(feature_src) branch=main >s6.json &&
	rec benchmark=s-new-base commit=$(feature_commit) source=$(feature_src) branch=main extra="\"baseline\":true," >s7.json &&
	bl ingest s5.json s6.json s7.json &&
	bl records --json --all >new.out &&
	test "$(json_get new.out "join q( ), map { \$_->{benchmark} . q(=) . (join(q(,), @{\$_->{tags}}) || q(-)) } sort { \$a->{benchmark} cmp \$b->{benchmark} } grep { \$_->{benchmark} =~ /new/ } @\$j")" = "s-new-base=- s-new-feat=not-main s-new-main=-"
'

test_expect 'the noisy limit holds only from quiet.min_samples measurements (default 10)' '
	few() { echo "{\"gpu_frame_us\":{\"unit\":\"us\",\"median\":100,\"p95\":130,$1}}"; } &&
	expect_tags - metrics="$(few "\"n\":5")" &&
	expect_tags - metrics="$(few "\"n\":9")" &&
	expect_tags noisy metrics="$(few "\"n\":10")" &&
	expect_tags - metrics="{\"gpu_frame_us\":{\"unit\":\"us\",\"samples\":[100,100,101,100,140]}}" &&
	expect_tags noisy metrics="$(few "\"samples\":[100,100,100,100,100,100,100,100,100,100,130]")" &&
	expect_tags noisy metrics="{\"gpu_frame_us\":{\"unit\":\"us\",\"median\":100,\"p95\":130}}"
'

test_expect 'quiet.min_samples in benchline.json moves the threshold; a bad value is refused' '
	git init -q minrepo && echo x >minrepo/f && git -C minrepo add -A &&
	git -C minrepo commit -q -m one &&
	echo "{\"quiet\": {\"min_samples\": 3}}" >minrepo/benchline.json &&
	rec benchmark=few3 metrics="{\"gpu_frame_us\":{\"unit\":\"us\",\"median\":100,\"p95\":130,\"n\":5}}" \
		>few3.json &&
	bl --db min.db ingest --repo minrepo --json few3.json >few3.out &&
	test "$(json_get few3.out "join q(,), @{\$j->[0]{tags}}")" = noisy &&
	echo "{\"quiet\": {\"min_samples\": 0}}" >minrepo/benchline.json &&
	expect_exit 2 bl --db min.db ingest --repo minrepo few3.json 2>err &&
	grep -q "quiet.min_samples: expected an integer from 1 to 1000000" err
'

test_expect 'ingest says on the record line which tags keep a run off its Series, and why' '
	rec benchmark=line1 p95=112 extra="\"preflight\":{\"quiet\":false}," >line1.json &&
	bl --db line.db ingest line1.json >actual &&
	echo "line1.json: m1/line1 aaaaaaaaaaaa harness 1: stands, tagged noisy (p95/median 1.12 >= 1.06), preflight (preflight found the machine busy): not on its Series" |
		sed "s/aaaaaaaaaaaa/a00000000000/" >expect &&
	test_cmp expect actual &&
	rec benchmark=line1 p95=115 extra="\"preflight\":{\"quiet\":false}," >line2.json &&
	bl --db line.db ingest line2.json >actual &&
	echo "line2.json: m1/line1 a00000000000 harness 1: superseded (run 1 holds its key: p95/median 1.12 <= 1.15), tagged noisy (p95/median 1.15 >= 1.06), preflight (preflight found the machine busy): not on its Series" >expect &&
	test_cmp expect actual &&
	rec benchmark=line3 >line3.json &&
	bl --db line.db ingest line3.json >actual &&
	echo "line3.json: m1/line3 a00000000000 harness 1: stands" >expect &&
	test_cmp expect actual
'

test_done

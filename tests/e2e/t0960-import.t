#!/bin/sh
# benchline import (§10, docs/import.md): each history of fixtures/import/ stored with the
# summary line that says what was stored and what was skipped and why, a second import storing
# nothing, a history of the wrong kind or with a bad value saying where and storing nothing,
# --repo's source hashes, the flags, progress on stderr; and the hints ingest gives for other
# tools' files (a console output, another format), Catch2's XML and JMH's JSON read end to end.
. "$(dirname "$0")/lib.sh"

cp -R "$FIXTURES/import" imp

# runs: the number of runs stored in the database (any database: through records --json).
runs() {
	bl ${1:+--db "$1"} records --all --json | json_get - 'scalar @$j'
}

test_expect 'asv: every result at its commit, what was skipped and why, then nothing new' '
	bl --db asv.db import --from asv imp/asv/results >out 2>err &&
	cat >expect <<-\EOF &&
	imported '"'"'imp/asv/results'"'"' (asv): 15 records stored (15 standing), 0 already stored, on 5 Series; skipped 3 points without a value (a measurement that failed), 1 result whose benchmark the history does not describe (no type, no unit)
	EOF
	test_cmp expect out &&
	test ! -s err &&
	test "$(runs asv.db)" = 15 &&
	bl --db asv.db series --json | json_get - "scalar @\$j" >n && echo 5 | test_cmp - n &&
	db_dump asv.db >before &&
	bl --db asv.db import --from asv imp/asv/results >out &&
	cat >expect <<-\EOF &&
	imported '"'"'imp/asv/results'"'"' (asv): nothing new stored, 15 already stored, on 5 Series; skipped 3 points without a value (a measurement that failed), 1 result whose benchmark the history does not describe (no type, no unit)
	EOF
	test_cmp expect out &&
	db_dump asv.db >after &&
	test_cmp before after
'

test_expect 'asv: what a record holds (machine, config per environment and parameter, samples)' '
	bl --db asv.db records --json --benchmark benchmarks.TimeSuite.time_search >r.json &&
	json_get r.json "join q( ), sort map { \$_->{config} } @\$j" >configs &&
	echo "python=3.12 n=100 python=3.12 n=100 python=3.12 n=100 python=3.12 n=1000 python=3.12 n=1000 python=3.12 n=1000" >expect &&
	test_cmp expect configs &&
	json_get r.json "\$j->[0]{machine}" >m && echo ci-box | test_cmp - m &&
	json_get r.json "\$j->[0]{metrics}{time}{n}" >n && echo 10 | test_cmp - n
'

test_expect 'asv-html: the published site, its summaries and empty graphs skipped' '
	bl --db html.db import --from asv-html imp/asv-html >out &&
	cat >expect <<-\EOF &&
	imported '"'"'imp/asv-html'"'"' (asv-html): 15 records stored (15 standing), 0 already stored, on 5 Series; skipped 1 point at no git commit (the history names none), 6 summary files (asv'"'"'s overviews of other graphs, not measurements), 1 graph without a point
	EOF
	test_cmp expect out &&
	bl --db html.db import --from asv-html imp/asv-html >out &&
	grep -q "nothing new stored, 15 already stored, on 5 Series" out &&
	bl --db asv.db series >a && bl --db html.db series >h &&
	test_cmp a h
'

test_expect 'gab: one record per point, a re-run superseded, the point without a commit skipped' '
	bl --db gab.db import --from gab imp/gab/data.js >out &&
	cat >expect <<-\EOF &&
	imported '"'"'imp/gab/data.js'"'"' (gab): 10 records stored (8 standing), 0 already stored, on 3 Series; skipped 1 point at no git commit (the history names none)
	EOF
	test_cmp expect out &&
	test "$(runs gab.db)" = 10 &&
	bl --db gab.db import --from gab imp/gab/data.js >out &&
	grep -q "nothing new stored, 10 already stored" out &&
	test "$(runs gab.db)" = 10
'

test_expect 'gab --machine: the suites on one machine, a config each; --json' '
	bl --db gabm.db import --from gab --machine ci-box --harness-version 4 --json \
		imp/gab/data.js >out.json &&
	json_get out.json "join q( ), map { \"\$_=\$j->{\$_}\" } qw(from records stored standing duplicates series commits_unknown)" >got &&
	echo "from=gab records=10 stored=10 standing=8 duplicates=0 series=3 commits_unknown=0" >expect &&
	test_cmp expect got &&
	json_get out.json "\$j->{skipped}{no_commit}" >n && echo 1 | test_cmp - n &&
	bl --db gabm.db records --json >r.json &&
	json_get r.json "join q(,), sort { \$a cmp \$b } keys %{{ map { (\"\$_->{machine}/\$_->{config}/\$_->{harness_version}\" => 1) } @\$j }}" >keys &&
	echo "ci-box/C++ Benchmark/4,ci-box/Web Throughput/4" >expect &&
	test_cmp expect keys
'

test_expect 'bencher: a record per report, iterations as samples' '
	bl --db bencher.db import --from bencher imp/bencher/perf.json >out &&
	cat >expect <<-\EOF &&
	imported '"'"'imp/bencher/perf.json'"'"' (bencher): 4 records stored (4 standing), 0 already stored, on 3 Series; skipped 1 point at no git commit (the history names none)
	EOF
	test_cmp expect out &&
	bl --db bencher.db records --json --benchmark sort::quick/1000 >r.json &&
	json_get r.json "\$j->[0]{metrics}{latency}{n} . q( ) . \$j->[0]{metrics}{throughput}{better}" >got &&
	echo "2 higher" | test_cmp - got
'

test_expect 'a history of the wrong kind says what was expected and found, stores nothing' '
	expect_exit 2 bl --db wrong.db import --from gab imp/bencher/perf.json 2>err &&
	echo "benchline: imp/bencher/perf.json:1:1: not github-action-benchmark'"'"'s data.js: expected an object with \"entries\", found Bencher'"'"'s perf JSON (benchline import --from bencher)" >expect &&
	test_cmp expect err &&
	expect_exit 2 bl --db wrong.db import --from bencher imp/gab/data.js 2>err &&
	echo "benchline: imp/gab/data.js:1:1: not Bencher'"'"'s perf JSON: expected an object with a \"results\" array, found github-action-benchmark'"'"'s data.js (benchline import --from gab)" >expect &&
	test_cmp expect err &&
	expect_exit 2 bl --db wrong.db import --from asv imp/asv-html 2>err &&
	echo "benchline: imp/asv-html: not asv'"'"'s results directory: expected benchmarks.json and a directory per machine holding machine.json, found a site asv published (--from asv-html)" >expect &&
	test_cmp expect err &&
	expect_exit 2 bl --db wrong.db import --from asv-html imp/gab/data.js 2>err &&
	grep -q "^benchline: imp/gab/data.js: expected a site asv published (a directory holding index.json and graphs/), found a file: github-action-benchmark" err &&
	expect_exit 2 bl --db wrong.db import --from gab "$FIXTURES/formats/gbench.json" 2>err &&
	grep -q ":1:1: not github-action-benchmark.s data.js: expected an object with \"entries\", found Google Benchmark JSON (benchline ingest --format gbench)$" err &&
	test "$(runs wrong.db)" = 0
'

test_expect 'a bad value in the middle of a history: its position, and nothing of the history stored' '
	perl -pe "s/\"value\": 30411.2/\"value\": \"fast\"/" imp/gab/data.js >bad.js &&
	! cmp -s imp/gab/data.js bad.js &&
	expect_exit 2 bl --db bad.db import --from gab bad.js 2>err &&
	line=$(grep -n "\"fast\"" bad.js | cut -d: -f1) &&
	grep -q "^benchline: bad.js:$line:[0-9]*: entries.C++ Benchmark\[3\].benches\[0\].value: expected a number$" err &&
	test "$(runs bad.db)" = 0 &&
	mkdir -p badasv && cp -R imp/asv/results badasv/ &&
	f=$(ls badasv/results/ci-box/*-virtualenv-py3.12.json | tail -1) &&
	perl -0pi -e "s/\"version\": 2\n\}/\"version\": 1\n}/" "$f" &&
	expect_exit 2 bl --db bad.db import --from asv badasv/results 2>err &&
	grep -q "^benchline: $f:[0-9]*:[0-9]*: version: asv results of version 1: benchline reads version 2 (run .asv update. to rewrite them)$" err &&
	test "$(runs bad.db)" = 0
'

test_expect 'asv-html: parameters that are no list of lists are named where index.json has them' '
	cp -r imp/asv-html badparams &&
	perl -pi -e '"'"'s/\[\["100", "1000"\]\]/[7]/'"'"' badparams/index.json &&
	col=$(perl -ne '"'"'print index($_, q("params": [7])) + 11'"'"' badparams/index.json) &&
	expect_exit 2 bl --db badparams.db import --from asv-html badparams 2>err &&
	echo "benchline: badparams/index.json:1:$col: benchmarks.benchmarks.TimeSuite.time_search.params: expected a list of lists of parameter values" >expect &&
	test_cmp expect err &&
	test "$(runs badparams.db)" = 0
'

test_expect 'a NUL byte in a data.js is named by line and column, nothing stored' '
	printf "window.BENCHMARK_DATA = {\n  \000}\n" >nul.js &&
	expect_exit 2 bl --db nul.db import --from gab nul.js 2>err &&
	echo "benchline: nul.js:2:3: nul byte in file" >expect &&
	test_cmp expect err &&
	test "$(runs nul.db)" = 0
'

test_expect 'usage: --from is needed and named; one history at a time' '
	expect_exit 2 bl import imp/gab/data.js 2>err &&
	grep -q "^benchline: import needs --from TOOL (asv, asv-html, gab or bencher)$" err &&
	expect_exit 2 bl import --from jenkins x 2>err &&
	grep -q "^benchline: unknown --from .jenkins. (expected asv, asv-html, gab or bencher)$" err &&
	expect_exit 2 bl import --from gab a.js b.js 2>err &&
	grep -q "^benchline: import reads one history at a time$" err &&
	expect_exit 2 bl import --from asv 2>err &&
	grep -q "^benchline: no directory to import$" err
'

test_expect 'usage: an invalid --machine is named, and no database is made' '
	expect_exit 2 bl --db nomachine.db import --from gab --machine "a b" imp/gab/data.js 2>err &&
	grep -q "^benchline: invalid machine name .a b. (expected \[A-Za-z0-9._-\]{1,64})$" err &&
	test ! -e nomachine.db
'

# A repository whose commits a data.js names, for --repo: its benchline.json measures src/
# only, so a docs commit shares its parent's source hash.
test_expect '--repo: each record'"'"'s source hash from its commit; a commit the repository lacks says so' '
	git init -q proj && (
		cd proj &&
		mkdir src docs && echo 1 >src/a.c && echo d >docs/x.md &&
		echo "{\"measured_paths\": [\"src\"], \"unmeasured_paths\": [\"docs\", \"benchline.json\"]}" >benchline.json &&
		git add . && git commit -qm one &&
		echo 2 >src/a.c && git commit -qam two &&
		echo e >docs/x.md && git commit -qam docs
	) &&
	set -- $(git -C proj rev-list --reverse HEAD) &&
	perl -e "
		my @c = (@ARGV, q(f) x 40);
		my @e = map { sprintf q({\"commit\": {\"id\": \"%s\", \"tree_id\": \"%s\"}, \"date\": %d, \"tool\": \"go\", \"benches\": [{\"name\": \"BenchmarkX\", \"value\": %d, \"unit\": \"ns/op\"}]}),
			\$c[\$_], q(0) x 40, 1767225600000 + \$_ * 60000, 100 + \$_ } 0 .. 3;
		print q(window.BENCHMARK_DATA = {\"entries\": {\"Go Benchmark\": [), join(q(, ), @e), qq(]}}\n);
	" "$@" >repo.js &&
	bl --db repo.db import --from gab --repo proj repo.js >out &&
	grep -q "4 records stored (3 standing), 0 already stored, on 1 Series; 1 at commits the repository lacks (their source hash is the history.s own)$" out &&
	bl hash --repo proj "$1" "$2" "$3" | cut -d" " -f1 >want &&
	bl --db repo.db records --all --json >r.json &&
	json_get r.json "join qq(\n), map { \$_->{source_hash} } sort { \$a->{started_at} cmp \$b->{started_at} } @\$j" >got &&
	{ cat want; echo 0000000000000000000000000000000000000000; } >expect &&
	test_cmp expect got &&
	test "$(sed -n 2p want)" = "$(sed -n 3p want)"
'

test_expect 'a large history says on stderr that it stores, in one transaction' '
	perl -e "
		my @e = map { sprintf q({\"commit\": {\"id\": \"%040x\"}, \"date\": %d, \"benches\": [%s]}), \$_ + 1,
			1767225600000 + \$_ * 1000, join q(,), map { qq({\"name\": \"b\$_\", \"value\": 1, \"unit\": \"ns\"}) } 1 .. 100 } 0 .. 99;
		print q(window.BENCHMARK_DATA = {\"entries\": {\"Big\": [), join(q(, ), @e), qq(]}}\n);
	" >big.js &&
	bl --db big.db import --from gab big.js >out 2>err &&
	grep -q "^benchline: import: storing 10000 records of .big.js. in one transaction$" err &&
	grep -q "10000 records stored (10000 standing), 0 already stored, on 100 Series$" out
'

# --- ingest: the hints, Catch2 and JMH ---

test_expect 'Google Benchmark'"'"'s console output: run it with --benchmark_format=json' '
	cat >console.txt <<-\EOF &&
	2026-12-01T10:00:00+00:00
	Running ./bench
	Run on (2 X 2096 MHz CPU s)
	-----------------------------------------------------------
	Benchmark                 Time             CPU   Iterations
	-----------------------------------------------------------
	BM_StringCopy/64       28.5 ns         11.9 ns     58712345
	EOF
	expect_exit 2 bl ingest --machine m --harness-version 1 console.txt 2>err &&
	echo "benchline: console.txt:5:1: cannot tell the format: it looks like Google Benchmark'"'"'s console output (run it with --benchmark_format=json, or --benchmark_out=FILE --benchmark_out_format=json, and ingest that)" >expect &&
	test_cmp expect err
'

test_expect 'Google Benchmark JSON given as hyperfine'"'"'s: not hyperfine JSON' '
	expect_exit 2 bl ingest --format hyperfine --machine m --harness-version 1 \
		"$FIXTURES/formats/gbench.json" 2>err &&
	echo "benchline: $FIXTURES/formats/gbench.json:1:1: not hyperfine JSON: it looks like Google Benchmark JSON (benchline ingest --format gbench)" >expect &&
	test_cmp expect err
'

test_expect 'Catch2'"'"'s XML and JMH'"'"'s JSON are read, detected from their content' '
	git init -q bench && (cd bench && echo x >f && git add f && git commit -qm one) &&
	bl --db c.db ingest --machine m --harness-version 1 --repo bench --verbose \
		"$FIXTURES/formats/catch2.xml" "$FIXTURES/formats/jmh.json" >out 2>err &&
	grep -q "catch2.xml: format catch2 (decided from its content)" err &&
	grep -q "jmh.json: format jmh (decided from its content)" err &&
	grep -q "catch2.xml: m/vector<int> push_back 1000 .* stands$" out &&
	grep -q "jmh.json: m/org.example.jmh.SortBench.quickSort size=1000 kind=random .* stands$" out &&
	test "$(runs c.db)" = 6
'
test_done

#!/bin/sh
# benchline run: preflight, the command, its output parsed, tagged and stored; a failing
# command stores nothing. import-baseline: every record starts a line. ingest --format.
. "$(dirname "$0")/lib.sh"

# A quiet simulated machine, so preflight's verdict does not depend on this host's load.
cp -r "$FIXTURES/sysroot/quiet" quiet
export BENCHLINE_SYSROOT=$TMP/quiet
export BENCHLINE_NVIDIA_SMI=$TMP/no-nvidia-smi

git init -q -b main repo &&
	mkdir repo/src && echo 'int x;' >repo/src/a.c &&
	echo '{"measured_paths": ["src"], "unmeasured_paths": ["benchline.json"]}' >repo/benchline.json &&
	(cd repo && git add . && git commit -qm first)
head=$(cd repo && git rev-parse HEAD)

# A tiny benchmark program: times a loop a few times and prints native records.
cat >tiny.c <<'C'
#include <stdio.h>
#include <time.h>
int main(int argc, char **argv)
{
	volatile unsigned long sink = 0;
	printf("{\"schema\":1,\"machine\":\"tiny-box\",\"benchmark\":\"loop\",\"harness_version\":1,"
	       "\"source\":{\"commit\":\"%s\"},\"started_at\":\"2026-11-02T04:00:00Z\","
	       "\"metrics\":{\"loop_ns\":{\"unit\":\"ns\",\"samples\":[", argc > 1 ? argv[1] : "");
	for (int r = 0; r < 7; r++) {
		struct timespec a, b;
		clock_gettime(CLOCK_MONOTONIC, &a);
		for (unsigned long i = 0; i < 100000; i++)
			sink += i;
		clock_gettime(CLOCK_MONOTONIC, &b);
		printf("%s%ld", r ? "," : "", (b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec));
	}
	printf("]}}}\n");
	return 0;
}
C
cc -O0 -o tiny tiny.c

test_expect 'run stores what the program printed, with preflight and process figures' '
	bl run --repo repo -- ./tiny "$head" >out 2>err &&
	grep -q "^output of .\./tiny.: tiny-box/loop .*: stands$" out &&
	grep -q "preflight: the machine is quiet" err &&
	bl records --json >r.json &&
	test "$(json_get r.json "scalar @\$j")" = 1 &&
	test "$(json_get r.json "\$j->[0]{metrics}{loop_ns}{n}")" = 7 &&
	raw=$(db_sql "$BENCHLINE_DB" "select raw from runs") &&
	printf "%s" "$raw" | json_get - "\$j->{preflight}{quiet} ? 1 : 0" | grep -qx 1 &&
	printf "%s" "$raw" | json_get - "\$j->{process}{argv}[0]" | grep -qx ./tiny &&
	printf "%s" "$raw" | json_get - "\$j->{process}{exit}" | grep -qx 0 &&
	printf "%s" "$raw" | json_get - "\$j->{process}{peak_rss_kib} > 0 ? 1 : 0" | grep -qx 1 &&
	printf "%s" "$raw" | json_get - "exists \$j->{process}{cpu_s} ? 1 : 0" | grep -qx 1
'

test_expect 'a busy machine: the run is stored and tagged preflight' '
	cp -r quiet busy &&
	printf "cpu  4000 0 0 6000 0 0 0 0 0 0\n" >busy/proc/stat.after.new &&
	perl -e '"'"'
		open my $f, "<", "quiet/proc/stat" or die; my $l = <$f>;
		my @a = split " ", $l; shift @a;
		$a[0] += 3500; $a[3] += 6500;
		open my $o, ">", "busy/proc/stat.after" or die; print $o "cpu  @a\n";
	'"'"' &&
	BENCHLINE_SYSROOT=$TMP/busy bl --db busy.db run --repo repo -- ./tiny "$head" >out 2>err &&
	grep -q "preflight: cpu load" err &&
	bl --db busy.db records --json >b.json &&
	json_get b.json "join q(,), @{\$j->[0]{tags}}" | grep -q preflight
'

test_expect 'a failing command exits 2 with its stderr tail and stores nothing' '
	db_dump >before.sql &&
	expect_exit 2 bl run --repo repo -- sh -c "echo first line >&2; echo the reason it failed >&2; exit 3" >out 2>err &&
	grep -q "exited with status 3; nothing stored" err &&
	grep -q "the reason it failed" err &&
	db_dump >after.sql && cmp before.sql after.sql
'

test_expect 'a command killed by a signal exits 2 and stores nothing' '
	db_dump >before.sql &&
	expect_exit 2 bl run --repo repo -- sh -c "kill -9 \$\$" 2>err &&
	grep -q "killed by signal 9" err &&
	db_dump >after.sql && cmp before.sql after.sql
'

test_expect 'a command that cannot be found exits 2' '
	expect_exit 2 bl run --repo repo -- ./no-such-program 2>err &&
	grep -q "no-such-program" err
'

test_expect 'output that does not parse exits 2 naming the output and the position' '
	db_dump >before.sql &&
	expect_exit 2 bl run --repo repo --format benchline -- echo "{\"schema\": 1," 2>err &&
	grep -q "output of .echo.:[0-9]*:[0-9]*: " err &&
	db_dump >after.sql && cmp before.sql after.sql
'

test_expect 'no command is a usage error' '
	expect_exit 2 bl run 2>err && grep -q "^usage: benchline run" err
'

test_expect 'run --results reads the file the command wrote (hyperfine here)' '
	cat >fake-hyperfine.sh <<-SH &&
	#!/bin/sh
	cp "$FIXTURES/formats/hyperfine.json" results.json
	SH
	chmod +x fake-hyperfine.sh &&
	bl --db hf.db run --repo repo --machine box1 --harness-version 2 --results results.json -- ./fake-hyperfine.sh >out &&
	test "$(grep -c ": stands$" out)" = "$(perl -MJSON::PP -e "local \$/; open my \$f, q(<), q($FIXTURES/formats/hyperfine.json); print scalar @{decode_json(<\$f>)->{results}}")" &&
	bl --db hf.db records --json >h.json &&
	json_get h.json "\$j->[0]{commit}" | grep -qx "$head" &&
	json_get h.json "\$j->[0]{harness_version}" | grep -qx 2
'

test_expect 'a format without a machine or a harness version: run takes the host name and 1 (§10)' '
	host=$(uname -n) &&
	if [ -n "$(printf %s "$host" | tr -d "A-Za-z0-9._-")" ]; then
		echo "# the host name $host is not a machine name: skipped"
		exit 0
	fi &&
	bl --db nm.db run --no-preflight --repo repo --results "$FIXTURES/formats/hyperfine.json" -- true >out 2>err &&
	grep -q ": $host/.* harness 1: stands$" out &&
	grep -q "^run: machine .$host. from the host name (no --machine, no \"machine\" in benchline.json), harness version 1 from the default$" err
'

test_expect 'ingest of a format without a machine, none given or set: the error names the flag, nothing stored' '
	expect_exit 2 bl --db nm2.db ingest --repo repo "$FIXTURES/formats/hyperfine.json" 2>err &&
	grep -q "give --machine" err &&
	test "$(db_sql nm2.db "select count(*) from runs")" = 0
'

test_expect 'the noisy rule applies to what run stores' '
	cat >noisy.sh <<-SH &&
	#!/bin/sh
	echo "{\"schema\":1,\"machine\":\"n1\",\"benchmark\":\"jumpy\",\"harness_version\":1,\"source\":{\"commit\":\"$head\"},\"started_at\":\"2026-11-02T04:00:00Z\",\"metrics\":{\"t\":{\"unit\":\"ms\",\"median\":100,\"p95\":106}}}"
	SH
	chmod +x noisy.sh &&
	bl --db noisy.db run --repo repo -- ./noisy.sh >out &&
	bl --db noisy.db records --json >n.json &&
	json_get n.json "join q(,), @{\$j->[0]{tags}}" | grep -q noisy
'

test_expect 'import-baseline: every record is a Baseline and starts a line' '
	for i in 1 2 3; do
		echo "{\"schema\":1,\"machine\":\"b1\",\"benchmark\":\"town\",\"harness_version\":1,\"source\":{\"commit\":\"$head\",\"source_hash\":\"$(printf "%039d%d" 0 $i)\"},\"started_at\":\"2026-10-0${i}T04:00:00Z\",\"metrics\":{\"t\":{\"unit\":\"ms\",\"median\":10$i,\"p95\":10$i}}}"
	done >old.jsonl &&
	bl --db base.db import-baseline old.jsonl >out &&
	test "$(grep -c ": stands$" out)" = 3 &&
	bl --db base.db records --json >bl.json &&
	test "$(json_get bl.json "scalar grep { \$_->{baseline} } @\$j")" = 3 &&
	bl --db base.db series --json >s.json &&
	json_get s.json "join q(,), map { \$_->{reason} } @{\$j->[0]{lines}}" | grep -qx "first,baseline,baseline"
'

test_expect 'import-baseline twice stores nothing new' '
	bl --db base.db import-baseline old.jsonl >out &&
	test "$(grep -c "already stored" out)" = 3
'

test_expect 'ingest --format picks the adapter; a wrong one fails with the position' '
	bl --db fmt.db ingest --format gbench --machine g1 --harness-version 1 --repo repo "$FIXTURES/formats/gbench.json" >out &&
	grep -q ": stands$" out &&
	expect_exit 2 bl --db fmt.db ingest --format hyperfine --machine g1 --harness-version 1 --repo repo "$FIXTURES/formats/gbench.json" 2>err &&
	grep -q "gbench.json" err
'

test_expect 'ingest --verbose says which format auto chose; an unknown file is refused' '
	bl --db auto.db ingest --verbose --machine a1 --harness-version 1 --repo repo "$FIXTURES/formats/gotest.txt" >out 2>err &&
	grep -q "format gotest" err &&
	echo "hello, world" >unknown.txt &&
	expect_exit 2 bl --db auto.db ingest --machine a1 --harness-version 1 --repo repo unknown.txt 2>err &&
	grep -q "unknown.txt" err
'

test_expect 'every format: a truncated or garbled file exits 2, named with its position, nothing stored' '
	bl --db trunc.db init >/dev/null &&
	bl --db trunc.db ingest -v --machine t1 --harness-version 1 --repo repo "$FIXTURES/formats/gbench.json" >/dev/null 2>err &&
	grep -q "format gbench" err &&
	db_dump trunc.db >before.sql &&
	for f in bmf.json gbench.json hyperfine.json pytest.json; do
		size=$(wc -c <"$FIXTURES/formats/$f") &&
		head -c $((size * 2 / 3)) "$FIXTURES/formats/$f" >"cut-$f" &&
		expect_exit 2 bl --db trunc.db ingest --machine t1 --harness-version 1 --repo repo "cut-$f" 2>err &&
		grep -q "^benchline: cut-$f:[0-9]*:[0-9]*: " err || { echo "$f:"; cat err; exit 1; }
		sed "s/[0-9]\./x./" "$FIXTURES/formats/$f" >"bad-$f" &&
		expect_exit 2 bl --db trunc.db ingest --format "${f%.json}" --machine t1 --harness-version 1 --repo repo "bad-$f" 2>err &&
		grep -q "^benchline: bad-$f:[0-9]*:[0-9]*: " err || { echo "$f:"; cat err; exit 1; }
	done &&
	sed "s/ns\/op/ns\/op/; 0,/^Benchmark[^ ]* *[0-9]*/s//&x/" "$FIXTURES/formats/gotest.txt" >bad-gotest.txt &&
	expect_exit 2 bl --db trunc.db ingest --format gotest --machine t1 --harness-version 1 --repo repo bad-gotest.txt 2>err &&
	grep -q "^benchline: bad-gotest.txt:[0-9]*:[0-9]*: " err &&
	cp -r "$FIXTURES/formats/criterion" crit &&
	est=$(find crit -path "*/new/estimates.json" | head -1) &&
	head -c 20 "$est" >"$est.tmp" && mv "$est.tmp" "$est" &&
	expect_exit 2 bl --db trunc.db ingest --machine t1 --harness-version 1 --repo repo crit 2>err &&
	grep -q "estimates.json:[0-9]*:[0-9]*: " err &&
	db_dump trunc.db >after.sql &&
	cmp before.sql after.sql
'

test_expect 'an unknown --format is a clear error' '
	expect_exit 2 bl --db x.db ingest --format excel "$FIXTURES/formats/gbench.json" 2>err &&
	grep -q "unknown format .excel." err
'

test_done

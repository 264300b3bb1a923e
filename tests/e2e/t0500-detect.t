#!/bin/sh
# benchline detect and suspects (§6, §14): the demo's planted steps and nothing else; detect is
# idempotent and incremental (one new record recomputes its own lines only); a rebuild agrees
# with the incremental runs; non-open states survive; the judged metrics; kill -9 mid-detect
# leaves the previous marks; and the independent check (tests/detect-check.pl).
. "$(dirname "$0")/lib.sh"

# state DB: what detection stored (lines without their ids, Suspects, the values kept for the
# change-point search, the judged metrics), in
# a stable order, for before/after comparisons; read in one snapshot (on PostgreSQL a
# repeatable-read transaction: its statements run one by one, and a writer may commit between
# them). The line ends' tails are blobs, printed in hex.
state() {
	if pg_mode; then
		begin="BEGIN ISOLATION LEVEL REPEATABLE READ" tail="encode(e.tail, 'hex')"
		data="encode(v.data, 'hex')"
	else
		begin=BEGIN tail="hex(e.tail)" data="hex(v.data)"
	fi
	db_sql "$1" <<-EOF
	$begin;
	SELECT l.machine_id, l.benchmark_id, l.config, l.metric, l.line, l.reason,
	       l.start_run_id, l.start_commit, l.harness_version, l.content_hash, e.records,
	       e.fingerprint, e.last_run_id, e.last_place, e.time_placed_at, e.judged, $tail
	FROM lines l JOIN line_ends e ON e.line_id = l.id ORDER BY 1, 2, 3, 4, 5;
	SELECT id, run_id, metric, kind, side, shift, median, center, tolerance, state
	FROM suspects ORDER BY id;
	SELECT l.machine_id, l.benchmark_id, l.config, l.metric, l.line, v.chunk, $data
	FROM line_values v JOIN lines l ON l.id = v.line_id ORDER BY 1, 2, 3, 4, 5, 6;
	SELECT l.machine_id, l.benchmark_id, l.config, l.metric, l.line, $data
	FROM line_searches v JOIN lines l ON l.id = v.line_id ORDER BY 1, 2, 3, 4, 5;
	SELECT key, value FROM meta WHERE key LIKE 'detect%' ORDER BY key;
	COMMIT;
	EOF
}

# marks JSON: "MACHINE BENCHMARK CONFIG METRIC COMMIT SIDE" per Suspect (tab-separated), sorted;
# JSON is `suspects --json` or `detect --json` (its new_suspects).
marks() {
	json_get "$1" 'my $a = ref $j eq "HASH" ? $j->{new_suspects} : $j;
		join "", sort map { join("\t", @$_{qw(machine benchmark config metric commit side)}) . "\n" } @$a' |
		sed '/^$/d'
}

test_expect 'setup: the demo history' '
	bl --db demo.db demo --json >demo.json &&
	json_get demo.json "join qq(), sort map { join(qq(\t), @\$_{qw(machine benchmark config metric commit side)}) . qq(\n) } @{\$j->{planted}}" |
		sed "/^\$/d" >planted &&
	test "$(wc -l <planted)" -ge 6
'

test_expect 'detect finds the planted steps of the demo and nothing else' '
	bl --db demo.db detect --json >d1.json &&
	marks d1.json >found &&
	diff planted found &&
	test "$(json_get d1.json "\$j->{series}")" = 65 &&
	test "$(json_get d1.json "\$j->{lines_recomputed}")" = \
	     "$(bl --db demo.db series --json | json_get - "my \$n = 0; \$n += @{\$_->{lines}} for @\$j; \$n")"
'

test_expect 'detect --json prints exactly series, lines_recomputed and new_suspects' '
	json_get d1.json "join q( ), sort keys %\$j" >keys &&
	test "$(cat keys)" = "lines_recomputed new_suspects series" &&
	json_get d1.json "die qq(no new Suspect\n) unless @{\$j->{new_suspects}};
		for my \$s (@{\$j->{new_suspects}}) { die join(q( ), sort keys %\$s) unless
		join(q( ), sort keys %\$s) eq q(benchmark center commit config id kind machine metric seq shift side source_hash state tolerance);
		die unless \$s->{state} eq q(open) && \$s->{kind} eq q(band) && \$s->{commit} =~ /^[0-9a-f]{40}\$/
		&& \$s->{source_hash} =~ /^[0-9a-f]{40}\$/ && \$s->{seq} =~ /^\\d+\$/
		&& \$s->{tolerance} >= 0.03 * \$s->{center} - 1e-9
		&& abs(\$s->{shift} - (\$s->{side} eq q(slower) ? 1 : -1) * abs(\$s->{shift})) < 1e-12 } 1"
'

test_expect 'suspects --json lists the same Suspects in Series order; the shifts are the planted ones' '
	bl --db demo.db suspects --json >s1.json &&
	marks s1.json >listed &&
	diff planted listed &&
	json_get s1.json "join qq(\n), map { join q(/), @\$_{qw(machine benchmark config metric)}, sprintf(q(%09d), \$_->{seq}) } @\$j" >order &&
	sort order | cmp - order &&
	json_get demo.json "join qq(\n), map { \"\$_->{commit} \$_->{shift}\" } @{\$j->{planted}}" >shifts &&
	json_get s1.json "join qq(\n), map { \"\$_->{commit} \$_->{shift}\" } @\$j" >got-shifts &&
	while read c want; do
		got=$(grep "^$c " got-shifts | head -1 | cut -d" " -f2) &&
		awk -v g="$got" -v w="$want" "BEGIN { d = g - w; exit !(d < 0.015 && d > -0.015) }" ||
			{ echo "$c: planted $want, found $got"; exit 1; }
	done <shifts
'

test_expect 'suspects prints a readable table; series --json counts the open Suspects' '
	bl --db demo.db suspects >table &&
	head -1 table | grep -q "^id *state *side *kind *shift *machine *benchmark *config *metric *commit *seq$" &&
	test "$(wc -l <table)" = $(( $(wc -l <planted) + 1 )) &&
	grep -q "^ *[0-9]*  open   slower  band  *+12\.[0-9]%  m4-pro-metal *town" table &&
	bl --db demo.db series --json >series.json &&
	test "$(json_get series.json "my \$n = 0; \$n += \$_->{open_suspects} for @\$j; \$n")" = "$(wc -l <planted)" &&
	json_get series.json "for (@\$j) { die if \$_->{regressions} ne q(0) } 1" &&
	test "$(json_get series.json "my (\$s) = grep { \$_->{id} eq q(m4-pro-metal/town/2560x1440%2F1800f/gpu_frame_us) } @\$j; \$s->{open_suspects}")" = 1
'

test_expect 'a second detect changes nothing' '
	state demo.db >before &&
	bl --db demo.db detect --json >d2.json &&
	test "$(json_get d2.json "\$j->{lines_recomputed}")" = 0 &&
	test "$(json_get d2.json "scalar @{\$j->{new_suspects}}")" = 0 &&
	state demo.db >after &&
	cmp before after &&
	bl --db demo.db detect >out &&
	grep -q "^65 Series (42 judged), 0 lines recomputed, 0 new suspects$" out
'

# new_commit SHA SOURCE: a new commit of main after the others, stored as sync stores one.
new_commit() {
	db_sql demo.db "INSERT INTO commits (sha, seq, parent, source_hash, committed_at, subject)
		SELECT '$1', max(seq) + 1, (SELECT sha FROM commits ORDER BY seq DESC LIMIT 1), '$2',
		       max(committed_at) + 3600, 'a new commit' FROM commits"
}

# record MACHINE BENCHMARK CONFIG COMMIT SOURCE GPU P95-FACTOR HARNESS CONTENT: one native
# record with gpu_frame_us (primary), cpu_frame_us ($CPU) and allocations.
record() {
	printf '{"schema":1,"machine":"%s","benchmark":"%s","config":"%s","harness_version":%s,' \
		"$1" "$2" "$3" "$8"
	printf '"content_hash":"%s","source":{"commit":"%s","source_hash":"%s","branch":"main"},' \
		"$9" "$4" "$5"
	printf '"started_at":"2027-01-01T00:00:00Z","primary":"gpu_frame_us","metrics":{'
	printf '"gpu_frame_us":{"unit":"us","median":%s,"p95":%s},' "$6" \
		"$(awk "BEGIN { printf \"%.1f\", $6 * $7 }")"
	printf '"cpu_frame_us":{"unit":"us","median":%s},' "$CPU"
	printf '"allocations":{"kind":"counted","unit":"allocs","value":5900}}}\n'
}

# q NAME: NAME as an SQL string literal (the names below have no quotes).
q() {
	printf "'%s'" "$1"
}

test_expect 'a record at the end of one Series recomputes that Series'"'"' lines only' '
	group="r.machine_id = (SELECT id FROM machines WHERE name = $(q m4-pro-metal))
		AND r.benchmark_id = (SELECT id FROM benchmarks WHERE name = $(q town))
		AND r.config = $(q 2560x1440/1800f)" &&
	content=$(db_sql demo.db "SELECT content_hash FROM runs r WHERE $group ORDER BY r.id DESC LIMIT 1") &&
	level=$(db_sql demo.db "SELECT m.median FROM metrics m JOIN runs r ON r.id = m.run_id
		WHERE $group AND m.name = $(q gpu_frame_us) ORDER BY r.id DESC LIMIT 1") &&
	CPU=$(db_sql demo.db "SELECT m.median FROM metrics m JOIN runs r ON r.id = m.run_id
		WHERE $group AND m.name = $(q cpu_frame_us) ORDER BY r.id DESC LIMIT 1") &&
	c=$(printf "%040d" 7) && s=$(printf "a%039d" 7) &&
	new_commit "$c" "$s" &&
	record m4-pro-metal town 2560x1440/1800f "$c" "$s" "$(awk "BEGIN { print $level * 1.2 }")" \
		1.01 10 "$content" >late.json &&
	bl --db demo.db ingest late.json >out &&
	grep -q "stands" out &&
	state demo.db >before &&
	bl --db demo.db detect --json >d3.json &&
	test "$(json_get d3.json "\$j->{lines_recomputed}")" = 3 &&
	test "$(json_get d3.json "scalar @{\$j->{new_suspects}}")" = 1 &&
	test "$(json_get d3.json "my \$s = \$j->{new_suspects}[0]; join q( ), @\$s{qw(machine benchmark metric side commit)}")" = \
	     "m4-pro-metal town gpu_frame_us slower $c" &&
	state demo.db >after &&
	diff before after >changed;
	# its 3 lines; the 2 timed ones each rewrite what their search goes on from (their full
	# chunks of values stay as they are); 1 Suspect
	test "$(grep -c "^<" changed)" = 5 &&
	test "$(grep -c "^>" changed)" = 6
'

test_expect 'a quieter rerun of an old record reads its group again, and changes its lines only' '
	group="r.machine_id = (SELECT id FROM machines WHERE name = $(q rtx2070-linux))
		AND r.benchmark_id = (SELECT id FROM benchmarks WHERE name = $(q desert))" &&
	set -- $(db_sql demo.db "SELECT r.commit_sha, r.source_hash, r.content_hash,
		m.median, c.median FROM runs r JOIN records k ON k.run_id = r.id
		JOIN metrics m ON m.run_id = r.id AND m.name = $(q gpu_frame_us)
		JOIN metrics c ON c.run_id = r.id AND c.name = $(q cpu_frame_us)
		WHERE $group AND r.harness_version = 10
		AND NOT EXISTS (SELECT 1 FROM tags t WHERE t.run_id = r.id) ORDER BY r.id LIMIT 1" |
		tr "|" " ") &&
	CPU=$5 &&
	record rtx2070-linux desert 2560x1440/1800f "$1" "$2" "$4" 1.001 10 "$3" >rerun.json &&
	bl --db demo.db ingest rerun.json >out &&
	grep -q "stands" out &&
	bl --db demo.db detect --json >d4.json &&
	test "$(json_get d4.json "\$j->{lines_recomputed}")" = 3 &&
	test "$(json_get d4.json "scalar @{\$j->{new_suspects}}")" = 0
'

test_expect 'a rebuild (--all) agrees with every incremental run, and says it recomputed all' '
	state demo.db >incremental &&
	bl --db demo.db detect --all --json >d5.json &&
	state demo.db >rebuilt &&
	cmp incremental rebuilt &&
	test "$(json_get d5.json "\$j->{lines_recomputed}")" = \
	     "$(bl --db demo.db series --json | json_get - "my \$n = 0; \$n += @{\$_->{lines}} for @\$j; \$n")" &&
	test "$(json_get d5.json "scalar @{\$j->{new_suspects}}")" = 0
'

test_expect 'the stored lines are the lines series lists' '
	bl --db demo.db series --json | json_get - "join qq(), map { my \$s = \$_; map { join(q(|), @\$s{qw(machine benchmark config metric)}, @\$_{qw(reason start_commit records)}) . qq(\n) } @{\$s->{lines}} } @\$j" |
		sed "/^\$/d" | sort >walked &&
	db_sql demo.db "SELECT m.name, b.name, l.config, l.metric, l.reason, l.start_commit, e.records
		FROM lines l JOIN line_ends e ON e.line_id = l.id JOIN machines m ON m.id = l.machine_id
		JOIN benchmarks b ON b.id = l.benchmark_id" | sort >stored &&
	diff walked stored
'

test_expect 'a tag added or removed outside ingest reads the group again (sync recomputes not-main)' '
	run=$(db_sql demo.db "SELECT t.run_id FROM tags t JOIN records r ON r.run_id = t.run_id
		WHERE t.tag = '"'"'noisy'"'"' LIMIT 1") &&
	test -n "$run" &&
	db_sql demo.db "DELETE FROM tags WHERE run_id = $run AND tag = '"'"'noisy'"'"'" &&
	bl --db demo.db detect --json >d6.json &&
	test "$(json_get d6.json "\$j->{lines_recomputed}")" -ge 1 &&
	state demo.db >incremental &&
	db_cp demo.db copy.db && bl --db copy.db detect --all >/dev/null && state copy.db >rebuilt &&
	sed "/^detect_full/d" incremental | cmp - rebuilt &&
	db_sql demo.db "INSERT INTO tags (run_id, tag) VALUES ($run, '"'"'noisy'"'"')" &&
	bl --db demo.db detect --json >d7.json &&
	db_cp demo.db copy.db && bl --db copy.db detect --all >/dev/null &&
	state demo.db | cmp - "$(state copy.db >rebuilt2; echo rebuilt2)" &&
	db_sql demo.db "DELETE FROM tags WHERE run_id = $run AND tag = '"'"'noisy'"'"';
		INSERT INTO tags (run_id, tag) VALUES ($run, '"'"'noisy'"'"')" &&
	bl --db demo.db detect --json >d8.json &&
	test "$(json_get d8.json "\$j->{lines_recomputed}")" = 0
'

test_expect 'a confirmed Suspect keeps its state and id through a rebuild' '
	id=$(json_get s1.json "\$j->[0]{id}") &&
	db_sql demo.db "UPDATE suspects SET state = '"'"'confirmed'"'"' WHERE id = $id" &&
	bl --db demo.db detect --all >/dev/null &&
	test "$(db_sql demo.db "SELECT state FROM suspects WHERE id = $id")" = confirmed &&
	bl --db demo.db suspects --json | json_get - "my (\$s) = grep { \$_->{id} == $id } @\$j; \$s->{state}" >st &&
	test "$(cat st)" = confirmed &&
	bl --db demo.db series --json >series2.json &&
	test "$(json_get series2.json "my \$n = 0; \$n += \$_->{open_suspects} for @\$j; \$n")" = \
	     "$(db_sql demo.db "SELECT count(*) FROM suspects WHERE state = '"'"'open'"'"'")"
'

test_expect 'the judged metrics: benchline.json metrics names them, and later runs keep them' '
	mkdir proj && echo "{\"metrics\": [\"gpu_frame_us\"]}" >proj/benchline.json &&
	bl --db demo.db detect --repo proj >out &&
	grep -q "(every Series read)" out &&
	grep -q "^65 Series (21 judged)" out &&
	test "$(bl --db demo.db suspects --json | json_get - "scalar grep { \$_->{metric} eq q(cpu_frame_us) && \$_->{state} eq q(open) } @\$j")" = 0 &&
	bl --db demo.db detect >out &&
	grep -q "^65 Series (21 judged), 0 lines recomputed" out &&
	run=$(db_sql demo.db "SELECT t.run_id FROM tags t JOIN records r ON r.run_id = t.run_id
		WHERE t.tag = $(q noisy) ORDER BY t.run_id DESC LIMIT 1") &&
	db_sql demo.db "DELETE FROM tags WHERE run_id = $run AND tag = $(q noisy)" &&
	bl --db demo.db detect >out &&
	grep -q "^65 Series (21 judged), [1-9][0-9]* lines\? recomputed, " out &&
	db_cp demo.db copy.db && bl --db copy.db detect --all >/dev/null &&
	state demo.db >walked && state copy.db >rebuilt &&
	cmp walked rebuilt &&
	db_sql demo.db "INSERT INTO tags (run_id, tag) VALUES ($run, $(q noisy))" &&
	bl --db demo.db detect >/dev/null &&
	echo "{}" >proj/benchline.json &&
	bl --db demo.db detect --repo proj --json >d9.json &&
	grep "cpu_frame_us" planted >cpu-planted &&
	test "$(json_get d9.json "scalar grep { \$_->{metric} eq q(cpu_frame_us) } @{\$j->{new_suspects}}")" = \
	     $(( $(wc -l <cpu-planted) - 1 )) &&
	bl --db demo.db suspects --json >s2.json &&
	marks s2.json | grep cpu_frame_us | cmp - cpu-planted
'

test_expect 'a full read in small passes finds the same (BENCHLINE_TEST_DETECT_PASS)' '
	db_cp demo.db small.db &&
	BENCHLINE_TEST_DETECT_PASS=37,50 bl --db small.db detect --all >/dev/null &&
	state demo.db >one-pass &&
	state small.db >small-passes &&
	cmp one-pass small-passes
'

test_expect 'detect and suspects want a database, take no arguments, refuse bad flags' '
	expect_exit 2 bl --db nope.db detect 2>err &&
	if pg_mode; then
		grep -Fq "benchline: no benchline database at '"'"'$(db_url nope.db)'"'"'" err
	else
		grep -q "^benchline: no database at .nope\.db. " err
	fi &&
	expect_exit 2 bl --db demo.db detect extra 2>err &&
	grep -q "takes no arguments" err &&
	expect_exit 2 bl --db demo.db suspects --bogus 2>err &&
	bl init >/dev/null &&
	bl suspects --json >empty.json && test "$(cat empty.json)" = "[]" &&
	bl suspects 2>err >out && test ! -s out && grep -q "no suspects" err &&
	bl detect --json | json_get - "\$j->{series} == 0 && !@{\$j->{new_suspects}} ? q(ok) : q(bad)" | grep -q ok
'

# sync_rec REPO REV MEDIAN: a native record of REV of REPO (commit and source hash from
# `benchline hash`), on main.
sync_rec() {
	set -- $(bl hash --repo "$1" "$2") "$3"
	printf '{"schema":1,"machine":"m","benchmark":"b","harness_version":1,"source":{"commit":"%s",' "$2"
	printf '"source_hash":"%s","branch":"main"},"started_at":"2026-11-01T00:00:00Z",' "$1"
	printf '"metrics":{"t_us":{"unit":"us","median":%s}}}\n' "$3"
}

test_expect 'records that join main at a sync are appended to their lines, not re-read' '
	git init -q -b main repo && mkdir repo/src &&
	echo "{\"measured_paths\": [\"src\"]}" >repo/benchline.json &&
	for i in 1 2 3 4; do
		echo $i >repo/src/f && git -C repo add -A && git -C repo commit -qm "c$i" || exit 1
	done &&
	bl --db sync.db sync --repo repo >/dev/null &&
	{ sync_rec repo HEAD~3 100; sync_rec repo HEAD~2 101; sync_rec repo HEAD~1 99;
	  sync_rec repo HEAD 100; } >first.json &&
	bl --db sync.db ingest first.json >/dev/null &&
	bl --db sync.db detect --json >s1d.json &&
	test "$(json_get s1d.json "\$j->{lines_recomputed}")" = 1 &&
	for i in 5 6; do
		echo $i >repo/src/f && git -C repo add -A && git -C repo commit -qm "c$i" || exit 1
	done &&
	{ sync_rec repo HEAD~1 100; sync_rec repo HEAD 120; } >second.json &&
	bl --db sync.db ingest second.json >/dev/null &&
	test "$(db_sql sync.db "SELECT count(*) FROM tags WHERE tag = $(q not-main)")" = 2 &&
	bl --db sync.db detect --json >s2d.json &&
	test "$(json_get s2d.json "\$j->{lines_recomputed}")" = 0 &&
	bl --db sync.db sync --repo repo >/dev/null &&
	test "$(db_sql sync.db "SELECT count(*) FROM tags")" = 0 &&
	bl --db sync.db detect --json >s3d.json &&
	test "$(json_get s3d.json "\$j->{lines_recomputed}")" = 1 &&
	test "$(json_get s3d.json "join q( ), map { \"\$_->{side} \$_->{seq} \$_->{shift}\" } @{\$j->{new_suspects}}")" = "slower 5 0.2" &&
	state sync.db >synced &&
	db_cp sync.db copy.db && bl --db copy.db detect --all >/dev/null && state copy.db >rebuilt &&
	cmp synced rebuilt
'

# kill -9 during detect: one transaction, so the stored marks are the previous ones or the new
# ones, never a mixture, and the database stays intact. The previous marks judge gpu_frame_us
# only; the killed detect judges every timed metric (a full read, in passes of 16 records so
# that it writes all along and lasts long enough to be killed in the middle).
test_expect 'kill -9 mid-detect leaves the previous marks or the new ones, never a mixture' '
	bl --db crash0.db demo >/dev/null &&
	echo "{\"metrics\": [\"gpu_frame_us\"]}" >proj/benchline.json &&
	bl --db crash0.db detect --repo proj >/dev/null &&
	state crash0.db >prev &&
	db_cp crash0.db crash1.db &&
	echo "{}" >proj/benchline.json &&
	t0=$(date +%s.%N) &&
	BENCHLINE_TEST_DETECT_PASS=16 bl --db crash1.db detect --repo proj >/dev/null &&
	t1=$(date +%s.%N) &&
	state crash1.db >next &&
	! cmp -s prev next &&
	perl -e "srand(5); printf qq(%.3f\n), (\$_ + rand()) / 6 * (\$ARGV[1] - \$ARGV[0]) for 0 .. 5" "$t0" "$t1" >delays &&
	killed=0 &&
	# A loaded machine can make the timed run slower than the ones killed, so every kill
	# may land after the end; short delays then make sure some land mid-run.
	for delay in $(cat delays) 0.05 0.1 0.15 0.2 0.3; do
		if [ $killed -ge 1 ] && ! grep -qx "$delay" delays; then continue; fi
		# The copy is its own command: "cp && benchline &" would put both in one background
		# subshell, and a kill landing during the copy would leave cp writing k.db while it
		# is checked.
		db_cp crash0.db k.db || exit 1
		BENCHLINE_TEST_DETECT_PASS=16 "$BENCHLINE" --db "$(db_url k.db)" detect --repo proj \
			>/dev/null 2>&1 &
		pid=$! &&
		sleep "$delay" &&
		if kill -9 $pid 2>/dev/null; then killed=$((killed + 1)); fi
		wait $pid
		if pg_mode; then
			bl --db k.db check >/dev/null || exit 1
		else
			test "$(db_sql k.db "PRAGMA integrity_check")" = ok || exit 1
			test -z "$(db_sql k.db "PRAGMA foreign_key_check")" || exit 1
		fi
		state k.db >got &&
		if cmp -s got prev; then echo "after ${delay}s: the previous marks"
		elif cmp -s got next; then echo "after ${delay}s: the new marks"
		else echo "after ${delay}s: a mixture"; exit 1; fi
		db_rm k.db
	done &&
	echo "$killed killed mid-run" &&
	test "$killed" -ge 1
'

test_expect 'the independent check agrees with benchline, mark for mark (3 seeds)' '
	for seed in 1 2 3; do
		perl "$ROOT/tests/detect-check.pl" --benchline "$BENCHLINE" --dir . --seed $seed \
			--records 4000 || exit 1
	done
'

test_done

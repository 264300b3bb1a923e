#!/bin/sh
# Ingest of native records (§2, §10, §13): the three file shapes, what `records --json` shows,
# refusal of bad files without a trace in the database, one transaction per file, idempotent
# re-ingest and the raw JSON kept with its unknown keys.
. "$(dirname "$0")/lib.sh"

C1=$(printf 'c%039d' 1)
C2=$(printf 'c%039d' 2)
S1=$(printf 'a%039d' 1)
S2=$(printf 'a%039d' 2)
S1_12=$(printf %.12s "$S1")

# rec [NAME=VALUE...]: one native record on one line. benchmark, config, commit, source,
# branch, started, median, p95 default to fixed values; extra= is pasted at the top level.
rec() (
	machine=m1 benchmark=town config=1080p commit=$C1 source=$S1 branch=main
	started=2026-11-02T04:00:00Z median=100 p95=102 extra=
	for a in "$@"; do eval "${a%%=*}=\${a#*=}"; done
	printf '{"schema":1,"machine":"%s","benchmark":"%s","config":"%s","harness_version":1,' \
		"$machine" "$benchmark" "$config"
	printf '"source":{"commit":"%s","source_hash":"%s","branch":"%s"},"started_at":"%s",%s' \
		"$commit" "$source" "$branch" "$started" "$extra"
	printf '"metrics":{"gpu_frame_us":{"unit":"us","median":%s,"p95":%s,"n":30}}}\n' \
		"$median" "$p95"
)

# runs: the number of stored runs.
runs() {
	db_sql "$BENCHLINE_DB" "select count(*) from runs"
}

# json_ok FILE PERL-EXPR: succeeds when the expression is true for the decoded JSON ($j).
json_ok() {
	if [ "$(json_get "$1" "($2) ? 1 : 0")" != 1 ]; then
		echo "false: $2"
		json_get "$1" '$j'
		return 1
	fi
}

# refused FILE LINE WHAT: ingesting FILE exits 2 with "FILE:LINE:COLUMN: " (any line when
# LINE is -) and a message matching WHAT, and the database content does not change.
refused() {
	db_dump >before.sql &&
	expect_exit 2 bl ingest "$1" >out 2>err || return 1
	cat err
	line=$2
	[ "$line" = - ] && line='[0-9][0-9]*'
	grep -q "^benchline: $1:$line:[0-9][0-9]*: " err || { echo "no $1:$2:COLUMN: prefix"; return 1; }
	grep -q "$3" err || { echo "message does not match '$3'"; return 1; }
	db_dump >after.sql &&
	cmp before.sql after.sql
}

test_expect 'one object (pretty-printed, every optional field) is stored' '
	cat >one.json <<-EOF &&
	{
	  "schema": 1,
	  "machine": "m4-pro-metal",
	  "machine_info": {"cpu": "Apple M4 Pro", "os": "macOS 15.1"},
	  "benchmark": "town",
	  "config": "2560x1440/1800f",
	  "content_hash": "5d41402abc4b2a76b9719d911017c592",
	  "harness_version": 10,
	  "source": {"commit": "$C1", "source_hash": "$S1", "branch": "main",
	             "committed_at": "2026-11-01T22:10:00Z", "dirty": false},
	  "profile": "release",
	  "started_at": "2026-11-02T04:00:00Z",
	  "baseline": false,
	  "primary": "gpu_frame_us",
	  "preflight": {"quiet": true, "warnings": [], "cpu_load_pct": 2.5},
	  "metrics": {
	    "gpu_frame_us": {"kind": "timed", "unit": "us", "better": "lower",
	                     "median": 8123.5, "p95": 8390.25, "n": 1800},
	    "allocations": {"kind": "counted", "unit": "allocs", "better": "lower", "value": 5790},
	    "fps": {"kind": "timed", "unit": "fps", "better": "higher", "samples": [60, 58, 61, 59]}
	  }
	}
	EOF
	bl ingest one.json >out &&
	cat out &&
	grep -q "^one.json: m4-pro-metal/town 2560x1440/1800f $S1_12 harness 10: stands$" out &&
	test "$(runs)" = 1
'

test_expect 'records --json shows the record with every §14 key and its figures' '
	bl records --json >r.json &&
	json_ok r.json "@\$j == 1" &&
	for k in id machine benchmark config source_hash harness_version commit seq started_at \
		standing tags metrics; do
		json_ok r.json "exists \$j->[0]{$k}" || exit 1
	done &&
	for m in gpu_frame_us allocations fps; do
		for k in kind unit better median p95 n value; do
			json_ok r.json "exists \$j->[0]{metrics}{$m}{$k}" || exit 1
		done
	done &&
	json_ok r.json "\$j->[0]{machine} eq q(m4-pro-metal) && \$j->[0]{benchmark} eq q(town)" &&
	json_ok r.json "\$j->[0]{config} eq q(2560x1440/1800f) && \$j->[0]{harness_version} == 10" &&
	json_ok r.json "\$j->[0]{source_hash} eq q($S1) && \$j->[0]{commit} eq q($C1)" &&
	json_ok r.json "!defined \$j->[0]{seq} && \$j->[0]{started_at} eq q(2026-11-02T04:00:00Z)" &&
	json_ok r.json "\$j->[0]{standing} && !@{\$j->[0]{tags}}" &&
	json_ok r.json "join(q(,), map { \$_ // q(null) } @{\$j->[0]{metrics}{gpu_frame_us}}{qw(kind unit better median p95 n value)}) eq q(timed,us,lower,8123.5,8390.25,1800,null)" &&
	json_ok r.json "join(q(,), map { \$_ // q(null) } @{\$j->[0]{metrics}{allocations}}{qw(kind unit better median p95 n value)}) eq q(counted,allocs,lower,null,null,null,5790)" &&
	json_ok r.json "join(q(,), map { \$_ // q(null) } @{\$j->[0]{metrics}{fps}}{qw(kind better median p95 n)}) eq q(timed,higher,59,61,4)"
'

test_expect 'an array of records is stored whole' '
	{
		echo "[" &&
		rec benchmark=a | sed "s/\$/,/" &&
		rec benchmark=b | sed "s/\$/,/" &&
		rec benchmark=c &&
		echo "]"
	} >array.json &&
	bl ingest array.json >out &&
	test "$(grep -c ": stands$" out)" = 3 &&
	test "$(runs)" = 4 &&
	bl records --json --machine m1 >r.json &&
	json_ok r.json "join(q(,), map { \$_->{benchmark} } @\$j) eq q(a,b,c)"
'

test_expect 'JSON lines are stored, one record per line' '
	{ rec benchmark=d; rec benchmark=e; rec benchmark=f; } >lines.json &&
	bl ingest lines.json >out &&
	test "$(grep -c ": stands$" out)" = 3 &&
	test "$(runs)" = 7
'

test_expect 'a truncated file is refused with its position; nothing changes' '
	rec benchmark=t | cut -c1-150 >truncated.json &&
	refused truncated.json - . &&
	printf "[\n%s,\n%s\n" "$(rec benchmark=t1)" "$(rec benchmark=t2)" >unclosed.json &&
	refused unclosed.json - .
'

test_expect 'NaN and Infinity are refused at their line' '
	{ rec benchmark=n1; rec benchmark=n2 median=NaN; } >nan.json &&
	refused nan.json 2 . &&
	{ rec benchmark=n1; rec benchmark=n2; rec benchmark=n3 p95=Infinity; } >inf.json &&
	refused inf.json 3 . &&
	rec benchmark=n4 median=1e400 >overflow.json &&
	refused overflow.json 1 .
'

test_expect 'negative times are refused, naming the field' '
	rec benchmark=neg median=-5 >neg.json &&
	refused neg.json 1 "median" &&
	{ rec benchmark=neg1; rec benchmark=neg2 p95=-0.5; } >negp95.json &&
	refused negp95.json 2 "p95" &&
	rec benchmark=neg3 | sed "s/\"median\":100,\"p95\":102,\"n\":30/\"samples\":[1,2,-3]/" >negsamples.json &&
	grep -q samples negsamples.json &&
	refused negsamples.json 1 "samples"
'

test_expect 'a missing required field is refused, naming the field' '
	rec benchmark=miss | sed "s/\"machine\":\"m1\",//" >nomachine.json &&
	refused nomachine.json 1 "machine" &&
	rec benchmark=miss | sed "s/\"started_at\":\"[^\"]*\",//" >nostart.json &&
	refused nostart.json 1 "started_at" &&
	rec benchmark=miss | sed "s/\"commit\":\"[^\"]*\",//" >nocommit.json &&
	refused nocommit.json 1 "commit" &&
	rec benchmark=miss | sed "s/\"metrics\":.*/\"metrics\":{}}/" >nometrics.json &&
	refused nometrics.json 1 "metric" &&
	rec benchmark=miss | sed "s/\"schema\":1,//" >noschema.json &&
	refused noschema.json 1 "schema"
'

test_expect 'other violations are refused: schema, hashes, names, types, timestamps' '
	rec benchmark=v | sed "s/\"schema\":1/\"schema\":2/" >schema2.json &&
	refused schema2.json 1 "schema" &&
	rec benchmark=v commit=c0ffee >shortcommit.json &&
	refused shortcommit.json 1 "commit" &&
	rec benchmark=v machine="bad machine" >badmachine.json &&
	refused badmachine.json 1 "machine" &&
	rec benchmark=v started=2026-11-02 >badtime.json &&
	refused badtime.json 1 "started_at" &&
	rec benchmark=v | sed "s/\"harness_version\":1/\"harness_version\":\"1\"/" >badtype.json &&
	refused badtype.json 1 "harness_version" &&
	rec benchmark="$(printf "x\\377y")" >badutf8.json &&
	refused badutf8.json - .
'

test_expect 'a file with 3 good records and 1 bad one stores none of them' '
	{ rec benchmark=g1; rec benchmark=g2; rec benchmark=g3; rec benchmark=g4 median=-1; } >mixed.json &&
	refused mixed.json 4 "median" &&
	{
		echo "[" &&
		rec benchmark=g1 | sed "s/\$/,/" &&
		rec benchmark=g2 | sed "s/\$/,/" &&
		rec benchmark=g3 | sed "s/\$/,/" &&
		rec benchmark=g4 | sed "s/\"machine\":\"m1\",//" &&
		echo "]"
	} >mixed-array.json &&
	refused mixed-array.json 5 "machine"
'

test_expect 'a record without source_hash and no --repo is an error naming the field' '
	{ rec benchmark=h1; rec benchmark=h2 | sed "s/,\"source_hash\":\"[^\"]*\"//"; } >nohash.json &&
	! grep -q "h2.*source_hash" nohash.json &&
	db_dump >before.sql &&
	expect_exit 2 bl ingest nohash.json 2>err &&
	cat err &&
	grep -q "^benchline: nohash.json" err &&
	grep -q "source_hash" err &&
	grep -q -- "--repo" err &&
	db_dump >after.sql &&
	cmp before.sql after.sql
'

test_expect 'with --repo the missing source_hash is computed from the commit' '
	git init -q repo &&
	mkdir repo/src && echo "int x;" >repo/src/x.c &&
	git -C repo add . && git -C repo commit -q -m first &&
	bl hash --repo repo HEAD >hash &&
	commit=$(cut -d" " -f2 hash) &&
	rec benchmark=h3 commit=$commit | sed "s/,\"source_hash\":\"[^\"]*\"//" >withrepo.json &&
	! grep -q source_hash withrepo.json &&
	bl ingest --repo repo withrepo.json &&
	bl records --json --benchmark h3 >r.json &&
	json_ok r.json "\$j->[0]{source_hash} eq q($(cut -d" " -f1 hash)) && \$j->[0]{commit} eq q($commit)"
'

test_expect 'with --repo, a commit the repository lacks is an error; nothing is stored' '
	rec benchmark=h4 commit=$(printf "d%039d" 4) | sed "s/,\"source_hash\":\"[^\"]*\"//" >unknown.json &&
	db_dump >before.sql &&
	expect_exit 2 bl ingest --repo repo unknown.json 2>err &&
	cat err &&
	grep -q "^benchline: unknown.json:1:1: record 1: source.commit: " err &&
	grep -q "d0\{38\}4" err &&
	db_dump >after.sql &&
	cmp before.sql after.sql
'

test_expect 'a record without a source hash, and no repository: the error names its line' '
	rec benchmark=w1 >where.jsonl &&
	rec benchmark=w2 | sed "s/,\"source_hash\":\"[^\"]*\"//" >>where.jsonl &&
	db_dump >before.sql &&
	expect_exit 2 bl ingest where.jsonl 2>err &&
	grep -q "^benchline: where.jsonl:2:1: record 2: source.source_hash: missing" err &&
	db_dump >after.sql &&
	cmp before.sql after.sql
'

test_expect 'several files, one bad: the good ones are stored, exit 2' '
	rec benchmark=s1 >s1.json &&
	rec benchmark=s2 median=NaN >s2.json &&
	rec benchmark=s3 >s3.json &&
	before=$(runs) &&
	expect_exit 2 bl ingest s1.json s2.json s3.json >out 2>err &&
	cat out err &&
	grep -q "^s1.json: m1/s1 .*: stands$" out &&
	grep -q "^s3.json: m1/s3 .*: stands$" out &&
	! grep -q s2 out &&
	grep -q "^benchline: s2.json:1:[0-9]*: " err &&
	test "$(runs)" = $((before + 2)) &&
	bl records --json --benchmark s2 >r.json &&
	json_ok r.json "@\$j == 0"
'

test_expect 're-ingesting the same file stores nothing new' '
	db_dump >before.sql &&
	bl ingest one.json lines.json >out &&
	cat out &&
	test "$(grep -c ": already stored$" out)" = 4 &&
	test "$(wc -l <out)" = 4 &&
	db_dump >after.sql &&
	cmp before.sql after.sql
'

test_expect 'the same record reformatted (whitespace, key order) is already stored' '
	perl -MJSON::PP -e "
		local \$/; my \$j = JSON::PP->new->decode(<STDIN>);
		my \$out = JSON::PP->new->pretty->canonical;
		print \$out->encode(\$j);
	" <one.json >sorted.json &&
	! cmp -s one.json sorted.json &&
	{ rec benchmark=f; } | sed "s/^{\"schema\":1,\(.*\)}\$/{\1 , \"schema\" : 1 }/" >shuffled.json &&
	! grep -q "^{\"schema\"" shuffled.json &&
	db_dump >before.sql &&
	bl ingest sorted.json shuffled.json >out &&
	cat out &&
	test "$(grep -c ": already stored$" out)" = 2 &&
	db_dump >after.sql &&
	cmp before.sql after.sql
'

test_expect 'other figures on the same key are a new run, not a duplicate' '
	rec benchmark=f p95=101 >refigured.json &&
	before=$(runs) &&
	bl ingest refigured.json >out &&
	! grep -q "already stored" out &&
	test "$(runs)" = $((before + 1))
'

test_expect 'the raw JSON is kept, with unknown keys, as canonical JSON' '
	rec benchmark=raw extra="\"sweep_note\":{\"night\":42,\"host\":\"rack-3\"},\"zz\":[1,2]," |
		sed "s/\"n\":30}/\"n\":30,\"my_note\":\"kept\"}/; s/\"branch\"/\"vm\":\"kvm\",\"branch\"/" >raw.json &&
	bl ingest raw.json &&
	db_sql "$BENCHLINE_DB" "select raw from runs where id = (select max(id) from runs)" >raw.out &&
	cat raw.out &&
	json_ok raw.out "\$j->{sweep_note}{night} == 42 && \$j->{sweep_note}{host} eq q(rack-3)" &&
	json_ok raw.out "join(q(,), @{\$j->{zz}}) eq q(1,2)" &&
	json_ok raw.out "\$j->{metrics}{gpu_frame_us}{my_note} eq q(kept)" &&
	json_ok raw.out "\$j->{source}{vm} eq q(kvm) && \$j->{benchmark} eq q(raw)" &&
	perl -ne "exit 1 unless /\"benchmark\".*\"machine\".*\"sweep_note\".*\"zz\"/" raw.out &&
	! grep -q " " raw.out
'

test_expect 'ingest --json reports each record and its outcome' '
	rec benchmark=j1 >j1.json &&
	bl ingest --json j1.json raw.json >out.json &&
	json_ok out.json "@\$j == 2" &&
	json_ok out.json "\$j->[0]{file} eq q(j1.json) && \$j->[0]{record} == 1 && \$j->[0]{outcome} eq q(stands)" &&
	json_ok out.json "\$j->[1]{outcome} eq q(duplicate) && \$j->[1]{benchmark} eq q(raw)"
'

test_expect 'the database passes integrity_check after it all' '
	if pg_mode; then
		# PostgreSQL has no integrity_check: check reads every page, and the invariants
		bl check
	else
		test "$(sqlite3 "$BENCHLINE_DB" "PRAGMA integrity_check")" = ok &&
		bl check
	fi
'

test_expect 'a name the store does not know, edited into the file by hand, is an error naming it and the file' '
	if pg_mode; then
		# a copy of the database, with the CHECK on metrics.kind dropped (PostgreSQL cannot
		# ignore a CHECK for one statement as SQLite can)
		pg_dump --no-owner "$BENCHLINE_DB" | db_sql edited.db >/dev/null &&
		check=$(db_sql edited.db "SELECT conname FROM pg_constraint WHERE conrelid = '"'"'metrics'"'"'::regclass AND contype = '"'"'c'"'"' AND pg_get_constraintdef(oid) LIKE '"'"'%kind%'"'"'") &&
		test -n "$check" &&
		db_sql edited.db "ALTER TABLE metrics DROP CONSTRAINT $check; UPDATE metrics SET kind = '"'"'sampled'"'"' WHERE run_id = (SELECT min(run_id) FROM metrics)"
	else
		cp "$BENCHLINE_DB" edited.db &&
		sqlite3 edited.db "PRAGMA ignore_check_constraints = 1; UPDATE metrics SET kind = '"'"'sampled'"'"' WHERE run_id = (SELECT min(run_id) FROM metrics)"
	fi &&
	expect_exit 2 bl --db edited.db records --json >out 2>err &&
	echo "benchline: unknown metric kind '"'"'sampled'"'"' in '"'"'$(db_url edited.db)'"'"'" >expect &&
	test_cmp expect err
'

test_done

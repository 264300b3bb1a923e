#!/bin/sh
# benchline demo: a deterministic demo history whose planted steps are exactly what the §6
# band finds, with every kind of tagged run, baselines, and a keep-first machine.
. "$(dirname "$0")/lib.sh"

# band.pl < RECORDS-JSON: the §6 rule, written out independently of benchline's detector, on
# the untagged standing records: one line per mark, "MACHINE BENCHMARK CONFIG METRIC COMMIT
# SIDE" (tab-separated), sorted.
cat >band.pl <<'EOF'
use strict; use warnings; use JSON::PP; use POSIX qw(ceil);
local $/; my $recs = JSON::PP->new->decode(<STDIN>);
sub nrmed { my @s = sort { $a <=> $b } @_; return $s[ceil(0.5 * @s) - 1]; }
my (%series, @out);
for my $r (@$recs) {
	next if @{$r->{tags}} || !$r->{standing};
	for my $name (keys %{$r->{metrics}}) {
		my $m = $r->{metrics}{$name};
		next unless $m->{kind} eq 'timed';
		push @{$series{join "\t", $r->{machine}, $r->{benchmark}, $r->{config}, $name}},
			[$r, $m->{median}];
	}
}
# Main's order: seq, else (baselines, committed before the history) first; then time.
sub place { defined $_[0]{seq} ? $_[0]{seq} : -0.5 }
for my $key (sort keys %series) {
	my @pts = sort { place($a->[0]) <=> place($b->[0])
			 || ($a->[0]{committed_at} // '') cmp ($b->[0]{committed_at} // '')
			 || $a->[0]{started_at} cmp $b->[0]{started_at}
			 || $a->[0]{id} <=> $b->[0]{id} } @{$series{$key}};
	my (@line, @marks, $prev);
	for my $p (@pts) {
		my ($r, $m) = @$p;
		if (!$prev || $r->{baseline} || $r->{harness_version} != $prev->{harness_version}
		    || ($r->{content_hash} // '') ne ($prev->{content_hash} // '')) {
			@line = (); @marks = ();
		}
		$prev = $r;
		my @w = map { $_->[1] } @line[($#line >= 8 ? $#line - 7 : 0) .. $#line];
		@w = () unless @line;
		if (@w >= 3) {
			my $c = nrmed(@w);
			my $dev = nrmed(map { abs($_ - $c) } @w);
			my $tol = 4 * $dev;
			$tol = 0.03 * abs($c) if 0.03 * abs($c) > $tol;
			if (abs($m - $c) > $tol) {
				my $side = $m > $c ? 1 : -1;
				my $cont = grep { $_->{idx} >= @line - 8 && $_->{side} == $side
						  && abs($m - $_->{m}) <= $_->{tol} } @marks;
				unless ($cont) {
					push @marks, {idx => scalar @line, side => $side, m => $m,
						      tol => $tol};
					push @out, join "\t", $key, $r->{commit},
						$side > 0 ? 'slower' : 'faster';
				}
			}
		}
		push @line, $p;
	}
}
print "$_\n" for sort @out;
EOF

# planted.pl < DEMO-JSON: the planted list in band.pl's format.
cat >planted.pl <<'EOF'
use strict; use warnings; use JSON::PP;
local $/; my $j = JSON::PP->new->decode(<STDIN>);
print "$_\n" for sort map { join "\t", @$_{qw(machine benchmark config metric commit side)} }
	@{$j->{planted}};
EOF

# facts.pl < RECORDS-ALL-JSON: what the tests below check, in one pass (JSON::PP is slow on a
# few megabytes): "NAME VALUE" lines.
cat >facts.pl <<'EOF'
use strict; use warnings; use JSON::PP;
local $/; my $j = JSON::PP->new->decode(<STDIN>);
my (%tag, %lvl, %notmain, $clean, $baselines, $bad_baselines, $bad_harness);
for my $r (@$j) {
	$tag{$_}++ for @{$r->{tags}};
	$clean++ unless @{$r->{tags}};
	$notmain{$r->{commit}} = 1 if grep { $_ eq 'not-main' } @{$r->{tags}};
	if ($r->{baseline}) {
		$baselines++;
		$bad_baselines++ if @{$r->{tags}} || defined $r->{seq}
			|| $r->{committed_at} ge '2026-03-02' || $r->{harness_version} != 9;
	}
	if (!@{$r->{tags}} && defined $r->{seq}) {
		$bad_harness++ if ($r->{seq} >= 200) != ($r->{harness_version} == 10);
		push @{$lvl{"$r->{machine} $r->{harness_version}"}},
			$r->{metrics}{cpu_frame_us}{median}
			if $r->{benchmark} eq 'town' && $r->{config} eq '640x360/64f';
	}
}
print "tag-$_ $tag{$_}\n" for sort keys %tag;
print "clean $clean\nbaselines $baselines\nbad-baselines ", $bad_baselines // 0, "\n";
print "bad-harness ", $bad_harness // 0, "\n";
print "not-main-commit $_\n" for sort keys %notmain;
for my $m (qw(ci-lavapipe m4-pro-metal)) {
	printf "harness-ratio-%s %.3f\n", $m, $lvl{"$m 10"}[0] / $lvl{"$m 9"}[-1];
}
EOF

test_expect 'demo writes a history and prints a short summary' '
	bl --db demo.db demo >out &&
	grep -q "^demo history (seed 42): 320 commits of main, [0-9]* runs, 3 machines, 6 benchmarks" out &&
	grep -q "planted steps" out &&
	test "$(db_sql demo.db "SELECT count(*) FROM commits")" = 320 &&
	test "$(db_sql demo.db "SELECT value FROM meta WHERE key = '"'"'main_branch'"'"'")" = main
'

test_expect 'demo --json: counts and the planted steps, slower and faster' '
	bl --db j.db demo --json >demo.json &&
	test "$(json_get demo.json "\$j->{seed}")" = 42 &&
	test "$(json_get demo.json "\$j->{commits}")" = 320 &&
	test "$(json_get demo.json "\$j->{machines}")" = 3 &&
	test "$(json_get demo.json "\$j->{benchmarks}")" = 6 &&
	test "$(json_get demo.json "\$j->{runs}")" = "$(db_sql j.db "SELECT count(*) FROM runs")" &&
	test "$(json_get demo.json "scalar grep { \$_->{side} eq q(slower) } @{\$j->{planted}}")" -ge 4 &&
	test "$(json_get demo.json "scalar grep { \$_->{side} eq q(faster) } @{\$j->{planted}}")" -ge 2 &&
	json_get demo.json "for (@{\$j->{planted}}) { die unless \$_->{commit} =~ /^[0-9a-f]{40}\$/
		&& exists \$_->{seq} && exists \$_->{config} && exists \$_->{metric}
		&& (\$_->{side} eq q(slower) ? \$_->{shift} >= 0.06 && \$_->{shift} <= 0.25
					     : \$_->{shift} <= -0.08 && \$_->{shift} >= -0.30) } 1" &&
	for p in $(json_get demo.json "join q( ), map { \"\$_->{seq}:\$_->{commit}\" } @{\$j->{planted}}"); do
		test "$(db_sql j.db "SELECT seq FROM commits WHERE sha = '"'"'${p#*:}'"'"'")" = "${p%%:*}" || exit 1
	done
'

test_expect 'the same seed writes the same history; another seed another' '
	bl --db j2.db demo --json >demo2.json &&
	cmp demo.json demo2.json &&
	bl --db j.db records --all --json >a.json &&
	bl --db j2.db records --all --json >b.json &&
	cmp a.json b.json &&
	bl --db j.db series --json >sa.json &&
	bl --db j2.db series --json >sb.json &&
	cmp sa.json sb.json &&
	test "$(db_sql j.db "SELECT sha FROM commits ORDER BY seq")" = \
	     "$(db_sql j2.db "SELECT sha FROM commits ORDER BY seq")" &&
	bl --db other.db demo --seed 7 --json >demo7.json &&
	bl --db other.db records --all --json >c.json &&
	! cmp -s a.json c.json &&
	test "$(json_get demo7.json "\$j->{seed}")" = 7
'

test_expect 'demo refuses a database that already holds runs, and changes nothing' '
	db_dump j.db >before.sql &&
	expect_exit 2 bl --db j.db demo 2>err &&
	grep -q "already holds [0-9]* runs" err &&
	grep -q "empty database" err &&
	db_dump j.db >after.sql &&
	cmp before.sql after.sql
'

test_expect 'demo refuses a bad seed' '
	expect_exit 2 bl --db bad.db demo --seed -3 2>err &&
	grep -q "seed" err &&
	expect_exit 2 bl --db bad.db demo --seed x 2>err
'

test_expect 'every kind of tagged run is there' '
	perl facts.pl <a.json >facts &&
	for t in dirty noisy preflight profile not-main superseded; do
		grep -q "^tag-$t [1-9]" facts || { echo "no $t run"; exit 1; }
	done &&
	test "$(sed -n "s/^clean //p" facts)" -gt 5000
'

test_expect 'not-main runs come from feature-x commits that are not on main' '
	grep -q "^not-main-commit " facts &&
	for c in $(sed -n "s/^not-main-commit //p" facts); do
		test "$(db_sql j.db "SELECT count(*) FROM commits WHERE sha = '"'"'$c'"'"'")" = 0 || exit 1
		test "$(db_sql j.db "SELECT DISTINCT branch FROM runs WHERE commit_sha = '"'"'$c'"'"'")" = feature-x || exit 1
	done
'

test_expect 'the keep-first machine keeps its first run, even against a quieter one' '
	test "$(db_sql j.db "SELECT keep FROM machines WHERE name = '"'"'ci-lavapipe'"'"'")" = first &&
	db_sql j.db "SELECT r.run_id, min(x.id), count(*) FROM records r JOIN runs x
		ON x.machine_id = r.machine_id AND x.benchmark_id = r.benchmark_id
		AND x.config = r.config AND x.source_hash = r.source_hash
		AND x.harness_version = r.harness_version
		JOIN machines m ON m.id = r.machine_id WHERE m.name = '"'"'ci-lavapipe'"'"'
		GROUP BY r.run_id HAVING count(*) > 1" >pairs &&
	test -s pairs &&
	awk -F"|" "\$1 != \$2 { bad = 1 } END { exit bad }" pairs &&
	db_sql j.db "SELECT count(*) FROM records r JOIN runs s ON s.id = r.run_id
		JOIN runs x ON x.machine_id = r.machine_id AND x.benchmark_id = r.benchmark_id
		AND x.config = r.config AND x.source_hash = r.source_hash
		AND x.harness_version = r.harness_version AND x.id <> s.id
		JOIN machines m ON m.id = r.machine_id
		WHERE m.name = '"'"'ci-lavapipe'"'"' AND x.quietness < s.quietness" >quieter &&
	test "$(cat quieter)" -gt 0
'

test_expect 'elsewhere the quieter of two clean runs stands' '
	db_sql j.db "SELECT count(*), sum(CASE WHEN s.quietness <= x.quietness THEN 1 ELSE 0 END)
		FROM records r
		JOIN runs s ON s.id = r.run_id
		JOIN runs x ON x.machine_id = r.machine_id AND x.benchmark_id = r.benchmark_id
		AND x.config = r.config AND x.source_hash = r.source_hash
		AND x.harness_version = r.harness_version AND x.id <> s.id
		JOIN machines m ON m.id = r.machine_id
		WHERE m.name = '"'"'m4-pro-metal'"'"' AND x.dirty = 0 AND x.profile = '"'"'release'"'"'
		AND NOT EXISTS (SELECT 1 FROM tags t WHERE t.run_id = x.id AND t.tag <> '"'"'superseded'"'"')" >q &&
	n=$(cut -d"|" -f1 q) && k=$(cut -d"|" -f2 q) &&
	test "$n" -gt 5 && test "$n" = "$k" &&
	db_sql j.db "SELECT count(*) FROM records r JOIN runs s ON s.id = r.run_id
		JOIN runs x ON x.machine_id = r.machine_id AND x.benchmark_id = r.benchmark_id
		AND x.config = r.config AND x.source_hash = r.source_hash
		AND x.harness_version = r.harness_version AND x.id < s.id
		JOIN machines m ON m.id = r.machine_id
		WHERE m.name = '"'"'m4-pro-metal'"'"' AND x.dirty = 0" >later &&
	test "$(cat later)" -gt 0
'

test_expect 'imported baselines start every Series, before the history' '
	grep -q "^baselines 63$" facts &&
	grep -q "^bad-baselines 0$" facts &&
	bl --db j.db series --json >s.json &&
	json_get s.json "die qq(no Series\n) unless @\$j; for (@\$j) { die \$_->{id} unless \$_->{lines}[0]{reason} eq q(first)
		&& !defined \$_->{lines}[0]{start_seq}
		&& \$_->{lines}[1]{reason} eq q(baseline) && \$_->{lines}[2]{reason} eq q(baseline) } 1"
'

test_expect 'docs-only commits share their parent source hash and get no runs' '
	test "$(db_sql j.db "SELECT count(*) FROM commits c JOIN commits p ON p.sha = c.parent
		WHERE c.source_hash = p.source_hash")" -gt 10 &&
	test "$(db_sql j.db "SELECT count(*) FROM commits c JOIN commits p ON p.sha = c.parent
		JOIN runs ON runs.commit_sha = c.sha WHERE c.source_hash = p.source_hash")" = 0 &&
	test "$(db_sql j.db "SELECT count(*) FROM commits WHERE pr IS NOT NULL")" -gt 60 &&
	test "$(db_sql j.db "SELECT count(*) FROM commits WHERE subject LIKE '"'"'Merge pull request #%'"'"'")" -gt 5 &&
	test "$(db_sql j.db "SELECT count(*) FROM commits WHERE pr IS NOT NULL
		AND subject NOT LIKE '"'"'%(#'"'"' || pr || '"'"')'"'"'
		AND subject NOT LIKE '"'"'Merge pull request #'"'"' || pr || '"'"' from %'"'"'")" = 0 &&
	test "$(db_sql j.db "SELECT count(*) FROM commits c JOIN commits p ON p.seq = c.seq - 1
		WHERE c.parent IS DISTINCT FROM p.sha OR c.committed_at - p.committed_at < 2400")" = 0
'

test_expect 'the harness bump moves cpu_frame_us by about 30%, on every machine' '
	grep -q "^bad-harness 0$" facts &&
	test "$(db_sql j.db "SELECT count(DISTINCT machine_id) FROM runs WHERE harness_version = 10")" = 3 &&
	for m in ci-lavapipe m4-pro-metal; do
		r=$(sed -n "s/^harness-ratio-$m //p" facts) &&
		awk -v r="$r" "BEGIN { exit !(r > 1.25 && r < 1.35) }" || { echo "$m: $r"; exit 1; }
	done
'

test_expect 'the §6 band finds exactly the planted steps (default seed and another)' '
	bl --db j.db records --json | perl band.pl >marks &&
	perl planted.pl <demo.json >want &&
	test "$(wc -l <want)" -ge 6 &&
	diff want marks &&
	bl --db other.db records --json | perl band.pl >marks7 &&
	perl planted.pl <demo7.json >want7 &&
	diff want7 marks7
'

test_done

#!/bin/sh
# benchline gate --json (§7.8, §14): the report's keys are exactly the ones docs/gate-json.md
# lists, object by object, so the docs and the code cannot drift apart. A small history of 12
# benchmarks on main, a pull request that slows one down, then reports that between them hold
# every kind of object: comparisons with both sides, an accepted shift (after `gate accept`),
# a ratchet against an older main commit, across-the-board entries, nothing_to_compare and
# no_verdict; plus benchline-gate.lock and .benchline/gate-status.json.
. "$(dirname "$0")/lib.sh"

DOC=$ROOT/docs/gate-json.md

# sweep SEED ARGS...: one sweep of 12 benchmarks at the repository's HEAD (tests/gate-gen.pl),
# ingested; ARGS go to gate-gen.pl.
sweep() {
	seed=$1
	shift
	hash=$(bl hash --repo .) &&
	src=${hash% *} commit=${hash#* } &&
	perl "$TESTS_DIR/gate-gen.pl" --benchmarks 12 --seed "$seed" --counted 100 \
		--quantile 1.0612 --time $((1780000000 + seed * 86400)) \
		--commit "$commit" --source "$src" "$@" >"../sweep-$seed.json" &&
	bl ingest "../sweep-$seed.json" >/dev/null
}

# The checker: check.pl DOC [--report F]... [--lock F] [--status F] [--require KIND,...]
cat >check.pl <<'EOF'
use strict;
use warnings;
use JSON::PP;

my $doc = shift @ARGV;
my %named = map { $_ => 1 } qw(report comparison side accepted board ratchet counts
	benchline-gate.lock .benchline/gate-status.json);
my (%keys, %never, %sub, $cur);
open my $f, '<', $doc or die "$doc: $!\n";
while (<$f>) {
	if (/^#+\s+(.*?)\s*$/) { $cur = $named{$1} ? $1 : undef; next }
	next unless defined $cur && /^\|\s*`([^`]+)`\s*\|([^|]*)\|([^|]*)\|/;
	my ($k, $type, $null) = ($1, $2, $3);
	die "$doc: $cur: `$k` is listed twice\n" if $keys{$cur}{$k}++;
	$never{$cur}{$k} = 1 if $null =~ /^\s*never\s*$/;
	$sub{$cur}{$k} = [split /\s*,\s*/, $1] if $type =~ /\{([^}]*)\}/;
}
close $f;

my (@err, %seen);
sub check {
	my ($kind, $o, $where) = @_;
	my $want = $keys{$kind} or die "$doc: no table for $kind\n";
	if (ref $o ne 'HASH') { push @err, "$where: not an object"; return }
	$seen{$kind}++;
	for my $k (sort keys %$want) {
		if (!exists $o->{$k}) { push @err, "$where: lacks `$k`, which the docs list"; next }
		push @err, "$where: `$k` is null, documented as never null"
			if $never{$kind}{$k} && !defined $o->{$k};
	}
	exists $want->{$_} or push @err, "$where: has `$_`, which the docs do not list"
		for sort keys %$o;
	for my $k (sort keys %{$sub{$kind} || {}}) {
		next unless ref $o->{$k} eq 'HASH';
		my $w = join ' ', sort @{$sub{$kind}{$k}};
		my $g = join ' ', sort keys %{$o->{$k}};
		push @err, "$where.$k: has keys {$g}, the docs list {$w}" unless $w eq $g;
	}
}
sub comparison {
	my ($c, $where) = @_;
	check('comparison', $c, $where);
	for my $s (qw(head reference)) {
		check('side', $c->{$s}, "$where.$s") if defined $c->{$s};
	}
	check('accepted', $c->{accepted}, "$where.accepted") if defined $c->{accepted};
}
sub rows {
	my ($o, $where) = @_;
	check('counts', $o->{counts}, "$where.counts");
	my $i = 0;
	comparison($_, "$where.comparisons[" . $i++ . "]") for @{$o->{comparisons} || []};
	$i = 0;
	check('board', $_, "$where.across_the_board[" . $i++ . "]") for @{$o->{across_the_board} || []};
}
sub load {
	my $file = shift;
	open my $in, '<', $file or die "$file: $!\n";
	local $/;
	return JSON::PP->new->decode(<$in>);
}

my @require;
while (@ARGV) {
	my ($opt, $file) = splice @ARGV, 0, 2;
	if ($opt eq '--report') {
		my $j = load($file);
		check('report', $j, $file);
		rows($j, $file);
		if (defined $j->{ratchet}) {
			check('ratchet', $j->{ratchet}, "$file.ratchet");
			rows($j->{ratchet}, "$file.ratchet");
		}
	} elsif ($opt eq '--lock') {
		my $j = load($file);
		my $top = join ' ', sort keys %$j;
		push @err, "$file: has keys {$top}, expected {entries schema}"
			unless $top eq 'entries schema';
		my $i = 0;
		check('benchline-gate.lock', $_, "$file.entries[" . $i++ . "]") for @{$j->{entries}};
	} elsif ($opt eq '--status') {
		check('.benchline/gate-status.json', load($file), $file);
	} elsif ($opt eq '--require') {
		@require = split /,/, $file;
	} else {
		die "unknown option $opt\n";
	}
}
$seen{$_} or push @err, "no $_ object was checked" for @require;
if (@err) { print STDERR "$_\n" for @err; exit 1 }
print join(' ', map { "$_=$seen{$_}" } sort keys %seen), "\n";
EOF

test_expect 'setup: main with 6 sweeps of 12 benchmarks, v1 tagged at the second, a slower PR' '
	git init -q -b main repo && cd repo &&
	mkdir src docs &&
	cat >benchline.json <<-EOF &&
	{"measured_paths": ["src"],
	 "unmeasured_paths": ["docs", "benchline.json", "benchline-gate.lock", ".gitignore"],
	 "ladders": {"ms": {"unit": "ms", "edges": [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 50]}}}
	EOF
	echo .benchline/ >.gitignore && echo notes >docs/notes.md && echo v0 >src/main.c &&
	git add . && git commit -qm root &&
	for i in 1 2 3 4 5 6; do
		echo "v$i" >src/main.c && git commit -qam "change $i" &&
		{ test $i != 2 || git tag v1; } &&
		sweep $i || exit 1
	done &&
	git checkout -qb slower && echo slower >src/main.c && git commit -qam "slower parse" &&
	sweep 99 --branch slower --shift 1.10 --shift-only "bench_00"
'

test_expect 'gate --json fails the slower benchmark' '
	cd repo &&
	expect_exit 1 bl gate --json ../g1.json >../g1.txt &&
	test "$(json_get ../g1.json "\$j->{status}")" = fail &&
	test "$(json_get ../g1.json "join q( ), map { \$_->{status} } grep { \$_->{benchmark} eq q(bench_00) && \$_->{metric} eq q(wall_ns) } @{\$j->{comparisons}}")" = FAIL &&
	grep -q "^FAIL .*ci-1/bench_00 wall_ns" ../g1.txt
'

test_expect 'gate accept records the failing metric in benchline-gate.lock' '
	cd repo &&
	expect_exit 0 bl gate accept --justification x >../accept.txt &&
	grep -q "^accepted: ci-1/bench_00 wall_ns" ../accept.txt &&
	json_get benchline-gate.lock "join q( ), map { \"\$_->{benchmark}:\$_->{metric}\" } @{\$j->{entries}}" | grep -q "bench_00:wall_ns"
'

test_expect 'gate --ratchet v1: the accepted shift is ACPT in both comparisons, across the board is there' '
	cd repo &&
	expect_exit 0 bl gate --ratchet v1 --json ../g2.json >/dev/null &&
	json_get ../g2.json "my (\$r) = grep { \$_->{benchmark} eq q(bench_00) && \$_->{metric} eq q(wall_ns) } @{\$j->{ratchet}{comparisons}};
		die unless \$r->{status} eq q(ACPT) && !\$r->{accepted}{stale}; 1" &&
	json_get ../g2.json "my (\$c) = grep { \$_->{benchmark} eq q(bench_00) && \$_->{metric} eq q(wall_ns) } @{\$j->{comparisons}};
		die unless \$c->{status} eq q(ACPT) && \$c->{accepted}{justification} eq q(x) && !\$c->{accepted}{stale};
		die unless \$j->{ratchet} && \$j->{ratchet}{ref} eq q(v1) && @{\$j->{ratchet}{comparisons}} >= 12;
		die unless grep { \$_->{metric} eq q(wall_ns) && \$_->{comparisons} == 12 } @{\$j->{across_the_board}};
		die unless @{\$j->{ratchet}{across_the_board}}; 1" &&
	test -s .benchline/gate-status.json
'

test_expect 'a docs-only branch has nothing to compare; an unbenched one has no verdict' '
	cd repo &&
	git checkout -q -b docs-only main && echo more >>docs/notes.md && git commit -qam docs &&
	expect_exit 0 bl gate --json ../g3.json >/dev/null &&
	test "$(json_get ../g3.json "\$j->{status}")" = nothing_to_compare &&
	git checkout -q -b unbenched main && echo new >src/main.c && git commit -qam unbenched &&
	expect_exit 4 bl gate --ratchet v1 --json ../g4.json >/dev/null &&
	test "$(json_get ../g4.json "\$j->{status}")" = no_verdict &&
	git checkout -q slower
'

test_expect 'every object carries exactly the keys docs/gate-json.md lists for it' '
	perl check.pl "$DOC" --report g1.json --report g2.json --report g3.json \
		--report g4.json --lock repo/benchline-gate.lock \
		--status repo/.benchline/gate-status.json \
		--require "report,comparison,side,accepted,board,ratchet,counts,benchline-gate.lock,.benchline/gate-status.json"
'

test_expect 'the check notices a key the docs lack, and a documented key the report lacks' '
	sed "/^| \`run_id\` |/d" "$DOC" >fewer.md &&
	! perl check.pl fewer.md --report g1.json 2>fewer.err &&
	grep -q "has \`run_id\`, which the docs do not list" fewer.err &&
	sed "s/^| \`stale\` |.*/&\n| \`expires\` | string | never | made up. |/" "$DOC" >more.md &&
	! perl check.pl more.md --report g2.json 2>more.err &&
	grep -q "lacks \`expires\`, which the docs list" more.err &&
	sed "s/^| \`note\` | string | nothing to add |/| \`note\` | string | never |/" "$DOC" >never.md &&
	! perl check.pl never.md --report g1.json 2>never.err &&
	grep -q "\`note\` is null, documented as never null" never.err
'

test_done

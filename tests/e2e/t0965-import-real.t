#!/bin/sh
# benchline import on the real histories in ../shared/data (read where they lie, never copied;
# skipped when they are not there): github-action-benchmark's own data.js stores one record per
# point with a commit, and a second import stores nothing; Django's published asv site stores
# every point with a value, on one Series per graph that has a point. The counts are taken
# from the files here, with perl, not from benchline.
. "$(dirname "$0")/lib.sh"

DATA=${BENCHLINE_DATA:-$ROOT/../shared/data}
GAB=$DATA/gab_histories/github-action-benchmark_self/data.js
SITE=$DATA/asv_django/gh-pages
if [ ! -f "$GAB" ] || [ ! -f "$SITE/index.json" ]; then
	echo "1..0 # SKIP no ../shared/data (github-action-benchmark's data.js, Django's asv site)"
	exit 0
fi

test_expect 'github-action-benchmark'"'"'s data.js: one record per point, then nothing new' '
	perl -MJSON::PP -e "
		local \$/; my \$t = <STDIN>; \$t =~ s/^\s*window\.BENCHMARK_DATA\s*=\s*//; \$t =~ s/;?\s*\z//;
		my \$j = JSON::PP->new->decode(\$t); my \$n = 0;
		for my \$s (values %{ \$j->{entries} }) { for my \$e (@\$s) {
			\$n += @{ \$e->{benches} } if (\$e->{commit}{id} // q()) =~ /^[0-9a-f]{40}\z/i } }
		print \"\$n\n\";
	" <"$GAB" >points &&
	bl --db gab.db import --from gab "$GAB" >out 2>err &&
	n=$(cat points) &&
	grep -q ": $n records stored ([0-9]* standing), 0 already stored, on [0-9]* Series\$" out &&
	test "$(bl --db gab.db records --all --json | json_get - "scalar @\$j")" = "$n" &&
	bl --db gab.db import --from gab "$GAB" >out &&
	grep -q ": nothing new stored, $n already stored, on [0-9]* Series\$" out
'

# One real results file of asv's (results_samples/ holds it beside benchmarks.json and
# machine.json), laid out as asv's results directory in this test's scratch directory: each of
# its records has the value the site published for that benchmark at that commit, on the key a
# site's record has (machine ubuntu-latest, config python=3.12, the benchmark's version).
SAMPLES=$DATA/asv_django/results_samples
RAW=$SAMPLES/raw_example_ff3aaf03-conda-py3.12.json
if [ -f "$RAW" ]; then
test_expect 'a real asv results file gives the values the site published from it' '
	mkdir -p results/ubuntu-latest &&
	cp "$SAMPLES/benchmarks.json" results/ &&
	cp "$SAMPLES/machine.json" results/ubuntu-latest/ &&
	cp "$RAW" results/ubuntu-latest/ff3aaf03-conda-py3.12.json &&
	bl --db raw.db import --from asv results >out &&
	grep -q ": 59 records stored (59 standing), 0 already stored, on 59 Series$" out &&
	bl --db raw.db records --json >raw.json &&
	perl -MJSON::PP -e "
		my (\$site, \$records) = @ARGV;
		sub load { open my \$f, q(<), \$_[0] or die \"\$_[0]: \$!\"; local \$/; JSON::PP->new->decode(<\$f>) }
		my \$index = load(qq(\$site/index.json));
		my %rev = reverse %{ \$index->{revision_to_hash} };
		my (\$same, \$bad) = (0, 0);
		for my \$r (@{ load(\$records) }) {
			\$r->{machine} eq q(ubuntu-latest) && \$r->{config} eq q(python=3.12) or \$bad++, next;
			my \$g = load(qq(\$site/graphs/branch-main/machine-ubuntu-latest/python-3.12/\$r->{benchmark}.json));
			my (\$p) = grep { \$_->[0] == \$rev{\$r->{commit}} } @\$g;
			if (\$p && abs(\$p->[1] - \$r->{metrics}{time}{median}) <= 1e-12 * \$p->[1]) { \$same++ }
			else { print STDERR qq(\$r->{benchmark}: differs\n); \$bad++ }
		}
		print qq(\$same \$bad\n);
	" "$SITE" raw.json >got &&
	echo "59 0" | test_cmp - got
'
fi

# 191,434 records take minutes on the PostgreSQL server the suite starts: SQLite's figure is
# the one docs/import.md gives, and the store's two dialects are the same code for both.
if pg_mode; then
	test_done
	exit
fi

test_expect 'Django'"'"'s asv site: every point with a value, a Series per graph with points' '
	perl -MJSON::PP -e "
		my (\$points, \$graphs) = (0, 0);
		for my \$f (@ARGV) {
			next if \$f =~ m{/summary\.json\z};
			open my \$h, q(<), \$f or die; local \$/; my \$j = JSON::PP->new->decode(<\$h>);
			my \$k = grep { defined \$_->[1] } @\$j; \$points += \$k; \$graphs++ if \$k;
		}
		print \"\$points \$graphs\n\";
	" "$SITE"/graphs/*/*/*/*.json >counts &&
	read points graphs <counts &&
	bl --db site.db import --from asv-html "$SITE" >out 2>err &&
	grep -q ": $points records stored ($points standing), 0 already stored, on $graphs Series;" out &&
	grep -q "^benchline: import: storing $points records of .* in one transaction\$" err &&
	test "$(bl --db site.db series --json | json_get - "scalar @\$j")" = "$graphs"
'
test_done

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

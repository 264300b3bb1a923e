#!/bin/sh
# The examples in docs/cli.md and README.md run, and print what the docs say they print.
# Each ```sh block runs as one script in a scratch directory (in order, so later blocks see
# what earlier ones made); the lines of a block that start with "# " are its expected stdout.
. "$(dirname "$0")/lib.sh"

mkdir bin && ln -s "$BENCHLINE" bin/benchline
PATH=$TMP/bin:$PATH
export PATH

# split_blocks DOC: writes block-N.sh and block-N.expected for each ```sh block of DOC.
split_blocks() {
	perl -e '
		my ($doc, $prefix) = @ARGV; open my $f, "<", $doc or die "$doc: $!";
		my ($n, $in, $sh, $exp) = (0, 0, "", "");
		while (<$f>) {
			if (!$in && /^```sh\s*$/) { $in = 1; $sh = $exp = ""; next }
			if ($in && /^```\s*$/) {
				$n++; $in = 0;
				open my $o, ">", "$prefix-$n.sh" or die; print $o $sh; close $o;
				open my $e, ">", "$prefix-$n.expected" or die; print $e $exp; close $e;
				next;
			}
			next unless $in;
			if (/^# (.*)$/) { $exp .= "$1\n" } else { $sh .= $_ }
		}
		print "$n\n";
	' "$1" "$2"
}

run_doc() {
	doc=$1 name=$2
	n=$(split_blocks "$ROOT/$doc" "$name")
	test "$n" -gt 0 || { echo "no examples in $doc"; return 1; }
	i=1
	while [ "$i" -le "$n" ]; do
		sh -e "$name-$i.sh" >"$name-$i.out" 2>"$name-$i.err" || {
			echo "$doc example $i failed:"; cat "$name-$i.sh" "$name-$i.err"; return 1; }
		if [ -s "$name-$i.expected" ]; then
			diff -u "$name-$i.expected" "$name-$i.out" || {
				echo "$doc example $i printed something else"; return 1; }
		fi
		i=$((i + 1))
	done
}

test_expect 'docs/cli.md examples run and print what they say' '
	mkdir cli && cd cli && run_doc docs/cli.md cli
'

# The README's tour runs from the top of the tree, as its reader runs it; its scratch directory
# (mktemp -d) is made under this test's own.
test_expect 'the README tour runs as written, from the top of the tree' '
	mkdir readme readme/tmp &&
	export TMPDIR=$TMP/readme/tmp &&
	cd "$ROOT" && run_doc README.md "$TMP/readme/readme" &&
	test "$(ls "$TMP/readme/tmp" | wc -l)" = 1
'
test_done

#!/bin/sh
# Help like git's: every command's --help has a synopsis listing every option of its table (read
# here from the source, not from the binary), a description, exit statuses and two examples;
# "did you mean" for a near miss; `benchline version`; the man page and the bash completion
# written from the same tables.
. "$(dirname "$0")/lib.sh"

# The commands: every one `help` lists, the plumbing too (the test below holds that list to the
# command table).
bl help | sed -n 's/^    \([a-z-]*\) .*/\1/p' >commands

# table_options NAME: the long options of cli/cmd_NAME.c's table, one a line, with those of the
# CLI_INTAKE_OPTIONS and CLI_PUSH_OPTIONS macros of cli/cli.h when the table uses them (a
# command run by cli_intake_command has CLI_INTAKE_OPTIONS as its table).
table_options() {
	perl -e '
		my ($root, $name) = @ARGV;
		(my $file = "cmd_$name.c") =~ tr/-/_/;
		sub slurp { local $/; open my $f, "<", $_[0] or return ""; <$f> }
		my $src = slurp("$root/cli/$file");
		my $hdr = slurp("$root/cli/cli.h");
		s/\\\n//g for $src, $hdr;
		$src .= " CLI_INTAKE_OPTIONS(in)" if $src =~ /cli_intake_command\(/;
		my %macro;
		while ($hdr =~ /#define (CLI_\w+_OPTIONS)\(\w+\)(.*?)\n\n/sg) { $macro{$1} = $2 }
		my @seen;
		my $expand;
		$expand = sub {
			my $text = shift;
			while ($text =~ /\{\s*OPT_(?!END)\w+,\s*"([a-z-]+)"|\b(CLI_\w+_OPTIONS)\(/g) {
				if (defined $1) { push @seen, $1 } else { $expand->($macro{$2}) }
			}
		};
		$expand->($src);
		print "$_\n" for @seen;
	' "$ROOT" "$1"
}

# The command table's names, read from the source (cli/main.c), in its order.
table_commands() {
	perl -0777 -ne '
		my ($table) = /cli_commands\[\] = \{(.*?)\n\};/s or die "no command table\n";
		print "$1\n" while $table =~ /\.name = "([a-z-]+)"/g;
	' "$ROOT/cli/main.c"
}

test_expect 'help lists every command of the table, each with a summary, plumbing apart' '
	table_commands >table &&
	test "$(wc -l <table)" -ge 30 &&
	test_cmp table commands &&
	bl help >help.out &&
	sed -n "s/^    \([a-z-]*\)  *\([a-z].*\)/\1/p" help.out >summarised &&
	test_cmp table summarised &&
	sed -n "/^plumbing/,\$p" help.out | sed -n "s/^    \([a-z-]*\) .*/\1/p" >plumbing &&
	printf "worktree\ngenerate\n" >expect &&
	test_cmp expect plumbing
'

test_expect 'every command has a description, its options, exit statuses and two examples' '
	while read -r c; do
		bl "$c" --help >help.out 2>help.err || { echo "$c --help failed"; cat help.err; exit 1; }
		perl -e "
			my \$c = shift; local \$/; my \$h = <STDIN>;
			my @parts = split /\n\n/, \$h;
			\$parts[0] =~ /^usage: benchline \Q\$c\E/ or die \"\$c: no usage line\n\";
			(\$parts[1] // q()) =~ /^[A-Z].*\\.\$/s or die \"\$c: no description\n\";
			\$h =~ /\nexit status:\n    \d+ +\S/ or die \"\$c: no exit status\n\";
			my (\$ex) = \$h =~ /\nexamples:\n(.*)\z/s or die \"\$c: no examples\n\";
			my \$n = () = \$ex =~ /^        benchline /mg;
			\$n >= 2 or die \"\$c: \$n examples\n\";
			\$h !~ /\x{a7}|\xc2\xa7/ or die \"\$c: a section reference in its help\n\";
		" "$c" <help.out || exit 1
	done <commands
'

test_expect 'every synopsis and every options list names every option of the table, and no other' '
	while read -r c; do
		table_options "$c" | sort -u >want
		bl "$c" --help >help.out
		# the synopsis: from "usage:" to the first blank line
		sed "/^\$/q" help.out | grep -o -- "--[a-z][a-z-]*" | sort -u >synopsis
		sed -n "/^options:\$/,/^\$/p" help.out | sed -n "s/^    --\([a-z-]*\).*/\1/p" |
			sort -u >listed
		sed "s/^--//" synopsis >synopsis.names
		diff -u want synopsis.names >/dev/null || { echo "$c: synopsis"; diff -u want synopsis.names; exit 1; }
		diff -u want listed >/dev/null || { echo "$c: options"; diff -u want listed; exit 1; }
	done <commands
'

test_expect 'the tables the test reads are really there (a command with options is seen)' '
	table_options gate >gate.opts &&
	grep -qx ratchet gate.opts && grep -qx base-url gate.opts &&
	table_options import-baseline >ib.opts &&
	grep -qx verbose ib.opts && grep -qx timeout ib.opts
'

test_expect 'gate and import-baseline synopses list the options they used to omit' '
	bl gate --help | sed "/^\$/q" >syn &&
	for o in limit override exclude ratchet base-url; do
		grep -q -- "--$o" syn || { echo "gate: no --$o"; exit 1; }
	done &&
	bl import-baseline --help | sed "/^\$/q" >syn &&
	for o in config repo verbose json; do
		grep -q -- "--$o" syn || { echo "import-baseline: no --$o"; exit 1; }
	done
'

test_expect 'help COMMAND prints what COMMAND --help prints' '
	bl help series >expect &&
	bl series --help >actual &&
	test_cmp expect actual
'

test_expect 'a usage error shows the synopsis and the options, not the whole help' '
	expect_exit 2 bl series --bogus 2>err &&
	grep -q "^usage: benchline series" err &&
	grep -q "^    --json" err &&
	! grep -q "^examples:" err
'

test_expect 'a near miss of a command is named' '
	expect_exit 2 bl suspect 2>err &&
	echo "benchline: '\''suspect'\'' is not a benchline command; did you mean '\''suspects'\''?" >expect &&
	test_cmp expect err &&
	expect_exit 2 bl sreies 2>err &&
	grep -q "did you mean '\''series'\''?" err &&
	expect_exit 2 bl frobnicate 2>err &&
	! grep -q "did you mean" err
'

test_expect 'a near miss of an option is named' '
	expect_exit 2 bl records --jsno 2>err &&
	head -1 err >first &&
	echo "benchline: unknown option '\''--jsno'\''; did you mean '\''--json'\''?" >expect &&
	test_cmp expect first
'

test_expect 'benchline version prints what --version prints' '
	bl version >actual &&
	bl --version >expect &&
	test_cmp expect actual &&
	grep -q "^benchline [0-9][0-9.]*$" actual
'

test_expect 'the man page has a section for every command, from the same tables' '
	bl generate manpage >benchline.1 &&
	head -2 benchline.1 | grep -q "^\.TH BENCHLINE 1 " &&
	while read -r c; do
		roff=$(printf "%s" "$c" | sed "s/-/\\\\-/g")
		grep -qF ".SS \"benchline $roff\"" benchline.1 || { echo "no section for $c"; exit 1; }
	done <commands &&
	grep -qF "[\\-\\-ratchet REF]" benchline.1 &&
	bl generate manpage gate >gate.1 &&
	grep -q "^\.SS \"benchline gate\"$" gate.1 &&
	! grep -q "$(printf "\302\247")" benchline.1
'

if command -v groff >/dev/null 2>&1; then
	test_expect 'groff reads the man page without a warning' '
		bl generate manpage >benchline.1 &&
		groff -man -Tutf8 -ww -z benchline.1 2>warnings &&
		test_cmp /dev/null warnings
	'
fi

if command -v bash >/dev/null 2>&1; then
	test_expect 'the bash completion completes commands, subcommands and options' '
		bl generate completion >benchline.bash &&
		cat >complete.sh <<-\EOF &&
		. ./benchline.bash
		c() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _benchline; echo "${COMPREPLY[*]}"; }
		c benchline susp
		c benchline --db x.db ser
		c benchline gate --rat
		c benchline ladder d
		c benchline import-baseline --verb
		EOF
		bash complete.sh >actual &&
		printf "%s\n" suspects "series serve" --ratchet derive --verbose >expect &&
		test_cmp expect actual
	'
fi
test_done

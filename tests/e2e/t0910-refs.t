#!/bin/sh
# Every section number cited in code, tests and docs is a section of docs/contract.md, and the
# contract's links reach real pages (tests/check-refs.pl); and the check does fail when either
# breaks.
. "$(dirname "$0")/lib.sh"

S=$(printf '\302\247') # the section sign, so this file cites nothing itself

test_expect 'every citation in the tree names a section of docs/contract.md' '
	perl "$ROOT/tests/check-refs.pl" "$ROOT" >out &&
	grep -q "^[0-9]* citations in [0-9]* files, each a section of docs/contract.md ([0-9]* sections)$" out
'

test_expect 'a citation of a missing section fails, naming the file and the line' '
	mkdir -p tree/docs tree/detect &&
	cp "$ROOT"/docs/*.md tree/docs/ && cp "$ROOT/README.md" tree/ &&
	printf "/* the band (${S}6) */\n/* as ${S}99 says */\n" >tree/detect/x.c &&
	printf "# A page\n\nSee ${S}7.3 and ${S}7.11, then ${S} 16.\n" >tree/docs/new.md &&
	expect_exit 1 perl "$ROOT/tests/check-refs.pl" tree >actual &&
	cat >expect <<-EOF &&
	detect/x.c:2: ${S}99 is cited, but docs/contract.md has no such section
	docs/new.md:3: ${S}7.11 is cited, but docs/contract.md has no such section
	docs/new.md:3: ${S}16 is cited, but docs/contract.md has no such section
	EOF
	test_cmp expect actual
'

test_expect 'a contract link to a missing page or anchor fails' '
	rm -rf tree && mkdir -p tree/docs &&
	cp "$ROOT"/docs/*.md tree/docs/ && cp "$ROOT/README.md" tree/ &&
	printf "\nSee [gone](gone.md) and [the band](detection.md#no-such-heading).\n" \
		>>tree/docs/contract.md &&
	n=$(wc -l <tree/docs/contract.md) &&
	expect_exit 1 perl "$ROOT/tests/check-refs.pl" tree >actual &&
	cat >expect <<-EOF &&
	docs/contract.md:$n: the link to '"'"'gone.md'"'"' reaches no file
	docs/contract.md:$n: '"'"'detection.md'"'"' has no anchor '"'"'#no-such-heading'"'"'
	EOF
	test_cmp expect actual
'
test_done

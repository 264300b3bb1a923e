#!/bin/sh
# Text written into SVG or HTML never carries a C0 control character but tab, LF and CR (§13):
# each becomes U+FFFD, so a benchmark name or a commit subject cannot make a chart invalid XML
# (a browser refuses to draw it) or a page invalid. The charts are read by xmllint, the pages
# checked byte by byte.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/e2e/serve-lib.sh"

command -v xmllint >/dev/null || { echo "1..0 # SKIP no xmllint (libxml2-utils; make deps)"; exit 0; }

# main: five commits, one with control characters (SOH, ESC, VT) and DEL in its subject.
(
	set -e
	git init -q repo
	for k in 1 2 3 4 5; do
		echo "$k" >repo/f
		git -C repo add f
		if [ $k = 4 ]; then
			git -C repo commit -q -m "$(printf 'fix\001 the \033[2J parser\013 \177 cafe')"
		else
			git -C repo commit -q -m "commit $k"
		fi
		git -C repo rev-parse HEAD >c$k
	done
) >setup.log 2>&1 || { cat setup.log; echo 'Bail out! cannot build the repository'; exit 1; }

# rec K MEDIAN: a record at commit K whose benchmark, config, metric and unit carry C0 controls.
rec() {
	printf '{"schema": 1, "machine": "ci", "benchmark": "parse\\u0001\\u001b[2J\\u0002x", '
	printf '"config": "c\\u000b\\u0008", "harness_version": 1, '
	printf '"source": {"commit": "%s", "source_hash": "%040d"}, ' "$(cat c$1)" "$1"
	printf '"started_at": "2026-11-0%dT04:00:00Z", ' "$1"
	printf '"metrics": {"t\\u001f": {"unit": "m\\u0007s", "median": %s}}}\n' "$2"
}
{ rec 1 100; rec 2 101; rec 3 99; rec 4 130; rec 5 131; } >history.json
{ bl sync --repo repo && bl ingest history.json && bl detect; } >setup.log 2>&1 ||
	{ cat setup.log; echo 'Bail out! cannot store the records'; exit 1; }
serve_start web --repo "$TMP/repo" || exit 1
SID=$(curl -s "$URL/api/series" | json_get - 'my $s = $j->[0]; join "/", map { my $v = $_; $v =~ s/([^A-Za-z0-9._~-])/sprintf("%%%02X", ord $1)/ge; $v } @{$s}{qw(machine benchmark config metric)}')

# clean FILE: fails when FILE holds a C0 control character but tab, LF and CR, or bytes that
# are not UTF-8.
clean() {
	perl -MEncode -e '
		local $/; my $t = <STDIN>;
		eval { Encode::decode("UTF-8", $t, Encode::FB_CROAK); 1 } or exit 2;
		exit($t =~ /[\x00-\x08\x0b\x0c\x0e-\x1f]/ ? 1 : 0)' <"$1" || {
		echo "$1 holds a control character or bytes that are not UTF-8:"
		perl -ne 'print if /[\x00-\x08\x0b\x0c\x0e-\x1f]/' "$1" | od -c | head
		return 1
	}
}

# has FILE PERL-REGEX: FILE holds a match (bytes, \xNN escapes).
has() {
	perl -e 'my ($f, $re) = @ARGV; open my $h, "<", $f or die; local $/; my $t = <$h>;
		exit($t =~ /$re/ ? 0 : 1)' "$1" "$2" || { echo "no /$2/ in $1"; return 1; }
}

test_expect 'the chart is well-formed XML, its names and the subject with U+FFFD for each control' '
	expect_status 200 image/svg+xml GET "$URL/series/$SID/chart.svg" &&
	mv body chart.svg &&
	xmllint --noout chart.svg &&
	clean chart.svg &&
	has chart.svg "parse\xef\xbf\xbd\xef\xbf\xbd\[2J\xef\xbf\xbdx / c\xef\xbf\xbd\xef\xbf\xbd / t\xef\xbf\xbd" &&
	has chart.svg "fix\xef\xbf\xbd the \xef\xbf\xbd\[2J parser\xef\xbf\xbd \x7f cafe" &&
	has chart.svg "130 m\xef\xbf\xbds"
'
test_expect 'the chart of ?x=date too' '
	expect_status 200 image/svg+xml GET "$URL/series/$SID/chart.svg?x=date" &&
	xmllint --noout body && clean body
'
test_expect 'every page is free of them: the overview, the Series, Suspects, Regressions, the gate' '
	for page in "/" "/series/$SID" "/suspects" "/regressions" "/gate?head=$(cat c5)&base=$(cat c3)" \
		"/series/$SID?x=date" "/?q=parse"; do
		expect_status 200 text/html GET "$URL$page" && clean body || { echo "page $page"; return 1; }
	done &&
	curl -s "$URL/series/$SID" >series.html &&
	has series.html "parse\xef\xbf\xbd\xef\xbf\xbd\[2J\xef\xbf\xbdx"
'
test_expect 'the JSON API stays exact: the names as they were stored' '
	curl -s "$URL/api/series" | json_get - "\$j->[0]{benchmark} eq qq(parse\x01\x1b[2J\x02x) ? q(same) : q(changed)" >actual &&
	echo same >expect &&
	test_cmp expect actual
'
test_done

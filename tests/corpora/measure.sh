#!/bin/sh
# measure.sh: how §6 detection does on real benchmark histories (issue 12; docs/detection.md,
# "Measured on real histories"). For each corpus: convert it into a temporary directory
# (tests/corpora/asv-django.pl, tests/corpora/gab.pl), `benchline init`, `ingest`, `detect`,
# then read `records --json`, `series --json` and `suspects --json` (tests/corpora/score.pl)
# and print the figures. They are reported, not judged: nothing here has a budget.
#
#   sh tests/corpora/measure.sh [--data DIR] [--json] [--keep] [CORPUS...]
#
# --data DIR   the shared data (default: $BENCHLINE_DATA, else ROOT/../shared/data); it is only
#              read, never copied
# --json       one JSON document {"data", "corpora": [figures of each corpus]} instead of lines
# --keep       keep the temporary directory (printed on stderr)
# CORPUS       asv-django, gab (default: both). A corpus whose files are missing is skipped.
#
# $BENCHLINE names the binary (default ROOT/benchline). Exit 0 when every corpus asked for was
# measured or skipped, 2 when one could not be converted, ingested or detected.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$ROOT/tests/corpora
BL=${BENCHLINE:-$ROOT/benchline}
DATA=${BENCHLINE_DATA:-$ROOT/../shared/data}
JSON=0
KEEP=0
CORPORA=

while [ $# -gt 0 ]; do
	case $1 in
	--data) [ $# -ge 2 ] || { echo "measure.sh: --data needs a value" >&2; exit 2; }
		DATA=$2; shift ;;
	--data=*) DATA=${1#--data=} ;;
	--json) JSON=1 ;;
	--keep) KEEP=1 ;;
	asv-django|gab) CORPORA="$CORPORA $1" ;;
	*) echo "measure.sh: unknown argument '$1'" >&2
	   echo "usage: measure.sh [--data DIR] [--json] [--keep] [asv-django] [gab]" >&2
	   exit 2 ;;
	esac
	shift
done
[ -n "$CORPORA" ] || CORPORA="asv-django gab"
[ -d "$DATA" ] || { echo "measure.sh: no data directory $DATA" >&2; exit 2; }
[ -x "$BL" ] || { echo "measure.sh: no $BL (run make)" >&2; exit 2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/benchline-corpora.XXXXXX") || exit 2
if [ $KEEP = 1 ]; then
	echo "measure.sh: keeping $WORK" >&2
else
	trap 'rm -rf "$WORK"' EXIT
fi

# convert NAME DIR: writes DIR/records.jsonl (and DIR/ranges.json when the corpus has ground
# truth); fails when the converter does.
convert() {
	case $1 in
	asv-django)
		perl "$HERE/asv-django.pl" --data "$DATA" --out "$2/records.jsonl" \
			--ranges "$2/ranges.json" 2>"$2/convert.log" ;;
	gab)
		perl "$HERE/gab.pl" --data "$DATA" --out "$2/records.jsonl" 2>"$2/convert.log" ;;
	esac
}

# present NAME: whether the corpus's files are in $DATA.
present() {
	case $1 in
	asv-django) [ -f "$DATA/asv_django/gh-pages/index.json" ] ;;
	gab) [ -f "$DATA/gab_histories/github-action-benchmark_self/data.js" ] ;;
	esac
}

# alerts NAME DIR: the corpus's alerts (§9.1) as `benchline alerts --json` lists them, into
# DIR/alerts.json, for score.pl's --alerts.
alerts() {
	"$BL" --db "$2/bench.db" alerts --json >"$2/alerts.json"
}

# measure NAME: converts, ingests, detects and scores one corpus into $WORK/NAME/score.{txt,json}.
measure() {
	d=$WORK/$1
	mkdir -p "$d"
	db=$d/bench.db
	if ! convert "$1" "$d"; then
		echo "measure.sh: $1: the conversion failed:" >&2
		cat "$d/convert.log" >&2
		return 2
	fi
	"$BL" --db "$db" init >/dev/null &&
		"$BL" --db "$db" ingest "$d/records.jsonl" >"$d/ingest.out" 2>"$d/ingest.err" &&
		"$BL" --db "$db" detect >"$d/detect.out" 2>"$d/detect.err" &&
		"$BL" --db "$db" records --json >"$d/records.json" &&
		"$BL" --db "$db" series --json >"$d/series.json" &&
		"$BL" --db "$db" suspects --json >"$d/suspects.json" || {
		echo "measure.sh: $1: benchline failed:" >&2
		cat "$d/ingest.err" "$d/detect.err" 2>/dev/null | head -5 >&2
		return 2
	}
	set -- "$1" --name "$1" --converted "$d/records.jsonl" --records "$d/records.json" \
		--series "$d/series.json" --suspects "$d/suspects.json"
	[ -f "$d/ranges.json" ] && set -- "$@" --ranges "$d/ranges.json"
	alerts "$1" "$d" && set -- "$@" --alerts "$d/alerts.json"
	shift
	perl "$HERE/score.pl" "$@" >"$d/score.txt" &&
		perl "$HERE/score.pl" "$@" --json >"$d/score.json" || return 2
}

status=0
scored=
for c in $CORPORA; do
	if ! present "$c"; then
		[ $JSON = 1 ] || echo "$c: skipped (its files are not in $DATA)"
		continue
	fi
	if measure "$c"; then
		scored="$scored $c"
		[ $JSON = 1 ] || cat "$WORK/$c/score.txt"
	else
		status=2
	fi
done

if [ $JSON = 1 ]; then
	# shellcheck disable=SC2086 # $scored: corpus names, one word each
	perl -MJSON::PP -e '
		my $js = JSON::PP->new->canonical->pretty;
		my ($data, $work) = splice @ARGV, 0, 2;
		my @c = map {
			open my $f, "<", "$work/$_/score.json" or die "measure.sh: $_: $!\n";
			local $/;
			$js->decode(<$f>);
		} @ARGV;
		print $js->encode({data => $data, corpora => \@c});
	' "$DATA" "$WORK" $scored || status=2
fi
exit $status

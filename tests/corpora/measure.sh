#!/bin/sh
# measure.sh: how §6 detection does on real benchmark histories (issue 12; docs/detection.md,
# "Measured on real histories"). For each corpus: convert it into a temporary directory
# (tests/corpora/asv-django.pl, tests/corpora/gab.pl), `benchline init`, `ingest`, `detect`,
# then read `records --json`, `series --json` and `suspects --json` (tests/corpora/score.pl)
# and print the figures. They are reported, not judged: nothing here has a budget.
#
#   sh tests/corpora/measure.sh [--data DIR] [--json] [--keep] [--time N] [CORPUS...]
#
# --data DIR   the shared data (default: $BENCHLINE_DATA, else ROOT/../shared/data); it is only
#              read, never copied
# --json       one JSON document {"data", "corpora": [figures of each corpus]} instead of lines
# --keep       keep the temporary directory (printed on stderr)
# --time N     also time the first `detect --all` of each history (its detection state
#              removed before each run) against one sorted SQL scan of the same values (the
#              metrics rows in Series order, sqlite3's own) in N rounds, each a detect and
#              the scan right after it: the best of each side, and every round's pair, which
#              `make bench` judges by the median of the rounds' ratios (§12: at most 1.5 times
#              the scan); `make bench` gives 15
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
TIME=0
CORPORA=

while [ $# -gt 0 ]; do
	case $1 in
	--data) [ $# -ge 2 ] || { echo "measure.sh: --data needs a value" >&2; exit 2; }
		DATA=$2; shift ;;
	--data=*) DATA=${1#--data=} ;;
	--json) JSON=1 ;;
	--keep) KEEP=1 ;;
	--time) [ $# -ge 2 ] || { echo "measure.sh: --time needs a value" >&2; exit 2; }
		TIME=$2; shift ;;
	asv-django|gab) CORPORA="$CORPORA $1" ;;
	*) echo "measure.sh: unknown argument '$1'" >&2
	   echo "usage: measure.sh [--data DIR] [--json] [--keep] [--time N] [asv-django] [gab]" >&2
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

# The floor of a first detect: one sorted SQL scan of the values it judges, the metrics rows in
# Series order (group, metric, time), summed so that every row is read.
SCAN='SELECT count(*), total(v) FROM (SELECT r.machine_id, r.benchmark_id, r.config, m.name,
	m.median AS v FROM metrics m JOIN runs r ON r.id = m.run_id
	ORDER BY r.machine_id, r.benchmark_id, r.config, m.name, r.committed_at, r.started_at);'
# Removes what detect stored, so that the next detect --all is a first one.
RESET="DELETE FROM suspects; DELETE FROM alerts; DELETE FROM line_values;
	DELETE FROM line_searches; DELETE FROM line_ends; DELETE FROM lines;
	DELETE FROM meta WHERE key LIKE 'detect%';"

# time_first DIR: DIR/time.txt, "FIRST_S SCAN_S": the best of $TIME interleaved runs of each,
# then one line per round, "FIRST_S SCAN_S" of that round (the scan right after the detect).
# Both run in DIR, outside every repository, as a server's or a sweep's detect would: a history
# read from ../shared/data has no checkout, and run from benchline's own, detect would open that
# unrelated repository to look for its benchline.json (libgit2's start, 7 ms a process).
time_first() {
	perl -e '
		use Cwd qw(abs_path);
		use Time::HiRes qw(time);
		my ($n, $bl, $db, $reset, $scan, $dir) = @ARGV;
		$db = abs_path($db);
		chdir $dir or exit 2;
		my ($best_d, $best_s) = (9e9, 9e9);
		my @rounds;
		for (1 .. $n) {
			system("sh", "-c", q(sqlite3 "$0" "$1" >/dev/null), $db, $reset) == 0 or exit 2;
			my $t = time;
			system("sh", "-c", q("$0" --db "$1" detect --all >/dev/null 2>&1), $bl, $db) == 0
			    or exit 2;
			my $d = time - $t;
			$t = time;
			system("sh", "-c", q(sqlite3 "$0" "$1" >/dev/null), $db, $scan) == 0 or exit 2;
			my $s = time - $t;
			$best_d = $d if $d < $best_d;
			$best_s = $s if $s < $best_s;
			push @rounds, sprintf("%.4f %.4f\n", $d, $s);
		}
		printf "%.3f %.3f\n", $best_d, $best_s;
		print @rounds;
	' "$TIME" "$BL" "$1/bench.db" "$RESET" "$SCAN" "$1" >"$1/time.txt" 2>/dev/null
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
	if [ "$TIME" -gt 0 ]; then
		time_first "$d" || { echo "measure.sh: $1: the timing failed" >&2; return 2; }
		set -- "$@" --time "$d/time.txt"
	fi
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

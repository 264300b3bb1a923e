# A small TAP library for benchline's end-to-end tests, after git's test-lib.
#
#   . "$(dirname "$0")/lib.sh"
#   test_expect 'what it checks' '
#       bl ingest good.json &&
#       test "$(bl records --json | jq length)" = 1
#   '
#   test_done
#
# Each test file runs in a fresh temporary directory (removed at the end unless
# BENCHLINE_KEEP_TMP is set), with BENCHLINE_DB pointing at ./bench.db there.
# $BENCHLINE names the binary under test (the Makefile sets it; default ../../benchline).

set -u
TESTS_DIR=$(cd "$(dirname "$0")/.." && pwd)
ROOT=$(cd "$TESTS_DIR/.." && pwd)
FIXTURES=$ROOT/fixtures
: "${BENCHLINE:=$ROOT/benchline}"
export BENCHLINE
TMP=$(mktemp -d "${TMPDIR:-/tmp}/benchline-test.XXXXXX")
export BENCHLINE_DB="$TMP/bench.db"
# A server named in the environment would take the records away from the test's database.
unset BENCHLINE_SERVER BENCHLINE_TOKEN_FILE XDG_STATE_HOME
export GIT_AUTHOR_NAME=tester GIT_AUTHOR_EMAIL=tester@example.com
export GIT_COMMITTER_NAME=tester GIT_COMMITTER_EMAIL=tester@example.com
export GIT_CONFIG_NOSYSTEM=1 HOME="$TMP"
git config --global init.defaultBranch main 2>/dev/null
cd "$TMP" || exit 1

test_count=0
test_failed=0

cleanup() {
	[ -n "${BENCHLINE_KEEP_TMP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT

# bl ARGS...: runs the binary under test.
bl() {
	"$BENCHLINE" "$@"
}

# test_expect DESCRIPTION SCRIPT: one TAP test; the script's exit status decides it.
test_expect() {
	test_count=$((test_count + 1))
	out=$(eval "$2" 2>&1)
	status=$?
	if [ $status -eq 0 ]; then
		echo "ok $test_count - $1"
	else
		test_failed=$((test_failed + 1))
		echo "not ok $test_count - $1"
		printf '%s\n' "$out" | sed 's/^/#   /'
	fi
}

# expect_exit CODE CMD...: runs CMD and fails unless it exits with CODE.
expect_exit() {
	want=$1
	shift
	"$@"
	got=$?
	if [ "$got" != "$want" ]; then
		echo "expected exit $want, got $got from: $*" >&2
		return 1
	fi
	return 0
}

# json_get JSON-FILE-OR-- EXPR: evaluates a Perl expression on the decoded JSON ($j).
# Perl's JSON::PP ships with perl, so the tests need no jq.
json_get() {
	perl -MJSON::PP -e '
		local $/; my $t = $ARGV[0] eq "-" ? <STDIN> : do { open my $f, "<", $ARGV[0] or die; <$f> };
		my $j = JSON::PP->new->allow_nonref->decode($t);
		my $v = eval $ARGV[1]; die $@ if $@;
		print ref($v) ? JSON::PP->new->canonical->encode($v) : (defined $v ? $v : "null"), "\n";
	' "$1" "$2"
}

# test_cmp EXPECT ACTUAL: fails with a unified diff unless the two files are the same.
test_cmp() {
	diff -u "$1" "$2"
}

# db_dump: the database's content as SQL text, for before/after comparisons.
db_dump() {
	sqlite3 "${1:-$BENCHLINE_DB}" .dump
}

# native_lines N [FIRST [MACHINE]]: N native records on lines of their own (about 420 bytes
# each), machine MACHINE (m1), benchmarks bFIRST.. (so no two share a key), commit c00..1,
# source hash a00..1, 8 samples each.
native_lines() {
	perl -e '
		my ($n, $i, $m) = @ARGV;
		my ($c, $s) = ("c" . "0" x 38 . "1", "a" . "0" x 38 . "1");
		for my $k ($i .. $i + $n - 1) {
			printf "{\"schema\":1,\"machine\":\"%s\",\"benchmark\":\"b%d\",\"config\":\"\",".
			  "\"harness_version\":1,\"source\":{\"commit\":\"%s\",\"source_hash\":\"%s\",".
			  "\"branch\":\"main\"},\"started_at\":\"2026-11-02T04:00:00Z\",\"metrics\":".
			  "{\"t_us\":{\"unit\":\"us\",\"median\":%.1f,\"p95\":%.1f,\"n\":8,".
			  "\"samples\":[1.5,2.25,3,4.125,5,6,7,8.5]}}}\n", $m, $k, $c, $s, 100 + $k % 7,
			  101 + $k % 7;
		}' "$1" "${2:-1}" "${3:-m1}"
}

test_done() {
	echo "1..$test_count"
	[ $test_failed -eq 0 ]
}

# What the bench scripts share (run.sh, pg.sh): sourced after they set ROOT, HERE, BL, RUNS,
# WORK, CC, SECTIONS and, for history_db, NGROUPS and DETECT_COMMITS.

die() {
	echo "bench: $*" >&2
	exit 2
}

now() {
	date +%s.%N
}

# calc EXPR: floating-point arithmetic (awk), printed with %s.
calc() {
	awk "BEGIN { print $1 }"
}

# min A B: the smaller of two numbers ("" counts as infinite).
min() {
	if [ -z "$1" ]; then echo "$2"; else calc "($1 < $2) ? $1 : $2"; fi
}

# best SETUP CMD...: runs SETUP then times CMD (stdout discarded), RUNS times; prints the
# fastest wall time in seconds. Fails when CMD fails.
best() {
	setup=$1
	shift
	b=
	r=0
	while [ $r -lt "$RUNS" ]; do
		$setup
		t0=$(now)
		"$@" >/dev/null || return 1
		t1=$(now)
		b=$(min "$b" "$(calc "$t1 - $t0")")
		r=$((r + 1))
	done
	echo "$b"
}

nothing() {
	:
}

want() {
	case " $SECTIONS " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}

# The detect and gate history: a real repository (fast-import, deterministic, so a kept
# BENCH_DETECT_DB stays valid) whose first-parent commits each change src/, a branch "pr" one
# commit past its tip, and the records gen_history writes at those commits, in
# $WORK/detect.db. A history_made function, when the caller has one, runs once it is made.
history_db() {
	[ -f "$WORK/detect.db" ] && return 0
	LIBDIR=$ROOT/build/default
	[ -f "$LIBDIR/libbenchline.a" ] || die "no $LIBDIR/libbenchline.a (run make)"
	$CC -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -I"$ROOT" -I"$LIBDIR/gen" -o "$WORK/gen_history" \
		"$HERE/gen_history.c" "$LIBDIR/libbenchline.a" \
		$(pkg-config --libs sqlite3 libgit2 jansson libcrypto libpq 2>/dev/null || echo -lsqlite3 -lgit2 -ljansson -lcrypto -lpq) \
		-lm || die "cannot build gen_history.c"
	rm -rf "$WORK/repo"
	git init -q -b main "$WORK/repo" || die "cannot create the history's repository"
	perl -e '
		my $n = shift; my $t = 1767225600;
		my $cfg = "{\"measured_paths\": [\"src\", \"Makefile\"]}\n";
		print "blob\nmark :1\ndata ", length($cfg), "\n$cfg";
		for my $i (0 .. $n - 1) {
			my ($c, $ts) = ("$i\n", $t + 3600 * $i);
			print "commit refs/heads/main\ncommitter b <b\@example.com> $ts +0000\n",
			    "data ", length("c$i"), "\nc$i\n";
			print "M 100644 :1 benchline.json\n" if $i == 0;
			print "M 100644 inline src/a.c\ndata ", length($c), "\n$c\n";
		}
		my $ts = $t + 3600 * $n;
		print "commit refs/heads/pr\ncommitter b <b\@example.com> $ts +0000\ndata 3\npr\n",
		    "from refs/heads/main\nM 100644 inline src/a.c\ndata 3\npr\n\n";
	' "$DETECT_COMMITS" | git -C "$WORK/repo" fast-import --quiet ||
		die "cannot write the history's repository"
	"$BL" hash --repo "$WORK/repo" $(git -C "$WORK/repo" rev-list --reverse main) \
		>"$WORK/revs.txt" || die "cannot hash the history's commits"
	if [ -n "${BENCH_DETECT_DB:-}" ] && [ -f "$BENCH_DETECT_DB" ]; then
		echo "  history: $BENCH_DETECT_DB (BENCH_DETECT_DB)"
		cp "$BENCH_DETECT_DB" "$WORK/detect.db" || die "cannot copy $BENCH_DETECT_DB"
	else
		t0=$(now)
		"$WORK/gen_history" "$WORK/detect.db" --groups "$NGROUPS" --commits "$DETECT_COMMITS" \
			--revs "$WORK/revs.txt" --tip-samples 30 ||
			die "cannot generate the history"
		printf '  history written in %.0f s through ingest (%.0f MB)\n' "$(calc "$(now) - $t0")" \
			"$(calc "$(wc -c <"$WORK/detect.db") / 1e6")"
		[ -z "${BENCH_DETECT_DB:-}" ] || cp "$WORK/detect.db" "$BENCH_DETECT_DB"
	fi
	# what a caller does with the history as it was made (run.sh keeps a copy for the gate)
	! command -v history_made >/dev/null || history_made
	stored=$(sqlite3 "$WORK/detect.db" "select count(*) from records")
	[ "$stored" = $((NGROUPS * DETECT_COMMITS)) ] ||
		die "the history holds $stored records, not $((NGROUPS * DETECT_COMMITS)) (BENCH_DETECT_DB of other sizes?)"
}

# Helpers for the gate's end-to-end tests (§7): git repositories with a main history of
# measured commits, pull-request commits, and their sweeps from tests/gate-gen.pl.
#
#   . "$(dirname "$0")/lib.sh"
#   . "$TESTS_DIR/e2e/gate-lib.sh"
#   gate_main r 10 --benchmarks 4        # $TMP/r: main with 10 measured commits, $TMP/r.db
#   gate_branch r slow && gate_change r slow-1 && gate_sweep r 101 --shift 1.10 --shift-only bench_01
#   gate_run r --json "$TMP/g.json" >out   # benchline gate in $TMP/r against $TMP/r.db
#
# Each repository REPO has its own database $TMP/REPO.db (two repositories may hash the same
# src/ to the same source hash), and its generator arguments in $TMP/REPO.gen, passed to every
# sweep of it before the sweep's own (so a sweep's arguments win). The functions run in
# subshells: they change neither the caller's directory nor its variables.

GATE_GEN=$TESTS_DIR/gate-gen.pl
GATE_CONFIG='{"measured_paths": ["src"], "unmeasured_paths": ["docs", "benchline.json", "benchline-gate.lock", ".benchline"]}'

# gbl REPO ARGS...: benchline in $TMP/REPO with that repository's database.
gbl() (
	repo=$1
	shift
	cd "$TMP/$repo" && "$BENCHLINE" --db "$TMP/$repo.db" "$@"
)

# gate_run REPO ARGS...: benchline gate in $TMP/REPO; its exit status is the gate's.
gate_run() (
	repo=$1
	shift
	cd "$TMP/$repo" && "$BENCHLINE" --db "$TMP/$repo.db" gate "$@"
)

# gate_git REPO ARGS...: git in $TMP/REPO.
gate_git() (
	repo=$1
	shift
	cd "$TMP/$repo" && git "$@"
)

# gate_sweep REPO SEED [GEN-ARG...]: one sweep (every benchmark once) for REPO's checked-out
# commit on its branch, drawn with SEED, ingested into REPO's database. The sweep's started_at
# follows SEED, so later seeds are later runs.
gate_sweep() (
	repo=$1 seed=$2
	shift 2
	# shellcheck disable=SC2046 # the saved arguments are words without blanks
	set -- $(cat "$TMP/$repo.gen") "$@"
	cd "$TMP/$repo" &&
		commit=$(git rev-parse HEAD) &&
		source=$("$BENCHLINE" hash | cut -d" " -f1) &&
		branch=$(git symbolic-ref --short HEAD) &&
		perl "$GATE_GEN" --commit "$commit" --source "$source" --seed "$seed" \
			--branch "$branch" --time $((1780000000 + 600 * seed)) "$@" \
			>"$TMP/$repo.sweep.json" &&
		"$BENCHLINE" --db "$TMP/$repo.db" ingest "$TMP/$repo.sweep.json" >/dev/null
)

# gate_change REPO TEXT [FILE]: commits TEXT as the content of FILE (default src/a.c, a
# measured path) on REPO's current branch.
gate_change() (
	cd "$TMP/$1" &&
		printf '%s\n' "$2" >"${3:-src/a.c}" &&
		git add "${3:-src/a.c}" &&
		git commit -qm "change ${3:-src/a.c}: $2"
)

# gate_branch REPO BRANCH [FROM]: checks out a new BRANCH at FROM (default main), replacing any
# earlier BRANCH.
gate_branch() {
	gate_git "$1" checkout -q -B "$2" "${3:-main}"
}

# gate_main REPO COMMITS [GEN-ARG...]: creates the repository $TMP/REPO (measured: src;
# unmeasured: docs and the gate's files) whose main has an initial commit and then COMMITS
# commits, each changing src/a.c and measured by one sweep with seed 1, 2, ... The GEN-ARGs
# are kept for every later sweep of REPO.
gate_main() {
	repo=$1 commits=$2
	shift 2
	printf '%s\n' "$*" >"$TMP/$repo.gen"
	git init -q -b main "$TMP/$repo" &&
		(cd "$TMP/$repo" && mkdir src docs && printf '%s\n' "$GATE_CONFIG" >benchline.json &&
			echo 0 >src/a.c && echo readme >docs/r.md && git add . && git commit -qm init) ||
		return 1
	i=1
	while [ "$i" -le "$commits" ]; do
		gate_change "$repo" "main $i" && gate_sweep "$repo" "$i" || return 1
		i=$((i + 1))
	done
}

# gate_rows FILE STATUS: how many table rows of a gate's output FILE have STATUS.
gate_rows() {
	grep -c "^$2 " "$1"
}

# gate_passed FILE: the last line of a gate's output FILE says pass, with or without undecided
# rows counted (§7.8: "gate: pass, 2 undecided: measured too loosely to tell").
gate_passed() {
	tail -1 "$1" | grep -q "^gate: pass\(, [1-9][0-9]* undecided: measured too loosely to tell\)\{0,1\}$"
}

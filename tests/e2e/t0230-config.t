#!/bin/sh
# benchline.json (§3): read from the working tree's root; strict about keys and types, with
# messages naming the file and the key (or the line and column of bad JSON); exit 2.
. "$(dirname "$0")/lib.sh"

(
	set -e
	git init -q repo
	mkdir -p repo/src repo/docs
	echo 'v1' >repo/src/main.c
	echo 'docs' >repo/docs/index.md
	git -C repo add -A . && git -C repo commit -q -m initial
) >setup.log 2>&1 || { cat setup.log; echo 'Bail out! cannot build the test repository'; exit 1; }

# every_command_fails CODE PATTERN: hash, paths check and sync all exit CODE with PATTERN.
every_command_fails() {
	for cmd in "hash --repo repo" "paths check --repo repo" "sync --repo repo"; do
		expect_exit "$1" bl --db cfg.db $cmd 2>err || return 1
		grep -q "$2" err || { echo "$cmd:"; cat err; return 1; }
	done
}

test_expect 'a full benchline.json is accepted by every command' '
	cat >repo/benchline.json <<-EOF &&
	{
	  "measured_paths": ["src"],
	  "unmeasured_paths": ["docs", "benchline.json"],
	  "main_branch": "main",
	  "primary_metric": "wall_ms",
	  "quiet": {"max_p95_ratio": 1.08, "cpu_load_pct": 15, "gpu_load_pct": 5,
	            "processes": ["cargo", "rustc"]},
	  "machines": {"ci-1": {"keep": "first"}, "m4-pro": {"keep": "quieter"}},
	  "metrics": ["wall_ms"],
	  "bench": {"build": "make", "build_timeout": 60, "run": "./bench", "format": "gbench",
	            "processes": 3, "run_timeout": 120, "artifacts": ["build/*"]},
	  "gate": {"limit": 1.05, "overrides": {"parse_*": 5}, "exclude": ["flaky_*"]},
	  "ladders": {"ms": {"unit": "ms", "edges": [1, 2, 5]}},
	  "counted_tolerance": {"allocations": 0}
	}
	EOF
	bl hash --repo repo >/dev/null &&
	bl paths check --repo repo >/dev/null &&
	bl --db cfg.db sync --repo repo >/dev/null
'

test_expect 'malformed JSON: exit 2 with FILE:LINE:COLUMN' '
	printf "{\n  \"measured_paths\": [\"src\",]\n}\n" >repo/benchline.json &&
	every_command_fails 2 "^benchline: repo/benchline.json:2:28: " &&
	printf "{\"measured_paths\": [\"src\"]" >repo/benchline.json &&
	every_command_fails 2 "^benchline: repo/benchline.json:1:[0-9]*: " &&
	: >repo/benchline.json &&
	every_command_fails 2 "^benchline: repo/benchline.json:1:[0-9]*: "
'

test_expect 'an unknown key: exit 2 naming it' '
	echo "{\"measured_paths\": [\"src\"], \"mesured_paths\": [\"src\"]}" >repo/benchline.json &&
	every_command_fails 2 "^benchline: repo/benchline.json: mesured_paths: unknown key; did you mean .measured_paths.?$" &&
	echo "{\"quiet\": {\"cpu\": 1}}" >repo/benchline.json &&
	every_command_fails 2 "^benchline: repo/benchline.json: quiet.cpu: unknown key$" &&
	echo "{\"bench\": {\"command\": \"make bench\"}}" >repo/benchline.json &&
	every_command_fails 2 "^benchline: repo/benchline.json: bench.command: unknown key$"
'

test_expect 'a misspelt key of a section is named with its section' '
	echo "{\"quiet\": {\"transient_record\": 4}}" >repo/benchline.json &&
	every_command_fails 2 "^benchline: repo/benchline.json: quiet.transient_record: unknown key; did you mean .quiet.transient_records.?$" &&
	echo "{\"bench\": {\"bulid\": \"make\"}}" >repo/benchline.json &&
	every_command_fails 2 "^benchline: repo/benchline.json: bench.bulid: unknown key; did you mean .bench.build.?$"
'

# The keys "did you mean" knows (config.c'"'"'s known_keys) are the keys its parsers take: a key
# added to one and not the other fails here.
test_expect 'every key the parsers take is one "did you mean" can name, and no other' '
	perl -0777 -ne "
		my (\$table) = /known_keys\[\] = \{(.*?)\};/s or die qq(no known_keys table\n);
		my %known = map { (split /\./)[-1] => 1 } \$table =~ /\"([^\"]+)\"/g;
		my %parsed = map { \$_ => 1 } /strcmp\((?:key|machine), \"([^\"]+)\"\)/g;
		my @missing = grep { !\$known{\$_} } sort keys %parsed;
		my @extra = grep { !\$parsed{\$_} } sort keys %known;
		die qq(not in known_keys: @missing\n) if @missing;
		die qq(in known_keys but never parsed: @extra\n) if @extra;
		keys %parsed > 30 or die qq(only ) . keys(%parsed) . qq( keys parsed: the pattern missed\n);
	" "$ROOT/ingest/config/config.c"
'

test_expect 'a wrong type: exit 2 naming the key and what it wants' '
	echo "{\"measured_paths\": \"src\"}" >repo/benchline.json &&
	every_command_fails 2 \
		"^benchline: repo/benchline.json: measured_paths: expected an array of strings$" &&
	echo "{\"main_branch\": 1}" >repo/benchline.json &&
	every_command_fails 2 "main_branch: expected a non-empty string" &&
	echo "{\"machines\": {\"ci-1\": {\"keep\": \"last\"}}}" >repo/benchline.json &&
	every_command_fails 2 "machines.ci-1.keep: expected \"first\" or \"quieter\"" &&
	echo "{\"quiet\": {\"max_p95_ratio\": 0.9}}" >repo/benchline.json &&
	every_command_fails 2 "quiet.max_p95_ratio: expected a number over 1" &&
	echo "{\"bench\": {\"processes\": 0}}" >repo/benchline.json &&
	every_command_fails 2 \
		"^benchline: repo/benchline.json: bench.processes: expected an integer from 1 to 1000$" &&
	echo "{\"gate\": []}" >repo/benchline.json &&
	every_command_fails 2 "gate: expected an object"
'

test_expect 'measured paths are top-level names, listed once, in one list' '
	echo "{\"measured_paths\": [\"src/core\"]}" >repo/benchline.json &&
	every_command_fails 2 "measured_paths: .src/core. is not a top-level name" &&
	echo "{\"measured_paths\": [\"src\"], \"unmeasured_paths\": [\"src\"]}" \
		>repo/benchline.json &&
	every_command_fails 2 "unmeasured_paths: .src. is also in measured_paths"
'

test_expect 'duplicate keys and a non-object are rejected' '
	echo "{\"main_branch\": \"a\", \"main_branch\": \"b\"}" >repo/benchline.json &&
	every_command_fails 2 "^benchline: repo/benchline.json:1:[0-9]*: duplicate object key" &&
	echo "[\"src\"]" >repo/benchline.json &&
	every_command_fails 2 "^benchline: repo/benchline.json: expected a JSON object$"
'

test_expect 'a file over 1 MiB is refused' '
	perl -e "print q({\"gate\": {\"pad\": \"), q(x) x 1100000, qq(\"}}\n)" \
		>repo/benchline.json &&
	every_command_fails 2 "too big"
'

test_expect 'a directory named benchline.json is an error' '
	rm repo/benchline.json && mkdir repo/benchline.json &&
	every_command_fails 2 "benchline.json. is a directory" &&
	rmdir repo/benchline.json
'

test_expect 'the file is read at the root of the working tree, from any subdirectory' '
	echo "{\"measured_paths\": [\"src\"], \"oops\": 1}" >repo/benchline.json &&
	expect_exit 2 bl hash --repo repo/src 2>err &&
	grep -q "benchline.json: oops: unknown key" err &&
	echo "{\"measured_paths\": [\"src\"]}" >repo/benchline.json &&
	test "$(bl hash --repo repo/src | cut -d" " -f1)" = \
		"$(git -C repo ls-tree --full-tree HEAD -- src | git -C repo mktree)"
'

test_expect 'no benchline.json at all: defaults, every path measured' '
	rm repo/benchline.json &&
	test "$(bl hash --repo repo | cut -d" " -f1)" = "$(git -C repo rev-parse HEAD^{tree})" &&
	bl paths check --repo repo >/dev/null
'

test_expect 'ingest --repo reads it too' '
	echo "{\"bogus\": true}" >repo/benchline.json &&
	echo "{}" >rec.json &&
	expect_exit 2 bl --db i.db ingest --repo repo rec.json 2>err &&
	grep -q "repo/benchline.json: bogus: unknown key" err
'
test_done

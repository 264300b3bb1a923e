#!/bin/sh
# `benchline paths check` (§3): every top-level path of HEAD must be measured or unmeasured,
# so a new directory cannot slip out of the source hash unnoticed.
. "$(dirname "$0")/lib.sh"

(
	set -e
	git init -q repo
	mkdir -p repo/src repo/docs repo/.github
	echo 'int main(void) { return 0; }' >repo/src/main.c
	echo 'docs' >repo/docs/index.md
	echo 'ci' >repo/.github/ci.yml
	echo 'all:' >repo/Makefile
	echo '# repo' >repo/README.md
	cat >repo/benchline.json <<-EOF
	{"measured_paths": ["src", "Makefile"],
	 "unmeasured_paths": ["docs", ".github", "README.md", "benchline.json"]}
	EOF
	git -C repo add -A .
	git -C repo commit -q -m initial
) >setup.log 2>&1 || { cat setup.log; echo 'Bail out! cannot build the test repository'; exit 1; }

MSG="add it to measured_paths or unmeasured_paths in benchline.json"

test_expect 'every path classified: exit 0 and say so' '
	bl paths check --repo repo >out 2>err &&
	test "$(cat out)" = "every top-level path is classified" &&
	test ! -s err &&
	test ! -e "$BENCHLINE_DB"
'

test_expect 'the repository defaults to the current directory' '
	(cd repo && bl paths check) >out &&
	grep -q "every top-level path is classified" out
'

test_expect 'a new committed directory: exit 1 naming it' '
	mkdir repo/shaders && echo "void main() {}" >repo/shaders/sky.glsl &&
	git -C repo add shaders && git -C repo commit -q -m shaders &&
	expect_exit 1 bl paths check --repo repo >out 2>err &&
	test "$(cat err)" = "unclassified top-level path '"'"'shaders'"'"': $MSG" &&
	test ! -s out
'

test_expect 'each unclassified path is named, files and dot-directories too' '
	echo x >repo/.clang-format && echo y >repo/LICENSE &&
	git -C repo add -A . && git -C repo commit -q -m more &&
	expect_exit 1 bl paths check --repo repo 2>err &&
	test $(wc -l <err) = 3 &&
	grep -q "^unclassified top-level path .shaders.: " err &&
	grep -q "^unclassified top-level path .\.clang-format.: " err &&
	grep -q "^unclassified top-level path .LICENSE.: " err
'

test_expect 'once listed (measured or unmeasured) it passes' '
	cat >repo/benchline.json <<-EOF &&
	{"measured_paths": ["src", "Makefile", "shaders"],
	 "unmeasured_paths": ["docs", ".github", "README.md", "benchline.json", "LICENSE",
	                      ".clang-format"]}
	EOF
	bl paths check --repo repo >out &&
	grep -q "every top-level path is classified" out
'

test_expect 'HEAD decides: an uncommitted directory is not checked yet' '
	mkdir repo/scratch && echo x >repo/scratch/x &&
	bl paths check --repo repo &&
	git -C repo add scratch && git -C repo commit -q -m scratch &&
	expect_exit 1 bl paths check --repo repo 2>err &&
	grep -q "scratch" err
'

test_expect 'no measured_paths: every path is measured, nothing is unclassified' '
	git clone -q repo all &&
	echo "{}" >all/benchline.json &&
	bl paths check --repo all >out && grep -q "nothing to classify" out &&
	rm all/benchline.json &&
	bl paths check --repo all
'

test_expect 'a listed path that HEAD lacks is fine' '
	git clone -q repo extra &&
	echo "{\"measured_paths\": [\"src\", \"gone\"], \"unmeasured_paths\": [\"docs\", \".github\",
	  \"README.md\", \"benchline.json\", \"Makefile\", \"shaders\", \"LICENSE\",
	  \".clang-format\", \"scratch\"]}" >extra/benchline.json &&
	bl paths check --repo extra
'

test_expect 'a repository without commits has nothing to classify' '
	git init -q unborn &&
	echo "{\"measured_paths\": [\"src\"]}" >unborn/benchline.json &&
	bl paths check --repo unborn
'

test_expect 'the subcommand is required and checked' '
	expect_exit 2 bl paths --repo repo 2>err &&
	grep -q "^usage: benchline paths check" err &&
	expect_exit 2 bl paths list --repo repo 2>err &&
	grep -q "unknown subcommand .list." err &&
	expect_exit 2 bl paths check extra --repo repo 2>err
'

test_expect 'not a repository: exit 2' '
	mkdir plain &&
	expect_exit 2 bl paths check --repo plain 2>err &&
	grep -q "^benchline: .plain. is not a git repository$" err
'

test_expect 'a malformed benchline.json: exit 2 with its position' '
	git clone -q repo bad &&
	printf "{\n  \"measured_paths\": [\"src\"\n}\n" >bad/benchline.json &&
	expect_exit 2 bl paths check --repo bad 2>err &&
	grep -q "^benchline: bad/benchline.json:3:1: " err
'
test_done

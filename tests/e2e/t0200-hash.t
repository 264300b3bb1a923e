#!/bin/sh
# The source hash (§3): the tree hash of just the measured top-level paths, equal to
# `git ls-tree --full-tree REV -- PATHS | git mktree` for every commit of a repository with
# directories, files, a mode change, a symlink, a gitlink and an executable.
. "$(dirname "$0")/lib.sh"

EMPTY_TREE=4b825dc642cb6eb9a060e54bf8d69288fbee4904
MEASURED='src assets Cargo.toml src.toml configure main-link vendor-sub tools'

commit() {
	git -C repo add -A . && git -C repo commit -q -m "$1"
}

# The history: docs-only commits between source commits, a chmod +x inside src and at the
# top level, a symlink, a gitlink, a path that comes and goes, a merge from a branch.
(
	set -e
	git init -q repo
	mkdir -p repo/src repo/assets repo/docs repo/.github/workflows repo/tools
	echo 'fn main() {}' >repo/src/main.rs
	echo 'pub fn lib() {}' >repo/src/lib.rs
	echo 'sky' >repo/assets/sky.txt
	printf '[package]\nname = "demo"\n' >repo/Cargo.toml
	echo '# demo' >repo/README.md
	echo 'guide' >repo/docs/guide.md
	echo 'on: push' >repo/.github/workflows/ci.yml
	echo 'tool' >repo/tools/gen.py
	cat >repo/benchline.json <<-EOF
	{
	  "measured_paths": ["src", "assets", "Cargo.toml", "src.toml", "configure",
	                     "main-link", "vendor-sub", "tools"],
	  "unmeasured_paths": ["docs", "README.md", ".github", "benchline.json"]
	}
	EOF
	commit 'initial'
	echo 'more guide' >>repo/docs/guide.md
	commit 'docs: more guide'
	echo 'fn main() { run(); }' >repo/src/main.rs
	commit 'src: run'
	echo '#!/bin/sh' >repo/src/gen.sh
	commit 'src: add gen.sh'
	chmod +x repo/src/gen.sh
	commit 'src: gen.sh is executable'
	printf '#!/bin/sh\necho configured\n' >repo/configure
	commit 'add configure'
	chmod +x repo/configure
	commit 'configure is executable'
	ln -s src/main.rs repo/main-link
	commit 'a symlink'
	echo 'toml' >repo/src.toml
	commit 'src.toml sorts before src/'
	git init -q repo/vendor-sub
	echo 'vendored' >repo/vendor-sub/lib.c
	git -C repo/vendor-sub add lib.c
	git -C repo/vendor-sub commit -q -m 'vendored'
	commit 'a gitlink'
	echo 'readme' >>repo/README.md
	commit 'readme only'
	git -C repo rm -q -r tools
	git -C repo commit -q -m 'drop tools'
	git -C repo checkout -q -b feature
	echo 'feature' >>repo/src/lib.rs
	commit 'feature work'
	git -C repo checkout -q main
	echo 'ci' >>repo/.github/workflows/ci.yml
	commit 'ci only'
	git -C repo merge -q --no-ff -m 'Merge branch feature' feature
	echo 'sky2' >repo/assets/sky.txt
	commit 'new sky'
) >setup.log 2>&1 || { cat setup.log; echo 'Bail out! cannot build the test repository'; exit 1; }

# expected REV: what git prints for the measured paths of REV.
expected() {
	git -C repo ls-tree --full-tree "$1" -- $MEASURED | git -C repo mktree
}

test_expect 'hash prints SOURCE_HASH COMMIT, both 40 hex, for HEAD by default' '
	(cd repo && bl hash) >out &&
	grep -Eq "^[0-9a-f]{40} [0-9a-f]{40}$" out &&
	test $(wc -l <out) = 1 &&
	test "$(cut -d" " -f2 out)" = "$(git -C repo rev-parse HEAD)"
'

test_expect 'hash only reads the repository and needs no database' '
	before=$(find repo/.git -type f | sort | xargs cksum) &&
	bl hash --repo repo $(git -C repo rev-list --all) >/dev/null &&
	after=$(find repo/.git -type f | sort | xargs cksum) &&
	test "$before" = "$after" &&
	test ! -e "$BENCHLINE_DB"
'

test_expect 'every commit: the source hash equals git ls-tree | git mktree' '
	git -C repo rev-list --all >revs &&
	test $(wc -l <revs) -ge 15 &&
	bl hash --repo repo $(cat revs) >hashes &&
	test $(wc -l <hashes) = $(wc -l <revs) &&
	while read -r rev; do
		want="$(expected $rev) $rev" &&
		got=$(grep " $rev$" hashes) &&
		if [ "$got" != "$want" ]; then
			echo "$(git -C repo log -1 --format=%s $rev): got $got, want $want"
			exit 1
		fi
	done <revs
'

test_expect 'the history exercises every mode: 40000 100644 100755 120000 160000' '
	git -C repo ls-tree --full-tree main -- $MEASURED >entries &&
	for mode in 040000 100644 100755 120000 160000; do
		grep -q "^$mode " entries || { echo "no $mode"; cat entries; exit 1; }
	done
'

hash_of() {
	bl hash --repo repo "$1" | cut -d" " -f1
}

test_expect 'a docs-only commit shares its parent source hash' '
	for subject in "docs: more guide" "readme only" "ci only"; do
		rev=$(git -C repo log --format=%H -1 --grep="^$subject\$" main) &&
		test -n "$rev" &&
		test "$(hash_of $rev)" = "$(hash_of $rev~1)" || { echo "$subject"; exit 1; }
	done
'

test_expect 'a commit touching a measured path changes it (content, mode, new entry)' '
	for subject in "src: run" "src: gen.sh is executable" "configure is executable" \
		"a symlink" "src.toml sorts before src/" "a gitlink" "drop tools" "new sky"; do
		rev=$(git -C repo log --format=%H -1 --grep="^$subject\$" main) &&
		test -n "$rev" &&
		test "$(hash_of $rev)" != "$(hash_of $rev~1)" || { echo "$subject"; exit 1; }
	done
'

test_expect 'several revisions print one line each, in order, and accept any rev syntax' '
	bl hash --repo repo HEAD~1 main feature HEAD~1^2 >out &&
	test "$(cut -d" " -f2 out | tr "\n" " ")" = \
	"$(git -C repo rev-parse HEAD~1 main feature HEAD~1^2 | tr "\n" " ")" &&
	git -C repo tag -a -m v1 v1 HEAD~3 &&
	test "$(bl hash --repo repo v1 | cut -d" " -f2)" = "$(git -C repo rev-parse HEAD~3)" &&
	short=$(git -C repo rev-parse --short=10 HEAD) &&
	test "$(bl hash --repo repo $short)" = "$(bl hash --repo repo HEAD)"
'

test_expect 'measured paths that do not exist: the empty tree hash' '
	git clone -q repo none &&
	echo "{\"measured_paths\": [\"nothere\", \"neither\"]}" >none/benchline.json &&
	bl hash --repo none HEAD HEAD~3 >out &&
	test "$(cut -d" " -f1 out | sort -u)" = $EMPTY_TREE &&
	test "$(git -C none ls-tree --full-tree HEAD -- nothere neither | git -C none mktree)" = \
		$EMPTY_TREE
'

test_expect 'an empty measured list: the empty tree hash' '
	git clone -q repo emptylist &&
	echo "{\"measured_paths\": []}" >emptylist/benchline.json &&
	test "$(bl hash --repo emptylist | cut -d" " -f1)" = $EMPTY_TREE
'

test_expect 'no benchline.json: the root tree id' '
	git clone -q repo nocfg &&
	rm nocfg/benchline.json &&
	bl hash --repo nocfg HEAD HEAD~4 >out &&
	test "$(head -1 out | cut -d" " -f1)" = "$(git -C nocfg rev-parse HEAD^{tree})" &&
	test "$(tail -1 out | cut -d" " -f1)" = "$(git -C nocfg rev-parse HEAD~4^{tree})"
'

test_expect 'no measured_paths key: the root tree id' '
	git clone -q repo nolist &&
	echo "{\"unmeasured_paths\": [\"docs\"]}" >nolist/benchline.json &&
	test "$(hash_of HEAD | sed q)" != "$(git -C nolist rev-parse HEAD^{tree})" &&
	test "$(bl hash --repo nolist | cut -d" " -f1)" = "$(git -C nolist rev-parse HEAD^{tree})"
'

test_expect 'the working tree benchline.json decides, even uncommitted' '
	git clone -q repo edited &&
	echo "{\"measured_paths\": [\"assets\"]}" >edited/benchline.json &&
	test "$(bl hash --repo edited | cut -d" " -f1)" = \
		"$(git -C edited ls-tree --full-tree HEAD -- assets | git -C edited mktree)"
'

test_expect 'a subdirectory of the repository finds the root and its benchline.json' '
	test "$(bl hash --repo repo/src HEAD)" = "$(bl hash --repo repo HEAD)" &&
	test "$(cd repo/docs && bl hash)" = "$(bl hash --repo repo HEAD)"
'

test_expect 'a bare repository reads benchline.json from HEAD' '
	git clone -q --bare repo bare.git &&
	test "$(bl hash --repo bare.git HEAD~2)" = "$(bl hash --repo repo HEAD~2)"
'

test_expect 'an unknown revision exits 2 naming it and the repository' '
	expect_exit 2 bl hash --repo repo HEAD nope 2>err >out &&
	grep -q "^benchline: cannot resolve .nope. in .repo.$" err &&
	test ! -s out
'

test_expect 'a revision that is not a commit exits 2' '
	expect_exit 2 bl hash --repo repo HEAD:README.md 2>err &&
	grep -q "is not a commit" err
'

test_expect 'a directory that is not a repository exits 2' '
	mkdir plain &&
	expect_exit 2 bl hash --repo plain 2>err &&
	grep -q "^benchline: .plain. is not a git repository$" err &&
	expect_exit 2 bl hash --repo does-not-exist 2>err &&
	grep -q "does-not-exist" err
'

test_expect 'a repository without commits: HEAD cannot be resolved' '
	git init -q unborn &&
	expect_exit 2 bl hash --repo unborn 2>err &&
	grep -q "cannot resolve .HEAD. in .unborn." err
'

test_expect 'hash rejects unknown options' '
	expect_exit 2 bl hash --bogus 2>err &&
	grep -q "^usage: benchline hash" err
'
test_expect 'the examples of docs/source-hash.md run and print what they say' '
	awk "/^\`\`\`sh\$/ { f = 1; next } /^\`\`\`\$/ { f = 0 } f" \
		"$ROOT/docs/source-hash.md" >doc.sh &&
	test $(wc -l <doc.sh) -gt 20 &&
	sed -n "s/^# //p" doc.sh | grep -vF "..." >doc.want &&
	test $(wc -l <doc.want) -gt 8 &&
	mkdir docrun && (
		cd docrun &&
		benchline() { "$BENCHLINE" "$@"; } &&
		. ../doc.sh
	) >doc.out 2>&1 &&
	while read -r line; do
		grep -qxF "$line" doc.out || { echo "missing: $line"; cat doc.out; exit 1; }
	done <doc.want
'
test_done

#!/bin/sh
# make dist: a source tarball of the tree, benchline-VERSION.tar.gz (docs/install.md).
#
#   sh .dist/dist.sh OUTDIR    # writes OUTDIR/benchline-VERSION.tar.gz and prints its path
#
# No manifest and no git: every file under the top of the tree except .git, .benchline/ and
# what .gitignore ignores (its patterns read here, so the two cannot disagree), which is what
# `git ls-files` lists in a clean checkout (t1400 holds it to that). It works the same in an
# unpacked tarball, which has no .git. The version is common/common.h's BENCHLINE_VERSION;
# members are sorted, owned by root, and dated SOURCE_DATE_EPOCH when it is set.
set -eu
umask 022

[ $# -eq 1 ] || { echo "usage: sh .dist/dist.sh OUTDIR" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/^#define BENCHLINE_VERSION "\(.*\)"$/\1/p' "$top/common/common.h")
[ -n "$version" ] || { echo "dist.sh: no BENCHLINE_VERSION in common/common.h" >&2; exit 2; }
mkdir -p "$1"
out=$(cd "$1" && pwd)/benchline-$version.tar.gz

# .gitignore's patterns as tar excludes: "/x" (and "/x/") only at the top, "x" anywhere
set -- --exclude=./.git --exclude=./.benchline
while IFS= read -r pat || [ -n "$pat" ]; do
	case $pat in
	'' | '#'*) continue ;;
	'!'*) echo "dist.sh: .gitignore's '$pat': negated patterns are not understood here" >&2; exit 2 ;;
	esac
	pat=${pat%/}
	case $pat in
	/*) set -- "$@" --exclude="./${pat#/}" ;;
	*) set -- "$@" --exclude="$pat" ;;
	esac
done <"$top/.gitignore"
if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
	set -- "$@" --mtime="@$SOURCE_DATE_EPOCH" --clamp-mtime
fi

tmp=$out.tmp.$$
trap 'rm -f "$tmp"' EXIT
(cd "$top" && tar --create --sort=name --owner=0 --group=0 --numeric-owner \
	--transform "s,^\.,benchline-$version," "$@" . | gzip -9n) >"$tmp"
mv "$tmp" "$out"
echo "$out"

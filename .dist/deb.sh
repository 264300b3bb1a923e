#!/bin/sh
# make deb: benchline's Debian binary package, built with dpkg-deb from a built binary (docs/install.md).
#
#   sh .dist/deb.sh BINARY OUTDIR    # writes OUTDIR/benchline_VERSION_ARCH.deb and prints its path
#
# What goes in: the binary (stripped), the man page benchline(1) and the bash completion, both
# written by the binary itself from its command table (`benchline generate`, so neither can
# disagree with its --help), and the documentation under /usr/share/doc/benchline. Depends is
# derived from the libraries the binary links: dpkg-shlibdeps when dpkg-dev is installed (the
# packages with the versions the symbols need), else dpkg -S on each library the binary names
# (DT_NEEDED), without versions. gnuplot and valgrind are Recommends (docs/install.md says why).
# BENCHLINE_DEB_MAINTAINER overrides the Maintainer field; SOURCE_DATE_EPOCH, when set, is every
# file's time, so two builds of one binary give the same package.
set -eu
umask 022

[ $# -eq 2 ] || { echo "usage: sh .dist/deb.sh BINARY OUTDIR" >&2; exit 2; }
bin=$1 out=$2
top=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$bin" ] || { echo "deb.sh: no binary '$bin' (make first)" >&2; exit 2; }

version=$("$bin" --version | sed -n 's/^benchline //p')
[ -n "$version" ] || { echo "deb.sh: '$bin --version' names no version" >&2; exit 2; }
arch=$(dpkg --print-architecture)
maintainer=${BENCHLINE_DEB_MAINTAINER:-benchline maintainers <maintainers@benchline.invalid>}

stage=$(mktemp -d "${TMPDIR:-/tmp}/benchline-deb.XXXXXX")
trap 'rm -rf "$stage"' EXIT
root=$stage/root
doc=$root/usr/share/doc/benchline
install -d "$root/DEBIAN" "$root/usr/bin" "$root/usr/share/man/man1" \
	"$root/usr/share/bash-completion/completions" "$doc"

# the binary, without its debugging symbols
install -m 755 "$bin" "$root/usr/bin/benchline"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/benchline"

# the man page and the completion, from the packaged binary's own tables
"$root/usr/bin/benchline" generate manpage | gzip -9n >"$root/usr/share/man/man1/benchline.1.gz"
"$root/usr/bin/benchline" generate completion >"$root/usr/share/bash-completion/completions/benchline"

# the documentation: the README and docs/ as they are in the tree (their links stay relative)
install -m 644 "$top/README.md" "$doc/README.md"
(cd "$top" && find docs -type d) | while read -r d; do install -d "$doc/$d"; done
(cd "$top" && find docs -type f) | while read -r f; do install -m 644 "$top/$f" "$doc/$f"; done
when=${SOURCE_DATE_EPOCH:-$(date +%s)}
{
	printf 'benchline (%s) unstable; urgency=medium\n\n' "$version"
	printf '  * Built from the source tree by make deb.\n\n'
	printf ' -- %s  %s\n' "$maintainer" "$(LC_ALL=C date -u -R -d "@$when")"
} | gzip -9n >"$doc/changelog.Debian.gz"
cat >"$doc/copyright" <<END
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: benchline
Comment: The source tree carries no license file yet; none is granted here beyond it.

Files: *
Copyright: the benchline authors
License: none-stated
 The source tree of benchline $version states no license.
END

# Depends: the packages of the libraries the binary links
depends=
if command -v dpkg-shlibdeps >/dev/null 2>&1; then
	mkdir "$stage/src" "$stage/src/debian"
	: >"$stage/src/debian/control"
	depends=$(cd "$stage/src" &&
		dpkg-shlibdeps -O -e"$root/usr/bin/benchline" 2>/dev/null |
		sed -n 's/^shlibs:Depends=//p') || depends=
fi
if [ -z "$depends" ]; then
	# each DT_NEEDED library where the loader finds it, and the package that holds that file
	libs=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p')
	depends=$(for l in $libs; do
		path=$(ldd "$bin" | sed -n "s|^[[:space:]]*$l => \([^ ]*\) .*|\1|p")
		[ -n "$path" ] || { echo "deb.sh: the loader finds no '$l'" >&2; exit 1; }
		dpkg -S "$path" 2>/dev/null || dpkg -S "$(readlink -f "$path")" 2>/dev/null ||
			dpkg -S "/usr$path" 2>/dev/null || { echo "deb.sh: no package holds '$path'" >&2; exit 1; }
	done | sed 's/:.*//' | sort -u | paste -sd, - | sed 's/,/, /g')
fi
[ -n "$depends" ] || { echo "deb.sh: cannot tell the packages benchline depends on" >&2; exit 1; }

size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat >"$root/DEBIAN/control" <<END
Package: benchline
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $size
Depends: $depends
Recommends: gnuplot-nox | gnuplot, valgrind
Suggests: postgresql
Section: devel
Priority: optional
Description: benchmark history database and regression detector
 benchline keeps every benchmark run keyed by what it measured (machine,
 benchmark, config and the source hash of the measured paths), in one SQLite
 file or a PostgreSQL database. It tags the runs that should not be trusted,
 finds the records that step out of their line, confirms them by measuring
 again and bisects the commit that made a benchmark slower, answers pass or
 fail for a pull request (measured now, interleaved, on a CI runner), and
 serves charts and a JSON API.
 .
 gnuplot draws the charts the server serves; valgrind counts the
 instructions of deterministic counters (bench.counters).
END
(cd "$root" && find usr -type f | LC_ALL=C sort | xargs md5sum) >"$root/DEBIAN/md5sums"
chmod 644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"
find "$root" -exec touch -h -d "@$when" {} +

mkdir -p "$out"
deb=$out/benchline_${version}_$arch.deb
SOURCE_DATE_EPOCH=$when dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"

#!/bin/sh
# make deb and make dist (§15; .dist/deb.sh, .dist/dist.sh; docs/install.md): the package's
# control fields (Depends derived from the libraries the binary links, by dpkg-shlibdeps or by
# dpkg -S), its binary run from the unpacked package with its man page and bash completion
# there (both written by the binary from its command table), its docs, its md5sums, two builds
# of one binary byte for byte the same, lintian when it is installed; the source tarball holding
# exactly the tracked files, whatever build outputs lie about.
. "$(dirname "$0")/lib.sh"

if ! command -v dpkg-deb >/dev/null 2>&1; then
	echo "1..0 # SKIP no dpkg-deb"
	exit 0
fi
ARCH=$(dpkg --print-architecture)
VERSION=$("$BENCHLINE" --version | sed -n 's/^benchline //p')
DEB=out/benchline_${VERSION}_$ARCH.deb

test_expect 'deb.sh builds benchline_VERSION_ARCH.deb and prints its path' '
	SOURCE_DATE_EPOCH=1780000000 sh "$ROOT/.dist/deb.sh" "$BENCHLINE" out >path &&
	echo "$DEB" >expect && test_cmp expect path &&
	test -s "$DEB"
'

test_expect 'the control fields: name, version, architecture, Depends on the linked libraries' '
	for f in Package Version Architecture Maintainer Section Priority Depends Recommends; do
		dpkg-deb -f "$DEB" $f >field || return 1
		test -s field || { echo "no $f"; return 1; }
	done &&
	test "$(dpkg-deb -f "$DEB" Package)" = benchline &&
	test "$(dpkg-deb -f "$DEB" Version)" = "$VERSION" &&
	test "$(dpkg-deb -f "$DEB" Architecture)" = "$ARCH" &&
	dpkg-deb -f "$DEB" Depends | tr "," "\n" | sed "s/^ *//; s/ .*//" >depends &&
	for lib in libc6 libsqlite3 libgit2 libjansson libcurl libmicrohttpd libpq5; do
		grep -q "^$lib" depends || { echo "Depends lacks $lib:"; cat depends; return 1; }
	done &&
	while read -r p; do
		dpkg-query -W "$p" >/dev/null 2>&1 || { echo "no package $p is known"; return 1; }
	done <depends &&
	dpkg-deb -f "$DEB" Recommends | grep -q "gnuplot" &&
	dpkg-deb -f "$DEB" Recommends | grep -q "valgrind" &&
	test "$(dpkg-deb -f "$DEB" Installed-Size)" -gt 100
'

test_expect 'unpacked on its own, the binary runs: --version, help' '
	dpkg-deb -x "$DEB" root &&
	root/usr/bin/benchline --version >actual &&
	"$BENCHLINE" --version >expect &&
	test_cmp expect actual &&
	root/usr/bin/benchline help >help.out &&
	grep -q "^    gate " help.out &&
	grep -q "^    worktree " help.out &&
	! readelf -S root/usr/bin/benchline | grep -q "\.debug_info"
'

test_expect 'its man page is there, one section per command of the table, and reads cleanly' '
	test -f root/usr/share/man/man1/benchline.1.gz &&
	gzip -dc root/usr/share/man/man1/benchline.1.gz >benchline.1 &&
	"$BENCHLINE" generate manpage >expect.1 &&
	test_cmp expect.1 benchline.1 &&
	root/usr/bin/benchline help | sed -n "s/^    \([a-z-]*\) .*/\1/p" >commands &&
	test "$(wc -l <commands)" -ge 30 &&
	while read -r c; do
		roff=$(printf "%s" "$c" | sed "s/-/\\\\-/g")
		grep -qF ".SS \"benchline $roff\"" benchline.1 || { echo "no section for $c"; return 1; }
	done <commands &&
	if command -v groff >/dev/null 2>&1; then
		groff -man -Tutf8 -ww -z benchline.1 2>warnings && test_cmp /dev/null warnings
	fi &&
	if command -v man >/dev/null 2>&1; then
		MANPAGER=cat MANWIDTH=80 man -l root/usr/share/man/man1/benchline.1.gz 2>/dev/null >man.txt &&
		grep -q "benchline gate" man.txt
	fi
'

if command -v bash >/dev/null 2>&1; then
	test_expect 'its bash completion completes commands and options' '
		cat >complete.sh <<-\END &&
		. root/usr/share/bash-completion/completions/benchline
		c() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _benchline; echo "${COMPREPLY[*]}"; }
		c benchline work
		c benchline gate --sett
		END
		bash complete.sh >actual &&
		printf "%s\n" worktree --settle >expect &&
		test_cmp expect actual
	'
fi

test_expect 'its docs: the README, docs/, the copyright and the changelog' '
	d=root/usr/share/doc/benchline &&
	test_cmp "$ROOT/README.md" $d/README.md &&
	test_cmp "$ROOT/docs/cli.md" $d/docs/cli.md &&
	test_cmp "$ROOT/docs/install.md" $d/docs/install.md &&
	grep -q "^Upstream-Name: benchline$" $d/copyright &&
	gzip -dc $d/changelog.Debian.gz | head -1 | grep -q "^benchline ($VERSION) "
'

test_expect 'its md5sums hold for every file, and every file is root'"'"'s' '
	dpkg-deb -e "$DEB" control &&
	(cd root && md5sum --quiet -c ../control/md5sums) &&
	test "$(wc -l <control/md5sums)" = "$(cd root && find usr -type f | wc -l)" &&
	! dpkg-deb -c "$DEB" | grep -v " root/root "
'

test_expect 'two builds of one binary with SOURCE_DATE_EPOCH are the same bytes' '
	SOURCE_DATE_EPOCH=1780000000 sh "$ROOT/.dist/deb.sh" "$BENCHLINE" again >/dev/null &&
	cmp "$DEB" "again/benchline_${VERSION}_$ARCH.deb"
'

test_expect 'without dpkg-shlibdeps, Depends comes from dpkg -S on the linked libraries' '
	mkdir stub && printf "#!/bin/sh\nexit 1\n" >stub/dpkg-shlibdeps && chmod +x stub/dpkg-shlibdeps &&
	PATH=$TMP/stub:$PATH sh "$ROOT/.dist/deb.sh" "$BENCHLINE" plain >/dev/null &&
	dpkg-deb -f "plain/benchline_${VERSION}_$ARCH.deb" Depends | tr "," "\n" |
		sed "s/^ *//; s/ .*//" >plain.depends &&
	test_cmp depends plain.depends
'

# A fresh machine, simulated: apt-get's solver with an empty dpkg status (nothing installed)
# must find every package the .deb needs in the package lists and install them with it. Skipped
# without apt-get or package lists that know benchline's libraries.
if command -v apt-get >/dev/null 2>&1 &&
	apt-cache policy libjansson4 2>/dev/null | grep -q "Candidate: [0-9]"; then
	test_expect 'apt-get install ./benchline_*.deb on a machine with nothing installed pulls its libraries' '
		: >empty-status &&
		(cd out && apt-get install -s --no-install-recommends -o Dir::State::status="$TMP/empty-status" \
			"./benchline_${VERSION}_$ARCH.deb") >apt.out 2>&1 &&
		sed -n "s/^Inst \([^ ]*\) .*/\1/p" apt.out >installed &&
		grep -qx benchline installed &&
		while read -r p; do
			grep -qx "$p" installed || { echo "not pulled: $p"; cat apt.out; return 1; }
		done <depends &&
		(cd out && apt-get install -s -o Dir::State::status="$TMP/empty-status" \
			"./benchline_${VERSION}_$ARCH.deb") >apt-rec.out 2>&1 &&
		grep -q "^Inst valgrind " apt-rec.out &&
		grep -q "^Inst gnuplot-nox " apt-rec.out
	'
fi

if command -v lintian >/dev/null 2>&1; then
	test_expect 'lintian finds no error' '
		lintian --no-tag-display-limit "$DEB" >lintian.out 2>&1;
		! grep "^E:" lintian.out
	'
fi

test_expect 'deb.sh: no binary or no arguments is a usage error, exit 2' '
	expect_exit 2 sh "$ROOT/.dist/deb.sh" 2>err &&
	grep -q "^usage: sh .dist/deb.sh BINARY OUTDIR" err &&
	expect_exit 2 sh "$ROOT/.dist/deb.sh" "$TMP/no-such-binary" out 2>err &&
	grep -q "no binary" err
'

# make dist, in a copy of the tracked files with build outputs planted among them.
if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
	test_expect 'the source tarball holds exactly the tracked files, under benchline-VERSION/' '
		git -C "$ROOT" ls-files >tracked.all &&
		(cd "$ROOT" && while read -r f; do [ -e "$f" ] && echo "$f"; done) <tracked.all |
			LC_ALL=C sort >tracked &&
		mkdir src && (cd "$ROOT" && tar -cf - -T "$TMP/tracked") | (cd src && tar -xf -) &&
		mkdir -p src/build/default src/tests/output src/.benchline/worktrees src/.git &&
		for f in src/build/default/x.o src/benchline src/demo.db src/demo.db-wal \
			src/tests/output/shot.png src/.benchline/counters.db src/.git/HEAD; do
			echo junk >"$f" || return 1
		done &&
		sh src/.dist/dist.sh dist >path &&
		echo "$TMP/dist/benchline-$VERSION.tar.gz" >expect && test_cmp expect path &&
		tar -tzf "dist/benchline-$VERSION.tar.gz" >members &&
		! grep -v "^benchline-$VERSION/" members &&
		sed -n "s,^benchline-$VERSION/,,p" members | grep -v "/\$" | grep -v "^\$" |
			LC_ALL=C sort >listed &&
		test_cmp tracked listed
	'
fi
test_done

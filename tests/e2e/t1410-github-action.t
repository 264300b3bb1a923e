#!/bin/sh
# The gate's GitHub Action (.github/actions/gate/action.yml; docs/github-action.md), run here:
# tests/e2e/run-action.pl reads the file (checked against PyYAML when python3 has it) and runs
# its steps as a runner does, in a clone of a local repository with a fake GITHUB_* environment;
# tests/e2e/fake-github.pl stands in for GitHub's API on a loopback port (no network). Checked:
# a slower head fails the action with one comment posted, found again by its marker (on a later
# page too) and updated; comment modes off, create and a comment key; a refused comment leaves
# the verdict; a passing head passes; other events; stored mode; bad inputs; installing from a
# release's .deb (apt-get stubbed: it unpacks the package, whose binary then gates) and from
# source (apt-get and make stubbed); valgrind installed when bench.counters needs it.
. "$(dirname "$0")/lib.sh"

ACTION=$ROOT/.github/actions/gate/action.yml
VERSION=$("$BENCHLINE" --version | sed -n 's/^benchline //p')
RUN=$TESTS_DIR/e2e/run-action.pl

# The project: bench.sh prints a fixed figure (work), so the verdicts do not depend on how busy
# the machine is. upstream.git holds main; the workspace ws is its clone, with branches slow
# (10% more work) and same (a measured change that does no more work).
(
	set -e
	git init -q -b main src
	cat >src/bench.sh <<-'EOF'
	printf '{"loop": {"work": {"value": %s}}}\n' "$(cat work)"
	EOF
	echo 1000 >src/work
	printf '.benchline/\n' >src/.gitignore
	cat >src/benchline.json <<-'EOF'
	{"measured_paths": ["bench.sh", "work"], "unmeasured_paths": [".gitignore", "benchline.json"],
	 "bench": {"run": "sh bench.sh", "format": "bmf", "processes": 1}}
	EOF
	git -C src add -A && git -C src commit -q -m 'a benchmark'
	git clone -q --bare src upstream.git
	git clone -q upstream.git ws
	git -C ws checkout -q -b slow
	echo 1100 >ws/work
	git -C ws commit -q -am '10% more work'
	git -C ws checkout -q -b same main
	echo '# the same work' >>ws/bench.sh
	git -C ws commit -q -am 'a comment'
) >setup.log 2>&1 || { cat setup.log; echo 'Bail out! cannot build the test repository'; exit 1; }

# Stubs, first on PATH in every run: apt-get and sudo record what they were asked; apt-get
# "installs" a .deb by unpacking it into sysroot (its binary then on PATH through sysbin); make
# records its arguments and "builds" benchline as a link to the binary under test.
mkdir stubs sysroot sysbin gh
cat >stubs/apt-get <<EOF
#!/bin/sh
echo "apt-get \$*" >>"$TMP/apt.log"
for a in "\$@"; do
	case \$a in
	*.deb) dpkg-deb -x "\$a" "$TMP/sysroot" && ln -sf "$TMP/sysroot/usr/bin/benchline" "$TMP/sysbin/benchline" ;;
	esac
done
EOF
cat >stubs/sudo <<EOF
#!/bin/sh
echo "sudo \$*" >>"$TMP/apt.log"
exec "\$@"
EOF
cat >stubs/make <<EOF
#!/bin/sh
echo "make \$*" >>"$TMP/make.log"
[ "\$1" = -C ] && ln -sf "$BENCHLINE" "\$2/benchline"
EOF
chmod +x stubs/*
mkdir bin && ln -s "$BENCHLINE" bin/benchline

# The fake GitHub: its port, then the API's URL.
echo t0ken >gh/token
(perl "$TESTS_DIR/e2e/fake-github.pl" "$TMP/gh" >gh.out 2>&1 &
	echo $! >gh.pid)
i=0
while [ ! -s gh/port ]; do
	i=$((i + 1))
	[ $i -le 100 ] || { cat gh.out; echo 'Bail out! the fake GitHub did not start'; exit 1; }
	sleep 0.1
done
API=http://127.0.0.1:$(cat gh/port)
trap 'kill "$(cat "$TMP/gh.pid")" 2>/dev/null; cleanup' EXIT

printf '{"pull_request": {"number": 7}}\n' >event.json
printf '{"ref": "refs/heads/main"}\n' >push.json

# act NAME [--input NAME=VALUE]...: runs the action in ws as a pull request's job: RUN.out and
# RUN.err its log, RUN.outputs.json its outputs, RUN.summary.md its step summary; its exit
# status is the action's (the first failing step's). PATH_EXTRA and the EVENT_* variables
# change the environment.
act() {
	name=$1
	shift
	rm -rf rt && mkdir rt &&
		env GITHUB_WORKSPACE="$TMP/ws" RUNNER_TEMP="$TMP/rt" RUNNER_OS=Linux \
			GITHUB_EVENT_NAME="${EVENT_NAME:-pull_request}" \
			GITHUB_EVENT_PATH="${EVENT_PATH:-$TMP/event.json}" \
			GITHUB_BASE_REF="${EVENT_BASE_REF-main}" GITHUB_SHA="$(git -C ws rev-parse HEAD)" \
			GITHUB_REPOSITORY=acme/proj GITHUB_API_URL="$API" GITHUB_SERVER_URL="$API" \
			GITHUB_ACTION_REPOSITORY="${ACTION_REPO-acme/benchline}" GITHUB_TOKEN=t0ken \
			PATH="$TMP/stubs:${PATH_EXTRA-$TMP/bin}:$TMP/sysbin:$PATH" \
			perl "$RUN" --outputs "$name.outputs.json" --summary "$name.summary.md" \
			"$@" "${ACTION_FILE:-$ACTION}" >"$name.out" 2>"$name.err"
}
# output NAME KEY: the action's output KEY of run NAME
output() {
	json_get "$1.outputs.json" "\$j->{q($2)}"
}
# comments: "ID first-line" per comment on pull request 7
comments() {
	json_get gh/comments.json 'join "", map { "$_->{id} " . (split /\n/, $_->{body})[0] . "\n" } grep { $_->{issue} == 7 } @$j' |
		sed '/^$/d'
}

test_expect 'action.yml: read as PyYAML reads it; composite, bash steps, no ${{ }} inside a script' '
	perl "$RUN" --dump "$ACTION" >ours.json &&
	if python3 -c "import yaml" 2>/dev/null; then
		python3 -c "import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))" \
			"$ACTION" >pyyaml.json &&
		json_get pyyaml.json "JSON::PP->new->canonical->encode(\$j)" >a &&
		json_get ours.json "JSON::PP->new->canonical->encode(\$j)" >b &&
		test_cmp a b
	fi &&
	json_get ours.json "
		die qq(using\n) unless \$j->{runs}{using} eq q(composite);
		my @s = @{\$j->{runs}{steps}};
		die qq(steps\n) unless @s == 4;
		for (@s) { die qq(shell\n) unless \$_->{shell} eq q(bash);
			die qq(an expression in a script: \$_->{name}\n) if \$_->{run} =~ /\\$\\{\\{/ }
		my %used; my \$all = JSON::PP->new->canonical->encode(\$j);
		\$used{\$1} = 1 while \$all =~ /inputs\.([a-z-]+)/g;
		for (keys %used) { die qq(undeclared input \$_\n) unless \$j->{inputs}{\$_} }
		for (keys %{\$j->{inputs}}) { die qq(unused input \$_\n) unless \$used{\$_} }
		for (qw(base limit settle comment install package version)) { die qq(no input \$_\n) unless \$j->{inputs}{\$_} }
		1"
'

test_expect 'the workflow in docs/github-action.md is docs/examples/benchline-action.yml: it parses, caches the counts, uses the action' '
	perl -ne '"'"'
		$on = 1 if /^## The workflow to copy/;
		if ($on && /^```yaml$/) { $in = 1; next }
		if ($in && /^```$/) { exit }
		print if $in;
	'"'"' "$ROOT/docs/github-action.md" >workflow.yml &&
	test_cmp "$ROOT/docs/examples/benchline-action.yml" workflow.yml &&
	perl "$RUN" --dump workflow.yml >wf.json &&
	if python3 -c "import yaml" 2>/dev/null; then
		python3 -c "
import json, sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
if True in d:  # YAML 1.1 reads the key on as a boolean; GitHub reads it as the word
    d[\"on\"] = d.pop(True)
print(json.dumps(d))" workflow.yml >wf.pyyaml.json &&
		json_get wf.pyyaml.json "JSON::PP->new->canonical->encode(\$j)" >a &&
		json_get wf.json "JSON::PP->new->canonical->encode(\$j)" >b &&
		test_cmp a b
	fi &&
	json_get wf.json "
		my @s = @{\$j->{jobs}{gate}{steps}};
		die qq(checkout\n) unless \$s[0]{uses} =~ m{^actions/checkout\@} && \$s[0]{with}{q(fetch-depth)} == 0;
		die qq(cache\n) unless \$s[1]{uses} =~ m{^actions/cache\@} && \$s[1]{with}{path} eq q(.benchline/counters.db)
			&& \$s[1]{with}{key} =~ /github\.run_id/ && \$s[1]{with}{q(restore-keys)};
		die qq(action\n) unless \$s[2]{uses} =~ m{^OWNER/benchline/(.*)\@v1\$} && -f qq($ROOT/\$1/action.yml);
		die qq(permissions\n) unless \$j->{permissions}{q(pull-requests)} eq q(write);
		die qq(triggers\n) unless \$j->{on}{pull_request} && \$j->{on}{push};
		1" &&
	json_get wf.json "join qq(\n), sort keys %{\$j->{jobs}{gate}{steps}[2]{with}}" >with &&
	while read -r input; do
		json_get ours.json "\$j->{inputs}{q($input)} ? 1 : 0" | grep -qx 1 ||
			{ echo "the workflow gives an input the action lacks: $input"; return 1; }
	done <with
'

# Why the workflow caches .benchline/counters.db and not all of .benchline/: a worktree belongs
# to the .git of the checkout that made it.
test_expect 'the cache carries the counts only: restored whole, .benchline is in the way of a new checkout' '
	git clone -q upstream.git job1 && git clone -q upstream.git job2 && git clone -q upstream.git job3 &&
	bl worktree --repo job1 HEAD HEAD >/dev/null &&
	cp -R job1/.benchline job2/ &&
	expect_exit 2 bl worktree --repo job2 HEAD HEAD 2>err &&
	grep -q "is in the way of benchline.s worktree" err &&
	mkdir job3/.benchline && echo counts >job3/.benchline/counters.db &&
	bl worktree --repo job3 HEAD HEAD >/dev/null &&
	test "$(cat job3/.benchline/counters.db)" = counts
'

test_expect 'a slower head: the gate fails, the action fails, one comment is posted' '
	git -C ws checkout -q slow &&
	expect_exit 1 act slow --input install=path --input args="--exclude bench.run" &&
	grep -q "^step Verdict: exit 1$" slow.err &&
	grep -q "^::error::benchline gate: a regression (exit 1)$" slow.out &&
	grep -q "^benchline gate --repo . --head HEAD --base origin/main --json .* --markdown .* --live --exclude bench.run$" slow.out &&
	test "$(output slow status)" = 1 &&
	test "$(output slow verdict)" = fail &&
	test "$(output slow comment-url)" = "https://github.com/acme/proj/pull/7#issuecomment-1000" &&
	json_get "$(output slow report)" "\$j->{status}" | grep -qx fail &&
	printf "GET /repos/acme/proj/issues/7/comments?per_page=100&page=1\nPOST /repos/acme/proj/issues/7/comments\n" >expect &&
	test_cmp expect gh/requests.log &&
	echo "1000 <!-- benchline-gate -->" >expect &&
	comments >actual && test_cmp expect actual &&
	json_get gh/comments.json "\$j->[0]{body}" >body.md &&
	grep -q "work" body.md &&
	test "$(grep -c "benchline-gate -->" body.md)" = 1 &&
	grep -q "work" slow.summary.md
'

test_expect 'run again: the comment it left is found by its marker and updated, not added' '
	rm gh/requests.log &&
	expect_exit 1 act again --input install=path --input args="--exclude bench.run" &&
	printf "GET /repos/acme/proj/issues/7/comments?per_page=100&page=1\nPATCH /repos/acme/proj/issues/comments/1000\n" >expect &&
	test_cmp expect gh/requests.log &&
	comments >actual && echo "1000 <!-- benchline-gate -->" >expect && test_cmp expect actual &&
	grep -q "^updated comment 1000: " again.out
'

test_expect 'its comment behind 120 others is found on the second page' '
	perl -MJSON::PP -e '"'"'
		local $/; open my $f, "<", $ARGV[0] or die; my $ours = decode_json(<$f>);
		my @others = map { {id => 2000 + $_, issue => 7, body => "comment $_", html_url => "x"} } 1 .. 120;
		print encode_json([@others[0 .. 99], @$ours, @others[100 .. 119]]);
	'"'"' gh/comments.json >seeded.json &&
	mv seeded.json gh/comments.json &&
	rm gh/requests.log &&
	expect_exit 1 act paged --input install=path --input args="--exclude bench.run" &&
	printf "GET %s\nGET %s\nPATCH %s\n" "/repos/acme/proj/issues/7/comments?per_page=100&page=1" \
		"/repos/acme/proj/issues/7/comments?per_page=100&page=2" \
		"/repos/acme/proj/issues/comments/1000" >expect &&
	test_cmp expect gh/requests.log &&
	test "$(comments | grep -c "benchline-gate")" = 1 &&
	echo "[]" >gh/comments.json
'

test_expect 'comment modes: create posts every time, off posts nothing, a key keeps its own comment' '
	rm -f gh/requests.log &&
	expect_exit 1 act c1 --input install=path --input args="--exclude bench.run" --input comment=create &&
	expect_exit 1 act c2 --input install=path --input args="--exclude bench.run" --input comment=create &&
	test "$(grep -c "^POST" gh/requests.log)" = 2 && ! grep -q "^GET\|^PATCH" gh/requests.log &&
	rm gh/requests.log &&
	expect_exit 1 act off --input install=path --input args="--exclude bench.run" --input comment=off &&
	test ! -e gh/requests.log &&
	expect_exit 1 act key --input install=path --input args="--exclude bench.run" --input comment-key=linux-x64 &&
	comments >actual &&
	printf "%s\n" "1000 <!-- benchline-gate -->" "1001 <!-- benchline-gate -->" \
		"1002 <!-- benchline-gate:linux-x64 -->" >expect &&
	test_cmp expect actual &&
	json_get gh/comments.json "\$j->[2]{body}" | grep -c "<!-- benchline-gate" >n &&
	echo 1 >expect && test_cmp expect n
'

test_expect 'a comment the token may not write is a warning: the verdict still decides' '
	touch gh/forbid &&
	expect_exit 1 act forbid --input install=path --input args="--exclude bench.run" --input comment=create &&
	grep -q "^::warning::cannot comment on #7 (HTTP 403); the verdict stands$" forbid.out &&
	grep -q "^step Verdict: exit 1$" forbid.err &&
	! grep -q "^step Comment" forbid.err &&
	rm gh/forbid
'

test_expect 'a head doing the same work passes: exit 0, the comment updated' '
	git -C ws checkout -q same &&
	echo "[]" >gh/comments.json &&
	act same --input install=path --input args="--exclude bench.run" &&
	test "$(output same status)" = 0 &&
	test "$(output same verdict)" = pass &&
	grep -q "^benchline gate: pass$" same.out &&
	! grep -q "^step " same.err &&
	comments >actual && echo "1000 <!-- benchline-gate -->" >expect && test_cmp expect actual
'

test_expect 'not a pull request: base is required; given it, the gate runs and nothing is posted' '
	rm -f gh/requests.log &&
	EVENT_NAME=push EVENT_PATH=$TMP/push.json EVENT_BASE_REF= expect_exit 1 act push1 --input install=path &&
	grep -q "^::error::base: not a pull request, so say what to compare with$" push1.out &&
	grep -q "^step Gate: exit 1$" push1.err &&
	git -C ws checkout -q slow &&
	EVENT_NAME=push EVENT_PATH=$TMP/push.json EVENT_BASE_REF= expect_exit 1 act push2 \
		--input install=path --input base=main --input args="--exclude bench.run" &&
	grep -q "^no comment: .push. is not a pull request event$" push2.out &&
	test "$(output push2 verdict)" = fail &&
	test ! -e gh/requests.log
'

test_expect 'stored mode: --db and --settle are passed; no records is no verdict, exit 4' '
	"$BENCHLINE" --db "$TMP/none.db" init >/dev/null &&
	expect_exit 4 act stored --input install=path --input mode=stored \
		--input database="$TMP/none.db" --input settle=true --input comment=off &&
	grep -q "^benchline --db $TMP/none.db gate --repo . --head HEAD --base origin/main --json .* --markdown .* --settle$" stored.out &&
	test "$(output stored status)" = 4 &&
	test "$(output stored verdict)" = no_verdict &&
	grep -q "^::error::benchline gate: no verdict possible (exit 4)$" stored.out
'

test_expect 'bad inputs are errors naming the input' '
	expect_exit 1 act badmode --input install=path --input mode=fast &&
	grep -q "^::error::mode: .fast. is not live or stored$" badmode.out &&
	expect_exit 1 act badcomment --input install=path --input comment=maybe \
		--input args="--exclude bench.run" &&
	grep -q "^::error::comment: .maybe. is not off, create or update$" badcomment.out &&
	expect_exit 1 act badinstall --input install=pip &&
	grep -q "^::error::install: .pip. is not auto, package, path or build$" badinstall.out &&
	PATH_EXTRA= expect_exit 1 act nobin --input install=path &&
	grep -q "^::error::install: path, but there is no benchline on PATH$" nobin.out
'

test_expect 'install from a release: the .deb downloaded, apt-get given it, and its binary gates' '
	mkdir gh/releases &&
	sh "$ROOT/.dist/deb.sh" "$BENCHLINE" gh/releases >/dev/null &&
	rm -f apt.log gh/requests.log &&
	PATH_EXTRA= expect_exit 1 act release --input version="$VERSION" --input comment=off \
		--input args="--exclude bench.run" &&
	grep -q "^GET /acme/benchline/releases/download/v$VERSION/benchline_${VERSION}_$(dpkg --print-architecture).deb$" gh/requests.log &&
	printf "apt-get update -qq\napt-get install -y --no-install-recommends %s\n" \
		"$TMP/rt/benchline/benchline.deb" >expect &&
	test_cmp expect apt.log &&
	test -x sysroot/usr/bin/benchline &&
	grep -q "^benchline $VERSION$" release.out &&
	test "$(output release verdict)" = fail
'

test_expect 'with no GITHUB_ACTION_REPOSITORY (composite steps), the release is the one of the action'"'"'s path' '
	mkdir -p _actions/acme/benchline/v1/.github/actions/gate &&
	cp "$ACTION" _actions/acme/benchline/v1/.github/actions/gate/ &&
	rm -f gh/requests.log sysbin/benchline &&
	PATH_EXTRA= ACTION_REPO= ACTION_FILE=$TMP/_actions/acme/benchline/v1/.github/actions/gate/action.yml \
		expect_exit 1 act release2 --input version="$VERSION" --input comment=off \
		--input args="--exclude bench.run" &&
	grep -q "^GET /acme/benchline/releases/download/v$VERSION/" gh/requests.log &&
	rm -f gh/requests.log &&
	PATH_EXTRA= ACTION_REPO= expect_exit 1 act norepo --input version="$VERSION" &&
	grep -q "^::error::version: cannot tell the action.s repository$" norepo.out
'

test_expect 'install from a package path: relative to the working directory' '
	cp gh/releases/*.deb ws/benchline.deb &&
	rm -f apt.log sysbin/benchline &&
	PATH_EXTRA= expect_exit 1 act pkgpath --input package=benchline.deb --input comment=off \
		--input args="--exclude bench.run" &&
	grep -qx "apt-get install -y --no-install-recommends $TMP/ws/benchline.deb" apt.log &&
	rm ws/benchline.deb
'

test_expect 'with no package and no benchline on PATH, auto builds the action'"'"'s own source' '
	mkdir -p src-tree/.github/actions/gate src-tree/cli &&
	cp "$ACTION" src-tree/.github/actions/gate/ &&
	touch src-tree/Makefile src-tree/cli/main.c &&
	rm -f apt.log make.log sysbin/benchline &&
	PATH_EXTRA= ACTION_FILE=$TMP/src-tree/.github/actions/gate/action.yml expect_exit 1 act build \
		--input comment=off --input args="--exclude bench.run" &&
	grep -q "^apt-get install -y --no-install-recommends build-essential pkg-config libsqlite3-dev libgit2-dev libjansson-dev libmicrohttpd-dev libcurl4-openssl-dev libssl-dev libpq-dev$" apt.log &&
	grep -q "^make -C $TMP/src-tree -j[0-9]* benchline$" make.log &&
	test "$(output build verdict)" = fail
'

test_expect 'bench.counters without valgrind: the install step installs it' '
	mkdir restricted &&
	for c in bash sh perl id cat mkdir rm sed dirname git; do
		ln -s "$(command -v $c)" restricted/$c || return 1
	done &&
	perl -MJSON::PP -e "local \$/; open my \$f, q(<), q(ws/benchline.json) or die; my \$c = decode_json(<\$f>);
		\$c->{bench}{counters} = {run => q(sh bench.sh)}; print encode_json(\$c)" >counters.json &&
	cp ws/benchline.json benchline.json.saved && cp counters.json ws/benchline.json &&
	rm -f apt.log &&
	env PATH="$TMP/stubs:$TMP/bin:$TMP/restricted" GITHUB_WORKSPACE="$TMP/ws" RUNNER_TEMP="$TMP/rt" \
		GITHUB_EVENT_PATH="$TMP/event.json" GITHUB_BASE_REF=main GITHUB_REPOSITORY=acme/proj \
		GITHUB_API_URL="$API" "$TMP/restricted/perl" "$RUN" --input install=path \
		--input comment=off "$ACTION" >counters.out 2>counters.err;
	cp benchline.json.saved ws/benchline.json &&
	grep -qx "apt-get install -y --no-install-recommends valgrind" apt.log
'
test_done

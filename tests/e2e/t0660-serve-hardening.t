#!/bin/sh
# benchline serve against a hostile client (issue 15's hardening list, docs/web.md "Limits and
# hardening"): revisions over HTTP, locks, tokens, oversized and malformed requests, slow
# clients and floods.
. "$(dirname "$0")/lib.sh"
. "$TESTS_DIR/e2e/serve-lib.sh"

# A repository of three commits on main.
git init -q -b main repo
(
	cd repo &&
		mkdir src &&
		printf '{"measured_paths": ["src"], "unmeasured_paths": ["benchline.json", ".benchline", "benchline-gate.lock"]}\n' >benchline.json &&
		for i in 1 2 3; do echo $i >src/a.c && git add . && git commit -qm "c$i" || exit 1; done
) || exit 1
C2=$(cd repo && git rev-parse HEAD~1)
bl init >/dev/null || exit 1
printf 'secret-all\n' >tokens

# lock_hold: another process (the sqlite3 shell) takes the database's write lock and keeps it
# until lock_release.
lock_hold() {
	rm -f lock.in lock.out && mkfifo lock.in &&
		(sqlite3 "$BENCHLINE_DB" <lock.in >lock.out 2>&1 &) &&
		exec 7>lock.in &&
		echo "BEGIN IMMEDIATE; SELECT 'locked';" >&7 || return 1
	i=0
	until grep -q locked lock.out; do
		i=$((i + 1))
		[ $i -le 100 ] || return 1
		sleep 0.1
	done
}
lock_release() {
	echo "COMMIT;" >&7 && exec 7>&-
}

serve_start gate --timeout 5 --repo "$TMP/repo" --token-file tokens || exit 1

# D1: a revision from HTTP is a ref name or a commit id, never a revparse expression.
test_expect 'the gate over HTTP takes ref names and commit ids' '
	expect_status 200 application/json GET "$URL/api/gate?head=main" &&
	expect_status 200 application/json GET "$URL/api/gate?head=$C2&base=main" &&
	expect_status 200 application/json GET "$URL/api/gate?head=refs/heads/main" &&
	expect_status 200 text/html GET "$URL/gate?head=main"
'
test_expect 'the gate over HTTP refuses revision expressions (400, naming the parameter)' '
	expect_status 400 application/json GET "$URL/api/gate?head=HEAD%5E%7B%2Fc2%7D" &&
	json_get body "\$j->{error}" >actual &&
	echo "head: '\''HEAD^{/c2}'\'' is not a ref name or a commit id (4 to 40 hex digits); the server takes no revision expressions" >expect &&
	test_cmp expect actual &&
	expect_status 400 application/json GET "$URL/api/gate?head=main&base=%3A%2Fc1" &&
	grep -q "^{\"error\":\"base: " body &&
	expect_status 400 application/json GET "$URL/api/gate?head=main&ratchet=main%40%7B1%7D" &&
	grep -q "^{\"error\":\"ratchet: " body &&
	expect_status 400 text/html GET "$URL/gate?head=HEAD~1" &&
	grep -q "not a ref name or a commit id" body
'
test_expect 'the command line keeps every revision form' '
	(cd repo && bl gate --head "HEAD^{/c2}" --json g.json >/dev/null) ;
	test -s repo/g.json
'

# D11: blanks around a bearer token are not part of it.
record m1 b1 1 >rec.json
test_expect 'a bearer token padded with blanks is the token' '
	expect_status 201 application/json POST "$URL/api/records" \
		-H "Authorization: Bearer secret-all   " --data-binary @rec.json &&
	expect_status 200 application/json POST "$URL/api/records" \
		-H "Authorization: Bearer 	secret-all	 " --data-binary @rec.json &&
	expect_status 401 application/json POST "$URL/api/records" \
		-H "Authorization: Bearer secret-al l" --data-binary @rec.json &&
	expect_status 401 application/json POST "$URL/api/records" \
		-H "Authorization: Bearer    " --data-binary @rec.json
'

serve_stop gate || exit 1

# D3: a write lock the server cannot get within --lock-timeout is a 503 with Retry-After.
serve_start locked --lock-timeout 1 --token-file tokens || exit 1
record m1 b2 2 >rec2.json
lock_hold || exit 1
test_expect 'a push that cannot get the write lock is a 503 with Retry-After' '
	curl -s -o body -D headers -H "Authorization: Bearer secret-all" \
		--data-binary @rec2.json "$URL/api/records" &&
	grep -qi "^HTTP/1.1 503" headers &&
	grep -qi "^Retry-After: 5" headers &&
	grep -qi "^Content-Type: application/json" headers &&
	grep -q "database is locked" body
'
test_expect 'reads answer while another process holds the write lock' '
	expect_status 200 application/json GET "$URL/api/series" &&
	expect_status 200 text/html GET "$URL/"
'
lock_release
test_expect 'the same push is stored once the lock is free' '
	expect_status 201 application/json POST "$URL/api/records" \
		-H "Authorization: Bearer secret-all" --data-binary @rec2.json
'
serve_stop locked || exit 1
test_done

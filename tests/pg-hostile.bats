#!/usr/bin/env bats
# pg-hostile.bats - the PostgreSQL store against what the database side can
# do to it: rows a table owner writes past the schema's CHECKs, a server
# setting that changes how values come back, results short of columns;
# and what reaches a terminal or a log from there: escaped, never a
# password of the URL.  A throwaway cluster (tests/pgcluster.bash), a
# database of its own per test.

bats_require_minimum_version 1.5.0

setup_file() {
	load common
	load pgcluster
	pg_suite_start
}

teardown_file() {
	load pgcluster
	pg_cluster_stop fast
}

setup() {
	load common
	load pgcluster
	T=$BATS_TEST_TMPDIR
	pg_test_db h
	K=$T/store.key
	SK=(--store-key="$K")
	NOW=@1234567890
}

teardown() {
	[[ -z ${SHORT:-} ]] || kill "$SHORT" 2>/dev/null || true
}

sql() {
	psql -X -A -t -v ON_ERROR_STOP=1 -d "$DB" -c "$1"
}

# A store with alice's TOTP token (the RFC key), from a state file.
alice() {
	run -0 otp-store "${SK[@]}" init "$URL"
	printf '%s\n' "$RFC_B32" '" TOTP_AUTH' >"$T/ga"
	chmod 0400 "$T/ga"
	run -0 otp-store "${SK[@]}" copy --user=alice "ga:$T/ga" "$URL"
}

code_at() {
	otp-gen --totp -N "$1" "$RFC_HEX"
}

@test "a kind of 4000 bytes, as a table owner can write: refused with exit 2 everywhere, no crash" {
	alice
	sql "ALTER TABLE otp_tokens DROP CONSTRAINT otp_tokens_kind_check"
	sql "UPDATE otp_tokens SET kind = repeat('A', 4000)"
	run -2 otp-store "${SK[@]}" copy --user=alice "$URL" "ga:$T/out"
	[[ ! -e $T/out ]]
	run -2 otp-verify -N "$NOW" --store="$URL" --user=alice "${SK[@]}" \
	    --diagnose "$(code_at "$NOW")"
	run -2 otp-verify -N "$NOW" --store="$URL" --user=alice "${SK[@]}" \
	    "$(code_at "$NOW")"
	run -2 otp-store "${SK[@]}" resync "$URL" alice 123456 234567
	run -2 otp-store "${SK[@]}" list "$URL"
	assert_output --partial "malformed"
	refute_output --partial AAAAAAAAAAAAAAAAAAAA
}

@test "a server that answers one column where four were asked: exit 2, no crash" {
	run -0 otp-store "${SK[@]}" init "$URL"
	# fds 3 and up closed: bats waits for whoever holds its fd 3.
	python3 "$BATS_TEST_DIRNAME/pg/short-server.py" >"$T/port" \
	    3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&- &
	SHORT=$!
	for ((i = 0; i < 100; i++)); do
		[[ -s $T/port ]] && break
		sleep 0.1
	done
	u=postgresql://u@127.0.0.1:$(<"$T/port")/x
	run -2 otp-verify --store="$u" --user=alice "${SK[@]}" 123456
	assert_output --partial "malformed"
	run -2 otp-verify --store="$u" --user=alice "${SK[@]}" --diagnose 123456
	run -2 otp-store "${SK[@]}" list "$u"
	run -2 otp-store "${SK[@]}" resync "$u" alice 123456 234567
	run -2 otp-store "${SK[@]}" copy --user=alice "$u" "ga:$T/out"
}

@test "bytea_output = escape on the server: logins, listing and copies work as with hex" {
	alice
	sql "ALTER DATABASE $DB SET bytea_output = escape"
	[[ $(sql "SELECT '\\x0a5c'::bytea") == '\012\\' ]]
	run -0 otp-verify -N "$NOW" --store="$URL" --user=alice "${SK[@]}" \
	    "$(code_at "$NOW")"
	run -1 otp-verify -N "$NOW" --store="$URL" --user=alice "${SK[@]}" \
	    "$(code_at "$NOW")"
	assert_output --partial "already used"
	run -0 otp-store "${SK[@]}" list "$URL"
	assert_output --partial $'alice\ttotp'
	run -0 otp-store "${SK[@]}" copy --user=alice "$URL" "ga:$T/out"
	run -0 otp-store "${SK[@]}" init "$URL"
}

@test "names, kinds and server messages reach the terminal escaped: no escape sequence from the database" {
	alice
	esc=$'\e]0;owned\a\e[2J'
	printf '%s\n' "$RFC_B32" '" TOTP_AUTH' >"$T/ga2"
	chmod 0400 "$T/ga2"
	run -0 otp-store "${SK[@]}" copy --user="x${esc}y" "ga:$T/ga2" "$URL"
	sql "ALTER TABLE otp_tokens DROP CONSTRAINT otp_tokens_kind_check"
	sql "UPDATE otp_tokens SET kind = E'\\x1b[2J' WHERE login = 'alice'"
	run -0 otp-store "${SK[@]}" list "$URL"
	[[ $output != *$'\e'* ]] || fail "an escape in: $output"
	assert_output --partial 'x\033]0;owned\007\033[2Jy'
	assert_output --partial $'alice\t\\033[2J'
	run -1 otp-store "${SK[@]}" remove "$URL" "nobody${esc}"
	[[ $output != *$'\e'* ]] || fail "an escape in: $output"
	run -2 otp-store "${SK[@]}" copy --user="x${esc}y" "ga:$T/ga2" "$URL"
	[[ $output != *$'\e'* ]] || fail "an escape in: $output"
	run -2 otp-keygen --store="$URL" --user="x${esc}y" "${SK[@]}"
	[[ $output != *$'\e'* ]] || fail "an escape in: $output"
	assert_output --partial 'x\033'
	# A RADIUS User-Name comes from the network, any bytes for a
	# database: refused, and shown escaped in the server's log.
	USER_NAME="\"x${esc}y\"" USER_PASSWORD='"123456"' run -1 \
	    otp-verify --radius --store="$URL" "${SK[@]}"
	[[ $output != *$'\e'* ]] || fail "an escape in: $output"
	assert_output --partial 'x\033]0;owned\007\033[2Jy: code not accepted'
	# The server's own words: an error message quoting a name.
	run -2 otp-store "${SK[@]}" list \
	    "postgresql://postgres@127.0.0.1:$PGPORT/no${esc}db"
	[[ $output != *$'\e'* ]] || fail "an escape in: $output"
}

@test "copy from a database: one bad row is named, the others copied, exit 2 at the end" {
	alice
	printf '%s\n' "$RFC_B32" '" TOTP_AUTH' >"$T/ga2"
	chmod 0400 "$T/ga2"
	run -0 otp-store "${SK[@]}" copy --user=bob "ga:$T/ga2" "$URL"
	run -0 otp-store "${SK[@]}" copy --user=carol "ga:$T/ga2" "$URL"
	sql "UPDATE otp_tokens SET state = '\\x00'::bytea WHERE login = 'bob'"
	createdb_url="postgresql://postgres@127.0.0.1:$PGPORT/${DB}b"
	psql -q -X -d postgres -c "CREATE DATABASE ${DB}b"
	run -0 otp-store "${SK[@]}" init "$createdb_url"
	run -2 otp-store "${SK[@]}" copy "$URL" "$createdb_url"
	assert_output --partial "bob"
	assert_output --partial "copied 2 tokens, 1 not copied"
	run -0 otp-store "${SK[@]}" list "$createdb_url"
	assert_output --partial $'alice\t'
	assert_output --partial $'carol\t'
	refute_output --partial $'bob\t'
}

@test "a password in the URL in any form libpq reads is cut from every message" {
	for u in "postgresql://u@127.0.0.1:1/x?pass%77ord=s3cretpw" \
	    "postgresql://u@127.0.0.1:1/x?a=b&%70%61ssword=s3cretpw&c=d" \
	    "postgresql://u:s3cretpw@127.0.0.1:1,127.0.0.1:2/x" \
	    "postgres://u@127.0.0.1:1/x?sslpassword=s3cretpw" \
	    "postgresql://u:s3cretpw@127.0.0.1:1/x?password=s3cretpw"; do
		run -2 otp-verify --store="$u" --user=a "${SK[@]}" 123456
		refute_output --partial s3cretpw
		assert_output --partial "postgres"
		run -2 otp-store "${SK[@]}" list "$u"
		refute_output --partial s3cretpw
		run -2 otp-keygen --store="$u" --user=a "${SK[@]}"
		refute_output --partial s3cretpw
	done
	run -2 otp-verify --store="postgresql://u@127.0.0.1:1/x?a=b&pass%77ord=s3cretpw&c=d" \
	    --user=a "${SK[@]}" 123456
	assert_output --partial "postgresql://u@127.0.0.1:1/x?a=b&c=d:"
	# A store object that does not load: the URL cut all the same, the
	# loader's reason, the variable to set.
	OTP_STORE_MODULE=$T/none.so run -2 otp-store "${SK[@]}" list \
	    "postgresql://u:s3cretpw@127.0.0.1:1/x?pass%77ord=s3cretpw"
	refute_output --partial s3cretpw
	assert_output --partial "none.so: cannot open shared object file"
	assert_output --partial OTP_STORE_MODULE
}

@test "tools run from the build tree load the build's store object without OTP_STORE_MODULE" {
	[[ -f $OTP_BIN/../lib/otp-utils/store-pg.so ]] ||
	    skip "the tools are not in a build tree"
	alice
	unset OTP_STORE_MODULE
	run -0 otp-store "${SK[@]}" list "$URL"
	assert_output --partial $'alice\ttotp'
	run -0 otp-verify -N "$NOW" --store="$URL" --user=alice "${SK[@]}" \
	    "$(code_at "$NOW")"
	# Not from a directory others may write: the tree's object is
	# passed over for the installed one.
	mkdir -p "$T/tree/bin" "$T/tree/lib/otp-utils"
	cp "$OTP_BIN/otp-store" "$T/tree/bin"
	: >"$T/tree/lib/otp-utils/store-pg.so"
	chmod 0777 "$T/tree/lib/otp-utils"
	run "$T/tree/bin/otp-store" "${SK[@]}" list "$URL"
	refute_output --partial "$T/tree"
	chmod 0755 "$T/tree/lib/otp-utils"
	run -2 "$T/tree/bin/otp-store" "${SK[@]}" list "$URL"
	assert_output --partial "$T/tree/lib/otp-utils/store-pg.so"
}

@test "libpq's two-line messages are joined with '; ', not run together" {
	run -2 otp-store list "postgresql://u@127.0.0.1:1/x"
	assert_output --partial "Connection refused; Is the server running"
	[[ ${#lines[@]} == 1 ]]
}

@test "init is all or nothing: a failed init leaves no key file it made; the next one says to keep a copy" {
	run -2 otp-store "${SK[@]}" init "postgresql://postgres@127.0.0.1:$PGPORT/nodb"
	assert_output --partial nodb
	[[ ! -e $K ]] || fail "$K left behind"
	# A key that was there stays, whatever happens.
	run -0 otp-store "${SK[@]}" init "$URL"
	assert_output --partial "keep a copy"
	cp "$K" "$T/k1"
	run -2 otp-store "${SK[@]}" init "postgresql://postgres@127.0.0.1:$PGPORT/nodb"
	cmp "$K" "$T/k1"
}

@test "store_timeout bounds resolving the host name; a name resolves to the addresses libpq is given" {
	command -v cc >/dev/null || skip "no C compiler for the resolver shim"
	cc -shared -fPIC -o "$T/slowdns.so" "$BATS_TEST_DIRNAME/pg/slowdns.c" \
	    -ldl || fail "the shim does not build"
	alice
	shim=(env LD_PRELOAD="$T/slowdns.so"
	    ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0)
	# A name that resolves: the login goes to the address it gave.
	run -0 "${shim[@]}" otp-verify -N "$NOW" \
	    --store="postgresql://postgres@fast.test:$PGPORT/$DB" \
	    --user=alice "${SK[@]}" "$(code_at "$NOW")"
	run -0 otp-store "${SK[@]}" list "postgresql://postgres@localhost:$PGPORT/$DB"
	# A resolver that takes 10 s: refused at the deadline, not after it.
	run -2 timeout 8 "${shim[@]}" otp-verify -N "$NOW" \
	    --store="postgresql://postgres@slow.test:$PGPORT/$DB" \
	    --store-timeout=500ms --user=alice "${SK[@]}" "$(code_at "$NOW")"
	assert_output --partial "deadline"
	# A name that does not resolve: said so.
	run -2 otp-store "${SK[@]}" list "postgresql://postgres@no-such-host.invalid:$PGPORT/$DB"
	assert_output --partial "no-such-host.invalid"
}

# instructions CMD...: the instructions CMD runs (callgrind's count).
instructions() {
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 \
	    >/dev/null | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

@test "an unknown user's refusal does the work of an enrolled user's: no telling them apart by time" {
	command -v valgrind >/dev/null || skip "no valgrind to count instructions"
	! ldd "$(command -v otp-verify)" | grep -q libasan ||
	    skip "a sanitized build does not run under valgrind"
	alice
	# Counted, not timed: the unseal and the engine run for both.
	known=$(instructions otp-verify -N "$NOW" --store="$URL" --user=alice \
	    "${SK[@]}" 000000)
	unknown=$(instructions otp-verify -N "$NOW" --store="$URL" \
	    --user=nobody "${SK[@]}" 000000)
	[[ -n $known && -n $unknown ]] || fail "no count"
	((unknown * 10 >= known * 9)) ||
	    fail "unknown user: $unknown instructions, enrolled: $known"
}

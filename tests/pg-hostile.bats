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
	local reason
	reason=$(pg_cluster_available) || skip "$reason"
	pg_cluster_start "$BATS_FILE_TMPDIR" pg || fail "no cluster"
}

teardown_file() {
	load pgcluster
	pg_cluster_stop fast
}

setup() {
	load common
	load pgcluster
	T=$BATS_TEST_TMPDIR
	export OTP_STORE_MODULE=$OTP_LIBDIR/otp-utils/store-pg.so
	[[ -f $OTP_STORE_MODULE ]] || fail "$OTP_STORE_MODULE not built"
	DB=h$BATS_SUITE_TEST_NUMBER
	psql -q -X -v ON_ERROR_STOP=1 -d postgres \
	    -c "CREATE DATABASE $DB" >/dev/null || fail "createdb"
	URL="postgresql://postgres@127.0.0.1:$PGPORT/$DB"
	K=$T/store.key
	SK=(--store-key="$K")
	NOW=@1234567890
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
	coproc SHORT { exec python3 "$BATS_TEST_DIRNAME/pg/short-server.py"; }
	read -r -t 10 port <&"${SHORT[0]}" || fail "no short server"
	u=postgresql://u@127.0.0.1:$port/x
	run -2 otp-verify --store="$u" --user=alice "${SK[@]}" 123456
	assert_output --partial "malformed"
	run -2 otp-verify --store="$u" --user=alice "${SK[@]}" --diagnose 123456
	run -2 otp-store "${SK[@]}" list "$u"
	run -2 otp-store "${SK[@]}" resync "$u" alice 123456 234567
	run -2 otp-store "${SK[@]}" copy --user=alice "$u" "ga:$T/out"
	kill "$SHORT_PID"
	wait "$SHORT_PID" || true
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

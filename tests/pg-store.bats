#!/usr/bin/env bats
# pg-store.bats - the PostgreSQL store against a real server: a throwaway
# cluster on 127.0.0.1 (tests/pgcluster.bash), a database of its own per
# test.  otp-store init/list/copy/remove/disable/enable, otp-keygen and
# otp-verify --store=postgresql://..., --radius, pam_otp.so store=; the
# same answers as the state file the token came from; no secret in a dump
# or a message; bad keys, bad rows, hostile user names; a deadline; and
# races with the real clock: 50 processes and 40 threads on one code.

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
	pg_test_db t
	K=$T/store.key
	SK=(--store-key="$K")
	NOW=@1234567890
}

sql() {
	psql -X -A -t -v ON_ERROR_STOP=1 -d "$DB" -c "$1"
}

init() {
	run -0 otp-store "${SK[@]}" init "$URL"
}

# ga_file PATH LINE...: a state file with the RFC key and these lines.
ga_file() {
	local p=$1
	shift
	printf '%s\n' "$RFC_B32" "$@" >"$p"
	chmod 0400 "$p"
}

code_at() {
	otp-gen --totp -N "$1" "$RFC_HEX"
}

@test "init: a store key of mode 0600 and the schema; again, nothing changes; another key is refused" {
	run -0 otp-store "${SK[@]}" init "$URL"
	assert_output --partial "store key $K written"
	assert_output --partial "$URL: initialised"
	[[ $(stat -c %a "$K") == 600 ]]
	grep -Eqx '[0-9a-f]{64}' "$K"
	[[ $(sql "SELECT version FROM otp_schema") == 2 ]]
	cp "$K" "$T/k1"
	run -0 --separate-stderr otp-store "${SK[@]}" list "$URL"
	assert_output ""
	assert_equal "$stderr" "otp-store: $URL: no tokens"
	run -0 otp-store "${SK[@]}" init "$URL"
	refute_output --partial written
	assert_output "otp-store: $URL: already initialised (0 tokens): its tables were there, and this store key is theirs"
	cmp "$K" "$T/k1"
	ga_file "$T/ga" '" TOTP_AUTH'
	run -0 otp-store "${SK[@]}" copy --user=a "ga:$T/ga" "$URL"
	assert_output "otp-store: $URL: copied 1 token"
	run -0 otp-store "${SK[@]}" init "$URL"
	assert_output --partial "already initialised (1 token)"
	run -2 otp-store --store-key="$T/other" init "$URL"
	assert_output --partial "not the one the database was initialised with"
	# The schema DBAs get is the one init runs.
	run -0 psql -X -q -v ON_ERROR_STOP=1 -d "$DB" \
	    -f "$BATS_TEST_DIRNAME/../lib/sys/pg/schema.sql"
	# Tables a DBA made by hand, then init with a new key: it says so.
	psql -q -X -v ON_ERROR_STOP=1 -d postgres -c "CREATE DATABASE ${DB}b"
	psql -X -q -v ON_ERROR_STOP=1 -d "${DB}b" \
	    -f "$BATS_TEST_DIRNAME/../lib/sys/pg/schema.sql"
	run -0 otp-store --store-key="$T/k3" init "${URL}b"
	assert_output --partial "${URL}b: its tables were there (0 tokens): the new store key is recorded in it"
}

@test "a store key readable by others, or not 64 hex digits, is refused" {
	init
	chmod 0640 "$K"
	run -2 otp-keygen --store="$URL" --user=a "${SK[@]}"
	assert_output --partial "store key file is not a regular file of its owner's alone"
	chmod 0600 "$K"
	echo nothex >"$T/bad"
	chmod 0600 "$T/bad"
	run -2 otp-verify --store="$URL" --user=a --store-key="$T/bad" 123456
	assert_output --partial "not 64 hex digits"
}

@test "otp-keygen provisions a user; the code is accepted once, a scratch code once" {
	init
	run -0 --separate-stderr otp-keygen --store="$URL" --user=alice \
	    "${SK[@]}"
	key=$output
	mapfile -t scratch <<<"$stderr"
	[[ ${#scratch[@]} == 5 ]]
	c=$(otp-gen -b --totp "$key")
	run -0 otp-verify --store="$URL" --user=alice "${SK[@]}" "$c"
	assert_output 0
	run -1 otp-verify --store="$URL" --user=alice "${SK[@]}" "$c"
	assert_output --partial "already used"
	run -0 otp-verify --store="$URL" --user=alice "${SK[@]}" \
	    "${scratch[2]}"
	run -1 otp-verify --store="$URL" --user=alice "${SK[@]}" \
	    "${scratch[2]}"
	run -0 otp-store "${SK[@]}" list "$URL"
	assert_output --regexp $'^alice\ttotp\tenabled\tscratch=4\tuses=2\tlast=20'
	# An existing user needs -f.
	run -2 otp-keygen --store="$URL" --user=alice "${SK[@]}"
	assert_output --partial "has a token already (use -f"
	run -0 otp-keygen -f --store="$URL" --user=alice "${SK[@]}"
}

@test "a dump, a listing and the messages hold no secret" {
	init
	run -0 --separate-stderr otp-keygen -x --store="$URL" --user=alice \
	    "${SK[@]}"
	hex=$output
	b32=$(b32 --hex -n <<<"$hex")
	mapfile -t scratch <<<"$stderr"
	pg_dump -h 127.0.0.1 -p "$PGPORT" -U postgres "$DB" >"$T/dump"
	grep -q otp_tokens "$T/dump"
	for s in "$hex" "$b32" "${scratch[@]}"; do
		! grep -qi -- "$s" "$T/dump" || fail "'$s' in the dump"
		! grep -qi -- "$(printf %s "$s" | od -An -tx1 | tr -d ' \n')" \
		    "$T/dump" || fail "'$s' as hex in the dump"
	done
	run -0 otp-store "${SK[@]}" list "$URL"
	refute_output --partial "$b32"
	run -1 otp-verify --store="$URL" --user=alice "${SK[@]}" 000000
	refute_output --partial "$b32"
}

@test "a token copied from a state file answers as the file does, code by code" {
	init
	ga_file "$T/ga" '" TOTP_AUTH' '" WINDOW_SIZE 3' '" RATE_LIMIT 3 30' \
	    12345678 87654321
	run -0 otp-store "${SK[@]}" copy --user=bob "ga:$T/ga" "$URL"
	cp "$T/ga" "$T/ga2"
	chmod 0600 "$T/ga2"
	# The store refuses reuse whatever the file said: so does the file
	# here, for a fair comparison.
	printf '" DISALLOW_REUSE\n' >>"$T/ga2"
	t=1234567890
	for step in 0 0 1 -1 2 5 30 31 32 33 0; do
		now=@$((t + step * 30))
		for c in "$(code_at "$now")" 123456 12345678 "$(code_at @$((t + 30)))"; do
			a=0 b=0
			otp-verify -N "$now" --state "$T/ga2" "$c" >/dev/null \
			    2>&1 || a=$?
			otp-verify -N "$now" --store="$URL" --user=bob \
			    --deny=0 "${SK[@]}" "$c" >/dev/null 2>&1 || b=$?
			[[ $a == "$b" ]] || fail "at $now code $c: file $a, database $b"
		done
		t=$((t + 40))
	done
}

@test "HOTP: the counter moves only on an accept (RFC 4226), a look-ahead within WINDOW_SIZE; a state file keeps its module's rule" {
	init
	ga_file "$T/h" '" HOTP_COUNTER 1' '" WINDOW_SIZE 3'
	run -0 otp-store "${SK[@]}" copy --user=h "ga:$T/h" "$URL"
	run -0 otp-verify --store="$URL" --user=h "${SK[@]}" \
	    "$(otp-gen -c 2 "$RFC_HEX")"
	# Wrong codes (used, behind, out of reach, none) move nothing: the
	# next right code still logs in.  (Five of them are guesses: the
	# attempt limit is another test's, deny=0 here.)
	for c in 2 2 1 0 30 31 32 33; do
		run -1 otp-verify --store="$URL" --user=h "${SK[@]}" --deny=0 \
		    "$(otp-gen -c "$c" "$RFC_HEX")"
	done
	run -1 otp-verify --store="$URL" --user=h "${SK[@]}" --deny=0 000000
	# The used ones are no guesses: 5 counted, not 9.
	[[ $(sql "SELECT failures FROM otp_tokens") == 5 ]]
	run -0 otp-verify --store="$URL" --user=h "${SK[@]}" \
	    "$(otp-gen -c 3 "$RFC_HEX")"
	run -0 otp-verify --store="$URL" --user=h "${SK[@]}" \
	    "$(otp-gen -c 6 "$RFC_HEX")"
	run -1 otp-verify --store="$URL" --user=h "${SK[@]}" \
	    "$(otp-gen -c 30 "$RFC_HEX")"
	# Back to a file: the state came along (7 after 6, the miss none).
	run -0 otp-store "${SK[@]}" copy --user=h "$URL" "ga:$T/back"
	assert_equal "$(grep '^" HOTP_COUNTER ' "$T/back")" '" HOTP_COUNTER 7'
	# There pam_google_authenticator's rule holds: a miss moves it on.
	chmod 0600 "$T/back"
	run -1 otp-verify --state "$T/back" "$(otp-gen -c 30 "$RFC_HEX")"
	assert_equal "$(grep '^" HOTP_COUNTER ' "$T/back")" '" HOTP_COUNTER 8'
	run -0 otp-verify --state "$T/back" "$(otp-gen -c 8 "$RFC_HEX")"
}

@test "an HOTP burst: 40 processes with the next code, 40 with wrong ones; one accept, no lock-out" {
	init
	ga_file "$T/h" '" HOTP_COUNTER 1' '" WINDOW_SIZE 3'
	run -0 otp-store "${SK[@]}" copy --user=hb "ga:$T/h" "$URL"
	c=$(otp-gen -c 1 "$RFC_HEX")
	mkdir "$T/rc"
	for ((i = 0; i < 80; i++)); do
		w=$c
		((i % 2 == 0)) || w=$(printf '%06d' $(((10#$c + i) % 1000000)))
		(rc=0; otp-verify --store="$URL" --user=hb "${SK[@]}" \
		    --deny=0 "$w" >/dev/null 2>&1 || rc=$?; echo $rc >"$T/rc/$i") &
	done
	wait
	ok=$(grep -lx 0 "$T"/rc/* | wc -l)
	bad=$(grep -lvx '[01]' "$T"/rc/* | wc -l)
	[[ $ok == 1 && $bad == 0 ]] || fail "$ok accepts, $bad errors"
	[[ $(sql "SELECT uses FROM otp_tokens") == 1 ]]
	# The 40 wrong ones are guesses, counted since the accept (deny=0:
	# never locked; the attempt limit is another test's); the 39 of the
	# accepted code again are not.
	(($(sql "SELECT failures FROM otp_tokens") <= 40))
	# 79 refusals moved nothing: the token's next code logs in.
	run -0 otp-verify --store="$URL" --user=hb "${SK[@]}" \
	    "$(otp-gen -c 2 "$RFC_HEX")"
	assert_output 0
}

@test "--find-skew and resync: an HOTP token behind the database's counter, and ahead of it" {
	init
	# A counter out of the token's reach (wrong codes under the old
	# rule, a bad copy): the database expects 37, the token is at 3.
	ga_file "$T/h" '" HOTP_COUNTER 37' '" WINDOW_SIZE 3'
	run -0 otp-store "${SK[@]}" copy --user=z "ga:$T/h" "$URL"
	h() { otp-gen -c "$1" "$RFC_HEX"; }
	run -1 otp-verify --store="$URL" --user=z "${SK[@]}" "$(h 3)"
	run -0 --separate-stderr otp-verify --find-skew --store="$URL" \
	    --user=z "${SK[@]}" "$(h 3)" "$(h 4)" "$(h 5)"
	assert_output "-34 counters: the token is at counter 3; next expect -c 6"
	[[ $stderr == *"the store expects counter 37 next: the token is 34 behind"*"otp-store resync sets the store's counter back"* ]] ||
	    fail "$stderr"
	run -0 --separate-stderr otp-store "${SK[@]}" resync "$URL" z \
	    "$(h 3)" "$(h 4)" "$(h 5)"
	assert_output -- -31
	[[ $stderr == *"'z': the codes given are counters 3 to 5, 34 behind the counter the store expected: it is set back to 6" ]] ||
	    fail "$stderr"
	run -1 otp-verify --store="$URL" --user=z "${SK[@]}" "$(h 5)"
	run -0 otp-verify --store="$URL" --user=z "${SK[@]}" "$(h 6)"
	# Ahead, beyond the window: found and moved on.
	run -1 otp-verify --store="$URL" --user=z "${SK[@]}" "$(h 60)"
	run -0 --separate-stderr otp-verify --find-skew --store="$URL" \
	    --user=z "${SK[@]}" "$(h 60)" "$(h 61)"
	assert_output "+53 counters: the token is at counter 60; next expect -c 62"
	[[ $stderr == *"the token is 53 ahead"* ]] || fail "$stderr"
	run -0 --separate-stderr otp-store "${SK[@]}" resync "$URL" z \
	    "$(h 60)" "$(h 61)"
	assert_output 55
	[[ $stderr == *"counters 60 to 61, 53 ahead of the counter the store expected: it moves on to 62" ]] ||
	    fail "$stderr"
	run -0 otp-verify --store="$URL" --user=z "${SK[@]}" "$(h 62)"
}

@test "disable, enable, remove; list shows it" {
	init
	ga_file "$T/ga" '" TOTP_AUTH'
	run -0 otp-store "${SK[@]}" copy --user=carol "ga:$T/ga" "$URL"
	run -0 otp-store "${SK[@]}" disable "$URL" carol
	run -0 otp-store "${SK[@]}" list "$URL"
	assert_output --regexp $'^carol\ttotp\tdisabled'
	run -1 otp-verify -N "$NOW" --store="$URL" --user=carol "${SK[@]}" \
	    "$(code_at "$NOW")"
	assert_output --partial "disabled"
	run -0 otp-store "${SK[@]}" enable "$URL" carol
	run -0 otp-verify -N "$NOW" --store="$URL" --user=carol "${SK[@]}" \
	    "$(code_at "$NOW")"
	run -0 otp-store "${SK[@]}" remove "$URL" carol
	run -1 otp-store "${SK[@]}" remove "$URL" carol
	run -2 otp-verify -N "$NOW" --store="$URL" --user=carol "${SK[@]}" \
	    "$(code_at "$NOW")"
	assert_output --partial "no token for this user"
}

@test "user names of any bytes: SQL, quotes, spaces and control bytes are a row's key, nothing more" {
	init
	ga_file "$T/ga" '" TOTP_AUTH'
	for u in "x'; DROP TABLE otp_tokens; --" 'a"b' 'sp ace' \
	    "$(printf 'nl\nx')" "$(printf 'caf\303\251')" '%s%n'; do
		run -0 otp-store "${SK[@]}" copy --user="$u" "ga:$T/ga" "$URL"
		run -0 otp-verify -N "$NOW" --store="$URL" --user="$u" \
		    "${SK[@]}" "$(code_at "$NOW")"
	done
	[[ $(sql "SELECT count(*) FROM otp_tokens") == 6 ]]
	run -0 otp-store "${SK[@]}" list "$URL"
	assert_line --partial 'nl\012x'
	assert_line --partial 'caf\303\251'
	[[ ${#lines[@]} == 6 ]]
}

@test "a row moved to another user, a changed byte, a wrong key: refused with a reason, exit 2" {
	init
	ga_file "$T/ga" '" TOTP_AUTH'
	run -0 otp-store "${SK[@]}" copy --user=dave "ga:$T/ga" "$URL"
	run -0 otp-store "${SK[@]}" copy --user=erin "ga:$T/ga" "$URL"
	c=$(code_at "$NOW")
	# erin's sealed state under dave's name does not open.
	sql "UPDATE otp_tokens SET state = (SELECT state FROM otp_tokens
	    WHERE login = 'erin'::bytea) WHERE login = 'dave'::bytea"
	run -2 otp-verify -N "$NOW" --store="$URL" --user=dave "${SK[@]}" "$c"
	assert_output --partial "does not decrypt"
	sql "UPDATE otp_tokens SET state = set_byte(state, 20,
	    get_byte(state, 20) # 1) WHERE login = 'erin'::bytea"
	run -2 otp-verify -N "$NOW" --store="$URL" --user=erin "${SK[@]}" "$c"
	assert_output --partial "does not decrypt"
	sql "UPDATE otp_tokens SET state = '\\x00'::bytea"
	run -2 otp-verify -N "$NOW" --store="$URL" --user=erin "${SK[@]}" "$c"
	head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$T/k2"
	echo >>"$T/k2"
	chmod 0600 "$T/k2"
	run -0 otp-store "${SK[@]}" copy --user=fay "ga:$T/ga" "$URL"
	run -2 otp-verify -N "$NOW" --store="$URL" --user=fay \
	    --store-key="$T/k2" "$c"
	run -2 otp-keygen --store="$URL" --user=gus --store-key="$T/k2"
	assert_output --partial "not the one the database was initialised with"
}

@test "no database: exit 2 at once; a row held locked: refused at the deadline, then served" {
	init
	ga_file "$T/ga" '" TOTP_AUTH'
	run -0 otp-store "${SK[@]}" copy --user=hal "ga:$T/ga" "$URL"
	run -2 otp-verify --store="postgresql://postgres@127.0.0.1:1/x" \
	    --user=hal "${SK[@]}" 123456
	assert_output --partial "Connection refused"
	# Another transaction holds hal's row for 4 s.
	psql -X -q -d "$DB" -c "BEGIN; SELECT 1 FROM otp_tokens FOR UPDATE;
	    SELECT pg_sleep(4); COMMIT" >/dev/null &
	sleep 0.5
	c=$(otp-gen --totp "$RFC_HEX")
	# Bounded, not timed: the deadline ends the wait, far before the
	# row is free (a loaded or sanitized run starts slowly).
	s=$(date +%s%N)
	run -2 timeout 20 otp-verify --store="$URL" --user=hal "${SK[@]}" \
	    --store-timeout=800ms "$c"
	e=$(date +%s%N)
	assert_output --partial "deadline"
	(((e - s) / 1000000 < 3300)) || fail "took $(((e - s) / 1000000)) ms"
	wait
	run -0 otp-verify --store="$URL" --user=hal "${SK[@]}" "$c"
}

@test "50 processes with one code, the real clock: exactly one accept" {
	init
	ga_file "$T/ga" '" TOTP_AUTH' '" WINDOW_SIZE 3'
	run -0 otp-store "${SK[@]}" copy --user=race "ga:$T/ga" "$URL"
	c=$(otp-gen --totp "$RFC_HEX")
	mkdir "$T/rc"
	for ((i = 0; i < 50; i++)); do
		(rc=0; otp-verify --store="$URL" --user=race "${SK[@]}" \
		    "$c" >/dev/null 2>&1 || rc=$?; echo $rc >"$T/rc/$i") &
	done
	wait
	ok=$(grep -lx 0 "$T"/rc/* | wc -l)
	bad=$(grep -lvx '[01]' "$T"/rc/* | wc -l)
	[[ $ok == 1 && $bad == 0 ]] || fail "$ok accepts, $bad errors"
	[[ $(sql "SELECT uses FROM otp_tokens") == 1 ]]
}

@test "otp-verify --radius --store=postgresql://: accepted once, names of any bytes" {
	init
	ga_file "$T/ga" '" TOTP_AUTH'
	run -0 otp-store "${SK[@]}" copy --user='o'\''brien' "ga:$T/ga" "$URL"
	c=$(otp-gen --totp "$RFC_HEX")
	USER_NAME="\"o'brien\"" USER_PASSWORD="\"$c\"" \
	    NAS_IDENTIFIER='"vpn1"' NAS_IP_ADDRESS=192.0.2.7 run -0 \
	    otp-verify --radius --store="$URL" "${SK[@]}"
	assert_output --partial "OTP accepted"
	USER_NAME="\"o'brien\"" USER_PASSWORD="\"$c\"" run -1 \
	    otp-verify --radius --store="$URL" "${SK[@]}"
	# The audit trail names the RADIUS client that asked.
	run -0 otp-store log "$URL"
	assert_line --index 0 --regexp $'\to\'brien\t[^\t]+ nas=vpn1/192\\.0\\.2\\.7\taccept\tcode$'
	assert_line --index 1 --regexp $'\to\'brien\t[^\t]+\trefuse\t'
}

@test "store options need a database; database options that do not apply are refused" {
	run -2 otp-verify --store-key=/x --state "$T/s" 123456
	assert_output --partial "need --store=postgresql"
	run -2 otp-verify --store="$URL" -w 3 --user=a 123456
	assert_output --partial "the database sets the parameters"
	run -2 otp-keygen --store="$URL"
	assert_output --partial "needs --user=NAME"
	run -2 otp-verify --store="$URL" --store-timeout=forever --user=a 1
	assert_output --partial "--store-timeout"
	OTP_STORE_MODULE=/nonexistent run -2 otp-verify --store="$URL" \
	    --user=a 123456
	assert_output --partial "cannot be loaded"
}

@test "a server that stops answering mid-login: refused at the deadline, the cancel bounded too" {
	init
	ga_file "$T/ga" '" TOTP_AUTH'
	run -0 otp-store "${SK[@]}" copy --user=ivy "ga:$T/ga" "$URL"
	pm=$(head -n 1 "$PG_DATA/postmaster.pid")
	[[ $pm =~ ^[0-9]+$ ]] || fail "no postmaster pid"
	# The row held, so the login waits in its query; then the postmaster
	# freezes: the cancel request it sends at the deadline gets no answer.
	psql -X -q -d "$DB" -c "BEGIN; SELECT 1 FROM otp_tokens FOR UPDATE;
	    SELECT pg_sleep(6); COMMIT" >/dev/null &
	sleep 0.5
	(sleep 0.4; kill -STOP "$pm") &
	# Without a bound on the cancel this would wait for ever: the server
	# is continued only once the command is back (timeout: a failure,
	# not a hang).  The bound is loose: a loaded or sanitized run starts
	# slowly; the server stays frozen for much longer than it.
	s=$(date +%s%N)
	run -2 timeout 20 otp-verify --store="$URL" --user=ivy "${SK[@]}" \
	    --store-timeout=1200ms "$(otp-gen --totp "$RFC_HEX")"
	e=$(date +%s%N)
	kill -CONT "$pm"
	wait
	assert_output --partial "deadline"
	(((e - s) / 1000000 < 4500)) || fail "took $(((e - s) / 1000000)) ms"
}

@test "a password in the URL never reaches a message" {
	run -2 otp-verify --store="postgresql://u:s3cretpw@127.0.0.1:1/x" \
	    --user=a "${SK[@]}" 123456
	refute_output --partial s3cretpw
	assert_output --partial "postgresql://u@127.0.0.1:1/x"
	run -2 otp-verify --store="postgresql://u@127.0.0.1:1/x?password=s3cretpw" \
	    --user=a "${SK[@]}" 123456
	refute_output --partial s3cretpw
	assert_output --partial "postgresql://u@127.0.0.1:1/x:"
	run -2 otp-verify \
	    --store="postgresql://u@127.0.0.1:1/x?a=b&password=s3cretpw&c=d" \
	    --user=a "${SK[@]}" 123456
	assert_output --partial "postgresql://u@127.0.0.1:1/x?a=b&c=d:"
	run -2 otp-verify \
	    --store="postgresql://u@127.0.0.1:1/x?a=b&password=s3cretpw" \
	    --user=a "${SK[@]}" 123456
	assert_output --partial "postgresql://u@127.0.0.1:1/x?a=b:"
	run -2 otp-store "${SK[@]}" list "postgresql://u:s3cretpw@127.0.0.1:1/x"
	refute_output --partial s3cretpw
}

@test "resync in the database: the skew from two codes in a row, under the row's lock; scratch codes kept" {
	init
	ga_file "$T/ga" '" TOTP_AUTH' 12345678
	run -0 otp-store "${SK[@]}" copy --user=kim "ga:$T/ga" "$URL"
	now=$(date +%s)
	a=$(otp-gen --totp -N "@$((now + 1500))" "$RFC_HEX")
	b=$(otp-gen --totp -N "@$((now + 1530))" "$RFC_HEX")
	run -0 --separate-stderr otp-store "${SK[@]}" resync "$URL" kim "$a" "$b"
	((output >= 50 && output <= 52)) || fail "skew $output"
	[[ $stderr == *"'kim': the token's clock is $output steps ahead of ours"* ]] ||
	    fail "$stderr"
	# The phone's next code works, the ones given are used, the
	# scratch code is still there.
	run -0 otp-verify --store="$URL" --user=kim "${SK[@]}" \
	    "$(otp-gen --totp -N "@$((now + 1560))" "$RFC_HEX")"
	run -1 otp-verify --store="$URL" --user=kim "${SK[@]}" "$b"
	run -0 otp-verify --store="$URL" --user=kim "${SK[@]}" 12345678
	run -1 otp-store "${SK[@]}" resync "$URL" kim 111111 222222
	assert_output --partial "give codes in a row"
	run -1 otp-store "${SK[@]}" resync "$URL" nobody "$a" "$b"
	assert_output --partial "no token"
}

@test "a whole users file into the database: never used, used, PIN and TOTP lines each log in with pam_oath's next code; its window kept" {
	init
	h() { otp-gen -c "$1" "$RFC_HEX"; }
	printf '%s\n' "# a site's users" "HOTP	hn	-	$RFC_HEX" \
	    "HOTP	hu	-	$RFC_HEX	7	$(h 7)	2026-12-01T10:00:00L" \
	    "HOTP	hp	4321	$RFC_HEX	2	$(h 2)" \
	    "HOTP/T30	ht	-	$RFC_HEX" "HOTP	hu	-	$RFC_HEX	40" >"$T/users"
	chmod 0600 "$T/users"
	# No --user: every token of the file (a user's first line).
	run -0 --separate-stderr otp-store "${SK[@]}" copy "oath:$T/users" "$URL"
	assert_equal "$stderr" "otp-store: $URL: copied 4 tokens"
	run -0 otp-store "${SK[@]}" list "$URL"
	assert_line --index 0 --partial $'hn\thotp'
	assert_line --index 1 --partial $'hp\thotp'
	assert_line --index 2 --partial $'ht\ttotp'
	assert_line --index 3 --partial $'hu\thotp'
	V=(otp-verify --store="$URL" "${SK[@]}" -N "$NOW")
	# Never used: its first code, counter 0.
	run -0 "${V[@]}" --user=hn "$(h 0)"
	# Used at 7: 7 again is refused, 8 is next.
	run -1 "${V[@]}" --user=hu "$(h 7)"
	run -0 "${V[@]}" --user=hu "$(h 8)"
	# The PIN first, then the code after its last (2).
	run -1 "${V[@]}" --user=hp "$(h 3)"
	run -0 "${V[@]}" --user=hp "4321$(h 3)"
	run -0 "${V[@]}" --user=ht "$(code_at "$NOW")"
	# pam_oath's window=5: 5 codes past the last one, 5 steps either
	# side; --window=2 keeps 2.
	run -0 otp-store -f "${SK[@]}" copy "oath:$T/users" "$URL"
	run -0 "${V[@]}" --user=hn "$(h 5)"
	run -1 "${V[@]}" --user=hu "$(h 13)"
	run -0 "${V[@]}" --user=hu "$(h 12)"
	run -0 "${V[@]}" --user=ht "$(code_at @$((1234567890 - 150)))"
	run -0 otp-store -f "${SK[@]}" --window=2 copy "oath:$T/users" "$URL"
	run -1 "${V[@]}" --user=hn "$(h 3)"
	run -0 "${V[@]}" --user=hn "$(h 2)"
	run -1 "${V[@]}" --user=hu "$(h 10)"
	run -0 "${V[@]}" --user=hu "$(h 9)"
	run -1 "${V[@]}" --user=ht "$(code_at @$((1234567890 - 90)))"
	run -0 "${V[@]}" --user=ht "$(code_at @$((1234567890 - 60)))"
	run -2 otp-store "${SK[@]}" --window=50 copy "oath:$T/users" "$URL"
	assert_output --partial "from 0 to 49"
	run -2 otp-store "${SK[@]}" --window=2 copy --user=x "ga:$T/h" "$URL"
	assert_output --partial "--window is a users file's"
	# A token the database cannot hold is named; the rest are copied.
	printf 'MOTP\tmo\t1234\te3152afee62599c8\n' >>"$T/users"
	run -2 --separate-stderr otp-store -f "${SK[@]}" copy "oath:$T/users" "$URL"
	[[ $stderr == *"mo: "*"Mobile-OTP"*"copied 4 tokens, 1 not copied (above)" ]] ||
	    fail "$stderr"
}

@test "copy a users file into the database and back: counters kept, lines as pam_oath writes them" {
	init
	printf '%s\n' "HOTP	ann	-	$RFC_HEX	9	520489" \
	    "HOTP/T30	ben	-	$RFC_HEX" >"$T/users"
	chmod 0600 "$T/users"
	run -0 otp-store "${SK[@]}" copy --user=ann --user=ben "oath:$T/users" \
	    "$URL"
	run -0 otp-store "${SK[@]}" list "$URL"
	assert_line --partial $'ann\thotp'
	assert_line --partial $'ben\ttotp'
	# ann's line took counter 9: 10 is next, in the database too.
	run -1 otp-verify --store="$URL" --user=ann "${SK[@]}" \
	    "$(otp-gen -c 9 "$RFC_HEX")"
	run -0 otp-verify --store="$URL" --user=ann "${SK[@]}" \
	    "$(otp-gen -c 11 "$RFC_HEX")"
	run -0 otp-store "${SK[@]}" copy --user=ann --user=ben "$URL" \
	    "oath:$T/back"
	grep -qx "HOTP	ann	-	$RFC_HEX	12" "$T/back"
	grep -qx "HOTP/T30	ben	-	$RFC_HEX	0" "$T/back" ||
	    grep -qx "HOTP/T30	ben	-	$RFC_HEX" "$T/back"
	run -0 otp-verify --usersfile "$T/back" --user=ann \
	    "$(otp-gen -c 12 "$RFC_HEX")"
}

@test "a users file's PIN and 8 digits come into the database and go back; SHA256 has no users-file line" {
	init
	printf '%s\n' "HOTP/E/8	cy	pin7	$RFC_HEX	4" >"$T/users"
	chmod 0600 "$T/users"
	run -0 otp-store "${SK[@]}" copy --user=cy "oath:$T/users" "$URL"
	# COUNTER 4 is the next code's; 5 is within the look-ahead.
	c=$(oathtool --hotp -d 8 -c 5 "$RFC_HEX")
	run -1 otp-verify --store="$URL" --user=cy "${SK[@]}" "$c"
	run -0 otp-verify --store="$URL" --user=cy "${SK[@]}" "pin7$c"
	run -0 otp-store "${SK[@]}" copy --user=cy "$URL" "oath:$T/back"
	grep -qx "HOTP/E/8	cy	pin7	$RFC_HEX	6" "$T/back"
	run -0 otp-verify --usersfile "$T/back" --user=cy -d 8 \
	    "pin7$(oathtool --hotp -d 8 -c 6 "$RFC_HEX")"
	run -0 otp-keygen --store="$URL" --user=sha "${SK[@]}" -a sha256
	run -2 otp-store "${SK[@]}" copy --user=sha "$URL" "oath:$T/back"
	assert_output --partial "sha"
	assert_output --partial "cannot be held by the other store"
}

@test "digits, algorithm and a PIN: oathtool's codes after the PIN, scratch codes too; no PIN in a dump" {
	init
	run -0 --separate-stderr otp-keygen --store="$URL" --user=bob \
	    "${SK[@]}" --digits=8 --algorithm=sha256 --pin=4u2y
	key=$output
	mapfile -t scratch <<<"$stderr"
	c=$(oathtool --totp=sha256 -d 8 -b "$key")
	run -1 otp-verify --store="$URL" --user=bob "${SK[@]}" "$c"
	run -1 otp-verify --store="$URL" --user=bob "${SK[@]}" "4u2z$c"
	run -0 otp-verify --store="$URL" --user=bob "${SK[@]}" "4u2y$c"
	run -1 otp-verify --store="$URL" --user=bob "${SK[@]}" "4u2y$c"
	assert_output --partial "already used"
	run -1 otp-verify --store="$URL" --user=bob "${SK[@]}" "${scratch[0]}"
	run -0 otp-verify --store="$URL" --user=bob "${SK[@]}" \
	    "4u2y${scratch[0]}"
	# A 6-digit SHA1 code of the same key is no code of this token.
	sleep_past_step=$(oathtool --totp -b "$key")
	run -1 otp-verify --store="$URL" --user=bob "${SK[@]}" \
	    "4u2y$sleep_past_step"
	pg_dump -h 127.0.0.1 -p "$PGPORT" -U postgres "$DB" >"$T/dump"
	! grep -q 4u2y "$T/dump" || fail "the PIN is in the dump"
	# A new key with -f keeps the PIN unless --pin gives one.
	run -0 --separate-stderr otp-keygen -f --store="$URL" --user=bob \
	    "${SK[@]}"
	c=$(oathtool --totp -b "$output")
	run -1 otp-verify --store="$URL" --user=bob "${SK[@]}" "$c"
	run -0 otp-verify --store="$URL" --user=bob "${SK[@]}" "4u2y$c"
	# Through RADIUS: PIN then code as the password.
	run -0 --separate-stderr otp-keygen -f --store="$URL" --user=bob "${SK[@]}" \
	    --digits=7 --algorithm=sha512 --pin=@<(printf 'p1n\n')
	key=$output
	c=$(oathtool --totp=sha512 -d 7 -b "$key")
	USER_NAME='"bob"' USER_PASSWORD="\"p1n$c\"" run -0 \
	    otp-verify --radius --store="$URL" "${SK[@]}"
	assert_output --partial "OTP accepted"
}

@test "HOTP of 7 digits; a PIN that is no PIN line, digits out of range are refused" {
	init
	run -0 --separate-stderr otp-keygen --store="$URL" --user=carol "${SK[@]}" --hotp \
	    --digits=7
	key=$output
	run -1 otp-verify --store="$URL" --user=carol "${SK[@]}" \
	    "$(oathtool --hotp -d 6 -c 1 -b "$key")"
	run -0 otp-verify --store="$URL" --user=carol "${SK[@]}" \
	    "$(oathtool --hotp -d 7 -c 2 -b "$key")"
	run -1 otp-verify --store="$URL" --user=carol "${SK[@]}" \
	    "$(oathtool --hotp -d 7 -c 2 -b "$key")"
	run -2 otp-keygen --store="$URL" --user=d "${SK[@]}" --digits=9
	assert_output --partial "6 to 8 digits"
	run -2 otp-keygen --store="$URL" --user=d "${SK[@]}" --pin='a b'
	assert_output --partial "no blank"
	run -2 otp-keygen --state="$T/ga" --digits=8
	run -2 otp-keygen --state="$T/ga" --pin=1234
	[[ ! -e $T/ga ]]
}

@test "a token of 8 digits, SHA256 or a PIN is not copied into a state file, which would drop them" {
	init
	for o in --digits=8 --algorithm=sha256 --pin=77; do
		run -0 otp-keygen -f --store="$URL" --user=eve "${SK[@]}" "$o"
		run -2 otp-store "${SK[@]}" copy --user=eve "$URL" "ga:$T/ga"
		assert_output --partial "'eve': a token of"
		assert_output --partial "a state file holds 6 digits over SHA1 without a PIN"
		[[ ! -e $T/ga ]]
	done
	# A new token (-f alone would keep the PIN): 6 SHA1 digits copy.
	run -0 otp-store "${SK[@]}" remove "$URL" eve
	run -0 otp-keygen --store="$URL" --user=eve "${SK[@]}"
	run -0 otp-store "${SK[@]}" copy --user=eve "$URL" "ga:$T/ga"
	[[ -s $T/ga ]]
}

@test "attempt limit: 5 wrong codes from two processes at once lock the token in its row; the right one is refused; unlock, or the unlock time, ends it" {
	init
	ga_file "$T/ga" '" TOTP_AUTH'
	run -0 otp-store "${SK[@]}" copy --user=bob "ga:$T/ga" "$URL"
	V=(otp-verify -N "$NOW" --store="$URL" --user=bob "${SK[@]}")
	# Two servers guessing at once: 3 + 3 wrong codes, one count.
	for p in 1 2; do
		(for i in 1 2 3; do "${V[@]}" 00000$i &>/dev/null || :; done) &
	done
	wait
	f=$(sql "SELECT failures FROM otp_tokens")
	[[ $f == 5 ]] || fail "failures: $f $(otp-store log "$URL")"
	run -1 "${V[@]}" "$(code_at "$NOW")"
	assert_output --partial "locked out"
	run -0 otp-store "${SK[@]}" list "$URL"
	assert_output --regexp $'\tfails=5\tlocked=20[0-9-]+T'
	# The administrator clears it; the code logs in, the count goes.
	run -0 otp-store "${SK[@]}" unlock "$URL" bob
	run -0 "${V[@]}" "$(code_at "$NOW")"
	run -0 otp-store "${SK[@]}" list "$URL"
	assert_output --regexp $'\tfails=0\tlocked=no\tfrom=[^-]'
	run -1 otp-store "${SK[@]}" unlock "$URL" nobody
	# --deny and --unlock-time for a database: 2 wrong codes lock it
	# for 60 s of the clock the login reads.
	t=$((1234567890 + 300))
	W=(otp-verify --store="$URL" --user=bob --deny=2 --unlock-time=60 "${SK[@]}")
	run -1 "${W[@]}" -N @$t 000001
	run -1 "${W[@]}" -N @$t 000002
	run -1 "${W[@]}" -N @$((t + 59)) "$(code_at @$((t + 59)))"
	assert_output --partial "locked out"
	run -0 "${W[@]}" -N @$((t + 61)) "$(code_at @$((t + 61)))"
	# --deny=0: counted, never locked.
	for i in 1 2 3 4 5 6; do
		run -1 "${V[@]}" --deny=0 -N @$((t + 120)) 00000$i
	done
	run -0 "${V[@]}" --deny=0 -N @$((t + 120)) "$(code_at @$((t + 120)))"
	# A code used already (a host that sends the same answer again) is
	# no guess: refused, not counted.
	c=$(code_at @$((t + 150)))
	run -0 "${V[@]}" -N @$((t + 150)) "$c"
	for i in 1 2 3 4 5 6; do
		run -1 "${V[@]}" -N @$((t + 150)) "$c"
	done
	[[ $(sql "SELECT failures FROM otp_tokens") == 0 ]]
	run -0 "${V[@]}" -N @$((t + 180)) "$(code_at @$((t + 180)))"
	run -2 otp-verify --state "$T/ga" --deny=3 123456
	assert_output --partial "--deny needs --usersfile or --store=postgresql"
}

@test "freshness: disabled, failures or gen changed by SQL without the key: the row does not open, refused and logged" {
	init
	ga_file "$T/ga" '" TOTP_AUTH'
	run -0 otp-store "${SK[@]}" copy --user=bob "ga:$T/ga" "$URL"
	run -0 otp-store "${SK[@]}" disable "$URL" bob
	sql "UPDATE otp_tokens SET disabled = false" >/dev/null
	run -2 otp-verify -N "$NOW" --store="$URL" --user=bob "${SK[@]}" \
	    "$(code_at "$NOW")"
	assert_output --partial "does not open"
	run -0 otp-store log "$URL"
	assert_line --regexp $'\tbob\t[^\t]+\terror\tthe row does not open'
	# The administrator's enable seals it anew only from a row that
	# opens: the flipped one stays refused.
	run -2 otp-store "${SK[@]}" enable "$URL" bob
	sql "UPDATE otp_tokens SET disabled = true" >/dev/null
	run -0 otp-store "${SK[@]}" enable "$URL" bob
	run -0 otp-verify -N "$NOW" --store="$URL" --user=bob "${SK[@]}" \
	    "$(code_at "$NOW")"
	# Failures counted, then reset by SQL: refused.
	run -1 otp-verify -N "$NOW" --store="$URL" --user=bob "${SK[@]}" 000000
	sql "UPDATE otp_tokens SET failures = 0" >/dev/null
	run -2 otp-verify -N @$((1234567890 + 60)) --store="$URL" --user=bob \
	    "${SK[@]}" "$(code_at @$((1234567890 + 60)))"
	sql "UPDATE otp_tokens SET failures = 1, gen = gen + 1" >/dev/null
	run -2 otp-verify -N @$((1234567890 + 60)) --store="$URL" --user=bob \
	    "${SK[@]}" "$(code_at @$((1234567890 + 60)))"
	sql "UPDATE otp_tokens SET gen = gen - 1" >/dev/null
	run -0 otp-verify -N @$((1234567890 + 60)) --store="$URL" --user=bob \
	    "${SK[@]}" "$(code_at @$((1234567890 + 60)))"
	# reseal: every row sealed anew, a higher generation.
	g0=$(sql "SELECT gen FROM otp_tokens")
	run -0 otp-store "${SK[@]}" reseal "$URL"
	assert_output --partial "1 token sealed anew"
	(($(sql "SELECT gen FROM otp_tokens") > g0))
	run -0 otp-verify -N @$((1234567890 + 90)) --store="$URL" --user=bob \
	    "${SK[@]}" "$(code_at @$((1234567890 + 90)))"
	# A token replaced takes a generation above the one it replaces,
	# however far ahead the clock that wrote that one was.
	sql "UPDATE otp_tokens SET gen = 9000000000000000" >/dev/null
	run -0 otp-store -f "${SK[@]}" copy --user=bob "ga:$T/ga" "$URL"
	[[ $(sql "SELECT gen FROM otp_tokens") == 9000000000000001 ]]
	run -0 otp-verify -N @$((1234567890 + 120)) --store="$URL" --user=bob \
	    "${SK[@]}" "$(code_at @$((1234567890 + 120)))"
}

@test "audit trail: an entry per decision, in the login's transaction, with server and reason and no code; log filters; prune" {
	init
	ga_file "$T/ga" '" TOTP_AUTH' 12345678
	run -0 otp-store "${SK[@]}" copy --user=alice "ga:$T/ga" "$URL"
	run -0 otp-store "${SK[@]}" copy --user=bob "ga:$T/ga" "$URL"
	c=$(code_at "$NOW")
	V=(otp-verify -N "$NOW" --store="$URL" "${SK[@]}")
	run -0 "${V[@]}" --user=alice "$c"
	run -1 "${V[@]}" --user=alice "$c"
	run -1 "${V[@]}" --user=bob 654321
	run -0 "${V[@]}" --user=bob 12345678
	run -2 "${V[@]}" --user=carol "$c"
	run -0 otp-store "${SK[@]}" disable "$URL" bob
	run -1 "${V[@]}" --user=bob "$c"
	# A dry run decides, records nothing.
	run -0 otp-verify --dry-run -N "$NOW" --store="$URL" "${SK[@]}" \
	    --user=bob 12345678 || true
	host=$(hostname)
	run -0 otp-store log "$URL"
	assert_equal "${#lines[@]}" 7
	assert_line --index 0 --regexp $'^20[0-9-]+T[0-9:]+Z\talice\t'"$host"$'\taccept\tcode$'
	assert_line --index 1 --regexp $'\talice\t.*\trefuse\t'
	assert_line --index 2 --regexp $'\tbob\t.*\trefuse\twrong code$'
	assert_line --index 3 --regexp $'\tbob\t.*\taccept\tscratch code$'
	assert_line --index 4 --regexp $'\tcarol\t.*\trefuse\tno token$'
	assert_line --index 5 --regexp $'\tbob\t.*\tadmin\tdisabled$'
	assert_line --index 6 --regexp $'\tbob\t.*\trefuse\ttoken disabled$'
	# No code, no scratch code anywhere in a dump of the trail.
	pg_dump -h 127.0.0.1 -p "$PGPORT" -U postgres -t otp_log "$DB" >"$T/log"
	grep -q 'otp_log' "$T/log"
	[[ $(grep -c $'\taccept\t\|\trefuse\t\|\tadmin\t' "$T/log") == 7 ]]
	for s in "$c" 654321 12345678; do
		! grep -q -- "$s" "$T/log" || fail "'$s' in the audit trail"
	done
	run -0 otp-store log --user=bob "$URL"
	assert_equal "${#lines[@]}" 4
	refute_output --partial alice
	run -0 otp-store log --since='1 hour ago' --user=alice "$URL"
	assert_equal "${#lines[@]}" 2
	run -0 otp-store log --since='+1 hour' "$URL"
	assert_output ""
	run -2 otp-store log --since=yesterdayish "$URL"
	assert_output --partial "--since"
	run -0 otp-store prune --before='1 hour ago' "$URL"
	assert_output --partial "0 audit entries removed"
	run -0 otp-store prune --before='+1 hour' "$URL"
	assert_output --partial "7 audit entries removed"
	[[ $(sql "SELECT count(*) FROM otp_log") == 0 ]]
	# list: the last use and where it came from.
	run -0 otp-store "${SK[@]}" list "$URL"
	assert_line --regexp $'^alice\t.*\tuses=1\t.*\tfails=0\tlocked=no\tfrom='"$host"'$'
	run -0 otp-store remove "$URL" bob
	run -0 otp-store log "$URL"
	assert_output --regexp $'^20[^\t]+\tbob\t'"$host"$'\tadmin\tremoved$'
}

@test "schema version 1 upgraded in place by init: its rows keep working, a disabled one stays disabled and bound" {
	psql -X -q -v ON_ERROR_STOP=1 -d "$DB" \
	    -f "$BATS_TEST_DIRNAME/vectors/pg-store-v1.sql" >/dev/null
	cp "$BATS_TEST_DIRNAME/vectors/pg-store-v1.key" "$K"
	chmod 0600 "$K"
	# Before the upgrade: the tools say so, nothing is let in.
	run -2 otp-verify -N "$NOW" --store="$URL" --user=old "${SK[@]}" \
	    "$(code_at "$NOW")"
	assert_output --partial "(otp-store init)"
	run -2 otp-store "${SK[@]}" list "$URL"
	assert_output --partial "(otp-store init)"
	run -0 otp-store "${SK[@]}" init "$URL"
	refute_output --partial written
	[[ $(sql "SELECT version FROM otp_schema") == 2 ]]
	[[ $(sql "SELECT count(*) FROM otp_tokens WHERE gen > 0") == 2 ]]
	run -0 otp-verify -N "$NOW" --store="$URL" --user=old "${SK[@]}" \
	    "$(code_at "$NOW")"
	run -0 otp-verify -N "$NOW" --store="$URL" --user=old "${SK[@]}" \
	    12345678
	run -1 otp-verify -N "$NOW" --store="$URL" --user=dis "${SK[@]}" \
	    "$(code_at "$NOW")"
	assert_output --partial disabled
	sql "UPDATE otp_tokens SET disabled = false WHERE login = 'dis'" >/dev/null
	run -2 otp-verify -N "$NOW" --store="$URL" --user=dis "${SK[@]}" \
	    "$(code_at "$NOW")"
	# Again: nothing changes.
	g=$(sql "SELECT gen FROM otp_tokens WHERE login = 'old'")
	run -0 otp-store "${SK[@]}" init "$URL"
	[[ $(sql "SELECT gen FROM otp_tokens WHERE login = 'old'") == "$g" ]]
}

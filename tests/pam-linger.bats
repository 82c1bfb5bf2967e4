#!/usr/bin/env bats
# pam-linger.bats - linger=N in pam_otp.so through pamtester and
# pam_wrapper (tests/pam/lib.bash): the same answer from the same user
# and client taken again for N sliding seconds, any other answer checked
# as usual, in every file store.  The database's are in pg-pam.bats.

bats_require_minimum_version 1.5.0

setup_file() {
	load common
	load pam/lib
	pam_setup_file
}

setup() {
	load common
	load pam/lib
	pam_setup
	PAM_ENV=()
	MOD=otp
	C0=$(totp $T0)
}

# wrong CODE: a 6-digit code that is not CODE.
wrong() {
	printf '%06d\n' $(((10#$1 + 500000) % 1000000))
}

# ga_state LINE...: the otp module's state file, reuse refused.
ga_state() {
	state_file "$D/otp/state" "$KEY" '" DISALLOW_REUSE' '" TOTP_AUTH' "$@"
}

@test "linger: the same answer from the same client again, without using a code" {
	ga_state
	otp_service linger=60
	pam_run t "$C0" -I rhost=127.0.0.1
	accepted
	assert_output --regexp "SYSLOG 6: .*accepted verification code"
	grep -Eq '^" LINGER 300060 [0-9a-f]{32} [0-9a-f]{64}$' "$D/otp/state"
	run grep -c LINGER "$D/otp/state"
	assert_output 1
	NOW=$((T0 + 5))
	pam_run t "$C0" -I rhost=127.0.0.1
	accepted
	assert_output --regexp "SYSLOG 6: .*accepted lingering answer"
	no_secret_logged "$C0"
	# Without linger the same code is a code used already.
	otp_service
	pam_run t "$C0" -I rhost=127.0.0.1
	refused
}

@test "linger: never from another client, nor without one" {
	ga_state
	otp_service linger=60
	pam_run t "$C0" -I rhost=127.0.0.1
	accepted
	pam_run t "$C0" -I rhost=127.0.0.2
	refused
	pam_run t "$C0"
	refused
	pam_run t "$C0" -I rhost=
	refused
	# Nor for another user of the same file (user=): nobody, or root
	# when the suite runs as nobody.
	local other=nobody
	[[ $(id -un) != nobody ]] || other=root
	otp_service linger=60 "user=$(id -u)"
	pam_run t "$C0" -I rhost=127.0.0.1
	accepted
	nobody_db
	PAM_RUN_USER=$other pam_run t "$C0" -I rhost=127.0.0.1
	refused
}

@test "linger: no client, no record" {
	ga_state
	otp_service linger=60
	pam_run t "$C0"
	accepted
	! grep -q LINGER "$D/otp/state"
}

@test "linger: a new code is checked while one lingers, a wrong one refused" {
	local c1
	ga_state
	otp_service linger=600
	pam_run t "$C0" -I rhost=127.0.0.1
	accepted
	NOW=$((T0 + 30))
	c1=$(totp $NOW)
	pam_run t "$(wrong "$c1")" -I rhost=127.0.0.1
	refused
	assert_output --regexp "SYSLOG 3: .*nvalid verification code"
	pam_run t "$c1" -I rhost=127.0.0.1
	accepted
	assert_output --regexp "SYSLOG 6: .*accepted verification code"
	# Both answers linger now, each its own record.
	run grep -c LINGER "$D/otp/state"
	assert_output 2
	pam_run t "$C0" -I rhost=127.0.0.1
	accepted
	pam_run t "$c1" -I rhost=127.0.0.1
	accepted
}

@test "linger: the time slides with each use, and runs out" {
	ga_state
	otp_service linger=60
	pam_run t "$C0" -I rhost=127.0.0.1
	accepted
	NOW=$((T0 + 50))
	pam_run t "$C0" -I rhost=127.0.0.1
	accepted
	grep -q '^" LINGER 300110 ' "$D/otp/state"
	# Unmoved within the same second: the file is not written.
	cp -p "$D/otp/state" "$D/before"
	pam_run t "$C0" -I rhost=127.0.0.1
	accepted
	cmp "$D/before" "$D/otp/state"
	NOW=$((T0 + 100))
	pam_run t "$C0" -I rhost=127.0.0.1
	accepted
	NOW=$((T0 + 161))
	pam_run t "$C0" -I rhost=127.0.0.1
	refused
}

@test "linger: at most four records, the one that runs out first replaced" {
	local i c
	ga_state
	otp_service linger=3600
	for i in 0 1 2 3 4; do
		NOW=$((T0 + 30 * i))
		c=$(totp $NOW)
		pam_run t "$c" -I rhost=127.0.0.1
		accepted
	done
	run grep -c LINGER "$D/otp/state"
	assert_output 4
	pam_run t "$C0" -I rhost=127.0.0.1
	refused
	pam_run t "$(totp $((T0 + 30)))" -I rhost=127.0.0.1
	accepted
	pam_run t "$c" -I rhost=127.0.0.1
	accepted
}

@test "linger: RATE_LIMIT neither counts nor stops a lingering answer" {
	local i
	ga_state '" RATE_LIMIT 3 30'
	otp_service linger=60
	pam_run t "$C0" -I rhost=127.0.0.1
	accepted
	for i in 1 2 3 4 5 6 7 8; do
		pam_run t "$C0" -I rhost=127.0.0.1
		accepted
	done
	run grep -c '^" RATE_LIMIT 3 30 300000$' "$D/otp/state"
	assert_output 1
	# A wrong answer is an attempt as ever.
	pam_run t 000000 -I rhost=127.0.0.1
	refused
	pam_run t 000001 -I rhost=127.0.0.1
	refused
	pam_run t "$C0" -I rhost=127.0.0.1
	accepted
	pam_run t 000002 -I rhost=127.0.0.1
	refused
	assert_output --regexp "SYSLOG 3: .*RATE_LIMIT"
}

@test "linger: a scratch code accepted lingers; forward_pass hands the password on" {
	ga_state 12345678
	service t "auth required @MOD@ secret=@DIR@/state forward_pass linger=60" \
	    "auth required pam_exec.so expose_authtok $BATS_TEST_DIRNAME/pam/record-authtok.sh @DIR@/fwd"
	pam_run t "pw12345678" -I rhost=127.0.0.1
	accepted
	[[ $(cat "$D/otp/fwd") == pw ]]
	rm "$D/otp/fwd"
	pam_run t "pw12345678" -I rhost=127.0.0.1
	accepted
	assert_output --regexp "SYSLOG 6: .*accepted lingering answer"
	[[ $(cat "$D/otp/fwd") == pw ]]
	rm "$D/otp/fwd"
	pam_run t "hunter2$C0" -I rhost=127.0.0.1
	accepted
	[[ $(cat "$D/otp/fwd") == hunter2 ]]
	rm "$D/otp/fwd"
	pam_run t "hunter2$C0" -I rhost=127.0.0.1
	accepted
	[[ $(cat "$D/otp/fwd") == hunter2 ]]
	# Another password before the same code is another answer.
	pam_run t "hunter3$C0" -I rhost=127.0.0.1
	refused
}

@test "linger: pam_google_authenticator.so takes the file and keeps the records" {
	local c1
	ga_state
	otp_service linger=600
	pam_run t "$C0" -I rhost=127.0.0.1
	accepted
	cp "$D/otp/state" "$D/ga/state"
	chmod 0400 "$D/ga/state"
	MOD=ga
	otp_service
	NOW=$((T0 + 30))
	c1=$(totp $NOW)
	pam_run t "$c1"
	accepted
	grep -q '^" LINGER 300600 ' "$D/ga/state"
	grep -q "^\" DISALLOW_REUSE .*$((NOW / 30))" "$D/ga/state"
	# -f: the file is mode 0400, which only root writes over.
	cp -f "$D/ga/state" "$D/otp/state"
	MOD=otp
	otp_service linger=600
	pam_run t "$C0" -I rhost=127.0.0.1
	accepted
}

@test "linger: linger=0, 14401, 20000 and x are refused as options" {
	local v
	ga_state
	for v in 0 14401 20000 x ""; do
		otp_service linger=$v
		pam_run t "$C0" -I rhost=127.0.0.1
		refused
		assert_output --regexp "SYSLOG 3: .*invalid option \"linger=$v\": linger must be 1 to 14400 seconds"
	done
	otp_service linger=14400
	pam_run t "$C0" -I rhost=127.0.0.1
	accepted
}

# oath_code T: RFC 4226's key's TOTP code at Unix time T (the users
# file's line below).
oath_code() {
	oathtool --totp -s 30s -N "@$1" 3132333435363738393031323334353637383930
}

# oath_file: a users file with a PIN and a TOTP token for this user, and
# a service on it with linger=60, deny=2 and the PIN handed on.
oath_file() {
	printf 'HOTP/T30\t%s\t1234\t%s\n' "$PAM_USER" \
	    3132333435363738393031323334353637383930 >"$D/otp/users"
	chmod 0600 "$D/otp/users"
	service t "auth required @MOD@ usersfile=@DIR@/users digits=6 linger=60 deny=2 $*" \
	    "auth required pam_exec.so expose_authtok $BATS_TEST_DIRNAME/pam/record-authtok.sh @DIR@/fwd"
}

@test "linger, users file: a PIN and a code again from the same client; the file stays pam_oath's, the records in the tally" {
	local a c1
	oath_file
	a=1234$(oath_code $T0)
	pam_run t "$a" -I rhost=127.0.0.1
	accepted
	[[ $(cat "$D/otp/fwd") == 1234 ]]
	rm "$D/otp/fwd"
	cp -p "$D/otp/users" "$D/before"
	run cat "$D/otp/users.tally/$PAM_USER"
	assert_line --index 0 "0 0"
	assert_line --index 1 --regexp '^LINGER 300060 [0-9a-f]{32} [0-9a-f]{64}$'
	refute_output --partial "$a"
	NOW=$((T0 + 10))
	pam_run t "$a" -I rhost=127.0.0.1
	accepted
	assert_output --regexp "SYSLOG 6: .*accepted lingering answer"
	[[ $(cat "$D/otp/fwd") == 1234 ]]
	cmp "$D/before" "$D/otp/users"
	grep -q '^LINGER 300070 ' "$D/otp/users.tally/$PAM_USER"
	pam_run t "$a" -I rhost=127.0.0.2
	refused
	pam_run t "$a"
	refused
	# Another PIN before the same code is another answer.
	pam_run t "4321$(oath_code $T0)" -I rhost=127.0.0.1
	refused
	NOW=$((T0 + 30))
	c1=$(oath_code $NOW)
	pam_run t "1234$c1" -I rhost=127.0.0.1
	accepted
	assert_output --regexp "SYSLOG 6: .*accepted verification code"
	run grep -c '^LINGER ' "$D/otp/users.tally/$PAM_USER"
	assert_output 2
	NOW=$((T0 + 200))
	pam_run t "$a" -I rhost=127.0.0.1
	refused
}

@test "linger, users file: wrong answers count; locked out, a lingering answer is refused too" {
	local a
	oath_file
	a=1234$(oath_code $T0)
	pam_run t "$a" -I rhost=127.0.0.1
	accepted
	pam_run t 1234000000 -I rhost=127.0.0.1
	refused
	pam_run t "$a" -I rhost=127.0.0.1
	accepted
	pam_run t 1234000001 -I rhost=127.0.0.1
	refused
	pam_run t "$a" -I rhost=127.0.0.1
	refused
	assert_output --partial "too many wrong codes"
	grep -q '^LINGER ' "$D/otp/users.tally/$PAM_USER"
}

@test "linger, users file: without deny the tally holds the records alone; one run out is dropped" {
	local a
	oath_file deny=0
	a=1234$(oath_code $T0)
	pam_run t "$a" -I rhost=127.0.0.1
	accepted
	grep -q '^LINGER 300060 ' "$D/otp/users.tally/$PAM_USER"
	pam_run t 1234000000 -I rhost=127.0.0.1
	refused
	pam_run t "$a" -I rhost=127.0.0.1
	accepted
	NOW=$((T0 + 90))
	pam_run t "1234$(oath_code $NOW)" -I rhost=127.0.0.1
	accepted
	run cat "$D/otp/users.tally/$PAM_USER"
	assert_line --index 0 "0 0"
	assert_line --index 1 --regexp '^LINGER 300150 '
	[[ ${#lines[@]} == 2 ]]
}

# oath_line USER PIN KEYHEX: a users file line, TOTP of 30 s.
oath_line() {
	printf 'HOTP/T30\t%s\t%s\t%s\n' "$1" "$2" "$3"
}

@test "linger, users file: the line's PIN changed, its secret replaced or the line removed ends a lingering answer" {
	local a k=3132333435363738393031323334353637383930
	local other=3132333435363738393031323334353637383931
	oath_file prompt_unknown deny=0
	a=1234$(oath_code $T0)
	pam_run t "$a" -I rhost=127.0.0.1
	accepted
	# Another user's line changed, this one's counter moved by its own
	# next code: still the line that accepted it.
	{ oath_line "$PAM_USER" 1234 "$k"; oath_line someone - "$other"; } \
	    >"$D/otp/users"
	NOW=$((T0 + 30))
	pam_run t "1234$(oath_code $NOW)" -I rhost=127.0.0.1
	accepted
	pam_run t "$a" -I rhost=127.0.0.1
	accepted
	assert_output --regexp "SYSLOG 6: .*accepted lingering answer"
	cp -p "$D/otp/users" "$D/kept"
	# The same secret under another PIN; the line put back as it was
	# is the line that accepted it again.
	sed -i "s/\t1234\t/\t5678\t/" "$D/otp/users"
	pam_run t "$a" -I rhost=127.0.0.1
	refused
	refute_output --partial "accepted lingering answer"
	cp -p "$D/kept" "$D/otp/users"
	pam_run t "$a" -I rhost=127.0.0.1
	accepted
	# Another secret under the same PIN.
	sed -i "s/\t$k\t/\t$other\t/" "$D/otp/users"
	pam_run t "$a" -I rhost=127.0.0.1
	refused
	refute_output --partial "accepted lingering answer"
	# The line removed: the user is unknown, as without linger.
	oath_line someone - "$other" >"$D/otp/users"
	pam_run t "$a" -I rhost=127.0.0.1
	refused
	assert_output --partial "no token in"
}

@test "linger, users file: of a user's two lines, a change to one ends only the answers that line accepted" {
	local a b k=3132333435363738393031323334353637383930
	local k2=3132333435363738393031323334353637383931
	oath_file deny=0
	{ oath_line "$PAM_USER" 1234 "$k"; oath_line "$PAM_USER" 9999 "$k2"; } \
	    >"$D/otp/users"
	a=1234$(oath_code $T0)
	b=9999$(oathtool --totp -s 30s -N "@$T0" "$k2")
	pam_run t "$a" -I rhost=127.0.0.1
	accepted
	pam_run t "$b" -I rhost=127.0.0.1
	accepted
	run grep -c '^LINGER ' "$D/otp/users.tally/$PAM_USER"
	assert_output 2
	# The first line's secret replaced: its answer ends, the second's
	# lingers on.
	sed -i "1s/\t$k\t/\t3132333435363738393031323334353637383932\t/" \
	    "$D/otp/users"
	NOW=$((T0 + 10))
	pam_run t "$a" -I rhost=127.0.0.1
	refused
	pam_run t "$b" -I rhost=127.0.0.1
	accepted
	assert_output --regexp "SYSLOG 6: .*accepted lingering answer"
}

# threads CONF CODE RHOST: 20 logins at once (tests/pam/pam-threads.c,
# the real clock) with CODE from RHOST on service t of $D/conf.
threads() {
	pam_threads_build
	mkdir -p -m 0755 "$D/conf"
	printf 'auth required %s %s\n' "$OTP_SO" "$1" >"$D/conf/t"
	run env LD_PRELOAD="$ASAN_SO $SHIM_SO" \
	    "$D/pam-threads" "$D/conf" t "$PAM_USER" "$2" 20 "$3"
}

# one_by_code: of the last run's 20, one accepted by its code, the rest
# as lingering.
one_by_code() {
	assert_output --partial "accepted 20 refused 0 leaks 0"
	[[ $(grep -c "accepted verification code" <<<"$output") == 1 ]] ||
	    fail "not one by the code: $output"
	[[ $(grep -c "accepted lingering answer" <<<"$output") == 19 ]] ||
	    fail "not 19 lingering: $output"
}

@test "linger: 20 logins at once with one fresh code from one client: one by the code, the rest lingering; from another none (state file, users file)" {
	local code
	ga_state
	code=$("$OTP_BIN/otp-gen" --totp -b "$KEY")
	threads "secret=$D/otp/state linger=600" "$code" 127.0.0.1
	one_by_code
	threads "secret=$D/otp/state linger=600" "$code" 127.0.0.2
	assert_output --partial "accepted 0 refused 20 leaks 0"
	printf 'HOTP/T30\t%s\t1234\t%s\n' "$PAM_USER" \
	    3132333435363738393031323334353637383930 >"$D/otp/users"
	chmod 0600 "$D/otp/users"
	code=1234$(oathtool --totp -s 30s 3132333435363738393031323334353637383930)
	threads "usersfile=$D/otp/users digits=6 linger=600" "$code" 127.0.0.1
	one_by_code
	threads "usersfile=$D/otp/users digits=6 linger=600" "$code" 127.0.0.2
	assert_output --partial "accepted 0 refused 20 leaks 0"
}

#!/usr/bin/env bats
# pam.bats - pam_otp.so through pamtester and pam_wrapper (no root needed,
# tests/pam/lib.bash), every option.  Each scenario runs against Debian's
# pam_google_authenticator.so ("ga") with the same expectations, so these
# tests pin down the original's behaviour as much as ours; the byte-for-
# byte comparison of the files is in pam-differential.bats.

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
}

teardown() {
	# A plain user's read-only directories opened first.
	[[ -z ${UDIR:-} ]] || { chmod -R u+w "$UDIR"; rm -rf "$UDIR"; }
}

# wrong CODE: a 6-digit code that is not CODE.
wrong() {
	printf '%06d\n' $(((10#$1 + 500000) % 1000000))
}

# mods: the modules every scenario runs against.
MODS=${PAM_MODS:-ga otp}

@test "pam_wrapper, pamtester and libfaketime work here (reference module)" {
	MOD=ga
	state_file "$D/ga/state" "$KEY" '" TOTP_AUTH'
	otp_service
	pam_run t 050548
	accepted
}

@test "TOTP: the current code is accepted, a wrong one refused" {
	local c
	c=$(totp $T0)
	[[ $c == 050548 ]]
	for MOD in $MODS; do
		echo "# module $MOD"
		NOW=$T0
		state_file "$D/$MOD/state" "$KEY" '" TOTP_AUTH'
		otp_service
		pam_run t "$c"
		accepted
		prompted
		assert_output --regexp "SYSLOG 6: .*ccepted"
		pam_run t "$(wrong "$c")"
		refused
		assert_output --regexp "SYSLOG 3: .*nvalid verification code"
		no_secret_logged "$c"
	done
}

@test "TOTP: input of the wrong shape is refused (5, 7 digits, spaces, letters, empty)" {
	local c bad
	c=$(totp $T0)
	for MOD in $MODS; do
		echo "# module $MOD"
		NOW=$T0
		state_file "$D/$MOD/state" "$KEY" '" TOTP_AUTH'
		otp_service
		for bad in "${c:1}" "${c}0" " $c" "${c:0:3} ${c:3}" "abcdef" ""; do
			pam_run t "$bad"
			refused
		done
	done
}

@test "TOTP: default window is one step either side" {
	for MOD in $MODS; do
		echo "# module $MOD"
		NOW=$T0
		state_file "$D/$MOD/state" "$KEY" '" TOTP_AUTH'
		otp_service noskewadj
		pam_run t "$(totp $((T0 - 30)))"
		accepted
		pam_run t "$(totp $((T0 + 30)))"
		accepted
		pam_run t "$(totp $((T0 + 60)))"
		refused
		pam_run t "$(totp $((T0 - 60)))"
		refused
	done
}

@test "TOTP: WINDOW_SIZE 4 covers -1..+2, STEP_SIZE 60 uses 60 s steps" {
	for MOD in $MODS; do
		echo "# module $MOD"
		NOW=$T0
		state_file "$D/$MOD/state" "$KEY" '" WINDOW_SIZE 4' '" TOTP_AUTH'
		otp_service noskewadj
		pam_run t "$(totp $((T0 + 60)))"
		accepted
		pam_run t "$(totp $((T0 - 60)))"
		refused
		state_file "$D/$MOD/state" "$KEY" '" STEP_SIZE 60' '" TOTP_AUTH'
		pam_run t "$(totp $T0 60)"
		accepted
		pam_run t "$(totp $((T0 + 90)) 30)"
		refused
	done
}

@test "DISALLOW_REUSE: a code is accepted once, and the step is recorded" {
	local c
	c=$(totp $T0)
	for MOD in $MODS; do
		echo "# module $MOD"
		NOW=$T0
		state_file "$D/$MOD/state" "$KEY" '" DISALLOW_REUSE' '" TOTP_AUTH'
		otp_service
		pam_run t "$c"
		accepted
		grep -qx '" DISALLOW_REUSE 10000' "$D/$MOD/state"
		pam_run t "$c"
		refused
		NOW=$((T0 + 30))
		pam_run t "$(totp $NOW)"
		accepted
		no_temp_left "$D/$MOD"
		[[ $(stat -c %a "$D/$MOD/state") == 400 ]]
	done
}

@test "without DISALLOW_REUSE the same code is accepted again" {
	local c
	c=$(totp $T0)
	for MOD in $MODS; do
		echo "# module $MOD"
		NOW=$T0
		state_file "$D/$MOD/state" "$KEY" '" TOTP_AUTH'
		otp_service
		pam_run t "$c"
		accepted
		pam_run t "$c"
		accepted
	done
}

@test "RATE_LIMIT: the attempt after the limit is refused even with the right code" {
	local c
	c=$(totp $T0)
	for MOD in $MODS; do
		echo "# module $MOD"
		NOW=$T0
		state_file "$D/$MOD/state" "$KEY" '" RATE_LIMIT 2 30' '" TOTP_AUTH'
		otp_service
		pam_run t "$(wrong "$c")"
		refused
		pam_run t "$(wrong "$c")"
		refused
		prompted
		# Over the limit: refused without asking, as the original.
		pam_run t "$c"
		refused
		not_prompted
		grep -q '^" RATE_LIMIT 2 30 300000 300000' "$D/$MOD/state"
		NOW=$((T0 + 31))
		pam_run t "$(totp $NOW)"
		accepted
	done
}

@test "HOTP: the counter moves past a match, and by one on a failure" {
	for MOD in $MODS; do
		echo "# module $MOD"
		NOW=$T0
		state_file "$D/$MOD/state" "$KEY" '" HOTP_COUNTER 1'
		otp_service
		pam_run t "$(hotp 1)"
		accepted
		grep -qx '" HOTP_COUNTER 2' "$D/$MOD/state"
		pam_run t "$(hotp 1)"
		refused
		grep -qx '" HOTP_COUNTER 3' "$D/$MOD/state"
		# The window looks ahead: counter 5 from 3 (W=3).
		pam_run t "$(hotp 5)"
		accepted
		grep -qx '" HOTP_COUNTER 6' "$D/$MOD/state"
		pam_run t "$(hotp 9)"
		refused
		grep -qx '" HOTP_COUNTER 7' "$D/$MOD/state"
	done
}

@test "no_increment_hotp: a failure leaves the counter alone" {
	for MOD in $MODS; do
		echo "# module $MOD"
		NOW=$T0
		state_file "$D/$MOD/state" "$KEY" '" HOTP_COUNTER 4'
		otp_service no_increment_hotp
		pam_run t "$(hotp 1)"
		refused
		grep -qx '" HOTP_COUNTER 4' "$D/$MOD/state"
		pam_run t "$(hotp 4)"
		accepted
		grep -qx '" HOTP_COUNTER 5' "$D/$MOD/state"
	done
}

@test "scratch codes: accepted once, then deleted from the file" {
	for MOD in $MODS; do
		echo "# module $MOD"
		NOW=$T0
		state_file "$D/$MOD/state" "$KEY" '" TOTP_AUTH' 12345678 87654321
		otp_service
		pam_run t 87654321
		accepted
		! grep -q 87654321 "$D/$MOD/state"
		grep -qx 12345678 "$D/$MOD/state"
		pam_run t 87654321
		refused
		pam_run t 11111111
		refused
		no_secret_logged 12345678 87654321
	done
}

@test "skew learning: three codes from a fast clock, the third accepted" {
	local s
	for MOD in $MODS; do
		echo "# module $MOD"
		NOW=$T0
		state_file "$D/$MOD/state" "$KEY" '" TOTP_AUTH'
		otp_service
		for s in 0 1; do
			NOW=$((T0 + 30 * s))
			pam_run t "$(totp $((NOW + 3000)))"
			refused
		done
		grep -q '^" RESETTING_TIME_SKEW 10000+100 10001+100' \
		    "$D/$MOD/state"
		NOW=$((T0 + 60))
		pam_run t "$(totp $((NOW + 3000)))"
		accepted
		grep -qx '" TIME_SKEW 100' "$D/$MOD/state"
		# The learned skew now applies to every code.
		NOW=$((T0 + 90))
		pam_run t "$(totp $((NOW + 3000)))"
		accepted
		pam_run t "$(totp $NOW)"
		refused
	done
}

@test "noskewadj: far codes are refused and nothing is learned" {
	for MOD in $MODS; do
		echo "# module $MOD"
		NOW=$T0
		state_file "$D/$MOD/state" "$KEY" '" TOTP_AUTH'
		otp_service noskewadj
		for s in 0 1 2; do
			NOW=$((T0 + 30 * s))
			pam_run t "$(totp $((NOW + 3000)))"
			refused
		done
		! grep -q SKEW "$D/$MOD/state"
	done
}

@test "grace_period: a second login from the same host needs no code" {
	local c
	c=$(totp $T0)
	for MOD in $MODS; do
		echo "# module $MOD"
		NOW=$T0
		NOW=$T0
		# Like the original, LASTn is only written with another
		# change: DISALLOW_REUSE makes one (upstream issue 193).
		state_file "$D/$MOD/state" "$KEY" '" DISALLOW_REUSE' '" TOTP_AUTH'
		otp_service grace_period=3600
		pam_run t "$c" -I rhost=10.0.0.1
		accepted
		grep -qx '" LAST0 10.0.0.1 300000' "$D/$MOD/state"
		NOW=$((T0 + 600))
		pam_run t "" -I rhost=10.0.0.1
		accepted
		not_prompted
		pam_run t "" -I rhost=10.0.0.2
		refused
		prompted
		pam_run t ""
		refused
		NOW=$((T0 + 3601))
		pam_run t "" -I rhost=10.0.0.1
		refused
		prompted
	done
}

@test "without grace_period, LAST records are ignored" {
	for MOD in $MODS; do
		echo "# module $MOD"
		NOW=$T0
		state_file "$D/$MOD/state" "$KEY" '" TOTP_AUTH' \
		    '" LAST0 10.0.0.1 299990'
		otp_service
		pam_run t "" -I rhost=10.0.0.1
		refused
		prompted
	done
}

@test "forward_pass: password+code in one prompt, the password handed on" {
	local c
	c=$(totp $T0)
	for MOD in $MODS; do
		echo "# module $MOD"
		NOW=$T0
		state_file "$D/$MOD/state" "$KEY" '" TOTP_AUTH'
		service t "auth required @MOD@ secret=@DIR@/state forward_pass" \
		    "auth required pam_exec.so expose_authtok $BATS_TEST_DIRNAME/pam/record-authtok.sh @DIR@/fwd"
		pam_run t "hunter2$c"
		accepted
		prompted "Password & verification code: "
		[[ $(cat "$D/$MOD/fwd") == hunter2 ]]
		# A scratch code after a password works the same way.
		state_file "$D/$MOD/state" "$KEY" '" TOTP_AUTH' 12345678
		pam_run t "pw12345678"
		accepted
		[[ $(cat "$D/$MOD/fwd") == pw ]]
		no_secret_logged hunter2 12345678
	done
}

@test "without forward_pass, password+code is refused" {
	local c
	c=$(totp $T0)
	for MOD in $MODS; do
		echo "# module $MOD"
		NOW=$T0
		state_file "$D/$MOD/state" "$KEY" '" TOTP_AUTH'
		otp_service
		pam_run t "hunter2$c"
		refused
	done
}

@test "try_first_pass: PAM_AUTHTOK is tried first, then the prompt" {
	local c
	c=$(totp $T0)
	for MOD in $MODS; do
		echo "# module $MOD"
		NOW=$T0
		state_file "$D/$MOD/state" "$KEY" '" TOTP_AUTH'
		service t "auth required $PWRAP_MODDIR/pam_set_items.so" \
		    "auth required @MOD@ secret=@DIR@/state try_first_pass"
		PAM_ENV=("PAM_AUTHTOK=$c")
		pam_run t ""
		accepted
		not_prompted
		PAM_ENV=("PAM_AUTHTOK=not-a-code")
		pam_run t "$c"
		accepted
		prompted
	done
}

@test "use_first_pass: only PAM_AUTHTOK, never a prompt" {
	local c
	c=$(totp $T0)
	for MOD in $MODS; do
		echo "# module $MOD"
		NOW=$T0
		state_file "$D/$MOD/state" "$KEY" '" TOTP_AUTH'
		service t "auth required $PWRAP_MODDIR/pam_set_items.so" \
		    "auth required @MOD@ secret=@DIR@/state use_first_pass"
		PAM_ENV=("PAM_AUTHTOK=$c")
		pam_run t ""
		accepted
		not_prompted
		PAM_ENV=("PAM_AUTHTOK=$(wrong "$c")")
		pam_run t "$c"
		refused
		not_prompted
	done
}

@test "nullok: no state file is PAM_IGNORE without a prompt" {
	for MOD in $MODS; do
		echo "# module $MOD"
		NOW=$T0
		otp_service nullok
		pam_run t ""
		ignored
		not_prompted
		# Stacked after a module that decides, nullok lets the login on.
		service t "auth required @MOD@ secret=@DIR@/state nullok" \
		    "auth required pam_permit.so"
		pam_run t ""
		accepted
	done
}

@test "no state file without nullok: asks anyway, then refuses" {
	for MOD in $MODS; do
		echo "# module $MOD"
		NOW=$T0
		otp_service
		pam_run t 050548
		refused
		prompted
		assert_output --partial "$D/$MOD/state"
	done
}

@test "nullok does not excuse a broken or unsafe file" {
	for MOD in $MODS; do
		echo "# module $MOD"
		NOW=$T0
		state_file "$D/$MOD/state" "$KEY" '" TOTP_AUTH'
		chmod 0644 "$D/$MOD/state"
		otp_service nullok
		pam_run t 050548
		refused
	done
}

@test "unsafe mode: refused and logged; allowed_perm= widens the check" {
	for MOD in $MODS; do
		echo "# module $MOD"
		NOW=$T0
		state_file "$D/$MOD/state" "$KEY" '" TOTP_AUTH'
		chmod 0640 "$D/$MOD/state"
		otp_service
		pam_run t 050548
		refused
		assert_output --regexp "SYSLOG 3: .*$D/$MOD/state.*(permissive|too open)"
		otp_service allowed_perm=0640
		pam_run t 050548
		accepted
		chmod 0660 "$D/$MOD/state"
		pam_run t 050548
		refused
		chmod 0600 "$D/$MOD/state"
		pam_run t 050548
		accepted
	done
}

@test "allowed_perm= must be an octal mode: anything else fails closed" {
	local bad
	for MOD in $MODS; do
		echo "# module $MOD"
		NOW=$T0
		state_file "$D/$MOD/state" "$KEY" '" TOTP_AUTH'
		for bad in 0 abc 0899 ""; do
			otp_service "allowed_perm=$bad"
			pam_run t 050548
			refused
			not_prompted
			assert_output --partial "allowed_perm"
		done
	done
}

@test "wrong owner: refused; no_strict_owner accepts it" {
	# A file that another account owns and this one reads: only root
	# makes one (chown), and only root reads it at mode 0400.
	[[ $EUID == 0 ]] || skip "needs root: a state file of another account's that the module can read"
	for MOD in $MODS; do
		echo "# module $MOD"
		NOW=$T0
		state_file "$D/$MOD/state" "$KEY" '" TOTP_AUTH'
		chown 65534 "$D/$MOD/state"
		otp_service
		pam_run t 050548
		refused
		assert_output --regexp "SYSLOG 3: .*$D/$MOD/state.*(must be owned|owner)"
		# Ours names both owners and the option, as otp-verify does.
		[[ $MOD != otp ]] || assert_output --regexp "owned by ([a-z]+ \\(uid 65534\\)|uid 65534), not [a-z]+ \\(uid 0\\); no_strict_owner allows it"
		otp_service no_strict_owner
		pam_run t 050548
		accepted
	done
}

@test "a state file that is a directory is refused" {
	for MOD in $MODS; do
		echo "# module $MOD"
		NOW=$T0
		mkdir -m 0700 "$D/$MOD/state"
		otp_service
		pam_run t 050548
		refused
	done
}

@test "a state file that is a FIFO or a symlink is refused (ours)" {
	# The original opens a FIFO for reading and blocks until a writer
	# comes; ours must answer at once.
	MOD=otp
	mkfifo -m 0600 "$D/otp/state"
	otp_service
	PAM_TIMEOUT=20 pam_run t 050548
	refused
	rm "$D/otp/state"
	state_file "$D/otp/real" "$KEY" '" TOTP_AUTH'
	ln -s real "$D/otp/state"
	pam_run t 050548
	refused
	[[ -L $D/otp/state ]]
}

@test "malformed files fail closed and the log names the problem, not the secret" {
	for MOD in $MODS; do
		echo "# module $MOD"
		NOW=$T0
		otp_service
		state_file "$D/$MOD/state" '!!!!' '" TOTP_AUTH'
		pam_run t 050548
		refused
		assert_output --regexp "SYSLOG [0-9]: .*$D/$MOD/state"
		# New files: the old ones are 0400, which only root writes.
		rm -f "$D/$MOD/state"
		printf '%s\0\n" TOTP_AUTH\n' "$KEY" >"$D/$MOD/state"
		chmod 0400 "$D/$MOD/state"
		pam_run t 050548
		refused
		no_secret_logged
		{ printf '%s\n" TOTP_AUTH\n' "$KEY"; head -c 70000 /dev/zero | tr '\0' '\n'; } >"$D/$MOD/s2"
		rm -f "$D/$MOD/state"
		mv "$D/$MOD/s2" "$D/$MOD/state"
		chmod 0400 "$D/$MOD/state"
		pam_run t 050548
		refused
		rm -f "$D/$MOD/state"
		: >"$D/$MOD/state"
		chmod 0400 "$D/$MOD/state"
		pam_run t 050548
		refused
		no_secret_logged
	done
}

@test "unknown option: logged, refused without a prompt" {
	for MOD in $MODS; do
		echo "# module $MOD"
		NOW=$T0
		state_file "$D/$MOD/state" "$KEY" '" TOTP_AUTH'
		otp_service bogus_option
		pam_run t 050548
		refused
		not_prompted
		assert_output --regexp 'SYSLOG 3: .*(nrecognized|unknown) option "bogus_option"'
		otp_service grace_period=soon
		pam_run t 050548
		refused
		not_prompted
	done
}

@test "authtok_prompt= replaces the prompt, also with spaces in [brackets]" {
	for MOD in $MODS; do
		echo "# module $MOD"
		NOW=$T0
		state_file "$D/$MOD/state" "$KEY" '" TOTP_AUTH'
		otp_service "authtok_prompt=OTP?"
		pam_run t 050548
		accepted
		prompted "OTP?"
		not_prompted
		service t "auth required @MOD@ secret=@DIR@/state [authtok_prompt=Your token, please: ]"
		pam_run t 050548
		accepted
		prompted "Your token, please: "
	done
}

@test "echo_verification_code: the prompt echoes" {
	for MOD in $MODS; do
		echo "# module $MOD"
		NOW=$T0
		state_file "$D/$MOD/state" "$KEY" '" TOTP_AUTH'
		otp_service
		drive_run t 050548
		[[ $status == 0 ]]
		assert_output --partial "[echo off] Verification code: "
		otp_service echo_verification_code
		drive_run t 050548
		[[ $status == 0 ]]
		assert_output --partial "[echo on] Verification code: "
	done
}

@test "debug: adds debug lines to the log, never the secret" {
	for MOD in $MODS; do
		echo "# module $MOD"
		NOW=$T0
		state_file "$D/$MOD/state" "$KEY" '" TOTP_AUTH'
		otp_service
		pam_run t 050548
		refute_output --partial "debug:"
		otp_service debug
		pam_run t 050548
		accepted
		assert_output --partial "debug:"
		no_secret_logged
	done
}

@test "secret= expands \${USER}; ~ and \${HOME} become the home directory" {
	nobody_db
	for MOD in $MODS; do
		echo "# module $MOD"
		NOW=$T0
		state_file "$D/$MOD/$PAM_USER.otp" "$KEY" '" TOTP_AUTH'
		service t 'auth required @MOD@ secret=@DIR@/${USER}.otp'
		pam_run t 050548
		accepted
		# A ~ in the middle of a name is not the home directory.
		state_file "$D/$MOD/a~b" "$KEY" '" TOTP_AUTH'
		service t 'auth required @MOD@ secret=@DIR@/a~b'
		pam_run t 050548
		accepted
		# nobody's home is /nonexistent: the log shows the expansion.
		service t 'auth required @MOD@ secret=~/.otp-${USER}'
		PAM_RUN_USER=nobody pam_run t 050548
		refused
		assert_output --partial "/nonexistent/.otp-nobody"
		service t 'auth required @MOD@ secret=${HOME}/x/${USER}'
		PAM_RUN_USER=nobody pam_run t 050548
		refused
		assert_output --partial "/nonexistent/x/nobody"
	done
}

@test "the default state file is ~/.google_authenticator" {
	nobody_db
	for MOD in $MODS; do
		echo "# module $MOD"
		NOW=$T0
		service t 'auth required @MOD@'
		PAM_RUN_USER=nobody pam_run t 050548
		refused
		assert_output --partial "/nonexistent/.google_authenticator"
	done
}

@test "an unknown user is asked for a code anyway and refused" {
	# The original takes nobody's ids for an unknown user.
	nobody_db
	for MOD in $MODS; do
		echo "# module $MOD"
		NOW=$T0
		service t 'auth required @MOD@ secret=/tmp/${USER}'
		PAM_RUN_USER=no-such-user-$$ pam_run t 050548
		refused
		prompted
	done
}

# user=: the file belongs to a fixed user, here nobody, and is read and
# written under that file-system identity.  The directory must be
# reachable by nobody, so it is made outside bats' private temp dir.
user_dir() {
	UDIR=$(mktemp -d /tmp/pam-otp-test.XXXXXX)
	chmod 0755 "$UDIR"
	mkdir -m 0755 "$UDIR/ga" "$UDIR/otp"
}

@test "user=: the file is owned by that user and written as that user" {
	# The modules take the account's ids, the files are chowned to it.
	[[ $EUID == 0 ]] || skip "needs root: the module takes another account's ids and the test chowns its files to it"
	user_dir
	local c
	c=$(totp $T0)
	for MOD in $MODS; do
		echo "# module $MOD"
		NOW=$T0
		chown nobody "$UDIR/$MOD"
		state_file "$UDIR/$MOD/state" "$KEY" '" DISALLOW_REUSE' '" TOTP_AUTH'
		chown nobody "$UDIR/$MOD/state"
		service t "auth required @MOD@ secret=$UDIR/$MOD/state user=nobody"
		pam_run t "$c"
		accepted
		[[ $(stat -c %U:%a "$UDIR/$MOD/state") == nobody:400 ]]
		grep -qx '" DISALLOW_REUSE 10000' "$UDIR/$MOD/state"
		pam_run t "$c"
		refused
		# Owned by root, the file is not nobody's.
		chown root "$UDIR/$MOD/state"
		NOW=$((T0 + 30))
		pam_run t "$(totp $NOW)"
		refused
		service t "auth required @MOD@ secret=$UDIR/$MOD/state user=65534"
		chown 65534 "$UDIR/$MOD/state"
		pam_run t "$(totp $NOW)"
		accepted
	done
}

@test "user= naming no account: refused without a prompt" {
	for MOD in $MODS; do
		echo "# module $MOD"
		NOW=$T0
		state_file "$D/$MOD/state" "$KEY" '" TOTP_AUTH'
		service t "auth required @MOD@ secret=@DIR@/state user=no-such-user-$$"
		pam_run t "$(totp $NOW)"
		refused
		not_prompted
	done
}

@test "a write that fails is a refusal unless allow_readonly" {
	user_dir
	local c acct=nobody
	c=$(totp $T0)
	for MOD in $MODS; do
		echo "# module $MOD"
		NOW=$T0
		# The account can read the file but not write in the directory:
		# root writes anywhere, so as root that account is nobody; a
		# plain user is itself, in a directory of mode 0555.
		state_file "$UDIR/$MOD/state" "$KEY" '" DISALLOW_REUSE' '" TOTP_AUTH'
		if [[ $EUID == 0 ]]; then
			chown nobody "$UDIR/$MOD/state"
		else
			acct=$PAM_USER
			chmod 0555 "$UDIR/$MOD"
		fi
		cp -p "$UDIR/$MOD/state" "$D/$MOD/before"
		service t "auth required @MOD@ secret=$UDIR/$MOD/state user=$acct"
		pam_run t "$c"
		refused
		cmp "$UDIR/$MOD/state" "$D/$MOD/before"
		no_temp_left "$UDIR/$MOD"
		service t "auth required @MOD@ secret=$UDIR/$MOD/state user=$acct allow_readonly"
		pam_run t "$c"
		accepted
		cmp "$UDIR/$MOD/state" "$D/$MOD/before"
	done
}

@test "pam_sm_setcred returns PAM_SUCCESS" {
	for MOD in $MODS; do
		echo "# module $MOD"
		NOW=$T0
		otp_service
		PAM_OP=setcred pam_run t ""
		[[ $status == 0 ]]
		no_sanitizer_errors
	done
}

@test "50 concurrent logins with one TOTP code under DISALLOW_REUSE: exactly one succeeds" {
	local c i ok rc
	c=$(totp $T0)
	MOD=otp
	state_file "$D/otp/state" "$KEY" '" DISALLOW_REUSE' '" TOTP_AUTH'
	otp_service
	mkdir "$D/runs"
	for i in $(seq 50); do
		(
			env LD_PRELOAD="$(preload 0)" \
			    ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0 \
			    FAKETIME="$(faketime_of "$NOW")" \
			    DONT_FAKE_MONOTONIC=1 NO_FAKE_STAT=1 TZ=UTC \
			    "$PAM_DRIVE" "$D/svc" t "$PAM_USER" \
			    <<<"$c" >"$D/runs/$i.out" 2>&1 && rc=0 || rc=$?
			echo "$rc" >"$D/runs/$i.rc"
		) &
	done
	wait
	ok=$(cat "$D"/runs/*.rc | grep -cx 0 || true)
	[[ $(cat "$D"/runs/*.rc | wc -l) == 50 ]]
	! grep -l -E "AddressSanitizer|runtime error" "$D"/runs/*.out
	echo "successes: $ok"
	[[ $ok == 1 ]]
	grep -qx '" DISALLOW_REUSE 10000' "$D/otp/state"
	no_temp_left "$D/otp"
	# The file is still sound: the next step's code works.
	NOW=$((T0 + 30))
	pam_run t "$(totp $NOW)"
	accepted
}

@test "50 concurrent logins with one scratch code: exactly one succeeds" {
	local i ok rc
	MOD=otp
	state_file "$D/otp/state" "$KEY" '" TOTP_AUTH' 12345678 23456789
	otp_service
	mkdir "$D/runs"
	for i in $(seq 50); do
		(
			env LD_PRELOAD="$(preload 0)" \
			    ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0 \
			    FAKETIME="$(faketime_of "$NOW")" \
			    DONT_FAKE_MONOTONIC=1 NO_FAKE_STAT=1 TZ=UTC \
			    "$PAM_DRIVE" "$D/svc" t "$PAM_USER" \
			    <<<12345678 >"$D/runs/$i.out" 2>&1 && rc=0 || rc=$?
			echo "$rc" >"$D/runs/$i.rc"
		) &
	done
	wait
	ok=$(cat "$D"/runs/*.rc | grep -cx 0 || true)
	echo "successes: $ok"
	[[ $ok == 1 ]]
	! grep -q 12345678 "$D/otp/state"
	grep -qx 23456789 "$D/otp/state"
}

@test "pam_otp.so exports the PAM entry points and nothing else" {
	# The module is built from several files; what they share stays
	# inside it, so it cannot clash with a host's or another module's
	# symbols.
	run -0 nm -D --defined-only "$OTP_SO"
	exports=$(awk '$2 ~ /^[TDBRVW]$/ { print $3 }' <<<"$output" | sort)
	# (the sessions are the otpw mode's message of passwords left)
	[[ $exports == $'pam_sm_authenticate\npam_sm_close_session\npam_sm_open_session\npam_sm_setcred' ]]
}

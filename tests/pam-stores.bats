#!/usr/bin/env bats
# pam-stores.bats - pam_otp.so store=URL: the same login as secret=,
# usersfile= and otpw, which stay as its aliases; an unknown scheme is
# refused and logged naming it (tests/pam/lib.bash: pam_wrapper, no root).

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
}

@test "store=ga:FILE logs in as secret=FILE and leaves the same bytes" {
	local c
	c=$(totp $T0)
	state_file "$D/otp/a" "$KEY" '" DISALLOW_REUSE' '" TOTP_AUTH'
	state_file "$D/otp/b" "$KEY" '" DISALLOW_REUSE' '" TOTP_AUTH'
	service t "auth required @MOD@ secret=@DIR@/a user=$(id -un)"
	pam_run t "$c"
	accepted
	service t "auth required @MOD@ store=ga:@DIR@/b user=$(id -un)"
	pam_run t "$c"
	accepted
	cmp "$D/otp/a" "$D/otp/b"
	pam_run t "$c"
	refused
}

@test "store=oath:FILE logs in as usersfile=FILE" {
	local c
	c=$(totp $T0)
	printf 'HOTP/T30\t%s\t-\t%s\n' "$PAM_USER" "$(b32 -d --hex <<<"$KEY")" \
	    >"$D/otp/users"
	chmod 0600 "$D/otp/users"
	service t "auth required @MOD@ store=oath:@DIR@/users"
	pam_run t "$c"
	accepted
	pam_run t "$c"
	refused
	PAM_RUN_USER=nobody-here pam_run t "$c"
	assert_output --partial "User not known"
}

@test "store= with an unknown scheme, or twice, is refused and logged" {
	service t "auth required @MOD@ store=mysql:x"
	pam_run t 123456
	refused
	assert_output --partial '"mysql:x": unknown store scheme'
	service t "auth required @MOD@ store=ga:@DIR@/a secret=@DIR@/b"
	pam_run t 123456
	refused
	assert_output --partial "the store is named already"
}

@test "every store's log lines: control bytes of a user name are escaped, never a line of their own" {
	local spec user=$'evil\nFORGED\t\\x'
	state_file "$D/otp/state" "$KEY" '" TOTP_AUTH'
	printf 'HOTP\tsomeone\t-\t%s\n' "$RFC_HEX" >"$D/otp/users"
	chmod 0600 "$D/otp/users"
	# A RADIUS server or a client's login name brings any bytes: a
	# newline in one must not start a forged line of the log.
	for spec in "secret=@DIR@/state user=$(id -un)" \
	    'secret=@DIR@/${USER}' "usersfile=@DIR@/users" \
	    "store=otpw:@DIR@/otpw"; do
		service t "auth required @MOD@ $spec debug"
		PAM_RUN_USER=$user pam_run t 123456
		no_sanitizer_errors
		[[ $status != 0 ]] || fail "$spec: accepted"
		assert_output --partial '"evil\012FORGED\011\\x"'
		refute_line --regexp '^FORGED'
	done
}

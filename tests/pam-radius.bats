#!/usr/bin/env bats
# pam-radius.bats - pam_otp.so as a RADIUS server's rlm_pam runs it: one
# state file per user in one directory, secret=DIR/${USER} user=ACCOUNT,
# where the user name is whatever the network sent and no account lookup
# vouches for it (tests/pam/lib.bash: pam_wrapper, no root).  The server
# itself is in tests/e2e/radius.bats.

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
	ME=$(id -un)
}

# run_as_name NAME CODE: a login of the user NAME against the per-user
# service (secret=@DIR@/users/${USER} user=ME).
run_as_name() {
	PAM_RUN_USER=$1 pam_run t "$2"
}

@test "secret=DIR/\${USER} user=: a plain name reads its own file" {
	local c
	c=$(totp $T0)
	for MOD in $MODS; do
		echo "# module $MOD"
		mkdir -p "$D/$MOD/users"
		state_file "$D/$MOD/users/alice.smith" "$KEY" '" DISALLOW_REUSE' \
		    '" TOTP_AUTH'
		service t "auth required @MOD@ secret=@DIR@/users/\${USER} user=$ME"
		run_as_name alice.smith "$c"
		accepted
		run_as_name alice.smith "$c"
		refused
	done
}

@test "secret=DIR/\${USER} user=: a name with a path in it names no file" {
	local c name
	MOD=otp
	c=$(totp $T0)
	mkdir -p "$D/otp/users/sub"
	state_file "$D/otp/outside" "$KEY" '" TOTP_AUTH'
	state_file "$D/otp/users/sub/bob" "$KEY" '" TOTP_AUTH'
	state_file "$D/otp/users/.hidden" "$KEY" '" TOTP_AUTH'
	service t "auth required @MOD@ secret=@DIR@/users/\${USER} user=$ME"
	for name in ../outside sub/bob .hidden "-x" "a b" "$D/otp/outside"; do
		run_as_name "$name" "$c"
		refused
		assert_output --partial "unfit to name a file"
	done
	# Without user= the name must be an account's, which is the check.
	service t "auth required @MOD@ secret=@DIR@/users/\${USER}"
	run_as_name ../outside "$c"
	refused
	assert_output --partial 'no such user "../outside"'
}

@test "the original module reads a file outside the directory (a difference on purpose)" {
	local c
	MOD=ga
	c=$(totp $T0)
	mkdir -p "$D/ga/users"
	state_file "$D/ga/outside" "$KEY" '" TOTP_AUTH'
	service t "auth required @MOD@ secret=@DIR@/users/\${USER} user=$ME"
	run_as_name ../outside "$c"
	accepted
}

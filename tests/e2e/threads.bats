#!/usr/bin/env bats
# threads.bats - pam_otp.so in a threaded host, as root (make check-e2e):
# tests/e2e/pam-host.c runs 40 pam_authenticate() calls at once in one
# process, through libpam and a new /etc/pam.d service file of this suite
# (no pam_wrapper), while a monitor thread watches the process's umask and
# file-system ids.  The test user's state file is the user's own, so the
# module takes the user's file-system ids in each thread.

bats_require_minimum_version 1.5.0

N=40

setup_file() {
	load ../common
	load lib
	e2e_setup_file
	e2e_cc pam-host "$BATS_TEST_DIRNAME/pam-host.c" -lpam -lpthread
	e2e_cc fsfault.so "$BATS_TEST_DIRNAME/../shim/fsfault.c" -shared -fPIC \
	    -ldl
	SVC=$E2E_TAG-threads
	printf '%s\n' "auth required $OTP_LIBDIR/pam_otp.so" \
	    'account required pam_permit.so' | e2e_pam_service "$SVC"
	export SVC
}

teardown_file() {
	load ../common
	load lib
	e2e_teardown_file
}

setup() {
	load ../common
	load lib
	[[ -n ${E2E_DIR:-} ]] || skip "e2e: suite not set up"
	MON=$E2E_DIR/monitor-$BATS_TEST_NUMBER
	mkdir -m 0755 "$MON"
}

# host CODE [ENV...]: the threaded host for $U with CODE in every thread,
# umask 022 (set by the shell, before ENV applies); status and output as
# bats' run.
host() {
	local code=$1
	shift
	run timeout 120 sh -c 'umask 022; exec env "$@"' sh "$@" \
	    "$E2E_DIR/pam-host" "$SVC" "$U" "$code" "$N" "$MON"
	echo "# $output"
	[[ $status == 0 ]] || fail "pam-host failed ($status): $output"
}

# clean_host: no thread's ids and no umask disturbed, the monitor ran.
clean_host() {
	assert_output --regexp "idleaks 0 fileleaks 0 umask kept checks [1-9]"
}

# file_sound: the state file is still the user's, mode 0400, and nothing
# else was left in the home directory.
file_sound() {
	local st
	st=$(e2e_state_path "$U")
	run stat -c '%U %a' "$st"
	assert_output "$U 400"
	run find "$(dirname "$st")" -mindepth 1 -maxdepth 1 -name '.google*'
	assert_output "$st"
}

@test "threads: $N logins at once with one code: accepted exactly once" {
	local key code
	U=$(e2e_user_add reuse)
	key=$(e2e_totp_state "$U" --disallow-reuse 2>/dev/null)
	code=$(e2e_code "$key")
	host "$code"
	assert_output --regexp "^accepted 1 refused $((N - 1)) "
	clean_host
	file_sound
	grep -q "^\" DISALLOW_REUSE [0-9]" "$(e2e_state_path "$U")"
}

@test "threads: $N logins at once with one scratch code: accepted once" {
	local sc
	U=$(e2e_user_add scratch)
	e2e_totp_state "$U" >/dev/null 2>&1
	sc=$(e2e_scratch "$U" 3)
	host "$sc"
	assert_output --regexp "^accepted 1 refused $((N - 1)) "
	clean_host
	file_sound
	run ! grep -qx "$sc" "$(e2e_state_path "$U")"
}

@test "threads: wrong codes: all refused, nothing disturbed" {
	U=$(e2e_user_add wrong)
	e2e_totp_state "$U" >/dev/null 2>&1
	host 00000000
	assert_output --regexp "^accepted 0 refused $N "
	clean_host
	file_sound
}

# As on NFS, CIFS or FUSE: open(O_TMPFILE) fails with EOPNOTSUPP
# (tests/shim/fsfault.c), and the umask must never be touched meanwhile
# (the shim aborts the process at the first umask() call).
@test "threads: without O_TMPFILE (as on NFS): once, and no umask call" {
	local key code sc
	U=$(e2e_user_add notmp)
	key=$(e2e_totp_state "$U" --disallow-reuse 2>/dev/null)
	code=$(e2e_code "$key")
	host "$code" LD_PRELOAD="$E2E_DIR/fsfault.so" SHIM_NOTMPFILE=1 \
	    SHIM_NOUMASK=1
	assert_output --regexp "^accepted 1 refused $((N - 1)) "
	clean_host
	file_sound
	sc=$(e2e_scratch "$U" 1)
	host "$sc" LD_PRELOAD="$E2E_DIR/fsfault.so" SHIM_NOTMPFILE=1 \
	    SHIM_NOUMASK=1
	assert_output --regexp "^accepted 1 refused $((N - 1)) "
	clean_host
	file_sound
}

@test "e2e: nothing is left behind" {
	e2e_cleanup
	e2e_check_clean
}

#!/usr/bin/env bats
# sshd.bats - pam_otp.so in a real OpenSSH server, as root (make check-e2e).
#
# The server is a copy of /usr/sbin/sshd named sshd-$E2E_TAG: OpenSSH takes
# its PAM service name from its program name, so it reads
# /etc/pam.d/sshd-$E2E_TAG, a new file of this suite, and /etc/pam.d/sshd
# is never touched.  Its own config, host key and port on 127.0.0.1;
# libpam rereads the service file at every connection, so each test writes
# the stack it needs.  Logins are scripted with paramiko
# (tests/e2e/ssh-login.py), keyboard-interactive, answering the prompts in
# order.  The key scenarios run against Debian's pam_google_authenticator.so
# too ("ga"), with the same expectations.  Every syslog line of the server
# and its modules goes to $E2E_SYSLOG (tests/e2e/syslog-file.c).

bats_require_minimum_version 1.5.0

GA_SO=/lib/x86_64-linux-gnu/security/pam_google_authenticator.so

setup_file() {
	load ../common
	load lib
	e2e_setup_file openssh-server python3-paramiko \
	    libpam-google-authenticator
	local d shim
	SSHD_NAME=sshd-$E2E_TAG
	d=$E2E_DIR/sshd
	mkdir -m 0755 "$d"
	cp /usr/sbin/sshd "$d/$SSHD_NAME"
	ssh-keygen -q -t ed25519 -N '' -C '' -f "$d/hostkey"
	SSHD_PORT=$(e2e_port)
	cat >"$d/config" <<-EOF
	Port $SSHD_PORT
	ListenAddress 127.0.0.1
	HostKey $d/hostkey
	PidFile none
	UsePAM yes
	KbdInteractiveAuthentication yes
	PasswordAuthentication no
	PubkeyAuthentication yes
	AuthenticationMethods keyboard-interactive
	AuthorizedKeysFile .ssh/authorized_keys
	StrictModes yes
	UseDNS no
	PrintMotd no
	PermitRootLogin no
	MaxStartups 50
	MaxAuthTries 6
	LoginGraceTime 60
	LogLevel VERBOSE
	Match User *-pk*
	    AuthenticationMethods publickey,keyboard-interactive
	EOF
	e2e_sys_dir /run/sshd
	printf 'auth requisite pam_deny.so\n' | e2e_pam_service "$SSHD_NAME"
	"$d/$SSHD_NAME" -t -f "$d/config" || fail "sshd -t refused the config"
	shim=$(e2e_syslog_shim)
	E2E_SYSLOG=$E2E_DIR/syslog
	: >"$E2E_SYSLOG"
	e2e_daemon_start sshd "$E2E_DIR/sshd.out" env LD_PRELOAD="$shim" \
	    E2E_SYSLOG="$E2E_SYSLOG" "$d/$SSHD_NAME" -D -f "$d/config" \
	    -E "$E2E_DIR/sshd.log" >/dev/null
	e2e_wait_port "$SSHD_PORT"
	export SSHD_NAME SSHD_PORT E2E_SYSLOG
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
	MODS=${E2E_MODS:-otp ga}
}

teardown() {
	if [[ -n ${BATS_TEST_COMPLETED:-} ]]; then
		return 0
	fi
	echo "# sshd log (tail):"
	tail -n 30 "$E2E_DIR/sshd.log" | sed 's/^/#   /'
	echo "# syslog (tail):"
	tail -n 30 "$E2E_SYSLOG" | sed 's/^/#   /'
}

# modpath ga|otp: the module's path for a service file.
modpath() {
	case $1 in
	otp) printf '%s\n' "$OTP_LIBDIR/pam_otp.so" ;;
	ga) printf '%s\n' "$GA_SO" ;;
	*) fail "modpath: unknown module $1" ;;
	esac
}

# stack LINE...: the server's auth stack, one line each (@MOD@ is the
# module $MOD), then pam_permit for account and session.
stack() {
	local line
	for line in "$@"; do
		printf '%s\n' "${line//@MOD@/$(modpath "$MOD")}"
	done | {
		cat
		printf 'account required pam_permit.so\n'
		printf 'session required pam_permit.so\n'
	} | e2e_pam_service "$SSHD_NAME"
}

# login USER [--key FILE] [--hold PATH] ANSWER...: one login; status and
# output as bats' run.
login() {
	run timeout 90 /usr/bin/python3 "$BATS_TEST_DIRNAME/ssh-login.py" \
	    "$SSHD_PORT" "$@"
}

accepted() {
	[[ $status == 0 ]] || fail "expected the login accepted: $output"
	assert_line "auth accepted"
	assert_line "run $1"
}

refused() {
	[[ $status == 1 ]] || fail "expected the login refused: $output"
	assert_line --partial "auth refused"
	refute_line --partial "run "
}

# user NAME [PASSWORD]: a test user named for the test and module.
user() {
	e2e_user_add "$MOD$1" "${2:-}"
}

@test "sshd: a copy of sshd reads its own PAM service file" {
	MOD=otp
	U=$(user plain)
	stack 'auth required pam_permit.so'
	login "$U"
	accepted "$U"
	stack 'auth required pam_deny.so'
	login "$U"
	refused
	[[ ! -e /etc/pam.d/sshd ]] ||
	    ! grep -q "$E2E_TAG" /etc/pam.d/sshd
}

@test "sshd: the right code is accepted, with its prompt and no echo" {
	local key code
	for MOD in $MODS; do
		U=$(user right)
		key=$(e2e_totp_state "$U" 2>/dev/null)
		stack 'auth required @MOD@'
		e2e_fresh_step
		code=$(e2e_code "$key")
		login "$U" "$code"
		accepted "$U"
		assert_line "prompt noecho Verification code: "
	done
}

@test "e2e: nothing is left behind" {
	e2e_cleanup
	e2e_check_clean
}

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
	# Writable by all: a module logs while it holds the user's
	# file-system ids.
	E2E_SYSLOG=$E2E_DIR/syslog
	: >"$E2E_SYSLOG"
	chmod 0666 "$E2E_SYSLOG"
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
# output as bats' run.  Every answer is written down in $E2E_DIR/answers:
# the last test looks for each in the logs.
login() {
	local a
	for a in "$@"; do
		[[ $a == -* || $a == "$1" || $a == /* ]] ||
		    printf '%s\n' "$a" >>"$E2E_DIR/answers"
	done
	run timeout 90 /usr/bin/python3 "$BATS_TEST_DIRNAME/ssh-login.py" \
	    "$SSHD_PORT" "$@"
}

# wrong CODE: a 6-digit code that is not CODE and not one of the codes of
# the steps around it.
wrong() {
	printf '%06d\n' $(((10#$1 + 500000) % 1000000))
}

# syslog_mark: remember where the log ends; syslog_since prints what came
# after the mark, lines of this module only (PAM's "pam_otp(SERVICE:auth)"
# prefix), without the PID.
syslog_mark() {
	MARK=$(wc -l <"$E2E_SYSLOG")
}
syslog_since() {
	tail -n +"$((MARK + 1))" "$E2E_SYSLOG" | grep -F "pam_otp(" |
	    sed 's/\[[0-9]*\]: /: /'
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

@test "sshd: a reused code is refused (DISALLOW_REUSE)" {
	local key code
	for MOD in $MODS; do
		U=$(user reuse)
		key=$(e2e_totp_state "$U" --disallow-reuse 2>/dev/null)
		stack 'auth required @MOD@'
		code=$(e2e_code "$key")
		login "$U" "$code"
		accepted "$U"
		login "$U" "$code"
		refused
	done
}

@test "sshd: a wrong code is refused, the right one still works" {
	local key code
	for MOD in $MODS; do
		U=$(user wrong)
		key=$(e2e_totp_state "$U" 2>/dev/null)
		stack 'auth required @MOD@'
		code=$(e2e_code "$key")
		login "$U" "$(wrong "$code")"
		refused
		assert_line "prompt noecho Verification code: "
		login "$U" "$code"
		accepted "$U"
	done
}

@test "sshd: a scratch code works once, then is gone from the file" {
	local key sc
	for MOD in $MODS; do
		U=$(user scratch)
		key=$(e2e_totp_state "$U" 2>/dev/null)
		[[ -n $key ]]
		sc=$(e2e_scratch "$U" 2)
		[[ $sc =~ ^[0-9]{8}$ ]]
		stack 'auth required @MOD@'
		login "$U" "$sc"
		accepted "$U"
		run ! grep -qx "$sc" "$(e2e_state_path "$U")"
		login "$U" "$sc"
		refused
		# The file is still the user's own, mode 0400.
		run stat -c '%U %a' "$(e2e_state_path "$U")"
		assert_output "$U 400"
	done
}

@test "sshd: RATE_LIMIT refuses even the right code after N attempts" {
	local key code
	for MOD in $MODS; do
		U=$(user rate)
		key=$(e2e_totp_state "$U" --rate-limit=2/30 2>/dev/null)
		stack 'auth required @MOD@'
		code=$(e2e_code "$key")
		login "$U" "$(wrong "$code")"
		refused
		login "$U" "$(wrong "$code")"
		refused
		login "$U" "$code"
		refused
	done
}

@test "sshd: password (pam_unix), then code" {
	local key code pw
	for MOD in $MODS; do
		pw=pw-$RANDOM$RANDOM
		U=$(user unix "$pw")
		key=$(e2e_totp_state "$U" --disallow-reuse 2>/dev/null)
		stack 'auth required pam_unix.so' 'auth required @MOD@'
		code=$(e2e_code "$key")
		login "$U" "$pw" "$code"
		accepted "$U"
		assert_line "prompt noecho Password: "
		assert_line "prompt noecho Verification code: "
		login "$U" "$pw-x" "$(e2e_code "$key" 30)"
		refused
		login "$U" "$pw" "$(wrong "$code")"
		refused
	done
}

@test "sshd: forward_pass: one answer, code at its end, password to pam_unix" {
	local key code pw
	for MOD in $MODS; do
		pw=pw-$RANDOM$RANDOM
		U=$(user fwd "$pw")
		key=$(e2e_totp_state "$U" --disallow-reuse 2>/dev/null)
		stack 'auth required @MOD@ forward_pass' \
		    'auth required pam_unix.so use_first_pass'
		code=$(e2e_code "$key")
		login "$U" "$pw$code"
		accepted "$U"
		assert_line "prompt noecho Password & verification code: "
		refute_line "prompt noecho Password: "
		login "$U" "$pw-x$(e2e_code "$key" 30)"
		refused
		login "$U" "$pw$(wrong "$code")"
		refused
	done
}

@test "sshd: publickey, then code (AuthenticationMethods)" {
	local key code home
	[[ -f $E2E_DIR/clientkey ]] ||
	    ssh-keygen -q -t ed25519 -N '' -C '' -f "$E2E_DIR/clientkey" \
	    </dev/null
	for MOD in $MODS; do
		U=$(e2e_user_add "pk-$MOD")
		home=$(getent passwd "$U" | cut -d: -f6)
		e2e_as "$U" sh -c 'umask 077; mkdir .ssh; cat >.ssh/authorized_keys' \
		    <"$E2E_DIR/clientkey.pub"
		key=$(e2e_totp_state "$U" --disallow-reuse 2>/dev/null)
		stack 'auth required @MOD@'
		code=$(e2e_code "$key")
		# Keyboard-interactive alone is not enough for this user.
		login "$U" "$code"
		refused
		run ! grep -qx "prompt.*Verification code: " <<<"$output"
		login "$U" --key "$E2E_DIR/clientkey" "$code"
		accepted "$U"
		assert_line "methods keyboard-interactive"
		assert_line "prompt noecho Verification code: "
		login "$U" --key "$E2E_DIR/clientkey" "$(wrong "$code")"
		refused
		assert_line "methods keyboard-interactive"
		[[ -d $home ]]
	done
}

# One login waits at the prompt (ssh-login.py --hold) while a second one
# of the same user logs in with the code; then the first answers the same
# code.  The waiting login must not block the other, and must see, when
# its answer comes, the file as the other left it: the replay is refused
# (by the original too).
@test "sshd: a second login while another waits at the prompt" {
	local key code h pid i rc
	for MOD in $MODS; do
		U=$(user wait)
		key=$(e2e_totp_state "$U" --disallow-reuse 2>/dev/null)
		stack 'auth required @MOD@'
		code=$(e2e_code "$key")
		h=$E2E_DIR/hold-$MOD
		printf '%s\n' "$code" >>"$E2E_DIR/answers"
		timeout 90 /usr/bin/python3 "$BATS_TEST_DIRNAME/ssh-login.py" \
		    "$SSHD_PORT" "$U" --hold "$h" "$code" >"$h.out" 2>&1 3>&- &
		pid=$!
		for ((i = 0; i < 600; i++)); do
			[[ ! -e $h.waiting ]] || break
			sleep 0.05
		done
		[[ -e $h.waiting ]] || fail "the first login never got a prompt"
		# Not blocked by the one waiting.
		run timeout 20 /usr/bin/python3 "$BATS_TEST_DIRNAME/ssh-login.py" \
		    "$SSHD_PORT" "$U" "$code"
		accepted "$U"
		touch "$h"
		rc=0
		wait "$pid" || rc=$?
		[[ $rc == 1 ]] || fail "replay not refused: $(cat "$h.out")"
		grep -q '^auth refused' "$h.out"
		grep -qx 'prompt noecho Verification code: ' "$h.out"
	done
}

# refusal_logged REGEX: since the mark, the module logged exactly one line
# at error or warning priority, about $U, and it matches REGEX.
refusal_logged() {
	local lines
	lines=$(syslog_since | grep -E '^[34] ') || true
	echo "# $lines"
	[[ $(grep -c . <<<"$lines") == 1 ]] ||
	    fail "expected one line, got: ${lines:-nothing}"
	grep -qF "\"$U\"" <<<"$lines" || fail "the user is not named: $lines"
	grep -qE -- "$1" <<<"$lines" || fail "no reason /$1/ in: $lines"
}

@test "sshd: every refusal is logged once, with the user and why" {
	local key code st home
	MOD=otp
	U=$(user log)
	key=$(e2e_totp_state "$U" --disallow-reuse --rate-limit=3/30 2>/dev/null)
	st=$(e2e_state_path "$U")
	home=$(dirname "$st")
	stack 'auth required @MOD@'
	code=$(e2e_code "$key")
	syslog_mark
	login "$U" "$(wrong "$code")"
	refused
	refusal_logged ': wrong code'
	syslog_mark
	login "$U" "$code"
	accepted "$U"
	syslog_since | grep -q "^6 .*accepted verification code for \"$U\""
	syslog_mark
	login "$U" "$code"
	refused
	refusal_logged 'already used'
	syslog_mark
	login "$U" "$code"
	refused
	refusal_logged 'RATE_LIMIT'
	# The file, and the system's reason, when it cannot be used.
	chmod 0644 "$st"
	syslog_mark
	login "$U" "$code"
	refused
	refusal_logged "\"$st\": .*(too open|permissive)"
	chmod 0400 "$st"
	chmod 0 "$home"
	syslog_mark
	login "$U" "$code"
	chmod 0700 "$home"
	refused
	refusal_logged "\"$st\": Permission denied"
	mv "$st" "$st.aside"
	syslog_mark
	login "$U" "$code"
	refused
	assert_line "prompt noecho Verification code: "
	refusal_logged "no state file \"$st\" \(No such file or directory\)"
}

# Every answer any test gave (codes, scratch codes, passwords) is in
# $E2E_DIR/answers; none may be in the module's or the server's log.
@test "sshd: no code or password given is ever logged" {
	local a n=0 logs
	[[ -s $E2E_DIR/answers ]] || skip "no login ran"
	logs=$(sed 's/^[0-9]* [^:]*: //' "$E2E_SYSLOG"; cat "$E2E_DIR/sshd.log")
	while read -r a; do
		[[ -n $a ]] || continue
		n=$((n + 1))
		if grep -qwF -- "$a" <<<"$logs"; then
			fail "'$a' is in the log: $(grep -wF -- "$a" <<<"$logs")"
		fi
	done <"$E2E_DIR/answers"
	echo "# $n answers, $(wc -l <"$E2E_SYSLOG") syslog lines checked"
	# The module did log (the shim works).
	grep -q 'pam_otp(' "$E2E_SYSLOG"
}

# timed_login USER ANSWER: login, and its time in milliseconds in MS.
timed_login() {
	local t0=${EPOCHREALTIME/./}
	login "$@"
	MS=$(((${EPOCHREALTIME/./} - t0) / 1000))
}

# With forward_pass, a wrong code stops at pam_otp.so and pam_unix never
# checks the password, so it asks libpam for no delay: refused at once,
# where a wrong password waits pam_unix's 2 s.  pam_faildelay.so first in
# the stack gives every failure the same delay (pam_otp.8).
@test "sshd: forward_pass: pam_faildelay evens out the refusals' timing" {
	local key code pw code_ms pw_ms
	MOD=otp
	pw=pw-$RANDOM$RANDOM
	U=$(user delay "$pw")
	key=$(e2e_totp_state "$U" 2>/dev/null)
	stack 'auth required @MOD@ forward_pass' \
	    'auth required pam_unix.so use_first_pass'
	code=$(e2e_code "$key")
	timed_login "$U" "$pw$(wrong "$code")"
	refused
	code_ms=$MS
	timed_login "$U" "$pw-x$code"
	refused
	pw_ms=$MS
	echo "# without pam_faildelay: wrong code ${code_ms} ms," \
	    "wrong password ${pw_ms} ms"
	((pw_ms - code_ms > 900))
	stack 'auth optional pam_faildelay.so delay=3000000' \
	    'auth required @MOD@ forward_pass' \
	    'auth required pam_unix.so use_first_pass'
	timed_login "$U" "$pw$(wrong "$code")"
	refused
	code_ms=$MS
	timed_login "$U" "$pw-x$(e2e_code "$key" 30)"
	refused
	pw_ms=$MS
	echo "# with pam_faildelay delay=3000000: wrong code ${code_ms} ms," \
	    "wrong password ${pw_ms} ms"
	((code_ms > 1500 && pw_ms > 1500))
}

@test "e2e: nothing is left behind" {
	e2e_cleanup
	e2e_check_clean
}

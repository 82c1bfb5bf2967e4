#!/usr/bin/env bats
# console.bats - pam_otp.so behind a console login: the system's own
# /bin/login and su, as root (make check-e2e).
#
# login always reads the PAM service "login", su "su" and su - "su-l", so
# the suite never writes those files: each login runs in a mount
# namespace of its own (unshare -m, private propagation) where a copy of
# /etc/pam.d is bind-mounted over /etc/pam.d.  The copy is the machine's
# files with examples/console/pam.d/otp-console installed as shipped (only
# the module's path put in) and included in login and su as the example
# says.  /var/log and /run are private directories of the suite in that
# namespace too, so the records login and su write (wtmp, btmp, lastlog,
# utmp) and the message of the day pam_motd.so makes land there, never in
# the machine's.  The terminal is a pseudo terminal (tests/pty-drive.py)
# answering the password, then the code, then typing `id -un; exit` in
# the shell.  gdm asks the same conversation but needs systemd, logind,
# dbus and a display: login stands in for it.

bats_require_minimum_version 1.5.0

# What login, su and pam_motd.so could write outside the namespace; the
# last test checks each is as it was.
WATCHED="/var/log/wtmp /var/log/btmp /var/log/lastlog /var/log/faillog
/run/utmp /run/motd.dynamic /etc/pam.d/login /etc/pam.d/su /etc/pam.d/su-l"

# watched_state: one line per watched path: its size, time and checksum,
# or "none".
watched_state() {
	local f
	for f in $WATCHED; do
		if [[ -e $f ]]; then
			printf '%s %s %s\n' "$f" "$(stat -c '%s %Y' "$f")" \
			    "$(md5sum <"$f" | cut -d' ' -f1)"
		else
			printf '%s none\n' "$f"
		fi
	done
}

setup_file() {
	load ../common
	load lib
	e2e_setup_file login util-linux
	local d=$E2E_DIR f
	EXAMPLE=$BATS_TEST_DIRNAME/../../examples/console/pam.d/otp-console
	watched_state >"$d/watched.before"
	# The namespace's /etc/pam.d: the machine's, the example as shipped
	# with the module's path, and its include after common-auth.
	cp -a /etc/pam.d "$d/pam.d" ||
	    { fail "cannot copy /etc/pam.d"; return 1; }
	sed "/^[^#]/s|pam_otp\.so|$OTP_LIBDIR/pam_otp.so|" "$EXAMPLE" \
	    >"$d/pam.d/otp-console"
	for f in login su; do
		if ! grep -qx '@include common-auth' "$d/pam.d/$f"; then
			fail "/etc/pam.d/$f has no \"@include common-auth\" line"
			return 1
		fi
		sed -i '/^@include common-auth$/a @include otp-console' \
		    "$d/pam.d/$f"
	done
	# The same with grace_period: a console has no remote host to match.
	cp -a "$d/pam.d" "$d/pam.d-grace"
	sed -i '/^auth/s/$/ grace_period=3600/' "$d/pam.d-grace/otp-console"
	# Private /var/log and /run: the files login and su write exist, so
	# that they do write them (here).
	mkdir -m 0755 "$d/log" "$d/run"
	for f in wtmp btmp lastlog faillog; do
		install -m 0664 /dev/null "$d/log/$f"
	done
	install -m 0664 /dev/null "$d/run/utmp"
	PTY_DRIVE=$BATS_TEST_DIRNAME/../pty-drive.py
	export EXAMPLE PTY_DRIVE
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
}

teardown() {
	if [[ -z ${BATS_TEST_COMPLETED:-} ]]; then
		printf '# terminal:\n'
		printf '%s\n' "$output" | sed 's/^/#   /'
	fi
}

# console STEP... -- CMD...: run CMD on a pseudo terminal, following
# pty-drive.py's steps; status and output as bats' run, the terminal's
# carriage returns removed.
console() {
	run bash -o pipefail -c '"$@" | tr -d "\r"' console \
	    /usr/bin/python3 "$PTY_DRIVE" "$@"
}

# The suite's mount namespace: a pam.d directory of the suite ($1: pam.d,
# or pam.d-grace) and its log and run directories over the machine's, for
# the command that follows ($0 is the suite's directory).
# shellcheck disable=SC2016  # expanded by that sh
NS=(unshare -m --propagation private sh -c 'cd / &&
mount --bind "$0/$1" /etc/pam.d && mount --bind "$0/log" /var/log &&
mount --bind "$0/run" /run && shift && exec "$@"')

# try THEN PASSWORD CODE CMD...: run CMD on a terminal in the namespace
# (its /etc/pam.d the suite's $PAMD, pam.d unless set), answer the
# password and the code it asks for (CODE "-": none is asked), then, by
# THEN: "shell" types `id -un; exit` at the shell's prompt; "login" waits
# for login's refusal and hangs up; "su" waits for su's refusal.
try() {
	local then=$1 pw=$2 code=$3 steps=()
	shift 3
	[[ $code == - ]] ||
	    steps=("wait:Verification code: " mark "send:$code\r")
	case $then in
	shell) steps+=('wait:$ ' 'send:id -un; exit\r') ;;
	login) steps+=('wait:Login incorrect' 'wait:login: ' signal:HUP) ;;
	su) steps+=('wait:Authentication failure') ;;
	esac
	console wait:Password: mark "send:$pw\r" "${steps[@]}" -- \
	    "${NS[@]}" "$E2E_DIR" "${PAMD:-pam.d}" "$@"
}

# shell_ran USER: the shell ran as USER and the session ended well.
shell_ran() {
	assert_success
	assert_line "$1"
	assert_line --partial '[pty] status=0 '
}

# refused USER: no shell ran.
refused() {
	assert_success
	refute_line "$1"
	refute_line --partial '$ '
}

# as_user USER: AS, setpriv's arguments to run as a plain user.
as_user() {
	AS=(setpriv --reuid="$1" --regid="$1" --init-groups)
}

# wrong CODE: a 6-digit code that is not CODE nor one of its neighbours.
wrong() {
	printf '%06d\n' $(((10#$1 + 500000) % 1000000))
}

@test "console: the namespace's stack is the machine's with examples/console as shipped" {
	# The example, with only the module's path put in.
	run diff "$EXAMPLE" <(sed "s|$OTP_LIBDIR/pam_otp\.so|pam_otp.so|" \
	    "$E2E_DIR/pam.d/otp-console")
	assert_success
	run grep -c '^auth.*pam_otp\.so' "$EXAMPLE"
	assert_output 1
	# login and su: the include, after common-auth; nothing else.
	local f
	for f in login su; do
		run diff "/etc/pam.d/$f" "$E2E_DIR/pam.d/$f"
		assert_failure 1
		assert_output --regexp $'^[0-9]+a[0-9]+\n> @include otp-console$'
	done
	run diff -r -x login -x su -x otp-console /etc/pam.d "$E2E_DIR/pam.d"
	assert_success
	run diff "$E2E_DIR/pam.d/otp-console" "$E2E_DIR/pam.d-grace/otp-console"
	assert_failure 1
	assert_line --regexp '^> auth.*pam_otp\.so grace_period=3600$'
}

@test "console: login: password then the right code reaches a shell; reuse and a wrong code are refused, grace_period or not" {
	local pw=pw-$RANDOM$RANDOM u key code
	u=$(e2e_user_add login "$pw")
	key=$(e2e_totp_state "$u" --disallow-reuse 2>/dev/null)
	e2e_fresh_step
	code=$(e2e_code "$key")
	try shell "$pw" "$code" login "$u"
	shell_ran "$u"
	assert_line 'Verification code: '
	# Asked without echo: neither answer is on the terminal.
	refute_output --partial "$pw"
	refute_output --partial "$code"
	try login "$pw" "$code" login "$u"
	refused "$u"
	# With grace_period (login's PAM_RHOST is empty): a code, then a
	# wrong code is still refused, and no host was recorded.
	PAMD=pam.d-grace try shell "$pw" "$(e2e_code "$key" 30)" login "$u"
	shell_ran "$u"
	PAMD=pam.d-grace try login "$pw" "$(wrong "$code")" login "$u"
	refused "$u"
	run ! grep -q LAST "$(e2e_state_path "$u")"
	# The records went to the namespace's files.
	[[ -s $E2E_DIR/log/wtmp && -s $E2E_DIR/log/btmp ]]
}

@test "console: su and su -: the right code reaches a shell; reuse and a wrong password are refused; root is asked nothing" {
	local pw=pw-$RANDOM$RANDOM u key code AS
	as_user "$(e2e_user_add caller)"
	u=$(e2e_user_add target "$pw")
	key=$(e2e_totp_state "$u" --disallow-reuse 2>/dev/null)
	e2e_fresh_step
	code=$(e2e_code "$key")
	try shell "$pw" "$code" "${AS[@]}" su "$u"
	shell_ran "$u"
	try su "$pw" "$code" "${AS[@]}" su "$u"
	refused "$u"
	assert_line --partial '[pty] status=1 '
	# A wrong password ends the stack in common-auth: no code is asked.
	try su "$pw-x" - "${AS[@]}" su "$u"
	refused "$u"
	refute_output --partial 'Verification code'
	# root is let in by pam_rootok.so, above the include: nothing asked.
	run "${NS[@]}" "$E2E_DIR" pam.d su "$u" -c 'id -un' </dev/null
	assert_success
	assert_output "$u"
	# su - (service su-l, which includes su): the next step's code.
	try shell "$pw" "$(e2e_code "$key" 30)" "${AS[@]}" su - "$u"
	shell_ran "$u"
}

@test "e2e: nothing is left behind" {
	e2e_cleanup
	e2e_check_clean
	# The machine's records and PAM files are as they were.
	run diff "$E2E_DIR/watched.before" <(watched_state)
	assert_success
}

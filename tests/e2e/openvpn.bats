#!/usr/bin/env bats
# openvpn.bats - pam_otp.so behind OpenVPN 2.6's auth-pam plugin, as root
# (make check-e2e).
#
# Four servers on 127.0.0.1, each on its own port and tun device (no
# address is set on it: --ifconfig-noexec --route-noexec), each made from
# the shipped examples/openvpn/server.conf with only the test's port,
# device, keys (OpenVPN's sample keys) and PAM service put in:
#
#	challenge  as shipped: Unix password, then the code as the static
#		   challenge's response (pam.d/openvpn-otp-challenge)
#	code	   the example's code-alone plugin line (pam.d/openvpn-otp)
#	pass	   the example's forward_pass line (pam.d/openvpn-otp-pass)
#	nogen	   the challenge server without auth-gen-token: the same
#		   renegotiation must fail there, so that the test would see a
#		   broken example
#
# The PAM services are the example's pam.d files as new /etc/pam.d files
# of this suite, with the build's pam_otp.so.  The clients are
# examples/openvpn/client.conf (static-challenge commented out for the
# code and pass servers), with the server's address, --dev null and the
# sample keys; each runs on a terminal of its own and is answered as a
# person types (tests/e2e/openvpn-tty.py).  The servers' syslog lines (the
# module's) go to a file (tests/e2e/syslog-file.c).  Without /dev/net/tun
# the whole suite is skipped, saying so.

bats_require_minimum_version 1.5.0

# The example's three plugin lines (one on, two commented out) and its
# token line, as shipped.
P_SO='plugin openvpn-plugin-auth-pam.so'
P_CHALLENGE="$P_SO \"openvpn-otp-challenge login USERNAME password PASSWORD verification OTP\""
P_CODE="#$P_SO openvpn-otp"
P_PASS="#$P_SO openvpn-otp-pass"
P_TOKEN='auth-gen-token 43200'
SAMPLE_KEYS=/usr/share/doc/openvpn/examples/sample-keys

setup_file() {
	load ../common
	load lib
	load radius
	# Checked before the rig makes anything, and said by every test
	# (setup): bats 1.8 takes a skip in setup_file for a failure.
	if [[ ! -c /dev/net/tun ]]; then
		VPN_SKIP="e2e: /dev/net/tun is missing: an OpenVPN server needs a tun device"
	elif ! (exec 3<>/dev/net/tun) 2>/dev/null; then
		VPN_SKIP="e2e: /dev/net/tun cannot be opened here: an OpenVPN server needs a tun device"
	fi
	if [[ -n ${VPN_SKIP:-} ]]; then
		export VPN_SKIP
		return 0
	fi
	e2e_setup_file openvpn
	local kind shim
	VPN_EXAMPLE=$(cd "$BATS_TEST_DIRNAME/../../examples/openvpn" && pwd)
	V=$E2E_DIR/openvpn
	mkdir -m 0755 "$V"
	# Deferred authentication's files: the server has become nobody
	# (the example's user and group) when it writes them.
	mkdir -m 0700 "$V/tmp"
	chown nobody:nogroup "$V/tmp"
	SVC_CODE=$E2E_TAG-openvpn-otp
	SVC_CHALLENGE=$E2E_TAG-openvpn-otp-challenge
	SVC_PASS=$E2E_TAG-openvpn-otp-pass
	export VPN_EXAMPLE V SVC_CODE SVC_CHALLENGE SVC_PASS
	vpn_pam openvpn-otp "$SVC_CODE" || return 1
	vpn_pam openvpn-otp-challenge "$SVC_CHALLENGE" || return 1
	vpn_pam openvpn-otp-pass "$SVC_PASS" || return 1
	shim=$(e2e_syslog_shim)
	E2E_SYSLOG=$E2E_DIR/syslog
	: >"$E2E_SYSLOG"
	chmod 0666 "$E2E_SYSLOG"
	export E2E_SYSLOG
	for kind in challenge code pass nogen; do
		vpn_server_conf "$kind" || return 1
		e2e_daemon_start "server-$kind" "$V/server-$kind.log" \
		    env LD_PRELOAD="$shim" E2E_SYSLOG="$E2E_SYSLOG" \
		    /usr/sbin/openvpn --config "$V/server-$kind.conf" \
		    --local 127.0.0.1 --dev-type tun --ifconfig-noexec \
		    --route-noexec --tmp-dir "$V/tmp" >/dev/null
	done
	for kind in challenge code pass nogen; do
		vpn_wait "$V/server-$kind.log" 'Initialization Sequence Completed' ||
		    { fail "server $kind: $(tail -5 "$V/server-$kind.log")"; return 1; }
	done
}

teardown_file() {
	load ../common
	load lib
	e2e_teardown_file
}

setup() {
	load ../common
	load lib
	load radius
	[[ -z ${VPN_SKIP:-} ]] || skip "$VPN_SKIP"
	[[ -n ${E2E_DIR:-} ]] || skip "e2e: suite not set up"
}

teardown() {
	if [[ -n ${BATS_TEST_COMPLETED:-} ]]; then
		return 0
	fi
	local f
	for f in "$V"/server-*.log "$V"/client-*.log "$E2E_SYSLOG"; do
		[[ -f $f ]] || continue
		echo "# $f (tail):"
		tail -n 15 "$f" | tr -d '\r' | sed 's/^/#   /'
	done
}

# vpn_pam FILE SERVICE: the example's pam.d/FILE as /etc/pam.d/SERVICE,
# with the build's pam_otp.so.
vpn_pam() {
	cp "$VPN_EXAMPLE/pam.d/$1" "$V/pam.d-$1" &&
	    rad_subst "$V/pam.d-$1" pam_otp.so "$OTP_LIBDIR/pam_otp.so" &&
	    e2e_pam_service "$2" <"$V/pam.d-$1"
}

# vpn_dev KIND: the server's tun device, named for the run.
vpn_dev() {
	case $1 in
	challenge) printf '%s1\n' "$E2E_TAG" ;;
	code) printf '%s2\n' "$E2E_TAG" ;;
	pass) printf '%s3\n' "$E2E_TAG" ;;
	nogen) printf '%s4\n' "$E2E_TAG" ;;
	esac
}

# vpn_server_conf KIND: $V/server-KIND.conf from the example, its port in
# $V/port-KIND.
vpn_server_conf() {
	local kind=$1 f=$V/server-$1.conf port
	port=$(e2e_port) || return 1
	printf '%s\n' "$port" >"$V/port-$kind"
	cp "$VPN_EXAMPLE/server.conf" "$f" || return 1
	rad_subst "$f" 'port 1194' "port $port" \
	    'dev tun' "dev $(vpn_dev "$kind")" \
	    /etc/openvpn/server/ca.crt "$SAMPLE_KEYS/ca.crt" \
	    /etc/openvpn/server/server.crt "$SAMPLE_KEYS/server.crt" \
	    /etc/openvpn/server/server.key "$SAMPLE_KEYS/server.key" \
	    "$P_CHALLENGE" "${P_CHALLENGE/openvpn-otp-challenge/$SVC_CHALLENGE}" ||
	    return 1
	# The other plugin lines, each with the suite's service, in place
	# of the challenge one.
	case $kind in
	code)
		rad_subst "$f" "${P_CHALLENGE/openvpn-otp-challenge/$SVC_CHALLENGE}" \
		    "#$P_CHALLENGE" "$P_CODE
" "$P_SO $SVC_CODE
" ;;
	pass)
		rad_subst "$f" "${P_CHALLENGE/openvpn-otp-challenge/$SVC_CHALLENGE}" \
		    "#$P_CHALLENGE" "$P_PASS" "$P_SO $SVC_PASS" ;;
	nogen)
		rad_subst "$f" "$P_TOKEN
" '' ;;
	esac
}

# vpn_wait FILE TEXT...: wait until FILE has a line with one of the TEXTs
# (fixed strings) and print the first such line; fails after 30 s.
vpn_wait() {
	local f=$1 i t
	shift
	for ((i = 0; i < 600; i++)); do
		for t in "$@"; do
			if [[ -f $f ]] && grep -qF -- "$t" "$f"; then
				grep -F -- "$t" "$f" | head -n 1
				return 0
			fi
		done
		sleep 0.05
	done
	return 1
}

# client NAME KIND USER ANSWER... [-- OPENVPN-ARG...]: start a client of
# server KIND as daemon client-NAME, its terminal in $V/client-NAME.log,
# answered with USER, then the ANSWERs (the password, the challenge's
# response).  Every answer is written down in $E2E_DIR/answers: the last
# test looks for each in the logs.
client() {
	local name=$1 kind=$2 f=$V/client-$1.conf a
	shift 2
	cp "$VPN_EXAMPLE/client.conf" "$f" || return 1
	rad_subst "$f" 'remote vpn.example.org 1194' \
	    "remote 127.0.0.1 $(cat "$V/port-$kind")" \
	    'dev tun' 'dev null' \
	    'ca ca.crt' "ca $SAMPLE_KEYS/ca.crt" \
	    'cert client.crt' "cert $SAMPLE_KEYS/client.crt" \
	    'key client.key' "key $SAMPLE_KEYS/client.key" || return 1
	if [[ $kind == code || $kind == pass ]]; then
		rad_subst "$f" '
static-challenge' '
#static-challenge' || return 1
	fi
	(umask 077 && : >"$V/answers-$name")
	while (($# > 0)) && [[ $1 != -- ]]; do
		printf '%s\n' "$1" >>"$V/answers-$name"
		[[ $1 == "$E2E_TAG"-* ]] || printf '%s\n' "$1" >>"$E2E_DIR/answers"
		shift
	done
	[[ ${1:-} != -- ]] || shift
	e2e_daemon_start "client-$name" "$V/client-$name.out" \
	    /usr/bin/python3 "$BATS_TEST_DIRNAME/openvpn-tty.py" \
	    "$V/answers-$name" "$V/client-$name.log" --config "$f" \
	    --ifconfig-noexec --route-noexec "$@" >/dev/null
}

# outcome NAME: wait for client NAME's login to end and set OUTCOME to
# "connected" or "refused"; the client is left running.
outcome() {
	local line
	line=$(vpn_wait "$V/client-$1.log" 'Initialization Sequence Completed' \
	    'AUTH_FAILED') || { fail "client $1: no outcome within 30 s"; return 1; }
	case $line in
	*AUTH_FAILED*) OUTCOME=refused ;;
	*) OUTCOME=connected ;;
	esac
}

# settle NAME...: wait for each client's login to end, then stop it;
# OUT[NAME] is "connected" or "refused".  Clients started together log in
# at once; only refusals may (all the clients have one certificate, and
# the server drops a client's session when another one with its name
# comes in).
settle() {
	local n
	declare -gA OUT
	for n in "$@"; do
		outcome "$n" || return 1
		OUT[$n]=$OUTCOME
		e2e_daemon_stop "client-$n"
	done
}

# login NAME KIND USER ANSWER...: one client's login, ended; sets OUTCOME.
login() {
	client "$@" || return 1
	settle "$1"
}

# enrol NAME [PASSWORD]: a new test user (with PASSWORD for pam_unix)
# and a TOTP state file with DISALLOW_REUSE; sets U and KEY.
enrol() {
	U=$(e2e_user_add "$1" "${2:-}") || return 1
	KEY=$(e2e_totp_state "$U" --disallow-reuse 2>/dev/null) ||
	    { fail "otp-keygen for $U failed"; return 1; }
}

# syslog_of USER: the module's log lines about USER.
syslog_of() {
	grep -F "pam_otp(" "$E2E_SYSLOG" | grep -F "\"$1\"" || true
}

# wrong CODE: a 6-digit code that is not CODE nor one of its neighbours.
wrong() {
	printf '%06d\n' $(((10#$1 + 500000) % 1000000))
}

@test "openvpn: the servers are examples/openvpn/server.conf with only port, device, keys and service put in" {
	local kind n
	for kind in challenge code pass nogen; do
		run diff "$VPN_EXAMPLE/server.conf" "$V/server-$kind.conf"
		assert_failure 1
		n=$(diff "$VPN_EXAMPLE/server.conf" "$V/server-$kind.conf" |
		    grep -c '^>' || true)
		case $kind in
		challenge) [[ $n == 6 ]] ;;
		code | pass) [[ $n == 7 ]] ;;
		nogen) [[ $n == 6 ]] ;;
		esac || fail "$kind: $n lines changed"
	done
	# nogen is challenge less its token line, nothing else.
	run diff <(grep -v '^port \|^dev ' "$V/server-challenge.conf") \
	    <(grep -v '^port \|^dev ' "$V/server-nogen.conf")
	assert_output --regexp "^[0-9]+d[0-9]+
< $P_TOKEN\$"
	# The servers run as nobody, their PAM helper as root.
	run grep -F 'UID set to nobody' "$V/server-challenge.log"
	assert_success
}

@test "openvpn: a code alone: the right code connects, a wrong one is refused" {
	local u key code
	enrol code
	u=$U key=$KEY
	code=$(e2e_code "$key")
	login code-wrong code "$u" "$(wrong "$code")"
	[[ $OUTCOME == refused ]]
	login code-right code "$u" "$code"
	[[ $OUTCOME == connected ]]
	run syslog_of "$u"
	assert_line --partial "invalid verification code for \"$u\": wrong code"
	assert_line --partial "accepted verification code for \"$u\""
	# The code was asked as a password, without echo.
	run grep -F 'Enter Auth Password:' "$V/client-code-right.log"
	assert_success
}

@test "openvpn: a code used once is refused on a new connection" {
	local u key code
	enrol reuse
	u=$U key=$KEY
	code=$(e2e_code "$key")
	login reuse-1 code "$u" "$code"
	[[ $OUTCOME == connected ]]
	login reuse-2 code "$u" "$code"
	[[ $OUTCOME == refused ]]
	run syslog_of "$u"
	assert_line --partial "invalid verification code for \"$u\": code already used"
}

@test "openvpn: static challenge: the Unix password (pam_unix), then the code as the response" {
	local u key code pw=pw-$RANDOM$RANDOM
	enrol chal "$pw"
	u=$U key=$KEY
	code=$(e2e_code "$key")
	login chal-wrong challenge "$u" "$pw" "$(wrong "$code")"
	[[ $OUTCOME == refused ]]
	login chal-right challenge "$u" "$pw" "$code"
	[[ $OUTCOME == connected ]]
	# The client asked the challenge after the password, without echo.
	run grep -E '^(Enter Auth Password:|CHALLENGE: Verification code)' \
	    "$V/client-chal-right.log"
	assert_line --index 0 --partial 'Enter Auth Password:'
	assert_line --index 1 --partial 'CHALLENGE: Verification code'
	# A wrong password with a good code is refused.
	login chal-pw challenge "$u" "$pw-x" "$(e2e_code "$key" 30)"
	[[ $OUTCOME == refused ]]
	run syslog_of "$u"
	assert_line --partial "invalid verification code for \"$u\": wrong code"
	assert_line --partial "accepted verification code for \"$u\""
}

@test "openvpn: forward_pass: password and code in one answer, deferred" {
	local u key code pw=pw-$RANDOM$RANDOM
	enrol pass "$pw"
	u=$U key=$KEY
	code=$(e2e_code "$key")
	login pass-right pass "$u" "$pw$code"
	[[ $OUTCOME == connected ]]
	# PAM ran in a process of its own, not in the server's.
	run grep -F "authentication deferred for username '$u'" \
	    "$V/server-pass.log"
	assert_success
	client pass-pw pass "$u" "$pw-x$(e2e_code "$key" 30)"
	client pass-code pass "$u" "$pw$(wrong "$(e2e_code "$key" 60)")"
	settle pass-pw pass-code
	[[ ${OUT[pass-pw]} == refused ]]
	[[ ${OUT[pass-code]} == refused ]]
	run syslog_of "$u"
	assert_line --partial "accepted verification code for \"$u\""
	assert_line --partial "invalid verification code for \"$u\": wrong code"
}

# reneg KIND NAME: a new user NAME logs in to server KIND with a code
# and renegotiates 3 s later (a short reneg-sec on its command line, in
# place of the default hour); prints "passed" when the server took the
# renegotiation, "refused" when PAM refused it.  The server's log says
# which: the client may not hear of a refusal (the deferred answer comes
# after its next key exchange began) until its ping-restart.
reneg() {
	local kind=$1 name=$2 u i pw=pw-$RANDOM$RANDOM
	local log=$V/server-$1.log
	enrol "$name" "$pw" || return 1
	u=$U
	client "$name" "$kind" "$u" "$pw" "$(e2e_code "$KEY")" -- \
	    --reneg-sec 3 || return 1
	outcome "$name" || return 1
	[[ $OUTCOME == connected ]] || { fail "$name: not connected"; return 1; }
	for ((i = 0; i < 600; i++)); do
		if grep -qF "auth-token authentication succeeded for username '$u'" \
		    "$log"; then
			echo passed
			return 0
		fi
		if grep -qF "$u: deferred auth: PAM rejected" "$log"; then
			echo refused
			return 0
		fi
		sleep 0.05
	done
	fail "$name: no outcome of the renegotiation within 30 s"
}

@test "openvpn: a renegotiation passes on the token (auth-gen-token, as shipped)" {
	local u=$E2E_TAG-reneg
	run reneg challenge reneg
	assert_success
	assert_output passed
	# The client renegotiated, never saw AUTH_FAILED and is still there;
	# PAM ran once.
	run grep -F 'TLS: soft reset' "$V/client-reneg.log"
	assert_success
	run grep -F AUTH_FAILED "$V/client-reneg.log"
	assert_failure
	e2e_alive "$(e2e_daemon_pid client-reneg)"
	run syslog_of "$u"
	assert_line --partial "accepted verification code for \"$u\""
	[[ ${#lines[@]} == 1 ]]
	e2e_daemon_stop client-reneg
}

@test "openvpn: without auth-gen-token the same renegotiation resends the used code and drops" {
	local u=$E2E_TAG-nogen
	run reneg nogen nogen
	assert_success
	assert_output refused
	# The server drops the client (nogen has no other).
	run vpn_wait "$V/server-nogen.log" "'AUTH_FAILED'"
	assert_success
	run syslog_of "$u"
	assert_line --partial "accepted verification code for \"$u\""
	assert_line --partial "invalid verification code for \"$u\": code already used"
	e2e_daemon_stop client-nogen
}

@test "openvpn: no code or password given is ever in a log" {
	local a n=0 f
	[[ -s $E2E_DIR/answers ]] || skip "no login ran"
	for f in "$V"/server-*.log "$V"/client-*.log "$V"/client-*.out \
	    "$E2E_SYSLOG"; do
		[[ -f $f ]] || continue
		while read -r a; do
			[[ -n $a ]] || continue
			n=$((n + 1))
			if grep -qwF -- "$a" "$f"; then
				fail "'$a' is in $f: $(grep -wF -- "$a" "$f")"
			fi
		done <"$E2E_DIR/answers"
	done
	echo "# $n checks"
	# The module did log (the shim works).
	grep -q 'pam_otp(' "$E2E_SYSLOG"
}

@test "openvpn: the servers stop; their devices are gone; nothing is left behind" {
	local kind
	for kind in challenge code pass nogen; do
		e2e_daemon_stop "server-$kind"
		run ip link show "$(vpn_dev "$kind")"
		assert_failure
	done
	e2e_cleanup
	e2e_check_clean
	run pgrep -f "$V/"
	assert_failure
	[[ -z $(find "$V/tmp" -mindepth 1) ]]
}

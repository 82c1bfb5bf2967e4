#!/usr/bin/env bats
# FreeRADIUS as the one verifier of many hosts (root; make check-e2e).
#
# One server, started unprivileged as the freerad account from one config
# tree in the suite's directory, made from the shipped example
# examples/freeradius with only ports, paths, the secret and delays
# changed (tests/e2e/radius.bash), answers on four 127.0.0.1 ports: through rlm_exec running otp-verify --radius, and
# through rlm_pam running pam_otp.so in its threads from a new
# /etc/pam.d service, each once with a state file per user
# (--state-dir=DIR, secret=DIR/${USER}) and once with one users file for
# all (--usersfile=FILE, usersfile=FILE).  radclient plays the hosts; one
# host runs pam_radius_auth.so from another new /etc/pam.d service.  The
# service files, the server and its ports are gone at the end (the last
# test checks).

bats_require_minimum_version 1.5.0

setup_file() {
	load ../common
	load lib
	load radius
	e2e_setup_file freeradius freeradius-utils libpam-radius-auth pamtester
	R=$E2E_DIR/radius
	RAD_PAM_SVC=$E2E_TAG-radius
	RAD_UPAM_SVC=$E2E_TAG-uradius
	HOST_SVC=$E2E_TAG-host
	rad_tree "$R" "$OTP_BIN" "$OTP_LIBDIR" || fail "cannot make $R"
	P_EXEC=$(e2e_port)
	P_PAM=$(e2e_port)
	P_UEXEC=$(e2e_port)
	P_UPAM=$(e2e_port)
	export R RAD_PAM_SVC RAD_UPAM_SVC HOST_SVC P_EXEC P_PAM P_UEXEC P_UPAM
	rad_pam_service "$R" >"$R/pam.svc" || fail "rad_pam_service"
	e2e_pam_service "$RAD_PAM_SVC" <"$R/pam.svc"
	rad_upam_service "$R" >"$R/upam.svc" || fail "rad_upam_service"
	e2e_pam_service "$RAD_UPAM_SVC" <"$R/upam.svc"
	# The host: pam_radius_auth asks the server on the pam_otp port.
	printf '127.0.0.1:%s %s 10\n' "$P_PAM" "$RAD_SECRET" >"$R/host.conf"
	chmod 0600 "$R/host.conf"
	printf 'auth required pam_radius_auth.so conf=%s\naccount required pam_permit.so\n' \
	    "$R/host.conf" | e2e_pam_service "$HOST_SVC"
	rad_conf "$R" "$P_EXEC" "$P_PAM" "" "$P_UEXEC" "$P_UPAM" ||
	    fail "cannot make the configuration from $RAD_EXAMPLE"
	run rad_check "$R"
	[[ $status == 0 ]] || fail "freeradius -C: $output"
	# pam_otp.so's log lines (syslog) go to a file of ours.
	e2e_daemon_start syslog "$R/log/syslogd.out" bash -c \
	    "source '$BATS_TEST_DIRNAME/radius.bash'; rad_syslogd '$R'" \
	    >/dev/null
	rad_wait_file "$R/syslog.sock" || fail "no syslog socket"
	e2e_daemon_start radius "$R/log/daemon.out" bash -c \
	    "source '$BATS_TEST_DIRNAME/radius.bash'; rad_server '$R'" \
	    >/dev/null
	e2e_wait_port "$P_EXEC"
	e2e_wait_port "$P_PAM"
	e2e_wait_port "$P_UEXEC"
	e2e_wait_port "$P_UPAM"
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
}

# need_syslog: skip a check of pam_otp.so's log lines where the server
# could not get a /dev/log of ours (no mount namespace).
need_syslog() {
	rad_can_unshare ||
	    skip "no mount namespace here: pam_otp.so's log lines are not read back"
}

# new_user KIND NAME [OPTION...]: enrol NAME for KIND (exec or pam) with
# DISALLOW_REUSE; sets KEY.  A fresh step, so a scenario stays in one.
new_user() {
	local kind=$1 u=$2
	shift 2
	KEY=$(rad_enrol "$R" "$kind" "$u" --disallow-reuse "$@") ||
	    fail "otp-keygen for $u failed"
	e2e_fresh_step 8
}

scratch() {
	sed -n "${3:-1}p" "$R/$1/.$2.scratch"
}

port_of() {
	case $1 in
	exec) echo "$P_EXEC" ;;
	pam) echo "$P_PAM" ;;
	uexec) echo "$P_UEXEC" ;;
	upam) echo "$P_UPAM" ;;
	esac
}

@test "examples/freeradius passes freeradius -C as shipped; the suite's server is made from it" {
	# As root: the server reads the tree, then becomes freerad (its
	# security section), as when an administrator checks it.  otp_python
	# imports its file once the server is freerad: a checkout closed to
	# it (under a 0700 home) is checked from a copy it can read.
	local x=$RAD_EXAMPLE pub=
	if ! runuser -u freerad -- test -r "$x/mods-config/python3/otp_radius.py"; then
		pub=$(mktemp -d /tmp/otp-e2e-example.XXXXXX)
		cp -r "$x" "$pub/freeradius" && chmod -R a+rX "$pub"
		x=$pub/freeradius
	fi
	run "$RAD_SBIN" -C -d "$x"
	[[ -z $pub ]] || rm -rf "$pub"
	assert_success
	# What the suite runs: the example's files, with ports and paths.
	local f
	for f in radiusd.conf clients.conf mods-enabled/otp_exec \
	    mods-enabled/otp_pam; do
		[[ -f $R/$f ]] || fail "$R/$f was not made"
	done
	run diff "$RAD_EXAMPLE/radiusd.conf" "$R/radiusd.conf"
	assert_failure 1
	# Only the lines a test server must have otherwise differ.
	run bash -c "diff '$RAD_EXAMPLE/radiusd.conf' '$R/radiusd.conf' |
	    grep -c '^>'"
	assert_output 6
}

# One scenario on both paths: right, reused, wrong, scratch codes.
codes_scenario() {
	local kind=$1 u=$1-alice p
	p=$(port_of "$kind")
	new_user "$kind" "$u"
	run rad_auth "$p" "$u" "$(rad_code "$KEY")"
	assert_success
	assert_line --index 0 --partial 'Access-Accept'
	run rad_auth "$p" "$u" "$(rad_code "$KEY")"
	assert_failure 1
	assert_line --index 0 --partial 'Access-Reject'
	# A code from ten minutes ahead is not in the window.
	run rad_auth "$p" "$u" "$(rad_code "$KEY" 600)"
	assert_failure 1
	run rad_auth "$p" "$u" "$(scratch "$kind" "$u")"
	assert_success
	run rad_auth "$p" "$u" "$(scratch "$kind" "$u")"
	assert_failure 1
	run rad_auth "$p" "$u" "$(scratch "$kind" "$u" 2)"
	assert_success
	# The state file stays the account's, mode 0400.
	run stat -c '%U %a' "$R/$kind/$u"
	assert_output "$RAD_ACCOUNT 400"
}

@test "rlm_exec: right code, reuse, wrong code, scratch codes once" {
	codes_scenario exec
}

@test "rlm_pam: right code, reuse, wrong code, scratch codes once" {
	codes_scenario pam
}

@test "rlm_exec: the Reply-Message says accepted or not, never why" {
	new_user exec exec-rm
	run rad_auth "$P_EXEC" exec-rm "$(rad_code "$KEY")"
	assert_success
	assert_line --index 1 --partial '"OTP accepted"'
	run rad_auth "$P_EXEC" exec-rm "$(rad_code "$KEY")"
	assert_failure 1
	assert_line --index 1 --partial '"OTP not accepted"'
	refute_output --partial 'already used'
	# The reason is in the server's log, the code is not.
	run grep -F '[exec-rm]' "$R/log/otp-radius.log"
	assert_output --partial 'code already used (DISALLOW_REUSE)'
	refute_output --partial "$(rad_code "$KEY")"
}

@test "rlm_exec and rlm_pam: a user name with a path in it names no file" {
	local p name
	for kind in exec pam; do
		p=$(port_of "$kind")
		new_user "$kind" "$kind-path"
		# A valid file outside the state directory, the account's.
		rad_as "$R/bin/otp-keygen" --totp --disallow-reuse \
		    --state="$R/$kind-outside" >/dev/null ||
		    fail "otp-keygen outside"
		[[ -f $R/$kind-outside ]]
		for name in "../$kind-outside" "$R/$kind-outside" \
		    "x/../../$kind-outside" "./$kind-path" ".$kind-path" \
		    "-$kind-path"; do
			run rad_auth "$p" "$name" "$(rad_code "$KEY")"
			assert_failure 1
		done
		run rad_auth "$p" "$kind-path" "$(rad_code "$KEY")"
		assert_success
	done
	run grep -F 'User-Name: character' "$R/log/otp-radius.log"
	assert_success
	need_syslog
	# The pam path refuses the names in pam_otp.so itself.
	run grep -F 'unfit to name a file' "$R/log/syslog"
	assert_success
}

@test "rlm_exec and rlm_pam: RATE_LIMIT refuses even the right code" {
	local kind p
	for kind in exec pam; do
		p=$(port_of "$kind")
		new_user "$kind" "$kind-rate" --rate-limit=2/30
		run rad_auth "$p" "$kind-rate" 000000
		run rad_auth "$p" "$kind-rate" 000000
		run rad_auth "$p" "$kind-rate" "$(rad_code "$KEY")"
		assert_failure 1
	done
	need_syslog
	run grep -F 'too many attempts' "$R/log/syslog"
	assert_success
}

# exactly_one_of_20 KIND: of the 20 answers rad_burst left in
# BATS_TEST_TMPDIR/KIND, one accept (0) and 19 refusals (1).
exactly_one_of_20() {
	local kind=$1 ok=0 no=0 f
	for f in "$BATS_TEST_TMPDIR/$kind"/*; do
		case $(cat "$f") in
		0) ok=$((ok + 1)) ;;
		1) no=$((no + 1)) ;;
		esac
	done
	echo "$kind: $ok accepted, $no refused" >&3
	[ "$ok" -eq 1 ]
	[ "$no" -eq 19 ]
}

# 20 hosts send one code at once: exactly one accept, the others refused
# as reused; the file is whole.
one_code_at_once() {
	local kind=$1 u=$1-burst p
	p=$(port_of "$kind")
	new_user "$kind" "$u"
	rad_burst "$p" 20 "$BATS_TEST_TMPDIR/$kind" "$u" "$(rad_code "$KEY")"
	exactly_one_of_20 "$kind"
	run rad_as "$R/bin/otp-keygen" --print-state="$R/$kind/$u"
	assert_success
}

@test "rlm_exec: 20 hosts send one code at once: exactly one accept" {
	one_code_at_once exec
}

@test "rlm_pam: 20 requests with one code at once: exactly one accept" {
	one_code_at_once pam
	need_syslog
	run grep -c "accepted verification code for \"pam-burst\"" "$R/log/syslog"
	assert_output 1
	run grep -c "invalid verification code for \"pam-burst\": code already used" \
	    "$R/log/syslog"
	assert_output 19
}

@test "rlm_pam: two users at once are both accepted, 20 times over" {
	local i ok=0 f
	new_user pam pam-two-a
	KEY_A=$KEY
	KEY=$(rad_enrol "$R" pam pam-two-b --disallow-reuse) || fail keygen
	KEY_B=$KEY
	rad_burst "$P_PAM" 1 "$BATS_TEST_TMPDIR/a" pam-two-a \
	    "$(rad_code "$KEY_A")" &
	rad_burst "$P_PAM" 1 "$BATS_TEST_TMPDIR/b" pam-two-b \
	    "$(rad_code "$KEY_B")" &
	wait
	[ "$(cat "$BATS_TEST_TMPDIR/a/1")" = 0 ]
	[ "$(cat "$BATS_TEST_TMPDIR/b/1")" = 0 ]
	# 20 users, each with its own code, all at once: no update lost.
	for i in $(seq 20); do
		rad_enrol "$R" pam "pam-many-$i" --disallow-reuse \
		    >"$BATS_TEST_TMPDIR/key.$i" || fail keygen
	done
	e2e_fresh_step 8
	for i in $(seq 20); do
		rad_code "$(cat "$BATS_TEST_TMPDIR/key.$i")" \
		    >"$BATS_TEST_TMPDIR/code.$i"
	done
	for i in $(seq 20); do
		rad_burst "$P_PAM" 1 "$BATS_TEST_TMPDIR/m$i" "pam-many-$i" \
		    "$(cat "$BATS_TEST_TMPDIR/code.$i")" &
	done
	wait
	for f in "$BATS_TEST_TMPDIR"/m*/1; do
		[ "$(cat "$f")" = 0 ] && ok=$((ok + 1))
	done
	[ "$ok" -eq 20 ]
	# Each file recorded its step: the same codes are refused now.
	for i in 1 7 20; do
		run rad_auth "$P_PAM" "pam-many-$i" \
		    "$(cat "$BATS_TEST_TMPDIR/code.$i")"
		assert_failure 1
	done
}

@test "rlm_pam: log lines name the user and the reason, never the code" {
	local c
	new_user pam pam-log
	c=$(rad_code "$KEY")
	rad_auth "$P_PAM" pam-log "$c"
	run rad_auth "$P_PAM" pam-log "$c"
	assert_failure 1
	need_syslog
	run grep -F '"pam-log"' "$R/log/syslog"
	assert_line --partial 'accepted verification code for "pam-log"'
	assert_line --partial 'invalid verification code for "pam-log": code already used'
	run grep -rF -e "$c" "$R/log"
	assert_failure
}

@test "a host with pam_radius_auth.so -> FreeRADIUS -> pam_otp.so, end to end" {
	local c
	new_user pam host-alice
	c=$(rad_code "$KEY")
	run pamtester "$HOST_SVC" host-alice authenticate <<<"$c"
	assert_success
	run pamtester "$HOST_SVC" host-alice authenticate <<<"$c"
	assert_failure
	run pamtester "$HOST_SVC" host-alice authenticate <<<000000
	assert_failure
	run pamtester "$HOST_SVC" nobody-here authenticate <<<"$c"
	assert_failure
}

@test "a host with pam_radius_auth.so -> FreeRADIUS -> otp-verify, end to end" {
	local c
	new_user exec host-bob
	# The host's second configuration names the rlm_exec port.
	printf '127.0.0.1:%s %s 10\n' "$P_EXEC" "$RAD_SECRET" >"$R/host.conf"
	c=$(rad_code "$KEY")
	run pamtester "$HOST_SVC" host-bob authenticate <<<"$c"
	assert_success
	run pamtester "$HOST_SVC" host-bob authenticate <<<"$c"
	assert_failure
	printf '127.0.0.1:%s %s 10\n' "$P_PAM" "$RAD_SECRET" >"$R/host.conf"
}

# ---- one users file for every user: --usersfile=FILE, usersfile=FILE ----

# unew KIND NAME: a token for NAME in KIND's users file (uexec or upam);
# sets KEY.  A fresh step, so a scenario stays in one.
unew() {
	KEY=$(rad_uenrol "$R" "$1" "$2") ||
	    fail "otp-keygen --usersfile for $2 failed"
	e2e_fresh_step 8
}

# uline KIND NAME: NAME's line in KIND's users file.
uline() {
	awk -F '\t' -v u="$2" '$2 == u' "$R/$1/users.oath"
}

# ulast KIND NAME: the last code recorded on NAME's line.
ulast() {
	uline "$1" "$2" | cut -f 6
}

ucodes_scenario() {
	local kind=$1 u=$1-alice p c
	p=$(port_of "$kind")
	unew "$kind" "$u"
	c=$(rad_code "$KEY")
	run rad_auth "$p" "$u" "$c"
	assert_success
	assert_line --index 0 --partial 'Access-Accept'
	[ "$(ulast "$kind" "$u")" = "$c" ]
	run rad_auth "$p" "$u" "$c"
	assert_failure 1
	assert_line --index 0 --partial 'Access-Reject'
	# A code from ten minutes ahead is not in the window.
	run rad_auth "$p" "$u" "$(rad_code "$KEY" 600)"
	assert_failure 1
	# A user without a token is refused.
	run rad_auth "$p" "$kind-nobody" "$c"
	assert_failure 1
	# The next step's code is taken: the file moves on.
	run rad_auth "$p" "$u" "$(rad_code "$KEY" 30)"
	assert_success
	# The file stays the account's, mode 0600, with nothing beside it.
	run stat -c '%U %a' "$R/$kind/users.oath"
	assert_output "$RAD_ACCOUNT 600"
	run ls "$R/$kind"
	assert_output users.oath
}

@test "rlm_exec --usersfile: right code, reuse, wrong code, unknown user" {
	ucodes_scenario uexec
}

@test "rlm_pam usersfile=: right code, reuse, wrong code, unknown user" {
	ucodes_scenario upam
}

@test "rlm_exec --usersfile: the reason is logged, never sent, never the code" {
	local c
	unew uexec uexec-rm
	c=$(rad_code "$KEY")
	run rad_auth "$P_UEXEC" uexec-rm "$c"
	assert_success
	assert_line --index 1 --partial '"OTP accepted"'
	run rad_auth "$P_UEXEC" uexec-rm "$c"
	assert_failure 1
	assert_line --index 1 --partial '"OTP not accepted"'
	refute_output --partial 'already used'
	run grep -F '[uexec-rm]' "$R/log/otp-radius.log"
	assert_output --partial 'code already used'
	refute_output --partial "$c"
	# Not a code's shape: refused before the file is read.
	run rad_auth "$P_UEXEC" uexec-rm 12ab
	assert_failure 1
	run grep -F 'not a code of 6 to 8 digits' "$R/log/otp-radius.log"
	assert_success
}

@test "rlm_exec --usersfile and rlm_pam usersfile=: a user name with a path in it" {
	local name before
	unew uexec uexec-path
	# One "Login incorrect" line per request names the reason.
	before=$(grep -c 'Login incorrect (uexec: .*User-Name: character' \
	    "$R/log/otp-radius.log" || true)
	for name in ../uexec-path "$R/uexec/users.oath" x/../uexec-path \
	    ./uexec-path .uexec-path -uexec-path; do
		run rad_auth "$P_UEXEC" "$name" "$(rad_code "$KEY")"
		assert_failure 1
	done
	run grep -c 'Login incorrect (uexec: .*User-Name: character' \
	    "$R/log/otp-radius.log"
	[ "$output" -eq $((before + 6)) ]
	run rad_auth "$P_UEXEC" uexec-path "$(rad_code "$KEY")"
	assert_success
	# usersfile= names one file: any name is only looked up in it.
	unew upam upam-path
	for name in ../upam-path "$R/upam/users.oath" .upam-path; do
		run rad_auth "$P_UPAM" "$name" "$(rad_code "$KEY")"
		assert_failure 1
	done
	run rad_auth "$P_UPAM" upam-path "$(rad_code "$KEY")"
	assert_success
}

# 20 hosts send one code at once: exactly one accept, the others refused
# as replayed; the line records the code.
uone_code_at_once() {
	local kind=$1 u=$1-burst p c
	p=$(port_of "$kind")
	unew "$kind" "$u"
	c=$(rad_code "$KEY")
	rad_burst "$p" 20 "$BATS_TEST_TMPDIR/$kind" "$u" "$c"
	exactly_one_of_20 "$kind"
	[ "$(ulast "$kind" "$u")" = "$c" ]
}

@test "rlm_exec --usersfile: 20 hosts send one code at once: exactly one accept" {
	uone_code_at_once uexec
}

@test "rlm_pam usersfile=: 20 requests with one code at once: exactly one accept" {
	uone_code_at_once upam
	need_syslog
	run grep -c "accepted verification code for \"upam-burst\"" "$R/log/syslog"
	assert_output 1
	run grep -c "invalid verification code for \"upam-burst\": code already used" \
	    "$R/log/syslog"
	assert_output 19
}

# Two users at once, then 20 users at once, each with its own code, on
# one users file: all accepted, every line records its code, and the
# lines of users who did not log in are as they were (no lost update).
umany_at_once() {
	local kind=$1 p i ok=0 f t=$BATS_TEST_TMPDIR/$1
	p=$(port_of "$kind")
	mkdir -p "$t"
	for i in 1 2 3; do
		rad_uenrol "$R" "$kind" "$kind-idle-$i" >/dev/null ||
		    fail keygen
	done
	unew "$kind" "$kind-two-a"
	KEY_A=$KEY
	KEY_B=$(rad_uenrol "$R" "$kind" "$kind-two-b") || fail keygen
	for i in $(seq 20); do
		rad_uenrol "$R" "$kind" "$kind-many-$i" >"$t/key.$i" ||
		    fail keygen
	done
	grep -F -- "-idle-" "$R/$kind/users.oath" >"$t/idle.before"
	[ "$(wc -l <"$t/idle.before")" -eq 3 ]
	e2e_fresh_step 8
	rad_burst "$p" 1 "$t/a" "$kind-two-a" "$(rad_code "$KEY_A")" &
	rad_burst "$p" 1 "$t/b" "$kind-two-b" "$(rad_code "$KEY_B")" &
	wait
	[ "$(cat "$t/a/1")" = 0 ]
	[ "$(cat "$t/b/1")" = 0 ]
	for i in $(seq 20); do
		rad_code "$(cat "$t/key.$i")" >"$t/code.$i"
	done
	for i in $(seq 20); do
		rad_burst "$p" 1 "$t/m$i" "$kind-many-$i" "$(cat "$t/code.$i")" &
	done
	wait
	for f in "$t"/m*/1; do
		[ "$(cat "$f")" = 0 ] && ok=$((ok + 1))
	done
	echo "$kind: 20 users at once, $ok accepted" >&3
	[ "$ok" -eq 20 ]
	# 0 lost updates: each line holds its own code ...
	for i in $(seq 20); do
		[ "$(ulast "$kind" "$kind-many-$i")" = "$(cat "$t/code.$i")" ] ||
		    fail "the update of $kind-many-$i was lost"
	done
	# ... the others are untouched, and the same codes are refused now.
	grep -F -- "-idle-" "$R/$kind/users.oath" | diff -u "$t/idle.before" -
	for i in 1 7 20; do
		run rad_auth "$p" "$kind-many-$i" "$(cat "$t/code.$i")"
		assert_failure 1
	done
}

@test "rlm_exec --usersfile: two users at once, then 20, all accepted, 0 lost updates" {
	umany_at_once uexec
}

@test "rlm_pam usersfile=: two users at once, then 20, all accepted, 0 lost updates" {
	umany_at_once upam
}

@test "rlm_pam usersfile=: log lines name the user and the reason, never the code" {
	local c
	unew upam upam-log
	c=$(rad_code "$KEY")
	rad_auth "$P_UPAM" upam-log "$c"
	run rad_auth "$P_UPAM" upam-log "$c"
	assert_failure 1
	run rad_auth "$P_UPAM" upam-log 000000
	assert_failure 1
	need_syslog
	run grep -F '"upam-log"' "$R/log/syslog"
	assert_line --partial 'accepted verification code for "upam-log"'
	assert_line --partial 'invalid verification code for "upam-log": code already used'
	assert_line --partial 'invalid verification code for "upam-log": wrong code'
	run grep -rF -e "$c" "$R/log"
	assert_failure
}

@test "a host with pam_radius_auth.so -> FreeRADIUS -> usersfile=, both paths, end to end" {
	local c kind
	for kind in upam uexec; do
		unew "$kind" "host-$kind"
		printf '127.0.0.1:%s %s 10\n' "$(port_of "$kind")" \
		    "$RAD_SECRET" >"$R/host.conf"
		c=$(rad_code "$KEY")
		run pamtester "$HOST_SVC" "host-$kind" authenticate <<<"$c"
		assert_success
		run pamtester "$HOST_SVC" "host-$kind" authenticate <<<"$c"
		assert_failure
		run pamtester "$HOST_SVC" "host-$kind" authenticate <<<000000
		assert_failure
		run pamtester "$HOST_SVC" nobody-here authenticate <<<"$c"
		assert_failure
	done
	printf '127.0.0.1:%s %s 10\n' "$P_PAM" "$RAD_SECRET" >"$R/host.conf"
}

@test "the server stops on SIGTERM; nothing is left behind" {
	e2e_daemon_stop radius
	e2e_cleanup
	e2e_check_clean
	[[ ! -e /etc/pam.d/$RAD_PAM_SVC && ! -e /etc/pam.d/$RAD_UPAM_SVC &&
	    ! -e /etc/pam.d/$HOST_SVC ]]
}

#!/usr/bin/env bats
# state-races.bats - the state file under real clocks, clocks that differ,
# a file shared with Debian's pam_google_authenticator.so, and odd systems
# (no /proc, no O_TMPFILE, a killed run, a directory swapped in the path).
# Each test fails without the fix it pins.  tests/shim/fsfault.c plays the
# odd systems; pam tests use the rig of tests/pam/lib.bash.

setup_file() {
	load common
	load pam/lib
	pam_setup_file
	cc -shared -fPIC -O1 -o "$BATS_FILE_TMPDIR/fsfault.so" \
	    "$BATS_TEST_DIRNAME/shim/fsfault.c" -ldl || fail "cannot build fsfault"
}

setup() {
	load common
	load pam/lib
	pam_setup
	FSFAULT=$BATS_FILE_TMPDIR/fsfault.so
	PAM_ENV=()
	# Under make sanitize the tools and pam_otp.so carry ASan, whose
	# runtime must come first in LD_PRELOAD ($ASAN_SO, empty otherwise)
	# and which would report pamtester's own leaks.
	export ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0
}

# state FILE LINE...: a state file of KEY and the lines, mode 0400, new
# (an old one is 0400 too, which only root writes).
state() {
	local f=$1
	shift
	rm -f "$f"
	printf '%s\n' "$KEY" "$@" >"$f"
	chmod 0400 "$f"
}

# now_code: the TOTP code of KEY now, and the same a step later when the
# step ends within 3 s (so that a test never straddles a boundary).
now_code() {
	local t
	t=$(date +%s)
	if (((t % 30) > 26)); then
		sleep $((31 - t % 30))
	fi
	otp-gen --totp -b "$KEY"
}

# count RCDIR CODE: how many runs exited with CODE.
count() {
	grep -lx "$2" "$1"/* 2>/dev/null | wc -l
}

@test "RATE_LIMIT 5 60 with the real clock: 100 runs at once, at most 5 let in" {
	state "$D/s" '" RATE_LIMIT 5 60' '" TOTP_AUTH'
	code=$(now_code)
	mkdir "$D/rc"
	for ((i = 0; i < 100; i++)); do
		(rc=0; otp-verify --state "$D/s" "$code" >/dev/null 2>&1 ||
		    rc=$?; echo $rc >"$D/rc/$i") &
	done
	wait
	ok=$(count "$D/rc" 0)
	no=$(count "$D/rc" 1)
	echo "accepted $ok refused $no"
	((ok >= 1 && ok <= 5)) || fail "$ok of 100 let in"
	((ok + no == 100)) || fail "errors: $ok + $no of 100"
}

@test "RATE_LIMIT: concurrent runs whose clocks differ never let more than N in" {
	state "$D/s" '" RATE_LIMIT 3 30' '" TOTP_AUTH'
	mkdir "$D/rc"
	# Two clocks a second apart, 40 runs each, all at once; the code is
	# good at both times.
	for ((i = 0; i < 40; i++)); do
		(rc=0; otp-verify -N @300005 --state "$D/s" 050548 \
		    >/dev/null 2>&1 || rc=$?; echo $rc >"$D/rc/a$i") &
		(rc=0; otp-verify -N @300004 --state "$D/s" 050548 \
		    >/dev/null 2>&1 || rc=$?; echo $rc >"$D/rc/b$i") &
	done
	wait
	ok=$(count "$D/rc" 0)
	((ok <= 3)) || fail "$ok of 80 let in"
	# Three attempts at T+5, then one from a clock at T+4: refused.
	state "$D/s" '" RATE_LIMIT 3 30' '" TOTP_AUTH'
	for ((i = 0; i < 3; i++)); do
		otp-verify -N @300005 --state "$D/s" 050548 || true
	done
	run otp-verify -N @300004 --state "$D/s" 050548
	assert_failure 1
	assert_output --partial "RATE_LIMIT"
	run cat "$D/s"
	assert_line '" RATE_LIMIT 3 30 300004 300004 300004'
}

@test "RATE_LIMIT 5 60, pam_otp.so with the real clock: 30 logins at once, at most 5 in" {
	MOD=otp otp_service
	state "$D/otp/state" '" RATE_LIMIT 5 60' '" TOTP_AUTH'
	code=$(now_code)
	mkdir "$D/rc"
	# 30, not more: each pamtester under pam_wrapper holds one of its 36
	# configuration directories (/tmp/pam.0 to /tmp/pam.z) while it
	# runs, for the whole machine; with them all taken, a suite running
	# beside this one fails its pam_start ("Initialization failure").
	for ((i = 0; i < 30; i++)); do
		(rc=0; timeout 60 env LD_PRELOAD="$ASAN_SO $PWRAP_SO $SHIM_SO" \
		    PAM_WRAPPER=1 PAM_WRAPPER_SERVICE_DIR="$D/svc" pamtester t \
		    "$PAM_USER" authenticate <<<"$code" >/dev/null 2>&1 ||
		    rc=$?; echo $rc >"$D/rc/$i") &
	done
	wait
	ok=$(count "$D/rc" 0)
	((ok >= 1 && ok <= 5)) || fail "$ok of 30 let in"
}

# ga_login CODE: one pam_google_authenticator.so login on $D/s with the
# real clock, its fsync slowed by 300 ms (its gap between check and
# rename); prints its exit status.
ga_login() {
	local rc=0
	timeout 60 strace -f -qq -o /dev/null -e trace=fsync \
	    -e inject=fsync:delay_enter=300000 env \
	    LD_PRELOAD="$ASAN_SO $PWRAP_SO $SHIM_SO" PAM_WRAPPER=1 \
	    PAM_WRAPPER_SERVICE_DIR="$D/svc" pamtester ga "$PAM_USER" \
	    authenticate <<<"$1" >/dev/null 2>&1 || rc=$?
	echo $rc
}

# ga_in_flight: wait (5 s at most) until the original module has checked
# and written its in-flight file $D/s~XXXXXX, the gap these tests are
# about; a fixed sleep is not enough on a loaded machine, where the
# module may not have read the file yet when ours has written it.
ga_in_flight() {
	local w
	for ((w = 0; w < 500; w++)); do
		compgen -G "$D/s~??????" >/dev/null && return 0
		sleep 0.01
	done
}

@test "a file shared with pam_google_authenticator.so: 60 pairs with a slowed fsync, no code accepted twice" {
	command -v strace >/dev/null || skip "strace missing"
	MOD=ga service ga "auth required $GA_SO secret=$D/s"
	doubles=0
	for ((i = 0; i < 60; i++)); do
		state "$D/s" '" DISALLOW_REUSE' '" TOTP_AUTH'
		code=$(now_code)
		ga_login "$code" >"$D/ga.rc" &
		ga_in_flight
		otp-verify --state "$D/s" "$code" >/dev/null 2>&1 && ours=0 ||
		    ours=$?
		wait
		if [[ $ours == 0 && $(cat "$D/ga.rc") == 0 ]]; then
			doubles=$((doubles + 1))
		fi
		[[ $ours != 2 ]] || fail "pair $i: otp-verify failed"
	done
	echo "double accepts: $doubles"
	((doubles == 0)) || fail "$doubles of 60 pairs accepted one code twice"
}

@test "a file shared with pam_google_authenticator.so: 60 pairs, no scratch code comes back" {
	command -v strace >/dev/null || skip "strace missing"
	MOD=ga service ga "auth required $GA_SO secret=$D/s"
	back=0
	for ((i = 0; i < 60; i++)); do
		# DISALLOW_REUSE: the original writes the file back.
		state "$D/s" '" DISALLOW_REUSE' '" TOTP_AUTH' 12345678
		code=$(now_code)
		ga_login "$code" >/dev/null &
		ga_in_flight
		otp-verify --state "$D/s" 12345678 >/dev/null 2>&1 ||
		    fail "pair $i: the scratch code was refused"
		wait
		if grep -qx 12345678 "$D/s"; then
			back=$((back + 1))
		fi
	done
	((back == 0)) || fail "a used scratch code came back $back times"
}

@test "root updating a user's file keeps its owner and group" {
	[[ $(id -u) == 0 ]] || skip "needs root: root updating a file another account owns"
	state "$D/s" '" TOTP_AUTH' 12345678
	chown 65534:65534 "$D/s"
	run otp-verify --no-strict-owner --state "$D/s" 12345678
	assert_success
	[[ $(stat -c '%u:%g %a' "$D/s") == "65534:65534 400" ]] ||
	    fail "now $(stat -c '%u:%g %a' "$D/s")"
}

@test "without /proc the update falls back to a named temporary file" {
	state "$D/s" '" TOTP_AUTH' 12345678
	run env LD_PRELOAD="$ASAN_SO $FSFAULT" SHIM_NOPROC=1 \
	    otp-verify --state "$D/s" 12345678
	assert_success
	run grep -c 12345678 "$D/s"
	assert_output 0
	no_temp_left "$D"
}

@test "without O_TMPFILE the update never touches the umask" {
	state "$D/s" '" TOTP_AUTH' 12345678
	run env LD_PRELOAD="$ASAN_SO $FSFAULT" SHIM_NOTMPFILE=1 SHIM_NOUMASK=1 \
	    otp-verify --state "$D/s" 12345678
	assert_success
	refute_output --partial "umask"
	[[ $(stat -c %a "$D/s") == 400 ]]
	no_temp_left "$D"
	# The same for otp-keygen's files.
	run env LD_PRELOAD="$ASAN_SO $FSFAULT" SHIM_NOTMPFILE=1 SHIM_NOUMASK=1 \
	    otp-keygen --state "$D/new" --scratch=2 --scratch-out="$D/codes"
	assert_success
	[[ $(stat -c %a "$D/new") == 400 && $(stat -c %a "$D/codes") == 600 ]]
}

@test "a run killed before its rename leaves a copy; the next update removes it" {
	state "$D/s" '" TOTP_AUTH' 12345678 23456789
	run env LD_PRELOAD="$ASAN_SO $FSFAULT" SHIM_KILLRENAME=1 \
	    otp-verify --state "$D/s" 12345678
	[[ $status == 137 || $status -gt 128 ]] || fail "not killed: $status"
	left=("$D"/s~otp-*)
	[[ -e ${left[0]} ]] || fail "no leftover to remove"
	# The original module's in-flight file (a stale one here) is not ours.
	printf 'x\n' >"$D/s~Ab12Cd"
	touch -d '1 hour ago' "$D/s~Ab12Cd"
	run otp-verify --state "$D/s" 23456789
	assert_success
	[[ ! -e ${left[0]} ]] || fail "our leftover is still there"
	[[ -e $D/s~Ab12Cd ]] || fail "the original's file was removed"
}

@test "a directory swapped in the path meanwhile: the update lands where the file was" {
	mkdir "$D/home" "$D/evil"
	state "$D/home/s" '" TOTP_AUTH' 12345678
	run env LD_PRELOAD="$ASAN_SO $FSFAULT" SHIM_SWAPDIR="$D/home:$D/evil" \
	    otp-verify --state "$D/home/s" 12345678
	assert_success
	[[ -L $D/home && -d $D/home.aside ]] || fail "the shim did not swap"
	[[ ! -e $D/evil/s ]] || fail "the update went through the swapped path"
	run grep -c 12345678 "$D/home.aside/s"
	assert_output 0
}

@test "a key on standard input is never read through stdio" {
	run env LD_PRELOAD="$ASAN_SO $FSFAULT" SHIM_NOSTDIO=1 \
	    otp-gen - <<<"$RFC_HEX"
	assert_success
	assert_output 755224
	run env LD_PRELOAD="$ASAN_SO $FSFAULT" SHIM_NOSTDIO=1 otp-gen <<<"$RFC_HEX"
	assert_success
	assert_output 755224
	run env LD_PRELOAD="$ASAN_SO $FSFAULT" SHIM_NOSTDIO=1 \
	    otp-verify "$RFC_HEX" <<<755224
	assert_success
	run env LD_PRELOAD="$ASAN_SO $FSFAULT" SHIM_NOSTDIO=1 otp-uri --parse \
	    <<<"otpauth://totp/a?secret=$RFC_B32"
	assert_success
}

@test "pam_otp: a write that fails says why, once, and no 'invalid code'" {
	MOD=otp otp_service
	state_file "$D/otp/state" "$KEY" '" TOTP_AUTH' 12345678
	run timeout 60 env LD_PRELOAD="$ASAN_SO $PWRAP_SO $SHIM_SO $FSFAULT" \
	    SHIM_FAILRENAME=1 PAM_WRAPPER=1 PAM_WRAPPER_SERVICE_DIR="$D/svc" \
	    pamtester t "$PAM_USER" authenticate <<<12345678
	refused
	assert_output --partial "cannot be updated (Read-only file system)"
	refute_output --partial "invalid verification code"
	grep -qx 12345678 "$D/otp/state" || fail "the file changed"
}

# cycles SERVICE INPUT: lock-and-read cycles of one pamtester login on
# $D/otp/state (each cycle opens the file once for reading).
cycles() {
	timeout 60 strace -f -qq -e trace=openat -o "$D/trace" env \
	    "${PAM_ENV[@]}" LD_PRELOAD="$ASAN_SO $PWRAP_SO $SHIM_SO" PAM_WRAPPER=1 \
	    PAM_WRAPPER_SERVICE_DIR="$D/svc" \
	    pamtester "$1" "$PAM_USER" authenticate <<<"$2" >/dev/null 2>&1 || true
	grep -cE 'openat\([0-9]+, "state", O_RDONLY' "$D/trace" || true
}

@test "one pam_otp login: at most two lock-and-read cycles (strace)" {
	command -v strace >/dev/null || skip "strace missing"
	MOD=otp otp_service
	# HOTP miss (once three locks), scratch code, RATE_LIMIT.
	state_file "$D/otp/state" "$KEY" '" HOTP_COUNTER 3'
	n=$(cycles t 000000)
	echo "HOTP miss: $n"
	((n >= 1 && n <= 2)) || fail "HOTP miss: $n cycles"
	grep -qx '" HOTP_COUNTER 4' "$D/otp/state" || fail "counter not moved"
	state_file "$D/otp/state" "$KEY" '" RATE_LIMIT 3 30' '" TOTP_AUTH' 12345678
	n=$(cycles t 12345678)
	((n >= 1 && n <= 2)) || fail "scratch code: $n cycles"
	MOD=otp service tf "auth required $PWRAP_MODDIR/pam_set_items.so" \
	    "auth required @MOD@ secret=@DIR@/state try_first_pass"
	state_file "$D/otp/state" "$KEY" '" HOTP_COUNTER 3'
	PAM_ENV=(PAM_AUTHTOK=000000)
	n=$(cycles tf "$(hotp 3)")
	((n >= 1 && n <= 2)) || fail "try_first_pass: $n cycles"
}

@test "one threaded host, 40 logins at once: one code accepted once, umask and ids untouched, with and without O_TMPFILE" {
	pam_threads_build
	# As root the module switches to nobody's ids in its threads; the
	# monitor thread must still create files as root.
	U=$(mktemp -d /tmp/otp-threads.XXXXXX)
	chmod 0755 "$U"
	mkdir -m 0755 "$U/st" "$U/conf"
	opt=
	if [[ $(id -u) == 0 ]]; then
		chown nobody "$U/st"
		opt=user=nobody
	fi
	printf 'auth required %s secret=%s/st/state %s\n' "$OTP_SO" "$U" \
	    "$opt" >"$U/conf/t"
	for shim in "" "$FSFAULT"; do
		state "$U/st/state" '" DISALLOW_REUSE' '" TOTP_AUTH'
		[[ -z $opt ]] || chown nobody "$U/st/state"
		code=$(now_code)
		run env LD_PRELOAD="$ASAN_SO $SHIM_SO $shim" SHIM_NOTMPFILE=1 \
		    SHIM_NOUMASK=1 \
		    "$D/pam-threads" "$U/conf" t "$PAM_USER" "$code" 40
		rm -rf "$U/st/state"
		assert_output --partial "accepted 1 refused 39 leaks 0 umask kept"
	done
	rm -rf "$U"
}

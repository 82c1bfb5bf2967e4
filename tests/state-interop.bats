#!/usr/bin/env bats
# state-interop.bats - our state-file engine and Debian's
# google-authenticator(1) and pam_google_authenticator.so on the same
# files: a file the original command wrote verifies with us; after we
# updated it the original module accepts and refuses as it should, and the
# other way round; the same events leave byte-identical files.

GA_MOD=/lib/x86_64-linux-gnu/security/pam_google_authenticator.so
FAKETIME_SO=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1

setup() {
	load common
	[[ -f $GA_MOD ]] || skip "libpam-google-authenticator is not installed"
	command -v pamtester >/dev/null || skip "pamtester is not installed"
	command -v google-authenticator >/dev/null ||
		skip "google-authenticator is not installed"
	D=$(mktemp -d)
	KEY=2SH3V3GDW7ZNMGYE
	T0=300000
}

teardown() {
	rm -rf "$D"
}

# totp KEY TIME / hotp KEY COUNTER: the 6-digit code.
totp() {
	$PY -c "import pyotp, sys; print(pyotp.TOTP(sys.argv[1]).at(int(sys.argv[2])))" "$1" "$2"
}
hotp() {
	$PY -c "import pyotp, sys; print(pyotp.HOTP(sys.argv[1]).at(int(sys.argv[2])))" "$1" "$2"
}

# ours FILE CODE NOW [--no-skew-adjust|--no-increment-hotp]
ours() {
	local f=$1 code=$2 now=$3
	shift 3
	otp-verify -N "@$now" "$@" --state "$f" "$code" >/dev/null 2>&1
}

# ga FILE CODE NOW [module options]: the original module through
# pamtester + pam_wrapper at a frozen time.
ga() {
	local f=$1 code=$2 now=$3 svc
	shift 3
	svc=$(mktemp -d "$D/svc.XXXXXX")
	printf 'auth required %s secret=%s %s\naccount required pam_permit.so\n' \
	    "$GA_MOD" "$f" "$*" >"$svc/otptest"
	echo "$code" | LD_PRELOAD="libpam_wrapper.so $FAKETIME_SO" \
	    PAM_WRAPPER=1 PAM_WRAPPER_SERVICE_DIR="$svc" TZ=UTC \
	    FAKETIME="$(date -u -d "@$now" '+%Y-%m-%d %H:%M:%S')" \
	    pamtester otptest "$(id -un)" authenticate >/dev/null 2>&1
}

# twin NAME LINE...: two identical files, $D/NAME.ga and $D/NAME.us.
twin() {
	local n=$1
	shift
	printf '%s\n' "$KEY" "$@" >"$D/$n.ga"
	cp "$D/$n.ga" "$D/$n.us"
	chmod 0400 "$D/$n.ga" "$D/$n.us"
}

# both NAME CODE NOW WANT [ga options] [-- our options]: the same event
# on both files; both must give WANT (0 or 1) and leave identical files.
both() {
	local n=$1 code=$2 now=$3 want=$4 gopts=() uopts=() rc
	shift 4
	while (($#)); do
		if [[ $1 == -- ]]; then
			shift
			uopts=("$@")
			break
		fi
		gopts+=("$1")
		shift
	done
	rc=0
	ga "$D/$n.ga" "$code" "$now" "${gopts[@]}" || rc=1
	[[ $rc == "$want" ]] || { echo "module: got $rc, want $want for $code @$now"; return 1; }
	rc=0
	ours "$D/$n.us" "$code" "$now" "${uopts[@]}" || rc=$?
	[[ $rc == "$want" ]] || { echo "ours: got $rc, want $want for $code @$now"; return 1; }
	cmp "$D/$n.ga" "$D/$n.us" || { diff "$D/$n.ga" "$D/$n.us"; return 1; }
}

@test "a file written by google-authenticator(1) verifies with us, then with the module, and back" {
	local f=$D/ga key now=1700000010
	google-authenticator -t -d -f -C -r 3 -R 30 -w 3 -e 5 -s "$f" -Q NONE \
	    </dev/null >/dev/null
	key=$(head -n 1 "$f")
	# Ours accepts the current code and records it.
	run ours "$f" "$(totp "$key" $now)" $now
	assert_success
	run grep -x "\" DISALLOW_REUSE $((now / 30))" "$f"
	assert_success
	# The module now refuses that code (reused) and takes the next one.
	run ga "$f" "$(totp "$key" $now)" $((now + 1))
	assert_failure
	run ga "$f" "$(totp "$key" $((now + 30)))" $((now + 30))
	assert_success
	# ...which we then refuse, and we take the one after.
	run ours "$f" "$(totp "$key" $((now + 30)))" $((now + 31))
	assert_failure 1
	run ours "$f" "$(totp "$key" $((now + 60)))" $((now + 60))
	assert_success
	# A scratch code used by the module is gone for us, and vice versa.
	local s1 s2
	s1=$(sed -n '6p' "$f")
	s2=$(sed -n '7p' "$f")
	run ga "$f" "$s1" $((now + 100))
	assert_success
	run ours "$f" "$s1" $((now + 101))
	assert_failure 1
	run ours "$f" "$s2" $((now + 102))
	assert_success
	run ga "$f" "$s2" $((now + 103))
	assert_failure
	[[ $(stat -c %a "$f") == 400 ]]
}

@test "an HOTP file of google-authenticator(1) works with both, counter shared" {
	local f=$D/ga key
	google-authenticator -c -f -C -w 3 -u -e 1 -s "$f" -Q NONE \
	    </dev/null >/dev/null
	key=$(head -n 1 "$f")
	run ours "$f" "$(hotp "$key" 1)" $T0
	assert_success
	# The module refuses the used code and moves the counter past 2.
	run ga "$f" "$(hotp "$key" 1)" $T0
	assert_failure
	run grep -x '" HOTP_COUNTER 3' "$f"
	assert_success
	run ga "$f" "$(hotp "$key" 3)" $T0
	assert_success
	run ours "$f" "$(hotp "$key" 3)" $T0
	assert_failure 1
	run ours "$f" "$(hotp "$key" 6)" $T0
	assert_success
	run grep -x '" HOTP_COUNTER 7' "$f"
	assert_success
}

@test "differential: TOTP with DISALLOW_REUSE, reuse and pruning leave identical files" {
	twin r '" WINDOW_SIZE 3' '" DISALLOW_REUSE' '" TOTP_AUTH'
	both r "$(totp $KEY $T0)" $T0 0
	both r "$(totp $KEY $T0)" $T0 1
	both r "$(totp $KEY $((T0 + 30)))" $((T0 + 30)) 0
	both r "$(totp $KEY $((T0 + 300)))" $((T0 + 300)) 0
	both r "$(totp $KEY $((T0 + 270)))" $((T0 + 300)) 0
	both r 123456 $((T0 + 330)) 1 noskewadj -- --no-skew-adjust
}

@test "differential: RATE_LIMIT records every attempt and refuses the fourth" {
	twin q '" RATE_LIMIT 3 30' '" DISALLOW_REUSE' '" TOTP_AUTH'
	both q 111111 $T0 1 noskewadj -- --no-skew-adjust
	both q 222222 $((T0 + 1)) 1 noskewadj -- --no-skew-adjust
	both q "$(totp $KEY $T0)" $((T0 + 2)) 0
	both q "$(totp $KEY $((T0 + 3)))" $((T0 + 3)) 1
	both q "$(totp $KEY $((T0 + 60)))" $((T0 + 60)) 0
}

@test "differential: HOTP counter on success and failure, no_increment_hotp" {
	twin h '" WINDOW_SIZE 3' '" HOTP_COUNTER 1' 11111111
	both h "$(hotp $KEY 1)" $T0 0
	both h "$(hotp $KEY 1)" $T0 1
	both h "$(hotp $KEY 5)" $T0 0
	both h 99999999 $T0 1
	both h 11111111 $T0 0
	both h 123456 $T0 1 no_increment_hotp -- --no-increment-hotp
	both h 123456 $T0 1
}

@test "differential: skew learning succeeds on the third code, not on a repeat" {
	twin k '" TOTP_AUTH'
	both k "$(totp $KEY $((T0 + 300)))" $T0 1
	both k "$(totp $KEY $((T0 + 300)))" $T0 1
	both k "$(totp $KEY $((T0 + 330)))" $((T0 + 30)) 1
	both k "$(totp $KEY $((T0 + 360)))" $((T0 + 60)) 0
	run grep -x '" TIME_SKEW 10' "$D/k.us"
	assert_success
	both k "$(totp $KEY $((T0 + 390)))" $((T0 + 90)) 0
	both k "$(totp $KEY $((T0 + 600)))" $((T0 + 120)) 1 noskewadj -- --no-skew-adjust
}

@test "stricter than the module: the resync code is not accepted twice under DISALLOW_REUSE" {
	local c
	twin k '" DISALLOW_REUSE' '" TOTP_AUTH'
	both k "$(totp $KEY $((T0 + 300)))" $T0 1
	both k "$(totp $KEY $((T0 + 330)))" $((T0 + 30)) 1
	c=$(totp $KEY $((T0 + 360)))
	ga "$D/k.ga" "$c" $((T0 + 60))
	ours "$D/k.us" "$c" $((T0 + 60))
	# The module takes it again; we do not, and recorded it as used.
	ga "$D/k.ga" "$c" $((T0 + 61))
	run ours "$D/k.us" "$c" $((T0 + 61))
	assert_failure 1
	run grep -x '" DISALLOW_REUSE 10012' "$D/k.us"
	assert_success
}

@test "differential: scratch codes, CRLF lines and a missing final newline" {
	printf '%s\r\n" TOTP_AUTH\r\n\r\n11111111\r\n22222222\r\n33333333' "$KEY" >"$D/s.ga"
	cp "$D/s.ga" "$D/s.us"
	chmod 0400 "$D/s.ga" "$D/s.us"
	both s 22222222 $T0 0
	both s 22222222 $T0 1
	both s 33333333 $T0 0
	both s 11111111 $T0 0
}

@test "the example of otp-state.5 is real" {
	local f=$D/ex key=UQMPSKKVWMBOLZWR26AGVM674E
	printf '%s\n' $key '" RATE_LIMIT 3 30' '" WINDOW_SIZE 3' \
	    '" DISALLOW_REUSE' '" TOTP_AUTH' 59742043 88420409 >"$f"
	chmod 0400 "$f"
	run ours "$f" "$(totp $key 1700000010)" 1700000010
	assert_success
	run ours "$f" 88420409 1700000040
	assert_success
	run cat "$f"
	assert_output "$(printf '%s\n' $key \
	    '" RATE_LIMIT 3 30 1700000010 1700000040' '" WINDOW_SIZE 3' \
	    '" DISALLOW_REUSE 56666667' '" TOTP_AUTH' 59742043)"
	# ...and the module reads the result the same way.
	run ga "$f" 59742043 1700000041
	assert_success
}

#!/usr/bin/env bats
# otp-verify --radius --state-dir and --radius --usersfile: a request as
# FreeRADIUS's rlm_exec hands it over (attributes in the environment,
# values quoted), without a server: exit codes, reply lines, user names
# that must not name a file, quoting, and 20 requests with one code at
# once.  tests/e2e/radius.bats runs the same through a real FreeRADIUS.

bats_require_minimum_version 1.5.0
load common

setup() {
	T=$BATS_TEST_TMPDIR
	ROOT=$BATS_TEST_DIRNAME/..
	S=$T/state
	mkdir -p "$S"
}

# enrol NAME LINE...: the state file S/NAME with the RFC 4226 key, mode
# 0400.  At -N @59 the TOTP code is 287082 (step 1).
enrol() {
	local f=$S/$1
	shift
	rm -f "$f"
	printf '%s\n' "$RFC_B32" "$@" >"$f"
	chmod 400 "$f"
}

# req USER CODE [OPTION]...: one request, the values quoted as rlm_exec
# quotes them, nothing else in the environment.
req() {
	radius_req --state-dir="$S" "$@"
}

# one_of_20 SOURCE: alice sends the code of -N @59 in 20 requests at
# once; exactly one is accepted, 19 refused as reused.
one_of_20() {
	local i
	for i in $(seq 20); do
		env -i USER_NAME='"alice"' USER_PASSWORD='"287082"' \
		    "$OTP_BIN/otp-verify" -N @59 --radius "$1" \
		    >"$T/out.$i" 2>/dev/null &
	done
	wait
	run grep -l 'OTP accepted' "$T"/out.*
	[ "${#lines[@]}" -eq 1 ]
	run grep -l 'code already used' "$T"/out.*
	[ "${#lines[@]}" -eq 19 ]
}

# radius_req SOURCE USER CODE [OPTION]...: the request against SOURCE
# (--state-dir=DIR or --usersfile=FILE).
radius_req() {
	local src=$1 user=$2 code=$3
	shift 3
	run --separate-stderr env -i USER_NAME="\"$user\"" \
	    USER_PASSWORD="\"$code\"" "$OTP_BIN/otp-verify" -N @59 "$@" \
	    --radius "$src"
}

@test "--radius: the right code is accepted once, then refused as reused" {
	enrol alice '" DISALLOW_REUSE' '" TOTP_AUTH' 12345678
	req alice 287082
	assert_success
	assert_output 'Reply-Message := "OTP accepted"'
	[ -z "$stderr" ]
	req alice 287082
	assert_failure 1
	assert_line --index 0 'Reply-Message := "OTP not accepted"'
	assert_line --index 1 --partial 'Module-Failure-Message := "code already used'
	[[ $stderr == "otp-verify: alice: code not accepted: code already used"* ]]
	[[ $output$stderr != *287082* ]]
}

@test "--radius: a wrong code, a malformed one, a scratch code once" {
	enrol alice '" TOTP_AUTH' 12345678
	req alice 000000
	assert_failure 1
	assert_line --index 0 'Reply-Message := "OTP not accepted"'
	[[ $output$stderr != *000000* ]]
	req alice 12ab
	assert_failure 1
	assert_line --index 1 --partial 'not a 6-digit code'
	req alice 12345678
	assert_success
	req alice 12345678
	assert_failure 1
	run cat "$S/alice"
	refute_line 12345678
}

@test "--radius: RATE_LIMIT refuses even the right code" {
	enrol alice '" RATE_LIMIT 2 30' '" TOTP_AUTH'
	req alice 000000
	req alice 000000
	req alice 287082
	assert_failure 1
	assert_line --index 1 --partial 'RATE_LIMIT'
}

@test "--radius: a user without a state file is refused, not an error" {
	req bob 287082
	assert_failure 1
	assert_output - <<'OUT'
Reply-Message := "OTP not accepted"
Module-Failure-Message := "no state file"
OUT
}

@test "--radius: a user name that is not a plain login name names no file" {
	enrol alice '" TOTP_AUTH'
	mkdir "$T/state/sub"
	cp -p "$S/alice" "$S/sub/alice"
	printf '%s\n' "$RFC_B32" '" TOTP_AUTH' >"$T/outside"
	chmod 400 "$T/outside"
	for name in ../outside sub/alice /etc/passwd . .. .alice -alice \
	    'al ice' 'a:b' '' 'é' "$(printf '%065d' 1)"; do
		req "$name" 287082
		assert_failure 2
		assert_line --index 0 'Reply-Message := "OTP check failed"'
		assert_line --index 1 --partial 'Module-Failure-Message := "User-Name: '
		[[ $stderr == "otp-verify: User-Name: "* ]]
	done
	# The files the names pointed at are untouched.
	run cat "$S/sub/alice" "$T/outside"
	refute_output --partial LAST
	# Names a login may have work.
	for name in alice.smith a_b-c user@example.org host\$; do
		enrol "$name" '" TOTP_AUTH'
		req "$name" 287082
		assert_success
	done
}

@test "--radius: rlm_exec's quoting is undone; an unquoted value is taken as it is" {
	enrol 'a.b' '" TOTP_AUTH'
	run --separate-stderr env -i 'USER_NAME="a\056b"' \
	    'USER_PASSWORD="287082"' "$OTP_BIN/otp-verify" -N @59 --radius \
	    --state-dir="$S"
	assert_success
	run --separate-stderr env -i 'USER_NAME=a.b' 'USER_PASSWORD=287082' \
	    "$OTP_BIN/otp-verify" -N @59 --radius --state-dir="$S"
	assert_success
	# An escaped '/' is still a '/'.
	run --separate-stderr env -i 'USER_NAME="..\057a.b"' \
	    'USER_PASSWORD="287082"' "$OTP_BIN/otp-verify" -N @59 --radius \
	    --state-dir="$S"
	assert_failure 2
	run --separate-stderr env -i 'USER_NAME="a.b' \
	    'USER_PASSWORD="287082"' "$OTP_BIN/otp-verify" -N @59 --radius \
	    --state-dir="$S"
	assert_failure 2
	[[ $stderr == *"User-Name: malformed attribute value"* ]]
}

@test "--radius: a missing attribute, directory or a bad file is an error" {
	enrol alice '" TOTP_AUTH'
	run --separate-stderr env -i USER_NAME='"alice"' \
	    "$OTP_BIN/otp-verify" --radius --state-dir="$S"
	assert_failure 2
	[[ $stderr == *"User-Password: not in the request"* ]]
	run --separate-stderr env -i USER_PASSWORD='"287082"' \
	    "$OTP_BIN/otp-verify" --radius --state-dir="$S"
	assert_failure 2
	[[ $stderr == *"User-Name: not in the request"* ]]
	run --separate-stderr env -i USER_NAME='"alice"' \
	    USER_PASSWORD='"287082"' "$OTP_BIN/otp-verify" --radius \
	    --state-dir="$T/none"
	assert_failure 2
	[[ $stderr == *"--state-dir '$T/none': No such file or directory" ]]
	chmod 644 "$S/alice"
	req alice 287082
	assert_failure 2
	assert_line --index 1 --partial 'permissions are too open'
}

@test "--radius: options and operands that do not fit are usage errors" {
	run --separate-stderr otp-verify --radius
	assert_failure 2
	[[ $stderr == *"--radius needs --state-dir=DIR"* ]]
	run --separate-stderr otp-verify --radius --state-dir="$S" 123456
	assert_failure 2
	[[ $stderr == *"takes no operands"* ]]
	run --separate-stderr otp-verify --state-dir="$S" --state x
	assert_failure 2
	run --separate-stderr otp-verify --state-dir="$S" 00 123456
	assert_failure 2
	[[ $stderr == *"--state-dir needs --radius"* ]]
	run --separate-stderr otp-verify --radius --state x --state-dir="$S"
	assert_failure 2
	[[ $stderr == *"exclude each other"* ]]
	run --separate-stderr otp-verify --radius --totp --state-dir="$S"
	assert_failure 2
	[[ $stderr == *"with --radius the file sets the parameters"* ]]
}

@test "--radius: --dry-run and --allowed-perm apply to the state files" {
	enrol alice '" DISALLOW_REUSE' '" TOTP_AUTH'
	req alice 287082 --dry-run
	assert_success
	req alice 287082
	assert_success
	chmod 440 "$S/alice"
	req alice 287082 --allowed-perm=0640
	assert_failure 1
	assert_line --index 1 --partial 'code already used'
}

@test "--radius: 20 requests with one code at once: exactly one accept" {
	enrol alice '" DISALLOW_REUSE' '" TOTP_AUTH'
	one_of_20 --state-dir="$S"
}

@test "--radius and --state-dir are in --help, the man page and the completions" {
	run otp-verify --help
	assert_output --partial '--radius'
	assert_output --partial '--state-dir=DIR'
	run grep -c 'Fl -radius\|Fl -state-dir' "$ROOT/man/otp-verify.1"
	[ "$output" -ge 2 ]
	grep -q -- '--state-dir' "$ROOT/completions/bash/otp-verify"
	grep -q -- '--radius' "$ROOT/completions/zsh/_otp-verify"
	grep -q -- 'state-dir' "$ROOT/completions/fish/otp-verify.fish"
}

# ---- --radius --usersfile ------------------------------------------------

# users LINE...: the users file T/users.oath (mode 0600).  At -N @59 the
# RFC 4226 key's HOTP/T30 code is 287082 (step 1).
users() {
	rm -f "$T/users.oath"
	printf '%s\n' "$@" >"$T/users.oath"
	chmod 0600 "$T/users.oath"
}

# ureq USER CODE [OPTION]...: one request against the users file.
ureq() {
	radius_req --usersfile="$T/users.oath" "$@"
}

@test "--radius --usersfile: the right code once, then reused, wrong, unknown user" {
	users "HOTP/T30 alice - $RFC_HEX" "HOTP/T30 bob - $RFC_HEX"
	ureq alice 287082
	assert_success
	assert_output 'Reply-Message := "OTP accepted"'
	[ -z "$stderr" ]
	run grep -c 287082 "$T/users.oath"
	assert_output 1
	ureq alice 287082
	assert_failure 1
	assert_line --index 0 'Reply-Message := "OTP not accepted"'
	assert_line --index 1 'Module-Failure-Message := "code already used"'
	[[ $stderr == "otp-verify: alice: code not accepted: code already used" ]]
	ureq bob 000000
	assert_failure 1
	assert_line --index 1 'Module-Failure-Message := "wrong code"'
	[[ $output$stderr != *000000* ]]
	# Not enrolled: refused as a wrong code is, not an error.
	ureq carol 287082
	assert_failure 1
	assert_output - <<'OUT'
Reply-Message := "OTP not accepted"
Module-Failure-Message := "no token for this user"
OUT
	[[ $output$stderr != *287082* ]]
	# -w is the users file's window, as pam_oath's window=.
	ureq bob "$(otp-gen --totp -N @89 "$RFC_HEX")" -w 0
	assert_failure 1
	ureq bob "$(otp-gen --totp -N @89 "$RFC_HEX")" -w 1
	assert_success
}

@test "--radius --usersfile -d 6: the User-Password is the PIN, then the code" {
	users "HOTP/T30 alice 1234 $RFC_HEX" "HOTP/T30 bob - $RFC_HEX"
	ureq alice 1234287082
	assert_failure 1
	ureq alice 287082 -d 6
	assert_failure 1
	assert_line --index 1 'Module-Failure-Message := "wrong password before the code"'
	ureq alice 9999287082 -d 6
	assert_failure 1
	ureq alice 1234287082 -d 6
	assert_success
	assert_output 'Reply-Message := "OTP accepted"'
	[[ $stderr != *1234* ]]
	ureq bob 287082 -d 6
	assert_success
	ureq alice 1234287082 -d 9
	assert_failure 2
}

@test "--radius --usersfile: the code's shape is checked before the file is touched" {
	users "HOTP/T30 alice - $RFC_HEX"
	cp -p "$T/users.oath" "$T/before"
	for c in 12ab 12345 123456789 '' 'x23456' '12 345'; do
		ureq alice "$c"
		assert_failure 1
		assert_line --index 1 'Module-Failure-Message := "not a code of 6 to 8 digits"'
	done
	cmp "$T/before" "$T/users.oath"
	# A malformed code is refused even where no file is: nothing is read.
	run --separate-stderr env -i USER_NAME='"alice"' USER_PASSWORD='"12ab"' \
	    "$OTP_BIN/otp-verify" --radius --usersfile="$T/none"
	assert_failure 1
	# A well-formed one needs the file: a set-up error.
	run --separate-stderr env -i USER_NAME='"alice"' \
	    USER_PASSWORD='"287082"' "$OTP_BIN/otp-verify" --radius \
	    --usersfile="$T/none"
	assert_failure 2
	assert_line --index 0 'Reply-Message := "OTP check failed"'
	[[ $stderr == *"alice: $T/none: No such file or directory" ]]
	[[ ! -e $T/none && ! -e $T/none.lock ]]
}

@test "--radius --usersfile: a user name that is not a plain login name is an error" {
	users "HOTP/T30 alice - $RFC_HEX" "HOTP/T30 ../x - $RFC_HEX" \
	    "HOTP/T30 .alice - $RFC_HEX" "HOTP/T30 -alice - $RFC_HEX"
	cp -p "$T/users.oath" "$T/before"
	for name in ../x .alice -alice 'a:b' '' 'é' "$(printf '%065d' 1)"; do
		ureq "$name" 287082
		assert_failure 2
		assert_line --index 0 'Reply-Message := "OTP check failed"'
		assert_line --index 1 --partial 'Module-Failure-Message := "User-Name: '
	done
	# Tabs and spaces would split the file's fields.
	run --separate-stderr env -i 'USER_NAME="al\tice"' \
	    USER_PASSWORD='"287082"' "$OTP_BIN/otp-verify" -N @59 --radius \
	    --usersfile="$T/users.oath"
	assert_failure 2
	cmp "$T/before" "$T/users.oath"
	ureq alice 287082
	assert_success
}

@test "--radius --usersfile: a bad file is an error, as for --usersfile" {
	users "HOTP/T30 alice - $RFC_HEX"
	chmod 0644 "$T/users.oath"
	ureq alice 287082
	assert_failure 2
	assert_line --index 1 --partial 'permissions are too open'
	users "HOTP/T30 alice - zz"
	ureq alice 287082
	assert_failure 2
	assert_line --index 1 --partial 'line 1: bad key in users file'
	[[ $output$stderr != *287082* ]]
}

@test "--radius --usersfile: options that do not fit are usage errors" {
	run --separate-stderr otp-verify --radius --usersfile="$T/u" \
	    --state-dir="$T"
	assert_failure 2
	[[ $stderr == *"--state-dir and --usersfile exclude each other"* ]]
	run --separate-stderr otp-verify --usersfile="$T/u" --radius \
	    --user=alice
	assert_failure 2
	[[ $stderr == *"--user does not apply with --radius"* ]]
	run --separate-stderr otp-verify --radius --usersfile="$T/u" --totp
	assert_failure 2
	[[ $stderr == *"with --radius --usersfile the file sets the parameters"* ]]
	run --separate-stderr otp-verify --radius --usersfile="$T/u" \
	    --no-skew-adjust
	assert_failure 2
	run --separate-stderr otp-verify --radius --usersfile="$T/u" 123456
	assert_failure 2
	[[ $stderr == *"takes no operands"* ]]
	run --separate-stderr otp-verify --radius --usersfile=
	assert_failure 2
	run --separate-stderr otp-verify --radius --usersfile="$T/u" -w 1001
	assert_failure 2
	run --separate-stderr otp-verify --radius
	assert_failure 2
	[[ $stderr == *"--radius needs --state-dir=DIR or --usersfile=FILE"* ]]
}

@test "--radius --usersfile: --dry-run records nothing" {
	users "HOTP/T30 alice - $RFC_HEX"
	cp -p "$T/users.oath" "$T/before"
	ureq alice 287082 --dry-run
	assert_success
	cmp "$T/before" "$T/users.oath"
	ureq alice 287082
	assert_success
}

@test "--radius --usersfile: deny= wrong codes in a row lock the user out, counted outside the file" {
	users "HOTP/T30 alice - $RFC_HEX" "HOTP/T30 bob - $RFC_HEX"
	cp "$T/users.oath" "$T/before"
	for i in 1 2 3 4 5; do
		ureq alice 00000$i
		assert_failure 1
		assert_line --index 1 'Module-Failure-Message := "wrong code"'
	done
	# The users file is pam_oath's, byte for byte; the count is beside it.
	cmp "$T/before" "$T/users.oath"
	[[ $(cat "$T/users.oath.tally/alice") == "5 "* ]]
	[[ $(stat -c %a "$T/users.oath.tally") == 700 ]]
	ureq alice 287082
	assert_failure 1
	assert_line --index 1 \
	    'Module-Failure-Message := "too many wrong codes: locked out for now"'
	# Another user is not locked out; an accept leaves no tally.
	ureq bob 287082
	assert_success
	[[ ! -e $T/users.oath.tally/bob ]]
	# --deny=0: no limit.  Removing the tally unlocks at once.
	ureq alice 287082 --deny=0
	assert_success
	rm -r "$T/users.oath.tally"
	# --unlock-time=2: over after two seconds.
	for i in 1 2 3; do ureq alice 00000$i --deny=3 --unlock-time=2; done
	ureq alice "$(otp-gen --totp -N @89 "$RFC_HEX")" -w 1 --deny=3 \
	    --unlock-time=2
	assert_failure 1
	assert_output --partial "too many wrong codes"
	sleep 2.1
	ureq alice "$(otp-gen --totp -N @89 "$RFC_HEX")" -w 1 --deny=3 \
	    --unlock-time=2
	assert_success
	[[ ! -e $T/users.oath.tally ]]
}

@test "--radius --usersfile: 20 wrong codes at once: exactly deny= are checked" {
	users "HOTP/T30 alice - $RFC_HEX"
	for i in $(seq 20); do
		env -i USER_NAME='"alice"' USER_PASSWORD="\"1000$((i + 10))\"" \
		    "$OTP_BIN/otp-verify" -N @59 --radius --deny=3 \
		    --usersfile="$T/users.oath" >"$T/out.$i" 2>/dev/null &
	done
	wait
	run grep -l '"wrong code"' "$T"/out.*
	[ "${#lines[@]}" -eq 3 ]
	run grep -l 'too many wrong codes' "$T"/out.*
	[ "${#lines[@]}" -eq 17 ]
	ureq alice 287082 --deny=3
	assert_failure 1
}

@test "--radius --usersfile: 20 requests with one code at once: exactly one accept" {
	users "HOTP/T30 alice - $RFC_HEX"
	one_of_20 --usersfile="$T/users.oath"
}

@test "--radius --usersfile: 20 users at once are all accepted; no update is lost" {
	local i key ul=() codes=()
	ul+=("# a comment, kept" "" "HOTP carl - $RFC_HEX 7 755224")
	for i in $(seq 20); do
		key=$(printf '%040x' "$((i * 7919))")
		codes[i]=$(otp-gen --totp -N @59 "$key")
		ul+=("HOTP/T30 u$i - $key")
	done
	ul+=("HOTP/T30 zed - $RFC_HEX")
	users "${ul[@]}"
	for i in $(seq 20); do
		env -i USER_NAME="\"u$i\"" USER_PASSWORD="\"${codes[i]}\"" \
		    "$OTP_BIN/otp-verify" -N @59 --radius \
		    --usersfile="$T/users.oath" >"$T/out.$i" 2>&1 &
	done
	wait
	run grep -l 'OTP accepted' "$T"/out.*
	[ "${#lines[@]}" -eq 20 ]
	# Every user's line recorded its own code; the others are as they were.
	for i in $(seq 20); do
		run grep -cE "^HOTP/T30	u$i	-	[0-9a-f]{40}	0	${codes[i]}	" \
		    "$T/users.oath"
		assert_output 1
	done
	run sed -n '1,3p;$p' "$T/users.oath"
	assert_output - <<OUT
# a comment, kept

HOTP carl - $RFC_HEX 7 755224
HOTP/T30 zed - $RFC_HEX
OUT
	[ "$(wc -l <"$T/users.oath")" -eq 24 ]
	[ "$(stat -c %a "$T/users.oath")" = 600 ]
	[[ -z $(compgen -G "$T/users.oath?*") ]]
	# And every one of those codes is refused now.
	ureq u7 "${codes[7]}"
	assert_failure 1
}

@test "--radius --usersfile is in --help, the man page and the completions" {
	# The synopsis names the store by URL; --usersfile is its alias.
	run otp-verify --help
	assert_output --partial $'--radius --store=URL'
	assert_output --partial "--usersfile=FILE   the same as --store=oath:FILE"
	grep -q 'otp-verify --radius --usersfile=' "$ROOT/man/otp-verify.1"
	grep -A1 -x '.Fl -radius' "$ROOT/man/otp-verify.1" | grep -q 'Fl -store'
	grep -q -- '--usersfile' "$ROOT/completions/bash/otp-verify"
	grep -q -- 'radius' <(grep -- 'usersfile' "$ROOT/completions/zsh/_otp-verify")
	grep -q -- 'radius' <(grep -- 'usersfile' "$ROOT/completions/fish/otp-verify.fish")
}

@test "--radius: a state file of another owner is refused, both owners and the option named" {
	[ "$(id -u)" = 0 ] || skip "needs root to make a file of another user's"
	enrol alice '" TOTP_AUTH'
	chown nobody "$S/alice"
	req alice 287082
	assert_failure 2
	assert_line --index 1 "Module-Failure-Message := \"alice: $S/alice: state file has the wrong owner: owned by nobody (uid $(id -u nobody)), not root (uid 0); --no-strict-owner allows it\""
	req alice 287082 --no-strict-owner
	assert_success
}

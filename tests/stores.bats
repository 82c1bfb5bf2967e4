#!/usr/bin/env bats
# stores.bats - one store interface under every front end: --store=URL
# (otp-verify, otp-keygen, --radius) and store=URL (pam_otp.so) give the
# same answers and byte-identical files as the spellings they replace
# (--state, --usersfile, --otpw, --state-dir, secret=, usersfile=,
# otpw); an unknown scheme is an error naming it; the front ends reach the
# stores only through the interface.

bats_require_minimum_version 1.5.0

setup() {
	load common
	T=$BATS_TEST_TMPDIR
	ROOT=$BATS_TEST_DIRNAME/..
	NOW=@1234567890
}

# ga_file PATH: a TOTP state file with DISALLOW_REUSE and two scratch codes.
ga_file() {
	printf '%s\n' "$RFC_B32" '" TOTP_AUTH' '" DISALLOW_REUSE' \
	    '" WINDOW_SIZE 3' 12345678 87654321 >"$1"
	chmod 0400 "$1"
}

code_at() {
	otp-gen --totp -N "$1" "$RFC_HEX"
}

@test "--store=ga:FILE answers as --state FILE and leaves the same bytes" {
	local c
	ga_file "$T/a"
	ga_file "$T/b"
	c=$(code_at "$NOW")
	run -0 otp-verify -N "$NOW" --state "$T/a" "$c"
	run -0 otp-verify -N "$NOW" --store="ga:$T/b" "$c"
	assert_output 0
	cmp "$T/a" "$T/b"
	run -1 otp-verify -N "$NOW" --state "$T/a" "$c"
	run -1 otp-verify -N "$NOW" --store="ga:$T/b" "$c"
	run -0 otp-verify -N "$NOW" --state "$T/a" 12345678
	run -0 otp-verify -N "$NOW" --store="ga:$T/b" 12345678
	assert_output scratch
	cmp "$T/a" "$T/b"
}

@test "--store=oath:FILE answers as --usersfile FILE and leaves the same bytes" {
	local c
	printf 'HOTP/T30\talice\t-\t%s\n' "$RFC_HEX" >"$T/a"
	cp "$T/a" "$T/b"
	chmod 0600 "$T/a" "$T/b"
	c=$(code_at "$NOW")
	run -0 otp-verify -N "$NOW" --usersfile="$T/a" --user=alice "$c"
	run -0 otp-verify -N "$NOW" --store="oath:$T/b" --user=alice "$c"
	assert_output 0
	cmp "$T/a" "$T/b"
	run -1 otp-verify -N "$NOW" --store="oath:$T/b" --user=alice "$c"
	run -2 --separate-stderr otp-verify -N "$NOW" --store="oath:$T/b" \
	    --user=bob "$c"
	[[ $stderr == *"'bob': no such user in users file"* ]]
}

@test "--store=otpw:FILE answers as --otpw=FILE and leaves the same bytes" {
	local first pw
	printf 'pre fix\n' >"$T/prefix"
	otp-keygen --store="otpw:$T/a" --prefix=@"$T/prefix" --entries=10 \
	    >"$T/list"
	cp -p "$T/a" "$T/b"
	run -0 otp-verify --otpw="$T/a" --challenge
	first=$output
	run -0 otp-verify --store="otpw:$T/b" --challenge
	assert_output "$first"
	pw=$(tr -d '\r' <"$T/list" | grep -oE "(^|  )$first [^ ]+ [^ ]+" |
	    sed 's/^ *//' | cut -d' ' -f2-)
	run -0 otp-verify --otpw="$T/a" "pre fix$pw"
	run -0 otp-verify --store="otpw:$T/b" "pre fix$pw"
	assert_output "9 of 10 passwords left"
	cmp "$T/a" "$T/b"
}

@test "otp-keygen --store=ga: and --store=oath: write what --state and --usersfile write" {
	run -0 otp-keygen --store="ga:$T/s" --scratch=0
	[ "$(stat -c %a "$T/s")" = 400 ]
	[ "$(head -n 1 "$T/s")" = "$output" ]
	run -0 otp-keygen --store="oath:$T/u" --user=alice --totp
	run -0 otp-keygen --usersfile="$T/v" --user=bob --totp
	[ "$(cut -f1,2,3 "$T/u")" = "HOTP/T30	alice	-" ]
	[ "$(cut -f1,3 "$T/u")" = "$(cut -f1,3 "$T/v")" ]
	run -2 otp-keygen --store="ga:$T/s"
	[[ $output == *"file exists"* ]]
}

@test "--radius --store='ga:DIR/\${USER}' is --radius --state-dir=DIR" {
	local c
	mkdir "$T/d1" "$T/d2"
	ga_file "$T/d1/alice"
	ga_file "$T/d2/alice"
	c=$(code_at "$NOW")
	run -0 env -i USER_NAME='"alice"' USER_PASSWORD="\"$c\"" \
	    "$OTP_BIN/otp-verify" -N "$NOW" --radius --state-dir="$T/d1"
	run -0 env -i USER_NAME='"alice"' USER_PASSWORD="\"$c\"" \
	    "$OTP_BIN/otp-verify" -N "$NOW" --radius --store="ga:$T/d2/\${USER}"
	assert_line 'Reply-Message := "OTP accepted"'
	cmp "$T/d1/alice" "$T/d2/alice"
	run -1 env -i USER_NAME='"alice"' USER_PASSWORD="\"$c\"" \
	    "$OTP_BIN/otp-verify" -N "$NOW" --radius --store="ga:$T/d2/\${USER}"
}

@test "an unknown store scheme is exit 2 naming it, in every front end" {
	run -2 --separate-stderr otp-verify --store=mysql:x 123456
	[[ $stderr == *"'mysql:x': unknown store scheme"* ]]
	run -2 --separate-stderr otp-keygen --store=mysql:x
	[[ $stderr == *"'mysql:x': unknown store scheme"* ]]
	run -2 --separate-stderr env -i USER_NAME='"a"' USER_PASSWORD='"123456"' \
	    "$OTP_BIN/otp-verify" --radius --store=mysql:x
	[[ $stderr == *"'mysql:x': unknown store scheme"* ]]
	run -2 --separate-stderr otp-verify --store=ga: 123456
	[[ $stderr == *"names no path"* ]]
}

@test "no front end calls a store's own functions; the help has at most 6 forms" {
	run grep -nE 'sys_(users|otpw|statefile|ga)_' "$ROOT"/cmd/*.c \
	    "$ROOT"/cmd/*.h
	assert_failure 1
	run -0 otp-verify --help
	n=$(grep -cE '^(usage:|       )otp-verify ' <<<"$output")
	((n <= 6)) || fail "$n synopsis forms"
	(($(wc -l <"$ROOT/lib/otp.h") <= 500)) || fail "otp.h too long"
}

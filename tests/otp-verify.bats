#!/usr/bin/env bats
# otp-verify: every option and mode, exit codes 0/1/2, stdout vs stderr,
# write errors, the -v text, the man page's examples.

bats_require_minimum_version 1.5.0
load common

setup() {
	T=$BATS_TEST_TMPDIR
	ROOT=$BATS_TEST_DIRNAME/..
	# Key DEADBEEF at the counter edges: 0 -> 057490, 2^64-1 -> 044040.
	BEEF=deadbeef
	MAXC=18446744073709551615
}

# A read-only directory opened again, for bats to remove it.
teardown() {
	[[ ! -d $T/ro ]] || chmod 700 "$T/ro"
}

# RFC 4226 appendix D: the HOTP codes of counters 0..9.
hotp() {
	local codes=(755224 287082 359152 969429 338314 254676 287922 162583 \
	    399871 520489)
	echo "${codes[$1]}"
}

# A state file in the Google Authenticator format, mode 0400.
state_file() {
	local f=$T/ga
	rm -f "$f"
	printf '%s\n' "$RFC_B32" "$@" > "$f"
	chmod 400 "$f"
	echo "$f"
}

@test "-h and --help print the usage on stdout, naming every option" {
	for o in -h --help; do
		run --separate-stderr otp-verify "$o"
		assert_success
		assert_line --index 0 --regexp '^usage: otp-verify '
		[ -z "$stderr" ]
	done
	for o in --hotp --totp --algorithm --base32 --hex --strict --counter \
	    --digits --time-step-size --start-time --now --window --steam \
	    --motp --pin --quiet --verbose --find-skew --diagnose --state \
	    --no-skew-adjust --no-increment-hotp --no-strict-owner \
	    --allowed-perm --allow-readonly --dry-run --help --version; do
		assert_output --partial -- "$o"
	done
	# Every store URL scheme the tool takes, as the man page and the
	# completions list them.
	for o in ga: oath: otpw: postgresql://; do
		assert_output --partial -- "$o"
		grep -q "Li $o" "$ROOT/man/otp-verify.1"
		grep -q "$o" "$ROOT/completions/bash/otp-verify"
		grep -q "$o" "$ROOT/completions/zsh/_otp-verify"
		grep -q "$o" "$ROOT/completions/fish/otp-verify.fish"
	done
}

@test "the usage matches the man page SYNOPSIS" {
	run otp-verify --help
	assert_line --index 0 --partial '[-bqVvx] [--hotp | --totp[=ALG]]'
	assert_line --index 3 --partial '--find-skew [OPTION]... KEY CODE1 CODE2 [CODE3]'
	assert_line --index 4 --partial '--diagnose [OPTION]... KEY CODE'
	run grep -c 'Fl -find-skew\|Fl -diagnose\|Fl -state' "$ROOT/man/otp-verify.1"
	assert_success
}

@test "-V and --version print the version" {
	for o in -V --version; do
		run --separate-stderr otp-verify "$o"
		assert_success
		assert_output --regexp '^otp-verify \(otp-utils\) [0-9]+\.[0-9]+\.[0-9]+$'
	done
}

@test "HOTP: RFC 4226 codes verify at their counter, offset from -c" {
	for c in 0 1 2 3 4 5 6 7 8 9; do
		run --separate-stderr otp-verify -c "$c" "$RFC_HEX" "$(hotp "$c")"
		assert_success
		assert_output 0
		[ -z "$stderr" ]
	done
	run otp-verify -w 9 "$RFC_HEX" "$(hotp 9)"
	assert_success
	assert_output 9
	run otp-verify --counter=5 --window=4 "$RFC_HEX" "$(hotp 9)"
	assert_success
	assert_output 4
	run otp-verify --hotp -c 5 -w 10 "$RFC_HEX" 520489
	assert_success
	assert_output 4
}

@test "HOTP: the window looks ahead only, and its edge is exact" {
	run --separate-stderr otp-verify -w 8 "$RFC_HEX" "$(hotp 9)"
	assert_failure 1
	assert_output ''
	[ "$stderr" = "otp-verify: code not accepted" ]
	run otp-verify -c 5 -w 100 "$RFC_HEX" "$(hotp 0)"
	assert_failure 1
	run otp-verify -c 1 "$RFC_HEX" "$(hotp 0)"
	assert_failure 1
}

@test "a large window finds the far match and the near one" {
	local far near
	far=$(oathtool -c 199999 "$RFC_HEX")
	run otp-verify -w 200000 "$RFC_HEX" "$far"
	assert_success
	assert_output 199999
	near=$(oathtool --totp -N @1700000000 "$RFC_HEX")
	run otp-verify --totp -N @1700000000 -w 100000 "$RFC_HEX" "$near"
	assert_success
	assert_output 0
}

@test "HOTP: counters clamp at 2^64-1 and never wrap to 0" {
	run otp-verify -c "$MAXC" -w 5 "$BEEF" 044040
	assert_success
	assert_output 0
	run otp-verify -c "$MAXC" -w 5 "$BEEF" 057490
	assert_failure 1
	run otp-verify -c 18446744073709551614 -w 100000000 "$BEEF" 044040
	assert_success
	assert_output 1
}

@test "TOTP: signed offsets -2, 0, +1 around --now" {
	# RFC 6238: 94287082 is step 1 (t=30..59).
	run otp-verify --totp -N @59 -w 2 "$RFC_HEX" 94287082
	assert_success
	assert_output 0
	run otp-verify --totp -N @119 -w 2 "$RFC_HEX" 94287082
	assert_success
	assert_output -- -2
	run otp-verify --totp -N @0 -w 2 "$RFC_HEX" 94287082
	assert_success
	assert_output +1
	run otp-verify --totp -N @120 -w 2 "$RFC_HEX" 94287082
	assert_failure 1
	run otp-verify --totp -N @1111111109 "$RFC_HEX" 07081804
	assert_success
	assert_output 0
}

@test "--totp=ALG, -a/--algorithm: RFC 6238 SHA256 and SHA512 keys" {
	k256=3132333435363738393031323334353637383930313233343536373839303132
	k512=${k256}33343536373839303132333435363738393031323334353637383930313233
	k512=${k512}34
	run otp-verify --totp=SHA256 -N @1234567890 "$k256" 91819424
	assert_output 0
	run otp-verify --totp -a sha512 -N @1234567890 "$k512" 93441116
	assert_output 0
	run otp-verify --totp --algorithm=SHA-512 -N @2000000000 "$k512" 38618901
	assert_output 0
	# the wrong algorithm does not verify
	run otp-verify --totp -N @1234567890 "$k256" 91819424
	assert_failure 1
	run otp-verify --totp=MD5 "$RFC_HEX" 123456
	assert_failure 2
	assert_output --partial "unknown algorithm 'MD5'"
	run otp-verify -a sha256 -c 1234567 "$RFC_HEX" 90296495
	assert_success
}

@test "-s, -S, -N: step size, start time and time formats" {
	run otp-verify --totp -N @1234567890 -s 60 00 537709
	assert_output 0
	run otp-verify --totp -N @1234567890 --time-step-size=45s 00 261936
	assert_output 0
	run otp-verify --totp --now='2009-02-13 23:31:30 UTC' \
	    --start-time='1980-01-01 00:00:00 UTC' 00 419573
	assert_output 0
	run otp-verify --totp -N '2008-04-23 17:42:17 UTC' 00 974945
	assert_output 0
	run otp-verify --totp -N @1234567890 -S @1234567900 00 123456
	assert_failure 2
	assert_output --partial 'before --start-time'
	run otp-verify --totp -N 'yesterday-ish' 00 123456
	assert_failure 2
	assert_output --partial -- '--now'
	run otp-verify --totp -s 0 00 123456
	assert_failure 2
}

@test "-d/--digits: explicit, or the OTP's own length" {
	run otp-verify "$RFC_HEX" 84755224
	assert_output 0
	run otp-verify -d 8 "$RFC_HEX" 84755224
	assert_output 0
	run otp-verify --digits=7 "$RFC_HEX" 4755224
	assert_output 0
	run otp-verify "$RFC_HEX" 1284755224
	assert_output 0
	run --separate-stderr otp-verify -d 8 "$RFC_HEX" 755224
	assert_failure 2
	[ "$stderr" = "otp-verify: OTP has 6 digits, not 8" ]
	run otp-verify -d 5 "$RFC_HEX" 55224
	assert_failure 2
	run otp-verify -d 11 "$RFC_HEX" 755224
	assert_failure 2
	# a 6-digit code is not the last digits of the 8-digit one when -d 8
	run otp-verify -d 6 "$RFC_HEX" 84755224
	assert_failure 2
}

@test "-b/--base32, -x/--hex, --strict: key encodings" {
	run otp-verify -b "$RFC_B32" 755224
	assert_output 0
	run otp-verify --base32 "gezd gnbv-gy3t qojq gezd gnbv gy3t qojq" 755224
	assert_output 0
	run otp-verify -b -x "$RFC_HEX" 755224
	assert_output 0
	run otp-verify --hex "$RFC_HEX" 755224
	assert_output 0
	run otp-verify -b XBK55CIOSR2TO6VUZX7KB2NJX2 386584
	assert_output 0
	run otp-verify --strict -b XBK55CIOSR2TO6VUZX7KB2NJX2 386584
	assert_failure 2
	run --separate-stderr otp-verify "$RFC_B32" 755224
	assert_failure 2
	assert_output ''
	# The offset alone: the character is part of the secret.
	[ "$stderr" = "otp-verify: invalid hex character at offset 0 (is the key Base32? use -b)" ]
	run --separate-stderr otp-verify -b 'GEZD!GNB' 755224
	assert_failure 2
	[ "$stderr" = "otp-verify: invalid Base32 character at offset 4" ]
	run --separate-stderr otp-verify -b 'GEZDGNB\x01' 755224
	assert_failure 2
	[ "$stderr" = "otp-verify: invalid Base32 character at offset 7" ]
}

@test "an otpauth URI carries its parameters; options override them" {
	uri="otpauth://totp/Ex:a?secret=$RFC_B32&algorithm=SHA256&digits=8&period=60"
	run otp-verify -N @1234567890 "$uri" 30246158
	assert_success
	assert_output 0
	# digits=8 is in force: a 6-digit code is malformed
	run otp-verify -N @1234567890 "$uri" 246158
	assert_failure 2
	run otp-verify -N @1234567890 -a SHA1 "$uri" 30246158
	assert_failure 1
	run otp-verify "otpauth://hotp/x?secret=$RFC_B32&counter=3" "$(hotp 3)"
	assert_output 0
	run otp-verify -c 2 -w 1 "otpauth://hotp/x?secret=$RFC_B32&counter=7" \
	    "$(hotp 3)"
	assert_output 1
	run otp-verify --hotp -c 3 "otpauth://totp/x?secret=$RFC_B32" \
	    "$(hotp 3)"
	assert_output 0
}

@test "the OTP from stdin, the key from stdin or @FILE" {
	run otp-verify -c 1 "$RFC_HEX" < <(echo 287082)
	assert_success
	assert_output 0
	run otp-verify -c 1 "$RFC_HEX" < <(printf '287082\r\n')
	assert_output 0
	run otp-verify -c 1 - 287082 < <(echo "$RFC_HEX")
	assert_output 0
	echo "$RFC_HEX" > "$T/key"
	run otp-verify -c 1 "@$T/key" 287082
	assert_output 0
	run otp-verify -c 1 "@$T/key" < <(echo 287082)
	assert_output 0
	run --separate-stderr otp-verify -c 1 - < <(echo "$RFC_HEX")
	assert_failure 2
	[[ $stderr == *'with KEY "-" the OTP must be an operand'* ]]
	run otp-verify "$RFC_HEX" < /dev/null
	assert_failure 2
	assert_output --partial 'no OTP'
	run otp-verify "@$T/missing" 755224
	assert_failure 2
	assert_output --partial "$T/missing"
}

@test "malformed codes and operands: exit 2 with one clear line" {
	for code in 12345 12345678901 75522a ' 755224' '755224 ' -755224 \
	    '+755224' '' '７55224' '755 224' $'755224\n'; do
		run --separate-stderr otp-verify -- "$RFC_HEX" "$code"
		assert_failure 2
		assert_output ''
		[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
		[[ $stderr == "otp-verify: OTP"* ]]
	done
	run otp-verify
	assert_failure 2
	assert_output --partial 'missing KEY'
	run otp-verify "$RFC_HEX" 755224 755224
	assert_failure 2
	assert_output --partial 'too many operands'
	run --separate-stderr otp-verify --bogus "$RFC_HEX" 755224
	assert_failure 2
	[[ $stderr == "otp-verify: unknown option '--bogus'"* ]]
	run --separate-stderr otp-verify "$RFC_HEX" -755224
	assert_failure 2
	[[ $stderr == "otp-verify: unknown option '-7'"* ]]
	run --separate-stderr otp-verify "$RFC_HEX" 755224 -w
	assert_failure 2
	[[ $stderr == "otp-verify: option '-w' needs an argument"* ]]
	run --separate-stderr otp-verify "$RFC_HEX" 755224 --window
	assert_failure 2
	[[ $stderr == "otp-verify: option '--window' needs an argument"* ]]
	# Issue 13: a missing value named the short letter ('-d').
	run --separate-stderr otp-verify "$RFC_HEX" 755224 --digits
	assert_failure 2
	[[ $stderr == "otp-verify: option '--digits' needs an argument"* ]]
	run --separate-stderr otp-verify "$RFC_HEX" 755224 --dig
	assert_failure 2
	[[ $stderr == "otp-verify: option '--dig' needs an argument"* ]]
	run otp-verify -w -1 "$RFC_HEX" 755224
	assert_failure 2
	run otp-verify -w 100000001 "$RFC_HEX" 755224
	assert_failure 2
	assert_output --partial 'at most 100000000'
	run otp-verify -c -1 "$RFC_HEX" 755224
	assert_failure 2
	run otp-verify -c 18446744073709551616 "$RFC_HEX" 755224
	assert_failure 2
	run otp-verify --totp -c 3 "$RFC_HEX" 755224
	assert_failure 2
	assert_output --partial 'HOTP only'
	run otp-verify -N @0 "$RFC_HEX" 755224
	assert_failure 2
	assert_output --partial 'TOTP only'
	run otp-verify '' 755224
	assert_failure 2
}

@test "no match: exit 1, nothing on stdout; -q/--quiet silences stderr" {
	run --separate-stderr otp-verify "$RFC_HEX" 123456
	assert_failure 1
	assert_output ''
	[ "$stderr" = "otp-verify: code not accepted" ]
	for q in -q --quiet; do
		run --separate-stderr otp-verify "$q" "$RFC_HEX" 123456
		assert_failure 1
		assert_output ''
		[ -z "$stderr" ]
	done
	# -q does not hide errors
	run --separate-stderr otp-verify -q "$RFC_HEX" 12345
	assert_failure 2
	[ -n "$stderr" ]
}

@test "a write error on stdout is exit 2 (>/dev/full)" {
	run bash -c 'otp-verify "$0" 755224 >/dev/full' "$RFC_HEX"
	assert_failure 2
	assert_output --partial 'write error'
	run bash -c 'otp-verify --find-skew --totp -N @150 "$0" 969429 338314 >/dev/full' "$RFC_HEX"
	assert_failure 2
	run bash -c 'otp-verify --diagnose --totp -N @59 -d 8 "$0" 32247374 >/dev/full' "$RFC_HEX"
	assert_failure 2
}

@test "-v/--verbose: the match and the clock on stderr, no secret" {
	run --separate-stderr otp-verify -v --totp -N @119 -w 2 "$RFC_HEX" 94287082
	assert_success
	assert_output -- -2
	[[ $stderr == *"Digits: 8"* ]]
	[[ $stderr == *"Window size: 2"* ]]
	[[ $stderr == *"TOTP mode: SHA1"* ]]
	[[ $stderr == *"Step size (seconds): 30"* ]]
	[[ $stderr == *"Current time: 1970-01-01 00:01:59 UTC (119)"* ]]
	[[ $stderr == *"Counter: 0x3 (3)"* ]]
	[[ $stderr == *"Matched step 0x1 (1), offset -2 steps (-1 min)."* ]]
	[[ $stderr == *"The client's clock is about 1 min behind."* ]]
	[[ $stderr != *"$RFC_HEX"* && $stderr != *"$RFC_B32"* ]]
	run --separate-stderr otp-verify --verbose --totp -N @0 -w 2 "$RFC_HEX" 94287082
	[[ $stderr == *"offset +1 step (+30 s)."* ]]
	[[ $stderr == *"about 30 s ahead."* ]]
	run --separate-stderr otp-verify -v --totp -N @59 "$RFC_HEX" 94287082
	[[ $stderr == *"agrees with ours to within one step (30 s)"* ]]
	run --separate-stderr otp-verify -v -c 2 -w 9 "$RFC_HEX" "$(hotp 9)"
	assert_output 7
	[[ $stderr == *"Matched counter 0x9 (9), 7 after the expected 2."* ]]
	[[ $stderr == *"The token has made 7 codes that were never used."* ]]
	[[ $stderr == *"The next code to expect is counter 10 (-c 10)."* ]]
	run --separate-stderr otp-verify -v "$RFC_HEX" 123456
	assert_failure 1
	assert_output ''
	[[ $stderr == *"No counter in the window gives this code."* ]]
}

@test "--steam: 5-character Steam Guard codes" {
	run otp-verify --steam -N @0 48656c6c6f21deadbeef VH8YJ
	assert_success
	assert_output 0
	run otp-verify --steam -N @59 "$RFC_HEX" pv9m4
	assert_output 0
	run otp-verify --steam -N @60 -w 2 48656c6c6f21deadbeef VH8YJ
	assert_output -- -2
	run otp-verify --steam -N @60 -w 1 48656c6c6f21deadbeef VH8YJ
	assert_failure 1
	run otp-verify --steam -N @0 48656c6c6f21deadbeef VH8YA
	assert_failure 2
	assert_output --partial 'Steam Guard'
	run otp-verify --steam -d 6 48656c6c6f21deadbeef VH8YJ
	assert_failure 2
}

@test "--motp --pin: Mobile-OTP codes" {
	run otp-verify --motp --pin=1234 -N @165892298 e3152afee62599c8 e7d8b6
	assert_success
	assert_output 0
	run otp-verify --motp --pin 1234 -N @165892313 -w 2 e3152afee62599c8 E7D8B6
	assert_output -- -2
	run otp-verify --motp --pin=1235 -N @165892298 e3152afee62599c8 e7d8b6
	assert_failure 1
	run otp-verify --motp -N @165892298 e3152afee62599c8 e7d8b6
	assert_failure 2
	assert_output --partial '--motp needs --pin=PIN'
	run otp-verify --pin=1234 -N @165892298 e3152afee62599c8 e7d8b6
	assert_failure 2
	assert_output --partial '--pin goes with --motp'
	run otp-verify --motp --pin=1234 --steam e3152afee62599c8 e7d8b6
	assert_failure 2
	run otp-verify --motp --pin=1234 -s 30 e3152afee62599c8 e7d8b6
	assert_failure 2
	run otp-verify --motp --pin=1234 e3152afee62599c8 e7d8b
	assert_failure 2
	assert_output --partial '6 hex digits'
}

@test "--find-skew: consecutive codes placed within a day, signed" {
	# 969429 338314 254676 are counters 3, 4, 5: steps 3-5 are t=90..179
	run --separate-stderr otp-verify --find-skew --totp -N @3000 "$RFC_HEX" \
	    969429 338314 254676
	assert_success
	assert_output '-97 steps (-2910 s): the client'"'"'s clock is 48 min 30 s behind'
	run otp-verify --find-skew --totp -N @95 "$RFC_HEX" 969429 338314
	assert_output '0 steps (+0 s): the client'"'"'s clock agrees with ours'
	run otp-verify --find-skew --totp -s 10 -N @0 "$RFC_HEX" 969429 338314
	assert_output '+3 steps (+30 s): the client'"'"'s clock is 30 s ahead'
	# -w narrows the search
	run --separate-stderr otp-verify --find-skew --totp -w 96 -N @3000 "$RFC_HEX" \
	    969429 338314
	assert_failure 1
	assert_output ''
	[[ $stderr == *"no 2 consecutive steps within 96"* ]]
	run otp-verify --find-skew --totp -w 97 -N @3000 "$RFC_HEX" 969429 338314
	assert_success
	# not consecutive
	run otp-verify --find-skew --totp -N @95 "$RFC_HEX" 969429 254676
	assert_failure 1
	run --separate-stderr otp-verify -q --find-skew --totp -N @95 "$RFC_HEX" 969429 254676
	[ -z "$stderr" ]
}

@test "--find-skew: HOTP resynchronisation" {
	run otp-verify --find-skew -c 2 "$RFC_HEX" "$(hotp 7)" "$(hotp 8)"
	assert_success
	assert_output '+5 counters: the token is at counter 7; next expect -c 9'
	run otp-verify --find-skew -c 8 "$RFC_HEX" "$(hotp 7)" "$(hotp 8)"
	assert_failure 1
}

@test "--find-skew: wrong operands are errors" {
	run otp-verify --find-skew "$RFC_HEX" 969429
	assert_failure 2
	run otp-verify --find-skew "$RFC_HEX" 1 2 3 4
	assert_failure 2
	run otp-verify --find-skew "$RFC_HEX" 969429 3383140
	assert_failure 2
	assert_output --partial 'all of one length'
	run otp-verify --find-skew "$RFC_HEX" 969429 -
	assert_failure 2
	run otp-verify --find-skew --diagnose "$RFC_HEX" 969429 338314
	assert_failure 2
	run otp-verify --find-skew --steam "$RFC_HEX" 969429 338314
	assert_failure 2
}

@test "--diagnose: each common mistake is named" {
	run --separate-stderr otp-verify --diagnose --totp -N @59 -d 8 "$RFC_HEX" 32247374
	assert_success
	assert_line --index 0 'algorithm SHA256, not SHA1 (step 1, offset 0)'
	run otp-verify --diagnose --totp -N @59 "$RFC_B32" 94287082
	assert_line --index 0 'the key is Base32 (-b), not hex (step 1, offset 0)'
	run otp-verify --diagnose --totp -N @1234567890 00 537709
	assert_line --index 0 '60 s steps, not 30 s (step 20576131, offset 0)'
	run otp-verify --diagnose --totp -N @1234564290 00 712049
	assert_line --index 0 "the client's clock is 1 h ahead (a time-zone error) (step 41152263, offset 0)"
	run otp-verify --diagnose --totp -N @1234587690 00 712049
	assert_line --index 0 "the client's clock is 5 h 30 min behind (a time-zone error) (step 41152263, offset 0)"
	run otp-verify --diagnose --totp -N @1234567890 -S @315532800 00 712049
	assert_line --index 0 'start time 1970-01-01 00:00:00 UTC, not 1980-01-01 00:00:00 UTC (step 41152263, offset 0)'
	run otp-verify --diagnose --totp -N @59 -d 6 "$RFC_HEX" 94287082
	assert_line --index 0 '8 digits, not 6 (step 1, offset 0)'
	run otp-verify --diagnose --totp -N @59 "$RFC_HEX" 942870
	assert_line --index 0 'the first 6 of 8 digits (step 1, offset 0)'
	run otp-verify --diagnose -N @1234567890 00 712049
	assert_line --index 0 'TOTP, not HOTP (step 41152263, offset 0)'
	run otp-verify --diagnose -c 500 "$RFC_HEX" "$(hotp 3)"
	assert_line --index 0 'the token counts from 0, not 500 (counter 3, offset +3)'
	run otp-verify --diagnose -c 2 "$RFC_HEX" "$(hotp 9)"
	assert_line --index 0 'the token is 7 counters ahead, beyond the window (counter 9, offset +7)'
	run otp-verify --diagnose --totp -N @59 -d 8 "$RFC_HEX" 94287082
	assert_line --index 0 'verifies with the given parameters (step 1, offset 0)'
}

@test "--diagnose: most likely first, one per line; exit 1 when nothing fits" {
	run otp-verify --diagnose -N @59 -d 8 "$RFC_HEX" 94287082
	assert_success
	assert_line --index 0 --partial 'beyond the window (counter 1, offset +1)'
	assert_line --partial 'TOTP, not HOTP'
	run --separate-stderr otp-verify --diagnose --totp -N @1234567890 00 123456
	assert_failure 1
	assert_output ''
	[ "$stderr" = "otp-verify: no common mistake explains this code" ]
	run --separate-stderr otp-verify -q --diagnose --totp -N @1234567890 00 123456
	assert_failure 1
	[ -z "$stderr" ]
	run otp-verify --diagnose --totp "$RFC_HEX" 12345
	assert_failure 2
	run otp-verify --diagnose --totp 'xyz!' 123456
	assert_failure 2
	assert_output --partial "invalid hex character at offset 0"
	refute_output --partial "'x'"
	run otp-verify --diagnose --totp "$RFC_HEX" 123456 654321
	assert_failure 2
	run otp-verify --diagnose --totp -w 100001 "$RFC_HEX" 123456
	assert_failure 2
}

@test "--state: a TOTP code, then DISALLOW_REUSE refuses it" {
	f=$(state_file '" WINDOW_SIZE 3' '" DISALLOW_REUSE' '" TOTP_AUTH' 12345678)
	run --separate-stderr otp-verify --state "$f" -N @59 287082
	assert_success
	assert_output 0
	grep -qx '" DISALLOW_REUSE 1' "$f"
	[ "$(stat -c %a "$f")" = 400 ]
	run --separate-stderr otp-verify --state "$f" -N @59 287082
	assert_failure 1
	assert_output ''
	[ "$stderr" = "otp-verify: code not accepted: code already used (DISALLOW_REUSE)" ]
	# the window: WINDOW_SIZE 3 is -1..+1
	run otp-verify --state "$f" -N @59 359152
	assert_output +1
	run otp-verify --state "$f" -N @59 969429
	assert_failure 1
}

@test "--state: scratch codes are used once; OTP from stdin" {
	f=$(state_file '" TOTP_AUTH' 12345678 87654321)
	run --separate-stderr otp-verify -v --state "$f" 12345678
	assert_success
	assert_output scratch
	[[ $stderr == *"emergency scratch code"* ]]
	! grep -q 12345678 "$f"
	grep -q 87654321 "$f"
	run otp-verify --state "$f" 12345678
	assert_failure 1
	run otp-verify --state "$f" < <(echo 87654321)
	assert_success
	assert_output scratch
}

@test "--state: HOTP counter moves; --no-increment-hotp keeps it on failure" {
	f=$(state_file '" HOTP_COUNTER 1')
	run otp-verify --state "$f" "$(hotp 2)"
	assert_success
	assert_output +1
	grep -qx '" HOTP_COUNTER 3' "$f"
	run otp-verify --state "$f" 000000
	assert_failure 1
	grep -qx '" HOTP_COUNTER 4' "$f"
	run otp-verify --no-increment-hotp --state "$f" 000000
	assert_failure 1
	grep -qx '" HOTP_COUNTER 4' "$f"
}

@test "--state: skew learning, and --no-skew-adjust" {
	opts=('" WINDOW_SIZE 3' '" TOTP_AUTH')
	# the client is 10 steps (300 s) ahead: codes of steps 11, 12, 13 at
	# server steps 1, 2, 3
	f=$(state_file "${opts[@]}")
	run otp-verify --no-skew-adjust --state "$f" -N @45 \
	    "$(oathtool --totp -N @345 "$RFC_HEX")"
	assert_failure 1
	run otp-verify --no-skew-adjust --state "$f" -N @75 \
	    "$(oathtool --totp -N @375 "$RFC_HEX")"
	assert_failure 1
	run otp-verify --no-skew-adjust --state "$f" -N @105 \
	    "$(oathtool --totp -N @405 "$RFC_HEX")"
	assert_failure 1
	! grep -q TIME_SKEW "$f"
	f=$(state_file "${opts[@]}")
	run --separate-stderr otp-verify --state "$f" -N @45 \
	    "$(oathtool --totp -N @345 "$RFC_HEX")"
	assert_failure 1
	# It says what it needs: codes one at a time, each from a new step.
	[[ $stderr == *"clock skew being learned: enter the next codes one at a time, each from a new time step"* ]]
	run otp-verify --state "$f" -N @75 "$(oathtool --totp -N @375 "$RFC_HEX")"
	assert_failure 1
	run otp-verify --state "$f" -N @105 "$(oathtool --totp -N @405 "$RFC_HEX")"
	assert_success
	grep -qx '" TIME_SKEW 10' "$f"
}

@test "--state: unsafe mode, --allowed-perm, and a missing file" {
	f=$(state_file '" TOTP_AUTH')
	chmod 644 "$f"
	run --separate-stderr otp-verify --state "$f" -N @59 287082
	assert_failure 2
	[ "$stderr" = "otp-verify: $f: state file permissions are too open" ]
	run otp-verify --allowed-perm=0644 --state "$f" -N @59 287082
	assert_success
	run otp-verify --allowed-perm=0689 --state "$f" 287082
	assert_failure 2
	run otp-verify --allowed-perm=17777 --state "$f" 287082
	assert_failure 2
	run --separate-stderr otp-verify --state "$T/nope" 287082
	assert_failure 2
	[[ $stderr == "otp-verify: $T/nope: No such file or directory" ]]
}

@test "--state: --no-strict-owner (needs root to make a foreign file)" {
	[ "$(id -u)" = 0 ] || skip "needs root to chown"
	f=$(state_file '" TOTP_AUTH')
	chown nobody "$f"
	run --separate-stderr otp-verify --state "$f" -N @59 287082
	assert_failure 2
	# Whose it is, whose it should be, and the option that allows it.
	[ "$stderr" = "otp-verify: $f: state file has the wrong owner: owned by nobody (uid $(id -u nobody)), not root (uid 0); --no-strict-owner allows it" ]
	run otp-verify --no-strict-owner --state "$f" -N @59 287082
	assert_success
}

@test "--state: a read-only directory; --allow-readonly" {
	[ "$(id -u)" != 0 ] || skip "needs a plain user: root writes into read-only directories"
	mkdir "$T/ro"
	# DISALLOW_REUSE: an accepted code is written back (without a line
	# that changes, pam_google_authenticator writes nothing either).
	printf '%s\n' "$RFC_B32" '" DISALLOW_REUSE' '" TOTP_AUTH' > "$T/ro/ga"
	chmod 400 "$T/ro/ga"
	cp -p "$T/ro/ga" "$T/before"
	chmod 500 "$T/ro"
	run --separate-stderr otp-verify --state "$T/ro/ga" -N @59 287082
	assert_failure 2
	[[ $stderr == *"$T/ro/"* ]] || fail "$stderr"
	cmp "$T/ro/ga" "$T/before"
	run otp-verify --allow-readonly --state "$T/ro/ga" -N @59 287082
	assert_success
	cmp "$T/ro/ga" "$T/before"
}

@test "--state: malformed files and codes, and options that do not apply" {
	f=$(state_file '" TOTP_AUTH')
	run --separate-stderr otp-verify --state "$f" 12345
	assert_failure 2
	[[ $stderr == *"want 6 digits or an 8-digit scratch code"* ]]
	run otp-verify --state "$f" 1234567
	assert_failure 2
	printf 'not*base32\n" TOTP_AUTH\n' > "$T/bad"
	chmod 400 "$T/bad"
	run --separate-stderr otp-verify --state "$T/bad" 123456
	assert_failure 2
	[[ $stderr == "otp-verify: $T/bad: "* ]]
	[[ $stderr != *"not*base32"* ]]
	run otp-verify --state "$f" --totp 123456
	assert_failure 2
	assert_output --partial 'the file sets the parameters'
	run otp-verify --state "$f" -w 3 123456
	assert_failure 2
	run otp-verify --state "$f" 123456 654321
	assert_failure 2
	for o in --no-skew-adjust --no-increment-hotp --no-strict-owner \
	    --allow-readonly --allowed-perm=0600; do
		run otp-verify "$o" "$RFC_HEX" 755224
		assert_failure 2
		assert_output --partial 'need --state'
	done
}

@test "man page EXAMPLES run as printed" {
	run otp-verify 3132333435363738393031323334353637383930 755224
	assert_output 0
	run otp-verify -c 5 -w 10 3132333435363738393031323334353637383930 520489
	assert_output 4
	run otp-verify --totp -w 2 -N '2009-02-13 23:32:30 UTC' -b \
	    GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ 005924
	assert_output -- -2
	run otp-verify --find-skew --totp -N @3000 \
	    3132333435363738393031323334353637383930 969429 338314
	assert_output "-97 steps (-2910 s): the client's clock is 48 min 30 s behind"
	run otp-verify --diagnose --totp -N @1234567890 00 537709
	assert_output '60 s steps, not 30 s (step 20576131, offset 0)'
}

@test "man page: the script example, and mandoc -Tlint is clean" {
	cd "$T"
	echo "$RFC_B32" > secret.txt
	code=$(oathtool --totp -b "$RFC_B32")
	run bash -c 'if otp-verify -q --totp -w 1 -b @secret.txt "$0" >/dev/null; then
	echo welcome
fi' "$code"
	assert_output welcome
	run bash -c 'if otp-verify -q --totp -w 1 -b @secret.txt "$0" >/dev/null; then
	echo welcome
fi' 000000
	assert_output ''
	run mandoc -Tlint -Wwarning "$ROOT/man/otp-verify.1"
	assert_success
	assert_output ''
}

@test "--find-skew: a HOTP run that ends at 2^64-1 has no next counter" {
	run otp-verify --find-skew -c 18446744073709551610 "$BEEF" 773352 044040
	assert_success
	assert_output '+4 counters: the token is at counter 18446744073709551614; the counter range is used up'
	run otp-verify --find-skew -c 18446744073709551610 "$BEEF" 044040 057490
	assert_failure 1
}

# Every combination otp-gen accepts, otp-verify checks with the same
# meaning (cli_otp_check holds the one rule for both): generate a window
# of codes, then verify each at the time or counter it was made for.
@test "otp-gen and otp-verify: what one accepts, the other checks alike" {
	local k=$RFC_HEX m=e3152afee62599c8 args c i fails=0
	while IFS='|' read -r args key; do
		[ -n "$args" ] || continue
		# shellcheck disable=SC2086
		mapfile -t c < <(otp-gen $args -w 2 "$key")
		if [ "${#c[@]}" -ne 3 ]; then
			echo "otp-gen $args: ${c[*]}"; fails=$((fails + 1))
			continue
		fi
		for i in 0 1 2; do
			# shellcheck disable=SC2086
			run otp-verify $args -w 2 "$key" "${c[$i]}"
			# HOTP looks ahead: offset i; TOTP and the others: +i.
			if [ "$status" -ne 0 ] || { [ "$output" != "$i" ] &&
			    [ "$output" != "+$i" ]; }; then
				echo "otp-verify $args ${c[$i]}: $status $output"
				fails=$((fails + 1))
			fi
		done
		# A code of another step or counter is refused.
		# shellcheck disable=SC2086
		run otp-verify $args "$key" "${c[2]}"
		[ "$status" -eq 1 ] || { echo "accepted: $args"; fails=$((fails + 1)); }
	done <<EOF
--steam -N @1234567890|$k
--steam -S @100 -s 60 -N @1234567890|$k
--motp --pin=1234 -N @165892298|$m
--motp --pin=1234 -S @165892295 -N @165892298|$m
--motp --pin=1234 -S @7 -N @1234567893|$m
--hotp -c 5|$k
--hotp -c 5 -a SHA256 -d 8|$k
-c 18446744073709551610|$k
--totp -N @1234567890|$k
--totp -S @1000 -N @1234567890|$k
--totp -s 45 -N @1234567890|$k
--totp -s 1m30s -S 2009-02-13T00:00:00Z -N @1234567890|$k
--totp=SHA512 -d 10 -N @1234567890|$k
--totp -a SHA256 -d 7 -S @5 -s 7 -N @1234567890|$k
-b --totp -N @1234567890|JBSWY3DPEHPK3PXP
EOF
	[ "$fails" -eq 0 ]
}

# And what one refuses, the other refuses with the same message.
@test "otp-gen and otp-verify: the same combinations refused, worded alike" {
	local args fails=0 g v
	while read -r args; do
		[ -n "$args" ] || continue
		# shellcheck disable=SC2086
		g=$(otp-gen $args 00 2>&1 >/dev/null | head -1; echo "rc=${PIPESTATUS[0]}")
		# shellcheck disable=SC2086
		v=$(otp-verify $args 00 123456 2>&1 >/dev/null | head -1; echo "rc=${PIPESTATUS[0]}")
		if [ "${g#otp-gen: }" != "${v#otp-verify: }" ] ||
		    [[ "$g" != *"rc=2" ]]; then
			echo "$args: '$g' vs '$v'"; fails=$((fails + 1))
		fi
	done <<'EOF'
--hotp --totp
--totp --hotp
--steam --hotp
--motp --pin=1 --hotp
--steam --motp --pin=1
--steam -d 8
--steam -a SHA256
--steam --totp=SHA256
--motp --pin=1 -d 8
--motp --pin=1 -s 30
--motp
--pin=1
--steam --pin=1
--totp -c 1
--steam -c 1
--hotp -N @1
-S @1
-s 60
EOF
	[ "$fails" -eq 0 ]
}

@test "standard input holds one line: a second one is refused, not dropped" {
	# Issue 13: only the first line was read, the rest dropped, exit 0.
	run --separate-stderr bash -c 'printf "755224\n287082\n" | otp-verify "$RFC_HEX"'
	assert_failure 2
	assert_output ''
	[[ $stderr == *"standard input: more than one line"* ]]
	run --separate-stderr bash -c 'printf "755224\n\n" | otp-verify "$RFC_HEX"'
	assert_failure 2
	run bash -c 'printf "755224\r\n" | otp-verify "$RFC_HEX"'
	assert_success
	assert_output 0
	# The key from "-" too, and in --diagnose and --state.
	run --separate-stderr bash -c 'printf "%s\n%s\n" "$RFC_HEX" 00 | otp-verify - 755224'
	assert_failure 2
	[[ $stderr == *"more than one line"* ]]
	run bash -c 'printf "%s\n" "$RFC_HEX" | otp-verify - 755224'
	assert_success
	run --separate-stderr bash -c 'printf "%s\nx\n" "$RFC_HEX" | otp-verify --diagnose - 755224'
	assert_failure 2
	[[ $stderr == *"more than one line"* ]]
	f=$(state_file '" TOTP_AUTH')
	run --separate-stderr bash -c 'printf "287082\n287082\n" | otp-verify --state "$0" -N @59' "$f"
	assert_failure 2
	[[ $stderr == *"more than one line"* ]]
}

@test "options a URI's type cannot use are refused as for a bare key" {
	# Issue 13: -N was ignored for an HOTP URI, refused for a bare key.
	u="otpauth://hotp/x?secret=$RFC_B32"
	run --separate-stderr otp-verify -N @59 "$u" 755224
	assert_failure 2
	[[ $stderr == *"apply to TOTP only (the key is an HOTP URI)"* ]]
	run --separate-stderr otp-verify -c 3 "otpauth://totp/x?secret=$RFC_B32" 755224
	assert_failure 2
	[[ $stderr == *"applies to HOTP only (the key is a TOTP URI)"* ]]
	run otp-verify -c 1 "$u" 287082
	assert_success
	assert_output 0
}

@test "--strict without -b is refused: hex is always strict" {
	run --separate-stderr otp-verify --strict "$RFC_HEX" 755224
	assert_failure 2
	[[ $stderr == *"--strict checks Base32 keys: add -b"* ]]
}

@test "--state CODE without a file name says so" {
	# Issue 13: "--state 123456" took the code for the file name and then
	# said "standard input: no OTP".
	run --separate-stderr otp-verify --state 123456 < /dev/null
	assert_failure 2
	[[ $stderr == *"--state '123456': no such file, and it looks like a code"* ]]
	run --separate-stderr otp-verify --state 12345678 < /dev/null
	assert_failure 2
	[[ $stderr == *"looks like a code"* ]]
	# A file of that name is a file; another name is an I/O error.
	f=$(state_file '" TOTP_AUTH')
	cp -p "$f" "$T/287082"
	run bash -c 'cd "$0" && echo 287082 | otp-verify -N @59 --state 287082' "$T"
	assert_success
	run --separate-stderr otp-verify --state "$T/nofile" 287082
	assert_failure 2
	[[ $stderr != *"looks like a code"* ]]
}

@test "--dry-run: what --state would do, the file untouched" {
	f=$(state_file '" WINDOW_SIZE 3' '" DISALLOW_REUSE' '" TOTP_AUTH' 12345678)
	before=$(cat "$f")
	run --separate-stderr otp-verify --dry-run -v --state "$f" -N @59 287082
	assert_success
	assert_output 0
	[[ $stderr == *"State file would be updated (dry run: not written)."* ]]
	[ "$(cat "$f")" = "$before" ]
	run otp-verify --dry-run --state "$f" 12345678
	assert_success
	assert_output scratch
	[ "$(cat "$f")" = "$before" ]
	run --separate-stderr otp-verify --dry-run --state "$f" -N @59 123456
	assert_failure 1
	[ "$(cat "$f")" = "$before" ]
	# The same code for real: accepted and recorded, then reused.
	run otp-verify --state "$f" -N @59 287082
	assert_success
	[ "$(cat "$f")" != "$before" ]
	run otp-verify --dry-run --state "$f" -N @59 287082
	assert_failure 1
	run --separate-stderr otp-verify --dry-run "$RFC_HEX" 755224
	assert_failure 2
	[[ $stderr == *"need --state"* ]]
}

@test "a malformed state file: the line and option at fault, no byte of it" {
	# Issue 13: state-file errors did not say which line or option.
	f=$(state_file '" TOTP_AUTH' '" WINDOW_SIZE 101' 12345678)
	run --separate-stderr otp-verify --state "$f" 123456
	assert_failure 2
	[ "$stderr" = "otp-verify: $f: line 3: bad option line in state file: \" WINDOW_SIZE" ]
	f=$(state_file '" RATE_LIMIT 3 30' '" HOTP_COUNTER 7x')
	run --separate-stderr otp-verify --state "$f" 123456
	assert_failure 2
	[ "$stderr" = "otp-verify: $f: line 3: bad option line in state file: \" HOTP_COUNTER" ]
	rm -f "$f"
	printf 'GEZD!GNB\n" TOTP_AUTH\n' > "$f"
	chmod 400 "$f"
	run --separate-stderr otp-verify --state "$f" 123456
	assert_failure 2
	[ "$stderr" = "otp-verify: $f: line 1: bad secret in state file" ]
}

@test "--diagnose says one consistent thing, and searches further" {
	# Issue 13: "verifies" and "30 min behind" were printed together.
	run --separate-stderr otp-verify --diagnose -w 100 --totp -N @1234569690 00 712049
	assert_success
	assert_output 'verifies with the given parameters (step 41152263, offset -60)'
	# The alternatives that fit less well are marked as such.
	run otp-verify --diagnose -N @59 -d 8 "$RFC_HEX" 94287082
	assert_line --index 0 'the token is 1 counter ahead, beyond the window (counter 1, offset +1)'
	assert_line --index 1 'or: TOTP, not HOTP (step 1, offset 0)'
	# A phone 15 to 40 minutes slow or fast, alone or with a wrong
	# algorithm or step.
	run otp-verify --diagnose --totp -N @1234568790 00 712049
	assert_output "the client's clock is 15 min behind, beyond the window (step 41152263, offset -30)"
	run otp-verify --diagnose --totp -N @1234565490 00 712049
	assert_output "the client's clock is 40 min ahead, beyond the window (step 41152263, offset +80)"
	run otp-verify --diagnose --totp -N @1234569090 00 997628
	assert_line --index 0 "algorithm SHA256, not SHA1; the client's clock is 20 min behind, beyond the window (step 41152263, offset -40)"
	run otp-verify --diagnose --totp -N @1234569090 00 537709
	assert_line --index 0 "60 s steps, not 30 s; the client's clock is 20 min behind, beyond the window (step 20576131, offset -20)"
	# An HOTP token pressed far ahead.
	run otp-verify --diagnose -N @0 -c 20 "$RFC_HEX" "$(otp-gen -c 520 "$RFC_HEX")"
	assert_line --index 0 'the token is 500 counters ahead, beyond the window (counter 520, offset +500)'
	# Still fast: the whole search in well under a second.
	start=$(date +%s%N)
	run otp-verify --diagnose --totp -N @1234567890 00 123456
	assert_failure 1
	[ $(( ($(date +%s%N) - start) / 1000000 )) -lt 1000 ]
}

@test "--store=oath: a refusal says why once; an HOTP offset counts from the next code, as a state file's" {
	printf 'HOTP alice - %s\n' "$RFC_HEX" > "$T/users"
	chmod 600 "$T/users"
	run --separate-stderr otp-verify --store="oath:$T/users" --user=alice 000000
	assert_failure 1
	[ "$stderr" = "otp-verify: code not accepted: wrong code" ]
	# A never-used line: counter 0 is the next code.
	run --separate-stderr otp-verify --store="oath:$T/users" --user=alice "$(hotp 0)"
	assert_success
	assert_output 0
	# Counter 0 used: counter 1 is the next one; then 3 is one ahead.
	run --separate-stderr otp-verify --store="oath:$T/users" --user=alice "$(hotp 1)"
	assert_output 0
	run --separate-stderr otp-verify --store="oath:$T/users" --user=alice "$(hotp 3)"
	assert_output +1
	# The same codes against a state file at counter 0.
	local f
	f=$(state_file '" HOTP_COUNTER 1')
	chmod 600 "$f"
	run otp-verify --store="ga:$f" "$(hotp 1)"
	assert_output 0
	run otp-verify --store="ga:$f" "$(hotp 3)"
	assert_output +1
}

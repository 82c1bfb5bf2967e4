#!/usr/bin/env bats
# otp-gen: every option, the reference vectors, the errors.

bats_require_minimum_version 1.5.0
load common

# vectors FILE: replay tests/vectors/hotp.txt through the tool.
@test "HOTP vectors from tests/vectors/hotp.txt" {
	local alg key counter digits code n=0
	while IFS='|' read -r alg key counter digits code; do
		case $alg in '#'* | '') continue ;; esac
		alg=${alg// /} key=${key// /} counter=${counter// /}
		digits=${digits// /} code=${code// /}
		run otp-gen -a "$alg" -c "$counter" -d "$digits" "$key"
		assert_success
		assert_output "$code"
		n=$((n + 1))
	done < "$VECTORS/hotp.txt"
	[ "$n" -gt 30 ]
}

@test "TOTP vectors from tests/vectors/totp.txt" {
	local alg key t step start digits code n=0
	while IFS='|' read -r alg key t step start digits code; do
		case $alg in '#'* | '') continue ;; esac
		alg=${alg// /} key=${key// /} t=${t// /} step=${step// /}
		start=${start// /} digits=${digits// /} code=${code// /}
		run otp-gen --totp="$alg" -s "$step" -S "@$start" -N "@$t" \
		    -d "$digits" "$key"
		assert_success
		assert_output "$code"
		n=$((n + 1))
	done < "$VECTORS/totp.txt"
	[ "$n" -gt 20 ]
}

@test "HOTP is the default; --hotp says so explicitly" {
	run otp-gen "$RFC_HEX"
	assert_output 755224
	run otp-gen --hotp -c 1 "$RFC_HEX"
	assert_output 287082
}

@test "--totp takes the algorithm in any case; -a does too" {
	run otp-gen --totp=sha256 -d 8 -N @59 \
	    3132333435363738393031323334353637383930313233343536373839303132
	assert_output 46119246
	run otp-gen --totp -a SHA512 -d 8 -N @59 "$RFC_HEX"
	assert_output 69342147
}

@test "-a applies to HOTP" {
	run otp-gen -a SHA256 -d 8 "$RFC_HEX"
	assert_success
	expected=$("$PY" -c 'import pyotp,sys; print(pyotp.HOTP(sys.argv[1], digits=8, digest="sha256").at(0))' "$RFC_B32")
	assert_output "$expected"
}

@test "an unknown algorithm is an error, not SHA1" {
	run otp-gen --totp=MD5 "$RFC_HEX"
	assert_failure 2
	assert_output --partial "unknown algorithm 'MD5'"
	run otp-gen -a SHA3 "$RFC_HEX"
	assert_failure 2
}

@test "--totp SHA256 with a space takes SHA256 as a key, as oathtool" {
	run otp-gen --totp SHA256
	assert_failure 2
	assert_output --partial "invalid hex character at offset 0"
	refute_output --partial "'S'"
}

@test "-b reads Base32 leniently: case, spaces, dashes, padding" {
	for k in GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ \
	    gezdgnbvgy3tqojqgezdgnbvgy3tqojq \
	    'GEZD GNBV GY3T QOJQ GEZD GNBV GY3T QOJQ' \
	    GEZD-GNBV-GY3T-QOJQ-GEZD-GNBV-GY3T-QOJQ; do
		run otp-gen -b "$k"
		assert_output 755224
	done
	run otp-gen -b gr6d5br725s6vnckv4vlhlaore
	assert_output 993210
	run otp-gen -b XBK55CIOSR2TO6VUZX7KB2NJX2
	assert_output 386584
	run otp-gen --base32 MFRGG===
	assert_output "$(oathtool -b MFRGG===)"
}

@test "--strict refuses non-canonical Base32" {
	run otp-gen -b --strict GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ
	assert_success
	run otp-gen -b --strict GR6D5BR725S6VNCKV4VLHLAORE
	assert_output 993210
	run otp-gen -b --strict GR6D5BR725S6VNCKV4VLHLAORE======
	assert_output 993210
	run otp-gen -b --strict GR6D5BR725S6VNCKV4VLHLAORE==
	assert_failure 2
	run otp-gen -b --strict gezdgnbvgy3tqojqgezdgnbvgy3tqojq
	assert_failure 2
	run otp-gen -b --strict XBK55CIOSR2TO6VUZX7KB2NJX2
	assert_failure 2
}

@test "-x is the default and undoes -b" {
	run otp-gen -b -x "$RFC_HEX"
	assert_output 755224
	run otp-gen --hex deadbeef
	assert_output 057490
}

@test "a Base32 key read as hex gets a hint" {
	run otp-gen JBSWY3DPEHPK3PXP
	assert_failure 2
	assert_output --partial "offset 0"
	assert_output --partial "use -b"
}

@test "-c counter: decimal, large values, refuses the rest" {
	run otp-gen -c 18446744073709551615 deadbeef
	assert_output 044040
	run otp-gen --counter=9223372036854775808 deadbeef
	assert_output 657352
	# decimal even with a leading zero (oathtool reads 010 as octal 8)
	run otp-gen -c 010 "$RFC_HEX"
	assert_output "$(oathtool -c 10 "$RFC_HEX")"
	for bad in -1 0x10 18446744073709551616 1e3 '' ' 1'; do
		run otp-gen -c "$bad" deadbeef
		assert_failure 2
		assert_output --partial "--counter"
	done
}

@test "-d digits 6 to 10, others refused" {
	run otp-gen -d 7 "$RFC_HEX"
	assert_output 4755224
	run otp-gen --digits=10 "$RFC_HEX"
	assert_output 1284755224
	run otp-gen -d 9 00
	assert_output "$("$PY" -c 'import pyotp; print(pyotp.HOTP("AA", digits=9).at(0))')"
	for bad in 5 11 0 -6 six; do
		run otp-gen -d "$bad" "$RFC_HEX"
		assert_failure 2
		assert_output --partial "digits"
	done
}

@test "-s step accepts durations; 0 and garbage refused" {
	run otp-gen --totp -s 60 -N @1234567890 00
	assert_output 537709
	run otp-gen --totp -s 1m -N @1234567890 00
	assert_output 537709
	run otp-gen --totp --time-step-size=45s -N @1234567890 00
	assert_output 261936
	run otp-gen --totp -s 2m30s -N @1234567890 00
	assert_output "$(oathtool --totp -s 2m30s -N @1234567890 00)"
	for bad in 0 0s -30 x 30x; do
		run otp-gen --totp -s "$bad" 00
		assert_failure 2
		assert_output --partial "time-step-size"
	done
}

@test "-S start time moves T0; a time before it is refused" {
	run otp-gen --totp -S "1980-01-01 00:00:00 UTC" -N @1234567890 00
	assert_output 419573
	run otp-gen --totp --start-time=@2000 -N @1000 00
	assert_failure 2
	assert_output --partial "before the start time"
}

@test "-N understands the time forms of DESIGN.md" {
	run otp-gen --totp -N "2008-04-23 17:42:17 UTC" 00
	assert_output 974945
	for t in @1234567890 @1234567890.999 "2009-02-13 23:31:30 UTC" \
	    2009-02-13T23:31:30Z "2009-02-13T23:31:30+00:00" \
	    "2009-02-14T00:31:30+01:00" "2009-02-14T00:31:30+0100" \
	    "Fri, 13 Feb 2009 23:31:30 +0000" "@1234567920 - 30 seconds"; do
		run otp-gen --totp --now="$t" 00
		assert_output 712049
	done
	TZ=UTC run otp-gen --totp -N "2009-02-13 23:31:30" 00
	assert_output 712049
	TZ=Europe/Paris run otp-gen --totp -N "2009-02-14 00:31:30" 00
	assert_output 712049
}

@test "-N now and relative times follow the clock" {
	run otp-gen --totp -N now "$RFC_HEX"
	assert_output "$(oathtool --totp "$RFC_HEX")"
	run otp-gen --totp -N "1 hour ago" "$RFC_HEX"
	assert_output "$(oathtool --totp -N "1 hour ago" "$RFC_HEX")"
}

@test "an unparseable time is an error, never now" {
	for bad in 1234567890 yesterday-ish "2009-13-01 00:00:00" "" "@"; do
		run otp-gen --totp -N "$bad" 00
		assert_failure 2
		assert_output --partial "--now"
	done
}

@test "-w prints N further codes: HOTP forward, TOTP forward" {
	run otp-gen -c 5 -w 2 "$RFC_HEX"
	assert_output "$(printf '254676\n287922\n162583')"
	run otp-gen --totp --window=3 -N @1234567890 "$RFC_HEX"
	assert_output "$(oathtool --totp -w 3 -N @1234567890 "$RFC_HEX")"
}

@test "-w: negative refused; past the last counter refused" {
	run otp-gen -w -1 "$RFC_HEX"
	assert_failure 2
	assert_output --partial "--window"
	run otp-gen -c 18446744073709551615 -w 1 deadbeef
	assert_failure 2
	assert_output --partial "window"
}

@test "-w streams a large window" {
	run bash -c 'otp-gen -w 1000000 "$RFC_HEX" | wc -l'
	assert_output 1000001
	run bash -c 'otp-gen -w 1000000 "$RFC_HEX" | tail -n 1'
	assert_output "$(oathtool -c 1000000 "$RFC_HEX")"
}

@test "a large window gives the lines of its parts, across batch edges" {
	local uri="otpauth://totp/Ex:al?secret=$RFC_B32&issuer=Ex" k t
	# Line k+1 of a window is the one code of a run k steps later.
	otp-gen --totp=SHA512 -N @1700000005 -w 70000 -l "$uri" \
	    > "$BATS_TEST_TMPDIR/totp"
	otp-gen --steam -N @1700000005 -w 20000 "$RFC_HEX" \
	    > "$BATS_TEST_TMPDIR/steam"
	for k in 0 255 256 257 4095 4096 20000; do
		t=$((1700000005 + 30 * k))
		run sed -n "$((k + 1))p" "$BATS_TEST_TMPDIR/totp"
		assert_output "$(otp-gen --totp=SHA512 -N "@$t" -l "$uri")"
		run sed -n "$((k + 1))p" "$BATS_TEST_TMPDIR/steam"
		assert_output "$(otp-gen --steam -N "@$t" "$RFC_HEX")"
	done
	run sed -n 70001p "$BATS_TEST_TMPDIR/totp"
	assert_output "$(otp-gen --totp=SHA512 -N @1702100005 -l "$uri")"
	# And oathtool's lines, up to the last counter.
	run bash -c "otp-gen -w 140000 $RFC_HEX | sha256sum"
	assert_output "$(oathtool -w 140000 "$RFC_HEX" | sha256sum)"
	run bash -c "otp-gen -c 18446744073709500000 -w 51615 $RFC_HEX |
	    sha256sum"
	assert_output "$(oathtool -c 18446744073709500000 -w 51615 \
	    "$RFC_HEX" | sha256sum)"
}

@test "a write error stops a large window at once" {
	run bash -c "timeout 10 otp-gen -w 100000000 $RFC_HEX >/dev/full"
	assert_failure 2
	assert_output --partial "write error"
}

@test "-v prints oathtool's block (TOTP)" {
	run otp-gen -v --totp -d 8 -N @2000000000 "$RFC_HEX"
	assert_success
	assert_output "$(oathtool -v --totp -d 8 -N @2000000000 "$RFC_HEX")"
}

@test "-v prints oathtool's block (HOTP, window)" {
	run otp-gen --verbose -c 5 -w 1 deadbeef
	assert_output "$(oathtool -v -c 5 -w 1 deadbeef)"
}

@test "-v names a non-default HOTP algorithm" {
	run otp-gen -v -a SHA512 "$RFC_HEX"
	assert_line "HOTP mode: SHA512"
}

@test "-r appends the seconds left" {
	run otp-gen --totp -r -N @1234567890 00
	assert_output "$(printf '712049\t30')"
	run otp-gen --totp --remaining -N @1234567899 -w 1 00
	assert_output "$(printf '712049\t21\n%s\t51' "$(otp-gen --totp -N @1234567920 00)")"
	run otp-gen -r 00
	assert_failure 2
	assert_output --partial "TOTP only"
}

@test "-l prefixes the URI label" {
	uri='otpauth://totp/Example:alice@google.com?secret=JBSWY3DPEHPK3PXP&issuer=Example'
	run otp-gen -l -N "2009-11-10 23:00:00 UTC" "$uri"
	assert_output "$(printf 'Example:alice@google.com\t528064')"
	run otp-gen --label 00
	assert_output "$(printf '\t328482')"
}

@test "an otpauth URI carries its parameters; options override them" {
	uri='otpauth://hotp/Air%20Canada:Benjamin?secret=KUVJJOM753IHTNDSZVCNKL7GII&issuer=Air+Canada&algorithm=SHA256&digits=7&counter=50'
	run otp-gen "$uri"
	assert_output 4444976
	run otp-gen -c 51 "$uri"
	assert_output "$("$PY" -c 'import pyotp; print(pyotp.HOTP("KUVJJOM753IHTNDSZVCNKL7GII", digits=7, digest="sha256").at(51))')"
	run otp-gen -d 8 -c 50 -a SHA1 "$uri"
	assert_output "$("$PY" -c 'import pyotp; print(pyotp.HOTP("KUVJJOM753IHTNDSZVCNKL7GII", digits=8).at(50))')"
}

@test "a URI without a secret is an error" {
	run otp-gen 'otpauth://totp/Example:alice?issuer=Example'
	assert_failure 2
	assert_output --partial "secret"
}

@test "several operands, -, @FILE" {
	echo "$RFC_HEX" > "$BATS_TEST_TMPDIR/key"
	run bash -c 'echo 00 | otp-gen deadbeef - "@$BATS_TEST_TMPDIR/key"'
	assert_output "$(printf '057490\n328482\n755224')"
	printf '%s\r\n' "$RFC_HEX" > "$BATS_TEST_TMPDIR/crlf"
	run otp-gen "@$BATS_TEST_TMPDIR/crlf"
	assert_output 755224
}

@test "@FILE that cannot be read is an error naming it" {
	run otp-gen "@$BATS_TEST_TMPDIR/missing"
	assert_failure 2
	assert_output --partial "missing"
	run otp-gen "@$BATS_TEST_TMPDIR"
	assert_failure 2
	: > "$BATS_TEST_TMPDIR/empty"
	run otp-gen "@$BATS_TEST_TMPDIR/empty"
	assert_failure 2
}

@test "without KEY every stdin line is a key, in order" {
	run bash -c 'printf "%s\n\n# comment\ndeadbeef\r\n00" "$RFC_HEX" | otp-gen'
	assert_success
	assert_output "$(printf '755224\n057490\n328482')"
}

@test "a bad stdin line is reported with its number; the rest still run" {
	run bash -c 'printf "00\nzz\ndeadbeef\n" | otp-gen'
	assert_failure 2
	assert_line 328482
	assert_line 057490
	assert_output --partial "line 2"
}

@test "empty stdin is an error" {
	run otp-gen < /dev/null
	assert_failure 2
	assert_output --partial "no key"
}

@test "keys that decode to nothing or too much are refused" {
	run otp-gen -b ''
	assert_failure 2
	run otp-gen -b '===='
	assert_failure 2
	run otp-gen "$(head -c 257 /dev/zero | od -An -v -tx1 | tr -d ' \n')"
	assert_failure 2
	assert_output --partial "too long"
}

@test "--steam prints Steam Guard codes" {
	run otp-gen --steam -b -N @0 JBSWY3DPEHPK3PXP
	assert_output VH8YJ
	run otp-gen --steam -N @59 "$RFC_HEX"
	assert_output PV9M4
	run otp-gen --steam -d 8 "$RFC_HEX"
	assert_failure 2
}

@test "--motp --pin prints Mobile-OTP codes" {
	run otp-gen --motp --pin=1234 -N @165892298 e3152afee62599c8
	assert_output e7d8b6
	run otp-gen --motp e3152afee62599c8
	assert_failure 2
	run otp-gen --pin=1234 e3152afee62599c8
	assert_failure 2
}

@test "TOTP-only options on a bare HOTP key are refused" {
	run otp-gen -N @59 "$RFC_HEX"
	assert_failure 2
	assert_output --partial "TOTP only"
	run otp-gen --totp -c 3 "$RFC_HEX"
	assert_failure 2
	assert_output --partial "HOTP only"
}

@test "-h and -V" {
	run otp-gen -h
	assert_success
	assert_output --partial "usage: otp-gen"
	run otp-gen --version
	assert_success
	assert_output --regexp '^otp-gen \(otp-utils\) [0-9]+\.[0-9]+'
}

@test "an unknown option is a usage error" {
	run otp-gen --frobnicate 00
	assert_failure 2
	assert_output --partial "--help"
}

@test "a write error on stdout is exit 2" {
	run bash -c 'otp-gen "$RFC_HEX" > /dev/full'
	assert_failure 2
	assert_output --partial "write error"
	run bash -c 'otp-gen -w 100000 "$RFC_HEX" > /dev/full'
	assert_failure 2
	assert_output --partial "write error"
}

@test "no error message contains the key" {
	secret=4a4b4c4d4e4f505152535455
	for args in "-d 5 $secret" "--totp -N bogus $secret" "-c -1 $secret" \
	    "-w -1 $secret" "--totp=X $secret"; do
		# shellcheck disable=SC2086
		run otp-gen $args
		assert_failure 2
		refute_output --partial "$secret"
	done
	run otp-gen "${secret}zz"
	refute_output --partial "$secret"
}

@test "the man page examples print what they say" {
	run otp-gen 3132333435363738393031323334353637383930
	assert_output 755224
	run otp-gen --totp -d 8 -N @59 3132333435363738393031323334353637383930
	assert_output 94287082
	run otp-gen -b 'gezd gnbv gy3t qojq gezd gnbv gy3t qojq'
	assert_output 755224
	printf '%s\n' 'otpauth://totp/Example:alice@google.com?secret=JBSWY3DPEHPK3PXP&issuer=Example' > "$BATS_TEST_TMPDIR/accounts"
	run otp-gen --label -N @1257894000 < "$BATS_TEST_TMPDIR/accounts"
	assert_output "$(printf 'Example:alice@google.com\t528064')"
}

@test "-N days and weeks are calendar days across clock changes, as date -d" {
	local tz text want c n=0
	# Europe/Berlin: 2026-03-29 02:00 -> 03:00, 2026-10-25 03:00 -> 02:00.
	# America/New_York: 2026-03-08 02:00 -> 03:00, 2026-11-01 02:00 -> 01:00.
	while IFS='|' read -r tz text; do
		want=$(TZ=$tz date -d "$text" +%s)
		TZ=$tz run otp-gen --totp -v -N "$text" 00
		assert_success
		assert_output --partial "($want)"
		c=$(otp-gen --totp -N "@$want" 00)
		TZ=$tz run otp-verify --totp -N "$text" 00 "$c"
		assert_success
		assert_output 0
		n=$((n + 1))
	done <<-'CASES'
	Europe/Berlin|2026-03-28 12:00 1 day
	Europe/Berlin|2026-03-28 12:00 tomorrow
	Europe/Berlin|2026-03-29 12:00 yesterday
	Europe/Berlin|2026-03-30 12:00 2 days ago
	Europe/Berlin|2026-03-22 12:00 1 week
	Europe/Berlin|2026-03-28 12:00 24 hours
	Europe/Berlin|2026-03-28 12:00 1 day 1 hour
	Europe/Berlin|2026-10-24 12:00 1 day
	Europe/Berlin|2026-10-25 12:00 1 day ago
	Europe/Berlin|2026-03-28 02:30 1 day
	Europe/Berlin|2026-10-24 02:30 1 day
	Europe/Berlin|2026-10-26 02:30 1 day ago
	Europe/Berlin|2026-03-28 12:00 UTC 1 day
	Europe/Berlin|2026-03-28 12:00 +0100 + 1 day
	America/New_York|2026-03-07 12:00 1 day
	America/New_York|2026-03-09 12:00 2 days ago
	America/New_York|2026-03-01 12:00 1 week
	America/New_York|2026-10-31 12:00 tomorrow
	America/New_York|2026-11-01 12:00 yesterday
	America/New_York|2026-03-07 02:30 1 day
	America/New_York|2026-10-31 01:30 1 day
	America/New_York|2026-11-02 01:30 1 day ago
	America/New_York|2026-03-07 12:00 EST 1 day
	CASES
	[ "$n" -eq 23 ]
	# The day across the spring change is 23 hours, the hours exact.
	want=$(TZ=UTC date -d "2026-03-29 10:00" +%s)
	TZ=Europe/Berlin run otp-gen --totp -v -N "2026-03-28 12:00 1 day" 00
	assert_output --partial "($want)"
}

@test "a mixed file: each key takes the options of its type" {
	# Issue 13: -N was ignored for an HOTP URI line but refused for a
	# bare key; -r failed HOTP lines.  In a run of keys each key takes
	# what fits it; an option no key used is an error at the end.
	h="otpauth://hotp/h?secret=$RFC_B32"
	t="otpauth://totp/t?secret=$RFC_B32"
	run --separate-stderr bash -c 'printf "%s\n%s\n" "$0" "$1" | otp-gen -r -N @59' "$h" "$t"
	assert_success
	assert_output "$(printf '755224\n287082\t1')"
	[ -z "$stderr" ]
	run --separate-stderr otp-gen -r -N @59 "$h" "$t"
	assert_success
	assert_output "$(printf '755224\n287082\t1')"
	run --separate-stderr bash -c 'printf "%s\n%s\n" "$0" "$0" | otp-gen -N @59' "$h"
	assert_failure 2
	[ "${#lines[@]}" -eq 2 ]
	[[ $stderr == *"used by no key: every key was HOTP"* ]]
	run --separate-stderr otp-gen --totp -c 3 -N @59 "$RFC_HEX" "$RFC_HEX"
	assert_failure 2
	[[ $stderr == *"--counter used by no key"* ]]
}

@test "a lone key must use every option, URI or bare" {
	run --separate-stderr otp-gen -N @59 "otpauth://hotp/h?secret=$RFC_B32"
	assert_failure 2
	assert_output ''
	[[ $stderr == *"apply to TOTP only (the key is an HOTP URI)"* ]]
	run --separate-stderr otp-gen -N @59 "$RFC_HEX"
	assert_failure 2
	[[ $stderr == *"apply to TOTP only (add --totp)"* ]]
	run --separate-stderr otp-gen -r "otpauth://hotp/h?secret=$RFC_B32"
	assert_failure 2
	[[ $stderr == *"--remaining applies to TOTP only"* ]]
}

@test "--strict without -b is refused: hex keys are always strict" {
	# Issue 13: otp-gen --strict HEX ignored --strict without a word.
	run --separate-stderr otp-gen --strict "$RFC_HEX"
	assert_failure 2
	assert_output ''
	[[ $stderr == *"--strict checks Base32 keys: add -b"* ]]
	run otp-gen --strict -b "$RFC_B32"
	assert_success
}

@test "-N takes the date spellings of date -d, with its results" {
	# Issue 13: month first, no clock time, one-digit fields, zone names
	# of fixed offset, today, next week.  Each against date -d itself.
	local tz text want n=0
	while IFS='|' read -r tz text; do
		want=$(TZ=$tz date -d "$text" +%s)
		TZ=$tz run otp-gen --totp -v -N "$text" 00
		assert_success
		assert_output --partial "Current time: "
		assert_output --partial "($want)"
		n=$((n + 1))
	done <<-'CASES'
	Europe/Berlin|Feb 13 2009
	Europe/Berlin|13 Feb 2009
	America/New_York|Feb 13, 2009 23:31:30
	Asia/Tokyo|Fri Feb 13 2009
	UTC|2009-2-3 1:2:3 UTC
	Europe/Berlin|2009-2-3 1:2:3
	UTC|2009-02-13 23:31:30 CET
	UTC|2009-07-13 23:31:30 CEST
	America/New_York|2009-07-13 12:00 BST
	UTC|2009-07-13 12:00 JST
	UTC|2009-07-13 12:00 MSK
	Europe/Berlin|2009-02-13 23:31:30 UTC today
	Europe/Berlin|2009-02-13 23:31:30 UTC next week
	America/New_York|2026-03-07 12:00 next day
	CASES
	[ "$n" -eq 14 ]
	# "today" and "next week" from now, as date -d: within a second.
	want=$(date -d 'next week' +%s)
	run otp-gen --totp -v -N 'next week' 00
	got=$(printf '%s\n' "$output" | sed -n 's/^Current time: .*(\([0-9]*\))$/\1/p')
	[ $((got - want)) -ge -2 ] && [ $((got - want)) -le 2 ]
}

@test "-N refuses what is ambiguous and points at the word not understood" {
	run --separate-stderr otp-gen --totp -N '2009-07-13 12:00 IST' 00
	assert_failure 2
	[ "$stderr" = "otp-gen: --now: unrecognised time: '2009-07-13 12:00 IST': 'IST' not understood" ]
	run --separate-stderr otp-gen --totp -N 'Fbe 13 2009' 00
	assert_failure 2
	[ "$stderr" = "otp-gen: --now: unrecognised time: 'Fbe 13 2009': 'Fbe' not understood" ]
	run --separate-stderr otp-verify --totp -N 'now + 3 fortnights' 00 123456
	assert_failure 2
	[[ $stderr == *"'fortnights' not understood" ]]
	# date -d reads "1 min 30 sec ago" as 30 s ahead: refused, and why.
	run --separate-stderr otp-gen --totp -N '1 min 30 sec ago' 00
	assert_failure 2
	[[ $stderr == *"'ago' after more than one item is ambiguous"* ]]
	[ "$(TZ=UTC date -d '2009-02-13 23:31:30 UTC 1 min 30 sec ago' +%s)" = 1234567920 ]
	run otp-gen --totp -N 'now - 90 seconds' 00
	assert_success
}

@test "a steam:// URI gives Steam Guard codes, as --steam; otp-verify checks them" {
	local u="otpauth://steam/Steam:me?secret=$RFC_B32" c
	run -0 otp-gen -N @1234567890 "$u"
	assert_output "$(otp-gen --steam -b -N @1234567890 "$RFC_B32")"
	c=$output
	run -0 otp-verify -N @1234567890 "$u" "$c"
	assert_output 0
	run -0 otp-verify -N @1234567890 --steam -b "$RFC_B32" "$c"
	# A Steam URI takes no option that would make other codes.
	run -2 otp-gen -d 6 "$u"
	assert_output --partial "Steam URI"
	run -2 otp-verify --diagnose -N @1234567890 "$u" "$c"
	assert_output --partial "Steam"
	# A mixed file: each line its own kind of code.
	run -0 otp-gen -N @1234567890 --label <<-END
	$u
	otpauth://totp/Other:me?secret=$RFC_B32
	END
	assert_line --index 0 "Steam:me	$c"
	assert_line --index 1 "Other:me	$(otp-gen --totp -b -N @1234567890 "$RFC_B32")"
}

#!/usr/bin/env bats
# b32: every option, every exit status, coreutils cross-checks, streaming.

bats_require_minimum_version 1.5.0
load common

setup() {
	T=$BATS_TEST_TMPDIR
	ROOT=$BATS_TEST_DIRNAME/..
}

# The RFC 4648 §10 vectors: input, Base32, base32hex.
rfc_vectors() {
	printf '%s\n' '|||' 'f|MY======|CO======' 'fo|MZXQ====|CPNG====' \
	    'foo|MZXW6===|CPNMU===' 'foob|MZXW6YQ=|CPNMUOG=' \
	    'fooba|MZXW6YTB|CPNMUOJ1' 'foobar|MZXW6YTBOI======|CPNMUOJ1E8======'
}

@test "-h and --help print the usage on stdout and exit 0" {
	for o in -h --help; do
		run --separate-stderr b32 "$o"
		assert_success
		assert_line --index 0 \
		    'usage: b32 [-dinV] [-w cols] [--base32hex] [--hex] [--lines] [--strict] [file]'
		[ -z "$stderr" ]
	done
	for o in --decode --ignore-garbage --wrap --no-padding --hex --lines \
	    --base32hex --strict --help --version; do
		assert_output --partial -- "$o"
	done
}

@test "-V and --version print the version" {
	run b32 -V
	assert_success
	assert_output --regexp '^b32 \(otp-utils\) [0-9]+\.[0-9]+\.[0-9]+$'
	run b32 --version
	assert_success
	assert_output --regexp '^b32 \(otp-utils\) '
}

@test "RFC 4648 §10: encode and decode, padded" {
	while IFS='|' read -r in b32 hex; do
		run b32 < <(printf %s "$in")
		assert_success
		assert_output "$b32"
		run b32 -d < <(printf '%s\n' "$b32")
		assert_success
		assert_output "$in"
		run b32 -d --strict < <(printf '%s\n' "$b32")
		assert_success
		assert_output "$in"
	done < <(rfc_vectors)
}

@test "--base32hex: RFC 4648 §10 extended-hex vectors both ways" {
	while IFS='|' read -r in b32 hex; do
		run b32 --base32hex < <(printf %s "$in")
		assert_success
		assert_output "$hex"
		run b32 -d --base32hex < <(printf '%s\n' "$hex")
		assert_success
		assert_output "$in"
	done < <(rfc_vectors)
	# the standard alphabet's digits 2-7 are not base32hex, W-Z neither
	run -2 b32 -d --base32hex <<< 'CPNW===='
	assert_output "b32: invalid Base32 character 'W' at offset 3"
	run -2 b32 -d <<< 'CPN0===='
	assert_output "b32: invalid Base32 character '0' at offset 3"
}

@test "-n and --no-padding drop the '='" {
	run b32 -n < <(printf foobar)
	assert_success
	assert_output MZXW6YTBOI
	run b32 --no-padding < <(printf f)
	assert_output MY
	run b32 -n --base32hex < <(printf foobar)
	assert_output CPNMUOJ1E8
}

@test "empty input gives empty output" {
	run b32 < /dev/null
	assert_success
	assert_output ''
	b32 < /dev/null | cmp -s - /dev/null
	b32 -d < /dev/null | cmp -s - /dev/null
	b32 -d --hex < /dev/null | cmp -s - /dev/null
	b32 --hex < /dev/null | cmp -s - /dev/null
	printf '\n \n' | b32 -d | cmp -s - /dev/null
}

@test "-w: 76 columns by default, as coreutils base32" {
	head -c 1000 /dev/urandom > "$T/in"
	b32 "$T/in" > "$T/ours"
	base32 "$T/in" > "$T/theirs"
	cmp "$T/ours" "$T/theirs"
	[ "$(head -n 1 "$T/ours" | tr -d '\n' | wc -c)" -eq 76 ]
}

@test "-w COLS and --wrap=COLS wrap at COLS; an exact fit adds no blank line" {
	head -c 777 /dev/urandom > "$T/in"
	for w in 1 7 8 10 64 100 2000; do
		b32 -w "$w" "$T/in" > "$T/ours"
		base32 -w "$w" "$T/in" > "$T/theirs"
		cmp "$T/ours" "$T/theirs"
		b32 --wrap="$w" "$T/in" | cmp - "$T/ours"
	done
	# 10 bytes are 16 characters: two full lines of 8 and nothing else
	run b32 -w 8 < <(printf 0123456789)
	assert_output "$(printf 'GAYTEMZU\nGU3DOOBZ')"
	[ "$(printf 0123456789 | b32 -w 8 | wc -l)" -eq 2 ]
}

@test "-w 0: one line, ended by a newline (coreutils' -w0 has none)" {
	head -c 5000 /dev/urandom > "$T/in"
	b32 -w 0 "$T/in" > "$T/ours"
	{ base32 -w0 "$T/in"; echo; } > "$T/theirs"
	cmp "$T/ours" "$T/theirs"
	[ "$(wc -l < "$T/ours")" -eq 1 ]
}

@test "-w refuses what is not a column count" {
	for w in x -1 '' 1e3 ' 5' 1000000001 99999999999999999999; do
		run --separate-stderr -2 b32 -w "$w" < /dev/null
		[[ $stderr == "b32: --wrap: '$w': not a number of columns"* ]]
	done
	run -2 b32 -w
	assert_output --partial "b32: option '-w' needs an argument"
}

@test "-d decodes coreutils' wrapped output, and -w does not matter" {
	head -c 3000 /dev/urandom > "$T/in"
	base32 "$T/in" | b32 -d | cmp - "$T/in"
	base32 -w 13 "$T/in" | b32 --decode -w 5 | cmp - "$T/in"
}

@test "cross-check with coreutils base32 on random data of many lengths" {
	for n in $(seq 0 80) 255 256 1023 4097 65535 65536 65537 \
	    131071 200003; do
		head -c "$n" /dev/urandom > "$T/in"
		b32 -w 0 "$T/in" > "$T/ours"
		{ base32 -w0 "$T/in"; [ "$n" -eq 0 ] || echo; } > "$T/theirs"
		cmp "$T/ours" "$T/theirs" || { echo "encode $n"; return 1; }
		base32 "$T/in" | b32 -d | cmp - "$T/in" ||
		    { echo "decode $n"; return 1; }
		b32 "$T/in" | base32 -d | cmp - "$T/in" ||
		    { echo "coreutils decode $n"; return 1; }
	done
}

@test "round trips are exact: bytes with NULs, and hex" {
	head -c 100000 /dev/urandom > "$T/in"
	printf '\0\0\0\0\0\0\0' >> "$T/in"
	b32 "$T/in" | b32 -d | cmp - "$T/in"
	b32 -n -w 0 "$T/in" | b32 -d | cmp - "$T/in"
	b32 --base32hex "$T/in" | b32 -d --base32hex | cmp - "$T/in"
	b32 -n "$T/in" | b32 -d --strict -n --base32hex 2>/dev/null &&
	    return 1
	od -An -v -tx1 "$T/in" | tr -d ' \n' > "$T/hex"
	echo >> "$T/hex"
	b32 --hex "$T/hex" | b32 -d --hex | cmp - "$T/hex"
	for n in 1 2 3 4 5 6 7 8 9 10 20 32 64; do
		h=$(head -c "$n" /dev/urandom | od -An -v -tx1 | tr -d ' \n')
		run b32 -d --hex < <(b32 --hex <<< "$h")
		assert_output "$h"
	done
}

@test "lenient key conversions (b32.1)" {
	want=347c3e863fd765eab44aaf2ab3ac0e89
	for k in gr6d5br725s6vnckv4vlhlaore GR6D5BR725S6VNCKV4VLHLAORE \
	    GR6D5BR725S6VNCKV4VLHLAORE====== 'gr6d 5br7 25s6 vnck v4vl hlao re' \
	    gr6d-5br7-25s6-vnck-v4vl-hlao-re 'GR6D-5BR7 25s6vnck V4VL HLAO RE==  ==  =='; do
		run b32 -d --hex <<< "$k"
		assert_success
		assert_output "$want"
	done
	run b32 --hex <<< "$want"
	assert_output GR6D5BR725S6VNCKV4VLHLAORE======
	run b32 --hex -n <<< "${want^^}"
	assert_output GR6D5BR725S6VNCKV4VLHLAORE
	run b32 -d --hex <<< "$RFC_B32"
	assert_output "$RFC_HEX"
	# non-canonical final bits: fine leniently, not with --strict
	run b32 -d --hex <<< XBK55CIOSR2TO6VUZX7KB2NJX2
	assert_success
	assert_output b855de890e9475377ab4cdfea0e9a9be
	run -2 b32 -d --hex --strict -n <<< XBK55CIOSR2TO6VUZX7KB2NJX2
	assert_output "b32: non-zero trailing bits in Base32 at offset 25"
}

@test "cross-check key conversions with oathtool and pyotp" {
	k=gr6d5br725s6vnckv4vlhlaore
	hex=$(b32 -d --hex <<< "$k")
	[ "$(oathtool "$hex")" = 993210 ]
	[ "$(oathtool -b "$k")" = 993210 ]
	for n in 1 10 16 20 32 40 64 200; do
		h=$(head -c "$n" /dev/urandom | od -An -v -tx1 | tr -d ' \n')
		k=$(b32 --hex -n -w 0 <<< "$h")
		# oathtool 2.6.7 refuses Base32 keys of 50 bytes and more
		if [ "$n" -le 40 ]; then
			[ "$(oathtool -c 7 "$h")" = "$(oathtool -c 7 -b "$k")" ]
		fi
		run "$PY" -c 'import base64, sys
s = sys.argv[1]
print(base64.b32decode(s + "=" * (-len(s) % 8)).hex())' "$k"
		assert_output "$h"
	done
}

@test "--hex input: whitespace and the trailing newline are ignored" {
	run b32 --hex <<< '66 6F 6f
	626172'
	assert_success
	assert_output MZXW6YTBOI======
	run b32 --hex < <(printf '666f\r\n')
	assert_output MZXQ====
}

@test "--hex input: odd digits and bad characters are errors" {
	run -2 b32 --hex <<< 'abc'
	assert_output "b32: odd number of hex digits at end of input"
	run -2 b32 --hex <<< 'ab cg'
	assert_output "b32: invalid hex character 'g' at offset 4"
	run -2 b32 --hex <<< '0x00'
	assert_output "b32: invalid hex character 'x' at offset 1"
	run -2 b32 --hex <<< 'ab-cd'
	assert_output "b32: invalid hex character '-' at offset 2"
	run -2 b32 --hex < <(printf 'ab\377')
	assert_output "b32: invalid hex character 0xff at offset 2"
	# an odd digit that is also bad is reported as bad
	run -2 b32 --hex <<< 'abz'
	assert_output "b32: invalid hex character 'z' at offset 2"
}

@test "--hex input across 64 KiB blocks keeps digit pairs and offsets" {
	# a space at byte 65535 splits a digit pair across two reads
	{ head -c 65535 /dev/zero | tr '\0' 'a'; printf ' a'; printf 'bb\n'; } \
	    > "$T/hex"
	b32 --hex "$T/hex" | b32 -d --hex > "$T/out"
	[ "$(tr -d ' \n' < "$T/hex")" = "$(tr -d '\n' < "$T/out")" ]
	{ head -c 65535 /dev/zero | tr '\0' 'a'; printf ' ag\n'; } > "$T/bad"
	run -2 b32 --hex "$T/bad"
	assert_output "b32: invalid hex character 'g' at offset 65537"
	{ head -c 65535 /dev/zero | tr '\0' 'a'; printf ' x'; } > "$T/bad"
	run -2 b32 --hex "$T/bad"
	assert_output "b32: invalid hex character 'x' at offset 65536"
}

@test "an invalid character stops decoding with its offset, exit 2" {
	run --separate-stderr -2 b32 -d <<< 'MZXW6YTBOI====MZXW6YT!'
	[ "$stderr" = "b32: invalid Base32 padding at offset 10" ]
	run --separate-stderr -2 b32 -d <<< 'MZXW6YTBOI======MZXW6YT!'
	[ "$stderr" = "b32: invalid Base32 character '!' at offset 23" ]
	run --separate-stderr -2 b32 -d <<< 'MZXW6YTBOIMZXWY!OI======'
	[ "$stderr" = "b32: invalid Base32 character '!' at offset 15" ]
	[ -z "$output" ]
	run -2 b32 -d <<< 'ABCDEFGHIJKLMNOPQ!'
	assert_output "b32: invalid Base32 character '!' at offset 17"
	run -2 b32 -d < <(printf 'MZXW\3776===')
	assert_output "b32: invalid Base32 character 0xff at offset 4"
	run -2 b32 -d < <(printf 'MZXW6=\t==\0')
	assert_output "b32: invalid Base32 character 0x00 at offset 9"
	run -2 b32 -d <<< 'MZXW1==='
	assert_output "b32: invalid Base32 character '1' at offset 4"
}

@test "impossible lengths and bad padding are errors, exit 2" {
	run -2 b32 -d <<< 'MZX'
	assert_output "b32: impossible Base32 length at offset 4"
	run -2 b32 -d <<< 'MZXW6YTBO'
	assert_output "b32: impossible Base32 length at offset 10"
	run -2 b32 -d <<< 'MZX====='
	assert_output "b32: impossible Base32 length at offset 3"
	run -2 b32 -d <<< 'MZXQ==='
	assert_output "b32: invalid Base32 padding at offset 8"
	run -2 b32 -d <<< 'MZXQ====='
	assert_output "b32: invalid Base32 padding at offset 8"
	run -2 b32 -d <<< 'MZ=XQ'
	assert_output "b32: invalid Base32 padding at offset 2"
	run -2 b32 -d <<< '========'
	assert_output "b32: invalid Base32 padding at offset 0"
}

@test "a failing key leaves no partial output" {
	for k in MZX 'MZXW6YTB!' 'GR6D5BR725S6VNCKV4VLHLAORE=====' MZXQ===; do
		run --separate-stderr -2 b32 -d --hex <<< "$k"
		[ -z "$output" ]
		run --separate-stderr -2 b32 -d <<< "$k"
		[ -z "$output" ]
	done
	run --separate-stderr -2 b32 --hex <<< 347c3e863fd765eab44aaf2ab3ac0e8
	[ -z "$output" ]
}

@test "errors far into the input give the absolute offset" {
	{ head -c 100000 /dev/zero | tr '\0' A; printf '!'; } > "$T/in"
	run -2 b32 -d "$T/in"
	assert_output "b32: invalid Base32 character '!' at offset 100000"
	{ head -c 131072 /dev/zero | tr '\0' A; printf 'AAAA==A='; } > "$T/in"
	run -2 b32 -d "$T/in"
	assert_output "b32: invalid Base32 padding at offset 131076"
}

@test "--strict: canonical input only" {
	run b32 -d --strict <<< MZXW6YTBOI======
	assert_success
	assert_output foobar
	run -2 b32 -d --strict <<< mzxw6ytboi======
	assert_output "b32: invalid Base32 character 'm' at offset 0"
	run -2 b32 -d --strict <<< 'MZXW 6YTB'
	assert_output "b32: invalid Base32 character 0x20 at offset 4"
	run -2 b32 -d --strict <<< 'MZXW-6YTB'
	assert_output "b32: invalid Base32 character '-' at offset 4"
	run -2 b32 -d --strict <<< MZXW6YTBOI
	assert_output "b32: invalid Base32 padding at offset 10"
	run -2 b32 -d --strict <<< MZXW6YR=
	assert_output "b32: non-zero trailing bits in Base32 at offset 6"
	run -2 b32 -d --strict < <(printf 'MZXW6===\n\n')
	assert_output "b32: invalid Base32 character 0x0a at offset 8"
	run -2 b32 -d --strict < <(printf 'MZXW6===\r\n')
	assert_output "b32: invalid Base32 character 0x0d at offset 8"
	# one final newline is forgiven, without it the same
	run b32 -d --strict < <(printf MZXW6===)
	assert_output foo
	# lenient takes all of these
	run b32 -d <<< 'mzxw 6ytb-oi'
	assert_output foobar
}

@test "--strict -n: canonical unpadded input only" {
	run b32 -d --strict -n <<< MZXW6YTBOI
	assert_success
	assert_output foobar
	run -2 b32 -d --strict --no-padding <<< MZXW6YTBOI======
	assert_output "b32: invalid Base32 padding at offset 10"
	run -2 b32 -d --strict -n <<< MZXW6YR
	assert_output "b32: non-zero trailing bits in Base32 at offset 6"
}

@test "--strict sees a newline held at a 64 KiB block boundary" {
	# 65535 characters, a newline at offset 65535, then more data
	{ head -c 65535 /dev/zero | tr '\0' A; printf '\nAAAAAAAA'; } > "$T/in"
	run -2 b32 -d --strict "$T/in"
	assert_output "b32: invalid Base32 character 0x0a at offset 65535"
	{ head -c 65528 /dev/zero | tr '\0' A; printf 'AAAAAAA\n'; } > "$T/in"
	run -2 b32 -d --strict "$T/in"
	assert_output "b32: invalid Base32 padding at offset 65535"
	{ head -c 65536 /dev/zero | tr '\0' A; printf '\n'; } > "$T/in"
	b32 -d --strict "$T/in" | cmp - <(head -c 40960 /dev/zero)
}

# --- texts one after another, -i, --lines ---------------------------

@test "concatenated padded texts decode as coreutils base32 -d does" {
	local s
	# each input that coreutils takes, with or without newlines between
	for s in 'MZXQ====MZXQ====' 'MZXQ====\nMZXQ====\n' \
	    'MZXQ====\n\nMZXQ====' 'MZXQ==\n==MZXQ====' 'MZXQ====MZXW6===' \
	    'MZXQ====MZXW6YQ=' 'MZXW6YTB\nMZXQ====\nMZXW6YTB\n' \
	    'MY======\nMZXQ====\nMZXW6===\nMZXW6YQ=\nMZXW6YTB\n'; do
		printf "$s" | base32 -d > "$T/want" || fail "coreutils: $s"
		printf "$s" | b32 -d > "$T/got" || fail "b32: $s"
		cmp "$T/want" "$T/got" || fail "differs: $s"
	done
	# cat a.b32 b.b32 | b32 -d, the files as coreutils writes them
	printf foo | base32 > "$T/a.b32"
	printf 'bar\0baz' | base32 > "$T/b.b32"
	cat "$T/a.b32" "$T/b.b32" | b32 -d | cmp - <(printf 'foobar\0baz')
	cat "$T/a.b32" "$T/b.b32" | b32 -d --hex > "$T/hex"
	[ "$(cat "$T/hex")" = 666f6f6261720062617a ]
	# lenient: the last text may leave out its padding
	run b32 -d <<< 'MZXW6===MZXQ'
	assert_output foofo
	# a text that ends in a bad group, or '=' that do not close one
	run -2 b32 -d <<< 'MZXQ====MZX'
	assert_output "b32: impossible Base32 length at offset 12"
	run -2 b32 -d <<< 'MZXQ=====MZXQ'
	assert_output "b32: invalid Base32 padding at offset 8"
	run -2 b32 -d <<< 'MZXQ===MZXQ===='
	assert_output "b32: invalid Base32 padding at offset 4"
	run -2 b32 -d <<< 'MZXQ====MZ!Q===='
	assert_output "b32: invalid Base32 character '!' at offset 10"
	# --strict: one canonical text only
	run -2 b32 -d --strict <<< 'MZXQ====MZXQ===='
	assert_output "b32: invalid Base32 padding at offset 4"
}

@test "concatenated texts across 64 KiB blocks, '=' run split by one" {
	# 40956 bytes are 65536 characters ending in 6 '='; 3 newlines in
	# front put those '=' at 65533..65538, across the block boundary
	head -c 40956 /dev/urandom > "$T/a"
	head -c 1001 /dev/urandom > "$T/b"
	{ printf '\n\n\n'; base32 -w 0 "$T/a"; base32 "$T/b"; } > "$T/in"
	cat "$T/a" "$T/b" > "$T/want"
	b32 -d "$T/in" | cmp - "$T/want"
	base32 -d "$T/in" | cmp - "$T/want"
	# the next text starts right at the boundary
	head -c 40956 /dev/urandom > "$T/a"
	{ base32 -w 0 "$T/a"; base32 -w 0 "$T/b"; } > "$T/in"
	[ "$(head -c 65536 "$T/in" | tail -c 1)" = '=' ]
	cat "$T/a" "$T/b" | cmp - <(b32 -d "$T/in")
}

@test "-i/--ignore-garbage drops what is not Base32, as coreutils -di" {
	local s
	for s in 'MZ!XQ====' 'MZXQ==!==' 'MZXQ====!MZXQ====' '!!!' \
	    'MZXQ==== MZXQ====' 'MZ\377XW\0006===' 'MZXW6YTB\r\nOI======\r\n'; do
		printf "$s" | base32 -di > "$T/want" || fail "coreutils: $s"
		printf "$s" | b32 -di > "$T/got" || fail "b32: $s"
		cmp "$T/want" "$T/got" || fail "differs: $s"
	done
	run b32 --decode --ignore-garbage --hex <<< 'gr6d.5br7.25s6.vnck,v4vl;hlao_re'
	assert_output 347c3e863fd765eab44aaf2ab3ac0e89
	# without -i the same input is an error
	run -2 b32 -d <<< 'MZ!XQ===='
	assert_output "b32: invalid Base32 character '!' at offset 2"
	# offsets stay those of the input, garbage counted
	run -2 b32 -di <<< 'MZ!!XQ==!=M'
	assert_output "b32: invalid Base32 padding at offset 6"
	# -i is for decoding, and lenient decoding only
	run -2 b32 -i <<< foo
	assert_line --index 0 "b32: --ignore-garbage applies to decoding (-d)"
	run -2 b32 -di --strict <<< MZXQ====
	assert_line --index 0 \
	    "b32: --ignore-garbage and --strict exclude each other"
}

@test "--lines converts each line on its own, both directions" {
	printf 'MZXQ====\nGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ\n\nmzxw 6ytb-oi\nMY' \
	    > "$T/keys"
	run b32 -d --hex --lines "$T/keys"
	assert_success
	assert_output "$(printf '666f\n%s\n\n666f6f626172\n66' "$RFC_HEX")"
	run b32 -d --lines "$T/keys"
	assert_output "$(printf 'fo\n12345678901234567890\n\nfoobar\nf')"
	# a line that is padded texts one after another
	run b32 -d --lines <<< 'MZXQ====MZXQ===='
	assert_output fofo
	# the other way: each line of hex, or of bytes, to one line
	run b32 --hex --lines < <(printf '666f\n%s\n\n66' "$RFC_HEX")
	assert_output "$(printf 'MZXQ====\n%s\n\nMY======' "$RFC_B32")"
	run b32 --hex --lines -n < <(printf '666f\n%s\n' "$RFC_HEX")
	assert_output "$(printf 'MZXQ\n%s' "$RFC_B32")"
	run b32 --lines < <(printf 'foo\nfoobar\n\nf')
	assert_output "$(printf 'MZXW6===\nMZXW6YTBOI======\n\nMY======')"
	# no wrapping: long lines stay whole
	head -c 1000 /dev/zero | tr '\0' a > "$T/long"
	run b32 --lines -w 0 "$T/long"
	assert_output "$(base32 -w 0 "$T/long")"
	run -2 b32 --lines -w 76 "$T/long"
	assert_line --index 0 \
	    "b32: --lines writes each line whole; --wrap does not apply"
	# --strict applies to each line, which needs no newline forgiven
	run b32 -d --strict --lines < <(printf 'MZXQ====\nMY======\n')
	assert_output "$(printf 'fo\nf')"
	run -2 b32 -d --strict --lines < <(printf 'MZXQ====\nMY\n')
	assert_output "b32: line 2: invalid Base32 padding at offset 2"
}

@test "--lines: an error names the line and the offset in it" {
	run --separate-stderr -2 b32 -d --hex --lines \
	    < <(printf 'MZXQ====\nMZXW6===\n\nMZXW!===\n')
	[ "$stderr" = "b32: line 4: invalid Base32 character '!' at offset 4" ]
	[ -z "$output" ]
	run -2 b32 -d --lines < <(printf 'MZXQ====\nMZX\n')
	assert_output "b32: line 2: impossible Base32 length at offset 3"
	run -2 b32 -d --lines < <(printf 'MZXQ====\nMZXQ===')
	assert_output "b32: line 2: invalid Base32 padding at offset 7"
	run -2 b32 --hex --lines < <(printf '66\n6f6\n')
	assert_output "b32: line 2: odd number of hex digits at end of line"
	run -2 b32 --hex --lines < <(printf '66\n\n6x\n')
	assert_output "b32: line 3: invalid hex character 'x' at offset 1"
	run -2 b32 -di --lines < <(printf 'MZXQ====\n!M!\n')
	assert_output "b32: line 2: impossible Base32 length at offset 3"
}

@test "--lines agrees with Python line by line across 64 KiB blocks" {
	# 30000 keys of 1 to 40 bytes, about 1 MB of Base32
	"$PY" - "$T" <<-'EOF'
	import base64, os, sys
	d = sys.argv[1]
	keys = [os.urandom(1 + i % 40) for i in range(30000)]
	with open(d + "/b32", "w") as f:
	    for k in keys:
	        f.write(base64.b32encode(k).decode() + "\n")
	with open(d + "/hex", "w") as f:
	    for k in keys:
	        f.write(k.hex() + "\n")
	with open(d + "/raw", "wb") as f:
	    for k in keys:
	        f.write(k + b"\n")
	EOF
	b32 -d --hex --lines "$T/b32" | cmp - "$T/hex"
	b32 --hex --lines "$T/hex" | cmp - "$T/b32"
	b32 -d --lines "$T/b32" | cmp - "$T/raw"
}

# ptyeof TEXT CMD...: on CMD's own terminal, type TEXT, Enter and one
# Ctrl-D on the empty line (then one more Enter, which CMD must not wait
# for), through tests/pty-answer.py; print the screen without CRs.
ptyeof() {
	local text=$1 rc=0
	shift
	output=$("$BATS_TEST_DIRNAME/pty-answer.py" "ready>" "$text"$'\n\x04' \
	    sh -c 'printf "ready>"; exec "$@"' - "$@") || rc=$?
	printf '%s' "${output//$'\r'/}"
	return "$rc"
}

@test "at a terminal one Ctrl-D on an empty line ends the input" {
	run ptyeof MZXW6=== b32 -d
	assert_success
	assert_output "$(printf 'ready>MZXW6===\n\nfoo')"
	run ptyeof foobar b32
	assert_success
	assert_output "$(printf 'ready>foobar\n\nMZXW6YTBOIFA====')"
	run ptyeof 666f b32 --hex --lines
	assert_success
	assert_output "$(printf 'ready>666f\n\nMZXQ====')"
}


@test "FILE operand, '-' for stdin" {
	printf foobar > "$T/f"
	run b32 "$T/f"
	assert_output MZXW6YTBOI======
	run b32 - < "$T/f"
	assert_output MZXW6YTBOI======
	b32 "$T/f" > "$T/e"
	run b32 -d "$T/e"
	assert_output foobar
}

@test "an unreadable or missing file, a directory: exit 2" {
	run -2 b32 "$T/nonexistent"
	assert_output "b32: $T/nonexistent: No such file or directory"
	run -2 b32 -d "$T"
	assert_output "b32: $T: Is a directory"
	if [ "$(id -u)" -ne 0 ]; then
		: > "$T/secret"
		chmod 000 "$T/secret"
		run -2 b32 "$T/secret"
		assert_output --partial "Permission denied"
	fi
}

@test "usage errors: extra operands, unknown options, exit 2" {
	run -2 b32 a b
	assert_line --index 0 "b32: extra operand 'b'"
	assert_line --index 1 "Try 'b32 --help' for more information."
	run -2 b32 --bogus
	assert_line --index 0 "b32: unknown option '--bogus'"
	run -2 b32 -q
	assert_line --index 0 "b32: unknown option '-q'"
}

@test "a write error (>/dev/full) is exit 2" {
	run -2 bash -c 'printf foo | b32 > /dev/full'
	assert_output --partial "b32: write error"
	run -2 bash -c 'echo MZXW6=== | b32 -d > /dev/full'
	assert_output --partial "b32: write error"
	run -2 bash -c 'echo MZXW6=== | b32 -d --hex > /dev/full'
	run -2 bash -c 'head -c 1000000 /dev/zero | b32 > /dev/full'
	run -2 bash -c 'b32 --help > /dev/full'
	run -2 bash -c 'b32 --version > /dev/full'
}

@test "10 MB through a pipe in constant memory, both ways" {
	head -c 10000000 /dev/urandom > "$T/in"
	sum=$(sha256sum < "$T/in")
	[ "$(cat "$T/in" | b32 | b32 -d | sha256sum)" = "$sum" ]
	[ "$(cat "$T/in" | b32 -w 0 -n --base32hex | b32 -d --base32hex |
	    sha256sum)" = "$sum" ]
	[ "$(cat "$T/in" | b32 | base32 -d | sha256sum)" = "$sum" ]
	# peak RSS on 10 MB is that on 100 kB, give or take a page or two
	# (relative, so that it holds under ASan too)
	head -c 100000 "$T/in" > "$T/small"
	rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -n 1; }
	small=$(rss b32 "$T/small")
	big=$(rss b32 "$T/in")
	echo "encode: $small KiB on 100 kB, $big KiB on 10 MB"
	[ "$big" -lt $((small + 1024)) ]
	b32 "$T/small" > "$T/small.b32"
	b32 "$T/in" > "$T/in.b32"
	small=$(rss b32 -d "$T/small.b32")
	big=$(rss b32 -d "$T/in.b32")
	echo "decode: $small KiB on 160 kB, $big KiB on 16 MB"
	[ "$big" -lt $((small + 1024)) ]
	# --lines: one 16 MB line, and 16 MB of short lines
	b32 -w 0 "$T/in" > "$T/in.line"
	big=$(rss b32 -d --lines "$T/in.line")
	echo "decode --lines: $big KiB on one 16 MB line"
	[ "$big" -lt $((small + 1024)) ]
	[ "$(b32 -d --lines "$T/in.line" | head -c 10000000 | sha256sum)" = \
	    "$sum" ]
	big=$(rss b32 -d --lines "$T/in.b32")
	echo "decode --lines: $big KiB on 16 MB of 76-column lines"
	[ "$big" -lt $((small + 1024)) ]
	big=$(rss b32 --lines "$T/in.b32")
	echo "encode --lines: $big KiB on 16 MB of 76-column lines"
	[ "$big" -lt $((small + 1024)) ]
}

@test "man page: examples run as documented, mandoc -Tlint clean" {
	run mandoc -Tlint -Wwarning "$ROOT/man/b32.1"
	assert_success
	assert_output ''
	# the EXAMPLES section, as the page shows it
	run b32 -d --hex <<< 'gr6d 5br7 25s6 vnck v4vl hlao re'
	assert_output 347c3e863fd765eab44aaf2ab3ac0e89
	run b32 --hex -n <<< 3132333435363738393031323334353637383930
	assert_output GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ
	run b32 -w 0 < <(printf foobar)
	assert_output MZXW6YTBOI======
	run b32 -d <<< MZXW6YTBOI
	assert_output foobar
	run -2 b32 -d <<< 'MZXW6YT!'
	assert_output "b32: invalid Base32 character '!' at offset 7"
	grep -q 'b32 -d --hex <<< .gr6d 5br7 25s6 vnck v4vl hlao re' \
	    "$ROOT/man/b32.1"
	grep -q 'b32 --hex -n <<< 3132333435363738393031323334353637383930' \
	    "$ROOT/man/b32.1"
	# --lines, texts one after another, -i
	cd "$T"
	printf 'MZXW6YTB\nGEZDGNBV\n' > keys.b32
	run b32 -d --hex --lines keys.b32
	assert_output "$(printf '666f6f6261\n3132333435')"
	run bash -c 'b32 -d --hex --lines keys.b32 | b32 --hex --lines'
	assert_output "$(printf 'MZXW6YTB\nGEZDGNBV')"
	printf fo | b32 > a.b32; printf o | b32 > b.b32
	run bash -c 'cat a.b32 b.b32 | b32 -d'
	assert_output foo
	run bash -c "echo 'MZ*XW*6===' | b32 -di"
	assert_output foo
	local l
	for l in "printf 'MZXW6YTB\\\\enGEZDGNBV\\\\en' > keys.b32" \
	    'b32 -d --hex --lines keys.b32 | b32 --hex --lines' \
	    'printf fo | b32 > a.b32; printf o | b32 > b.b32' \
	    'cat a.b32 b.b32 | b32 -d' "echo 'MZ\\*XW\\*6===' | b32 -di"; do
		grep -q "^\\$ $l\$" "$ROOT/man/b32.1" || fail "not in b32.1: $l"
	done
}


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
		    'usage: b32 [-dnV] [-w cols] [--base32hex] [--hex] [--strict] [file]'
		[ -z "$stderr" ]
	done
	for o in --decode --wrap --no-padding --hex --base32hex --strict \
	    --help --version; do
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
	run --separate-stderr -2 b32 -d <<< 'MZXW6YTBOI======MZXW6YT!'
	[ "$stderr" = "b32: invalid Base32 padding at offset 10" ]
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

# ptyeof TEXT CMD...: type TEXT and Enter on CMD's terminal, then one
# Ctrl-D on the empty line; print what the terminal showed.  Exit 3 when
# CMD is still waiting 5 seconds later.
ptyeof() {
	"$PY" - "$@" <<-'EOF'
	import os, pty, select, sys, time
	pid, fd = pty.fork()
	if pid == 0:
	    os.execvp(sys.argv[2], sys.argv[2:])
	os.write(fd, sys.argv[1].encode() + b"\n")
	time.sleep(0.3)
	os.write(fd, b"\x04")
	shown, deadline = b"", time.monotonic() + 5
	while time.monotonic() < deadline:
	    if select.select([fd], [], [], 0.1)[0]:
	        try:
	            data = os.read(fd, 4096)
	        except OSError:
	            data = b""
	        if not data:
	            break
	        shown += data
	while time.monotonic() < deadline:
	    done, status = os.waitpid(pid, os.WNOHANG)
	    if done:
	        break
	    time.sleep(0.05)
	else:
	    os.kill(pid, 9)
	    status = 3 << 8
	sys.stdout.write(shown.decode(errors="replace").replace("\r", ""))
	sys.exit(os.waitstatus_to_exitcode(status))
	EOF
}

@test "at a terminal one Ctrl-D on an empty line ends the input" {
	run ptyeof MZXW6=== b32 -d
	assert_success
	assert_output "$(printf 'MZXW6===\nfoo')"
	run ptyeof foobar b32
	assert_success
	assert_output "$(printf 'foobar\nMZXW6YTBOIFA====')"
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
}

# That the completions offer every long option: hygiene.bats, every tool.
@test "the bash completion is shellcheck clean and completes" {
	shellcheck -s bash "$ROOT/completions/bash/b32"
	# the bash completion really completes the options
	run bash -c "source '$ROOT/completions/bash/b32'
		COMP_WORDS=(b32 --no); COMP_CWORD=1; _b32
		printf '%s\n' \"\${COMPREPLY[@]}\""
	assert_output --partial -- --no-padding
}

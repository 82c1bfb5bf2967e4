#!/usr/bin/env bats
# bad-input.bats - the bad-input matrix: every tool, every input channel
# (operand, stdin, @FILE, URI, state file, b32's FILE), fed malformed,
# oversized, truncated, binary and hostile input.  Every case must end
# within 10 seconds with exit 2, exactly one line on stderr (a second
# "Try ... --help" line only for usage errors), nothing on stdout, and no
# trace of the secret anywhere.
#
# The cases are a table: one line each, fields separated by '|':
#
#	TOOL | ARGS | STDIN | KIND
#
# ARGS is shell words, expanded with the fixture variables below ($F the
# fixture directory, $S_HEX/$S_B32 the secret, $URI a good URI).  STDIN
# is a file to redirect from ("-" for /dev/null).  KIND is "err" (one
# line: a bad value or bad input) or "usage" (a usage error: the line and
# "Try ... --help"; an unknown option, a missing argument, options that
# conflict, wrong operands).
# Adding a tool or an input is one line.

bats_require_minimum_version 1.5.0
load common

# The secret that must never be echoed: hex, and the same bytes in Base32.
S_HEX=5ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7
S_B32=L3D6OXWH45PMPZ26Y7TV5R7HL3D6OXWH
URI="otpauth://totp/Ex:alice?secret=$S_B32&issuer=Ex"

setup_file() {
	F=$BATS_FILE_TMPDIR/fx
	mkdir -p "$F/dir"
	export F S_HEX S_B32 URI
	# Oversized: a 1 MB line, a 10 MB file, each with the secret first.
	{ printf '%s' "$S_HEX"; head -c 1048576 /dev/zero | tr '\0' 'a'; \
	    echo; } > "$F/line1m"
	{ printf '%s' "$S_HEX"; head -c 10485760 /dev/zero | tr '\0' 'a'; \
	    } > "$F/file10m"
	{ head -c 10485760 /dev/zero | tr '\0' 'A'; printf '!\n'; } > "$F/b32-10m"
	{ printf 'otpauth://totp/A?secret=%s' "$S_B32"; head -c 1048576 \
	    /dev/zero | tr '\0' 'A'; echo; } > "$F/uri1m"
	# An argument can hold 128 KiB at most (MAX_ARG_STRLEN): operands
	# get 100 KB.
	head -c 102400 "$F/line1m" > "$F/line100k"
	head -c 102400 "$F/uri1m" > "$F/uri100k"
	# Malformed, truncated and binary key text.
	printf '%s!\n' "$S_HEX" > "$F/badchar"
	printf '%s\n' "${S_HEX%?}" > "$F/odd"
	printf '%s\0ff\n' "$S_HEX" > "$F/nul"
	printf '%s\0ff' "$S_HEX" > "$F/nul-noeol"
	printf '%s\377\376\n' "$S_HEX" > "$F/utf8"
	printf '\n' > "$F/blank"
	: > "$F/empty"
	printf '%s\n' "${URI%%&*}%" > "$F/uri-trunc"
	printf 'otpauth://totp/%%FF%%FE?secret=%s\n' "$S_B32" > "$F/uri-utf8"
	printf 'otpauth://totp/A\001B?secret=%s\n' "$S_B32" > "$F/uri-ctrl"
	printf 'otpauth://totp/A?secret=%s&secret=%s\n' "$S_B32" "$S_B32" \
	    > "$F/uri-dup"
	printf 'otpauth-migration://offline?data=%s\n' "$S_B32%%%%" \
	    > "$F/mig-bad"
	printf '%s\n' "$URI" > "$F/uri-good"
	ln -s "$F/nonexistent" "$F/dangling"
	ln -s "$F/dir" "$F/dirlink"
	# State files: malformed ones, and safe-looking hostile ones.
	printf '%s!\n" TOTP_AUTH\n' "$S_B32" > "$F/st-badsecret"
	printf '%s\n" WINDOW_SIZE 1000\n" TOTP_AUTH\n' "$S_B32" > "$F/st-badopt"
	printf '%s\n" TOTP_AUTH\n\0\n' "$S_B32" > "$F/st-nul"
	{ printf '%s\n" TOTP_AUTH\n' "$S_B32"; head -c 70000 /dev/zero | \
	    tr '\0' '\n'; } > "$F/st-big"
	: > "$F/st-empty"
	printf '%s\n" TOTP_AUTH\n' "$S_B32" > "$F/st-good"
	cp "$F/st-good" "$F/st-perm"
	chmod 400 "$F"/st-*
	chmod 644 "$F/st-perm"
	ln -s "$F/st-good" "$F/st-link"
	mkfifo "$F/fifo"
	# Unreadable: a good key file in a directory only its owner may
	# enter; root runs the tools as nobody, a plain user closes the
	# directory to itself (see the test below).
	mkdir -p "$F/locked"
	printf '%s\n' "$S_HEX" > "$F/locked/key"
	chmod 700 "$F/locked"
	chmod 755 "$BATS_FILE_TMPDIR" "$F"
}

teardown() {
	others_bin_remove
	[ ! -d "$F/locked" ] || chmod 700 "$F/locked"
}

# run_case TOOL ARGS STDIN KIND: run one case and check what it must hold.
run_case() {
	local tool=$1 args=$2 in=$3 kind=$4 out err rc n
	local -a argv
	out=$BATS_TEST_TMPDIR/out err=$BATS_TEST_TMPDIR/err
	[ "$in" = - ] && in=/dev/null
	eval "argv=($args)"
	in=$(eval "printf '%s' \"$in\"")
	rc=0
	timeout 10 "$tool" "${argv[@]}" < "$in" > "$out" 2> "$err" || rc=$?
	check_case "$tool $args < $in" "$kind" "$rc" "$out" "$err"
}

# check_case WHAT KIND RC OUT ERR
check_case() {
	local what=$1 kind=$2 rc=$3 out=$4 err=$5 n
	n=$(wc -l < "$err")
	if [ "$rc" -eq 124 ]; then
		echo "HANG: $what"; return 1
	fi
	if [ "$rc" -ne 2 ]; then
		echo "exit $rc, want 2: $what"; cut -c1-200 "$err"; return 1
	fi
	if [ -s "$out" ] && [ "$kind" != stream ]; then
		echo "stdout not empty: $what"; head -c 300 "$out"; return 1
	fi
	if [ "$kind" = summary ]; then
		if [ "$n" -ne 2 ] || ! sed -n 2p "$err" | grep -q "no export"
		then
			echo "want the line and a summary: $what"; cat "$err"
			return 1
		fi
	elif [ "$kind" = usage ]; then
		if [ "$n" -ne 2 ] || ! sed -n 2p "$err" | grep -q "^Try '"; then
			echo "want a usage error and Try: $what"; cat "$err"
			return 1
		fi
	elif [ "$n" -ne 1 ]; then
		echo "want one stderr line, got $n: $what"; head -5 "$err"
		return 1
	fi
	if ! head -1 "$err" | grep -q "^${what%% *}: ."; then
		echo "message not 'PROG: ...': $what"; cat "$err"; return 1
	fi
	if grep -qiF -e "$S_HEX" -e "$S_B32" -e "${S_HEX:0:12}" \
	    -e "${S_B32:0:12}" "$out" "$err"; then
		echo "secret in the output: $what"; cut -c1-200 "$err"
		return 1
	fi
}

# run_table: every case on stdin; report all failures, then fail.
run_table() {
	local tool args in kind fails=0 count=0
	while IFS='|' read -r tool args in kind; do
		tool=$(echo $tool)
		[ -z "$tool" ] || [ "${tool:0:1}" = '#' ] && continue
		count=$((count + 1))
		run_case "$tool" "$args" "$(echo $in)" "$(echo $kind)" ||
		    fails=$((fails + 1))
	done
	echo "$count cases, $fails failed"
	[ "$count" -gt 0 ] && [ "$fails" -eq 0 ]
}

@test "otp-gen: operand, -, @FILE, URI and stdin lines" {
	run_table <<'EOF'
otp-gen | "$S_HEX!"                    | -                  | err
otp-gen | "${S_HEX%?}"                 | -                  | err
otp-gen | -b "$S_B32!"                 | -                  | err
otp-gen | -b "${S_B32:0:1}"            | -                  | err
otp-gen | $'\xff\xfe'"$S_HEX"         | -                  | err
otp-gen | ""                           | -                  | err
otp-gen | "$(cat $F/line100k)"           | -                  | err
otp-gen | -                            | $F/badchar         | err
otp-gen | -                            | $F/nul             | err
otp-gen | -                            | $F/utf8            | err
otp-gen | -                            | $F/line1m          | err
otp-gen | -                            | $F/empty           | err
otp-gen | -                            | /dev/zero          | err
otp-gen |                              | $F/nul             | err
otp-gen |                              | $F/nul-noeol       | err
otp-gen |                              | $F/line1m          | err
otp-gen |                              | $F/file10m         | err
otp-gen |                              | $F/empty           | err
otp-gen |                              | $F/utf8            | err
otp-gen | @$F/badchar                  | -                  | err
otp-gen | @$F/odd                      | -                  | err
otp-gen | @$F/nul                      | -                  | err
otp-gen | @$F/utf8                     | -                  | err
otp-gen | @$F/line1m                   | -                  | err
otp-gen | @$F/file10m                  | -                  | err
otp-gen | @$F/empty                    | -                  | err
otp-gen | @$F/blank                    | -                  | err
otp-gen | @$F/nonexistent              | -                  | err
otp-gen | @$F/dir                      | -                  | err
otp-gen | @$F/dirlink                  | -                  | err
otp-gen | @$F/dangling                 | -                  | err
otp-gen | @$F/../fx/dir/../nonexistent | -                  | err
otp-gen | @/dev/zero                   | -                  | err
otp-gen | @/dev/null                   | -                  | err
otp-gen | @                            | -                  | err
otp-gen | "$(cat $F/uri-trunc)"        | -                  | err
otp-gen | "$(cat $F/uri-utf8)"         | -                  | err
otp-gen | "$(cat $F/uri-ctrl)"         | -                  | err
otp-gen | "$(cat $F/uri-dup)"          | -                  | err
otp-gen | "otpauth://totp/A?secret=$S_B32&period=0" | -       | err
otp-gen | "otpauth://totp/A?secret=$S_B32&digits=99" | -      | err
otp-gen | "otpauth://totp/A?secret=$S_B32&algorithm=MD5" | -  | err
otp-gen | "otpauth://spam/A?secret=$S_B32" | -              | err
otp-gen | "otpauth://totp/A?issuer=B"  | -                  | err
otp-gen | "$(cat $F/uri100k)"            | -                  | err
otp-gen | @$F/uri-trunc                | -                  | err
otp-gen | "$(cat $F/mig-bad)"          | -                  | err
otp-gen | -c -1 "$S_HEX"               | -                  | err
otp-gen | -c 18446744073709551616 "$S_HEX" | -              | err
otp-gen | -d 11 "$S_HEX"               | -                  | err
otp-gen | --totp -s 0 "$S_HEX"         | -                  | err
otp-gen | --totp -N @1 -S @2 "$S_HEX"  | -                  | err
otp-gen | --totp -N tomorrowish "$S_HEX" | -                | err
otp-gen | --totp=MD5 "$S_HEX"          | -                  | err
otp-gen | --bogus "$S_HEX"             | -                  | usage
otp-gen | --key="$S_HEX"              | -                  | usage
otp-gen | "$S_HEX" -c                 | -                  | usage
EOF
}

@test "otp-verify: key and OTP through every channel" {
	run_table <<'EOF'
otp-verify | "$S_HEX!" 123456             | -                 | err
otp-verify | -b "$S_B32=" 123456          | -                 | err
otp-verify | @$F/nul 123456               | -                 | err
otp-verify | @$F/utf8 123456              | -                 | err
otp-verify | @$F/line1m 123456            | -                 | err
otp-verify | @$F/file10m 123456           | -                 | err
otp-verify | @$F/dir 123456               | -                 | err
otp-verify | @$F/dangling 123456          | -                 | err
otp-verify | @/dev/zero 123456            | -                 | err
otp-verify | - 123456                     | $F/nul            | err
otp-verify | - 123456                     | $F/line1m         | err
otp-verify | - 123456                     | /dev/zero         | err
otp-verify | "$(cat $F/uri-trunc)" 123456 | -                 | err
otp-verify | "$(cat $F/uri-utf8)" 123456  | -                 | err
otp-verify | "$(cat $F/uri100k)" 123456     | -                 | err
otp-verify | "$S_HEX" 12345a              | -                 | err
otp-verify | --bogus "$S_HEX" 123456     | -                 | usage
otp-verify | --key="$S_HEX" 123456      | -                 | usage
otp-verify | "$S_HEX" 12345               | -                 | err
otp-verify | "$S_HEX" 12345678901         | -                 | err
otp-verify | "$S_HEX" ""                  | -                 | err
otp-verify | "$S_HEX"                     | $F/empty          | err
otp-verify | "$S_HEX"                     | $F/nul            | err
otp-verify | "$S_HEX"                     | $F/line1m         | err
otp-verify | "$S_HEX"                     | /dev/zero         | err
otp-verify | -w 100000001 "$S_HEX" 123456 | -                 | err
otp-verify | --state $F/st-badsecret 123456 | -               | err
otp-verify | --state $F/st-badopt 123456  | -                 | err
otp-verify | --state $F/st-nul 123456     | -                 | err
otp-verify | --state $F/st-big 123456     | -                 | err
otp-verify | --state $F/st-empty 123456   | -                 | err
otp-verify | --state $F/st-perm 123456    | -                 | err
otp-verify | --state $F/st-link 123456    | -                 | err
otp-verify | --state $F/dir 123456        | -                 | err
otp-verify | --state $F/nonexistent 123456 | -                | err
otp-verify | --radius                     | -                 | usage
otp-verify | --radius --state-dir=$F/dir 123456 | -           | usage
otp-verify | --state-dir=$F/dir 00 123456 | -                 | usage
otp-verify | --state /dev/zero 123456     | -                 | err
otp-verify | --state /dev/null 123456     | -                 | err
otp-verify | --state $F/st-good           | $F/nul            | err
otp-verify | --state $F/st-good           | $F/line1m         | err
otp-verify | --state $F/st-good           | /dev/zero         | err
EOF
}

@test "b32: FILE and stdin, both directions" {
	run_table <<'EOF'
b32 | -d                       | $F/badchar        | err
b32 | -d                       | $F/nul            | err
b32 | -d                       | $F/utf8           | err
b32 | -d                       | /dev/zero         | err
b32 | -d                       | $F/b32-10m        | stream
b32 | -d $F/b32-10m            | -                 | stream
b32 | -d $F/utf8               | -                 | err
b32 | -d --strict              | $F/uri-good       | err
b32 | --hex                    | $F/badchar        | err
b32 | --hex                    | $F/odd            | err
b32 | --hex                    | $F/nul            | err
b32 | $F/dir                   | -                 | err
b32 | -d $F/dir                | -                 | err
b32 | $F/nonexistent           | -                 | err
b32 | $F/dangling              | -                 | err
b32 | $F/../fx/nonexistent     | -                 | err
b32 | -d /dev/zero             | -                 | err
b32 | -w -1                    | -                 | err
b32 | --key="$S_B32"           | -                 | usage
b32 | $F/st-good $F/st-good    | -                 | usage
b32 | -d --lines               | $F/badchar        | err
b32 | -d --hex --lines         | $F/utf8           | err
b32 | -d --lines               | /dev/zero         | err
b32 | -d --lines $F/b32-10m    | -                 | stream
b32 | --hex --lines            | $F/odd            | err
b32 | --hex --lines            | $F/badchar        | err
b32 | -i                       | $F/uri-good       | usage
b32 | -di --strict             | $F/uri-good       | usage
b32 | --lines -w 10            | $F/uri-good       | usage
EOF
}

@test "otp-uri: build, parse, get, check and migration" {
	run_table <<'EOF'
otp-uri | "$S_B32!"                     | -                 | err
otp-uri | -x "$S_HEX!"                  | -                 | err
otp-uri | @$F/nul                       | -                 | err
otp-uri | @$F/line1m                    | -                 | err
otp-uri | @$F/dir                       | -                 | err
otp-uri | @/dev/zero                    | -                 | err
otp-uri | -                             | $F/nul            | err
otp-uri | -                             | $F/line1m         | err
otp-uri | -p 0 "$S_B32"                 | -                 | err
otp-uri | -i "$(printf 'A\001')" "$S_B32" | -               | err
otp-uri | -i $'\xff' "$S_B32"           | -                 | err
otp-uri | --parse "$(cat $F/uri-trunc)" | -                 | err
otp-uri | --parse "$(cat $F/uri-utf8)"  | -                 | err
otp-uri | --parse "$(cat $F/uri-ctrl)"  | -                 | err
otp-uri | --parse "$(cat $F/uri-dup)"   | -                 | err
otp-uri | --parse "$(cat $F/uri100k)"     | -                 | err
otp-uri | --parse                       | $F/uri-trunc      | err
otp-uri | --parse                       | $F/nul            | err
otp-uri | --parse                       | $F/line1m         | err
otp-uri | --parse                       | $F/file10m        | err
otp-uri | --parse                       | /dev/zero         | err
otp-uri | --get=secret "$(cat $F/uri-trunc)" | -            | err
otp-uri | --get=nosuch "$URI"           | -                 | err
otp-uri | --bogus "$S_B32"              | -                 | usage
otp-uri | --secret="$S_B32"             | -                 | usage
otp-uri | --from-migration "$(cat $F/mig-bad)" | -          | err
otp-uri | --from-migration "otpauth-migration://offline?data=" | - | err
otp-uri | --from-migration              | $F/nul            | err
otp-uri | --from-migration              | $F/line1m         | err
otp-uri | --to-migration "$(cat $F/uri-trunc)" | -          | err
otp-uri | --to-migration                | $F/nul            | err
otp-uri | --parse                       | $F/nul-noeol      | err
otp-uri | --from-migration              | $F/nul-noeol      | err
otp-uri | --qr "$(cat $F/uri100k)"        | -                 | err
otp-uri | -A a                          | $F/st-good        | err
otp-uri | --qr                          | $F/st-good        | err
otp-uri | --get=type                    | $F/st-good        | err
otp-uri | "$(cat $F/uri-dup)"           | -                 | err
EOF
}

@test "otp-uri: PSKC containers, hostile and broken" {
	# Containers of the secret: plain, and under a password.
	printf 'qwerty12\n' > "$F/pskc-pw"
	printf 'wrong-pw\n' > "$F/pskc-badpw"
	otp-uri --to=pskc < "$F/uri-good" > "$F/pskc-plain"
	otp-uri --to=pskc --pskc-password=@"$F/pskc-pw" < "$F/uri-good" \
	    > "$F/pskc-enc"
	grep -q '<pskc:ValueMAC>' "$F/pskc-enc"
	head -c 400 "$F/pskc-plain" > "$F/pskc-trunc"
	sed '1a <!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>' \
	    "$F/pskc-plain" > "$F/pskc-xxe"
	{ printf '<?xml version="1.0"?>\n<!DOCTYPE l [<!ENTITY a "aaaaaaaa">'
	  printf '<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
	  printf '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">'
	  printf '<!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]>\n<x>&d;</x>\n'
	} > "$F/pskc-bomb"
	{ sed '$d' "$F/pskc-plain"; head -c 1100000 /dev/zero | tr '\0' ' '
	  echo '</pskc:KeyContainer>'; } > "$F/pskc-big"
	# One base64 character of the secret's ciphertext, then of its MAC.
	awk '/<pskc:Secret>/ { s = 1 } s && /CipherValue>/ && !d {
		sub(/CipherValue>./, "CipherValue>" (index($0, "CipherValue>A") ? "B" : "A")); d = 1 } 1' \
	    "$F/pskc-enc" > "$F/pskc-tamper"
	! cmp -s "$F/pskc-enc" "$F/pskc-tamper" || false
	awk '/<pskc:ValueMAC>/ && !d {
		sub(/ValueMAC>./, "ValueMAC>" (index($0, "ValueMAC>A") ? "B" : "A")); d = 1 } 1' \
	    "$F/pskc-enc" > "$F/pskc-tmac"
	! cmp -s "$F/pskc-enc" "$F/pskc-tmac" || false
	grep -v '<pskc:PlainValue>[A-Za-z0-9+/]*=*</pskc:PlainValue>' \
	    "$F/pskc-plain" | grep -v '<pskc:Secret>\|</pskc:Secret>' \
	    > "$F/pskc-nosecret"
	sed 's|aes128-cbc|kw-aes128|g' "$F/pskc-enc" > "$F/pskc-cipher"
	sed 's|#hmac-sha1|#hmac-md5|' "$F/pskc-enc" > "$F/pskc-mac"
	cp "$F/pskc-plain" "$F/pskc-nul"
	printf '\0' >> "$F/pskc-nul"
	run_table <<'EOF'
otp-uri | --from=pskc $F/pskc-xxe          | -              | err
otp-uri | --from=pskc                      | $F/pskc-xxe    | err
otp-uri | --from=pskc $F/pskc-bomb         | -              | err
otp-uri | --from=pskc $F/pskc-big          | -              | err
otp-uri | --from=pskc $F/file10m           | -              | err
otp-uri | --from=pskc /dev/zero            | -              | err
otp-uri | --from=pskc                      | $F/file10m     | err
otp-uri | --from=pskc $F/pskc-trunc        | -              | err
otp-uri | --from=pskc $F/pskc-nul          | -              | err
otp-uri | --from=pskc $F/line1m            | -              | err
otp-uri | --from=pskc $F/dir               | -              | err
otp-uri | --from=pskc $F/nonexistent       | -              | err
otp-uri | --from=pskc $F/empty             | -              | err
otp-uri | --from=pskc --pskc-password=@$F/pskc-badpw $F/pskc-enc | - | err
otp-uri | --from=pskc $F/pskc-enc          | -              | err
otp-uri | --from=pskc --pskc-key=$S_HEX $F/pskc-enc | -     | err
otp-uri | --from=pskc --pskc-password=@$F/pskc-pw $F/pskc-tamper | - | err
otp-uri | --from=pskc --pskc-password=@$F/pskc-pw $F/pskc-tmac | - | err
otp-uri | --from=pskc --pskc-password=@$F/pskc-pw $F/pskc-cipher | - | err
otp-uri | --from=pskc --pskc-password=@$F/pskc-pw $F/pskc-mac | - | err
otp-uri | --from=pskc $F/pskc-nosecret     | -              | err
otp-uri | --from=pskc --pskc-password=@$F/empty $F/pskc-enc | - | err
otp-uri | --from=pskc --pskc-key=@$F/badchar $F/pskc-enc | - | err
otp-uri | --to=pskc "$(cat $F/uri-trunc)"  | -              | err
otp-uri | --to=pskc --pskc-key=$S_HEX      | $F/uri-good    | err
otp-uri | --from=pskc --pskc-password="$S_HEX" $F/pskc-enc | - | usage
otp-uri | --from=xml                       | -              | err
EOF
	# The good containers read back: the matrix's cases fail for cause.
	run -0 otp-uri --from=pskc "$F/pskc-plain"
	assert_output "$URI"
	run -0 otp-uri --from=pskc --pskc-password=@"$F/pskc-pw" "$F/pskc-enc"
	assert_output "$URI"
}

@test "otp-uri: users-file lines (--from=oath, --to=oath), malformed and hostile" {
	printf 'HOTP/T30\talice\t-\n' > "$F/oath-short"
	printf 'HOTP\talice\t-\t%szz\n' "$S_HEX" > "$F/oath-badkey"
	printf 'HOTP\talice\t-\t%s\n' "${S_HEX%?}" > "$F/oath-oddkey"
	printf 'HOTP\talice\t-\t%s\t1x\n' "$S_HEX" > "$F/oath-badctr"
	printf 'HOTP\talice\t-\t%s\t18446744073709551616\n' "$S_HEX" \
	    > "$F/oath-bigctr"
	printf 'HOTP\talice\t-\t%s\t1\t123456\tnow\n' "$S_HEX" \
	    > "$F/oath-badtime"
	printf 'HOTP/T30\ta\001b\t-\t%s\n' "$S_HEX" > "$F/oath-ctrluser"
	printf 'HOTP/T30\ta\377b\t-\t%s\n' "$S_HEX" > "$F/oath-utf8user"
	printf 'HOTP/T30\talice\t-\t%s\0\n' "$S_HEX" > "$F/oath-nul"
	{ printf 'HOTP/T30\talice\t-\t%s' "$S_HEX"; head -c 9000 /dev/zero |
	    tr '\0' 'a'; echo; } > "$F/oath-long"
	run_table <<'EOF'
otp-uri | --from=oath $F/oath-short          | -              | err
otp-uri | --from=oath                        | $F/oath-short  | err
otp-uri | --from=oath - $F/oath-badkey       | -              | err
otp-uri | --from=oath $F/oath-oddkey         | -              | err
otp-uri | --from=oath $F/oath-badctr         | -              | err
otp-uri | --from=oath $F/oath-bigctr         | -              | err
otp-uri | --from=oath $F/oath-badtime        | -              | err
otp-uri | --from=oath $F/oath-ctrluser       | -              | err
otp-uri | --from=oath $F/oath-utf8user       | -              | err
otp-uri | --from=oath $F/oath-nul            | -              | err
otp-uri | --from=oath                        | $F/oath-nul    | err
otp-uri | --from=oath $F/oath-long           | -              | err
otp-uri | --from=oath $F/nul                 | -              | err
otp-uri | --from=oath $F/line1m              | -              | err
otp-uri | --from=oath $F/file10m             | -              | err
otp-uri | --from=oath                        | $F/file10m     | err
otp-uri | --from=oath /dev/zero              | -              | err
otp-uri | --from=oath                        | /dev/zero      | err
otp-uri | --from=oath $F/dir                 | -              | err
otp-uri | --from=oath $F/nonexistent         | -              | err
otp-uri | --from=oath --to=pskc $F/oath-badkey | -            | err
otp-uri | --to=oath "$(cat $F/uri-trunc)"    | -              | err
otp-uri | --to=oath                          | $F/uri-good    | err
otp-uri | --to=oath "otpauth://totp/a?secret=$S_B32&algorithm=SHA256" | - | err
otp-uri | --to=oath "otpauth://totp/a%20b?secret=$S_B32" | -  | err
otp-uri | --to=oath "otpauth://totp/?secret=$S_B32" | -       | err
otp-uri | --to=oath --qr "otpauth://totp/a?secret=$S_B32" | -  | usage
otp-uri | --drop-issuer --parse "$URI"       | -              | usage
EOF
	# The good line reads back: the matrix's cases fail for cause.
	printf 'HOTP/T30\talice\t-\t%s\n' "$S_HEX" > "$F/oath-good"
	run -0 otp-uri --from=oath "$F/oath-good"
	assert_output "otpauth://totp/alice?secret=$S_B32"
	run -0 otp-uri --to=oath --drop-issuer < "$F/uri-good"
	assert_output "$(printf 'HOTP/T30\talice\t-\t%s' "$S_HEX")"
}

@test "otp-keygen: --print-state reads a state file safely" {
	run_table <<'EOF'
otp-keygen | --print-state=$F/st-badsecret | -            | err
otp-keygen | --print-state=$F/st-badopt    | -            | err
otp-keygen | --print-state=$F/st-nul       | -            | err
otp-keygen | --print-state=$F/st-big       | -            | err
otp-keygen | --print-state=$F/st-empty     | -            | err
otp-keygen | --print-state=$F/st-perm      | -            | err
otp-keygen | --print-state=$F/st-link      | -            | err
otp-keygen | --print-state=$F/dir          | -            | err
otp-keygen | --print-state=/dev/zero       | -            | err
otp-keygen | --print-state=$F/fifo         | -            | err
otp-keygen | --state=$F/dir                | -            | err
otp-keygen | --state=$F/st-good            | -            | err
otp-keygen | --state=$F/st-link            | -            | err
otp-keygen | --state=$F/dangling           | -            | err
otp-keygen | --state=$F/nonexistent/x      | -            | err
otp-keygen | --scratch=1 --scratch-out=$F/st-good | -       | err
otp-keygen | --state=$F/fifo               | -            | err
otp-keygen | -f --state=$F/fifo            | -            | err
otp-keygen | -f --state=$F/dir             | -            | err
otp-keygen | --scratch=1 --scratch-out=$F/fifo | -        | err
otp-keygen | -f --scratch=1 --scratch-out=$F/fifo | -     | err
otp-keygen | -f --scratch=1 --scratch-out=$F/dir | -      | err
otp-keygen | -f --scratch=1 --scratch-out=- | -          | usage
otp-keygen | --confirm --print-state=$F/st-good | -       | usage
otp-keygen | --scratch=1 --scratch-out=$F/dangling | -      | err
otp-keygen | --scratch=1 --scratch-out=$F/dir | -           | err
otp-keygen | --bytes=15                    | -            | err
otp-keygen | --bogus                       | -            | usage
otp-keygen | --key="$S_B32"                | -            | usage
otp-keygen | --bytes=65                    | -            | err
otp-keygen | --scratch=101                 | -            | err
otp-keygen | --state=$F/new --window-size=22 | -          | err
otp-keygen | --state=$F/new --rate-limit=3/x | -          | err
EOF
	# Refusals leave nothing behind.
	[ ! -e "$F/new" ]
	[ ! -e "$F/nonexistent" ]
}

# usage_case TOOL WANT ARGS...: a usage error whose first line is exactly
# "TOOL: WANT", then "Try 'TOOL --help' ...", exit 2, nothing on stdout.
usage_case() {
	local tool=$1 want=$2 rc=0
	shift 2
	timeout 10 "$tool" "$@" < /dev/null > "$BATS_TEST_TMPDIR/out" \
	    2> "$BATS_TEST_TMPDIR/err" || rc=$?
	check_case "$tool $*" usage "$rc" "$BATS_TEST_TMPDIR/out" \
	    "$BATS_TEST_TMPDIR/err" || return 1
	if [ "$(head -1 "$BATS_TEST_TMPDIR/err")" != "$tool: $want" ] ||
	    [ "$(sed -n 2p "$BATS_TEST_TMPDIR/err")" != \
	    "Try '$tool --help' for more information." ]; then
		echo "want '$tool: $want': $tool $*"; cat "$BATS_TEST_TMPDIR/err"
		return 1
	fi
}

@test "one usage error, worded alike by every tool" {
	local t fails=0 opt f
	for t in otp-gen otp-verify b32 otp-uri otp-keygen; do
		# Each tool's option that takes a value, long and short, and
		# a flag to cluster with.
		case $t in
		b32) opt=(--wrap -w) f=d ;;
		otp-keygen|otp-uri) opt=(--period -p) f=x ;;
		*) opt=(--digits -d) f=b ;;
		esac
		usage_case "$t" "unknown option '--bogus'" --bogus ||
		    fails=$((fails + 1))
		# Never past '=': the value may be a key.
		usage_case "$t" "unknown option '--key'" --key="$S_B32" ||
		    fails=$((fails + 1))
		usage_case "$t" "unknown option '-Z'" -Z || fails=$((fails + 1))
		# In a cluster, last and first.
		usage_case "$t" "unknown option '-Z'" "-${f}Z" ||
		    fails=$((fails + 1))
		usage_case "$t" "unknown option '-Z'" "-Z$f" ||
		    fails=$((fails + 1))
		usage_case "$t" "option '--help' takes no argument" \
		    --help="$S_B32" || fails=$((fails + 1))
		# A missing argument names the option as typed.
		usage_case "$t" "option '${opt[0]}' needs an argument" \
		    "${opt[0]}" || fails=$((fails + 1))
		usage_case "$t" "option '${opt[0]:0:5}' needs an argument" \
		    "${opt[0]:0:5}" || fails=$((fails + 1))
		usage_case "$t" "option '${opt[1]}' needs an argument" \
		    "${opt[1]}" || fails=$((fails + 1))
	done
	[ "$fails" -eq 0 ]
}

@test "a bad option value is one line in every tool" {
	run_table <<'EOF'
otp-gen    | -d 5 "$S_HEX"                  | -            | err
otp-gen    | --totp -s 0 "$S_HEX"           | -            | err
otp-gen    | --totp -S yesterdayish "$S_HEX" | -           | err
otp-gen    | -w x "$S_HEX"                  | -            | err
otp-gen    | -a MD5 "$S_HEX"                | -            | err
otp-verify | -d 11 "$S_HEX" 123456          | -            | err
otp-verify | -c x "$S_HEX" 123456           | -            | err
otp-verify | --allowed-perm=8 --state $F/st-good 123456 | - | err
otp-verify | --allowed-perm=0 --state $F/st-good 123456 | - | err
otp-verify | --allowed-perm=10000 --state $F/st-good 123456 | - | err
b32        | --wrap=x                       | -            | err
otp-uri    | -p 0 "$S_B32"                  | -            | err
otp-uri    | -p 1x "$S_B32"                 | -            | err
otp-uri    | -p 4294967296 "$S_B32"         | -            | err
otp-uri    | -d 5 "$S_B32"                  | -            | err
otp-uri    | --qr=sixel "$S_B32"            | -            | err
otp-keygen | --uri -A a -p 0                | -            | err
otp-keygen | --uri -A a -p 1x               | -            | err
otp-keygen | --uri -A a -d 11               | -            | err
otp-keygen | --state=$F/new --step-size=61  | -            | err
otp-keygen | --state=$F/new --rate-limit=11/30 | -         | err
otp-keygen | --uri -A a -i "$(printf %0600d 0)" | -            | err
EOF
	[ ! -e "$F/new" ]
}

# A FIFO whose writer opens it and never writes.  A key file or b32's FILE
# is read as cat(1) reads it: the tool waits for the writer (a slow writer
# is legitimate: `otp-gen @<(pass show ...)`), and ends with a clear error
# as soon as the writer goes away without a line.  A state file must be a
# regular file: refused at once, without waiting for the writer at all.
@test "FIFOs: keys wait for the writer and fail when it leaves; state files are refused at once" {
	local w pid
	for c in "otp-gen @$F/fifo" "otp-verify @$F/fifo 123456" \
	    "otp-uri @$F/fifo" "otp-verify --motp --pin=1 @$F/fifo 123456"; do
		# The writer holds the FIFO open for 2 s, writing nothing
		# (bounded, in case the tool never opens it).
		timeout 5 bash -c 'exec 3> "$1"; sleep 2' _ "$F/fifo" &
		w=$!
		rc=0
		timeout 10 $c < /dev/null > "$BATS_TEST_TMPDIR/out" \
		    2> "$BATS_TEST_TMPDIR/err" || rc=$?
		wait "$w" || true
		check_case "$c" err "$rc" "$BATS_TEST_TMPDIR/out" \
		    "$BATS_TEST_TMPDIR/err"
	done
	for c in "otp-verify --state $F/fifo 123456" \
	    "otp-keygen --print-state=$F/fifo"; do
		# A writer that stays for 30 s: the tool must not wait for it.
		timeout 30 bash -c 'exec 3> "$1"; sleep 30' _ "$F/fifo" &
		w=$!
		rc=0
		SECONDS=0
		timeout 10 $c < /dev/null > "$BATS_TEST_TMPDIR/out" \
		    2> "$BATS_TEST_TMPDIR/err" || rc=$?
		kill "$w" 2>/dev/null || true
		wait "$w" 2>/dev/null || true
		check_case "$c" err "$rc" "$BATS_TEST_TMPDIR/out" \
		    "$BATS_TEST_TMPDIR/err"
		[ "$SECONDS" -lt 5 ]
	done
	# b32 is a filter: an empty stream is empty output, exit 0, once the
	# writer leaves.
	# (Generous limits: on a loaded machine the writer may start late, and
	# b32 rightly waits for it.)
	timeout 60 bash -c 'exec 3> "$1"; sleep 1' _ "$F/fifo" &
	w=$!
	run --separate-stderr timeout 60 b32 -d "$F/fifo"
	wait "$w" || true
	assert_success
	assert_output ''
	# And with no writer at all, a state file is still refused at once.
	run timeout 10 otp-verify --state "$F/fifo" 123456
	assert_failure 2
}

@test "an unreadable key, state or input file: one clear line" {
	# Root reads everything: it runs the tools as nobody, from a copy
	# nobody can reach.  A plain user makes the directory mode 0000.
	as_nobody
	local as=("${AS[@]}") bin=$BIN
	if [ "$(id -u)" != 0 ]; then
		chmod 000 "$F/locked"
	fi
	local c rc fails=0
	for c in "otp-gen @$F/locked/key" "otp-verify @$F/locked/key 123456" \
	    "otp-uri -x @$F/locked/key" "b32 $F/locked/key" \
	    "otp-verify --state $F/locked/key 123456" \
	    "otp-keygen --print-state=$F/locked/key"; do
		rc=0
		# shellcheck disable=SC2086
		timeout 10 "${as[@]}" env PATH="$bin:$PATH" $c \
		    < /dev/null \
		    > "$BATS_TEST_TMPDIR/out" 2> "$BATS_TEST_TMPDIR/err" ||
		    rc=$?
		check_case "$c" err "$rc" "$BATS_TEST_TMPDIR/out" \
		    "$BATS_TEST_TMPDIR/err" || fails=$((fails + 1))
		grep -q "Permission denied" "$BATS_TEST_TMPDIR/err" ||
		    { echo "no reason given: $c"; fails=$((fails + 1)); }
	done
	[ "$fails" -eq 0 ]
}

@test "the matrix can fail: a good key is not an error" {
	# Guards the harness itself: check_case must reject a success.
	rc=0
	otp-gen "$S_HEX" > "$BATS_TEST_TMPDIR/out" 2> "$BATS_TEST_TMPDIR/err" ||
	    rc=$?
	run check_case "otp-gen $S_HEX" err "$rc" "$BATS_TEST_TMPDIR/out" \
	    "$BATS_TEST_TMPDIR/err"
	assert_failure
	# ... and a message holding the secret is caught.
	echo "otp-gen: bad key $S_HEX" > "$BATS_TEST_TMPDIR/err"
	: > "$BATS_TEST_TMPDIR/out"
	run check_case "otp-gen x" err 2 "$BATS_TEST_TMPDIR/out" \
	    "$BATS_TEST_TMPDIR/err"
	assert_failure
	assert_output --partial "secret in the output"
}

@test "regression: a NUL in a stdin key or URI line fails that line and only that line" {
	# otp-gen read stdin lines with fgets(), so a NUL cut the key short:
	# at the end of input it printed a code for the truncated key, and
	# with a newline it also swallowed the next line.
	run --separate-stderr otp-gen < "$F/nul-noeol"
	assert_failure 2
	assert_output ''
	[[ "$stderr" == *"line 1: NUL byte"* ]]
	run --separate-stderr bash -c "{ cat '$F/nul'; echo 00; } | otp-gen"
	assert_failure 2
	assert_output 328482
	[[ "$stderr" == *"line 1: NUL byte"* ]]
	# otp-uri read its URI lines with fgets() too: --parse printed the
	# fields of the URI cut at the NUL.
	run --separate-stderr bash -c "printf '%s\\0x' '$URI' | otp-uri --parse"
	assert_failure 2
	assert_output ''
	[[ "$stderr" == *"line 1: NUL byte"* ]]
}

@test "regression: a key operand is never echoed in an error" {
	# cli_key_load, otp-gen, otp-verify --motp and --diagnose named an
	# over-long operand in their message: the operand is the key.
	local long
	long=$S_HEX$(head -c 9000 /dev/zero | tr '\0' a)
	for c in "otp-gen" "otp-uri --totp" "otp-verify --motp --pin=1" \
	    "otp-verify --diagnose"; do
		set -- "$long" 123456
		[ "$c" = "otp-uri --totp" ] && set -- "$long"
		# shellcheck disable=SC2086
		run --separate-stderr $c "$@"
		assert_failure 2
		[[ "$stderr" == *"key: input too long"* ]]
		[[ "$stderr" != *"$S_HEX"* ]]
	done
}

# pad N: N spaces (lenient Base32 skips them).
pad() { head -c "$1" /dev/zero | tr '\0' ' '; }

@test "documented bounds: just under is accepted, just over is one clear error" {
	local k
	# Key bytes: OTP_KEY_MAX = 256.
	k=$(head -c 256 /dev/zero | tr '\0' 'a')$(head -c 256 /dev/zero | tr '\0' 'a')
	run otp-gen "$k"
	assert_success
	run --separate-stderr otp-gen "${k}aa"
	assert_failure 2
	[[ "$stderr" == *"too long"* ]]
	# A line of key text: OTP_LINE_MAX - 1 = 8191 characters, as an
	# operand, from @FILE and from stdin.
	k=JBSWY3DPEHPK3PXP$(pad $((8191 - 16)))
	run otp-gen -b "$k"
	assert_success
	printf '%s\n' "$k" > "$BATS_TEST_TMPDIR/k"
	run otp-gen -b "@$BATS_TEST_TMPDIR/k"
	assert_success
	run otp-gen -b < "$BATS_TEST_TMPDIR/k"
	assert_success
	run --separate-stderr otp-gen -b "$k "
	assert_failure 2
	[[ "$stderr" == "otp-gen: key: input too long" ]]
	printf '%s \n' "$k" > "$BATS_TEST_TMPDIR/k"
	run --separate-stderr otp-gen -b "@$BATS_TEST_TMPDIR/k"
	assert_failure 2
	[[ "$stderr" == *"too long"* ]]
	run --separate-stderr otp-gen -b < "$BATS_TEST_TMPDIR/k"
	assert_failure 2
	[[ "$stderr" == *"too long"* ]]
	# A URI line for otp-uri: the same 8191.
	k="otpauth://totp/A?secret=JBSWY3DPEHPK3PXP&issuer="
	k=$k$(head -c $((8191 - ${#k})) /dev/zero | tr '\0' 'x')
	printf '%s\n' "$k" > "$BATS_TEST_TMPDIR/u"
	run --separate-stderr otp-uri -q --get=secret < "$BATS_TEST_TMPDIR/u"
	[[ "$stderr" != *"longer than"* ]]
	printf '%sx\n' "$k" > "$BATS_TEST_TMPDIR/u"
	run --separate-stderr otp-uri -q --get=secret < "$BATS_TEST_TMPDIR/u"
	assert_failure 2
	[[ "$stderr" == *"longer than 8191 bytes"* ]]
	# A migration URI line: OTP_MIGRATION_URI_MAX - 1 = 73727.
	k="otpauth-migration://offline?data="
	k=$k$(head -c $((73727 - ${#k})) /dev/zero | tr '\0' 'A')
	printf '%s\n' "$k" > "$BATS_TEST_TMPDIR/m"
	run --separate-stderr otp-uri --from-migration < "$BATS_TEST_TMPDIR/m"
	[[ "$stderr" != *"longer than"* ]]
	printf '%sA\n' "$k" > "$BATS_TEST_TMPDIR/m"
	run --separate-stderr otp-uri --from-migration < "$BATS_TEST_TMPDIR/m"
	assert_failure 2
	[[ "$stderr" == *"longer than 73727 bytes"* ]]
	# A state file: OTP_STATE_MAX = 65536 bytes.
	k=$(printf '%s\n" TOTP_AUTH\n' "$S_B32")
	{ printf '%s\n' "$k"; head -c $((65536 - ${#k} - 1)) /dev/zero |
	    tr '\0' '\n'; } > "$BATS_TEST_TMPDIR/st"
	[ "$(stat -c %s "$BATS_TEST_TMPDIR/st")" -eq 65536 ]
	chmod 400 "$BATS_TEST_TMPDIR/st"
	run otp-keygen --print-state="$BATS_TEST_TMPDIR/st"
	assert_success
	chmod 600 "$BATS_TEST_TMPDIR/st"
	printf '\n' >> "$BATS_TEST_TMPDIR/st"
	chmod 400 "$BATS_TEST_TMPDIR/st"
	run --separate-stderr otp-keygen --print-state="$BATS_TEST_TMPDIR/st"
	assert_failure 2
	[[ "$stderr" == *"64 KiB"* ]]
	run --separate-stderr otp-verify --state "$BATS_TEST_TMPDIR/st" 123456
	assert_failure 2
	[[ "$stderr" == *"64 KiB"* ]]
	# The window: OTP_WINDOW_MAX = 10^8.  Running the largest window
	# takes 15 s here (every candidate is compared), so only the refusal
	# is run.
	run --separate-stderr otp-verify -w 100000001 "$RFC_HEX" 755224
	assert_failure 2
	[[ "$stderr" == *"at most 100000000"* ]]
}

@test "pam_otp.so: hostile state files are refused, without a hang or the secret in any output" {
	[ -n "${OTP_LIBDIR:-}" ] && [ -f "$OTP_LIBDIR/pam_otp.so" ] ||
	    skip "OTP_LIBDIR has no pam_otp.so"
	load pam/lib
	pam_setup_file
	pam_setup
	PAM_ENV=()
	PAM_TIMEOUT=10
	MOD=otp
	NOW=300000
	otp_service
	local s=$D/otp/state c fails=0 w=
	for c in st-badsecret st-badopt st-nul st-big st-empty st-perm \
	    st-link dir dangling fifo devzero; do
		rm -rf "$s"
		case $c in
		st-link) ln -s "$F/st-good" "$s" ;;
		dir) mkdir "$s" ;;
		dangling) ln -s "$F/nonexistent" "$s" ;;
		fifo)
			mkfifo "$s"
			timeout 30 bash -c 'exec 3> "$1"; sleep 30' _ "$s" &
			w=$! ;;
		devzero) ln -s /dev/zero "$s" ;;
		*) cp -p "$F/$c" "$s" ;;
		esac
		pam_run t 123456
		if [ "$status" -ne 1 ] ||
		    [[ "$output" != *"Authentication failure"* ]]; then
			echo "not refused ($status): $c"; fails=$((fails + 1))
		fi
		if [[ "$output" == *"$S_B32"* ]] ||
		    [[ "$output" == *"${S_B32:0:12}"* ]] ||
		    [[ "$output" == *"AddressSanitizer"* ]] ||
		    [[ "$output" == *"runtime error:"* ]]; then
			echo "secret or sanitizer report: $c"
			fails=$((fails + 1))
		fi
		if [ -n "$w" ]; then
			kill "$w" 2>/dev/null || true
			wait "$w" 2>/dev/null || true
			w=
		fi
	done
	[ "$fails" -eq 0 ]
}

@test "otp-verify --otpw and otp-keygen --otpw: OTPW files, responses and prefixes" {
	printf 'OTPW1\n1 3 12 8\n000ROp:D7vJtPDB\n' > "$F/ow-good"
	printf 'OTPW1\n2 3 12 8\n000ROp:D7vJtPDB\n' > "$F/ow-short"
	printf 'OTPW1\n1 3 12 8\n000ROp:\0D7vJtPDB\n' > "$F/ow-nul"
	printf 'OTPW1\n1 3 11 8\n000ROp:D7vJtPD\n' > "$F/ow-hlen"
	printf '%s\n' "$S_HEX" > "$F/ow-key"
	{ printf 'OTPW1\n9999 3 12 8\n'; head -c 500000 /dev/zero |
	    tr '\0' '-'; } > "$F/ow-big"
	: > "$F/ow-empty"
	cp "$F/ow-good" "$F/ow-perm"
	chmod 600 "$F"/ow-*
	chmod 666 "$F/ow-perm"
	ln -sf "$F/ow-good" "$F/ow-link"
	run_table <<'EOF2'
otp-verify | --otpw=$F/ow-short "$S_HEX"      | -            | err
otp-verify | --otpw=$F/ow-nul "$S_HEX"        | -            | err
otp-verify | --otpw=$F/ow-hlen "$S_HEX"       | -            | err
otp-verify | --otpw=$F/ow-key "$S_HEX"        | -            | err
otp-verify | --otpw=$F/ow-big "$S_HEX"        | -            | err
otp-verify | --otpw=$F/ow-empty "$S_HEX"      | -            | err
otp-verify | --otpw=$F/ow-perm "$S_HEX"       | -            | err
otp-verify | --otpw=$F/ow-link "$S_HEX"       | -            | err
otp-verify | --otpw=$F/dir "$S_HEX"           | -            | err
otp-verify | --otpw=$F/nonexistent "$S_HEX"   | -            | err
otp-verify | --otpw=/dev/zero "$S_HEX"        | -            | err
otp-verify | --otpw=$F/fifo "$S_HEX"          | -            | err
otp-verify | --otpw=$F/ow-good                | $F/nul       | err
otp-verify | --otpw=$F/ow-good                | $F/line1m    | err
otp-verify | --otpw=$F/ow-good                | /dev/zero    | err
otp-verify | --otpw=$F/ow-good                | $F/empty     | err
otp-verify | --otpw=$F/ow-good @$F/nul        | -            | err
otp-verify | --otpw=$F/ow-good --challenge=00 "$S_HEX" | -   | err
otp-verify | --otpw=$F/ow-good --challenge=0a0 "$S_HEX" | -  | err
otp-verify | --otpw=$F/ow-good --challenge=000/000/000 "$S_HEX" | - | err
otp-verify | --otpw=$F/ow-good --challenge "$S_HEX" | -      | usage
otp-verify | --otpw=$F/ow-good "$S_HEX" "$S_HEX" | -        | usage
otp-verify | --otpw= "$S_HEX"                | -            | usage
otp-keygen | --otpw=$F/ow-new --prefix=@$F/nul      | -     | err
otp-keygen | --otpw=$F/ow-new --prefix=@$F/line1m   | -     | err
otp-keygen | --otpw=$F/ow-new --prefix=@$F/empty    | -     | err
otp-keygen | --otpw=$F/ow-new --prefix=@$F/nonexistent | -  | err
otp-keygen | --otpw=$F/ow-new --prefix=-            | /dev/zero | err
otp-keygen | --otpw=$F/ow-new --prefix=-            | $F/blank | err
otp-keygen | --otpw=$F/ow-new --prefix="$S_HEX"     | -     | usage
otp-keygen | --otpw=$F/ow-new --entries=0           | -     | err
otp-keygen | --otpw=$F/ow-new --entries=1e3         | -     | err
otp-keygen | --otpw=$F/dir --prefix=@$F/ow-key      | -     | err
otp-keygen | --otpw=$F/ow-good --prefix=@$F/ow-key  | -     | err
otp-keygen | --otpw=/dev/null -f --prefix=@$F/ow-key | -    | err
otp-keygen | --entries=50                           | -     | usage
EOF2
	[ ! -e "$F/ow-new" ]
}

@test "users file: hostile files and input for otp-verify and otp-keygen --usersfile" {
	local u=$F/users
	mkdir -p "$u"
	printf 'HOTP alice - %s\n' "$S_HEX" >"$u/good"
	printf 'HOTP alice - %szz\n' "$S_HEX" >"$u/badkey"
	printf 'HOTP alice - %s 1x\n' "$S_HEX" >"$u/badcnt"
	printf 'HOTP alice - %s 1 123456 yesterday\n' "$S_HEX" >"$u/badtime"
	printf 'HOTP alice - %s\n\0\n' "$S_HEX" >"$u/nul"
	{ printf 'HOTP alice - %s\n' "$S_HEX"; head -c 17000000 /dev/zero |
	    tr '\0' '#'; } >"$u/big"
	cp "$u/good" "$u/perm"
	chmod 0600 "$u"/*
	chmod 0666 "$u/perm"
	ln -sf "$u/good" "$u/link"
	cp -p "$u/good" "$u/before"
	run_table <<'EOF'
otp-verify | --usersfile=$F/users/badkey --user=alice 123456  | - | err
otp-verify | --usersfile=$F/users/badcnt --user=alice 123456  | - | err
otp-verify | --usersfile=$F/users/badtime --user=alice 123456 | - | err
otp-verify | --usersfile=$F/users/nul --user=alice 123456     | - | err
otp-verify | --usersfile=$F/users/big --user=alice 123456     | - | err
otp-verify | --usersfile=$F/users/perm --user=alice 123456    | - | err
otp-verify | --usersfile=$F/users/link --user=alice 123456    | - | err
otp-verify | --usersfile=$F/dir --user=alice 123456           | - | err
otp-verify | --usersfile=$F/fifo --user=alice 123456          | - | err
otp-verify | --usersfile=/dev/zero --user=alice 123456        | - | err
otp-verify | --usersfile=$F/dangling --user=alice 123456      | - | err
otp-verify | --usersfile=$F/users/good --user=nobody 123456   | - | err
otp-verify | --usersfile=$F/users/good --user=alice 12345     | - | err
otp-verify | --usersfile=$F/users/good --user=alice "$S_HEX"  | - | err
otp-verify | --usersfile=$F/users/good --user=alice           | $F/nul | err
otp-verify | --usersfile=$F/users/good --user=alice           | $F/line1m | err
otp-verify | --usersfile=$F/users/good --user="a b" 123456    | - | err
otp-verify | --usersfile=$F/users/good -d 9 123456            | - | usage
otp-verify | --user=alice "$S_HEX" 123456                     | - | usage
otp-keygen | --usersfile=$F/users/perm --user=bob             | - | err
otp-keygen | --usersfile=$F/users/nul --user=bob              | - | err
otp-keygen | --usersfile=$F/users/big --user=bob              | - | err
otp-keygen | --usersfile=$F/users/link --user=bob             | - | err
otp-keygen | --usersfile=$F/dir --user=bob                    | - | err
otp-keygen | --usersfile=$F/fifo --user=bob                   | - | err
otp-keygen | --usersfile=$F/nonexistent/x --user=bob          | - | err
otp-keygen | --usersfile=$F/users/good --user=alice           | - | err
otp-keygen | --usersfile=$F/users/good --user=bob --pin=@$F/empty | - | err
otp-keygen | --usersfile=$F/users/good --user=bob --pin=@$F/nul | - | err
otp-keygen | --usersfile=$F/users/good --user=bob -d 9        | - | usage
otp-keygen | --usersfile=$F/users/good --user=bob --motp      | - | usage
otp-keygen | --usersfile=$F/users/good                        | - | usage
EOF
	# Refusals leave the file as it was and nothing beside it.
	cmp "$u/good" "$u/before"
	[ ! -e "$F/nonexistent" ]
	[ -z "$(find "$u" -name '*~otp-*' -o -name '*.lock' -o -name '*.new')" ]
}

@test "otp-uri conversions: -o targets, PSKC files unprotected where a key is given, --map files, -A" {
	local P=$VECTORS/pskc K=12345678901234567890123456789012
	export P K
	run_table <<'EOF2'
otp-uri | --to=uri -o $F/uri-good "$URI"                       | - | err
otp-uri | --to=oath -f -o $F/dir "$URI"                        | - | err
otp-uri | --to=oath -f -o $F/fifo "$URI"                       | - | err
otp-uri | --to=oath -f -o /dev/null "$URI"                     | - | err
otp-uri | --to=pskc -o $F/nonexistent/x "$URI"                 | - | err
otp-uri | --to=uri -o $F/out "$URI" "${URI%%&*}%"              | - | summary
otp-uri | --to=oath -f "$URI"                                  | - | usage
otp-uri | -o $F/out --parse "$URI"                             | - | usage
otp-uri | --from=pskc --pskc-key=$K $P/figure6-plain-package.pskcxml | - | err
otp-uri | --from=pskc --pskc-key=$K $P/rfc6030-figure2.pskcxml  | - | err
otp-uri | --from=pskc --pskc-password=@$F/uri-good $P/rfc6030-figure2.pskcxml | - | err
otp-uri | --from=pskc --allow-plain $P/rfc6030-figure2.pskcxml | - | usage
otp-uri | --from=pskc --map=$F/nonexistent $P/rfc6030-figure2.pskcxml | - | err
otp-uri | --from=pskc --map=$F/dir $P/rfc6030-figure2.pskcxml    | - | err
otp-uri | --from=pskc --map=$F/nul $P/rfc6030-figure2.pskcxml    | - | err
otp-uri | --from=pskc --map=$F/line1m $P/rfc6030-figure2.pskcxml | - | err
otp-uri | --from=pskc --map=$F/uri-good $P/rfc6030-figure2.pskcxml | - | err
otp-uri | --from=pskc --map=$F/utf8 $P/rfc6030-figure2.pskcxml   | - | err
otp-uri | --from=pskc --map=$F/uri-good -A x $P/rfc6030-figure2.pskcxml | - | usage
otp-uri | --to=uri --map=$F/uri-good "$URI"                     | - | usage
otp-uri | --to=uri -A x "$URI" "$URI"                          | - | err
otp-uri | --parse -A x "$URI"                                  | - | usage
EOF2
	[ ! -e "$F/out" ] && [ ! -e "$F/nonexistent" ]
	[ "$(cat "$F/uri-good")" = "$URI" ]
}

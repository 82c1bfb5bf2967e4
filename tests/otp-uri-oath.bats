#!/usr/bin/env bats
# otp-uri --from=oath / --to=oath: OATH Toolkit users-file lines
# (otp-uri(1) "Users files", otp-users(5)).  Round trips on random sets
# of awkward names, what a line cannot carry refused by name, MOTP and
# unknown types skipped, PINs warned of and never shown, and the lines
# made here checked where they are used: the code oathtool computes from
# the URI's secret is accepted by otp-verify --usersfile on the new file.

bats_require_minimum_version 1.5.0
load common

setup() {
	T=$BATS_TEST_TMPDIR
	K=$RFC_B32
	NOW=1700000000
}

# What a user name may hold besides letters: every awkward character that
# is neither white space nor a control character, and some UTF-8.
AWK=(':' '%' '&' '?' '#' '/' '+' '=' '@' "'" '"' '\' ';' ',' '!' '~' '*'
     '<' '>' '|' '$' '`' '(' ')' '[' ']' '{' '}' '^' '-' '.' '_' 'é' 'ß'
     '日本' '😀' 'ａ' '%41' '%3A' 'a' 'Z' '0' '9')

# rand_set SEED N: N random accounts, one "TYPE DIGITS PERIOD COUNTER HEX
# NAME" a line (NAME last: it may hold anything but white space).
rand_set() {
	local i j n name hex type period counter
	RANDOM=$1
	for ((i = 0; i < $2; i++)); do
		name=
		n=$((RANDOM % 12 + 1))
		for ((j = 0; j < n; j++)); do
			name+=${AWK[RANDOM % ${#AWK[@]}]}
		done
		# Keys of 1 to 32 bytes (pam_oath's bound).
		hex=$(head -c $((RANDOM % 32 + 1)) /dev/urandom | od -An -tx1 |
		    tr -d ' \n')
		if ((RANDOM % 2)); then
			type=hotp period=-
			counter=$(((RANDOM << 15 | RANDOM) % 1000))
			((RANDOM % 8)) || counter=18446744073709551615
		else
			type=totp counter=-
			period=$((RANDOM % 2 ? 30 : 60))
		fi
		printf '%s %s %s %s %s %s\n' "$type" $((RANDOM % 3 + 6)) \
		    "$period" "$counter" "$hex" "$name"
	done
}

# uris_of SET: the canonical URI of each account of SET, built by otp-uri.
uris_of() {
	local type digits period counter hex name
	while read -r type digits period counter hex name; do
		if [ "$type" = hotp ]; then
			otp-uri -q -x --hotp -c "$counter" -d "$digits" \
			    -A "$name" "$hex"
		else
			otp-uri -q -x --totp -p "$period" -d "$digits" \
			    -A "$name" "$hex"
		fi
	done < "$1"
}

@test "--to=oath | --from=oath gives back the same URIs: random sets of awkward names" {
	local seed=${OATH_SEED:-$RANDOM}
	echo "seed $seed (OATH_SEED=$seed repeats it)"
	rand_set "$seed" 60 > "$T/set"
	uris_of "$T/set" > "$T/uris"
	[ "$(wc -l < "$T/uris")" -eq 60 ]
	run -0 --separate-stderr otp-uri --to=oath < "$T/uris"
	assert_equal "$stderr" ""
	printf '%s\n' "$output" > "$T/users"
	run -0 --separate-stderr otp-uri --from=oath "$T/users"
	assert_equal "$stderr" ""
	diff -u "$T/uris" - <<< "$output"
	# Through a pipe, and with the URIs as operands.
	mapfile -t U < "$T/uris"
	run -0 bash -c 'otp-uri --to=oath "$@" | otp-uri --from=oath' _ "${U[@]}"
	diff -u "$T/uris" - <<< "$output"
}

@test "--to=oath writes the fields as pam_oath and otp-keygen --usersfile do" {
	run -0 otp-uri --to=oath \
	    "otpauth://totp/alice?secret=$K" \
	    "otpauth://totp/bob?secret=$K&digits=8&period=60" \
	    "otpauth://totp/carol?secret=$K&digits=7" \
	    "otpauth://hotp/dave?secret=$K&counter=0" \
	    "otpauth://hotp/erin?secret=$K&digits=8&counter=42" \
	    "otpauth://hotp/:a:b?secret=$K&digits=7&counter=18446744073709551615"
	assert_output "$(printf '%s\t%s\t-\t%s%s\n' \
	    HOTP/T30 alice "$RFC_HEX" '' \
	    HOTP/T60/8 bob "$RFC_HEX" '' \
	    HOTP/T30/7 carol "$RFC_HEX" '' \
	    HOTP dave "$RFC_HEX" '' \
	    HOTP/E/8 erin "$RFC_HEX" $'\t42' \
	    HOTP/E/7 a:b "$RFC_HEX" $'\t18446744073709551615')"
	# The same type spelling as otp-keygen's line for the same token.
	otp-keygen --usersfile="$T/kg" --user=bob --totp=60 -d 8 > /dev/null
	[ "$(cut -f1 "$T/kg")" = HOTP/T60/8 ]
}

@test "codes cross-checked: oathtool on each URI's secret, otp-verify --usersfile on the lines" {
	local seed=${OATH_SEED:-$RANDOM} type digits period counter hex name
	local code n=0 at=0
	echo "seed $seed (OATH_SEED=$seed repeats it)"
	rand_set "$seed" 25 > "$T/set"
	uris_of "$T/set" > "$T/uris"
	otp-uri --to=oath < "$T/uris" > "$T/users"
	chmod 600 "$T/users"
	mapfile -t U < "$T/uris"
	while read -r type digits period counter hex name; do
		# oathtool on the secret as the URI gives it (Base32).
		# (Not "i": bats's run sets it.)
		secret=$(otp-uri -q --get=secret "${U[at]}")
		at=$((at + 1))
		if [ "$type" = hotp ]; then
			[ "$counter" != 18446744073709551615 ] || continue
			code=$(oathtool --hotp -b -d "$digits" -c "$counter" \
			    "$secret")
		else
			code=$(oathtool --totp -b -d "$digits" -s "${period}s" \
			    -N "@$NOW" "$secret")
		fi
		run -0 otp-verify --usersfile="$T/users" --user="$name" \
		    -N "@$NOW" "$code"
		assert_output 0
		# Once accepted, the same code is refused: it was this line.
		run -1 otp-verify --usersfile="$T/users" --user="$name" \
		    -N "@$NOW" "$code"
		n=$((n + 1))
	done < "$T/set"
	[ "$n" -ge 15 ]
	# The file otp-verify rewrote still reads back, each HOTP account one
	# counter on (its code used), each TOTP account as it was.
	run -0 otp-uri --from=oath "$T/users"
	[ "${#lines[@]}" -eq 25 ]
}

@test "--from=oath: an HOTP counter already used gives the next; TOTP's COUNTER, LASTOTP and LASTTIME are not a URI's" {
	printf '%s\n' \
	    "HOTP	h1	-	$RFC_HEX	5	254676	2026-12-03T15:25:13L" \
	    "HOTP	h2	-	$RFC_HEX	5" \
	    "HOTP/T60/8	t1	-	$RFC_HEX	6	12345678	2026-12-03T15:25:13L" \
	    "HOTP/E	h3	-	$RFC_HEX" > "$T/users"
	run -0 --separate-stderr otp-uri --from=oath "$T/users"
	assert_output "otpauth://hotp/h1?secret=$K&counter=6
otpauth://hotp/h2?secret=$K&counter=5
otpauth://totp/t1?secret=$K&digits=8&period=60
otpauth://hotp/h3?secret=$K&counter=0"
	assert_equal "$stderr" ""
}

@test "--to=oath refuses what a line cannot carry, naming the account, and writes nothing" {
	local cases=(
	    "otpauth://totp/alg?secret=$K&algorithm=SHA256|'alg'|algorithm SHA256 (SHA1 only)"
	    "otpauth://totp/alg5?secret=$K&algorithm=SHA512|'alg5'|algorithm SHA512"
	    "otpauth://totp/per?secret=$K&period=45|'per'|a period of 45 seconds (30 or 60 only)"
	    "otpauth://hotp/dig?secret=$K&digits=10|'dig'|10 digits (6, 7 or 8 only)"
	    "otpauth://totp/dig9?secret=$K&digits=9|'dig9'|9 digits"
	    "otpauth://totp/Ex:iss?secret=$K&issuer=Ex|'iss'|the issuer 'Ex' (--drop-issuer leaves issuers out)"
	    "otpauth://totp/lab:iss2?secret=$K|'iss2'|the issuer 'lab'"
	    "otpauth://totp/two%20words?secret=$K|'two words'|white space or a control character in the user name"
	    "otpauth://totp/?secret=$K|''|an account without a name"
	    "otpauth://steam/st?secret=$K|'st'|Steam Guard codes"
	)
	local c uri name why
	for c in "${cases[@]}"; do
		IFS='|' read -r uri name why <<< "$c"
		run -2 --separate-stderr otp-uri --to=oath \
		    "otpauth://totp/good?secret=$K" "$uri"
		assert_output ""
		[[ $stderr == "otp-uri: account $name (URI 2): a users file cannot carry "*"$why"*"; no export written" ]] ||
		    fail "$uri: $stderr"
		[ "${#stderr_lines[@]}" -eq 1 ]
	done
	# Every reason at once, in one line.
	run -2 --separate-stderr otp-uri --to=oath \
	    "otpauth://totp/Ex:a%20b?secret=$K&issuer=Ex&algorithm=SHA256&period=45&digits=10"
	assert_output ""
	[[ $stderr == *"algorithm SHA256"*"10 digits"*"45 seconds"*"issuer 'Ex'"*"white space or a control character"* ]]
	# An account name longer than a field.
	long=$(printf 'x%.0s' {1..256})
	run -2 --separate-stderr otp-uri --to=oath "otpauth://totp/$long?secret=$K"
	[[ $stderr == *"an account name of 256 bytes as the user name (255 at most)"* ]]
	run -0 otp-uri --to=oath "otpauth://totp/${long:1}?secret=$K"
	# From stdin the line is named; each refused account says so.
	printf '%s\n' "otpauth://totp/ok?secret=$K" \
	    "otpauth://totp/a?secret=$K&period=90" \
	    "otpauth://totp/b?secret=$K&algorithm=SHA512" > "$T/uris"
	run -2 --separate-stderr otp-uri --to=oath < "$T/uris"
	assert_output ""
	assert_equal "${stderr_lines[0]}" "otp-uri: account 'a' (line 2): a users file cannot carry a period of 90 seconds (30 or 60 only); no export written"
	[[ ${stderr_lines[1]} == "otp-uri: account 'b' (line 3): "* ]]
	# Nothing of the secret in any of it.
	! grep -qi "$K\|$RFC_HEX" <<< "$stderr" || false
}

@test "--drop-issuer leaves issuers out; unknown parameters are left out with a warning" {
	run -0 --separate-stderr otp-uri --to=oath --drop-issuer \
	    "otpauth://totp/Example:alice?secret=$K&issuer=Example"
	assert_output "$(printf 'HOTP/T30\talice\t-\t%s' "$RFC_HEX")"
	assert_equal "$stderr" ""
	run -0 --separate-stderr otp-uri --to=oath \
	    "otpauth://totp/alice?secret=$K&image=https%3A%2F%2Fx&foo=1"
	assert_output "$(printf 'HOTP/T30\talice\t-\t%s' "$RFC_HEX")"
	assert_equal "$stderr" "otp-uri: warning: account 'alice': a users file cannot carry parameters image=, foo=; left out"
	run -0 --separate-stderr otp-uri -q --to=oath \
	    "otpauth://totp/alice?secret=$K&image=x"
	assert_equal "$stderr" ""
	# Only with --to=oath.
	run -2 otp-uri --drop-issuer --from=oath "$T/none"
	assert_output --partial "--drop-issuer goes with --to=oath"
	run -2 otp-uri --drop-issuer -A a "$K"
	assert_output --partial "--drop-issuer goes with --to=oath"
	run -2 otp-uri --to=oath --qr "otpauth://totp/a?secret=$K"
	assert_output --partial "--qr draws"
}

@test "--to=oath: a key over 32 bytes is written, with a warning that pam_oath cannot read it" {
	hex=$(printf '%02x' {1..33})
	uri=$(otp-uri -q -x -A big "$hex")
	run -0 --separate-stderr otp-uri --to=oath "$uri"
	assert_output "$(printf 'HOTP/T30\tbig\t-\t%s' "$hex")"
	[[ $stderr == *"warning: account 'big': pam_oath reads keys of 32 bytes at most, this one has 33"* ]]
	printf '%s\n' "$output" > "$T/users"
	chmod 600 "$T/users"
	run -0 otp-verify --usersfile="$T/users" --user=big -N "@$NOW" \
	    "$(oathtool --totp -N "@$NOW" "$hex")"
}

@test "--from=oath: MOTP lines and unknown types are named and skipped, exit 1; the rest converted" {
	printf '%s\n' '# users' '' \
	    "MOTP	mo	1234	0123456789abcdef" \
	    "HOTP/T30	alice	-	$RFC_HEX" \
	    "HOTP/T45	carol	-	$RFC_HEX" \
	    "YUBIKEY	dave	-	$RFC_HEX" \
	    "$K	erin" \
	    "HOTP	bob	-	$RFC_HEX	3" > "$T/users"
	run -1 --separate-stderr otp-uri --from=oath "$T/users"
	assert_output "otpauth://totp/alice?secret=$K
otpauth://hotp/bob?secret=$K&counter=3"
	assert_equal "${stderr_lines[0]}" "otp-uri: $T/users:3: user 'mo': a Mobile-OTP token has no otpauth:// form; skipped"
	assert_equal "${stderr_lines[1]}" "otp-uri: $T/users:5: user 'carol': unknown token type 'HOTP/T45'; skipped"
	assert_equal "${stderr_lines[2]}" "otp-uri: $T/users:6: user 'dave': unknown token type 'YUBIKEY'; skipped"
	# A first field that may be a key is not shown.
	assert_equal "${stderr_lines[3]}" "otp-uri: $T/users:7: user 'erin': unknown token type; skipped"
	[ "${#stderr_lines[@]}" -eq 4 ]
	# Nor the mOTP secret or PIN.
	! grep -q '0123456789abcdef\|1234' <<< "$stderr" || false
	# -q: no report, the same status.
	run -1 --separate-stderr otp-uri -q --from=oath "$T/users"
	assert_equal "$stderr" ""
	# Into an export: the skipped lines do not stop it.
	run -1 --separate-stderr otp-uri -q --from=oath --to=migration "$T/users"
	[[ $output == otpauth-migration://* ]]
}

@test "--from=oath: a PIN cannot be carried: a warning names the user, never the PIN, and the URI is written" {
	printf '%s\n' "HOTP/T30	alice	s3cr3tPIN	$RFC_HEX" \
	    "HOTP	bob	+	$RFC_HEX	7" > "$T/users"
	run -0 --separate-stderr otp-uri --from=oath "$T/users"
	assert_output "otpauth://totp/alice?secret=$K
otpauth://hotp/bob?secret=$K&counter=7"
	assert_equal "${stderr_lines[0]}" "otp-uri: warning: $T/users:1: user 'alice': a URI cannot carry the PIN; left out"
	assert_equal "${stderr_lines[1]}" "otp-uri: warning: $T/users:2: user 'bob': a URI cannot carry PASSWORD '+' (checked by another module); left out"
	! grep -q s3cr3tPIN <<< "$stderr" || false
	run -0 --separate-stderr otp-uri -q --from=oath "$T/users"
	assert_equal "$stderr" ""
}

@test "--from=oath: a malformed line is an error at FILE:LINE, the others still converted" {
	printf '%s\n' "HOTP/T30	alice	-	$RFC_HEX" \
	    "HOTP/T30	bob	-" \
	    "HOTP	carol	-	${RFC_HEX}zz" \
	    "HOTP	dave	-	$RFC_HEX	-1" \
	    "HOTP	erin	-	$RFC_HEX	1	123456	yesterday" \
	    "HOTP/T60	fred	-	$RFC_HEX" > "$T/users"
	run -2 --separate-stderr otp-uri --from=oath "$T/users"
	assert_output "otpauth://totp/alice?secret=$K
otpauth://totp/fred?secret=$K&period=60"
	assert_equal "$stderr" "otp-uri: $T/users:2: malformed token line in users file
otp-uri: $T/users:3: bad key in users file
otp-uri: $T/users:4: bad counter in users file
otp-uri: $T/users:5: bad last-login time in users file"
	# From standard input, named so.
	run -2 --separate-stderr otp-uri --from=oath < "$T/users"
	assert_equal "${stderr_lines[0]}" "otp-uri: standard input:2: malformed token line in users file"
	# Into an export, nothing is written.
	run -2 --separate-stderr otp-uri --from=oath --to=pskc "$T/users"
	assert_output ""
}

@test "--from=oath reads every INPUT file, - for standard input, in order; a user name with no URI form is an error" {
	printf 'HOTP/T30\ta\t-\t%s\n' "$RFC_HEX" > "$T/u1"
	printf 'HOTP/T30\tb\t-\t%s\n' "$RFC_HEX" > "$T/u2"
	printf 'HOTP/T30\tc\t-\t%s\r\n' "$RFC_HEX" > "$T/u3"
	run -0 otp-uri --from=oath "$T/u1" - "$T/u2" < "$T/u3"
	assert_output "otpauth://totp/a?secret=$K
otpauth://totp/c?secret=$K
otpauth://totp/b?secret=$K"
	run -2 --separate-stderr otp-uri --from=oath "$T/u1" "$T/nonexistent"
	assert_output "otpauth://totp/a?secret=$K"
	assert_equal "$stderr" "otp-uri: $T/nonexistent: No such file or directory"
	# Not UTF-8, a control character: named percent-encoded.
	printf 'HOTP/T30\tx\377y\t-\t%s\nHOTP/T30\tx\001y\t-\t%s\n' \
	    "$RFC_HEX" "$RFC_HEX" > "$T/u4"
	run -2 --separate-stderr otp-uri --from=oath "$T/u4"
	assert_output ""
	assert_equal "${stderr_lines[0]}" "otp-uri: $T/u4:1: user 'x%FFy' (percent-encoded): an account name must be UTF-8 text without control characters"
	assert_equal "${stderr_lines[1]}" "otp-uri: $T/u4:2: user 'x%01y' (percent-encoded): an account name must be UTF-8 text without control characters"
}

@test "--from=oath to the other formats: PSKC and an export, and back" {
	printf '%s\n' "HOTP/T30	alice	-	$RFC_HEX" \
	    "HOTP/E/8	bob	-	$RFC_HEX	9" > "$T/users"
	run -0 otp-uri --from=oath --to=pskc "$T/users"
	printf '%s\n' "$output" > "$T/x.pskc"
	run -0 bash -c "otp-uri --from=pskc '$T/x.pskc' | otp-uri --to=oath"
	diff -u "$T/users" - <<< "$output"
	run -0 bash -c "otp-uri --from=oath --to=migration '$T/users' |
	    otp-uri --from=migration --to=oath"
	diff -u "$T/users" - <<< "$output"
}

@test "man page EXAMPLES: Google Authenticator accounts into a users file, a code accepted, and back" {
	man=$BATS_TEST_DIRNAME/../man/otp-uri.1
	grep -qxF '$ otp-uri --from=migration --to=oath --drop-issuer -o new.oath "$EXPORT_URI"' "$man"
	grep -qxF '$ otp-uri --from=oath -o accounts /etc/users.oath' "$man"
	EXPORT_URI=$(otp-uri --to-migration \
	    "otpauth://totp/Example:alice?secret=JBSWY3DPEHPK3PXP&issuer=Example" \
	    "otpauth://hotp/Corp:bob?secret=$K&issuer=Corp&digits=8&counter=4")
	cd "$T"
	otp-uri --from=migration --to=oath --drop-issuer -o new.oath "$EXPORT_URI"
	[ "$(stat -c %a new.oath)" = 600 ]
	: > users.oath
	chmod 600 users.oath
	cat new.oath >> users.oath
	run -0 otp-verify --usersfile=users.oath --user=alice -N "@$NOW" \
	    "$(oathtool --totp -b -N "@$NOW" JBSWY3DPEHPK3PXP)"
	run -0 otp-verify --usersfile=users.oath --user=bob \
	    "$(oathtool --hotp -b -d 8 -c 4 "$K")"
	# Without --drop-issuer the issuers are refused, and nothing written.
	run -2 --separate-stderr otp-uri --from=migration --to=oath "$EXPORT_URI"
	assert_output ""
	[ "${#stderr_lines[@]}" -eq 2 ]
	run -0 otp-uri --from=oath -o accounts users.oath
	[ "$(stat -c %a accounts)" = 600 ]
	run -0 cat accounts
	assert_output "otpauth://totp/alice?secret=JBSWY3DPEHPK3PXP
otpauth://hotp/bob?secret=$K&digits=8&counter=5"
}

@test "pam_oath itself reads the lines --to=oath writes: each URI's code accepted" {
	local oath_so=/lib/x86_64-linux-gnu/security/pam_oath.so spec uri code
	[[ -f $oath_so ]] || fail "$oath_so missing (libpam-oath)"
	load pam/lib
	pam_setup_file
	pam_setup
	for spec in "--totp -d 6" "--totp -p 60 -d 8" "--totp -d 7" \
	    "--totp -p 60 -d 6" "--hotp -c 0 -d 6" "--hotp -c 41 -d 8" \
	    "--hotp -c 7 -d 7"; do
		# shellcheck disable=SC2086
		uri=$(otp-uri -q $spec -A "$PAM_USER" -x "$RFC_HEX")
		otp-uri --to=oath "$uri" > "$D/users"
		chmod 600 "$D/users"
		printf 'auth required %s usersfile=%s\n' "$oath_so" \
		    "$D/users" > "$D/svc/oath"
		secret=$(otp-uri --get=secret "$uri")
		digits=$(otp-uri --get=digits "$uri")
		if [[ $spec == --totp* ]]; then
			code=$(oathtool --totp -b -d "$digits" \
			    -s "$(otp-uri --get=period "$uri")s" -N "@$NOW" \
			    "$secret")
		else
			code=$(oathtool --hotp -b -d "$digits" \
			    -c "$(otp-uri --get=counter "$uri")" "$secret")
		fi
		pam_run oath 0000000
		refused
		pam_run oath "$code"
		accepted
		# What pam_oath wrote back reads as the same account, an HOTP
		# counter one on (its code used).
		run -0 otp-uri --from=oath "$D/users"
		if [[ $spec == --totp* ]]; then
			assert_output "$uri"
		else
			assert_output "${uri%&counter=*}&counter=$(($(otp-uri --get=counter "$uri") + 1))"
		fi
	done
}

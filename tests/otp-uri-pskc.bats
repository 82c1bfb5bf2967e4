#!/usr/bin/env bats
# otp-uri --from/--to and PSKC (RFC 6030, otp-uri(1) "PSKC"): the RFC's
# figures, round trips, both directions against python3-pskc (csv2pskc,
# pskc2csv) and pskctool's schema check, and the bad inputs.

bats_require_minimum_version 1.5.0
load common

setup() {
	T=$BATS_TEST_TMPDIR
	V=$VECTORS/pskc
	PEER=$BATS_TEST_DIRNAME/pskc-peer.py
	PSK=12345678901234567890123456789012
	printf qwerty > "$T/fig7pw"
	printf 'correct horse' > "$T/pw"
}

RFC_URI="otpauth://hotp/Issuer:987654321?secret=$RFC_B32&issuer=Issuer&digits=8&counter=0"

need_peers() {
	command -v pskctool >/dev/null || skip "pskctool not installed"
	"$PY" -c 'import pskc' 2>/dev/null || skip "python3-pskc not installed"
}

# Random awkward accounts through csv2pskc into otp-uri, and through
# otp-uri into pskctool and pskc2csv, for one protection mode.
# The set is random each run (PSKC_SEED=N repeats one); a failure shows
# the seed.
crosscheck() {
	local seed=${PSKC_SEED:-$1$RANDOM} n=$2 ours=$3 theirs=$4 D="$T/x$1"
	echo "crosscheck seed $seed (PSKC_SEED=$seed repeats it)"
	mkdir -p "$D/in"
	# Into otp-uri. csv2pskc guesses the CSV dialect of a file it can
	# seek, and some awkward names make it guess wrong (a CSV matter, not
	# PSKC's); through a pipe it reads the plain CSV the generator writes.
	"$PY" "$PEER" gen "$seed" "$n" "$D/in"
	# shellcheck disable=SC2002,SC2086
	cat "$D/in/in.csv" | "$PY" "$PEER" csv2pskc -e base32 $theirs \
	    > "$D/theirs.xml"
	# shellcheck disable=SC2086
	run --separate-stderr otp-uri -q --from=pskc $ours "$D/theirs.xml"
	assert_success
	printf '%s\n' "$output" | otp-uri -q --parse --json > "$D/got.json"
	"$PY" "$PEER" check-json "$D/in" "$D/got.json"
	# Out of otp-uri: every awkward character.
	"$PY" "$PEER" gen "$seed" "$n" "$D"
	# shellcheck disable=SC2086
	otp-uri -q --to=pskc $ours < "$D/uris" > "$D/ours.xml"
	pskctool -q -e "$D/ours.xml" 2>/dev/null
	# shellcheck disable=SC2086
	"$PY" "$PEER" pskc2csv -e base32 $theirs -c \
	    serial,secret,algorithm,algorithm_suite,response_length,counter,time_interval,issuer,key_userid \
	    "$D/ours.xml" > "$D/ours.csv"
	"$PY" "$PEER" check "$D" "$D/ours.csv"
	# And back: the same URIs, in order.
	# shellcheck disable=SC2086
	run -0 otp-uri -q --from=pskc $ours "$D/ours.xml"
	diff -u "$D/uris" - <<< "$output"
}

@test "RFC 6030 figure 2: a plain secret" {
	run -0 otp-uri --from=pskc "$V/rfc6030-figure2.pskcxml"
	assert_output "otpauth://hotp/Issuer-A:12345678?secret=$RFC_B32&issuer=Issuer-A&counter=0"
}

@test "RFC 6030 figure 5: names from Key/UserId, digits, counter" {
	run -0 otp-uri --from=pskc "$V/rfc6030-figure5.pskcxml"
	assert_output "otpauth://hotp/Issuer:UID%3Djsmith%2CDC%3Dexample-bank%2CDC%3Dnet?secret=$RFC_B32&issuer=Issuer&digits=8&counter=0"
}

@test "RFC 6030 figure 6: the pre-shared key, from the operand, @FILE and stdin" {
	run -0 otp-uri --from=pskc --pskc-key=$PSK "$V/rfc6030-figure6.pskcxml"
	assert_output "$RFC_URI"
	echo "$PSK" > "$T/k"
	run -0 otp-uri --from=pskc --pskc-key=@"$T/k" "$V/rfc6030-figure6.pskcxml"
	assert_output "$RFC_URI"
	run -0 otp-uri --from=pskc --pskc-key=- "$V/rfc6030-figure6.pskcxml" <<< "$PSK"
	assert_output "$RFC_URI"
	# The container from stdin, the key from a file.
	run -0 otp-uri --from=pskc --pskc-key=@"$T/k" < "$V/rfc6030-figure6.pskcxml"
	assert_output "$RFC_URI"
}

@test "RFC 6030 figure 7: the password (PBKDF2)" {
	run -0 otp-uri --from=pskc --pskc-password=@"$T/fig7pw" "$V/rfc6030-figure7.pskcxml"
	assert_output "otpauth://hotp/Example-Issuer:987654321?secret=$RFC_B32&issuer=Example-Issuer&digits=8&counter=0"
	run -0 otp-uri --from=pskc --pskc-password=- "$V/rfc6030-figure7.pskcxml" <<< qwerty
	assert_line --index 0 --partial "secret=$RFC_B32"
}

@test "wrong key, wrong password, none: exit 2, nothing printed, no secret" {
	run --separate-stderr otp-uri --from=pskc --pskc-key=00000000000000000000000000000000 "$V/rfc6030-figure6.pskcxml"
	assert_failure 2
	[ -z "$output" ]
	[[ $stderr == *"wrong key or password"* ]]
	printf qwertz > "$T/bad"
	run --separate-stderr otp-uri --from=pskc --pskc-password=@"$T/bad" "$V/rfc6030-figure7.pskcxml"
	assert_failure 2
	[ -z "$output" ]
	[[ $stderr == *"wrong key or password"* || $stderr == *"ValueMAC"* ]]
	[[ $stderr != *qwert* ]]
	run --separate-stderr otp-uri --from=pskc "$V/rfc6030-figure7.pskcxml"
	assert_failure 2
	[ "$stderr" = "otp-uri: $V/rfc6030-figure7.pskcxml: the container is encrypted with a password: give --pskc-password" ]
	run --separate-stderr otp-uri --from=pskc "$V/rfc6030-figure6.pskcxml"
	assert_failure 2
	[[ $stderr == *"pre-shared key named 'Pre-shared-key': give --pskc-key" ]]
	# A password where a key is needed, and the reverse.
	run --separate-stderr otp-uri --from=pskc --pskc-password=@"$T/fig7pw" "$V/rfc6030-figure6.pskcxml"
	assert_failure 2
	[[ $stderr == *"give --pskc-key"* ]]
}

@test "tampered ciphertext, tampered MAC, missing MAC: exit 2, never a garbage secret" {
	f=$V/rfc6030-figure6.pskcxml
	# One character of the secret's ciphertext changed.
	sed 's|AAECAwQFBgcICQoLDA0OD+cIHItlB3Wra1DUpxVvOx2lef1VmNPCMl8jwZqIUqGv|AAECAwQFBgcICQoLDA0OD+cIHItlB3Wra1DUpxVvOx2lef1VmNPCMl8jwZqIUqGw|' "$f" > "$T/c.xml"
	run --separate-stderr otp-uri --from=pskc --pskc-key=$PSK "$T/c.xml"
	assert_failure 2
	[ -z "$output" ]
	[[ $stderr == *"key '12345678': ValueMAC does not match"* ]]
	sed 's|Su+NvtQfmvfJzF6bmQiJqoLRExc=|Su+NvtQfmvfJzF6bmQiJqoLRFxc=|' "$f" > "$T/m.xml"
	run --separate-stderr otp-uri --from=pskc --pskc-key=$PSK "$T/m.xml"
	assert_failure 2
	[[ $stderr == *"ValueMAC does not match"* ]]
	grep -v 'ValueMAC\|Su+Nv' "$f" > "$T/n.xml"
	run --separate-stderr otp-uri --from=pskc --pskc-key=$PSK "$T/n.xml"
	assert_failure 2
	[[ $stderr == *"without a MAC"* ]]
}

@test "keys with no otpauth form are named and skipped, exit 1; the rest is written" {
	f=$V/rfc6030-figure5.pskcxml
	sed 's|pskc:hotp"|pskc:ocra"|; s|Id="12345678"|Id="OCRA-1"|' "$f" > "$T/ocra.xml"
	# Two packages: the OCRA key and the figure's.
	{ sed '/<\/KeyContainer>/d' "$T/ocra.xml"; sed -n '/<KeyPackage>/,/<\/KeyPackage>/p' "$f"; echo '</KeyContainer>'; } > "$T/two.xml"
	run --separate-stderr otp-uri --from=pskc "$T/two.xml"
	assert_failure 1
	assert_output --partial "secret=$RFC_B32"
	[[ $stderr == *"key 'OCRA-1': key type has no otpauth:// form"*"; skipped" ]]
	run --separate-stderr otp-uri -q --from=pskc "$T/two.xml"
	assert_failure 1
	[ -z "$stderr" ]
	# T0 other than 0, and a drift.
	sed 's|pskc:hotp"|pskc:totp"|; s|<Counter>|<Time><PlainValue>100</PlainValue></Time><Counter>|' "$f" > "$T/t0.xml"
	run --separate-stderr otp-uri --from=pskc "$T/t0.xml"
	assert_failure 1
	[[ $stderr == *"start time is not 0"* ]]
	sed 's|pskc:hotp"|pskc:totp"|; s|<Counter>|<TimeDrift><PlainValue>4</PlainValue></TimeDrift><Counter>|' "$f" > "$T/drift.xml"
	run --separate-stderr otp-uri --from=pskc "$T/drift.xml"
	assert_failure 1
	[[ $stderr == *"time drift"* ]]
	# A TOTP key: period from TimeInterval, T0 0 is fine.
	sed 's|pskc:hotp"|pskc:totp"|; s|<Counter>|<Time><PlainValue>0</PlainValue></Time><TimeInterval><PlainValue>60</PlainValue></TimeInterval><Counter>|' "$f" > "$T/totp.xml"
	run -0 otp-uri --from=pskc "$T/totp.xml"
	assert_output "otpauth://totp/Issuer:UID%3Djsmith%2CDC%3Dexample-bank%2CDC%3Dnet?secret=$RFC_B32&issuer=Issuer&digits=8&period=60"
}

@test "suites HMAC-SHA256/512 and a 4-digit key" {
	f=$V/rfc6030-figure5.pskcxml
	sed 's|<ResponseFormat|<Suite>HMAC-SHA512</Suite><ResponseFormat|' "$f" > "$T/s.xml"
	run -0 otp-uri --from=pskc "$T/s.xml"
	assert_output --partial "algorithm=SHA512&digits=8"
	sed 's|<ResponseFormat|<Suite>HMAC-MD5</Suite><ResponseFormat|' "$f" > "$T/md5.xml"
	run --separate-stderr otp-uri --from=pskc "$T/md5.xml"
	assert_failure 1
	sed 's|Length="8"|Length="4"|' "$f" > "$T/d4.xml"
	run --separate-stderr otp-uri --from=pskc "$T/d4.xml"
	assert_failure 1
	[[ $stderr == *"digits out of range"*skipped ]]
}

@test "bad input: DTD, external entity, entity bomb, >1 MiB, truncated, not PSKC, no secret, unknown cipher" {
	f=$V/rfc6030-figure2.pskcxml
	printf '<?xml version="1.0"?>\n<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>\n<KeyContainer xmlns="urn:ietf:params:xml:ns:keyprov:pskc" Version="1.0"><KeyPackage><Key Id="&e;" Algorithm="urn:ietf:params:xml:ns:keyprov:pskc:hotp"><Data><Secret><PlainValue>MTIz</PlainValue></Secret></Data></Key></KeyPackage></KeyContainer>\n' > "$T/xxe.xml"
	{ printf '<?xml version="1.0"?>\n<!DOCTYPE l [<!ENTITY a "aaaaaaaaaa">'
	  p=a; for i in b c d e f g h i j; do printf '<!ENTITY %s "&%s;&%s;&%s;&%s;&%s;&%s;&%s;&%s;&%s;&%s;">' $i $p $p $p $p $p $p $p $p $p $p; p=$i; done
	  printf ']>\n<KeyContainer xmlns="urn:ietf:params:xml:ns:keyprov:pskc" Version="1.0"><KeyPackage><Key Id="&j;"/></KeyPackage></KeyContainer>\n'; } > "$T/bomb.xml"
	for x in xxe bomb; do
		run --separate-stderr timeout 10 otp-uri --from=pskc "$T/$x.xml"
		assert_failure 2
		[ -z "$output" ]
		[[ $stderr == *"DTD or entity references"* ]]
		[[ $stderr != *root:* ]]
	done
	# Encoded otherwise, a DOCTYPE is still refused: the file is UTF-8.
	iconv -f UTF-8 -t UTF-16 "$T/xxe.xml" > "$T/u16.xml"
	run --separate-stderr otp-uri --from=pskc "$T/u16.xml"
	assert_failure 2
	{ sed '$d' "$f"; head -c 1100000 /dev/zero | tr '\0' ' '; echo '</KeyContainer>'; } > "$T/big.xml"
	run --separate-stderr otp-uri --from=pskc "$T/big.xml"
	assert_failure 2
	[[ $stderr == *"larger than 1 MiB"* ]]
	head -c 300 "$f" > "$T/trunc.xml"
	run --separate-stderr otp-uri --from=pskc "$T/trunc.xml"
	assert_failure 2
	[[ $stderr == *"malformed PSKC container (XML error at line"* ]]
	echo '<a/>' > "$T/other.xml"
	run --separate-stderr otp-uri --from=pskc "$T/other.xml"
	assert_failure 2
	[[ $stderr == *"malformed PSKC container"* ]]
	grep -v 'PlainValue\|MTIz' "$f" > "$T/nosecret.xml"
	run --separate-stderr otp-uri --from=pskc "$T/nosecret.xml"
	assert_failure 2
	[[ $stderr == *"key '12345678': key has no secret"* ]]
	sed 's|aes128-cbc|kw-aes128|g' "$V/rfc6030-figure6.pskcxml" > "$T/kw.xml"
	run --separate-stderr otp-uri --from=pskc --pskc-key=$PSK "$T/kw.xml"
	assert_failure 2
	[[ $stderr == *"unknown encryption, MAC or key derivation algorithm"* ]]
	sed 's|pkcs-5v2-0#pbkdf2|pkcs-5v2-0#scrypt|' "$V/rfc6030-figure7.pskcxml" > "$T/kdf.xml"
	run --separate-stderr otp-uri --from=pskc --pskc-password=@"$T/fig7pw" "$T/kdf.xml"
	assert_failure 2
	[[ $stderr == *"unknown encryption, MAC or key derivation algorithm"* ]]
	run --separate-stderr otp-uri --from=pskc "$T/missing.xml"
	assert_failure 2
	[[ $stderr == *"missing.xml: No such file or directory" ]]
}

@test "export: schema-valid plain, key and password files; LinOTP's serials; numbers plain" {
	need_peers
	U1="otpauth://totp/A%26B:c%3Cd%3E?secret=$RFC_B32&issuer=A%26B&algorithm=SHA256&digits=8&period=60"
	U2="otpauth://hotp/bob?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&digits=7&counter=42"
	printf '%s\n%s\n' "$U1" "$U2" > "$T/in"
	otp-uri --to=pskc < "$T/in" > "$T/plain.xml"
	otp-uri --to=pskc --pskc-key=$PSK < "$T/in" > "$T/key.xml"
	otp-uri --to=pskc --pskc-password=@"$T/pw" < "$T/in" > "$T/pw.xml"
	for m in plain key pw; do
		pskctool -q -e "$T/$m.xml" 2>/dev/null
		grep -q 'Version="1.0"' "$T/$m.xml"
		[ "$(grep -c 'Encoding="DECIMAL"' "$T/$m.xml")" = 2 ]
		grep -q '<pskc:TimeInterval>' "$T/$m.xml"
		grep -A1 '<pskc:Counter>' "$T/$m.xml" | grep -q '<pskc:PlainValue>42<'
		grep -Eq '<pskc:SerialNo>TOTP[0-9A-F]{8}</pskc:SerialNo>' "$T/$m.xml"
		grep -Eq '<pskc:Key Id="HOTP[0-9A-F]{8}"' "$T/$m.xml"
	done
	! grep -q MTIzNDU2Nzg5MDEyMzQ1Njc4OTA "$T/key.xml" "$T/pw.xml" || false
	grep -q '<IterationCount>100000</IterationCount>' "$T/pw.xml"
	[ "$(grep -c '<pskc:ValueMAC>' "$T/key.xml")" = 2 ]
	# Each run draws a new salt, IVs and MAC key.
	otp-uri --to=pskc --pskc-password=@"$T/pw" < "$T/in" > "$T/pw2.xml"
	[ "$(grep -c '<xenc:CipherValue>' "$T/pw.xml")" = 3 ]
	! cmp -s <(grep -A0 -e CipherValue -e Specified "$T/pw.xml") <(grep -A0 -e CipherValue -e Specified "$T/pw2.xml") || false
	# Back again, in every mode.
	run -0 otp-uri --from=pskc "$T/plain.xml"
	assert_output "$(cat "$T/in")"
	run -0 otp-uri --from=pskc --pskc-key=$PSK "$T/key.xml"
	assert_output "$(cat "$T/in")"
	run -0 otp-uri --from=pskc --pskc-password=@"$T/pw" "$T/pw.xml"
	assert_output "$(cat "$T/in")"
}

@test "crosscheck with python3-pskc: plain, both directions" {
	need_peers
	crosscheck 1 25 "" ""
}

@test "crosscheck with python3-pskc: pre-shared key, both directions" {
	need_peers
	crosscheck 2 25 "--pskc-key=$PSK" "-s $PSK"
}

@test "crosscheck with python3-pskc: password, both directions" {
	need_peers
	crosscheck 3 25 "--pskc-password=@$T/pw" "-p $T/pw"
}

@test "--from and --to between formats; the old migration options are aliases" {
	U="otpauth://totp/Ex:al?secret=$RFC_B32&issuer=Ex"
	run -0 otp-uri -q --to=migration "$U"
	M=$output
	run -0 otp-uri -q --to-migration "$U"
	run -0 otp-uri --from=migration "$M"
	assert_output "$U"
	run -0 otp-uri --from=migration --to=pskc "$M"
	printf '%s\n' "$output" > "$T/m.xml"
	run -0 otp-uri --from=pskc --to=migration "$T/m.xml"
	run -0 otp-uri --from-migration "$output"
	assert_output "$U"
	run -0 otp-uri --from=uri --to=uri "$U"
	assert_output "$U"
	# A refused account: no export at all.
	run --separate-stderr otp-uri --to=pskc "otpauth://steam/S:b?secret=$RFC_B32" "$U"
	assert_failure 2
	[ -z "$output" ]
	[[ $stderr == *"cannot carry a Steam account (URI 1); no export written" ]]
}

@test "usage errors of --from, --to and the PSKC options" {
	for args in "--from=xml" "--to=csv" "--from=pskc --parse" \
	    "--pskc-key=$PSK" "--to=migration --pskc-key=$PSK" \
	    "--to=pskc --pskc-key=$PSK --pskc-password=-" \
	    "--to=pskc --pskc-password=secret" "--to=pskc --qr" \
	    "--from=pskc --pskc-key=-" "--from=pskc -x" \
	    "--to=pskc --pskc-password=-" "--from=pskc --pskc-key=- - x"; do
		# shellcheck disable=SC2086
		run --separate-stderr otp-uri $args < /dev/null
		assert_failure 2
		[ -z "$output" ]
		[[ $stderr == otp-uri:* ]] || { echo "$args: $stderr"; false; }
	done
	run --separate-stderr otp-uri --to=pskc --pskc-key=1234 "otpauth://totp/x?secret=$RFC_B32"
	assert_failure 2
	[[ $stderr == *"--pskc-key: key length does not fit"* ]]
	[[ $stderr != *1234* ]]
}

@test "no secret in any message" {
	f=$V/rfc6030-figure6.pskcxml
	sed 's|Su+NvtQfmvfJzF6bmQiJqoLRExc=|Su+NvtQfmvfJzF6bmQiJqoLRFxc=|' "$f" > "$T/m.xml"
	for args in "--pskc-key=$PSK $T/m.xml" "--pskc-key=${PSK}00 $f" \
	    "--pskc-key=${PSK%?}x $f" "$f" "--pskc-key=00${PSK#??} $f"; do
		# shellcheck disable=SC2086
		run --separate-stderr otp-uri --from=pskc $args
		assert_failure 2
		for s in "$PSK" "${PSK#??}" "$RFC_B32" "$RFC_HEX" MTIzNDU2 \
		    AAECAwQFBgcICQoLDA0OD Su+Nvt; do
			[[ $stderr != *"$s"* ]] || { echo "$args: $stderr"; false; }
		done
	done
}

@test "the PSKC password and key typed at a terminal are asked for and not echoed" {
	local pty=$BATS_TEST_DIRNAME/pty-answer.py
	run "$pty" 'key: ' qwerty otp-uri --from=pskc --pskc-password=- "$V/rfc6030-figure7.pskcxml"
	assert_success
	assert_output --partial "otp-uri: key: "
	assert_output --partial "secret=$RFC_B32"
	refute_output --partial qwerty
	run "$pty" 'key: ' "$PSK" otp-uri --from=pskc --pskc-key=- "$V/rfc6030-figure6.pskcxml"
	assert_success
	assert_output --partial "secret=$RFC_B32"
	refute_output --partial "$PSK"
}

@test "an export never exceeds the 1 MiB the reader takes: refused whole, nothing written" {
	for i in $(seq 1 1500); do
		printf 'otpauth://totp/Issuer%%20%04d:user%04d%%40example.com?secret=%s&issuer=Issuer%%20%04d\n' "$i" "$i" "$RFC_B32" "$i"
	done > "$T/many"
	run --separate-stderr otp-uri --to=pskc --pskc-key=$PSK < "$T/many"
	assert_failure 2
	[ -z "$output" ]
	[[ $stderr == *"1500 accounts make a file larger than 1 MiB"* ]]
	head -n 700 "$T/many" > "$T/some"
	otp-uri --to=pskc --pskc-key=$PSK < "$T/some" > "$T/some.xml"
	run -0 otp-uri --from=pskc --pskc-key=$PSK "$T/some.xml"
	[ "$output" = "$(cat "$T/some")" ]
}

@test "an encrypted container takes no plain secret: a KeyPackage added or a seed swapped is refused, naming the key" {
	f=$V/figure6-plain-package.pskcxml
	run -2 --separate-stderr otp-uri --from=pskc --pskc-key=$PSK "$f"
	assert_output ""
	assert_equal "$stderr" "otp-uri: $f: key 'injected' (serial '987654322'): secret in plain text in an encrypted container (neither its key nor its MAC protects it)"
	# Figure 6's own seed swapped for one in plain text (its Counter is
	# plain in the figure itself, and read: the test of figure 6 above).
	sed '/<EncryptedValue>/,/<\/ValueMAC>/c\
<PlainValue>QUFBQUFBQUFBQUFBQUFBQUFBQUE=</PlainValue>' \
	    "$V/rfc6030-figure6.pskcxml" > "$T/swap.xml"
	run -2 --separate-stderr otp-uri --from=pskc --pskc-key=$PSK "$T/swap.xml"
	assert_output ""
	assert_equal "$stderr" "otp-uri: $T/swap.xml: key '12345678' (serial '987654321'): secret in plain text in an encrypted container (neither its key nor its MAC protects it)"
	# Into an export too: nothing written.
	run -2 --separate-stderr otp-uri --from=pskc --to=oath --pskc-key=$PSK "$T/swap.xml"
	assert_output ""
	[[ $stderr != *QUFB* && $stderr != *MTIz* ]]
}

@test "python-pskc's encrypted files: a plain KeyPackage spliced in, a secret swapped: refused; a plain file where a key or password is given: refused unless --allow-plain" {
	need_peers
	printf '%s\n' serial,secret,algorithm,counter \
	    "PEER00000001,$RFC_B32,urn:ietf:params:xml:ns:keyprov:pskc:hotp,5" \
	    > "$T/a.csv"
	printf '%s\n' serial,secret,algorithm,counter \
	    "EVIL00000002,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA,urn:ietf:params:xml:ns:keyprov:pskc:hotp,0" \
	    > "$T/evil.csv"
	"$PY" "$PEER" csv2pskc -e base32 -s $PSK "$T/a.csv" > "$T/key.xml"
	"$PY" "$PEER" csv2pskc -e base32 -p "$T/pw" "$T/a.csv" > "$T/pw.xml"
	"$PY" "$PEER" csv2pskc -e base32 "$T/evil.csv" > "$T/evil.xml"
	want="otpauth://hotp/PEER00000001?secret=$RFC_B32&counter=5"
	run -0 otp-uri --from=pskc --pskc-key=$PSK "$T/key.xml"
	assert_output "$want"
	run -0 otp-uri --from=pskc --pskc-password=@"$T/pw" "$T/pw.xml"
	assert_output "$want"
	for m in key pw; do
		[ $m = key ] && k=--pskc-key=$PSK || k=--pskc-password=@$T/pw
		# The attacker's KeyPackage added to the container.
		{ sed '$d' "$T/$m.xml"
		  sed -n '/<pskc:KeyPackage>/,/<\/pskc:KeyPackage>/p' "$T/evil.xml"
		  echo '</pskc:KeyContainer>'; } > "$T/$m-added.xml"
		run -2 --separate-stderr otp-uri --from=pskc "$k" "$T/$m-added.xml"
		assert_output ""
		assert_equal "$stderr" "otp-uri: $T/$m-added.xml: key 2 (serial 'EVIL00000002'): secret in plain text in an encrypted container (neither its key nor its MAC protects it)"
		# The genuine seed swapped for the attacker's.
		sed '/<pskc:EncryptedValue>/,/<pskc:ValueMAC>/c\
<pskc:PlainValue>AAAAAAAAAAAAAAAAAAAAAAAAAAA=</pskc:PlainValue>' \
		    "$T/$m.xml" > "$T/$m-swap.xml"
		run -2 --separate-stderr otp-uri --from=pskc "$k" "$T/$m-swap.xml"
		assert_output ""
		assert_equal "$stderr" "otp-uri: $T/$m-swap.xml: key 1 (serial 'PEER00000001'): secret in plain text in an encrypted container (neither its key nor its MAC protects it)"
		# A whole plain file in the encrypted one's place.
		run -2 --separate-stderr otp-uri --from=pskc "$k" "$T/evil.xml"
		assert_output ""
		assert_equal "$stderr" "otp-uri: $T/evil.xml: key 1 (serial 'EVIL00000002'): the container is not encrypted, but a key or password was given (its secrets are not protected); --allow-plain reads it"
		run -2 --separate-stderr otp-uri --from=pskc --to=pskc "$k" "$T/evil.xml"
		assert_output ""
		# Asked for, it is read as without the key.
		run -0 --separate-stderr otp-uri --from=pskc --allow-plain "$k" "$T/evil.xml"
		assert_output "otpauth://hotp/EVIL00000002?secret=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA&counter=0"
		# --allow-plain does not let a plain secret into an encrypted
		# container.
		run -2 otp-uri --from=pskc --allow-plain "$k" "$T/$m-added.xml"
	done
	# Re-encrypting a plain file says so: --allow-plain.
	run -0 otp-uri --from=pskc --to=pskc --allow-plain --pskc-key=$PSK "$T/evil.xml"
	printf '%s\n' "$output" > "$T/re.xml"
	run -0 otp-uri --from=pskc --pskc-key=$PSK "$T/re.xml"
	assert_output "otpauth://hotp/EVIL00000002?secret=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA&counter=0"
	# Without a key or input PSKC, --allow-plain is a usage error.
	run -2 otp-uri --from=pskc --allow-plain "$T/evil.xml"
	run -2 otp-uri --to=pskc --allow-plain --pskc-key=$PSK "$want"
}

# A vendor's file as python-pskc writes it, encrypted with $T/pw: a DN as
# the first token's user, no user for the second, a Key Id on the first
# and the third.
vendor_file() {
	printf '%s\n' id,serial,secret,algorithm,counter,time_interval,issuer,key_userid \
	    "K-1,VNDR00000001,$RFC_B32,urn:ietf:params:xml:ns:keyprov:pskc:hotp,5,,Vendor,\"CN=J Smith,O=Vendor\"" \
	    ",VNDR00000002,JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP,urn:ietf:params:xml:ns:keyprov:pskc:totp,,30,Vendor," \
	    "K-3,VNDR00000003,$RFC_B32,urn:ietf:params:xml:ns:keyprov:pskc:totp,,60,Vendor," \
	    > "$T/vendor.csv"
	"$PY" "$PEER" csv2pskc -e base32 -p "$T/pw" "$T/vendor.csv" > "$1"
}

@test "--map assigns a vendor's tokens to logins by serial or Key Id: python-pskc's file into users-file lines that log in" {
	need_peers
	vendor_file "$T/v.pskc"
	# Without a map the vendor's names become the users: a DN, a serial.
	run -2 --separate-stderr otp-uri --from=pskc --to=oath --drop-issuer \
	    --pskc-password=@"$T/pw" "$T/v.pskc"
	[[ $stderr == *"account 'CN=J Smith,O=Vendor'"*"white space"* ]]
	printf '%s\n' '# vendor serial or key id -> login' \
	    'VNDR00000001	alice' '' '  VNDR00000002   bob  ' 'K-3 alice' > "$T/map"
	run -0 --separate-stderr otp-uri --from=pskc --to=oath --drop-issuer \
	    --pskc-password=@"$T/pw" --map="$T/map" -o "$T/users" "$T/v.pskc"
	assert_equal "$stderr" ""
	diff -u - "$T/users" <<-LINES
	HOTP	alice	-	$RFC_HEX	5
	HOTP/T30	bob	-	48656c6c6f21deadbeef48656c6c6f21deadbeef
	HOTP/T60	alice	-	$RFC_HEX
	LINES
	cp "$T/users" "$T/want"
	# The lines log the logins in: each code as oathtool computes it.
	run -0 otp-verify --usersfile="$T/users" --user=bob -N @1700000000 \
	    "$(oathtool --totp -b -N @1700000000 JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP)"
	run -0 otp-verify --usersfile="$T/users" --user=alice \
	    "$(oathtool --hotp -c 5 "$RFC_HEX")"
	run -0 otp-verify --usersfile="$T/users" --user=alice -N @1700000000 \
	    "$(oathtool --totp -s 60s -N @1700000000 "$RFC_HEX")"
	# Into URIs and PSKC the login is the account, the issuer kept.
	run -0 otp-uri --from=pskc --pskc-password=@"$T/pw" --map="$T/map" "$T/v.pskc"
	assert_line --index 0 "otpauth://hotp/Vendor:alice?secret=$RFC_B32&issuer=Vendor&counter=5"
	assert_line --index 1 "otpauth://totp/Vendor:bob?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Vendor"
	# The man page's example, as it reads, on the first two tokens.
	man=$BATS_TEST_DIRNAME/../man/otp-uri.1
	grep -qxF '$ otp-uri --from=pskc --to=oath --drop-issuer --map=tokens.map \e' "$man"
	grep -qxF '    --pskc-password=@vendor.pw -o new.oath vendor.pskc' "$man"
	sed -n '/^\$ cat tokens.map$/,/^\$ otp-uri/p' "$man" | sed '1d;$d' > "$T/tokens.map"
	[ "$(wc -l < "$T/tokens.map")" = 3 ]
	head -n 3 "$T/vendor.csv" | "$PY" "$PEER" csv2pskc -e base32 -p "$T/pw" > "$T/vendor.pskc"
	cp "$T/pw" "$T/vendor.pw"
	cd "$T"
	otp-uri --from=pskc --to=oath --drop-issuer --map=tokens.map \
	    --pskc-password=@vendor.pw -o new.oath vendor.pskc
	[ "$(stat -c %a new.oath)" = 600 ]
	head -n 2 want | cmp - new.oath
}

@test "--map: an unmapped token refuses the whole conversion, each named; --skip-unmapped skips them (exit 1); map lines that name no key are warned of" {
	need_peers
	vendor_file "$T/v.pskc"
	otp-uri -q --to=pskc --pskc-password=@"$T/pw" -o "$T/ours.pskc" \
	    "otpauth://totp/x?secret=$RFC_B32"
	serial=$(sed -n 's|.*<pskc:SerialNo>\(.*\)</pskc:SerialNo>.*|\1|p' "$T/ours.pskc")
	printf '%s\n' "$serial carol" 'VNDR00000002 bob' > "$T/map"
	# Our own file first, fully mapped: still nothing written, on
	# standard output either.
	run -2 --separate-stderr otp-uri --from=pskc --pskc-password=@"$T/pw" \
	    --map="$T/map" "$T/ours.pskc" "$T/v.pskc"
	assert_output ""
	assert_equal "${stderr_lines[0]}" "otp-uri: $T/v.pskc: key 'K-1' (serial 'VNDR00000001'): neither its serial nor its Id is in $T/map (--skip-unmapped skips it); no export written"
	assert_equal "${stderr_lines[1]}" "otp-uri: $T/v.pskc: key 'K-3' (serial 'VNDR00000003'): neither its serial nor its Id is in $T/map (--skip-unmapped skips it); no export written"
	[ "${#stderr_lines[@]}" -eq 2 ]
	run -2 otp-uri --from=pskc --to=oath --pskc-password=@"$T/pw" \
	    --map="$T/map" -o "$T/users" "$T/ours.pskc" "$T/v.pskc"
	[ ! -e "$T/users" ]
	run -1 --separate-stderr otp-uri --from=pskc --to=oath --drop-issuer \
	    --pskc-password=@"$T/pw" --map="$T/map" --skip-unmapped "$T/ours.pskc" "$T/v.pskc"
	assert_output "$(printf 'HOTP/T30\tcarol\t-\t%s\nHOTP/T30\tbob\t-\t%s' "$RFC_HEX" 48656c6c6f21deadbeef48656c6c6f21deadbeef)"
	assert_equal "${stderr_lines[0]}" "otp-uri: $T/v.pskc: key 'K-1' (serial 'VNDR00000001'): neither its serial nor its Id is in $T/map; skipped"
	[ "${#stderr_lines[@]}" -eq 2 ]
	run -1 --separate-stderr otp-uri -q --from=pskc --pskc-password=@"$T/pw" \
	    --map="$T/map" --skip-unmapped "$T/v.pskc"
	assert_equal "$stderr" ""
	# A line that names no key is likely a typing mistake.
	printf '%s\n' 'VNDR00000001 alice' 'VNDR0000002 bob' 'K-3 carol' 'VNDR00000002 bob' > "$T/map2"
	run -0 --separate-stderr otp-uri --from=pskc --pskc-password=@"$T/pw" --map="$T/map2" "$T/v.pskc"
	assert_equal "$stderr" "otp-uri: warning: --map: $T/map2:2: no key has the serial or Id 'VNDR0000002'"
	# A serial and an Id that name the same key for two logins.
	printf '%s\n' 'VNDR00000001 alice' 'K-1 mallory' 'VNDR00000002 bob' 'K-3 carol' > "$T/map3"
	run -2 --separate-stderr otp-uri --from=pskc --pskc-password=@"$T/pw" --map="$T/map3" "$T/v.pskc"
	assert_output ""
	assert_equal "$stderr" "otp-uri: $T/v.pskc: key 'K-1' (serial 'VNDR00000001'): its serial and its Id are mapped to different logins ($T/map3 lines 1 and 2)"
}

@test "--map files: a bad line is an error at FILE:LINE before any password is asked; usage errors of --map and --skip-unmapped" {
	f=$V/rfc6030-figure7.pskcxml
	for c in "a|not a line \"SERIAL-OR-KEYID LOGIN\"" \
	    "a b c|not a line" \
	    "a b\na c|2: 'a' is mapped on line 1 already" \
	    $'a b\001c|1: the login \'b%01c\' (percent-encoded) is not UTF-8 text' \
	    $'a b\377|the login \'b%FF\' (percent-encoded)'; do
		printf "${c%%|*}\n" > "$T/m"
		run -2 --separate-stderr bash -c 'otp-uri --from=pskc --pskc-password=- --map="$1" "$2"; rc=$?; cat; exit $rc' \
		    _ "$T/m" "$f" <<< qwerty
		assert_output qwerty
		[[ $stderr == "otp-uri: --map: $T/m:"*"${c#*|}"* ]] || fail "$c: $stderr"
		[ "${#stderr_lines[@]}" -eq 1 ]
	done
	run -2 --separate-stderr otp-uri --from=pskc --map="$T/none" "$f"
	assert_equal "$stderr" "otp-uri: --map: $T/none: No such file or directory"
	printf '987654321 alice\n' > "$T/m"
	run -0 otp-uri --from=pskc --pskc-password=@"$T/fig7pw" --map="$T/m" "$f"
	assert_output "otpauth://hotp/Example-Issuer:alice?secret=$RFC_B32&issuer=Example-Issuer&digits=8&counter=0"
	for args in "--map=$T/m --to=oath otpauth://totp/a?secret=$RFC_B32" \
	    "--map=$T/m --from=oath $T/m" "--skip-unmapped --from=pskc $f" \
	    "--map=$T/m -A bob --from=pskc $f" "--map=$T/m --parse"; do
		# shellcheck disable=SC2086
		run -2 --separate-stderr otp-uri $args < /dev/null
		assert_output ""
		[[ ${stderr_lines[-1]} == "Try 'otp-uri --help' for more information." ]] ||
		    fail "$args: $stderr"
	done
}

@test "-A names the one account of a conversion; a second account is an error and nothing is written" {
	run -0 otp-uri --from=pskc --to=oath -A jsmith --drop-issuer "$V/rfc6030-figure5.pskcxml"
	assert_output "$(printf 'HOTP/E/8\tjsmith\t-\t%s' "$RFC_HEX")"
	run -0 otp-uri --from=pskc --pskc-key=$PSK -A jsmith "$V/rfc6030-figure6.pskcxml"
	assert_output "otpauth://hotp/Issuer:jsmith?secret=$RFC_B32&issuer=Issuer&digits=8&counter=0"
	run -0 otp-uri --to=oath --account=bob "otpauth://totp/Ex:phone%20name?secret=$RFC_B32" --drop-issuer
	assert_output "$(printf 'HOTP/T30\tbob\t-\t%s' "$RFC_HEX")"
	run -0 otp-uri --from=uri -A bob "otpauth://totp/Ex:x?secret=$RFC_B32&issuer=Ex"
	assert_output "otpauth://totp/Ex:bob?secret=$RFC_B32&issuer=Ex"
	# A key skipped does not count.
	f=$V/rfc6030-figure5.pskcxml
	sed 's|pskc:hotp"|pskc:ocra"|; s|Id="12345678"|Id="OCRA-1"|' "$f" > "$T/ocra.xml"
	{ sed '/<\/KeyContainer>/d' "$T/ocra.xml"; sed -n '/<KeyPackage>/,/<\/KeyPackage>/p' "$f"; echo '</KeyContainer>'; } > "$T/two.xml"
	run -1 otp-uri -q --from=pskc -A carol "$T/two.xml"
	assert_output "otpauth://hotp/Issuer:carol?secret=$RFC_B32&issuer=Issuer&digits=8&counter=0"
	# Two accounts: for --to=uri too, nothing is printed.
	for to in uri oath pskc migration; do
		run -2 --separate-stderr otp-uri --to=$to -A bob "otpauth://totp/a?secret=$RFC_B32" "otpauth://totp/b?secret=$RFC_B32"
		assert_output ""
		assert_equal "$stderr" "otp-uri: -A/--account names one account, and the input holds more (URI 2); no export written (--map names several PSKC keys)"
	done
	run -2 --separate-stderr otp-uri --parse -A bob "otpauth://totp/a?secret=$RFC_B32"
	[[ $stderr == *"-A/--account names the account built or converted"* ]]
}

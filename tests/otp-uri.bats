#!/usr/bin/env bats
# otp-uri: every option and mode, the hard cases of key URIs and
# migration exports (otp-uri(1) "Reading URIs", "Export format"), QR codes
# scanned back with zbarimg.

bats_require_minimum_version 1.5.0
load common

setup() {
	T=$BATS_TEST_TMPDIR
}

EX='otpauth://totp/Example:alice%40google.com?secret=JBSWY3DPEHPK3PXP&issuer=Example'
# The sample export of otp-uri(1)'s EXAMPLES.
MIG='otpauth-migration://offline?data=CjEKCkhlbGxvId6tvu8SGEV4YW1wbGU6YWxpY2VAZ29vZ2xlLmNvbRoHRXhhbXBsZTAC'

# A QR code drawn with --qr=ascii ("##" a dark module, "  " a light one)
# as a plain PBM image, each module 4 pixels wide.
ascii_to_pbm() {
	awk '{ rows[NR] = $0; if (length($0) > w) w = length($0) }
	END {
		s = 4; mw = int(w / 2)
		printf "P1\n%d %d\n", mw * s, NR * s
		for (y = 1; y <= NR; y++) {
			line = ""
			for (x = 0; x < mw; x++) {
				c = substr(rows[y], 2 * x + 1, 1) == "#" ? 1 : 0
				for (k = 0; k < s; k++) line = line c " "
			}
			for (k = 0; k < s; k++) print line
		}
	}'
}

# The same for --qr=utf8: each character holds two modules, the glyph
# drawing the light ones ("█" both, "▀" top, "▄" bottom, " " none);
# "utf8_to_pbm inverted" for --qr=utf8-inverted, the glyph drawing the
# dark ones.
utf8_to_pbm() {
	LC_ALL=C sed -e 's/\xe2\x96\x88/a/g' -e 's/\xe2\x96\x80/b/g' \
	    -e 's/\xe2\x96\x84/c/g' -e 's/ /d/g' |
	    awk -v inv="$([ "${1-}" = inverted ] && echo 1 || echo 0)" '
	{ rows[NR] = $0; if (length($0) > w) w = length($0) }
	END {
		s = 4
		printf "P1\n%d %d\n", w * s, 2 * NR * s
		for (y = 1; y <= NR; y++) {
			top = ""; bot = ""
			for (x = 1; x <= w; x++) {
				g = substr(rows[y], x, 1)
				t = (g == "c" || g == "d") ? 1 - inv : inv
				b = (g == "b" || g == "d") ? 1 - inv : inv
				for (k = 0; k < s; k++) {
					top = top t " "; bot = bot b " "
				}
			}
			for (k = 0; k < s; k++) print top
			for (k = 0; k < s; k++) print bot
		}
	}'
}

# ANSI: "\033[40m" starts dark modules, "\033[47m" light ones, each
# module two spaces.
ansi_to_ascii() {
	LC_ALL=C sed -e 's/\x1b\[0m//g' | awk '{
		out = ""; dark = 0; s = $0
		while (length(s) > 0) {
			if (substr(s, 1, 5) == "\033[40m") { dark = 1; s = substr(s, 6) }
			else if (substr(s, 1, 5) == "\033[47m") { dark = 0; s = substr(s, 6) }
			else { out = out (dark ? "#" : " "); s = substr(s, 2) }
		}
		print out
	}'
}

scan() {
	zbarimg --raw -q "$1" 2>/dev/null
}

@test "-h and --help print the usage with every long option, exit 0" {
	for o in -h --help; do
		run --separate-stderr otp-uri "$o"
		assert_success
		assert_line --index 0 --partial 'usage: otp-uri [-bqx]'
		[ -z "$stderr" ]
	done
	for o in --totp --hotp --algorithm --counter --digits --period \
	    --issuer --account --base32 --hex --strict --qr --parse --json \
	    --get --check --from-migration --to-migration --quiet --help \
	    --version; do
		assert_output --partial -- "$o"
	done
}

@test "-V and --version print the version" {
	run otp-uri -V
	assert_success
	assert_output --regexp '^otp-uri \(otp-utils\) [0-9]+\.[0-9]+\.[0-9]+$'
	run otp-uri --version
	assert_output --regexp '^otp-uri \(otp-utils\) '
}

@test "usage errors exit 2 with one line and a pointer to --help" {
	for args in "--bogus" "--json" "--json $EX" "--parse --check" \
	    "--get=secret --parse" "--parse -i x" "--check -a SHA256" \
	    "--from-migration -x" "--to-migration --hotp" "--parse --qr" \
	    "--get=nonsense $EX" "--get=type $EX $EX" "--qr=png K" \
	    "GEZDGNBV GEZDGNBV"; do
		# shellcheck disable=SC2086
		run --separate-stderr otp-uri $args
		assert_failure 2
		[ -z "$output" ]
		[[ $stderr == otp-uri:* ]] || { echo "$args: $stderr"; false; }
	done
}

@test "build: the reference example, TOTP by default" {
	run --separate-stderr otp-uri -i Example -A alice@google.com JBSWY3DPEHPK3PXP
	assert_success
	assert_output "$EX"
	# 80 bits is short: warned about, and -q silences it.
	[[ $stderr == *"warning: the secret is 80 bits"* ]]
	run --separate-stderr otp-uri -q --issuer=Example --account=alice@google.com JBSWY3DPEHPK3PXP
	assert_output "$EX"
	[ -z "$stderr" ]
}

@test "build: --hotp always writes the counter, -c sets it" {
	run otp-uri --hotp -A a "$RFC_B32"
	assert_success
	assert_output "otpauth://hotp/a?secret=$RFC_B32&counter=0"
	run otp-uri --hotp -c 42 -A a "$RFC_B32"
	assert_output "otpauth://hotp/a?secret=$RFC_B32&counter=42"
	run otp-uri --hotp --counter=18446744073709551615 -A a "$RFC_B32"
	assert_output "otpauth://hotp/a?secret=$RFC_B32&counter=18446744073709551615"
}

@test "build: -a, -d, -p and --totp=ALG write non-defaults only" {
	run --separate-stderr otp-uri -a SHA256 -d 8 -p 60 -A a "$RFC_B32"
	assert_success
	assert_output "otpauth://totp/a?secret=$RFC_B32&algorithm=SHA256&digits=8&period=60"
	[[ $stderr == *"Google Authenticator ignores algorithm SHA256, period 60"* ]]
	run otp-uri -q --algorithm=sha512 --digits=10 --period=1m -A a "$RFC_B32"
	assert_output "otpauth://totp/a?secret=$RFC_B32&algorithm=SHA512&digits=10&period=60"
	run otp-uri -q --totp=SHA256 -A a "$RFC_B32"
	assert_output "otpauth://totp/a?secret=$RFC_B32&algorithm=SHA256"
	run otp-uri -a SHA1 -d 6 -p 30 -A a "$RFC_B32"
	assert_output "otpauth://totp/a?secret=$RFC_B32"
	run --separate-stderr otp-uri -d 7 -A a "$RFC_B32"
	assert_output "otpauth://totp/a?secret=$RFC_B32&digits=7"
	[[ $stderr == *"ignores 7 digits"* ]]
}

@test "build: bad option values exit 2 naming the option" {
	for args in "-d 5" "-d 11" "-a MD5" "-p 0" "-p 4294967296" "-p x" \
	    "--hotp -c -1" "--hotp -c 18446744073709551616"; do
		# shellcheck disable=SC2086
		run --separate-stderr otp-uri $args -A a "$RFC_B32"
		assert_failure 2
		[ -z "$output" ]
		[[ $stderr == otp-uri:\ --* ]] || { echo "$args: $stderr"; false; }
	done
	# Options that do not apply are refused, not ignored.
	run --separate-stderr otp-uri -c 5 "$RFC_B32"
	assert_failure 2
	[[ $stderr == *"--counter applies to HOTP"* ]]
	run --separate-stderr otp-uri --hotp -p 60 "$RFC_B32"
	assert_failure 2
	[[ $stderr == *"--period applies to TOTP"* ]]
}

@test "build: -x reads hex, -b Base32; both agree" {
	run otp-uri -x -A a "$RFC_HEX"
	assert_success
	assert_output "otpauth://totp/a?secret=$RFC_B32"
	run otp-uri --hex -b -A a "$RFC_B32"
	assert_output "otpauth://totp/a?secret=$RFC_B32"
	run otp-uri -b --hex -A a "$RFC_HEX"
	assert_output "otpauth://totp/a?secret=$RFC_B32"
	# Lenient Base32: lower case, spaces, dashes, padding.
	run otp-uri -A a 'gezd gnbv-gy3t qojq gezd gnbv gy3t qojq'
	assert_output "otpauth://totp/a?secret=$RFC_B32"
	run otp-uri -q -A a 'JBSWY3DPEHPK3PXP'
	assert_output 'otpauth://totp/a?secret=JBSWY3DPEHPK3PXP'
}

@test "build: bad keys exit 2 with the offset, never the key" {
	run --separate-stderr otp-uri -A a 'GEZDGNBV!GEZDGNBV'
	assert_failure 2
	[[ $stderr == *"at offset 8"* ]]
	[[ $stderr != *GEZDGNBV* && $stderr != *"'!'"* ]]
	run --separate-stderr otp-uri -x -A a 3132zz
	assert_failure 2
	[[ $stderr == *"offset 4"* ]]
	run --separate-stderr otp-uri -A a ''
	assert_failure 2
	run --separate-stderr otp-uri -A a '===='
	assert_failure 2
	# --strict refuses what lenient decoding takes.
	run otp-uri -A a gezdgnbv
	assert_success
	run --separate-stderr otp-uri --strict -A a gezdgnbv
	assert_failure 2
}

@test "build: the key from an operand, '-', @FILE or stdin" {
	printf '%s\n' "$RFC_B32" > "$T/key"
	run otp-uri -A a "@$T/key"
	assert_output "otpauth://totp/a?secret=$RFC_B32"
	run otp-uri -A a - < "$T/key"
	assert_output "otpauth://totp/a?secret=$RFC_B32"
	run otp-uri -A a < "$T/key"
	assert_output "otpauth://totp/a?secret=$RFC_B32"
	printf '%s\r\n' "$RFC_B32" > "$T/crlf"
	run otp-uri -A a < "$T/crlf"
	assert_output "otpauth://totp/a?secret=$RFC_B32"
	run --separate-stderr otp-uri -A a < /dev/null
	assert_failure 2
	run --separate-stderr otp-uri -A a "@$T/missing"
	assert_failure 2
	[[ $stderr == *missing* ]]
}

@test "build: a URI as the key is made canonical; options override it" {
	run --separate-stderr otp-uri 'OTPAUTH://TOTP/Example%3A%20alice@google.com?secret=jbswy3dpehpk3pxp====&issuer=Example&digits=6&period=30&algorithm=sha1'
	assert_success
	assert_output "$EX"
	[[ $stderr == *"'=' padding"* ]]
	run otp-uri -q -i Other -A bob "$EX"
	assert_output 'otpauth://totp/Other:bob?secret=JBSWY3DPEHPK3PXP&issuer=Other'
	run otp-uri -q --hotp -c 3 -d 8 "$EX"
	assert_output 'otpauth://hotp/Example:alice%40google.com?secret=JBSWY3DPEHPK3PXP&issuer=Example&digits=8&counter=3'
	run otp-uri -q 'otpauth://hotp/x?secret=JBSWY3DPEHPK3PXP&counter=9'
	assert_output 'otpauth://hotp/x?secret=JBSWY3DPEHPK3PXP&counter=9'
}

@test "build: issuer and account percent-encoded per RFC 3986" {
	run otp-uri -i 'ACME Co & Sons' -A "o'brien+x@ex.com" "$RFC_B32"
	assert_success
	assert_output "otpauth://totp/ACME%20Co%20%26%20Sons:o%27brien%2Bx%40ex.com?secret=$RFC_B32&issuer=ACME%20Co%20%26%20Sons"
	run otp-uri -i 'Jürgen' -A 'a:b' "$RFC_B32"
	assert_output "otpauth://totp/J%C3%BCrgen:a%3Ab?secret=$RFC_B32&issuer=J%C3%BCrgen"
	run otp-uri -A 'a-b.c_d~e' "$RFC_B32"
	assert_output "otpauth://totp/a-b.c_d~e?secret=$RFC_B32"
	# Control characters and invalid UTF-8 cannot go into a URI.
	run --separate-stderr otp-uri -i "$(printf 'a\tb')" "$RFC_B32"
	assert_failure 2
	[[ $stderr == *"malformed URI label"* ]]
	run --separate-stderr otp-uri -A "$(printf '\xff')" "$RFC_B32"
	assert_failure 2
}

@test "parse: the reference examples, field=value, blank line between" {
	run --separate-stderr otp-uri --parse "$EX" \
	    'otpauth://hotp/Air%20Canada:Benjamin?secret=KUVJJOM753IHTNDSZVCNKL7GII&issuer=Air+Canada&algorithm=SHA256&digits=7&counter=50'
	assert_success
	assert_output "type=totp
issuer=Example
account=alice@google.com
secret=JBSWY3DPEHPK3PXP
algorithm=SHA1
digits=6
period=30

type=hotp
issuer=Air Canada
account=Benjamin
secret=KUVJJOM753IHTNDSZVCNKL7GII
algorithm=SHA256
digits=7
counter=50"
	[[ $stderr == *"ignores algorithm SHA256, 7 digits"*"(URI 2)"* ]]
}

@test "parse: URIs one per stdin line, blank lines skipped" {
	printf '%s\n\n%s\r\n' "$EX" \
	    'otpauth://totp/ACME%20Co:john.doe@email.com?secret=HXDMVJECJJWSRB3HWIZR4IFUGFTMXBOZ&issuer=ACME%20Co&algorithm=SHA1&digits=6&period=30' \
	    > "$T/uris"
	run -0 --separate-stderr otp-uri --parse < "$T/uris"
	assert_line --index 1 'issuer=Example'
	assert_line --index 8 'issuer=ACME Co'
	assert_line --index 9 'account=john.doe@email.com'
	assert_line --index 10 'secret=HXDMVJECJJWSRB3HWIZR4IFUGFTMXBOZ'
	[ "${#lines[@]}" -eq 14 ]
}

@test "parse: every hard case of otp-uri(1)'s Reading URIs" {
	# issuer prefix != issuer=: the parameter wins, with a warning
	run --separate-stderr otp-uri --get=issuer "otpauth://totp/Label:bob?secret=$RFC_B32&issuer=Param"
	assert_output Param
	[[ $stderr == *"warning: the label's issuer differs"* ]]
	# '+' in the query is a space; A%26B is A&B (split, then decode)
	run otp-uri --get=issuer "otpauth://totp/x?secret=$RFC_B32&issuer=Air+Canada"
	assert_output 'Air Canada'
	run otp-uri --get=issuer "otpauth://totp/x?secret=$RFC_B32&issuer=A%26B"
	assert_output 'A&B'
	# %3A as the colon and the space after it dropped
	run otp-uri --parse "otpauth://totp/Big%20Corporation%3A%20alice%40bigco.com?secret=$RFC_B32"
	assert_line 'issuer=Big Corporation'
	assert_line 'account=alice@bigco.com'
	# capitals in scheme and type, lower-case algorithm
	run otp-uri -q --get=algorithm "OTPAUTH://TOTP/x?secret=$RFC_B32&algorithm=sha256"
	assert_output SHA256
	# hotp without counter: counter 0
	run otp-uri --get=counter "otpauth://hotp/x?secret=$RFC_B32"
	assert_success
	assert_output 0
	# period=0: refused
	run --separate-stderr otp-uri --parse "otpauth://totp/x?secret=$RFC_B32&period=0"
	assert_failure 2
	[[ $stderr == *"time step"*"offset 64"* ]] || { echo "$stderr"; false; }
	# padded secret: accepted with a warning
	run --separate-stderr otp-uri --get=secret 'otpauth://totp/x?secret=JBSWY3DPEHPK3PXP===='
	assert_success
	assert_output JBSWY3DPEHPK3PXP
	[[ $stderr == *"'=' padding"* ]]
	# the UTF-8 example
	run otp-uri --parse 'otpauth://totp/J%C3%BCrgen%20%26%20Co:j%C3%BCrgen?secret=JBSWY3DPEHPK3PXP&issuer=J%C3%BCrgen%20%26%20Co'
	assert_line 'issuer=Jürgen & Co'
	assert_line 'account=jürgen'
	# unknown parameters are ignored
	run otp-uri --get=account "otpauth://totp/me?secret=$RFC_B32&image=https%3A%2F%2Fx%2Fy.png"
	assert_output me
}

@test "parse: an empty issuer= is absent, as otp-uri(1) says" {
	# The manual's rule, its source lines joined ...
	run tr '\n' ' ' < "$BATS_TEST_DIRNAME/../man/otp-uri.1"
	assert_output --partial "an empty one counts as absent, so the label's prefix stays the issuer"
	# ... is what the parser does: the label's prefix stays, no warning
	# of a mismatch (the parameter said nothing), and no other URI field
	# moves.
	for q in 'issuer=' 'issuer' 'issuer=&digits=6'; do
		run --separate-stderr otp-uri --parse "otpauth://totp/Acme:bob?secret=$RFC_B32&$q"
		if [ "$q" = issuer ]; then
			# a parameter without '=' is malformed, not empty
			assert_failure 2
			continue
		fi
		assert_success
		assert_line 'issuer=Acme'
		assert_line 'account=bob'
		[[ $stderr != *"differs"* ]] || { echo "$q: $stderr"; false; }
	done
	# and the URI built again carries the label's issuer both ways
	run otp-uri -q "otpauth://totp/Acme:bob?secret=$RFC_B32&issuer="
	assert_output "otpauth://totp/Acme:bob?secret=$RFC_B32&issuer=Acme"
	# no prefix and an empty parameter: no issuer at all
	run otp-uri -q --get=issuer "otpauth://totp/bob?secret=$RFC_B32&issuer="
	assert_success
	assert_output ''
}

@test "parse: malformed URIs exit 2 with one line naming the fault" {
	while IFS='|' read -r uri want; do
		run --separate-stderr otp-uri --parse "$uri"
		assert_failure 2
		[ -z "$output" ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ $stderr == *"$want"* ]] || { echo "$uri: $stderr"; false; }
	done <<-EOF
	http://example.com/|not an otpauth:// URI
	otpauth://totp/x|URI has no secret
	otpauth://totp/x?issuer=a|URI has no secret
	otpauth://motp/x?secret=GEZDGNBV|type must be totp, hotp or steam, not 'motp'
	otpauth://totp/x?secret=GEZDGNBV&secret=GEZDGNBV|duplicate parameter secret= at offset 33
	otpauth://totp/x?secret=GEZDGNBV&Issuer=a&issuer=b|duplicate parameter issuer= at offset 42
	otpauth://totp/x?secret|parameter secret has no '=' and no value at offset 17
	otpauth://totp/x?secret=GEZ1|invalid Base32 character in secret= at offset 27
	otpauth://totp/x?secret=GEZ%ZZ|bad percent-encoding in URI in secret= at offset 27
	otpauth://totp/x?secret=GEZDGNBV&issuer=a%ZZ|in issuer=: '%' at offset 41
	otpauth://totp/a%ZZ?secret=GEZDGNBV|in the label: '%' at offset 16
	otpauth://totp/a%00?secret=GEZDGNBV|NUL
	otpauth://totp/a%0A?secret=GEZDGNBV|control character
	otpauth://totp/%C3%28?secret=GEZDGNBV|not valid UTF-8
	otpauth://totp/x?secret=GEZDGNBV&digits=5|digits out of range 6..10: '5' in digits= at offset 40
	otpauth://totp/x?secret=GEZDGNBV&algorithm=MD5|unknown algorithm: 'MD5' in algorithm= at offset 43
	otpauth://totp/x?secret=GEZDGNBV&period=0|invalid time step: '0' in period= at offset 40
	otpauth://hotp/x?secret=GEZDGNBV&counter=-1|'-1' in counter= at offset 41
	otpauth://steam/x?secret=GEZDGNBV&digits=6|Steam codes are 5 characters of SHA1: digits=5 and algorithm=SHA1 only: '6' in digits=
	EOF
}

@test "URI errors name the parameter, never a character of the secret" {
	# A bad character in the secret: its offset only, in every mode
	# and in a URI given as the key to build from.
	u='otpauth://totp/x?secret=GEZDGNBVQ1&issuer=i'
	for args in "--parse $u" "--check $u" "--get=issuer $u" \
	    "--to-migration $u" "$u" "--qr $u"; do
		# shellcheck disable=SC2086
		run --separate-stderr otp-uri $args
		assert_failure 2
		[ "$stderr" = "otp-uri: invalid Base32 character in secret= at offset 33" ] ||
		    [ "$stderr" = "otp-uri: invalid Base32 character in secret= at offset 33; no export written" ] ||
		    { echo "$args: $stderr"; false; }
	done
	# The name as spelled, and an escape in it decoded to find it.
	run --separate-stderr otp-uri --parse 'otpauth://totp/x?SECRET=GEZDGNBV&s%65cret=GEZDGNBV'
	assert_failure 2
	[ "$stderr" = "otp-uri: duplicate parameter s%65cret= at offset 33 (each may appear once)" ]
	[[ $stderr != *GEZDGNBV* ]]
}

@test "parse: one bad URI among good ones: the rest printed, exit 2" {
	run --separate-stderr otp-uri --parse "$EX" 'otpauth://totp/x' "$EX"
	assert_failure 2
	[[ $stderr == *"(URI 2)"* ]]
	[ "$(grep -c '^type=' <<< "$output")" -eq 2 ]
	printf '%s\nbogus\n' "$EX" > "$T/in"
	run --separate-stderr otp-uri --parse < "$T/in"
	assert_failure 2
	[[ $stderr == *"(line 2)"* ]]
}

@test "parse --json: one object per line, strings escaped" {
	run -0 otp-uri -q --parse --json "$EX" \
	    "otpauth://hotp/q%22b%5Cs?secret=$RFC_B32&issuer=J%C3%BCrgen&counter=18446744073709551615&digits=8"
	assert_success
	assert_line --index 0 '{"type":"totp","issuer":"Example","account":"alice@google.com","secret":"JBSWY3DPEHPK3PXP","algorithm":"SHA1","digits":6,"period":30}'
	assert_line --index 1 '{"type":"hotp","issuer":"Jürgen","account":"q\"b\\s","secret":"'"$RFC_B32"'","algorithm":"SHA1","digits":8,"counter":18446744073709551615}'
	# Real JSON: Python reads it back.
	echo "$output" | "$PY" -c '
import json, sys
for l in sys.stdin:
    json.loads(l)
'
}

@test "--get prints each field" {
	U='otpauth://hotp/Air%20Canada:Benjamin?secret=KUVJJOM753IHTNDSZVCNKL7GII&issuer=Air+Canada&algorithm=SHA256&digits=7&counter=50'
	for fv in type=hotp 'issuer=Air Canada' account=Benjamin \
	    secret=KUVJJOM753IHTNDSZVCNKL7GII algorithm=SHA256 digits=7 \
	    counter=50; do
		run -0 otp-uri -q --get="${fv%%=*}" "$U"
		assert_output "${fv#*=}"
	done
	run otp-uri --get=period -q "otpauth://totp/x?secret=$RFC_B32&period=45"
	assert_output 45
	printf '%s\n' "$EX" > "$T/in"
	run otp-uri -q --get=account < "$T/in"
	assert_output alice@google.com
	run --separate-stderr otp-uri --get=account < /dev/null
	assert_failure 2
}

@test "--get: a field the type has not is not invented: exit 1, nothing printed" {
	for c in "period|otpauth://hotp/x?secret=$RFC_B32&counter=3" \
	    "counter|$EX" "counter|otpauth://totp/x?secret=$RFC_B32&counter=3" \
	    "digits|otpauth://steam/x?secret=$RFC_B32" \
	    "counter|otpauth://steam/x?secret=$RFC_B32"; do
		run --separate-stderr otp-uri --get="${c%%|*}" "${c#*|}"
		assert_failure 1
		[ -z "$output" ] || { echo "$c: $output"; false; }
		# the same from standard input
		run --separate-stderr otp-uri --get="${c%%|*}" <<< "${c#*|}"
		assert_failure 1
		[ -z "$output" ]
	done
	# --parse leaves them out the same way.
	run -0 otp-uri -q --parse "otpauth://hotp/x?secret=$RFC_B32&counter=3&period=60"
	refute_line --partial period
}

@test "one URI or key from stdin: a second line is refused, not dropped" {
	printf '%s\n\n%s\n' "$EX" "$EX" > "$T/two"
	printf '%s\n%s\n' "$RFC_B32" "$RFC_B32" > "$T/keys"
	printf '\n%s\n\n\n' "$EX" > "$T/blanks"
	for c in "--get=type|$T/two" "-A a|$T/keys" "--qr -A a|$T/keys" \
	    "-A a -|$T/keys" "|$T/two"; do
		# shellcheck disable=SC2086
		run --separate-stderr otp-uri ${c%%|*} < "${c#*|}"
		assert_failure 2
		[ -z "$output" ] || { echo "$c: output"; false; }
		[[ $stderr == *"more than one"*"(line 3)"* || $stderr == *"more than one"*"(line 2)"* ]] ||
		    { echo "$c: $stderr"; false; }
		[[ $stderr != *"$RFC_B32"* && $stderr != *JBSWY3DP* ]]
	done
	# Blank lines do not count (but a key is the first line).
	run -0 otp-uri --get=account < "$T/blanks"
	assert_output alice@google.com
	printf '%s\n\n\n' "$RFC_B32" > "$T/key"
	run -0 otp-uri -A a < "$T/key"
	assert_output "otpauth://totp/a?secret=$RFC_B32"
	# The modes that read many read every line.
	run -0 otp-uri -q --parse < "$T/two"
	[ "$(grep -c '^type=' <<< "$output")" -eq 2 ]
	run -0 otp-uri -q --to-migration < "$T/two"
	run -0 otp-uri --from-migration <<< "$output"
	assert_output "$EX
$EX"
}

@test "--check: 0 portable, 1 warnings, 2 invalid; -q keeps the status" {
	run --separate-stderr otp-uri --check "otpauth://totp/i:x?secret=$RFC_B32&issuer=i"
	assert_success
	[ -z "$output$stderr" ]
	for u in "otpauth://totp/x?secret=JBSWY3DPEHPK3PXP" \
	    "otpauth://totp/x?secret=$RFC_B32&digits=7" \
	    "otpauth://totp/x?secret=$RFC_B32&period=60" \
	    "otpauth://totp/x?secret=$RFC_B32&algorithm=SHA512" \
	    "otpauth://totp/a:x?secret=$RFC_B32&issuer=b" \
	    "otpauth://totp/x?secret=${RFC_B32}%3D%3D%3D"; do
		run --separate-stderr otp-uri --check "$u"
		assert_failure 1
		[[ $stderr == "otp-uri: warning: "* ]]
		run --separate-stderr otp-uri -q --check "$u"
		assert_failure 1
		[ -z "$stderr" ]
	done
	run --separate-stderr otp-uri --check "otpauth://totp/x?secret=$RFC_B32" 'otpauth://totp/x'
	assert_failure 2
	run otp-uri --check "otpauth://totp/x?secret=$RFC_B32" 'otpauth://totp/x?secret=JBSWY3DP'
	assert_failure 1
}

@test "--qr=ascii: zbarimg reads back the URI" {
	run -0 otp-uri --qr=ascii -i Example -A alice@google.com -q JBSWY3DPEHPK3PXP
	[ "${#lines[@]}" -ge 29 ]
	ascii_to_pbm <<< "$output" > "$T/q.pbm"
	run scan "$T/q.pbm"
	assert_output "$EX"
}

@test "--qr: a long URI with UTF-8 labels scans back exactly" {
	iss='Société Générale — Zürich 東京'
	acc='jürgen.müller+tokens@exämple.com ☃'
	run -0 otp-uri -q -i "$iss" -A "$acc" -a SHA512 -d 8 \
	    GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ
	want=$output
	[ "${#want}" -gt 250 ]
	otp-uri -q -i "$iss" -A "$acc" -a SHA512 -d 8 --qr=ascii \
	    GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ |
	    ascii_to_pbm > "$T/q.pbm"
	run scan "$T/q.pbm"
	assert_output "$want"
	# ... and its fields come back from the scanned text.
	run otp-uri -q --get=issuer "$want"
	assert_output "$iss"
	run otp-uri -q --get=account "$want"
	assert_output "$acc"
}

@test "--qr and --qr=utf8: half blocks with a quiet zone, scans back" {
	otp-uri -q --qr "$EX" > "$T/default"
	otp-uri -q --qr=utf8 "$EX" > "$T/utf8"
	cmp "$T/default" "$T/utf8"
	# The first two rows are quiet zone: full blocks only.
	run head -n 2 "$T/utf8"
	[[ ${lines[0]} =~ ^█+$ ]]
	[[ ${lines[1]} =~ ^█+$ ]]
	utf8_to_pbm < "$T/utf8" > "$T/q.pbm"
	run scan "$T/q.pbm"
	assert_output "$EX"
}

@test "--qr=utf8-inverted: dark glyphs for a light terminal, scans back" {
	otp-uri -q --qr=utf8-inverted "$EX" > "$T/inv"
	otp-uri -q --qr=utf8 "$EX" > "$T/utf8"
	# The quiet zone is the terminal's own light background.
	[ -z "$(head -n 2 "$T/inv" | tr -d ' \n')" ]
	# Each glyph is the other style's complement (but for the half row
	# past the bottom, drawn in neither).
	diff <(sed '$d' "$T/inv") <(sed '$d' "$T/utf8" | sed -e 's/█/X/g' \
	    -e 's/ /█/g' -e 's/X/ /g' -e 's/▀/Y/g' -e 's/▄/▀/g' -e 's/Y/▄/g')
	utf8_to_pbm inverted < "$T/inv" > "$T/q.pbm"
	run scan "$T/q.pbm"
	assert_output "$EX"
}

@test "--qr: style names in any case; --help says which terminal each suits" {
	for st in utf8 ansi ascii utf8-inverted; do
		otp-uri -q --qr="$st" "$EX" > "$T/lower"
		for v in "${st^^}" "${st^}"; do
			run -0 otp-uri -q --qr="$v" "$EX"
			[ "$output" = "$(cat "$T/lower")" ] || { echo "$v"; false; }
		done
	done
	run --separate-stderr otp-uri --qr=utf9 "$EX"
	assert_failure 2
	[[ $stderr == *"(utf8, utf8-inverted, ansi or ascii)"* ]]
	run -0 otp-uri --help
	assert_output --partial 'light text on a dark terminal'
	assert_output --partial 'utf8-inverted (dark text on a light terminal)'
}

@test "--qr=ansi: background colours, scans back" {
	otp-uri -q --qr=ansi "$EX" > "$T/ansi"
	grep -q $'\033\[40m' "$T/ansi"
	grep -q $'\033\[47m' "$T/ansi"
	ansi_to_ascii < "$T/ansi" | ascii_to_pbm > "$T/q.pbm"
	run scan "$T/q.pbm"
	assert_output "$EX"
}

@test "--qr of a bare key draws the built URI" {
	otp-uri -q --qr=ascii --hotp -c 7 -i I -A a "$RFC_B32" | ascii_to_pbm > "$T/q.pbm"
	run scan "$T/q.pbm"
	assert_output "otpauth://hotp/I:a?secret=$RFC_B32&issuer=I&counter=7"
}

@test "the short-key warning where a key is chosen or judged, not where a URI is read" {
	short='otpauth://totp/i:x?secret=JBSWY3DPEHPK3PXP&issuer=i'
	# Built from a bare key (drawn or not), and --check: warned.
	for args in "-A a JBSWY3DPEHPK3PXP" "--qr=ascii -A a JBSWY3DPEHPK3PXP" \
	    "-x -A a 48656c6c6f21deadbeef"; do
		# shellcheck disable=SC2086
		run --separate-stderr otp-uri $args
		assert_success
		[ "$stderr" = "otp-uri: warning: the secret is 80 bits; RFC 4226 asks for at least 128" ] ||
		    { echo "$args: $stderr"; false; }
	done
	run --separate-stderr otp-uri --check "$short"
	assert_failure 1
	[[ $stderr == *"80 bits"* ]]
	# A URI from elsewhere read, rewritten, drawn or converted: not.
	for args in "--parse $short" "--get=secret $short" "$short" \
	    "-A b $short" "--qr=ascii $short" "--to-migration $short" \
	    "--from-migration $MIG" "--to-migration --qr=ascii $short"; do
		# shellcheck disable=SC2086
		run --separate-stderr otp-uri $args
		assert_success
		[ -z "$stderr" ] || { echo "$args: $stderr"; false; }
	done
	# The demo's first URI uses a key of recommended length.
	run --separate-stderr env OTP_BIN="$OTP_BIN" sh "$BATS_TEST_DIRNAME/demo.sh"
	assert_success
	[[ $output == *"$ otp-uri "* ]]
	[[ $stderr != *"bits; RFC 4226"* ]] || { echo "$stderr"; false; }
	# Shown as a shell reads it: the URI's ? and & quoted.
	uri=$(grep -m 1 '^otpauth://.*&' <<<"$output")
	assert_line "\$ otp-uri --qr '$uri'"
}

@test "--to-migration: a refused account is one line, not three" {
	run --separate-stderr otp-uri --to-migration "otpauth://totp/x?secret=$RFC_B32&period=60"
	assert_failure 2
	[ -z "$output" ]
	[ "$stderr" = "otp-uri: an export carries only a period of 30 seconds; no export written" ]
	printf '%s\n' "$EX" "otpauth://totp/x?secret=$RFC_B32&digits=7" "otpauth://totp/x" > "$T/in"
	run --separate-stderr otp-uri -q --to-migration < "$T/in"
	assert_failure 2
	[ -z "$output" ]
	[ "$stderr" = "otp-uri: an export carries 6 or 8 digits only (line 2); no export written
otp-uri: URI has no secret (line 3); no export written" ]
}

@test "unknown parameters: kept through a rewrite, shown, warned by --check, named by an export" {
	img='image=https%3A%2F%2Fexample.com%2Flogo.png&color=Blue+Green'
	U="otpauth://totp/i:x?secret=$RFC_B32&$img&issuer=i"
	# Rewritten or drawn: kept, after the canonical ones, as spelled.
	run --separate-stderr otp-uri -A y "$U"
	assert_success
	assert_output "otpauth://totp/i:y?secret=$RFC_B32&issuer=i&$img"
	[ -z "$stderr" ]
	run -0 otp-uri -q --qr=ascii "$U"
	ascii_to_pbm <<< "$output" > "$T/q.pbm"
	run scan "$T/q.pbm"
	assert_output "otpauth://totp/i:x?secret=$RFC_B32&issuer=i&$img"
	# Shown, decoded.
	run -0 otp-uri --parse "$U"
	assert_line --index 7 'extra:image=https://example.com/logo.png'
	assert_line --index 8 'extra:color=Blue Green'
	run -0 otp-uri --parse --json "$U"
	assert_output '{"type":"totp","issuer":"i","account":"x","secret":"'"$RFC_B32"'","algorithm":"SHA1","digits":6,"period":30,"extra":[{"name":"image","value":"https://example.com/logo.png"},{"name":"color","value":"Blue Green"}]}'
	"$PY" -c 'import json, sys; json.loads(sys.argv[1])' "$output"
	# --check: valid, but not portable.
	run --separate-stderr otp-uri --check "otpauth://totp/i:x?secret=$RFC_B32&issuer=i&image=x"
	assert_failure 1
	[ "$stderr" = "otp-uri: warning: unknown parameter image=: kept, but apps may ignore it" ]
	run --separate-stderr otp-uri -q --check "$U"
	assert_failure 1
	[ -z "$stderr" ]
	# An export has no field for them: left out, and said so.
	run --separate-stderr otp-uri --to-migration "$U"
	assert_success
	[ "$stderr" = "otp-uri: warning: an export cannot carry parameters image=, color=; left out" ]
	run -0 otp-uri --from-migration "$output"
	assert_output "otpauth://totp/i:x?secret=$RFC_B32&issuer=i"
}

@test "steam URIs: read, rebuilt and checked; an export refuses them" {
	S="otpauth://steam/Steam:bob?secret=$RFC_B32&issuer=Steam&digits=5"
	run -0 otp-uri --parse "$S"
	assert_output "type=steam
issuer=Steam
account=bob
secret=$RFC_B32
algorithm=SHA1
period=30"
	run -0 otp-uri --get=type "$S"
	assert_output steam
	run -0 otp-uri "$S"
	assert_output "otpauth://steam/Steam:bob?secret=$RFC_B32&issuer=Steam"
	run -0 otp-uri -q -p 60 -i Valve "OTPAUTH://STEAM/bob?secret=$RFC_B32"
	assert_output "otpauth://steam/Valve:bob?secret=$RFC_B32&issuer=Valve&period=60"
	run --separate-stderr otp-uri --check "$S"
	assert_failure 1
	[ "$stderr" = "otp-uri: warning: only apps that know Steam Guard read otpauth://steam/ URIs" ]
	for args in "-d 8 $S" "--hotp $S" "-a SHA256 $S"; do
		# shellcheck disable=SC2086
		run --separate-stderr otp-uri $args
		assert_failure 2
		[[ $stderr == *"5-character SHA1 codes"* ]]
	done
	run --separate-stderr otp-uri --to-migration "$S"
	assert_failure 2
	[ "$stderr" = "otp-uri: an export cannot carry a Steam account; no export written" ]
}

@test "--from-migration: the reference sample, and its code" {
	run -0 otp-uri --from-migration "$MIG"
	assert_output "$EX"
	run oathtool --totp -b -N '2009-11-10 23:00:00 UTC' \
	    "$(otp-uri --get=secret "$output")"
	assert_output 528064
	if [ -x "$OTP_BIN/otp-gen" ]; then
		run otp-gen --totp -N '2009-11-10 23:00:00 UTC' "$EX"
		assert_output 528064
	fi
	# From stdin too.
	run -0 otp-uri --from-migration <<< "$MIG"
	assert_output "$EX"
}

@test "--from-migration: malformed payloads exit 2, nothing printed" {
	for bad in 'otpauth-migration://offline?data=' \
	    'otpauth-migration://offline?data=Cj' \
	    'otpauth-migration://offline?data=CjEKCkhlbGxvId6tvu8SGEV4YW1wbGU6YWxpY2VAZ29vZ2xlLmNvbRoHRXhhbXBsZT' \
	    'otpauth-migration://offline?data=C!EK' \
	    'otpauth-migration://offline?data=%ZZ' \
	    'otpauth-migration://offline' \
	    'http://x/' "$EX" \
	    'otpauth-migration://offline?data=CP%2F%2F%2F%2F%2F%2F%2F%2F%2F%2F%2F'; do
		run --separate-stderr otp-uri --from-migration "$bad"
		assert_failure 2
		[ -z "$output" ]
		[ "${#stderr_lines[@]}" -eq 1 ] || { echo "$bad: $stderr"; false; }
	done
}

@test "--to-migration then --from-migration is exact" {
	{
		echo "$EX"
		echo "otpauth://hotp/Bank:me?secret=$RFC_B32&issuer=Bank&algorithm=SHA256&digits=8&counter=123456789"
		echo "otpauth://totp/J%C3%BCrgen%20%26%20Co:j%C3%BCrgen%3Ax?secret=KUVJJOM753IHTNDSZVCNKL7GII&issuer=J%C3%BCrgen%20%26%20Co&algorithm=SHA512"
		echo "otpauth://totp/noissuer?secret=HXDMVJECJJWSRB3HWIZR4IFUGFTMXBOZ"
	} > "$T/in"
	run -0 otp-uri -q --to-migration < "$T/in"
	[ "${#lines[@]}" -eq 1 ]
	[[ $output == otpauth-migration://offline\?data=* ]]
	run -0 otp-uri --from-migration "$output"
	assert_output "$(cat "$T/in")"
}

@test "--to-migration: what the format cannot carry is refused, nothing written" {
	for u in "otpauth://totp/x?secret=$RFC_B32&period=60" \
	    "otpauth://totp/x?secret=$RFC_B32&digits=7" \
	    "otpauth://hotp/x?secret=$RFC_B32&counter=9223372036854775808"; do
		run --separate-stderr otp-uri -q --to-migration "$EX" "$u"
		assert_failure 2
		[ -z "$output" ]
		[[ $stderr == *"an export carries"*"(URI 2)"* ]] || { echo "$stderr"; false; }
	done
	run --separate-stderr otp-uri --to-migration "otpauth://totp/x?secret=$RFC_B32&period=60"
	[[ $stderr == *"30 seconds"* ]]
	run --separate-stderr otp-uri --to-migration "otpauth://totp/x?secret=$RFC_B32&digits=7"
	[[ $stderr == *"6 or 8 digits"* ]]
	run --separate-stderr otp-uri --to-migration "otpauth://hotp/x?secret=$RFC_B32&counter=9223372036854775808"
	[[ $stderr == *"up to 2^63-1"* ]]
	# An issuer with a colon is carried: the issuer field holds it whole.
	run -0 otp-uri -q --to-migration "otpauth://totp/x?secret=$RFC_B32&issuer=a:b"
	run -0 otp-uri --from-migration "$output"
	[[ $output == *"issuer=a%3Ab"* ]]
	run --separate-stderr otp-uri --to-migration 'not a uri'
	assert_failure 2
}

# The batch fields of an export URI: "size index id" (protobuf fields 3,
# 4, 5 of MigrationPayload), read by a small independent decoder.
batch_fields() {
	"$PY" -c '
import base64, sys, urllib.parse
u = sys.argv[1]
d = urllib.parse.unquote(u.split("data=", 1)[1])
b = base64.b64decode(d + "=" * (-len(d) % 4))
i, f, n = 0, {}, 0
def varint():
    global i
    v = s = 0
    while True:
        c = b[i]; i += 1; v |= (c & 0x7f) << s; s += 7
        if c < 0x80: return v
while i < len(b):
    k = varint()
    if k & 7 == 2:
        l = varint(); i += l
        if k >> 3 == 1: n += 1
    else:
        f[k >> 3] = varint()
print(f.get(3, 0), f.get(4, 0), f.get(5, 0), n)
' "$1"
}

@test "--to-migration: batches of 10 with batch fields, --qr draws each" {
	for i in $(seq 1 23); do
		printf 'otpauth://totp/Svc%d:user%d?secret=%s&issuer=Svc%d\n' \
		    "$i" "$i" "$RFC_B32" "$i"
	done > "$T/in"
	run -0 otp-uri -q --to-migration < "$T/in"
	[ "${#lines[@]}" -eq 3 ]
	read -r s0 i0 id0 n0 <<< "$(batch_fields "${lines[0]}")"
	read -r s1 i1 id1 n1 <<< "$(batch_fields "${lines[1]}")"
	read -r s2 i2 id2 n2 <<< "$(batch_fields "${lines[2]}")"
	[ "$s0 $s1 $s2" = "3 3 3" ]
	[ "$i0 $i1 $i2" = "0 1 2" ]
	[ "$n0 $n1 $n2" = "10 10 3" ]
	[ "$id0" = "$id1" ] && [ "$id1" = "$id2" ] && [ "$id0" -gt 0 ]
	# Back to the same 23 URIs, in order.
	run -0 otp-uri --from-migration "${lines[@]}"
	assert_output "$(cat "$T/in")"

	# --qr: one code per batch, each scanning to a payload that decodes
	# to its ten (or three) accounts.
	otp-uri -q --to-migration --qr=ascii < "$T/in" > "$T/qr"
	# Split the drawing into its codes: a code of m modules is m lines
	# of 2m characters.
	awk -v T="$T" '{ if (left == 0) { n++; left = length($0) / 2 }
	    print > (T "/c" n); left-- }' "$T/qr"
	: > "$T/scanned"
	for f in "$T"/c[0-9]*; do
		ascii_to_pbm < "$f" > "$f.pbm"
		scan "$f.pbm" >> "$T/scanned"
	done
	[ "$(wc -l < "$T/scanned")" -eq 3 ]
	run -0 otp-uri --from-migration < "$T/scanned"
	assert_output "$(cat "$T/in")"
}

@test "--from-migration --qr draws each account" {
	run -0 otp-uri --from-migration --qr=ascii "$MIG"
	ascii_to_pbm <<< "$output" > "$T/q.pbm"
	run scan "$T/q.pbm"
	assert_output "$EX"
}

@test "a write error on stdout exits 2" {
	run bash -c "otp-uri -A a $RFC_B32 > /dev/full"
	assert_failure 2
	run bash -c "otp-uri --parse '$EX' > /dev/full"
	assert_failure 2
	run bash -c "otp-uri -q --qr '$EX' > /dev/full"
	assert_failure 2
}

@test "man page EXAMPLES: build, parse, export sample, check" {
	man=$BATS_TEST_DIRNAME/../man/otp-uri.1
	# Each example's command and output appear in the page as run here.
	run otp-uri -q -i Example -A alice@google.com JBSWY3DPEHPK3PXP
	grep -qxF '$ otp-uri -i Example -A alice@google.com JBSWY3DPEHPK3PXP' "$man"
	grep -qxF "$output" "$man"
	u='otpauth://hotp/Air%20Canada:Benjamin?secret=KUVJJOM753IHTNDSZVCNKL7GII&issuer=Air+Canada&algorithm=SHA256&digits=7&counter=50'
	grep -qxF "\$ otp-uri --parse '$u'" "$man"
	run -0 otp-uri -q --parse "$u"
	while IFS= read -r l; do grep -qxF "$l" "$man"; done <<< "$output"
	grep -qxF "\$ otp-uri --from-migration '$MIG'" "$man"
	run -0 otp-uri --from-migration "$MIG"
	grep -qxF "$output" "$man"
	# The sample's key is 80 bits: valid, with a warning.
	run otp-uri -q --check "$output"
	assert_failure 1
}

@test "man page EXAMPLES: out of Google Authenticator and back in" {
	cd "$T"
	# An export QR code as an image, as a phone screenshot would be.
	run -0 otp-uri -q --to-migration --qr=ascii "$EX"
	ascii_to_pbm <<< "$output" | pnmtopng > export.png
	zbarimg --raw -q export.png 2>/dev/null | otp-uri --from-migration > accounts
	run cat accounts
	assert_output "$EX"
	if [ -x "$OTP_BIN/otp-gen" ]; then
		run -0 otp-gen --label < accounts
		assert_output --regexp $'^Example:alice@google.com\t[0-9]{6}$'
	fi
	run -0 otp-uri -q --to-migration --qr < accounts
	[[ $output == *█* ]]
	run --separate-stderr otp-uri --check < accounts
	assert_failure 1
}

@test "man page EXAMPLES: provision a phone with otp-keygen" {
	[ -x "$OTP_BIN/otp-keygen" ] || skip "otp-keygen is not built yet"
	export HOME=$T
	run -0 bash -c 'otp-keygen --state ~/.google_authenticator |
	    otp-uri -i "host" -A "user" --qr=ascii'
	ascii_to_pbm <<< "$output" > "$T/q.pbm"
	run scan "$T/q.pbm"
	assert_output --regexp '^otpauth://totp/host:user\?secret=[A-Z2-7]{32}&issuer=host$'
	secret=$(otp-uri --get=secret "$output")
	[ "$(head -n 1 "$T/.google_authenticator")" = "$secret" ]
}

@test "zsh and fish complete every --qr style" {
	root=$BATS_TEST_DIRNAME/..
	grep -qF -- "::style:(utf8 utf8-inverted ansi ascii)'" "$root/completions/zsh/_otp-uri"
	grep -qE -- "^complete -c otp-uri -l qr -f -a 'utf8 utf8-inverted ansi ascii'" "$root/completions/fish/otp-uri.fish"
	if command -v fish > /dev/null; then
		run -0 fish -c "source $root/completions/fish/otp-uri.fish; complete -C 'otp-uri --qr='"
		assert_line --partial -- '--qr=utf8-inverted'
	fi
}

#!/bin/sh
# demo.sh - `make demo`: the main jobs of otp-utils, run for real.
set -eu
: "${OTP_BIN:?}"
PATH="$OTP_BIN:$PATH"
KEY=JBSWY3DPEHPK3PXP
show() { printf '\n$ %s\n' "$*"; "$@"; }
have() { [ -x "$OTP_BIN/$1" ]; }

echo "otp-utils demo (tools from $OTP_BIN)"
show otp-gen 3132333435363738393031323334353637383930
show otp-gen --totp -d 8 -N @59 3132333435363738393031323334353637383930
show otp-gen --totp -b -r -w 2 "$KEY"
if have b32; then
	printf '\n$ echo "gr6d 5br7 25s6 vnck v4vl hlao re" | b32 -d --hex\n'
	echo "gr6d 5br7 25s6 vnck v4vl hlao re" | b32 -d --hex
fi
if have otp-verify; then
	code=$(otp-gen --totp -b -N 'now - 30 seconds' "$KEY")
	show otp-verify --totp -b -w 2 -v "$KEY" "$code" || true
fi
if have otp-uri; then
	# A new key has 160 bits (RFC 4226's recommendation): the 80-bit
	# example key above would rightly be warned about here.
	KEY160=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ
	show otp-uri --totp -i Example -A alice@example.com "$KEY160"
	uri=$(otp-uri --totp -i Example -A alice@example.com "$KEY160")
	show otp-uri --qr "$uri"
fi
if have otp-keygen; then
	show otp-keygen --scratch=3
fi

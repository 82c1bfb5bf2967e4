#!/bin/sh
# demo.sh - `make demo`: the main jobs of otp-utils, run for real.
set -eu
: "${OTP_BIN:?}"
PATH="$OTP_BIN:$PATH"
KEY=JBSWY3DPEHPK3PXP
# shellcheck source=tests/transcript.sh
. "$(dirname "$0")/transcript.sh"
show() { printf '\n$ %s\n' "$(words "$@")"; "$@"; }
have() { [ -x "$OTP_BIN/$1" ]; }

echo "otp-utils demo (tools from $OTP_BIN)"
show otp-gen 3132333435363738393031323334353637383930
show otp-gen --totp -d 8 -N @59 3132333435363738393031323334353637383930
show otp-gen --totp -b -r -w 2 "$KEY"
if have b32; then
	s="gr6d 5br7 25s6 vnck v4vl hlao re"
	printf '\n$ echo %s | b32 -d --hex\n' "$(quote "$s")"
	echo "$s" | b32 -d --hex
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

# The server side: a login through pam_otp.so, as sshd or login would run
# it, without root: pamtester drives the PAM stack and pam_wrapper reads
# the service file from a directory of ours instead of /etc/pam.d.
so=$(cd "${OTP_LIBDIR:-$OTP_BIN/../lib}" 2>/dev/null && pwd)/pam_otp.so
if ! have otp-keygen || [ ! -f "$so" ]; then
	printf '\n(no login shown: pam_otp.so or otp-keygen is not built)\n'
	exit 0
fi
if ! command -v pamtester >/dev/null ||
    ! ldconfig -p 2>/dev/null | grep -q libpam_wrapper.so; then
	printf '\n(no login shown: it needs pamtester and libpam-wrapper;'
	printf ' make deps installs them)\n'
	exit 0
fi
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
mkdir "$d/svc"
user=$(id -un)
echo "auth required $so secret=$d/state" >"$d/svc/otp-demo"
echo "auth required pam_deny.so" >"$d/svc/other"
# pamtester's output as a terminal would show it: the answer to the
# prompt ends its line; what the module logs (pam_syslog), which
# pam_wrapper writes to standard error as "PWRAP_ERROR[prog (pid)] -
# SYSLOG(3): MESSAGE", is the line syslog would have, on its own.
as_seen() {
	awk -v prompt="Verification code: " -v tag="pam_otp(otp-demo:auth)" '{
		if (index($0, prompt) == 1 && length($0) > length(prompt)) {
			print substr(prompt, 1, length(prompt) - 1)
			$0 = substr($0, length(prompt) + 1)
		}
		i = index($0, "PWRAP_")
		if (i == 0 || !match(substr($0, i),
		    /^PWRAP_[A-Z]+\[[^]]*\] - SYSLOG\([0-9]+\): /)) {
			print
			next
		}
		if (i > 1)
			print substr($0, 1, i - 1)
		print "(syslog) " tag ": " substr($0, i + RLENGTH)
	}'
}
login() {
	printf '\n$ echo %s | pamtester otp-demo %s authenticate\n' \
	    "$(quote "$1")" "$(quote "$user")"
	{ echo "$1" | LD_PRELOAD=libpam_wrapper.so PAM_WRAPPER=1 \
	    PAM_WRAPPER_SERVICE_DIR="$d/svc" pamtester otp-demo "$user" \
	    authenticate 2>&1 || true; } | as_seen
}
printf '\n# A login through the PAM service otp-demo, "auth required\n'
printf '# pam_otp.so secret=STATE": enrol %s (the key goes to the\n' "$user"
printf '# phone), then answer the prompt with the code of now.\n'
show otp-keygen --totp --disallow-reuse --scratch=0 --state "$d/state"
code=$(otp-keygen --print-state="$d/state" | otp-gen --totp -b -)
login "$code"
printf '\n# The same code again: refused (DISALLOW_REUSE), as is a wrong one.\n'
login "$code"

#!/bin/sh
# man-examples.sh BUILD - compile and run the EXAMPLES of the library's
# man 3 pages against the built <otputils.h> and libotputils.so, and
# check what each prints.  CC, CFLAGS and LDFLAGS as the build's (a
# sanitizer build's library needs its runtime linked in).
set -eu
build=${1:?usage: man-examples.sh BUILD}
cc=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# The first literal display of the EXAMPLES section, \e as a backslash.
example() {
	sed -n '/^\.Sh EXAMPLES/,/^\.Sh /p' "$1" |
	    sed -n '/^\.Bd -literal/,/^\.Ed/p' | sed '1d;$d' |
	    sed 's/\\e/\\/g'
}

build_one() {
	example "man/$1.3" > "$tmp/$1.c"
	# shellcheck disable=SC2086  # the flags are words
	if ! $cc -std=c11 -Wall -Wextra -Werror ${CFLAGS:-} \
	    -I"$build/include" ${LDFLAGS:-} -o "$tmp/$1" "$tmp/$1.c" \
	    -L"$build/lib" -lotputils -Wl,-rpath,"$build/lib"; then
		echo "man-examples: $1(3): the example does not compile" >&2
		fail=1
		return 1
	fi
}

# Each check: the page, what it must print (an extended regex), the
# output.
expect() {
	if printf '%s\n' "$3" | grep -Eqx "$2"; then
		echo "ok $1(3)"
	else
		echo "man-examples: $1(3): got \"$3\", want /$2/" >&2
		fail=1
	fi
}

if build_one otputils; then
	expect otputils '[A-Z2-7]{32}' "$("$tmp/otputils")"
fi
if build_one otp_token; then
	out=$("$tmp/otp_token" | tr '\n' ' ')
	expect otp_token '([0-9]{6}) accepted \1 refused ' "$out"
fi
if build_one otp_store; then
	printf 'JBSWY3DPEHPK3PXP\n" TOTP_AUTH\n12345678\n' > "$tmp/state"
	chmod 600 "$tmp/state"
	# A scratch code: accepted once, then refused (exit 1).
	for want in 'accepted exit 0' 'refused: .* exit 1'; do
		rc=0
		out=$("$tmp/otp_store" "$tmp/state" 12345678) || rc=$?
		expect otp_store "$want" "$out exit $rc"
	done
fi
exit $fail

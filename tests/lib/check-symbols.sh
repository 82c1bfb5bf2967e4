#!/bin/sh
# check-symbols.sh LIBRARY SYMBOLS-FILE - what the library exports is
# exactly what the Debian symbols file records, and every symbol is an
# otp_* name versioned OTPUTILS_*.
set -eu
lib=$1 symbols=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# NAME@VERSION of every defined dynamic symbol but the version nodes.
nm -D --defined-only "$lib" | awk '$2 != "A" { print $3 }' |
    sed 's/@@*/@/' | sort > "$tmp/exported"
sed -n 's/^ \([^ ]*@[^ ]*\) .*/\1/p' "$symbols" |
    grep -v '^OTPUTILS_[0-9.]*@' | sort > "$tmp/recorded"
fail=0
if grep -v '^otp_[a-z0-9_]*@OTPUTILS_[0-9.]*$' "$tmp/exported"; then
	echo "check-symbols: $lib exports the above: not otp_*@OTPUTILS_*" >&2
	fail=1
fi
if ! diff -u "$tmp/recorded" "$tmp/exported" >&2; then
	echo "check-symbols: $lib exports not what $symbols records" \
	    "(- recorded only, + exported only)" >&2
	fail=1
fi
[ "$fail" = 0 ] && echo "check-symbols: $(wc -l < "$tmp/exported")" \
    "symbols, all recorded in $symbols"
exit $fail

#!/bin/sh
# otpw-record.sh - record tests/vectors/otpw-hash.txt from Debian's
# otpw-gen (package otpw-bin): for each prefix, a short list and its
# file; each printed password is paired with the hash the file holds for
# its number.
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo '# PREFIX | PASSWORD as printed | HASH (recorded by otpw-record.sh)'
for pre in 's3cret' 'two words' 'x' 'pässwörd!'; do
	rm -f "$tmp/f"
	printf '%s\n%s\n' "$pre" "$pre" |
	    otpw-gen -h 6 -f "$tmp/f" 2>/dev/null | tr -d '\r' |
	    grep -E '^[0-9]{3} ' | sed 's/  /\n/g' | head -3 |
	    while read -r n a b; do
		printf '%s | %s %s | %s\n' "$pre" "$a" "$b" \
		    "$(grep "^$n" "$tmp/f" | cut -c4-)"
	    done
done

#!/bin/sh
# man-groff.sh PAGE... - render each page with groff as Debian's man(1)
# does and fail on any warning, or on a section heading missing from the
# rendering.  groff exits 0 after a warning and may drop the rest of the
# page (an mdoc macro name such as "An" at the start of a .%T argument),
# which mandoc -Tlint does not see.
fail=0
for page in "$@"; do
	warnings=$(groff -mandoc -Tutf8 -ww -z "$page" 2>&1)
	if [ -n "$warnings" ]; then
		printf '%s: groff warns:\n%s\n' "$page" "$warnings"
		fail=1
	fi
	text=$(groff -mandoc -Tutf8 -P-cbou "$page" 2>/dev/null)
	sed -n 's/^\.Sh //p' "$page" | while IFS= read -r heading; do
		printf '%s\n' "$text" | grep -qxF "$heading" ||
		    { printf '%s: section "%s" not rendered\n' "$page" \
		    "$heading"; exit 1; }
	done || fail=1
done
exit "$fail"

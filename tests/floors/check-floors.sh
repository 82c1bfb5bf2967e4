#!/bin/sh
# check-floors.sh OBJECT... - the core's objects (lib/*.o) may import only
# the core itself, libnettle, libqrencode and pure C library functions:
# no system call, no thread, no environment, no locale, no allocation.
# Prints every import outside that list and fails.  make check runs it.
# With -D_FORTIFY_SOURCE (Debian's build flags) the compiler calls the
# checked form __NAME_chk of some functions: it counts as NAME.
allowed='^(otp_[a-z0-9_]+|nettle_[a-z0-9_]+|QRcode_[A-Za-z0-9_]+|mem(cpy|move|set|cmp|chr)|str(len|nlen|chr|rchr|cmp|ncmp|cspn|spn)|explicit_bzero|snprintf|__errno_location|__stack_chk_fail|__(a|ub)san_[a-z0-9_]+|_GLOBAL_OFFSET_TABLE_)$'
status=0
for o in "$@"; do
	bad=$(nm -u "$o" | awk '{ n = $NF
	    if (n ~ /^__[a-z0-9_]+_chk$/) n = substr(n, 3, length(n) - 6)
	    print n }' | grep -Ev "$allowed" |
	    tr '\n' ' ')
	if [ -n "$bad" ]; then
		echo "check-floors: $o imports what the core may not: $bad" >&2
		status=1
	fi
done
[ $status = 0 ] && echo "check-floors: $# core objects import no system call"
exit $status

#!/bin/sh
# otpw-answer.sh PROMPT - the answer to an OTPW prompt, for pam-drive's
# PAM_DRIVE_ANSWER: $OTPW_PREFIX, then the password printed in the list
# $OTPW_LIST for each number the prompt "Password NNN[/NNN/NNN]: " names,
# as printed (with its space).
set -eu
nums=$(printf '%s\n' "$1" | sed -n 's/^Password \([0-9/]*\): $/\1/p' |
    tr / ' ')
out=$OTPW_PREFIX
for n in $nums; do
	pw=$(tr -d '\r' <"$OTPW_LIST" | grep -oE "(^|  )$n [^ ]+ [^ ]+" |
	    sed 's/^ *//' | cut -d' ' -f2-)
	out=$out$pw
done
printf '%s\n' "$out"

#!/usr/bin/env bats
# otp-store.bats - otp-store with file stores (no database): copy between
# state files with their state, resync from codes in a row, what a file
# store cannot do, and usage errors.  The PostgreSQL side is in
# tests/pg-store.bats.

bats_require_minimum_version 1.5.0

setup() {
	load common
	T=$BATS_TEST_TMPDIR
}

# ga_file PATH LINE...: a state file with the RFC key and these lines.
ga_file() {
	local p=$1
	shift
	printf '%s\n' "$RFC_B32" "$@" >"$p"
	chmod 0400 "$p"
}

@test "copy ga: to ga: keeps every byte, state and scratch codes included; -f to replace" {
	ga_file "$T/a" '" TOTP_AUTH' '" DISALLOW_REUSE 41152263' \
	    '" TIME_SKEW 2' 12345678
	run -0 otp-store copy "ga:$T/a" "ga:$T/b"
	cmp "$T/a" "$T/b"
	[[ $(stat -c %a "$T/b") == 400 ]]
	run -2 otp-store copy "ga:$T/a" "ga:$T/b"
	assert_output --partial "has a token already (use -f"
	run -0 otp-store -f copy "ga:$T/a" "ga:$T/b"
}

@test "resync a state file: TOTP from two codes in a row, the skew learnt, the codes used" {
	ga_file "$T/s" '" TOTP_AUTH' '" DISALLOW_REUSE'
	chmod 0600 "$T/s"
	# A phone 100 steps slow, on the real clock (the tool reads its own).
	now=$(date +%s)
	a=$(otp-gen --totp -N "@$((now - 3000))" "$RFC_HEX")
	b=$(otp-gen --totp -N "@$((now - 2970))" "$RFC_HEX")
	run -0 --separate-stderr otp-store resync "ga:$T/s" me "$a" "$b"
	later=$(date +%s)
	[[ $stderr == *"'me': the token's clock is ${output#-} steps behind ours: TIME_SKEW set to it, the codes given used" ]] ||
	    fail "$stderr"
	e1=$(((now - 2970) / 30 - now / 30))
	e2=$(((now - 2970) / 30 - later / 30))
	[[ $output == "$e1" || $output == "$e2" ]] ||
	    fail "skew $output, want $e1 or $e2"
	grep -qx "\" TIME_SKEW $output" "$T/s"
	# The phone's next code, as its slow clock makes it, works (checked
	# at the time the resync ended: a step may have begun meanwhile).
	c=$(otp-gen --totp -N "@$((now - 2940))" "$RFC_HEX")
	run -0 otp-verify -N "@$later" --state "$T/s" "$c"
	# The codes given are used.
	run -1 otp-verify -N "@$later" --state "$T/s" "$b"
}

@test "resync: HOTP from three codes; not in a row, or one code, is a clean no" {
	ga_file "$T/h" '" HOTP_COUNTER 1'
	chmod 0600 "$T/h"
	run -0 --separate-stderr otp-store resync "ga:$T/h" me \
	    "$(otp-gen -c 700 "$RFC_HEX")" "$(otp-gen -c 701 "$RFC_HEX")" \
	    "$(otp-gen -c 702 "$RFC_HEX")"
	assert_output 702
	[[ $stderr == *"counters 700 to 702, 699 ahead of the counter the store expected: it moves on to 703" ]] ||
	    fail "$stderr"
	grep -qx '" HOTP_COUNTER 703' "$T/h"
	cp "$T/h" "$T/h0"
	run -1 otp-store resync "ga:$T/h" me "$(otp-gen -c 800 "$RFC_HEX")" \
	    "$(otp-gen -c 802 "$RFC_HEX")"
	assert_output --partial "give codes in a row"
	cmp "$T/h" "$T/h0"
	run -2 otp-store resync "ga:$T/h" me 123456
	assert_output --partial "2 or 3 codes"
	run -2 otp-store resync "ga:$T/h" me 12345 123456
}

@test "what a file store has not: init, list, remove; usage errors" {
	ga_file "$T/a" '" TOTP_AUTH'
	run -2 otp-store init "ga:$T/a"
	assert_output --partial "the store cannot do that"
	run -2 otp-store list "ga:$T/a"
	run -2 otp-store remove "ga:$T/a" me
	run -2 otp-store
	assert_output --partial "a command is needed"
	run -2 otp-store frobnicate "ga:$T/a"
	assert_output --partial "not a command"
	run -2 otp-store --user=x list "ga:$T/a"
	assert_output --partial "copy's"
	run -2 otp-store list "mysql:x"
	assert_output --partial "unknown store scheme"
	run -2 otp-store copy "otpw:$T/u" "ga:$T/b"
	assert_output --partial "OTPW lists are printed, not copied"
	run -2 otp-store copy "oath:$T/u" "ga:$T/b"
	assert_output --partial "$T/u: read: No such file"
	printf '%s\n' "HOTP	a	-	$RFC_HEX" "HOTP	b	-	$RFC_HEX" >"$T/u"
	chmod 0600 "$T/u"
	run -2 otp-store copy "oath:$T/u" "ga:$T/b"
	assert_output --partial "holds one token: copy one --user"
	run -2 otp-store --bogus list "ga:$T/a"
	run -0 otp-store --help
	assert_output --partial "usage: otp-store"
	run -0 otp-store --version
	assert_output --regexp '^otp-store \(otp-utils\) '
}

@test "copy between a users file and state files, with the HOTP counter; what a line cannot hold is refused or named" {
	printf '%s\n' "HOTP	alice	-	$RFC_HEX	41	471723" \
	    "HOTP/T60	bob	-	$RFC_HEX" "HOTP/T30/8	carol	-	$RFC_HEX" \
	    "HOTP/T30	dave	1234	$RFC_HEX" \
	    "MOTP	mo	1234	e3152afee62599c8" >"$T/users"
	chmod 0600 "$T/users"
	# alice's line took counter 41: the next code is 42's.
	run -0 otp-store copy --user=alice "oath:$T/users" "ga:$T/a"
	grep -qx '" HOTP_COUNTER 42' "$T/a"
	run -0 otp-verify --state "$T/a" "$(otp-gen -c 42 "$RFC_HEX")"
	run -0 otp-store copy --user=bob "oath:$T/users" "ga:$T/b"
	grep -qx '" STEP_SIZE 60' "$T/b"
	run -0 otp-verify -N @1234567890 --state "$T/b" \
	    "$(otp-gen --totp -s 60 -N @1234567890 "$RFC_HEX")"
	# pam_oath never takes a code twice: nor does the state file made
	# from its line (DISALLOW_REUSE).
	grep -qx '" DISALLOW_REUSE 20576131' "$T/b"
	run -1 otp-verify -N @1234567890 --state "$T/b" \
	    "$(otp-gen --totp -s 60 -N @1234567890 "$RFC_HEX")"
	assert_output --partial "already used"
	# 8 digits, a PIN: lines a state file's other reader would drop.
	run -2 otp-store copy --user=carol "oath:$T/users" "ga:$T/c"
	assert_output --partial "'carol': a token of 8 digits"
	assert_output --partial "a state file holds 6 digits over SHA1 without a PIN"
	run -2 otp-store copy --user=dave "oath:$T/users" "ga:$T/d"
	assert_output --partial "'dave': a token of 6 digits over SHA1 or with a PIN"
	[[ ! -e $T/c && ! -e $T/d ]]
	run -2 otp-store copy --user=mo "oath:$T/users" "ga:$T/m"
	assert_output --partial "cannot be held by the other store"
	assert_output --partial "Mobile-OTP"
	run -2 otp-store copy --user=eve "oath:$T/users" "ga:$T/e"
	# Back into a users file: a new line, pam_oath's format; the scratch
	# codes and the skew are named, not carried.
	printf '%s\n' "$RFC_B32" '" HOTP_COUNTER 7' 12345678 >"$T/h"
	chmod 0400 "$T/h"
	run -0 otp-store copy --user=frank "ga:$T/h" "oath:$T/users"
	assert_output --partial "1 scratch code not copied"
	grep -qx "HOTP	frank	-	$RFC_HEX	7" "$T/users"
	run -0 otp-verify --usersfile "$T/users" --user=frank \
	    "$(otp-gen -c 7 "$RFC_HEX")"
	run -2 otp-store copy --user=frank "ga:$T/h" "oath:$T/users"
	assert_output --partial "use -f"
	printf '%s\n' "$RFC_B32" '" TOTP_AUTH' '" STEP_SIZE 45' >"$T/t45"
	chmod 0400 "$T/t45"
	run -2 otp-store copy --user=gil "ga:$T/t45" "oath:$T/users"
	assert_output --partial "30 or 60"
}

@test "unlock, reseal, log, prune: a database's; their options are theirs alone" {
	ga_file "$T/a" '" TOTP_AUTH'
	for c in "unlock ga:$T/a me" "reseal ga:$T/a" "log ga:$T/a" \
	    "prune --before=now ga:$T/a"; do
		# shellcheck disable=SC2086 # the command's words
		run -2 otp-store $c
		assert_output --partial "the store cannot do that"
	done
	run -2 otp-store prune "ga:$T/a"
	assert_output --partial "prune needs --before=TIME"
	run -2 otp-store --since=now list "ga:$T/a"
	assert_output --partial "--since is log's"
	run -2 otp-store --before=now log "ga:$T/a"
	assert_output --partial "--before is prune's"
	run -2 otp-store --user=a --user=b log "ga:$T/a"
	assert_output --partial "log: one --user"
	run -2 otp-store --user=a unlock "ga:$T/a" me
	assert_output --partial "copy's"
	run -2 otp-store --before=someday prune "ga:$T/a"
	assert_output --partial "--before"
	run -2 otp-store unlock "ga:$T/a"
	assert_output --partial "takes URL and USER"
	run -2 otp-store reseal "ga:$T/a" x
	assert_output --partial "takes one URL"
}

@test "list a users file: each token line's user and kind, in its order; none is said" {
	printf '%s\n' "# comment" "HOTP/T30	bob	-	$RFC_HEX" \
	    "HOTP	alice	-	$RFC_HEX	3" "MOTP	mo	1234	e3152afee62599c8" \
	    "HOTP	bob	-	$RFC_HEX" >"$T/users"
	chmod 0600 "$T/users"
	run -0 --separate-stderr otp-store list "oath:$T/users"
	assert_output $'bob\ttotp\nalice\thotp\nmo\tmotp\nbob\thotp'
	[[ -z $stderr ]]
	printf '# no tokens yet\n' >"$T/users"
	run -0 --separate-stderr otp-store list "oath:$T/users"
	assert_output ""
	assert_equal "$stderr" "otp-store: $T/users: no tokens"
}

@test "a users-file line never used, into a state file: counter 1 there, said; into a users file, the same line" {
	printf '%s\n' "HOTP	alice	-	$RFC_HEX" >"$T/users"
	chmod 0600 "$T/users"
	run -0 --separate-stderr otp-store copy --user=alice "oath:$T/users" \
	    "ga:$T/a"
	[[ $stderr == *"'alice': a state file's HOTP starts at counter 1: the token's first code (counter 0) is not taken there"* ]] ||
	    fail "$stderr"
	grep -qx '" HOTP_COUNTER 1' "$T/a"
	! grep -q HOTP_ZERO "$T/a" || fail "HOTP_ZERO left in a state file"
	run -0 otp-verify --state "$T/a" "$(otp-gen -c 1 "$RFC_HEX")"
	# Between users files the line stays one never used: code 0.
	run -0 otp-store copy "oath:$T/users" "oath:$T/u2"
	grep -qx "HOTP	alice	-	$RFC_HEX" "$T/u2"
	run -0 otp-verify --usersfile "$T/u2" --user=alice \
	    "$(otp-gen -c 0 "$RFC_HEX")"
	# The debugger reads such a line at counter 0, whatever its -w.
	run -0 --separate-stderr otp-verify --find-skew -w 100 \
	    --usersfile "$T/users" --user=alice "$(otp-gen -c 0 "$RFC_HEX")" \
	    "$(otp-gen -c 1 "$RFC_HEX")"
	assert_output "+0 counters: the token is at counter 0; next expect -c 2"
}

@test "a state file's HOTP counter that wrong codes moved past the token: --find-skew says it is behind, resync sets it back" {
	ga_file "$T/h" '" HOTP_COUNTER 1'
	chmod 0600 "$T/h"
	# Under the original module's rule each wrong code moves it on.
	for i in 1 2 3 4 5; do
		run -1 otp-verify --state "$T/h" 000000
	done
	grep -qx '" HOTP_COUNTER 6' "$T/h"
	run -1 otp-verify --state "$T/h" "$(otp-gen -c 2 "$RFC_HEX")"
	grep -qx '" HOTP_COUNTER 7' "$T/h"
	run -0 --separate-stderr otp-verify --find-skew --state "$T/h" \
	    "$(otp-gen -c 2 "$RFC_HEX")" "$(otp-gen -c 3 "$RFC_HEX")"
	assert_output "-5 counters: the token is at counter 2; next expect -c 4"
	[[ $stderr == *"the store expects counter 7 next: the token is 5 behind"* ]] ||
	    fail "$stderr"
	run -0 --separate-stderr otp-store resync "ga:$T/h" me \
	    "$(otp-gen -c 2 "$RFC_HEX")" "$(otp-gen -c 3 "$RFC_HEX")"
	assert_output -- -3
	[[ $stderr == *"counters 2 to 3, 5 behind the counter the store expected: it is set back to 4" ]] ||
	    fail "$stderr"
	run -0 otp-verify --state "$T/h" "$(otp-gen -c 4 "$RFC_HEX")"
}

#!/usr/bin/env bats
# otp-verify --interactive: the clock debugger.  Through pipes: one answer
# line per code, with codes made by oathtool at chosen offsets, on a clock
# of its own (--now) and on the real one; the diagnosis, the drift verdict,
# the stores read and left byte-identical, no escape byte, no key.  Through
# a pseudo-terminal (tests/pty-drive.py): the view ticks, a typed code gets
# its answer, q and Ctrl-D leave, SIGINT, SIGTERM and a resize, and the
# terminal's modes are as they were after each.

bats_require_minimum_version 1.5.0
load common

# 1234567890 begins a 30-second step: with --now @$NOW a run stays in one
# step however slowly it goes (a sanitized build included).
NOW=1234567890

setup() {
	T=$BATS_TEST_TMPDIR
	ROOT=$BATS_TEST_DIRNAME/..
	DRIVE=$BATS_TEST_DIRNAME/pty-drive.py
}

# code OFFSET [--totp=ALG] [OATHTOOL OPTION]...: the code OFFSET steps
# from $NOW.
code() {
	local off=$1 totp=--totp
	shift
	if [[ ${1-} == --totp=* ]]; then
		totp=$1
		shift
	fi
	oathtool "$totp" "$@" -N "@$((NOW + 30 * off))" "$RFC_HEX"
}

# A state file (mode 0600) with WINDOW_SIZE 3 and TIME_SKEW +2.
state_file() {
	printf '%s\n' "$RFC_B32" '" TOTP_AUTH' '" WINDOW_SIZE 3' \
	    '" TIME_SKEW 2' > "$T/ga"
	chmod 600 "$T/ga"
}

users_file() {
	printf 'HOTP/T30 alice - %s\nHOTP bob - %s 5\n' "$RFC_HEX" \
	    "$RFC_HEX" > "$T/users"
	chmod 600 "$T/users"
}

# drive STEP... -- ARG...: otp-verify ARG... on a pseudo-terminal.
drive() {
	local steps=()
	while [ "$1" != -- ]; do
		steps+=("$1")
		shift
	done
	shift
	run "$PY" "$DRIVE" "${steps[@]}" -- "$OTP_BIN/otp-verify" "$@"
}

@test "pipe: codes at -2, 0 and +3 steps on --now's clock, each on one line stamped with that clock" {
	run --separate-stderr otp-verify -i --totp -N "@$NOW" "$RFC_HEX" \
	    <<<"$(code -2)
$(code 0)
$(code 3)"
	assert_success
	[ -z "$stderr" ]
	assert_equal "${#lines[@]}" 5
	assert_line --index 0 "2009-02-13T23:31:30Z code 1 -2 no 2 steps behind, -60 s +-15; refused (window 0: -w 0, the default)"
	assert_line --index 1 "2009-02-13T23:31:30Z code 2 0 yes the current step, +0 s +-15; admitted (window 0: -w 0, the default)"
	assert_line --index 2 --regexp '^2009-02-13T23:31:30Z drift 2 [-+][0-9]+ [0-9]+ spread '
	assert_line --index 3 "2009-02-13T23:31:30Z code 3 +3 no 3 steps ahead, +90 s +-15; refused (window 0: -w 0, the default)"
	# Codes read at once from -2 and +3 steps cannot both be right.
	assert_line --index 4 --regexp '^2009-02-13T23:31:30Z drift 3 [-+][0-9]+ [0-9]+ spread the codes disagree \(-60 to \+129 s\)'
}

@test "pipe: -w sets what is admitted; --now moves on with the real clock" {
	run --separate-stderr otp-verify -i -w 2 --totp -N "@$((NOW + 20))" \
	    "$RFC_HEX" <<<"$(code 2)
$(code 3)"
	assert_success
	assert_line --index 0 --regexp '^2009-02-13T23:31:(5[0-9])Z code 1 \+2 yes .*admitted \(window -2\.\.\+2: -w 2\)$'
	assert_line --index 1 --regexp ' code 2 \+3 no .*refused \(window -2\.\.\+2: -w 2\)$'
	# Seconds later on its own clock: the stamp follows it (the clock
	# starts once the options are read: a slow start, as under ASan,
	# takes up to 2 s of the 4).
	run bash -c "{ sleep 4; echo $(code 0); } | otp-verify -i --totp -N @$NOW $RFC_HEX"
	assert_success
	assert_output --regexp '^2009-02-13T23:31:3[2-9]Z code 1 0 yes '
}

@test "pipe: the real clock: codes made now at -2, 0 and +3 steps (a step boundary tolerated)" {
	local now want got i
	for i in 1 2 3; do
		now=$(date +%s)
		run --separate-stderr otp-verify -i --totp "$RFC_HEX" <<<"$(
		    oathtool --totp -N "@$((now - 60))" "$RFC_HEX")
$(oathtool --totp -N "@$now" "$RFC_HEX")
$(oathtool --totp -N "@$((now + 90))" "$RFC_HEX")"
		assert_success
		got=$(awk '$2 == "code" { printf "%s ", $4 }' <<<"$output")
		# A step may have begun between making and reading them.
		[[ $got == "-2 0 +3 " || $got == "-3 -1 +2 " ]] && break
	done
	[[ $got == "-2 0 +3 " || $got == "-3 -1 +2 " ]]
	# Stamped with the time read: ISO 8601 UTC, within seconds of now.
	want=$(date -u +%Y-%m-%dT%H:%M)
	assert_line --index 0 --regexp "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z code 1 "
	[[ $output == *"$want"* || $output == *"$(date -u -d '1 minute ago' +%Y-%m-%dT%H:%M)"* ]]
}

@test "pipe: a code of the wrong digits, algorithm or encoding is diagnosed; two such give the parameters verdict" {
	run --separate-stderr otp-verify -i -d 6 --totp -N "@$NOW" "$RFC_HEX" \
	    <<<"$(code 0 -d 8)
$(code 0 --totp=SHA256)"
	assert_success
	assert_line --index 0 "2009-02-13T23:31:30Z code 1 none no no step within a day of now gives it; diagnosis: 8 digits, not 6 (step 41152263, offset 0)"
	assert_line --index 1 --partial "code 2 none no no step within a day of now gives it; diagnosis: algorithm SHA256, not SHA1"
	assert_line --index 2 "2009-02-13T23:31:30Z drift 2 - - parameters no step near now gives these codes: fix the parameters (see the diagnosis)"
	# The key given in hex where the phone has it as Base32.
	run --separate-stderr otp-verify -i --totp -N "@$NOW" 2345ABCD2345ABCD \
	    <<<"$(oathtool --totp -b -N "@$NOW" 2345ABCD2345ABCD)"
	assert_success
	assert_output --partial "diagnosis: the key is Base32 (-b), not hex"
	# Nothing explains it.
	run --separate-stderr otp-verify -i --totp -N "@$NOW" "$RFC_HEX" \
	    <<<000000
	assert_success
	assert_output --partial "no common mistake explains it"
}

@test "pipe: a time-zone offset is named: within a day as a place, beyond it by the diagnosis" {
	run --separate-stderr otp-verify -i --totp -N "@$NOW" "$RFC_HEX" \
	    <<<"$(code 240)
$(code -180)"
	assert_success
	assert_line --index 0 --partial "code 1 +240 no 240 steps ahead, +7200 s +-15 (about 2 h: a time-zone error?)"
	assert_line --index 1 --partial "code 2 -180 no 180 steps behind, -5400 s +-15 (about 1 h 30 min: a time-zone error?)"
	# A start time two days late: no step within a day; the diagnosis
	# finds it.
	run --separate-stderr otp-verify -i -S @172800 --totp -N "@$NOW" \
	    "$RFC_HEX" <<<"$(code 0)"
	assert_success
	assert_output --partial "diagnosis: start time 1970-01-01 00:00:00 UTC"
}

@test "pipe: two codes of different steps give a drift estimate and a verdict" {
	# A phone about 95 s ahead: its code now and the one before it.
	run --separate-stderr otp-verify -i --totp -N "@$NOW" "$RFC_HEX" \
	    <<<"$(code 3)
$(code 2)"
	assert_success
	assert_equal "${#lines[@]}" 3
	assert_line --index 2 "2009-02-13T23:31:30Z drift 2 +94 5 clock the phone's clock is 94 s +-5 ahead of the server's; whether the server's is synchronised is unknown: check it, else fix the phone's"
	# The same code twice is one step: no verdict.
	run otp-verify -i --totp -N "@$NOW" "$RFC_HEX" <<<"$(code 3)
$(code 3)"
	assert_success
	refute_output --partial drift
}

@test "pipe: a malformed line is an error line, the rest is answered, the exit status 2" {
	run --separate-stderr otp-verify -i --totp -N "@$NOW" "$RFC_HEX" \
	    <<<"

# a comment
12345
12a456
$(code 0 | sed 's/.../& /')
12345678901"
	assert_failure 2
	assert_equal "${#lines[@]}" 4
	assert_line --index 0 "2009-02-13T23:31:30Z error 4 not a code: want 6 to 10 digits"
	assert_line --index 1 "2009-02-13T23:31:30Z error 5 not a code: character 3 is not a digit"
	assert_line --index 2 --partial "Z code 6 0 yes the current step"
	assert_line --index 3 "2009-02-13T23:31:30Z error 7 not a code: character 11 is not a digit"
	# Empty input: nothing to say, success.
	run otp-verify -i --totp -N "@$NOW" "$RFC_HEX" </dev/null
	assert_success
	assert_output ""
}

@test "pipe: no escape byte, no key, in any answer" {
	local k b32=$RFC_B32
	k=$(printf '%s' "$RFC_HEX")
	run otp-verify -i --totp -N "@$NOW" "$RFC_HEX" <<<"$(code 0)
$(code 3)
$(code 0 -d 8)
x"
	[[ $output != *$'\e'* ]]
	[[ $output != *"$k"* && $output != *"$b32"* && $output != *GEZDGNBV* ]]
}

@test "pipe: a state file: its WINDOW_SIZE and TIME_SKEW decide; the file is byte-identical after a right code" {
	state_file
	sha256sum "$T/ga" > "$T/sum"
	cp -p "$T/ga" "$T/ga.before"
	local stamp
	stamp=$(stat -c %i.%Y.%a "$T/ga")
	run --separate-stderr otp-verify -i -N "@$NOW" --state "$T/ga" \
	    <<<"$(code 3)
$(code 0)"
	assert_success
	assert_line --index 0 --partial "code 1 +3 yes 3 steps ahead, +90 s +-15; admitted (window +1..+3: WINDOW_SIZE 3, TIME_SKEW +2)"
	assert_line --index 1 --partial "code 2 0 no the current step, +0 s +-15; refused (window +1..+3: WINDOW_SIZE 3, TIME_SKEW +2)"
	sha256sum -c "$T/sum"
	cmp "$T/ga" "$T/ga.before"
	# Not replaced, not touched, its mode kept.
	[ "$(stat -c %i.%Y.%a "$T/ga")" = "$stamp" ]
	# The same file through --store=ga:, with no lock left beside it.
	run otp-verify -i -N "@$NOW" --store "ga:$T/ga" <<<"$(code 3)"
	assert_success
	assert_output --partial "code 1 +3 yes"
	cmp "$T/ga" "$T/ga.before"
	[ "$(ls -A "$T" | grep -v '^separate-stderr' | tr '\n' ' ')" = \
	    "ga ga.before sum " ]
	[[ $output != *"$RFC_B32"* ]]
}

@test "pipe: a users file: --user's line, -w its window; the file is byte-identical after a right code" {
	users_file
	cp -p "$T/users" "$T/users.before"
	run --separate-stderr otp-verify -i -N "@$NOW" --usersfile "$T/users" \
	    --user alice <<<"$(code 5)
$(code 6)"
	assert_success
	assert_line --index 0 --partial "code 1 +5 yes 5 steps ahead, +150 s +-15; admitted (window -5..+5: the users file's window 5)"
	assert_line --index 1 --partial "code 2 +6 no"
	run otp-verify -i -N "@$NOW" -w 1 --store "oath:$T/users" \
	    --user alice <<<"$(code 0)"
	assert_success
	assert_output --partial "admitted (window -1..+1: the users file's window 1 (-w))"
	cmp "$T/users" "$T/users.before"
	[ "$(ls -A "$T" | grep -v '^separate-stderr' | tr '\n' ' ')" = \
	    "users users.before " ]
	# An unknown user.
	run --separate-stderr otp-verify -i --usersfile "$T/users" --user carol \
	    </dev/null
	assert_failure 2
	[[ $stderr == *"'carol'"* ]]
	[[ $stderr != *"$RFC_HEX"* ]]
	cmp "$T/users" "$T/users.before"
	# A line of 8 digits with a PIN: codes of 8 digits; the PIN unsaid.
	printf 'HOTP/T30/8 carol 4711 %s\n' "$RFC_HEX" > "$T/users"
	cp -p "$T/users" "$T/users.before"
	run --separate-stderr otp-verify -i -N "@$NOW" --usersfile "$T/users" \
	    --user carol <<<"$(code 0 -d 8)
$(code 0)"
	assert_success
	assert_line --index 0 --partial "code 1 0 yes the current step"
	assert_line --index 1 --partial "diagnosis: 6 digits, not 8"
	[[ $output$stderr != *4711* ]]
	cmp "$T/users" "$T/users.before"
}

@test "root debugs a user's state file: the debuggers only read, whoever owns it" {
	[ "$(id -u)" = 0 ] || skip "needs root to make a file of another user's"
	state_file
	chown nobody "$T/ga"
	cp -p "$T/ga" "$T/ga.before"
	run --separate-stderr otp-verify -i -N "@$NOW" --state "$T/ga" \
	    <<<"$(code 3)"
	assert_success
	assert_output --partial "code 1 +3 yes"
	run --separate-stderr otp-verify --diagnose -N "@$NOW" --state "$T/ga" \
	    "$(code 0 --totp=SHA256)"
	assert_success
	run --separate-stderr otp-verify --find-skew -N "@$NOW" --state "$T/ga" \
	    "$(code 3)" "$(code 4)"
	assert_success
	cmp "$T/ga" "$T/ga.before"
	# A login still refuses it, and says why.
	run --separate-stderr otp-verify -N "@$NOW" --state "$T/ga" "$(code 0)"
	assert_failure 2
	[[ $stderr == *"owned by nobody (uid $(id -u nobody)), not root (uid 0); --no-strict-owner allows it" ]]
}

@test "--diagnose and --find-skew take the key from --state, --usersfile and --store" {
	state_file
	users_file
	cp "$T/ga" "$T/ga.before"
	cp "$T/users" "$T/users.before"
	run --separate-stderr otp-verify --diagnose -N "@$NOW" --state "$T/ga" \
	    "$(code 0 --totp=SHA256)"
	assert_success
	assert_output "algorithm SHA256, not SHA1 (step 41152263, offset 0)"
	run --separate-stderr otp-verify --diagnose -N "@$NOW" \
	    --usersfile "$T/users" --user alice "$(code 0 -d 8)"
	assert_success
	assert_output "8 digits, not 6 (step 41152263, offset 0)"
	run --separate-stderr otp-verify --find-skew -N "@$NOW" \
	    --store "oath:$T/users" --user alice "$(code 3)" "$(code 4)"
	assert_success
	assert_output "+3 steps (+90 s): the client's clock is 1 min 30 s ahead"
	run --separate-stderr otp-verify --find-skew -N "@$NOW" \
	    --state "$T/ga" "$(code -2)" "$(code -1)" "$(code 0)"
	assert_success
	assert_output "-2 steps (-60 s): the client's clock is 1 min behind"
	cmp "$T/ga" "$T/ga.before"
	cmp "$T/users" "$T/users.before"
	run --separate-stderr otp-verify --find-skew --state "$T/ga" 123456
	assert_failure 2
	[[ $stderr == *"--find-skew wants 2 or 3 codes"* ]]
	run --separate-stderr otp-verify --diagnose --state "$T/ga"
	assert_failure 2
	[[ $stderr == *"--diagnose wants one code"* ]]
}

@test "options that do not fit --interactive are usage errors (exit 2), naming no secret" {
	state_file
	local bad
	while IFS='|' read -r bad; do
		# shellcheck disable=SC2086 # the words of one case
		run --separate-stderr otp-verify $bad </dev/null
		[ "$status" -eq 2 ] || { echo "$bad: status $status"; false; }
		[ -n "$stderr" ]
		[[ $stderr != *"$RFC_HEX"* && $stderr != *"$RFC_B32"* ]]
	done <<EOF
-i --totp -
-i --totp @-
-i --totp $RFC_HEX 123456
-i --totp
--around=1 --totp $RFC_HEX 123456
--show-key --totp $RFC_HEX 123456
-i --around=31 --totp $RFC_HEX
-i --around=x --totp $RFC_HEX
-i --steam $RFC_HEX
-i --state $T/ga 123456
-i --state $T/ga --dry-run
-i --state $T/ga --no-skew-adjust
-i --state $T/ga -w 3
-i --state $T/ga --totp
-i --state $T/ga -b
-i --state $T/ga --user alice
-i --otpw=$T/ga
-i --radius --state-dir=$T
-i --state $T/missing
EOF
	run --separate-stderr otp-verify -i -N @0 -S @60 --totp "$RFC_HEX"
	assert_failure 2
	[[ $stderr == *"--now is before --start-time"* ]]
}

@test "--help and the man page describe --interactive, --around and --show-key" {
	run otp-verify --help
	assert_success
	assert_output --partial "-i, --interactive"
	assert_output --partial "--around=N"
	assert_output --partial "--show-key"
	run grep -c 'Fl -around\|Fl -show-key\|Fl -interactive' \
	    "$ROOT/man/otp-verify.1"
	[ "$output" -ge 3 ]
}

@test "terminal: the view ticks: the clocks, the sync state, the codes around now, a countdown" {
	drive wait:"30 s left" wait:"29 s left" send:q -- -i --totp \
	    -N "@$NOW" "$RFC_HEX"
	assert_success
	assert_line --partial "[pty] status=0 termios=same stty=same"
	assert_output --partial "UTC  2009-02-13T23:31:30Z"
	assert_output --partial "UTC  2009-02-13T23:31:31Z"
	assert_output --partial "Clock  unknown (--now: a clock of our own)"
	# Steps -3..+3 by default, the current one marked, the codes right.
	assert_output --partial "  *  +0  "
	assert_output --partial " -3  "
	assert_output --partial " +3  "
	assert_output --partial "$(code -3)"
	assert_output --partial "$(code 0)  30 s left  admitted"
	assert_output --partial "$(code 3)"
	refute_output --partial "$(code 4)"
	[[ $output != *"$RFC_HEX"* && $output != *"$RFC_B32"* ]]
}

@test "terminal: local time in TZ; the real clock's sync state is read, never guessed" {
	TZ=Europe/Paris drive wait:"s left" send:q -- -i --totp -N "@$NOW" \
	    "$RFC_HEX"
	assert_success
	assert_output --partial "Local  2009-02-14 00:31:30 CET"
	drive wait:"s left" send:q -- -i --totp "$RFC_HEX"
	assert_success
	assert_output --regexp "Clock  (synchronised, estimated error [0-9]+ ms|NOT synchronised|unknown \(adjtimex)"
}

@test "terminal: a typed code gets its answer, Backspace edits, Enter sends; q leaves and restores the terminal" {
	drive wait:"s left" send:"9\x7f$(code 3)\r" wait:"3 steps ahead" \
	    send:"$(code 2)\r" wait:"Drift" send:"12\r" \
	    wait:"A code has 6 to 10 digits." send:q -- \
	    -i --totp -N "@$NOW" "$RFC_HEX"
	assert_success
	assert_output --partial "3 steps ahead, +90 s"
	assert_output --partial "refused (window 0: -w 0, the default)"
	assert_output --partial "Drift  the phone's clock is 94 s"
	assert_line --partial "[pty] status=0 termios=same stty=same"
	# The alternate screen was left; the answers stay on the screen.
	[[ $output == *$'\e[?1049l'* ]]
	[[ ${output##*$'\e[?1049l'} == *"3 steps ahead"* ]]
}

@test "terminal: Ctrl-D leaves and restores the terminal" {
	drive wait:"s left" send:"12\x04" -- -i --totp -N "@$NOW" "$RFC_HEX"
	assert_success
	assert_line --partial "[pty] status=0 termios=same stty=same"
}

@test "terminal: SIGTERM and SIGINT (Ctrl-C) restore the terminal, then end by the signal" {
	drive wait:"s left" send:"123" signal:TERM -- -i --totp -N "@$NOW" \
	    "$RFC_HEX"
	assert_success
	assert_line --partial "[pty] status=143 termios=same stty=same"
	[[ $output == *$'\e[?1049l'* ]]
	drive wait:"s left" send:"\x03" -- -i --totp -N "@$NOW" "$RFC_HEX"
	assert_success
	assert_line --partial "[pty] status=130 termios=same stty=same"
	drive wait:"s left" signal:HUP -- -i --totp -N "@$NOW" "$RFC_HEX"
	assert_line --partial "[pty] status=129 termios=same stty=same"
}

@test "terminal: every other signal that ends the program restores the terminal first" {
	local sig num
	# SIGQUIT and SIGABRT would dump a core.
	ulimit -c 0
	for sig in USR1 USR2 ALRM QUIT PIPE VTALRM XCPU RTMIN ABRT SEGV; do
		num=$("$PY" -c "import signal; print(int(signal.SIG$sig))")
		drive wait:"s left" send:"12" signal:"$sig" -- -i --totp \
		    -N "@$NOW" "$RFC_HEX"
		assert_success
		assert_line --partial "[pty] status=$((128 + num)) termios=same stty=same"
		# The alternate screen left, the cursor shown again.
		[[ $output == *$'\e[?25h\e[?1049l'* ]] || {
			echo "SIG$sig: the alternate screen was not left"
			false
		}
	done
}

@test "terminal: a resize redraws at the new size" {
	drive wait:"s left" mark resize:20x50 signal:WINCH \
	    wait:$'otp-verify --interactive: type the phone\'s code,\e[K' \
	    send:q -- -i --totp -N "@$NOW" "$RFC_HEX"
	assert_success
	# 50 columns: each line wrapped at a blank; 20 rows: fewer steps
	# around now.
	local after=${output##*$'\e[2J'}
	[[ $after == *$'code,\e[K\r\r\n       then Enter; q or Ctrl-D leaves\e[K'* ]]
	[[ $after != *" -3  "* && $after == *" -2  "* ]]
	# The modes as they were (stty -a shows the new size too).
	assert_line --partial "[pty] status=0 termios=same"
}

@test "terminal: --around=N steps either side; --show-key shows the key, only then" {
	drive wait:"s left" send:q -- -i --around=1 --totp -N "@$NOW" \
	    "$RFC_HEX"
	assert_success
	assert_output --partial "$(code 1)"
	refute_output --partial "$(code 2)"
	refute_output --partial "$RFC_B32"
	drive wait:"s left" send:q -- -i --around=0 --show-key --totp \
	    -N "@$NOW" "$RFC_HEX"
	assert_success
	assert_output --partial "Key    $RFC_B32 (Base32)"
	refute_output --partial "$(code 1)"
}

@test "terminal: a state file's view: its window and skew; the file unchanged after a right code" {
	state_file
	cp -p "$T/ga" "$T/ga.before"
	LC_ALL=C.UTF-8 drive wait:"s left" send:"$(code 3)\r" \
	    wait:"3 steps ahead" send:q -- -i -N "@$NOW" --state "$T/ga"
	assert_success
	assert_output --partial "Admits steps +1..+3 (WINDOW_SIZE 3, TIME_SKEW +2)"
	assert_output --partial "3 steps ahead, +90 s ±15: admitted"
	assert_output --partial "Token  ga:$T/ga: TOTP SHA1, 6 digits, 30 s steps"
	cmp "$T/ga" "$T/ga.before"
	LC_ALL=C drive wait:"s left" send:"$(code 3)\r" \
	    wait:"3 steps ahead" send:q -- -i -N "@$NOW" --state "$T/ga"
	assert_output --partial "3 steps ahead, +90 s +-15: admitted"
	cmp "$T/ga" "$T/ga.before"
	[[ $output != *"$RFC_B32"* ]]
}

@test "man page: the pipe example prints what the page shows" {
	local want
	want=$(sed -n "/^\\\$ printf '992085/,/^\\.Ed/p" "$ROOT/man/otp-verify.1" |
	    sed -e '1,2d' -e '$d')
	[ "$(wc -l <<<"$want")" -eq 3 ]
	run otp-verify -i --totp -N @1234567890 \
	    3132333435363738393031323334353637383930 <<<'992085
240500'
	assert_success
	assert_output "$want"
}

@test "the debugger calls nothing of otp-verify.c: what both need is lib/'s" {
	# Every function otp-verify.c defines, but main, is static (KNF: the
	# type on the line before the name).
	run awk 'FNR > 1 && /^[a-z_][a-z0-9_]*\(/ && prev !~ /^static/ &&
	    $0 !~ /^main\(/ { print FILENAME ":" FNR ": " $0 }
	    { prev = $0 }' "$ROOT/cmd/otp-verify.c"
	assert_output ""
	# The debugger uses the diagnosis's words from lib/.
	run grep -n 'finding_text' "$ROOT/cmd/otp-verify-live.h" \
	    "$ROOT/cmd/otp-verify-live.c"
	assert_failure 1
}

# frame_words COLS: the words of the last frame the view drew before it
# left (standard input: what the terminal showed), one a line, but for
# numbers and times, which tick; fails when a row is wider than COLS.
frame_words() {
	"$PY" -c '
import re, sys
cols = int(sys.argv[1])
out = sys.stdin.read()
frame = out[:out.rindex("\x1b[?1049l")]
frame = frame[frame.rindex("\x1b[H") + 3:].split("\x1b[J")[0]
bad = 0
rows = re.split(r"\x1b\[K[\r\n]*", frame)
for row in rows:
    if len(row) > cols:
        print("too wide: " + row)
        bad = 1
for w in sorted(set(" ".join(rows).split())):
    if not re.fullmatch(r"[-+0-9:.()]+", w):
        print(w)
sys.exit(bad)
' "$1"
}

@test "terminal: lines wrap at blanks, never inside a word, at any width" {
	local cols wide
	users_file
	# A short name: a word wider than the terminal is cut, all else is
	# not.
	cd "$T"
	# The words at a width where nothing wraps...
	run "$PY" "$DRIVE" --size 100x400 wait:"Code: " send:"$(code 3)\r" \
	    wait:refused mark send:"$(code 2)\r" wait:Drift send:q -- \
	    "$OTP_BIN/otp-verify" -i -w 1 -N "@$NOW" --store oath:users \
	    --user alice
	assert_success
	wide=$(frame_words 400 <<<"$output")
	[[ $wide == *yourself* && $wide == *resync* ]]
	# ...are the words at every narrower one: none cut in two.
	for cols in 79 61 47 33 24; do
		run "$PY" "$DRIVE" --size "100x$cols" wait:"Code: " \
		    send:"$(code 3)\r" wait:refused mark send:"$(code 2)\r" \
		    wait:Drift send:q -- "$OTP_BIN/otp-verify" -i -w 1 \
		    -N "@$NOW" --store oath:users --user alice
		assert_success
		run frame_words "$cols" <<<"$output"
		assert_success
		assert_output "$wide"
	done
}

# sync_env: in PRELOAD, what makes the kernel's word on the clock the
# one SHIM_SYNC says (tests/shim/clocksync.c), after ASan's runtime
# under make sanitize.
sync_env() {
	local so=$BATS_FILE_TMPDIR/clocksync.so asan=
	[[ -f $so ]] || cc -shared -fPIC -O1 -o "$so" \
	    "$BATS_TEST_DIRNAME/shim/clocksync.c" || fail "cannot build clocksync"
	[[ ${OTP_SANITIZE:-0} != 1 ]] || asan="$(gcc -print-file-name=libasan.so) "
	PRELOAD="$asan$so"
	export ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0
}

# slow_codes: the codes of a phone about 95 s slow, now and a step on.
slow_codes() {
	local now
	now=$(date +%s)
	oathtool --totp -N "@$((now - 95))" "$RFC_HEX"
	oathtool --totp -N "@$((now - 65))" "$RFC_HEX"
}

@test "the server's clock not synchronised: the verdict names both clocks, the same at a terminal and from a pipe" {
	local c pipe term
	sync_env
	c=$(slow_codes)
	run --separate-stderr env LD_PRELOAD="$PRELOAD" SHIM_SYNC=no \
	    "$OTP_BIN/otp-verify" -i --totp "$RFC_HEX" <<<"$c"
	assert_success
	assert_line --index 2 --regexp "^[-0-9T:Z]+ drift 2 -[0-9]+ [0-9]+ server the phone is [0-9]+ s \+-[0-9]+ slow; the server's clock is not synchronised either: check it first \(NTP\), then the phone's$"
	pipe=$(sed -n '3s/^.* server //p' <<<"$output" | sed 's/[0-9]\+/N/g')
	# Synchronised: the phone's clock it is.
	run env LD_PRELOAD="$PRELOAD" SHIM_SYNC=yes "$OTP_BIN/otp-verify" -i \
	    --totp "$RFC_HEX" <<<"$c"
	assert_line --index 2 --regexp " phone the phone's clock is [0-9]+ s \+-[0-9]+ behind the server's, which is synchronised: fix the phone's clock"
	# At a terminal: the same words, in the view and left on the screen.
	mapfile -t c < <(slow_codes)
	run "$PY" "$DRIVE" wait:"Code: " send:"${c[0]}\r" wait:"behind" \
	    send:"${c[1]}\r" wait:"Drift" send:q -- env LD_PRELOAD="$PRELOAD" \
	    SHIM_SYNC=no "$OTP_BIN/otp-verify" -i --totp "$RFC_HEX"
	assert_success
	assert_output --partial "Clock  NOT synchronised"
	term=$(sed -n 's/^Drift  //p' <<<"${output##*$'\e[?1049l'}" | tr -d '\r' |
	    sed -e 's/±/+-/' -e 's/[0-9]\+/N/g')
	[ -n "$pipe" ]
	[ "$term" = "$pipe" ]
}

@test "the view says its codes log the user in; a verdict points to otp-store resync when the server must learn the skew" {
	users_file
	drive wait:"Code: " send:q -- -i -N "@$NOW" --store "oath:$T/users" \
	    --user alice
	assert_success
	assert_output --partial "Note   the codes shown log alice in now: keep this screen to yourself"
	drive wait:"Code: " send:q -- -i --totp -N "@$NOW" "$RFC_HEX"
	assert_output --partial "Note   the codes shown log the user in now"
	# Codes beyond the window: the server can learn the skew.
	run --separate-stderr otp-verify -i -w 1 -N "@$NOW" \
	    --store "oath:$T/users" --user alice <<<"$(code 3)
$(code 2)"
	assert_success
	assert_line --index 2 --partial "; if the phone's clock cannot be set, the server learns it: otp-store resync oath:$T/users alice CODE1 CODE2"
	# Admitted, or a bare key with no store to resync: no such hint.
	run otp-verify -i -N "@$NOW" --store "oath:$T/users" --user alice \
	    <<<"$(code 3)
$(code 2)"
	assert_line --index 2 --partial "drift 2 +94 5 clock"
	refute_output --partial resync
	run otp-verify -i --totp -N "@$NOW" "$RFC_HEX" <<<"$(code 3)
$(code 2)"
	refute_output --partial resync
}

# hotp N: RFC 4226's code of counter N.
hotp() {
	oathtool -c "$1" "$RFC_HEX"
}

@test "HOTP: each code placed by counter against the next one, with what to do when the token is ahead or behind" {
	run --separate-stderr otp-verify -i -c 1 -w 2 "$RFC_HEX" <<<"$(hotp 0)
$(hotp 1)
$(hotp 3)
$(hotp 4)"
	assert_success
	assert_equal "${#lines[@]}" 4
	assert_line --index 0 --regexp ' code 1 -1 no 1 counter behind \(counter 0\); refused \(window 0\.\.\+2: -w 2\); used already, or a code the token showed before$'
	assert_line --index 1 --regexp ' code 2 0 yes the next code \(counter 1\); admitted \(window 0\.\.\+2: -w 2\)$'
	assert_line --index 2 --regexp ' code 3 \+2 yes 2 counters ahead \(counter 3\); admitted'
	assert_line --index 3 --regexp ' code 4 \+3 no 3 counters ahead \(counter 4\); refused \(window 0\.\.\+2: -w 2\); the token is ahead: -c 5 checks the code after it$'
	# No clock: no drift line.
	refute_output --partial drift
	# A state file's HOTP_COUNTER and WINDOW_SIZE; ahead, the store
	# catches up by otp-store resync.  The file is left as it was.
	printf '%s\n' "$RFC_B32" '" HOTP_COUNTER 2' '" WINDOW_SIZE 3' > "$T/ga"
	chmod 600 "$T/ga"
	cp -p "$T/ga" "$T/ga.before"
	run --separate-stderr otp-verify -i -N "@$NOW" --state "$T/ga" <<<"$(hotp 2)
$(hotp 7)
$(otp-gen --totp -N "@$NOW" "$RFC_HEX")"
	assert_success
	assert_line --index 0 --partial "code 1 0 yes the next code (counter 2); admitted (window 0..+2: WINDOW_SIZE 3)"
	assert_line --index 1 --partial "code 2 +5 no 5 counters ahead (counter 7); refused (window 0..+2: WINDOW_SIZE 3); the token is ahead: the server catches up with two codes in a row: otp-store resync ga:$T/ga USER CODE1 CODE2"
	# Far from every counter: the diagnosis says what it is.
	assert_line --index 2 --partial "code 3 none no no counter within 10000 of the next one gives it; diagnosis: TOTP, not HOTP"
	cmp "$T/ga" "$T/ga.before"
}

@test "HOTP at a terminal: the counters around the next one, a typed code placed" {
	drive wait:"Code: " send:"$(hotp 6)\r" wait:"counters ahead" send:q -- \
	    -i --around=2 -c 4 -w 1 "$RFC_HEX"
	assert_success
	assert_output --partial "Token  the key: HOTP SHA1, 6 digits, counter 4 next"
	assert_output --partial "Admits counters 0..+1 (-w 1)"
	assert_output --partial "    -2  counter 2  $(hotp 2)"
	assert_output --partial "  *  +0  counter 4  $(hotp 4)  next  admitted"
	assert_output --partial "    +1  counter 5  $(hotp 5)  admitted"
	assert_output --partial "    +2  counter 6  $(hotp 6)"
	refute_output --partial "counter 7"
	assert_output --partial "2 counters ahead (counter 6): refused (window 0..+1: -w 1); the token is ahead: -c 7 checks the code after it"
	assert_line --partial "[pty] status=0 termios=same stty=same"
}

@test "man page: the HOTP pipe example prints what the page shows" {
	local want
	# The lines of the example after it: stamped, in counters.
	want=$(sed -n '/^2009.* code [0-9] .* (counter [0-9])/s/^[^ ]* //p' \
	    "$ROOT/man/otp-verify.1")
	[ "$(wc -l <<<"$want")" -eq 3 ]
	run otp-verify -i -c 1 -w 2 3132333435363738393031323334353637383930 \
	    <<<'755224
969429
338314'
	assert_success
	assert_output --regexp '^[0-9]{4}-'
	[ "$(sed 's/^[^ ]* //' <<<"$output")" = "$want" ]
	run otp-verify --help
	assert_output --partial "(HOTP: the counters around the"
}

@test "terminal: Ctrl-Z and SIGTSTP leave the view before the stop, SIGCONT brings it back" {
	# pty-drive's command leads a session of its own, so the stop itself
	# is discarded (an orphaned process group): what shows is the view
	# left, the terminal's modes restored, then the view entered again.
	local key
	for key in send:'\x1a' signal:TSTP; do
		drive wait:"s left" mark "$key" wait:$'\e[?1049l' \
		    wait:$'\e[?1049h' wait:"s left" send:q -- -i --totp \
		    -N "@$NOW" "$RFC_HEX"
		assert_success
		assert_line --partial "[pty] status=0 termios=same stty=same"
	done
	# A stop by SIGSTOP (which cannot be caught) then SIGCONT: the view
	# is drawn again, in raw modes (q is read without Enter).
	drive wait:"s left" signal:STOP sleep:0.2 mark signal:CONT \
	    wait:$'\e[?1049h' wait:"s left" send:q -- -i --totp -N "@$NOW" \
	    "$RFC_HEX"
	assert_success
	assert_line --partial "[pty] status=0 termios=same stty=same"
}

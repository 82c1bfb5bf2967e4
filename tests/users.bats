#!/usr/bin/env bats
# users.bats - OATH Toolkit's users file through the tools:
# otp-verify --usersfile and otp-keygen --usersfile, Mobile-OTP lines
# cross-checked with otp-gen --motp, the locks and the file's owner and
# mode.  pam-users.bats compares the PAM module with pam_oath.

bats_require_minimum_version 1.5.0
load common

setup() {
	T=$BATS_TEST_TMPDIR
	F=$T/users
	ME=$(id -un)
}

# users LINE...: a users file of these lines, mode 0600.
users() {
	rm -f "$F"
	printf '%s\n' "$@" >"$F"
	chmod 0600 "$F"
}

hotp() {
	oathtool --hotp -c "$1" "$RFC_HEX"
}

# settle PREFIX N: wait until the N background runs wrote $T/PREFIX1..N
# (their exit statuses), at most 60 s.
settle() {
	local i n=0
	wait || true
	while ((n < 600)); do
		for i in $(seq 1 "$2"); do
			[[ -s $T/$1$i ]] || break
		done
		[[ -s $T/$1$2 && -s $T/$1$i ]] && return 0
		sleep 0.1
		n=$((n + 1))
	done
	fail "background runs did not finish"
}

@test "otp-verify --usersfile: accept once, print the offset, record the line" {
	users "# kept" "HOTP alice - $RFC_HEX" "HOTP bob - $RFC_HEX"
	run --separate-stderr otp-verify --usersfile="$F" --user=alice \
	    -N @86400 "$(hotp 2)"
	assert_success
	assert_output +2
	run grep -c . "$F"
	assert_output 3
	run sed -n 2p "$F"
	assert_output "$(printf 'HOTP\talice\t-\t%s\t2\t%s\t%s' "$RFC_HEX" \
	    "$(hotp 2)" "$(date -d @86400 +%Y-%m-%dT%H:%M:%SL)")"
	run sed -n '1p;3p' "$F"
	assert_output "$(printf '# kept\nHOTP bob - %s' "$RFC_HEX")"
	run --separate-stderr otp-verify --usersfile="$F" --user=alice "$(hotp 2)"
	assert_failure 1
	[[ $stderr == *"code already used"* ]]
	run --separate-stderr otp-verify -q --usersfile="$F" --user=alice 000000
	assert_failure 1
	[ -z "$stderr" ]
	# The code on standard input; counter 3 is the next one after 2: 0,
	# as a state file counts.
	run otp-verify --usersfile="$F" --user=alice <<<"$(hotp 3)"
	assert_success
	assert_output 0
}

@test "otp-verify --usersfile: TOTP, -w and --now" {
	users "HOTP/T30/8 carol - $RFC_HEX"
	run otp-verify --usersfile="$F" --user=carol -N @59 -w 0 37359152
	assert_failure 1
	run otp-verify --usersfile="$F" --user=carol -N @59 -w 1 37359152
	assert_success
	assert_output +1
	run otp-verify --usersfile="$F" --user=carol -N @59 84755224
	assert_failure 1
}

@test "otp-verify --usersfile: the user defaults to the invoking one" {
	users "HOTP $ME - $RFC_HEX"
	run otp-verify --usersfile="$F" "$(hotp 0)"
	assert_success
	assert_output 0
}

@test "otp-verify --usersfile --dry-run writes nothing" {
	users "HOTP alice - $RFC_HEX"
	cp "$F" "$T/before"
	run otp-verify --dry-run -v --usersfile="$F" --user=alice "$(hotp 1)"
	assert_success
	assert_output --partial "not written (dry run)"
	cmp "$F" "$T/before"
	run otp-verify --dry-run --usersfile="$F" --user=alice "$(hotp 1)"
	assert_success
}

@test "otp-verify --usersfile: errors exit 2 and name the input" {
	users "HOTP alice - $RFC_HEX"
	run --separate-stderr otp-verify --usersfile="$F" --user=nobody 123456
	assert_failure 2
	[[ $stderr == *"'nobody': no such user in users file"* ]]
	users "# one" "HOTP alice - 31X2"
	run --separate-stderr otp-verify --usersfile="$F" --user=alice 123456
	assert_failure 2
	[[ $stderr == *"line 2: bad key in users file"* ]]
	users "HOTP alice - $RFC_HEX 12x"
	run --separate-stderr otp-verify --usersfile="$F" --user=alice 123456
	assert_failure 2
	[[ $stderr == *"line 1: bad counter"* ]]
	users "HOTP alice - $RFC_HEX"
	chmod 0666 "$F"
	run --separate-stderr otp-verify --usersfile="$F" --user=alice 123456
	assert_failure 2
	[[ $stderr == *"permissions are too open"* ]]
	run --separate-stderr otp-verify --usersfile="$T/missing" --user=a 123456
	assert_failure 2
	[[ $stderr == *"No such file"* ]]
	ln -s "$F" "$T/link"
	run --separate-stderr otp-verify --usersfile="$T/link" --user=a 123456
	assert_failure 2
	chmod 0600 "$F"
	for c in 12345 123456789 12x456 ""; do
		run --separate-stderr otp-verify --usersfile="$F" --user=alice "$c"
		assert_failure 2
		[[ $stderr == *"malformed one-time password"* ]]
	done
	run --separate-stderr otp-verify --usersfile="$F" --user="a b" 123456
	assert_failure 2
	[[ $stderr == *"cannot be written in a users file"* ]]
}

@test "otp-verify --usersfile -d: a PIN, then the code, as pam_oath's digits= splits it" {
	users "HOTP alice 1234 $RFC_HEX" "HOTP bob - $RFC_HEX" \
	    "HOTP/T30/8 carol 42 $RFC_HEX"
	# Without -d the whole answer is the code, as without digits=.
	run --separate-stderr otp-verify --usersfile="$F" --user=alice \
	    "1234$(hotp 0)"
	assert_failure 2
	[[ $stderr == *"a PIN before the code needs -d DIGITS"* ]]
	run --separate-stderr otp-verify --usersfile="$F" --user=alice "$(hotp 0)"
	assert_failure 1
	[[ $stderr == *"wrong password before the code"* ]]
	run --separate-stderr otp-verify -d 6 --usersfile="$F" --user=alice \
	    "9999$(hotp 0)"
	assert_failure 1
	[[ $stderr == *"wrong password before the code"* ]]
	run --separate-stderr otp-verify -d 6 --usersfile="$F" --user=alice \
	    "1234$(hotp 0)"
	assert_success
	assert_output 0
	[[ $(awk '$2 == "alice" { print $3, $5 }' "$F") == "1234 0" ]]
	# From standard input too; a user without a PIN answers the code.
	run --separate-stderr otp-verify -d 6 --usersfile="$F" --user=alice \
	    <<<"1234$(hotp 1)"
	assert_success
	run --separate-stderr otp-verify -d 6 --usersfile="$F" --user=bob \
	    "$(hotp 0)"
	assert_success
	# -d 8: the code is 8 digits, the token's own length.
	run --separate-stderr otp-verify -d 8 --usersfile="$F" --user=carol \
	    -N @59 "42$(oathtool --totp -d 8 -N @59 "$RFC_HEX")"
	assert_success
	run --separate-stderr otp-verify -d 6 --usersfile="$F" --user=carol \
	    -N @59 "42$(oathtool --totp -d 8 -N @59 "$RFC_HEX")"
	assert_failure 1
}

@test "otp-verify --usersfile: options that do not apply are usage errors" {
	users "HOTP alice - $RFC_HEX"
	for o in -d9 -d5 --totp -c1 -b --state=x --no-skew-adjust; do
		run --separate-stderr otp-verify "$o" --usersfile="$F" 123456
		assert_failure 2
	done
	run --separate-stderr otp-verify --user=alice "$RFC_HEX" 123456
	assert_failure 2
	[[ $stderr == *"--user needs --usersfile"* ]]
	run --separate-stderr otp-verify --usersfile="$F" a b
	assert_failure 2
	run otp-verify --help
	assert_output --partial "--store=URL [--user=NAME]"
	assert_output --partial "--usersfile=FILE   the same as --store=oath:FILE"
	assert_output --partial "--user=NAME"
}

@test "an update keeps the file's owner and mode" {
	users "HOTP alice - $RFC_HEX"
	chmod 0640 "$F"
	if [[ $(id -u) == 0 ]]; then
		chown nobody:nogroup "$F"
	fi
	before=$(stat -c '%U:%G %a' "$F")
	run otp-verify --allow-group-read --usersfile="$F" --user=alice \
	    "$(hotp 1)"
	assert_success
	[[ $(stat -c '%U:%G %a' "$F") == "$before" ]]
	run otp-keygen -f --usersfile="$F" --user=alice
	assert_success
	[[ $(stat -c '%U:%G %a' "$F") == "$before" ]]
}

@test "a group-readable (0640) users file is refused unless --allow-group-read" {
	users "HOTP alice - $RFC_HEX"
	chmod 0640 "$F"
	run -2 otp-verify --usersfile="$F" --user=alice "$(hotp 1)"
	assert_output --partial "permissions are too open"
	run -0 otp-verify --allow-group-read --usersfile="$F" --user=alice \
	    "$(hotp 1)"
	chmod 0604 "$F"	# others: never
	run -2 otp-verify --allow-group-read --usersfile="$F" --user=alice \
	    "$(hotp 2)"
	run -2 otp-verify --allow-group-read --state="$F" "$(hotp 2)"
	assert_output --partial "--allow-group-read needs --usersfile"
}

@test "a stale FILE.lock and FILE.new are cleared, not obeyed" {
	users "HOTP alice - $RFC_HEX"
	: >"$F.lock"
	: >"$F.new"
	run otp-verify --usersfile="$F" --user=alice "$(hotp 1)"
	assert_success
	[ ! -e "$F.lock" ]
	[ ! -e "$F.new" ]
}

@test "a FILE.lock held as pam_oath holds it is waited for" {
	users "HOTP alice - $RFC_HEX"
	"$PY" -c '
import fcntl, os, sys, time
fd = os.open(sys.argv[1] + ".lock", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
fcntl.lockf(fd, fcntl.LOCK_EX)
open(sys.argv[1] + ".held", "w").close()
time.sleep(1)
os.unlink(sys.argv[1] + ".lock")
' "$F" &
	while [ ! -e "$F.held" ]; do sleep 0.05; done
	start=$(date +%s%N)
	run otp-verify --usersfile="$F" --user=alice "$(hotp 1)"
	end=$(date +%s%N)
	wait
	assert_success
	(( (end - start) > 500000000 )) || fail "did not wait for the lock"
}

# reader FILE DELAY: as a pam_oath login that opened FILE before an update
# replaced it: once it is replaced, DELAY seconds later (the rest of its
# parse), it takes FILE.lock as pam_oath does; prints "taken" or
# "refused".  FILE.held says it has the file open.
reader() {
	"$PY" -c '
import os, sys, time
f = sys.argv[1]
fd = os.open(f, os.O_RDONLY)
ino = os.fstat(fd).st_ino
open(f + ".held", "w").close()
while os.stat(f).st_ino == ino:
	time.sleep(0.002)
time.sleep(float(sys.argv[2]))
try:
	os.close(os.open(f + ".lock", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
	print("taken")
	os.unlink(f + ".lock")
except FileExistsError:
	print("refused")
' "$1" "$2"
}

@test "FILE.lock is kept while a reader of the replaced file, as pam_oath, has it open" {
	users "HOTP alice - $RFC_HEX"
	reader "$F" 0.3 >"$T/reader" &
	while [ ! -e "$F.held" ]; do sleep 0.02; done
	run otp-verify --usersfile="$F" --user=alice "$(hotp 1)"
	wait
	assert_success
	[[ $(cat "$T/reader") == refused ]] ||
	    fail "a login that read the old file could take FILE.lock"
	[ ! -e "$F.lock" ]
	run otp-verify --usersfile="$F" --user=alice "$(hotp 2)"
	assert_success
	[ ! -e "$F.lock" ]
	# --pam-oath-shared=0: no pam_oath, so no reader is waited for.
	rm -f "$F.held"
	reader "$F" 0.3 >"$T/reader" &
	while [ ! -e "$F.held" ]; do sleep 0.02; done
	run otp-verify --pam-oath-shared=0 --usersfile="$F" --user=alice \
	    "$(hotp 3)"
	wait
	assert_success
	[[ $(cat "$T/reader") == taken ]]
}

@test "a right code with no wrong one before it makes and removes nothing beside the file" {
	command -v strace >/dev/null || skip "strace missing"
	users "HOTP alice - $RFC_HEX"
	# LeakSanitizer cannot run under ptrace (make sanitize).
	strace -f -o "$T/trace" -e trace=mkdir,mkdirat,openat,unlink,unlinkat,rmdir \
	    env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    otp-verify --usersfile="$F" --user=alice "$(hotp 1)"
	if grep -E 'mkdir.*tally|unlink.*tally|rmdir.*tally|tally.*O_CREAT' \
	    "$T/trace"; then
		fail "the tally was touched"
	fi
	run otp-verify --usersfile="$F" --user=alice 000000
	assert_failure 1
	[ -f "$F.tally/alice" ]
	run otp-verify --usersfile="$F" --user=alice "$(hotp 2)"
	assert_success
	[ ! -e "$F.tally" ]
}

@test "10 users checked at once all succeed; 30 runs with one code: one" {
	local lines=() i ok=0 pids=()
	for i in $(seq 1 10); do
		lines+=("HOTP user$i - $RFC_HEX")
	done
	users "${lines[@]}"
	c=$(hotp 1)
	for i in $(seq 1 10); do
		(r=0; otp-verify --usersfile="$F" --user="user$i" "$c" \
		    >/dev/null 2>&1 || r=$?; echo $r >"$T/a$i") &
		pids+=($!)
	done
	settle a 10
	for i in $(seq 1 10); do
		[[ $(cat "$T/a$i") == 0 ]] && ok=$((ok + 1))
	done
	[[ $ok == 10 ]] || fail "$ok of 10"
	ok=0
	pids=()
	c=$(hotp 2)
	for i in $(seq 1 30); do
		(r=0; otp-verify --usersfile="$F" --user=user1 "$c" \
		    >/dev/null 2>&1 || r=$?; echo $r >"$T/b$i") &
		pids+=($!)
	done
	settle b 30
	for i in $(seq 1 30); do
		[[ $(cat "$T/b$i") == 0 ]] && ok=$((ok + 1))
	done
	[[ $ok == 1 ]] || fail "$ok of 30 took one code"
}

@test "otp-keygen --usersfile: a new file 0600, the key printed, pam_oath's format" {
	run --separate-stderr otp-keygen -x --usersfile="$F" --user=alice
	assert_success
	key=$output
	[[ $key =~ ^[0-9a-f]{40}$ ]]
	[[ $(stat -c %a "$F") == 600 ]]
	[[ $(cat "$F") == "$(printf 'HOTP\talice\t-\t%s' "$key")" ]]
	run otp-verify --usersfile="$F" --user=alice "$(oathtool -c 0 "$key")"
	assert_success
	# Base32 by default, the same key in the file.
	run otp-keygen --usersfile="$F" --user=bob --bytes=32
	assert_success
	hex=$(printf '%s' "$output" | b32 -d --hex)
	grep -q "^HOTP	bob	-	$hex\$" "$F"
}

@test "otp-keygen --usersfile: types, digits and PIN" {
	printf '1234\n' >"$T/pin"
	otp-keygen --usersfile="$F" --user=a --totp >/dev/null
	otp-keygen --usersfile="$F" --user=b --totp=60 -d 8 >/dev/null
	otp-keygen --usersfile="$F" --user=c --totp=30 -d 7 >/dev/null
	otp-keygen --usersfile="$F" --user=d -d 8 --pin=@"$T/pin" >/dev/null
	run cut -f1-3 "$F"
	assert_output "$(printf 'HOTP/T30\ta\t-\nHOTP/T60/8\tb\t-\nHOTP/T30/7\tc\t-\nHOTP/E/8\td\t1234')"
	key=$(otp-keygen -x -f --usersfile="$F" --user=b --totp=60 -d 8)
	run otp-verify --usersfile="$F" --user=b -N @600 \
	    "$(oathtool --totp -s 60s -d 8 -N @600 "$key")"
	assert_success
}

@test "otp-keygen --usersfile: an existing user needs -f, which replaces every line" {
	users "# head" "HOTP alice - 00" "HOTP bob - 01" "HOTP/T30 alice - 02" "# tail"
	cp "$F" "$T/before"
	run --separate-stderr otp-keygen --usersfile="$F" --user=alice
	assert_failure 2
	[[ $stderr == *"use -f to replace it"* ]]
	cmp "$F" "$T/before"
	key=$(otp-keygen -x -f --usersfile="$F" --user=alice)
	run cat "$F"
	assert_output "$(printf '# head\nHOTP\talice\t-\t%s\nHOTP bob - 01\n# tail' "$key")"
}

@test "otp-keygen --usersfile -f: a new key keeps the user's PIN; --pin gives a new one" {
	users "HOTP alice 1234 00" "HOTP/T30 alice 1234 02" "HOTP bob - 01"
	key=$(otp-keygen -x -f --usersfile="$F" --user=alice)
	run cat "$F"
	assert_output "$(printf 'HOTP\talice\t1234\t%s\nHOTP bob - 01' "$key")"
	# The PIN still goes before the code, as it did.
	run otp-verify -d 6 --usersfile="$F" --user=alice \
	    "1234$(oathtool -c 0 "$key")"
	assert_success
	key=$(otp-keygen -x -f --usersfile="$F" --user=alice --pin=4321)
	[[ $(awk '$2 == "alice" { print $3 }' "$F") == 4321 ]]
	# A user without a PIN, and a new user, get none.
	otp-keygen -f --usersfile="$F" --user=bob >/dev/null
	otp-keygen -f --usersfile="$F" --user=carol >/dev/null
	[[ $(awk '{ print $2, $3 }' "$F") == $'alice 4321\nbob -\ncarol -' ]]
}

@test "otp-keygen --usersfile: bad input" {
	run --separate-stderr otp-keygen --usersfile="$F"
	assert_failure 2
	[[ $stderr == *"needs --user"* ]]
	for o in -d9 --totp=45 --algorithm=SHA256 --uri --state=x --scratch=2; do
		run --separate-stderr otp-keygen "$o" --usersfile="$F" --user=a
		assert_failure 2
	done
	run --separate-stderr otp-keygen --usersfile="$F" --user=a --motp
	assert_failure 2
	[[ $stderr == *"needs --pin"* ]]
	run --separate-stderr otp-keygen --user=a
	assert_failure 2
	run --separate-stderr otp-keygen --usersfile="$F" --user="a b"
	assert_failure 2
	run --separate-stderr otp-keygen --usersfile="$F" --user=a --pin=- <<<"-"
	assert_failure 2
	[ ! -e "$F" ]
	run otp-keygen --help
	assert_output --partial "--usersfile=FILE"
}

@test "Mobile-OTP: accepted once, the same code refused, a 10-minute-old code refused" {
	secret=$(otp-keygen --usersfile="$F" --user=m --motp --pin=4321)
	[[ $secret =~ ^[0-9a-f]{16}$ ]]
	grep -q "^MOTP	m	4321	$secret\$" "$F"
	now=1800000000
	c=$(otp-gen --motp --pin=4321 -N "@$now" "$secret")
	run otp-verify --usersfile="$F" --user=m -N "@$now" "$c"
	assert_success
	assert_output 0
	run otp-verify --usersfile="$F" --user=m -N "@$((now + 20))" "$c"
	assert_failure 1
	old=$(otp-gen --motp --pin=4321 -N "@$((now - 600))" "$secret")
	run otp-verify --usersfile="$F" --user=m -N "@$now" "$old"
	assert_failure 1
	# An earlier tick than the last accepted one is refused too...
	prev=$(otp-gen --motp --pin=4321 -N "@$((now - 30))" "$secret")
	run otp-verify --usersfile="$F" --user=m -N "@$now" "$prev"
	assert_failure 1
	# ...a later one within 3 minutes is not (upper case as typed).
	next=$(otp-gen --motp --pin=4321 -N "@$((now + 170))" "$secret")
	run otp-verify --usersfile="$F" --user=m -N "@$now" "${next^^}"
	assert_success
	assert_output +17
	grep -q "^MOTP	m	4321	$secret	$(( (now + 170) / 10 ))	${next^^}	" "$F"
}

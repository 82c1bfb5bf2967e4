#!/usr/bin/env bats
# pam-otpw.bats - pam_otp.so otpw against Debian's pam_otpw.so (package
# libpam-otpw), side by side on the same lists: tests/pam/pam-drive
# answers each "Password NNN: " prompt by looking the numbers up in the
# printed list (tests/pam/otpw-answer.sh), and opens a session for the
# "Remaining one-time passwords" message.  Both modules find ~/.otpw in
# the home the password database gives, so libnss_wrapper gives each test
# its own users: "peer" and "ours", both with our uid, homes D/peer and
# D/ours.  Every syslog line is shown on stderr (tests/pam/syslog-shim.c).

bats_require_minimum_version 1.5.0

PEER_SO=/lib/security/pam_otpw.so
NSS_SO=/usr/lib/x86_64-linux-gnu/libnss_wrapper.so

setup_file() {
	load common
	load pam/lib
	pam_setup_file
	[[ -f $PEER_SO ]] || fail "$PEER_SO missing (libpam-otpw)"
	[[ -f $NSS_SO ]] || fail "$NSS_SO missing (libnss-wrapper)"
	command -v otpw-gen >/dev/null || fail "otpw-gen missing (otpw-bin)"
	cc -shared -fPIC -O1 -o "$BATS_FILE_TMPDIR/fsfault.so" \
	    "$BATS_TEST_DIRNAME/shim/fsfault.c" -ldl || fail "cannot build fsfault"
}

setup() {
	load common
	load pam/lib
	pam_setup
	mkdir -p "$D/peer" "$D/ours"
	printf 'peer:x:%s:%s::%s:/bin/sh\nours:x:%s:%s::%s:/bin/sh\n' \
	    "$(id -u)" "$(id -g)" "$D/peer" "$(id -u)" "$(id -g)" \
	    "$D/ours" >"$D/passwd"
	printf '%s:x:%s:\n' "$(id -gn)" "$(id -g)" >"$D/group"
	svc peer ""
	svc ours ""
	ANSWER="$BATS_TEST_DIRNAME/pam/otpw-answer.sh"
	PREFIX='pre fix'
	EXTRA_PRELOAD=
	export ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0
}

# svc peer|ours ARGS: the service file of that module with its arguments.
svc() {
	local so=$PEER_SO args=$2
	[[ $1 == ours ]] && so=$OTP_SO && args="otpw $2"
	printf 'auth required %s %s\nsession required %s %s\n' \
	    "$so" "$args" "$so" "$args" >"$D/svc/$1"
}

# login peer|ours [LIST]: one login of user peer or ours through module
# peer or ours, answered from LIST (default: the user's home's list; "-"
# answers "wrong", "hangup" fails the conversation as a client that went
# away at the prompt; "again" the answer the last login kept in D/answer,
# whatever is asked); RHOST, when set, is PAM_RHOST.  Sets status and
# output.
login() {
	local who=$1 list=${2:-$D/$1/list} cmd
	cmd="\"$ANSWER\" \"\$1\" | tee \"$D/answer\""
	[[ $list == - ]] && cmd='echo wrongwrong'
	[[ $list == hangup ]] && cmd='exit 3'
	[[ $list == again ]] && cmd="cat \"$D/answer\""
	run timeout "${PAM_TIMEOUT:-60}" env \
	    LD_PRELOAD="$ASAN_SO $NSS_SO $SHIM_SO $EXTRA_PRELOAD" \
	    NSS_WRAPPER_PASSWD="$D/passwd" NSS_WRAPPER_GROUP="$D/group" \
	    OTPW_PREFIX="$PREFIX" OTPW_LIST="$list" \
	    PAM_DRIVE_ANSWER="$cmd" PAM_DRIVE_SESSION=1 \
	    "$PAM_DRIVE" "$D/svc" "$who" "$who" ${RHOST:+"$RHOST"}
	no_sanitizer_errors
}

# prompts: the prompts and messages of the last login (no log lines).
prompts() {
	grep -v '^SYSLOG' <<<"$output" || true
}

# list_ours WHO N / list_peer WHO ROWS: a list for WHO, its printed form
# in D/WHO/list.
list_ours() {
	otp-keygen --otpw="$D/$1/.otpw" --prefix=- --entries="$2" \
	    >"$D/$1/list" <<<"$PREFIX" || fail "otp-keygen failed"
}
list_peer() {
	rm -f "$D/$1/.otpw"
	printf '%s\n%s\n' "$PREFIX" "$PREFIX" | otpw-gen -h "$(($2 + 4))" \
	    -f "$D/$1/.otpw" >"$D/$1/list" 2>/dev/null ||
	    fail "otpw-gen failed"
}

# used WHO: the number of used entries in WHO's file.
used() {
	grep -c -- '^---------------$' "$D/$1/.otpw" || true
}

@test "pam_otpw.so accepts the answers from otp-keygen's lists" {
	list_ours peer 50
	for i in 1 2 3 4 5; do
		login peer
		[[ $status == 0 ]] || fail "login $i: $output"
		assert_output --partial "Remaining one-time passwords: $((50 - i)) of 50"
	done
	run -0 used peer
	assert_output 5
}

@test "pam_otp.so otpw accepts the answers from otpw-gen's lists" {
	list_peer ours 10
	for i in 1 2 3 4 5; do
		login ours
		[[ $status == 0 ]] || fail "login $i: $output"
		assert_output --regexp "\[echo off\] Password [0-9]{3}: "
		assert_output --partial "Remaining one-time passwords: $((50 - i)) of 50"
	done
	run -0 used ours
	assert_output 5
	[[ ! -e $D/ours/.otpw.lock ]] || fail "lock left behind"
}

@test "after the same logins both modules leave identical files and showed identical prompts" {
	local i seq=(ok bad ok ok bad bad ok ok ok ok ok ok ok ok ok ok)
	list_peer peer 4	# 20 entries: the reprint advice from the start
	cp "$D/peer/.otpw" "$D/ours/.otpw"
	cp "$D/peer/list" "$D/ours/list"
	for i in "${!seq[@]}"; do
		local l=
		[[ ${seq[$i]} == bad ]] && l=-
		login peer "$l"
		local ps=$status pp
		pp=$(prompts)
		login ours "$l"
		[[ $status == "$ps" ]] || fail "login $i: status $status, pam_otpw $ps"
		# The same words, but for the tool the advice names.
		pp=${pp//"with otpw-gen)"/"with otp-keygen --otpw)"}
		[[ $(prompts) == "$pp" ]] ||
		    fail "login $i: prompts differ:"$'\n'"$pp"$'\n---\n'"$(prompts)"
		cmp "$D/peer/.otpw" "$D/ours/.otpw" ||
		    fail "login $i: the files differ"
	done
	assert_output --partial "Remaining one-time passwords: 7 of 20 (time to print new ones with otp-keygen --otpw)"
	# And a longer list, where the advice starts below half.
	list_peer peer 10
	cp "$D/peer/.otpw" "$D/ours/.otpw"
	cp "$D/peer/list" "$D/ours/list"
	for i in 1 2; do
		login peer
		pp=$(prompts)
		login ours
		[[ $(prompts) == "$pp" ]] || fail "prompts differ: $pp / $(prompts)"
	done
	assert_output --partial 'Remaining one-time passwords: 48 of 50'
	refute_output --partial '48 of 50 ('
	cmp "$D/peer/.otpw" "$D/ours/.otpw"
}

@test "a wrong answer consumes nothing and the same number is asked again" {
	local m first
	for m in peer ours; do
		list_ours "$m" 50
		cp "$D/$m/.otpw" "$D/$m/before"
		login "$m" -
		[[ $status == 1 ]] || fail "$m: $output"
		assert_output --partial "pam-drive: 7: Authentication failure"
		first=$(grep -o 'Password [0-9]*: ' <<<"$output")
		cmp "$D/$m/before" "$D/$m/.otpw"
		login "$m" -
		assert_output --partial "$first"
		login "$m"
		[[ $status == 0 ]] || fail "$m: $output"
		assert_output --partial "$first"
	done
}

@test "no ~/.otpw, a used-up list: PAM_AUTHINFO_UNAVAIL from both, without a prompt" {
	local m
	for m in peer ours; do
		login "$m"
		[[ $status == 1 ]] || fail "$m: $output"
		assert_output --partial "pam-drive: 9: "
		refute_output --partial "Password"
		printf 'OTPW1\n1 3 12 8\n---------------\n' >"$D/$m/.otpw"
		chmod 600 "$D/$m/.otpw"
		login "$m"
		assert_output --partial "pam-drive: 9: "
	done
}

@test "the lock symlink ~/.otpw.lock names the number asked while the prompt is out, and goes after" {
	local m
	for m in peer ours; do
		list_ours "$m" 50
		ANSWER_SAVE=$ANSWER
		cat >"$D/spy.sh" <<-EOF
		#!/bin/sh
		readlink "$D/$m/.otpw.lock" >"$D/$m/seen"
		exec "$ANSWER_SAVE" "\$1"
		EOF
		chmod +x "$D/spy.sh"
		ANSWER=$D/spy.sh
		login "$m"
		ANSWER=$ANSWER_SAVE
		[[ $status == 0 ]] || fail "$m: $output"
		assert_output --partial "Password $(cat "$D/$m/seen"): "
		[[ ! -L $D/$m/.otpw.lock ]] || fail "$m: lock left"
		run -0 stat -c %u "$D/$m/.otpw"
		assert_output "$(id -u)"
	done
}

@test "a login that ends without an answer (the client hung up) leaves no lock behind" {
	local m
	for m in peer ours; do
		list_ours "$m" 50
		login "$m" hangup
		[[ $status != 0 ]] || fail "$m: accepted without an answer"
		echo "# $m: $([[ -L $D/$m/.otpw.lock ]] && echo lock left || echo no lock)"
	done
	# Ours: the next login is asked one number, not three.
	[[ ! -L $D/ours/.otpw.lock ]] || fail "ours: lock left"
	login ours
	[[ $status == 0 ]] || fail "ours: $output"
	assert_output --regexp "Password [0-9]{3}: "
}

@test "a lock older than a day is removed; a fresh one brings the triple challenge" {
	local m first
	for m in peer ours; do
		list_ours "$m" 50
		first=$(sed -n 3p "$D/$m/.otpw" | cut -c1-3)
		ln -s 999 "$D/$m/.otpw.lock"
		touch -h -d '25 hours ago' "$D/$m/.otpw.lock"
		login "$m"
		[[ $status == 0 ]] || fail "$m: $output"
		assert_output --partial "Password $first: "
		[[ ! -L $D/$m/.otpw.lock ]] || fail "$m: stale lock kept"
		ln -s "$first" "$D/$m/.otpw.lock"
		login "$m"
		[[ $status == 0 ]] || fail "$m: $output"
		assert_output --regexp "Password [0-9]{3}/[0-9]{3}/[0-9]{3}: "
		assert_output --partial "Remaining one-time passwords: 46 of 50"
		[[ $(readlink "$D/$m/.otpw.lock") == "$first" ]] ||
		    fail "$m: the other login's lock was touched"
	done
}

@test "ours: a lock older than lock_age= (default 300 s) is a dead login's, removed" {
	local first
	list_ours ours 50
	first=$(sed -n 3p "$D/ours/.otpw" | cut -c1-3)
	ln -s 999 "$D/ours/.otpw.lock"
	touch -h -d '6 minutes ago' "$D/ours/.otpw.lock"
	login ours
	[[ $status == 0 ]] || fail "$output"
	assert_output --partial "Password $first: "
	[[ ! -L $D/ours/.otpw.lock ]] || fail "stale lock kept"
	# lock_age=600: six minutes is a login still at its prompt.
	svc ours lock_age=600
	ln -s 999 "$D/ours/.otpw.lock"
	touch -h -d '6 minutes ago' "$D/ours/.otpw.lock"
	login ours
	assert_output --regexp "Password [0-9]{3}/[0-9]{3}/[0-9]{3}: "
	[[ $(readlink "$D/ours/.otpw.lock") == 999 ]]
}

@test "the triple challenge never names the locked entry (60 prompts), and consumes all three" {
	local i n locked hits=0 p
	# 50 entries: a triple that ignored the lock would name it in about
	# one prompt of 17, so 60 prompts without it are no accident.
	list_ours ours 50
	list_ours peer 50
	for m in ours peer; do
		locked=$(sed -n 3p "$D/$m/.otpw" | cut -c1-3)
		ln -sf "$locked" "$D/$m/.otpw.lock"
		hits=0
		for i in $(seq 1 60); do
			n=$(used "$m")
			if ((i % 10 == 0)); then
				login "$m"
				[[ $status == 0 ]] || fail "$m $i: $output"
				[[ $(used "$m") == $((n + 3)) ]] ||
				    fail "$m $i: not all three consumed"
			else
				login "$m" -
				[[ $(used "$m") == "$n" ]] ||
				    fail "$m $i: a wrong answer consumed"
			fi
			p=$(grep -oE 'Password [0-9/]+: ' <<<"$output")
			[[ $p =~ ^Password\ [0-9]{3}/[0-9]{3}/[0-9]{3}:\ $ ]] ||
			    fail "$m $i: not a triple: $p"
			[[ $p == *"$locked"* ]] && hits=$((hits + 1))
		done
		if [[ $m == ours ]]; then
			((hits == 0)) || fail "ours named the locked entry $hits times"
		else
			echo "# pam_otpw named the locked entry $hits times in 60" >&3
		fi
	done
}

@test "fewer than 10 unused entries: no triple challenge (PAM_AUTHINFO_UNAVAIL), as pam_otpw" {
	local m
	for m in peer ours; do
		list_ours "$m" 10
		sed -i '3s/.*/---------------/' "$D/$m/.otpw"
		ln -s 001 "$D/$m/.otpw.lock"
		login "$m"
		assert_output --partial "pam-drive: 9: "
		refute_output --partial "Password"
		rm "$D/$m/.otpw.lock"
		login "$m"
		[[ $status == 0 ]] || fail "$m: $output"
	done
}

@test "nolock: no lock made or looked at" {
	local m first
	for m in peer ours; do
		svc "$m" nolock
		list_ours "$m" 50
		first=$(sed -n 3p "$D/$m/.otpw" | cut -c1-3)
		ln -s "$first" "$D/$m/.otpw.lock"
		login "$m"
		[[ $status == 0 ]] || fail "$m: $output"
		assert_output --partial "Password $first: "
		rm "$D/$m/.otpw.lock"
		ANSWER_SAVE=$ANSWER
		printf '#!/bin/sh\n[ -L "%s" ] && echo LOCKED >"%s"\nexec "%s" "$1"\n' \
		    "$D/$m/.otpw.lock" "$D/$m/seen" "$ANSWER_SAVE" >"$D/spy.sh"
		chmod +x "$D/spy.sh"
		ANSWER=$D/spy.sh
		login "$m"
		ANSWER=$ANSWER_SAVE
		[[ $status == 0 ]] || fail "$m: $output"
		[[ ! -e $D/$m/seen ]] || fail "$m: a lock was made"
	done
}

@test "debug logs the challenge's course; without it, no debug lines" {
	list_ours ours 50
	svc ours debug
	login ours
	[[ $status == 0 ]] || fail "$output"
	assert_output --regexp "SYSLOG .*debug: challenge [0-9]{3}"
	svc ours ""
	login ours
	refute_output --partial "debug:"
	assert_output --partial "accepted password"
	no_secret_logged "$PREFIX"
}

@test "a right answer that cannot be marked used is refused, and stays unused" {
	list_ours ours 50
	cp "$D/ours/.otpw" "$D/ours/before"
	EXTRA_PRELOAD=$BATS_FILE_TMPDIR/fsfault.so
	export SHIM_FAILRENAME=1
	login ours
	unset SHIM_FAILRENAME
	EXTRA_PRELOAD=
	[[ $status == 1 ]] || fail "accepted: $output"
	assert_output --partial "pam-drive: 9: "
	assert_output --partial "login refused"
	cmp "$D/ours/before" "$D/ours/.otpw"
	login ours
	[[ $status == 0 ]] || fail "$output"
}

@test "50 logins at once: no entry is ever accepted twice" {
	local i ok=0 nums
	list_ours ours 280
	for i in $(seq 1 50); do
		(
			login ours
			printf '%s\n' "$status" "$output" >"$D/run.$i"
		) &
	done
	wait
	: >"$D/accepted"
	for i in $(seq 1 50); do
		if [[ $(head -1 "$D/run.$i") == 0 ]]; then
			ok=$((ok + 1))
			grep -oE 'Password [0-9/]+: ' "$D/run.$i" |
			    tr -dc '0-9/\n' | tr / '\n' >>"$D/accepted"
		fi
		! grep -q 'ERROR: AddressSanitizer' "$D/run.$i" ||
		    fail "sanitizer report in run $i"
	done
	echo "# $ok of 50 concurrent logins accepted" >&3
	((ok >= 1)) || fail "none accepted"
	run -0 bash -c "sort '$D/accepted' | uniq -d"
	assert_output ''
	run -0 wc -l <"$D/accepted"
	assert_output "$(used ours)"
	[[ ! -e $D/ours/.otpw.lock ]] || fail "lock left behind"
	run -0 otp-verify --otpw="$D/ours/.otpw" --challenge
}

@test "ours: linger= takes the answer accepted again from the same client, whatever is asked; the list stays otpw's, the records in ~/.otpw.linger" {
	list_ours ours 20
	svc ours "linger=60"
	RHOST=127.0.0.1 login ours
	[[ $status == 0 ]] || fail "first login: $output"
	run -0 used ours
	assert_output 1
	[[ $(stat -c %a "$D/ours/.otpw.linger") == 600 ]]
	# Bound to the list by its digest on the first line, then the records.
	run -0 sed -n 1p "$D/ours/.otpw.linger"
	assert_output --regexp '^BIND [0-9a-f]{64}$'
	grep -Eq '^LINGER [0-9]+ [0-9a-f]{32} [0-9a-f]{64}$' "$D/ours/.otpw.linger"
	! grep -qF -- "$(cat "$D/answer")" "$D/ours/.otpw.linger"
	RHOST=127.0.0.1 login ours again
	[[ $status == 0 ]] || fail "again: $output"
	assert_output --regexp "SYSLOG 6: .*accepted lingering answer"
	run -0 used ours
	assert_output 1
	RHOST=127.0.0.2 login ours again
	[[ $status != 0 ]] || fail "another client let in: $output"
	login ours again
	[[ $status != 0 ]] || fail "no client let in: $output"
	# A new password is checked as usual, and lingers too.
	RHOST=127.0.0.1 login ours
	[[ $status == 0 ]] || fail "a new password: $output"
	run -0 used ours
	assert_output 2
	RHOST=127.0.0.1 login ours -
	[[ $status != 0 ]] || fail "a wrong one let in: $output"
	# Without linger the same answer is a used password.
	svc ours ""
	RHOST=127.0.0.1 login ours again
	[[ $status != 0 ]] || fail "used password let in: $output"
}

# lingers ANSWERFILE: the answer kept in ANSWERFILE, from 127.0.0.1
# again through ours with linger=60: sets status and output.
lingers() {
	cp "$1" "$D/answer"
	svc ours "linger=60"
	RHOST=127.0.0.1 login ours again
}

@test "ours: a lingering answer ends with the list it was accepted from: written by another accept without linger= or by pam_otpw, replaced by otp-keygen -f or otpw-gen" {
	list_ours ours 30
	svc ours "linger=60"
	RHOST=127.0.0.1 login ours
	[[ $status == 0 ]] || fail "first login: $output"
	cp "$D/answer" "$D/first"
	# Another accept of ours with linger=: the list is ours still, and
	# both answers linger.
	RHOST=127.0.0.1 login ours
	[[ $status == 0 ]] || fail "second login: $output"
	cp "$D/answer" "$D/second"
	lingers "$D/first"
	[[ $status == 0 ]] || fail "unchanged list, first: $output"
	assert_output --regexp "SYSLOG 6: .*accepted lingering answer"
	lingers "$D/second"
	[[ $status == 0 ]] || fail "unchanged list, second: $output"
	# The list written by an accept that keeps no record: every record
	# ends.
	svc ours ""
	RHOST=127.0.0.1 login ours
	[[ $status == 0 ]] || fail "without linger: $output"
	lingers "$D/first"
	[[ $status != 0 ]] || fail "the first lingered past another write: $output"
	lingers "$D/second"
	[[ $status != 0 ]] || fail "the second lingered past another write: $output"
	# By pam_otpw.
	RHOST=127.0.0.1 login ours
	[[ $status == 0 ]] || fail "a new answer: $output"
	cp "$D/answer" "$D/first"
	printf 'auth required %s\nsession required %s\n' "$PEER_SO" \
	    "$PEER_SO" >"$D/svc/ours"
	login ours
	[[ $status == 0 ]] || fail "pam_otpw: $output"
	lingers "$D/first"
	[[ $status != 0 ]] || fail "lingered past pam_otpw's write: $output"
	# A new list from otp-keygen -f: its record goes with the old list.
	RHOST=127.0.0.1 login ours
	[[ $status == 0 ]] || fail "a new answer: $output"
	cp "$D/answer" "$D/first"
	otp-keygen --otpw="$D/ours/.otpw" --prefix=- --entries=30 -f \
	    >"$D/ours/list" <<<"$PREFIX" || fail "otp-keygen failed"
	[[ ! -e $D/ours/.otpw.linger ]] || fail "the records outlived the list"
	lingers "$D/first"
	[[ $status != 0 ]] || fail "lingered past otp-keygen -f: $output"
	# From otpw-gen.
	RHOST=127.0.0.1 login ours
	[[ $status == 0 ]] || fail "a new answer: $output"
	cp "$D/answer" "$D/first"
	list_peer ours 10
	lingers "$D/first"
	[[ $status != 0 ]] || fail "lingered past otpw-gen: $output"
	# Removed: no list, no linger.
	RHOST=127.0.0.1 login ours
	[[ $status == 0 ]] || fail "a new answer: $output"
	cp "$D/answer" "$D/first"
	rm "$D/ours/.otpw"
	lingers "$D/first"
	[[ $status != 0 ]] || fail "lingered without a list: $output"
}

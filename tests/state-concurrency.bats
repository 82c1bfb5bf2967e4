#!/usr/bin/env bats
# state-concurrency.bats - the state file under concurrent and killed
# updates: nothing accepted twice, nothing lost, never a torn file.
# Drives `otp-verify --state`.

setup() {
	load common
	D=$(mktemp -d)
	KEY=2SH3V3GDW7ZNMGYE
	T0=300000		# step 10000 at 30 s; the code there is 050548
}

teardown() {
	rm -rf "$D"
}

# vcheck FILE CODE NOW: 0 accepted, 1 refused, 2 error.
vcheck() {
	otp-verify -N "@$3" --state "$1" "$2" >/dev/null 2>&1
}

# state FILE LINE...: a state file of KEY and the lines, mode 0400.
state() {
	local f=$1
	shift
	printf '%s\n' "$KEY" "$@" >"$f"
	chmod 0400 "$f"
}

# race N FILE CODE NOW: N runs at once; prints how many accepted, refused
# and failed.
race() {
	local n=$1 f=$2 code=$3 now=$4 i
	mkdir -p "$D/rc"
	rm -f "$D"/rc/*
	for ((i = 0; i < n; i++)); do
		(vcheck "$f" "$code" "$now"; echo $? >"$D/rc/$i") &
	done
	wait
	echo "$(grep -lx 0 "$D"/rc/* | wc -l) $(grep -lx 1 "$D"/rc/* | wc -l) $(grep -Lx '[01]' "$D"/rc/* | wc -l)"
}

# vexec: vcheck as one process (exec), so that a kill hits the checker.
vexec() {
	exec otp-verify -N "@$3" --state "$1" "$2" >/dev/null 2>&1
}

no_temp_left() {
	! compgen -G "$D/ga~*" >/dev/null
}

@test "50 concurrent runs with one TOTP code under DISALLOW_REUSE: exactly one accepted" {
	state "$D/ga" '" DISALLOW_REUSE' '" TOTP_AUTH'
	run race 50 "$D/ga" 050548 $T0
	assert_output "1 49 0"
	run cat "$D/ga"
	assert_output "$(printf '%s\n' $KEY '" DISALLOW_REUSE 10000' '" TOTP_AUTH')"
	no_temp_left
	# The file is 0400 and still works for the next step's code.
	[[ $(stat -c %a "$D/ga") == 400 ]]
	run vcheck "$D/ga" "$($PY -c "import pyotp; print(pyotp.TOTP('$KEY').at($T0 + 30))")" $((T0 + 30))
	assert_success
}

@test "50 concurrent runs with one scratch code: exactly one accepted, the code deleted" {
	state "$D/ga" '" TOTP_AUTH' 11111111 22222222 33333333
	run race 50 "$D/ga" 22222222 $T0
	assert_output "1 49 0"
	run cat "$D/ga"
	assert_output "$(printf '%s\n' $KEY '" TOTP_AUTH' 11111111 33333333)"
	no_temp_left
}

@test "rate limit under concurrency: RATE_LIMIT 3 30 lets exactly 3 of 50 right codes in" {
	state "$D/ga" '" RATE_LIMIT 3 30' '" TOTP_AUTH'
	run race 50 "$D/ga" 050548 $T0
	assert_output "3 47 0"
	# Every attempt was recorded: the list holds the newest 3.
	run grep -x '" RATE_LIMIT 3 30 300000 300000 300000' "$D/ga"
	assert_success
	# 31 seconds later the window has passed.
	run vcheck "$D/ga" 050548 $((T0 + 31))
	assert_success
}

@test "rate limit under concurrency: 50 wrong codes, then the right one is refused" {
	state "$D/ga" '" RATE_LIMIT 5 60' '" TOTP_AUTH'
	run race 50 "$D/ga" 999999 $T0
	assert_output "0 50 0"
	run vcheck "$D/ga" 050548 $((T0 + 1))
	assert_failure 1
	run grep -c '^" RATE_LIMIT 5 60 300000 300000 300000 300000 300001$' "$D/ga"
	assert_output 1
}

@test "HOTP under concurrency: 50 wrong codes move the counter by exactly 50" {
	state "$D/ga" '" HOTP_COUNTER 1'
	run race 50 "$D/ga" 999999 $T0
	assert_output "0 50 0"
	run cat "$D/ga"
	assert_output "$(printf '%s\n' $KEY '" HOTP_COUNTER 51')"
}

@test "200 runs killed at random moments: the file is always the old or the new version" {
	local i n=1 pid torn=0 temps=0 old new cur t0 us r
	state "$D/ga" '" WINDOW_SIZE 3' '" HOTP_COUNTER 1' 11111111
	# How long one run takes here (sanitizer builds are slower): the
	# kills land anywhere from before the start to just after the end.
	cp "$D/ga" "$D/probe"
	us=999999999
	for ((i = 0; i < 5; i++)); do
		t0=$(date +%s%N)
		vcheck "$D/probe" 999999 $T0 || true
		t0=$((($(date +%s%N) - t0) / 1000 + 1))
		((t0 < us)) && us=$t0
	done
	mkfifo "$D/never"
	exec 9<>"$D/never"
	for ((i = 0; i < 200; i++)); do
		old=$(cat "$D/ga")
		new=$(printf '%s\n' "$old" | sed "s/^\" HOTP_COUNTER $n\$/\" HOTP_COUNTER $((n + 1))/")
		(vexec "$D/ga" 999999 $T0) 2>/dev/null &
		pid=$!
		# Uniform u in [0, 1), cubed: most kills early in the run,
		# where the process starts, reads and writes.
		r=$((RANDOM % 1000))
		# (a builtin wait, no fork: read from a FIFO nobody writes)
		read -r -u 9 -t "$(printf '%d.%06d' \
		    $((us * r * r * r / 1000000000 / 1000000)) \
		    $((us * r * r * r / 1000000000 % 1000000)))" _ || true
		{ kill -KILL $pid && wait $pid; } 2>/dev/null || true
		cur=$(cat "$D/ga")
		if [[ $cur == "$old" ]]; then
			:
		elif [[ $cur == "$new" ]]; then
			n=$((n + 1))
		else
			torn=$((torn + 1))
			echo "# torn after run $i: $cur" >&3
		fi
		# A killed run may leave its temporary file (mode 0400, never
		# the real name); count and remove it.
		if compgen -G "$D/ga~*" >/dev/null; then
			temps=$((temps + 1))
			rm -f "$D"/ga~*
		fi
		[[ $(stat -c %a "$D/ga") == 400 ]]
	done
	exec 9>&-
	echo "# 200 kills within ${us} us: counter moved $((n - 1)) times, $temps stray temporary files" >&3
	[[ $torn == 0 ]]
	# Some kills must have landed after the update, some before.
	((n > 1 && n < 201))
	# The survivor still parses and works.
	run vcheck "$D/ga" 11111111 $T0
	assert_success
}

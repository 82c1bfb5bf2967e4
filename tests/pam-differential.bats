#!/usr/bin/env bats
# pam-differential.bats - pam_otp.so against Debian's
# pam_google_authenticator.so, step by step: each step runs the same
# input at the same frozen time through both modules, each on its own copy
# of the same state file, and asserts the same PAM result AND byte-
# identical files afterwards.  Where the original has a documented bug we
# are allowed to be stricter; such a step says so and asserts exactly
# the difference.

setup_file() {
	load common
	load pam/lib
	pam_setup_file
}

setup() {
	load common
	load pam/lib
	pam_setup
	PAM_ENV=()
}

# dservice ARGS...: services "ga" and "otp", one auth line each with the
# module's own copy of the state file.
dservice() {
	local m
	for m in ga otp; do
		MOD=$m service "$m" "auth required @MOD@ secret=@DIR@/state $*"
	done
}

# verdict: pamtester's last word from $output, wherever it starts (after
# a prompt, which ends in no newline, or after a log line).
verdict() {
	grep -o 'pamtester: .*' <<<"$output" | tail -n 1
}

# prompts: how many times the module asked (our prompts end in "code: ").
prompts() {
	grep -o 'code: ' <<<"$output" | wc -l
}

# dstep INPUT [PAMTESTER-OPTION...]: run one step at $NOW through both
# modules; the results, whether they asked, and the files must be the
# same.  Sets GA_STATUS and GA_PROMPTS.
dstep() {
	local input=$1 gv ov op
	shift
	MOD=ga pam_run ga "$input" "$@"
	GA_STATUS=$status
	GA_PROMPTS=$(prompts)
	gv=$(verdict)
	MOD=otp pam_run otp "$input" "$@"
	no_sanitizer_errors
	ov=$(verdict)
	op=$(prompts)
	echo "# step at $NOW, input '$input' $*: ga $GA_STATUS ($gv, $GA_PROMPTS prompts), otp $status ($ov, $op prompts)"
	[[ $status == "$GA_STATUS" && $ov == "$gv" ]] ||
	    fail "results differ: ga $GA_STATUS '$gv', otp $status '$ov'"
	[[ $op == "$GA_PROMPTS" ]] ||
	    fail "prompts differ: ga $GA_PROMPTS, otp $op"
	same_files
}

# same_files: both state files byte for byte, same mode, no temp files.
same_files() {
	if ! cmp -s "$D/ga/state" "$D/otp/state"; then
		diff -u "$D/ga/state" "$D/otp/state" | sed 's/^/# /'
		fail "state files differ"
	fi
	[[ $(stat -c %a "$D/ga/state") == $(stat -c %a "$D/otp/state") ]] ||
	    fail "modes differ"
	no_temp_left "$D/ga"
	no_temp_left "$D/otp"
}

# want STATUS [PROMPTS]: the last step's agreed result (and prompt count).
want() {
	[[ $GA_STATUS == "$1" ]] || fail "expected status $1, got $GA_STATUS"
	[[ -z ${2:-} || $GA_PROMPTS == "$2" ]] ||
	    fail "expected $2 prompts, got $GA_PROMPTS"
}

# tfp_service ARGS...: PAM_AUTHTOK from the environment (pam_set_items.so),
# then each module with ARGS (try_first_pass, use_first_pass).
tfp_service() {
	local m
	for m in ga otp; do
		MOD=$m service "$m" \
		    "auth required $PWRAP_MODDIR/pam_set_items.so" \
		    "auth required @MOD@ secret=@DIR@/state $*"
	done
}

@test "TOTP with DISALLOW_REUSE and RATE_LIMIT: a day of logins" {
	both_states "$KEY" '" RATE_LIMIT 3 30' '" WINDOW_SIZE 3' \
	    '" DISALLOW_REUSE' '" TOTP_AUTH' 12345678 23456789
	dservice
	dstep "$(totp $NOW)"
	want 0
	dstep "$(totp $NOW)"
	want 1
	NOW=$((NOW + 31))
	# The previous step's code is in the window but used.
	dstep "$(totp $((NOW - 30)))"
	want 1
	dstep "$(totp $((NOW + 30)))"
	want 0
	dstep "$(totp $NOW)"
	want 0
	# The fourth attempt within 30 s is rate limited.
	dstep 000000
	want 1
	NOW=$((NOW + 31))
	dstep 000000
	want 1
	dstep 12345678
	want 0
	dstep 12345678
	want 1
	NOW=$((NOW + 31))
	dstep 23456789
	want 0
	dstep 23456789
	want 1
	# Much later: old DISALLOW_REUSE entries are pruned.
	NOW=$((NOW + 86400))
	dstep "$(totp $NOW)"
	want 0
}

@test "HOTP: counter moves on success and failure, window ahead" {
	both_states "$KEY" '" HOTP_COUNTER 1' 12345678
	dservice
	dstep "$(hotp 1)"
	want 0
	dstep "$(hotp 1)"
	want 1
	dstep "$(hotp 5)"
	want 0
	dstep "$(hotp 20)"
	want 1
	dstep 12345678
	want 0
	dstep abc
	want 1
	dstep "$(hotp 8)"
	want 0
}

@test "HOTP with no_increment_hotp and WINDOW_SIZE 5" {
	both_states "$KEY" '" WINDOW_SIZE 5' '" HOTP_COUNTER 7'
	dservice no_increment_hotp
	dstep "$(hotp 1)"
	want 1
	dstep "$(hotp 11)"
	want 0
	dstep "$(hotp 11)"
	want 1
	dstep "$(hotp 12)"
	want 0
}

@test "skew learning: three codes, then the learned skew" {
	both_states "$KEY" '" TOTP_AUTH'
	dservice
	dstep "$(totp $((NOW - 1400)))"
	want 1
	NOW=$((NOW + 30))
	dstep "$(totp $((NOW - 1400)))"
	want 1
	# The same code twice does not count.
	dstep "$(totp $((NOW - 1400)))"
	want 1
	NOW=$((NOW + 60))
	dstep "$(totp $((NOW - 1400)))"
	want 0
	NOW=$((NOW + 30))
	dstep "$(totp $((NOW - 1400)))"
	want 0
	dstep "$(totp $NOW)"
	want 1
	# Codes too far away (beyond +-1499 steps) are not learned from.
	NOW=$((NOW + 30))
	dstep "$(totp $((NOW + 46000)))"
	want 1
}

@test "skew learning with DISALLOW_REUSE: the resync code is not taken twice (stricter)" {
	# The original accepts the third resync code and does not record it
	# as used, so under DISALLOW_REUSE the same code is accepted a second
	# time.  Ours records it in DISALLOW_REUSE and refuses the replay.
	local c
	both_states "$KEY" '" DISALLOW_REUSE' '" TOTP_AUTH'
	dservice
	dstep "$(totp $((NOW + 600)))"
	NOW=$((NOW + 30))
	dstep "$(totp $((NOW + 600)))"
	NOW=$((NOW + 30))
	c=$(totp $((NOW + 600)))
	MOD=ga pam_run ga "$c"
	accepted
	MOD=otp pam_run otp "$c"
	accepted
	diff <(grep -v '^" DISALLOW_REUSE' "$D/ga/state") \
	    <(grep -v '^" DISALLOW_REUSE' "$D/otp/state")
	grep -q '^" DISALLOW_REUSE [0-9]' "$D/otp/state"
	MOD=ga pam_run ga "$c"
	accepted
	MOD=otp pam_run otp "$c"
	refused
}

@test "noskewadj: nothing is learned" {
	both_states "$KEY" '" RATE_LIMIT 10 30' '" TOTP_AUTH'
	dservice noskewadj
	local s
	for s in 0 1 2 3; do
		NOW=$((T0 + 30 * s))
		dstep "$(totp $((NOW + 300)))"
		want 1
	done
}

@test "scratch-only file: codes and scratch codes" {
	both_states "$KEY" '" RATE_LIMIT 3 30' 12345678 87654321
	dservice
	dstep "$(totp $NOW)"
	want 1
	dstep 87654321
	want 0
	NOW=$((NOW + 40))
	dstep 87654321
	want 1
	dstep 12345678
	want 0
}

@test "grace_period: records per host, ten slots, oldest replaced" {
	local h
	both_states "$KEY" '" DISALLOW_REUSE' '" TOTP_AUTH'
	dservice grace_period=600
	for h in 1 2 3 4 5 6 7 8 9 10 11; do
		NOW=$((T0 + 30 * h))
		dstep "$(totp $NOW)" -I "rhost=10.0.0.$h"
		want 0
	done
	NOW=$((NOW + 10))
	dstep "" -I rhost=10.0.0.5
	want 0
	dstep "" -I rhost=10.0.0.1
	want 1
	dstep "" -I rhost=host-11.example
	want 1
	NOW=$((T0 + 30 * 5 + 600))
	dstep "" -I rhost=10.0.0.5
	want 1
}

@test "forward_pass with HOTP: password and code in one answer" {
	both_states "$KEY" '" HOTP_COUNTER 3'
	dservice forward_pass
	dstep "secret-pw$(hotp 3)"
	want 0
	dstep "$(hotp 4)"
	want 0
	dstep "x$(hotp 4)"
	want 1
}

@test "wrong shapes still count against RATE_LIMIT" {
	both_states "$KEY" '" RATE_LIMIT 2 60' '" TOTP_AUTH'
	dservice
	dstep ""
	dstep "12 34 56"
	dstep "$(totp $NOW)"
	want 1
}

@test "a file written by google-authenticator(1) itself" {
	local key
	command -v google-authenticator >/dev/null ||
	    skip "google-authenticator(1) not installed"
	google-authenticator -t -d -f -q -r 3 -R 30 -w 3 -e 3 \
	    -s "$D/ga/state" -Q NONE >/dev/null </dev/null
	cp -p "$D/ga/state" "$D/otp/state"
	key=$(head -n 1 "$D/ga/state")
	dservice
	NOW=$(date +%s)
	dstep "$(totp "$NOW" 30 "$key")"
	want 0
	dstep "$(totp "$NOW" 30 "$key")"
	want 1
	dstep "$(sed -n '$p' "$D/ga/state")"
	want 0
}

@test "random sequence: 60 steps of codes, wrong codes, scratch codes, time jumps" {
	local i r c nok=0 nno=0 scratch=(12345678 23456789 34567890 99999999)
	both_states "$KEY" '" RATE_LIMIT 4 30' '" WINDOW_SIZE 5' \
	    '" DISALLOW_REUSE' '" TOTP_AUTH' 12345678 23456789 34567890
	dservice noskewadj
	RANDOM=4226
	for ((i = 0; i < 60; i++)); do
		NOW=$((NOW + RANDOM % 45))
		r=$((RANDOM % 10))
		case $r in
		0 | 1 | 2 | 3) c=$(totp $((NOW + 30 * (RANDOM % 7 - 3)))) ;;
		4) c=$(printf '%06d' $((RANDOM * 31 % 1000000))) ;;
		5) c=${scratch[RANDOM % 4]} ;;
		6) c=${c:-000000} ;;
		7) c=x$RANDOM ;;
		*) c=$(totp "$NOW") ;;
		esac
		dstep "$c"
		((GA_STATUS == 0)) && ((++nok)) || ((++nno))
	done
	# The sequence must exercise both outcomes to mean anything.
	echo "# accepted $nok, refused $nno"
	((nok >= 10 && nno >= 10))
}

# One login, one attempt: the original reads the file once per login,
# records the attempt (RATE_LIMIT) once, then tries every reading (PAM_AUTHTOK,
# the prompt; the last 6 and the last 8 digits of a forward_pass answer)
# against that one state, and moves a missed HOTP counter once at the end.

@test "forward_pass: an answer that holds two possible codes" {
	# "hunter12" + "000000": the last 6 digits are a code after the
	# password "hunter12", the last 8 a scratch code after "hunte".
	both_states "$KEY" '" RATE_LIMIT 5 30' '" HOTP_COUNTER 1' 12000000
	dservice forward_pass
	dstep "hunter12000000"
	want 0
	# The 6-digit reading missed counter 1 before the scratch code
	# matched: that used counter 1 up.
	dstep "hunter12$(hotp 1)"
	want 1
	dstep "hunter12$(hotp 3)"
	want 0
	# Four logins, four records: two readings each did not count twice.
	dstep "hunter12000001"
	want 1
	grep -q '^" RATE_LIMIT 5 30 300000 300000 300000 300000$' "$D/otp/state"
}

@test "grace_period with RATE_LIMIT: one attempt, one record" {
	both_states "$KEY" '" RATE_LIMIT 5 30' '" DISALLOW_REUSE' '" TOTP_AUTH'
	dservice grace_period=600
	dstep "$(totp $NOW)" -I rhost=10.0.0.1
	want 0
	dstep "$(totp $((NOW + 30)))" -I rhost=10.0.0.2
	want 0
	NOW=$((NOW + 10))
	dstep "000000" -I rhost=10.0.0.3
	want 1
	# A grace-period login asks nothing and records nothing.
	dstep "" -I rhost=10.0.0.1
	want 0 0
	grep -q '^" RATE_LIMIT 5 30 300000 300000 300010$' "$D/otp/state"
}

@test "RATE_LIMIT exceeded: refused without a prompt, the attempt recorded" {
	both_states "$KEY" '" RATE_LIMIT 2 30' '" HOTP_COUNTER 1'
	dservice
	dstep 000000
	want 1 1
	dstep 000000
	want 1 1
	# Over the limit: even the right code is not asked for, and the
	# counter does not move.
	dstep "$(hotp 3)"
	want 1 0
	grep -q '^" HOTP_COUNTER 3$' "$D/otp/state"
	NOW=$((NOW + 31))
	dstep "$(hotp 3)"
	want 0 1
}

@test "RATE_LIMIT exceeded: try_first_pass and use_first_pass refuse without a prompt" {
	both_states "$KEY" '" RATE_LIMIT 1 30 300000' '" TOTP_AUTH'
	tfp_service try_first_pass
	PAM_ENV=("PAM_AUTHTOK=$(totp $NOW)")
	dstep "$(totp $NOW)"
	want 1 0
	tfp_service use_first_pass
	dstep ""
	want 1 0
}

@test "grace_period is looked at before RATE_LIMIT" {
	both_states "$KEY" '" RATE_LIMIT 1 30' '" TOTP_AUTH'
	dservice grace_period=600
	dstep "$(totp $NOW)" -I rhost=10.0.0.1
	want 0
	NOW=$((NOW + 1))
	dstep "" -I rhost=10.0.0.2
	want 1 0
	dstep "" -I rhost=10.0.0.1
	want 0 0
}

@test "try_first_pass with HOTP: a missed PAM_AUTHTOK leaves the counter to the prompt" {
	both_states "$KEY" '" RATE_LIMIT 5 30' '" HOTP_COUNTER 3'
	tfp_service try_first_pass
	# PAM_AUTHTOK misses counter 3; the prompt's code for counter 3
	# still works, and the login is one attempt.
	PAM_ENV=("PAM_AUTHTOK=000000")
	dstep "$(hotp 3)"
	want 0 1
	grep -q '^" RATE_LIMIT 5 30 300000$' "$D/otp/state"
	# A miss, then a prompt answer of the wrong shape: the counter moves
	# once.
	dstep abc
	want 1 1
	grep -q '^" HOTP_COUNTER 5$' "$D/otp/state"
}

@test "try_first_pass with HOTP: a miss, then a scratch code, still moves the counter" {
	both_states "$KEY" '" HOTP_COUNTER 1' 12345678
	tfp_service try_first_pass
	PAM_ENV=("PAM_AUTHTOK=000000")
	dstep 12345678
	want 0 1
	grep -q '^" HOTP_COUNTER 2$' "$D/otp/state"
	# no_increment_hotp: a miss moves nothing.
	tfp_service try_first_pass no_increment_hotp
	dstep 111111
	want 1 1
}

@test "use_first_pass with HOTP: no code at all is an attempt, not a counter move" {
	both_states "$KEY" '" RATE_LIMIT 5 30' '" HOTP_COUNTER 1'
	tfp_service use_first_pass
	PAM_ENV=("PAM_AUTHTOK=x")
	dstep ""
	want 1 0
	PAM_ENV=("PAM_AUTHTOK=000000")
	dstep ""
	want 1 0
	grep -q '^" HOTP_COUNTER 2$' "$D/otp/state"
}

@test "a used code ends the login: no 8-digit reading, no prompt after PAM_AUTHTOK" {
	local c
	c=$(totp $NOW)
	both_states "$KEY" '" DISALLOW_REUSE 10000' '" TOTP_AUTH' "91$c"
	# forward_pass "91"+code: the code is used, so the scratch code
	# 91+code is not tried.
	dservice forward_pass
	dstep "91$c"
	want 1
	tfp_service try_first_pass
	PAM_ENV=("PAM_AUTHTOK=$c")
	dstep "$(totp $((NOW + 30)))"
	want 1 0
}

@test "a code that skew learning records ends the login, the same code again too" {
	local c
	c=$(totp $((NOW - 1400 * 30)))
	both_states "$KEY" '" TOTP_AUTH' "91$c"
	dservice forward_pass
	dstep "pw91$c"
	want 1
	grep -q '^91' "$D/otp/state"
	dstep "pw91$c"
	want 1
	tfp_service try_first_pass
	PAM_ENV=("PAM_AUTHTOK=$(totp $((NOW - 3000)))")
	dstep "$(totp $NOW)"
	want 1 0
}

@test "forward_pass without RATE_LIMIT: an answer that holds two possible codes" {
	both_states "$KEY" '" HOTP_COUNTER 1' 12000000
	dservice forward_pass
	dstep "hunter12000000"
	want 0
	dstep "hunter12$(hotp 2)"
	want 0
	dstep "hunter12000001"
	want 1
}

@test "try_first_pass with HOTP: two failed readings move the counter once" {
	both_states "$KEY" '" HOTP_COUNTER 1'
	for m in ga otp; do
		MOD=$m service "$m" "auth required $PWRAP_MODDIR/pam_set_items.so" \
		    "auth required @MOD@ secret=@DIR@/state try_first_pass"
	done
	PAM_ENV=("PAM_AUTHTOK=pass000000")
	dstep 000001
	want 1
	PAM_ENV=("PAM_AUTHTOK=pass$(hotp 2)")
	dstep ""
	want 0
	PAM_ENV=("PAM_AUTHTOK=nothing")
	dstep "$(hotp 3)"
	want 0
}

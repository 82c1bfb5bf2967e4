#!/usr/bin/env bats
# pam-users.bats - pam_otp.so usersfile= against Debian's pam_oath.so
# (libpam-oath), step by step: each step runs the same input at the same
# frozen time through both modules, each on its own copy of the same
# users file, and asserts the same PAM result, the same prompts AND
# byte-identical files afterwards.  Where pam_oath has a documented fault
# we differ on purpose; such a test says so and asserts the difference.

bats_require_minimum_version 1.5.0

OATH_SO=/lib/x86_64-linux-gnu/security/pam_oath.so
# RFC 4226's key, as the users file spells it (hex).
HEX=3132333435363738393031323334353637383930

setup_file() {
	load common
	load pam/lib
	pam_setup_file
	[[ -f $OATH_SO ]] || fail "$OATH_SO missing (libpam-oath)"
	command -v oathtool >/dev/null || fail "oathtool missing"
}

setup() {
	load common
	load pam/lib
	pam_setup
	mkdir -p "$D/oath"
	PAM_ENV=()
	U=$PAM_USER
}

# hcode C [DIGITS]: the HOTP code of counter C, from oathtool and otp-gen.
hcode() {
	local ref ours
	ref=$(oathtool --hotp -d "${2:-6}" -c "$1" "$HEX") || fail "oathtool"
	ours=$("$OTP_BIN/otp-gen" --hotp -d "${2:-6}" -c "$1" "$HEX") ||
	    fail "otp-gen"
	[[ $ref == "$ours" ]] || fail "otp-gen $ours, oathtool $ref"
	printf '%s\n' "$ref"
}

# tcode T STEP [DIGITS]: the TOTP code at Unix time T.
tcode() {
	local ref ours
	ref=$(oathtool --totp -s "$2s" -d "${3:-6}" -N "@$1" "$HEX") ||
	    fail "oathtool"
	ours=$("$OTP_BIN/otp-gen" --totp -s "$2" -d "${3:-6}" -N "@$1" \
	    "$HEX") || fail "otp-gen"
	[[ $ref == "$ours" ]] || fail "otp-gen $ours, oathtool $ref"
	printf '%s\n' "$ref"
}

# users LINE...: the same users file (mode 0600) for both modules.
users() {
	local m
	for m in oath otp; do
		rm -f "$D/$m/users"
		printf '%s\n' "$@" >"$D/$m/users"
		chmod 0600 "$D/$m/users"
	done
}

# uservice ARGS...: services "oath" and "otp", one auth line each with
# the module's own copy of the users file; PRE lines go first.
uservice() {
	printf '%s\n' "${PRE[@]}" \
	    "auth required $OATH_SO usersfile=$D/oath/users $*" \
	    >"$D/svc/oath"
	printf '%s\n' "${PRE[@]}" \
	    "auth required $OTP_SO usersfile=$D/otp/users $*" \
	    >"$D/svc/otp"
}

# pamtester's last word, wherever it starts (after a prompt, which ends
# in no newline, or after a log line).
verdict() {
	grep -o 'pamtester: .*' <<<"$output" | tail -n 1
}

prompts() {
	grep -o "One-time password (OATH) for \`$U': " <<<"$output" | wc -l
}

# ustep INPUT: one step at $NOW through both modules; same result, same
# prompts, same file (bytes and mode), nothing left beside it.
ustep() {
	local input=$1 ov pv op
	PAM_RUN_USER=$U pam_run oath "$input"
	O_STATUS=$status
	O_PROMPTS=$(prompts)
	ov=$(verdict)
	PAM_RUN_USER=$U pam_run otp "$input"
	no_sanitizer_errors
	pv=$(verdict)
	op=$(prompts)
	echo "# step at $NOW, '$input': oath $O_STATUS ($ov, $O_PROMPTS), otp $status ($pv, $op)"
	[[ $status == "$O_STATUS" && $pv == "$ov" ]] ||
	    fail "results differ: oath $O_STATUS '$ov', otp $status '$pv'"
	[[ $op == "$O_PROMPTS" ]] || fail "prompts differ: $O_PROMPTS, $op"
	if ! cmp -s "$D/oath/users" "$D/otp/users"; then
		diff -u "$D/oath/users" "$D/otp/users" | sed 's/^/# /'
		fail "users files differ"
	fi
	[[ $(stat -c %a "$D/oath/users") == $(stat -c %a "$D/otp/users") ]] ||
	    fail "modes differ"
	local f
	# users.tally/ holds the wrong codes in a row of ours (deny=).
	for f in "$D"/otp/users?* "$D"/oath/users?*; do
		[[ ! -e $f || $f == "$D/otp/users.tally" ]] ||
		    fail "left behind: $f"
	done
}

# want STATUS: the last step's agreed result.
want() {
	[[ $O_STATUS == "$1" ]] || fail "expected status $1, got $O_STATUS"
}

@test "HOTP: right, replayed, old, future and wrong codes as pam_oath" {
	users "# users file" "HOTP $U - $HEX" "HOTP/T30 someone - $HEX 0"
	PRE=()
	uservice
	ustep 000000
	want 1
	ustep "$(hcode 1)"
	want 0
	grep -q "^HOTP	$U	-	$HEX	1	$(hcode 1)	1970-01-04T11:20:00L$" \
	    "$D/otp/users" || fail "line not rebuilt: $(cat "$D/otp/users")"
	ustep "$(hcode 1)"
	want 1
	ustep "$(hcode 0)"
	want 1
	ustep "$(hcode 3)"
	want 0
	NOW=$((NOW + 100))
	ustep "$(hcode 10)"
	want 1
	ustep "$(hcode 8)"
	want 0
	ustep "$(hcode 8)"
	want 1
	ustep "$(hcode 9)"
	want 0
	ustep 12345
	want 1
	ustep 123456789
	want 1
}

@test "HOTP/T30: now, replay, older step, later steps, drift as pam_oath" {
	users "HOTP/T30 $U - $HEX" "# tail comment, no newline after"
	PRE=()
	uservice
	ustep "$(tcode $NOW 30)"
	want 0
	ustep "$(tcode $NOW 30)"
	want 1
	ustep "$(tcode $((NOW - 30)) 30)"
	want 1
	ustep "$(tcode $((NOW + 30)) 30)"
	want 0
	ustep "$(tcode $NOW 30)"
	want 1
	NOW=$((NOW + 60))
	ustep "$(tcode $NOW 30)"
	want 0
	ustep "$(tcode $((NOW + 300)) 30)"
	want 1
	ustep 000000
	want 1
	NOW=$((NOW + 1000))
	# The last code has left the window: no order is enforced.
	ustep "$(tcode $((NOW - 60)) 30)"
	want 0
	ustep "$(tcode $((NOW + 150)) 30)"
	want 0
	ustep "$(tcode $((NOW + 120)) 30)"
	want 1
}

@test "HOTP/T60/8 with window=2: 8-digit codes as pam_oath" {
	users "HOTP/T60/8 $U - $HEX 7"
	PRE=()
	uservice window=2
	ustep "$(tcode $NOW 60 8)"
	want 0
	ustep "$(tcode $NOW 60 8)"
	want 1
	ustep "$(tcode $((NOW + 180)) 60 8)"
	want 1
	ustep "$(tcode $((NOW + 120)) 60 8)"
	want 0
	ustep "$(tcode $((NOW + 60)) 60 8)"
	want 1
	NOW=$((NOW + 600))
	ustep "$(tcode $((NOW - 120)) 60 8)"
	want 0
	ustep 00000000
	want 1
}

@test "several tokens of one user: the one that takes the code changes" {
	users "HOTP $U - 3132333435363738393031323334353637383931 0" \
	    "unknown line kept as it is" "" \
	    "HOTP/T30 $U - $HEX" "HOTP $U - $HEX 4"
	PRE=()
	uservice
	ustep "$(hcode 5)"
	want 0
	ustep "$(tcode $NOW 30)"
	want 0
	ustep "$(hcode 5)"
	want 1
}

@test "PIN before the code with digits=, and the PIN handed on in PAM_AUTHTOK" {
	users "HOTP $U 1234 $HEX" "HOTP/T30 other + $HEX"
	PRE=()
	uservice digits=6
	printf '%s\n' \
	    "auth required $OATH_SO usersfile=$D/oath/users digits=6" \
	    "auth required pam_exec.so expose_authtok $BATS_TEST_DIRNAME/pam/record-authtok.sh $D/oath/fwd" \
	    >"$D/svc/oath"
	printf '%s\n' \
	    "auth required $OTP_SO usersfile=$D/otp/users digits=6" \
	    "auth required pam_exec.so expose_authtok $BATS_TEST_DIRNAME/pam/record-authtok.sh $D/otp/fwd" \
	    >"$D/svc/otp"
	ustep "9999$(hcode 1)"
	want 1
	ustep "$(hcode 1)"
	want 1
	ustep "1234$(hcode 1)"
	want 0
	[[ $(cat "$D/otp/fwd") == 1234 && $(cat "$D/oath/fwd") == 1234 ]] ||
	    fail "PAM_AUTHTOK: oath '$(cat "$D/oath/fwd")', otp '$(cat "$D/otp/fwd")'"
	U=other
	ustep "anything$(tcode $NOW 30)"
	want 0
}

@test "unknown user: PAM_USER_UNKNOWN before any prompt, as pam_oath" {
	users "HOTP someone - $HEX"
	PRE=()
	uservice
	ustep "$(hcode 1)"
	want 1
	assert_output --partial "User not known"
	[[ $O_PROMPTS == 0 ]] || fail "pam_oath prompted"
}

# client_sees USER: the last run's prompts and verdict, without the log
# lines (a prompt ends no line, so a log line may follow it on its own)
# and with USER's name as USER.
client_sees() {
	sed -e 's/SYSLOG [0-9]*: .*//' -e "s/$1/USER/g" <<<"$output" |
	    grep -v '^$'
}

@test "prompt_unknown: a user without a token is asked and refused as a wrong code is" {
	users "HOTP someone - $HEX"
	printf 'auth required %s usersfile=%s prompt_unknown\n' "$OTP_SO" \
	    "$D/otp/users" >"$D/svc/otp"
	# An enrolled user with a wrong code, then a user without a token:
	# the client sees the same prompt and the same refusal.
	local known
	PAM_RUN_USER=someone pam_run otp 000000
	refused
	known=$(client_sees someone)
	PAM_RUN_USER=stranger pam_run otp 000000
	refused
	[[ $(client_sees stranger) == "$known" ]] ||
	    fail "an unknown user is told apart: $output"
	assert_output --partial "One-time password (OATH) for \`stranger': "
	assert_output --partial "login of \"stranger\" refused: no token in"
	refute_output --partial "User not known"
	# The state-file store asks anyway already: the option is not its.
	printf 'auth required %s secret=%s prompt_unknown\n' "$OTP_SO" \
	    "$D/otp/state" >"$D/svc/t"
	pam_run t 000000
	refused
	assert_output --partial 'unknown option "prompt_unknown"'
}

@test "on purpose: a group-readable (0640) users file is refused unless allow_group_read" {
	users "HOTP $U - $HEX"
	chmod 0640 "$D/otp/users"
	printf 'auth required %s usersfile=%s %s\n' "$OTP_SO" \
	    "$D/otp/users" "" >"$D/svc/otp"
	PAM_RUN_USER=$U pam_run otp "$(hcode 0)"
	assert_output --partial "Authentication failure"
	assert_output --partial "permissions are too open"
	printf 'auth required %s usersfile=%s allow_group_read\n' "$OTP_SO" \
	    "$D/otp/users" >"$D/svc/otp"
	PAM_RUN_USER=$U pam_run otp "$(hcode 0)"
	assert_output --partial "successfully authenticated"
	[[ $(stat -c %a "$D/otp/users") == 640 ]]
}

@test "a large file, read in pieces: a line longer than a piece, the user after 2000 others, as pam_oath" {
	local lines=() i
	lines+=("# $(printf '%*s' 70000 '' | tr ' ' x)")
	for i in $(seq 1 2000); do
		lines+=("HOTP/T30	user$i	-	$HEX	0	000000	2026-01-01T00:00:00L")
	done
	lines+=("HOTP $U - $HEX")
	for i in $(seq 2001 2100); do
		lines+=("HOTP user$i - $HEX 3")
	done
	users "${lines[@]}"
	uservice
	ustep "$(hcode 1)"
	want 0
	ustep "$(hcode 1)"
	ustep "$(hcode 2)"
	want 0
}

@test "on purpose: deny= wrong codes lock a user out (pam_faillock's way), outside the users file" {
	users "HOTP $U - $HEX"
	cp "$D/otp/users" "$D/before"
	printf 'auth required %s usersfile=%s deny=2 unlock_time=60\n' \
	    "$OTP_SO" "$D/otp/users" >"$D/svc/otp"
	PAM_RUN_USER=$U pam_run otp 111111
	assert_output --partial "Authentication failure"
	PAM_RUN_USER=$U pam_run otp 222222
	assert_output --partial "Authentication failure"
	cmp "$D/before" "$D/otp/users"
	PAM_RUN_USER=$U pam_run otp "$(hcode 0)"
	assert_output --partial "Authentication failure"
	assert_output --partial "too many wrong codes"
	cmp "$D/before" "$D/otp/users"
	NOW=$((NOW + 61))
	PAM_RUN_USER=$U pam_run otp "$(hcode 0)"
	assert_output --partial "successfully authenticated"
	[[ ! -e $D/otp/users.tally ]]
	# On by default: 5 in a row.
	printf 'auth required %s usersfile=%s\n' "$OTP_SO" "$D/otp/users" \
	    >"$D/svc/otp"
	for c in 1 2 3 4 5; do PAM_RUN_USER=$U pam_run otp 00000$c; done
	PAM_RUN_USER=$U pam_run otp "$(hcode 1)"
	assert_output --partial "too many wrong codes"
}

@test "use_first_pass and try_first_pass take PAM_AUTHTOK as pam_oath" {
	users "HOTP $U - $HEX"
	PRE=("auth required $PWRAP_MODDIR/pam_set_items.so")
	uservice use_first_pass
	PAM_ENV=("PAM_AUTHTOK=$(hcode 1)")
	ustep ""
	want 0
	PAM_ENV=("PAM_AUTHTOK=$(hcode 1)")
	ustep ""
	want 1
	uservice try_first_pass
	PAM_ENV=("PAM_AUTHTOK=$(hcode 2)")
	ustep ""
	want 0
	PAM_ENV=()
	ustep "$(hcode 3)"
	want 0
	[[ $O_PROMPTS == 1 ]] || fail "try_first_pass did not ask"
}

@test "on purpose: HOTP/E/8 refuses a 6-digit code that pam_oath takes" {
	users "HOTP/E/8 $U - $HEX"
	PRE=()
	uservice
	PAM_RUN_USER=$U pam_run oath "$(hcode 1)"
	[[ $status == 0 ]] || fail "pam_oath no longer takes it: $output"
	PAM_RUN_USER=$U pam_run otp "$(hcode 1)"
	refused
	PAM_RUN_USER=$U pam_run otp "$(hcode 1 8)"
	accepted
}

@test "on purpose: a stale FILE.lock and FILE.new lock nobody out" {
	users "HOTP $U - $HEX"
	PRE=()
	uservice
	for m in oath otp; do
		: >"$D/$m/users.lock"
		: >"$D/$m/users.new"
	done
	PAM_RUN_USER=$U pam_run oath "$(hcode 1)"
	[[ $status != 0 ]] || fail "pam_oath now survives a stale lock"
	PAM_RUN_USER=$U pam_run otp "$(hcode 1)"
	accepted
	[[ ! -e $D/otp/users.lock && ! -e $D/otp/users.new ]] ||
	    fail "leftovers not cleared"
	# pam_oath works again on the file we cleared.
	cp "$D/otp/users" "$D/oath/users"
	rm -f "$D/oath/users.lock" "$D/oath/users.new"
	PAM_RUN_USER=$U pam_run oath "$(hcode 2)"
	[[ $status == 0 ]] || fail "pam_oath after us: $output"
}

@test "on purpose: alwaysok is logged and not honoured" {
	users "HOTP $U - $HEX"
	PRE=()
	uservice alwaysok
	PAM_RUN_USER=$U pam_run otp 000000
	refused
	assert_output --partial 'option "alwaysok" is not honoured'
	PAM_RUN_USER=nobody-here pam_run otp 000000
	[[ $status != 0 ]] || fail "unknown user let in"
}

@test "pam_oath accepts a code for a line otp-keygen wrote" {
	local key
	rm -f "$D/oath/users"
	key=$("$OTP_BIN/otp-keygen" -x --usersfile="$D/oath/users" --user="$U")
	[[ $(stat -c %a "$D/oath/users") == 600 ]] || fail "not 0600"
	printf '%s\n' "auth required $OATH_SO usersfile=$D/oath/users" \
	    >"$D/svc/oath"
	PAM_RUN_USER=$U pam_run oath "$(oathtool --hotp -c 1 "$key")"
	[[ $status == 0 ]] || fail "pam_oath refused: $output"
	key=$("$OTP_BIN/otp-keygen" -f --totp=60 -d 8 \
	    --usersfile="$D/oath/users" --user="$U")
	PAM_RUN_USER=$U pam_run oath \
	    "$(oathtool --totp -b -s 60s -d 8 -N "@$NOW" "$key")"
	[[ $status == 0 ]] || fail "pam_oath refused TOTP: $output"
}

# bg_login SVC USER CODE OUT: one pam-drive login in the background.
bg_login() {
	(r=0
	env LD_PRELOAD="$(preload 0)" \
	    ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0 \
	    FAKETIME="$(faketime_of "$NOW")" DONT_FAKE_MONOTONIC=1 \
	    NO_FAKE_STAT=1 TZ=UTC "$PAM_DRIVE" "$D/svc" "$1" "$2" \
	    <<<"$3" >"$4" 2>&1 || r=$?
	echo $r >"$4.rc") &
}

# rcs PREFIX N: the exit statuses of N background logins, all present.
rcs() {
	local i
	for i in $(seq 1 "$2"); do
		[[ -s $D/$1$i.rc ]] || fail "login $i left no status"
		cat "$D/$1$i.rc"
	done
}

@test "on purpose: 10 users logging in at once all succeed" {
	local i lines=() ok=0
	for i in $(seq 1 10); do
		lines+=("HOTP/T30 user$i - $HEX")
	done
	users "${lines[@]}"
	PRE=()
	uservice
	for i in $(seq 1 10); do
		bg_login otp "user$i" "$(tcode $NOW 30)" "$D/r$i"
	done
	wait
	rcs r 10 >/dev/null
	ok=$(rcs r 10 | grep -c '^0$' || true)
	[[ $ok == 10 ]] || fail "$ok of 10 logins succeeded"
	[[ $(grep -c "	0	$(tcode $NOW 30)	" "$D/otp/users") == 10 ]] ||
	    fail "not every login recorded: $(cat "$D/otp/users")"
}

@test "on purpose: 30 logins with one code at once, exactly one succeeds" {
	local i ok=0
	users "HOTP $U - $HEX"
	PRE=()
	uservice
	for i in $(seq 1 30); do
		bg_login otp "$U" "$(hcode 1)" "$D/r$i"
	done
	wait
	rcs r 30 >/dev/null
	ok=$(rcs r 30 | grep -c '^0$' || true)
	[[ $ok == 1 ]] || fail "$ok of 30 logins succeeded"
}

@test "ours and pam_oath at once never both accept one code" {
	local i c both=0 n=0
	users "HOTP $U - $HEX"
	PRE=()
	uservice
	# Both modules on one file.
	printf '%s\n' "auth required $OATH_SO usersfile=$D/otp/users" \
	    >"$D/svc/oath"
	for i in $(seq 1 15); do
		c=$(hcode "$i")
		bg_login otp "$U" "$c" "$D/a$i"
		bg_login oath "$U" "$c" "$D/b$i"
		wait
		[[ -s $D/a$i.rc && -s $D/b$i.rc ]] || fail "no status"
		if [[ $(cat "$D/a$i.rc") == 0 && $(cat "$D/b$i.rc") == 0 ]]; then
			both=$((both + 1))
		fi
		[[ $(cat "$D/a$i.rc") == 0 || $(cat "$D/b$i.rc") == 0 ]] &&
		    n=$((n + 1))
	done
	echo "# $n of 15 codes accepted by one of the two"
	[[ $both == 0 ]] || fail "$both codes accepted by both"
}

@test "usersfile=... \${USER} is the user's name, as pam_oath expands it" {
	local m
	for m in oath otp; do
		printf 'HOTP\t%s\t-\t%s\n' "$U" "$HEX" >"$D/$m/$U.oath"
		chmod 0600 "$D/$m/$U.oath"
	done
	printf '%s\n' "auth required $OATH_SO usersfile=$D/oath/\${USER}.oath" \
	    >"$D/svc/oath"
	printf '%s\n' "auth required $OTP_SO usersfile=$D/otp/\${USER}.oath" \
	    >"$D/svc/otp"
	for m in oath otp; do
		PAM_RUN_USER=$U pam_run $m "$(hcode 1)"
		[[ $status == 0 ]] || fail "$m: $output"
	done
	cmp "$D/oath/$U.oath" "$D/otp/$U.oath"
}

@test "Mobile-OTP through the module: once, not twice; pam_oath does not know it" {
	local secret=e3152afee62599c8 c
	users "MOTP $U 1234 $secret"
	PRE=()
	uservice
	c=$("$OTP_BIN/otp-gen" --motp --pin=1234 -N "@$NOW" "$secret")
	PAM_RUN_USER=$U pam_run otp "$c"
	accepted
	PAM_RUN_USER=$U pam_run otp "$c"
	refused
	PAM_RUN_USER=$U pam_run oath "$c"
	assert_output --partial "User not known"
}

@test "on purpose: usersfile=DIR/\${USER} names no file outside DIR for a hostile name" {
	local name c
	c=$(hcode 1)
	mkdir -p "$D/oath/dir/sub" "$D/otp/dir/sub"
	# Files that would take the code, were the names put in the path.
	for m in oath otp; do
		printf 'HOTP\t../outside\t-\t%s\n' "$HEX" >"$D/$m/outside"
		printf 'HOTP\tsub/x\t-\t%s\n' "$HEX" >"$D/$m/dir/sub/x"
		printf 'HOTP\t.hidden\t-\t%s\n' "$HEX" >"$D/$m/dir/.hidden"
		printf 'HOTP\t-x\t-\t%s\n' "$HEX" >"$D/$m/dir/-x"
		chmod 0600 "$D/$m/outside" "$D/$m/dir/sub/x" "$D/$m/dir/.hidden" \
		    "$D/$m/dir/-x"
		cp -p "$D/$m/outside" "$D/$m/outside.before"
		printf 'auth required %s usersfile=%s/dir/${USER}\n' \
		    "$([[ $m == oath ]] && echo "$OATH_SO" || echo "$OTP_SO")" \
		    "$D/$m" >"$D/svc/$m"
	done
	# Debian's pam_oath expands ${USER} only for an account of the
	# password database; ours needs no account (a RADIUS server's users
	# have none) and checks the name instead.  Without that check it
	# would read the files above and accept.
	PAM_RUN_USER=../outside pam_run oath "$c"
	assert_output --partial "User not known"
	for name in ../outside sub/x .hidden -x "a b" "$D/otp/outside" . .. \
	    "$(printf 'a\tb')" "$(printf '%065d' 1)"; do
		PAM_RUN_USER=$name pam_run otp "$c"
		refused
		assert_output --partial "unfit to name a file"
		# Refused before any file is looked at: no prompt, no
		# "no token", no error about a file.
		refute_output --partial "One-time password"
		refute_output --partial "$D/otp/dir"
	done
	cmp "$D/otp/outside.before" "$D/otp/outside"
	[[ -z $(compgen -G "$D/otp/outside?*[!e]") ]]
	[[ -z $(compgen -G "$D/otp/dir/*.lock") ]]
	# A plain name still reads its own file.
	printf 'HOTP\talice.b\t-\t%s\n' "$HEX" >"$D/otp/dir/alice.b"
	chmod 0600 "$D/otp/dir/alice.b"
	PAM_RUN_USER=alice.b pam_run otp "$c"
	accepted
}

# home_run SERVICE INPUT USER: a login of USER, whose home is D/home in
# a password database of libnss_wrapper's (with the test's own ids).
home_run() {
	local nss=/usr/lib/x86_64-linux-gnu/libnss_wrapper.so
	[[ -f $nss ]] || skip "libnss_wrapper missing (libnss-wrapper)"
	printf '%s:x:%s:%s:test:%s:/bin/sh\n' "$3" "$(id -u)" "$(id -g)" \
	    "$D/home" >"$D/passwd"
	printf '%s:x:%s:\n' "$(id -gn)" "$(id -g)" >"$D/group"
	run timeout "${PAM_TIMEOUT:-60}" env \
	    LD_PRELOAD="$nss $(preload 1)" NSS_WRAPPER_PASSWD="$D/passwd" \
	    NSS_WRAPPER_GROUP="$D/group" NSS_WRAPPER_DISABLE_DEEPBIND=1 \
	    ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0 \
	    PAM_WRAPPER=1 PAM_WRAPPER_SERVICE_DIR="$D/svc" \
	    PAM_WRAPPER_USE_SYSLOG=1 \
	    FAKETIME="$(faketime_of "$NOW")" DONT_FAKE_MONOTONIC=1 \
	    NO_FAKE_STAT=1 TZ=UTC pamtester "$1" "$3" authenticate <<<"$2"
}

@test "usersfile=\${HOME}/... and ~/...: the user's home from the password database" {
	local spec
	mkdir -p "$D/home"
	for spec in '${HOME}/.users.oath' '~/.users.oath' \
	    '${HOME}/${USER}.oath'; do
		rm -f "$D/home/.users.oath" "$D/home/homer.oath"
		printf 'HOTP\thomer\t-\t%s\n' "$HEX" >"$D/home/.users.oath"
		cp "$D/home/.users.oath" "$D/home/homer.oath"
		chmod 0600 "$D/home/.users.oath" "$D/home/homer.oath"
		printf 'auth required %s usersfile=%s\n' "$OTP_SO" "$spec" \
		    >"$D/svc/home"
		home_run home "$(hcode 1)" homer
		accepted
		home_run home "$(hcode 1)" homer
		refused
	done
	# The last one recorded the code in D/home/homer.oath.
	run cut -f 5,6 "$D/home/homer.oath"
	assert_output "1	$(hcode 1)"
	# A user the database does not know has no home: refused, logged.
	printf 'auth required %s usersfile=${HOME}/.users.oath\n' "$OTP_SO" \
	    >"$D/svc/home"
	home_run home "$(hcode 2)" homer
	accepted
	PAM_RUN_USER=nobody-here pam_run home "$(hcode 3)"
	refused
	assert_output --partial 'no home directory for "nobody-here"'
}

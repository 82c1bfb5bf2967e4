#!/usr/bin/env bats
# hygiene.bats - secret hygiene of the running tools: no core dumps, not
# dumpable (so /proc/PID/* belongs to root and other processes of the
# same user cannot ptrace or read its memory), key buffers locked where
# the system allows, and no secret in any message.  The tools are caught
# alive by making them block: their stdout is a FIFO whose pipe buffer is
# already full, so the final flush waits.  Then the documentation's:
# every long option in --help, the man page and the completions, and every
# man page rendered in full by groff.

bats_require_minimum_version 1.5.0
load common

S_HEX=5ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7
S_B32=L3D6OXWH45PMPZ26Y7TV5R7HL3D6OXWH

setup() {
	D=$BATS_TEST_TMPDIR
	chmod 755 "$D"
	mkfifo "$D/full"
	chmod 666 "$D/full"
	# Hold both ends open and fill the pipe: a writer now blocks.
	exec 8<> "$D/full"
	head -c 65536 /dev/zero >&8
}

teardown() {
	exec 8>&- || true
	others_bin_remove
}

# catch CMD...: start CMD with stdout on the full FIFO; set PID.
catch() {
	"$@" > "$D/full" 2> "$D/err" &
	PID=$!
	# Wait until it is blocked writing (or gone).
	for _ in $(seq 50); do
		grep -q '^State:.*S (sleeping)' "/proc/$PID/status" 2>/dev/null &&
		    grep -q 'pipe_w\|pipe_write' "/proc/$PID/wchan" 2>/dev/null &&
		    return 0
		sleep 0.1
	done
	kill -0 "$PID" 2>/dev/null
}

release() {
	kill "$PID" 2>/dev/null || true
	wait "$PID" 2>/dev/null || true
}

# One command line per tool that holds a secret, each ending in a write.
tools() {
	cat <<EOF
otp-gen $S_HEX
otp-gen --totp -b $S_B32
otp-verify $RFC_HEX 755224
otp-uri -i Ex -A alice $S_B32
otp-keygen
b32 /etc/os-release
EOF
}

@test "every tool: core file size limit 0 and not dumpable" {
	local line fails=0
	while read -r line; do
		# shellcheck disable=SC2086
		catch $line
		if ! grep -q '^Max core file size *0 *0 ' "/proc/$PID/limits"; then
			echo "core dumps allowed: $line"
			grep core "/proc/$PID/limits"
			fails=$((fails + 1))
		fi
		release
	done < <(tools)
	[ "$fails" -eq 0 ]
}

@test "every tool, run as a user other than root: /proc/PID belongs to root (not dumpable)" {
	# Root's own processes are root's anyway: root runs the tools as
	# nobody, from a copy nobody can reach; a plain user runs them itself.
	local uid
	uid=$(id -u)
	as_nobody
	local as=("${AS[@]}") bin=$BIN
	[ "$uid" != 0 ] || uid=65534
	# The control: an ordinary process of that user is dumpable, and its
	# /proc files are the user's.  Without it this test could not fail.
	catch "${as[@]}" sh -c 'echo x; exec cat /dev/zero'
	[ "$(stat -c %u "/proc/$PID/status")" = "$uid" ]
	release
	local line fails=0 owner
	while read -r line; do
		# shellcheck disable=SC2086
		catch "${as[@]}" env PATH="$bin:$PATH" $line ||
		    { echo "did not stay alive: $line"; cat "$D/err"; return 1; }
		owner=$(stat -c %u "/proc/$PID/status")
		if [ "$owner" != 0 ]; then
			echo "dumpable (owner $owner): $line"
			fails=$((fails + 1))
		fi
		release
	done < <(tools)
	[ "$fails" -eq 0 ]
}

@test "key buffers are locked in memory where the system allows it" {
	# ASan intercepts mlock(2) and makes it a no-op.
	[ -z "${OTP_SANITIZE:-}" ] || skip "mlock is a no-op under ASan"
	[ "$(id -u)" = 0 ] || [ "$(ulimit -l)" = unlimited ] ||
	    [ "$(ulimit -l)" -ge 64 ] || skip "RLIMIT_MEMLOCK too small here"
	local line fails=0 kb
	for line in "otp-gen $S_HEX" "otp-verify $RFC_HEX 755224" \
	    "otp-uri $S_B32" "otp-keygen"; do
		# shellcheck disable=SC2086
		catch $line
		kb=$(awk '/^VmLck:/ { print $2 }' "/proc/$PID/status")
		if [ "${kb:-0}" -eq 0 ]; then
			echo "nothing locked: $line"
			fails=$((fails + 1))
		fi
		release
	done
	[ "$fails" -eq 0 ]
}

@test "locking is best effort: with RLIMIT_MEMLOCK 0 the tools still work" {
	command -v prlimit > /dev/null || skip "prlimit(1) is not installed"
	# Without CAP_IPC_LOCK (root drops to nobody) and with a zero
	# limit, mlock(2) fails.
	as_nobody
	local as=("${AS[@]}") bin=$BIN
	run prlimit --memlock=0:0 "${as[@]}" "$bin/otp-gen" "$RFC_HEX"
	assert_success
	assert_output 755224
	run prlimit --memlock=0:0 "${as[@]}" "$bin/otp-keygen" --bytes=16
	assert_success
	[ "${#output}" -eq 26 ]
}

@test "a crash on purpose leaves no core file with the key" {
	# SIGSEGV's default action dumps core unless RLIMIT_CORE is 0; we
	# allow cores in the shell and point them at a file in our directory.
	local pattern
	pattern=$(cat /proc/sys/kernel/core_pattern)
	[[ "$pattern" == /* ]] || [[ "$pattern" == core* ]] ||
	    skip "core_pattern pipes to a helper: $pattern"
	cd "$D"
	ulimit -c unlimited
	catch otp-gen "$S_HEX"
	kill -SEGV "$PID"
	wait "$PID" || true
	# No core anywhere the kernel would put one for us.
	run bash -c "ls $D | grep -i core"
	assert_failure
	if [[ "$pattern" == /* ]]; then
		run bash -c "grep -rlF '$S_HEX' '$(dirname "$pattern")' 2>/dev/null"
		assert_failure
	fi
}

@test "no secret in any message: errors, warnings and --help" {
	local c fails=0
	while read -r c; do
		# shellcheck disable=SC2086
		run --separate-stderr $c
		if [[ "$output$stderr" == *"$S_HEX"* ]] ||
		    [[ "${output,,}$stderr" == *"${S_B32,,}"* ]] ||
		    [[ "$stderr" == *"${S_HEX:0:10}"* ]]; then
			echo "secret shown by: $c"
			fails=$((fails + 1))
		fi
	done <<EOF
otp-gen -d 5 $S_HEX
otp-gen -b $S_B32!
otp-gen ${S_HEX}0
otp-gen --bogus $S_HEX
otp-verify $S_HEX 12345
otp-verify $S_HEX 000000
otp-verify -b ${S_B32}1
otp-verify --diagnose $S_HEX 000000
otp-uri --parse otpauth://totp/A?secret=${S_B32}%
otp-uri --check otpauth://totp/A?secret=${S_B32}&digits=7
otp-uri --parse otpauth://totp/A?secret=${S_B32}&issuer=B&issuer=C
otp-uri --to-migration otpauth://totp/A?secret=${S_B32}&period=45
otp-keygen $S_HEX
otp-keygen --bogus $S_B32
b32 -d --strict --no-padding $S_B32===
EOF
	[ "$fails" -eq 0 ]
}

@test "a key typed at a terminal is asked for and not echoed" {
	local pty=$BATS_TEST_DIRNAME/pty-answer.py
	run "$pty" 'key: ' "$S_HEX" otp-gen -c 0 -
	assert_success
	assert_output --partial "otp-gen: key: "
	assert_output --partial "$(oathtool -c 0 "$S_HEX")"
	refute_output --partial "$S_HEX"
	run "$pty" 'key: ' "$S_B32" otp-verify -b -c 0 - \
	    "$(oathtool -c 0 "$S_HEX")"
	assert_success
	assert_output --partial "otp-verify: key: "
	refute_output --partial "$S_B32"
	run "$pty" 'key: ' "$S_B32" otp-uri -A acct
	assert_success
	assert_output --partial "otp-uri: key: "
	assert_output --partial "otpauth://totp/acct?secret=$S_B32"
	# The URI is the output; only the prompt's line lacks the key.
	[ "$(printf '%s\n' "$output" | grep -c "$S_B32")" -eq 1 ]
	run "$pty" 'key: ' "$S_HEX" otp-gen -c 0
	assert_success
	assert_output --partial "$(oathtool -c 0 "$S_HEX")"
	refute_output --partial "$S_HEX"
	# Without a controlling terminal there is nothing to ask on: the
	# line is read from standard input as before.
	run "$pty" '' "$S_HEX" setsid -w otp-gen -c 0 -
	assert_success
	assert_output --partial "$(oathtool -c 0 "$S_HEX")"
	# An empty answer is no key; a pipe is read as before, no prompt.
	run "$pty" 'key: ' '' otp-gen -
	assert_failure 2
	assert_output --partial "otp-gen: terminal: no key"
	run --separate-stderr bash -c "echo $S_HEX | otp-gen -c 0 -"
	assert_success
	[ "$stderr" = "" ]
}

# table_options TEXT: the long options of a longopts[] table, with the
# CLI_*_LONGOPTS macros of cli.h it names expanded.
table_options() {
	local line m
	while IFS= read -r line; do
		if [[ $line =~ ^[[:space:]]*\{\ \"([a-z0-9-]+)\", ]]; then
			echo "${BASH_REMATCH[1]}"
		elif [[ $line =~ ^[[:space:]]*(CLI_[A-Z]+_LONGOPTS) ]]; then
			m=${BASH_REMATCH[1]}
			table_options "$(sed -n "/^#define $m /,/[^\\]\$/p" \
			    "$BATS_TEST_DIRNAME/../cmd/cli.h" | sed 1d)"
		fi
	done <<<"$1"
}

# The long options of a tool's longopts[] table: the source of truth.
long_options() {
	table_options "$(sed -n '/longopts\[\] = {/,/^};/p' \
	    "$BATS_TEST_DIRNAME/../cmd/$1.c")" | sort -u
}

@test "every tool: --help, the man page and the bash, zsh and fish completions offer every long option" {
	local root=$BATS_TEST_DIRNAME/.. t o n fails=0 help
	for t in otp-gen otp-verify b32 otp-uri otp-keygen; do
		n=0
		help=$("$t" --help)
		for o in $(long_options "$t"); do
			n=$((n + 1))
			grep -qE -- "--$o([^a-z0-9-]|\$)" <<<"$help" ||
			    { echo "$t --help: --$o"; fails=$((fails + 1)); }
			grep -qE -- "Fl -$o([^a-z0-9-]|\$)" "$root/man/$t.1" ||
			    { echo "man/$t.1: --$o"; fails=$((fails + 1)); }
			grep -qE -- "--$o([^a-z0-9-]|\$)" \
			    "$root/completions/bash/$t" ||
			    { echo "bash/$t: --$o"; fails=$((fails + 1)); }
			grep -qE -- "--$o([^a-z0-9-]|\$)" \
			    "$root/completions/zsh/_$t" ||
			    { echo "zsh/_$t: --$o"; fails=$((fails + 1)); }
			grep -qE -- "-l $o( |\$)" "$root/completions/fish/$t.fish" ||
			    { echo "fish/$t.fish: --$o"; fails=$((fails + 1)); }
		done
		# The table was read: a broken sed would pass every check.
		[ "$n" -ge 8 ] || { echo "$t: $n long options"; fails=$((fails + 1)); }
	done
	[ "$fails" -eq 0 ]
}

@test "every man page renders with groff, as Debian's man shows it: no warning, every section" {
	command -v groff > /dev/null || skip "groff is not installed"
	local root=$BATS_TEST_DIRNAME/.. pages
	pages=$(ls "$root"/man/*.[158])
	# shellcheck disable=SC2086
	run sh "$root/tests/man-groff.sh" $pages
	assert_success
	assert_output ""
	# The control: a title starting with a macro name ("An") makes
	# groff drop the rest of the page; the check must see it.
	sed 's/^\.%T HOTP: \\&An /.%T HOTP: An /' "$root/man/otp-gen.1" \
	    > "$D/otp-gen.1"
	run sh "$root/tests/man-groff.sh" "$D/otp-gen.1"
	assert_failure
	assert_output --partial "cannot chop empty macro"
	assert_output --partial 'section "SECURITY CONSIDERATIONS" not rendered'
}

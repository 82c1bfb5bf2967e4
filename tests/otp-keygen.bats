#!/usr/bin/env bats
# otp-keygen: keys, scratch codes, URIs, state files; every option and
# every contradiction; statistics of the random output; files written
# atomically with safe modes; the files accepted by otp-verify and by
# Debian's pam_google_authenticator.so.

load common

bats_require_minimum_version 1.5.0

GA_SO=/lib/x86_64-linux-gnu/security/pam_google_authenticator.so
FAKETIME_SO=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1

setup_file() {
	# A getrandom(2) that fails (RANDOM_SHIM=fail) or that is
	# interrupted once and then returns at most 3 bytes a call
	# (RANDOM_SHIM=short), to drive the library's error and retry paths.
	cat >"$BATS_FILE_TMPDIR/shim.c" <<-'EOF'
	#include <sys/syscall.h>
	#include <errno.h>
	#include <stdlib.h>
	#include <string.h>
	#include <unistd.h>
	ssize_t getrandom(void *buf, size_t n, unsigned flags);
	ssize_t
	getrandom(void *buf, size_t n, unsigned flags)
	{
		static int calls;
		const char *m = getenv("RANDOM_SHIM");

		if (m != NULL && strcmp(m, "fail") == 0) {
			errno = ENOSYS;
			return -1;
		}
		if (calls++ == 0) {
			errno = EINTR;
			return -1;
		}
		return syscall(SYS_getrandom, buf, n < 3 ? n : 3, flags);
	}
	EOF
	cc -shared -fPIC -o "$BATS_FILE_TMPDIR/shim.so" \
	    "$BATS_FILE_TMPDIR/shim.c"
	# drive PROMPT ANSWER... -- CMD...: run CMD on a new pseudo-terminal
	# and answer each PROMPT in turn: "=SHELL" answers SHELL's output,
	# with $KEY the first line the terminal showed; "^D" is one Ctrl-D.
	# Prints the screen (without CRs); exits with CMD's status, 3 when
	# it is still running after 15 s.  (tests/pty-answer.py answers
	# one prompt; --confirm may need several.)
	cat >"$BATS_FILE_TMPDIR/drive.py" <<-'EOF'
	import os, pty, select, subprocess, sys, time
	args = sys.argv[1:]
	sep = args.index("--")
	prompt, answers, cmd = args[0].encode(), args[1:sep], args[sep + 1:]
	pid, fd = pty.fork()
	if pid == 0:
	    os.execvp(cmd[0], cmd)
	shown, seen, deadline = b"", 0, time.monotonic() + 15
	while time.monotonic() < deadline:
	    if select.select([fd], [], [], 0.1)[0]:
	        try:
	            data = os.read(fd, 4096)
	        except OSError:
	            data = b""
	        if not data:
	            break
	        shown += data
	    while shown.count(prompt) > seen and answers:
	        seen += 1
	        a = answers.pop(0)
	        if a.startswith("="):
	            key = shown.decode().splitlines()[0].strip()
	            a = subprocess.run(["sh", "-c", a[1:]], text=True,
	                               env=dict(os.environ, KEY=key),
	                               capture_output=True).stdout.strip()
	        os.write(fd, b"\x04" if a == "^D" else a.encode() + b"\n")
	status = 3
	while time.monotonic() < deadline:
	    done, st = os.waitpid(pid, os.WNOHANG)
	    if done:
	        status = os.waitstatus_to_exitcode(st)
	        break
	    time.sleep(0.05)
	else:
	    os.kill(pid, 9)
	sys.stdout.write(shown.decode(errors="replace").replace("\r", ""))
	sys.exit(status)
	EOF
}

# drive PROMPT ANSWER... -- CMD...: see setup_file.
drive() {
	"$PY" "$BATS_FILE_TMPDIR/drive.py" "$@"
}

PROMPT="code your app shows: "

setup() {
	# A directory of its own: run --separate-stderr keeps files in
	# BATS_TEST_TMPDIR.
	T=$BATS_TEST_TMPDIR/w
	mkdir "$T"
	RO=
}

teardown() {
	[[ -z $RO ]] || { chmod 0755 "$RO"; rm -rf "$RO"; }
	others_bin_remove
}

# b32bytes TEXT: how many bytes unpadded Base32 TEXT decodes to.
b32bytes() {
	"$PY" -c 'import base64, sys
s = sys.argv[1]
print(len(base64.b32decode(s + "=" * (-len(s) % 8))))' "$1"
}

# usage_error ARGS...: otp-keygen ARGS fails with 2, prints nothing on
# stdout and leaves nothing in $T/d.
usage_error() {
	mkdir -p "$T/d"
	run --separate-stderr otp-keygen "$@"
	[[ $status == 2 ]] || fail "otp-keygen $*: status $status, want 2"
	[[ -z $output ]] || fail "otp-keygen $*: printed '$output'"
	[[ -n $stderr ]] || fail "otp-keygen $*: no message"
	[[ -z $(ls -A "$T/d") ]] || fail "otp-keygen $*: left $(ls -A "$T/d")"
}

# mode FILE: the octal permission bits.
mode() { stat -c %a "$1"; }

# only_files DIR NAME...: DIR holds these names and nothing else (no
# temporary file left behind).
only_files() {
	local dir=$1
	shift
	run ls -A "$dir"
	assert_output "$(printf '%s\n' "$@" | sort)"
}

# need_verify_state: skip unless otp-verify is built with --state.
need_verify_state() {
	[[ -x $OTP_BIN/otp-verify ]] ||
	    skip "otp-verify is not built yet (another engineer's part)"
	"$OTP_BIN/otp-verify" --help 2>&1 | grep -q -- '--state' ||
	    skip "otp-verify has no --state yet (another engineer's part)"
}

# ga_pam CODE FILE [FAKETIME]: Debian's pam_google_authenticator.so checks
# CODE against FILE through pam_wrapper and pamtester, for the account
# that runs the test, the owner of FILE (the module takes the user's ids,
# which a plain user can only do for itself).
ga_pam() {
	local code=$1 file=$2 when=${3:-}
	[[ -f $GA_SO ]] || fail "$GA_SO missing (libpam-google-authenticator)"
	mkdir -p "$T/svc"
	printf '%s\n' "auth required $GA_SO secret=$file" \
	    "account required pam_permit.so" >"$T/svc/kg"
	local pre=libpam_wrapper.so
	[[ -z $when ]] || pre+=" $FAKETIME_SO"
	run env LD_PRELOAD="$pre" PAM_WRAPPER=1 \
	    PAM_WRAPPER_SERVICE_DIR="$T/svc" FAKETIME="$when" TZ=UTC \
	    DONT_FAKE_MONOTONIC=1 ASAN_OPTIONS=detect_leaks=0 \
	    pamtester kg "$(id -un)" authenticate <<<"$code"
}

# --- keys ------------------------------------------------------------

@test "the default key is 20 random bytes as unpadded upper-case Base32" {
	run --separate-stderr otp-keygen
	assert_success
	assert_output --regexp '^[A-Z2-7]{32}$'
	[[ -z $stderr ]]
	[[ $(b32bytes "$output") == 20 ]]
}

@test "--bytes=N gives N bytes for every N from 16 to 64, Base32 and hex" {
	local n
	for ((n = 16; n <= 64; n++)); do
		printf '%s ' "$n"
		otp-keygen --bytes="$n" || fail "--bytes=$n failed"
		printf '%s ' "$n"
		otp-keygen --bytes "$n" -x || fail "--bytes $n -x failed"
	done >"$T/keys"
	# One interpreter for all the keys: check each line's alphabet and
	# decoded length.
	run "$PY" -c 'import base64, re, sys
bad = 0
for line in open(sys.argv[1]):
    n, key = line.split()
    n = int(n)
    if re.fullmatch("[0-9a-f]+", key) and len(key) == 2 * n:
        continue
    if re.fullmatch("[A-Z2-7]+", key) and \
       len(base64.b32decode(key + "=" * (-len(key) % 8))) == n:
        continue
    print("bad:", n, key); bad += 1
print(sum(1 for _ in open(sys.argv[1])), "keys")
sys.exit(1 if bad else 0)' "$T/keys"
	assert_success
	assert_output "98 keys"
}

@test "--bytes out of range or not a number is refused" {
	local b
	for b in 15 65 0 -1 1000 16x '' ' 20' 0x10 20.0; do
		usage_error --bytes="$b"
		[[ $stderr == *"--bytes"* ]] || fail "message: $stderr"
	done
	usage_error --bytes=15
	[[ $stderr == *"'15': must be a decimal from 16 to 64"* ]]
}

@test "-x prints hex, -b Base32; the last of them wins" {
	run otp-keygen -x
	assert_output --regexp '^[0-9a-f]{40}$'
	run otp-keygen --hex
	assert_output --regexp '^[0-9a-f]{40}$'
	run otp-keygen -b
	assert_output --regexp '^[A-Z2-7]{32}$'
	run otp-keygen --base32
	assert_output --regexp '^[A-Z2-7]{32}$'
	run otp-keygen -x -b
	assert_output --regexp '^[A-Z2-7]{32}$'
	run otp-keygen -b -x
	assert_output --regexp '^[0-9a-f]{40}$'
}

@test "keys never repeat and their bytes pass a chi-square test" {
	local i
	for ((i = 0; i < 150; i++)); do
		otp-keygen -x --bytes=64
	done >"$T/keys"
	[[ $(wc -l <"$T/keys") == 150 ]]
	[[ -z $(sort "$T/keys" | uniq -d) ]] || fail "a key repeated"
	# 9600 bytes over 256 values, df 255: outside (141.9, 414.6) has
	# probability below 1e-9 for a uniform source.
	run "$PY" -c 'import sys
data = bytes.fromhex(open(sys.argv[1]).read().replace("\n", ""))
n = [0] * 256
for b in data: n[b] += 1
e = len(data) / 256
x = sum((c - e) ** 2 / e for c in n)
print("%.1f" % x)
sys.exit(0 if 141.9 < x < 414.6 else 1)' "$T/keys"
	assert_success
}

@test "a failing getrandom(2) is an error, with no fallback and no file" {
	mkdir "$T/d"
	run --separate-stderr env LD_PRELOAD="$BATS_FILE_TMPDIR/shim.so" \
	    RANDOM_SHIM=fail ASAN_OPTIONS=verify_asan_link_order=0 \
	    otp-keygen --state "$T/d/state"
	assert_failure 2
	assert_output ""
	[[ $stderr == *"cannot get random bytes"* ]] || fail "$stderr"
	[[ -z $(ls -A "$T/d") ]]
}

@test "interrupted and short getrandom(2) reads are retried to the full key" {
	run --separate-stderr env LD_PRELOAD="$BATS_FILE_TMPDIR/shim.so" \
	    RANDOM_SHIM=short ASAN_OPTIONS=verify_asan_link_order=0 \
	    otp-keygen --bytes=64 -x --scratch=10
	assert_success
	assert_output --regexp '^[0-9a-f]{128}$'
	[[ $(wc -l <<<"$stderr") == 10 ]]
}

# --- scratch codes ---------------------------------------------------

@test "--scratch=N prints N distinct 8-digit codes on stderr only" {
	local n
	for n in 1 5 10 100; do
		run --separate-stderr otp-keygen --scratch="$n"
		assert_success
		assert_output --regexp '^[A-Z2-7]{32}$'
		[[ $(grep -cE '^[1-9][0-9]{7}$' <<<"$stderr") == "$n" ]] ||
		    fail "--scratch=$n: $stderr"
		[[ $(wc -l <<<"$stderr") == "$n" ]]
		[[ -z $(sort <<<"$stderr" | uniq -d) ]] || fail "repeat"
	done
	run --separate-stderr otp-keygen --scratch=0
	assert_success
	[[ -z $stderr ]]
}

@test "--scratch out of range is refused" {
	local n
	for n in 101 -1 x '' 1e3; do
		usage_error --scratch="$n"
	done
	usage_error --state "$T/d/s" --scratch=11
	[[ $stderr == *"at most 10 with --state"* ]]
}

@test "scratch codes: no repeat within a set, digits spread evenly" {
	local i
	for ((i = 0; i < 60; i++)); do
		otp-keygen --scratch=100 2>"$T/set" >/dev/null
		[[ -z $(sort "$T/set" | uniq -d) ]] ||
		    fail "a repeated code in set $i"
		cat "$T/set"
	done >"$T/codes"
	[[ $(grep -cE '^[1-9][0-9]{7}$' "$T/codes") == 6000 ]]
	# Per position: first digit 1..9 (df 8, bound 58.31), others 0..9
	# (df 9, bound 60.67); each bound is exceeded with p < 1e-9.
	run "$PY" -c 'import sys
codes = open(sys.argv[1]).read().split()
bad = []
for pos in range(8):
    digits = range(1, 10) if pos == 0 else range(10)
    n = {d: 0 for d in digits}
    for c in codes: n[int(c[pos])] += 1
    e = len(codes) / len(n)
    x = sum((v - e) ** 2 / e for v in n.values())
    print(pos, "%.1f" % x)
    if x >= (58.31 if pos == 0 else 60.67): bad.append(pos)
sys.exit(1 if bad else 0)' "$T/codes"
	assert_success
}

@test "--scratch-out writes the codes to a new file of mode 0600" {
	run --separate-stderr otp-keygen --scratch=4 --scratch-out "$T/codes"
	assert_success
	assert_output --regexp '^[A-Z2-7]{32}$'
	[[ -z $stderr ]] || fail "stderr: $stderr"
	[[ $(mode "$T/codes") == 600 ]]
	[[ $(grep -cE '^[1-9][0-9]{7}$' "$T/codes") == 4 ]]
	[[ $(wc -l <"$T/codes") == 4 ]]
	only_files "$T" codes
}

@test "--scratch-out keeps an existing file unless -f, which replaces it" {
	echo keep >"$T/codes"
	run --separate-stderr otp-keygen --scratch=2 --scratch-out "$T/codes"
	assert_failure 2
	assert_output ""
	[[ $stderr == *"exists"* ]] || fail "$stderr"
	[[ $(cat "$T/codes") == keep ]]
	ln -s "$T/codes" "$T/link"
	run otp-keygen --scratch=2 --scratch-out "$T/link"
	assert_failure 2
	[[ $(cat "$T/codes") == keep ]]
	run otp-keygen -f --scratch=2 --scratch-out "$T/codes"
	assert_success
	[[ $(wc -l <"$T/codes") == 2 ]]
	[[ $(mode "$T/codes") == 600 ]]
	# -f replaces a symbolic link itself, never the file it points to.
	run otp-keygen --force --scratch=3 --scratch-out "$T/link"
	assert_success
	[[ ! -L $T/link ]]
	[[ $(wc -l <"$T/link") == 3 ]]
	[[ $(wc -l <"$T/codes") == 2 ]]
	only_files "$T" codes link
}

# refused TARGET TYPE ARGS...: otp-keygen ARGS --scratch-out TARGET and
# --state TARGET, with and without -f, fail with exit 2, name TYPE and do
# not point at -f; TARGET is still what it was.
refused() {
	local target=$1 type=$2 before f opt
	shift 2
	before=$(stat -c '%F %t:%T %i' "$target")
	for f in "" -f; do
		for opt in "--scratch=2 --scratch-out" --state; do
			# shellcheck disable=SC2086
			run --separate-stderr timeout 10 otp-keygen $f "$@" \
			    $opt "$target"
			[[ $status == 2 ]] ||
			    fail "$f $opt $target: status $status, want 2"
			[[ -z $output ]] || fail "$f $opt $target: printed key"
			[[ $stderr == *"${opt#* }: $target: is $type, not a regular file, and is never replaced" ]] ||
			    fail "$f $opt $target: $stderr"
			[[ $stderr != *"use -f"* ]] || fail "offers -f: $stderr"
			[[ $(stat -c '%F %t:%T %i' "$target") == "$before" ]] ||
			    fail "$target changed"
		done
	done
}

@test "a FIFO, a directory or a socket is never replaced, even with -f" {
	mkfifo "$T/fifo"
	mkdir "$T/dir"
	"$PY" -c 'import socket, sys
socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$T/sock"
	refused "$T/fifo" "a FIFO"
	refused "$T/dir" "a directory"
	refused "$T/dir/" "a directory"
	refused "$T/sock" "a socket"
	[[ -p $T/fifo && -d $T/dir && -S $T/sock ]]
	[[ -z $(ls -A "$T/dir") ]]
	only_files "$T" dir fifo sock
}

@test "a device node is refused: a copy of /dev/null as root, then /dev/null itself" {
	if [[ $(id -u) == 0 ]]; then
		mknod "$T/null" c 1 3 2>/dev/null ||
		    skip "mknod is not permitted here"
		# Root could replace /dev/null: first a copy that may come
		# to harm ...
		refused "$T/null" "a character device"
		[[ -c $T/null ]]
		only_files "$T" null
	fi
	# ... and only once that is refused, /dev/null by its name (which a
	# plain user cannot replace, nor make a device node).
	refused /dev/null "a character device"
	[[ -c /dev/null && $(stat -c %t:%T /dev/null) == 1:3 ]]
}

@test "-f replaces a symbolic link to /dev/null, never /dev/null" {
	local dev
	dev=$(stat -c '%t:%T %i' /dev/null)
	ln -s /dev/null "$T/codes"
	ln -s /dev/null "$T/state"
	# a link is an existing file: kept without -f, and -f is offered
	run --separate-stderr otp-keygen --scratch=2 --scratch-out "$T/codes"
	assert_failure 2
	[[ $stderr == *"$T/codes: file exists (use -f to replace it)" ]]
	[[ -L $T/codes ]]
	run --separate-stderr otp-keygen -f --scratch=2 --scratch-out "$T/codes"
	assert_success
	run --separate-stderr otp-keygen -f --state "$T/state"
	assert_success
	[[ -f $T/codes && ! -L $T/codes && $(wc -l <"$T/codes") == 2 ]]
	[[ -f $T/state && ! -L $T/state && $(mode "$T/state") == 400 ]]
	[[ -c /dev/null && $(stat -c '%t:%T %i' /dev/null) == "$dev" ]]
	only_files "$T" codes state
}

@test "--scratch-out=- puts the codes on stdout, after the key" {
	run --separate-stderr otp-keygen --scratch=3 --scratch-out=-
	assert_success
	[[ -z $stderr ]] || fail "stderr: $stderr"
	[[ ${#lines[@]} == 4 ]] || fail "$output"
	[[ ${lines[0]} =~ ^[A-Z2-7]{32}$ ]]
	[[ $(printf '%s\n' "${lines[@]:1}" | grep -cE '^[1-9][0-9]{7}$') == 3 ]]
	# with --state: the key and the codes of the file, in its order
	run --separate-stderr otp-keygen --state "$T/state" --scratch=4 \
	    --scratch-out -
	assert_success
	[[ -z $stderr ]]
	[[ $output == "$(grep -v '^"' "$T/state")" ]] || fail "$output"
	[[ ${#lines[@]} == 5 ]]
	run --separate-stderr otp-keygen --print-state "$T/state" \
	    --scratch-out=-
	assert_success
	[[ $output == "$(grep -v '^"' "$T/state")" ]]
	# the codes were not delivered: the new state file goes again
	run bash -c 'otp-keygen --state "$1" --scratch-out=- >/dev/full' - \
	    "$T/lost"
	assert_failure 2
	[[ ! -e $T/lost ]]
	only_files "$T" state
	# nothing to force, nothing to write
	usage_error -f --scratch=2 --scratch-out=-
	usage_error --scratch-out=-
}

@test "--scratch-out in a missing directory fails and leaves nothing" {
	usage_error --scratch=2 --scratch-out "$T/d/missing/codes"
	[[ $stderr == *"$T/d/missing/codes"* ]]
}

# --- URIs ------------------------------------------------------------

@test "--uri builds a TOTP URI that pyotp reads back" {
	run otp-keygen --uri -i 'ACME Co' -A alice@example.com
	assert_success
	assert_output --regexp '^otpauth://totp/ACME%20Co:alice%40example.com\?secret=[A-Z2-7]{32}&issuer=ACME%20Co$'
	run "$PY" -c 'import pyotp, sys
t = pyotp.parse_uri(sys.argv[1])
print(type(t).__name__, t.issuer, t.name, t.digits, t.interval, len(t.byte_secret()))' "$output"
	assert_output "TOTP ACME Co alice@example.com 6 30 20"
}

@test "--uri takes --totp=ALG, -a, -d, --period, and -A/-i long forms" {
	run otp-keygen --uri --totp=SHA256 -d 8 --period=60 --account=bob \
	    --issuer=Example --bytes=32
	assert_success
	run "$PY" -c 'import pyotp, sys
t = pyotp.parse_uri(sys.argv[1])
print(type(t).__name__, t.issuer, t.name, t.digits, t.interval, t.digest().name, len(t.byte_secret()))' "$output"
	assert_output "TOTP Example bob 8 60 sha256 32"
	run otp-keygen --uri -a SHA512 --digits=7 -A carol
	assert_output --partial "algorithm=SHA512"
	assert_output --partial "digits=7"
}

@test "--uri --user=NAME without -A: the account is NAME@HOST, as google-authenticator's" {
	local host
	host=$(uname -n)
	run -0 otp-keygen --uri --user=alice -i Example
	assert_output --regexp "^otpauth://totp/Example:alice%40${host//./\\.}\\?secret=[A-Z2-7]{32}&issuer=Example\$"
	run -0 "$PY" -c 'import pyotp, sys
print(pyotp.parse_uri(sys.argv[1]).name)' "$output"
	assert_output "alice@$host"
	# -A still names it
	run -0 otp-keygen --uri --user=alice -A bob
	assert_output --regexp '^otpauth://totp/bob\?secret='
	# with --state and --print-state too
	run -0 otp-keygen --uri --user=carol --state "$T/state" --scratch=0
	assert_output --partial "otpauth://totp/carol%40$host?"
	run -0 otp-keygen --uri --user=carol --print-state "$T/state"
	assert_output --partial "otpauth://totp/carol%40$host?"
	# no account at all, --user without --uri, a label too long: errors
	usage_error --uri
	[[ $stderr == *"-A NAME, or --user=NAME for NAME@HOST"* ]] || fail "$stderr"
	usage_error --user=alice
	run --separate-stderr otp-keygen --uri --user="$(printf 'a%.0s' {1..2000})"
	assert_failure 2
	[[ $stderr == *"give -A"* ]] || fail "$stderr"
	[[ -z $output ]]
}

@test "-p/--period is a duration, as in otp-uri" {
	local p
	for p in 90 90s 1m30s; do
		run otp-keygen --uri -A a -p "$p"
		assert_success
		assert_output --partial "&period=90"
		# otp-uri reads the same value the same way.
		run otp-uri -A a -p "$p" "$RFC_B32"
		assert_output --partial "&period=90"
	done
	run otp-keygen --uri -A a -p 4294967295
	assert_success
	for p in 0 1x 4294967296 -30 ""; do
		run --separate-stderr otp-keygen --uri -A a -p "$p"
		assert_failure 2
		[ "$stderr" = "otp-keygen: --period: '$p': must be 1 to 4294967295 seconds (30, 30s, 1m)" ]
		run --separate-stderr otp-uri -A a -p "$p" "$RFC_B32"
		[ "$stderr" = "otp-uri: --period: '$p': must be 1 to 4294967295 seconds (30, 30s, 1m)" ]
	done
}

@test "--hotp with --totp is an error naming both, in either order" {
	local o
	for o in "--hotp --totp" "--totp --hotp" "--totp=SHA1 --hotp"; do
		# shellcheck disable=SC2086
		run --separate-stderr otp-keygen --uri -A a $o
		assert_failure 2
		[ "${stderr%%$'\n'*}" = "otp-keygen: --hotp and --totp exclude each other" ]
		# shellcheck disable=SC2086
		run --separate-stderr otp-uri -A a $o "$RFC_B32"
		assert_failure 2
		[ "${stderr%%$'\n'*}" = "otp-uri: --hotp and --totp exclude each other" ]
	done
	# The same type twice is no conflict.
	run otp-keygen --uri -A a --totp --totp=SHA256
	assert_success
}

@test "--uri --hotp carries the counter; its codes match otp-gen and pyotp" {
	run otp-keygen --uri --hotp -c 42 -A dave
	assert_success
	assert_output --regexp '^otpauth://hotp/dave\?secret=[A-Z2-7]{32}&counter=42$'
	local uri=$output
	run otp-keygen --uri --hotp --counter=7 -A dave
	assert_output --partial "&counter=7"
	# pyotp's at(n) counts from the URI's counter: at(0) is counter 42.
	want=$("$PY" -c 'import pyotp, sys
h = pyotp.parse_uri(sys.argv[1])
assert h.initial_count == 42
print(h.at(0))' "$uri")
	[[ $want =~ ^[0-9]{6}$ ]]
	if [[ -x $OTP_BIN/otp-gen ]]; then
		run otp-gen "$uri"
		assert_output "$want"
	fi
}

@test "URI options without --uri, and URI contradictions, are refused" {
	usage_error -i Example
	usage_error -A alice
	usage_error -a SHA256
	usage_error -d 8
	usage_error --period=60
	usage_error --hotp -c 3
	usage_error --totp
	usage_error --hotp
	usage_error --uri
	[[ $stderr == *"-A NAME"* ]]
	usage_error --uri -A a -x
	usage_error --uri -A a --hotp --period=30
	usage_error --uri -A a -c 3
	usage_error --uri -A a --totp --hotp
	usage_error --uri -A a --hotp --totp
	usage_error --uri -A a --totp=MD5
	usage_error --uri -A a -a SHA3
	usage_error --uri -A a -d 5
	usage_error --uri -A a -d 11
	usage_error --uri -A a --period=0
	usage_error --uri -A a --hotp -c -1
	usage_error --uri -A "$(printf 'a%.0s' {1..600})"
}

# --- state files -----------------------------------------------------

# state_skeleton FILE: FILE with the secret as KEY and codes as CODE.
state_skeleton() {
	sed -E '1s/.*/KEY/; s/^[1-9][0-9]{7}$/CODE/' "$1"
}

@test "--state writes key, TOTP_AUTH and 5 codes, mode 0400; key on stdout" {
	run --separate-stderr otp-keygen --state "$T/state"
	assert_success
	assert_output --regexp '^[A-Z2-7]{32}$'
	[[ $(mode "$T/state") == 400 ]]
	[[ $(head -n 1 "$T/state") == "$output" ]]
	[[ $(sed -n 2p "$T/state") == '" TOTP_AUTH' ]]
	[[ $(tail -n +3 "$T/state") == "$stderr" ]] || fail "codes differ"
	[[ $(grep -cE '^[1-9][0-9]{7}$' <<<"$stderr") == 5 ]]
	[[ $(wc -l <"$T/state") == 7 ]]
	only_files "$T" state
}

@test "--state lays out options as google-authenticator(1) does" {
	# The same settings through the original command and through ours
	# must give files that differ only in the secret and the codes.
	command -v google-authenticator >/dev/null ||
	    skip "google-authenticator(1) is not installed"
	google-authenticator -t -d -f -C -q -s "$T/ga1" -e 5 -w 17 -r 3 -R 30 \
	    -S 20 >/dev/null
	otp-keygen --bytes=16 --state "$T/ours1" --totp --disallow-reuse \
	    --window-size 17 --rate-limit=3/30 --step-size=20 2>/dev/null
	diff -u <(state_skeleton "$T/ga1") <(state_skeleton "$T/ours1")
	[[ $(head -c 26 "$T/ga1" | wc -c) == $(head -n 1 "$T/ours1" | tr -d '\n' | wc -c) ]]

	google-authenticator -c -f -C -q -s "$T/ga2" -e 2 -w 3 -u >/dev/null
	otp-keygen --bytes=16 --state "$T/ours2" --hotp --window-size=3 \
	    --scratch=2 2>/dev/null
	diff -u <(state_skeleton "$T/ga2") <(state_skeleton "$T/ours2")

	google-authenticator -t -D -f -C -q -s "$T/ga3" -e 0 -w 21 -r 10 \
	    -R 600 -S 60 >/dev/null
	otp-keygen --state "$T/ours3" --window-size=21 --rate-limit=10/600 \
	    --step-size=60 --scratch=0 2>/dev/null
	diff -u <(state_skeleton "$T/ga3") <(state_skeleton "$T/ours3")
	[[ $(mode "$T/ga3") == "$(mode "$T/ours3")" ]]
}

@test "--state option lines, one option at a time" {
	otp-keygen --state "$T/a" --hotp --scratch=0 >/dev/null
	run state_skeleton "$T/a"
	assert_output "$(printf '%s\n' KEY '" HOTP_COUNTER 1')"
	otp-keygen --state "$T/b" --window-size=1 --scratch=1 2>/dev/null
	run state_skeleton "$T/b"
	assert_output "$(printf '%s\n' KEY '" WINDOW_SIZE 1' '" TOTP_AUTH' CODE)"
	otp-keygen --state "$T/c" --step-size=1 --scratch=0 >/dev/null
	run state_skeleton "$T/c"
	assert_output "$(printf '%s\n' KEY '" STEP_SIZE 1' '" TOTP_AUTH')"
	otp-keygen --state "$T/d" --rate-limit=1/15 --scratch=0 >/dev/null
	run state_skeleton "$T/d"
	assert_output "$(printf '%s\n' KEY '" RATE_LIMIT 1 15' '" TOTP_AUTH')"
	otp-keygen --state "$T/e" --disallow-reuse --totp --scratch=0 >/dev/null
	run state_skeleton "$T/e"
	assert_output "$(printf '%s\n' KEY '" DISALLOW_REUSE' '" TOTP_AUTH')"
	otp-keygen --state "$T/f" --scratch=10 2>"$T/f.codes" >/dev/null
	[[ $(grep -c CODE <(state_skeleton "$T/f")) == 10 ]]
	[[ $(sort "$T/f.codes" | uniq | wc -l) == 10 ]]
	otp-keygen --state "$T/g" --bytes=64 -x --scratch=0 >"$T/g.key"
	[[ $(wc -c <"$T/g.key") == 129 ]]
	# The file always holds Base32, whatever stdout shows.
	[[ $(b32bytes "$(head -n 1 "$T/g")") == 64 ]]
}

@test "--state ranges as google-authenticator(1) enforces them" {
	local v
	for v in 0 22 -1 x ''; do
		usage_error --state "$T/d/s" --window-size="$v"
	done
	for v in 0 61 x; do
		usage_error --state "$T/d/s" --step-size="$v"
	done
	for v in 0/30 11/30 3/14 3/601 3 3/ /30 3/30/1 a/b 3:30 ' 3/30' \
	    3/30x "$(printf '1%.0s' {1..80})/30"; do
		usage_error --state "$T/d/s" --rate-limit="$v"
		[[ $stderr == *"--rate-limit"* ]] || fail "$v: $stderr"
	done
}

@test "contradictions with --state are refused and write nothing" {
	usage_error --state "$T/d/s" --hotp --disallow-reuse
	[[ $stderr == *"TOTP only"* ]]
	usage_error --state "$T/d/s" --hotp --step-size=30
	usage_error --state "$T/d/s" --disallow-reuse --hotp
	usage_error --state "$T/d/s" --totp --hotp
	usage_error --state "$T/d/s" -a SHA256 --uri -A a
	usage_error --state "$T/d/s" --totp=SHA512
	usage_error --state "$T/d/s" -d 8 --uri -A a
	usage_error --state "$T/d/s" --hotp -c 5 --uri -A a
	usage_error --state "$T/d/s" --period=60 --uri -A a
	usage_error --state "$T/d/s" --print-state "$T/d/s"
	usage_error --state "$T/d/s" --scratch-out "$T/d/s"
	usage_error --window-size=3
	usage_error --step-size=30
	usage_error --rate-limit=3/30
	usage_error --disallow-reuse
	usage_error -f
	usage_error --force
	usage_error --state "$T/d/s" stray-operand
	[[ $stderr != *stray-operand* ]] || fail "operand echoed: $stderr"
}

@test "--state refuses to replace an existing file without -f" {
	otp-keygen --state "$T/state" 2>/dev/null >"$T/key1"
	cp -p "$T/state" "$T/before"
	run --separate-stderr otp-keygen --state "$T/state"
	assert_failure 2
	assert_output ""
	[[ $stderr == *"$T/state: file exists (use -f to replace it)"* ]] ||
	    fail "$stderr"
	cmp "$T/state" "$T/before"
	# Nothing secret in the message: neither the old key nor the new.
	[[ $stderr != *"$(cat "$T/key1")"* ]]
	only_files "$T" before key1 state
}

@test "--state -f replaces the file atomically, by rename" {
	otp-keygen --state "$T/state" 2>/dev/null >"$T/key1"
	local ino1
	ino1=$(stat -c %i "$T/state")
	run --separate-stderr otp-keygen -f --state "$T/state" --hotp
	assert_success
	[[ $output != "$(cat "$T/key1")" ]]
	[[ $(head -n 1 "$T/state") == "$output" ]]
	grep -qx '" HOTP_COUNTER 1' "$T/state"
	[[ $(mode "$T/state") == 400 ]]
	[[ $(stat -c %i "$T/state") != "$ino1" ]] || fail "rewritten in place"
	only_files "$T" key1 state
}

@test "--state never follows a symbolic link" {
	echo precious >"$T/target"
	ln -s "$T/target" "$T/state"
	run otp-keygen --state "$T/state"
	assert_failure 2
	[[ $(cat "$T/target") == precious ]]
	run otp-keygen -f --state "$T/state"
	[[ $(cat "$T/target") == precious ]]
}

@test "--state in a missing directory fails and leaves nothing" {
	usage_error --state "$T/d/missing/state"
	[[ $stderr == *"$T/d/missing/state"* ]] || fail "$stderr"
}

@test "--state in an unwritable directory fails and leaves nothing" {
	# Root writes anywhere: root runs the tool as nobody in a directory
	# it cannot write (bats' own temporary directories are closed to
	# nobody); a plain user runs it itself in a directory of mode 0555.
	local as=() bin=$OTP_BIN
	RO=$(mktemp -d /tmp/otp-keygen-ro.XXXXXX)
	if [[ $(id -u) == 0 ]]; then
		as=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
		chmod 0755 "$RO"
		others_bin "${as[@]}"
		bin=$OTHERS_BIN
	else
		chmod 0555 "$RO"
	fi
	run --separate-stderr "${as[@]}" "$bin/otp-keygen" --state "$RO/state"
	assert_failure 2
	assert_output ""
	[[ $stderr == *"$RO/state"* ]] || fail "$stderr"
	[[ -z $(ls -A "$RO") ]] || fail "left behind: $(ls -A "$RO")"
	run --separate-stderr "${as[@]}" "$bin/otp-keygen" \
	    --scratch=2 --scratch-out "$RO/codes"
	assert_failure 2
	[[ -z $(ls -A "$RO") ]]
}

@test "--state with --scratch-out: codes in the file, none on stderr" {
	run --separate-stderr otp-keygen --state "$T/state" \
	    --scratch-out "$T/codes" --scratch=3
	assert_success
	[[ -z $stderr ]]
	[[ $(mode "$T/codes") == 600 ]]
	[[ $(tail -n +3 "$T/state") == "$(cat "$T/codes")" ]]
}

@test "--state is not written when --scratch-out cannot be" {
	echo keep >"$T/codes"
	run --separate-stderr otp-keygen --state "$T/state" \
	    --scratch-out "$T/codes"
	assert_failure 2
	assert_output ""
	[[ ! -e $T/state ]]
	[[ $(cat "$T/codes") == keep ]]
	run otp-keygen --state "$T/state" --scratch-out "$T/none/codes"
	assert_failure 2
	[[ ! -e $T/state ]]
	only_files "$T" codes
}

@test "no scratch file is left when --state cannot be written" {
	otp-keygen --state "$T/state" 2>/dev/null >/dev/null
	run otp-keygen --state "$T/state" --scratch-out "$T/codes"
	assert_failure 2
	only_files "$T" state
}

@test "the provisioning pipeline: the key alone goes down the pipe" {
	otp-keygen --state "$T/state" --uri -A alice -i host 2>/dev/null \
	    >"$T/uri"
	grep -qE '^otpauth://totp/host:alice\?secret=[A-Z2-7]{32}&issuer=host$' \
	    "$T/uri"
	otp-keygen --state "$T/state2" --step-size=60 --uri -A a 2>/dev/null |
	    grep -q '&period=60$'
	otp-keygen --state "$T/state3" --hotp --uri -A a 2>/dev/null |
	    grep -q '&counter=1$'
	local key
	key=$(otp-keygen --state "$T/state4" 2>/dev/null)
	[[ $key =~ ^[A-Z2-7]{32}$ ]]
	[[ $(head -n 1 "$T/state4") == "$key" ]]
}

@test "a write error on stdout is exit 2" {
	run bash -c 'otp-keygen >/dev/full'
	assert_failure 2
	assert_output --partial "write error"
	run bash -c 'otp-keygen --uri -A a >/dev/full'
	assert_failure 2
}

# --- --print-state ---------------------------------------------------

@test "--print-state shows the key and the codes of a file" {
	otp-keygen --state "$T/state" --scratch=4 2>"$T/codes" >"$T/key"
	run --separate-stderr otp-keygen --print-state "$T/state"
	assert_success
	assert_output "$(cat "$T/key")"
	[[ $stderr == "$(cat "$T/codes")" ]]
	run --separate-stderr otp-keygen --print-state "$T/state" -x
	assert_output --regexp '^[0-9a-f]{40}$'
	run --separate-stderr otp-keygen --print-state="$T/state" --uri \
	    -A alice -i host
	assert_output "otpauth://totp/host:alice?secret=$(cat "$T/key")&issuer=host"
	run --separate-stderr otp-keygen --print-state "$T/state" \
	    --scratch-out "$T/out"
	[[ -z $stderr ]]
	cmp "$T/out" "$T/codes"
	[[ $(mode "$T/out") == 600 ]]
}

@test "--print-state of a google-authenticator(1) file, HOTP and step" {
	command -v google-authenticator >/dev/null ||
	    skip "google-authenticator(1) is not installed"
	google-authenticator -c -f -C -q -s "$T/ga" -e 3 -w 3 -u >/dev/null
	run --separate-stderr otp-keygen --print-state "$T/ga" --uri -A a
	assert_success
	assert_output "otpauth://hotp/a?secret=$(head -n 1 "$T/ga")&counter=1"
	[[ $stderr == "$(tail -n 3 "$T/ga")" ]]
	google-authenticator -t -D -f -C -q -s "$T/ga2" -e 0 -w 3 -u -S 45 \
	    >/dev/null
	run otp-keygen --print-state "$T/ga2" --uri -A a
	assert_output --partial "&period=45"
}

@test "--print-state refuses unsafe, missing and malformed files" {
	otp-keygen --state "$T/state" 2>/dev/null >/dev/null
	chmod 0644 "$T/state"
	run --separate-stderr otp-keygen --print-state "$T/state"
	assert_failure 2
	assert_output ""
	run --separate-stderr otp-keygen --print-state "$T/missing"
	assert_failure 2
	[[ $stderr == *"$T/missing"* ]]
	mkdir "$T/dir"
	run otp-keygen --print-state "$T/dir"
	assert_failure 2
	printf 'not a secret!\n' >"$T/bad"
	chmod 0400 "$T/bad"
	run otp-keygen --print-state "$T/bad"
	assert_failure 2
	usage_error --print-state "$T/state" --bytes=20
	usage_error --print-state "$T/state" --scratch=2
	usage_error --print-state "$T/state" --hotp
	usage_error --print-state "$T/state" --window-size=3
}

@test "--print-state refuses a file another account owns" {
	# Only root makes a file another account owns and still reads it.
	[[ $(id -u) == 0 ]] || skip "needs root: a state file of another account's that the tool can read"
	otp-keygen --state "$T/state" 2>/dev/null >/dev/null
	run --separate-stderr otp-keygen --print-state "$T/state"
	assert_success
	chown nobody "$T/state"
	run --separate-stderr otp-keygen --print-state "$T/state"
	assert_failure 2
	assert_output ""
	[[ $stderr == *"$T/state"* ]] || fail "$stderr"
}

@test "--print-state without TOTP_AUTH or HOTP_COUNTER: no URI" {
	printf '%s\n' JBSWY3DPEHPK3PXP 12345678 >"$T/s"
	chmod 0400 "$T/s"
	run --separate-stderr otp-keygen --print-state "$T/s"
	assert_success
	assert_output JBSWY3DPEHPK3PXP
	[[ $stderr == 12345678 ]]
	run otp-keygen --print-state "$T/s" --uri -A a
	assert_failure 2
}

# --- the files at work -----------------------------------------------

@test "otp-verify --state accepts a file otp-keygen wrote" {
	need_verify_state
	local key code
	key=$(otp-keygen --state "$T/state" --scratch=2 2>"$T/codes")
	code=$(oathtool --totp -b "$key")
	run otp-verify --state "$T/state" "$code"
	assert_success
	run otp-verify --state "$T/state" "$(head -n 1 "$T/codes")"
	assert_success
	run otp-verify --state "$T/state" "$(head -n 1 "$T/codes")"
	assert_failure 1
}

@test "pam_google_authenticator accepts a TOTP code from otp-gen" {
	local key code
	key=$(otp-keygen --state "$T/state" 2>/dev/null)
	[[ -x $OTP_BIN/otp-gen ]] || skip "otp-gen is not built yet"
	code=$(otp-gen --totp -b -N @300000 "$key")
	[[ $code == "$(oathtool --totp -b -N @300000 "$key")" ]]
	ga_pam 000000 "$T/state" "1970-01-04 11:20:00"
	[[ $status != 0 ]] || fail "a wrong code was accepted"
	ga_pam "$code" "$T/state" "1970-01-04 11:20:00"
	assert_success
	assert_output --partial "successfully authenticated"
}

@test "pam_google_authenticator accepts an HOTP code from otp-gen" {
	local key
	key=$(otp-keygen --state "$T/state" --hotp 2>/dev/null)
	[[ -x $OTP_BIN/otp-gen ]] || skip "otp-gen is not built yet"
	ga_pam "$(otp-gen -b -c 1 "$key")" "$T/state"
	assert_success
	grep -qx '" HOTP_COUNTER 2' "$T/state"
}

@test "pam_google_authenticator accepts a scratch code once" {
	otp-keygen --state "$T/state" --scratch=3 2>"$T/codes" >/dev/null
	local code
	code=$(sed -n 2p "$T/codes")
	ga_pam "$code" "$T/state"
	assert_success
	assert_output --partial "successfully authenticated"
	! grep -qx "$code" "$T/state"
	ga_pam "$code" "$T/state"
	[[ $status != 0 ]] || fail "a used scratch code was accepted again"
	# --print-state now shows the two codes left.
	run --separate-stderr otp-keygen --print-state "$T/state"
	assert_success
	[[ $stderr == "$(grep -vx "$code" "$T/codes")" ]]
}

# --- at a terminal: the heading, --confirm ---------------------------

@test "at a terminal the scratch codes come under a heading; else bare" {
	run drive "no prompt" -- otp-keygen --scratch=3
	assert_success
	[[ ${lines[0]} == "Your emergency scratch codes are:" ]] ||
	    fail "$output"
	[[ $(printf '%s\n' "${lines[@]:1:3}" | grep -cE '^[1-9][0-9]{7}$') == 3 ]]
	[[ ${lines[4]} =~ ^[A-Z2-7]{32}$ ]]
	[[ ${#lines[@]} == 5 ]]
	# --print-state too
	otp-keygen --state "$T/state" --scratch=2 2>/dev/null >/dev/null
	run drive "no prompt" -- otp-keygen --print-state "$T/state"
	[[ ${lines[0]} == "Your emergency scratch codes are:" ]]
	# standard error a file or a pipe, even with stdout a terminal:
	# the bare lines, as scripts read them
	run drive "no prompt" -- sh -c 'otp-keygen --scratch=3 2>"$1"' - \
	    "$T/err"
	assert_success
	[[ $(grep -cxE '[1-9][0-9]{7}' "$T/err") == 3 ]]
	[[ $(wc -l <"$T/err") == 3 ]]
	run drive "no prompt" -- sh -c 'otp-keygen --scratch=2 2>&1 | cat'
	[[ $output != *Your* ]] || fail "$output"
}

@test "--confirm: a right code after wrong ones writes the files" {
	run drive "$PROMPT" 123456 12345x '=otp-gen --totp -b "$KEY"' -- \
	    otp-keygen --confirm --state "$T/state" --scratch=3 \
	    --scratch-out "$T/codes"
	assert_success
	[[ ${lines[0]} =~ ^[A-Z2-7]{32}$ ]]
	assert_line --index 1 "Enter the 6-digit code your app shows: 123456"
	assert_line --index 2 "That code is not right; try again."
	assert_line --index 4 "That is not a code; try again."
	[[ $(head -n 1 "$T/state") == "${lines[0]}" ]]
	[[ $(mode "$T/state") == 400 && $(wc -l <"$T/codes") == 3 ]]
	[[ $(tail -n 3 "$T/state") == "$(cat "$T/codes")" ]]
	# an empty line asks again without counting; codes then on stderr
	run drive "$PROMPT" "" "" 1 2 '=otp-gen --totp -b "$KEY"' -- \
	    otp-keygen --confirm --scratch=2
	assert_success
	[[ $(grep -c "$PROMPT" <<<"$output") == 5 ]]
	assert_line --index 8 "Your emergency scratch codes are:"
	only_files "$T" codes state
}

@test "--confirm: 3 wrong codes, or Ctrl-D, exit 1 and write nothing" {
	run drive "$PROMPT" 111111 222222 333333 '=otp-gen --totp -b "$KEY"' \
	    -- otp-keygen --confirm --state "$T/state" --scratch=3 \
	    --scratch-out "$T/codes"
	assert_failure 1
	assert_line "otp-keygen: --confirm: 3 wrong codes; nothing written"
	[[ $(grep -c "$PROMPT" <<<"$output") == 3 ]]
	[[ $output != *[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]* ]] ||
	    fail "scratch codes shown: $output"
	# the end of input, as tests/pty-answer.py types it
	run "$BATS_TEST_DIRNAME/pty-answer.py" "$PROMPT" $'\x04' \
	    otp-keygen --confirm --state "$T/state" --scratch-out "$T/codes"
	assert_failure 1
	assert_output --partial \
	    "otp-keygen: --confirm: no code given; nothing written"
	only_files "$T"
	# no terminal to ask on: an error
	run --separate-stderr setsid -w otp-keygen --confirm --state "$T/state"
	assert_failure 2
	[[ $stderr == "otp-keygen: --confirm: /dev/tty: "* ]] || fail "$stderr"
	only_files "$T"
	usage_error --confirm --print-state "$T/state"
}

@test "--confirm checks the key's own parameters and window" {
	# TOTP: one step either way of now, not three
	run drive "$PROMPT" '=otp-gen --totp -b -N "now - 90 s" "$KEY"' \
	    '=otp-gen --totp -b -N "now - 30 s" "$KEY"' -- \
	    otp-keygen --confirm --state "$T/s1"
	assert_success
	assert_line --index 2 "That code is not right; try again."
	run drive "$PROMPT" '=otp-gen --totp -b -N "now + 30 s" "$KEY"' ^D -- \
	    otp-keygen --confirm --state "$T/s2" --step-size=60
	assert_failure 1
	assert_line --index 2 "That code is not right; try again."
	run drive "$PROMPT" '=otp-gen --totp -b -s 60 "$KEY"' \
	    -- otp-keygen --confirm --state "$T/s2" --step-size=60
	assert_success
	# HOTP: the file starts at counter 1; the next one is taken too
	run drive "$PROMPT" '=otp-gen -b -c 0 "$KEY"' '=otp-gen -b -c 3 "$KEY"' \
	    '=otp-gen -b -c 2 "$KEY"' -- otp-keygen --confirm --hotp \
	    --state "$T/s3"
	assert_success
	[[ $(grep -c "not right" <<<"$output") == 2 ]]
	# a URI's algorithm, digits and period; the code must have 8 digits
	run drive "$PROMPT" '=otp-gen -a SHA1 "$KEY"' '=otp-gen -d 6 "$KEY"' \
	    '=otp-gen "$KEY"' -- otp-keygen --confirm --uri -A a \
	    --totp=SHA256 -d 8 -p 60
	assert_success
	assert_line --index 1 --partial "Enter the 8-digit code"
	assert_line --index 2 "That code is not right; try again."
	assert_line --index 4 "That is not a code; try again."
	only_files "$T" s1 s2 s3
}

@test "--confirm closes the pipe after the key, so otp-uri can show it" {
	# the reader sees the end of the key while the prompt waits
	export T
	run drive "$PROMPT" \
	    '=for i in 1 2 3 4 5 6 7 8 9 10; do [ -e "$T/K.eof" ] && break;
	      sleep 0.3; done; [ -e "$T/K.eof" ] &&
	      otp-gen --totp -b "$(cat "$T/K")"' \
	    -- sh -c 'cd "$1" && otp-keygen --confirm --state state |
		{ cat >K; touch K.eof; }' - "$T"
	assert_success
	[[ $(head -n 1 "$T/state") == "$(cat "$T/K")" ]]
	# with --scratch-out=-, the codes follow the key once confirmed
	run --separate-stderr drive "$PROMPT" \
	    '=otp-gen --totp -b "$(head -n 1 "$T/out")"' -- \
	    sh -c 'otp-keygen --confirm --scratch=2 --scratch-out=- >"$1"' - \
	    "$T/out"
	assert_success
	[[ $(wc -l <"$T/out") == 3 ]]
	[[ $(head -n 1 "$T/out") =~ ^[A-Z2-7]{32}$ ]]
}

@test "--confirm through a pipe asks after the reader is done: the prompt under the QR code" {
	export T
	# a reader slower than the prompt would be: it shows its line first
	run drive "$PROMPT" '=otp-gen --totp -b "$(cat "$T/K")"' -- \
	    sh -c 'cd "$1" && otp-keygen --confirm --state state |
		{ cat >K; sleep 1; echo "the reader is done"; }' - "$T"
	assert_success
	[[ ${lines[0]} == "the reader is done" ]] || fail "$output"
	[[ ${lines[1]} == "Enter the 6-digit code your app shows: "* ]] ||
	    fail "$output"
	# otp-uri --qr as the README has it: every line of the code first
	run drive "$PROMPT" '=otp-gen --totp -b "$(cat "$T/K")"' -- \
	    sh -c 'cd "$1" && otp-keygen --confirm --state state2 | tee K |
		otp-uri -i Example -A alice --qr' - "$T"
	assert_success
	local i qr=-1 ask=-1
	for i in "${!lines[@]}"; do
		[[ ${lines[i]} != *[▀▄█]* ]] || qr=$i
		[[ ${lines[i]} != *"$PROMPT"* ]] || ask=$i
	done
	((qr > 10 && ask == qr + 1)) || fail "QR to line $qr, prompt at $ask: $output"
	# a reader that waits for another writer: asked all the same
	run drive "$PROMPT" '=otp-gen --totp -b "$(head -n 1 "$T/K3")"' -- \
	    sh -c 'cd "$1" && { otp-keygen --confirm --state state3; echo end; } |
		cat >K3' - "$T"
	assert_success
	[[ $(tail -n 1 "$T/K3") == end ]]
}

# --- the usual -------------------------------------------------------

@test "-h and --help print the usage on stdout; -V the version" {
	run --separate-stderr otp-keygen -h
	assert_success
	assert_line --index 0 --partial "usage: otp-keygen"
	[[ -z $stderr ]]
	local opt
	for opt in --bytes --scratch --scratch-out --uri --issuer --account \
	    --totp --hotp --algorithm --digits --period --counter --state \
	    --window-size --step-size --rate-limit --disallow-reuse --force \
	    --confirm --print-state --hex --base32 --help --version; do
		assert_output --partial -- "$opt"
	done
	run otp-keygen --help
	assert_success
	run otp-keygen -V
	assert_output "otp-keygen (otp-utils) $(otp-keygen --version | awk '{print $3}')"
	assert_output --regexp '^otp-keygen \(otp-utils\) [0-9]'
}

@test "unknown options and operands are usage errors" {
	usage_error --nope
	usage_error -q
	usage_error --state
	usage_error SECRETKEY
	[[ $stderr != *SECRETKEY* ]]
}

# --- the manual ------------------------------------------------------

@test "the EXAMPLES of otp-keygen(1) run as written" {
	local man=$BATS_TEST_DIRNAME/../man/otp-keygen.1 cmd n=0
	[[ -x $OTP_BIN/otp-uri ]] || skip "otp-uri is not built yet"
	# Each "$ command" line of the EXAMPLES section, with its "\e"
	# continuations joined, run in an empty home directory.
	sed -n '/^\.Sh EXAMPLES/,/^\.Sh /p' "$man" |
	    sed -e 's/^\.Dl //' -e 's/\\e$/\\/' |
	    awk '/^\$ / { cmd = substr($0, 3) } !/^\$ / && cmd != "" &&
		/^    / { cmd = cmd "\n" $0 }
		cmd != "" && !/\\$/ { print cmd; print "\036"; cmd = "" }' \
	    >"$T/examples"
	while IFS= read -r -d $'\036' cmd; do
		cmd=${cmd#$'\n'}
		[[ -n $cmd ]] || continue
		n=$((n + 1))
		if [[ $cmd == *--confirm* ]]; then
			# it asks on the terminal; Ctrl-D, and nothing is written
			mv "$T/.google_authenticator" "$T/ga.saved"
			run drive "$PROMPT" ^D -- env HOME="$T" USER=alice \
			    bash -c "cd '$T' && $cmd"
			[[ $output == *"$PROMPT"* ]] || fail "no prompt: $output"
			[[ $output == *"no code given; nothing written"* ]] ||
			    fail "example ($status): $cmd: $output"
			[[ ! -e $T/.google_authenticator ]]
			mv "$T/ga.saved" "$T/.google_authenticator"
			continue
		fi
		run env HOME="$T" USER=alice bash -c "cd '$T' && $cmd"
		[[ $status == 0 ]] || fail "example failed ($status): $cmd: $output"
		[[ -n $output ]] || fail "example printed nothing: $cmd"
	done <"$T/examples"
	[[ $n == 9 ]] || fail "found $n examples, want 9"
	[[ $(mode "$T/.google_authenticator") == 400 ]]
	[[ $(wc -l <"$T/codes.txt") == 10 ]]
}

@test "otp-keygen | otp-uri gives the URI that --print-state --uri gives" {
	[[ -x $OTP_BIN/otp-uri ]] || skip "otp-uri is not built yet"
	otp-keygen --state "$T/state" 2>/dev/null |
	    otp-uri -i host -A alice >"$T/piped"
	run --separate-stderr otp-keygen --print-state "$T/state" --uri \
	    -i host -A alice
	assert_success
	assert_output "$(cat "$T/piped")"
	otp-keygen --state "$T/s2" --hotp 2>/dev/null |
	    otp-uri --hotp -c 1 -A bob >"$T/piped2"
	run --separate-stderr otp-keygen --print-state "$T/s2" --uri -A bob
	assert_output "$(cat "$T/piped2")"
}

# Completions: completions.bats (values, files, @FILE in every shell) and
# hygiene.bats (every long option).


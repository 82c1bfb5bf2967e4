#!/usr/bin/env bats
# radius-python.bats - examples/freeradius/mods-config/python3/otp_radius.py,
# the Python of the example's otp_python, run outside FreeRADIUS: a
# stand-in for rlm_python3's radiusd module (its constants, radlog into a
# list, the module's config section) and the build's otputils, on state
# files and a users file.  tests/e2e/radius-python.bats runs it in real
# servers on PostgreSQL.

bats_require_minimum_version 1.5.0

setup() {
	load common
	PYDIR=$OTP_LIBDIR/../python
	[[ -f $PYDIR/otputils/__init__.py ]] ||
	    skip "the Python module is not built"
	# Under make sanitize the library is sanitized, the interpreter not.
	ASAN_SO=
	[[ ${OTP_SANITIZE:-0} != 1 ]] ||
	    ASAN_SO="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
	D=$BATS_TEST_TMPDIR
	EX=$BATS_TEST_DIRNAME/../examples/freeradius/mods-config/python3
	KEY=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP
	mkdir -p "$D/stub" "$D/st"
	# rlm_python3's constants (FreeRADIUS 3.2's modules.h and log.h).
	cat >"$D/stub/radiusd.py" <<'EOS'
RLM_MODULE_REJECT, RLM_MODULE_FAIL, RLM_MODULE_OK = 0, 1, 2
RLM_MODULE_HANDLED, RLM_MODULE_INVALID, RLM_MODULE_USERLOCK = 3, 4, 5
RLM_MODULE_NOTFOUND, RLM_MODULE_NOOP, RLM_MODULE_UPDATED = 6, 7, 8
L_AUTH, L_INFO, L_ERR = 2, 3, 4
config = {}
logged = []


def radlog(level, msg):
    logged.append((level, msg))
EOS
}

# drive STORE OPTIONS SCRIPT: run the Python SCRIPT after loading
# otp_radius with the config section {store = STORE, options = OPTIONS}
# and calling instantiate (its result in `inst`); `req(user, password)`
# builds a request as rlm_python3 passes it.
drive() {
	env ${ASAN_SO:+LD_PRELOAD="$ASAN_SO"} \
	    ${ASAN_SO:+ASAN_OPTIONS=detect_leaks=0} \
	    LD_LIBRARY_PATH="$OTP_LIBDIR" \
	    PYTHONPATH="$D/stub:$EX:$PYDIR" PYTHONDONTWRITEBYTECODE=1 \
	    "$PY" -c "
import radiusd
radiusd.config = {'store': '''$1''', 'options': '''$2'''}
import otp_radius
inst = otp_radius.instantiate(())

def req(user, password):
    return (('User-Name', user), ('User-Password', password),
            ('NAS-IP-Address', '127.0.0.1'))

$3"
}

code() {
	"$OTP_BIN/otp-gen" --totp -b -N "@$(date +%s)" "$KEY"
}

# state NAME: a TOTP state file for NAME in D/st (no reuse, a scratch
# code 12345678).
state() {
	printf '%s\n' "$KEY" '" TOTP_AUTH' '" DISALLOW_REUSE' 12345678 \
	    >"$D/st/$1"
	chmod 0600 "$D/st/$1"
}

@test "authorize hands a request with a User-Password to otp_python; one without, to no one" {
	state alice
	run drive "ga:$D/st/alice" "" '
assert inst == radiusd.RLM_MODULE_OK
print(otp_radius.authorize(req("alice", "123456")))
print(otp_radius.authorize((("User-Name", "alice"),)))'
	assert_success
	assert_line --index 0 "(8, (), (('Auth-Type', ':=', 'otp_python'),))"
	assert_line --index 1 7
}

@test "a users file: accepted once, then refused; the reason logged with the user, never the code" {
	local c
	c=$(code)
	printf 'HOTP/T30\talice\t-\t%s\n' \
	    "$("$OTP_BIN/b32" -d <<<"$KEY" | od -An -tx1 | tr -d ' \n')" \
	    >"$D/users"
	chmod 0600 "$D/users"
	run drive "oath:$D/users" "window=3" "
print(otp_radius.authenticate(req('alice', '$c')))
print(otp_radius.authenticate(req('alice', '$c')))
print(otp_radius.authenticate(req('bob', '$c')))
print(otp_radius.authenticate(req('alice', '12')))
for level, msg in radiusd.logged:
    print(level, msg)"
	assert_success
	assert_line --index 0 "(2, (('Reply-Message', 'OTP accepted'),), ())"
	assert_line --index 1 "(0, (('Reply-Message', 'OTP not accepted'),), ())"
	assert_line --index 2 "(0, (('Reply-Message', 'OTP not accepted'),), ())"
	assert_line --index 3 "(0, (('Reply-Message', 'OTP not accepted'),), ())"
	assert_line '2 otp_python: accepted a code for "alice"'
	assert_line --partial '2 otp_python: code not accepted for "bob": '
	assert_line '2 otp_python: code not accepted for "alice": code already used'
	refute_output --partial "$c"
}

@test "a state file per user (\${USER}): a plain login name only; a scratch code once" {
	state alice
	run drive "ga:$D/st/\${USER}" "" "
print(otp_radius.authenticate(req('alice', '12345678'))[0])
print(otp_radius.authenticate(req('alice', '12345678'))[0])
print(otp_radius.authenticate(req('../st/alice', '$(code)'))[0])
print(otp_radius.authenticate(req('nobody', '$(code)'))[0])
print(radiusd.logged[2][1])"
	assert_success
	assert_line --index 0 2
	assert_line --index 1 0
	assert_line --index 2 0
	assert_line --index 3 0
	assert_line --index 4 "otp_python: login of a user named '../st/alice' refused: not a plain login name"
}

@test "a store that cannot answer: fail, 'OTP check failed', the reason logged" {
	state alice
	chmod 0644 "$D/st/alice"
	run drive "ga:$D/st/alice" "" "
print(otp_radius.authenticate(req('alice', '$(code)')))
print(radiusd.logged[-1])"
	assert_success
	assert_line --index 0 "(1, (('Reply-Message', 'OTP check failed'),), ())"
	assert_line --index 1 --partial "(4, 'otp_python: login of \"alice\" refused: "
	# pam_otp.so's option, from the config section: the mode allowed.
	run drive "ga:$D/st/alice" "allowed_perm=0644" "
print(otp_radius.authenticate(req('alice', '12345678'))[0])"
	assert_line 2
}

@test "a wrong URL or option stops the server at instantiate; no store at all too" {
	run drive "nope:/x" "" "print(inst)"
	assert_output --partial 1
	run drive "ga:$D/st/alice" "window=many" "print(inst)"
	assert_line 1
	run drive "" "" "print(inst)"
	assert_line 1
	run drive "ga:$D/st/alice" "" "print(inst)"
	assert_line 2
}

@test "a process forked from the server's opens the store again, its own" {
	state alice
	run drive "ga:$D/st/alice" "" "
import os
first = otp_radius._open(None)
pid = os.fork()
if pid == 0:
    mine = otp_radius._open(None)
    ok = mine is not first and otp_radius._store_pid == os.getpid()
    ok = ok and otp_radius.authenticate(req('alice', '12345678'))[0] == 2
    os._exit(0 if ok else 1)
_, st = os.waitpid(pid, 0)
print(os.waitstatus_to_exitcode(st), otp_radius._open(None) is first)
print(otp_radius.authenticate(req('alice', '12345678'))[0])"
	assert_success
	assert_line --index 0 "0 True"
	assert_line --index 1 0
}

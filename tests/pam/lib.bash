# shellcheck disable=SC2154  # status and output come from bats' run
# lib.bash - the PAM test rig, loaded by tests/pam.bats and
# tests/pam-differential.bats after `load common`.
#
# Every scenario runs pamtester under pam_wrapper (a service directory in
# the test's temporary directory, no root needed) with libfaketime for a
# frozen clock and tests/pam/syslog-shim.c for the module's log lines, and
# runs against both modules:
#
#	ga	Debian's pam_google_authenticator.so, the reference
#	otp	$OTP_LIBDIR/pam_otp.so, ours
#
# Under `make sanitize` (OTP_SANITIZE=1) pam_otp.so is built with ASan and
# pamtester is not, so libasan goes first in LD_PRELOAD.

GA_SO=/lib/x86_64-linux-gnu/security/pam_google_authenticator.so
PWRAP_SO=libpam_wrapper.so
PWRAP_MODDIR=/usr/lib/x86_64-linux-gnu/pam_wrapper
FAKETIME_SO=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1
PAM_USER=$(id -un)

# Reference secrets.  2SH3V3GDW7ZNMGYE gives 050548 at Unix time 300000
# (step 10000) in TOTP mode.
KEY=2SH3V3GDW7ZNMGYE
T0=300000

# pam_setup_file: once per file, from setup_file(): check the tools and
# build the shim and the driver.
pam_setup_file() {
	local so
	command -v pamtester >/dev/null || fail "pamtester is not installed"
	[[ -f $GA_SO ]] || fail "$GA_SO missing (libpam-google-authenticator)"
	[[ -f $FAKETIME_SO ]] || fail "$FAKETIME_SO missing (libfaketime)"
	[[ -f $PWRAP_MODDIR/pam_set_items.so ]] ||
	    fail "pam_wrapper modules missing (libpam-wrapper)"
	cc -shared -fPIC -O1 -o "$BATS_FILE_TMPDIR/syslog-shim.so" \
	    "$BATS_TEST_DIRNAME/pam/syslog-shim.c" || fail "cannot build shim"
	cc -O1 -o "$BATS_FILE_TMPDIR/pam-drive" \
	    "$BATS_TEST_DIRNAME/pam/pam-drive.c" -lpam ||
	    fail "cannot build pam-drive"
	so=
	if [[ ${OTP_SANITIZE:-0} == 1 ]]; then
		so=$(gcc -print-file-name=libasan.so)
		[[ -f $so ]] || fail "OTP_SANITIZE=1 but libasan.so not found"
	fi
	printf '%s\n' "$so" >"$BATS_FILE_TMPDIR/asan"
}

# pam_setup: per test.  D is the test's directory: D/svc holds the
# service files, D/ga and D/otp one state directory per module.
pam_setup() {
	: "${OTP_LIBDIR:?OTP_LIBDIR must name the directory of pam_otp.so}"
	OTP_SO=$OTP_LIBDIR/pam_otp.so
	[[ -f $OTP_SO ]] || fail "$OTP_SO not built"
	D=$BATS_TEST_TMPDIR
	mkdir -p "$D/svc" "$D/ga" "$D/otp"
	NOW=$T0
	ASAN_SO=$(cat "$BATS_FILE_TMPDIR/asan")
	SHIM_SO=$BATS_FILE_TMPDIR/syslog-shim.so
	PAM_DRIVE=$BATS_FILE_TMPDIR/pam-drive
}

# modpath ga|otp: the module's absolute path.
modpath() {
	case $1 in
	ga) printf '%s\n' "$GA_SO" ;;
	otp) printf '%s\n' "$OTP_SO" ;;
	*) fail "modpath: unknown module '$1'" ;;
	esac
}

# service NAME LINE...: write the service file NAME, one line each.
# In the lines, @MOD@ is replaced by the module path given in $MOD and
# @DIR@ by that module's state directory.
service() {
	local name=$1 line
	shift
	: >"$D/svc/$name"
	for line in "$@"; do
		line=${line//@MOD@/$(modpath "$MOD")}
		line=${line//@DIR@/$D/$MOD}
		printf '%s\n' "$line" >>"$D/svc/$name"
	done
}

# otp_service ARGS...: the common case, service "t" with one auth line for
# module $MOD and its state file @DIR@/state, then pam_permit for account.
otp_service() {
	service t "auth required @MOD@ secret=@DIR@/state $*" \
	    "account required pam_permit.so"
}

# state_file PATH LINE...: a state file of these lines, mode 0400.
state_file() {
	local path=$1
	shift
	rm -f "$path"
	printf '%s\n' "$@" >"$path"
	chmod 0400 "$path"
}

# both_states LINE...: the same state file for both modules.
both_states() {
	state_file "$D/ga/state" "$@"
	state_file "$D/otp/state" "$@"
}

# totp T [STEP [KEY]]: the TOTP code at Unix time T.  Codes come from
# otp-gen when it is built, cross-checked against oathtool.
totp() {
	local t=$1 step=${2:-30} key=${3:-$KEY} ref ours
	ref=$(oathtool --totp -b -s "${step}s" -N "@$t" "$key") ||
	    fail "oathtool failed"
	if [[ -x $OTP_BIN/otp-gen ]]; then
		ours=$("$OTP_BIN/otp-gen" --totp -b -s "$step" -N "@$t" "$key") ||
		    fail "otp-gen failed"
		[[ $ours == "$ref" ]] ||
		    fail "otp-gen says $ours, oathtool $ref at $t"
	fi
	printf '%s\n' "$ref"
}

# hotp C [KEY]: the HOTP code for counter C.
hotp() {
	local c=$1 key=${2:-$KEY} ref ours
	ref=$(oathtool --hotp -b -c "$c" "$key") || fail "oathtool failed"
	if [[ -x $OTP_BIN/otp-gen ]]; then
		ours=$("$OTP_BIN/otp-gen" --hotp -b -c "$c" "$key") ||
		    fail "otp-gen failed"
		[[ $ours == "$ref" ]] || fail "otp-gen says $ours, oathtool $ref"
	fi
	printf '%s\n' "$ref"
}

# faketime_of T: libfaketime's absolute, frozen form of Unix time T.
# (Runs also set NO_FAKE_STAT=1: libfaketime would otherwise fake the
# file times that fstat and fstatat return differently, and the state
# file's changed-underneath check would see a change that is not there.)
faketime_of() {
	TZ=UTC date -u -d "@$1" '+%Y-%m-%d %H:%M:%S'
}

# preload WITH_PWRAP: the LD_PRELOAD list.  Under ASan, libfaketime must
# come before libasan (the other way round the process hangs at start-up
# in libfaketime's constructor), so ASan's link-order check is turned off
# (ASAN_OPTIONS in pam_run): libfaketime interposes no allocator.
preload() {
	local l=
	[[ -z $ASAN_SO ]] || l="$FAKETIME_SO $ASAN_SO "
	[[ $1 == 0 ]] || l+="$PWRAP_SO "
	[[ -n $ASAN_SO ]] || l+="$FAKETIME_SO "
	printf '%s\n' "$l$SHIM_SO"
}

# pam_run SERVICE INPUT [PAMTESTER-OPTION...]: pamtester authenticate at
# time $NOW with INPUT on stdin; sets status and output (stdout, stderr,
# the prompts and SYSLOG lines) as bats' run does.  Extra variables for
# pam_set_items.so go in PAM_ENV (an array of NAME=VALUE), libraries to
# preload first in PAM_PRELOAD (nobody_db sets both); PAM_OP names
# another pamtester operation (setcred); a run is killed after
# PAM_TIMEOUT seconds (60) so that a hang fails instead of blocking.
pam_run() {
	local svc=$1 input=$2
	shift 2
	run timeout "${PAM_TIMEOUT:-60}" env "${PAM_ENV[@]}" \
	    LD_PRELOAD="${PAM_PRELOAD:+$PAM_PRELOAD }$(preload 1)" \
	    ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0 \
	    PAM_WRAPPER=1 PAM_WRAPPER_SERVICE_DIR="$D/svc" \
	    PAM_WRAPPER_USE_SYSLOG=1 \
	    FAKETIME="$(faketime_of "$NOW")" DONT_FAKE_MONOTONIC=1 NO_FAKE_STAT=1 TZ=UTC \
	    pamtester "$@" "$svc" "${PAM_RUN_USER:-$PAM_USER}" \
	    "${PAM_OP:-authenticate}" <<<"$input"
}

# nobody_db: for logins of nobody (PAM_RUN_USER=nobody), whose home is
# /nonexistent.  Root's modules take nobody's ids to read its files; a
# plain user cannot switch ids (pam_google_authenticator.so then refuses
# with "Failed to change user id"), so for a plain user a password
# database of libnss_wrapper's gives nobody this account's uid and gid,
# with the same name, home and shell.  What the tests look at, the path a
# module builds from the account's entry and what it asks, is the same.
# Sets PAM_ENV and PAM_PRELOAD for pam_run.
nobody_db() {
	local nss=/usr/lib/x86_64-linux-gnu/libnss_wrapper.so
	((EUID != 0)) || return 0
	[[ -f $nss ]] || fail "$nss missing (libnss-wrapper)"
	{
		getent passwd root "$(id -un)"
		printf 'nobody:x:%s:%s:nobody:/nonexistent:/usr/sbin/nologin\n' \
		    "$(id -u)" "$(id -g)"
	} >"$D/nss-passwd"
	getent group root "$(id -gn)" >"$D/nss-group"
	PAM_ENV+=(NSS_WRAPPER_PASSWD="$D/nss-passwd"
	    NSS_WRAPPER_GROUP="$D/nss-group" NSS_WRAPPER_DISABLE_DEEPBIND=1)
	PAM_PRELOAD=$nss
}

# pam_threads_build: $D/pam-threads (tests/pam/pam-threads.c), logins at
# once in one process through libpam, built for the test when missing.
pam_threads_build() {
	[[ -x $D/pam-threads ]] || cc -O1 -pthread -o "$D/pam-threads" \
	    "$BATS_TEST_DIRNAME/pam/pam-threads.c" -lpam ||
	    fail "cannot build pam-threads"
}

# drive_run SERVICE INPUT [RHOST]: the same through tests/pam/pam-drive
# (pam_start_confdir, no pam_wrapper).
drive_run() {
	local svc=$1 input=$2
	shift 2
	run timeout "${PAM_TIMEOUT:-60}" env LD_PRELOAD="$(preload 0)" \
	    ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0 \
	    FAKETIME="$(faketime_of "$NOW")" DONT_FAKE_MONOTONIC=1 NO_FAKE_STAT=1 TZ=UTC \
	    "$PAM_DRIVE" "$D/svc" "$svc" "${PAM_RUN_USER:-$PAM_USER}" "$@" \
	    <<<"$input"
}

# no_sanitizer_errors: the run printed no ASan/UBSan report.
no_sanitizer_errors() {
	refute_output --partial "ERROR: AddressSanitizer"
	refute_output --partial "runtime error:"
}

# accepted / refused: pamtester's verdict; refused is PAM_AUTH_ERR.
accepted() {
	no_sanitizer_errors
	[[ $status == 0 ]] || fail "expected success, got $status: $output"
	assert_output --partial "successfully authenticated"
}
refused() {
	no_sanitizer_errors
	[[ $status == 1 ]] || fail "expected failure, got $status: $output"
	assert_output --partial "pamtester: Authentication failure"
}
# ignored: the module returned PAM_IGNORE; with no other auth module in
# the stack, libpam turns that into PAM_PERM_DENIED.
ignored() {
	no_sanitizer_errors
	[[ $status == 1 ]] || fail "expected failure, got $status: $output"
	assert_output --partial "pamtester: Permission denied"
}

# prompted [TEXT]: the module asked for a code (with this prompt text).
prompted() {
	assert_output --partial "${1:-Verification code: }"
}
not_prompted() {
	refute_output --partial "${1:-Verification code: }"
}

# no_secret_logged: no log line holds the Base32 secret or a scratch code.
no_secret_logged() {
	local s
	for s in "$KEY" "$@"; do
		if grep '^SYSLOG' <<<"$output" | grep -qi -- "$s"; then
			fail "secret material '$s' in the log: $output"
		fi
	done
}

# no_temp_left DIR: no temporary file beside the state file.
no_temp_left() {
	local f
	for f in "$1"/*~*; do
		[[ ! -e $f ]] || fail "temporary file left behind: $f"
	done
}

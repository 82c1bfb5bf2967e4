# common.bash - loaded by every bats suite: `load common`.
# Puts the tools under test first on PATH and loads bats-support/assert.

bats_load_library bats-support
bats_load_library bats-assert

: "${OTP_BIN:?OTP_BIN must name the directory of the built tools (make check sets it)}"
PATH="$OTP_BIN:$PATH"
export PATH
VECTORS="$BATS_TEST_DIRNAME/vectors"
export VECTORS
# Debian's interpreter, which has python3-pyotp.
PY=/usr/bin/python3
export PY

# RFC 4226's key, in hex and in Base32.
RFC_HEX=3132333435363738393031323334353637383930
RFC_B32=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ
export RFC_HEX RFC_B32

# others_bin CMD...: for a test that runs the tools as another account
# through CMD (setpriv --reuid=65534 ...).  OTP_BIN may be closed to that
# account: a checkout in root's home, or under any 0700 directory such as
# mktemp -d makes, is.  So the tools are copied into a new directory under
# /tmp that every account can enter, named by OTHERS_BIN; the test skips,
# saying why, when the account cannot run them even there.  The suite's
# teardown calls others_bin_remove.
others_bin() {
	OTHERS_BIN=$(mktemp -d /tmp/otp-bin.XXXXXX) || return 1
	chmod 0755 "$OTHERS_BIN"
	cp "$OTP_BIN"/* "$OTHERS_BIN"/ || return 1
	chmod 0755 "$OTHERS_BIN"/*
	"$@" "$OTHERS_BIN/otp-gen" --version >/dev/null 2>&1 ||
	    skip "the account cannot run the tools even in $OTHERS_BIN"
}

# as_nobody: for a test that must run the tools as an account without
# root's powers.  As root: AS is setpriv to nobody and BIN a copy of the
# tools nobody can reach (others_bin); a plain user is such an account
# already: AS is empty and BIN is OTP_BIN.  Skips without setpriv(1).
# shellcheck disable=SC2034  # AS and BIN are the caller's
as_nobody() {
	AS=()
	BIN=$OTP_BIN
	[ "$(id -u)" = 0 ] || return 0
	command -v setpriv >/dev/null || skip "setpriv(1) is not installed"
	AS=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	others_bin "${AS[@]}"
	BIN=$OTHERS_BIN
}

others_bin_remove() {
	[[ -z ${OTHERS_BIN:-} ]] || rm -rf "$OTHERS_BIN"
	OTHERS_BIN=
}

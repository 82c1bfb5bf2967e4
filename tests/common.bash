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

#!/usr/bin/env bash
# bench-python.sh - the Python module otputils against python3-pyotp
# (tests/bench/py-bench.py): codes, verify with a window, both, and a
# store login from Python against an otp-verify --state process.  The
# ratio is how many times faster otputils is.
set -u
# shellcheck disable=SC1091
. "$(dirname "$0")/lib.sh"

build=$(cd "$OTP_BIN/.." && pwd)
if [ ! -f "$build/python/otputils/__init__.py" ]; then
	echo "bench-python: no Python module built: skipped" >&2
	exit 0
fi
bench_header "the Python module otputils against pyotp (/usr/bin/python3)"
out=$(TZ=UTC PYTHONPATH=$build/python LD_LIBRARY_PATH=$build/lib \
    /usr/bin/python3 "$(dirname "$0")/py-bench.py") || {
	echo "bench: FAILED: py-bench.py" >&2
	exit 1
}
while IFS=$'\t' read -r name ours theirs; do
	row "$name" "$ours" "$theirs"
done <<< "$out"

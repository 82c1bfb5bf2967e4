#!/bin/sh
# run.sh - `make bench`: every tests/bench/bench-*.sh in turn.
set -e
: "${OTP_BIN:?OTP_BIN must name the built tools}"
PATH="$OTP_BIN:$PATH"
export PATH OTP_BIN
dir=$(dirname "$0")
for b in "$dir"/bench-*.sh; do
	[ -f "$b" ] || continue
	bash "$b"
done

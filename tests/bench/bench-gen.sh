#!/usr/bin/env bash
# bench-gen.sh - otp-gen against oathtool: large windows and one code on
# one CPU each, then many processes and many keys.  Sourced helpers print
# medians and ratios (>1: otp-gen is faster).
set -eu
# shellcheck disable=SC1091
. "$(dirname "$0")/lib.sh"
KEY=3132333435363738393031323334353637383930
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One CPU each: the speed per core, the goal; one process uses one CPU.
bench_header "otp-gen vs oathtool, one CPU each (taskset -c $BENCH_CPU)"
bench_core "HOTP SHA1, -w 1000000" \
    "otp-gen -w 1000000 $KEY" "oathtool -w 1000000 $KEY"
for alg in SHA1 SHA256 SHA512; do
	bench_core "TOTP $alg, -w 1000000" \
	    "otp-gen --totp=$alg -w 1000000 $KEY" \
	    "oathtool --totp=$alg -w 1000000 $KEY"
done
# One code, one process: start-up is all there is to it.
BENCH_RUNS=${BENCH_RUNS_ONE:-101} bench_alt "one --totp code, one process" \
    "otp-gen --totp $KEY" "oathtool --totp $KEY"

bench_header "otp-gen vs oathtool: start-up, many keys"
# One process: 200 runs in a shell loop, so start-up cost dominates.
bench "200 single --totp processes" \
    "for i in \$(seq 200); do otp-gen --totp $KEY || exit; done >/dev/null" \
    "for i in \$(seq 200); do oathtool --totp $KEY || exit; done >/dev/null"

# 10,000 random keys: one otp-gen reading them all vs one oathtool each.
head -c 200000 /dev/urandom | od -An -v -tx1 | tr -d ' \n' |
    fold -w 40 | head -n 10000 > "$tmp/keys"
BENCH_RUNS=${BENCH_RUNS_SLOW:-3} bench "10,000 keys: one otp-gen vs 10,000 oathtool runs" \
    "otp-gen < $tmp/keys >/dev/null" \
    "while read -r k; do oathtool \$k || exit; done < $tmp/keys >/dev/null"

#!/usr/bin/env bash
# bench-gen.sh - otp-gen against oathtool: large windows, one process, many
# keys.  Sourced helpers print medians and ratios (>1: otp-gen is faster).
set -eu
# shellcheck disable=SC1091
. "$(dirname "$0")/lib.sh"
KEY=3132333435363738393031323334353637383930
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

bench_header "otp-gen vs oathtool"
bench "HOTP SHA1, -w 1000000" \
    "otp-gen -w 1000000 $KEY >/dev/null" \
    "oathtool -w 1000000 $KEY >/dev/null"
bench "TOTP SHA256, -w 1000000" \
    "otp-gen --totp=SHA256 -w 1000000 $KEY >/dev/null" \
    "oathtool --totp=SHA256 -w 1000000 $KEY >/dev/null"
bench "TOTP SHA512, -w 1000000" \
    "otp-gen --totp=SHA512 -w 1000000 $KEY >/dev/null" \
    "oathtool --totp=SHA512 -w 1000000 $KEY >/dev/null"

# CPU time too: a window this large is shared among the CPUs, so the wall
# clock shows the speed a user sees and the CPU time the work done.
printf '\n== the same, CPU seconds (user+sys) of one run\n'
for alg in SHA1 SHA256 SHA512; do
	bench_cpu "TOTP $alg, -w 1000000" \
	    "otp-gen --totp=$alg -w 1000000 $KEY" \
	    "oathtool --totp=$alg -w 1000000 $KEY"
done

bench_header "otp-gen vs oathtool: start-up, many keys"
# One process: 200 runs in a shell loop, so start-up cost dominates.
bench "200 single --totp processes" \
    "for i in \$(seq 200); do otp-gen --totp $KEY; done >/dev/null" \
    "for i in \$(seq 200); do oathtool --totp $KEY; done >/dev/null"

# 10,000 random keys: one otp-gen reading them all vs one oathtool each.
head -c 200000 /dev/urandom | od -An -v -tx1 | tr -d ' \n' |
    fold -w 40 | head -n 10000 > "$tmp/keys"
BENCH_RUNS=${BENCH_RUNS_SLOW:-3} bench "10,000 keys: one otp-gen vs 10,000 oathtool runs" \
    "otp-gen < $tmp/keys >/dev/null" \
    "while read -r k; do oathtool \$k; done < $tmp/keys >/dev/null"

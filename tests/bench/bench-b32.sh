#!/usr/bin/env bash
# bench-b32.sh - b32 against coreutils base32 on 200 MB of random data,
# both ways, and b32's peak memory on 20 MB and 200 MB to show that it
# streams in constant memory.  Helpers in lib.sh print medians and ratios
# (>1: b32 is faster).
set -eu
# shellcheck disable=SC1091
. "$(dirname "$0")/lib.sh"
MB=${BENCH_B32_MB:-200}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

head -c $((MB * 1000000)) /dev/urandom > "$tmp/data"
head -c 20000000 "$tmp/data" > "$tmp/data20"
base32 "$tmp/data" > "$tmp/data.b32"
base32 -w0 "$tmp/data" > "$tmp/data.b32w0"
# Equal output first: a fast wrong answer is no answer.
cmp <(b32 -w 0 "$tmp/data") <(base32 -w0 "$tmp/data"; echo)
b32 -d "$tmp/data.b32" | cmp - "$tmp/data"

bench_header "b32 vs coreutils base32, $MB MB of random data"
bench "encode, one line (b32 -w 0 / base32 -w0)" \
    "b32 -w 0 $tmp/data >/dev/null" \
    "base32 -w0 $tmp/data >/dev/null"
bench "encode, 76 columns (b32 / base32)" \
    "b32 $tmp/data >/dev/null" \
    "base32 $tmp/data >/dev/null"
bench "decode, 76 columns (b32 -d / base32 -d)" \
    "b32 -d $tmp/data.b32 >/dev/null" \
    "base32 -d $tmp/data.b32 >/dev/null"
bench "decode, one line (b32 -d / base32 -d)" \
    "b32 -d $tmp/data.b32w0 >/dev/null" \
    "base32 -d $tmp/data.b32w0 >/dev/null"
bench "encode through a pipe (cat | b32 -w 0 | cat)" \
    "cat $tmp/data | b32 -w 0 | cat >/dev/null" \
    "cat $tmp/data | base32 -w0 | cat >/dev/null"

# rss NAME CMD_20MB CMD_ALL: one row of peak memory.
rss() {
	local a b
	a=$(peak_rss_kb "$2") || exit 1
	b=$(peak_rss_kb "$3") || exit 1
	printf '%-40s %10s %10s\n' "$1" "$a" "$b"
}

printf '\n== b32 peak RSS (KiB): constant memory\n'
printf '%-40s %10s %10s\n' case "20 MB" "$MB MB"
rss "b32 (encode)" "b32 $tmp/data20" "b32 $tmp/data"
b32 "$tmp/data20" > "$tmp/data20.b32"
rss "b32 -d (decode, of 20 MB / $MB MB)" "b32 -d $tmp/data20.b32" \
    "b32 -d $tmp/data.b32"
rss "base32 (encode, for scale)" "base32 $tmp/data20" "base32 $tmp/data"

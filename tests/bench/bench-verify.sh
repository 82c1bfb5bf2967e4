#!/usr/bin/env bash
# bench-verify.sh - otp-verify against oathtool's validation: a window of a
# million (HOTP c..c+10^6, TOTP +-10^6 steps) with the match at the far end
# and with no match, then one `otp-verify --state` check (read, verify,
# atomic write).  oathtool exits 2 when nothing matches: fine for timing.
set -u
# shellcheck disable=SC1091
. "$(dirname "$0")/lib.sh"

K=3132333435363738393031323334353637383930
N=1700000000
W=1000000

# An 8-digit code that no counter in the window gives (checked, not hoped).
nomatch() {
	local c
	for c in 00000000 11111111 22222222 33333333 44444444 55555555; do
		if ! otp-verify -q "$@" "$c" >/dev/null; then
			echo "$c"
			return
		fi
	done
}

bench_header "otp-verify -w $W (1 HMAC per candidate, every candidate compared)"

far=$(oathtool -d 8 -c $W $K)
bench "HOTP, match at counter c+$W" \
    "otp-verify -w $W $K $far" "oathtool -w $W $K $far"
none=$(nomatch -w $W $K)
bench "HOTP, no match in c..c+$W" \
    "otp-verify -w $W $K $none" "oathtool -w $W $K $none"

for alg in SHA1 SHA256 SHA512; do
	# -W steps is the last candidate oathtool tries (0, +1, -1, ...).
	far=$(oathtool --totp=$alg -d 8 -N @$((N - W * 30)) $K)
	bench "TOTP $alg, match at step -$W" \
	    "otp-verify --totp=$alg -N @$N -w $W $K $far" \
	    "oathtool --totp=$alg -N @$N -w $W $K $far"
	none=$(nomatch --totp=$alg -N @$N -w $W $K)
	bench "TOTP $alg, no match in +-$W steps" \
	    "otp-verify --totp=$alg -N @$N -w $W $K $none" \
	    "oathtool --totp=$alg -N @$N -w $W $K $none"
done

# CPU time as well: wall-clock ratios shrink when the machine is busy.
cpu() { /usr/bin/time -f '%U %S' sh -c "$1" 2>&1 >/dev/null | tail -n 1 |
    awk '{ print $1 + $2 }'; }
printf '\n== the same, CPU seconds (user+sys) of one run\n'
farh=$(oathtool -d 8 -c $W $K)
fart=$(oathtool --totp -d 8 -N @$((N - W * 30)) $K)
for c in "-w $W" "--totp -N @$N -w $W"; do
	case $c in
	--totp*) code=$fart ;;
	*) code=$farh ;;
	esac
	o=$(cpu "otp-verify $c $K $code")
	t=$(cpu "oathtool $c $K $code")
	awk -v n="$c, match at the far end" -v o="$o" -v t="$t" 'BEGIN {
	    printf "%-52s %10.2f s  %10.2f s  %7.2fx\n", n, o, t,
	    (o > 0 ? t / o : 0) }'
done

# State mode: a fresh copy of a TOTP file with DISALLOW_REUSE before each
# run, so every run reads, accepts, and atomically rewrites it.
bench_header "otp-verify --state (read, verify, lock, fsync, rename)"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
code=$(oathtool --totp -N @$N $K)
runs=${STATE_RUNS:-51}
times=()
for ((i = 0; i < runs; i++)); do
	rm -f "$dir/ga"
	printf '%s\n' GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ '" WINDOW_SIZE 3' \
	    '" DISALLOW_REUSE' '" TOTP_AUTH' 12345678 > "$dir/ga"
	chmod 400 "$dir/ga"
	t0=$(now_ns)
	otp-verify -q --state "$dir/ga" -N @$N "$code" >/dev/null || {
		echo "bench-verify: the state check failed" >&2
		exit 1
	}
	t1=$(now_ns)
	times+=($((t1 - t0)))
done
ours=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p")
theirs=$(median_ns "oathtool --totp -N @$N $K $code")
awk -v n="one --state check (median of $runs)" -v o="$ours" -v t="$theirs" \
    'BEGIN { printf "%-52s %10.2f ms %10.2f ms %7.2fx\n", n, o / 1e6,
    t / 1e6, (o > 0 ? t / o : 0) }'
echo "(reference: one stateless oathtool --totp validation)"

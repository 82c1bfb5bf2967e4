#!/usr/bin/env bash
# bench-verify.sh - otp-verify against oathtool's validation on one CPU
# each: a window of a million (HOTP c..c+10^6, TOTP +-10^6 steps) with the
# match at the far end and with no match, and one code; then one
# `otp-verify --state` check (read, verify, atomic write).  With no
# match, otp-verify exits 1 and oathtool 2: BENCH_STATUS says so, and any
# other status fails the bench.
set -u
# shellcheck disable=SC1091
. "$(dirname "$0")/lib.sh"

K=3132333435363738393031323334353637383930
N=1700000000
W=1000000

# An 8-digit code that no counter in the window gives (checked, not hoped:
# otp-verify says no, exit 1, rather than fails).
nomatch() {
	local c rc
	for c in 00000000 11111111 22222222 33333333 44444444 55555555; do
		rc=0
		otp-verify -q "$@" "$c" >/dev/null || rc=$?
		if [ "$rc" = 1 ]; then
			echo "$c"
			return
		fi
	done
	echo "bench: FAILED: no code outside the window: otp-verify $*" >&2
	return 1
}

# 1 HMAC per candidate, every candidate compared.
bench_header "otp-verify -w $W, one CPU each (taskset -c $BENCH_CPU)"

far=$(oathtool -d 8 -c $W $K)
bench_core "HOTP, match at counter c+$W" \
    "otp-verify -w $W $K $far" "oathtool -w $W $K $far"
none=$(nomatch -w $W $K) || exit 1
BENCH_STATUS="1 2" bench_core "HOTP, no match in c..c+$W" \
    "otp-verify -w $W $K $none" "oathtool -w $W $K $none"

for alg in SHA1 SHA256 SHA512; do
	# -W steps is the last candidate oathtool tries (0, +1, -1, ...).
	far=$(oathtool --totp=$alg -d 8 -N @$((N - W * 30)) $K)
	bench_core "TOTP $alg, match at step -$W" \
	    "otp-verify --totp=$alg -N @$N -w $W $K $far" \
	    "oathtool --totp=$alg -N @$N -w $W $K $far"
	none=$(nomatch --totp=$alg -N @$N -w $W $K) || exit 1
	BENCH_STATUS="1 2" bench_core "TOTP $alg, no match in +-$W steps" \
	    "otp-verify --totp=$alg -N @$N -w $W $K $none" \
	    "oathtool --totp=$alg -N @$N -w $W $K $none"
done

# One check, one process: start-up is all there is to it.
code=$(oathtool --totp -N @$N $K)
BENCH_RUNS=${BENCH_RUNS_ONE:-101} bench_alt "one --totp check, one process" \
    "otp-verify --totp -N @$N $K $code" "oathtool --totp -N @$N $K $code"

# State mode: a fresh copy of a TOTP file with DISALLOW_REUSE before each
# run (untimed), so that every run reads, accepts and atomically rewrites
# it: lock, temporary file, fsync, rename, directory fsync.  Once in
# $TMPDIR (a disk, where the two fsyncs are most of the cost) and once on
# tmpfs (/dev/shm, where fsync is free).  The stateless check of the same
# code after the same preparation (which leaves the caches cold) shows
# what the state file itself adds.
bench_header "otp-verify --state (read, verify, lock, fsync, rename, fsync)"
dir=$(mktemp -d)
shm=
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
	shm=$(mktemp -d /dev/shm/otp-bench.XXXXXX)
fi
trap 'rm -rf "$dir" ${shm:+"$shm"}' EXIT
code=$(oathtool --totp -N @$N $K)
runs=${STATE_RUNS:-51}
for d in "$dir" $shm; do
	printf '%s\n' GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ '" WINDOW_SIZE 3' \
	    '" DISALLOW_REUSE' '" TOTP_AUTH' 12345678 > "$d/ga.orig"
	chmod 400 "$d/ga.orig"
	prep="cp -p $d/ga.orig $d/ga.new && mv -f $d/ga.new $d/ga && sync -f $d"
	sh -c "$prep"
	otp-verify -q --state "$d/ga" -N @$N "$code" >/dev/null || {
		echo "bench-verify: the state check failed in $d" >&2
		exit 1
	}
	case $d in
	/dev/shm/*) where="tmpfs" ;;
	*) where="$(df -PT "$d" | awk 'NR == 2 { print $2 }') disk" ;;
	esac
	ours=$(BENCH_RUNS=$runs median_ns \
	    "otp-verify -q --state $d/ga -N @$N $code" "$prep") || exit 1
	base=$(BENCH_RUNS=$runs median_ns \
	    "otp-verify -q --totp -N @$N $K $code" "$prep") || exit 1
	theirs=$(BENCH_RUNS=$runs median_ns \
	    "oathtool --totp -N @$N $K $code" "$prep") || exit 1
	row "one --state check, $where (median of $runs)" "$ours" "$theirs"
	row "  the same code without a state file" "$base" "$theirs"
	awk -v w="$where" -v o="$ours" -v b="$base" 'BEGIN {
	    printf "  the state file adds, on %s: %.2f ms\n", w, (o - b) / 1e6 }'
	# The same check inside one process, timed around the library call.
	if [ -x "${OTP_STATE_LOOP:-}" ]; then
		"$OTP_STATE_LOOP" "$d" "$runs" | awk -v w="$where" -v r="$runs" '{
		    printf "  in one process (sys_login_check), %s: " \
		    "median %.2f ms, 90th percentile %.2f ms of %d\n",
		    w, $1, $2, r }'
	fi
done
echo "(reference: one stateless oathtool --totp validation)"

#!/usr/bin/env bash
# bench-users.sh - one login against a users file of 1,000, 10,000 and
# 100,000 users (USERS_SIZES), the user on the last line (both modules
# read up to it), accepted and recorded on every run: pam_otp.so
# usersfile= against Debian's pam_oath.so, both through pamtester under
# pam_wrapper, and the same check by otp-verify --usersfile.  A fresh copy
# of the file before each run (untimed).  Skipped when pam_oath.so,
# pamtester or pam_wrapper is missing.
set -u
# shellcheck disable=SC1091
. "$(dirname "$0")/lib.sh"

OATH_SO=/lib/x86_64-linux-gnu/security/pam_oath.so
OTP_SO=${OTP_LIBDIR:-$OTP_BIN/../lib}/pam_otp.so
K=3132333435363738393031323334353637383930

if [ ! -f "$OATH_SO" ] || [ ! -f "$OTP_SO" ] ||
    ! command -v pamtester >/dev/null; then
	echo "bench-users: pam_oath.so, pam_otp.so or pamtester missing;" \
	    "skipped" >&2
	exit 0
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/svc"
for m in oath otp; do
	so=$OATH_SO
	[ $m = otp ] && so=$OTP_SO
	echo "auth required $so usersfile=$dir/users.$m" >"$dir/svc/$m"
done
# The module where no pam_oath shares the file: no linger on FILE.lock.
echo "auth required $OTP_SO usersfile=$dir/users.otp pam_oath_shared=0" \
    >"$dir/svc/otp-unshared"
pam() {
	echo "echo $code | LD_PRELOAD=libpam_wrapper.so PAM_WRAPPER=1" \
	    "PAM_WRAPPER_SERVICE_DIR=$dir/svc pamtester $1 last authenticate"
}
prep() {
	echo "cp -p $dir/users.orig $dir/users.$1.tmp &&" \
	    "mv -f $dir/users.$1.tmp $dir/users.$1"
}
code=$(oathtool -c 1 $K)
runs=${USERS_RUNS:-21}
# alt_ns PREP CMD...: each CMD run USERS_RUNS times, in turns, each after
# PREP (untimed), so that load that comes and goes on a shared machine
# falls on all alike; their median wall times in ns, one a line.  A run
# that fails is no figure: it says so and exits 1.
alt_ns() {
	local prep=$1 i k t0 t1 rc
	shift
	local -a t
	for ((i = 0; i < runs; i++)); do
		for ((k = 1; k <= $#; k++)); do
			sh -c "$prep" >/dev/null 2>&1 || {
				echo "bench: FAILED: the preparation failed:" \
				    "$prep" >&2
				exit 1
			}
			rc=0
			t0=$EPOCHREALTIME
			bash -o pipefail -c "${!k}" >/dev/null 2>&1 || rc=$?
			t1=$EPOCHREALTIME
			if [ "$rc" != 0 ]; then
				bench_failed "${!k}" "$rc" 0
				exit 1
			fi
			t[k]+="$(( (${t1/./} - ${t0/./}) * 1000 )) "
		done
	done
	for ((k = 1; k <= $#; k++)); do
		tr ' ' '\n' <<<"${t[k]}" | sed '/^$/d' | sort -n |
		    sed -n "$(((runs + 1) / 2))p"
	done
}
for users in ${USERS_SIZES:-1000 10000 100000}; do
	awk -v n="$users" -v k=$K 'BEGIN {
		for (i = 1; i <= n; i++)
			printf "HOTP/T30\tuser%06d\t-\t%s\t0\t000000\t2026-01-01T00:00:00L\n", i, k
		printf "HOTP\tlast\t-\t%s\n", k }' >"$dir/users.orig"
	chmod 600 "$dir/users.orig"
	bench_header "one login, users file of $users users (median of $runs, in turns)"
	# One file for all (each run on a fresh copy): pam_oath's and ours.
	{ read -r ours; read -r alone; read -r tool; read -r theirs; } < <(
	    alt_ns "$(prep otp) && cp -p $dir/users.otp $dir/users.oath" \
	    "$(pam otp)" "$(pam otp-unshared)" \
	    "otp-verify -q --usersfile=$dir/users.otp --user=last $code" \
	    "$(pam oath)") || exit 1
	row "pam_otp.so usersfile= vs pam_oath.so" "$ours" "$theirs"
	row "pam_otp.so pam_oath_shared=0 vs pam_oath.so" "$alone" "$theirs"
	row "otp-verify --usersfile vs pam_oath.so" "$tool" "$theirs"
done
echo "(ratio: pam_oath.so's time over ours; 0.83x is 1.2 times its time." \
    "After a write pam_otp.so keeps pam_oath's lock file while another" \
    "process still has the replaced file open, unless pam_oath_shared=0;" \
    "see lib/sys/usersfile.c)"

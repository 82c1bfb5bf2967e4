#!/usr/bin/env bash
# bench-radius.sh - RADIUS accepts per second through FreeRADIUS: rlm_exec
# running otp-verify --radius (a process per request), rlm_pam running
# pam_otp.so in the server's threads (the example's four instances, four
# logins at once; once more in one instance, to show what the four
# bring), and rlm_pam running pam_google_authenticator.so in
# one instance (it is not thread-safe: one login at a time); each with
# one request at a time and with 20 in flight, sent by radload.py (timed
# from its first request to its last answer, as bench-pg.sh's are:
# radclient's own start and pace would be part of the figure).  Every
# request is a right code of a user of its own (DISALLOW_REUSE, so each
# accept writes its state file), as a fleet's logins are.  The two
# otp-utils paths run again with one users file for all N users
# (--usersfile=FILE, usersfile=FILE), where every accept rewrites the
# whole file under its lock.  Figures, not assertions.
#
# As root only (a new /etc/pam.d service each for the two modules, removed
# on exit); skipped in one line without root or a package.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck disable=SC1091
. "$here/lib.sh"
# shellcheck disable=SC1091
. "$here/../e2e/radius.bash"

N=${BENCH_RADIUS_N:-200}
OTP_LIBDIR=${OTP_LIBDIR:-$OTP_BIN/../lib}

printf '\n== %s\n' "FreeRADIUS: accepts per second ($N requests, each a user's right code)"
if [ "$(id -u)" != 0 ]; then
	echo "skipped: needs root (a server account, /etc/pam.d services)"
	exit 0
fi
for p in freeradius freeradius-utils libpam-google-authenticator; do
	if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
	    grep -q 'install ok installed'; then
		echo "skipped: package $p is not installed (make deps)"
		exit 0
	fi
done
[ -f "$OTP_LIBDIR/pam_otp.so" ] || { echo "skipped: no pam_otp.so"; exit 0; }

tag=otpbench-$$
tmp=$(mktemp -d "/tmp/$tag.XXXXXX")
chmod 0755 "$tmp"
R=$tmp/radius
RAD_PAM_SVC=$tag-otp
RAD_UPAM_SVC=$tag-uotp
RAD_GA_SVC=$tag-ga
server=
cleanup() {
	if [ -n "$server" ]; then
		kill -TERM "$server" 2>/dev/null || true
		wait "$server" 2>/dev/null || true
	fi
	rm -f "/etc/pam.d/$RAD_PAM_SVC" "/etc/pam.d/$RAD_UPAM_SVC" \
	    "/etc/pam.d/$RAD_GA_SVC"
	[ -n "${BENCH_RADIUS_KEEP:-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# free_port: a 127.0.0.1 port nothing has open.
free_port() {
	local p
	while :; do
		p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
		ss -Hlnu "sport = :$p" | grep -q . || { echo "$p"; return; }
	done
}

rad_tree "$R" "$OTP_BIN" "$OTP_LIBDIR"
pe=$(free_port)
pp=$(free_port)
pg=$(free_port)
pue=$(free_port)
pup=$(free_port)
for f in "$RAD_PAM_SVC" "$RAD_UPAM_SVC" "$RAD_GA_SVC"; do
	[ ! -e "/etc/pam.d/$f" ] || { echo "skipped: /etc/pam.d/$f exists"; exit 0; }
done
rad_pam_service "$R" >"/etc/pam.d/$RAD_PAM_SVC"
rad_upam_service "$R" >"/etc/pam.d/$RAD_UPAM_SVC"
rad_ga_service "$R" >"/etc/pam.d/$RAD_GA_SVC"
rad_conf "$R" "$pe" "$pp" "$pg" "$pue" "$pup"
# The state-file path once more in one instance of rlm_pam, to show what
# the example's four instances bring.
pp1=$(free_port)
rad_site "$R" pam1 "$pp1" otp_pam
rad_one_instance "$R" pam1 otp_pam
chown "$RAD_ACCOUNT:$RAD_ACCOUNT" "$R/sites-enabled/pam1"
# pam_google_authenticator.so is not thread-safe: one login at a time,
# where pam_otp.so runs in the example's four instances at once.
rad_one_instance "$R" ga gapam
rad_check "$R" >/dev/null
# setpriv execs the server: $! is the server's own PID.
setpriv --reuid="$RAD_ACCOUNT" --regid="$RAD_ACCOUNT" --clear-groups -- \
    "$RAD_SBIN" -f -d "$R" -n radiusd </dev/null >"$tmp/server.out" 2>&1 &
server=$!
for p in "$pe" "$pp" "$pp1" "$pg" "$pue" "$pup"; do
	for ((i = 0; i < 200; i++)); do
		ss -Hlnu "sport = :$p" | grep -q . && break
		sleep 0.05
	done
done

# run KIND PORT PARALLEL RUN: enrol N users, send each its code, print
# "ACCEPTED MICROSECONDS".
run() {
	local kind=$1 port=$2 par=$3 run_id=$4 i u keys=() acc ns
	: >"$tmp/reqs"
	# A users file of the run's N users only.
	rm -f "$R/$kind/users.oath"
	for ((i = 1; i <= N; i++)); do
		case $kind in
		uexec | upam)
			keys+=("$(rad_uenrol "$R" "$kind" "b$run_id-$i")") ;;
		*)
			keys+=("$(rad_enrol "$R" "$kind" "b$run_id-$i" \
			    --disallow-reuse)") ;;
		esac
	done
	# A fresh step: every code stays good for the whole run.
	if (($(date +%s) % 30 > 15)); then
		sleep $((30 - $(date +%s) % 30))
	fi
	for ((i = 1; i <= N; i++)); do
		u=b$run_id-$i
		printf '%s %s\n' "$u" "$(rad_code "${keys[$((i - 1))]}")" \
		    >>"$tmp/reqs"
	done
	python3 "$here/radload.py" 127.0.0.1 "$port" "$RAD_SECRET" "$par" \
	    <"$tmp/reqs" >"$tmp/out" 2>&1 || true
	read -r _ acc _ _ _ _ _ ns <"$tmp/out" || true
	echo "${acc:-0} $((${ns:-0} / 1000))"
}

printf '%-50s %14s %14s\n' "path" "1 at a time" "20 in flight"
id=0
for spec in "rlm_exec: otp-verify --radius --state-dir|exec|$pe" \
    "rlm_exec: otp-verify --radius --usersfile|uexec|$pue" \
    "rlm_pam: pam_otp.so secret=DIR/\${USER}|pam|$pp" \
    "rlm_pam: the same, one instance|pam|$pp1" \
    "rlm_pam: pam_otp.so usersfile=FILE|upam|$pup" \
    "rlm_pam: pam_google_authenticator.so|ga|$pg"; do
	name=${spec%%|*}
	rest=${spec#*|}
	kind=${rest%%|*}
	port=${rest#*|}
	cols=()
	for par in 1 20; do
		id=$((id + 1))
		read -r acc us < <(run "$kind" "$port" "$par" "$id")
		# None accepted is a path that does not work, not a figure.
		if [ "${acc:-0}" = 0 ]; then
			echo "bench: FAILED: $name accepted no request of $N" \
			    "(radload.py: $(tail -n 1 "$tmp/out"); server log:" \
			    "$tmp/server.out, kept with BENCH_RADIUS_KEEP=1)" >&2
			exit 1
		fi
		cols+=("$(awk -v a="$acc" -v u="$us" -v n="$N" 'BEGIN {
		    s = sprintf("%.0f/s", u > 0 ? a / (u / 1e6) : 0)
		    if (a != n) s = s " (" a " ok)"
		    print s }')")
	done
	printf '%-50s %14s %14s\n' "$name" "${cols[0]}" "${cols[1]}"
done

#!/bin/bash
# demo-fleet.sh - a fleet on loopback (issue 24): one PostgreSQL store
# and two FreeRADIUS servers, each running pam_otp.so store=postgresql://
# in rlm_pam; a code accepted by one server is refused by the other.
#
#	OTP_BIN=build/bin OTP_LIBDIR=build/lib bash tests/demo-fleet.sh
#
# Needs root (a service in /etc/pam.d for rlm_pam, the servers run as the
# freerad account, PostgreSQL as postgres), freeradius, freeradius-utils
# and a PostgreSQL server; says why in one line and exits 0 without them.
# The configuration is the one tests/e2e/fleet.bats runs, made by the
# same functions (tests/e2e/radius.bash) from examples/freeradius.
# Everything it makes is gone when it ends, however it ends.
set -eu

: "${OTP_BIN:?OTP_BIN must name the directory of the built tools}"
: "${OTP_LIBDIR:?OTP_LIBDIR must name the directory of pam_otp.so}"
OTP_BIN=$(cd "$OTP_BIN" && pwd)
OTP_LIBDIR=$(cd "$OTP_LIBDIR" && pwd)
here=$(cd "$(dirname "$0")" && pwd)

skip() {
	echo "demo-fleet: skipped: $*"
	exit 0
}

[ "$(id -u)" = 0 ] ||
    skip "needs root (an /etc/pam.d service, servers run as freerad and postgres)"
for p in freeradius freeradius-utils; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
	    grep -q 'install ok installed' ||
	    skip "package $p is not installed (make deps installs it)"
done
[ -f "$OTP_LIBDIR/otp-utils/store-pg.so" ] ||
    skip "no $OTP_LIBDIR/otp-utils/store-pg.so (built only with libpq-dev)"
[ -f "$OTP_LIBDIR/pam_otp.so" ] || skip "no $OTP_LIBDIR/pam_otp.so"

# shellcheck source=tests/pgcluster.bash
. "$here/pgcluster.bash"
# shellcheck source=tests/e2e/radius.bash
. "$here/e2e/radius.bash"
# shellcheck source=tests/transcript.sh
. "$here/transcript.sh"
reason=$(pg_cluster_available) || skip "$reason"
getent passwd "$RAD_ACCOUNT" >/dev/null || skip "no $RAD_ACCOUNT account"

PATH=$OTP_BIN:$PATH
OTP_STORE_MODULE=$OTP_LIBDIR/otp-utils/store-pg.so
export PATH OTP_STORE_MODULE

W=
SVCS=()
PIDS=()
cleanup() {
	local pid f i
	set +e
	for pid in "${PIDS[@]}"; do
		kill -TERM "$pid" 2>/dev/null
	done
	for pid in "${PIDS[@]}"; do
		for ((i = 0; i < 50; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	pg_cluster_stop fast
	for f in "${SVCS[@]}"; do
		rm -f "$f"
	done
	[ -z "$W" ] || rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# free_port: a UDP port of 127.0.0.1 free now.
free_port() {
	/usr/bin/python3 -c 'import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# wait_udp PORT: until something listens on 127.0.0.1:PORT (10 s).
wait_udp() {
	local hex i
	hex=$(printf '0100007F:%04X ' "$1")
	for ((i = 0; i < 200; i++)); do
		grep -q "$hex" /proc/net/udp && return 0
		sleep 0.05
	done
	echo "demo-fleet: nothing answers on port $1" >&2
	return 1
}

# pam_service NAME FILE: FILE as the new /etc/pam.d/NAME (never over one).
pam_service() {
	local f=/etc/pam.d/$1
	(set -C && cat "$2" >"$f") || {
		echo "demo-fleet: cannot write $f" >&2
		return 1
	}
	SVCS+=("$f")
}

# ask N USER CODE: one Access-Request to server N, shown as radclient
# takes it; its answer lines.
ask() {
	local port=${PORTS[$1]}
	printf '$ echo %s | %s   # server %s\n' \
	    "$(quote "User-Name = \"$2\", User-Password = \"$3\"")" \
	    "$(words radclient "127.0.0.1:$port" auth "$RAD_SECRET")" "$1"
	rad_auth "$port" "$2" "$3" | sed 's/^/  /' || true
}

W=$(mktemp -d /tmp/otp-fleet-demo.XXXXXX)
chmod 0755 "$W"
echo "otp-utils fleet demo: one PostgreSQL store, two FreeRADIUS servers (tools from $OTP_BIN)"
echo
echo "# a throwaway PostgreSQL cluster on 127.0.0.1, run as postgres"
pg_cluster_start "$W" demo >/dev/null
K=$W/store.key
printf '$ %s\n' "$(words otp-store --store-key="$K" init "$PG_URL")"
otp-store --store-key="$K" init "$PG_URL" 2>&1 | sed 's/^/  /'

declare -A PORTS
for i in 1 2; do
	R=$W/radius$i
	PORTS[$i]=$(free_port)
	rad_pg_tree "$R" "$OTP_BIN" "$OTP_LIBDIR" "$K"
	rad_pg_service "$R" "$PG_URL" 1500 >"$R/pam.svc"
	svc=otp-fleet-demo-$$-$i
	pam_service "$svc" "$R/pam.svc"
	rad_pg_conf "$R" "${PORTS[$i]}" "$svc"
	rad_check "$R" >"$R/log/check.out" 2>&1 || {
		cat "$R/log/check.out" >&2
		exit 1
	}
	(rad_syslogd "$R") </dev/null >"$R/log/syslogd.out" 2>&1 &
	PIDS+=("$!")
	rad_wait_file "$R/syslog.sock"
	(rad_server "$R") </dev/null >"$R/log/daemon.out" 2>&1 &
	PIDS+=("$!")
done
wait_udp "${PORTS[1]}"
wait_udp "${PORTS[2]}"
echo
echo "# server 1 on 127.0.0.1:${PORTS[1]}, server 2 on 127.0.0.1:${PORTS[2]}, both with:"
grep '^auth' "$W/radius1/pam.svc" | sed "s|$W/radius1|DIR|g; s/^/  /"
echo
echo "# a user, provisioned once for the whole fleet"
printf '$ %s\n' \
    "$(words otp-keygen --store="$PG_URL" --user=alice --store-key="$K")"
otp-keygen --store="$PG_URL" --user=alice --store-key="$K" >"$W/key" \
    2>/dev/null
sed 's/^/  /' "$W/key"
# A code with a few seconds of its step left.
left=$((30 - $(date +%s) % 30))
[ "$left" -gt 4 ] || sleep "$left"
code=$(otp-gen --totp -b "$(cat "$W/key")")
echo
echo "# the code $code, to server 1, then the same to server 2"
ask 1 alice "$code"
ask 2 alice "$code"
echo
echo "# why, from pam_otp.so's log lines (syslog) on each server"
for i in 1 2; do
	rad_wait_file "$W/radius$i/log/syslog" 2
	grep -h 'alice' "$W/radius$i/log/syslog" 2>/dev/null |
	    sed 's/^<[0-9]*>//; s/^/  server '"$i"': /' || true
done

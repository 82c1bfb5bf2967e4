#!/usr/bin/env bash
# bench-audit.sh - what the PostgreSQL store's audit trail costs a login
# (issue 37's goal: the insert at most 20% of a login's database time).
#
# One long-lived host (pg-loop.c, as rlm_pam: pam_otp.so loaded across
# logins, connections pooled, the row each login wrote kept, so that a
# login is one statement) runs two services, login after login in turn:
# one with store-pg.so as built, whose statement writes the row and its
# otp_log entry; one with a store-pg.so built here from the same source
# with the INSERT taken out of that statement (its parameters kept).  Two
# users with HOTP tokens, one a service, in a database of 100k tokens;
# every login a right code.  Prints each service's median login time and
# the difference as a share of the login without the trail.  Figures, not
# assertions: the machine is shared.  Skipped in one line without a
# PostgreSQL server or the built objects.
#
# BENCH_AUDIT_N (2000) logins a service.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck disable=SC1091
. "$here/../pgcluster.bash"

: "${OTP_BIN:?OTP_BIN must name the built tools}"
OTP_LIBDIR=${OTP_LIBDIR:-$OTP_BIN/../lib}
PATH=$OTP_BIN:$PATH
PG_SO=$OTP_LIBDIR/otp-utils/store-pg.so
OTP_SO=$OTP_LIBDIR/pam_otp.so
export OTP_STORE_MODULE=$PG_SO
N=${BENCH_AUDIT_N:-2000}
HEX=3132333435363738393031323334353637383930
B32=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ

printf '\n== %s\n' "PostgreSQL store: the audit trail's cost in a login"
if [ ! -f "$PG_SO" ] || [ ! -f "$OTP_SO" ]; then
	echo "skipped: $PG_SO or $OTP_SO not built"
	exit 0
fi
if ! reason=$(pg_cluster_available); then
	echo "skipped: $reason"
	exit 0
fi

tmp=$(mktemp -d "/tmp/otpbench-audit.XXXXXX")
chmod 0755 "$tmp"
cleanup() {
	pg_cluster_stop fast
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# The object without the trail: the same source, the INSERT's lines of
# the login's statement (LOGIN_WRITE) gone, its two parameters selected.
mkdir "$tmp/src"
cp -r "$root/GNUmakefile" "$root/lib" "$root/cmd" "$tmp/src/"
# shellcheck disable=SC2016 # $1, $10...: the statement's parameters
sed -i -e '/^	"ins AS (INSERT INTO otp_log/d' \
    -e '/^	"SELECT \$1, \$10, \$11, \$12 FROM upd) " \\$/d' \
    -e 's/^	"AND NOT disabled RETURNING 1), " \\$/	"AND NOT disabled RETURNING 1) " \\/' \
    -e 's/^	"SELECT (SELECT count(\*) FROM upd), cur\.\* FROM cur"$/	"SELECT (SELECT count(*) FROM upd), cur.*, $11::text, $12::text FROM cur"/' \
    "$tmp/src/lib/sys/pg/store_pg.c"
# shellcheck disable=SC2016 # $11, $12: the statement's parameters
if grep -q 'INSERT INTO otp_log (login, server, outcome, reason) " \\$' \
    "$tmp/src/lib/sys/pg/store_pg.c" ||
    ! grep -q '\$11::text, \$12::text FROM cur' "$tmp/src/lib/sys/pg/store_pg.c"; then
	echo "bench: FAILED: the login's statement is not as this script knows it" >&2
	exit 1
fi
make -s -C "$tmp/src" BUILD="$tmp/b" "$tmp/b/lib/otp-utils/store-pg.so" \
    >"$tmp/make.log" 2>&1 || {
	echo "bench: FAILED: building store-pg.so without the trail" >&2
	tail -n 5 "$tmp/make.log" >&2
	exit 1
}
"${CC:-cc}" -O2 -o "$tmp/pg-loop" "$here/pg-loop.c" -lpam

pg_cluster_start "$tmp" audit >/dev/null || {
	echo "bench: FAILED: no PostgreSQL cluster" >&2
	exit 1
}
K=$tmp/store.key
U=postgresql://postgres@127.0.0.1:$PGPORT/audit
"$PG_PSQL" -X -q -d postgres -c "CREATE DATABASE audit"
otp-store --store-key="$K" init "$U" 2>/dev/null
printf '%s\n' "$B32" '" HOTP_COUNTER 1' '" WINDOW_SIZE 3' >"$tmp/tok"
chmod 0400 "$tmp/tok"
for u in with without; do
	otp-store --store-key="$K" copy --user="$u" "ga:$tmp/tok" "$U" \
	    2>/dev/null
done
"$PG_PSQL" -X -q -d audit -c "INSERT INTO otp_tokens (login, kind, state,
    gen) SELECT convert_to('user' || i, 'UTF8'), 'hotp',
    (SELECT state FROM otp_tokens WHERE login = 'with'::bytea), 1
    FROM generate_series(1, 100000) AS i"
"$PG_PSQL" -X -q -d audit -c "VACUUM ANALYZE otp_tokens"
mkdir -m 0755 "$tmp/conf"
opts="store=$U store_key=$K"
printf 'auth required %s %s store_module=%s\n' "$OTP_SO" "$opts" "$PG_SO" \
    >"$tmp/conf/with"
printf 'auth required %s %s store_module=%s\n' "$OTP_SO" "$opts" \
    "$tmp/b/lib/otp-utils/store-pg.so" >"$tmp/conf/without"
mapfile -t code < <(otp-gen -c 1 -w "$N" "$HEX")
for ((i = 0; i < N; i++)); do
	if ((i % 2)); then
		echo "with with ${code[i]}"
		echo "without without ${code[i]}"
	else
		echo "without without ${code[i]}"
		echo "with with ${code[i]}"
	fi
done >"$tmp/in"
"$tmp/pg-loop" "$tmp/conf" <"$tmp/in" >"$tmp/out"
with=$(awk '$1 == "with" { print $7 }' "$tmp/out")
without=$(awk '$1 == "without" { print $7 }' "$tmp/out")
entries=$("$PG_PSQL" -X -A -t -d audit -c "SELECT count(*) FROM otp_log")
echo "median login, $N logins each: $without us without the trail," \
    "$with us with it ($entries entries written)"
awk -v a="$without" -v b="$with" 'BEGIN {
	printf "goal: the audit insert at most 20%% of a login: %+.1f%%, %s\n",
	    (b - a) * 100 / a, (b - a) <= 0.2 * a ? "holds" : "FAILS" }'

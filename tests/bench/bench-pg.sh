#!/usr/bin/env bash
# bench-pg.sh - the PostgreSQL store against the file stores, the figures
# of issue 24's goals:
#
# 1. One login against 1k, 100k and 1M tokens: a throwaway cluster
#    (tests/pgcluster.bash) with a database of each size, and users files
#    of the same sizes, the measured user on the last line (the file is
#    read up to it).  The measured user of each is a real HOTP token
#    (otp-store copy from a state file; in the users files a line like
#    otp-keygen's); the other rows are filler made by SQL (INSERT ...
#    SELECT generate_series, reusing the real row's sealed bytes: never
#    logged in) or by awk.  Each login is a right code, accepted and
#    recorded (HOTP: the next counter each time, so that nothing has to
#    be restored between runs).  Two ways: otp-verify, a process a login
#    (a new connection each); and pg-loop (pg-loop.c), one process running
#    pam_otp.so through pam_start/pam_authenticate/pam_end login after
#    login, as rlm_pam does, where the store keeps its connection open.
#    Sizes alternate run by run, so that load that comes and goes on a
#    shared machine falls on all alike (the two stores one after the
#    other: a users file's rewrite would delay the next COMMIT).  Goal:
#    PostgreSQL at 1M within 1.2x of 1k.
# 2. As root, with FreeRADIUS installed: accepts per second through
#    rlm_pam (tests/e2e/radius.bash's server, made from examples/freeradius
#    as bench-radius.sh's is: four rlm_pam instances, four logins at
#    once), one request at a time and 20 in flight, for pam_otp.so
#    store=postgresql:// (users in the 1M-token database), secret=DIR/
#    ${USER} (a state file per user) and usersfile=FILE.  Every request
#    is a right HOTP code of a user of its own; each pass moves every
#    user's counter by one.  The requests are sent by radload.py, which
#    times from its first request to its last answer: radclient's start
#    (~30 ms reading FreeRADIUS's dictionaries) fell inside every
#    batch's time, and its own pace held 20 in flight to half the
#    server's rate.  A pass of each first, not counted: the
#    database's connections are opened there, and the server keeps the
#    row each user's login wrote, so that the measured logins are a
#    long-lived server's (one statement each: see otp-store(1)).  Then
#    the rounds: a pass of each path one at a time, then 20 in flight,
#    each pass cut into batches that the three paths take in turn (see
#    below).  Goal: PostgreSQL at least the file store's, in both of
#    two figures: the medians of the rounds' figures, and the median of
#    the rounds' own ratios.
# 3. In the same server, with freeradius-python3 and the otputils module
#    built: the example's otp_python (rlm_python3 running
#    otp_radius.py, otputils.Store on the 1M-token database, no PAM
#    stack) as a fourth path of part 2's rounds, its own users, the same
#    store options (store_timeout=3000) and server settings.  Goal
#    (issue 40): at least 3x rlm_pam store=postgresql:// one at a time
#    and 20 in flight, in both figures as above.
#
# A login that is refused or a request that is not accepted fails the
# bench (exit 1, saying which); no figure is printed for it.  Figures,
# not assertions: the machine is shared.  Skipped in one line without a
# PostgreSQL server or store-pg.so; part 2 skipped in one line without
# root or a package.
#
# BENCH_PG_RUNS (15) otp-verify logins a size, BENCH_PG_LOOP (300)
# pg-loop logins a size, BENCH_PG_RADIUS_N (200) RADIUS users,
# BENCH_PG_ROUNDS (15) RADIUS rounds (the median is shown),
# BENCH_PG_BATCH (50) and BENCH_PG_BATCH20 (100) requests a batch, one at
# a time and 20 in flight.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck disable=SC1091
. "$here/lib.sh"
# shellcheck disable=SC1091
. "$here/../pgcluster.bash"

: "${OTP_BIN:?OTP_BIN must name the built tools}"
OTP_LIBDIR=${OTP_LIBDIR:-$OTP_BIN/../lib}
PATH=$OTP_BIN:$PATH
PG_SO=$OTP_LIBDIR/otp-utils/store-pg.so
OTP_SO=$OTP_LIBDIR/pam_otp.so
export OTP_STORE_MODULE=$PG_SO
RUNS=${BENCH_PG_RUNS:-15}
LOOP=${BENCH_PG_LOOP:-300}
RN=${BENCH_PG_RADIUS_N:-200}
ROUNDS=${BENCH_PG_ROUNDS:-15}
RB=${BENCH_PG_BATCH:-50}
RB20=${BENCH_PG_BATCH20:-100}
SIZES=(1000 100000 1000000)
# Logins through pg-loop on a users file of each size: a 100k file costs
# ~0.15 s a login.
declare -A UF_LOOP=([1000]=$LOOP [100000]=15 [1000000]=5)
# The RFC 4226 key, hex and Base32.
HEX=3132333435363738393031323334353637383930
B32=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ

printf '\n== %s\n' "PostgreSQL store: one login against 1k, 100k and 1M tokens"
if [ ! -f "$PG_SO" ] || [ ! -f "$OTP_SO" ]; then
	echo "skipped: $PG_SO or $OTP_SO not built"
	exit 0
fi
if ! reason=$(pg_cluster_available); then
	echo "skipped: $reason"
	exit 0
fi

tag=otpbench-pg-$$
tmp=$(mktemp -d "/tmp/$tag.XXXXXX")
chmod 0755 "$tmp"
server=
pamd=()
cleanup() {
	if [ -n "$server" ]; then
		kill -TERM "$server" 2>/dev/null || true
		wait "$server" 2>/dev/null || true
	fi
	if [ "${#pamd[@]}" -gt 0 ]; then
		rm -f "${pamd[@]}"
	fi
	pg_cluster_stop fast
	[ -n "${BENCH_PG_KEEP:-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# The bench runs copies of the tools and modules: a rebuild while it
# runs cannot mix two versions.
mkdir -p "$tmp/bin" "$tmp/lib/otp-utils"
cp "$OTP_BIN"/otp-* "$tmp/bin/"
cp "$OTP_SO" "$tmp/lib/"
cp "$PG_SO" "$tmp/lib/otp-utils/"
PYDIR=$OTP_LIBDIR/../python
if [ -f "$PYDIR/otputils/__init__.py" ] && [ -f "$OTP_LIBDIR/libotputils.so.0" ]; then
	cp -r "$PYDIR" "$tmp/python"
	cp "$OTP_LIBDIR/libotputils.so.0" "$tmp/lib/"
fi
OTP_BIN=$tmp/bin OTP_LIBDIR=$tmp/lib
PATH=$OTP_BIN:$PATH
PG_SO=$OTP_LIBDIR/otp-utils/store-pg.so
OTP_SO=$OTP_LIBDIR/pam_otp.so
OTP_STORE_MODULE=$PG_SO

# failed WHAT STATUS ERRFILE: say that WHAT exited STATUS, not 0, with the
# end of its stderr, and end the bench.
failed() {
	{
		echo "bench: FAILED: exit status $2, not 0: $1"
		tail -n 5 "$3" | sed 's/^/bench:   /'
	} >&2
	exit 1
}

# run_ok CMD...: run CMD quietly; on failure, fail the bench.
run_ok() {
	local rc=0
	"$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	[ "$rc" = 0 ] || failed "$*" "$rc" "$tmp/err"
}

# secs T0 T1: the seconds between two now_ns readings.
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b - a) / 1e9 }'; }

# median: the median of the numbers on stdin.
median() {
	sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}

# ms US: microseconds as milliseconds, two decimals.
ms() { awk -v u="$1" 'BEGIN { printf "%.2f ms", u / 1000 }'; }

# ratio A B: B / A, "n/a" when either is missing.
ratio() {
	if [ -z "$1" ] || [ -z "$2" ]; then
		echo "n/a"
	else
		awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", b / a }'
	fi
}

# The codes of the RFC key, counter 0 on: every measured token is HOTP
# with that key, and each login takes its token's next counter.
mapfile -t CODE < <(otp-gen -c 0 -w $((RUNS + LOOP + 3 * ROUNDS + 20)) "$HEX")
declare -A ctr

# ---- the cluster and the databases ------------------------------------

pg_cluster_start "$tmp" bench >/dev/null || {
	echo "bench: FAILED: no PostgreSQL cluster" >&2
	exit 1
}
K=$tmp/store.key
printf '%s\n' "$B32" '" HOTP_COUNTER 1' '" WINDOW_SIZE 3' >"$tmp/tok"
chmod 0400 "$tmp/tok"
url() { echo "postgresql://postgres@127.0.0.1:$PGPORT/t$1"; }
sql() { run_ok "$PG_PSQL" -X -q -v ON_ERROR_STOP=1 -d "$1" -c "$2"; }

t0=$(now_ns)
for s in "${SIZES[@]}"; do
	sql postgres "CREATE DATABASE t$s"
	run_ok otp-store --store-key="$K" init "$(url "$s")"
	run_ok otp-store --store-key="$K" copy --user=bench "ga:$tmp/tok" \
	    "$(url "$s")"
	ctr[pg$s]=1
done
t1=$(now_ns)
for s in "${SIZES[@]}"; do
	sql "t$s" "INSERT INTO otp_tokens (login, kind, state)
	    SELECT convert_to('user' || lpad(i::text, 7, '0'), 'UTF8'), 'hotp',
	        (SELECT state FROM otp_tokens WHERE login = 'bench'::bytea)
	    FROM generate_series(1, $s - 1) AS i"
done
t2=$(now_ns)
for s in "${SIZES[@]}"; do
	sql "t$s" "VACUUM (ANALYZE) otp_tokens"
done
sql postgres CHECKPOINT
t3=$(now_ns)
rows=$((SIZES[0] + SIZES[1] + SIZES[2] - 3))
echo "setup: 3 databases (init + a real token) in $(secs "$t0" "$t1") s;" \
    "$rows filler rows by INSERT ... SELECT in $(secs "$t1" "$t2") s;" \
    "VACUUM ANALYZE + CHECKPOINT in $(secs "$t2" "$t3") s"

# The users files: filler lines as bench-users.sh writes them, the
# measured user last.  A file the store refuses for its size is no
# figure: the probe says why.
t0=$(now_ns)
for s in "${SIZES[@]}"; do
	awk -v n="$s" -v k="$HEX" 'BEGIN {
		for (i = 1; i < n; i++)
			printf "HOTP/T30\tuser%07d\t-\t%s\t0\t000000\t2026-01-01T00:00:00L\n", i, k
		printf "HOTP\tbench\t-\t%s\n", k }' >"$tmp/users.$s"
	chmod 0600 "$tmp/users.$s"
	ctr[uf$s]=1
done
t1=$(now_ns)
echo "setup: users files of ${SIZES[*]} lines by awk in $(secs "$t0" "$t1") s"

# ---- 1. one login, a process each: otp-verify -------------------------

# verify KIND SIZE CODE: the command of one login.
verify() {
	case $1 in
	pg) echo "otp-verify -q --store=$(url "$2") --user=bench --store-key=$K $3" ;;
	uf) echo "otp-verify -q --usersfile=$tmp/users.$2 --user=bench $3" ;;
	esac
}

# login KEY SIZE: one timed login of KEY's token (pg or uf) at SIZE;
# appends its wall time in microseconds to $tmp/t.KEY.SIZE.
login() {
	local rc=0 c=${CODE[${ctr[$1$2]}]} cmd t0 t1
	read -r -a cmd <<<"$(verify "$1" "$2" "$c")"
	t0=$EPOCHREALTIME
	"${cmd[@]}" >/dev/null 2>"$tmp/err" || rc=$?
	t1=$EPOCHREALTIME
	ctr[$1$2]=$((${ctr[$1$2]} + 1))
	[ "$rc" = 0 ] || failed "${cmd[*]}" "$rc" "$tmp/err"
	echo $((${t1/./} - ${t0/./})) >>"$tmp/t.$1.$2"
}

# A first login of each (not counted): a users file over the store's
# size limit is left out, saying so; any other failure fails the bench.
declare -A uf_skip
for s in "${SIZES[@]}"; do
	login pg "$s"
	rc=0
	c=${CODE[${ctr[uf$s]}]}
	otp-verify -q --usersfile="$tmp/users.$s" --user=bench "$c" \
	    >/dev/null 2>"$tmp/err" || rc=$?
	ctr[uf$s]=$((${ctr[uf$s]} + 1))
	if [ "$rc" = 2 ] && grep -q 'larger than' "$tmp/err"; then
		uf_skip[$s]="$(($(stat -c %s "$tmp/users.$s") / 1000000)) MB:"
		uf_skip[$s]+=" $(sed 's/^otp-verify: [^:]*: //' "$tmp/err" | head -n 1)"
	elif [ "$rc" != 0 ]; then
		failed "$(verify uf "$s" "$c")" "$rc" "$tmp/err"
	fi
done
rm -f "$tmp"/t.*
# One store, then the other: a users file's rewrite and fsync would
# delay the database's next COMMIT.
for kind in pg uf; do
	for ((i = 0; i < RUNS; i++)); do
		for s in "${SIZES[@]}"; do
			[ "$kind" = pg ] || [ -z "${uf_skip[$s]:-}" ] ||
			    continue
			login "$kind" "$s"
		done
	done
done

# ---- 1. logins in one process: pg-loop ---------------------------------

"${CC:-cc}" -O2 -o "$tmp/pg-loop" "$here/pg-loop.c" -lpam 2>"$tmp/err" ||
    failed "${CC:-cc} -O2 -o pg-loop pg-loop.c -lpam" $? "$tmp/err"
mkdir -m 0700 "$tmp/conf"
for s in "${SIZES[@]}"; do
	echo "auth required $OTP_SO store=$(url "$s") store_key=$K" \
	    "store_module=$PG_SO" >"$tmp/conf/pg$s"
	echo "auth required $OTP_SO usersfile=$tmp/users.$s" >"$tmp/conf/uf$s"
done
: >"$tmp/loop.pg.in"
: >"$tmp/loop.uf.in"
for ((i = 0; i < LOOP; i++)); do
	for s in "${SIZES[@]}"; do
		echo "pg$s bench ${CODE[${ctr[pg$s]}]}" >>"$tmp/loop.pg.in"
		ctr[pg$s]=$((${ctr[pg$s]} + 1))
		if [ -z "${uf_skip[$s]:-}" ] && ((i < ${UF_LOOP[$s]})); then
			echo "uf$s bench ${CODE[${ctr[uf$s]}]}" >>"$tmp/loop.uf.in"
			ctr[uf$s]=$((${ctr[uf$s]} + 1))
		fi
	done
done
: >"$tmp/loop.out"
for kind in pg uf; do
	rc=0
	"$tmp/pg-loop" "$tmp/conf" <"$tmp/loop.$kind.in" >>"$tmp/loop.out" \
	    2>"$tmp/err" || rc=$?
	[ "$rc" = 0 ] || failed "pg-loop CONFDIR < LOGINS ($kind)" "$rc" \
	    "$tmp/err"
done
# loop SERVICE FIELD: a figure of pg-loop's output.
loop() {
	awk -v s="$1" -v f="$2" '$1 == s { for (i = 2; i < NF; i++)
	    if ($i == f) print $(i + 1) }' "$tmp/loop.out"
}

# ---- 1. the table ------------------------------------------------------

# cell US: a time, or n/a.
cell() { if [ -n "$1" ]; then ms "$1"; else echo "n/a"; fi; }
# line NAME US1K US100K US1M
line() {
	printf '%-46s %10s %10s %10s %8s %8s\n' "$1" "$(cell "$2")" \
	    "$(cell "$3")" "$(cell "$4")" "$(ratio "$2" "$3")" \
	    "$(ratio "$2" "$4")"
}
med() { if [ -f "$tmp/t.$1.$2" ]; then median <"$tmp/t.$1.$2"; fi; }
echo
printf '%-46s %10s %10s %10s %8s %8s\n' "median login time" 1k 100k 1M \
    100k/1k 1M/1k
p1=$(med pg 1000) p2=$(med pg 100000) p3=$(med pg 1000000)
line "otp-verify --store=postgresql:// ($RUNS each)" "$p1" "$p2" "$p3"
line "otp-verify --usersfile ($RUNS each)" "$(med uf 1000)" \
    "$(med uf 100000)" "$(med uf 1000000)"
l1=$(loop pg1000 median_us) l2=$(loop pg100000 median_us)
l3=$(loop pg1000000 median_us)
line "pam_otp.so store=postgresql:// in pg-loop" "$l1" "$l2" "$l3"
u=()
for s in "${SIZES[@]}"; do
	u+=("$(loop "uf$s" median_us)")
done
line "pam_otp.so usersfile= in pg-loop" "${u[@]}"
echo "(pg-loop: $LOOP logins a database, users files" \
    "${UF_LOOP[1000]}/${UF_LOOP[100000]}/${UF_LOOP[1000000]}, the first" \
    "left out; its first login, a new connection:" \
    "$(ms "$(loop pg1000 first_us)"), $(ms "$(loop pg100000 first_us)")," \
    "$(ms "$(loop pg1000000 first_us)"))"
for s in "${SIZES[@]}"; do
	[ -z "${uf_skip[$s]:-}" ] ||
	    echo "(users file of $s lines: ${uf_skip[$s]}; no figure)"
done
for v in "$p1 $p3 otp-verify" "$l1 $l3 pg-loop"; do
	read -r a b n <<<"$v"
	awk -v a="$a" -v b="$b" -v n="$n" 'BEGIN {
	    printf "goal: PostgreSQL login at 1M within 1.2x of 1k (%s): " \
		"%.2fx, %s\n", n, b / a, (b / a <= 1.2 ? "holds" : "MISSED") }'
done

# ---- 2. RADIUS through rlm_pam -----------------------------------------

printf '\n== %s\n' "FreeRADIUS rlm_pam: accepts per second ($RN requests, each a user's right code; median of $ROUNDS rounds)"
if [ "$(id -u)" != 0 ]; then
	echo "skipped: needs root (a server account, /etc/pam.d services)"
	exit 0
fi
for p in freeradius freeradius-utils; do
	if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
	    grep -q 'install ok installed'; then
		echo "skipped: package $p is not installed (make deps)"
		exit 0
	fi
done
# shellcheck disable=SC1091
. "$here/../e2e/radius.bash"

# free_port: a 127.0.0.1 port nothing has open.
free_port() {
	local p
	while :; do
		p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
		ss -Hlnu "sport = :$p" | grep -q . || { echo "$p"; return; }
	done
}

R=$tmp/radius
# The state-file service, the users-file one, and the database's in the
# third slot radius.bash has (its "ga" server, here pam_otp.so store=).
RAD_PAM_SVC=$tag-otp
RAD_UPAM_SVC=$tag-uotp
RAD_GA_SVC=$tag-pg
for f in "$RAD_PAM_SVC" "$RAD_UPAM_SVC" "$RAD_GA_SVC"; do
	[ ! -e "/etc/pam.d/$f" ] || { echo "skipped: /etc/pam.d/$f exists"; exit 0; }
done
rad_tree "$R" "$OTP_BIN" "$OTP_LIBDIR"
cp "$PG_SO" "$R/bin/store-pg.so"
chmod 0644 "$R/bin/store-pg.so"
install -m 0600 -o "$RAD_ACCOUNT" -g "$RAD_ACCOUNT" "$K" "$R/store.key"
RURL=$(url 1000000)
pamd=("/etc/pam.d/$RAD_PAM_SVC" "/etc/pam.d/$RAD_UPAM_SVC" "/etc/pam.d/$RAD_GA_SVC")
rad_pam_service "$R" >"/etc/pam.d/$RAD_PAM_SVC"
rad_upam_service "$R" >"/etc/pam.d/$RAD_UPAM_SVC"
printf '%s\n' "auth required $R/bin/pam_otp.so store=$RURL store_key=$R/store.key store_module=$R/bin/store-pg.so store_timeout=3000" \
    "account required pam_permit.so" >"/etc/pam.d/$RAD_GA_SVC"
pe=$(free_port) pp=$(free_port) pg=$(free_port) pue=$(free_port) pup=$(free_port)
rad_conf "$R" "$pe" "$pp" "$pg" "$pue" "$pup"
# Part 3: the python module as a fourth virtual server, when it can run.
kinds=(pg pam upam)
if [ ! -d "$tmp/python" ]; then
	py_skip="the otputils module is not built"
elif ! dpkg-query -W -f='${Status}\n' freeradius-python3 2>/dev/null |
    grep -q 'install ok installed'; then
	py_skip="package freeradius-python3 is not installed (make deps)"
else
	py_skip=
	ppy=$(free_port)
	rad_py_tree "$R" "$OTP_LIBDIR" "$tmp/python"
	rad_py_module "$R" "$RURL" 3000
	rad_site "$R" py "$ppy" otp_python
	chown "$RAD_ACCOUNT:$RAD_ACCOUNT" "$R/mods-enabled/otp_python" \
	    "$R/sites-enabled/py"
	kinds+=(py)
fi
LD_LIBRARY_PATH=$R/lib rad_check "$R" >"$tmp/check.out" 2>&1 ||
    failed "freeradius -C" $? "$tmp/check.out"

# The users: r1..rRN, HOTP at counter 1, the same key (the server does
# the same work whatever the key): a state file each, one users file, and
# rows of the 1M database made by otp-store copy.
t0=$(now_ns)
tok=$(<"$tmp/tok")
for ((i = 1; i <= RN; i++)); do
	echo "$tok" >"$R/pam/r$i"
	printf 'HOTP\tr%d\t-\t%s\n' "$i" "$HEX"
done >"$R/upam/users.oath"
chown -R "$RAD_ACCOUNT:$RAD_ACCOUNT" "$R/pam" "$R/upam"
chmod 0400 "$R/pam"/r*
chmod 0600 "$R/upam/users.oath"
t1=$(now_ns)
seq 1 "$RN" | xargs -P 8 -I '{}' otp-store --store-key="$K" copy \
    --user='r{}' "ga:$tmp/tok" "$RURL" >/dev/null 2>"$tmp/err" ||
    failed "otp-store copy --user=rN ga:FILE URL (xargs)" $? "$tmp/err"
# The python module's users, rows of their own in the same database.
[ -n "$py_skip" ] || seq 1 "$RN" | xargs -P 8 -I '{}' otp-store \
    --store-key="$K" copy --user='p{}' "ga:$tmp/tok" "$RURL" >/dev/null \
    2>"$tmp/err" ||
    failed "otp-store copy --user=pN ga:FILE URL (xargs)" $? "$tmp/err"
t2=$(now_ns)
echo "setup: $RN users as state files and a users file in $(secs "$t0" "$t1") s;" \
    "in the 1M database by $RN otp-store copy (8 at a time) in $(secs "$t1" "$t2") s"

LD_LIBRARY_PATH=$R/lib setpriv --reuid="$RAD_ACCOUNT" --regid="$RAD_ACCOUNT" \
    --clear-groups -- "$RAD_SBIN" -f -d "$R" -n radiusd </dev/null \
    >"$tmp/server.out" 2>&1 &
server=$!
for p in "$pp" "$pg" "$pup" ${ppy:+"$ppy"}; do
	for ((i = 0; i < 200; i++)); do
		ss -Hlnu "sport = :$p" | grep -q . && break
		sleep 0.05
	done
done

# rad_run KIND PARALLEL FIRST LAST: users rFIRST..rLAST, each one's code
# at KIND's counter for this pass (rctr), PARALLEL in flight, sent by
# radload.py; the nanoseconds from its first request to its last answer
# are left in $took, and the connections the server opened to the
# database meanwhile (pg only) are added to $tmp/c.PARALLEL (c.warm for
# the warm-up).  Fails the bench unless every request was accepted.
declare -A rctr=([pg]=1 [pam]=1 [upam]=1 [py]=1)
took=0
rad_run() {
	local c=${CODE[${rctr[$1]}]} n=$(($4 - $3 + 1)) n0 acc
	# The python module's users are pN, the others' rN.
	awk -v f="$3" -v l="$4" -v c="$c" -v u="$([ "$1" = py ] && echo p || echo r)" \
	    'BEGIN { for (i = f; i <= l; i++) printf "%s%d %s\n", u, i, c }' \
	    >"$tmp/reqs"
	n0=$(conns)
	t0=$(cpu)
	python3 "$here/radload.py" 127.0.0.1 "${rport[$1]}" "$RAD_SECRET" \
	    "$2" <"$tmp/reqs" >"$tmp/rout" 2>&1 || true
	read -r _ acc _ _ _ _ _ took <"$tmp/rout" || true
	echo "$(($(cpu) - t0)) $n" >>"$tmp/cpu.$1.${5:-$2}"
	if [ "${acc:-0}" != "$n" ]; then
		{
			echo "bench: FAILED: $1, $2 in flight: ${acc:-0} of $n accepted"
			tail -n 3 "$tmp/rout" "$tmp/server.out" | sed 's/^/bench:   /'
		} >&2
		exit 1
	fi
	[ "$1" != pg ] || echo $(($(conns) - n0)) >>"$tmp/c.${5:-$2}"
}
# cpu: the server's CPU time so far (all its threads, user and system),
# in clock ticks.
cpu() {
	awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$server/stat"
}
# conns: connections the server has accepted to the RADIUS database
# (log_connections, turned on below).
conns() {
	grep -c 'connection authorized: .*database=t1000000' \
	    "${PG_DATA%/data}/server.log" || true
}
sql postgres "ALTER SYSTEM SET log_connections = on"
sql postgres "SELECT pg_reload_conf()"
rm -f "$tmp"/r.* "$tmp"/c.* "$tmp"/cpu.*
# A warm-up pass of each (not counted): the server's first login on the
# database opens the connection that the pool keeps, each user's leaves
# the row the next one starts from, and each path's first requests map
# and cache what they read.  Then the rounds: in each, a pass of every
# user on each path, one at a time and then 20 in flight.  A pass is cut
# into batches (RB users one at a time, RB20 with 20 in flight), and the
# three paths take turns batch by batch, in an order that turns batch by
# batch and round by round: what load comes and goes on the machine in a
# second falls on the three alike, and none is always the one after a
# pause or after another's burst of writes.  A path's figure for the
# round is its RN accepts over the time its batches took.
declare -A rport=([pg]=$pg [pam]=$pp [upam]=$pup [py]=${ppy:-}) ns
nk=${#kinds[@]}
for kind in "${kinds[@]}"; do
	rad_run "$kind" 1 1 "$RN" warm
	rctr[$kind]=$((${rctr[$kind]} + 1))
done
for ((k = 0; k < ROUNDS; k++)); do
	for par in 1 20; do
		b=$RB
		[ "$par" = 1 ] || b=$RB20
		ns=([pg]=0 [pam]=0 [upam]=0 [py]=0)
		for ((f = 1, j = k; f <= RN; f += b, j++)); do
			for ((m = 0; m < nk; m++)); do
				kind=${kinds[$(((m + j) % nk))]}
				rad_run "$kind" "$par" "$f" \
				    $((f + b - 1 < RN ? f + b - 1 : RN))
				ns[$kind]=$((${ns[$kind]} + took))
			done
		done
		for kind in "${kinds[@]}"; do
			rctr[$kind]=$((${rctr[$kind]} + 1))
			awk -v n="$RN" -v t="${ns[$kind]}" \
			    'BEGIN { printf "%.0f\n", n / (t / 1e9) }' \
			    >>"$tmp/r.$kind.$par"
		done
	done
done
rmed() { median <"$tmp/r.$1.$2"; }
# pmed KIND PAR: the median over the rounds of PostgreSQL's figure over
# KIND's in the same round.
pmed() { paste "$tmp/r.pg.$2" "$tmp/r.$1.$2" | awk '{ print $1 / $2 }' | median; }
printf '%-52s %14s %14s\n' "path" "1 at a time" "20 in flight"
printf '%-52s %12s/s %12s/s\n' "rlm_pam: pam_otp.so store=postgresql:// (1M rows)" \
    "$(rmed pg 1)" "$(rmed pg 20)"
printf '%-52s %12s/s %12s/s\n' "rlm_pam: pam_otp.so secret=DIR/\${USER}" \
    "$(rmed pam 1)" "$(rmed pam 20)"
printf '%-52s %12s/s %12s/s\n' "rlm_pam: pam_otp.so usersfile=FILE ($RN users)" \
    "$(rmed upam 1)" "$(rmed upam 20)"
if [ -z "$py_skip" ]; then
	printf '%-52s %12s/s %12s/s\n' "rlm_python3: otputils.Store postgresql:// (1M rows)" \
	    "$(rmed py 1)" "$(rmed py 20)"
else
	echo "(rlm_python3 left out: $py_skip)"
fi
csum() { awk '{ t += $1 } END { print t + 0 }' "$tmp/c.$1"; }
# cpums KIND PAR: the server's CPU milliseconds an accept over the rounds.
hz=$(getconf CLK_TCK)
cpums() {
	awk -v hz="$hz" '{ t += $1; n += $2 }
	    END { if (n) printf "%.2f ms", t * 1000 / hz / n }' "$tmp/cpu.$1.$2"
}
printf '%-52s %14s %14s\n' "the server's CPU time an accept" "1 at a time" \
    "20 in flight"
declare -A label=([pg]="rlm_pam: pam_otp.so store=postgresql://"
    [pam]="rlm_pam: pam_otp.so secret=DIR/\${USER}"
    [upam]="rlm_pam: pam_otp.so usersfile=FILE"
    [py]="rlm_python3: otputils.Store postgresql://")
for kind in "${kinds[@]}"; do
	printf '%-52s %14s %14s\n' "${label[$kind]}" "$(cpums "$kind" 1)" \
	    "$(cpums "$kind" 20)"
done
echo "(connections the server opened to PostgreSQL: $(csum warm) at the" \
    "warm-up, $(csum 1) in the $ROUNDS rounds one at a time, $(csum 20)" \
    "in the $ROUNDS with 20 in flight; the pool keeps them)"
# The goal holds when both say so: the medians of the rounds' figures,
# and the median of the rounds' own ratios.
for kind in pam upam; do
	for par in 1 20; do
		awk -v a="$(rmed pg "$par")" -v b="$(rmed "$kind" "$par")" \
		    -v r="$(pmed "$kind" "$par")" -v k="$kind" -v p="$par" 'BEGIN {
		    printf "goal: PostgreSQL at least %s, %s in flight: %.2fx (round by round: %.2fx), %s\n",
			k == "pam" ? "a state file per user" : "one users file",
			p, a / b, r, (a >= b && r >= 1 ? "holds" : "MISSED") }'
	done
done
# Issue 40: the python module at least 3x rlm_pam on the same store.
[ -n "$py_skip" ] || for par in 1 20; do
	awk -v a="$(rmed pg "$par")" -v b="$(rmed py "$par")" \
	    -v r="$(paste "$tmp/r.py.$par" "$tmp/r.pg.$par" |
	    awk '{ print $1 / $2 }' | median)" -v p="$par" 'BEGIN {
	    printf "goal: rlm_python3 at least 3x rlm_pam on PostgreSQL (1M rows), %s in flight: %.2fx (round by round: %.2fx), %s\n",
		p, b / a, r, (b >= 3 * a && r >= 3 ? "holds" : "MISSED") }'
done
echo "(bench-pg.sh: $SECONDS s in all)"

#!/usr/bin/env bats
# shellcheck disable=SC2154  # status and output come from bats' run
# failover-radius.bats - issue 25's failover through FreeRADIUS rlm_pam, as
# root (make check-e2e).  On 127.0.0.1 (tests/pgcluster.bash): a primary
# and a synchronous standby (pg_basebackup, synchronous_standby_names =
# '*'); two FreeRADIUS servers (tests/e2e/radius.bash, as tests/e2e/
# fleet.bats sets them up: trees of the freerad account's own holding
# copies of pam_otp.so, store-pg.so and the store key) whose PAM service,
# the example's pam.d/radius-otp-pg, names both database servers as one
# multi-host URL
#
#	postgresql://postgres@127.0.0.1:P1,127.0.0.1:P2/otp?target_session_attrs=read-write
#
# with store_timeout=1500.  radclient plays the hosts.  In order, on the
# same pair and the same two server processes throughout:
#
# - a code accepted through the primary, refused again by either server;
# - the standby lost under synchronous commit: each login (one at a time
#   and several at once) refused with an Access-Reject within the
#   deadline + 1 s, not hung; the reason logged; the standby back: served;
# - the primary killed (pg_ctl -m immediate): logins refused within the
#   deadline + 1 s while no server can write; the standby promoted: the
#   code accepted before the crash refused by both servers (0 replays,
#   each refusal "code already used"), the next code accepted at once by
#   each;
# - the servers never restarted (the same PIDs); their log lines name the
#   user and the reason and hold no code, no token key and no store key.
#
# Codes: TOTP (the store forces DISALLOW_REUSE) with the real clock, a
# window of 17 steps (+-4 minutes), code k of a user being the code of
# step BASE + k (BASE fixed when the suite starts), so that "the same
# code" and "the next code" do not depend on when a step ends.

bats_require_minimum_version 1.5.0

DEADLINE_MS=1500
LIMIT_MS=$((DEADLINE_MS + 1000))	# issue 25: the deadline plus a second
KEY_A=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP
KEY_SB=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ
KEY_FO=MFRGGZDFMZTWQ2LKNNWG23TPOBYXE43U

setup_file() {
	load ../common
	load lib
	load radius
	load ../pgcluster
	local reason i r p svc
	e2e_setup_file freeradius freeradius-utils
	reason=$(pg_cluster_available) || skip "e2e: $reason"
	OTP_STORE_MODULE=$OTP_LIBDIR/otp-utils/store-pg.so
	[[ -f $OTP_STORE_MODULE ]] || fail "$OTP_STORE_MODULE not built"
	export OTP_STORE_MODULE
	# The pair: frp the primary, frs its synchronous standby.
	pg_cluster_start "$E2E_DIR" frp || fail "no primary"
	pg_standby_start frp frs || fail "no standby"
	pg_sync_on frp || fail "no synchronous standby"
	PG1=$(pg_cluster_port frp)
	PG2=$(pg_cluster_port frs)
	e2e_note port "$PG1"
	e2e_note port "$PG2"
	URL="postgresql://postgres@127.0.0.1:$PG1,127.0.0.1:$PG2/otp?target_session_attrs=read-write"
	K=$E2E_DIR/store.key
	run otp-store --store-key="$K" init "$URL"
	[[ $status == 0 ]] || fail "otp-store init: $output"
	R1=$E2E_DIR/radius1
	R2=$E2E_DIR/radius2
	P1=$(e2e_port)
	P2=$(e2e_port)
	SVC1=$E2E_TAG-fo1
	SVC2=$E2E_TAG-fo2
	CODES=$E2E_DIR/codes
	: >"$CODES"
	# Code k of a user: the code of step BASE + k.
	BASE=$(($(date +%s) / 30))
	export PG1 PG2 URL K R1 R2 P1 P2 SVC1 SVC2 CODES BASE
	for i in 1 2; do
		r=R$i p=P$i svc=SVC$i
		rad_pg_server "$i" "${!r}" "${!p}" "${!svc}" "$URL" "$K" \
		    "$DEADLINE_MS" || fail "server $i could not start"
	done
	e2e_wait_port "$P1"
	e2e_wait_port "$P2"
	# The servers' first PIDs: not one is restarted.
	RAD_PIDS="$(e2e_daemon_pid radius1) $(e2e_daemon_pid radius2)"
	export RAD_PIDS
}

teardown_file() {
	load ../common
	load lib
	load ../pgcluster
	# Before the ledger's clean-up: it checks that the ports are closed.
	pg_cluster_stop fast
	e2e_teardown_file
}

setup() {
	load ../common
	load lib
	load radius
	load ../pgcluster
	[[ -n ${E2E_DIR:-} ]] || skip "e2e: suite not set up"
}

teardown() {
	# The standby back should a test end without it (a no-op once it
	# runs, promoted or not), so that the next tests can write.
	rad_db_start frs || true
}

# need_syslog: skip a check of pam_otp.so's log lines where the servers
# could not get a /dev/log of ours (no mount namespace).
need_syslog() {
	rad_can_unshare ||
	    skip "no mount namespace here: pam_otp.so's log lines are not read back"
}

# say TEXT: a line in bats' report (the measurements).
say() {
	printf '# %s\n' "$*" >&3
}

# sql PORT SQL: one answer from the server on PORT.
sql() {
	psql -X -A -t -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$1" -U postgres \
	    -d otp -c "$2"
}

# token USER KEY: USER's TOTP token in the store (window 17 steps).
token() {
	printf '%s\n' "$2" '" TOTP_AUTH' '" WINDOW_SIZE 17' >"$E2E_DIR/tok-$1"
	chmod 0400 "$E2E_DIR/tok-$1"
	run -0 otp-store --store-key="$K" copy --user="$1" \
	    "ga:$E2E_DIR/tok-$1" "$URL"
}

# code KEY K: the code of step BASE + K (written down in CODES: no log
# may hold it).
code() {
	otp-gen --totp -b -N "@$(((BASE + $2) * 30))" "$1" | tee -a "$CODES"
}

# uses USER: the accepts the store counted for USER.
uses() {
	otp-store --store-key="$K" list "$URL" |
	    awk -F '\t' -v u="$1" '$1 == u { sub(/^uses=/, "", $5); print $5 }'
}

# auth PORT USER CODE: rad_auth (radclient, one try, 10 s), its elapsed
# time in MS.
auth() {
	local t0
	t0=${EPOCHREALTIME/./}
	run rad_auth "$@"
	MS=$(((${EPOCHREALTIME/./} - t0) / 1000))
}

accepted() {
	[[ $status == 0 && $output == *'Received Access-Accept'* ]] ||
	    fail "not accepted (status $status): $output"
}

# refused_in_time: an Access-Reject (not an accept, not a timeout) within
# the deadline + 1 s.
refused_in_time() {
	[[ $output != *'Received Access-Accept'* ]] || fail "accepted: $output"
	[[ $output == *'Received Access-Reject'* ]] ||
	    fail "no Access-Reject after $MS ms (status $status): $output"
	((MS <= LIMIT_MS)) || fail "refused after $MS ms (> $LIMIT_MS)"
}

# burst OUTDIR USER CODE N PORT...: N requests at once to each PORT, one
# radclient process a port sending them in parallel (-p: N processes a
# port would measure their own start-up on a busy machine); sets OK, NO,
# LOST (no answer) and MAX, the slower process's milliseconds.
burst() {
	local out=$1 user=$2 code=$3 n=$4 i p ms
	shift 4
	mkdir -p "$out"
	for ((i = 0; i < n; i++)); do
		printf 'User-Name = "%s"\nUser-Password = "%s"\n\n' "$user" "$code"
	done >"$out/packets"
	for p in "$@"; do
		(
			t0=${EPOCHREALTIME/./}
			radclient -x -r 1 -t 10 -p "$n" -f "$out/packets" \
			    "127.0.0.1:$p" auth "$RAD_SECRET" >"$out/$p.log" 2>&1 ||
			    true	# 1: a refusal among the answers
			echo "$(((${EPOCHREALTIME/./} - t0) / 1000))" >"$out/$p.ms"
		) &
	done
	wait
	OK=$(cat "$out"/*.log | grep -c '^Received Access-Accept' || true)
	NO=$(cat "$out"/*.log | grep -c '^Received Access-Reject' || true)
	LOST=$((n * $# - OK - NO))
	MAX=0
	for p in "$@"; do
		ms=$(<"$out/$p.ms")
		((ms <= MAX)) || MAX=$ms
	done
}

# tally WHAT: say what burst counted.
tally() {
	say "$1: $OK accepted, $NO refused, $LOST no answer, $MAX ms"
}

# syslog_count TEXT: lines holding TEXT in both servers' syslogs.
syslog_count() {
	cat "$R1/log/syslog" "$R2/log/syslog" 2>/dev/null | grep -cF -- "$1"
}

# sync_standbys: the primary's synchronous standbys streaming now.
sync_standbys() {
	sql "$PG1" "SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'"
}

@test "both servers run pam.d/radius-otp-pg with the multi-host URL and a 1500 ms deadline, nothing from the checkout; the standby is synchronous" {
	local f
	for f in "$R1/pam.svc" "$R2/pam.svc"; do
		run grep -c -F -e "store=$URL " -e "store_timeout=$DEADLINE_MS " "$f"
		assert_output 1
		run grep -F "store=$URL " "$f"
		assert_output --partial "store_timeout=$DEADLINE_MS "
	done
	run grep -rlF "$(cd "$BATS_TEST_DIRNAME/../.." && pwd -P)/" \
	    "$R1/pam.svc" "$R2/pam.svc" "$R1/radiusd.conf" "$R2/radiusd.conf" \
	    "$R1/mods-enabled" "$R2/mods-enabled" "$R1/sites-enabled" \
	    "$R2/sites-enabled"
	assert_failure 1
	run stat -c '%U %a' "$R1/store.key" "$R2/store.key"
	assert_output "$RAD_ACCOUNT 600
$RAD_ACCOUNT 600"
	run sync_standbys
	assert_output 1
	run sql "$PG2" 'SELECT pg_is_in_recovery()'
	assert_output t
}

@test "a code accepted through the primary is refused again by either server" {
	local c
	token alice "$KEY_A"
	c=$(code "$KEY_A" 0)
	auth "$P1" alice "$c"
	accepted
	auth "$P2" alice "$c"
	refused_in_time
	auth "$P1" alice "$c"
	refused_in_time
	auth "$P2" alice "$(code "$KEY_A" 1)"
	accepted
	[ "$(uses alice)" = 2 ]
	need_syslog
	[ "$(syslog_count 'invalid verification code for "alice": code already used')" -eq 2 ]
}

@test "the standby lost under synchronous commit: every login an Access-Reject within the deadline, not hung, logged; the standby back: served" {
	local c i p t=$BATS_TEST_TMPDIR/sb times=() s well n
	token sb "$KEY_SB"
	# Both servers hold connections to the primary.
	auth "$P1" sb "$(code "$KEY_SB" 0)"
	accepted
	auth "$P2" sb "$(code "$KEY_SB" 1)"
	accepted
	# The clients' own time, the database well: 3 wrong codes at once
	# on each server.
	burst "$t/well" sb 000000 3 "$P1" "$P2"
	tally "database well, 3 wrong codes at once on each server"
	((NO == 6)) || fail "database well: $NO refused of 6"
	well=$MAX
	# 5 of them, on either server, lock the token (deny=5), counted in
	# its row: the administrator clears it.
	otp-store --store-key="$K" list "$URL" | grep -q $'^sb\t.*\tfails=5\tlocked=2' ||
	    fail "6 wrong codes on two servers did not lock sb"
	run -0 otp-store --store-key="$K" unlock "$URL" sb
	rad_db_stop frs immediate || fail "cannot stop the standby"
	# Each a new code: the commit waits for the standby for ever, the
	# store cancels it at the deadline (its outcome unknown: refused).
	i=2
	for p in "$P1" "$P2" "$P1"; do
		auth "$p" sb "$(code "$KEY_SB" "$i")"
		refused_in_time
		times+=("$MS")
		i=$((i + 1))
	done
	# 6 at once on both with one code: every one answered, refused.
	c=$(code "$KEY_SB" "$i")
	burst "$t/lost" sb "$c" 3 "$P1" "$P2"
	tally "standby lost, one code 3 times at once on each server"
	say "standby lost: refused in ${times[*]} ms one at a time; 6 at once in $MAX ms, $well ms with the database well (deadline $DEADLINE_MS ms)"
	((OK == 0)) || fail "$OK accepted without the synchronous standby"
	((LOST == 0)) || fail "$LOST requests not answered"
	((NO == 6))
	((MAX - well <= LIMIT_MS)) ||
	    fail "6 at once refused after $MAX ms ($well ms well; > $LIMIT_MS)"
	# The refusals were the deadline's: no faster than it.
	((times[0] >= DEADLINE_MS - 100)) ||
	    fail "refused in ${times[0]} ms, before the commit's deadline"

	# The standby back: the primary writes again, each server serves.
	rad_db_start frs || fail "cannot start the standby again"
	for ((s = 0; s < 300; s++)); do
		[[ $(sync_standbys) == 1 ]] && break
		sleep 0.1
	done
	[[ $(sync_standbys) == 1 ]] || fail "the standby is not synchronous again"
	i=$((i + 1))
	c=$(code "$KEY_SB" "$i")
	auth "$P2" sb "$c"
	accepted
	auth "$P1" sb "$c"
	refused_in_time
	auth "$P1" sb "$(code "$KEY_SB" $((i + 1)))"
	accepted
	need_syslog
	# An error's line: "URL" for "sb": REASON; login refused.
	run grep -hE '"sb"[:;].*refused' "$R1/log/syslog" "$R2/log/syslog"
	assert_line --partial "outcome is unknown"
	say "logged: ${lines[0]#*pam_otp}"
	grep -qE '"sb"[:;].*refused' "$R1/log/syslog"
	grep -qE '"sb"[:;].*refused' "$R2/log/syslog"
	# Each refusal logged with its reason: the 6 wrong codes; the 9
	# requests of the outage, each the deadline's (the 3 one at a time
	# and one at least of those at once) or, for those at once that
	# waited for the row, the code already used (committed on the
	# primary alone: its outcome unknown, refused); the code used again
	# once the standby was back.
	n=$(syslog_count 'invalid verification code for "sb": code already used')
	say "standby lost: refusals logged: ${#lines[@]} with the deadline's reason, $n with \"code already used\" (9 + 1 sent)"
	((${#lines[@]} >= 4 && ${#lines[@]} + n == 10)) ||
	    fail "refusals logged: ${#lines[@]} + $n, not 10: $(grep -hF '"sb"' "$R1/log/syslog" "$R2/log/syslog")"
	# 5 wrong codes lock the token (deny=5): the sixth is refused as
	# locked out.
	[ "$(syslog_count 'invalid verification code for "sb": wrong code')" -eq 5 ]
	[ "$(syslog_count 'invalid verification code for "sb": locked out')" -eq 1 ]
	[ "$(syslog_count 'accepted verification code for "sb"')" -eq 4 ]
}

@test "the primary killed: refused within the deadline while no server can write; promoted: the same code refused by both (0 replays), the next accepted at once" {
	local c0 c1 c2 p replays=0 times=() t=$BATS_TEST_TMPDIR/fo n
	token fo "$KEY_FO"
	c0=$(code "$KEY_FO" 0)
	c1=$(code "$KEY_FO" 1)
	c2=$(code "$KEY_FO" 2)
	# Accepted through the primary: acknowledged, so on the standby too.
	auth "$P1" fo "$c0"
	accepted
	run sql "$PG2" "SELECT uses FROM otp_tokens WHERE login = 'fo'::bytea"
	assert_output 1

	# The primary crashes; the standby is read-only: no server can write.
	rad_db_stop frp immediate || fail "cannot stop the primary"
	for p in "$P1" "$P2" "$P1" "$P2"; do
		auth "$p" fo "$c1"
		refused_in_time
		times+=("$MS")
	done
	auth "$P2" fo "$c0"
	refused_in_time
	times+=("$MS")
	burst "$t/down" fo "$c1" 3 "$P1" "$P2"
	tally "primary down, one code 3 times at once on each server"
	say "primary down: refused in ${times[*]} ms one at a time; 6 at once in $MAX ms (deadline $DEADLINE_MS ms)"
	((OK == 0 && LOST == 0 && NO == 6)) ||
	    fail "primary down: $OK accepted, $LOST not answered"
	((MAX <= LIMIT_MS)) || fail "a refusal after $MAX ms (> $LIMIT_MS)"

	# Promoted: the first logins after it, on both servers, are the
	# code accepted before the crash; not one is accepted.
	pg_promote frs || fail "promotion failed"
	for p in "$P1" "$P2" "$P1" "$P2"; do
		auth "$p" fo "$c0"
		[[ $output != *'Received Access-Accept'* ]] ||
		    replays=$((replays + 1))
		[[ $output == *'Received Access-Reject'* ]] ||
		    fail "no answer after promotion: $output"
	done
	burst "$t/replay" fo "$c0" 4 "$P1" "$P2"
	tally "promoted, the used code 4 times at once on each server"
	replays=$((replays + OK))
	say "replays after the failover: $replays"
	((replays == 0)) || fail "$replays replays after the failover"
	((NO == 8)) || fail "$LOST not answered"
	# The next codes: accepted at once, by each server.
	auth "$P2" fo "$c1"
	accepted
	auth "$P1" fo "$c1"
	refused_in_time
	auth "$P1" fo "$c2"
	accepted
	[ "$(uses fo)" = 3 ]
	need_syslog
	# The reasons: no server to write to while down (before the prompt,
	# or after it when the server started from the row it kept); after
	# promotion, each refusal the used code, not a database error from a
	# dead pooled connection.
	run grep -hE 'login of "fo" refused: |for "fo": .*; login refused$' \
	    "$R1/log/syslog" "$R2/log/syslog"
	assert_line --partial 'database error'
	say "logged: ${lines[0]#*pam_otp}"
	((${#lines[@]} >= 11)) || fail "${#lines[@]} refusals logged of 11"
	n=$(syslog_count 'invalid verification code for "fo": code already used')
	say "refusals logged as \"code already used\" after promotion: $n (13 sent)"
	((n == 13)) || fail "$n refusals for the used code of 13: $(grep -hF '"fo"' "$R1/log/syslog" "$R2/log/syslog" | tail -n 20)"
	[ "$(syslog_count 'accepted verification code for "fo"')" -eq 3 ]
}

@test "the servers were not restarted, keep connections to the new primary; no log holds a code or a key" {
	local p s codes
	for p in $RAD_PIDS; do
		e2e_alive "$p" || fail "server $p is gone"
	done
	[[ "$(e2e_daemon_pid radius1) $(e2e_daemon_pid radius2)" == "$RAD_PIDS" ]]
	run sql "$PG2" "SELECT count(*) FROM pg_stat_activity WHERE datname = 'otp'
	    AND backend_type = 'client backend' AND pid <> pg_backend_pid()"
	say "connections the servers keep on the new primary: $output"
	((output >= 2 && output <= 64))
	# Nothing secret in any log: not a code sent, a token's key or the
	# store key.
	mapfile -t codes < <(sort -u "$CODES")
	((${#codes[@]} >= 10)) || fail "only ${#codes[@]} codes written down"
	for s in "${codes[@]}" "$KEY_A" "$KEY_SB" "$KEY_FO" "$(cat "$K")"; do
		run grep -rlF -e "$s" "$R1/log" "$R2/log"
		assert_failure 1
	done
	need_syslog
	# Each log line of a refusal names the user and says why.
	run grep -hE 'refused|invalid verification code' "$R1/log/syslog" \
	    "$R2/log/syslog"
	refute_line --regexp 'login of "[^"]+" refused: *$'
	refute_line --regexp 'invalid verification code for "[^"]+": *$'
}

@test "the servers and the database stop; nothing is left behind" {
	e2e_daemon_stop radius1
	e2e_daemon_stop radius2
	pg_cluster_stop fast
	e2e_cleanup
	e2e_check_clean
	[[ ! -e /etc/pam.d/$SVC1 && ! -e /etc/pam.d/$SVC2 ]]
}

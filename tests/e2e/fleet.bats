#!/usr/bin/env bats
# A fleet (issue 24): two FreeRADIUS servers, each running pam_otp.so
# store=postgresql://... in rlm_pam, share one database (root; make
# check-e2e).
#
# A throwaway PostgreSQL cluster (tests/pgcluster.bash) runs as the
# postgres account on 127.0.0.1; the store is made by otp-store init and
# the tokens by otp-keygen --store and otp-store copy, as root, with a key
# of root's.  Each server is a tree of its own (tests/e2e/radius.bash),
# owned by the freerad account that runs it: copies of pam_otp.so,
# store-pg.so and the store key (the checkout may be closed to that
# account), a configuration made from examples/freeradius and an
# /etc/pam.d service made from its pam.d/radius-otp-pg.  radclient plays
# the hosts; one host runs pam_radius_auth.so naming both servers.  What
# is checked: a code is accepted once by the fleet, not once per server;
# 20 requests at once on both, one accept; RATE_LIMIT counted across
# both; the database too slow (a row locked), frozen (SIGSTOP) and down
# (each refused within the deadline, logged with the user and the
# reason, nothing secret), and back (served again, the servers not
# restarted).  The last test checks that nothing is left.

bats_require_minimum_version 1.5.0

setup_file() {
	load ../common
	load lib
	load radius
	load ../pgcluster
	local reason i r p svc
	e2e_setup_file freeradius freeradius-utils libpam-radius-auth pamtester
	reason=$(pg_cluster_available) || skip "e2e: $reason"
	OTP_STORE_MODULE=$OTP_LIBDIR/otp-utils/store-pg.so
	[[ -f $OTP_STORE_MODULE ]] || fail "$OTP_STORE_MODULE not built"
	export OTP_STORE_MODULE
	pg_cluster_start "$E2E_DIR" fleet || fail "no PostgreSQL cluster"
	e2e_note port "$PGPORT"
	URL=$PG_URL
	K=$E2E_DIR/store.key
	run otp-store --store-key="$K" init "$URL"
	[[ $status == 0 ]] || fail "otp-store init: $output"
	R1=$E2E_DIR/radius1
	R2=$E2E_DIR/radius2
	P1=$(e2e_port)
	P2=$(e2e_port)
	SVC1=$E2E_TAG-pg1
	SVC2=$E2E_TAG-pg2
	HOST_SVC=$E2E_TAG-fhost
	# A deadline of 1.5 s a login (store_timeout).
	DEADLINE=1500
	export URL K R1 R2 P1 P2 SVC1 SVC2 HOST_SVC DEADLINE
	for i in 1 2; do
		r=R$i p=P$i svc=SVC$i
		rad_pg_server "$i" "${!r}" "${!p}" "${!svc}" "$URL" "$K" \
		    "$DEADLINE" || fail "server $i could not start"
	done
	e2e_wait_port "$P1"
	e2e_wait_port "$P2"
	# The host: pam_radius_auth asks the first server, the second when
	# the first does not answer.
	printf '127.0.0.1:%s %s 2\n' "$P1" "$RAD_SECRET" "$P2" "$RAD_SECRET" \
	    >"$E2E_DIR/host.conf"
	chmod 0600 "$E2E_DIR/host.conf"
	printf 'auth required pam_radius_auth.so conf=%s\naccount required pam_permit.so\n' \
	    "$E2E_DIR/host.conf" | e2e_pam_service "$HOST_SVC"
	# The servers' first PIDs: not one is restarted.
	RAD_PIDS="$(e2e_daemon_pid radius1) $(e2e_daemon_pid radius2)"
	export RAD_PIDS
}

teardown_file() {
	load ../common
	load lib
	load ../pgcluster
	# Before the ledger's clean-up: it checks that the port is closed.
	pg_cluster_stop fast
	e2e_teardown_file
}

setup() {
	load ../common
	load lib
	load radius
	load ../pgcluster
	FROZEN=
}

teardown() {
	thaw_db
}

# need_syslog: skip a check of pam_otp.so's log lines where the servers
# could not get a /dev/log of ours (no mount namespace).
need_syslog() {
	rad_can_unshare ||
	    skip "no mount namespace here: pam_otp.so's log lines are not read back"
}

scratch() {
	sed -n "${2:-1}p" "$BATS_TEST_TMPDIR/$1.scratch"
}

# uses NAME: the accepts the store counted for NAME (otp-store list).
uses() {
	otp-store --store-key="$K" list "$URL" |
	    awk -F '\t' -v u="$1" '$1 == u { sub(/^uses=/, "", $5); print $5 }'
}

# syslog_count TEXT: lines holding TEXT in both servers' syslogs.
syslog_count() {
	cat "$R1/log/syslog" "$R2/log/syslog" 2>/dev/null | grep -cF -- "$1"
}

# tally DIR WHAT: count rad_fleet_burst's answers in DIR into OK, NO
# and LOST (no answer), and say so (WHAT: ...) on bats' fd 3.
tally() {
	local f r _
	OK=0 NO=0 LOST=0
	for f in "$1"/*; do
		read -r r _ <"$f"
		case $r in
		0) OK=$((OK + 1)) ;;
		1) NO=$((NO + 1)) ;;
		*) LOST=$((LOST + 1)) ;;
		esac
	done
	echo "$2: $OK accepted, $NO refused, $LOST no answer" >&3
}

# hold_row USER: another session holds USER's row for 4 s (SELECT ...
# FOR UPDATE, then pg_sleep); run it in the background.
hold_row() {
	psql -X -q -h 127.0.0.1 -p "$PGPORT" -U postgres -d otp -c \
	    "BEGIN; SELECT 1 FROM otp_tokens WHERE login = '$1'::bytea FOR UPDATE; SELECT pg_sleep(4); COMMIT" \
	    >/dev/null 2>&1
}

# timed_auth PORT USER CODE: rad_auth, its elapsed time in MS.
timed_auth() {
	local t0
	t0=$(rad_ms)
	run rad_auth "$@"
	MS=$(($(rad_ms) - t0))
}

@test "both servers run the example's pam.d/radius-otp-pg with only the store's URL, key, deadline and paths changed" {
	local f
	for f in "$R1/pam.svc" "$R2/pam.svc"; do
		run diff "$RAD_EXAMPLE/pam.d/radius-otp-pg" "$f"
		assert_failure 1
		run bash -c "diff '$RAD_EXAMPLE/pam.d/radius-otp-pg' '$f' |
		    grep -c '^>'"
		assert_output 1
	done
	# Nothing the servers' account runs or reads is in the checkout.
	run grep -rlF "$(cd "$BATS_TEST_DIRNAME/../.." && pwd -P)/" \
	    "$R1/pam.svc" "$R2/pam.svc" "$R1/radiusd.conf" "$R2/radiusd.conf" \
	    "$R1/mods-enabled" "$R2/mods-enabled" "$R1/sites-enabled" \
	    "$R2/sites-enabled"
	assert_failure 1
	run stat -c '%U %a' "$R1/store.key" "$R2/store.key"
	assert_output "$RAD_ACCOUNT 600
$RAD_ACCOUNT 600"
}

@test "a code accepted by one server is refused by the other; scratch codes once in the fleet" {
	local c
	rad_new_user alice
	c=$(rad_code "$KEY")
	run rad_auth "$P1" alice "$c"
	assert_success
	assert_line --index 0 --partial 'Access-Accept'
	run rad_auth "$P2" alice "$c"
	assert_failure 1
	assert_line --index 0 --partial 'Access-Reject'
	run rad_auth "$P1" alice "$c"
	assert_failure 1
	# The next step's code is taken by the second server ...
	run rad_auth "$P2" alice "$(rad_code "$KEY" 30)"
	assert_success
	# ... and the current one is behind it now, on either.
	run rad_auth "$P1" alice "$(rad_code "$KEY")"
	assert_failure 1
	run rad_auth "$P2" alice "$(scratch alice 2)"
	assert_success
	run rad_auth "$P1" alice "$(scratch alice 2)"
	assert_failure 1
	run rad_auth "$P1" alice "$(scratch alice 3)"
	assert_success
	run rad_auth "$P2" alice "$(scratch alice 3)"
	assert_failure 1
	[ "$(uses alice)" = 4 ]
	run rad_auth "$P2" alice-nobody "$c"
	assert_failure 1
	need_syslog
	run grep -F '"alice"' "$R2/log/syslog"
	assert_line --partial 'invalid verification code for "alice": code already used'
	assert_line --partial 'accepted verification code for "alice"'
	assert_line --partial 'accepted emergency scratch code for "alice"'
}

@test "20 requests with one code spread over both servers at once: exactly one accept" {
	local t=$BATS_TEST_TMPDIR/burst
	rad_new_user burst
	rad_fleet_burst "$t" burst "$(rad_code "$KEY")" 20 "$P1" "$P2"
	tally "$t" "one code, 20 requests on 2 servers"
	[ "$OK" -eq 1 ]
	[ "$NO" -eq 19 ]
	[ "$(grep -lw "$P1" "$t"/* | wc -l)" -eq 10 ]
	[ "$(uses burst)" = 1 ]
	# The servers keep connections for the next logins, a bounded few.
	run rad_server_conns
	echo "connections the servers keep after it: $output" >&3
	((output >= 2 && output <= 32))
	need_syslog
	[ "$(syslog_count 'accepted verification code for "burst"')" -eq 1 ]
	[ "$(syslog_count 'invalid verification code for "burst": code already used')" -eq 19 ]
	# Each server refused some.
	grep -qF 'for "burst": code already used' "$R1/log/syslog"
	grep -qF 'for "burst": code already used' "$R2/log/syslog"
}

@test "two users at once on the two servers, then 20 users at once: all accepted" {
	local t=$BATS_TEST_TMPDIR i ok=0 f
	rad_new_user two-a
	KEY_A=$KEY
	rad_new_user two-b
	KEY_B=$KEY
	rad_fleet_burst "$t/a" two-a "$(rad_code "$KEY_A")" 1 "$P1" &
	rad_fleet_burst "$t/b" two-b "$(rad_code "$KEY_B")" 1 "$P2" &
	wait
	[ "$(cut -d' ' -f1 "$t/a/1")" = 0 ]
	[ "$(cut -d' ' -f1 "$t/b/1")" = 0 ]
	for i in $(seq 20); do
		otp-keygen --store="$URL" --user="many-$i" --store-key="$K" \
		    >"$t/key.$i" 2>/dev/null || fail "otp-keygen many-$i"
	done
	e2e_fresh_step 8
	for i in $(seq 20); do
		rad_code "$(cat "$t/key.$i")" >"$t/code.$i"
	done
	for i in $(seq 20); do
		rad_fleet_burst "$t/m$i" "many-$i" "$(cat "$t/code.$i")" 1 \
		    "$((i % 2 ? P1 : P2))" &
	done
	wait
	for f in "$t"/m*/1; do
		[ "$(cut -d' ' -f1 "$f")" = 0 ] && ok=$((ok + 1))
	done
	echo "20 users at once on 2 servers: $ok accepted" >&3
	[ "$ok" -eq 20 ]
	# Each row recorded its step: the codes are refused by the other
	# server now.
	for i in 1 7 20; do
		run rad_auth "$((i % 2 ? P2 : P1))" "many-$i" "$(cat "$t/code.$i")"
		assert_failure 1
	done
}

@test "one server runs logins at once in its rlm_pam instances: a login held by the database holds up no other" {
	local t=$BATS_TEST_TMPDIR i ch before=0 n
	for i in $(seq 8); do
		otp-keygen --store="$URL" --user="free-$i" --store-key="$K" \
		    >"$t/key.$i" 2>/dev/null || fail "otp-keygen free-$i"
	done
	rad_new_user held
	ch=$(rad_code "$KEY")
	for i in $(seq 8); do
		rad_code "$(cat "$t/key.$i")" >"$t/code.$i"
	done
	# Another session holds held's row for 4 s: held's login on server
	# 1 waits in its instance until the deadline.
	hold_row held 3>&- &
	sleep 0.5
	rad_fleet_burst "$t/held" held "$ch" 1 "$P1" 3>&- &
	sleep 0.2
	# Eight other users meanwhile, on the same server: the instances
	# that held's login does not occupy answer them (one instance, the
	# example's before, took one login at a time: all eight waited for
	# held's deadline).  Each picks an instance at random; all eight
	# on held's has a chance of 4^-8.
	for i in $(seq 8); do
		rad_fleet_burst "$t/f$i" "free-$i" "$(cat "$t/code.$i")" 1 \
		    "$P1" 3>&- &
	done
	for ((n = 0; n < 100; n++)); do
		[ ! -e "$t/held/1" ] || break
		before=$(compgen -G "$t/f*/1" | wc -l)
		sleep 0.05
	done
	wait
	echo "8 users at once on server 1 while a login there waits for a held row: $before answered before it" >&3
	[ "$(cut -d' ' -f1 "$t/held/1")" = 1 ]
	((before >= 1))
	for i in $(seq 8); do
		[ "$(cut -d' ' -f1 "$t/f$i/1")" = 0 ] || fail "free-$i was not accepted"
	done
}

@test "RATE_LIMIT 3 per 30 s counts the tries on both servers" {
	local t=$BATS_TEST_TMPDIR key=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP
	# A token from a state file, with its rules.
	printf '%s\n' "$key" '" TOTP_AUTH' '" RATE_LIMIT 3 30' \
	    '" WINDOW_SIZE 3' >"$t/ga"
	chmod 0400 "$t/ga"
	run otp-store --store-key="$K" copy --user=rl "ga:$t/ga" "$URL"
	assert_success
	run otp-store --store-key="$K" copy --user=rl-burst "ga:$t/ga" "$URL"
	assert_success
	e2e_fresh_step 8
	# Two wrong codes, one on each server; the third try, the right
	# code, is taken; the fourth is one too many, even right.
	run rad_auth "$P1" rl 000000
	assert_failure 1
	run rad_auth "$P2" rl 000001
	assert_failure 1
	run rad_auth "$P1" rl "$(rad_code "$key")"
	assert_success
	run rad_auth "$P2" rl "$(rad_code "$key" 30)"
	assert_failure 1
	run rad_auth "$P1" rl "$(rad_code "$key" 30)"
	assert_failure 1
	# 10 requests at once with the right code, on both: three are
	# checked (one accept, two reused), seven are not.
	rad_fleet_burst "$t/b" rl-burst "$(rad_code "$key")" 10 "$P1" "$P2"
	tally "$t/b" "RATE_LIMIT 3 30, 10 requests on 2 servers"
	[ "$OK" -eq 1 ]
	[ "$NO" -eq 9 ]
	need_syslog
	grep -F 'for "rl": too many attempts (RATE_LIMIT)' "$R2/log/syslog"
	grep -F 'for "rl": too many attempts (RATE_LIMIT)' "$R1/log/syslog"
	[ "$(syslog_count 'for "rl": too many attempts')" -eq 2 ]
	[ "$(syslog_count 'for "rl-burst": too many attempts')" -eq 7 ]
	[ "$(syslog_count 'for "rl-burst": code already used')" -eq 2 ]
	[ "$(syslog_count 'accepted verification code for "rl-burst"')" -eq 1 ]
}

@test "a row locked too long (a slow database): refused at the deadline, then served" {
	local c lock base
	rad_new_user slow
	c=$(rad_code "$KEY")
	# A refusal's time with the database well (the clients' own), the
	# shorter of two.
	timed_auth "$P1" slow 000000
	assert_failure 1
	base=$MS
	timed_auth "$P1" slow 000001
	assert_failure 1
	((MS > base)) || base=$MS
	# Another session holds the row for 4 s.
	hold_row slow 3>&- &
	lock=$!
	sleep 0.5
	timed_auth "$P1" slow "$c"
	echo "row locked: refused in $MS ms (deadline $DEADLINE ms; $base ms unlocked)" >&3
	assert_failure 1
	assert_output --partial 'Received Access-Reject'
	((MS - base >= DEADLINE - 100 && MS - base < DEADLINE + 1000))
	wait "$lock"
	# The refusal recorded nothing: the code is taken now.
	run rad_auth "$P2" slow "$c"
	assert_success
	need_syslog
	run grep -F '"slow"' "$R1/log/syslog"
	assert_output --partial 'deadline passed'
	refute_output --partial "$c"
}

# The database frozen (every process of the cluster stopped by SIGSTOP,
# as a partition or a hung host would leave it): the servers' open
# connections and new ones alike get no answer.
freeze_db() {
	local pm
	pm=$(head -n 1 "$(pg_cluster_data fleet)/postmaster.pid") || return 1
	FROZEN="$pm $(pgrep -P "$pm" | tr '\n' ' ')"
	# shellcheck disable=SC2086  # a list of PIDs
	kill -STOP $FROZEN
}

thaw_db() {
	# shellcheck disable=SC2086  # a list of PIDs
	[[ -z ${FROZEN:-} ]] || kill -CONT $FROZEN 2>/dev/null || true
	FROZEN=
}

@test "the database frozen: refused by both within the deadline, logged; thawed, served" {
	local c base p
	rad_new_user frozen
	# Both servers hold open connections; a refusal's time with the
	# database well.  A user without a token: a wrong code of frozen's
	# would be written (its count), and a server that kept that row
	# would send its next login's write at once, to run when the
	# database thaws (an outcome unknown, the code perhaps used).
	run rad_auth "$P1" frozen-nobody 000000
	run rad_auth "$P2" frozen-nobody 000000
	timed_auth "$P1" frozen-nobody 000001
	base=$MS
	c=$(rad_code "$KEY")
	freeze_db
	for p in "$P1" "$P2" "$P1"; do
		timed_auth "$p" frozen "$c"
		echo "database frozen: refused in $MS ms (deadline $DEADLINE ms; $base ms well)" >&3
		assert_failure 1
		assert_output --partial 'Received Access-Reject'
		# The deadline, and half a second for a cancel request that
		# gets no answer either.
		((MS - base < DEADLINE + 1000))
	done
	thaw_db
	run rad_auth "$P2" frozen "$c"
	assert_success
	need_syslog
	run grep -hF 'login of "frozen" refused: ' "$R1/log/syslog" \
	    "$R2/log/syslog"
	assert_line --partial 'within the login deadline'
	refute_output --partial "$c"
}

@test "the database stopped: refused by both within the deadline, logged with the user and the reason, nothing secret" {
	local c i s base t=$BATS_TEST_TMPDIR/down
	rad_new_user warm
	# Both servers hold open connections from a login each.
	run rad_auth "$P1" warm "$(rad_code "$KEY")"
	assert_success
	run rad_auth "$P2" warm "$(scratch warm 1)"
	assert_success
	# A refusal's time with the database up: the clients' own.
	timed_auth "$P1" warm 000000
	assert_failure 1
	base=$MS
	rad_new_user down
	(umask 077 && echo "$KEY" >"$E2E_DIR/down.key")
	c=$(rad_code "$KEY")
	rad_db_stop fleet immediate
	for i in 1 2 3; do
		timed_auth "$((i % 2 ? P1 : P2))" down "$c"
		echo "database stopped: refused in $MS ms (deadline $DEADLINE ms; $base ms up)" >&3
		assert_failure 1
		assert_output --partial 'Received Access-Reject'
		((MS - base < DEADLINE))
	done
	# Many at once: every one answered, each a refusal.
	rad_fleet_burst "$t" down "$c" 10 "$P1" "$P2"
	tally "$t" "database stopped, 10 requests at once"
	[ "$NO" -eq 10 ]
	# A scratch code is no way in either.
	run rad_auth "$P2" down "$(scratch down 1)"
	assert_failure 1
	need_syslog
	# Each server says who and why, once a request.
	[ "$(grep -cF 'login of "down" refused: ' "$R1/log/syslog")" -ge 3 ]
	[ "$(grep -cF 'login of "down" refused: ' "$R2/log/syslog")" -ge 3 ]
	run grep -hF 'login of "down" refused: ' "$R1/log/syslog" \
	    "$R2/log/syslog"
	assert_line --partial ': database error: connect: '
	assert_line --partial 'Connection refused'
	# Nothing secret in any log: not the code, the key, a scratch code
	# or the store key.
	for s in "$c" "$KEY" "$(scratch down 1)" "$(cat "$K")"; do
		run grep -rF -e "$s" "$R1/log" "$R2/log"
		assert_failure 1
	done
}

@test "the database started again on its port: both servers serve again, not restarted" {
	local key c p
	rad_db_start fleet
	[[ -s $E2E_DIR/down.key ]] || skip "the previous test did not run"
	key=$(cat "$E2E_DIR/down.key")
	e2e_fresh_step 3
	c=$(rad_code "$key")
	run rad_auth "$P2" down "$c"
	assert_success
	run rad_auth "$P1" down "$c"
	assert_failure 1
	run rad_auth "$P1" down "$(rad_code "$key" 30)"
	assert_success
	# The same processes, which keep connections across logins.
	for p in $RAD_PIDS; do
		e2e_alive "$p" || fail "server $p is gone"
	done
	[[ "$(e2e_daemon_pid radius1) $(e2e_daemon_pid radius2)" == "$RAD_PIDS" ]]
	run rad_server_conns
	echo "connections kept open by the servers: $output" >&3
	((output >= 2 && output <= 32))
}

@test "a host with pam_radius_auth.so -> either server -> PostgreSQL, end to end" {
	local c
	rad_new_user host-alice
	c=$(rad_code "$KEY")
	run pamtester "$HOST_SVC" host-alice authenticate <<<"$c"
	assert_success
	run pamtester "$HOST_SVC" host-alice authenticate <<<"$c"
	assert_failure
	run pamtester "$HOST_SVC" host-alice authenticate <<<000000
	assert_failure
	run pamtester "$HOST_SVC" nobody-here authenticate <<<"$c"
	assert_failure
	# The first server gone: the host asks the second, which knows
	# what the first accepted.
	e2e_daemon_stop radius1
	run pamtester "$HOST_SVC" host-alice authenticate <<<"$c"
	assert_failure
	run pamtester "$HOST_SVC" host-alice authenticate \
	    <<<"$(rad_code "$KEY" 30)"
	assert_success
	[ "$(uses host-alice)" = 2 ]
	need_syslog
	grep -F 'accepted verification code for "host-alice"' "$R2/log/syslog"
}

@test "the servers and the database stop; nothing is left behind" {
	e2e_daemon_stop radius1
	e2e_daemon_stop radius2
	pg_cluster_stop fast
	e2e_cleanup
	e2e_check_clean
	[[ ! -e /etc/pam.d/$SVC1 && ! -e /etc/pam.d/$SVC2 &&
	    ! -e /etc/pam.d/$HOST_SVC ]]
}

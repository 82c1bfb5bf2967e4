#!/usr/bin/env bats
# FreeRADIUS without the PAM stack (issue 40): two servers, each running
# the example's otp_python (rlm_python3 and
# mods-config/python3/otp_radius.py, which logs in with otputils.Store),
# share one PostgreSQL store with a PAM host (pam_otp.so store=...) (root;
# make check-e2e).
#
# The rig is fleet.bats's (tests/e2e/radius.bash, tests/pgcluster.bash):
# a throwaway cluster as the postgres account, the store made by
# otp-store init and the tokens by otp-keygen --store, as root; each
# server a tree of its own owned by freerad, its configuration the
# shipped example's with paths, the store's URL, key and deadline
# changed.  What is checked: a code is accepted once between the
# servers and the PAM host, 20 requests at once on both (one accept),
# connections kept; the database down (each request refused within the
# deadline, the reason logged) and back (served, no restart); nothing
# secret in the servers' logs.

bats_require_minimum_version 1.5.0

setup_file() {
	load ../common
	load lib
	load radius
	load ../pgcluster
	local reason i r p
	e2e_setup_file freeradius freeradius-utils freeradius-python3 pamtester
	reason=$(pg_cluster_available) || skip "e2e: $reason"
	OTP_STORE_MODULE=$OTP_LIBDIR/otp-utils/store-pg.so
	[[ -f $OTP_STORE_MODULE ]] || fail "$OTP_STORE_MODULE not built"
	[[ -f $OTP_LIBDIR/../python/otputils/__init__.py ]] ||
	    fail "$OTP_LIBDIR/../python/otputils not built"
	export OTP_STORE_MODULE
	pg_cluster_start "$E2E_DIR" pyfleet || fail "no PostgreSQL cluster"
	e2e_note port "$PGPORT"
	URL=$PG_URL
	K=$E2E_DIR/store.key
	run otp-store --store-key="$K" init "$URL"
	[[ $status == 0 ]] || fail "otp-store init: $output"
	R1=$E2E_DIR/radius1
	R2=$E2E_DIR/radius2
	P1=$(e2e_port)
	P2=$(e2e_port)
	HOST_SVC=$E2E_TAG-pyhost
	# A deadline of 1.5 s a login (store_timeout).
	DEADLINE=1500
	export URL K R1 R2 P1 P2 HOST_SVC DEADLINE
	for i in 1 2; do
		r=R$i p=P$i
		rad_py_server "$i" "${!r}" "${!p}" "$URL" "$K" "$DEADLINE" ||
		    fail "server $i could not start"
	done
	e2e_wait_port "$P1"
	e2e_wait_port "$P2"
	# The PAM host: pam_otp.so on the same store, as root.
	printf 'auth required %s store=%s store_key=%s store_timeout=%s store_module=%s\naccount required pam_permit.so\n' \
	    "$OTP_LIBDIR/pam_otp.so" "$URL" "$K" "$DEADLINE" \
	    "$OTP_STORE_MODULE" | e2e_pam_service "$HOST_SVC"
	RAD_PIDS="$(e2e_daemon_pid radius1) $(e2e_daemon_pid radius2)"
	export RAD_PIDS
}

teardown_file() {
	load ../common
	load lib
	load ../pgcluster
	pg_cluster_stop fast
	e2e_teardown_file
}

setup() {
	load ../common
	load lib
	load radius
	load ../pgcluster
}

# new_user NAME: a TOTP token for NAME in the store, 5 scratch codes in
# BATS_TEST_TMPDIR/NAME.scratch; sets KEY (also kept in
# E2E_DIR/NAME.key for the last test's look at the logs).
new_user() {
	rad_new_user "$1"
	(umask 077 && echo "$KEY" >"$E2E_DIR/$1.key" &&
	    cat "$BATS_TEST_TMPDIR/$1.scratch" >>"$E2E_DIR/secrets")
}

scratch() {
	sed -n "${2:-1}p" "$BATS_TEST_TMPDIR/$1.scratch"
}

# code KEY [OFFSET]: rad_code, kept in E2E_DIR/secrets.
code() {
	rad_code "$@" | tee -a "$E2E_DIR/secrets"
}

uses() {
	otp-store --store-key="$K" list "$URL" |
	    awk -F '\t' -v u="$1" '$1 == u { sub(/^uses=/, "", $5); print $5 }'
}

# radlog: both servers' logs.
radlog() {
	cat "$R1/log/otp-radius.log" "$R2/log/otp-radius.log"
}

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

timed_auth() {
	local t0
	t0=$(rad_ms)
	run rad_auth "$@"
	MS=$(($(rad_ms) - t0))
}

@test "both servers run the example's otp_python and otp_radius.py with only the store's URL, key, deadline and paths changed" {
	local f
	for f in "$R1" "$R2"; do
		cmp "$RAD_EXAMPLE/mods-config/python3/otp_radius.py" \
		    "$f/mods-config/python3/otp_radius.py"
		run bash -c "diff '$RAD_EXAMPLE/mods-enabled/otp_python' \
		    '$f/mods-enabled/otp_python' | grep -c '^>'"
		assert_output 3
		grep -qx '		otp_python' "$f/sites-enabled/py"
	done
	run stat -c '%U %a' "$R1/store.key" "$R2/store.key"
	assert_output "$RAD_ACCOUNT 600
$RAD_ACCOUNT 600"
}

@test "a code accepted by one server is refused by the other; a wrong code and an unknown user refused, the reason logged" {
	local c
	new_user alice
	c=$(code "$KEY")
	run rad_auth "$P1" alice "$c"
	assert_success
	assert_line --index 0 --partial 'Access-Accept'
	assert_output --partial 'OTP accepted'
	run rad_auth "$P2" alice "$c"
	assert_failure 1
	assert_line --index 0 --partial 'Access-Reject'
	assert_output --partial 'OTP not accepted'
	run rad_auth "$P1" alice "$c"
	assert_failure 1
	run rad_auth "$P2" alice "$(code "$KEY" 30)"
	assert_success
	run rad_auth "$P1" alice "$(scratch alice 2)"
	assert_success
	run rad_auth "$P2" alice "$(scratch alice 2)"
	assert_failure 1
	run rad_auth "$P1" alice 12
	assert_failure 1
	run rad_auth "$P2" alice-nobody "$c"
	assert_failure 1
	[ "$(uses alice)" = 3 ]
	run grep -hF '"alice' "$R1/log/otp-radius.log" "$R2/log/otp-radius.log"
	assert_line --partial 'accepted a code for "alice"'
	assert_line --partial 'code not accepted for "alice": code already used'
	assert_line --partial 'code not accepted for "alice": not a 6-digit code'
	assert_line --partial 'code not accepted for "alice-nobody": no token'
}

@test "20 requests with one code spread over both servers at once: exactly one accept; connections kept" {
	local t=$BATS_TEST_TMPDIR/burst
	new_user burst
	rad_fleet_burst "$t" burst "$(code "$KEY")" 20 "$P1" "$P2"
	tally "$t" "one code, 20 requests on 2 python servers"
	[ "$OK" -eq 1 ]
	[ "$NO" -eq 19 ]
	[ "$(grep -lw "$P1" "$t"/* | wc -l)" -eq 10 ]
	[ "$(uses burst)" = 1 ]
	[ "$(radlog | grep -cF 'accepted a code for "burst"')" -eq 1 ]
	[ "$(radlog | grep -cF 'for "burst": code already used')" -eq 19 ]
	run rad_server_conns
	echo "connections the servers keep after it: $output" >&3
	((output >= 2 && output <= 64))
}

# hold_row USER: another session holds USER's row for 3 s (SELECT ...
# FOR UPDATE, then pg_sleep); run it in the background, then held_wait.
hold_row() {
	psql -X -q -h 127.0.0.1 -p "$PGPORT" -U postgres -d otp -c \
	    "BEGIN; SELECT 1 FROM otp_tokens WHERE login = '$1'::bytea FOR UPDATE; SELECT pg_sleep(3); COMMIT" \
	    >/dev/null 2>&1
}

# held_wait: until hold_row's session sleeps holding the row (10 s).
held_wait() {
	local i
	for ((i = 0; i < 100; i++)); do
		[ "$(rad_sql "SELECT count(*) FROM pg_stat_activity
		    WHERE query LIKE '%FOR UPDATE; SELECT pg_sleep%'
		    AND state = 'active' AND pid <> pg_backend_pid()")" = 1 ] &&
		    return 0
		sleep 0.1
	done
	return 1
}

@test "a login that waits for a locked row: refused at the deadline; the requests queued behind it all answered" {
	local t=$BATS_TEST_TMPDIR i ch before=0 n
	for i in $(seq 6); do
		otp-keygen --store="$URL" --user="free-$i" --store-key="$K" \
		    >"$t/key.$i" 2>/dev/null || fail "otp-keygen free-$i"
	done
	new_user held
	ch=$(code "$KEY")
	for i in $(seq 6); do
		code "$(cat "$t/key.$i")" >"$t/code.$i"
	done
	hold_row held 3>&- &
	held_wait || fail "the row was not held"
	# held's login on server 1 waits for the row until the deadline.
	# FreeRADIUS 3.2.1 declares rlm_python3 thread-unsafe and runs one
	# call of the module at a time: the six other users' requests wait
	# for it, then are served.
	rad_fleet_burst "$t/held" held "$ch" 1 "$P1" 3>&- &
	sleep 0.2
	for i in $(seq 6); do
		rad_fleet_burst "$t/f$i" "free-$i" "$(cat "$t/code.$i")" 1 \
		    "$P1" 3>&- &
	done
	for ((n = 0; n < 200; n++)); do
		[ ! -e "$t/held/1" ] || break
		before=$(compgen -G "$t/f*/1" | wc -l)
		sleep 0.05
	done
	wait
	echo "6 users at once on server 1 while a login there waits for a held row: $before answered before it" >&3
	[ "$(cut -d' ' -f1 "$t/held/1")" = 1 ]
	for i in $(seq 6); do
		[ "$(cut -d' ' -f1 "$t/f$i/1")" = 0 ] || fail "free-$i was not accepted"
	done
	run grep -hF '"held"' "$R1/log/otp-radius.log"
	assert_output --partial 'deadline'
}

@test "one code on a PAM host (pam_otp.so store=postgresql) and both servers at once: exactly one accept between them" {
	local t=$BATS_TEST_TMPDIR/mixed c i
	new_user mixed
	c=$(code "$KEY")
	mkdir -p "$t"
	for i in 1 2 3 4 5; do
		(
			r=0
			pamtester "$HOST_SVC" mixed authenticate <<<"$c" \
			    >/dev/null 2>&1 || r=1
			echo "$r pam" >"$t/pam$i"
		) &
	done
	rad_fleet_burst "$t" mixed "$c" 10 "$P1" "$P2"
	wait
	tally "$t" "one code, 5 PAM logins and 10 RADIUS requests"
	[ "$OK" -eq 1 ]
	[ "$NO" -eq 14 ]
	[ "$(uses mixed)" = 1 ]
	# And the other way round: the next code, taken by the host, is
	# refused by the servers.
	c=$(code "$KEY" 30)
	run pamtester "$HOST_SVC" mixed authenticate <<<"$c"
	assert_success
	run rad_auth "$P1" mixed "$c"
	assert_failure 1
	run rad_auth "$P2" mixed "$c"
	assert_failure 1
}

@test "the database stopped: refused by both within the deadline, the reason logged" {
	local c i base t=$BATS_TEST_TMPDIR/down
	new_user down
	timed_auth "$P1" down 000000
	assert_failure 1
	base=$MS
	c=$(code "$KEY")
	rad_db_stop pyfleet immediate
	for i in 1 2 3; do
		timed_auth "$((i % 2 ? P1 : P2))" down "$c"
		echo "database stopped: refused in $MS ms (deadline $DEADLINE ms; $base ms up)" >&3
		assert_failure 1
		assert_output --partial 'Received Access-Reject'
		assert_output --partial 'OTP check failed'
		# Answered, not left to the client's timeout (10 s): the
		# deadline and a wide margin for a busy machine.
		((MS - base < DEADLINE + 3000))
	done
	rad_fleet_burst "$t" down "$c" 10 "$P1" "$P2"
	tally "$t" "database stopped, 10 requests at once"
	[ "$NO" -eq 10 ]
	run rad_auth "$P2" down "$(scratch down 1)"
	assert_failure 1
	[ "$(grep -cF 'login of "down" refused: ' "$R1/log/otp-radius.log")" -ge 3 ]
	[ "$(grep -cF 'login of "down" refused: ' "$R2/log/otp-radius.log")" -ge 3 ]
	run grep -hF 'login of "down" refused: ' "$R1/log/otp-radius.log"
	assert_output --partial 'Connection refused'
}

@test "the database started again on its port: both servers serve again, not restarted" {
	local key c p
	rad_db_start pyfleet
	[[ -s $E2E_DIR/down.key ]] || skip "the previous test did not run"
	key=$(cat "$E2E_DIR/down.key")
	e2e_fresh_step 3
	c=$(code "$key")
	run rad_auth "$P2" down "$c"
	assert_success
	run rad_auth "$P1" down "$c"
	assert_failure 1
	run rad_auth "$P1" down "$(code "$key" 30)"
	assert_success
	for p in $RAD_PIDS; do
		e2e_alive "$p" || fail "server $p is gone"
	done
	[[ "$(e2e_daemon_pid radius1) $(e2e_daemon_pid radius2)" == "$RAD_PIDS" ]]
}

@test "no code, key, scratch code or store key in the servers' logs" {
	local s n=0
	[[ -s $E2E_DIR/secrets ]] || skip "no test before this one ran"
	while read -r s; do
		[[ -n $s ]] || continue
		n=$((n + 1))
		run grep -rlF -e "$s" "$R1/log" "$R2/log"
		assert_failure 1
	done < <(cat "$E2E_DIR/secrets" "$E2E_DIR"/*.key "$K")
	echo "$n secrets looked for in the servers' logs: none there" >&3
	# The logs are there and say something.
	grep -q 'accepted a code for' "$R1/log/otp-radius.log"
}

@test "the servers and the database stop; nothing is left behind" {
	e2e_daemon_stop radius1
	e2e_daemon_stop radius2
	pg_cluster_stop fast
	e2e_cleanup
	e2e_check_clean
	[[ ! -e /etc/pam.d/$HOST_SVC ]]
}

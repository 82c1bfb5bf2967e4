#!/usr/bin/env bats
# pg-pam.bats - pam_otp.so store=postgresql://... against a real server
# (tests/pgcluster.bash) through pam_wrapper and pamtester, no root: a
# login accepted once, the store's options, a database that is down
# (refused and logged with the reason, within the deadline), and one
# threaded host with 40 logins at once on one code with the real clock:
# one accept, connections kept across logins.

bats_require_minimum_version 1.5.0

setup_file() {
	load common
	load pam/lib
	load pgcluster
	local reason
	reason=$(pg_cluster_available) || skip "$reason"
	pam_setup_file
	pg_cluster_start "$BATS_FILE_TMPDIR" pg || fail "no cluster"
}

teardown_file() {
	load pgcluster
	pg_cluster_stop fast
}

setup() {
	load common
	load pam/lib
	load pgcluster
	pam_setup
	PAM_ENV=()
	MOD=otp
	PG_SO=$OTP_LIBDIR/otp-utils/store-pg.so
	export OTP_STORE_MODULE=$PG_SO
	DB=p$BATS_SUITE_TEST_NUMBER
	psql -q -X -v ON_ERROR_STOP=1 -d postgres \
	    -c "CREATE DATABASE $DB" >/dev/null || fail "createdb"
	URL="postgresql://postgres@127.0.0.1:$PGPORT/$DB"
	K=$D/store.key
	run -0 otp-store --store-key="$K" init "$URL"
	# The token: KEY, TOTP, as a state file would hold it.
	printf '%s\n' "$KEY" '" TOTP_AUTH' '" WINDOW_SIZE 3' 12345678 >"$D/tok"
	chmod 0400 "$D/tok"
	run -0 otp-store --store-key="$K" copy --user="$PAM_USER" "ga:$D/tok" \
	    "$URL"
	OPTS="store=$URL store_key=$K store_module=$PG_SO"
}

@test "store=postgresql://: a code accepted once, a scratch code once, nothing secret logged" {
	service t "auth required @MOD@ $OPTS"
	c=$(totp $T0)
	pam_run t "$c"
	accepted
	pam_run t "$c"
	refused
	pam_run t 12345678
	accepted
	pam_run t 12345678
	refused
	no_secret_logged 12345678
}

@test "store=postgresql://: a token of 8 digits with a PIN takes the PIN, then the code" {
	service t "auth required @MOD@ $OPTS"
	run -0 --separate-stderr otp-keygen -f --store="$URL" \
	    --store-key="$K" --user="$PAM_USER" --digits=8 --pin=9x
	key=$output
	c=$(oathtool --totp -d 8 -N "@$T0" -b "$key")
	pam_run t "$c"
	refused
	pam_run t "9x$c"
	accepted
	no_secret_logged 9x
}

# drive CMD: one login through tests/pam/pam-drive with the real clock,
# each prompt answered by what CMD prints (run while the module waits):
# what another server does between the prompt and the answer.
drive() {
	run timeout 60 env LD_PRELOAD="$ASAN_SO $SHIM_SO" \
	    ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0 \
	    OTP_STORE_MODULE="$PG_SO" PAM_DRIVE_ANSWER="$1" \
	    "$PAM_DRIVE" "$D/svc" t "$PAM_USER"
}

@test "the row changes between the prompt and the answer: the login is decided on the row as it is then, never written over it" {
	service t "auth required @MOD@ $OPTS"
	V="otp-verify --store=$URL --store-key=$K --user=$PAM_USER"
	NOWCODE="oathtool --totp -b $KEY"
	# Another server takes the code while this login waits at its
	# prompt: this one is refused, not a second accept.
	drive "c=\$($NOWCODE); $V \$c >/dev/null 2>&1 || exit 3; echo \$c"
	[[ $status == 1 ]] || fail "accepted a code used meanwhile: $output"
	# Another server takes a scratch code meanwhile: this login's code
	# is accepted, and the scratch code stays used (no stale row back).
	# (The next step's code: this step's is used, and the window
	# admits the next.)
	drive "$V 12345678 >/dev/null 2>&1 || exit 3; $NOWCODE -N @\$((\$(date +%s) + 30))"
	[[ $status == 0 ]] || fail "refused: $output"
	run -1 $V 12345678
	run -0 otp-store --store-key="$K" list "$URL"
	assert_output --partial "uses=3"
	# Disabled meanwhile: refused.
	drive "otp-store --store-key=$K disable $URL $PAM_USER >/dev/null || exit 3; $NOWCODE"
	[[ $status == 1 ]] || fail "a disabled token let in: $output"
}

@test "store=postgresql://: a user without a token, and the database's options" {
	service t "auth required @MOD@ $OPTS"
	PAM_RUN_USER=nobody-here pam_run t "$(totp $T0)"
	refused
	service t "auth required @MOD@ $OPTS window=3"
	pam_run t "$(totp $T0)"
	refused
	assert_output --partial 'unknown option "window=3"'
	service t "auth required @MOD@ $OPTS store_timeout=0"
	pam_run t "$(totp $T0)"
	refused
	assert_output --partial "store_timeout"
}

@test "a database that is down: refused within the deadline, the reason logged; back up, served" {
	service t "auth required @MOD@ store=postgresql://postgres@127.0.0.1:1/x store_key=$K store_module=$PG_SO store_timeout=1000"
	pam_run t "$(totp $T0)"
	refused
	assert_output --partial "database error"
	assert_output --partial "Connection refused"
	no_secret_logged
	service t "auth required @MOD@ $OPTS"
	pam_run t "$(totp $T0)"
	accepted
}

@test "pam_otp.so links no libpq; the store object does, and exports one symbol" {
	run -0 ldd "$OTP_SO"
	refute_output --partial libpq
	run -0 ldd "$PG_SO"
	assert_output --partial libpq
	run -0 nm -D --defined-only "$PG_SO"
	[[ $(grep -c ' T ' <<<"$output") == 1 ]]
	assert_output --partial otp_store_pg_ops
}

@test "one threaded host, 40 logins at once on one code, the real clock: exactly one accept" {
	cc -O1 -pthread -o "$D/pam-threads" \
	    "$BATS_TEST_DIRNAME/pam/pam-threads.c" -lpam ||
	    fail "cannot build pam-threads"
	mkdir -m 0755 "$D/conf"
	printf 'auth required %s %s\n' "$OTP_SO" "$OPTS" >"$D/conf/t"
	printf '%s\n' "$KEY" '" TOTP_AUTH' '" WINDOW_SIZE 3' >"$D/ga2"
	chmod 0400 "$D/ga2"
	for round in 1 2 3; do
		run -0 otp-store -f --store-key="$K" copy --user="$PAM_USER" \
		    "ga:$D/ga2" "$URL"
		code=$(otp-gen --totp -b "$KEY")
		run env LD_PRELOAD="$ASAN_SO $SHIM_SO" \
		    "$D/pam-threads" "$D/conf" t "$PAM_USER" "$code" 40
		assert_output --partial "accepted 1 refused 39 leaks 0 umask kept"
	done
	[[ $(psql -X -A -t -d "$DB" -c "SELECT uses FROM otp_tokens") == 1 ]]
}

@test "a host that forks: the child logs in on a connection of its own, the parent's pooled one survives it" {
	cc -O1 -o "$D/pam-fork" "$BATS_TEST_DIRNAME/pam/pam-fork.c" -lpam ||
	    fail "cannot build pam-fork"
	mkdir -m 0755 "$D/conf" "$D/sync"
	printf 'auth required %s %s\n' "$OTP_SO" "$OPTS" >"$D/conf/t"
	printf '%s\n' "$KEY" '" HOTP_COUNTER 1' >"$D/h"
	chmod 0400 "$D/h"
	run -0 otp-store -f --store-key="$K" copy --user="$PAM_USER" \
	    "ga:$D/h" "$URL"
	backends() {
		psql -X -A -t -d postgres -c "SELECT pid FROM pg_stat_activity
		    WHERE datname = '$DB' AND pid <> pg_backend_pid()
		    ORDER BY pid"
	}
	env LD_PRELOAD="$ASAN_SO" "$D/pam-fork" "$D/conf" t "$PAM_USER" \
	    "$(hotp 1)" "$(hotp 2)" "$(hotp 3)" "$D/sync" >"$D/out" 2>&1 &
	for ((i = 0; i < 600; i++)); do [[ -e $D/sync/a ]] && break; sleep 0.05; done
	before=$(backends)
	[[ -n $before ]] || fail "the parent kept no connection"
	touch "$D/sync/b"
	for ((i = 0; i < 600; i++)); do [[ -e $D/sync/c ]] && break; sleep 0.05; done
	# The child logged in on a connection of its own: one more.
	during=$(backends)
	[[ $(wc -l <<<"$during") == $(($(wc -l <<<"$before") + 1)) ]] ||
	    fail "with the child: $during; before it: $before"
	grep -qxF -- "$before" <<<"$during" || fail "the child took the parent's"
	touch "$D/sync/d"
	for ((i = 0; i < 600; i++)); do [[ -e $D/sync/e ]] && break; sleep 0.05; done
	# The child's went with it; the parent's is the same.
	for ((i = 0; i < 40; i++)); do
		after=$(backends)
		[[ $after == "$before" ]] && break
		sleep 0.1
	done
	touch "$D/sync/f"
	wait
	run cat "$D/out"
	assert_output "parent 1 child 1 parent 1"
	[[ $after == "$before" ]] ||
	    fail "parent's connection before the child: $before; after: $after"
}

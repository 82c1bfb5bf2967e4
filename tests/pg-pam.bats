#!/usr/bin/env bats
# pg-pam.bats - pam_otp.so store=postgresql://... against a real server
# (tests/pgcluster.bash) through pam_wrapper and pamtester, no root: a
# login accepted once, the store's options, a database that is down
# (refused and logged with the reason, within the deadline), and one
# threaded host with 40 logins at once on one code with the real clock:
# one accept, connections kept across logins; long-lived hosts that keep
# the row they wrote and pam_otp.so loaded, prepare their statements, and
# run them unnamed behind PgBouncer in transaction mode or when a plan
# goes stale.

bats_require_minimum_version 1.5.0

setup_file() {
	load common
	load pam/lib
	load pgcluster
	pam_setup_file
	pg_suite_start
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
	pg_test_db p
	PG_SO=$OTP_STORE_MODULE
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

@test "a users file moved into the database: a never-used, a used, a PIN and a TOTP line each take the codes pam_oath takes, the next one first" {
	local oath=/lib/x86_64-linux-gnu/security/pam_oath.so
	local hex=3132333435363738393031323334353637383930 u c k o d first pin
	[[ -f $oath ]] || fail "$oath missing (libpam-oath)"
	h() { oathtool --hotp -c "$1" "$hex"; }
	printf '%s\n' "HOTP	hn	-	$hex" \
	    "HOTP	hu	-	$hex	7	$(h 7)	2026-12-01T10:00:00L" \
	    "HOTP	hp	4321	$hex	2	$(h 2)	2026-12-01T10:00:00L" \
	    "HOTP/T30	ht	-	$hex" >"$D/users"
	chmod 0600 "$D/users"
	run -0 otp-store --store-key="$K" copy "oath:$D/users" "$URL"
	printf 'auth required %s usersfile=%s/u.oath digits=6\n' "$oath" "$D" \
	    >"$D/svc/oath"
	service db "auth required @MOD@ $OPTS"
	# takes USER ANSWER: pam_oath's verdict on the file as it was, and
	# pam_otp.so's on the database token as the copy made it: the same.
	takes() {
		cp "$D/users" "$D/u.oath"
		PAM_RUN_USER=$1 pam_run oath "$2"
		o=$status
		run -0 otp-store -f --store-key="$K" copy --user="$1" \
		    "oath:$D/users" "$URL"
		PAM_RUN_USER=$1 pam_run db "$2"
		d=$status
		echo "# $1: pam_oath $o, database $d"
		[[ $o == "$d" ]] || fail "$1 '$2': pam_oath $o, the database $d"
		return "$o"
	}
	# HOTP: counters around the next one and the window's end (5).
	while read -r u pin first k; do
		[[ $pin != - ]] || pin=
		for c in $k; do
			if takes "$u" "$pin$(h "$c")"; then
				[[ $c -ge $first ]] || fail "$u: $c before $first"
			else
				[[ $c -lt $first || $c -gt $((first + 4 + (first == 0))) ]] ||
				    fail "$u: code $c refused"
			fi
		done
	done <<-EOF
		hn - 0 0 1 5 6
		hu - 8 7 8 12 13
		hp 4321 3 2 3 7 8
	EOF
	takes hp "$(h 3)" && fail "hp: no PIN, let in"
	# TOTP: the steps either side of now (5).
	for k in -6 -5 0 5 6; do
		c=$(oathtool --totp -N "@$((T0 + 30 * k))" "$hex")
		if takes ht "$c"; then
			((k >= -5 && k <= 5)) || fail "ht: step $k let in"
		else
			((k < -5 || k > 5)) || fail "ht: step $k refused"
		fi
	done
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
	# One decision, one audit entry: asked and refused (the start does
	# not record it too), or let through by nullok without an end.
	service t "auth required @MOD@ $OPTS nullok"
	PAM_RUN_USER=nobody-too pam_run t "$(totp $T0)"
	run -0 otp-store log "$URL"
	assert_line --index 0 --regexp $'\tnobody-here\t[^\t]+\trefuse\tno token$'
	assert_line --index 1 --regexp $'\tnobody-too\t[^\t]+\trefuse\tno token$'
	[[ ${#lines[@]} == 2 ]] || fail "${#lines[@]} entries"
	service t "auth required @MOD@ $OPTS"
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
	pam_threads_build
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

@test "one threaded host, 40 logins at once on one HOTP code: one accept, and the refusals move no counter (no lock-out)" {
	pam_threads_build
	mkdir -m 0755 "$D/conf"
	printf 'auth required %s %s\n' "$OTP_SO" "$OPTS" >"$D/conf/t"
	printf '%s\n' "$KEY" '" HOTP_COUNTER 1' '" WINDOW_SIZE 3' >"$D/h"
	chmod 0400 "$D/h"
	run -0 otp-store -f --store-key="$K" copy --user="$PAM_USER" \
	    "ga:$D/h" "$URL"
	for c in 1 2 3 4 5; do
		run env LD_PRELOAD="$ASAN_SO $SHIM_SO" \
		    "$D/pam-threads" "$D/conf" t "$PAM_USER" "$(hotp $c)" 40
		assert_output --partial "accepted 1 refused 39 leaks 0"
	done
	[[ $(psql -X -A -t -d "$DB" -c "SELECT uses FROM otp_tokens") == 5 ]]
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

# hosts_setup: service t in $D/conf, the user's token HOTP with $KEY at
# counter 1 in the database, every statement on it logged to $log.
hosts_setup() {
	mkdir -m 0755 "$D/conf"
	printf 'auth required %s %s\n' "$OTP_SO" "$OPTS" >"$D/conf/t"
	printf '%s\n' "$KEY" '" HOTP_COUNTER 1' >"$D/h"
	chmod 0400 "$D/h"
	run -0 otp-store -f --store-key="$K" copy --user="$PAM_USER" \
	    "ga:$D/h" "$URL"
	psql -X -q -d postgres \
	    -c "ALTER DATABASE $DB SET log_statement = 'all'" >/dev/null
	log=${PG_DATA%/data}/server.log
}

# locked: how many logins so far took the locked way (SELECT ... FOR
# UPDATE) in the statements logged since hosts_setup.
locked() { grep -c 'FOR UPDATE' "$log" || true; }

# host_start NAME: a long-lived PAM host (tests/bench/pg-loop -l) on the
# service file $D/conf/t, fed through FIFOs; host_login NAME CODE: one
# login of $PAM_USER there, its line; host_stop NAME: its end, no error.
host_start() {
	local close="" h
	[[ -x $D/pg-loop ]] || cc -O1 -o "$D/pg-loop" \
	    "$BATS_TEST_DIRNAME/bench/pg-loop.c" -lpam ||
	    fail "cannot build pg-loop"
	mkfifo "$D/$1.in" "$D/$1.out"
	# Not the other hosts' ends: each sees the end of its own input.
	for h in ${HOSTS:-}; do
		close+=" {${h}_in}>&- {${h}_out}<&-"
	done
	eval "env LD_PRELOAD=\"\$ASAN_SO \$SHIM_SO\" \
	    ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0 \
	    \"\$D/pg-loop\" -l \"\$D/conf\" <\"\$D/$1.in\" \
	    >\"\$D/$1.out\" 2>\"\$D/$1.err\" 3>&- $close &"
	eval "${1}_pid=\$!"
	eval "exec {${1}_in}>\"\$D/$1.in\" {${1}_out}<\"\$D/$1.out\""
	HOSTS+=" $1"
}
host_login() {
	local in out line
	in=${1}_in out=${1}_out
	echo "t $PAM_USER $2" >&"${!in}"
	read -r -t 60 line <&"${!out}" || fail "pg-loop $1: no answer"
	echo "$line"
}
host_stop() {
	local pid=${1}_pid
	eval "exec {${1}_in}>&- {${1}_out}<&-"
	wait "${!pid}"
	run cat "$D/$1.err"
	refute_output --partial pg-loop
}

@test "a long-lived host keeps the row it wrote: the user's next login there reads nothing before the prompt; a row changed since is read again, never written over" {
	# The reads before a prompt are counted in the statements logged.
	hosts_setup
	reads() {
		grep -c 'SELECT kind, disabled, state, scratch, gen, failures, locked_until FROM otp_tokens WHERE login = \$1$' \
		    "$log" || true
	}
	host_start a
	login() { host_login a "$1"; }
	V="otp-verify --store=$URL --store-key=$K --user=$PAM_USER"
	r0=$(reads)
	[[ $(login "$(hotp 1)") == accepted ]] || fail "first login refused"
	r1=$(reads)
	[[ $r1 == $((r0 + 1)) ]] || fail "the first login read $((r1 - r0)) times"
	# The next login starts from the row the host wrote: no read.
	[[ $(login "$(hotp 2)") == accepted ]] || fail "second login refused"
	[[ $(reads) == "$r1" ]] || fail "the second login read its row"
	# Another server takes the next code: the host's row is stale, and
	# the same code there is refused, not accepted twice (and moves no
	# counter: the next code but one is within the window).
	run -0 $V "$(hotp 3)"
	[[ $(login "$(hotp 3)") == refused* ]] || fail "a code used elsewhere accepted"
	[[ $(login "$(hotp 5)") == accepted ]] || fail "the next code refused"
	# Disabled since the host's last write: refused; enabled: served.
	run -0 otp-store --store-key="$K" disable "$URL" "$PAM_USER"
	[[ $(login "$(hotp 6)") == refused* ]] || fail "a disabled token let in"
	run -0 otp-store --store-key="$K" enable "$URL" "$PAM_USER"
	[[ $(login "$(hotp 6)") == accepted ]] || fail "enabled again, refused"
	# Replaced since by a token of another key: the old key's next code
	# is refused, the new one's accepted.
	new=JBSWY3DPEHPK3PXP
	printf '%s\n' "$new" '" HOTP_COUNTER 1' >"$D/h2"
	chmod 0400 "$D/h2"
	run -0 otp-store -f --store-key="$K" copy --user="$PAM_USER" \
	    "ga:$D/h2" "$URL"
	[[ $(login "$(hotp 7)") == refused* ]] || fail "the old key let in"
	[[ $(login "$(hotp 2 "$new")") == accepted ]] || fail "the new key refused"
	# Removed since, under nullok: a user without a token, as for a host
	# that kept nothing (the stack lets an ignore through).
	printf '%s\n' "auth [success=done ignore=1 default=die] $OTP_SO $OPTS nullok" \
	    "auth requisite pam_deny.so" "auth required pam_permit.so" \
	    >"$D/conf/t"
	[[ $(login "$(hotp 3 "$new")") == accepted ]] || fail "nullok: refused"
	run -0 otp-store --store-key="$K" remove "$URL" "$PAM_USER"
	[[ $(login 000000) == accepted ]] || fail "nullok: a removed token refused"
	[[ $(login 000000) == accepted ]] || fail "nullok: no token, refused"
	printf 'auth required %s %s\n' "$OTP_SO" "$OPTS" >"$D/conf/t"
	[[ $(login "$(hotp 4 "$new")") == refused* ]] || fail "no token, let in"
	host_stop a
}

@test "two long-lived hosts taking turns: every login accepted once, no accept the locked way (the write that finds the row changed gives it as it is)" {
	hosts_setup
	f0=$(locked)
	host_start a
	host_start b
	# Code c on one host, then on the other, refused there (the next
	# is c + 2: a wrong code moves no counter, but c + 2 is within the
	# window).
	for ((c = 1; c <= 15; c += 2)); do
		h=a o=b
		((c % 4 == 1)) || h=b o=a
		[[ $(host_login $h "$(hotp $c)") == accepted ]] ||
		    fail "code $c refused on $h"
		[[ $(host_login $o "$(hotp $c)") == refused* ]] ||
		    fail "code $c accepted twice"
	done
	host_stop a
	host_stop b
	[[ $(psql -X -A -t -d "$DB" -c "SELECT uses FROM otp_tokens") == 8 ]]
	# A refusal that writes nothing is decided on the row as it is now,
	# which may take the locked way; an accept never does.
	f1=$(locked)
	((f1 - f0 <= 8)) || fail "$((f1 - f0)) logins went the locked way"
}

@test "a long-lived host keeps pam_otp.so loaded between logins: the file replaced under it, as an upgrade does, changes nothing there until it restarts" {
	# The module is linked -z nodelete: pam_end leaves it mapped, and
	# the next pam_start finds it by its path without reading the file.
	hosts_setup
	cp "$OTP_SO" "$D/pam_otp.so"
	printf 'auth required %s %s\n' "$D/pam_otp.so" "$OPTS" >"$D/conf/t"
	host_start a
	[[ $(host_login a "$(hotp 1)") == accepted ]] || fail "first login refused"
	# Between logins, after pam_end: still mapped.
	mapped=0
	while IFS= read -r line; do
		[[ $line != *" $D/pam_otp.so" ]] || mapped=1
	done <"/proc/$a_pid/maps"
	((mapped)) || fail "pam_otp.so unmapped after pam_end"
	# Replaced by a file that is no module at all, by rename as dpkg
	# does: the host runs the module it has, and the store it loaded.
	echo 'not a module' >"$D/pam_otp.so.new"
	mv "$D/pam_otp.so.new" "$D/pam_otp.so"
	[[ $(host_login a "$(hotp 2)") == accepted ]] ||
	    fail "the host read the replaced module"
	# A host started now loads the file as it is.
	host_start b
	[[ $(host_login b "$(hotp 3)") == refused* ]] ||
	    fail "a new host ran the old module"
	[[ $(host_login a "$(hotp 3)") == accepted ]] || fail "third login refused"
	host_stop a
	host_stop b
}

@test "a long-lived host prepares its statements on a connection an earlier login made; a process a login prepares none" {
	hosts_setup
	run -0 otp-store --store-key="$K" copy --user=second "ga:$D/h" "$URL"
	# The server logs "execute otp_<hash>: <text>" for a statement run
	# by name, "execute <unnamed>: <text>" for one sent whole.
	count() { grep -cE "execute $1: $2" "$log" || true; }
	named() { count 'otp_[0-9a-f]{16}' "$1"; }
	unnamed() { count '<unnamed>' "$1"; }
	swap='WITH cur AS' read='SELECT kind, disabled, state, scratch, gen, failures, locked_until FROM'
	V="otp-verify --store=$URL --store-key=$K --user=$PAM_USER"
	a0=$(named .) s0=$(named "$swap") r0=$(named "$read")
	us0=$(unnamed "$swap") ur0=$(unnamed "$read")
	# A process a login: otp-verify, and pamtester (pam_otp.so reads
	# before its prompt and swaps at the end, on the connection it made
	# for that login): nothing prepared.
	run -0 $V "$(hotp 1)"
	run -0 $V "$(hotp 2)"
	service t "auth required @MOD@ $OPTS"
	pam_run t "$(hotp 3)"
	accepted
	pam_run t "$(hotp 4)"
	accepted
	[[ $(named .) == "$a0" ]] || fail "a process a login ran a prepared statement"
	# The host's first login reads and swaps on the connection it made
	# (unnamed); each later one takes it from the pool, by name.
	host_start a
	for c in 5 6 7 8; do
		[[ $(host_login a "$(hotp $c)") == accepted ]] ||
		    fail "code $c refused"
	done
	# Another server took code 9 since: the swap by name finds the row
	# changed, and once more over the row as it is, takes code 10.
	run -0 $V "$(hotp 9)"
	[[ $(host_login a "$(hotp 10)") == accepted ]] || fail "code 10 refused"
	[[ $(host_login a "$(hotp 11)") == accepted ]] || fail "code 11 refused"
	# Another user's first login on the host: its read, by name too.
	[[ $(PAM_USER=second host_login a "$(hotp 1)") == accepted ]] ||
	    fail "the second user refused"
	host_stop a
	[[ $(($(named "$swap") - s0)) == 7 ]] ||
	    fail "$(($(named "$swap") - s0)) swaps by name, not 3 + 2 + 1 + 1"
	[[ $(($(named "$read") - r0)) == 1 ]] || fail "the second read not by name"
	# Sent whole: otp-verify's three (the locked way writes with the
	# same statement), pamtester's two and the host's first.
	[[ $(($(unnamed "$swap") - us0)) == 6 ]] ||
	    fail "$(($(unnamed "$swap") - us0)) swaps sent whole, not 3 + 2 + 1"
	# Sent whole: otp-verify's three (FOR UPDATE), pamtester's two, the
	# host's first.
	[[ $(($(unnamed "$read") - ur0)) == 6 ]] ||
	    fail "$(($(unnamed "$read") - ur0)) reads sent whole, not 3 + 2 + 1"
	[[ $(psql -X -A -t -d "$DB" -c "SELECT uses FROM otp_tokens
	    WHERE login = '$PAM_USER'::bytea") == 11 ]]
}

@test "behind PgBouncer in transaction mode: a statement prepared on one server session is not on the next; the host runs it unnamed, every code accepted once" {
	command -v pgbouncer >/dev/null || skip "no pgbouncer (make deps)"
	hosts_setup
	bport=$(pg_bouncer_start pg "$DB") || fail "no pgbouncer"
	OPTS=${OPTS/:$PGPORT\//:$bport/}
	printf 'auth required %s %s\n' "$OTP_SO" "$OPTS" >"$D/conf/t"
	gone() { grep -c "prepared statement \"otp_[0-9a-f]*\" does not exist" "$log" || true; }
	g0=$(gone) f0=$(locked)
	host_start a
	# A code again is refused (moving no counter; the next one, c + 2,
	# is within the window).
	for c in 1 3 5 7 9 11; do
		[[ $(host_login a "$(hotp $c)") == accepted ]] ||
		    fail "code $c refused"
		[[ $(host_login a "$(hotp $c)") == refused* ]] ||
		    fail "code $c accepted twice"
	done
	host_stop a
	pg_bouncer_stop pg
	# Prepared once, gone at its first run by name, and that login went
	# on unnamed on the same connection, not the locked way on a new one.
	[[ $(($(gone) - g0)) == 1 ]] || fail "$(($(gone) - g0)) runs of a statement gone, not 1"
	# Only the refusals, which write nothing, may take the locked way.
	(($(locked) - f0 <= 6)) || fail "$(($(locked) - f0)) logins went the locked way"
	[[ $(psql -X -A -t -d "$DB" -c "SELECT uses FROM otp_tokens") == 6 ]]
}

@test "a column's type altered under a long-lived host: its prepared statement's plan is stale, the login runs it unnamed, none goes the locked way" {
	hosts_setup
	stale() { grep -c 'cached plan must not change result type' "$log" || true; }
	host_start a
	[[ $(host_login a "$(hotp 1)") == accepted ]] || fail "code 1 refused"
	[[ $(host_login a "$(hotp 2)") == accepted ]] || fail "code 2 refused"
	s0=$(stale) f0=$(locked)
	psql -X -q -d "$DB" -c "ALTER TABLE otp_tokens ALTER COLUMN kind TYPE varchar(8)"
	[[ $(host_login a "$(hotp 3)") == accepted ]] || fail "code 3 refused"
	[[ $(host_login a "$(hotp 4)") == accepted ]] || fail "code 4 refused"
	host_stop a
	[[ $(($(stale) - s0)) == 1 ]] || fail "$(($(stale) - s0)) stale plans run, not 1"
	[[ $(locked) == "$f0" ]] || fail "$(($(locked) - f0)) logins went the locked way"
	[[ $(psql -X -A -t -d "$DB" -c "SELECT uses FROM otp_tokens") == 4 ]]
}

@test "a row written back from a dump: a long-lived host that saw a newer one refuses it and logs it; reseal takes it back" {
	hosts_setup
	host_start a
	[[ $(host_login a "$(hotp 1)") == accepted ]] || fail "first login refused"
	# The row as a dump taken now holds it.
	psql -X -q -d "$DB" -c "CREATE TABLE saved AS SELECT * FROM otp_tokens"
	[[ $(host_login a "$(hotp 2)") == accepted ]] || fail "second login refused"
	[[ $(host_login a "$(hotp 3)") == accepted ]] || fail "third login refused"
	# Written back: codes 2 and 3 would count again.
	psql -X -q -d "$DB" -c "UPDATE otp_tokens t SET state = s.state,
	    scratch = s.scratch, gen = s.gen, failures = s.failures,
	    locked_until = s.locked_until FROM saved s WHERE t.login = s.login"
	[[ $(host_login a "$(hotp 2)") == refused* ]] || fail "a used code accepted again"
	[[ $(host_login a "$(hotp 4)") == refused* ]] || fail "an old row taken"
	run -0 otp-store log --user="$PAM_USER" "$URL"
	assert_line --partial "older than one this host has seen"
	# The administrator's reseal after a restore: served again.
	run -0 otp-store --store-key="$K" reseal "$URL"
	[[ $(host_login a "$(hotp 4)") == accepted ]] || fail "resealed, refused"
	host_stop a
}

@test "store=postgresql://: deny= and unlock_time= count in the row; the audit trail names the host" {
	service t "auth required @MOD@ $OPTS deny=2 unlock_time=600"
	pam_run t 000001
	refused
	pam_run t 000002
	refused
	pam_run t "$(totp $T0)"
	refused
	[[ $(psql -X -A -t -d "$DB" -c "SELECT failures FROM otp_tokens") == 2 ]]
	run -0 otp-store --store-key="$K" unlock "$URL" "$PAM_USER"
	pam_run t "$(totp $T0)"
	accepted
	run -0 otp-store log "$URL"
	assert_line --index 0 --regexp $'\t'"$(hostname)"$'\trefuse\twrong code$'
	assert_line --index 2 --regexp $'\trefuse\tlocked out$'
	service t "auth required @MOD@ $OPTS deny=x"
	pam_run t "$(totp $T0)"
	refused
	assert_output --partial "deny must be"
}

@test "store=postgresql:// linger=: two servers on one store agree on a lingering answer; never from another client; a new code checked; a lock-out refuses it" {
	local c0 c1
	service t "auth required @MOD@ $OPTS linger=600 deny=2"
	c0=$(totp $T0)
	# Each pamtester is a server of its own: no row kept between them.
	pam_run t "$c0" -I rhost=127.0.0.1
	accepted
	state=$(psql -X -A -t -d "$DB" -c "SELECT encode(state, 'hex') FROM otp_tokens")
	NOW=$((T0 + 5))
	pam_run t "$c0" -I rhost=127.0.0.1
	accepted
	assert_output --regexp "SYSLOG 6: .*accepted lingering answer"
	# The time moved: the row was written with it, no use counted.
	[[ $(psql -X -A -t -d "$DB" -c "SELECT encode(state, 'hex') FROM otp_tokens") != "$state" ]]
	[[ $(psql -X -A -t -d "$DB" -c "SELECT uses FROM otp_tokens") == 1 ]]
	pam_run t "$c0" -I rhost=127.0.0.2
	refused
	pam_run t "$c0"
	refused
	service u "auth required @MOD@ $OPTS deny=2"
	pam_run u "$c0" -I rhost=127.0.0.1
	refused
	NOW=$((T0 + 30))
	c1=$(totp $NOW)
	pam_run t "$c1" -I rhost=127.0.0.1
	accepted
	assert_output --regexp "SYSLOG 6: .*accepted verification code"
	pam_run t "$c0" -I rhost=127.0.0.1
	accepted
	run -0 otp-store log "$URL"
	assert_output --regexp $'\taccept\tlingering answer'
	# Wrong answers count; locked out, a lingering answer is refused.
	pam_run t 000001 -I rhost=127.0.0.1
	refused
	pam_run t "$c1" -I rhost=127.0.0.1
	accepted
	pam_run t 000002 -I rhost=127.0.0.1
	refused
	[[ $(psql -X -A -t -d "$DB" -c "SELECT failures FROM otp_tokens") == 2 ]]
	pam_run t "$c1" -I rhost=127.0.0.1
	refused
	NOW=$((T0 + 2000))
	run -0 otp-store --store-key="$K" unlock "$URL" "$PAM_USER"
	pam_run t "$c1" -I rhost=127.0.0.1
	refused
}

@test "store=postgresql:// linger=: 20 logins at once with one fresh code from one client: one by the code, the rest lingering; from another client none" {
	pam_threads_build
	mkdir -m 0755 "$D/conf"
	printf 'auth required %s %s linger=600\n' "$OTP_SO" "$OPTS" >"$D/conf/t"
	code=$(otp-gen --totp -b "$KEY")
	run env LD_PRELOAD="$ASAN_SO $SHIM_SO" \
	    "$D/pam-threads" "$D/conf" t "$PAM_USER" "$code" 20 127.0.0.1
	assert_output --partial "accepted 20 refused 0 leaks 0"
	[[ $(grep -c "accepted verification code" <<<"$output") == 1 ]]
	[[ $(grep -c "accepted lingering answer" <<<"$output") == 19 ]]
	run env LD_PRELOAD="$ASAN_SO $SHIM_SO" \
	    "$D/pam-threads" "$D/conf" t "$PAM_USER" "$code" 20 127.0.0.2
	assert_output --partial "accepted 0 refused 20 leaks 0"
	[[ $(psql -X -A -t -d "$DB" -c "SELECT uses FROM otp_tokens") == 1 ]]
}

#!/usr/bin/env bats
# shellcheck disable=SC2154  # status and output come from bats' run
# failover.bats - the PostgreSQL store across a database failover, as root
# (make check-e2e; issue 25).  On 127.0.0.1 (tests/pgcluster.bash): a
# primary and a synchronous standby (pg_basebackup, synchronous_standby_names
# = '*'), every front end given both as one multi-host URL
#
#	postgresql://postgres@127.0.0.1:P1,127.0.0.1:P2/otp?target_session_attrs=read-write
#
# - the primary killed (pg_ctl -m immediate): logins refused while no
#   server can write, each within the deadline (+1 s); the standby
#   promoted: a code accepted before the crash is refused (0 replays), the
#   next code accepted; through otp-verify and through a long-lived PAM
#   host that keeps its pooled connections across the failover;
# - the standby lost under synchronous commit: the COMMIT waits for ever on
#   the server, so the store cancels it at the deadline: refused within the
#   deadline, not hung, nothing accepted; the standby back, served again.
#
# Codes: TOTP (the store forces DISALLOW_REUSE) with the real clock, a
# window of 17 steps (+-4 minutes) and each code taken at a step of its
# own from a base step fixed at the test's start: code k is the one of
# step base + k, so that "the same code" and "the next code" do not
# depend on when a step ends.  The long-lived host is a small threaded
# PAM host written below (one process; each line it reads runs N logins
# at once through the real /etc/pam.d service of this suite).

bats_require_minimum_version 1.5.0

DEADLINE_MS=1500
LIMIT_MS=$((DEADLINE_MS + 1000))	# issue 25: the deadline plus a second
KEY=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP
KEY2=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ

setup_file() {
	load ../common
	load lib
	load ../pgcluster
	local reason
	e2e_setup_file
	reason=$(pg_cluster_available) || skip "e2e: $reason"
	PG_SO=$OTP_LIBDIR/otp-utils/store-pg.so
	if [[ ! -f $PG_SO ]]; then
		fail "$PG_SO not built"
		return 1
	fi
	write_host_c >"$E2E_DIR/fo-host.c"
	e2e_cc fo-host "$E2E_DIR/fo-host.c" -lpam -lpthread
	SHIM=$(e2e_syslog_shim)
	export PG_SO SHIM
}

teardown_file() {
	load ../common
	load lib
	e2e_teardown_file
}

setup() {
	load ../common
	load lib
	load ../pgcluster
	[[ -n ${E2E_DIR:-} ]] || skip "e2e: suite not set up"
	T=$E2E_DIR/t$BATS_TEST_NUMBER
	mkdir -m 0755 "$T"
	K=$T/store.key
	export OTP_STORE_MODULE=$PG_SO
	HOSTS=()
	# The base step: code k is the code of step BASE + k.
	BASE=$(($(date +%s) / 30))
}

teardown() {
	local h
	for h in "${HOSTS[@]}"; do
		e2e_daemon_stop "$h" || true
	done
	pg_cluster_stop immediate
}

# write_host_c: the long-lived PAM host's source.
#
#	fo-host SERVICE FIFO
#
# prints "ready", then for each line "USER N CODE" read from FIFO runs N
# logins at once (pam_start(SERVICE), pam_authenticate answering CODE,
# pam_end) and prints "accepted A refused R maxms M" (M: the slowest
# login's milliseconds).  It opens FIFO for reading and writing, so that
# it never sees its end; "quit" ends it.
write_host_c() {
	cat <<'EOF'
#include <security/pam_appl.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXN 64

static const char *service;
static char user[256], code[64];
static pthread_barrier_t bar;
static atomic_int acc, ref;
static atomic_long maxms;

static long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static int
conv(int n, const struct pam_message **m, struct pam_response **r, void *d)
{
	struct pam_response *a;
	int i;

	(void)d;
	if (n <= 0 || (a = calloc((size_t)n, sizeof(*a))) == NULL)
		return PAM_CONV_ERR;
	for (i = 0; i < n; i++)
		if (m[i]->msg_style == PAM_PROMPT_ECHO_OFF ||
		    m[i]->msg_style == PAM_PROMPT_ECHO_ON)
			a[i].resp = strdup(code);
	*r = a;
	return PAM_SUCCESS;
}

static void *
login(void *arg)
{
	struct pam_conv c = { conv, NULL };
	pam_handle_t *h = NULL;
	long t0, ms, old;
	int rc;

	(void)arg;
	pthread_barrier_wait(&bar);
	t0 = now_ms();
	rc = pam_start(service, user, &c, &h);
	if (rc == PAM_SUCCESS)
		rc = pam_authenticate(h, 0);
	if (h != NULL)
		pam_end(h, rc);
	ms = now_ms() - t0;
	atomic_fetch_add(rc == PAM_SUCCESS ? &acc : &ref, 1);
	old = atomic_load(&maxms);
	while (ms > old && !atomic_compare_exchange_weak(&maxms, &old, ms))
		;
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t t[MAXN];
	char line[512];
	FILE *in;
	int n, i, fd;

	if (argc != 3) {
		fprintf(stderr, "usage: fo-host SERVICE FIFO\n");
		return 2;
	}
	service = argv[1];
	if ((fd = open(argv[2], O_RDWR)) < 0 || (in = fdopen(fd, "r")) == NULL) {
		perror(argv[2]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ready\n");
	while (fgets(line, sizeof(line), in) != NULL) {
		if (strncmp(line, "quit", 4) == 0)
			break;
		if (sscanf(line, "%255s %d %63s", user, &n, code) != 3 ||
		    n < 1 || n > MAXN) {
			printf("bad line\n");
			continue;
		}
		atomic_store(&acc, 0);
		atomic_store(&ref, 0);
		atomic_store(&maxms, 0);
		pthread_barrier_init(&bar, NULL, (unsigned)n);
		for (i = 0; i < n; i++)
			pthread_create(&t[i], NULL, login, NULL);
		for (i = 0; i < n; i++)
			pthread_join(t[i], NULL);
		pthread_barrier_destroy(&bar);
		printf("accepted %d refused %d maxms %ld\n", atomic_load(&acc),
		    atomic_load(&ref), atomic_load(&maxms));
	}
	return 0;
}
EOF
}

# say TEXT: a line in bats' report (the measurements).
say() {
	printf '# %s\n' "$*" >&3
}

# pair PRIMARY STANDBY: a primary, a synchronous standby streaming from
# it, the store initialised; sets P1, P2 and URL.
pair() {
	pg_cluster_start "$T" "$1" || { fail "no primary"; return 1; }
	pg_standby_start "$1" "$2" || { fail "no standby"; return 1; }
	pg_sync_on "$1" || { fail "no synchronous standby"; return 1; }
	P1=$(pg_cluster_port "$1")
	P2=$(pg_cluster_port "$2")
	URL="postgresql://postgres@127.0.0.1:$P1,127.0.0.1:$P2/otp?target_session_attrs=read-write"
	run -0 otp-store --store-key="$K" init "$URL"
}

# token USER KEY: USER's TOTP token in the store (window 17 steps).
token() {
	printf '%s\n' "$2" '" TOTP_AUTH' '" WINDOW_SIZE 17' >"$T/tok-$1"
	chmod 0400 "$T/tok-$1"
	run -0 otp-store --store-key="$K" copy --user="$1" "ga:$T/tok-$1" "$URL"
}

# code KEY K: the code of step BASE + K.
code() {
	otp-gen --totp -b -N "@$(((BASE + $2) * 30))" "$1"
}

# sql PORT SQL: one answer from the server on PORT.
sql() {
	psql -X -A -t -h 127.0.0.1 -p "$1" -U postgres -d otp -c "$2"
}

# verify USER CODE: otp-verify against the store (a hang ends at 30 s);
# status and output as bats' run, MS the milliseconds it took.
verify() {
	local t0
	t0=${EPOCHREALTIME/./}
	run timeout 30 otp-verify --store="$URL" --user="$1" --store-key="$K" \
	    --store-timeout="${DEADLINE_MS}ms" "$2"
	MS=$(((${EPOCHREALTIME/./} - t0) / 1000))
	echo "# otp-verify $1: status $status, $MS ms: $output"
}

accepted() {
	[[ $status == 0 ]] || fail "not accepted (status $status): $output"
}

# refused_in_time: refused (never an accept), and within the deadline + 1 s.
refused_in_time() {
	[[ $status != 0 ]] || fail "accepted: $output"
	[[ $status != 124 ]] || fail "hung: killed after 30 s"
	((MS <= LIMIT_MS)) || fail "refused after $MS ms (> $LIMIT_MS)"
}

# host_start NAME APP: the long-lived PAM host NAME, its service's URL
# carrying application_name=APP (so that its connections can be counted).
host_start() {
	local i
	printf '%s\n' "auth required $OTP_LIBDIR/pam_otp.so store=$URL&application_name=$2 store_key=$K store_module=$PG_SO store_timeout=$DEADLINE_MS" \
	    'account required pam_permit.so' | e2e_pam_service "$E2E_TAG-$1"
	mkfifo -m 0600 "$T/$1.in"
	: >"$T/$1.out"
	e2e_daemon_start "$1" "$T/$1.out" env LD_PRELOAD="$SHIM" \
	    E2E_SYSLOG="$T/$1.syslog" "$E2E_DIR/fo-host" "$E2E_TAG-$1" \
	    "$T/$1.in" >/dev/null
	HOSTS+=("$1")
	for ((i = 0; i < 100; i++)); do
		grep -qx ready "$T/$1.out" && return 0
		sleep 0.05
	done
	fail "host $1 did not start: $(cat "$T/$1.out")"
}

# host_login NAME USER N CODE: N logins at once in host NAME; sets
# HOST_ACC, HOST_REF and HOST_MS (the slowest login).  Fails when the host
# does not answer within 30 s.
host_login() {
	local out=$T/$1.out n i line
	e2e_alive "$(e2e_daemon_pid "$1")" || { fail "host $1 is gone"; return 1; }
	n=$(grep -c '^accepted ' "$out" || true)
	printf '%s %s %s\n' "$2" "$3" "$4" >"$T/$1.in"
	for ((i = 0; i < 600; i++)); do
		(($(grep -c '^accepted ' "$out" || true) > n)) && break
		sleep 0.05
	done
	line=$(grep '^accepted ' "$out" | sed -n "$((n + 1))p")
	echo "# host $1 ($3 x $2): $line"
	if [[ -z $line ]]; then
		fail "host $1: no answer within 30 s (hung)"
		return 1
	fi
	read -r _ HOST_ACC _ HOST_REF _ HOST_MS <<<"$line"
}

# conns PORT APP: how many connections APP holds on the server on PORT.
conns() {
	sql "$1" "SELECT count(*) FROM pg_stat_activity WHERE application_name = '$2'"
}

@test "failover: accepted on the primary; killed: refused within the deadline; promoted: the same code refused (0 replays), the next accepted; a long-lived host served throughout" {
	local c0 c1 h0 h1 i replays=0 outage=()
	pair a1 a2
	token cli "$KEY"
	token hst "$KEY2"
	c0=$(code "$KEY" 0)
	c1=$(code "$KEY" 1)
	h0=$(code "$KEY2" 0)
	h1=$(code "$KEY2" 1)
	host_start ha ha

	# Both front ends accept once on the primary; the host keeps its one
	# connection from one login to the next.
	verify cli "$c0"
	accepted
	host_login ha hst 1 "$h0"
	((HOST_ACC == 1)) || fail "host: not accepted"
	host_login ha hst 1 "$h0"
	((HOST_ACC == 0)) || fail "host: accepted twice"
	[[ $(conns "$P1" ha) == 1 ]] || fail "the host keeps no pooled connection"

	# The primary crashes: no server can write (the standby is read-only).
	pg_cluster_stop immediate a1
	for i in 1 2 3; do
		verify cli "$c1"
		refused_in_time
		outage+=("$MS")
	done
	assert_output --partial "database error"
	host_login ha hst 1 "$h1"
	((HOST_ACC == 0)) || fail "host: accepted while no server can write"
	((HOST_MS <= LIMIT_MS)) || fail "host: refused after $HOST_MS ms"
	outage+=("host:$HOST_MS")

	# Promoted: what the primary acknowledged is there; nothing replays.
	pg_promote a2
	for i in 1 2; do
		verify cli "$c0"
		[[ $status != 0 ]] || replays=$((replays + 1))
		host_login ha hst 1 "$h0"
		replays=$((replays + HOST_ACC))
	done
	verify cli "$c0"
	assert_output --partial "already used"
	((replays == 0)) || fail "$replays replays after the failover"
	verify cli "$c1"
	accepted
	host_login ha hst 1 "$h1"
	((HOST_ACC == 1)) || fail "host: the next code refused after promotion"
	[[ $(conns "$P2" ha) == 1 ]] || fail "the host is not pooled on the new primary"
	[[ $(sql "$P2" "SELECT string_agg(uses::text, ' ' ORDER BY login) FROM otp_tokens") == "2 2" ]]
	say "refusals while no server could write (ms, deadline $DEADLINE_MS): ${outage[*]}; replays: $replays"
}

# A threaded host (FreeRADIUS's rlm_pam) keeps several idle connections.
# When their server dies they all look alive (PQstatus) until used: each
# must be noticed and replaced, so that the first login once a server can
# write again is served, however many dead ones the pool still holds.
@test "failover: a host holding several pooled connections serves the first login after promotion" {
	local c0 c1 c2 i refused_after=0 ok=0
	pair b1 b2
	token hst "$KEY"
	c0=$(code "$KEY" 0)
	c1=$(code "$KEY" 1)
	c2=$(code "$KEY" 2)
	host_start hb hb
	# 8 logins at once, as a threaded server runs them: one accept, and
	# the host keeps several connections.
	host_login hb hst 8 "$c0"
	((HOST_ACC == 1 && HOST_REF == 7)) || fail "not exactly one accept"
	(($(conns "$P1" hb) >= 2)) || fail "fewer than 2 pooled connections"
	say "pooled connections before the crash: $(conns "$P1" hb)"

	pg_cluster_stop immediate b1
	host_login hb hst 1 "$c1"
	((HOST_ACC == 0)) || fail "accepted while no server can write"
	((HOST_MS <= LIMIT_MS)) || fail "refused after $HOST_MS ms"
	pg_promote b2

	# The next code is accepted by the first login that offers it; the
	# code used before the crash never comes back.
	for ((i = 0; i < 10; i++)); do
		host_login hb hst 1 "$c2"
		if ((HOST_ACC == 1)); then
			ok=1
			break
		fi
		refused_after=$((refused_after + 1))
	done
	say "logins refused after promotion before the first accept: $refused_after"
	host_login hb hst 4 "$c0"
	((HOST_ACC == 0)) || fail "a replay after the failover"
	((ok == 1)) || fail "never served again after promotion"
	((refused_after == 0)) ||
	    fail "$refused_after valid login(s) refused after promotion (dead pooled connections)"
}

@test "a standby lost under synchronous commit: refused within the deadline, not hung; nothing accepted; the standby back: served" {
	local c0 c1 c2 c3 h1 data i times=()
	pair c1 c2
	token cli "$KEY"
	token hst "$KEY2"
	c0=$(code "$KEY" 0)
	c1=$(code "$KEY" 1)
	c2=$(code "$KEY" 2)
	c3=$(code "$KEY" 3)
	h1=$(code "$KEY2" 1)
	host_start hc hc
	verify cli "$c0"
	accepted

	# The standby stops; the primary keeps synchronous_standby_names.
	data=$(pg_cluster_data c2)
	(cd / && runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$data" -m immediate \
	    -w stop) >/dev/null || fail "cannot stop the standby"
	verify cli "$c1"
	refused_in_time
	assert_output --partial "outcome is unknown"
	((MS >= DEADLINE_MS - 100)) || fail "refused in $MS ms: before the commit's deadline?"
	times+=("$MS")
	verify cli "$c2"
	refused_in_time
	times+=("$MS")
	host_login hc hst 1 "$h1"
	((HOST_ACC == 0)) || fail "host: accepted without the standby"
	((HOST_MS <= LIMIT_MS)) || fail "host: refused after $HOST_MS ms"
	times+=("host:$HOST_MS")
	grep -q "deadline" "$T/hc.syslog" || fail "no reason logged: $(cat "$T/hc.syslog")"
	verify cli "$c0"
	[[ $status != 0 ]] || fail "a replay"
	say "refusals without the synchronous standby (ms, deadline $DEADLINE_MS): ${times[*]}"

	# The standby back: served again.
	(cd / && runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$data" \
	    -l "$data/../server.log" -w start) </dev/null >/dev/null 2>&1 \
	    3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&- ||
	    fail "cannot restart the standby"
	for ((i = 0; i < 100; i++)); do
		[[ $(sql "$P1" "SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'") == 1 ]] && break
		sleep 0.1
	done
	verify cli "$c3"
	accepted
}

@test "e2e: nothing is left behind" {
	local left
	e2e_cleanup
	e2e_check_clean
	# No server of this suite still runs (pgcluster's, under E2E_DIR).
	left=$(pgrep -af -- "$E2E_DIR" || true)
	[[ -z $left ]] || fail "processes left: $left"
}

# shellcheck shell=bash
# radius.bash - FreeRADIUS for tests/e2e/radius.bats and tests/bench:
# one server from one config tree of our own, made from the shipped
# example examples/freeradius (rad_conf), run unprivileged as the freerad
# account on 127.0.0.1, with up to five virtual servers, each on its own
# port:
#
#	exec	rlm_exec running otp-verify --radius --state-dir=DIR/exec
#	pam	rlm_pam running the PAM service RAD_PAM_SVC, which holds
#		pam_otp.so secret=DIR/pam/${USER} user=freerad
#	ga	rlm_pam running RAD_GA_SVC with pam_google_authenticator.so the
#		same way (only when RAD_GA_SVC is set: the bench compares)
#	uexec	rlm_exec running otp-verify --radius
#		--usersfile=DIR/uexec/users.oath (one users file for all)
#	upam	rlm_pam running the PAM service RAD_UPAM_SVC, which holds
#		pam_otp.so usersfile=DIR/upam/users.oath
#		(uexec and upam only when their ports are given)
#
# A fleet (tests/e2e/fleet.bats, tests/demo-fleet.sh): servers of one
# virtual server each, rlm_pam running pam_otp.so store=postgresql://
# from the example's pam.d/radius-otp-pg, sharing one database (the
# functions at the end).
#
# Nothing here needs bats: the bench and the fleet's demo source it too.
# /etc/pam.d files are written by the caller (the suites through
# lib.bash's ledger, the bench and the demo with their own traps); this
# file never touches /etc and never /etc/freeradius.

RAD_SECRET=otp-e2e-secret
RAD_ACCOUNT=freerad
RAD_SBIN=/usr/sbin/freeradius
# The shipped example configuration that rad_conf starts from.
RAD_EXAMPLE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../examples/freeradius" &&
    pwd)

# rad_as CMD...: run CMD as the server's account.
rad_as() {
	setpriv --reuid="$RAD_ACCOUNT" --regid="$RAD_ACCOUNT" --clear-groups \
	    -- "$@"
}

# rad_tree DIR OTP_BIN OTP_LIBDIR: DIR (new) becomes the server's tree,
# owned by the account, 0700: copies of otp-verify, otp-keygen and
# pam_otp.so (the build tree may not be open to the account), the state
# directories exec/ and pam/ (and ga/), the users files' uexec/ and upam/.
rad_tree() {
	local d=$1
	mkdir -p "$d/bin" "$d/exec" "$d/pam" "$d/ga" "$d/uexec" "$d/upam" \
	    "$d/log" || return 1
	cp "$2/otp-verify" "$2/otp-keygen" "$2/otp-gen" "$d/bin/" || return 1
	cp "$3/pam_otp.so" "$d/bin/" || return 1
	# The account runs the syslog listener: the checkout may be closed
	# to it (a 0700 directory), this tree is not.
	cp "$(dirname "${BASH_SOURCE[0]}")/syslog-sock.py" "$d/bin/" ||
	    return 1
	chmod 0755 "$d/bin" "$d/bin/"*
	chown -R "$RAD_ACCOUNT:$RAD_ACCOUNT" "$d"
	chmod 0700 "$d"
}

# rad_subst FILE FROM TO [FROM TO]...: replace every FROM in FILE with
# TO, in turn; fails, naming FILE and FROM, when a FROM is not in FILE,
# so that the shipped example and what the tests run cannot part
# silently.
rad_subst() {
	local f=$1 text
	shift
	text=$(<"$f") || return 1
	while (($# >= 2)); do
		if [[ $text != *"$1"* ]]; then
			echo "radius.bash: $f has no \"$1\"" >&2
			return 1
		fi
		text=${text//"$1"/"$2"}
		shift 2
	done
	printf '%s\n' "$text" >"$f"
}

# The program lines of examples/freeradius/mods-enabled/otp_exec and the
# auth lines of its pam.d/radius-otp: a state file per user, and one
# users file for all (commented out).
RAD_X_STATE='program = "/usr/bin/otp-verify --radius --state-dir=/var/lib/otp-radius"'
RAD_X_USERS='#program = "/usr/bin/otp-verify --radius --usersfile=/var/lib/otp-radius/users.oath"'
# shellcheck disable=SC2016  # ${USER} is pam_otp.so's to expand
RAD_P_STATE='auth	required	pam_otp.so secret=/var/lib/otp-radius/${USER} user=freerad'
RAD_P_USERS='#auth	required	pam_otp.so usersfile=/var/lib/otp-radius/users.oath'

# rad_conf DIR EXEC_PORT PAM_PORT [GA_PORT [UEXEC_PORT UPAM_PORT]]: the
# server's configuration in DIR, made from examples/freeradius (RAD_EXAMPLE)
# by replacing only what a test server must have otherwise: paths into
# DIR, the client's secret, ports on 127.0.0.1, and no delays (requests
# are refused at once, so that the tests and the bench measure the check
# itself).  The example's one virtual server becomes one per path, each
# on its port (an empty GA_PORT: no ga server):
#
#	exec	otp_exec as shipped, --state-dir=DIR/exec
#	pam	otp_pam as shipped, the service RAD_PAM_SVC
#	ga	otp_pam again as gapam, the service RAD_GA_SVC
#	uexec	otp_exec with the example's users-file line, DIR/uexec
#	upam	otp_pam again as upam, the service RAD_UPAM_SVC
rad_conf() {
	local d=$1 pe=$2 pp=$3 pg=${4:-} pue=${5:-} pup=${6:-}
	rad_conf_base "$d" "$RAD_PAM_SVC" || return 1
	rad_site "$d" exec "$pe" otp_exec || return 1
	rad_site "$d" pam "$pp" otp_pam || return 1
	if [[ -n $pg ]]; then
		rad_module "$d" otp_pam gapam 'pam otp_pam' 'pam gapam' \
		    'pam_auth = radius-otp' "pam_auth = $RAD_GA_SVC" || return 1
		rad_site "$d" ga "$pg" gapam || return 1
	fi
	if [[ -n $pue ]]; then
		rad_module "$d" otp_exec uexec 'exec otp_exec {' 'exec uexec {' \
		    "	$RAD_X_STATE
" '' \
		    "$RAD_X_USERS" "${RAD_X_USERS#\#}" \
		    /var/lib/otp-radius/users.oath "$d/uexec/users.oath" \
		    /usr/bin/otp-verify "$d/bin/otp-verify" || return 1
		rad_module "$d" otp_pam upam 'pam otp_pam' 'pam upam' \
		    'pam_auth = radius-otp' "pam_auth = $RAD_UPAM_SVC" || return 1
		rad_site "$d" uexec "$pue" uexec || return 1
		rad_site "$d" upam "$pup" upam || return 1
	fi
	chown -R "$RAD_ACCOUNT:$RAD_ACCOUNT" "$d/radiusd.conf" \
	    "$d/clients.conf" "$d/mods-enabled" "$d/sites-enabled"
}

# rad_conf_base DIR SERVICE: what every server of rad_conf and
# rad_pg_conf has: radiusd.conf and clients.conf from the example with
# paths into DIR, the client's secret and no delays; the modules otp_exec
# (--state-dir=DIR/exec) and otp_pam (the PAM service SERVICE).  No
# virtual server yet: the caller adds them (rad_site).
rad_conf_base() {
	local d=$1 x=$RAD_EXAMPLE
	mkdir -p "$d/mods-enabled" "$d/sites-enabled" || return 1
	cp "$x/radiusd.conf" "$x/clients.conf" "$d/" || return 1
	# shellcheck disable=SC2016  # ${...} are the server's to expand
	rad_subst "$d/radiusd.conf" \
	    'localstatedir = /var' "localstatedir = $d" \
	    'logdir = ${localstatedir}/log/freeradius' "logdir = $d/log" \
	    'raddbdir = ${sysconfdir}/otp-radius' "raddbdir = $d" \
	    'run_dir = ${localstatedir}/run/freeradius' "run_dir = $d" \
	    'cleanup_delay = 5' 'cleanup_delay = 0' \
	    'reject_delay = 1' 'reject_delay = 0' || return 1
	rad_subst "$d/clients.conf" \
	    'secret = change-this-secret' "secret = $RAD_SECRET" || return 1
	cp "$x/mods-enabled/otp_exec" "$x/mods-enabled/otp_pam" \
	    "$d/mods-enabled/" || return 1
	rad_subst "$d/mods-enabled/otp_exec" \
	    "$RAD_X_STATE" "${RAD_X_STATE/\/var\/lib\/otp-radius/$d/exec}" \
	    /usr/bin/otp-verify "$d/bin/otp-verify" || return 1
	rad_subst "$d/mods-enabled/otp_pam" \
	    'pam_auth = radius-otp' "pam_auth = $2"
}

# rad_module DIR FROM NAME [FROM TO]...: DIR/mods-enabled/NAME, a copy of
# the example's module FROM with the replacements given.
rad_module() {
	local d=$1 from=$2 name=$3
	shift 3
	cp "$RAD_EXAMPLE/mods-enabled/$from" "$d/mods-enabled/$name" &&
	    rad_subst "$d/mods-enabled/$name" "$@"
}

# rad_site DIR NAME PORT MODULE: DIR/sites-enabled/NAME, the example's
# virtual server as NAME on 127.0.0.1:PORT, every request for MODULE (for
# a copy of otp_pam, its instances, load-balanced as otp_pam's are).
rad_site() {
	local d=$1 f=$1/sites-enabled/$2 m=$4
	local -a more=()
	cp "$RAD_EXAMPLE/sites-enabled/otp" "$f" || return 1
	# A tree without the python module (rad_py_conf adds it) has no
	# otp_python for the example's Auth-Type otp_python.
	[[ -f $d/mods-enabled/otp_python ]] || more=("$RAD_PY_AUTH" '')
	# A copy of otp_pam (rad_module) takes its place, instances and
	# all; any other module the example does not name takes otp_exec's
	# place in the authenticate section.  otp_python's authorize sets
	# Auth-Type: it takes the update's place, as the example says.
	case $m in
	otp_pam | otp_exec) ;;
	otp_python) more+=("update control {
			&Auth-Type := otp_python
		}" otp_python) ;;
	*) if grep -q "^pam $m {" "$d/mods-enabled/$m"; then
		more+=(otp_pam "$m")
	else
		more+=("Auth-Type otp_exec {
			otp_exec
		}" "Auth-Type $m {
			$m
		}")
	fi ;;
	esac
	rad_subst "$f" 'server otp {' "server $2 {" \
	    'ipaddr = *' 'ipaddr = 127.0.0.1' 'port = 1812' "port = $3" \
	    '&Auth-Type := otp_pam' "&Auth-Type := $m" "${more[@]}"
}

# The example's authenticate entry for otp_python.
RAD_PY_AUTH='		Auth-Type otp_python {
			otp_python
		}
'

# rad_one_instance DIR NAME MODULE: the server NAME of rad_conf runs
# MODULE, a copy of otp_pam, in its first instance only: one login at a
# time, for a PAM module that is not thread-safe.
rad_one_instance() {
	local f=$1/sites-enabled/$2
	grep -q "^[[:space:]]*${3}_2\$" "$f" || {
		echo "radius.bash: $f has no instance ${3}_2" >&2
		return 1
	}
	sed -i "/^[[:space:]]*${3}_[0-9][0-9]*\$/d" "$f"
}

# rad_pam_service DIR: the rlm_pam service, the example's
# pam.d/radius-otp as shipped: one state file per user in DIR/pam, owned
# by the server's account.
rad_pam_service() {
	local f=$1/pam.d-pam line=${RAD_P_STATE/pam_otp.so/$1/bin/pam_otp.so}
	cp "$RAD_EXAMPLE/pam.d/radius-otp" "$f" &&
	    rad_subst "$f" "$RAD_P_STATE" \
	    "${line/\/var\/lib\/otp-radius/$1/pam}" && cat "$f"
}

# rad_upam_service DIR: the same with the example's users-file line: one
# users file for every user, DIR/upam/users.oath, the account's.
rad_upam_service() {
	local f=$1/pam.d-upam line=${RAD_P_USERS#\#}
	line=${line/pam_otp.so/$1/bin/pam_otp.so}
	cp "$RAD_EXAMPLE/pam.d/radius-otp" "$f" &&
	    rad_subst "$f" "$RAD_P_STATE
" '' "$RAD_P_USERS" "${line/\/var\/lib\/otp-radius/$1/upam}" &&
	    cat "$f"
}

# rad_ga_service DIR: the rlm_pam service with pam_google_authenticator.so
# the same way (not in the example: the bench compares).
rad_ga_service() {
	# shellcheck disable=SC2016  # the module expands ${USER}
	printf 'auth required pam_google_authenticator.so secret=%s/ga/${USER} user=%s\n' \
	    "$1" "$RAD_ACCOUNT"
	echo "account required pam_permit.so"
}

# rad_check DIR: the server's own check of the tree (freeradius -C).
rad_check() {
	rad_as "$RAD_SBIN" -C -d "$1" -n radiusd
}

# rad_enrol DIR KIND USER [OTP-KEYGEN OPTION...]: a TOTP state file
# DIR/KIND/USER made by otp-keygen as the server's account (mode 0400,
# its owner), with 3 scratch codes in DIR/KIND/USER.scratch; prints the
# Base32 key.
rad_enrol() {
	local d=$1 kind=$2 u=$3
	shift 3
	rad_as "$d/bin/otp-keygen" --totp --scratch=3 \
	    --scratch-out="$d/$kind/.$u.scratch" --state="$d/$kind/$u" "$@"
}

# rad_uenrol DIR KIND USER: a TOTP token (HOTP/T30) for USER in the users
# file DIR/KIND/users.oath (KIND uexec or upam), added by otp-keygen as the
# server's account (the file its own, mode 0600); prints the Base32 key.
rad_uenrol() {
	rad_as "$1/bin/otp-keygen" --usersfile="$1/$2/users.oath" --user="$3" \
	    --totp
}

# rad_code KEY [OFFSET]: the TOTP code now (or OFFSET seconds from now).
rad_code() {
	"$OTP_BIN/otp-gen" --totp -b -N "@$(($(date +%s) + ${2:-0}))" "$1"
}

# rad_auth PORT USER CODE: one Access-Request through radclient; exit 0
# Access-Accept, 1 Access-Reject, 2 no answer.  The reply's attributes go
# to stdout.
rad_auth() {
	printf 'User-Name = "%s"\nUser-Password = "%s"\n' "$2" "$3" |
	    radclient -x -r 1 -t 10 "127.0.0.1:$1" auth "$RAD_SECRET" 2>&1 |
	    grep -E '^Received|Reply-Message' | sed 's/ Id .*//'
	return "${PIPESTATUS[1]}"
}

# rad_burst PORT N OUTDIR USER CODE...: N radclient processes at once
# (N hosts), each sending one request with the Ith code given (the last
# one repeated); OUTDIR/I gets the exit status of request I.
rad_burst() {
	local port=$1 n=$2 out=$3 user=$4 i c r
	shift 4
	local codes=("$@")
	mkdir -p "$out"
	for ((i = 1; i <= n; i++)); do
		c=${codes[$((i <= ${#codes[@]} ? i - 1 : ${#codes[@]} - 1))]}
		(
			r=0
			printf 'User-Name = "%s"\nUser-Password = "%s"\n' \
			    "$user" "$c" | radclient -q -r 1 -t 10 \
			    "127.0.0.1:$port" auth "$RAD_SECRET" || r=$?
			echo "$r" >"$out/$i"
		) &
	done
	wait
}

# rad_server DIR: exec the server (for a daemon starter: the PID stays
# the server's).  It runs as the account in a mount namespace of its own
# whose /dev is a small tmpfs: the usual device nodes bound from the real
# one, and /dev/log a link to DIR/syslog.sock, where rad_syslogd listens.
# pam_otp.so's log lines are thus read back by the tests; nothing outside
# the namespace changes (the real /dev has no /dev/log here, and must not
# get one).
rad_server() {
	if ! rad_can_unshare; then
		exec setpriv --reuid="$RAD_ACCOUNT" --regid="$RAD_ACCOUNT" \
		    --clear-groups -- "$RAD_SBIN" -f -d "$1" -n radiusd
	fi
	# shellcheck disable=SC2016  # the inner script expands its own
	exec unshare -m --propagation private -- sh -euc '
		d=$1
		mkdir -p "$d/.dev"
		mount --rbind /dev "$d/.dev"
		mount -t tmpfs -o mode=0755,size=64k otp-e2e-dev /dev
		for n in null zero full random urandom tty; do
			[ -e "$d/.dev/$n" ] || continue
			: >"/dev/$n"
			mount --bind "$d/.dev/$n" "/dev/$n"
		done
		mkdir /dev/pts /dev/shm
		ln -s /proc/self/fd /dev/fd
		ln -s /proc/self/fd/0 /dev/stdin
		ln -s /proc/self/fd/1 /dev/stdout
		ln -s /proc/self/fd/2 /dev/stderr
		ln -s "$d/syslog.sock" /dev/log
		umount -l "$d/.dev"
		exec setpriv --reuid="$2" --regid="$2" --clear-groups -- \
		    "$3" -f -d "$d" -n radiusd
	' sh "$1" "$RAD_ACCOUNT" "$RAD_SBIN"
}

# rad_can_unshare: a mount namespace can be made here (CAP_SYS_ADMIN; a
# container may not grant it).  Without one the server runs as it is, and
# its log lines cannot be read back.
rad_can_unshare() {
	unshare -m --propagation private -- true 2>/dev/null
}

# rad_syslogd DIR: exec the listener on DIR/syslog.sock, appending to
# DIR/log/syslog, as the account.
rad_syslogd() {
	rm -f "$1/syslog.sock"
	exec setpriv --reuid="$RAD_ACCOUNT" --regid="$RAD_ACCOUNT" \
	    --clear-groups -- /usr/bin/python3 "$1/bin/syslog-sock.py" \
	    "$1/syslog.sock" "$1/log/syslog"
}

# rad_wait_file PATH [SECONDS]: wait until PATH exists.
rad_wait_file() {
	local i
	for ((i = 0; i < ${2:-10} * 20; i++)); do
		[[ -e $1 ]] && return 0
		sleep 0.05
	done
	return 1
}

# ---- a fleet: several servers, one PostgreSQL store -------------------
#
# tests/e2e/fleet.bats and tests/demo-fleet.sh: each server is a tree of
# its own (rad_pg_tree) with one virtual server, rlm_pam running the
# example's pam.d/radius-otp-pg (rad_pg_conf, rad_pg_service), and every
# server names one database in a throwaway cluster of tests/pgcluster.bash
# (which the caller loads), stopped and started again in place by
# rad_db_stop and rad_db_start.

# The parts of the auth line of examples/freeradius/pam.d/radius-otp-pg
# that a test server has otherwise.
RAD_PG_URL='postgresql://otp@db1.example.org,db2.example.org/otp?target_session_attrs=read-write'
RAD_PG_KEY='store_key=/etc/otp-utils/store.key'
RAD_PG_TIMEOUT='store_timeout=3000'

# rad_sql SQL: one answer from the fleet's store, the cluster on PGPORT.
rad_sql() {
	psql -X -A -t -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PGPORT" \
	    -U postgres -d otp -c "$1"
}

# rad_server_conns: the connections open to the store but this one: the
# servers' (nothing else holds any between tests).
rad_server_conns() {
	rad_sql "SELECT count(*) FROM pg_stat_activity WHERE datname = 'otp'
	    AND backend_type = 'client backend' AND pid <> pg_backend_pid()"
}

# rad_new_user NAME: a TOTP token for NAME in the store URL, key K
# (otp-keygen --store, 5 scratch codes in BATS_TEST_TMPDIR/NAME.scratch);
# sets KEY.  A fresh step, so that a scenario stays in one.
rad_new_user() {
	# shellcheck disable=SC2034  # the suite's
	KEY=$(otp-keygen --store="$URL" --user="$1" --store-key="$K" \
	    2>"$BATS_TEST_TMPDIR/$1.scratch") ||
	    fail "otp-keygen --store for $1 failed"
	e2e_fresh_step 8
}

# rad_pg_tree DIR OTP_BIN OTP_LIBDIR KEYFILE: rad_tree's tree, with what
# else the server's account must read that the checkout may hide from it:
# DIR/bin/store-pg.so, and DIR/store.key, a copy of the store key KEYFILE,
# the account's, mode 0600.
rad_pg_tree() {
	local d=$1
	rad_tree "$d" "$2" "$3" || return 1
	cp "$3/otp-utils/store-pg.so" "$d/bin/" || return 1
	(umask 077 && cp "$4" "$d/store.key") || return 1
	chmod 0755 "$d/bin/store-pg.so" && chmod 0600 "$d/store.key" &&
	    chown "$RAD_ACCOUNT:$RAD_ACCOUNT" "$d/bin/store-pg.so" \
	    "$d/store.key"
}

# rad_pg_service DIR URL [TIMEOUT_MS]: the rlm_pam service, the example's
# pam.d/radius-otp-pg with the store at URL, its key DIR/store.key, a
# deadline of TIMEOUT_MS (1500), pam_otp.so and store-pg.so from DIR/bin.
rad_pg_service() {
	local d=$1 f=$1/pam.d-pg
	cp "$RAD_EXAMPLE/pam.d/radius-otp-pg" "$f" &&
	    rad_subst "$f" "	pam_otp.so " "	$d/bin/pam_otp.so " \
	    "store=$RAD_PG_URL" "store=$2" \
	    "$RAD_PG_KEY" "store_key=$d/store.key" \
	    "$RAD_PG_TIMEOUT" \
	    "store_timeout=${3:-1500} store_module=$d/bin/store-pg.so" &&
	    cat "$f"
}

# rad_pg_conf DIR PORT SERVICE: the configuration of a server of the
# fleet in DIR (rad_conf_base): one virtual server on 127.0.0.1:PORT,
# every request for otp_pam, which runs the PAM service SERVICE.
rad_pg_conf() {
	local d=$1
	rad_conf_base "$d" "$3" && rad_site "$d" pam "$2" otp_pam &&
	    chown -R "$RAD_ACCOUNT:$RAD_ACCOUNT" "$d/radiusd.conf" \
	    "$d/clients.conf" "$d/mods-enabled" "$d/sites-enabled"
}

# rad_pg_server N DIR PORT SVC URL KEY DEADLINE_MS: server N of a fleet
# on URL: its tree, PAM service SVC, configuration on PORT (checked with
# freeradius -C), its syslog listener and the server, started as e2e
# daemons syslogN and radiusN.  Returns 1, saying why, when a step fails.
rad_pg_server() {
	local n=$1 d=$2 port=$3 svc=$4 url=$5 key=$6 ms=$7 out
	local here
	here=$(dirname "${BASH_SOURCE[0]}")
	rad_pg_tree "$d" "$OTP_BIN" "$OTP_LIBDIR" "$key" || {
		echo "cannot make $d" >&2
		return 1
	}
	rad_pg_service "$d" "$url" "$ms" >"$d/pam.svc" || return 1
	e2e_pam_service "$svc" <"$d/pam.svc"
	rad_pg_conf "$d" "$port" "$svc" || {
		echo "cannot make the configuration from $RAD_EXAMPLE" >&2
		return 1
	}
	out=$(rad_check "$d" 2>&1) || {
		echo "freeradius -C: $out" >&2
		return 1
	}
	e2e_daemon_start "syslog$n" "$d/log/syslogd.out" bash -c \
	    "source '$here/radius.bash'; rad_syslogd '$d'" >/dev/null
	rad_wait_file "$d/syslog.sock" || {
		echo "no syslog socket" >&2
		return 1
	}
	e2e_daemon_start "radius$n" "$d/log/daemon.out" bash -c \
	    "source '$here/radius.bash'; rad_server '$d'" >/dev/null
}

# rad_fleet_burst OUTDIR USER CODE N PORT...: N radclient processes at
# once, each sending USER and CODE to the next PORT in turn (round
# robin); OUTDIR/I gets request I's answer and port: 0 Access-Accept,
# 1 Access-Reject, 2 none (radclient's own exit status is 1 for both a
# refusal and no answer).
rad_fleet_burst() {
	local out=$1 user=$2 code=$3 n=$4 i p
	shift 4
	local ports=("$@")
	mkdir -p "$out"
	for ((i = 1; i <= n; i++)); do
		p=${ports[$(((i - 1) % ${#ports[@]}))]}
		(
			case $(printf 'User-Name = "%s"\nUser-Password = "%s"\n' \
			    "$user" "$code" | radclient -x -r 1 -t 10 \
			    "127.0.0.1:$p" auth "$RAD_SECRET" 2>&1) in
			*"Received Access-Accept"*) r=0 ;;
			*"Received Access-Reject"*) r=1 ;;
			*) r=2 ;;
			esac
			echo "$r $p" >"$out/$i"
		) &
	done
	wait
}

# rad_ms: the time now in milliseconds (for a request's elapsed time).
rad_ms() {
	echo $(($(date +%s%N) / 1000000))
}

# rad_db_as CMD...: run CMD as the cluster's account (the server refuses
# root), from /, none of the caller's descriptors above 2 kept (a server
# holding bats' fd 3 keeps bats waiting).
rad_db_as() {
	if ((EUID == 0)); then
		(cd / && runuser -u postgres -- "$@") </dev/null 3>&- 4>&- 5>&- \
		    6>&- 7>&- 8>&- 9>&-
	else
		"$@" </dev/null 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&-
	fi
}

# rad_db_stop NAME [MODE]: stop the cluster NAME of tests/pgcluster.bash
# (MODE immediate, a crash, or fast), keeping it all (data, port,
# directory) for rad_db_start.
rad_db_stop() {
	local data
	data=$(pg_cluster_data "$1") || return 1
	rad_db_as "$PG_BIN/pg_ctl" -D "$data" -m "${2:-immediate}" -w -t 60 \
	    stop >/dev/null
}

# rad_db_start NAME: start the cluster NAME again where it was, on its
# port; returns once it takes connections.  A cluster that runs is left
# as it is.
rad_db_start() {
	local data
	data=$(pg_cluster_data "$1") || return 1
	! rad_db_as "$PG_BIN/pg_ctl" -D "$data" status >/dev/null 2>&1 ||
	    return 0
	rad_db_as "$PG_BIN/pg_ctl" -D "$data" -l "${data%/data}/server.log" \
	    -w -t 60 start >/dev/null
}

# ---- the python module: otputils in the server's threads ---------------
#
# tests/e2e/radius-python.bats and tests/bench/bench-pg.sh: the example's
# mods-enabled/otp_python (rlm_python3 running
# mods-config/python3/otp_radius.py, which logs in with otputils.Store),
# on a PostgreSQL store.

# The lines of examples/freeradius/mods-enabled/otp_python that a test
# server has otherwise.
# shellcheck disable=SC2016  # ${confdir} is the server's to expand
RAD_PY_PATH='python_path = "${confdir}/mods-config/python3"'
RAD_PY_STORE="store = \"$RAD_PG_URL\""
RAD_PY_OPTIONS='options = "store_key=/etc/otp-utils/store.key store_timeout=3000"'

# rad_py_tree DIR OTP_LIBDIR PYDIR: what the module needs in a tree of
# rad_pg_tree's: DIR/mods-config/python3/otp_radius.py (the example's),
# DIR/python/otputils (PYDIR's, the build's) and DIR/lib/libotputils.so.0,
# which the server finds through LD_LIBRARY_PATH.
rad_py_tree() {
	local d=$1
	mkdir -p "$d/mods-config/python3" "$d/python" "$d/lib" || return 1
	cp "$RAD_EXAMPLE/mods-config/python3/otp_radius.py" \
	    "$d/mods-config/python3/" || return 1
	cp -r "$3/otputils" "$d/python/" || return 1
	cp "$2/libotputils.so.0" "$d/lib/" || return 1
	chown -R "$RAD_ACCOUNT:$RAD_ACCOUNT" "$d/mods-config" "$d/python" \
	    "$d/lib"
}

# rad_py_module DIR URL [TIMEOUT_MS]: DIR/mods-enabled/otp_python, the
# example's, with the store at URL, its key DIR/store.key, a deadline of
# TIMEOUT_MS (1500), store-pg.so from DIR/bin and otputils from
# DIR/python.
rad_py_module() {
	local d=$1
	rad_module "$d" otp_python otp_python \
	    "$RAD_PY_PATH" "${RAD_PY_PATH%\"}:$d/python\"" \
	    "$RAD_PY_STORE" "store = \"$2\"" \
	    "$RAD_PY_OPTIONS" "options = \"store_key=$d/store.key store_timeout=${3:-1500} store_module=$d/bin/store-pg.so\""
}

# rad_py_conf DIR PORT URL DEADLINE_MS: the configuration of a server of
# the fleet in DIR (rad_conf_base): one virtual server on 127.0.0.1:PORT,
# every request for otp_python (rad_py_module).  The example's otp_pam,
# unused, names a PAM service that is not there.
rad_py_conf() {
	local d=$1
	rad_conf_base "$d" "$RAD_ACCOUNT-unused" &&
	    rad_py_module "$d" "$3" "$4" && rad_site "$d" py "$2" otp_python &&
	    chown -R "$RAD_ACCOUNT:$RAD_ACCOUNT" "$d/radiusd.conf" \
	    "$d/clients.conf" "$d/mods-enabled" "$d/sites-enabled"
}

# rad_py_server N DIR PORT URL KEY DEADLINE_MS: server N of a fleet on
# URL, every request for otp_python: its tree, configuration on PORT
# (checked with freeradius -C), its syslog listener and the server,
# started as e2e daemons syslogN and radiusN.  Returns 1, saying why,
# when a step fails.
rad_py_server() {
	local n=$1 d=$2 port=$3 url=$4 key=$5 ms=$6 out here
	here=$(dirname "${BASH_SOURCE[0]}")
	if ! rad_pg_tree "$d" "$OTP_BIN" "$OTP_LIBDIR" "$key" ||
	    ! rad_py_tree "$d" "$OTP_LIBDIR" "${OTP_PYDIR:-$OTP_LIBDIR/../python}"; then
		echo "cannot make $d" >&2
		return 1
	fi
	if ! rad_py_conf "$d" "$port" "$url" "$ms"; then
		echo "cannot make the configuration from $RAD_EXAMPLE" >&2
		return 1
	fi
	out=$(LD_LIBRARY_PATH=$d/lib rad_check "$d" 2>&1) || {
		echo "freeradius -C: $out" >&2
		return 1
	}
	e2e_daemon_start "syslog$n" "$d/log/syslogd.out" bash -c \
	    "source '$here/radius.bash'; rad_syslogd '$d'" >/dev/null
	rad_wait_file "$d/syslog.sock" || {
		echo "no syslog socket" >&2
		return 1
	}
	e2e_daemon_start "radius$n" "$d/log/daemon.out" env \
	    "LD_LIBRARY_PATH=$d/lib" bash -c \
	    "source '$here/radius.bash'; rad_server '$d'" >/dev/null
}

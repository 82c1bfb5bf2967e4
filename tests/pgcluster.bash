# pgcluster.bash - throwaway PostgreSQL clusters on 127.0.0.1, for bats
# suites (`load pgcluster`) and scripts (`. tests/pgcluster.bash`).
#
#   reason=$(pg_cluster_available) || skip "$reason"
#   pg_cluster_start DIR [NAME]        # NAME: pg; exports PGHOST PGPORT
#                                      # PGUSER PGDATABASE PG_URL PG_DATA PG_BIN
#   pg_standby_start PRIMARY STANDBY   # streaming standby; exports its PG*
#   pg_sync_on PRIMARY / pg_sync_off PRIMARY
#   pg_promote NAME
#   pg_cluster_port NAME / pg_cluster_data NAME / pg_cluster_use NAME
#   pg_cluster_stop [fast|immediate] [NAME...]   # no NAME: all, newest first
#   pg_bouncer_start NAME DB           # PgBouncer, transaction pooling, in
#                                      # front of NAME's DB; prints its port
#   pg_bouncer_stop NAME               # (pg_cluster_stop stops it too)
#
# Each cluster lives in its own directory, DIR/pg-NAME, which holds data/,
# server.log and the server's socket.  When the postgres account cannot
# reach DIR (root running from a 0700 directory) or the socket's path would
# be too long, the directory is a new /tmp/otp-pg.XXXXXX instead.  What is
# known of each cluster is kept in exported variables, so that clusters
# started in setup_file are known to the tests, which are child processes.
# Scripts should `trap pg_cluster_stop EXIT`: a server outlives its script.
# A failed start cleans up, then returns 1; the file works under set -eu.

: "${PG_PSQL:=/usr/bin/psql}"
_PGC_NAMES=${_PGC_NAMES:-}
export _PGC_NAMES

# pg_cluster_available: 0 when a server can be run, else 1 with the reason on
# stdout (for skip).  Sets PG_BIN to the highest version's binaries.
pg_cluster_available() {
	local initdb tool
	initdb=$(printf '%s\n' /usr/lib/postgresql/*/bin/initdb | sort -V | tail -n 1)
	if [[ ! -x $initdb ]]; then
		echo "no PostgreSQL server (no /usr/lib/postgresql/*/bin/initdb)"
		return 1
	fi
	PG_BIN=${initdb%/initdb}
	for tool in pg_ctl postgres pg_basebackup; do
		if [[ ! -x $PG_BIN/$tool ]]; then
			echo "no $PG_BIN/$tool"
			return 1
		fi
	done
	if [[ ! -x $PG_PSQL ]]; then
		echo "no $PG_PSQL (postgresql-client)"
		return 1
	fi
	if ((EUID == 0)) && ! { id -u postgres && command -v runuser; } >/dev/null 2>&1; then
		echo "root needs the postgres account and runuser: the server refuses root"
		return 1
	fi
	export PG_BIN
}

# The server refuses root: as root, its tools run as postgres, from / since
# root's working directory may be closed to that account.
_pgc_as() {
	if ((EUID == 0)); then
		(cd / && runuser -u postgres -- "$@")
	else
		"$@"
	fi
}

_pgc_psql() { # PORT DB SQL
	PGCONNECT_TIMEOUT=5 "$PG_PSQL" -X -q -A -t -v ON_ERROR_STOP=1 \
	    -h 127.0.0.1 -p "$1" -U postgres -d "$2" -c "$3"
}

# Per-cluster state: _PGC_<FIELD>_<NAME>, exported.
_pgc_get() { # NAME FIELD
	local v="_PGC_${2}_$1"
	printf '%s' "${!v:-}"
}

_pgc_set() { # NAME FIELD VALUE
	printf -v "_PGC_${2}_$1" '%s' "$3"
	export "_PGC_${2}_$1"
}

# Names become variable names and cluster_name, hence the narrow set.
_pgc_name_ok() {
	[[ $1 =~ ^[A-Za-z0-9_]+$ ]] && return 0
	echo "pgcluster: bad cluster name '$1' (letters, digits, _)" >&2
	return 1
}

_pgc_running() { # DATA
	[[ -f $1/postmaster.pid ]] &&
	    _pgc_as "$PG_BIN/pg_ctl" -D "$1" status >/dev/null 2>&1
}

# Port 0 has the kernel pick a port free now; _pgc_boot retries should
# another process bind it first.
_pgc_free_port() {
	local port i
	if port=$(/usr/bin/python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])' 2>/dev/null) && [[ -n $port ]]; then
		echo "$port"
		return 0
	fi
	command -v ss >/dev/null || return 1
	for ((i = 0; i < 200; i++)); do
		port=$((20000 + RANDOM % 30000))
		if [[ -z $(ss -Hltn "sport = :$port") ]]; then
			echo "$port"
			return 0
		fi
	done
	return 1
}

_pgc_report() { # NAME MESSAGE: the message and the logs' tails, on stderr
	local root f
	root=$(_pgc_get "$1" ROOT)
	echo "pgcluster: $1: $2" >&2
	for f in "$root/initdb.log" "$root/ctl.log" "$root/server.log"; do
		[[ -s $f ]] || continue
		echo "--- ${f##*/} (tail)" >&2
		tail -n 20 -- "$f" >&2
	done
	return 0
}

# _pgc_remove NAME [MODE]: stop the server if it runs, remove its directory,
# forget it.
_pgc_remove() {
	local name=$1 mode=${2:-immediate} root n names=
	root=$(_pgc_get "$name" ROOT)
	pg_bouncer_stop "$name"
	if [[ -n $root && -d $root/data ]] && _pgc_running "$root/data"; then
		_pgc_as "$PG_BIN/pg_ctl" -D "$root/data" -m "$mode" -w -t 60 stop >/dev/null 2>&1 ||
		    _pgc_as "$PG_BIN/pg_ctl" -D "$root/data" -m immediate -w -t 60 stop >/dev/null 2>&1 ||
		    true
	fi
	[[ -z $root ]] || rm -rf -- "$root" || true
	# Stale PG* would send the next client to whatever takes the port.
	if [[ -n $root && ${PG_DATA:-} == "$root/data" ]]; then
		unset PGHOST PGPORT PGUSER PGDATABASE PG_URL PG_DATA
	fi
	unset "_PGC_ROOT_$name" "_PGC_PORT_$name" "_PGC_DIR_$name" "_PGC_BPORT_$name"
	for n in $_PGC_NAMES; do
		[[ $n == "$name" ]] || names+=" $n"
	done
	_PGC_NAMES=${names# }
	export _PGC_NAMES
	return 0
}

# _pgc_new NAME DIR: make and register the cluster's directory, owned by
# the account that runs the server.
_pgc_new() {
	local name=$1 dir=$2 root
	mkdir -p -- "$dir" && dir=$(cd -- "$dir" && pwd -P) || return 1
	root=$dir/pg-$name
	# A Unix socket's path has at most 107 bytes.
	if ((${#root} > 90)) || ! _pgc_as test -x "$dir"; then
		root=$(mktemp -d /tmp/otp-pg.XXXXXX) || return 1
	else
		if [[ -e $root ]]; then
			# Left by a run killed before its clean-up; its server may live.
			if _pgc_running "$root/data"; then
				_pgc_as "$PG_BIN/pg_ctl" -D "$root/data" -m immediate -w stop >/dev/null 2>&1
			fi
			rm -rf -- "$root"
		fi
		mkdir -m 0700 -- "$root" || return 1
	fi
	if ((EUID == 0)) && ! chown postgres: "$root"; then
		rm -rf -- "$root"
		return 1
	fi
	_pgc_set "$name" ROOT "$root"
	_pgc_set "$name" DIR "$dir"
	_pgc_set "$name" PORT ""
	_PGC_NAMES=${_PGC_NAMES:+$_PGC_NAMES }$name
	return 0
}

# _pgc_boot NAME: pick a port, write the settings and start the server.
# The settings are appended so that they win over initdb's or the primary's.
_pgc_boot() {
	local name=$1 root port _
	root=$(_pgc_get "$name" ROOT)
	for _ in 1 2 3; do
		port=$(_pgc_free_port) || return 1
		_pgc_set "$name" PORT "$port"
		printf '%s\n' "" "# pgcluster.bash" \
		    "listen_addresses = '127.0.0.1'" "port = $port" \
		    "unix_socket_directories = '${root//\'/\'\'}'" \
		    "max_connections = 200" "cluster_name = '$name'" \
		    >>"$root/data/postgresql.conf" || return 1
		rm -f -- "$root/server.log"
		# fds 3-9 closed: a server holding bats' fd 3 keeps bats waiting,
		# one holding a script's lock file keeps the lock.
		_pgc_as "$PG_BIN/pg_ctl" -D "$root/data" -l "$root/server.log" -w -t 60 start \
		    </dev/null >>"$root/ctl.log" 2>&1 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&- &&
		    return 0
		grep -q 'could not bind' "$root/server.log" 2>/dev/null || return 1
	done
	return 1
}

# _pgc_wait PORT SQL WANT SECONDS: poll until SQL answers WANT.
_pgc_wait() {
	local i
	for ((i = 0; i < $4 * 10; i++)); do
		[[ $(_pgc_psql "$1" postgres "$2" 2>/dev/null) == "$3" ]] && return 0
		sleep 0.1
	done
	return 1
}

# A cluster already running under NAME is reused (re-exported); a dead one
# is replaced.
_pgc_reuse() { # NAME
	local root
	root=$(_pgc_get "$1" ROOT)
	[[ -n $root ]] || return 1
	if _pgc_running "$root/data"; then
		pg_cluster_use "$1"
		return 0
	fi
	_pgc_remove "$1"
	return 1
}

pg_cluster_start() {
	local dir=${1:-} name=${2:-pg} root port
	if [[ -z $dir ]]; then
		echo "usage: pg_cluster_start DIR [NAME]" >&2
		return 1
	fi
	_pgc_name_ok "$name" || return 1
	pg_cluster_available >&2 || return 1
	! _pgc_reuse "$name" || return 0
	if ! _pgc_new "$name" "$dir"; then
		echo "pgcluster: $name: cannot make its directory under $dir" >&2
		return 1
	fi
	root=$(_pgc_get "$name" ROOT)
	# --locale=C: initdb fails on a LANG whose locale is not installed.
	if ! _pgc_as "$PG_BIN/initdb" -D "$root/data" -A trust -U postgres \
	    -E UTF8 --locale=C --no-sync >"$root/initdb.log" 2>&1; then
		_pgc_report "$name" "initdb failed"
		_pgc_remove "$name"
		return 1
	fi
	rm -f -- "$root/initdb.log"
	if ! _pgc_boot "$name"; then
		_pgc_report "$name" "the server did not start"
		_pgc_remove "$name"
		return 1
	fi
	port=$(_pgc_get "$name" PORT)
	if ! _pgc_psql "$port" postgres 'CREATE DATABASE otp' >>"$root/ctl.log" 2>&1; then
		_pgc_report "$name" "CREATE DATABASE otp failed"
		_pgc_remove "$name"
		return 1
	fi
	pg_cluster_use "$name"
}

# The two steps every suite on a throwaway cluster takes.
# pg_suite_start [NAME]: in setup_file, the suite's cluster (the test
# skipped, saying why, where no server can run here).
pg_suite_start() {
	local reason
	reason=$(pg_cluster_available) || skip "$reason"
	pg_cluster_start "$BATS_FILE_TMPDIR" "${1:-pg}" || fail "no cluster"
}

# pg_test_db PREFIX: in setup, a database of the test's own, DB, and its
# URL; OTP_STORE_MODULE the build's store object.
pg_test_db() {
	export OTP_STORE_MODULE=$OTP_LIBDIR/otp-utils/store-pg.so
	[[ -f $OTP_STORE_MODULE ]] || fail "$OTP_STORE_MODULE not built"
	DB=$1$BATS_SUITE_TEST_NUMBER
	psql -q -X -v ON_ERROR_STOP=1 -d postgres \
	    -c "CREATE DATABASE $DB" >/dev/null || fail "createdb"
	# shellcheck disable=SC2034  # the suite's
	URL="postgresql://postgres@127.0.0.1:$PGPORT/$DB"
}

pg_standby_start() {
	local primary=${1:-} name=${2:-} pport root
	if [[ -z $primary || -z $name ]]; then
		echo "usage: pg_standby_start PRIMARY_NAME STANDBY_NAME" >&2
		return 1
	fi
	_pgc_name_ok "$name" || return 1
	pg_cluster_available >&2 || return 1
	pport=$(_pgc_get "$primary" PORT)
	if [[ -z $pport ]] || ! _pgc_running "$(_pgc_get "$primary" ROOT)/data"; then
		echo "pgcluster: no running cluster named '$primary'" >&2
		return 1
	fi
	! _pgc_reuse "$name" || return 0
	if ! _pgc_new "$name" "$(_pgc_get "$primary" DIR)"; then
		echo "pgcluster: $name: cannot make its directory" >&2
		return 1
	fi
	root=$(_pgc_get "$name" ROOT)
	if ! _pgc_as "$PG_BIN/pg_basebackup" -h 127.0.0.1 -p "$pport" -U postgres \
	    -D "$root/data" -R -X stream -c fast --no-sync >>"$root/ctl.log" 2>&1; then
		_pgc_report "$name" "pg_basebackup from $primary failed"
		_pgc_remove "$name"
		return 1
	fi
	# The copy carries the primary's synchronous_standby_names (ALTER
	# SYSTEM); promoted with it, the standby would wait for ever on COMMIT.
	echo "synchronous_standby_names = ''" >>"$root/data/postgresql.auto.conf"
	if ! _pgc_boot "$name"; then
		_pgc_report "$name" "the standby did not start"
		_pgc_remove "$name"
		return 1
	fi
	# The walreceiver's application_name is the standby's cluster_name.
	if ! _pgc_wait "$pport" "SELECT state FROM pg_stat_replication WHERE application_name = '$name'" streaming 30; then
		_pgc_report "$name" "not streaming from $primary after 30 s"
		_pgc_remove "$name"
		return 1
	fi
	pg_cluster_use "$name"
}

# Only once a standby streams: until one does, every COMMIT waits.
pg_sync_on() {
	local port
	port=$(pg_cluster_port "${1:-}") || return 1
	_pgc_psql "$port" postgres "ALTER SYSTEM SET synchronous_standby_names = '*'" &&
	    _pgc_psql "$port" postgres 'SELECT pg_reload_conf()' >/dev/null || return 1
	if ! _pgc_wait "$port" "SELECT count(*) > 0 FROM pg_stat_replication WHERE sync_state = 'sync'" t 30; then
		_pgc_report "$1" "no synchronous standby after 30 s"
		# Left on, it would make every later COMMIT wait.
		pg_sync_off "$1" || true
		return 1
	fi
}

pg_sync_off() {
	local port
	port=$(pg_cluster_port "${1:-}") || return 1
	_pgc_psql "$port" postgres 'ALTER SYSTEM RESET synchronous_standby_names' &&
	    _pgc_psql "$port" postgres 'SELECT pg_reload_conf()' >/dev/null
}

pg_promote() {
	local port root
	port=$(pg_cluster_port "${1:-}") || return 1
	root=$(_pgc_get "$1" ROOT)
	pg_cluster_available >&2 || return 1
	if ! _pgc_as "$PG_BIN/pg_ctl" -D "$root/data" -w -t 60 promote >>"$root/ctl.log" 2>&1 ||
	    ! _pgc_wait "$port" 'SELECT pg_is_in_recovery()' f 30; then
		_pgc_report "$1" "promotion failed"
		return 1
	fi
}

pg_cluster_port() {
	local port
	port=$(_pgc_get "${1:-}" PORT)
	if [[ -z $port ]]; then
		echo "pgcluster: no cluster named '${1:-}'" >&2
		return 1
	fi
	echo "$port"
}

pg_cluster_data() {
	local root
	root=$(_pgc_get "${1:-}" ROOT)
	if [[ -z $root ]]; then
		echo "pgcluster: no cluster named '${1:-}'" >&2
		return 1
	fi
	echo "$root/data"
}

# pg_cluster_use NAME: point PG* and PG_URL at NAME.
pg_cluster_use() {
	local port root
	port=$(pg_cluster_port "${1:-}") || return 1
	root=$(_pgc_get "$1" ROOT)
	PGHOST=127.0.0.1 PGPORT=$port PGUSER=postgres PGDATABASE=otp
	PG_URL=postgresql://postgres@127.0.0.1:$port/otp
	PG_DATA=$root/data
	export PGHOST PGPORT PGUSER PGDATABASE PG_URL PG_DATA PG_BIN
}

# pg_cluster_stop [fast|smart|immediate] [NAME...]: immediate is a crash
# (no checkpoint).  Without NAME, every cluster, newest first, so that
# standbys go before their primary.
pg_cluster_stop() {
	local mode=fast names i
	case ${1:-} in
	fast | smart | immediate)
		mode=$1
		shift
		;;
	esac
	pg_cluster_available >/dev/null || true
	if (($# == 0)); then
		read -r -a names <<<"$_PGC_NAMES" || true
		for ((i = ${#names[@]} - 1; i >= 0; i--)); do
			_pgc_remove "${names[i]}" "$mode"
		done
	else
		for i in "$@"; do
			_pgc_remove "$i" "$mode"
		done
	fi
	return 0
}

# pg_bouncer_start NAME DB: PgBouncer (Debian's pgbouncer) on 127.0.0.1 in
# front of database DB of cluster NAME, as the server's own account, in
# transaction mode with three server sessions used in turn
# (server_round_robin): consecutive transactions of one client go to
# different sessions, as behind a busy pooler.  The three are open when
# it returns (three transactions at once made them).  Prints its port;
# its log is NAME's directory's pgbouncer.log.  1, with the reason, when
# there is no pgbouncer or it does not start.
pg_bouncer_start() {
	local name=$1 db=$2 root port i w
	root=$(_pgc_get "$name" ROOT)
	port=$(_pgc_get "$name" PORT)
	if [[ -z $root || -z $port ]]; then
		echo "pgcluster: no cluster named '$name'" >&2
		return 1
	fi
	if ! command -v pgbouncer >/dev/null; then
		echo "pgcluster: no pgbouncer (make deps)" >&2
		return 1
	fi
	pg_bouncer_stop "$name"
	for i in 1 2 3; do
		_pgc_set "$name" BPORT "$(_pgc_free_port)" || return 1
		printf '%s\n' "[databases]" \
		    "$db = host=127.0.0.1 port=$port dbname=$db" \
		    "[pgbouncer]" "listen_addr = 127.0.0.1" \
		    "listen_port = $(_pgc_get "$name" BPORT)" \
		    "unix_socket_dir =" "auth_type = trust" \
		    "auth_file = $root/pgbouncer.users" \
		    "pool_mode = transaction" "server_round_robin = 1" \
		    "default_pool_size = 3" "min_pool_size = 3" \
		    "logfile = $root/pgbouncer.log" \
		    "pidfile = $root/pgbouncer.pid" >"$root/pgbouncer.ini" &&
		    echo '"postgres" ""' >"$root/pgbouncer.users" || return 1
		((EUID != 0)) || chown postgres: "$root/pgbouncer.ini" "$root/pgbouncer.users"
		rm -f -- "$root/pgbouncer.log"
		if _pgc_as pgbouncer -d "$root/pgbouncer.ini" >>"$root/ctl.log" 2>&1 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&-; then
			for ((w = 0; w < 100; w++)); do
				if [[ $(_pgc_psql "$(_pgc_get "$name" BPORT)" "$db" 'SELECT 1' 2>/dev/null) == 1 ]] &&
				    _pgc_bouncer_sessions "$name" "$db"; then
					_pgc_get "$name" BPORT
					echo
					return 0
				fi
				sleep 0.1
			done
		fi
		pg_bouncer_stop "$name"
		grep -q 'Address already in use' "$root/pgbouncer.log" 2>/dev/null || break
	done
	echo "pgcluster: $name: pgbouncer did not start" >&2
	tail -n 20 -- "$root/pgbouncer.log" >&2 2>/dev/null
	return 1
}

# _pgc_bouncer_sessions NAME DB: three transactions through the bouncer at
# once, so that it opens its three server sessions; then the server has
# them (nothing else uses DB yet).
_pgc_bouncer_sessions() {
	local bport port i pids=()
	bport=$(_pgc_get "$1" BPORT) port=$(_pgc_get "$1" PORT)
	for i in 1 2 3; do
		_pgc_psql "$bport" "$2" 'SELECT pg_sleep(0.3)' >/dev/null 2>&1 &
		pids+=($!)
	done
	wait "${pids[@]}"
	_pgc_wait "$port" "SELECT count(*) >= 3 FROM pg_stat_activity
	    WHERE datname = '$2' AND pid <> pg_backend_pid()" t 5
}

pg_bouncer_stop() {
	local root pid i
	root=$(_pgc_get "${1:-}" ROOT)
	[[ -n $root && -f $root/pgbouncer.pid ]] || return 0
	pid=$(<"$root/pgbouncer.pid") || return 0
	if [[ $pid =~ ^[0-9]+$ ]] && kill -TERM "$pid" 2>/dev/null; then
		for ((i = 0; i < 100; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.05
		done
		kill -KILL "$pid" 2>/dev/null || true
	fi
	rm -f -- "$root/pgbouncer.pid"
	return 0
}

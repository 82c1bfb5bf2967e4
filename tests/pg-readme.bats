#!/usr/bin/env bats
# pg-readme.bats - the README's fleet set-up ("A fleet: several RADIUS
# servers, one PostgreSQL database") run as written, from a bare cluster
# (tests/pgcluster.bash, its database dropped), as root or as a plain
# user.  What differs from a real site, and only that: psql reaches the
# superuser over 127.0.0.1 (trusted here; `sudo -u postgres psql` there)
# and \password is answered on a pseudo-terminal with the passwords the
# README's password file lines hold; the pg_hba.conf lines' example
# addresses (192.0.2.0/24) are 127.0.0.1; db1.example.org is reached at
# 127.0.0.1 (PGHOSTADDR, so that libpq still looks the host name up in
# the password file); the store key and the home directories are the
# test's.  Then the servers' role logs a user in, and cannot change the
# tables nor log in without its password.

bats_require_minimum_version 1.5.0

setup_file() {
	load common
	load pgcluster
	local reason
	if reason=$(pg_cluster_available); then
		pg_cluster_start "$BATS_FILE_TMPDIR" fleet || fail "no cluster"
	else
		export PG_NONE=$reason
	fi
}

teardown_file() {
	load pgcluster
	pg_cluster_stop fast
}

setup() {
	load common
	load pgcluster
	T=$BATS_TEST_TMPDIR
	README=$BATS_TEST_DIRNAME/../README.md
	export OTP_STORE_MODULE=$OTP_LIBDIR/otp-utils/store-pg.so
	[[ -f $OTP_STORE_MODULE ]] || fail "$OTP_STORE_MODULE not built"
}

# fleet_blocks LANG: the lines of the fenced LANG blocks of the README's
# fleet section, a line "--" after each block.
fleet_blocks() {
	awk -v lang="$1" '
	/^### / { on = $0 ~ /^### A fleet/ }
	!on { next }
	/^```/ {
		if (fence) {
			fence = 0
			if (mine)
				print "--"
		} else {
			fence = 1
			mine = substr($0, 4) == lang
		}
		next
	}
	fence && mine { print }' "$README"
}

# block LANG N: the Nth (from 1) of them.
block() {
	fleet_blocks "$1" | awk -v n="$2" '/^--$/ { b++; next } b == n - 1'
}

# su_psql SQL...: as the cluster's superuser.
su_psql() {
	psql -X -q -A -t -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PGPORT" \
	    -U postgres -d postgres "$@"
}

# as_pty PW=ROLE... -- CMD...: CMD on a new pseudo-terminal, each
# "Enter new password for user" prompt (and "Enter it again") answered
# with that role's password.  Prints what the terminal showed.
as_pty() {
	/usr/bin/python3 -c '
import os, pty, re, select, sys, time
args = sys.argv[1:]
sep = args.index("--")
pws = dict(a.split("=", 1) for a in args[:sep])
pid, fd = pty.fork()
if pid == 0:
    os.execvp(args[sep + 1], args[sep + 1:])
shown, done, last = b"", 0, None
deadline = time.monotonic() + 30
while time.monotonic() < deadline:
    if not select.select([fd], [], [], 0.1)[0]:
        continue
    try:
        data = os.read(fd, 4096)
    except OSError:
        data = b""
    if not data:
        break
    shown += data
    m = re.search(rb"Enter new password for user \"([^\"]+)\": $", shown[done:])
    if m:
        last = pws[m.group(1).decode()]
    elif last is None or not shown[done:].endswith(b"Enter it again: "):
        continue
    os.write(fd, last.encode() + b"\n")
    done = len(shown)
_, st = os.waitpid(pid, 0)
sys.stdout.write(shown.decode(errors="replace").replace("\r", ""))
sys.exit(os.waitstatus_to_exitcode(st))' "$@"
}

# admin CMD: a line of the README's shell blocks, run by bash as the
# administrator: HOME of its own, db1.example.org at 127.0.0.1, the
# store key in the test's directory, the build's tools.
admin() {
	(
		export HOME=$T/root PGHOSTADDR=127.0.0.1 PGPORT
		unset PGHOST PGUSER PGDATABASE PGPASSFILE
		export OTP_TEST_KEY=$T/store.key
		otp-store() { command otp-store --store-key="$OTP_TEST_KEY" "$@"; }
		otp-keygen() { command otp-keygen --store-key="$OTP_TEST_KEY" "$@"; }
		export -f otp-store otp-keygen
		cd "$T" && bash -o pipefail -c "$1"
	)
}

# server CMD...: CMD as a RADIUS server, with its password file.
server() {
	env -u PGHOST -u PGUSER -u PGDATABASE PGHOSTADDR=127.0.0.1 \
	    PGPORT="$PGPORT" PGPASSFILE="$T/freerad.pgpass" "$@"
}

@test "otp-store(1) grants what the README's fleet set-up grants, in its words" {
	local man line
	man=$(awk '/^\.Bd -literal/ { lit = 1; next } /^\.Ed/ { lit = 0 }
	    lit' "$BATS_TEST_DIRNAME/../man/otp-store.1" | sed 's/\\e/\\/g' |
	    grep -E '^(CREATE DATABASE|REVOKE|GRANT|ALTER DEFAULT|    GRANT|\\connect)')
	[[ $(wc -l <<<"$man") -ge 9 ]] || fail "$man"
	while IFS= read -r line; do
		grep -qxF "$line" <(block sql 1) || fail "otp-store(1) has '$line', the README not"
	done <<<"$man"
	# The old promise is gone: on PostgreSQL 15 it cannot create a table.
	if grep -n 'user needs only$' "$README"; then
		fail "the README still says the servers' user needs only the four rights"
	fi
}

@test "the README's fleet set-up runs as written from a bare PostgreSQL; the servers' role logs in and cannot change the tables" {
	local sql hba line pw_admin pw_otp key url_srv n=0
	[[ -z ${PG_NONE:-} ]] || skip "$PG_NONE"
	# A bare PostgreSQL: the cluster's own database goes.
	su_psql -c 'DROP DATABASE otp'
	# The passwords are the ones the README's password file lines hold.
	pw_admin=$(fleet_blocks sh | sed -n "s/.*:otp:otp_admin:\([^']*\)'.*/\1/p")
	pw_otp=$(fleet_blocks sh | sed -n "s/.*:otp:otp:\([^']*\)'.*/\1/p")
	[[ -n $pw_admin && -n $pw_otp && $pw_admin != "$pw_otp" ]]

	# 1. The roles, the database, the grants: psql reads the block.
	block sql 1 >"$T/setup.sql"
	grep -q '^CREATE DATABASE otp OWNER otp_admin;$' "$T/setup.sql"
	run as_pty "otp_admin=$pw_admin" "otp=$pw_otp" -- psql -X \
	    -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PGPORT" -U postgres \
	    -d postgres -f "$T/setup.sql"
	assert_success
	refute_output --partial ERROR
	[[ $(grep -c 'Enter new password for user' <<<"$output") == 2 ]]

	# 2. pg_hba.conf: the README's lines, the superuser's for the test.
	hba=$(block text 2 | grep -v '^#')
	[[ $(grep -c '^host ' <<<"$hba") -ge 2 ]]
	{
		echo 'local all postgres trust'
		echo 'host all postgres 127.0.0.1/32 trust'
		sed -E 's#192\.0\.2\.[0-9]+/32#127.0.0.1/32#' <<<"$hba"
	} >"$T/pg_hba.conf"
	cp "$T/pg_hba.conf" "$PG_DATA/pg_hba.conf"
	su_psql -c 'SELECT pg_reload_conf()' >/dev/null
	run -0 su_psql -c 'SELECT count(*) FROM pg_hba_file_rules WHERE error IS NOT NULL'
	assert_output 0

	# 3. The administrator: password file, init, a token, the list.
	mkdir -m 0700 "$T/root"
	while IFS= read -r line; do
		n=$((n + 1))
		run admin "$line"
		assert_success
		case $line in
		otp-keygen*) key=$(grep -xE '[A-Z2-7]{32}' <<<"$output") ;;
		'otp-store list'*) assert_output --partial alice ;;
		esac
	done < <(block sh 1)
	[[ $n == 4 && -n $key ]]
	[[ $(stat -c %a "$T/root/.pgpass") == 600 ]]
	# the tables are otp_admin's
	run -0 su_psql -d otp -c "SELECT DISTINCT tableowner FROM pg_tables WHERE schemaname = 'public'"
	assert_output otp_admin
	# the grants for older tables run too (again, here), as otp_admin
	block sql 2 >"$T/grants.sql"
	run admin "psql -X -v ON_ERROR_STOP=1 postgresql://otp_admin@db1.example.org/otp -f '$T/grants.sql'"
	assert_success

	# 4. A RADIUS server's password file (freerad's home is the test's).
	while IFS= read -r line; do
		line=${line//-o freerad -g freerad /}
		run -0 bash -c "${line//\/etc\/freeradius\/.pgpass/$T/freerad.pgpass}"
	done < <(block sh 2)
	[[ $(stat -c %a "$T/freerad.pgpass") == 600 ]]
	# The URL of examples/freeradius/pam.d/radius-otp-pg names role otp.
	grep -q 'store=postgresql://otp@' \
	    "$BATS_TEST_DIRNAME/../examples/freeradius/pam.d/radius-otp-pg"

	# The servers' role logs alice in, once.
	url_srv=postgresql://otp@db1.example.org/otp
	run -0 server otp-verify --store-key="$T/store.key" --store="$url_srv" \
	    --user=alice "$(otp-gen --totp -b "$key")"
	run -1 server otp-verify --store-key="$T/store.key" --store="$url_srv" \
	    --user=alice "$(otp-gen --totp -b "$key")"
	# It writes rows, in tables init makes later too (the default
	# privileges): one of otp_admin's, with a sequence.
	su_psql -d otp -c 'SET ROLE otp_admin; CREATE TABLE later (id bigserial PRIMARY KEY, t text)'
	run -0 server psql -X -q -v ON_ERROR_STOP=1 "$url_srv" \
	    -c "INSERT INTO later (t) VALUES ('x')" -c 'DELETE FROM later'
	# It cannot drop, alter or make a table, nor change the grants.
	for sql in 'DROP TABLE otp_tokens' \
	    'ALTER TABLE otp_tokens DROP CONSTRAINT otp_tokens_kind_check' \
	    'CREATE TABLE mine (i int)' 'TRUNCATE otp_tokens'; do
		run server psql -X -q -v ON_ERROR_STOP=1 "$url_srv" -c "$sql"
		assert_failure
		assert_output --regexp 'must be owner|permission denied'
	done
	run -0 server psql -X -q "$url_srv" -c 'GRANT SELECT ON otp_tokens TO PUBLIC'
	assert_output --partial 'no privileges were granted'
	run -0 su_psql -d otp -c "SELECT relacl::text FROM pg_class WHERE relname = 'otp_tokens'"
	[[ $output != *[{,]=* ]] || fail "PUBLIC has rights: $output"
	run -0 su_psql -d otp -c "SELECT count(*) FROM otp_tokens"
	assert_output 1
	# Not without its password, not as the owner, not another database.
	run env PGPASSFILE=/dev/null PGHOSTADDR=127.0.0.1 PGPORT="$PGPORT" \
	    psql -X -w "$url_srv" -c 'SELECT 1'
	assert_failure
	run server psql -X -w postgresql://otp_admin@db1.example.org/otp -c 'SELECT 1'
	assert_failure
	run server psql -X -w postgresql://otp@db1.example.org/postgres -c 'SELECT 1'
	assert_failure
	assert_output --partial 'no pg_hba.conf entry'
}

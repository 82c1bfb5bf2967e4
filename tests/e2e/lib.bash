# shellcheck disable=SC2154  # status and output come from bats' run
# lib.bash - the rig for the real-host suites in tests/e2e (run as root by
# `make check-e2e`, never by `make check`).  A suite loads it after common:
#
#	setup_file()    { load ../common; load lib; e2e_setup_file PKG...; }
#	teardown_file() { load ../common; load lib; e2e_teardown_file; }
#	...
#	@test "nothing is left behind" { e2e_cleanup; e2e_check_clean; }
#
# Everything a suite makes on the machine goes through these functions and
# is written down in a ledger ($E2E_DIR/ledger, one "KIND VALUE" line
# each) so that e2e_cleanup can undo it and e2e_check_clean can prove it:
#
#	user NAME	a test user (useradd; home under /home, removed)
#	etc PATH	a NEW file under /etc (never an existing one)
#	dir PATH	a system directory that did not exist (/run/sshd)
#	daemon NAME PID	a background process, stopped by its own PID
#	port N		a 127.0.0.1 port handed out by e2e_port
#
# A refusal never relies on bats' fail stopping the function (it does not
# under `run`): every guard returns by itself.
#
# Names carry the run's tag, $E2E_TAG ("otpe2e-" and the suite's PID in
# hex), so that two suites at once, or a crashed earlier run, never mix.

E2E_PREFIX=otpe2e

# e2e_setup_file [PKG...]: from setup_file.  Skips the whole suite (one
# line saying why) when not root or a Debian package is missing; sets and
# exports E2E_DIR (the suite's private directory), E2E_TAG, E2E_LEDGER.
e2e_setup_file() {
	if [[ $(id -u) != 0 ]]; then
		skip "e2e: needs root (test users, /etc/pam.d, real daemons)"
	fi
	e2e_need_pkg "$@"
	: "${OTP_BIN:?OTP_BIN must name the directory of the built tools}"
	: "${OTP_LIBDIR:?OTP_LIBDIR must name the directory of pam_otp.so}"
	if [[ ! -f $OTP_LIBDIR/pam_otp.so ]]; then
		fail "$OTP_LIBDIR/pam_otp.so not built"
		return 1
	fi
	E2E_TAG=$E2E_PREFIX-$(printf '%x' "$$")
	# Not BATS_FILE_TMPDIR: daemons dropping privileges and test users
	# must be able to reach some of it (bats makes its tree 0700).
	E2E_DIR=$(mktemp -d "/tmp/$E2E_TAG.XXXXXX") ||
	    { fail "mktemp failed"; return 1; }
	chmod 0755 "$E2E_DIR"
	E2E_LEDGER=$E2E_DIR/ledger
	: >"$E2E_LEDGER"
	# The tools that test users run, where they can reach them (the
	# source tree may sit in a directory only root can enter).
	mkdir -m 0755 "$E2E_DIR/bin"
	cp "$OTP_BIN"/otp-* "$E2E_DIR/bin/" ||
	    { fail "cannot copy the tools"; return 1; }
	chmod 0755 "$E2E_DIR"/bin/*
	export E2E_TAG E2E_DIR E2E_LEDGER
}

# e2e_teardown_file: from teardown_file.  Undoes everything, then fails
# when anything was still there to undo or could not be undone.
e2e_teardown_file() {
	[[ -n ${E2E_LEDGER:-} && -f $E2E_LEDGER ]] || return 0
	e2e_cleanup
	e2e_check_clean
	rm -rf "$E2E_DIR"
}

# e2e_need_pkg PKG...: skip unless every Debian package is installed.
e2e_need_pkg() {
	local p missing=
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
		    grep -q 'install ok installed' || missing+=" $p"
	done
	[[ -z $missing ]] ||
	    skip "e2e: missing packages:$missing (make deps installs them)"
}

# e2e_note KIND VALUE...: one ledger line.
e2e_note() {
	printf '%s\n' "$*" >>"$E2E_LEDGER"
}

# e2e_ledger KIND: the values of KIND, one per line, newest first.
e2e_ledger() {
	awk -v k="$1" '$1 == k { sub(/^[^ ]* /, ""); print }' "$E2E_LEDGER" |
	    tac
}

# e2e_user_name NAME: the full name of test user NAME.
e2e_user_name() {
	printf '%s-%s\n' "$E2E_TAG" "$1"
}

# e2e_user_add NAME [PASSWORD]: create test user NAME (a home of its own
# under /home, a group of its own, /bin/sh) and print its full name.  With
# PASSWORD, pam_unix accepts it.
e2e_user_add() {
	local u
	u=$(e2e_user_name "$1")
	if getent passwd "$u" >/dev/null || [[ -e /home/$u ]]; then
		fail "user $u exists already"
		return 1
	fi
	if ! useradd -m -U -s /bin/sh -c "otp-utils e2e test" "$u"; then
		fail "useradd $u failed"
		return 1
	fi
	e2e_note user "$u"
	if [[ -n ${2:-} ]]; then
		printf '%s:%s\n' "$u" "$2" | chpasswd ||
		    { fail "chpasswd $u failed"; return 1; }
	else
		# A usable account without a password: sshd and pam_unix's
		# account check see "no password", not "locked".
		usermod -p '*' "$u" || { fail "usermod $u failed"; return 1; }
	fi
	printf '%s\n' "$u"
}

# e2e_user_del FULLNAME: remove a test user, its home and its mail spool;
# its processes are ended first, each by its PID.
e2e_user_del() {
	local u=$1 pid
	if [[ $u != "$E2E_PREFIX"-* ]]; then
		fail "e2e_user_del: $u is not a test user"
		return 1
	fi
	getent passwd "$u" >/dev/null || return 0
	for pid in $(ps -o pid= -u "$u" 2>/dev/null); do
		kill -KILL "$pid" 2>/dev/null || true
	done
	userdel -r "$u" 2>/dev/null || userdel -f -r "$u" 2>/dev/null || true
	! getent passwd "$u" >/dev/null
}

# e2e_as USER CMD...: run CMD as USER (its uid, gid and groups, in its
# home, with a clean environment but for PATH).  Tools for it to run are
# in $E2E_DIR/bin.
e2e_as() {
	local u=$1 home
	shift
	home=$(getent passwd "$u" | cut -d: -f6)
	(cd "$home" && setpriv --reuid="$u" --regid="$u" --init-groups \
	    env -i HOME="$home" USER="$u" LOGNAME="$u" PATH="$PATH" "$@")
}

# e2e_port_used N: something has port N open on TCP or UDP (any address).
e2e_port_used() {
	local hex f
	hex=$(printf ':%04X ' "$1")
	for f in /proc/net/tcp /proc/net/tcp6 /proc/net/udp /proc/net/udp6; do
		[[ -r $f ]] || continue
		# Local address is the second column; LISTEN (0A) for TCP,
		# any bound socket (07) for UDP.
		awk -v p="$hex" 'NR > 1 && index($2 " ", p) &&
		    ($4 == "0A" || $4 == "07") { found = 1 }
		    END { exit !found }' "$f" && return 0
	done
	return 1
}

# e2e_port: print a free port for 127.0.0.1 (TCP and UDP), never one this
# run handed out before.
e2e_port() {
	local p i
	for ((i = 0; i < 200; i++)); do
		p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
		e2e_port_used "$p" && continue
		grep -qx "port $p" "$E2E_LEDGER" && continue
		e2e_note port "$p"
		printf '%s\n' "$p"
		return 0
	done
	fail "e2e_port: no free port found"
}

# e2e_wait_port N [SECONDS]: wait until port N is open (TCP listen or UDP
# bound); fails after SECONDS (10).
e2e_wait_port() {
	local i n=$((${2:-10} * 20))
	for ((i = 0; i < n; i++)); do
		e2e_port_used "$1" && return 0
		sleep 0.05
	done
	fail "nothing opened port $1 within ${2:-10} s"
}

# e2e_daemon_start NAME LOG CMD...: start CMD in the background (stdin
# /dev/null, stdout and stderr to LOG, none of bats' descriptors), note
# its PID and print it.  CMD must stay in the foreground (sshd -D,
# freeradius -f).
e2e_daemon_start() {
	local name=$1 log=$2 pid
	shift 2
	if grep -q "^daemon $name " "$E2E_LEDGER"; then
		fail "daemon $name started twice"
		return 1
	fi
	"$@" </dev/null >>"$log" 2>&1 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&- &
	pid=$!
	e2e_note daemon "$name" "$pid"
	printf '%s\n' "$pid"
}

# e2e_daemon_pid NAME: the PID of daemon NAME (empty when never started).
e2e_daemon_pid() {
	e2e_ledger daemon | awk -v n="$1" '$1 == n { print $2; exit }'
}

# e2e_alive PID: the process is there and not a zombie.
e2e_alive() {
	local st
	[[ -r /proc/$1/stat ]] || return 1
	st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
	[[ -n $st && $st != Z && $st != X ]]
}

# e2e_daemon_stop NAME: SIGTERM to its PID, SIGKILL after 5 s.
e2e_daemon_stop() {
	local pid i
	pid=$(e2e_daemon_pid "$1")
	[[ -n $pid ]] || return 0
	e2e_alive "$pid" || return 0
	kill -TERM "$pid" 2>/dev/null || true
	for ((i = 0; i < 100; i++)); do
		e2e_alive "$pid" || break
		sleep 0.05
	done
	if e2e_alive "$pid"; then
		kill -KILL "$pid" 2>/dev/null || true
		sleep 0.1
	fi
	wait "$pid" 2>/dev/null || true
	! e2e_alive "$pid"
}

# e2e_etc_write PATH [MODE]: write standard input to PATH under /etc, a
# file that must not exist yet (an existing file is never touched); mode
# 0644 by default.  Writing again a file this run created replaces it.
e2e_etc_write() {
	local path=$1 mode=${2:-0644}
	if [[ $path != /etc/?* || $path == */../* || $path == */./* ]]; then
		fail "e2e_etc_write: $path is not under /etc"
		return 1
	fi
	if ! grep -qx "etc $path" "$E2E_LEDGER"; then
		# Ours only once created exclusively (O_EXCL): an existing
		# file is refused and never written down as ours.
		if [[ -e $path || -L $path ]] ||
		    ! (set -C && : >"$path") 2>/dev/null; then
			fail "e2e_etc_write: $path exists and is not ours"
			return 1
		fi
		e2e_note etc "$path"
	fi
	if ! (umask 077 && cat >"$path.$E2E_TAG.new"); then
		fail "cannot write $path"
		return 1
	fi
	chmod "$mode" "$path.$E2E_TAG.new" &&
	    mv -f "$path.$E2E_TAG.new" "$path"
}

# e2e_etc_remove PATH: remove a file that e2e_etc_write created.
e2e_etc_remove() {
	if ! grep -qx "etc $1" "$E2E_LEDGER"; then
		fail "e2e_etc_remove: $1 is not ours"
		return 1
	fi
	rm -f "$1" "$1.$E2E_TAG.new"
}

# e2e_pam_service NAME: write standard input as /etc/pam.d/NAME.
e2e_pam_service() {
	e2e_etc_write "/etc/pam.d/$1"
}

# e2e_sys_dir PATH: make sure a system directory exists (sshd's
# /run/sshd); one this run made is removed by e2e_cleanup.
e2e_sys_dir() {
	[[ -d $1 ]] && return 0
	mkdir "$1" || { fail "cannot make $1"; return 1; }
	e2e_note dir "$1"
}

# e2e_cleanup: undo the ledger: stop the daemons, delete the users,
# remove the /etc files and the directories made.  Idempotent.
e2e_cleanup() {
	local line name pid
	[[ -f ${E2E_LEDGER:-} ]] || return 0
	while read -r name pid; do
		e2e_daemon_stop "$name" || true
	done < <(e2e_ledger daemon)
	while read -r line; do
		e2e_user_del "$line" || true
	done < <(e2e_ledger user)
	while read -r line; do
		rm -f "$line" "$line.$E2E_TAG.new"
	done < <(e2e_ledger etc)
	while read -r line; do
		rmdir "$line" 2>/dev/null || true
	done < <(e2e_ledger dir)
}

# e2e_check_clean: fail, naming each, when anything of this run is left:
# a daemon's PID, a process running a program from $E2E_DIR (a session
# process of a copied daemon), a test user or its home, a file under /etc,
# a directory made, a port still open.
e2e_check_clean() {
	local left=() name pid line p
	while read -r name pid; do
		! e2e_alive "$pid" || left+=("daemon $name (PID $pid)")
	done < <(e2e_ledger daemon)
	while read -r p; do
		[[ -z $p ]] || left+=("process $p")
	done < <(find /proc -mindepth 2 -maxdepth 2 -name exe \
	    -lname "$E2E_DIR/*" -printf '%h %l\n' 2>/dev/null)
	while read -r line; do
		! getent passwd "$line" >/dev/null || left+=("user $line")
		[[ ! -e /home/$line ]] || left+=("home /home/$line")
		[[ ! -e /var/mail/$line ]] || left+=("mail spool of $line")
	done < <(e2e_ledger user)
	if getent group | grep -q "^$E2E_TAG-"; then
		left+=("group $(getent group | grep "^$E2E_TAG-" | cut -d: -f1)")
	fi
	while read -r line; do
		[[ ! -e $line ]] || left+=("file $line")
	done < <(e2e_ledger etc)
	if compgen -G "/etc/*$E2E_TAG*" >/dev/null ||
	    compgen -G "/etc/*/*$E2E_TAG*" >/dev/null; then
		left+=("/etc file $(compgen -G "/etc/*$E2E_TAG*"; \
		    compgen -G "/etc/*/*$E2E_TAG*")")
	fi
	while read -r line; do
		[[ ! -e $line ]] || left+=("directory $line")
	done < <(e2e_ledger dir)
	while read -r line; do
		! e2e_port_used "$line" || left+=("port $line")
	done < <(e2e_ledger port)
	if ((${#left[@]} > 0)); then
		printf 'e2e: left behind: %s\n' "${left[@]}" >&2
		fail "e2e: the run left ${#left[@]} thing(s) behind"
	fi
}

# e2e_cc OUT SRC [CC-ARGS...]: build a helper program or LD_PRELOAD shim
# into $E2E_DIR (once per suite).
e2e_cc() {
	local out=$1 src=$2
	shift 2
	[[ -x $E2E_DIR/$out ]] && return 0
	cc -O1 -g -Wall -o "$E2E_DIR/$out" "$src" "$@" ||
	    fail "cannot build $out from $src"
}

# e2e_syslog_shim: build the shim that appends every syslog(3) line to
# the file named by $E2E_SYSLOG (tests/e2e/syslog-file.c); prints its path.
# Give the daemon LD_PRELOAD=SHIM and E2E_SYSLOG=FILE at its start (the
# name is read when the shim loads: sshd empties its PAM process's
# environment), and make FILE mode 0666 first: a module logs while it
# holds the user's file-system ids.
e2e_syslog_shim() {
	e2e_cc syslog-file.so "$BATS_TEST_DIRNAME/syslog-file.c" -shared -fPIC
	printf '%s\n' "$E2E_DIR/syslog-file.so"
}

# e2e_totp_state USER [LINE...]: provision USER with otp-keygen, run as
# that user: a TOTP state file ~/.google_authenticator (mode 0400, the
# user's own) with 5 scratch codes, the option lines given as otp-keygen
# options (e.g. --disallow-reuse --rate-limit=3/30).  Prints the Base32
# key.
e2e_totp_state() {
	local u=$1
	shift
	e2e_as "$u" "$E2E_DIR/bin/otp-keygen" --totp --scratch=5 \
	    --state "$(getent passwd "$u" | cut -d: -f6)/.google_authenticator" \
	    "$@" || fail "otp-keygen for $u failed"
}

# e2e_state_path USER: the user's state file.
e2e_state_path() {
	printf '%s/.google_authenticator\n' "$(getent passwd "$1" | cut -d: -f6)"
}

# e2e_scratch USER [N]: the user's Nth scratch code (1: the first) as the
# state file has it now.
e2e_scratch() {
	grep -E '^[0-9]{8}$' "$(e2e_state_path "$1")" | sed -n "${2:-1}p"
}

# e2e_code KEY [OFFSET-SECONDS]: the TOTP code for Base32 KEY now (or
# OFFSET seconds from now), from otp-gen.
e2e_code() {
	"$OTP_BIN/otp-gen" --totp -b -N "@$(($(date +%s) + ${2:-0}))" "$1"
}

# e2e_fresh_step: wait, when the current 30-second step ends within
# SECONDS (5), for the next one, so that a scenario of several logins
# runs within one step.
e2e_fresh_step() {
	local left
	left=$((30 - $(date +%s) % 30))
	if ((left <= ${1:-5})); then
		sleep "$left"
	fi
}

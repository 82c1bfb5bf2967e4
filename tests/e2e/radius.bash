# shellcheck shell=bash
# radius.bash - FreeRADIUS for tests/e2e/radius.bats and tests/bench:
# one server from one config tree of our own, run unprivileged as the
# freerad account on 127.0.0.1, with three virtual servers, each on its
# own port:
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
# Nothing here needs bats: the bench sources it too.  /etc/pam.d files are
# written by the caller (the suite through lib.bash's ledger, the bench
# with its own trap); this file never touches /etc and never
# /etc/freeradius.

RAD_SECRET=otp-e2e-secret
RAD_ACCOUNT=freerad
RAD_SBIN=/usr/sbin/freeradius

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
	chmod 0755 "$d/bin" "$d/bin/"*
	chown -R "$RAD_ACCOUNT:$RAD_ACCOUNT" "$d"
	chmod 0700 "$d"
}

# rad_conf DIR EXEC_PORT PAM_PORT [GA_PORT [UEXEC_PORT UPAM_PORT]]: write
# DIR/radiusd.conf (an empty GA_PORT: no ga server).  Every path is
# explicit; requests are refused without delay, so that the tests and the
# bench measure the check itself.
rad_conf() {
	local d=$1 pe=$2 pp=$3 pg=${4:-} pue=${5:-} pup=${6:-}
	local ga_mod='' ga_srv='' u_mod='' u_srv=''
	if [[ -n $pg ]]; then
		ga_mod="	pam gapam {
		pam_auth = $RAD_GA_SVC
	}"
		ga_srv=$(rad_conf_server ga "$pg" gapam)
	fi
	if [[ -n $pue ]]; then
		u_mod="	exec uexec {
		wait = yes
		program = \"$d/bin/otp-verify --radius --usersfile=$d/uexec/users.oath\"
		input_pairs = request
		output_pairs = reply
		shell_escape = yes
		timeout = 10
	}
	pam upam {
		pam_auth = $RAD_UPAM_SVC
	}"
		u_srv="$(rad_conf_server uexec "$pue" uexec)
$(rad_conf_server upam "$pup" upam)"
	fi
	cat >"$d/radiusd.conf" <<EOF
# otp-utils test server: one file, no include.
prefix = /usr
exec_prefix = /usr
sysconfdir = $d
localstatedir = $d
sbindir = /usr/sbin
logdir = $d/log
raddbdir = $d
radacctdir = $d/log
run_dir = $d
libdir = /usr/lib/freeradius
dictdir = /usr/share/freeradius
pidfile = $d/radiusd.pid
name = freeradius
max_request_time = 30
cleanup_delay = 0
max_requests = 16384
hostname_lookups = no

log {
	destination = files
	file = $d/log/radius.log
	auth = yes
	auth_badpass = no
	auth_goodpass = no
}

security {
	allow_core_dumps = no
	max_attributes = 200
	reject_delay = 0
	status_server = no
}

thread pool {
	start_servers = 16
	max_servers = 32
	min_spare_servers = 4
	max_spare_servers = 32
	max_requests_per_server = 0
	max_queue_size = 65536
}

client localhost {
	ipaddr = 127.0.0.1
	secret = $RAD_SECRET
}

modules {
	exec otpexec {
		wait = yes
		program = "$d/bin/otp-verify --radius --state-dir=$d/exec"
		input_pairs = request
		output_pairs = reply
		shell_escape = yes
		timeout = 10
	}
	pam otppam {
		pam_auth = $RAD_PAM_SVC
	}
$ga_mod
$u_mod
}

$(rad_conf_server exec "$pe" otpexec)
$(rad_conf_server pam "$pp" otppam)
$ga_srv
$u_srv
EOF
	chown "$RAD_ACCOUNT:$RAD_ACCOUNT" "$d/radiusd.conf"
}

# rad_conf_server NAME PORT MODULE: a virtual server whose every request
# goes to MODULE.
rad_conf_server() {
	cat <<EOF
server $1 {
	listen {
		type = auth
		ipaddr = 127.0.0.1
		port = $2
	}
	authorize {
		update control {
			&Auth-Type := $3
		}
	}
	authenticate {
		Auth-Type $3 {
			$3
		}
	}
}
EOF
}

# rad_pam_line DIR: the pam_otp.so line of the rlm_pam service: one state
# file per user in DIR/pam, owned by the server's account.
rad_pam_line() {
	# shellcheck disable=SC2016  # ${USER} is pam_otp.so's to expand
	printf 'auth required %s secret=%s/pam/${USER} user=%s\n' \
	    "$1/bin/pam_otp.so" "$1" "$RAD_ACCOUNT"
}

# rad_upam_line DIR: the pam_otp.so line of the users-file service: one
# users file for every user, DIR/upam/users.oath, the account's.
rad_upam_line() {
	printf 'auth required %s usersfile=%s/upam/users.oath\n' \
	    "$1/bin/pam_otp.so" "$1"
}

# rad_ga_line DIR: the same with pam_google_authenticator.so.
rad_ga_line() {
	# shellcheck disable=SC2016  # the module expands ${USER}
	printf 'auth required pam_google_authenticator.so secret=%s/ga/${USER} user=%s\n' \
	    "$1" "$RAD_ACCOUNT"
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
	    --clear-groups -- /usr/bin/python3 \
	    "$(dirname "${BASH_SOURCE[0]}")/syslog-sock.py" \
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

# shellcheck shell=bash
# shellcheck disable=SC2154  # status and output come from bats' run
# web.bash - Apache and nginx for tests/e2e/apache.bats and nginx.bats:
# one server of each, started as root from a config directory of the
# suite's own (it becomes www-data for the requests, as installed), on
# 127.0.0.1, guarding four locations with HTTP Basic authentication over
# PAM, each a copy of the shipped snippet (examples/HOST/otp.conf) with
# only its location and PAM service name changed, each service a copy of
# the shipped examples/HOST/pam.d files with only the paths changed:
#
#	/once	pam.d/HOST-otp, the line without linger=: a state file per
#		user in DIR/state, owned by www-data
#	/linger	pam.d/HOST-otp as shipped (linger=)
#	/pin	pam.d/HOST-otp-pin, the line without linger=: a PIN and a
#		code, one users file DIR/pin/users.oath of www-data's
#	/pinl	pam.d/HOST-otp-pin as shipped (linger=)
#
# and two that pam_otp(8) says to avoid: /echo and /grace, /once with
# echo_verification_code and with grace_period=60 added.
#
# pam_otp.so's log lines go to DIR/log/syslog (tests/e2e/syslog-file.c);
# every code a test sends is written down in DIR/codes, and the suites
# check that no log holds one.  Loaded after lib.bash.

WEB_ACCOUNT=www-data
WEB_EXAMPLES=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../examples" && pwd)
# rad_subst: a replacement that fails when the shipped file lacks what
# it replaces.
# shellcheck source=tests/e2e/radius.bash
source "$(dirname "${BASH_SOURCE[0]}")/radius.bash"

# The locations, each with its PAM file and the auth line it takes.
WEB_LOCATIONS="once linger pin pinl echo grace"

# web_as CMD...: run CMD as the servers' account.
web_as() {
	setpriv --reuid="$WEB_ACCOUNT" --regid="$WEB_ACCOUNT" --clear-groups \
	    -- "$@"
}

# web_tree DIR: DIR (new) holds copies of pam_otp.so and otp-keygen in
# bin/ (the build tree may be closed to www-data), the stores state/ and
# pin/ (www-data's, 0700, as the examples lay them out), a page in
# htdocs/LOCATION/ for each location, log/ with the syslog file that
# every process may append to, and run/ for the server.
web_tree() {
	local d=$1 l
	mkdir -p "$d/bin" "$d/state" "$d/pin" "$d/log" "$d/run" || return 1
	cp "$OTP_LIBDIR/pam_otp.so" "$OTP_BIN/otp-keygen" "$d/bin/" ||
	    return 1
	chmod 0755 "$d" "$d/bin" "$d/bin/"*
	chown "$WEB_ACCOUNT:$WEB_ACCOUNT" "$d/state" "$d/pin"
	chmod 0700 "$d/state" "$d/pin"
	for l in $WEB_LOCATIONS; do
		mkdir -p "$d/htdocs/$l" &&
		    echo "behind $l" >"$d/htdocs/$l/index.html" || return 1
	done
	chmod -R a+rX "$d/htdocs"
	: >"$d/log/syslog" && chmod 0666 "$d/log/syslog"
	: >"$d/codes"
}

# web_pam_file HOST LOCATION: the shipped PAM file a location uses.
web_pam_file() {
	case $2 in
	pin | pinl) echo "$WEB_EXAMPLES/$1/pam.d/$1-otp-pin" ;;
	*) echo "$WEB_EXAMPLES/$1/pam.d/$1-otp" ;;
	esac
}

# web_pam_service HOST LOCATION DIR: the service of LOCATION on standard
# output: the shipped file with the paths into DIR, and for once and pin
# its commented line without linger= in place of the one with it (for
# echo and grace, with their option added).
web_pam_service() {
	local f d=$3 with without
	f=$d/pam.d-$2
	cp "$(web_pam_file "$1" "$2")" "$f" || return 1
	with=$(grep '^auth.*pam_otp\.so' "$f")
	without=$(grep '^#auth.*pam_otp\.so' "$f")
	without=${without#\#}
	if [[ $with != *" linger="* || $without == *linger=* ]]; then
		echo "web.bash: $f: no auth lines with and without linger=" >&2
		return 1
	fi
	case $2 in
	once | pin) rad_subst "$f" "$with" "$without" "#$without" "" ;;
	echo) rad_subst "$f" "$with" "$without echo_verification_code" \
	    "#$without" "" ;;
	grace) rad_subst "$f" "$with" "$without grace_period=60" \
	    "#$without" "" ;;
	*) rad_subst "$f" "#$without" "" ;;
	esac || return 1
	case $2 in
	pin | pinl) rad_subst "$f" /var/lib/otp-web-pin/ "$d/pin/" ;;
	*) rad_subst "$f" /var/lib/otp-web/ "$d/state/" ;;
	esac && rad_subst "$f" "pam_otp.so " "$d/bin/pam_otp.so " && cat "$f"
}

# web_services HOST DIR: the four services in /etc/pam.d (through the
# ledger), named $E2E_TAG-HOST-LOCATION.
web_services() {
	local l
	for l in $WEB_LOCATIONS; do
		web_pam_service "$1" "$l" "$2" >"$2/$l.svc" || return 1
		e2e_pam_service "$E2E_TAG-$1-$l" <"$2/$l.svc" || return 1
	done
}

# web_enrol DIR USER [OTP-KEYGEN OPTION...]: a TOTP state file
# DIR/state/USER with DISALLOW_REUSE, made by otp-keygen as www-data;
# prints the key.
web_enrol() {
	local d=$1 u=$2
	shift 2
	web_as "$d/bin/otp-keygen" --totp --disallow-reuse --scratch=0 \
	    --state="$d/state/$u" "$@"
}

# web_uenrol DIR USER PIN: a TOTP token with PIN for USER in the users
# file DIR/pin/users.oath, added by otp-keygen as www-data; prints the
# key.
web_uenrol() {
	printf '%s\n' "$3" | web_as "$1/bin/otp-keygen" \
	    --usersfile="$1/pin/users.oath" --user="$2" --totp --pin=-
}

# web_code KEY [OFFSET]: the TOTP code now (or OFFSET seconds from now),
# written down for the log check.
web_code() {
	local c
	c=$("$OTP_BIN/otp-gen" --totp -b -N "@$(($(date +%s) + ${2:-0}))" "$1") ||
	    return 1
	echo "$c" >>"$WEB_DIR/codes"
	echo "$c"
}

# web_get PORT LOCATION [USER PASSWORD [FROM]]: one request for the
# location's page, with Basic credentials when given, from the address
# FROM (127.0.0.1); prints the HTTP status.
web_get() {
	local -a args=(-s -o /dev/null -w '%{http_code}' --max-time 20)
	[[ -z ${3:-} ]] || args+=(-u "$3:$4")
	[[ -z ${5:-} ]] || args+=(--interface "$5")
	curl "${args[@]}" "http://127.0.0.1:$1/$2/index.html"
}

# web_burst PORT LOCATION N USER PASSWORD: N requests at once, each its
# own curl; prints their statuses, one a line, sorted.
web_burst() {
	local i out
	out=$(mktemp -d "$WEB_DIR/burst.XXXXXX") || return 1
	for ((i = 1; i <= $3; i++)); do
		web_get "$1" "$2" "$4" "$5" >"$out/$i" &
	done
	wait
	for ((i = 1; i <= $3; i++)); do
		cat "$out/$i"
		echo
	done | sort
	rm -rf "$out"
}

# ---- the servers --------------------------------------------------------

# web_apache_frame DIR PORT: the main configuration of an Apache of its
# own on 127.0.0.1:PORT, with what Debian's apache2.conf and the modules
# it enables give (the account, the modules the example names), its
# files in DIR; the sections to include follow it.
web_apache_frame() {
	local d=$1 m
	cat <<-EOF
	ServerRoot $d/apache
	ServerName 127.0.0.1
	Listen 127.0.0.1:$2
	PidFile $d/run/apache.pid
	DefaultRuntimeDir $d/run
	Mutex file:$d/run default
	ErrorLog $d/log/apache-error.log
	LogLevel info
	User $WEB_ACCOUNT
	Group $WEB_ACCOUNT
	DocumentRoot $d/htdocs
	EOF
	for m in mpm_event authn_core authz_core authz_user auth_basic \
	    authnz_pam; do
		printf 'LoadModule %s_module /usr/lib/apache2/modules/mod_%s.so\n' \
		    "$m" "$m"
	done
}

# web_apache_conf DIR PORT: DIR/apache/httpd.conf, the frame and for
# each location a copy of examples/apache/otp.conf, its location and
# service renamed.
web_apache_conf() {
	local d=$1 a=$1/apache l
	mkdir -p "$a" && web_apache_frame "$d" "$2" >"$a/httpd.conf" ||
	    return 1
	for l in $WEB_LOCATIONS; do
		cp "$WEB_EXAMPLES/apache/otp.conf" "$a/otp-$l.conf" &&
		    rad_subst "$a/otp-$l.conf" \
		    '<Location "/private">' "<Location \"/$l\">" \
		    'AuthPAMService apache-otp' \
		    "AuthPAMService $E2E_TAG-apache-$l" || return 1
		echo "Include \"$a/otp-$l.conf\"" >>"$a/httpd.conf"
	done
}

# web_nginx_frame DIR PORT FILE...: the same for nginx: the module
# loaded, the account, its pid, logs and temporary files in DIR, and one
# server on 127.0.0.1:PORT that includes each FILE.
web_nginx_frame() {
	local d=$1 n=$1/nginx f
	cat <<-EOF
	load_module /usr/lib/nginx/modules/ngx_http_auth_pam_module.so;
	daemon off;
	worker_processes 2;
	user $WEB_ACCOUNT $WEB_ACCOUNT;
	pid $d/run/nginx.pid;
	error_log $d/log/nginx-error.log info;
	events {
		worker_connections 64;
	}
	http {
		access_log off;
		client_body_temp_path $n/tmp/body;
		proxy_temp_path $n/tmp/proxy;
		fastcgi_temp_path $n/tmp/fastcgi;
		uwsgi_temp_path $n/tmp/uwsgi;
		scgi_temp_path $n/tmp/scgi;
		server {
			listen 127.0.0.1:$2;
			root $d/htdocs;
	EOF
	shift 2
	for f in "$@"; do
		printf '\t\tinclude "%s";\n' "$f"
	done
	printf '\t}\n}\n'
}

# web_nginx_conf DIR PORT: DIR/nginx/nginx.conf, the frame with a copy
# of examples/nginx/otp.conf per location, each renamed.
web_nginx_conf() {
	local d=$1 n=$1/nginx l
	local -a files=()
	mkdir -p "$n/tmp" || return 1
	for l in $WEB_LOCATIONS; do
		cp "$WEB_EXAMPLES/nginx/otp.conf" "$n/otp-$l.conf" &&
		    rad_subst "$n/otp-$l.conf" \
		    'location /private/ {' "location /$l/ {" \
		    'auth_pam_service_name "nginx-otp";' \
		    "auth_pam_service_name \"$E2E_TAG-nginx-$l\";" || return 1
		files+=("$n/otp-$l.conf")
	done
	web_nginx_frame "$d" "$2" "${files[@]}" >"$n/nginx.conf"
}

# web_start HOST CMD...: start the server CMD as the e2e daemon HOST,
# with pam_otp.so's syslog lines going to DIR/log/syslog, and wait for
# its port.
web_start() {
	local h=$1 shim
	shift
	shim=$(e2e_syslog_shim) || return 1
	e2e_daemon_start "$h" "$WEB_DIR/log/$h.out" env LD_PRELOAD="$shim" \
	    E2E_SYSLOG="$WEB_DIR/log/syslog" "$@" >/dev/null
	e2e_wait_port "$WEB_PORT"
}

# ---- the cases both suites run -----------------------------------------

# web_want STATUS LOCATION [USER PASSWORD [FROM]]: one request of
# web_get to the suite's server gets STATUS.
web_want() {
	local want=$1
	shift
	run web_get "$WEB_PORT" "$@"
	assert_output "$want"
}

# web_user LOCATION NAME [OTP-KEYGEN OPTION...]: enrol NAME for
# LOCATION (a state file with the options given, or for pin and pinl a
# token with PIN 4711 in the users file); sets KEY.  A fresh step, so a
# scenario stays in one.
web_user() {
	local l=$1 u=$2
	shift 2
	case $l in
	pin | pinl) KEY=$(web_uenrol "$WEB_DIR" "$u" 4711) ;;
	*) KEY=$(web_enrol "$WEB_DIR" "$u" "$@") ;;
	esac || fail "otp-keygen for $u failed"
	e2e_fresh_step 8
}

# web_case_basic: no credentials, an unknown user, a wrong code, a
# right one, the same again (refused without linger).
web_case_basic() {
	web_user once basic
	web_want 401 once
	web_want 401 once nobody-here "$(web_code "$KEY")"
	web_want 401 once basic "$(web_code "$KEY" 600)"
	web_want 200 once basic "$(web_code "$KEY")"
	web_want 401 once basic "$(web_code "$KEY")"
	# A name with a path in it names no file.
	web_want 401 once ../state/basic "$(web_code "$KEY" 30)"
	# The state file stays www-data's, mode 0400.
	run stat -c '%U %a' "$WEB_DIR/state/basic"
	assert_output "$WEB_ACCOUNT 400"
}

# web_case_pin: a PIN and a code in the users file: both right 200, a
# wrong PIN or the code alone 401, reuse 401.
web_case_pin() {
	web_user pin pinner
	web_want 401 pin pinner "0000$(web_code "$KEY")"
	web_want 401 pin pinner "$(web_code "$KEY")"
	web_want 200 pin pinner "4711$(web_code "$KEY")"
	web_want 401 pin pinner "4711$(web_code "$KEY")"
	run stat -c '%U %a' "$WEB_DIR/pin/users.oath"
	assert_output "$WEB_ACCOUNT 600"
}

# web_case_burst LOCATION N: N requests at once with one fresh code:
# exactly one 200.
web_case_burst() {
	local want i pre=
	[[ $1 != pin* ]] || pre=4711
	web_user "$1" "burst-$1"
	run web_burst "$WEB_PORT" "$1" "$2" "burst-$1" "$pre$(web_code "$KEY")"
	want=$(printf '200\n'; for ((i = 1; i < $2; i++)); do echo 401; done)
	assert_output "$want"
}

# web_case_linger LOCATION PREFIX: with linger=, the same answer again
# from the same client 200, again and again; a wrong one 401; from
# another address (127.0.0.2) 401, and it still lingers for the first; a
# new code while one lingers 200.
web_case_linger() {
	local l=$1 pre=$2 u=linger-$1 c
	web_user "$l" "$u"
	c=$pre$(web_code "$KEY")
	web_want 200 "$l" "$u" "$c"
	web_want 200 "$l" "$u" "$c"
	web_want 200 "$l" "$u" "$c"
	web_want 401 "$l" "$u" "$pre$(web_code "$KEY" 600)"
	web_want 401 "$l" "$u" "$c" 127.0.0.2
	web_want 200 "$l" "$u" "$c"
	# The whole answer lingers: the code after another PIN does not.
	[[ -z $pre ]] || web_want 401 "$l" "$u" "0000${c#"$pre"}"
	web_want 200 "$l" "$u" "$pre$(web_code "$KEY" 30)"
	web_want 200 "$l" "$u" "$pre$(web_code "$KEY" 30)"
}

# web_case_linger_rate: a page of many requests under RATE_LIMIT: the
# lingering answer is no attempt, so the sixth request with it gets in
# where the limit allows two attempts; a new code is the second attempt,
# and a third is refused.
web_case_linger_rate() {
	local c i
	web_user linger rated --rate-limit=2/30
	c=$(web_code "$KEY")
	for ((i = 0; i < 6; i++)); do
		web_want 200 linger rated "$c"
	done
	web_want 200 linger rated "$(web_code "$KEY" 30)"
	web_want 401 linger rated "$(web_code "$KEY" -30)"
	run grep -c '"rated": too many attempts (RATE_LIMIT)' \
	    "$WEB_DIR/log/syslog"
	assert_output 1
	web_want 200 linger rated "$c"
}

# web_case_avoid: what pam_otp(8) says to avoid under a web server does
# what it says: with echo_verification_code no code gets in; with
# grace_period= any password does, from the same address.
web_case_avoid() {
	web_user echo echoed
	web_want 401 echo echoed "$(web_code "$KEY")"
	web_user grace graced
	web_want 401 grace graced x
	web_want 200 grace graced "$(web_code "$KEY")"
	web_want 200 grace graced x
	web_want 401 grace graced x 127.0.0.2
}

# web_case_doc HOST: pam_otp(8) names examples/HOST and shows the auth
# line of its pam.d/HOST-otp as shipped (blanks aside).
web_case_doc() {
	local man=$WEB_EXAMPLES/../man/pam_otp.8 line
	grep -qF "examples/$1" "$man" ||
	    fail "pam_otp(8) does not name examples/$1"
	line=$(grep '^auth.*pam_otp\.so' "$WEB_EXAMPLES/$1/pam.d/$1-otp" |
	    tr -s ' \t' ' ')
	tr -s ' \t' ' ' <"$man" | grep -qxF -- "$line" ||
	    fail "pam_otp(8) does not show the line of pam.d/$1-otp: $line"
}

# web_case_log: pam_otp.so's log holds no code this suite sent, and it
# did log (so the check looked at its lines).
web_case_log() {
	local c
	run grep -c 'pam_otp' "$WEB_DIR/log/syslog"
	assert_success
	while read -r c; do
		[[ -n $c ]] || continue
		run grep -F -- "$c" "$WEB_DIR/log/syslog"
		assert_failure 1
	done <"$WEB_DIR/codes"
}

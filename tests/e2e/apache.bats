#!/usr/bin/env bats
# Apache with mod_authnz_pam in front of pam_otp.so (root; make check-e2e).
#
# One Apache, started as root with a configuration of the suite's own (it
# runs the requests as www-data), on a port of 127.0.0.1, guards four
# locations, each a copy of the shipped examples/apache/otp.conf with its
# PAM service, a copy of the shipped examples/apache/pam.d files with only
# the paths changed (tests/e2e/web.bash): a code alone from a state file
# per user, and a PIN and a code from one users file, each without and
# with linger=.  curl plays the browser; 127.0.0.2 another client.  The
# service files, the server and its port are gone at the end (the last
# test checks).

bats_require_minimum_version 1.5.0

setup_file() {
	load ../common
	load lib
	load web
	e2e_setup_file apache2 libapache2-mod-authnz-pam curl
	WEB_DIR=$E2E_DIR/web
	WEB_PORT=$(e2e_port)
	export WEB_DIR WEB_PORT
	web_tree "$WEB_DIR" || fail "cannot make $WEB_DIR"
	web_services apache "$WEB_DIR" || fail "cannot make the PAM services"
	web_apache_conf "$WEB_DIR" "$WEB_PORT" ||
	    fail "cannot make the configuration from $WEB_EXAMPLES/apache"
	run apache2 -t -f "$WEB_DIR/apache/httpd.conf"
	[[ $status == 0 ]] || fail "apache2 -t: $output"
	web_start apache apache2 -f "$WEB_DIR/apache/httpd.conf" -DFOREGROUND
}

teardown_file() {
	load ../common
	load lib
	e2e_teardown_file
}

setup() {
	load ../common
	load lib
	load web
}

@test "examples/apache passes apache2 -t as shipped; the suite's server runs copies of it" {
	local f=$BATS_TEST_TMPDIR/check.conf l
	{
		web_apache_frame "$WEB_DIR" "$WEB_PORT"
		echo "Include \"$WEB_EXAMPLES/apache/otp.conf\""
	} >"$f"
	run apache2 -t -f "$f"
	assert_success
	# Only the location and the service name differ.
	for l in $WEB_LOCATIONS; do
		run bash -c "diff '$WEB_EXAMPLES/apache/otp.conf' \
		    '$WEB_DIR/apache/otp-$l.conf' | grep -c '^>'"
		assert_output 2
	done
	web_case_doc apache
}

@test "apache: no credentials, unknown user, wrong code 401; a right code 200, once" {
	web_case_basic
}

@test "apache: a PIN and a code from a users file of www-data's" {
	web_case_pin
}

@test "apache: 20 requests at once with one fresh code: exactly one 200" {
	web_case_burst once 20
}

@test "apache: 20 requests at once with one PIN and code: exactly one 200" {
	web_case_burst pin 20
}

@test "apache, linger=: the same code again 200, a new one 200, another client or a wrong code 401" {
	web_case_linger linger ""
}

@test "apache, linger=: a lingering answer is no attempt under RATE_LIMIT" {
	web_case_linger_rate
}

@test "apache, linger=: the same for a PIN and a code" {
	web_case_linger pinl 4711
}

@test "apache: what pam_otp(8) says to avoid: echo_verification_code lets no code in, grace_period= any password" {
	web_case_avoid
}

@test "apache: pam_otp.so's log holds no code" {
	web_case_log
}

@test "nothing is left behind" {
	e2e_cleanup
	e2e_check_clean
}

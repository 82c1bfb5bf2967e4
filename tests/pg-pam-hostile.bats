#!/usr/bin/env bats
# pg-pam-hostile.bats - pam_otp.so store=postgresql://... when something
# around the database is wrong, through pam_wrapper and pamtester (no
# root): a store object that does not load, a store key missing, a
# symbolic link or a FIFO; what is logged then (the reason, never a
# password of the URL); the build tree's store object found without
# store_module=.

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
	pg_test_db q
	PG_SO=$OTP_STORE_MODULE
	K=$D/store.key
	run -0 otp-store --store-key="$K" init "$URL"
	printf '%s\n' "$KEY" '" TOTP_AUTH' >"$D/tok"
	chmod 0400 "$D/tok"
	run -0 otp-store --store-key="$K" copy --user="$PAM_USER" "ga:$D/tok" \
	    "$URL"
}

@test "a store object that does not load: the loader's reason and store_module= logged, never the URL's password" {
	service t "auth required @MOD@ store=postgresql://u:s3cretpw@127.0.0.1:1/x?pass%77ord=s3cretpw store_key=$K store_module=$D/none.so"
	pam_run t "$(totp "$T0")"
	refused
	refute_output --partial s3cretpw
	assert_output --partial "none.so: cannot open shared object file"
	assert_output --partial "store_module="
	assert_output --partial "postgresql://u@127.0.0.1:1/x"
}

@test "without store_module=, pam_otp.so of a build tree loads that tree's store object" {
	[[ $OTP_SO == */lib/pam_otp.so && -f ${OTP_SO%/*}/otp-utils/store-pg.so ]] ||
	    skip "pam_otp.so is not in a build tree"
	unset OTP_STORE_MODULE
	service t "auth required @MOD@ store=$URL store_key=$K"
	pam_run t "$(totp "$T0")"
	accepted
}

@test "a store key missing, a symbolic link or a FIFO: refused at once with the reason logged, never 'Success'" {
	service t "auth required @MOD@ store=$URL store_key=$D/none store_module=$PG_SO"
	pam_run t "$(totp "$T0")"
	refused
	assert_output --partial "No such file or directory"
	refute_output --partial Success
	ln -s "$K" "$D/link"
	service t "auth required @MOD@ store=$URL store_key=$D/link store_module=$PG_SO"
	pam_run t "$(totp "$T0")"
	refused
	assert_output --partial "symbolic link"
	refute_output --partial Success
	mkfifo -m 0600 "$D/fifo"
	service t "auth required @MOD@ store=$URL store_key=$D/fifo store_module=$PG_SO"
	PAM_TIMEOUT=20 pam_run t "$(totp "$T0")"
	((status != 124)) || fail "the login waited on the FIFO"
	refused
	assert_output --partial "store key"
}

@test "a user without a token is asked, and the end runs on the database all the same: the refusal takes an enrolled user's work" {
	log=$(pg_cluster_data pg)/../server.log
	psql -q -X -d postgres -c "ALTER DATABASE $DB SET log_statement = 'all'"
	service t "auth required @MOD@ store=$URL store_key=$K store_module=$PG_SO"
	before=$(grep -c "FOR UPDATE" "$log" || true)
	PAM_RUN_USER=nobody-here pam_run t "$(totp "$T0")"
	refused
	assert_output --partial "nobody-here"
	after=$(grep -c "FOR UPDATE" "$log" || true)
	((after > before)) || fail "no locked read for the unknown user"
}

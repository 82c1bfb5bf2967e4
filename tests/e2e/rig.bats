#!/usr/bin/env bats
# rig.bats - the rig of tests/e2e (lib.bash) checks itself: what it makes
# is written down and undone, what it did not make is never touched, and
# e2e_check_clean does see what is left.

bats_require_minimum_version 1.5.0

setup_file() {
	load ../common
	load lib
	e2e_setup_file
}

teardown_file() {
	load ../common
	load lib
	e2e_teardown_file
}

setup() {
	load ../common
	load lib
	[[ -n ${E2E_DIR:-} ]] || skip "e2e: suite not set up"
}

@test "rig: an existing file under /etc is refused and left alone" {
	local before
	before=$(sha256sum /etc/passwd)
	run ! e2e_etc_write /etc/passwd </dev/null
	assert_output --partial "exists and is not ours"
	run ! e2e_etc_remove /etc/passwd
	run ! e2e_etc_write /etc/../tmp/x </dev/null
	run ! e2e_etc_write /tmp/x </dev/null
	[[ $(sha256sum /etc/passwd) == "$before" ]]
	run ! grep -q '^etc /etc/passwd$' "$E2E_LEDGER"
	run ! e2e_user_del root
	getent passwd root >/dev/null
}

@test "rig: the cleanup check sees a user, an /etc file, a daemon, a port" {
	local u p
	u=$(e2e_user_add probe)
	printf 'probe\n' | e2e_etc_write "/etc/$E2E_TAG-probe"
	p=$(e2e_port)
	e2e_daemon_start probe "$E2E_DIR/probe.log" /usr/bin/python3 -c \
	    "import socket, time
s = socket.socket(); s.bind(('127.0.0.1', $p)); s.listen(); time.sleep(60)" \
	    >/dev/null
	e2e_wait_port "$p"
	run ! e2e_check_clean
	assert_output --partial "user $u"
	assert_output --partial "home /home/$u"
	assert_output --partial "file /etc/$E2E_TAG-probe"
	assert_output --partial "daemon probe"
	assert_output --partial "port $p"
	e2e_cleanup
	e2e_check_clean
	[[ ! -e /etc/$E2E_TAG-probe ]]
	run ! getent passwd "$u"
}

@test "e2e: nothing is left behind" {
	e2e_cleanup
	e2e_check_clean
}

#!/usr/bin/env bats
# bench.bats - the benchmark helpers (tests/bench/lib.sh) never print a
# figure for a command that failed: the script exits non-zero and names
# the command, through hyperfine and through the shell loop without it.
# The benchmarks themselves are `make bench`; these runs take a second.

bats_require_minimum_version 1.5.0
load common

LIB=$BATS_TEST_DIRNAME/bench/lib.sh

# in_bench SCRIPT: run SCRIPT in bash with lib.sh sourced, 2 runs a row.
in_bench() {
	run --separate-stderr env BENCH_RUNS=2 bash -c \
	    ". '$LIB'; set -u; $1; echo done"
}

# both WHAT: run the checks of WHAT through hyperfine, then without.
both() {
	local h
	for h in hyperfine none; do
		if [[ $h == hyperfine ]] && ! command -v hyperfine >/dev/null; then
			echo "# hyperfine is not installed: the loop only"
			continue
		fi
		echo "# BENCH_HYPERFINE=$h"
		BENCH_HYPERFINE=$h "$1"
	done
}

# failed: the last in_bench failed, said which command, printed no row.
failed() {
	local cmd=$1
	assert_failure
	[[ $stderr == *"bench: FAILED"*"$cmd"* ]] ||
	    fail "the failure does not name '$cmd': $stderr"
	[[ $output != *" ms"* ]] || fail "a figure was printed: $output"
	[[ $output != *done* ]] || fail "the script went on"
}

rows_ok() {
	in_bench 'bench "ok" true "true | true"'
	assert_success
	assert_output --regexp '^ok +[0-9.]+ ms +[0-9.]+ ms'
	assert_line done
	BENCH_STATUS="1 2" in_bench 'bench "no" false "sh -c \"exit 2\""'
	assert_success
	assert_line --regexp '^no +[0-9.]+ ms'
}

@test "the control: commands that succeed, or exit as BENCH_STATUS says, give a row" {
	both rows_ok
}

fails() {
	in_bench 'bench "row" "otp-gen-no-such-command 1" true'
	failed otp-gen-no-such-command
	in_bench 'bench "row" true "sh -c \"exit 3\""'
	failed 'exit 3'
	# A pipeline fails when any stage does, not only its last.
	in_bench 'bench "row" "true | false | true" true'
	failed "true | false | true"
	# A status other than the one expected is a failure too.
	BENCH_STATUS="1 2" in_bench 'bench "row" "sh -c \"exit 2\"" "exit 2"'
	failed 'exit 2'
	in_bench 'bench_core "row" "false" true'
	failed false
	in_bench 'x=$(median_ns "otp-no-such-tool" true) || exit 1'
	failed otp-no-such-tool
	in_bench 'x=$(median_ns true "false prepare") || exit 1'
	failed "false prepare"
}

@test "bench, bench_core, median_ns: a command that fails fails the script, named" {
	both fails
}

@test "bench_alt, peak_rss_kb, row: a failure is named, never a figure" {
	in_bench 'bench_alt "row" true otp-no-such-tool'
	failed otp-no-such-tool
	in_bench 'x=$(peak_rss_kb "otp-no-such-tool x") || exit 1'
	failed otp-no-such-tool
	in_bench 'row "a row without a time" "" 5'
	failed "a row without a time"
	in_bench 'row "a row" 1000000 2000000'
	assert_success
	assert_line --regexp '^a row +1.00 ms +2.00 ms +2.00x'
}

@test "bench-users.sh outside make bench: no otp-verify on PATH is a failure, not 0.00 ms" {
	[[ -z ${OTP_SANITIZE:-} ]] || skip "pamtester does not load ASan"
	[[ -f /lib/x86_64-linux-gnu/security/pam_oath.so ]] ||
	    skip "pam_oath.so (libpam-oath) is not installed"
	command -v pamtester >/dev/null || skip "pamtester is not installed"
	local path=/usr/sbin:/usr/bin:/sbin:/bin
	! PATH=$path command -v otp-verify >/dev/null ||
	    skip "an otp-verify is installed on $path"
	run --separate-stderr env PATH="$path" OTP_BIN="$OTP_BIN" \
	    OTP_LIBDIR="${OTP_LIBDIR:-$OTP_BIN/../lib}" USERS_RUNS=1 \
	    bash "$BATS_TEST_DIRNAME/bench/bench-users.sh"
	assert_failure
	[[ $stderr == *"bench: FAILED"*"otp-verify -q --usersfile"* ]] ||
	    fail "not named: $stderr"
	[[ $output != *"otp-verify --usersfile vs"* ]] ||
	    fail "a figure was printed: $output"
}

#!/usr/bin/env bats
# otp-gen against two other implementations, oathtool and pyotp, on a few
# thousand random cases per run (the seed is printed; CROSSCHECK_SEED
# replays a run, CROSSCHECK_CASES changes its size).

load common

@test "otp-gen agrees with oathtool and pyotp on random cases" {
	# Fewer cases under the sanitizers, which make every run slower.
	local cases=2000
	[ -z "${OTP_SANITIZE:-}" ] || cases=300
	run "$PY" "$BATS_TEST_DIRNAME/crosscheck-gen.py" \
	    "${CROSSCHECK_CASES:-$cases}" ${CROSSCHECK_SEED:+"$CROSSCHECK_SEED"}
	echo "$output" | head -n 30
	assert_success
	assert_line --regexp '^[0-9]+ passed, 0 failed$'
}

#!/usr/bin/env bats
# otp-gen against two other implementations, oathtool and pyotp, on a few
# thousand random cases per run (the seed is printed; CROSSCHECK_SEED
# replays a run, CROSSCHECK_CASES changes its size).

load common

@test "otp-gen agrees with oathtool and pyotp on random cases" {
	run "$PY" "$BATS_TEST_DIRNAME/crosscheck-gen.py" \
	    "${CROSSCHECK_CASES:-2000}" ${CROSSCHECK_SEED:+"$CROSSCHECK_SEED"}
	echo "$output" | head -n 30
	assert_success
	assert_line --regexp '^[0-9]+ passed, 0 failed$'
}

#!/usr/bin/env bats
# lib-stores.bats - one code, every kind of verifier at once: 8 threads of
# the Python module (otputils.Store, over libotputils), 3 otp-verify
# processes and a PAM login through pam_otp.so race with the same code,
# on a state file and on a PostgreSQL store (tests/pgcluster.bash):
# exactly one of them accepts it.  The real clock: the code is now's,
# pam_otp.so's clock frozen at the same second.

bats_require_minimum_version 1.5.0

setup_file() {
	load common
	load pam/lib
	load pgcluster
	pam_setup_file
	if pg_cluster_available >/dev/null; then
		pg_cluster_start "$BATS_FILE_TMPDIR" lib || fail "no cluster"
	fi
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
	MOD=otp
	PYDIR=$OTP_LIBDIR/../python
	[[ -f $PYDIR/otputils/__init__.py ]] ||
	    skip "the Python module is not built"
	PG_SO=$OTP_LIBDIR/otp-utils/store-pg.so
}

# race URL PAM-OPTIONS [PYTHON-KWARG...]: the current code from the 12
# verifiers at once; prints how many accepted (each verifier's result
# on stderr).  K, when set, is a database's store key (otp-verify then
# names the user).
race() {
	local url=$1 pamopts=$2 code rc n i
	shift 2
	NOW=$(date +%s)
	code=$(totp "$NOW")
	service t "auth required @MOD@ $pamopts"
	: >"$D/results"
	: >"$D/errors"
	(
		pam_run t "$code"
		echo "pam $status" >>"$D/results"
	) &
	for i in 1 2 3; do
		(
			rc=0
			otp-verify -q --store="$url" \
			    ${K:+--user="$PAM_USER" --store-key="$K"} \
			    "$code" >/dev/null \
			    2>>"$D/errors" || rc=$?
			echo "otp-verify $rc" >>"$D/results"
		) &
	done
	# Under make sanitize the module is sanitized, the interpreter not.
	env ${ASAN_SO:+LD_PRELOAD="$ASAN_SO $(gcc -print-file-name=libubsan.so)"} \
	    ${ASAN_SO:+ASAN_OPTIONS=detect_leaks=0} \
	    LD_LIBRARY_PATH="$OTP_LIBDIR" PYTHONPATH="$PYDIR" \
	    "$PY" - "$url" "$PAM_USER" "$code" "$@" >>"$D/results" <<'EOP'
import sys
import threading

import otputils

url, user, code = sys.argv[1:4]
kw = dict(a.split("=", 1) for a in sys.argv[4:])
store = otputils.Store(url, **kw)
gate = threading.Barrier(8)
out = []


def login():
    gate.wait()
    out.append(store.check(user, code))


threads = [threading.Thread(target=login) for _ in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
for r in out:
    print("python %d" % (0 if r else 1))
EOP
	wait
	cat "$D/results" "$D/errors" >&2
	n=$(grep -c ' 0$' "$D/results") || true
	[[ $(wc -l <"$D/results") == 12 ]] ||
	    fail "not every verifier answered: $(cat "$D/results")"
	# A refusal is 1 (otp-verify) or PAM's 7 (auth error); no error.
	! grep -v -E ' (0|1|7)$' "$D/results" ||
	    fail "a verifier failed rather than refused"
	echo "$n"
}

@test "one code on a state file: Python threads, otp-verify and pam_otp.so, exactly one accept" {
	state_file "$D/otp/state" "$KEY" '" WINDOW_SIZE 3' '" DISALLOW_REUSE' \
	    '" TOTP_AUTH'
	K=
	n=$(race "ga:$D/otp/state" "secret=$D/otp/state")
	[[ $n == 1 ]] || fail "$n accepts"
}

@test "one code on a PostgreSQL store: Python threads, otp-verify and pam_otp.so, exactly one accept" {
	[[ -n ${PGPORT:-} ]] || skip "no PostgreSQL server"
	[[ -f $PG_SO ]] || skip "store-pg.so is not built"
	export OTP_STORE_MODULE=$PG_SO
	psql -q -X -v ON_ERROR_STOP=1 -d postgres \
	    -c "CREATE DATABASE lib$BATS_SUITE_TEST_NUMBER" >/dev/null ||
	    fail "createdb"
	url="postgresql://postgres@127.0.0.1:$PGPORT/lib$BATS_SUITE_TEST_NUMBER"
	K=$D/store.key
	run -0 otp-store --store-key="$K" init "$url"
	printf '%s\n' "$KEY" '" TOTP_AUTH' '" WINDOW_SIZE 3' >"$D/tok"
	chmod 0400 "$D/tok"
	run -0 otp-store --store-key="$K" copy --user="$PAM_USER" "ga:$D/tok" \
	    "$url"
	n=$(race "$url" "store=$url store_key=$K store_module=$PG_SO" \
	    store_key="$K" store_module="$PG_SO")
	[[ $n == 1 ]] || fail "$n accepts"
}

"""py-bench.py - the Python module otputils against pyotp, in process:
prints one line per row, "NAME<TAB>OURS_NS<TAB>THEIRS_NS", each the
median of 5 timings of N calls (tests/bench/bench-python.sh prints the
table).  The store row compares a login through otputils.Store on a
state file with one otp-verify --state process per login."""

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import pyotp

import otputils

N = 5000
SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"


def median_ns(fn, n):
    runs = []
    for _ in range(5):
        t0 = time.perf_counter_ns()
        fn(n)
        runs.append(time.perf_counter_ns() - t0)
    return statistics.median(runs)


def row(name, ours, theirs, n=N):
    print("%s\t%d\t%d" % (name, median_ns(ours, n), median_ns(theirs, n)))
    sys.stdout.flush()


def main():
    ours, theirs = otputils.TOTP(SECRET), pyotp.TOTP(SECRET)
    t = 1700000000
    code = theirs.at(t + 30)
    if ours.at(t) != theirs.at(t) or not ours.verify(code, t, 1):
        sys.exit("py-bench: otputils and pyotp disagree")

    def at(impl):
        def run(n):
            for i in range(n):
                impl.at(t + i)
        return run

    def verify(impl):
        def run(n):
            for i in range(n):
                impl.verify(code, t, valid_window=1)
        return run

    def both(impl):
        def run(n):
            for i in range(n):
                impl.verify(impl.at(t + 30), t, valid_window=1)
        return run

    row("python: TOTP.at, %d calls" % N, at(ours), at(theirs))
    row("python: TOTP.verify(valid_window=1), %d calls" % N,
        verify(ours), verify(theirs))
    row("python: at + verify(valid_window=1), %d calls" % N,
        both(ours), both(theirs))

    # A login from Python against one otp-verify --state process.
    d = tempfile.mkdtemp()
    path = os.path.join(d, "state")
    try:
        with open(path, "w") as f:
            f.write(SECRET + '\n" WINDOW_SIZE 3\n" TOTP_AUTH\n')
        os.chmod(path, 0o600)
        store = otputils.Store("ga:" + path)
        tool = os.path.join(os.environ["OTP_BIN"], "otp-verify")

        def logins(n):
            for _ in range(n):
                store.check("nobody", "000000")

        def processes(n):
            for _ in range(n):
                subprocess.call([tool, "-q", "--state", path, "000000"],
                                stdout=subprocess.DEVNULL)

        row("python: Store.check vs otp-verify --state, 100 logins",
            logins, processes, 100)
    finally:
        shutil.rmtree(d)


main()

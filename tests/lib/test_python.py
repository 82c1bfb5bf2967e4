"""The Python module otputils against python3-pyotp, and a store login
from threads and otp-verify processes on one code (exactly one accept).

    TZ=UTC PYTHONPATH=BUILD/python /usr/bin/python3 tests/lib/test_python.py

OTP_BIN names the tools' directory (otp-verify joins the race when set).
"""

import hashlib
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import pyotp

import otputils

DIGESTS = [hashlib.sha1, hashlib.sha256, hashlib.sha512]
RNG = random.Random(int.from_bytes(os.urandom(8), "big"))


def random_token():
    """Random parameters: every digest, 6-8 digits, periods."""
    return dict(s=pyotp.random_base32(RNG.choice([32, 40, 64])),
                digits=RNG.choice([6, 7, 8]),
                digest=RNG.choice(DIGESTS),
                interval=RNG.choice([30, 60, 15, 90]))


class Crosscheck(unittest.TestCase):
    def test_totp_codes_and_windows(self):
        for _ in range(150):
            p = random_token()
            ours = otputils.TOTP(**p)
            theirs = pyotp.TOTP(**p)
            t = RNG.randrange(0, 2**33)
            self.assertEqual(ours.at(t), theirs.at(t), p)
            w = RNG.randrange(0, 4)
            off = RNG.randrange(-5, 6)
            code = theirs.at(t, counter_offset=off)
            self.assertEqual(ours.verify(code, t, valid_window=w),
                             theirs.verify(code, t, valid_window=w),
                             (p, t, w, off))

    def test_totp_defaults_now(self):
        s = pyotp.random_base32()
        ours, theirs = otputils.TOTP(s), pyotp.TOTP(s)
        for _ in range(3):
            a, b = ours.now(), theirs.now()
            if a == b:
                break
        self.assertEqual(a, b)
        self.assertTrue(ours.verify(theirs.now(), valid_window=1))
        self.assertEqual(ours.digits, 6)
        self.assertEqual(ours.interval, 30)
        self.assertIs(ours.digest, hashlib.sha1)

    def test_hotp(self):
        for _ in range(100):
            p = random_token()
            del p["interval"]
            c0 = RNG.randrange(0, 2**40)
            ours = otputils.HOTP(initial_count=c0, **p)
            theirs = pyotp.HOTP(initial_count=c0, **p)
            n = RNG.randrange(0, 1000)
            self.assertEqual(ours.at(n), theirs.at(n))
            self.assertTrue(ours.verify(theirs.at(n), n))
            self.assertFalse(ours.verify(theirs.at(n), n + 1))

    def test_digest_by_name(self):
        s = pyotp.random_base32()
        self.assertEqual(otputils.TOTP(s, digest="sha256").at(59),
                         pyotp.TOTP(s, digest=hashlib.sha256).at(59))
        with self.assertRaisesRegex(ValueError, "unknown algorithm"):
            otputils.TOTP(s, digest=hashlib.md5)

    def test_uris_both_ways(self):
        for _ in range(60):
            p = random_token()
            name = RNG.choice(["alice@example.org", "bob", "é ü"])
            issuer = RNG.choice([None, "Example Co", "ACME:1"])
            if issuer is not None and ":" in issuer:
                issuer = issuer.replace(":", "")
            ours = otputils.TOTP(**p)
            theirs = pyotp.TOTP(**p)
            # pyotp parses ours.
            back = pyotp.parse_uri(ours.provisioning_uri(name, issuer))
            self.assertEqual(back.at(12345678), theirs.at(12345678))
            self.assertEqual(back.name, name)
            self.assertEqual(back.issuer, issuer)
            # We parse pyotp's.
            mine = otputils.parse_uri(theirs.provisioning_uri(name, issuer))
            self.assertIsInstance(mine, otputils.TOTP)
            self.assertEqual(mine.at(12345678), theirs.at(12345678))
            self.assertEqual((mine.name, mine.issuer, mine.interval,
                              mine.digits), (name, issuer, p["interval"],
                                             p["digits"]))
        h = pyotp.HOTP(pyotp.random_base32(), initial_count=7)
        mine = otputils.parse_uri(h.provisioning_uri("x", issuer_name="Y"))
        self.assertIsInstance(mine, otputils.HOTP)
        self.assertEqual(mine.at(3), h.at(3))
        back = pyotp.parse_uri(otputils.HOTP(h.secret, initial_count=7)
                               .provisioning_uri("x", issuer_name="Y"))
        self.assertEqual(back.at(3), h.at(3))

    def test_random_base32(self):
        s = otputils.random_base32()
        self.assertEqual(len(s), 32)
        self.assertEqual(len(otputils.random_base32(40)), 40)
        self.assertNotEqual(s, otputils.random_base32())
        pyotp.TOTP(s).now()
        with self.assertRaises(ValueError):
            otputils.random_base32(16)

    def test_verify_step_after(self):
        s = pyotp.random_base32()
        t, ours = pyotp.TOTP(s), otputils.TOTP(s)
        code = t.at(3000 * 30)
        self.assertEqual(ours.verify_step(code, 3000 * 30), 3000)
        self.assertEqual(ours.verify_step(t.at(3001 * 30), 3000 * 30,
                                          valid_window=1), 3001)
        self.assertIsNone(ours.verify_step(code, 3000 * 30, after=3000))
        self.assertEqual(ours.verify_step(code, 3000 * 30, after=2999),
                         3000)
        self.assertIsNone(ours.verify_step("12x456", 0))

    def test_bad_input(self):
        with self.assertRaisesRegex(ValueError, "invalid Base32 character"):
            otputils.TOTP("ABC!DEF")
        with self.assertRaisesRegex(ValueError, "digits out of range"):
            otputils.TOTP(pyotp.random_base32(), digits=11)
        with self.assertRaisesRegex(ValueError, "invalid time step"):
            otputils.TOTP(pyotp.random_base32(), interval=0)
        with self.assertRaisesRegex(ValueError, "not an otpauth:// URI"):
            otputils.parse_uri("http://example.org/")
        with self.assertRaisesRegex(ValueError, "URI has no secret"):
            otputils.parse_uri("otpauth://totp/x?digits=6")
        with self.assertRaises(ValueError):
            otputils.Store("nope:/x")
        with self.assertRaisesRegex(ValueError, "invalid argument"):
            otputils.Store("ga:/x", window="many")
        with self.assertRaisesRegex(ValueError, "linger= needs the client"):
            otputils.Store("ga:/x", linger=60)
        with self.assertRaises(TypeError):
            otputils.TOTP(None)


SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"


class StoreLogin(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.path = os.path.join(self.dir, "state")
        with open(self.path, "w") as f:
            f.write(SECRET + '\n" WINDOW_SIZE 3\n" DISALLOW_REUSE\n'
                    '" TOTP_AUTH\n87654321\n')
        os.chmod(self.path, 0o600)

    def tearDown(self):
        shutil.rmtree(self.dir)

    def race(self, answer, processes):
        store = otputils.Store("ga:" + self.path, window=3)
        results = []
        gate = threading.Barrier(8)

        def login():
            gate.wait()
            results.append(store.check("nobody", answer))

        threads = [threading.Thread(target=login) for _ in range(8)]
        bin_dir = os.environ.get("OTP_BIN")
        procs = []
        if processes and bin_dir:
            procs = [subprocess.Popen(
                [os.path.join(bin_dir, "otp-verify"), "-q",
                 "--store=ga:" + self.path, answer],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
                for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        codes = [p.wait() for p in procs]
        for c in codes:
            self.assertIn(c, (0, 1))
        return results.count(True) + codes.count(0)

    def test_one_code_once(self):
        code = pyotp.TOTP(SECRET).now()
        self.assertEqual(self.race(code, True), 1)
        store = otputils.Store("ga:" + self.path)
        self.assertFalse(store.check("nobody", code))
        self.assertTrue(store.reason)

    def test_one_scratch_code_once(self):
        self.assertEqual(self.race("87654321", True), 1)

    def test_gil_released_during_login(self):
        # A login waits on the state file's lock, held here: the main
        # thread must run meanwhile.  Were the GIL kept, the child would
        # hang (killed after a minute: a failure, never a false alarm).
        child = r"""
import fcntl, sys, threading, time
import otputils
path = sys.argv[1]
store = otputils.Store("ga:" + path)
f = open(path)
fcntl.flock(f, fcntl.LOCK_EX)
started, ran = threading.Event(), []
def login():
    started.set()
    store.check("nobody", "000000")
    print("main ran during the login" if ran else "login first")
t = threading.Thread(target=login)
t.start()
started.wait()
time.sleep(0.2)
ran.append(1)
fcntl.flock(f, fcntl.LOCK_UN)
t.join()
"""
        out = subprocess.run([sys.executable, "-c", child, self.path],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(out.stdout.strip(), "main ran during the login",
                         out.stderr)

    def test_reason_is_the_calling_threads(self):
        # One Store for a server's threads: each reads the reason of its
        # own login, not of the last one run in the process.
        store = otputils.Store("ga:" + self.path)
        done, read, seen = threading.Event(), threading.Event(), []

        def login():
            store.check("nobody", "12")
            done.set()
            read.wait()
            seen.append(store.reason)

        t = threading.Thread(target=login)
        t.start()
        done.wait()
        self.assertFalse(store.check("nobody", "000000"))
        read.set()
        t.join()
        self.assertIn("digit", seen[0])
        self.assertNotIn("digit", store.reason)

    def test_unanswerable_store_raises(self):
        store = otputils.Store("ga:" + os.path.join(self.dir, "none"))
        self.assertFalse(store.check("nobody", "123456"))
        os.chmod(self.path, 0o644)
        with self.assertRaises(otputils.Error):
            otputils.Store("ga:" + self.path).check("nobody", "123456")
        # pam_otp.so's option, honoured: the mode is allowed.
        store = otputils.Store("ga:" + self.path, allowed_perm="0644")
        self.assertFalse(store.check("nobody", "000000x"))
        self.assertTrue(store.check("nobody", "87654321"))


if __name__ == "__main__":
    unittest.main()

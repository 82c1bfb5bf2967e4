#!/usr/bin/python3
"""Cross-check otp-gen against oathtool and pyotp on random cases.

Usage: crosscheck-gen.py [CASES] [SEED]
Prints the seed first so a failure can be replayed, then one line per
disagreement, and exits 1 if there was any.  Run by tests/otp-gen-crosscheck.bats.
"""
import base64
import calendar
import os
import random
import subprocess
import sys
import time

import pyotp

CASES = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
SEED = int(sys.argv[2]) if len(sys.argv) > 2 else int.from_bytes(os.urandom(4), "big")
rng = random.Random(SEED)
print(f"seed {SEED}, {CASES} cases", flush=True)

ALGS = {"SHA1": "sha1", "SHA256": "sha256", "SHA512": "sha512"}
failures = 0


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def fail(what, cmd, got, want):
    global failures
    failures += 1
    if failures <= 20:
        print(f"MISMATCH ({what}): {' '.join(cmd)}\n  got  {got!r}\n  want {want!r}")


def duration_text(step):
    """A spelling of step seconds both tools accept."""
    m, s = divmod(step, 60)
    forms = [str(step), f"{step}s"]
    if step % 60 == 0:
        forms.append(f"{step // 60}m")
    elif m > 0:
        forms.append(f"{m}m{s}s")
    return rng.choice(forms)


def time_text(t):
    forms = [f"@{t}", time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(t)),
             time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))]
    return rng.choice(forms)


for i in range(CASES):
    key = os.urandom(rng.choice([1, 10, 16, 20, 32, 64, rng.randint(1, 64)]))
    khex = key.hex()
    kb32 = base64.b32encode(key).decode().rstrip("=")
    use_b32 = rng.random() < 0.3
    keyarg = kb32.lower() if use_b32 and rng.random() < 0.5 else (kb32 if use_b32 else khex)
    digits = rng.choice([6, 7, 8])
    window = rng.choice([0, 0, 0, 1, 3, 10])
    totp = rng.random() < 0.6
    ours = ["otp-gen", "-d", str(digits), "-w", str(window)]
    theirs = ["oathtool", "-d", str(digits), "-w", str(window)]
    if use_b32:
        ours.append("-b")
        theirs.append("-b")
    if totp:
        alg = rng.choice(list(ALGS))
        step = rng.choice([30, 30, 60, 45, 10, 150, rng.randint(1, 3600)])
        start = rng.choice([0, 0, rng.randint(0, 2_000_000_000)])
        now = start + rng.randint(0, 4_000_000_000)
        ours += [f"--totp={alg}", "-s", duration_text(step), "-S", time_text(start),
                 "-N", time_text(now), keyarg]
        theirs += [f"--totp={alg}", "-s", str(step), "-S", f"@{start}", "-N", f"@{now}", keyarg]
        t = pyotp.TOTP(kb32, digits=digits, digest=ALGS[alg], interval=step)
        counter = (now - start) // step
        want_py = [t.generate_otp(counter + j) for j in range(window + 1)]
    else:
        counter = rng.choice([0, rng.randint(0, 1000), rng.randint(0, 2**63)])
        ours += ["-c", str(counter), keyarg]
        theirs += ["-c", str(counter), keyarg]
        h = pyotp.HOTP(kb32, digits=digits)
        want_py = [h.at(counter + j) for j in range(window + 1)]
    rc, out, err = run(ours)
    got = out.split()
    if rc != 0:
        fail("exit status", ours, (rc, err), 0)
        continue
    orc, oout, oerr = run(theirs)
    if orc != 0 or oout.split() != got:
        fail("oathtool", ours, got, (orc, oout.split(), oerr))
    if want_py != got:
        fail("pyotp", ours, got, want_py)

    # pyotp also covers what oathtool cannot: HOTP with SHA256/512, 9-10 digits.
    alg = rng.choice(list(ALGS))
    d2 = rng.choice([6, 7, 8, 9, 10])
    c2 = rng.randint(0, 2**40)
    cmd = ["otp-gen", "-a", alg, "-d", str(d2), "-c", str(c2), khex]
    rc, out, err = run(cmd)
    want = pyotp.HOTP(kb32, digits=d2, digest=ALGS[alg]).at(c2)
    if rc != 0 or out.strip() != want:
        fail("pyotp HOTP", cmd, (rc, out.strip(), err), want)

print(f"{CASES * 2 - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)

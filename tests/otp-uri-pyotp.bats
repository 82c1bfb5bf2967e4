#!/usr/bin/env bats
# otp-uri against pyotp (Debian's python3-pyotp): pyotp's provisioning URIs
# read by --parse, and otp-uri's URIs read by pyotp.parse_uri giving the
# codes otp-gen gives, over a few hundred random labels.  The seed is
# printed; OTP_SEED=N repeats a run.

bats_require_minimum_version 1.5.0
load common

setup() {
	T=$BATS_TEST_TMPDIR
	SEED=${OTP_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
	export SEED
	echo "# seed $SEED (OTP_SEED=$SEED repeats this run)" >&3
}

@test "pyotp provisioning_uri -> otp-uri --parse: same fields" {
	run "$PY" - "$OTP_BIN/otp-uri" <<'EOF'
import base64, hashlib, json, os, random, subprocess, sys

import pyotp

rng = random.Random(int(os.environ["SEED"]))
tool = sys.argv[1]
# Spaces, colons (in the account), '@', '&', '%', '+', '/', '=', '?',
# '#', quotes and UTF-8 of 2, 3 and 4 bytes.
PIECES = ["a", "Z", "0", " ", "@", "&", "%", "+", "/", "=", "?", "#",
          "'", '"', ".", "-", "_", "~", "ü", "é", "€", "東京", "🔑"]
ALGS = {"SHA1": hashlib.sha1, "SHA256": hashlib.sha256,
        "SHA512": hashlib.sha512}

def label(colon):
    s = "".join(rng.choice(PIECES + ([":"] if colon else []))
                for _ in range(rng.randint(1, 16)))
    return s

cases = []
for i in range(300):
    secret = base64.b32encode(bytes(rng.randrange(256) for _ in
        range(rng.choice([10, 16, 20, 32])))).decode().rstrip("=")
    alg = rng.choice(list(ALGS))
    digits = rng.choice([6, 7, 8])
    # Issuers cannot hold ':' (the label splits at the first colon);
    # accounts may.
    issuer = label(False) if rng.random() < 0.8 else None
    account = label(True)
    if issuer is None and ":" in account:
        # pyotp names an empty account "Secret".
        account = account.replace(":", "") or "a"
    if rng.random() < 0.5:
        period = rng.choice([30, 30, 60, 15])
        uri = pyotp.TOTP(secret, digits=digits, digest=ALGS[alg],
                         interval=period).provisioning_uri(
                             name=account, issuer_name=issuer)
        want = {"type": "totp", "period": period}
    else:
        counter = rng.randrange(0, 2**40)
        uri = pyotp.HOTP(secret, digits=digits,
                         digest=ALGS[alg]).provisioning_uri(
                             name=account, initial_count=counter,
                             issuer_name=issuer)
        want = {"type": "hotp", "counter": counter}
    # With an issuer prefix, spaces after the colon are dropped.
    want.update(issuer=issuer or "",
                account=account.lstrip(" ") if issuer else account,
                secret=secret, algorithm=alg, digits=digits)
    cases.append((uri, want))

# One process for all: URIs one per line on stdin, JSON out.
p = subprocess.run([tool, "-q", "--parse", "--json"], check=True,
                   input="".join(u + "\n" for u, _ in cases),
                   capture_output=True, text=True)
got = p.stdout.splitlines()
assert len(got) == len(cases), (len(got), len(cases), p.stderr)
bad = 0
for (uri, want), line in zip(cases, got):
    g = json.loads(line)
    if g != want:
        bad += 1
        print("MISMATCH", uri, "\n got ", g, "\n want", want)
print(len(cases), "cases,", bad, "mismatches")
sys.exit(1 if bad else 0)
EOF
	echo "$output"
	assert_output --partial "300 cases, 0 mismatches"
}

@test "otp-uri build -> pyotp.parse_uri: same codes as otp-gen" {
	[ -x "$OTP_BIN/otp-gen" ] || skip "otp-gen is not built yet ($OTP_BIN/otp-gen)"
	run "$PY" - "$OTP_BIN/otp-uri" "$OTP_BIN/otp-gen" <<'EOF'
import hashlib, os, random, subprocess, sys

import pyotp

rng = random.Random(int(os.environ["SEED"]) + 1)
tool, gen = sys.argv[1], sys.argv[2]
# pyotp.parse_uri percent-decodes the whole URI before splitting it, so
# '&', '%', '+', '#' and '?' in names break it (its bug, not ours); the
# names here avoid them.  Spaces, '@', '/', '=', colons in the account and
# UTF-8 remain.
PIECES = ["a", "Z", "0", " ", "@", "/", "=", ".", "-", "_", "~", "ü", "€",
          "東京", "🔑"]

def label(colon):
    return "".join(rng.choice(PIECES + ([":"] if colon else []))
                   for _ in range(rng.randint(1, 12)))

bad = 0
n = 200
for i in range(n):
    key = bytes(rng.randrange(256) for _ in range(rng.choice([16, 20, 32, 64])))
    alg = rng.choice(["SHA1", "SHA256", "SHA512"])
    digits = rng.choice([6, 7, 8])
    issuer = label(False).strip() or "I"
    account = label(True).lstrip(" ") or "a"
    args = [tool, "-q", "-x", "-a", alg, "-d", str(digits), "-i", issuer,
            "-A", account]
    hotp = rng.random() < 0.5
    if hotp:
        counter = rng.randrange(0, 2**32)
        args += ["--hotp", "-c", str(counter)]
    else:
        period = rng.choice([30, 60, 15])
        args += ["-p", str(period)]
    uri = subprocess.run(args + [key.hex()], check=True,
                         capture_output=True, text=True).stdout.strip()
    otp = pyotp.parse_uri(uri)
    if otp.name != account or otp.issuer != issuer:
        bad += 1
        print("NAMES", uri, repr(otp.name), repr(otp.issuer))
    if hotp:
        # pyotp's HOTP.at() counts from the URI's initial counter.
        want = [otp.at(k) for k in range(3)]
        cmd = [gen, "-w", "2", uri]
    else:
        t = rng.randrange(0, 2**33)
        want = [otp.at(t)]
        cmd = [gen, "-N", "@%d" % t, uri]
    got = subprocess.run(cmd, check=True, capture_output=True,
                         text=True).stdout.split()
    if got != want:
        bad += 1
        print("CODES", uri, got, want)
print(n, "cases,", bad, "mismatches")
sys.exit(1 if bad else 0)
EOF
	echo "$output"
	assert_output --partial "200 cases, 0 mismatches"
}

@test "pyotp-style URIs with '+' for space and raw '/' in the label" {
	# urlencode writes '+' for a space in issuer=; Aegis does too.
	run -0 otp-uri -q --parse --json \
	    "otpauth://totp/My%20Bank:a/b?secret=$RFC_B32&issuer=My+Bank"
	assert_output '{"type":"totp","issuer":"My Bank","account":"a/b","secret":"'"$RFC_B32"'","algorithm":"SHA1","digits":6,"period":30}'
}

@test "pyotp's image= passes through otp-uri as pyotp wrote it" {
	run "$PY" - "$OTP_BIN/otp-uri" <<'EOF'
import json, os, random, subprocess, sys

import pyotp

rng = random.Random(int(os.environ["SEED"]) + 2)
tool = sys.argv[1]
# pyotp.parse_uri decodes before it splits (see above): no '&', '%', '+',
# '#' or '?' in the image, or pyotp cannot read its own URI back.
PIECES = ["a", "Z", "0", " ", "/", ":", "=", "ü", "東京", "🔑"]
bad = 0
n = 100
for i in range(n):
    image = "https://example.com/" + "".join(
        rng.choice(PIECES) for _ in range(rng.randint(1, 16)))
    uri = pyotp.TOTP("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ").provisioning_uri(
        name="a", issuer_name="I", image=image)
    spelled = uri[uri.index("&image=") + 1:]
    got = json.loads(subprocess.run([tool, "-q", "--parse", "--json", uri],
        check=True, capture_output=True, text=True).stdout)
    out = subprocess.run([tool, "-q", "-A", "b", uri], check=True,
        capture_output=True, text=True).stdout.strip()
    if got.get("extra") != [{"name": "image", "value": image}]:
        bad += 1
        print("PARSE", uri, got.get("extra"))
    # Rewritten with the image spelled as pyotp spelled it, and pyotp
    # still reads the result.
    if not out.endswith("&" + spelled):
        bad += 1
        print("REWRITE", uri, out)
    if pyotp.parse_uri(out).name != "b":
        bad += 1
        print("PYOTP", out)
print(n, "cases,", bad, "mismatches")
sys.exit(1 if bad else 0)
EOF
	echo "$output"
	assert_output --partial "100 cases, 0 mismatches"
}

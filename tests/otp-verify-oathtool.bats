#!/usr/bin/env bats
# otp-verify against oathtool over random cases: both must accept or both
# refuse, and agree on where the code matched.  OTP_XCHECK_SEED replays a
# run (the seed is printed); OTP_XCHECK_CASES sets how many cases (3000).
#
# oathtool validates with exit 0 and the position, 2 for no match;
# otp-verify exits 0 or 1.  oathtool prints |offset| for TOTP (it tries
# 0, +1, -1, +2, ... and reports the first); otp-verify prints the signed
# nearest offset, so their absolute values must agree.  HOTP positions
# must agree exactly: both report the lowest matching counter.

bats_require_minimum_version 1.5.0
load common

@test "otp-verify and oathtool agree on random HOTP and TOTP cases" {
	seed=${OTP_XCHECK_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
	echo "# seed $seed (OTP_XCHECK_SEED=$seed to replay)" >&3
	# Fewer cases under the sanitizers, which make every run slower.
	local cases=3000
	[ -z "${OTP_SANITIZE:-}" ] || cases=400
	run "$PY" - "$seed" "${OTP_XCHECK_CASES:-$cases}" <<'EOF'
import base64, concurrent.futures, hashlib, hmac, random, struct, subprocess, sys

seed, ncases = int(sys.argv[1]), int(sys.argv[2])
rnd = random.Random(seed)
ALGS = {"SHA1": hashlib.sha1, "SHA256": hashlib.sha256,
        "SHA512": hashlib.sha512}

def code(key, alg, counter, digits):
    # RFC 4226 §5.3, a third implementation to make codes that match.
    mac = hmac.new(key, struct.pack(">Q", counter), ALGS[alg]).digest()
    off = mac[-1] & 15
    v = struct.unpack(">I", mac[off:off + 4])[0] & 0x7fffffff
    return str(v % 10 ** digits).zfill(digits)

def run(argv):
    p = subprocess.run(argv, capture_output=True, text=True)
    return p.returncode, p.stdout.strip(), p.stderr.strip()

def make_case():
    totp = rnd.random() < 0.6
    alg = rnd.choice(list(ALGS)) if totp else "SHA1"  # oathtool: HOTP is SHA1
    key = bytes(rnd.randrange(256) for _ in range(rnd.choice(
        [1, 10, 16, 20, 32, 64, rnd.randrange(1, 100)])))
    digits = rnd.choice([6, 7, 8])
    window = rnd.choice([0, 1, 2, 3, 5, 10, rnd.randrange(0, 300),
                         rnd.randrange(0, 5000)])
    b32 = rnd.random() < 0.3
    keytext = base64.b32encode(key).decode().rstrip("=") if b32 \
        else key.hex()
    common = (["-b"] if b32 else []) + ["-w", str(window)]
    if rnd.random() < 0.5:
        common += ["-d", str(digits)]
    if totp:
        step = rnd.choice([30, 30, 60, rnd.randrange(1, 600)])
        start = rnd.choice([0, 0, rnd.randrange(0, 10 ** 9)])
        now = start + rnd.randrange(0, 4 * 10 ** 9)
        centre = (now - start) // step
        common += ["-s", str(step), "-S", "@%d" % start, "-N", "@%d" % now]
        mode = ["--totp=" + alg]
        lo, hi = -window - 3, window + 3
    else:
        centre = rnd.choice([0, rnd.randrange(0, 1000),
                             rnd.randrange(0, 2 ** 62)])
        common += ["-c", str(centre)]
        mode = ["--hotp"]
        lo, hi = -3, window + 3
    # Mostly a code from in or near the window, else a random one.
    if rnd.random() < 0.7:
        otp = code(key, alg, max(centre + rnd.randint(lo, hi), 0), digits)
    else:
        otp = str(rnd.randrange(10 ** digits)).zfill(digits)
    return totp, mode + common + [keytext, otp]

def check(case):
    totp, args = case
    ours = run(["otp-verify", "-q"] + args)
    theirs = run(["oathtool"] + args)
    if theirs[0] == 0:
        kind = "match"
        if ours[0] != 0:
            ok = False
        elif totp:
            ok = abs(int(ours[1])) == int(theirs[1])
        else:
            ok = ours[1] == theirs[1]
    elif theirs[0] == 2 and "not found" in theirs[2]:
        kind = "nomatch"
        ok = ours[0] == 1 and ours[1] == ""
    else:
        kind, ok = "error", False
    return kind, ok, "DIFFER: %s\n  otp-verify: %r\n  oathtool:   %r" % (
        " ".join(args), ours, theirs)

# The cases are drawn in order from the seed, then run two processes at a
# time per core.
cases = [make_case() for _ in range(ncases)]
fails = 0
stats = {"match": 0, "nomatch": 0, "error": 0}
with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
    for kind, ok, text in pool.map(check, cases):
        stats[kind] += 1
        if not ok:
            fails += 1
            if fails <= 10:
                print(text)
print("%d cases, %d accepted, %d refused, %d differ"
      % (ncases, stats["match"], stats["nomatch"], fails))
# A run that never accepts or never refuses proves nothing.
sys.exit(1 if fails or min(stats["match"], stats["nomatch"]) < ncases // 10
         else 0)
EOF
	echo "# $output" | tail -n 1 >&3
	assert_success
}

@test "oathtool agrees on the RFC 4226 and RFC 6238 vectors we verify" {
	# The fixed points of the random run, so a failure there is easy to
	# read: oathtool generates, otp-verify checks at offset 0.
	for c in 0 1 5 9; do
		code=$(oathtool -c "$c" "$RFC_HEX")
		run otp-verify -c "$c" "$RFC_HEX" "$code"
		assert_output 0
	done
	for t in 59 1111111109 1234567890 2000000000; do
		code=$(oathtool --totp -d 8 -N "@$t" "$RFC_HEX")
		run otp-verify --totp -N "@$t" "$RFC_HEX" "$code"
		assert_output 0
	done
}

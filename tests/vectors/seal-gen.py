#!/usr/bin/python3
"""Record tests/vectors/seal.txt: the store key's derived keys and a
scratch code's keyed hash (HMAC-SHA256, Python's hmac), and ChaCha20-
Poly1305 seals (python3-cryptography) of lib/seal.c's layout: a version
byte 1, the nonce, the ciphertext, the tag.  Run: seal-gen.py > seal.txt"""
import hashlib
import hmac
import struct

from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

print("# seal.txt - written by seal-gen.py; do not edit.")
print("# derive | master | label | HMAC-SHA256(master, \"otp-utils store v1 \" label)")
master = bytes(range(32))
keys = {}
for label in ("aead", "hash", "check"):
    d = hmac.new(master, ("otp-utils store v1 " + label).encode(),
                 hashlib.sha256).digest()
    keys[label] = d
    print(f"derive | {master.hex()} | {label} | {d.hex()}")


def part(b):
    return struct.pack(">Q", len(b)) + b


print("# hash | master | a | b | keyed hash of (a, b), each length-prefixed")
for a, b in ((b"alice", b"12345678"), (b"", b""), (b"x'; --", b"99999999")):
    h = hmac.new(keys["hash"], part(a) + part(b), hashlib.sha256).digest()
    print(f"hash | {master.hex()} | {a.hex()} | {b.hex()} | {h.hex()}")

print("# seal | master | nonce | ad | plaintext | sealed (01 nonce ct tag)")
for nonce, ad, pt in ((bytes(12), b"", b""),
                      (bytes(range(12)), b"otp-utils pg 1\0totp\0alice",
                       b"GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ\n\" TOTP_AUTH\n"),
                      (b"\xff" * 12, b"ad", bytes(range(200)))):
    ct = ChaCha20Poly1305(keys["aead"]).encrypt(nonce, pt, ad)
    print(f"seal | {master.hex()} | {nonce.hex()} | {ad.hex()} | "
          f"{pt.hex()} | 01{nonce.hex()}{ct.hex()}")

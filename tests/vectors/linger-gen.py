#!/usr/bin/python3
"""Record tests/vectors/linger.txt: linger records' MACs (lib/linger.c),
HMAC-SHA256 from Python's hmac keyed with the salt then the token's key,
over "otp-utils linger 1", the user, a 0 byte, the client, a 0 byte, the
answer, a 0 byte and the decimal length handed on.
Run: linger-gen.py > linger.txt"""
import hashlib
import hmac

print("# linger.txt - written by linger-gen.py; do not edit.")
print("# salt | key (hex, - none) | user | client | answer | rest | MAC")
CASES = [
    (bytes(range(16)), b"12345678901234567890", "alice", "127.0.0.1",
     "050548", 0),
    (bytes(range(16)), b"12345678901234567890", "alice", "127.0.0.1",
     "hunter2050548", 7),
    (bytes(range(16, 32)), b"12345678901234567890", "alice", "127.0.0.2",
     "050548", 0),
    (bytes(range(16)), b"", "bob", "::1", "1234 ab12cd34ef", 0),
    (bytes([255] * 16), bytes(range(64)), "carol", "host.example",
     "pin99123456", 5),
]
for salt, key, user, client, answer, rest in CASES:
    msg = (b"otp-utils linger 1" + user.encode() + b"\0" + client.encode() +
           b"\0" + answer.encode() + b"\0" + str(rest).encode())
    mac = hmac.new(salt + key, msg, hashlib.sha256).hexdigest()
    print(f"{salt.hex()} | {key.hex() or '-'} | {user} | {client} | "
          f"{answer} | {rest} | {mac}")

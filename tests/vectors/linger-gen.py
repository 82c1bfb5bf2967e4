#!/usr/bin/python3
"""Record tests/vectors/linger.txt: linger records' MACs (lib/linger.c),
HMAC-SHA256 from Python's hmac keyed with the salt then the token's key,
over "otp-utils linger 1", the user, a 0 byte, the client, a 0 byte, the
answer, a 0 byte and the decimal length handed on, then, where a text is
bound (a users file line's PASSWORD field), a 0 byte and that text; and
the lines that bind a file of records to an image (an OTPW list's),
"BIND " and the hex of SHA-256 over "otp-utils linger bind 1", a 0 byte
and the image.
Run: linger-gen.py > linger.txt"""
import hashlib
import hmac

print("# linger.txt - written by linger-gen.py; do not edit.")
print("# salt | key (hex, - none) | user | client | answer | rest |"
      " bound text (hex, - none) | MAC")
print("# bind | image (hex) | its BIND line without the newline")
KEY = b"12345678901234567890"
CASES = [
    (bytes(range(16)), KEY, "alice", "127.0.0.1", "050548", 0, None),
    (bytes(range(16)), KEY, "alice", "127.0.0.1", "hunter2050548", 7, None),
    (bytes(range(16, 32)), KEY, "alice", "127.0.0.2", "050548", 0, None),
    (bytes(range(16)), b"", "bob", "::1", "1234 ab12cd34ef", 0, None),
    (bytes([255] * 16), bytes(range(64)), "carol", "host.example",
     "pin99123456", 5, None),
    # A users file line's: its key, its PASSWORD field.
    (bytes(range(16)), KEY, "alice", "127.0.0.1", "1234050548", 4, "1234"),
    (bytes(range(16)), KEY, "alice", "127.0.0.1", "1234050548", 4, "5678"),
    (bytes(range(16)), KEY, "alice", "127.0.0.1", "050548", 0, "-"),
    (bytes(range(16)), KEY, "alice", "127.0.0.1", "050548", 0, "+"),
]
for salt, key, user, client, answer, rest, bind in CASES:
    msg = (b"otp-utils linger 1" + user.encode() + b"\0" + client.encode() +
           b"\0" + answer.encode() + b"\0" + str(rest).encode())
    if bind is not None:
        msg += b"\0" + bind.encode()
    mac = hmac.new(salt + key, msg, hashlib.sha256).hexdigest()
    print(f"{salt.hex()} | {key.hex() or '-'} | {user} | {client} | "
          f"{answer} | {rest} | "
          f"{bind.encode().hex() if bind is not None else '-'} | {mac}")
IMAGES = [
    b"",
    b"OTPW1\n280 2 12 8\n",
    b"OTPW1\n280 2 12 8\n000abcdefghijklm\n---------------\n",
]
for img in IMAGES:
    d = hashlib.sha256(b"otp-utils linger bind 1\0" + img).hexdigest()
    print(f"bind | {img.hex() or '-'} | BIND {d}")

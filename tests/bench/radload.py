#!/usr/bin/env python3
"""radload.py - RADIUS Access-Requests with a number in flight, for
tests/bench/bench-pg.sh and bench-radius.sh:

    radload.py HOST PORT SECRET PARALLEL < REQUESTS

REQUESTS has a line "USER PASSWORD" for each Access-Request.  They go out
on one UDP socket, PARALLEL at a time: each answer lets the next out.
Each request carries Message-Authenticator (as radclient's do) and the
password hidden as RFC 2865 says.  No retries; a request with no answer
in 20 s is lost.

Prints "accepted A rejected R lost L ns T", T the nanoseconds from the
first request sent to the last answer: unlike radclient's run, no start
(radclient reads FreeRADIUS's dictionaries first, ~30 ms) falls inside
it.  Exits 0, or 2 on bad use.
"""
import hashlib
import hmac
import os
import select
import socket
import struct
import sys
import time

TIMEOUT = 20.0


def hide(password, secret, authenticator):
    """User-Password as RFC 2865 5.2 hides it."""
    p = password.ljust(max(16, -(-len(password) // 16) * 16), b"\0")
    out, last = b"", authenticator
    for i in range(0, len(p), 16):
        b = hashlib.md5(secret + last).digest()
        last = bytes(x ^ y for x, y in zip(p[i:i + 16], b))
        out += last
    return out


def request(ident, user, password, secret):
    ra = os.urandom(16)
    attrs = struct.pack("BB", 80, 18) + b"\0" * 16
    attrs += struct.pack("BB", 1, 2 + len(user)) + user
    hidden = hide(password, secret, ra)
    attrs += struct.pack("BB", 2, 2 + len(hidden)) + hidden
    pkt = struct.pack("!BBH", 1, ident, 20 + len(attrs)) + ra + attrs
    mac = hmac.new(secret, pkt, hashlib.md5).digest()
    return pkt[:22] + mac + pkt[38:]


def main(argv):
    if len(argv) != 5 or not argv[4].isdigit() or \
            not 1 <= int(argv[4]) <= 255:
        sys.stderr.write("usage: radload.py HOST PORT SECRET PARALLEL "
                         "(1-255) < REQUESTS\n")
        return 2
    host, port, secret = argv[1], int(argv[2]), argv[3].encode()
    parallel = int(argv[4])
    reqs = [line.split() for line in sys.stdin.read().splitlines() if line]
    if any(len(r) != 2 for r in reqs):
        sys.stderr.write("radload.py: a request line is USER PASSWORD\n")
        return 2
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.connect((host, port))
    free = list(range(parallel))
    sent = {}                   # id -> when sent
    counts = {2: 0, 3: 0}
    lost, nxt = 0, 0
    t0 = time.monotonic_ns()
    t1 = t0
    while nxt < len(reqs) or sent:
        while free and nxt < len(reqs):
            ident = free.pop()
            user, password = reqs[nxt]
            s.send(request(ident, user.encode(), password.encode(), secret))
            sent[ident] = time.monotonic()
            nxt += 1
        oldest = min(sent.values())
        wait = max(0.0, oldest + TIMEOUT - time.monotonic())
        if not select.select([s], [], [], wait)[0]:
            for ident, when in list(sent.items()):
                if when + TIMEOUT <= time.monotonic():
                    del sent[ident]
                    free.append(ident)
                    lost += 1
            continue
        try:
            pkt = s.recv(4096)
        except ConnectionRefusedError:
            continue
        if len(pkt) < 20 or pkt[1] not in sent:
            continue
        del sent[pkt[1]]
        free.append(pkt[1])
        if pkt[0] in counts:
            counts[pkt[0]] += 1
        t1 = time.monotonic_ns()
    print("accepted %d rejected %d lost %d ns %d" %
          (counts[2], counts[3], lost, t1 - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/python3
"""short-server.py - a PostgreSQL server that answers every query with one
row of one column, whatever it asked for: what a hostile or broken server
can send.  Listens on 127.0.0.1, prints its port, serves until killed.
Speaks only as much of the protocol as libpq needs: no TLS (it answers
the SSL request with N), no password, the extended protocol and simple
queries."""
import socket
import struct
import sys
import threading


def recv_exact(c, n):
    b = b""
    while len(b) < n:
        d = c.recv(n - len(b))
        if not d:
            raise EOFError
        b += d
    return b


def msg(t, body=b""):
    return t + struct.pack("!i", len(body) + 4) + body


def one_row():
    # RowDescription: 1 field "x" of type text (25), then the row.
    desc = struct.pack("!h", 1) + b"x\0" + struct.pack("!ihihih", 0, 0, 25, -1, -1, 0)
    return msg(b"T", desc), msg(b"D", struct.pack("!hi", 1, 1) + b"x")


def serve(c):
    try:
        while True:
            n = struct.unpack("!i", recv_exact(c, 4))[0]
            body = recv_exact(c, n - 4)
            if struct.unpack("!i", body[:4])[0] == 80877103:  # SSLRequest
                c.sendall(b"N")
                continue
            break
        out = msg(b"R", struct.pack("!i", 0))
        for k, v in ((b"server_version", b"15.0"), (b"client_encoding", b"UTF8"),
                     (b"standard_conforming_strings", b"on"),
                     (b"integer_datetimes", b"on")):
            out += msg(b"S", k + b"\0" + v + b"\0")
        out += msg(b"K", struct.pack("!ii", 1, 2)) + msg(b"Z", b"I")
        c.sendall(out)
        desc, row = one_row()
        pending = b""
        while True:
            t = recv_exact(c, 1)
            n = struct.unpack("!i", recv_exact(c, 4))[0]
            recv_exact(c, n - 4)
            if t == b"X":
                return
            if t == b"P":
                pending += msg(b"1")
            elif t == b"B":
                pending += msg(b"2")
            elif t == b"D":
                pending += desc
            elif t == b"E":
                pending += row + msg(b"C", b"SELECT 1\0")
            elif t == b"S":
                c.sendall(pending + msg(b"Z", b"I"))
                pending = b""
            elif t == b"Q":
                c.sendall(desc + row + msg(b"C", b"SELECT 1\0") + msg(b"Z", b"I"))
    except (EOFError, OSError):
        pass
    finally:
        c.close()


def main():
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(8)
    print(s.getsockname()[1], flush=True)
    sys.stdout.close()
    while True:
        c, _ = s.accept()
        threading.Thread(target=serve, args=(c,), daemon=True).start()


main()

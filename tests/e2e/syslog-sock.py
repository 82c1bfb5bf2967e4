#!/usr/bin/python3
"""syslog-sock.py SOCKET FILE: a syslog socket for a daemon run in a mount
namespace of its own where /dev/log leads to SOCKET (tests/e2e/radius.bash):
every datagram is appended to FILE as one line.  Used where an LD_PRELOAD
shim cannot reach: FreeRADIUS loads rlm_pam, and with it libpam, with
RTLD_DEEPBIND, so their syslog(3) is the C library's own."""
import os
import socket
import sys

sock_path, out_path = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sock_path)
os.chmod(sock_path, 0o600)
with open(out_path, "ab", buffering=0) as out:
    while True:
        msg = s.recv(65536)
        out.write(msg.rstrip(b"\0\n") + b"\n")

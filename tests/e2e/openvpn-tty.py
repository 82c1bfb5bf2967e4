#!/usr/bin/python3
"""openvpn-tty.py - an OpenVPN client at a terminal, for tests/e2e/openvpn.bats.

    openvpn-tty.py ANSWERS LOG OPENVPN-ARG...

Runs /usr/sbin/openvpn with the OPENVPN-ARGs on a pseudo terminal of its
own, as a user at a console would: the client asks there for what its
configuration lacks (auth-user-pass without a file, static-challenge),
and this answers as a person types, once each:

    Enter Auth Username:    the first line of ANSWERS
    Enter Auth Password:    the second line
    CHALLENGE: ...          the third line (the static challenge)

ANSWERS is read once, at the start (it may be removed then).  Everything
the client writes to the terminal is appended to LOG; an answer is never
written there (the client turns echo off for the password and an echo-off
challenge, and an echoed one would show in LOG, as on a screen).  On
SIGTERM the client is given SIGTERM and waited for.  Exits with the
client's status (1 when it died of a signal), 2 on trouble here.
"""

import os
import pty
import signal
import sys
import termios
import time

# A prompt, the line of ANSWERS it takes, and whether the client turns
# echo off for it.
PROMPTS = (
    (b"Enter Auth Username:", 0, False),
    (b"Enter Auth Password:", 1, True),
    (b"CHALLENGE:", 2, True),
)


def wait_echo_off(fd):
    """Wait (2 s at most) until the terminal no longer echoes.

    The client writes its prompt before it turns echo off, flushing what
    was typed ahead: an answer sent at once would show on the screen and
    then be thrown away.
    """
    end = time.monotonic() + 2
    while time.monotonic() < end:
        if not termios.tcgetattr(fd)[3] & termios.ECHO:
            return
        time.sleep(0.01)


def stop(pid):
    """SIGTERM to the client, SIGKILL 5 s later if it is still there (one
    blocked reading the terminal does not act on SIGTERM)."""
    signal.signal(signal.SIGALRM, lambda *_: kill(pid, signal.SIGKILL))
    signal.alarm(5)
    kill(pid, signal.SIGTERM)


def kill(pid, sig):
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


def main():
    if len(sys.argv) < 4:
        print("usage: openvpn-tty.py ANSWERS LOG OPENVPN-ARG...",
              file=sys.stderr)
        return 2
    with open(sys.argv[1], "rb") as f:
        answers = f.read().split(b"\n")
    log = open(sys.argv[2], "ab", buffering=0)
    pid, fd = pty.fork()
    if pid == 0:
        os.execv("/usr/sbin/openvpn", ["openvpn"] + sys.argv[3:])
    signal.signal(signal.SIGTERM, lambda *_: stop(pid))
    asked = set()
    seen = b""
    while True:
        try:
            data = os.read(fd, 4096)
        except InterruptedError:
            continue
        except OSError:
            break
        if not data:
            break
        log.write(data)
        seen = (seen + data)[-256:]
        for text, i, noecho in PROMPTS:
            at = seen.rfind(text)
            if at < 0 or i in asked:
                continue
            # The prompt is complete once the client waits: its line
            # ends in ": " (or ":") and nothing follows it.
            if b"\n" in seen[at:]:
                continue
            asked.add(i)
            if noecho:
                wait_echo_off(fd)
            answer = answers[i] if i < len(answers) else b""
            os.write(fd, answer + b"\n")
            seen = b""
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
    if os.WIFEXITED(status):
        return os.WEXITSTATUS(status)
    return 1


if __name__ == "__main__":
    sys.exit(main())

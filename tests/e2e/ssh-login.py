#!/usr/bin/python3
"""ssh-login.py - one scripted SSH login for tests/e2e/sshd.bats.

    ssh-login.py PORT USER [--key FILE] [--hold PATH] [--run CMD] ANSWER...

Connects to 127.0.0.1:PORT with paramiko, authenticates USER by
keyboard-interactive (after publickey with --key), answering the server's
prompts in order with the ANSWERs, then runs CMD (default `id -un`) in a
session.  It prints what happened, one line each:

    prompt echo|noecho TEXT     a question from the server
    info TEXT                   a message from the server (no question)
    methods LIST                what the server allows after publickey
    auth accepted|refused
    run TEXT                    CMD's output

and exits 0 when the login was accepted and CMD ran, 1 when it was
refused, 2 on any other trouble.  With --hold PATH, at the first prompt it
creates PATH.waiting and answers only once PATH exists (60 s at most): a
second login can run while this one waits at the prompt.
"""

import argparse
import os
import socket
import sys
import time

import paramiko


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("port", type=int)
    ap.add_argument("user")
    ap.add_argument("answers", nargs="*")
    ap.add_argument("--key")
    ap.add_argument("--hold")
    ap.add_argument("--run", default="id -un")
    a = ap.parse_intermixed_args()
    answers = list(a.answers)
    held = [False]

    def out(*words):
        print(*words, flush=True)

    def handler(title, instructions, prompts):
        if title:
            out("info", title)
        if instructions:
            out("info", instructions.rstrip("\n"))
        resp = []
        for text, echo in prompts:
            out("prompt", "echo" if echo else "noecho", text)
            if a.hold and not held[0]:
                held[0] = True
                open(a.hold + ".waiting", "w").close()
                end = time.monotonic() + 60
                while not os.path.exists(a.hold):
                    if time.monotonic() > end:
                        out("error", "hold file never appeared")
                        break
                    time.sleep(0.02)
            resp.append(answers.pop(0) if answers else "")
        return resp

    sock = socket.create_connection(("127.0.0.1", a.port), timeout=30)
    t = paramiko.Transport(sock)
    try:
        t.start_client(timeout=30)
        try:
            if a.key:
                key = paramiko.Ed25519Key.from_private_key_file(a.key)
                left = t.auth_publickey(a.user, key)
                out("methods", ",".join(left) if left else "none")
                if not left:
                    out("auth accepted")
                    return run(t, a.run, out)
            left = t.auth_interactive(a.user, handler)
        except paramiko.AuthenticationException as e:
            out("auth refused", "(%s)" % e)
            return 1
        if left:
            out("methods", ",".join(left))
            out("auth refused", "(partial)")
            return 1
        out("auth accepted")
        return run(t, a.run, out)
    finally:
        t.close()


def run(t, cmd, out):
    ch = t.open_session(timeout=30)
    ch.settimeout(30)
    ch.exec_command(cmd)
    data = b""
    while True:
        b = ch.recv(4096)
        if not b:
            break
        data += b
    rc = ch.recv_exit_status()
    for line in data.decode(errors="replace").splitlines():
        out("run", line)
    return 0 if rc == 0 else 2


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (OSError, paramiko.SSHException) as e:
        print("error", e, flush=True)
        sys.exit(2)

#!/usr/bin/python3
"""pty-answer.py PROMPT ANSWER CMD [ARG]... - run CMD on a new pseudo-
terminal (its controlling terminal, standard input and output), type
ANSWER and a newline once PROMPT has appeared, and print all the terminal
showed.  Exits with CMD's status; 3 if PROMPT never appears within 10 s.
"""
import os
import pty
import select
import sys
import time


def main():
    prompt, answer, cmd = sys.argv[1].encode(), sys.argv[2].encode(), sys.argv[3:]
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(cmd[0], cmd)
    shown, answered, deadline = b"", False, time.monotonic() + 10
    while True:
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            sys.stdout.write(shown.decode(errors="replace"))
            sys.exit(3)
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                data = os.read(fd, 4096)
            except OSError:  # EIO: the child closed the terminal
                data = b""
            if not data:
                break
            shown += data
        if not answered and prompt in shown:
            os.write(fd, answer + b"\n")
            answered = True
    _, status = os.waitpid(pid, 0)
    sys.stdout.write(shown.decode(errors="replace"))
    sys.exit(os.waitstatus_to_exitcode(status))


main()

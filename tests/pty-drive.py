#!/usr/bin/python3
"""pty-drive.py [--size ROWSxCOLS] STEP... -- CMD [ARG]... - run CMD on a new
pseudo-terminal (its controlling terminal, standard input, output and
error), follow the steps, and print all the terminal showed, then one
last line:

    [pty] status=N termios=same|changed stty=same|changed

status is CMD's exit status, or 128+SIG when a signal killed it; termios
compares the terminal's modes (tcgetattr) before CMD started and after it
ended, stty the output of `stty -a` on it.  Steps, in order:

    wait:TEXT      wait until TEXT appears after the mark (10 s at most)
    mark           later waits look only at what is shown from now on
    send:TEXT      type TEXT (Python escapes: \\r, \\x04, \\x1b)
    sleep:SECS     let time pass
    signal:NAME    send SIGNAME (INT, TERM, HUP, WINCH) to CMD
    resize:RxC     set the terminal's size (then signal:WINCH)
    count:TEXT     print "[pty] count TEXT N" (how often TEXT was shown)

Exits 3 when a wait times out, or CMD does not end 10 s after the steps
(it is killed), printing what was shown.
"""
import fcntl
import os
import select
import signal
import struct
import subprocess
import sys
import termios
import time


def set_size(fd, rows, cols):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def stty(fd):
    return subprocess.run(["stty", "-a"], stdin=fd, capture_output=True,
                          check=False).stdout


def main():
    args = sys.argv[1:]
    rows, cols = 24, 80
    if args and args[0] == "--size":
        rows, cols = (int(x) for x in args[1].split("x"))
        args = args[2:]
    split = args.index("--")
    steps, cmd = args[:split], args[split + 1:]
    master, slave = os.openpty()
    set_size(slave, rows, cols)
    before, stty_before = termios.tcgetattr(slave), stty(slave)
    pid = os.fork()
    if pid == 0:
        # As a login on a new terminal starts it: Python ignores
        # SIGPIPE, and a background job SIGINT and SIGQUIT, which exec
        # keeps ignored.
        for sig in signal.valid_signals():
            if sig not in (signal.SIGKILL, signal.SIGSTOP):
                try:
                    signal.signal(sig, signal.SIG_DFL)
                except (OSError, ValueError):
                    pass
        os.setsid()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
        for fd in (0, 1, 2):
            os.dup2(slave, fd)
        os.close(master)
        os.close(slave)
        os.execvp(cmd[0], cmd)
    shown, mark, status = b"", 0, None

    def pump(timeout):
        nonlocal shown, status
        ready, _, _ = select.select([master], [], [], timeout)
        if ready:
            try:
                shown += os.read(master, 65536)
            except OSError:
                pass
        if status is None:
            done, st = os.waitpid(pid, os.WNOHANG)
            if done:
                status = st

    def fail(why):
        if status is None:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        sys.stdout.write(shown.decode(errors="replace"))
        sys.stdout.write("\n[pty] " + why + "\n")
        sys.exit(3)

    for step in steps:
        verb, _, arg = step.partition(":")
        if verb == "wait":
            deadline = time.monotonic() + 10
            while arg.encode() not in shown[mark:]:
                if time.monotonic() > deadline:
                    fail("timed out waiting for " + repr(arg))
                pump(0.05)
        elif verb == "mark":
            pump(0)
            mark = len(shown)
        elif verb == "send":
            os.write(master, arg.encode().decode("unicode_escape").encode(
                "latin-1"))
        elif verb == "sleep":
            deadline = time.monotonic() + float(arg)
            while time.monotonic() < deadline:
                pump(0.05)
        elif verb == "signal":
            os.kill(pid, getattr(signal, "SIG" + arg))
        elif verb == "resize":
            r, c = (int(x) for x in arg.split("x"))
            set_size(slave, r, c)
        elif verb == "count":
            pump(0.05)
            print("[pty] count %s %d" % (arg, shown.count(arg.encode())))
        else:
            fail("unknown step " + repr(step))
    deadline = time.monotonic() + 10
    while status is None:
        if time.monotonic() > deadline:
            fail("the command did not end")
        pump(0.05)
    while True:  # what is left to read
        ready, _, _ = select.select([master], [], [], 0.1)
        if not ready:
            break
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        shown += data
    after, stty_after = termios.tcgetattr(slave), stty(slave)
    code = (128 + os.WTERMSIG(status) if os.WIFSIGNALED(status)
            else os.WEXITSTATUS(status))
    sys.stdout.write(shown.decode(errors="replace"))
    sys.stdout.write("\n[pty] status=%d termios=%s stty=%s\n" % (
        code, "same" if before == after else "changed",
        "same" if stty_before == stty_after else "changed"))
    sys.exit(0)


main()

#!/bin/sh
# record-authtok.sh FILE - run by pam_exec.so expose_authtok after the
# module under test: store the PAM_AUTHTOK that the stack hands on
# (pam_exec writes it to stdin, NUL-terminated) in FILE, to check what
# forward_pass forwarded.
tr -d '\000' >"$1"
exit 0

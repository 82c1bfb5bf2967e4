/*
 * sys.h - the system floor of otp-utils: everything that touches the
 * operating system on behalf of the pure core (lib/otp.h) and the tools.
 *
 * Conventions as in otp.h: 0 (or a count) on success, a negative OTP_E*
 * code on failure, errno kept for OTP_EIO.  Functions here may make
 * system calls but never print, exit or change process-wide state (the
 * umask, ids, signals): pam_otp.so runs them in threaded hosts.
 */
#ifndef OTP_SYS_H
#define OTP_SYS_H

#include <stddef.h>
#include <stdint.h>

#include "otp.h"

/* ---- randomness (lib/sys/random.c) ----------------------------------- */

/* n bytes from the kernel's generator (getrandom(2)); OTP_EIO with errno
 * when it fails, never a weaker source. */
int sys_random_bytes(void *buf, size_t n);
/* A new random key of n bytes (OTP_KEYGEN_MIN..OTP_KEYGEN_MAX). */
int sys_keygen(struct otp_key *key, size_t n);
/* n distinct scratch codes from the kernel's generator. */
int sys_scratch_codes(uint32_t *codes, size_t n);

/* ---- the local time zone (lib/sys/tz.c) ------------------------------ */

/* The zone TZ names (else /etc/localtime) as localtime_r() reads it, read
 * afresh by each call, for otp_time_parse(). */
const struct otp_zone *sys_zone_local(void);

#endif /* OTP_SYS_H */

/*
 * otp_radius.h - user names and RADIUS attribute values (lib/radius.c).
 * Conventions as in otp.h.
 */
#ifndef OTP_RADIUS_H
#define OTP_RADIUS_H

#include <stddef.h>
#include <stdint.h>

#include "otp.h"

#define OTP_USERNAME_MAX	64	/* longest user name, without NUL */

/* 0 if name, 1..OTP_USERNAME_MAX of [A-Za-z0-9._@-] (a final '$', no
 * leading '.' or '-'), may name a file; OTP_EUSERNAME at *erroff (or NULL). */
int otp_user_check(const char *name, size_t *erroff);
/* An attribute's value as an exec'd program receives it ("alice", quotes
 * and \\ \" \n \r \t \ooo escapes, or bare) into out; its length or OTP_E*. */
int otp_radius_value(const char *env, char *out, size_t outsz);
/* The reply line "ATTR := \"text\"\n", '"' and '\\' escaped, a control
 * as '?', into out; its length or OTP_ENOSPACE. */
int otp_radius_pair(const char *attr, const char *text, char *out,
    size_t outsz);

#endif /* OTP_RADIUS_H */

/*
 * storeopt.c - the options that set a store's rules, spelled as
 * pam_otp.so takes them ("window=3", "nolock", "store_key=/PATH"), read
 * into a struct sys_store_cfg: one reader for the PAM module and the
 * library (otp_store_open), so that both take the same words with the
 * same ranges.
 */
#include <stdint.h>
#include <string.h>

#include "otp.h"
#include "otp_state.h"
#include "store.h"

#define WINDOW_MAX	1000	/* pam_oath's window= ceiling */

/* The number after skip bytes of a, in [lo, hi]; else *why gets what. */
static int
number(const char *a, size_t skip, uint64_t lo, uint64_t hi,
    const char *what, const char **why, uint64_t *out)
{
	if (otp_parse_u64(a + skip, lo, hi, out) == 0)
		return 0;
	*why = what;
	return OTP_EINVAL;
}

int
sys_store_option(struct sys_store_cfg *c, const char *a, const char **why)
{
	uint64_t n = 0;
	unsigned mode;
	int kind = SYS_OPT_GA, rc = 0;

	*why = NULL;
	if (strncmp(a, "allowed_perm=", 13) == 0) {
		if (otp_parse_mode(a + 13, &mode) != 0) {
			*why = "allowed_perm must be an octal mode from 1 to "
			    "7777";
			return OTP_EINVAL;
		}
		c->ga.allowed_perm = mode;
	} else if (strncmp(a, "grace_period=", 13) == 0) {
		rc = number(a, 13, 0, INT32_MAX, "grace_period must be a "
		    "number of seconds", why, &n);
		c->ga.grace_period = n;
	} else if (strncmp(a, "linger=", 7) == 0) {
		kind = SYS_OPT_ALL;
		rc = number(a, 7, 1, OTP_LINGER_MAX, "linger must be 1 to "
		    "14400 seconds", why, &n);
		c->ga.linger = (unsigned)n;
	} else if (strcmp(a, "no_strict_owner") == 0) {
		c->ga.flags |= OTP_STATE_NOSTRICTOWNER;
	} else if (strcmp(a, "noskewadj") == 0) {
		c->ga.flags |= OTP_STATE_NOSKEWADJ;
	} else if (strcmp(a, "no_increment_hotp") == 0) {
		c->ga.flags |= OTP_STATE_NOINCRHOTP;
	} else if (strcmp(a, "allow_readonly") == 0) {
		c->ga.flags |= OTP_STATE_ALLOWRO;
	} else if (strncmp(a, "window=", 7) == 0) {
		kind = SYS_OPT_OATH;
		rc = number(a, 7, 0, WINDOW_MAX, "window must be 0 to 1000",
		    why, &n);
		c->window = (unsigned)n;
	} else if (strncmp(a, "digits=", 7) == 0) {
		kind = SYS_OPT_OATH;
		rc = number(a, 7, 6, 8, "digits must be 6, 7 or 8", why, &n);
		c->digits = (unsigned)n;
	} else if (strcmp(a, "allow_group_read") == 0) {
		kind = SYS_OPT_OATH;
		c->group_read = 1;
	} else if (strncmp(a, "pam_oath_shared=", 16) == 0) {
		kind = SYS_OPT_OATH;
		rc = number(a, 16, 0, 1, "pam_oath_shared must be 0 or 1", why,
		    &n);
		c->unshared = n == 0;
	} else if (strncmp(a, "deny=", 5) == 0) {
		kind = SYS_OPT_LIMIT;
		rc = number(a, 5, 0, 1000, "deny must be 0 to 1000", why, &n);
		c->deny = n == 0 ? -1 : (int)n;
	} else if (strncmp(a, "unlock_time=", 12) == 0) {
		kind = SYS_OPT_LIMIT;
		rc = number(a, 12, 1, INT32_MAX, "unlock_time must be a number "
		    "of seconds", why, &n);
		c->unlock_time = (unsigned)n;
	} else if (strcmp(a, "nolock") == 0) {
		kind = SYS_OPT_OTPW;
		c->nolock = 1;
	} else if (strncmp(a, "lock_age=", 9) == 0) {
		kind = SYS_OPT_OTPW;
		rc = number(a, 9, 1, INT32_MAX, "lock_age must be a number of "
		    "seconds", why, &n);
		c->lock_age = (unsigned)n;
	} else if (strncmp(a, "store_key=", 10) == 0 && a[10] == '/') {
		c->store_key = a + 10;
	} else if (strncmp(a, "store_module=", 13) == 0 && a[13] == '/') {
		c->module = a + 13;
	} else if (strncmp(a, "store_timeout=", 14) == 0) {
		rc = number(a, 14, 1, 600000, "store_timeout must be 1 to "
		    "600000 milliseconds", why, &n);
		c->deadline_ms = (unsigned)n;
	} else
		return SYS_OPT_NONE;
	return rc != 0 ? rc : kind;
}

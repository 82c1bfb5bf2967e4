/*
 * util.c - wiping, constant-time comparison, strict decimal and octal
 * parsing.
 */
#include <string.h>

#include <nettle/memops.h>

#include "otp.h"

void
otp_wipe(void *p, size_t n)
{
	/* explicit_bzero wants a pointer even for nothing: callers wipe
	 * buffers that may never have been allocated. */
	if (p != NULL)
		explicit_bzero(p, n);
}

int
otp_ct_equal(const void *a, const void *b, size_t n)
{
	return memeql_sec(a, b, n) ? 1 : 0;
}

int
otp_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	const char *p;

	if (*s == '\0')
		return OTP_EINVAL;
	for (p = s; *p != '\0'; p++) {
		unsigned d;

		if (*p < '0' || *p > '9')
			return OTP_EINVAL;
		d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return OTP_ERANGE;
		v = v * 10 + d;
	}
	if (v < min || v > max)
		return OTP_ERANGE;
	*out = v;
	return 0;
}

int
otp_parse_mode(const char *s, unsigned *mode)
{
	unsigned v = 0;
	const char *p;

	for (p = s; *p != '\0'; p++) {
		if (*p < '0' || *p > '7')
			return OTP_EINVAL;
		v = v * 8 + (unsigned)(*p - '0');
		if (v > 07777)
			return OTP_EINVAL;
	}
	if (v == 0)
		return OTP_EINVAL;
	*mode = v;
	return 0;
}

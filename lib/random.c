/*
 * random.c - uniform emergency scratch codes from any source of random
 * words (the kernel's is in lib/sys/random.c).
 */
#include <errno.h>
#include <string.h>

#include "otp.h"

/* Scratch codes are uniform over LO..HI: RANGE values. */
#define SCRATCH_RANGE	(OTP_SCRATCH_HI - OTP_SCRATCH_LO + 1)
/* The largest multiple of RANGE that fits in 2^32: words at or above it
 * would make the low codes more likely than the high ones. */
#define SCRATCH_LIMIT \
	((uint32_t)(0x100000000ULL - 0x100000000ULL % SCRATCH_RANGE))
/* Draws in a row that give no new code before the source is called
 * broken.  A working source fails one draw in about 66; a thousand in a
 * row never happens. */
#define SCRATCH_STUCK	1000

/* Map a uniform 32-bit word to a uniform scratch code, or to 0 when the
 * word lies past the last whole multiple of the range and must be drawn
 * again (rejection sampling: no modulo bias). */
uint32_t
otp_scratch_map(uint32_t word)
{
	if (word >= SCRATCH_LIMIT)
		return 0;
	return OTP_SCRATCH_LO + word % SCRATCH_RANGE;
}

int
otp_scratch_codes_from(uint32_t *codes, size_t n, otp_word_fn fn, void *arg)
{
	size_t have = 0, i;
	unsigned misses = 0;
	uint32_t word, code;
	int rc, dup;

	if (n > OTP_SCRATCH_SETMAX)
		return OTP_ERANGE;
	while (have < n) {
		if ((rc = fn(arg, &word)) != 0)
			goto fail;
		code = otp_scratch_map(word);
		dup = code == 0;
		for (i = 0; i < have && !dup; i++)
			dup = codes[i] == code;
		if (dup) {
			/* A repeated code would be one code, not two. */
			if (++misses >= SCRATCH_STUCK) {
				errno = EIO;
				rc = OTP_EIO;
				goto fail;
			}
			continue;
		}
		misses = 0;
		codes[have++] = code;
	}
	return 0;
fail:
	otp_wipe(codes, n * sizeof(*codes));
	return rc;
}

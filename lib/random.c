/*
 * random.c - keys and emergency scratch codes from the kernel's random
 * generator.
 */
#include <sys/random.h>

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
/* Words fetched from the kernel at once: 256 bytes, the most getrandom(2)
 * returns without the risk of an interrupted, short read. */
#define KERNEL_WORDS	64

int
otp_random_bytes(void *buf, size_t n)
{
	uint8_t *p = buf;
	size_t left = n;
	ssize_t r;

	while (left > 0) {
		/* Flags 0: the urandom pool, but blocking until the kernel
		 * has seeded it, never returning weak early-boot bytes. */
		r = getrandom(p, left, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = EIO;
			otp_wipe(buf, n);
			return OTP_EIO;
		}
		p += r;
		left -= (size_t)r;
	}
	return 0;
}

int
otp_keygen(struct otp_key *key, size_t n)
{
	int rc;

	key->len = 0;
	if (n < OTP_KEYGEN_MIN || n > OTP_KEYGEN_MAX)
		return OTP_ERANGE;
	if ((rc = otp_random_bytes(key->buf, n)) != 0)
		return rc;
	key->len = n;
	return 0;
}

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

struct kernel_words {
	uint32_t	word[KERNEL_WORDS];
	size_t		left;
};

static int
kernel_word(void *arg, uint32_t *word)
{
	struct kernel_words *k = arg;
	int rc;

	if (k->left == 0) {
		if ((rc = otp_random_bytes(k->word, sizeof(k->word))) != 0)
			return rc;
		k->left = KERNEL_WORDS;
	}
	*word = k->word[--k->left];
	k->word[k->left] = 0;
	return 0;
}

int
otp_scratch_codes(uint32_t *codes, size_t n)
{
	struct kernel_words k;
	int rc;

	k.left = 0;
	rc = otp_scratch_codes_from(codes, n, kernel_word, &k);
	otp_wipe(&k, sizeof(k));
	return rc;
}

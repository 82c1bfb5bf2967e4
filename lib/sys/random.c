/*
 * random.c - keys and scratch codes from the kernel's random generator.
 */
#include <sys/random.h>

#include <errno.h>
#include <string.h>

#include "otp.h"
#include "sys.h"

/* Words fetched from the kernel at once: 256 bytes, the most getrandom(2)
 * returns without the risk of an interrupted, short read. */
#define KERNEL_WORDS	64

int
sys_random_bytes(void *buf, size_t n)
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
sys_keygen(struct otp_key *key, size_t n)
{
	int rc;

	key->len = 0;
	if (n < OTP_KEYGEN_MIN || n > OTP_KEYGEN_MAX)
		return OTP_ERANGE;
	if ((rc = sys_random_bytes(key->buf, n)) != 0)
		return rc;
	key->len = n;
	return 0;
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
		if ((rc = sys_random_bytes(k->word, sizeof(k->word))) != 0)
			return rc;
		k->left = KERNEL_WORDS;
	}
	*word = k->word[--k->left];
	k->word[k->left] = 0;
	return 0;
}

int
sys_scratch_codes(uint32_t *codes, size_t n)
{
	struct kernel_words k;
	int rc;

	k.left = 0;
	rc = otp_scratch_codes_from(codes, n, kernel_word, &k);
	otp_wipe(&k, sizeof(k));
	return rc;
}

int
sys_random_word(void *arg, uint32_t *word)
{
	(void)arg;
	return sys_random_bytes(word, sizeof(*word));
}

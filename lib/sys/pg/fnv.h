/*
 * fnv.h - FNV-1a, 64 bits, for the PostgreSQL store's own keys (a row
 * cache slot, a prepared statement's name): not for anything secret.
 */
#ifndef OTP_FNV_H
#define OTP_FNV_H

#include <stdint.h>

#define FNV64_BASIS	0xcbf29ce484222325ULL

/* h carried over the bytes of s, NUL not included. */
static inline uint64_t
fnv1a64(uint64_t h, const char *s)
{
	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

#endif /* OTP_FNV_H */

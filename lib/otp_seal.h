/*
 * otp_seal.h - secrets at rest (lib/seal.c): a stored token's secret
 * sealed with an AEAD under a store key, its user and kind bound as
 * associated data, and keyed hashes for what is only ever compared
 * (scratch codes).  Conventions as in otp.h.
 */
#ifndef OTP_SEAL_H
#define OTP_SEAL_H

#include <stddef.h>
#include <stdint.h>

/* A store key is 32 random bytes; the file that holds it, 64 hex digits
 * and a newline (otp-store(1)). */
#define OTP_SEAL_KEYLEN		32
#define OTP_SEAL_NONCELEN	12	/* ChaCha20-Poly1305, RFC 8439 */
#define OTP_SEAL_TAGLEN		16
/* A sealed value: a version byte, the nonce, the ciphertext, the tag. */
#define OTP_SEAL_OVERHEAD	(1 + OTP_SEAL_NONCELEN + OTP_SEAL_TAGLEN)
#define OTP_SEAL_HASHLEN	32	/* HMAC-SHA256 */

/* The keys one store key gives, each for one use (HMAC-SHA256 of the
 * store key over a label), wiped with otp_seal_keys_wipe(). */
struct otp_seal_keys {
	uint8_t	aead[OTP_SEAL_KEYLEN];
	uint8_t	hash[OTP_SEAL_KEYLEN];
	uint8_t	check[OTP_SEAL_HASHLEN];	/* tells a wrong key */
};

/* Derive k from the store key master. */
void otp_seal_keys_init(struct otp_seal_keys *k,
    const uint8_t master[OTP_SEAL_KEYLEN]);
void otp_seal_keys_wipe(struct otp_seal_keys *k);
/* Read a key file's text (64 hex digits, a final newline allowed) into
 * master; OTP_ESTOREKEY for anything else. */
int otp_seal_key_parse(const char *text, size_t n,
    uint8_t master[OTP_SEAL_KEYLEN]);
/* Seal in[0..n) with nonce and ad[0..adlen) into out (n +
 * OTP_SEAL_OVERHEAD bytes; outsz at least that). */
int otp_seal(const struct otp_seal_keys *k,
    const uint8_t nonce[OTP_SEAL_NONCELEN], const void *ad, size_t adlen,
    const void *in, size_t n, uint8_t *out, size_t outsz, size_t *outlen);
/* Open what otp_seal made with the same ad: OTP_ESEALED when the tag does
 * not verify (wrong key, another user's row, a changed byte); out is
 * wiped then. */
int otp_unseal(const struct otp_seal_keys *k, const void *ad, size_t adlen,
    const uint8_t *in, size_t n, uint8_t *out, size_t outsz, size_t *outlen);
/* The keyed hash of the pair (a, b), each length-prefixed, into out. */
void otp_seal_hash(const struct otp_seal_keys *k, const void *a,
    size_t alen, const void *b, size_t blen,
    uint8_t out[OTP_SEAL_HASHLEN]);

#endif /* OTP_SEAL_H */

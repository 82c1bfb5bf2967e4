/*
 * seal.c - secrets at rest: ChaCha20-Poly1305 (RFC 8439) from nettle
 * over a stored token's secret, HMAC-SHA256 for keys and keyed hashes.
 * The nonce is the caller's (random, from the system floor): nothing
 * here reads the system.
 */
#include <string.h>

#include <nettle/chacha-poly1305.h>
#include <nettle/hmac.h>

#include "otp.h"
#include "otp_seal.h"

#define SEAL_VERSION	1

_Static_assert(OTP_SEAL_KEYLEN == CHACHA_POLY1305_KEY_SIZE, "key size");
_Static_assert(OTP_SEAL_NONCELEN == CHACHA_POLY1305_NONCE_SIZE, "nonce");
_Static_assert(OTP_SEAL_TAGLEN == CHACHA_POLY1305_DIGEST_SIZE, "tag");
_Static_assert(OTP_SEAL_HASHLEN == SHA256_DIGEST_SIZE, "hash");

static void
derive(const uint8_t master[OTP_SEAL_KEYLEN], const char *label,
    uint8_t out[SHA256_DIGEST_SIZE])
{
	struct hmac_sha256_ctx h;

	hmac_sha256_set_key(&h, OTP_SEAL_KEYLEN, master);
	hmac_sha256_update(&h, strlen(label), (const uint8_t *)label);
	hmac_sha256_digest(&h, SHA256_DIGEST_SIZE, out);
	otp_wipe(&h, sizeof(h));
}

void
otp_seal_keys_init(struct otp_seal_keys *k,
    const uint8_t master[OTP_SEAL_KEYLEN])
{
	derive(master, "otp-utils store v1 aead", k->aead);
	derive(master, "otp-utils store v1 hash", k->hash);
	derive(master, "otp-utils store v1 check", k->check);
}

void
otp_seal_keys_wipe(struct otp_seal_keys *k)
{
	otp_wipe(k, sizeof(*k));
}

int
otp_seal_key_parse(const char *text, size_t n,
    uint8_t master[OTP_SEAL_KEYLEN])
{
	size_t i;
	int hi, lo;

	if (n > 0 && text[n - 1] == '\n')
		n--;
	if (n != 2 * OTP_SEAL_KEYLEN)
		return OTP_ESTOREKEY;
	for (i = 0; i < OTP_SEAL_KEYLEN; i++) {
		hi = otp_hexval((unsigned char)text[2 * i]);
		lo = otp_hexval((unsigned char)text[2 * i + 1]);
		if (hi < 0 || lo < 0) {
			otp_wipe(master, OTP_SEAL_KEYLEN);
			return OTP_ESTOREKEY;
		}
		master[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

int
otp_seal(const struct otp_seal_keys *k,
    const uint8_t nonce[OTP_SEAL_NONCELEN], const void *ad, size_t adlen,
    const void *in, size_t n, uint8_t *out, size_t outsz, size_t *outlen)
{
	struct chacha_poly1305_ctx c;

	if (n > SIZE_MAX - OTP_SEAL_OVERHEAD || outsz < n + OTP_SEAL_OVERHEAD)
		return OTP_ENOSPACE;
	out[0] = SEAL_VERSION;
	memcpy(out + 1, nonce, OTP_SEAL_NONCELEN);
	chacha_poly1305_set_key(&c, k->aead);
	chacha_poly1305_set_nonce(&c, nonce);
	chacha_poly1305_update(&c, adlen, ad);
	chacha_poly1305_encrypt(&c, n, out + 1 + OTP_SEAL_NONCELEN, in);
	chacha_poly1305_digest(&c, OTP_SEAL_TAGLEN,
	    out + 1 + OTP_SEAL_NONCELEN + n);
	otp_wipe(&c, sizeof(c));
	*outlen = n + OTP_SEAL_OVERHEAD;
	return 0;
}

int
otp_unseal(const struct otp_seal_keys *k, const void *ad, size_t adlen,
    const uint8_t *in, size_t n, uint8_t *out, size_t outsz, size_t *outlen)
{
	struct chacha_poly1305_ctx c;
	uint8_t tag[OTP_SEAL_TAGLEN];
	size_t m;
	int ok;

	if (n < OTP_SEAL_OVERHEAD || in[0] != SEAL_VERSION)
		return OTP_ESEALED;
	m = n - OTP_SEAL_OVERHEAD;
	if (outsz < m)
		return OTP_ENOSPACE;
	chacha_poly1305_set_key(&c, k->aead);
	chacha_poly1305_set_nonce(&c, in + 1);
	chacha_poly1305_update(&c, adlen, ad);
	chacha_poly1305_decrypt(&c, m, out, in + 1 + OTP_SEAL_NONCELEN);
	chacha_poly1305_digest(&c, sizeof(tag), tag);
	ok = otp_ct_equal(tag, in + 1 + OTP_SEAL_NONCELEN + m, sizeof(tag));
	otp_wipe(&c, sizeof(c));
	otp_wipe(tag, sizeof(tag));
	if (!ok) {
		otp_wipe(out, m);
		return OTP_ESEALED;
	}
	*outlen = m;
	return 0;
}

static void
hash_part(struct hmac_sha256_ctx *h, const void *p, size_t n)
{
	uint8_t len[8];
	size_t i;

	for (i = 0; i < sizeof(len); i++)
		len[i] = (uint8_t)((uint64_t)n >> (56 - 8 * i));
	hmac_sha256_update(h, sizeof(len), len);
	hmac_sha256_update(h, n, p);
}

void
otp_seal_hash(const struct otp_seal_keys *k, const void *a, size_t alen,
    const void *b, size_t blen, uint8_t out[OTP_SEAL_HASHLEN])
{
	struct hmac_sha256_ctx h;

	hmac_sha256_set_key(&h, sizeof(k->hash), k->hash);
	hash_part(&h, a, alen);
	hash_part(&h, b, blen);
	hmac_sha256_digest(&h, OTP_SEAL_HASHLEN, out);
	otp_wipe(&h, sizeof(h));
}

/*
 * hotp.c - HOTP (RFC 4226), TOTP (RFC 6238), Steam Guard and Mobile-OTP
 * over libnettle's HMAC.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <nettle/md5.h>

#include "otp.h"

static const struct {
	const char	*name;
	enum otp_alg	 alg;
} algs[] = {
	{ "SHA1", OTP_ALG_SHA1 }, { "SHA-1", OTP_ALG_SHA1 },
	{ "SHA256", OTP_ALG_SHA256 }, { "SHA-256", OTP_ALG_SHA256 },
	{ "SHA512", OTP_ALG_SHA512 }, { "SHA-512", OTP_ALG_SHA512 },
};

int
otp_alg_parse(const char *name, enum otp_alg *alg)
{
	size_t i;

	for (i = 0; i < sizeof(algs) / sizeof(algs[0]); i++) {
		if (strcasecmp(name, algs[i].name) == 0) {
			*alg = algs[i].alg;
			return 0;
		}
	}
	return OTP_EALG;
}

const char *
otp_alg_name(enum otp_alg alg)
{
	switch (alg) {
	case OTP_ALG_SHA256:
		return "SHA256";
	case OTP_ALG_SHA512:
		return "SHA512";
	case OTP_ALG_SHA1:
	default:
		return "SHA1";
	}
}

int
otp_hmac_init(struct otp_hmac *h, enum otp_alg alg, const uint8_t *key,
    size_t keylen)
{
	if (keylen == 0)
		return OTP_EKEYEMPTY;
	if (keylen > OTP_KEY_MAX)
		return OTP_EKEYLONG;
	h->alg = alg;
	/* nettle keeps the hashed inner and outer pads and restarts from
	 * them after every digest: the key schedule is computed once here. */
	switch (alg) {
	case OTP_ALG_SHA1:
		hmac_sha1_set_key(&h->u.sha1, keylen, key);
		return 0;
	case OTP_ALG_SHA256:
		hmac_sha256_set_key(&h->u.sha256, keylen, key);
		return 0;
	case OTP_ALG_SHA512:
		hmac_sha512_set_key(&h->u.sha512, keylen, key);
		return 0;
	}
	return OTP_EALG;
}

void
otp_hmac_wipe(struct otp_hmac *h)
{
	otp_wipe(h, sizeof(*h));
}

/*
 * HMAC-SHA1 of an 8-byte message in exactly two compression calls, from
 * the inner and outer states nettle saved at set-key time (RFC 2104):
 * both final blocks are padded here once, and no hash context is copied.
 * This is the whole cost of a code; nettle's general digest path spends
 * a third again on context copies and buffering.
 */
static void
hmac_sha1_short(const struct hmac_sha1_ctx *ctx, const uint8_t msg[8],
    uint8_t mac[SHA1_DIGEST_SIZE])
{
	uint32_t st[5];
	uint8_t block[SHA1_BLOCK_SIZE];
	unsigned i;

	/* Inner: msg, 0x80, zeros, bit length of ipad block + msg (576). */
	memset(block, 0, sizeof(block));
	memcpy(block, msg, 8);
	block[8] = 0x80;
	block[62] = 0x02;
	block[63] = 0x40;
	memcpy(st, ctx->inner.state, sizeof(st));
	nettle_sha1_compress(st, block);
	/* Outer: the inner digest, 0x80, zeros, bit length 672. */
	memset(block, 0, sizeof(block));
	for (i = 0; i < 5; i++) {
		block[4 * i] = (uint8_t)(st[i] >> 24);
		block[4 * i + 1] = (uint8_t)(st[i] >> 16);
		block[4 * i + 2] = (uint8_t)(st[i] >> 8);
		block[4 * i + 3] = (uint8_t)st[i];
	}
	block[20] = 0x80;
	block[62] = 0x02;
	block[63] = 0xa0;
	memcpy(st, ctx->outer.state, sizeof(st));
	nettle_sha1_compress(st, block);
	for (i = 0; i < 5; i++) {
		mac[4 * i] = (uint8_t)(st[i] >> 24);
		mac[4 * i + 1] = (uint8_t)(st[i] >> 16);
		mac[4 * i + 2] = (uint8_t)(st[i] >> 8);
		mac[4 * i + 3] = (uint8_t)st[i];
	}
	otp_wipe(st, sizeof(st));
	otp_wipe(block, sizeof(block));
}

uint32_t
otp_hotp_value(struct otp_hmac *h, uint64_t counter)
{
	uint8_t msg[8], mac[SHA512_DIGEST_SIZE];
	size_t maclen = 0;
	unsigned off, i;
	uint32_t v;

	/* RFC 4226 §5.2: the counter as 8 big-endian bytes. */
	for (i = 0; i < 8; i++)
		msg[i] = (uint8_t)(counter >> (56 - 8 * i));
	switch (h->alg) {
	case OTP_ALG_SHA1:
		hmac_sha1_short(&h->u.sha1, msg, mac);
		maclen = SHA1_DIGEST_SIZE;
		break;
	case OTP_ALG_SHA256:
		hmac_sha256_update(&h->u.sha256, sizeof(msg), msg);
		hmac_sha256_digest(&h->u.sha256, SHA256_DIGEST_SIZE, mac);
		maclen = SHA256_DIGEST_SIZE;
		break;
	case OTP_ALG_SHA512:
		hmac_sha512_update(&h->u.sha512, sizeof(msg), msg);
		hmac_sha512_digest(&h->u.sha512, SHA512_DIGEST_SIZE, mac);
		maclen = SHA512_DIGEST_SIZE;
		break;
	}
	/* RFC 4226 §5.3: dynamic truncation, offset from the last byte. */
	off = mac[maclen - 1] & 0x0f;
	v = (uint32_t)(mac[off] & 0x7f) << 24 | (uint32_t)mac[off + 1] << 16 |
	    (uint32_t)mac[off + 2] << 8 | (uint32_t)mac[off + 3];
	otp_wipe(mac, sizeof(mac));
	return v;
}

uint64_t
otp_code_modulus(unsigned digits)
{
	uint64_t m = 1;

	while (digits-- > 0)
		m *= 10;
	return m;
}

int
otp_code_decimal(uint32_t value, unsigned digits, char *out, size_t outsz)
{
	static const uint32_t pow10[] = {
		1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
		100000000, 1000000000
	};
	uint32_t v;
	unsigned i;

	if (digits < OTP_DIGITS_MIN || digits > OTP_DIGITS_MAX)
		return OTP_EDIGITS;
	if (outsz <= digits)
		return OTP_ENOSPACE;
	/* RFC 4226 §5.3: value mod 10^digits; a 31-bit value has at most
	 * 10 digits, so 10 digits is the value itself.  32-bit arithmetic
	 * throughout: this runs once per code. */
	v = digits < 10 ? value % pow10[digits] : value;
	for (i = digits; i > 0; i--) {
		out[i - 1] = (char)('0' + v % 10);
		v /= 10;
	}
	out[digits] = '\0';
	return 0;
}

void
otp_code_steam(uint32_t value, char out[6])
{
	static const char alphabet[] = "23456789BCDFGHJKMNPQRTVWXY";
	int i;

	for (i = 0; i < 5; i++) {
		out[i] = alphabet[value % 26];
		value /= 26;
	}
	out[5] = '\0';
}

int
otp_totp_counter(int64_t now, int64_t start, uint64_t step,
    uint64_t *counter)
{
	if (step == 0)
		return OTP_ESTEP;
	if (now < start)
		return OTP_EBEFORESTART;
	/* The difference always fits in 64 unsigned bits. */
	*counter = ((uint64_t)now - (uint64_t)start) / step;
	return 0;
}

int
otp_motp(const char *secret, size_t secretlen, const char *pin, int64_t t,
    char out[7])
{
	static const char hexdigits[] = "0123456789abcdef";
	struct md5_ctx md5;
	uint8_t digest[MD5_DIGEST_SIZE];
	char epoch[32];
	int64_t tens;
	int n, i;

	if (secretlen == 0)
		return OTP_EKEYEMPTY;
	tens = t / 10 - (t % 10 < 0);	/* floor division */
	n = snprintf(epoch, sizeof(epoch), "%lld", (long long)tens);
	md5_init(&md5);
	md5_update(&md5, (size_t)n, (const uint8_t *)epoch);
	md5_update(&md5, secretlen, (const uint8_t *)secret);
	md5_update(&md5, strlen(pin), (const uint8_t *)pin);
	md5_digest(&md5, sizeof(digest), digest);
	for (i = 0; i < 3; i++) {
		out[2 * i] = hexdigits[digest[i] >> 4];
		out[2 * i + 1] = hexdigits[digest[i] & 0x0f];
	}
	out[6] = '\0';
	otp_wipe(&md5, sizeof(md5));
	otp_wipe(digest, sizeof(digest));
	return 0;
}

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

static void
store_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void
store_be64(uint8_t *p, uint64_t v)
{
	store_be32(p, (uint32_t)(v >> 32));
	store_be32(p + 4, (uint32_t)v);
}

/* RFC 4226 §5.3: dynamic truncation, the offset from the last byte. */
static uint32_t
truncate_mac(const uint8_t *mac, size_t maclen)
{
	unsigned off = mac[maclen - 1] & 0x0f;

	return (uint32_t)(mac[off] & 0x7f) << 24 |
	    (uint32_t)mac[off + 1] << 16 | (uint32_t)mac[off + 2] << 8 |
	    (uint32_t)mac[off + 3];
}

/*
 * HMAC-SHA1 of 8-byte messages in exactly two compression calls each,
 * from the inner and outer states nettle saved at set-key time (RFC 2104).
 * Both final blocks are padded once per batch; only the counter (inner)
 * and the inner digest (outer) change from one code to the next.  This is
 * the whole cost of a code: nettle's general digest path spends a third
 * again on context copies and buffering.
 */
static void
sha1_values(const struct hmac_sha1_ctx *ctx, uint64_t first,
    uint32_t *values, size_t n)
{
	uint32_t st[5];
	uint8_t inner[SHA1_BLOCK_SIZE], outer[SHA1_BLOCK_SIZE];
	uint8_t mac[SHA1_DIGEST_SIZE];
	size_t i;
	unsigned j;

	/* Inner: counter, 0x80, zeros, bit length of ipad block + 8 bytes
	 * (576).  Outer: the inner digest, 0x80, zeros, bit length 672. */
	memset(inner, 0, sizeof(inner));
	inner[8] = 0x80;
	inner[62] = 0x02;
	inner[63] = 0x40;
	memset(outer, 0, sizeof(outer));
	outer[SHA1_DIGEST_SIZE] = 0x80;
	outer[62] = 0x02;
	outer[63] = 0xa0;
	for (i = 0; i < n; i++) {
		store_be64(inner, first + i);
		memcpy(st, ctx->inner.state, sizeof(st));
		nettle_sha1_compress(st, inner);
		for (j = 0; j < 5; j++)
			store_be32(outer + 4 * j, st[j]);
		memcpy(st, ctx->outer.state, sizeof(st));
		nettle_sha1_compress(st, outer);
		for (j = 0; j < 5; j++)
			store_be32(mac + 4 * j, st[j]);
		values[i] = truncate_mac(mac, sizeof(mac));
	}
	otp_wipe(st, sizeof(st));
	otp_wipe(inner, sizeof(inner));
	otp_wipe(outer, sizeof(outer));
	otp_wipe(mac, sizeof(mac));
}

void
otp_hotp_values(struct otp_hmac *h, uint64_t first, uint32_t *values,
    size_t n)
{
	uint8_t msg[8], mac[SHA512_DIGEST_SIZE];
	size_t i;

	/* RFC 4226 §5.2: each counter as 8 big-endian bytes.  nettle's
	 * digest restarts the context from the saved inner pad. */
	switch (h->alg) {
	case OTP_ALG_SHA1:
		sha1_values(&h->u.sha1, first, values, n);
		return;
	case OTP_ALG_SHA256:
		for (i = 0; i < n; i++) {
			store_be64(msg, first + i);
			hmac_sha256_update(&h->u.sha256, sizeof(msg), msg);
			hmac_sha256_digest(&h->u.sha256, SHA256_DIGEST_SIZE,
			    mac);
			values[i] = truncate_mac(mac, SHA256_DIGEST_SIZE);
		}
		break;
	case OTP_ALG_SHA512:
		for (i = 0; i < n; i++) {
			store_be64(msg, first + i);
			hmac_sha512_update(&h->u.sha512, sizeof(msg), msg);
			hmac_sha512_digest(&h->u.sha512, SHA512_DIGEST_SIZE,
			    mac);
			values[i] = truncate_mac(mac, SHA512_DIGEST_SIZE);
		}
		break;
	}
	otp_wipe(msg, sizeof(msg));
	otp_wipe(mac, sizeof(mac));
}

uint32_t
otp_hotp_value(struct otp_hmac *h, uint64_t counter)
{
	uint32_t v;

	otp_hotp_values(h, counter, &v, 1);
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

/*
 * hotp.c - HOTP (RFC 4226), TOTP (RFC 6238), Steam Guard and Mobile-OTP
 * over libnettle's public hash and HMAC functions.
 */
#include <string.h>

#include <nettle/hmac.h>
#include <nettle/nettle-meta.h>
#include <nettle/md5.h>
#include <nettle/sha1.h>

#include "otp.h"

/*
 * What an otp_hmac holds.  SHA-1, the common case, keeps its own chaining
 * values after the hashed pads, made with the compression function nettle
 * declares in <nettle/sha1.h>; SHA-256 and SHA-512 keep nettle's HMAC
 * contexts and use only their public functions.
 */
struct hmac_state {
	enum otp_alg	alg;
	union {
		struct {
			uint32_t	inner[5];
			uint32_t	outer[5];
		} sha1;
		struct hmac_sha256_ctx	sha256;
		struct hmac_sha512_ctx	sha512;
	} u;
};

_Static_assert(sizeof(struct hmac_state) <= sizeof(struct otp_hmac),
    "OTP_HMAC_SIZE is too small for this nettle's HMAC contexts");
_Static_assert(_Alignof(struct hmac_state) <= _Alignof(struct otp_hmac),
    "struct otp_hmac is not aligned enough for this nettle");

/* The storage starts at the struct's first byte: no member is read. */
static struct hmac_state *
state_of(struct otp_hmac *h)
{
	return (struct hmac_state *)(void *)h;
}

/* ASCII only: the result must not depend on the locale. */
static int
ascii_caseeq(const char *a, const char *b)
{
	unsigned char x, y;

	do {
		x = (unsigned char)*a++;
		y = (unsigned char)*b++;
		if (x >= 'a' && x <= 'z')
			x = (unsigned char)(x - 'a' + 'A');
		if (y >= 'a' && y <= 'z')
			y = (unsigned char)(y - 'a' + 'A');
	} while (x == y && x != '\0');
	return x == y;
}

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
		if (ascii_caseeq(name, algs[i].name)) {
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

/* SHA-1's initial hash value, RFC 3174 §6.1. */
static const uint32_t sha1_iv[5] = {
	0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0
};

/*
 * RFC 2104 §2: a key longer than the block is hashed first, then padded
 * with zeros to the block; the chaining values after one block of
 * key ^ ipad and of key ^ opad are all that an HMAC of a short message
 * needs of the key.
 */
static void
sha1_set_key(uint32_t inner[5], uint32_t outer[5], const uint8_t *key,
    size_t keylen)
{
	struct sha1_ctx ctx;
	uint8_t k[SHA1_BLOCK_SIZE], pad[SHA1_BLOCK_SIZE];
	size_t i;

	memset(k, 0, sizeof(k));
	if (keylen > SHA1_BLOCK_SIZE) {
		sha1_init(&ctx);
		sha1_update(&ctx, keylen, key);
		sha1_digest(&ctx, SHA1_DIGEST_SIZE, k);
		otp_wipe(&ctx, sizeof(ctx));
	} else
		memcpy(k, key, keylen);
	for (i = 0; i < sizeof(pad); i++)
		pad[i] = (uint8_t)(k[i] ^ 0x36);
	memcpy(inner, sha1_iv, sizeof(sha1_iv));
	nettle_sha1_compress(inner, pad);
	for (i = 0; i < sizeof(pad); i++)
		pad[i] = (uint8_t)(k[i] ^ 0x5c);
	memcpy(outer, sha1_iv, sizeof(sha1_iv));
	nettle_sha1_compress(outer, pad);
	otp_wipe(k, sizeof(k));
	otp_wipe(pad, sizeof(pad));
}

int
otp_hmac_init(struct otp_hmac *h, enum otp_alg alg, const uint8_t *key,
    size_t keylen)
{
	struct hmac_state *s = state_of(h);

	if (keylen == 0)
		return OTP_EKEYEMPTY;
	if (keylen > OTP_KEY_MAX)
		return OTP_EKEYLONG;
	s->alg = alg;
	/* The key schedule is computed once here: the hashed inner and
	 * outer pads, from which every code starts. */
	switch (alg) {
	case OTP_ALG_SHA1:
		sha1_set_key(s->u.sha1.inner, s->u.sha1.outer, key, keylen);
		return 0;
	case OTP_ALG_SHA256:
		hmac_sha256_set_key(&s->u.sha256, keylen, key);
		return 0;
	case OTP_ALG_SHA512:
		hmac_sha512_set_key(&s->u.sha512, keylen, key);
		return 0;
	}
	return OTP_EALG;
}

void
otp_hmac_wipe(struct otp_hmac *h)
{
	otp_wipe(h, sizeof(*h));
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
 * from the chaining values of the hashed pads (RFC 2104).  Both final
 * blocks are padded once per batch (FIPS 180-4 §5.1.1); only the counter
 * (inner) and the inner digest (outer) change from one code to the next.
 * This is the whole cost of a code: a general HMAC digest spends a third
 * again on context copies and buffering.
 */
static void
sha1_values(const uint32_t key_inner[5], const uint32_t key_outer[5],
    uint64_t first, uint32_t *values, size_t n)
{
	uint32_t st[5];
	uint8_t inner[SHA1_BLOCK_SIZE], outer[SHA1_BLOCK_SIZE];
	uint64_t pair;
	size_t i;
	unsigned j, off;

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
		memcpy(st, key_inner, sizeof(st));
		nettle_sha1_compress(st, inner);
		for (j = 0; j < 5; j++)
			store_be32(outer + 4 * j, st[j]);
		memcpy(st, key_outer, sizeof(st));
		nettle_sha1_compress(st, outer);
		/* RFC 4226 §5.3 on the digest's words: the 4 bytes at
		 * offset off lie in words off / 4 and off / 4 + 1. */
		off = st[4] & 0x0f;
		pair = (uint64_t)st[off / 4] << 32 | st[off / 4 + 1];
		values[i] = (uint32_t)(pair >> (32 - 8 * (off % 4))) &
		    0x7fffffff;
	}
	otp_wipe(st, sizeof(st));
	otp_wipe(inner, sizeof(inner));
	otp_wipe(outer, sizeof(outer));
	otp_wipe(&pair, sizeof(pair));
}

/* otp_hotp_value() for the n counters first, first+1, ..., first+n-1
 * (which must not pass 2^64-1) into values[0..n-1]: a large window costs
 * the hashing alone.  The values are codes: wipe them after use. */
void
otp_hotp_values(struct otp_hmac *h, uint64_t first, uint32_t *values,
    size_t n)
{
	struct hmac_state *s = state_of(h);
	const struct nettle_mac *m;
	uint8_t msg[8], mac[SHA512_DIGEST_SIZE];
	void *ctx;
	size_t i;

	/* RFC 4226 §5.2: each counter as 8 big-endian bytes.  nettle's
	 * digest restarts the context from the saved inner pad. */
	switch (s->alg) {
	case OTP_ALG_SHA1:
		sha1_values(s->u.sha1.inner, s->u.sha1.outer, first, values,
		    n);
		return;
	case OTP_ALG_SHA256:
	case OTP_ALG_SHA512:
		/* nettle's generic MAC interface: one loop for both. */
		m = s->alg == OTP_ALG_SHA256 ? &nettle_hmac_sha256 :
		    &nettle_hmac_sha512;
		ctx = s->alg == OTP_ALG_SHA256 ? (void *)&s->u.sha256 :
		    (void *)&s->u.sha512;
		for (i = 0; i < n; i++) {
			store_be64(msg, first + i);
			m->update(ctx, sizeof(msg), msg);
			m->digest(ctx, m->digest_size, mac);
			values[i] = truncate_mac(mac, m->digest_size);
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
	char epoch[20], *p;
	int64_t tens;
	uint64_t u;
	int i;

	if (secretlen == 0)
		return OTP_EKEYEMPTY;
	tens = t / 10 - (t % 10 < 0);	/* floor division */
	/* Its decimal text, written backwards from the end of epoch (no
	 * snprintf: the core has no locale); 20 characters at most. */
	u = tens < 0 ? 0 - (uint64_t)tens : (uint64_t)tens;
	p = epoch + sizeof(epoch);
	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u != 0);
	if (tens < 0)
		*--p = '-';
	md5_init(&md5);
	md5_update(&md5, (size_t)(epoch + sizeof(epoch) - p),
	    (const uint8_t *)p);
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

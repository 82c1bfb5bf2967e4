/*
 * fuzz-base32.c - the Base32 codecs (RFC 4648 §6 and §7) on arbitrary
 * bytes.  The first byte picks the flags and seeds the chunk sizes; the
 * rest is the text.  Properties:
 *  - the whole-buffer decoder and the streaming decoder fed in random
 *    chunks agree on the bytes, the error and its offset;
 *  - an error offset lies inside the text (or at its end), an invalid
 *    character error points at a character that is invalid, and the
 *    output is wiped;
 *  - a short output buffer gives OTP_ENOSPACE, the room needed, and
 *    nothing written past it;
 *  - what decodes encodes canonically and the canonical text decodes
 *    strictly to the same bytes; any bytes encode and decode back.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "otp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define TEXT_MAX	4096
#define BYTES_MAX	(TEXT_MAX * 5 / 8 + 8)

static uint8_t whole[BYTES_MAX], streamed[BYTES_MAX];
static uint8_t again[TEXT_MAX + 8];	/* also any raw input, decoded back */
static uint8_t chunkout[TEXT_MAX * 5 / 8 + 8];
static char text[TEXT_MAX + 1], enc[TEXT_MAX * 2 + 16];

/* A small deterministic generator for chunk sizes. */
static uint32_t
next(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static int
all_zero(const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != 0)
			return 0;
	return 1;
}

/* Is c one of the characters the flags accept (data, pad or skip)? */
static int
acceptable(unsigned char c, int flags)
{
	static const char std[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
	static const char hex[] = "0123456789ABCDEFGHIJKLMNOPQRSTUV";
	const char *alpha = (flags & OTP_B32_HEXALPHA) ? hex : std;
	unsigned char u = c;

	if (c == '\0')
		return 0;
	if (c == '=')
		return 1;
	if (!(flags & OTP_B32_STRICT)) {
		if (c == ' ' || c == '-' || (c >= '\t' && c <= '\r'))
			return 1;
		if (c >= 'a' && c <= 'z')
			u = (unsigned char)(c - 'a' + 'A');
	}
	return strchr(alpha, u) != NULL;
}

/* The streaming decoder over text in chunks of 0..31 characters. */
static int
stream(const char *in, size_t len, int flags, uint32_t seed, size_t *outlen,
    uint64_t *erroff)
{
	struct otp_b32_decoder d;
	size_t pos = 0, n, total = 0;
	int rc;

	otp_b32_decoder_init(&d, flags);
	while (pos < len) {
		size_t k = next(&seed) % 32;

		if (k > len - pos)
			k = len - pos;
		/* The documented bound: k * 5 / 8 + 5 bytes. */
		memset(chunkout, 0xa5, sizeof(chunkout));
		rc = otp_b32_decoder_update(&d, in + pos, k, chunkout, &n,
		    erroff);
		if (n > k * 5 / 8 + 5)
			abort();
		if (rc != 0)
			return rc;
		memcpy(streamed + total, chunkout, n);
		total += n;
		pos += k;
	}
	rc = otp_b32_decoder_final(&d, NULL, &n, erroff);
	if (n != 0)
		abort();
	*outlen = total;
	return rc;
}

static void
decode_case(const char *in, size_t len, int flags, uint32_t seed)
{
	size_t n = 0, sn = 0, off = SIZE_MAX, small, m = 0;
	uint64_t soff = UINT64_MAX;
	int rc, src, r;

	memset(whole, 0, sizeof(whole));
	rc = otp_b32_decode(in, len, whole, sizeof(whole), &n, flags, &off);
	src = stream(in, len, flags, seed, &sn, &soff);
	if (rc > 0 || rc != src)
		abort();
	if (rc != 0) {
		if (off > len || soff != off || n != 0)
			abort();
		if (!all_zero(whole, sizeof(whole)))
			abort();	/* no partial result */
		if (rc == OTP_EBASE32 && (off >= len ||
		    acceptable((unsigned char)in[off], flags)))
			abort();
		if (rc != OTP_EBASE32 && rc != OTP_EBASE32PAD &&
		    rc != OTP_EBASE32LEN && rc != OTP_EBASE32BITS)
			abort();
		return;
	}
	if (sn != n || memcmp(whole, streamed, n) != 0 || n > len * 5 / 8)
		abort();

	/* A buffer one byte short: ENOSPACE with the room needed, and
	 * nothing past it touched. */
	if (n > 0) {
		small = n - 1;
		memset(again, 0x5a, sizeof(again));
		r = otp_b32_decode(in, len, again, small, &m, flags, NULL);
		if (r != OTP_ENOSPACE || m != n || again[small] != 0x5a ||
		    !all_zero(again, small))
			abort();
	}

	/* Canonical text of the bytes, strictly decoded, gives them back. */
	r = otp_b32_encode(whole, n, enc, sizeof(enc),
	    flags & (OTP_B32_HEXALPHA | OTP_B32_NOPAD));
	if (r < 0 || (size_t)r != otp_b32_encoded_len(n,
	    flags & (OTP_B32_NOPAD)) || strlen(enc) != (size_t)r)
		abort();
	if (otp_b32_decode(enc, (size_t)r, again, sizeof(again), &m,
	    (flags & (OTP_B32_HEXALPHA | OTP_B32_NOPAD)) | OTP_B32_STRICT,
	    NULL) != 0 || m != n || memcmp(again, whole, n) != 0)
		abort();
	/* Strict input is canonical already. */
	if ((flags & OTP_B32_STRICT) &&
	    ((size_t)r != len || memcmp(enc, in, len) != 0))
		abort();
}

/* Any bytes: encode, then decode strictly and leniently. */
static void
encode_case(const uint8_t *b, size_t n, int flags)
{
	size_t m = 0;
	int r, i;

	r = otp_b32_encode(b, n, enc, sizeof(enc), flags);
	if (r < 0 || (size_t)r != otp_b32_encoded_len(n, flags))
		abort();
	for (i = 0; i < 2; i++) {
		int f = flags | (i == 0 ? OTP_B32_STRICT : 0);

		if (i == 1)
			f &= ~OTP_B32_NOPAD;
		if (otp_b32_decode(enc, (size_t)r, again, sizeof(again), &m, f,
		    NULL) != 0 || m != n || memcmp(again, b, n) != 0)
			abort();
	}
	/* Every buffer too short by one is refused, and terminated
	 * output never overruns. */
	if (otp_b32_encode(b, n, enc, (size_t)r, flags) != OTP_ENOSPACE)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t seed;
	size_t len;
	int flags;

	if (size < 1 || size - 1 > TEXT_MAX)
		return 0;
	flags = data[0] & (OTP_B32_HEXALPHA | OTP_B32_STRICT | OTP_B32_NOPAD);
	seed = 0x9e3779b9u ^ ((uint32_t)data[0] << 8) ^ (uint32_t)size;
	len = size - 1;
	memcpy(text, data + 1, len);
	text[len] = '\0';
	decode_case(text, len, flags, seed);
	/* The other strictness on the same text. */
	decode_case(text, len, flags ^ OTP_B32_STRICT, seed * 2654435761u);
	encode_case(data + 1, len, flags & (OTP_B32_HEXALPHA |
	    OTP_B32_NOPAD));
	return 0;
}

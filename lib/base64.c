/*
 * base64.c - standard base64 (RFC 4648 §4): a padded encoder and one
 * decoder that takes the text in pieces, so that a caller can feed it
 * characters it decodes from another layer (a URI's percent-escapes) and
 * still report offsets in its own text.
 */
#include <string.h>

#include "otp.h"

static const char b64_alpha[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t
otp_b64_encoded_len(size_t n)
{
	return (n + 2) / 3 * 4;
}

/* Base64 of k (1..3) bytes as one padded quantum. */
static void
b64_quantum(const uint8_t *in, size_t k, char q[4])
{
	uint32_t v = (uint32_t)in[0] << 16;

	if (k > 1)
		v |= (uint32_t)in[1] << 8;
	if (k > 2)
		v |= in[2];
	q[0] = b64_alpha[v >> 18];
	q[1] = b64_alpha[v >> 12 & 63];
	q[2] = k > 1 ? b64_alpha[v >> 6 & 63] : '=';
	q[3] = k > 2 ? b64_alpha[v & 63] : '=';
}

int
otp_b64_encode(const uint8_t *in, size_t n, char *out, size_t outsz)
{
	size_t i, o = 0;

	if (n > SIZE_MAX / 4 * 3 - 3 || outsz <= otp_b64_encoded_len(n))
		return OTP_ENOSPACE;
	if (otp_b64_encoded_len(n) > INT32_MAX)
		return OTP_ETOOLONG;
	for (i = 0; i < n; i += 3, o += 4)
		b64_quantum(in + i, n - i < 3 ? n - i : 3, out + o);
	out[o] = '\0';
	return (int)o;
}

/* The value of a base64 character.  A raw '+' comes back as ' ' from
 * URL decoding; '-' and '_' are the URL-safe spellings of '+' and '/'
 * (RFC 4648 §5). */
static int
b64_value(unsigned char c)
{
	static const struct {
		unsigned char	lo, hi;
		int		value;
	} runs[] = {
		{ 'A', 'Z', 0 }, { 'a', 'z', 26 }, { '0', '9', 52 },
		{ '+', '+', 62 }, { ' ', ' ', 62 }, { '-', '-', 62 },
		{ '/', '/', 63 }, { '_', '_', 63 },
	};
	size_t i;

	for (i = 0; i < sizeof(runs) / sizeof(runs[0]); i++)
		if (c >= runs[i].lo && c <= runs[i].hi)
			return runs[i].value + (c - runs[i].lo);
	return -1;
}

void
otp_b64_decoder_init(struct otp_b64_decoder *d)
{
	memset(d, 0, sizeof(*d));
}

/* One character; a complete quantum goes to out at *o.  A short last
 * quantum waits for the end of the text. */
static int
b64_put(struct otp_b64_decoder *d, unsigned char c, uint8_t *out,
    size_t outsz, size_t *o)
{
	int v;

	if (d->done)
		return OTP_EBASE64;	/* anything after the padding */
	if (c == '=') {
		/* '=' only after 2 or 3 characters of the last quantum,
		 * and then up to its end. */
		if (d->ndata < 2)
			return OTP_EBASE64;
		if (++d->npad + d->ndata == 4)
			d->done = 1;
		return 0;
	}
	if (d->npad > 0 || (v = b64_value(c)) < 0)
		return OTP_EBASE64;
	d->acc = d->acc << 6 | (uint32_t)v;
	if (++d->ndata < 4)
		return 0;
	if (outsz - *o < 3)
		return OTP_ENOSPACE;
	out[(*o)++] = (uint8_t)(d->acc >> 16);
	out[(*o)++] = (uint8_t)(d->acc >> 8);
	out[(*o)++] = (uint8_t)d->acc;
	d->acc = 0;
	d->ndata = 0;
	return 0;
}

/* Decode in[0..inlen) into out; *outlen gets the bytes written.  Anything
 * the decoder does not read (see struct otp_b64_decoder) is OTP_EBASE64, no
 * room OTP_ENOSPACE, *erroff at the character; what this call wrote is
 * wiped on error. */
int
otp_b64_decoder_update(struct otp_b64_decoder *d, const char *in,
    size_t inlen, uint8_t *out, size_t outsz, size_t *outlen,
    size_t *erroff)
{
	size_t i, o = 0;
	int r;

	for (i = 0; i < inlen; i++) {
		if ((r = b64_put(d, (unsigned char)in[i], out, outsz,
		    &o)) != 0) {
			*erroff = i;
			otp_wipe(out, o);
			return r;
		}
	}
	*outlen = o;
	return 0;
}

/* Trailing bits of a short quantum are ignored, as every common decoder
 * does. */
int
otp_b64_decoder_final(struct otp_b64_decoder *d, uint8_t *out,
    size_t outsz, size_t *outlen)
{
	size_t o = 0;

	if (d->npad > 0 && d->npad + d->ndata != 4)
		return OTP_EBASE64;		/* cut inside the padding */
	switch (d->ndata) {
	case 0:
		break;
	case 1:
		return OTP_EBASE64;		/* 6 bits are no byte */
	case 2:
		if (outsz < 1)
			return OTP_ENOSPACE;
		out[o++] = (uint8_t)(d->acc >> 4);
		break;
	default:
		if (outsz < 2)
			return OTP_ENOSPACE;
		out[o++] = (uint8_t)(d->acc >> 10);
		out[o++] = (uint8_t)(d->acc >> 2);
		break;
	}
	otp_wipe(d, sizeof(*d));
	*outlen = o;
	return 0;
}

int
otp_b64_decode(const char *in, size_t inlen, uint8_t *out, size_t outsz,
    size_t *outlen, size_t *erroff)
{
	struct otp_b64_decoder d;
	size_t n = 0, k = 0;
	int r;

	otp_b64_decoder_init(&d);
	if ((r = otp_b64_decoder_update(&d, in, inlen, out, outsz, &n,
	    erroff)) == 0) {
		*erroff = inlen;
		if ((r = otp_b64_decoder_final(&d, out + n, outsz - n,
		    &k)) == 0)
			*outlen = n + k;
		else
			otp_wipe(out, n);	/* no partial result */
	}
	otp_wipe(&d, sizeof(d));
	return r;
}

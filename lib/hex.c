/*
 * hex.c - hexadecimal text: lower case out, either case in.
 */
#include "otp.h"

static const char hexdig[] = "0123456789abcdef";

int
otp_hex_encode(const uint8_t *in, size_t n, char *out, size_t outsz)
{
	size_t i;

	if (n > (SIZE_MAX - 1) / 2 || outsz <= 2 * n)
		return OTP_ENOSPACE;
	for (i = 0; i < n; i++) {
		out[2 * i] = hexdig[in[i] >> 4];
		out[2 * i + 1] = hexdig[in[i] & 0x0f];
	}
	out[2 * n] = '\0';
	return 0;
}

/* Decode hex (either case, nothing else) into out; *outlen gets the byte
 * count (the room needed on OTP_ENOSPACE).  OTP_EHEX with *erroff at the
 * first bad character, then OTP_EHEXLEN (odd length, *erroff = inlen);
 * nothing is written on error.  erroff may be NULL. */
int
otp_hex_decode(const char *in, size_t inlen, uint8_t *out, size_t outsz,
    size_t *outlen, size_t *erroff)
{
	size_t i;

	*outlen = 0;
	/* Validate everything first: a bad character is reported before a
	 * length problem, and nothing is written for bad input. */
	for (i = 0; i < inlen; i++) {
		if (otp_hexval((unsigned char)in[i]) < 0) {
			if (erroff != NULL)
				*erroff = i;
			return OTP_EHEX;
		}
	}
	if (inlen % 2 != 0) {
		if (erroff != NULL)
			*erroff = inlen;
		return OTP_EHEXLEN;
	}
	if (inlen / 2 > outsz) {
		*outlen = inlen / 2;
		return OTP_ENOSPACE;
	}
	for (i = 0; i < inlen / 2; i++)
		out[i] = (uint8_t)(otp_hexval((unsigned char)in[2 * i]) << 4 |
		    otp_hexval((unsigned char)in[2 * i + 1]));
	*outlen = inlen / 2;
	return 0;
}

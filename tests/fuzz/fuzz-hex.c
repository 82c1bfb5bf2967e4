/*
 * fuzz-hex.c - the hex codec on arbitrary bytes.  Properties: an error
 * points at the first non-hex character (or the end for an odd length)
 * and writes nothing; a short buffer gives OTP_ENOSPACE with the room
 * needed and nothing written; what decodes encodes to the same text in
 * lower case; any bytes encode and decode back.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "otp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define TEXT_MAX	4096

static uint8_t out[TEXT_MAX / 2 + 1], back[TEXT_MAX + 1];
static char enc[TEXT_MAX * 2 + 1];

static int
is_hex(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	    (c >= 'A' && c <= 'F');
}

static int
all(const uint8_t *p, size_t n, uint8_t v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != v)
			return 0;
	return 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data;
	size_t n = SIZE_MAX, off = SIZE_MAX, i, m;
	int rc;

	if (size > TEXT_MAX)
		return 0;
	memset(out, 0xa5, sizeof(out));
	rc = otp_hex_decode(in, size, out, sizeof(out), &n, &off);
	if (rc == OTP_EHEX) {
		if (off >= size || is_hex(data[off]) || n != 0)
			abort();
		for (i = 0; i < off; i++)
			if (!is_hex(data[i]))
				abort();	/* not the first bad one */
		if (!all(out, sizeof(out), 0xa5))
			abort();
	} else if (rc == OTP_EHEXLEN) {
		if (off != size || size % 2 == 0 || n != 0 ||
		    !all(out, sizeof(out), 0xa5))
			abort();
	} else if (rc == 0) {
		if (size % 2 != 0 || n != size / 2)
			abort();
		/* Decoded bytes encode to the text, lower-cased. */
		if (otp_hex_encode(out, n, enc, sizeof(enc)) != 0 ||
		    strlen(enc) != size)
			abort();
		for (i = 0; i < size; i++)
			if (enc[i] != (char)tolower(data[i]))
				abort();
		/* One byte short: ENOSPACE, the room needed, no write. */
		if (n > 0) {
			memset(back, 0x5a, sizeof(back));
			m = 0;
			if (otp_hex_decode(in, size, back, n - 1, &m,
			    NULL) != OTP_ENOSPACE || m != n ||
			    !all(back, sizeof(back), 0x5a))
				abort();
		}
	} else
		abort();

	/* Any bytes round-trip through the encoder. */
	if (otp_hex_encode(data, size, enc, sizeof(enc)) != 0 ||
	    strlen(enc) != 2 * size)
		abort();
	if (otp_hex_encode(data, size, enc, 2 * size) != OTP_ENOSPACE)
		abort();
	if (otp_hex_decode(enc, 2 * size, back, sizeof(back), &m, NULL) != 0 ||
	    m != size || memcmp(back, data, size) != 0)
		abort();
	return 0;
}

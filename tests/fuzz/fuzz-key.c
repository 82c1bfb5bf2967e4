/*
 * fuzz-key.c - otp_key_parse on arbitrary text, as hex and as Base32:
 * no crash, no undefined behaviour, a key of 1..OTP_KEY_MAX bytes on
 * success, the key wiped and the offset inside the text on error.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "otp.h"
#include "otp_uri.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
one(const char *text, size_t len, enum otp_keyenc enc)
{
	static const uint8_t zero[OTP_KEY_MAX];
	struct otp_uri u;
	size_t off = 0;
	int rc;

	rc = otp_key_parse(text, enc, &u, &off);
	if (rc == 0) {
		if (u.key.len == 0 || u.key.len > OTP_KEY_MAX)
			abort();
	} else {
		if (rc > 0 || u.key.len != 0 ||
		    memcmp(u.key.buf, zero, sizeof(zero)) != 0)
			abort();
		if ((rc == OTP_EHEX || rc == OTP_EBASE32) && off >= len)
			abort();
		if (off > len)
			abort();
	}
	otp_wipe(&u, sizeof(u));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char text[OTP_LINE_MAX];

	if (size >= sizeof(text))
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	/* Text stops at a NUL, as a C string would. */
	size = strlen(text);
	one(text, size, OTP_KEYENC_HEX);
	one(text, size, OTP_KEYENC_BASE32);
	return 0;
}

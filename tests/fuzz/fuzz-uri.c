/*
 * fuzz-uri.c - otp_uri_parse on arbitrary text (as given, and after
 * "otpauth://totp/" so that most inputs reach the label and query): no
 * crash, no undefined behaviour, the offset inside the text on error and
 * the part it names (otp_uri_part) inside it too, and on success
 * parse(build(u)) == u with the unknown parameters kept; building into
 * every short buffer fails cleanly without writing past it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "otp.h"
#include "otp_uri.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
one(const char *text, size_t len, size_t shortsz)
{
	static const uint8_t zero[OTP_KEY_MAX];
	static char out[OTP_URI_MAX];
	struct otp_uri_part p;
	struct otp_uri u, v;
	size_t off = 0, need;
	char *small;
	int rc;

	rc = otp_uri_parse(text, &u, &off);
	if (rc != 0) {
		if (rc > 0 || off > len || u.key.len != 0 || u.is_uri ||
		    memcmp(u.key.buf, zero, sizeof(zero)) != 0 ||
		    u.extra[0] != '\0')
			abort();
		otp_uri_part(text, off, &p);
		if (p.off + p.len > len || p.voff + p.vlen > len ||
		    (p.kind == OTP_URI_PART_PARAM &&
		    (off < p.off || off > p.voff + p.vlen)))
			abort();
		return;
	}
	if (u.key.len == 0 || u.key.len > OTP_KEY_MAX || u.is_uri != 1 ||
	    strlen(u.issuer) >= OTP_LABEL_MAX ||
	    strlen(u.account) >= OTP_LABEL_MAX)
		abort();
	/* Whatever parses builds (into OTP_URI_MAX: canonical names may
	 * grow past a line), and what fits a line reads back the same. */
	if (otp_uri_build(&u, out, sizeof(out)) != 0)
		abort();
	if (strlen(out) < OTP_LINE_MAX && (otp_uri_parse(out, &v, &off) != 0 ||
	    !otp_uri_equal(&u, &v) || strcmp(u.extra, v.extra) != 0))
		abort();
	/* A buffer too short by any amount: refused, nothing past it. */
	need = strlen(out) + 1;
	if (shortsz < need) {
		if ((small = malloc(shortsz > 0 ? shortsz : 1)) == NULL)
			abort();
		if (otp_uri_build(&u, small, shortsz) != OTP_ENOSPACE)
			abort();
		free(small);
	}
	otp_wipe(&u, sizeof(u));
	otp_wipe(&v, sizeof(v));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char prefix[] = "otpauth://totp/";
	static char text[OTP_LINE_MAX + sizeof(prefix)];
	size_t len, shortsz;

	if (size >= OTP_LINE_MAX)
		return 0;
	shortsz = size > 0 ? data[0] : 0;
	memcpy(text, data, size);
	text[size] = '\0';
	/* Text stops at a NUL, as a C string would. */
	len = strlen(text);
	one(text, len, shortsz);
	memcpy(text, prefix, sizeof(prefix) - 1);
	memcpy(text + sizeof(prefix) - 1, data, size);
	text[sizeof(prefix) - 1 + size] = '\0';
	one(text, strlen(text), shortsz);
	return 0;
}

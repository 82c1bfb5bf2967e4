/*
 * key.c - key text turned into key bytes and parameters: a hex or Base32
 * key, or an otpauth:// URI.  Reading the text is lib/sys/input.c's.
 *
 * Key text is secret: on error the key is wiped before returning.
 */
#include <stdint.h>
#include <string.h>

#include "otp.h"
#include "otp_uri.h"

#define URI_SCHEME		"otpauth://"
#define MIGRATION_SCHEME	"otpauth-migration:"

/* Turn key text into u (otp_uri_init first): an otpauth:// URI (any case
 * of the scheme) is parsed with its parameters, anything else is decoded
 * as enc (Base32 leniently) with u->is_uri = 0.  OTP_EKEYEMPTY for zero
 * bytes, OTP_EKEYLONG past OTP_KEY_MAX, OTP_EURI for an
 * otpauth-migration: text; on a codec error *erroff (may be NULL) gets
 * the offset in text.  On error u->key is wiped. */
int
otp_key_parse(const char *text, enum otp_keyenc enc, struct otp_uri *u,
    size_t *erroff)
{
	size_t len, n = 0, off = 0;
	int rc;

	if (erroff != NULL)
		*erroff = 0;
	if (u == NULL)
		return OTP_EINVAL;
	otp_uri_init(u);
	if (text == NULL)
		return OTP_EINVAL;
	/* A Google Authenticator export is a different format: say so
	 * rather than fail on its first character as a key. */
	if (otp_ascii_caseeq(text, MIGRATION_SCHEME, strlen(MIGRATION_SCHEME)))
		return OTP_EURI;
	if (otp_ascii_caseeq(text, URI_SCHEME, strlen(URI_SCHEME))) {
		rc = otp_uri_parse(text, u, &off);
		if (rc == 0 && (u->key.len == 0 || u->key.len > OTP_KEY_MAX))
			rc = u->key.len == 0 ? OTP_EKEYEMPTY : OTP_EKEYLONG;
		goto done;
	}
	len = strlen(text);
	switch (enc) {
	case OTP_KEYENC_HEX:
		rc = otp_hex_decode(text, len, u->key.buf, sizeof(u->key.buf),
		    &n, &off);
		break;
	case OTP_KEYENC_BASE32:
		rc = otp_b32_decode(text, len, u->key.buf, sizeof(u->key.buf),
		    &n, 0, &off);
		break;
	default:
		return OTP_EINVAL;
	}
	if (rc == OTP_ENOSPACE || (rc == 0 && n > OTP_KEY_MAX)) {
		rc = OTP_EKEYLONG;
		off = 0;
	} else if (rc == 0 && n == 0)
		rc = OTP_EKEYEMPTY;
	if (rc == 0) {
		u->key.len = n;
		u->is_uri = 0;
	}
done:
	if (rc != 0) {
		otp_wipe(&u->key, sizeof(u->key));
		if (erroff != NULL)
			*erroff = off;
	}
	return rc;
}

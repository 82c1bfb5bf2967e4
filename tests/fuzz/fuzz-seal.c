/*
 * fuzz-seal.c - what a database store reads back: a key file's text, a
 * sealed value, a state image split from its scratch codes.  Properties:
 * a key text is 64 hex digits or OTP_ESTOREKEY; arbitrary bytes never
 * unseal (the tag), a seal of them opens to the same bytes; an image's
 * scratch codes taken out and put back parse as the same state.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "otp.h"
#include "otp_seal.h"
#include "otp_state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t sealed[OTP_STATE_MAX + OTP_SEAL_OVERHEAD], back[OTP_STATE_MAX];
static char body[OTP_STATE_OUTMAX];
static uint32_t codes[OTP_STATE_SCRATCH_MAX];
static struct otp_state a, b;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t master[OTP_SEAL_KEYLEN] = { 1, 2, 3 };
	static const uint8_t nonce[OTP_SEAL_NONCELEN] = { 9 };
	struct otp_seal_keys k;
	uint8_t m[OTP_SEAL_KEYLEN];
	size_t len, n, i;
	int rc;

	rc = otp_seal_key_parse((const char *)data, size, m);
	if (rc != 0 && rc != OTP_ESTOREKEY)
		abort();
	if (rc == 0 && size != 64 && size != 65)
		abort();
	otp_seal_keys_init(&k, master);
	if (otp_unseal(&k, "ad", 2, data, size, back, sizeof(back), &len) !=
	    OTP_ESEALED)
		abort();
	if (size <= OTP_STATE_MAX) {
		if (otp_seal(&k, nonce, "ad", 2, data, size, sealed,
		    sizeof(sealed), &len) != 0 ||
		    otp_unseal(&k, "ad", 2, sealed, len, back, sizeof(back),
		    &n) != 0 || n != size || memcmp(back, data, size) != 0)
			abort();
	}
	if (size >= 1 && size <= OTP_STATE_MAX &&
	    otp_state_parse((const char *)data, size, &a) == 0) {
		if (otp_state_unscratch((const char *)data, size, body,
		    sizeof(body), &len, codes, OTP_STATE_SCRATCH_MAX, &n) != 0)
			abort();
		for (i = 0; i < n; i++)
			if (otp_state_add_scratch(body, &len, sizeof(body),
			    codes[i]) != 0)
				abort();
		if (otp_state_parse(body, len, &b) != 0 ||
		    a.mode != b.mode || a.nscratch != b.nscratch ||
		    a.key.len != b.key.len || a.window != b.window ||
		    a.hotp_counter != b.hotp_counter)
			abort();
	}
	otp_seal_keys_wipe(&k);
	return 0;
}

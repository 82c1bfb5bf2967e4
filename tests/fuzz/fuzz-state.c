/*
 * fuzz-state.c - the state-file engine on arbitrary bytes as a file image:
 * parse; when it parses, check fixed codes (a TOTP code, a scratch code, a
 * wrong shape) at a fixed time with a grace period, and the updated image
 * must parse again and never exceed OTP_STATE_MAX.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "otp.h"
#include "otp_state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct otp_state st;
static char out[OTP_STATE_OUTMAX];

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *codes[] = { "050548", "12345678", "1234567",
	    "12ab050548", "12ab12345678" };
	static const enum otp_answer_kind kinds[] = { OTP_ANSWER_BARE,
	    OTP_ANSWER_SPLIT };
	struct otp_answer a;
	const char *img = (const char *)data;
	struct otp_state_opts o;
	struct otp_state_result r;
	size_t outlen, i;
	int rc;

	if (otp_state_parse(img, size, &st) != 0)
		return 0;
	if (st.key.len == 0 || st.key.len > OTP_KEY_MAX ||
	    st.window < 1 || st.window > 100 || st.step < 1 || st.step > 60 ||
	    st.digits < 6 || st.digits > 8 ||
	    strlen(st.pin) > OTP_STATE_PIN_MAX)
		abort();
	memset(&o, 0, sizeof(o));
	o.allowed_perm = OTP_STATE_PERM;
	o.grace_period = 60;
	o.rhost = "10.0.0.1";
	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		o.flags = (unsigned)i;
		rc = otp_state_check(img, size, codes[i], 300000, &o, &r, out,
		    sizeof(out), &outlen);
		if (rc == OTP_ESTATESIZE)
			continue;
		if (rc != 0 || outlen > OTP_STATE_MAX)
			abort();
		if (!r.changed && (outlen != size ||
		    memcmp(out, img, size) != 0))
			abort();
		if (otp_state_parse(out, outlen, &st) != 0)
			abort();
	}
	/* A login's readings of one answer (a PIN, forward_pass), the
	 * LINGER lines looked at and one added on an accept. */
	o.linger = 60;
	o.user = "alice";
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		a.text = codes[3 + i];
		a.kind = kinds[i];
		rc = otp_state_login(img, size, OTP_LOGIN_OPEN |
		    OTP_LOGIN_LINGER | OTP_LOGIN_SETTLE, &a, 1, 300000, &o, &r,
		    out, sizeof(out), &outlen);
		if (rc == OTP_ESTATESIZE)
			continue;
		if (rc != 0 || outlen > OTP_STATE_MAX ||
		    otp_state_parse(out, outlen, &st) != 0)
			abort();
	}
	return 0;
}

/*
 * fuzz-otpw.c - the OTPW engine on arbitrary bytes as a ~/.otpw image:
 * parse; when it parses, the counts must agree with the entries, the
 * first challenge must read back as itself, a triple while that entry is
 * locked must never name it, a response (the input's last bytes) is
 * checked, and the image with the challenged entries marked must parse
 * again with that many fewer unused.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "otp.h"
#include "otp_otpw.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char img[OTP_OTPW_MAX];

static int
word(void *arg, uint32_t *w)
{
	uint32_t *s = arg;

	*s = *s * 1664525u + 1013904223u;
	*w = *s;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct otp_otpw w, w2;
	struct otp_otpw_chal c, d;
	char resp[65];
	uint32_t seed = (uint32_t)size;
	size_t n, line;
	unsigned k, before;

	if (size > sizeof(img))
		return 0;
	if (otp_otpw_parse((const char *)data, size, &w, &line) != 0)
		return 0;
	if (w.remaining > w.entries || (w.remaining == 0) != (w.first < 0) ||
	    line != 0)
		abort();
	memcpy(img, data, size);
	n = size < 64 ? size : 64;
	memcpy(resp, data + size - n, n);
	resp[n] = '\0';
	if (otp_otpw_first(img, &w, &c) != 0)
		return 0;
	if (otp_otpw_chal_parse(img, &w, c.text, &d) != 0 || d.n != 1 ||
	    d.idx[0] != c.idx[0] || !otp_otpw_unused(img, &w, &c))
		abort();
	if (otp_otpw_multi(img, &w, c.text, word, &seed, &d) == 0) {
		if (d.n != OTP_OTPW_MULTI)
			abort();
		for (k = 0; k < d.n; k++)
			if (memcmp(img + w.start + d.idx[k] * w.linelen,
			    c.text, w.challen) == 0)
				abort();
		c = d;
	}
	(void)otp_otpw_check(img, &w, &c, resp);
	before = w.remaining;
	otp_otpw_mark(img, &w, &c);
	if (w.remaining != before - c.n ||
	    otp_otpw_parse(img, size, &w2, NULL) != 0 ||
	    w2.remaining != w.remaining || w2.first != w.first)
		abort();
	return 0;
}

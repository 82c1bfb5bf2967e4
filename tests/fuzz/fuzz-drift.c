/*
 * fuzz-drift.c - otp_drift_code_line on arbitrary bytes (the lines
 * otp-verify --interactive reads from a pipe), and the drift estimate on
 * arbitrary observations: no crash, no undefined behaviour, and the
 * results hold together (a code read is 6 to 10 digits and reads back
 * the same; an error's offset lies in the line; a consistent estimate
 * lies inside every code's span).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "otp.h"
#include "otp_drift.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t
take(const uint8_t **p, size_t *n)
{
	uint64_t u = 0;
	size_t i;

	for (i = 0; i < 8 && *n > 0; i++, (*p)++, (*n)--)
		u = u << 8 | **p;
	return u;
}

static void
estimate(const uint8_t *data, size_t size)
{
	struct otp_drift_obs obs[8];
	struct otp_drift_span s;
	struct otp_drift d;
	uint64_t step = take(&data, &size) % 100 + 1;
	int64_t start = (int64_t)(take(&data, &size) % 1000000);
	size_t n = 0, i;

	while (size > 0 && n < 8) {
		obs[n].now = (int64_t)(take(&data, &size) >> 16);
		obs[n].offset = (int64_t)(take(&data, &size) % 200001) - 100000;
		obs[n].matched = (int)(take(&data, &size) & 1);
		obs[n].counter = (uint64_t)obs[n].offset +
		    (uint64_t)obs[n].now / step;
		n++;
	}
	if (otp_drift_estimate(obs, n, step, start, OTP_SYNC_YES, &d) != 0)
		return;
	if (d.matched > n || d.steps > d.matched || d.span.lo > d.span.hi)
		abort();
	if (d.verdict == OTP_VERDICT_SPREAD || d.matched == 0)
		return;
	for (i = 0; i < n; i++) {
		if (!obs[i].matched)
			continue;
		if (otp_drift_span(&obs[i], step, start, &s) != 0 ||
		    s.lo > d.span.lo || s.hi < d.span.hi)
			abort();
	}
	if (d.estimate < d.span.lo || d.estimate > d.span.hi)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char code[OTP_CODE_MAX], again[OTP_CODE_MAX];
	size_t off, off2, n;
	int rc;

	rc = otp_drift_code_line((const char *)data, size, code, sizeof(code),
	    &off);
	if (rc == 0) {
		n = strlen(code);
		if (n < OTP_DIGITS_MIN || n > OTP_DIGITS_MAX ||
		    otp_code_check(code, 0) != (int)n)
			abort();
		if (otp_drift_code_line(code, n, again, sizeof(again),
		    &off2) != 0 || strcmp(code, again) != 0)
			abort();
	} else if (rc == OTP_ECODE) {
		if (off > size || code[0] != '\0')
			abort();
	} else if (rc != OTP_EEMPTY)
		abort();
	estimate(data, size);
	return 0;
}

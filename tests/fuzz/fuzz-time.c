/*
 * fuzz-time.c - otp_time_parse, otp_duration_parse and otp_time_format_utc
 * on arbitrary bytes: no crash, no undefined behaviour, and the results
 * hold together (a parsed time formats, a formatted time parses back).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "otp.h"
#include "sys.h"

#define NOW	INT64_C(1234567890)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct otp_zone *zone;
	char text[OTP_LINE_MAX], out[64];
	int64_t t, back;
	uint64_t d;
	int rc;

	if (size >= sizeof(text))
		return 0;
	/* The parsers take NUL-terminated text, as the tools pass it. */
	memcpy(text, data, size);
	text[size] = '\0';
	/* Zone-less times are read in the system's zone: a fixed one with
	 * summer time keeps the gap and overlap paths reachable. */
	if (zone == NULL) {
		setenv("TZ", "Europe/Paris", 1);
		zone = sys_zone_local();
	}
	rc = otp_time_parse(text, NOW, zone, &t);
	if (rc == 0) {
		/* Any accepted time of a representable year formats, and
		 * the text read back is the same second. */
		if (otp_time_format_utc(t, out, sizeof(out)) == 0 &&
		    out[0] != '-' && strlen(out) == 23) {
			if (otp_time_parse(out, NOW, zone, &back) != 0 ||
			    back != t)
				abort();
		}
	} else if (rc != OTP_ETIME && rc != OTP_ETIMERANGE &&
	    rc != OTP_ETIMEFIELD && rc != OTP_ETIMEGAP &&
	    rc != OTP_ETIMEAMBIG && rc != OTP_ETIMEAGO)
		abort();
	rc = otp_duration_parse(text, &d);
	if (rc != 0 && rc != OTP_EDURATION && rc != OTP_ERANGE)
		abort();
	/* The formatter on the input's first 8 bytes as a time. */
	if (size >= 8) {
		uint64_t u = 0;
		size_t i;

		for (i = 0; i < 8; i++)
			u = u << 8 | data[i];
		rc = otp_time_format_utc((int64_t)u, out, sizeof(out));
		if (rc != 0 && rc != OTP_ETIMERANGE)
			abort();
	}
	return 0;
}

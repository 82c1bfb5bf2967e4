/*
 * fuzz-radius.c - a RADIUS request's text on arbitrary bytes.  Properties:
 * a user name that otp_user_check() admits has no '/', no NUL, does not
 * begin with '.' or '-', and is no longer than OTP_USERNAME_MAX; a refusal
 * points inside the name.  otp_radius_value() gives a NUL-free value no
 * longer than its input, or an error and an empty buffer; a value quoted
 * back as a reply line is one line that reads back to the same value
 * (but for controls, shown as '?').
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "otp.h"
#include "otp_radius.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define TEXT_MAX	1024

static char in[TEXT_MAX + 1], val[TEXT_MAX + 1], line[TEXT_MAX * 2 + 64];
static char back[TEXT_MAX * 2 + 64];

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n, off, i;
	int rc;

	if (size > TEXT_MAX)
		return 0;
	memcpy(in, data, size);
	in[size] = '\0';
	n = strlen(in);

	off = (size_t)-1;
	rc = otp_user_check(in, &off);
	if (rc == 0) {
		if (n == 0 || n > OTP_USERNAME_MAX || strchr(in, '/') != NULL ||
		    in[0] == '.' || in[0] == '-')
			abort();
	} else if (rc != OTP_EUSERNAME || off > n)
		abort();

	rc = otp_radius_value(in, val, sizeof(val));
	if (rc >= 0) {
		if ((size_t)rc != strlen(val) || (size_t)rc > n)
			abort();
		/* Quoted back and read again: the same, controls aside. */
		for (i = 0; val[i] != '\0'; i++)
			if ((unsigned char)val[i] < 0x20 || val[i] == 0x7f)
				val[i] = '?';
		rc = otp_radius_pair("X", val, line, sizeof(line));
		if (rc < 0 || strchr(line, '\n') != line + rc - 1)
			abort();
		line[rc - 1] = '\0';
		if (strncmp(line, "X := ", 5) != 0 ||
		    otp_radius_value(line + 5, back, sizeof(back)) < 0 ||
		    strcmp(back, val) != 0)
			abort();
	} else if (val[0] != '\0' && rc != OTP_ETOOLONG)
		abort();
	return 0;
}

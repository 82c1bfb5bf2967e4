/*
 * test-radius.c - lib/radius.c: user names that may name a file, attribute
 * values as rlm_exec passes them, the Reply-Message line.  Cases are in
 * tests/vectors/radius.txt.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otp.h"
#include "otp_radius.h"
#include "unit.h"

/* The vector text: \xHH for a byte, {N} for N 'a's. */
static void
unescape(const char *in, char *out, size_t size)
{
	size_t o = 0;
	char *end;
	long n;

	while (*in != '\0' && o + 1 < size) {
		if (in[0] == '\\' && in[1] == 'x' && in[2] != '\0' &&
		    in[3] != '\0') {
			out[o++] = (char)(otp_hexval((unsigned char)in[2]) << 4 |
			    otp_hexval((unsigned char)in[3]));
			in += 4;
		} else if (in[0] == '{' && (n = strtol(in + 1, &end, 10)) > 0 &&
		    *end == '}') {
			while (n-- > 0 && o + 1 < size)
				out[o++] = 'a';
			in = end + 1;
		} else
			out[o++] = *in++;
	}
	out[o] = '\0';
}

static void
radius_case(const struct unit_line *l, void *arg)
{
	char in[512], want[512], out[512], what[128];
	size_t off = 999, wantoff;
	int rc, want_rc;

	(void)arg;
	snprintf(what, sizeof(what), "%s:%u", l->file, l->lineno);
	if (l->nfields != 3) {
		CHECK(0, "%s: want 3 fields", what);
		return;
	}
	unescape(l->field[1], in, sizeof(in));
	unescape(l->field[2], want, sizeof(want));
	want_rc = 0;
	wantoff = 0;
	if (want[0] == '!') {
		char name[64];

		if (sscanf(want + 1, "%63s %zu", name, &wantoff) < 1)
			name[0] = '\0';
		want_rc = unit_errcode(name);
	}
	if (strcmp(l->field[0], "user") == 0) {
		rc = otp_user_check(in, &off);
		CHECK_EQ_INT(rc, want_rc, what);
		if (want_rc != 0)
			CHECK_EQ_INT(off, wantoff, what);
		CHECK_EQ_INT(otp_user_check(in, NULL), want_rc, what);
	} else if (strcmp(l->field[0], "value") == 0) {
		memset(out, 'x', sizeof(out));
		rc = otp_radius_value(in, out, sizeof(out));
		if (want_rc != 0) {
			CHECK_EQ_INT(rc, want_rc, what);
			CHECK_EQ_STR(out, "", what);
		} else {
			CHECK_EQ_INT(rc, strlen(want), what);
			CHECK_EQ_STR(out, want, what);
		}
	} else if (strcmp(l->field[0], "reply") == 0) {
		rc = otp_radius_pair("Reply-Message", in, out, sizeof(out));
		strcat(want, "\n");
		CHECK_EQ_INT(rc, strlen(want), what);
		CHECK_EQ_STR(rc > 0 ? out : "", want, what);
	} else
		CHECK(0, "%s: unknown kind '%s'", what, l->field[0]);
}

/* Every output size: too small is an error, never a cut value. */
static void
sizes(void)
{
	char out[16], line[32];
	size_t n;
	int rc;

	for (n = 1; n <= sizeof(out); n++) {
		rc = otp_radius_value("\"alice\"", out, n);
		CHECK(n > 5 ? rc == 5 : rc == OTP_ETOOLONG, "value in %zu "
		    "bytes: %d", n, rc);
		rc = otp_radius_value("alice", out, n);
		CHECK(n > 5 ? rc == 5 : rc == OTP_ETOOLONG, "bare value in "
		    "%zu bytes: %d", n, rc);
	}
	CHECK_EQ_INT(otp_radius_value("a", out, 0), OTP_ENOSPACE, "size 0");
	/* X := "a\"" and a newline: 11 bytes and the NUL. */
	for (n = 0; n < 12; n++)
		CHECK_EQ_INT(otp_radius_pair("X", "a\"", line, n),
		    OTP_ENOSPACE, "reply in a small buffer");
	CHECK_EQ_INT(otp_radius_pair("X", "a\"", line, 12), 11, "just fits");
	CHECK_EQ_STR(line, "X := \"a\\\"\"\n", "just fits");
}

int
main(int argc, char *argv[])
{
	const char *dir = argc > 1 ? argv[1] : "tests/vectors";

	unit_vectors(dir, "radius.txt", radius_case, NULL);
	sizes();
	return unit_done();
}

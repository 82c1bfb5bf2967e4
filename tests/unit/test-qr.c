/*
 * test-qr.c - QR encoding limits and the renderings (ASCII, ANSI, UTF-8
 * for dark and for light terminals): sizes, quiet zone, finder patterns,
 * buffer bounds, style names.  (tests/otp-uri.bats scans the
 * drawn codes back with zbarimg.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otp.h"
#include "otp_qr.h"
#include "unit.h"

static struct otp_qr qr;
static char out[1 << 20];

/* The module a rendering shows at (x, y), quiet zone included. */
static int
ascii_dark(const char *s, unsigned w, unsigned x, unsigned y)
{
	const char *p = s + (size_t)y * (2 * w + 1) + 2 * x;

	return p[0] == '#' && p[1] == '#';
}

static void
test_ascii(void)
{
	unsigned w, x, y;
	size_t need;
	int n;

	CHECK(otp_qr_encode("HELLO", &qr) == 0, "encode");
	CHECK_EQ_INT(qr.width, 21, "version 1 width");
	w = qr.width + 2 * OTP_QR_QUIET;
	need = otp_qr_render_size(&qr, OTP_QR_ASCII);
	CHECK_EQ_INT(need, (size_t)w * (2 * w + 1) + 1, "ascii size");
	n = otp_qr_render(&qr, OTP_QR_ASCII, out, sizeof(out));
	CHECK_EQ_INT(n, need - 1, "ascii length");
	CHECK_EQ_INT(strlen(out), need - 1, "ascii NUL");
	for (y = 0; y < w; y++) {
		CHECK(out[(size_t)y * (2 * w + 1) + 2 * w] == '\n',
		    "line %u ends", y);
		for (x = 0; x < w; x++) {
			int quiet = x < OTP_QR_QUIET || y < OTP_QR_QUIET ||
			    x >= w - OTP_QR_QUIET || y >= w - OTP_QR_QUIET;
			int d = ascii_dark(out, w, x, y);

			if (quiet)
				CHECK(!d, "quiet zone dark at %u,%u", x, y);
			else
				CHECK(d == qr.dark[(y - OTP_QR_QUIET) *
				    qr.width + x - OTP_QR_QUIET],
				    "module %u,%u", x, y);
		}
	}
	/* Finder pattern (ISO/IEC 18004 §6.3.3): a dark 7x7 ring with a
	 * light ring inside and a dark 3x3 core. */
	for (y = 0; y < 7; y++)
		for (x = 0; x < 7; x++) {
			int ring = x == 0 || y == 0 || x == 6 || y == 6;
			int core = x >= 2 && x <= 4 && y >= 2 && y <= 4;

			CHECK(qr.dark[y * qr.width + x] == (ring || core),
			    "finder %u,%u", x, y);
		}
	/* Every buffer too small is refused without writing past it. */
	memset(out, 'Z', need + 1);
	CHECK(otp_qr_render(&qr, OTP_QR_ASCII, out, need - 1) == OTP_ENOSPACE,
	    "one byte short");
	CHECK(out[need - 1] == 'Z', "nothing written past the buffer");
	CHECK(otp_qr_render(&qr, OTP_QR_ASCII, out, 0) == OTP_ENOSPACE,
	    "zero size");
	CHECK(otp_qr_render(&qr, OTP_QR_ASCII, out, need) == (int)need - 1,
	    "exact size");
}

/* The UTF-8 styles: the glyphs draw the light modules, or the dark ones
 * when inverted; the half row past the bottom is drawn in neither. */
static void
test_utf8(enum otp_qr_style style)
{
	unsigned w, rows = 0, x, y;
	int inv = style == OTP_QR_UTF8_INVERTED;
	const char *p;
	size_t need;

	CHECK(otp_qr_encode("otpauth://totp/x?secret=GEZDGNBV", &qr) == 0,
	    "encode");
	w = qr.width + 2 * OTP_QR_QUIET;
	need = otp_qr_render_size(&qr, style);
	CHECK(otp_qr_render(&qr, style, out, sizeof(out)) ==
	    (int)need - 1, "utf8 length");
	/* Decode the half blocks back into modules and compare. */
	p = out;
	for (y = 0; y < w; y += 2, rows++) {
		for (x = 0; x < w; x++) {
			int top, bot;

			if (strncmp(p, "\xe2\x96\x88", 3) == 0) {
				top = 0, bot = 0;
				p += 3;
			} else if (strncmp(p, "\xe2\x96\x80", 3) == 0) {
				top = 0, bot = 1;
				p += 3;
			} else if (strncmp(p, "\xe2\x96\x84", 3) == 0) {
				top = 1, bot = 0;
				p += 3;
			} else if (*p == ' ') {
				top = 1, bot = 1;
				p++;
			} else {
				CHECK(0, "utf8: bad glyph at row %u col %u",
				    rows, x);
				return;
			}
			if (y + 1 >= w)
				CHECK(bot == 1, "utf8: past the bottom drawn");
			top ^= inv;
			bot ^= inv;
			CHECK(top == (x >= OTP_QR_QUIET && y >= OTP_QR_QUIET &&
			    x < w - OTP_QR_QUIET && y < w - OTP_QR_QUIET &&
			    qr.dark[(y - OTP_QR_QUIET) * qr.width + x -
			    OTP_QR_QUIET]), "utf8 top %u,%u", x, y);
			if (y + 1 < w)
				CHECK(bot == (x >= OTP_QR_QUIET &&
				    y + 1 >= OTP_QR_QUIET &&
				    x < w - OTP_QR_QUIET &&
				    y + 1 < w - OTP_QR_QUIET &&
				    qr.dark[(y + 1 - OTP_QR_QUIET) * qr.width +
				    x - OTP_QR_QUIET]), "utf8 bottom %u,%u",
				    x, y + 1);
		}
		CHECK(*p == '\n', "utf8 row %u ends", rows);
		p++;
	}
	CHECK(*p == '\0', "utf8 ends after %u rows", rows);
	CHECK_EQ_INT(rows, (w + 1) / 2, "utf8 rows");
}

static void
test_ansi(void)
{
	unsigned w, lines = 0;
	const char *p;
	size_t need;

	CHECK(otp_qr_encode("otpauth://totp/x?secret=GEZDGNBV", &qr) == 0,
	    "encode");
	w = qr.width + 2 * OTP_QR_QUIET;
	need = otp_qr_render_size(&qr, OTP_QR_ANSI);
	CHECK(otp_qr_render(&qr, OTP_QR_ANSI, out, sizeof(out)) ==
	    (int)need - 1, "ansi length");
	for (p = out; *p != '\0'; p++)
		if (*p == '\n')
			lines++;
	CHECK_EQ_INT(lines, w, "ansi lines");
	CHECK(strncmp(out, "\033[47m  ", 7) == 0, "ansi starts light");
	CHECK(strstr(out, "\033[40m  ") != NULL, "ansi has dark modules");
	CHECK(strstr(out, "\033[0m\n") != NULL, "ansi resets each line");
}

static void
test_limits(void)
{
	static char text[4000];
	enum otp_qr_style st;

	CHECK(otp_qr_encode("", &qr) == OTP_EEMPTY, "empty");
	/* 2400 bytes: past level M's 2331 at version 40, within L's 2953. */
	memset(text, 'a', 2400);
	text[2400] = '\0';
	CHECK(otp_qr_encode(text, &qr) == 0, "level L fallback");
	CHECK(qr.width > 141, "a large version: %u", qr.width);
	memset(text, 'a', 3000);
	text[3000] = '\0';
	CHECK(otp_qr_encode(text, &qr) == OTP_ETOOLONG, "too long");
	CHECK(qr.width == 0, "width cleared");
	CHECK(otp_qr_render(&qr, OTP_QR_ASCII, out, sizeof(out)) == OTP_EINVAL,
	    "render of nothing");

	CHECK(otp_qr_style_parse("utf8", &st) == 0 && st == OTP_QR_UTF8, "utf8");
	CHECK(otp_qr_style_parse("ansi", &st) == 0 && st == OTP_QR_ANSI, "ansi");
	CHECK(otp_qr_style_parse("ascii", &st) == 0 && st == OTP_QR_ASCII,
	    "ascii");
	CHECK(otp_qr_style_parse("utf8-inverted", &st) == 0 &&
	    st == OTP_QR_UTF8_INVERTED, "utf8-inverted");
	/* Names in any case, whole names only. */
	CHECK(otp_qr_style_parse("UTF8", &st) == 0 && st == OTP_QR_UTF8,
	    "UTF8");
	CHECK(otp_qr_style_parse("Ansi", &st) == 0 && st == OTP_QR_ANSI,
	    "Ansi");
	CHECK(otp_qr_style_parse("UTF8-Inverted", &st) == 0 &&
	    st == OTP_QR_UTF8_INVERTED, "UTF8-Inverted");
	CHECK(otp_qr_style_parse("utf", &st) == OTP_EINVAL, "prefix");
	CHECK(otp_qr_style_parse("utf8-", &st) == OTP_EINVAL, "utf8-");
	CHECK(otp_qr_style_parse("asciix", &st) == OTP_EINVAL, "asciix");
	CHECK(otp_qr_style_parse("png", &st) == OTP_EINVAL, "png");
	CHECK(otp_qr_style_parse("", &st) == OTP_EINVAL, "empty style");
}

int
main(int argc, char *argv[])
{
	(void)argc;
	(void)argv;
	test_ascii();
	test_utf8(OTP_QR_UTF8);
	test_utf8(OTP_QR_UTF8_INVERTED);
	test_ansi();
	test_limits();
	return unit_done();
}

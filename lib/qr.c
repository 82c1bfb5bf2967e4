/*
 * qr.c - QR codes for terminals: libqrencode encodes, we draw into the
 * caller's buffer as UTF-8 half blocks (for a dark or a light terminal),
 * ANSI colours or plain ASCII.
 */
#include <errno.h>
#include <string.h>

#include <qrencode.h>

#include "otp.h"
#include "otp_qr.h"

/* Half blocks for a pair of module rows, indexed by (top dark, bottom
 * dark).  The glyph's foreground is the light part: on the usual light
 * text over a dark background the code reads dark on light.  The inverted
 * style swaps the index, the glyph drawing the dark part, for dark text on
 * a light background. */
static const char *const half[2][2] = {
	{ "\xe2\x96\x88", "\xe2\x96\x80" },	/* both light: full; top: upper */
	{ "\xe2\x96\x84", " " },		/* bottom light: lower; none */
};

static const struct {
	const char		*name;
	enum otp_qr_style	 style;
} styles[] = {
	{ "utf8", OTP_QR_UTF8 },
	{ "utf8-inverted", OTP_QR_UTF8_INVERTED },
	{ "ansi", OTP_QR_ANSI },
	{ "ascii", OTP_QR_ASCII },
};

#define ANSI_DARK	"\033[40m"
#define ANSI_LIGHT	"\033[47m"
#define ANSI_RESET	"\033[0m"

int
otp_qr_style_parse(const char *name, enum otp_qr_style *style)
{
	size_t i, n = strlen(name);

	for (i = 0; i < sizeof(styles) / sizeof(styles[0]); i++)
		if (strlen(styles[i].name) == n &&
		    otp_ascii_caseeq(name, styles[i].name, n)) {
			*style = styles[i].style;
			return 0;
		}
	return OTP_EINVAL;
}

/* Encode text (byte mode where needed, version chosen to fit, level M, or
 * L when M cannot hold it) into qr; OTP_EEMPTY, OTP_ETOOLONG when no
 * version holds it, OTP_ENOMEM.  libqrencode allocates while it works;
 * nothing is kept. */
int
otp_qr_encode(const char *text, struct otp_qr *qr)
{
	QRcode *c;
	size_t i, n;

	qr->width = 0;
	if (*text == '\0')
		return OTP_EEMPTY;
	/* Level M (15% recovery) survives a screen's glare; fall back to L
	 * only for texts M cannot hold.  Version 0: the smallest that fits.
	 * QR_MODE_8 lets upper-case runs (the Base32 secret) use the denser
	 * alphanumeric mode. */
	errno = 0;
	c = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1);
	if (c == NULL && errno == ERANGE)
		c = QRcode_encodeString(text, 0, QR_ECLEVEL_L, QR_MODE_8, 1);
	if (c == NULL)
		return errno == ERANGE ? OTP_ETOOLONG : errno == ENOMEM ?
		    OTP_ENOMEM : OTP_EINVAL;
	if (c->width <= 0 || c->width > OTP_QR_WIDTH_MAX) {
		QRcode_free(c);
		return OTP_EINVAL;
	}
	qr->width = (unsigned)c->width;
	n = (size_t)qr->width * qr->width;
	/* Bit 0 of each libqrencode module byte is "dark". */
	for (i = 0; i < n; i++)
		qr->dark[i] = c->data[i] & 1;
	/* The module data spells the text (a URI with its secret). */
	otp_wipe(c->data, n);
	QRcode_free(c);
	return 0;
}

/* Module (x, y) of the code with its quiet zone: outside is light. */
static int
dark_at(const struct otp_qr *qr, unsigned x, unsigned y)
{
	if (x < OTP_QR_QUIET || y < OTP_QR_QUIET)
		return 0;
	x -= OTP_QR_QUIET;
	y -= OTP_QR_QUIET;
	if (x >= qr->width || y >= qr->width)
		return 0;
	return qr->dark[(size_t)y * qr->width + x];
}

/* Append s, or only count it when out is NULL. */
static void
put(char *out, size_t *o, const char *s)
{
	size_t n = strlen(s);

	/* A counted buffer: draw() writes its one NUL at the end. */
	if (out != NULL)
		/* NOLINTNEXTLINE(bugprone-not-null-terminated-result) */
		memcpy(out + *o, s, n);
	*o += n;
}

/* Draw into out (NULL: measure); returns the length without NUL. */
static size_t
draw(const struct otp_qr *qr, enum otp_qr_style style, char *out)
{
	unsigned w = qr->width + 2 * OTP_QR_QUIET, x, y;
	size_t o = 0;
	int inv;

	switch (style) {
	case OTP_QR_UTF8:
	case OTP_QR_UTF8_INVERTED:
		/* Past the last row: nothing drawn, whichever the style. */
		inv = style == OTP_QR_UTF8_INVERTED;
		for (y = 0; y < w; y += 2) {
			for (x = 0; x < w; x++)
				put(out, &o, half[dark_at(qr, x, y) ^ inv]
				    [y + 1 < w ? dark_at(qr, x, y + 1) ^ inv :
				    1]);
			put(out, &o, "\n");
		}
		break;
	case OTP_QR_ANSI:
		for (y = 0; y < w; y++) {
			int cur = -1;

			for (x = 0; x < w; x++) {
				int d = dark_at(qr, x, y);

				if (d != cur)
					put(out, &o, d ? ANSI_DARK :
					    ANSI_LIGHT);
				cur = d;
				put(out, &o, "  ");
			}
			put(out, &o, ANSI_RESET "\n");
		}
		break;
	case OTP_QR_ASCII:
	default:
		for (y = 0; y < w; y++) {
			for (x = 0; x < w; x++)
				put(out, &o, dark_at(qr, x, y) ? "##" : "  ");
			put(out, &o, "\n");
		}
		break;
	}
	return o;
}

size_t
otp_qr_render_size(const struct otp_qr *qr, enum otp_qr_style style)
{
	return draw(qr, style, NULL) + 1;
}

int
otp_qr_render(const struct otp_qr *qr, enum otp_qr_style style, char *out,
    size_t outsz)
{
	size_t n;

	if (style != OTP_QR_UTF8 && style != OTP_QR_UTF8_INVERTED &&
	    style != OTP_QR_ANSI && style != OTP_QR_ASCII)
		return OTP_EINVAL;
	if (qr->width == 0 || qr->width > OTP_QR_WIDTH_MAX)
		return OTP_EINVAL;
	n = draw(qr, style, NULL);
	if (n >= outsz || n > INT32_MAX)
		return OTP_ENOSPACE;
	draw(qr, style, out);
	out[n] = '\0';
	return (int)n;
}

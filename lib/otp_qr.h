/*
 * otp_qr.h - QR codes for terminals (lib/qr.c).
 * Conventions as in otp.h.
 */
#ifndef OTP_QR_H
#define OTP_QR_H

#include <stddef.h>
#include <stdint.h>

#include "otp.h"

#define OTP_QR_WIDTH_MAX	177	/* modules per side of a version 40 code */
#define OTP_QR_QUIET		4	/* light modules around the code */

enum otp_qr_style {
	OTP_QR_UTF8,	/* half blocks: two module rows per text row, the
			   glyphs light: for light text on a dark terminal */
	OTP_QR_UTF8_INVERTED,	/* the same, the glyphs dark: for dark text
			   on a light terminal */
	OTP_QR_ANSI,	/* ANSI background colours, two spaces a module */
	OTP_QR_ASCII,	/* '#' dark, ' ' light, two characters a module */
};

/* A QR code's modules, row-major, 1 for dark; no quiet zone. */
struct otp_qr {
	unsigned	width;
	uint8_t		dark[OTP_QR_WIDTH_MAX * OTP_QR_WIDTH_MAX];
};

/* Parse a style name in any case: "utf8", "utf8-inverted", "ansi" or
 * "ascii" (OTP_EINVAL otherwise). */
int otp_qr_style_parse(const char *name, enum otp_qr_style *style);
/* Encode text into qr (level M, else L); OTP_EEMPTY, OTP_ETOOLONG,
 * OTP_ENOMEM.  libqrencode allocates while it works; nothing is kept. */
int otp_qr_encode(const char *text, struct otp_qr *qr);
/* Bytes otp_qr_render needs for qr in style, with the NUL. */
size_t otp_qr_render_size(const struct otp_qr *qr, enum otp_qr_style style);
/* Draw qr with a quiet zone, dark on light, as lines ending in '\n' into
 * out (then NUL); returns the length or OTP_ENOSPACE. */
int otp_qr_render(const struct otp_qr *qr, enum otp_qr_style style,
    char *out, size_t outsz);

#endif /* OTP_QR_H */

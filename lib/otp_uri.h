/*
 * otp_uri.h - key text and otpauth:// URIs (lib/key.c, lib/uri.c).
 * Conventions as in otp.h.
 */
#ifndef OTP_URI_H
#define OTP_URI_H

#include <stddef.h>
#include <stdint.h>

#include "otp.h"

/* Room for a built URI: its canonical parts and up to a line of unknown
 * parameters, with NUL. */
#define OTP_URI_MAX		16384

/* Bits of otp_uri.have: which parameters the URI spelled out. */
#define OTP_HAVE_ALG		0x01
#define OTP_HAVE_DIGITS		0x02
#define OTP_HAVE_PERIOD		0x04
#define OTP_HAVE_COUNTER	0x08
#define OTP_HAVE_ISSUER		0x10	/* issuer= parameter */
#define OTP_HAVE_LABELISSUER	0x20	/* issuer prefix in the label */

/* Bits of otp_uri.warn: legal but risky. */
#define OTP_WARN_ISSUERMISMATCH	0x01	/* label issuer != issuer= */
#define OTP_WARN_GAIGNORES	0x02	/* alg/digits/period GA ignores */
#define OTP_WARN_PADDED		0x04	/* secret had '=' padding */
#define OTP_WARN_SHORTKEY	0x08	/* secret under 128 bits */
#define OTP_WARN_NOISSUER	0x10	/* no issuer anywhere */
#define OTP_WARN_UNKNOWN	0x20	/* parameters kept in extra[] */
#define OTP_WARN_STEAM		0x40	/* steam: Steam-aware apps only */

/* A key and its parameters, from a bare key or an otpauth:// URI. */
struct otp_uri {
	enum otp_type	type;
	enum otp_alg	alg;
	unsigned	digits;
	uint64_t	counter;
	uint64_t	period;
	char		issuer[OTP_LABEL_MAX];	/* decoded UTF-8, "" if none */
	char		account[OTP_LABEL_MAX];	/* decoded UTF-8, "" if none */
	struct otp_key	key;
	unsigned	have;		/* OTP_HAVE_* */
	unsigned	warn;		/* OTP_WARN_* */
	int		is_uri;		/* 1 when it came from a URI */
	int		steam;		/* otpauth://steam/: type TOTP, Steam's
					   5-character codes; digits unused */
	char		extra[OTP_LINE_MAX];	/* unknown parameters as given,
					   '&'-joined in order, "" if none */
};

/* What a key's parameters are when nothing says otherwise: a URI that
 * leaves them out, and the tools (as oathtool). */
#define OTP_DEFAULT_TYPE	OTP_TYPE_HOTP
#define OTP_DEFAULT_ALG		OTP_ALG_SHA1
#define OTP_DEFAULT_DIGITS	6
#define OTP_DEFAULT_PERIOD	30	/* seconds a TOTP step lasts */

/* Set u to the defaults above, counter 0. */
void otp_uri_init(struct otp_uri *u);
/* Read key text into u (otp_uri_init first): an otpauth:// URI or a key in
 * enc.  On error (OTP_EKEY*, a codec's at *erroff or NULL) u->key is wiped. */
int otp_key_parse(const char *text, enum otp_keyenc enc, struct otp_uri *u,
    size_t *erroff);
/* Parse an otpauth:// URI into u (the rules are otp-uri(1)'s). */
int otp_uri_parse(const char *uri, struct otp_uri *u, size_t *erroff);
/* Build the canonical URI for u into out (then NUL), u->extra appended as
 * given; OTP_ENOSPACE (OTP_URI_MAX bytes always suffice). */
int otp_uri_build(const struct otp_uri *u, char *out, size_t outsz);
/* 1 when a and b are the same account (what a URI carries, not have, warn,
 * is_uri or extra; keys compared in constant time), else 0. */
int otp_uri_equal(const struct otp_uri *a, const struct otp_uri *b);
/* The unknown parameter at *pos of u->extra (0: the first), decoded into
 * name and value, *pos moved on; 1, 0 when none is left, or OTP_E*. */
int otp_uri_extra_next(const struct otp_uri *u, size_t *pos, char *name,
    size_t namesz, char *value, size_t valuesz);

/* The part of an otpauth URI an error offset falls in, for a message that
 * names it: [off, off+len) is the type, the label or a parameter's name. */
enum otp_uri_part_kind {
	OTP_URI_PART_SCHEME,
	OTP_URI_PART_TYPE,
	OTP_URI_PART_LABEL,
	OTP_URI_PART_PARAM,
};
struct otp_uri_part {
	enum otp_uri_part_kind	kind;
	size_t			off, len;
	size_t			voff, vlen;	/* a parameter's value */
	int			secret;	/* secret=: show no character */
};

/* Fill *p with the part of uri that offset off (as otp_uri_parse gives)
 * falls in; a parameter's name is matched as otp_uri_parse matches it. */
void otp_uri_part(const char *uri, size_t off, struct otp_uri_part *p);

#endif /* OTP_URI_H */

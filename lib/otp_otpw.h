/*
 * otp_otpw.h - the OTPW password-list engine (lib/otpw.c).
 * Conventions as in otp.h.
 */
#ifndef OTP_OTPW_H
#define OTP_OTPW_H

#include <stddef.h>
#include <stdint.h>

#include "otp.h"

/* The format is pam_otp(8)'s: "OTPW1", an optional "#" line, "ENTRIES
 * CHALLEN 12 PWLEN", then one line per entry (number, 12-character hash)
 * or as many dashes once used.  The engine works on an image in memory;
 * lib/sys/otpwfile.c adds the file, the lock symlink and the rename. */

#define OTP_OTPW_MAX		(400 * 1024)	/* largest file image */
#define OTP_OTPW_ENTRIES_MAX	9999	/* the readers' limits */
#define OTP_OTPW_CHALLEN_MAX	26	/* three numbers fit in 80 */
#define OTP_OTPW_HASHLEN	12	/* characters: 72 bits */
#define OTP_OTPW_PWLEN_MIN	4
#define OTP_OTPW_PWLEN_MAX	999
#define OTP_OTPW_MULTI		3	/* passwords while a lock is held */
#define OTP_OTPW_MULTI_MIN	10	/* unused entries the triple needs */
#define OTP_OTPW_CHAL_MAX	81	/* challenge text with NUL */
#define OTP_OTPW_RESP_MAX	4096	/* longest response read */

/* What the lists we make look like, as otpw-gen's default. */
#define OTP_OTPW_GEN_PWCHARS	8	/* 48 bits, shown "xxxx xxxx" */
#define OTP_OTPW_GEN_CHALLEN	3
#define OTP_OTPW_GEN_DEFAULT	280	/* 56 rows of 5 on one page */
#define OTP_OTPW_GEN_MIN	10
#define OTP_OTPW_GEN_MAX	1000	/* three digits */
#define OTP_OTPW_LIST_MAX	65536	/* printed list of _GEN_MAX */

/* An image's parameters, as otp_otpw_parse() found them. */
struct otp_otpw {
	unsigned	entries;	/* entry lines */
	unsigned	challen;	/* digits of an entry's number */
	unsigned	pwlen;		/* password characters */
	unsigned	remaining;	/* unused entries */
	long		first;		/* index of the first unused, or -1 */
	size_t		start;		/* offset of the first entry line */
	size_t		linelen;	/* challen + 12 + 1 */
};

/* One challenge: one entry, or three while another login holds one. */
struct otp_otpw_chal {
	unsigned	n;			/* 1 or OTP_OTPW_MULTI */
	unsigned	idx[OTP_OTPW_MULTI];	/* entry indexes */
	char		text[OTP_OTPW_CHAL_MAX];	/* "017", "017/010/022" */
};

/* Parse and check an image; OTP_EOTPW*, *line (may be NULL) the 1-based
 * line at fault. */
int otp_otpw_parse(const char *img, size_t len, struct otp_otpw *w,
    size_t *line);
/* The 12-character hash (then NUL) of prefix and a normalised password. */
void otp_otpw_hash(const char *prefix, size_t plen, const char *pw,
    size_t pwlen, char out[OTP_OTPW_HASHLEN + 1]);
/* The challenge for the first unused entry; OTP_EOTPWEMPTY. */
int otp_otpw_first(const char *img, const struct otp_otpw *w,
    struct otp_otpw_chal *c);
/* Three random unused entries, none numbered locked (another login's);
 * OTP_EOTPWFEW under 10 unused, fn's error. */
int otp_otpw_multi(const char *img, const struct otp_otpw *w,
    const char *locked, otp_word_fn fn, void *arg, struct otp_otpw_chal *c);
/* Read challenge text "NNN" or "NNN/NNN/NNN" naming unused entries;
 * OTP_EOTPWCHAL, OTP_EOTPWUNKNOWN. */
int otp_otpw_chal_parse(const char *img, const struct otp_otpw *w,
    const char *text, struct otp_otpw_chal *c);
/* 1 if resp is the prefix and the challenged passwords (normalised, read
 * from its end), else 0; compared in constant time. */
int otp_otpw_check(const char *img, const struct otp_otpw *w,
    const struct otp_otpw_chal *c, const char *resp);
/* 1 if c's entries are all unused in img, else 0. */
int otp_otpw_unused(const char *img, const struct otp_otpw *w,
    const struct otp_otpw_chal *c);
/* Overwrite c's entries with dashes in img, in place. */
void otp_otpw_mark(char *img, struct otp_otpw *w,
    const struct otp_otpw_chal *c);
/* A new list of n entries: pw gets the n passwords (8 characters each, in
 * number order), img the file image in random order; *imglen its length. */
int otp_otpw_generate(const char *prefix, size_t plen, unsigned n,
    otp_word_fn fn, void *arg, char *pw, size_t pwsz, char *img,
    size_t imgsz, size_t *imglen);
/* The printed list for n passwords pw as otpw-gen lays it out: header
 * "OTPW list generated WHEN on HOST", columns, CRLF, pages; its length. */
int otp_otpw_list(const char *pw, unsigned n, const char *when,
    const char *host, char *out, size_t outsz);

#endif /* OTP_OTPW_H */

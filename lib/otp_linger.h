/*
 * otp_linger.h - linger=N (lib/linger.c): an accepted answer taken again
 * from the same user and client for a sliding while, kept as a salted
 * MAC, never as the answer.  Conventions as in otp.h.
 */
#ifndef OTP_LINGER_H
#define OTP_LINGER_H

#include <stddef.h>
#include <stdint.h>

#define OTP_LINGER_MAX		14400	/* longest linger=, seconds */
#define OTP_LINGER_RECORDS	4	/* records a token keeps */
#define OTP_LINGER_SALTLEN	16
#define OTP_LINGER_MACLEN	32	/* HMAC-SHA256 */
/* "EXPIRY SALTHEX MACHEX" and its NUL. */
#define OTP_LINGER_TEXTMAX	(20 + 1 + 2 * OTP_LINGER_SALTLEN + 1 + \
	2 * OTP_LINGER_MACLEN + 1)

/* One lingering answer. */
struct otp_linger {
	int64_t	expiry;			/* seconds since the epoch */
	uint8_t	salt[OTP_LINGER_SALTLEN];
	uint8_t	mac[OTP_LINGER_MACLEN];
};

/* What a record binds besides the answer: the user, the client (the
 * host's PAM_RHOST), the token's secret where the store has it (key
 * NULL, keylen 0: none) and a text that is to end the record when it
 * changes (a users file line's PASSWORD field; NULL: none). */
struct otp_linger_who {
	const char	*user;
	const char	*client;
	const uint8_t	*key;
	size_t		 keylen;
	const char	*bind;
};

/* 1 when w names a user and a client (neither NULL nor ""): linger
 * applies; else 0. */
int otp_linger_applies(const struct otp_linger_who *w);
/* r for answer (the whole text the host gave), of which the first rest
 * bytes are handed on (a password, a PIN), salted with salt, until
 * expiry. */
void otp_linger_make(struct otp_linger *r,
    const uint8_t salt[OTP_LINGER_SALTLEN], const struct otp_linger_who *w,
    const char *answer, size_t rest, int64_t expiry);
/* The index of the record of recs[0..n) live at now that answer matches
 * with *rest of it handed on (the split it was made with), or -1; every
 * record is computed and compared in constant time. */
int otp_linger_find(const struct otp_linger *recs, size_t n,
    const struct otp_linger_who *w, const char *answer, int64_t now,
    size_t *rest);
/* Add r to recs[0..*n) (room for OTP_LINGER_RECORDS): records expired at
 * now go first, then, when full, the one that expires first. */
void otp_linger_add(struct otp_linger *recs, size_t *n,
    const struct otp_linger *r, int64_t now);
/* Drop the records of recs[0..*n) expired at now: 1 when one went. */
int otp_linger_prune(struct otp_linger *recs, size_t *n, int64_t now);
/* A login's look: the record otp_linger_find() gives, slid to now +
 * secs, the records expired at now dropped; its index, or -1 (recs left
 * as they were); *changed is 1 when the records are to be written. */
int otp_linger_take(struct otp_linger *recs, size_t *n,
    const struct otp_linger_who *w, const char *answer, int64_t now,
    unsigned secs, size_t *rest, int *changed);
/* A login's accept: a record of answer (rest bytes handed on) made with
 * salt until now + secs, added to recs[0..*n) as otp_linger_add(). */
void otp_linger_put(struct otp_linger *recs, size_t *n,
    const uint8_t salt[OTP_LINGER_SALTLEN], const struct otp_linger_who *w,
    const char *answer, size_t rest, int64_t now, unsigned secs);
/* r as text "EXPIRY SALTHEX MACHEX" into out (outsz >=
 * OTP_LINGER_TEXTMAX); its length. */
size_t otp_linger_format(const struct otp_linger *r, char *out,
    size_t outsz);
/* Read text[0..len) as otp_linger_format writes it; OTP_EINVAL when it
 * is not one. */
int otp_linger_parse(const char *text, size_t len, struct otp_linger *r);

/* The file form the stores without option lines keep (a users file's
 * tally, an OTPW list's PATH.linger): one "LINGER " OTP_LINGER_LINE line
 * a record.  Most bytes recs[0..n) take as lines. */
#define OTP_LINGER_LINE		"LINGER "
#define OTP_LINGER_LINESMAX	(OTP_LINGER_RECORDS * \
	(sizeof(OTP_LINGER_LINE) + OTP_LINGER_TEXTMAX))
/* recs[0..n) as lines into out (outsz >= OTP_LINGER_LINESMAX); their
 * length. */
size_t otp_linger_lines(const struct otp_linger *recs, size_t n, char *out,
    size_t outsz);
/* The records of the LINGER lines of text[0..len), other lines skipped
 * (and one that does not read), into recs[0..*n) (at most
 * OTP_LINGER_RECORDS). */
void otp_linger_lines_parse(const char *text, size_t len,
    struct otp_linger *recs, size_t *n);

/* A file of records kept apart from its token (an OTPW list's
 * PATH.linger) starts with the line "BIND " and the hex of a SHA-256
 * over a label and the token's image as the records' last accept left
 * it: a file whose first line is not the image's now holds no record.
 * The line for img[0..len) into out (outsz >= OTP_LINGER_BINDMAX), '\n'
 * and NUL after it; its length, the NUL not counted. */
#define OTP_LINGER_BIND		"BIND "
#define OTP_LINGER_BINDMAX	(sizeof(OTP_LINGER_BIND) + 64 + 1)
size_t otp_linger_bind_line(const char *img, size_t len, char *out,
    size_t outsz);

#endif /* OTP_LINGER_H */

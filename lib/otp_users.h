/*
 * otp_users.h - the OATH Toolkit users-file engine (lib/users.c).
 * Conventions as in otp.h.
 */
#ifndef OTP_USERS_H
#define OTP_USERS_H

#include <stddef.h>
#include <stdint.h>

#include "otp_uri.h"

/* The format is man/otp-users.5's: one token a line, TYPE USER PASSWORD
 * KEY [COUNTER [LASTOTP [LASTTIME]]].  The engine works on a file image
 * in memory, a clock and a zone; lib/sys/usersfile.c adds files and locks. */

#define OTP_USERS_MAX		(16u << 20)	/* largest users file */
#define OTP_USERS_FIELD_MAX	256	/* user, PIN, last code, with NUL */
#define OTP_USERS_LINE_MAX	2048	/* room for one rebuilt line */
#define OTP_USERS_WINDOW	5	/* default HOTP/TOTP window */
#define OTP_USERS_MOTP_WINDOW	18	/* mOTP: +-18 ticks of 10 s */

enum otp_users_kind {
	OTP_USERS_HOTP,		/* HOTP, HOTP/E[/D] */
	OTP_USERS_TOTP,		/* HOTP/T30[/D], HOTP/T60[/D] */
	OTP_USERS_MOTP,		/* MOTP: ours, Mobile-OTP */
};

/* One token line. */
struct otp_users_token {
	enum otp_users_kind kind;
	unsigned	digits;		/* 6..8 (mOTP: 6 hex) */
	unsigned	period;		/* TOTP 30 or 60, mOTP 10, HOTP 0 */
	char		type[16];	/* TYPE as written, "" to spell it */
	char		user[OTP_USERS_FIELD_MAX];
	char		password[OTP_USERS_FIELD_MAX];	/* "-", "+" or a PIN */
	struct otp_key	key;		/* mOTP: the init-secret's text */
	uint64_t	counter;	/* COUNTER, 0 when absent */
	char		lastotp[OTP_USERS_FIELD_MAX];	/* "" when absent */
	char		lasttime[32];	/* "" when absent */
};

/* Why a check was refused. */
enum otp_users_why {
	OTP_USERS_WHY_NONE,
	OTP_USERS_WHY_UNKNOWN,	/* no token line for the user */
	OTP_USERS_WHY_PASSWORD,	/* the typed prefix is not the PASSWORD */
	OTP_USERS_WHY_WRONG,	/* no token takes the code */
	OTP_USERS_WHY_REPLAYED,	/* the last code again, or an older one */
	OTP_USERS_WHY_LOCKED,	/* too many wrong codes: not checked */
};

struct otp_users_result {
	int		accepted;
	enum otp_users_why why;
	size_t		line;		/* 1-based: the token's, or the fault's */
	enum otp_users_kind kind;
	int64_t		offset;		/* steps (ticks) from now; HOTP:
					 * matched counter - the next one
					 * (COUNTER, COUNTER + 1 once used) */
	uint64_t	counter;	/* COUNTER written */
	int		lingered;	/* the file's store: accepted as an
					 * answer lingering (linger=), no
					 * code checked */
};

/* Parse one line (no newline): 1 and *t for a token line, 0 for a line
 * kept as it is (comment, blank, unknown TYPE), else OTP_EUSERS*. */
int otp_users_line_parse(const char *line, size_t len,
    struct otp_users_token *t);
/* Format *t as a TAB-joined line with '\n' (TYPE spelt from kind, digits
 * and period when t->type is ""); its length, OTP_EUSERSFIELD, OTP_ENOSPACE. */
int otp_users_line_format(const struct otp_users_token *t, char *out,
    size_t outsz);
/* Short text for a refusal reason; never NULL. */
const char *otp_users_why_text(enum otp_users_why why);
/* 1 if user has a token line in img[0..len), else 0 (OTP_E* for a bad
 * image). */
int otp_users_has_user(const char *img, size_t len, const char *user);
/* fn for each token line of img[0..len) in order, with its user (ulen
 * bytes, not NUL-terminated) and kind, until fn returns non-zero (then
 * returned); OTP_E* for a bad image. */
typedef int otp_users_each_fn(void *arg, const char *user, size_t ulen,
    enum otp_users_kind kind);
int otp_users_each(const char *img, size_t len, otp_users_each_fn *fn,
    void *arg);
/* fn for each of user's token lines in img[0..len) (whole lines) that a
 * check looks at, parsed into *t (one that does not parse is passed
 * over: it takes no code either), until fn returns non-zero (then
 * returned); 0, or OTP_E* for a bad image. */
typedef int otp_users_token_fn(void *arg, const struct otp_users_token *t);
int otp_users_each_token(const char *img, size_t len, const char *user,
    otp_users_token_fn *fn, void *arg);
/* Check code for user with the typed prefix password at now ("" none), as
 * pam_oath decides; accepted: out (outsz >= len + OTP_USERS_LINE_MAX)
 * gets the edited image, LASTTIME in zone's local time; else *outlen 0. */
int otp_users_check(const char *img, size_t len, const char *user,
    const char *password, const char *code, int64_t now,
    const struct otp_zone *zone, unsigned window,
    struct otp_users_result *r, char *out, size_t outsz, size_t *outlen);
/* Where a check over a file read in pieces stands (otp_users_scan). */
struct otp_users_scan {
	size_t		lineno;		/* lines in the pieces before */
	size_t		skipped;	/* the user's lines that took no code */
	int		bad_password;	/* the last of them: a wrong PASSWORD */
	int		done;		/* decided: the result is final */
	size_t		start, next;	/* accepted: piece[start, next) is the
					 * line that becomes line[0..linelen) */
	size_t		linelen;
	char		line[OTP_USERS_LINE_MAX];
};
/* otp_users_check over piece[0..len), the next of a file's pieces in
 * order, each whole lines (the last may lack its '\n'); s zeroed before
 * the first.  0, with s->done once decided, or OTP_E* (r->line the
 * fault's, counted over every piece). */
int otp_users_scan(struct otp_users_scan *s, const char *piece, size_t len,
    const char *user, const char *password, const char *code, int64_t now,
    const struct otp_zone *zone, unsigned window,
    struct otp_users_result *r);
/* After the last piece: an undecided scan's refusal into r. */
void otp_users_scan_end(struct otp_users_scan *s, struct otp_users_result *r);
/* Put t's line in img: appended, or with replace in place of the user's
 * token lines (OTP_EUSERSEXIST without replace); a t->password of "" keeps
 * the PASSWORD of the user's first line ("-" for a new user); out as
 * otp_users_check. */
int otp_users_set(const char *img, size_t len,
    const struct otp_users_token *t, int replace, char *out, size_t outsz,
    size_t *outlen);

/* What a token line cannot carry of an otpauth account (the OATH
 * Toolkit's types are HOTP and TOTP of 30 or 60 seconds, SHA1, 6-8 digits,
 * and a line has no issuer). */
#define OTP_USERS_NO_STEAM	0x01	/* Steam Guard's codes */
#define OTP_USERS_NO_ALG	0x02	/* an algorithm other than SHA1 */
#define OTP_USERS_NO_DIGITS	0x04	/* digits other than 6, 7, 8 */
#define OTP_USERS_NO_PERIOD	0x08	/* a period other than 30 or 60 */
#define OTP_USERS_NO_ISSUER	0x10	/* an issuer */
#define OTP_USERS_NO_USER	0x20	/* an account that is no user name:
					 * empty, white space, a control
					 * character, 256 bytes or more */
#define OTP_USERS_NO_EXTRA	0x40	/* unknown URI parameters */
#define OTP_USERS_PAM_OATH_KEY	32	/* the longest key pam_oath reads */

/* The token line of account u, user its account, PASSWORD "-", into *t:
 * 0, or the OTP_USERS_NO_* bits of what it cannot carry (*t zeroed), but
 * for those of drop (NO_ISSUER, NO_EXTRA only), which are left out. */
unsigned otp_users_from_uri(const struct otp_uri *u, unsigned drop,
    struct otp_users_token *t);
/* The otpauth account of HOTP or TOTP token t into *u: the user as the
 * account, no issuer, the counter the one pam_oath takes next (COUNTER,
 * one more when LASTOTP is COUNTER's code); OTP_EINVAL for MOTP. */
int otp_users_to_uri(const struct otp_users_token *t, struct otp_uri *u);
/* For a line that otp_users_line_parse() keeps as it is: 0 for a blank
 * line or a comment (first field starting with '#'), else 1 (a token of a
 * type we do not know) with its first two fields, cut to fit, in type and
 * user ("" when absent). */
int otp_users_line_other(const char *line, size_t len, char *type,
    size_t typesz, char *user, size_t usersz);

/* The first token line of user in the file image img into *t: 1, 0 when
 * the user has none, or OTP_E*. */
int otp_users_get(const char *img, size_t len, const char *user,
    struct otp_users_token *t);
struct otp_state;
/* A token as a state file image (HOTP, or TOTP of 30 or 60 s, 6 to 8
 * digits, a PIN of at most OTP_STATE_PIN_MAX bytes: else OTP_ECONVERT)
 * that answers as pam_oath with window= (0..OTP_USERS_STATE_WINDOW_MAX,
 * else OTP_ERANGE): HOTP_COUNTER the counter pam_oath takes next
 * (0, a line never used, with a HOTP_ZERO line), WINDOW_SIZE window
 * (HOTP, at least 1) or 2 window + 1 (TOTP); other digits than 6 and a
 * PIN are otp-utils' own DIGITS and PIN lines. */
#define OTP_USERS_STATE_WINDOW_MAX	49	/* 2 * 49 + 1: WINDOW_SIZE's
						 * largest */
int otp_users_to_state(const struct otp_users_token *t, unsigned window,
    char *out, size_t outsz, size_t *outlen);
/* A state file image as user's token (HOTP, or TOTP of 30 or 60 s, SHA1:
 * else OTP_ECONVERT), with its DIGITS and PIN; st is room for the
 * parse. */
int otp_users_from_state(const char *img, size_t len, const char *user,
    struct otp_state *st, struct otp_users_token *t);

#endif /* OTP_USERS_H */

/*
 * otp_state.h - the Google Authenticator state-file engine (lib/state.c).
 * Conventions as in otp.h.
 */
#ifndef OTP_STATE_H
#define OTP_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "otp.h"
#include "otp_linger.h"

/* The format is man/otp-state.5's.  The engine works on a file image in
 * memory and a clock; lib/sys/statefile.c adds the files, locks and the
 * clock. */

#define OTP_STATE_MAX		65536	/* largest state file, bytes */
#define OTP_STATE_OUTMAX	(2 * OTP_STATE_MAX)	/* out buffer for check */
#define OTP_STATE_SCRATCH_MAX	7300	/* scratch codes a 64 KiB file holds */
#define OTP_STATE_PERM		0600	/* default allowed_perm */
#define OTP_STATE_PIN_MAX	64	/* longest PIN line value, bytes */

/* The option ranges google-authenticator(1) writes: WINDOW_SIZE codes,
 * STEP_SIZE seconds, RATE_LIMIT tries per seconds. */
#define OTP_STATE_WINDOW_MIN	1
#define OTP_STATE_WINDOW_MAX	21
#define OTP_STATE_STEP_MIN	1
#define OTP_STATE_STEP_MAX	60
#define OTP_STATE_RATE_MIN	1
#define OTP_STATE_RATE_MAX	10
#define OTP_STATE_RATE_SECS_MIN	15
#define OTP_STATE_RATE_SECS_MAX	600

enum otp_state_mode {
	OTP_STATE_SCRATCHONLY,	/* neither TOTP_AUTH nor HOTP_COUNTER */
	OTP_STATE_TOTP,
	OTP_STATE_HOTP,
};

/* A parsed state file (for display and tests; checking uses the image). */
struct otp_state {
	struct otp_key		key;
	enum otp_state_mode	mode;
	unsigned	window;		/* WINDOW_SIZE, 3 when absent */
	unsigned	step;		/* STEP_SIZE seconds, 30 when absent */
	unsigned	rate_n;		/* RATE_LIMIT tries, 0 when absent */
	unsigned	rate_secs;	/* RATE_LIMIT interval seconds */
	int		disallow_reuse;
	uint64_t	hotp_counter;	/* HOTP_COUNTER (HOTP mode) */
	int64_t		skew;		/* TIME_SKEW in steps, 0 when absent */
	unsigned	digits;		/* DIGITS 6..8, 6 when absent */
	enum otp_alg	alg;		/* ALGORITHM, SHA1 when absent */
	char		pin[OTP_STATE_PIN_MAX + 1];	/* PIN, "" none */
	size_t		nscratch;
	uint32_t	scratch[OTP_STATE_SCRATCH_MAX];
};

/* Bits of otp_state_opts.flags. */
#define OTP_STATE_NOSKEWADJ	0x01	/* no skew learning (noskewadj) */
#define OTP_STATE_NOINCRHOTP	0x02	/* no HOTP counter move on a miss:
					 * RFC 4226 §7.2, which the
					 * database store always sets */
#define OTP_STATE_NOSTRICTOWNER	0x04	/* skip the owner check */
#define OTP_STATE_ALLOWRO	0x08	/* accept even if not recorded */
#define OTP_STATE_UID_SELF	((unsigned long)-1)	/* the effective uid */

struct otp_state_opts {
	unsigned	flags;		/* OTP_STATE_* above */
	unsigned	allowed_perm;	/* mode bits allowed, 0600 default */
	unsigned long	uid;		/* expected owner, OTP_STATE_UID_SELF */
	uint64_t	grace_period;	/* seconds, 0 off (needs rhost) */
	const char	*rhost;		/* PAM_RHOST for grace_period and
					 * linger, or NULL */
	unsigned	linger;		/* seconds an accepted answer is
					 * taken again from rhost, 0 off
					 * (OTP_LOGIN_LINGER) */
	const char	*user;		/* the login's user, for linger */
	uint8_t		linger_salt[OTP_LINGER_SALTLEN];	/* fresh
					 * random bytes for a new record */
};

/* How a check ended (otp_state_result.how). */
enum otp_state_how {
	OTP_STATE_REFUSED,
	OTP_STATE_BYCODE,	/* TOTP/HOTP code */
	OTP_STATE_BYSCRATCH,	/* emergency scratch code, now deleted */
	OTP_STATE_BYGRACE,	/* grace period for rhost, no code checked */
	OTP_STATE_BYLINGER,	/* an answer lingering for rhost, no code
				 * checked */
};

/* Why a check was refused (otp_state_result.why). */
enum otp_state_why {
	OTP_STATE_WHY_NONE,
	OTP_STATE_WHY_WRONG,	/* no match in the window */
	OTP_STATE_WHY_SHAPE,	/* not 6 digits nor an 8-digit scratch code */
	OTP_STATE_WHY_REUSED,	/* DISALLOW_REUSE: step already used */
	OTP_STATE_WHY_RATELIMIT,	/* RATE_LIMIT exceeded */
	OTP_STATE_WHY_SKEW,	/* skew being learned: send more codes */
	OTP_STATE_WHY_NOCODE,	/* scratch-only file, no such scratch code */
};

struct otp_state_result {
	int			accepted;	/* 1 accepted, 0 refused */
	enum otp_state_how	how;
	enum otp_state_why	why;
	int64_t		offset;		/* TOTP: matched step - (now step +
					 * skew); HOTP: matched - stored */
	uint64_t	counter;	/* matched time step or HOTP counter */
	int64_t		skew;		/* TIME_SKEW in force afterwards */
	int		changed;	/* the image was changed */
	int		recorded;	/* statefile: the change was written */
	int		hotp_miss;	/* a 6-digit code missed the HOTP
					 * counters (moved unless NOINCRHOTP) */
	size_t		answer;		/* the answer of the last reading */
	size_t		restlen;	/* its length before the code: the
					 * password of a forward_pass answer */
};

/* How an answer of a login is read into codes. */
enum otp_answer_kind {
	OTP_ANSWER_CODE,	/* the whole text is the code */
	OTP_ANSWER_BARE,	/* 6 digits, or an 8-digit scratch code */
	OTP_ANSWER_SPLIT,	/* a password, then a code: its last 6, its
				 * last 8 characters */
};

struct otp_answer {
	const char		*text;
	enum otp_answer_kind	 kind;
};

/* The phases of otp_state_login. */
#define OTP_LOGIN_OPEN		0x1	/* start: grace period, RATE_LIMIT */
#define OTP_LOGIN_SETTLE	0x2	/* end: a missed HOTP counter moves */
/* linger (o->linger, o->rhost and o->user set): the answers are looked
 * up among the LINGER records first, and one found is accepted before
 * the grace period and RATE_LIMIT; an accept by a code or a scratch code
 * adds a record.  Without OPEN, RATE_LIMIT is taken here, after the look:
 * the login's start was GRACE, so that a lingering answer is no attempt. */
#define OTP_LOGIN_LINGER	0x4
#define OTP_LOGIN_GRACE		0x8	/* start: the grace period only */

/* Defaults: no flags, allowed_perm 0600, uid OTP_STATE_UID_SELF, no
 * grace, no linger. */
void otp_state_opts_init(struct otp_state_opts *o);
/* Short text for a refusal reason; never NULL. */
const char *otp_state_why_text(enum otp_state_why why);
/* 0 if code is 6 digits or an 8-digit scratch code (10000000..99999999),
 * else OTP_ECODE; the engine refuses other shapes like the original. */
int otp_state_code_shape(const char *code);
/* Parse a file image of len bytes (1..OTP_STATE_MAX, no NUL) into st;
 * OTP_ESTATE* on a malformed file. */
int otp_state_parse(const char *img, size_t len, struct otp_state *st);
/* Where otp_state_parse() fails: *line (1: the secret) and *opt, the
 * option at fault or NULL; returns its error, or 0 for a good image. */
int otp_state_fault(const char *img, size_t len, size_t *line,
    const char **opt);
/* 1 when o asks for linger and names a user and a client: then a login
 * is GRACE at its start, LINGER at its end, LINGER with OPEN in one go. */
int otp_state_lingers(const struct otp_state_opts *o);
/* One login (phases OPEN, answers, SETTLE) over img at now: out (outsz >=
 * OTP_STATE_OUTMAX) gets the new image, r the outcome; refusals return 0. */
int otp_state_login(const char *img, size_t len, unsigned phases,
    const struct otp_answer *ans, size_t nans, int64_t now,
    const struct otp_state_opts *o, struct otp_state_result *r, char *out,
    size_t outsz, size_t *outlen);
/* A whole login with the one answer code (OTP_ANSWER_CODE). */
int otp_state_check(const char *img, size_t len, const char *code,
    int64_t now, const struct otp_state_opts *o, struct otp_state_result *r,
    char *out, size_t outsz, size_t *outlen);

/* Parameters of a new file; zero fields are omitted as the original
 * command omits them.  Ranges as google-authenticator(1): window 1..21,
 * step 1..60, rate_n 1..10 per rate_secs 15..600, TOTP or HOTP only,
 * no disallow_reuse with HOTP, scratch codes 10000000..99999999. */
struct otp_state_new {
	enum otp_state_mode	mode;		/* OTP_STATE_TOTP or _HOTP */
	unsigned	window;		/* WINDOW_SIZE, 0 none */
	unsigned	step;		/* STEP_SIZE, 0 none */
	unsigned	rate_n;		/* RATE_LIMIT, 0 none */
	unsigned	rate_secs;
	int		disallow_reuse;
	/* otp-utils' own lines, which only the database store writes:
	 * the original module reads none of them. */
	unsigned	digits;		/* DIGITS 7 or 8; 0 or 6: none */
	enum otp_alg	alg;		/* ALGORITHM unless SHA1 */
	const char	*pin;		/* PIN, NULL or "" none */
	const uint32_t	*scratch;
	size_t		nscratch;	/* 0..OTP_STATE_SCRATCH_MAX */
};

/* 1 when pin is a PIN line's value: 1..OTP_STATE_PIN_MAX bytes, none a
 * blank or a control byte. */
int otp_state_pin_ok(const char *pin);

/* Build a new file image (Base32 secret, option lines in the original's
 * order, scratch codes) for key into out; *outlen gets its length. */
int otp_state_build(const uint8_t *key, size_t keylen,
    const struct otp_state_new *n, char *out, size_t outsz, size_t *outlen);

/* For a store that keeps the scratch codes apart (as keyed hashes):
 * img without its scratch-code lines into out (outsz >= len), the codes
 * into codes[0..*n) (at most maxcodes, else OTP_ESTATESIZE). */
int otp_state_unscratch(const char *img, size_t len, char *out, size_t outsz,
    size_t *outlen, uint32_t *codes, size_t maxcodes, size_t *n);
/* Add the scratch code line for code to img[0..*len) (cap bytes), after
 * the secret's line. */
int otp_state_add_scratch(char *img, size_t *len, size_t cap, uint32_t code);
/* Delete every option line `" key` of img[0..*len), in place. */
int otp_state_del_option(char *img, size_t *len, const char *key);
/* Set the option line `" key val` in img[0..*len) (cap bytes) as the
 * module sets one: the first such line replaced, or one added after the
 * secret. */
int otp_state_set_option(char *img, size_t *len, size_t cap, const char *key,
    const char *val);

/* An administrator's resync from codes[0..n) (2 or 3 in a row): TOTP
 * within a day of steps either side of now, TIME_SKEW set to put the last
 * code's step at now and the steps recorded under DISALLOW_REUSE; HOTP
 * within OTP_STATE_RESYNC_HOTP counters either side of HOTP_COUNTER, which
 * moves past the last code.  out (outsz >= len + 4096) gets the new image,
 * *moved the new TIME_SKEW or how far HOTP_COUNTER moved (< 0: back);
 * OTP_ERESYNC when the run is found nowhere or in more than one place. */
#define OTP_STATE_RESYNC_HOTP	10000
int otp_state_resync(const char *img, size_t len, const char *const *codes,
    size_t n, int64_t now, char *out, size_t outsz, size_t *outlen,
    int64_t *moved);

#endif /* OTP_STATE_H */

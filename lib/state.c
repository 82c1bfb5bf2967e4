/*
 * state.c - the Google Authenticator state file (~/.google_authenticator)
 * as a pure engine: parse an image, check a code at a given time, and
 * edit the image the way pam_google_authenticator.so edits it, line by
 * line, so both leave byte-identical files; and one login (its start,
 * the readings of its answers, its end) over an image.  No I/O here: the
 * files, locks and clock are lib/sys/statefile.c's.
 *
 * The format and the rules are in man/otp-state.5.  Codes are HOTP (RFC
 * 4226) over HMAC-SHA1, 6 digits; TOTP (RFC 6238) steps are floor(now /
 * STEP_SIZE).  otp-utils' own lines DIGITS, ALGORITHM, PIN and HOTP_ZERO
 * (which the database store writes, the original module never) change the
 * first two, put a PIN before every code and make HOTP_COUNTER 0 a
 * counter.
 */
#include <stdio.h>
#include <string.h>

#include "otp.h"
#include "otp_state.h"

#define WINDOW_DEF	3
#define STEP_DEF	30
#define SKEW_RANGE	1500	/* skew learning looks +-1499 steps around */
#define SKEW_MAX	1000000	/* largest TIME_SKEW we accept, in steps */
#define RESYNC_N	3	/* codes that establish a new TIME_SKEW */
#define LAST_N		10	/* LAST0..LAST9 grace records */
#define HOST_MAX	255	/* longest rhost recorded (RFC 1035 name) */
#define RATE_MAX	100	/* RATE_LIMIT tries, as the module allows */
#define LINE_MAX_	2048	/* one option line we compose */
#define LINGER_KEY	"LINGER"	/* otp-utils' own: a lingering answer */
#define CODE_MAX	(OTP_STATE_PIN_MAX + 8)	/* a PIN, then a code */

/* The image being edited: p[0..len) within cap bytes, no NUL inside;
 * p[0..high) is all that was ever written. */
struct img {
	char	*p;
	size_t	 len;
	size_t	 cap;
	size_t	 high;
	int	 dirty;		/* edited: the module would write it */
};

/* Position of one option line: `" KEY value` then a run of CR/LF. */
struct optpos {
	size_t	start;		/* the '"' */
	size_t	vstart;		/* value, after blanks */
	size_t	vend;		/* end of the line's text */
	size_t	stop;		/* after the CR/LF run */
};

/* Settings of a file, validated before anything is decided. */
struct cfg {
	struct otp_key	key;
	enum otp_state_mode mode;
	unsigned	window;
	unsigned	step;
	int		rate;		/* RATE_LIMIT present */
	unsigned	rate_n;
	unsigned	rate_secs;
	int		reuse;		/* DISALLOW_REUSE present */
	uint64_t	counter;
	int64_t		skew;
	unsigned	digits;		/* DIGITS, 6 when absent */
	enum otp_alg	alg;		/* ALGORITHM, SHA1 when absent */
	size_t		pin_at;		/* PIN: its offset in the image */
	size_t		pin_len;	/* ...and length, 0 for none */
	int		zero;		/* HOTP_ZERO: counter 0 is a code */
	size_t		fault;		/* scan's error: its offset... */
	const char	*fault_opt;	/* ...and option, NULL for line 1 */
};

static int
is_eol(char c)
{
	return c == '\r' || c == '\n';
}

static int
is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static int
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Start of the next line: past this line's text and the CR/LF run after
 * it (blank lines included), as the module walks the file. */
static size_t
next_line(const char *p, size_t len, size_t pos)
{
	while (pos < len && !is_eol(p[pos]))
		pos++;
	while (pos < len && is_eol(p[pos]))
		pos++;
	return pos;
}

/* 1 when the line at pos is `" KEY` followed by a blank, CR/LF or the end
 * (so " LAST1" never matches " LAST10" and TOTP_AUTHX is no TOTP_AUTH). */
static int
opt_at(const char *p, size_t len, size_t pos, const char *key)
{
	size_t klen = strlen(key), e;

	if (len - pos < 2 + klen || p[pos] != '"' || p[pos + 1] != ' ' ||
	    memcmp(p + pos + 2, key, klen) != 0)
		return 0;
	e = pos + 2 + klen;
	return e == len || is_blank(p[e]) || is_eol(p[e]);
}

/* Find the first line setting key at or after from. */
static int
opt_find(const char *p, size_t len, size_t from, const char *key,
    struct optpos *o)
{
	size_t pos, e;

	for (pos = from; pos < len; pos = next_line(p, len, pos)) {
		if (!opt_at(p, len, pos, key))
			continue;
		o->start = pos;
		e = pos + 2 + strlen(key);
		while (e < len && is_blank(p[e]))
			e++;
		o->vstart = e;
		while (e < len && !is_eol(p[e]))
			e++;
		o->vend = e;
		while (e < len && is_eol(p[e]))
			e++;
		o->stop = e;
		return 1;
	}
	return 0;
}

/* im over out (outsz bytes), a copy of img[0..len) to edit. */
static void
img_copy(struct img *im, const char *img, size_t len, char *out,
    size_t outsz)
{
	memcpy(out, img, len);
	im->p = out;
	im->len = len;
	im->cap = outsz;
	im->high = len;
	im->dirty = 0;
}

/* Replace del bytes at at by n bytes of ins; the freed tail is zeroed
 * because the image holds the secret. */
static int
splice(struct img *im, size_t at, size_t del, const char *ins, size_t n)
{
	size_t newlen = im->len - del + n;

	if (newlen > im->cap)
		return OTP_ESTATESIZE;
	memmove(im->p + at + n, im->p + at + del, im->len - at - del);
	if (n > 0)
		memcpy(im->p + at, ins, n);
	if (newlen < im->len)
		otp_wipe(im->p + newlen, im->len - newlen);
	if (newlen > im->high)
		im->high = newlen;
	im->len = newlen;
	im->dirty = 1;
	return 0;
}

/* Delete every line setting key at or after from. */
static int
opt_delete_from(struct img *im, size_t from, const char *key)
{
	size_t pos = from;
	int r;

	while (pos < im->len) {
		if (opt_at(im->p, im->len, pos, key)) {
			r = splice(im, pos, next_line(im->p, im->len, pos) - pos,
			    NULL, 0);
			if (r < 0)
				return r;
		} else
			pos = next_line(im->p, im->len, pos);
	}
	return 0;
}

/* Where the module inserts a missing option: after line 1 and its CR/LF
 * run.  A file that is only a secret without a newline gets one first;
 * the module would glue the option onto the secret and break the file. */
static int
insert_point(struct img *im, size_t *at)
{
	size_t pos = next_line(im->p, im->len, 0);
	int r;

	if (pos == im->len && (im->len == 0 || !is_eol(im->p[im->len - 1]))) {
		if ((r = splice(im, im->len, 0, "\n", 1)) < 0)
			return r;
		pos = im->len;
	}
	*at = pos;
	return 0;
}

/* Set `" KEY VAL` as the module does: replace the first such line (and
 * the CR/LF run after it) by the new line ending in LF, or insert it after
 * line 1; then drop later duplicates.  An empty val leaves `" KEY ` with
 * its trailing blank, as the module writes it. */
static int
opt_set(struct img *im, const char *key, const char *val, size_t vlen)
{
	char line[LINE_MAX_];
	struct optpos o;
	size_t klen = strlen(key), n, at, del;
	int r;

	n = 2 + klen + 1 + vlen + 1;
	if (n > sizeof(line))
		return OTP_ESTATESIZE;
	line[0] = '"';
	line[1] = ' ';
	memcpy(line + 2, key, klen);
	line[2 + klen] = ' ';
	memcpy(line + 3 + klen, val, vlen);
	line[n - 1] = '\n';
	if (opt_find(im->p, im->len, 0, key, &o)) {
		at = o.start;
		del = o.stop - o.start;
	} else {
		if ((r = insert_point(im, &at)) < 0)
			return r;
		del = 0;
	}
	if ((r = splice(im, at, del, line, n)) < 0)
		return r;
	return opt_delete_from(im, at + n, key);
}

/* A decimal of digits only at p[*pos..end), at most max. */
static int
get_uint(const char *p, size_t end, size_t *pos, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;
	size_t i = *pos;

	if (i >= end || !is_digit(p[i]))
		return OTP_ESTATEOPT;
	for (; i < end && is_digit(p[i]); i++) {
		unsigned d = (unsigned)(p[i] - '0');

		if (d > max || x > (max - d) / 10)
			return OTP_ESTATEOPT;
		x = x * 10 + d;
	}
	*pos = i;
	*v = x;
	return 0;
}

static size_t
skip_blanks(const char *p, size_t end, size_t pos)
{
	while (pos < end && is_blank(p[pos]))
		pos++;
	return pos;
}

/* A single number in min..max, trailing blanks allowed. */
static int
opt_uint(const char *p, const struct optpos *o, uint64_t min, uint64_t max,
    uint64_t *v)
{
	size_t pos = o->vstart;

	if (get_uint(p, o->vend, &pos, max, v) < 0 || *v < min ||
	    skip_blanks(p, o->vend, pos) != o->vend)
		return OTP_ESTATEOPT;
	return 0;
}

/* One word (no blank inside, trailing blanks allowed) of 1..max bytes:
 * its length. */
static int
opt_word(const char *p, const struct optpos *o, size_t max, size_t *n)
{
	size_t i = o->vstart, end = o->vend;

	while (end > i && is_blank(p[end - 1]))
		end--;
	if (end == i || end - i > max)
		return OTP_ESTATEOPT;
	for (; i < end; i++)
		if ((unsigned char)p[i] <= ' ' || p[i] == 0x7f)
			return OTP_ESTATEOPT;
	*n = end - o->vstart;
	return 0;
}

/* ALGORITHM: SHA1, SHA256 or SHA512. */
static int
opt_alg(const char *p, const struct optpos *o, enum otp_alg *alg)
{
	char name[8];
	size_t n;

	if (opt_word(p, o, sizeof(name) - 1, &n) < 0)
		return OTP_ESTATEOPT;
	memcpy(name, p + o->vstart, n);
	name[n] = '\0';
	return otp_alg_parse(name, alg) < 0 ? OTP_ESTATEOPT : 0;
}

/* Line 1, in the module's Base32 dialect: either case, blanks, a final
 * CR and '-' ignored, the look-alikes 0, 1 and 8 read as O, L and B, no padding;
 * leftover bits are dropped. */
static int
secret_decode(const char *p, size_t n, struct otp_key *k)
{
	uint32_t acc = 0;
	unsigned bits = 0;
	size_t i;

	k->len = 0;
	for (i = 0; i < n; i++) {
		char c = p[i];
		unsigned v;

		/* A CR ends line 1 for option edits, so only as its last
		 * byte (the module would insert options into the secret). */
		if (c == '\r' && i + 1 != n)
			goto bad;
		if (is_blank(c) || c == '\r' || c == '-')
			continue;
		if (c == '0')
			c = 'O';
		else if (c == '1')
			c = 'L';
		else if (c == '8')
			c = 'B';
		if (c >= 'A' && c <= 'Z')
			v = (unsigned)(c - 'A');
		else if (c >= 'a' && c <= 'z')
			v = (unsigned)(c - 'a');
		else if (c >= '2' && c <= '7')
			v = (unsigned)(c - '2') + 26;
		else
			goto bad;
		acc = ((acc << 5) | v) & 0xfff;
		bits += 5;
		if (bits >= 8) {
			if (k->len == sizeof(k->buf))
				goto bad;
			bits -= 8;
			k->buf[k->len++] = (uint8_t)(acc >> bits);
		}
	}
	otp_wipe(&acc, sizeof(acc));	/* a plain store would be dropped */
	if (k->len == 0)
		goto bad;
	return 0;
bad:
	otp_wipe(k, sizeof(*k));
	otp_wipe(&acc, sizeof(acc));
	return OTP_ESTATESECRET;
}

/* Validate a whole image and read its settings.  Stricter than the
 * module, which checks each option only when it needs it: a malformed
 * file is refused before anything is decided or written. */
static int
scan(const char *p, size_t len, struct cfg *c)
{
	struct optpos o;
	uint64_t v, w;
	size_t pos, l1;
	int r, neg;

	const char *what = NULL, *nul;

	memset(c, 0, sizeof(*c));
	if (len < 1 || len > OTP_STATE_MAX)
		return OTP_ESTATESIZE;
	if ((nul = memchr(p, '\0', len)) != NULL) {
		c->fault = (size_t)(nul - p);
		return OTP_ENUL;
	}
	for (l1 = 0; l1 < len && p[l1] != '\n'; l1++)
		continue;
	if ((r = secret_decode(p, l1, &c->key)) < 0)
		return r;

	c->window = WINDOW_DEF;
	if (opt_find(p, len, 0, what = "WINDOW_SIZE", &o)) {
		if (opt_uint(p, &o, 1, 100, &v) < 0)
			goto bad;
		c->window = (unsigned)v;
	}
	c->step = STEP_DEF;
	if (opt_find(p, len, 0, what = "STEP_SIZE", &o)) {
		if (opt_uint(p, &o, 1, 60, &v) < 0)
			goto bad;
		c->step = (unsigned)v;
	}
	if (opt_find(p, len, 0, what = "RATE_LIMIT", &o)) {
		/* N SECONDS, then the recorded attempt times. */
		pos = o.vstart;
		if (get_uint(p, o.vend, &pos, RATE_MAX, &v) < 0 || v < 1 ||
		    pos == o.vend || !is_blank(p[pos]))
			goto bad;
		pos = skip_blanks(p, o.vend, pos);
		if (get_uint(p, o.vend, &pos, 3600, &w) < 0 || w < 1)
			goto bad;
		c->rate = 1;
		c->rate_n = (unsigned)v;
		c->rate_secs = (unsigned)w;
		while (pos < o.vend) {
			if (!is_blank(p[pos]))
				goto bad;
			pos = skip_blanks(p, o.vend, pos);
			if (get_uint(p, o.vend, &pos, UINT32_MAX, &v) < 0)
				goto bad;
		}
	}
	if (opt_find(p, len, 0, what = "DISALLOW_REUSE", &o)) {
		c->reuse = 1;
		pos = skip_blanks(p, o.vend, o.vstart);
		while (pos < o.vend) {
			if (get_uint(p, o.vend, &pos, INT32_MAX, &v) < 0 ||
			    (pos < o.vend && !is_blank(p[pos])))
				goto bad;
			pos = skip_blanks(p, o.vend, pos);
		}
	}
	if (opt_find(p, len, 0, what = "HOTP_COUNTER", &o)) {
		if (opt_uint(p, &o, 0, INT64_MAX - 200, &v) < 0)
			goto bad;
		c->counter = v;
	}
	if (opt_find(p, len, 0, what = "TIME_SKEW", &o)) {
		pos = o.vstart;
		neg = pos < o.vend && p[pos] == '-';
		if (pos < o.vend && (p[pos] == '-' || p[pos] == '+'))
			pos++;
		if (get_uint(p, o.vend, &pos, SKEW_MAX, &v) < 0 ||
		    skip_blanks(p, o.vend, pos) != o.vend)
			goto bad;
		c->skew = neg ? -(int64_t)v : (int64_t)v;
	}
	c->digits = 6;
	if (opt_find(p, len, 0, what = "DIGITS", &o)) {
		if (opt_uint(p, &o, 6, 8, &v) < 0)
			goto bad;
		c->digits = (unsigned)v;
	}
	c->alg = OTP_ALG_SHA1;
	if (opt_find(p, len, 0, what = "ALGORITHM", &o) &&
	    opt_alg(p, &o, &c->alg) < 0)
		goto bad;
	if (opt_find(p, len, 0, what = "PIN", &o)) {
		if (opt_word(p, &o, OTP_STATE_PIN_MAX, &c->pin_len) < 0)
			goto bad;
		c->pin_at = o.vstart;
	}
	/* The module takes HOTP only for a counter of 1 or more; our own
	 * HOTP_ZERO line makes a counter of 0 the token's first code (RFC
	 * 4226 counters start at 0, google-authenticator's at 1). */
	c->zero = opt_find(p, len, 0, "HOTP_ZERO", &o) &&
	    opt_find(p, len, 0, "HOTP_COUNTER", &o);
	if (c->counter >= 1 || c->zero)
		c->mode = OTP_STATE_HOTP;
	else if (opt_find(p, len, 0, "TOTP_AUTH", &o))
		c->mode = OTP_STATE_TOTP;
	else
		c->mode = OTP_STATE_SCRATCHONLY;
	return 0;
bad:
	otp_wipe(&c->key, sizeof(c->key));
	c->fault = o.start;
	c->fault_opt = what;
	return OTP_ESTATEOPT;
}

/* Walk the scratch-code lines: after line 1, skipping `"` lines and blank
 * lines, up to the first line that is not exactly 8 digits 1xxxxxxx..
 * 9xxxxxxx.  fn gets each code's offset; a non-zero return stops. */
static size_t
scratch_next(const char *p, size_t len, size_t pos, size_t *code)
{
	size_t i;

	for (;;) {
		while (pos < len && is_eol(p[pos]))
			pos++;
		if (pos < len && p[pos] == '"') {
			while (pos < len && p[pos] != '\n')
				pos++;
			continue;
		}
		if (len - pos < 8 || p[pos] < '1' || p[pos] > '9')
			return len + 1;
		for (i = 1; i < 8; i++)
			if (!is_digit(p[pos + i]))
				return len + 1;
		if (pos + 8 < len && !is_eol(p[pos + 8]))
			return len + 1;
		*code = pos;
		return pos + 8;
	}
}

static size_t
scratch_start(const char *p, size_t len)
{
	size_t pos = 0;

	while (pos < len && p[pos] != '\n')
		pos++;
	return pos;
}

void
otp_state_opts_init(struct otp_state_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->allowed_perm = OTP_STATE_PERM;
	o->uid = OTP_STATE_UID_SELF;
}

const char *
otp_state_why_text(enum otp_state_why why)
{
	switch (why) {
	case OTP_STATE_WHY_NONE:
		return "accepted";
	case OTP_STATE_WHY_WRONG:
		return "wrong code";
	case OTP_STATE_WHY_SHAPE:
		return "not a 6-digit code or an 8-digit scratch code";
	case OTP_STATE_WHY_REUSED:
		return "code already used (DISALLOW_REUSE)";
	case OTP_STATE_WHY_RATELIMIT:
		return "too many attempts (RATE_LIMIT)";
	case OTP_STATE_WHY_SKEW:
		return "clock skew being learned: enter the next codes one "
		    "at a time, each from a new time step";
	case OTP_STATE_WHY_NOCODE:
		return "no such scratch code";
	}
	return "refused";
}

int
otp_state_code_shape(const char *code)
{
	size_t n = strlen(code), i;

	for (i = 0; i < n; i++)
		if (!is_digit(code[i]))
			return OTP_ECODE;
	if (n == 6 || (n == 8 && code[0] != '0'))
		return 0;
	return OTP_ECODE;
}

int
otp_state_parse(const char *img, size_t len, struct otp_state *st)
{
	struct cfg c;
	size_t pos, at;
	int r;

	memset(st, 0, sizeof(*st));
	if ((r = scan(img, len, &c)) < 0)
		return r;
	st->key = c.key;
	st->mode = c.mode;
	st->window = c.window;
	st->step = c.step;
	st->rate_n = c.rate ? c.rate_n : 0;
	st->rate_secs = c.rate ? c.rate_secs : 0;
	st->disallow_reuse = c.reuse;
	st->hotp_counter = c.counter;
	st->skew = c.skew;
	st->digits = c.digits;
	st->alg = c.alg;
	memcpy(st->pin, img + c.pin_at, c.pin_len);
	st->pin[c.pin_len] = '\0';
	pos = scratch_start(img, len);
	while ((pos = scratch_next(img, len, pos, &at)) <= len) {
		uint32_t v = 0;
		size_t i;

		if (st->nscratch == OTP_STATE_SCRATCH_MAX)
			break;
		for (i = 0; i < 8; i++)
			v = v * 10 + (uint32_t)(img[at + i] - '0');
		st->scratch[st->nscratch++] = v;
	}
	otp_wipe(&c, sizeof(c));
	return 0;
}

/* Where otp_state_parse() fails: the line of the fault (1 for the
 * secret) and the option at fault, so that a message can point at them
 * without quoting a byte of the file. */
int
otp_state_fault(const char *img, size_t len, size_t *line, const char **opt)
{
	struct cfg c;
	size_t i;
	int r;

	*line = 0;
	*opt = NULL;
	r = scan(img, len, &c);
	if (r < 0 && r != OTP_ESTATESIZE) {
		*line = 1;
		for (i = 0; i < c.fault && i < len; i++)
			*line += img[i] == '\n';
		*opt = c.fault_opt;
	}
	otp_wipe(&c, sizeof(c));
	return r < 0 ? r : 0;
}

/* ---- checking -------------------------------------------------------- */

/* Code of the file's digits for HOTP counter ctr (RFC 4226 §5.3,
 * §5.4). */
static uint32_t
code_at(struct otp_hmac *h, const struct cfg *c, uint64_t ctr)
{
	uint32_t mod = c->digits == 8 ? 100000000u : c->digits == 7 ?
	    10000000u : 1000000u;

	return otp_hotp_value(h, ctr) % mod;
}

/* A code of the file's digits, or an 8-digit scratch code. */
static int
code_shape(const struct cfg *c, const char *code)
{
	size_t n = strlen(code), i;

	for (i = 0; i < n; i++)
		if (!is_digit(code[i]))
			return OTP_ECODE;
	if (n == c->digits || (n == 8 && code[0] != '0'))
		return 0;
	return OTP_ECODE;
}

static int
ct_eq32(uint32_t a, uint32_t b)
{
	return otp_ct_equal(&a, &b, sizeof(a));
}

static size_t
fmt_i64(char *out, int64_t v, int plus)
{
	char tmp[24];
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	size_t n = 0, i = 0;

	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u != 0);
	if (v < 0)
		out[i++] = '-';
	else if (plus)
		out[i++] = '+';
	while (n > 0)
		out[i++] = tmp[--n];
	return i;
}

/* RATE_LIMIT (checked before anything else): keep the attempt times in
 * [now - secs, now], this one included, the newest N of them; more than N
 * refuses.  Every attempt is recorded, refused ones too.  Stricter than
 * the original module, which drops records later than its clock. */
static int
rate_limit(struct img *im, const struct cfg *c, int64_t now, int *exceeded)
{
	uint32_t keep[RATE_MAX + 1];	/* the largest N+1 in range, sorted */
	struct optpos o;
	char val[LINE_MAX_];
	size_t cap = c->rate_n + 1, nkeep = 0, pos, n, i, j;
	uint64_t t;
	int64_t lo = now - (int64_t)c->rate_secs;

	*exceeded = 0;
	/* scan() allows 1..RATE_MAX; keep[] and cap >= 2 depend on it. */
	if (c->rate_n < 1 || c->rate_n > RATE_MAX)
		return OTP_ESTATEOPT;
	if (!opt_find(im->p, im->len, 0, "RATE_LIMIT", &o))
		return 0;
	pos = o.vstart;
	for (i = 0; i < 2; i++) {
		(void)get_uint(im->p, o.vend, &pos, UINT32_MAX, &t);
		pos = skip_blanks(im->p, o.vend, pos);
	}
	t = (uint64_t)now;	/* this attempt, then the recorded ones */
	for (;;) {
		/* A record later than now was made by a run whose clock was
		 * ahead of ours (or before the clock was stepped back): it is
		 * an attempt all the same, kept as one made now, so that no
		 * clock difference lets more than N in. */
		if ((int64_t)t > now)
			t = (uint64_t)now;
		if ((int64_t)t >= lo &&
		    (nkeep < cap || t > keep[0])) {
			if (nkeep == cap) {
				memmove(keep, keep + 1, (cap - 1) *
				    sizeof(keep[0]));
				nkeep--;
			}
			for (j = nkeep; j > 0 && keep[j - 1] > t; j--)
				keep[j] = keep[j - 1];
			keep[j] = (uint32_t)t;
			nkeep++;
		}
		if (pos >= o.vend)
			break;
		if (get_uint(im->p, o.vend, &pos, UINT32_MAX, &t) < 0)
			return OTP_ESTATEOPT;
		pos = skip_blanks(im->p, o.vend, pos);
	}
	if (nkeep > c->rate_n) {
		*exceeded = 1;
		memmove(keep, keep + 1, c->rate_n * sizeof(keep[0]));
		nkeep = c->rate_n;
	}
	n = fmt_i64(val, c->rate_n, 0);
	val[n++] = ' ';
	n += fmt_i64(val + n, c->rate_secs, 0);
	for (i = 0; i < nkeep; i++) {
		val[n++] = ' ';
		n += fmt_i64(val + n, keep[i], 0);
	}
	return opt_set(im, "RATE_LIMIT", val, n);
}

static int
i64_abs_ge(int64_t a, int64_t b, int64_t w)
{
	return a - b >= w || b - a >= w;
}

/* DISALLOW_REUSE: refuse a step already listed; else drop the listed
 * steps |s - step| >= window and append step, keeping the module's
 * spacing byte for byte. */
static int
reuse_record(struct img *im, const struct cfg *c, int64_t step, int *reused)
{
	struct optpos o;
	size_t pos, q, vend;
	uint64_t v;
	char num[24];
	size_t n;
	int r;

	*reused = 0;
	if (!opt_find(im->p, im->len, 0, "DISALLOW_REUSE", &o))
		return 0;
	/* First pass, read-only: is the step listed? */
	pos = skip_blanks(im->p, o.vend, o.vstart);
	while (pos < o.vend) {
		if (get_uint(im->p, o.vend, &pos, INT32_MAX, &v) < 0)
			return OTP_ESTATEOPT;
		if ((int64_t)v == step)
			*reused = 1;
		pos = skip_blanks(im->p, o.vend, pos);
	}
	if (*reused)
		return 0;
	/* Second pass: prune in place. */
	vend = o.vend;
	pos = o.vstart;
	for (;;) {
		pos = skip_blanks(im->p, vend, pos);
		if (pos >= vend)
			break;
		q = pos;
		(void)get_uint(im->p, vend, &q, INT32_MAX, &v);
		if (i64_abs_ge((int64_t)v, step, c->window)) {
			q = skip_blanks(im->p, vend, q);
			if ((r = splice(im, pos, q - pos, NULL, 0)) < 0)
				return r;
			vend -= q - pos;
		} else
			pos = q;
	}
	n = 0;
	if (vend > o.vstart)
		num[n++] = ' ';
	n += fmt_i64(num + n, step, 0);
	if ((r = splice(im, vend, 0, num, n)) < 0)
		return r;
	vend += n;
	/* Re-frame as the module writes a line: `" KEY value\n`. */
	o.stop += vend - o.vend;
	if ((r = splice(im, vend, o.stop - vend, "\n", 1)) < 0)
		return r;
	if ((r = splice(im, o.start, o.vstart - o.start, "\" DISALLOW_REUSE ",
	    17)) < 0)
		return r;
	return opt_delete_from(im, next_line(im->p, im->len, o.start),
	    "DISALLOW_REUSE");
}

/* Append (tm, skew) to the n pairs kept, dropping the oldest when
 * RESYNC_N are kept; returns the new count. */
static size_t
resync_push(int64_t *tms, int64_t *sks, size_t n, int64_t tm, int64_t skew)
{
	if (n == RESYNC_N) {
		memmove(tms, tms + 1, sizeof(tms[0]) * (n - 1));
		memmove(sks, sks + 1, sizeof(sks[0]) * (n - 1));
		n--;
	}
	tms[n] = tm;
	sks[n] = skew;
	return n + 1;
}

/* Skew learning (RESETTING_TIME_SKEW): the three latest (step, skew)
 * pairs, rising steps 1..2 apart and skews within 1 of the newest, set
 * TIME_SKEW to their mean (truncated).  1 accepted, 0 not (yet), or an
 * error. */
static int
skew_learn(struct img *im, int64_t tm, int64_t skew, int64_t *newskew,
    int *same)
{
	int64_t tms[RESYNC_N], sks[RESYNC_N], a, b, avg;
	struct optpos o;
	char val[LINE_MAX_];
	size_t pos, n = 0, k, i;
	int ok = 0, r, neg;
	uint64_t v;

	*same = 0;
	if (opt_find(im->p, im->len, 0, "RESETTING_TIME_SKEW", &o)) {
		/* Read pairs `STEP+SKEW` / `STEP-SKEW` like the module: stop
		 * quietly at the first that does not parse. */
		pos = o.vstart;
		for (;;) {
			pos = skip_blanks(im->p, o.vend, pos);
			if (get_uint(im->p, o.vend, &pos, UINT32_MAX, &v) < 0)
				break;
			a = (int64_t)v;
			if (pos >= o.vend ||
			    (im->p[pos] != '+' && im->p[pos] != '-'))
				break;
			neg = im->p[pos++] == '-';
			if (get_uint(im->p, o.vend, &pos, INT32_MAX, &v) < 0)
				break;
			if (pos < o.vend && !is_blank(im->p[pos]))
				break;
			b = neg ? -(int64_t)v : (int64_t)v;
			n = resync_push(tms, sks, n, a, b);
		}
		/* The same code again tells nothing: change nothing. */
		if (n > 0 && tm + skew == tms[n - 1] + sks[n - 1]) {
			*same = 1;
			return 0;
		}
	}
	n = resync_push(tms, sks, n, tm, skew);
	if (n == RESYNC_N) {
		ok = 1;
		avg = sks[0];
		for (k = 1; k < RESYNC_N; k++) {
			if (tms[k] <= tms[k - 1] || tms[k] > tms[k - 1] + 2 ||
			    sks[k - 1] - skew < -1 || sks[k - 1] - skew > 1)
				ok = 0;
			avg += sks[k];
		}
		if (ok) {
			avg /= RESYNC_N;	/* C truncates toward zero */
			i = fmt_i64(val, avg, 0);
			if ((r = opt_set(im, "TIME_SKEW", val, i)) < 0)
				return r;
			*newskew = avg;
		}
	}
	i = 0;
	if (!ok) {
		for (k = 0; k < n; k++) {
			if (k > 0)
				val[i++] = ' ';
			i += fmt_i64(val + i, tms[k], 0);
			i += fmt_i64(val + i, sks[k], 1);
		}
	}
	if ((r = opt_set(im, "RESETTING_TIME_SKEW", val, i)) < 0)
		return r;
	return ok;
}

static int
host_ok(const char *h)
{
	size_t n;

	for (n = 0; h[n] != '\0'; n++) {
		char c = h[n];

		if (!is_digit(c) && !(c >= 'a' && c <= 'z') &&
		    !(c >= 'A' && c <= 'Z') && c != ':' && c != '.' && c != '-')
			return 0;
	}
	return n >= 1 && n <= HOST_MAX;
}

/* A LASTn value `HOST TIME`; 0 when it parses. */
static int
last_parse(const char *p, const struct optpos *o, size_t *hs, size_t *hl,
    uint64_t *when)
{
	size_t pos = o->vstart;

	*hs = pos;
	while (pos < o->vend && !is_blank(p[pos]))
		pos++;
	*hl = pos - *hs;
	if (*hl == 0 || *hl > HOST_MAX || pos == o->vend)
		return -1;
	pos = skip_blanks(p, o->vend, pos);
	if (get_uint(p, o->vend, &pos, INT64_MAX, when) < 0 ||
	    skip_blanks(p, o->vend, pos) != o->vend)
		return -1;
	return 0;
}

static void
last_key(char key[6], unsigned i)
{
	memcpy(key, "LAST", 4);
	key[4] = (char)('0' + i);
	key[5] = '\0';
}

/* grace_period: the first LASTn naming rhost logged in less than grace
 * seconds ago. */
static int
within_grace(const struct img *im, const struct otp_state_opts *op,
    int64_t now)
{
	struct optpos o;
	char key[6];
	size_t hs, hl, rl;
	uint64_t when;
	unsigned i;

	if (op->grace_period == 0 || op->rhost == NULL || !host_ok(op->rhost))
		return 0;
	rl = strlen(op->rhost);
	for (i = 0; i < LAST_N; i++) {
		last_key(key, i);
		if (!opt_find(im->p, im->len, 0, key, &o) ||
		    last_parse(im->p, &o, &hs, &hl, &when) < 0 ||
		    hl != rl || memcmp(im->p + hs, op->rhost, rl) != 0)
			continue;
		if (when == 0)
			return 0;
		return (int64_t)when > now - (int64_t)op->grace_period;
	}
	return 0;
}

/* Record a login from rhost: its own LASTn if there is one, else the first
 * free slot, else the oldest. */
static int
last_record(struct img *im, const struct otp_state_opts *op, int64_t now)
{
	struct optpos o;
	char key[6], val[HOST_MAX + 24];
	size_t hs, hl, rl, n;
	uint64_t when, oldest = UINT64_MAX;
	unsigned i, slot = LAST_N, free_slot = LAST_N, old_slot = 0;

	if (op->grace_period == 0 || op->rhost == NULL || !host_ok(op->rhost))
		return 0;
	rl = strlen(op->rhost);
	for (i = 0; i < LAST_N && slot == LAST_N; i++) {
		last_key(key, i);
		if (!opt_find(im->p, im->len, 0, key, &o)) {
			if (free_slot == LAST_N)
				free_slot = i;
			continue;
		}
		if (last_parse(im->p, &o, &hs, &hl, &when) < 0)
			continue;
		if (hl == rl && memcmp(im->p + hs, op->rhost, rl) == 0)
			slot = i;
		else if (when < oldest) {
			oldest = when;
			old_slot = i;
		}
	}
	if (slot == LAST_N)
		slot = free_slot != LAST_N ? free_slot : old_slot;
	last_key(key, slot);
	memcpy(val, op->rhost, rl);
	n = rl;
	val[n++] = ' ';
	n += fmt_i64(val + n, now, 0);
	return opt_set(im, key, val, n);
}

/* ---- linger: LINGER lines (lib/linger.c's records) -------------------- */

int
otp_state_lingers(const struct otp_state_opts *o)
{
	struct otp_linger_who w = { o->user, o->rhost, NULL, 0, NULL };

	return o->linger > 0 && otp_linger_applies(&w);
}

/* The image's LINGER records into recs (the first OTP_LINGER_RECORDS
 * that read; a line that does not is dropped at the next write); *lines
 * gets how many lines there were. */
static void
linger_load(const struct img *im, struct otp_linger *recs, size_t *n,
    size_t *lines)
{
	struct optpos o;
	size_t pos = 0;

	*n = *lines = 0;
	while (opt_find(im->p, im->len, pos, LINGER_KEY, &o)) {
		(*lines)++;
		if (*n < OTP_LINGER_RECORDS && otp_linger_parse(im->p +
		    o.vstart, o.vend - o.vstart, &recs[*n]) == 0)
			(*n)++;
		pos = o.stop;
	}
}

/* Replace the image's LINGER lines by recs[0..n), in their order, after
 * the secret's line. */
static int
linger_store(struct img *im, const struct otp_linger *recs, size_t n)
{
	char line[OTP_LINGER_TEXTMAX + sizeof(LINGER_KEY) + 4];
	size_t i, len, at;
	int r;

	if ((r = opt_delete_from(im, 0, LINGER_KEY)) < 0)
		return r;
	memcpy(line, "\" " LINGER_KEY " ", sizeof(LINGER_KEY) + 2);
	/* Each after the secret's line: the last first. */
	for (i = n; i-- > 0;) {
		len = sizeof(LINGER_KEY) + 2;
		len += otp_linger_format(&recs[i], line + len,
		    sizeof(line) - len);
		line[len++] = '\n';
		if ((r = insert_point(im, &at)) < 0 ||
		    (r = splice(im, at, 0, line, len)) < 0)
			return r;
	}
	return 0;
}

static void
refuse(struct otp_state_result *r, enum otp_state_why why)
{
	r->accepted = 0;
	r->how = OTP_STATE_REFUSED;
	r->why = why;
}

static void
accept(struct otp_state_result *r, enum otp_state_how how)
{
	r->accepted = 1;
	r->how = how;
	r->why = OTP_STATE_WHY_NONE;
}

/* The who of a record: the login's user and client, the token's secret
 * (c's key). */
static void
linger_who(struct otp_linger_who *w, const struct otp_state_opts *op,
    const struct cfg *c)
{
	w->user = op->user;
	w->client = op->rhost;
	w->key = c->key.buf;
	w->keylen = c->key.len;
	w->bind = NULL;
}

/* An answer lingering for op->rhost: accepted (res), its record's time
 * slid to now + linger; the records written only when one moved or
 * went. */
static int
linger_look(struct img *im, const struct otp_answer *ans, size_t nans,
    int64_t now, const struct otp_state_opts *op,
    struct otp_state_result *res)
{
	struct otp_linger recs[OTP_LINGER_RECORDS];
	struct otp_linger_who w;
	struct cfg c;
	size_t n, lines, loaded, i, rest = 0;
	int r = 0, hit = -1, changed = 0;

	linger_load(im, recs, &n, &lines);
	if (n == 0)
		return 0;
	if ((r = scan(im->p, im->len, &c)) < 0)
		return r;
	linger_who(&w, op, &c);
	loaded = n;
	for (i = 0; i < nans && hit < 0; i++)
		hit = otp_linger_take(recs, &n, &w, ans[i].text, now,
		    op->linger, &rest, &changed);
	otp_wipe(&c, sizeof(c));
	if (hit >= 0) {
		accept(res, OTP_STATE_BYLINGER);
		res->answer = i - 1;
		res->restlen = rest;
		if (changed || lines != loaded)
			r = linger_store(im, recs, n);
	}
	otp_wipe(recs, sizeof(recs));
	return r;
}

/* A record for the answer a that a code or a scratch code accepted, of
 * which rest bytes were handed on. */
static int
linger_keep(struct img *im, const struct otp_answer *a, size_t rest,
    int64_t now, const struct otp_state_opts *op)
{
	struct otp_linger recs[OTP_LINGER_RECORDS];
	struct otp_linger_who w;
	struct cfg c;
	size_t n, lines;
	int r;

	if ((r = scan(im->p, im->len, &c)) < 0)
		return r;
	linger_who(&w, op, &c);
	linger_load(im, recs, &n, &lines);
	otp_linger_put(recs, &n, op->linger_salt, &w, a->text, rest, now,
	    op->linger);
	otp_wipe(&c, sizeof(c));
	r = linger_store(im, recs, n);
	otp_wipe(recs, sizeof(recs));
	return r;
}

static int
check_scratch(struct img *im, const char *code, int *found)
{
	size_t pos, at = 0, hit = 0, end;
	int any = 0;

	/* Look at every code, compare each in constant time. */
	pos = scratch_start(im->p, im->len);
	while ((pos = scratch_next(im->p, im->len, pos, &at)) <= im->len) {
		if (otp_ct_equal(im->p + at, code, 8) && !any) {
			any = 1;
			hit = at;
		}
	}
	*found = any;
	if (!any)
		return 0;
	/* Delete the code's line and the CR/LF run after it. */
	end = hit + 8;
	while (end < im->len && is_eol(im->p[end]))
		end++;
	return splice(im, hit, end - hit, NULL, 0);
}

/* A miss only sets res->hotp_miss: the counter moves once per login, at
 * its end (otp_state_login). */
static int
check_hotp(struct img *im, const struct cfg *c, struct otp_hmac *h,
    uint32_t want, struct otp_state_result *res)
{
	char val[24];
	unsigned i, hit = 0, w = c->window;
	int any = 0;
	size_t n;

	/* A token whose first code (counter 0) is unused looks one further
	 * from it, as pam_oath's window= does from a line never used. */
	if (c->zero && c->counter == 0)
		w++;
	/* Counters c..c+W-1 (RFC 4226 §7.4 look-ahead), all computed. */
	for (i = 0; i < w; i++) {
		if (ct_eq32(code_at(h, c, c->counter + i), want) && !any) {
			any = 1;
			hit = i;
		}
	}
	if (any) {
		n = fmt_i64(val, (int64_t)(c->counter + hit + 1), 0);
		accept(res, OTP_STATE_BYCODE);
		res->offset = hit;
		res->counter = c->counter + hit;
		return opt_set(im, "HOTP_COUNTER", val, n);
	}
	refuse(res, OTP_STATE_WHY_WRONG);
	res->hotp_miss = 1;
	return 0;
}

/* Accept TOTP step s (offset steps from the expected one) unless
 * DISALLOW_REUSE lists it already. */
static int
accept_step(struct img *im, const struct cfg *c, int64_t s, int64_t offset,
    struct otp_state_result *res)
{
	int r, reused;

	if ((r = reuse_record(im, c, s, &reused)) < 0)
		return r;
	if (reused) {
		refuse(res, OTP_STATE_WHY_REUSED);
		return 0;
	}
	accept(res, OTP_STATE_BYCODE);
	res->offset = offset;
	res->counter = (uint64_t)s;
	return 0;
}

static int
check_totp(struct img *im, const struct cfg *c, struct otp_hmac *h,
    uint32_t want, int64_t now, const struct otp_state_opts *op,
    struct otp_state_result *res)
{
	int64_t tm = now / c->step, s, lo, hi, hit = 0, found = SKEW_RANGE;
	int64_t newskew = c->skew;
	int any = 0, same, r;
	int64_t i;

	/* RFC 6238 §5.2: steps t+skew-floor((W-1)/2) .. t+skew+floor(W/2). */
	lo = -(int64_t)((c->window - 1) / 2);
	hi = (int64_t)(c->window / 2);
	for (i = lo; i <= hi; i++) {
		s = tm + c->skew + i;
		if (s >= 0 && ct_eq32(code_at(h, c, (uint64_t)s), want) && !any) {
			any = 1;
			hit = i;
		}
	}
	if (any)
		return accept_step(im, c, tm + c->skew + hit, hit, res);
	refuse(res, OTP_STATE_WHY_WRONG);
	if (op->flags & OTP_STATE_NOSKEWADJ)
		return 0;
	/* Skew learning: the nearest match within +-1499 steps of the
	 * server's own time, the earlier side first; all computed. */
	for (i = 0; i < SKEW_RANGE; i++) {
		int m1 = tm - i >= 0 && ct_eq32(code_at(h, c,
		    (uint64_t)(tm - i)), want);
		int m2 = ct_eq32(code_at(h, c, (uint64_t)(tm + i)), want);

		if (m1 && found == SKEW_RANGE)
			found = -i;
		if (m2 && found == SKEW_RANGE)
			found = i;
	}
	if (found == SKEW_RANGE)
		return 0;
	r = skew_learn(im, tm, found, &newskew, &same);
	if (r < 0)
		return r;
	if (r == 0) {
		refuse(res, OTP_STATE_WHY_SKEW);
		return 0;
	}
	/* Stricter than the module, which does not record the resync code
	 * and so takes it a second time: under DISALLOW_REUSE it is used. */
	s = tm + found;
	if ((r = accept_step(im, c, s, s - (tm + c->skew), res)) < 0)
		return r;
	if (res->accepted)
		res->skew = newskew;
	return 0;
}

/* A reading that is not the login's start: no grace period, no
 * RATE_LIMIT record; or a start with only one of them. */
#define RD_NOGRACE	0x1
#define RD_NORATE	0x2
#define RD_FOLLOWUP	(RD_NOGRACE | RD_NORATE)

/* Check one reading against the image in place, as the original module
 * checks one code.  The code "" checks nothing: it is the login's start
 * (grace period and RATE_LIMIT), refused as WHY_SHAPE when neither
 * decides. */
static int
check_img(struct img *im, const char *code, int64_t now, unsigned rd,
    const struct otp_state_opts *op, struct otp_state_result *res)
{
	struct cfg c;
	struct otp_hmac h;
	uint32_t want = 0;
	size_t clen, i;
	int r, exceeded, found, pin_ok;

	refuse(res, OTP_STATE_WHY_WRONG);
	res->hotp_miss = 0;
	if ((r = scan(im->p, im->len, &c)) < 0)
		return r;
	res->skew = c.skew;

	/* The module looks at the grace period first and, when it applies,
	 * writes nothing, not even the rate-limit record.  Both belong to a
	 * login's start only: a later reading is the same attempt, and a
	 * grace record written meanwhile by another login must not let a
	 * wrong code through. */
	if (!(rd & RD_NOGRACE) && within_grace(im, op, now)) {
		accept(res, OTP_STATE_BYGRACE);
		goto done;
	}
	if (!(rd & RD_NORATE) && c.rate) {
		if ((r = rate_limit(im, &c, now, &exceeded)) < 0)
			goto done;
		if (exceeded) {
			refuse(res, OTP_STATE_WHY_RATELIMIT);
			goto done;
		}
	}
	if (code[0] == '\0') {
		refuse(res, OTP_STATE_WHY_SHAPE);
		goto record;
	}
	/* A PIN goes before the code: a wrong one is a wrong answer,
	 * whatever follows it. */
	clen = strlen(code);
	if (c.pin_len != 0) {
		pin_ok = clen > c.pin_len && otp_ct_equal(code,
		    im->p + c.pin_at, c.pin_len);
		if (!pin_ok) {
			refuse(res, OTP_STATE_WHY_WRONG);
			goto record;
		}
		code += c.pin_len;
		clen -= c.pin_len;
	}
	if (code_shape(&c, code) < 0) {
		refuse(res, OTP_STATE_WHY_SHAPE);
		goto record;
	}
	/* Scratch codes first (8 digits only: no shorter text matches);
	 * with 8-digit codes a miss there may still be the code. */
	if (clen == 8) {
		if ((r = check_scratch(im, code, &found)) < 0)
			goto done;
		if (found)
			accept(res, OTP_STATE_BYSCRATCH);
		else
			refuse(res, c.mode == OTP_STATE_SCRATCHONLY ?
			    OTP_STATE_WHY_NOCODE : OTP_STATE_WHY_WRONG);
		if (found || c.digits != 8 || c.mode == OTP_STATE_SCRATCHONLY)
			goto record;
	}
	if (c.mode == OTP_STATE_SCRATCHONLY) {
		refuse(res, OTP_STATE_WHY_NOCODE);
		goto done;
	}
	for (i = 0; i < c.digits; i++)
		want = want * 10 + (uint32_t)(code[i] - '0');
	if ((r = otp_hmac_init(&h, c.alg, c.key.buf, c.key.len)) < 0)
		goto done;
	if (c.mode == OTP_STATE_HOTP)
		r = check_hotp(im, &c, &h, want, res);
	else
		r = check_totp(im, &c, &h, want, now, op, res);
	otp_hmac_wipe(&h);
	otp_wipe(&want, sizeof(want));
	if (r < 0)
		goto done;
record:
	/* The module records the login host only when it writes the file
	 * anyway (1.08 never marks LASTn alone as a change): so do we.
	 * With RATE_LIMIT the login's start has written it. */
	if (res->accepted && (im->dirty || c.rate) && op->grace_period != 0 &&
	    op->rhost != NULL && host_ok(op->rhost))
		r = last_record(im, op, now);
	else
		r = 0;
done:
	otp_wipe(&c, sizeof(c));
	return r;
}

/* The readings of an answer, as the original module takes them: the
 * code is its last 6 characters (the file's DIGITS) or, for a scratch
 * code, its last 8 (the first of them 1-9), each after the file's PIN
 * if it has one; what precedes is the password that forward_pass hands
 * on.  A bare answer is the code alone.  Reading k (0 or 1) into code;
 * -1 when the answer has no such reading. */
static int
reading(const struct otp_answer *a, unsigned k, const struct cfg *c,
    char code[CODE_MAX + 1], size_t *restlen)
{
	size_t n = strlen(a->text), len = k == 0 ? c->digits : 8, i, all;

	if (a->kind == OTP_ANSWER_CODE) {
		/* The text is the code, whatever its shape: the engine
		 * refuses a malformed one (longer than any code: as "")
		 * after the login's start, as the original does. */
		if (k != 0)
			return -1;
		if (n > c->pin_len + 8)
			n = 0;
		memcpy(code, a->text, n);
		code[n] = '\0';
		*restlen = 0;
		return 0;
	}
	if (k == 1 && c->digits == 8)
		return -1;	/* the same reading again */
	all = c->pin_len + len;
	if (n < all || (a->kind == OTP_ANSWER_BARE && n != all))
		return -1;
	for (i = n - len; i < n; i++)
		if (!is_digit(a->text[i]))
			return -1;
	if (len == 8 && k == 1 && a->text[n - len] == '0')
		return -1;
	memcpy(code, a->text + n - all, all);
	code[all] = '\0';
	*restlen = n - all;
	return 0;
}

/* A refusal that ends the login: the original stops asking there. */
static int
login_over(const struct otp_state_result *res)
{
	return res->accepted || res->why == OTP_STATE_WHY_REUSED ||
	    res->why == OTP_STATE_WHY_SKEW ||
	    res->why == OTP_STATE_WHY_RATELIMIT;
}

/* The readings of every answer in order, up to the first that ends the
 * login; *owed is set when one missed the HOTP counters. */
static int
login_readings(struct img *im, const struct otp_answer *ans, size_t nans,
    int64_t now, const struct otp_state_opts *op,
    struct otp_state_result *res, int *owed)
{
	char code[CODE_MAX + 1];
	struct cfg c;
	size_t i, restlen = 0;
	unsigned k;
	int r;

	/* The shape of a code; the image is scanned again for each. */
	if ((r = scan(im->p, im->len, &c)) < 0)
		return r;
	otp_wipe(&c.key, sizeof(c.key));
	for (i = 0; i < nans; i++) {
		for (k = 0; k < 2; k++) {
			if (reading(&ans[i], k, &c, code, &restlen) != 0)
				continue;
			r = check_img(im, code, now, RD_FOLLOWUP, op, res);
			otp_wipe(code, sizeof(code));
			if (r < 0)
				return r;
			*owed |= res->hotp_miss;
			res->answer = i;
			res->restlen = restlen;
			if (login_over(res))
				return 0;
		}
	}
	return 0;
}

/* One login over the image at Unix time now, as the original module
 * runs one: OPEN first (grace period, RATE_LIMIT: one attempt), then the
 * readings of each answer up to an accept or a refusal that ends the
 * login, then SETTLE.  out (outsz >= OTP_STATE_OUTMAX) gets the new
 * image, *outlen its length, r the outcome; refusals return 0. */
int
otp_state_login(const char *img, size_t len, unsigned phases,
    const struct otp_answer *ans, size_t nans, int64_t now,
    const struct otp_state_opts *op, struct otp_state_result *res,
    char *out, size_t outsz, size_t *outlen)
{
	struct img im;
	struct cfg c;
	char val[24];
	size_t n;
	unsigned start = RD_FOLLOWUP;
	int r, owed = 0, lingers;

	memset(res, 0, sizeof(*res));
	refuse(res, OTP_STATE_WHY_SHAPE);
	*outlen = 0;
	if (now < 0 || now > (int64_t)UINT32_MAX * 60)
		return OTP_ETIMERANGE;
	if (outsz < OTP_STATE_OUTMAX)
		return OTP_ENOSPACE;
	if ((r = scan(img, len, &c)) < 0)
		return r;
	res->skew = c.skew;
	otp_wipe(&c, sizeof(c));
	img_copy(&im, img, len, out, outsz);

	/* A lingering answer is no attempt: looked at before the grace
	 * period and RATE_LIMIT, which it neither counts in nor stops. */
	lingers = (phases & OTP_LOGIN_LINGER) && otp_state_lingers(op);
	if (lingers && nans > 0 && ((r = linger_look(&im, ans, nans, now, op,
	    res)) < 0 || res->accepted))
		goto end;
	if (phases & OTP_LOGIN_OPEN)
		start = 0;
	else if (phases & OTP_LOGIN_GRACE)
		start = RD_NORATE;
	else if (lingers)
		start = RD_NOGRACE;	/* the start's RATE_LIMIT */
	if (start != RD_FOLLOWUP &&
	    ((r = check_img(&im, "", now, start, op, res)) < 0 ||
	    login_over(res)))
		goto end;
	if ((r = login_readings(&im, ans, nans, now, op, res, &owed)) < 0)
		goto end;
	if (lingers && res->accepted && (res->how == OTP_STATE_BYCODE ||
	    res->how == OTP_STATE_BYSCRATCH) && (r = linger_keep(&im,
	    &ans[res->answer], res->restlen, now, op)) < 0)
		goto end;
	res->hotp_miss = owed;
	/* The original moves a missed HOTP counter once per login, after
	 * its last reading (not under no_increment_hotp); a scratch code
	 * accepted after a miss does not spare it. */
	if ((phases & OTP_LOGIN_SETTLE) && owed &&
	    !(op->flags & OTP_STATE_NOINCRHOTP) &&
	    !(res->accepted && res->how == OTP_STATE_BYCODE)) {
		if ((r = scan(im.p, im.len, &c)) < 0)
			goto end;
		n = fmt_i64(val, (int64_t)(c.counter + 1), 0);
		otp_wipe(&c, sizeof(c));
		if ((r = opt_set(&im, "HOTP_COUNTER", val, n)) < 0)
			goto end;
	}
end:
	if (r == 0 && im.dirty && im.len > OTP_STATE_MAX)
		r = OTP_ESTATESIZE;
	if (r < 0) {
		otp_wipe(out, im.high);
		memset(res, 0, sizeof(*res));
		refuse(res, OTP_STATE_WHY_WRONG);
		return r;
	}
	res->changed = im.dirty;
	*outlen = im.len;
	return 0;
}

int
otp_state_check(const char *img, size_t len, const char *code, int64_t now,
    const struct otp_state_opts *op, struct otp_state_result *res,
    char *out, size_t outsz, size_t *outlen)
{
	struct otp_answer a;

	a.text = code;
	a.kind = OTP_ANSWER_CODE;
	return otp_state_login(img, len, OTP_LOGIN_OPEN | OTP_LOGIN_SETTLE,
	    &a, code[0] != '\0', now, op, res, out, outsz, outlen);
}

/* ---- new files ------------------------------------------------------- */

static int
put(char *out, size_t outsz, size_t *n, const char *s, size_t len)
{
	if (outsz - *n < len + 1)
		return OTP_ENOSPACE;
	memcpy(out + *n, s, len);
	*n += len;
	out[*n] = '\0';
	return 0;
}

static int
put_opt(char *out, size_t outsz, size_t *n, const char *key,
    const unsigned *vals, size_t nvals)
{
	char line[128];
	size_t l = 0, i;

	line[l++] = '"';
	line[l++] = ' ';
	/* line is counted, not a C string: put() takes its length. */
	/* NOLINTNEXTLINE(bugprone-not-null-terminated-result) */
	memcpy(line + l, key, strlen(key));
	l += strlen(key);
	for (i = 0; i < nvals; i++) {
		line[l++] = ' ';
		l += fmt_i64(line + l, vals[i], 0);
	}
	line[l++] = '\n';
	return put(out, outsz, n, line, l);
}

int
otp_state_pin_ok(const char *pin)
{
	size_t n = strlen(pin), i;

	if (n == 0 || n > OTP_STATE_PIN_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if ((unsigned char)pin[i] <= ' ' || pin[i] == 0x7f)
			return 0;
	return 1;
}

/* otp-utils' own lines, after the original's. */
static int
put_ext(char *out, size_t outsz, size_t *n, const struct otp_state_new *nw)
{
	char line[LINE_MAX_];
	const char *alg;
	int r = 0, l;

	if (nw->digits > 6 &&
	    (r = put_opt(out, outsz, n, "DIGITS", &nw->digits, 1)) < 0)
		return r;
	if (nw->alg != OTP_ALG_SHA1) {
		alg = otp_alg_name(nw->alg);
		l = snprintf(line, sizeof(line), "\" ALGORITHM %s\n", alg);
		if ((r = put(out, outsz, n, line, (size_t)l)) < 0)
			return r;
	}
	if (nw->pin != NULL && nw->pin[0] != '\0') {
		l = snprintf(line, sizeof(line), "\" PIN %s\n", nw->pin);
		r = put(out, outsz, n, line, (size_t)l);
		otp_wipe(line, sizeof(line));
	}
	return r;
}

int
otp_state_build(const uint8_t *key, size_t keylen,
    const struct otp_state_new *nw, char *out, size_t outsz, size_t *outlen)
{
	char b32[OTP_KEY_MAX * 2];
	unsigned v[2];
	size_t n = 0, i;
	int r;

	*outlen = 0;
	if (keylen == 0)
		return OTP_EKEYEMPTY;
	if (keylen > OTP_KEY_MAX)
		return OTP_EKEYLONG;
	if ((nw->mode != OTP_STATE_TOTP && nw->mode != OTP_STATE_HOTP) ||
	    nw->nscratch > OTP_STATE_SCRATCH_MAX)
		return OTP_EINVAL;
	if (nw->window != 0 && (nw->window < OTP_STATE_WINDOW_MIN ||
	    nw->window > OTP_STATE_WINDOW_MAX))
		return OTP_ESTATEWINDOW;
	if (nw->step != 0 && (nw->step < OTP_STATE_STEP_MIN ||
	    nw->step > OTP_STATE_STEP_MAX))
		return OTP_ESTATESTEP;
	if ((nw->rate_n != 0 && (nw->rate_n < OTP_STATE_RATE_MIN ||
	    nw->rate_n > OTP_STATE_RATE_MAX ||
	    nw->rate_secs < OTP_STATE_RATE_SECS_MIN ||
	    nw->rate_secs > OTP_STATE_RATE_SECS_MAX)) ||
	    (nw->rate_n == 0 && nw->rate_secs != 0))
		return OTP_ESTATERATE;
	if (nw->mode == OTP_STATE_HOTP && (nw->step != 0 ||
	    nw->disallow_reuse))
		return OTP_ESTATEHOTP;
	for (i = 0; i < nw->nscratch; i++)
		if (nw->scratch[i] < OTP_SCRATCH_LO ||
		    nw->scratch[i] > OTP_SCRATCH_HI)
			return OTP_ERANGE;
	if ((nw->digits != 0 && (nw->digits < 6 || nw->digits > 8)) ||
	    (nw->pin != NULL && nw->pin[0] != '\0' &&
	    !otp_state_pin_ok(nw->pin)))
		return OTP_EINVAL;
	r = otp_b32_encode(key, keylen, b32, sizeof(b32), OTP_B32_NOPAD);
	if (r < 0)
		goto out;
	if ((r = put(out, outsz, &n, b32, (size_t)r)) < 0 ||
	    (r = put(out, outsz, &n, "\n", 1)) < 0)
		goto out;
	/* The order google-authenticator(1) writes. */
	v[0] = nw->rate_n;
	v[1] = nw->rate_secs;
	if (nw->rate_n != 0 &&
	    (r = put_opt(out, outsz, &n, "RATE_LIMIT", v, 2)) < 0)
		goto out;
	if (nw->window != 0 &&
	    (r = put_opt(out, outsz, &n, "WINDOW_SIZE", &nw->window, 1)) < 0)
		goto out;
	if (nw->step != 0 &&
	    (r = put_opt(out, outsz, &n, "STEP_SIZE", &nw->step, 1)) < 0)
		goto out;
	if (nw->disallow_reuse &&
	    (r = put_opt(out, outsz, &n, "DISALLOW_REUSE", NULL, 0)) < 0)
		goto out;
	v[0] = 1;
	if (nw->mode == OTP_STATE_TOTP)
		r = put_opt(out, outsz, &n, "TOTP_AUTH", NULL, 0);
	else
		r = put_opt(out, outsz, &n, "HOTP_COUNTER", v, 1);
	if (r < 0)
		goto out;
	if ((r = put_ext(out, outsz, &n, nw)) < 0)
		goto out;
	for (i = 0; i < nw->nscratch; i++) {
		char line[10];
		size_t l = fmt_i64(line, nw->scratch[i], 0);

		line[l++] = '\n';
		if ((r = put(out, outsz, &n, line, l)) < 0)
			goto out;
	}
	if (n > OTP_STATE_MAX) {
		r = OTP_ESTATESIZE;
		goto out;
	}
	*outlen = n;
	r = 0;
out:
	otp_wipe(b32, sizeof(b32));
	if (r < 0)
		otp_wipe(out, outsz);
	return r;
}

/*
 * The scratch codes apart from the rest: out gets every line but the
 * scratch codes (and the CR/LF run after each), codes[0..*n) the codes.
 * A store that keeps the codes elsewhere (as keyed hashes) keeps out.
 */
int
otp_state_unscratch(const char *img, size_t len, char *out, size_t outsz,
    size_t *outlen, uint32_t *codes, size_t maxcodes, size_t *n)
{
	size_t pos, at = 0, from = 0, o = 0, end, i;
	uint32_t v;

	*n = 0;
	*outlen = 0;
	if (outsz < len)
		return OTP_ENOSPACE;
	pos = scratch_start(img, len);
	while ((pos = scratch_next(img, len, pos, &at)) <= len) {
		if (*n == maxcodes) {
			otp_wipe(out, o);
			return OTP_ESTATESIZE;
		}
		for (v = 0, i = 0; i < 8; i++)
			v = v * 10 + (uint32_t)(img[at + i] - '0');
		codes[(*n)++] = v;
		memcpy(out + o, img + from, at - from);
		o += at - from;
		end = at + 8;
		while (end < len && is_eol(img[end]))
			end++;
		from = end;
	}
	memcpy(out + o, img + from, len - from);
	o += len - from;
	*outlen = o;
	return 0;
}

/* Add the scratch code line for code to img[0..*len) (cap bytes), right
 * after the secret's line: a code is a scratch code only before the
 * first line that is neither an option nor a code, so the end of an
 * image with such a line would not do. */
int
otp_state_add_scratch(char *img, size_t *len, size_t cap, uint32_t code)
{
	struct img im = { img, *len, cap, *len, 0 };
	char line[10];
	size_t at, n;
	int r;

	if (code < 10000000 || code > 99999999)
		return OTP_ERANGE;
	if ((r = insert_point(&im, &at)) < 0)
		return r;
	n = (size_t)fmt_i64(line, code, 0);
	line[n++] = '\n';
	if ((r = splice(&im, at, 0, line, n)) < 0)
		return r;
	*len = im.len;
	return 0;
}

/* Set the option line `" key val` as the module would, in place. */
int
otp_state_set_option(char *img, size_t *len, size_t cap, const char *key,
    const char *val)
{
	struct img im = { img, *len, cap, *len, 0 };
	int r;

	if ((r = opt_set(&im, key, val, strlen(val))) < 0)
		return r;
	*len = im.len;
	return 0;
}

/* Delete every option line `" key` of img[0..*len), in place. */
int
otp_state_del_option(char *img, size_t *len, const char *key)
{
	struct img im = { img, *len, *len, *len, 0 };
	int r;

	if ((r = opt_delete_from(&im, 0, key)) < 0)
		return r;
	*len = im.len;
	return 0;
}

/*
 * An administrator's resync: codes[0..n) (2 or 3, as the app shows them
 * one after the other) found where they stand in a row.  TOTP: within a
 * day of steps either side of now; TIME_SKEW then puts the last code's
 * step at now, and with DISALLOW_REUSE the steps are recorded, so the
 * codes given cannot log in.  HOTP: within OTP_STATE_RESYNC_HOTP counters
 * either side of HOTP_COUNTER (a token behind it too: a counter that wrong
 * codes or a copy moved past the token), which then moves past the last
 * code, forward or back.  A run found
 * nowhere, or in more than one place, is OTP_ERESYNC: nothing is guessed.
 * *moved gets the new TIME_SKEW, or the counters skipped.
 */
int
otp_state_resync(const char *img, size_t len, const char *const *codes,
    size_t n, int64_t now, char *out, size_t outsz, size_t *outlen,
    int64_t *moved)
{
	struct otp_hmac h;
	struct otp_match m;
	struct img im;
	struct cfg c;
	char val[24];
	size_t i, vn;
	int64_t tm, last;
	int r, found, reused;

	*outlen = 0;
	*moved = 0;
	if (n < 2 || n > OTP_SKEW_CODES)
		return OTP_EINVAL;
	if (now < 0 || now > (int64_t)UINT32_MAX * 60)
		return OTP_ETIMERANGE;
	if (outsz < len + 2 * LINE_MAX_)
		return OTP_ENOSPACE;
	if ((r = scan(img, len, &c)) < 0)
		return r;
	for (i = 0; i < n; i++)
		if (otp_code_check(codes[i], c.digits) < 0) {
			otp_wipe(&c, sizeof(c));
			return OTP_ECODE;
		}
	if (c.mode == OTP_STATE_SCRATCHONLY) {
		otp_wipe(&c, sizeof(c));
		return OTP_EINVAL;
	}
	if ((r = otp_hmac_init(&h, c.alg, c.key.buf, c.key.len)) < 0) {
		otp_wipe(&c, sizeof(c));
		return r;
	}
	tm = now / c.step;
	found = c.mode == OTP_STATE_TOTP ?
	    otp_find_skew(&h, codes, n, c.digits, (uint64_t)tm,
	    (uint64_t)(86400 / c.step), OTP_WINDOW_AROUND, &m) :
	    otp_find_skew(&h, codes, n, c.digits, c.counter,
	    OTP_STATE_RESYNC_HOTP, OTP_WINDOW_AROUND, &m);
	otp_hmac_wipe(&h);
	if (found != 1) {
		otp_wipe(&c, sizeof(c));
		return found < 0 ? found : OTP_ERESYNC;
	}
	img_copy(&im, img, len, out, outsz);
	last = (int64_t)m.counter + (int64_t)n - 1;
	if (c.mode == OTP_STATE_TOTP) {
		*moved = last - tm;
		vn = fmt_i64(val, *moved, 0);
		r = opt_set(&im, "TIME_SKEW", val, vn);
		for (i = 0; r == 0 && i < n; i++)
			r = reuse_record(&im, &c, (int64_t)m.counter +
			    (int64_t)i, &reused);
	} else {
		*moved = last + 1 - (int64_t)c.counter;
		vn = fmt_i64(val, last + 1, 0);
		r = opt_set(&im, "HOTP_COUNTER", val, vn);
	}
	otp_wipe(&c, sizeof(c));
	if (r == 0 && im.len > OTP_STATE_MAX)
		r = OTP_ESTATESIZE;
	if (r < 0) {
		otp_wipe(out, im.high);
		return r;
	}
	*outlen = im.len;
	return 0;
}

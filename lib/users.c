/*
 * users.c - OATH Toolkit's users file (/etc/users.oath) as a pure engine:
 * parse an image, decide one user's code as pam_oath decides it, and edit
 * the image as pam_oath edits it, so that both leave byte-identical files;
 * plus Mobile-OTP lines, our extension.  No I/O: the files, locks and
 * clock are lib/sys/usersfile.c's.  The format is man/otp-users.5.
 *
 * Where pam_oath is wrong we are stricter: a token's digits are enforced
 * (it takes any length of 6 to 8 digits), and the accepted line is the one
 * that matched even when an earlier line of the user is malformed.
 */
#include <stdio.h>
#include <string.h>

#include "otp.h"
#include "otp_uri.h"
#include "otp_state.h"
#include "otp_users.h"

#define FIELDS_MAX	7	/* TYPE USER PASSWORD KEY COUNTER LAST TIME */
#define MOTP_SECRET_MAX	OTP_KEY_MAX
#define TIME_LEN	20	/* "YYYY-MM-DDTHH:MM:SSL" */

struct field {
	const char	*p;
	size_t		 n;
};

/* Split s[0..n) into fields at runs of space, TAB, CR and LF; the count
 * (at most max, the rest ignored as the original ignores it). */
static size_t
split(const char *s, size_t n, struct field *f, size_t max)
{
	size_t i = 0, k = 0, start;

	while (k < max) {
		while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' ||
		    s[i] == '\n'))
			i++;
		if (i == n)
			break;
		start = i;
		while (i < n && s[i] != ' ' && s[i] != '\t' && s[i] != '\r' &&
		    s[i] != '\n')
			i++;
		f[k].p = s + start;
		f[k].n = i - start;
		k++;
	}
	return k;
}

/* 0 when s[0..n) cannot be a line of user: it does not hold the name.
 * Most lines of a large file are passed over this way, by memchr,
 * before they are split (make bench: the split was half a login). */
static int
may_hold(const char *s, size_t n, const char *user, size_t ulen)
{
	const char *p = s, *end = s + n, *hit;

	if (ulen == 0)
		return 1;
	while ((size_t)(end - p) >= ulen &&
	    (hit = memchr(p, user[0], (size_t)(end - p) - ulen + 1)) != NULL) {
		if (memcmp(hit, user, ulen) == 0)
			return 1;
		p = hit + 1;
	}
	return 0;
}

static int
feq(const struct field *f, const char *s)
{
	size_t n = strlen(s);

	return f->n == n && memcmp(f->p, s, n) == 0;
}

/* The TYPE field: kind, digits and period; 0 when it is no type we know. */
static int
parse_type(const struct field *f, enum otp_users_kind *kind,
    unsigned *digits, unsigned *period)
{
	static const struct {
		const char		*name;
		enum otp_users_kind	 kind;
		unsigned		 digits, period;
	} types[] = {
		{ "HOTP", OTP_USERS_HOTP, 6, 0 },
		{ "HOTP/E", OTP_USERS_HOTP, 6, 0 },
		{ "HOTP/E/6", OTP_USERS_HOTP, 6, 0 },
		{ "HOTP/E/7", OTP_USERS_HOTP, 7, 0 },
		{ "HOTP/E/8", OTP_USERS_HOTP, 8, 0 },
		{ "HOTP/T30", OTP_USERS_TOTP, 6, 30 },
		{ "HOTP/T30/6", OTP_USERS_TOTP, 6, 30 },
		{ "HOTP/T30/7", OTP_USERS_TOTP, 7, 30 },
		{ "HOTP/T30/8", OTP_USERS_TOTP, 8, 30 },
		{ "HOTP/T60", OTP_USERS_TOTP, 6, 60 },
		{ "HOTP/T60/6", OTP_USERS_TOTP, 6, 60 },
		{ "HOTP/T60/7", OTP_USERS_TOTP, 7, 60 },
		{ "HOTP/T60/8", OTP_USERS_TOTP, 8, 60 },
		{ "MOTP", OTP_USERS_MOTP, 6, 10 },
	};
	size_t i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (feq(f, types[i].name)) {
			*kind = types[i].kind;
			*digits = types[i].digits;
			*period = types[i].period;
			return 1;
		}
	return 0;
}

/* LASTTIME as strptime("%Y-%m-%dT%H:%M:%SL") takes it: 1-4 digit year,
 * 1-2 digit fields in range, the literal L, nothing after. */
static int
check_time(const struct field *f)
{
	static const struct {
		unsigned	maxdig, lo, hi;
		char		sep;
	} part[] = {
		{ 4, 0, 9999, '-' }, { 2, 1, 12, '-' }, { 2, 1, 31, 'T' },
		{ 2, 0, 23, ':' }, { 2, 0, 59, ':' }, { 2, 0, 61, 'L' },
	};
	size_t i = 0, k, d;
	unsigned v;

	for (k = 0; k < sizeof(part) / sizeof(part[0]); k++) {
		for (v = 0, d = 0; i < f->n && d < part[k].maxdig &&
		    f->p[i] >= '0' && f->p[i] <= '9'; i++, d++)
			v = v * 10 + (unsigned)(f->p[i] - '0');
		if (d == 0 || v < part[k].lo || v > part[k].hi ||
		    i >= f->n || f->p[i] != part[k].sep)
			return OTP_EUSERSTIME;
		i++;
	}
	return i == f->n ? 0 : OTP_EUSERSTIME;
}

static int
parse_counter(const struct field *f, uint64_t *c)
{
	char buf[24];

	if (f->n == 0 || f->n >= sizeof(buf))
		return OTP_EUSERSCOUNTER;
	memcpy(buf, f->p, f->n);
	buf[f->n] = '\0';
	return otp_parse_u64(buf, 0, UINT64_MAX, c) == 0 ? 0 :
	    OTP_EUSERSCOUNTER;
}

/* The key: hex bytes, or (mOTP) the init-secret's text. */
static int
parse_key(const struct field *f, enum otp_users_kind kind, struct otp_key *k)
{
	if (kind == OTP_USERS_MOTP) {
		if (f->n == 0 || f->n > MOTP_SECRET_MAX)
			return OTP_EUSERSKEY;
		memcpy(k->buf, f->p, f->n);
		k->len = f->n;
		return 0;
	}
	if (otp_hex_decode(f->p, f->n, k->buf, sizeof(k->buf), &k->len,
	    NULL) != 0 || k->len == 0) {
		otp_wipe(k, sizeof(*k));
		return OTP_EUSERSKEY;
	}
	return 0;
}

static int
copy_field(const struct field *f, char *out, size_t outsz)
{
	if (f->n >= outsz)
		return OTP_EUSERSLINE;
	memcpy(out, f->p, f->n);
	out[f->n] = '\0';
	return 0;
}

int
otp_users_line_parse(const char *line, size_t len, struct otp_users_token *t)
{
	struct field f[FIELDS_MAX];
	size_t n;
	int r;

	memset(t, 0, sizeof(*t));
	if (memchr(line, '\0', len) != NULL)
		return OTP_ENUL;
	n = split(line, len, f, FIELDS_MAX);
	if (n == 0 || !parse_type(&f[0], &t->kind, &t->digits, &t->period))
		return 0;
	if (n < 4)
		return OTP_EUSERSLINE;
	if ((r = copy_field(&f[0], t->type, sizeof(t->type))) < 0 ||
	    (r = copy_field(&f[1], t->user, sizeof(t->user))) < 0 ||
	    (r = copy_field(&f[2], t->password, sizeof(t->password))) < 0 ||
	    (r = parse_key(&f[3], t->kind, &t->key)) < 0 ||
	    (n > 4 && (r = parse_counter(&f[4], &t->counter)) < 0) ||
	    (n > 5 && (r = copy_field(&f[5], t->lastotp,
	    sizeof(t->lastotp))) < 0) ||
	    (n > 6 && ((r = check_time(&f[6])) < 0 ||
	    (r = copy_field(&f[6], t->lasttime, sizeof(t->lasttime))) < 0))) {
		otp_wipe(t, sizeof(*t));
		return r;
	}
	return 1;
}

/* A field we write must read back as one field. */
static int
field_ok(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n >= OTP_USERS_FIELD_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' ||
		    s[i] == '\n')
			return 0;
	return 1;
}

/* Appends to a bounded buffer; ok drops to 0 when it overflows. */
struct out {
	char	*p;
	size_t	 len, cap;
	int	 ok;
};

static void
put(struct out *o, const void *s, size_t n)
{
	if (!o->ok || n > o->cap - o->len) {
		o->ok = 0;
		return;
	}
	memcpy(o->p + o->len, s, n);
	o->len += n;
}

static void
puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static void
put_u64(struct out *o, uint64_t v)
{
	char buf[21], *p = buf + sizeof(buf);

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	put(o, p, (size_t)(buf + sizeof(buf) - p));
}

static void
put_hex(struct out *o, const uint8_t *b, size_t n)
{
	static const char hx[] = "0123456789abcdef";
	size_t i;
	char c[2];

	for (i = 0; i < n; i++) {
		c[0] = hx[b[i] >> 4];
		c[1] = hx[b[i] & 15];
		put(o, c, 2);
	}
}

static void
type_name(const struct otp_users_token *t, char *out, size_t outsz)
{
	struct out o = { out, 0, outsz - 1, 1 };

	if (t->kind == OTP_USERS_MOTP)
		puts_(&o, "MOTP");
	else if (t->kind == OTP_USERS_TOTP) {
		puts_(&o, t->period == 60 ? "HOTP/T60" : "HOTP/T30");
		if (t->digits != 6) {
			puts_(&o, "/");
			put_u64(&o, t->digits);
		}
	} else if (t->digits != 6) {
		puts_(&o, "HOTP/E/");
		put_u64(&o, t->digits);
	} else
		puts_(&o, "HOTP");
	out[o.len] = '\0';
}

int
otp_users_line_format(const struct otp_users_token *t, char *out,
    size_t outsz)
{
	struct out o = { out, 0, outsz, 1 };
	char type[16];
	size_t i;

	if (t->type[0] != '\0') {
		if (!field_ok(t->type) || strlen(t->type) >= sizeof(type))
			return OTP_EUSERSFIELD;
		memcpy(type, t->type, strlen(t->type) + 1);
	} else {
		if (t->digits < 6 || t->digits > 8 ||
		    (t->kind == OTP_USERS_TOTP && t->period != 30 &&
		    t->period != 60) ||
		    (t->kind == OTP_USERS_MOTP && t->digits != 6))
			return OTP_EINVAL;
		type_name(t, type, sizeof(type));
	}
	if (!field_ok(t->user) || !field_ok(t->password) ||
	    (t->lastotp[0] != '\0' && !field_ok(t->lastotp)) ||
	    (t->lasttime[0] != '\0' && !field_ok(t->lasttime)))
		return OTP_EUSERSFIELD;
	if (t->key.len == 0 || t->key.len > OTP_KEY_MAX)
		return OTP_EKEYEMPTY;
	if (t->kind == OTP_USERS_MOTP) {
		for (i = 0; i < t->key.len; i++)
			if (t->key.buf[i] <= ' ' || t->key.buf[i] == 0x7f)
				return OTP_EUSERSKEY;
	}
	puts_(&o, type);
	puts_(&o, "\t");
	puts_(&o, t->user);
	puts_(&o, "\t");
	puts_(&o, t->password);
	puts_(&o, "\t");
	if (t->kind == OTP_USERS_MOTP)
		put(&o, t->key.buf, t->key.len);
	else
		put_hex(&o, t->key.buf, t->key.len);
	if (t->counter != 0 || t->lastotp[0] != '\0' ||
	    t->lasttime[0] != '\0') {
		puts_(&o, "\t");
		put_u64(&o, t->counter);
	}
	if (t->lastotp[0] != '\0' || t->lasttime[0] != '\0') {
		puts_(&o, "\t");
		puts_(&o, t->lastotp[0] != '\0' ? t->lastotp : "-");
	}
	if (t->lasttime[0] != '\0') {
		puts_(&o, "\t");
		puts_(&o, t->lasttime);
	}
	puts_(&o, "\n");
	if (!o.ok || o.len >= outsz) {
		if (o.len > 0)
			otp_wipe(out, o.len);
		return OTP_ENOSPACE;
	}
	out[o.len] = '\0';
	return (int)o.len;
}

const char *
otp_users_why_text(enum otp_users_why why)
{
	switch (why) {
	case OTP_USERS_WHY_UNKNOWN:
		return "no token for this user";
	case OTP_USERS_WHY_PASSWORD:
		return "wrong password before the code";
	case OTP_USERS_WHY_WRONG:
		return "wrong code";
	case OTP_USERS_WHY_REPLAYED:
		return "code already used";
	case OTP_USERS_WHY_LOCKED:
		return "too many wrong codes: locked out for now";
	case OTP_USERS_WHY_NONE:
	default:
		return "accepted";
	}
}

/* Lines of an image: [start, end) the text, next after its '\n'. */
struct cursor {
	const char	*img;
	size_t		 len, pos, lineno;
	size_t		 start, end, next;
};

static int
next_line(struct cursor *c)
{
	const char *nl;

	if (c->pos >= c->len)
		return 0;
	c->start = c->pos;
	nl = memchr(c->img + c->pos, '\n', c->len - c->pos);
	c->end = nl == NULL ? c->len : (size_t)(nl - c->img);
	c->next = nl == NULL ? c->len : c->end + 1;
	c->pos = c->next;
	c->lineno++;
	return 1;
}

static int
image_ok(const char *img, size_t len)
{
	if (len > OTP_USERS_MAX)
		return OTP_EUSERSSIZE;
	if (len > 0 && memchr(img, '\0', len) != NULL)
		return OTP_ENUL;
	return 0;
}

/* The cursor at user's first token line; 1, 0 when none, or OTP_E*. */
static int
find_user(struct cursor *c, const char *user)
{
	struct field f[4];
	enum otp_users_kind kind;
	unsigned digits, period;
	size_t ulen = strlen(user);
	int r;

	if ((r = image_ok(c->img, c->len)) < 0)
		return r;
	while (next_line(c))
		if (may_hold(c->img + c->start, c->end - c->start, user,
		    ulen) &&
		    split(c->img + c->start, c->end - c->start, f, 4) == 4 &&
		    parse_type(&f[0], &kind, &digits, &period) &&
		    feq(&f[1], user))
			return 1;
	return 0;
}

int
otp_users_each(const char *img, size_t len, otp_users_each_fn *fn,
    void *arg)
{
	struct cursor c = { img, len, 0, 0, 0, 0, 0 };
	struct field f[4];
	enum otp_users_kind kind;
	unsigned digits, period;
	int r;

	if ((r = image_ok(img, len)) < 0)
		return r;
	/* The lines find_user() would find, each user's every one. */
	while (next_line(&c))
		if (split(img + c.start, c.end - c.start, f, 4) == 4 &&
		    parse_type(&f[0], &kind, &digits, &period) &&
		    (r = fn(arg, f[1].p, f[1].n, kind)) != 0)
			return r;
	return 0;
}

int
otp_users_has_user(const char *img, size_t len, const char *user)
{
	struct cursor c = { img, len, 0, 0, 0, 0, 0 };

	return find_user(&c, user);
}

int
otp_users_each_token(const char *img, size_t len, const char *user,
    otp_users_token_fn *fn, void *arg)
{
	struct cursor c = { img, len, 0, 0, 0, 0, 0 };
	struct otp_users_token t;
	struct field f[2];
	enum otp_users_kind kind;
	unsigned digits, period;
	size_t ulen = strlen(user);
	int r = 0;

	if ((r = image_ok(img, len)) < 0)
		return r;
	/* The lines otp_users_scan() decides on. */
	while (r == 0 && next_line(&c)) {
		if (!may_hold(img + c.start, c.end - c.start, user, ulen) ||
		    split(img + c.start, c.end - c.start, f, 2) != 2 ||
		    !parse_type(&f[0], &kind, &digits, &period) ||
		    !feq(&f[1], user) ||
		    otp_users_line_parse(img + c.start, c.end - c.start,
		    &t) != 1)
			continue;
		r = fn(arg, &t);
		otp_wipe(&t, sizeof(t));
	}
	return r;
}

/* 1 if the typed prefix pw passes the PASSWORD field f ("-": nothing
 * typed; "+": another module's; else the PIN itself; mOTP: nothing). */
static int
password_ok(const struct field *f, enum otp_users_kind kind, const char *pw)
{
	size_t n = strlen(pw);

	if (kind == OTP_USERS_MOTP || feq(f, "-"))
		return n == 0;
	if (feq(f, "+"))
		return 1;
	return f->n == n && otp_ct_equal(f->p, pw, n);
}

/* code as a decimal of exactly digits characters. */
static int
code_shape(const char *code, unsigned digits)
{
	size_t i, n = strlen(code);

	if (n != digits)
		return 0;
	for (i = 0; i < n; i++)
		if (code[i] < '0' || code[i] > '9')
			return 0;
	return 1;
}

/* HOTP/TOTP: is code (digits long) the code of step? */
static int
step_is(struct otp_hmac *h, uint64_t step, const char *code, unsigned digits)
{
	char c[OTP_CODE_MAX];
	int eq;

	(void)otp_code_decimal(otp_hotp_value(h, step), digits, c, sizeof(c));
	eq = otp_ct_equal(c, code, digits);
	otp_wipe(c, sizeof(c));
	return eq;
}

/* TOTP position of code around now_step as the original searches: 0, +1,
 * -1, +2, -2 ...; 1 and *pos when found.  Every candidate is compared. */
static int
totp_pos(struct otp_hmac *h, uint64_t now_step, unsigned window,
    const char *code, unsigned digits, int64_t *pos)
{
	int found = 0, eq;
	unsigned i;

	for (i = 0; i <= window; i++) {
		eq = step_is(h, now_step + i, code, digits);
		if (eq && !found) {
			found = 1;
			*pos = (int64_t)i;
		}
		if (i > 0 && i <= now_step) {
			eq = step_is(h, now_step - i, code, digits);
			if (eq && !found) {
				found = 1;
				*pos = -(int64_t)i;
			}
		}
	}
	return found;
}

/* A last code as the original reads it back: 6 to 8 digits, its length. */
static unsigned
last_digits(const struct field *f)
{
	size_t i;

	if (f->n < 6 || f->n > 8)
		return 0;
	for (i = 0; i < f->n; i++)
		if (f->p[i] < '0' || f->p[i] > '9')
			return 0;
	return (unsigned)f->n;
}

/* The decision on one token of the user.  1 accepted (*counter, *offset),
 * 0 not this token, 2 replayed. */
static int
decide(enum otp_users_kind kind, unsigned digits, unsigned period,
    const struct otp_key *key, const struct field *pin, uint64_t counter,
    const struct field *last, const char *code, int64_t now,
    unsigned window, uint64_t *newc, int64_t *offset)
{
	struct otp_hmac h;
	char lastcode[16];
	int64_t pos = 0, ppos = 0;
	uint64_t step, i, w;
	unsigned ld;
	int found = 0, eq;

	if (kind == OTP_USERS_MOTP) {
		char pinz[OTP_USERS_FIELD_MAX], c[7], lc[7];
		int64_t tick = now / 10 - (now % 10 < 0), d, best = 0;
		int64_t rel;

		if (strlen(code) != 6 || pin->n >= sizeof(pinz))
			return 0;
		for (i = 0; i < 6; i++)
			lc[i] = (char)otp_ascii_lower((unsigned char)code[i]);
		lc[6] = '\0';
		memcpy(pinz, pin->p, pin->n);
		pinz[pin->n] = '\0';
		for (d = -OTP_USERS_MOTP_WINDOW; d <= OTP_USERS_MOTP_WINDOW;
		    d++) {
			if (otp_motp((const char *)key->buf, key->len, pinz,
			    (tick + d) * 10, c) != 0)
				continue;
			eq = otp_ct_equal(c, lc, 6);
			rel = d < 0 ? -d : d;
			if (eq && (!found || rel < (best < 0 ? -best : best))) {
				found = 1;
				best = d;
			}
		}
		otp_wipe(pinz, sizeof(pinz));
		otp_wipe(c, sizeof(c));
		otp_wipe(lc, sizeof(lc));
		if (!found)
			return 0;
		/* A tick at or before the last accepted one is refused. */
		if (last->n > 0 && tick + best >= 0 &&
		    (uint64_t)(tick + best) <= counter)
			return 2;
		*newc = (uint64_t)(tick + best);
		*offset = best;
		return 1;
	}
	if (!code_shape(code, digits))
		return 0;
	if (otp_hmac_init(&h, OTP_ALG_SHA1, key->buf, key->len) != 0)
		return 0;
	if (kind == OTP_USERS_HOTP) {
		/* Counters C..C+window; the first match wins. */
		w = UINT64_MAX - counter < window ? UINT64_MAX - counter :
		    window;
		for (i = 0; i <= w; i++) {
			eq = step_is(&h, counter + i, code, digits);
			if (eq && !found) {
				found = 1;
				pos = (int64_t)i;
			}
		}
		otp_hmac_wipe(&h);
		if (!found)
			return 0;
		*newc = counter + (uint64_t)pos;
		/* From the next code, as a state file counts: COUNTER's own
		 * once a code was accepted (LASTOTP) is the last one. */
		*offset = pos - (last->n > 0);
		return 1;
	}
	step = now < 0 ? 0 : (uint64_t)now / period;
	found = totp_pos(&h, step, window, code, digits, &pos);
	if (found && last->n > 0 && (ld = last_digits(last)) != 0) {
		/* Replayed: at or before the step of the last code. */
		memcpy(lastcode, last->p, last->n);
		lastcode[last->n] = '\0';
		if (totp_pos(&h, step, window, lastcode, ld, &ppos) &&
		    ppos >= pos) {
			otp_hmac_wipe(&h);
			otp_wipe(lastcode, sizeof(lastcode));
			return 2;
		}
		otp_wipe(lastcode, sizeof(lastcode));
	}
	otp_hmac_wipe(&h);
	if (!found)
		return 0;
	*newc = counter + (uint64_t)(pos < 0 ? -pos : pos);
	*offset = pos;
	return 1;
}

/* Days since 1970-01-01 to a civil date (proleptic Gregorian). */
static void
civil(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
	int64_t era, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	yoe = z - era * 146097;
	yoe = (yoe - yoe / 1460 + yoe / 36524 - yoe / 146096) / 365;
	doy = z - era * 146097 - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
	*m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

static void
put_2(struct out *o, unsigned v)
{
	char c[2] = { (char)('0' + v / 10 % 10), (char)('0' + v % 10) };

	put(o, c, 2);
}

/* now in zone as "%Y-%m-%dT%H:%M:%SL". */
static int
local_stamp(int64_t now, const struct otp_zone *zone, char *out,
    size_t outsz)
{
	struct out o = { out, 0, outsz - 1, 1 };
	int32_t off = 0;
	int64_t t, days, secs, y;
	unsigned m, d;
	int r;

	if (zone != NULL && (r = zone->offset(zone->arg, now, &off)) != 0)
		return r;
	if (now > INT64_MAX / 2 || now < INT64_MIN / 2)
		return OTP_ETIMERANGE;
	t = now + off;
	days = t / 86400 - (t % 86400 < 0);
	secs = t - days * 86400;
	civil(days, &y, &m, &d);
	if (y < 0 || y > 9999)
		return OTP_ETIMERANGE;
	put_2(&o, (unsigned)(y / 100));
	put_2(&o, (unsigned)(y % 100));
	puts_(&o, "-");
	put_2(&o, m);
	puts_(&o, "-");
	put_2(&o, d);
	puts_(&o, "T");
	put_2(&o, (unsigned)(secs / 3600));
	puts_(&o, ":");
	put_2(&o, (unsigned)(secs / 60 % 60));
	puts_(&o, ":");
	put_2(&o, (unsigned)(secs % 60));
	puts_(&o, "L");
	out[o.len] = '\0';
	return o.ok ? 0 : OTP_ENOSPACE;
}

/* out = img with [start, next) replaced by line[0..n). */
static int
splice(const char *img, size_t len, size_t start, size_t next,
    const char *line, size_t n, char *out, size_t outsz, size_t *outlen)
{
	struct out o = { out, 0, outsz, 1 };

	put(&o, img, start);
	put(&o, line, n);
	put(&o, img + next, len - next);
	if (!o.ok) {
		otp_wipe(out, o.len);
		return OTP_ENOSPACE;
	}
	*outlen = o.len;
	return 0;
}

int
otp_users_scan(struct otp_users_scan *s, const char *piece, size_t len,
    const char *user, const char *password, const char *code, int64_t now,
    const struct otp_zone *zone, unsigned window, struct otp_users_result *r)
{
	struct cursor c = { piece, len, 0, 0, 0, 0, 0 };
	struct field f[FIELDS_MAX], none = { "", 0 };
	struct otp_key key;
	enum otp_users_kind kind;
	unsigned digits, period;
	uint64_t counter, newc = 0;
	int64_t offset = 0;
	size_t n, ulen = strlen(user);
	int ret, d;
	char stamp[32];
	struct out o;

	if (s->done)
		return 0;
	if ((ret = image_ok(piece, len)) < 0)
		return ret;
	while (next_line(&c)) {
		if (!may_hold(piece + c.start, c.end - c.start, user, ulen))
			continue;
		n = split(piece + c.start, c.end - c.start, f, FIELDS_MAX);
		if (n < 2 || !parse_type(&f[0], &kind, &digits, &period) ||
		    !feq(&f[1], user))
			continue;
		if (n < 4)	/* the original passes over it, as we do */
			continue;
		r->line = s->lineno + c.lineno;
		if (!password_ok(&f[2], kind, password)) {
			s->bad_password = 1;
			s->skipped++;
			continue;
		}
		s->bad_password = 0;
		if ((ret = parse_key(&f[3], kind, &key)) < 0)
			return ret;
		counter = 0;
		if (n > 4 && (ret = parse_counter(&f[4], &counter)) < 0)
			goto fail;
		if (n > 6 && (ret = check_time(&f[6])) < 0)
			goto fail;
		/* The last code again: refused at once (not for mOTP, whose
		 * rule is the tick). */
		if (kind != OTP_USERS_MOTP && n > 5 && feq(&f[5], code)) {
			r->why = OTP_USERS_WHY_REPLAYED;
			r->kind = kind;
			s->done = 1;
			otp_wipe(&key, sizeof(key));
			return 0;
		}
		d = decide(kind, digits, period, &key, &f[2], counter,
		    n > 5 ? &f[5] : &none, code, now, window, &newc, &offset);
		otp_wipe(&key, sizeof(key));
		if (d == 0) {
			s->skipped++;
			continue;
		}
		r->kind = kind;
		s->done = 1;
		if (d == 2) {
			r->why = OTP_USERS_WHY_REPLAYED;
			return 0;
		}
		/* Rebuild the line: the fields as written, the new
		 * COUNTER, the code as typed and the local time. */
		if ((ret = local_stamp(now, zone, stamp, sizeof(stamp))) < 0)
			return ret;
		o = (struct out){ s->line, 0, sizeof(s->line), 1 };
		put(&o, f[0].p, f[0].n);
		puts_(&o, "\t");
		put(&o, f[1].p, f[1].n);
		puts_(&o, "\t");
		put(&o, f[2].p, f[2].n);
		puts_(&o, "\t");
		put(&o, f[3].p, f[3].n);
		puts_(&o, "\t");
		put_u64(&o, newc);
		puts_(&o, "\t");
		puts_(&o, code);
		puts_(&o, "\t");
		puts_(&o, stamp);
		puts_(&o, "\n");
		if (!o.ok) {
			otp_wipe(s->line, sizeof(s->line));
			return OTP_ENOSPACE;
		}
		s->start = c.start;
		s->next = c.next;
		s->linelen = o.len;
		r->accepted = 1;
		r->offset = offset;
		r->counter = newc;
		return 0;
	}
	s->lineno += c.lineno;
	return 0;
fail:
	otp_wipe(&key, sizeof(key));
	return ret;
}

void
otp_users_scan_end(struct otp_users_scan *s, struct otp_users_result *r)
{
	if (s->done)
		return;
	s->done = 1;
	r->line = 0;
	r->why = s->skipped == 0 ? OTP_USERS_WHY_UNKNOWN : s->bad_password ?
	    OTP_USERS_WHY_PASSWORD : OTP_USERS_WHY_WRONG;
}

int
otp_users_check(const char *img, size_t len, const char *user,
    const char *password, const char *code, int64_t now,
    const struct otp_zone *zone, unsigned window,
    struct otp_users_result *r, char *out, size_t outsz, size_t *outlen)
{
	struct otp_users_scan s;
	int ret;

	memset(r, 0, sizeof(*r));
	memset(&s, 0, sizeof(s));
	*outlen = 0;
	ret = otp_users_scan(&s, img, len, user, password, code, now, zone,
	    window, r);
	if (ret == 0 && r->accepted)
		ret = splice(img, len, s.start, s.next, s.line, s.linelen, out,
		    outsz, outlen);
	else if (ret == 0)
		otp_users_scan_end(&s, r);
	if (ret < 0)
		r->accepted = 0;
	otp_wipe(s.line, sizeof(s.line));
	return ret;
}

/* The PASSWORD of user's first token line in img[0..len) into pw, or "-"
 * when the user has none. */
static void
old_password(const char *img, size_t len, const char *user, char *pw,
    size_t pwsz)
{
	struct cursor c = { img, len, 0, 0, 0, 0, 0 };
	struct field f[3];
	enum otp_users_kind kind;
	unsigned digits, period;

	memcpy(pw, "-", 2);
	while (next_line(&c))
		if (split(img + c.start, c.end - c.start, f, 3) == 3 &&
		    parse_type(&f[0], &kind, &digits, &period) &&
		    feq(&f[1], user) && f[2].n < pwsz) {
			memcpy(pw, f[2].p, f[2].n);
			pw[f[2].n] = '\0';
			return;
		}
}

int
otp_users_set(const char *img, size_t len, const struct otp_users_token *t,
    int replace, char *out, size_t outsz, size_t *outlen)
{
	struct cursor c = { img, len, 0, 0, 0, 0, 0 };
	struct field f[4];
	enum otp_users_kind kind;
	unsigned digits, period;
	char line[OTP_USERS_LINE_MAX];
	struct out o = { out, 0, outsz, 1 };
	struct otp_users_token keep;
	int n, ret = 0, placed = 0;

	*outlen = 0;
	if ((ret = image_ok(img, len)) < 0)
		return ret;
	if (t->password[0] == '\0') {
		/* No PASSWORD: the user's own stays, so a new key does not
		 * take the PIN away. */
		keep = *t;
		old_password(img, len, t->user, keep.password,
		    sizeof(keep.password));
		n = otp_users_line_format(&keep, line, sizeof(line));
		otp_wipe(&keep, sizeof(keep));
	} else
		n = otp_users_line_format(t, line, sizeof(line));
	if (n < 0) {
		otp_wipe(line, sizeof(line));
		return n;
	}
	while (next_line(&c)) {
		if (split(img + c.start, c.end - c.start, f, 4) >= 2 &&
		    parse_type(&f[0], &kind, &digits, &period) &&
		    feq(&f[1], t->user)) {
			if (!replace) {
				ret = OTP_EUSERSEXIST;
				goto out;
			}
			if (!placed)
				put(&o, line, (size_t)n);
			placed = 1;
			continue;
		}
		put(&o, img + c.start, c.next - c.start);
	}
	if (!placed) {
		if (len > 0 && img[len - 1] != '\n')
			puts_(&o, "\n");
		put(&o, line, (size_t)n);
	}
	if (!o.ok)
		ret = OTP_ENOSPACE;
	else
		*outlen = o.len;
out:
	otp_wipe(line, sizeof(line));
	if (ret < 0)
		otp_wipe(out, o.len);
	return ret;
}

/*
 * Conversions between token lines and otpauth accounts, for otp-uri's
 * "oath" format: what a line cannot carry is refused, never changed, so
 * that a line made from a URI reads back as the same URI.
 */
unsigned
otp_users_from_uri(const struct otp_uri *u, unsigned drop,
    struct otp_users_token *t)
{
	size_t n = strlen(u->account), i, bad;
	unsigned no = 0;

	memset(t, 0, sizeof(*t));
	if (u->steam)
		no |= OTP_USERS_NO_STEAM;
	else {
		if (u->digits < 6 || u->digits > 8)
			no |= OTP_USERS_NO_DIGITS;
		if (u->type == OTP_TYPE_TOTP && u->period != 30 &&
		    u->period != 60)
			no |= OTP_USERS_NO_PERIOD;
	}
	if (u->alg != OTP_ALG_SHA1)
		no |= OTP_USERS_NO_ALG;
	if (u->issuer[0] != '\0')
		no |= OTP_USERS_NO_ISSUER;
	if (u->extra[0] != '\0')
		no |= OTP_USERS_NO_EXTRA;
	/* The file splits fields at space, TAB, CR and LF; the rest of C0,
	 * DEL and C1 no user name has. */
	if (n == 0 || n >= sizeof(t->user) || otp_text_check(u->account, n,
	    &bad) != 0)
		no |= OTP_USERS_NO_USER;
	for (i = 0; i < n; i++)
		if (u->account[i] == ' ')
			no |= OTP_USERS_NO_USER;
	/* No parsed account is of another type or without a key; one that
	 * is has no line either. */
	if ((u->type != OTP_TYPE_HOTP && u->type != OTP_TYPE_TOTP) ||
	    u->key.len == 0 || u->key.len > sizeof(t->key.buf))
		no |= OTP_USERS_NO_ALG;
	no &= ~(drop & (OTP_USERS_NO_ISSUER | OTP_USERS_NO_EXTRA));
	if (no != 0)
		return no;
	t->kind = u->type == OTP_TYPE_TOTP ? OTP_USERS_TOTP : OTP_USERS_HOTP;
	t->digits = u->digits;
	t->period = t->kind == OTP_USERS_TOTP ? (unsigned)u->period : 0;
	t->counter = t->kind == OTP_USERS_HOTP ? u->counter : 0;
	memcpy(t->user, u->account, n + 1);
	memcpy(t->password, "-", 2);
	memcpy(t->key.buf, u->key.buf, u->key.len);
	t->key.len = u->key.len;
	return 0;
}

/* The counter whose code pam_oath takes next from HOTP line t: COUNTER,
 * or one on when LASTOTP is COUNTER's code (the line's last accept,
 * which pam_oath refuses again as replayed).  Any other LASTOTP is no
 * code of COUNTER's, so its code is still taken. */
static uint64_t
next_hotp(const struct otp_users_token *t)
{
	struct otp_hmac h;
	int used;

	if (t->lastotp[0] == '\0' || strcmp(t->lastotp, "-") == 0 ||
	    t->counter == UINT64_MAX || strlen(t->lastotp) != t->digits ||
	    otp_hmac_init(&h, OTP_ALG_SHA1, t->key.buf, t->key.len) != 0)
		return t->counter;
	used = step_is(&h, t->counter, t->lastotp, t->digits);
	otp_hmac_wipe(&h);
	return t->counter + (used != 0);
}

int
otp_users_to_uri(const struct otp_users_token *t, struct otp_uri *u)
{
	size_t n = strlen(t->user);

	otp_uri_init(u);
	if (t->kind == OTP_USERS_MOTP || n >= sizeof(u->account) ||
	    t->key.len == 0 || t->key.len > sizeof(u->key.buf))
		return OTP_EINVAL;
	u->type = t->kind == OTP_USERS_TOTP ? OTP_TYPE_TOTP : OTP_TYPE_HOTP;
	u->digits = t->digits;
	if (t->kind == OTP_USERS_TOTP)
		u->period = t->period;
	else
		u->counter = next_hotp(t);
	memcpy(u->account, t->user, n + 1);
	memcpy(u->key.buf, t->key.buf, t->key.len);
	u->key.len = t->key.len;
	return 0;
}

static void
cut_field(const struct field *f, size_t n, size_t k, char *out, size_t outsz)
{
	size_t m;

	if (outsz == 0)
		return;
	m = k < n ? f[k].n : 0;
	if (m >= outsz)
		m = outsz - 1;
	if (m > 0)
		memcpy(out, f[k].p, m);
	out[m] = '\0';
}

int
otp_users_line_other(const char *line, size_t len, char *type,
    size_t typesz, char *user, size_t usersz)
{
	struct field f[2];
	size_t n;

	n = split(line, len, f, 2);
	cut_field(f, n, 0, type, typesz);
	cut_field(f, n, 1, user, usersz);
	return n > 0 && f[0].p[0] != '#';
}

int
otp_users_get(const char *img, size_t len, const char *user,
    struct otp_users_token *t)
{
	struct cursor c = { img, len, 0, 0, 0, 0, 0 };
	int r;

	if ((r = find_user(&c, user)) != 1)
		return r;
	return otp_users_line_parse(img + c.start, c.end - c.start, t);
}

/*
 * A users-file token as a state file image: HOTP or TOTP (30 or 60 s),
 * the kinds both hold, answering as pam_oath with window= would.  HOTP:
 * HOTP_COUNTER the counter pam_oath takes next (next_hotp); a counter of
 * 0 (a line never used) is the token's first code, which a state file
 * says with our HOTP_ZERO line; WINDOW_SIZE the window's codes past the
 * last accept.  TOTP: WINDOW_SIZE 2 window + 1, the steps either side,
 * and DISALLOW_REUSE, since pam_oath never takes a code twice.  TOTP's
 * last code is not carried: the state file records steps, the line a
 * time in local time.
 */
int
otp_users_to_state(const struct otp_users_token *t, unsigned window,
    char *out, size_t outsz, size_t *outlen)
{
	struct otp_state_new n;
	struct otp_uri u;
	char val[24];
	unsigned w;
	int r, pin;

	*outlen = 0;
	if (t->kind == OTP_USERS_MOTP || t->digits < 6 || t->digits > 8)
		return OTP_ECONVERT;
	if (window > OTP_USERS_STATE_WINDOW_MAX)
		return OTP_ERANGE;
	/* "-" and "+" are no PIN; a PIN must fit the image's PIN line. */
	pin = strcmp(t->password, "-") != 0 && strcmp(t->password, "+") != 0;
	if (pin && !otp_state_pin_ok(t->password))
		return OTP_ECONVERT;
	if ((r = otp_users_to_uri(t, &u)) < 0)
		return r;
	/* Beyond what a state file reads back (its counters stay below
	 * 2^63 - 200): no such token in practice, but not a silent wrap. */
	if (u.counter > (uint64_t)INT64_MAX - 200) {
		otp_wipe(&u, sizeof(u));
		return OTP_ECONVERT;
	}
	memset(&n, 0, sizeof(n));
	n.mode = u.type == OTP_TYPE_HOTP ? OTP_STATE_HOTP : OTP_STATE_TOTP;
	if (n.mode == OTP_STATE_TOTP && u.period != 30)
		n.step = (unsigned)u.period;
	n.digits = t->digits;
	n.disallow_reuse = n.mode == OTP_STATE_TOTP;
	n.pin = pin ? t->password : NULL;
	r = otp_state_build(u.key.buf, u.key.len, &n, out, outsz, outlen);
	w = n.mode == OTP_STATE_TOTP ? 2 * window + 1 : window > 0 ? window : 1;
	(void)snprintf(val, sizeof(val), "%u", w);
	if (r == 0)
		r = otp_state_set_option(out, outlen, outsz, "WINDOW_SIZE",
		    val);
	if (r == 0 && n.mode == OTP_STATE_HOTP) {
		(void)snprintf(val, sizeof(val), "%llu",
		    (unsigned long long)u.counter);
		r = otp_state_set_option(out, outlen, outsz, "HOTP_COUNTER",
		    val);
		if (r == 0 && u.counter == 0)
			r = otp_state_set_option(out, outlen, outsz,
			    "HOTP_ZERO", "");
	}
	otp_wipe(&u, sizeof(u));
	if (r < 0)
		otp_wipe(out, outsz);
	return r;
}

/* A state file image as user's token line: HOTP, or TOTP with a step of
 * 30 or 60 s; COUNTER the next code (no LASTOTP).  Its scratch codes and
 * skew have no place in a line: the caller says so.  st is room for the
 * parse (it is large: a state file's every scratch code). */
int
otp_users_from_state(const char *img, size_t len, const char *user,
    struct otp_state *st, struct otp_users_token *t)
{
	size_t n = strlen(user);
	int r;

	memset(t, 0, sizeof(*t));
	if (n == 0 || n >= sizeof(t->user))
		return OTP_EUSERSFIELD;
	if ((r = otp_state_parse(img, len, st)) < 0)
		return r;
	/* A line's codes are SHA1 (DIGITS and PIN it holds). */
	if (st->mode == OTP_STATE_SCRATCHONLY ||
	    (st->mode == OTP_STATE_TOTP && st->step != 30 && st->step != 60) ||
	    st->alg != OTP_ALG_SHA1 || st->key.len > sizeof(t->key.buf)) {
		otp_wipe(st, sizeof(*st));
		return OTP_ECONVERT;
	}
	t->kind = st->mode == OTP_STATE_HOTP ? OTP_USERS_HOTP : OTP_USERS_TOTP;
	t->digits = st->digits;
	t->period = st->mode == OTP_STATE_TOTP ? st->step : 0;
	memcpy(t->user, user, n + 1);
	if (st->pin[0] != '\0')
		memcpy(t->password, st->pin, strlen(st->pin) + 1);
	else
		memcpy(t->password, "-", 2);
	memcpy(t->key.buf, st->key.buf, st->key.len);
	t->key.len = st->key.len;
	t->counter = st->mode == OTP_STATE_HOTP ? st->hotp_counter : 0;
	otp_wipe(st, sizeof(*st));
	return 0;
}

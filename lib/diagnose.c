/*
 * diagnose.c - why does a code not verify?  Try the parameter mistakes
 * people make when they set up an authenticator (algorithm, digits, step,
 * key encoding, start time, time zone, HOTP for TOTP) and list the ones
 * under which the code does verify, most likely first.
 *
 * Every extra hypothesis is another chance of a false match (10^-6 each
 * for six digits), so the search stays bounded: at most two mistakes at
 * a time; drift of up to an hour (2000 HOTP counters) alone, or with one
 * other mistake (100 counters); a window's width around every other
 * guess.  About 4000 candidate codes in all: a few milliseconds, and a
 * chance of a false match below 1% for six digits, less for more.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "otp.h"
#include "otp_uri.h"

/* What each mistake costs in rank: the lower, the more common. */
#define COST_DRIFT	10
#define COST_ALG	20
#define COST_STEP	20
#define COST_DIGITS	20
#define COST_PREFIX	25
#define COST_COUNTER	25
#define COST_ENC	30
#define COST_TYPE	30
#define COST_START	30
#define COST_SHIFT	30

#define MAX_MISTAKES	2
#define HALF_HOURS	28		/* time-zone shifts up to ±14 h */
#define DRIFT_SECONDS	3600		/* drift searched: ±1 h (a slow phone) */
#define HOTP_DRIFT	2000		/* counters ahead of the window */
#define HOTP_DRIFT_ALG	100		/* the same with a wrong algorithm */
#define HOTP_FRESH	10		/* counters of a new HOTP token */

struct search {
	const struct otp_diag_params	*p;
	const char	*code;
	size_t		 len;		/* the code's length */
	struct otp_hmac	 h;
	struct otp_finding	 f;	/* the hypothesis being tried */
	struct otp_finding	*out;
	size_t		 max, n;
};

static unsigned
mistakes(unsigned differs)
{
	unsigned m = 0, bit;

	for (bit = OTP_DIFF_ENC; bit <= OTP_DIFF_COUNTER; bit <<= 1) {
		/* The code's length is a fact, not a guess; drift only
		 * comes with no other mistake. */
		if (bit != OTP_DIFF_DIGITS && bit != OTP_DIFF_DRIFT &&
		    (differs & bit))
			m++;
	}
	return m;
}

static unsigned
cost(const struct otp_finding *f)
{
	unsigned c = 0;
	uint64_t d;

	/* Verifying as given, anywhere in the window, is the answer. */
	if (f->differs == 0)
		return 0;
	c += f->differs & OTP_DIFF_ENC ? COST_ENC : 0;
	c += f->differs & OTP_DIFF_ALG ? COST_ALG : 0;
	c += f->differs & OTP_DIFF_PREFIX ? COST_PREFIX : 0;
	c += f->differs & OTP_DIFF_TYPE ? COST_TYPE : 0;
	c += f->differs & OTP_DIFF_STEP ? COST_STEP : 0;
	c += f->differs & OTP_DIFF_START ? COST_START : 0;
	c += f->differs & OTP_DIFF_COUNTER ? COST_COUNTER : 0;
	c += f->differs & OTP_DIFF_DRIFT ? COST_DRIFT : 0;
	if (f->differs & OTP_DIFF_SHIFT) {
		/* Whole hours before half hours, near before far. */
		d = (uint64_t)(f->shift < 0 ? -f->shift : f->shift);
		c += COST_SHIFT + (d % 3600 != 0 ? 5u : 0u) +
		    (unsigned)(d / 3600);
	}
	d = (uint64_t)(f->offset < 0 ? -f->offset : f->offset);
	return c + (d > 1000 ? 1000 : (unsigned)d);
}

/* 1 when a and b name the same code: the same key reading, algorithm,
 * length, type, step and start, and the same counter.  Two hypotheses
 * that reach one code (a clock 30 min behind, or drift of 60 steps) are
 * one explanation, told the likelier way. */
static int
same_code(const struct otp_finding *a, const struct otp_finding *b)
{
	return a->enc == b->enc && a->alg == b->alg &&
	    a->digits == b->digits && a->type == b->type &&
	    a->step == b->step && a->start == b->start &&
	    a->counter == b->counter;
}

/* Keep the finding if it ranks among the best max, in rank order, and
 * once per code. */
static void
record(struct search *s)
{
	size_t i;

	s->f.rank = cost(&s->f);
	for (i = 0; i < s->n; i++) {
		if (!same_code(&s->out[i], &s->f))
			continue;
		if (s->out[i].rank <= s->f.rank)
			return;
		/* The new one tells it better: drop the old. */
		memmove(&s->out[i], &s->out[i + 1], (s->n - i - 1) *
		    sizeof(s->out[0]));
		s->n--;
		break;
	}
	if (s->n == s->max && (s->max == 0 ||
	    s->out[s->max - 1].rank <= s->f.rank))
		return;
	i = s->n < s->max ? s->n++ : s->max - 1;
	while (i > 0 && s->out[i - 1].rank > s->f.rank) {
		s->out[i] = s->out[i - 1];
		i--;
	}
	s->out[i] = s->f;
}

/* Does counter give the code, read as a whole code of its own length or
 * as the first digits of a longer one?  Tries each such length in turn. */
static void
try_counter(struct search *s, uint64_t counter, int64_t offset, int *done)
{
	uint32_t v = otp_hotp_value(&s->h, counter);
	char text[OTP_CODE_MAX];
	unsigned g, base = s->f.differs;

	for (g = (unsigned)s->len; g <= 8 || g == s->len; g++) {
		unsigned bit = g == s->len ? 0 : OTP_DIFF_PREFIX;

		if (done[g - OTP_DIGITS_MIN])
			continue;
		if (mistakes(base | bit) > MAX_MISTAKES)
			continue;
		if (otp_code_decimal(v, g, text, sizeof(text)) != 0)
			continue;
		if (!otp_ct_equal(text, s->code, s->len))
			continue;
		done[g - OTP_DIGITS_MIN] = 1;
		s->f.differs = base | bit;
		s->f.digits = g;
		s->f.counter = counter;
		s->f.offset = offset;
		record(s);
		s->f.differs = base;
	}
	otp_wipe(text, sizeof(text));
}

/* Counters around (TOTP) or ahead of (HOTP) centre, nearest first; the
 * first match of each code length is the finding.  Offsets beyond
 * tolerance are marked as drift. */
static void
try_window(struct search *s, uint64_t centre, uint64_t reach,
    uint64_t tolerance, int around)
{
	int done[OTP_DIGITS_MAX - OTP_DIGITS_MIN + 1] = { 0 };
	unsigned base = s->f.differs;
	uint64_t k;

	for (k = 0; k <= reach; k++) {
		if (k > tolerance)
			s->f.differs = base | OTP_DIFF_DRIFT;
		if (around && k > 0 && centre >= k)
			try_counter(s, centre - k, -(int64_t)k, done);
		if (centre <= UINT64_MAX - k)
			try_counter(s, centre + k, (int64_t)k, done);
	}
	s->f.differs = base;
}

/* How far plain drift is searched: extra beyond the window, capped. */
static uint64_t
drift(uint64_t window, uint64_t extra)
{
	if (extra < 2)
		extra = 2;
	return window > OTP_WINDOW_MAX - extra ? OTP_WINDOW_MAX :
	    window + extra;
}

static void
try_totp(struct search *s, unsigned base)
{
	const struct otp_diag_params *p = s->p;
	uint64_t steps[3] = { p->step, 30, 60 }, centre;
	uint64_t near = p->window > 0 ? p->window : 1;
	int64_t starts[2] = { p->start, 0 }, shift, t;
	size_t i, j;
	int k;

	for (i = 0; i < 3; i++) {
		if (i > 0 && steps[i] == p->step)
			continue;
		for (j = 0; j < 2; j++) {
			if (j == 1 && p->start == 0)
				continue;
			for (k = -HALF_HOURS; k <= HALF_HOURS; k++) {
				/* 0 first is not needed: findings are sorted
				 * by rank, not by discovery. */
				shift = (int64_t)k * 1800;
				s->f.differs = base |
				    (i > 0 ? OTP_DIFF_STEP : 0) |
				    (j > 0 ? OTP_DIFF_START : 0) |
				    (k != 0 ? OTP_DIFF_SHIFT : 0);
				if (mistakes(s->f.differs) > MAX_MISTAKES)
					continue;
				if (__builtin_add_overflow(p->now, shift, &t) ||
				    otp_totp_counter(t, starts[j], steps[i],
				    &centre) != 0)
					continue;
				s->f.type = OTP_TYPE_TOTP;
				s->f.step = steps[i];
				s->f.start = starts[j];
				s->f.shift = shift;
				/* Drift is searched wide alone or with one
				 * other mistake (a wrong algorithm or step),
				 * never with a shift: the wide search covers
				 * the near shifts already. */
				if (k == 0 && mistakes(s->f.differs) <= 1)
					try_window(s, centre, drift(p->window,
					    DRIFT_SECONDS / steps[i]),
					    s->f.differs & ~(unsigned)
					    OTP_DIFF_DIGITS ? near : p->window,
					    1);
				else
					try_window(s, centre, near, near, 1);
			}
		}
	}
}

static void
try_hotp(struct search *s, unsigned base)
{
	const struct otp_diag_params *p = s->p;
	uint64_t near = p->window > 2 ? p->window : 2;

	s->f.type = OTP_TYPE_HOTP;
	s->f.step = 0;
	s->f.start = 0;
	s->f.shift = 0;
	s->f.differs = base;
	if (base & OTP_DIFF_TYPE) {
		/* A new HOTP token counts from zero. */
		try_window(s, 0, HOTP_FRESH, HOTP_FRESH, 0);
		return;
	}
	if ((base & ~(unsigned)OTP_DIFF_DIGITS) == 0)
		try_window(s, p->counter, drift(p->window, HOTP_DRIFT),
		    p->window, 0);
	else if (mistakes(base) <= 1)
		try_window(s, p->counter, drift(p->window, HOTP_DRIFT_ALG),
		    near, 0);
	else
		try_window(s, p->counter, near, near, 0);
	if (p->counter > HOTP_FRESH) {
		/* The server's counter moved on; the token was reset, or
		 * is a new one. */
		s->f.differs = base | OTP_DIFF_COUNTER;
		if (mistakes(s->f.differs) <= MAX_MISTAKES)
			try_window(s, 0, HOTP_FRESH, HOTP_FRESH, 0);
	}
	s->f.differs = base;
}

static int
search_key(struct search *s, const struct otp_key *key, unsigned base)
{
	static const enum otp_alg algs[] = {
		OTP_ALG_SHA1, OTP_ALG_SHA256, OTP_ALG_SHA512
	};
	const struct otp_diag_params *p = s->p;
	unsigned b;
	size_t i;
	int rc;

	for (i = 0; i < 3; i++) {
		b = base | (algs[i] != p->alg ? OTP_DIFF_ALG : 0);
		if (mistakes(b) > MAX_MISTAKES)
			continue;
		if ((rc = otp_hmac_init(&s->h, algs[i], key->buf,
		    key->len)) != 0)
			return rc;
		s->f.alg = algs[i];
		if (p->type == OTP_TYPE_TOTP) {
			try_totp(s, b);
			if (mistakes(b | OTP_DIFF_TYPE) <= MAX_MISTAKES)
				try_hotp(s, b | OTP_DIFF_TYPE);
		} else {
			try_hotp(s, b);
			if (mistakes(b | OTP_DIFF_TYPE) <= MAX_MISTAKES)
				try_totp(s, b | OTP_DIFF_TYPE);
		}
		otp_hmac_wipe(&s->h);
	}
	return 0;
}

/* Search the common parameter mistakes for ones under which code
 * verifies; out gets up to max findings, most likely first.  Returns
 * their number (0: nothing explains it) or an OTP_E* code for a key that
 * decodes under no encoding, a malformed code, or OTP_EWINDOW. */
int
otp_diagnose(const struct otp_diag_params *p, const char *code,
    struct otp_finding *out, size_t max)
{
	struct search s;
	struct otp_uri u;
	enum otp_keyenc encs[2];
	size_t erroff;
	unsigned base;
	int n, rc, first = 0, i, nread = 0, uri;

	if ((n = otp_code_check(code, 0)) < 0)
		return n;
	if (p->digits != 0 && (p->digits < OTP_DIGITS_MIN ||
	    p->digits > OTP_DIGITS_MAX))
		return OTP_EDIGITS;
	if (p->window > OTP_DIAG_WINDOW_MAX)
		return OTP_EWINDOW;
	if (p->type == OTP_TYPE_TOTP && p->step == 0)
		return OTP_ESTEP;
	memset(&s, 0, sizeof(s));
	s.p = p;
	s.code = code;
	s.len = (size_t)n;
	s.out = out;
	s.max = max;
	base = p->digits != 0 && (unsigned)n != p->digits ?
	    OTP_DIFF_DIGITS : 0;
	encs[0] = p->enc;
	encs[1] = p->enc == OTP_KEYENC_HEX ? OTP_KEYENC_BASE32 :
	    OTP_KEYENC_HEX;
	for (i = 0; i < 2; i++) {
		otp_uri_init(&u);
		if ((rc = otp_key_parse(p->key, encs[i], &u, &erroff)) != 0) {
			/* The given reading's error is the one to report. */
			if (i == 0)
				first = rc;
			otp_wipe(&u, sizeof(u));
			continue;
		}
		nread++;
		s.f.enc = encs[i];
		rc = search_key(&s, &u.key, base |
		    (i == 1 ? OTP_DIFF_ENC : 0));
		uri = u.is_uri;
		otp_wipe(&u, sizeof(u));
		if (rc != 0) {
			otp_wipe(&s, sizeof(s));
			return rc;
		}
		if (uri)
			break;	/* a URI has one reading */
	}
	if (nread == 0) {
		otp_wipe(&s, sizeof(s));
		return first;
	}
	n = (int)s.n;
	otp_wipe(&s, sizeof(s));
	return n;
}

/* ---- a finding in words ------------------------------------------------ */

/* snprintf at out + n, never past outsz; n becomes the new length (at
 * most outsz - 1) and full is set when something did not fit. */
#define APPEND(...) do {						\
	int w_ = n < outsz ? snprintf(out + n, outsz - n, __VA_ARGS__) : -1; \
	if (w_ < 0 || (size_t)w_ >= outsz - n) {			\
		full = 1;						\
		n = outsz - 1;						\
	} else								\
		n += (size_t)w_;					\
} while (0)
#define PART(...) do {							\
	APPEND("%s", sep);						\
	APPEND(__VA_ARGS__);						\
	sep = "; ";							\
} while (0)

int
otp_diag_text(const struct otp_diag_params *p, const struct otp_finding *f,
    size_t len, char *out, size_t outsz)
{
	char t1[64], t2[64], h[64];
	const char *sep = "";
	uint64_t d;
	size_t n = 0;
	int full = 0;

	if (out == NULL || outsz == 0)
		return OTP_ENOSPACE;
	out[0] = '\0';
	if (f->differs == 0)
		PART("verifies with the given parameters");
	if (f->differs & OTP_DIFF_ENC)
		PART("the key is %s, not %s", f->enc == OTP_KEYENC_BASE32 ?
		    "Base32 (-b)" : "hex (-x)", f->enc == OTP_KEYENC_BASE32 ?
		    "hex" : "Base32");
	if (f->differs & OTP_DIFF_ALG)
		PART("algorithm %s, not %s", otp_alg_name(f->alg),
		    otp_alg_name(p->alg));
	if (f->differs & OTP_DIFF_DIGITS)
		PART("%u digits, not %u", f->digits, p->digits);
	if (f->differs & OTP_DIFF_PREFIX)
		PART("the first %zu of %u digits", len, f->digits);
	if (f->differs & OTP_DIFF_TYPE)
		PART("%s, not %s", f->type == OTP_TYPE_TOTP ? "TOTP" : "HOTP",
		    f->type == OTP_TYPE_TOTP ? "HOTP" : "TOTP");
	if (f->differs & OTP_DIFF_STEP)
		PART("%" PRIu64 " s steps, not %" PRIu64 " s", f->step,
		    p->step);
	if (f->differs & OTP_DIFF_START) {
		if (otp_time_format_utc(f->start, t1, sizeof(t1)) < 0)
			snprintf(t1, sizeof(t1), "?");
		if (otp_time_format_utc(p->start, t2, sizeof(t2)) < 0)
			snprintf(t2, sizeof(t2), "?");
		PART("start time %s, not %s", t1, t2);
	}
	if (f->differs & OTP_DIFF_SHIFT) {
		d = (uint64_t)(f->shift < 0 ? -f->shift : f->shift);
		(void)otp_duration_text(d, h, sizeof(h));
		PART("the client's clock is %s %s (a time-zone error)", h,
		    f->shift < 0 ? "behind" : "ahead");
	}
	if (f->differs & OTP_DIFF_COUNTER)
		PART("the token counts from 0, not %" PRIu64, p->counter);
	if (f->differs & OTP_DIFF_DRIFT) {
		d = (uint64_t)(f->offset < 0 ? -f->offset : f->offset);
		if (f->type == OTP_TYPE_HOTP)
			PART("the token is %" PRIu64 " counter%s ahead, beyond "
			    "the window", d, d == 1 ? "" : "s");
		else if (!__builtin_mul_overflow(d, f->step, &d)) {
			(void)otp_duration_text(d, h, sizeof(h));
			PART("the client's clock is %s %s, beyond the window",
			    h, f->offset < 0 ? "behind" : "ahead");
		} else
			PART("clock drift beyond the window");
	}
	APPEND(" (%s %" PRIu64 ", offset %s%" PRId64 ")", f->type ==
	    OTP_TYPE_HOTP ? "counter" : "step", f->counter, f->offset > 0 ?
	    "+" : "", f->offset);
	return full ? OTP_ENOSPACE : (int)n;
}
#undef PART
#undef APPEND

/*
 * verify.c - checking a one-time password against a window of counters
 * (RFC 4226 §7.4, RFC 6238 §5.2) in constant time, and finding where a run
 * of consecutive codes sits (clock skew, HOTP resynchronisation).
 */
#include <string.h>

#include "otp.h"

/* All-ones when a == b, else zero, without a branch on the values. */
static uint64_t
eq_mask(uint64_t a, uint64_t b)
{
	uint64_t d = a ^ b;

	/* d | -d has its top bit set exactly when d != 0. */
	return ((d | (0 - d)) >> 63) - 1;
}

/* Case changes of ASCII letters only: the answer must not depend on the
 * locale. */
static char
ascii_upper(char c)
{
	return c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
}

static char
ascii_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

int
otp_code_check(const char *code, unsigned digits)
{
	size_t n;

	for (n = 0; code[n] != '\0'; n++) {
		if (code[n] < '0' || code[n] > '9' || n > OTP_DIGITS_MAX)
			return OTP_ECODE;
	}
	if (n < OTP_DIGITS_MIN || n > OTP_DIGITS_MAX)
		return OTP_ECODE;
	if (digits != 0 && n != digits)
		return OTP_ECODE;
	return (int)n;
}

/*
 * The scan.  Every candidate in the window is hashed and compared; the
 * choice of the winner is folded in with masks, so the time taken depends
 * on the window only, never on where (or whether) the code matched.
 *
 * The winner is the match nearest the centre, the earlier step on a tie:
 * a client that shows the code of the previous step (the user read it,
 * then typed it) is far more common than one running ahead.  A candidate
 * replaces the one held only when strictly nearer, so any order in which
 * an earlier step comes before a later one at the same distance gives
 * that answer: the window is hashed in ascending batches (below the
 * centre each match is nearer than the last), and Mobile-OTP goes centre,
 * -1, +1, -2, ...  AHEAD is centre, centre+1, ...; AROUND reaches as far
 * below the centre.
 */
struct scan {
	uint64_t	found;		/* all-ones once something matched */
	uint64_t	counter;	/* the best match so far */
	uint64_t	negative;	/* all-ones when it lies below centre */
	uint64_t	distance;	/* its distance from centre */
};

/* All-ones when a < b, for a, b < 2^63, without a branch on the values. */
static uint64_t
lt_mask(uint64_t a, uint64_t b)
{
	return (uint64_t)0 - ((a - b) >> 63);
}

static void
scan_take(struct scan *s, uint64_t match, uint64_t counter, uint64_t neg,
    uint64_t distance)
{
	uint64_t take = match & (~s->found | lt_mask(distance, s->distance));

	s->counter = (s->counter & ~take) | (counter & take);
	s->negative = (s->negative & ~take) | (neg & take);
	s->distance = (s->distance & ~take) | (distance & take);
	s->found |= match;
}

static int
scan_result(const struct scan *s, struct otp_match *m)
{
	if (s->found == 0)
		return 0;
	m->counter = s->counter;
	m->offset = s->negative ? -(int64_t)s->distance :
	    (int64_t)s->distance;
	return 1;
}

/* What one candidate is compared with: a decimal code as its value modulo
 * 10^digits, a Steam code as its text. */
struct want {
	int		steam;
	uint64_t	value;
	uint64_t	modulus;
	char		text[6];
};

/* All-ones when the truncated value v gives the wanted code. */
static uint64_t
candidate(uint32_t v, const struct want *w)
{
	char text[6];
	uint64_t r;

	if (!w->steam)
		return eq_mask(v % w->modulus, w->value);
	otp_code_steam(v, text);
	r = (uint64_t)0 - (uint64_t)otp_ct_equal(text, w->text, 5);
	otp_wipe(text, sizeof(text));
	return r;
}

/* Candidates hashed per otp_hotp_values call. */
#define SCAN_BATCH	256

static int
scan_window(struct otp_hmac *h, const struct want *w, uint64_t centre,
    uint64_t window, enum otp_window shape, struct otp_match *m)
{
	struct scan s = { 0, 0, 0, 0 };
	uint32_t v[SCAN_BATCH];
	uint64_t lo, n, c, i, k;
	int rc;

	if (window > OTP_WINDOW_MAX)
		return OTP_EWINDOW;
	if (shape != OTP_WINDOW_AHEAD && shape != OTP_WINDOW_AROUND)
		return OTP_EINVAL;
	/* The edges are public: clamping branches on the window, not on the
	 * code.  No counter wraps past 0 or 2^64-1, and the count, at most
	 * 2 * OTP_WINDOW_MAX + 1, cannot overflow. */
	lo = shape == OTP_WINDOW_AHEAD ? centre :
	    centre >= window ? centre - window : 0;
	n = (centre <= UINT64_MAX - window ? centre + window : UINT64_MAX) -
	    lo + 1;
	for (i = 0; i < n; i += k) {
		k = n - i < SCAN_BATCH ? n - i : SCAN_BATCH;
		otp_hotp_values(h, lo + i, v, (size_t)k);
		for (c = 0; c < k; c++) {
			uint64_t x = lo + i + c;
			uint64_t neg = x < centre ? ~(uint64_t)0 : 0;

			scan_take(&s, candidate(v[c], w), x, neg,
			    neg ? centre - x : x - centre);
		}
	}
	rc = scan_result(&s, m);
	otp_wipe(&s, sizeof(s));
	otp_wipe(v, sizeof(v));
	return rc;
}

/* Compare code (digits long, or its own length when digits is 0) with
 * every candidate of the window around counter in constant time; the
 * match nearest the centre wins (AHEAD: lowest counter; AROUND: smallest
 * |offset|, and on a tie the earlier step).  Counters are clamped to
 * 0..2^64-1.  Returns 1 and fills m on a match, 0 for none, OTP_ECODE,
 * OTP_EDIGITS or OTP_EWINDOW (window > OTP_WINDOW_MAX). */
int
otp_verify(struct otp_hmac *h, const char *code, unsigned digits,
    uint64_t counter, uint64_t window, enum otp_window shape,
    struct otp_match *m)
{
	struct want w;
	int n, rc;

	if (digits != 0 && (digits < OTP_DIGITS_MIN ||
	    digits > OTP_DIGITS_MAX))
		return OTP_EDIGITS;
	if ((n = otp_code_check(code, digits)) < 0)
		return n;
	memset(&w, 0, sizeof(w));
	w.modulus = otp_code_modulus((unsigned)n);
	/* The text is n <= 10 decimal digits: it fits and cannot overflow. */
	if (otp_parse_u64(code, 0, w.modulus - 1, &w.value) != 0)
		return OTP_ECODE;
	rc = scan_window(h, &w, counter, window, shape, m);
	otp_wipe(&w, sizeof(w));
	return rc;
}

int
otp_verify_steam(struct otp_hmac *h, const char *code, uint64_t counter,
    uint64_t window, enum otp_window shape, struct otp_match *m)
{
	static const char alphabet[] = "23456789BCDFGHJKMNPQRTVWXY";
	struct want w;
	size_t i;
	int rc;

	memset(&w, 0, sizeof(w));
	w.steam = 1;
	for (i = 0; code[i] != '\0'; i++) {
		char c = ascii_upper(code[i]);

		if (i >= 5 || strchr(alphabet, c) == NULL)
			return OTP_ECODE;
		w.text[i] = c;
	}
	if (i != 5)
		return OTP_ECODE;
	rc = scan_window(h, &w, counter, window, shape, m);
	otp_wipe(&w, sizeof(w));
	return rc;
}

int
otp_verify_motp(const char *secret, size_t secretlen, const char *pin,
    const char *code, int64_t now, uint64_t window, struct otp_match *m)
{
	struct scan s = { 0, 0, 0, 0 };
	char want[7], got[7];
	int64_t tens, t;
	uint64_t k, c;
	size_t i;
	int rc = 0;

	for (i = 0; code[i] != '\0'; i++) {
		char x = ascii_lower(code[i]);

		if (i >= 6 || !((x >= '0' && x <= '9') || (x >= 'a' &&
		    x <= 'f')))
			return OTP_ECODE;
		want[i] = x;
	}
	if (i != 6)
		return OTP_ECODE;
	want[6] = '\0';
	if (window > OTP_WINDOW_MAX)
		return OTP_EWINDOW;
	if (secretlen == 0)
		return OTP_EKEYEMPTY;
	/* Mobile-OTP counts 10-second steps from the epoch; like TOTP the
	 * window lies on both sides.  Times past the int64 range are
	 * clamped, as counters are. */
	tens = now / 10 - (now % 10 < 0);
	for (k = 0; k <= 2 * window; k++) {
		uint64_t d = (k + 1) / 2;
		int neg = k % 2 == 1;

		/* Only steps whose start time fits in an int64. */
		if (neg ? tens < INT64_MIN / 10 + (int64_t)d :
		    tens > INT64_MAX / 10 - (int64_t)d)
			continue;
		t = neg ? tens - (int64_t)d : tens + (int64_t)d;
		if (t < INT64_MIN / 10)
			continue;
		t *= 10;
		if ((rc = otp_motp(secret, secretlen, pin, t, got)) != 0)
			break;
		c = (uint64_t)0 - (uint64_t)otp_ct_equal(got, want, 6);
		scan_take(&s, c, (uint64_t)(t / 10), neg ? ~(uint64_t)0 : 0,
		    d);
	}
	if (rc == 0)
		rc = scan_result(&s, m);
	otp_wipe(want, sizeof(want));
	otp_wipe(got, sizeof(got));
	otp_wipe(&s, sizeof(s));
	return rc;
}

/* Find where ncodes (2..OTP_SKEW_CODES) consecutive codes match
 * consecutive counters, the first code within the window around counter.
 * Returns the number of such places (m gets the nearest, as otp_verify),
 * 0 for none, or an OTP_E* code.  Not constant time: a diagnostic. */
int
otp_find_skew(struct otp_hmac *h, const char *const *codes, size_t ncodes,
    unsigned digits, uint64_t counter, uint64_t window,
    enum otp_window shape, struct otp_match *m)
{
	uint64_t want[OTP_SKEW_CODES], got[OTP_SKEW_CODES], mod, lo, hi, c;
	uint64_t best = 0, bestdist = 0;
	size_t i;
	int n, found = 0, bestneg = 0;

	if (ncodes < 2 || ncodes > OTP_SKEW_CODES)
		return OTP_EINVAL;
	if (window > OTP_WINDOW_MAX)
		return OTP_EWINDOW;
	if (digits != 0 && (digits < OTP_DIGITS_MIN ||
	    digits > OTP_DIGITS_MAX))
		return OTP_EDIGITS;
	/* All codes have one length: the first one's unless digits says. */
	if ((n = otp_code_check(codes[0], digits)) < 0)
		return n;
	mod = otp_code_modulus((unsigned)n);
	for (i = 0; i < ncodes; i++) {
		if (otp_code_check(codes[i], (unsigned)n) < 0 ||
		    otp_parse_u64(codes[i], 0, mod - 1, &want[i]) != 0)
			return OTP_ECODE;
	}
	lo = shape == OTP_WINDOW_AROUND && counter > window ?
	    counter - window : shape == OTP_WINDOW_AROUND ? 0 : counter;
	hi = counter > UINT64_MAX - window ? UINT64_MAX : counter + window;
	/* The run must fit below 2^64: its last code is at start+ncodes-1. */
	if (hi > UINT64_MAX - (ncodes - 1))
		hi = UINT64_MAX - (ncodes - 1);
	if (lo > hi)
		return 0;
	/* One HMAC per counter: got[] is a ring of the last ncodes values. */
	for (i = 0; i + 1 < ncodes; i++)
		got[(lo + i) % ncodes] = otp_hotp_value(h, lo + i) % mod;
	for (c = lo;; c++) {
		uint64_t last = c + ncodes - 1, dist;
		int ok = 1, neg;

		got[last % ncodes] = otp_hotp_value(h, last) % mod;
		for (i = 0; i < ncodes; i++)
			ok &= got[(c + i) % ncodes] == want[i];
		if (ok) {
			neg = c < counter;
			dist = neg ? counter - c : c - counter;
			/* Ascending scan: on a tie the earlier (negative)
			 * place is already held. */
			if (found == 0 || dist < bestdist) {
				best = c;
				bestdist = dist;
				bestneg = neg;
			}
			found++;
		}
		if (c == hi)
			break;
	}
	if (found > 0) {
		m->counter = best;
		m->offset = bestneg ? -(int64_t)bestdist : (int64_t)bestdist;
	}
	otp_wipe(want, sizeof(want));
	otp_wipe(got, sizeof(got));
	return found;
}

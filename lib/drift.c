/*
 * drift.c - where typed TOTP codes lie in time, and what they say about
 * the phone's clock against the server's (otp-verify --interactive).
 *
 * A code of step k (RFC 6238 §4.2: k = floor((T - T0) / X)) is shown
 * while the phone's clock is in [T0 + kX, T0 + (k+1)X).  Typed at server
 * time t, up to OTP_DRIFT_SLACK seconds after it was read, it says the
 * phone's clock minus the server's lies in one span of X + SLACK
 * seconds.  Several codes typed at different times cut the span down:
 * their intersection is the estimate.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "otp.h"
#include "otp_drift.h"

int
otp_drift_span(const struct otp_drift_obs *o, uint64_t step, int64_t start,
    struct otp_drift_span *s)
{
	int64_t x, since, phase, base;

	if (step == 0 || step > (uint64_t)INT32_MAX)
		return OTP_ESTEP;
	x = (int64_t)step;
	if (__builtin_sub_overflow(o->now, start, &since))
		return OTP_ERANGE;
	/* Floor division: a time before T0 has a negative step. */
	phase = since % x;
	if (phase < 0)
		phase += x;
	if (__builtin_mul_overflow(o->offset, x, &base) ||
	    __builtin_sub_overflow(base, phase, &s->lo) ||
	    __builtin_add_overflow(s->lo, x - 1 + OTP_DRIFT_SLACK, &s->hi))
		return OTP_ERANGE;
	return 0;
}

/* 1 when counter was matched by an earlier one of obs[0..i). */
static int
seen_before(const struct otp_drift_obs *obs, size_t i)
{
	size_t j;

	for (j = 0; j < i; j++)
		if (obs[j].matched && obs[j].counter == obs[i].counter)
			return 1;
	return 0;
}

int
otp_drift_estimate(const struct otp_drift_obs *obs, size_t n,
    uint64_t step, int64_t start, enum otp_sync sync, struct otp_drift *d)
{
	struct otp_drift_span s, all = { 0, 0 }, hull = { 0, 0 };
	int empty = 0;
	size_t i;
	int rc;

	memset(d, 0, sizeof(*d));
	d->codes = n;
	if (n > OTP_DRIFT_MAX) {
		obs += n - OTP_DRIFT_MAX;
		n = OTP_DRIFT_MAX;
	}
	for (i = 0; i < n; i++) {
		if (!obs[i].matched)
			continue;
		if ((rc = otp_drift_span(&obs[i], step, start, &s)) != 0)
			return rc;
		if (d->matched == 0) {
			all = hull = s;
		} else {
			all.lo = s.lo > all.lo ? s.lo : all.lo;
			all.hi = s.hi < all.hi ? s.hi : all.hi;
			hull.lo = s.lo < hull.lo ? s.lo : hull.lo;
			hull.hi = s.hi > hull.hi ? s.hi : hull.hi;
		}
		d->matched++;
		if (!seen_before(obs, i))
			d->steps++;
	}
	if (d->matched > 0) {
		empty = all.lo > all.hi;
		d->span = empty ? hull : all;
		/* Halves of each end: no overflow for any span. */
		d->estimate = d->span.lo / 2 + d->span.hi / 2 +
		    (d->span.lo % 2 + d->span.hi % 2) / 2;
		d->error = d->span.hi / 2 - d->span.lo / 2 + 1;
	}
	/* Spans that share no second disagree, even for one step typed
	 * twice: the hull is no estimate. */
	if (empty)
		d->verdict = OTP_VERDICT_SPREAD;
	else if (d->steps < 2)
		d->verdict = d->matched < 2 && n - d->matched >= 2 ?
		    OTP_VERDICT_PARAMS : OTP_VERDICT_NONE;
	else if (d->span.lo <= 0 && d->span.hi >= 0)
		d->verdict = OTP_VERDICT_AGREE;
	else if (sync == OTP_SYNC_NO)
		d->verdict = OTP_VERDICT_SERVER;
	else if (sync == OTP_SYNC_YES)
		d->verdict = OTP_VERDICT_PHONE;
	else
		d->verdict = OTP_VERDICT_CLOCK;
	return 0;
}

int
otp_drift_place_text(int64_t offset, uint64_t step, const char *pm,
    char *out, size_t outsz)
{
	uint64_t k = offset < 0 ? (uint64_t)0 - (uint64_t)offset :
	    (uint64_t)offset, secs = 0, half = step / 2 + step % 2;
	int n;

	if (__builtin_mul_overflow(k, step, &secs))
		n = snprintf(out, outsz, "%" PRIu64 " steps %s", k,
		    offset < 0 ? "behind" : "ahead");
	else if (offset == 0)
		n = snprintf(out, outsz, "the current step, +0 s %s%" PRIu64,
		    pm, half);
	else
		n = snprintf(out, outsz, "%" PRIu64 " step%s %s, %c%" PRIu64
		    " s %s%" PRIu64, k, k == 1 ? "" : "s", offset < 0 ?
		    "behind" : "ahead", offset < 0 ? '-' : '+', secs, pm, half);
	if (n < 0 || (size_t)n >= outsz) {
		if (outsz > 0)
			out[0] = '\0';
		return OTP_ENOSPACE;
	}
	return n;
}

static int
blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

int
otp_drift_code_line(const char *line, size_t len, char *code,
    size_t codesz, size_t *erroff)
{
	size_t i, n = 0;

	*erroff = 0;
	if (codesz > 0)
		code[0] = '\0';
	for (i = 0; i < len && blank(line[i]); i++)
		;
	if (i == len || line[i] == '#')
		return OTP_EEMPTY;
	for (; i < len; i++) {
		if (blank(line[i]))
			continue;
		if (line[i] < '0' || line[i] > '9' || n == OTP_DIGITS_MAX ||
		    n + 1 >= codesz) {
			*erroff = i;
			otp_wipe(code, n);
			if (codesz > 0)
				code[0] = '\0';
			return OTP_ECODE;
		}
		code[n++] = line[i];
	}
	if (n < OTP_DIGITS_MIN) {
		*erroff = len;
		otp_wipe(code, n);
		code[0] = '\0';
		return OTP_ECODE;
	}
	code[n] = '\0';
	return 0;
}

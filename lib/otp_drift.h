/*
 * otp_drift.h - where a typed TOTP code lies in time, and what several
 * codes say about the two clocks (lib/drift.c): the analysis behind
 * otp-verify --interactive.  Pure: the caller passes the times in.
 * Conventions as in otp.h.
 */
#ifndef OTP_DRIFT_H
#define OTP_DRIFT_H

#include <stddef.h>
#include <stdint.h>

#include "otp.h"

/* Seconds between reading a code on the phone and the Enter that sends
 * it: the phone may have moved on to the next step meanwhile. */
#define OTP_DRIFT_SLACK		10
#define OTP_DRIFT_MAX		64	/* codes an estimate keeps */

/* Whether the server's clock is kept synchronised (adjtimex(2)). */
enum otp_sync {
	OTP_SYNC_UNKNOWN,
	OTP_SYNC_YES,
	OTP_SYNC_NO,
};

/* One code typed: when the server read it and where it matched. */
struct otp_drift_obs {
	int64_t		now;		/* server's time, seconds */
	int		matched;	/* 0: no step near now gives it */
	int64_t		offset;		/* matched step - server's step */
	uint64_t	counter;	/* the matched step */
};

/* The phone's clock minus the server's, in seconds: lo..hi. */
struct otp_drift_span {
	int64_t		lo, hi;
};

enum otp_verdict {
	OTP_VERDICT_NONE,	/* fewer than two codes of different steps */
	OTP_VERDICT_AGREE,	/* the clocks agree: nothing to fix */
	OTP_VERDICT_SERVER,	/* the server's clock is unsynchronised */
	OTP_VERDICT_PHONE,	/* the server's is synchronised: the phone's */
	OTP_VERDICT_CLOCK,	/* one of them; the server's state unknown */
	OTP_VERDICT_PARAMS,	/* no step matches: the parameters differ */
	OTP_VERDICT_SPREAD,	/* the codes disagree with one another */
};

struct otp_drift {
	enum otp_verdict	verdict;
	size_t		codes;		/* codes seen */
	size_t		matched;	/* of them, matched a step */
	size_t		steps;		/* different steps matched */
	struct otp_drift_span	span;	/* what all matched codes allow; for
					 * SPREAD, from the least to the
					 * most any one allows */
	int64_t		estimate;	/* the span's middle, seconds */
	int64_t		error;		/* half its width, rounded up */
};

/* The span one matched code allows (step seconds, start the TOTP T0):
 * the phone showed step now's + offset at some moment of the last
 * OTP_DRIFT_SLACK seconds.  OTP_ESTEP, OTP_ERANGE on overflow. */
int otp_drift_span(const struct otp_drift_obs *o, uint64_t step,
    int64_t start, struct otp_drift_span *s);
/* Estimate from obs[0..n) (n <= OTP_DRIFT_MAX used, the latest kept) and
 * the server's sync state; the verdict needs two codes of different
 * steps.  OTP_ESTEP, OTP_ERANGE. */
int otp_drift_estimate(const struct otp_drift_obs *obs, size_t n,
    uint64_t step, int64_t start, enum otp_sync sync, struct otp_drift *d);
/* One code's place in words: "3 steps ahead, +90 s ±15", "the current
 * step, +0 s ±15", "1 step behind, -30 s ±15" (pm: the "±" to use);
 * the length, or OTP_ENOSPACE. */
int otp_drift_place_text(int64_t offset, uint64_t step, const char *pm,
    char *out, size_t outsz);
/* A line of codes input: blanks around and between digit groups ("123
 * 456") are dropped; the digits go to code (codesz >= OTP_CODE_MAX).
 * 0, OTP_EEMPTY for a blank line or a '#' comment, OTP_ECODE with
 * *erroff (0-based) at the first character that is neither a digit nor
 * a blank, or at the end when the count of digits is not 6 to 10. */
int otp_drift_code_line(const char *line, size_t len, char *code,
    size_t codesz, size_t *erroff);

#endif /* OTP_DRIFT_H */

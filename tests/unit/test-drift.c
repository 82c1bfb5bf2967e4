/*
 * test-drift.c - the clock debugger's analysis (lib/drift.c): the span one
 * code allows, the estimate and verdict from several, the words for one
 * code's place, and the reading of a line of codes input.
 */
#include <stdio.h>
#include <string.h>

#include "otp.h"
#include "otp_drift.h"
#include "unit.h"

#define T0	INT64_C(1234567890)	/* a step boundary for 30 s steps */

static struct otp_drift_obs
obs(int64_t now, int64_t offset)
{
	struct otp_drift_obs o;

	o.now = now;
	o.matched = 1;
	o.offset = offset;
	o.counter = (uint64_t)((now / 30) + offset);
	return o;
}

static void
test_span(void)
{
	struct otp_drift_obs o = obs(T0 + 10, 3);
	struct otp_drift_span s;

	/* 10 s into a step, the code of 3 steps ahead: the phone is
	 * 80..109 s ahead, plus the typing slack. */
	CHECK_EQ_INT(otp_drift_span(&o, 30, 0, &s), 0, "span");
	CHECK_EQ_INT(s.lo, 80, "lo");
	CHECK_EQ_INT(s.hi, 109 + OTP_DRIFT_SLACK, "hi");
	o = obs(T0, -2);
	CHECK_EQ_INT(otp_drift_span(&o, 30, 0, &s), 0, "span behind");
	CHECK_EQ_INT(s.lo, -60, "lo behind");
	CHECK_EQ_INT(s.hi, -31 + OTP_DRIFT_SLACK, "hi behind");
	/* A start time moves the phase. */
	o = obs(T0, 0);
	CHECK_EQ_INT(otp_drift_span(&o, 30, 5, &s), 0, "span T0");
	CHECK_EQ_INT(s.lo, -25, "lo T0");
	/* Before T0 the step is negative: the phase stays in 0..step-1. */
	o.now = -1;
	CHECK_EQ_INT(otp_drift_span(&o, 30, 0, &s), 0, "span < 0");
	CHECK_EQ_INT(s.lo, -29, "lo < 0");
	CHECK_EQ_INT(otp_drift_span(&o, 0, 0, &s), OTP_ESTEP, "step 0");
	o.offset = INT64_MAX / 2;
	CHECK_EQ_INT(otp_drift_span(&o, 30, 0, &s), OTP_ERANGE, "overflow");
	o.now = INT64_MIN;
	o.offset = 0;
	CHECK_EQ_INT(otp_drift_span(&o, 30, 1, &s), OTP_ERANGE, "now-start");
}

static void
test_estimate(void)
{
	struct otp_drift_obs o[4];
	struct otp_drift d;

	/* One code: a place, no verdict. */
	o[0] = obs(T0 + 10, 3);
	CHECK_EQ_INT(otp_drift_estimate(o, 1, 30, 0, OTP_SYNC_YES, &d), 0,
	    "one");
	CHECK_EQ_INT(d.verdict, OTP_VERDICT_NONE, "one: no verdict");
	CHECK_EQ_INT(d.matched, 1, "one matched");
	/* The same step twice: still one step. */
	o[1] = o[0];
	o[1].now += 2;
	CHECK_EQ_INT(otp_drift_estimate(o, 2, 30, 0, OTP_SYNC_YES, &d), 0,
	    "twice");
	CHECK_EQ_INT(d.steps, 1, "twice: one step");
	CHECK_EQ_INT(d.verdict, OTP_VERDICT_NONE, "twice: no verdict");
	/* A phone 95 s ahead: codes read 10 s and 25 s into steps. */
	o[1] = obs(T0 + 30 + 25, 4);
	CHECK_EQ_INT(otp_drift_estimate(o, 2, 30, 0, OTP_SYNC_YES, &d), 0,
	    "two");
	CHECK_EQ_INT(d.steps, 2, "two steps");
	CHECK_EQ_INT(d.span.lo, 95, "two: lo");	/* 120 - 25 */
	CHECK_EQ_INT(d.span.hi, 109 + OTP_DRIFT_SLACK, "two: hi");
	CHECK(d.estimate >= 95 && d.estimate <= 119, "estimate %lld",
	    (long long)d.estimate);
	CHECK_EQ_INT(d.verdict, OTP_VERDICT_PHONE, "synchronised: phone");
	CHECK_EQ_INT(otp_drift_estimate(o, 2, 30, 0, OTP_SYNC_NO, &d), 0,
	    "unsync");
	CHECK_EQ_INT(d.verdict, OTP_VERDICT_SERVER, "unsynchronised: server");
	CHECK_EQ_INT(otp_drift_estimate(o, 2, 30, 0, OTP_SYNC_UNKNOWN, &d), 0,
	    "unknown");
	CHECK_EQ_INT(d.verdict, OTP_VERDICT_CLOCK, "unknown: a clock");
	/* Clocks that agree. */
	o[0] = obs(T0 + 3, 0);
	o[1] = obs(T0 + 31, 0);
	CHECK_EQ_INT(otp_drift_estimate(o, 2, 30, 0, OTP_SYNC_NO, &d), 0,
	    "agree");
	CHECK_EQ_INT(d.verdict, OTP_VERDICT_AGREE, "agree");
	/* A late code in the step after: -1 typed 2 s into a step agrees
	 * within the slack. */
	o[1] = obs(T0 + 62, -1);
	CHECK_EQ_INT(otp_drift_estimate(o, 2, 30, 0, OTP_SYNC_YES, &d), 0,
	    "late");
	CHECK_EQ_INT(d.verdict, OTP_VERDICT_AGREE, "late: agree");
	/* Codes that cannot both be right. */
	o[0] = obs(T0 + 3, 3);
	o[1] = obs(T0 + 40, -2);
	CHECK_EQ_INT(otp_drift_estimate(o, 2, 30, 0, OTP_SYNC_YES, &d), 0,
	    "spread");
	CHECK_EQ_INT(d.verdict, OTP_VERDICT_SPREAD, "spread");
	CHECK(d.span.lo < d.span.hi, "spread: hull");
	/* One step's code typed again two minutes later: one step, but
	 * the two cannot both be right (fuzz-drift found the hull taken
	 * for an estimate here). */
	o[0] = obs(T0 + 3, 0);
	o[1] = obs(T0 + 123, -4);
	CHECK_EQ_INT(otp_drift_estimate(o, 2, 30, 0, OTP_SYNC_YES, &d), 0,
	    "one step, two times");
	CHECK_EQ_INT(d.verdict, OTP_VERDICT_SPREAD, "one step, two times");
	/* No code matched any step: the parameters. */
	o[0].matched = o[1].matched = 0;
	CHECK_EQ_INT(otp_drift_estimate(o, 2, 30, 0, OTP_SYNC_YES, &d), 0,
	    "params");
	CHECK_EQ_INT(d.verdict, OTP_VERDICT_PARAMS, "params");
	CHECK_EQ_INT(d.matched, 0, "params: none matched");
	o[0].matched = 1;
	CHECK_EQ_INT(otp_drift_estimate(o, 2, 30, 0, OTP_SYNC_YES, &d), 0,
	    "one of two");
	CHECK_EQ_INT(d.verdict, OTP_VERDICT_NONE, "one of two: no verdict");
	CHECK_EQ_INT(otp_drift_estimate(o, 0, 30, 0, OTP_SYNC_YES, &d), 0,
	    "none");
	CHECK_EQ_INT(d.verdict, OTP_VERDICT_NONE, "none");
	CHECK_EQ_INT(otp_drift_estimate(o, 1, 0, 0, OTP_SYNC_YES, &d),
	    OTP_ESTEP, "step 0");
}

static void
test_place(void)
{
	char b[64];

	CHECK(otp_drift_place_text(3, 30, "±", b, sizeof(b)) > 0, "+3");
	CHECK_EQ_STR(b, "3 steps ahead, +90 s ±15", "+3");
	CHECK(otp_drift_place_text(-1, 30, "+-", b, sizeof(b)) > 0, "-1");
	CHECK_EQ_STR(b, "1 step behind, -30 s +-15", "-1");
	CHECK(otp_drift_place_text(0, 60, "+-", b, sizeof(b)) > 0, "0");
	CHECK_EQ_STR(b, "the current step, +0 s +-30", "0");
	CHECK(otp_drift_place_text(INT64_MIN, 30, "+-", b, sizeof(b)) > 0,
	    "min");
	CHECK_EQ_STR(b, "9223372036854775808 steps behind", "min");
	CHECK_EQ_INT(otp_drift_place_text(3, 30, "+-", b, 8), OTP_ENOSPACE,
	    "short");
	CHECK_EQ_STR(b, "", "short: empty");
}

static void
test_line(void)
{
	static const struct {
		const char	*in;
		int		 rc;
		const char	*code;
		size_t		 off;
	} t[] = {
		{ "123456", 0, "123456", 0 },
		{ "  123 456\r", 0, "123456", 0 },
		{ "\t12345678  ", 0, "12345678", 0 },
		{ "1234567890", 0, "1234567890", 0 },
		{ "", OTP_EEMPTY, "", 0 },
		{ "   \t", OTP_EEMPTY, "", 0 },
		{ "# a comment 12", OTP_EEMPTY, "", 0 },
		{ "  # indented", OTP_EEMPTY, "", 0 },
		{ "12345", OTP_ECODE, "", 5 },
		{ "12345x", OTP_ECODE, "", 5 },
		{ "123-456", OTP_ECODE, "", 3 },
		{ "12345678901", OTP_ECODE, "", 10 },
		{ "123456 #", OTP_ECODE, "", 7 },
		{ "q", OTP_ECODE, "", 0 },
	};
	char code[OTP_CODE_MAX];
	size_t i, off;
	int rc;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		rc = otp_drift_code_line(t[i].in, strlen(t[i].in), code,
		    sizeof(code), &off);
		CHECK(rc == t[i].rc, "'%s': rc %d, want %d", t[i].in, rc,
		    t[i].rc);
		CHECK_EQ_STR(code, t[i].code, t[i].in);
		CHECK(rc != OTP_ECODE || off == t[i].off,
		    "'%s': offset %zu, want %zu", t[i].in, off, t[i].off);
	}
	/* A NUL inside the line is not a digit. */
	rc = otp_drift_code_line("123\0456", 7, code, sizeof(code), &off);
	CHECK(rc == OTP_ECODE && off == 3, "NUL: %d at %zu", rc, off);
	/* A buffer too small for the code is refused, not overrun. */
	rc = otp_drift_code_line("12345678", 8, code, 7, &off);
	CHECK(rc == OTP_ECODE && off == 6, "short buffer: %d at %zu", rc, off);
}

int
main(void)
{
	test_span();
	test_estimate();
	test_place();
	test_line();
	return unit_done();
}

/*
 * test-time.c - otp_time_parse, otp_duration_parse, otp_time_format_utc
 * and otp_duration_text against the vectors in tests/vectors/ (made with
 * GNU date -d and oathtool), and a few thousand random times against the
 * C library's timegm(), mktime() and gmtime_r(); zones of its own beside
 * the system's.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "otp.h"
#include "sys.h"
#include "unit.h"

#define NOW	INT64_C(1234567890)	/* "now" in the vector files */

static const struct otp_zone *zone;	/* the system's, as TZ says */

static void
set_tz(const char *tz)
{
	setenv("TZ", tz, 1);
	zone = sys_zone_local();
}

static void
time_case(const struct unit_line *l, void *arg)
{
	int64_t got = 0;
	long long want;
	char *end;
	int rc, code;

	(void)arg;
	if (l->nfields != 3) {
		unit_check(0, l->file, (int)l->lineno, "want 3 fields");
		return;
	}
	set_tz(l->field[0]);
	rc = otp_time_parse(l->field[1], NOW, zone, &got);
	code = unit_errcode(l->field[2]);
	if (code != 1) {
		unit_check(rc == code, l->file, (int)l->lineno,
		    "TZ=%s '%s': got %d (%lld), want %s", l->field[0],
		    l->field[1], rc, (long long)got, l->field[2]);
		return;
	}
	errno = 0;
	want = strtoll(l->field[2], &end, 10);
	if (errno != 0 || *end != '\0') {
		unit_check(0, l->file, (int)l->lineno, "bad expected value");
		return;
	}
	unit_check(rc == 0 && got == want, l->file, (int)l->lineno,
	    "TZ=%s '%s': got %d (%lld), want %lld", l->field[0], l->field[1],
	    rc, (long long)got, want);
}

static void
duration_case(const struct unit_line *l, void *arg)
{
	uint64_t got = 12345, want;
	int rc, code;

	(void)arg;
	if (l->nfields != 2) {
		unit_check(0, l->file, (int)l->lineno, "want 2 fields");
		return;
	}
	rc = otp_duration_parse(l->field[0], &got);
	code = unit_errcode(l->field[1]);
	if (code != 1) {
		unit_check(rc == code && got == 12345, l->file,
		    (int)l->lineno, "'%s': got %d (%llu), want %s",
		    l->field[0], rc, (unsigned long long)got, l->field[1]);
		return;
	}
	if (otp_parse_u64(l->field[1], 0, UINT64_MAX, &want) != 0) {
		unit_check(0, l->file, (int)l->lineno, "bad expected value");
		return;
	}
	unit_check(rc == 0 && got == want, l->file, (int)l->lineno,
	    "'%s': got %d (%llu), want %llu", l->field[0], rc,
	    (unsigned long long)got, (unsigned long long)want);
}

/* xorshift64*: a fixed sequence, so a failure can be reproduced. */
static uint64_t rng_state = UINT64_C(0x9e3779b97f4a7c15);

static uint64_t
rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * UINT64_C(2685821657736338717);
}

static int
rng_in(int lo, int hi)
{
	return lo + (int)(rng() % (uint64_t)(hi - lo + 1));
}

static const char *const mon_names[] = {
	"Jan", "Feb", "Mar", "Apr", "May", "Jun",
	"Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
};
static const char *const day_names[] = {
	"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat",
};

/* Random zoned ISO 8601 and RFC 5322 times against timegm(). */
static void
random_zoned(int n)
{
	char text[128];
	struct tm tm;
	int64_t got;
	time_t base;
	int i, off, oh, om, rc;

	set_tz("Europe/Paris");	/* a zone must make no difference */
	for (i = 0; i < n; i++) {
		memset(&tm, 0, sizeof(tm));
		tm.tm_year = rng_in(i % 2 ? 1 : 1900, 9999) - 1900;
		tm.tm_mon = rng_in(0, 11);
		tm.tm_mday = rng_in(1, 28 + (i % 4));
		tm.tm_hour = rng_in(0, 23);
		tm.tm_min = rng_in(0, 59);
		tm.tm_sec = rng_in(0, 59);
		oh = rng_in(0, 23);
		om = rng_in(0, 59);
		off = (rng() & 1 ? -1 : 1) * (oh * 3600 + om * 60);
		base = timegm(&tm);	/* normalises the 29th-31st */
		switch (i % 5) {
		case 0:
			snprintf(text, sizeof(text),
			    "%04d-%02d-%02dT%02d:%02d:%02d%c%02d:%02d",
			    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
			    tm.tm_hour, tm.tm_min, tm.tm_sec,
			    off < 0 ? '-' : '+', oh, om);
			break;
		case 1:
			snprintf(text, sizeof(text),
			    "%04d-%02d-%02d %02d:%02d:%02d.%d %c%02d%02d",
			    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
			    tm.tm_hour, tm.tm_min, tm.tm_sec, rng_in(0, 999),
			    off < 0 ? '-' : '+', oh, om);
			break;
		case 2:
			off = 0;
			snprintf(text, sizeof(text),
			    "%04d-%02d-%02d %02d:%02d:%02d UTC",
			    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
			    tm.tm_hour, tm.tm_min, tm.tm_sec);
			break;
		default:
			snprintf(text, sizeof(text),
			    "%s, %d %s %04d %02d:%02d:%02d %c%02d%02d",
			    day_names[tm.tm_wday], tm.tm_mday,
			    mon_names[tm.tm_mon], tm.tm_year + 1900,
			    tm.tm_hour, tm.tm_min, tm.tm_sec,
			    off < 0 ? '-' : '+', oh, om);
			break;
		}
		rc = otp_time_parse(text, NOW, zone, &got);
		CHECK(rc == 0 && got == (int64_t)base - off,
		    "'%s': got %d %lld, want %lld", text, rc, (long long)got,
		    (long long)base - off);
	}
}

/* Random zone-less times against mktime(): equal where the local time
 * exists once, ETIMEGAP where a clock change skipped it. */
static void
random_local(const char *tz, int n)
{
	char text[64];
	struct tm tm, back;
	int64_t got;
	time_t t;
	int i, rc, exists;

	set_tz(tz);
	for (i = 0; i < n; i++) {
		memset(&tm, 0, sizeof(tm));
		tm.tm_year = rng_in(1900, 2100) - 1900;
		/* Half the cases near a spring change: March, 01:00-03:59. */
		tm.tm_mon = i % 2 ? 2 : rng_in(0, 11);
		tm.tm_mday = rng_in(1, 28);
		tm.tm_hour = i % 2 ? rng_in(1, 3) : rng_in(0, 23);
		tm.tm_min = rng_in(0, 59);
		tm.tm_sec = rng_in(0, 59);
		tm.tm_isdst = -1;
		snprintf(text, sizeof(text), "%04d-%02d-%02d %02d:%02d:%02d",
		    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		    tm.tm_min, tm.tm_sec);
		back = tm;
		t = mktime(&back);
		exists = back.tm_hour == tm.tm_hour && back.tm_min == tm.tm_min &&
		    back.tm_mday == tm.tm_mday;
		rc = otp_time_parse(text, NOW, zone, &got);
		if (exists)
			CHECK(rc == 0 && got == (int64_t)t,
			    "TZ=%s '%s': got %d %lld, want %lld", tz, text, rc,
			    (long long)got, (long long)t);
		else
			CHECK(rc == OTP_ETIMEGAP, "TZ=%s '%s': got %d, want "
			    "ETIMEGAP", tz, text, rc);
	}
}

/* What otp_time_format_utc should print, from gmtime_r(). */
static int
format_gmtime(int64_t t, char *out, size_t outsz)
{
	time_t tt = (time_t)t;
	struct tm tm;
	long long y;

	if (gmtime_r(&tt, &tm) == NULL)
		return OTP_ETIMERANGE;
	y = (long long)tm.tm_year + 1900;
	snprintf(out, outsz, "%s%04lld-%02d-%02d %02d:%02d:%02d UTC",
	    y < 0 ? "-" : "", y < 0 ? -y : y, tm.tm_mon + 1, tm.tm_mday,
	    tm.tm_hour, tm.tm_min, tm.tm_sec);
	return 0;
}

static void
check_format(int64_t t)
{
	char got[64], want[64];
	int rc, wrc;

	wrc = format_gmtime(t, want, sizeof(want));
	rc = otp_time_format_utc(t, got, sizeof(got));
	if (wrc != 0)
		CHECK(rc == wrc, "format %lld: got %d, want ETIMERANGE",
		    (long long)t, rc);
	else
		CHECK(rc == 0 && strcmp(got, want) == 0,
		    "format %lld: got %d '%s', want '%s'", (long long)t, rc,
		    got, want);
}

static void
formats(void)
{
	static const struct {
		int64_t		 t;
		const char	*text;
	} known[] = {
		{ 0, "1970-01-01 00:00:00 UTC" },
		{ 1234567890, "2009-02-13 23:31:30 UTC" },
		{ 2000000000, "2033-05-18 03:33:20 UTC" },	/* oathtool -v */
		{ 315532800, "1980-01-01 00:00:00 UTC" },
		{ -1, "1969-12-31 23:59:59 UTC" },
		{ 951782400, "2000-02-29 00:00:00 UTC" },
		{ 253402300799, "9999-12-31 23:59:59 UTC" },
		{ 253402300800, "10000-01-01 00:00:00 UTC" },
		{ -62167219200, "0000-01-01 00:00:00 UTC" },
		{ -62167219201, "-0001-12-31 23:59:59 UTC" },
	};
	char buf[64];
	int64_t lo, hi, mid, t;
	time_t tt;
	struct tm tm;
	size_t i;
	int k;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		CHECK_EQ_INT(otp_time_format_utc(known[i].t, buf, sizeof(buf)),
		    0, "format");
		CHECK_EQ_STR(buf, known[i].text, "format");
		check_format(known[i].t);
	}
	/* The buffer: 23 characters and the NUL. */
	CHECK_EQ_INT(otp_time_format_utc(0, buf, 24), 0, "exact buffer");
	memset(buf, 'x', sizeof(buf));
	CHECK_EQ_INT(otp_time_format_utc(0, buf, 23), OTP_ENOSPACE,
	    "short buffer");
	CHECK(buf[0] == '\0', "short buffer is emptied");
	CHECK_EQ_INT(otp_time_format_utc(0, buf, 0), OTP_ENOSPACE,
	    "no buffer");
	CHECK_EQ_INT(otp_time_format_utc(0, NULL, 10), OTP_EINVAL, "NULL");
	/* The ends of the int64_t range and of what gmtime() represents. */
	check_format(INT64_MAX);
	check_format(INT64_MIN);
	CHECK_EQ_INT(otp_time_format_utc(INT64_MAX, buf, sizeof(buf)),
	    OTP_ETIMERANGE, "INT64_MAX");
	CHECK_EQ_INT(otp_time_format_utc(INT64_MIN, buf, sizeof(buf)),
	    OTP_ETIMERANGE, "INT64_MIN");
	for (k = 0; k < 2; k++) {
		/* Bisect for the last (first) time gmtime_r() handles. */
		lo = 0;
		hi = k == 0 ? INT64_MAX : INT64_MIN;
		while ((k == 0 ? (uint64_t)hi - (uint64_t)lo :
		    (uint64_t)lo - (uint64_t)hi) > 1) {
			mid = lo + (hi - lo) / 2;
			tt = (time_t)mid;
			if (gmtime_r(&tt, &tm) != NULL)
				lo = mid;
			else
				hi = mid;
		}
		check_format(lo);
		check_format(hi);
		CHECK_EQ_INT(otp_time_format_utc(lo, buf, sizeof(buf)), 0,
		    "last representable");
		CHECK_EQ_INT(otp_time_format_utc(hi, buf, sizeof(buf)),
		    OTP_ETIMERANGE, "first unrepresentable");
	}
	/* Random times of every size, and round trips through the parser
	 * for years 0..9999. */
	for (k = 0; k < 3000; k++) {
		t = (int64_t)rng();
		if (k % 3 == 1)
			t >>= rng_in(0, 62);
		else if (k % 3 == 2)
			t = (int64_t)(rng() % UINT64_C(315537897600)) -
			    INT64_C(62167219200);
		check_format(t);
		if (k % 3 == 2) {
			int64_t back = 0;

			otp_time_format_utc(t, buf, sizeof(buf));
			CHECK(otp_time_parse(buf, NOW, zone, &back) == 0 &&
			    back == t, "round trip '%s': %lld", buf,
			    (long long)back);
		}
	}
}

static void
edges(void)
{
	int64_t t = 42;
	uint64_t d = 42;

	set_tz("UTC");
	/* Blanks around the text (the vector reader trims them). */
	CHECK_EQ_INT(otp_time_parse("  now  ", NOW, zone, &t), 0, "blanks");
	CHECK_EQ_INT(t, NOW, "blanks");
	CHECK_EQ_INT(otp_time_parse("\t@1234567890\t", 0, zone, &t), 0,
	    "tabs");
	CHECK_EQ_INT(t, NOW, "tabs");
	CHECK_EQ_INT(otp_time_parse("   ", NOW, zone, &t), OTP_ETIME, "blank");
	CHECK_EQ_INT(otp_time_parse("now\n", NOW, zone, &t), OTP_ETIME,
	    "newline");
	CHECK_EQ_INT(otp_time_parse("@1\r", NOW, zone, &t), OTP_ETIME, "CR");
	CHECK_EQ_INT(otp_time_parse("now\v", NOW, zone, &t), OTP_ETIME, "VT");
	CHECK_EQ_INT(otp_time_parse("2009-02-13\xc2\xa0UTC", NOW, zone, &t),
	    OTP_ETIME, "no-break space");
	CHECK_EQ_INT(otp_time_parse("@1234567890|", NOW, zone, &t), OTP_ETIME,
	    "bar");
	/* The word not understood, for a message to point at. */
	{
		static const struct {
			const char	*text;
			size_t		 off;
		} at[] = {
			{ "2009-07-13 12:00 IST", 17 },
			{ "Fbe 13 2009", 0 },
			{ "now + 3 fortnights", 8 },
			{ "  next fortnight", 7 },
			{ "@1234567890 1 hour foo", 19 },
		};
		size_t i, off;

		for (i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
			off = 999;
			CHECK_EQ_INT(otp_time_parse_at(at[i].text, NOW, zone,
			    &t, &off), OTP_ETIME, at[i].text);
			CHECK(off == at[i].off, "'%s': offset %zu, want %zu",
			    at[i].text, off, at[i].off);
		}
	}
	/* A failed parse leaves *out alone. */
	t = 42;
	CHECK_EQ_INT(otp_time_parse("@9223372036854775807 + 1 s", NOW, zone,
	    &t), OTP_ETIMERANGE, "overflow");
	CHECK_EQ_INT(t, 42, "untouched on error");
	/* now itself at the ends of the range. */
	CHECK_EQ_INT(otp_time_parse("now", INT64_MIN, zone, &t), 0, "min now");
	CHECK(t == INT64_MIN, "min now");
	CHECK_EQ_INT(otp_time_parse("1 s ago", INT64_MIN, zone, &t),
	    OTP_ETIMERANGE, "below min");
	CHECK_EQ_INT(otp_time_parse("tomorrow", INT64_MAX, zone, &t),
	    OTP_ETIMERANGE, "above max");
	CHECK_EQ_INT(otp_time_parse(NULL, NOW, zone, &t), OTP_EINVAL,
	    "NULL text");
	CHECK_EQ_INT(otp_time_parse("now", NOW, zone, NULL), OTP_EINVAL,
	    "NULL out");
	/* Durations: blanks are not trimmed, NULL refused. */
	CHECK_EQ_INT(otp_duration_parse(" 30", &d), OTP_EDURATION, "lead");
	CHECK_EQ_INT(otp_duration_parse("30 ", &d), OTP_EDURATION, "trail");
	CHECK_EQ_INT(otp_duration_parse("30\n", &d), OTP_EDURATION, "newline");
	CHECK_EQ_INT(d, 42, "untouched on error");
	CHECK_EQ_INT(otp_duration_parse(NULL, &d), OTP_EINVAL, "NULL text");
	CHECK_EQ_INT(otp_duration_parse("30", NULL), OTP_EINVAL, "NULL out");
	/* The error texts exist. */
	CHECK(strcmp(otp_strerror(OTP_ETIMEFIELD), "unknown error") != 0,
	    "ETIMEFIELD text");
	CHECK(strcmp(otp_strerror(OTP_ETIMEGAP), "unknown error") != 0,
	    "ETIMEGAP text");
	CHECK(strcmp(otp_strerror(OTP_ETIMEAMBIG), "unknown error") != 0,
	    "ETIMEAMBIG text");
}

/*
 * Zones of our own, pure: std seconds east of UTC, and dst from the
 * instant start until end, counted in calls.  The two below have the
 * rules of Europe/Berlin and America/New_York in 2026.
 */
struct fake_zone {
	int32_t		std, dst;
	int64_t		start, end;
	unsigned	calls;
};

static int
fake_offset(void *arg, int64_t t, int32_t *off)
{
	struct fake_zone *f = arg;

	f->calls++;
	*off = t >= f->start && t < f->end ? f->dst : f->std;
	return 0;
}

static int
broken_offset(void *arg, int64_t t, int32_t *off)
{
	(void)t;
	*off = *(int32_t *)arg;
	return *off == 0 ? OTP_ETIMERANGE : 0;
}

/* 2026-03-29 01:00 and 2026-10-25 01:00 UTC; 2026-03-08 07:00 and
 * 2026-11-01 06:00 UTC. */
static struct fake_zone berlin = { 3600, 7200, 1774746000, 1792890000, 0 };
static struct fake_zone new_york = { -18000, -14400, 1772953200, 1793512800,
    0 };

#define BASE	INT64_C(1774695600)	/* 2026-03-28 11:00 UTC */

static const struct {
	struct fake_zone	*zone;
	const char		*tz;	/* the same rules from the system */
	const char		*text;
	int64_t			 want;	/* an epoch, or an OTP_E* code */
} fake_cases[] = {
	/* A day keeps the wall clock (23 hours here), hours are exact. */
	{ &berlin, "Europe/Berlin", "+1 day", 1774778400 },
	{ &berlin, "Europe/Berlin", "tomorrow", 1774778400 },
	{ &berlin, "Europe/Berlin", "now 1 day", 1774778400 },
	{ &berlin, "Europe/Berlin", "@1774695600 + 1 day", 1774778400 },
	{ &berlin, "Europe/Berlin", "+24 hours", BASE + 86400 },
	{ &berlin, "Europe/Berlin", "+1 day +1 hour", 1774782000 },
	{ &berlin, "Europe/Berlin", "2026-03-28 12:00 1 day", 1774778400 },
	{ &berlin, "Europe/Berlin", "2026-03-29 12:00 yesterday", BASE },
	{ &berlin, "Europe/Berlin", "2026-04-04 12:00 1 week ago", BASE },
	{ &berlin, "Europe/Berlin", "2026-10-24 12:00 1 day", 1792926000 },
	/* A written zone: its days are 86400 s. */
	{ &berlin, "Europe/Berlin", "2026-03-28 11:00 UTC + 1 day",
	    BASE + 86400 },
	{ &berlin, "Europe/Berlin", "2026-03-28 12:00 +01:00 1 day",
	    BASE + 86400 },
	/* Skipped: refused when written, passed when days land there. */
	{ &berlin, "Europe/Berlin", "2026-03-29 02:30", OTP_ETIMEGAP },
	{ &berlin, "Europe/Berlin", "2026-03-28 02:30 1 day", 1774747800 },
	/* Repeated: the later here, the earlier west of UTC (as date -d);
	 * the base's offset when days land there. */
	{ &berlin, "Europe/Berlin", "2026-10-25 02:30", 1792891800 },
	{ &berlin, "Europe/Berlin", "2026-10-24 02:30 1 day", 1792888200 },
	{ &berlin, "Europe/Berlin", "2026-10-26 02:30 1 day ago", 1792891800 },
	{ &new_york, "America/New_York", "2026-11-01 01:30", 1793511000 },
	{ &new_york, "America/New_York", "2026-10-31 01:30 1 day",
	    1793511000 },
	{ &new_york, "America/New_York", "2026-11-02 01:30 1 day ago",
	    1793514600 },
	{ &new_york, "America/New_York", "2026-03-08 02:30", OTP_ETIMEGAP },
	{ &new_york, "America/New_York", "2026-03-07 02:30 1 day",
	    1772955000 },
	{ &new_york, "America/New_York", "2026-03-07 12:00 1 day",
	    1772985600 },
	{ &new_york, "America/New_York", "2026-03-07 12:00 +1 hour",
	    OTP_ETIMEAMBIG },
};

/* Time parsing with zones passed in: fake ones (no TZ, no system call),
 * the same rules from the system, and zones that fail. */
static void
zones(void)
{
	struct fake_zone fixed = { 19800, 19800, 0, 0, 0 };	/* +05:30 */
	struct otp_zone z, bad = { broken_offset, NULL };
	int32_t off;
	int64_t t, want;
	size_t i;
	int k, rc;

	for (i = 0; i < sizeof(fake_cases) / sizeof(fake_cases[0]); i++) {
		z.offset = fake_offset;
		z.arg = fake_cases[i].zone;
		set_tz(fake_cases[i].tz);
		want = fake_cases[i].want;
		for (k = 0; k < 2; k++) {
			t = 0;
			rc = otp_time_parse(fake_cases[i].text, BASE,
			    k == 0 ? &z : zone, &t);
			CHECK(want < 0 ? rc == want : rc == 0 && t == want,
			    "%s %s '%s': got %d %lld, want %lld",
			    k == 0 ? "fake" : "TZ", fake_cases[i].tz,
			    fake_cases[i].text, rc, (long long)t,
			    (long long)want);
		}
	}

	/* A fixed offset; NULL is UTC. */
	z.offset = fake_offset;
	z.arg = &fixed;
	CHECK(otp_time_parse("2009-02-14 05:01:30", NOW, &z, &t) == 0 &&
	    t == NOW, "+05:30 local time");
	CHECK(otp_time_parse("2009-02-14", NOW, &z, &t) == 0 &&
	    t == 1234569600 - 19800, "+05:30 date");
	CHECK(otp_time_parse("tomorrow", NOW, &z, &t) == 0 &&
	    t == NOW + 86400, "+05:30 tomorrow");
	CHECK(otp_time_parse("2009-02-13 23:31:30", NOW, NULL, &t) == 0 &&
	    t == NOW, "NULL zone is UTC");
	CHECK(otp_time_parse("2009-02-13 1 week", NOW, NULL, &t) == 0 &&
	    t == 1234483200 + 7 * 86400, "NULL zone days");

	/* The zone is asked only about local times and days. */
	fixed.calls = 0;
	CHECK(otp_time_parse("now - 90 s", NOW, &z, &t) == 0 &&
	    t == NOW - 90, "now");
	CHECK(otp_time_parse("@0 + 1 hour", NOW, &z, &t) == 0 && t == 3600,
	    "epoch");
	CHECK(otp_time_parse("2009-02-13 23:31:30 UTC", NOW, &z, &t) == 0 &&
	    t == NOW, "zoned");
	CHECK_EQ_INT(fixed.calls, 0, "zone not asked");

	/* A zone's error is the parser's; an offset past a day is refused. */
	bad.arg = &off;
	off = 0;
	CHECK_EQ_INT(otp_time_parse("2009-02-13 12:00", NOW, &bad, &t),
	    OTP_ETIMERANGE, "zone error");
	CHECK_EQ_INT(otp_time_parse("1 day", NOW, &bad, &t), OTP_ETIMERANGE,
	    "zone error, days");
	CHECK_EQ_INT(otp_time_parse("1 hour", NOW, &bad, &t), 0,
	    "zone error unasked");
	off = 86401;
	CHECK_EQ_INT(otp_time_parse("2009-02-13 12:00", NOW, &bad, &t),
	    OTP_EINVAL, "offset past a day");
	off = 86400;
	CHECK(otp_time_parse("2009-02-13 12:00", NOW, &bad, &t) == 0 &&
	    t == 1234526400 - 86400, "offset of a day");
	bad.offset = NULL;
	CHECK_EQ_INT(otp_time_parse("now", NOW, &bad, &t), OTP_EINVAL,
	    "no offset function");
}

/* otp_duration_text: the units a person reads, and no overflow. */
static void
duration_texts(void)
{
	static const struct {
		uint64_t	 s;
		const char	*want;
	} known[] = {
		{ 0, "0 s" }, { 45, "45 s" }, { 60, "1 min" },
		{ 5400, "1 h 30 min" }, { 90061, "1 d 1 h 1 min 1 s" },
	};
	char buf[64];
	size_t i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		CHECK_EQ_INT(otp_duration_text(known[i].s, buf, sizeof(buf)),
		    (int)strlen(known[i].want), known[i].want);
		CHECK_EQ_STR(buf, known[i].want, "duration text");
	}
	CHECK_EQ_INT(otp_duration_text(5400, buf, 11), 10, "exact buffer");
	CHECK_EQ_INT(otp_duration_text(5400, buf, 10), OTP_ENOSPACE,
	    "one byte short");
	CHECK_EQ_INT(otp_duration_text(0, buf, 3), OTP_ENOSPACE, "0 s short");
	CHECK_EQ_INT(otp_duration_text(1, NULL, 0), OTP_ENOSPACE, "no room");
}

int
main(int argc, char *argv[])
{
	const char *dir = argc > 1 ? argv[1] : "tests/vectors";

	unit_vectors(dir, "time.txt", time_case, NULL);
	unit_vectors(dir, "duration.txt", duration_case, NULL);
	edges();
	zones();
	formats();
	duration_texts();
	random_zoned(600);
	random_local("Europe/Paris", 300);
	random_local("America/New_York", 300);
	random_local("Australia/Lord_Howe", 200);	/* 30-minute shifts */
	return unit_done();
}

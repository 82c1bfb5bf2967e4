/*
 * timeparse.c - times and durations as users of oathtool and date(1) write
 * them: "now", "@EPOCH", ISO 8601, RFC 5322 dates and date -d's other
 * spellings ("Feb 13 2009", "2009-2-3 1:2:3"), relative offsets; and the
 * "YYYY-MM-DD HH:MM:SS UTC" form oathtool prints.
 *
 * Everything is a pure function of the text, of "now" and of the zone the
 * caller passes: no global state, no system call, no environment.  Dates
 * use the proleptic Gregorian calendar arithmetic below; a zone-less time
 * is read on the zone's wall clock as date -d reads it, and refused when
 * a clock change skipped it.  Anything not recognised whole is an error.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "otp.h"

#define MINUTE	60
#define HOUR	3600
#define DAY	86400

/* A calendar date and clock time as written, before conversion. */
struct civil {
	int	year, mon, day;		/* 0000..9999, 1..12, 1..31 */
	int	hour, min, sec;		/* 0..23, 0..59, 0..60 */
	int	has_clock;		/* a clock time was written */
	int	has_zone;		/* a zone was written */
	int	offset;			/* zone: seconds east of UTC */
};

/* Relative units: seconds are exact, days are calendar days (the wall
 * clock kept across a clock change, as date -d). */
static const struct {
	const char	*name;
	int64_t		 secs;
	int64_t		 days;
} units[] = {
	{ "s", 1, 0 }, { "sec", 1, 0 }, { "secs", 1, 0 },
	{ "second", 1, 0 }, { "seconds", 1, 0 },
	{ "m", MINUTE, 0 }, { "min", MINUTE, 0 }, { "mins", MINUTE, 0 },
	{ "minute", MINUTE, 0 }, { "minutes", MINUTE, 0 },
	{ "h", HOUR, 0 }, { "hour", HOUR, 0 }, { "hours", HOUR, 0 },
	{ "d", 0, 1 }, { "day", 0, 1 }, { "days", 0, 1 },
	{ "w", 0, 7 }, { "week", 0, 7 }, { "weeks", 0, 7 },
};

/* The sums of the relative items: calendar days, then exact seconds. */
struct rel {
	int64_t	days;
	int64_t	secs;
};

/* RFC 5322 §3.3 zones by name, §4.3's obsolete North American ones, and
 * the European and Asian names date -d knows as fixed offsets (CET is
 * always +01:00, CEST +02:00, whatever the date); names that mean several
 * zones (IST: India, Ireland or Israel) and single military letters are
 * refused. */
static const struct {
	const char	*name;
	int		 offset;
} zones[] = {
	{ "Z", 0 }, { "UTC", 0 }, { "GMT", 0 }, { "UT", 0 },
	{ "EST", -5 * HOUR }, { "EDT", -4 * HOUR },
	{ "CST", -6 * HOUR }, { "CDT", -5 * HOUR },
	{ "MST", -7 * HOUR }, { "MDT", -6 * HOUR },
	{ "PST", -8 * HOUR }, { "PDT", -7 * HOUR },
	{ "WET", 0 }, { "WEST", HOUR }, { "BST", HOUR },
	{ "CET", HOUR }, { "CEST", 2 * HOUR },
	{ "EET", 2 * HOUR }, { "EEST", 3 * HOUR },
	{ "MSK", 3 * HOUR }, { "JST", 9 * HOUR },
};

static const char *const months[] = {
	"Jan", "Feb", "Mar", "Apr", "May", "Jun",
	"Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
};

/* Index 0 is Sunday, as tm_wday. */
static const char *const wdays[][2] = {
	{ "Sun", "Sunday" }, { "Mon", "Monday" }, { "Tue", "Tuesday" },
	{ "Wed", "Wednesday" }, { "Thu", "Thursday" }, { "Fri", "Friday" },
	{ "Sat", "Saturday" },
};

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

/* Character classes of our own: the C locale's, whatever setlocale did. */
static int
is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int
is_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int
is_space(int c)
{
	return c == ' ' || c == '\t';
}

static int
to_lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static const char *
skip_space(const char *p)
{
	while (is_space(*p))
		p++;
	return p;
}

/* Length of the run of letters at p. */
static size_t
word_len(const char *p)
{
	size_t n = 0;

	while (is_alpha(p[n]))
		n++;
	return n;
}

/* 1 when the n letters at p spell w, in any case. */
static int
word_is(const char *p, size_t n, const char *w)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (w[i] == '\0' || to_lower(p[i]) != to_lower(w[i]))
			return 0;
	return w[n] == '\0';
}

/* Exactly n digits at p into *v; the end, or NULL. */
static const char *
fixed_digits(const char *p, int n, int *v)
{
	int i;

	*v = 0;
	for (i = 0; i < n; i++) {
		if (!is_digit(p[i]))
			return NULL;
		*v = *v * 10 + (p[i] - '0');
	}
	return p + n;
}

/* One or two digits at p into *v, not followed by a third ("2009-2-3",
 * "1:2:3" as date -d reads them); the end, or NULL. */
static const char *
digits12(const char *p, int *v)
{
	int n = is_digit(p[1]) ? 2 : 1;

	if ((p = fixed_digits(p, n, v)) == NULL || is_digit(*p))
		return NULL;
	return p;
}

/* A run of digits at p into *v; OTP_ETIMERANGE past INT64_MAX. */
static int
number(const char **pp, int64_t *v)
{
	const char *p = *pp;
	int64_t n = 0;
	int big = 0;

	for (; is_digit(*p); p++) {
		if (n > (INT64_MAX - (*p - '0')) / 10)
			big = 1;
		else
			n = n * 10 + (*p - '0');
	}
	*pp = p;
	*v = n;
	return big ? OTP_ETIMERANGE : 0;
}

static int
is_leap(int64_t y)
{
	return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
}

static int
month_days(int64_t y, int m)
{
	static const int mdays[] = {
		31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31,
	};

	return m == 2 && is_leap(y) ? 29 : mdays[m - 1];
}

/*
 * Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar.  The
 * year is counted from March so that the leap day falls at its end; a
 * 400-year era holds exactly 146097 days.
 */
static int64_t
days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	if (m <= 2)
		y--;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;				/* 0..399 */
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;	/* 0..365 */
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;	/* 0..146096 */
	return era * 146097 + doe - 719468;	/* 719468: 0000-03-01 */
}

/* The inverse of days_from_civil, for any day count an int64_t time has. */
static void
civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
	int64_t era, doe, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

/* Sunday 0 .. Saturday 6; day 0 (1970-01-01) was a Thursday. */
static int
weekday(int64_t days)
{
	int64_t w = (days + 4) % 7;

	return (int)(w < 0 ? w + 7 : w);
}

static int
civil_check(const struct civil *c)
{
	if (c->mon < 1 || c->mon > 12 || c->day < 1 ||
	    c->day > month_days(c->year, c->mon) || c->hour > 23 ||
	    c->min > 59 || c->sec > 60)
		return OTP_ETIMEFIELD;
	return 0;
}

/* The UTC offset of z at the instant t; a NULL zone is UTC.  An offset
 * beyond a day is no zone's: refused, so that the sums below hold. */
static int
zone_offset(const struct otp_zone *z, int64_t t, int32_t *off)
{
	int rc;

	if (z == NULL) {
		*off = 0;
		return 0;
	}
	if ((rc = z->offset(z->arg, t, off)) != 0)
		return rc;
	return *off < -DAY || *off > DAY ? OTP_EINVAL : 0;
}

/* A written zone ("+01:00", "EST") as a zone: arg points to its offset. */
static int
fixed_offset(void *arg, int64_t t, int32_t *off)
{
	(void)t;
	*off = *(const int32_t *)arg;
	return 0;
}

/*
 * Where z's wall clock shows the local time l (seconds since 1970-01-01
 * 00:00 on that clock).  An instant t shows it when offset(t) = o and
 * t = l - o; the offsets to try are those in force within a day of l, and
 * as no zone changes its clocks twice within two days (the closest two
 * changes in the tz database are four days apart), the offsets a day
 * before l, at l and a day after are all of them.
 */
struct wall {
	int	n;		/* 1, 0 in a gap, 2 in a repeat */
	int64_t	t[2];		/* the instants, earlier first */
	int32_t	off[2];		/* their offsets */
	int32_t	before;		/* the offset a day before l */
	int32_t	at;		/* the offset at l read as a UTC time */
};

static int
wall_find(const struct otp_zone *z, int64_t l, struct wall *w)
{
	int32_t probe[3], off;
	int64_t at, t;
	int i, rc;

	for (i = 0; i < 3; i++) {
		if (__builtin_add_overflow(l, (i - 1) * DAY, &at))
			return OTP_ETIMERANGE;
		if ((rc = zone_offset(z, at, &probe[i])) != 0)
			return rc;
	}
	w->n = 0;
	w->before = probe[0];
	w->at = probe[1];
	for (i = 0; i < 3 && w->n < 2; i++) {
		if ((i > 0 && probe[i] == probe[0]) ||
		    (i > 1 && probe[i] == probe[1]))
			continue;
		t = l - probe[i];	/* |probe| <= DAY: no overflow */
		if ((rc = zone_offset(z, t, &off)) != 0)
			return rc;
		if (off != probe[i])
			continue;
		w->t[w->n] = t;
		w->off[w->n] = off;
		w->n++;
	}
	if (w->n == 2 && w->t[1] < w->t[0]) {
		t = w->t[0];
		w->t[0] = w->t[1];
		w->t[1] = t;
		off = w->off[0];
		w->off[0] = w->off[1];
		w->off[1] = off;
	}
	return 0;
}

/*
 * The instant for the local time l.  Of two (a clock change repeated l),
 * the one with the offset *keep when there is one, else the one whose
 * offset is in force at l read as a UTC time: what glibc's mktime(), and
 * so date -d, choose.  None (a change skipped l) is OTP_ETIMEGAP, unless
 * forward is set: then l is read with the offset before the change, which
 * lands as far past the change as l was past its start (date -d does so
 * when days added land in a gap).
 */
static int
wall_to_utc(const struct otp_zone *z, int64_t l, const int32_t *keep,
    int forward, int64_t *out)
{
	struct wall w;
	int rc;

	if ((rc = wall_find(z, l, &w)) != 0)
		return rc;
	if (w.n == 0) {
		if (!forward)
			return OTP_ETIMEGAP;
		*out = l - w.before;
	} else if (w.n == 1)
		*out = w.t[0];
	else if (keep != NULL && (w.off[0] == *keep || w.off[1] == *keep))
		*out = w.off[0] == *keep ? w.t[0] : w.t[1];
	else
		*out = w.off[1] == w.at ? w.t[1] : w.t[0];
	return 0;
}

/* t plus days calendar days on z's wall clock: the clock time is kept, and
 * so is t's offset where a clock change repeats it. */
static int
add_days(const struct otp_zone *z, int64_t t, int64_t days, int64_t *out)
{
	int64_t l, d;
	int32_t off;
	int rc;

	if ((rc = zone_offset(z, t, &off)) != 0)
		return rc;
	if (__builtin_mul_overflow(days, DAY, &d) ||
	    __builtin_add_overflow(t, off, &l) ||
	    __builtin_add_overflow(l, d, &l))
		return OTP_ETIMERANGE;
	return wall_to_utc(z, l, &off, 1, out);
}

static int
civil_to_epoch(const struct civil *c, const struct otp_zone *z, int64_t *out)
{
	int64_t l;
	int rc;

	if ((rc = civil_check(c)) != 0)
		return rc;
	/* Years 0..9999: no overflow is possible here.  A leap second is
	 * read as :59 and added back after. */
	l = days_from_civil(c->year, c->mon, c->day) * DAY +
	    c->hour * HOUR + c->min * MINUTE + (c->sec == 60 ? 59 : c->sec);
	if (c->has_zone)
		*out = l - c->offset;
	else if ((rc = wall_to_utc(z, l, NULL, 0, out)) != 0)
		return rc;
	*out += c->sec == 60;
	return 0;
}

/*
 * A zone at p (after optional blanks): a name from zones[], or a numeric
 * offset "+HH", "+HHMM", "+HH:MM" when numeric is set.  Returns the end,
 * or NULL when there is none.
 */
static const char *
parse_zone(const char *p, int numeric, int *offset, int *bad)
{
	const char *q = skip_space(p), *e;
	size_t i, n;
	int hh, mm = 0, sign;

	*bad = 0;
	if ((n = word_len(q)) > 0) {
		for (i = 0; i < NELEM(zones); i++) {
			if (word_is(q, n, zones[i].name)) {
				*offset = zones[i].offset;
				return q + n;
			}
		}
		return NULL;
	}
	if (!numeric || (*q != '+' && *q != '-'))
		return NULL;
	sign = *q == '-' ? -1 : 1;
	if ((e = fixed_digits(q + 1, 2, &hh)) == NULL)
		return NULL;
	if (*e == ':') {
		if ((e = fixed_digits(e + 1, 2, &mm)) == NULL) {
			*bad = 1;
			return NULL;
		}
	} else if (is_digit(*e)) {
		if ((e = fixed_digits(e, 2, &mm)) == NULL) {
			*bad = 1;
			return NULL;
		}
	}
	if (is_digit(*e)) {
		*bad = 1;
		return NULL;
	}
	if (hh > 23 || mm > 59) {
		*bad = 1;
		return NULL;
	}
	*offset = sign * (hh * HOUR + mm * MINUTE);
	return e;
}

/* "HH:MM[:SS[.FRACTION]]"; the fraction is dropped (time only goes
 * forward within a second, so this is the earlier second). */
static const char *
parse_clock(const char *p, int fraction, struct civil *c)
{
	if ((p = digits12(p, &c->hour)) == NULL || *p != ':')
		return NULL;
	if ((p = digits12(p + 1, &c->min)) == NULL)
		return NULL;
	c->sec = 0;
	if (*p == ':') {
		if ((p = digits12(p + 1, &c->sec)) == NULL)
			return NULL;
		if (fraction && (*p == '.' || *p == ',')) {
			if (!is_digit(p[1]))
				return NULL;
			for (p++; is_digit(*p); p++)
				;
		}
	}
	if (is_digit(*p))
		return NULL;
	c->has_clock = 1;
	return p;
}

/* 1 when p starts a clock time: "H:", "HH:". */
static int
is_clock(const char *p)
{
	return is_digit(p[0]) && (p[1] == ':' || (is_digit(p[1]) &&
	    p[2] == ':'));
}

/* ISO 8601: "YYYY-MM-DD[(T| )HH:MM[:SS[.F]]][zone]", and one-digit
 * fields as date -d takes them ("2009-2-3 1:2:3"). */
static int
parse_iso(const char *p, struct civil *c, const char **end)
{
	const char *q;
	int bad;

	if ((p = fixed_digits(p, 4, &c->year)) == NULL || *p != '-' ||
	    (p = digits12(p + 1, &c->mon)) == NULL || *p != '-' ||
	    (p = digits12(p + 1, &c->day)) == NULL)
		return OTP_ETIME;
	if (*p == 'T' || *p == 't') {
		if ((p = parse_clock(p + 1, 1, c)) == NULL)
			return OTP_ETIME;
	} else if (is_space(*p) && is_clock(skip_space(p))) {
		if ((p = parse_clock(skip_space(p), 1, c)) == NULL)
			return OTP_ETIME;
	}
	/* After a date alone only a named zone: "2009-02-13 -05" is not a
	 * time in date -d either. */
	if ((q = parse_zone(p, c->has_clock, &c->offset, &bad)) != NULL) {
		c->has_zone = 1;
		p = q;
	} else if (bad)
		return OTP_ETIME;
	*end = p;
	return 0;
}

static int
month_index(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < NELEM(months); i++)
		if (word_is(p, n, months[i]))
			return (int)i + 1;
	return 0;
}

/* RFC 5322 §3.3, "[Fri[,]] 13 Feb 2009 [23:31[:30] [zone]]", and the
 * month-first order date -d also takes, "[Fri] Feb 13[,] 2009 [...]"
 * (four-digit years only; a day name must be the date's; no clock time
 * is midnight). */
static int
parse_rfc5322(const char *p, struct civil *c, const char **end)
{
	const char *q;
	size_t n, i;
	int wday = -1, bad;

	if ((n = word_len(p)) > 0 && month_index(p, n) == 0) {
		for (i = 0; i < NELEM(wdays) && wday < 0; i++)
			if (word_is(p, n, wdays[i][0]) ||
			    word_is(p, n, wdays[i][1]))
				wday = (int)i;
		if (wday < 0)
			return OTP_ETIME;
		p += n;
		if (*p == ',')
			p++;
		if (!is_space(*p))
			return OTP_ETIME;
		p = skip_space(p);
	}
	if ((n = word_len(p)) > 0) {
		/* "Feb 13[,] 2009" */
		if ((c->mon = month_index(p, n)) == 0 || !is_space(p[n]))
			return OTP_ETIME;
		p = skip_space(p + n);
		if ((p = digits12(p, &c->day)) == NULL)
			return OTP_ETIME;
		if (*p == ',')
			p++;
		if (!is_space(*p))
			return OTP_ETIME;
	} else {
		if ((p = digits12(p, &c->day)) == NULL || !is_space(*p))
			return OTP_ETIME;
		p = skip_space(p);
		n = word_len(p);
		if ((c->mon = month_index(p, n)) == 0 || !is_space(p[n]))
			return OTP_ETIME;
		p += n;
	}
	p = skip_space(p);
	if ((p = fixed_digits(p, 4, &c->year)) == NULL || is_digit(*p))
		return OTP_ETIME;
	if (is_space(*p) && is_clock(skip_space(p))) {
		if ((p = parse_clock(skip_space(p), 0, c)) == NULL)
			return OTP_ETIME;
		if ((q = parse_zone(p, 1, &c->offset, &bad)) != NULL) {
			c->has_zone = 1;
			p = q;
		} else if (bad)
			return OTP_ETIME;
	} else if ((q = parse_zone(p, 0, &c->offset, &bad)) != NULL) {
		c->has_zone = 1;
		p = q;
	}
	if (wday >= 0 && civil_check(c) == 0 &&
	    weekday(days_from_civil(c->year, c->mon, c->day)) != wday)
		return OTP_ETIMEFIELD;
	*end = p;
	return 0;
}

/* "@[-]SECONDS[.FRACTION]": the fraction moves to the earlier second,
 * down for negative times too (@-1.5 is -2, as date -d). */
static int
parse_epoch(const char *p, int64_t *t, const char **end)
{
	uint64_t v = 0, lim;
	int neg = 0, frac = 0, big = 0;

	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	if (!is_digit(*p))
		return OTP_ETIME;
	/* -2^63 is a time too: count the magnitude unsigned. */
	lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; is_digit(*p); p++) {
		if (v > (lim - (uint64_t)(*p - '0')) / 10)
			big = 1;
		else
			v = v * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		if (!is_digit(p[1]))
			return OTP_ETIME;
		for (p++; is_digit(*p); p++)
			if (*p != '0')
				frac = 1;
	}
	if (big || (neg && frac && v == lim))
		return OTP_ETIMERANGE;
	if (neg)
		*t = v == lim ? INT64_MIN : -(int64_t)v - frac;
	else
		*t = (int64_t)v;
	*end = p;
	return 0;
}

/*
 * Relative items after the base: "[+|-] N unit" (blanks optional),
 * "yesterday", "tomorrow", and a final "ago" after a single unsigned item,
 * summed into r.  signed_ok is 0 after a clock time without a zone, where
 * date -d reads "-1 hour" as zone UTC-1 plus one hour: refused as
 * ambiguous.
 */
static int
parse_relative(const char *p, int signed_ok, struct rel *r, const char **bad)
{
	int64_t n, days, secs;
	int items = 0, agoable = 0, rc;
	size_t len, i;

	r->days = r->secs = 0;
	for (;;) {
		int sign = 1, has_sign = 0;

		p = skip_space(p);
		*bad = p;	/* the item being read, should it fail */
		if (*p == '\0')
			break;
		if (*p == '+' || *p == '-') {
			if (!signed_ok)
				return OTP_ETIMEAMBIG;
			sign = *p == '-' ? -1 : 1;
			has_sign = 1;
			p = skip_space(p + 1);
		}
		len = word_len(p);
		/* "next week", "last day": one unit either way. */
		if (!has_sign && (word_is(p, len, "next") ||
		    word_is(p, len, "last")) && word_len(skip_space(p +
		    len)) > 0) {
			sign = word_is(p, len, "last") ? -1 : 1;
			has_sign = 1;	/* no "ago" after it */
			n = 1;
			p = skip_space(p + len);
			*bad = p;
			len = word_len(p);
			goto unit;
		}
		if (is_digit(*p)) {
			if ((rc = number(&p, &n)) != 0)
				return rc;
			p = skip_space(p);
			*bad = p;
			len = word_len(p);
unit:
			for (i = 0; i < NELEM(units); i++)
				if (word_is(p, len, units[i].name))
					break;
			if (len == 0 || i == NELEM(units))
				return OTP_ETIME;
			p += len;
			if (__builtin_mul_overflow(n, units[i].days, &days) ||
			    __builtin_mul_overflow(n, units[i].secs, &secs))
				return OTP_ETIMERANGE;
			days *= sign;
			secs *= sign;
			agoable = !has_sign && items == 0;
		} else if (!has_sign && (len = word_len(p)) > 0) {
			if (word_is(p, len, "ago")) {
				/* "1 hour ago" negates its one item; date -d
				 * negates only the item before "ago", which
				 * for "1 hour 30 minutes ago" or "-1 hour
				 * ago" is too surprising to accept. */
				if (!agoable || *skip_space(p + len) != '\0')
					return items > 1 && *skip_space(p +
					    len) == '\0' ? OTP_ETIMEAGO :
					    OTP_ETIME;
				r->days = -r->days;
				r->secs = -r->secs;
				break;
			} else if (word_is(p, len, "tomorrow"))
				days = 1;
			else if (word_is(p, len, "yesterday"))
				days = -1;
			else if (word_is(p, len, "today"))
				days = 0;	/* the time itself, as date -d */
			else
				return OTP_ETIME;
			secs = 0;
			p += len;
			agoable = 0;
		} else
			return OTP_ETIME;
		if (__builtin_add_overflow(r->days, days, &r->days) ||
		    __builtin_add_overflow(r->secs, secs, &r->secs))
			return OTP_ETIMERANGE;
		items++;
		if (items > 1)
			agoable = 0;
	}
	return 0;
}

/* 1 when p starts an RFC 5322 date: a day name, "D[D] Mon", "Mon D". */
static int
is_rfc5322(const char *p)
{
	size_t n, i;

	if ((n = word_len(p)) > 0) {
		for (i = 0; i < NELEM(wdays); i++)
			if (word_is(p, n, wdays[i][0]) ||
			    word_is(p, n, wdays[i][1]))
				return 1;
		/* "Feb 13 2009": a month, a blank and a digit. */
		return month_index(p, n) != 0 && is_space(p[n]) &&
		    is_digit(*skip_space(p + n));
	}
	if (!is_digit(*p))
		return 0;
	p += is_digit(p[1]) ? 2 : 1;
	if (!is_space(*p))
		return 0;
	p = skip_space(p);
	n = word_len(p);
	return month_index(p, n) != 0;
}

/* Parse a time: "now", "@[-]EPOCH[.FRACTION]" (to the earlier second),
 * ISO 8601 ("2009-02-13 23:31:30", "T", ".5", "Z", "+01:00", "+0100",
 * "-05", " UTC"; a date alone is midnight; no zone means local time in
 * zone, UTC when zone is NULL), RFC 5322 ("Fri, 13 Feb 2009 23:31:30
 * +0000", the clock time optional), month first ("Feb 13 2009"), one-digit
 * fields ("2009-2-3 1:2:3"), and relative items after any of these or
 * alone ("now - 90 seconds", "+2 min", "1 hour ago", "tomorrow", "today",
 * "next week", "@1234567890 + 30 s"; units s, m, h, d, w).  Seconds, minutes and hours are exact; days and
 * weeks are calendar days as in date -d: the wall-clock time is kept
 * across a clock change (in the written zone, else in zone; a time the
 * change skipped moves past it).  now is the base for relative forms.
 * OTP_ETIME for text not recognised whole, OTP_ETIMEFIELD for a bad field
 * (2009-02-30), OTP_ETIMEGAP for a local time a clock change skipped (one
 * it repeated is read as date -d reads it), OTP_ETIMEAMBIG for "+1 hour"
 * after a zone-less clock time, OTP_ETIMEAGO for "ago" after several
 * items, OTP_ETIMERANGE on overflow, or the zone's error. */
int
otp_time_parse(const char *s, int64_t now, const struct otp_zone *zone,
    int64_t *out)
{
	return otp_time_parse_at(s, now, zone, out, NULL);
}

/* otp_time_parse, and for OTP_ETIME the offset of the word not
 * understood: the start of the date, or the relative item at fault. */
int
otp_time_parse_at(const char *s, int64_t now, const struct otp_zone *zone,
    int64_t *out, size_t *erroff)
{
	struct otp_zone written;
	struct civil c;
	struct rel r;
	const char *p, *rest = NULL, *bad;
	int64_t base = now;
	int32_t offset;
	size_t n;
	int rc = 0, signed_ok = 1, civil = 0;

	if (s == NULL || out == NULL || (zone != NULL && zone->offset == NULL))
		return OTP_EINVAL;
	memset(&c, 0, sizeof(c));
	p = skip_space(s);
	if (*p == '\0')
		return OTP_ETIME;
	if (*p == '@')
		rc = parse_epoch(p + 1, &base, &rest);
	else if (is_digit(p[0]) && is_digit(p[1]) && is_digit(p[2]) &&
	    is_digit(p[3]) && p[4] == '-') {
		rc = parse_iso(p, &c, &rest);
		civil = 1;
	} else if (is_rfc5322(p)) {
		rc = parse_rfc5322(p, &c, &rest);
		civil = 1;
	} else if ((n = word_len(p)) > 0 && word_is(p, n, "now"))
		rest = p + n;
	else
		rest = p;	/* relative items alone: from now */
	if (erroff != NULL)
		*erroff = (size_t)(p - s);
	if (rc != 0)
		return rc;
	/* The base must end at a boundary: "@123x", "nowhere" are errors. */
	if (*rest != '\0' && !is_space(*rest) && *rest != '+' &&
	    *rest != '-' && rest != p)
		return OTP_ETIME;
	if (civil) {
		if ((rc = civil_to_epoch(&c, zone, &base)) != 0)
			return rc;
		signed_ok = !c.has_clock || c.has_zone;
		/* Days added to a zoned time are days in that zone. */
		if (c.has_zone) {
			offset = c.offset;
			written.offset = fixed_offset;
			written.arg = &offset;
			zone = &written;
		}
	}
	if ((rc = parse_relative(rest, signed_ok, &r, &bad)) != 0) {
		if (erroff != NULL)
			*erroff = (size_t)(bad - s);
		return rc;
	}
	/* As date -d: calendar days first, then exact seconds. */
	if (r.days != 0 && (rc = add_days(zone, base, r.days, &base)) != 0)
		return rc;
	if (__builtin_add_overflow(base, r.secs, &base))
		return OTP_ETIMERANGE;
	*out = base;
	return 0;
}

/* Parse a duration: "30" (seconds) or components in the order d, h, m, s
 * ("30s", "1m", "1h", "1d", "2m30s", "1h30m", "90S"; not "1M", which
 * oathtool reads as a month).  Zero is accepted (the caller decides);
 * OTP_EDURATION for anything else, OTP_ERANGE past 2^64-1 seconds. */
int
otp_duration_parse(const char *s, uint64_t *seconds)
{
	static const struct {
		char		unit;
		uint64_t	secs;
	} dunits[] = {
		{ 'd', DAY }, { 'h', HOUR }, { 'm', MINUTE }, { 's', 1 },
	};
	const char *p = s;
	uint64_t total = 0, n, v;
	size_t next = 0, i;
	int big = 0;

	if (s == NULL || seconds == NULL)
		return OTP_EINVAL;
	/* Components "N<unit>" in the order d, h, m, s, each at most once;
	 * a bare number only as the whole text ("30": "1h30" could mean
	 * minutes as well as oathtool's seconds).  The syntax is
	 * checked to the end before an overflow is reported. */
	do {
		if (!is_digit(*p))
			return OTP_EDURATION;
		for (n = 0; is_digit(*p); p++) {
			if (n > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
				big = 1;
			else
				n = n * 10 + (uint64_t)(*p - '0');
		}
		if (*p == '\0' && next == 0) {
			v = n;		/* "30": seconds */
		} else {
			/* oathtool reads "1M" as a month: refused rather
			 * than taken as a minute. */
			for (i = next; i < NELEM(dunits); i++)
				if (to_lower(*p) == dunits[i].unit)
					break;
			if (i == NELEM(dunits) || *p == 'M')
				return OTP_EDURATION;
			p++;
			next = i + 1;
			if (__builtin_mul_overflow(n, dunits[i].secs, &v))
				big = 1;
		}
		if (__builtin_add_overflow(total, v, &total))
			big = 1;
	} while (*p != '\0');
	if (big)
		return OTP_ERANGE;
	*seconds = total;
	return 0;
}

/* v in decimal, zero-padded to at least width digits, at p; the end. */
static char *
put_decimal(char *p, uint64_t v, size_t width)
{
	char digits[20];
	size_t n = 0;

	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	for (; width > n; width--)
		*p++ = '0';
	while (n > 0)
		*p++ = digits[--n];
	return p;
}

/* "1 h 30 min", "45 s", "0 s": seconds as a person reads them. */
int
otp_duration_text(uint64_t s, char *out, size_t outsz)
{
	static const struct {
		uint64_t	 secs;
		const char	*unit;
	} unit[] = {
		{ 86400, "d" }, { 3600, "h" }, { 60, "min" }, { 1, "s" },
	};
	size_t i, n = 0;
	int w;

	if (out == NULL || outsz == 0)
		return OTP_ENOSPACE;
	out[0] = '\0';
	if (s == 0)
		return snprintf(out, outsz, "0 s") >= (int)outsz ?
		    OTP_ENOSPACE : 3;
	for (i = 0; i < sizeof(unit) / sizeof(unit[0]); i++) {
		if (s / unit[i].secs == 0)
			continue;
		w = snprintf(out + n, outsz - n, "%s%" PRIu64 " %s",
		    n > 0 ? " " : "", s / unit[i].secs, unit[i].unit);
		if (w < 0 || (size_t)w >= outsz - n)
			return OTP_ENOSPACE;
		n += (size_t)w;
		s %= unit[i].secs;
	}
	return (int)n;
}

/* Format t as "YYYY-MM-DD HH:MM:SS UTC" into out (then NUL); years
 * before 0 as "-0001", OTP_ETIMERANGE beyond what gmtime() represents,
 * OTP_ENOSPACE when outsz is too small. */
int
otp_time_format_utc(int64_t t, char *out, size_t outsz)
{
	char buf[48], *p = buf;
	int64_t days, secs, y;
	size_t len;
	int m, d;

	if (out == NULL)
		return OTP_EINVAL;
	if (outsz > 0)
		out[0] = '\0';
	/* Split into days and seconds of the day without overflowing. */
	days = t / DAY;
	secs = t % DAY;
	if (secs < 0) {
		secs += DAY;
		days--;
	}
	civil_from_days(days, &y, &m, &d);
	/* What gmtime() can represent: tm_year is an int. */
	if (y - 1900 > INT_MAX || y - 1900 < INT_MIN)
		return OTP_ETIMERANGE;
	/* "%s%04lld-%02d-%02d %02d:%02d:%02d UTC", with "-" before a year
	 * below 0. */
	if (y < 0)
		*p++ = '-';
	p = put_decimal(p, (uint64_t)(y < 0 ? -y : y), 4);
	*p++ = '-';
	p = put_decimal(p, (uint64_t)m, 2);
	*p++ = '-';
	p = put_decimal(p, (uint64_t)d, 2);
	*p++ = ' ';
	p = put_decimal(p, (uint64_t)(secs / HOUR), 2);
	*p++ = ':';
	p = put_decimal(p, (uint64_t)(secs % HOUR / MINUTE), 2);
	*p++ = ':';
	p = put_decimal(p, (uint64_t)(secs % MINUTE), 2);
	memcpy(p, " UTC", 5);
	len = (size_t)(p - buf) + 4;
	if (len >= outsz)
		return OTP_ENOSPACE;
	memcpy(out, buf, len + 1);
	return 0;
}

/*
 * test-users.c - the users-file engine (lib/users.c) without a disk:
 * decisions and rebuilt images (tests/vectors/users-check.txt), one line
 * parsed and formatted (users-line.txt), adding and replacing a user's
 * line, the limits, and the conversions to and from otpauth accounts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otp.h"
#include "otp_state.h"
#include "otp_uri.h"
#include "otp_users.h"
#include "unit.h"

static char in[8192], want[8192], out[8192 + OTP_USERS_LINE_MAX];

/* Undo the \n, \t and \\ escapes of the vector files. */
static size_t
unescape(const char *s, char *buf, size_t sz)
{
	size_t n = 0;

	for (; *s != '\0' && n < sz; s++) {
		if (*s != '\\' || s[1] == '\0') {
			buf[n++] = *s;
			continue;
		}
		s++;
		buf[n++] = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s;
	}
	return n;
}

static int
fixed_offset(void *arg, int64_t t, int32_t *off)
{
	(void)t;
	*off = *(const int32_t *)arg;
	return 0;
}

static const char *
result_name(const struct otp_users_result *r)
{
	if (r->accepted)
		return "accepted";
	switch (r->why) {
	case OTP_USERS_WHY_WRONG:
		return "wrong";
	case OTP_USERS_WHY_REPLAYED:
		return "replayed";
	case OTP_USERS_WHY_UNKNOWN:
		return "unknown";
	case OTP_USERS_WHY_PASSWORD:
		return "password";
	default:
		return "?";
	}
}

static void
check_case(const struct unit_line *l, void *arg)
{
	struct otp_users_result r;
	struct otp_zone zone;
	int32_t off;
	size_t inlen, wantlen, outlen;
	const char *pw;
	int rc, err;

	(void)arg;
	if (l->nfields != 10) {
		CHECK(0, "%s:%u: want 10 fields", l->file, l->lineno);
		return;
	}
	inlen = unescape(l->field[0], in, sizeof(in));
	pw = strcmp(l->field[2], "~") == 0 ? "" : l->field[2];
	off = (int32_t)atol(l->field[6]);
	zone.offset = fixed_offset;
	zone.arg = &off;
	rc = otp_users_check(in, inlen, l->field[1], pw, l->field[3],
	    atoll(l->field[4]), &zone, (unsigned)atoi(l->field[5]), &r, out,
	    sizeof(out), &outlen);
	err = unit_errcode(l->field[7]);
	if (err != 1) {
		CHECK_EQ_INT(rc, err, l->field[7]);
		CHECK(r.line == (size_t)atoi(l->field[8]), "%s:%u: fault at "
		    "line %zu", l->file, l->lineno, r.line);
		return;
	}
	CHECK(rc == 0, "%s:%u: %s", l->file, l->lineno, otp_strerror(rc));
	if (rc != 0)
		return;
	CHECK(strcmp(result_name(&r), l->field[7]) == 0, "%s:%u: got %s",
	    l->file, l->lineno, result_name(&r));
	if (strcmp(l->field[9], "-") == 0) {
		CHECK(outlen == 0, "%s:%u: image written", l->file, l->lineno);
		return;
	}
	CHECK(r.offset == atoll(l->field[8]), "%s:%u: offset %lld",
	    l->file, l->lineno, (long long)r.offset);
	wantlen = unescape(l->field[9], want, sizeof(want));
	CHECK(outlen == wantlen && memcmp(out, want, wantlen) == 0,
	    "%s:%u: image \"%.*s\"", l->file, l->lineno, (int)outlen, out);
}

static void
line_case(const struct unit_line *l, void *arg)
{
	struct otp_users_token t;
	char line[1024], fmt[1024];
	size_t n, wn;
	int rc, err;

	(void)arg;
	n = unescape(l->field[0], line, sizeof(line));
	rc = otp_users_line_parse(line, n, &t);
	err = unit_errcode(l->field[1]);
	CHECK_EQ_INT(rc, err == 1 ? atoi(l->field[1]) : err, l->field[0]);
	if (rc != 1)
		return;
	wn = unescape(l->field[2], fmt, sizeof(fmt) - 1);
	fmt[wn++] = '\n';
	rc = otp_users_line_format(&t, line, sizeof(line));
	CHECK(rc == (int)wn && memcmp(line, fmt, wn) == 0, "%s:%u: format "
	    "\"%s\"", l->file, l->lineno, rc > 0 ? line : "(error)");
}

/* otp_users_set: append, refuse, replace every line of the user. */
static void
set_cases(void)
{
	static const char img[] = "# c\nHOTP\ta\t-\t00\nHOTP/T30 b - 01\n"
	    "x\nHOTP\ta\t-\t02";
	struct otp_users_token t;
	size_t outlen;
	int rc;

	memset(&t, 0, sizeof(t));
	t.kind = OTP_USERS_TOTP;
	t.digits = 8;
	t.period = 60;
	memcpy(t.user, "c", 2);
	memcpy(t.password, "-", 2);
	t.key.len = 2;
	t.key.buf[0] = 0xab;
	t.key.buf[1] = 0xcd;
	rc = otp_users_set(img, sizeof(img) - 1, &t, 0, out, sizeof(out),
	    &outlen);
	CHECK(rc == 0 && outlen == sizeof(img) - 1 + 21 &&
	    memcmp(out + sizeof(img) - 1, "\nHOTP/T60/8\tc\t-\tabcd\n", 21) ==
	    0, "append: %d \"%.*s\"", rc, (int)outlen, out);
	memcpy(t.user, "a", 2);
	rc = otp_users_set(img, sizeof(img) - 1, &t, 0, out, sizeof(out),
	    &outlen);
	CHECK_EQ_INT(rc, OTP_EUSERSEXIST, "existing user without replace");
	t.kind = OTP_USERS_HOTP;
	t.digits = 6;
	t.period = 0;
	memcpy(t.password, "42", 3);
	rc = otp_users_set(img, sizeof(img) - 1, &t, 1, out, sizeof(out),
	    &outlen);
	CHECK(rc == 0 && outlen == 37 && memcmp(out, "# c\nHOTP\ta\t42\tabcd\n"
	    "HOTP/T30 b - 01\nx\n", 37) == 0, "replace: \"%.*s\"",
	    (int)outlen, out);
	rc = otp_users_set("", 0, &t, 0, out, sizeof(out), &outlen);
	CHECK(rc == 0 && outlen == 15 && memcmp(out, "HOTP\ta\t42\tabcd\n",
	    15) == 0, "new file: \"%.*s\"", (int)outlen, out);
	memcpy(t.user, "a b", 4);
	rc = otp_users_set("", 0, &t, 0, out, sizeof(out), &outlen);
	CHECK_EQ_INT(rc, OTP_EUSERSFIELD, "user with a blank");
	/* No password: the user's first line's stays, "-" for a new one. */
	memcpy(t.user, "a", 2);
	t.password[0] = '\0';
	rc = otp_users_set("", 0, &t, 0, out, sizeof(out), &outlen);
	CHECK(rc == 0 && outlen == 14 && memcmp(out, "HOTP\ta\t-\tabcd\n",
	    14) == 0, "new user, no password: \"%.*s\"", (int)outlen, out);
	rc = otp_users_set("HOTP/T30 a 1234 00\nHOTP a 99 01\n", 32, &t, 1,
	    out, sizeof(out), &outlen);
	CHECK(rc == 0 && outlen == 17 && memcmp(out, "HOTP\ta\t1234\tabcd\n",
	    17) == 0, "PIN kept: \"%.*s\"", (int)outlen, out);
}

static void
limit_cases(void)
{
	struct otp_users_result r;
	size_t outlen;
	int rc;

	rc = otp_users_check("HOTP a - 00\0", 12, "a", "", "123456", 0, NULL,
	    5, &r, out, sizeof(out), &outlen);
	CHECK_EQ_INT(rc, OTP_ENUL, "NUL in image");
	rc = otp_users_check("x", (size_t)OTP_USERS_MAX + 1, "a", "",
	    "123456", 0, NULL, 5, &r, out, sizeof(out), &outlen);
	CHECK_EQ_INT(rc, OTP_EUSERSSIZE, "image too large");
	CHECK_EQ_INT(otp_users_has_user("# a\nHOTP a - 00\n", 16, "a"), 1,
	    "has a");
	CHECK_EQ_INT(otp_users_has_user("# a\nHOTP a -\nMOTP b 1 x\n", 24,
	    "a"), 0, "a without key");
	CHECK_EQ_INT(otp_users_has_user("# a\nHOTP a -\nMOTP b 1 x\n", 24,
	    "b"), 1, "mOTP b");
	/* Room: the edited image must fit in out. */
	rc = otp_users_check("HOTP a - 3132333435363738393031323334353637383930"
	    "\n", 50, "a", "", "287082", 0, NULL, 5, &r, out, 60, &outlen);
	CHECK_EQ_INT(rc, OTP_ENOSPACE, "out too small");
	CHECK_EQ_STR(otp_users_why_text(OTP_USERS_WHY_REPLAYED),
	    "code already used", "why text");
}

/* otp_users_each_token: the user's lines a check decides on, parsed. */
struct seen {
	char	got[256];
	size_t	n;
	int	stop;	/* return non-zero at this one (1-based), 0 never */
};

static int
seen_token(void *arg, const struct otp_users_token *t)
{
	struct seen *sn = arg;
	size_t k = strlen(sn->got);

	(void)snprintf(sn->got + k, sizeof(sn->got) - k, "%s/%zu ",
	    t->password, t->key.len);
	return ++sn->n == (size_t)sn->stop ? 7 : 0;
}

static void
each_token_cases(void)
{
	static const char img[] =
	    "# a comment of a\n"
	    "HOTP a 1234 3132\n"
	    "HOTP ab - 00\n"		/* another user */
	    "HOTP a -\n"		/* no key: passed over */
	    "BOGUS a - 00\n"		/* no type we know */
	    "HOTP a - zz\n"		/* a key that does not read */
	    "HOTP/T30  a\t-\t313233 7 123456\n"
	    "MOTP a 1111 secret";	/* no newline at the end */
	struct seen sn;

	memset(&sn, 0, sizeof(sn));
	CHECK_EQ_INT(otp_users_each_token(img, sizeof(img) - 1, "a",
	    seen_token, &sn), 0, "each_token: to the end");
	CHECK_EQ_STR(sn.got, "1234/2 -/3 1111/6 ", "each_token: a's lines");
	memset(&sn, 0, sizeof(sn));
	sn.stop = 2;
	CHECK_EQ_INT(otp_users_each_token(img, sizeof(img) - 1, "a",
	    seen_token, &sn), 7, "each_token: stopped");
	CHECK_EQ_STR(sn.got, "1234/2 -/3 ", "each_token: up to the stop");
	memset(&sn, 0, sizeof(sn));
	CHECK_EQ_INT(otp_users_each_token(img, sizeof(img) - 1, "nobody",
	    seen_token, &sn), 0, "each_token: no line");
	CHECK(sn.n == 0, "each_token: none seen");
	CHECK_EQ_INT(otp_users_each_token("HOTP a - 00\0", 12, "a",
	    seen_token, &sn), OTP_ENUL, "each_token: NUL in image");
}

/* otp_users_from_uri / otp_users_to_uri / otp_users_line_other: what a
 * line cannot carry, the fields both ways, and lines of other kinds. */
static void
uri_cases(void)
{
	static const struct {
		const char	*uri;
		unsigned	 drop, want;
		const char	*line;	/* formatted, when want is 0 */
	} c[] = {
		{ "otpauth://totp/a?secret=GEZA", 0, 0, "HOTP/T30\ta\t-\t3132\n" },
		{ "otpauth://totp/a?secret=GEZA&period=60&digits=8", 0, 0,
		  "HOTP/T60/8\ta\t-\t3132\n" },
		{ "otpauth://hotp/a?secret=GEZA&digits=7&counter=9", 0, 0,
		  "HOTP/E/7\ta\t-\t3132\t9\n" },
		{ "otpauth://hotp/a?secret=GEZA", 0, 0, "HOTP\ta\t-\t3132\n" },
		{ "otpauth://totp/:a:b?secret=GEZA", 0, 0,
		  "HOTP/T30\ta:b\t-\t3132\n" },
		{ "otpauth://totp/a?secret=GEZA&algorithm=SHA256", 0,
		  OTP_USERS_NO_ALG, NULL },
		{ "otpauth://totp/a?secret=GEZA&period=45", 0,
		  OTP_USERS_NO_PERIOD, NULL },
		{ "otpauth://hotp/a?secret=GEZA&period=45", 0, 0,
		  "HOTP\ta\t-\t3132\n" },
		{ "otpauth://totp/a?secret=GEZA&digits=9", 0,
		  OTP_USERS_NO_DIGITS, NULL },
		{ "otpauth://steam/a?secret=GEZA", 0, OTP_USERS_NO_STEAM, NULL },
		{ "otpauth://totp/I:a?secret=GEZA", 0, OTP_USERS_NO_ISSUER,
		  NULL },
		{ "otpauth://totp/I:a?secret=GEZA", OTP_USERS_NO_ISSUER, 0,
		  "HOTP/T30\ta\t-\t3132\n" },
		{ "otpauth://totp/a?secret=GEZA&x=1", 0, OTP_USERS_NO_EXTRA,
		  NULL },
		{ "otpauth://totp/a?secret=GEZA&x=1", OTP_USERS_NO_EXTRA, 0,
		  "HOTP/T30\ta\t-\t3132\n" },
		{ "otpauth://totp/a%20b?secret=GEZA", 0, OTP_USERS_NO_USER,
		  NULL },
		{ "otpauth://totp/?secret=GEZA", 0, OTP_USERS_NO_USER, NULL },
		/* Only the issuer and unknown parameters may be dropped. */
		{ "otpauth://totp/I:a%20b?secret=GEZA&algorithm=SHA512&"
		  "period=1", ~0u, OTP_USERS_NO_USER | OTP_USERS_NO_ALG |
		  OTP_USERS_NO_PERIOD, NULL },
	};
	struct otp_users_token t;
	struct otp_uri u, v;
	char line[256];
	const char *uri;
	size_t i, off;
	unsigned no;
	int rc;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		otp_uri_init(&u);
		rc = otp_uri_parse(c[i].uri, &u, &off);
		CHECK_EQ_INT(rc, 0, c[i].uri);
		no = otp_users_from_uri(&u, c[i].drop, &t);
		CHECK(no == c[i].want, "%s: no %#x, want %#x", c[i].uri, no,
		    c[i].want);
		if (no != 0) {
			CHECK(t.user[0] == '\0' && t.key.len == 0,
			    "%s: token not cleared", c[i].uri);
			continue;
		}
		rc = otp_users_line_format(&t, line, sizeof(line));
		CHECK(rc > 0 && strcmp(line, c[i].line) == 0, "%s: line \"%s\"",
		    c[i].uri, rc > 0 ? line : "(error)");
		/* And back: the same account, but for what was dropped. */
		CHECK_EQ_INT(otp_users_to_uri(&t, &v), 0, c[i].uri);
		u.issuer[0] = '\0';
		CHECK(otp_uri_equal(&u, &v), "%s: not the same account back",
		    c[i].uri);
	}
	/* A used HOTP counter gives the next; TOTP's COUNTER is not a URI's. */
	uri = "HOTP\tz\t-\t3132\t7\t445008";
	CHECK_EQ_INT(otp_users_line_parse(uri, strlen(uri), &t), 1, uri);
	CHECK(otp_users_to_uri(&t, &v) == 0 && v.counter == 8 &&
	    v.type == OTP_TYPE_HOTP && strcmp(v.account, "z") == 0 &&
	    v.issuer[0] == '\0', "used counter");
	/* A LASTOTP that is no code of COUNTER's: pam_oath still takes
	 * COUNTER's code. */
	uri = "HOTP\tz\t-\t3132\t7\t123456";
	CHECK_EQ_INT(otp_users_line_parse(uri, strlen(uri), &t), 1, uri);
	CHECK(otp_users_to_uri(&t, &v) == 0 && v.counter == 7,
	    "LASTOTP not COUNTER's code");
	t.counter = UINT64_MAX;
	CHECK(otp_users_to_uri(&t, &v) == 0 && v.counter == UINT64_MAX,
	    "last counter");
	uri = "HOTP/T60/7\tz\t1234\t3132\t7\t1234567";
	CHECK_EQ_INT(otp_users_line_parse(uri, strlen(uri), &t), 1, uri);
	CHECK(otp_users_to_uri(&t, &v) == 0 && v.type == OTP_TYPE_TOTP &&
	    v.period == 60 && v.digits == 7 && v.counter == 0, "TOTP line");
	uri = "MOTP\tz\t1234\t0123456789abcdef";
	CHECK_EQ_INT(otp_users_line_parse(uri, strlen(uri), &t), 1, uri);
	CHECK_EQ_INT(otp_users_to_uri(&t, &v), OTP_EINVAL, "MOTP");
	/* Lines of other kinds. */
	{
		char type[8], user[4];

		CHECK(otp_users_line_other(" \t", 2, type, sizeof(type), user,
		    sizeof(user)) == 0 && type[0] == '\0' && user[0] == '\0',
		    "blank");
		CHECK_EQ_INT(otp_users_line_other(" # HOTP a - 00", 14, type,
		    sizeof(type), user, sizeof(user)), 0, "comment");
		CHECK(otp_users_line_other("HOTP/T45  alice - 00", 20, type,
		    sizeof(type), user, sizeof(user)) == 1 &&
		    strcmp(type, "HOTP/T4") == 0 && strcmp(user, "ali") == 0,
		    "unknown type, cut to fit");
		CHECK(otp_users_line_other("X", 1, type, sizeof(type), user,
		    sizeof(user)) == 1 && strcmp(type, "X") == 0 &&
		    user[0] == '\0', "one field");
	}
}

/* A state image from line at now: the engine's verdict on code. */
static int
state_takes(const char *line, unsigned window, const char *code,
    int64_t now, struct otp_state_result *r)
{
	static char img[OTP_STATE_MAX], o[OTP_STATE_OUTMAX];
	struct otp_users_token t;
	struct otp_state_opts op;
	size_t len, olen;

	if (otp_users_line_parse(line, strlen(line), &t) != 1 ||
	    otp_users_to_state(&t, window, img, sizeof(img), &len) != 0)
		return -1;
	otp_state_opts_init(&op);
	op.flags |= OTP_STATE_NOINCRHOTP;
	if (otp_state_check(img, len, code, now, &op, r, o, sizeof(o),
	    &olen) != 0)
		return -1;
	return r->accepted;
}

/* otp_users_to_state: the code pam_oath takes next, and its window=,
 * as a state image (RFC 4226's codes of its key). */
static void
state_cases(void)
{
	static char img[OTP_STATE_MAX];
	struct otp_users_token t;
	struct otp_state_result r;
	const char *never = "HOTP\tz\t-\t"
	    "3132333435363738393031323334353637383930";
	const char *used = "HOTP\tz\t-\t"
	    "3132333435363738393031323334353637383930\t3\t969429";
	const char *totp = "HOTP/T30\tz\t-\t"
	    "3132333435363738393031323334353637383930";
	size_t len;

	CHECK(otp_users_line_parse(never, strlen(never), &t) == 1 &&
	    otp_users_to_state(&t, 5, img, sizeof(img), &len) == 0 &&
	    strstr(img, "\" HOTP_COUNTER 0\n") != NULL &&
	    strstr(img, "\" HOTP_ZERO") != NULL &&
	    strstr(img, "\" WINDOW_SIZE 5\n") != NULL, "never used: image");
	/* Never used: counters 0 to 5, as pam_oath's window=5. */
	CHECK(state_takes(never, 5, "755224", 0, &r) == 1 && r.counter == 0,
	    "never used: counter 0");
	CHECK(state_takes(never, 5, "254676", 0, &r) == 1 && r.counter == 5,
	    "never used: counter 5");
	CHECK_EQ_INT(state_takes(never, 5, "287922", 0, &r), 0,
	    "never used: counter 6");
	/* Used at 3: counters 4 to 8. */
	CHECK_EQ_INT(state_takes(used, 5, "969429", 0, &r), 0, "used: 3");
	CHECK(state_takes(used, 5, "338314", 0, &r) == 1 && r.counter == 4,
	    "used: 4");
	CHECK(state_takes(used, 5, "399871", 0, &r) == 1 && r.counter == 8,
	    "used: 8");
	CHECK_EQ_INT(state_takes(used, 5, "520489", 0, &r), 0, "used: 9");
	CHECK(state_takes(used, 1, "338314", 0, &r) == 1, "window 1: 4");
	CHECK_EQ_INT(state_takes(used, 1, "254676", 0, &r), 0, "window 1: 5");
	/* TOTP: window=2 is 2 steps either side (RFC 6238's 59 s: step 1;
	 * code 287082 is step 1's). */
	CHECK(otp_users_line_parse(totp, strlen(totp), &t) == 1 &&
	    otp_users_to_state(&t, 2, img, sizeof(img), &len) == 0 &&
	    strstr(img, "\" WINDOW_SIZE 5\n") != NULL, "TOTP: image");
	CHECK(state_takes(totp, 2, "287082", 59 + 60, &r) == 1, "TOTP: -2");
	CHECK_EQ_INT(state_takes(totp, 2, "287082", 59 + 90, &r), 0,
	    "TOTP: -3");
	CHECK_EQ_INT(otp_users_to_state(&t, OTP_USERS_STATE_WINDOW_MAX + 1,
	    img, sizeof(img), &len), OTP_ERANGE, "window too wide");
}

int
main(int argc, char *argv[])
{
	const char *dir = argc > 1 ? argv[1] : "tests/vectors";

	unit_vectors(dir, "users-check.txt", check_case, NULL);
	unit_vectors(dir, "users-line.txt", line_case, NULL);
	set_cases();
	limit_cases();
	each_token_cases();
	uri_cases();
	state_cases();
	return unit_done();
}

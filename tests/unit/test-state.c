/*
 * test-state.c - the state-file engine (lib/state.c) without a disk:
 * step-by-step scenarios whose expected images were produced by Debian's
 * pam_google_authenticator.so (tests/vectors/state-steps.txt), parsing
 * (state-parse.txt), malformed files (state-bad.txt), new files
 * (state-build.txt), and the rules the module gets wrong on purpose.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otp.h"
#include "otp_state.h"
#include "unit.h"

static char img[OTP_STATE_MAX + 16];
static size_t imglen;
static char out[OTP_STATE_OUTMAX];

/* Undo the \n, \r, \0 and \\ escapes of the vector files. */
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
		buf[n++] = *s == 'n' ? '\n' : *s == 'r' ? '\r' :
		    *s == '0' ? '\0' : *s;
	}
	return n;
}

static const char *
outcome(const struct otp_state_result *r)
{
	if (r->accepted)
		switch (r->how) {
		case OTP_STATE_BYCODE:
			return "code";
		case OTP_STATE_BYSCRATCH:
			return "scratch";
		case OTP_STATE_BYGRACE:
			return "grace";
		default:
			return "?";
		}
	switch (r->why) {
	case OTP_STATE_WHY_WRONG:
		return "wrong";
	case OTP_STATE_WHY_SHAPE:
		return "shape";
	case OTP_STATE_WHY_REUSED:
		return "reused";
	case OTP_STATE_WHY_RATELIMIT:
		return "ratelimit";
	case OTP_STATE_WHY_SKEW:
		return "skew";
	case OTP_STATE_WHY_NOCODE:
		return "nocode";
	default:
		return "?";
	}
}

static void
set_flags(const char *f, struct otp_state_opts *o, char *host, size_t hsz)
{
	otp_state_opts_init(o);
	for (; *f != '\0' && *f != '-'; f++) {
		if (*f == 's')
			o->flags |= OTP_STATE_NOSKEWADJ;
		else if (*f == 'i')
			o->flags |= OTP_STATE_NOINCRHOTP;
		else if (*f == 'g') {
			const char *colon = strchr(f, ':');
			const char *end;

			o->grace_period = strtoull(f + 1, NULL, 10);
			if (colon == NULL)
				return;
			end = strchr(colon, ',');
			if (end == NULL)
				end = colon + strlen(colon);
			snprintf(host, hsz, "%.*s", (int)(end - colon - 1),
			    colon + 1);
			o->rhost = host;
			f = end - 1;
		}
	}
}

static void
step_case(const struct unit_line *l, void *arg)
{
	struct otp_state_opts o;
	struct otp_state_result r;
	static char want[OTP_STATE_MAX + 16];
	char host[300];
	size_t outlen, wantlen;
	uint64_t now;
	int ret;

	(void)arg;
	if (strcmp(l->field[0], "file") == 0 && l->nfields == 2) {
		imglen = unescape(l->field[1], img, sizeof(img));
		return;
	}
	CHECK(strcmp(l->field[0], "check") == 0 && l->nfields == 6,
	    "%s:%u: bad line", l->file, l->lineno);
	if (l->nfields != 6)
		return;
	CHECK(otp_parse_u64(l->field[2], 0, INT64_MAX, &now) == 0, "now");
	set_flags(l->field[3], &o, host, sizeof(host));
	memset(out, 0, sizeof(out));
	ret = otp_state_check(img, imglen, l->field[1], (int64_t)now, &o, &r,
	    out, sizeof(out), &outlen);
	unit_check(ret == 0, l->file, (int)l->lineno, "check: %s",
	    otp_strerror(ret));
	if (ret != 0)
		return;
	/* The callers wipe out[0..outlen) only: nothing may lie beyond. */
	unit_check(memchr(out + outlen, '\0', 1) != NULL &&
	    memcmp(out + outlen, out + outlen + 1,
	    sizeof(out) - outlen - 1) == 0, l->file, (int)l->lineno,
	    "bytes left past the image");
	unit_check(strcmp(outcome(&r), l->field[4]) == 0, l->file,
	    (int)l->lineno, "outcome %s, want %s", outcome(&r), l->field[4]);
	if (strcmp(l->field[5], "=") == 0) {
		wantlen = imglen;
		memcpy(want, img, imglen);
	} else
		wantlen = unescape(l->field[5], want, sizeof(want));
	unit_check(outlen == wantlen && memcmp(out, want, outlen) == 0,
	    l->file, (int)l->lineno, "image after: got \"%.*s\"", (int)outlen,
	    out);
	unit_check(r.changed == (strcmp(l->field[5], "=") != 0), l->file,
	    (int)l->lineno, "changed flag %d", r.changed);
	memcpy(img, out, outlen);
	imglen = outlen;
}

static const struct {
	const char	*name;
	int		 code;
} errnames[] = {
	{ "OTP_ESTATESECRET", OTP_ESTATESECRET },
	{ "OTP_ESTATEOPT", OTP_ESTATEOPT }, { "OTP_ESTATESIZE", OTP_ESTATESIZE },
	{ "OTP_ENUL", OTP_ENUL },
};

static void
bad_case(const struct unit_line *l, void *arg)
{
	static struct otp_state st;
	struct otp_state_opts o;
	struct otp_state_result r;
	size_t n, i, outlen;
	int want = 1, ret;

	(void)arg;
	n = unescape(l->field[0], img, sizeof(img));
	for (i = 0; i < sizeof(errnames) / sizeof(errnames[0]); i++)
		if (strcmp(errnames[i].name, l->field[1]) == 0)
			want = errnames[i].code;
	CHECK(want < 0, "%s:%u: unknown error name", l->file, l->lineno);
	ret = otp_state_parse(img, n, &st);
	unit_check(ret == want, l->file, (int)l->lineno, "parse: %d (%s)",
	    ret, otp_strerror(ret));
	/* The optional third field: the line and option at fault, as
	 * otp_state_fault() places them for a message. */
	if (l->nfields > 2) {
		const char *opt;
		char where[64];
		size_t line;

		ret = otp_state_fault(img, n, &line, &opt);
		snprintf(where, sizeof(where), "%zu %s", line,
		    opt != NULL ? opt : "-");
		unit_check(ret == want && strcmp(where, l->field[2]) == 0,
		    l->file, (int)l->lineno, "fault: %d at '%s', want '%s'",
		    ret, where, l->field[2]);
	}
	otp_state_opts_init(&o);
	ret = otp_state_check(img, n, "050548", 300000, &o, &r, out,
	    sizeof(out), &outlen);
	unit_check(ret == want && outlen == 0 && !r.accepted, l->file,
	    (int)l->lineno, "check: %d", ret);
}

static void
parse_case(const struct unit_line *l, void *arg)
{
	static struct otp_state st;
	char list[512];
	size_t n, i, ln = 0;
	int ret;

	(void)arg;
	if (l->nfields != 10) {
		CHECK(0, "%s:%u: want 10 fields", l->file, l->lineno);
		return;
	}
	n = unescape(l->field[0], img, sizeof(img));
	ret = otp_state_parse(img, n, &st);
	unit_check(ret == 0, l->file, (int)l->lineno, "parse: %s",
	    otp_strerror(ret));
	if (ret != 0)
		return;
	unit_check(strcmp(l->field[1], st.mode == OTP_STATE_TOTP ? "totp" :
	    st.mode == OTP_STATE_HOTP ? "hotp" : "scratch") == 0, l->file,
	    (int)l->lineno, "mode %d", (int)st.mode);
	unit_check(st.window == strtoul(l->field[2], NULL, 10) &&
	    st.step == strtoul(l->field[3], NULL, 10) &&
	    st.rate_n == strtoul(l->field[4], NULL, 10) &&
	    st.rate_secs == strtoul(l->field[5], NULL, 10) &&
	    st.disallow_reuse == atoi(l->field[6]) &&
	    st.hotp_counter == strtoull(l->field[7], NULL, 10) &&
	    st.skew == strtoll(l->field[8], NULL, 10), l->file,
	    (int)l->lineno, "settings: window %u step %u rate %u/%u reuse %d "
	    "counter %llu skew %lld", st.window, st.step, st.rate_n,
	    st.rate_secs, st.disallow_reuse,
	    (unsigned long long)st.hotp_counter, (long long)st.skew);
	list[0] = '\0';
	for (i = 0; i < st.nscratch && ln + 10 < sizeof(list); i++)
		ln += (size_t)snprintf(list + ln, sizeof(list) - ln, "%s%u",
		    i ? " " : "", (unsigned)st.scratch[i]);
	unit_check(strcmp(list, strcmp(l->field[9], "-") == 0 ? "" :
	    l->field[9]) == 0, l->file, (int)l->lineno, "scratch \"%s\"",
	    list);
	CHECK(st.key.len > 0, "key decoded");
}

static void
build_case(const struct unit_line *l, void *arg)
{
	struct otp_state_new nw;
	uint32_t sc[16];
	uint8_t key[64];
	char *p, *end;
	size_t n, outlen;
	long klen;
	int ret;

	(void)arg;
	if (l->nfields != 9) {
		CHECK(0, "%s:%u: want 9 fields", l->file, l->lineno);
		return;
	}
	memset(&nw, 0, sizeof(nw));
	nw.mode = strcmp(l->field[0], "hotp") == 0 ? OTP_STATE_HOTP :
	    OTP_STATE_TOTP;
	nw.window = (unsigned)strtoul(l->field[1], NULL, 10);
	nw.step = (unsigned)strtoul(l->field[2], NULL, 10);
	nw.rate_n = (unsigned)strtoul(l->field[3], NULL, 10);
	nw.rate_secs = (unsigned)strtoul(l->field[4], NULL, 10);
	nw.disallow_reuse = atoi(l->field[5]);
	for (p = l->field[6], n = 0; *p != '\0' && *p != '-' && n < 16;
	    p = end) {
		sc[n++] = (uint32_t)strtoul(p, &end, 10);
		if (end == p)
			break;
	}
	nw.scratch = sc;
	nw.nscratch = n;
	klen = unit_unhex(l->field[7], key, sizeof(key));
	ret = otp_state_build(key, (size_t)klen, &nw, out, sizeof(out),
	    &outlen);
	n = unescape(l->field[8], img, sizeof(img));
	unit_check(ret == 0 && outlen == n && memcmp(out, img, n) == 0,
	    l->file, (int)l->lineno, "build: %d \"%.*s\"", ret, (int)outlen,
	    out);
}

/* otp-utils' own lines come after the original's, and read back. */
static void
test_build_ext(void)
{
	static const uint8_t key[10] = { 0xd4, 0x8f, 0xba, 0xec, 0xc3, 0xb7,
	    0xf2, 0xd6, 0x1b, 0x04 };
	static const char want[] = "2SH3V3GDW7ZNMGYE\n\" DISALLOW_REUSE\n"
	    "\" TOTP_AUTH\n\" DIGITS 8\n\" ALGORITHM SHA256\n\" PIN 12ab\n";
	static struct otp_state st;
	struct otp_state_new nw;
	size_t outlen = 0;

	memset(&nw, 0, sizeof(nw));
	nw.mode = OTP_STATE_TOTP;
	nw.disallow_reuse = 1;
	nw.digits = 8;
	nw.alg = OTP_ALG_SHA256;
	nw.pin = "12ab";
	CHECK(otp_state_build(key, sizeof(key), &nw, out, sizeof(out),
	    &outlen) == 0 && outlen == strlen(want) &&
	    memcmp(out, want, outlen) == 0, "build DIGITS ALGORITHM PIN: "
	    "\"%.*s\"", (int)outlen, out);
	CHECK(otp_state_parse(out, outlen, &st) == 0 && st.digits == 8 &&
	    st.alg == OTP_ALG_SHA256 && strcmp(st.pin, "12ab") == 0,
	    "parse DIGITS ALGORITHM PIN");
	nw.digits = 6;
	nw.alg = OTP_ALG_SHA1;
	nw.pin = "";
	CHECK(otp_state_build(key, sizeof(key), &nw, out, sizeof(out),
	    &outlen) == 0 && memmem(out, outlen, "DIGITS", 6) == NULL &&
	    memmem(out, outlen, "ALGORITHM", 9) == NULL &&
	    memmem(out, outlen, "PIN", 3) == NULL, "defaults write no line");
	CHECK(otp_state_parse(out, outlen, &st) == 0 && st.digits == 6 &&
	    st.alg == OTP_ALG_SHA1 && st.pin[0] == '\0', "parse defaults");
	nw.digits = 9;
	CHECK(otp_state_build(key, sizeof(key), &nw, out, sizeof(out),
	    &outlen) == OTP_EINVAL, "digits 9");
	nw.digits = 0;
	nw.pin = "a b";
	CHECK(otp_state_build(key, sizeof(key), &nw, out, sizeof(out),
	    &outlen) == OTP_EINVAL, "PIN with a blank");
}

/* The builder refuses what google-authenticator(1) refuses. */
static void
test_build_ranges(void)
{
	static const uint8_t key[16] = { 1 };
	uint32_t bad = 1234567;
	struct otp_state_new nw;
	size_t outlen;

	memset(&nw, 0, sizeof(nw));
	nw.mode = OTP_STATE_TOTP;
	nw.window = 22;
	CHECK(otp_state_build(key, 16, &nw, out, sizeof(out), &outlen) ==
	    OTP_ESTATEWINDOW, "window 22");
	nw.window = 0;
	nw.step = 61;
	CHECK(otp_state_build(key, 16, &nw, out, sizeof(out), &outlen) ==
	    OTP_ESTATESTEP, "step 61");
	nw.step = 0;
	nw.rate_n = 11;
	nw.rate_secs = 30;
	CHECK(otp_state_build(key, 16, &nw, out, sizeof(out), &outlen) ==
	    OTP_ESTATERATE, "rate 11");
	nw.rate_n = 3;
	nw.rate_secs = 14;
	CHECK(otp_state_build(key, 16, &nw, out, sizeof(out), &outlen) ==
	    OTP_ESTATERATE, "rate seconds 14");
	nw.rate_n = 0;
	nw.rate_secs = 0;
	nw.mode = OTP_STATE_HOTP;
	nw.disallow_reuse = 1;
	CHECK(otp_state_build(key, 16, &nw, out, sizeof(out), &outlen) ==
	    OTP_ESTATEHOTP, "HOTP with DISALLOW_REUSE");
	nw.disallow_reuse = 0;
	nw.scratch = &bad;
	nw.nscratch = 1;
	CHECK(otp_state_build(key, 16, &nw, out, sizeof(out), &outlen) ==
	    OTP_ERANGE, "7-digit scratch code");
	nw.nscratch = 0;
	CHECK(otp_state_build(key, 0, &nw, out, sizeof(out), &outlen) ==
	    OTP_EKEYEMPTY, "empty key");
	CHECK(otp_state_build(key, 16, &nw, out, 10, &outlen) ==
	    OTP_ENOSPACE, "small buffer");
}

static int
run(const char *text, const char *code, int64_t now, unsigned flags,
    struct otp_state_result *r, size_t *outlen)
{
	struct otp_state_opts o;

	otp_state_opts_init(&o);
	o.flags = flags;
	imglen = strlen(text);
	memcpy(img, text, imglen);
	return otp_state_check(img, imglen, code, now, &o, r, out,
	    sizeof(out), outlen);
}

/* Where we are stricter than the module, or where the module has no
 * answer to compare with. */
static void
test_rules(void)
{
	struct otp_state_result r;
	static struct otp_state st;
	size_t outlen;
	int ret;

	/* Sizes: empty and over 64 KiB. */
	CHECK(otp_state_parse("", 0, &st) == OTP_ESTATESIZE, "empty");
	memset(img, 'A', sizeof(img));
	CHECK(otp_state_parse(img, OTP_STATE_MAX + 1, &st) ==
	    OTP_ESTATESIZE, "over 64 KiB");
	memcpy(img, "2SH3V3GDW7ZNMGYE\n\" ", 19);
	img[OTP_STATE_MAX - 1] = '\n';
	CHECK(otp_state_parse(img, OTP_STATE_MAX, &st) == 0,
	    "exactly 64 KiB parses");

	/* The resync code: the module accepts it a second time under
	 * DISALLOW_REUSE; we record it.  Phone 10 steps ahead at step 10000:
	 * codes for 10010, 10011 (t+30), 10012 (t+60). */
	ret = run("2SH3V3GDW7ZNMGYE\n\" DISALLOW_REUSE\n\" TOTP_AUTH\n"
	    "\" RESETTING_TIME_SKEW 10000+10 10001+10\n", "287588", 300060, 0,
	    &r, &outlen);
	CHECK(ret == 0 && r.accepted && r.skew == 10, "resync accepted");
	out[outlen] = '\0';
	CHECK(strstr(out, "\" DISALLOW_REUSE 10012\n") != NULL,
	    "resync code recorded as used: %s", out);
	memcpy(img, out, outlen);
	imglen = outlen;
	{
		struct otp_state_opts o;

		otp_state_opts_init(&o);
		ret = otp_state_check(img, imglen, "287588", 300060, &o, &r,
		    out, sizeof(out), &outlen);
		CHECK(ret == 0 && !r.accepted &&
		    r.why == OTP_STATE_WHY_REUSED, "resync code not twice");
	}

	/* A file that is only a secret without a newline: the module glues
	 * the new option to the secret; we add the newline. */
	ret = run("2SH3V3GDW7ZNMGYE", "11111111", 300000, 0, &r, &outlen);
	CHECK(ret == 0 && !r.accepted && outlen == 16, "secret only");
	ret = run("2SH3V3GDW7ZNMGYE\n\" RATE_LIMIT 3 30", "050548", 300000,
	    0, &r, &outlen);
	CHECK(ret == 0 && !r.accepted, "no TOTP_AUTH: scratch only");

	/* Grace period needs a valid host; a host with a newline would
	 * inject lines: never recorded. */
	{
		struct otp_state_opts o;

		otp_state_opts_init(&o);
		o.grace_period = 60;
		o.rhost = "10.0.0.1\n\" TIME_SKEW 5";
		imglen = (size_t)sprintf(img, "%s", "2SH3V3GDW7ZNMGYE\n"
		    "\" DISALLOW_REUSE\n\" TOTP_AUTH\n");
		ret = otp_state_check(img, imglen, "050548", 300000, &o, &r,
		    out, sizeof(out), &outlen);
		out[outlen] = '\0';
		CHECK(ret == 0 && r.accepted && strstr(out, "LAST") == NULL,
		    "bad rhost not recorded");
		o.rhost = "10.0.0.1";
		imglen = (size_t)sprintf(img, "%s", "2SH3V3GDW7ZNMGYE\n"
		    "\" LAST0 10.0.0.10 299990\n\" TOTP_AUTH\n");
		ret = otp_state_check(img, imglen, "999999", 300000, &o, &r,
		    out, sizeof(out), &outlen);
		CHECK(ret == 0 && !r.accepted, "host prefix is no match");
	}

	/* Time before the epoch, small buffer, code shapes. */
	CHECK(run("2SH3V3GDW7ZNMGYE\n\" TOTP_AUTH\n", "050548", -1, 0, &r,
	    &outlen) == OTP_ETIMERANGE, "negative time");
	CHECK(otp_state_code_shape("050548") == 0 &&
	    otp_state_code_shape("12345678") == 0 &&
	    otp_state_code_shape("01234567") == OTP_ECODE &&
	    otp_state_code_shape("12345") == OTP_ECODE &&
	    otp_state_code_shape("1234567") == OTP_ECODE &&
	    otp_state_code_shape(" 123456") == OTP_ECODE &&
	    otp_state_code_shape("") == OTP_ECODE, "code shapes");
	CHECK(strcmp(otp_state_why_text(OTP_STATE_WHY_REUSED), "") != 0,
	    "why text");

	/* Rate-limit list: only the newest N kept, old ones pruned (a time
	 * in the future counts as now: test_rate_clocks). */
	ret = run("2SH3V3GDW7ZNMGYE\n\" RATE_LIMIT 2 30 299960 299990\n"
	    "\" TOTP_AUTH\n", "000000", 300000, OTP_STATE_NOSKEWADJ, &r,
	    &outlen);
	out[outlen] = '\0';
	CHECK(ret == 0 && !r.accepted && r.why == OTP_STATE_WHY_WRONG &&
	    strstr(out, "\" RATE_LIMIT 2 30 299990 300000\n") != NULL,
	    "rate list: %s", out);
	memcpy(img, out, outlen);
	imglen = outlen;
	{
		struct otp_state_opts o;

		otp_state_opts_init(&o);
		ret = otp_state_check(img, imglen, "050548", 300001, &o, &r,
		    out, sizeof(out), &outlen);
		out[outlen] = '\0';
		CHECK(ret == 0 && !r.accepted &&
		    r.why == OTP_STATE_WHY_RATELIMIT &&
		    strstr(out, "RATE_LIMIT 2 30 300000 300001\n") != NULL,
		    "rate limited even with the right code: %s", out);
	}
}

/* One step of a login on the image in img (phases OPEN/SETTLE, at most
 * one answer of kind k); the result becomes the image. */
static int
login_step(unsigned phases, const char *text, enum otp_answer_kind k,
    unsigned flags, const char *rhost, struct otp_state_result *r)
{
	struct otp_state_opts o;
	struct otp_answer a;
	size_t outlen;
	int ret;

	otp_state_opts_init(&o);
	o.flags = flags;
	if (rhost != NULL) {
		o.grace_period = 600;
		o.rhost = rhost;
	}
	a.text = text;
	a.kind = k;
	ret = otp_state_login(img, imglen, phases, &a, text != NULL, 300000,
	    &o, r, out, sizeof(out), &outlen);
	if (ret == 0) {
		memcpy(img, out, outlen);
		imglen = outlen;
		img[imglen] = '\0';
	}
	return ret;
}

static void
login_file(const char *text)
{
	imglen = strlen(text);
	memcpy(img, text, imglen + 1);
}

#define OPEN	OTP_LOGIN_OPEN
#define SETTLE	OTP_LOGIN_SETTLE
#define BARE	OTP_ANSWER_BARE
#define SPLIT	OTP_ANSWER_SPLIT

/* One login, one attempt: its start, the readings of its answers, its
 * end (otp_state_login).  Final images are what Debian's
 * pam_google_authenticator.so left for the same logins. */
static void
test_login(void)
{
	struct otp_state_result r;
	struct otp_answer two[2];
	size_t outlen;

	/* The start records the attempt and checks nothing. */
	login_file("2SH3V3GDW7ZNMGYE\n\" RATE_LIMIT 3 30\n\" TOTP_AUTH\n");
	CHECK(login_step(OPEN, NULL, BARE, 0, NULL, &r) == 0 && !r.accepted &&
	    r.why == OTP_STATE_WHY_SHAPE && r.changed, "start");
	CHECK_EQ_STR(img, "2SH3V3GDW7ZNMGYE\n\" RATE_LIMIT 3 30 300000\n"
	    "\" TOTP_AUTH\n", "one attempt recorded");
	/* Later readings neither record nor count: even at the limit. */
	login_file("2SH3V3GDW7ZNMGYE\n\" RATE_LIMIT 1 30 300000\n"
	    "\" TOTP_AUTH\n");
	CHECK(login_step(SETTLE, "050548", BARE, 0, NULL, &r) == 0 &&
	    r.accepted && !r.changed,
	    "reading at the limit accepted, nothing written");
	CHECK(login_step(OPEN | SETTLE, "050548", BARE, 0, NULL, &r) == 0 &&
	    !r.accepted && r.why == OTP_STATE_WHY_RATELIMIT,
	    "a new login is limited");

	/* The grace period belongs to the start: a later wrong code is
	 * refused even for a host in its grace period. */
	login_file("2SH3V3GDW7ZNMGYE\n\" LAST0 10.0.0.1 299990\n"
	    "\" TOTP_AUTH\n");
	CHECK(login_step(OPEN, NULL, BARE, 0, "10.0.0.1", &r) == 0 &&
	    r.accepted && r.how == OTP_STATE_BYGRACE, "start: grace");
	CHECK(login_step(SETTLE, "999999", BARE, 0, "10.0.0.1", &r) == 0 &&
	    !r.accepted && r.why == OTP_STATE_WHY_WRONG, "reading: no grace");
	CHECK(login_step(OPEN | SETTLE, "999999", BARE, 0, "10.0.0.1", &r) ==
	    0 && r.accepted && r.how == OTP_STATE_BYGRACE,
	    "one cycle: grace decides before the answer");

	/* With RATE_LIMIT the start wrote the file, so an accept that
	 * changes nothing more still records its host. */
	login_file("2SH3V3GDW7ZNMGYE\n\" RATE_LIMIT 5 30\n\" TOTP_AUTH\n");
	CHECK(login_step(OPEN, NULL, BARE, 0, "10.0.0.1", &r) == 0 &&
	    !r.accepted, "start");
	CHECK(login_step(SETTLE, "050548", BARE, 0, "10.0.0.1", &r) == 0 &&
	    r.accepted && r.changed, "accepted, host recorded");
	CHECK_EQ_STR(img, "2SH3V3GDW7ZNMGYE\n\" LAST0 10.0.0.1 300000\n"
	    "\" RATE_LIMIT 5 30 300000\n\" TOTP_AUTH\n", "grace record");
	login_file("2SH3V3GDW7ZNMGYE\n\" TOTP_AUTH\n");
	CHECK(login_step(SETTLE, "050548", BARE, 0, "10.0.0.1", &r) == 0 &&
	    r.accepted && !r.changed, "nothing else written: no host record");

	/* A HOTP miss is reported; the end moves the counter once. */
	login_file("2SH3V3GDW7ZNMGYE\n\" HOTP_COUNTER 3\n");
	CHECK(login_step(0, "000000", BARE, 0, NULL, &r) == 0 &&
	    !r.accepted && r.hotp_miss && !r.changed,
	    "miss reported, counter left without SETTLE");
	CHECK(login_step(SETTLE, "12345678", BARE, 0, NULL, &r) == 0 &&
	    !r.hotp_miss && !r.changed,
	    "an 8-digit reading misses no counter");
	CHECK(login_step(SETTLE, "000000", BARE, 0, NULL, &r) == 0 &&
	    r.hotp_miss && r.changed, "settled");
	CHECK_EQ_STR(img, "2SH3V3GDW7ZNMGYE\n\" HOTP_COUNTER 4\n",
	    "one move");
	/* Two missing answers are still one move. */
	two[0].text = "000000";
	two[0].kind = SPLIT;
	two[1].text = "111111";
	two[1].kind = BARE;
	CHECK(otp_state_login(img, imglen, OPEN | SETTLE, two, 2, 300000,
	    &(struct otp_state_opts){ .allowed_perm = 0600 }, &r, out,
	    sizeof(out), &outlen) == 0 && r.hotp_miss && r.answer == 1,
	    "two misses");
	out[outlen] = '\0';
	CHECK_EQ_STR(out, "2SH3V3GDW7ZNMGYE\n\" HOTP_COUNTER 5\n",
	    "still one move");
	/* A HOTP accept sets the counter past the match, no more. */
	login_file("2SH3V3GDW7ZNMGYE\n\" HOTP_COUNTER 5\n");
	CHECK(login_step(SETTLE, "932068", BARE, 0, NULL, &r) == 0 &&
	    r.accepted && r.how == OTP_STATE_BYCODE, "HOTP accept");
	CHECK_EQ_STR(img, "2SH3V3GDW7ZNMGYE\n\" HOTP_COUNTER 6\n",
	    "past the match");
	/* No HOTP counter, nothing to settle. */
	login_file("2SH3V3GDW7ZNMGYE\n\" TOTP_AUTH\n");
	CHECK(login_step(SETTLE, "000000", BARE, 0, NULL, &r) == 0 &&
	    !r.changed, "TOTP: nothing owed");

	/* forward_pass "hunter12000000" against HOTP_COUNTER 1 and scratch
	 * code 12000000: "000000" misses, "12000000" is accepted, the
	 * counter still moves, and the password is what precedes it. */
	login_file("2SH3V3GDW7ZNMGYE\n\" RATE_LIMIT 5 30\n"
	    "\" HOTP_COUNTER 1\n12000000\n");
	CHECK(login_step(OPEN, NULL, BARE, 0, NULL, &r) == 0 && !r.accepted,
	    "start");
	CHECK(login_step(SETTLE, "hunter12000000", SPLIT, 0, NULL, &r) == 0 &&
	    r.accepted && r.how == OTP_STATE_BYSCRATCH && r.hotp_miss &&
	    r.restlen == 6, "6-digit miss, then the 8-digit reading");
	CHECK_EQ_STR(img, "2SH3V3GDW7ZNMGYE\n\" RATE_LIMIT 5 30 300000\n"
	    "\" HOTP_COUNTER 2\n", "as the original left it");

	/* try_first_pass: PAM_AUTHTOK "000000" misses counter 3, the
	 * prompt's code for counter 3 is still good. */
	login_file("2SH3V3GDW7ZNMGYE\n\" HOTP_COUNTER 3\n");
	two[0].text = "000000";
	two[0].kind = SPLIT;
	two[1].text = "464407";
	two[1].kind = BARE;
	CHECK(otp_state_login(img, imglen, SETTLE, two, 2, 300000,
	    &(struct otp_state_opts){ .allowed_perm = 0600 }, &r, out,
	    sizeof(out), &outlen) == 0 && r.accepted && r.answer == 1,
	    "prompt: counter 3");
	out[outlen] = '\0';
	CHECK_EQ_STR(out, "2SH3V3GDW7ZNMGYE\n\" HOTP_COUNTER 4\n",
	    "as the original left it");
	/* A bare answer is the code alone. */
	CHECK(login_step(SETTLE, "x464407", BARE, 0, NULL, &r) == 0 &&
	    !r.accepted && r.why == OTP_STATE_WHY_SHAPE && !r.changed,
	    "bare: no reading");

	/* A whole login in one call (otp_state_check). */
	login_file("2SH3V3GDW7ZNMGYE\n\" HOTP_COUNTER 3\n");
	CHECK(login_step(OPEN | SETTLE, "000000", OTP_ANSWER_CODE, 0, NULL,
	    &r) == 0 && r.hotp_miss && r.changed,
	    "single-call miss moves the counter");
	CHECK_EQ_STR(img, "2SH3V3GDW7ZNMGYE\n\" HOTP_COUNTER 4\n",
	    "moved");
	CHECK(login_step(OPEN | SETTLE, "000000", OTP_ANSWER_CODE,
	    OTP_STATE_NOINCRHOTP, NULL, &r) == 0 && r.hotp_miss &&
	    !r.changed, "no_increment_hotp");
}

/* RATE_LIMIT under clocks that differ: a record later than now counts
 * as an attempt made now, so no clock lets more than N in. */
static void
test_rate_clocks(void)
{
	struct otp_state_result r;

	login_file("2SH3V3GDW7ZNMGYE\n\" RATE_LIMIT 3 30 300005 300005 "
	    "300005\n\" TOTP_AUTH\n");
	CHECK(login_step(OPEN | SETTLE, "050548", OTP_ANSWER_CODE, 0, NULL,
	    &r) == 0 && !r.accepted && r.why == OTP_STATE_WHY_RATELIMIT,
	    "three attempts at T+5, one at T+4: refused");
	CHECK_EQ_STR(img, "2SH3V3GDW7ZNMGYE\n\" RATE_LIMIT 3 30 300000 300000 "
	    "300000\n\" TOTP_AUTH\n", "the future records kept as now");
	/* A clock stepped back by an hour does not lock out for an hour:
	 * the records age from the new now. */
	login_file("2SH3V3GDW7ZNMGYE\n\" RATE_LIMIT 1 30 303600\n"
	    "\" TOTP_AUTH\n");
	CHECK(login_step(OPEN | SETTLE, "050548", OTP_ANSWER_CODE, 0, NULL,
	    &r) == 0 && !r.accepted, "stepped back: still counted");
}

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test-state VECTORDIR\n");
		return 2;
	}
	CHECK(unit_vectors(argv[1], "state-steps.txt", step_case, NULL) > 50,
	    "state-steps.txt");
	CHECK(unit_vectors(argv[1], "state-ext.txt", step_case, NULL) > 20,
	    "state-ext.txt");
	CHECK(unit_vectors(argv[1], "state-bad.txt", bad_case, NULL) > 20,
	    "state-bad.txt");
	CHECK(unit_vectors(argv[1], "state-parse.txt", parse_case, NULL) >
	    5, "state-parse.txt");
	CHECK(unit_vectors(argv[1], "state-build.txt", build_case, NULL) ==
	    3, "state-build.txt");
	test_build_ranges();
	test_build_ext();
	test_rules();
	test_login();
	test_rate_clocks();
	return unit_done();
}

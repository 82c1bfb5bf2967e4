/*
 * test-uri.c - otpauth:// URI parsing and building: the vectors in
 * tests/vectors/uri-*.txt (unknown parameters and Steam's type too),
 * limits, where an error falls, and parse(build(u)) == u over random keys
 * and labels.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otp.h"
#include "otp_uri.h"
#include "unit.h"

static const struct {
	const char	*name;
	unsigned	 bit;
} have_names[] = {
	{ "ALG", OTP_HAVE_ALG }, { "DIGITS", OTP_HAVE_DIGITS },
	{ "PERIOD", OTP_HAVE_PERIOD }, { "COUNTER", OTP_HAVE_COUNTER },
	{ "ISSUER", OTP_HAVE_ISSUER }, { "LABELISSUER", OTP_HAVE_LABELISSUER },
}, warn_names[] = {
	{ "ISSUERMISMATCH", OTP_WARN_ISSUERMISMATCH },
	{ "GAIGNORES", OTP_WARN_GAIGNORES }, { "PADDED", OTP_WARN_PADDED },
	{ "SHORTKEY", OTP_WARN_SHORTKEY }, { "NOISSUER", OTP_WARN_NOISSUER },
	{ "UNKNOWN", OTP_WARN_UNKNOWN }, { "STEAM", OTP_WARN_STEAM },
};

/* Turn "A,B" (or "-") into bits; -1 for an unknown name. */
static long
flags(const char *s, int warn)
{
	char buf[256], *tok, *save = NULL;
	long bits = 0;
	size_t i, n;

	if (strcmp(s, "-") == 0)
		return 0;
	snprintf(buf, sizeof(buf), "%s", s);
	n = warn ? sizeof(warn_names) / sizeof(warn_names[0]) :
	    sizeof(have_names) / sizeof(have_names[0]);
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < n; i++)
			if (strcmp(tok, warn ? warn_names[i].name :
			    have_names[i].name) == 0)
				break;
		if (i == n)
			return -1;
		bits |= warn ? warn_names[i].bit : have_names[i].bit;
	}
	return bits;
}

static const char *
dash(const char *s)
{
	return strcmp(s, "-") == 0 ? "" : s;
}

static void
roundtrip(const struct otp_uri *u, const char *what)
{
	struct otp_uri v;
	char out[OTP_LINE_MAX];
	size_t off = 0;
	int r;

	r = otp_uri_build(u, out, sizeof(out));
	CHECK(r == 0, "%s: build: %s", what, otp_strerror(r));
	if (r != 0)
		return;
	r = otp_uri_parse(out, &v, &off);
	CHECK(r == 0, "%s: reparse %s: %s at %zu", what, out, otp_strerror(r),
	    off);
	if (r == 0)
		CHECK(otp_uri_equal(u, &v) && strcmp(u->extra, v.extra) == 0,
		    "%s: round trip changed %s", what, out);
}

static const char *
type_name(const struct otp_uri *u)
{
	return u->steam ? "steam" : u->type == OTP_TYPE_TOTP ? "totp" :
	    "hotp";
}

static void
parse_case(const struct unit_line *l, void *arg)
{
	struct otp_uri u;
	uint8_t key[OTP_KEY_MAX];
	uint64_t digits, counter, period;
	enum otp_alg alg;
	size_t off = 0;
	long n;
	int r;

	(void)arg;
	CHECK(l->nfields == 11, "%s:%u: want 11 fields", l->file, l->lineno);
	if (l->nfields != 11)
		return;
	r = otp_uri_parse(l->field[0], &u, &off);
	unit_check(r == 0, l->file, (int)l->lineno, "parse: %s at %zu",
	    otp_strerror(r), off);
	if (r != 0)
		return;
	CHECK_EQ_STR(type_name(&u), l->field[1], "type");
	CHECK_EQ_STR(u.issuer, dash(l->field[2]), "issuer");
	CHECK_EQ_STR(u.account, dash(l->field[3]), "account");
	n = unit_unhex(l->field[4], key, sizeof(key));
	unit_check(n > 0 && (size_t)n == u.key.len &&
	    memcmp(key, u.key.buf, u.key.len) == 0, l->file, (int)l->lineno,
	    "key");
	CHECK(otp_alg_parse(l->field[5], &alg) == 0 && alg == u.alg,
	    "%s:%u: alg", l->file, l->lineno);
	CHECK(otp_parse_u64(l->field[6], 0, 99, &digits) == 0 &&
	    digits == u.digits, "%s:%u: digits %u", l->file, l->lineno,
	    u.digits);
	CHECK(otp_parse_u64(l->field[7], 0, UINT64_MAX, &counter) == 0 &&
	    counter == u.counter, "%s:%u: counter", l->file, l->lineno);
	CHECK(otp_parse_u64(l->field[8], 0, UINT64_MAX, &period) == 0 &&
	    period == u.period, "%s:%u: period", l->file, l->lineno);
	unit_check(flags(l->field[9], 0) == (long)u.have, l->file,
	    (int)l->lineno, "have: got %#x, want %s", u.have, l->field[9]);
	unit_check(flags(l->field[10], 1) == (long)u.warn, l->file,
	    (int)l->lineno, "warn: got %#x, want %s", u.warn, l->field[10]);
	CHECK(u.is_uri == 1, "is_uri");
	roundtrip(&u, l->field[0]);
	otp_wipe(&u, sizeof(u));
}

static void
bad_case(const struct unit_line *l, void *arg)
{
	struct otp_uri u;
	uint64_t want_off;
	size_t off = 999;
	int r, want;

	(void)arg;
	CHECK(l->nfields == 3, "%s:%u: want 3 fields", l->file, l->lineno);
	if (l->nfields != 3)
		return;
	want = unit_errcode(l->field[1]);
	CHECK(want != 1, "%s:%u: unknown error %s", l->file, l->lineno,
	    l->field[1]);
	CHECK(otp_parse_u64(l->field[2], 0, OTP_LINE_MAX, &want_off) == 0,
	    "offset");
	r = otp_uri_parse(l->field[0], &u, &off);
	unit_check(r == want, l->file, (int)l->lineno, "%s: got %s (%d)",
	    l->field[0], otp_strerror(r), r);
	unit_check(off == want_off, l->file, (int)l->lineno,
	    "%s: offset %zu, want %llu", l->field[0], off,
	    (unsigned long long)want_off);
	/* A failed parse leaves no key behind. */
	CHECK(u.key.len == 0 && u.issuer[0] == '\0' && u.is_uri == 0,
	    "%s: state after failure", l->field[0]);
}

static void
build_case(const struct unit_line *l, void *arg)
{
	struct otp_uri u;
	char out[OTP_LINE_MAX];
	uint64_t x;
	long n;
	int r;

	(void)arg;
	CHECK(l->nfields == 9, "%s:%u: want 9 fields", l->file, l->lineno);
	if (l->nfields != 9)
		return;
	otp_uri_init(&u);
	u.steam = strcmp(l->field[0], "steam") == 0;
	u.type = strcmp(l->field[0], "hotp") == 0 ? OTP_TYPE_HOTP :
	    OTP_TYPE_TOTP;
	CHECK(otp_alg_parse(l->field[1], &u.alg) == 0, "alg");
	CHECK(otp_parse_u64(l->field[2], 0, 99, &x) == 0, "digits");
	u.digits = (unsigned)x;
	CHECK(otp_parse_u64(l->field[3], 0, UINT64_MAX, &u.counter) == 0,
	    "counter");
	CHECK(otp_parse_u64(l->field[4], 0, UINT64_MAX, &u.period) == 0,
	    "period");
	snprintf(u.issuer, sizeof(u.issuer), "%s", dash(l->field[5]));
	snprintf(u.account, sizeof(u.account), "%s", dash(l->field[6]));
	n = unit_unhex(l->field[7], u.key.buf, sizeof(u.key.buf));
	CHECK(n > 0, "key");
	u.key.len = n > 0 ? (size_t)n : 0;
	r = otp_uri_build(&u, out, sizeof(out));
	unit_check(r == 0, l->file, (int)l->lineno, "build: %s",
	    otp_strerror(r));
	unit_check(strcmp(out, l->field[8]) == 0, l->file, (int)l->lineno,
	    "got  %s\nwant %s", out, l->field[8]);
	roundtrip(&u, l->field[8]);
}

/* URI | extra as kept | built URI | NAME=VALUE...: unknown parameters
 * pass through parse and build as given, and decode for display. */
static void
extra_case(const struct unit_line *l, void *arg)
{
	struct otp_uri u;
	char out[OTP_LINE_MAX], name[64], value[64], pair[160];
	size_t pos = 0;
	int i, r;

	(void)arg;
	CHECK(l->nfields >= 3, "%s:%u: want 3 fields or more", l->file,
	    l->lineno);
	if (l->nfields < 3)
		return;
	r = otp_uri_parse(l->field[0], &u, NULL);
	unit_check(r == 0, l->file, (int)l->lineno, "parse: %s",
	    otp_strerror(r));
	if (r != 0)
		return;
	unit_check(strcmp(u.extra, dash(l->field[1])) == 0, l->file,
	    (int)l->lineno, "extra: got '%s'", u.extra);
	unit_check(((u.warn & OTP_WARN_UNKNOWN) != 0) == (u.extra[0] != '\0'),
	    l->file, (int)l->lineno, "warn UNKNOWN");
	r = otp_uri_build(&u, out, sizeof(out));
	unit_check(r == 0 && strcmp(out, l->field[2]) == 0, l->file,
	    (int)l->lineno, "build: %s\ngot  %s\nwant %s", otp_strerror(r),
	    out, l->field[2]);
	roundtrip(&u, l->field[0]);
	for (i = 3; i < l->nfields; i++) {
		r = otp_uri_extra_next(&u, &pos, name, sizeof(name), value,
		    sizeof(value));
		snprintf(pair, sizeof(pair), "%s=%s", name, value);
		unit_check(r == 1 && strcmp(pair, l->field[i]) == 0, l->file,
		    (int)l->lineno, "parameter %d: got %d '%s'", i - 2, r,
		    pair);
	}
	unit_check(otp_uri_extra_next(&u, &pos, name, sizeof(name), value,
	    sizeof(value)) == 0, l->file, (int)l->lineno, "more parameters");
}

/* What otp_uri_build refuses to write as unknown parameters. */
static void
test_extra_build(void)
{
	static const char *const bad[] = {
		"secret=GEZDGNBV", "Issuer=x", "s%65cret=x", "a=1&&b=2", "&a",
		"a&", "a%zz", "a=%G0", "a=b\nc", "a=\xc3(", "a=%00",
	};
	struct otp_uri u;
	char out[OTP_LINE_MAX], name[8], value[8];
	size_t i, pos = 0;

	otp_uri_init(&u);
	u.key.len = 5;
	memcpy(u.key.buf, "12345", 5);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(u.extra, sizeof(u.extra), "%s", bad[i]);
		CHECK(otp_uri_build(&u, out, sizeof(out)) == OTP_EURIPARAM,
		    "extra '%s' refused", bad[i]);
	}
	/* A value longer than the caller's buffer: refused, not cut. */
	snprintf(u.extra, sizeof(u.extra), "image=123456789");
	CHECK(otp_uri_extra_next(&u, &pos, name, sizeof(name), value,
	    sizeof(value)) == OTP_ENOSPACE, "short value buffer");
}

/* otp_uri_part names what an error offset falls in. */
static void
test_part(void)
{
	static const struct {
		const char		*uri;
		size_t			 off;
		enum otp_uri_part_kind	 kind;
		size_t			 poff, plen, voff, vlen;
		int			 secret;
	} c[] = {
		{ "http://totp/x", 0, OTP_URI_PART_SCHEME, 0, 10, 0, 0, 0 },
		{ "otpauth://motp/x?secret=A", 10, OTP_URI_PART_TYPE, 10, 4,
		    0, 0, 0 },
		{ "otpauth:///x?secret=A", 10, OTP_URI_PART_TYPE, 10, 0, 0, 0,
		    0 },
		{ "otpauth://totp/a%ZZ?secret=A", 16, OTP_URI_PART_LABEL, 15,
		    4, 0, 0, 0 },
		{ "otpauth://totp/x?secret=GEZDGNBV&algorithm=MD5", 43,
		    OTP_URI_PART_PARAM, 33, 9, 43, 3, 0 },
		{ "otpauth://totp/x?secret=GEZDGNB1", 31, OTP_URI_PART_PARAM,
		    17, 6, 24, 8, 1 },
		{ "otpauth://totp/x?a=1&S%45CRET=X1", 31, OTP_URI_PART_PARAM,
		    21, 8, 30, 2, 1 },
		{ "otpauth://totp/x?secret", 17, OTP_URI_PART_PARAM, 17, 6, 23,
		    0, 1 },
		{ "otpauth://totp/x?secret=A&issuer=", 33, OTP_URI_PART_PARAM,
		    26, 6, 33, 0, 0 },
	};
	struct otp_uri_part p;
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		otp_uri_part(c[i].uri, c[i].off, &p);
		CHECK(p.kind == c[i].kind && p.off == c[i].poff &&
		    p.len == c[i].plen && p.secret == c[i].secret,
		    "part of %s at %zu: kind %d at %zu+%zu secret %d", c[i].uri,
		    c[i].off, (int)p.kind, p.off, p.len, p.secret);
		if (c[i].kind == OTP_URI_PART_PARAM)
			CHECK(p.voff == c[i].voff && p.vlen == c[i].vlen,
			    "value of %s at %zu: %zu+%zu", c[i].uri, c[i].off,
			    p.voff, p.vlen);
	}
}

static void
base_uri(struct otp_uri *u)
{
	otp_uri_init(u);
	u->type = OTP_TYPE_TOTP;
	memcpy(u->key.buf, "12345678901234567890", 20);
	u->key.len = 20;
	snprintf(u->issuer, sizeof(u->issuer), "Iss");
	snprintf(u->account, sizeof(u->account), "acct");
}

static void
test_build_limits(void)
{
	struct otp_uri u, v;
	char out[OTP_LINE_MAX], small[128];
	size_t need, sz;
	int r;

	/* Every buffer shorter than the URI plus its NUL fails cleanly. */
	base_uri(&u);
	CHECK(otp_uri_build(&u, out, sizeof(out)) == 0, "build");
	need = strlen(out) + 1;
	for (sz = 0; sz < need && sz <= sizeof(small); sz++) {
		memset(small, 'Z', sizeof(small));
		r = otp_uri_build(&u, small, sz);
		CHECK(r == OTP_ENOSPACE, "size %zu: got %d", sz, r);
		CHECK(sz == 0 || small[0] == '\0', "size %zu: not cleared", sz);
	}
	CHECK(otp_uri_build(&u, small, need) == 0, "exact size");

	base_uri(&u);
	u.digits = 5;
	CHECK(otp_uri_build(&u, out, sizeof(out)) == OTP_EDIGITS, "digits 5");
	base_uri(&u);
	u.digits = 11;
	CHECK(otp_uri_build(&u, out, sizeof(out)) == OTP_EDIGITS, "digits 11");
	base_uri(&u);
	u.period = 0;
	CHECK(otp_uri_build(&u, out, sizeof(out)) == OTP_ESTEP, "period 0");
	u.type = OTP_TYPE_HOTP;
	CHECK(otp_uri_build(&u, out, sizeof(out)) == 0, "hotp ignores period");
	base_uri(&u);
	u.key.len = 0;
	CHECK(otp_uri_build(&u, out, sizeof(out)) == OTP_EKEYEMPTY, "no key");
	base_uri(&u);
	u.key.len = OTP_KEY_MAX + 1;
	CHECK(otp_uri_build(&u, out, sizeof(out)) == OTP_EKEYLONG, "long key");
	base_uri(&u);
	u.alg = (enum otp_alg)7;
	CHECK(otp_uri_build(&u, out, sizeof(out)) == OTP_EALG, "bad alg");
	base_uri(&u);
	snprintf(u.account, sizeof(u.account), "a\nb");
	CHECK(otp_uri_build(&u, out, sizeof(out)) == OTP_EURILABEL, "ctrl");
	base_uri(&u);
	snprintf(u.issuer, sizeof(u.issuer), "\xc3(");
	CHECK(otp_uri_build(&u, out, sizeof(out)) == OTP_EURILABEL, "utf8");
	base_uri(&u);
	memset(u.issuer, 'a', sizeof(u.issuer));
	CHECK(otp_uri_build(&u, out, sizeof(out)) == OTP_ETOOLONG,
	    "unterminated issuer");

	/* A leading space in the account: no prefix, so nothing is lost. */
	base_uri(&u);
	snprintf(u.account, sizeof(u.account), "  sp");
	CHECK(otp_uri_build(&u, out, sizeof(out)) == 0, "leading space");
	CHECK_EQ_STR(out, "otpauth://totp/%20%20sp?"
	    "secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Iss", "space");
	roundtrip(&u, "leading space");
	/* ... and with a colon too, a label cannot hold it. */
	snprintf(u.account, sizeof(u.account), " a:b");
	CHECK(otp_uri_build(&u, out, sizeof(out)) == OTP_EURILABEL,
	    "space and colon");

	/* The longest labels and key still make a URI that parses. */
	base_uri(&u);
	memset(u.issuer, 0, sizeof(u.issuer));
	memset(u.account, 0, sizeof(u.account));
	memset(u.issuer, '%', OTP_LABEL_MAX - 1);
	memset(u.account, '&', OTP_LABEL_MAX - 1);
	memset(u.key.buf, 0xa5, OTP_KEY_MAX);
	u.key.len = OTP_KEY_MAX;
	u.type = OTP_TYPE_HOTP;
	u.counter = UINT64_MAX;
	u.digits = 10;
	u.alg = OTP_ALG_SHA512;
	CHECK(otp_uri_build(&u, out, sizeof(out)) == 0, "longest");
	CHECK(strlen(out) < OTP_LINE_MAX, "longest fits a line");
	roundtrip(&u, "longest");
	CHECK(otp_uri_parse(out, &v, NULL) == 0, "erroff may be NULL");
}

static void
test_parse_limits(void)
{
	static char uri[OTP_LINE_MAX + 16];
	struct otp_uri u;
	size_t off, n;
	int r;

	/* Labels: OTP_LABEL_MAX - 1 decoded bytes, no more. */
	n = (size_t)snprintf(uri, sizeof(uri), "otpauth://totp/");
	memset(uri + n, 'i', OTP_LABEL_MAX - 1);
	n += OTP_LABEL_MAX - 1;
	n += (size_t)snprintf(uri + n, sizeof(uri) - n, ":");
	memset(uri + n, 'a', OTP_LABEL_MAX - 1);
	n += OTP_LABEL_MAX - 1;
	snprintf(uri + n, sizeof(uri) - n, "?secret=GEZDGNBV");
	r = otp_uri_parse(uri, &u, &off);
	CHECK(r == 0, "longest labels: %s", otp_strerror(r));
	CHECK(strlen(u.issuer) == OTP_LABEL_MAX - 1 &&
	    strlen(u.account) == OTP_LABEL_MAX - 1, "label lengths");
	memmove(uri + 16, uri + 15, strlen(uri + 15) + 1);
	uri[15] = 'i';
	CHECK(otp_uri_parse(uri, &u, &off) == OTP_ETOOLONG, "issuer + 1");

	n = (size_t)snprintf(uri, sizeof(uri),
	    "otpauth://totp/x?secret=GEZDGNBV&issuer=");
	memset(uri + n, 'i', OTP_LABEL_MAX);
	uri[n + OTP_LABEL_MAX] = '\0';
	CHECK(otp_uri_parse(uri, &u, &off) == OTP_ETOOLONG, "issuer= long");
	uri[n + OTP_LABEL_MAX - 1] = '\0';
	CHECK(otp_uri_parse(uri, &u, &off) == 0, "issuer= longest");

	/* The whole text: below OTP_LINE_MAX. */
	n = (size_t)snprintf(uri, sizeof(uri),
	    "otpauth://totp/x?secret=GEZDGNBV&image=");
	memset(uri + n, 'x', OTP_LINE_MAX - 1 - n);
	uri[OTP_LINE_MAX - 1] = '\0';
	CHECK(otp_uri_parse(uri, &u, &off) == 0, "longest line");
	uri[OTP_LINE_MAX - 1] = 'x';
	uri[OTP_LINE_MAX] = '\0';
	CHECK(otp_uri_parse(uri, &u, &off) == OTP_ETOOLONG, "line too long");

	/* A secret longer than OTP_KEY_MAX bytes. */
	n = (size_t)snprintf(uri, sizeof(uri), "otpauth://totp/x?secret=");
	memset(uri + n, 'A', 8 * (OTP_KEY_MAX / 5 + 4));
	uri[n + 8 * (OTP_KEY_MAX / 5 + 4)] = '\0';
	CHECK(otp_uri_parse(uri, &u, &off) == OTP_EKEYLONG, "key too long");
	uri[n + (OTP_KEY_MAX * 8 + 4) / 5] = '\0';
	r = otp_uri_parse(uri, &u, &off);
	CHECK(r == 0 && u.key.len == OTP_KEY_MAX, "longest key: %s",
	    otp_strerror(r));
}

/* xorshift64*: reproducible labels without libc's rand(). */
static uint64_t rng_state;

static uint32_t
rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 2685821657736338717ULL) >> 32);
}

static void
random_label(char *out, size_t max)
{
	static const char *const pieces[] = {
		"a", "Z", "0", " ", ":", "@", "&", "%", "+", "=", "?", "#",
		"/", "~", ".", "-", "_", "%3A", "\xc3\xbc", "\xe2\x82\xac",
		"\xf0\x9f\x94\x91", "\xe6\x97\xa5",
	};
	size_t n = rng() % 24, i, o = 0;

	for (i = 0; i < n; i++) {
		const char *p = pieces[rng() % (sizeof(pieces) /
		    sizeof(pieces[0]))];
		size_t pl = strlen(p);

		if (o + pl >= max)
			break;
		memcpy(out + o, p, pl);
		o += pl;
	}
	out[o] = '\0';
}

static void
test_random_roundtrip(void)
{
	struct otp_uri u;
	char what[64], out[OTP_LINE_MAX];
	int i, r, built = 0;

	rng_state = 0x9e3779b97f4a7c15ULL;
	for (i = 0; i < 20000; i++) {
		size_t k;

		otp_uri_init(&u);
		u.type = rng() & 1 ? OTP_TYPE_TOTP : OTP_TYPE_HOTP;
		u.alg = (enum otp_alg)(rng() % 3);
		/* One in eight TOTP keys is Steam's: SHA1 only. */
		if (u.type == OTP_TYPE_TOTP && rng() % 8 == 0) {
			u.steam = 1;
			u.alg = OTP_ALG_SHA1;
		}
		u.digits = 6 + rng() % 5;
		u.counter = (uint64_t)rng() << 32 | rng();
		u.period = rng() & 1 ? 30 : 1 + rng() % 3600;
		u.key.len = 1 + rng() % OTP_KEY_MAX;
		for (k = 0; k < u.key.len; k++)
			u.key.buf[k] = (uint8_t)rng();
		random_label(u.issuer, sizeof(u.issuer));
		random_label(u.account, sizeof(u.account));
		r = otp_uri_build(&u, out, sizeof(out));
		/* Only a leading space with a colon is refused. */
		if (r == OTP_EURILABEL && u.account[0] == ' ' &&
		    strchr(u.account, ':') != NULL)
			continue;
		snprintf(what, sizeof(what), "random case %d", i);
		roundtrip(&u, what);
		built++;
	}
	CHECK(built > 15000, "random cases built: %d", built);
}

/* otp_uri_equal sees every field a URI carries, and only those. */
static void
test_equal(void)
{
	struct otp_uri a, b;

	otp_uri_init(&a);
	a.type = OTP_TYPE_TOTP;
	snprintf(a.issuer, sizeof(a.issuer), "Example");
	snprintf(a.account, sizeof(a.account), "alice");
	a.key.len = 3;
	memcpy(a.key.buf, "key", 3);
	b = a;
	CHECK(otp_uri_equal(&a, &b), "equal");
	b.have = ~0u;
	b.warn = ~0u;
	b.is_uri = 1;
	b.counter = 99;		/* not a TOTP parameter */
	snprintf(b.extra, sizeof(b.extra), "image=x");
	CHECK(otp_uri_equal(&a, &b), "bookkeeping, counter and extra ignored");
#define DIFFER(field, value, what) do { \
	b = a; field = value; \
	CHECK(!otp_uri_equal(&a, &b), "a different %s", what); \
} while (0)
	DIFFER(b.type, OTP_TYPE_HOTP, "type");
	DIFFER(b.steam, 1, "Steam's type");
	DIFFER(b.alg, OTP_ALG_SHA256, "algorithm");
	DIFFER(b.digits, 8, "digits");
	DIFFER(b.period, 60, "period");
	DIFFER(b.issuer[0], 'e', "issuer");
	DIFFER(b.account[4], 'a', "account");
	DIFFER(b.key.len, 2, "key length");
	DIFFER(b.key.buf[2], 'Y', "key");
	a.type = b.type = OTP_TYPE_HOTP;
	DIFFER(b.counter, 1, "counter");
#undef DIFFER
	b = a;
	b.period = 60;		/* not a HOTP parameter */
	CHECK(otp_uri_equal(&a, &b), "HOTP: period ignored");
	a.type = b.type = OTP_TYPE_TOTP;
	a.steam = b.steam = 1;
	b = a;
	b.digits = 8;		/* Steam's codes are 5 characters */
	CHECK(otp_uri_equal(&a, &b), "Steam: digits ignored");
}

int
main(int argc, char *argv[])
{
	const char *dir = argc > 1 ? argv[1] : "tests/vectors";

	CHECK(unit_vectors(dir, "uri-parse.txt", parse_case, NULL) >= 25,
	    "uri-parse.txt cases");
	CHECK(unit_vectors(dir, "uri-bad.txt", bad_case, NULL) >= 40,
	    "uri-bad.txt cases");
	CHECK(unit_vectors(dir, "uri-build.txt", build_case, NULL) >= 11,
	    "uri-build.txt cases");
	CHECK(unit_vectors(dir, "uri-extra.txt", extra_case, NULL) >= 7,
	    "uri-extra.txt cases");
	test_extra_build();
	test_part();
	test_build_limits();
	test_parse_limits();
	test_random_roundtrip();
	test_equal();
	return unit_done();
}

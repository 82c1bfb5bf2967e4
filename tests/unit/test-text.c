/*
 * test-text.c - the text rules of lib/text.c that URIs and migration
 * payloads share: hex digit values, UTF-8 without control characters,
 * percent-encoding and its offsets, label split and form.
 */
#include <stdio.h>
#include <string.h>

#include "otp.h"
#include "unit.h"

static void
test_hexval(void)
{
	unsigned c;

	for (c = 0; c < 256; c++) {
		int want = -1;

		if (c >= '0' && c <= '9')
			want = (int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			want = (int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			want = (int)(c - 'A' + 10);
		CHECK(otp_hexval((unsigned char)c) == want, "hexval(%u)", c);
	}
}

static void
test_text_check(void)
{
	static const struct {
		const char	*s;
		size_t		 n;
		int		 want;
		size_t		 bad;
	} t[] = {
		{ "", 0, 0, 0 },
		{ "alice@example.com", 17, 0, 0 },
		{ "\xc3\xbc\xe9\x8d\xb5\xf0\x9f\x94\x91", 9, 0, 0 },
		{ "\xf4\x8f\xbf\xbf", 4, 0, 0 },	/* U+10FFFF */
		{ "\xc2\xa0", 2, 0, 0 },		/* U+00A0, past C1 */
		{ "ab\0c", 4, OTP_ENUL, 2 },
		{ "a\tb", 3, OTP_EURICTRL, 1 },
		{ "a\x7f", 2, OTP_EURICTRL, 1 },
		{ "x\xc2\x85", 3, OTP_EURICTRL, 1 },	/* C1 NEL */
		{ "\xc0\xaf", 2, OTP_EUTF8, 0 },	/* overlong '/' */
		{ "a\xe0\x80\xaf", 4, OTP_EUTF8, 1 },	/* overlong */
		{ "\xed\xa0\x80", 3, OTP_EUTF8, 0 },	/* surrogate */
		{ "\xf4\x90\x80\x80", 4, OTP_EUTF8, 0 },	/* > U+10FFFF */
		{ "ab\xe9\x8d", 4, OTP_EUTF8, 2 },	/* cut short */
		{ "\xe9\x41\xb5", 3, OTP_EUTF8, 0 },	/* not continued */
		{ "\x80", 1, OTP_EUTF8, 0 },
		{ "\xff", 1, OTP_EUTF8, 0 },
		{ "\x01\xff", 2, OTP_EURICTRL, 0 },	/* the first fault */
	};
	size_t i, bad;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int r;

		bad = 999;
		r = otp_text_check(t[i].s, t[i].n, &bad);
		CHECK(r == t[i].want && (r == 0 || bad == t[i].bad),
		    "text_check case %zu: %d at %zu", i, r, bad);
	}
}

static void
test_pct(void)
{
	char out[64], enc[200];
	size_t n = 0, off = 0;
	int r;

	r = otp_pct_decode("a%2Bb+c%3a%7e", 13, 0, out, sizeof(out), &n,
	    &off);
	CHECK(r == 0 && n == 7 && strcmp(out, "a+b+c:~") == 0,
	    "decode: %d \"%s\"", r, out);
	r = otp_pct_decode("a+b", 3, OTP_PCT_PLUS, out, sizeof(out), &n, &off);
	CHECK(r == 0 && strcmp(out, "a b") == 0, "decode '+' as space");
	r = otp_pct_decode("ab%4", 4, 0, out, sizeof(out), &n, &off);
	CHECK(r == OTP_EURIESC && off == 2, "short escape: %d at %zu", r, off);
	r = otp_pct_decode("%4g", 3, 0, out, sizeof(out), &n, &off);
	CHECK(r == OTP_EURIESC && off == 0, "bad escape digit");
	r = otp_pct_decode("abcd", 4, 0, out, 4, &n, &off);
	CHECK(r == OTP_ENOSPACE && off == 3, "no room for the NUL: %d", r);
	r = otp_pct_decode("%00", 3, 0, out, sizeof(out), &n, &off);
	CHECK(r == 0 && n == 1 && out[0] == '\0', "escaped NUL is a byte");

	/* decoded offsets back to the encoded text */
	CHECK(otp_pct_offset("a%20b%20c", 9, 0) == 0, "offset 0");
	CHECK(otp_pct_offset("a%20b%20c", 9, 2) == 4, "offset 2");
	CHECK(otp_pct_offset("a%20b%20c", 9, 4) == 8, "offset 4");
	CHECK(otp_pct_offset("a%20b%20c", 9, 5) == 9, "offset past the end");

	r = otp_pct_encode("Az09-._~ :/+=@\xc3\xbc", 16, enc, sizeof(enc));
	CHECK(r == 32 && strcmp(enc,
	    "Az09-._~%20%3A%2F%2B%3D%40%C3%BC") == 0,
	    "encode: %d \"%s\"", r, enc);
	CHECK(otp_pct_encode("a b", 3, enc, 5) == OTP_ENOSPACE,
	    "encode without room for the NUL");
	CHECK(otp_pct_encode("a b", 3, enc, 6) == 5, "encode exact room");
	CHECK(otp_pct_encode("", 0, enc, 1) == 0 && enc[0] == '\0',
	    "encode nothing");
	/* and back */
	r = otp_pct_encode("x%y&z=\x01", 7, enc, sizeof(enc));
	CHECK(r > 0 && otp_pct_decode(enc, (size_t)r, 0, out, sizeof(out),
	    &n, &off) == 0 && n == 7 && memcmp(out, "x%y&z=\x01", 7) == 0,
	    "encode then decode");
}

static void
test_label(void)
{
	static const struct {
		const char	*s;
		const char	*issuer;
		size_t		 plen, aoff;
	} t[] = {
		{ "alice", "", 0, 0 },
		{ "Acme:alice", "", 4, 5 },
		{ "Acme:  alice", "", 4, 7 },
		{ ":a:b", "", 0, 1 },
		{ "a:b:c", "", 1, 2 },
		{ "a:b:c", "a:b", 3, 4 },	/* the issuer matched whole */
		{ "a:b:c", "x", 1, 2 },
		{ "a:b", "a:b", 1, 2 },		/* no ':' after the issuer */
		{ "Acme:", "", 4, 5 },
	};
	size_t i, plen, aoff;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		otp_label_split(t[i].s, strlen(t[i].s), t[i].issuer,
		    strlen(t[i].issuer), &plen, &aoff);
		CHECK(plen == t[i].plen && aoff == t[i].aoff,
		    "split \"%s\": %zu %zu", t[i].s, plen, aoff);
	}
	CHECK(otp_label_form("Acme", "alice", 0) == OTP_LABEL_ISSUER, "form 1");
	CHECK(otp_label_form("", "alice", 0) == OTP_LABEL_PLAIN, "form 2");
	CHECK(otp_label_form("", "a:b", 0) == OTP_LABEL_COLON, "form 3");
	CHECK(otp_label_form("A:B", "a", 0) == OTP_LABEL_PLAIN, "form 4");
	CHECK(otp_label_form("A:B", "a", 1) == OTP_LABEL_ISSUER, "form 5");
	CHECK(otp_label_form("A:B", "a:b", 0) == OTP_LABEL_COLON, "form 6");
	CHECK(otp_label_form("Acme", " a", 0) == OTP_LABEL_PLAIN, "form 7");
	CHECK(otp_label_form("Acme", " a:b", 1) == OTP_EURILABEL, "form 8");
	CHECK(otp_label_form("", " a:b", 0) == OTP_EURILABEL, "form 9");
}

/* Every form reads back as the issuer and account it was made from. */
static void
test_label_round_trip(void)
{
	static const char *names[] = {
		"", "a", "a:b", " a", ":", "a::b", "A:B", "x y",
	};
	size_t i, k, plen, aoff, n;
	int whole;

	for (whole = 0; whole <= 1; whole++)
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
	for (k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		const char *iss = names[i], *acct = names[k];
		char label[64], gi[64];
		int form = otp_label_form(iss, acct, whole);

		if (form < 0)
			continue;
		snprintf(label, sizeof(label), "%s%s%s",
		    form == OTP_LABEL_ISSUER ? iss : "",
		    form == OTP_LABEL_PLAIN ? "" : ":", acct);
		n = strlen(label);
		otp_label_split(label, n, whole ? iss : "",
		    whole ? strlen(iss) : 0, &plen, &aoff);
		memcpy(gi, label, plen);
		gi[plen] = '\0';
		CHECK(strcmp(label + aoff, acct) == 0 &&
		    (form != OTP_LABEL_ISSUER || strcmp(gi, iss) == 0) &&
		    (form == OTP_LABEL_ISSUER || plen == 0),
		    "[%s] [%s] whole %d: \"%s\"", iss, acct, whole, label);
	}
}

int
main(void)
{
	test_hexval();
	test_text_check();
	test_pct();
	test_label();
	test_label_round_trip();
	return unit_done();
}

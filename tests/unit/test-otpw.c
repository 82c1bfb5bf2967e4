/*
 * test-otpw.c - the OTPW engine: hashes recorded from otpw-gen, reading
 * responses (look-alikes, spaces, backspaces, the prefix as typed), the
 * file parser's refusals, challenges (the triple never names the locked
 * entry), marking, and new lists with their printed layout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otp.h"
#include "otp_otpw.h"
#include "sys.h"
#include "unit.h"

static char img[OTP_OTPW_MAX];

/* An image of one entry: number 000 and the hash of prefix+password. */
static size_t
one_entry(const char *prefix, const char *pw)
{
	char h[OTP_OTPW_HASHLEN + 1];

	otp_otpw_hash(prefix, strlen(prefix), pw, strlen(pw), h);
	return (size_t)snprintf(img, sizeof(img), "OTPW1\n1 3 12 %zu\n000%s\n",
	    strlen(pw), h);
}

static void
hash_case(const struct unit_line *l, void *arg)
{
	struct otp_otpw w;
	struct otp_otpw_chal c;
	char norm[64], h[OTP_OTPW_HASHLEN + 1], resp[256];
	size_t i, n = 0, len;

	(void)arg;
	if (l->nfields != 3) {
		CHECK(0, "%s:%u: want 3 fields", l->file, l->lineno);
		return;
	}
	for (i = 0; l->field[1][i] != '\0'; i++)
		if (l->field[1][i] != ' ')
			norm[n++] = l->field[1][i];
	norm[n] = '\0';
	otp_otpw_hash(l->field[0], strlen(l->field[0]), norm, n, h);
	CHECK_EQ_STR(h, l->field[2], "hash");
	len = (size_t)snprintf(img, sizeof(img), "OTPW1\n1 3 12 %zu\n000%s\n",
	    n, l->field[2]);
	CHECK_EQ_INT(otp_otpw_parse(img, len, &w, NULL), 0, "parse");
	CHECK_EQ_INT(otp_otpw_first(img, &w, &c), 0, "first");
	(void)snprintf(resp, sizeof(resp), "%s%s", l->field[0], l->field[1]);
	CHECK_EQ_INT(otp_otpw_check(img, &w, &c, resp), 1, "as printed");
	(void)snprintf(resp, sizeof(resp), "%s%s", l->field[0], norm);
	CHECK_EQ_INT(otp_otpw_check(img, &w, &c, resp), 1, "without space");
	(void)snprintf(resp, sizeof(resp), "%s %s", l->field[0], norm);
	CHECK_EQ_INT(otp_otpw_check(img, &w, &c, resp), 0,
	    "a space after the prefix is part of it");
	/* Look-alikes typed for the characters they stand for. */
	for (i = 0; i < n; i++) {
		if (norm[i] == 'I')
			norm[i] = 'l';
		else if (norm[i] == 'O')
			norm[i] = '0';
		else if (norm[i] == '/')
			norm[i] = '\\';
	}
	(void)snprintf(resp, sizeof(resp), "%s%s", l->field[0], norm);
	CHECK_EQ_INT(otp_otpw_check(img, &w, &c, resp), 1, "look-alikes");
}

static void
test_responses(void)
{
	struct otp_otpw w;
	struct otp_otpw_chal c;
	size_t len;

	/* The reference's example. */
	len = one_entry("s3cret", "+ZQgDDO6");
	CHECK_EQ_INT(otp_otpw_parse(img, len, &w, NULL), 0, "parse");
	CHECK_EQ_INT(otp_otpw_first(img, &w, &c), 0, "first");
	CHECK_EQ_STR(c.text, "000", "challenge");
	CHECK_EQ_INT(otp_otpw_check(img, &w, &c, "s3cret+ZQg DDO6"), 1, "ok");
	CHECK_EQ_INT(otp_otpw_check(img, &w, &c, "s3cret+Z Q g D D O 6 "), 1,
	    "spaces");
	CHECK_EQ_INT(otp_otpw_check(img, &w, &c, "s3cret+ZQgDDOx\b6"), 1,
	    "backspace");
	CHECK_EQ_INT(otp_otpw_check(img, &w, &c, "s3cret+ZQgDDOx\x7f" "6"), 1,
	    "DEL");
	CHECK_EQ_INT(otp_otpw_check(img, &w, &c, "s3cret+ZQgDD06"), 1, "0->O");
	CHECK_EQ_INT(otp_otpw_check(img, &w, &c, "s3cret+ZQgDDO7"), 0, "wrong");
	CHECK_EQ_INT(otp_otpw_check(img, &w, &c, "S3cret+ZQgDDO6"), 0,
	    "prefix as typed");
	CHECK_EQ_INT(otp_otpw_check(img, &w, &c, "+ZQgDDO6"), 0, "no prefix");
	CHECK_EQ_INT(otp_otpw_check(img, &w, &c, "ZQgDDO6"), 0, "too short");
	CHECK_EQ_INT(otp_otpw_check(img, &w, &c, ""), 0, "empty");
	otp_otpw_mark(img, &w, &c);
	CHECK_EQ_INT(w.remaining, 0, "used");
	CHECK(strstr(img, "---------------\n") != NULL, "dashes");
	CHECK_EQ_INT(otp_otpw_check(img, &w, &c, "s3cret+ZQgDDO6"), 0,
	    "used entry");
	CHECK_EQ_INT(otp_otpw_first(img, &w, &c), OTP_EOTPWEMPTY, "none");
	CHECK_EQ_INT(otp_otpw_parse(img, len, &w, NULL), 0, "reparse");
	CHECK_EQ_INT(w.remaining, 0, "reparse: none");
}

static const struct {
	const char	*img;
	int		 err;
	size_t		 line;
} bad[] = {
	{ "", OTP_EOTPWMAGIC, 1 },
	{ "OTPW2\n1 3 12 8\n", OTP_EOTPWMAGIC, 1 },
	{ "OTPW1\n", OTP_EOTPWPARAM, 2 },
	{ "OTPW1\n1 3 12\n", OTP_EOTPWPARAM, 2 },
	{ "OTPW1\n1 3 11 8\n", OTP_EOTPWPARAM, 2 },
	{ "OTPW1\n0 3 12 8\n", OTP_EOTPWPARAM, 2 },
	{ "OTPW1\n10000 3 12 8\n", OTP_EOTPWPARAM, 2 },
	{ "OTPW1\n1 3 12 3\n", OTP_EOTPWPARAM, 2 },
	{ "OTPW1\n1 3 12 1000\n", OTP_EOTPWPARAM, 2 },
	{ "OTPW1\n1 0 12 8\n", OTP_EOTPWPARAM, 2 },
	{ "OTPW1\n1 27 12 8\n", OTP_EOTPWPARAM, 2 },
	{ "OTPW1\n1  3 12 8\n", OTP_EOTPWPARAM, 2 },
	{ "OTPW1\n1 3 12 8 \n", OTP_EOTPWPARAM, 2 },
	{ "OTPW1\n-1 3 12 8\n", OTP_EOTPWPARAM, 2 },
	{ "OTPW1\n#c\n#d\n1 3 12 8\n", OTP_EOTPWPARAM, 3 },
	{ "OTPW1\n1 3 12 8\n", OTP_EOTPWENTRY, 3 },
	{ "OTPW1\n1 3 12 8\n000ABCDEFGHIJK\n", OTP_EOTPWENTRY, 3 },
	{ "OTPW1\n1 3 12 8\n000ABCDEFGHIJKl\n", OTP_EOTPWENTRY, 3 },
	{ "OTPW1\n1 3 12 8\n0a0ABCDEFGHIJKL\n", OTP_EOTPWENTRY, 3 },
	{ "OTPW1\n1 3 12 8\n000ABCDEFGHIJK0\n", OTP_EOTPWENTRY, 3 },
	{ "OTPW1\n1 3 12 8\n--------------\n", OTP_EOTPWENTRY, 3 },
	{ "OTPW1\n1 3 12 8\n000ABCDEFGHIJK%\nx", OTP_EOTPWTRAIL, 4 },
	{ "OTPW1\n2 3 12 8\n000ABCDEFGHIJK%\n", OTP_EOTPWENTRY, 4 },
};

static void
test_parse(void)
{
	struct otp_otpw w;
	const char *p;
	size_t i, line;
	int rc;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		rc = otp_otpw_parse(bad[i].img, strlen(bad[i].img), &w, &line);
		CHECK(rc == bad[i].err, "bad[%zu]: got %d, want %d", i, rc,
		    bad[i].err);
		CHECK(line == bad[i].line, "bad[%zu]: line %zu, want %zu", i,
		    line, bad[i].line);
	}
	p = "OTPW1\n# made by hand\n1 3 12 8\n000ABCDEFGHIJK%\n";
	rc = otp_otpw_parse(p, strlen(p), &w, &line);
	CHECK_EQ_INT(rc, 0, "comment line");
	CHECK_EQ_INT(w.remaining, 1, "comment: one entry");
	CHECK_EQ_INT(otp_otpw_parse(img, OTP_OTPW_MAX + 1, &w, NULL),
	    OTP_EOTPWSIZE, "too large");
}

/* A scripted-free source: a simple generator, good enough to spread. */
static uint64_t lcg = 88172645463325252ULL;
static int
lcg_word(void *arg, uint32_t *word)
{
	(void)arg;
	lcg ^= lcg << 13;
	lcg ^= lcg >> 7;
	lcg ^= lcg << 17;
	*word = (uint32_t)(lcg >> 16);
	return 0;
}

static int
fail_word(void *arg, uint32_t *word)
{
	(void)arg;
	*word = 0;
	return OTP_EIO;
}

static char pw[OTP_OTPW_GEN_MAX * OTP_OTPW_GEN_PWCHARS];
static char list[OTP_OTPW_LIST_MAX];

static void
test_generate(void)
{
	struct otp_otpw w;
	struct otp_otpw_chal c, d;
	char resp[128], locked[8], seen[OTP_OTPW_GEN_MAX];
	const char *p;
	size_t len;
	unsigned k, i, trial, n;
	int rc, ok;

	CHECK_EQ_INT(otp_otpw_generate("", 0, 50, lcg_word, NULL, pw,
	    sizeof(pw), img, sizeof(img), &len), OTP_EOTPWPREFIX, "no prefix");
	CHECK_EQ_INT(otp_otpw_generate("p", 1, 9, lcg_word, NULL, pw,
	    sizeof(pw), img, sizeof(img), &len), OTP_EOTPWCOUNT, "9");
	CHECK_EQ_INT(otp_otpw_generate("p", 1, 1001, lcg_word, NULL, pw,
	    sizeof(pw), img, sizeof(img), &len), OTP_EOTPWCOUNT, "1001");
	CHECK_EQ_INT(otp_otpw_generate("p", 1, 50, fail_word, NULL, pw,
	    sizeof(pw), img, sizeof(img), &len), OTP_EIO, "source fails");

	rc = otp_otpw_generate("pre fix", 7, 50, lcg_word, NULL, pw,
	    sizeof(pw), img, sizeof(img), &len);
	CHECK_EQ_INT(rc, 0, "generate 50");
	CHECK(memcmp(img, "OTPW1\n50 3 12 8\n", 16) == 0, "header");
	CHECK_EQ_INT(len, 16 + 50 * 16, "length");
	CHECK_EQ_INT(otp_otpw_parse(img, len, &w, NULL), 0, "parses");
	CHECK_EQ_INT(w.remaining, 50, "all unused");
	/* Every number once; random order (not 000 first and 001 next). */
	memset(seen, 0, sizeof(seen));
	for (i = 0; i < 50; i++) {
		p = img + 16 + i * 16;
		k = (unsigned)((p[0] - '0') * 100 + (p[1] - '0') * 10 +
		    (p[2] - '0'));
		CHECK(k < 50 && !seen[k], "number %u once", k);
		if (k < 50)
			seen[k] = 1;
	}
	/* Each printed password answers its own number. */
	for (k = 0; k < 50; k++) {
		(void)snprintf(resp, sizeof(resp), "%03u", k);
		CHECK_EQ_INT(otp_otpw_chal_parse(img, &w, resp, &c), 0,
		    "chal parse");
		(void)snprintf(resp, sizeof(resp), "pre fix%.4s %.4s",
		    pw + k * 8, pw + k * 8 + 4);
		CHECK(otp_otpw_check(img, &w, &c, resp) == 1, "entry %u", k);
	}
	CHECK_EQ_INT(otp_otpw_chal_parse(img, &w, "50", &c), OTP_EOTPWCHAL,
	    "2 digits");
	CHECK_EQ_INT(otp_otpw_chal_parse(img, &w, "050", &c),
	    OTP_EOTPWUNKNOWN, "no 050");
	CHECK_EQ_INT(otp_otpw_chal_parse(img, &w, "001/002", &c),
	    OTP_EOTPWCHAL, "two");
	CHECK_EQ_INT(otp_otpw_chal_parse(img, &w, "001/002/001", &c),
	    OTP_EOTPWCHAL, "twice");
	CHECK_EQ_INT(otp_otpw_chal_parse(img, &w, "001/002/003/004", &c),
	    OTP_EOTPWCHAL, "four");
	CHECK_EQ_INT(otp_otpw_chal_parse(img, &w, "001/002/003", &c), 0,
	    "three");
	(void)snprintf(resp, sizeof(resp), "pre fix%.8s %.8s%.8s", pw + 8,
	    pw + 16, pw + 24);
	CHECK_EQ_INT(otp_otpw_check(img, &w, &c, resp), 1, "triple");
	(void)snprintf(resp, sizeof(resp), "pre fix%.8s %.8s%.8s", pw + 16,
	    pw + 8, pw + 24);
	CHECK_EQ_INT(otp_otpw_check(img, &w, &c, resp), 0, "triple, order");

	/* The triple challenge: three distinct unused entries, never the
	 * locked one, every unused one in turn. */
	CHECK_EQ_INT(otp_otpw_first(img, &w, &d), 0, "first");
	memcpy(locked, d.text, 4);
	memset(seen, 0, sizeof(seen));
	for (trial = 0, ok = 1; trial < 2000; trial++) {
		if (otp_otpw_multi(img, &w, locked, lcg_word, NULL, &c) != 0 ||
		    c.n != 3 || c.idx[0] == d.idx[0] ||
		    c.idx[1] == d.idx[0] || c.idx[2] == d.idx[0] ||
		    c.idx[0] == c.idx[1] || c.idx[1] == c.idx[2] ||
		    c.idx[0] == c.idx[2] || strstr(c.text, locked) != NULL)
			ok = 0;
		for (i = 0; i < 3; i++)
			seen[c.idx[i]] = 1;
	}
	CHECK(ok, "triples never name the locked entry");
	for (i = 0, n = 0; i < 50; i++)
		n += seen[i] != 0;
	CHECK_EQ_INT(n, 49, "every other entry drawn");
	CHECK_EQ_INT(otp_otpw_multi(img, &w, locked, fail_word, NULL, &c),
	    OTP_EIO, "source fails");
	/* Use all but 10: still a triple; one more and none. */
	for (k = 0; k < 40; k++) {
		(void)snprintf(resp, sizeof(resp), "%03u", k);
		(void)otp_otpw_chal_parse(img, &w, resp, &c);
		otp_otpw_mark(img, &w, &c);
	}
	CHECK_EQ_INT(w.remaining, 10, "10 left");
	CHECK_EQ_INT(otp_otpw_multi(img, &w, "040", lcg_word, NULL, &c), 0,
	    "triple with 10");
	CHECK(strstr(c.text, "040") == NULL, "not 040");
	(void)otp_otpw_chal_parse(img, &w, "049", &c);
	otp_otpw_mark(img, &w, &c);
	CHECK_EQ_INT(otp_otpw_multi(img, &w, "040", lcg_word, NULL, &c),
	    OTP_EOTPWFEW, "9 left");
	CHECK_EQ_INT(otp_otpw_parse(img, len, &w, NULL), 0, "reparse");
	CHECK_EQ_INT(w.remaining, 9, "9 on reparse");
}

static void
test_list(void)
{
	char want[256];
	const char *p;
	size_t lines;
	int n;

	(void)otp_otpw_generate("p", 1, 50, lcg_word, NULL, pw, sizeof(pw),
	    img, sizeof(img), (size_t *)&lines);
	n = otp_otpw_list(pw, 50, "2026-01-02 03:04", "host", list,
	    sizeof(list));
	CHECK(n > 0, "list");
	CHECK(strncmp(list, "OTPW list generated 2026-01-02 03:04 on host\r\n"
	    "\r\n000 ", 51) == 0, "header");
	/* Row 0: 000 010 020 030 040, two spaces between. */
	(void)snprintf(want, sizeof(want), "000 %.4s %.4s  010 %.4s %.4s  "
	    "020 ", pw, pw + 4, pw + 80, pw + 84);
	CHECK(strstr(list, want) != NULL, "numbers down the columns");
	CHECK(strstr(list, "\r\n009 ") != NULL, "row 9");
	CHECK(strstr(list, "\r\n010 ") == NULL, "no row 10");
	(void)snprintf(want, sizeof(want), "\r\n\r\n%61s\r\n",
	    "!!! REMEMBER: Enter the PREFIX PASSWORD first !!!");
	CHECK_EQ_STR(list + n - strlen(want), want, "reminder, centred");
	for (p = list, lines = 0; (p = strchr(p, '\n')) != NULL; p++, lines++)
		CHECK(p[-1] == '\r', "CRLF");
	CHECK_EQ_INT(lines, 14, "lines");
	/* Two pages: a form feed between, 56 rows on the first. */
	(void)otp_otpw_generate("p", 1, 300, lcg_word, NULL, pw, sizeof(pw),
	    img, sizeof(img), (size_t *)&lines);
	n = otp_otpw_list(pw, 300, "W", "H", list, sizeof(list));
	CHECK(n > 0, "list 300");
	CHECK(strstr(list, "!!!\f\nOTPW list generated W on H\r\n\r\n280 ")
	    != NULL, "page break");
	CHECK(strstr(list, "\r\n055 ") != NULL && strstr(list, "\r\n056 ") ==
	    NULL, "56 rows");
	CHECK(strstr(list, "\r\n283 ") != NULL && strstr(list, "\r\n284 ") ==
	    NULL, "4 rows on page 2");
	CHECK_EQ_INT(otp_otpw_list(pw, 300, "W", "H", list, 100),
	    OTP_ENOSPACE, "small buffer");
	n = otp_otpw_list(pw, OTP_OTPW_GEN_MAX, "2026-01-02 03:04",
	    "a-host-name-of-64-characters-is-the-longest-one-that-fits-herex",
	    list, sizeof(list));
	CHECK(n > 0, "1000 entries fit in OTP_OTPW_LIST_MAX");
}

int
main(void)
{
	unit_vectors("tests/vectors", "otpw-hash.txt", hash_case, NULL);
	test_responses();
	test_parse();
	test_generate();
	test_list();
	return unit_done();
}

/*
 * test-linger.c - linger records (lib/linger.c): the MAC against Python's
 * hmac (tests/vectors/linger.txt), their text, the set of four; and the
 * state file engine's LINGER lines (lib/state.c).
 */
#include <stdio.h>
#include <string.h>

#include "otp.h"
#include "otp_linger.h"
#include "otp_state.h"
#include "unit.h"

/* A BIND line: "bind | IMAGEHEX | LINE". */
static void
bind_case(const struct unit_line *l)
{
	uint8_t img[256];
	char line[OTP_LINGER_BINDMAX];
	long n = 0;
	size_t len;

	if ((strcmp(l->field[1], "-") != 0 &&
	    (n = unit_unhex(l->field[1], img, sizeof(img))) < 0)) {
		CHECK(0, "%s:%u: malformed", l->file, l->lineno);
		return;
	}
	len = otp_linger_bind_line((const char *)img, (size_t)n, line,
	    sizeof(line));
	CHECK(len == strlen(l->field[2]) + 1 && line[len - 1] == '\n' &&
	    line[len] == '\0', "%s:%u: its length", l->file, l->lineno);
	line[len - 1] = '\0';
	CHECK_EQ_STR(line, l->field[2], "BIND line");
	CHECK(otp_linger_bind_line((const char *)img, (size_t)n, line,
	    OTP_LINGER_BINDMAX - 1) == 0, "%s:%u: no room", l->file,
	    l->lineno);
}

static void
mac_case(const struct unit_line *l, void *arg)
{
	struct otp_linger r;
	struct otp_linger_who w, other;
	uint8_t salt[OTP_LINGER_SALTLEN], key[OTP_KEY_MAX];
	char hex[2 * OTP_LINGER_MACLEN + 1], bind[64];
	long keylen = 0, bindlen = -1;
	size_t rest;
	unsigned long n;

	(void)arg;
	if (l->nfields == 3 && strcmp(l->field[0], "bind") == 0) {
		bind_case(l);
		return;
	}
	if (l->nfields != 8 || unit_unhex(l->field[0], salt, sizeof(salt)) !=
	    OTP_LINGER_SALTLEN || (strcmp(l->field[1], "-") != 0 &&
	    (keylen = unit_unhex(l->field[1], key, sizeof(key))) < 0) ||
	    sscanf(l->field[5], "%lu", &n) != 1 ||
	    (strcmp(l->field[6], "-") != 0 && (bindlen =
	    unit_unhex(l->field[6], (uint8_t *)bind, sizeof(bind) - 1)) < 0)) {
		CHECK(0, "%s:%u: malformed", l->file, l->lineno);
		return;
	}
	if (bindlen >= 0)
		bind[bindlen] = '\0';
	w.user = l->field[2];
	w.client = l->field[3];
	w.key = keylen > 0 ? key : NULL;
	w.keylen = (size_t)keylen;
	w.bind = bindlen >= 0 ? bind : NULL;
	otp_linger_make(&r, salt, &w, l->field[4], n, 1000);
	(void)otp_hex_encode(r.mac, sizeof(r.mac), hex, sizeof(hex));
	CHECK_EQ_STR(hex, l->field[7], "MAC");
	CHECK(otp_linger_find(&r, 1, &w, l->field[4], 999, &rest) == 0 &&
	    rest == n, "%s:%u: found, its split", l->file, l->lineno);
	CHECK(otp_linger_find(&r, 1, &w, l->field[4], 1000, &rest) == -1,
	    "%s:%u: expired at its time", l->file, l->lineno);
	/* Bound or not, and to what, tells records apart. */
	other = w;
	other.bind = w.bind != NULL ? NULL : "";
	CHECK(otp_linger_find(&r, 1, &other, l->field[4], 999, &rest) == -1,
	    "%s:%u: with the bound text %s", l->file, l->lineno,
	    w.bind != NULL ? "left out" : "empty");
	if (w.bind != NULL) {
		other.bind = "x";
		CHECK(otp_linger_find(&r, 1, &other, l->field[4], 999,
		    &rest) == -1, "%s:%u: another bound text", l->file,
		    l->lineno);
	}
}

/* take and put, and the lines the file stores keep. */
static void
test_take(void)
{
	struct otp_linger recs[OTP_LINGER_RECORDS], back[OTP_LINGER_RECORDS];
	struct otp_linger_who w = { "alice", "127.0.0.1", NULL, 0, NULL };
	uint8_t salt[OTP_LINGER_SALTLEN];
	char text[OTP_LINGER_LINESMAX + 16];
	size_t n = 0, m = 0, rest, len;
	int changed;

	memset(salt, 1, sizeof(salt));
	otp_linger_put(recs, &n, salt, &w, "pw123456", 2, 1000, 60);
	salt[0] = 2;
	otp_linger_put(recs, &n, salt, &w, "654321", 0, 1010, 60);
	CHECK(n == 2 && recs[0].expiry == 1060 && recs[1].expiry == 1070,
	    "put");
	CHECK(otp_linger_take(recs, &n, &w, "pw123456", 1000, 60, &rest,
	    &changed) == 0 && rest == 2 && !changed, "take: unmoved");
	CHECK(otp_linger_take(recs, &n, &w, "nope00", 1001, 60, &rest,
	    &changed) == -1 && !changed && n == 2, "take: none");
	CHECK(otp_linger_take(recs, &n, &w, "654321", 1065, 60, &rest,
	    &changed) == 1 && changed && n == 1 && recs[0].expiry == 1125,
	    "take: slid, the run-out one dropped");
	len = otp_linger_lines(recs, n, text, sizeof(text));
	CHECK(len > 0 && strncmp(text, "LINGER 1125 ", 12) == 0 &&
	    text[len - 1] == '\n', "lines");
	memmove(text + 4, text, len);
	memcpy(text, "3 4\n", 4);
	otp_linger_lines_parse(text, len + 4, back, &m);
	CHECK(m == 1 && memcmp(&back[0], &recs[0], sizeof(recs[0])) == 0,
	    "lines read back after another line");
}

static void
test_records(void)
{
	struct otp_linger recs[OTP_LINGER_RECORDS], r, back;
	struct otp_linger_who w = { "alice", "127.0.0.1", NULL, 0, NULL };
	struct otp_linger_who other = w;
	uint8_t salt[OTP_LINGER_SALTLEN];
	char text[OTP_LINGER_TEXTMAX];
	size_t n = 0, len, rest, i;

	memset(salt, 7, sizeof(salt));
	otp_linger_make(&r, salt, &w, "050548", 0, 300060);
	len = otp_linger_format(&r, text, sizeof(text));
	CHECK(len == strlen(text) && strncmp(text, "300060 0707", 11) == 0,
	    "format: %s", text);
	CHECK(otp_linger_parse(text, len, &back) == 0 &&
	    memcmp(&back, &r, sizeof(r)) == 0, "parse what format wrote");
	CHECK(otp_linger_parse(text, len - 1, &back) == OTP_EINVAL,
	    "short MAC");
	CHECK(otp_linger_parse("x 00", 4, &back) == OTP_EINVAL, "no time");
	text[10] = 'g';
	CHECK(otp_linger_parse(text, len, &back) == OTP_EINVAL, "not hex");

	/* Bound to the user and the client; no client, no linger. */
	CHECK(otp_linger_find(&r, 1, &w, "050548", 300000, &rest) == 0,
	    "found");
	other.client = "127.0.0.2";
	CHECK(otp_linger_find(&r, 1, &other, "050548", 300000, &rest) == -1,
	    "another client");
	other.client = "";
	CHECK(otp_linger_find(&r, 1, &other, "050548", 300000, &rest) == -1 &&
	    !otp_linger_applies(&other), "no client");
	other.client = w.client;
	other.user = "bob";
	CHECK(otp_linger_find(&r, 1, &other, "050548", 300000, &rest) == -1,
	    "another user");
	CHECK(otp_linger_find(&r, 1, &w, "050549", 300000, &rest) == -1,
	    "another answer");

	/* Four at most: the expired go first, then the earliest to end. */
	for (i = 0; i < 4; i++) {
		r.expiry = 1000 + (int64_t)i;
		otp_linger_add(recs, &n, &r, 0);
	}
	CHECK(n == 4, "four");
	r.expiry = 5000;
	otp_linger_add(recs, &n, &r, 0);
	CHECK(n == 4 && recs[0].expiry == 5000 && recs[1].expiry == 1001,
	    "full: the earliest to end replaced");
	r.expiry = 6000;
	otp_linger_add(recs, &n, &r, 1002);
	CHECK(n == 3 && recs[0].expiry == 5000 && recs[1].expiry == 1003 &&
	    recs[2].expiry == 6000, "expired ones dropped first");
	CHECK(otp_linger_prune(recs, &n, 5500) == 1 && n == 1 &&
	    recs[0].expiry == 6000, "prune");
	test_take();
}

/* ---- the state file engine ------------------------------------------- */

static char img[OTP_STATE_MAX + 1];
static char out[OTP_STATE_OUTMAX];
static size_t imglen;

static void
file(const char *text)
{
	imglen = strlen(text);
	memcpy(img, text, imglen + 1);
}

/* One login at now with answer text (NULL: none) from client (NULL:
 * none), linger=60 for alice; the image kept when it is good. */
static int
login(unsigned phases, const char *text, enum otp_answer_kind k,
    const char *client, int64_t now, struct otp_state_result *r)
{
	struct otp_state_opts o;
	struct otp_answer a;
	size_t outlen;
	int ret;

	otp_state_opts_init(&o);
	o.linger = 60;
	o.user = "alice";
	o.rhost = client;
	memset(o.linger_salt, 0x5a, sizeof(o.linger_salt));
	a.text = text;
	a.kind = k;
	ret = otp_state_login(img, imglen, phases, &a, text != NULL, now, &o,
	    r, out, sizeof(out), &outlen);
	if (ret == 0) {
		memcpy(img, out, outlen);
		imglen = outlen;
		img[imglen] = '\0';
	}
	return ret;
}

static size_t
lines(const char *key)
{
	const char *p = img;
	size_t n = 0;

	while ((p = strstr(p, key)) != NULL) {
		n++;
		p++;
	}
	return n;
}

#define ALL	(OTP_LOGIN_OPEN | OTP_LOGIN_LINGER | OTP_LOGIN_SETTLE)
#define END	(OTP_LOGIN_LINGER | OTP_LOGIN_SETTLE)
#define BARE	OTP_ANSWER_BARE
#define LOCAL	"127.0.0.1"

static void
test_engine(void)
{
	struct otp_state_result r;
	struct otp_state st;

	/* 050548 is 2SH3V3GDW7ZNMGYE's code at 300000. */
	file("2SH3V3GDW7ZNMGYE\n\" DISALLOW_REUSE\n\" TOTP_AUTH\n");
	CHECK(login(ALL, "050548", BARE, LOCAL, 300000, &r) == 0 &&
	    r.accepted && r.how == OTP_STATE_BYCODE, "a code");
	CHECK(lines("\" LINGER 300060 5a5a") == 1 &&
	    strstr(img, "050548") == NULL, "a record, not the answer");
	CHECK(otp_state_parse(img, imglen, &st) == 0, "the image parses");
	CHECK(login(ALL, "050548", BARE, LOCAL, 300000, &r) == 0 &&
	    r.accepted && r.how == OTP_STATE_BYLINGER && !r.changed,
	    "again: lingering, nothing to write");
	CHECK(login(ALL, "050548", BARE, "127.0.0.2", 300000, &r) == 0 &&
	    !r.accepted && r.why == OTP_STATE_WHY_REUSED, "another client");
	CHECK(login(ALL, "050548", BARE, NULL, 300000, &r) == 0 &&
	    !r.accepted && r.why == OTP_STATE_WHY_REUSED, "no client");
	CHECK(login(ALL, "050548", BARE, LOCAL, 300040, &r) == 0 &&
	    r.accepted && r.how == OTP_STATE_BYLINGER && r.changed &&
	    lines("\" LINGER 300100 ") == 1, "slid");
	CHECK(login(ALL, "050548", BARE, LOCAL, 300099, &r) == 0 &&
	    r.accepted && r.how == OTP_STATE_BYLINGER, "within the slid time");
	CHECK(login(ALL, "123456", BARE, LOCAL, 300099, &r) == 0 &&
	    !r.accepted && r.why == OTP_STATE_WHY_WRONG &&
	    lines("LINGER") == 1, "a wrong answer refused, the record stays");
	CHECK(login(ALL, "050548", BARE, LOCAL, 300160, &r) == 0 &&
	    !r.accepted, "run out");

	/* No client: an accept adds no record. */
	file("2SH3V3GDW7ZNMGYE\n\" TOTP_AUTH\n");
	CHECK(login(ALL, "050548", BARE, NULL, 300000, &r) == 0 &&
	    r.accepted && !r.changed && lines("LINGER") == 0, "no client");

	/* A lingering answer neither counts in RATE_LIMIT nor is stopped
	 * by it; the start without it (GRACE), the rest at the end. */
	file("2SH3V3GDW7ZNMGYE\n\" RATE_LIMIT 1 30\n\" DISALLOW_REUSE\n"
	    "\" TOTP_AUTH\n");
	CHECK(login(ALL, "050548", BARE, LOCAL, 300000, &r) == 0 &&
	    r.accepted && lines("RATE_LIMIT 1 30 300000\n") == 1, "counted");
	CHECK(login(OTP_LOGIN_GRACE, NULL, BARE, LOCAL, 300001, &r) == 0 &&
	    !r.accepted && !r.changed, "start: nothing recorded");
	CHECK(login(END, "050548", BARE, LOCAL, 300001, &r) == 0 &&
	    r.accepted && r.how == OTP_STATE_BYLINGER &&
	    lines("RATE_LIMIT 1 30 300000\n") == 1, "not counted");
	CHECK(login(ALL, "050548", BARE, LOCAL, 300002, &r) == 0 &&
	    r.accepted && r.how == OTP_STATE_BYLINGER, "not stopped");
	CHECK(login(END, "999999", BARE, LOCAL, 300003, &r) == 0 &&
	    !r.accepted && r.why == OTP_STATE_WHY_RATELIMIT,
	    "the end counts an answer that does not linger");

	/* A scratch code accepted lingers; a split answer keeps its
	 * split. */
	file("2SH3V3GDW7ZNMGYE\n\" TOTP_AUTH\n12345678\n");
	CHECK(login(ALL, "pw12345678", OTP_ANSWER_SPLIT, LOCAL, 300000, &r) ==
	    0 && r.accepted && r.how == OTP_STATE_BYSCRATCH && r.restlen == 2,
	    "scratch code");
	CHECK(login(ALL, "pw12345678", OTP_ANSWER_SPLIT, LOCAL, 300000, &r) ==
	    0 && r.accepted && r.how == OTP_STATE_BYLINGER && r.restlen == 2,
	    "lingers, the same password handed on");
	CHECK(otp_state_parse(img, imglen, &st) == 0 && st.nscratch == 0,
	    "used");

	/* Without OTP_LOGIN_LINGER the records are not looked at. */
	CHECK(login(OTP_LOGIN_OPEN | OTP_LOGIN_SETTLE, "pw12345678",
	    OTP_ANSWER_SPLIT, LOCAL, 300000, &r) == 0 && !r.accepted,
	    "not asked");
	otp_wipe(&st, sizeof(st));
}

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test-linger VECTORDIR\n");
		return 2;
	}
	CHECK(unit_vectors(argv[1], "linger.txt", mac_case, NULL) == 12,
	    "linger.txt");
	test_records();
	test_engine();
	return unit_done();
}

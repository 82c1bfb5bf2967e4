/*
 * fuzz-users.c - the users-file engine on arbitrary bytes as a file image:
 * check fixed codes for two users at a fixed time (HOTP, TOTP and mOTP
 * shapes, with and without a PIN); an accepted image must be the input
 * with one line rebuilt (never larger than the input and a line), keep
 * the user's token, and refuse the same code again; and every line that
 * parses must format and parse back to the same token, and (HOTP, TOTP)
 * go to an otpauth URI and back to the same token (otp-uri's "oath");
 * the lines otp_users_each_token gives a user are its token lines that
 * parse (linger='s pass over them).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "otp.h"
#include "otp_uri.h"
#include "otp_state.h"
#include "otp_users.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char out[65536 + OTP_USERS_LINE_MAX];
static char again[65536 + 2 * OTP_USERS_LINE_MAX];

/* t (HOTP or TOTP) as a URI and back, as otp-uri --from=oath | otp-uri
 * --to=oath does it. */
static void
via_uri(const struct otp_users_token *t)
{
	static char uri[OTP_LINE_MAX];
	struct otp_users_token b;
	struct otp_uri u, v;
	size_t off;

	if (otp_users_to_uri(t, &u) != 0) {
		if (t->kind != OTP_USERS_MOTP)
			abort();
		return;
	}
	/* A user name that is not UTF-8 text has no URI. */
	if (otp_uri_build(&u, uri, sizeof(uri)) != 0)
		return;
	if (otp_uri_parse(uri, &v, &off) != 0 || !otp_uri_equal(&u, &v) ||
	    v.issuer[0] != '\0')
		abort();
	if (otp_users_from_uri(&v, 0, &b) != 0 || b.kind != t->kind ||
	    b.digits != t->digits || b.period != t->period ||
	    strcmp(b.user, t->user) != 0 || strcmp(b.password, "-") != 0 ||
	    b.key.len != t->key.len ||
	    memcmp(b.key.buf, t->key.buf, t->key.len) != 0 ||
	    (t->kind == OTP_USERS_TOTP && b.counter != 0) ||
	    (t->kind == OTP_USERS_HOTP && b.counter != u.counter))
		abort();
}

/* t as a state file image and back (otp-store copy): the kinds both
 * hold come back the same, an HOTP counter as the one pam_oath takes
 * next, the others are OTP_ECONVERT. */
static void
via_state(const struct otp_users_token *t)
{
	static char img[OTP_STATE_MAX];
	static struct otp_state st;
	struct otp_users_token b;
	struct otp_uri u;
	size_t len;
	int rc;

	int pin = strcmp(t->password, "-") != 0 &&
	    strcmp(t->password, "+") != 0;

	rc = otp_users_to_state(t, OTP_USERS_WINDOW, img, sizeof(img), &len);
	if (rc == OTP_ECONVERT) {
		if (t->kind != OTP_USERS_MOTP &&
		    (!pin || otp_state_pin_ok(t->password)) &&
		    t->counter < (uint64_t)INT64_MAX - 201)
			abort();
		return;
	}
	if (rc != 0)
		return;		/* a key too long for a state file */
	if (otp_users_from_state(img, len, t->user, &st, &b) != 0 ||
	    b.kind != t->kind || b.digits != t->digits ||
	    b.period != t->period ||
	    strcmp(b.password, pin ? t->password : "-") != 0 ||
	    b.key.len != t->key.len ||
	    memcmp(b.key.buf, t->key.buf, t->key.len) != 0 ||
	    strcmp(b.user, t->user) != 0 ||
	    (t->kind == OTP_USERS_HOTP && (otp_users_to_uri(t, &u) != 0 ||
	    b.counter != u.counter)))
		abort();
}

/* otp_users_each_token's lines: the user's own, counted. */
struct seen {
	const char	*user;
	size_t		 n;
};

static int
count_token(void *arg, const struct otp_users_token *t)
{
	struct seen *sn = arg;

	if (strcmp(t->user, sn->user) != 0)
		abort();
	sn->n++;
	return 0;
}

/* The lines otp_users_each_token gives for user are the ones that parse
 * as user's token lines, no more, no fewer. */
static void
tokens(const char *img, size_t size, const char *user)
{
	struct otp_users_token t;
	struct seen sn = { user, 0 };
	const char *p = img, *end = img + size, *nl;
	size_t want = 0;

	if (otp_users_each_token(img, size, user, count_token, &sn) != 0) {
		if (memchr(img, '\0', size) == NULL)
			abort();
		return;
	}
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		if (otp_users_line_parse(p, (size_t)(nl - p), &t) == 1 &&
		    strcmp(t.user, user) == 0)
			want++;
		p = nl + 1;
	}
	if (sn.n != want)
		abort();
}

static void
lines(const char *img, size_t size)
{
	struct otp_users_token t, u;
	char line[OTP_USERS_LINE_MAX];
	const char *p = img, *end = img + size, *nl;
	int rc, n;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		rc = otp_users_line_parse(p, (size_t)(nl - p), &t);
		if (rc == 0)
			(void)otp_users_line_other(p, (size_t)(nl - p), line, 8,
			    line + 8, 8);
		if (rc == 1) {
			via_uri(&t);
			via_state(&t);
			n = otp_users_line_format(&t, line, sizeof(line));
			if (n < 0)	/* a field longer than we write */
				goto next;
			if (otp_users_line_parse(line, (size_t)n - 1, &u) != 1 ||
			    strcmp(t.type, u.type) != 0 ||
			    strcmp(t.user, u.user) != 0 ||
			    strcmp(t.password, u.password) != 0 ||
			    t.key.len != u.key.len ||
			    memcmp(t.key.buf, u.key.buf, t.key.len) != 0 ||
			    t.counter != u.counter || t.kind != u.kind ||
			    t.digits != u.digits || t.period != u.period)
				abort();
		} else if (rc != 0 && rc > -110)
			if (rc != OTP_ENUL)
				abort();
next:
		p = nl + 1;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct {
		const char *user, *pw, *code;
	} c[] = {
		{ "a", "", "287082" }, { "a", "1234", "94287082" },
		{ "b", "", "e7d8b6" }, { "b", "", "1234567" },
	};
	const char *img = (const char *)data;
	struct otp_users_result r;
	size_t outlen, len2, i;
	int rc;

	if (size > 65536)
		return 0;
	lines(img, size);
	tokens(img, size, "a");
	tokens(img, size, "b");
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		rc = otp_users_check(img, size, c[i].user, c[i].pw, c[i].code,
		    165892298, NULL, 5, &r, out, sizeof(out), &outlen);
		if (rc < 0)
			continue;
		if (!r.accepted) {
			if (outlen != 0)
				abort();
			continue;
		}
		if (outlen > size + OTP_USERS_LINE_MAX ||
		    otp_users_has_user(out, outlen, c[i].user) != 1)
			abort();
		/* The same code again is refused, nothing written. */
		rc = otp_users_check(out, outlen, c[i].user, c[i].pw,
		    c[i].code, 165892298, NULL, 5, &r, again, sizeof(again),
		    &len2);
		if (rc != 0 || r.accepted || len2 != 0)
			abort();
	}
	return 0;
}

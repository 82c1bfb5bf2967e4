/*
 * test-pskc.c - PSKC containers: the files of tests/vectors/pskc/ read
 * through sys_pskc_parse and the core as tests/vectors/pskc.txt says,
 * PBKDF2 against tests/vectors/pskc-pbkdf2.txt, and the core's sealing
 * and opening of values: round trips, tampering, encrypted integers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otp.h"
#include "otp_pskc.h"
#include "otp_uri.h"
#include "sys.h"
#include "unit.h"

struct run {
	const uint8_t		*key;
	size_t			 keylen;
	const char		*password;
	int			 unlocked;
	struct otp_pskc_crypt	 c;
	char			 out[4096];
	int			 err;
};

static void
append(struct run *r, const char *s)
{
	size_t n = strlen(r->out);

	snprintf(r->out + n, sizeof(r->out) - n, "%s%s", n > 0 ? " " : "",
	    s);
}

static int
on_key(void *arg, const struct otp_pskc_doc *d,
    const struct otp_pskc_keytext *k)
{
	struct run *r = arg;
	struct otp_uri u;
	char uri[OTP_URI_MAX];
	int rc;

	if (d->encrypted && !r->unlocked) {
		if (r->password != NULL)
			rc = otp_pskc_derive(d, r->password,
			    strlen(r->password), OTP_PSKC_ITER_MAX, &r->c);
		else if (r->key != NULL) {
			if (r->keylen > sizeof(r->c.key))
				return OTP_EPSKCKEYLEN;
			memcpy(r->c.key, r->key, r->keylen);
			r->c.keylen = r->keylen;
			rc = 0;
		} else
			return OTP_EPSKCNOKEY;
		if (rc == 0)
			rc = otp_pskc_unlock(d, &r->c);
		if (rc != 0)
			return rc;
		r->unlocked = 1;
	}
	rc = otp_pskc_key(r->unlocked ? &r->c : NULL, k, &u);
	if (rc != 0 && otp_pskc_skip(rc)) {
		snprintf(uri, sizeof(uri), "SKIP:%d", rc);
		append(r, uri);
		return 0;
	}
	if (rc != 0)
		return rc;
	if ((rc = otp_uri_build(&u, uri, sizeof(uri))) != 0)
		return rc;
	append(r, uri);
	return 0;
}

static void
file_case(const struct unit_line *l, void *arg)
{
	const char *dir = arg;
	char path[1024], want[4096], *buf;
	uint8_t key[64];
	struct run r;
	size_t len = 0, line = 0, i;
	long kl = 0;
	int rc;

	if (l->nfields != 4) {
		CHECK(0, "%s:%u: 4 fields", l->file, l->lineno);
		return;
	}
	memset(&r, 0, sizeof(r));
	if (strcmp(l->field[1], "-") != 0) {
		kl = unit_unhex(l->field[1], key, sizeof(key));
		r.key = key;
		r.keylen = (size_t)kl;
	}
	if (strcmp(l->field[2], "-") != 0)
		r.password = l->field[2];
	snprintf(path, sizeof(path), "%s/pskc/%s", dir, l->field[0]);
	buf = malloc(OTP_PSKC_MAX + 2);
	rc = sys_pskc_read(path, buf, OTP_PSKC_MAX + 2, &len);
	CHECK(rc == 0, "%s:%u: read %s: %d", l->file, l->lineno, path, rc);
	if (rc == 0)
		rc = sys_pskc_parse(buf, len, on_key, &r, &line);
	free(buf);
	/* The expected text, with SKIP:NAME as the code's number. */
	snprintf(want, sizeof(want), "%s", l->field[3]);
	for (i = 0; want[i] != '\0'; i++) {
		char *s = strstr(want + i, "SKIP:");

		if (s == NULL)
			break;
		{
			char name[32], rest[4096];
			size_t n = strcspn(s + 5, " ");

			snprintf(name, sizeof(name), "%.*s", (int)n, s + 5);
			snprintf(rest, sizeof(rest), "%s", s + 5 + n);
			snprintf(s, sizeof(want) - (size_t)(s - want),
			    "SKIP:%d%s", unit_errcode(name), rest);
			i = (size_t)(s - want) + 5;
		}
	}
	if (want[0] == '!')
		CHECK(rc == unit_errcode(want + 1), "%s:%u: %s: got %d (%s), "
		    "want %s", l->file, l->lineno, l->field[0], rc,
		    otp_strerror(rc), want + 1);
	else {
		CHECK(rc == 0, "%s:%u: %s: %s", l->file, l->lineno,
		    l->field[0], otp_strerror(rc));
		CHECK_EQ_STR(r.out, want, l->field[0]);
	}
	otp_wipe(&r, sizeof(r));
}

/* password | salt hex | iterations | key hex */
static void
pbkdf2_case(const struct unit_line *l, void *arg)
{
	uint8_t salt[64], want[64], got[64];
	long sl, wl;
	int rc;

	(void)arg;
	sl = unit_unhex(l->field[1], salt, sizeof(salt));
	wl = unit_unhex(l->field[3], want, sizeof(want));
	rc = otp_pskc_pbkdf2(l->field[0], strlen(l->field[0]), salt,
	    (size_t)sl, strtoul(l->field[2], NULL, 10), got, (size_t)wl);
	CHECK(rc == 0 && memcmp(got, want, (size_t)wl) == 0,
	    "%s:%u: PBKDF2 of '%s'", l->file, l->lineno, l->field[0]);
}

/* A key element with one encrypted secret and counter sealed by c. */
static void
seal_cases(void)
{
	struct otp_pskc_crypt c;
	struct otp_pskc_keytext k;
	struct otp_uri u;
	uint8_t iv[16], num[8];
	char sc[256], sm[128], cc[256], cm[128];
	const char *aes;
	size_t len;
	int rc;

	memset(&c, 0, sizeof(c));
	for (len = 0; len < 16; len++)
		c.key[len] = (uint8_t)len;
	c.keylen = 16;
	memset(c.mackey, 0x5a, 20);
	c.mackeylen = 20;
	c.macalg = OTP_ALG_SHA1;
	memset(iv, 7, sizeof(iv));
	aes = otp_pskc_aes_method(16);
	CHECK(aes != NULL && strstr(aes, "aes128-cbc") != NULL, "aes128");
	CHECK(otp_pskc_aes_method(20) == NULL, "no AES for 20 bytes");
	rc = otp_pskc_seal(&c, iv, (const uint8_t *)"12345678901234567890",
	    20, sc, sizeof(sc), sm, sizeof(sm));
	CHECK(rc == 0, "seal secret");
	/* Counter 2^40 as 8 big-endian bytes. */
	memset(num, 0, sizeof(num));
	num[2] = 1;
	rc = otp_pskc_seal(&c, iv, num, sizeof(num), cc, sizeof(cc), cm,
	    sizeof(cm));
	CHECK(rc == 0, "seal counter");
	memset(&k, 0, sizeof(k));
	k.id = "x";
	k.algorithm = OTP_PSKC_HOTP;
	k.secret.method = aes;
	k.secret.cipher = sc;
	k.secret.mac = sm;
	k.counter.method = aes;
	k.counter.cipher = cc;
	k.counter.mac = cm;
	rc = otp_pskc_key(&c, &k, &u);
	CHECK(rc == 0 && u.key.len == 20 &&
	    memcmp(u.key.buf, "12345678901234567890", 20) == 0 &&
	    u.counter == (uint64_t)1 << 40 && strcmp(u.account, "x") == 0,
	    "sealed key opens: %d", rc);
	/* Without the key, with a wrong MAC key, a MAC of another value. */
	CHECK(otp_pskc_key(NULL, &k, &u) == OTP_EPSKCNOKEY, "no key");
	c.mackey[0] ^= 1;
	CHECK(otp_pskc_key(&c, &k, &u) == OTP_EPSKCMAC, "wrong MAC key");
	c.mackey[0] ^= 1;
	k.secret.mac = cm;
	CHECK(otp_pskc_key(&c, &k, &u) == OTP_EPSKCMAC, "swapped MAC");
	k.secret.mac = NULL;
	CHECK(otp_pskc_key(&c, &k, &u) == OTP_EPSKCNOMAC, "no MAC");
	k.secret.mac = sm;
	/* No MACMethod at all: refused, not trusted. */
	c.mackeylen = 0;
	CHECK(otp_pskc_key(&c, &k, &u) == OTP_EPSKCNOMAC, "no MACMethod");
	c.mackeylen = 20;
	/* A key of the wrong length for the method. */
	c.keylen = 32;
	CHECK(otp_pskc_key(&c, &k, &u) == OTP_EPSKCKEYLEN, "key length");
	c.keylen = 16;
	/* In an encrypted container a plain secret is refused, beside an
	 * encrypted one or alone, and even in a key that would be skipped;
	 * a plain counter beside the encrypted secret is read. */
	k.secret.plain = "MTIzNDU2Nzg5MDEyMzQ1Njc4OTA=";
	CHECK(otp_pskc_key(&c, &k, &u) == OTP_EPSKCPLAIN, "plain beside");
	k.secret.method = k.secret.cipher = k.secret.mac = NULL;
	CHECK(otp_pskc_key(&c, &k, &u) == OTP_EPSKCPLAIN, "plain secret");
	k.algorithm = "urn:ietf:params:xml:ns:keyprov:pskc#OCRA-1";
	CHECK(otp_pskc_key(&c, &k, &u) == OTP_EPSKCPLAIN, "plain OCRA");
	k.algorithm = OTP_PSKC_HOTP;
	k.counter.method = k.counter.cipher = k.counter.mac = NULL;
	k.counter.plain = "7";
	CHECK(otp_pskc_key(NULL, &k, &u) == 0 && u.counter == 7,
	    "plain in a plain container");
	k.secret.plain = NULL;
	k.secret.method = aes;
	k.secret.cipher = sc;
	k.secret.mac = sm;
	CHECK(otp_pskc_key(&c, &k, &u) == 0 && u.counter == 7,
	    "plain counter beside an encrypted secret");
	/* Plain values: a decimal counter, a TOTP key with its fields. */
	memset(&k, 0, sizeof(k));
	k.algorithm = OTP_PSKC_TOTP;
	k.suite = "HMAC-SHA512";
	k.length = "8";
	k.secret.plain = " MTIz\nNDU2 ";
	k.time.plain = "0";
	k.interval.plain = " 45 ";
	k.userid = "a b";
	k.friendly = "not this";
	CHECK(otp_pskc_key(NULL, &k, &u) == 0 && u.type == OTP_TYPE_TOTP &&
	    u.alg == OTP_ALG_SHA512 && u.digits == 8 && u.period == 45 &&
	    u.key.len == 6 && strcmp(u.account, "a b") == 0, "plain TOTP");
	k.interval.plain = "0";
	CHECK(otp_pskc_key(NULL, &k, &u) == OTP_EPSKCVALUE, "period 0");
	k.interval.plain = "x";
	CHECK(otp_pskc_key(NULL, &k, &u) == OTP_EPSKCVALUE, "bad period");
	k.interval.plain = "30";
	k.drift.plain = "-2";
	CHECK(otp_pskc_key(NULL, &k, &u) == OTP_EPSKCDRIFT, "drift");
	k.drift.plain = NULL;
	k.encoding = "HEXADECIMAL";
	CHECK(otp_pskc_key(NULL, &k, &u) == OTP_EPSKCTYPE, "hex codes");
	k.encoding = NULL;
	k.challenge = 1;
	CHECK(otp_pskc_skip(otp_pskc_key(NULL, &k, &u)), "challenge");
	k.challenge = 0;
	k.secret.plain = "";
	CHECK(otp_pskc_key(NULL, &k, &u) == OTP_EKEYEMPTY, "empty secret");
	k.secret.plain = "!!";
	CHECK(otp_pskc_key(NULL, &k, &u) == OTP_EPSKCNOSECRET, "bad base64");
	k.secret.plain = "MTIz";
	k.userid = "a\001b";
	CHECK(otp_pskc_key(NULL, &k, &u) == OTP_EURILABEL, "control");
	otp_wipe(&c, sizeof(c));
	otp_wipe(&u, sizeof(u));
}

int
main(int argc, char *argv[])
{
	char *dir = argc > 1 ? argv[1] : "tests/vectors";

	CHECK(unit_vectors(dir, "pskc.txt", file_case, dir) >= 9,
	    "pskc.txt cases");
	CHECK(unit_vectors(dir, "pskc-pbkdf2.txt", pbkdf2_case, NULL) >= 4,
	    "pskc-pbkdf2.txt cases");
	seal_cases();
	return unit_done();
}

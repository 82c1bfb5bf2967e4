/*
 * fuzz-pskc.c - libFuzzer target for PSKC containers: the XML reader of
 * the system floor and the core's crypto and mapping behind it.  Every
 * input is parsed with the RFC 6030 figures' pre-shared key or password
 * ("qwerty", at most 2000 PBKDF2 rounds here); each account a Key gives
 * must build as a URI, and the accounts written again as a plain
 * container must read back the same, in order (but for an account with
 * no name, which comes back named by its serial).  A skipped key must be
 * one of otp_pskc_skip()'s; an error line must lie inside the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "otp.h"
#include "otp_pskc.h"
#include "otp_uri.h"
#include "sys.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define KEEP	4

struct seen {
	int			 unlocked;
	struct otp_pskc_crypt	 c;
	struct otp_uri		 u[KEEP];
	size_t			 n;
	size_t			 back;	/* second reading: accounts matched */
	int			 second;
};

static const uint8_t psk[16] = {
	0x12, 0x34, 0x56, 0x78, 0x90, 0x12, 0x34, 0x56,
	0x78, 0x90, 0x12, 0x34, 0x56, 0x78, 0x90, 0x12,
};

static char uri[OTP_URI_MAX];
static char written[OTP_PSKC_MAX + 1];
static size_t nwritten;

static int
on_key(void *arg, const struct otp_pskc_doc *d,
    const struct otp_pskc_keytext *k)
{
	struct seen *s = arg;
	struct otp_uri u;
	int rc;

	if (d->encrypted && !s->unlocked) {
		if (d->kdf != NULL)
			rc = otp_pskc_derive(d, "qwerty", 6, 2000, &s->c);
		else {
			memcpy(s->c.key, psk, sizeof(psk));
			s->c.keylen = sizeof(psk);
			rc = 0;
		}
		if (rc == 0)
			rc = otp_pskc_unlock(d, &s->c);
		if (rc != 0)
			return rc;
		s->unlocked = 1;
	}
	rc = otp_pskc_key(s->unlocked ? &s->c : NULL, k, &u);
	if (rc != 0) {
		if (rc > 0)
			abort();
		return otp_pskc_skip(rc) ? 0 : rc;
	}
	if (u.key.len == 0 || u.key.len > OTP_KEY_MAX)
		abort();
	if (otp_uri_build(&u, uri, sizeof(uri)) != 0)
		return 0;	/* a name no label form holds: refused */
	if (s->second) {
		/* An account without a name comes back named by its
		 * serial. */
		if (s->back < s->n && s->u[s->back].account[0] == '\0')
			u.account[0] = '\0';
		if (s->back >= s->n || !otp_uri_equal(&u, &s->u[s->back]))
			abort();
		s->back++;
	} else if (s->n < KEEP)
		s->u[s->n++] = u;
	return 0;
}

static int
collect(void *arg, const char *text, size_t n)
{
	(void)arg;
	if (n > sizeof(written))
		return OTP_ENOSPACE;
	memcpy(written, text, n);
	nwritten = n;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct seen s;
	struct sys_pskc_out o;
	size_t line = 0;
	int rc;

	if (size > OTP_PSKC_MAX)
		return 0;
	memset(&s, 0, sizeof(s));
	rc = sys_pskc_parse((const char *)data, size, (sys_pskc_fn *)on_key,
	    &s, &line);
	if (rc > 0 || line > size + 1)
		abort();
	if (rc != 0 || s.n == 0)
		return 0;
	/* Every account kept, written plain and read back. */
	memset(&o, 0, sizeof(o));
	if (sys_pskc_write(s.u, s.n, &o, collect, NULL) != 0)
		abort();
	s.second = 1;
	s.unlocked = 0;
	if (sys_pskc_parse(written, nwritten, (sys_pskc_fn *)on_key, &s,
	    &line) != 0 || s.back != s.n)
		abort();
	return 0;
}

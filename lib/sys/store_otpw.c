/*
 * store_otpw.c - an OTPW password list as a store (otpw:PATH): the
 * challenge (one entry, or three while another login holds the lock
 * symlink), the response checked and its entries marked used by an
 * atomic rename (otpwfile.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "otp.h"
#include "otp_linger.h"
#include "otp_otpw.h"
#include "store_int.h"

struct otpw_login {
	struct otp_otpw		w;
	struct otp_otpw_chal	c;
	int			chosen;		/* c is set */
	int			locked;		/* we hold PATH.lock */
	size_t			len;
	char			img[OTP_OTPW_MAX];
};

static int
otpw_open(struct sys_login *l)
{
	if ((l->impl = calloc(1, sizeof(struct otpw_login))) == NULL)
		return OTP_ENOMEM;
	return 0;
}

/* Read and parse the list (a missing one: no token). */
static int
load(struct sys_login *l, struct sys_verdict *v)
{
	struct otpw_login *o = l->impl;
	size_t line = 0;
	int rc;

	l->cycles++;
	rc = sys_otpw_load(l->s->path, l->s->cfg.owner, o->img,
	    sizeof(o->img), &o->len);
	if (rc == OTP_EIO) {
		l->err = errno;
		if (l->err == ENOENT) {
			v->unknown = 1;
			v->why = "no OTPW list";
			return 0;
		}
		return rc;
	}
	if (rc != 0)
		return rc;
	if ((rc = otp_otpw_parse(o->img, o->len, &o->w, &line)) != 0) {
		l->fault_line = line;
		return rc;
	}
	v->entries = o->w.entries;
	v->remaining = o->w.remaining;
	return 0;
}

/*
 * The challenge: with the lock taken (or nolock), the first unused entry;
 * while another login holds the lock, three random unused entries other
 * than the one it asks.
 */
static int
otpw_begin(struct sys_login *l, struct sys_verdict *v)
{
	struct otpw_login *o = l->impl;
	char held[OTP_OTPW_CHAL_MAX];
	int rc;

	if ((rc = load(l, v)) != 0 || v->unknown)
		return rc;
	if (!o->chosen) {
		if ((rc = otp_otpw_first(o->img, &o->w, &o->c)) != 0)
			return rc;
		if (!l->s->cfg.nolock) {
			rc = sys_otpw_lock(l->s->path, o->c.text,
			    l->s->cfg.lock_age != 0 ? l->s->cfg.lock_age :
			    SYS_OTPW_LOCK_AGE, held, sizeof(held));
			if (rc == 0)
				o->locked = 1;
			else if (rc == OTP_EIO) {
				l->err = errno;
				return rc;
			} else if ((rc = otp_otpw_multi(o->img, &o->w, held,
			    sys_random_word, NULL, &o->c)) != 0)
				return rc;
		}
		o->chosen = 1;
	}
	memcpy(v->challenge, o->c.text, sizeof(v->challenge));
	return 0;
}

static int
otpw_challenge(struct sys_login *l, const char *text)
{
	struct otpw_login *o = l->impl;
	struct sys_verdict v;
	int rc;

	memset(&v, 0, sizeof(v));
	if ((rc = load(l, &v)) != 0)
		return rc;
	if (v.unknown)
		return OTP_EIO;
	if ((rc = otp_otpw_chal_parse(o->img, &o->w, text, &o->c)) != 0)
		return rc;
	o->chosen = 1;
	return 0;
}

/* The last answer against the challenge, marked used if right. */
static int
otpw_end(struct sys_login *l, const struct otp_answer *a, size_t n,
    struct sys_verdict *v)
{
	struct otpw_login *o = l->impl;
	const struct sys_store_cfg *c = &l->s->cfg;
	struct sys_linger lg = { c->ga.linger, l->user, c->ga.rhost, c->now };
	struct otp_linger_who w = { l->user, c->ga.rhost, NULL, 0, NULL };
	int rc;

	if (!o->chosen || n == 0)
		return OTP_EINVAL;
	memcpy(v->challenge, o->c.text, sizeof(v->challenge));
	v->entries = o->w.entries;
	v->decided = 1;
	v->answer = n - 1;
	l->cycles++;
	rc = sys_otpw_consume(l->s->path, l->s->cfg.owner, &o->c,
	    a[n - 1].text, lg.secs != 0 && otp_linger_applies(&w) ? &lg :
	    NULL, &o->w);
	if (rc == OTP_EIO)
		l->err = errno;
	if (rc < 0)
		return rc;
	v->accepted = rc >= 1;
	v->how = rc == 2 ? SYS_BY_LINGER : v->accepted ? SYS_BY_LIST :
	    SYS_BY_NONE;
	v->why = v->accepted ? NULL : "incorrect password";
	v->changed = v->recorded = rc == 1;
	v->remaining = o->w.remaining;
	return 0;
}

static void
otpw_free(struct sys_login *l)
{
	struct otpw_login *o = l->impl;

	if (o == NULL)
		return;
	/* A failure to remove the lock leaves it to age out. */
	if (o->locked)
		(void)sys_otpw_unlock(l->s->path);
	otp_wipe(o, sizeof(*o));
	free(o);
}

static int
otpw_put(struct sys_store *s, const char *user, const struct sys_record *r,
    int force, int *note)
{
	(void)user;
	return sys_otpw_create(s->path, r->img, r->len, force, note);
}

const struct sys_store_ops sys_store_otpw = {
	.scheme = "otpw",
	.caps = SYS_STORE_CHALLENGE | SYS_STORE_UNAVAIL,
	.prompt = "Password %s: ",
	.put = otpw_put,
	.login_open = otpw_open,
	.begin = otpw_begin,
	.end = otpw_end,
	.challenge = otpw_challenge,
	.login_free = otpw_free,
};

/*
 * store_oath.c - OATH Toolkit's users file as a store (oath:PATH): many
 * users' tokens, each check decided and recorded as pam_oath does, under
 * its locks (usersfile.c).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otp.h"
#include "otp_state.h"
#include "otp_users.h"
#include "store_int.h"

#define CODE_MIN	6	/* shorter answers fail, as pam_oath */
#define CODE_MAX	8	/* longer ones fail without digits */

/* 6 to 8 digits, or 6 hex digits for a Mobile-OTP token. */
static int
oath_shape(const char *code)
{
	size_t i;

	for (i = 0; code[i] != '\0'; i++)
		if (otp_hexval((unsigned char)code[i]) < 0)
			return OTP_ECODE;
	return i >= CODE_MIN && i <= CODE_MAX ? 0 : OTP_ECODE;
}

static int
oath_open(struct sys_login *l)
{
	(void)l;
	return 0;
}

/* Whether the user has a token: told before any prompt, as pam_oath. */
static int
oath_begin(struct sys_login *l, struct sys_verdict *v)
{
	int has = sys_users_has_user(l->s->path, l->user,
	    l->s->cfg.group_read);

	l->cycles++;
	if (has < 0) {
		l->err = errno;
		return has;
	}
	if (has == 0) {
		v->unknown = 1;
		v->why = otp_users_why_text(OTP_USERS_WHY_UNKNOWN);
	}
	return 0;
}

/* Refused before the file is read: the answer cannot be a code. */
static int
refuse(struct sys_verdict *v, const char *why)
{
	v->accepted = 0;
	v->decided = 1;
	v->why = why;
	return 0;
}

/* The last answer: with cfg.digits, a PIN then the code (the PIN is
 * what a split answer hands on); else the whole answer is the code.
 * Recorded unless dry. */
static int
decide(struct sys_login *l, const struct otp_answer *a, size_t n,
    struct sys_verdict *v, int dry)
{
	const struct sys_store_cfg *c = &l->s->cfg;
	struct sys_store_cfg dc;
	struct otp_users_result r;
	char pin[OTP_USERS_FIELD_MAX];
	const char *text, *code;
	size_t len;
	int rc;

	memset(v, 0, sizeof(*v));
	if (n == 0)
		return refuse(v, "no answer");
	text = a[n - 1].text;
	len = strlen(text);
	v->answer = n - 1;
	if (len < CODE_MIN)
		return refuse(v, "too short");
	code = text;
	pin[0] = '\0';
	if (c->digits != 0 && len > c->digits) {
		if (len - c->digits >= sizeof(pin))
			return refuse(v, "too long");
		memcpy(pin, text, len - c->digits);
		pin[len - c->digits] = '\0';
		code = text + len - c->digits;
		v->restlen = len - c->digits;
	} else if (c->digits == 0 && len > CODE_MAX)
		return refuse(v, "too long (and no digits=)");
	memset(&r, 0, sizeof(r));
	dc = *c;
	dc.dry = dry;
	rc = sys_users_check(l->s->path, &dc, l->user, text, pin, code, &r);
	otp_wipe(pin, sizeof(pin));
	l->fault_line = rc != 0 ? r.line : 0;
	if (rc == OTP_EIO || rc == OTP_ELOCK)
		l->err = errno;
	if (rc != 0)
		return rc;
	v->decided = 1;
	v->accepted = r.accepted;
	v->how = r.lingered ? SYS_BY_LINGER : r.accepted ? SYS_BY_CODE :
	    SYS_BY_NONE;
	v->unknown = !r.accepted && r.why == OTP_USERS_WHY_UNKNOWN;
	v->why = r.accepted ? NULL : otp_users_why_text(r.why);
	v->offset = r.offset;
	v->counter = r.counter;
	v->line = r.line;
	v->changed = r.accepted && !r.lingered;
	v->recorded = v->changed && !dry;
	return 0;
}

static int
oath_end(struct sys_login *l, const struct otp_answer *a, size_t n,
    struct sys_verdict *v)
{
	return decide(l, a, n, v, l->s->cfg.dry);
}

/* A dry check: accepted is decided (the end records it); a refusal
 * leaves the login open for a prompt. */
static int
oath_peek(struct sys_login *l, const struct otp_answer *a, size_t n,
    struct sys_verdict *v)
{
	int rc = decide(l, a, n, v, 1);

	v->decided = v->accepted;
	return rc;
}

/* A new line: the token given, or one made from a state file image
 * (otp-store copy), the kinds both hold. */
static int
oath_put(struct sys_store *s, const char *user, const struct sys_record *r,
    int force, int *note)
{
	struct otp_users_token t;
	struct otp_state *st;
	int rc;

	(void)note;
	if (r->token != NULL)
		return sys_users_set(s->path, r->token, force);
	if (r->img == NULL || user == NULL)
		return OTP_EINVAL;
	if ((st = malloc(sizeof(*st))) == NULL)
		return OTP_ENOMEM;
	rc = otp_users_from_state(r->img, r->len, user, st, &t);
	free(st);
	if (rc == OTP_ECONVERT)
		(void)snprintf(s->reason, sizeof(s->reason), "a users file "
		    "holds HOTP, or TOTP of 30 or 60 s");
	if (rc == 0)
		rc = sys_users_set(s->path, &t, force);
	otp_wipe(&t, sizeof(t));
	return rc;
}

/* user's line as a state file image (otp-store copy). */
static int
oath_export(struct sys_store *s, const char *user, char *img, size_t imgsz,
    size_t *len)
{
	struct otp_users_token t;
	int rc;

	rc = sys_users_get(s->path, user, s->cfg.group_read, &t);
	if (rc == 0)
		rc = OTP_EUSERSUNKNOWN;
	if (rc == 1) {
		/* A window wider than an image holds is a debugger's -w
		 * (otp-store copy refuses one): the image's widest. */
		rc = otp_users_to_state(&t, s->cfg.window <
		    OTP_USERS_STATE_WINDOW_MAX ? s->cfg.window :
		    OTP_USERS_STATE_WINDOW_MAX, img, imgsz, len);
		if (rc == OTP_ECONVERT)
			(void)snprintf(s->reason, sizeof(s->reason), "'%s' "
			    "has a Mobile-OTP token or a PIN of more than %d "
			    "bytes", user, OTP_STATE_PIN_MAX);
	}
	otp_wipe(&t, sizeof(t));
	return rc;
}

struct oath_each {
	sys_store_each_fn	*fn;
	void			*arg;
};

static int
oath_one(void *arg, const char *user, size_t ulen, enum otp_users_kind kind)
{
	const struct oath_each *oe = arg;
	struct sys_store_entry e;

	memset(&e, 0, sizeof(e));
	e.user = user;
	e.userlen = ulen;
	e.kind = kind == OTP_USERS_HOTP ? "hotp" : kind == OTP_USERS_TOTP ?
	    "totp" : "motp";
	e.last_used = -1;
	return oe->fn(oe->arg, &e);
}

/* Each token line's user and kind, in the file's order (a user with
 * several tokens, several times); a line holds no more that a listing
 * shows. */
static int
oath_list(struct sys_store *s, sys_store_each_fn *fn, void *arg)
{
	struct oath_each oe = { fn, arg };

	return sys_users_each(s->path, s->cfg.group_read, oath_one, &oe);
}

static int
oath_has(struct sys_store *s, const char *user)
{
	return sys_users_has_user(s->path, user, s->cfg.group_read);
}

const struct sys_store_ops sys_store_oath = {
	.scheme = "oath",
	.caps = SYS_STORE_MANY | SYS_STORE_EARLYUNKNOWN | SYS_STORE_TOKENLINE,
	.prompt = "One-time password (OATH) for `%s': ",
	.put = oath_put,
	.has = oath_has,
	.shape = oath_shape,
	.badshape = "not a code of 6 to 8 digits",
	.want = "6 to 8 digits, or 6 hex digits for Mobile-OTP",
	.login_open = oath_open,
	.begin = oath_begin,
	.peek = oath_peek,
	.end = oath_end,
	.list = oath_list,
	.export = oath_export,
};

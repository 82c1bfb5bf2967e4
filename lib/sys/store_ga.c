/*
 * store_ga.c - the Google Authenticator state file as a store (ga:PATH):
 * one user's token, its scratch codes, RATE_LIMIT, skew and HOTP
 * counter, over the login protocol of statefile.c.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "otp.h"
#include "otp_state.h"
#include "store_int.h"

void
sys_state_verdict(const struct otp_state_result *r, struct sys_verdict *v)
{
	v->accepted = r->accepted;
	switch (r->how) {
	case OTP_STATE_BYCODE:
		v->how = SYS_BY_CODE;
		break;
	case OTP_STATE_BYSCRATCH:
		v->how = SYS_BY_SCRATCH;
		break;
	case OTP_STATE_BYGRACE:
		v->how = SYS_BY_GRACE;
		break;
	case OTP_STATE_BYLINGER:
		v->how = SYS_BY_LINGER;
		break;
	case OTP_STATE_REFUSED:
	default:
		v->how = SYS_BY_NONE;
		break;
	}
	v->why = r->accepted ? NULL : otp_state_why_text(r->why);
	/* After these the original asks for nothing more. */
	v->decided = r->accepted || r->why == OTP_STATE_WHY_RATELIMIT ||
	    r->why == OTP_STATE_WHY_REUSED || r->why == OTP_STATE_WHY_SKEW;
	v->offset = r->offset;
	v->counter = r->counter;
	v->skew = r->skew;
	v->changed = r->changed;
	v->recorded = r->recorded;
	v->answer = r->answer;
	v->restlen = r->restlen;
}

/* The engine's outcome as a verdict, and where the file failed. */
static void
verdict(struct sys_login *l, const struct otp_state_result *r,
    struct sys_verdict *v)
{
	struct sys_ga *g = l->impl;
	size_t line = 0;
	const char *opt = NULL;

	sys_state_verdict(r, v);
	l->err = sys_ga_errno(g);
	l->cycles = sys_ga_cycles(g);
	sys_ga_fault(g, &line, &opt);
	l->fault_line = line;
	l->fault_opt = opt;
}

/* A missing file is a user without a token, not an error. */
static int
missing(struct sys_login *l, int rc, struct sys_verdict *v)
{
	if (rc == OTP_EIO && l->err == ENOENT) {
		v->unknown = 1;
		v->why = "no state file";
		return 0;
	}
	return rc;
}

static int
ga_open(struct sys_login *l)
{
	struct otp_state_opts o = l->s->cfg.ga;
	struct sys_ga *g;

	o.user = l->user;	/* what a linger record binds */
	if ((g = sys_ga_new(l->s->path, &o, l->s->cfg.now)) == NULL)
		return OTP_ENOMEM;
	if (l->s->cfg.dry)
		sys_ga_dry(g);
	l->impl = g;
	return 0;
}

static int
ga_begin(struct sys_login *l, struct sys_verdict *v)
{
	struct otp_state_result r;
	int rc;

	memset(&r, 0, sizeof(r));
	rc = sys_ga_begin(l->impl, &r);
	verdict(l, &r, v);
	/* At the start only these end the login before a prompt. */
	v->decided = r.accepted || r.why == OTP_STATE_WHY_RATELIMIT;
	return missing(l, rc, v);
}

static int
ga_peek(struct sys_login *l, const struct otp_answer *a, size_t n,
    struct sys_verdict *v)
{
	struct otp_state_result r;
	int rc;

	memset(&r, 0, sizeof(r));
	rc = sys_ga_peek(l->impl, a, n, &r);
	verdict(l, &r, v);
	return rc;
}

static int
ga_end(struct sys_login *l, const struct otp_answer *a, size_t n,
    struct sys_verdict *v)
{
	struct otp_state_result r;
	int rc;

	memset(&r, 0, sizeof(r));
	rc = sys_ga_end(l->impl, a, n, &r);
	verdict(l, &r, v);
	return rc;
}

/* Start and end in one lock-and-read cycle. */
static int
ga_check(struct sys_login *l, const struct otp_answer *a, size_t n,
    struct sys_verdict *v)
{
	struct otp_state_result r;
	int rc;

	memset(&r, 0, sizeof(r));
	rc = sys_ga_check(l->impl, a, n, &r);
	verdict(l, &r, v);
	return missing(l, rc, v);
}

static void
ga_free(struct sys_login *l)
{
	sys_ga_free(l->impl);
}

static int
ga_put(struct sys_store *s, const char *user, const struct sys_record *r,
    int force, int *note)
{
	(void)user;
	(void)note;
	return sys_statefile_create(s->path, r->img, r->len, force);
}

static int
ga_load_state(struct sys_store *s, const char *user, struct otp_state *st)
{
	(void)user;
	return sys_statefile_load(s->path, &s->cfg.ga, st);
}

/* An administrator's resync, under the file's lock (otp-store resync). */
static int
ga_resync(struct sys_store *s, const char *user, const char *const *codes,
    size_t n, int64_t *moved)
{
	struct sys_ga *g;
	int rc, e;

	(void)user;
	if ((g = sys_ga_new(s->path, &s->cfg.ga, s->cfg.now)) == NULL)
		return OTP_ENOMEM;
	if (s->cfg.dry)
		sys_ga_dry(g);
	rc = sys_ga_resync(g, codes, n, moved);
	e = sys_ga_errno(g);
	sys_ga_free(g);
	errno = e;
	return rc;
}

/* The file as it is, scratch codes and state included (otp-store copy). */
static int
ga_export(struct sys_store *s, const char *user, char *img, size_t imgsz,
    size_t *len)
{
	struct otp_state st;
	int rc;

	(void)user;
	if ((rc = sys_statefile_read(s->path, &s->cfg.ga, img, imgsz, len)) !=
	    0)
		return rc;
	rc = otp_state_parse(img, *len, &st);
	otp_wipe(&st, sizeof(st));
	return rc;
}

const struct sys_store_ops sys_store_ga = {
	.scheme = "ga",
	.caps = SYS_STORE_SCRATCH,
	.put = ga_put,
	.load_state = ga_load_state,
	.shape = otp_state_code_shape,
	.badshape = "not a 6-digit code or an 8-digit scratch code",
	.want = "6 digits or an 8-digit scratch code",
	.login_open = ga_open,
	.begin = ga_begin,
	.peek = ga_peek,
	.end = ga_end,
	.check = ga_check,
	.login_free = ga_free,
	.export = ga_export,
	.resync = ga_resync,
};

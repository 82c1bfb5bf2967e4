/*
 * store.c - the table of stores, found by URL scheme, and the login
 * protocol over whichever store a URL names.  Nothing here knows a
 * store's files: each row's operations do (store_ga.c, store_oath.c,
 * store_otpw.c).  The PostgreSQL row is loaded from its own object when
 * a URL names it, so a host that uses files never maps libpq.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "otp.h"
#include "store_int.h"

static const struct sys_store_ops *const stores[] = {
	&sys_store_ga,
	&sys_store_oath,
	&sys_store_otpw,
};

void
sys_store_cfg_init(struct sys_store_cfg *c)
{
	memset(c, 0, sizeof(*c));
	otp_state_opts_init(&c->ga);
	c->window = OTP_USERS_WINDOW;
	c->owner = (unsigned long)geteuid();
	c->now = SYS_NOW_REAL;
}

/* The row for url's scheme and where its path starts, or NULL. */
static const struct sys_store_ops *
find(const char *url, const char **path)
{
	size_t i, n;

	for (i = 0; i < sizeof(stores) / sizeof(stores[0]); i++) {
		n = strlen(stores[i]->scheme);
		if (strncmp(url, stores[i]->scheme, n) == 0 &&
		    url[n] == ':') {
			*path = url + n + 1;
			return stores[i];
		}
	}
	return NULL;
}

/* libpq's URI prefixes: the whole URL is the store's. */
static int
is_pg(const char *url)
{
	return strncmp(url, "postgresql://", 13) == 0 ||
	    strncmp(url, "postgres://", 11) == 0;
}

int
sys_store_is_url(const char *url)
{
	const char *path;

	return find(url, &path) != NULL || is_pg(url);
}

/* The PostgreSQL store's row from its object.  RTLD_NODELETE keeps the
 * object (and the connections it pools) mapped after the dlclose here,
 * and in any program that links this library and is itself unloaded
 * (pam_otp.so stays: it is linked -z nodelete). */
static const struct sys_store_ops *
pg_load(const struct sys_store_cfg *c)
{
	const char *path = c->module != NULL ? c->module : SYS_STORE_PGMODULE;
	const struct sys_store_ops *ops = NULL;
	sys_store_entry_fn *entry;
	void *h;

	if ((h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)) == NULL)
		return NULL;
	*(void **)(&entry) = dlsym(h, SYS_STORE_ENTRY);
	if (entry != NULL)
		ops = entry(SYS_STORE_ABI);
	(void)dlclose(h);
	return ops;
}

int
sys_store_open(const char *url, const struct sys_store_cfg *c,
    struct sys_store **sp)
{
	const struct sys_store_ops *ops;
	struct sys_store *s;
	const char *path;

	struct sys_store_cfg dc;
	int rc;

	*sp = NULL;
	if (c == NULL) {
		sys_store_cfg_init(&dc);
		c = &dc;
	}
	if (is_pg(url)) {
		path = url;
		if ((ops = pg_load(c)) == NULL)
			return OTP_ESTOREMODULE;
	} else if ((ops = find(url, &path)) == NULL)
		return OTP_ESTORESCHEME;
	if (*path == '\0')
		return OTP_ESTOREURL;
	if (strlen(path) >= sizeof(s->path))
		return OTP_ETOOLONG;
	/* Not calloc: the path buffer is most of it, and a login opens a
	 * store each time (make bench counts the instructions). */
	if ((s = malloc(sizeof(*s))) == NULL)
		return OTP_ENOMEM;
	s->ops = ops;
	s->cfg = *c;
	s->reason[0] = '\0';
	s->impl = NULL;
	memcpy(s->path, path, strlen(path) + 1);
	if (ops->open != NULL && (rc = ops->open(s, url)) != 0) {
		free(s);
		return rc;
	}
	*sp = s;
	return 0;
}

const char *
sys_store_scheme(const struct sys_store *s)
{
	return s->ops->scheme;
}

const char *
sys_store_path(const struct sys_store *s)
{
	return s->path;
}

unsigned
sys_store_caps(const struct sys_store *s)
{
	return s->ops->caps;
}

const char *
sys_store_prompt(const struct sys_store *s)
{
	return s->ops->prompt;
}

void
sys_store_close(struct sys_store *s)
{
	if (s == NULL)
		return;
	/* Nothing here is secret (a URL's password is not in path); the
	 * store wipes what it holds itself. */
	if (s->ops->close != NULL)
		s->ops->close(s);
	free(s);
}

const char *
sys_store_reason(const struct sys_store *s)
{
	return s->reason;
}

int
sys_store_init(struct sys_store *s, int *made)
{
	int dummy = 0;

	return s->ops->init == NULL ? OTP_ESTOREOP :
	    s->ops->init(s, made != NULL ? made : &dummy);
}

int
sys_store_list(struct sys_store *s, sys_store_each_fn *fn, void *arg)
{
	return s->ops->list == NULL ? OTP_ESTOREOP : s->ops->list(s, fn, arg);
}

int
sys_store_remove(struct sys_store *s, const char *user)
{
	return s->ops->remove == NULL ? OTP_ESTOREOP :
	    s->ops->remove(s, user);
}

int
sys_store_enable(struct sys_store *s, const char *user, int on)
{
	return s->ops->enable == NULL ? OTP_ESTOREOP :
	    s->ops->enable(s, user, on);
}

int
sys_store_resync(struct sys_store *s, const char *user,
    const char *const *codes, size_t n, int64_t *moved)
{
	*moved = 0;
	return s->ops->resync == NULL ? OTP_ESTOREOP :
	    s->ops->resync(s, user, codes, n, moved);
}

int
sys_store_unlock(struct sys_store *s, const char *user)
{
	return s->ops->unlock == NULL ? OTP_ESTOREOP :
	    s->ops->unlock(s, user);
}

int
sys_store_reseal(struct sys_store *s, unsigned long *n)
{
	*n = 0;
	return s->ops->reseal == NULL ? OTP_ESTOREOP : s->ops->reseal(s, n);
}

int
sys_store_log(struct sys_store *s, const char *user, int64_t since,
    sys_store_log_fn *fn, void *arg)
{
	return s->ops->log == NULL ? OTP_ESTOREOP :
	    s->ops->log(s, user, since, fn, arg);
}

int
sys_store_prune(struct sys_store *s, int64_t before, unsigned long *n)
{
	*n = 0;
	return s->ops->prune == NULL ? OTP_ESTOREOP :
	    s->ops->prune(s, before, n);
}

int
sys_store_export(struct sys_store *s, const char *user, char *img,
    size_t imgsz, size_t *len)
{
	return s->ops->export == NULL ? OTP_ESTOREOP :
	    s->ops->export(s, user, img, imgsz, len);
}

int
sys_store_put(struct sys_store *s, const char *user,
    const struct sys_record *r, int force, int *note)
{
	int dummy = 0;

	return s->ops->put == NULL ? OTP_ESTOREOP :
	    s->ops->put(s, user, r, force, note != NULL ? note : &dummy);
}

int
sys_store_has(struct sys_store *s, const char *user)
{
	return s->ops->has == NULL ? OTP_ESTOREOP : s->ops->has(s, user);
}

int
sys_store_load_state(struct sys_store *s, const char *user,
    struct otp_state *st)
{
	return s->ops->load_state == NULL ? OTP_ESTOREOP :
	    s->ops->load_state(s, user, st);
}

int
sys_store_code_shape(const struct sys_store *s, const char *code,
    const char **want)
{
	if (want != NULL)
		*want = s->ops->want;
	return s->ops->shape == NULL ? 0 : s->ops->shape(code);
}

const char *
sys_store_shape_why(const struct sys_store *s)
{
	return s->ops->badshape != NULL ? s->ops->badshape : "not a code";
}

int
sys_login_open(struct sys_store *s, const char *user, struct sys_login **lp)
{
	struct sys_login *l;
	size_t n = user != NULL ? strlen(user) : 0;
	int rc;

	*lp = NULL;
	if (n >= sizeof(l->user))
		return OTP_EUSERSFIELD;
	if ((l = calloc(1, sizeof(*l))) == NULL)
		return OTP_ENOMEM;
	l->s = s;
	if (n > 0)
		memcpy(l->user, user, n + 1);
	if ((rc = s->ops->login_open(l)) != 0) {
		free(l);
		return rc;
	}
	*lp = l;
	return 0;
}

static void
verdict_init(struct sys_verdict *v)
{
	memset(v, 0, sizeof(*v));
}

int
sys_login_begin(struct sys_login *l, struct sys_verdict *v)
{
	verdict_init(v);
	return l->s->ops->begin(l, v);
}

int
sys_login_peek(struct sys_login *l, const struct otp_answer *a, size_t n,
    struct sys_verdict *v)
{
	if (l->s->ops->peek == NULL)
		return 0;	/* undecided: the end will tell */
	return l->s->ops->peek(l, a, n, v);
}

int
sys_login_end(struct sys_login *l, const struct otp_answer *a, size_t n,
    struct sys_verdict *v)
{
	return l->s->ops->end(l, a, n, v);
}

int
sys_login_check(struct sys_login *l, const struct otp_answer *a, size_t n,
    struct sys_verdict *v)
{
	int rc;

	if (l->s->ops->check != NULL) {
		verdict_init(v);
		return l->s->ops->check(l, a, n, v);
	}
	if ((rc = sys_login_begin(l, v)) != 0 || v->unknown || v->decided)
		return rc;
	return sys_login_end(l, a, n, v);
}

int
sys_login_challenge(struct sys_login *l, const char *text)
{
	return l->s->ops->challenge == NULL ? OTP_ESTOREOP :
	    l->s->ops->challenge(l, text);
}

int
sys_login_errno(const struct sys_login *l)
{
	return l->err;
}

const char *
sys_login_reason(const struct sys_login *l)
{
	return l->reason;
}

void
sys_login_fault(const struct sys_login *l, size_t *line, const char **opt)
{
	*line = l->fault_line;
	*opt = l->fault_opt;
}

unsigned
sys_login_cycles(const struct sys_login *l)
{
	return l->cycles;
}

void
sys_login_free(struct sys_login *l)
{
	if (l == NULL)
		return;
	if (l->s->ops->login_free != NULL)
		l->s->ops->login_free(l);
	otp_wipe(l, sizeof(*l));
	free(l);
}

/*
 * store.c - the table of stores, found by URL scheme, and the login
 * protocol over whichever store a URL names.  Nothing here knows a
 * store's files: each row's operations do (store_ga.c, store_oath.c,
 * store_otpw.c).  The PostgreSQL row is loaded from its own object when
 * a URL names it, so a host that uses files never maps libpq.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/auxv.h>
#include <sys/stat.h>
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

/* Why the last load failed, per thread (pam_otp.so serves logins in a
 * threaded host). */
static _Thread_local char load_why[PATH_MAX + 256];

const char *
sys_store_load_error(void)
{
	return load_why;
}

/* path is a file that uid (or root) owns and no one else may write, in
 * a directory the same holds for. */
static int
trusted(const char *path, uid_t uid)
{
	char dir[PATH_MAX], *slash;
	struct stat st;

	if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (st.st_uid != uid && st.st_uid != 0) || (st.st_mode & 022) != 0)
		return 0;
	if ((size_t)snprintf(dir, sizeof(dir), "%s", path) >= sizeof(dir) ||
	    (slash = strrchr(dir, '/')) == NULL)
		return 0;
	*slash = '\0';
	return lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
	    (st.st_uid == uid || st.st_uid == 0) && (st.st_mode & 022) == 0;
}

/*
 * The store object of the build tree this code runs from, into out: a
 * tool is TREE/bin/NAME and pam_otp.so TREE/lib/pam_otp.so, the object
 * TREE/lib/otp-utils/store-pg.so.  Installed, the same rule finds the
 * installed object (PREFIX/bin and PREFIX/lib/otp-utils) or nothing (a
 * PAM directory is lib/security).  Never in a set-id process; never by
 * a relative name (the current directory is nobody's to trust); only an
 * object that the owner of this code (or root) owns and no one else may
 * change.  0, or -1 when there is none.
 */
static int
build_module(char *out, size_t outsz)
{
	char self[PATH_MAX], exe[PATH_MAX], *slash, *base;
	struct stat st;
	Dl_info di;

	if (getauxval(AT_SECURE) != 0 ||
	    dladdr((void *)(uintptr_t)build_module, &di) == 0 ||
	    realpath("/proc/self/exe", exe) == NULL)
		return -1;
	/* A program's own name in dladdr is its argv[0]: the kernel's
	 * link says where it is. */
	if (di.dli_fname == NULL || di.dli_fname[0] != '/' ||
	    realpath(di.dli_fname, self) == NULL)
		(void)snprintf(self, sizeof(self), "%s", exe);
	if (stat(self, &st) != 0 || (slash = strrchr(self, '/')) == NULL)
		return -1;
	*slash = '\0';		/* its directory */
	base = strrchr(self, '/');
	if (base == NULL || (strcmp(base, "/bin") != 0 &&
	    strcmp(base, "/lib") != 0))
		return -1;
	*base = '\0';		/* the tree */
	if ((size_t)snprintf(out, outsz, "%s/lib/otp-utils/store-pg.so",
	    self) >= outsz || !trusted(out, st.st_uid))
		return -1;
	return 0;
}

/* The PostgreSQL store's row from its object: c->module, else the
 * build tree's, else the installed one.  RTLD_NODELETE keeps the object
 * (and the connections it pools) mapped after the dlclose here, and in
 * any program that links this library and is itself unloaded
 * (pam_otp.so stays: it is linked -z nodelete). */
static const struct sys_store_ops *
pg_load(const struct sys_store_cfg *c)
{
	char built[PATH_MAX];
	const char *path = c->module, *e;
	const struct sys_store_ops *ops = NULL;
	sys_store_entry_fn *entry;
	void *h;

	load_why[0] = '\0';
	if (path == NULL)
		path = build_module(built, sizeof(built)) == 0 ? built :
		    SYS_STORE_PGMODULE;
	if ((h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)) ==
	    NULL) {
		e = dlerror();
		(void)snprintf(load_why, sizeof(load_why), "%s",
		    e != NULL ? e : path);
		return NULL;
	}
	*(void **)(&entry) = dlsym(h, SYS_STORE_ENTRY);
	if (entry != NULL)
		ops = entry(SYS_STORE_ABI);
	if (ops == NULL)
		(void)snprintf(load_why, sizeof(load_why), "%s: %s", path,
		    entry == NULL ? "not a store object (no "
		    SYS_STORE_ENTRY ")" : "a store object of another "
		    "version of otp-utils");
	(void)dlclose(h);
	return ops;
}

/* Whether a query key (n bytes, percent-encoded: libpq decodes keys
 * too) names a secret; one that does not decode is taken for one. */
static int
secret_key(const char *k, size_t n)
{
	char name[16];
	size_t i, o = 0;
	unsigned v;

	for (i = 0; i < n; i++) {
		if (k[i] == '%') {
			if (n - i < 3 || !isxdigit((unsigned char)k[i + 1]) ||
			    !isxdigit((unsigned char)k[i + 2]) ||
			    sscanf(k + i + 1, "%2x", &v) != 1 || v == 0)
				return 1;
			i += 2;
		} else
			v = (unsigned char)k[i];
		if (o == sizeof(name) - 1)
			return 0;
		name[o++] = (char)v;
	}
	name[o] = '\0';
	return strcasecmp(name, "password") == 0 ||
	    strcasecmp(name, "sslpassword") == 0;
}

int
sys_store_url_user(const char *url, const char *user, char *out,
    size_t outsz)
{
	static const char var[] = "${USER}";
	size_t o = 0, n, ulen = strlen(user);
	const char *at;

	while ((at = strstr(url, var)) != NULL) {
		n = (size_t)(at - url);
		if (o + n + ulen >= outsz)
			return OTP_ETOOLONG;
		(void)snprintf(out + o, outsz - o, "%.*s%s", (int)n, url, user);
		o += n + ulen;
		url = at + sizeof(var) - 1;
	}
	if (strlen(url) + o >= outsz)
		return OTP_ETOOLONG;
	(void)snprintf(out + o, outsz - o, "%s", url);
	return 0;
}

void
sys_store_url_shown(const char *url, char *out, size_t outsz)
{
	const char *auth, *q, *at, *colon, *seg, *end, *eq;
	size_t o = 0, n, m;
	int first = 1;

	if (outsz == 0)
		return;
	if (!is_pg(url)) {
		(void)snprintf(out, outsz, "%s", url);
		return;
	}
	auth = strstr(url, "://") + 3;
	q = strchr(auth, '?');
	/* user:password@host: the last '@' before the query ends the
	 * user's part, its first ':' starts the password. */
	for (at = NULL, seg = auth; *seg != '\0' && seg != q; seg++)
		if (*seg == '@')
			at = seg;
	colon = at != NULL ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
#define PUT(p, len) do {						\
	m = (len);							\
	if (m > outsz - 1 - o)						\
		m = outsz - 1 - o;					\
	memcpy(out + o, (p), m);					\
	o += m;								\
} while (0)
	end = q != NULL ? q : url + strlen(url);
	if (colon != NULL) {
		PUT(url, (size_t)(colon - url));
		PUT(at, (size_t)(end - at));
	} else
		PUT(url, (size_t)(end - url));
	/* The query: each parameter whose key is a secret's goes, with
	 * its separator. */
	for (seg = q != NULL ? q + 1 : NULL; seg != NULL; seg = end) {
		end = strchr(seg, '&');
		n = end != NULL ? (size_t)(end - seg) : strlen(seg);
		eq = memchr(seg, '=', n);
		if (!secret_key(seg, eq != NULL ? (size_t)(eq - seg) : n)) {
			PUT(first ? "?" : "&", 1);
			PUT(seg, n);
			first = 0;
		}
		if (end != NULL)
			end++;
	}
#undef PUT
	out[o] = '\0';
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
	if (is_pg(url))
		sys_store_url_shown(url, s->path, sizeof(s->path));
	else
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

/* A file refused for its owner: who owns it and who should, into
 * reason (unless the store said something already); rc unchanged. */
static int
owner_reason(const struct sys_store *s, int rc, char *reason, size_t size)
{
	unsigned long want;

	if ((rc != OTP_ESTATEOWNER && rc != OTP_EOTPWOWNER) ||
	    reason[0] != '\0')
		return rc;
	want = rc == OTP_EOTPWOWNER ? s->cfg.owner : s->cfg.ga.uid;
	if (want == OTP_STATE_UID_SELF)
		want = (unsigned long)geteuid();
	(void)sys_owner_text(s->path, want, reason, size);
	return rc;
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
	if (s->ops->export == NULL)
		return OTP_ESTOREOP;
	return owner_reason(s, s->ops->export(s, user, img, imgsz, len),
	    s->reason, sizeof(s->reason));
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
	return owner_reason(l->s, l->s->ops->begin(l, v), l->reason,
	    sizeof(l->reason));
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
		return owner_reason(l->s, l->s->ops->check(l, a, n, v),
		    l->reason, sizeof(l->reason));
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

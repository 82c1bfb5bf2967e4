/*
 * pam_otp.c - the PAM auth module: ask for a one-time password and check
 * it against the user's token in a store (store=URL, lib/sys/store.h).
 *
 * One authenticate path for every store.  With its old spellings it is a
 * drop-in for three modules: pam_google_authenticator.so (secret=, the
 * default ga:~/.google_authenticator), pam_oath.so (usersfile=) and
 * pam_otpw.so (otpw): the same options, prompts, files, return codes and
 * stacking behaviour; where the peers differ (whether "no token" is told
 * before a prompt, whether an unusable store is "unavailable"), the store
 * says which (sys_store_caps).  This file is PAM glue only: options, the
 * conversation, PAM_AUTHTOK, PAM_RHOST, the file-system identity and the
 * log; every decision about codes and files is the store's, which
 * otp-verify --store shares, so that both tools and the peers can take
 * turns on one file.
 */
#include <sys/types.h>

#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#define PAM_SM_AUTH
#define PAM_SM_SESSION
#include <security/pam_appl.h>
#include <security/pam_ext.h>
#include <security/pam_modules.h>

#include "otp.h"
#include "otp_radius.h"
#include "otp_state.h"
#include "otp_users.h"
#include "store.h"
#include "pam_otp.h"

#define DEFAULT_STORE	"ga:~/.google_authenticator"
#define OTPW_STORE	"otpw:~/.otpw"
#define CODE_PROMPT	"Verification code: "
#define PWCODE_PROMPT	"Password & verification code: "
#define DATA_NAME	"pam_otp:otpw"

/* Options that belong to one kind of store, and the first seen of each. */
enum { OPTS_GA, OPTS_OATH, OPTS_OTPW, OPTS_LIMIT, OPTS_KINDS };

struct params {
	const char	*store;		/* the URL, unexpanded */
	char		 url[PATH_MAX + 16];	/* one an alias made */
	const char	*other[OPTS_KINDS];	/* a store's own option */
	const char	*nototpw;	/* try_ or use_first_pass */
	int		 debug;
	enum pass_mode	 pass;
	/* ga: pam_google_authenticator's */
	const char	*prompt;	/* authtok_prompt= */
	int		 fixed_user;	/* user= given */
	uid_t		 fixed_uid;
	int		 nullok;
	int		 forward_pass;
	int		 echo;		/* echo_verification_code */
	/* the store's rules: sys_store_option() reads them */
	struct sys_store_cfg cfg;
	int		 prompt_unknown;	/* oath: ask users without a token */
	char		 origin[160];	/* a database's audit: rhost= */
};

/* Whose token it is, where, and as whom the store is read. */
struct target {
	const char	*user;		/* PAM_USER */
	unsigned	 caps;		/* the store's SYS_STORE_* */
	int		 ok;		/* identity and URL resolved */
	int		 become;	/* read with the account's ids */
	uid_t		 uid;		/* file-system identity, owner */
	gid_t		 gid;
	char		 url[PATH_MAX + 16];	/* expanded */
	char		 why[PATH_MAX + 256];	/* why the store is unusable */
};

/* What the session reports of an OTPW login, kept with the handle. */
struct otpw_data {
	unsigned	remaining;
	unsigned	entries;
};

/*
 * Why the user's token cannot be used.  Not logged at once: the module
 * still asks for a code (as pam_google_authenticator, so that a caller
 * learns nothing from the prompt), and the line that refuses the login
 * says why, once.
 */
static void __attribute__((format(printf, 2, 3)))
set_why(struct target *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(t->why, sizeof(t->why), fmt, ap);
	va_end(ap);
}

/* A PAM result for a store that cannot be used. */
static int
unusable(const struct target *t)
{
	return t->caps & SYS_STORE_UNAVAIL ? PAM_AUTHINFO_UNAVAIL :
	    PAM_AUTH_ERR;
}

static int
set_store(pam_handle_t *pamh, struct params *p, const char *scheme,
    const char *path, const char *arg)
{
	if (p->store != NULL) {
		pamotp_log(pamh, LOG_ERR, "invalid option \"%s\": the store "
		    "is named already", arg);
		return -1;
	}
	if (*path == '\0') {
		pamotp_log(pamh, LOG_ERR, scheme[0] == 'o' ? "usersfile= "
		    "names no file" : "invalid option \"%s\": empty path",
		    arg);
		return -1;
	}
	if ((size_t)snprintf(p->url, sizeof(p->url), "%s:%s", scheme,
	    path) >= sizeof(p->url)) {
		pamotp_log(pamh, LOG_ERR, "invalid option \"%s\": path too "
		    "long", arg);
		return -1;
	}
	p->store = p->url;
	return 0;
}

/* Parse the module arguments; every problem is logged and fails closed. */
static int
parse_args(pam_handle_t *pamh, int argc, const char **argv,
    struct params *p)
{
	const char *why;
	int i, kind, rc;

	memset(p, 0, sizeof(*p));
	sys_store_cfg_init(&p->cfg);
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		kind = OPTS_GA;
		if (strncmp(a, "store=", 6) == 0) {
			if (p->store != NULL || a[6] == '\0') {
				pamotp_log(pamh, LOG_ERR, "invalid option "
				    "\"%s\": %s", a, a[6] == '\0' ?
				    "empty URL" : "the store is named already");
				return -1;
			}
			p->store = a + 6;
			continue;
		} else if (strncmp(a, "secret=", 7) == 0) {
			if (set_store(pamh, p, "ga", a + 7, a) != 0)
				return -1;
			continue;
		} else if (strncmp(a, "usersfile=", 10) == 0) {
			if (set_store(pamh, p, "oath", a + 10, a) != 0)
				return -1;
			continue;
		} else if (strcmp(a, "otpw") == 0) {
			if (set_store(pamh, p, "otpw", OTPW_STORE + 5, a) != 0)
				return -1;
			continue;
		} else if (pamotp_common_arg(a, &p->debug, &p->pass)) {
			/* try_ and use_first_pass are not OTPW's. */
			if (strcmp(a, "debug") != 0 && p->nototpw == NULL)
				p->nototpw = a;
			continue;
		} else if (strncmp(a, "authtok_prompt=", 15) == 0) {
			p->prompt = a + 15;
		} else if (strncmp(a, "user=", 5) == 0) {
			if (pamotp_parse_uid(pamh, a + 5, &p->fixed_uid) != 0)
				return -1;
			p->fixed_user = 1;
		} else if (strcmp(a, "nullok") == 0) {
			p->nullok = 1;
		} else if (strcmp(a, "forward_pass") == 0) {
			p->forward_pass = 1;
		} else if (strcmp(a, "echo_verification_code") == 0 ||
		    strcmp(a, "echo-verification-code") == 0) {
			p->echo = 1;
		} else if (strcmp(a, "prompt_unknown") == 0) {
			kind = OPTS_OATH;
			p->prompt_unknown = 1;
		} else if (strcmp(a, "alwaysok") == 0) {
			kind = OPTS_OATH;
			/* It would let anyone in, unknown users too. */
			pamotp_log(pamh, LOG_WARNING, "option \"alwaysok\" is "
			    "not honoured: every code is checked");
		} else if ((rc = sys_store_option(&p->cfg, a, &why)) < 0) {
			pamotp_log(pamh, LOG_ERR, "invalid option \"%s\": %s", a,
			    why);
			return -1;
		} else if (rc == SYS_OPT_ALL) {
			continue;	/* every store's */
		} else if (rc != SYS_OPT_NONE) {
			kind = rc == SYS_OPT_OATH ? OPTS_OATH :
			    rc == SYS_OPT_OTPW ? OPTS_OTPW :
			    rc == SYS_OPT_LIMIT ? OPTS_LIMIT : OPTS_GA;
		} else {
			pamotp_log(pamh, LOG_ERR, "unknown option \"%s\"", a);
			return -1;
		}
		if (p->other[kind] == NULL)
			p->other[kind] = a;
	}
	if (p->store == NULL)
		p->store = DEFAULT_STORE;
	return 0;
}

/* The store's own options only: another store's are unknown here, as
 * they are to its peer module. */
static int
check_args(pam_handle_t *pamh, const struct params *p, unsigned caps)
{
	const char *bad = NULL;

	if (caps & SYS_STORE_CHALLENGE) {
		bad = p->other[OPTS_GA] != NULL ? p->other[OPTS_GA] :
		    p->other[OPTS_OATH] != NULL ? p->other[OPTS_OATH] :
		    p->other[OPTS_LIMIT] != NULL ? p->other[OPTS_LIMIT] :
		    p->nototpw;
		if (bad != NULL) {
			pamotp_log(pamh, LOG_ERR, "unknown option \"%s\" (otpw "
			    "takes debug, nolock, lock_age and linger)", bad);
			return -1;
		}
		return 0;
	}
	/* A database store runs the state file's rules: ga's options. */
	bad = p->other[caps & SYS_STORE_MANY && !(caps & SYS_STORE_SHARED) ?
	    OPTS_GA : OPTS_OATH];
	if (bad == NULL)
		bad = p->other[OPTS_OTPW];
	/* deny= and unlock_time=: a users file's and a database's. */
	if (bad == NULL && !(caps & SYS_STORE_MANY))
		bad = p->other[OPTS_LIMIT];
	if (bad != NULL) {
		pamotp_log(pamh, LOG_ERR, "unknown option \"%s\"", bad);
		return -1;
	}
	return 0;
}

/*
 * Find the account whose token it is (the user logging in, or user=),
 * its file-system ids, and the store's URL with ~, ${HOME} and ${USER}
 * expanded.  Returns 0, or a PAM result that ends the login (logged);
 * a problem the login only refuses for later is in t->why.
 */
static int
find_target(pam_handle_t *pamh, const struct params *p, struct target *t)
{
	struct passwd pwbuf, *pw = NULL;
	char buf[PAMOTP_PW_BUF];
	const char *home = NULL;
	size_t scheme;
	int many = (t->caps & SYS_STORE_MANY) != 0, rc;

	/* A database: the user is a row's key, any bytes, never a path;
	 * the URL is used as written and read with the module's ids. */
	if (t->caps & SYS_STORE_SHARED) {
		if (p->fixed_user) {
			pamotp_log(pamh, LOG_ERR, "user= does not apply to "
			    "store \"%s\"", p->store);
			return PAM_AUTH_ERR;
		}
		if ((size_t)snprintf(t->url, sizeof(t->url), "%s", p->store) >=
		    sizeof(t->url)) {
			pamotp_log(pamh, LOG_ERR, "store URL too long");
			return PAM_AUTH_ERR;
		}
		t->ok = 1;
		return 0;
	}

	/* No account vouches for a name (a RADIUS server passes on what
	 * the network sent): ${USER} puts only a plain login name in a
	 * path. */
	if ((many || p->fixed_user) &&
	    pamotp_user_in_path(pamh, p->store, t->user) != 0) {
		if (many)
			return PAM_AUTH_ERR;
		set_why(t, "%s", otp_strerror(OTP_EUSERNAME));
		return 0;
	}
	if (p->fixed_user) {
		/* As pam_google_authenticator: the file belongs to user=,
		 * and its home is not looked up. */
		if (getpwuid_r(p->fixed_uid, &pwbuf, buf, sizeof(buf), &pw) !=
		    0 || pw == NULL) {
			set_why(t, "cannot look up user id %lu",
			    (unsigned long)p->fixed_uid);
			return 0;
		}
		t->uid = p->fixed_uid;
		t->gid = pw->pw_gid;
		t->become = 1;
	} else if (!many || strchr(p->store, '~') != NULL ||
	    strstr(p->store, "${HOME}") != NULL) {
		/* One user's file, or a path in the user's home: read as
		 * the user (NFS homes, root-squash, the owner of a new
		 * file), as the peer modules do. */
		if (getpwnam_r(t->user, &pwbuf, buf, sizeof(buf), &pw) != 0 ||
		    pw == NULL) {
			if (t->caps & SYS_STORE_UNAVAIL) {
				pamotp_log(pamh, LOG_NOTICE, "no such user "
				    "\"%s\"", t->user);
				return PAM_USER_UNKNOWN;
			}
			if (many) {
				pamotp_log(pamh, LOG_ERR, "no home directory "
				    "for \"%s\"", t->user);
				return PAM_AUTH_ERR;
			}
			set_why(t, "no such user");
			return 0;
		}
		if (pw->pw_dir == NULL || pw->pw_dir[0] != '/') {
			if (t->caps & SYS_STORE_UNAVAIL) {
				pamotp_log(pamh, LOG_ERR, "home directory of "
				    "\"%s\" is not a usable absolute path",
				    t->user);
				return PAM_AUTHINFO_UNAVAIL;
			}
			if (many) {
				pamotp_log(pamh, LOG_ERR, "no home directory "
				    "for \"%s\"", t->user);
				return PAM_AUTH_ERR;
			}
			set_why(t, "home directory is not an absolute path");
			return 0;
		}
		home = pw->pw_dir;
		t->uid = pw->pw_uid;
		t->gid = pw->pw_gid;
		t->become = 1;
	}
	/* The scheme as it is; ~ may start the path after it. */
	scheme = (size_t)(strchr(p->store, ':') - p->store) + 1;
	memcpy(t->url, p->store, scheme);
	rc = pamotp_expand_path(p->store + scheme, t->user, home,
	    t->url + scheme, sizeof(t->url) - scheme);
	if (rc == -2) {
		set_why(t, "%s: ~ and ${HOME} cannot be used with user=",
		    p->store);
		return 0;
	}
	if (rc != 0) {
		if (many) {
			pamotp_log(pamh, LOG_ERR, "store path for \"%s\" is too "
			    "long or empty", t->user);
			return PAM_AUTH_ERR;
		}
		set_why(t, "store path is too long");
		return 0;
	}
	t->ok = 1;
	return 0;
}

/* The prompt: the store's peer's, or pam_google_authenticator's. */
static int
ask(pam_handle_t *pamh, const struct params *p, const struct target *t,
    const struct sys_store *s, const struct sys_verdict *v, char **resp)
{
	const char *fmt = s != NULL ? sys_store_prompt(s) : NULL;
	int rc;

	*resp = NULL;
	/* The store's prompt is a constant of its table with one %s. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	if (fmt != NULL)
		rc = pam_prompt(pamh, PAM_PROMPT_ECHO_OFF, resp, fmt,
		    t->caps & SYS_STORE_CHALLENGE ? v->challenge : t->user);
#pragma GCC diagnostic pop
	if (fmt == NULL)
		rc = pam_prompt(pamh, p->echo ? PAM_PROMPT_ECHO_ON :
		    PAM_PROMPT_ECHO_OFF, resp, "%s", p->prompt != NULL ?
		    p->prompt : p->forward_pass ? PWCODE_PROMPT : CODE_PROMPT);
	if (rc != PAM_SUCCESS || *resp == NULL) {
		if (t->caps & SYS_STORE_CHALLENGE)
			pamotp_log(pamh, LOG_ERR, "did not receive a response "
			    "to password %s", v->challenge);
		else
			pamotp_log(pamh, LOG_ERR, "did not receive a "
			    "verification code from the user");
		pamotp_free_secret(*resp);
		*resp = NULL;
		return -1;
	}
	return 0;
}

static void
add_answer(pam_handle_t *pamh, struct otp_answer *ans, size_t *n,
    const char *text, enum otp_answer_kind kind)
{
	if (text[0] == '\b')
		pamotp_log(pamh, LOG_INFO, "dummy password supplied by PAM: "
		    "did sshd's PermitRootLogin or another setting block "
		    "this login?");
	ans[*n].text = text;
	ans[*n].kind = kind;
	(*n)++;
}

/* A store that does not open: the URL without its password; an object
 * that does not load, with the loader's words and the option to use. */
static void
log_open_fail(pam_handle_t *pamh, const char *url, int e, const char *end)
{
	char shown[1024];

	sys_store_url_shown(url, shown, sizeof(shown));
	if (e == OTP_ESTOREMODULE)
		pamotp_log(pamh, LOG_ERR, "store \"%s\": %s: %s (store_module= "
		    "names the object to load)%s", shown, otp_strerror(e),
		    sys_store_load_error(), end);
	else
		pamotp_log(pamh, LOG_ERR, "store \"%s\": %s%s", shown,
		    otp_strerror(e), end);
}

/* Log why the login ended with an error: once, with its cause. */
static void
log_error(pam_handle_t *pamh, const struct target *t,
    const struct sys_store *s, const struct sys_login *l,
    const struct sys_verdict *v, int error)
{
	const char *path = s != NULL ? sys_store_path(s) : t->url;
	const char *opt = NULL;
	char shown[1024];
	size_t line = 0;
	int e = 0;

	/* A store that did not open has no path to show: the URL, cut. */
	if (s == NULL) {
		sys_store_url_shown(t->url, shown, sizeof(shown));
		path = shown;
	}

	if (l != NULL) {
		e = sys_login_errno(l);
		sys_login_fault(l, &line, &opt);
	}
	if (t->caps & SYS_STORE_CHALLENGE && v->challenge[0] != '\0')
		pamotp_log(pamh, LOG_ERR, "\"%s\": cannot check and mark "
		    "password %s: %s; login refused", path, v->challenge,
		    error == OTP_EIO ? strerror(e) : otp_strerror(error));
	else if (error == OTP_EREADONLY) {
		pamotp_log(pamh, LOG_ERR, "\"%s\" for \"%s\" cannot be "
		    "updated (%s); login refused", path, t->user,
		    e == EBUSY ? otp_strerror(OTP_EBUSY) : strerror(e));
		pam_error(pamh, "Error while writing config");
	} else if ((error == OTP_EIO || error == OTP_ELOCK) && (e != 0 ||
	    l == NULL || *sys_login_reason(l) == '\0'))
		pamotp_log(pamh, LOG_ERR, "\"%s\" for \"%s\": %s", path,
		    t->user, e != 0 ? strerror(e) : otp_strerror(error));
	else if (error == OTP_ENOMEM)
		pamotp_log(pamh, LOG_ERR, "out of memory");
	else if (line > 0)
		pamotp_log(pamh, LOG_ERR, "\"%s\" for \"%s\": line %zu: %s",
		    path, t->user, line, otp_strerror(error));
	else if (l != NULL && *sys_login_reason(l) != '\0')
		pamotp_log(pamh, LOG_ERR, "\"%s\" for \"%s\": %s: %s; login "
		    "refused", path, t->user, otp_strerror(error),
		    sys_login_reason(l));
	else
		pamotp_log(pamh, LOG_ERR, "\"%s\" for \"%s\": %s", path,
		    t->user, otp_strerror(error));
}

static const char *
how_text(enum sys_how how)
{
	switch (how) {
	case SYS_BY_SCRATCH:
		return "emergency scratch code";
	case SYS_BY_GRACE:
		return "grace period";
	case SYS_BY_LINGER:
		return "lingering answer (linger=)";
	case SYS_BY_LIST:
		return "password";
	case SYS_BY_CODE:
	case SYS_BY_NONE:
	default:
		return "verification code";
	}
}

/*
 * The start, before any prompt: whether the user has a token, the
 * challenge, the grace period and RATE_LIMIT.  Returns 1 when answers can
 * be checked, 0 when the token cannot be used (t->why), or a negative
 * PAM result to end the login with (logged); *error gets an error that
 * ends it once a code was asked for.
 */
static int
start_login(pam_handle_t *pamh, const struct params *p, struct target *t,
    struct sys_store *s, struct sys_login *l, struct sys_verdict *v,
    int *error)
{
	int rc = sys_login_begin(l, v), e = sys_login_errno(l);

	if (rc == OTP_EREADONLY && !(t->caps & SYS_STORE_UNAVAIL)) {
		/* Sound, but the attempt cannot be recorded: refused with
		 * the write error, without a prompt. */
		*error = rc;
		return 1;
	}
	if (rc != 0 && t->caps & (SYS_STORE_EARLYUNKNOWN | SYS_STORE_UNAVAIL)) {
		log_error(pamh, t, s, l, v, rc);
		return -unusable(t);
	}
	if (rc == OTP_EIO || rc == OTP_ELOCK) {
		set_why(t, "cannot read \"%s\": %s", sys_store_path(s),
		    strerror(e));
		return 0;
	}
	if (rc != 0) {
		set_why(t, "\"%s\": %s%s%s%s", sys_store_path(s),
		    otp_strerror(rc), *sys_login_reason(l) != '\0' ? ": " : "",
		    sys_login_reason(l), rc == OTP_ESTATEOWNER ?
		    "; no_strict_owner allows it" : "");
		return 0;
	}
	if (!v->unknown) {
		if (p->debug)
			pamotp_log(pamh, LOG_DEBUG, "debug: \"%s\" read",
			    sys_store_path(s));
		return 1;
	}
	if (p->nullok) {
		if (p->debug)
			pamotp_log(pamh, LOG_DEBUG, "debug: no token in \"%s\" "
			    "for \"%s\"; nullok", sys_store_path(s), t->user);
		return -PAM_IGNORE;
	}
	if (t->caps & SYS_STORE_EARLYUNKNOWN && !p->prompt_unknown) {
		/* As pam_oath, for stacks with [user_unknown=ignore]. */
		if (p->debug)
			pamotp_log(pamh, LOG_DEBUG, "debug: no token for "
			    "\"%s\" in %s", t->user, sys_store_path(s));
		return -PAM_USER_UNKNOWN;
	}
	if (t->caps & SYS_STORE_EARLYUNKNOWN) {
		/* prompt_unknown: asked and refused as a wrong code is, so
		 * that a client cannot tell who is enrolled. */
		set_why(t, "no token in \"%s\"", sys_store_path(s));
		return 0;
	}
	if (t->caps & SYS_STORE_UNAVAIL) {
		pamotp_log(pamh, LOG_NOTICE, "OTPW not set up for user %s: no "
		    "\"%s\"", t->user, sys_store_path(s));
		return -PAM_AUTHINFO_UNAVAIL;
	}
	set_why(t, "%s \"%s\" (%s)", v->why != NULL ? v->why : "no token in",
	    sys_store_path(s), strerror(ENOENT));
	return 0;
}

static void
free_data(pam_handle_t *pamh, void *data, int status)
{
	(void)pamh;
	(void)status;
	free(data);
}

/* Keep what the session reports of an OTPW login. */
static void
keep_otpw(pam_handle_t *pamh, const struct sys_verdict *v)
{
	struct otpw_data *d;

	if ((d = calloc(1, sizeof(*d))) == NULL)
		return;
	d->remaining = v->remaining;
	d->entries = v->entries;
	if (pam_set_data(pamh, DATA_NAME, d, free_data) != PAM_SUCCESS)
		free(d);
}

/* Hand the password part of a split answer on to the next module. */
static int
hand_on(pam_handle_t *pamh, const struct otp_answer *a,
    const struct sys_verdict *v)
{
	char *rest;
	int rc;

	if ((rest = strndup(a[v->answer].text, v->restlen)) == NULL)
		return -1;
	rc = pam_set_item(pamh, PAM_AUTHTOK, rest);
	pamotp_free_secret(rest);
	return rc == PAM_SUCCESS ? 0 : -1;
}

/*
 * One login: its start (before any prompt), PAM_AUTHTOK (try_first_pass,
 * use_first_pass), our own prompt unless PAM_AUTHTOK decided it (looked
 * at on the store as the start left it), then its end with every answer.
 * The first accepted answer wins.
 */
static int
authenticate(pam_handle_t *pamh, struct params *p, struct target *t,
    struct sys_store *s)
{
	struct sys_verdict r;
	struct otp_answer ans[2];
	struct sys_login *l = NULL;
	const void *item = NULL;
	char *prompted = NULL;
	size_t n = 0;
	int usable = 0, done = 0, noanswer = 0, error = 0, blind;
	int rc = PAM_AUTH_ERR;

	memset(&r, 0, sizeof(r));
	if (s != NULL) {
		if ((error = sys_login_open(s, t->user, &l)) != 0) {
			log_error(pamh, t, s, NULL, &r, error);
			return unusable(t);
		}
		usable = start_login(pamh, p, t, s, l, &r, &error);
		if (usable < 0) {
			rc = -usable;
			goto out;
		}
		if (t->caps & SYS_STORE_CHALLENGE)
			keep_otpw(pamh, &r);
	}
	/* A user without a token in a database: asked, and the end run
	 * all the same (the store does a token's work on a dummy), so that
	 * the time of the refusal does not tell who is enrolled. */
	blind = !usable && l != NULL && error == 0 && r.unknown &&
	    (t->caps & SYS_STORE_SHARED);
	if (!usable && t->why[0] == '\0')
		set_why(t, "no usable token");
	if (!usable && p->debug)
		pamotp_log(pamh, LOG_DEBUG, "debug: no usable secret for "
		    "\"%s\"; asking for a code anyway", t->user);
	if (usable && p->debug && r.challenge[0] != '\0')
		pamotp_log(pamh, LOG_DEBUG, "debug: challenge %s",
		    r.challenge);
	/* Decided before any question: a recent login from this host, too
	 * many attempts, an attempt that cannot be recorded. */
	if (usable)
		done = error != 0 || r.decided;

	if (!done && p->pass != PASS_PROMPT &&
	    pam_get_item(pamh, PAM_AUTHTOK, &item) == PAM_SUCCESS &&
	    item != NULL && usable) {
		add_answer(pamh, ans, &n, item, OTP_ANSWER_SPLIT);
		if ((error = sys_login_peek(l, ans, n, &r)) == 0)
			done = r.decided;
	}
	if (!done && error == 0 && p->pass != PASS_USE) {
		if (ask(pamh, p, t, s, &r, &prompted) != 0)
			noanswer = 1;	/* logged */
		else if (usable || blind)
			add_answer(pamh, ans, &n, prompted, p->forward_pass ?
			    OTP_ANSWER_SPLIT : OTP_ANSWER_BARE);
		/* As pam_otpw: the answer is left for the modules below. */
		if (prompted != NULL && t->caps & SYS_STORE_CHALLENGE)
			(void)pam_set_item(pamh, PAM_AUTHTOK, prompted);
	}
	if (usable && error == 0 && n > 0) {
		error = sys_login_end(l, ans, n, &r);
		if (error == 0 && r.unknown && p->nullok) {
			/* No token by the end (removed since the start, or
			 * since the row this host kept for the user was
			 * written): nullok as at the start. */
			if (p->debug)
				pamotp_log(pamh, LOG_DEBUG, "debug: no token "
				    "in \"%s\" for \"%s\"; nullok",
				    sys_store_path(s), t->user);
			rc = PAM_IGNORE;
			goto out;
		}
		if (p->debug && error == 0 && !r.accepted)
			pamotp_log(pamh, LOG_DEBUG, "debug: code refused: %s",
			    r.why != NULL ? r.why : "");
		if (error == 0 && t->caps & SYS_STORE_CHALLENGE)
			keep_otpw(pamh, &r);
	}
	if (blind && n > 0) {
		struct sys_verdict dv;

		(void)sys_login_end(l, ans, n, &dv);	/* refused all the same */
	}
	if (noanswer && error == 0) {
		if (!usable)
			pamotp_log(pamh, LOG_ERR, "login of \"%s\" refused: "
			    "%s", t->user, t->why);
		rc = unusable(t);
		goto out;
	}

	if (error != 0) {
		log_error(pamh, t, s, l, &r, error);
		rc = unusable(t);
	} else if (usable && r.accepted) {
		rc = PAM_SUCCESS;
	}
	/* The PIN or password before the code goes on to the next module
	 * as PAM_AUTHTOK (none after a grace-period pass): forward_pass,
	 * and a users file's digits= as pam_oath. */
	if (error == 0 && usable && r.restlen > 0 && r.answer < n &&
	    r.how != SYS_BY_GRACE && ((r.accepted && p->forward_pass) ||
	    p->cfg.digits != 0) && hand_on(pamh, ans, &r) != 0) {
		pamotp_log(pamh, LOG_ERR, "cannot forward the password");
		rc = PAM_AUTH_ERR;
	}
	if (rc == PAM_SUCCESS && r.how == SYS_BY_LIST)
		pamotp_log(pamh, LOG_INFO, "accepted password %s for \"%s\"; "
		    "%u of %u left", r.challenge, t->user, r.remaining,
		    r.entries);
	else if (rc == PAM_SUCCESS)
		pamotp_log(pamh, LOG_INFO, "accepted %s for \"%s\"%s",
		    how_text(r.how), t->user, !r.changed || r.recorded ? "" :
		    " (not recorded: allow_readonly)");
	else if (usable && error == 0 && t->caps & SYS_STORE_CHALLENGE)
		pamotp_log(pamh, LOG_NOTICE, "incorrect password %s from user "
		    "%s", r.challenge, t->user);
	else if (usable && error == 0)
		pamotp_log(pamh, LOG_ERR, "invalid verification code for "
		    "\"%s\": %s", t->user, r.why != NULL ? r.why : "");
	else if (error == 0)
		pamotp_log(pamh, LOG_ERR, "login of \"%s\" refused: %s",
		    t->user, t->why);
out:
	pamotp_free_secret(prompted);
	sys_login_free(l);
	return rc;
}

/* The store the arguments name, opened with their rules, or NULL (the
 * reason in t->why, or logged with *rc set when it ends the login). */
static struct sys_store *
open_store(pam_handle_t *pamh, struct params *p, struct target *t, int *rc)
{
	struct sys_store_cfg c;
	struct sys_store *s = NULL;
	const void *item = NULL;
	int e;

	*rc = 0;
	if (!t->ok)
		return NULL;
	c = p->cfg;
	c.ga.uid = (unsigned long)t->uid;
	/* grace_period looks at the remote host at the start, linger at
	 * the answers: without one, neither does anything. */
	if ((c.ga.grace_period > 0 || c.ga.linger > 0) &&
	    pam_get_item(pamh, PAM_RHOST, &item) == PAM_SUCCESS &&
	    item != NULL)
		c.ga.rhost = item;
	c.owner = (unsigned long)t->uid;
	/* A database's audit trail says whom the host served. */
	item = NULL;
	if ((t->caps & SYS_STORE_SHARED) &&
	    pam_get_item(pamh, PAM_RHOST, &item) == PAM_SUCCESS &&
	    item != NULL && *(const char *)item != '\0') {
		(void)snprintf(p->origin, sizeof(p->origin), "rhost=%s",
		    (const char *)item);
		c.origin = p->origin;
	}
	if ((e = sys_store_open(t->url, &c, &s)) != 0) {
		log_open_fail(pamh, t->url, e, "");
		*rc = PAM_AUTH_ERR;
		return NULL;
	}
	if (p->debug)
		pamotp_log(pamh, LOG_DEBUG, "debug: store \"%s\", user id %lu",
		    sys_store_path(s), (unsigned long)t->uid);
	return s;
}

/* The caps of the store url names, or -1 when no store has its scheme
 * (logged once, naming it). */
static int
store_caps(pam_handle_t *pamh, const struct params *p, unsigned *caps)
{
	const char *url = p->store;
	struct sys_store_cfg c;
	struct sys_store *s;
	int rc;

	sys_store_cfg_init(&c);
	c.module = p->cfg.module;
	if ((rc = sys_store_open(url, &c, &s)) != 0) {
		if (pamh != NULL)
			log_open_fail(pamh, url, rc, "; login refused");
		return -1;
	}
	*caps = sys_store_caps(s);
	sys_store_close(s);
	return 0;
}

PAM_EXTERN int
pam_sm_authenticate(pam_handle_t *pamh, int flags, int argc,
    const char **argv)
{
	struct params p;
	struct target *t;
	struct sys_store *s;
	const char *user = NULL;
	uid_t old_uid = 0;
	gid_t old_gid = 0;
	unsigned caps;
	int rc;

	(void)flags;
	if (parse_args(pamh, argc, argv, &p) != 0)
		return PAM_AUTH_ERR;
	if (store_caps(pamh, &p, &caps) != 0 ||
	    check_args(pamh, &p, caps) != 0)
		return PAM_AUTH_ERR;
	rc = pam_get_user(pamh, &user, NULL);
	if (rc == PAM_CONV_AGAIN && caps & SYS_STORE_UNAVAIL)
		return PAM_INCOMPLETE;
	if (rc != PAM_SUCCESS || user == NULL || *user == '\0') {
		if (caps & SYS_STORE_UNAVAIL) {
			pamotp_log(pamh, LOG_NOTICE, "no user name provided");
			return PAM_USER_UNKNOWN;
		}
		pamotp_log(pamh, LOG_ERR, "cannot get the user name");
		return PAM_AUTH_ERR;
	}
	if ((t = calloc(1, sizeof(*t))) == NULL) {
		pamotp_log(pamh, LOG_ERR, "out of memory");
		return PAM_AUTH_ERR;
	}
	t->user = user;
	t->caps = caps;
	if (p.debug)
		pamotp_log(pamh, LOG_DEBUG, "debug: start for \"%s\"", user);
	if ((rc = find_target(pamh, &p, t)) != 0)
		goto done;
	if (t->ok && t->become) {
		struct pamotp_id id = { t->user, t->uid, t->gid };

		if (pamotp_become(pamh, &id, &old_uid, &old_gid) != 0) {
			rc = unusable(t);
			goto done;
		}
	}
	if ((s = open_store(pamh, &p, t, &rc)) != NULL || rc == 0)
		rc = authenticate(pamh, &p, t, s);
	sys_store_close(s);
	if (t->ok && t->become && pamotp_unbecome(pamh, old_uid, old_gid) != 0)
		rc = PAM_AUTH_ERR;
done:
	if (p.debug)
		pamotp_log(pamh, LOG_DEBUG, "debug: end for \"%s\": %s", user,
		    pam_strerror(pamh, rc));
	free(t);
	return rc;
}

PAM_EXTERN int
pam_sm_setcred(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	(void)pamh;
	(void)flags;
	(void)argc;
	(void)argv;
	return PAM_SUCCESS;
}

/* A store that asks challenges (OTPW) has a session; the others none. */
static int
session_wanted(int argc, const char **argv)
{
	struct params p;
	unsigned caps = 0;

	if (parse_args(NULL, argc, argv, &p) != 0 ||
	    store_caps(NULL, &p, &caps) != 0)
		return 0;
	return (caps & SYS_STORE_CHALLENGE) != 0;
}

/* The session: how many passwords are left, as pam_otpw says it. */
PAM_EXTERN int
pam_sm_open_session(pam_handle_t *pamh, int flags, int argc,
    const char **argv)
{
	const void *data = NULL;
	const struct otpw_data *d;

	if (!session_wanted(argc, argv))
		return PAM_IGNORE;
	if (pam_get_data(pamh, DATA_NAME, &data) != PAM_SUCCESS ||
	    data == NULL) {
		pamotp_log(pamh, LOG_ERR, "no OTPW login in this session");
		return PAM_SESSION_ERR;
	}
	d = data;
	if (((unsigned)flags & PAM_SILENT) == 0 && d->entries > 0)
		(void)pam_info(pamh, "Remaining one-time passwords: %u of %u%s",
		    d->remaining, d->entries, d->remaining < d->entries / 2 ||
		    d->remaining < 20 ? " (time to print new ones with "
		    "otp-keygen --otpw)" : "");
	return PAM_SUCCESS;
}

PAM_EXTERN int
pam_sm_close_session(pam_handle_t *pamh, int flags, int argc,
    const char **argv)
{
	(void)pamh;
	(void)flags;
	return session_wanted(argc, argv) ? PAM_SUCCESS : PAM_IGNORE;
}

/*
 * pam_otp.c - the PAM auth module: ask for a one-time password and check
 * it against the user's Google Authenticator state file.
 *
 * A drop-in for pam_google_authenticator.so: the same options, prompts,
 * file, return codes and stacking behaviour.  This file is PAM glue only:
 * options, the conversation, PAM_AUTHTOK, PAM_RHOST and the file-system
 * identity.  Every decision about codes and the file is made by the
 * state-file engine in lib/ (otp_statefile_check), which otp-verify
 * --state shares, so that both tools and the original module can take
 * turns on one file.
 */
#include <sys/fsuid.h>
#include <sys/types.h>

#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#define PAM_SM_AUTH
#include <security/pam_appl.h>
#include <security/pam_ext.h>
#include <security/pam_modules.h>

#include "otp.h"

#define DEFAULT_SECRET	"~/.google_authenticator"
#define CODE_PROMPT	"Verification code: "
#define PWCODE_PROMPT	"Password & verification code: "
#define PW_BUF		4096	/* getpw*_r scratch space */

enum pass_mode {
	PASS_PROMPT,		/* ask for the code */
	PASS_TRY,		/* try PAM_AUTHTOK first, then ask */
	PASS_USE,		/* PAM_AUTHTOK only, never ask */
};

struct params {
	const char	*secret;	/* secret=, unexpanded */
	const char	*prompt;	/* authtok_prompt= */
	int		 fixed_user;	/* user= given */
	uid_t		 fixed_uid;
	int		 nullok;
	int		 debug;
	int		 forward_pass;
	int		 echo;		/* echo_verification_code */
	enum pass_mode	 pass;
	struct otp_state_opts opts;	/* flags, allowed_perm, grace */
};

/* Whose file it is and where. */
struct target {
	const char	*user;		/* PAM_USER */
	int		 ok;		/* identity and path resolved */
	uid_t		 uid;		/* file-system identity, file owner */
	gid_t		 gid;
	char		 path[PATH_MAX];	/* expanded secret= */
};

/* One authentication: what was tried and how it ended. */
struct attempt {
	struct otp_state_result	r;	/* the last engine call's outcome */
	int		 owed;		/* a reading missed the HOTP counter,
					 * which is still to move */
	int		 error;		/* an OTP_E* error ended it */
	char		*rest;		/* password part of the answer that
					 * carried the accepted code */
};

static int
parse_octal(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (*s == '\0')
		return -1;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '7')
			return -1;
		v = v * 8 + (uint64_t)(*s - '0');
		if (v > 07777)
			return -1;
	}
	*out = v;
	return 0;
}

static int
parse_uid(pam_handle_t *pamh, const char *name, uid_t *uid)
{
	struct passwd pwbuf, *pw = NULL;
	char buf[PW_BUF];
	uint64_t n;

	/* A number is a uid, as the original module reads it. */
	if (otp_parse_u64(name, 0, INT_MAX, &n) == 0) {
		*uid = (uid_t)n;
		return 0;
	}
	if (getpwnam_r(name, &pwbuf, buf, sizeof(buf), &pw) != 0 ||
	    pw == NULL) {
		pam_syslog(pamh, LOG_ERR, "invalid option \"user=%s\": no such "
		    "user", name);
		return -1;
	}
	*uid = pw->pw_uid;
	return 0;
}

/* Parse the module arguments; every problem is logged and fails closed. */
static int
parse_args(pam_handle_t *pamh, int argc, const char **argv,
    struct params *p)
{
	uint64_t n;
	int i;

	memset(p, 0, sizeof(*p));
	otp_state_opts_init(&p->opts);
	p->opts.allowed_perm = OTP_STATE_PERM;
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (strncmp(a, "secret=", 7) == 0) {
			p->secret = a + 7;
			if (*p->secret == '\0') {
				pam_syslog(pamh, LOG_ERR,
				    "invalid option \"secret=\": empty path");
				return -1;
			}
		} else if (strncmp(a, "authtok_prompt=", 15) == 0) {
			p->prompt = a + 15;
		} else if (strncmp(a, "user=", 5) == 0) {
			if (parse_uid(pamh, a + 5, &p->fixed_uid) != 0)
				return -1;
			p->fixed_user = 1;
		} else if (strncmp(a, "allowed_perm=", 13) == 0) {
			if (parse_octal(a + 13, &n) != 0 || n == 0) {
				pam_syslog(pamh, LOG_ERR, "invalid option "
				    "\"%s\": allowed_perm must be an octal "
				    "mode from 1 to 7777", a);
				return -1;
			}
			p->opts.allowed_perm = (unsigned)n;
		} else if (strncmp(a, "grace_period=", 13) == 0) {
			if (otp_parse_u64(a + 13, 0, INT32_MAX, &n) != 0) {
				pam_syslog(pamh, LOG_ERR, "invalid option "
				    "\"%s\": grace_period must be a number of "
				    "seconds", a);
				return -1;
			}
			p->opts.grace_period = n;
		} else if (strcmp(a, "nullok") == 0) {
			p->nullok = 1;
		} else if (strcmp(a, "no_strict_owner") == 0) {
			p->opts.flags |= OTP_STATE_NOSTRICTOWNER;
		} else if (strcmp(a, "debug") == 0) {
			p->debug = 1;
		} else if (strcmp(a, "try_first_pass") == 0) {
			p->pass = PASS_TRY;
		} else if (strcmp(a, "use_first_pass") == 0) {
			p->pass = PASS_USE;
		} else if (strcmp(a, "forward_pass") == 0) {
			p->forward_pass = 1;
		} else if (strcmp(a, "echo_verification_code") == 0 ||
		    strcmp(a, "echo-verification-code") == 0) {
			p->echo = 1;
		} else if (strcmp(a, "noskewadj") == 0) {
			p->opts.flags |= OTP_STATE_NOSKEWADJ;
		} else if (strcmp(a, "no_increment_hotp") == 0) {
			p->opts.flags |= OTP_STATE_NOINCRHOTP;
		} else if (strcmp(a, "allow_readonly") == 0) {
			p->opts.flags |= OTP_STATE_ALLOWRO;
		} else {
			pam_syslog(pamh, LOG_ERR, "unknown option \"%s\"", a);
			return -1;
		}
	}
	return 0;
}

/*
 * Expand secret=: "~" at the start or after a '/' and "${HOME}" become the
 * home directory, "${USER}" the user name; substituted text is not
 * expanded again (as the original module).  home is NULL when unknown.
 * Returns 0, -1 when the result does not fit, -2 when home is needed.
 */
static int
expand_path(const char *spec, const char *user, const char *home,
    char *out, size_t outsz)
{
	const char *sub;
	size_t o = 0, skip, n;
	int tilde_ok = 1;

	while (*spec != '\0') {
		sub = NULL;
		skip = 0;
		if (tilde_ok && *spec == '~') {
			sub = home;
			skip = 1;
		} else if (strncmp(spec, "${HOME}", 7) == 0) {
			sub = home;
			skip = 7;
		} else if (strncmp(spec, "${USER}", 7) == 0) {
			sub = user;
			skip = 7;
		}
		if (skip == 0) {
			tilde_ok = *spec == '/';
			if (o + 1 >= outsz)
				return -1;
			out[o++] = *spec++;
			continue;
		}
		if (sub == NULL)
			return -2;
		n = strlen(sub);
		if (o + n >= outsz)
			return -1;
		memcpy(out + o, sub, n);
		o += n;
		spec += skip;
		tilde_ok = 0;
	}
	if (o == 0)
		return -1;
	out[o] = '\0';
	return 0;
}

/* Find the uid, gid and state file of the user logging in, or of user=. */
static void
find_target(pam_handle_t *pamh, const struct params *p, struct target *t)
{
	struct passwd pwbuf, *pw = NULL;
	char buf[PW_BUF];
	const char *home = NULL;
	int rc;

	if (p->fixed_user) {
		/* As the original: the file belongs to user=, and its home
		 * is not looked up. */
		if (getpwuid_r(p->fixed_uid, &pwbuf, buf, sizeof(buf), &pw) !=
		    0 || pw == NULL) {
			pam_syslog(pamh, LOG_ERR, "cannot look up user id %lu",
			    (unsigned long)p->fixed_uid);
			return;
		}
		t->uid = p->fixed_uid;
		t->gid = pw->pw_gid;
	} else {
		if (getpwnam_r(t->user, &pwbuf, buf, sizeof(buf), &pw) != 0 ||
		    pw == NULL) {
			pam_syslog(pamh, LOG_ERR, "no such user \"%s\"",
			    t->user);
			return;
		}
		if (pw->pw_dir == NULL || pw->pw_dir[0] != '/') {
			pam_syslog(pamh, LOG_ERR, "home directory of \"%s\" "
			    "is not an absolute path", t->user);
			return;
		}
		home = pw->pw_dir;
		t->uid = pw->pw_uid;
		t->gid = pw->pw_gid;
	}
	rc = expand_path(p->secret != NULL ? p->secret : DEFAULT_SECRET,
	    t->user, home, t->path, sizeof(t->path));
	if (rc == -2) {
		pam_syslog(pamh, LOG_ERR, "secret=%s: ~ and ${HOME} cannot be "
		    "used with user=", p->secret != NULL ? p->secret :
		    DEFAULT_SECRET);
		return;
	}
	if (rc != 0) {
		pam_syslog(pamh, LOG_ERR, "secret file path for \"%s\" is too "
		    "long", t->user);
		return;
	}
	t->ok = 1;
}

/*
 * Take the target's file-system identity so that files are opened and
 * created as that user (NFS homes, root-squash, the owner of the temporary
 * file), as the original module does.  setfsuid() returns the previous
 * value whether or not it worked; asking again with -1 tells.
 */
static int
become(pam_handle_t *pamh, const struct target *t, uid_t *old_uid,
    gid_t *old_gid)
{
	*old_gid = (gid_t)setfsgid(t->gid);
	if ((gid_t)setfsgid((gid_t)-1) != t->gid) {
		(void)setfsgid(*old_gid);
		pam_syslog(pamh, LOG_ERR, "cannot switch to group id %lu of "
		    "\"%s\"", (unsigned long)t->gid, t->user);
		return -1;
	}
	*old_uid = (uid_t)setfsuid(t->uid);
	if ((uid_t)setfsuid((uid_t)-1) != t->uid) {
		(void)setfsuid(*old_uid);
		(void)setfsgid(*old_gid);
		pam_syslog(pamh, LOG_ERR, "cannot switch to user id %lu of "
		    "\"%s\"", (unsigned long)t->uid, t->user);
		return -1;
	}
	return 0;
}

static int
unbecome(pam_handle_t *pamh, uid_t old_uid, gid_t old_gid)
{
	/* The uid first: changing the gid back may need its privilege. */
	(void)setfsuid(old_uid);
	(void)setfsgid(old_gid);
	if ((uid_t)setfsuid((uid_t)-1) != old_uid ||
	    (gid_t)setfsgid((gid_t)-1) != old_gid) {
		pam_syslog(pamh, LOG_CRIT, "cannot switch back to file-system "
		    "user id %lu, group id %lu", (unsigned long)old_uid,
		    (unsigned long)old_gid);
		return -1;
	}
	return 0;
}

/*
 * Split an answer as the original module does: the code is its last 6
 * characters (len 6) or, for a scratch code, its last 8 (len 8, first digit
 * 1-9); what precedes it is the password that forward_pass hands on.  An
 * answer to our own prompt must be the code alone unless forward_pass.
 */
static int
split_answer(const char *ans, size_t len, int bare, char code[9],
    size_t *restlen)
{
	size_t n = strlen(ans), i;

	if (n < len)
		return -1;
	for (i = n - len; i < n; i++)
		if (ans[i] < '0' || ans[i] > '9')
			return -1;
	if (len == 8 && ans[n - len] == '0')
		return -1;
	if (bare && n != len)
		return -1;
	memcpy(code, ans + n - len, len);
	code[len] = '\0';
	*restlen = n - len;
	return 0;
}

/*
 * Try the codes one answer can hold (6 digits, then 8), as later readings
 * of the login open_login() opened: the attempt is recorded already, and
 * a HOTP counter that a reading misses moves once, after the last reading
 * (settle).  Stop at the first accepted code, at an error, or where the
 * original stops: a code already used (DISALLOW_REUSE) or one that skew
 * learning recorded.  Returns 1 when the login is over.
 */
static int
try_answer(pam_handle_t *pamh, const struct params *p,
    const struct target *t, const char *ans, int bare, int64_t now,
    struct attempt *a)
{
	static const size_t lens[] = { 6, 8 };
	struct otp_state_opts o;
	char code[9];
	size_t i, restlen;
	int rc;

	if (ans[0] == '\b')
		pam_syslog(pamh, LOG_INFO, "dummy password supplied by PAM: "
		    "did sshd's PermitRootLogin or another setting block "
		    "this login?");
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		if (split_answer(ans, lens[i], bare, code, &restlen) != 0)
			continue;
		o = p->opts;
		o.flags |= OTP_STATE_FOLLOWUP | OTP_STATE_NOINCRHOTP;
		rc = otp_statefile_check(t->path, code, now, &o, &a->r);
		otp_wipe(code, sizeof(code));
		if (rc != 0) {
			a->error = rc;
			return 1;
		}
		if (a->r.hotp_miss)
			a->owed = 1;
		if (a->r.accepted) {
			if ((a->rest = strndup(ans, restlen)) == NULL) {
				a->error = OTP_ENOMEM;
				a->r.accepted = 0;
			}
			return 1;
		}
		if (p->debug)
			pam_syslog(pamh, LOG_DEBUG, "debug: %d-digit code "
			    "refused: %s", (int)lens[i],
			    otp_state_why_text(a->r.why));
		if (a->r.why == OTP_STATE_WHY_REUSED ||
		    a->r.why == OTP_STATE_WHY_SKEW ||
		    a->r.why == OTP_STATE_WHY_RATELIMIT)
			return 1;
	}
	return 0;
}

/*
 * The original moves a HOTP counter once per login, after its last
 * reading, however many readings missed it (not at all under
 * no_increment_hotp); a scratch code accepted after a miss does not spare
 * it.  Returns 0 or an OTP_E* error.
 */
static int
settle(const struct params *p, const struct target *t, int64_t now,
    const struct attempt *a)
{
	struct otp_state_opts o;
	struct otp_state_result r;

	if (!a->owed || (p->opts.flags & OTP_STATE_NOINCRHOTP) ||
	    (a->r.accepted && a->r.how == OTP_STATE_BYCODE))
		return 0;
	o = p->opts;
	o.flags |= OTP_STATE_FOLLOWUP | OTP_STATE_HOTPOWED;
	return otp_statefile_check(t->path, "", now, &o, &r);
}

/* Ask for the code; NULL when the conversation failed. */
static char *
ask(pam_handle_t *pamh, const struct params *p)
{
	const char *prompt = p->prompt != NULL ? p->prompt :
	    p->forward_pass ? PWCODE_PROMPT : CODE_PROMPT;
	char *resp = NULL;

	if (pam_prompt(pamh, p->echo ? PAM_PROMPT_ECHO_ON :
	    PAM_PROMPT_ECHO_OFF, &resp, "%s", prompt) != PAM_SUCCESS ||
	    resp == NULL) {
		pam_syslog(pamh, LOG_ERR, "did not receive a verification code "
		    "from the user");
		free(resp);
		return NULL;
	}
	return resp;
}

static void
free_secret_str(char *s)
{
	if (s != NULL) {
		otp_wipe(s, strlen(s));
		free(s);
	}
}

/*
 * Open the login before asking for anything, as the original does: check
 * that the file is there and sound (a missing file with nullok is
 * PAM_IGNORE without a prompt), and let the engine apply the grace period
 * and record the attempt against RATE_LIMIT, once per login.  a->r says
 * whether that decided the login already.  Returns 1 when codes can be
 * checked, 0 when the file cannot be used (logged), -1 when it is missing
 * and nullok applies.
 */
static int
open_login(pam_handle_t *pamh, const struct params *p,
    const struct target *t, int64_t now, struct attempt *a)
{
	int rc, e;

	errno = 0;
	rc = otp_statefile_check(t->path, "", now, &p->opts, &a->r);
	e = errno;
	if (rc == 0) {
		if (p->debug)
			pam_syslog(pamh, LOG_DEBUG, "debug: \"%s\" read",
			    t->path);
		return 1;
	}
	if (rc == OTP_EREADONLY) {
		/* Sound, but the attempt cannot be recorded: refused with
		 * the write error, without a prompt. */
		a->error = rc;
		return 1;
	}
	if (rc == OTP_EIO && e == ENOENT) {
		if (p->nullok) {
			if (p->debug)
				pam_syslog(pamh, LOG_DEBUG, "debug: no state "
				    "file \"%s\" for \"%s\"; nullok",
				    t->path, t->user);
			return -1;
		}
		pam_syslog(pamh, LOG_ERR, "no state file \"%s\" for \"%s\"",
		    t->path, t->user);
	} else if (rc == OTP_EIO) {
		pam_syslog(pamh, LOG_ERR, "cannot read state file \"%s\" for "
		    "\"%s\": %s", t->path, t->user, strerror(e));
	} else {
		pam_syslog(pamh, LOG_ERR, "state file \"%s\" for \"%s\": %s",
		    t->path, t->user, otp_strerror(rc));
	}
	return 0;
}

static const char *
how_text(enum otp_state_how how)
{
	switch (how) {
	case OTP_STATE_BYSCRATCH:
		return "emergency scratch code";
	case OTP_STATE_BYGRACE:
		return "grace period";
	case OTP_STATE_BYCODE:
	case OTP_STATE_REFUSED:
	default:
		return "verification code";
	}
}

static int
authenticate(pam_handle_t *pamh, struct params *p, struct target *t)
{
	struct attempt a;
	const void *item = NULL;
	char *ans = NULL;
	uid_t old_uid = 0;
	gid_t old_gid = 0;
	int64_t now = (int64_t)time(NULL);
	int usable = 0, switched = 0, done = 0, noanswer = 0;
	int rc = PAM_AUTH_ERR;

	memset(&a, 0, sizeof(a));
	p->opts.uid = (unsigned long)t->uid;
	if (t->ok) {
		if (become(pamh, t, &old_uid, &old_gid) != 0)
			return PAM_AUTH_ERR;
		switched = 1;
		/* grace_period looks at the remote host when the login is
		 * opened. */
		if (p->opts.grace_period > 0 &&
		    pam_get_item(pamh, PAM_RHOST, &item) == PAM_SUCCESS &&
		    item != NULL)
			p->opts.rhost = item;
		usable = open_login(pamh, p, t, now, &a);
		if (usable < 0) {
			rc = PAM_IGNORE;
			goto out;
		}
	}
	if (!usable)
		pam_syslog(pamh, LOG_WARNING, "no usable secret for \"%s\"; "
		    "asking for a code anyway", t->user);
	/* Decided before any question, as in the original: a recent login
	 * from this host, too many attempts, an attempt that cannot be
	 * recorded. */
	if (usable)
		done = a.error != 0 || a.r.accepted ||
		    a.r.why == OTP_STATE_WHY_RATELIMIT;

	/* PAM_AUTHTOK first (try_first_pass, use_first_pass), then our own
	 * prompt (default, try_first_pass); the first accepted code wins. */
	if (!done && p->pass != PASS_PROMPT &&
	    pam_get_item(pamh, PAM_AUTHTOK, &item) == PAM_SUCCESS &&
	    item != NULL && usable)
		done = try_answer(pamh, p, t, item, 0, now, &a);
	if (!done && a.error == 0 && p->pass != PASS_USE) {
		if ((ans = ask(pamh, p)) == NULL)
			noanswer = 1;	/* logged */
		else if (usable)
			(void)try_answer(pamh, p, t, ans, !p->forward_pass,
			    now, &a);
	}
	if (usable && a.error == 0)
		a.error = settle(p, t, now, &a);
	if (noanswer && a.error == 0)
		goto out;

	if (a.error != 0) {
		if (a.error == OTP_EREADONLY) {
			pam_syslog(pamh, LOG_ERR, "state file \"%s\" for "
			    "\"%s\" cannot be updated; login refused",
			    t->path, t->user);
			pam_error(pamh, "Error while writing config");
		} else if (a.error == OTP_EIO) {
			pam_syslog(pamh, LOG_ERR, "state file \"%s\" for "
			    "\"%s\": %s", t->path, t->user, strerror(errno));
		} else {
			pam_syslog(pamh, LOG_ERR, "state file \"%s\" for "
			    "\"%s\": %s", t->path, t->user,
			    otp_strerror(a.error));
		}
	} else if (usable && a.r.accepted) {
		rc = PAM_SUCCESS;
		/* forward_pass: the password part goes on to the next
		 * module as PAM_AUTHTOK (none after a grace-period pass). */
		if (p->forward_pass && a.rest != NULL &&
		    pam_set_item(pamh, PAM_AUTHTOK, a.rest) != PAM_SUCCESS) {
			pam_syslog(pamh, LOG_ERR, "cannot forward the password");
			rc = PAM_AUTH_ERR;
		}
	}
	if (rc == PAM_SUCCESS)
		pam_syslog(pamh, LOG_INFO, "accepted %s for \"%s\"%s",
		    how_text(a.r.how), t->user, !a.r.changed ||
		    a.r.recorded ? "" : " (not recorded: allow_readonly)");
	else if (usable && a.error == 0)
		pam_syslog(pamh, LOG_ERR, "invalid verification code for "
		    "\"%s\": %s", t->user, otp_state_why_text(a.r.why));
	else
		pam_syslog(pamh, LOG_ERR, "invalid verification code for "
		    "\"%s\"", t->user);
out:
	free_secret_str(ans);
	free_secret_str(a.rest);
	if (switched && unbecome(pamh, old_uid, old_gid) != 0)
		rc = PAM_AUTH_ERR;
	return rc;
}

PAM_EXTERN int
pam_sm_authenticate(pam_handle_t *pamh, int flags, int argc,
    const char **argv)
{
	struct params p;
	struct target *t;
	const char *user = NULL;
	int rc;

	(void)flags;
	if (parse_args(pamh, argc, argv, &p) != 0)
		return PAM_AUTH_ERR;
	if (pam_get_user(pamh, &user, NULL) != PAM_SUCCESS || user == NULL ||
	    *user == '\0') {
		pam_syslog(pamh, LOG_ERR, "cannot get the user name");
		return PAM_AUTH_ERR;
	}
	if ((t = calloc(1, sizeof(*t))) == NULL) {
		pam_syslog(pamh, LOG_ERR, "out of memory");
		return PAM_AUTH_ERR;
	}
	t->user = user;
	if (p.debug)
		pam_syslog(pamh, LOG_DEBUG, "debug: start for \"%s\"", user);
	find_target(pamh, &p, t);
	if (p.debug && t->ok)
		pam_syslog(pamh, LOG_DEBUG, "debug: state file \"%s\", "
		    "user id %lu", t->path, (unsigned long)t->uid);
	rc = authenticate(pamh, &p, t);
	if (p.debug)
		pam_syslog(pamh, LOG_DEBUG, "debug: end for \"%s\": %s", user,
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

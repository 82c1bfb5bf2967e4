/*
 * pam_otp.c - the PAM auth module: ask for a one-time password and check
 * it against the user's Google Authenticator state file.
 *
 * A drop-in for pam_google_authenticator.so: the same options, prompts,
 * file, return codes and stacking behaviour.  This file is PAM glue only:
 * options, the conversation, PAM_AUTHTOK, PAM_RHOST and the file-system
 * identity.  Every decision about codes and the file is made by the
 * login protocol of lib/sys (sys_login_*) over the state-file engine,
 * which otp-verify --state shares, so that both tools and the original
 * module can take turns on one file.
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
#include "otp_state.h"
#include "sys.h"
#include "pam_otp.h"

#define DEFAULT_SECRET	"~/.google_authenticator"
#define CODE_PROMPT	"Verification code: "
#define PWCODE_PROMPT	"Password & verification code: "

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
	char		 why[PATH_MAX + 256];	/* why the file is unusable */
};

/*
 * Why the user's file cannot be used.  Not logged at once: the module
 * still asks for a code (as the original, so that a caller learns nothing
 * from the prompt), and the line that refuses the login says why, once.
 */
static void __attribute__((format(printf, 2, 3)))
set_why(struct target *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(t->why, sizeof(t->why), fmt, ap);
	va_end(ap);
}

/* Parse the module arguments; every problem is logged and fails closed. */
static int
parse_args(pam_handle_t *pamh, int argc, const char **argv,
    struct params *p)
{
	uint64_t n;
	unsigned mode;
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
			if (pamotp_parse_uid(pamh, a + 5, &p->fixed_uid) != 0)
				return -1;
			p->fixed_user = 1;
		} else if (strncmp(a, "allowed_perm=", 13) == 0) {
			if (otp_parse_mode(a + 13, &mode) != 0) {
				pam_syslog(pamh, LOG_ERR, "invalid option "
				    "\"%s\": allowed_perm must be an octal "
				    "mode from 1 to 7777", a);
				return -1;
			}
			p->opts.allowed_perm = mode;
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
		} else if (pamotp_common_arg(a, &p->debug, &p->pass)) {
			continue;
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

/* Find the uid, gid and state file of the user logging in, or of user=. */
static void
find_target(pam_handle_t *pamh, const struct params *p, struct target *t)
{
	struct passwd pwbuf, *pw = NULL;
	char buf[PAMOTP_PW_BUF];
	const char *home = NULL;
	int rc;

	(void)pamh;	/* a failure is logged once, by the refusal (set_why) */
	if (p->fixed_user) {
		/* As the original: the file belongs to user=, and its home
		 * is not looked up. */
		if (getpwuid_r(p->fixed_uid, &pwbuf, buf, sizeof(buf), &pw) !=
		    0 || pw == NULL) {
			set_why(t, "cannot look up user id %lu",
			    (unsigned long)p->fixed_uid);
			return;
		}
		t->uid = p->fixed_uid;
		t->gid = pw->pw_gid;
		/* No account lookup vouches for the name (a RADIUS server
		 * passes on what the network sent). */
		if (pamotp_user_in_path(pamh, p->secret, t->user) != 0)
			return;
	} else {
		if (getpwnam_r(t->user, &pwbuf, buf, sizeof(buf), &pw) != 0 ||
		    pw == NULL) {
			set_why(t, "no such user");
			return;
		}
		if (pw->pw_dir == NULL || pw->pw_dir[0] != '/') {
			set_why(t, "home directory is not an absolute "
			    "path");
			return;
		}
		home = pw->pw_dir;
		t->uid = pw->pw_uid;
		t->gid = pw->pw_gid;
	}
	rc = pamotp_expand_path(p->secret != NULL ? p->secret : DEFAULT_SECRET,
	    t->user, home, t->path, sizeof(t->path));
	if (rc == -2) {
		set_why(t, "secret=%s: ~ and ${HOME} cannot be used with "
		    "user=", p->secret != NULL ? p->secret : DEFAULT_SECRET);
		return;
	}
	if (rc != 0) {
		set_why(t, "secret file path is too long");
		return;
	}
	t->ok = 1;
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

/*
 * Start the login before asking for anything, as the original does: check
 * that the file is there and sound (a missing file with nullok is
 * PAM_IGNORE without a prompt), and let the engine apply the grace period
 * and record the attempt against RATE_LIMIT, once per login.  *r says
 * whether that decided the login already.  Returns 1 when codes can be
 * checked, 0 when the file cannot be used (logged), -1 when it is missing
 * and nullok applies; *error gets an error that ends the login.
 */
static int
start_login(pam_handle_t *pamh, const struct params *p,
    struct target *t, struct sys_login *l,
    struct otp_state_result *r, int *error)
{
	int rc, e;

	rc = sys_login_begin(l, r);
	e = sys_login_errno(l);
	if (rc == 0) {
		if (p->debug)
			pam_syslog(pamh, LOG_DEBUG, "debug: \"%s\" read",
			    t->path);
		return 1;
	}
	if (rc == OTP_EREADONLY) {
		/* Sound, but the attempt cannot be recorded: refused with
		 * the write error, without a prompt. */
		*error = rc;
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
		set_why(t, "no state file \"%s\" (%s)", t->path,
		    strerror(e));
	} else if (rc == OTP_EIO || rc == OTP_ELOCK) {
		set_why(t, "cannot read state file \"%s\": %s", t->path,
		    strerror(e));
	} else {
		set_why(t, "state file \"%s\": %s", t->path,
		    otp_strerror(rc));
	}
	return 0;
}

/* A refusal after which the original asks for nothing more. */
static int
login_decided(const struct otp_state_result *r)
{
	return r->accepted || r->why == OTP_STATE_WHY_RATELIMIT ||
	    r->why == OTP_STATE_WHY_REUSED || r->why == OTP_STATE_WHY_SKEW;
}

static void
add_answer(pam_handle_t *pamh, struct otp_answer *ans, size_t *n,
    const char *text, enum otp_answer_kind kind)
{
	if (text[0] == '\b')
		pam_syslog(pamh, LOG_INFO, "dummy password supplied by PAM: "
		    "did sshd's PermitRootLogin or another setting block "
		    "this login?");
	ans[*n].text = text;
	ans[*n].kind = kind;
	(*n)++;
}

/* Log why the login ended with an error: once, with its cause. */
static void
log_error(pam_handle_t *pamh, const struct target *t,
    const struct sys_login *l, int error)
{
	int e = sys_login_errno(l);

	if (error == OTP_EREADONLY) {
		pam_syslog(pamh, LOG_ERR, "state file \"%s\" for \"%s\" "
		    "cannot be updated (%s); login refused", t->path, t->user,
		    e == EBUSY ? otp_strerror(OTP_EBUSY) : strerror(e));
		pam_error(pamh, "Error while writing config");
	} else if (error == OTP_EIO || error == OTP_ELOCK) {
		pam_syslog(pamh, LOG_ERR, "state file \"%s\" for \"%s\": %s",
		    t->path, t->user, strerror(e));
	} else if (error == OTP_ENOMEM) {
		pam_syslog(pamh, LOG_ERR, "out of memory");
	} else {
		pam_syslog(pamh, LOG_ERR, "state file \"%s\" for \"%s\": %s",
		    t->path, t->user, otp_strerror(error));
	}
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

/*
 * One login: its start (before any prompt), PAM_AUTHTOK (try_first_pass,
 * use_first_pass), our own prompt unless PAM_AUTHTOK decided it (looked at
 * on the file as the start left it), then its end with every answer: two
 * lock-and-read cycles at most.  The first accepted code wins.
 */
static int
authenticate(pam_handle_t *pamh, struct params *p, struct target *t)
{
	struct otp_state_result r;
	struct otp_answer ans[2];
	struct sys_login *l = NULL;
	const void *item = NULL;
	char *prompted = NULL, *rest = NULL;
	size_t n = 0;
	uid_t old_uid = 0;
	gid_t old_gid = 0;
	int usable = 0, switched = 0, done = 0, noanswer = 0, error = 0;
	int rc = PAM_AUTH_ERR;

	memset(&r, 0, sizeof(r));
	p->opts.uid = (unsigned long)t->uid;
	if (t->ok) {
		struct pamotp_id id = { t->user, t->uid, t->gid };

		if (pamotp_become(pamh, &id, &old_uid, &old_gid) != 0)
			return PAM_AUTH_ERR;
		switched = 1;
		/* grace_period looks at the remote host at the start. */
		if (p->opts.grace_period > 0 &&
		    pam_get_item(pamh, PAM_RHOST, &item) == PAM_SUCCESS &&
		    item != NULL)
			p->opts.rhost = item;
		if ((l = sys_login_new(t->path, &p->opts, SYS_NOW_REAL)) ==
		    NULL) {
			pam_syslog(pamh, LOG_ERR, "out of memory");
			goto out;
		}
		usable = start_login(pamh, p, t, l, &r, &error);
		if (usable < 0) {
			rc = PAM_IGNORE;
			goto out;
		}
	}
	if (!usable && t->why[0] == '\0')
		set_why(t, "no usable state file");
	if (!usable && p->debug)
		pam_syslog(pamh, LOG_DEBUG, "debug: no usable secret for "
		    "\"%s\"; asking for a code anyway", t->user);
	/* Decided before any question, as in the original: a recent login
	 * from this host, too many attempts, an attempt that cannot be
	 * recorded. */
	if (usable)
		done = error != 0 || r.accepted ||
		    r.why == OTP_STATE_WHY_RATELIMIT;

	if (!done && p->pass != PASS_PROMPT &&
	    pam_get_item(pamh, PAM_AUTHTOK, &item) == PAM_SUCCESS &&
	    item != NULL && usable) {
		add_answer(pamh, ans, &n, item, OTP_ANSWER_SPLIT);
		if ((error = sys_login_peek(l, ans, n, &r)) == 0)
			done = login_decided(&r);
	}
	if (!done && error == 0 && p->pass != PASS_USE) {
		if ((prompted = ask(pamh, p)) == NULL)
			noanswer = 1;	/* logged */
		else if (usable)
			add_answer(pamh, ans, &n, prompted, p->forward_pass ?
			    OTP_ANSWER_SPLIT : OTP_ANSWER_BARE);
	}
	if (usable && error == 0 && n > 0) {
		error = sys_login_end(l, ans, n, &r);
		if (p->debug && error == 0 && !r.accepted)
			pam_syslog(pamh, LOG_DEBUG, "debug: code refused: %s",
			    otp_state_why_text(r.why));
	}
	if (noanswer && error == 0) {
		if (!usable)
			pam_syslog(pamh, LOG_ERR, "login of \"%s\" refused: "
			    "%s", t->user, t->why);
		goto out;
	}

	if (error != 0)
		log_error(pamh, t, l, error);
	else if (usable && r.accepted) {
		rc = PAM_SUCCESS;
		/* forward_pass: the password part goes on to the next
		 * module as PAM_AUTHTOK (none after a grace-period pass). */
		if (p->forward_pass && r.how != OTP_STATE_BYGRACE &&
		    r.answer < n) {
			if ((rest = strndup(ans[r.answer].text, r.restlen)) ==
			    NULL || pam_set_item(pamh, PAM_AUTHTOK, rest) !=
			    PAM_SUCCESS) {
				pam_syslog(pamh, LOG_ERR, "cannot forward the "
				    "password");
				rc = PAM_AUTH_ERR;
			}
		}
	}
	if (rc == PAM_SUCCESS)
		pam_syslog(pamh, LOG_INFO, "accepted %s for \"%s\"%s",
		    how_text(r.how), t->user, !r.changed || r.recorded ? "" :
		    " (not recorded: allow_readonly)");
	else if (usable && error == 0)
		pam_syslog(pamh, LOG_ERR, "invalid verification code for "
		    "\"%s\": %s", t->user, otp_state_why_text(r.why));
	else if (error == 0)
		pam_syslog(pamh, LOG_ERR, "login of \"%s\" refused: %s",
		    t->user, t->why);
out:
	pamotp_free_secret(prompted);
	pamotp_free_secret(rest);
	sys_login_free(l);
	if (switched && pamotp_unbecome(pamh, old_uid, old_gid) != 0)
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
	for (rc = 0; rc < argc; rc++)
		if (strncmp(argv[rc], "usersfile=", 10) == 0)
			return pamotp_users(pamh, argc, argv);
	if (pamotp_otpw_wanted(argc, argv))
		return pamotp_otpw_authenticate(pamh, flags, argc, argv);
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

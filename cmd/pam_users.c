/*
 * pam_users.c - pam_otp.so usersfile=FILE: a drop-in for pam_oath (OATH
 * Toolkit's module) over the same users file, its options, prompt, PIN
 * and code splitting and PAM_AUTHTOK hand-over.  The decision and the
 * file are lib/sys's (sys_users_*), which otp-verify --usersfile shares.
 *
 * Not as pam_oath: alwaysok is refused (logged, never honoured), the typed
 * code is never printed or logged, a missing usersfile= is a logged
 * failure, and the file is read and written under locks (see
 * lib/sys/usersfile.c).
 */
#include <sys/types.h>

#include <pwd.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#define PAM_SM_AUTH
#include <security/pam_appl.h>
#include <security/pam_ext.h>
#include <security/pam_modules.h>

#include "otp.h"
#include "otp_users.h"
#include "sys.h"
#include "pam_otp.h"

#define PROMPT		"One-time password (OATH) for `%s': "
#define CODE_MIN	6	/* shorter answers fail, as pam_oath */
#define CODE_MAX	8	/* longer ones fail without digits= */
#define WINDOW_MAX	1000

struct uparams {
	const char	*usersfile;
	unsigned	 window;
	unsigned	 digits;	/* 0: the whole answer is the code */
	int		 debug;
	enum pass_mode	 pass;
};

static int
parse_args(pam_handle_t *pamh, int argc, const char **argv,
    struct uparams *p)
{
	uint64_t n;
	int i;

	memset(p, 0, sizeof(*p));
	p->window = OTP_USERS_WINDOW;
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (strncmp(a, "usersfile=", 10) == 0) {
			p->usersfile = a + 10;
		} else if (strncmp(a, "window=", 7) == 0) {
			if (otp_parse_u64(a + 7, 0, WINDOW_MAX, &n) != 0) {
				pam_syslog(pamh, LOG_ERR, "invalid option "
				    "\"%s\": window must be 0 to %d", a,
				    WINDOW_MAX);
				return -1;
			}
			p->window = (unsigned)n;
		} else if (strncmp(a, "digits=", 7) == 0) {
			if (otp_parse_u64(a + 7, 6, 8, &n) != 0) {
				pam_syslog(pamh, LOG_ERR, "invalid option "
				    "\"%s\": digits must be 6, 7 or 8", a);
				return -1;
			}
			p->digits = (unsigned)n;
		} else if (pamotp_common_arg(a, &p->debug, &p->pass)) {
			continue;
		} else if (strcmp(a, "alwaysok") == 0) {
			/* It would let anyone in, unknown users too. */
			pam_syslog(pamh, LOG_WARNING, "option \"alwaysok\" is "
			    "not honoured: every code is checked");
		} else {
			pam_syslog(pamh, LOG_ERR, "unknown option \"%s\"", a);
			return -1;
		}
	}
	if (p->usersfile == NULL || *p->usersfile == '\0') {
		pam_syslog(pamh, LOG_ERR, "usersfile= names no file");
		return -1;
	}
	return 0;
}

/* Where the file is for user, and whose identity reads it (*become). */
static int
find_file(pam_handle_t *pamh, const struct uparams *p, const char *user,
    char *path, size_t pathsz, struct pamotp_id *id, int *become)
{
	struct passwd pwbuf, *pw = NULL;
	char buf[PAMOTP_PW_BUF];
	int rc;

	*become = 0;
	/* The name is the one the application (or the network) gave, and
	 * no account need vouch for it (a RADIUS server's users have none):
	 * it names a file only when it is a plain login name. */
	if (pamotp_user_in_path(pamh, p->usersfile, user) != 0)
		return -1;
	rc = pamotp_expand_path(p->usersfile, user, NULL, path, pathsz);
	if (rc == -2) {
		/* ${HOME}: the user's file, read with the user's ids. */
		if (getpwnam_r(user, &pwbuf, buf, sizeof(buf), &pw) != 0 ||
		    pw == NULL || pw->pw_dir == NULL || pw->pw_dir[0] != '/') {
			pam_syslog(pamh, LOG_ERR, "no home directory for "
			    "\"%s\"", user);
			return -1;
		}
		rc = pamotp_expand_path(p->usersfile, user, pw->pw_dir, path,
		    pathsz);
		id->user = user;
		id->uid = pw->pw_uid;
		id->gid = pw->pw_gid;
		*become = 1;
	}
	if (rc != 0) {
		pam_syslog(pamh, LOG_ERR, "usersfile path for \"%s\" is too "
		    "long or empty", user);
		return -1;
	}
	return 0;
}

/* The answer: PAM_AUTHTOK or the conversation, as the mode says; a copy
 * the caller wipes, or NULL (*rc the PAM result). */
static char *
get_answer(pam_handle_t *pamh, const struct uparams *p, const char *user,
    int *rc)
{
	const void *item = NULL;
	char *resp = NULL, *copy;

	*rc = PAM_AUTH_ERR;
	if (p->pass != PASS_PROMPT) {
		if (pam_get_item(pamh, PAM_AUTHTOK, &item) != PAM_SUCCESS)
			return NULL;
		if (item != NULL)
			return strdup(item);
		if (p->pass == PASS_USE)
			return NULL;
	}
	if ((*rc = pam_prompt(pamh, PAM_PROMPT_ECHO_OFF, &resp, PROMPT,
	    user)) != PAM_SUCCESS || resp == NULL) {
		if (*rc == PAM_SUCCESS)
			*rc = PAM_AUTH_ERR;
		return NULL;
	}
	copy = resp;
	return copy;
}

static int
users_auth(pam_handle_t *pamh, const struct uparams *p, const char *user)
{
	struct otp_users_result r;
	struct pamotp_id id;
	char path[PATH_MAX], *answer, *code, *prefix = NULL;
	uid_t old_uid = 0;
	gid_t old_gid = 0;
	size_t len;
	int become, rc, has;

	if (find_file(pamh, p, user, path, sizeof(path), &id, &become) != 0)
		return PAM_AUTH_ERR;
	if (become && pamotp_become(pamh, &id, &old_uid, &old_gid) != 0)
		return PAM_AUTH_ERR;
	/* An unknown user is told before any prompt, as pam_oath tells it
	 * (for stacks with [user_unknown=ignore]). */
	has = sys_users_has_user(path, user);
	if (has <= 0) {
		if (has < 0)
			pam_syslog(pamh, LOG_ERR, "%s: %s", path,
			    otp_strerror(has));
		else if (p->debug)
			pam_syslog(pamh, LOG_DEBUG, "debug: no token for "
			    "\"%s\" in %s", user, path);
		rc = has < 0 ? PAM_AUTH_ERR : PAM_USER_UNKNOWN;
		goto out;
	}
	if ((answer = get_answer(pamh, p, user, &rc)) == NULL)
		goto out;
	len = strlen(answer);
	code = answer;
	rc = PAM_AUTH_ERR;
	if (len < CODE_MIN) {
		pam_syslog(pamh, LOG_ERR, "invalid verification code for "
		    "\"%s\": too short", user);
		goto done;
	}
	if (p->digits != 0 && len > p->digits) {
		/* A password, then the code: the password goes on to the
		 * next module in PAM_AUTHTOK. */
		if ((prefix = strdup(answer)) == NULL)
			goto done;
		prefix[len - p->digits] = '\0';
		code = answer + len - p->digits;
		if (pam_set_item(pamh, PAM_AUTHTOK, prefix) != PAM_SUCCESS)
			goto done;
	} else if (p->digits == 0 && len > CODE_MAX) {
		pam_syslog(pamh, LOG_ERR, "invalid verification code for "
		    "\"%s\": too long (and no digits=)", user);
		goto done;
	}
	rc = sys_users_check(path, user, prefix != NULL ? prefix : "", code,
	    SYS_NOW_REAL, p->window, 0, &r);
	if (rc != 0) {
		if (r.line != 0)
			pam_syslog(pamh, LOG_ERR, "%s: line %zu: %s", path,
			    r.line, otp_strerror(rc));
		else
			pam_syslog(pamh, LOG_ERR, "%s: %s", path,
			    otp_strerror(rc));
		rc = PAM_AUTH_ERR;
		goto done;
	}
	/* Every answer is logged once, with the reason; never the code. */
	if (r.accepted)
		pam_syslog(pamh, LOG_INFO, "accepted verification code for "
		    "\"%s\"", user);
	else
		pam_syslog(pamh, LOG_ERR, "invalid verification code for "
		    "\"%s\": %s", user, otp_users_why_text(r.why));
	rc = r.accepted ? PAM_SUCCESS : PAM_AUTH_ERR;
done:
	pamotp_free_secret(prefix);
	pamotp_free_secret(answer);
out:
	if (become && pamotp_unbecome(pamh, old_uid, old_gid) != 0)
		rc = PAM_AUTH_ERR;
	return rc;
}

int
pamotp_users(pam_handle_t *pamh, int argc, const char **argv)
{
	struct uparams p;
	const char *user = NULL;
	int rc;

	if (parse_args(pamh, argc, argv, &p) != 0)
		return PAM_AUTH_ERR;
	if (pam_get_user(pamh, &user, NULL) != PAM_SUCCESS || user == NULL ||
	    *user == '\0') {
		pam_syslog(pamh, LOG_ERR, "cannot get the user name");
		return PAM_AUTH_ERR;
	}
	rc = users_auth(pamh, &p, user);
	if (p.debug)
		pam_syslog(pamh, LOG_DEBUG, "debug: end for \"%s\": %s", user,
		    pam_strerror(pamh, rc));
	return rc;
}

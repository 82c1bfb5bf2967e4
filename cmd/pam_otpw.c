/*
 * pam_otpw.c - the OTPW mode of pam_otp.so ("auth ... pam_otp.so otpw"):
 * a printed list of one-time passwords, each typed after a memorised
 * prefix, checked against the user's ~/.otpw.
 *
 * A drop-in for otpw's own module: its options (debug, nolock), prompt
 * ("Password NNN: ", echo off), lock symlink ~/.otpw.lock, triple
 * challenge while another login holds the lock, session message and
 * return codes.  Two things differ on purpose: the triple challenge never
 * names the entry the other login is asking for, and a right answer that
 * cannot be marked used is refused rather than let in (it could be
 * replayed).  The file is also refused when someone else owns it or may
 * write it.  Every decision about the list is lib/otpw.c's; the lock and
 * the update are lib/sys/otpwfile.c's.
 */
#include <sys/types.h>

#include <errno.h>
#include <limits.h>
#include <pwd.h>
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
#include "otp_otpw.h"
#include "sys.h"
#include "pam_otp.h"

#define OTPW_FILE	".otpw"
#define DATA_NAME	"pam_otp:otpw"
#define PROMPT_FMT	"Password %s: "

struct otpw_args {
	int	debug;
	int	nolock;
};

/* What the session message reports, kept from the login. */
struct otpw_data {
	unsigned	remaining;
	unsigned	entries;
};

int
pamotp_otpw_wanted(int argc, const char **argv)
{
	int i;

	for (i = 0; i < argc; i++)
		if (strcmp(argv[i], "otpw") == 0)
			return 1;
	return 0;
}

static int
parse_args(pam_handle_t *pamh, int argc, const char **argv,
    struct otpw_args *a)
{
	int i;

	memset(a, 0, sizeof(*a));
	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "otpw") == 0)
			continue;
		if (strcmp(argv[i], "debug") == 0)
			a->debug = 1;
		else if (strcmp(argv[i], "nolock") == 0)
			a->nolock = 1;
		else {
			pam_syslog(pamh, LOG_ERR, "unknown option \"%s\" (otpw "
			    "takes debug and nolock)", argv[i]);
			return -1;
		}
	}
	return 0;
}

static void
free_data(pam_handle_t *pamh, void *data, int status)
{
	(void)pamh;
	(void)status;
	free(data);
}

/* Ask for the response; NULL when the conversation failed (logged). */
static char *
ask(pam_handle_t *pamh, const char *chal)
{
	char *resp = NULL;

	if (pam_prompt(pamh, PAM_PROMPT_ECHO_OFF, &resp, PROMPT_FMT, chal) !=
	    PAM_SUCCESS || resp == NULL) {
		pam_syslog(pamh, LOG_ERR, "did not receive a response to "
		    "password %s", chal);
		pamotp_free_secret(resp);
		return NULL;
	}
	return resp;
}

/*
 * The challenge: with the lock taken (or nolock), the first unused entry;
 * while another login holds the lock, three random unused entries other
 * than the one it asks.  *locked says whether we hold the lock.  Returns a
 * PAM code: PAM_SUCCESS, or PAM_AUTHINFO_UNAVAIL (logged).
 */
static int
choose(pam_handle_t *pamh, const struct otpw_args *a, const char *path,
    const char *img, const struct otp_otpw *w, struct otp_otpw_chal *c,
    int *locked)
{
	char held[OTP_OTPW_CHAL_MAX];
	int rc;

	*locked = 0;
	if ((rc = otp_otpw_first(img, w, c)) != 0) {
		pam_syslog(pamh, LOG_NOTICE, "\"%s\": %s", path,
		    otp_strerror(rc));
		return PAM_AUTHINFO_UNAVAIL;
	}
	if (a->nolock)
		return PAM_SUCCESS;
	rc = sys_otpw_lock(path, c->text, held, sizeof(held));
	if (rc == 0) {
		*locked = 1;
		return PAM_SUCCESS;
	}
	if (rc == OTP_EIO) {
		pam_syslog(pamh, LOG_ERR, "cannot make the lock \"%s.lock\": "
		    "%s", path, strerror(errno));
		return PAM_AUTHINFO_UNAVAIL;
	}
	if (a->debug)
		pam_syslog(pamh, LOG_DEBUG, "debug: another login holds "
		    "password %s; asking three others", held);
	rc = otp_otpw_multi(img, w, held, sys_random_word, NULL, c);
	if (rc != 0) {
		pam_syslog(pamh, LOG_NOTICE, "\"%s\": %s", path,
		    otp_strerror(rc));
		return PAM_AUTHINFO_UNAVAIL;
	}
	return PAM_SUCCESS;
}

/* The login as the user: read, challenge, ask, check and mark. */
static int
login(pam_handle_t *pamh, const struct otpw_args *a, const char *user,
    const char *path, uid_t uid, struct otpw_data *d, char *img)
{
	struct otp_otpw w;
	struct otp_otpw_chal c;
	char *resp = NULL;
	size_t len = 0, line;
	int rc, locked = 0, pamrc;

	rc = sys_otpw_load(path, (unsigned long)uid, img, OTP_OTPW_MAX, &len);
	if (rc == OTP_EIO && errno == ENOENT) {
		pam_syslog(pamh, LOG_NOTICE, "OTPW not set up for user %s: no "
		    "\"%s\"", user, path);
		return PAM_AUTHINFO_UNAVAIL;
	}
	if (rc != 0) {
		pam_syslog(pamh, LOG_ERR, "\"%s\": %s", path, rc == OTP_EIO ?
		    strerror(errno) : otp_strerror(rc));
		return PAM_AUTHINFO_UNAVAIL;
	}
	if ((rc = otp_otpw_parse(img, len, &w, &line)) != 0) {
		pam_syslog(pamh, LOG_ERR, "\"%s\": line %zu: %s", path, line,
		    otp_strerror(rc));
		pamrc = PAM_AUTHINFO_UNAVAIL;
		goto out;
	}
	d->entries = w.entries;
	d->remaining = w.remaining;
	if ((pamrc = choose(pamh, a, path, img, &w, &c, &locked)) !=
	    PAM_SUCCESS)
		goto out;
	if (a->debug)
		pam_syslog(pamh, LOG_DEBUG, "debug: challenge %s", c.text);
	if ((resp = ask(pamh, c.text)) == NULL) {
		pamrc = PAM_AUTHINFO_UNAVAIL;
		goto out;
	}
	/* As the original: the answer is left for the modules below. */
	(void)pam_set_item(pamh, PAM_AUTHTOK, resp);
	rc = sys_otpw_consume(path, (unsigned long)uid, &c, resp, &w);
	if (rc == 1) {
		d->remaining = w.remaining;
		pamrc = PAM_SUCCESS;
		pam_syslog(pamh, LOG_INFO, "accepted password %s for \"%s\"; "
		    "%u of %u left", c.text, user, w.remaining, w.entries);
	} else if (rc == 0) {
		pamrc = PAM_AUTH_ERR;
		pam_syslog(pamh, LOG_NOTICE, "incorrect password from user %s",
		    user);
	} else {
		/* Right or not, it could not be marked used: an accepted
		 * password that stays unused could be replayed. */
		pamrc = PAM_AUTHINFO_UNAVAIL;
		pam_syslog(pamh, LOG_ERR, "\"%s\": cannot check and mark "
		    "password %s: %s; login refused", path, c.text,
		    rc == OTP_EIO ? strerror(errno) : otp_strerror(rc));
	}
out:
	if (locked && sys_otpw_unlock(path) != 0)
		pam_syslog(pamh, LOG_WARNING, "cannot remove \"%s.lock\": %s",
		    path, strerror(errno));
	pamotp_free_secret(resp);
	otp_wipe(img, len);
	return pamrc;
}

int
pamotp_otpw_authenticate(pam_handle_t *pamh, int flags, int argc,
    const char **argv)
{
	struct otpw_args a;
	struct otpw_data *d;
	struct passwd pwbuf, *pw = NULL;
	char buf[PAMOTP_PW_BUF], path[PATH_MAX], *img;
	const char *user = NULL;
	uid_t old_uid;
	gid_t old_gid;
	int rc;

	(void)flags;
	if (parse_args(pamh, argc, argv, &a) != 0)
		return PAM_AUTH_ERR;
	rc = pam_get_user(pamh, &user, NULL);
	if (rc == PAM_CONV_AGAIN)
		return PAM_INCOMPLETE;
	if (rc != PAM_SUCCESS || user == NULL || *user == '\0') {
		pam_syslog(pamh, LOG_NOTICE, "no user name provided");
		return PAM_USER_UNKNOWN;
	}
	if (getpwnam_r(user, &pwbuf, buf, sizeof(buf), &pw) != 0 ||
	    pw == NULL) {
		pam_syslog(pamh, LOG_NOTICE, "no such user \"%s\"", user);
		return PAM_USER_UNKNOWN;
	}
	if (pw->pw_dir == NULL || pw->pw_dir[0] != '/' ||
	    (size_t)snprintf(path, sizeof(path), "%s/" OTPW_FILE,
	    pw->pw_dir) >= sizeof(path)) {
		pam_syslog(pamh, LOG_ERR, "home directory of \"%s\" is not a "
		    "usable absolute path", user);
		return PAM_AUTHINFO_UNAVAIL;
	}
	if (a.debug)
		pam_syslog(pamh, LOG_DEBUG, "debug: start for \"%s\", \"%s\"",
		    user, path);
	/* The session reports on this login: kept with the handle. */
	if ((d = calloc(1, sizeof(*d))) == NULL ||
	    pam_set_data(pamh, DATA_NAME, d, free_data) != PAM_SUCCESS) {
		free(d);
		pam_syslog(pamh, LOG_ERR, "out of memory");
		return PAM_AUTHINFO_UNAVAIL;
	}
	if ((img = malloc(OTP_OTPW_MAX)) == NULL) {
		pam_syslog(pamh, LOG_ERR, "out of memory");
		return PAM_AUTHINFO_UNAVAIL;
	}
	{
		struct pamotp_id id = { user, pw->pw_uid, pw->pw_gid };

		if (pamotp_become(pamh, &id, &old_uid, &old_gid) != 0) {
			free(img);
			return PAM_AUTHINFO_UNAVAIL;
		}
	}
	rc = login(pamh, &a, user, path, pw->pw_uid, d, img);
	if (pamotp_unbecome(pamh, old_uid, old_gid) != 0)
		rc = PAM_AUTH_ERR;
	free(img);
	if (a.debug)
		pam_syslog(pamh, LOG_DEBUG, "debug: end for \"%s\": %s", user,
		    pam_strerror(pamh, rc));
	return rc;
}

/* The session: how many passwords are left, as the original says it. */
PAM_EXTERN int
pam_sm_open_session(pam_handle_t *pamh, int flags, int argc,
    const char **argv)
{
	const void *data = NULL;
	const struct otpw_data *d;

	if (!pamotp_otpw_wanted(argc, argv))
		return PAM_IGNORE;	/* the other modes have no session */
	if (pam_get_data(pamh, DATA_NAME, &data) != PAM_SUCCESS ||
	    data == NULL) {
		pam_syslog(pamh, LOG_ERR, "no OTPW login in this session");
		return PAM_SESSION_ERR;
	}
	d = data;
	if (((unsigned)flags & PAM_SILENT) == 0 && d->entries > 0)
		(void)pam_info(pamh, "Remaining one-time passwords: %u of %u%s",
		    d->remaining, d->entries, d->remaining < d->entries / 2 ||
		    d->remaining < 20 ? " (time to print new ones with "
		    "otpw-gen)" : "");
	return PAM_SUCCESS;
}

PAM_EXTERN int
pam_sm_close_session(pam_handle_t *pamh, int flags, int argc,
    const char **argv)
{
	(void)pamh;
	(void)flags;
	return pamotp_otpw_wanted(argc, argv) ? PAM_SUCCESS : PAM_IGNORE;
}

/*
 * pam_common.c - the glue every mode of pam_otp.so shares: user ids, path
 * expansion, the file-system identity of the account whose file is read,
 * and wiping answers.  Thread-safe: setfsuid()/setfsgid() act on the
 * calling thread only, and no process-wide state is touched.
 */
#include <sys/fsuid.h>
#include <sys/types.h>

#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <security/pam_ext.h>
#include <security/pam_modules.h>

#include "otp.h"
#include "otp_radius.h"
#include "pam_otp.h"

int
pamotp_parse_uid(pam_handle_t *pamh, const char *name, uid_t *uid)
{
	struct passwd pwbuf, *pw = NULL;
	char buf[PAMOTP_PW_BUF];
	uint64_t n;

	/* A number is a uid, as the original module reads it. */
	if (otp_parse_u64(name, 0, INT_MAX, &n) == 0) {
		*uid = (uid_t)n;
		return 0;
	}
	if (getpwnam_r(name, &pwbuf, buf, sizeof(buf), &pw) != 0 ||
	    pw == NULL) {
		pamotp_log(pamh, LOG_ERR, "invalid option \"user=%s\": no such "
		    "user", name);
		return -1;
	}
	*uid = pw->pw_uid;
	return 0;
}

/*
 * "~" at the start or after a '/' and "${HOME}" become the home directory,
 * "${USER}" the user name; substituted text is not expanded again (as the
 * original module).
 */
int
pamotp_expand_path(const char *spec, const char *user, const char *home,
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

/*
 * No account lookup vouches for a name (a RADIUS server passes on what the
 * network sent, and a users file's names need no account): where ${USER}
 * puts it in a path, it must be a plain login name, never a path.
 */
int
pamotp_user_in_path(pam_handle_t *pamh, const char *spec, const char *user)
{
	if (spec == NULL || strstr(spec, "${USER}") == NULL ||
	    otp_user_check(user, NULL) == 0)
		return 0;
	pamotp_log(pamh, LOG_ERR, "user name \"%s\": %s", user,
	    otp_strerror(OTP_EUSERNAME));
	return -1;
}

/*
 * Files are opened and created as the account (NFS homes, root-squash, the
 * owner of the temporary file), as the original module does.  setfsuid()
 * returns the previous value whether or not it worked; asking again with
 * -1 tells.
 */
int
pamotp_become(pam_handle_t *pamh, const struct pamotp_id *id,
    uid_t *old_uid, gid_t *old_gid)
{
	*old_gid = (gid_t)setfsgid(id->gid);
	if ((gid_t)setfsgid((gid_t)-1) != id->gid) {
		(void)setfsgid(*old_gid);
		pamotp_log(pamh, LOG_ERR, "cannot switch to group id %lu of "
		    "\"%s\"", (unsigned long)id->gid, id->user);
		return -1;
	}
	*old_uid = (uid_t)setfsuid(id->uid);
	if ((uid_t)setfsuid((uid_t)-1) != id->uid) {
		(void)setfsuid(*old_uid);
		(void)setfsgid(*old_gid);
		pamotp_log(pamh, LOG_ERR, "cannot switch to user id %lu of "
		    "\"%s\"", (unsigned long)id->uid, id->user);
		return -1;
	}
	return 0;
}

int
pamotp_unbecome(pam_handle_t *pamh, uid_t old_uid, gid_t old_gid)
{
	/* The uid first: changing the gid back may need its privilege. */
	(void)setfsuid(old_uid);
	(void)setfsgid(old_gid);
	if ((uid_t)setfsuid((uid_t)-1) != old_uid ||
	    (gid_t)setfsgid((gid_t)-1) != old_gid) {
		pamotp_log(pamh, LOG_CRIT, "cannot switch back to file-system "
		    "user id %lu, group id %lu", (unsigned long)old_uid,
		    (unsigned long)old_gid);
		return -1;
	}
	return 0;
}

void
pamotp_free_secret(char *s)
{
	if (s != NULL) {
		otp_wipe(s, strlen(s));
		free(s);
	}
}

int
pamotp_common_arg(const char *arg, int *debug, enum pass_mode *pass)
{
	if (strcmp(arg, "debug") == 0)
		*debug = 1;
	else if (strcmp(arg, "try_first_pass") == 0)
		*pass = PASS_TRY;
	else if (strcmp(arg, "use_first_pass") == 0)
		*pass = PASS_USE;
	else
		return 0;
	return 1;
}

void
pamotp_log(pam_handle_t *pamh, int prio, const char *fmt, ...)
{
	char msg[1024], out[4 * sizeof(msg)];
	const unsigned char *p;
	size_t o = 0;
	va_list ap;

	if (pamh == NULL)
		return;
	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* At most 4 bytes out for each byte in: out always has room. */
	for (p = (const unsigned char *)msg; *p != '\0'; p++) {
		if (*p < 0x20 || *p == 0x7f) {
			(void)snprintf(out + o, sizeof(out) - o, "\\%03o", *p);
			o += 4;
		} else if (*p == '\\') {
			out[o++] = '\\';
			out[o++] = '\\';
		} else
			out[o++] = (char)*p;
	}
	out[o] = '\0';
	pam_syslog(pamh, prio, "%s", out);
}

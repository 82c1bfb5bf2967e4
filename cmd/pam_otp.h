/*
 * pam_otp.h - what the files of the PAM module share (not installed).
 *
 * pam_otp.so is built from every cmd/pam_*.c: pam_otp.c holds the PAM
 * entry points and the one login over every store (lib/sys/store.h);
 * pam_common.c the glue declared here: identities, path expansion,
 * secrets from the conversation.
 */
#ifndef PAM_OTP_H
#define PAM_OTP_H

#include <sys/types.h>

#include <security/pam_modules.h>

/* Shared between the module's files, never exported from pam_otp.so. */
#pragma GCC visibility push(hidden)

#define PAMOTP_PW_BUF	4096	/* getpw*_r scratch space */

/* The account whose file a login reads, and its file-system identity. */
struct pamotp_id {
	const char	*user;
	uid_t		 uid;
	gid_t		 gid;
};

/* Where the answer comes from (try_first_pass, use_first_pass). */
enum pass_mode {
	PASS_PROMPT,		/* ask for the code */
	PASS_TRY,		/* try PAM_AUTHTOK first, then ask */
	PASS_USE,		/* PAM_AUTHTOK only, never ask */
};

/* The arguments every mode takes alike (debug, try_first_pass,
 * use_first_pass) into *debug and *pass: 1 when arg was one, else 0. */
int	pamotp_common_arg(const char *arg, int *debug, enum pass_mode *pass);

/* user= as a number or a name -> *uid; 0, or -1 (logged). */
int	pamotp_parse_uid(pam_handle_t *pamh, const char *name, uid_t *uid);
/* Expand ~, ${HOME} and ${USER} in spec (home NULL when unknown); 0, -1
 * when the result does not fit or is empty, -2 when home is needed. */
int	pamotp_expand_path(const char *spec, const char *user,
	    const char *home, char *out, size_t outsz);
/* 0 when spec puts no ${USER} in a path or user is a plain login name
 * (otp_user_check); else -1, logged. */
int	pamotp_user_in_path(pam_handle_t *pamh, const char *spec,
	    const char *user);
/* Take id's file-system uid and gid (this thread only); 0, or -1 (logged,
 * nothing changed).  *old_uid and *old_gid get what to give back. */
int	pamotp_become(pam_handle_t *pamh, const struct pamotp_id *id,
	    uid_t *old_uid, gid_t *old_gid);
/* Give back what pamotp_become took; 0, or -1 (logged). */
int	pamotp_unbecome(pam_handle_t *pamh, uid_t old_uid, gid_t old_gid);
/* Wipe and free a string that held an answer (NULL is fine). */
void	pamotp_free_secret(char *s);
/* pam_syslog() with each control byte of the message written \ooo and
 * each backslash doubled: a user name or path from outside stays on its
 * one line of the log.  Nothing when pamh is NULL. */
void	pamotp_log(pam_handle_t *pamh, int prio, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));

#pragma GCC visibility pop

#endif /* PAM_OTP_H */

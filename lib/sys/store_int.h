/*
 * store_int.h - inside the stores (lib/sys/ only, never cmd/): the table
 * row each store fills (struct sys_store_ops), the open store and login
 * every store shares, and the file engines the stores are built on.
 */
#ifndef OTP_STORE_INT_H
#define OTP_STORE_INT_H

#include <limits.h>

#include "store.h"
#include "sys.h"

/* One store: its scheme, what it is like, and its operations.  A NULL
 * operation is one the store does not have (OTP_EINVAL). */
struct sys_store_ops {
	const char	*scheme;
	unsigned	 caps;			/* SYS_STORE_* */
	const char	*prompt;		/* its peer module's, or NULL */
	int	(*put)(struct sys_store *s, const char *user,
		    const struct sys_record *r, int force, int *note);
	int	(*has)(struct sys_store *s, const char *user);
	int	(*load_state)(struct sys_store *s, const char *user,
		    struct otp_state *st);
	int	(*shape)(const char *code);
	const char	*want;			/* the shape, in words */
	const char	*badshape;		/* a refusal for another */
	/* A login: open sets l->impl; check may be NULL (begin, end). */
	int	(*login_open)(struct sys_login *l);
	int	(*begin)(struct sys_login *l, struct sys_verdict *v);
	int	(*peek)(struct sys_login *l, const struct otp_answer *a,
		    size_t n, struct sys_verdict *v);
	int	(*end)(struct sys_login *l, const struct otp_answer *a,
		    size_t n, struct sys_verdict *v);
	int	(*check)(struct sys_login *l, const struct otp_answer *a,
		    size_t n, struct sys_verdict *v);
	int	(*challenge)(struct sys_login *l, const char *text);
	void	(*login_free)(struct sys_login *l);
	/* The store as a whole: open sets s->impl (url is the whole URL);
	 * close frees it; the administration calls of store.h. */
	int	(*open)(struct sys_store *s, const char *url);
	void	(*close)(struct sys_store *s);
	int	(*init)(struct sys_store *s, int *made);
	int	(*list)(struct sys_store *s, sys_store_each_fn *fn, void *arg);
	int	(*remove)(struct sys_store *s, const char *user);
	int	(*enable)(struct sys_store *s, const char *user, int on);
	int	(*export)(struct sys_store *s, const char *user, char *img,
		    size_t imgsz, size_t *len);
	int	(*resync)(struct sys_store *s, const char *user,
		    const char *const *codes, size_t n, int64_t *moved);
	int	(*unlock)(struct sys_store *s, const char *user);
	int	(*reseal)(struct sys_store *s, unsigned long *n);
	int	(*log)(struct sys_store *s, const char *user, int64_t since,
		    sys_store_log_fn *fn, void *arg);
	int	(*prune)(struct sys_store *s, int64_t before,
		    unsigned long *n);
};

/* The entry point of a loadable store: its table row, or NULL when the
 * caller was built with other structures than the object (abi). */
typedef const struct sys_store_ops *sys_store_entry_fn(unsigned long abi);
#define SYS_STORE_ENTRY		"otp_store_pg_ops"
#define SYS_STORE_ABI		((unsigned long)(1000000u * 1 + \
	sizeof(struct sys_store) * 1000u + sizeof(struct sys_login)) ^ \
	((unsigned long)sizeof(struct sys_verdict) << 32))

struct sys_store {
	const struct sys_store_ops	*ops;
	struct sys_store_cfg		 cfg;
	char				 path[PATH_MAX];	/* for a
					 * URL: the URL without its password */
	char				 reason[512];
	void				*impl;		/* the store's own */
};

struct sys_login {
	struct sys_store	*s;
	char			 user[OTP_USERS_FIELD_MAX];
	int			 err;		/* errno of the last failure */
	size_t			 fault_line;
	const char		*fault_opt;
	unsigned		 cycles;	/* when impl does not count */
	char			 reason[512];	/* sys_login_reason() */
	void			*impl;		/* the store's own */
};

extern const struct sys_store_ops sys_store_ga, sys_store_oath,
    sys_store_otpw;

/* The state file engine's outcome as a verdict (store_ga.c; the
 * database store runs the same engine). */
void sys_state_verdict(const struct otp_state_result *r,
    struct sys_verdict *v);

/* ---- the state file and the login protocol (lib/sys/statefile.c) ----- */

/* One login on one state file (opaque; its buffers hold secrets). */
struct sys_ga;

/* A login on the file at path, checked as o says, at now (SYS_NOW_REAL:
 * the clock when the file is locked); NULL when out of memory. */
struct sys_ga *sys_ga_new(const char *path,
    const struct otp_state_opts *o, int64_t now);
/* Check and report, but write nothing (a dry run). */
void sys_ga_dry(struct sys_ga *l);
/* The login's start, before any prompt: grace period and RATE_LIMIT. */
int sys_ga_begin(struct sys_ga *l, struct otp_state_result *r);
/* What answers would give on the file as the last cycle left it: no lock,
 * nothing written (whether to prompt after PAM_AUTHTOK). */
int sys_ga_peek(struct sys_ga *l, const struct otp_answer *a,
    size_t n, struct otp_state_result *r);
/* The login's end: every answer's readings, the HOTP move, one write. */
int sys_ga_end(struct sys_ga *l, const struct otp_answer *a,
    size_t n, struct otp_state_result *r);
/* Start and end in one cycle, for answers known before the start. */
int sys_ga_check(struct sys_ga *l, const struct otp_answer *a,
    size_t n, struct otp_state_result *r);
/* An administrator's resync (otp_state_resync) in one locked cycle:
 * written unless dry; *moved as otp_state_resync says. */
int sys_ga_resync(struct sys_ga *l, const char *const *codes, size_t n,
    int64_t *moved);
/* errno of the last OTP_EIO, OTP_ELOCK or OTP_EREADONLY. */
int sys_ga_errno(const struct sys_ga *l);
/* Where a malformed file failed: line (0 unknown) and option (NULL for
 * none), as otp_state_fault() says; never a byte of the file. */
void sys_ga_fault(const struct sys_ga *l, size_t *line,
    const char **opt);
/* Lock-and-read cycles so far. */
unsigned sys_ga_cycles(const struct sys_ga *l);
/* Wipe and free l (NULL is fine). */
void sys_ga_free(struct sys_ga *l);

/* Read path with the login's checks (owner, mode, type) into img
 * (imgsz >= OTP_STATE_MAX), writing nothing; *len its length. */
int sys_statefile_read(const char *path, const struct otp_state_opts *o,
    char *img, size_t imgsz, size_t *len);
/* Read and parse path with the login's checks, writing nothing. */
int sys_statefile_load(const char *path, const struct otp_state_opts *o,
    struct otp_state *st);
/* Create path with img, mode 0400, atomically; an existing path is
 * OTP_ESTATEEXIST unless force, which replaces only a regular file. */
int sys_statefile_create(const char *path, const char *img, size_t len,
    int force);
/* ---- OATH Toolkit's users file (lib/sys/usersfile.c) ---------------- */

/* Check code for user (typed prefix password) against the users file at
 * path as pam_oath does, under both locks, and record an accept (not when
 * dry); now may be SYS_NOW_REAL; c's oath rules (group_read, unshared,
 * deny, unlock_time) and linger (c->ga: linger, rhost), answer the whole
 * text the password and code came from.  0 and r, or OTP_E* (errno for
 * EIO). */
int sys_users_check(const char *path, const struct sys_store_cfg *c,
    const char *user, const char *answer, const char *password,
    const char *code, struct otp_users_result *r);
/* Add t's line to path (a new file is 0600), or replace the user's lines;
 * every other byte, the owner and the mode kept. */
int sys_users_set(const char *path, const struct otp_users_token *t,
    int replace);
/* The first token line of user in the file at path into *t (no lock: the
 * file is only replaced by a rename): 1, 0 when there is none, OTP_E*. */
int sys_users_get(const char *path, const char *user, int group_read,
    struct otp_users_token *t);
/* otp_users_each() over the file at path (no lock: it is only replaced
 * by a rename). */
int sys_users_each(const char *path, int group_read, otp_users_each_fn *fn,
    void *arg);
/* 1 if path has a token line for user, 0 if not, OTP_E* (no lock taken);
 * group_read: a group-readable file is taken. */
int sys_users_has_user(const char *path, const char *user, int group_read);
/* ---- OTPW files and their lock symlink (lib/sys/otpwfile.c) ---------- */

#define SYS_OTPW_ANYUID		SYS_OWNER_ANY

/* Read the OTPW file at path (no symlink, a regular file owned by uid and
 * writable by nobody else) into img; *len its length.  OTP_EOTPW*, EIO. */
int sys_otpw_load(const char *path, unsigned long uid, char *img,
    size_t imgsz, size_t *len);
/* Take the lock symlink path.lock -> chal as a login does: 0 taken, 1 held
 * by another login (its target in held), a lock older than age seconds
 * removed (a login that died at its prompt). */
int sys_otpw_lock(const char *path, const char *chal, unsigned age,
    char *held, size_t heldsz);
/* Remove path.lock; 0, or OTP_EIO with errno (ENOENT: there was none). */
int sys_otpw_unlock(const char *path);
/* What linger= needs of a login that keeps its records in a file of its
 * own (an OTPW list's PATH.linger). */
struct sys_linger {
	unsigned	 secs;		/* linger=, 0 off */
	const char	*user;
	const char	*client;	/* PAM_RHOST */
	int64_t		 now;		/* or SYS_NOW_REAL */
};

/* Under a flock, read path again, check resp against chal's entries and
 * mark them used by an atomic rename; 1 accepted, 0 not, or OTP_E*.  With
 * lg (NULL: none), resp lingering in PATH.linger, while that is bound to
 * the list as it is, is 2 (nothing marked), and an accept adds it there
 * (mode 0600, the list's owner), bound to the list it wrote. */
int sys_otpw_consume(const char *path, unsigned long uid,
    const struct otp_otpw_chal *chal, const char *resp,
    const struct sys_linger *lg, struct otp_otpw *w);
/* Create path with img, mode 0600, atomically (OTP_ESTATEEXIST unless
 * force) and remove a lock left for the old list (*unlocked says so) and
 * the old list's lingering answers. */
int sys_otpw_create(const char *path, const char *img, size_t len,
    int force, int *unlocked);

#endif /* OTP_STORE_INT_H */

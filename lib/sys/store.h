/*
 * store.h - where tokens live, behind one interface: the system floor's
 * stores, named by URL, and the one login protocol over them.
 *
 *	ga:PATH		a Google Authenticator state file (one user's)
 *	oath:PATH	OATH Toolkit's users file (many users, otp-users(5))
 *	otpw:PATH	an OTPW password list (one user's)
 *	postgresql://...	a PostgreSQL database (many users', shared by
 *			many verifiers; libpq's URI, postgres:// too)
 *
 * lib/sys/store.c holds the table that finds a store's operations by
 * scheme (struct sys_store_ops, lib/sys/store_int.h); each store is a
 * file of its own (store_ga.c, store_oath.c, store_otpw.c) over its
 * file engine; the PostgreSQL store is a loadable object of its own
 * (lib/sys/pg/, store-pg.so, the only code that links libpq), which
 * store.c loads when a URL names it.  Front ends call only what this header declares, never a
 * store's own functions, so a new store is one more row of the table.
 *
 * Conventions as in sys.h: 0 on success, a negative OTP_E* code on
 * failure; sys_login_errno() gives errno for OTP_EIO, OTP_ELOCK and
 * OTP_EREADONLY.  Nothing here prints, exits or changes process-wide
 * state: pam_otp.so runs it in threaded hosts.
 */
#ifndef OTP_STORE_H
#define OTP_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "otp.h"
#include "otp_otpw.h"
#include "otp_state.h"
#include "otp_users.h"

#define SYS_NOW_REAL	INT64_MIN	/* the clock, read once locked */
#define SYS_OWNER_ANY	((unsigned long)-1)	/* otpw: skip owner check */

/* What a front end sets of a store's rules; each store reads its own. */
struct sys_store_cfg {
	struct otp_state_opts ga;	/* ga: flags, allowed_perm, owner,
					 * grace_period, rhost; every store:
					 * linger (needs rhost) */
	unsigned	window;		/* oath: steps or counters either
					 * side (OTP_USERS_WINDOW) */
	unsigned	digits;		/* oath: an answer longer than this
					 * is a PIN then the code; 0 none */
	unsigned long	owner;		/* otpw: the file's owner, or
					 * SYS_OWNER_ANY */
	int		nolock;		/* otpw: take no lock symlink */
	unsigned	lock_age;	/* otpw: seconds after which another
					 * login's lock is stale; 0 for
					 * SYS_OTPW_LOCK_AGE */
	int		group_read;	/* oath: take a group-readable file */
	int		unshared;	/* oath: no pam_oath shares the file:
					 * no linger on FILE.lock */
	int		deny;		/* oath: wrong codes in a row that
					 * lock a user out; 0 for
					 * SYS_USERS_DENY, < 0 no limit */
	unsigned	unlock_time;	/* oath: seconds a lock-out lasts; 0
					 * for SYS_USERS_UNLOCK */
	int		dry;		/* decide, record nothing */
	int64_t		now;		/* or SYS_NOW_REAL */
	const char	*store_key;	/* postgresql: the store key file,
					 * NULL for SYS_STORE_KEY */
	const char	*module;	/* postgresql: the object to load,
					 * NULL: the build tree's (pg_load in
					 * store.c), else SYS_STORE_PGMODULE */
	unsigned	deadline_ms;	/* postgresql: a login's deadline,
					 * 0 for SYS_STORE_DEADLINE */
	const char	*origin;	/* postgresql: who asks, for the
					 * audit trail after the host's name
					 * (the remote host, a RADIUS NAS);
					 * NULL for none */
};

/* Where the PostgreSQL store's key and module are, unless told. */
#ifndef SYS_STORE_KEY
#define SYS_STORE_KEY		"/etc/otp-utils/store.key"
#endif
#ifndef SYS_STORE_PGMODULE
#define SYS_STORE_PGMODULE	"/usr/local/lib/otp-utils/store-pg.so"
#endif
#define SYS_STORE_DEADLINE	3000	/* ms: connect, queries, commit */
#define SYS_OTPW_LOCK_AGE	300	/* s: longer than a login can last */
#define SYS_USERS_DENY		5	/* wrong codes in a row, then... */
#define SYS_USERS_UNLOCK	600	/* ...s locked out (as pam_faillock) */

/* Defaults: the engines' own (ga's otp_state_opts_init, oath's window
 * of 5, the effective uid as owner), the real clock. */
void sys_store_cfg_init(struct sys_store_cfg *c);

/* Whose rules an option of sys_store_option() sets. */
enum sys_opt_kind {
	SYS_OPT_NONE,		/* not a store option */
	SYS_OPT_GA,		/* the state file's (and a database's) */
	SYS_OPT_OATH,		/* the users file's */
	SYS_OPT_OTPW,		/* the OTPW list's */
	SYS_OPT_LIMIT,		/* the attempt limit: a users file's and a
				 * database's */
	SYS_OPT_ALL,		/* every store's (linger=) */
};

/* Read one option as pam_otp.so takes it ("window=3", "nolock",
 * "store_key=/PATH": the values point into a) into c: its SYS_OPT_* kind,
 * SYS_OPT_NONE when a sets no store rule, or OTP_EINVAL with *why saying
 * what the value must be (c is then unchanged but for that field). */
int sys_store_option(struct sys_store_cfg *c, const char *a,
    const char **why);

/* What a store is like (sys_store_caps()): what its peer's login
 * module does, which pam_otp.so follows for each. */
#define SYS_STORE_MANY		0x01	/* holds many users' tokens */
#define SYS_STORE_CHALLENGE	0x02	/* asks a challenge (OTPW) */
#define SYS_STORE_EARLYUNKNOWN	0x04	/* "no token" is told before any
					 * prompt (pam_oath) */
#define SYS_STORE_UNAVAIL	0x08	/* a store that cannot be used is
					 * "unavailable", not a refusal */
#define SYS_STORE_SCRATCH	0x10	/* holds emergency scratch codes */
#define SYS_STORE_TOKENLINE	0x20	/* a new token is a users-file line
					 * (sys_record.token), not an image */
#define SYS_STORE_SHARED	0x40	/* a database many verifiers share:
					 * rows, not files; no file modes */

struct sys_store;	/* an open store (opaque) */
struct sys_login;	/* one login on one user's token (opaque; secrets) */

/* Open the store url names with c (NULL: defaults).  OTP_ESTORESCHEME
 * for a scheme no store has, OTP_ESTOREURL for no path, OTP_ENOMEM.
 * Nothing is read yet. */
int sys_store_open(const char *url, const struct sys_store_cfg *c,
    struct sys_store **sp);
/* 1 when url names a store (has one of the schemes), else 0. */
int sys_store_is_url(const char *url);
/* url as messages show it, into out (truncated to outsz): a
 * postgresql:// URL without its password, be it user:password@ or a
 * query parameter libpq reads as one (password, sslpassword, their
 * names percent-encoded or not); any other URL as it is.  What
 * sys_store_path() gives for a database. */
void sys_store_url_shown(const char *url, char *out, size_t outsz);
/* url with each ${USER} replaced by user into out: 0, or OTP_ETOOLONG.
 * Only a name otp_user_check() passes belongs in a file's path: the
 * caller checks it (a database's URL is used as written). */
int sys_store_url_user(const char *url, const char *user, char *out,
    size_t outsz);
/* Why the last sys_store_open() of this thread gave OTP_ESTOREMODULE:
 * the object tried and the loader's words (dlerror); "" if none. */
const char *sys_store_load_error(void);
/* The scheme ("ga", "oath", "otpw") and the path, for messages. */
const char *sys_store_scheme(const struct sys_store *s);
const char *sys_store_path(const struct sys_store *s);
/* SYS_STORE_* bits. */
unsigned sys_store_caps(const struct sys_store *s);
/* The prompt its peer module asks with, a format whose one %s is the
 * user name (oath) or the challenge (otpw); NULL: the front end's own. */
const char *sys_store_prompt(const struct sys_store *s);
/* Close s (NULL is fine). */
void sys_store_close(struct sys_store *s);
/* Why the last open, put or administration call failed, in words that
 * name no secret (a database's message, the module's load error); "" if
 * nothing more is known. */
const char *sys_store_reason(const struct sys_store *s);

/* A new token for a store: the whole new file for the one-user stores
 * (ga, otpw: img[0..len)), the user's line for a users file (token). */
struct sys_record {
	const char			*img;
	size_t				 len;
	const struct otp_users_token	*token;
};

/* Put r in s for user: a new file (mode 0400 for ga, 0600 otherwise),
 * or the user's line; an existing one is OTP_ESTATEEXIST (oath:
 * OTP_EUSERSEXIST) unless force.  *note (may be NULL) gets 1 when a lock
 * an old list left was removed (otpw). */
int sys_store_put(struct sys_store *s, const char *user,
    const struct sys_record *r, int force, int *note);
/* 1 when s holds a token for user, 0 when not, or OTP_E*; no lock. */
int sys_store_has(struct sys_store *s, const char *user);
/* What s holds for user, read only: a state file parsed into *st (ga;
 * OTP_EINVAL for the other stores). */
int sys_store_load_state(struct sys_store *s, const char *user,
    struct otp_state *st);
/* 0 when code has a shape the store takes (checked before any file is
 * read), else OTP_ECODE; *want (may be NULL) says what it takes. */
int sys_store_code_shape(const struct sys_store *s, const char *code,
    const char **want);
/* The reason a login gives for an answer of another shape. */
const char *sys_store_shape_why(const struct sys_store *s);

/* Administration (otp-store(1)); OTP_ESTOREOP where a store has none. */
struct sys_store_entry {
	const char	*user;		/* not NUL-terminated: userlen bytes */
	size_t		 userlen;
	const char	*kind;		/* "totp", "hotp" */
	int		 disabled;
	unsigned	 nscratch;	/* unused scratch codes */
	int64_t		 created;	/* seconds since the epoch */
	int64_t		 last_used;	/* or -1: never */
	uint64_t	 uses;		/* accepts so far */
	unsigned	 failures;	/* wrong answers since the last
					 * accept (a database's) */
	int64_t		 locked_until;	/* a lock-out's end, 0: none */
	const char	*last_from;	/* where the last accept came from,
					 * NULL: not known */
};
typedef int sys_store_each_fn(void *arg, const struct sys_store_entry *e);

/* One entry of a database's audit trail (sys_store_log()). */
struct sys_store_logent {
	int64_t		 at;		/* seconds since the epoch */
	const char	*user;		/* not NUL-terminated: userlen bytes */
	size_t		 userlen;
	const char	*server;	/* who decided, for whom; "" unknown */
	const char	*outcome;	/* accept, refuse, error, admin */
	const char	*reason;	/* never a code */
};
typedef int sys_store_log_fn(void *arg, const struct sys_store_logent *e);
/* Make the store ready: the schema, the store key file (created, mode
 * 0600, when missing: *made says so). */
int sys_store_init(struct sys_store *s, int *made);
/* fn for each token in s, in order of user (a users file: in its order,
 * a user with several tokens several times), until fn returns non-zero
 * (returned); never a secret. */
int sys_store_list(struct sys_store *s, sys_store_each_fn *fn, void *arg);
/* Remove user's token; OTP_EUSERSUNKNOWN when there is none. */
int sys_store_remove(struct sys_store *s, const char *user);
/* Disable (on 0) or enable user's token; OTP_EUSERSUNKNOWN. */
int sys_store_enable(struct sys_store *s, const char *user, int on);
/* An administrator's resync from codes[0..n) (2 or 3 in a row) under the
 * store's lock: TOTP, the clock skew found within a day; HOTP, the counter
 * within 10000 either side (otp_state_resync); *moved the new skew or how
 * far the counter moved (< 0: back); OTP_ERESYNC when the codes fit no
 * place or more than one. */
int sys_store_resync(struct sys_store *s, const char *user,
    const char *const *codes, size_t n, int64_t *moved);
/* Clear user's failures and lock-out; OTP_EUSERSUNKNOWN. */
int sys_store_unlock(struct sys_store *s, const char *user);
/* Seal every token anew with a generation above any a host has seen (after
 * a backup is restored); *n gets how many. */
int sys_store_reseal(struct sys_store *s, unsigned long *n);
/* fn for each audit entry, oldest first, of user (NULL: everyone's) at
 * since or later, until fn returns non-zero (returned). */
int sys_store_log(struct sys_store *s, const char *user, int64_t since,
    sys_store_log_fn *fn, void *arg);
/* Remove the audit entries older than before; *n gets how many. */
int sys_store_prune(struct sys_store *s, int64_t before, unsigned long *n);
/* user's token with its state as a state file image (its scratch codes
 * only where the store can give them back), read only. */
int sys_store_export(struct sys_store *s, const char *user, char *img,
    size_t imgsz, size_t *len);

/* How a login ended (sys_verdict.how). */
enum sys_how {
	SYS_BY_NONE,		/* refused */
	SYS_BY_CODE,		/* a TOTP/HOTP/mOTP code */
	SYS_BY_SCRATCH,		/* an emergency scratch code, now used */
	SYS_BY_GRACE,		/* a grace period, no code asked */
	SYS_BY_LIST,		/* an OTPW password, now used */
	SYS_BY_LINGER,		/* an answer accepted before, lingering
				 * for this client (linger=), no code */
};

/* A login's outcome, and what to ask. */
struct sys_verdict {
	int		accepted;
	enum sys_how	how;
	int		decided;	/* no answer can change it now */
	int		unknown;	/* the store holds no token for the
					 * user (a missing file included) */
	const char	*why;		/* a refusal's reason, NULL if none */
	int64_t		offset;		/* steps or counters from expected */
	uint64_t	counter;	/* matched step or counter */
	int64_t		skew;		/* ga: TIME_SKEW in force after */
	int		changed;	/* the store was to change */
	int		recorded;	/* and the change was written */
	size_t		answer;		/* the answer that decided */
	size_t		restlen;	/* its text before the code: what a
					 * split answer hands on */
	size_t		line;		/* oath: the token's line */
	unsigned	remaining;	/* otpw: unused passwords left */
	unsigned	entries;	/* otpw: passwords in the list */
	char		challenge[OTP_OTPW_CHAL_MAX];	/* otpw: asked */
};

/* A login on user's token in s (user: ignored by one-user stores); no
 * file is read yet.  OTP_ENOMEM, OTP_EUSERSFIELD for an unfit name. */
int sys_login_open(struct sys_store *s, const char *user,
    struct sys_login **lp);
/* The login's start, before any prompt: whether the user has a token
 * (v->unknown), the challenge to ask, the grace period and RATE_LIMIT. */
int sys_login_begin(struct sys_login *l, struct sys_verdict *v);
/* What answers would give on the store as the start left it: nothing
 * written (whether to prompt after PAM_AUTHTOK; 0 and undecided where a
 * store cannot tell without recording). */
int sys_login_peek(struct sys_login *l, const struct otp_answer *a,
    size_t n, struct sys_verdict *v);
/* The login's end: the answers checked, the outcome recorded. */
int sys_login_end(struct sys_login *l, const struct otp_answer *a,
    size_t n, struct sys_verdict *v);
/* Start and end in one go, for answers known before the start. */
int sys_login_check(struct sys_login *l, const struct otp_answer *a,
    size_t n, struct sys_verdict *v);
/* errno of the last OTP_EIO, OTP_ELOCK or OTP_EREADONLY. */
int sys_login_errno(const struct sys_login *l);
/* More about the last failure or refusal where the store knows more (a
 * database's message, the deadline passed at connect or commit), never
 * a secret; "" when nothing. */
const char *sys_login_reason(const struct sys_login *l);
/* Where a malformed store failed: line (0 unknown) and option (NULL for
 * none); never a byte of its data. */
void sys_login_fault(const struct sys_login *l, size_t *line,
    const char **opt);
/* Answer the challenge text ("NNN" or "NNN/NNN/NNN") instead of the one
 * begin chooses (otpw); OTP_EOTPWUNKNOWN, OTP_EOTPWCHAL, OTP_ESTOREOP. */
int sys_login_challenge(struct sys_login *l, const char *text);
/* Lock-and-read cycles so far. */
unsigned sys_login_cycles(const struct sys_login *l);
/* End the login (a lock it holds is released), wipe and free it (NULL is
 * fine). */
void sys_login_free(struct sys_login *l);

#endif /* OTP_STORE_H */

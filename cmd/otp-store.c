/*
 * otp-store - administer the tokens in a store and copy them between
 * stores (otp-store(1)).  It reaches every store through the store
 * interface (lib/sys/store.h) and never prints a secret.
 */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "otp.h"
#include "otp_state.h"
#include "otp_users.h"
#include "store.h"

enum {
	OPT_STOREKEY = CLI_OPT_TOOL_BASE,
	OPT_FROMKEY,
	OPT_USER,
	OPT_TIMEOUT,
	OPT_SINCE,
	OPT_BEFORE,
	OPT_WINDOW,
};

static const struct option longopts[] = {
	CLI_STD_LONGOPTS,
	{ "before",		required_argument, NULL, OPT_BEFORE },
	{ "force",		no_argument,	   NULL, 'f' },
	{ "from-key",		required_argument, NULL, OPT_FROMKEY },
	{ "store-key",		required_argument, NULL, OPT_STOREKEY },
	{ "since",		required_argument, NULL, OPT_SINCE },
	{ "store-timeout",	required_argument, NULL, OPT_TIMEOUT },
	{ "user",		required_argument, NULL, OPT_USER },
	{ "window",		required_argument, NULL, OPT_WINDOW },
	{ NULL,			0,		   NULL, 0 }
};

#define USERS_MAX	1024	/* --user given at most this often */

struct opts {
	const char	*store_key;	/* the (destination) store's key */
	const char	*from_key;	/* copy: the source's, if another */
	unsigned	 deadline_ms;
	int		 force;
	int		 have_window;
	unsigned	 window;	/* copy: a users file's window= */
	const char	*users[USERS_MAX];
	size_t		 nusers;
	const char	*since;		/* log: --since's text */
	const char	*before;	/* prune: --before's text */
};

static void __attribute__((noreturn))
usage(void)
{
	printf("usage: otp-store [--store-key=FILE] init URL\n"
	    "       otp-store [--store-key=FILE] list URL\n"
	    "       otp-store [-f] [--store-key=FILE] [--from-key=FILE] "
	    "[--user=NAME]...\n"
	    "                 [--window=N] copy FROM TO\n"
	    "       otp-store [--store-key=FILE] remove|disable|enable URL "
	    "USER\n"
	    "       otp-store [--store-key=FILE] resync URL USER CODE1 CODE2 "
	    "[CODE3]\n"
	    "       otp-store [--store-key=FILE] unlock URL USER\n"
	    "       otp-store [--store-key=FILE] reseal URL\n"
	    "       otp-store log [--user=NAME] [--since=TIME] URL\n"
	    "       otp-store prune --before=TIME URL\n"
	    "\n"
	    "Administer the tokens of a store and copy them between stores "
	    "(ga:FILE,\n"
	    "oath:FILE, postgresql://...).  No secret is ever printed.\n"
	    "\n"
	    "  init                   make a database ready: its tables, "
	    "and the store key\n"
	    "                         file (created, mode 0600, when "
	    "missing); a store of\n"
	    "                         schema version 1 brought up to "
	    "version 2 in place\n"
	    "  list                   one line a token: user, kind, "
	    "enabled or disabled,\n"
	    "                         scratch codes left, uses, last use, "
	    "wrong codes since\n"
	    "                         the last accept, lock-out, where the "
	    "last use came from\n"
	    "  copy                   every token of FROM, or those of "
	    "--user, into TO with\n"
	    "                         its state (counters, used steps, "
	    "skew, scratch codes)\n"
	    "  remove, disable, enable  one user's token\n"
	    "  resync                 2 or 3 codes in a row from the user's "
	    "app: TOTP, the\n"
	    "                         clock's skew found within a day "
	    "(those codes are\n"
	    "                         used); HOTP, the counter found within "
	    "10000\n"
	    "                         either side, moved on or set back to "
	    "it\n"
	    "  unlock                 clear a user's wrong codes and "
	    "lock-out\n"
	    "  reseal                 seal every token anew above any "
	    "generation a server\n"
	    "                         has seen: after a backup is restored\n"
	    "  log                    the audit trail: time, user, server, "
	    "outcome, reason\n"
	    "  prune                  remove audit entries older than "
	    "--before\n"
	    "      --before=TIME      prune: entries before TIME (as --now "
	    "elsewhere)\n"
	    "  -f, --force            copy: replace a token TO has "
	    "already\n"
	    "      --store-key=FILE   the key file, default " SYS_STORE_KEY "\n"
	    "      --from-key=FILE    copy: the source database's key, if "
	    "another\n"
	    "      --since=TIME       log: entries at TIME or later\n"
	    "      --store-timeout=DUR  the deadline of each database call "
	    "(default 3s)\n"
	    "      --user=NAME        copy: this user's token (a file's: "
	    "its name in TO);\n"
	    "                         log: this user's entries\n"
	    "      --window=N         copy from a users file: the window= "
	    "pam_oath used\n"
	    "                         (default 5), kept as the token's "
	    "window\n"
	    "  -h, --help             show this help\n"
	    "  -V, --version          show the version\n");
	cli_exit(0);
}

/* Everything secret, wiped at exit on every path. */
static struct {
	char		 img[OTP_STATE_MAX];
	struct otp_state st;
} sec;

static void
wipe_secrets(void)
{
	otp_wipe(&sec, sizeof(sec));
}

static struct sys_store *
open_url(const struct opts *o, const char *url, const char *key, int source)
{
	struct sys_store_cfg c;
	struct sys_store *s;
	int rc;

	sys_store_cfg_init(&c);
	/* An administrator copies a user's file: read whoever owns it
	 * (a login still checks the owner). */
	if (source)
		c.ga.flags |= OTP_STATE_NOSTRICTOWNER;
	if (source && o->have_window)
		c.window = o->window;
	c.store_key = key;
	c.deadline_ms = o->deadline_ms;
	c.module = cli_store_module();
	if ((rc = sys_store_open(url, &c, &s)) != 0)
		cli_store_open_fail("", url, rc);
	return s;
}

/* A failed call on s: its error and what the store knows more, on
 * stderr (what, the path and the store's words escaped). */
static void
warn_fail(const struct sys_store *s, const char *what, int rc)
{
	const char *why = sys_store_reason(s);

	if (rc == OTP_EIO && *why == '\0')
		warn("%s: %s", cli_esc(sys_store_path(s)), cli_esc(what));
	else
		warnx("%s: %s: %s%s%s", cli_esc(sys_store_path(s)),
		    cli_esc(what), otp_strerror(rc), *why != '\0' ? ": " :
		    "", cli_esc(why));
}

static void __attribute__((noreturn))
fail(const struct sys_store *s, const char *what, int rc)
{
	warn_fail(s, what, rc);
	cli_exit(CLI_EXIT_ERR);
}

static int
count_one(void *arg, const struct sys_store_entry *e)
{
	(void)e;
	(*(size_t *)arg)++;
	return 0;
}

static int
do_init(const struct opts *o, const char *url)
{
	struct sys_store *s = open_url(o, url, o->store_key, 0);
	size_t n = 0;
	int rc, made = 0, was;

	/* Whether it was ready before: its tokens can be listed. */
	was = sys_store_list(s, count_one, &n) == 0;
	if ((rc = sys_store_init(s, &made)) != 0)
		fail(s, "init", rc);
	if (made)
		fprintf(stderr, "otp-store: store key %s written (mode 0600): "
		    "keep a copy where the database's backups are not\n",
		    o->store_key != NULL ? o->store_key : SYS_STORE_KEY);
	/* Tables there and a new key: made by hand (schema.sql), now
	 * keyed; else a second init, which writes nothing. */
	if (was && made)
		warnx("%s: its tables were there (%zu token%s): the new store "
		    "key is recorded in it", cli_esc(sys_store_path(s)), n,
		    n == 1 ? "" : "s");
	else if (was)
		warnx("%s: already initialised (%zu token%s): its tables "
		    "were there, and this store key is theirs",
		    cli_esc(sys_store_path(s)), n, n == 1 ? "" : "s");
	else
		warnx("%s: initialised", cli_esc(sys_store_path(s)));
	sys_store_close(s);
	return 0;
}

/* t as 2009-02-13T23:31:30Z into when. */
static void
utc(int64_t t, char *when, size_t n)
{
	struct tm tm;
	time_t tt = (time_t)t;

	if (gmtime_r(&tt, &tm) == NULL ||
	    strftime(when, n, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(when, n, "@%" PRId64, t);
}

/* What a listing has seen: tokens, and whether its store is a users
 * file (whose lines hold only the user and the kind). */
struct listing {
	size_t	n;
	int	line;
};

static int
list_one(void *arg, const struct sys_store_entry *e)
{
	struct listing *ls = arg;
	char when[32], until[32];

	ls->n++;
	/* Any bytes, as text a terminal and a script can take. */
	cli_esc_put(stdout, e->user, e->userlen);
	if (ls->line) {
		printf("\t%s\n", e->kind);
		return ferror(stdout) ? OTP_EIO : 0;
	}
	if (e->last_used < 0)
		snprintf(when, sizeof(when), "never");
	else
		utc(e->last_used, when, sizeof(when));
	/* The lock-out's end; one past is over (cleared at the next
	 * login), shown all the same. */
	if (e->locked_until == 0)
		snprintf(until, sizeof(until), "no");
	else
		utc(e->locked_until, until, sizeof(until));
	printf("\t%s\t%s\tscratch=%u\tuses=%" PRIu64 "\tlast=%s\t"
	    "fails=%u\tlocked=%s\tfrom=", cli_esc(e->kind), e->disabled ?
	    "disabled" : "enabled", e->nscratch, e->uses, when, e->failures,
	    until);
	if (e->last_from != NULL)
		cli_esc_put(stdout, e->last_from, strlen(e->last_from));
	else
		putchar('-');
	putchar('\n');
	return ferror(stdout) ? OTP_EIO : 0;
}

static int
log_one(void *arg, const struct sys_store_logent *e)
{
	char when[32];

	(void)arg;
	utc(e->at, when, sizeof(when));
	printf("%s\t", when);
	cli_esc_put(stdout, e->user, e->userlen);
	printf("\t%s\t%s\t%s\n", cli_esc(*e->server != '\0' ? e->server :
	    "-"), cli_esc(e->outcome), cli_esc(e->reason));
	return ferror(stdout) ? OTP_EIO : 0;
}

static int
do_log(const struct opts *o, const char *url)
{
	struct sys_store *s = open_url(o, url, o->store_key, 0);
	int64_t since = o->since != NULL ? cli_time("--since", o->since) : 0;
	int rc;

	if ((rc = sys_store_log(s, o->nusers > 0 ? o->users[0] : NULL, since,
	    log_one, NULL)) != 0)
		fail(s, "log", rc);
	sys_store_close(s);
	return 0;
}

static int
do_prune(const struct opts *o, const char *url)
{
	struct sys_store *s = open_url(o, url, o->store_key, 0);
	int64_t before = cli_time("--before", o->before);
	unsigned long n;
	int rc;

	if ((rc = sys_store_prune(s, before, &n)) != 0)
		fail(s, "prune", rc);
	fprintf(stderr, "otp-store: %lu audit entr%s removed\n", n,
	    n == 1 ? "y" : "ies");
	sys_store_close(s);
	return 0;
}

static int
do_reseal(const struct opts *o, const char *url)
{
	struct sys_store *s = open_url(o, url, o->store_key, 0);
	unsigned long n;
	int rc;

	if ((rc = sys_store_reseal(s, &n)) != 0)
		fail(s, "reseal", rc);
	fprintf(stderr, "otp-store: %lu token%s sealed anew\n", n,
	    n == 1 ? "" : "s");
	sys_store_close(s);
	return 0;
}

static int
do_list(const struct opts *o, const char *url)
{
	struct sys_store *s = open_url(o, url, o->store_key, 0);
	struct listing ls = { 0, 0 };
	int rc;

	ls.line = (sys_store_caps(s) & SYS_STORE_TOKENLINE) != 0;
	if ((rc = sys_store_list(s, list_one, &ls)) != 0)
		fail(s, "list", rc);
	if (ls.n == 0)
		warnx("%s: no tokens", cli_esc(sys_store_path(s)));
	sys_store_close(s);
	return 0;
}

static int
do_user(const struct opts *o, const char *verb, const char *url,
    const char *user)
{
	struct sys_store *s = open_url(o, url, o->store_key, 0);
	int rc;

	if (*user == '\0')
		cli_usage_error("%s: an empty user name", verb);
	if (strcmp(verb, "remove") == 0)
		rc = sys_store_remove(s, user);
	else if (strcmp(verb, "unlock") == 0)
		rc = sys_store_unlock(s, user);
	else
		rc = sys_store_enable(s, user, strcmp(verb, "enable") == 0);
	if (rc == OTP_EUSERSUNKNOWN) {
		warnx("%s: '%s': no token", cli_esc(sys_store_path(s)),
		    cli_esc(user));
		sys_store_close(s);
		return 1;
	}
	if (rc != 0)
		fail(s, verb, rc);
	sys_store_close(s);
	return 0;
}

/* Where the token was and what a resync did, read back from the store:
 * HOTP, its codes' counters against the one the store expected; TOTP,
 * the skew. */
static void
resync_said(struct sys_store *s, const char *user, const char *name,
    size_t ncodes, int64_t moved)
{
	uint64_t next, first;
	int64_t off;

	if (sys_store_load_state(s, user, &sec.st) != 0 ||
	    sec.st.mode != OTP_STATE_HOTP) {
		if (sec.st.mode == OTP_STATE_TOTP)
			warnx("%s: '%s': the token's clock is %" PRId64 " "
			    "step%s %s ours: TIME_SKEW set to it, the codes "
			    "given used", cli_esc(sys_store_path(s)),
			    cli_esc(name), moved < 0 ?
			    -moved : moved, moved == 1 || moved == -1 ? "" :
			    "s", moved < 0 ? "behind" : "ahead of");
		otp_wipe(&sec.st, sizeof(sec.st));
		return;
	}
	next = sec.st.hotp_counter;
	otp_wipe(&sec.st, sizeof(sec.st));
	first = next - ncodes;
	off = (int64_t)first - ((int64_t)next - moved);
	warnx("%s: '%s': the codes given are counters %" PRIu64 " to %" PRIu64
	    ", %" PRId64 " %s the counter the store expected: it %s %" PRIu64,
	    cli_esc(sys_store_path(s)), cli_esc(name), first, next - 1,
	    off < 0 ? -off : off,
	    off < 0 ? "behind" : "ahead of", moved < 0 ? "is set back to" :
	    moved == 0 ? "stays at" : "moves on to", next);
}

static int
do_resync(const struct opts *o, const char *url, const char *user,
    int ncodes, char **codes)
{
	struct sys_store *s = open_url(o, url, o->store_key, 0);
	unsigned caps = sys_store_caps(s);
	int64_t moved = 0;
	int rc;

	if (*user == '\0')
		cli_usage_error("resync: an empty user name");
	rc = sys_store_resync(s, caps & SYS_STORE_MANY ? user : NULL,
	    (const char *const *)codes, (size_t)ncodes, &moved);
	if (rc == OTP_ERESYNC) {
		warnx("%s: '%s': %s", cli_esc(sys_store_path(s)),
		    cli_esc(user), otp_strerror(rc));
		sys_store_close(s);
		return 1;
	}
	if (rc == OTP_EUSERSUNKNOWN) {
		warnx("%s: '%s': no token", cli_esc(sys_store_path(s)),
		    cli_esc(user));
		sys_store_close(s);
		return 1;
	}
	if (rc != 0)
		fail(s, "resync", rc);
	printf("%" PRId64 "\n", moved);
	resync_said(s, caps & SYS_STORE_MANY ? user : NULL, user,
	    (size_t)ncodes, moved);
	sys_store_close(s);
	return 0;
}

/* Copy one user's token: read from from (as from_user), put in to.  0,
 * or -1 after a message naming it: a copy goes on with the others. */
static int
copy_one(const struct opts *o, struct sys_store *from, struct sys_store *to,
    const char *from_user, const char *to_user)
{
	const char *name = to_user != NULL ? to_user : from_user != NULL ?
	    from_user : "";
	size_t len = 0;
	int rc;

	rc = sys_store_export(from, from_user, sec.img, sizeof(sec.img), &len);
	if (rc != 0) {
		warn_fail(from, from_user != NULL ? from_user : "read", rc);
		return -1;
	}
	struct sys_record r = { sec.img, len, NULL };

	/* A users file's line has no place for these: said, not lost
	 * silently. */
	if ((sys_store_caps(to) & SYS_STORE_TOKENLINE) &&
	    otp_state_parse(sec.img, len, &sec.st) == 0) {
		if (sec.st.nscratch > 0)
			warnx("%s: %zu scratch code%s not copied: a users "
			    "file holds none", cli_esc(to_user != NULL ?
			    to_user : ""),
			    sec.st.nscratch, sec.st.nscratch == 1 ? "" : "s");
		if (sec.st.skew != 0)
			warnx("%s: the clock skew (%" PRId64 " steps) is not "
			    "copied: a users file holds none", cli_esc(to_user !=
			    NULL ? to_user : ""), sec.st.skew);
		otp_wipe(&sec.st, sizeof(sec.st));
	}
	/* A state file is pam_google_authenticator.so's too, which reads
	 * 6 SHA1 digits without a PIN whatever the file says: a database
	 * token of other digits, another algorithm or a PIN would lose its
	 * PIN or its strength there. */
	if (!(sys_store_caps(to) & (SYS_STORE_TOKENLINE | SYS_STORE_SHARED |
	    SYS_STORE_CHALLENGE)) &&
	    otp_state_parse(sec.img, len, &sec.st) == 0) {
		int ext = sec.st.digits != 6 || sec.st.alg != OTP_ALG_SHA1 ||
		    sec.st.pin[0] != '\0';
		int zero = sec.st.mode == OTP_STATE_HOTP &&
		    sec.st.hotp_counter == 0;
		unsigned digits = sec.st.digits;
		enum otp_alg alg = sec.st.alg;

		otp_wipe(&sec.st, sizeof(sec.st));
		if (ext) {
			otp_wipe(sec.img, len);
			warnx("%s: '%s': a token of %u digits over %s or "
			    "with a PIN: a state file holds 6 digits over SHA1 "
			    "without a PIN", cli_esc(sys_store_path(to)),
			    cli_esc(from_user != NULL ? from_user : ""), digits,
			    otp_alg_name(alg));
			return -1;
		}
		/* Its HOTP counters start at 1: the first code, never used,
		 * cannot be kept. */
		if (zero) {
			if ((rc = otp_state_set_option(sec.img, &len,
			    sizeof(sec.img), "HOTP_COUNTER", "1")) == 0)
				rc = otp_state_del_option(sec.img, &len,
				    "HOTP_ZERO");
			if (rc != 0) {
				otp_wipe(sec.img, sizeof(sec.img));
				warnx("%s: '%s': %s", cli_esc(sys_store_path(to)),
				    cli_esc(name), otp_strerror(rc));
				return -1;
			}
			r.len = len;
			warnx("%s: '%s': a state file's HOTP starts at "
			    "counter 1: the token's first code (counter 0) "
			    "is not taken there", cli_esc(sys_store_path(to)),
			    cli_esc(name));
		}
	}
	rc = sys_store_put(to, to_user, &r, o->force, NULL);
	otp_wipe(sec.img, len);
	if (rc == OTP_ESTATEEXIST || rc == OTP_EUSERSEXIST) {
		warnx("%s: '%s': has a token already (use -f to replace it)",
		    cli_esc(sys_store_path(to)), cli_esc(to_user != NULL ?
		    to_user : ""));
		return -1;
	}
	if (rc != 0) {
		warn_fail(to, to_user != NULL ? to_user : "write", rc);
		return -1;
	}
	return 0;
}

struct names {
	char	**v;
	size_t	  n, cap;
};

static int
collect(void *arg, const struct sys_store_entry *e)
{
	struct names *nm = arg;
	char **v;

	if (memchr(e->user, '\0', e->userlen) != NULL)
		return OTP_EUSERSFIELD;
	if (nm->n == nm->cap) {
		nm->cap = nm->cap ? 2 * nm->cap : 64;
		if ((v = reallocarray(nm->v, nm->cap, sizeof(*v))) == NULL)
			return OTP_ENOMEM;
		nm->v = v;
	}
	if ((nm->v[nm->n] = strndup(e->user, e->userlen)) == NULL)
		return OTP_ENOMEM;
	nm->n++;
	return 0;
}

static int
cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in order, each once (a users file names a user once a
 * token; copy takes the first). */
static void
names_unique(struct names *nm)
{
	size_t i, k = 0;

	if (nm->n == 0)
		return;
	qsort(nm->v, nm->n, sizeof(nm->v[0]), cmp_name);
	for (i = 1; i < nm->n; i++) {
		if (strcmp(nm->v[i], nm->v[k]) == 0)
			free(nm->v[i]);
		else
			nm->v[++k] = nm->v[i];
	}
	nm->n = k + 1;
}

/* What a copy did, on stderr (stdout stays a list's). */
static int
copy_said(const char *dst, size_t copied, size_t failed)
{
	if (failed == 0)
		warnx("%s: copied %zu token%s", dst, copied,
		    copied == 1 ? "" : "s");
	else
		warnx("%s: copied %zu token%s, %zu not copied (above)", dst,
		    copied, copied == 1 ? "" : "s", failed);
	return failed == 0 ? 0 : CLI_EXIT_ERR;
}

static int
do_copy(const struct opts *o, const char *src, const char *dst)
{
	struct sys_store *from, *to;
	struct names nm = { NULL, 0, 0 };
	size_t i, copied = 0, failed = 0;
	unsigned fc, tc;
	int rc, status;

	from = open_url(o, src, o->from_key != NULL ? o->from_key :
	    o->store_key, 1);
	to = open_url(o, dst, o->store_key, 0);
	fc = sys_store_caps(from);
	tc = sys_store_caps(to);
	if ((fc | tc) & SYS_STORE_CHALLENGE)
		errx(CLI_EXIT_ERR, "copy: OTPW lists are printed, not copied: "
		    "otp-keygen --otpw makes a new one");
	if (o->have_window && !(fc & SYS_STORE_TOKENLINE))
		cli_usage_error("copy: --window is a users file's (the "
		    "window= of pam_oath): %s has its own", src);
	if (!(fc & SYS_STORE_MANY)) {
		/* One user's file: --user names it in TO. */
		if (o->nusers > 1)
			cli_usage_error("copy: %s holds one token: give one "
			    "--user", cli_url(src));
		if ((tc & SYS_STORE_MANY) && o->nusers == 0)
			cli_usage_error("copy: give --user=NAME: the name of "
			    "%s's token in %s", cli_url(src), cli_url(dst));
		if (copy_one(o, from, to, NULL, o->nusers ? o->users[0] :
		    NULL) != 0)
			failed++;
		else
			copied++;
		goto done;
	}
	if (o->nusers == 0) {
		if ((rc = sys_store_list(from, collect, &nm)) == OTP_ESTOREOP)
			cli_usage_error("copy: name the users of %s to copy "
			    "(--user=NAME)", cli_url(src));
		if (rc != 0)
			fail(from, "read", rc);
		names_unique(&nm);
	} else {
		nm.v = (char **)(void *)o->users;	/* not freed below */
		nm.n = o->nusers;
	}
	if (!(tc & SYS_STORE_MANY) && nm.n != 1)
		cli_usage_error("copy: %s holds one token: copy one --user",
		    cli_url(dst));
	/* One bad token (a row that does not open, a name taken) is named
	 * and the others are copied all the same. */
	for (i = 0; i < nm.n; i++) {
		if (copy_one(o, from, to, nm.v[i], (tc & SYS_STORE_MANY) ?
		    nm.v[i] : NULL) != 0)
			failed++;
		else
			copied++;
	}
	if (o->nusers == 0) {
		for (i = 0; i < nm.n; i++)
			free(nm.v[i]);
		free(nm.v);
	}
done:
	status = copy_said(cli_esc(sys_store_path(to)), copied, failed);
	sys_store_close(from);
	sys_store_close(to);
	return status;
}

int
main(int argc, char *argv[])
{
	struct opts o;
	const char *verb;
	uint64_t v;
	int ch, status;

	cli_init(argc, argv);
	if (atexit(wipe_secrets) != 0)
		errx(CLI_EXIT_ERR, "atexit failed");
	memset(&o, 0, sizeof(o));
	/* GNU getopt takes options before and after the command alike:
	 * "otp-store copy --user=a FROM TO"; "--" ends them. */
	while ((ch = getopt_long(argc, argv, "fhV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'f':
			o.force = 1;
			break;
		case 'h':
			usage();
		case 'V':
			cli_version();
		case OPT_STOREKEY:
			o.store_key = optarg;
			break;
		case OPT_FROMKEY:
			o.from_key = optarg;
			break;
		case OPT_TIMEOUT:
			o.deadline_ms = cli_deadline("--store-timeout", optarg);
			break;
		case OPT_SINCE:
			o.since = optarg;
			break;
		case OPT_BEFORE:
			o.before = optarg;
			break;
		case OPT_WINDOW:
			if (otp_parse_u64(optarg, 0, OTP_USERS_STATE_WINDOW_MAX,
			    &v) != 0)
				cli_usage_error("--window: '%s': must be a "
				    "number from 0 to %d", optarg,
				    OTP_USERS_STATE_WINDOW_MAX);
			o.window = (unsigned)v;
			o.have_window = 1;
			break;
		case OPT_USER:
			if (o.nusers == USERS_MAX)
				cli_usage_error("--user: at most %d",
				    USERS_MAX);
			if (*optarg == '\0')
				cli_usage_error("--user: an empty name");
			o.users[o.nusers++] = optarg;
			break;
		default:
			fprintf(stderr, "Try '%s --help' for more "
			    "information.\n", getprogname());
			cli_exit(CLI_EXIT_ERR);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		cli_usage_error("a command is needed: init, list, copy, "
		    "remove, disable, enable, resync, unlock, reseal, log or "
		    "prune");
	verb = argv[0];
	argc--;
	argv++;
	if (strcmp(verb, "log") == 0 && o.nusers > 1)
		cli_usage_error("log: one --user");
	if (strcmp(verb, "copy") != 0 && (o.force || o.from_key != NULL ||
	    o.have_window || (o.nusers > 0 && strcmp(verb, "log") != 0)))
		cli_usage_error("-f, --user, --from-key and --window are "
		    "copy's (--user log's too)");
	if (o.since != NULL && strcmp(verb, "log") != 0)
		cli_usage_error("--since is log's");
	if (o.before != NULL && strcmp(verb, "prune") != 0)
		cli_usage_error("--before is prune's");
	if (o.before == NULL && strcmp(verb, "prune") == 0)
		cli_usage_error("prune needs --before=TIME");
	if (strcmp(verb, "init") == 0 || strcmp(verb, "list") == 0 ||
	    strcmp(verb, "reseal") == 0 || strcmp(verb, "log") == 0 ||
	    strcmp(verb, "prune") == 0) {
		if (argc != 1)
			cli_usage_error("%s takes one URL", verb);
		status = verb[0] == 'i' ? do_init(&o, argv[0]) :
		    strcmp(verb, "list") == 0 ? do_list(&o, argv[0]) :
		    verb[0] == 'r' ? do_reseal(&o, argv[0]) :
		    strcmp(verb, "log") == 0 ? do_log(&o, argv[0]) :
		    do_prune(&o, argv[0]);
	} else if (strcmp(verb, "copy") == 0) {
		if (argc != 2)
			cli_usage_error("copy takes FROM and TO");
		status = do_copy(&o, argv[0], argv[1]);
	} else if (strcmp(verb, "remove") == 0 ||
	    strcmp(verb, "disable") == 0 || strcmp(verb, "enable") == 0 ||
	    strcmp(verb, "unlock") == 0) {
		if (argc != 2)
			cli_usage_error("%s takes URL and USER", verb);
		status = do_user(&o, verb, argv[0], argv[1]);
	} else if (strcmp(verb, "resync") == 0) {
		if (argc < 4 || argc > 5)
			cli_usage_error("resync takes URL, USER and 2 or 3 "
			    "codes");
		status = do_resync(&o, argv[0], argv[1], argc - 2, argv + 2);
	} else
		cli_usage_error("'%s': not a command (init, list, copy, "
		    "remove, disable, enable, resync, unlock, reseal, log, "
		    "prune)", verb);
	cli_exit(status);
}

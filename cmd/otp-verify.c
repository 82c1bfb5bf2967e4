/*
 * otp-verify - check a one-time password; find a client's clock skew;
 * explain why a code does not verify; check against a Google
 * Authenticator state file; answer a RADIUS server's request (--radius).
 */
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdarg.h>
#include <getopt.h>
#include <inttypes.h>
#include <pwd.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "otp-verify-live.h"
#include "store.h"
#include "otp_otpw.h"
#include "otp_radius.h"
#include "otp_state.h"
#include "otp_uri.h"
#include "otp_users.h"

enum {
	OPT_USERSFILE,
	OPT_USER,
	OPT_FINDSKEW = CLI_OPT_TOOL_BASE,
	OPT_DIAGNOSE,
	OPT_STATE,
	OPT_ALLOWEDPERM,
	OPT_DRYRUN,
	OPT_OTPW,		/* --otpw and its --challenge */
	OPT_CHALLENGE,
	OPT_RADIUS,
	OPT_STATEDIR,
	OPT_STORE,
	OPT_STOREKEY,
	OPT_STORETIMEOUT,
	OPT_GROUPREAD,		/* users file: its rules */
	OPT_SHARED,
	OPT_DENY,
	OPT_UNLOCKTIME,
	OPT_AROUND,
	OPT_SHOWKEY,
	OPT_FLAG = 0x1000,	/* | an OTP_STATE_* flag: a --state switch */
	OPT_ALLOWRO = OPT_FLAG | OTP_STATE_ALLOWRO,
	OPT_NOINCRHOTP = OPT_FLAG | OTP_STATE_NOINCRHOTP,
	OPT_NOSKEWADJ = OPT_FLAG | OTP_STATE_NOSKEWADJ,
	OPT_NOSTRICTOWNER = OPT_FLAG | OTP_STATE_NOSTRICTOWNER,
};

static const struct option longopts[] = {
	CLI_STD_LONGOPTS,
	CLI_OTP_LONGOPTS,
	{ "allow-group-read",	no_argument,	   NULL, OPT_GROUPREAD },
	{ "allow-readonly",	no_argument,	   NULL, OPT_ALLOWRO },
	{ "around",		required_argument, NULL, OPT_AROUND },
	{ "deny",		required_argument, NULL, OPT_DENY },
	{ "pam-oath-shared",	required_argument, NULL, OPT_SHARED },
	{ "unlock-time",	required_argument, NULL, OPT_UNLOCKTIME },
	{ "user",		required_argument, NULL, OPT_USER },
	{ "usersfile",		required_argument, NULL, OPT_USERSFILE },
	{ "allowed-perm",	required_argument, NULL, OPT_ALLOWEDPERM },
	{ "diagnose",		no_argument,	   NULL, OPT_DIAGNOSE },
	{ "dry-run",		no_argument,	   NULL, OPT_DRYRUN },
	{ "find-skew",		no_argument,	   NULL, OPT_FINDSKEW },
	{ "interactive",	no_argument,	   NULL, 'i' },
	{ "no-increment-hotp",	no_argument,	   NULL, OPT_NOINCRHOTP },
	{ "no-skew-adjust",	no_argument,	   NULL, OPT_NOSKEWADJ },
	{ "no-strict-owner",	no_argument,	   NULL, OPT_NOSTRICTOWNER },
	{ "quiet",		no_argument,	   NULL, 'q' },
	{ "radius",		no_argument,	   NULL, OPT_RADIUS },
	{ "show-key",		no_argument,	   NULL, OPT_SHOWKEY },
	{ "state",		required_argument, NULL, OPT_STATE },
	{ "state-dir",		required_argument, NULL, OPT_STATEDIR },
	{ "store",		required_argument, NULL, OPT_STORE },
	{ "store-key",		required_argument, NULL, OPT_STOREKEY },
	{ "store-timeout",	required_argument, NULL, OPT_STORETIMEOUT },
	{ "verbose",		no_argument,	   NULL, 'v' },
	{ "otpw",		optional_argument, NULL, OPT_OTPW },
	{ "challenge",		optional_argument, NULL, OPT_CHALLENGE },
	{ NULL,			0,		   NULL, 0 }
};

enum mode {
	MODE_VERIFY,
	MODE_FINDSKEW,
	MODE_DIAGNOSE,
	MODE_STORE,		/* --store and the spellings it replaces */
	MODE_RADIUS,
	MODE_INTERACTIVE,	/* the clock debugger */
};

/* A store's answer: a users file's PIN, then the code. */
#define ANSWER_MAX	(OTP_USERS_FIELD_MAX + OTP_CODE_MAX)
#define USERS_DIGITS_MAX	8	/* a users file's longest code */

struct verify {
	struct cli_otp	 o;		/* --steam, --motp and --pin too */
	enum mode	 mode;
	int		 quiet;
	int		 verbose;
	const char	*store;		/* the store's URL */
	const char	*spelled;	/* the option that named it */
	const char	*spelled_arg;	/* and its value */
	char		 url[PATH_MAX + 16];	/* a URL made from a path */
	int		 radius_ok;	/* a store --radius can read */
	unsigned	 state_flags;	/* OTP_STATE_* */
	unsigned	 allowed_perm;
	int		 have_perm;
	int		 dry_run;	/* --dry-run: --state writes nothing */
	int		 challenge;	/* --challenge given */
	const char	*chal;		/* its NNN[/NNN/NNN], or NULL */
	const char	*state_dir;	/* --radius: DIR/USER state files */
	const char	*user;		/* --user */
	const char	*store_key;	/* --store-key: a database's key */
	unsigned	 deadline_ms;	/* --store-timeout, 0 the default */
	const char	*oath_opt;	/* a users file's option given */
	const char	*limit_opt;	/* --deny or --unlock-time given */
	int		 group_read;	/* --allow-group-read */
	int		 unshared;	/* --pam-oath-shared=0 */
	int		 deny;		/* --deny: 0 default, -1 none */
	unsigned	 unlock_time;	/* --unlock-time */
	unsigned	 around;	/* --around: steps shown either side */
	int		 have_around;
	int		 show_key;	/* --show-key */
};

/* The token a debugging mode works on (--find-skew, --diagnose, -i):
 * from a KEY operand, or read from a store. */
struct token {
	struct otp_uri	 u;
	char		 text[OTP_LINE_MAX];	/* the key as text */
	enum otp_keyenc	 enc;			/* how text reads */
	unsigned	 digits;		/* 0: each code's length */
	int64_t		 lo, hi;		/* steps admitted (TOTP) */
	char		 rule[160];		/* where lo..hi come from */
	char		 source[PATH_MAX + 96];	/* for the view */
	char		 url[PATH_MAX + 32];	/* the store's, no password */
	char		 user[OTP_USERS_FIELD_MAX];	/* its user, or "" */
};

static unsigned store_caps(const struct verify *v);
static void store_token(const struct verify *v, struct token *t);

static void __attribute__((noreturn))
usage(void)
{
	printf("usage: otp-verify [-bqVvx] [--hotp | --totp[=ALG]] [-a ALG] "
	    "[-c COUNTER] [-d DIGITS]\n"
	    "                  [-N TIME] [-S TIME] [-s STEP] [-w WINDOW] "
	    "[--steam]\n"
	    "                  [--motp --pin=PIN] [--strict] KEY [OTP]\n"
	    "       otp-verify --find-skew [OPTION]... KEY CODE1 CODE2 "
	    "[CODE3]\n"
	    "       otp-verify --diagnose [OPTION]... KEY CODE\n"
	    "       otp-verify -i [--around=N] [--show-key] [OPTION]... KEY\n"
	    "       otp-verify --find-skew|--diagnose|-i [OPTION]... "
	    "--store=URL [--user=NAME]\n"
	    "                  [CODE]...\n"
	    "       otp-verify [-qv] [-d DIGITS] [-N TIME] [-w WINDOW] "
	    "[--dry-run]\n"
	    "                  [STORE OPTION]... --store=URL [--user=NAME]\n"
	    "                  [--challenge[=NNN[/NNN/NNN]]] [OTP]\n"
	    "       otp-verify [-qv] [-d DIGITS] [-N TIME] [-w WINDOW] "
	    "[--dry-run]\n"
	    "                  [STORE OPTION]... --radius --store=URL\n"
	    "\n"
	    "Check OTP (from the operand, or one line of standard input) "
	    "against KEY (hex,\n"
	    "or Base32 with -b, or an otpauth:// URI; \"-\" reads a line of "
	    "stdin, @FILE a\n"
	    "line of FILE).  On a match print the offset of the matching "
	    "step or counter\n"
	    "and exit 0; exit 1 if no code in the window matches, 2 on "
	    "errors.\n"
	    "\n"
	    CLI_OTP_HELP_KEY
	    "  -c, --counter=N        HOTP counter expected next (default "
	    "0)\n"
	    "  -d, --digits=N         code length, 6 to 10 (default: the "
	    "OTP's length);\n"
	    "                         users file: a PIN, then a code of N "
	    "digits (6 to 8)\n"
	    CLI_OTP_HELP_TIME
	    "  -w, --window=N         HOTP: counters c..c+N; TOTP: steps "
	    "-N..+N (default 0)\n"
	    CLI_OTP_HELP_KIND
	    "  -q, --quiet            no message when the code is not "
	    "accepted\n"
	    "  -v, --verbose          explain the match and the clock, on "
	    "stderr\n"
	    "      --find-skew        where do 2 or 3 consecutive codes "
	    "match (default\n"
	    "                         window: one day of steps)\n"
	    "      --diagnose         which parameter mistake explains a "
	    "code\n"
	    "  -i, --interactive      the clock debugger: at a terminal the "
	    "codes around now\n"
	    "                         ticking (HOTP: the counters around the "
	    "next one), each\n"
	    "                         code typed placed and explained; else "
	    "one answer line\n"
	    "                         per code read from standard input.  "
	    "Never writes the\n"
	    "                         store\n"
	    "      --around=N         -i: the codes of N steps either side "
	    "of now (default 3)\n"
	    "      --show-key         -i: show the key (Base32) in the "
	    "view\n"
	    "      --store=URL        check against the token in a store: "
	    "ga:FILE (a Google\n"
	    "                         Authenticator state file), oath:FILE "
	    "(an OATH Toolkit\n"
	    "                         users file), otpw:FILE (an OTPW list), "
	    "postgresql://...\n"
	    "                         (a PostgreSQL database, a libpq URI); "
	    "with --radius\n"
	    "                         ${USER} in URL is the request's user\n"
	    "      --state=FILE       the same as --store=ga:FILE\n"
	    "      --no-skew-adjust   state: do not learn the client's clock "
	    "skew\n"
	    "      --no-increment-hotp  state: keep the HOTP counter on a "
	    "failure\n"
	    "      --no-strict-owner  state: accept a file owned by another "
	    "user\n"
	    "      --allowed-perm=MODE  state: permission bits allowed "
	    "(default 0600)\n"
	    "      --allow-readonly   state: accept even if the file cannot "
	    "be updated\n"	    "      --dry-run          state: say what would happen; write "
	    "nothing\n"
	    "      --otpw[=FILE]      --store=otpw:FILE (default ~/.otpw): "
	    "check a response,\n"
	    "                         mark its passwords used, print how many "
	    "are left\n"
	    "      --challenge[=NNN[/NNN/NNN]]  alone: print the number to "
	    "answer now; with\n"
	    "                         a value: the number(s) the RESPONSE "
	    "answers\n"
	    "      --radius           answer FreeRADIUS's rlm_exec: "
	    "USER_NAME and\n"
	    "                         USER_PASSWORD from the environment, "
	    "exit 0 accept,\n"
	    "                         1 reject, 2 error; Reply-Message on "
	    "stdout\n"
	    "      --state-dir=DIR    radius: --store='ga:DIR/${USER}'\n"
	    "      --usersfile=FILE   the same as --store=oath:FILE\n"
	    "      --allow-group-read  users file: take one its group may "
	    "read (mode 0640)\n"
	    "      --deny=N           users file, database: N wrong codes in "
	    "a row lock the\n"
	    "                         user out (default 5; 0 no limit), "
	    "counted in\n"
	    "                         FILE.tally/USER or the token's row\n"
	    "      --unlock-time=SECONDS  users file, database: how long a "
	    "lock-out lasts\n"
	    "                         (default 600)\n"
	    "      --pam-oath-shared=0|1  users file: 0 when no pam_oath "
	    "uses it (no 10 ms\n"
	    "                         linger on FILE.lock; default 1)\n"
	    "      --user=NAME        a store of many users: whose token "
	    "(default: the\n"
	    "                         invoking user)\n"
	    "      --store-key=FILE   postgresql: key file, default "
	    SYS_STORE_KEY "\n"
	    "      --store-timeout=DUR  postgresql: the deadline of the "
	    "whole check\n"
	    "                         (default 3s; 500ms, 2s, 1m)\n"
	    "  -h, --help             show this help\n"
	    "  -V, --version          show the version\n");
	cli_exit(0);
}

/* "1 h 30 min", "45 s": a human reading of a number of seconds. */
static const char *
human(uint64_t s, char *buf, size_t size)
{
	(void)otp_duration_text(s, buf, size);
	return buf;
}

/* steps * step as seconds, or 0 when it would not fit. */
static int
seconds_of(uint64_t steps, uint64_t step, uint64_t *out)
{
	return !__builtin_mul_overflow(steps, step, out);
}

static void
print_signed(int64_t v)
{
	if (v > 0)
		printf("+%" PRId64 "\n", v);
	else
		printf("%" PRId64 "\n", v);
}

/* What a TOTP offset says about the client's clock, on stderr. */
static void
explain_clock(int64_t offset, uint64_t step)
{
	uint64_t steps = (uint64_t)(offset < 0 ? -offset : offset), secs;
	char h[64];

	if (offset == 0) {
		fprintf(stderr, "The client's clock agrees with ours to "
		    "within one step (%" PRIu64 " s).\n", step);
		return;
	}
	if (!seconds_of(steps, step, &secs)) {
		fprintf(stderr, "The client's clock is %" PRIu64 " steps %s.\n",
		    steps, offset < 0 ? "behind" : "ahead");
		return;
	}
	fprintf(stderr, "The client's clock is about %s %s", human(secs, h,
	    sizeof(h)), offset < 0 ? "behind" : "ahead");
	if (offset == -1)
		fprintf(stderr, " (or the code was typed just after it "
		    "changed)");
	fprintf(stderr, ".\n");
}

/* Parameters and outcome for -v, on stderr: no secret is shown. */
static void
print_verbose(const struct verify *v, const struct otp_uri *u,
    unsigned digits, uint64_t counter)
{
	char t[64];

	if (cli_steam(&v->o, u))
		fprintf(stderr, "Code: Steam Guard, 5 characters\n");
	else if (v->o.motp)
		fprintf(stderr, "Code: Mobile-OTP, 6 hex digits\n");
	else
		fprintf(stderr, "Digits: %u\n", digits);
	fprintf(stderr, "Window size: %" PRIu64 "\n", v->o.window);
	if (u->type == OTP_TYPE_HOTP) {
		fprintf(stderr, "HOTP mode: %s\n", otp_alg_name(u->alg));
		fprintf(stderr, "Start counter: 0x%" PRIX64 " (%" PRIu64 ")\n",
		    counter, counter);
		return;
	}
	fprintf(stderr, "TOTP mode: %s\n", v->o.motp ? "mOTP" :
	    otp_alg_name(u->alg));
	fprintf(stderr, "Step size (seconds): %" PRIu64 "\n", u->period);
	if (otp_time_format_utc(v->o.start, t, sizeof(t)) != 0)
		snprintf(t, sizeof(t), "?");
	fprintf(stderr, "Start time: %s (%" PRId64 ")\n", t, v->o.start);
	if (otp_time_format_utc(v->o.now, t, sizeof(t)) != 0)
		snprintf(t, sizeof(t), "?");
	fprintf(stderr, "Current time: %s (%" PRId64 ")\n", t, v->o.now);
	fprintf(stderr, "Counter: 0x%" PRIX64 " (%" PRIu64 ")\n", counter,
	    counter);
}

static void
explain_match(const struct otp_uri *u, const struct otp_match *m,
    uint64_t centre)
{
	uint64_t secs, k = (uint64_t)(m->offset < 0 ? -m->offset :
	    m->offset);
	char h[64];

	if (u->type == OTP_TYPE_HOTP) {
		fprintf(stderr, "Matched counter 0x%" PRIX64 " (%" PRIu64 "), "
		    "%" PRIu64 " after the expected %" PRIu64 ".\n",
		    m->counter, m->counter, k, centre);
		if (k > 0)
			fprintf(stderr, "The token has made %" PRIu64 " code%s "
			    "that were never used.\n", k, k == 1 ? "" : "s");
		if (m->counter < UINT64_MAX)
			fprintf(stderr, "The next code to expect is counter "
			    "%" PRIu64 " (-c %" PRIu64 ").\n", m->counter + 1,
			    m->counter + 1);
		return;
	}
	fprintf(stderr, "Matched step 0x%" PRIX64 " (%" PRIu64 "), offset "
	    "%s%" PRId64 " step%s", m->counter, m->counter,
	    m->offset > 0 ? "+" : "", m->offset, k == 1 ? "" : "s");
	if (k > 0 && seconds_of(k, u->period, &secs))
		fprintf(stderr, " (%s%s)", m->offset < 0 ? "-" : "+",
		    human(secs, h, sizeof(h)));
	fprintf(stderr, ".\n");
	explain_clock(m->offset, u->period);
}

static void
not_accepted(const struct verify *v, const char *why)
{
	if (!v->quiet)
		warnx("code not accepted%s%s", why != NULL ? ": " : "",
		    why != NULL ? why : "");
}

/* Standard input holds one line (a key or an OTP): a second one is
 * refused rather than dropped, as a script that pipes several codes
 * would otherwise get one answer for all of them.  At a terminal the
 * line typed is all there is: nothing more is waited for. */
static void
stdin_end(void)
{
	char rest[OTP_LINE_MAX];
	int rc;

	if (isatty(STDIN_FILENO))
		return;
	cli_lock(rest, sizeof(rest));
	rc = cli_stdin_line(rest, sizeof(rest));
	otp_wipe(rest, sizeof(rest));
	if (rc == OTP_EIO)
		err(CLI_EXIT_ERR, "standard input");
	if (rc != OTP_EEMPTY)
		errx(CLI_EXIT_ERR, "standard input: more than one line (one "
		    "key or OTP per run; loop in the shell for more)");
}

/* Read the OTP: the operand, or the one line of standard input. */
static void
read_code(const char *arg, char *buf, size_t size)
{
	int rc;

	if (arg != NULL) {
		if (strlen(arg) >= size)
			errx(CLI_EXIT_ERR, "OTP: %s", otp_strerror(OTP_ECODE));
		snprintf(buf, size, "%s", arg);
		return;
	}
	if ((rc = cli_stdin_line(buf, size)) != 0) {
		if (rc == OTP_EIO)
			err(CLI_EXIT_ERR, "standard input");
		errx(CLI_EXIT_ERR, "standard input: %s", rc == OTP_EEMPTY ?
		    "no OTP" : rc == OTP_ETOOLONG ? otp_strerror(OTP_ECODE) :
		    otp_strerror(rc));
	}
	stdin_end();
}

/* Load the key: mOTP secrets are text, used as they are. */
static void
load_key(const struct verify *v, const char *arg, struct otp_uri *u)
{
	char line[OTP_LINE_MAX] = "";
	int rc;

	if (!v->o.motp) {
		cli_key_load(&v->o, arg, u);
	} else {
		cli_lock(line, sizeof(line));
		rc = cli_key_read(arg, line, sizeof(line)) != 0 ||
		    cli_motp_text(&v->o, line, NULL, u) != 0;
		otp_wipe(line, sizeof(line));
		if (rc)
			exit(CLI_EXIT_ERR);
	}
	if (strcmp(arg, "-") == 0)
		stdin_end();
}

/* Options that only fit one kind of key: otp-gen's rules. */
static void
check_combination(const struct verify *v, const struct otp_uri *u)
{
	if (cli_otp_check(&v->o, u, "") != 0)
		exit(CLI_EXIT_ERR);
}

/* The digits in force: -d, else a URI's digits=, else the OTP's own
 * length (0), as oathtool does. */
static unsigned
digits_in_force(const struct verify *v, const struct otp_uri *u)
{
	if (v->o.have_digits)
		return v->o.digits;
	if (u->is_uri && (u->have & OTP_HAVE_DIGITS))
		return u->digits;
	return 0;
}

/* The expected counter: -c for HOTP, the time step for TOTP. */
static uint64_t
centre_of(const struct verify *v, const struct otp_uri *u)
{
	uint64_t c;
	int rc;

	if (u->type == OTP_TYPE_HOTP)
		return u->counter;
	if ((rc = otp_totp_counter(v->o.now, v->o.start, u->period, &c)) != 0)
		errx(CLI_EXIT_ERR, "%s", rc == OTP_EBEFORESTART ?
		    "--now is before --start-time" : otp_strerror(rc));
	return c;
}

static void __attribute__((noreturn))
code_error(int rc, char *code, unsigned digits)
{
	size_t n = strlen(code);
	int wellformed = otp_code_check(code, 0) > 0;

	otp_wipe(code, n);
	if (rc == OTP_ECODE && digits != 0 && n != digits && wellformed)
		errx(CLI_EXIT_ERR, "OTP has %zu digits, not %u", n, digits);
	if (rc == OTP_ECODE)
		errx(CLI_EXIT_ERR, "OTP: %s (want %s)", otp_strerror(rc),
		    digits != 0 ? "that many decimal digits" :
		    "6 to 10 decimal digits");
	errx(CLI_EXIT_ERR, "%s", otp_strerror(rc));
}

static int
do_verify(const struct verify *v, int argc, char *argv[])
{
	struct otp_uri u;
	struct otp_hmac h;
	struct otp_match m = { 0, 0 };
	char code[OTP_CODE_MAX + 2];
	uint64_t centre;
	unsigned digits;
	int rc;

	if (argc < 1 || argc > 2)
		cli_usage_error(argc < 1 ? "missing KEY" :
		    "too many operands");
	if (argc == 1 && (strcmp(argv[0], "-") == 0))
		cli_usage_error("with KEY \"-\" the OTP must be an operand");
	load_key(v, argv[0], &u);
	check_combination(v, &u);
	read_code(argc == 2 ? argv[1] : NULL, code, sizeof(code));
	digits = digits_in_force(v, &u);
	centre = centre_of(v, &u);	/* refuses --now before --start-time */
	if (v->o.motp) {
		/* As otp-gen: the 10-second steps begin at --start-time, and
		 * a code hashes the time its step begins. */
		int64_t now = v->o.now - (v->o.start % 10 + 10) % 10;

		rc = otp_verify_motp((const char *)u.key.buf, u.key.len,
		    v->o.pin, code, now, v->o.window, &m);
		centre = (uint64_t)(now / 10 - (now % 10 < 0));
	} else {
		if ((rc = otp_hmac_init(&h, u.alg, u.key.buf, u.key.len)) != 0)
			errx(CLI_EXIT_ERR, "key: %s", otp_strerror(rc));
		if (cli_steam(&v->o, &u))
			rc = otp_verify_steam(&h, code, centre, v->o.window,
			    OTP_WINDOW_AROUND, &m);
		else
			rc = otp_verify(&h, code, digits, centre, v->o.window,
			    u.type == OTP_TYPE_HOTP ? OTP_WINDOW_AHEAD :
			    OTP_WINDOW_AROUND, &m);
		otp_hmac_wipe(&h);
	}
	otp_wipe(&u.key, sizeof(u.key));
	if (rc < 0) {
		if (rc == OTP_ECODE && cli_steam(&v->o, &u))
			errx(CLI_EXIT_ERR, "OTP: %s (want 5 Steam Guard "
			    "characters)", otp_strerror(rc));
		if (rc == OTP_ECODE && v->o.motp)
			errx(CLI_EXIT_ERR, "OTP: %s (want 6 hex digits)",
			    otp_strerror(rc));
		code_error(rc, code, digits);
	}
	if (v->verbose)
		print_verbose(v, &u, digits != 0 ? digits :
		    (unsigned)strlen(code), centre);
	otp_wipe(code, sizeof(code));
	if (rc == 0) {
		if (v->verbose)
			fprintf(stderr, "No %s in the window gives this code.\n",
			    u.type == OTP_TYPE_HOTP ? "counter" : "step");
		not_accepted(v, NULL);
		return 1;
	}
	if (v->verbose)
		explain_match(&u, &m, centre);
	if (u.type == OTP_TYPE_HOTP)
		printf("%" PRId64 "\n", m.offset);
	else
		print_signed(m.offset);
	return 0;
}

/* --find-skew of a stored HOTP token: where its counter is against the
 * one the store expects, and what to do about it. */
static void
hotp_store_said(const struct otp_match *m, uint64_t expected)
{
	if (m->offset == 0)
		warnx("the store expects counter %" PRIu64 " next: the token "
		    "is there", expected);
	else if (m->offset > 0)
		warnx("the store expects counter %" PRIu64 " next: the token "
		    "is %" PRId64 " ahead; a code within the store's window "
		    "logs in and the store catches up, further ahead "
		    "otp-store resync moves it on", expected, m->offset);
	else
		warnx("the store expects counter %" PRIu64 " next: the token "
		    "is %" PRId64 " behind, and its codes are refused until "
		    "it gets there; otp-store resync sets the store's counter "
		    "back to the token's", expected, -m->offset);
}

static int
do_find_skew(const struct verify *v, int argc, char *argv[])
{
	struct otp_uri u;
	struct otp_hmac h;
	struct otp_match m = { 0, 0 };
	uint64_t centre, window, secs;
	char hbuf[64];
	int rc, i;

	static struct token t;

	/* With --store the operands are all codes. */
	if (v->store != NULL) {
		argc++;
		argv--;
	}
	if (argc < 3 || argc > 4)
		cli_usage_error(v->store != NULL ? "--find-skew wants 2 or 3 "
		    "codes" : "--find-skew wants KEY and 2 or 3 codes");
	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "-") == 0)
			cli_usage_error("--find-skew takes its codes as "
			    "operands");
	if (v->store != NULL) {
		store_token(v, &t);
		u = t.u;
		otp_wipe(&t, sizeof(t));
	} else {
		load_key(v, argv[0], &u);
		check_combination(v, &u);
	}
	if (u.steam)
		errx(CLI_EXIT_ERR, "--find-skew does not take Steam URIs");
	centre = centre_of(v, &u);
	window = v->o.window;
	if (!v->o.have_window)
		/* One day of steps either way; HOTP looks 10000 ahead. */
		window = u.type == OTP_TYPE_TOTP ? (86400 / u.period > 0 ?
		    86400 / u.period : 1) : 10000;
	if ((rc = otp_hmac_init(&h, u.alg, u.key.buf, u.key.len)) != 0)
		errx(CLI_EXIT_ERR, "key: %s", otp_strerror(rc));
	otp_wipe(&u.key, sizeof(u.key));
	/* A stored HOTP counter may be ahead of the token too (wrong codes
	 * under a state file's rule, a copy): look behind it as well. */
	rc = otp_find_skew(&h, (const char *const *)argv + 1,
	    (size_t)argc - 1, digits_in_force(v, &u), centre, window,
	    u.type == OTP_TYPE_HOTP && v->store == NULL ? OTP_WINDOW_AHEAD :
	    OTP_WINDOW_AROUND, &m);
	otp_hmac_wipe(&h);
	if (rc == OTP_ECODE)
		errx(CLI_EXIT_ERR, "codes: %s (want %u to %u decimal digits, "
		    "all of one length)", otp_strerror(rc), OTP_DIGITS_MIN,
		    OTP_DIGITS_MAX);
	if (rc < 0)
		errx(CLI_EXIT_ERR, "%s", otp_strerror(rc));
	if (rc == 0) {
		if (!v->quiet)
			warnx("no %d consecutive %s within %" PRIu64 " of the "
			    "expected one give these codes", argc - 1,
			    u.type == OTP_TYPE_HOTP ? "counters" : "steps",
			    window);
		return 1;
	}
	if (rc > 1 && !v->quiet)
		warnx("%d places match; the nearest is shown", rc);
	if (u.type == OTP_TYPE_HOTP) {
		printf("%s%" PRId64 " counters: the token is at counter "
		    "%" PRIu64, m.offset < 0 ? "" : "+", m.offset, m.counter);
		/* The run may end at 2^64-1: then there is no next one. */
		if (m.counter <= UINT64_MAX - (uint64_t)argc + 1)
			printf("; next expect -c %" PRIu64 "\n", m.counter +
			    (uint64_t)argc - 1);
		else
			printf("; the counter range is used up\n");
		if (v->store != NULL && !v->quiet)
			hotp_store_said(&m, centre);
		return 0;
	}
	printf("%s%" PRId64 " step%s", m.offset > 0 ? "+" : "", m.offset,
	    m.offset == 1 || m.offset == -1 ? "" : "s");
	if (seconds_of((uint64_t)(m.offset < 0 ? -m.offset : m.offset),
	    u.period, &secs)) {
		printf(" (%s%" PRIu64 " s)", m.offset < 0 ? "-" : "+", secs);
		if (m.offset == 0)
			printf(": the client's clock agrees with ours\n");
		else
			printf(": the client's clock is %s %s\n",
			    human(secs, hbuf, sizeof(hbuf)), m.offset < 0 ?
			    "behind" : "ahead");
	} else
		printf("\n");
	if (v->verbose)
		fprintf(stderr, "The first code is step %" PRIu64 "; ours is "
		    "%" PRIu64 ".\n", m.counter, centre);
	return 0;
}

static void
print_finding(const struct otp_diag_params *p, const struct otp_finding *f,
    size_t len)
{
	char line[512];

	(void)otp_diag_text(p, f, len, line, sizeof(line));
	printf("%s\n", line);
}

static int
do_diagnose(const struct verify *v, int argc, char *argv[])
{
	struct otp_finding f[OTP_DIAG_MAX];
	struct otp_diag_params p;
	struct otp_uri u;
	char line[OTP_LINE_MAX] = "";
	size_t erroff;
	int n, i;

	static struct token t;
	enum otp_keyenc enc = v->o.enc;
	uint64_t window = v->o.window;
	unsigned store_digits = 0;

	/* With --store the one operand is the code. */
	if (v->store != NULL) {
		argc++;
		argv--;
	}
	if (argc != 2)
		cli_usage_error(v->store != NULL ? "--diagnose wants one code" :
		    "--diagnose wants KEY and one code");
	if (strcmp(argv[1], "-") == 0)
		cli_usage_error("--diagnose takes its code as an operand");
	cli_lock(line, sizeof(line));
	otp_uri_init(&u);
	if (v->store != NULL) {
		/* The store's key, as the Base32 the phone was given. */
		store_token(v, &t);
		u = t.u;
		memcpy(line, t.text, sizeof(line));
		enc = t.enc;
		store_digits = t.digits;
		if (!v->o.have_window)
			window = (uint64_t)(t.hi > -t.lo ? t.hi : -t.lo);
		otp_wipe(&t, sizeof(t));
	} else if (cli_key_read(argv[0], line, sizeof(line)) != 0)
		exit(CLI_EXIT_ERR);
	if (v->store == NULL && strcmp(argv[0], "-") == 0)
		stdin_end();
	/* The parameters: a URI's, overridden by the command line.  A key
	 * that decodes only the other way is one of the mistakes looked
	 * for; one that decodes neither way gets the usual message. */
	if (v->store == NULL && otp_key_parse(line, v->o.enc, &u,
	    &erroff) != 0) {
		otp_wipe(&u, sizeof(u));
		otp_uri_init(&u);
		if (otp_key_parse(line, v->o.enc == OTP_KEYENC_HEX ?
		    OTP_KEYENC_BASE32 : OTP_KEYENC_HEX, &u, &erroff) != 0) {
			(void)cli_key_text(&v->o, line, NULL, &u);
			otp_wipe(line, sizeof(line));
			exit(CLI_EXIT_ERR);
		}
	}
	if (v->store == NULL)
		cli_otp_apply(&v->o, &u);
	otp_wipe(&u.key, sizeof(u.key));
	if (u.steam) {
		otp_wipe(line, sizeof(line));
		errx(CLI_EXIT_ERR, "--diagnose does not take Steam URIs");
	}
	/* No check_combination: --now with HOTP asks whether the code is
	 * a TOTP code of that time. */
	memset(&p, 0, sizeof(p));
	p.key = line;
	p.enc = enc;
	p.type = u.type;
	p.alg = u.alg;
	p.digits = v->store != NULL ? store_digits : digits_in_force(v, &u);
	p.counter = u.counter;
	p.step = u.period;
	p.start = v->o.start;
	p.now = v->o.now;
	p.window = window;
	n = otp_diagnose(&p, argv[1], f, OTP_DIAG_MAX);
	otp_wipe(line, sizeof(line));
	if (n == OTP_ECODE)
		errx(CLI_EXIT_ERR, "OTP: %s (want 6 to 10 decimal digits)",
		    otp_strerror(n));
	if (n == OTP_EWINDOW)
		errx(CLI_EXIT_ERR, "--window: at most %d for --diagnose",
		    OTP_DIAG_WINDOW_MAX);
	if (n < 0)
		errx(CLI_EXIT_ERR, "%s", otp_strerror(n));
	if (n == 0) {
		if (!v->quiet)
			warnx("no common mistake explains this code");
		return 1;
	}
	/* One answer: the likeliest explanation, then the others that fit
	 * less well, each marked as an alternative.  A code that verifies
	 * as given needs no other. */
	for (i = 0; i < n && (i == 0 || f[0].differs != 0); i++) {
		if (i > 0)
			printf("or: ");
		print_finding(&p, &f[i], strlen(argv[1]));
	}
	return 0;
}

/* -w for a users file: counters or steps either side, as pam_oath's
 * window= (at most 1000); OTP_USERS_WINDOW without -w. */
static unsigned
users_window(const struct verify *v)
{
	if (!v->o.have_window)
		return OTP_USERS_WINDOW;
	if (v->o.window > 1000)
		errx(CLI_EXIT_ERR, "--window: '%" PRIu64 "': at most 1000 with "
		    "--usersfile", v->o.window);
	return (unsigned)v->o.window;
}

/* ---- --store: a code against a store (ga:, oath:, otpw:) ------------ */

/* After an owner refusal's reason: what allows the file, or "". */
static const char *
owner_option(int rc)
{
	if (rc == OTP_ESTATEOWNER)
		return "; --no-strict-owner allows it";
	if (rc == OTP_EOTPWOWNER)
		return "; only its owner or root may use it";
	return "";
}

/* A store that cannot be used, in the words of the option that named it:
 * errno's text for I/O, the line and option of a malformed file, never a
 * byte of it. */
static void __attribute__((noreturn))
store_fault(struct sys_login *l, const char *path, int rc)
{
	const char *opt = NULL, *shown;
	size_t line = 0;

	/* The path may be a URL, a database's words are a server's: shown
	 * escaped, as text from outside always is. */
	shown = cli_esc(path);
	if (l != NULL) {
		sys_login_fault(l, &line, &opt);
		errno = sys_login_errno(l);
		/* A database's own words (a key file's included), or
		 * whose a file is and whose it should be. */
		if (*sys_login_reason(l) != '\0')
			errx(CLI_EXIT_ERR, "%s: %s: %s%s", shown,
			    otp_strerror(rc), cli_esc(sys_login_reason(l)),
			    owner_option(rc));
	}
	if (rc == OTP_EIO || rc == OTP_ELOCK)
		err(CLI_EXIT_ERR, "%s", shown);
	if (rc == OTP_EREADONLY)
		err(CLI_EXIT_ERR, "%s: cannot be updated, so the code is "
		    "refused", shown);
	if (line == 0)
		errx(CLI_EXIT_ERR, "%s: %s", shown, otp_strerror(rc));
	if (opt == NULL)
		errx(CLI_EXIT_ERR, "%s: line %zu: %s", shown, line,
		    otp_strerror(rc));
	errx(CLI_EXIT_ERR, "%s: line %zu: %s: \" %s", shown, line,
	    otp_strerror(rc), opt);
}

/* For a database's audit trail: the RADIUS client (NAS) that asks. */
static const char *
radius_origin(void)
{
	static char origin[160];
	char id[64], ip[48];

	if (sys_radius_attr("NAS_IDENTIFIER", id, sizeof(id)) < 0)
		id[0] = '\0';
	if (sys_radius_attr("NAS_IP_ADDRESS", ip, sizeof(ip)) < 0)
		ip[0] = '\0';
	if (id[0] == '\0' && ip[0] == '\0')
		return NULL;
	(void)snprintf(origin, sizeof(origin), "nas=%s%s%s", id,
	    id[0] != '\0' && ip[0] != '\0' ? "/" : "", ip);
	return origin;
}

/* The rules the command line sets for the store. */
static void
store_cfg(const struct verify *v, struct sys_store_cfg *c)
{
	sys_store_cfg_init(c);
	if (v->mode == MODE_RADIUS)
		c->origin = radius_origin();
	c->ga.flags = v->state_flags;
	if (v->have_perm)
		c->ga.allowed_perm = v->allowed_perm;
	c->window = users_window(v);
	/* As pam_oath's digits=: a longer answer is a PIN, then the code. */
	c->digits = v->o.have_digits ? v->o.digits : 0;
	c->dry = v->dry_run;
	c->now = v->o.have_now ? v->o.now : SYS_NOW_REAL;
	/* An OTPW list must be ours; root may check anybody's. */
	c->owner = geteuid() == 0 ? SYS_OWNER_ANY : (unsigned long)geteuid();
	/* The debuggers only read: a file the kernel lets us read is
	 * theirs to read, whoever owns it (root on a user's file). */
	if (v->mode == MODE_FINDSKEW || v->mode == MODE_DIAGNOSE ||
	    v->mode == MODE_INTERACTIVE)
		c->ga.flags |= OTP_STATE_NOSTRICTOWNER;
	c->nolock = 1;	/* one response, no prompt to hold a lock over */
	c->group_read = v->group_read;
	c->unshared = v->unshared;
	c->deny = v->deny;
	c->unlock_time = v->unlock_time;
	c->store_key = v->store_key;
	c->deadline_ms = v->deadline_ms;
	c->module = cli_store_module();
}

/* Open url, or exit 2 naming it as the option spelt it. */
static struct sys_store *
store_open(const struct verify *v, const char *url)
{
	struct sys_store_cfg c;
	struct sys_store *s;
	int rc;

	store_cfg(v, &c);
	if ((rc = sys_store_open(url, &c, &s)) != 0)
		cli_store_open_fail(v->spelled, url, rc);
	return s;
}

/* The user a store of many users is asked about: --user, or the
 * invoking user's name. */
static const char *
store_user(const struct verify *v, const struct sys_store *s)
{
	struct passwd *pw;
	const char *user = v->user;

	if (!(sys_store_caps(s) & SYS_STORE_MANY))
		return NULL;
	if (user == NULL) {
		if ((pw = getpwuid(getuid())) == NULL)
			errx(CLI_EXIT_ERR, "cannot name the invoking user; "
			    "give --user");
		user = pw->pw_name;
	}
	if (*user == '\0' || strlen(user) >= OTP_USERS_FIELD_MAX ||
	    (!(sys_store_caps(s) & SYS_STORE_SHARED) &&
	    strpbrk(user, " \t\r\n") != NULL))
		errx(CLI_EXIT_ERR, "--user: '%s': %s", user,
		    otp_strerror(OTP_EUSERSFIELD));
	return user;
}

/* A login that found no token: exit 2, as a missing file is. */
static void __attribute__((noreturn))
store_unknown(const struct sys_store *s, const char *user)
{
	if (user != NULL && (sys_store_caps(s) & SYS_STORE_SHARED))
		errx(CLI_EXIT_ERR, "%s: '%s': no token for this user",
		    cli_esc(sys_store_path(s)), cli_esc(user));
	if (user != NULL)
		errx(CLI_EXIT_ERR, "%s: '%s': %s", cli_esc(sys_store_path(s)),
		    cli_esc(user),
		    otp_strerror(OTP_EUSERSUNKNOWN));
	errno = ENOENT;
	err(CLI_EXIT_ERR, "%s", cli_esc(sys_store_path(s)));
}

static void
store_explain(const struct verify *v, const struct sys_store *s,
    const struct sys_verdict *r)
{
	unsigned caps = sys_store_caps(s);
	int many = (caps & SYS_STORE_MANY) && !(caps & SYS_STORE_SHARED);

	if (r->accepted && r->how == SYS_BY_SCRATCH)
		fprintf(stderr, "Accepted an emergency scratch code; it is now "
		    "deleted.\n");
	else if (r->accepted && many)
		fprintf(stderr, "Accepted by line %zu, counter %" PRIu64 "; "
		    "users file %s.\n", r->line, r->counter, v->dry_run ?
		    "not written (dry run)" : "updated");
	else if (r->accepted && r->how == SYS_BY_CODE)
		fprintf(stderr, "Accepted counter %" PRIu64 ", offset %s%"
		    PRId64 "; time skew now %" PRId64 " step%s.\n", r->counter,
		    r->offset > 0 ? "+" : "", r->offset, r->skew,
		    r->skew == 1 || r->skew == -1 ? "" : "s");
	if (many)
		return;
	if (caps & SYS_STORE_SHARED) {
		fprintf(stderr, "Database %s.\n", v->dry_run ? "not written "
		    "(dry run)" : r->recorded ? "updated" : "unchanged");
		return;
	}
	if (v->dry_run)
		fprintf(stderr, "State file %s (dry run: not written).\n",
		    r->changed ? "would be updated" : "would be unchanged");
	else
		fprintf(stderr, "State file %s.\n", r->recorded ? "updated" :
		    r->changed ? "NOT updated" : "unchanged");
}

/* An OTPW list: print the challenge to answer (--challenge alone), or
 * check a response to it (or to --challenge=NNN) and mark it used. */
static int
store_response(const struct verify *v, struct sys_store *s, int argc,
    char *argv[])
{
	char resp[OTP_OTPW_RESP_MAX];
	struct sys_verdict r;
	struct otp_answer a;
	struct sys_login *l;
	int rc;

	if (v->challenge && v->chal == NULL && argc > 0)
		cli_usage_error("--challenge without a value prints the "
		    "number; it takes no RESPONSE");
	if (argc > 1)
		cli_usage_error("%s takes at most one RESPONSE operand",
		    v->spelled);
	if ((rc = sys_login_open(s, NULL, &l)) != 0)
		store_fault(NULL, sys_store_path(s), rc);
	memset(&r, 0, sizeof(r));
	if (v->chal != NULL) {
		rc = sys_login_challenge(l, v->chal);
		if (rc == OTP_EOTPWUNKNOWN) {
			if (!v->quiet)
				warnx("--challenge=%s: %s (used already?)",
				    v->chal, otp_strerror(rc));
			sys_login_free(l);
			return 1;
		}
		if (rc == OTP_EOTPWCHAL)
			errx(CLI_EXIT_ERR, "--challenge=%s: %s", v->chal,
			    otp_strerror(rc));
	} else if ((rc = sys_login_begin(l, &r)) == OTP_EOTPWEMPTY) {
		if (!v->quiet)
			warnx("%s: %s", sys_store_path(s), otp_strerror(rc));
		sys_login_free(l);
		return 1;
	}
	if (rc != 0)
		store_fault(l, sys_store_path(s), rc);
	if (r.unknown)
		store_unknown(s, NULL);
	if (v->challenge && v->chal == NULL) {
		printf("%s\n", r.challenge);
		sys_login_free(l);
		return 0;
	}
	cli_lock(resp, sizeof(resp));
	if (cli_key_read(argc > 0 ? argv[0] : NULL, resp, sizeof(resp)) != 0)
		exit(CLI_EXIT_ERR);
	if (argc == 0 || strcmp(argv[0], "-") == 0)
		stdin_end();
	a.text = resp;
	a.kind = OTP_ANSWER_CODE;
	rc = sys_login_end(l, &a, 1, &r);
	otp_wipe(resp, sizeof(resp));
	if (rc != 0)
		store_fault(l, sys_store_path(s), rc);
	sys_login_free(l);
	if (!r.accepted) {
		not_accepted(v, NULL);
		return 1;
	}
	/* A bare number would read as an offset, as the other stores
	 * print. */
	printf("%u of %u passwords left\n", r.remaining, r.entries);
	return 0;
}

/* The code of an answer: with -d, a users file's answer is a PIN and then
 * a code of that many digits, split as pam_oath's digits= splits it. */
static const char *
answer_code(const struct verify *v, const char *answer)
{
	size_t n = strlen(answer);

	if (!v->o.have_digits || n <= v->o.digits)
		return answer;
	return answer + n - v->o.digits;
}

static int
do_store(const struct verify *v, int argc, char *argv[])
{
	struct sys_store *s = store_open(v, v->store);
	const char *path = sys_store_path(s), *user, *want;
	char code[ANSWER_MAX + 2];
	struct sys_verdict r;
	struct otp_answer a;
	struct sys_login *l;
	int rc;

	if (sys_store_caps(s) & SYS_STORE_CHALLENGE) {
		rc = store_response(v, s, argc, argv);
		sys_store_close(s);
		return rc;
	}
	if (v->challenge)
		cli_usage_error("--challenge needs --otpw");
	if (argc > 1)
		cli_usage_error("%s takes at most one OTP operand",
		    v->spelled);
	user = store_user(v, s);
	/* "--state 123456": the file name was forgotten and getopt took the
	 * code for it.  Say so, rather than wait for a code on stdin. */
	if (argc == 0 && sys_store_code_shape(s, path, NULL) == 0 &&
	    access(path, F_OK) != 0 && errno == ENOENT) {
		sys_store_close(s);
		cli_usage_error("%s '%s': no such file, and it looks like a "
		    "code: %s FILE [OTP]", v->spelled, v->spelled_arg,
		    v->spelled);
	}
	read_code(argc == 1 ? argv[0] : NULL, code, sizeof(code));
	/* A login module would just refuse it; for a tool that is
	 * malformed input, not a wrong code. */
	if (sys_store_code_shape(s, answer_code(v, code), &want) != 0) {
		/* Longer than a code: a PIN, most likely. */
		int pin = !v->o.have_digits && strlen(code) > USERS_DIGITS_MAX &&
		    (sys_store_caps(s) & SYS_STORE_MANY) != 0;

		otp_wipe(code, sizeof(code));
		sys_store_close(s);
		errx(CLI_EXIT_ERR, "OTP: %s (want %s%s)",
		    otp_strerror(OTP_ECODE), want, pin ? "; a PIN before the "
		    "code needs -d DIGITS" : "");
	}
	if ((rc = sys_login_open(s, user, &l)) != 0)
		store_fault(NULL, path, rc);
	a.text = code;
	a.kind = OTP_ANSWER_CODE;
	rc = sys_login_check(l, &a, 1, &r);
	otp_wipe(code, sizeof(code));
	if (rc != 0)
		store_fault(l, path, rc);
	sys_login_free(l);
	if (r.unknown)
		store_unknown(s, user);
	if (v->verbose)
		store_explain(v, s, &r);
	if (r.accepted && !r.recorded && r.changed && !v->dry_run &&
	    !v->quiet)
		warnx("%s: accepted, but the update could not be recorded",
		    path);
	sys_store_close(s);
	if (!r.accepted) {
		not_accepted(v, r.why);
		return 1;
	}
	if (r.how == SYS_BY_SCRATCH)
		printf("scratch\n");
	else if (r.how == SYS_BY_GRACE)
		printf("grace\n");
	else
		print_signed(r.offset);
	return 0;
}

/* ---- --radius: one request of FreeRADIUS's rlm_exec ----------------- */

/*
 * The user name and the code are request attributes in the environment;
 * the answer is the exit status (0 Access-Accept, 1 Access-Reject, 2 an
 * error, which the server turns into a reject) and reply lines on stdout:
 * a Reply-Message that tells the client no more than a PAM prompt would,
 * and for a refusal or an error a Module-Failure-Message with the reason,
 * which the server logs beside the user's name and never sends.  The code
 * is never shown.
 */

static void
radius_say(const char *attr, const char *text)
{
	char line[512];

	if (otp_radius_pair(attr, text, line, sizeof(line)) > 0)
		fputs(line, stdout);
}

/* A request that cannot be answered: say why (with errno's text when
 * with_errno), reply without detail, exit 2. */
static void __attribute__((noreturn, format(printf, 2, 3)))
radius_fail(int with_errno, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	int e = errno;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (with_errno) {
		size_t n = strlen(msg);

		(void)snprintf(msg + n, sizeof(msg) - n, ": %s", strerror(e));
	}
	warnx("%s", msg);
	radius_say("Reply-Message", "OTP check failed");
	radius_say("Module-Failure-Message", msg);
	cli_exit(CLI_EXIT_ERR);
}

/* An attribute into buf, or exit 2 naming it (never its value). */
static void
radius_attr(const char *var, const char *attr, char *buf, size_t size)
{
	int rc;

	if ((rc = sys_radius_attr(var, buf, size)) >= 0)
		return;
	if (rc == OTP_EEMPTY)
		radius_fail(0, "%s: not in the request (no %s in the "
		    "environment; rlm_exec needs input_pairs = request)",
		    attr, var);
	radius_fail(0, "%s: %s", attr, otp_strerror(rc == OTP_ETOOLONG ?
	    OTP_ETOOLONG : rc));
}

/* The store URL with ${USER} replaced by the request's (checked) name. */
static void
radius_url(const char *spec, const char *user, char *out, size_t size)
{
	if (sys_store_url_user(spec, user, out, size) != 0)
		radius_fail(0, "%s: store path too long", cli_esc(user));
}

/* The request's user's token in the store: decided and recorded as a
 * login is, by the server's account, which owns the files.  Returns the
 * exit status; *why gets the refusal's reason. */
static int
radius_check(const struct verify *v, const char *user, char *code,
    const char **why)
{
	char url[PATH_MAX + 16];
	struct sys_store *s;
	struct sys_login *l;
	struct sys_verdict r;
	struct otp_answer a;
	const char *path, *opt = NULL;
	char reason[512], who[OTP_USERS_FIELD_MAX * 4 + 8];
	size_t line = 0;
	int rc;

	radius_url(v->store, user, url, sizeof(url));
	s = store_open(v, url);
	/* The name came from the network, a database's reason from its
	 * server: both shown escaped, the path too (it holds the name). */
	(void)snprintf(who, sizeof(who), "%s", cli_esc(user));
	path = cli_esc(sys_store_path(s));
	/* Not a code's shape: a wrong answer, refused without reading the
	 * store (so without counting it against RATE_LIMIT). */
	if (sys_store_code_shape(s, answer_code(v, code), NULL) != 0) {
		*why = sys_store_shape_why(s);
		sys_store_close(s);
		return 1;
	}
	if ((rc = sys_login_open(s, user, &l)) != 0) {
		sys_store_close(s);
		radius_fail(0, "%s: %s: %s", who, path, otp_strerror(rc));
	}
	a.text = code;
	a.kind = OTP_ANSWER_CODE;
	rc = sys_login_check(l, &a, 1, &r);
	sys_login_fault(l, &line, &opt);
	(void)snprintf(reason, sizeof(reason), "%s", sys_login_reason(l));
	errno = sys_login_errno(l);
	sys_login_free(l);
	/* The messages below are copies (path, reason): the store goes
	 * before the exit, which frees nothing. */
	if (rc != 0) {
		int e = errno;

		sys_store_close(s);
		errno = e;
	}
	if (rc == OTP_EIO || rc == OTP_ELOCK)
		radius_fail(1, "%s: %s", who, path);
	if (rc == OTP_EREADONLY)
		radius_fail(1, "%s: %s: cannot be updated, so the code is "
		    "refused", who, path);
	if (rc != 0 && line > 0)
		radius_fail(0, "%s: %s: line %zu: %s%s%s", who, path, line,
		    otp_strerror(rc), opt != NULL ? ": \" " : "",
		    opt != NULL ? opt : "");
	if (rc != 0 && *reason != '\0')
		radius_fail(0, "%s: %s: %s: %s%s", who, path, otp_strerror(rc),
		    cli_esc(reason), owner_option(rc));
	if (rc != 0)
		radius_fail(0, "%s: %s: %s", who, path, otp_strerror(rc));
	if (r.accepted && !r.recorded && r.changed && !v->dry_run)
		warnx("%s: %s: accepted, but the update could not be recorded",
		    who, path);
	/* Not enrolled: a clean no, as for a wrong code. */
	if (!r.accepted) {
		*why = r.why != NULL ? r.why : "code not accepted";
		sys_store_close(s);
		return 1;
	}
	if (v->verbose && r.line > 0)
		fprintf(stderr, "%s: accepted by line %zu of %s%s\n", who,
		    r.line, path, v->dry_run ? " (dry run: not recorded)" : "");
	else if (v->verbose)
		fprintf(stderr, "%s: accepted %s\n", who,
		    r.how == SYS_BY_SCRATCH ? "an emergency scratch code" :
		    "a verification code");
	sys_store_close(s);
	return 0;
}

static int
do_radius(const struct verify *v, int argc, char *argv[])
{
	char user[OTP_USERNAME_MAX + 2], code[ANSWER_MAX + 2];
	const char *why = NULL;
	struct stat sb;
	size_t off = 0;
	int status;

	(void)argv;
	if (argc > 0)
		cli_usage_error("--radius takes no operands: the request is "
		    "in the environment");
	/* A missing directory is a set-up error, not a user without a file. */
	if (v->state_dir != NULL) {
		if (stat(v->state_dir, &sb) != 0)
			radius_fail(1, "--state-dir '%s'", v->state_dir);
		if (!S_ISDIR(sb.st_mode)) {
			errno = ENOTDIR;
			radius_fail(1, "--state-dir '%s'", v->state_dir);
		}
	}
	cli_lock(code, sizeof(code));
	radius_attr("USER_NAME", "User-Name", user, sizeof(user));
	/* The name comes from the network: only a plain login name may
	 * name a file (a database's rows take any).  Only its safe part is
	 * shown. */
	if (!(store_caps(v) & SYS_STORE_SHARED) &&
	    otp_user_check(user, &off) != 0) {
		if (off >= OTP_USERNAME_MAX)
			radius_fail(0, "User-Name: longer than %d characters",
			    OTP_USERNAME_MAX);
		if (off == 0 && user[0] == '\0')
			radius_fail(0, "User-Name: empty");
		radius_fail(0, "User-Name: character %zu (0x%02x) is not "
		    "allowed: %s", off + 1, (unsigned char)user[off],
		    otp_strerror(OTP_EUSERNAME));
	}
	radius_attr("USER_PASSWORD", "User-Password", code, sizeof(code));
	status = radius_check(v, user, code, &why);
	otp_wipe(code, sizeof(code));
	if (status == 0) {
		radius_say("Reply-Message", "OTP accepted");
		return 0;
	}
	if (!v->quiet)
		warnx("%s: code not accepted: %s", cli_esc(user), why);
	radius_say("Reply-Message", "OTP not accepted");
	radius_say("Module-Failure-Message", why);
	return 1;
}

/* ---- the token a debugging mode works on ------------------------------ */

/* The token user has in the store, read only: the store's own export (a
 * state file image; no lock taken, nothing written), parsed. */
static void
store_token(const struct verify *v, struct token *t)
{
	struct sys_store *s = store_open(v, v->store);
	const char *path = sys_store_path(s), *user;
	unsigned caps = sys_store_caps(s), w;
	struct otp_state *st;
	size_t len = 0;
	char *img;
	int rc;

	if (caps & SYS_STORE_CHALLENGE)
		cli_usage_error("%s: an OTPW list holds no key to debug",
		    v->spelled);
	user = store_user(v, s);
	if ((img = malloc(OTP_STATE_MAX)) == NULL ||
	    (st = malloc(sizeof(*st))) == NULL)
		err(CLI_EXIT_ERR, "malloc");
	cli_lock(img, OTP_STATE_MAX);
	cli_lock(st, sizeof(*st));
	rc = sys_store_export(s, user, img, OTP_STATE_MAX, &len);
	if (rc == 0)
		rc = otp_state_parse(img, len, st);
	otp_wipe(img, OTP_STATE_MAX);
	free(img);
	if (rc == OTP_EUSERSUNKNOWN)
		store_unknown(s, user);
	if (rc == OTP_ECONVERT)
		errx(CLI_EXIT_ERR, "%s: '%s': %s (%s)", cli_esc(path),
		    cli_esc(user != NULL ? user : ""), "not a token the debugger can read through the "
		    "store", cli_esc(sys_store_reason(s)));
	if (rc != 0 && *sys_store_reason(s) != '\0')
		errx(CLI_EXIT_ERR, "%s: %s: %s", cli_esc(path),
		    otp_strerror(rc), cli_esc(sys_store_reason(s)));
	if (rc != 0)
		store_fault(NULL, path, rc);
	if (st->mode == OTP_STATE_SCRATCHONLY)
		errx(CLI_EXIT_ERR, "%s: scratch codes only: no key to debug",
		    path);
	cli_lock(t, sizeof(*t));
	memset(t, 0, sizeof(*t));
	otp_uri_init(&t->u);
	t->u.type = st->mode == OTP_STATE_HOTP ? OTP_TYPE_HOTP : OTP_TYPE_TOTP;
	t->u.period = st->step;
	t->u.counter = st->hotp_counter;
	t->u.key = st->key;
	/* DIGITS: a users file's 7 or 8 (its PIN is not the phone's). */
	t->digits = st->digits != 0 ? st->digits : OTP_DEFAULT_DIGITS;
	/* The phone was given the key in Base32: a hex reading of it is
	 * the mistake the diagnosis looks for. */
	if (otp_b32_encode(st->key.buf, st->key.len, t->text, sizeof(t->text),
	    OTP_B32_NOPAD) < 0)
		errx(CLI_EXIT_ERR, "%s: %s", path, otp_strerror(OTP_EKEYLONG));
	t->enc = OTP_KEYENC_BASE32;
	if ((caps & SYS_STORE_MANY) && !(caps & SYS_STORE_SHARED)) {
		/* A users file's window is the verifier's (pam_oath's
		 * window=, -w here), either side; HOTP: ahead only, from
		 * the next counter. */
		w = users_window(v);
		t->lo = st->mode == OTP_STATE_HOTP ? 0 : -(int64_t)w;
		t->hi = w;
		snprintf(t->rule, sizeof(t->rule), "the users file's window "
		    "%u%s", w, v->o.have_window ? " (-w)" : "");
	} else if (st->mode == OTP_STATE_HOTP) {
		/* As the state file engine: WINDOW_SIZE counters from
		 * HOTP_COUNTER on. */
		t->lo = 0;
		t->hi = st->window > 0 ? (int64_t)st->window - 1 : 0;
		snprintf(t->rule, sizeof(t->rule), "WINDOW_SIZE %u",
		    st->window);
	} else {
		/* As the state file engine: WINDOW_SIZE codes around the
		 * step now plus TIME_SKEW. */
		t->lo = st->skew - (int64_t)((st->window - 1) / 2);
		t->hi = st->skew + (int64_t)(st->window / 2);
		snprintf(t->rule, sizeof(t->rule), "WINDOW_SIZE %u, "
		    "TIME_SKEW %+" PRId64, st->window, st->skew);
	}
	if (user != NULL)
		snprintf(t->source, sizeof(t->source), "%s:%s, user %s",
		    sys_store_scheme(s), path, user);
	else
		snprintf(t->source, sizeof(t->source), "%s:%s",
		    sys_store_scheme(s), path);
	/* For the resync hint: a database's path is its URL already. */
	if (caps & SYS_STORE_SHARED)
		snprintf(t->url, sizeof(t->url), "%s", path);
	else
		snprintf(t->url, sizeof(t->url), "%s:%s", sys_store_scheme(s),
		    path);
	snprintf(t->user, sizeof(t->user), "%s", user != NULL ? user : "");
	otp_wipe(st, sizeof(*st));
	free(st);
	sys_store_close(s);
}

/* The token of a KEY operand, its parameters from the command line. */
static void
key_token(const struct verify *v, const char *arg, struct token *t)
{
	cli_lock(t, sizeof(*t));
	memset(t, 0, sizeof(*t));
	if (cli_key_read(arg, t->text, sizeof(t->text)) != 0)
		exit(CLI_EXIT_ERR);
	otp_uri_init(&t->u);
	if (cli_key_text(&v->o, t->text, NULL, &t->u) != 0) {
		otp_wipe(t, sizeof(*t));
		exit(CLI_EXIT_ERR);
	}
	check_combination(v, &t->u);
	t->enc = v->o.enc;
	t->digits = digits_in_force(v, &t->u);
	/* HOTP: counters c..c+N, as a check; TOTP: steps either side. */
	t->lo = t->u.type == OTP_TYPE_HOTP ? 0 : -(int64_t)v->o.window;
	t->hi = (int64_t)v->o.window;
	snprintf(t->rule, sizeof(t->rule), "-w %" PRIu64 "%s", v->o.window,
	    v->o.have_window ? "" : ", the default");
	snprintf(t->source, sizeof(t->source), "the key");
}

static int
do_interactive(const struct verify *v, int argc, char *argv[])
{
	static struct token t;
	struct live l;
	int status;

	if (v->store != NULL) {
		if (argc > 0)
			cli_usage_error("--interactive reads the codes from "
			    "standard input, not operands");
		store_token(v, &t);
	} else {
		if (argc != 1)
			cli_usage_error(argc == 0 ? "missing KEY" :
			    "--interactive takes KEY alone: the codes come "
			    "from standard input");
		if (strcmp(argv[0], "-") == 0 || strcmp(argv[0], "@-") == 0)
			cli_usage_error("--interactive reads the codes from "
			    "standard input: give KEY as an operand or "
			    "@FILE");
		key_token(v, argv[0], &t);
	}
	if (t.u.steam) {
		otp_wipe(&t, sizeof(t));
		errx(CLI_EXIT_ERR, "--interactive debugs TOTP and HOTP codes, "
		    "not Steam Guard ones");
	}
	(void)centre_of(v, &t.u);	/* refuses --now before --start-time */
	memset(&l, 0, sizeof(l));
	l.u = &t.u;
	l.digits = t.digits;
	l.start = v->store != NULL ? 0 : v->o.start;
	l.keytext = t.text;
	l.enc = t.enc;
	l.lo = t.lo;
	l.hi = t.hi;
	l.window = (uint64_t)(t.hi > -t.lo ? t.hi : -t.lo);
	if (l.window > OTP_DIAG_WINDOW_MAX)
		l.window = OTP_DIAG_WINDOW_MAX;
	l.source = t.source;
	l.url = v->store != NULL ? t.url : NULL;
	l.user = t.user;
	snprintf(l.rule, sizeof(l.rule), "%s", t.rule);
	l.around = v->have_around ? v->around : LIVE_AROUND_DEFAULT;
	l.fake = v->o.have_now;
	l.now = v->o.now;
	l.show_key = v->show_key;
	status = live_run(&l);
	otp_wipe(&t, sizeof(t));
	return status;
}

static int
key_mode(enum mode m)
{
	return m == MODE_FINDSKEW || m == MODE_DIAGNOSE ||
	    m == MODE_INTERACTIVE;
}

static void
set_mode(struct verify *v, enum mode m)
{
	/* --radius with a store: the request's user in the store. */
	if ((v->mode == MODE_RADIUS && m == MODE_STORE && v->radius_ok) ||
	    (v->mode == MODE_STORE && m == MODE_RADIUS && v->radius_ok)) {
		v->mode = MODE_RADIUS;
		return;
	}
	/* --find-skew, --diagnose and -i take their key from a store. */
	if (key_mode(m) && v->mode == MODE_STORE) {
		v->mode = m;
		return;
	}
	if (m == MODE_STORE && key_mode(v->mode))
		return;
	if (v->mode != MODE_VERIFY && v->mode != m)
		cli_usage_error("--find-skew, --diagnose, --interactive, "
		    "--radius and a store's check exclude each other");
	v->mode = m;
}

/* Name the store: a --store URL, or one of the spellings it replaces. */
static void
set_store(struct verify *v, enum mode m, const char *spelled,
    const char *scheme, const char *arg)
{
	int n;

	if (v->spelled != NULL && strcmp(v->spelled, spelled) != 0)
		cli_usage_error("%s and %s exclude each other",
		    strcmp(v->spelled, spelled) < 0 ? v->spelled : spelled,
		    strcmp(v->spelled, spelled) < 0 ? spelled : v->spelled);
	if (m != MODE_RADIUS || v->mode != MODE_VERIFY)
		set_mode(v, m);
	v->spelled = spelled;
	v->spelled_arg = arg;
	if (scheme == NULL) {
		v->store = arg;
		return;
	}
	n = snprintf(v->url, sizeof(v->url), "%s:%s", scheme, arg);
	if (n < 0 || (size_t)n >= sizeof(v->url))
		errx(CLI_EXIT_ERR, "%s: path too long", spelled);
	v->store = v->url;
}

/* Key parameters on the command line: none apply where a store holds
 * them. */
static int
key_params_given(const struct cli_otp *o, int digits_apply)
{
	return o->have_type || o->have_alg ||
	    (o->have_digits && !digits_apply) ||
	    o->have_counter || o->have_step || o->have_start || o->strict ||
	    o->enc != OTP_KEYENC_HEX;
}

/* What the named store is like (no file is read). */
static unsigned
store_caps(const struct verify *v)
{
	struct sys_store *s = store_open(v, v->store);
	unsigned caps = sys_store_caps(s);

	sys_store_close(s);
	return caps;
}

/* --find-skew, --diagnose and -i with a store: its token is only read,
 * so what would change it does not apply, nor do the parameters it
 * holds. */
static void
check_key_store(const struct verify *v)
{
	unsigned caps = store_caps(v);
	const char *mode = v->mode == MODE_FINDSKEW ? "--find-skew" :
	    v->mode == MODE_DIAGNOSE ? "--diagnose" : "--interactive";

	if (caps & SYS_STORE_CHALLENGE)
		cli_usage_error("%s: an OTPW list holds no key to debug",
		    v->spelled);
	if (v->o.steam || v->o.motp)
		cli_usage_error("--steam and --motp apply to plain "
		    "verification only");
	if (key_params_given(&v->o, 0))
		cli_usage_error("with %s the store holds the key's parameters; "
		    "only --now, --window and --user apply", v->spelled);
	if (v->dry_run || v->challenge || (v->state_flags &
	    ~(unsigned)OTP_STATE_NOSTRICTOWNER) != 0 ||
	    (v->oath_opt != NULL && !v->group_read) || v->unshared ||
	    v->deny != 0 || v->unlock_time != 0)
		cli_usage_error("%s only reads the store: --dry-run, "
		    "--challenge, --no-skew-adjust, --no-increment-hotp, "
		    "--allow-readonly, --deny, --unlock-time and "
		    "--pam-oath-shared do not apply", mode);
	if (v->user != NULL && !(caps & SYS_STORE_MANY))
		cli_usage_error("--user needs a store of many users "
		    "(--usersfile, postgresql://)");
	if (v->group_read && (!(caps & SYS_STORE_MANY) ||
	    (caps & SYS_STORE_SHARED)))
		cli_usage_error("--allow-group-read needs --usersfile");
	if ((v->store_key != NULL || v->deadline_ms != 0) &&
	    !(caps & SYS_STORE_SHARED))
		cli_usage_error("--store-key and --store-timeout need "
		    "--store=postgresql://...");
	if (v->mode == MODE_INTERACTIVE && v->o.have_window &&
	    (!(caps & SYS_STORE_MANY) || (caps & SYS_STORE_SHARED)))
		cli_usage_error("with %s the store's WINDOW_SIZE and TIME_SKEW "
		    "say what is admitted; --window does not apply",
		    v->spelled);
}

/* Options that make no sense in the chosen mode are usage errors. */
static void
check_options(const struct verify *v)
{
	const struct cli_otp *o = &v->o;
	unsigned caps = 0;
	int store = v->mode == MODE_STORE || v->mode == MODE_RADIUS;

	cli_otp_check(o, NULL, NULL);
	if ((v->have_around || v->show_key) && v->mode != MODE_INTERACTIVE)
		cli_usage_error("--around and --show-key need --interactive");
	if (key_mode(v->mode) && v->store != NULL) {
		check_key_store(v);
		return;
	}
	if ((v->o.steam || v->o.motp) && v->mode != MODE_VERIFY)
		cli_usage_error("--steam and --motp apply to plain "
		    "verification only");
	if (o->window > OTP_WINDOW_MAX)
		errx(CLI_EXIT_ERR, "--window: '%" PRIu64 "': at most %llu",
		    o->window, OTP_WINDOW_MAX);
	if (v->state_dir != NULL && v->mode != MODE_RADIUS)
		cli_usage_error("--state-dir needs --radius");
	if (v->mode == MODE_RADIUS && v->store == NULL)
		cli_usage_error("--radius needs --state-dir=DIR or "
		    "--usersfile=FILE (or --store=URL)");
	if (store)
		caps = store_caps(v);
	if (v->challenge && !(caps & SYS_STORE_CHALLENGE))
		cli_usage_error("--challenge needs --otpw");
	if (v->user != NULL && v->mode == MODE_RADIUS)
		cli_usage_error("--user does not apply with --radius: the user "
		    "is the request's User-Name");
	if (v->user != NULL && !(caps & SYS_STORE_MANY))
		cli_usage_error("--user needs --usersfile");
	if (v->oath_opt != NULL && (!(caps & SYS_STORE_MANY) ||
	    caps & SYS_STORE_SHARED))
		cli_usage_error("%s needs --usersfile", v->oath_opt);
	if (v->limit_opt != NULL && !(caps & SYS_STORE_MANY))
		cli_usage_error("%s needs --usersfile or "
		    "--store=postgresql://...", v->limit_opt);
	if ((v->store_key != NULL || v->deadline_ms != 0) &&
	    !(caps & SYS_STORE_SHARED))
		cli_usage_error("--store-key and --store-timeout need "
		    "--store=postgresql://...");
	if (caps & SYS_STORE_CHALLENGE) {
		if (v->mode == MODE_RADIUS)
			cli_usage_error("--radius cannot answer an OTPW "
			    "challenge");
		if (key_params_given(o, 0) || o->have_window || o->have_now ||
		    v->verbose || v->state_flags != 0 || v->have_perm ||
		    v->dry_run)
			cli_usage_error("with %s the file sets everything; "
			    "only -q and --challenge apply", v->spelled);
	} else if (caps & SYS_STORE_SHARED) {
		if (key_params_given(o, 0) || o->have_window || v->have_perm ||
		    (v->state_flags & (OTP_STATE_NOSTRICTOWNER |
		    OTP_STATE_ALLOWRO)))
			cli_usage_error("with %s%s the database sets the "
			    "parameters; only --now, --dry-run, "
			    "--no-skew-adjust, --no-increment-hotp%s apply",
			    v->mode == MODE_RADIUS ? "--radius " : "",
			    v->spelled, v->mode == MODE_RADIUS ? "" :
			    " and --user");
	} else if (caps & SYS_STORE_MANY) {
		if (key_params_given(o, 1) || v->state_flags != 0 ||
		    v->have_perm)
			cli_usage_error("with %s%s the file sets the "
			    "parameters; only -d, --now, --window%s and "
			    "--dry-run apply", v->mode == MODE_RADIUS ?
			    "--radius " : "", v->spelled,
			    v->mode == MODE_RADIUS ? "" : ", --user");
		if (o->have_digits && (o->digits < 6 ||
		    o->digits > USERS_DIGITS_MAX))
			cli_usage_error("-d: a users file's codes have 6 to %d "
			    "digits", USERS_DIGITS_MAX);
	} else if (store) {
		if (key_params_given(o, 0) || o->have_window)
			cli_usage_error("with %s the file sets the "
			    "parameters; only --now applies",
			    v->mode == MODE_RADIUS ? "--radius" : v->spelled);
	} else if (v->state_flags != 0 || v->have_perm || v->dry_run)
		cli_usage_error("--no-skew-adjust, --no-increment-hotp, "
		    "--no-strict-owner, --allowed-perm, --allow-readonly and "
		    "--dry-run need --state or --radius");
}

int
main(int argc, char *argv[])
{
	struct verify v = { .mode = MODE_VERIFY };
	uint64_t n;
	int ch, status;

	cli_init(argc, argv);
	cli_otp_init(&v.o);
	while ((ch = cli_getopt(argc, argv, CLI_OTP_SHORTOPTS "hiqVv",
	    longopts, &v.o)) != -1) {
		switch (ch) {
		case OPT_FINDSKEW:
			set_mode(&v, MODE_FINDSKEW);
			break;
		case OPT_DIAGNOSE:
			set_mode(&v, MODE_DIAGNOSE);
			break;
		case 'i':
			set_mode(&v, MODE_INTERACTIVE);
			break;
		case OPT_AROUND:
			if (otp_parse_u64(optarg, 0, LIVE_AROUND_MAX, &n) != 0)
				errx(CLI_EXIT_ERR, "--around: '%s': want 0 to "
				    "%d", optarg, LIVE_AROUND_MAX);
			v.around = (unsigned)n;
			v.have_around = 1;
			break;
		case OPT_SHOWKEY:
			v.show_key = 1;
			break;
		case OPT_STORE:
			v.radius_ok = 1;
			set_store(&v, MODE_STORE, "--store", NULL, optarg);
			break;
		case OPT_STATE:
			set_store(&v, MODE_STORE, "--state", "ga", optarg);
			break;
		case OPT_OTPW:
			if (optarg != NULL && optarg[0] == '\0')
				cli_usage_error("--otpw=FILE: empty file name");
			set_store(&v, MODE_STORE, "--otpw", "otpw", optarg !=
			    NULL ? optarg : cli_home_file("--otpw", ".otpw"));
			break;
		case OPT_CHALLENGE:
			v.challenge = 1;
			v.chal = optarg;
			break;
		case OPT_RADIUS:
			set_mode(&v, MODE_RADIUS);
			break;
		case OPT_STATEDIR:
			v.state_dir = optarg;
			v.radius_ok = 1;
			set_store(&v, MODE_RADIUS, "--state-dir", "ga",
			    optarg);
			/* DIR/USER: the request's user's own file. */
			if (strlen(v.url) + 8 >= sizeof(v.url))
				errx(CLI_EXIT_ERR, "--state-dir: path too "
				    "long");
			strcat(v.url, "/${USER}");
			break;
		case OPT_USERSFILE:
			if (optarg == NULL || optarg[0] == '\0')
				cli_usage_error("--usersfile: empty file name");
			v.radius_ok = 1;
			set_store(&v, MODE_STORE, "--usersfile", "oath",
			    optarg);
			break;
		case OPT_USER:
			v.user = optarg;
			break;
		case OPT_STOREKEY:
			v.store_key = optarg;
			break;
		case OPT_STORETIMEOUT:
			v.deadline_ms = cli_deadline("--store-timeout", optarg);
			break;
		case OPT_GROUPREAD:
			v.group_read = 1;
			v.oath_opt = "--allow-group-read";
			break;
		case OPT_SHARED:
			if (otp_parse_u64(optarg, 0, 1, &n) != 0)
				errx(CLI_EXIT_ERR, "--pam-oath-shared: '%s': "
				    "want 0 or 1", optarg);
			v.unshared = n == 0;
			v.oath_opt = "--pam-oath-shared";
			break;
		case OPT_DENY:
			if (otp_parse_u64(optarg, 0, 1000, &n) != 0)
				errx(CLI_EXIT_ERR, "--deny: '%s': want 0 to "
				    "1000", optarg);
			v.deny = n == 0 ? -1 : (int)n;
			v.limit_opt = "--deny";
			break;
		case OPT_UNLOCKTIME:
			if (otp_parse_u64(optarg, 1, INT32_MAX, &n) != 0)
				errx(CLI_EXIT_ERR, "--unlock-time: '%s': want a "
				    "number of seconds", optarg);
			v.unlock_time = (unsigned)n;
			v.limit_opt = "--unlock-time";
			break;
		case 'h':
			usage();
		case 'q':
			v.quiet = 1;
			break;
		case 'V':
			cli_version();
		case 'v':
			v.verbose = 1;
			break;
		case OPT_DRYRUN:
			v.dry_run = 1;
			break;
		case OPT_ALLOWEDPERM:
			if (otp_parse_mode(optarg, &v.allowed_perm) != 0)
				errx(CLI_EXIT_ERR, "--allowed-perm: '%s': want "
				    "an octal mode from 1 to 7777, such as "
				    "0600", optarg);
			v.have_perm = 1;
			break;
		default:	/* --no-skew-adjust and the other switches */
			v.state_flags |= (unsigned)ch & ~(unsigned)OPT_FLAG;
			break;
		}
	}
	argc -= optind;
	argv += optind;
	check_options(&v);

	switch (v.mode) {
	case MODE_FINDSKEW:
		status = do_find_skew(&v, argc, argv);
		break;
	case MODE_DIAGNOSE:
		status = do_diagnose(&v, argc, argv);
		break;
	case MODE_STORE:
		status = do_store(&v, argc, argv);
		break;
	case MODE_RADIUS:
		status = do_radius(&v, argc, argv);
		break;
	case MODE_INTERACTIVE:
		status = do_interactive(&v, argc, argv);
		break;
	case MODE_VERIFY:
	default:
		status = do_verify(&v, argc, argv);
		break;
	}
	cli_exit(status);
}

/*
 * otp-keygen - new random keys, emergency scratch codes and Google
 * Authenticator state files, for provisioning.
 *
 * The key goes to standard output and nothing else, so that
 *	otp-keygen --state FILE | otp-uri --qr ...
 * stays clean; scratch codes go to standard error, to --scratch-out FILE,
 * or after the key with --scratch-out=-.
 */
#include <sys/ioctl.h>
#include <sys/stat.h>

#include <ctype.h>
#include <dirent.h>
#include <err.h>
#include <pwd.h>
#include <readpassphrase.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "store.h"
#include "otp_otpw.h"
#include "otp_state.h"
#include "otp_uri.h"
#include "otp_users.h"

/* google-authenticator(1)'s scratch codes in a state file it writes; its
 * other ranges are otp.h's OTP_STATE_*_MIN/MAX. */
#define GA_SCRATCH_MAX		10
#define GA_SCRATCH_DEFAULT	5

#define CONFIRM_TRIES		3	/* wrong codes before --confirm gives up */
#define CONFIRM_EXIT_NO		1	/* not confirmed: a clean "no" */
#define CONFIRM_WAIT_MS		3000	/* for the pipe's reader to finish */
#define ANCESTORS_MAX		64

enum {
	OPT_BYTES = CLI_OPT_TOOL_BASE,
	OPT_CONFIRM,
	OPT_DISALLOW_REUSE,
	OPT_PRINT_STATE,
	OPT_RATE_LIMIT,
	OPT_SCRATCH,
	OPT_SCRATCH_OUT,
	OPT_STATE,
	OPT_STEP_SIZE,
	OPT_URI,
	OPT_WINDOW_SIZE,
	/* --otpw */
	OPT_OTPW,
	OPT_PREFIX,
	OPT_ENTRIES,
	OPT_USERSFILE,
	OPT_USER,
	OPT_UTOTP,
	OPT_STORE,
	OPT_STOREKEY,
};

static const struct option longopts[] = {
	/* Before the shared --totp: with --usersfile it also takes 30 or 60
	 * (getopt_long takes the first entry that matches). */
	{ "totp",		optional_argument, NULL, OPT_UTOTP },
	CLI_STD_LONGOPTS,
	CLI_URI_LONGOPTS,
	{ "bytes",		required_argument, NULL, OPT_BYTES },
	{ "confirm",		no_argument,	   NULL, OPT_CONFIRM },
	{ "disallow-reuse",	no_argument,	   NULL, OPT_DISALLOW_REUSE },
	{ "force",		no_argument,	   NULL, 'f' },
	{ "print-state",	required_argument, NULL, OPT_PRINT_STATE },
	{ "rate-limit",		required_argument, NULL, OPT_RATE_LIMIT },
	{ "scratch",		required_argument, NULL, OPT_SCRATCH },
	{ "scratch-out",	required_argument, NULL, OPT_SCRATCH_OUT },
	{ "state",		required_argument, NULL, OPT_STATE },
	{ "step-size",		required_argument, NULL, OPT_STEP_SIZE },
	{ "uri",		no_argument,	   NULL, OPT_URI },
	{ "window-size",	required_argument, NULL, OPT_WINDOW_SIZE },
	{ "store",		required_argument, NULL, OPT_STORE },
	{ "store-key",		required_argument, NULL, OPT_STOREKEY },
	{ "usersfile",		required_argument, NULL, OPT_USERSFILE },
	{ "user",		required_argument, NULL, OPT_USER },
	{ "motp",		no_argument,	   NULL, CLI_OPT_MOTP },
	{ "pin",		required_argument, NULL, CLI_OPT_PIN },
	{ "otpw",		optional_argument, NULL, OPT_OTPW },
	{ "prefix",		required_argument, NULL, OPT_PREFIX },
	{ "entries",		required_argument, NULL, OPT_ENTRIES },
	{ NULL,			0,		   NULL, 0 }
};

struct keygen {
	struct cli_otp	 o;		/* -a -b -c -d -x --hotp --totp */
	size_t		 bytes;
	int		 have_bytes;
	int		 uri;
	const char	*issuer, *account;
	uint64_t	 period;
	int		 have_period;
	long		 nscratch;	/* -1: not given */
	const char	*scratch_out;	/* a file; NULL for none or "-" */
	int		 scratch_stdout; /* --scratch-out=-: after the key */
	const char	*state;		/* a file, or a database's URL */
	int		 db;		/* state is a database (--store) */
	const char	*store_key;	/* --store-key */
	const char	*print_state;
	unsigned	 window, step, rate_n, rate_secs;
	const char	*usersfile;	/* --usersfile */
	const char	*user;		/* --user */
	unsigned	 users_period;	/* --totp=30|60, 0 otherwise */
	int		 disallow_reuse;
	int		 force;
	int		 confirm;
	/* --otpw */
	int		 otpw;
	const char	*otpw_file;	/* NULL: ~/.otpw */
	const char	*prefix;	/* @FILE or - */
	unsigned	 entries;	/* 0: the default */
};

/* Everything secret, in one place so that every exit path wipes it. */
static struct {
	struct otp_uri	u;
	uint32_t	scratch[OTP_SCRATCH_SETMAX];
	struct otp_state st;
	char		text[OTP_LINE_MAX];	/* key or URI text */
	char		img[OTP_STATE_MAX];	/* new state file */
	char		pin[OTP_STATE_PIN_MAX + 2];	/* a database PIN */
	char		lines[OTP_STATE_SCRATCH_MAX * 9 + 1];	/* codes */
	char		answer[64];		/* --confirm's code */
	struct otp_hmac	h;
	struct sys_lines tty;
	struct otp_users_token tok;	/* --usersfile's line */
} sec;

static void
wipe_secrets(void)
{
	otp_wipe(&sec, sizeof(sec));
}

static void __attribute__((noreturn))
usage(void)
{
	printf("usage: otp-keygen [-bfVx] [--bytes=N] [--scratch=N] "
	    "[--scratch-out=FILE|-]\n"
	    "                  [--confirm]\n"
	    "                  [--uri [-i ISSUER] [-A ACCOUNT] [--user=NAME]\n"
	    "                   [--totp[=ALG] | --hotp] [-a ALG] [-d DIGITS] "
	    "[-p DURATION]\n"
	    "                   [-c COUNTER]]\n"
	    "                  [--state=FILE [--totp | --hotp] "
	    "[--window-size=N]\n"
	    "                   [--step-size=SECONDS] "
	    "[--rate-limit=N/SECONDS]\n"
	    "                   [--disallow-reuse]]\n"
	    "       otp-keygen [-fx] [--uri [-i ISSUER] [-A ACCOUNT] "
	    "[--user=NAME]]\n"
	    "                  [--scratch-out=FILE|-] --print-state=FILE\n"
	    "       otp-keygen [-bfx] [--bytes=N] [--totp[=30|60] | --motp] "
	    "[-d DIGITS]\n"
	    "                  [--pin=PIN|@FILE] --usersfile=FILE "
	    "--user=NAME\n"
	    "       otp-keygen [-f] [--prefix=@FILE|-] [--entries=N] "
	    "--otpw[=FILE]\n"
	    "       otp-keygen [OPTION]... --store=URL [--user=NAME]\n"
	    "\n"
	    "Print a new random key (unpadded Base32) on standard output; "
	    "emergency\n"
	    "scratch codes go to standard error (under a heading at a "
	    "terminal) or\n"
	    "--scratch-out.\n"
	    "\n"
	    "      --bytes=N          key length, 16 to 64 bytes (default 20)\n"
	    "  -b, --base32           print the key in Base32 (default)\n"
	    "  -x, --hex              print the key in hex\n"
	    "      --scratch=N        N emergency scratch codes (0 to 100; "
	    "with --state\n"
	    "                         0 to 10, default 5)\n"
	    "      --scratch-out=FILE write the scratch codes to a new FILE, "
	    "mode 0600;\n"
	    "                         - for standard output, after the key\n"
	    "      --uri              print an otpauth:// URI instead of the "
	    "bare key\n"
	    "  -i, --issuer=NAME      the URI's issuer\n"
	    "  -A, --account=NAME     the URI's account name\n"
	    "      --totp[=ALG]       time-based (default)\n"
	    "      --hotp             counter-based\n"
	    "  -a, --algorithm=ALG    SHA1 (default), SHA256 or SHA512\n"
	    "  -d, --digits=N         code length, 6 to 10 (default 6)\n"
	    "  -p, --period=DURATION  TOTP time step, as 30, 30s or 1m "
	    "(default 30s)\n"
	    "  -c, --counter=N        HOTP counter (default 0)\n"
	    "      --store=URL        a new token in a store: ga:FILE is "
	    "--state=FILE,\n"
	    "                         oath:FILE --usersfile=FILE, otpw:FILE "
	    "--otpw=FILE;\n"
	    "                         postgresql://... a row for --user=NAME\n"
	    "      --store-key=FILE   postgresql: key file, default "
	    SYS_STORE_KEY "\n"
	    "      --state=FILE       write a new Google Authenticator state "
	    "file\n"
	    "      --window-size=N    codes valid at once, 1 to 21 (default "
	    "3)\n"
	    "      --step-size=SECONDS  TOTP time step, 1 to 60 (default 30)\n"
	    "      --rate-limit=N/SECONDS  at most N logins (1 to 10) in "
	    "SECONDS (15 to 600)\n"
	    "      --disallow-reuse   a TOTP code works only once\n"
	    "  -f, --force            replace an existing state or scratch "
	    "file (a regular\n"
	    "                         file only, never a device, FIFO or "
	    "directory)\n"
	    "      --confirm          show the key, then ask on the terminal "
	    "for a code from\n"
	    "                         the app before writing anything (3 "
	    "tries; exit 1)\n"
	    "      --usersfile=FILE   add NAME's token to an OATH Toolkit "
	    "users file (-f:\n"
	    "                         replace NAME's tokens); HOTP unless "
	    "--totp=30|60\n"
	    "      --user=NAME        usersfile, postgresql: the user name; "
	    "--uri without -A:\n"
	    "                         the account NAME@HOST\n"
	    "      --pin=PIN|@FILE    usersfile: the PIN typed before the "
	    "code (mOTP: the\n"
	    "                         app's PIN); @FILE reads it from FILE\n"
	    "      --motp             usersfile: a Mobile-OTP token; prints "
	    "its init-secret\n"
	    "      --print-state=FILE show the key and remaining scratch codes "
	    "of FILE\n"
	    "      --otpw[=FILE]      print a new OTPW password list and "
	    "write its hashes\n"
	    "                         to FILE (default ~/.otpw), mode 0600\n"
	    "      --prefix=@FILE|-   OTPW: the prefix password from a line "
	    "of FILE or of\n"
	    "                         standard input (default: asked twice "
	    "at the terminal)\n"
	    "      --entries=N        OTPW: passwords in the list, 10 to 1000 "
	    "(default 280)\n"
	    "  -h, --help             show this help\n"
	    "  -V, --version          show the version\n");
	cli_exit(0);
}

static unsigned
parse_range(const char *name, const char *arg, unsigned min, unsigned max)
{
	uint64_t v;

	if (otp_parse_u64(arg, min, max, &v) != 0)
		errx(CLI_EXIT_ERR, "%s: '%s': must be a decimal from %u to %u",
		    name, arg, min, max);
	return (unsigned)v;
}

/* --rate-limit=N/SECONDS, each part in google-authenticator's range. */
static void
parse_rate(struct keygen *k, const char *arg)
{
	char buf[64], *slash;
	uint64_t n, secs;

	if (strlen(arg) >= sizeof(buf) || (slash = strchr(arg, '/')) == NULL)
		errx(CLI_EXIT_ERR, "--rate-limit: '%s': expected N/SECONDS, "
		    "e.g. 3/30", arg);
	memcpy(buf, arg, (size_t)(slash - arg));
	buf[slash - arg] = '\0';
	if (otp_parse_u64(buf, OTP_STATE_RATE_MIN, OTP_STATE_RATE_MAX, &n) != 0)
		errx(CLI_EXIT_ERR, "--rate-limit: '%s': N must be a decimal "
		    "from %d to %d", arg, OTP_STATE_RATE_MIN,
		    OTP_STATE_RATE_MAX);
	if (otp_parse_u64(slash + 1, OTP_STATE_RATE_SECS_MIN,
	    OTP_STATE_RATE_SECS_MAX, &secs) != 0)
		errx(CLI_EXIT_ERR, "--rate-limit: '%s': SECONDS must be a "
		    "decimal from %d to %d", arg, OTP_STATE_RATE_SECS_MIN,
		    OTP_STATE_RATE_SECS_MAX);
	k->rate_n = (unsigned)n;
	k->rate_secs = (unsigned)secs;
}

static void
check_label(const char *name, const char *s)
{
	if (strlen(s) >= OTP_LABEL_MAX)
		errx(CLI_EXIT_ERR, "%s: longer than %d bytes", name,
		    OTP_LABEL_MAX - 1);
}

/* --uri --user=NAME without -A: the account NAME@HOST, the host's name as
 * gethostname(2) gives it, as google-authenticator labels its keys. */
static const char *
user_at_host(const char *user)
{
	static char account[OTP_LABEL_MAX];
	char host[256];

	if (gethostname(host, sizeof(host)) != 0)
		err(CLI_EXIT_ERR, "--user: the host's name");
	host[sizeof(host) - 1] = '\0';
	if ((size_t)snprintf(account, sizeof(account), "%s@%s", user, host) >=
	    sizeof(account))
		errx(CLI_EXIT_ERR, "--user: NAME@HOST is longer than %d "
		    "bytes: give -A", OTP_LABEL_MAX - 1);
	return account;
}

/* Refuse what contradicts itself or means nothing here: better an error
 * than a file or a URI that is not what was asked for. */
static void
check_options(struct keygen *k)
{
	int statemode = k->state != NULL, printmode = k->print_state != NULL;
	int hotp = k->o.have_type && k->o.type == OTP_TYPE_HOTP;

	if (statemode && printmode)
		cli_usage_error("--state and --print-state exclude each other");
	if (printmode && k->confirm)
		cli_usage_error("--confirm is for a new key, not --print-state");
	if (printmode && (k->have_bytes || k->nscratch >= 0 ||
	    k->o.have_type || k->o.have_alg || k->o.have_digits ||
	    k->o.have_counter || k->have_period))
		cli_usage_error("--print-state takes its key, type and "
		    "parameters from the file; only -x, --uri, -i, -A, "
		    "--scratch-out and -f apply");
	if (!statemode && (k->window || k->step || k->rate_n ||
	    k->disallow_reuse))
		cli_usage_error("--window-size, --step-size, --rate-limit and "
		    "--disallow-reuse need --state");
	/* A database token keeps its algorithm and digits in its row. */
	if (!k->uri && (k->issuer || k->account || (k->o.have_alg &&
	    !k->db) || (k->o.have_digits && !k->db) || k->have_period ||
	    k->o.have_counter))
		cli_usage_error("--issuer, --account, --algorithm, --digits, "
		    "--period and --counter need --uri");
	if (!k->uri && !statemode && k->o.have_type)
		cli_usage_error("--totp and --hotp need --uri or --state");
	if (k->uri && k->account == NULL && k->user != NULL)
		k->account = user_at_host(k->user);
	if (k->uri && k->account == NULL)
		cli_usage_error("--uri needs an account name (-A NAME, or "
		    "--user=NAME for NAME@HOST): apps list keys by it");
	if (k->uri && k->o.enc == OTP_KEYENC_HEX)
		cli_usage_error("--uri writes the secret in Base32; --hex "
		    "does not apply");
	if (hotp && k->have_period)
		cli_usage_error("--period applies to TOTP only");
	if (!hotp && k->o.have_counter)
		cli_usage_error("--counter applies to HOTP only (add --hotp)");
	if (hotp && k->step)
		cli_usage_error("--step-size applies to TOTP only");
	if (hotp && k->disallow_reuse)
		cli_usage_error("--disallow-reuse applies to TOTP only");
	if (k->db && k->o.have_digits && (k->o.digits < 6 ||
	    k->o.digits > 8))
		cli_usage_error("--store: a database token's codes have 6 to "
		    "8 digits; --digits %u does not apply", k->o.digits);
	if (statemode) {
		/* The Google Authenticator module knows SHA1 and 6 digits
		 * only, and starts HOTP at counter 1; a database token may
		 * have other algorithms and digits, and a PIN. */
		if (k->o.have_alg && k->o.alg != OTP_ALG_SHA1 && !k->db)
			cli_usage_error("--state: the state file's codes are "
			    "SHA1; --algorithm %s does not apply",
			    otp_alg_name(k->o.alg));
		if (k->o.have_digits && k->o.digits != 6 && !k->db)
			cli_usage_error("--state: the state file's codes have "
			    "6 digits; --digits %u does not apply",
			    k->o.digits);
		if (k->o.have_counter)
			cli_usage_error("--state: the state file starts at "
			    "counter 1; --counter does not apply");
		if (k->have_period)
			cli_usage_error("--state: the time step is "
			    "--step-size; --period does not apply");
		if (k->nscratch > GA_SCRATCH_MAX)
			errx(CLI_EXIT_ERR, "--scratch: '%ld': at most %d with "
			    "--state", k->nscratch, GA_SCRATCH_MAX);
		if (k->nscratch < 0)
			k->nscratch = GA_SCRATCH_DEFAULT;
	}
	if (k->nscratch < 0)
		k->nscratch = 0;
	if ((k->scratch_out != NULL || k->scratch_stdout) &&
	    k->nscratch == 0 && !printmode)
		cli_usage_error("--scratch-out: no scratch codes to write "
		    "(add --scratch=N)");
	if (k->scratch_out != NULL && statemode &&
	    strcmp(k->scratch_out, k->state) == 0)
		cli_usage_error("--scratch-out and --state name the same file");
	if (k->force && !statemode && k->scratch_out == NULL)
		cli_usage_error("--force needs --state or --scratch-out=FILE");
}

/* The key (or a URI for it) as text in sec.text. */
static void
render_key(const struct keygen *k, const struct otp_uri *u)
{
	int rc;

	if (k->uri)
		rc = otp_uri_build(u, sec.text, sizeof(sec.text));
	else if (k->o.enc == OTP_KEYENC_HEX)
		rc = otp_hex_encode(u->key.buf, u->key.len, sec.text,
		    sizeof(sec.text));
	else
		rc = otp_b32_encode(u->key.buf, u->key.len, sec.text,
		    sizeof(sec.text), OTP_B32_NOPAD);
	if (rc < 0)
		errx(CLI_EXIT_ERR, "%s: %s", k->uri ? "--uri" : "key",
		    otp_strerror(rc));
}

/* Scratch codes as text, one a line, in sec.lines; returns the length. */
static size_t
render_scratch(const uint32_t *codes, size_t n)
{
	size_t i, len = 0;

	for (i = 0; i < n; i++)
		len += (size_t)snprintf(sec.lines + len,
		    sizeof(sec.lines) - len, "%08u\n", (unsigned)codes[i]);
	return len;
}

/* What a file that is not a regular one is, for a message. */
static const char *
filetype(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISSOCK(mode))
		return "a socket";
	return "of an unknown type";
}

/*
 * An existing target (its lstat in sb): a regular file, or a symbolic
 * link (replaced itself), is replaced with -f only; anything else, a
 * device such as /dev/null, a FIFO or a directory, never is, and -f
 * would not help, so the message does not offer it.
 */
static void
refuse_existing(const char *opt, const char *path, const struct stat *sb,
    int force)
{
	if (!S_ISREG(sb->st_mode) && !S_ISLNK(sb->st_mode))
		errx(CLI_EXIT_ERR, "%s: %s: is %s, not a regular file, "
		    "and is never replaced", opt, path,
		    filetype(sb->st_mode));
	if (!force)
		errx(CLI_EXIT_ERR, "%s: %s: %s (use -f to replace it)", opt,
		    path, otp_strerror(OTP_ESTATEEXIST));
}

/* Check a target before anything is generated or asked: fail now rather
 * than after --confirm. */
static void
check_target(const char *opt, const char *path, int force)
{
	struct stat sb;

	if (lstat(path, &sb) == 0)
		refuse_existing(opt, path, &sb, force);
	else if (errno != ENOENT)
		err(CLI_EXIT_ERR, "%s: %s", opt, path);
}

/*
 * --scratch-out: the codes are staged in the target's directory (mode
 * 0600) and fsynced; finish_scratch() puts them in place, without -f only
 * where no file is (lib/sys/atomic.c).  FILE is always whole or absent.
 */
struct staged {
	struct sys_file	f;
	int		dirfd;		/* -1: nothing staged */
};

static void
drop_scratch(struct staged *s)
{
	int saved = errno;

	if (s->dirfd >= 0) {
		sys_discard(&s->f);
		(void)close(s->dirfd);
		s->dirfd = -1;
	}
	errno = saved;
}

static void
stage_scratch(struct staged *s, const char *path, const char *text,
    size_t len, int force)
{
	char name[NAME_MAX + 1];
	struct stat sb;

	if (sys_dir_open(path, &s->dirfd, name, sizeof(name)) != 0)
		err(CLI_EXIT_ERR, "--scratch-out: %s", path);
	if (fstatat(s->dirfd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0)
		refuse_existing("--scratch-out", path, &sb, force);
	if (sys_stage(&s->f, s->dirfd, name, 0600) != 0 ||
	    sys_stage_write(&s->f, text, len) != 0 ||
	    sys_stage_sync(&s->f) != 0) {
		drop_scratch(s);
		err(CLI_EXIT_ERR, "--scratch-out: %s", path);
	}
}

/* Put the staged file in place; 0, or -1 after a warning.  The target is
 * looked at once more, so that what appeared there meanwhile is named. */
static int
finish_scratch(struct staged *s, const char *path, int force)
{
	struct stat sb;
	int rc;

	if (fstatat(s->dirfd, s->f.name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
	    !S_ISREG(sb.st_mode) && !S_ISLNK(sb.st_mode)) {
		warnx("--scratch-out: %s: is %s, not a regular file, "
		    "and is never replaced", path,
		    filetype(sb.st_mode));
		drop_scratch(s);
		return -1;
	}
	rc = sys_commit(&s->f, force);
	if (rc == OTP_ESTATEEXIST)
		warnx("--scratch-out: %s: %s (use -f to replace it)", path,
		    otp_strerror(OTP_ESTATEEXIST));
	else if (rc != 0)
		warn("--scratch-out: %s", path);
	(void)close(s->dirfd);
	s->dirfd = -1;
	return rc == 0 ? 0 : -1;
}

/* Scratch codes to standard error, under a heading when it is a terminal
 * (a person reads them; scripts get the bare lines); 0, or -1 when they
 * could not be written. */
static int
show_scratch(const char *text, size_t len)
{
	if (len == 0)
		return 0;
	if (isatty(STDERR_FILENO) &&
	    fputs("Your emergency scratch codes are:\n", stderr) == EOF)
		return -1;
	if (fwrite(text, 1, len, stderr) != len || fflush(stderr) != 0 ||
	    ferror(stderr))
		return -1;
	return 0;
}

/* The key on standard output, once; 0, or -1 when it could not be
 * written. */
static int
show_key(void)
{
	static int shown;

	if (shown++)
		return 0;
	if (puts(sec.text) == EOF || fflush(stdout) != 0)
		return -1;
	return 0;
}

/* --scratch-out=-: the key, then the codes, on standard output. */
static int
show_key_scratch(const char *text, size_t len)
{
	if (show_key() != 0 || fwrite(text, 1, len, stdout) != len ||
	    fflush(stdout) != 0)
		return -1;
	return 0;
}

/* Process pid's parent and process group from /proc/PID/stat, and
 * whether it still runs (not a zombie); -1 if it cannot be read. */
static int
proc_stat(long pid, long *ppid, long *pgrp)
{
	char path[64], buf[512], *p;
	char state;
	ssize_t n;
	int fd;

	(void)snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	(void)close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* "PID (COMM) STATE PPID PGRP ...": COMM may hold ')' and blanks. */
	if ((p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 1, " %c %ld %ld", &state, ppid, pgrp) != 3)
		return -1;
	return state != 'Z' && state != 'X';
}

/* Whether a process of our job other than us and our ancestors runs. */
static int
job_busy(void)
{
	long anc[ANCESTORS_MAX], ppid, pgrp, pid, me = (long)getpid();
	size_t nanc = 0, i;
	struct dirent *d;
	DIR *proc;
	int busy = 0;

	for (pid = (long)getppid(); pid > 1 && nanc < ANCESTORS_MAX;
	    pid = ppid) {
		anc[nanc++] = pid;
		if (proc_stat(pid, &ppid, &pgrp) == -1)
			break;
	}
	if ((proc = opendir("/proc")) == NULL)
		return 0;
	while (!busy && (d = readdir(proc)) != NULL) {
		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		pid = strtol(d->d_name, NULL, 10);
		for (i = 0; i < nanc && anc[i] != pid; i++)
			;
		if (pid == me || i < nanc)
			continue;
		busy = proc_stat(pid, &ppid, &pgrp) == 1 &&
		    pgrp == (long)getpgrp();
	}
	(void)closedir(proc);
	return busy;
}

/*
 * --confirm with standard output a pipe: the reader (otp-uri --qr) draws
 * the key on the terminal once it sees the end.  Ask only when it is
 * done, so that the prompt comes under the QR code, where the user is
 * looking: wait until the reader has taken the key from the pipe (so it
 * runs: the shell may start it after us), then close our end and wait
 * until no other process of our job (the pipeline; not the shell above
 * us) runs; CONFIRM_WAIT_MS in all at most, for a reader that waits for
 * more than us.  The reader's /proc/PID/fd is closed to us (the tools are
 * not dumpable), its process group is not.
 */
static void
close_wait_reader(void)
{
	struct timespec nap = { 0, 10 * 1000 * 1000 };
	struct stat sb;
	int ms = 0, null, piped, queued;

	piped = fstat(STDOUT_FILENO, &sb) == 0 && S_ISFIFO(sb.st_mode);
	while (piped && ms < CONFIRM_WAIT_MS &&
	    ioctl(STDOUT_FILENO, FIONREAD, &queued) == 0 && queued > 0) {
		(void)nanosleep(&nap, NULL);
		ms += 10;
	}
	if ((null = open("/dev/null", O_WRONLY | O_CLOEXEC)) == -1 ||
	    dup2(null, STDOUT_FILENO) == -1)
		err(CLI_EXIT_ERR, "/dev/null");
	(void)close(null);
	for (; piped && ms < CONFIRM_WAIT_MS && job_busy(); ms += 10)
		(void)nanosleep(&nap, NULL);
}

/*
 * --confirm: once the key is out, ask on the terminal for a code from the
 * app that took it, and check it as a login would, one step either way
 * of now (TOTP) or the next counter too (HOTP).  A wrong code may be
 * tried again, CONFIRM_TRIES in all; then, or at the end of input, exit
 * CONFIRM_EXIT_NO before anything is written.  When nothing else is to
 * go to standard output, it is closed after the key, so that a reader
 * (otp-uri --qr) sees the end and shows the key before we ask.
 */
static void
confirm(const struct otp_uri *u, int more)
{
	struct otp_match m;
	uint64_t counter;
	enum otp_window shape = OTP_WINDOW_AHEAD;
	int fd, rc, tries = 0;

	if ((fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)) == -1)
		err(CLI_EXIT_ERR, "--confirm: /dev/tty");
	if (show_key() != 0)
		errx(CLI_EXIT_ERR, "write error");
	if (!more)
		close_wait_reader();
	if ((rc = otp_hmac_init(&sec.h, u->alg, u->key.buf, u->key.len)) != 0)
		errx(CLI_EXIT_ERR, "--confirm: %s", otp_strerror(rc));
	counter = u->counter;
	if (u->type == OTP_TYPE_TOTP) {
		shape = OTP_WINDOW_AROUND;
		if ((rc = otp_totp_counter((int64_t)time(NULL), 0, u->period,
		    &counter)) != 0)
			errx(CLI_EXIT_ERR, "--confirm: %s", otp_strerror(rc));
	}
	sys_lines_init(&sec.tty, fd);
	while (tries < CONFIRM_TRIES) {
		dprintf(fd, "Enter the %u-digit code your app shows: ",
		    u->digits);
		rc = sys_lines_next(&sec.tty, sec.answer, sizeof(sec.answer));
		if (rc == OTP_EEMPTY) {
			dprintf(fd, "\n");
			errx(CONFIRM_EXIT_NO, "--confirm: no code given; "
			    "nothing written");
		}
		if (rc == OTP_EIO)
			err(CLI_EXIT_ERR, "--confirm: /dev/tty");
		if (rc == 0 && sec.answer[0] == '\0')
			continue;
		if (rc == 0)
			rc = otp_verify(&sec.h, sec.answer, u->digits, counter,
			    1, shape, &m);
		otp_wipe(sec.answer, sizeof(sec.answer));
		if (rc == 1)
			break;
		if (++tries < CONFIRM_TRIES)
			dprintf(fd, "%s; try again.\n", rc == 0 ?
			    "That code is not right" : "That is not a code");
	}
	otp_hmac_wipe(&sec.h);
	sys_lines_wipe(&sec.tty);
	(void)close(fd);
	if (tries == CONFIRM_TRIES)
		errx(CONFIRM_EXIT_NO, "--confirm: %d wrong codes; nothing "
		    "written", CONFIRM_TRIES);
}

/* Open the store scheme:path, as --store or an alias names it; NULL with
 * *rc set when it cannot be opened. */
static struct sys_store *
keygen_store(const char *scheme, const char *path, int *rc)
{
	char url[PATH_MAX + 16];
	struct sys_store *s = NULL;

	if ((size_t)snprintf(url, sizeof(url), "%s:%s", scheme, path) >=
	    sizeof(url))
		*rc = OTP_ETOOLONG;
	else
		*rc = sys_store_open(url, NULL, &s);
	return s;
}

/* Put r in the store scheme:path for user; 0 or OTP_E* (errno kept). */
static int
keygen_put(const char *scheme, const char *path, const char *user,
    const struct sys_record *r, int force, int *note)
{
	struct sys_store *s;
	int rc, e;

	if ((s = keygen_store(scheme, path, &rc)) == NULL)
		return rc;
	rc = sys_store_put(s, user, r, force, note);
	e = errno;
	sys_store_close(s);
	errno = e;
	return rc;
}

/* The database --store names, with --store-key and the module. */
static int
db_open(const struct keygen *k, struct sys_store **s)
{
	struct sys_store_cfg c;

	sys_store_cfg_init(&c);
	c.store_key = k->store_key;
	c.module = cli_store_module();
	return sys_store_open(k->state, &c, s);
}

/* The token's image into the database --store names, for --user; 0 or
 * OTP_E*, with the database's words in why. */
static int
db_put(const struct keygen *k, const struct sys_record *r, int remove,
    char *why, size_t whysz)
{
	struct sys_store *s;
	int rc;

	why[0] = '\0';
	if ((rc = db_open(k, &s)) != 0)
		return rc;
	rc = remove ? sys_store_remove(s, k->user) :
	    sys_store_put(s, k->user, r, k->force, NULL);
	(void)snprintf(why, whysz, "%s", sys_store_reason(s));
	sys_store_close(s);
	return rc;
}

/* -f without --pin: the PIN of the token being replaced, if it had one,
 * in sec.pin (a re-key keeps the PIN, as --usersfile does); else NULL. */
static const char *
db_old_pin(const struct keygen *k)
{
	struct sys_store *s;
	const char *pin = NULL;

	if (db_open(k, &s) != 0)
		return NULL;
	if (sys_store_load_state(s, k->user, &sec.st) == 0 &&
	    sec.st.pin[0] != '\0') {
		memcpy(sec.pin, sec.st.pin, strlen(sec.st.pin) + 1);
		pin = sec.pin;
	}
	otp_wipe(&sec.st, sizeof(sec.st));
	sys_store_close(s);
	return pin;
}

/* A database token's PIN from --pin=PIN|@FILE, in sec.pin: a PIN line's
 * value (no blank, no control byte, at most OTP_STATE_PIN_MAX bytes). */
static const char *
db_pin(const char *spec)
{
	size_t n;
	int rc;

	rc = sys_key_read(spec, STDIN_FILENO, sec.pin, sizeof(sec.pin));
	if (rc == OTP_EIO)
		err(CLI_EXIT_ERR, "--pin");
	if (rc != 0)
		errx(CLI_EXIT_ERR, "--pin: %s", otp_strerror(rc));
	n = strlen(sec.pin);
	if (n == 0 || n > OTP_STATE_PIN_MAX)
		errx(CLI_EXIT_ERR, "--pin: 1 to %d bytes", OTP_STATE_PIN_MAX);
	if (!otp_state_pin_ok(sec.pin))
		errx(CLI_EXIT_ERR, "--pin: no blank or control character");
	return sec.pin;
}

/* A new key, scratch codes and perhaps a state file. */
static void
generate(struct keygen *k)
{
	struct otp_state_new n;
	struct staged staged;
	struct stat sb;
	size_t imglen = 0, linelen;
	int rc, fresh = 0;

	staged.dirfd = -1;
	if (k->state != NULL && !k->db)
		check_target("--state", k->state, k->force);
	if (k->scratch_out != NULL)
		check_target("--scratch-out", k->scratch_out, k->force);
	otp_uri_init(&sec.u);
	sec.u.type = k->o.have_type ? k->o.type : OTP_TYPE_TOTP;
	sec.u.alg = k->o.alg;
	sec.u.digits = k->o.digits;
	sec.u.counter = k->o.counter;
	sec.u.period = k->have_period ? k->period : 30;
	if (k->state != NULL && sec.u.type == OTP_TYPE_TOTP && k->step)
		sec.u.period = k->step;
	if (k->state != NULL && sec.u.type == OTP_TYPE_HOTP)
		sec.u.counter = 1;	/* the file's HOTP_COUNTER */
	if (k->issuer != NULL)
		snprintf(sec.u.issuer, sizeof(sec.u.issuer), "%s", k->issuer);
	if (k->account != NULL)
		snprintf(sec.u.account, sizeof(sec.u.account), "%s",
		    k->account);

	cli_lock(&sec, sizeof(sec));	/* best effort: keep the key off swap */
	if (sys_keygen(&sec.u.key, k->bytes) != 0)
		err(CLI_EXIT_ERR, "cannot get random bytes");
	if (sys_scratch_codes(sec.scratch, (size_t)k->nscratch) != 0)
		err(CLI_EXIT_ERR, "cannot get random bytes");
	render_key(k, &sec.u);
	linelen = render_scratch(sec.scratch, (size_t)k->nscratch);

	if (k->state != NULL) {
		memset(&n, 0, sizeof(n));
		n.mode = sec.u.type == OTP_TYPE_HOTP ? OTP_STATE_HOTP :
		    OTP_STATE_TOTP;
		n.window = k->window;
		n.step = k->step;
		n.rate_n = k->rate_n;
		n.rate_secs = k->rate_secs;
		n.disallow_reuse = k->disallow_reuse;
		n.scratch = sec.scratch;
		n.nscratch = (size_t)k->nscratch;
		if (k->db) {
			n.digits = k->o.have_digits ? k->o.digits : 0;
			n.alg = k->o.alg;
			if (k->o.pin != NULL)
				n.pin = db_pin(k->o.pin);
			else if (k->force)
				n.pin = db_old_pin(k);
		}
		rc = otp_state_build(sec.u.key.buf, sec.u.key.len, &n,
		    sec.img, sizeof(sec.img), &imglen);
		if (rc != 0)
			errx(CLI_EXIT_ERR, "--state: %s", otp_strerror(rc));
	}
	if (k->confirm)
		confirm(&sec.u, k->scratch_stdout);

	/* Stage the scratch file, then commit the state file, then put the
	 * scratch file in place: a failure leaves neither behind. */
	if (k->scratch_out != NULL)
		stage_scratch(&staged, k->scratch_out, sec.lines, linelen,
		    k->force);
	if (k->db) {
		struct sys_record rec = { sec.img, imglen, NULL };
		char why[512];

		fresh = !k->force;
		if ((rc = db_put(k, &rec, 0, why, sizeof(why))) != 0) {
			drop_scratch(&staged);
			if (rc == OTP_ESTATEEXIST)
				errx(CLI_EXIT_ERR, "--store: '%s' has a token "
				    "already (use -f to replace it)",
				    cli_esc(k->user));
			errx(CLI_EXIT_ERR, "--store: %s%s%s", otp_strerror(rc),
			    why[0] != '\0' ? ": " : "", cli_esc(why));
		}
	} else if (k->state != NULL) {
		fresh = !k->force || lstat(k->state, &sb) != 0;
		struct sys_record rec = { sec.img, imglen, NULL };

		rc = keygen_put("ga", k->state, NULL, &rec, k->force, NULL);
		if (rc != 0) {
			int saved = errno;

			drop_scratch(&staged);
			if (rc == OTP_ESTATEEXIST || rc == OTP_ESTATETYPE)
				check_target("--state", k->state, k->force);
			if (rc == OTP_ESTATEEXIST)
				errx(CLI_EXIT_ERR, "--state: %s: %s (use -f to "
				    "replace it)", k->state, otp_strerror(rc));
			if (rc == OTP_EIO) {
				errno = saved;
				err(CLI_EXIT_ERR, "--state: %s", k->state);
			}
			errx(CLI_EXIT_ERR, "--state: %s: %s", k->state,
			    otp_strerror(rc));
		}
		if (lstat(k->state, &sb) != 0)
			fresh = 0;
	}
	if (k->scratch_out != NULL)
		rc = finish_scratch(&staged, k->scratch_out, k->force);
	else if (k->scratch_stdout)
		rc = show_key_scratch(sec.lines, linelen);
	else
		rc = show_scratch(sec.lines, linelen);
	if (rc != 0) {
		struct stat now;

		/* The codes in the state file were never delivered: undo a
		 * file we created; a replaced one cannot be brought back,
		 * so its codes go to standard error rather than be lost. */
		if (k->db && fresh) {
			char why[512];

			(void)db_put(k, NULL, 1, why, sizeof(why));
			errx(CLI_EXIT_ERR, "--store: '%s' removed again: its "
			    "scratch codes could not be written",
			    cli_esc(k->user));
		}
		if (k->state != NULL && fresh && !k->db &&
		    lstat(k->state, &now) == 0 &&
		    now.st_ino == sb.st_ino && now.st_dev == sb.st_dev) {
			(void)unlink(k->state);
			errx(CLI_EXIT_ERR, "--state: %s removed: its scratch "
			    "codes could not be written", k->state);
		}
		if (k->state != NULL && k->scratch_out != NULL) {
			warnx("--state: %s written; its scratch codes follow",
			    k->state);
			(void)show_scratch(sec.lines, linelen);
		}
		exit(CLI_EXIT_ERR);
	}
	(void)show_key();	/* an error shows at exit */
}

/* --print-state: the key and the scratch codes left in an existing file,
 * read with the verifier's checks of owner, mode and type. */
static void
print_state(struct keygen *k)
{
	struct sys_store *s;
	struct staged staged;
	size_t linelen;
	int rc, e;

	staged.dirfd = -1;
	if ((s = keygen_store("ga", k->print_state, &rc)) != NULL) {
		rc = sys_store_load_state(s, NULL, &sec.st);
		e = errno;
		sys_store_close(s);
		errno = e;
	}
	if (rc == OTP_EIO)
		err(CLI_EXIT_ERR, "%s", k->print_state);
	if (rc != 0)
		errx(CLI_EXIT_ERR, "%s: %s", k->print_state, otp_strerror(rc));
	otp_uri_init(&sec.u);
	sec.u.key = sec.st.key;
	switch (sec.st.mode) {
	case OTP_STATE_HOTP:
		sec.u.type = OTP_TYPE_HOTP;
		sec.u.counter = sec.st.hotp_counter;
		break;
	case OTP_STATE_TOTP:
		sec.u.type = OTP_TYPE_TOTP;
		sec.u.period = sec.st.step;
		break;
	case OTP_STATE_SCRATCHONLY:
	default:
		if (k->uri)
			errx(CLI_EXIT_ERR, "%s: neither TOTP_AUTH nor "
			    "HOTP_COUNTER: no URI for a scratch-code-only "
			    "file", k->print_state);
		break;
	}
	if (k->issuer != NULL)
		snprintf(sec.u.issuer, sizeof(sec.u.issuer), "%s", k->issuer);
	if (k->account != NULL)
		snprintf(sec.u.account, sizeof(sec.u.account), "%s",
		    k->account);
	render_key(k, &sec.u);
	linelen = render_scratch(sec.st.scratch, sec.st.nscratch);
	if (k->scratch_out != NULL) {
		stage_scratch(&staged, k->scratch_out, sec.lines, linelen,
		    k->force);
		if (finish_scratch(&staged, k->scratch_out, k->force) != 0)
			exit(CLI_EXIT_ERR);
	} else if (k->scratch_stdout) {
		if (show_key_scratch(sec.lines, linelen) != 0)
			exit(CLI_EXIT_ERR);
	} else if (show_scratch(sec.lines, linelen) != 0)
		exit(CLI_EXIT_ERR);
	(void)show_key();	/* an error shows at exit */
}

/* ---- --otpw: printed password lists --------------------------------- */

/* The secrets of a list, apart from the rest: they are large. */
static struct {
	char	prefix[1024];
	char	again[1024];
	char	pw[OTP_OTPW_GEN_MAX * OTP_OTPW_GEN_PWCHARS];
	char	list[OTP_OTPW_LIST_MAX];
	char	img[OTP_OTPW_MAX];
} otpw_sec;

static void
otpw_wipe(void)
{
	otp_wipe(&otpw_sec, sizeof(otpw_sec));
}

static void
otpw_options(struct keygen *k)
{
	if (!k->otpw)
		cli_usage_error("--prefix and --entries need --otpw");
	if (k->state != NULL || k->print_state != NULL || k->uri ||
	    k->have_bytes || k->nscratch >= 0 || k->scratch_out != NULL ||
	    k->scratch_stdout || k->confirm || k->window || k->step ||
	    k->rate_n || k->disallow_reuse || k->o.have_type ||
	    k->o.have_alg || k->o.have_digits || k->o.have_counter ||
	    k->have_period || k->issuer != NULL || k->account != NULL ||
	    k->o.enc != OTP_KEYENC_BASE32)
		cli_usage_error("--otpw takes only -f, --prefix and --entries");
	if (k->prefix != NULL && strcmp(k->prefix, "-") != 0 &&
	    k->prefix[0] != '@')
		cli_usage_error("--prefix takes @FILE or - (a password on the "
		    "command line is visible to other users)");
	if (k->otpw_file != NULL && k->otpw_file[0] == '\0')
		cli_usage_error("--otpw=FILE: empty file name");
	if (k->entries == 0)
		k->entries = OTP_OTPW_GEN_DEFAULT;
}

/* The prefix password: a line of @FILE or standard input, or asked twice
 * at the terminal without echo, as otpw-gen asks. */
static void
otpw_prefix(const struct keygen *k)
{
	char *p = otpw_sec.prefix;
	size_t sz = sizeof(otpw_sec.prefix);
	int rc;

	if (k->prefix != NULL) {
		rc = k->prefix[0] == '@' ? sys_key_read(k->prefix, -1, p, sz) :
		    cli_stdin_line(p, sz);
		if (rc == OTP_EIO)
			err(CLI_EXIT_ERR, "--prefix: %s", k->prefix[0] == '@' ?
			    k->prefix + 1 : "standard input");
		if (rc == OTP_EEMPTY || (rc == 0 && p[0] == '\0'))
			errx(CLI_EXIT_ERR, "--prefix: %s: %s", k->prefix,
			    otp_strerror(OTP_EOTPWPREFIX));
		if (rc != 0)
			errx(CLI_EXIT_ERR, "--prefix: %s: %s", k->prefix,
			    otp_strerror(rc));
		return;
	}
	if (readpassphrase("Enter new prefix password: ", p, sz,
	    RPP_REQUIRE_TTY) == NULL) {
		if (errno == ENOTTY || errno == ENXIO)
			errx(CLI_EXIT_ERR, "--otpw: no terminal to ask for the "
			    "prefix password; give --prefix=@FILE or "
			    "--prefix=-");
		err(CLI_EXIT_ERR, "--otpw: terminal");
	}
	if (readpassphrase("Reenter prefix password: ", otpw_sec.again,
	    sizeof(otpw_sec.again), RPP_REQUIRE_TTY) == NULL)
		err(CLI_EXIT_ERR, "--otpw: terminal");
	if (strlen(p) + 1 >= sz)
		errx(CLI_EXIT_ERR, "--otpw: prefix password: %s",
		    otp_strerror(OTP_ETOOLONG));
	if (strcmp(p, otpw_sec.again) != 0)
		errx(CLI_EXIT_ERR, "--otpw: the two prefix passwords differ; "
		    "nothing written");
	if (p[0] == '\0')
		errx(CLI_EXIT_ERR, "--otpw: %s", otp_strerror(OTP_EOTPWPREFIX));
}

/* A new list: printed to standard output in otpw-gen's layout, then its
 * hashes written to the file; a list that could not be printed in full
 * never replaces the old file. */
static void
otpw_generate(struct keygen *k)
{
	const char *path = k->otpw_file != NULL ? k->otpw_file :
	    cli_home_file("--otpw", ".otpw");
	char when[32], host[256];
	struct tm tm;
	time_t now;
	size_t imglen;
	int rc, n, unlocked = 0;

	if (atexit(otpw_wipe) != 0)
		errx(CLI_EXIT_ERR, "atexit failed");
	cli_lock(&otpw_sec, sizeof(otpw_sec));
	check_target("--otpw", path, k->force);
	otpw_prefix(k);
	rc = otp_otpw_generate(otpw_sec.prefix, strlen(otpw_sec.prefix),
	    k->entries, sys_random_word, NULL, otpw_sec.pw,
	    sizeof(otpw_sec.pw), otpw_sec.img, sizeof(otpw_sec.img), &imglen);
	if (rc == OTP_EIO)
		err(CLI_EXIT_ERR, "cannot get random bytes");
	if (rc != 0)
		errx(CLI_EXIT_ERR, "--otpw: %s", otp_strerror(rc));
	now = time(NULL);
	if (localtime_r(&now, &tm) == NULL ||
	    strftime(when, sizeof(when), "%Y-%m-%d %H:%M", &tm) == 0)
		errx(CLI_EXIT_ERR, "cannot format the time");
	if (gethostname(host, sizeof(host)) != 0)
		memcpy(host, "???", 4);
	host[sizeof(host) - 1] = '\0';
	n = otp_otpw_list(otpw_sec.pw, k->entries, when, host, otpw_sec.list,
	    sizeof(otpw_sec.list));
	if (n < 0)
		errx(CLI_EXIT_ERR, "--otpw: %s", otp_strerror(n));
	if (fwrite(otpw_sec.list, 1, (size_t)n, stdout) != (size_t)n ||
	    fflush(stdout) != 0 || ferror(stdout))
		errx(CLI_EXIT_ERR, "write error: the list was not printed; "
		    "%s is unchanged", path);
	{
		struct sys_record rec = { otpw_sec.img, imglen, NULL };

		rc = keygen_put("otpw", path, NULL, &rec, k->force, &unlocked);
	}
	if (rc == OTP_ESTATEEXIST)
		errx(CLI_EXIT_ERR, "--otpw: %s: %s (use -f to replace it); "
		    "the list printed is not valid", path, otp_strerror(rc));
	if (rc == OTP_EIO)
		err(CLI_EXIT_ERR, "--otpw: %s: the list printed is not valid",
		    path);
	if (rc != 0)
		errx(CLI_EXIT_ERR, "--otpw: %s: %s; the list printed is not "
		    "valid", path, otp_strerror(rc));
	if (unlocked)
		warnx("removed %s.lock, the lock of a login on the old list",
		    path);
}

/* --totp[=ALG] as everywhere, and --totp=30|60 for --usersfile; word is
 * the option as typed (an optional argument is always after its '='). */
static void
totp_option(struct keygen *k, const char *word)
{
	const char *eq = strchr(word, '=');

	if (eq != NULL && (strcmp(eq + 1, "30") == 0 ||
	    strcmp(eq + 1, "60") == 0)) {
		k->users_period = eq[1] == '3' ? 30 : 60;
		eq = NULL;
	}
	(void)cli_otp_option(&k->o, CLI_OPT_TOTP, eq != NULL ? eq + 1 :
	    NULL);
}

/* --usersfile: a new token line for --user, added (or with -f put in
 * place of the user's lines) atomically, every other byte kept. */
static void
users_options(struct keygen *k)
{
	const struct cli_otp *o = &k->o;

	if (k->user == NULL)
		cli_usage_error("--usersfile needs --user=NAME");
	if (k->state != NULL || k->print_state != NULL || k->uri ||
	    k->confirm || k->nscratch >= 0 || k->scratch_out != NULL ||
	    k->scratch_stdout || k->window || k->step || k->rate_n ||
	    k->disallow_reuse || k->issuer != NULL || k->account != NULL ||
	    k->have_period || o->have_counter || k->otpw ||
	    k->prefix != NULL || k->entries != 0)
		cli_usage_error("--usersfile takes only --user, --totp, "
		    "--hotp, --motp, --pin, -d, --bytes, -b, -x and -f");
	if (o->have_alg && o->alg != OTP_ALG_SHA1)
		cli_usage_error("--usersfile: users-file tokens are SHA1; "
		    "--algorithm %s does not apply", otp_alg_name(o->alg));
	if (o->have_digits && (o->digits < 6 || o->digits > 8))
		cli_usage_error("--usersfile: --digits must be 6, 7 or 8");
	if (o->motp && (o->have_type || o->have_digits || k->have_bytes))
		cli_usage_error("--motp: the token is Mobile-OTP's (6 hex "
		    "digits, a 16-character secret); --totp, --hotp, -d and "
		    "--bytes do not apply");
	if (o->motp && o->pin == NULL)
		cli_usage_error("--motp needs --pin=PIN|@FILE (the app's "
		    "PIN)");
}

static void
do_usersfile(struct keygen *k)
{
	struct otp_users_token *t = &sec.tok;
	char pin[OTP_USERS_FIELD_MAX];
	uint8_t raw[8];
	int rc;

	users_options(k);
	memset(t, 0, sizeof(*t));
	if (strlen(k->user) >= sizeof(t->user))
		errx(CLI_EXIT_ERR, "--user: %s", otp_strerror(OTP_EUSERSFIELD));
	memcpy(t->user, k->user, strlen(k->user) + 1);
	/* No --pin: a user re-keyed with -f keeps the PIN ("-" if new). */
	t->password[0] = '\0';
	if (k->o.pin != NULL) {
		rc = sys_key_read(k->o.pin, STDIN_FILENO, pin, sizeof(pin));
		if (rc == OTP_EIO)
			err(CLI_EXIT_ERR, "--pin");
		if (rc != 0)
			errx(CLI_EXIT_ERR, "--pin: %s", otp_strerror(rc));
		memcpy(t->password, pin, strlen(pin) + 1);
		otp_wipe(pin, sizeof(pin));
		if (strcmp(t->password, "-") == 0 ||
		    strcmp(t->password, "+") == 0)
			errx(CLI_EXIT_ERR, "--pin: '-' and '+' are not PINs in "
			    "a users file");
	}
	if (k->o.motp) {
		/* The init-secret as the app shows it: 16 hex characters. */
		t->kind = OTP_USERS_MOTP;
		t->digits = 6;
		t->period = 10;
		if (sys_random_bytes(raw, sizeof(raw)) != 0)
			err(CLI_EXIT_ERR, "random");
		rc = otp_hex_encode(raw, sizeof(raw), sec.text,
		    sizeof(sec.text));
		otp_wipe(raw, sizeof(raw));
		if (rc < 0)
			errx(CLI_EXIT_ERR, "key: %s", otp_strerror(rc));
		t->key.len = 2 * sizeof(raw);
		memcpy(t->key.buf, sec.text, t->key.len);
	} else {
		t->kind = k->o.have_type && k->o.type == OTP_TYPE_TOTP ?
		    OTP_USERS_TOTP : OTP_USERS_HOTP;
		t->digits = k->o.have_digits ? k->o.digits : 6;
		t->period = t->kind == OTP_USERS_TOTP ? (k->users_period ?
		    k->users_period : 30) : 0;
		if (sys_keygen(&t->key, k->bytes) != 0)
			err(CLI_EXIT_ERR, "random");
		otp_uri_init(&sec.u);
		sec.u.key = t->key;
		render_key(k, &sec.u);
	}
	{
		struct sys_record rec = { NULL, 0, t };

		rc = keygen_put("oath", k->usersfile, k->user, &rec, k->force,
		    NULL);
	}
	if (rc == OTP_EUSERSEXIST)
		errx(CLI_EXIT_ERR, "%s: '%s': %s (use -f to replace it)",
		    cli_esc(k->usersfile), cli_esc(k->user), otp_strerror(rc));
	if (rc == OTP_EIO || rc == OTP_ELOCK)
		err(CLI_EXIT_ERR, "%s", k->usersfile);
	if (rc != 0)
		errx(CLI_EXIT_ERR, "%s: %s", k->usersfile, otp_strerror(rc));
	(void)show_key();	/* an error shows at exit */
}

/* --store=URL: the store's kind says which of the spellings it is;
 * each keeps its own options and checks. */
static void
store_option(struct keygen *k, const char *url)
{
	struct sys_store_cfg c;
	struct sys_store *s;
	const char *path;
	unsigned caps;
	int rc;

	sys_store_cfg_init(&c);
	c.module = cli_store_module();
	if ((rc = sys_store_open(url, &c, &s)) != 0)
		cli_store_open_fail("--store", url, rc);
	caps = sys_store_caps(s);
	path = caps & SYS_STORE_SHARED ? url :
	    url + strlen(sys_store_scheme(s)) + 1;
	sys_store_close(s);
	if (k->state != NULL || k->usersfile != NULL || k->otpw)
		cli_usage_error("--store names the store once (not with "
		    "--state, --usersfile or --otpw)");
	if (caps & SYS_STORE_CHALLENGE) {
		k->otpw = 1;
		k->otpw_file = path;
	} else if (caps & SYS_STORE_TOKENLINE)
		k->usersfile = path;
	else if (caps & SYS_STORE_SHARED) {
		/* A database's row is a state file image, sealed. */
		k->state = url;
		k->db = 1;
	} else
		k->state = path;
}

int
main(int argc, char *argv[])
{
	struct keygen k;
	int ch;

	cli_init(argc, argv);
	if (atexit(wipe_secrets) != 0)
		errx(CLI_EXIT_ERR, "atexit failed");
	memset(&k, 0, sizeof(k));
	cli_otp_init(&k.o);
	k.o.enc = OTP_KEYENC_BASE32;
	k.bytes = OTP_KEYGEN_DEFAULT;
	k.nscratch = -1;
	while ((ch = cli_getopt(argc, argv, CLI_URI_SHORTOPTS "fhV",
	    longopts, &k.o)) != -1) {
		switch (ch) {
		case 'A':
			check_label("--account", optarg);
			k.account = optarg;
			break;
		case 'f':
			k.force = 1;
			break;
		case 'h':
			usage();
		case 'i':
			check_label("--issuer", optarg);
			k.issuer = optarg;
			break;
		case 'V':
			cli_version();
		case OPT_BYTES:
			k.bytes = parse_range("--bytes", optarg,
			    OTP_KEYGEN_MIN, OTP_KEYGEN_MAX);
			k.have_bytes = 1;
			break;
		case OPT_CONFIRM:
			k.confirm = 1;
			break;
		case OPT_DISALLOW_REUSE:
			k.disallow_reuse = 1;
			break;
		case 'p':
			k.period = cli_period(optarg);
			k.have_period = 1;
			break;
		case OPT_PRINT_STATE:
			k.print_state = optarg;
			break;
		case OPT_RATE_LIMIT:
			parse_rate(&k, optarg);
			break;
		case OPT_SCRATCH:
			k.nscratch = parse_range("--scratch", optarg, 0,
			    OTP_SCRATCH_SETMAX);
			break;
		case OPT_SCRATCH_OUT:
			k.scratch_stdout = strcmp(optarg, "-") == 0;
			k.scratch_out = k.scratch_stdout ? NULL : optarg;
			break;
		case OPT_STATE:
			k.state = optarg;
			break;
		case OPT_URI:
			k.uri = 1;
			break;
		case OPT_STEP_SIZE:
			k.step = parse_range("--step-size", optarg,
			    OTP_STATE_STEP_MIN, OTP_STATE_STEP_MAX);
			break;
		case OPT_WINDOW_SIZE:
			k.window = parse_range("--window-size", optarg,
			    OTP_STATE_WINDOW_MIN, OTP_STATE_WINDOW_MAX);
			break;
		case OPT_OTPW:
			k.otpw = 1;
			k.otpw_file = optarg;
			break;
		case OPT_PREFIX:
			k.prefix = optarg;
			break;
		case OPT_ENTRIES:
			k.entries = parse_range("--entries", optarg,
			    OTP_OTPW_GEN_MIN, OTP_OTPW_GEN_MAX);
			break;
		case OPT_USERSFILE:
			k.usersfile = optarg;
			break;
		case OPT_STORE:
			store_option(&k, optarg);
			break;
		case OPT_USER:
			k.user = optarg;
			break;
		case OPT_STOREKEY:
			k.store_key = optarg;
			break;
		case OPT_UTOTP:
			totp_option(&k, argv[optind - 1]);
			break;
		}
	}
	argc -= optind;
	/* Not echoed: a stray operand may be a secret typed by mistake. */
	if (argc > 0)
		cli_usage_error("no operands are taken");
	if (k.usersfile != NULL) {
		do_usersfile(&k);
		wipe_secrets();
		cli_exit(0);
	}
	if (k.db && k.user == NULL)
		cli_usage_error("--store=%s needs --user=NAME", k.state);
	if (k.db && (k.user[0] == '\0' || strlen(k.user) > 255))
		errx(CLI_EXIT_ERR, "--user: 1 to 255 bytes");
	if (k.store_key != NULL && !k.db)
		cli_usage_error("--store-key needs --store=postgresql://...");
	if ((k.user != NULL && !k.db && !k.uri) || k.users_period != 0 ||
	    k.o.motp || (k.o.pin != NULL && !k.db))
		cli_usage_error("--user, --totp=30|60, --motp and --pin need "
		    "--usersfile (--user and --pin: or --store=postgresql://; "
		    "--user: or --uri, for the account NAME@HOST)");
	if (k.otpw || k.prefix != NULL || k.entries != 0) {
		otpw_options(&k);
		otpw_generate(&k);
		wipe_secrets();
		cli_exit(0);
	}
	check_options(&k);

	if (k.print_state != NULL)
		print_state(&k);
	else
		generate(&k);
	wipe_secrets();
	cli_exit(0);
}

/*
 * cli.c - helpers every otp-utils tool shares (see cli.h).
 */
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <readpassphrase.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "otp_uri.h"
#include "store.h"

void
cli_init(int argc, char *argv[])
{
	struct rlimit rl = { 0, 0 };

	(void)argc;
	if (argv[0] != NULL)
		setprogname(argv[0]);
	/* Key material lives in this process: no core files, no ptrace by
	 * other processes of the same user. */
	(void)setrlimit(RLIMIT_CORE, &rl);
	(void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

void
cli_version(void)
{
	printf("%s (otp-utils) %s\n", getprogname(), OTP_VERSION);
	cli_exit(0);
}

void
cli_exit(int status)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		warn("write error");
		_exit(CLI_EXIT_ERR);
	}
	/* fclose reports what a buffered write deferred (EPIPE, ENOSPC). */
	if (fclose(stdout) != 0) {
		warn("write error");
		_exit(CLI_EXIT_ERR);
	}
	exit(status);
}

void
cli_usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", getprogname());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help' for more information.\n",
	    getprogname());
	exit(CLI_EXIT_ERR);
}

int
cli_getopt(int argc, char *argv[], const char *shortopts,
    const struct option *longopts, struct cli_otp *o)
{
	char opts[128];
	const char *word;
	int ch, n;

	/* A leading ':' tells a missing argument from an unknown option. */
	snprintf(opts, sizeof(opts), ":%s", shortopts);
	opterr = 0;
	do
		ch = getopt_long(argc, argv, opts, longopts, NULL);
	while (o != NULL && cli_otp_option(o, ch, optarg));
	if (ch != '?' && ch != ':')
		return ch;
	/* A long option always moves optind past its word; a short one in
	 * the middle of a cluster does not, so it is named by optopt.  A
	 * long one is named as typed, never past its '='. */
	word = optind > 0 && optind <= argc ? argv[optind - 1] : "";
	n = (int)strcspn(word, "=");
	if (ch == ':' && strncmp(word, "--", 2) == 0)
		cli_usage_error("option '%.*s' needs an argument", n, word);
	if (ch == ':')
		cli_usage_error("option '-%c' needs an argument", optopt);
	/* optopt is 0 for an unknown or ambiguous long option, the option's
	 * value for a long option given an argument it does not take. */
	if (optopt != 0 && word[n] == '=' && strncmp(word, "--", 2) == 0 &&
	    (optopt >= 128 || (optopt != ':' &&
	    strchr(shortopts, optopt) != NULL)))
		cli_usage_error("option '%.*s' takes no argument", n, word);
	if (optopt == 0)
		cli_usage_error("unknown option '%.*s'", n, word);
	if (optopt > 0x20 && optopt < 0x7f)
		cli_usage_error("unknown option '-%c'", optopt);
	cli_usage_error("unknown option (byte 0x%02x)",
	    (unsigned)(unsigned char)optopt);
}

void
cli_otp_init(struct cli_otp *o)
{
	memset(o, 0, sizeof(*o));
	o->type = OTP_DEFAULT_TYPE;
	o->alg = OTP_DEFAULT_ALG;
	o->digits = OTP_DEFAULT_DIGITS;
	o->step = OTP_DEFAULT_PERIOD;
	o->now = (int64_t)time(NULL);
	o->enc = OTP_KEYENC_HEX;
}

int64_t
cli_time(const char *name, const char *arg)
{
	size_t off = 0, n;
	int64_t t;
	int rc;

	rc = otp_time_parse_at(arg, (int64_t)time(NULL), sys_zone_local(), &t,
	    &off);
	if (rc == 0)
		return t;
	/* Point at the word not understood, when it is not the whole. */
	n = strcspn(arg + off, " \t");
	if (rc == OTP_ETIME && n > 0 &&
	    n < strlen(arg))
		errx(CLI_EXIT_ERR, "%s: %s: '%s': '%.*s' not understood", name,
		    otp_strerror(rc), arg, (int)n, arg + off);
	errx(CLI_EXIT_ERR, "%s: %s: '%s'", name, otp_strerror(rc), arg);
}

int
cli_otp_option(struct cli_otp *o, int ch, const char *arg)
{
	uint64_t v;
	int rc;

	switch (ch) {
	case 'a':
		if (otp_alg_parse(arg, &o->alg) != 0)
			errx(CLI_EXIT_ERR, "--algorithm: unknown algorithm "
			    "'%s' (SHA1, SHA256 or SHA512)", arg);
		o->have_alg = 1;
		return 1;
	case 'b':
		o->enc = OTP_KEYENC_BASE32;
		return 1;
	case 'x':
		o->enc = OTP_KEYENC_HEX;
		return 1;
	case 'c':
		if (otp_parse_u64(arg, 0, UINT64_MAX, &o->counter) != 0)
			errx(CLI_EXIT_ERR, "--counter: '%s': %s", arg,
			    otp_strerror(OTP_ECOUNTER));
		o->have_counter = 1;
		return 1;
	case 'd':
		if (otp_parse_u64(arg, OTP_DIGITS_MIN, OTP_DIGITS_MAX, &v) != 0)
			errx(CLI_EXIT_ERR, "--digits: '%s': %s", arg,
			    otp_strerror(OTP_EDIGITS));
		o->digits = (unsigned)v;
		o->have_digits = 1;
		return 1;
	case 'N':
		o->now = cli_time("--now", arg);
		o->have_now = 1;
		return 1;
	case 'S':
		o->start = cli_time("--start-time", arg);
		o->have_start = 1;
		return 1;
	case 's':
		if ((rc = otp_duration_parse(arg, &o->step)) != 0)
			errx(CLI_EXIT_ERR, "--time-step-size: '%s': %s", arg,
			    otp_strerror(rc));
		/* A step past 2^62 leaves no room for the window. */
		if (o->step == 0 || o->step > INT64_MAX / 2)
			errx(CLI_EXIT_ERR, "--time-step-size: '%s': must be 1 "
			    "to %lld seconds", arg, (long long)(INT64_MAX / 2));
		o->have_step = 1;
		return 1;
	case 'w':
		if (otp_parse_u64(arg, 0, UINT64_MAX, &o->window) != 0)
			errx(CLI_EXIT_ERR, "--window: '%s': must be a "
			    "non-negative decimal", arg);
		o->have_window = 1;
		return 1;
	case CLI_OPT_HOTP:
	case CLI_OPT_TOTP:
		/* A type given twice over is an error: whichever won, the
		 * codes of the other would be silently wrong. */
		if (o->have_type && o->type != (ch == CLI_OPT_HOTP ?
		    OTP_TYPE_HOTP : OTP_TYPE_TOTP))
			cli_usage_error("--hotp and --totp exclude each other");
		o->type = ch == CLI_OPT_HOTP ? OTP_TYPE_HOTP : OTP_TYPE_TOTP;
		o->have_type = 1;
		if (arg != NULL) {	/* --totp=ALG */
			if (otp_alg_parse(arg, &o->alg) != 0)
				errx(CLI_EXIT_ERR, "--totp: unknown algorithm "
				    "'%s' (SHA1, SHA256 or SHA512)", arg);
			o->have_alg = 1;
		}
		return 1;
	case CLI_OPT_STRICT:
		o->strict = 1;
		return 1;
	case CLI_OPT_STEAM:
	case CLI_OPT_MOTP:
		o->steam |= ch == CLI_OPT_STEAM;
		o->motp |= ch == CLI_OPT_MOTP;
		if (o->steam && o->motp)
			cli_usage_error("--steam and --motp exclude each "
			    "other");
		return 1;
	case CLI_OPT_PIN:
		o->pin = arg;
		return 1;
	}
	return 0;
}

uint64_t
cli_period(const char *arg)
{
	uint64_t v;

	if (otp_duration_parse(arg, &v) != 0 || v == 0 || v > UINT32_MAX)
		errx(CLI_EXIT_ERR, "--period: '%s': must be 1 to 4294967295 "
		    "seconds (30, 30s, 1m)", arg);
	return v;
}

unsigned
cli_deadline(const char *opt, const char *arg)
{
	size_t n = strlen(arg);
	uint64_t v;

	if (n > 2 && strcmp(arg + n - 2, "ms") == 0) {
		char num[24];

		if (n - 2 < sizeof(num)) {
			memcpy(num, arg, n - 2);
			num[n - 2] = '\0';
			if (otp_parse_u64(num, 1, 600000, &v) == 0)
				return (unsigned)v;
		}
	} else if (otp_duration_parse(arg, &v) == 0 && v >= 1 && v <= 600)
		return (unsigned)v * 1000;
	errx(CLI_EXIT_ERR, "%s: '%s': want 1ms to 10 minutes (500ms, 3s, "
	    "1m)", opt, arg);
}

const char *
cli_store_module(void)
{
	return secure_getenv("OTP_STORE_MODULE");
}

const char *
cli_url(const char *url)
{
	char shown[1024];

	sys_store_url_shown(url, shown, sizeof(shown));
	return cli_esc(shown);
}

void
cli_store_open_fail(const char *opt, const char *url, int rc)
{
	const char *shown = cli_url(url);

	if (rc == OTP_ESTOREMODULE)
		errx(CLI_EXIT_ERR, "%s%s'%s': %s: %s (OTP_STORE_MODULE names "
		    "the object to load)", opt, *opt != '\0' ? " " : "",
		    shown, otp_strerror(rc),
		    cli_esc(sys_store_load_error()));
	if (rc == OTP_ESTORESCHEME || rc == OTP_ESTOREURL ||
	    rc == OTP_ETOOLONG)
		cli_usage_error("%s%s'%s': %s", opt, *opt != '\0' ? " " : "",
		    shown, otp_strerror(rc));
	errx(CLI_EXIT_ERR, "%s%s'%s': %s", opt, *opt != '\0' ? " " : "",
	    shown, otp_strerror(rc));
}

#define ESC_TEXT	1024	/* bytes of text one cli_esc shows */

/* The escape of byte c into out (at least 5 bytes): its length. */
static size_t
esc_byte(unsigned char c, char *out)
{
	if (c < 0x20 || c > 0x7e || c == '\\')
		return (size_t)snprintf(out, 5, "\\%03o", c);
	out[0] = (char)c;
	return 1;
}

const char *
cli_esc_n(const char *s, size_t n)
{
	static char buf[4][4 * ESC_TEXT + 4];
	static unsigned next;
	char *out = buf[next++ % 4];
	size_t i, o = 0;

	for (i = 0; i < n && i < ESC_TEXT; i++)
		o += esc_byte((unsigned char)s[i], out + o);
	if (i < n) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
	return out;
}

const char *
cli_esc(const char *s)
{
	return cli_esc_n(s, strlen(s));
}

void
cli_esc_put(FILE *f, const char *s, size_t n)
{
	char e[5];
	size_t i, k;

	for (i = 0; i < n; i++) {
		k = esc_byte((unsigned char)s[i], e);
		(void)fwrite(e, 1, k, f);
	}
}

void
cli_otp_apply(const struct cli_otp *o, struct otp_uri *u)
{
	if (o->have_type || !u->is_uri)
		u->type = o->type;
	if (o->have_alg || !u->is_uri)
		u->alg = o->alg;
	if (o->have_digits || !u->is_uri)
		u->digits = o->digits;
	if (o->have_counter || !u->is_uri)
		u->counter = o->counter;
	if (o->have_step || !u->is_uri)
		u->period = o->step;
	if (o->steam || o->motp || u->steam)
		u->type = OTP_TYPE_TOTP;
	if (o->motp)
		u->period = 10;		/* Mobile-OTP hashes tens of seconds */
}

int
cli_steam(const struct cli_otp *o, const struct otp_uri *u)
{
	return o->steam || (u != NULL && u->steam);
}

/* The options among themselves: usage errors. */
static void
check_options(const struct cli_otp *o)
{
	const char *kind = o->steam ? "--steam" : "--motp";

	/* Hex is always read strictly; --strict silently doing nothing
	 * would let a user think a key was checked. */
	if (o->strict && o->enc != OTP_KEYENC_BASE32)
		cli_usage_error("--strict checks Base32 keys: add -b (hex "
		    "keys are always read strictly)");
	if (!o->steam && !o->motp) {
		if (o->pin != NULL)
			cli_usage_error("--pin goes with --motp");
		return;
	}
	if (o->have_type && o->type == OTP_TYPE_HOTP)
		cli_usage_error("--hotp and %s exclude each other", kind);
	if (o->have_digits || o->have_alg)
		cli_usage_error("--digits and --algorithm do not apply to %s",
		    kind);
	if (o->motp && o->have_step)
		cli_usage_error("--time-step-size does not apply to --motp: "
		    "Mobile-OTP uses 10-second steps");
	if (o->motp && o->pin == NULL)
		cli_usage_error("--motp needs --pin=PIN");
	if (o->steam && o->pin != NULL)
		cli_usage_error("--pin goes with --motp");
}

unsigned
cli_otp_misfit(const struct cli_otp *o, const struct otp_uri *u)
{
	unsigned m = 0;

	if (u->type == OTP_TYPE_TOTP && o->have_counter)
		m |= CLI_MISFIT_COUNTER;
	if (u->type == OTP_TYPE_HOTP && (o->have_now || o->have_start ||
	    o->have_step))
		m |= CLI_MISFIT_TIME;
	return m;
}

/* Warn about misfit bits; uri says the type came from an otpauth URI. */
static void
misfit_warn(unsigned misfit, int uri, const char *where)
{
	if (misfit & CLI_MISFIT_COUNTER)
		warnx("--counter applies to HOTP only%s%s", uri ?
		    " (the key is a TOTP URI)" : "", where);
	if (misfit & CLI_MISFIT_TIME)
		warnx("--now, --start-time and --time-step-size apply to TOTP "
		    "only%s%s", uri ? " (the key is an HOTP URI)" :
		    " (add --totp)", where);
}

int
cli_otp_check(const struct cli_otp *o, const struct otp_uri *u,
    const char *where)
{
	unsigned m;

	if (u == NULL) {
		check_options(o);
		return 0;
	}
	if (u->steam && (o->motp || (o->have_type &&
	    o->type == OTP_TYPE_HOTP) || o->have_digits || o->have_alg)) {
		warnx("a Steam URI%s takes no --motp, --hotp, --digits or "
		    "--algorithm", where);
		return -1;
	}
	/* The same rule whether the type came from the options or from a
	 * URI: an option the key's type cannot use is a mistake. */
	if ((m = cli_otp_misfit(o, u)) == 0)
		return 0;
	misfit_warn(m, u->is_uri, where);
	return -1;
}

int
cli_motp_text(const struct cli_otp *o, const char *text, const char *what,
    struct otp_uri *u)
{
	size_t n = strlen(text);

	otp_uri_init(u);
	cli_lock(u, sizeof(*u));
	cli_otp_apply(o, u);
	if (n == 0 || n > sizeof(u->key.buf)) {
		warnx("mOTP secret%s%s%s: %s", what != NULL ? " (" : "",
		    what != NULL ? what : "", what != NULL ? ")" : "",
		    otp_strerror(n == 0 ? OTP_EKEYEMPTY : OTP_EKEYLONG));
		return -1;
	}
	memcpy(u->key.buf, text, n);
	u->key.len = n;
	return 0;
}

/* Print what was wrong with key text; where is "" or " (line 3)".  A
 * codec error gives the offset only: the character is part of a secret. */
static void
key_error(int rc, const char *text, size_t erroff, const char *hint,
    const char *where)
{
	switch (rc) {
	case OTP_EBASE32:
	case OTP_EHEX:
	case OTP_EURIESC:
		warnx("%s at offset %zu%s%s", otp_strerror(rc), erroff, where,
		    hint);
		break;
	default:
		if (rc == OTP_EURI && strncasecmp(text, "otpauth-migration:",
		    18) == 0)
			hint = " (a Google Authenticator export: use otp-uri "
			    "--from-migration)";
		warnx("key%s: %s%s", where, otp_strerror(rc), hint);
		break;
	}
}

int
cli_key_text(const struct cli_otp *o, const char *text, const char *what,
    struct otp_uri *u)
{
	char where[64] = "";
	size_t erroff = 0;
	int rc;

	if (what != NULL)
		snprintf(where, sizeof(where), " (%s)", what);
	cli_lock(u, sizeof(*u));
	rc = otp_key_parse(text, o->enc, u, &erroff);
	if (rc == 0 && o->strict && !u->is_uri && o->enc == OTP_KEYENC_BASE32) {
		uint8_t tmp[OTP_KEY_MAX];
		size_t n;

		/* Canonical means upper case, no separators, zero trailing
		 * bits, and padding either exact or absent (apps omit it). */
		rc = otp_b32_decode(text, strlen(text), tmp, sizeof(tmp), &n,
		    OTP_B32_STRICT | (strchr(text, '=') == NULL ?
		    OTP_B32_NOPAD : 0), &erroff);
		otp_wipe(tmp, sizeof(tmp));
	}
	if (rc != 0) {
		const char *hint = "";
		size_t n, off;

		/* A hex key that would decode as Base32 is the most common
		 * mistake; say so. */
		if ((rc == OTP_EHEX || rc == OTP_EHEXLEN) && !u->is_uri &&
		    otp_b32_decode(text, strlen(text), u->key.buf,
		    sizeof(u->key.buf), &n, 0, &off) == 0)
			hint = " (is the key Base32? use -b)";
		key_error(rc, text, erroff, hint, where);
		otp_wipe(&u->key, sizeof(u->key));
		return rc;
	}
	cli_otp_apply(o, u);
	return 0;
}

/* The key from the terminal, without echo; 1 when the process has no
 * controlling terminal (setsid), for the caller to read stdin as it is. */
static int
key_from_tty(char *out, size_t outsz)
{
	char prompt[64];
	size_t n;

	snprintf(prompt, sizeof(prompt), "%s: key: ", getprogname());
	if (readpassphrase(prompt, out, outsz, RPP_REQUIRE_TTY) == NULL)
		return errno == ENOTTY || errno == ENXIO ? 1 : OTP_EIO;
	n = strlen(out);
	/* readpassphrase cuts a long line short without saying so. */
	if (n + 1 >= outsz)
		return OTP_ETOOLONG;
	return n == 0 ? OTP_EEMPTY : 0;
}

/* Standard input, read through our own buffer (locked, wiped at exit),
 * never stdio's: its lines may be keys. */
static struct sys_lines cli_in;
static int cli_in_ready;

static void
stdin_wipe(void)
{
	sys_lines_wipe(&cli_in);
}

int
cli_stdin_line(char *out, size_t outsz)
{
	if (!cli_in_ready) {
		sys_lines_init(&cli_in, STDIN_FILENO);
		cli_lock(&cli_in, sizeof(cli_in));
		(void)atexit(stdin_wipe);
		cli_in_ready = 1;
	}
	return sys_lines_next(&cli_in, out, outsz);
}

int
cli_key_read(const char *arg, char *out, size_t outsz)
{
	int rc, in = arg == NULL || strcmp(arg, "-") == 0;
	int tty = in && isatty(STDIN_FILENO);
	/* An operand is the key itself: never echo it. */
	const char *src = tty ? "terminal" : in ? "standard input" :
	    arg[0] == '@' ? arg : "key";

	rc = tty ? key_from_tty(out, outsz) : 1;
	if (rc == 1)
		rc = in ? cli_stdin_line(out, outsz) :
		    sys_key_read(arg, -1, out, outsz);
	if (rc == 0)
		return 0;
	otp_wipe(out, outsz);
	if (rc == OTP_EIO)
		warn("%s", src);
	else
		warnx("%s: %s", src, rc == OTP_EEMPTY ? "no key" :
		    otp_strerror(rc));
	return -1;
}

void
cli_key_load(const struct cli_otp *o, const char *arg, struct otp_uri *u)
{
	char line[OTP_LINE_MAX] = "";
	int rc;

	cli_lock(line, sizeof(line));
	if (cli_key_read(arg, line, sizeof(line)) != 0)
		exit(CLI_EXIT_ERR);
	rc = cli_key_text(o, line, NULL, u);
	otp_wipe(line, sizeof(line));
	if (rc != 0)
		exit(CLI_EXIT_ERR);
}

void
cli_lock(const void *p, size_t n)
{
	/* Best effort: RLIMIT_MEMLOCK or a container may refuse, and a
	 * tool that runs for milliseconds must not fail for that. */
	if (n > 0)
		(void)mlock(p, n);
}

const char *
cli_home_file(const char *opt, const char *name)
{
	static char path[PATH_MAX];
	struct passwd *pw;

	errno = 0;
	if ((pw = getpwuid(getuid())) == NULL || pw->pw_dir == NULL)
		errx(CLI_EXIT_ERR, "%s: cannot look up your home directory%s%s",
		    opt, errno ? ": " : "", errno ? strerror(errno) : "");
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", pw->pw_dir, name) >=
	    sizeof(path))
		errx(CLI_EXIT_ERR, "%s: home directory path too long", opt);
	return path;
}

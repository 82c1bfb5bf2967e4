/*
 * otp-uri - build, parse and check otpauth:// key URIs, draw them as QR
 * codes, and convert between otpauth:// URIs and the other formats that
 * carry keys: Google Authenticator export (migration) URIs, PSKC
 * (RFC 6030) containers and OATH Toolkit users-file lines.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>

#include "cli.h"
#include "otp_migration.h"
#include "otp_pskc.h"
#include "otp_qr.h"
#include "otp_uri.h"
#include "otp_users.h"

enum {
	OPT_PARSE = CLI_OPT_TOOL_BASE,
	OPT_JSON,
	OPT_GET,
	OPT_CHECK,
	OPT_QR,
	OPT_FROM_MIGRATION,
	OPT_TO_MIGRATION,
	OPT_FROM,
	OPT_TO,
	OPT_PSKC_KEY,
	OPT_PSKC_PASSWORD,
	OPT_DROP_ISSUER,
	OPT_ALLOW_PLAIN,
	OPT_MAP,
	OPT_SKIP_UNMAPPED,
};

static const struct option longopts[] = {
	CLI_STD_LONGOPTS,
	CLI_URI_LONGOPTS,
	{ "allow-plain",	no_argument,	   NULL, OPT_ALLOW_PLAIN },
	{ "check",		no_argument,	   NULL, OPT_CHECK },
	{ "drop-issuer",	no_argument,	   NULL, OPT_DROP_ISSUER },
	{ "force",		no_argument,	   NULL, 'f' },
	{ "from",		required_argument, NULL, OPT_FROM },
	{ "from-migration",	no_argument,	   NULL, OPT_FROM_MIGRATION },
	{ "get",		required_argument, NULL, OPT_GET },
	{ "json",		no_argument,	   NULL, OPT_JSON },
	{ "map",		required_argument, NULL, OPT_MAP },
	{ "output",		required_argument, NULL, 'o' },
	{ "parse",		no_argument,	   NULL, OPT_PARSE },
	{ "pskc-key",		required_argument, NULL, OPT_PSKC_KEY },
	{ "pskc-password",	required_argument, NULL, OPT_PSKC_PASSWORD },
	{ "qr",			optional_argument, NULL, OPT_QR },
	{ "quiet",		no_argument,	   NULL, 'q' },
	{ "skip-unmapped",	no_argument,	   NULL, OPT_SKIP_UNMAPPED },
	{ "strict",		no_argument,	   NULL, CLI_OPT_STRICT },
	{ "to",			required_argument, NULL, OPT_TO },
	{ "to-migration",	no_argument,	   NULL, OPT_TO_MIGRATION },
	{ NULL,			0,		   NULL, 0 }
};

enum mode {
	MODE_BUILD,
	MODE_PARSE,
	MODE_GET,
	MODE_CHECK,
	MODE_CONVERT,		/* --from, --to and their aliases */
};

/* The formats of --from and --to (the table is at the end of the
 * conversions, below). */
enum fmt {
	FMT_URI,
	FMT_MIGRATION,
	FMT_PSKC,
	FMT_OATH,
};

static const char *const fields[] = {
	"type", "issuer", "account", "secret", "algorithm", "digits",
	"period", "counter",
};
#define NFIELDS	(sizeof(fields) / sizeof(fields[0]))

/*
 * Which warnings each mode gives.  Reading a URI from elsewhere (--parse,
 * --get, a URI rewritten or drawn) warns of what apps get wrong with it;
 * the short-key warning belongs where a key is chosen (building from a
 * bare KEY) or judged (--check), which also names what is not portable.
 */
#define WARN_READ	(OTP_WARN_ISSUERMISMATCH | OTP_WARN_PADDED | \
			 OTP_WARN_GAIGNORES)
#define WARN_ALL	(WARN_READ | OTP_WARN_SHORTKEY | OTP_WARN_UNKNOWN | \
			 OTP_WARN_STEAM)


static struct {
	enum mode		 mode;
	int			 json;
	int			 quiet;
	int			 qr;
	enum otp_qr_style	 qrstyle;
	const char		*get;
	const char		*issuer;
	const char		*account;
	int			 have_build;	/* a build-only option */
	int			 status;	/* worst exit status so far */
	enum fmt		 from, to;
	const char		*pskc_key;	/* --pskc-key's argument */
	const char		*pskc_password;	/* --pskc-password's */
	int			 drop_issuer;	/* --drop-issuer */
	int			 allow_plain;	/* --allow-plain */
	const char		*output;	/* -o's FILE, NULL: stdout */
	int			 force;		/* -f */
	const char		*map;		/* --map's FILE */
	int			 skip_unmapped;	/* --skip-unmapped */
	size_t			 named;		/* accounts -A has named */
} opt;

static struct otp_qr qr;

static void __attribute__((noreturn))
usage(void)
{
	printf("usage: otp-uri [-bqx] [--totp[=ALG] | --hotp] [-a ALG] "
	    "[-c COUNTER] [-d DIGITS]\n"
	    "               [-p DURATION] [-i ISSUER] [-A ACCOUNT] [--strict]\n"
	    "               [--qr[=STYLE]] [KEY]\n"
	    "       otp-uri [-q] --parse [--json] [URI ...]\n"
	    "       otp-uri [-q] --get=FIELD [URI]\n"
	    "       otp-uri [-q] --check [URI ...]\n"
	    "       otp-uri [-fq] --from=FORMAT [--to=FORMAT] [-o FILE] "
	    "[--qr[=STYLE]]\n"
	    "               [--drop-issuer] [-A ACCOUNT | --map=FILE "
	    "[--skip-unmapped]]\n"
	    "               [--pskc-key=HEX|@FILE|- | --pskc-password=@FILE|-]\n"
	    "               [--allow-plain] [INPUT ...]\n"
	    "       otp-uri [-fq] --to=FORMAT [-o FILE] [-A ACCOUNT] "
	    "[--qr[=STYLE]]\n"
	    "               [--drop-issuer]\n"
	    "               [--pskc-key=HEX|@FILE|- | --pskc-password=@FILE|-] "
	    "[URI ...]\n"
	    "\n"
	    "Build an otpauth:// URI from KEY (Base32, or hex with -x, or a "
	    "URI; \"-\"\n"
	    "reads a line of stdin, @FILE a line of FILE, none reads stdin), "
	    "or read URIs\n"
	    "from the operands or, without operands, one per line of "
	    "standard input.\n"
	    "\n"
	    "  --totp[=ALG]           time-based key (default)\n"
	    "  --hotp                 counter-based key\n"
	    "  -a, --algorithm=ALG    SHA1 (default), SHA256 or SHA512\n"
	    "  -c, --counter=N        initial HOTP counter (default 0)\n"
	    "  -d, --digits=N         code length, 6 to 10 (default 6)\n"
	    "  -p, --period=DURATION  TOTP time step, as 30, 30s or 1m "
	    "(default 30s)\n"
	    "  -i, --issuer=NAME      issuer, as label prefix and parameter\n"
	    "  -A, --account=NAME     account name; in a conversion, that of the "
	    "one account\n"
	    "                         converted (more accounts are refused)\n"
	    "  -b, --base32           KEY is Base32 (default)\n"
	    "  -x, --hex              KEY is hex\n"
	    "      --strict           refuse non-canonical Base32\n"
	    "      --qr[=STYLE]       draw a QR code; STYLE in any case: utf8 "
	    "(default;\n"
	    "                         assumes light text on a dark "
	    "terminal),\n"
	    "                         utf8-inverted (dark text on a light "
	    "terminal),\n"
	    "                         ansi (its own colours), ascii\n"
	    "      --parse            print each URI's fields as field=value\n"
	    "      --json             with --parse: one JSON object per URI\n"
	    "      --get=FIELD        print one field: type, issuer, account,\n"
	    "                         secret, algorithm, digits, period, "
	    "counter;\n"
	    "                         exit 1 if the URI's type has no such "
	    "field\n"
	    "      --check            exit 0 if valid and portable, 1 if valid "
	    "with\n"
	    "                         warnings (short key, unknown parameters, "
	    "...),\n"
	    "                         2 if invalid\n"
	    "      --from=FORMAT      read accounts in FORMAT: uri (default), "
	    "migration\n"
	    "                         (Google Authenticator export URIs), "
	    "pskc\n"
	    "                         (RFC 6030 files) or oath (OATH Toolkit "
	    "users\n"
	    "                         files); files: INPUT names them, - or "
	    "none: stdin\n"
	    "      --to=FORMAT        write them in FORMAT: uri (default), "
	    "migration\n"
	    "                         (10 accounts a URI), pskc (one file) or "
	    "oath\n"
	    "                         (users-file lines, the account as the "
	    "user)\n"
	    "  -o, --output=FILE      write a conversion to FILE, a new file of "
	    "mode 0600,\n"
	    "                         whole or not at all (- for standard "
	    "output)\n"
	    "  -f, --force            with -o: replace an existing FILE\n"
	    "      --map=FILE         with --from=pskc: lines \"SERIAL-OR-KEYID "
	    "LOGIN\", the\n"
	    "                         login (account, user) of each key; a key "
	    "it does\n"
	    "                         not name stops the conversion\n"
	    "      --skip-unmapped    with --map: skip the keys it does not name\n"
	    "      --drop-issuer      with --to=oath: leave issuers out "
	    "instead of\n"
	    "                         refusing the accounts that have one\n"
	    "      --from-migration   the same as --from=migration\n"
	    "      --to-migration     the same as --to=migration\n"
	    "      --pskc-key=HEX|@FILE|-\n"
	    "                         the PSKC pre-shared AES key (16, 24 or "
	    "32 bytes)\n"
	    "      --pskc-password=@FILE|-\n"
	    "                         the PSKC password (PBKDF2), from FILE "
	    "or stdin\n"
	    "      --allow-plain      with --from=pskc and a key or password: "
	    "read a file\n"
	    "                         that is not encrypted (else refused)\n"
	    "  -q, --quiet            no warnings\n"
	    "  -h, --help             this help\n"
	    "  -V, --version          version\n");
	cli_exit(0);
}

static void
set_mode(enum mode m)
{
	if (opt.mode != MODE_BUILD && opt.mode != m)
		cli_usage_error("--parse, --get, --check and the conversions "
		    "(--from, --to) exclude each other");
	opt.mode = m;
}

/* The names of u's unknown parameters, "image=, x=", into buf; how
 * many there are. */
static size_t
extra_names(const struct otp_uri *u, char *buf, size_t bufsz)
{
	char name[OTP_LINE_MAX], value[OTP_LINE_MAX];
	size_t pos = 0, n = 0, count = 0;

	buf[0] = '\0';
	while (otp_uri_extra_next(u, &pos, name, sizeof(name), value,
	    sizeof(value)) == 1) {
		if (n < bufsz)
			n += (size_t)snprintf(buf + n, bufsz - n, "%s%.40s=",
			    count > 0 ? ", " : "", name);
		count++;
	}
	otp_wipe(value, sizeof(value));
	return count;
}

/* Print the warnings of u that mask lets through; returns 1 if any. */
static int
warnings(const struct otp_uri *u, const char *where, unsigned mask)
{
	char ga[128] = "", names[256];
	unsigned w = u->warn & mask;

	if (opt.quiet)
		return w != 0;
	if (w & OTP_WARN_ISSUERMISMATCH)
		warnx("warning: the label's issuer differs from the issuer "
		    "parameter; the parameter wins%s", where);
	if (w & OTP_WARN_PADDED)
		warnx("warning: the secret has '=' padding, which some apps "
		    "refuse%s", where);
	if (w & OTP_WARN_SHORTKEY)
		warnx("warning: the secret is %zu bits; RFC 4226 asks for at "
		    "least 128%s", u->key.len * 8, where);
	if (w & OTP_WARN_GAIGNORES) {
		size_t n = 0;

		if (u->alg != OTP_ALG_SHA1)
			n += (size_t)snprintf(ga + n, sizeof(ga) - n,
			    ", algorithm %s", otp_alg_name(u->alg));
		if (!u->steam && u->digits != 6 && u->digits != 8)
			n += (size_t)snprintf(ga + n, sizeof(ga) - n,
			    ", %u digits", u->digits);
		if (u->type == OTP_TYPE_TOTP && u->period != 30)
			snprintf(ga + n, sizeof(ga) - n, ", period %" PRIu64,
			    u->period);
		warnx("warning: Google Authenticator ignores %s (it uses "
		    "SHA1, 6 or 8 digits, 30 seconds)%s", ga + 2, where);
	}
	if (w & OTP_WARN_STEAM)
		warnx("warning: only apps that know Steam Guard read "
		    "otpauth://steam/ URIs%s", where);
	if (w & OTP_WARN_UNKNOWN) {
		int many = extra_names(u, names, sizeof(names)) > 1;

		warnx("warning: unknown parameter%s %s: kept, but apps may "
		    "ignore %s%s", many ? "s" : "", names, many ? "them" : "it",
		    where);
	}
	return w != 0;
}

/* Warnings a built URI carries: those of its canonical form. */
static unsigned
built_warn(const char *uri)
{
	struct otp_uri v;
	unsigned w;

	if (otp_uri_parse(uri, &v, NULL) != 0)
		return 0;
	w = v.warn;
	otp_wipe(&v, sizeof(v));
	return w;
}

/*
 * What a conversion writes goes through out_write(): to standard output
 * as it comes, or, when held.hold, kept until the end and written only if
 * nothing failed, to -o's file (mode 0600, atomically) or to standard
 * output.  The buffer is grown by hand and wiped: it holds the secrets.
 */
#define OUT_MAX		(32u << 20)

static struct {
	char	*buf;
	size_t	 len, cap;
	int	 hold;
	int	 checked;	/* standard output looked at */
} held;

static int
out_secret(void)
{
	/* An encrypted PSKC file is the one output without a secret in
	 * the clear. */
	return !(opt.to == FMT_PSKC && (opt.pskc_key != NULL ||
	    opt.pskc_password != NULL));
}

/* Once, before secrets go to standard output: a warning when it is a
 * regular file that other users may read. */
static void
out_check_stdout(void)
{
	struct stat st;

	if (held.checked || opt.mode != MODE_CONVERT)
		return;
	held.checked = 1;
	if (opt.quiet || !out_secret() || fstat(STDOUT_FILENO, &st) != 0 ||
	    !S_ISREG(st.st_mode) || (st.st_mode & (S_IRGRP | S_IROTH)) == 0)
		return;
	warnx("warning: standard output is a file that other users may "
	    "read (mode %04o) and the output holds secrets; -o FILE writes "
	    "a file of mode 0600", (unsigned)(st.st_mode & 07777));
}

/* n bytes of output; 0, or OTP_EIO when standard output failed. */
static int
out_write(const void *p, size_t n)
{
	char *b;
	size_t cap;

	if (!held.hold) {
		out_check_stdout();
		return fwrite(p, 1, n, stdout) == n ? 0 : OTP_EIO;
	}
	if (n > OUT_MAX - held.len)
		errx(CLI_EXIT_ERR, "the output would be larger than %u MiB; "
		    "nothing written", OUT_MAX >> 20);
	if (n > held.cap - held.len) {
		cap = held.cap == 0 ? 4096 : held.cap;
		while (cap - held.len < n)
			cap *= 2;
		if (cap > OUT_MAX)
			cap = OUT_MAX;
		if ((b = calloc(1, cap)) == NULL)
			err(CLI_EXIT_ERR, NULL);
		cli_lock(b, cap);
		if (held.len > 0)
			memcpy(b, held.buf, held.len);
		if (held.buf != NULL) {
			otp_wipe(held.buf, held.cap);
			free(held.buf);
		}
		held.buf = b;
		held.cap = cap;
	}
	memcpy(held.buf + held.len, p, n);
	held.len += n;
	return 0;
}

static int
out_line(const char *s)
{
	int rc = out_write(s, strlen(s));

	return rc != 0 ? rc : out_write("\n", 1);
}

/* -o FILE, looked at before anything is read or asked: an existing
 * regular file (or symlink) is replaced with -f only, anything else
 * never. */
static void
out_target(const char *path)
{
	struct stat st;

	if (lstat(path, &st) != 0) {
		if (errno != ENOENT)
			err(CLI_EXIT_ERR, "--output: %s", path);
		return;
	}
	if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
		errx(CLI_EXIT_ERR, "--output: %s: not a regular file, and "
		    "never replaced", path);
	if (!opt.force)
		errx(CLI_EXIT_ERR, "--output: %s: %s (use -f to replace it)",
		    path, otp_strerror(OTP_ESTATEEXIST));
}

/* The end of a held output: written whole unless status says an error
 * stopped the conversion; wiped either way. */
static void
out_finish(int status)
{
	int rc;

	if (!held.hold)
		return;
	if (status >= CLI_EXIT_ERR) {
		if (opt.output != NULL)
			warnx("--output: %s: no export written", opt.output);
	} else if (opt.output == NULL) {
		held.hold = 0;
		if (held.len > 0 && out_write(held.buf, held.len) != 0)
			err(CLI_EXIT_ERR, "standard output");
	} else if ((rc = sys_create(opt.output, held.buf, held.len, 0600,
	    opt.force, OTP_EINVAL)) != 0) {
		otp_wipe(held.buf, held.cap);
		if (rc == OTP_ESTATEEXIST)
			errx(CLI_EXIT_ERR, "--output: %s: %s (use -f to replace "
			    "it)", opt.output, otp_strerror(rc));
		if (rc == OTP_EINVAL)
			errx(CLI_EXIT_ERR, "--output: %s: not a regular file, "
			    "and never replaced", opt.output);
		err(CLI_EXIT_ERR, "--output: %s", opt.output);
	}
	if (held.buf != NULL)
		otp_wipe(held.buf, held.cap);
	free(held.buf);
	held.buf = NULL;
	held.len = held.cap = 0;
}

static void
draw_qr(const char *text)
{
	size_t need;
	char *buf;
	int rc;

	if ((rc = otp_qr_encode(text, &qr)) != 0)
		errx(CLI_EXIT_ERR, "QR code: %s", rc == OTP_ETOOLONG ?
		    "text too long for a QR code" : otp_strerror(rc));
	need = otp_qr_render_size(&qr, opt.qrstyle);
	if ((buf = malloc(need)) == NULL)
		err(CLI_EXIT_ERR, "QR code");
	if ((rc = otp_qr_render(&qr, opt.qrstyle, buf, need)) < 0)
		errx(CLI_EXIT_ERR, "QR code: %s", otp_strerror(rc));
	(void)out_write(buf, (size_t)rc);
	/* The drawing spells the secret. */
	otp_wipe(buf, need);
	otp_wipe(&qr, sizeof(qr));
	free(buf);
}

/* Print s as a JSON string (RFC 8259 §7). */
static void
json_string(const char *s)
{
	putchar('"');
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

/* The text of one field of u into buf: 0, 1 for a field that u's type
 * does not have (nothing is invented), -1 for a field not known. */
static int
field_value(const struct otp_uri *u, const char *name, char *buf,
    size_t bufsz)
{
	int rc;

	buf[0] = '\0';
	if (strcmp(name, "type") == 0)
		snprintf(buf, bufsz, "%s", u->steam ? "steam" :
		    u->type == OTP_TYPE_TOTP ? "totp" : "hotp");
	else if (strcmp(name, "issuer") == 0)
		snprintf(buf, bufsz, "%s", u->issuer);
	else if (strcmp(name, "account") == 0)
		snprintf(buf, bufsz, "%s", u->account);
	else if (strcmp(name, "secret") == 0) {
		if ((rc = otp_b32_encode(u->key.buf, u->key.len, buf, bufsz,
		    OTP_B32_NOPAD)) < 0)
			errx(CLI_EXIT_ERR, "secret: %s", otp_strerror(rc));
	} else if (strcmp(name, "algorithm") == 0)
		snprintf(buf, bufsz, "%s", otp_alg_name(u->alg));
	else if (strcmp(name, "digits") == 0) {
		/* Steam's codes are 5 characters, not digits. */
		if (u->steam)
			return 1;
		snprintf(buf, bufsz, "%u", u->digits);
	} else if (strcmp(name, "period") == 0) {
		if (u->type != OTP_TYPE_TOTP)
			return 1;
		snprintf(buf, bufsz, "%" PRIu64, u->period);
	} else if (strcmp(name, "counter") == 0) {
		if (u->type != OTP_TYPE_HOTP)
			return 1;
		snprintf(buf, bufsz, "%" PRIu64, u->counter);
	} else
		return -1;
	return 0;
}

/* The unknown parameters, decoded: "extra:NAME=VALUE" lines, or a JSON
 * "extra" array of {"name","value"} objects. */
static void
print_extra(const struct otp_uri *u)
{
	char name[OTP_LINE_MAX], value[OTP_LINE_MAX];
	size_t pos = 0;
	int n = 0;

	while (otp_uri_extra_next(u, &pos, name, sizeof(name), value,
	    sizeof(value)) == 1) {
		if (!opt.json) {
			printf("extra:%s=%s\n", name, value);
			continue;
		}
		fputs(n++ == 0 ? ",\"extra\":[{\"name\":" : ",{\"name\":",
		    stdout);
		json_string(name);
		fputs(",\"value\":", stdout);
		json_string(value);
		putchar('}');
	}
	if (opt.json && n > 0)
		putchar(']');
	otp_wipe(value, sizeof(value));
}

static void
print_fields(const struct otp_uri *u, int first)
{
	char buf[OTP_LINE_MAX];
	const char *sep = "";
	size_t i;

	if (opt.json)
		putchar('{');
	else if (!first)
		putchar('\n');
	for (i = 0; i < NFIELDS; i++) {
		int num = strcmp(fields[i], "digits") == 0 ||
		    strcmp(fields[i], "period") == 0 ||
		    strcmp(fields[i], "counter") == 0;

		/* A key has a period or a counter, not both. */
		if (field_value(u, fields[i], buf, sizeof(buf)) != 0)
			continue;
		if (opt.json) {
			printf("%s\"%s\":", sep, fields[i]);
			if (num)
				fputs(buf, stdout);
			else
				json_string(buf);
			sep = ",";
		} else
			printf("%s=%s\n", fields[i], buf);
	}
	print_extra(u);
	if (opt.json)
		puts("}");
	otp_wipe(buf, sizeof(buf));
}

/* text[off..off+n) for a message, quoted if quote: at most 40 bytes, and
 * "" unless it is printable ASCII (a name or value may be anything). */
static const char *
span(const char *text, size_t off, size_t n, int quote, char *buf,
    size_t bufsz)
{
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < n; i++)
		if (text[off + i] <= 0x20 || text[off + i] >= 0x7f)
			return buf;
	snprintf(buf, bufsz, "%s%.*s%s%s", quote ? "'" : "",
	    (int)(n > 40 ? 40 : n), text + off, n > 40 ? "..." : "",
	    quote ? "'" : "");
	return buf;
}

/*
 * Describe a URI parse failure, naming the parameter or part at fault and
 * what is wrong with it.  Nothing of the secret is shown, only offsets.
 */
static void
uri_error(int rc, const char *text, size_t off, const char *where)
{
	struct otp_uri_part p;
	char name[64], value[64], at[64];
	unsigned char c = off < strlen(text) ? (unsigned char)text[off] : 0;

	if (rc == OTP_EURI || rc == OTP_ENOSECRET || rc == OTP_ETOOLONG) {
		warnx("%s%s", otp_strerror(rc), where);
		return;
	}
	otp_uri_part(text, off, &p);
	if (c > 0x20 && c < 0x7f && !p.secret)
		snprintf(at, sizeof(at), ": '%c' at offset %zu", c, off);
	else if (c != 0 && !p.secret)
		snprintf(at, sizeof(at), ": byte 0x%02x at offset %zu", c, off);
	else
		snprintf(at, sizeof(at), " at offset %zu", off);
	if (p.kind == OTP_URI_PART_TYPE) {
		span(text, p.off, p.len, 1, value, sizeof(value));
		warnx("%s, not %s%s", otp_strerror(rc), value[0] != '\0' ?
		    value : p.len == 0 ? "empty" : "that", where);
		return;
	}
	if (p.kind == OTP_URI_PART_LABEL) {
		warnx("%s in the label%s%s", otp_strerror(rc), at, where);
		return;
	}
	if (p.kind != OTP_URI_PART_PARAM) {
		warnx("%s%s%s", otp_strerror(rc), at, where);
		return;
	}
	/* The parameter's name as spelled, if it can be shown. */
	if (span(text, p.off, p.len, 0, name, sizeof(name))[0] == '\0')
		snprintf(name, sizeof(name), "a parameter");
	switch (rc) {
	case OTP_EURIDUP:
		warnx("duplicate parameter %s= at offset %zu (each may appear "
		    "once)%s", name, p.off, where);
		break;
	case OTP_EURIPARAM:
		warnx("parameter %s has no '=' and no value at offset %zu%s",
		    name, p.off, where);
		break;
	case OTP_EALG:
	case OTP_EDIGITS:
	case OTP_ESTEP:
	case OTP_ECOUNTER:
	case OTP_EURISTEAM:
		/* Not secret: the value itself says what is wrong. */
		span(text, p.voff, p.vlen, 1, value, sizeof(value));
		warnx("%s: %s in %s= at offset %zu%s", otp_strerror(rc),
		    value[0] != '\0' ? value : p.vlen == 0 ? "empty value" :
		    "the value", name, p.voff, where);
		break;
	default:
		warnx("%s in %s=%s%s", otp_strerror(rc), name, at, where);
		break;
	}
}

static void
set_status(int s)
{
	if (s > opt.status)
		opt.status = s;
}

/* --parse, --get, --check of one URI text. */
static void
one_uri(const char *text, const char *where, int *first)
{
	struct otp_uri u;
	char buf[OTP_LINE_MAX];
	size_t off = 0;
	int rc, warned;

	if ((rc = otp_uri_parse(text, &u, &off)) != 0) {
		uri_error(rc, text, off, where);
		set_status(CLI_EXIT_ERR);
		return;
	}
	warned = warnings(&u, where, opt.mode == MODE_CHECK ? WARN_ALL :
	    WARN_READ);
	switch (opt.mode) {
	case MODE_PARSE:
		print_fields(&u, *first);
		break;
	case MODE_GET:
		/* A field the type has not is not made up: a clean "no". */
		if (field_value(&u, opt.get, buf, sizeof(buf)) == 0)
			puts(buf);
		else
			set_status(1);
		otp_wipe(buf, sizeof(buf));
		break;
	case MODE_CHECK:
		set_status(warned ? 1 : 0);
		break;
	default:
		break;
	}
	*first = 0;
	otp_wipe(&u, sizeof(u));
}

/*
 * Conversions.  Every format is read into otpauth accounts (struct
 * otp_uri) and every account is written out by the --to format: a
 * reader calls put_account() per account, a writer takes them one at a
 * time (out) and, when it must see them all first, writes at the end
 * (end).  A new format is one more row in formats[] below.
 */

/* The accounts a writer that needs them all keeps: an export is all or
 * nothing. */
static struct otp_uri *to_list;
static size_t to_count, to_alloc, to_max;

/* Keys for PSKC, read once. */
static struct {
	uint8_t	key[OTP_PSKC_AESKEY_MAX];
	size_t	keylen;
	char	password[OTP_LINE_MAX];
	size_t	passwordlen;
} pskc_secret;

static void put_account(const struct otp_uri *u, const char *where);

/* One account of an export payload. */
static int
from_account(void *arg, size_t index, const struct otp_uri *u)
{
	const char *where = arg;
	char at[96];

	snprintf(at, sizeof(at), " (account %zu)%s", index + 1, where);
	put_account(u, at);
	return 0;
}

static void
in_migration(const char *text, size_t len, const char *where)
{
	struct otp_migration_batch batch;
	struct otp_migration_err e;
	int rc;

	memset(&e, 0, sizeof(e));
	rc = otp_migration_decode(text, len, &batch, from_account,
	    (void *)where, &e);
	if (rc == 0)
		return;
	set_status(CLI_EXIT_ERR);
	if (e.account >= 0)
		warnx("%s in account %ld%s (payload byte %zu)",
		    otp_strerror(rc), e.account + 1, where, e.offset);
	else if (e.in_payload)
		warnx("%s at payload byte %zu%s", otp_strerror(rc), e.offset,
		    where);
	else
		/* data= is the secrets: its offset, never a character. */
		warnx("%s at offset %zu%s", otp_strerror(rc), e.offset, where);
}

static void
in_uri(const char *text, size_t len, const char *where)
{
	struct otp_uri u;
	char nowrite[96];
	size_t off = 0;
	int rc;

	(void)len;
	/* One line per refused URI: an export is all or nothing. */
	snprintf(nowrite, sizeof(nowrite), "%s; no export written", where);
	if ((rc = otp_uri_parse(text, &u, &off)) != 0) {
		uri_error(rc, text, off, opt.to == FMT_URI ? where : nowrite);
		set_status(CLI_EXIT_ERR);
		return;
	}
	put_account(&u, where);
	otp_wipe(&u, sizeof(u));
}

/* s without surrounding XML white space into buf, if it is printable
 * ASCII (cut at 40 bytes); else NULL. */
static const char *
shown(const char *s, char *buf, size_t bufsz)
{
	size_t i, n;

	if (s == NULL)
		return NULL;
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	for (n = 0; s[n] > 0x20 && s[n] < 0x7f; n++)
		;
	for (i = n; s[i] == ' ' || s[i] == '\t' || s[i] == '\n' ||
	    s[i] == '\r'; i++)
		;
	if (n == 0 || s[i] != '\0')
		return NULL;
	snprintf(buf, bufsz, "%.40s%s", s, n > 40 ? "..." : "");
	return buf;
}

/* A PSKC Key for a message: its Id when printable ASCII, else its
 * position; with serial, its DeviceInfo/SerialNo too. */
static const char *
key_name(const struct otp_pskc_keytext *k, size_t index, int serial,
    char *buf, size_t bufsz)
{
	char id[48], sn[48];
	size_t n;

	if (shown(k->id, id, sizeof(id)) != NULL)
		n = (size_t)snprintf(buf, bufsz, "key '%s'", id);
	else
		n = (size_t)snprintf(buf, bufsz, "key %zu", index + 1);
	if (serial && n < bufsz && shown(k->serial, sn, sizeof(sn)) != NULL)
		snprintf(buf + n, bufsz - n, " (serial '%s')", sn);
	return buf;
}

/* A user or account name for a message, quoted: as it is when it is
 * printable UTF-8 (cut at 60 bytes), else percent-encoded. */
#define NAME_TEXT_MAX	256
static const char *
name_text(const char *s, char *buf, size_t bufsz)
{
	char enc[3 * 60 + 1];
	size_t n = strlen(s), bad;

	if (otp_text_check(s, n, &bad) == 0) {
		size_t k = n > 60 ? 60 : n;

		/* Not inside a UTF-8 sequence. */
		while (k < n && k > 0 && ((unsigned char)s[k] & 0xc0) == 0x80)
			k--;
		snprintf(buf, bufsz, "'%.*s%s'", (int)k, s, k < n ? "..." :
		    "");
	} else {
		(void)otp_pct_encode(s, n > 60 ? 60 : n, enc, sizeof(enc));
		snprintf(buf, bufsz, "'%s%s' (percent-encoded)", enc,
		    n > 60 ? "..." : "");
	}
	return buf;
}

/*
 * --map=FILE: which login each PSKC key is for, one "SERIAL-OR-KEYID
 * LOGIN" a line, the name matched against the key's DeviceInfo/SerialNo
 * and its Id (as the file spells them, without surrounding white space).
 * Blank lines and lines starting with '#' are passed over.
 */
#define MAP_MAX		100000	/* lines a map may hold */

struct map_entry {
	char		*name, *login;
	unsigned long	 line;
	int		 used;
};

static struct {
	struct map_entry	*e;
	size_t			 n, cap;
} map;

static int
is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Entries in order of name, then of line: bsearch finds a name, and a
 * name given twice sits beside its first line. */
static int
map_cmp(const void *a, const void *b)
{
	const struct map_entry *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c != 0 ? c : x->line < y->line ? -1 : x->line > y->line;
}

struct map_key {
	const char	*s;
	size_t		 n;
};

static int
map_key_cmp(const void *a, const void *b)
{
	const struct map_key *k = a;
	const struct map_entry *e = b;
	size_t n = strlen(e->name);
	int c = memcmp(k->s, e->name, k->n < n ? k->n : n);

	return c != 0 ? c : k->n < n ? -1 : k->n > n;
}

/* The entry whose name is s (XML white space around s ignored). */
static struct map_entry *
map_find(const char *s)
{
	struct map_key k;

	if (s == NULL || map.n == 0)
		return NULL;
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	k.s = s;
	k.n = strlen(s);
	while (k.n > 0 && (s[k.n - 1] == ' ' || s[k.n - 1] == '\t' ||
	    s[k.n - 1] == '\n' || s[k.n - 1] == '\r'))
		k.n--;
	if (k.n == 0 || map.n == 0)
		return NULL;
	return bsearch(&k, map.e, map.n, sizeof(*map.e), map_key_cmp);
}

static void
map_load(const char *path)
{
	static struct sys_lines lines;
	char line[OTP_LINE_MAX], *f[3], *p, name[NAME_TEXT_MAX];
	struct map_entry *e;
	unsigned long lineno = 0;
	size_t nf, bad, i;
	int fd, rc;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) == -1)
		err(CLI_EXIT_ERR, "--map: %s", path);
	sys_lines_init(&lines, fd);
	while ((rc = sys_lines_next(&lines, line, sizeof(line))) !=
	    OTP_EEMPTY) {
		lineno++;
		if (rc == OTP_EIO)
			err(CLI_EXIT_ERR, "--map: %s", path);
		if (rc == OTP_ETOOLONG)
			errx(CLI_EXIT_ERR, "--map: %s:%lu: longer than %zu "
			    "bytes", path, lineno, sizeof(line) - 1);
		if (rc != 0)
			errx(CLI_EXIT_ERR, "--map: %s:%lu: %s", path, lineno,
			    otp_strerror(rc));
		for (nf = 0, p = line; nf < 3; nf++) {
			while (is_blank(*p))
				p++;
			if (*p == '\0' || (nf == 0 && *p == '#'))
				break;
			f[nf] = p;
			while (*p != '\0' && !is_blank(*p))
				p++;
			if (*p != '\0')
				*p++ = '\0';
		}
		if (nf == 0)
			continue;
		if (nf != 2)
			errx(CLI_EXIT_ERR, "--map: %s:%lu: not a line \"SERIAL-"
			    "OR-KEYID LOGIN\"", path, lineno);
		if (otp_text_check(f[1], strlen(f[1]), &bad) != 0 ||
		    strlen(f[1]) >= OTP_LABEL_MAX)
			errx(CLI_EXIT_ERR, "--map: %s:%lu: the login %s is not "
			    "UTF-8 text of %d bytes at most without control "
			    "characters", path, lineno, name_text(f[1], name,
			    sizeof(name)), OTP_LABEL_MAX - 1);
		if (map.n == MAP_MAX)
			errx(CLI_EXIT_ERR, "--map: %s: more than %d lines",
			    path, MAP_MAX);
		if (map.n == map.cap) {
			map.cap = map.cap == 0 ? 64 : map.cap * 2;
			if ((e = reallocarray(map.e, map.cap,
			    sizeof(*e))) == NULL)
				err(CLI_EXIT_ERR, NULL);
			map.e = e;
		}
		e = &map.e[map.n++];
		if ((e->name = strdup(f[0])) == NULL ||
		    (e->login = strdup(f[1])) == NULL)
			err(CLI_EXIT_ERR, NULL);
		e->line = lineno;
		e->used = 0;
	}
	close(fd);
	if (map.n == 0)
		return;
	qsort(map.e, map.n, sizeof(*map.e), map_cmp);
	for (i = 1; i < map.n; i++)
		if (strcmp(map.e[i - 1].name, map.e[i].name) == 0)
			errx(CLI_EXIT_ERR, "--map: %s:%lu: %s is mapped on line "
			    "%lu already", path, map.e[i].line,
			    name_text(map.e[i].name, name, sizeof(name)),
			    map.e[i - 1].line);
}

static int
map_line_cmp(const void *a, const void *b)
{
	const struct map_entry *x = a, *y = b;

	return x->line < y->line ? -1 : x->line > y->line;
}

/* At the end: the lines that named no key, likely a typing mistake. */
static void
map_unused(void)
{
	char name[NAME_TEXT_MAX];
	size_t i;

	if (map.n > 1)	/* no map at all: map.e is NULL, which qsort must not see */
		qsort(map.e, map.n, sizeof(*map.e), map_line_cmp);
	for (i = 0; i < map.n; i++) {
		if (!map.e[i].used && !opt.quiet)
			warnx("warning: --map: %s:%lu: no key has the serial or "
			    "Id %s", opt.map, map.e[i].line,
			    name_text(map.e[i].name, name, sizeof(name)));
		free(map.e[i].name);
		free(map.e[i].login);
	}
	free(map.e);
	map.e = NULL;
	map.n = map.cap = 0;
}

struct pskc_in {
	const char		*where;
	int			 emit;		/* second pass: put accounts */
	int			 unlocked;
	size_t			 index;
	struct otp_pskc_crypt	 c;
};

/* The container's key: the pre-shared key, or one derived from the
 * password with the file's PBKDF2 parameters. */
static int
pskc_unlock(struct pskc_in *in, const struct otp_pskc_doc *d)
{
	int rc;

	if (d->kdf != NULL) {
		if (opt.pskc_password == NULL) {
			warnx("%s: the container is encrypted with a password: "
			    "give --pskc-password", in->where);
			return OTP_EPSKCNOKEY;
		}
		rc = otp_pskc_derive(d, pskc_secret.password,
		    pskc_secret.passwordlen, OTP_PSKC_ITER_MAX, &in->c);
	} else {
		if (opt.pskc_key == NULL) {
			warnx("%s: the container is encrypted with a pre-shared "
			    "key%s%.40s%s: give --pskc-key", in->where,
			    d->keyname != NULL ? " named '" : "",
			    d->keyname != NULL ? d->keyname : "",
			    d->keyname != NULL ? "'" : "");
			return OTP_EPSKCNOKEY;
		}
		memcpy(in->c.key, pskc_secret.key, pskc_secret.keylen);
		in->c.keylen = pskc_secret.keylen;
		rc = 0;
	}
	if (rc == 0)
		rc = otp_pskc_unlock(d, &in->c);
	if (rc != 0)
		warnx("%s: %s", in->where, otp_strerror(rc));
	return rc;
}

static int
pskc_key(void *arg, const struct otp_pskc_doc *d,
    const struct otp_pskc_keytext *k)
{
	struct pskc_in *in = arg;
	struct otp_pskc_keytext named;
	struct map_entry *es, *ei;
	struct otp_uri u;
	const char *login = opt.account;
	char name[64], full[128];
	int rc;

	key_name(k, in->index, 0, name, sizeof(name));
	key_name(k, in->index++, 1, full, sizeof(full));
	if (d->encrypted && !in->unlocked) {
		if ((rc = pskc_unlock(in, d)) != 0)
			return rc;
		in->unlocked = 1;
	}
	/* A key or password given says the file is meant to be encrypted:
	 * a plain one may have been put in its place. */
	if (!d->encrypted && !opt.allow_plain && (opt.pskc_key != NULL ||
	    opt.pskc_password != NULL)) {
		warnx("%s: %s: %s; --allow-plain reads it", in->where, full,
		    otp_strerror(OTP_EPSKCUNENC));
		return OTP_EPSKCUNENC;
	}
	if (opt.map != NULL) {
		if ((es = map_find(k->serial)) != NULL)
			es->used = 1;
		if ((ei = map_find(k->id)) != NULL)
			ei->used = 1;
		if (es != NULL && ei != NULL && es != ei &&
		    strcmp(es->login, ei->login) != 0) {
			if (!in->emit)
				warnx("%s: %s: its serial and its Id are mapped "
				    "to different logins (%s lines %lu and %lu)",
				    in->where, full, opt.map, es->line,
				    ei->line);
			set_status(CLI_EXIT_ERR);
			return 0;
		}
		login = es != NULL ? es->login : ei != NULL ? ei->login : NULL;
	}
	/* The login given is the account, whatever the file names. */
	named = *k;
	if (login != NULL)
		named.userid = login;
	rc = otp_pskc_key(in->unlocked ? &in->c : NULL, &named, &u);
	if (rc != 0 && otp_pskc_skip(rc)) {
		/* Said once, in the first pass. */
		if (!in->emit && !opt.quiet)
			warnx("%s: %s: %s; skipped", in->where, name,
			    otp_strerror(rc));
		set_status(1);
		return 0;
	}
	if (rc == OTP_EPSKCNOKEY)
		warnx("%s: %s is encrypted but the container names no key",
		    in->where, name);
	else if (rc == OTP_EPSKCPLAIN)
		warnx("%s: %s: %s", in->where, full, otp_strerror(rc));
	else if (rc != 0)
		warnx("%s: %s: %s", in->where, name, otp_strerror(rc));
	if (rc == 0 && opt.map != NULL && login == NULL) {
		/* A token no login is named for: all or nothing, unless
		 * skipping was asked for.  Said once, in the first pass. */
		if (!in->emit && (!opt.skip_unmapped || !opt.quiet))
			warnx("%s: %s: neither its serial nor its Id is in %s%s",
			    in->where, full, opt.map, opt.skip_unmapped ?
			    "; skipped" : " (--skip-unmapped skips it); no export "
			    "written");
		set_status(opt.skip_unmapped ? 1 : CLI_EXIT_ERR);
		otp_wipe(&u, sizeof(u));
		return 0;
	}
	if (rc == 0 && in->emit) {
		char where[96];

		snprintf(where, sizeof(where), " (%s, %s)", in->where, name);
		put_account(&u, where);
	}
	otp_wipe(&u, sizeof(u));
	return rc;
}

/* A PSKC file: checked whole (every key decrypted and its MAC checked)
 * before any of its accounts is written. */
static void
in_pskc(const char *text, size_t len, const char *where)
{
	struct pskc_in in;
	size_t line = 0;
	int rc, pass;

	memset(&in, 0, sizeof(in));
	in.where = where;
	for (pass = 0; pass < 2; pass++) {
		in.emit = pass;
		in.index = 0;
		rc = sys_pskc_parse(text, len, pskc_key, &in, &line);
		if (rc == 0)
			continue;
		set_status(CLI_EXIT_ERR);
		/* pskc_key() has said what was wrong with a key. */
		if (rc == OTP_EPSKC && line > 0)
			warnx("%s: %s (XML error at line %zu)", where,
			    otp_strerror(rc), line);
		else if (rc == OTP_EPSKC || rc == OTP_EPSKCDTD ||
		    rc == OTP_ENUL || rc == OTP_ENOMEM)
			warnx("%s: %s", where, otp_strerror(rc));
		break;
	}
	otp_wipe(&in.c, sizeof(in.c));
}

/* Writers. */

static void
out_uri(const struct otp_uri *u, const char *where)
{
	char uri[OTP_LINE_MAX];
	int rc;

	if ((rc = otp_uri_build(u, uri, sizeof(uri))) != 0) {
		warnx("%s%s", otp_strerror(rc), where);
		set_status(CLI_EXIT_ERR);
		return;
	}
	if (opt.qr)
		draw_qr(uri);
	else
		(void)out_line(uri);
	otp_wipe(uri, sizeof(uri));
}

/* Keep u for a writer that writes at the end. */
static void
keep_account(const struct otp_uri *u, const char *where, const char *what)
{
	struct otp_uri *l;

	if (to_count == to_max)
		errx(CLI_EXIT_ERR, "more than %zu accounts%s", to_max, where);
	if (to_count == to_alloc) {
		size_t n = to_alloc == 0 ? 16 : to_alloc * 2;

		if (n > to_max)
			n = to_max;
		/* Grown by hand: realloc would leave the old copy's keys. */
		if ((l = calloc(n, sizeof(*l))) == NULL)
			err(CLI_EXIT_ERR, NULL);
		if (to_count > 0)
			memcpy(l, to_list, to_count * sizeof(*l));
		if (to_list != NULL) {
			otp_wipe(to_list, to_count * sizeof(*l));
			free(to_list);
		}
		to_list = l;
		to_alloc = n;
	}
	to_list[to_count++] = *u;
	/* What the format has no field for is left out, and said so. */
	if ((u->warn & OTP_WARN_UNKNOWN) && !opt.quiet) {
		char names[256];
		int many = extra_names(u, names, sizeof(names)) > 1;

		warnx("warning: %s cannot carry parameter%s %s; left out%s",
		    what, many ? "s" : "", names, where);
	}
}

static void
out_migration(const struct otp_uri *u, const char *where)
{
	int rc;

	if ((rc = otp_migration_check(u)) != 0) {
		warnx("%s%s; no export written", otp_strerror(rc), where);
		set_status(CLI_EXIT_ERR);
		return;
	}
	keep_account(u, where, "an export");
}

static void
end_migration(void)
{
	struct otp_migration_batch batch;
	uint32_t id;
	size_t i, n, erridx = 0;
	char *out;
	int rc;

	if (to_count == 0)
		return;
	if ((out = malloc(OTP_MIGRATION_URI_MAX)) == NULL)
		err(CLI_EXIT_ERR, NULL);
	if (sys_random_bytes(&id, sizeof(id)) != 0)
		err(CLI_EXIT_ERR, "random batch id");
	memset(&batch, 0, sizeof(batch));
	batch.version = 1;
	batch.batch_size = (int32_t)((to_count + OTP_MIGRATION_BATCH - 1) /
	    OTP_MIGRATION_BATCH);
	/* The app's batch ids are positive. */
	batch.batch_id = (int32_t)(id & 0x7fffffff);
	for (i = 0; i < to_count; i += n) {
		n = to_count - i < OTP_MIGRATION_BATCH ? to_count - i :
		    OTP_MIGRATION_BATCH;
		batch.batch_index = (int32_t)(i / OTP_MIGRATION_BATCH);
		rc = otp_migration_encode(to_list + i, n, &batch, out,
		    OTP_MIGRATION_URI_MAX, &erridx);
		if (rc < 0)
			errx(CLI_EXIT_ERR, "account %zu: %s", i + erridx + 1,
			    otp_strerror(rc));
		if (opt.qr)
			draw_qr(out);
		else
			(void)out_line(out);
		otp_wipe(out, OTP_MIGRATION_URI_MAX);
	}
	free(out);
}

static void
out_pskc(const struct otp_uri *u, const char *where)
{
	if (u->steam) {
		warnx("a PSKC key cannot carry a Steam account%s; no export "
		    "written", where);
		set_status(CLI_EXIT_ERR);
		return;
	}
	keep_account(u, where, "PSKC");
}

static int
emit_stdout(void *arg, const char *text, size_t n)
{
	(void)arg;
	return out_write(text, n);
}

static void
end_pskc(void)
{
	struct sys_pskc_out o;
	int rc;

	if (to_count == 0)
		return;
	memset(&o, 0, sizeof(o));
	if (opt.pskc_key != NULL) {
		o.key = pskc_secret.key;
		o.keylen = pskc_secret.keylen;
	} else if (opt.pskc_password != NULL) {
		o.password = pskc_secret.password;
		o.passwordlen = pskc_secret.passwordlen;
		o.iterations = OTP_PSKC_ITER_EXPORT;
	}
	if ((rc = sys_pskc_write(to_list, to_count, &o, emit_stdout, NULL)) !=
	    0) {
		if (rc == OTP_EIO)
			err(CLI_EXIT_ERR, "PSKC export");
		if (rc == OTP_EPSKCSIZE)
			errx(CLI_EXIT_ERR, "PSKC export: %zu accounts make a "
			    "file larger than 1 MiB, which a reader refuses; "
			    "export fewer at a time", to_count);
		errx(CLI_EXIT_ERR, "PSKC export: %s", otp_strerror(rc));
	}
}

/* --to=oath: the lines, written at the end (all or nothing); no more
 * than a users file holds. */
static struct {
	char	*buf;
	size_t	 len, cap;
} oath_out;

static void
oath_keep(const char *line, size_t n, const char *where)
{
	char *b;
	size_t cap;

	if (n > OTP_USERS_MAX - oath_out.len)
		errx(CLI_EXIT_ERR, "the lines would make a users file larger "
		    "than 16 MiB%s; no export written", where);
	if (n > oath_out.cap - oath_out.len) {
		cap = oath_out.cap == 0 ? 4096 : oath_out.cap * 2;
		while (cap - oath_out.len < n)
			cap *= 2;
		if (cap > OTP_USERS_MAX)
			cap = OTP_USERS_MAX;
		/* Grown by hand: realloc would leave the old copy's keys. */
		if ((b = malloc(cap)) == NULL)
			err(CLI_EXIT_ERR, NULL);
		cli_lock(b, cap);
		if (oath_out.len > 0)
			memcpy(b, oath_out.buf, oath_out.len);
		if (oath_out.buf != NULL) {
			otp_wipe(oath_out.buf, oath_out.cap);
			free(oath_out.buf);
		}
		oath_out.buf = b;
		oath_out.cap = cap;
	}
	memcpy(oath_out.buf + oath_out.len, line, n);
	oath_out.len += n;
}

/* Append an item to a ", "-separated list in buf. */
static void __attribute__((format(printf, 4, 5)))
list_add(char *buf, size_t bufsz, size_t *n, const char *fmt, ...)
{
	va_list ap;

	if (*n > 0 && *n < bufsz)
		*n += (size_t)snprintf(buf + *n, bufsz - *n, ", ");
	if (*n >= bufsz)
		return;
	va_start(ap, fmt);
	*n += (size_t)vsnprintf(buf + *n, bufsz - *n, fmt, ap);
	va_end(ap);
}

/* What a users-file line cannot carry of u (OTP_USERS_NO_* bits no), as
 * a list for a message. */
static void
oath_cannot(const struct otp_uri *u, unsigned no, char *buf, size_t bufsz)
{
	char name[NAME_TEXT_MAX];
	size_t n = 0, len = strlen(u->account);

	buf[0] = '\0';
	if (no & OTP_USERS_NO_STEAM)
		list_add(buf, bufsz, &n, "Steam Guard codes");
	if (no & OTP_USERS_NO_ALG)
		list_add(buf, bufsz, &n, "algorithm %s (SHA1 only)",
		    otp_alg_name(u->alg));
	if (no & OTP_USERS_NO_DIGITS)
		list_add(buf, bufsz, &n, "%u digits (6, 7 or 8 only)",
		    u->digits);
	if (no & OTP_USERS_NO_PERIOD)
		list_add(buf, bufsz, &n, "a period of %" PRIu64 " seconds (30 "
		    "or 60 only)", u->period);
	if (no & OTP_USERS_NO_ISSUER)
		list_add(buf, bufsz, &n, "the issuer %s (--drop-issuer leaves "
		    "issuers out)", name_text(u->issuer, name, sizeof(name)));
	if ((no & OTP_USERS_NO_USER) && len == 0)
		list_add(buf, bufsz, &n, "an account without a name (the user "
		    "name)");
	else if ((no & OTP_USERS_NO_USER) && len >= OTP_USERS_FIELD_MAX)
		list_add(buf, bufsz, &n, "an account name of %zu bytes as the "
		    "user name (%d at most)", len, OTP_USERS_FIELD_MAX - 1);
	else if (no & OTP_USERS_NO_USER)
		list_add(buf, bufsz, &n, "white space or a control character "
		    "in the user name");
}

static void
out_oath(const struct otp_uri *u, const char *where)
{
	struct otp_users_token t;
	char line[OTP_USERS_LINE_MAX], name[NAME_TEXT_MAX], why[1024];
	char names[256];
	unsigned no;
	int n;

	name_text(u->account, name, sizeof(name));
	no = otp_users_from_uri(u, OTP_USERS_NO_EXTRA |
	    (opt.drop_issuer ? OTP_USERS_NO_ISSUER : 0), &t);
	if (no != 0) {
		oath_cannot(u, no, why, sizeof(why));
		warnx("account %s%s: a users file cannot carry %s; no export "
		    "written", name, where, why);
		set_status(CLI_EXIT_ERR);
		return;
	}
	n = otp_users_line_format(&t, line, sizeof(line));
	otp_wipe(&t, sizeof(t));
	if (n < 0) {
		warnx("account %s%s: %s; no export written", name, where,
		    otp_strerror(n));
		set_status(CLI_EXIT_ERR);
		return;
	}
	oath_keep(line, (size_t)n, where);
	otp_wipe(line, sizeof(line));
	if (opt.quiet)
		return;
	/* What the format has no field for is left out, and said so. */
	if (u->warn & OTP_WARN_UNKNOWN) {
		int many = extra_names(u, names, sizeof(names)) > 1;

		warnx("warning: account %s%s: a users file cannot carry "
		    "parameter%s %s; left out", name, where, many ? "s" : "",
		    names);
	}
	if (u->key.len > OTP_USERS_PAM_OATH_KEY)
		warnx("warning: account %s%s: pam_oath reads keys of %d bytes "
		    "at most, this one has %zu (pam_otp.so and otp-verify "
		    "--usersfile read it)", name, where,
		    OTP_USERS_PAM_OATH_KEY, u->key.len);
}

static void
end_oath(void)
{
	if (oath_out.len > 0 && out_write(oath_out.buf, oath_out.len) != 0)
		err(CLI_EXIT_ERR, "standard output");
}

/* A token type for a message: only what looks like one (a line of
 * another kind may start with anything, even a key). */
static int
type_shown(const char *type)
{
	size_t i, n = strlen(type);
	int slash = 0, digit = 0;

	if (n == 0 || n > 16)
		return 0;
	for (i = 0; i < n; i++) {
		if (type[i] == '/')
			slash = 1;
		else if (type[i] >= '0' && type[i] <= '9')
			digit = 1;
		else if (!((type[i] >= 'A' && type[i] <= 'Z') ||
		    (type[i] >= 'a' && type[i] <= 'z') || type[i] == '-' ||
		    type[i] == '_'))
			return 0;
	}
	return slash || (!digit && n <= 8);
}

/* --from=oath: one line of a users file; where is "FILE:LINE". */
static void
in_oath(const char *text, size_t len, const char *where)
{
	struct otp_users_token t;
	struct otp_uri u;
	char type[24], user[OTP_USERS_FIELD_MAX], name[NAME_TEXT_MAX];
	char at[PATH_MAX + 64];
	size_t bad;
	int rc;

	if ((rc = otp_users_line_parse(text, len, &t)) < 0) {
		warnx("%s: %s", where, otp_strerror(rc));
		set_status(CLI_EXIT_ERR);
		return;
	}
	if (rc == 0) {
		/* A comment or blank line is passed over; a token of a type
		 * we do not know is said. */
		if (otp_users_line_other(text, len, type, sizeof(type), user,
		    sizeof(user)) == 1) {
			if (!opt.quiet)
				warnx("%s: user %s: unknown token type%s%s%s; "
				    "skipped", where, name_text(user, name,
				    sizeof(name)), type_shown(type) ? " '" : "",
				    type_shown(type) ? type : "",
				    type_shown(type) ? "'" : "");
			set_status(1);
		}
		return;
	}
	name_text(t.user, name, sizeof(name));
	if (t.kind == OTP_USERS_MOTP) {
		if (!opt.quiet)
			warnx("%s: user %s: a Mobile-OTP token has no otpauth:// "
			    "form; skipped", where, name);
		set_status(1);
		otp_wipe(&t, sizeof(t));
		return;
	}
	if (otp_text_check(t.user, strlen(t.user), &bad) != 0) {
		warnx("%s: user %s: an account name must be UTF-8 text without "
		    "control characters", where, name);
		set_status(CLI_EXIT_ERR);
		otp_wipe(&t, sizeof(t));
		return;
	}
	/* Never the PIN itself. */
	if (!opt.quiet && strcmp(t.password, "+") == 0)
		warnx("warning: %s: user %s: a URI cannot carry PASSWORD '+' "
		    "(checked by another module); left out", where, name);
	else if (!opt.quiet && strcmp(t.password, "-") != 0)
		warnx("warning: %s: user %s: a URI cannot carry the PIN; left "
		    "out", where, name);
	rc = otp_users_to_uri(&t, &u);
	otp_wipe(&t, sizeof(t));
	if (rc != 0) {
		warnx("%s: user %s: %s", where, name, otp_strerror(rc));
		set_status(CLI_EXIT_ERR);
		return;
	}
	snprintf(at, sizeof(at), " (%s)", where);
	put_account(&u, at);
	otp_wipe(&u, sizeof(u));
}

/* A users file, or standard input for NULL or "-", line by line. */
static void
oath_file(const char *path)
{
	static struct sys_lines lines;
	static char line[OTP_LINE_MAX];
	char name[PATH_MAX + 16], where[PATH_MAX + 48];
	unsigned long lineno = 0;
	int fd = -1, rc, in = path == NULL || strcmp(path, "-") == 0;

	snprintf(name, sizeof(name), "%s", in ? "standard input" : path);
	if (!in) {
		if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) == -1) {
			warn("%s", name);
			set_status(CLI_EXIT_ERR);
			return;
		}
		sys_lines_init(&lines, fd);
		cli_lock(&lines, sizeof(lines));
	}
	cli_lock(line, sizeof(line));
	for (;;) {
		rc = in ? cli_stdin_line(line, sizeof(line)) :
		    sys_lines_next(&lines, line, sizeof(line));
		if (rc == OTP_EEMPTY)
			break;
		lineno++;
		/* A line that cannot be read ends the file (an endless one,
		 * /dev/zero, must not hang us). */
		if (rc == OTP_EIO)
			warn("%s", name);
		else if (rc == OTP_ETOOLONG)
			warnx("%s:%lu: longer than %zu bytes", name, lineno,
			    sizeof(line) - 1);
		else if (rc != 0)
			warnx("%s:%lu: %s", name, lineno, otp_strerror(rc));
		if (rc != 0) {
			set_status(CLI_EXIT_ERR);
			break;
		}
		snprintf(where, sizeof(where), "%s:%lu", name, lineno);
		in_oath(line, strlen(line), where);
	}
	otp_wipe(line, sizeof(line));
	if (!in) {
		sys_lines_wipe(&lines);
		close(fd);
	}
}

static void pskc_file(const char *path);

static const struct format {
	const char	*name;
	int		 whole;	/* input is files, operands name them;
				 * output is not key URIs */
	void		(*file)(const char *path);	/* one such input */
	void		(*in)(const char *text, size_t len, const char *where);
	void		(*out)(const struct otp_uri *u, const char *where);
	void		(*end)(void);	/* NULL: out writes each account */
	size_t		 max;	/* accounts end takes */
} formats[] = {
	[FMT_URI] =	  { "uri", 0, NULL, in_uri, out_uri, NULL, 0 },
	[FMT_MIGRATION] = { "migration", 0, NULL, in_migration,
			    out_migration, end_migration,
			    100 * OTP_MIGRATION_BATCH },
	[FMT_PSKC] =	  { "pskc", 1, pskc_file, in_pskc, out_pskc, end_pskc,
			    10000 },
	/* Users-file lines: read line by line, written at the end. */
	[FMT_OATH] =	  { "oath", 1, oath_file, in_oath, out_oath, end_oath,
			    0 },
};
#define NFORMATS	(sizeof(formats) / sizeof(formats[0]))

static void
put_account(const struct otp_uri *u, const char *where)
{
	struct otp_uri v;

	if (opt.account == NULL) {
		formats[opt.to].out(u, where);
		return;
	}
	/* -A names one account: a second is an error, and nothing has
	 * been written (the output is held). */
	if (opt.named++ > 0)
		errx(CLI_EXIT_ERR, "-A/--account names one account, and the "
		    "input holds more%s; no export written (--map names "
		    "several PSKC keys)", where);
	v = *u;
	snprintf(v.account, sizeof(v.account), "%s", opt.account);
	formats[opt.to].out(&v, where);
	otp_wipe(&v, sizeof(v));
}

static enum fmt
format_parse(const char *opt_name, const char *arg)
{
	char names[128];
	size_t i, n = 0;

	if (arg == NULL)
		cli_usage_error("%s needs a format", opt_name);
	for (i = 0; i < NFORMATS; i++)
		if (strcmp(arg, formats[i].name) == 0)
			return (enum fmt)i;
	names[0] = '\0';
	for (i = 0; i < NFORMATS && n < sizeof(names); i++)
		n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s",
		    i == 0 ? "" : i + 1 == NFORMATS ? " or " : ", ",
		    formats[i].name);
	errx(CLI_EXIT_ERR, "%s: unknown format '%.40s' (%s)", opt_name, arg,
	    names);
}

/* A PSKC file, or standard input for NULL or "-", read whole. */
static void
pskc_file(const char *path)
{
	char *buf, name[PATH_MAX + 16];
	size_t len = 0;
	int rc;

	if ((buf = calloc(1, OTP_PSKC_MAX + 2)) == NULL)
		err(CLI_EXIT_ERR, NULL);
	cli_lock(buf, OTP_PSKC_MAX + 2);
	if (path == NULL || strcmp(path, "-") == 0)
		snprintf(name, sizeof(name), "standard input");
	else
		snprintf(name, sizeof(name), "%s", path);
	if ((rc = sys_pskc_read(path, buf, OTP_PSKC_MAX + 2, &len)) != 0) {
		if (rc == OTP_EIO)
			warn("%s", name);
		else
			warnx("%s: %s", name, otp_strerror(rc));
		set_status(CLI_EXIT_ERR);
	} else
		formats[opt.from].in(buf, len, name);
	otp_wipe(buf, OTP_PSKC_MAX + 2);
	free(buf);
}

/* The PSKC key and password, read before any input. */
static void
read_pskc_secrets(int stdin_input)
{
	char text[OTP_LINE_MAX];
	size_t n;
	int rc;

	if (opt.pskc_key != NULL && opt.pskc_password != NULL)
		cli_usage_error("--pskc-key and --pskc-password exclude each "
		    "other");
	if ((opt.pskc_key != NULL || opt.pskc_password != NULL) &&
	    opt.from != FMT_PSKC && opt.to != FMT_PSKC)
		cli_usage_error("--pskc-key and --pskc-password go with "
		    "--from=pskc or --to=pskc");
	if (stdin_input && ((opt.pskc_key != NULL &&
	    strcmp(opt.pskc_key, "-") == 0) || (opt.pskc_password != NULL &&
	    strcmp(opt.pskc_password, "-") == 0)))
		cli_usage_error("the input is standard input: give the key "
		    "or password as @FILE");
	if (opt.pskc_password != NULL) {
		/* A password on the command line is seen by other users. */
		if (opt.pskc_password[0] != '@' &&
		    strcmp(opt.pskc_password, "-") != 0)
			cli_usage_error("--pskc-password takes @FILE or - "
			    "(not the password itself)");
		cli_lock(&pskc_secret, sizeof(pskc_secret));
		if (cli_key_read(opt.pskc_password, pskc_secret.password,
		    sizeof(pskc_secret.password)) != 0)
			exit(CLI_EXIT_ERR);
		pskc_secret.passwordlen = strlen(pskc_secret.password);
		if (pskc_secret.passwordlen == 0)
			errx(CLI_EXIT_ERR, "--pskc-password: empty password");
		if (opt.to == FMT_PSKC && !opt.quiet &&
		    (pskc_secret.passwordlen < 6 ||
		    pskc_secret.passwordlen > 64))
			warnx("warning: LinOTP takes PSKC passwords of 6 to 64 "
			    "characters only");
	}
	if (opt.pskc_key != NULL) {
		cli_lock(&pskc_secret, sizeof(pskc_secret));
		cli_lock(text, sizeof(text));
		if (cli_key_read(opt.pskc_key, text, sizeof(text)) != 0)
			exit(CLI_EXIT_ERR);
		rc = otp_hex_decode(text, strlen(text), pskc_secret.key,
		    sizeof(pskc_secret.key), &n, NULL);
		otp_wipe(text, sizeof(text));
		if (rc == 0 && otp_pskc_aes_method(n) == NULL)
			rc = OTP_EPSKCKEYLEN;
		if (rc != 0) {
			otp_wipe(&pskc_secret, sizeof(pskc_secret));
			errx(CLI_EXIT_ERR, "--pskc-key: %s (16, 24 or 32 bytes "
			    "of AES key in hex)", rc == OTP_ENOSPACE ?
			    otp_strerror(OTP_EPSKCKEYLEN) : otp_strerror(rc));
		}
		pskc_secret.keylen = n;
	}
}

static void
dispatch(const char *text, const char *where, int *first)
{
	if (opt.mode == MODE_CONVERT)
		formats[opt.from].in(text, strlen(text), where);
	else
		one_uri(text, where, first);
}

/* The next line of standard input that is not blank, as cli_stdin_line;
 * *lineno counts every line.  A line that cannot be read exits 2. */
static int
next_line(char *line, size_t limit, unsigned long *lineno)
{
	int rc;

	while ((rc = cli_stdin_line(line, limit)) != OTP_EEMPTY) {
		++*lineno;
		if (rc == OTP_EIO)
			err(CLI_EXIT_ERR, "standard input");
		if (rc == OTP_ETOOLONG)
			errx(CLI_EXIT_ERR, "line %lu: longer than %zu bytes",
			    *lineno, limit - 1);
		if (rc != 0)
			errx(CLI_EXIT_ERR, "line %lu: %s", *lineno,
			    otp_strerror(rc));
		if (line[0] != '\0')
			return 0;
	}
	return OTP_EEMPTY;
}

/* A mode that takes one URI or key from standard input refuses a second
 * one rather than drop it (blank lines do not count). */
static void
one_line_only(const char *what, unsigned long lineno)
{
	static char more[OTP_LINE_MAX];

	if (next_line(more, sizeof(more), &lineno) != OTP_EEMPTY) {
		otp_wipe(more, sizeof(more));
		errx(CLI_EXIT_ERR, "standard input: more than one %s (line "
		    "%lu); %s", what, lineno, opt.mode == MODE_GET ?
		    "--get reads one URI" : "otp-uri builds one URI: use "
		    "--parse or --check for many");
	}
}

/* Each line of stdin is a URI; blank lines are skipped. */
static void
read_lines(void)
{
	static char line[OTP_MIGRATION_URI_MAX + 2];
	char where[64];
	unsigned long lineno = 0, at;
	size_t limit;
	int first = 1;

	limit = opt.mode == MODE_CONVERT && opt.from == FMT_MIGRATION ?
	    OTP_MIGRATION_URI_MAX : OTP_LINE_MAX;
	/* Not fgets: a NUL byte must fail the line, not cut it short (found
	 * by the bad-input matrix); and no stdio buffer keeps a secret. */
	while (next_line(line, limit, &lineno) == 0) {
		at = lineno;
		snprintf(where, sizeof(where), " (line %lu)", at);
		if (opt.mode == MODE_GET) {
			/* Nothing printed before the rest is known. */
			one_line_only("URI", lineno);
			where[0] = '\0';
		}
		dispatch(line, where, &first);
		if (opt.mode == MODE_GET)
			break;
	}
	otp_wipe(line, sizeof(line));
	if (first && opt.mode == MODE_GET && opt.status == 0)
		errx(CLI_EXIT_ERR, "standard input: no URI");
}

/* The key to build from, as cli_key_load reads it, but a URI's faults
 * worded as the other modes word them. */
static void
load_key(const struct cli_otp *o, const char *arg, struct otp_uri *u)
{
	static char line[OTP_LINE_MAX];
	size_t off = 0;
	int rc;

	cli_lock(line, sizeof(line));
	if (cli_key_read(arg, line, sizeof(line)) != 0)
		exit(CLI_EXIT_ERR);
	if (otp_ascii_caseeq(line, "otpauth://", 10) &&
	    (rc = otp_uri_parse(line, u, &off)) != 0) {
		uri_error(rc, line, off, "");
		otp_wipe(line, sizeof(line));
		exit(CLI_EXIT_ERR);
	}
	rc = cli_key_text(o, line, NULL, u);
	otp_wipe(line, sizeof(line));
	if (rc != 0)
		exit(CLI_EXIT_ERR);
}

static void
build(const struct cli_otp *o, const char *arg)
{
	struct otp_uri u;
	char uri[OTP_LINE_MAX];
	int rc;

	load_key(o, arg, &u);
	if ((arg == NULL || strcmp(arg, "-") == 0) && !isatty(STDIN_FILENO))
		one_line_only("key", 1);
	if (opt.issuer != NULL)
		snprintf(u.issuer, sizeof(u.issuer), "%s", opt.issuer);
	if (opt.account != NULL)
		snprintf(u.account, sizeof(u.account), "%s", opt.account);
	/* An option that does not apply is an error, not ignored. */
	if (o->have_counter && u.type != OTP_TYPE_HOTP)
		errx(CLI_EXIT_ERR, "--counter applies to HOTP only (add "
		    "--hotp)");
	if (o->have_step && u.type != OTP_TYPE_TOTP)
		errx(CLI_EXIT_ERR, "--period applies to TOTP only");
	if (u.steam && (o->have_type || o->have_alg || o->have_digits))
		errx(CLI_EXIT_ERR, "a steam URI has 5-character SHA1 codes: "
		    "--totp, --hotp, --algorithm and --digits do not apply");
	if ((rc = otp_uri_build(&u, uri, sizeof(uri))) != 0) {
		otp_wipe(&u, sizeof(u));
		if (rc == OTP_EURILABEL)
			errx(CLI_EXIT_ERR, "issuer or account: %s (a control "
			    "character, invalid UTF-8, or an account that "
			    "starts with a space and holds a ':')",
			    otp_strerror(rc));
		if (rc == OTP_ENOSPACE)
			errx(CLI_EXIT_ERR, "the URI would be longer than %d "
			    "bytes", OTP_LINE_MAX - 1);
		errx(CLI_EXIT_ERR, "%s", otp_strerror(rc));
	}
	/* The input URI's own warnings (padding, a differing issuer) and
	 * those of the result; a key chosen here is also judged by its
	 * length, one read from a URI is not. */
	u.warn = (u.is_uri ? u.warn & (OTP_WARN_PADDED |
	    OTP_WARN_ISSUERMISMATCH) : 0) | built_warn(uri);
	warnings(&u, "", u.is_uri ? WARN_READ : WARN_ALL);
	if (opt.qr)
		draw_qr(uri);
	else
		puts(uri);
	otp_wipe(uri, sizeof(uri));
	otp_wipe(&u, sizeof(u));
}

int
main(int argc, char *argv[])
{
	struct cli_otp o;
	char where[64];
	size_t i;
	int ch, first = 1;

	cli_init(argc, argv);
	cli_otp_init(&o);
	/* What apps use: TOTP, and keys as Base32. */
	o.type = OTP_TYPE_TOTP;
	o.enc = OTP_KEYENC_BASE32;
	while ((ch = cli_getopt(argc, argv, CLI_URI_SHORTOPTS "fho:qV",
	    longopts, NULL)) != -1) {
		switch (ch) {
		case 'A':
			/* Builds a URI, or names the one account converted. */
			opt.account = optarg;
			break;
		case 'i':
			opt.issuer = optarg;
			opt.have_build = 1;
			break;
		case 'p':
			o.step = cli_period(optarg);
			o.have_step = 1;
			opt.have_build = 1;
			break;
		case 'a':
		case 'b':
		case 'c':
		case 'd':
		case 'x':
		case CLI_OPT_HOTP:
		case CLI_OPT_TOTP:
		case CLI_OPT_STRICT:
			cli_otp_option(&o, ch, optarg);
			opt.have_build = 1;
			break;
		case 'q':
			opt.quiet = 1;
			break;
		case 'o':
			opt.output = optarg;
			break;
		case 'f':
			opt.force = 1;
			break;
		case 'h':
			usage();
		case 'V':
			cli_version();
		case OPT_PARSE:
			set_mode(MODE_PARSE);
			break;
		case OPT_JSON:
			opt.json = 1;
			break;
		case OPT_GET:
			set_mode(MODE_GET);
			opt.get = optarg;
			break;
		case OPT_CHECK:
			set_mode(MODE_CHECK);
			break;
		case OPT_QR:
			opt.qr = 1;
			opt.qrstyle = OTP_QR_UTF8;
			if (optarg != NULL &&
			    otp_qr_style_parse(optarg, &opt.qrstyle) != 0)
				errx(CLI_EXIT_ERR, "--qr: unknown style '%s' "
				    "(utf8, utf8-inverted, ansi or ascii)",
				    optarg);
			break;
		case OPT_FROM_MIGRATION:
			set_mode(MODE_CONVERT);
			opt.from = FMT_MIGRATION;
			break;
		case OPT_TO_MIGRATION:
			set_mode(MODE_CONVERT);
			opt.to = FMT_MIGRATION;
			break;
		case OPT_FROM:
			set_mode(MODE_CONVERT);
			opt.from = format_parse("--from", optarg);
			break;
		case OPT_TO:
			set_mode(MODE_CONVERT);
			opt.to = format_parse("--to", optarg);
			break;
		case OPT_PSKC_KEY:
			opt.pskc_key = optarg;
			break;
		case OPT_PSKC_PASSWORD:
			opt.pskc_password = optarg;
			break;
		case OPT_DROP_ISSUER:
			opt.drop_issuer = 1;
			break;
		case OPT_ALLOW_PLAIN:
			opt.allow_plain = 1;
			break;
		case OPT_MAP:
			opt.map = optarg;
			break;
		case OPT_SKIP_UNMAPPED:
			opt.skip_unmapped = 1;
			break;
		}
	}
	argc -= optind;
	argv += optind;

	if (opt.json && opt.mode != MODE_PARSE)
		cli_usage_error("--json goes with --parse");
	if (opt.mode != MODE_BUILD && opt.have_build)
		cli_usage_error("key options (-a, -b, -c, -d, -i, -p, -x, "
		    "--totp, --hotp, --strict) build a URI; they do not go "
		    "with --parse, --get, --check or the conversions");
	if (opt.account != NULL && opt.mode != MODE_BUILD &&
	    opt.mode != MODE_CONVERT)
		cli_usage_error("-A/--account names the account built or "
		    "converted; it does not go with --parse, --get or --check");
	if (opt.map != NULL && (opt.mode != MODE_CONVERT ||
	    opt.from != FMT_PSKC))
		cli_usage_error("--map goes with --from=pskc");
	if (opt.map != NULL && opt.account != NULL)
		cli_usage_error("-A/--account names one account, --map many: "
		    "they exclude each other");
	if (opt.skip_unmapped && opt.map == NULL)
		cli_usage_error("--skip-unmapped goes with --map");
	if (opt.qr && (opt.mode == MODE_PARSE || opt.mode == MODE_GET ||
	    opt.mode == MODE_CHECK || (opt.mode == MODE_CONVERT &&
	    formats[opt.to].whole)))
		cli_usage_error("--qr draws a built URI or the converted URIs");
	if (opt.drop_issuer && (opt.mode != MODE_CONVERT ||
	    opt.to != FMT_OATH))
		cli_usage_error("--drop-issuer goes with --to=oath");
	if (opt.mode != MODE_CONVERT &&
	    (opt.pskc_key != NULL || opt.pskc_password != NULL))
		cli_usage_error("--pskc-key and --pskc-password go with "
		    "--from=pskc or --to=pskc");
	if (opt.allow_plain && (opt.mode != MODE_CONVERT ||
	    opt.from != FMT_PSKC || (opt.pskc_key == NULL &&
	    opt.pskc_password == NULL)))
		cli_usage_error("--allow-plain goes with --from=pskc and "
		    "--pskc-key or --pskc-password");
	if (opt.output != NULL && opt.mode != MODE_CONVERT)
		cli_usage_error("-o/--output goes with the conversions (--from, "
		    "--to)");
	if (opt.force && opt.output == NULL)
		cli_usage_error("-f/--force goes with -o/--output");
	if (opt.output != NULL && strcmp(opt.output, "-") == 0)
		opt.output = NULL;
	else if (opt.output != NULL) {
		out_target(opt.output);
		held.hold = 1;
	}
	if (opt.mode == MODE_GET) {
		char scratch[8];
		struct otp_uri z;

		otp_uri_init(&z);
		if (field_value(&z, opt.get, scratch, sizeof(scratch)) < 0)
			errx(CLI_EXIT_ERR, "--get: unknown field '%s' (type, "
			    "issuer, account, secret, algorithm, digits, "
			    "period, counter)", opt.get);
		if (argc > 1)
			cli_usage_error("--get takes one URI");
	}
	if (opt.mode == MODE_CONVERT) {
		int stdin_input = argc == 0;

		/* "-" as the key and as the input cannot both be read. */
		for (i = 0; formats[opt.from].whole && i < (size_t)argc; i++)
			if (strcmp(argv[i], "-") == 0)
				stdin_input = 1;
		/* An account refused or one too many stops it all: nothing
		 * is written before the end. */
		if (opt.map != NULL || opt.account != NULL)
			held.hold = 1;
		if (opt.map != NULL)
			map_load(opt.map);
		read_pskc_secrets(stdin_input);
		to_max = formats[opt.to].max;
	}

	if (opt.mode == MODE_BUILD) {
		if (argc > 1)
			cli_usage_error("one KEY at most");
		build(&o, argc == 1 ? argv[0] : NULL);
		cli_exit(0);
	}
	if (opt.mode == MODE_CONVERT && formats[opt.from].whole) {
		if (argc == 0)
			formats[opt.from].file(NULL);
		for (i = 0; i < (size_t)argc; i++)
			formats[opt.from].file(argv[i]);
	} else {
		if (argc == 0)
			read_lines();
		for (i = 0; i < (size_t)argc; i++) {
			if (argc > 1)
				snprintf(where, sizeof(where), " (URI %zu)",
				    i + 1);
			else
				where[0] = '\0';
			dispatch(argv[i], where, &first);
		}
	}
	if (opt.mode == MODE_CONVERT && formats[opt.to].end != NULL) {
		/* All or nothing: a refused account or a broken input stops
		 * the export (each said so); a key skipped (status 1) does
		 * not. */
		if (opt.status < CLI_EXIT_ERR)
			formats[opt.to].end();
		otp_wipe(to_list, to_count * sizeof(*to_list));
		free(to_list);
		if (oath_out.buf != NULL)
			otp_wipe(oath_out.buf, oath_out.cap);
		free(oath_out.buf);
	}
	if (opt.mode == MODE_CONVERT) {
		map_unused();
		out_finish(opt.status);
	}
	otp_wipe(&pskc_secret, sizeof(pskc_secret));
	cli_exit(opt.status);
}

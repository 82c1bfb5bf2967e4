/*
 * otp-gen - generate HOTP and TOTP codes (and Steam Guard, Mobile-OTP).
 */
#include <err.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "otp_uri.h"

/* Codes computed per otp_hotp_values call, the output buffer, and the
 * longest line: label, tab, code, tab, seconds left, newline. */
#define GEN_BATCH	256
#define GEN_OUT_SIZE	32768
#define GEN_LINE_MAX	(2 * OTP_LABEL_MAX + 2 + OTP_CODE_MAX + 24)

static const struct option longopts[] = {
	CLI_STD_LONGOPTS,
	CLI_OTP_LONGOPTS,
	{ "label",	no_argument,		NULL, 'l' },
	{ "remaining",	no_argument,		NULL, 'r' },
	{ "verbose",	no_argument,		NULL, 'v' },
	{ NULL,		0,			NULL, 0 }
};

struct gen {
	struct cli_otp	 o;		/* --steam, --motp and --pin too */
	int		 verbose;
	int		 label;
	int		 remaining;
	int		 lone;		/* one key: every option must fit it */
	int		 totp, hotp;	/* keys of each type printed so far */
};

static void __attribute__((noreturn))
usage(void)
{
	printf("usage: otp-gen [-blrVvx] [--hotp | --totp[=ALG]] [-a ALG] "
	    "[-c COUNTER] [-d DIGITS]\n"
	    "               [-N TIME] [-S TIME] [-s STEP] [-w WINDOW] "
	    "[--steam]\n"
	    "               [--motp --pin=PIN] [--strict] [KEY ...]\n"
	    "\n"
	    "Print one-time passwords for each KEY (hex, or Base32 with -b, "
	    "or an\n"
	    "otpauth:// URI; \"-\" reads a line of stdin, @FILE a line of "
	    "FILE).\n"
	    "Without KEY, every line of standard input is a key (at a "
	    "terminal, one key\n"
	    "is asked for, without echo).\n"
	    "\n"
	    CLI_OTP_HELP_KEY
	    "  -c, --counter=N        HOTP counter (default 0)\n"
	    "  -d, --digits=N         code length, 6 to 10 (default 6)\n"
	    CLI_OTP_HELP_TIME
	    "  -w, --window=N         print N further codes after the first\n"
	    "  -r, --remaining        append a tab and the seconds the TOTP "
	    "code stays valid\n"
	    "  -l, --label            prefix each code with the URI's label "
	    "and a tab\n"
	    CLI_OTP_HELP_KIND
	    "  -v, --verbose          show the parameters, secrets included\n"
	    "  -h, --help             show this help\n"
	    "  -V, --version          show the version\n");
	cli_exit(0);
}

/* oathtool's verbose block, so that the two can be compared line by
 * line; the secret is shown because -v asks for it. */
static void
print_verbose(const struct gen *g, const struct otp_uri *u,
    uint64_t counter)
{
	char hex[2 * OTP_KEY_MAX + 1], b32[OTP_KEY_MAX * 8 / 5 + 9];
	char tstart[64], tnow[64];

	otp_hex_encode(u->key.buf, u->key.len, hex, sizeof(hex));
	otp_b32_encode(u->key.buf, u->key.len, b32, sizeof(b32), 0);
	printf("Hex secret: %s\nBase32 secret: %s\n", hex, b32);
	otp_wipe(hex, sizeof(hex));
	otp_wipe(b32, sizeof(b32));
	if (!cli_steam(&g->o, u) && !g->o.motp)
		printf("Digits: %u\n", u->digits);
	printf("Window size: %" PRIu64 "\n", g->o.window);
	if (u->type == OTP_TYPE_HOTP) {
		if (u->alg != OTP_ALG_SHA1)
			printf("HOTP mode: %s\n", otp_alg_name(u->alg));
		printf("Start counter: 0x%" PRIX64 " (%" PRIu64 ")\n\n",
		    counter, counter);
		return;
	}
	if (otp_time_format_utc(g->o.start, tstart, sizeof(tstart)) != 0)
		strcpy(tstart, "?");
	if (otp_time_format_utc(g->o.now, tnow, sizeof(tnow)) != 0)
		strcpy(tnow, "?");
	printf("TOTP mode: %s\n", g->o.motp ? "mOTP" : otp_alg_name(u->alg));
	printf("Step size (seconds): %" PRIu64 "\n", u->period);
	printf("Start time: %s (%" PRId64 ")\n", tstart, g->o.start);
	printf("Current time: %s (%" PRId64 ")\n", tnow, g->o.now);
	printf("Counter: 0x%" PRIX64 " (%" PRIu64 ")\n\n", counter, counter);
}

static const char *
label_of(const struct otp_uri *u, char *buf, size_t size)
{
	if (u->issuer[0] != '\0' && u->account[0] != '\0')
		snprintf(buf, size, "%s:%s", u->issuer, u->account);
	else
		snprintf(buf, size, "%s", u->account[0] != '\0' ?
		    u->account : u->issuer);
	return buf;
}

/* Check the options against the key's type.  A lone key must use every
 * option given, as in otp-verify; in a run of keys (a mixed file) each
 * key takes the options of its type, and main() checks at the end that
 * every option served some key.  0, or -1 after a warning. */
static int
check_combination(const struct gen *g, const struct otp_uri *u,
    const char *where)
{
	if (!g->lone)
		return 0;
	if (cli_otp_check(&g->o, u, where) != 0)
		return -1;
	if (g->remaining && u->type != OTP_TYPE_TOTP) {
		warnx("--remaining applies to TOTP only%s", where);
		return -1;
	}
	return 0;
}

/* After a run of keys: an option that no key could use was a mistake
 * (a file of HOTP keys with -N); 0, or -1 after a warning. */
static int
check_run(const struct gen *g)
{
	struct otp_uri u;
	int rc = 0;

	if (g->lone || g->totp + g->hotp == 0)
		return 0;
	otp_uri_init(&u);
	u.type = g->totp == 0 ? OTP_TYPE_HOTP : OTP_TYPE_TOTP;
	if (g->totp == 0 && (cli_otp_misfit(&g->o, &u) != 0 ||
	    g->remaining)) {
		warnx("%s used by no key: every key was HOTP (add --totp for "
		    "bare keys)", g->remaining ? "--remaining" :
		    "--now, --start-time or --time-step-size");
		rc = -1;
	}
	if (g->hotp == 0 && cli_otp_misfit(&g->o, &u) != 0) {
		warnx("--counter used by no key: every key was TOTP");
		rc = -1;
	}
	return rc;
}

/* Output lines, gathered into one buffer written when nearly full. */
struct lines {
	char	buf[GEN_OUT_SIZE];
	size_t	n;
	char	code[OTP_CODE_MAX];
	char	label[2 * OTP_LABEL_MAX + 2];
};

/* The lines of the nv codes at window positions i, i+1, ...: values[]
 * holds their truncated HMACs (unused for mOTP).  Returns -1 once
 * standard output has failed: the rest of a window is not worth
 * computing (cli_exit reports the error). */
static int
emit(const struct gen *g, const struct otp_uri *u, uint64_t counter,
    uint64_t left, uint64_t i, const uint32_t *values, uint64_t nv,
    struct lines *l)
{
	uint64_t j;

	for (j = 0; j < nv; j++) {
		if (sizeof(l->buf) - l->n < GEN_LINE_MAX) {
			fwrite_unlocked(l->buf, 1, l->n, stdout);
			l->n = 0;
			if (ferror(stdout))
				return -1;
		}
		if (g->label) {
			l->n += strlcpy(l->buf + l->n, l->label,
			    sizeof(l->buf) - l->n);
			l->buf[l->n++] = '\t';
		}
		if (g->o.motp) {
			/* mOTP hashes the time in tens of seconds. */
			otp_motp((const char *)u->key.buf, u->key.len, g->o.pin,
			    (int64_t)((counter + i + j) * u->period) +
			    g->o.start, l->code);
			l->n += strlcpy(l->buf + l->n, l->code,
			    sizeof(l->buf) - l->n);
		} else if (cli_steam(&g->o, u)) {
			otp_code_steam(values[j], l->code);
			l->n += strlcpy(l->buf + l->n, l->code,
			    sizeof(l->buf) - l->n);
		} else {
			otp_code_decimal(values[j], u->digits, l->buf + l->n,
			    sizeof(l->buf) - l->n);
			l->n += u->digits;
		}
		/* An HOTP line of a mixed file has no seconds column. */
		if (g->remaining && u->type == OTP_TYPE_TOTP)
			l->n += (size_t)snprintf(l->buf + l->n,
			    sizeof(l->buf) - l->n, "\t%" PRIu64,
			    left + (i + j) * u->period);
		l->buf[l->n++] = '\n';
	}
	return 0;
}

/* Print the codes of one key; returns 0, or -1 after a warning. */
static int
generate(struct gen *g, struct otp_uri *u, const char *where)
{
	struct otp_hmac h;
	struct lines l;
	uint64_t counter, i, nv, left = 0;
	uint32_t values[GEN_BATCH];
	int rc;

	if (check_combination(g, u, where) != 0)
		return -1;
	if (u->type == OTP_TYPE_TOTP) {
		rc = otp_totp_counter(g->o.now, g->o.start, u->period,
		    &counter);
		if (rc != 0) {
			warnx("%s%s", otp_strerror(rc), where);
			return -1;
		}
		left = u->period - ((uint64_t)g->o.now -
		    (uint64_t)g->o.start) % u->period;
	} else
		counter = u->counter;
	if (counter > UINT64_MAX - g->o.window) {
		warnx("%s: the window runs past the largest counter%s",
		    otp_strerror(OTP_EWINDOW), where);
		return -1;
	}
	if (!g->o.motp && (rc = otp_hmac_init(&h, u->alg, u->key.buf,
	    u->key.len)) != 0) {
		warnx("%s%s", otp_strerror(rc), where);
		return -1;
	}
	if (g->verbose)
		print_verbose(g, u, counter);
	if (u->type == OTP_TYPE_TOTP)
		g->totp++;
	else
		g->hotp++;
	l.n = 0;
	if (g->label)
		label_of(u, l.label, sizeof(l.label));
	/* Codes in batches of GEN_BATCH, their lines through one buffer: a
	 * large window costs little more than its hashing. */
	for (i = 0; i <= g->o.window; i += nv) {
		nv = g->o.window - i < GEN_BATCH ? g->o.window - i + 1 :
		    GEN_BATCH;
		if (!g->o.motp)
			otp_hotp_values(&h, counter + i, values, nv);
		if (emit(g, u, counter, left, i, values, nv, &l) != 0)
			break;
	}
	fwrite_unlocked(l.buf, 1, l.n, stdout);
	otp_wipe(&l, sizeof(l));
	otp_wipe(values, sizeof(values));
	if (!g->o.motp)
		otp_hmac_wipe(&h);
	return 0;
}

/* Fill u from key text.  mOTP secrets are text, used as they are. */
static int
load_text(const struct gen *g, const char *text, const char *what,
    struct otp_uri *u)
{
	if (g->o.motp)
		return cli_motp_text(&g->o, text, what, u);
	return cli_key_text(&g->o, text, what, u);
}

static int
one_operand(struct gen *g, const char *arg)
{
	char line[OTP_LINE_MAX] = "";
	struct otp_uri u;
	int rc;

	cli_lock(line, sizeof(line));
	if (cli_key_read(arg, line, sizeof(line)) != 0)
		return -1;
	rc = load_text(g, line, NULL, &u) == 0 ? generate(g, &u, "") : -1;
	otp_wipe(line, sizeof(line));
	otp_wipe(&u, sizeof(u));
	return rc;
}

/* Every line of stdin is a key; blank lines and '#' comments are
 * skipped.  A bad line is reported and the others still run. */
static int
stdin_lines(struct gen *g)
{
	char line[OTP_LINE_MAX], what[32], where[40];
	struct otp_uri u;
	unsigned long lineno = 0;
	int status = 0, keys = 0, rc;

	/* Not fgets: a NUL byte must fail the line, not cut the key short
	 * at it (found by clang-tidy); and no stdio buffer keeps a key. */
	while ((rc = cli_stdin_line(line, sizeof(line))) != OTP_EEMPTY &&
	    rc != OTP_EIO) {
		size_t n = strlen(line);

		lineno++;
		snprintf(what, sizeof(what), "line %lu", lineno);
		if (rc != 0) {
			warnx("standard input, %s: %s", what,
			    otp_strerror(rc));
			status = -1;
			continue;
		}
		if (n == 0 || line[0] == '#')
			continue;
		keys++;
		snprintf(where, sizeof(where), " (line %lu)", lineno);
		if (load_text(g, line, what, &u) != 0 ||
		    generate(g, &u, where) != 0)
			status = -1;
		otp_wipe(&u, sizeof(u));
	}
	otp_wipe(line, sizeof(line));
	if (rc == OTP_EIO) {
		warn("standard input");
		return -1;
	}
	if (keys == 0 && status == 0) {
		warnx("standard input: no key");
		return -1;
	}
	return status;
}

int
main(int argc, char *argv[])
{
	struct gen g;
	int ch, i, status = 0;

	cli_init(argc, argv);
	memset(&g, 0, sizeof(g));
	cli_otp_init(&g.o);
	while ((ch = cli_getopt(argc, argv, CLI_OTP_SHORTOPTS "hlrVv",
	    longopts, &g.o)) != -1) {
		switch (ch) {
		case 'h':
			usage();
		case 'l':
			g.label = 1;
			break;
		case 'r':
			g.remaining = 1;
			break;
		case 'v':
			g.verbose = 1;
			break;
		case 'V':
			cli_version();
		}
	}
	argc -= optind;
	argv += optind;
	cli_otp_check(&g.o, NULL, NULL);

	/* At a terminal, no operand is one key asked for without echo. */
	g.lone = argc == 1 || (argc == 0 && isatty(STDIN_FILENO));
	if (argc == 0)
		status = g.lone ? one_operand(&g, "-") : stdin_lines(&g);
	for (i = 0; i < argc; i++)
		if (one_operand(&g, argv[i]) != 0)
			status = -1;
	if (check_run(&g) != 0)
		status = -1;
	cli_exit(status == 0 ? 0 : CLI_EXIT_ERR);
}

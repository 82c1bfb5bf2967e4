/*
 * cli.h - what the otp-utils tools share: start-up hardening, version and
 * exit handling, key loading with clear errors, and the OTP options that
 * otp-gen and otp-verify have in common.
 */
#ifndef CLI_H
#define CLI_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "otp.h"
#include "otp_uri.h"
#include "sys.h"

#define CLI_EXIT_ERR	2	/* every error, as cmp(1) */

/* Long-option values for options without a short letter. */
enum {
	CLI_OPT_HOTP = 256,
	CLI_OPT_TOTP,
	CLI_OPT_STEAM,
	CLI_OPT_MOTP,
	CLI_OPT_PIN,
	CLI_OPT_STRICT,
	CLI_OPT_TOOL_BASE = 512	/* first value free for a tool's own options */
};

/* The OTP parameters given on the command line; the have_* flags say which,
 * so that they override an otpauth URI's parameters and only those. */
struct cli_otp {
	enum otp_type	type;
	enum otp_alg	alg;
	unsigned	digits;
	uint64_t	counter;
	uint64_t	step;
	int64_t		start;
	int64_t		now;
	uint64_t	window;
	enum otp_keyenc	enc;
	int		strict;		/* --strict Base32 */
	int		steam;		/* --steam */
	int		motp;		/* --motp */
	const char	*pin;		/* --pin, for --motp */
	int		have_type, have_alg, have_digits, have_counter;
	int		have_step, have_start, have_now, have_window;
};

/* Harden the process (no core dumps: it holds secrets) and set the
 * program name.  Call first in main(). */
void	cli_init(int argc, char *argv[]);
/* Print "PROG (otp-utils) VERSION" and exit 0. */
void	cli_version(void) __attribute__((noreturn));
/* Flush stdout and exit with status, or with 2 and a message when stdout
 * could not be written (a full disk, a closed pipe). */
void	cli_exit(int status) __attribute__((noreturn));
/* errx(2, ...) for a usage error, with a pointer to --help. */
void	cli_usage_error(const char *fmt, ...)
	    __attribute__((noreturn, format(printf, 1, 2)));

/* getopt_long(3) with the one usage error of every tool: the next option,
 * or -1.  An unknown option ("unknown option '--bogus'") or a missing
 * argument ("option '--digits' needs an argument") exits 2 here, naming
 * the option as typed but never past its '=' (a mistyped option may carry
 * a key).  With o, the shared options go to cli_otp_option() and are not
 * returned.  shortopts is given without a leading ':'. */
int	cli_getopt(int argc, char *argv[], const char *shortopts,
	    const struct option *longopts, struct cli_otp *o);

/* Set the defaults: HOTP, SHA1, 6 digits, step 30, start 0, now = time(). */
void	cli_otp_init(struct cli_otp *o);
/* Handle one of the shared options (ch from getopt_long; see
 * CLI_OTP_SHORTOPTS); returns 1 when handled, 0 when not ours.  Bad values
 * exit 2 with a message naming the option. */
int	cli_otp_option(struct cli_otp *o, int ch, const char *arg);
/* Read a key argument's text into out: the operand itself, a line of
 * FILE for "@FILE", a line of standard input for "-" or NULL.  When
 * standard input is a terminal, "-" and NULL ask on the terminal and read
 * without echo (readpassphrase(3)), so that the key is not shown.
 * Returns 0, or -1 after a warning that names the source, never the key. */
int	cli_key_read(const char *arg, char *out, size_t outsz);
/* The next line of standard input (as sys_lines_next), through one
 * buffer the tool's every read of standard input shares. */
int	cli_stdin_line(char *out, size_t outsz);
/* Fill u from a key argument (operand, "-", "@FILE"; NULL reads stdin),
 * decoding it per o->enc unless it is an otpauth URI, then apply the
 * command-line overrides.  Errors exit 2; a bad character is named by
 * its offset alone (it is part of a secret). */
void	cli_key_load(const struct cli_otp *o, const char *arg,
	    struct otp_uri *u);
/* Same, from text already read (one line of a multi-key stdin); what names
 * the source in messages ("line 3").  Returns 0 or the OTP_E* code after
 * printing a warning, so a caller can go on to the next line. */
int	cli_key_text(const struct cli_otp *o, const char *text,
	    const char *what, struct otp_uri *u);
/* 1 when codes for u are Steam Guard's: --steam, or a steam:// URI. */
int	cli_steam(const struct cli_otp *o, const struct otp_uri *u);
/* Apply the command-line parameters of o over those of u (--steam and
 * --motp make it TOTP, --motp with 10-second steps). */
void	cli_otp_apply(const struct cli_otp *o, struct otp_uri *u);
/* The rules of otp-gen and otp-verify for combining the shared options.
 * With u NULL, the options among themselves: a conflict is a usage error
 * (exit 2).  With u, the options against that key's type, be it the
 * options' or a URI's: returns 0, or -1 after a warning ending in where
 * ("" or " (line 3)"). */
int	cli_otp_check(const struct cli_otp *o, const struct otp_uri *u,
	    const char *where);
/* Options given that u's type cannot use (cli_otp_check's complaint). */
#define CLI_MISFIT_TIME		0x1	/* -N, -S or -s with an HOTP key */
#define CLI_MISFIT_COUNTER	0x2	/* -c with a TOTP key */
unsigned cli_otp_misfit(const struct cli_otp *o, const struct otp_uri *u);
/* Fill u from a Mobile-OTP secret: the text itself, not decoded; what
 * names the source in messages ("line 3", or NULL).  Returns 0, or -1
 * after a warning that never holds the secret. */
int	cli_motp_text(const struct cli_otp *o, const char *text,
	    const char *what, struct otp_uri *u);
/* A --period value: a duration (30, 30s, 1m) of 1 to 2^32-1 seconds, the
 * range of an otpauth URI's period; a bad value exits 2 with one line. */
uint64_t cli_period(const char *arg);
/* A store's deadline: "500ms", or a duration (3, 3s, 1m) of up to 10
 * minutes, in milliseconds; a bad value exits 2 naming opt. */
unsigned cli_deadline(const char *opt, const char *arg);
/* A time as --now takes it (otp_time_parse, the local zone), or exit 2
 * naming opt and the word not understood. */
int64_t cli_time(const char *opt, const char *arg);
/* The PostgreSQL store's object from OTP_STORE_MODULE (not for a set-id
 * program), or NULL for the build tree's or the installed one. */
const char *cli_store_module(void);
/* sys_store_open() failed with rc for url (given as opt, "" or
 * "--store "): exit 2 with why, the URL without a password, escaped;
 * a store object that does not load is named with the loader's words
 * and OTP_STORE_MODULE.  A bad URL is a usage error. */
void	cli_store_open_fail(const char *opt, const char *url, int rc)
	    __attribute__((noreturn));
/*
 * Text from outside (a user name, a database's column or message, a
 * URL) as a terminal may show it: control bytes, backslash and bytes
 * above 0x7e as \ooo (vis(3) -o), so that no escape sequence reaches
 * the terminal.  cli_esc: the first n bytes of s into one of four
 * static buffers, used in turn (four in one message), cut with "..."
 * past 1 KiB of text; cli_esc_put: all of them to f.
 */
const char *cli_esc_n(const char *s, size_t n);
const char *cli_esc(const char *s);
/* cli_esc of a store URL as sys_store_url_shown() shows it. */
const char *cli_url(const char *url);
void	cli_esc_put(FILE *f, const char *s, size_t n);
/* Keep the pages of n bytes at p out of swap where the system allows it
 * (mlock(2)); failure is ignored.  For key buffers. */
void	cli_lock(const void *p, size_t n);
/* HOME/name for the user running us, HOME from the password database (as
 * a login module looks there), not $HOME; exits 2 naming opt.  A static
 * buffer. */
const char *cli_home_file(const char *opt, const char *name);

/* -h/--help and -V/--version, which every tool has. */
#define CLI_STD_LONGOPTS \
	{ "help",		no_argument,	   NULL, 'h' }, \
	{ "version",		no_argument,	   NULL, 'V' }

/* --help lines of the shared options, as otp-gen and otp-verify both
 * describe them. */
#define CLI_OTP_HELP_KEY \
	"  --hotp                 event-based codes (default)\n" \
	"  --totp[=ALG]           time-based codes; ALG SHA1, SHA256 or " \
	"SHA512\n" \
	"  -a, --algorithm=ALG    HMAC algorithm, also for HOTP\n" \
	"  -b, --base32           keys are Base32\n" \
	"  -x, --hex              keys are hex (default)\n" \
	"      --strict           Base32 keys must be canonical\n"
#define CLI_OTP_HELP_TIME \
	"  -s, --time-step-size=DURATION  TOTP step (default 30s)\n" \
	"  -S, --start-time=TIME  TOTP epoch T0 (default 1970-01-01 " \
	"00:00:00 UTC)\n" \
	"  -N, --now=TIME         use TIME as the current time\n"
#define CLI_OTP_HELP_KIND \
	"      --steam            Steam Guard 5-character codes (not with " \
	"-a, -d)\n" \
	"      --motp --pin=PIN   Mobile-OTP codes (KEY is the secret " \
	"text)\n"

/* The options that describe a key, in every tool that takes or makes
 * one: short letters, and entries for a tool's longopts[] table. */
#define CLI_KEY_SHORTOPTS	"a:bc:d:x"
#define CLI_KEY_LONGOPTS \
	{ "algorithm",		required_argument, NULL, 'a' }, \
	{ "base32",		no_argument,	   NULL, 'b' }, \
	{ "counter",		required_argument, NULL, 'c' }, \
	{ "digits",		required_argument, NULL, 'd' }, \
	{ "hex",		no_argument,	   NULL, 'x' }, \
	{ "hotp",		no_argument,	   NULL, CLI_OPT_HOTP }, \
	{ "totp",		optional_argument, NULL, CLI_OPT_TOTP }

/* The key options of otp-gen and otp-verify, and those of a key for an
 * otpauth URI (otp-uri, otp-keygen --uri): the label and the period. */
#define CLI_OTP_SHORTOPTS	CLI_KEY_SHORTOPTS "N:s:S:w:"
#define CLI_URI_SHORTOPTS	CLI_KEY_SHORTOPTS "A:i:p:"
#define CLI_URI_LONGOPTS \
	CLI_KEY_LONGOPTS, \
	{ "account",		required_argument, NULL, 'A' }, \
	{ "issuer",		required_argument, NULL, 'i' }, \
	{ "period",		required_argument, NULL, 'p' }
#define CLI_OTP_LONGOPTS \
	CLI_KEY_LONGOPTS, \
	{ "motp",		no_argument,	   NULL, CLI_OPT_MOTP }, \
	{ "now",		required_argument, NULL, 'N' }, \
	{ "pin",		required_argument, NULL, CLI_OPT_PIN }, \
	{ "start-time",		required_argument, NULL, 'S' }, \
	{ "steam",		no_argument,	   NULL, CLI_OPT_STEAM }, \
	{ "strict",		no_argument,	   NULL, CLI_OPT_STRICT }, \
	{ "time-step-size",	required_argument, NULL, 's' }, \
	{ "window",		required_argument, NULL, 'w' }

#endif /* CLI_H */

/*
 * b32 - Base32 filter: encode bytes (or hex text) to RFC 4648 Base32, or
 * decode Base32 back, streaming in constant memory.
 *
 * Output is written one block behind the input, after the next block (or
 * the end of the input) has been checked: an input that fails within its
 * first 64 KiB, every key among them, leaves no partial output.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define BLK		(64 * 1024)	/* bytes per read(2) */
#define QSZ		(4 * BLK + 64)	/* one block's output, wrapped at 1 */
#define WRAP_DEFAULT	76		/* as coreutils' base32 */
#define WRAP_MAX	1000000000

enum {
	OPT_HEX = CLI_OPT_TOOL_BASE,
	OPT_BASE32HEX,
};

static const struct option longopts[] = {
	CLI_STD_LONGOPTS,
	{ "base32hex",	no_argument,		NULL,	OPT_BASE32HEX },
	{ "decode",	no_argument,		NULL,	'd' },
	{ "hex",	no_argument,		NULL,	OPT_HEX },
	{ "no-padding",	no_argument,		NULL,	'n' },
	{ "strict",	no_argument,		NULL,	CLI_OPT_STRICT },
	{ "wrap",	required_argument,	NULL,	'w' },
	{ NULL,		0,			NULL,	0 }
};

/*
 * Fixed buffers, whatever the input size.  They may hold a key (b32 -d
 * --hex converts keys), so every way out wipes them: wipe_all() runs at
 * exit() (err/errx included) and before cli_exit().
 */
static char	inbuf[BLK];		/* one block of input */
static uint8_t	binbuf[BLK + 8];	/* the binary side, with a carry */
static char	digits[BLK + 2];	/* hex digits of a block */
static char	textbuf[2 * BLK + 16];	/* Base32 or hex text */
static char	outq[2][QSZ];		/* output, written one block late */
static size_t	outqlen[2];
static int	cur;			/* the queue being filled */

static const char *inname = "-";
static int	ineof;			/* read(2) has returned 0 */
static size_t	wrap = WRAP_DEFAULT;	/* encoded line length, 0 none */
static size_t	col;			/* column of the next character */
static uint64_t	ntext;			/* encoded characters so far */

static void
wipe_all(void)
{
	otp_wipe(inbuf, sizeof(inbuf));
	otp_wipe(binbuf, sizeof(binbuf));
	otp_wipe(digits, sizeof(digits));
	otp_wipe(textbuf, sizeof(textbuf));
	otp_wipe(outq, sizeof(outq));
}

/* --help; usage errors go through cli_usage_error(). */
static void __attribute__((noreturn))
usage(void)
{
	printf("usage: %s [-dnV] [-w cols] [--base32hex] [--hex] [--strict] "
	    "[file]\n", getprogname());
	fputs("Encode bytes to Base32 (RFC 4648), or decode with -d; read "
	    "file or stdin.\n"
	    "  -d, --decode       decode Base32 to bytes\n"
	    "  -w, --wrap=COLS    wrap encoded lines at COLS (default 76, "
	    "0 for none)\n"
	    "  -n, --no-padding   encode without '=' (with -d --strict: "
	    "refuse it)\n"
	    "      --hex          the binary side is hex text\n"
	    "      --base32hex    RFC 4648 extended-hex alphabet\n"
	    "      --strict       decode canonical Base32 only\n"
	    "  -h, --help         show this help\n"
	    "  -V, --version      show the version\n", stdout);
	cli_exit(0);
}

/*
 * read(2) until n bytes or the end of the input; 0 at the end.  The end
 * is remembered: at a terminal, one Ctrl-D on an empty line is the end,
 * and reading again would wait for a second one.
 */
static size_t
readblock(int fd, void *buf, size_t n)
{
	size_t got = 0;
	ssize_t r;

	while (got < n && !ineof) {
		r = read(fd, (char *)buf + got, n - got);
		if (r == 0) {
			ineof = 1;
			break;
		}
		if (r < 0) {
			if (errno == EINTR)
				continue;
			err(CLI_EXIT_ERR, "%s", inname);
		}
		got += (size_t)r;
	}
	return got;
}

/* Write the queue filled before the current one, and switch to it. */
static void
flush_pending(void)
{
	int prev = !cur;

	if (outqlen[prev] > 0 &&
	    fwrite(outq[prev], 1, outqlen[prev], stdout) != outqlen[prev]) {
		wipe_all();
		cli_exit(CLI_EXIT_ERR);
	}
	outqlen[prev] = 0;
	cur = prev;
}

/* Write both queues, the older first: the input is all checked. */
static void
flush_all(void)
{
	flush_pending();
	flush_pending();
}

static void
queue(const void *p, size_t n)
{
	memcpy(outq[cur] + outqlen[cur], p, n);
	outqlen[cur] += n;
}

/* Encoded text goes out in lines of wrap columns. */
static void
queue_text(const char *s, size_t n)
{
	size_t k;

	ntext += n;
	if (wrap == 0) {
		queue(s, n);
		return;
	}
	while (n > 0) {
		k = wrap - col < n ? wrap - col : n;
		queue(s, k);
		s += k;
		n -= k;
		col += k;
		if (col == wrap) {
			queue("\n", 1);
			col = 0;
		}
	}
}

/* A byte for a message: 'c' when printable, else its value in hex. */
static const char *
showbyte(unsigned char c, char *buf, size_t bufsz)
{
	if (c > 0x20 && c < 0x7f)
		snprintf(buf, bufsz, "'%c'", c);
	else
		snprintf(buf, bufsz, "0x%02x", c);
	return buf;
}

/* Hex text to bytes, block by block: whitespace is dropped and an odd
 * digit carried to the next block. */
static int	carry;			/* a digit is carried */
static char	carried;
static uint64_t	carryoff;		/* its input offset */

static size_t
hex_block(const char *in, size_t n, uint64_t base, uint8_t *out)
{
	size_t i, m = 0, last = 0, outlen = 0, off = 0, k;
	int had = carry, rc;
	char b[8];

	if (carry)
		digits[m++] = carried;
	for (i = 0; i < n; i++) {
		switch (in[i]) {
		case ' ': case '\t': case '\n': case '\r': case '\v': case '\f':
			break;
		default:
			digits[m++] = in[i];
			last = i;
		}
	}
	carry = (int)(m % 2);
	rc = otp_hex_decode(digits, m - (size_t)carry, out, BLK, &outlen, &off);
	if (rc == 0 && carry) {
		/* Check the odd digit now, paired with a harmless one. */
		char pair[2] = { digits[m - 1], '0' };
		uint8_t dummy;
		size_t dn;

		if (otp_hex_decode(pair, 2, &dummy, 1, &dn, NULL) != 0) {
			rc = OTP_EHEX;
			off = m - 1;
		} else if (m - 1 >= (size_t)had) {
			/* it is this block's last digit */
			carried = digits[m - 1];
			carryoff = base + last;
		}
	}
	if (rc == 0)
		return outlen;
	if (rc != OTP_EHEX)
		errx(CLI_EXIT_ERR, "%s", otp_strerror(rc));
	/* Map the index among the digits back to the input offset. */
	if (had && off == 0)
		errx(CLI_EXIT_ERR, "invalid hex character %s at offset %llu",
		    showbyte((unsigned char)carried, b, sizeof(b)),
		    (unsigned long long)carryoff);
	k = off - (size_t)had;
	for (i = 0; i < n; i++) {
		switch (in[i]) {
		case ' ': case '\t': case '\n': case '\r': case '\v': case '\f':
			continue;
		}
		if (k-- == 0)
			break;
	}
	errx(CLI_EXIT_ERR, "invalid hex character %s at offset %llu",
	    showbyte((unsigned char)in[i], b, sizeof(b)),
	    (unsigned long long)base + i);
}

static void
encode(int fd, int flags, int hexin)
{
	uint64_t base = 0;
	size_t have = 0, n, m, whole;
	int k;

	for (;;) {
		if (hexin) {
			if ((n = readblock(fd, inbuf, BLK)) == 0)
				break;
			m = hex_block(inbuf, n, base, binbuf + have);
		} else {
			/* Raw bytes land right after the carried ones. */
			if ((n = readblock(fd, binbuf + have, BLK)) == 0)
				break;
			m = n;
		}
		base += n;
		flush_pending();
		have += m;
		whole = have - have % 5;
		/* Whole 5-byte groups only, so no padding mid-stream. */
		k = otp_b32_encode(binbuf, whole, textbuf, sizeof(textbuf),
		    flags);
		if (k < 0)
			errx(CLI_EXIT_ERR, "%s", otp_strerror(k));
		queue_text(textbuf, (size_t)k);
		memmove(binbuf, binbuf + whole, have - whole);
		have -= whole;
	}
	if (hexin && carry)
		errx(CLI_EXIT_ERR, "odd number of hex digits at end of input");
	k = otp_b32_encode(binbuf, have, textbuf, sizeof(textbuf), flags);
	if (k < 0)
		errx(CLI_EXIT_ERR, "%s", otp_strerror(k));
	queue_text(textbuf, (size_t)k);
	/* Encoded output ends with a newline, unless there is none. */
	if (ntext > 0 && (wrap == 0 || col != 0))
		queue("\n", 1);
	flush_all();
}

static void __attribute__((noreturn))
decode_error(int rc, uint64_t off, const char *blk, uint64_t base,
    size_t n)
{
	char b[8];

	if (rc == OTP_EBASE32 && blk != NULL && off >= base &&
	    off - base < n)
		errx(CLI_EXIT_ERR, "invalid Base32 character %s at offset %llu",
		    showbyte((unsigned char)blk[off - base], b, sizeof(b)),
		    (unsigned long long)off);
	errx(CLI_EXIT_ERR, "%s at offset %llu", otp_strerror(rc),
	    (unsigned long long)off);
}

/* Queue decoded bytes, as they are or as hex text. */
static void
queue_bytes(const uint8_t *p, size_t n, int hexout)
{
	int rc;

	if (!hexout) {
		queue(p, n);
		return;
	}
	if ((rc = otp_hex_encode(p, n, textbuf, sizeof(textbuf))) != 0)
		errx(CLI_EXIT_ERR, "%s", otp_strerror(rc));
	queue(textbuf, 2 * n);
	ntext += 2 * n;
}

static void
decode(int fd, int flags, int hexout)
{
	struct otp_b32_decoder d;
	uint64_t base = 0, off = 0;
	size_t n, m, outlen;
	int held = 0, rc;
	uint8_t *out;

	otp_b32_decoder_init(&d, flags);
	while ((n = readblock(fd, inbuf, BLK)) > 0) {
		/* Raw output is decoded straight into the queue. */
		out = hexout ? binbuf : (uint8_t *)outq[cur] + outqlen[cur];
		m = 0;
		if (held) {
			/* A newline held back at the end of the last block
			 * was not the end of the input after all. */
			rc = otp_b32_decoder_update(&d, "\n", 1, out, &outlen,
			    &off);
			if (rc != 0)
				decode_error(rc, off, "\n", base - 1, 1);
			held = 0;
			m += outlen;
		}
		/* --strict forgives one newline at the very end, as echo
		 * and coreutils' base32 -w0 leave it. */
		if ((flags & OTP_B32_STRICT) && inbuf[n - 1] == '\n')
			held = 1;
		rc = otp_b32_decoder_update(&d, inbuf, n - (size_t)held,
		    out + m, &outlen, &off);
		if (rc != 0)
			decode_error(rc, off, inbuf, base, n);
		m += outlen;
		base += n;
		if (hexout) {
			flush_pending();
			queue_bytes(binbuf, m, 1);
		} else {
			outqlen[cur] += m;
			flush_pending();
		}
	}
	rc = otp_b32_decoder_final(&d, binbuf, &outlen, &off);
	otp_wipe(&d, sizeof(d));
	if (rc != 0)
		decode_error(rc, off, NULL, 0, 0);
	queue_bytes(binbuf, outlen, hexout);
	if (hexout && ntext > 0)
		queue("\n", 1);
	flush_all();
}

int
main(int argc, char *argv[])
{
	uint64_t v;
	int ch, decoding = 0, hex = 0, flags = 0, fd = STDIN_FILENO;

	cli_init(argc, argv);
	atexit(wipe_all);
	while ((ch = cli_getopt(argc, argv, "dhnVw:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'd':
			decoding = 1;
			break;
		case 'h':
			usage();
		case 'n':
			flags |= OTP_B32_NOPAD;
			break;
		case 'V':
			cli_version();
		case 'w':
			if (otp_parse_u64(optarg, 0, WRAP_MAX, &v) != 0)
				errx(CLI_EXIT_ERR, "--wrap: '%s': not a "
				    "number of columns from 0 to %d", optarg,
				    WRAP_MAX);
			wrap = (size_t)v;
			break;
		case OPT_HEX:
			hex = 1;
			break;
		case OPT_BASE32HEX:
			flags |= OTP_B32_HEXALPHA;
			break;
		case CLI_OPT_STRICT:
			flags |= OTP_B32_STRICT;
			break;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc > 1)
		cli_usage_error("extra operand '%s'", argv[1]);
	if (argc == 1 && strcmp(argv[0], "-") != 0) {
		inname = argv[0];
		if ((fd = open(inname, O_RDONLY | O_CLOEXEC)) == -1)
			err(CLI_EXIT_ERR, "%s", inname);
	}

	if (decoding)
		decode(fd, flags, hex);
	else
		encode(fd, flags, hex);
	if (fd != STDIN_FILENO)
		(void)close(fd);
	wipe_all();
	cli_exit(0);
}

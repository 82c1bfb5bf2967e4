/*
 * b32 - Base32 filter: encode bytes (or hex text) to RFC 4648 Base32, or
 * decode Base32 back, streaming in constant memory; with --lines, each
 * line on its own.
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
#define QSZ		(5 * BLK + 64)	/* one block's output: wrapped at 1,
					 * or --lines of one byte each */
#define WRAP_DEFAULT	76		/* as coreutils' base32 */
#define WRAP_MAX	1000000000

enum {
	OPT_HEX = CLI_OPT_TOOL_BASE,
	OPT_BASE32HEX,
	OPT_LINES,
};

static const struct option longopts[] = {
	CLI_STD_LONGOPTS,
	{ "base32hex",	no_argument,		NULL,	OPT_BASE32HEX },
	{ "decode",	no_argument,		NULL,	'd' },
	{ "hex",	no_argument,		NULL,	OPT_HEX },
	{ "ignore-garbage", no_argument,	NULL,	'i' },
	{ "lines",	no_argument,		NULL,	OPT_LINES },
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

/* --lines: each line is converted on its own; messages name it. */
static int	lines;
static uint64_t	lineno = 1;		/* the line being read */
static uint64_t	linestart;		/* its input offset */

/* The block being read, for naming a bad character. */
static const char *curblk;
static uint64_t	curbase;
static size_t	curn;

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
	printf("usage: %s [-dinV] [-w cols] [--base32hex] [--hex] [--lines] "
	    "[--strict] [file]\n", getprogname());
	fputs("Encode bytes to Base32 (RFC 4648), or decode with -d; read "
	    "file or stdin.\n"
	    "  -d, --decode       decode Base32 to bytes\n"
	    "  -i, --ignore-garbage  with -d, drop characters outside the "
	    "alphabet\n"
	    "  -w, --wrap=COLS    wrap encoded lines at COLS (default 76, "
	    "0 for none)\n"
	    "  -n, --no-padding   encode without '=' (with -d --strict: "
	    "refuse it)\n"
	    "      --hex          the binary side is hex text\n"
	    "      --lines        convert each line on its own, one output "
	    "line each\n"
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
	curblk = buf;
	curn = got;
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

/* "line N: " with --lines, else "". */
static const char *
where(void)
{
	static char buf[32];

	if (!lines)
		return "";
	snprintf(buf, sizeof(buf), "line %llu: ", (unsigned long long)lineno);
	return buf;
}

/* An error at input offset off, counted in the line with --lines; c >= 0
 * names the character there. */
static void __attribute__((noreturn))
fail_at(const char *what, int c, uint64_t off)
{
	char b[8];

	if (lines)
		off -= linestart;
	if (c >= 0)
		errx(CLI_EXIT_ERR, "%s%s %s at offset %llu", where(), what,
		    showbyte((unsigned char)c, b, sizeof(b)),
		    (unsigned long long)off);
	errx(CLI_EXIT_ERR, "%s%s at offset %llu", where(), what,
	    (unsigned long long)off);
}

/* Hex text to bytes, piece by piece: whitespace is dropped and an odd
 * digit carried to the next piece. */
static int	carry;			/* a digit is carried */
static char	carried;
static uint64_t	carryoff;		/* its input offset */

static size_t
hex_block(const char *in, size_t n, uint64_t base, uint8_t *out)
{
	size_t i, m = 0, last = 0, outlen = 0, off = 0, k;
	int had = carry, rc;

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
			/* it is this piece's last digit */
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
		fail_at("invalid hex character", (unsigned char)carried,
		    carryoff);
	k = off - (size_t)had;
	for (i = 0; i < n; i++) {
		switch (in[i]) {
		case ' ': case '\t': case '\n': case '\r': case '\v': case '\f':
			continue;
		}
		if (k-- == 0)
			break;
	}
	fail_at("invalid hex character", (unsigned char)in[i], base + i);
}

/* ---- encoding ---------------------------------------------------------- */

static size_t	have;			/* bytes carried in binbuf */

/* Encode n bytes of input (hex text with hexin) at offset base. */
static void
enc_feed(const char *in, size_t n, uint64_t base, int flags, int hexin)
{
	size_t m, whole;
	int k;

	if (hexin)
		m = hex_block(in, n, base, binbuf + have);
	else {
		memcpy(binbuf + have, in, n);
		m = n;
	}
	have += m;
	/* Whole 5-byte groups only, so no padding mid-stream. */
	whole = have - have % 5;
	k = otp_b32_encode(binbuf, whole, textbuf, sizeof(textbuf), flags);
	if (k < 0)
		errx(CLI_EXIT_ERR, "%s", otp_strerror(k));
	queue_text(textbuf, (size_t)k);
	memmove(binbuf, binbuf + whole, have - whole);
	have -= whole;
}

/* The end of the input, or of a line with --lines. */
static void
enc_end(int flags, int hexin)
{
	int k;

	if (hexin && carry)
		errx(CLI_EXIT_ERR, "%sodd number of hex digits at end of %s",
		    where(), lines ? "line" : "input");
	k = otp_b32_encode(binbuf, have, textbuf, sizeof(textbuf), flags);
	if (k < 0)
		errx(CLI_EXIT_ERR, "%s", otp_strerror(k));
	queue_text(textbuf, (size_t)k);
	have = 0;
	/* Encoded output ends with a newline, unless there is none; every
	 * line has one. */
	if (lines || (ntext > 0 && (wrap == 0 || col != 0)))
		queue("\n", 1);
}

static void
encode(int fd, int flags, int hexin)
{
	uint64_t base = 0;
	const char *p, *nl;
	size_t n, k;

	while ((n = readblock(fd, inbuf, BLK)) > 0) {
		curbase = base;
		flush_pending();
		for (p = inbuf; lines &&
		    (nl = memchr(p, '\n', n - (size_t)(p - inbuf))) != NULL;
		    p = nl + 1) {
			k = (size_t)(nl - p);
			enc_feed(p, k, base + (size_t)(p - inbuf), flags,
			    hexin);
			enc_end(flags, hexin);
			lineno++;
			linestart = base + (size_t)(nl - inbuf) + 1;
		}
		enc_feed(p, n - (size_t)(p - inbuf), base +
		    (size_t)(p - inbuf), flags, hexin);
		base += n;
	}
	/* With --lines, a last line without its newline is a line. */
	if (!lines || base > linestart)
		enc_end(flags, hexin);
	flush_all();
}

/* ---- decoding ---------------------------------------------------------- */

static struct otp_b32_decoder dec;
static uint64_t	decstart;		/* input offset where dec began */
static int	sawpad;			/* '=' since the last data character */

/* What the codec makes of each byte, asked once (so that the alphabet
 * lives in lib/base32.c alone): data, '=', skipped, or garbage. */
enum { CH_DATA, CH_PAD, CH_SKIP, CH_BAD };
static unsigned char chclass[256];

static void
classify(int flags)
{
	uint8_t b[8];
	size_t n;
	char c;
	int i, rc;

	for (i = 0; i < 256; i++) {
		c = (char)i;
		rc = otp_b32_decode(&c, 1, b, sizeof(b), &n, flags, NULL);
		chclass[i] = rc == 0 ? CH_SKIP : rc == OTP_EBASE32PAD ?
		    CH_PAD : rc == OTP_EBASE32 ? CH_BAD : CH_DATA;
	}
}

static void __attribute__((noreturn))
decode_error(int rc, uint64_t off)
{
	if (rc == OTP_EBASE32 && off >= curbase && off - curbase < curn)
		fail_at("invalid Base32 character",
		    (unsigned char)curblk[off - curbase], off);
	fail_at(otp_strerror(rc), -1, off);
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
dec_update(const char *in, size_t n, int hexout)
{
	uint64_t off = 0;
	size_t outlen;
	int rc;

	rc = otp_b32_decoder_update(&dec, in, n, binbuf, &outlen, &off);
	if (rc != 0)
		decode_error(rc, decstart + off);
	queue_bytes(binbuf, outlen, hexout);
}

/* Finish the text in dec (a block, a line, the input); 0 bytes are
 * left with this codec, but the contract allows 5. */
static void
dec_finish(int hexout)
{
	uint64_t off = 0;
	size_t outlen;
	int rc;

	rc = otp_b32_decoder_final(&dec, binbuf, &outlen, &off);
	if (rc != 0)
		decode_error(rc, decstart + off);
	queue_bytes(binbuf, outlen, hexout);
}

/* Start a new text at offset off. */
static void
dec_begin(uint64_t off)
{
	int flags = dec.flags;

	otp_wipe(&dec, sizeof(dec));
	otp_b32_decoder_init(&dec, flags);
	decstart = off;
	sawpad = 0;
}

/*
 * Decode a piece of the input at offset base.  Lenient input may be
 * Base32 texts one after another (cat a.b32 b.b32), as coreutils'
 * base32 -d takes them: a group closed by '=' ends a text, and the next
 * data character starts a new one.  --strict takes one text only.
 */
static void
dec_feed(const char *in, size_t n, uint64_t base, int hexout)
{
	const char *p;
	size_t i = 0, from = 0;

	if (dec.flags & OTP_B32_STRICT) {
		dec_update(in, n, hexout);
		return;
	}
	while (i < n) {
		if (!sawpad) {
			if ((p = memchr(in + i, '=', n - i)) == NULL)
				break;
			i = (size_t)(p - in);
			sawpad = 1;
		}
		switch (chclass[(unsigned char)in[i]]) {
		case CH_PAD:
		case CH_SKIP:
			i++;
			continue;
		}
		sawpad = 0;
		dec_update(in + from, i - from, hexout);
		from = i;
		/* Not closed: the decoder names the '=' at fault. */
		if (dec.done) {
			dec_finish(hexout);
			dec_begin(base + i);
		}
	}
	dec_update(in + from, n - from, hexout);
}

/* The end of the input, or of a line with --lines at offset off. */
static void
dec_end(uint64_t off, int hexout)
{
	dec_finish(hexout);
	if (lines || (hexout && ntext > 0))
		queue("\n", 1);
	dec_begin(off);
}

static void
decode(int fd, int flags, int hexout, int garbage)
{
	uint64_t base = 0;
	const char *p, *nl;
	size_t n, i;
	int held = 0;

	classify(flags);
	otp_b32_decoder_init(&dec, flags);
	while ((n = readblock(fd, inbuf, BLK)) > 0) {
		curbase = base;
		flush_pending();
		/* -i: garbage becomes a blank that the decoder skips, so
		 * that offsets stay those of the input. */
		for (i = 0; garbage && i < n; i++)
			if (chclass[(unsigned char)inbuf[i]] == CH_BAD)
				inbuf[i] = ' ';
		if (held) {
			/* A newline held back at the end of the last block
			 * was not the end of the input after all. */
			curblk = "\n";
			curbase = base - 1;
			curn = 1;
			dec_feed("\n", 1, base - 1, hexout);
			curblk = inbuf;
			curbase = base;
			curn = n;
			held = 0;
		}
		for (p = inbuf; lines &&
		    (nl = memchr(p, '\n', n - (size_t)(p - inbuf))) != NULL;
		    p = nl + 1) {
			dec_feed(p, (size_t)(nl - p), base +
			    (size_t)(p - inbuf), hexout);
			dec_end(base + (size_t)(nl - inbuf) + 1, hexout);
			lineno++;
			linestart = base + (size_t)(nl - inbuf) + 1;
		}
		n -= (size_t)(p - inbuf);
		/* --strict forgives one newline at the very end, as echo
		 * and coreutils' base32 -w0 leave it. */
		if (!lines && (flags & OTP_B32_STRICT) && n > 0 &&
		    p[n - 1] == '\n')
			held = 1;
		dec_feed(p, n - (size_t)held, base + (size_t)(p - inbuf),
		    hexout);
		base += (size_t)(p - inbuf) + n;
	}
	/* With --lines, a last line without its newline is a line. */
	if (!lines || base > linestart)
		dec_end(base, hexout);
	otp_wipe(&dec, sizeof(dec));
	flush_all();
}

int
main(int argc, char *argv[])
{
	uint64_t v;
	int ch, decoding = 0, hex = 0, flags = 0, garbage = 0, setwrap = 0;
	int fd = STDIN_FILENO;

	cli_init(argc, argv);
	atexit(wipe_all);
	while ((ch = cli_getopt(argc, argv, "dhinVw:", longopts, NULL)) !=
	    -1) {
		switch (ch) {
		case 'd':
			decoding = 1;
			break;
		case 'h':
			usage();
		case 'i':
			garbage = 1;
			break;
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
			setwrap = 1;
			break;
		case OPT_HEX:
			hex = 1;
			break;
		case OPT_BASE32HEX:
			flags |= OTP_B32_HEXALPHA;
			break;
		case OPT_LINES:
			lines = 1;
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
	if (garbage && !decoding)
		cli_usage_error("--ignore-garbage applies to decoding (-d)");
	if (garbage && (flags & OTP_B32_STRICT))
		cli_usage_error("--ignore-garbage and --strict exclude each "
		    "other");
	if (lines && setwrap && wrap != 0)
		cli_usage_error("--lines writes each line whole; --wrap does "
		    "not apply");
	if (lines)
		wrap = 0;
	if (argc == 1 && strcmp(argv[0], "-") != 0) {
		inname = argv[0];
		if ((fd = open(inname, O_RDONLY | O_CLOEXEC)) == -1)
			err(CLI_EXIT_ERR, "%s", inname);
	}

	if (decoding)
		decode(fd, flags, hex, garbage);
	else
		encode(fd, flags, hex);
	if (fd != STDIN_FILENO)
		(void)close(fd);
	wipe_all();
	cli_exit(0);
}

/*
 * test-codec.c - Base32 (RFC 4648 §6, §7) and hex against the vectors in
 * tests/vectors/base32.txt and hex.txt, the streaming decoder against the
 * whole-buffer one for every chunking, output bounds, and round trips of
 * pseudo-random data.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otp.h"
#include "unit.h"

#define TEXT_MAX	1024
#define CANARY		0xa5

/* Undo the vector files' escapes (\s \t \n \r \v \f \xHH \\). */
static size_t
unescape(const char *s, char *out, size_t outsz)
{
	size_t n = 0;
	unsigned v;

	for (; *s != '\0' && n < outsz; s++) {
		if (*s != '\\') {
			out[n++] = *s;
			continue;
		}
		switch (*++s) {
		case 's': out[n++] = ' '; break;
		case 't': out[n++] = '\t'; break;
		case 'n': out[n++] = '\n'; break;
		case 'r': out[n++] = '\r'; break;
		case 'v': out[n++] = '\v'; break;
		case 'f': out[n++] = '\f'; break;
		case '\\': out[n++] = '\\'; break;
		case 'x':
			if (sscanf(s + 1, "%2x", &v) != 1)
				abort();
			out[n++] = (char)v;
			s += 2;
			break;
		default:
			abort();
		}
	}
	return n;
}

static int
parse_flags(const char *s)
{
	int flags = 0;

	if (strstr(s, "strict") != NULL)
		flags |= OTP_B32_STRICT;
	if (strstr(s, "nopad") != NULL)
		flags |= OTP_B32_NOPAD;
	if (strstr(s, "hexalpha") != NULL)
		flags |= OTP_B32_HEXALPHA;
	return flags;
}

/* "!NAME OFFSET" into the code and offset; 0 when s is no error. */
static int
parse_error(const char *s, size_t *off)
{
	char name[32];
	int code;

	if (s[0] != '!')
		return 0;
	if (sscanf(s + 1, "%31s %zu", name, off) != 2 ||
	    (code = unit_errcode(name)) == 1)
		abort();
	return code;
}

/*
 * Decode text through the streaming decoder in chunks of the given sizes
 * (cycled), the last chunk taking what is left.  Returns the error code;
 * the bytes go to out, the error offset to *erroff.
 */
static int
stream_decode(const char *text, size_t len, int flags, const size_t *chunks,
    size_t nchunks, uint8_t *out, size_t *outlen, uint64_t *erroff)
{
	struct otp_b32_decoder d;
	size_t pos = 0, k = 0, n;
	int rc;

	*outlen = 0;
	otp_b32_decoder_init(&d, flags);
	while (pos < len) {
		size_t c = chunks[k++ % nchunks];

		if (c > len - pos)
			c = len - pos;
		rc = otp_b32_decoder_update(&d, text + pos, c, out + *outlen,
		    &n, erroff);
		*outlen += n;
		if (rc != 0)
			return rc;
		pos += c;
	}
	rc = otp_b32_decoder_final(&d, out + *outlen, &n, erroff);
	*outlen += n;
	return rc;
}

/* Check the streaming decoder against an expected result for every split
 * into two chunks, one character at a time, and a few odd sizes. */
static void
check_streaming(const char *what, const char *text, size_t len, int flags,
    int want, const uint8_t *wantb, size_t wantlen, size_t wantoff)
{
	static const size_t odd[] = { 3, 7, 1, 13, 8, 2 };
	uint8_t out[TEXT_MAX];
	uint64_t off;
	size_t split, n, chunks[2];
	int rc;

	for (split = 0; split <= len + 1; split++) {
		/* split == len + 1 means one character at a time */
		chunks[0] = split <= len ? split : 1;
		chunks[1] = split <= len ? TEXT_MAX : 1;
		if (chunks[0] == 0)
			chunks[0] = TEXT_MAX;
		off = (uint64_t)-1;
		rc = stream_decode(text, len, flags, chunks, 2, out, &n, &off);
		CHECK(rc == want, "%s: split %zu: rc %d, want %d", what, split,
		    rc, want);
		if (want == 0)
			CHECK(n == wantlen && memcmp(out, wantb, n) == 0,
			    "%s: split %zu: bytes differ", what, split);
		else
			CHECK(off == wantoff, "%s: split %zu: offset %llu, "
			    "want %zu", what, split, (unsigned long long)off,
			    wantoff);
	}
	rc = stream_decode(text, len, flags, odd, 6, out, &n, &off);
	CHECK(rc == want && (want != 0 || (n == wantlen &&
	    memcmp(out, wantb, n) == 0)) && (want == 0 || off == wantoff),
	    "%s: odd chunks", what);
}

static void
b32_dec_case(const struct unit_line *l, int flags)
{
	char text[TEXT_MAX], what[128];
	uint8_t want[TEXT_MAX], out[TEXT_MAX + 8];
	size_t len, n = 99, off = 99, wantoff = 0, wantlen = 0, i;
	long wl = 0;
	int want_rc, rc;

	snprintf(what, sizeof(what), "%s:%u", l->file, l->lineno);
	len = unescape(l->field[2], text, sizeof(text));
	want_rc = parse_error(l->field[3], &wantoff);
	if (want_rc == 0) {
		wl = unit_unhex(l->field[3], want, sizeof(want));
		CHECK(wl >= 0, "%s: bad expected hex", what);
		if (wl < 0)
			return;
		wantlen = (size_t)wl;
	}

	/* Whole buffer, with exactly the room needed and a canary after. */
	memset(out, CANARY, sizeof(out));
	rc = otp_b32_decode(text, len, out, wantlen, &n, flags, &off);
	CHECK(rc == want_rc, "%s: rc %d (%s), want %d", what, rc,
	    otp_strerror(rc), want_rc);
	if (want_rc == 0) {
		CHECK(n == wantlen && memcmp(out, want, n) == 0,
		    "%s: bytes differ", what);
	} else {
		CHECK(off == wantoff, "%s: offset %zu, want %zu", what, off,
		    wantoff);
		CHECK(n == 0, "%s: outlen %zu on error", what, n);
		for (i = 0; i < wantlen; i++)
			CHECK(out[i] == 0 || out[i] == CANARY,
			    "%s: partial output left behind", what);
	}
	CHECK(out[wantlen] == CANARY, "%s: wrote past outsz", what);
	/* erroff may be NULL. */
	rc = otp_b32_decode(text, len, out, sizeof(out), &n, flags, NULL);
	CHECK(rc == want_rc, "%s: rc %d with NULL erroff", what, rc);

	/* One byte short: OTP_ENOSPACE, the room needed, nothing past. */
	if (want_rc == 0 && wantlen > 0) {
		memset(out, CANARY, sizeof(out));
		rc = otp_b32_decode(text, len, out, wantlen - 1, &n, flags,
		    &off);
		CHECK(rc == OTP_ENOSPACE && n == wantlen,
		    "%s: short buffer: rc %d n %zu", what, rc, n);
		CHECK(out[wantlen - 1] == CANARY, "%s: short buffer overrun",
		    what);
		for (i = 0; i + 1 < wantlen; i++)
			CHECK(out[i] == 0, "%s: short buffer not wiped", what);
	}
	check_streaming(what, text, len, flags, want_rc, want, wantlen,
	    wantoff);
}

static void
b32_enc_case(const struct unit_line *l, int flags)
{
	uint8_t in[TEXT_MAX];
	char out[TEXT_MAX + 8], what[128];
	size_t want = strlen(l->field[3]);
	long n;
	int rc;

	snprintf(what, sizeof(what), "%s:%u", l->file, l->lineno);
	n = unit_unhex(l->field[2], in, sizeof(in));
	CHECK(n >= 0, "%s: bad hex", what);
	if (n < 0)
		return;
	CHECK(otp_b32_encoded_len((size_t)n, flags) == want,
	    "%s: encoded_len %zu, want %zu", what,
	    otp_b32_encoded_len((size_t)n, flags), want);
	memset(out, CANARY, sizeof(out));
	rc = otp_b32_encode(in, (size_t)n, out, want + 1, flags);
	CHECK(rc == (int)want, "%s: rc %d, want %zu", what, rc, want);
	if (rc >= 0)
		CHECK_EQ_STR(out, l->field[3], what);
	CHECK((unsigned char)out[want + 1] == CANARY, "%s: overrun", what);
	/* no room for the NUL */
	memset(out, CANARY, sizeof(out));
	rc = otp_b32_encode(in, (size_t)n, out, want, flags);
	CHECK(rc == OTP_ENOSPACE, "%s: outsz == len: rc %d", what, rc);
	CHECK((unsigned char)out[want] == CANARY, "%s: overrun", what);
}

static void
b32_case(const struct unit_line *l, void *arg)
{
	(void)arg;
	CHECK(l->nfields == 4, "%s:%u: want 4 fields", l->file, l->lineno);
	if (l->nfields != 4)
		return;
	if (strcmp(l->field[0], "enc") == 0)
		b32_enc_case(l, parse_flags(l->field[1]));
	else if (strcmp(l->field[0], "dec") == 0)
		b32_dec_case(l, parse_flags(l->field[1]));
	else
		CHECK(0, "%s:%u: unknown op %s", l->file, l->lineno,
		    l->field[0]);
}

static void
hex_case(const struct unit_line *l, void *arg)
{
	char text[TEXT_MAX], out[2 * TEXT_MAX + 8], what[128];
	uint8_t want[TEXT_MAX], got[TEXT_MAX + 8];
	size_t len, n = 99, off = 99, wantoff = 0, wantlen = 0;
	long wl;
	int want_rc, rc;

	(void)arg;
	snprintf(what, sizeof(what), "%s:%u", l->file, l->lineno);
	CHECK(l->nfields == 3, "%s: want 3 fields", what);
	if (l->nfields != 3)
		return;
	len = unescape(l->field[1], text, sizeof(text));
	if (strcmp(l->field[0], "enc") == 0) {
		size_t w = strlen(l->field[2]);

		memset(out, CANARY, sizeof(out));
		rc = otp_hex_encode((const uint8_t *)text, len, out, w + 1);
		CHECK(rc == 0, "%s: rc %d", what, rc);
		CHECK_EQ_STR(out, l->field[2], what);
		CHECK((unsigned char)out[w + 1] == CANARY, "%s: overrun", what);
		memset(out, CANARY, sizeof(out));
		rc = otp_hex_encode((const uint8_t *)text, len, out, w);
		CHECK(rc == OTP_ENOSPACE, "%s: no room for NUL: rc %d", what,
		    rc);
		CHECK((unsigned char)out[0] == CANARY, "%s: wrote on error",
		    what);
		return;
	}
	want_rc = parse_error(l->field[2], &wantoff);
	if (want_rc == 0) {
		wl = unit_unhex(l->field[2], want, sizeof(want));
		CHECK(wl >= 0, "%s: bad expected hex", what);
		if (wl < 0)
			return;
		wantlen = (size_t)wl;
	}
	memset(got, CANARY, sizeof(got));
	rc = otp_hex_decode(text, len, got, wantlen, &n, &off);
	CHECK(rc == want_rc, "%s: rc %d, want %d", what, rc, want_rc);
	if (want_rc == 0)
		CHECK(n == wantlen && memcmp(got, want, n) == 0,
		    "%s: bytes differ", what);
	else
		CHECK(off == wantoff && got[0] == CANARY,
		    "%s: offset %zu, want %zu", what, off, wantoff);
	CHECK(got[wantlen] == CANARY, "%s: overrun", what);
	if (want_rc == 0 && wantlen > 0) {
		memset(got, CANARY, sizeof(got));
		rc = otp_hex_decode(text, len, got, wantlen - 1, &n, NULL);
		CHECK(rc == OTP_ENOSPACE && n == wantlen &&
		    got[wantlen - 1] == CANARY, "%s: short buffer", what);
	}
}

/* xorshift64*: reproducible pseudo-random data. */
static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t
rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dULL;
}

/* Encode random bytes every way, decode them back strictly, leniently
 * after mangling (case, separators) and through random chunkings. */
static void
roundtrips(void)
{
	static const int encflags[] = {
		0, OTP_B32_NOPAD, OTP_B32_HEXALPHA,
		OTP_B32_HEXALPHA | OTP_B32_NOPAD,
	};
	static const char seps[] = " \t\n\r-";
	uint8_t in[300], out[400];
	char enc[600], mangled[1500];
	size_t len, i, j, m, n, chunks[3];
	uint64_t off;
	int f, rc, fails = 0;

	for (len = 0; len < sizeof(in); len++) {
		for (i = 0; i < len; i++)
			in[i] = (uint8_t)rnd();
		for (f = 0; f < 4; f++) {
			int flags = encflags[f];
			size_t off2;

			rc = otp_b32_encode(in, len, enc, sizeof(enc), flags);
			if (rc < 0 || (size_t)rc != otp_b32_encoded_len(len,
			    flags)) {
				fails++;
				continue;
			}
			rc = otp_b32_decode(enc, strlen(enc), out, len, &n,
			    flags | OTP_B32_STRICT, &off2);
			if (rc != 0 || n != len || memcmp(in, out, len) != 0)
				fails++;
			/* lower case, separators sprinkled in */
			for (i = m = 0; enc[i] != '\0'; i++) {
				char c = enc[i];

				if (rnd() % 4 == 0)
					mangled[m++] = seps[rnd() % 5];
				if (c >= 'A' && c <= 'Z' && rnd() % 2)
					c = (char)(c - 'A' + 'a');
				mangled[m++] = c;
			}
			rc = otp_b32_decode(mangled, m, out, len, &n,
			    flags & OTP_B32_HEXALPHA, &off2);
			if (rc != 0 || n != len || memcmp(in, out, len) != 0)
				fails++;
			for (j = 0; j < 3; j++)
				chunks[j] = 1 + rnd() % 20;
			rc = stream_decode(mangled, m, flags &
			    OTP_B32_HEXALPHA, chunks, 3, out, &n, &off);
			if (rc != 0 || n != len || memcmp(in, out, len) != 0)
				fails++;
		}
		rc = otp_hex_encode(in, len, enc, sizeof(enc));
		if (rc != 0 || strlen(enc) != 2 * len)
			fails++;
		rc = otp_hex_decode(enc, 2 * len, out, len, &n, NULL);
		if (rc != 0 || n != len || memcmp(in, out, len) != 0)
			fails++;
	}
	CHECK(fails == 0, "round trips: %d failures", fails);
}

/* Random text over characters that matter: the streaming decoder must
 * give the whole-buffer decoder's bytes, error and offset. */
static void
stream_vs_whole(void)
{
	static const char chars[] = "AMZ27am=-= \n!08";
	char text[64];
	uint8_t a[64], b[64 + 8];
	size_t len, i, na, nb, offa, chunks[3];
	uint64_t offb;
	int k, flags, ra, rb, fails = 0, ok = 0;

	for (k = 0; k < 200000; k++) {
		len = rnd() % sizeof(text);
		for (i = 0; i < len; i++)
			text[i] = chars[rnd() % (sizeof(chars) - 1)];
		flags = (int)(rnd() % 8);
		for (i = 0; i < 3; i++)
			chunks[i] = 1 + rnd() % 10;
		offa = offb = 0;
		ra = otp_b32_decode(text, len, a, sizeof(a), &na, flags, &offa);
		rb = stream_decode(text, len, flags, chunks, 3, b, &nb, &offb);
		if (ra != rb || (ra == 0 && (na != nb ||
		    memcmp(a, b, na) != 0)) || (ra != 0 && offa != offb))
			fails++;
		ok += ra == 0;
	}
	CHECK(fails == 0, "stream vs whole: %d differ", fails);
	CHECK(ok > 1000, "stream vs whole: only %d valid inputs", ok);
}

static void
limits(void)
{
	char c[4];
	uint8_t b[4];
	size_t n;

	CHECK(otp_b32_encoded_len(SIZE_MAX, 0) == SIZE_MAX, "len overflow");
	CHECK(otp_b32_encoded_len(SIZE_MAX / 8, OTP_B32_NOPAD) != SIZE_MAX,
	    "len of a large but possible size");
	CHECK(otp_hex_encode(b, SIZE_MAX / 2 + 1, c, sizeof(c)) ==
	    OTP_ENOSPACE, "hex encode overflow");
	CHECK(otp_b32_encode(b, SIZE_MAX, c, sizeof(c), 0) == OTP_ENOSPACE,
	    "b32 encode overflow");
	/* A zero-sized output and an empty input are fine. */
	CHECK(otp_b32_decode("", 0, NULL, 0, &n, 0, NULL) == 0 && n == 0,
	    "empty decode");
	CHECK(otp_b32_decode("MY", 2, NULL, 0, &n, 0, NULL) ==
	    OTP_ENOSPACE && n == 1, "decode into nothing");
	CHECK(otp_hex_decode("", 0, NULL, 0, &n, NULL) == 0 && n == 0,
	    "empty hex decode");
}

int
main(int argc, char *argv[])
{
	const char *dir = argc > 1 ? argv[1] : "tests/vectors";

	unit_vectors(dir, "base32.txt", b32_case, NULL);
	unit_vectors(dir, "hex.txt", hex_case, NULL);
	roundtrips();
	stream_vs_whole();
	limits();
	return unit_done();
}

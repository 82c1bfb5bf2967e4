/*
 * test-base64.c - standard base64 (RFC 4648 §4) against the vectors in
 * tests/vectors/migration-base64.txt: the encoder, the decoder over a
 * whole text, and the same decoder fed the text in every split, which
 * is how the migration URI layer feeds it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otp.h"
#include "unit.h"

#define BINMAX	256
#define TEXTMAX	512

/* The decoder fed in[0..cut) and in[cut..n) as two pieces, out of place
 * as a caller does it. */
static int
decode_split(const char *in, size_t n, size_t cut, uint8_t *out,
    size_t outsz, size_t *outlen, size_t *erroff)
{
	struct otp_b64_decoder d;
	size_t a = 0, b = 0, c = 0;
	int r;

	otp_b64_decoder_init(&d);
	if ((r = otp_b64_decoder_update(&d, in, cut, out, outsz, &a,
	    erroff)) != 0)
		return r;
	if ((r = otp_b64_decoder_update(&d, in + cut, n - cut, out + a,
	    outsz - a, &b, erroff)) != 0) {
		*erroff += cut;
		return r;
	}
	*erroff = n;
	if ((r = otp_b64_decoder_final(&d, out + a + b, outsz - a - b,
	    &c)) != 0)
		return r;
	*outlen = a + b + c;
	return 0;
}

/* Every split gives what the whole text gives: bytes, error, offset. */
static void
check_splits(const struct unit_line *l, const char *in, size_t n)
{
	uint8_t whole[BINMAX], part[BINMAX];
	size_t wn = 0, woff = 0, cut;
	int wr;

	wr = otp_b64_decode(in, n, whole, sizeof(whole), &wn, &woff);
	for (cut = 0; cut <= n; cut++) {
		size_t pn = 0, poff = 0;
		int pr;

		pr = decode_split(in, n, cut, part, sizeof(part), &pn, &poff);
		unit_check(pr == wr && (wr != 0 ? poff == woff :
		    pn == wn && memcmp(part, whole, wn) == 0), l->file,
		    (int)l->lineno, "split at %zu: %d at %zu, whole %d at %zu",
		    cut, pr, poff, wr, woff);
	}
}

/* "enc | hex | text" and "dec | text | hex or OTP_EXXX@tN". */
static void
b64_case(const struct unit_line *l, void *arg)
{
	uint8_t bin[BINMAX], got[BINMAX];
	char text[TEXTMAX], in[TEXTMAX];
	const char *s, *at;
	size_t n = 0, off = 0, k = 0;
	long bn;
	int r;

	(void)arg;
	if (l->nfields != 3) {
		CHECK(0, "%s:%u: want 3 fields", l->file, l->lineno);
		return;
	}
	if (strcmp(l->field[0], "enc") == 0) {
		bn = strcmp(l->field[1], "-") == 0 ? 0 :
		    unit_unhex(l->field[1], bin, sizeof(bin));
		r = otp_b64_encode(bin, (size_t)bn, text, sizeof(text));
		unit_check(r >= 0 && strcmp(text, l->field[2]) == 0 &&
		    (size_t)r == strlen(l->field[2]) &&
		    (size_t)r == otp_b64_encoded_len((size_t)bn),
		    l->file, (int)l->lineno, "encode got %d \"%s\"", r,
		    r >= 0 ? text : "");
		/* and back */
		r = otp_b64_decode(text, strlen(text), got, sizeof(got), &n,
		    &off);
		unit_check(r == 0 && n == (size_t)bn &&
		    memcmp(got, bin, n) == 0, l->file, (int)l->lineno,
		    "decode of encoded: %d", r);
		return;
	}
	/* A "_" alone stands for the empty text; "\s" for a space. */
	s = strcmp(l->field[1], "_") == 0 ? "" : l->field[1];
	for (; *s != '\0' && k + 1 < sizeof(in); s++) {
		if (s[0] == '\\' && s[1] == 's') {
			in[k++] = ' ';
			s++;
		} else
			in[k++] = *s;
	}
	in[k] = '\0';
	r = otp_b64_decode(in, k, got, sizeof(got), &n, &off);
	check_splits(l, in, k);
	if ((at = strchr(l->field[2], '@')) != NULL) {
		char name[64];
		size_t nl = (size_t)(at - l->field[2]);

		if (nl >= sizeof(name) || nl < 4 || at[1] != 't') {
			CHECK(0, "%s:%u: bad result", l->file, l->lineno);
			return;
		}
		memcpy(name, l->field[2], nl);
		name[nl] = '\0';
		unit_check(r == unit_errcode(name + 4) &&
		    off == strtoul(at + 2, NULL, 10), l->file,
		    (int)l->lineno, "got %d at %zu, want %s", r, off,
		    l->field[2]);
		return;
	}
	bn = strcmp(l->field[2], "-") == 0 ? 0 :
	    unit_unhex(l->field[2], bin, sizeof(bin));
	unit_check(r == 0 && n == (size_t)bn && memcmp(got, bin, n) == 0,
	    l->file, (int)l->lineno, "decode got %d, %zu bytes", r, n);
}

static void
test_bounds(void)
{
	uint8_t big[16];
	char small[8];
	size_t n, i;

	CHECK(otp_b64_encode((const uint8_t *)"abc", 3, small, 4) ==
	    OTP_ENOSPACE, "encode without room for NUL");
	CHECK(otp_b64_encode((const uint8_t *)"abc", 3, small, 5) == 4,
	    "encode exact room");
	CHECK(otp_b64_decode("Zm9vYmFy", 8, (uint8_t *)small, 5, &n, &i) ==
	    OTP_ENOSPACE, "decode into 5");
	CHECK(otp_b64_decode("Zm9vYg", 6, (uint8_t *)small, 3, &n, &i) ==
	    OTP_ENOSPACE, "decode tail into 3");

	/* no partial result: what was decoded before an error is wiped */
	memset(big, 0xaa, sizeof(big));
	CHECK(otp_b64_decode("Zm9vYmFy!", 9, big, 16, &n, &i) == OTP_EBASE64 &&
	    i == 8, "error at 8");
	CHECK(big[0] == 0 && big[5] == 0 && big[6] == 0xaa,
	    "output wiped after an error");
	memset(big, 0xaa, sizeof(big));
	CHECK(otp_b64_decode("Zm9vY", 5, big, 16, &n, &i) == OTP_EBASE64 &&
	    i == 5, "truncated end at 5");
	CHECK(big[0] == 0 && big[2] == 0 && big[3] == 0xaa,
	    "output wiped after a truncated end");
}

int
main(int argc, char *argv[])
{
	const char *dir = argc > 1 ? argv[1] : "tests/vectors";

	CHECK(unit_vectors(dir, "migration-base64.txt", b64_case, NULL) > 20,
	    "migration-base64.txt cases");
	test_bounds();
	return unit_done();
}

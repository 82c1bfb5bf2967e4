/*
 * test-seal.c - secrets at rest (lib/seal.c): the derived keys, keyed
 * hashes and seals recorded by a second implementation
 * (tests/vectors/seal-gen.py: Python's hmac, python3-cryptography's
 * ChaCha20-Poly1305), every byte of a seal guarding it, the key file's
 * text, and the state-image edits a database store makes
 * (otp_state_unscratch, otp_state_add_scratch, otp_state_set_option).
 */
#include <stdio.h>
#include <string.h>

#include "otp.h"
#include "otp_seal.h"
#include "otp_state.h"
#include "unit.h"

static uint8_t buf[4][1024];

static void
keys_of(const char *hex, struct otp_seal_keys *k)
{
	uint8_t master[OTP_SEAL_KEYLEN];

	CHECK(unit_unhex(hex, master, sizeof(master)) == OTP_SEAL_KEYLEN,
	    "master key");
	otp_seal_keys_init(k, master);
}

static void
seal_case(const struct unit_line *l, void *arg)
{
	struct otp_seal_keys k;
	long n, adn, ptn, want;
	size_t len = 0, i;
	const uint8_t *field;

	(void)arg;
	keys_of(l->field[1], &k);
	if (strcmp(l->field[0], "derive") == 0) {
		want = unit_unhex(l->field[3], buf[0], sizeof(buf[0]));
		field = strcmp(l->field[2], "aead") == 0 ? k.aead :
		    strcmp(l->field[2], "hash") == 0 ? k.hash : k.check;
		CHECK(want == 32 && memcmp(field, buf[0], 32) == 0,
		    "%s:%u: derived %s", l->file, l->lineno, l->field[2]);
	} else if (strcmp(l->field[0], "hash") == 0) {
		adn = unit_unhex(l->field[2], buf[0], sizeof(buf[0]));
		ptn = unit_unhex(l->field[3], buf[1], sizeof(buf[1]));
		want = unit_unhex(l->field[4], buf[2], sizeof(buf[2]));
		otp_seal_hash(&k, buf[0], (size_t)adn, buf[1], (size_t)ptn,
		    buf[3]);
		CHECK(want == 32 && memcmp(buf[3], buf[2], 32) == 0,
		    "%s:%u: keyed hash", l->file, l->lineno);
	} else {
		n = unit_unhex(l->field[2], buf[0], sizeof(buf[0]));	/* nonce */
		adn = unit_unhex(l->field[3], buf[1], sizeof(buf[1]));
		ptn = unit_unhex(l->field[4], buf[2], sizeof(buf[2]));
		want = unit_unhex(l->field[5], buf[3], sizeof(buf[3]));
		CHECK(n == OTP_SEAL_NONCELEN && adn >= 0 && ptn >= 0 &&
		    want == ptn + OTP_SEAL_OVERHEAD, "%s:%u: fields", l->file,
		    l->lineno);
		uint8_t out[1024], back[1024];

		CHECK(otp_seal(&k, buf[0], buf[1], (size_t)adn, buf[2],
		    (size_t)ptn, out, sizeof(out), &len) == 0 &&
		    len == (size_t)want && memcmp(out, buf[3], len) == 0,
		    "%s:%u: seal", l->file, l->lineno);
		CHECK(otp_unseal(&k, buf[1], (size_t)adn, out, len, back,
		    sizeof(back), &len) == 0 && len == (size_t)ptn &&
		    memcmp(back, buf[2], len) == 0, "%s:%u: unseal", l->file,
		    l->lineno);
		/* Every byte guards the seal, the associated data too. */
		for (i = 0; i < (size_t)want; i++) {
			out[i] ^= 0x01;
			CHECK(otp_unseal(&k, buf[1], (size_t)adn, out,
			    (size_t)want, back, sizeof(back), &len) ==
			    OTP_ESEALED, "%s:%u: byte %zu flipped", l->file,
			    l->lineno, i);
			out[i] ^= 0x01;
		}
		CHECK(otp_unseal(&k, "x", 1, out, (size_t)want, back,
		    sizeof(back), &len) == OTP_ESEALED, "%s:%u: other ad",
		    l->file, l->lineno);
		CHECK(otp_unseal(&k, buf[1], (size_t)adn, out,
		    OTP_SEAL_OVERHEAD - 1, back, sizeof(back), &len) ==
		    OTP_ESEALED, "%s:%u: short", l->file, l->lineno);
	}
	otp_seal_keys_wipe(&k);
}

static void
test_key_text(void)
{
	uint8_t m[OTP_SEAL_KEYLEN];
	const char *good = "000102030405060708090a0b0c0d0e0f"
	    "101112131415161718191A1B1C1D1E1F";
	char text[80];

	CHECK(otp_seal_key_parse(good, 64, m) == 0 && m[31] == 0x1f,
	    "key text");
	snprintf(text, sizeof(text), "%s\n", good);
	CHECK(otp_seal_key_parse(text, 65, m) == 0, "key text and newline");
	CHECK(otp_seal_key_parse(good, 63, m) == OTP_ESTOREKEY, "short");
	CHECK(otp_seal_key_parse(text, 66, m) == OTP_ESTOREKEY, "long");
	snprintf(text, sizeof(text), "%.62sxx", good);
	CHECK(otp_seal_key_parse(text, 64, m) == OTP_ESTOREKEY, "not hex");
	CHECK(otp_seal_key_parse("", 0, m) == OTP_ESTOREKEY, "empty");
}

static void
test_image_edits(void)
{
	static const char img[] = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ\n"
	    "\" TOTP_AUTH\n12345678\n\" WINDOW_SIZE 3\n87654321\r\n";
	char out[256];
	uint32_t codes[4];
	size_t len, n;

	CHECK(otp_state_unscratch(img, sizeof(img) - 1, out, sizeof(out),
	    &len, codes, 4, &n) == 0 && n == 2 && codes[0] == 12345678 &&
	    codes[1] == 87654321, "unscratch: the codes");
	out[len] = '\0';
	CHECK_EQ_STR(out, "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ\n\" TOTP_AUTH\n"
	    "\" WINDOW_SIZE 3\n", "unscratch: the rest");
	CHECK(otp_state_unscratch(img, sizeof(img) - 1, out, sizeof(out),
	    &len, codes, 1, &n) == OTP_ESTATESIZE, "unscratch: too many");
	CHECK(otp_state_unscratch(img, sizeof(img) - 1, out, sizeof(out),
	    &len, codes, 4, &n) == 0, "again");
	CHECK(otp_state_add_scratch(out, &len, sizeof(out), 55555555) == 0,
	    "add scratch");
	CHECK(otp_state_add_scratch(out, &len, sizeof(out), 5555555) ==
	    OTP_ERANGE, "add scratch: 7 digits");
	CHECK(otp_state_set_option(out, &len, sizeof(out), "DISALLOW_REUSE",
	    "") == 0, "set option");
	out[len] = '\0';
	CHECK_EQ_STR(out, "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ\n"
	    "\" DISALLOW_REUSE \n55555555\n\" TOTP_AUTH\n\" WINDOW_SIZE 3\n",
	    "edited image");
	CHECK(otp_state_add_scratch(out, &len, len + 3, 55555555) ==
	    OTP_ESTATESIZE, "no room");
	len = 5;
	memcpy(out, "ABCDE", 5);
	CHECK(otp_state_add_scratch(out, &len, sizeof(out), 12345678) == 0 &&
	    len == 15 && memcmp(out, "ABCDE\n12345678\n", 15) == 0,
	    "a newline first");
	/* After a line that is no code, a code is no scratch code: the new
	 * one goes before it. */
	len = sizeof("S\n\" TOTP_AUTH\njunk\n") - 1;
	memcpy(out, "S\n\" TOTP_AUTH\njunk\n", len);
	CHECK(otp_state_add_scratch(out, &len, sizeof(out), 12345678) == 0 &&
	    memcmp(out, "S\n12345678\n", 11) == 0, "before the junk");
}

/* The 6-digit code of RFC 4226's key at counter c. */
static void
rfc_code(uint64_t c, char out[8])
{
	static const char key[] = "12345678901234567890";
	struct otp_hmac h;

	otp_hmac_init(&h, OTP_ALG_SHA1, (const uint8_t *)key, 20);
	snprintf(out, 8, "%06u", (unsigned)(otp_hotp_value(&h, c) % 1000000));
	otp_hmac_wipe(&h);
}

static void
test_resync(void)
{
	static const char totp[] = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ\n"
	    "\" TOTP_AUTH\n\" DISALLOW_REUSE \n";
	static const char hotp[] = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ\n"
	    "\" HOTP_COUNTER 1\n";
	const int64_t now = 1234567890, tm = now / 30;
	char a[8], b[8], c[8], out[8192];
	const char *codes[3] = { a, b, c };
	struct otp_state st;
	size_t len;
	int64_t moved;

	/* A phone 100 steps slow. */
	rfc_code((uint64_t)(tm - 100), a);
	rfc_code((uint64_t)(tm - 99), b);
	CHECK(otp_state_resync(totp, sizeof(totp) - 1, codes, 2, now, out,
	    sizeof(out), &len, &moved) == 0 && moved == -99,
	    "resync TOTP: %lld", (long long)moved);
	CHECK(otp_state_parse(out, len, &st) == 0 && st.skew == -99,
	    "TIME_SKEW written");
	out[len] = '\0';
	CHECK(strstr(out, "\" DISALLOW_REUSE 41152163 41152164\n") != NULL,
	    "the steps are used: %s", out);
	/* Not in a row, or nowhere. */
	codes[1] = a;
	CHECK(otp_state_resync(totp, sizeof(totp) - 1, codes, 2, now, out,
	    sizeof(out), &len, &moved) == OTP_ERESYNC, "not in a row");
	codes[1] = b;
	rfc_code((uint64_t)(tm - 5000), a);
	rfc_code((uint64_t)(tm - 4999), b);
	CHECK(otp_state_resync(totp, sizeof(totp) - 1, codes, 2, now, out,
	    sizeof(out), &len, &moved) == OTP_ERESYNC, "beyond a day");
	/* HOTP: the app pressed 500 times more than the server saw. */
	rfc_code(501, a);
	rfc_code(502, b);
	rfc_code(503, c);
	CHECK(otp_state_resync(hotp, sizeof(hotp) - 1, codes, 3, now, out,
	    sizeof(out), &len, &moved) == 0 && moved == 503,
	    "resync HOTP: %lld", (long long)moved);
	CHECK(otp_state_parse(out, len, &st) == 0 && st.hotp_counter == 504,
	    "HOTP_COUNTER past the last code");
	CHECK(otp_state_resync(hotp, sizeof(hotp) - 1, codes, 1, now, out,
	    sizeof(out), &len, &moved) == OTP_EINVAL, "one code");
	codes[0] = "12345";
	CHECK(otp_state_resync(hotp, sizeof(hotp) - 1, codes, 2, now, out,
	    sizeof(out), &len, &moved) == OTP_ECODE, "not a code");
}

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test-seal VECTORDIR\n");
		return 2;
	}
	CHECK(unit_vectors(argv[1], "seal.txt", seal_case, NULL) == 9,
	    "seal.txt");
	test_key_text();
	test_image_edits();
	test_resync();
	return unit_done();
}

/*
 * test-hotp.c - HOTP, TOTP, Steam Guard and Mobile-OTP against the
 * known-answer vectors in tests/vectors/.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nettle/hmac.h>
#include <nettle/md5.h>

#include "otp.h"
#include "unit.h"

static void
hotp_case(const struct unit_line *l, void *arg)
{
	struct otp_hmac h;
	enum otp_alg alg;
	uint8_t key[OTP_KEY_MAX];
	uint64_t counter, digits;
	char code[OTP_CODE_MAX];
	long n;

	(void)arg;
	CHECK(l->nfields == 5, "%s:%u: want 5 fields", l->file, l->lineno);
	if (l->nfields != 5)
		return;
	CHECK(otp_alg_parse(l->field[0], &alg) == 0, "alg %s", l->field[0]);
	n = unit_unhex(l->field[1], key, sizeof(key));
	CHECK(n > 0, "%s:%u: key", l->file, l->lineno);
	CHECK(otp_parse_u64(l->field[2], 0, UINT64_MAX, &counter) == 0,
	    "counter");
	CHECK(otp_parse_u64(l->field[3], 6, 10, &digits) == 0, "digits");
	CHECK(otp_hmac_init(&h, alg, key, (size_t)n) == 0, "init");
	CHECK(otp_code_decimal(otp_hotp_value(&h, counter), (unsigned)digits,
	    code, sizeof(code)) == 0, "format");
	unit_check(strcmp(code, l->field[4]) == 0, l->file, (int)l->lineno,
	    "HOTP got %s, want %s", code, l->field[4]);
	/* The same counter in the middle of a batch. */
	if (counter >= 3 && counter <= UINT64_MAX - 3) {
		uint32_t v[7];

		otp_hotp_values(&h, counter - 3, v, 7);
		otp_code_decimal(v[3], (unsigned)digits, code, sizeof(code));
		unit_check(strcmp(code, l->field[4]) == 0, l->file,
		    (int)l->lineno, "batch got %s, want %s", code,
		    l->field[4]);
	}
	otp_hmac_wipe(&h);
}

/* otp_hotp_values agrees with otp_hotp_value counter by counter, for each
 * algorithm, across batch sizes, and up to the last counter. */
static void
batches(void)
{
	static const enum otp_alg algs[] = { OTP_ALG_SHA1, OTP_ALG_SHA256,
	    OTP_ALG_SHA512 };
	static const uint64_t firsts[] = { 0, 255, 1234567, UINT64_MAX - 299 };
	static const size_t sizes[] = { 1, 2, 64, 300 };
	struct otp_hmac h;
	uint8_t key[37];
	uint32_t v[300];
	size_t a, f, z, i;

	for (i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)(i * 37 + 11);
	for (a = 0; a < 3; a++) {
		CHECK(otp_hmac_init(&h, algs[a], key, sizeof(key)) == 0,
		    "init");
		for (f = 0; f < 4; f++) {
			for (z = 0; z < 4; z++) {
				otp_hotp_values(&h, firsts[f], v, sizes[z]);
				for (i = 0; i < sizes[z]; i++)
					CHECK(v[i] == otp_hotp_value(&h,
					    firsts[f] + i),
					    "alg %zu first %zu size %zu at %zu",
					    a, f, z, i);
			}
		}
		otp_hmac_wipe(&h);
	}
}

static void
totp_case(const struct unit_line *l, void *arg)
{
	struct otp_hmac h;
	enum otp_alg alg;
	uint8_t key[OTP_KEY_MAX];
	uint64_t t, step, start, digits, counter = 0;
	char code[OTP_CODE_MAX];
	long n;

	(void)arg;
	CHECK(l->nfields == 7, "%s:%u: want 7 fields", l->file, l->lineno);
	if (l->nfields != 7)
		return;
	CHECK(otp_alg_parse(l->field[0], &alg) == 0, "alg %s", l->field[0]);
	n = unit_unhex(l->field[1], key, sizeof(key));
	CHECK(otp_parse_u64(l->field[2], 0, INT64_MAX, &t) == 0, "time");
	CHECK(otp_parse_u64(l->field[3], 1, UINT64_MAX, &step) == 0, "step");
	CHECK(otp_parse_u64(l->field[4], 0, INT64_MAX, &start) == 0, "start");
	CHECK(otp_parse_u64(l->field[5], 6, 10, &digits) == 0, "digits");
	CHECK(otp_totp_counter((int64_t)t, (int64_t)start, step, &counter) == 0,
	    "counter");
	CHECK(otp_hmac_init(&h, alg, key, (size_t)n) == 0, "init");
	otp_code_decimal(otp_hotp_value(&h, counter), (unsigned)digits, code,
	    sizeof(code));
	unit_check(strcmp(code, l->field[6]) == 0, l->file, (int)l->lineno,
	    "TOTP got %s, want %s", code, l->field[6]);
	otp_hmac_wipe(&h);
}

static void
steam_case(const struct unit_line *l, void *arg)
{
	struct otp_hmac h;
	uint8_t key[OTP_KEY_MAX];
	uint64_t t, counter = 0;
	char code[6];
	long n;

	(void)arg;
	n = unit_unhex(l->field[0], key, sizeof(key));
	CHECK(otp_parse_u64(l->field[1], 0, INT64_MAX, &t) == 0, "time");
	otp_totp_counter((int64_t)t, 0, 30, &counter);
	CHECK(otp_hmac_init(&h, OTP_ALG_SHA1, key, (size_t)n) == 0, "init");
	otp_code_steam(otp_hotp_value(&h, counter), code);
	unit_check(strcmp(code, l->field[2]) == 0, l->file, (int)l->lineno,
	    "Steam got %s, want %s", code, l->field[2]);
}

static void
motp_case(const struct unit_line *l, void *arg)
{
	uint64_t t;
	char code[7];

	(void)arg;
	CHECK(otp_parse_u64(l->field[2], 0, INT64_MAX, &t) == 0, "time");
	CHECK(otp_motp(l->field[0], strlen(l->field[0]), l->field[1],
	    (int64_t)t, code) == 0, "motp");
	unit_check(strcmp(code, l->field[3]) == 0, l->file, (int)l->lineno,
	    "mOTP got %s, want %s", code, l->field[3]);
}

static void
edges(void)
{
	struct otp_hmac h;
	enum otp_alg alg;
	uint64_t c;
	char code[OTP_CODE_MAX];
	uint8_t big[OTP_KEY_MAX + 1] = { 0 };

	CHECK_EQ_INT(otp_hmac_init(&h, OTP_ALG_SHA1, big, 0), OTP_EKEYEMPTY,
	    "empty key");
	CHECK_EQ_INT(otp_hmac_init(&h, OTP_ALG_SHA1, big, sizeof(big)),
	    OTP_EKEYLONG, "long key");
	CHECK_EQ_INT(otp_hmac_init(&h, OTP_ALG_SHA1, big, OTP_KEY_MAX), 0,
	    "longest key");
	CHECK_EQ_INT(otp_code_decimal(1, 5, code, sizeof(code)), OTP_EDIGITS,
	    "5 digits");
	CHECK_EQ_INT(otp_code_decimal(1, 11, code, sizeof(code)), OTP_EDIGITS,
	    "11 digits");
	CHECK_EQ_INT(otp_code_decimal(1, 8, code, 8), OTP_ENOSPACE, "space");
	CHECK_EQ_INT(otp_code_decimal(0x7fffffff, 10, code, sizeof(code)), 0,
	    "10 digits");
	CHECK_EQ_STR(code, "2147483647", "largest 10-digit code");
	CHECK_EQ_INT(otp_totp_counter(59, 60, 30, &c), OTP_EBEFORESTART,
	    "before start");
	CHECK_EQ_INT(otp_totp_counter(59, 0, 0, &c), OTP_ESTEP, "step 0");
	CHECK_EQ_INT(otp_totp_counter(INT64_MAX, INT64_MIN, 1, &c), 0,
	    "widest span");
	CHECK(c == UINT64_MAX, "widest span value");
	CHECK_EQ_INT(otp_totp_counter(-1, -61, 30, &c), 0, "negative times");
	CHECK_EQ_INT(c, 2, "negative times value");
	CHECK_EQ_INT(otp_alg_parse("sha256", &alg), 0, "lower case");
	CHECK_EQ_INT(alg, OTP_ALG_SHA256, "sha256");
	CHECK_EQ_INT(otp_alg_parse("SHA-512", &alg), 0, "dash");
	CHECK_EQ_INT(alg, OTP_ALG_SHA512, "SHA-512");
	CHECK_EQ_INT(otp_alg_parse("MD5", &alg), OTP_EALG, "MD5");
	CHECK_EQ_INT(otp_alg_parse("", &alg), OTP_EALG, "empty");
	CHECK_EQ_STR(otp_alg_name(OTP_ALG_SHA512), "SHA512", "name");
	CHECK(strcmp(otp_strerror(OTP_EDIGITS), "unknown error") != 0,
	    "strerror");
	CHECK_EQ_STR(otp_strerror(12345), "unknown error", "unknown code");
	CHECK_EQ_INT(otp_ct_equal("abc", "abc", 3), 1, "ct equal");
	CHECK_EQ_INT(otp_ct_equal("abc", "abd", 3), 0, "ct differ");
	CHECK_EQ_INT(otp_parse_u64("18446744073709551616", 0, UINT64_MAX, &c),
	    OTP_ERANGE, "u64 overflow");
	CHECK_EQ_INT(otp_parse_u64("-1", 0, UINT64_MAX, &c), OTP_EINVAL,
	    "u64 negative");
	CHECK_EQ_INT(otp_parse_u64("0x10", 0, UINT64_MAX, &c), OTP_EINVAL,
	    "u64 hex");
	CHECK_EQ_INT(otp_parse_u64("010", 0, UINT64_MAX, &c), 0, "u64 octal");
	CHECK_EQ_INT(c, 10, "leading zero is decimal");
}

/* The HOTP value of msg by nettle's own HMAC functions, truncated as
 * RFC 4226 §5.3 says: the reference for the key schedule made here. */
static uint32_t
ref_value(enum otp_alg alg, const uint8_t *key, size_t len,
    const uint8_t msg[8])
{
	struct hmac_sha1_ctx s1;
	struct hmac_sha256_ctx s256;
	struct hmac_sha512_ctx s512;
	uint8_t mac[SHA512_DIGEST_SIZE];
	const uint8_t *p;
	size_t n = SHA512_DIGEST_SIZE;
	uint32_t v = 0;
	int i;

	if (alg == OTP_ALG_SHA1) {
		hmac_sha1_set_key(&s1, len, key);
		hmac_sha1_update(&s1, 8, msg);
		hmac_sha1_digest(&s1, n = SHA1_DIGEST_SIZE, mac);
	} else if (alg == OTP_ALG_SHA256) {
		hmac_sha256_set_key(&s256, len, key);
		hmac_sha256_update(&s256, 8, msg);
		hmac_sha256_digest(&s256, n = SHA256_DIGEST_SIZE, mac);
	} else {
		hmac_sha512_set_key(&s512, len, key);
		hmac_sha512_update(&s512, 8, msg);
		hmac_sha512_digest(&s512, n, mac);
	}
	p = mac + (mac[n - 1] & 0x0f);
	for (i = 0; i < 4; i++)
		v = v << 8 | p[i];
	return v & 0x7fffffff;
}

/* Every key length from 1 to OTP_KEY_MAX (short, one block, hashed
 * first) gives the value nettle's own HMAC gives: the key schedule is
 * made here, not by nettle. */
static void
key_lengths(void)
{
	static const enum otp_alg algs[] = { OTP_ALG_SHA1, OTP_ALG_SHA256,
	    OTP_ALG_SHA512 };
	static const uint64_t counters[] = { 0, 1, 0x0123456789abcdefULL,
	    UINT64_MAX };
	struct otp_hmac h;
	uint8_t key[OTP_KEY_MAX], msg[8];
	size_t len, i, a, c;

	for (len = 1; len <= OTP_KEY_MAX; len++) {
		for (i = 0; i < len; i++)
			key[i] = (uint8_t)(i * 37 + len);
		for (a = 0; a < sizeof(algs) / sizeof(algs[0]); a++) {
			otp_hmac_init(&h, algs[a], key, len);
			for (c = 0; c < sizeof(counters) / sizeof(counters[0]);
			    c++) {
				for (i = 0; i < 8; i++)
					msg[i] = (uint8_t)(counters[c] >>
					    (56 - 8 * i));
				CHECK(otp_hotp_value(&h, counters[c]) ==
				    ref_value(algs[a], key, len, msg),
				    "%s, %zu-byte key, counter %zu",
				    otp_alg_name(algs[a]), len, c);
			}
		}
	}
	otp_hmac_wipe(&h);
}

/* Mobile-OTP hashes floor(t / 10) as decimal text: negative times, the
 * ends of int64 and each digit count give what printf's text gives. */
static void
motp_times(void)
{
	static const int64_t times[] = { 0, 9, 10, 99, 100, -1, -9, -10, -11,
	    165892298, 1234567890123, INT64_MAX, INT64_MIN, INT64_MIN + 9 };
	static const char secret[] = "e3152afee62599c8", pin[] = "1234";
	struct md5_ctx md5;
	uint8_t d[MD5_DIGEST_SIZE];
	char text[32], want[7], got[7];
	int64_t tens;
	size_t i;
	int n;

	for (i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		tens = times[i] / 10 - (times[i] % 10 < 0);
		n = snprintf(text, sizeof(text), "%lld", (long long)tens);
		md5_init(&md5);
		md5_update(&md5, (size_t)n, (const uint8_t *)text);
		md5_update(&md5, strlen(secret), (const uint8_t *)secret);
		md5_update(&md5, strlen(pin), (const uint8_t *)pin);
		md5_digest(&md5, sizeof(d), d);
		snprintf(want, sizeof(want), "%02x%02x%02x", d[0], d[1], d[2]);
		CHECK(otp_motp(secret, strlen(secret), pin, times[i], got) == 0,
		    "motp at %lld", (long long)times[i]);
		CHECK(strcmp(got, want) == 0, "motp at %lld: got %s, want %s",
		    (long long)times[i], got, want);
	}
}

int
main(int argc, char *argv[])
{
	const char *dir = argc > 1 ? argv[1] : "tests/vectors";

	unit_vectors(dir, "hotp.txt", hotp_case, NULL);
	unit_vectors(dir, "totp.txt", totp_case, NULL);
	unit_vectors(dir, "steam.txt", steam_case, NULL);
	unit_vectors(dir, "motp.txt", motp_case, NULL);
	edges();
	batches();
	key_lengths();
	motp_times();
	return unit_done();
}

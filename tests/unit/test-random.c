/*
 * test-random.c - keys and scratch codes: the pure mapping against fixed
 * words, set building over a scripted source, and statistical sanity of
 * the kernel-backed generators with bounds that fail by chance less than
 * once in 10^9 runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otp.h"
#include "sys.h"
#include "unit.h"

/* Chi-square quantiles at p = 1e-9 (upper, and lower where checked). */
#define CHI2_DF8_HI	58.31
#define CHI2_DF9_HI	60.67
#define CHI2_DF255_LO	141.9
#define CHI2_DF255_HI	414.6

#define NKEYS		20000
#define NSETS		2000	/* of OTP_SCRATCH_SETMAX codes each */

/* Known answers of otp_scratch_map: the range is 90000000 codes and
 * 2^32 = 47 * 90000000 + 64967296, so words from 4230000000 up are
 * rejected and every code has exactly 47 words. */
static const struct {
	uint32_t word, code;
} map_vectors[] = {
	{ 0u, 10000000u },
	{ 1u, 10000001u },
	{ 89999999u, 99999999u },
	{ 90000000u, 10000000u },
	{ 123456789u, 43456789u },
	{ 4229999999u, 99999999u },	/* last accepted word */
	{ 4230000000u, 0u },		/* first rejected word */
	{ 4294967295u, 0u },
};

/* A scripted word source: the words in order, then OTP_EIO. */
struct script {
	const uint32_t	*word;
	size_t		 n, used;
};

static int
script_word(void *arg, uint32_t *word)
{
	struct script *s = arg;

	if (s->used == s->n)
		return OTP_EIO;
	*word = s->word[s->used++];
	return 0;
}

static int
constant_word(void *arg, uint32_t *word)
{
	(void)arg;
	*word = 42;
	return 0;
}

static int
all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != 0)
			return 0;
	return 1;
}

static void
mapping(void)
{
	size_t i;

	for (i = 0; i < sizeof(map_vectors) / sizeof(map_vectors[0]); i++)
		unit_check(otp_scratch_map(map_vectors[i].word) ==
		    map_vectors[i].code, __FILE__, __LINE__,
		    "map(%u): got %u, want %u", map_vectors[i].word,
		    otp_scratch_map(map_vectors[i].word), map_vectors[i].code);
	CHECK(4230000000ULL % (OTP_SCRATCH_HI - OTP_SCRATCH_LO + 1) == 0,
	    "rejection limit is a whole multiple of the range");
	CHECK(0x100000000ULL - 4230000000ULL <
	    OTP_SCRATCH_HI - OTP_SCRATCH_LO + 1,
	    "rejection limit is the largest such multiple");
}

static void
scripted_sets(void)
{
	/* reject, code, the same code again, reject, another code */
	static const uint32_t words[] = {
		4230000000u, 5u, 90000005u, 4294967295u, 7u, 9u,
	};
	struct script s = { words, sizeof(words) / sizeof(words[0]), 0 };
	uint32_t codes[OTP_SCRATCH_SETMAX + 1];
	int rc;

	/* CHECK_EQ_INT evaluates its arguments twice: calls go first. */
	rc = otp_scratch_codes_from(codes, 2, script_word, &s);
	CHECK_EQ_INT(rc, 0, "scripted set");
	CHECK_EQ_INT(codes[0], 10000005u, "first code");
	CHECK_EQ_INT(codes[1], 10000007u, "duplicate and rejects skipped");
	CHECK_EQ_INT(s.used, 5, "words drawn");

	s.used = 0;
	rc = otp_scratch_codes_from(codes, 0, script_word, &s);
	CHECK_EQ_INT(rc, 0, "empty set");
	CHECK_EQ_INT(s.used, 0, "empty set draws nothing");

	/* The source runs dry after three distinct codes. */
	s.used = 0;
	memset(codes, 0xff, sizeof(codes));
	rc = otp_scratch_codes_from(codes, 4, script_word, &s);
	CHECK_EQ_INT(rc, OTP_EIO, "source error is returned");
	CHECK(all_zero(codes, 4 * sizeof(codes[0])),
	    "codes wiped after a source error");

	rc = otp_scratch_codes_from(codes, 1, constant_word, NULL);
	CHECK_EQ_INT(rc, 0, "one code from a constant source");
	CHECK_EQ_INT(codes[0], 10000042u, "constant source code");
	rc = otp_scratch_codes_from(codes, 2, constant_word, NULL);
	CHECK_EQ_INT(rc, OTP_EIO, "a stuck source is an error, not a hang");
	CHECK(all_zero(codes, 2 * sizeof(codes[0])),
	    "codes wiped after a stuck source");

	rc = otp_scratch_codes_from(codes, OTP_SCRATCH_SETMAX + 1,
	    constant_word, NULL);
	CHECK_EQ_INT(rc, OTP_ERANGE, "set too large");
	rc = sys_scratch_codes(codes, OTP_SCRATCH_SETMAX + 1);
	CHECK_EQ_INT(rc, OTP_ERANGE, "kernel set too large");
}

static void
key_ranges(void)
{
	struct otp_key a, b;
	static uint8_t big[1 << 20];
	int rc;

	a.len = 99;
	rc = sys_keygen(&a, OTP_KEYGEN_MIN - 1);
	CHECK_EQ_INT(rc, OTP_ERANGE, "15");
	CHECK_EQ_INT(a.len, 0, "no length after a refusal");
	rc = sys_keygen(&a, OTP_KEYGEN_MAX + 1);
	CHECK_EQ_INT(rc, OTP_ERANGE, "65");
	rc = sys_keygen(&a, 0);
	CHECK_EQ_INT(rc, OTP_ERANGE, "0");
	rc = sys_keygen(&a, OTP_KEYGEN_MIN);
	CHECK_EQ_INT(rc, 0, "16");
	CHECK_EQ_INT(a.len, OTP_KEYGEN_MIN, "16 bytes");
	rc = sys_keygen(&a, OTP_KEYGEN_MAX);
	CHECK_EQ_INT(rc, 0, "64");
	CHECK_EQ_INT(a.len, OTP_KEYGEN_MAX, "64 bytes");
	rc = sys_keygen(&b, OTP_KEYGEN_MAX);
	CHECK_EQ_INT(rc, 0, "64 again");
	CHECK(memcmp(a.buf, b.buf, OTP_KEYGEN_MAX) != 0, "two keys differ");
	rc = sys_random_bytes(big, 0);
	CHECK_EQ_INT(rc, 0, "zero bytes");
	/* Larger than one getrandom(2) call may return in one go. */
	memset(big, 0, sizeof(big));
	rc = sys_random_bytes(big, sizeof(big));
	CHECK_EQ_INT(rc, 0, "1 MiB");
	CHECK(!all_zero(big + sizeof(big) - 4096, 4096), "tail filled");
	otp_wipe(&a, sizeof(a));
	otp_wipe(&b, sizeof(b));
}

static int
cmp_key(const void *a, const void *b)
{
	return memcmp(a, b, OTP_KEYGEN_DEFAULT);
}

/* Pearson's statistic of counts n[0..k) against equal expectations. */
static double
chi2(const unsigned long *n, size_t k)
{
	unsigned long total = 0;
	double e, x = 0;
	size_t i;

	for (i = 0; i < k; i++)
		total += n[i];
	e = (double)total / (double)k;
	for (i = 0; i < k; i++)
		x += ((double)n[i] - e) * ((double)n[i] - e) / e;
	return x;
}

static void
key_statistics(void)
{
	static uint8_t keys[NKEYS][OTP_KEYGEN_DEFAULT];
	unsigned long bytes[256] = { 0 };
	struct otp_key k;
	size_t i, j, repeats = 0;
	double x;

	for (i = 0; i < NKEYS; i++) {
		if (sys_keygen(&k, OTP_KEYGEN_DEFAULT) != 0) {
			CHECK(0, "keygen failed at key %zu", i);
			return;
		}
		memcpy(keys[i], k.buf, OTP_KEYGEN_DEFAULT);
		for (j = 0; j < OTP_KEYGEN_DEFAULT; j++)
			bytes[k.buf[j]]++;
	}
	otp_wipe(&k, sizeof(k));
	qsort(keys, NKEYS, sizeof(keys[0]), cmp_key);
	for (i = 1; i < NKEYS; i++)
		if (memcmp(keys[i - 1], keys[i], OTP_KEYGEN_DEFAULT) == 0)
			repeats++;
	CHECK_EQ_INT(repeats, 0, "repeated keys in 20000");
	x = chi2(bytes, 256);
	CHECK(x > CHI2_DF255_LO && x < CHI2_DF255_HI,
	    "key byte values: chi-square %.1f outside (%.1f, %.1f)", x,
	    CHI2_DF255_LO, CHI2_DF255_HI);
	otp_wipe(keys, sizeof(keys));
}

static void
scratch_statistics(void)
{
	uint32_t codes[OTP_SCRATCH_SETMAX];
	unsigned long digit[8][10];
	size_t set, i, j, bad = 0, dups = 0;
	double x;

	memset(digit, 0, sizeof(digit));
	for (set = 0; set < NSETS; set++) {
		if (sys_scratch_codes(codes, OTP_SCRATCH_SETMAX) != 0) {
			CHECK(0, "scratch codes failed at set %zu", set);
			return;
		}
		for (i = 0; i < OTP_SCRATCH_SETMAX; i++) {
			uint32_t c = codes[i];

			if (c < OTP_SCRATCH_LO || c > OTP_SCRATCH_HI)
				bad++;
			for (j = i + 1; j < OTP_SCRATCH_SETMAX; j++)
				if (codes[j] == c)
					dups++;
			for (j = 8; j > 0; j--) {
				digit[j - 1][c % 10]++;
				c /= 10;
			}
		}
	}
	otp_wipe(codes, sizeof(codes));
	CHECK_EQ_INT(bad, 0, "codes outside 10000000..99999999");
	CHECK_EQ_INT(dups, 0, "repeats within a set");
	CHECK_EQ_INT(digit[0][0], 0, "a leading zero");
	/* The first digit is uniform over 1..9, the others over 0..9. */
	x = chi2(digit[0] + 1, 9);
	CHECK(x < CHI2_DF8_HI, "first digit: chi-square %.1f >= %.1f", x,
	    CHI2_DF8_HI);
	for (j = 1; j < 8; j++) {
		x = chi2(digit[j], 10);
		CHECK(x < CHI2_DF9_HI, "digit %zu: chi-square %.1f >= %.1f",
		    j + 1, x, CHI2_DF9_HI);
	}
}

int
main(int argc, char *argv[])
{
	(void)argc;
	(void)argv;
	mapping();
	scripted_sets();
	key_ranges();
	key_statistics();
	scratch_statistics();
	return unit_done();
}

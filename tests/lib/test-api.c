/*
 * test-api.c - libotputils through <otputils.h> alone, as a program
 * that links it sees it: the RFC 4226/6238 vectors, oathtool on random
 * tokens, windows and the replay floor, snprintf sizing, bad input, the
 * key gone from memory after otp_token_free, and one code logged in
 * with from many threads at once (exactly one accept).
 *
 *	test-api VECTORS-DIR
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <otputils.h>

#include "unit.h"

/* A token from a vector's fields: type, algorithm, hex key, digits. */
static struct otp_token *
token_of(const char *type, const char *alg, const char *hex,
    unsigned digits, unsigned period)
{
	struct otp_token *t = NULL;
	uint8_t key[256];
	long n = unit_unhex(hex, key, sizeof(key));

	if (n <= 0 || otp_token_new(&t, type, key, (size_t)n) != 0 ||
	    otp_token_set_algorithm(t, alg) != 0 ||
	    otp_token_set_digits(t, digits) != 0 ||
	    (period != 0 && otp_token_set_period(t, period) != 0)) {
		otp_token_free(t);
		return NULL;
	}
	return t;
}

/* hotp.txt: algorithm | key | counter | digits | code */
static void
hotp_case(const struct unit_line *l, void *arg)
{
	struct otp_token *t;
	char code[16];
	int64_t m = -1;

	(void)arg;
	if (l->nfields != 5 || strtoull(l->field[2], NULL, 10) > INT64_MAX)
		return;		/* the API's counters are int64_t */
	t = token_of("hotp", l->field[0], l->field[1],
	    (unsigned)atoi(l->field[3]), 0);
	CHECK(t != NULL, "%s:%u: token", l->file, l->lineno);
	if (t == NULL)
		return;
	CHECK_EQ_INT(otp_token_code(t, atoll(l->field[2]), code, sizeof(code)),
	    strlen(l->field[4]), "hotp code length");
	CHECK_EQ_STR(code, l->field[4], "hotp code");
	/* Found from three counters below, at its own counter. */
	CHECK_EQ_INT(otp_token_verify(t, l->field[4], atoll(l->field[2]) >= 3 ?
	    atoll(l->field[2]) - 3 : 0, 3, -1, &m), 1, "hotp verify");
	CHECK_EQ_INT(m, atoll(l->field[2]), "hotp matched counter");
	otp_token_free(t);
}

/* totp.txt: algorithm | key | time | step | start | digits | code */
static void
totp_case(const struct unit_line *l, void *arg)
{
	struct otp_token *t;
	char code[16];
	int64_t at, m = -1;

	(void)arg;
	if (l->nfields != 7 || strcmp(l->field[4], "0") != 0)
		return;		/* the API has no start time */
	at = atoll(l->field[2]);
	t = token_of("totp", l->field[0], l->field[1],
	    (unsigned)atoi(l->field[5]), (unsigned)atoi(l->field[3]));
	CHECK(t != NULL, "%s:%u: token", l->file, l->lineno);
	if (t == NULL)
		return;
	(void)otp_token_code(t, at, code, sizeof(code));
	CHECK_EQ_STR(code, l->field[6], "totp code");
	CHECK_EQ_INT(otp_token_verify(t, l->field[6], at, 0, -1, &m), 1,
	    "totp verify");
	CHECK_EQ_INT(m, at / atoll(l->field[3]), "totp matched step");
	otp_token_free(t);
}

/* oathtool on random tokens: every algorithm, 6..8 digits, periods. */
static void
oathtool_cross(void)
{
	static const char *const algs[] = { "SHA1", "SHA256", "SHA512" };
	uint8_t key[64], r[8];
	char hex[129], cmd[512], want[32], got[16];
	struct otp_token *t;
	unsigned i, j, digits, period;
	int64_t at;
	FILE *p;

	if (system("command -v oathtool >/dev/null 2>&1") != 0) {
		printf("oathtool not installed: cross-check skipped\n");
		return;
	}
	for (i = 0; i < 12; i++) {
		CHECK(otp_random(key, sizeof(key)) == 0 &&
		    otp_random(r, sizeof(r)) == 0, "random");
		for (j = 0; j < 20 + i * 2; j++)
			(void)snprintf(hex + 2 * j, 3, "%02x", key[j]);
		digits = 6 + r[0] % 3;
		period = i % 2 ? 30 : 60;
		at = (int64_t)(((uint32_t)r[1] << 24 | (uint32_t)r[2] << 16 |
		    (uint32_t)r[3] << 8 | r[4]) & 0x7fffffff);
		/* oathtool's HOTP is HMAC-SHA1 only. */
		t = token_of(i % 4 == 3 ? "hotp" : "totp", i % 4 == 3 ?
		    "SHA1" : algs[i % 3], hex, digits, period);
		CHECK(t != NULL, "random token %u", i);
		if (t == NULL)
			continue;
		if (i % 4 == 3)
			(void)snprintf(cmd, sizeof(cmd), "oathtool --hotp -d %u "
			    "-c %" PRId64 " %s", digits, at, hex);
		else
			(void)snprintf(cmd, sizeof(cmd), "TZ=UTC oathtool "
			    "--totp=%s -d %u -s %u -N @%" PRId64 " %s",
			    algs[i % 3], digits, period, at, hex);
		want[0] = '\0';
		if ((p = popen(cmd, "r")) != NULL) {
			if (fgets(want, sizeof(want), p) == NULL)
				want[0] = '\0';
			(void)pclose(p);
		}
		want[strcspn(want, "\n")] = '\0';
		(void)otp_token_code(t, at, got, sizeof(got));
		CHECK_EQ_STR(got, want, cmd);
		otp_token_free(t);
	}
}

static void
windows(void)
{
	struct otp_token *t, *h;
	char code[16];
	int64_t m, c = 1000;	/* a TOTP step */

	t = token_of("totp", "SHA1", "3132333435363738393031323334353637383930",
	    6, 30);
	h = token_of("hotp", "SHA1", "3132333435363738393031323334353637383930",
	    6, 0);
	if (t == NULL || h == NULL) {
		CHECK(0, "window tokens");
		return;
	}
	/* TOTP: -window..+window steps around at's step. */
	(void)otp_token_code(t, (c + 2) * 30, code, sizeof(code));
	CHECK_EQ_INT(otp_token_verify(t, code, c * 30 + 29, 2, -1, &m), 1,
	    "totp +2 in window 2");
	CHECK_EQ_INT(m, c + 2, "totp +2 matched");
	CHECK_EQ_INT(otp_token_verify(t, code, c * 30, 1, -1, &m), 0,
	    "totp +2 outside window 1");
	(void)otp_token_code(t, (c - 2) * 30, code, sizeof(code));
	CHECK_EQ_INT(otp_token_verify(t, code, c * 30, 2, -1, &m), 1,
	    "totp -2 in window 2");
	CHECK_EQ_INT(m, c - 2, "totp -2 matched");
	/* The floor: a step at or below after never matches again. */
	CHECK_EQ_INT(otp_token_verify(t, code, c * 30, 2, c - 2, &m), 0,
	    "totp at the floor refused");
	CHECK_EQ_INT(otp_token_verify(t, code, c * 30, 2, c - 3, &m), 1,
	    "totp above the floor");
	(void)otp_token_code(t, c * 30, code, sizeof(code));
	CHECK_EQ_INT(otp_token_verify(t, code, c * 30, 1, c, &m), 0,
	    "totp replay of the matched step refused");
	CHECK_EQ_INT(otp_token_verify(t, code, c * 30, 1, c + 5, &m), 0,
	    "totp floor above the window");
	CHECK_EQ_INT(otp_token_verify(t, code, 0, 1, -1, &m), 0,
	    "totp far from its time");
	/* HOTP: at..at+window, never below at. */
	(void)otp_token_code(h, 7, code, sizeof(code));
	CHECK_EQ_INT(otp_token_verify(h, code, 5, 2, -1, &m), 1,
	    "hotp +2 in window 2");
	CHECK_EQ_INT(m, 7, "hotp matched");
	CHECK_EQ_INT(otp_token_verify(h, code, 5, 1, -1, &m), 0,
	    "hotp +2 outside window 1");
	CHECK_EQ_INT(otp_token_verify(h, code, 8, 5, -1, &m), 0,
	    "hotp below at");
	CHECK_EQ_INT(otp_token_verify(h, code, 5, 5, 7, &m), 0,
	    "hotp at the floor");
	otp_token_free(t);
	otp_token_free(h);
}

static void
sizing(void)
{
	struct otp_token *t = NULL;
	char buf[256], code[16];
	int n;

	CHECK_EQ_INT(otp_token_parse(&t, "otpauth://totp/Ex:al%40ex.org?"
	    "secret=JBSWY3DPEHPK3PXP&issuer=Ex&digits=8", NULL), 0, "parse");
	if (t == NULL)
		return;
	n = otp_token_uri(t, NULL, 0);
	CHECK(n > 20 && n < (int)sizeof(buf), "uri length %d", n);
	memset(buf, 'x', sizeof(buf));
	CHECK_EQ_INT(otp_token_uri(t, buf, (size_t)n), n, "cut uri");
	CHECK_EQ_INT(strlen(buf), n - 1, "cut uri length");
	CHECK_EQ_INT(otp_token_uri(t, buf, (size_t)n + 1), n, "whole uri");
	CHECK_EQ_INT(strlen(buf), n, "whole uri length");
	CHECK(strstr(buf, "secret=JBSWY3DPEHPK3PXP") != NULL &&
	    strstr(buf, "digits=8") != NULL, "uri %s", buf);
	CHECK_EQ_INT(otp_token_code(t, 0, NULL, 0), 8, "code length");
	CHECK_EQ_INT(otp_token_code(t, 0, code, 3), 8, "cut code");
	CHECK_EQ_INT(strlen(code), 2, "cut code length");
	CHECK_EQ_INT(otp_token_issuer(t, buf, sizeof(buf)), 2, "issuer");
	CHECK_EQ_STR(buf, "Ex", "issuer");
	CHECK_EQ_INT(otp_token_account(t, buf, sizeof(buf)), 9, "account");
	CHECK_EQ_STR(buf, "al@ex.org", "account");
	CHECK_EQ_INT(otp_token_secret(t, buf, sizeof(buf)), 16, "secret");
	CHECK_EQ_STR(buf, "JBSWY3DPEHPK3PXP", "secret");
	CHECK_EQ_INT(otp_token_digits(t), 8, "digits");
	CHECK_EQ_INT(otp_token_period(t), 30, "period");
	CHECK_EQ_STR(otp_token_type(t), "totp", "type");
	CHECK_EQ_STR(otp_token_algorithm(t), "SHA1", "algorithm");
	CHECK_EQ_INT(otp_token_uri(t, NULL, 5), OTP_EINVAL, "NULL, 5");
	CHECK_EQ_INT(otp_base32_encode("foobar", 6, NULL, 0), 10, "b32 size");
	CHECK_EQ_INT(otp_base32_encode("foobar", 6, buf, sizeof(buf)), 10,
	    "b32");
	CHECK_EQ_STR(buf, "MZXW6YTBOI", "b32");
	CHECK_EQ_INT(otp_base32_decode("mzxw 6ytb-oi======", NULL, 0, NULL), 6,
	    "b32 decode size");
	CHECK_EQ_INT(otp_base32_decode("MZXW6YTBOI", buf, 6, NULL), 6,
	    "b32 decode");
	CHECK(memcmp(buf, "foobar", 6) == 0, "b32 decoded");
	CHECK_EQ_INT(otp_base32_decode("MZXW6YTBOI", buf, 5, NULL),
	    OTP_ENOSPACE, "b32 decode no room");
	otp_token_free(t);
}

static void
bad_input(void)
{
	struct otp_token *t = NULL;
	struct otp_store *s = NULL;
	const char *badopt[] = { "window=x", NULL };
	const char *unknown[] = { "frobnicate", NULL };
	const char *linger[] = { "linger=60", NULL };
	size_t off = 0;
	int64_t m;
	uint32_t sc[3];

	/* Today's values and texts. */
	CHECK_EQ_INT(OTP_EINVAL, -1, "OTP_EINVAL");
	CHECK_EQ_INT(OTP_ECODE, -28, "OTP_ECODE");
	CHECK_EQ_INT(OTP_ESTORESCHEME, -180, "OTP_ESTORESCHEME");
	CHECK_EQ_STR(otp_strerror(OTP_ECODE), "malformed one-time password",
	    "strerror");
	CHECK_EQ_STR(otp_strerror(12345), "unknown error", "strerror unknown");
	CHECK_EQ_INT(otp_token_parse(&t, "http://x", &off), OTP_EURI, "not a URI");
	CHECK(t == NULL, "no token on error");
	CHECK_EQ_INT(otp_token_parse(&t, "otpauth://totp/x?secret=AB!CD", &off),
	    OTP_EBASE32, "bad Base32");
	CHECK_EQ_INT(off, 26, "bad Base32 offset");
	CHECK_EQ_INT(otp_token_parse(&t, NULL, NULL), OTP_EINVAL, "NULL URI");
	CHECK_EQ_INT(otp_token_new(&t, "motp", "k", 1), OTP_EURITYPE, "type");
	CHECK_EQ_INT(otp_token_new(&t, "totp", "", 0), OTP_EKEYEMPTY, "key");
	CHECK_EQ_INT(otp_token_new(&t, "totp", "12345678901234567890", 20), 0,
	    "new");
	if (t == NULL)
		return;
	CHECK_EQ_INT(otp_token_verify(t, "12a456", 0, 1, -1, &m), OTP_ECODE,
	    "letters in a code");
	CHECK_EQ_INT(otp_token_verify(t, "1234567", 0, 1, -1, &m), OTP_ECODE,
	    "7 digits for 6");
	CHECK_EQ_INT(otp_token_verify(t, "", 0, 1, -1, &m), OTP_ECODE, "empty");
	CHECK_EQ_INT(otp_token_verify(t, "123456", 0, 1, -2, &m), OTP_EINVAL,
	    "after below -1");
	CHECK_EQ_INT(otp_token_verify(t, "123456", 0, 100000001, -1, &m),
	    OTP_EWINDOW, "window");
	CHECK_EQ_INT(otp_token_verify(t, "123456", -1, 1, -1, &m),
	    OTP_EBEFORESTART, "time before 1970");
	CHECK_EQ_INT(otp_token_set_digits(t, 11), OTP_EDIGITS, "digits 11");
	CHECK_EQ_INT(otp_token_set_digits(t, 5), OTP_EDIGITS, "digits 5");
	CHECK_EQ_INT(otp_token_set_algorithm(t, "MD5"), OTP_EALG, "MD5");
	CHECK_EQ_INT(otp_token_set_period(t, 0), OTP_ESTEP, "period 0");
	CHECK_EQ_INT(otp_token_set_counter(t, -1), OTP_ECOUNTER, "counter");
	CHECK_EQ_INT(otp_token_set_issuer(t, "a\nb"), OTP_EURICTRL, "issuer");
	CHECK_EQ_INT(otp_token_code(NULL, 0, NULL, 0), OTP_EINVAL, "NULL");
	otp_token_free(t);
	t = NULL;
	CHECK_EQ_INT(otp_token_new(&t, "hotp", "1", 1), 0, "hotp");
	if (t != NULL)
		CHECK_EQ_INT(otp_token_code(t, -1, NULL, 0), OTP_ECOUNTER,
		    "negative counter");
	otp_token_free(t);
	otp_token_free(NULL);
	CHECK_EQ_INT(otp_store_open(&s, "nope:/x", NULL), OTP_ESTORESCHEME,
	    "scheme");
	CHECK(s == NULL, "no store on error");
	CHECK_EQ_INT(otp_store_open(&s, "ga:", NULL), OTP_ESTOREURL, "no path");
	CHECK_EQ_INT(otp_store_open(&s, "ga:/x", badopt), OTP_EINVAL,
	    "bad option value");
	CHECK_EQ_INT(otp_store_open(&s, "ga:/x", unknown), OTP_EINVAL,
	    "unknown option");
	CHECK_EQ_INT(otp_store_open(&s, "ga:/x", linger), OTP_EINVAL,
	    "linger=: no client here");
	CHECK_EQ_INT(otp_scratch_codes(sc, 0), OTP_EINVAL, "no scratch codes");
	CHECK_EQ_INT(otp_scratch_codes(sc, 3), 0, "scratch codes");
	CHECK(sc[0] >= 10000000 && sc[0] <= 99999999 && sc[0] != sc[1],
	    "scratch code %" PRIu32, sc[0]);
	otp_store_close(NULL);
}

/*
 * Whether the key is anywhere in the process's writable memory (the
 * heap, anonymous maps, stacks), read through /proc/self/mem so that a
 * sanitizer sees no read of freed memory, and with no allocation of its
 * own that could reuse (and overwrite) the memory it looks for.  The
 * pattern is kept as its complement, so that this test's own copy never
 * matches.
 */
static char maps_text[1 << 20];
static uint8_t window_buf[1 << 16];

static int
key_in_memory(const uint8_t *notkey, size_t n)
{
	unsigned long a, b, at;
	char *line, *next;
	ssize_t r, len = 0;
	size_t i, j, got;
	int fd, found = 0;

	if ((fd = open("/proc/self/maps", O_RDONLY)) < 0)
		return -1;
	while ((r = read(fd, maps_text + len, sizeof(maps_text) - 1 -
	    (size_t)len)) > 0)
		len += r;
	close(fd);
	maps_text[len] = '\0';
	if ((fd = open("/proc/self/mem", O_RDONLY)) < 0)
		return -1;
	for (line = maps_text; !found && *line != '\0'; line = next) {
		char perm[8] = "", path[2] = "";

		if ((next = strchr(line, '\n')) == NULL)
			next = line + strlen(line);
		else
			*next++ = '\0';
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %1s", &a, &b, perm,
		    path) < 3 || perm[0] != 'r' || perm[1] != 'w' ||
		    b - a > (64UL << 20) || (path[0] != '\0' &&
		    path[0] != '['))
			continue;
		/* Windows that overlap by n - 1 bytes: no match is cut. */
		for (at = a; !found && at + n <= b; at += got - (n - 1)) {
			got = b - at < sizeof(window_buf) ? b - at :
			    sizeof(window_buf);
			if (pread(fd, window_buf, got, (off_t)at) !=
			    (ssize_t)got || got < n)
				break;
			for (i = 0; !found && i + n <= got; i++) {
				for (j = 0; j < n && (window_buf[i + j] ^
				    notkey[j]) == 0xff; j++)
					;
				found = j == n;
			}
			if (got == b - at)
				break;
		}
	}
	memset(window_buf, 0, sizeof(window_buf));
	close(fd);
	return found;
}

static void
wiping(void)
{
	struct otp_token *t = NULL;
	uint8_t key[32], notkey[32];
	char code[16], *fence;
	size_t i;

	CHECK_EQ_INT(otp_random(key, sizeof(key)), 0, "random key");
	for (i = 0; i < sizeof(key); i++)
		notkey[i] = (uint8_t)~key[i];
	CHECK_EQ_INT(otp_token_new(&t, "totp", key, sizeof(key)), 0, "token");
	memset(key, 0, sizeof(key));
	/* A block after the token's keeps its memory from going back to
	 * the system when it is freed: there it stays to be searched. */
	fence = malloc(64);
	CHECK(fence != NULL, "malloc");
	/* The search finds a live key: it can fail. */
	CHECK_EQ_INT(key_in_memory(notkey, sizeof(notkey)), 1,
	    "key found while the token lives");
	(void)otp_token_code(t, 59, code, sizeof(code));
	otp_token_free(t);
	CHECK_EQ_INT(key_in_memory(notkey, sizeof(notkey)), 0,
	    "key gone after otp_token_free");
	free(fence);
}

/* ---- one code, many threads: exactly one accept ------------------- */

#define THREADS	8

struct racer {
	struct otp_store	*s;
	const char		*answer;
	int			 rc;
	char			 reason[128];
};

static void *
race(void *arg)
{
	struct racer *r = arg;

	r->rc = otp_store_check(r->s, "nobody", r->answer, r->reason,
	    sizeof(r->reason));
	return NULL;
}

/* n threads answer with answer at once: how many were accepted. */
static int
race_all(struct otp_store *s, const char *answer)
{
	struct racer r[THREADS];
	pthread_t th[THREADS];
	int i, yes = 0;

	for (i = 0; i < THREADS; i++) {
		r[i].s = s;
		r[i].answer = answer;
		r[i].rc = -999;
		CHECK(pthread_create(&th[i], NULL, race, &r[i]) == 0,
		    "thread");
	}
	for (i = 0; i < THREADS; i++) {
		(void)pthread_join(th[i], NULL);
		CHECK(r[i].rc == 0 || r[i].rc == 1, "thread %d: %d %s", i,
		    r[i].rc, r[i].reason);
		yes += r[i].rc == 1;
	}
	return yes;
}

static void
store_login(void)
{
	static const char b32[] = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";
	char dir[] = "/tmp/test-api.XXXXXX", path[64], url[80], code[16];
	char reason[128];
	const char *opts[] = { "window=3", "no_strict_owner", NULL };
	struct otp_token *t = NULL;
	struct otp_store *s = NULL;
	FILE *f;

	if (mkdtemp(dir) == NULL) {
		CHECK(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	(void)snprintf(path, sizeof(path), "%s/state", dir);
	(void)snprintf(url, sizeof(url), "ga:%s", path);
	if ((f = fopen(path, "w")) == NULL) {
		CHECK(0, "%s: %s", path, strerror(errno));
		return;
	}
	fprintf(f, "%s\n\" WINDOW_SIZE 3\n\" DISALLOW_REUSE\n\" TOTP_AUTH\n"
	    "12345678\n", b32);
	fclose(f);
	(void)chmod(path, 0600);
	CHECK_EQ_INT(otp_token_parse(&t, "otpauth://totp/x?secret="
	    "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP", NULL), 0, "token");
	CHECK_EQ_INT(otp_store_open(&s, url, opts), 0, "store open");
	if (t == NULL || s == NULL)
		goto out;
	CHECK_EQ_INT(otp_store_check(s, "nobody", "000000x", reason,
	    sizeof(reason)), 0, "malformed answer refused");
	CHECK(reason[0] != '\0', "a reason: \"%s\"", reason);
	(void)otp_token_code(t, (int64_t)time(NULL), code, sizeof(code));
	CHECK_EQ_INT(race_all(s, code), 1, "one code from 8 threads");
	CHECK_EQ_INT(race_all(s, "12345678"), 1, "one scratch code from 8 "
	    "threads");
	CHECK_EQ_INT(otp_store_check(s, "nobody", code, reason,
	    sizeof(reason)), 0, "the code again");
out:
	otp_store_close(s);
	otp_token_free(t);
	(void)unlink(path);
	(void)rmdir(dir);
}

int
main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "tests/vectors";

	CHECK(unit_vectors(dir, "hotp.txt", hotp_case, NULL) > 0, "hotp.txt");
	CHECK(unit_vectors(dir, "totp.txt", totp_case, NULL) > 0, "totp.txt");
	oathtool_cross();
	windows();
	sizing();
	bad_input();
	wiping();
	store_login();
	return unit_done();
}

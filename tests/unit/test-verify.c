/*
 * test-verify.c - window searches, runs of codes and the diagnosis of
 * codes that do not verify, against tests/vectors/verify*.txt and a few
 * hand-made cases.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otp.h"
#include "unit.h"

/* The fields every vector line starts with. */
struct vcase {
	enum otp_window	shape;
	struct otp_hmac	h;
	uint64_t	digits, centre, window;
};

static int
vcase_parse(const struct unit_line *l, struct vcase *v)
{
	enum otp_alg alg;
	uint8_t key[OTP_KEY_MAX];
	long n;
	int ok = 1;

	if (l->nfields != 8) {
		unit_check(0, l->file, (int)l->lineno, "want 8 fields");
		return 0;
	}
	v->shape = strcmp(l->field[0], "AHEAD") == 0 ? OTP_WINDOW_AHEAD :
	    OTP_WINDOW_AROUND;
	ok &= otp_alg_parse(l->field[1], &alg) == 0;
	n = unit_unhex(l->field[2], key, sizeof(key));
	ok &= n > 0;
	ok &= otp_parse_u64(l->field[3], 0, 99, &v->digits) == 0;
	ok &= otp_parse_u64(l->field[4], 0, UINT64_MAX, &v->centre) == 0;
	ok &= otp_parse_u64(l->field[5], 0, UINT64_MAX, &v->window) == 0;
	ok &= n > 0 && otp_hmac_init(&v->h, alg, key, (size_t)n) == 0;
	unit_check(ok, l->file, (int)l->lineno, "malformed vector");
	return ok;
}

/* Compare a result with want: "counter offset", "none" or an error. */
static void
want_match(const struct unit_line *l, int rc, const struct otp_match *m,
    const char *want)
{
	char got[96];

	if (rc == 1)
		snprintf(got, sizeof(got), "%" PRIu64 " %" PRId64, m->counter,
		    m->offset);
	else if (rc == 0)
		snprintf(got, sizeof(got), "none");
	else
		snprintf(got, sizeof(got), "error %d (%s)", rc,
		    otp_strerror(rc));
	if (unit_errcode(want) != 1)
		unit_check(rc == unit_errcode(want), l->file, (int)l->lineno,
		    "got %s, want %s", got, want);
	else
		unit_check(strcmp(got, want) == 0, l->file, (int)l->lineno,
		    "got \"%s\", want \"%s\"", got, want);
}

static void
verify_case(const struct unit_line *l, void *arg)
{
	struct vcase v;
	struct otp_match m = { 0, 0 };
	int rc;

	(void)arg;
	if (!vcase_parse(l, &v))
		return;
	rc = otp_verify(&v.h, l->field[6], (unsigned)v.digits, v.centre,
	    v.window, v.shape, &m);
	want_match(l, rc, &m, l->field[7]);
	otp_hmac_wipe(&v.h);
}

static void
skew_case(const struct unit_line *l, void *arg)
{
	struct vcase v;
	struct otp_match m = { 0, 0 };
	const char *codes[8];
	char buf[256], want[128], *p, *save = NULL;
	size_t n = 0;
	int rc;

	(void)arg;
	if (!vcase_parse(l, &v))
		return;
	snprintf(buf, sizeof(buf), "%s", l->field[6]);
	for (p = strtok_r(buf, " ", &save); p != NULL && n < 8;
	    p = strtok_r(NULL, " ", &save))
		codes[n++] = p;
	rc = otp_find_skew(&v.h, codes, n, (unsigned)v.digits, v.centre,
	    v.window, v.shape, &m);
	/* want is "places counter offset": check the count, then the place. */
	if (unit_errcode(l->field[7]) == 1 && strcmp(l->field[7], "none") != 0) {
		const char *rest = strchr(l->field[7], ' ');

		unit_check(rc == atoi(l->field[7]), l->file, (int)l->lineno,
		    "places: got %d, want %s", rc, l->field[7]);
		snprintf(want, sizeof(want), "%s", rest != NULL ? rest + 1 :
		    "");
		want_match(l, rc > 0 ? 1 : rc, &m, want);
	} else
		want_match(l, rc, &m, l->field[7]);
	otp_hmac_wipe(&v.h);
}

static void
check_steam_motp(void)
{
	static const uint8_t steamkey[] = {
		0x48, 0x65, 0x6c, 0x6c, 0x6f, 0x21, 0xde, 0xad, 0xbe, 0xef
	};
	struct otp_hmac h;
	struct otp_match m = { 0, 0 };
	const char *s = "e3152afee62599c8";

	/* Steam Guard: this key at t=0 (counter 0) gives VH8YJ. */
	CHECK(otp_hmac_init(&h, OTP_ALG_SHA1, steamkey, sizeof(steamkey)) == 0,
	    "steam init");
	CHECK_EQ_INT(otp_verify_steam(&h, "VH8YJ", 0, 0, OTP_WINDOW_AROUND,
	    &m), 1, "steam at 0");
	CHECK_EQ_INT(otp_verify_steam(&h, "vh8yj", 2, 2, OTP_WINDOW_AROUND,
	    &m), 1, "steam lower case, two steps late");
	CHECK_EQ_INT(m.offset, -2, "steam offset");
	CHECK_EQ_INT(otp_verify_steam(&h, "VH8YJ", 2, 1, OTP_WINDOW_AROUND,
	    &m), 0, "steam outside the window");
	CHECK_EQ_INT(otp_verify_steam(&h, "VH8YA", 0, 1, OTP_WINDOW_AROUND,
	    &m), OTP_ECODE, "steam: A is not in the alphabet");
	CHECK_EQ_INT(otp_verify_steam(&h, "VH8Y", 0, 1, OTP_WINDOW_AROUND,
	    &m), OTP_ECODE, "steam: 4 characters");
	CHECK_EQ_INT(otp_verify_steam(&h, "VH8YJJ", 0, 1, OTP_WINDOW_AROUND,
	    &m), OTP_ECODE, "steam: 6 characters");
	CHECK_EQ_INT(otp_verify_steam(&h, "VH8YJ", 0, OTP_WINDOW_MAX + 1,
	    OTP_WINDOW_AROUND, &m), OTP_EWINDOW, "steam window");
	otp_hmac_wipe(&h);

	/* Mobile-OTP: e7d8b6 at t=165892298 (10-second step 16589229). */
	CHECK_EQ_INT(otp_verify_motp(s, strlen(s), "1234", "e7d8b6",
	    165892298, 0, &m), 1, "motp");
	CHECK_EQ_INT(m.offset, 0, "motp offset");
	CHECK_EQ_INT(m.counter, 16589229, "motp step");
	CHECK_EQ_INT(otp_verify_motp(s, strlen(s), "1234", "E7D8B6",
	    165892298 + 15, 2, &m), 1, "motp upper case, 15 s late");
	CHECK_EQ_INT(m.offset, -2, "motp late offset");
	CHECK_EQ_INT(otp_verify_motp(s, strlen(s), "1234", "e7d8b6",
	    165892298 + 15, 1, &m), 0, "motp outside the window");
	CHECK_EQ_INT(otp_verify_motp(s, strlen(s), "1235", "e7d8b6",
	    165892298, 3, &m), 0, "motp wrong PIN");
	CHECK_EQ_INT(otp_verify_motp(s, strlen(s), "1234", "e7d8b", 0, 0,
	    &m), OTP_ECODE, "motp 5 characters");
	CHECK_EQ_INT(otp_verify_motp(s, strlen(s), "1234", "e7d8bg", 0, 0,
	    &m), OTP_ECODE, "motp non-hex");
	CHECK_EQ_INT(otp_verify_motp(s, 0, "1234", "e7d8b6", 0, 0, &m),
	    OTP_EKEYEMPTY, "motp empty secret");
	/* Far ends of time: clamped, never overflowing. */
	CHECK(otp_verify_motp(s, strlen(s), "1234", "e7d8b6", INT64_MAX, 3,
	    &m) >= 0, "motp at INT64_MAX");
	CHECK(otp_verify_motp(s, strlen(s), "1234", "e7d8b6", INT64_MIN, 3,
	    &m) >= 0, "motp at INT64_MIN");
}

static void
check_code_shape(void)
{
	struct otp_hmac h;
	struct otp_match m = { 7, 7 };
	static const uint8_t key[] = { 0xde, 0xad, 0xbe, 0xef };

	CHECK_EQ_INT(otp_code_check("", 0), OTP_ECODE, "empty code");
	CHECK_EQ_INT(otp_code_check("123456", 0), 6, "6 digits");
	CHECK_EQ_INT(otp_code_check("1234567890", 0), 10, "10 digits");
	CHECK_EQ_INT(otp_code_check("123456", 6), 6, "6 digits of 6");
	CHECK_EQ_INT(otp_code_check("123456", 7), OTP_ECODE, "6 digits of 7");
	CHECK_EQ_INT(otp_code_check("123456\n", 0), OTP_ECODE, "newline");
	CHECK_EQ_INT(otp_code_check("12345678901234567890123", 0), OTP_ECODE,
	    "very long");
	CHECK(otp_hmac_init(&h, OTP_ALG_SHA1, key, sizeof(key)) == 0, "init");
	CHECK_EQ_INT(otp_verify(&h, "", 0, 0, 0, OTP_WINDOW_AROUND, &m),
	    OTP_ECODE, "verify empty");
	CHECK_EQ_INT(otp_verify(&h, "057490", 0, 0, 0, (enum otp_window)7,
	    &m), OTP_EINVAL, "bad shape");
	/* No match leaves m alone: callers cannot mistake it for one. */
	CHECK_EQ_INT(otp_verify(&h, "057491", 0, 0, 3, OTP_WINDOW_AROUND,
	    &m), 0, "no match");
	CHECK(m.counter == 7 && m.offset == 7, "m untouched on no match");
	otp_hmac_wipe(&h);
}

static const struct {
	const char	*name;
	unsigned	 bit;
} diffnames[] = {
	{ "ENC", OTP_DIFF_ENC }, { "ALG", OTP_DIFF_ALG },
	{ "DIGITS", OTP_DIFF_DIGITS }, { "PREFIX", OTP_DIFF_PREFIX },
	{ "TYPE", OTP_DIFF_TYPE }, { "STEP", OTP_DIFF_STEP },
	{ "START", OTP_DIFF_START }, { "SHIFT", OTP_DIFF_SHIFT },
	{ "DRIFT", OTP_DIFF_DRIFT }, { "COUNTER", OTP_DIFF_COUNTER },
};

/* "ALG+STEP" -> the bits; "0" -> 0; ~0u for an unknown name. */
static unsigned
diffbits(const char *text)
{
	char buf[128], *p, *save = NULL;
	unsigned bits = 0;
	size_t i;

	if (strcmp(text, "0") == 0)
		return 0;
	snprintf(buf, sizeof(buf), "%s", text);
	for (p = strtok_r(buf, "+", &save); p != NULL;
	    p = strtok_r(NULL, "+", &save)) {
		for (i = 0; i < sizeof(diffnames) / sizeof(diffnames[0]); i++)
			if (strcmp(diffnames[i].name, p) == 0)
				break;
		if (i == sizeof(diffnames) / sizeof(diffnames[0]))
			return ~0u;
		bits |= diffnames[i].bit;
	}
	return bits;
}

/* Check one key=value expectation against a finding. */
static int
field_ok(const struct otp_finding *f, const char *kv)
{
	const char *eq = strchr(kv, '=');
	char key[32], got[64];
	size_t n;

	if (eq == NULL || (n = (size_t)(eq - kv)) >= sizeof(key))
		return 0;
	memcpy(key, kv, n);
	key[n] = '\0';
	if (strcmp(key, "alg") == 0)
		snprintf(got, sizeof(got), "%s", otp_alg_name(f->alg));
	else if (strcmp(key, "enc") == 0)
		snprintf(got, sizeof(got), "%s", f->enc == OTP_KEYENC_HEX ?
		    "HEX" : "BASE32");
	else if (strcmp(key, "type") == 0)
		snprintf(got, sizeof(got), "%s", f->type == OTP_TYPE_HOTP ?
		    "HOTP" : "TOTP");
	else if (strcmp(key, "digits") == 0)
		snprintf(got, sizeof(got), "%u", f->digits);
	else if (strcmp(key, "step") == 0)
		snprintf(got, sizeof(got), "%" PRIu64, f->step);
	else if (strcmp(key, "start") == 0)
		snprintf(got, sizeof(got), "%" PRId64, f->start);
	else if (strcmp(key, "shift") == 0)
		snprintf(got, sizeof(got), "%" PRId64, f->shift);
	else if (strcmp(key, "counter") == 0)
		snprintf(got, sizeof(got), "%" PRIu64, f->counter);
	else if (strcmp(key, "offset") == 0)
		snprintf(got, sizeof(got), "%" PRId64, f->offset);
	else
		return 0;
	return strcmp(got, eq + 1) == 0;
}

static void
diagnose_case(const struct unit_line *l, void *arg)
{
	struct otp_finding f[OTP_DIAG_MAX];
	struct otp_diag_params p;
	uint64_t digits, start, now;
	char want[256], *w, *save = NULL;
	unsigned bits, also;
	int n, i, ok = 1;

	(void)arg;
	if (l->nfields != 13) {
		unit_check(0, l->file, (int)l->lineno, "want 13 fields");
		return;
	}
	memset(&p, 0, sizeof(p));
	p.type = strcmp(l->field[0], "HOTP") == 0 ? OTP_TYPE_HOTP :
	    OTP_TYPE_TOTP;
	ok &= otp_alg_parse(l->field[1], &p.alg) == 0;
	p.enc = strcmp(l->field[2], "HEX") == 0 ? OTP_KEYENC_HEX :
	    OTP_KEYENC_BASE32;
	p.key = l->field[3];
	ok &= otp_parse_u64(l->field[4], 0, 99, &digits) == 0;
	ok &= otp_parse_u64(l->field[5], 0, UINT64_MAX, &p.counter) == 0;
	ok &= otp_parse_u64(l->field[6], 0, UINT64_MAX, &p.step) == 0;
	ok &= otp_parse_u64(l->field[7], 0, INT64_MAX, &start) == 0;
	ok &= otp_parse_u64(l->field[8], 0, INT64_MAX, &now) == 0;
	ok &= otp_parse_u64(l->field[9], 0, UINT64_MAX, &p.window) == 0;
	unit_check(ok, l->file, (int)l->lineno, "malformed vector");
	if (!ok)
		return;
	p.digits = (unsigned)digits;
	p.start = (int64_t)start;
	p.now = (int64_t)now;
	n = otp_diagnose(&p, l->field[10], f, OTP_DIAG_MAX);

	if (unit_errcode(l->field[11]) != 1) {
		unit_check(n == unit_errcode(l->field[11]), l->file,
		    (int)l->lineno, "got %d, want %s", n, l->field[11]);
		return;
	}
	if (strcmp(l->field[11], "none") == 0) {
		unit_check(n == 0, l->file, (int)l->lineno,
		    "got %d findings (first differs 0x%x), want none", n,
		    n > 0 ? f[0].differs : 0);
		return;
	}
	unit_check(n > 0, l->file, (int)l->lineno, "got %d, want findings",
	    n);
	if (n <= 0)
		return;
	/* Findings come sorted by rank. */
	for (i = 1; i < n; i++)
		unit_check(f[i - 1].rank <= f[i].rank, l->file,
		    (int)l->lineno, "finding %d out of order", i);
	snprintf(want, sizeof(want), "%s", l->field[11]);
	w = strtok_r(want, " ", &save);
	bits = diffbits(w);
	unit_check(f[0].differs == bits, l->file, (int)l->lineno,
	    "first finding differs 0x%x, want %s (0x%x)", f[0].differs, w,
	    bits);
	while ((w = strtok_r(NULL, " ", &save)) != NULL)
		unit_check(field_ok(&f[0], w), l->file, (int)l->lineno,
		    "first finding: want %s", w);
	if (strcmp(l->field[12], "-") != 0) {
		also = diffbits(l->field[12]);
		for (i = 0; i < n; i++)
			if ((f[i].differs & also) == also)
				break;
		unit_check(i < n, l->file, (int)l->lineno,
		    "no finding with %s", l->field[12]);
	}
}

/* Verify the 6-digit code of counter lo + i: it must give the nearest of
 * its matches in v[0..n). */
static void
check_one(struct otp_hmac *h, const uint32_t *v, uint64_t n, uint64_t lo,
    uint64_t centre, uint64_t window, uint64_t i, unsigned *multi)
{
	struct otp_match m;
	uint32_t want = v[i] % 1000000;
	uint64_t j, best = 0, bestd = UINT64_MAX;
	char code[OTP_CODE_MAX];
	int r, found = 0;

	/* Ascending: a strictly nearer match replaces, so a tie keeps the
	 * earlier step. */
	for (j = 0; j < n; j++) {
		uint64_t c = lo + j, d = c < centre ? centre - c : c - centre;

		if (v[j] % 1000000 != want)
			continue;
		found++;
		if (d < bestd) {
			best = c;
			bestd = d;
		}
	}
	*multi += found > 1;
	snprintf(code, sizeof(code), "%06u", (unsigned)want);
	r = otp_verify(h, code, 6, centre, window, OTP_WINDOW_AROUND, &m);
	CHECK(r == 1, "code %s: found", code);
	CHECK(m.counter == best, "code %s: nearest %" PRIu64 ", got %" PRIu64,
	    code, best, m.counter);
	CHECK(m.offset == (best < centre ? -(int64_t)bestd : (int64_t)bestd),
	    "code %s: offset", code);
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Large windows give what a plain search says: the nearest match, the
 * earlier step on a tie.  The codes: every 16661st counter's, those at
 * the ends of the window and on either side of the edges of the batches
 * the window is hashed in, codes that occur more than once in the
 * window, and ties.
 */
static void
check_large(void)
{
	static const uint8_t key[] = "parallel scans, one answer";
	static const uint64_t edges[] = { 1, 2, 255, 256 };
	enum { W = 33000, N = 2 * W + 1 };
	struct otp_hmac h;
	uint32_t *v = malloc(N * sizeof(*v)), *sorted = malloc(N * sizeof(*v));
	uint32_t *v2 = malloc(N * sizeof(*v));
	uint64_t centre = 1000000, lo = centre - W, i, e;
	unsigned multi = 0, dups = 0, ties = 0;
	size_t k;

	CHECK(v != NULL && sorted != NULL && v2 != NULL, "malloc");
	if (v == NULL || sorted == NULL || v2 == NULL)
		return;
	CHECK(otp_hmac_init(&h, OTP_ALG_SHA1, key, sizeof(key) - 1) == 0,
	    "init");
	otp_hotp_values(&h, lo, v, N);
	for (i = 0; i < N; i += 16661)
		check_one(&h, v, N, lo, centre, W, i, &multi);
	/* The window's ends, and both sides of 256, 4096 and 65536
	 * counters past its low end, where batches of a power-of-two size
	 * meet. */
	check_one(&h, v, N, lo, centre, W, N - 1, &multi);
	for (k = 0; k < sizeof(edges) / sizeof(edges[0]); k++) {
		for (e = 256; e < N; e *= 16) {
			check_one(&h, v, N, lo, centre, W, e - edges[k],
			    &multi);
			check_one(&h, v, N, lo, centre, W, e + edges[k] - 1,
			    &multi);
		}
	}
	/* Codes found twice or more: look each up by its first counter. */
	for (i = 0; i < N; i++)
		sorted[i] = v[i] % 1000000;
	qsort(sorted, N, sizeof(*sorted), cmp_u32);
	for (i = 1; i < N && (dups < 4 || ties < 3); i++) {
		uint64_t f, g;

		if (sorted[i] != sorted[i - 1])
			continue;
		for (f = 0; f < N && v[f] % 1000000 != sorted[i]; f++)
			continue;
		for (g = f + 1; g < N && v[g] % 1000000 != sorted[i]; g++)
			continue;
		if (dups < 4) {
			check_one(&h, v, N, lo, centre, W, f, &multi);
			dups++;
		}
		/* A tie: the same code at both ends, the centre halfway
		 * between them. */
		if (ties < 3 && g < N && (f + g) % 2 == 0) {
			uint64_t c2 = lo + (f + g) / 2;

			otp_hotp_values(&h, c2 - W, v2, N);
			check_one(&h, v2, N, c2 - W, c2, W,
			    f + W - (f + g) / 2, &multi);
			ties++;
		}
	}
	CHECK(dups == 4 && multi >= 4, "%u codes found twice or more", multi);
	CHECK(ties == 3, "%u ties", ties);
	otp_hmac_wipe(&h);
	free(v);
	free(v2);
	free(sorted);
}

int
main(int argc, char *argv[])
{
	const char *dir = argc > 1 ? argv[1] : "tests/vectors";

	unit_vectors(dir, "verify.txt", verify_case, NULL);
	unit_vectors(dir, "verify-skew.txt", skew_case, NULL);
	unit_vectors(dir, "verify-diagnose.txt", diagnose_case, NULL);
	check_code_shape();
	check_steam_motp();
	check_large();
	return unit_done();
}

/*
 * otpw.c - OTPW printed password lists: the file image (pam_otp(8)), the
 * hash of an entry, reading a typed response, choosing challenges,
 * marking entries used, and making new lists and their printed layout.
 *
 * An entry's hash is RIPEMD-160 over the prefix password as typed and the
 * normalised one-time password; its first 72 bits are written as 12
 * characters of base64's bit order in OTPW's own alphabet, which is also
 * the alphabet of the passwords (no 'l', '0' or '1' to misread).
 */
#include <stdio.h>
#include <string.h>

#include <nettle/ripemd160.h>

#include "otp.h"
#include "otp_otpw.h"

#define MAGIC		"OTPW1\n"
#define HEADLINE_MAX	80	/* the readers take a header line in 81 */
#define REMEMBER	"!!! REMEMBER: Enter the PREFIX PASSWORD first !!!"
#define LIST_COLS	5	/* columns of "NNN xxxx xxxx" in 79 */
#define LIST_ROWS	56	/* rows a page of 60 lines holds */
#define CELL_WIDTH	(OTP_OTPW_GEN_CHALLEN + 1 + OTP_OTPW_GEN_PWCHARS + 1)

static const char otpw_alpha[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijk%mnopqrstuvwxyz:=23456789+/";

/* Bits 6*i.. of v as n characters of the alphabet, base64's bit order. */
static void
encode6(const uint8_t *v, size_t n, char *out)
{
	size_t i, bit, byte;
	unsigned x;

	for (i = 0; i < n; i++) {
		bit = i * 6;
		byte = bit / 8;
		x = (unsigned)v[byte] << 8;
		if (bit % 8 > 2)
			x |= v[byte + 1];
		out[i] = otpw_alpha[(x >> (10 - bit % 8)) & 0x3f];
	}
	out[n] = '\0';
}

void
otp_otpw_hash(const char *prefix, size_t plen, const char *pw, size_t pwlen,
    char out[OTP_OTPW_HASHLEN + 1])
{
	struct ripemd160_ctx ctx;
	uint8_t d[RIPEMD160_DIGEST_SIZE];

	ripemd160_init(&ctx);
	ripemd160_update(&ctx, plen, (const uint8_t *)prefix);
	ripemd160_update(&ctx, pwlen, (const uint8_t *)pw);
	ripemd160_digest(&ctx, sizeof(d), d);
	encode6(d, OTP_OTPW_HASHLEN, out);
	otp_wipe(&ctx, sizeof(ctx));
	otp_wipe(d, sizeof(d));
}

/* The password character a typed one stands for, or 0 to skip it: the
 * look-alikes of 'I', 'O' and '/' are read as those. */
static char
pw_char(char c)
{
	if (c == 'l' || c == '1' || c == '|')
		return 'I';
	if (c == '0')
		return 'O';
	if (c == '\\')
		return '/';
	if (c != '\0' && strchr(otpw_alpha, c) != NULL)
		return c;
	return 0;
}

/* Read want password characters off the end of resp[0..len) into pw,
 * skipping what is not in the alphabet and what a backspace or DEL took
 * back; *plen gets the prefix length.  0, or -1 when resp is too short. */
static int
split_response(const char *resp, size_t len, char *pw, size_t want,
    size_t *plen)
{
	size_t i = len, got = 0;
	unsigned erased = 0;
	char c, m;

	while (got < want) {
		if (i == 0)
			return -1;
		c = resp[--i];
		if (c == '\b' || c == 0x7f) {
			erased++;
			continue;
		}
		if (erased > 0) {
			erased--;
			continue;
		}
		if ((m = pw_char(c)) != 0)
			pw[want - 1 - got++] = m;
	}
	*plen = i;
	return 0;
}

/* A decimal of at most 4 digits at s ending at sep; -1 otherwise. */
static long
small_num(const char *s, size_t n)
{
	long v = 0;
	size_t i;

	if (n == 0 || n > 4)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* The line at *pos (without '\n') as [*pos, *pos + *n); -1 at the end or
 * when it has no '\n' within max bytes. */
static int
next_line(const char *img, size_t len, size_t *pos, size_t max, size_t *n)
{
	const char *nl;
	size_t left;

	if (*pos >= len)
		return -1;
	left = len - *pos;
	nl = memchr(img + *pos, '\n', left < max ? left : max);
	if (nl == NULL)
		return -1;
	*n = (size_t)(nl - (img + *pos));
	return 0;
}

/* "ENTRIES CHALLEN HASHLEN PWLEN": four decimals, single spaces. */
static int
parse_params(const char *s, size_t n, unsigned v[4])
{
	size_t i = 0, j;
	int k;
	long x;

	for (k = 0; k < 4; k++) {
		if (k > 0) {
			if (i >= n || s[i] != ' ')
				return -1;
			i++;
		}
		for (j = i; j < n && s[j] >= '0' && s[j] <= '9'; j++)
			;
		if ((x = small_num(s + i, j - i)) < 0)
			return -1;
		v[k] = (unsigned)x;
		i = j;
	}
	return i == n ? 0 : -1;
}

static int
is_dashes(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] != '-')
			return 0;
	return 1;
}

static int
entry_ok(const char *s, unsigned challen)
{
	size_t i;

	for (i = 0; i < challen; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	for (i = 0; i < OTP_OTPW_HASHLEN; i++)
		if (s[challen + i] == '\0' ||
		    strchr(otpw_alpha, s[challen + i]) == NULL)
			return 0;
	return 1;
}

int
otp_otpw_parse(const char *img, size_t len, struct otp_otpw *w, size_t *line)
{
	size_t pos = 0, n, ln = 1, dummy;
	unsigned v[4], i;
	const char *e;

	if (line == NULL)
		line = &dummy;
	*line = 1;
	memset(w, 0, sizeof(*w));
	w->first = -1;
	if (len > OTP_OTPW_MAX)
		return OTP_EOTPWSIZE;
	if (len < sizeof(MAGIC) - 1 ||
	    memcmp(img, MAGIC, sizeof(MAGIC) - 1) != 0)
		return OTP_EOTPWMAGIC;
	pos = sizeof(MAGIC) - 1;
	*line = ++ln;
	if (next_line(img, len, &pos, HEADLINE_MAX, &n) != 0)
		return OTP_EOTPWPARAM;
	if (img[pos] == '#') {
		if (memchr(img + pos, '\0', n) != NULL)
			return OTP_EOTPWPARAM;
		pos += n + 1;
		*line = ++ln;
		if (next_line(img, len, &pos, HEADLINE_MAX, &n) != 0)
			return OTP_EOTPWPARAM;
	}
	if (parse_params(img + pos, n, v) != 0 ||
	    v[0] < 1 || v[0] > OTP_OTPW_ENTRIES_MAX ||
	    v[1] < 1 || v[1] > OTP_OTPW_CHALLEN_MAX ||
	    v[2] != OTP_OTPW_HASHLEN ||
	    v[3] < OTP_OTPW_PWLEN_MIN || v[3] > OTP_OTPW_PWLEN_MAX)
		return OTP_EOTPWPARAM;
	pos += n + 1;
	w->entries = v[0];
	w->challen = v[1];
	w->pwlen = v[3];
	w->start = pos;
	w->linelen = w->challen + OTP_OTPW_HASHLEN + 1;
	for (i = 0; i < w->entries; i++) {
		*line = ++ln;
		if (len - pos < w->linelen)
			return OTP_EOTPWENTRY;
		e = img + pos;
		if (e[w->linelen - 1] != '\n')
			return OTP_EOTPWENTRY;
		if (!is_dashes(e, w->linelen - 1)) {
			if (!entry_ok(e, w->challen))
				return OTP_EOTPWENTRY;
			if (w->first < 0)
				w->first = (long)i;
			w->remaining++;
		}
		pos += w->linelen;
	}
	*line = ++ln;
	if (pos != len)
		return OTP_EOTPWTRAIL;
	*line = 0;
	return 0;
}

static const char *
entry_at(const char *img, const struct otp_otpw *w, unsigned idx)
{
	return img + w->start + (size_t)idx * w->linelen;
}

static int
entry_unused(const char *img, const struct otp_otpw *w, unsigned idx)
{
	return idx < w->entries && entry_at(img, w, idx)[0] != '-';
}

/* Append entry idx's number to c. */
static void
chal_add(const char *img, const struct otp_otpw *w, struct otp_otpw_chal *c,
    unsigned idx)
{
	size_t at = strlen(c->text);

	if (c->n > 0)
		c->text[at++] = '/';
	memcpy(c->text + at, entry_at(img, w, idx), w->challen);
	c->text[at + w->challen] = '\0';
	c->idx[c->n++] = idx;
}

int
otp_otpw_first(const char *img, const struct otp_otpw *w,
    struct otp_otpw_chal *c)
{
	memset(c, 0, sizeof(*c));
	if (w->first < 0)
		return OTP_EOTPWEMPTY;
	chal_add(img, w, c, (unsigned)w->first);
	return 0;
}

/* A uniform index below n from fn (rejection: no modulo bias). */
static int
uniform(otp_word_fn fn, void *arg, uint32_t n, uint32_t *out)
{
	uint64_t limit = 0x100000000ULL - 0x100000000ULL % n;
	uint32_t x;
	int rc, tries;

	for (tries = 0; tries < 1000; tries++) {
		if ((rc = fn(arg, &x)) != 0)
			return rc;
		if (x < limit) {
			*out = x % n;
			return 0;
		}
	}
	return OTP_EIO;
}

int
otp_otpw_multi(const char *img, const struct otp_otpw *w, const char *locked,
    otp_word_fn fn, void *arg, struct otp_otpw_chal *c)
{
	uint32_t pick;
	unsigned i, k, cand, avail = 0, taken;
	size_t ll = strlen(locked);
	const char *e;
	int rc;

	memset(c, 0, sizeof(*c));
	if (w->remaining < OTP_OTPW_MULTI_MIN ||
	    w->remaining < OTP_OTPW_MULTI + 1)
		return OTP_EOTPWFEW;
	/* The candidates: unused and not the locked one.  Each is picked
	 * as the pick-th candidate of a scan, so that every one is as
	 * likely and no locked entry can slip in. */
	for (i = 0; i < w->entries; i++) {
		e = entry_at(img, w, i);
		if (e[0] != '-' && !(ll == w->challen &&
		    memcmp(e, locked, ll) == 0))
			avail++;
	}
	if (avail < OTP_OTPW_MULTI)
		return OTP_EOTPWFEW;
	for (k = 0; k < OTP_OTPW_MULTI; k++) {
		if ((rc = uniform(fn, arg, avail - k, &pick)) != 0) {
			memset(c, 0, sizeof(*c));
			return rc;
		}
		for (i = 0, cand = 0; i < w->entries; i++) {
			e = entry_at(img, w, i);
			if (e[0] == '-' || (ll == w->challen &&
			    memcmp(e, locked, ll) == 0))
				continue;
			for (taken = 0; taken < c->n && c->idx[taken] != i;
			    taken++)
				;
			if (taken < c->n)
				continue;
			if (cand++ == pick)
				break;
		}
		chal_add(img, w, c, i);
	}
	return 0;
}

int
otp_otpw_chal_parse(const char *img, const struct otp_otpw *w,
    const char *text, struct otp_otpw_chal *c)
{
	const char *p = text, *end;
	unsigned i, k;
	size_t n;

	memset(c, 0, sizeof(*c));
	for (k = 0; k < OTP_OTPW_MULTI; k++) {
		end = strchr(p, '/');
		n = end != NULL ? (size_t)(end - p) : strlen(p);
		if (n != w->challen)
			return OTP_EOTPWCHAL;
		for (i = 0; i < n; i++)
			if (p[i] < '0' || p[i] > '9')
				return OTP_EOTPWCHAL;
		for (i = 0; i < w->entries; i++)
			if (entry_unused(img, w, i) &&
			    memcmp(entry_at(img, w, i), p, n) == 0)
				break;
		if (i == w->entries) {
			memset(c, 0, sizeof(*c));
			return OTP_EOTPWUNKNOWN;
		}
		for (n = 0; n < c->n; n++)
			if (c->idx[n] == i)
				return OTP_EOTPWCHAL;	/* twice */
		chal_add(img, w, c, i);
		if (end == NULL)
			break;
		p = end + 1;
	}
	if (end != NULL || (c->n != 1 && c->n != OTP_OTPW_MULTI)) {
		memset(c, 0, sizeof(*c));
		return OTP_EOTPWCHAL;
	}
	return 0;
}

int
otp_otpw_unused(const char *img, const struct otp_otpw *w,
    const struct otp_otpw_chal *c)
{
	unsigned k;

	for (k = 0; k < c->n; k++)
		if (!entry_unused(img, w, c->idx[k]))
			return 0;
	return c->n > 0;
}

int
otp_otpw_check(const char *img, const struct otp_otpw *w,
    const struct otp_otpw_chal *c, const char *resp)
{
	char pw[OTP_OTPW_MULTI * OTP_OTPW_PWLEN_MAX];
	char h[OTP_OTPW_HASHLEN + 1];
	size_t plen, want = (size_t)c->n * w->pwlen;
	unsigned k;
	int ok = 1;

	if (c->n < 1 || c->n > OTP_OTPW_MULTI || !otp_otpw_unused(img, w, c))
		return 0;
	if (split_response(resp, strlen(resp), pw, want, &plen) != 0)
		return 0;
	for (k = 0; k < c->n; k++) {
		otp_otpw_hash(resp, plen, pw + (size_t)k * w->pwlen, w->pwlen,
		    h);
		ok &= otp_ct_equal(h, entry_at(img, w, c->idx[k]) +
		    w->challen, OTP_OTPW_HASHLEN);
	}
	otp_wipe(pw, want);
	otp_wipe(h, sizeof(h));
	return ok;
}

void
otp_otpw_mark(char *img, struct otp_otpw *w, const struct otp_otpw_chal *c)
{
	unsigned k, i;

	for (k = 0; k < c->n; k++) {
		if (!entry_unused(img, w, c->idx[k]))
			continue;
		memset(img + w->start + (size_t)c->idx[k] * w->linelen, '-',
		    w->linelen - 1);
		w->remaining--;
	}
	w->first = -1;
	for (i = 0; i < w->entries; i++)
		if (entry_unused(img, w, i)) {
			w->first = (long)i;
			break;
		}
}

int
otp_otpw_generate(const char *prefix, size_t plen, unsigned n,
    otp_word_fn fn, void *arg, char *pw, size_t pwsz, char *img,
    size_t imgsz, size_t *imglen)
{
	const size_t ll = OTP_OTPW_GEN_CHALLEN + OTP_OTPW_HASHLEN + 1;
	uint16_t order[OTP_OTPW_GEN_MAX];
	uint8_t bits[8];
	uint32_t w1, w2, j;
	char h[OTP_OTPW_HASHLEN + 1], num[8];
	size_t pos;
	unsigned k;
	uint16_t t;
	int rc;

	*imglen = 0;
	if (plen == 0)
		return OTP_EOTPWPREFIX;
	if (n < OTP_OTPW_GEN_MIN || n > OTP_OTPW_GEN_MAX)
		return OTP_EOTPWCOUNT;
	if (pwsz < (size_t)n * OTP_OTPW_GEN_PWCHARS ||
	    imgsz < 32 + (size_t)n * ll)
		return OTP_ENOSPACE;
	for (k = 0; k < n; k++) {
		/* 48 random bits, 8 characters of 6 bits. */
		if ((rc = fn(arg, &w1)) != 0 || (rc = fn(arg, &w2)) != 0)
			goto fail;
		bits[0] = (uint8_t)(w1 >> 24);
		bits[1] = (uint8_t)(w1 >> 16);
		bits[2] = (uint8_t)(w1 >> 8);
		bits[3] = (uint8_t)w1;
		bits[4] = (uint8_t)(w2 >> 24);
		bits[5] = (uint8_t)(w2 >> 16);
		bits[6] = 0;
		encode6(bits, OTP_OTPW_GEN_PWCHARS, (char *)h);
		memcpy(pw + (size_t)k * OTP_OTPW_GEN_PWCHARS, h,
		    OTP_OTPW_GEN_PWCHARS);
		order[k] = (uint16_t)k;
	}
	/* The file lists the entries in random order (Fisher-Yates), so
	 * that it does not say which number comes next. */
	for (k = n - 1; k > 0; k--) {
		if ((rc = uniform(fn, arg, k + 1, &j)) != 0)
			goto fail;
		t = order[k];
		order[k] = order[j];
		order[j] = t;
	}
	pos = (size_t)snprintf(img, imgsz, "OTPW1\n%u %d %d %d\n", n,
	    OTP_OTPW_GEN_CHALLEN, OTP_OTPW_HASHLEN, OTP_OTPW_GEN_PWCHARS);
	for (k = 0; k < n; k++) {
		(void)snprintf(num, sizeof(num), "%03u", order[k]);
		memcpy(img + pos, num, OTP_OTPW_GEN_CHALLEN);
		otp_otpw_hash(prefix, plen, pw + (size_t)order[k] *
		    OTP_OTPW_GEN_PWCHARS, OTP_OTPW_GEN_PWCHARS, h);
		memcpy(img + pos + OTP_OTPW_GEN_CHALLEN, h, OTP_OTPW_HASHLEN);
		img[pos + ll - 1] = '\n';
		pos += ll;
	}
	*imglen = pos;
	otp_wipe(bits, sizeof(bits));
	otp_wipe(h, sizeof(h));
	otp_wipe(&w1, sizeof(w1));
	otp_wipe(&w2, sizeof(w2));
	otp_wipe(order, sizeof(order));
	return 0;
fail:
	otp_wipe(pw, pwsz);
	otp_wipe(bits, sizeof(bits));
	otp_wipe(h, sizeof(h));
	otp_wipe(order, sizeof(order));
	return rc;
}

/* Append n bytes at s to out[*pos]; -1 when it does not fit. */
static int
put(char *out, size_t outsz, size_t *pos, const char *s, size_t n)
{
	if (outsz - *pos <= n)
		return -1;
	memcpy(out + *pos, s, n);
	*pos += n;
	out[*pos] = '\0';
	return 0;
}

int
otp_otpw_list(const char *pw, unsigned n, const char *when,
    const char *host, char *out, size_t outsz)
{
	char cell[CELL_WIDTH + 8], line[160];
	size_t pos = 0;
	unsigned page, rows, i, j, k, first, count, per = LIST_ROWS * LIST_COLS;
	int len;

	if (n < 1 || n > OTP_OTPW_GEN_MAX)
		return OTP_EOTPWCOUNT;
	if (outsz < 1)
		return OTP_ENOSPACE;
	out[0] = '\0';
	for (page = 0, first = 0; first < n; page++, first += per) {
		count = n - first < per ? n - first : per;
		/* Numbers run down the columns; a short last page has as
		 * many rows as its columns need. */
		rows = (count + LIST_COLS - 1) / LIST_COLS;
		len = snprintf(line, sizeof(line),
		    "OTPW list generated %s on %s\r\n\r\n", when, host);
		if (len < 0 || (size_t)len >= sizeof(line) ||
		    put(out, outsz, &pos, line, (size_t)len) != 0)
			goto nospace;
		for (i = 0; i < rows; i++) {
			for (j = 0; j < LIST_COLS; j++) {
				k = j * rows + i;
				if (k >= count)
					break;
				if (j > 0 && put(out, outsz, &pos, "  ", 2))
					goto nospace;
				k += first;
				(void)snprintf(cell, sizeof(cell),
				    "%03u %.4s %.4s", k,
				    pw + (size_t)k * OTP_OTPW_GEN_PWCHARS,
				    pw + (size_t)k * OTP_OTPW_GEN_PWCHARS + 4);
				if (put(out, outsz, &pos, cell, CELL_WIDTH))
					goto nospace;
			}
			if (i + 1 < rows && put(out, outsz, &pos, "\r\n", 2))
				goto nospace;
		}
		len = snprintf(line, sizeof(line), "\r\n\r\n%*s%s",
		    (int)((LIST_COLS * (CELL_WIDTH + 2) - 2) / 2 + 25),
		    REMEMBER, first + per < n ? "\f\n" : "\r\n");
		if (len < 0 || put(out, outsz, &pos, line, (size_t)len) != 0)
			goto nospace;
	}
	otp_wipe(cell, sizeof(cell));
	return (int)pos;
nospace:
	otp_wipe(cell, sizeof(cell));
	otp_wipe(out, outsz);
	return OTP_ENOSPACE;
}

/*
 * linger.c - linger=N: an answer accepted once is taken again from the
 * same user and client for N sliding seconds.  A record keeps no answer:
 * its expiry, a random salt and HMAC-SHA256 keyed with the salt followed
 * by the token's secret (where the store has it) over
 *
 *	"otp-utils linger 1" user 0x00 client 0x00 answer 0x00 rest
 *
 * where answer is the whole text the host gave (a PIN or a password
 * before the code included) and rest the decimal length of what the
 * login handed on of it, so that a lingering answer hands on what its
 * accept did; then, where the store binds a text too (a users file
 * line's PASSWORD field), 0x00 and that text.  With the line's secret in
 * the key, such a record is that line's: it ends when the line's secret
 * or PASSWORD changes.  The text goes in the message, not the key, so
 * that nothing can slide between it and the secret, and a record without
 * it is the MAC it always was.  The salt comes from the caller (the
 * system floor has the random source): nothing here reads the system.
 * The stores keep the records as text, "EXPIRY SALTHEX MACHEX"
 * (man/otp-state.5); a file of records kept apart from its token (an
 * OTPW list's) starts with a line that binds it to the token's image
 * (otp_linger_bind_line).
 */
#include <stdio.h>
#include <string.h>

#include <nettle/hmac.h>
#include <nettle/sha2.h>

#include "otp.h"
#include "otp_linger.h"

#define LABEL	"otp-utils linger 1"
#define BIND_LABEL	"otp-utils linger bind 1"
#define CUT_MAX	72	/* the longest PIN and code split off */

_Static_assert(OTP_LINGER_MACLEN == SHA256_DIGEST_SIZE, "mac size");

int
otp_linger_applies(const struct otp_linger_who *w)
{
	return w->user != NULL && w->user[0] != '\0' && w->client != NULL &&
	    w->client[0] != '\0';
}

static void
mac(const uint8_t salt[OTP_LINGER_SALTLEN], const struct otp_linger_who *w,
    const char *answer, size_t rest, uint8_t out[OTP_LINGER_MACLEN])
{
	struct hmac_sha256_ctx h;
	uint8_t key[OTP_LINGER_SALTLEN + OTP_KEY_MAX];
	size_t keylen = OTP_LINGER_SALTLEN, klen = w->keylen;
	char num[24];
	int n;

	memcpy(key, salt, OTP_LINGER_SALTLEN);
	if (w->key != NULL && klen > 0) {
		if (klen > OTP_KEY_MAX)
			klen = OTP_KEY_MAX;
		memcpy(key + keylen, w->key, klen);
		keylen += klen;
	}
	hmac_sha256_set_key(&h, keylen, key);
	otp_wipe(key, sizeof(key));
	hmac_sha256_update(&h, sizeof(LABEL) - 1, (const uint8_t *)LABEL);
	hmac_sha256_update(&h, strlen(w->user) + 1, (const uint8_t *)w->user);
	hmac_sha256_update(&h, strlen(w->client) + 1,
	    (const uint8_t *)w->client);
	hmac_sha256_update(&h, strlen(answer) + 1, (const uint8_t *)answer);
	n = snprintf(num, sizeof(num), "%zu", rest);
	hmac_sha256_update(&h, (size_t)n, (const uint8_t *)num);
	if (w->bind != NULL) {
		hmac_sha256_update(&h, 1, (const uint8_t *)"");
		hmac_sha256_update(&h, strlen(w->bind),
		    (const uint8_t *)w->bind);
	}
	hmac_sha256_digest(&h, OTP_LINGER_MACLEN, out);
	otp_wipe(&h, sizeof(h));
}

void
otp_linger_make(struct otp_linger *r, const uint8_t salt[OTP_LINGER_SALTLEN],
    const struct otp_linger_who *w, const char *answer, size_t rest,
    int64_t expiry)
{
	r->expiry = expiry;
	memcpy(r->salt, salt, OTP_LINGER_SALTLEN);
	mac(salt, w, answer, rest, r->mac);
}

int
otp_linger_find(const struct otp_linger *recs, size_t n,
    const struct otp_linger_who *w, const char *answer, int64_t now,
    size_t *rest)
{
	uint8_t m[OTP_LINGER_MACLEN];
	size_t i, len = strlen(answer), k, cut;
	int hit = -1, eq;

	*rest = 0;
	if (!otp_linger_applies(w))
		return -1;
	/* What was handed on: nothing (a bare answer), or what goes before
	 * the last 6 to CUT_MAX characters (a code, its PIN). */
	for (i = 0; i < n; i++) {
		if (recs[i].expiry <= now)
			continue;
		/* k: the characters kept back; 0 stands for none handed on. */
		for (k = 0; k <= CUT_MAX && k < len; k++) {
			if (k > 0 && k < 6)
				continue;
			cut = k == 0 ? 0 : len - k;
			mac(recs[i].salt, w, answer, cut, m);
			eq = otp_ct_equal(m, recs[i].mac, sizeof(m));
			if (eq && hit < 0) {
				hit = (int)i;
				*rest = cut;
			}
		}
	}
	otp_wipe(m, sizeof(m));
	return hit;
}

int
otp_linger_prune(struct otp_linger *recs, size_t *n, int64_t now)
{
	size_t i = 0;
	int gone = 0;

	while (i < *n) {
		if (recs[i].expiry > now) {
			i++;
			continue;
		}
		memmove(recs + i, recs + i + 1, (*n - i - 1) * sizeof(*recs));
		(*n)--;
		gone = 1;
	}
	return gone;
}

void
otp_linger_add(struct otp_linger *recs, size_t *n, const struct otp_linger *r,
    int64_t now)
{
	size_t i, first = 0;

	(void)otp_linger_prune(recs, n, now);
	if (*n < OTP_LINGER_RECORDS) {
		recs[(*n)++] = *r;
		return;
	}
	for (i = 1; i < *n; i++)
		if (recs[i].expiry < recs[first].expiry)
			first = i;
	recs[first] = *r;
}

int
otp_linger_take(struct otp_linger *recs, size_t *n,
    const struct otp_linger_who *w, const char *answer, int64_t now,
    unsigned secs, size_t *rest, int *changed)
{
	int hit;

	*changed = 0;
	if ((hit = otp_linger_find(recs, *n, w, answer, now, rest)) < 0)
		return -1;
	*changed = recs[hit].expiry != now + (int64_t)secs;
	recs[hit].expiry = now + (int64_t)secs;
	*changed |= otp_linger_prune(recs, n, now);
	return hit;
}

void
otp_linger_put(struct otp_linger *recs, size_t *n,
    const uint8_t salt[OTP_LINGER_SALTLEN], const struct otp_linger_who *w,
    const char *answer, size_t rest, int64_t now, unsigned secs)
{
	struct otp_linger r;

	otp_linger_make(&r, salt, w, answer, rest, now + (int64_t)secs);
	otp_linger_add(recs, n, &r, now);
	otp_wipe(&r, sizeof(r));
}

size_t
otp_linger_format(const struct otp_linger *r, char *out, size_t outsz)
{
	int n;
	size_t len;

	if (outsz < OTP_LINGER_TEXTMAX)
		return 0;
	n = snprintf(out, outsz, "%lld ", (long long)r->expiry);
	len = (size_t)n;
	(void)otp_hex_encode(r->salt, OTP_LINGER_SALTLEN, out + len,
	    outsz - len);
	len += 2 * OTP_LINGER_SALTLEN;
	out[len++] = ' ';
	(void)otp_hex_encode(r->mac, OTP_LINGER_MACLEN, out + len,
	    outsz - len);
	return len + 2 * OTP_LINGER_MACLEN;
}

int
otp_linger_parse(const char *text, size_t len, struct otp_linger *r)
{
	const char *sp1, *sp2;
	char num[24];
	uint64_t e;
	size_t got;

	if ((sp1 = memchr(text, ' ', len)) == NULL ||
	    (size_t)(sp1 - text) >= sizeof(num) || sp1 == text)
		return OTP_EINVAL;
	memcpy(num, text, (size_t)(sp1 - text));
	num[sp1 - text] = '\0';
	if (otp_parse_u64(num, 0, INT64_MAX, &e) != 0)
		return OTP_EINVAL;
	sp1++;
	len -= (size_t)(sp1 - text);
	if (len != 2 * OTP_LINGER_SALTLEN + 1 + 2 * OTP_LINGER_MACLEN ||
	    (sp2 = sp1 + 2 * OTP_LINGER_SALTLEN)[0] != ' ')
		return OTP_EINVAL;
	if (otp_hex_decode(sp1, 2 * OTP_LINGER_SALTLEN, r->salt,
	    OTP_LINGER_SALTLEN, &got, NULL) != 0 || got != OTP_LINGER_SALTLEN ||
	    otp_hex_decode(sp2 + 1, 2 * OTP_LINGER_MACLEN, r->mac,
	    OTP_LINGER_MACLEN, &got, NULL) != 0 || got != OTP_LINGER_MACLEN)
		return OTP_EINVAL;
	r->expiry = (int64_t)e;
	return 0;
}

size_t
otp_linger_lines(const struct otp_linger *recs, size_t n, char *out,
    size_t outsz)
{
	size_t i, len = 0, k = sizeof(OTP_LINGER_LINE) - 1;

	if (outsz < OTP_LINGER_LINESMAX)
		return 0;
	for (i = 0; i < n && i < OTP_LINGER_RECORDS; i++) {
		memcpy(out + len, OTP_LINGER_LINE, k);
		len += k;
		len += otp_linger_format(&recs[i], out + len, outsz - len);
		out[len++] = '\n';
	}
	return len;
}

void
otp_linger_lines_parse(const char *text, size_t len, struct otp_linger *recs,
    size_t *n)
{
	const char *p = text, *end = text + len, *e;
	size_t k = sizeof(OTP_LINGER_LINE) - 1;

	*n = 0;
	while (p < end && *n < OTP_LINGER_RECORDS) {
		if ((e = memchr(p, '\n', (size_t)(end - p))) == NULL)
			e = end;
		if ((size_t)(e - p) > k && memcmp(p, OTP_LINGER_LINE, k) == 0 &&
		    otp_linger_parse(p + k, (size_t)(e - p) - k,
		    &recs[*n]) == 0)
			(*n)++;
		p = e + 1;
	}
}

size_t
otp_linger_bind_line(const char *img, size_t len, char *out, size_t outsz)
{
	struct sha256_ctx h;
	uint8_t d[SHA256_DIGEST_SIZE];
	size_t k = sizeof(OTP_LINGER_BIND) - 1;

	if (outsz < OTP_LINGER_BINDMAX)
		return 0;
	sha256_init(&h);
	sha256_update(&h, sizeof(BIND_LABEL), (const uint8_t *)BIND_LABEL);
	sha256_update(&h, len, (const uint8_t *)img);
	sha256_digest(&h, sizeof(d), d);
	memcpy(out, OTP_LINGER_BIND, k);
	(void)otp_hex_encode(d, sizeof(d), out + k, outsz - k);
	k += 2 * sizeof(d);
	out[k++] = '\n';
	out[k] = '\0';
	otp_wipe(&h, sizeof(h));
	otp_wipe(d, sizeof(d));
	return k;
}

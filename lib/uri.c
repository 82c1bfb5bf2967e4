/*
 * uri.c - otpauth:// key URIs (Google Authenticator's Key Uri Format, as
 * otp-uri(1) describes it): a parser that takes every spelling real
 * producers emit and a builder that writes one canonical form.
 *
 * otpauth://TYPE/LABEL?PARAMETERS, percent-encoding per RFC 3986 §2.1.
 * Each component is split first and percent-decoded exactly once after, so
 * an escaped '&', '=', ':' or '%' is data, never syntax.
 */
#include <stdio.h>
#include <string.h>

#include "otp.h"
#include "otp_uri.h"

#define SCHEME		"otpauth://"
#define SCHEME_LEN	(sizeof(SCHEME) - 1)
#define PERIOD_MAX	UINT32_MAX

/* Decoded-parameter scratch: the longest value a line can hold. */
#define VALUE_MAX	OTP_LINE_MAX

void
otp_uri_init(struct otp_uri *u)
{
	memset(u, 0, sizeof(*u));
	u->type = OTP_DEFAULT_TYPE;
	u->alg = OTP_DEFAULT_ALG;
	u->digits = OTP_DEFAULT_DIGITS;
	u->counter = 0;
	u->period = OTP_DEFAULT_PERIOD;
}

/* 1 when a and b are the same account: type (Steam's or not), algorithm,
 * digits (but for Steam's 5 characters), the counter of a HOTP or the
 * period of a TOTP account, issuer, account name and key (compared in
 * constant time); what a URI carries, not how it was read (have, warn,
 * is_uri), nor the unknown parameters it passes on (extra). */
int
otp_uri_equal(const struct otp_uri *a, const struct otp_uri *b)
{
	return a->type == b->type && a->steam == b->steam && a->alg == b->alg &&
	    (a->steam || a->digits == b->digits) &&
	    (a->type != OTP_TYPE_HOTP || a->counter == b->counter) &&
	    (a->type != OTP_TYPE_TOTP || a->period == b->period) &&
	    strcmp(a->issuer, b->issuer) == 0 &&
	    strcmp(a->account, b->account) == 0 &&
	    a->key.len == b->key.len &&
	    otp_ct_equal(a->key.buf, b->key.buf, a->key.len);
}

/*
 * Percent-decode in[0..n) into out (then NUL) and check that it is text
 * (otp_text_check); offsets in *erroff are relative to in.
 */
static int
pct_decode(const char *in, size_t n, int flags, char *out, size_t outsz,
    size_t *outlen, size_t *erroff)
{
	int r;

	if ((r = otp_pct_decode(in, n, flags, out, outsz, outlen,
	    erroff)) != 0)
		return r;
	if ((r = otp_text_check(out, *outlen, erroff)) != 0) {
		*erroff = otp_pct_offset(in, n, *erroff);
		return r;
	}
	return 0;
}

/* The label: "account" or "issuer:account", ':' raw or as %3A. */
static int
parse_label(const char *s, size_t n, struct otp_uri *u, char *issuer,
    size_t *erroff)
{
	char buf[OTP_LINE_MAX];
	size_t len, off, plen, aoff;
	int r;

	if ((r = pct_decode(s, n, 0, buf, sizeof(buf), &len, &off)) != 0) {
		*erroff = off;
		return r;
	}
	/* An empty prefix (":account") names no issuer. */
	otp_label_split(buf, len, NULL, 0, &plen, &aoff);
	if (plen >= OTP_LABEL_MAX || len - aoff >= OTP_LABEL_MAX) {
		*erroff = 0;
		return OTP_ETOOLONG;
	}
	memcpy(issuer, buf, plen);
	issuer[plen] = '\0';
	if (plen > 0)
		u->have |= OTP_HAVE_LABELISSUER;
	memcpy(u->account, buf + aoff, len - aoff);
	u->account[len - aoff] = '\0';
	otp_wipe(buf, sizeof(buf));
	return 0;
}

enum param {
	P_SECRET, P_ISSUER, P_ALGORITHM, P_DIGITS, P_COUNTER, P_PERIOD,
	P_UNKNOWN
};

static const char *const param_names[] = {
	"secret", "issuer", "algorithm", "digits", "counter", "period",
};

static enum param
param_lookup(const char *name, size_t n)
{
	size_t i;

	for (i = 0; i < sizeof(param_names) / sizeof(param_names[0]); i++)
		if (strlen(param_names[i]) == n &&
		    otp_ascii_caseeq(name, param_names[i], n))
			return (enum param)i;
	return P_UNKNOWN;
}

static int
set_secret(struct otp_uri *u, const char *v, size_t n, size_t *erroff)
{
	uint8_t buf[OTP_KEY_MAX + 8];
	size_t len = 0, off = 0;
	int r;

	if (n == 0)
		return OTP_ENOSECRET;
	/* Padding carries nothing: producers that pad (or over-pad, as
	 * "...PXP====" on a full group) are accepted with a warning. */
	if (v[n - 1] == '=') {
		u->warn |= OTP_WARN_PADDED;
		while (n > 0 && v[n - 1] == '=')
			n--;
		if (n == 0)
			return OTP_EKEYEMPTY;
	}
	r = otp_b32_decode(v, n, buf, sizeof(buf), &len, 0, &off);
	if (r == OTP_ENOSPACE || (r == 0 && len > OTP_KEY_MAX)) {
		otp_wipe(buf, sizeof(buf));
		*erroff = 0;
		return OTP_EKEYLONG;
	}
	if (r != 0) {
		otp_wipe(buf, sizeof(buf));
		*erroff = off;
		return r;
	}
	if (len == 0) {
		*erroff = 0;
		return OTP_EKEYEMPTY;
	}
	memcpy(u->key.buf, buf, len);
	u->key.len = len;
	otp_wipe(buf, sizeof(buf));
	if (len < 16)
		u->warn |= OTP_WARN_SHORTKEY;
	return 0;
}

/* A numeric parameter: its range, its error, the bit it sets in have. */
static int
set_number(struct otp_uri *u, enum param p, const char *v)
{
	static const struct {
		uint64_t	min, max;
		int		err;
		unsigned	have;
	} num[] = {
		[P_DIGITS] = { OTP_DIGITS_MIN, OTP_DIGITS_MAX, OTP_EDIGITS,
		    OTP_HAVE_DIGITS },
		[P_COUNTER] = { 0, UINT64_MAX, OTP_ECOUNTER, OTP_HAVE_COUNTER },
		[P_PERIOD] = { 1, PERIOD_MAX, OTP_ESTEP, OTP_HAVE_PERIOD },
	};
	uint64_t x;

	if (otp_parse_u64(v, num[p].min, num[p].max, &x) != 0)
		return num[p].err;
	if (p == P_DIGITS)
		u->digits = (unsigned)x;
	else if (p == P_COUNTER)
		u->counter = x;
	else
		u->period = x;
	u->have |= num[p].have;
	return 0;
}

/* One decoded parameter value v (NUL-terminated, length n). */
static int
set_param(struct otp_uri *u, enum param p, const char *v, size_t n,
    size_t *erroff)
{
	*erroff = 0;
	switch (p) {
	case P_SECRET:
		return set_secret(u, v, n, erroff);
	case P_ISSUER:
		/* An empty issuer= is absent: the label's prefix stays. */
		if (n >= OTP_LABEL_MAX)
			return OTP_ETOOLONG;
		memcpy(u->issuer, v, n + 1);
		if (n > 0)
			u->have |= OTP_HAVE_ISSUER;
		return 0;
	case P_ALGORITHM:
		if (otp_alg_parse(v, &u->alg) != 0)
			return OTP_EALG;
		if (u->steam && u->alg != OTP_ALG_SHA1)
			return OTP_EURISTEAM;
		u->have |= OTP_HAVE_ALG;
		return 0;
	case P_DIGITS:
		/* Steam's codes are 5 characters, as some producers say. */
		if (u->steam) {
			if (strcmp(v, "5") != 0)
				return OTP_EURISTEAM;
			u->have |= OTP_HAVE_DIGITS;
			return 0;
		}
		return set_number(u, p, v);
	case P_COUNTER:
	case P_PERIOD:
		return set_number(u, p, v);
	case P_UNKNOWN:
	default:
		return 0;
	}
}

/* Keep an unknown parameter q[0..n) as given, after those before it. */
static int
keep_extra(struct otp_uri *u, const char *q, size_t n)
{
	size_t o = strlen(u->extra);

	if (o + (o > 0) + n >= sizeof(u->extra))
		return OTP_ETOOLONG;
	if (o > 0)
		u->extra[o++] = '&';
	memcpy(u->extra + o, q, n);
	u->extra[o + n] = '\0';
	u->warn |= OTP_WARN_UNKNOWN;
	return 0;
}

/* The parameter a name q[0..n) means, decoded first (s%65cret is secret);
 * OTP_E* for a name that does not decode. */
static int
name_lookup(const char *q, size_t n, enum param *p, size_t *erroff)
{
	char name[VALUE_MAX];
	size_t len;
	int r;

	if ((r = pct_decode(q, n, OTP_PCT_PLUS, name, sizeof(name), &len,
	    erroff)) != 0)
		return r;
	*p = param_lookup(name, len);
	return 0;
}

static int
parse_query(const char *q, size_t n, size_t base, struct otp_uri *u,
    size_t *erroff)
{
	char val[VALUE_MAX];
	unsigned seen = 0;
	size_t i = 0;
	int r = 0;

	while (i <= n) {
		size_t end, eq, vlen, off;
		enum param p;

		for (end = i; end < n && q[end] != '&'; end++)
			;
		for (eq = i; eq < end && q[eq] != '='; eq++)
			;
		if (end == i) {
			/* Empty segment ("&&", trailing '&'): nothing. */
			i = end + 1;
			continue;
		}
		if ((r = name_lookup(q + i, eq - i, &p, &off)) != 0) {
			*erroff = base + i + off;
			goto out;
		}
		if (p == P_UNKNOWN) {
			/* Unknown parameters (image=, ...) are passed on as
			 * given, so the text as given must be sound (it is
			 * written back as is) and so must its escapes. */
			if ((r = otp_text_check(q + i, end - i, &off)) != 0) {
				*erroff = base + i + off;
				goto out;
			}
			if (eq < end && (r = pct_decode(q + eq + 1,
			    end - eq - 1, OTP_PCT_PLUS, val, sizeof(val), &vlen,
			    &off)) != 0) {
				*erroff = base + eq + 1 + off;
				goto out;
			}
			if ((r = keep_extra(u, q + i, end - i)) != 0) {
				*erroff = base + i;
				goto out;
			}
			i = end + 1;
			continue;
		}
		if ((seen & (1u << p)) || eq == end) {
			*erroff = base + i;
			r = (seen & (1u << p)) ? OTP_EURIDUP : OTP_EURIPARAM;
			goto out;
		}
		seen |= 1u << p;
		if ((r = pct_decode(q + eq + 1, end - eq - 1, OTP_PCT_PLUS, val,
		    sizeof(val), &vlen, &off)) != 0) {
			*erroff = base + eq + 1 + off;
			goto out;
		}
		if ((r = set_param(u, p, val, vlen, &off)) != 0) {
			*erroff = base + eq + 1 +
			    otp_pct_offset(q + eq + 1, end - eq - 1, off);
			goto out;
		}
		i = end + 1;
	}
	if (!(seen & (1u << P_SECRET))) {
		*erroff = base + n;
		r = OTP_ENOSECRET;
	}
out:
	otp_wipe(val, sizeof(val));
	return r;
}

int
otp_uri_parse(const char *uri, struct otp_uri *u, size_t *erroff)
{
	char lissuer[OTP_LABEL_MAX];
	const char *type, *label, *q;
	size_t len, tlen, llen, dummy;
	int r;

	if (erroff == NULL)
		erroff = &dummy;
	*erroff = 0;
	otp_uri_init(u);
	len = strnlen(uri, OTP_LINE_MAX);
	if (len >= OTP_LINE_MAX) {
		*erroff = OTP_LINE_MAX - 1;
		return OTP_ETOOLONG;
	}
	/* Scheme and type are case-insensitive (RFC 3986 §3.1, §3.2.2). */
	if (len < SCHEME_LEN || !otp_ascii_caseeq(uri, SCHEME, SCHEME_LEN))
		return OTP_EURI;
	type = uri + SCHEME_LEN;
	tlen = strcspn(type, "/?");
	if (tlen == 4 && otp_ascii_caseeq(type, "totp", 4))
		u->type = OTP_TYPE_TOTP;
	else if (tlen == 4 && otp_ascii_caseeq(type, "hotp", 4))
		u->type = OTP_TYPE_HOTP;
	else if (tlen == 5 && otp_ascii_caseeq(type, "steam", 5)) {
		/* Steam Guard: TOTP whose codes are 5 characters. */
		u->type = OTP_TYPE_TOTP;
		u->steam = 1;
		u->warn |= OTP_WARN_STEAM;
	} else {
		*erroff = SCHEME_LEN;
		return OTP_EURITYPE;
	}
	label = type + tlen;
	if (*label == '/')
		label++;
	llen = strcspn(label, "?");
	q = label + llen;
	if ((r = parse_label(label, llen, u, lissuer, erroff)) != 0) {
		*erroff += (size_t)(label - uri);
		goto fail;
	}
	if (*q != '?') {
		*erroff = len;
		r = OTP_ENOSECRET;
		goto fail;
	}
	q++;
	if ((r = parse_query(q, strlen(q), (size_t)(q - uri), u,
	    erroff)) != 0)
		goto fail;
	/* The issuer= parameter wins over the label prefix. */
	if (u->have & OTP_HAVE_ISSUER) {
		if ((u->have & OTP_HAVE_LABELISSUER) &&
		    strcmp(lissuer, u->issuer) != 0)
			u->warn |= OTP_WARN_ISSUERMISMATCH;
	} else
		memcpy(u->issuer, lissuer, sizeof(lissuer));
	if (u->issuer[0] == '\0')
		u->warn |= OTP_WARN_NOISSUER;
	/* Google Authenticator knows SHA1, 6 or 8 digits and the default
	 * period only. */
	if (u->alg != OTP_ALG_SHA1 || (!u->steam && u->digits != 6 &&
	    u->digits != 8) || (u->type == OTP_TYPE_TOTP &&
	    u->period != OTP_DEFAULT_PERIOD))
		u->warn |= OTP_WARN_GAIGNORES;
	u->is_uri = 1;
	return 0;
fail:
	otp_wipe(u, sizeof(*u));
	otp_uri_init(u);
	return r;
}

/* Append s percent-encoded (otp_pct_encode). */
static int
put_enc(char *out, size_t outsz, size_t *o, const char *s)
{
	int n;

	if ((n = otp_pct_encode(s, strlen(s), out + *o, outsz - *o)) < 0)
		return n;
	*o += (size_t)n;
	return 0;
}

static int
put_raw(char *out, size_t outsz, size_t *o, const char *s)
{
	size_t n = strlen(s);

	if (*o + n >= outsz)
		return OTP_ENOSPACE;
	memcpy(out + *o, s, n + 1);
	*o += n;
	return 0;
}

static int
check_label(const char *s)
{
	size_t n = strnlen(s, OTP_LABEL_MAX), bad;

	if (n >= OTP_LABEL_MAX)
		return OTP_ETOOLONG;
	return otp_text_check(s, n, &bad) != 0 ? OTP_EURILABEL : 0;
}

/* Unknown parameters as otp_uri_parse keeps them: text without control
 * characters, no empty segment, no known parameter, sound escapes; a
 * caller's own text that breaks the URI is refused, not written. */
static int
check_extra(const char *s)
{
	char val[VALUE_MAX];
	size_t n = strnlen(s, OTP_LINE_MAX), i, end, eq, len, off;
	enum param p;
	int r = 0;

	if (n >= OTP_LINE_MAX)
		return OTP_ETOOLONG;
	if (otp_text_check(s, n, &off) != 0)
		return OTP_EURIPARAM;
	for (i = 0; i < n && r == 0; i = end + 1) {
		for (end = i; end < n && s[end] != '&'; end++)
			;
		for (eq = i; eq < end && s[eq] != '='; eq++)
			;
		if (end == i || name_lookup(s + i, eq - i, &p, &off) != 0 ||
		    p != P_UNKNOWN || (eq < end && pct_decode(s + eq + 1,
		    end - eq - 1, OTP_PCT_PLUS, val, sizeof(val), &len,
		    &off) != 0))
			r = OTP_EURIPARAM;
	}
	if (n > 0 && s[n - 1] == '&')
		r = OTP_EURIPARAM;
	otp_wipe(val, sizeof(val));
	return r;
}

int
otp_uri_build(const struct otp_uri *u, char *out, size_t outsz)
{
	char secret[(OTP_KEY_MAX * 8 + 4) / 5 + 8], num[48];
	const char *acct = u->account, *iss = u->issuer;
	size_t o = 0;
	int form, r;

	if (outsz == 0)
		return OTP_ENOSPACE;
	out[0] = '\0';
	if ((u->type != OTP_TYPE_TOTP && u->type != OTP_TYPE_HOTP) ||
	    (u->steam && u->type != OTP_TYPE_TOTP))
		return OTP_EURITYPE;
	if (u->alg != OTP_ALG_SHA1 && u->alg != OTP_ALG_SHA256 &&
	    u->alg != OTP_ALG_SHA512)
		return OTP_EALG;
	if (u->steam && u->alg != OTP_ALG_SHA1)
		return OTP_EURISTEAM;
	if (!u->steam &&
	    (u->digits < OTP_DIGITS_MIN || u->digits > OTP_DIGITS_MAX))
		return OTP_EDIGITS;
	if (u->type == OTP_TYPE_TOTP &&
	    (u->period < 1 || u->period > PERIOD_MAX))
		return OTP_ESTEP;
	if (u->key.len == 0)
		return OTP_EKEYEMPTY;
	if (u->key.len > OTP_KEY_MAX)
		return OTP_EKEYLONG;
	if ((r = check_label(iss)) != 0 || (r = check_label(acct)) != 0)
		return r;
	if ((r = check_extra(u->extra)) != 0)
		return r;

	if ((r = put_raw(out, outsz, &o, u->steam ? SCHEME "steam/" :
	    u->type == OTP_TYPE_TOTP ? SCHEME "totp/" : SCHEME "hotp/")) != 0)
		goto done;
	/*
	 * The label.  A parser splits it at the first colon and drops the
	 * spaces after it, so the issuer prefix is written only when that
	 * reads back the same: no colon in the issuer, no leading space in
	 * the account.  An account with a colon and no usable prefix gets an
	 * empty one (":a:b"), which names no issuer.
	 */
	if ((form = otp_label_form(iss, acct, 0)) < 0) {
		r = form;
		goto done;
	}
	if (form == OTP_LABEL_ISSUER && (r = put_enc(out, outsz, &o, iss)) != 0)
		goto done;
	if (form != OTP_LABEL_PLAIN && (r = put_raw(out, outsz, &o, ":")) != 0)
		goto done;
	if ((r = put_enc(out, outsz, &o, acct)) != 0)
		goto done;

	/* Secret: upper-case Base32 without padding. */
	if ((r = otp_b32_encode(u->key.buf, u->key.len, secret,
	    sizeof(secret), OTP_B32_NOPAD)) < 0)
		goto done;
	if ((r = put_raw(out, outsz, &o, "?secret=")) != 0 ||
	    (r = put_raw(out, outsz, &o, secret)) != 0)
		goto done;
	if (iss[0] != '\0') {
		if ((r = put_raw(out, outsz, &o, "&issuer=")) != 0 ||
		    (r = put_enc(out, outsz, &o, iss)) != 0)
			goto done;
	}
	/* What a parser takes for the default is left out. */
	if (u->alg != OTP_DEFAULT_ALG) {
		if ((r = put_raw(out, outsz, &o, "&algorithm=")) != 0 ||
		    (r = put_raw(out, outsz, &o, otp_alg_name(u->alg))) != 0)
			goto done;
	}
	/* A Steam key's code length is the type's. */
	if (!u->steam && u->digits != OTP_DEFAULT_DIGITS) {
		snprintf(num, sizeof(num), "&digits=%u", u->digits);
		if ((r = put_raw(out, outsz, &o, num)) != 0)
			goto done;
	}
	/* Apps need the counter of an HOTP key: always written. */
	if (u->type == OTP_TYPE_HOTP)
		snprintf(num, sizeof(num), "&counter=%llu",
		    (unsigned long long)u->counter);
	else if (u->period != OTP_DEFAULT_PERIOD)
		snprintf(num, sizeof(num), "&period=%llu",
		    (unsigned long long)u->period);
	else
		num[0] = '\0';
	if ((r = put_raw(out, outsz, &o, num)) != 0)
		goto done;
	/* Unknown parameters last, in order, spelled as they came. */
	if (u->extra[0] != '\0' && ((r = put_raw(out, outsz, &o, "&")) != 0 ||
	    (r = put_raw(out, outsz, &o, u->extra)) != 0))
		goto done;
done:
	otp_wipe(secret, sizeof(secret));
	if (r != 0) {
		otp_wipe(out, outsz);
		out[0] = '\0';
		return r;
	}
	return 0;
}

int
otp_uri_extra_next(const struct otp_uri *u, size_t *pos, char *name,
    size_t namesz, char *value, size_t valuesz)
{
	const char *s = u->extra;
	size_t n = strnlen(s, sizeof(u->extra)), i = *pos, end, eq, len, off;
	int r;

	if (i >= n)
		return 0;
	for (end = i; end < n && s[end] != '&'; end++)
		;
	for (eq = i; eq < end && s[eq] != '='; eq++)
		;
	if ((r = otp_pct_decode(s + i, eq - i, OTP_PCT_PLUS, name, namesz,
	    &len, &off)) != 0)
		return r;
	/* A name without '=' has an empty value. */
	if ((r = otp_pct_decode(s + eq + (eq < end), end - eq - (eq < end),
	    OTP_PCT_PLUS, value, valuesz, &len, &off)) != 0)
		return r;
	*pos = end + 1;
	return 1;
}

void
otp_uri_part(const char *uri, size_t off, struct otp_uri_part *p)
{
	size_t len = strnlen(uri, OTP_LINE_MAX), tlen, q, i, end, eq, e;
	enum param pm;

	memset(p, 0, sizeof(*p));
	p->kind = OTP_URI_PART_SCHEME;
	if (len < SCHEME_LEN || !otp_ascii_caseeq(uri, SCHEME, SCHEME_LEN) ||
	    off < SCHEME_LEN) {
		p->len = len < SCHEME_LEN ? len : SCHEME_LEN;
		return;
	}
	tlen = strcspn(uri + SCHEME_LEN, "/?");
	if (off < SCHEME_LEN + tlen || (tlen == 0 && off == SCHEME_LEN)) {
		p->kind = OTP_URI_PART_TYPE;
		p->off = SCHEME_LEN;
		p->len = tlen;
		return;
	}
	q = SCHEME_LEN + tlen + strcspn(uri + SCHEME_LEN + tlen, "?");
	if (off < q) {
		p->kind = OTP_URI_PART_LABEL;
		p->off = SCHEME_LEN + tlen + (uri[SCHEME_LEN + tlen] == '/');
		p->len = q - p->off;
		return;
	}
	/* The '&'-separated segment of the query that holds off (its end
	 * included: an error at the end of a value). */
	for (i = q + 1; i <= len; i = end + 1) {
		for (end = i; end < len && uri[end] != '&'; end++)
			;
		if (off < i || off > end)
			continue;
		for (eq = i; eq < end && uri[eq] != '='; eq++)
			;
		p->kind = OTP_URI_PART_PARAM;
		p->off = i;
		p->len = eq - i;
		p->voff = eq < end ? eq + 1 : end;
		p->vlen = end - p->voff;
		p->secret = name_lookup(uri + i, eq - i, &pm, &e) == 0 &&
		    pm == P_SECRET;
		return;
	}
	p->kind = OTP_URI_PART_SCHEME;
	p->off = len;
}

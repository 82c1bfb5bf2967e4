/*
 * migration.c - Google Authenticator's "Transfer accounts" export:
 * otpauth-migration://offline?data=BASE64, where BASE64 is standard base64
 * (RFC 4648 §4) of a protobuf MigrationPayload (see otp-uri(1)):
 *
 *	message MigrationPayload { repeated OtpParameters otp_parameters = 1;
 *	    int32 version = 2; int32 batch_size = 3; int32 batch_index = 4;
 *	    int32 batch_id = 5; }
 *	message OtpParameters { bytes secret = 1; string name = 2;
 *	    string issuer = 3; Algorithm algorithm = 4; DigitCount digits = 5;
 *	    OtpType type = 6; int64 counter = 7; }
 *
 * This file maps those messages to and from struct otp_uri, over the
 * wire reader and writer of lib/protobuf.c, and holds the URI layer.
 */
#include <string.h>

#include "otp.h"
#include "otp_migration.h"
#include "otp_uri.h"
#include "protobuf_int.h"

#define MIG_PREFIX	"otpauth-migration://"
#define MIG_HOST	"offline"
#define MIG_PERIOD	OTP_DEFAULT_PERIOD	/* no period field: the app's */
#define DATA_PIECE	48	/* payload bytes encoded at a time */

/* Field numbers of MigrationPayload. */
enum payload_field {
	PAYLOAD_OTP_PARAMETERS = 1,	/* repeated OtpParameters */
	PAYLOAD_VERSION = 2,
	PAYLOAD_BATCH_SIZE = 3,
	PAYLOAD_BATCH_INDEX = 4,
	PAYLOAD_BATCH_ID = 5,
};

/* Field numbers of OtpParameters. */
enum param_field {
	PARAM_SECRET = 1,
	PARAM_NAME = 2,
	PARAM_ISSUER = 3,
	PARAM_ALGORITHM = 4,
	PARAM_DIGITS = 5,
	PARAM_TYPE = 6,
	PARAM_COUNTER = 7,
};

/* The values of OtpParameters' enums; 0 is "unspecified". */
enum { ALG_SHA1 = 1, ALG_SHA256 = 2, ALG_SHA512 = 3, ALG_MD5 = 4 };
enum { DIGITS_SIX = 1, DIGITS_EIGHT = 2 };
enum { TYPE_HOTP = 1, TYPE_TOTP = 2 };

/* Those values as ours (unspecified: the app's default), or an error. */
static const int algs[] = {
	[0] = OTP_ALG_SHA1, [ALG_SHA1] = OTP_ALG_SHA1,
	[ALG_SHA256] = OTP_ALG_SHA256, [ALG_SHA512] = OTP_ALG_SHA512,
	[ALG_MD5] = OTP_EMIGRATEUNSUP,	/* no HOTP over MD5 here */
};
static const int ndigits[] = { [0] = 6, [DIGITS_SIX] = 6, [DIGITS_EIGHT] = 8 };
static const int types[] = {
	[0] = OTP_TYPE_TOTP, [TYPE_HOTP] = OTP_TYPE_HOTP,
	[TYPE_TOTP] = OTP_TYPE_TOTP,
};

/* map[v], or err for a value past the end of map. */
static int
enum_value(uint64_t v, const int *map, size_t n, int err)
{
	return v < n ? map[v] : err;
}

/* Copy n bytes of checked text to a NUL-terminated label buffer. */
static int
label_copy(char dst[OTP_LABEL_MAX], const uint8_t *s, size_t n)
{
	if (n >= OTP_LABEL_MAX)
		return OTP_ETOOLONG;
	if (n > 0)
		memcpy(dst, s, n);
	dst[n] = '\0';
	return 0;
}

/* A string field seen in an account: where it starts and its bytes. */
struct field {
	const uint8_t	*s;
	size_t		 n;
	size_t		 off;	/* payload offset of the field's tag */
	int		 seen;
};

/* A varint field seen in an account. */
struct vfield {
	uint64_t	v;
	size_t		off;
	int		seen;
};

/*
 * Split the name into issuer and account as a URI label is split
 * (otp_label_split), the issuer field known: it wins over a name prefix,
 * and a prefix that differs from it is warned about.
 */
static int
split_name(struct otp_uri *u, const uint8_t *name, size_t nlen,
    const uint8_t *iss, size_t ilen)
{
	size_t plen, aoff;
	int r;

	if (name == NULL)	/* an absent name field reads as "" */
		name = (const uint8_t *)"";
	u->issuer[0] = '\0';
	if (ilen > 0) {
		if ((r = label_copy(u->issuer, iss, ilen)) != 0)
			return r;
		u->have |= OTP_HAVE_ISSUER;
	}
	otp_label_split((const char *)name, nlen, (const char *)iss, ilen,
	    &plen, &aoff);
	if (plen > 0) {
		u->have |= OTP_HAVE_LABELISSUER;
		if (ilen == 0) {
			if ((r = label_copy(u->issuer, name, plen)) != 0)
				return r;
		} else if (plen != ilen || memcmp(name, iss, ilen) != 0)
			u->warn |= OTP_WARN_ISSUERMISMATCH;
	}
	return label_copy(u->account, aoff > 0 ? name + aoff : name,
	    nlen - aoff);
}

/*
 * Parse one OtpParameters message in [p->pos, p->end) into u.  Fields may
 * come in any order and repeat (the last one counts, as in protobuf);
 * unknown fields are skipped.  *erroff gets the payload offset of a fault.
 */
static int
parse_account(struct otp_pb_reader *p, struct otp_uri *u, size_t *erroff)
{
	struct field secret, name, issuer;
	struct vfield alg, digits, type, counter;
	size_t start = p->pos, bad;
	int k, r;

	memset(&secret, 0, sizeof(secret));
	memset(&name, 0, sizeof(name));
	memset(&issuer, 0, sizeof(issuer));
	memset(&alg, 0, sizeof(alg));
	memset(&digits, 0, sizeof(digits));
	memset(&type, 0, sizeof(type));
	memset(&counter, 0, sizeof(counter));
	while (p->pos < p->end) {
		struct field *f = NULL;
		struct vfield *vf = NULL;
		unsigned fn, wt;
		size_t at = p->pos;

		*erroff = at;
		if ((r = otp_pb_tag(p, &fn, &wt)) != 0)
			return r;
		switch (fn) {
		case PARAM_SECRET:
			f = &secret;
			break;
		case PARAM_NAME:
			f = &name;
			break;
		case PARAM_ISSUER:
			f = &issuer;
			break;
		case PARAM_ALGORITHM:
			vf = &alg;
			break;
		case PARAM_DIGITS:
			vf = &digits;
			break;
		case PARAM_TYPE:
			vf = &type;
			break;
		case PARAM_COUNTER:
			vf = &counter;
			break;
		default:
			break;
		}
		if (f != NULL) {
			if (wt != OTP_PB_LEN)
				return OTP_EPROTOBUF;
			if ((r = otp_pb_bytes(p, &f->s, &f->n)) != 0)
				return r;
			f->off = at;
			f->seen = 1;
		} else if (vf != NULL) {
			if (wt != OTP_PB_VARINT)
				return OTP_EPROTOBUF;
			if ((r = otp_pb_varint(p, &vf->v)) != 0)
				return r;
			vf->off = at;
			vf->seen = 1;
		} else if ((r = otp_pb_skip(p, wt)) != 0)
			return r;
	}

	u->period = MIG_PERIOD;
	u->is_uri = 1;
	u->have = 0;
	u->warn = 0;

	*erroff = secret.seen ? secret.off : start;
	if (secret.n == 0)
		return OTP_EKEYEMPTY;
	if (secret.n > OTP_KEY_MAX)
		return OTP_EKEYLONG;

	*erroff = alg.off;
	if ((k = enum_value(alg.v, algs, sizeof(algs) / sizeof(algs[0]),
	    OTP_EALG)) < 0)
		return k;
	u->alg = (enum otp_alg)k;
	if (alg.v != 0)
		u->have |= OTP_HAVE_ALG;
	*erroff = digits.off;
	if ((k = enum_value(digits.v, ndigits, sizeof(ndigits) /
	    sizeof(ndigits[0]), OTP_EDIGITS)) < 0)
		return k;
	u->digits = (unsigned)k;
	if (digits.v != 0)
		u->have |= OTP_HAVE_DIGITS;
	*erroff = type.off;
	if ((k = enum_value(type.v, types, sizeof(types) / sizeof(types[0]),
	    OTP_EURITYPE)) < 0)
		return k;
	u->type = (enum otp_type)k;

	/* int64: a negative counter is a 10-byte varint above INT64_MAX. */
	*erroff = counter.off;
	if (counter.v > INT64_MAX)
		return OTP_ECOUNTER;
	u->counter = 0;
	if (u->type == OTP_TYPE_HOTP) {
		u->counter = counter.v;
		u->have |= OTP_HAVE_COUNTER;
	}

	*erroff = name.off;
	if ((r = otp_text_check((const char *)name.s, name.n, &bad)) != 0) {
		*erroff = (size_t)(name.s - p->buf) + bad;
		return r;
	}
	*erroff = issuer.off;
	if ((r = otp_text_check((const char *)issuer.s, issuer.n,
	    &bad)) != 0) {
		*erroff = (size_t)(issuer.s - p->buf) + bad;
		return r;
	}
	if (issuer.n >= OTP_LABEL_MAX)
		return OTP_ETOOLONG;
	*erroff = name.seen ? name.off : start;
	if ((r = split_name(u, name.s, name.n, issuer.s, issuer.n)) != 0)
		return r;
	if (u->issuer[0] == '\0')
		u->warn |= OTP_WARN_NOISSUER;
	if (secret.n < 16)
		u->warn |= OTP_WARN_SHORTKEY;

	memcpy(u->key.buf, secret.s, secret.n);
	u->key.len = secret.n;
	return 0;
}

/*
 * One pass over a MigrationPayload.  The first pass (fn NULL) checks all
 * of it and fills *batch; the second hands out the accounts, so that no
 * caller ever sees part of a payload that turns out to be broken.
 */
static int
parse_payload(const uint8_t *buf, size_t len,
    struct otp_migration_batch *batch, otp_migration_fn *fn, void *arg,
    struct otp_migration_err *err)
{
	struct otp_uri u;
	struct otp_pb_reader p;
	size_t naccounts = 0;
	int r = 0;

	p.buf = buf;
	p.pos = 0;
	p.end = len;
	while (p.pos < p.end) {
		unsigned field, wt;
		uint64_t v;

		err->offset = p.pos;
		if ((r = otp_pb_tag(&p, &field, &wt)) != 0)
			goto out;
		if (field == PAYLOAD_OTP_PARAMETERS) {
			struct otp_pb_reader sub;
			const uint8_t *s;
			size_t n;

			if (wt != OTP_PB_LEN) {
				r = OTP_EPROTOBUF;
				goto out;
			}
			if ((r = otp_pb_bytes(&p, &s, &n)) != 0)
				goto out;
			sub.buf = buf;
			sub.pos = (size_t)(s - buf);
			sub.end = sub.pos + n;
			err->account = (long)naccounts;
			memset(&u, 0, sizeof(u));
			r = parse_account(&sub, &u, &err->offset);
			if (r == 0 && fn != NULL)
				r = fn(arg, naccounts, &u);
			otp_wipe(&u, sizeof(u));
			if (r != 0)
				goto out;
			err->account = -1;
			naccounts++;
		} else if (field >= PAYLOAD_VERSION &&
		    field <= PAYLOAD_BATCH_ID) {
			int32_t *dst = field == PAYLOAD_VERSION ?
			    &batch->version : field == PAYLOAD_BATCH_SIZE ?
			    &batch->batch_size : field == PAYLOAD_BATCH_INDEX ?
			    &batch->batch_index : &batch->batch_id;

			if (wt != OTP_PB_VARINT) {
				r = OTP_EPROTOBUF;
				goto out;
			}
			if ((r = otp_pb_varint(&p, &v)) != 0 ||
			    (r = otp_pb_int32(v, dst)) != 0)
				goto out;
		} else if ((r = otp_pb_skip(&p, wt)) != 0)
			goto out;
	}
	if (naccounts == 0) {
		err->offset = len;
		r = OTP_EEMPTY;
	}
out:
	return r;
}

/* Parse a MigrationPayload of len bytes (fn may be NULL to only check):
 * *batch (may be NULL) gets the batch fields, fn each account with
 * period 30, is_uri 1, and the name split as a URI label: the issuer field
 * wins, a name that starts with "issuer:" loses that prefix, else the first
 * ':' ends the issuer; spaces after it are dropped.  Unknown fields are
 * skipped.  Errors: OTP_EPROTOBUF (wire format), OTP_EEMPTY (no accounts),
 * OTP_EMIGRATEUNSUP (MD5), OTP_EALG, OTP_EDIGITS, OTP_EURITYPE (unknown
 * enum value), OTP_ECOUNTER (negative), OTP_EKEYEMPTY, OTP_EKEYLONG,
 * OTP_EUTF8, OTP_EURICTRL, OTP_ENUL, OTP_ETOOLONG (text over
 * OTP_LABEL_MAX - 1), OTP_ERANGE (batch field not an int32). */
int
otp_migration_payload_decode(const uint8_t *buf, size_t len,
    struct otp_migration_batch *batch, otp_migration_fn *fn, void *arg,
    struct otp_migration_err *err)
{
	struct otp_migration_batch b;
	struct otp_migration_err e;
	int r;

	memset(&b, 0, sizeof(b));
	e.offset = 0;
	e.in_payload = 1;
	e.account = -1;
	if (buf == NULL && len > 0)
		r = OTP_EINVAL;
	else if (len > OTP_MIGRATION_PAYLOAD_MAX)
		r = OTP_ETOOLONG;
	else if ((r = parse_payload(buf, len, &b, NULL, NULL, &e)) == 0 &&
	    fn != NULL)
		r = parse_payload(buf, len, &b, fn, arg, &e);
	if (r == 0 && batch != NULL)
		*batch = b;
	if (r != 0 && err != NULL)
		*err = e;
	return r;
}

/* ---- the URI layer --------------------------------------------------- */

static int
lower_eq(const char *s, size_t n, const char *lit)
{
	size_t i;

	if (strlen(lit) != n)
		return 0;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 'A' && c <= 'Z')
			c = (unsigned char)(c - 'A' + 'a');
		if (c != (unsigned char)lit[i])
			return 0;
	}
	return 1;
}

/*
 * Percent-decode and base64-decode the data value text[start, end) into
 * out.  Runs between escapes go to the decoder as they are; '+' is a
 * literal '+' to RFC 3986 and a space to HTML forms, and base64 reads a
 * space as '+', so both come out right.
 */
static int
data_decode(const char *text, size_t start, size_t end, uint8_t *out,
    size_t outsz, size_t *outlen, size_t *erroff)
{
	struct otp_b64_decoder d;
	size_t i, run, n, o = 0, off;
	char c[2];
	int r = 0;

	otp_b64_decoder_init(&d);
	for (i = start; i < end && r == 0; i += run) {
		const char *pct = memchr(text + i, '%', end - i);

		run = pct != NULL ? (size_t)(pct - text) - i : end - i;
		off = 0;
		if (run == 0) {
			/* one escape, one character */
			run = end - i < 3 ? end - i : 3;
			if ((r = otp_pct_decode(text + i, run, 0, c, sizeof(c),
			    &n, &off)) == 0)
				r = otp_b64_decoder_update(&d, c, 1, out + o,
				    outsz - o, &n, &off);
			off = 0;
		} else
			r = otp_b64_decoder_update(&d, text + i, run, out + o,
			    outsz - o, &n, &off);
		*erroff = i + off;
		if (r == 0)
			o += n;
	}
	if (r == 0) {
		*erroff = end;
		if ((r = otp_b64_decoder_final(&d, out + o, outsz - o,
		    &n)) == 0)
			*outlen = o + n;
	}
	if (r != 0)
		otp_wipe(out, o);	/* no partial result */
	otp_wipe(&d, sizeof(d));
	otp_wipe(c, sizeof(c));
	return r;
}

/* Percent-decode and base64-decode the data= value of an
 * otpauth-migration://offline URI text of len bytes into out
 * (OTP_MIGRATION_PAYLOAD_MAX bytes always suffice).  Scheme and host in
 * any case, '+' and ' ' both read as '+', other parameters and a fragment
 * ignored.  Errors: OTP_EMIGRATION, OTP_EMIGRATIONDATA, OTP_EURIPARAM (data
 * twice or without '='), OTP_EURIESC, OTP_EBASE64, OTP_ENUL, OTP_ETOOLONG
 * (payload over 64 KiB), OTP_ENOSPACE. */
int
otp_migration_uri_payload(const char *text, size_t len, uint8_t *out,
    size_t outsz, size_t *outlen, struct otp_migration_err *err)
{
	struct otp_migration_err e;
	size_t plen = strlen(MIG_PREFIX), i, host, qend, data = 0, dend = 0;
	int r = 0, ndata = 0;
	const char *nul;

	e.offset = 0;
	e.in_payload = 0;
	e.account = -1;
	if (text == NULL) {
		r = OTP_EINVAL;
		goto out;
	}
	if ((nul = memchr(text, '\0', len)) != NULL) {
		e.offset = (size_t)(nul - text);
		r = OTP_ENUL;
		goto out;
	}
	/* Scheme and host are case-insensitive (RFC 3986 §3.1, §3.2.2). */
	if (len < plen || !lower_eq(text, plen, MIG_PREFIX)) {
		r = OTP_EMIGRATION;
		goto out;
	}
	host = plen;
	for (i = host; i < len && text[i] != '/' && text[i] != '?' &&
	    text[i] != '#'; i++)
		;
	if (!lower_eq(text + host, i - host, MIG_HOST)) {
		e.offset = host;
		r = OTP_EMIGRATION;
		goto out;
	}
	if (i < len && text[i] == '/')
		i++;			/* an empty path, written as "/" */
	if (i < len && text[i] != '?' && text[i] != '#') {
		e.offset = i;
		r = OTP_EMIGRATION;
		goto out;
	}
	/* The query runs to a fragment or the end (RFC 3986 §3.4). */
	qend = i < len && text[i] == '?' ? i + 1 : i;
	if (qend > i) {
		const char *h = memchr(text + qend, '#', len - qend);

		i = qend;
		qend = h != NULL ? (size_t)(h - text) : len;
	}
	while (i < qend) {
		size_t pend, eq;
		const char *amp = memchr(text + i, '&', qend - i);

		pend = amp != NULL ? (size_t)(amp - text) : qend;
		for (eq = i; eq < pend && text[eq] != '='; eq++)
			;
		if (eq - i == 4 && memcmp(text + i, "data", 4) == 0) {
			if (eq == pend || ndata++ > 0) {
				e.offset = i;
				r = OTP_EURIPARAM;
				goto out;
			}
			data = eq + 1;
			dend = pend;
		}
		/* Other parameters are no part of the format; skip them. */
		i = pend + 1;
	}
	if (ndata == 0) {
		e.offset = len;
		r = OTP_EMIGRATIONDATA;
		goto out;
	}
	r = data_decode(text, data, dend, out, outsz, outlen, &e.offset);
	if (r == OTP_ENOSPACE && outsz >= OTP_MIGRATION_PAYLOAD_MAX)
		r = OTP_ETOOLONG;
out:
	if (r != 0 && err != NULL)
		*err = e;
	return r;
}

int
otp_migration_decode(const char *text, size_t len,
    struct otp_migration_batch *batch, otp_migration_fn *fn, void *arg,
    struct otp_migration_err *err)
{
	uint8_t payload[OTP_MIGRATION_PAYLOAD_MAX];
	size_t n = 0;
	int r;

	r = otp_migration_uri_payload(text, len, payload, sizeof(payload), &n,
	    err);
	if (r == 0)
		r = otp_migration_payload_decode(payload, n, batch, fn, arg,
		    err);
	otp_wipe(payload, sizeof(payload));
	return r;
}

int
otp_migration_check(const struct otp_uri *u)
{
	size_t ilen, alen, bad;
	int r;

	if (u == NULL)
		return OTP_EINVAL;
	if (u->key.len == 0)
		return OTP_EKEYEMPTY;
	if (u->key.len > OTP_KEY_MAX)
		return OTP_EKEYLONG;
	if ((u->type != OTP_TYPE_HOTP && u->type != OTP_TYPE_TOTP) ||
	    (u->alg != OTP_ALG_SHA1 && u->alg != OTP_ALG_SHA256 &&
	    u->alg != OTP_ALG_SHA512))
		return OTP_EINVAL;
	/* The app's OtpType knows HOTP and TOTP: a Steam key would come
	 * back as a TOTP key with 6-digit codes. */
	if (u->steam)
		return OTP_EMIGRATESTEAM;
	ilen = strnlen(u->issuer, OTP_LABEL_MAX);
	alen = strnlen(u->account, OTP_LABEL_MAX);
	if (ilen == OTP_LABEL_MAX || alen == OTP_LABEL_MAX)
		return OTP_EINVAL;
	if ((r = otp_text_check(u->issuer, ilen, &bad)) != 0 ||
	    (r = otp_text_check(u->account, alen, &bad)) != 0)
		return r;
	/* What the app cannot hold: it has no period field (a period means
	 * nothing to HOTP) and knows only 6 and 8 digits; the counter is an
	 * int64. */
	if (u->type == OTP_TYPE_TOTP && u->period != MIG_PERIOD)
		return OTP_EMIGRATEPERIOD;
	if (u->digits != 6 && u->digits != 8)
		return OTP_EMIGRATEDIGITS;
	if (u->type == OTP_TYPE_HOTP && u->counter > INT64_MAX)
		return OTP_EMIGRATECOUNTER;
	/* A name that no split gives back as issuer and account. */
	if (otp_label_form(u->issuer, u->account, 1) < 0)
		return OTP_EMIGRATENAME;
	return 0;
}

/* One OtpParameters message, with the fields the app writes. */
static void
w_account(struct otp_pb_writer *w, const struct otp_uri *u)
{
	size_t ilen = strlen(u->issuer), alen = strlen(u->account);
	int form = otp_label_form(u->issuer, u->account, 1);

	otp_pb_put_bytes(w, PARAM_SECRET, u->key.buf, u->key.len);
	/* name: "Issuer:account", ":account" or "account" */
	otp_pb_put_tag(w, PARAM_NAME, OTP_PB_LEN);
	otp_pb_put_varint(w, alen + (form == OTP_LABEL_ISSUER ? ilen + 1 :
	    form == OTP_LABEL_COLON ? 1 : 0));
	if (form == OTP_LABEL_ISSUER)
		otp_pb_put_raw(w, u->issuer, ilen);
	if (form == OTP_LABEL_ISSUER || form == OTP_LABEL_COLON)
		otp_pb_put_raw(w, ":", 1);
	otp_pb_put_raw(w, u->account, alen);
	if (ilen > 0)
		otp_pb_put_bytes(w, PARAM_ISSUER, u->issuer, ilen);
	otp_pb_put_uint(w, PARAM_ALGORITHM, u->alg == OTP_ALG_SHA512 ?
	    ALG_SHA512 : u->alg == OTP_ALG_SHA256 ? ALG_SHA256 : ALG_SHA1);
	otp_pb_put_uint(w, PARAM_DIGITS, u->digits == 8 ? DIGITS_EIGHT :
	    DIGITS_SIX);
	otp_pb_put_uint(w, PARAM_TYPE, u->type == OTP_TYPE_HOTP ? TYPE_HOTP :
	    TYPE_TOTP);
	if (u->type == OTP_TYPE_HOTP)
		otp_pb_put_uint(w, PARAM_COUNTER, u->counter);
}

/* The whole MigrationPayload: the accounts, then the batch fields (an
 * int32 goes out as the varint of its 64-bit sign extension). */
static void
w_payload(struct otp_pb_writer *w, const struct otp_uri *u, size_t n,
    const struct otp_migration_batch *b)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct otp_pb_writer count = { NULL, 0, 0, 0 };

		w_account(&count, &u[i]);
		otp_pb_put_tag(w, PAYLOAD_OTP_PARAMETERS, OTP_PB_LEN);
		otp_pb_put_varint(w, count.pos);
		w_account(w, &u[i]);
	}
	otp_pb_put_uint(w, PAYLOAD_VERSION, (uint64_t)(int64_t)b->version);
	otp_pb_put_uint(w, PAYLOAD_BATCH_SIZE,
	    (uint64_t)(int64_t)b->batch_size);
	otp_pb_put_uint(w, PAYLOAD_BATCH_INDEX,
	    (uint64_t)(int64_t)b->batch_index);
	otp_pb_put_uint(w, PAYLOAD_BATCH_ID, (uint64_t)(int64_t)b->batch_id);
}

/* Write the payload for n (>= 1) accounts and *batch (NULL: version 1,
 * batch 1 of 1, id 0) into out, the fields the app writes; *outlen gets
 * its length.  Each account is first checked with otp_migration_check();
 * on a refusal *erridx (may be NULL) gets its index.  One payload only:
 * the caller splits an export into batches of OTP_MIGRATION_BATCH, numbers
 * them and gives them a shared batch_id.  OTP_ETOOLONG past 64 KiB. */
int
otp_migration_payload_encode(const struct otp_uri *u, size_t n,
    const struct otp_migration_batch *batch, uint8_t *out, size_t outsz,
    size_t *outlen, size_t *erridx)
{
	static const struct otp_migration_batch single = { 1, 1, 0, 0 };
	struct otp_pb_writer w = { NULL, 0, 0, 0 };
	size_t i;
	int r;

	if (n == 0)
		return OTP_EEMPTY;
	if (u == NULL || out == NULL)
		return OTP_EINVAL;
	if (batch == NULL)
		batch = &single;
	for (i = 0; i < n; i++) {
		if ((r = otp_migration_check(&u[i])) != 0) {
			if (erridx != NULL)
				*erridx = i;
			return r;
		}
	}
	/* Measure first: what we write, we must be able to read back. */
	w_payload(&w, u, n, batch);
	if (w.pos > OTP_MIGRATION_PAYLOAD_MAX)
		return OTP_ETOOLONG;
	if (w.pos > outsz)
		return OTP_ENOSPACE;
	w.buf = out;
	w.size = outsz;
	w.pos = 0;
	w_payload(&w, u, n, batch);
	if (w.full) {
		otp_wipe(out, outsz);
		return OTP_ENOSPACE;
	}
	*outlen = w.pos;
	return 0;
}

int
otp_migration_encode(const struct otp_uri *u, size_t n,
    const struct otp_migration_batch *batch, char *out, size_t outsz,
    size_t *erridx)
{
	uint8_t payload[OTP_MIGRATION_PAYLOAD_MAX];
	size_t plen = 0, i, o, k;
	char q[DATA_PIECE / 3 * 4 + 1];
	int r;

	if (out == NULL)
		return OTP_EINVAL;
	r = otp_migration_payload_encode(u, n, batch, payload,
	    sizeof(payload), &plen, erridx);
	if (r != 0)
		goto out;
	o = strlen(MIG_PREFIX MIG_HOST "?data=");
	if (outsz <= o) {
		r = OTP_ENOSPACE;
		goto out;
	}
	memcpy(out, MIG_PREFIX MIG_HOST "?data=", o);
	/* A piece at a time, '+', '/' and '=' escaped as the app does: a raw
	 * '+' would turn into a space in a form-decoding reader. */
	for (i = 0; i < plen; i += k) {
		k = plen - i < DATA_PIECE ? plen - i : DATA_PIECE;
		if ((r = otp_b64_encode(payload + i, k, q, sizeof(q))) < 0 ||
		    (r = otp_pct_encode(q, (size_t)r, out + o,
		    outsz - o)) < 0)
			goto out;
		o += (size_t)r;
	}
	out[o] = '\0';
	r = (int)o;
out:
	if (r < 0 && outsz > 0)
		out[0] = '\0';
	otp_wipe(payload, sizeof(payload));
	otp_wipe(q, sizeof(q));
	return r;
}

/*
 * test-migration.c - the Google Authenticator migration codec: the
 * protobuf payload and the otpauth-migration:// URI (base64 itself is
 * test-base64's) against the vectors in tests/vectors/migration*.txt,
 * then round trips of random accounts and the cases a text file cannot
 * hold.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otp.h"
#include "otp_migration.h"
#include "otp_uri.h"
#include "unit.h"

#define MAXACCT	16

/* An OTP_E* code by its whole name ("OTP_EBASE64"). */
static int
errcode(const char *name)
{
	if (strncmp(name, "OTP_", 4) != 0)
		return 1;	/* no such code: the check fails */
	return unit_errcode(name + 4);
}

/* An expected error: "NAME@tN", "NAME@pN" or "NAME@pN#I". */
struct experr {
	int	code;
	size_t	offset;
	int	in_payload;
	long	account;
};

static int
parse_experr(const char *s, struct experr *e)
{
	char name[64];
	const char *at = strchr(s, '@'), *hash;

	if (at == NULL || (size_t)(at - s) >= sizeof(name) ||
	    (at[1] != 't' && at[1] != 'p'))
		return -1;
	memcpy(name, s, (size_t)(at - s));
	name[at - s] = '\0';
	e->code = errcode(name);
	e->in_payload = at[1] == 'p';
	e->offset = (size_t)strtoul(at + 2, NULL, 10);
	hash = strchr(at, '#');
	e->account = hash != NULL ? strtol(hash + 1, NULL, 10) : -1;
	return 0;
}

/* Split s at '~' into at most n parts, in place. */
static int
split(char *s, char **part, int n)
{
	int k = 0;

	part[k++] = s;
	for (; *s != '\0'; s++) {
		if (*s == '~') {
			if (k == n)
				return -1;
			*s = '\0';
			part[k++] = s + 1;
		}
	}
	return k;
}

/* "type~alg~digits~counter~secret hex~issuer~account[~period]", type
 * TOTP, HOTP or STEAM */
static int
parse_account(const char *text, struct otp_uri *u)
{
	char buf[2048], *part[8];
	uint64_t v;
	long n;
	int k;

	if (strlen(text) >= sizeof(buf))
		return -1;
	strcpy(buf, text);
	if ((k = split(buf, part, 8)) < 7)
		return -1;
	memset(u, 0, sizeof(*u));
	if (strcmp(part[0], "TOTP") == 0)
		u->type = OTP_TYPE_TOTP;
	else if (strcmp(part[0], "STEAM") == 0) {
		u->type = OTP_TYPE_TOTP;
		u->steam = 1;
	} else if (strcmp(part[0], "HOTP") == 0)
		u->type = OTP_TYPE_HOTP;
	else
		return -1;
	if (otp_alg_parse(part[1], &u->alg) != 0)
		return -1;
	if (otp_parse_u64(part[2], 0, 99, &v) != 0)
		return -1;
	u->digits = (unsigned)v;
	if (otp_parse_u64(part[3], 0, UINT64_MAX, &u->counter) != 0)
		return -1;
	if (strcmp(part[4], "-") == 0)
		n = 0;
	else if ((n = unit_unhex(part[4], u->key.buf, sizeof(u->key.buf))) < 0)
		return -1;
	u->key.len = (size_t)n;
	if (strlen(part[5]) >= OTP_LABEL_MAX ||
	    strlen(part[6]) >= OTP_LABEL_MAX)
		return -1;
	strcpy(u->issuer, part[5]);
	strcpy(u->account, part[6]);
	u->period = 30;
	if (k == 8 && otp_parse_u64(part[7], 0, UINT64_MAX, &u->period) != 0)
		return -1;
	return 0;
}

/* Equal in every field the format carries. */
static int
same_account(const struct otp_uri *a, const struct otp_uri *b)
{
	return a->type == b->type && a->alg == b->alg &&
	    a->digits == b->digits &&
	    (a->type == OTP_TYPE_HOTP || a->period == b->period) &&
	    (a->type == OTP_TYPE_TOTP || a->counter == b->counter) &&
	    a->key.len == b->key.len &&
	    memcmp(a->key.buf, b->key.buf, a->key.len) == 0 &&
	    strcmp(a->issuer, b->issuer) == 0 &&
	    strcmp(a->account, b->account) == 0;
}

struct collect {
	struct otp_uri	u[MAXACCT];
	size_t		n;
	size_t		calls;
	size_t		stop_at;	/* return 99 at this call; 0 never */
};

static int
collect_fn(void *arg, size_t index, const struct otp_uri *u)
{
	struct collect *c = arg;

	CHECK(index == c->calls, "account index %zu, want %zu", index,
	    c->calls);
	c->calls++;
	if (c->stop_at != 0 && c->calls == c->stop_at)
		return 99;
	if (c->n < MAXACCT)
		c->u[c->n++] = *u;
	return 0;
}

static int
parse_batch(const char *s, struct otp_migration_batch *b)
{
	long v[4];

	if (sscanf(s, "%ld,%ld,%ld,%ld", &v[0], &v[1], &v[2], &v[3]) != 4)
		return -1;
	b->version = (int32_t)v[0];
	b->batch_size = (int32_t)v[1];
	b->batch_index = (int32_t)v[2];
	b->batch_id = (int32_t)v[3];
	return 0;
}

static int
same_batch(const struct otp_migration_batch *a,
    const struct otp_migration_batch *b)
{
	return a->version == b->version && a->batch_size == b->batch_size &&
	    a->batch_index == b->batch_index && a->batch_id == b->batch_id;
}

static void
decode_case(const struct unit_line *l, void *arg)
{
	static uint8_t payload[OTP_MIGRATION_PAYLOAD_MAX];
	struct collect c;
	struct otp_migration_batch batch, want;
	struct otp_migration_err err;
	struct experr e;
	long n = 0;
	int r, i;

	(void)arg;
	if (l->nfields < 3) {
		CHECK(0, "%s:%u: want at least 3 fields", l->file, l->lineno);
		return;
	}
	memset(&c, 0, sizeof(c));
	memset(&err, 0, sizeof(err));
	memset(&batch, 0x55, sizeof(batch));
	if (strcmp(l->field[0], "uri") == 0) {
		r = otp_migration_decode(l->field[1], strlen(l->field[1]),
		    &batch, collect_fn, &c, &err);
	} else if (strcmp(l->field[0], "pb") == 0) {
		if (strcmp(l->field[1], "-") != 0 && (n = unit_unhex(
		    l->field[1], payload, sizeof(payload))) < 0) {
			CHECK(0, "%s:%u: bad hex", l->file, l->lineno);
			return;
		}
		r = otp_migration_payload_decode(payload, (size_t)n, &batch,
		    collect_fn, &c, &err);
	} else {
		CHECK(0, "%s:%u: unknown kind", l->file, l->lineno);
		return;
	}

	if (strcmp(l->field[2], "ok") != 0) {
		if (parse_experr(l->field[2], &e) != 0) {
			CHECK(0, "%s:%u: bad result field", l->file, l->lineno);
			return;
		}
		unit_check(r == e.code && err.offset == e.offset &&
		    err.in_payload == e.in_payload && err.account == e.account,
		    l->file, (int)l->lineno,
		    "got %d (%s) at %c%zu#%ld, want %s", r, otp_strerror(r),
		    err.in_payload ? 'p' : 't', err.offset, err.account,
		    l->field[2]);
		/* Nothing of a broken payload reaches the caller. */
		unit_check(c.calls == 0, l->file, (int)l->lineno,
		    "%zu accounts handed out before the error", c.calls);
		return;
	}

	unit_check(r == 0, l->file, (int)l->lineno, "got %d (%s) at %c%zu#%ld",
	    r, otp_strerror(r), err.in_payload ? 'p' : 't', err.offset,
	    err.account);
	if (r != 0)
		return;
	if (l->nfields < 4 || parse_batch(l->field[3], &want) != 0) {
		CHECK(0, "%s:%u: bad batch field", l->file, l->lineno);
		return;
	}
	unit_check(same_batch(&batch, &want), l->file, (int)l->lineno,
	    "batch %d,%d,%d,%d, want %s", batch.version, batch.batch_size,
	    batch.batch_index, batch.batch_id, l->field[3]);
	unit_check(c.n == (size_t)(l->nfields - 4), l->file, (int)l->lineno,
	    "%zu accounts, want %d", c.n, l->nfields - 4);
	for (i = 4; i < l->nfields && (size_t)(i - 4) < c.n; i++) {
		struct otp_uri w;
		const struct otp_uri *g = &c.u[i - 4];

		if (parse_account(l->field[i], &w) != 0) {
			CHECK(0, "%s:%u: bad account field %d", l->file,
			    l->lineno, i);
			continue;
		}
		unit_check(same_account(g, &w), l->file, (int)l->lineno,
		    "account %d: got %s %s %u %llu len %zu [%s] [%s]", i - 4,
		    g->type == OTP_TYPE_HOTP ? "HOTP" : "TOTP",
		    otp_alg_name(g->alg), g->digits,
		    (unsigned long long)g->counter, g->key.len, g->issuer,
		    g->account);
	}
	otp_wipe(&c, sizeof(c));
}

/* encode cases: "uri | batch | accounts..." with the expected URI, or
 * "ERR#I | batch | accounts..." for a refused account I. */
static void
encode_case(const struct unit_line *l, void *arg)
{
	static char out[OTP_MIGRATION_URI_MAX];
	struct otp_uri u[MAXACCT];
	struct otp_migration_batch b, got;
	struct collect c;
	size_t n, erridx = 999;
	int i, r;

	(void)arg;
	if (l->nfields < 3 || l->nfields - 2 > MAXACCT ||
	    parse_batch(l->field[1], &b) != 0) {
		CHECK(0, "%s:%u: bad line", l->file, l->lineno);
		return;
	}
	n = (size_t)(l->nfields - 2);
	for (i = 2; i < l->nfields; i++) {
		if (parse_account(l->field[i], &u[i - 2]) != 0) {
			CHECK(0, "%s:%u: bad account %d", l->file, l->lineno,
			    i - 2);
			return;
		}
	}
	r = otp_migration_encode(u, n, &b, out, sizeof(out), &erridx);
	if (strncmp(l->field[0], "OTP_E", 5) == 0) {
		char name[64];
		const char *hash = strchr(l->field[0], '#');
		size_t k = hash != NULL ? (size_t)(hash - l->field[0]) : 0;

		if (hash == NULL || k >= sizeof(name)) {
			CHECK(0, "%s:%u: bad result", l->file, l->lineno);
			return;
		}
		memcpy(name, l->field[0], k);
		name[k] = '\0';
		unit_check(r == errcode(name) &&
		    erridx == strtoul(hash + 1, NULL, 10), l->file,
		    (int)l->lineno, "got %d (%s) for account %zu, want %s", r,
		    otp_strerror(r), erridx, l->field[0]);
		unit_check(otp_migration_check(&u[erridx < n ? erridx : 0]) ==
		    errcode(name), l->file, (int)l->lineno,
		    "otp_migration_check disagrees");
		return;
	}
	unit_check(r > 0 && strcmp(out, l->field[0]) == 0 &&
	    (size_t)r == strlen(out), l->file, (int)l->lineno,
	    "got %d \"%s\"", r, r > 0 ? out : "");
	/* and back, exactly */
	memset(&c, 0, sizeof(c));
	r = otp_migration_decode(out, strlen(out), &got, collect_fn, &c, NULL);
	unit_check(r == 0 && c.n == n && same_batch(&got, &b), l->file,
	    (int)l->lineno, "decode of encoded: %d, %zu accounts", r, c.n);
	for (i = 0; (size_t)i < n && (size_t)i < c.n; i++)
		unit_check(same_account(&c.u[i], &u[i]), l->file,
		    (int)l->lineno, "account %d differs after decoding", i);
	otp_wipe(&c, sizeof(c));
	otp_wipe(u, sizeof(u));
}

/* ---- the sample, end to end ------------------------------------------ */

static void
test_sample_code(void)
{
	static const char sample[] = "otpauth-migration://offline?data="
	    "CjEKCkhlbGxvId6tvu8SGEV4YW1wbGU6YWxpY2VAZ29vZ2xlLmNvbRoH"
	    "RXhhbXBsZTAC";
	struct collect c;
	struct otp_hmac h;
	uint64_t counter = 0;
	char code[OTP_CODE_MAX] = "";
	int r;

	memset(&c, 0, sizeof(c));
	r = otp_migration_decode(sample, strlen(sample), NULL, collect_fn, &c,
	    NULL);
	CHECK(r == 0 && c.n == 1, "sample: %d", r);
	if (r != 0 || c.n != 1)
		return;
	/* The sample of otp-uri(1)'s EXAMPLES: its key at 2009-11-10
	 * 23:00:00 UTC gives 528064 (oathtool --totp agrees). */
	CHECK(otp_totp_counter(1257894000, 0, c.u[0].period, &counter) == 0,
	    "counter");
	CHECK(otp_hmac_init(&h, c.u[0].alg, c.u[0].key.buf, c.u[0].key.len)
	    == 0, "hmac");
	otp_code_decimal(otp_hotp_value(&h, counter), c.u[0].digits, code,
	    sizeof(code));
	CHECK_EQ_STR(code, "528064", "sample code");
	otp_hmac_wipe(&h);
	CHECK(c.u[0].have & OTP_HAVE_ISSUER, "sample: issuer field seen");
	CHECK(c.u[0].have & OTP_HAVE_LABELISSUER, "sample: name prefix seen");
	CHECK(c.u[0].warn & OTP_WARN_SHORTKEY, "sample: 80-bit key warned");
	CHECK(!(c.u[0].warn & OTP_WARN_ISSUERMISMATCH), "sample: no mismatch");
	CHECK(c.u[0].period == 30 && c.u[0].is_uri == 1, "sample: period");
}

/* ---- what a vector file cannot hold ---------------------------------- */

static void
test_edges(void)
{
	static uint8_t big[OTP_MIGRATION_PAYLOAD_MAX + 8];
	static char text[4 * OTP_MIGRATION_PAYLOAD_MAX];
	static char out[OTP_MIGRATION_URI_MAX];
	static struct otp_uri many[40];
	/* two accounts, the second with issuer field "Real", name
	 * "Other:dave" */
	static const uint8_t two[] = {
		0x0a, 0x05, 0x0a, 0x01, 0x41, 0x12, 0x00,
		0x0a, 0x15, 0x0a, 0x01, 0x42, 0x12, 0x0a, 'O', 't', 'h', 'e',
		'r', ':', 'd', 'a', 'v', 'e', 0x1a, 0x04, 'R', 'e', 'a', 'l',
	};
	struct otp_migration_err err;
	struct otp_migration_batch b;
	struct collect c;
	struct otp_uri u;
	size_t n, i, erridx;
	char small[8];
	int r;

	/* a NUL inside the text */
	memset(&err, 0, sizeof(err));
	r = otp_migration_decode("otpauth-migration://offline?data=Cg\0==",
	    38, NULL, NULL, NULL, &err);
	CHECK(r == OTP_ENUL && err.offset == 35 && !err.in_payload,
	    "NUL in text: %d at %zu", r, err.offset);

	/* the callback stops the decode with its own value */
	memset(&c, 0, sizeof(c));
	c.stop_at = 1;
	memset(&err, 0, sizeof(err));
	r = otp_migration_payload_decode(two, sizeof(two), NULL, collect_fn,
	    &c, &err);
	CHECK(r == 99 && c.calls == 1 && err.account == 0,
	    "callback stop: %d after %zu calls", r, c.calls);

	/* warnings and have bits */
	memset(&c, 0, sizeof(c));
	r = otp_migration_payload_decode(two, sizeof(two), NULL, collect_fn,
	    &c, NULL);
	CHECK(r == 0 && c.n == 2, "two accounts: %d", r);
	if (r == 0 && c.n == 2) {
		CHECK(c.u[0].warn & OTP_WARN_NOISSUER, "no issuer warned");
		CHECK(c.u[1].warn & OTP_WARN_ISSUERMISMATCH, "mismatch warned");
		CHECK_EQ_STR(c.u[1].issuer, "Real", "issuer field wins");
		CHECK_EQ_STR(c.u[1].account, "dave", "account after prefix");
	}
	/* with no callback it only checks */
	CHECK(otp_migration_payload_decode(two, sizeof(two), &b, NULL, NULL,
	    NULL) == 0, "check only");

	/* payload limits */
	memset(big, 0, sizeof(big));
	CHECK(otp_migration_payload_decode(big, OTP_MIGRATION_PAYLOAD_MAX + 1,
	    NULL, NULL, NULL, NULL) == OTP_ETOOLONG, "payload over 64 KiB");
	/* base64 of 64 KiB + 3 bytes does not fit the payload buffer */
	n = strlen("otpauth-migration://offline?data=");
	memcpy(text, "otpauth-migration://offline?data=", n);
	for (i = 0; i < (OTP_MIGRATION_PAYLOAD_MAX + 3) / 3 * 4; i++)
		text[n++] = 'A';
	memset(&err, 0, sizeof(err));
	r = otp_migration_decode(text, n, NULL, NULL, NULL, &err);
	CHECK(r == OTP_ETOOLONG && !err.in_payload, "data over 64 KiB: %d", r);
	/* a smaller buffer of the caller's gets ENOSPACE */
	r = otp_migration_uri_payload(text, n, big, 10, &i, &err);
	CHECK(r == OTP_ENOSPACE, "small payload buffer: %d", r);

	/* encoding: defaults, buffer sizes, empty sets, refusals */
	memset(&u, 0, sizeof(u));
	u.type = OTP_TYPE_TOTP;
	u.alg = OTP_ALG_SHA1;
	u.digits = 6;
	u.period = 30;
	u.key.len = 10;
	memcpy(u.key.buf, "Hello!\xde\xad\xbe\xef", 10);
	strcpy(u.issuer, "Example");
	strcpy(u.account, "alice@google.com");
	r = otp_migration_encode(&u, 1, NULL, out, sizeof(out), NULL);
	CHECK(r > 0, "encode with batch NULL: %d", r);
	memset(&b, 0, sizeof(b));
	r = otp_migration_decode(out, (size_t)r, &b, NULL, NULL, NULL);
	CHECK(r == 0 && b.version == 1 && b.batch_size == 1 &&
	    b.batch_index == 0 && b.batch_id == 0, "default batch fields");
	r = otp_migration_encode(&u, 1, NULL, out, 40, NULL);
	CHECK(r == OTP_ENOSPACE && out[0] == '\0', "encode into 40: %d", r);
	r = otp_migration_encode(&u, 1, NULL, out, 0, NULL);
	CHECK(r == OTP_ENOSPACE, "encode into 0: %d", r);
	r = otp_migration_payload_encode(&u, 1, NULL, (uint8_t *)small,
	    sizeof(small), &n, NULL);
	CHECK(r == OTP_ENOSPACE, "payload into 8: %d", r);
	CHECK(otp_migration_encode(&u, 0, NULL, out, sizeof(out), NULL) ==
	    OTP_EEMPTY, "encode no accounts");
	/* 40 accounts of the largest size pass 64 KiB */
	for (i = 0; i < 40; i++) {
		many[i] = u;
		many[i].key.len = OTP_KEY_MAX;
		memset(many[i].issuer, 'i', OTP_LABEL_MAX - 1);
		many[i].issuer[OTP_LABEL_MAX - 1] = '\0';
		memset(many[i].account, 'a', OTP_LABEL_MAX - 1);
		many[i].account[OTP_LABEL_MAX - 1] = '\0';
	}
	r = otp_migration_payload_encode(many, 40, NULL, big, sizeof(big), &n,
	    NULL);
	CHECK(r == OTP_ETOOLONG, "payload of 40 large accounts: %d", r);
	/* ten of them, with a negative batch_id, fit OTP_MIGRATION_URI_MAX */
	b.version = 1;
	b.batch_size = 1;
	b.batch_index = 0;
	b.batch_id = INT32_MIN;
	r = otp_migration_encode(many, OTP_MIGRATION_BATCH, &b, out,
	    sizeof(out), NULL);
	CHECK(r > 0 && (size_t)r < sizeof(out), "ten large accounts: %d", r);
	memset(&c, 0, sizeof(c));
	r = otp_migration_decode(out, strlen(out), NULL, collect_fn, &c, NULL);
	CHECK(r == 0 && c.n == OTP_MIGRATION_BATCH &&
	    same_account(&c.u[9], &many[9]), "ten large accounts back: %d", r);
	otp_wipe(&c, sizeof(c));

	/* a bad struct is refused and the index reported */
	many[3].digits = 7;
	erridx = 0;
	r = otp_migration_encode(many, 5, NULL, out, sizeof(out), &erridx);
	CHECK(r == OTP_EMIGRATEDIGITS && erridx == 3, "refused account index");
	many[3].digits = 6;
	many[2].issuer[OTP_LABEL_MAX - 1] = 'x';	/* no NUL */
	CHECK(otp_migration_check(&many[2]) == OTP_EINVAL, "unterminated");
	u.alg = (enum otp_alg)7;
	CHECK(otp_migration_check(&u) == OTP_EINVAL, "bad alg enum");
	u.alg = OTP_ALG_SHA1;

	/* Unknown URI parameters have no field: the account goes, they do
	 * not (the tool says so). */
	snprintf(u.extra, sizeof(u.extra), "image=x");
	CHECK(otp_migration_check(&u) == 0, "extra is no refusal");
	r = otp_migration_encode(&u, 1, NULL, out, sizeof(out), NULL);
	memset(&c, 0, sizeof(c));
	CHECK(r > 0 && otp_migration_decode(out, strlen(out), NULL,
	    collect_fn, &c, NULL) == 0 && c.n == 1 && c.u[0].extra[0] == '\0',
	    "extra left out of the export");
	otp_wipe(&c, sizeof(c));
	CHECK(otp_migration_check(NULL) == OTP_EINVAL, "NULL account");
	otp_wipe(&u, sizeof(u));

	/* no partial result: the payload is wiped after an error */
	memset(big, 0xaa, 16);
	r = otp_migration_uri_payload("otpauth-migration://offline?data=Zm9v%",
	    38, big, 16, &n, &err);
	CHECK(r == OTP_EURIESC && err.offset == 37, "escape at 37: %d", r);
	CHECK(big[0] == 0 && big[2] == 0 && big[3] == 0xaa,
	    "payload wiped after an error");
}

/* ---- random round trips ---------------------------------------------- */

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A random label from pieces that stress the name rules. */
static void
rnd_label(char *out, size_t max)
{
	static const char *piece[] = {
		"a", "Z", "0", ":", " ", "&", "%", "+", "=", "/", "@", ".",
		"\xc3\xbc", "\xe9\x8d\xb5", "\xf0\x9f\x94\x91", "~", "#", "?",
	};
	size_t n = 0, want = rnd() % 24, k;

	out[0] = '\0';
	for (k = 0; k < want; k++) {
		const char *p = piece[rnd() %
		    (sizeof(piece) / sizeof(piece[0]))];

		if (n + strlen(p) >= max)
			break;
		strcpy(out + n, p);
		n += strlen(p);
	}
	if (rnd() % 16 == 0) {
		/* now and then a long one */
		while (n + 1 < max && n < 300)
			out[n++] = 'L';
		out[n] = '\0';
	}
}

static void
rnd_account(struct otp_uri *u)
{
	size_t i;

	memset(u, 0, sizeof(*u));
	u->type = rnd() % 2 ? OTP_TYPE_HOTP : OTP_TYPE_TOTP;
	u->alg = (enum otp_alg)(rnd() % 3);
	u->digits = rnd() % 2 ? 6 : 8;
	u->period = 30;
	u->counter = u->type == OTP_TYPE_HOTP ? rnd() >> (rnd() % 63 + 1) : 0;
	u->key.len = 1 + rnd() % OTP_KEY_MAX;
	for (i = 0; i < u->key.len; i++)
		u->key.buf[i] = (uint8_t)rnd();
	rnd_label(u->issuer, OTP_LABEL_MAX);
	rnd_label(u->account, OTP_LABEL_MAX);
}

/* What otp_migration_check must say, derived from the name rules. */
static int
expect_check(const struct otp_uri *u)
{
	int colon = strchr(u->account, ':') != NULL;
	int space = u->account[0] == ' ';

	return colon && space ? OTP_EMIGRATENAME : 0;
}

static void
test_round_trips(void)
{
	static char out[OTP_MIGRATION_URI_MAX];
	static struct otp_uri set[OTP_MIGRATION_BATCH];
	struct otp_migration_batch b, got;
	struct collect c;
	unsigned iter, fails = 0, refused = 0, done = 0;

	for (iter = 0; iter < 3000; iter++) {
		size_t n = 1 + rnd() % OTP_MIGRATION_BATCH, i, bad = 99;
		int r, want = 0;

		for (i = 0; i < n; i++) {
			int w;

			rnd_account(&set[i]);
			w = expect_check(&set[i]);
			CHECK(otp_migration_check(&set[i]) == w,
			    "check [%s] [%s]", set[i].issuer, set[i].account);
			if (w != 0 && want == 0) {
				want = w;
				bad = i;
			}
		}
		b.version = 1;
		b.batch_size = (int32_t)(rnd() % 100);
		b.batch_index = (int32_t)(rnd() % 100);
		b.batch_id = (int32_t)(uint32_t)rnd();
		i = 99;
		r = otp_migration_encode(set, n, &b, out, sizeof(out), &i);
		if (want != 0) {
			refused++;
			if (r != want || i != bad)
				fails++;
			continue;
		}
		if (r <= 0) {
			fails++;
			continue;
		}
		memset(&c, 0, sizeof(c));
		r = otp_migration_decode(out, (size_t)r, &got, collect_fn, &c,
		    NULL);
		if (r != 0 || c.n != n || !same_batch(&got, &b)) {
			fails++;
			continue;
		}
		for (i = 0; i < n; i++) {
			if (!same_account(&c.u[i], &set[i])) {
				fails++;
				fprintf(stderr, "round trip: [%s] [%s] -> "
				    "[%s] [%s]\n", set[i].issuer,
				    set[i].account, c.u[i].issuer,
				    c.u[i].account);
			}
		}
		done++;
		otp_wipe(&c, sizeof(c));
	}
	CHECK(fails == 0, "%u of 3000 random round trips failed", fails);
	CHECK(done > 1000 && refused > 0, "round trips: %u exact, %u refused",
	    done, refused);
	otp_wipe(set, sizeof(set));
}

int
main(int argc, char *argv[])
{
	const char *dir = argc > 1 ? argv[1] : "tests/vectors";

	CHECK(unit_vectors(dir, "migration.txt", decode_case, NULL) > 90,
	    "migration.txt cases");
	CHECK(unit_vectors(dir, "migration-encode.txt", encode_case, NULL) > 8,
	    "migration-encode.txt cases");
	test_sample_code();
	test_edges();
	test_round_trips();
	return unit_done();
}

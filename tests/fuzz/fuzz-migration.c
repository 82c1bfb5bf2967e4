/*
 * fuzz-migration.c - libFuzzer target for the migration codec.  The input
 * is tried as (a) otpauth-migration:// URI text, (b) a raw protobuf
 * payload and (c) base64 text.  Whatever decodes is encoded again and
 * decoded a second time; any difference, any error offset out of bounds,
 * or an account the decoder gave but the encoder refuses is a crash.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "otp.h"
#include "otp_migration.h"
#include "otp_uri.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct seen {
	struct otp_uri	u[OTP_MIGRATION_BATCH];
	size_t		n;
	size_t		calls;
};

static uint8_t payload[OTP_MIGRATION_PAYLOAD_MAX];
static char uri[OTP_MIGRATION_URI_MAX];

static int
collect(void *arg, size_t index, const struct otp_uri *u)
{
	struct seen *s = arg;

	if (index != s->calls++)
		abort();
	if (s->n < OTP_MIGRATION_BATCH)
		s->u[s->n++] = *u;
	return 0;
}

/* Each decoded account must encode alone and come back the same. */
static int
one_account(void *arg, size_t index, const struct otp_uri *u)
{
	struct otp_migration_batch b = { 1, 1, 0, -1 };
	uint8_t buf[4096];
	struct seen back;
	size_t n = 0;

	(void)arg;
	(void)index;
	if (otp_migration_check(u) != 0)
		abort();
	if (otp_migration_payload_encode(u, 1, &b, buf, sizeof(buf), &n,
	    NULL) != 0)
		abort();
	memset(&back, 0, sizeof(back));
	if (otp_migration_payload_decode(buf, n, NULL, collect, &back,
	    NULL) != 0 || back.n != 1 || !otp_uri_equal(&back.u[0], u))
		abort();
	return 0;
}

/* The first accounts and the batch fields, as a URI, back again. */
static void
whole_batch(const struct seen *s, const struct otp_migration_batch *b)
{
	struct otp_migration_batch b2;
	struct seen back;
	size_t i;
	int r;

	r = otp_migration_encode(s->u, s->n, b, uri, sizeof(uri), NULL);
	if (r <= 0)
		abort();
	memset(&back, 0, sizeof(back));
	if (otp_migration_decode(uri, (size_t)r, &b2, collect, &back,
	    NULL) != 0 || back.n != s->n)
		abort();
	if (b2.version != b->version || b2.batch_size != b->batch_size ||
	    b2.batch_index != b->batch_index || b2.batch_id != b->batch_id)
		abort();
	for (i = 0; i < s->n; i++)
		if (!otp_uri_equal(&back.u[i], &s->u[i]))
			abort();
}

static void
check_err(int r, const struct otp_migration_err *e, size_t textlen,
    size_t paylen)
{
	if (r >= 0)
		abort();
	if (e->offset > (e->in_payload ? paylen : textlen))
		abort();
	if (e->account < -1)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct otp_migration_batch b;
	struct otp_migration_err e;
	struct seen s;
	size_t n = 0, off = 0;
	int r;

	/* (a) URI text */
	memset(&s, 0, sizeof(s));
	memset(&e, 0, sizeof(e));
	r = otp_migration_decode((const char *)data, size, &b, one_account,
	    NULL, &e);
	if (r == 0) {
		if (otp_migration_decode((const char *)data, size, &b, collect,
		    &s, NULL) != 0 || s.n == 0)
			abort();
		whole_batch(&s, &b);
	} else if (!e.in_payload)
		check_err(r, &e, size, 0);
	else if (otp_migration_uri_payload((const char *)data, size, payload,
	    sizeof(payload), &n, NULL) != 0)
		abort();
	else
		check_err(r, &e, size, n);

	/* (b) a raw payload */
	memset(&s, 0, sizeof(s));
	memset(&e, 0, sizeof(e));
	r = otp_migration_payload_decode(data, size, &b, collect, &s, &e);
	if (r == 0) {
		if (s.n == 0)
			abort();
		r = otp_migration_payload_decode(data, size, NULL,
		    one_account, NULL, NULL);
		if (r != 0)
			abort();
		whole_batch(&s, &b);
	} else {
		if (s.calls != 0 || !e.in_payload)
			abort();	/* nothing of a bad payload escapes */
		check_err(r, &e, 0, size);
	}

	/* (c) base64 text */
	if (size <= OTP_MIGRATION_PAYLOAD_MAX &&
	    otp_b64_decode((const char *)data, size, payload, sizeof(payload),
	    &n, &off) == 0) {
		static uint8_t again[OTP_MIGRATION_PAYLOAD_MAX];
		static char text[OTP_MIGRATION_PAYLOAD_MAX * 2];
		size_t m = 0;

		r = otp_b64_encode(payload, n, text, sizeof(text));
		if (r < 0 || (size_t)r != otp_b64_encoded_len(n) ||
		    otp_b64_decode(text, (size_t)r, again, sizeof(again), &m,
		    &off) != 0 || m != n || memcmp(again, payload, n) != 0)
			abort();
	} else if (size <= OTP_MIGRATION_PAYLOAD_MAX && off > size)
		abort();
	return 0;
}

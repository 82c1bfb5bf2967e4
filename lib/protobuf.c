/*
 * protobuf.c - the protobuf wire format (protobuf encoding guide,
 * "Message Structure"), as much of it as the migration payload needs: a
 * reader written to be fed hostile bytes (every length is checked against
 * what remains before anything is read, varints stop at 10 bytes, nothing
 * is allocated) and a writer that can count before it writes.
 */
#include "otp.h"
#include "protobuf_int.h"

#define FIELD_MAX	((1u << 29) - 1)	/* largest field number */

/* ---- reading -------------------------------------------------------- */

/* Base 128 varint, at most 10 bytes for 64 bits; the 10th byte may only
 * carry the top bit. */
int
otp_pb_varint(struct otp_pb_reader *p, uint64_t *v)
{
	uint64_t x = 0;
	unsigned i;

	for (i = 0; i < 10; i++) {
		uint8_t b;

		if (p->pos >= p->end)
			return OTP_EPROTOBUF;	/* runs past the end */
		b = p->buf[p->pos++];
		if (i == 9 && b > 1)
			return OTP_EPROTOBUF;	/* over 64 bits or 11 bytes */
		x |= (uint64_t)(b & 0x7f) << (7 * i);
		if ((b & 0x80) == 0) {
			*v = x;
			return 0;
		}
	}
	return OTP_EPROTOBUF;
}

int
otp_pb_tag(struct otp_pb_reader *p, unsigned *field, unsigned *wt)
{
	uint64_t v;
	int r;

	if ((r = otp_pb_varint(p, &v)) != 0)
		return r;
	if (v >> 3 == 0 || v >> 3 > FIELD_MAX)
		return OTP_EPROTOBUF;
	*field = (unsigned)(v >> 3);
	*wt = (unsigned)(v & 7);
	return 0;
}

/* A length-delimited field: its bytes must all be there. */
int
otp_pb_bytes(struct otp_pb_reader *p, const uint8_t **s, size_t *n)
{
	uint64_t len;
	int r;

	if ((r = otp_pb_varint(p, &len)) != 0)
		return r;
	if (len > p->end - p->pos)
		return OTP_EPROTOBUF;
	*s = p->buf + p->pos;
	*n = (size_t)len;
	p->pos += (size_t)len;
	return 0;
}

/* Skip an unknown field by its wire type; groups (3, 4) and the unused
 * types 6 and 7 are refused. */
int
otp_pb_skip(struct otp_pb_reader *p, unsigned wt)
{
	const uint8_t *s;
	uint64_t v;
	size_t n;

	switch (wt) {
	case OTP_PB_VARINT:
		return otp_pb_varint(p, &v);
	case OTP_PB_I64:
	case OTP_PB_I32:
		n = wt == OTP_PB_I64 ? 8 : 4;
		if (n > p->end - p->pos)
			return OTP_EPROTOBUF;
		p->pos += n;
		return 0;
	case OTP_PB_LEN:
		return otp_pb_bytes(p, &s, &n);
	default:
		return OTP_EPROTOBUF;
	}
}

/* An int32 arrives as the varint of its 64-bit sign extension. */
int
otp_pb_int32(uint64_t v, int32_t *out)
{
	int64_t s = (int64_t)v;

	if (s < INT32_MIN || s > INT32_MAX)
		return OTP_ERANGE;
	*out = (int32_t)s;
	return 0;
}

/* ---- writing -------------------------------------------------------- */

static void
put_byte(struct otp_pb_writer *w, uint8_t b)
{
	if (w->buf != NULL) {
		if (w->pos >= w->size) {
			w->full = 1;
			return;
		}
		w->buf[w->pos] = b;
	}
	w->pos++;
}

void
otp_pb_put_varint(struct otp_pb_writer *w, uint64_t v)
{
	while (v >= 0x80) {
		put_byte(w, (uint8_t)(v | 0x80));
		v >>= 7;
	}
	put_byte(w, (uint8_t)v);
}

void
otp_pb_put_raw(struct otp_pb_writer *w, const void *p, size_t n)
{
	const uint8_t *s = p;
	size_t i;

	for (i = 0; i < n; i++)
		put_byte(w, s[i]);
}

void
otp_pb_put_tag(struct otp_pb_writer *w, unsigned field, unsigned wt)
{
	otp_pb_put_varint(w, (uint64_t)field << 3 | wt);
}

void
otp_pb_put_bytes(struct otp_pb_writer *w, unsigned field, const void *p,
    size_t n)
{
	otp_pb_put_tag(w, field, OTP_PB_LEN);
	otp_pb_put_varint(w, n);
	otp_pb_put_raw(w, p, n);
}

void
otp_pb_put_uint(struct otp_pb_writer *w, unsigned field, uint64_t v)
{
	otp_pb_put_tag(w, field, OTP_PB_VARINT);
	otp_pb_put_varint(w, v);
}

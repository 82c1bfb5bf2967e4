/*
 * protobuf_int.h - the protobuf wire reader and writer of lib/protobuf.c,
 * internal to the core: lib/migration.c builds and reads its payloads
 * with them.  Not part of the interface; callers have otp.h's
 * otp_migration_* functions.  Errors are otp.h's OTP_E* codes.
 */
#ifndef OTP_PROTOBUF_INT_H
#define OTP_PROTOBUF_INT_H

#include <stddef.h>
#include <stdint.h>

/* The protobuf wire format, as much as the payload needs (protobuf
 * encoding guide, "Message Structure"). */
enum otp_pb_wiretype {
	OTP_PB_VARINT = 0,
	OTP_PB_I64 = 1,
	OTP_PB_LEN = 2,
	OTP_PB_I32 = 5,
};

/* A window [pos, end) of buf; offsets stay absolute so that errors point
 * into the whole message. */
struct otp_pb_reader {
	const uint8_t	*buf;
	size_t		 pos;
	size_t		 end;
};

/* Each reader function returns 0 or OTP_EPROTOBUF (past the end, a
 * varint over 64 bits, field number 0 or too large, a group) and moves
 * pos past what it read. */
int otp_pb_varint(struct otp_pb_reader *p, uint64_t *v);
int otp_pb_tag(struct otp_pb_reader *p, unsigned *field, unsigned *wt);
/* A length-delimited field: *s points at its n bytes inside buf. */
int otp_pb_bytes(struct otp_pb_reader *p, const uint8_t **s, size_t *n);
/* Skip the value of an unknown field of wire type wt. */
int otp_pb_skip(struct otp_pb_reader *p, unsigned wt);
/* An int32 read as a varint (its 64-bit sign extension), or OTP_ERANGE. */
int otp_pb_int32(uint64_t v, int32_t *out);

/* A writer into buf[0..size); with buf NULL it only counts pos.  full is
 * set when something did not fit. */
struct otp_pb_writer {
	uint8_t	*buf;
	size_t	 size;
	size_t	 pos;
	int	 full;
};

void otp_pb_put_varint(struct otp_pb_writer *w, uint64_t v);
void otp_pb_put_raw(struct otp_pb_writer *w, const void *p, size_t n);
void otp_pb_put_tag(struct otp_pb_writer *w, unsigned field, unsigned wt);
/* A length-delimited field: tag, length, bytes. */
void otp_pb_put_bytes(struct otp_pb_writer *w, unsigned field,
    const void *p, size_t n);
/* A varint field: tag, value. */
void otp_pb_put_uint(struct otp_pb_writer *w, unsigned field, uint64_t v);

#endif /* OTP_PROTOBUF_INT_H */

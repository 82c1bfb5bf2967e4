/*
 * otp_migration.h - Google Authenticator export payloads (lib/migration.c).
 * Conventions as in otp.h.
 */
#ifndef OTP_MIGRATION_H
#define OTP_MIGRATION_H

#include <stddef.h>
#include <stdint.h>

#include "otp_uri.h"

/* The format is described in otp-uri(1).  Two layers, each a pure
 * function over a buffer and a length: the otpauth-migration://offline?
 * data= URI (query percent-encoding, then base64) and the protobuf
 * MigrationPayload.  Names are split and rebuilt so that encode then
 * decode gives back every field the format carries: type, alg, digits,
 * counter (HOTP), key, issuer and account; the period is always 30. */

#define OTP_MIGRATION_PAYLOAD_MAX 65536	/* decoded payload bytes */
#define OTP_MIGRATION_BATCH	10	/* accounts per payload, as the app */
/* A URI for OTP_MIGRATION_BATCH accounts of the largest size, with NUL:
 * 10 * 1818 + 44 protobuf bytes, base64, every character %XX. */
#define OTP_MIGRATION_URI_MAX	73728

/* The batch fields of a payload; 0 when absent. */
struct otp_migration_batch {
	int32_t	version;	/* the app writes 1 */
	int32_t	batch_size;	/* payloads in one export */
	int32_t	batch_index;	/* 0-based index of this payload */
	int32_t	batch_id;	/* shared by the payloads of one export */
};

/* Where a decode failed (filled on every error when not NULL).  In the
 * payload the offset is that of the tag of the field at fault, or of the
 * bad byte inside a name or issuer. */
struct otp_migration_err {
	size_t	offset;		/* byte offset of the fault */
	int	in_payload;	/* 0: offset in the URI text, 1: payload */
	long	account;	/* 0-based account at fault, -1 for none */
};

/* Called per account in payload order once the whole payload parsed; u is
 * wiped after the call.  Non-zero stops the decode and is returned. */
typedef int otp_migration_fn(void *arg, size_t index,
    const struct otp_uri *u);

/* Parse a MigrationPayload into *batch (may be NULL) and a fn call per
 * account (NULL: check only); OTP_EPROTOBUF or a field's code, *err where. */
int otp_migration_payload_decode(const uint8_t *buf, size_t len,
    struct otp_migration_batch *batch, otp_migration_fn *fn, void *arg,
    struct otp_migration_err *err);
/* Decode the data= of otpauth-migration://offline text[0..len) into out
 * (OTP_MIGRATION_PAYLOAD_MAX bytes suffice); OTP_EMIGRATION*, or a codec's. */
int otp_migration_uri_payload(const char *text, size_t len, uint8_t *out,
    size_t outsz, size_t *outlen, struct otp_migration_err *err);
/* otp_migration_uri_payload then otp_migration_payload_decode, through a
 * 64 KiB stack buffer that is wiped. */
int otp_migration_decode(const char *text, size_t len,
    struct otp_migration_batch *batch, otp_migration_fn *fn, void *arg,
    struct otp_migration_err *err);

/* 0 if the format can carry u (all but u->extra, which no export holds);
 * else the OTP_EMIGRATE* code that says why, or a text or key check's. */
int otp_migration_check(const struct otp_uri *u);
/* Encode accounts u[0..n) and *batch (NULL: batch 1 of 1) as one payload in
 * out, *outlen its length; otp_migration_check()'s refusal sets *erridx. */
int otp_migration_payload_encode(const struct otp_uri *u, size_t n,
    const struct otp_migration_batch *batch, uint8_t *out, size_t outsz,
    size_t *outlen, size_t *erridx);
/* The same as a whole otpauth-migration://offline?data= URI (base64 with
 * '+', '/', '=' percent-encoded) into out, then NUL; returns its length. */
int otp_migration_encode(const struct otp_uri *u, size_t n,
    const struct otp_migration_batch *batch, char *out, size_t outsz,
    size_t *erridx);

#endif /* OTP_MIGRATION_H */

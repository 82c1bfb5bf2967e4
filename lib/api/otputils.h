/*
 * otputils.h - libotputils, the one-time password library of otp-utils
 * (HOTP, TOTP, Steam Guard codes; otpauth:// URIs; the stores pam_otp.so
 * logs in against).  otp_token(3), otp_store(3), otputils(3).
 *
 *	cc prog.c $(pkg-config --cflags --libs otputils)
 *
 * Rules for every function: opaque handles, scalars and buffers only; no
 * init call; a handle is safe to use from many threads at once except
 * for its setters and its free; times are int64_t; text out as snprintf
 * (the length it needs without the NUL; a NULL buffer of size 0 asks for
 * it); errors are negative OTP_E* codes, otp_strerror() gives the text.
 * Secrets (keys, codes) are wiped from the library's memory after use.
 */
#ifndef OTPUTILS_H
#define OTPUTILS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The error codes, with the values the tools' library gives them
 * (inside the library, lib/otp.h has declared them already). */
#ifndef OTP_ERRORS_H
enum otp_error {
	OTP_OK = 0,
	/* @OTP_ERRORS@ */
};
#endif

struct otp_token;	/* a key and its parameters (secret: wiped) */
struct otp_store;	/* a store URL and its rules, as pam_otp.so's */

/* ---- the library --------------------------------------------------- */

/* The version of otp-utils the library comes from, as "0.1.0". */
const char *otp_version(void);
/* The text for an OTP_E* code (never NULL). */
const char *otp_strerror(int err);

/* ---- tokens -------------------------------------------------------- */

/* A token from an otpauth://totp/, hotp/ or steam/ URI; *erroff (may be
 * NULL) gets the offset of a fault in uri. */
int otp_token_parse(struct otp_token **t, const char *uri, size_t *erroff);
/* A token of type "totp", "hotp" or "steam" with key[0..keylen), SHA1,
 * 6 digits (steam: 5 characters), 30 s, counter 0. */
int otp_token_new(struct otp_token **t, const char *type, const void *key,
    size_t keylen);
/* Wipe the key and free t (NULL is fine). */
void otp_token_free(struct otp_token *t);
/* The token's otpauth:// URI (it holds the key). */
int otp_token_uri(const struct otp_token *t, char *buf, size_t size);
/* The code at time at (TOTP, Steam: Unix time) or counter at (HOTP). */
int otp_token_code(const struct otp_token *t, int64_t at, char *code,
    size_t size);
/* 1 when code matches a step or counter of the window (TOTP and Steam:
 * at's step -window..+window; HOTP: at..at+window) above after (-1: no
 * floor), *matched (may be NULL) the step or counter; 0 when not; a
 * negative error for a malformed code.  Every candidate is compared in
 * constant time. */
int otp_token_verify(const struct otp_token *t, const char *code,
    int64_t at, unsigned window, int64_t after, int64_t *matched);

/* "totp", "hotp" or "steam". */
const char *otp_token_type(const struct otp_token *t);
/* Digits of a code: 6..10 (steam: 5, fixed). */
int otp_token_set_digits(struct otp_token *t, unsigned digits);
int otp_token_digits(const struct otp_token *t);
/* "SHA1", "SHA256" or "SHA512" (either case, "SHA-256" too). */
int otp_token_set_algorithm(struct otp_token *t, const char *name);
const char *otp_token_algorithm(const struct otp_token *t);
/* Seconds a step lasts (TOTP, Steam): 1..86400. */
int otp_token_set_period(struct otp_token *t, unsigned seconds);
int otp_token_period(const struct otp_token *t);
/* The counter a HOTP URI carries (0..2^63-1). */
int otp_token_set_counter(struct otp_token *t, int64_t counter);
int64_t otp_token_counter(const struct otp_token *t);
/* Issuer and account name (UTF-8; "" or NULL for none). */
int otp_token_set_issuer(struct otp_token *t, const char *issuer);
int otp_token_issuer(const struct otp_token *t, char *buf, size_t size);
int otp_token_set_account(struct otp_token *t, const char *account);
int otp_token_account(const struct otp_token *t, char *buf, size_t size);
/* The key in Base32 without padding (a secret: wipe buf). */
int otp_token_secret(const struct otp_token *t, char *buf, size_t size);

/* ---- Base32 and randomness ---------------------------------------- */

/* data[0..n) in Base32 (RFC 4648, upper case, no padding). */
int otp_base32_encode(const void *data, size_t n, char *buf, size_t size);
/* Base32 text (either case, spaces, dashes and padding ignored) into
 * out[0..size): the byte count, or the room needed when out is NULL;
 * *erroff (may be NULL) at a fault. */
int otp_base32_decode(const char *text, void *out, size_t size,
    size_t *erroff);
/* n random bytes from the kernel (a key: 16..64 bytes, 20 usual). */
int otp_random(void *buf, size_t n);
/* n distinct random 8-digit emergency scratch codes (1..100). */
int otp_scratch_codes(uint32_t *codes, size_t n);

/* ---- stores -------------------------------------------------------- */

/* A store (ga:PATH, oath:PATH, otpw:PATH, postgresql://...) with the
 * rules of options, a NULL-ended list of "name=value" or "name" as
 * pam_otp.so takes them (window=, digits=, deny=, store_key=,
 * store_timeout=, ...); nothing is read yet. */
int otp_store_open(struct otp_store **s, const char *url,
    const char *const *options);
/* pam_otp.so's login of user with answer: 1 accepted (recorded), 0
 * refused (reason, may be NULL, says why), or a negative error when the
 * store cannot answer (refuse; reason says more). */
int otp_store_check(struct otp_store *s, const char *user,
    const char *answer, char *reason, size_t size);
/* Free s (NULL is fine). */
void otp_store_close(struct otp_store *s);

#ifdef __cplusplus
}
#endif

#endif /* OTPUTILS_H */

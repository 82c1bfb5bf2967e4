/*
 * otp.h - the pure core of otp-utils (lib/, built as libotp.a): codecs,
 * HOTP/TOTP, verification, time parsing, key text and otpauth URIs, the
 * Google Authenticator migration format, QR codes, scratch codes and the
 * state-file engine.
 *
 * Pure: nothing here makes a system call, prints, exits, keeps global
 * state or allocates behind the caller's back (otp_qr_encode says where
 * libqrencode allocates while it works); make check-floors holds it to
 * that.  Files, locks, randomness and the local time zone are the system
 * floor's, lib/sys/sys.h.
 *
 * Conventions: functions return 0 (or a length/count where stated) on
 * success and a negative OTP_E* code on failure; otp_strerror() gives the
 * text.  Buffers that hold secrets are the caller's; wipe them with
 * otp_wipe().
 *
 * Sections run bottom-up: each uses only what the sections above it
 * declare.  Each names the file(s) in lib/ that implement it; keep a
 * declaration in the section of the file that implements it.
 */
#ifndef OTP_H
#define OTP_H

#include <stddef.h>
#include <stdint.h>

/* ---- limits ---------------------------------------------------------- */

#define OTP_KEY_MAX	256	/* key bytes: twice SHA-512's HMAC block */
#define OTP_LINE_MAX	8192	/* one line of key input, URI or time text */
#define OTP_LABEL_MAX	512	/* decoded issuer or account name, with NUL */
#define OTP_DIGITS_MIN	6
#define OTP_DIGITS_MAX	10
#define OTP_CODE_MAX	16	/* room for any code text, with NUL */

/* ---- errors (lib/error.c) -------------------------------------------- */

/*
 * Every error code once, as X(NAME, value, text): OTP_NAME = value below,
 * the text for otp_strerror(), the name for tests/unit.  Values are kept
 * for good; a code removed leaves its value unused.
 */
#define OTP_ERRORS(X) \
	/* general */ \
	X(EINVAL,	-1,	"invalid argument") \
	X(ERANGE,	-2,	"number out of range") \
	X(ENOSPACE,	-3,	"output buffer too small") \
	X(ETOOLONG,	-4,	"input too long") \
	X(EIO,		-5,	"input/output error")	/* errno: the cause */ \
	X(EEMPTY,	-6,	"empty input") \
	X(ENUL,		-7,	"NUL byte in input") \
	X(ENOMEM,	-8,	"out of memory") \
	/* codecs */ \
	X(EBASE32,	-10,	"invalid Base32 character") \
	X(EBASE32LEN,	-11,	"impossible Base32 length") \
	X(EBASE32PAD,	-12,	"invalid Base32 padding") \
	X(EBASE32BITS,	-13,	"non-zero trailing bits in Base32") \
	X(EHEX,		-14,	"invalid hex character") \
	X(EHEXLEN,	-15,	"odd number of hex digits") \
	X(EBASE64,	-16,	"invalid base64") \
	/* keys and OTP parameters */ \
	X(EKEYEMPTY,	-20,	"key is empty") \
	X(EKEYLONG,	-21,	"key too long") \
	X(EALG,		-22,	"unknown algorithm") \
	X(EDIGITS,	-23,	"digits out of range 6..10") \
	X(ECOUNTER,	-24,	"counter must be a decimal from 0 to " \
	    "18446744073709551615") \
	X(ESTEP,	-25,	"invalid time step") \
	X(EWINDOW,	-26,	"invalid window") \
	X(EBEFORESTART,	-27,	"time is before the start time") \
	X(ECODE,	-28,	"malformed one-time password") \
	/* time and duration parsing */ \
	X(ETIME,	-40,	"unrecognised time") \
	X(ETIMERANGE,	-41,	"time out of range") \
	X(EDURATION,	-42,	"unrecognised duration") \
	X(ETIMEFIELD,	-43,	"date or time field out of range") \
	X(ETIMEGAP,	-44,	"local time skipped by a clock change") \
	X(ETIMEAMBIG,	-45,	"signed offset after a time without a zone " \
	    "is ambiguous; add a zone such as UTC") \
	X(ETIMEAGO,	-46,	"'ago' after more than one item is ambiguous " \
	    "(date -d negates only the last); write 'now - 90 seconds'") \
	/* otpauth URIs */ \
	X(EURI,		-50,	"not an otpauth:// URI") \
	X(EURITYPE,	-51,	"URI type must be totp, hotp or steam") \
	X(ENOSECRET,	-52,	"URI has no secret") \
	X(EURIESC,	-53,	"bad percent-encoding in URI") \
	X(EURIPARAM,	-54,	"malformed URI parameter") \
	X(EURILABEL,	-55,	"malformed URI label") \
	X(EUTF8,	-56,	"text is not valid UTF-8") \
	X(EURICTRL,	-57,	"control character in URI text") \
	X(EURIDUP,	-58,	"duplicate parameter") \
	X(EURISTEAM,	-59,	"Steam codes are 5 characters of SHA1: " \
	    "digits=5 and algorithm=SHA1 only") \
	/* migration payloads */ \
	X(EMIGRATION,	-70,	"not an otpauth-migration:// URI") \
	X(EPROTOBUF,	-71,	"malformed migration payload") \
	X(EMIGRATEUNSUP, -72,	"parameter cannot be carried by the " \
	    "migration format") \
	X(EMIGRATIONDATA, -73,	"migration URI has no data= parameter") \
	X(EMIGRATEPERIOD, -74,	"an export carries only a period of 30 " \
	    "seconds") \
	X(EMIGRATEDIGITS, -75,	"an export carries 6 or 8 digits only") \
	X(EMIGRATECOUNTER, -76,	"an export carries HOTP counters up to " \
	    "2^63-1") \
	X(EMIGRATENAME,	-77,	"an export cannot carry an account that starts " \
	    "with a space and holds a ':'") \
	X(EMIGRATESTEAM, -78,	"an export cannot carry a Steam account") \
	/* state file */ \
	X(ESTATESECRET,	-91,	"bad secret in state file") \
	X(ESTATEOPT,	-92,	"bad option line in state file") \
	X(ESTATESIZE,	-93,	"state file empty or larger than 64 KiB") \
	X(ESTATEOWNER,	-94,	"state file has the wrong owner") \
	X(ESTATEMODE,	-95,	"state file permissions are too open") \
	X(ESTATETYPE,	-96,	"state file is not a regular file") \
	X(ESTATECHANGED, -97,	"state file changed during update") \
	X(ESTATEEXIST,	-98,	"file exists") \
	X(EREADONLY,	-100,	"state file cannot be updated") \
	X(ELOCK,	-101,	"cannot lock state file") \
	X(EBUSY,	-102,	"state file is being rewritten by another " \
	    "program") \
	X(ESTATEWINDOW,	-103,	"window size out of range 1..21") \
	X(ESTATESTEP,	-104,	"step size out of range 1..60 seconds") \
	X(ESTATERATE,	-105,	"rate limit out of range 1..10 attempts per " \
	    "15..600 seconds") \
	X(ESTATEHOTP,	-106,	"step size and reuse refusal do not apply to " \
	    "HOTP") \
	/* users file (OATH Toolkit's, otp-users(5)) */ \
	X(EUSERSLINE,	-110,	"malformed token line in users file") \
	X(EUSERSKEY,	-111,	"bad key in users file") \
	X(EUSERSCOUNTER, -112,	"bad counter in users file") \
	X(EUSERSTIME,	-113,	"bad last-login time in users file") \
	X(EUSERSSIZE,	-114,	"users file larger than 16 MiB") \
	X(EUSERSUNKNOWN, -115,	"no such user in users file") \
	X(EUSERSEXIST,	-116,	"user already has a token in users file") \
	X(EUSERSFIELD,	-117,	"user name or PIN cannot be written in a " \
	    "users file") \
	X(EUSERSMODE,	-118,	"users file permissions are too open") \
	X(EUSERSLOCK,	-119,	"users file stays locked by another program") \
	X(EUSERSTYPE,	-120,	"users file is not a regular file") \
	/* OTPW password lists */ \
	X(EOTPWMAGIC,	-150,	"not an OTPW file (no OTPW1 line)") \
	X(EOTPWPARAM,	-151,	"bad OTPW parameters line") \
	X(EOTPWENTRY,	-152,	"bad OTPW entry line") \
	X(EOTPWSIZE,	-153,	"OTPW file larger than 400 KiB") \
	X(EOTPWEMPTY,	-154,	"no unused one-time passwords left") \
	X(EOTPWFEW,	-155,	"fewer than 10 unused one-time passwords: no " \
	    "challenge while another login is in progress") \
	X(EOTPWCHAL,	-156,	"malformed challenge (NNN or NNN/NNN/NNN)") \
	X(EOTPWUNKNOWN,	-157,	"no unused entry has that number") \
	X(EOTPWPREFIX,	-158,	"the prefix password is empty") \
	X(EOTPWCOUNT,	-159,	"number of entries out of range 10..1000") \
	X(EOTPWOWNER,	-160,	"OTPW file has the wrong owner") \
	X(EOTPWMODE,	-161,	"OTPW file is writable by others") \
	X(EOTPWTYPE,	-162,	"OTPW file is not a regular file") \
	X(EOTPWLOCKED,	-163,	"another login holds the lock") \
	X(EOTPWTRAIL,	-164,	"data after the last OTPW entry") \
	/* RADIUS requests (lib/radius.c) */ \
	X(EUSERNAME,	-170,	"user name unfit to name a file (letters, " \
	    "digits, '.', '_', '-', '@', a final '$'; no leading '.' or '-')") \
	X(ERADIUSVALUE,	-171,	"malformed attribute value (quotes or " \
	    "backslash escapes)") \
	/* PSKC containers */ \
	X(EPSKC,	-130,	"malformed PSKC container") \
	X(EPSKCDTD,	-131,	"PSKC file has a DTD or entity references " \
	    "(refused: no entities are expanded)") \
	X(EPSKCSIZE,	-132,	"PSKC file larger than 1 MiB") \
	X(EPSKCTYPE,	-133,	"key type has no otpauth:// form (not HOTP or " \
	    "TOTP with HMAC-SHA1/256/512 and decimal codes)") \
	X(EPSKCTIME,	-134,	"key's start time is not 0: no otpauth:// form") \
	X(EPSKCDRIFT,	-135,	"key has a time drift: no otpauth:// form") \
	X(EPSKCNOKEY,	-136,	"the container is encrypted: a key or " \
	    "password is needed") \
	X(EPSKCWRONGKEY, -137,	"wrong key or password (the MAC key does not " \
	    "decrypt)") \
	X(EPSKCMAC,	-138,	"ValueMAC does not match: wrong key or " \
	    "tampered value") \
	X(EPSKCMETHOD,	-139,	"unknown encryption, MAC or key derivation " \
	    "algorithm") \
	X(EPSKCCIPHER,	-140,	"malformed encrypted value") \
	X(EPSKCNOSECRET, -141,	"key has no secret") \
	X(EPSKCVALUE,	-142,	"malformed value in key data") \
	X(EPSKCKDF,	-143,	"malformed PBKDF2 parameters") \
	X(EPSKCKEYLEN,	-144,	"key length does not fit the encryption " \
	    "algorithm") \
	X(EPSKCNOMAC,	-145,	"encrypted value without a MAC (a wrong key " \
	    "could not be told)") \
	X(EPSKCITER,	-146,	"PBKDF2 iteration count out of range")

#define OTP_ERROR_ENUM_(name, value, text)	OTP_##name = (value),
enum {
	OTP_OK = 0,
	OTP_ERRORS(OTP_ERROR_ENUM_)
};
#undef OTP_ERROR_ENUM_

/* The text for an OTP_E* code; never NULL. */
const char *otp_strerror(int err);

/* ---- memory hygiene and numbers (lib/util.c) ------------------------- */

/* Zero n bytes at p in a way the compiler cannot drop. */
void otp_wipe(void *p, size_t n);
/* 1 if the n bytes at a and b are equal, else 0, in time independent of
 * their contents. */
int otp_ct_equal(const void *a, const void *b, size_t n);
/* Parse a decimal in [min, max] (no sign, no spaces, no base prefix). */
int otp_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* Parse a file mode in octal ("600", "0600"), 1..07777; OTP_EINVAL for
 * anything else (empty, a sign, a non-octal digit, 0 or too large). */
int otp_parse_mode(const char *s, unsigned *mode);

/* ---- text: hex digits, UTF-8, percent-encoding, labels (lib/text.c) -- */

/* The value of the hex digit c (either case), or -1. */
int otp_hexval(unsigned char c);
/* c in lower case if it is an ASCII capital (no locale). */
int otp_ascii_lower(int c);
/* 1 if a and b agree in their first n characters (or up to a common NUL)
 * but for ASCII case, else 0. */
int otp_ascii_caseeq(const char *a, const char *b, size_t n);
/* 0 if s[0..n) is UTF-8 (RFC 3629) without control characters (C0, DEL,
 * C1); else OTP_EUTF8, OTP_ENUL or OTP_EURICTRL, *bad at the sequence. */
int otp_text_check(const char *s, size_t n, size_t *bad);

#define OTP_PCT_PLUS	0x01	/* decode '+' as ' ' (HTML form queries) */

/* Percent-decode in[0..n) once (RFC 3986 §2.1) into out, NUL-ended, its
 * length in *outlen; OTP_EURIESC or OTP_ENOSPACE, *erroff at the fault. */
int otp_pct_decode(const char *in, size_t n, int flags, char *out,
    size_t outsz, size_t *outlen, size_t *erroff);
/* The offset in the encoded in[0..n) of decoded byte d (n past its end). */
size_t otp_pct_offset(const char *in, size_t n, size_t d);
/* Percent-encode in[0..n), all but RFC 3986 §2.3 unreserved characters
 * as upper-case %XX, into out, then NUL; the length or OTP_ENOSPACE. */
int otp_pct_encode(const char *in, size_t n, char *out, size_t outsz);

/* How a label spells issuer and account (see otp-uri(1)). */
enum otp_label_form {
	OTP_LABEL_PLAIN,	/* "account": no colon to split */
	OTP_LABEL_ISSUER,	/* "issuer:account" */
	OTP_LABEL_COLON,	/* ":account", an empty prefix: no issuer */
};

/* Split label s[0..n) at "issuer:" (issuer[0..ilen)), else its first ':':
 * *plen the prefix length, *aoff where the account starts; 0, 0: no ':'. */
void otp_label_split(const char *s, size_t n, const char *issuer,
    size_t ilen, size_t *plen, size_t *aoff);
/* The form otp_label_split() reads back as issuer and account (whole: the
 * reader knows the issuer); OTP_EURILABEL when no form does. */
int otp_label_form(const char *issuer, const char *account, int whole);

/* ---- hex (lib/hex.c) ------------------------------------------------- */

/* Encode n bytes as lower-case hex into out (2n chars, then NUL);
 * OTP_ENOSPACE unless outsz > 2n. */
int otp_hex_encode(const uint8_t *in, size_t n, char *out, size_t outsz);
/* Decode hex (either case) into out; *outlen the bytes (room needed on
 * OTP_ENOSPACE); OTP_EHEX, OTP_EHEXLEN: *erroff (or NULL) at the fault. */
int otp_hex_decode(const char *in, size_t inlen, uint8_t *out,
    size_t outsz, size_t *outlen, size_t *erroff);

/* ---- Base32, RFC 4648 §6 and §7 (lib/base32.c) ----------------------- */

#define OTP_B32_HEXALPHA	0x01	/* the §7 extended-hex alphabet */
#define OTP_B32_STRICT		0x02	/* canonical input only */
#define OTP_B32_NOPAD		0x04	/* omit '=' (strict: refuse it) */

/* Characters needed to encode n bytes (without NUL); SIZE_MAX on
 * overflow. */
size_t otp_b32_encoded_len(size_t n, int flags);
/* Encode n bytes into out (then NUL); OTP_ENOSPACE unless outsz >
 * otp_b32_encoded_len().  Returns the number of characters written. */
int otp_b32_encode(const uint8_t *in, size_t n, char *out, size_t outsz,
    int flags);
/* Decode Base32 text (lenient unless OTP_B32_STRICT) into out, wiped on
 * error: OTP_EBASE32* at *erroff (or NULL), OTP_ENOSPACE (*outlen: room). */
int otp_b32_decode(const char *in, size_t inlen, uint8_t *out,
    size_t outsz, size_t *outlen, int flags, size_t *erroff);

/* Streaming decoder for inputs of any size in constant memory. */
struct otp_b32_decoder {
	int		flags;
	uint64_t	bits;		/* pending bits, right-aligned */
	unsigned	nbits;		/* how many */
	unsigned	ngroup;		/* data characters in current 8-group */
	unsigned	npad;		/* '=' seen in current group */
	int		done;		/* padding closed the stream */
	uint64_t	offset;		/* input characters consumed */
	uint64_t	lastoff;	/* offset of the last data character */
	uint64_t	padoff;		/* offset of the group's first '=' */
};
void otp_b32_decoder_init(struct otp_b32_decoder *d, int flags);
/* Decode inlen characters into out (room: inlen * 5 / 8 + 5), *outlen the
 * bytes; after an error (*erroff: absolute offset) initialise d again. */
int otp_b32_decoder_update(struct otp_b32_decoder *d, const char *in,
    size_t inlen, uint8_t *out, size_t *outlen, uint64_t *erroff);
/* Finish: checks the final group's length, padding and bits (out: up to
 * 5 bytes, none with this implementation; may be NULL). */
int otp_b32_decoder_final(struct otp_b32_decoder *d, uint8_t *out,
    size_t *outlen, uint64_t *erroff);

/* ---- base64, RFC 4648 §4 (lib/base64.c) ------------------------------ */

/* Characters of standard base64 for n bytes, padded, without NUL. */
size_t otp_b64_encoded_len(size_t n);
/* Encode n bytes as padded standard base64 into out (then NUL); returns
 * the number of characters or OTP_ENOSPACE. */
int otp_b64_encode(const uint8_t *in, size_t n, char *out, size_t outsz);

/* The decoder, fed text in pieces of any size.  It reads '=' padding as
 * optional (but correct if present), ' ' as '+', the URL-safe '-' and '_'
 * as '+' and '/', and ignores unused low bits of the last character. */
struct otp_b64_decoder {
	uint32_t	acc;	/* sextets of the current quantum */
	unsigned	ndata;	/* data characters in it */
	unsigned	npad;	/* '=' seen in it */
	int		done;	/* padding closed the text */
};
void otp_b64_decoder_init(struct otp_b64_decoder *d);
/* Decode in[0..inlen) into out, *outlen the bytes written; OTP_EBASE64 or
 * OTP_ENOSPACE with *erroff at the character, this call's output wiped. */
int otp_b64_decoder_update(struct otp_b64_decoder *d, const char *in,
    size_t inlen, uint8_t *out, size_t outsz, size_t *outlen,
    size_t *erroff);
/* End of text: write a short last quantum (up to 2 bytes); OTP_EBASE64
 * for a truncated one, OTP_ENOSPACE. */
int otp_b64_decoder_final(struct otp_b64_decoder *d, uint8_t *out,
    size_t outsz, size_t *outlen);
/* The decoder over a whole text; *erroff is inlen for a truncated end,
 * and nothing is left in out on error. */
int otp_b64_decode(const char *in, size_t inlen, uint8_t *out,
    size_t outsz, size_t *outlen, size_t *erroff);

/* ---- HOTP / TOTP, RFC 4226 and RFC 6238 (lib/hotp.c) ----------------- */

enum otp_alg {
	OTP_ALG_SHA1,
	OTP_ALG_SHA256,
	OTP_ALG_SHA512,
};

enum otp_type {
	OTP_TYPE_HOTP,
	OTP_TYPE_TOTP,
};

/* Parse "SHA1", "SHA256", "SHA512" in any case (also "SHA-256"). */
int otp_alg_parse(const char *name, enum otp_alg *alg);
/* "SHA1", "SHA256" or "SHA512". */
const char *otp_alg_name(enum otp_alg alg);

/* An HMAC key schedule: the inner and outer pads are hashed once by
 * otp_hmac_init and reused for every counter.  Opaque: only the functions
 * below look inside (lib/hotp.c checks at build time that it fits). */
#define OTP_HMAC_SIZE	768
struct otp_hmac {
	_Alignas(uint64_t) unsigned char opaque[OTP_HMAC_SIZE];
};

/* Set up h for key (1..OTP_KEY_MAX bytes). */
int otp_hmac_init(struct otp_hmac *h, enum otp_alg alg, const uint8_t *key,
    size_t keylen);
/* Wipe the key schedule. */
void otp_hmac_wipe(struct otp_hmac *h);
/* HMAC(key, counter as 8 big-endian bytes), dynamically truncated to a
 * 31-bit value (RFC 4226 §5.3). */
uint32_t otp_hotp_value(struct otp_hmac *h, uint64_t counter);
/* otp_hotp_value() of counters first..first+n-1 (no wrap past 2^64-1) into
 * values[0..n-1]; they are codes: wipe them after use. */
void otp_hotp_values(struct otp_hmac *h, uint64_t first, uint32_t *values,
    size_t n);

/* Render a truncated value as a zero-padded decimal code of digits
 * (6..10) characters into out (then NUL). */
int otp_code_decimal(uint32_t value, unsigned digits, char *out,
    size_t outsz);
/* The value modulo 10^digits, for comparing without formatting. */
uint64_t otp_code_modulus(unsigned digits);
/* Steam Guard's 5-character code (then NUL) from a truncated value. */
void otp_code_steam(uint32_t value, char out[6]);
/* The TOTP counter floor((now - start) / step) (RFC 6238 §4.2);
 * OTP_EBEFORESTART when now < start, OTP_ESTEP when step is 0. */
int otp_totp_counter(int64_t now, int64_t start, uint64_t step,
    uint64_t *counter);
/* Mobile-OTP: first 6 hex chars of MD5(decimal(floor(t/10)) secret pin),
 * secret and pin taken as text; out gets 6 chars and NUL. */
int otp_motp(const char *secret, size_t secretlen, const char *pin,
    int64_t t, char out[7]);

/* ---- time and duration parsing (lib/timeparse.c) --------------------- */

/* A time zone's rules, which the caller knows and the core does not:
 * offset() stores the UTC offset in seconds east (within a day) in force
 * at the instant t, and returns 0 or an OTP_E* code.  lib/sys/sys.h has
 * the system's, sys_zone_local(). */
struct otp_zone {
	int	(*offset)(void *arg, int64_t t, int32_t *off);
	void	*arg;
};

/* Parse a time as date -d: now, @EPOCH, ISO 8601, RFC 5322, "Feb 13 2009",
 * relative items (base now; no zone: zone's, UTC if NULL); OTP_ETIME*. */
int otp_time_parse(const char *s, int64_t now, const struct otp_zone *zone,
    int64_t *out);
/* The same; for an error *erroff (if not NULL) gets the offset of the
 * word not understood, for a message to point at. */
int otp_time_parse_at(const char *s, int64_t now,
    const struct otp_zone *zone, int64_t *out, size_t *erroff);
/* Parse a duration: "30" (seconds) or d, h, m, s in that order ("1h30m");
 * zero accepted; OTP_EDURATION, or OTP_ERANGE past 2^64-1 seconds. */
int otp_duration_parse(const char *s, uint64_t *seconds);
/* Format t as "YYYY-MM-DD HH:MM:SS UTC" into out (then NUL);
 * OTP_ETIMERANGE beyond what gmtime() represents, OTP_ENOSPACE. */
int otp_time_format_utc(int64_t t, char *out, size_t outsz);

/* ---- key input and otpauth URIs (lib/key.c, lib/uri.c) --------------- */

enum otp_keyenc {
	OTP_KEYENC_HEX,
	OTP_KEYENC_BASE32,
};

struct otp_key {
	uint8_t	buf[OTP_KEY_MAX];
	size_t	len;
};

/* Room for a built URI: its canonical parts and up to a line of unknown
 * parameters, with NUL. */
#define OTP_URI_MAX		16384

/* Bits of otp_uri.have: which parameters the URI spelled out. */
#define OTP_HAVE_ALG		0x01
#define OTP_HAVE_DIGITS		0x02
#define OTP_HAVE_PERIOD		0x04
#define OTP_HAVE_COUNTER	0x08
#define OTP_HAVE_ISSUER		0x10	/* issuer= parameter */
#define OTP_HAVE_LABELISSUER	0x20	/* issuer prefix in the label */

/* Bits of otp_uri.warn: legal but risky. */
#define OTP_WARN_ISSUERMISMATCH	0x01	/* label issuer != issuer= */
#define OTP_WARN_GAIGNORES	0x02	/* alg/digits/period GA ignores */
#define OTP_WARN_PADDED		0x04	/* secret had '=' padding */
#define OTP_WARN_SHORTKEY	0x08	/* secret under 128 bits */
#define OTP_WARN_NOISSUER	0x10	/* no issuer anywhere */
#define OTP_WARN_UNKNOWN	0x20	/* parameters kept in extra[] */
#define OTP_WARN_STEAM		0x40	/* steam: Steam-aware apps only */

/* A key and its parameters, from a bare key or an otpauth:// URI. */
struct otp_uri {
	enum otp_type	type;
	enum otp_alg	alg;
	unsigned	digits;
	uint64_t	counter;
	uint64_t	period;
	char		issuer[OTP_LABEL_MAX];	/* decoded UTF-8, "" if none */
	char		account[OTP_LABEL_MAX];	/* decoded UTF-8, "" if none */
	struct otp_key	key;
	unsigned	have;		/* OTP_HAVE_* */
	unsigned	warn;		/* OTP_WARN_* */
	int		is_uri;		/* 1 when it came from a URI */
	int		steam;		/* otpauth://steam/: type TOTP, Steam's
					   5-character codes; digits unused */
	char		extra[OTP_LINE_MAX];	/* unknown parameters as given,
					   '&'-joined in order, "" if none */
};

/* What a key's parameters are when nothing says otherwise: a URI that
 * leaves them out, and the tools (as oathtool). */
#define OTP_DEFAULT_TYPE	OTP_TYPE_HOTP
#define OTP_DEFAULT_ALG		OTP_ALG_SHA1
#define OTP_DEFAULT_DIGITS	6
#define OTP_DEFAULT_PERIOD	30	/* seconds a TOTP step lasts */

/* Set u to the defaults above, counter 0. */
void otp_uri_init(struct otp_uri *u);
/* Read key text into u (otp_uri_init first): an otpauth:// URI or a key in
 * enc.  On error (OTP_EKEY*, a codec's at *erroff or NULL) u->key is wiped. */
int otp_key_parse(const char *text, enum otp_keyenc enc, struct otp_uri *u,
    size_t *erroff);
/* Parse an otpauth:// URI into u (the rules are otp-uri(1)'s). */
int otp_uri_parse(const char *uri, struct otp_uri *u, size_t *erroff);
/* Build the canonical URI for u into out (then NUL), u->extra appended as
 * given; OTP_ENOSPACE (OTP_URI_MAX bytes always suffice). */
int otp_uri_build(const struct otp_uri *u, char *out, size_t outsz);
/* 1 when a and b are the same account (what a URI carries, not have, warn,
 * is_uri or extra; keys compared in constant time), else 0. */
int otp_uri_equal(const struct otp_uri *a, const struct otp_uri *b);
/* The unknown parameter at *pos of u->extra (0: the first), decoded into
 * name and value, *pos moved on; 1, 0 when none is left, or OTP_E*. */
int otp_uri_extra_next(const struct otp_uri *u, size_t *pos, char *name,
    size_t namesz, char *value, size_t valuesz);

/* The part of an otpauth URI an error offset falls in, for a message that
 * names it: [off, off+len) is the type, the label or a parameter's name. */
enum otp_uri_part_kind {
	OTP_URI_PART_SCHEME,
	OTP_URI_PART_TYPE,
	OTP_URI_PART_LABEL,
	OTP_URI_PART_PARAM,
};
struct otp_uri_part {
	enum otp_uri_part_kind	kind;
	size_t			off, len;
	size_t			voff, vlen;	/* a parameter's value */
	int			secret;	/* secret=: show no character */
};

/* Fill *p with the part of uri that offset off (as otp_uri_parse gives)
 * falls in; a parameter's name is matched as otp_uri_parse matches it. */
void otp_uri_part(const char *uri, size_t off, struct otp_uri_part *p);

/* ---- verification and diagnosis (lib/verify.c, lib/diagnose.c) ------- */

/* The widest window searched: 10^8 further counters (HOTP) or steps on
 * each side (TOTP), about 30 s of hashing; more is refused, not a hang. */
#define OTP_WINDOW_MAX		100000000ULL

/* Window shapes (RFC 4226 §7.4 look-ahead, RFC 6238 §5.2 delay). */
enum otp_window {
	OTP_WINDOW_AHEAD,	/* counters c..c+N: HOTP */
	OTP_WINDOW_AROUND,	/* steps c-N..c+N: TOTP, Steam, mOTP */
};

/* Where a code matched. */
struct otp_match {
	uint64_t	counter;	/* the matching counter or time step */
	int64_t		offset;		/* counter - centre, in steps */
};

/* Check OTP text: decimal digits only, 6..10 of them, and exactly digits
 * of them unless digits is 0.  Returns the length or OTP_ECODE. */
int otp_code_check(const char *code, unsigned digits);
/* 1 and m when code matches in the window around counter (constant time,
 * nearest the centre wins), else 0; OTP_ECODE, OTP_EDIGITS, OTP_EWINDOW. */
int otp_verify(struct otp_hmac *h, const char *code, unsigned digits,
    uint64_t counter, uint64_t window, enum otp_window shape,
    struct otp_match *m);
/* Same for a 5-character Steam Guard code (either case). */
int otp_verify_steam(struct otp_hmac *h, const char *code,
    uint64_t counter, uint64_t window, enum otp_window shape,
    struct otp_match *m);
/* Same for Mobile-OTP: 6 hex digits (either case) against the 10-second
 * steps floor(now/10)-window..+window. */
int otp_verify_motp(const char *secret, size_t secretlen, const char *pin,
    const char *code, int64_t now, uint64_t window, struct otp_match *m);
#define OTP_SKEW_CODES		3	/* most codes otp_find_skew() takes */
/* Count the places where ncodes (2..OTP_SKEW_CODES) codes match consecutive
 * counters from the window (m: the nearest), or OTP_E*; not constant time. */
int otp_find_skew(struct otp_hmac *h, const char *const *codes,
    size_t ncodes, unsigned digits, uint64_t counter, uint64_t window,
    enum otp_window shape, struct otp_match *m);

/* Bits of otp_finding.differs: what a finding changes from the given
 * parameters. */
#define OTP_DIFF_ENC		0x001	/* the key read as the other encoding */
#define OTP_DIFF_ALG		0x002
#define OTP_DIFF_DIGITS		0x004	/* the code's length, not -d */
#define OTP_DIFF_PREFIX		0x008	/* first digits of a longer code */
#define OTP_DIFF_TYPE		0x010	/* TOTP for HOTP or the reverse */
#define OTP_DIFF_STEP		0x020
#define OTP_DIFF_START		0x040	/* start time 0 instead of the given */
#define OTP_DIFF_SHIFT		0x080	/* clock off by a time-zone amount */
#define OTP_DIFF_DRIFT		0x100	/* outside the window, small drift */
#define OTP_DIFF_COUNTER	0x200	/* HOTP counter from 0, not -c */

/* The parameters a code was expected to verify with. */
struct otp_diag_params {
	const char	*key;		/* key text: hex, Base32 or a URI */
	enum otp_keyenc	enc;
	enum otp_type	type;
	enum otp_alg	alg;
	unsigned	digits;		/* 0: the code's length */
	uint64_t	counter;	/* HOTP */
	uint64_t	step;		/* TOTP */
	int64_t		start;
	int64_t		now;
	uint64_t	window;		/* the window that failed */
};

/* One explanation: the parameters under which the code verifies. */
struct otp_finding {
	unsigned	differs;	/* OTP_DIFF_* */
	unsigned	rank;		/* lower is more likely */
	enum otp_keyenc	enc;
	enum otp_alg	alg;
	unsigned	digits;		/* digits of the generated code */
	enum otp_type	type;
	uint64_t	step;
	int64_t		start;
	int64_t		shift;		/* seconds the client's clock is ahead */
	uint64_t	counter;	/* the matching counter or step */
	int64_t		offset;		/* steps (or counters) from expected */
};

#define OTP_DIAG_MAX		16	/* findings worth printing */
#define OTP_DIAG_WINDOW_MAX	100000	/* widest window diagnosed */

/* The parameter mistakes under which code verifies, likeliest first, into
 * out[0..max): their number (0: none), or OTP_E* (bad key, code, window). */
int otp_diagnose(const struct otp_diag_params *p, const char *code,
    struct otp_finding *out, size_t max);

/* ---- Google Authenticator migration payloads (lib/migration.c) ------- */

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

/* ---- QR codes for terminals (lib/qr.c) ------------------------------- */

#define OTP_QR_WIDTH_MAX	177	/* modules per side of a version 40 code */
#define OTP_QR_QUIET		4	/* light modules around the code */

enum otp_qr_style {
	OTP_QR_UTF8,	/* half blocks: two module rows per text row, the
			   glyphs light: for light text on a dark terminal */
	OTP_QR_UTF8_INVERTED,	/* the same, the glyphs dark: for dark text
			   on a light terminal */
	OTP_QR_ANSI,	/* ANSI background colours, two spaces a module */
	OTP_QR_ASCII,	/* '#' dark, ' ' light, two characters a module */
};

/* A QR code's modules, row-major, 1 for dark; no quiet zone. */
struct otp_qr {
	unsigned	width;
	uint8_t		dark[OTP_QR_WIDTH_MAX * OTP_QR_WIDTH_MAX];
};

/* Parse a style name in any case: "utf8", "utf8-inverted", "ansi" or
 * "ascii" (OTP_EINVAL otherwise). */
int otp_qr_style_parse(const char *name, enum otp_qr_style *style);
/* Encode text into qr (level M, else L); OTP_EEMPTY, OTP_ETOOLONG,
 * OTP_ENOMEM.  libqrencode allocates while it works; nothing is kept. */
int otp_qr_encode(const char *text, struct otp_qr *qr);
/* Bytes otp_qr_render needs for qr in style, with the NUL. */
size_t otp_qr_render_size(const struct otp_qr *qr, enum otp_qr_style style);
/* Draw qr with a quiet zone, dark on light, as lines ending in '\n' into
 * out (then NUL); returns the length or OTP_ENOSPACE. */
int otp_qr_render(const struct otp_qr *qr, enum otp_qr_style style,
    char *out, size_t outsz);

/* ---- scratch codes from random words (lib/random.c) ------------------ */

/* Key bytes: at least 128 bits, 160 recommended (RFC 4226 §4 R6); past
 * SHA-512's 64-byte output a longer key adds nothing (RFC 2104 §3). */
#define OTP_KEYGEN_MIN		16
#define OTP_KEYGEN_DEFAULT	20
#define OTP_KEYGEN_MAX		64
#define OTP_SCRATCH_LO		10000000u	/* scratch codes: 8 digits, */
#define OTP_SCRATCH_HI		99999999u	/* the first one 1..9 */
#define OTP_SCRATCH_SETMAX	100	/* most codes in one set */

/* A source of uniform 32-bit words: 0, or a negative OTP_E* code. */
typedef int (*otp_word_fn)(void *arg, uint32_t *word);

/* Map a uniform 32-bit word to a uniform scratch code, or to 0 when it
 * must be drawn again (rejection sampling: no modulo bias). */
uint32_t otp_scratch_map(uint32_t word);
/* n (0..OTP_SCRATCH_SETMAX) distinct scratch codes from words drawn from
 * fn; fn's error, or OTP_EIO when it yields no new code for too long. */
int otp_scratch_codes_from(uint32_t *codes, size_t n, otp_word_fn fn,
    void *arg);

/* ---- Google Authenticator state file (lib/state.c) ------------------- */

/* The format is man/otp-state.5's.  The engine works on a file image in
 * memory and a clock; lib/sys/statefile.c adds the files, locks and the
 * clock. */

#define OTP_STATE_MAX		65536	/* largest state file, bytes */
#define OTP_STATE_OUTMAX	(2 * OTP_STATE_MAX)	/* out buffer for check */
#define OTP_STATE_SCRATCH_MAX	7300	/* scratch codes a 64 KiB file holds */
#define OTP_STATE_PERM		0600	/* default allowed_perm */

/* The option ranges google-authenticator(1) writes: WINDOW_SIZE codes,
 * STEP_SIZE seconds, RATE_LIMIT tries per seconds. */
#define OTP_STATE_WINDOW_MIN	1
#define OTP_STATE_WINDOW_MAX	21
#define OTP_STATE_STEP_MIN	1
#define OTP_STATE_STEP_MAX	60
#define OTP_STATE_RATE_MIN	1
#define OTP_STATE_RATE_MAX	10
#define OTP_STATE_RATE_SECS_MIN	15
#define OTP_STATE_RATE_SECS_MAX	600

enum otp_state_mode {
	OTP_STATE_SCRATCHONLY,	/* neither TOTP_AUTH nor HOTP_COUNTER */
	OTP_STATE_TOTP,
	OTP_STATE_HOTP,
};

/* A parsed state file (for display and tests; checking uses the image). */
struct otp_state {
	struct otp_key		key;
	enum otp_state_mode	mode;
	unsigned	window;		/* WINDOW_SIZE, 3 when absent */
	unsigned	step;		/* STEP_SIZE seconds, 30 when absent */
	unsigned	rate_n;		/* RATE_LIMIT tries, 0 when absent */
	unsigned	rate_secs;	/* RATE_LIMIT interval seconds */
	int		disallow_reuse;
	uint64_t	hotp_counter;	/* HOTP_COUNTER (HOTP mode) */
	int64_t		skew;		/* TIME_SKEW in steps, 0 when absent */
	size_t		nscratch;
	uint32_t	scratch[OTP_STATE_SCRATCH_MAX];
};

/* Bits of otp_state_opts.flags. */
#define OTP_STATE_NOSKEWADJ	0x01	/* no skew learning (noskewadj) */
#define OTP_STATE_NOINCRHOTP	0x02	/* no HOTP counter move on a miss */
#define OTP_STATE_NOSTRICTOWNER	0x04	/* skip the owner check */
#define OTP_STATE_ALLOWRO	0x08	/* accept even if not recorded */
#define OTP_STATE_UID_SELF	((unsigned long)-1)	/* the effective uid */

struct otp_state_opts {
	unsigned	flags;		/* OTP_STATE_* above */
	unsigned	allowed_perm;	/* mode bits allowed, 0600 default */
	unsigned long	uid;		/* expected owner, OTP_STATE_UID_SELF */
	uint64_t	grace_period;	/* seconds, 0 off (needs rhost) */
	const char	*rhost;		/* PAM_RHOST for grace_period or NULL */
};

/* How a check ended (otp_state_result.how). */
enum otp_state_how {
	OTP_STATE_REFUSED,
	OTP_STATE_BYCODE,	/* TOTP/HOTP code */
	OTP_STATE_BYSCRATCH,	/* emergency scratch code, now deleted */
	OTP_STATE_BYGRACE,	/* grace period for rhost, no code checked */
};

/* Why a check was refused (otp_state_result.why). */
enum otp_state_why {
	OTP_STATE_WHY_NONE,
	OTP_STATE_WHY_WRONG,	/* no match in the window */
	OTP_STATE_WHY_SHAPE,	/* not 6 digits nor an 8-digit scratch code */
	OTP_STATE_WHY_REUSED,	/* DISALLOW_REUSE: step already used */
	OTP_STATE_WHY_RATELIMIT,	/* RATE_LIMIT exceeded */
	OTP_STATE_WHY_SKEW,	/* skew being learned: send more codes */
	OTP_STATE_WHY_NOCODE,	/* scratch-only file, no such scratch code */
};

struct otp_state_result {
	int			accepted;	/* 1 accepted, 0 refused */
	enum otp_state_how	how;
	enum otp_state_why	why;
	int64_t		offset;		/* TOTP: matched step - (now step +
					 * skew); HOTP: matched - stored */
	uint64_t	counter;	/* matched time step or HOTP counter */
	int64_t		skew;		/* TIME_SKEW in force afterwards */
	int		changed;	/* the image was changed */
	int		recorded;	/* statefile: the change was written */
	int		hotp_miss;	/* a 6-digit code missed the HOTP
					 * counters (moved unless NOINCRHOTP) */
	size_t		answer;		/* the answer of the last reading */
	size_t		restlen;	/* its length before the code: the
					 * password of a forward_pass answer */
};

/* How an answer of a login is read into codes. */
enum otp_answer_kind {
	OTP_ANSWER_CODE,	/* the whole text is the code */
	OTP_ANSWER_BARE,	/* 6 digits, or an 8-digit scratch code */
	OTP_ANSWER_SPLIT,	/* a password, then a code: its last 6, its
				 * last 8 characters */
};

struct otp_answer {
	const char		*text;
	enum otp_answer_kind	 kind;
};

/* The phases of otp_state_login. */
#define OTP_LOGIN_OPEN		0x1	/* start: grace period, RATE_LIMIT */
#define OTP_LOGIN_SETTLE	0x2	/* end: a missed HOTP counter moves */

/* Defaults: no flags, allowed_perm 0600, uid OTP_STATE_UID_SELF, no
 * grace. */
void otp_state_opts_init(struct otp_state_opts *o);
/* Short text for a refusal reason; never NULL. */
const char *otp_state_why_text(enum otp_state_why why);
/* 0 if code is 6 digits or an 8-digit scratch code (10000000..99999999),
 * else OTP_ECODE; the engine refuses other shapes like the original. */
int otp_state_code_shape(const char *code);
/* Parse a file image of len bytes (1..OTP_STATE_MAX, no NUL) into st;
 * OTP_ESTATE* on a malformed file. */
int otp_state_parse(const char *img, size_t len, struct otp_state *st);
/* Where otp_state_parse() fails: *line (1: the secret) and *opt, the
 * option at fault or NULL; returns its error, or 0 for a good image. */
int otp_state_fault(const char *img, size_t len, size_t *line,
    const char **opt);
/* One login (phases OPEN, answers, SETTLE) over img at now: out (outsz >=
 * OTP_STATE_OUTMAX) gets the new image, r the outcome; refusals return 0. */
int otp_state_login(const char *img, size_t len, unsigned phases,
    const struct otp_answer *ans, size_t nans, int64_t now,
    const struct otp_state_opts *o, struct otp_state_result *r, char *out,
    size_t outsz, size_t *outlen);
/* A whole login with the one answer code (OTP_ANSWER_CODE). */
int otp_state_check(const char *img, size_t len, const char *code,
    int64_t now, const struct otp_state_opts *o, struct otp_state_result *r,
    char *out, size_t outsz, size_t *outlen);

/* Parameters of a new file; zero fields are omitted as the original
 * command omits them.  Ranges as google-authenticator(1): window 1..21,
 * step 1..60, rate_n 1..10 per rate_secs 15..600, TOTP or HOTP only,
 * no disallow_reuse with HOTP, scratch codes 10000000..99999999. */
struct otp_state_new {
	enum otp_state_mode	mode;		/* OTP_STATE_TOTP or _HOTP */
	unsigned	window;		/* WINDOW_SIZE, 0 none */
	unsigned	step;		/* STEP_SIZE, 0 none */
	unsigned	rate_n;		/* RATE_LIMIT, 0 none */
	unsigned	rate_secs;
	int		disallow_reuse;
	const uint32_t	*scratch;
	size_t		nscratch;	/* 0..OTP_STATE_SCRATCH_MAX */
};

/* Build a new file image (Base32 secret, option lines in the original's
 * order, scratch codes) for key into out; *outlen gets its length. */
int otp_state_build(const uint8_t *key, size_t keylen,
    const struct otp_state_new *n, char *out, size_t outsz, size_t *outlen);

/* ---- OATH Toolkit users file (lib/users.c) -------------------------- */

/* The format is man/otp-users.5's: one token a line, TYPE USER PASSWORD
 * KEY [COUNTER [LASTOTP [LASTTIME]]].  The engine works on a file image
 * in memory, a clock and a zone; lib/sys/usersfile.c adds files and locks. */

#define OTP_USERS_MAX		(16u << 20)	/* largest users file */
#define OTP_USERS_FIELD_MAX	256	/* user, PIN, last code, with NUL */
#define OTP_USERS_LINE_MAX	2048	/* room for one rebuilt line */
#define OTP_USERS_WINDOW	5	/* default HOTP/TOTP window */
#define OTP_USERS_MOTP_WINDOW	18	/* mOTP: +-18 ticks of 10 s */

enum otp_users_kind {
	OTP_USERS_HOTP,		/* HOTP, HOTP/E[/D] */
	OTP_USERS_TOTP,		/* HOTP/T30[/D], HOTP/T60[/D] */
	OTP_USERS_MOTP,		/* MOTP: ours, Mobile-OTP */
};

/* One token line. */
struct otp_users_token {
	enum otp_users_kind kind;
	unsigned	digits;		/* 6..8 (mOTP: 6 hex) */
	unsigned	period;		/* TOTP 30 or 60, mOTP 10, HOTP 0 */
	char		type[16];	/* TYPE as written, "" to spell it */
	char		user[OTP_USERS_FIELD_MAX];
	char		password[OTP_USERS_FIELD_MAX];	/* "-", "+" or a PIN */
	struct otp_key	key;		/* mOTP: the init-secret's text */
	uint64_t	counter;	/* COUNTER, 0 when absent */
	char		lastotp[OTP_USERS_FIELD_MAX];	/* "" when absent */
	char		lasttime[32];	/* "" when absent */
};

/* Why a check was refused. */
enum otp_users_why {
	OTP_USERS_WHY_NONE,
	OTP_USERS_WHY_UNKNOWN,	/* no token line for the user */
	OTP_USERS_WHY_PASSWORD,	/* the typed prefix is not the PASSWORD */
	OTP_USERS_WHY_WRONG,	/* no token takes the code */
	OTP_USERS_WHY_REPLAYED,	/* the last code again, or an older one */
};

struct otp_users_result {
	int		accepted;
	enum otp_users_why why;
	size_t		line;		/* 1-based: the token's, or the fault's */
	enum otp_users_kind kind;
	int64_t		offset;		/* steps (ticks) from now; HOTP:
					 * matched counter - COUNTER */
	uint64_t	counter;	/* COUNTER written */
};

/* Parse one line (no newline): 1 and *t for a token line, 0 for a line
 * kept as it is (comment, blank, unknown TYPE), else OTP_EUSERS*. */
int otp_users_line_parse(const char *line, size_t len,
    struct otp_users_token *t);
/* Format *t as a TAB-joined line with '\n' (TYPE spelt from kind, digits
 * and period when t->type is ""); its length, OTP_EUSERSFIELD, OTP_ENOSPACE. */
int otp_users_line_format(const struct otp_users_token *t, char *out,
    size_t outsz);
/* Short text for a refusal reason; never NULL. */
const char *otp_users_why_text(enum otp_users_why why);
/* 1 if user has a token line in img[0..len), else 0 (OTP_E* for a bad
 * image). */
int otp_users_has_user(const char *img, size_t len, const char *user);
/* Check code for user with the typed prefix password at now ("" none), as
 * pam_oath decides; accepted: out (outsz >= len + OTP_USERS_LINE_MAX)
 * gets the edited image, LASTTIME in zone's local time; else *outlen 0. */
int otp_users_check(const char *img, size_t len, const char *user,
    const char *password, const char *code, int64_t now,
    const struct otp_zone *zone, unsigned window,
    struct otp_users_result *r, char *out, size_t outsz, size_t *outlen);
/* Put t's line in img: appended, or with replace in place of the user's
 * token lines (OTP_EUSERSEXIST without replace); out as otp_users_check. */
int otp_users_set(const char *img, size_t len,
    const struct otp_users_token *t, int replace, char *out, size_t outsz,
    size_t *outlen);

/* What a token line cannot carry of an otpauth account (the OATH
 * Toolkit's types are HOTP and TOTP of 30 or 60 seconds, SHA1, 6-8 digits,
 * and a line has no issuer). */
#define OTP_USERS_NO_STEAM	0x01	/* Steam Guard's codes */
#define OTP_USERS_NO_ALG	0x02	/* an algorithm other than SHA1 */
#define OTP_USERS_NO_DIGITS	0x04	/* digits other than 6, 7, 8 */
#define OTP_USERS_NO_PERIOD	0x08	/* a period other than 30 or 60 */
#define OTP_USERS_NO_ISSUER	0x10	/* an issuer */
#define OTP_USERS_NO_USER	0x20	/* an account that is no user name:
					 * empty, white space, a control
					 * character, 256 bytes or more */
#define OTP_USERS_NO_EXTRA	0x40	/* unknown URI parameters */
#define OTP_USERS_PAM_OATH_KEY	32	/* the longest key pam_oath reads */

/* The token line of account u, user its account, PASSWORD "-", into *t:
 * 0, or the OTP_USERS_NO_* bits of what it cannot carry (*t zeroed), but
 * for those of drop (NO_ISSUER, NO_EXTRA only), which are left out. */
unsigned otp_users_from_uri(const struct otp_uri *u, unsigned drop,
    struct otp_users_token *t);
/* The otpauth account of HOTP or TOTP token t into *u: the user as the
 * account, no issuer, the counter HOTP's COUNTER (one more when LASTOTP
 * has used it); OTP_EINVAL for MOTP. */
int otp_users_to_uri(const struct otp_users_token *t, struct otp_uri *u);
/* For a line that otp_users_line_parse() keeps as it is: 0 for a blank
 * line or a comment (first field starting with '#'), else 1 (a token of a
 * type we do not know) with its first two fields, cut to fit, in type and
 * user ("" when absent). */
int otp_users_line_other(const char *line, size_t len, char *type,
    size_t typesz, char *user, size_t usersz);

/* ---- OTPW printed password lists (lib/otpw.c) ------------------------ */

/* The format is pam_otp(8)'s: "OTPW1", an optional "#" line, "ENTRIES
 * CHALLEN 12 PWLEN", then one line per entry (number, 12-character hash)
 * or as many dashes once used.  The engine works on an image in memory;
 * lib/sys/otpwfile.c adds the file, the lock symlink and the rename. */

#define OTP_OTPW_MAX		(400 * 1024)	/* largest file image */
#define OTP_OTPW_ENTRIES_MAX	9999	/* the readers' limits */
#define OTP_OTPW_CHALLEN_MAX	26	/* three numbers fit in 80 */
#define OTP_OTPW_HASHLEN	12	/* characters: 72 bits */
#define OTP_OTPW_PWLEN_MIN	4
#define OTP_OTPW_PWLEN_MAX	999
#define OTP_OTPW_MULTI		3	/* passwords while a lock is held */
#define OTP_OTPW_MULTI_MIN	10	/* unused entries the triple needs */
#define OTP_OTPW_CHAL_MAX	81	/* challenge text with NUL */
#define OTP_OTPW_RESP_MAX	4096	/* longest response read */

/* What the lists we make look like, as otpw-gen's default. */
#define OTP_OTPW_GEN_PWCHARS	8	/* 48 bits, shown "xxxx xxxx" */
#define OTP_OTPW_GEN_CHALLEN	3
#define OTP_OTPW_GEN_DEFAULT	280	/* 56 rows of 5 on one page */
#define OTP_OTPW_GEN_MIN	10
#define OTP_OTPW_GEN_MAX	1000	/* three digits */
#define OTP_OTPW_LIST_MAX	65536	/* printed list of _GEN_MAX */

/* An image's parameters, as otp_otpw_parse() found them. */
struct otp_otpw {
	unsigned	entries;	/* entry lines */
	unsigned	challen;	/* digits of an entry's number */
	unsigned	pwlen;		/* password characters */
	unsigned	remaining;	/* unused entries */
	long		first;		/* index of the first unused, or -1 */
	size_t		start;		/* offset of the first entry line */
	size_t		linelen;	/* challen + 12 + 1 */
};

/* One challenge: one entry, or three while another login holds one. */
struct otp_otpw_chal {
	unsigned	n;			/* 1 or OTP_OTPW_MULTI */
	unsigned	idx[OTP_OTPW_MULTI];	/* entry indexes */
	char		text[OTP_OTPW_CHAL_MAX];	/* "017", "017/010/022" */
};

/* Parse and check an image; OTP_EOTPW*, *line (may be NULL) the 1-based
 * line at fault. */
int otp_otpw_parse(const char *img, size_t len, struct otp_otpw *w,
    size_t *line);
/* The 12-character hash (then NUL) of prefix and a normalised password. */
void otp_otpw_hash(const char *prefix, size_t plen, const char *pw,
    size_t pwlen, char out[OTP_OTPW_HASHLEN + 1]);
/* The challenge for the first unused entry; OTP_EOTPWEMPTY. */
int otp_otpw_first(const char *img, const struct otp_otpw *w,
    struct otp_otpw_chal *c);
/* Three random unused entries, none numbered locked (another login's);
 * OTP_EOTPWFEW under 10 unused, fn's error. */
int otp_otpw_multi(const char *img, const struct otp_otpw *w,
    const char *locked, otp_word_fn fn, void *arg, struct otp_otpw_chal *c);
/* Read challenge text "NNN" or "NNN/NNN/NNN" naming unused entries;
 * OTP_EOTPWCHAL, OTP_EOTPWUNKNOWN. */
int otp_otpw_chal_parse(const char *img, const struct otp_otpw *w,
    const char *text, struct otp_otpw_chal *c);
/* 1 if resp is the prefix and the challenged passwords (normalised, read
 * from its end), else 0; compared in constant time. */
int otp_otpw_check(const char *img, const struct otp_otpw *w,
    const struct otp_otpw_chal *c, const char *resp);
/* 1 if c's entries are all unused in img, else 0. */
int otp_otpw_unused(const char *img, const struct otp_otpw *w,
    const struct otp_otpw_chal *c);
/* Overwrite c's entries with dashes in img, in place. */
void otp_otpw_mark(char *img, struct otp_otpw *w,
    const struct otp_otpw_chal *c);
/* A new list of n entries: pw gets the n passwords (8 characters each, in
 * number order), img the file image in random order; *imglen its length. */
int otp_otpw_generate(const char *prefix, size_t plen, unsigned n,
    otp_word_fn fn, void *arg, char *pw, size_t pwsz, char *img,
    size_t imgsz, size_t *imglen);
/* The printed list for n passwords pw as otpw-gen lays it out: header
 * "OTPW list generated WHEN on HOST", columns, CRLF, pages; its length. */
int otp_otpw_list(const char *pw, unsigned n, const char *when,
    const char *host, char *out, size_t outsz);
/* ---- RADIUS requests (lib/radius.c) ---------------------------------- */

#define OTP_USERNAME_MAX	64	/* longest user name, without NUL */

/* 0 if name, 1..OTP_USERNAME_MAX of [A-Za-z0-9._@-] (a final '$', no
 * leading '.' or '-'), may name a file; OTP_EUSERNAME at *erroff (or NULL). */
int otp_user_check(const char *name, size_t *erroff);
/* An attribute's value as an exec'd program receives it ("alice", quotes
 * and \\ \" \n \r \t \ooo escapes, or bare) into out; its length or OTP_E*. */
int otp_radius_value(const char *env, char *out, size_t outsz);
/* The reply line "ATTR := \"text\"\n", '"' and '\\' escaped, a control
 * as '?', into out; its length or OTP_ENOSPACE. */
int otp_radius_pair(const char *attr, const char *text, char *out,
    size_t outsz);

/* ---- PSKC key containers, RFC 6030 (lib/pskc.c) --------------------- */

/* The format is described in otp-uri(1).  The XML is the system floor's
 * (lib/sys/pskcxml.c, libxml2): it hands the core each element's text,
 * and the core decides: key derivation, decryption, MAC checks, and what
 * a Key becomes as an otpauth:// account.  Strings are NUL-ended; NULL
 * stands for an element or attribute that is absent. */

#define OTP_PSKC_MAX		(1024 * 1024)	/* largest file, bytes */
#define OTP_PSKC_TEXT_MAX	4096	/* longest value text used */
#define OTP_PSKC_AESKEY_MAX	32
#define OTP_PSKC_MACKEY_MAX	64
#define OTP_PSKC_SALT_LEN	16	/* salt of an export, bytes */
#define OTP_PSKC_ITER_EXPORT	100000	/* PBKDF2 count of an export */
#define OTP_PSKC_ITER_MAX	10000000	/* most a file may ask for */
#define OTP_PSKC_SERIAL_LEN	12	/* 4 letters, 8 hex digits */

#define OTP_PSKC_NS	"urn:ietf:params:xml:ns:keyprov:pskc"
#define OTP_PSKC_HOTP	OTP_PSKC_NS ":hotp"
#define OTP_PSKC_TOTP	OTP_PSKC_NS ":totp"
#define OTP_PSKC_XENC	"http://www.w3.org/2001/04/xmlenc#"
#define OTP_PSKC_HMACSHA1 "http://www.w3.org/2000/09/xmldsig#hmac-sha1"
#define OTP_PSKC_PBKDF2	"http://www.rsasecurity.com/rsalabs/pkcs/" \
			"schemas/pkcs-5v2-0#pbkdf2"

/* One data element (Secret, Counter, ...) as the file spells it. */
struct otp_pskc_value {
	const char	*plain;		/* PlainValue */
	const char	*method;	/* EncryptedValue's EncryptionMethod */
	const char	*cipher;	/* its CipherValue, base64 */
	const char	*mac;		/* ValueMAC, base64 */
};

/* The container's protection. */
struct otp_pskc_doc {
	int		encrypted;	/* an EncryptionKey element */
	const char	*keyname;	/* its ds:KeyName */
	const char	*kdf;		/* DerivedKey's KeyDerivationMethod */
	const char	*salt;		/* PBKDF2-params: Salt/Specified, */
	const char	*iterations;	/* IterationCount, */
	const char	*keylength;	/* KeyLength, */
	const char	*prf;		/* PRF's Algorithm ("" for none) */
	const char	*macmethod;	/* MACMethod's Algorithm */
	struct otp_pskc_value mackey;	/* its MACKey */
};

/* One Key element and its KeyPackage's DeviceInfo. */
struct otp_pskc_keytext {
	const char	*id, *algorithm;	/* Key's attributes */
	const char	*suite;		/* AlgorithmParameters/Suite */
	const char	*length, *encoding;	/* ResponseFormat's */
	int		challenge;	/* a ChallengeFormat (OCRA and such) */
	const char	*issuer, *userid, *friendly;
	const char	*serial, *devuserid;	/* DeviceInfo's */
	struct otp_pskc_value secret, counter, time, interval, drift;
};

/* The keys of an encrypted container; wipe it with otp_wipe. */
struct otp_pskc_crypt {
	uint8_t		key[OTP_PSKC_AESKEY_MAX];
	size_t		keylen;
	uint8_t		mackey[OTP_PSKC_MACKEY_MAX];
	size_t		mackeylen;	/* 0: no MACMethod */
	enum otp_alg	macalg;
};

/* PBKDF2-HMAC-SHA1 of the password into out[0..outlen) (RFC 8018 §5.2). */
int otp_pskc_pbkdf2(const char *pw, size_t pwlen, const uint8_t *salt,
    size_t saltlen, unsigned long iterations, uint8_t *out, size_t outlen);
/* c->key from pw and d's PBKDF2 parameters (count at most itermax). */
int otp_pskc_derive(const struct otp_pskc_doc *d, const char *pw,
    size_t pwlen, unsigned long itermax, struct otp_pskc_crypt *c);
/* With c->key set, decrypt d's MAC key into c; OTP_EPSKCWRONGKEY when it
 * will not decrypt, OTP_EPSKCMETHOD, OTP_EPSKCKEYLEN, OTP_EPSKCCIPHER. */
int otp_pskc_unlock(const struct otp_pskc_doc *d, struct otp_pskc_crypt *c);
/* Key k as an account in u (c NULL: no key given); OTP_E* why not, which
 * otp_pskc_skip() sorts into keys to skip and faults of the file. */
int otp_pskc_key(const struct otp_pskc_crypt *c,
    const struct otp_pskc_keytext *k, struct otp_uri *u);
/* 1 for an otp_pskc_key() code that means "no otpauth:// form", else 0. */
int otp_pskc_skip(int err);
/* base64(iv || AES-CBC(c->key, in padded)) into cipher and, unless mac
 * is NULL, base64(HMAC(c->mackey, iv || ciphertext)) into mac. */
int otp_pskc_seal(const struct otp_pskc_crypt *c, const uint8_t iv[16],
    const uint8_t *in, size_t n, char *cipher, size_t ciphersz, char *mac,
    size_t macsz);
/* The xmlenc Algorithm URI of AES-CBC for a keylen-byte key, or NULL. */
const char *otp_pskc_aes_method(size_t keylen);
/* A serial LinOTP's check accepts, "TOTP" or "HOTP" then rnd as 8 hex
 * digits, into out (OTP_PSKC_SERIAL_LEN + 1 bytes). */
void otp_pskc_serial(const struct otp_uri *u, const uint8_t rnd[4],
    char *out);

#endif /* OTP_H */

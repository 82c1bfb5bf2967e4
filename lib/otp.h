/*
 * otp.h - the pure core of otp-utils (lib/, built as libotp.a): errors,
 * codecs, HOTP/TOTP/Steam/Mobile-OTP, time parsing, verification and
 * diagnosis, scratch codes.  Each engine over it has a header of its own
 * beside this one: otp_uri.h (key text, otpauth URIs), otp_migration.h,
 * otp_qr.h, otp_state.h (the state file), otp_users.h (the users file),
 * otp_otpw.h, otp_radius.h, otp_pskc.h.
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

/* Every error code once, with its text: lib/otp_errors.h. */
#include "otp_errors.h"

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
/* Seconds in words ("1 h 30 min", "45 s", "0 s") into out (then NUL);
 * the length, or OTP_ENOSPACE. */
int otp_duration_text(uint64_t s, char *out, size_t outsz);

/* ---- keys ------------------------------------------------------------ */

enum otp_keyenc {
	OTP_KEYENC_HEX,
	OTP_KEYENC_BASE32,
};

struct otp_key {
	uint8_t	buf[OTP_KEY_MAX];
	size_t	len;
};

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
/* One finding of p in words into out (then NUL): what differs, then
 * where it matched ("algorithm SHA256, not SHA1 (step 41152263, offset
 * 0)"); len is the code's length.  The length, or OTP_ENOSPACE (out
 * then holds what fits). */
int otp_diag_text(const struct otp_diag_params *p,
    const struct otp_finding *f, size_t len, char *out, size_t outsz);

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

#endif /* OTP_H */

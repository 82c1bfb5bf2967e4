/*
 * otp_pskc.h - PSKC key containers, RFC 6030 (lib/pskc.c).
 * Conventions as in otp.h.
 */
#ifndef OTP_PSKC_H
#define OTP_PSKC_H

#include <stddef.h>
#include <stdint.h>

#include "otp_uri.h"

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
 * otp_pskc_skip() sorts into keys to skip and faults of the file.  With
 * c (an encrypted container) a PlainValue secret is OTP_EPSKCPLAIN,
 * whatever the key's type: no key or MAC vouches for it. */
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

#endif /* OTP_PSKC_H */

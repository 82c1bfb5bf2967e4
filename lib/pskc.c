/*
 * pskc.c - the decisions of PSKC (RFC 6030) key containers over the
 * element texts the XML floor hands us: the PBKDF2 key (§6.2), AES-CBC
 * values and their MACs (§6.1.1), and the mapping of a Key to the
 * otpauth:// account it is.
 */
#include <string.h>

#include <nettle/aes.h>
#include <nettle/cbc.h>
#include <nettle/hmac.h>
#include <nettle/pbkdf2.h>

#include "otp.h"
#include "otp_pskc.h"
#include "otp_uri.h"

#define AES_BLOCK	16
#define MAC_MAX		64	/* HMAC-SHA512 */
#define RAW_MAX		(OTP_PSKC_TEXT_MAX / 4 * 3)

/* Known algorithm URIs. */
static const struct {
	const char	*uri;
	size_t		 keylen;
} aes_methods[] = {
	{ OTP_PSKC_XENC "aes128-cbc", 16 },
	{ OTP_PSKC_XENC "aes192-cbc", 24 },
	{ OTP_PSKC_XENC "aes256-cbc", 32 },
};

static const struct {
	const char	*uri;
	enum otp_alg	 alg;
} mac_methods[] = {
	{ OTP_PSKC_HMACSHA1, OTP_ALG_SHA1 },
	{ "http://www.w3.org/2001/04/xmldsig-more#hmac-sha256", OTP_ALG_SHA256 },
	{ "http://www.w3.org/2001/04/xmldsig-more#hmac-sha512", OTP_ALG_SHA512 },
};

const char *
otp_pskc_aes_method(size_t keylen)
{
	size_t i;

	for (i = 0; i < sizeof(aes_methods) / sizeof(aes_methods[0]); i++)
		if (aes_methods[i].keylen == keylen)
			return aes_methods[i].uri;
	return NULL;
}

static int
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Decode base64 text as xs:base64Binary, which may hold XML white space
 * anywhere; the core's decoder would read a space as '+'. */
static int
b64_xml(const char *text, uint8_t *out, size_t outsz, size_t *outlen)
{
	struct otp_b64_decoder d;
	size_t n, got, start, i = 0, total = 0;
	int rc;

	otp_b64_decoder_init(&d);
	while (text[i] != '\0') {
		while (is_space(text[i]))
			i++;
		start = i;
		while (text[i] != '\0' && !is_space(text[i]))
			i++;
		if (i == start)
			break;
		rc = otp_b64_decoder_update(&d, text + start, i - start,
		    out + total, outsz - total, &got, &n);
		if (rc != 0)
			goto fail;
		total += got;
	}
	if ((rc = otp_b64_decoder_final(&d, out + total, outsz - total,
	    &got)) != 0)
		goto fail;
	*outlen = total + got;
	return 0;
fail:
	otp_wipe(out, outsz);
	return rc;
}

/* The text without surrounding XML white space, into buf. */
static const char *
trim(const char *s, char *buf, size_t bufsz)
{
	size_t n;

	while (is_space(*s))
		s++;
	n = strlen(s);
	while (n > 0 && is_space(s[n - 1]))
		n--;
	if (n >= bufsz)
		n = bufsz - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return buf;
}

static int
parse_num(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char buf[32];

	if (strlen(s) >= 64)
		return OTP_ERANGE;
	return otp_parse_u64(trim(s, buf, sizeof(buf)), min, max, out);
}

static void
mac_compute(enum otp_alg alg, const uint8_t *key, size_t keylen,
    const uint8_t *msg, size_t n, uint8_t *out, size_t *outlen)
{
	struct hmac_sha1_ctx s1;
	struct hmac_sha256_ctx s256;
	struct hmac_sha512_ctx s512;

	switch (alg) {
	case OTP_ALG_SHA256:
		hmac_sha256_set_key(&s256, keylen, key);
		hmac_sha256_update(&s256, n, msg);
		hmac_sha256_digest(&s256, SHA256_DIGEST_SIZE, out);
		*outlen = SHA256_DIGEST_SIZE;
		otp_wipe(&s256, sizeof(s256));
		break;
	case OTP_ALG_SHA512:
		hmac_sha512_set_key(&s512, keylen, key);
		hmac_sha512_update(&s512, n, msg);
		hmac_sha512_digest(&s512, SHA512_DIGEST_SIZE, out);
		*outlen = SHA512_DIGEST_SIZE;
		otp_wipe(&s512, sizeof(s512));
		break;
	default:
		hmac_sha1_set_key(&s1, keylen, key);
		hmac_sha1_update(&s1, n, msg);
		hmac_sha1_digest(&s1, SHA1_DIGEST_SIZE, out);
		*outlen = SHA1_DIGEST_SIZE;
		otp_wipe(&s1, sizeof(s1));
		break;
	}
}

/* AES-CBC over n bytes (a multiple of the block) from in to out. */
static void
aes_cbc(int enc, const uint8_t *key, size_t keylen, uint8_t iv[AES_BLOCK],
    const uint8_t *in, size_t n, uint8_t *out)
{
	union {
		struct aes128_ctx	a128;
		struct aes192_ctx	a192;
		struct aes256_ctx	a256;
	} ctx;
	nettle_cipher_func *f;

	if (keylen == 16) {
		if (enc)
			aes128_set_encrypt_key(&ctx.a128, key);
		else
			aes128_set_decrypt_key(&ctx.a128, key);
		f = (nettle_cipher_func *)(enc ? aes128_encrypt :
		    aes128_decrypt);
	} else if (keylen == 24) {
		if (enc)
			aes192_set_encrypt_key(&ctx.a192, key);
		else
			aes192_set_decrypt_key(&ctx.a192, key);
		f = (nettle_cipher_func *)(enc ? aes192_encrypt :
		    aes192_decrypt);
	} else {
		if (enc)
			aes256_set_encrypt_key(&ctx.a256, key);
		else
			aes256_set_decrypt_key(&ctx.a256, key);
		f = (nettle_cipher_func *)(enc ? aes256_encrypt :
		    aes256_decrypt);
	}
	if (enc)
		cbc_encrypt(&ctx, f, AES_BLOCK, iv, n, out, in);
	else
		cbc_decrypt(&ctx, f, AES_BLOCK, iv, n, out, in);
	otp_wipe(&ctx, sizeof(ctx));
}

/*
 * Decrypt an EncryptedValue with key (keylen bytes) into out; the MAC,
 * when mackey is given, is checked first over IV || ciphertext, so a
 * wrong key or a changed byte is an error, never a garbage value.
 */
static int
open_value(const struct otp_pskc_value *v, const uint8_t *key,
    size_t keylen, const uint8_t *mackey, size_t mackeylen,
    enum otp_alg macalg, uint8_t *out, size_t outsz, size_t *outlen)
{
	uint8_t raw[RAW_MAX], mac[MAC_MAX], want[MAC_MAX], iv[AES_BLOCK];
	char uri[128];
	size_t i, n, macn, wantn;
	unsigned pad;
	int rc = 0;

	if (v->method == NULL || v->cipher == NULL)
		return OTP_EPSKCCIPHER;
	for (i = 0; i < sizeof(aes_methods) / sizeof(aes_methods[0]); i++)
		if (strcmp(trim(v->method, uri, sizeof(uri)),
		    aes_methods[i].uri) == 0)
			break;
	if (i == sizeof(aes_methods) / sizeof(aes_methods[0]))
		return OTP_EPSKCMETHOD;
	if (aes_methods[i].keylen != keylen)
		return OTP_EPSKCKEYLEN;
	if (strlen(v->cipher) > OTP_PSKC_TEXT_MAX)
		return OTP_EPSKCCIPHER;
	if (b64_xml(v->cipher, raw, sizeof(raw), &n) != 0 || n < 2 *
	    AES_BLOCK || n % AES_BLOCK != 0)
		return OTP_EPSKCCIPHER;
	if (mackeylen > 0) {
		if (v->mac == NULL) {
			rc = OTP_EPSKCNOMAC;
			goto out;
		}
		if (strlen(v->mac) > 256 ||
		    b64_xml(v->mac, want, sizeof(want), &wantn) != 0) {
			rc = OTP_EPSKCCIPHER;
			goto out;
		}
		mac_compute(macalg, mackey, mackeylen, raw, n, mac, &macn);
		if (wantn != macn || !otp_ct_equal(mac, want, macn)) {
			rc = OTP_EPSKCMAC;
			goto out;
		}
	} else if (mackey == NULL) {
		/* No MACMethod: RFC 6030 §6.1.1 asks for one with CBC. */
		rc = OTP_EPSKCNOMAC;
		goto out;
	}
	if (n - AES_BLOCK > outsz) {
		rc = OTP_EPSKCCIPHER;
		goto out;
	}
	memcpy(iv, raw, AES_BLOCK);
	aes_cbc(0, key, keylen, iv, raw + AES_BLOCK, n - AES_BLOCK, out);
	n -= AES_BLOCK;
	/* PKCS #7 padding (RFC 5652 §6.3). */
	pad = out[n - 1];
	if (pad == 0 || pad > AES_BLOCK)
		rc = OTP_EPSKCCIPHER;
	for (i = 0; rc == 0 && i < pad; i++)
		if (out[n - 1 - i] != pad)
			rc = OTP_EPSKCCIPHER;
	if (rc != 0)
		otp_wipe(out, outsz);
	else
		*outlen = n - pad;
out:
	otp_wipe(raw, sizeof(raw));
	otp_wipe(iv, sizeof(iv));
	return rc;
}

int
otp_pskc_pbkdf2(const char *pw, size_t pwlen, const uint8_t *salt,
    size_t saltlen, unsigned long iterations, uint8_t *out, size_t outlen)
{
	if (iterations == 0 || iterations > OTP_PSKC_ITER_MAX || outlen == 0)
		return OTP_EPSKCITER;
	pbkdf2_hmac_sha1(pwlen, (const uint8_t *)pw, (unsigned)iterations,
	    saltlen, salt, outlen, out);
	return 0;
}

int
otp_pskc_derive(const struct otp_pskc_doc *d, const char *pw, size_t pwlen,
    unsigned long itermax, struct otp_pskc_crypt *c)
{
	uint8_t salt[256];
	char buf[160];
	uint64_t iter, keylen;
	size_t saltlen;
	int rc;

	if (d->kdf == NULL)
		return OTP_EPSKCKDF;
	if (strcmp(trim(d->kdf, buf, sizeof(buf)), OTP_PSKC_PBKDF2) != 0)
		return OTP_EPSKCMETHOD;
	/* An empty PRF is HMAC-SHA1, the only one PKCS #5 v2.0 had. */
	if (d->prf != NULL && trim(d->prf, buf, sizeof(buf))[0] != '\0' &&
	    strcmp(buf, "http://www.rsasecurity.com/rsalabs/pkcs/schemas/"
	    "pkcs-5v2-0#hmac-sha1") != 0 &&
	    strcmp(buf, "http://www.w3.org/2000/09/xmldsig#hmac-sha1") != 0)
		return OTP_EPSKCMETHOD;
	if (d->salt == NULL || d->iterations == NULL || d->keylength == NULL ||
	    strlen(d->salt) > 300 ||
	    b64_xml(d->salt, salt, sizeof(salt), &saltlen) != 0)
		return OTP_EPSKCKDF;
	if (parse_num(d->keylength, 16, 32, &keylen) != 0 ||
	    otp_pskc_aes_method((size_t)keylen) == NULL)
		return OTP_EPSKCKDF;
	if (parse_num(d->iterations, 1, itermax, &iter) != 0)
		return OTP_EPSKCITER;
	rc = otp_pskc_pbkdf2(pw, pwlen, salt, saltlen, (unsigned long)iter,
	    c->key, (size_t)keylen);
	if (rc == 0)
		c->keylen = (size_t)keylen;
	return rc;
}

int
otp_pskc_unlock(const struct otp_pskc_doc *d, struct otp_pskc_crypt *c)
{
	char buf[160];
	size_t i;
	int rc;

	c->mackeylen = 0;
	c->macalg = OTP_ALG_SHA1;
	if (d->macmethod == NULL)
		return 0;
	trim(d->macmethod, buf, sizeof(buf));
	for (i = 0; i < sizeof(mac_methods) / sizeof(mac_methods[0]); i++)
		if (strcmp(buf, mac_methods[i].uri) == 0)
			break;
	if (i == sizeof(mac_methods) / sizeof(mac_methods[0]))
		return OTP_EPSKCMETHOD;
	c->macalg = mac_methods[i].alg;
	if (d->mackey.cipher == NULL)
		return OTP_EPSKCCIPHER;
	/* The MAC key has no MAC of its own: its padding is the only
	 * check of the key, so a wrong key usually fails here, and
	 * otherwise at the first ValueMAC. */
	rc = open_value(&d->mackey, c->key, c->keylen, c->key, 0, c->macalg,
	    c->mackey, sizeof(c->mackey), &c->mackeylen);
	if (rc == OTP_EPSKCCIPHER && d->mackey.method != NULL)
		rc = OTP_EPSKCWRONGKEY;
	if (rc == 0 && c->mackeylen == 0)
		rc = OTP_EPSKCWRONGKEY;
	if (rc != 0)
		otp_wipe(c->mackey, sizeof(c->mackey));
	return rc;
}

/* The bytes of value v: decrypted, or base64 of a PlainValue when b64,
 * else the plain text as is. */
static int
value_bytes(const struct otp_pskc_crypt *c, const struct otp_pskc_value *v,
    int b64, uint8_t *out, size_t outsz, size_t *outlen)
{
	size_t n;

	if (v->cipher != NULL || v->method != NULL) {
		if (c == NULL)
			return OTP_EPSKCNOKEY;
		return open_value(v, c->key, c->keylen, c->mackeylen > 0 ?
		    c->mackey : NULL, c->mackeylen, c->macalg, out, outsz,
		    outlen);
	}
	if (v->plain == NULL)
		return OTP_EPSKCVALUE;
	if (b64) {
		if (strlen(v->plain) > OTP_PSKC_TEXT_MAX)
			return OTP_EKEYLONG;
		return b64_xml(v->plain, out, outsz, outlen) != 0 ?
		    OTP_EPSKCVALUE : 0;
	}
	n = strlen(v->plain);
	if (n >= outsz)
		return OTP_EPSKCVALUE;
	memcpy(out, v->plain, n);
	*outlen = n;
	return 0;
}

/* An integer value: decimal text, or when encrypted either the decimal
 * text or a big-endian binary number of up to 8 bytes. */
static int
value_int(const struct otp_pskc_crypt *c, const struct otp_pskc_value *v,
    uint64_t max, uint64_t *out)
{
	uint8_t buf[64];
	char text[64];
	size_t n, i;
	int rc, digits = 1;

	if (v->plain == NULL && v->cipher == NULL && v->method == NULL) {
		/* The element is there but holds no value. */
		return OTP_EPSKCVALUE;
	}
	if ((rc = value_bytes(c, v, 0, buf, sizeof(buf), &n)) != 0)
		return rc == OTP_EPSKCVALUE || rc == OTP_EBASE64 ?
		    OTP_EPSKCVALUE : rc;
	for (i = 0; i < n; i++)
		if (buf[i] < '0' || buf[i] > '9')
			digits = 0;
	if (v->plain != NULL || (digits && n > 0)) {
		memcpy(text, buf, n);
		text[n] = '\0';
		rc = parse_num(text, 0, max, out) != 0 ? OTP_EPSKCVALUE : 0;
	} else if (n == 0 || n > 8) {
		rc = OTP_EPSKCVALUE;
	} else {
		*out = 0;
		for (i = 0; i < n; i++)
			*out = *out << 8 | buf[i];
		rc = *out > max ? OTP_EPSKCVALUE : 0;
	}
	otp_wipe(buf, sizeof(buf));
	return rc;
}

static int
present(const struct otp_pskc_value *v)
{
	return v->plain != NULL || v->cipher != NULL || v->method != NULL ||
	    v->mac != NULL;
}

/* Copy a name into dst; OTP_EURILABEL if it is no UTF-8 text or too
 * long for a label. */
static int
set_name(char *dst, size_t dstsz, const char *src)
{
	char buf[OTP_LABEL_MAX];
	size_t bad;

	if (strlen(src) >= dstsz)
		return OTP_EURILABEL;
	trim(src, buf, sizeof(buf));
	if (otp_text_check(buf, strlen(buf), &bad) != 0)
		return OTP_EURILABEL;
	memcpy(dst, buf, strlen(buf) + 1);
	return 0;
}

static int
key_type(const char *alg, enum otp_type *type)
{
	static const struct {
		const char	*uri;
		enum otp_type	 type;
	} types[] = {
		{ OTP_PSKC_HOTP, OTP_TYPE_HOTP },
		{ OTP_PSKC_TOTP, OTP_TYPE_TOTP },
		{ "http://www.ietf.org/keyprov/pskc#hotp", OTP_TYPE_HOTP },
		{ "http://www.ietf.org/keyprov/pskc#totp", OTP_TYPE_TOTP },
		{ OTP_PSKC_NS "#hotp", OTP_TYPE_HOTP },
		{ OTP_PSKC_NS "#totp", OTP_TYPE_TOTP },
	};
	char buf[128];
	size_t i;

	if (alg == NULL)
		return OTP_EPSKCTYPE;
	trim(alg, buf, sizeof(buf));
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strcmp(buf, types[i].uri) == 0) {
			*type = types[i].type;
			return 0;
		}
	return OTP_EPSKCTYPE;
}

static int
suite_alg(const char *suite, enum otp_alg *alg)
{
	char buf[32];
	const char *s;

	*alg = OTP_ALG_SHA1;
	if (suite == NULL || trim(suite, buf, sizeof(buf))[0] == '\0')
		return 0;
	s = buf;
	if (otp_ascii_caseeq(s, "HMAC-", 5))
		s += 5;
	return otp_alg_parse(s, alg) == 0 ? 0 : OTP_EPSKCTYPE;
}

int
otp_pskc_key(const struct otp_pskc_crypt *c,
    const struct otp_pskc_keytext *k, struct otp_uri *u)
{
	char buf[32];
	const char *name;
	uint64_t v;
	int rc;

	otp_uri_init(u);
	/* A secret anyone could have put in an encrypted container (a
	 * KeyPackage added, a seed swapped in transit) is not read: it
	 * stops the file even where the key would be skipped.  Numbers in
	 * plain text are what RFC 6030's own figure 6, LinOTP and python-pskc
	 * write; they are read (otp-uri(1), SECURITY CONSIDERATIONS). */
	if (c != NULL && k->secret.plain != NULL)
		return OTP_EPSKCPLAIN;
	/* What the key is first: a key with no otpauth:// form is skipped
	 * whatever else is wrong with it. */
	if ((rc = key_type(k->algorithm, &u->type)) != 0 ||
	    (rc = suite_alg(k->suite, &u->alg)) != 0)
		return rc;
	if (k->challenge)
		return OTP_EPSKCTYPE;
	if (k->encoding != NULL &&
	    strcmp(trim(k->encoding, buf, sizeof(buf)), "DECIMAL") != 0)
		return OTP_EPSKCTYPE;
	if (k->length != NULL && (parse_num(k->length, 0, 99, &v) != 0 ||
	    v < OTP_DIGITS_MIN || v > OTP_DIGITS_MAX))
		return OTP_EDIGITS;
	u->digits = k->length != NULL ? (unsigned)v : OTP_DEFAULT_DIGITS;
	u->have = OTP_HAVE_ALG | OTP_HAVE_DIGITS;
	if (u->type == OTP_TYPE_TOTP) {
		if (present(&k->time)) {
			if ((rc = value_int(c, &k->time, UINT64_MAX, &v)) != 0)
				return rc;
			if (v != 0)
				return OTP_EPSKCTIME;
		}
		if (present(&k->drift)) {
			if ((rc = value_int(c, &k->drift, UINT64_MAX, &v)) !=
			    0)
				/* A negative drift is a drift too. */
				return rc == OTP_EPSKCVALUE ? OTP_EPSKCDRIFT :
				    rc;
			if (v != 0)
				return OTP_EPSKCDRIFT;
		}
		u->period = OTP_DEFAULT_PERIOD;
		if (present(&k->interval) &&
		    (rc = value_int(c, &k->interval, UINT32_MAX,
		    &u->period)) != 0)
			return rc;
		if (u->period == 0)
			return OTP_EPSKCVALUE;
		u->have |= OTP_HAVE_PERIOD;
	} else {
		if (present(&k->counter) &&
		    (rc = value_int(c, &k->counter, UINT64_MAX,
		    &u->counter)) != 0)
			return rc;
		u->have |= OTP_HAVE_COUNTER;
	}
	if (!present(&k->secret))
		return OTP_EPSKCNOSECRET;
	rc = value_bytes(c, &k->secret, 1, u->key.buf, sizeof(u->key.buf),
	    &u->key.len);
	if (rc == OTP_EPSKCVALUE)
		rc = OTP_EPSKCNOSECRET;
	if (rc == 0 && u->key.len == 0)
		rc = OTP_EKEYEMPTY;
	if (rc != 0)
		goto fail;
	if (k->issuer != NULL) {
		if ((rc = set_name(u->issuer, sizeof(u->issuer),
		    k->issuer)) != 0)
			goto fail;
		if (u->issuer[0] != '\0')
			u->have |= OTP_HAVE_ISSUER | OTP_HAVE_LABELISSUER;
	}
	name = k->userid != NULL ? k->userid : k->devuserid != NULL ?
	    k->devuserid : k->friendly != NULL ? k->friendly :
	    k->serial != NULL ? k->serial : k->id;
	if (name != NULL && (rc = set_name(u->account, sizeof(u->account),
	    name)) != 0)
		goto fail;
	return 0;
fail:
	otp_wipe(&u->key, sizeof(u->key));
	return rc;
}

int
otp_pskc_skip(int err)
{
	return err == OTP_EPSKCTYPE || err == OTP_EPSKCTIME ||
	    err == OTP_EPSKCDRIFT || err == OTP_EDIGITS;
}

int
otp_pskc_seal(const struct otp_pskc_crypt *c, const uint8_t iv[16],
    const uint8_t *in, size_t n, char *cipher, size_t ciphersz, char *mac,
    size_t macsz)
{
	uint8_t buf[AES_BLOCK + RAW_MAX], chain[AES_BLOCK], digest[MAC_MAX];
	size_t padded = (n / AES_BLOCK + 1) * AES_BLOCK, dn, i;
	int rc;

	if (otp_pskc_aes_method(c->keylen) == NULL)
		return OTP_EPSKCKEYLEN;
	if (n > RAW_MAX - AES_BLOCK)
		return OTP_ETOOLONG;
	memcpy(buf, iv, AES_BLOCK);
	memcpy(buf + AES_BLOCK, in, n);
	for (i = n; i < padded; i++)
		buf[AES_BLOCK + i] = (uint8_t)(padded - n);
	memcpy(chain, iv, AES_BLOCK);
	aes_cbc(1, c->key, c->keylen, chain, buf + AES_BLOCK, padded,
	    buf + AES_BLOCK);
	rc = otp_b64_encode(buf, AES_BLOCK + padded, cipher, ciphersz);
	if (rc >= 0 && mac != NULL) {
		mac_compute(c->macalg, c->mackey, c->mackeylen, buf,
		    AES_BLOCK + padded, digest, &dn);
		rc = otp_b64_encode(digest, dn, mac, macsz);
	}
	otp_wipe(buf, sizeof(buf));
	otp_wipe(chain, sizeof(chain));
	return rc < 0 ? rc : 0;
}

void
otp_pskc_serial(const struct otp_uri *u, const uint8_t rnd[4], char *out)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t i;

	memcpy(out, u->type == OTP_TYPE_TOTP ? "TOTP" : "HOTP", 4);
	for (i = 0; i < 4; i++) {
		out[4 + 2 * i] = hex[rnd[i] >> 4];
		out[5 + 2 * i] = hex[rnd[i] & 15];
	}
	out[OTP_PSKC_SERIAL_LEN] = '\0';
}

/*
 * text.c - the text rules URIs and migration payloads share: hex digit
 * values, UTF-8 without control characters, percent-encoding (RFC 3986
 * §2.1) and the "issuer:account" label (see otp-uri(1)).  ASCII only: no
 * locale.
 */
#include <string.h>

#include "otp.h"

int
otp_hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int
otp_ascii_lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

int
otp_ascii_caseeq(const char *a, const char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (otp_ascii_lower((unsigned char)a[i]) !=
		    otp_ascii_lower((unsigned char)b[i]))
			return 0;
		if (a[i] == '\0')
			return 1;
	}
	return 1;
}

/*
 * The length of the well-formed UTF-8 sequence at s[0..n) (RFC 3629 §4),
 * its code point in *cp; 0 when it is not one.  The second byte's range
 * excludes overlong forms, surrogates and code points past U+10FFFF.
 */
static size_t
utf8_seq(const unsigned char *s, size_t n, uint32_t *cp)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t need, k;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		need = 1;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		need = 2;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		need = 3;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (n <= need || s[1] < lo || s[1] > hi)
		return 0;
	*cp = s[0] & (0x7fu >> (need + 1));
	for (k = 1; k <= need; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (s[k] & 0x3fu);
	}
	return need + 1;
}

/* C0, DEL and C1 control characters. */
static int
is_control(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);
}

int
otp_text_check(const char *s, size_t n, size_t *bad)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i, k;
	uint32_t cp;

	for (i = 0; i < n; i += k) {
		*bad = i;
		if ((k = utf8_seq(u + i, n - i, &cp)) == 0)
			return OTP_EUTF8;
		if (cp == 0)
			return OTP_ENUL;
		if (is_control(cp))
			return OTP_EURICTRL;
	}
	return 0;
}

/* Percent-decode in[0..n) once (RFC 3986 §2.1) into out, then NUL;
 * *outlen gets the length.  OTP_EURIESC or OTP_ENOSPACE, *erroff at the
 * character at fault. */
int
otp_pct_decode(const char *in, size_t n, int flags, char *out,
    size_t outsz, size_t *outlen, size_t *erroff)
{
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)in[i];

		if (o + 1 >= outsz) {
			*erroff = i;
			return OTP_ENOSPACE;
		}
		if (c == '%') {
			int hi, lo;

			if (n - i < 3 ||
			    (hi = otp_hexval((unsigned char)in[i + 1])) < 0 ||
			    (lo = otp_hexval((unsigned char)in[i + 2])) < 0) {
				*erroff = i;
				return OTP_EURIESC;
			}
			c = (unsigned char)(hi << 4 | lo);
			i += 2;
		} else if (c == '+' && (flags & OTP_PCT_PLUS))
			c = ' ';
		out[o++] = (char)c;
	}
	out[o] = '\0';
	*outlen = o;
	return 0;
}

size_t
otp_pct_offset(const char *in, size_t n, size_t d)
{
	size_t i, k;

	for (i = 0, k = 0; i < n && k < d; i++, k++)
		if (in[i] == '%')
			i += 2;
	return i < n ? i : n;
}

/* RFC 3986 §2.3. */
static int
is_unreserved(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	    (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
	    c == '~';
}

int
otp_pct_encode(const char *in, size_t n, char *out, size_t outsz)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)in[i];
		size_t need = is_unreserved(c) ? 1 : 3;

		if (outsz - o <= need || o > INT32_MAX - 3)
			return OTP_ENOSPACE;
		if (need == 1)
			out[o++] = (char)c;
		else {
			out[o++] = '%';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 15];
		}
	}
	if (outsz - o < 1)
		return OTP_ENOSPACE;
	out[o] = '\0';
	return (int)o;
}

/* Split the label s[0..n) at its first ':', or after a prefix equal to
 * issuer[0..ilen) when there is one: *plen gets the prefix length, *aoff
 * where the account starts (spaces after the colon skipped; 0 and 0 for
 * no colon). */
void
otp_label_split(const char *s, size_t n, const char *issuer, size_t ilen,
    size_t *plen, size_t *aoff)
{
	const char *colon = n > 0 ? memchr(s, ':', n) : NULL;
	size_t a;

	/* A known issuer is matched whole first, so that one holding ':'
	 * still splits right. */
	if (ilen > 0 && n > ilen && s[ilen] == ':' &&
	    memcmp(s, issuer, ilen) == 0)
		colon = s + ilen;
	if (colon == NULL) {
		*plen = 0;
		*aoff = 0;
		return;
	}
	*plen = (size_t)(colon - s);
	for (a = *plen + 1; a < n && s[a] == ' '; a++)
		;
	*aoff = a;
}

/* The label form that otp_label_split() reads back as issuer and account
 * (whole: the reader knows the issuer, so it may hold ':'); OTP_EURILABEL
 * when none does (an account with ':' that starts with ' '). */
int
otp_label_form(const char *issuer, const char *account, int whole)
{
	int colon = strchr(account, ':') != NULL;
	int space = account[0] == ' ';

	if (issuer[0] != '\0' && !space &&
	    (whole || strchr(issuer, ':') == NULL))
		return OTP_LABEL_ISSUER;
	if (!colon)
		return OTP_LABEL_PLAIN;
	if (space)
		return OTP_EURILABEL;
	return OTP_LABEL_COLON;
}

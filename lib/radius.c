/*
 * radius.c - what a RADIUS server's request needs before it reaches the
 * state-file engine: attribute values as an exec'd program receives them,
 * a user name checked before it names a file, and the reply lines.
 *
 * FreeRADIUS's rlm_exec hands each request attribute over as an
 * environment variable whose value is printed as a quoted string: the
 * quotes, and the backslash escapes that keep it one line, come off here.
 * The user name comes from the network: it names a file in the state
 * directory only when it is a plain login name, never a path.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "otp.h"
#include "otp_radius.h"

static int
name_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-' ||
	    c == '@';
}

int
otp_user_check(const char *name, size_t *erroff)
{
	size_t i, n = strlen(name);

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];

		/* "." and ".." and hidden files; "-x" reads as an option. */
		if (i == 0 && (c == '.' || c == '-'))
			break;
		if (i >= OTP_USERNAME_MAX)
			break;
		/* A Samba machine account ends in '$'. */
		if (c == '$' && i == n - 1 && i > 0)
			continue;
		if (!name_char(c))
			break;
	}
	if (n > 0 && i == n)
		return 0;
	if (erroff != NULL)
		*erroff = i;
	return OTP_EUSERNAME;
}

static int
octal(unsigned char c)
{
	return c >= '0' && c <= '7' ? c - '0' : -1;
}

int
otp_radius_value(const char *env, char *out, size_t outsz)
{
	size_t n = strlen(env), i, o = 0;
	int d0, d1, d2;
	char c;

	if (outsz == 0)
		return OTP_ENOSPACE;
	/* A bare value (an attribute of a type printed without quotes). */
	if (n == 0 || env[0] != '"') {
		if (n >= outsz)
			return OTP_ETOOLONG;
		memcpy(out, env, n + 1);
		return (int)n;
	}
	if (n < 2 || env[n - 1] != '"')
		goto bad;
	for (i = 1; i < n - 1; i++) {
		c = env[i];
		if (c == '"')
			goto bad;
		if (c == '\\') {
			if (++i >= n - 1)
				goto bad;
			switch (env[i]) {
			case '\\':
			case '"':
				c = env[i];
				break;
			case 'n':
				c = '\n';
				break;
			case 'r':
				c = '\r';
				break;
			case 't':
				c = '\t';
				break;
			default:
				/* \ooo: one byte in three octal digits. */
				if (i + 2 >= n - 1 ||
				    (d0 = octal((unsigned char)env[i])) < 0 ||
				    (d1 = octal((unsigned char)env[i + 1])) < 0 ||
				    (d2 = octal((unsigned char)env[i + 2])) < 0 ||
				    d0 > 3)
					goto bad;
				c = (char)(d0 << 6 | d1 << 3 | d2);
				i += 2;
				break;
			}
			if (c == '\0')
				goto bad;
		}
		if (o + 1 >= outsz) {
			otp_wipe(out, o);
			return OTP_ETOOLONG;
		}
		out[o++] = c;
	}
	out[o] = '\0';
	return (int)o;
bad:
	otp_wipe(out, o);
	out[0] = '\0';
	return OTP_ERADIUSVALUE;
}

int
otp_radius_pair(const char *attr, const char *text, char *out, size_t outsz)
{
	static const char tail[] = "\"\n";
	size_t o, k;
	const unsigned char *p;
	char esc[2];
	int n;

	n = snprintf(out, outsz, "%s := \"", attr);
	if (n < 0 || (size_t)n >= outsz)
		return OTP_ENOSPACE;
	o = (size_t)n;
	for (p = (const unsigned char *)text; *p != '\0'; p++) {
		k = 0;
		if (*p == '"' || *p == '\\') {
			esc[k++] = '\\';
			esc[k++] = (char)*p;
		} else if (*p < 0x20 || *p == 0x7f) {
			/* The reply is one line: a control character shows
			 * as '?' rather than end it. */
			esc[k++] = '?';
		} else
			esc[k++] = (char)*p;
		if (o + k >= outsz)
			return OTP_ENOSPACE;
		memcpy(out + o, esc, k);
		o += k;
	}
	if (o + sizeof(tail) > outsz)
		return OTP_ENOSPACE;
	memcpy(out + o, tail, sizeof(tail));
	return (int)(o + sizeof(tail) - 1);
}

/*
 * key.c - key input: the text of a key argument (an operand, one line of
 * standard input, one line of @FILE), and that text turned into key bytes
 * and parameters (a hex or Base32 key, or an otpauth:// URI).
 *
 * Key text is secret.  Files are read with read(2) into our own buffers,
 * never through a stdio buffer we could not wipe, and every scratch buffer
 * and, on error, the output is wiped before returning.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "otp.h"

#define URI_SCHEME		"otpauth://"
#define MIGRATION_SCHEME	"otpauth-migration:"

/* A source of bytes: a stdio stream, or a descriptor read in chunks
 * (a regular file) or a byte at a time (a FIFO or terminal, so that no
 * more than the first line is consumed). */
struct source {
	FILE		*fp;
	int		 fd;
	size_t		 chunk;
	size_t		 left;		/* bytes we may still read(2) */
	unsigned char	 buf[512];
	size_t		 pos, len;
};

#define SRC_ERROR	(-2)	/* read error, errno set */
#define SRC_LIMIT	(-3)	/* read budget spent: the line is too long */

/* The next byte, EOF at the end, or SRC_ERROR or SRC_LIMIT. */
static int
next_byte(struct source *s)
{
	ssize_t n;
	int c;

	if (s->fp != NULL) {
		c = getc(s->fp);
		if (c == EOF && ferror(s->fp)) {
			if (errno == 0)
				errno = EIO;
			return SRC_ERROR;
		}
		return c;
	}
	if (s->pos == s->len) {
		if (s->left == 0)
			return SRC_LIMIT;
		do
			n = read(s->fd, s->buf, s->chunk < s->left ?
			    s->chunk : s->left);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return SRC_ERROR;
		s->left -= (size_t)n;
		if (n == 0)
			return EOF;
		s->pos = 0;
		s->len = (size_t)n;
	}
	return s->buf[s->pos++];
}

/*
 * One line into out: outsz-1 characters at most, NUL-terminated, without
 * its "\n" or "\r\n".  A '\r' is held back until the next byte shows
 * whether it ends the line, so that a line of exactly outsz-1 characters
 * and "\r\n" still fits and a longer one is never cut short.
 */
static int
read_line(struct source *s, char *out, size_t outsz)
{
	size_t n = 0;
	int c, cr = 0, any = 0;

	for (;;) {
		c = next_byte(s);
		if (c == SRC_ERROR)
			return OTP_EIO;
		if (c == SRC_LIMIT)
			return OTP_ETOOLONG;
		if (c == EOF || c == '\n')
			break;
		any = 1;
		if (cr) {
			/* The held '\r' was data after all. */
			if (n + 1 >= outsz)
				return OTP_ETOOLONG;
			out[n++] = '\r';
			cr = 0;
		}
		if (c == '\r') {
			cr = 1;
			continue;
		}
		if (c == '\0')
			return OTP_ENUL;
		if (n + 1 >= outsz)
			return OTP_ETOOLONG;
		out[n++] = (char)c;
	}
	if (!any && c == EOF)
		return OTP_EEMPTY;
	/* Only "\r\n" loses its '\r'; a '\r' at the end of the input
	 * without a newline is data. */
	if (cr && c == EOF) {
		if (n + 1 >= outsz)
			return OTP_ETOOLONG;
		out[n++] = '\r';
	}
	out[n] = '\0';
	return 0;
}

static int
read_file(const char *path, char *out, size_t outsz)
{
	struct source s;
	struct stat st;
	int fd, rc, saved;

	do
		fd = open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	if (fd < 0)
		return OTP_EIO;
	if (fstat(fd, &st) != 0) {
		saved = errno;
		close(fd);
		errno = saved;
		return OTP_EIO;
	}
	/* A directory, socket or block device is never a key file. */
	if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) &&
	    !S_ISCHR(st.st_mode)) {
		close(fd);
		errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		return OTP_EIO;
	}
	memset(&s, 0, sizeof(s));
	s.fd = fd;
	s.chunk = S_ISREG(st.st_mode) ? sizeof(s.buf) : 1;
	/* outsz-1 characters and "\r\n" is the most a good line takes. */
	s.left = outsz < SIZE_MAX ? outsz + 1 : outsz;
	rc = read_line(&s, out, outsz);
	saved = errno;
	otp_wipe(s.buf, sizeof(s.buf));
	close(fd);
	errno = saved;
	return rc;
}

int
otp_key_read(const char *arg, FILE *in, char *out, size_t outsz)
{
	struct source s;
	size_t n;
	int rc;

	if (out == NULL || outsz == 0)
		return OTP_EINVAL;
	out[0] = '\0';
	if (arg == NULL || strcmp(arg, "-") == 0) {
		if (in == NULL)
			return OTP_EINVAL;
		memset(&s, 0, sizeof(s));
		s.fp = in;
		errno = 0;
		rc = read_line(&s, out, outsz);
	} else if (arg[0] == '@')
		rc = read_file(arg + 1, out, outsz);
	else {
		/* An operand: copied, with a trailing newline dropped as
		 * for the other sources ("$(cat key)" style slips). */
		n = strnlen(arg, outsz);
		if (n >= outsz)
			rc = OTP_ETOOLONG;
		else {
			memcpy(out, arg, n + 1);
			if (n > 0 && out[n - 1] == '\n') {
				out[--n] = '\0';
				if (n > 0 && out[n - 1] == '\r')
					out[--n] = '\0';
			}
			rc = 0;
		}
	}
	if (rc != 0) {
		int saved = errno;

		otp_wipe(out, outsz);
		errno = saved;
	}
	return rc;
}

int
otp_key_parse(const char *text, enum otp_keyenc enc, struct otp_uri *u,
    size_t *erroff)
{
	size_t len, n = 0, off = 0;
	int rc;

	if (erroff != NULL)
		*erroff = 0;
	if (u == NULL)
		return OTP_EINVAL;
	otp_uri_init(u);
	if (text == NULL)
		return OTP_EINVAL;
	/* A Google Authenticator export is a different format: say so
	 * rather than fail on its first character as a key. */
	if (strncasecmp(text, MIGRATION_SCHEME, strlen(MIGRATION_SCHEME)) == 0)
		return OTP_EURI;
	if (strncasecmp(text, URI_SCHEME, strlen(URI_SCHEME)) == 0) {
		rc = otp_uri_parse(text, u, &off);
		if (rc == 0 && (u->key.len == 0 || u->key.len > OTP_KEY_MAX))
			rc = u->key.len == 0 ? OTP_EKEYEMPTY : OTP_EKEYLONG;
		goto done;
	}
	len = strlen(text);
	switch (enc) {
	case OTP_KEYENC_HEX:
		rc = otp_hex_decode(text, len, u->key.buf, sizeof(u->key.buf),
		    &n, &off);
		break;
	case OTP_KEYENC_BASE32:
		rc = otp_b32_decode(text, len, u->key.buf, sizeof(u->key.buf),
		    &n, 0, &off);
		break;
	default:
		return OTP_EINVAL;
	}
	if (rc == OTP_ENOSPACE || (rc == 0 && n > OTP_KEY_MAX)) {
		rc = OTP_EKEYLONG;
		off = 0;
	} else if (rc == 0 && n == 0)
		rc = OTP_EKEYEMPTY;
	if (rc == 0) {
		u->key.len = n;
		u->is_uri = 0;
	}
done:
	if (rc != 0) {
		otp_wipe(&u->key, sizeof(u->key));
		if (erroff != NULL)
			*erroff = off;
	}
	return rc;
}

/*
 * input.c - key and line input: an operand, one line of a descriptor
 * (standard input for "-"), one line of @FILE, and every line of a stream.
 *
 * Key text is secret.  Everything is read with read(2) into our own
 * buffers, never through stdio's buffer on the heap, which nobody wipes;
 * every scratch buffer and, on error, the output are wiped.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "otp.h"
#include "sys.h"

/* A source of bytes: a descriptor read in chunks (a regular file, which
 * is then sought back to the end of the line) or a byte at a time (a
 * pipe, FIFO or terminal, so that no more than the line is consumed). */
struct source {
	int		 fd;
	size_t		 chunk;
	size_t		 left;		/* bytes we may still read(2) */
	unsigned char	 buf[512];
	size_t		 pos, len;
};

#define SRC_ERROR	(-2)	/* read error, errno set */
#define SRC_LIMIT	(-3)	/* read budget spent: the line is too long */

/* The next byte, -1 at the end, or SRC_ERROR or SRC_LIMIT. */
static int
next_byte(struct source *s)
{
	ssize_t n;

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
			return -1;
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
		if (c == -1 || c == '\n')
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
	if (!any && c == -1)
		return OTP_EEMPTY;
	/* Only "\r\n" loses its '\r'; a '\r' at the end of the input
	 * without a newline is data. */
	if (cr && c == -1) {
		if (n + 1 >= outsz)
			return OTP_ETOOLONG;
		out[n++] = '\r';
	}
	out[n] = '\0';
	return 0;
}

/* One line of fd, consuming no more than it (see struct source). */
static int
fd_line(int fd, char *out, size_t outsz)
{
	struct source s;
	struct stat st;
	int rc, saved;

	if (fstat(fd, &st) != 0)
		return OTP_EIO;
	/* A directory, socket or block device is never a key file. */
	if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) &&
	    !S_ISCHR(st.st_mode)) {
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
	/* Give back what was read past the line. */
	if (s.len > s.pos)
		(void)lseek(fd, -(off_t)(s.len - s.pos), SEEK_CUR);
	otp_wipe(s.buf, sizeof(s.buf));
	errno = saved;
	return rc;
}

static int
file_line(const char *path, char *out, size_t outsz)
{
	int fd, rc, saved;

	do
		fd = open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	if (fd < 0)
		return OTP_EIO;
	rc = fd_line(fd, out, outsz);
	saved = errno;
	(void)close(fd);
	errno = saved;
	return rc;
}

/* "@~/FILE": the home directory of the environment, as a shell would. */
static int
expand_home(const char *path, char *out, size_t outsz)
{
	const char *home = getenv("HOME");
	size_t h, n = strlen(path);

	if (strncmp(path, "~/", 2) != 0 || home == NULL || *home == '\0') {
		if (n >= outsz)
			return OTP_ETOOLONG;
		memcpy(out, path, n + 1);
		return 0;
	}
	h = strlen(home);
	if (h + n >= outsz)
		return OTP_ETOOLONG;
	memcpy(out, home, h);
	memcpy(out + h, path + 1, n - 1);	/* "/FILE" */
	out[h + n - 1] = '\0';
	return 0;
}

int
sys_key_read(const char *arg, int fd, char *out, size_t outsz)
{
	char path[4096];
	size_t n;
	int rc;

	if (out == NULL || outsz == 0)
		return OTP_EINVAL;
	out[0] = '\0';
	if (arg == NULL || strcmp(arg, "-") == 0) {
		if (fd < 0)
			return OTP_EINVAL;
		errno = 0;
		rc = fd_line(fd, out, outsz);
	} else if (arg[0] == '@') {
		if ((rc = expand_home(arg + 1, path, sizeof(path))) == 0)
			rc = file_line(path, out, outsz);
	} else {
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

void
sys_lines_init(struct sys_lines *l, int fd)
{
	memset(l, 0, sizeof(*l));
	l->fd = fd;
}

/* After a bad line: drop the rest of it before the next line is read
 * (not at once: an endless bad line, /dev/zero, must not hang a tool that
 * stops at the error). */
static int
skip_line(struct sys_lines *l)
{
	ssize_t r;

	for (;;) {
		while (l->pos < l->len)
			if (l->buf[l->pos++] == '\n')
				return 0;
		if (l->eof)
			return 0;
		do
			r = read(l->fd, l->buf, sizeof(l->buf));
		while (r < 0 && errno == EINTR);
		if (r <= 0) {
			l->eof = 1;
			return r < 0 ? OTP_EIO : 0;
		}
		l->pos = 0;
		l->len = (size_t)r;
	}
}

int
sys_lines_next(struct sys_lines *l, char *out, size_t outsz)
{
	size_t n = 0;
	ssize_t r;
	int cr = 0, rc;

	if (outsz == 0)
		return OTP_EINVAL;
	if (l->bad) {
		l->bad = 0;
		if (skip_line(l) != 0)
			goto fail;
	}
	for (;;) {
		if (l->pos == l->len) {
			if (l->eof)
				break;
			do
				r = read(l->fd, l->buf, sizeof(l->buf));
			while (r < 0 && errno == EINTR);
			if (r < 0)
				goto fail;
			if (r == 0) {
				l->eof = 1;
				break;
			}
			l->pos = 0;
			l->len = (size_t)r;
		}
		if (l->buf[l->pos] == '\n') {
			l->pos++;
			goto line;
		}
		if (l->buf[l->pos] == '\0' || n + 1 >= outsz) {
			rc = l->buf[l->pos] == '\0' ? OTP_ENUL : OTP_ETOOLONG;
			otp_wipe(out, outsz);
			l->bad = 1;
			return rc;
		}
		out[n++] = (char)l->buf[l->pos++];
	}
	if (n == 0)
		return OTP_EEMPTY;
line:
	/* "\r\n" ends a line as "\n" does. */
	cr = n > 0 && out[n - 1] == '\r';
	out[n - (size_t)cr] = '\0';
	return 0;
fail:
	otp_wipe(out, outsz);
	return OTP_EIO;
}

void
sys_lines_wipe(struct sys_lines *l)
{
	otp_wipe(l->buf, sizeof(l->buf));
	l->pos = l->len = 0;
}

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

/* A source of bytes (struct sys_lines): a descriptor read in chunks (a
 * regular file, sought back to the end of the line by fd_line, or a
 * stream read to its end) or a byte at a time (a pipe, FIFO or terminal
 * read for one line, so that no more than the line is consumed). */

#define SRC_ERROR	(-2)	/* read error, errno set */
#define SRC_LIMIT	(-3)	/* read budget spent: the line is too long */

/* The next byte, -1 at the end, or SRC_ERROR or SRC_LIMIT.  The end is
 * remembered: a terminal is not read again after its Ctrl-D. */
static int
next_byte(struct sys_lines *s)
{
	ssize_t n;

	if (s->pos == s->len) {
		if (s->eof)
			return -1;
		if (s->left == 0)
			return SRC_LIMIT;
		do
			n = read(s->fd, s->buf, s->chunk < s->left ?
			    s->chunk : s->left);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return SRC_ERROR;
		s->left -= (size_t)n;
		if (n == 0) {
			s->eof = 1;
			return -1;
		}
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
read_line(struct sys_lines *s, char *out, size_t outsz)
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

/* One line of fd, consuming no more than it (see next_byte). */
static int
fd_line(int fd, char *out, size_t outsz)
{
	struct sys_lines s;
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
	l->chunk = sizeof(l->buf);
	l->left = SIZE_MAX;
}

int
sys_lines_next(struct sys_lines *l, char *out, size_t outsz)
{
	int c, rc;

	if (outsz == 0)
		return OTP_EINVAL;
	/* After a bad line, the rest of it goes first (not at once: an
	 * endless bad line, /dev/zero, must not hang a tool that stops at
	 * the error). */
	if (l->bad) {
		l->bad = 0;
		while ((c = next_byte(l)) >= 0 && c != '\n')
			;
		if (c == SRC_ERROR) {
			otp_wipe(out, outsz);
			return OTP_EIO;
		}
	}
	rc = read_line(l, out, outsz);
	if (rc == OTP_ETOOLONG || rc == OTP_ENUL)
		l->bad = 1;
	if (rc != 0 && rc != OTP_EEMPTY) {
		int saved = errno;

		otp_wipe(out, outsz);
		errno = saved;
	}
	return rc;
}

void
sys_lines_wipe(struct sys_lines *l)
{
	otp_wipe(l->buf, sizeof(l->buf));
	l->pos = l->len = 0;
}

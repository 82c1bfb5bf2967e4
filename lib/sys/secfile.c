/*
 * secfile.c - opening and reading the secret files every engine keeps (the
 * state file, the users file, ~/.otpw): never through a symlink, never
 * blocking on a FIFO, vetted by the caller's rules before a byte is read,
 * and locked on the file the name is now, since an update replaces the
 * file by rename while another run waits for its lock.
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <unistd.h>

#include "sys.h"

#define RETRIES		20	/* replaced while we waited: again */

int
sys_close_keep(int fd, int rc)
{
	int e = errno;

	(void)close(fd);
	errno = e;
	return rc;
}

int
sys_open_vetted(int dirfd, const char *name, sys_vet_fn *vet,
    const void *arg, int lock, int linkerr, int *fdp, struct stat *st)
{
	struct stat now;
	int fd, r, i;

	for (i = 0; i < RETRIES; i++) {
		fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
		    O_CLOEXEC | O_NOCTTY);
		if (fd < 0)
			return errno == ELOOP ? linkerr : OTP_EIO;
		if (fstat(fd, st) < 0)
			return sys_close_keep(fd, OTP_EIO);
		if ((r = vet(st, arg)) < 0)
			return sys_close_keep(fd, r);
		if (!lock) {
			*fdp = fd;
			return 0;
		}
		while (flock(fd, LOCK_EX) < 0)
			if (errno != EINTR)
				return sys_close_keep(fd, OTP_ELOCK);
		if (fstatat(dirfd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
		    now.st_dev == st->st_dev && now.st_ino == st->st_ino) {
			/* Ours; look again now that nobody of ours writes. */
			if (fstat(fd, st) < 0)
				return sys_close_keep(fd, OTP_EIO);
			if ((r = vet(st, arg)) < 0)
				return sys_close_keep(fd, r);
			*fdp = fd;
			return 0;
		}
		(void)close(fd);	/* replaced while we waited */
	}
	return OTP_ESTATECHANGED;
}

int
sys_read_exact(int fd, char *buf, size_t size)
{
	size_t got = 0;
	ssize_t n;
	char extra;

	while (got < size) {
		n = read(fd, buf + got, size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return OTP_EIO;
		if (n == 0)
			return OTP_ESTATECHANGED;
		got += (size_t)n;
	}
	do
		n = read(fd, &extra, 1);
	while (n < 0 && errno == EINTR);
	if (n != 0)
		return n < 0 ? OTP_EIO : OTP_ESTATECHANGED;
	return 0;
}

/* "cloudsdk (uid 1000)", or "uid 1000" for a uid with no name. */
static void
uid_text(unsigned long uid, char *out, size_t size)
{
	struct passwd pw, *res = NULL;
	char buf[1024];

	if (getpwuid_r((uid_t)uid, &pw, buf, sizeof(buf), &res) == 0 &&
	    res != NULL)
		(void)snprintf(out, size, "%s (uid %lu)", res->pw_name, uid);
	else
		(void)snprintf(out, size, "uid %lu", uid);
}

int
sys_owner_text(const char *path, unsigned long want, char *out, size_t size)
{
	char found[300], wanted[300];
	struct stat st;

	if (size > 0)
		out[0] = '\0';
	if (lstat(path, &st) != 0)
		return OTP_EIO;
	uid_text((unsigned long)st.st_uid, found, sizeof(found));
	uid_text(want, wanted, sizeof(wanted));
	if (snprintf(out, size, "owned by %s, not %s", found, wanted) >=
	    (int)size)
		return OTP_ENOSPACE;
	return 0;
}

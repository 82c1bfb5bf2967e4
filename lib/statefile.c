/*
 * statefile.c - the file layer over the state engine: open without
 * following symlinks, check type, owner, mode and size, lock against our
 * own concurrent runs, and replace the file atomically (temporary file in
 * the same directory, fsync, rename, directory fsync) after checking that
 * nobody else (pam_google_authenticator.so takes no lock) changed it.
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "otp.h"

#define RETRIES		20	/* replaced or changed underneath: again */
#define TMP_SUFFIX	"~XXXXXX"

/* The file as we read it, for the re-check before rename. */
struct seen {
	dev_t		dev;
	ino_t		ino;
	off_t		size;
	struct timespec	mtime;
};

static void
seen_set(struct seen *s, const struct stat *st)
{
	s->dev = st->st_dev;
	s->ino = st->st_ino;
	s->size = st->st_size;
	s->mtime = st->st_mtim;
}

static int
seen_same(const struct seen *s, const struct stat *st)
{
	return s->dev == st->st_dev && s->ino == st->st_ino &&
	    s->size == st->st_size && s->mtime.tv_sec == st->st_mtim.tv_sec &&
	    s->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

/* The checks the module makes, in its order. */
static int
check_stat(const struct stat *st, const struct otp_state_opts *o)
{
	if (!S_ISREG(st->st_mode))
		return OTP_ESTATETYPE;
	if ((st->st_mode & 03777 & ~(mode_t)o->allowed_perm) != 0)
		return OTP_ESTATEMODE;
	if (!(o->flags & OTP_STATE_NOSTRICTOWNER) &&
	    (unsigned long)st->st_uid != o->uid)
		return OTP_ESTATEOWNER;
	if (st->st_size < 1 || st->st_size > OTP_STATE_MAX)
		return OTP_ESTATESIZE;
	return 0;
}

/* Open path for reading, never through a symlink and never blocking on a
 * FIFO; lock it when lock is set, making sure the lock is on the file the
 * path names now (an update replaces the file by rename).  *fdp and *st
 * describe the locked file. */
static int
open_state(const char *path, const struct otp_state_opts *o, int lock,
    int *fdp, struct stat *st)
{
	struct stat now;
	int fd, r, i, e;

	for (i = 0; i < RETRIES; i++) {
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
		    O_NOCTTY);
		if (fd < 0) {
			if (errno == ELOOP)
				return OTP_ESTATETYPE;
			return OTP_EIO;
		}
		if (fstat(fd, st) < 0)
			goto eio;
		if ((r = check_stat(st, o)) < 0) {
			close(fd);
			return r;
		}
		if (!lock) {
			*fdp = fd;
			return 0;
		}
		while (flock(fd, LOCK_EX) < 0) {
			if (errno != EINTR) {
				close(fd);
				return OTP_ELOCK;
			}
		}
		if (fstatat(AT_FDCWD, path, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
		    now.st_dev == st->st_dev && now.st_ino == st->st_ino) {
			/* Ours; look again now that nobody of ours writes. */
			if (fstat(fd, st) < 0)
				goto eio;
			if ((r = check_stat(st, o)) < 0) {
				close(fd);
				return r;
			}
			*fdp = fd;
			return 0;
		}
		close(fd);	/* replaced while we waited: again */
	}
	return OTP_ESTATECHANGED;
eio:
	e = errno;
	close(fd);
	errno = e;
	return OTP_EIO;
}

/* Read exactly st_size bytes; a file that grew or shrank meanwhile is
 * OTP_ESTATECHANGED.  NUL bytes are the engine's to refuse. */
static int
read_all(int fd, char *buf, size_t size)
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

static int
write_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len > 0) {
		n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The directory part of path, for the temporary file's fsync. */
static int
dir_of(const char *path, char *dir, size_t dirsz)
{
	const char *slash = strrchr(path, '/');
	size_t n;

	if (slash == NULL) {
		if (dirsz < 2)
			return OTP_ETOOLONG;
		memcpy(dir, ".", 2);
		return 0;
	}
	n = slash == path ? 1 : (size_t)(slash - path);
	if (n >= dirsz)
		return OTP_ETOOLONG;
	memcpy(dir, path, n);
	dir[n] = '\0';
	return 0;
}

static void
fsync_dir(const char *path)
{
	char dir[PATH_MAX];
	int fd;

	if (dir_of(path, dir, sizeof(dir)) < 0)
		return;
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return;
	(void)fsync(fd);
	close(fd);
}

/* Write len bytes of img to a new file in path's directory, mode 0400,
 * fsynced.  Preferably an unnamed one (O_TMPFILE): a run killed before
 * link_temp then leaves nothing behind.  Else path~XXXXXX (mkstemp), as
 * the module does; tmp gets its name ("" for an unnamed file).  On
 * failure nothing is left behind. */
static int
write_temp(const char *path, const char *img, size_t len, char *tmp,
    size_t tmpsz, int *fdp)
{
	char dir[PATH_MAX];
	size_t plen = strlen(path);
	mode_t old;
	int fd, e;

	if (plen + sizeof(TMP_SUFFIX) > tmpsz)
		return OTP_ETOOLONG;
	tmp[0] = '\0';
	fd = -1;
	if (dir_of(path, dir, sizeof(dir)) == 0)
		fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0400);
	if (fd < 0) {
		memcpy(tmp, path, plen);
		memcpy(tmp + plen, TMP_SUFFIX, sizeof(TMP_SUFFIX));
		old = umask(077);
		fd = mkostemp(tmp, O_CLOEXEC);
		umask(old);
		if (fd < 0) {
			tmp[0] = '\0';
			return OTP_EIO;
		}
	}
	if (fchmod(fd, 0400) < 0 || write_all(fd, img, len) < 0 ||
	    fsync(fd) < 0) {
		e = errno;
		close(fd);
		if (tmp[0] != '\0')
			unlink(tmp);
		tmp[0] = '\0';
		errno = e;
		return OTP_EIO;
	}
	*fdp = fd;
	return 0;
}

/* Give an unnamed temporary file the name tmp (path~XXXXXX, random), or
 * link it to path itself when tmp is NULL (fails if path exists). */
static int
link_temp(int fd, const char *path, char *tmp, size_t tmpsz)
{
	static const char chars[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	char proc[64];
	unsigned char rnd[6];
	size_t plen = strlen(path), i;
	int try;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (tmp == NULL)
		return linkat(AT_FDCWD, proc, AT_FDCWD, path,
		    AT_SYMLINK_FOLLOW) == 0 ? 0 : -1;
	if (plen + sizeof(TMP_SUFFIX) > tmpsz)
		return -1;
	for (try = 0; try < 100; try++) {
		if (getentropy(rnd, sizeof(rnd)) < 0)
			return -1;
		memcpy(tmp, path, plen);
		tmp[plen] = '~';
		for (i = 0; i < sizeof(rnd); i++)
			tmp[plen + 1 + i] = chars[rnd[i] % (sizeof(chars) - 1)];
		tmp[plen + 1 + sizeof(rnd)] = '\0';
		if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp,
		    AT_SYMLINK_FOLLOW) == 0)
			return 0;
		if (errno != EEXIST)
			break;
	}
	tmp[0] = '\0';
	return -1;
}

/* rename the temporary file over path; nothing left behind on failure. */
static int
publish(int fd, const char *path, char *tmp, size_t tmpsz)
{
	int e;

	if (tmp[0] == '\0' && link_temp(fd, path, tmp, tmpsz) < 0)
		return -1;
	if (rename(tmp, path) < 0) {
		e = errno;
		unlink(tmp);
		errno = e;
		return -1;
	}
	return 0;
}

static void
discard(int fd, char *tmp)
{
	int e = errno;

	if (tmp[0] != '\0')
		unlink(tmp);
	tmp[0] = '\0';
	close(fd);
	errno = e;
}

/* One locked read-check-write pass.  OTP_ESTATECHANGED asks for another. */
static int
check_once(const char *path, const char *code, int64_t now,
    const struct otp_state_opts *o, struct otp_state_result *r, char *in,
    size_t *inlen, char *out, size_t *outlen)
{
	char tmp[PATH_MAX];
	struct stat st, again;
	struct seen seen;
	int fd = -1, tfd = -1, ret, e;

	if ((ret = open_state(path, o, 1, &fd, &st)) < 0)
		return ret;
	*inlen = (size_t)st.st_size;
	seen_set(&seen, &st);
	if ((ret = read_all(fd, in, (size_t)st.st_size)) < 0)
		goto out;
	ret = otp_state_check(in, (size_t)st.st_size, code, now, o, r, out,
	    OTP_STATE_OUTMAX, outlen);
	if (ret < 0 || !r->changed)
		goto out;
	if (write_temp(path, out, *outlen, tmp, sizeof(tmp), &tfd) < 0)
		goto unrecorded;	/* which sets ret */
	/* The module takes no lock: make sure it did not write meanwhile. */
	if (fstatat(AT_FDCWD, path, &again, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !seen_same(&seen, &again)) {
		discard(tfd, tmp);
		ret = OTP_ESTATECHANGED;
		goto out;
	}
	if (publish(tfd, path, tmp, sizeof(tmp)) < 0) {
		discard(tfd, tmp);
		goto unrecorded;
	}
	close(tfd);
	fsync_dir(path);
	r->recorded = 1;
	ret = 0;
	goto out;
unrecorded:
	/* Read-only directory, full disk...: an accept we cannot record
	 * could be replayed, so it is refused unless allow_readonly. */
	if (o->flags & OTP_STATE_ALLOWRO)
		ret = 0;
	else {
		e = errno;
		memset(r, 0, sizeof(*r));
		errno = e;
		ret = OTP_EREADONLY;
	}
out:
	e = errno;
	close(fd);	/* drops the lock */
	errno = e;
	return ret;
}

int
otp_statefile_check(const char *path, const char *code, int64_t now,
    const struct otp_state_opts *o, struct otp_state_result *r)
{
	char in[OTP_STATE_MAX], out[OTP_STATE_OUTMAX];
	size_t inlen, outlen;
	int ret = OTP_ESTATECHANGED, i;

	/* Only what a pass used is wiped: the whole 192 KiB would cost a
	 * page fault per 4 KiB, more than the check itself. */
	memset(r, 0, sizeof(*r));
	for (i = 0; i < RETRIES && ret == OTP_ESTATECHANGED; i++) {
		memset(r, 0, sizeof(*r));
		inlen = outlen = 0;
		ret = check_once(path, code, now, o, r, in, &inlen, out,
		    &outlen);
		otp_wipe(in, inlen);
		otp_wipe(out, outlen);
	}
	if (ret < 0)
		memset(r, 0, sizeof(*r));
	return ret;
}

int
otp_statefile_load(const char *path, const struct otp_state_opts *o,
    struct otp_state *st)
{
	char in[OTP_STATE_MAX];
	struct stat sb;
	int fd, ret, i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < RETRIES; i++) {
		if ((ret = open_state(path, o, 0, &fd, &sb)) < 0)
			return ret;
		ret = read_all(fd, in, (size_t)sb.st_size);
		close(fd);
		if (ret == 0)
			ret = otp_state_parse(in, (size_t)sb.st_size, st);
		otp_wipe(in, (size_t)sb.st_size);
		if (ret != OTP_ESTATECHANGED)
			return ret;
	}
	return ret;
}

int
otp_statefile_create(const char *path, const char *img, size_t len,
    int force)
{
	char tmp[PATH_MAX];
	struct stat st;
	int r, e, fd = -1;

	if (len < 1 || len > OTP_STATE_MAX)
		return OTP_ESTATESIZE;
	if (fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (!force)
			return OTP_ESTATEEXIST;
		if (S_ISDIR(st.st_mode))
			return OTP_ESTATETYPE;
	} else if (errno != ENOENT)
		return OTP_EIO;
	if ((r = write_temp(path, img, len, tmp, sizeof(tmp), &fd)) < 0)
		return r;
	if (force) {
		/* rename replaces a symlink itself, never its target. */
		if (publish(fd, path, tmp, sizeof(tmp)) < 0)
			goto fail;
	} else if (tmp[0] == '\0') {
		/* Unnamed: link it to path, which fails if path appeared
		 * meanwhile: never clobber. */
		if (link_temp(fd, path, NULL, 0) < 0)
			goto fail;
	} else {
		if (link(tmp, path) < 0)
			goto fail;
		unlink(tmp);
	}
	close(fd);
	fsync_dir(path);
	return 0;
fail:
	e = errno;
	discard(fd, tmp);
	return e == EEXIST ? OTP_ESTATEEXIST : (errno = e, OTP_EIO);
}

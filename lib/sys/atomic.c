/*
 * atomic.c - the one way otp-utils writes a file.  A new file is staged
 * in the target's directory (unnamed where the file system allows it),
 * written and fsynced, then put in place by one rename (replace) or one
 * link (never clobber), and the directory is fsynced: a crash leaves the
 * old file or the new one, never a part of either.
 *
 * Everything is relative to a directory descriptor opened once, so a
 * directory swapped in the path meanwhile changes nothing.  The umask is
 * never touched (threaded hosts): modes are set with fchmod.  A staged
 * file carries a flock for as long as it is in flight; a named one left
 * by a killed run (NAME~otp-XXXXXX, a copy of a secret) has none, and the
 * next commit in that directory removes it.
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "otp.h"
#include "sys.h"

#define TMP_TAG		"~otp-"		/* NAME~otp-XXXXXX */
#define TMP_RAND	6

static int
keep_errno(int rc, int e)
{
	errno = e;
	return rc;
}

int
sys_dir_open(const char *path, int *dirfd, char *name, size_t namesz)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/'), *base;
	size_t n;

	*dirfd = -1;
	base = slash == NULL ? path : slash + 1;
	n = strlen(base);
	if (n == 0 || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return keep_errno(OTP_EIO, EISDIR);
	if (n + sizeof(TMP_TAG) + TMP_RAND > NAME_MAX || n >= namesz)
		return keep_errno(OTP_EIO, ENAMETOOLONG);
	if (slash == NULL)
		memcpy(dir, ".", 2);
	else {
		n = slash == path ? 1 : (size_t)(slash - path);
		if (n >= sizeof(dir))
			return keep_errno(OTP_EIO, ENAMETOOLONG);
		memcpy(dir, path, n);
		dir[n] = '\0';
	}
	memcpy(name, base, strlen(base) + 1);
	do
		*dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	while (*dirfd < 0 && errno == EINTR);
	return *dirfd < 0 ? OTP_EIO : 0;
}

static void
tmp_name(char *out, size_t outsz, const char *name)
{
	static const char chars[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char rnd[TMP_RAND];
	size_t i, n;

	n = (size_t)snprintf(out, outsz, "%s" TMP_TAG, name);
	if (sys_random_bytes(rnd, sizeof(rnd)) != 0)
		memset(rnd, 0, sizeof(rnd));	/* O_EXCL still guards */
	for (i = 0; i < TMP_RAND && n + i + 1 < outsz; i++)
		out[n + i] = chars[rnd[i] % (sizeof(chars) - 1)];
	out[n + i] = '\0';
}

/* A new file under a fresh name NAME~otp-XXXXXX in f's directory. */
static int
create_named(struct sys_file *f)
{
	int fd, try;

	for (try = 0; try < 100; try++) {
		tmp_name(f->tmp, sizeof(f->tmp), f->name);
		fd = openat(f->dirfd, f->tmp, O_WRONLY | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_CLOEXEC, f->mode);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST && errno != EINTR)
			break;
	}
	f->tmp[0] = '\0';
	return -1;
}

int
sys_stage(struct sys_file *f, int dirfd, const char *name, unsigned mode)
{
	int e;

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->dirfd = dirfd;
	f->mode = mode & 07777;
	if (strlen(name) >= sizeof(f->name))
		return keep_errno(OTP_EIO, ENAMETOOLONG);
	memcpy(f->name, name, strlen(name) + 1);
	/* Unnamed first: a run killed before it is named leaves nothing. */
	f->fd = openat(dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC,
	    f->mode);
	if (f->fd < 0)
		f->fd = create_named(f);
	if (f->fd < 0)
		return OTP_EIO;
	/* Exact mode whatever the umask; the lock says "in flight". */
	if (fchmod(f->fd, f->mode) != 0 || flock(f->fd, LOCK_EX) != 0) {
		e = errno;
		sys_discard(f);
		return keep_errno(OTP_EIO, e);
	}
	return 0;
}

int
sys_stage_owner(struct sys_file *f, unsigned long uid, unsigned long gid)
{
	struct stat st;

	if (fstat(f->fd, &st) != 0)
		return OTP_EIO;
	if ((unsigned long)st.st_uid == uid && (unsigned long)st.st_gid == gid)
		return 0;
	if ((unsigned long)st.st_uid == uid) {
		/* The owner is right; a group we are not in is kept where
		 * we may, and does not stop the write (the mode gives it
		 * nothing). */
		int given = fchown(f->fd, (uid_t)-1, (gid_t)gid);

		(void)given;
		return 0;
	}
	/* Another owner (root updating a user's file): keep it, or fail
	 * rather than leave the user a file that is no longer theirs. */
	if (fchown(f->fd, (uid_t)uid, (gid_t)gid) != 0 ||
	    fchmod(f->fd, f->mode) != 0)
		return OTP_EIO;
	return 0;
}

int
sys_stage_write(struct sys_file *f, const void *buf, size_t n)
{
	const char *p = buf;
	ssize_t w;

	f->synced = 0;
	while (n > 0) {
		w = write(f->fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = EIO;
			return OTP_EIO;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Copy the unnamed file into a named one, for systems without /proc
 * (chroots, minimal containers), where it cannot be linked. */
static int
copy_to_named(struct sys_file *f)
{
	char buf[4096];
	ssize_t n;
	off_t off = 0;
	int src = f->fd, e, rc = 0;

	if ((f->fd = create_named(f)) < 0) {
		f->fd = src;
		return OTP_EIO;
	}
	if (fchmod(f->fd, f->mode) != 0 || flock(f->fd, LOCK_EX) != 0)
		rc = OTP_EIO;
	while (rc == 0 && (n = pread(src, buf, sizeof(buf), off)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || sys_stage_write(f, buf, (size_t)n) != 0)
			rc = OTP_EIO;
		else
			off += n;
	}
	otp_wipe(buf, sizeof(buf));
	e = errno;
	(void)close(src);
	if (rc == 0 && fsync(f->fd) != 0) {
		e = errno;
		rc = OTP_EIO;
	}
	return keep_errno(rc, e);
}

/* Give the unnamed file its temporary name. */
static int
name_unnamed(struct sys_file *f)
{
	char proc[64];
	int try;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", f->fd);
	for (try = 0; try < 100; try++) {
		tmp_name(f->tmp, sizeof(f->tmp), f->name);
		if (linkat(AT_FDCWD, proc, f->dirfd, f->tmp,
		    AT_SYMLINK_FOLLOW) == 0)
			return 0;
		if (errno == EEXIST)
			continue;
		f->tmp[0] = '\0';
		if (errno == ENOENT || errno == ENOTDIR || errno == EACCES)
			return copy_to_named(f);
		return OTP_EIO;
	}
	f->tmp[0] = '\0';
	return keep_errno(OTP_EIO, EEXIST);
}

/* Is the directory entry ent a leftover of ours for name: no run holds
 * its lock?  Then remove it. */
static void
sweep_one(int dirfd, const char *ent)
{
	struct stat a, b;
	int fd;

	fd = openat(dirfd, ent, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return;
	if (fstat(fd, &a) == 0 && S_ISREG(a.st_mode) &&
	    flock(fd, LOCK_EX | LOCK_NB) == 0 &&
	    fstatat(dirfd, ent, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		(void)unlinkat(dirfd, ent, 0);
	(void)close(fd);
}

int
sys_dir_each(int dirfd, int (*fn)(const void *arg, int dirfd,
    const char *ent), const void *arg)
{
	struct dirent *de;
	DIR *d;
	int fd, r = 0;

	if ((fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return 0;
	if ((d = fdopendir(fd)) == NULL) {
		(void)close(fd);
		return 0;
	}
	while (r == 0 && (de = readdir(d)) != NULL)
		r = fn(arg, dirfd, de->d_name);
	(void)closedir(d);
	return r;
}

/* sys_sweep's test of one entry: NAME~otp-XXXXXX for arg's NAME. */
static int
sweep_entry(const void *arg, int dirfd, const char *ent)
{
	const char *name = arg;
	size_t n = strlen(name), tag = strlen(TMP_TAG);

	if (strncmp(ent, name, n) == 0 && strncmp(ent + n, TMP_TAG, tag) == 0 &&
	    strlen(ent + n + tag) == TMP_RAND)
		sweep_one(dirfd, ent);
	return 0;
}

void
sys_sweep(int dirfd, const char *name)
{
	(void)sys_dir_each(dirfd, sweep_entry, name);
}

int
sys_stage_sync(struct sys_file *f)
{
	if (fsync(f->fd) != 0)
		return OTP_EIO;
	f->synced = 1;
	return 0;
}

int
sys_commit(struct sys_file *f, int replace)
{
	char proc[64];
	int rc, e;

	if (!f->synced && fsync(f->fd) != 0)
		goto fail;
	sys_sweep(f->dirfd, f->name);
	if (f->tmp[0] == '\0' && !replace) {
		/* Linked straight to its name: fails if the name exists. */
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", f->fd);
		if (linkat(AT_FDCWD, proc, f->dirfd, f->name,
		    AT_SYMLINK_FOLLOW) == 0)
			goto placed;
		if (errno == EEXIST)
			goto fail;
	}
	if (f->tmp[0] == '\0' && name_unnamed(f) != 0)
		goto fail;
	if (replace)
		rc = renameat(f->dirfd, f->tmp, f->dirfd, f->name);
	else if ((rc = linkat(f->dirfd, f->tmp, f->dirfd, f->name, 0)) == 0)
		(void)unlinkat(f->dirfd, f->tmp, 0);
	if (rc != 0)
		goto fail;
	f->tmp[0] = '\0';
placed:
	(void)close(f->fd);
	f->fd = -1;
	/* The new file is in place whatever this says: an error here must
	 * not turn a recorded update into a refusal. */
	(void)fsync(f->dirfd);
	return 0;
fail:
	e = errno;
	sys_discard(f);
	return keep_errno(e == EEXIST ? OTP_ESTATEEXIST : OTP_EIO, e);
}

void
sys_discard(struct sys_file *f)
{
	int e = errno;

	if (f->tmp[0] != '\0')
		(void)unlinkat(f->dirfd, f->tmp, 0);
	f->tmp[0] = '\0';
	if (f->fd >= 0)
		(void)close(f->fd);
	f->fd = -1;
	errno = e;
}

int
sys_create(const char *path, const void *img, size_t len, unsigned mode,
    int force, int typeerr)
{
	struct sys_file f;
	struct stat st;
	char name[NAME_MAX + 1];
	int dirfd, r;

	if ((r = sys_dir_open(path, &dirfd, name, sizeof(name))) != 0)
		return r;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (!force)
			return sys_close_keep(dirfd, OTP_ESTATEEXIST);
		/* A symlink is replaced itself, not what it points at. */
		if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
			return sys_close_keep(dirfd, typeerr);
	} else if (errno != ENOENT)
		return sys_close_keep(dirfd, OTP_EIO);
	if ((r = sys_stage(&f, dirfd, name, mode)) == 0) {
		if ((r = sys_stage_write(&f, img, len)) == 0)
			r = sys_commit(&f, force);
		else
			sys_discard(&f);
	}
	return sys_close_keep(dirfd, r);
}

/*
 * otpwfile.c - the OTPW file on disk and its lock symlink.
 *
 * The lock is the one otpw's own module makes: a symlink NAME.lock whose
 * target is the number being asked, made with symlink(2) (atomic; it
 * fails if one is there) as the user whose file it is.  A lock older than
 * a login can last (the caller's age) is a leftover and is removed.  It
 * only says which entry a login is asking for, so that a second login
 * asks three others.
 *
 * Marking an entry used is a read-check-write cycle under a flock on the
 * file (our own concurrent runs wait for each other), which reads the
 * entries afresh, so that an entry another run has used meanwhile is not
 * accepted again, and writes the whole image by an atomic rename
 * (atomic.c), keeping the file's owner and group, mode 0600.
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "otp.h"
#include "otp_otpw.h"
#include "store_int.h"

#define LOCK_SUFFIX	".lock"
#define LOCK_TRIES	5
#define RETRIES		20

static int
check_stat(const struct stat *st, const void *arg)
{
	unsigned long uid = *(const unsigned long *)arg;

	if (!S_ISREG(st->st_mode))
		return OTP_EOTPWTYPE;
	if (uid != SYS_OTPW_ANYUID && (unsigned long)st->st_uid != uid)
		return OTP_EOTPWOWNER;
	if ((st->st_mode & 022) != 0)
		return OTP_EOTPWMODE;
	if (st->st_size > OTP_OTPW_MAX)
		return OTP_EOTPWSIZE;
	return 0;
}

int
sys_otpw_load(const char *path, unsigned long uid, char *img, size_t imgsz,
    size_t *len)
{
	char name[NAME_MAX + 1];
	struct stat st;
	int dirfd, fd, r;

	*len = 0;
	if ((r = sys_dir_open(path, &dirfd, name, sizeof(name))) != 0)
		return r;
	if ((r = sys_open_vetted(dirfd, name, check_stat, &uid, 0,
	    OTP_EOTPWTYPE, &fd, &st)) != 0)
		return sys_close_keep(dirfd, r);
	(void)close(dirfd);
	if ((size_t)st.st_size > imgsz)
		return sys_close_keep(fd, OTP_EOTPWSIZE);
	if ((r = sys_read_exact(fd, img, (size_t)st.st_size)) != 0)
		return sys_close_keep(fd, r);
	*len = (size_t)st.st_size;
	(void)close(fd);
	return 0;
}

static int
lock_path(const char *path, char *out, size_t outsz)
{
	int n = snprintf(out, outsz, "%s" LOCK_SUFFIX, path);

	if (n < 0 || (size_t)n >= outsz) {
		errno = ENAMETOOLONG;
		return OTP_EIO;
	}
	return 0;
}

int
sys_otpw_lock(const char *path, const char *chal, unsigned age, char *held,
    size_t heldsz)
{
	char lp[PATH_MAX];
	struct stat st;
	ssize_t n;
	int i, r;

	if (heldsz > 0)
		held[0] = '\0';
	if ((r = lock_path(path, lp, sizeof(lp))) != 0)
		return r;
	for (i = 0; i < LOCK_TRIES; i++) {
		if (symlink(chal, lp) == 0)
			return 0;
		if (errno != EEXIST)
			return OTP_EIO;
		if (lstat(lp, &st) != 0) {
			if (errno == ENOENT)
				continue;	/* gone meanwhile: again */
			return OTP_EIO;
		}
		if (difftime(time(NULL), st.st_mtime) <= (double)age)
			break;
		/* Older than a login lasts: one that died; not a lock. */
		if (unlink(lp) != 0 && errno != ENOENT)
			return OTP_EIO;
	}
	if (i == LOCK_TRIES)
		return OTP_EOTPWLOCKED;
	if (heldsz > 0) {
		n = readlink(lp, held, heldsz - 1);
		held[n > 0 ? n : 0] = '\0';
	}
	return 1;
}

int
sys_otpw_unlock(const char *path)
{
	char lp[PATH_MAX];
	int r;

	if ((r = lock_path(path, lp, sizeof(lp))) != 0)
		return r;
	return unlink(lp) == 0 ? 0 : OTP_EIO;
}

/* One locked cycle; OTP_ESTATECHANGED asks for another. */
static int
consume_cycle(int dirfd, const char *name, unsigned long uid,
    const struct otp_otpw_chal *chal, const char *resp, struct otp_otpw *w,
    char *img)
{
	struct otp_otpw_chal c;
	struct sys_file f;
	struct stat st, again;
	size_t len;
	int fd, r, ok;

	if ((r = sys_open_vetted(dirfd, name, check_stat, &uid, 1,
	    OTP_EOTPWTYPE, &fd, &st)) != 0)
		return r;
	len = (size_t)st.st_size;
	if ((r = sys_read_exact(fd, img, len)) != 0)
		goto out;
	if ((r = otp_otpw_parse(img, len, w, NULL)) != 0)
		goto out;
	/* The entries by their numbers, as they are now: one used since
	 * the challenge was made is no longer there to accept. */
	r = otp_otpw_chal_parse(img, w, chal->text, &c);
	if (r == OTP_EOTPWUNKNOWN) {
		r = 0;
		goto out;
	}
	if (r != 0)
		goto out;
	ok = otp_otpw_check(img, w, &c, resp);
	if (!ok) {
		r = 0;
		goto out;
	}
	otp_otpw_mark(img, w, &c);
	if ((r = sys_stage(&f, dirfd, name, 0600)) != 0)
		goto out;
	if ((r = sys_stage_owner(&f, (unsigned long)st.st_uid,
	    (unsigned long)st.st_gid)) != 0 ||
	    (r = sys_stage_write(&f, img, len)) != 0 ||
	    (r = sys_stage_sync(&f)) != 0) {
		sys_discard(&f);
		goto out;
	}
	if (fstatat(dirfd, name, &again, AT_SYMLINK_NOFOLLOW) != 0 ||
	    again.st_ino != st.st_ino || again.st_dev != st.st_dev) {
		sys_discard(&f);
		r = OTP_ESTATECHANGED;
		goto out;
	}
	if ((r = sys_commit(&f, 1)) == 0)
		r = 1;
out:
	otp_wipe(&c, sizeof(c));
	return sys_close_keep(fd, r);	/* drops the flock */
}

int
sys_otpw_consume(const char *path, unsigned long uid,
    const struct otp_otpw_chal *chal, const char *resp, struct otp_otpw *w)
{
	char name[NAME_MAX + 1];
	char *img;
	int dirfd, r = OTP_ESTATECHANGED, i;

	memset(w, 0, sizeof(*w));
	if ((img = malloc(OTP_OTPW_MAX)) == NULL)
		return OTP_ENOMEM;
	if ((r = sys_dir_open(path, &dirfd, name, sizeof(name))) == 0) {
		for (i = 0, r = OTP_ESTATECHANGED;
		    i < RETRIES && r == OTP_ESTATECHANGED; i++)
			r = consume_cycle(dirfd, name, uid, chal, resp, w,
			    img);
		(void)sys_close_keep(dirfd, 0);
	}
	/* Only the hashes were in it, but wipe it all the same. */
	otp_wipe(img, OTP_OTPW_MAX);
	free(img);
	return r;
}

int
sys_otpw_create(const char *path, const char *img, size_t len, int force,
    int *unlocked)
{
	int r;

	*unlocked = 0;
	if (len < 1 || len > OTP_OTPW_MAX)
		return OTP_EOTPWSIZE;
	if ((r = sys_create(path, img, len, 0600, force, OTP_EOTPWTYPE)) != 0)
		return r;
	/* A lock names an entry of the old list: meaningless now. */
	if (sys_otpw_unlock(path) == 0)
		*unlocked = 1;
	return 0;
}

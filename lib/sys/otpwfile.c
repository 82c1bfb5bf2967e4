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
 *
 * pam_otp.so's linger= keeps the list's lingering answers (lib/linger.c)
 * in NAME.linger beside it, read and written (atomically, as the list)
 * under the list's flock: the list stays otpw's own.  The records hold
 * no secret of the list, so the file is bound to the list as a whole: its
 * first line is a digest of the list as our last accept wrote it, and
 * while the list is not those bytes the file holds no record.  A
 * lingering accept writes only NAME.linger, so the list stays the same;
 * any other write of it (an accept by pam_otpw, or by a login without
 * linger=, a new list) ends every record.  An accept with linger= carries
 * the records over, bound to the list it wrote.
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
#include "otp_linger.h"
#include "otp_otpw.h"
#include "store_int.h"

#define LOCK_SUFFIX	".lock"
#define LINGER_SUFFIX	".linger"
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

/* path with suffix into out. */
static int
suffixed(const char *path, const char *suffix, char *out, size_t outsz)
{
	int n = snprintf(out, outsz, "%s%s", path, suffix);

	if (n < 0 || (size_t)n >= outsz) {
		errno = ENAMETOOLONG;
		return OTP_EIO;
	}
	return 0;
}

static int
lock_path(const char *path, char *out, size_t outsz)
{
	return suffixed(path, LOCK_SUFFIX, out, outsz);
}

static int
linger_path(const char *path, char *out, size_t outsz)
{
	return suffixed(path, LINGER_SUFFIX, out, outsz);
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

static int
linger_stat(const struct stat *st, const void *arg)
{
	unsigned long uid = *(const unsigned long *)arg;

	if (!S_ISREG(st->st_mode))
		return OTP_EOTPWTYPE;
	if (uid != SYS_OTPW_ANYUID && (unsigned long)st->st_uid != uid)
		return OTP_EOTPWOWNER;
	if ((st->st_mode & 077) != 0)
		return OTP_EOTPWMODE;
	if (st->st_size > (off_t)(OTP_LINGER_BINDMAX + OTP_LINGER_LINESMAX))
		return OTP_EOTPWSIZE;
	return 0;
}

/* NAME.linger's records: none when there is no such file, or when its
 * first line is not bound, the BIND line (otp_linger_bind_line) of the
 * list as it is. */
static int
linger_read(int dirfd, const char *lname, unsigned long uid,
    const char *bound, struct otp_linger *recs, size_t *n)
{
	char buf[OTP_LINGER_BINDMAX + OTP_LINGER_LINESMAX];
	struct stat st;
	size_t k = strlen(bound), len;
	int fd, r;

	*n = 0;
	r = sys_open_vetted(dirfd, lname, linger_stat, &uid, 0, OTP_EOTPWTYPE,
	    &fd, &st);
	if (r == OTP_EIO && errno == ENOENT)
		return 0;
	if (r != 0)
		return r;
	len = (size_t)st.st_size;
	if ((r = sys_read_exact(fd, buf, len)) == 0 && len >= k &&
	    memcmp(buf, bound, k) == 0)
		otp_linger_lines_parse(buf + k, len - k, recs, n);
	otp_wipe(buf, sizeof(buf));
	return sys_close_keep(fd, r);
}

/* NAME.linger with the BIND line bound and recs[0..n), owned as the list
 * st (mode 0600); removed when there are none. */
static int
linger_write(int dirfd, const char *lname, const struct stat *st,
    const char *bound, const struct otp_linger *recs, size_t n)
{
	char buf[OTP_LINGER_BINDMAX + OTP_LINGER_LINESMAX];
	struct sys_file f;
	size_t len = strlen(bound);
	int r;

	if (n == 0)
		return unlinkat(dirfd, lname, 0) == 0 || errno == ENOENT ? 0 :
		    OTP_EIO;
	memcpy(buf, bound, len);
	len += otp_linger_lines(recs, n, buf + len, sizeof(buf) - len);
	if ((r = sys_stage(&f, dirfd, lname, 0600)) != 0)
		return r;
	if ((r = sys_stage_owner(&f, (unsigned long)st->st_uid,
	    (unsigned long)st->st_gid)) != 0 ||
	    (r = sys_stage_write(&f, buf, len)) != 0) {
		sys_discard(&f);
		return r;
	}
	return sys_commit(&f, 1);
}

static int64_t
linger_now(const struct sys_linger *lg)
{
	return lg->now != SYS_NOW_REAL ? lg->now : (int64_t)time(NULL);
}

/* resp lingering in NAME.linger, bound to the list as it is (bound): 2,
 * its expiry slid (written when it moved); else 0. */
static int
linger_look(int dirfd, const char *lname, const struct stat *st,
    unsigned long uid, const struct sys_linger *lg, const char *bound,
    const char *resp)
{
	struct otp_linger recs[OTP_LINGER_RECORDS];
	struct otp_linger_who w = { lg->user, lg->client, NULL, 0, NULL };
	size_t n, rest;
	int changed, r;

	if ((r = linger_read(dirfd, lname, uid, bound, recs, &n)) != 0)
		return r;
	if (otp_linger_take(recs, &n, &w, resp, linger_now(lg), lg->secs,
	    &rest, &changed) < 0)
		return 0;
	if (changed)
		(void)linger_write(dirfd, lname, st, bound, recs, n);
	return 2;
}

/* A record for resp, which the list accepted (bound: its BIND line
 * before; img[0..len): the list now): NAME.linger written, the records
 * of the list before carried over, bound to the list as it is now. */
static void
linger_keep(int dirfd, const char *lname, const struct stat *st,
    unsigned long uid, const struct sys_linger *lg, const char *bound,
    const char *img, size_t len, const char *resp)
{
	struct otp_linger recs[OTP_LINGER_RECORDS];
	struct otp_linger_who w = { lg->user, lg->client, NULL, 0, NULL };
	uint8_t salt[OTP_LINGER_SALTLEN];
	char after[OTP_LINGER_BINDMAX];
	size_t n = 0;

	if (linger_read(dirfd, lname, uid, bound, recs, &n) != 0)
		n = 0;	/* one that does not read is replaced */
	if (sys_random_bytes(salt, sizeof(salt)) != 0)
		return;	/* no record: the answer does not linger */
	otp_linger_put(recs, &n, salt, &w, resp, 0, linger_now(lg), lg->secs);
	(void)otp_linger_bind_line(img, len, after, sizeof(after));
	(void)linger_write(dirfd, lname, st, after, recs, n);
	otp_wipe(salt, sizeof(salt));
}

/* One locked cycle; OTP_ESTATECHANGED asks for another. */
static int
consume_cycle(int dirfd, const char *name, unsigned long uid,
    const struct otp_otpw_chal *chal, const char *resp,
    const struct sys_linger *lg, struct otp_otpw *w, char *img)
{
	char lname[NAME_MAX + 1], bound[OTP_LINGER_BINDMAX];
	struct otp_otpw_chal c;
	struct sys_file f;
	struct stat st, again;
	size_t len;
	int fd, r, ok;

	memset(&c, 0, sizeof(c));
	if (lg != NULL && (size_t)snprintf(lname, sizeof(lname), "%s%s", name,
	    LINGER_SUFFIX) >= sizeof(lname))
		lg = NULL;	/* no room for its name: no linger */
	if ((r = sys_open_vetted(dirfd, name, check_stat, &uid, 1,
	    OTP_EOTPWTYPE, &fd, &st)) != 0)
		return r;
	len = (size_t)st.st_size;
	if ((r = sys_read_exact(fd, img, len)) != 0)
		goto out;
	if ((r = otp_otpw_parse(img, len, w, NULL)) != 0)
		goto out;
	/* A lingering answer, under the list's lock: no entry is used. */
	if (lg != NULL) {
		(void)otp_linger_bind_line(img, len, bound, sizeof(bound));
		if ((r = linger_look(dirfd, lname, &st, uid, lg, bound,
		    resp)) != 0)
			goto out;
	}
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
	if (r == 1 && lg != NULL)
		linger_keep(dirfd, lname, &st, uid, lg, bound, img, len, resp);
out:
	otp_wipe(&c, sizeof(c));
	return sys_close_keep(fd, r);	/* drops the flock */
}

int
sys_otpw_consume(const char *path, unsigned long uid,
    const struct otp_otpw_chal *chal, const char *resp,
    const struct sys_linger *lg, struct otp_otpw *w)
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
			r = consume_cycle(dirfd, name, uid, chal, resp, lg,
			    w, img);
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
	char lp[PATH_MAX];
	int r;

	*unlocked = 0;
	if (len < 1 || len > OTP_OTPW_MAX)
		return OTP_EOTPWSIZE;
	if ((r = sys_create(path, img, len, 0600, force, OTP_EOTPWTYPE)) != 0)
		return r;
	/* A lock names an entry of the old list: meaningless now; and the
	 * answers the old list took linger no more (bound to it, they do
	 * not match the new one either, should the file stay). */
	if (sys_otpw_unlock(path) == 0)
		*unlocked = 1;
	if (linger_path(path, lp, sizeof(lp)) == 0)
		(void)unlink(lp);
	return 0;
}

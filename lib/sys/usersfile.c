/*
 * usersfile.c - OATH Toolkit's users file on disk: read it, decide with
 * the engine (lib/users.c), and replace it atomically, owner and mode
 * kept, under locks that serve everyone.
 *
 * Two locks, always in this order, so that nothing can wait in a circle:
 *
 *  1. flock(2) on the users file itself: runs of ours (and logins in other
 *     threads of one host) wait for each other instead of failing, and
 *     read the file only once they hold it.  An update replaces the file
 *     by rename, so a run that waited checks that the name still is the
 *     file it locked, else starts again.
 *  2. FILE.lock, the lock file of pam_oath (OATH Toolkit's module), made
 *     with O_EXCL as it makes it, and held with an fcntl lock as it holds
 *     it: while it exists pam_oath refuses to write, so it cannot record
 *     a code between our reading and our writing.  pam_oath never waits
 *     for us (it fails at once); we wait for it a bounded time.  A FILE.lock
 *     that nobody holds a lock on for LOCK_STALE_MS is a crash's leftover
 *     and is removed, and so is a FILE.new (pam_oath's staging file, made
 *     only by a holder of FILE.lock) found while we hold FILE.lock.
 *
 * pam_oath reads the file before it takes FILE.lock, so a pam_oath login
 * that read the file just before our rename could take FILE.lock after we
 * drop it and record the same code again.  Its read and its lock are well
 * under a millisecond apart, so after a write we keep FILE.lock LINGER_MS
 * longer: such a login finds it and fails.  No locking on our side can
 * reach back into its read; this makes the gap one that a login would
 * have to be stalled in for LINGER_MS.  Where no pam_oath shares the file
 * (cfg.unshared) there is no such login, and no linger.
 *
 * Wrong codes are counted per user outside the users file, so that it
 * stays pam_oath's byte for byte: FILE.tally/USER (a directory beside the
 * file, mode 0700, made when first needed) holds "FAILS SINCE\n".  The
 * tally is flock(2)ed for the whole check, so that logins of one user
 * run one after another and no guess slips past the count; cfg.deny
 * wrong codes in a row refuse the next for cfg.unlock_time seconds
 * without a look at the file, and an accept resets the count.
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
#include "otp_users.h"
#include "store_int.h"

#define RETRIES		20	/* replaced underneath: again */
#define LOCK_WAIT_MS	10000	/* most we wait for pam_oath's FILE.lock */
#define LOCK_STALE_MS	200	/* unheld this long: a crash's leftover */
#define POLL_MS		5
#define LINGER_MS	10	/* FILE.lock kept after a write (see above) */
#define TALLY_MAX	64	/* "FAILS SINCE\n" and then some */

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static int
check_stat(const struct stat *st, const void *arg)
{
	const int *group_read = arg;

	if (!S_ISREG(st->st_mode))
		return OTP_EUSERSTYPE;
	/* Secrets: no one but the owner writes or reads (group_read: the
	 * group may read, as pam_oath allows). */
	if ((st->st_mode & (*group_read ? 0027 : 0077)) != 0)
		return OTP_EUSERSMODE;
	if ((unsigned long long)st->st_size > OTP_USERS_MAX)
		return OTP_EUSERSSIZE;
	return 0;
}

/* fcntl lock (open file description: per login, also across threads) on
 * the whole of fd, without waiting; 1 taken, 0 held by another, -1. */
static int
try_lock(int fd, short type)
{
	struct flock fl;

	memset(&fl, 0, sizeof(fl));
	fl.l_type = type;
	fl.l_whence = SEEK_SET;
	if (fcntl(fd, F_OFD_SETLK, &fl) == 0)
		return 1;
	return errno == EAGAIN || errno == EACCES ? 0 : -1;
}

/* Take pam_oath's lock file, name.lock in dirfd: *fdp holds it. */
static int
take_foreign(int dirfd, const char *name, int *fdp)
{
	char lock[NAME_MAX + 1], stale[NAME_MAX + 1];
	struct stat st, again;
	dev_t dev = 0;
	ino_t ino = 0;
	long waited = 0, unheld = 0;
	int fd;

	if ((size_t)snprintf(lock, sizeof(lock), "%s.lock", name) >=
	    sizeof(lock) || (size_t)snprintf(stale, sizeof(stale), "%s.new",
	    name) >= sizeof(stale)) {
		errno = ENAMETOOLONG;
		return OTP_EIO;
	}
	for (;;) {
		fd = openat(dirfd, lock, O_WRONLY | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0) {
			if (try_lock(fd, F_WRLCK) != 1) {
				/* Nobody can hold a file we just made. */
				(void)unlinkat(dirfd, lock, 0);
				return sys_close_keep(fd, OTP_ELOCK);
			}
			/* No pam_oath is writing now: a FILE.new is a
			 * leftover that would make it fail for ever. */
			(void)unlinkat(dirfd, stale, 0);
			*fdp = fd;
			return 0;
		}
		if (errno != EEXIST)
			return OTP_EIO;
		fd = openat(dirfd, lock, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
		    O_CLOEXEC);
		if (fd >= 0 && fstat(fd, &st) == 0) {
			/* A read lock: the descriptor is read-only, and
			 * pam_oath's write lock stops it all the same. */
			if (try_lock(fd, F_RDLCK) != 1)
				unheld = 0;
			else if (unheld > 0 && st.st_dev == dev &&
			    st.st_ino == ino)
				unheld += POLL_MS;
			else {
				dev = st.st_dev;
				ino = st.st_ino;
				unheld = 1;
			}
			if (unheld >= LOCK_STALE_MS) {
				/* The same file, held by nobody all along:
				 * remove it if it is still there. */
				if (fstatat(dirfd, lock, &again,
				    AT_SYMLINK_NOFOLLOW) == 0 &&
				    again.st_dev == dev && again.st_ino == ino)
					(void)unlinkat(dirfd, lock, 0);
				(void)close(fd);
				unheld = 0;
				continue;
			}
		}
		if (fd >= 0)
			(void)close(fd);	/* drops a lock we took */
		if (waited >= LOCK_WAIT_MS)
			return OTP_EUSERSLOCK;
		sleep_ms(POLL_MS);
		waited += POLL_MS;
	}
}

static void
drop_foreign(int dirfd, const char *name, int fd)
{
	char lock[NAME_MAX + 1];

	if (fd < 0)
		return;
	if ((size_t)snprintf(lock, sizeof(lock), "%s.lock", name) <
	    sizeof(lock))
		(void)unlinkat(dirfd, lock, 0);
	(void)close(fd);
}

static int
write_image(int dirfd, const char *name, const struct stat *st,
    const char *img, size_t len, int replace)
{
	struct sys_file f;
	int r;

	if ((r = sys_stage(&f, dirfd, name, st == NULL ? 0600 :
	    (unsigned)(st->st_mode & 07777))) != 0)
		return r;
	if ((st != NULL && (r = sys_stage_owner(&f,
	    (unsigned long)st->st_uid, (unsigned long)st->st_gid)) != 0) ||
	    (r = sys_stage_write(&f, img, len)) != 0) {
		sys_discard(&f);
		return r;
	}
	return sys_commit(&f, replace);
}

/* What one locked cycle does with the image. */
struct job {
	const char		*user;
	const char		*password;
	const char		*code;
	int64_t			 now;
	unsigned		 window;
	int			 dry;
	int			 group_read;
	int			 linger;
	const struct otp_users_token *token;	/* set, not check */
	int			 replace;
	struct otp_users_result	*r;
};

static int
cycle(int dirfd, const char *name, struct job *j)
{
	struct stat st, again;
	char *in = NULL, *out = NULL;
	size_t inlen, outsz, outlen = 0;
	int fd, lfd = -1, ret, e;
	int64_t now;

	if ((ret = sys_open_vetted(dirfd, name, check_stat, &j->group_read, 1,
	    OTP_EUSERSTYPE, &fd, &st)) < 0) {
		if (ret == OTP_EIO && errno == ENOENT && j->token != NULL) {
			/* A new file: the link in sys_commit refuses to
			 * clobber one made meanwhile. */
			out = malloc(OTP_USERS_LINE_MAX);
			if (out == NULL)
				return OTP_ENOMEM;
			ret = otp_users_set("", 0, j->token, j->replace, out,
			    OTP_USERS_LINE_MAX, &outlen);
			if (ret == 0)
				ret = write_image(dirfd, name, NULL, out,
				    outlen, 0);
			if (ret == OTP_ESTATEEXIST)
				ret = OTP_ESTATECHANGED;
			otp_wipe(out, OTP_USERS_LINE_MAX);
			free(out);
		}
		return ret;
	}
	inlen = (size_t)st.st_size;
	outsz = inlen + OTP_USERS_LINE_MAX;
	if ((in = malloc(inlen + 1)) == NULL ||
	    (out = malloc(outsz)) == NULL) {
		ret = OTP_ENOMEM;
		goto out;
	}
	if (!j->dry) {
		if ((ret = take_foreign(dirfd, name, &lfd)) < 0)
			goto out;
		/* pam_oath may have replaced the file while we waited. */
		if (fstatat(dirfd, name, &again, AT_SYMLINK_NOFOLLOW) != 0 ||
		    again.st_dev != st.st_dev || again.st_ino != st.st_ino) {
			ret = OTP_ESTATECHANGED;
			goto out;
		}
	}
	if ((ret = sys_read_exact(fd, in, inlen)) < 0)
		goto out;
	if (j->token != NULL) {
		ret = otp_users_set(in, inlen, j->token, j->replace, out, outsz,
		    &outlen);
		if (ret == 0)
			ret = write_image(dirfd, name, &st, out, outlen, 1);
		goto out;
	}
	if (j->r == NULL) {
		ret = OTP_EINVAL;
		goto out;
	}
	/* The clock is read with the file locked, so that logins that waited
	 * for each other judge in the order they wrote. */
	now = j->now == SYS_NOW_REAL ? (int64_t)time(NULL) : j->now;
	ret = otp_users_check(in, inlen, j->user, j->password, j->code, now,
	    sys_zone_local(), j->window, j->r, out, outsz, &outlen);
	if (ret == 0 && j->r->accepted && !j->dry) {
		ret = write_image(dirfd, name, &st, out, outlen, 1);
		if (ret < 0)
			j->r->accepted = 0;	/* unrecorded: replayable */
		else if (j->linger)
			sleep_ms(LINGER_MS);
	}
out:
	e = errno;
	if (in != NULL)
		otp_wipe(in, inlen);
	if (out != NULL)
		otp_wipe(out, outsz);
	free(in);
	free(out);
	drop_foreign(dirfd, name, lfd);
	(void)close(fd);	/* drops the flock */
	errno = e;
	return ret;
}

/* The tally's file name for user: the name as it is when it is a plain
 * one, else %XX for every byte that is not [A-Za-z0-9_-] or a dot after
 * the first byte, so that no name leaves the directory. */
static int
tally_name(const char *user, char *out, size_t outsz)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t i, o = 0;
	unsigned char ch;

	for (i = 0; user[i] != '\0'; i++) {
		ch = (unsigned char)user[i];
		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		    (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' ||
		    (ch == '.' && i > 0)) {
			if (o + 1 >= outsz)
				return -1;
			out[o++] = (char)ch;
		} else {
			if (o + 3 >= outsz)
				return -1;
			out[o++] = '%';
			out[o++] = hex[ch >> 4];
			out[o++] = hex[ch & 15];
		}
	}
	if (o == 0)
		return -1;
	out[o] = '\0';
	return 0;
}

/* A user's tally: the directory and the file, open, and what it holds. */
struct tally {
	char		dir[NAME_MAX + 1];
	char		file[NAME_MAX + 1];
	int		dfd, fd;	/* -1: none */
	unsigned long	fails;
	long long	since;
};

static void
tally_close(struct tally *t)
{
	int e = errno;

	if (t->fd >= 0)
		(void)close(t->fd);	/* drops the flock */
	if (t->dfd >= 0)
		(void)close(t->dfd);
	t->fd = t->dfd = -1;
	errno = e;
}

/* Open user's tally in dirfd: unless dry, made when missing and flocked
 * (the name checked to be the file locked, as a holder that is done may
 * remove it); dry, read only when there is one.  0, or OTP_EIO. */
static int
tally_open(int dirfd, const char *name, const char *user, int dry,
    struct tally *t)
{
	char buf[TALLY_MAX];
	struct stat st, again;
	ssize_t n;
	int i;

	memset(t, 0, sizeof(*t));
	t->dfd = t->fd = -1;
	if ((size_t)snprintf(t->dir, sizeof(t->dir), "%s.tally", name) >=
	    sizeof(t->dir) || tally_name(user, t->file, sizeof(t->file)) != 0) {
		errno = ENAMETOOLONG;
		return OTP_EIO;
	}
	for (i = 0; i < RETRIES; i++) {
		tally_close(t);
		if (!dry && mkdirat(dirfd, t->dir, 0700) != 0 &&
		    errno != EEXIST)
			return OTP_EIO;
		t->dfd = openat(dirfd, t->dir, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC);
		if (t->dfd >= 0)
			t->fd = openat(t->dfd, t->file, (dry ? O_RDONLY :
			    O_RDWR | O_CREAT) | O_NOFOLLOW | O_NONBLOCK |
			    O_CLOEXEC, 0600);
		if (t->fd < 0) {
			if (errno != ENOENT)
				return OTP_EIO;
			if (dry)
				return 0;	/* none: no wrong code */
			continue;	/* removed meanwhile: again */
		}
		if (fstat(t->fd, &st) != 0)
			return OTP_EIO;
		if (!S_ISREG(st.st_mode)) {
			errno = EINVAL;
			return OTP_EIO;
		}
		if (dry)
			break;
		if (flock(t->fd, LOCK_EX) != 0)
			return OTP_EIO;
		if (fstatat(t->dfd, t->file, &again, AT_SYMLINK_NOFOLLOW) == 0 &&
		    again.st_dev == st.st_dev && again.st_ino == st.st_ino)
			break;
	}
	if (i == RETRIES) {
		errno = EAGAIN;
		return OTP_EIO;
	}
	n = pread(t->fd, buf, sizeof(buf) - 1, 0);
	if (n > 0) {
		buf[n] = '\0';
		if (sscanf(buf, "%lu %lld", &t->fails, &t->since) != 2)
			t->fails = 0, t->since = 0;	/* unreadable */
	}
	return 0;
}

/* No wrong code to remember: the file goes, and the directory when it is
 * empty (another login's file keeps it). */
static void
tally_remove(int dirfd, struct tally *t)
{
	(void)unlinkat(t->dfd, t->file, 0);
	(void)unlinkat(dirfd, t->dir, AT_REMOVEDIR);
}

/* Write fails and since to the tally (fd), synced. */
static int
tally_write(int fd, unsigned long fails, long long since)
{
	char buf[TALLY_MAX];
	int n;

	n = snprintf(buf, sizeof(buf), "%lu %lld\n", fails, since);
	if (n < 0 || (size_t)n >= sizeof(buf) || ftruncate(fd, 0) != 0 ||
	    pwrite(fd, buf, (size_t)n, 0) != n || fsync(fd) != 0)
		return OTP_EIO;
	return 0;
}

static int
run(const char *path, struct job *j)
{
	char name[NAME_MAX + 1];
	int dirfd, ret = OTP_ESTATECHANGED, i, e;

	if ((ret = sys_dir_open(path, &dirfd, name, sizeof(name))) < 0)
		return ret;
	ret = OTP_ESTATECHANGED;
	for (i = 0; i < RETRIES && ret == OTP_ESTATECHANGED; i++) {
		if (j->r != NULL)
			memset(j->r, 0, sizeof(*j->r));
		ret = cycle(dirfd, name, j);
	}
	e = errno;
	(void)close(dirfd);
	errno = e;
	return ret;
}

/* A check under the user's tally: refused unseen while locked out, a
 * wrong code counted, an accept (or no token) leaving no tally. */
static int
tallied(const char *path, const struct sys_store_cfg *c, struct job *j)
{
	char name[NAME_MAX + 1];
	struct tally t;
	unsigned long deny, fails;
	long long now, unlock;
	int dirfd, ret, e;

	if (c->deny < 0)
		return run(path, j);
	deny = c->deny != 0 ? (unsigned long)c->deny : SYS_USERS_DENY;
	unlock = c->unlock_time != 0 ? c->unlock_time : SYS_USERS_UNLOCK;
	if ((ret = sys_dir_open(path, &dirfd, name, sizeof(name))) < 0)
		return ret;
	if ((ret = tally_open(dirfd, name, j->user, j->dry, &t)) < 0)
		goto out;
	now = (long long)time(NULL);
	fails = t.fails;
	if (fails >= deny && now >= t.since && now - t.since < unlock) {
		memset(j->r, 0, sizeof(*j->r));
		j->r->why = OTP_USERS_WHY_LOCKED;
		goto out;
	}
	if (fails >= deny)
		fails = 0;	/* the lock-out is over: counted afresh */
	ret = run(path, j);
	if (t.fd < 0 || j->dry)
		goto out;
	if (ret == 0 && !j->r->accepted &&
	    (j->r->why == OTP_USERS_WHY_WRONG ||
	    j->r->why == OTP_USERS_WHY_PASSWORD)) {
		/* A guess: counted before the refusal is told. */
		if ((e = tally_write(t.fd, fails + 1, now)) != 0)
			ret = e;
	} else if (t.fails == 0 || (ret == 0 && (j->r->accepted ||
	    j->r->why == OTP_USERS_WHY_UNKNOWN)))
		tally_remove(dirfd, &t);
out:
	tally_close(&t);
	e = errno;
	(void)close(dirfd);
	errno = e;
	return ret;
}

int
sys_users_check(const char *path, const struct sys_store_cfg *c,
    const char *user, const char *password, const char *code,
    struct otp_users_result *r)
{
	struct job j = { user, password, code, c->now, c->window, c->dry,
	    c->group_read, !c->unshared, NULL, 0, r };

	memset(r, 0, sizeof(*r));
	return tallied(path, c, &j);
}

int
sys_users_set(const char *path, const struct otp_users_token *t, int replace)
{
	struct job j = { NULL, NULL, NULL, 0, 0, 0, 1, 1, t, replace, NULL };

	return run(path, &j);
}

/* The users file at path, read whole without a lock (it is only ever
 * replaced by a rename), into a new buffer *img of *len bytes. */
static int
read_whole(const char *path, int group_read, char **img, size_t *len)
{
	char name[NAME_MAX + 1];
	struct stat st;
	int dirfd, fd, ret;

	*img = NULL;
	if ((ret = sys_dir_open(path, &dirfd, name, sizeof(name))) < 0)
		return ret;
	ret = sys_open_vetted(dirfd, name, check_stat, &group_read, 0,
	    OTP_EUSERSTYPE, &fd, &st);
	(void)close(dirfd);
	if (ret < 0)
		return ret;
	*len = (size_t)st.st_size;
	if ((*img = malloc(*len + 1)) == NULL)
		return sys_close_keep(fd, OTP_ENOMEM);
	if ((ret = sys_read_exact(fd, *img, *len)) != 0) {
		otp_wipe(*img, *len);
		free(*img);
		*img = NULL;
	}
	(void)close(fd);
	return ret;
}

int
sys_users_get(const char *path, const char *user, int group_read,
    struct otp_users_token *t)
{
	char *in;
	size_t len;
	int ret;

	if ((ret = read_whole(path, group_read, &in, &len)) != 0)
		return ret;
	ret = otp_users_get(in, len, user, t);
	otp_wipe(in, len);
	free(in);
	return ret;
}

int
sys_users_has_user(const char *path, const char *user, int group_read)
{
	char *in;
	size_t len;
	int ret;

	if ((ret = read_whole(path, group_read, &in, &len)) != 0)
		return ret;
	ret = otp_users_has_user(in, len, user);
	otp_wipe(in, len);
	free(in);
	return ret;
}

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
 * pam_oath reads the file before it takes FILE.lock (it opens it, parses
 * up to the user's line, checks the code, and only then makes FILE.lock
 * and writes back what it read), so a pam_oath login that opened the file
 * before our rename could take FILE.lock after we drop it and record the
 * same code again, or undo our update.  So after a write we keep
 * FILE.lock while any other process still has the replaced file open
 * (linger(): a write lease tells, at once), up to LINGER_MAX_MS; such a
 * login finds FILE.lock and fails.  Most of the time nobody has it open
 * and nothing is waited for.  Where no pam_oath shares the file
 * (cfg.unshared) there is no such login, and no look.
 *
 * Wrong codes are counted per user outside the users file, so that it
 * stays pam_oath's byte for byte: FILE.tally/USER (a directory beside the
 * file, mode 0700, made at a user's first wrong code) holds "FAILS
 * SINCE\n".  It is read and written only under FILE.lock, which every
 * check that records holds for all of its check, so that no guess slips
 * past the count; cfg.deny wrong codes in a row refuse the next for
 * cfg.unlock_time seconds without a look at the file, and an accept
 * removes the count.  A right code with no count touches nothing.
 * With linger= the same file holds, after that line, the user's lingering
 * answers (lib/linger.c), one "LINGER EXPIRY SALT MAC" line each, each
 * bound to the line that accepted it (its secret and its PASSWORD field
 * in the MAC), so that a line removed, given another secret or another
 * PIN ends its answers: looked at after the lock-out, in a pass over the
 * user's lines of the file before the check's own (only while one is
 * live), a hit slides its expiry and writes nothing but the tally; an
 * accept adds one, and keeps the file while it holds a live one.
 *
 * The file is read in pieces of whole lines (pieces_next()), never held
 * whole but by otp-keygen's edits, and an accepted line is written as the
 * bytes before it copied in the kernel, the new line, and the bytes after.
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
#include "otp_users.h"
#include "store_int.h"

#define RETRIES		20	/* replaced underneath: again */
#define LOCK_WAIT_MS	10000	/* most we wait for pam_oath's FILE.lock */
#define LOCK_STALE_MS	200	/* unheld this long: a crash's leftover */
#define POLL_MS		5
#define LINGER_MS	10	/* FILE.lock kept after a write (see above) */
#define LINGER_MAX_MS	1000	/* ...while a reader of the old file lasts */
#define TALLY_MAX	(64 + OTP_LINGER_LINESMAX)	/* "FAILS SINCE\n",
						 * the LINGER lines */
#define PIECE		(32u << 10)	/* read at a time: whole lines of it */

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

/* A file read in pieces of whole lines through one small buffer: a large
 * users file is never held whole, for fresh memory costs more than the
 * reading (10k users: 9 ms for one 930 kB buffer, 0.8 ms in pieces). */
struct pieces {
	int		 fd;
	char		*buf;
	size_t		 cap, have, used;	/* buf's size, bytes, given */
	off_t		 off;		/* the file offset of buf[0] */
	off_t		 size;		/* the size it was opened with */
	int		 eof;
};

static int
pieces_open(struct pieces *pc, int fd, off_t size)
{
	memset(pc, 0, sizeof(*pc));
	pc->fd = fd;
	pc->size = size;
	pc->cap = PIECE;
	if ((pc->buf = malloc(pc->cap)) == NULL)
		return OTP_ENOMEM;
	return 0;
}

/* Back to the start of the file, for another pass. */
static void
pieces_rewind(struct pieces *pc)
{
	pc->off = 0;
	pc->have = pc->used = 0;
	pc->eof = 0;
}

static void
pieces_close(struct pieces *pc)
{
	if (pc->buf != NULL)
		otp_wipe(pc->buf, pc->cap);
	free(pc->buf);
	pc->buf = NULL;
}

/* The next piece, *p of *len bytes at file offset *at: 1, 0 after the
 * last, OTP_ESTATECHANGED when the file is not the size it had, or
 * OTP_EIO, OTP_ENOMEM. */
static int
pieces_next(struct pieces *pc, const char **p, size_t *len, off_t *at)
{
	const char *nl;
	char *nb;
	ssize_t n;

	memmove(pc->buf, pc->buf + pc->used, pc->have - pc->used);
	pc->off += (off_t)pc->used;
	pc->have -= pc->used;
	pc->used = 0;
	for (;;) {
		while (!pc->eof && pc->have < pc->cap) {
			n = pread(pc->fd, pc->buf + pc->have, pc->cap - pc->have,
			    pc->off + (off_t)pc->have);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				return OTP_EIO;
			if (n == 0)
				pc->eof = 1;
			pc->have += (size_t)n;
			if (pc->off + (off_t)pc->have > pc->size)
				return OTP_ESTATECHANGED;
		}
		if (pc->eof && pc->off + (off_t)pc->have != pc->size)
			return OTP_ESTATECHANGED;
		if (pc->have == 0)
			return 0;
		if (pc->eof)
			pc->used = pc->have;
		else if ((nl = memrchr(pc->buf, '\n', pc->have)) != NULL)
			pc->used = (size_t)(nl - pc->buf) + 1;
		else {
			/* A line longer than the buffer (the file's size
			 * bounds it): room for it. */
			if ((nb = malloc(pc->cap * 2)) == NULL)
				return OTP_ENOMEM;
			memcpy(nb, pc->buf, pc->have);
			otp_wipe(pc->buf, pc->cap);
			free(pc->buf);
			pc->buf = nb;
			pc->cap *= 2;
			continue;
		}
		*p = pc->buf;
		*len = pc->used;
		*at = pc->off;
		return 1;
	}
}

/* Append len bytes of fd from off to the staged file: in the kernel
 * where it can, else through buf. */
static int
stage_copy(struct sys_file *f, int fd, off_t off, size_t len, char *buf,
    size_t bufsz)
{
	ssize_t n;
	int r;

	f->synced = 0;
	while (len > 0) {
		n = copy_file_range(fd, &off, f->fd, NULL, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n > 0) {
			len -= (size_t)n;
			continue;
		}
		if (n == 0) {
			errno = EIO;	/* shorter than it was */
			return OTP_EIO;
		}
		if (errno != EXDEV && errno != EINVAL && errno != ENOSYS &&
		    errno != EOPNOTSUPP && errno != EBADF)
			return OTP_EIO;
		break;
	}
	while (len > 0) {
		n = pread(fd, buf, len < bufsz ? len : bufsz, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return OTP_EIO;
		}
		if ((r = sys_stage_write(f, buf, (size_t)n)) != 0)
			return r;
		off += n;
		len -= (size_t)n;
	}
	return 0;
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

/* The file open on fd (as st says) again, with bytes [start, next)
 * replaced by line[0..n): its owner and mode, the rest copied. */
static int
write_spliced(int dirfd, const char *name, int fd, const struct stat *st,
    off_t start, off_t next, const char *line, size_t n, struct pieces *pc)
{
	struct sys_file f;
	struct stat now;
	int r;

	if ((r = sys_stage(&f, dirfd, name, (unsigned)(st->st_mode &
	    07777))) != 0)
		return r;
	if ((r = sys_stage_owner(&f, (unsigned long)st->st_uid,
	    (unsigned long)st->st_gid)) != 0 ||
	    (r = stage_copy(&f, fd, 0, (size_t)start, pc->buf, pc->cap)) != 0 ||
	    (r = sys_stage_write(&f, line, n)) != 0 ||
	    (r = stage_copy(&f, fd, next, (size_t)(st->st_size - next),
	    pc->buf, pc->cap)) != 0) {
		sys_discard(&f);
		return r;
	}
	/* Written in place meanwhile (an editor, not a login: those wait
	 * or replace it): what was read is not what was copied. */
	if (fstat(fd, &now) != 0 || now.st_size != st->st_size ||
	    now.st_mtim.tv_sec != st->st_mtim.tv_sec ||
	    now.st_mtim.tv_nsec != st->st_mtim.tv_nsec) {
		sys_discard(&f);
		return OTP_ESTATECHANGED;
	}
	return sys_commit(&f, 1);
}

/* The file open on fd was just replaced: keep FILE.lock (held by the
 * caller) while someone else still has that old file open, a pam_oath
 * login perhaps, that read it before the rename and would write it back.
 * A write lease is granted only when no other open file description
 * holds the file, in any process; once it is unlinked no name reaches it,
 * so none can open it meanwhile, and the lease is dropped at once.  Our
 * own logins waiting for it let go once it is unlocked.  Where leases do
 * not work (not the owner without CAP_LEASE, NFS, leases off) or another
 * name still reaches it, the old rule: LINGER_MS. */
static void
linger(int fd)
{
	struct stat st;
	long waited;

	(void)flock(fd, LOCK_UN);
	if (fstat(fd, &st) != 0 || st.st_nlink != 0) {
		sleep_ms(LINGER_MS);
		return;
	}
	for (waited = 0; waited < LINGER_MAX_MS; waited++) {
		if (fcntl(fd, F_SETLEASE, F_WRLCK) == 0) {
			(void)fcntl(fd, F_SETOWN, 0);	/* no SIGIO */
			(void)fcntl(fd, F_SETLEASE, F_UNLCK);
			return;		/* nobody reads it any more */
		}
		if (errno != EAGAIN) {
			if (waited < LINGER_MS)
				sleep_ms(LINGER_MS - waited);
			return;
		}
		sleep_ms(1);
	}
}

/* What one locked cycle does with the file. */
struct job {
	const char		*user;
	const char		*answer;	/* password then code */
	const char		*password;
	const char		*code;
	const char		*client;	/* linger: PAM_RHOST */
	unsigned		 lingers;	/* linger=, 0 off */
	int64_t			 now;
	unsigned		 window;
	int			 dry;
	int			 group_read;
	int			 linger;
	unsigned long		 deny;	/* 0: no tally */
	long long		 unlock;
	const struct otp_users_token *token;	/* set, not check */
	int			 replace;
	struct otp_users_result	*r;
};

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

/* A user's tally, FILE.tally/USER: its names and what it holds. */
struct tally {
	char		dir[NAME_MAX + 1];
	char		file[NAME_MAX + 1];
	int		there;		/* the file exists */
	unsigned long	fails;
	long long	since;
	size_t		nrecs;		/* lingering answers */
	struct otp_linger recs[OTP_LINGER_RECORDS];
};

/* Read user's tally beside name in dirfd; none is no wrong code.  Only
 * read: the caller holds FILE.lock (or checks dry), which every writer
 * of a tally holds, so that no guess slips past the count. */
static int
tally_read(int dirfd, const char *name, const char *user, struct tally *t)
{
	char buf[TALLY_MAX];
	struct stat st;
	ssize_t n;
	int dfd, fd;

	memset(t, 0, sizeof(*t));
	if ((size_t)snprintf(t->dir, sizeof(t->dir), "%s.tally", name) >=
	    sizeof(t->dir) || tally_name(user, t->file, sizeof(t->file)) != 0) {
		errno = ENAMETOOLONG;
		return OTP_EIO;
	}
	dfd = openat(dirfd, t->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (dfd < 0)
		return errno == ENOENT ? 0 : OTP_EIO;
	fd = openat(dfd, t->file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC);
	(void)close(dfd);
	if (fd < 0)
		return errno == ENOENT ? 0 : OTP_EIO;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		if (errno == 0)
			errno = EINVAL;
		return sys_close_keep(fd, OTP_EIO);
	}
	t->there = 1;
	do
		n = pread(fd, buf, sizeof(buf) - 1, 0);
	while (n < 0 && errno == EINTR);
	(void)close(fd);
	if (n > 0) {
		buf[n] = '\0';
		if (sscanf(buf, "%lu %lld", &t->fails, &t->since) != 2)
			t->fails = 0, t->since = 0;	/* unreadable */
		otp_linger_lines_parse(buf, (size_t)n, t->recs, &t->nrecs);
	}
	otp_wipe(buf, sizeof(buf));
	return 0;
}

/* Record fails wrong codes, the last at since (the directory made when
 * first needed), synced before the refusal is told. */
static int
tally_write(int dirfd, const struct tally *t, unsigned long fails,
    long long since)
{
	char buf[TALLY_MAX];
	int dfd, fd, n, made = 0, ret = 0;

	n = snprintf(buf, sizeof(buf), "%lu %lld\n", fails, since);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return OTP_EIO;
	n += (int)otp_linger_lines(t->recs, t->nrecs, buf + n,
	    sizeof(buf) - (size_t)n);
	if (mkdirat(dirfd, t->dir, 0700) == 0)
		made = 1;
	else if (errno != EEXIST)
		return OTP_EIO;
	dfd = openat(dirfd, t->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (dfd < 0)
		return OTP_EIO;
	fd = openat(dfd, t->file, O_WRONLY | O_CREAT | O_NOFOLLOW |
	    O_NONBLOCK | O_CLOEXEC, 0600);
	if (fd < 0)
		return sys_close_keep(dfd, OTP_EIO);
	/* Over the old count, then cut: a crash leaves one or the other. */
	if (pwrite(fd, buf, (size_t)n, 0) != n || ftruncate(fd, n) != 0 ||
	    fsync(fd) != 0)
		ret = OTP_EIO;
	(void)sys_close_keep(fd, 0);
	/* A new file (or directory) is there after a crash too. */
	if (ret == 0 && !t->there && fsync(dfd) != 0)
		ret = OTP_EIO;
	(void)sys_close_keep(dfd, 0);
	if (ret == 0 && made)
		(void)fsync(dirfd);
	otp_wipe(buf, sizeof(buf));
	return ret;
}

/* No wrong code to remember: the file goes, and the directory when it is
 * empty (another user's file keeps it); unless it holds an answer still
 * lingering at now. */
static void
tally_remove(int dirfd, struct tally *t, int64_t now)
{
	int dfd;

	(void)otp_linger_prune(t->recs, &t->nrecs, now);
	if (t->nrecs > 0) {
		(void)tally_write(dirfd, t, 0, 0);
		return;
	}
	if (!t->there)
		return;
	dfd = openat(dirfd, t->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (dfd < 0)
		return;
	(void)unlinkat(dfd, t->file, 0);
	(void)close(dfd);
	(void)unlinkat(dirfd, t->dir, AT_REMOVEDIR);
}

/* A new file holding t's line alone (nothing at name yet). */
static int
create_new(int dirfd, const char *name, const struct job *j)
{
	char *out;
	size_t outlen = 0;
	int ret;

	/* The link in sys_commit refuses to clobber one made meanwhile. */
	if ((out = malloc(OTP_USERS_LINE_MAX)) == NULL)
		return OTP_ENOMEM;
	ret = otp_users_set("", 0, j->token, j->replace, out,
	    OTP_USERS_LINE_MAX, &outlen);
	if (ret == 0)
		ret = write_image(dirfd, name, NULL, out, outlen, 0);
	if (ret == OTP_ESTATEEXIST)
		ret = OTP_ESTATECHANGED;
	otp_wipe(out, OTP_USERS_LINE_MAX);
	free(out);
	return ret;
}

/* Put the job's token in the file open on fd: the whole image edited. */
static int
set_token(int dirfd, const char *name, int fd, const struct stat *st,
    const struct job *j)
{
	char *in = NULL, *out = NULL;
	size_t inlen = (size_t)st->st_size, outsz = inlen + OTP_USERS_LINE_MAX;
	size_t outlen = 0;
	int ret;

	if ((in = malloc(inlen + 1)) == NULL ||
	    (out = malloc(outsz)) == NULL)
		ret = OTP_ENOMEM;
	else if ((ret = sys_read_exact(fd, in, inlen)) == 0 &&
	    (ret = otp_users_set(in, inlen, j->token, j->replace, out, outsz,
	    &outlen)) == 0)
		ret = write_image(dirfd, name, st, out, outlen, 1);
	if (in != NULL)
		otp_wipe(in, inlen);
	if (out != NULL)
		otp_wipe(out, outsz);
	free(in);
	free(out);
	return ret;
}

/* The clock linger judges with: the login's, or the real one. */
static int64_t
linger_now(const struct job *j)
{
	return j->now != SYS_NOW_REAL ? j->now : (int64_t)time(NULL);
}

/* A login's look at one of the user's lines (linger_look). */
struct look {
	struct tally		*t;
	const struct job	*j;
	int64_t			 now;
	int			 changed;
};

static int
look_line(void *arg, const struct otp_users_token *tok)
{
	struct look *lk = arg;
	struct otp_linger_who w = { lk->j->user, lk->j->client, tok->key.buf,
	    tok->key.len, tok->password };
	size_t rest;
	int changed;

	if (otp_linger_take(lk->t->recs, &lk->t->nrecs, &w, lk->j->answer,
	    lk->now, lk->j->lingers, &rest, &changed) < 0)
		return 0;
	lk->changed |= changed;
	return 1;
}

/* The job's answer lingering in t, made by one of the user's lines in
 * the file read through pc (a pass only while t holds a live record):
 * accepted (j->r), its expiry slid and the tally written when it moved
 * (not when dry); 1, 0 for none (pc back at the start), or OTP_E*. */
static int
linger_look(int dirfd, struct tally *t, const struct job *j,
    struct pieces *pc)
{
	struct look lk = { t, j, linger_now(j), 0 };
	const char *p;
	size_t len;
	off_t at;
	int ret;

	lk.changed = otp_linger_prune(t->recs, &t->nrecs, lk.now);
	if (t->nrecs == 0)
		return 0;
	while ((ret = pieces_next(pc, &p, &len, &at)) == 1 &&
	    (ret = otp_users_each_token(p, len, j->user, look_line,
	    &lk)) == 0)
		;
	if (ret <= 0) {
		pieces_rewind(pc);
		return ret;
	}
	j->r->accepted = 1;
	j->r->lingered = 1;
	j->r->why = OTP_USERS_WHY_NONE;
	if (j->dry || !lk.changed)
		return 1;
	return tally_write(dirfd, t, t->fails, t->since) < 0 ? OTP_EIO : 1;
}

/* A record in t for the answer an accept took with the users file line
 * line[0..len) (the line as written), bound to its secret and PASSWORD
 * (written by the caller). */
static int
linger_keep(struct tally *t, const struct job *j, const char *line,
    size_t len)
{
	struct otp_users_token tok;
	struct otp_linger_who w = { j->user, j->client, NULL, 0, NULL };
	uint8_t salt[OTP_LINGER_SALTLEN];
	int ret;

	if ((ret = otp_users_line_parse(line, len, &tok)) != 1)
		return ret < 0 ? ret : OTP_EINVAL;
	w.key = tok.key.buf;
	w.keylen = tok.key.len;
	w.bind = tok.password;
	if ((ret = sys_random_bytes(salt, sizeof(salt))) == 0)
		otp_linger_put(t->recs, &t->nrecs, salt, &w, j->answer,
		    strlen(j->password), linger_now(j), j->lingers);
	otp_wipe(salt, sizeof(salt));
	otp_wipe(&tok, sizeof(tok));
	return ret < 0 ? ret : 0;
}

/* Check the job's code against the file open on fd, read in pieces; an
 * accept recorded unless dry, the user's tally kept. */
static int
check_code(int dirfd, const char *name, int fd, const struct stat *st,
    const struct job *j)
{
	struct otp_users_scan *s;
	struct otp_users_result *r = j->r;
	struct pieces pc;
	struct tally t;
	const char *p;
	size_t len;
	off_t at = 0;
	long long now;
	unsigned long fails = 0;
	int ret;

	memset(r, 0, sizeof(*r));
	memset(&t, 0, sizeof(t));
	now = (long long)time(NULL);
	if ((j->deny != 0 || j->lingers != 0) &&
	    (ret = tally_read(dirfd, name, j->user, &t)) < 0)
		return ret;
	if (j->deny != 0) {
		fails = t.fails;
		if (fails >= j->deny && now >= t.since &&
		    now - t.since < j->unlock) {
			r->why = OTP_USERS_WHY_LOCKED;
			return 0;
		}
		if (fails >= j->deny)
			fails = 0;	/* the lock-out is over: afresh */
	}
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return OTP_ENOMEM;
	if ((ret = pieces_open(&pc, fd, st->st_size)) < 0) {
		free(s);
		return ret;
	}
	if (j->lingers != 0 && (ret = linger_look(dirfd, &t, j, &pc)) != 0) {
		pieces_close(&pc);
		free(s);
		return ret < 0 ? ret : 0;
	}
	/* The clock is read with the file locked, so that logins that waited
	 * for each other judge in the order they wrote. */
	if (j->now != SYS_NOW_REAL)
		now = j->now;
	while (!s->done && (ret = pieces_next(&pc, &p, &len, &at)) == 1 &&
	    (ret = otp_users_scan(s, p, len, j->user, j->password, j->code,
	    now, sys_zone_local(), j->window, r)) == 0)
		;
	if (ret == 0)
		otp_users_scan_end(s, r);
	if (ret < 0)
		r->accepted = 0;
	else if (r->accepted && !j->dry) {
		ret = write_spliced(dirfd, name, fd, st, at + (off_t)s->start,
		    at + (off_t)s->next, s->line, s->linelen, &pc);
		if (ret < 0)
			r->accepted = 0;	/* unrecorded: replayable */
		else if (j->linger)
			linger(fd);
	}
	if (ret >= 0 && !j->dry && r->accepted && j->lingers != 0)
		ret = linger_keep(&t, j, s->line, s->linelen);
	pieces_close(&pc);
	otp_wipe(s, sizeof(*s));
	free(s);
	if (ret < 0 || j->dry)
		return ret;
	if (j->deny == 0 && t.nrecs == 0)
		return 0;
	if (!r->accepted && (r->why == OTP_USERS_WHY_WRONG ||
	    r->why == OTP_USERS_WHY_PASSWORD))
		/* A guess: counted before the refusal is told. */
		return j->deny == 0 ? 0 : tally_write(dirfd, &t, fails + 1,
		    (long long)time(NULL));
	if (r->accepted || r->why == OTP_USERS_WHY_UNKNOWN)
		tally_remove(dirfd, &t, linger_now(j));
	return 0;
}

static int
cycle(int dirfd, const char *name, struct job *j)
{
	struct stat st, again;
	int fd, lfd = -1, ret, e;

	if ((ret = sys_open_vetted(dirfd, name, check_stat, &j->group_read, 1,
	    OTP_EUSERSTYPE, &fd, &st)) < 0) {
		if (ret == OTP_EIO && errno == ENOENT && j->token != NULL)
			return create_new(dirfd, name, j);
		return ret;
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
	if (j->token != NULL)
		ret = set_token(dirfd, name, fd, &st, j);
	else if (j->r == NULL)
		ret = OTP_EINVAL;
	else
		ret = check_code(dirfd, name, fd, &st, j);
out:
	e = errno;
	drop_foreign(dirfd, name, lfd);
	(void)close(fd);	/* drops the flock */
	errno = e;
	return ret;
}

static int
run(const char *path, struct job *j)
{
	char name[NAME_MAX + 1];
	int dirfd, ret = OTP_ESTATECHANGED, i, e;

	if ((ret = sys_dir_open(path, &dirfd, name, sizeof(name))) < 0)
		return ret;
	ret = OTP_ESTATECHANGED;
	for (i = 0; i < RETRIES && ret == OTP_ESTATECHANGED; i++)
		ret = cycle(dirfd, name, j);
	e = errno;
	(void)close(dirfd);
	errno = e;
	return ret;
}

int
sys_users_check(const char *path, const struct sys_store_cfg *c,
    const char *user, const char *answer, const char *password,
    const char *code, struct otp_users_result *r)
{
	struct job j = { .user = user, .answer = answer, .password = password,
	    .code = code, .client = c->ga.rhost, .now = c->now,
	    .window = c->window, .dry = c->dry, .group_read = c->group_read,
	    .linger = !c->unshared, .r = r };
	struct otp_linger_who w = { user, c->ga.rhost, NULL, 0, NULL };

	if (c->ga.linger != 0 && otp_linger_applies(&w))
		j.lingers = c->ga.linger;

	if (c->deny >= 0) {
		j.deny = c->deny != 0 ? (unsigned long)c->deny :
		    SYS_USERS_DENY;
		j.unlock = c->unlock_time != 0 ? c->unlock_time :
		    SYS_USERS_UNLOCK;
	}
	memset(r, 0, sizeof(*r));
	return run(path, &j);
}

int
sys_users_set(const char *path, const struct otp_users_token *t, int replace)
{
	struct job j = { .group_read = 1, .linger = 1, .token = t,
	    .replace = replace };

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
sys_users_each(const char *path, int group_read, otp_users_each_fn *fn,
    void *arg)
{
	char *in;
	size_t len;
	int ret;

	if ((ret = read_whole(path, group_read, &in, &len)) != 0)
		return ret;
	ret = otp_users_each(in, len, fn, arg);
	otp_wipe(in, len);
	free(in);
	return ret;
}

/* Whether user has a token line: the file read in pieces without a lock
 * (it is only ever replaced by a rename), the first line found enough. */
int
sys_users_has_user(const char *path, const char *user, int group_read)
{
	char name[NAME_MAX + 1];
	struct pieces pc;
	struct stat st;
	const char *p;
	size_t len;
	off_t at;
	int dirfd, fd, ret, i;

	if ((ret = sys_dir_open(path, &dirfd, name, sizeof(name))) < 0)
		return ret;
	for (i = 0; i < RETRIES; i++) {
		ret = sys_open_vetted(dirfd, name, check_stat, &group_read, 0,
		    OTP_EUSERSTYPE, &fd, &st);
		if (ret < 0)
			break;
		if ((ret = pieces_open(&pc, fd, st.st_size)) == 0) {
			while ((ret = pieces_next(&pc, &p, &len, &at)) == 1 &&
			    (ret = otp_users_has_user(p, len, user)) == 0)
				;
			pieces_close(&pc);
		}
		(void)sys_close_keep(fd, 0);
		if (ret != OTP_ESTATECHANGED)
			break;
	}
	return sys_close_keep(dirfd, ret);
}

/*
 * statefile.c - the state file on disk and the login protocol over it.
 *
 * A login is at most two lock-and-read cycles: its start (grace period
 * and RATE_LIMIT, before any prompt) and its end (every answer's
 * readings, at most one HOTP counter move, one write).  Each cycle opens
 * the file without following symlinks, checks type, owner, mode and size,
 * takes a flock against our own concurrent runs, reads the clock (after
 * the lock: a run that waited must not judge with an older time), runs
 * the pure engine (lib/state.c) and writes any change atomically
 * (atomic.c), keeping the file's owner and group.
 *
 * pam_google_authenticator.so takes no lock.  It reads the file, checks,
 * writes FILE~XXXXXX, fsyncs it and renames it over the file.  Before our
 * rename we look for such an in-flight file and, while one is there, wait
 * for it and start over on what it wrote; and we give up when the file
 * is no longer the one we read.  See otp-state(5) for what remains.
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "otp.h"
#include "otp_state.h"
#include "store_int.h"

#define RETRIES		20	/* replaced or changed underneath: again */
#define FOREIGN_WAIT_MS	3000	/* longest wait for the original's rename */
#define FOREIGN_AGE	10	/* seconds after which its file is stale */

struct sys_ga {
	int			 dirfd;
	char			 name[NAME_MAX + 1];
	struct otp_state_opts	 o;
	int64_t			 now;		/* or SYS_NOW_REAL */
	int			 dry;
	int			 err;		/* errno of the last failure */
	size_t			 fault_line;	/* a malformed file: where */
	const char		*fault_opt;
	unsigned		 cycles;
	const char *const	*resync;	/* sys_ga_resync's codes */
	size_t			 nresync;
	int64_t			 moved;		/* and what they moved */
	size_t			 seenlen;	/* the image begin left */
	char			 seen[OTP_STATE_MAX];
	char			 in[OTP_STATE_MAX];
	char			 out[OTP_STATE_OUTMAX];
};

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
check_stat(const struct stat *st, const void *arg)
{
	const struct otp_state_opts *o = arg;

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

/* Read exactly size bytes; a file that grew or shrank meanwhile is
 * OTP_ESTATECHANGED.  NUL bytes are the engine's to refuse. */
struct foreign {
	const char	*name;
	time_t		 now;
};

/* Is ent the original module's in-flight file for name: NAME~ and six
 * letters or digits (mkstemp's), modified in the last FOREIGN_AGE s? */
static int
foreign_entry(const void *arg, int dirfd, const char *ent)
{
	const struct foreign *fo = arg;
	struct stat st;
	size_t n = strlen(fo->name), i;

	if (strncmp(ent, fo->name, n) != 0 || ent[n] != '~' ||
	    strlen(ent + n + 1) != 6)
		return 0;
	for (i = n + 1; ent[i] != '\0'; i++)
		if (!((ent[i] >= 'A' && ent[i] <= 'Z') ||
		    (ent[i] >= 'a' && ent[i] <= 'z') ||
		    (ent[i] >= '0' && ent[i] <= '9')))
			return 0;
	if (fstatat(dirfd, ent, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
	    !S_ISREG(st.st_mode))
		return 0;
	return st.st_mtim.tv_sec > fo->now - FOREIGN_AGE &&
	    st.st_mtim.tv_sec < fo->now + FOREIGN_AGE;
}

/* 1 when the directory holds an in-flight file of the original's. */
static int
foreign_present(int dirfd, const char *name)
{
	struct foreign fo;

	fo.name = name;
	fo.now = time(NULL);
	return sys_dir_each(dirfd, foreign_entry, &fo);
}

/* Wait while the original module is between its check and its rename.
 * 0: none was there; OTP_ESTATECHANGED: one was, and is gone (start over
 * on what it wrote); OTP_EBUSY: still there after FOREIGN_WAIT_MS. */
static int
foreign_wait(int dirfd, const char *name)
{
	struct timespec ts = { 0, 2000000 };
	int waited;

	if (!foreign_present(dirfd, name))
		return 0;
	for (waited = 0; waited < FOREIGN_WAIT_MS; waited += 2) {
		(void)nanosleep(&ts, NULL);
		if (!foreign_present(dirfd, name))
			return OTP_ESTATECHANGED;
	}
	return OTP_EBUSY;
}

/* Replace the file by the image, keeping its owner and group, unless the
 * original module is writing it or has written it since we read it. */
static int
write_image(struct sys_ga *l, const struct stat *st,
    const struct seen *seen, const char *img, size_t len)
{
	struct sys_file f;
	struct stat again;
	int r;

	if ((r = sys_stage(&f, l->dirfd, l->name, 0400)) != 0)
		return r;
	if ((r = sys_stage_owner(&f, (unsigned long)st->st_uid,
	    (unsigned long)st->st_gid)) != 0 ||
	    (r = sys_stage_write(&f, img, len)) != 0 ||
	    (r = sys_stage_sync(&f)) != 0)
		goto discard;
	/* The last look, just before the rename. */
	if ((r = foreign_wait(l->dirfd, l->name)) != 0)
		goto discard;
	if (fstatat(l->dirfd, l->name, &again, AT_SYMLINK_NOFOLLOW) != 0 ||
	    !seen_same(seen, &again)) {
		r = OTP_ESTATECHANGED;
		goto discard;
	}
	return sys_commit(&f, 1);
discard:
	sys_discard(&f);
	return r;
}

/* One locked read-check-write cycle.  OTP_ESTATECHANGED asks for
 * another. */
static int
cycle(struct sys_ga *l, unsigned phases, const struct otp_answer *a,
    size_t n, struct otp_state_result *r)
{
	struct stat st;
	struct seen seen;
	size_t inlen, outlen = 0, len;
	int64_t now;
	int fd, ret, e;

	if ((ret = sys_open_vetted(l->dirfd, l->name, check_stat, &l->o, 1,
	    OTP_ESTATETYPE, &fd, &st)) < 0)
		return ret;
	l->cycles++;
	inlen = (size_t)st.st_size;
	seen_set(&seen, &st);
	if ((ret = sys_read_exact(fd, l->in, inlen)) < 0)
		goto out;
	/* The clock is read with the file locked, so that runs that waited
	 * for each other judge in the order they wrote. */
	now = l->now == SYS_NOW_REAL ? (int64_t)time(NULL) : l->now;
	/* A new linger record's salt, fresh for each cycle. */
	if ((phases & OTP_LOGIN_LINGER) && otp_state_lingers(&l->o) &&
	    (ret = sys_random_bytes(l->o.linger_salt,
	    sizeof(l->o.linger_salt))) < 0)
		goto out;
	if (l->nresync > 0) {
		ret = otp_state_resync(l->in, inlen, l->resync, l->nresync,
		    now, l->out, sizeof(l->out), &outlen, &l->moved);
		r->changed = r->accepted = ret == 0;
	} else
		ret = otp_state_login(l->in, inlen, phases, a, n, now, &l->o,
		    r, l->out, sizeof(l->out), &outlen);
	if (ret < 0) {
		/* Placed now, while the image is at hand. */
		(void)otp_state_fault(l->in, inlen, &l->fault_line,
		    &l->fault_opt);
		goto out;
	}
	if (r->changed && !l->dry) {
		ret = write_image(l, &st, &seen, l->out, outlen);
		if (ret == OTP_ESTATECHANGED)
			goto out;
		if (ret < 0) {
			/* Read-only directory, full disk...: an accept we
			 * cannot record could be replayed, so it is refused
			 * unless allow_readonly. */
			l->err = errno;
			if (ret == OTP_EBUSY)
				l->err = EBUSY;
			ret = (l->o.flags & OTP_STATE_ALLOWRO) ? 0 :
			    OTP_EREADONLY;
			if (ret != 0)
				r->accepted = 0;
			goto keep;
		}
		r->recorded = 1;
	}
keep:
	/* What a later peek looks at: the file as this cycle left it.  A
	 * shorter one leaves no tail of the last (sys_ga_free wipes only
	 * seenlen). */
	len = r->recorded ? outlen : inlen;
	if (l->seenlen > len)
		otp_wipe(l->seen + len, l->seenlen - len);
	l->seenlen = len;
	memcpy(l->seen, r->recorded ? l->out : l->in, len);
out:
	e = errno;
	otp_wipe(l->in, inlen);
	otp_wipe(l->out, outlen);
	(void)close(fd);	/* drops the lock */
	errno = e;
	return ret;
}

static int
run(struct sys_ga *l, unsigned phases, const struct otp_answer *a,
    size_t n, struct otp_state_result *r)
{
	int ret = OTP_ESTATECHANGED, i;

	memset(r, 0, sizeof(*r));
	if (l->dirfd < 0) {
		errno = l->err;
		return OTP_EIO;
	}
	for (i = 0; i < RETRIES && ret == OTP_ESTATECHANGED; i++) {
		memset(r, 0, sizeof(*r));
		errno = 0;
		ret = cycle(l, phases, a, n, r);
		if (ret == OTP_EIO || ret == OTP_ELOCK)
			l->err = errno;
	}
	if (ret < 0 && ret != OTP_EREADONLY)
		memset(r, 0, sizeof(*r));
	return ret;
}

struct sys_ga *
sys_ga_new(const char *path, const struct otp_state_opts *o, int64_t now)
{
	struct sys_ga *l;
	int e;

	/* Not calloc: zeroing seen, in and out (256 KiB, for an image of
	 * some hundred bytes) was most of a login's instructions; nothing
	 * reads them past what a cycle wrote. */
	if ((l = malloc(sizeof(*l))) == NULL)
		return NULL;
	memset(l, 0, offsetof(struct sys_ga, seen));
	l->o = *o;
	if (l->o.uid == OTP_STATE_UID_SELF)
		l->o.uid = (unsigned long)geteuid();
	l->now = now;
	if (sys_dir_open(path, &l->dirfd, l->name, sizeof(l->name)) != 0) {
		e = errno;
		l->dirfd = -1;
		l->err = e;
	}
	return l;
}

void
sys_ga_dry(struct sys_ga *l)
{
	l->dry = 1;
}

/* With linger the start is the grace period only: RATE_LIMIT waits for
 * the end, after the answers were looked up among the lingering ones. */
int
sys_ga_begin(struct sys_ga *l, struct otp_state_result *r)
{
	return run(l, otp_state_lingers(&l->o) ? OTP_LOGIN_GRACE :
	    OTP_LOGIN_OPEN, NULL, 0, r);
}

int
sys_ga_peek(struct sys_ga *l, const struct otp_answer *a, size_t n,
    struct otp_state_result *r)
{
	size_t outlen = 0;
	int64_t now;
	int ret;

	memset(r, 0, sizeof(*r));
	if (l->seenlen == 0)
		return OTP_EINVAL;	/* no cycle has read the file */
	now = l->now == SYS_NOW_REAL ? (int64_t)time(NULL) : l->now;
	ret = otp_state_login(l->seen, l->seenlen, OTP_LOGIN_LINGER, a, n,
	    now, &l->o, r, l->out, sizeof(l->out), &outlen);
	otp_wipe(l->out, outlen);
	return ret;
}

int
sys_ga_end(struct sys_ga *l, const struct otp_answer *a, size_t n,
    struct otp_state_result *r)
{
	return run(l, OTP_LOGIN_LINGER | OTP_LOGIN_SETTLE, a, n, r);
}

int
sys_ga_check(struct sys_ga *l, const struct otp_answer *a, size_t n,
    struct otp_state_result *r)
{
	return run(l, OTP_LOGIN_OPEN | OTP_LOGIN_LINGER | OTP_LOGIN_SETTLE,
	    a, n, r);
}

int
sys_ga_resync(struct sys_ga *l, const char *const *codes, size_t n,
    int64_t *moved)
{
	struct otp_state_result r;
	int ret;

	if (n == 0)
		return OTP_EINVAL;
	l->resync = codes;
	l->nresync = n;
	ret = run(l, 0, NULL, 0, &r);
	l->nresync = 0;
	*moved = l->moved;
	if (ret == 0 && !r.recorded)
		ret = l->dry ? 0 : OTP_EREADONLY;
	return ret;
}

int
sys_ga_errno(const struct sys_ga *l)
{
	return l->err;
}

void
sys_ga_fault(const struct sys_ga *l, size_t *line, const char **opt)
{
	*line = l->fault_line;
	*opt = l->fault_opt;
}

unsigned
sys_ga_cycles(const struct sys_ga *l)
{
	return l->cycles;
}

void
sys_ga_free(struct sys_ga *l)
{
	if (l == NULL)
		return;
	if (l->dirfd >= 0)
		(void)close(l->dirfd);
	/* in and out were wiped as far as each cycle used them; wiping all
	 * 256 KiB at every login would cost what not zeroing them saves. */
	otp_wipe(l->seen, l->seenlen);
	otp_wipe(l, offsetof(struct sys_ga, seen));
	free(l);
}

int
sys_statefile_read(const char *path, const struct otp_state_opts *o,
    char *img, size_t imgsz, size_t *len)
{
	struct otp_state_opts oo = *o;
	char name[NAME_MAX + 1];
	struct stat sb;
	int dirfd, fd, ret, i;

	*len = 0;
	if (imgsz < OTP_STATE_MAX)
		return OTP_ENOSPACE;
	if (oo.uid == OTP_STATE_UID_SELF)
		oo.uid = (unsigned long)geteuid();
	if ((ret = sys_dir_open(path, &dirfd, name, sizeof(name))) != 0)
		return ret;
	for (i = 0; i < RETRIES; i++) {
		if ((ret = sys_open_vetted(dirfd, name, check_stat, &oo, 0,
		    OTP_ESTATETYPE, &fd, &sb)) < 0)
			break;
		ret = sys_read_exact(fd, img, (size_t)sb.st_size);
		(void)close(fd);
		if (ret == 0)
			*len = (size_t)sb.st_size;
		if (ret != OTP_ESTATECHANGED)
			break;
		otp_wipe(img, (size_t)sb.st_size);
	}
	return sys_close_keep(dirfd, ret);
}

int
sys_statefile_load(const char *path, const struct otp_state_opts *o,
    struct otp_state *st)
{
	char in[OTP_STATE_MAX];
	size_t len = 0;
	int ret;

	memset(st, 0, sizeof(*st));
	if ((ret = sys_statefile_read(path, o, in, sizeof(in), &len)) == 0)
		ret = otp_state_parse(in, len, st);
	otp_wipe(in, len);
	return ret;
}

int
sys_statefile_create(const char *path, const char *img, size_t len,
    int force)
{
	if (len < 1 || len > OTP_STATE_MAX)
		return OTP_ESTATESIZE;
	return sys_create(path, img, len, 0400, force, OTP_ESTATETYPE);
}

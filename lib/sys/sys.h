/*
 * sys.h - the system floor of otp-utils: everything that touches the
 * operating system on behalf of the pure core (lib/otp.h) and the tools.
 *
 * Conventions as in otp.h: 0 (or a count) on success, a negative OTP_E*
 * code on failure, errno kept for OTP_EIO.  Functions here may make
 * system calls but never print, exit or change process-wide state (the
 * umask, ids, signals): pam_otp.so runs them in threaded hosts.
 */
#ifndef OTP_SYS_H
#define OTP_SYS_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "otp.h"
#include "otp_pskc.h"
#include "otp_uri.h"

/* ---- randomness (lib/sys/random.c) ----------------------------------- */

/* n bytes from the kernel's generator (getrandom(2)); OTP_EIO with errno
 * when it fails, never a weaker source. */
int sys_random_bytes(void *buf, size_t n);
/* A new random key of n bytes (OTP_KEYGEN_MIN..OTP_KEYGEN_MAX). */
int sys_keygen(struct otp_key *key, size_t n);
/* n distinct scratch codes from the kernel's generator. */
int sys_scratch_codes(uint32_t *codes, size_t n);
/* An otp_word_fn over the kernel's generator (arg unused). */
int sys_random_word(void *arg, uint32_t *word);

/* ---- secret files (lib/sys/secfile.c) -------------------------------- */

struct stat;
/* A file's rules: 0, or the OTP_E* that refuses it. */
typedef int sys_vet_fn(const struct stat *st, const void *arg);
/* Open name in dirfd for reading: no symlink (linkerr), no FIFO block,
 * vet(st, arg) before use; with lock, flocked on the file the name is now
 * and vetted again.  *fdp, *st; OTP_EIO, OTP_ELOCK, OTP_ESTATECHANGED. */
int sys_open_vetted(int dirfd, const char *name, sys_vet_fn *vet,
    const void *arg, int lock, int linkerr, int *fdp, struct stat *st);
/* Exactly size bytes of fd, then its end; OTP_ESTATECHANGED if it is
 * shorter or longer (changed since fstat), OTP_EIO with errno. */
int sys_read_exact(int fd, char *buf, size_t size);
/* close(fd) keeping errno; returns rc. */
int sys_close_keep(int fd, int rc);
/* Why path's owner was refused, into out: "owned by alice (uid 1000),
 * not root (uid 0)" (want: the owner expected).  0, OTP_EIO (errno),
 * OTP_ENOSPACE.  For a message only: the file may have changed since. */
int sys_owner_text(const char *path, unsigned long want, char *out,
    size_t size);

/* ---- key and line input (lib/sys/input.c) ---------------------------- */

/* The text of a key argument into out: arg itself, one line of fd for
 * NULL or "-", one line of FILE for "@FILE" ("@~/" is $HOME's); no more
 * than the line is consumed, one trailing "\n" or "\r\n" removed.
 * OTP_EEMPTY for no line, OTP_ETOOLONG, OTP_ENUL, OTP_EIO with errno. */
int sys_key_read(const char *arg, int fd, char *out, size_t outsz);

/* Every line of a descriptor, read through our own buffer. */
struct sys_lines {
	int		fd;
	int		eof;		/* the descriptor said end of input */
	int		bad;		/* the rest of a bad line to skip */
	size_t		chunk;		/* bytes per read(2) */
	size_t		left;		/* bytes that may still be read */
	size_t		pos, len;
	unsigned char	buf[4096];
};
void sys_lines_init(struct sys_lines *l, int fd);
/* The next line into out (as sys_key_read); OTP_EEMPTY at the end.  The
 * rest of a bad line (OTP_ETOOLONG, OTP_ENUL) is skipped by the next call. */
int sys_lines_next(struct sys_lines *l, char *out, size_t outsz);
/* Wipe the buffer. */
void sys_lines_wipe(struct sys_lines *l);

/* ---- atomic files (lib/sys/atomic.c) ---------------------------------- */

/* A file being staged beside its target, to be committed or discarded. */
struct sys_file {
	int		dirfd;			/* the target's directory */
	char		name[NAME_MAX + 1];	/* the target's name in it */
	char		tmp[NAME_MAX + 1];	/* staged name, "" unnamed */
	int		fd;			/* the staged file */
	unsigned	mode;
	int		synced;			/* on disk since the last write */
};

/* Open the directory of path once (*dirfd) and copy its last component
 * into name; OTP_EIO with errno (EISDIR for a path without a name). */
int sys_dir_open(const char *path, int *dirfd, char *name, size_t namesz);
/* Stage a new file for name in dirfd with exactly mode (no umask). */
int sys_stage(struct sys_file *f, int dirfd, const char *name, unsigned mode);
/* Make the staged file's owner and group uid and gid. */
int sys_stage_owner(struct sys_file *f, unsigned long uid, unsigned long gid);
/* Append n bytes to the staged file. */
int sys_stage_write(struct sys_file *f, const void *buf, size_t n);
/* fsync it now, so that a commit after a last look is quick. */
int sys_stage_sync(struct sys_file *f);
/* fsync it (unless synced), put it in place over the target (replace) or
 * where none is (else OTP_ESTATEEXIST), fsync the directory; on failure
 * the staged file is discarded. */
int sys_commit(struct sys_file *f, int replace);
/* Remove the staged file. */
void sys_discard(struct sys_file *f);
/* Write a whole new file at path with mode: none may be there unless
 * force, and force replaces only a file or a symlink (else typeerr,
 * never a device, a FIFO or a directory). */
int sys_create(const char *path, const void *img, size_t len,
    unsigned mode, int force, int typeerr);
/* fn(arg, dirfd, entry) for each entry of dirfd until one returns
 * non-zero, which is returned (0 also when the directory cannot be read). */
int sys_dir_each(int dirfd,
    int (*fn)(const void *arg, int dirfd, const char *ent), const void *arg);
/* Remove name's temporary files that killed runs of ours left in dirfd
 * (no run holds their lock); sys_commit does it every time. */
void sys_sweep(int dirfd, const char *name);

/* ---- the local time zone (lib/sys/tz.c) ------------------------------ */

/* The zone TZ names (else /etc/localtime) as localtime_r() reads it, read
 * afresh by each call, for otp_time_parse(). */
const struct otp_zone *sys_zone_local(void);

/* ---- RADIUS requests (lib/sys/radius.c) ----------------------------- */

/* The attribute rlm_exec put in the environment variable var, unquoted
 * into out (otp_radius_value); its length, or OTP_EEMPTY when unset. */
int sys_radius_attr(const char *var, char *out, size_t outsz);

/* ---- PSKC containers, RFC 6030 (lib/sys/pskcxml.c, libxml2) --------- */

/* All of the file at path (NULL or "-": standard input) into buf (bufsz
 * > OTP_PSKC_MAX), *len its length; OTP_EPSKCSIZE, OTP_EIO with errno. */
int sys_pskc_read(const char *path, char *buf, size_t bufsz, size_t *len);

/* Called per Key in document order with the container's protection d;
 * the texts are wiped after the call.  Non-zero stops the walk. */
typedef int sys_pskc_fn(void *arg, const struct otp_pskc_doc *d,
    const struct otp_pskc_keytext *k);
/* Parse the container buf[0..len) (no DTD, no entity, no network) and
 * call fn per Key; OTP_EPSKC* or fn's code, *line where (0 unknown). */
int sys_pskc_parse(const char *buf, size_t len, sys_pskc_fn *fn, void *arg,
    size_t *line);

/* How an export is protected: plain (both NULL), a pre-shared key of
 * 16, 24 or 32 bytes, or a password (PBKDF2, a fresh 16-byte salt). */
struct sys_pskc_out {
	const uint8_t	*key;
	size_t		 keylen;
	const char	*keyname;	/* ds:KeyName, NULL: "Pre-shared-key" */
	const char	*password;
	size_t		 passwordlen;
	unsigned long	 iterations;	/* PBKDF2 count */
};
/* Receives the finished document; returns 0 or an OTP_E* code. */
typedef int sys_pskc_emit(void *arg, const char *text, size_t n);
/* Write accounts u[0..n) as one container (fresh IVs, MAC key and
 * serials from the kernel's generator) and hand it to emit;
 * OTP_EPSKCSIZE for one past OTP_PSKC_MAX bytes, which nothing reads. */
int sys_pskc_write(const struct otp_uri *u, size_t n,
    const struct sys_pskc_out *o, sys_pskc_emit *emit, void *arg);

#endif /* OTP_SYS_H */

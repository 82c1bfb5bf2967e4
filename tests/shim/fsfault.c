/*
 * fsfault.c - an LD_PRELOAD shim for tests/state-races.bats: it makes the
 * system look like the odd ones a state file may live on, one fault per
 * environment variable.
 *
 *	SHIM_NOPROC=1		no /proc: linkat() from /proc/... is ENOENT
 *	SHIM_NOTMPFILE=1	no O_TMPFILE (NFS, CIFS, FUSE): EOPNOTSUPP
 *	SHIM_NOUMASK=1		umask() must never be called: it aborts
 *	SHIM_KILLRENAME=1	the process is killed at its first renameat()
 *	SHIM_FAILRENAME=1	renameat() fails with EROFS
 *	SHIM_SWAPDIR=D:OTHER	at the first fsync(), D is moved aside and
 *				replaced by a symlink to OTHER (a directory
 *				swapped in the path while root works)
 *	SHIM_NOSTDIO=1		reading standard input through stdio aborts:
 *				a secret must not sit in stdio's heap buffer
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int
on(const char *name)
{
	const char *v = getenv(name);

	return v != NULL && *v != '\0' && strcmp(v, "0") != 0;
}

#define REAL(name) \
	static __typeof__(name) *real_##name; \
	if (real_##name == NULL) \
		real_##name = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

int
linkat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
    int flags)
{
	REAL(linkat);
	if (on("SHIM_NOPROC") && strncmp(oldpath, "/proc/", 6) == 0) {
		errno = ENOENT;
		return -1;
	}
	return real_linkat(olddirfd, oldpath, newdirfd, newpath, flags);
}

static int
no_tmpfile(int flags)
{
	if (on("SHIM_NOTMPFILE") && (flags & O_TMPFILE) == O_TMPFILE) {
		errno = EOPNOTSUPP;
		return 1;
	}
	return 0;
}

int
open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	REAL(open);
	va_start(ap, flags);
	mode = (mode_t)va_arg(ap, int);
	va_end(ap);
	if (no_tmpfile(flags))
		return -1;
	return real_open(path, flags, mode);
}

int
openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	REAL(openat);
	va_start(ap, flags);
	mode = (mode_t)va_arg(ap, int);
	va_end(ap);
	if (no_tmpfile(flags))
		return -1;
	return real_openat(dirfd, path, flags, mode);
}

mode_t
umask(mode_t mask)
{
	REAL(umask);
	if (on("SHIM_NOUMASK")) {
		fprintf(stderr, "fsfault: umask(%03o) called\n", mask);
		abort();
	}
	return real_umask(mask);
}

int
renameat(int olddirfd, const char *oldpath, int newdirfd,
    const char *newpath)
{
	REAL(renameat);
	if (on("SHIM_KILLRENAME"))
		raise(SIGKILL);
	if (on("SHIM_FAILRENAME")) {
		errno = EROFS;
		return -1;
	}
	return real_renameat(olddirfd, oldpath, newdirfd, newpath);
}

int
rename(const char *oldpath, const char *newpath)
{
	REAL(rename);
	if (on("SHIM_KILLRENAME"))
		raise(SIGKILL);
	return real_rename(oldpath, newpath);
}

int
fsync(int fd)
{
	static int done;
	char *spec, *colon, aside[4096];
	const char *v = getenv("SHIM_SWAPDIR");

	REAL(fsync);
	if (v != NULL && !done && (spec = strdup(v)) != NULL) {
		done = 1;
		if ((colon = strchr(spec, ':')) != NULL) {
			*colon = '\0';
			snprintf(aside, sizeof(aside), "%s.aside", spec);
			if (rename(spec, aside) != 0 ||
			    symlink(colon + 1, spec) != 0)
				perror("fsfault: swap");
		}
		free(spec);
	}
	return real_fsync(fd);
}

static void
stdio_stdin(FILE *fp, const char *what)
{
	if (fp == stdin && on("SHIM_NOSTDIO")) {
		fprintf(stderr, "fsfault: %s on standard input\n", what);
		abort();
	}
}

int
getc(FILE *fp)
{
	REAL(getc);
	stdio_stdin(fp, "getc");
	return real_getc(fp);
}

int
_IO_getc(FILE *fp)
{
	REAL(_IO_getc);
	stdio_stdin(fp, "getc");
	return real__IO_getc(fp);
}

int
fgetc(FILE *fp)
{
	REAL(fgetc);
	stdio_stdin(fp, "fgetc");
	return real_fgetc(fp);
}

char *
fgets(char *s, int n, FILE *fp)
{
	REAL(fgets);
	stdio_stdin(fp, "fgets");
	return real_fgets(s, n, fp);
}

size_t
fread(void *p, size_t size, size_t n, FILE *fp)
{
	REAL(fread);
	stdio_stdin(fp, "fread");
	return real_fread(p, size, n, fp);
}

ssize_t
getdelim(char **line, size_t *n, int delim, FILE *fp)
{
	REAL(getdelim);
	stdio_stdin(fp, "getdelim");
	return real_getdelim(line, n, delim, fp);
}

ssize_t
getline(char **line, size_t *n, FILE *fp)
{
	REAL(getline);
	stdio_stdin(fp, "getline");
	return real_getline(line, n, fp);
}

/*
 * syslog-file.c - an LD_PRELOAD library for the real-host suites: every
 * syslog(3) line of the process (and of the processes it starts with the
 * same environment: sshd re-executes itself) is appended to the file
 * named by E2E_SYSLOG as
 *
 *	<priority> <ident>[<pid>]: <message>
 *
 * instead of going to /dev/log, which a container does not have and a
 * test could not read back for itself alone.  One write(2) per line on an
 * O_APPEND descriptor, so that processes and threads do not interleave.
 * The file name is read when the library is loaded: sshd empties the
 * environment of the process that runs PAM.  The file must be writable by
 * whoever logs: a PAM module may log while it holds the user's
 * file-system ids.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

static char shim_ident[128] = "-";
static char shim_path[4096];

__attribute__((constructor)) static void
shim_init(void)
{
	const char *p = getenv("E2E_SYSLOG");

	if (p != NULL)
		snprintf(shim_path, sizeof(shim_path), "%s", p);
}

void	openlog(const char *, int, int);
void	closelog(void);
void	vsyslog(int, const char *, va_list);
void	syslog(int, const char *, ...);
void	__vsyslog_chk(int, int, const char *, va_list);
void	__syslog_chk(int, int, const char *, ...);

void
openlog(const char *ident, int option, int facility)
{
	(void)option;
	(void)facility;
	if (ident != NULL)
		snprintf(shim_ident, sizeof(shim_ident), "%s", ident);
}

void
closelog(void)
{
}

void
vsyslog(int priority, const char *fmt, va_list ap)
{
	char msg[2048], line[2304];
	int fd, n, saved = errno;

	if (shim_path[0] == '\0')
		return;
	/* %m needs errno as the caller left it. */
	errno = saved;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = snprintf(line, sizeof(line), "%d %s[%ld]: %s\n", LOG_PRI(priority),
	    shim_ident, (long)getpid(), msg);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line))
		n = (int)sizeof(line) - 1;
	fd = open(shim_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0) {
		(void)write(fd, line, (size_t)n);
		close(fd);
	}
	errno = saved;
}

void
syslog(int priority, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsyslog(priority, fmt, ap);
	va_end(ap);
}

void
__vsyslog_chk(int priority, int flag, const char *fmt, va_list ap)
{
	(void)flag;
	vsyslog(priority, fmt, ap);
}

void
__syslog_chk(int priority, int flag, const char *fmt, ...)
{
	va_list ap;

	(void)flag;
	va_start(ap, fmt);
	vsyslog(priority, fmt, ap);
	va_end(ap);
}

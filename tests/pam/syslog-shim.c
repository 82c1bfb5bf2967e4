/*
 * syslog-shim.c - an LD_PRELOAD library for the PAM tests: every syslog(3)
 * call is written to stderr as "SYSLOG <priority>: <ident>: <message>"
 * instead of going to /dev/log, which a container does not have.  Both
 * pam_otp.so (through libpam's pam_syslog) and pam_google_authenticator.so
 * (through vsyslog directly) become visible to the test, so a test can
 * assert what was logged and that no secret ever was.
 *
 * Built by tests/pam/lib.bash with cc -shared -fPIC into the test's
 * temporary directory.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

static char shim_ident[128] = "-";

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
	strcpy(shim_ident, "-");
}

void
vsyslog(int priority, const char *fmt, va_list ap)
{
	char msg[2048];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* One write per line so that concurrent processes do not interleave
	 * within a line. */
	fprintf(stderr, "SYSLOG %d: %s: %s\n", LOG_PRI(priority), shim_ident,
	    msg);
	fflush(stderr);
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

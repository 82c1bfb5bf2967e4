/*
 * unit.c - counting checks and reading vector files for the C tests.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otp.h"
#include "unit.h"

static unsigned long passed, failed;

void
unit_check(int ok, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		passed++;
		return;
	}
	failed++;
	fprintf(stderr, "FAIL %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int
unit_done(void)
{
	printf("%lu passed, %lu failed\n", passed, failed);
	return failed == 0 && passed > 0 ? 0 : 1;
}

static char *
trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

int
unit_vectors(const char *dir, const char *name,
    void (*fn)(const struct unit_line *, void *), void *arg)
{
	char path[4096], buf[65536];
	struct unit_line l;
	FILE *fp;
	int n = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fp = fopen(path, "r")) == NULL) {
		unit_check(0, path, 0, "cannot open vector file");
		return 0;
	}
	l.file = name;
	l.lineno = 0;
	while (fgets(buf, sizeof(buf), fp) != NULL) {
		char *p = trim(buf), *sep;

		l.lineno++;
		if (*p == '\0' || *p == '#')
			continue;
		l.nfields = 0;
		for (;;) {
			sep = strchr(p, '|');
			if (sep != NULL)
				*sep = '\0';
			if (l.nfields < UNIT_MAXFIELDS)
				l.field[l.nfields++] = trim(p);
			if (sep == NULL)
				break;
			p = sep + 1;
		}
		fn(&l, arg);
		n++;
	}
	fclose(fp);
	if (n == 0)
		unit_check(0, path, 0, "no cases in vector file");
	return n;
}

long
unit_unhex(const char *hex, uint8_t *buf, size_t size)
{
	size_t i, n = strlen(hex);

	if (n % 2 != 0 || n / 2 > size)
		return -1;
	for (i = 0; i < n / 2; i++) {
		unsigned v;

		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return -1;
		buf[i] = (uint8_t)v;
	}
	return (long)(n / 2);
}

/* Every OTP_E* code by its name without the prefix ("EHEX"). */
static const struct {
	const char	*name;
	int		 code;
} errcodes[] = {
#define UNIT_ERRCODE_(name, value, text)	{ #name, OTP_##name },
	OTP_ERRORS(UNIT_ERRCODE_)
#undef UNIT_ERRCODE_
};

int
unit_errcode(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(errcodes) / sizeof(errcodes[0]); i++)
		if (strcmp(name, errcodes[i].name) == 0)
			return errcodes[i].code;
	return 1;
}

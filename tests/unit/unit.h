/*
 * unit.h - the tiny harness every tests/unit/test-*.c program uses.
 *
 * A test program calls CHECK()/CHECK_EQ_STR()/CHECK_EQ_INT() as often as it
 * likes and returns unit_done() from main(), which prints
 * "N passed, N failed" and gives the exit status.  Vector files in
 * tests/vectors/ are read with unit_vectors(): one case a line, fields
 * separated by '|', surrounding blanks trimmed, '#' lines and blank lines
 * skipped.
 */
#ifndef UNIT_H
#define UNIT_H

#include <stddef.h>
#include <stdint.h>

#define UNIT_MAXFIELDS	16

struct unit_line {
	const char	*file;
	unsigned	 lineno;
	int		 nfields;
	char		*field[UNIT_MAXFIELDS];
};

/* Count a check; on failure print file:line and the message. */
void unit_check(int ok, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Print the totals; 0 when nothing failed and something ran, else 1. */
int unit_done(void);
/* Call fn for every case of DIR/NAME; returns the number of cases, and
 * counts a failure when the file cannot be read. */
int unit_vectors(const char *dir, const char *name,
    void (*fn)(const struct unit_line *, void *), void *arg);
/* The OTP_E* code a vector names ("EHEX"; any of otp.h's OTP_ERRORS), or
 * 1 when name is not one: vector files spell expected errors by name. */
int unit_errcode(const char *name);
/* Decode hex text into buf; returns the byte count or -1. */
long unit_unhex(const char *hex, uint8_t *buf, size_t size);

#define CHECK(cond, ...) \
	unit_check((cond) ? 1 : 0, __FILE__, __LINE__, __VA_ARGS__)
/* Each argument is evaluated once (a call with side effects is fine). */
#define CHECK_EQ_STR(got, want, what) do { \
	const char *unit_got_ = (got), *unit_want_ = (want); \
	unit_check(strcmp(unit_got_, unit_want_) == 0, __FILE__, __LINE__, \
	    "%s: got \"%s\", want \"%s\"", (what), unit_got_, unit_want_); \
} while (0)
#define CHECK_EQ_INT(got, want, what) do { \
	long long unit_got_ = (long long)(got), unit_want_ = (long long)(want); \
	unit_check(unit_got_ == unit_want_, __FILE__, __LINE__, \
	    "%s: got %lld, want %lld", (what), unit_got_, unit_want_); \
} while (0)

#endif /* UNIT_H */

/*
 * clocksync.c - an LD_PRELOAD shim for tests/otp-verify-interactive.bats:
 * the kernel's word on the system clock (adjtimex(2)) as the test wants
 * it, whatever the machine's NTP does.
 *
 *	SHIM_SYNC=yes	synchronised, estimated error 1 ms, at most 5 ms
 *	SHIM_SYNC=no	STA_UNSYNC: no NTP keeps the clock
 */
#define _GNU_SOURCE
#include <sys/timex.h>

#include <stdlib.h>
#include <string.h>

static int
fake(struct timex *tx)
{
	const char *v = getenv("SHIM_SYNC");

	memset(tx, 0, sizeof(*tx));
	if (v != NULL && strcmp(v, "yes") == 0) {
		tx->esterror = 1000;
		tx->maxerror = 5000;
		return TIME_OK;
	}
	tx->status = STA_UNSYNC;
	return TIME_ERROR;
}

int
ntp_adjtime(struct timex *tx)
{
	return fake(tx);
}

int
adjtimex(struct timex *tx)
{
	return fake(tx);
}

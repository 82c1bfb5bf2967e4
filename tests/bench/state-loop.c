/*
 * state-loop.c - the time of one state-mode check inside a process: lock,
 * read, verify, temporary file, fsync, rename, directory fsync, as
 * sys_ga_check does them for otp-verify --state.
 * Between checks (untimed) a fresh copy of the file is written and
 * synced, so that every check accepts and rewrites it and its fsyncs
 * flush only its own update.
 *
 * usage: state-loop DIR RUNS; prints the median and the 90th percentile.
 */
#include <err.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "otp.h"
#include "otp_state.h"
#include "store_int.h"
#include "sys.h"

/* RFC 6238's SHA1 key in Base32, DISALLOW_REUSE: every accept writes. */
static const char image[] = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ\n"
    "\" WINDOW_SIZE 3\n\" DISALLOW_REUSE\n\" TOTP_AUTH\n12345678\n";

static double
now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char *argv[])
{
	struct otp_state_opts o;
	struct otp_state_result r;
	struct otp_answer a;
	struct sys_ga *l;
	char path[4096];
	double *t, t0;
	int i, runs;

	if (argc != 3 || (runs = atoi(argv[2])) < 1)
		errx(2, "usage: state-loop DIR RUNS");
	if ((t = calloc((size_t)runs, sizeof(*t))) == NULL)
		err(2, "calloc");
	snprintf(path, sizeof(path), "%s/ga", argv[1]);
	otp_state_opts_init(&o);
	for (i = 0; i < runs; i++) {
		unlink(path);
		if (sys_statefile_create(path, image, sizeof(image) - 1, 0) != 0)
			errx(2, "%s: cannot create", path);
		sync();
		t0 = now_ms();
		/* 1700000000: the code of RFC 6238's key is 921300 then. */
		a.text = "921300";
		a.kind = OTP_ANSWER_CODE;
		if ((l = sys_ga_new(path, &o, 1700000000)) == NULL ||
		    sys_ga_check(l, &a, 1, &r) != 0 || !r.accepted ||
		    !r.recorded)
			errx(2, "%s: the check did not accept and record", path);
		t[i] = now_ms() - t0;
		sys_ga_free(l);
	}
	qsort(t, (size_t)runs, sizeof(*t), cmp);
	printf("%.3f %.3f\n", t[runs / 2], t[runs * 9 / 10]);
	free(t);
	return 0;
}

/*
 * parallel.c - work over a long run of counters spread over the CPUs this
 * process may run on.  The run is cut into contiguous shares, in order,
 * one per thread; a share's result goes where a serial pass would put it,
 * so nothing depends on the number of threads.  A thread that cannot be
 * started leaves its share to the caller's thread.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "otp.h"

/* A thread is worth starting for this many codes or more. */
#define SHARE_MIN	4096

unsigned
otp_threads(void)
{
	cpu_set_t set;
	const char *env;
	uint64_t v;
	int n;

	/* OTP_THREADS first (ignored in a set-id process, and when it is
	 * not a number from 1 to OTP_THREADS_MAX); then the CPUs this
	 * process may use (taskset, cgroup cpusets), not the machine's. */
	if ((env = secure_getenv("OTP_THREADS")) != NULL &&
	    otp_parse_u64(env, 1, OTP_THREADS_MAX, &v) == 0)
		return (unsigned)v;
	if (sched_getaffinity(0, sizeof(set), &set) != 0 ||
	    (n = CPU_COUNT(&set)) < 1)
		return 1;
	return n > OTP_THREADS_MAX ? OTP_THREADS_MAX : (unsigned)n;
}

unsigned
otp_job_split(struct otp_job *j, uint64_t first, uint64_t n,
    unsigned threads, otp_share_fn *fn, void *arg)
{
	uint64_t per, at;
	unsigned t;

	memset(j, 0, sizeof(*j));
	if (threads > OTP_THREADS_MAX)
		threads = OTP_THREADS_MAX;
	if (threads > n / SHARE_MIN)
		threads = (unsigned)(n / SHARE_MIN);
	if (threads < 1)
		threads = 1;
	j->fn = fn;
	j->arg = arg;
	j->nshares = threads;
	per = n / threads;	/* the last share takes the remainder */
	for (t = 0, at = 0; t < threads; t++, at += per) {
		j->share[t].job = j;
		j->share[t].index = t;
		j->share[t].first = first + at;
		j->share[t].n = t == threads - 1 ? n - at : per;
	}
	return threads;
}

static void *
share_main(void *arg)
{
	struct otp_job_share *s = arg;

	s->job->fn(s->job->arg, s->index, s->first, s->n);
	return NULL;
}

void
otp_job_run(struct otp_job *j, unsigned k)
{
	share_main(&j->share[k]);
}

void
otp_job_start(struct otp_job *j, unsigned from)
{
	unsigned t;

	for (t = from; t < j->nshares; t++) {
		j->started[t] = pthread_create(&j->tid[t], NULL, share_main,
		    &j->share[t]) == 0;
		if (!j->started[t])
			share_main(&j->share[t]);
	}
}

void
otp_job_wait(struct otp_job *j)
{
	unsigned t;

	for (t = 0; t < j->nshares; t++) {
		if (j->started[t])
			pthread_join(j->tid[t], NULL);
	}
}

/* One share of a batch of HOTP values. */
static void
hotp_share(void *arg, unsigned k, uint64_t first, uint64_t n)
{
	const struct otp_hotp_job *hj = arg;
	struct otp_hmac h = *hj->h;

	(void)k;
	/* Hash with a copy on this thread's own stack: nettle writes its
	 * context for every code, and contexts side by side would bounce
	 * cache lines between CPUs (measured: a third more CPU time). */
	otp_hotp_values(&h, first, hj->values + (first - hj->first),
	    (size_t)n);
	otp_hmac_wipe(&h);
}

void
otp_hotp_job_start(struct otp_hotp_job *hj, const struct otp_hmac *h,
    uint64_t first, uint32_t *values, size_t n, unsigned threads)
{
	hj->h = h;
	hj->first = first;
	hj->values = values;
	otp_job_split(&hj->job, first, n, threads, hotp_share, hj);
	otp_job_start(&hj->job, 0);
}

void
otp_hotp_job_wait(struct otp_hotp_job *hj)
{
	otp_job_wait(&hj->job);
}
